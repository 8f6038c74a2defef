"""Scripting commands (commands/scripting.py), what only the Engine has: the loop
guard, atomicity across threads, a clean environment for each script (the
replies against Redis are in tests/compat/commands/test_diff_scripting.py)."""
from __future__ import annotations

import threading

import pytest
import redis

from fastrank import Engine
from fastrank import errors as E


def test_loop_guard_stops_a_script_and_keeps_the_engine_usable(engine: Engine) -> None:
    engine.script_time_limit = 0.05
    for body in ["redis.call('set', 'before', 1) while true do end",
                 "while true do pcall(function() while true do end end) end",
                 "local co = coroutine.wrap(function() while true do end end) co()",
                 "local co = coroutine.create(function() while true do end end) "
                 "while true do coroutine.resume(co) end"]:
        with pytest.raises(redis.ResponseError) as info:
            engine.eval(body, 0)
        assert str(info.value).startswith(E.message(E.SCRIPT_TIMEOUT % 50))
    assert engine.get("before") == b"1"  # writes before the stop stay
    assert engine.eval("return redis.call('incr', 'before')", 0) == 2


def test_scripts_are_atomic_across_threads(engine: Engine) -> None:
    body = ("local v = tonumber(redis.call('get', KEYS[1]) or '0') "
            "for i = 1, 200 do local x = i * 2 end "
            "redis.call('set', KEYS[1], v + 1) return v + 1")
    script = engine.register_script(body)

    def work() -> None:
        for _ in range(300):
            script(keys=["counter"])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert engine.get("counter") == b"1200"


def test_no_script_changes_the_environment_of_the_next(engine: Engine) -> None:
    attempts = [
        "getmetatable('').__index = {}",
        "redis.call = nil", "string.upper = nil", "cjson.encode = nil", "_G.redis = nil",
        "rawset(_G, 'x', 1)", "rawset(redis, 'call', nil)", "setmetatable(_G, nil)",
        "math.randomseed = nil", "KEYS = nil",
    ]
    for body in attempts:
        with pytest.raises(redis.ResponseError):
            engine.eval(body, 0)
    # lupa's metatable of Python objects is hidden: nothing to change
    assert engine.eval("return getmetatable(redis.call)", 0) is None
    assert engine.eval("return {('x'):upper(), cjson.encode({1}), type(rawget(_G, 'x'))}", 0) == \
        [b"X", b"[1]", b"nil"]
    assert engine.eval("return redis.call('ping')", 0) == b"PONG"


def test_python_objects_stay_out_of_reach(engine: Engine) -> None:
    for body in ["return tostring(redis.call.__class__)", "return redis.call['__self__']"]:
        with pytest.raises(redis.ResponseError, match="attribute access is not available"):
            engine.eval(body, 0)
    # errors reach scripts as Redis's values (strings, tables), not Python exceptions
    for body in ["local ok, e = pcall(redis.call, 'nosuch') return {type(e), tostring(e.__class__)}",
                 "local co = coroutine.create(function() redis.call('nosuch') end) "
                 "local ok, e = coroutine.resume(co) return {type(e), tostring(e.__traceback__)}"]:
        assert engine.eval(body, 0)[1] == b"nil"
