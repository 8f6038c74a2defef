"""Straight-line scripts (fastrank.engine.lua.plans): a plan answers exactly as Lua.

Random straight-line scripts -- zset, string, hash and key commands, failing
calls, KEYS/ARGV/literal arguments, out-of-range indexes, random layout --
run on twin Engines, one caching plans and one running every script in Lua
(``set_script_plans(engine, False)``), through EVAL, EVALSHA, the read-only
variants, redis-py's Script objects, pipelines and transactions; every
reply, exception class and text, and the keyspace after each step, must be
equal. The fixed tests pin which scripts get a plan and the edges named in
the module's docstring.
"""
from __future__ import annotations

import hashlib
from typing import Any, Callable, Dict, List, Tuple
from unittest import mock

import pytest
import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine
from fastrank._core import Command
from fastrank.engine.commands.scripting import set_script_plans
from fastrank.engine.lua.plans import compile_plan
from fastrank.engine.commands import COMMANDS as COMMAND_TABLE
from fastrank.engine.commands.scripting import scripting

KEY_NAMES = ["'z1'", "'s1'", '"h1"', "'n1'"]
MEMBERS = ["'a'", '"b"', "'OK'", "'m\x00n'", "'\u00e9'", "''"]
NUMBERS = ["1", "-3", "2.5", "1e3", "100", "'7'", "'x'", "9007199254740993", "123456789012345678",
           "1e400", "0", "-0.5", "'9223372036854775806'", "'2.5'"]

# (template, weight) -- K a key, M a member or field, N a number, V a value
COMMANDS = [
    "'zadd', K, N, M", "'zincrby', K, N, M", "'zscore', K, M", "'zrevrank', K, M", "'zrank', K, M",
    "'zrange', K, 0, -1, 'withscores'", "'zrangebyscore', K, '-inf', '+inf', 'withscores'",
    "'zpopmin', K", "'zmscore', K, M, 'zz'", "'zcard', K", "'zrem', K, M", "'zcount', K, 0, 10",
    "'set', K, V", "'set', K, V, 'get'", "'set', K, V, V", "'set', K, V, 'nx'", "'get', K",
    "'incrby', K, N", "'incrbyfloat', K, N", "'incr', K", "'append', K, V", "'getdel', K",
    "'mset', K, V, K, V", "'strlen', K", "'mget', K, K",
    "'hset', K, M, V", "'hget', K, M", "'hgetall', K", "'hincrby', K, M, N",
    "'hincrbyfloat', K, M, N", "'hdel', K, M", "'hmget', K, M, 'zz'", "'hlen', K",
    "'del', K", "'exists', K, K", "'type', K", "'expire', K, 100", "'persist', K", "'ttl', K",
    "'rename', K, K", "'ping'", "'ping', V", "'echo', V", "'setnx', K, V", "'HSET', K, M, N",
    # failing calls: unknown, arity, refused in scripts, wrong arguments
    "'nosuch', K", "'get'", "'get', K, 'extra'", "'zadd', K", "'multi'", "'watch', K",
    "'bzpopmin', K, 0", "'eval', 'return 1', 0", "'expire', K, 'x'", "'zadd', K, 'nan', M",
]


@st.composite
def argument(draw: st.DrawFn, kind: str) -> str:
    r = draw(st.integers(0, 9))
    if r < 3:  # KEYS / ARGV, sometimes beyond what the call passes
        return f"{draw(st.sampled_from(['KEYS', 'ARGV']))}[{draw(st.integers(1, 4))}]"
    if kind == "K":
        return draw(st.sampled_from(KEY_NAMES))
    if kind == "N":
        return draw(st.sampled_from(NUMBERS))
    return draw(st.sampled_from(MEMBERS + NUMBERS))


@st.composite
def call(draw: st.DrawFn) -> str:
    template = draw(st.sampled_from(COMMANDS))
    parts = []
    for word in template.split(", "):
        parts.append(draw(argument(word)) if word in ("K", "M", "N", "V") else word)
    gap = st.sampled_from(["", " ", "\n", "  \t", " \n  ", "\r\n"])
    inner = "".join(p + (draw(gap) + "," + draw(gap) if i < len(parts) - 1 else "")
                    for i, p in enumerate(parts))
    head = draw(st.sampled_from(["redis.call(", "redis .call(", "redis. call (", "redis.call  ("]))
    return head + draw(gap) + inner + draw(gap) + ")"


@st.composite
def straight_line(draw: st.DrawFn) -> str:
    calls = draw(st.lists(call(), min_size=1, max_size=4))
    if draw(st.booleans()):
        calls[-1] = "return " + calls[-1]
    seps = st.sampled_from([" ", "\n", ";", "; ", "\n\n", " -- note\n", "\r\n", "\n\r", "\t;\n",
                            ";-- x\n"])
    out = draw(st.sampled_from(["", "\n", "-- a comment\n", "  "]))
    for i, c in enumerate(calls):
        out += c + (draw(seps) if i < len(calls) - 1 else draw(st.sampled_from(["", ";", "\n", " --"])))
    return out


ARGS = st.lists(st.sampled_from([b"z1", b"s1", b"h1", b"n1", b"a", b"7", b"2.5", b"x", b"OK",
                                 b"bin\x00", b"\xff", b"get", b"-3", b"OK\r\nX"]), max_size=4)
MODES = ["eval", "evalsha", "eval_ro", "evalsha_ro", "script", "pipeline", "transaction"]
steps = st.lists(st.tuples(straight_line(), st.sampled_from(MODES), st.integers(0, 3), ARGS),
                 min_size=1, max_size=6)


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", fn())
    except (redis.RedisError, UnicodeDecodeError) as exc:  # decode_responses on binary replies
        return (type(exc).__name__, str(exc))


def keyspace(engine: Engine) -> Dict[Any, Any]:
    """Every key's type, contents and whether it has a TTL, as raw bytes."""
    def raw(*words: Any) -> Any:
        return engine.execute_command(*words, NEVER_DECODE=True)

    out = {}
    for key in raw("KEYS", "*"):
        kind = raw("TYPE", key)
        if kind == b"zset":
            value: Any = raw("ZRANGE", key, 0, -1, "WITHSCORES")
        elif kind == b"hash":
            value = raw("HGETALL", key)
        else:
            value = raw("GET", key)
        out[key] = (kind, value, raw("TTL", key) > 0)
    return out


def run(engine: Engine, script: str, mode: str, numkeys: int, args: List[bytes]) -> Any:
    keys, argv = args[:numkeys], args[numkeys:]
    if len(keys) < numkeys:
        numkeys = len(keys)
    sha = hashlib.sha1(script.encode()).hexdigest()
    if mode == "eval":
        return outcome(lambda: engine.eval(script, numkeys, *keys, *argv))
    if mode == "eval_ro":
        return outcome(lambda: engine.eval_ro(script, numkeys, *keys, *argv))
    if mode in ("evalsha", "evalsha_ro"):
        engine.script_load(script)
        method = engine.evalsha if mode == "evalsha" else engine.evalsha_ro
        return outcome(lambda: method(sha, numkeys, *keys, *argv))
    if mode == "script":
        obj = engine.register_script(script)
        return outcome(lambda: obj(keys=keys, args=argv))
    pipe = engine.pipeline(transaction=mode == "transaction")
    pipe.set("p1", "v")
    pipe.eval(script, numkeys, *keys, *argv)
    pipe.get("p1")
    return outcome(lambda: pipe.execute(raise_on_error=False))


def normal(result: Any) -> Any:
    """Exception objects inside pipeline replies compared by class and text."""
    if isinstance(result, list):
        return [normal(x) for x in result]
    if isinstance(result, tuple):
        return tuple(normal(x) for x in result)
    if isinstance(result, Exception):
        return (type(result).__name__, str(result))
    return result


def twins(**options: Any) -> Tuple[Engine, Engine]:
    planned, lua = Engine(**options), Engine(**options)
    set_script_plans(lua, False)
    return planned, lua


@pytest.mark.parametrize("decode", [False, True])
@given(data=steps)
@settings(max_examples=300, deadline=None)
def test_plans_answer_as_lua(decode: bool, data: Any) -> None:
    planned, lua = twins(decode_responses=decode)
    for script, mode, numkeys, args in data:
        got = normal(run(planned, script, mode, numkeys, args))
        want = normal(run(lua, script, mode, numkeys, args))
        assert got == want, (script, mode, numkeys, args)
        assert keyspace(planned) == keyspace(lua), (script, mode)
        sha = hashlib.sha1(script.encode()).hexdigest().encode()
        entry = planned._lua.scripts.get(sha) if planned._lua is not None else None
        assert entry is None or entry[2] is not None, script  # the generator's scripts get plans
        assert lua._lua is None or all(e[2] is None for e in lua._lua.scripts.values())


def plan_of(script: str) -> Any:
    engine = Engine()
    return compile_plan(scripting(engine), script.encode())


@pytest.mark.parametrize("script", [
    "redis.call('get', KEYS[1])",
    "return redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])",
    "redis.call('set', 'a', 1);redis.call('incr', 'a') ; return redis.call('get', 'a');",
    "-- lead\nredis . call ( 'ping' ) -- trail\n\r return redis.call(\"echo\", 'x')",
    "return redis.call('nosuch')",
    "return redis.call('get', KEYS[9], 1e3, -2.5)",
])
def test_straight_line_scripts_get_plans(script: str) -> None:
    assert plan_of(script) is not None


@pytest.mark.parametrize("script", [
    "return 1",
    "",
    "redis.pcall('get', 'a')",
    "return redis.call('get', 'a') return 1",
    "return redis.call('get', 'a');;",
    "redis.call('get', 'a\\n')",
    "redis.call('get', [[a]])",
    "--[[ long ]] redis.call('get', 'a')",
    "redis.call('set', 'a', -0)",
    "redis.call('set', 'a', 0x10)",
    "redis.call('set', 'a', .5)",
    "redis.call('set', 'a', 1 + 1)",
    "redis.call('set', 'a', 'b' .. 'c')",
    "redis.call('get', KEYS[0])",
    "redis.call('get', KEYS[1.5])",
    "redis.call('get', KEYS[i])",
    "redis.call(KEYS[1], 'a')",
    "redis.call()",
    "redis.call\n('get', 'a')",
    "local x = redis.call('get', 'a')",
    "redis.call('get', 'a').x",
    "redis.call('get', ARGV)",
])
def test_other_scripts_stay_in_lua(script: str) -> None:
    assert plan_of(script) is None


def test_lines_of_errors_follow_the_call() -> None:
    """The error names the line of the failing call's '(' (Lua's line for it)."""
    script = "redis.call('set', KEYS[1], 'x')\n\n  redis.call(\n'incr',\n KEYS[1])"
    for engine in twins():
        with pytest.raises(redis.ResponseError) as info:
            engine.eval(script, 1, "k")
        assert str(info.value).endswith("on @user_script:3."), str(info.value)
        assert engine.get("k") == b"x"  # the first call's write stays


def test_out_of_range_index_runs_nothing_then_lua_fails() -> None:
    script = "redis.call('set', 'first', 1) return redis.call('set', KEYS[2], 1)"
    answers = []
    for engine in twins():
        answers.append(outcome(lambda: engine.eval(script, 1, "k")))
        answers.append(engine.get("first"))
    assert answers[0] == answers[2] and answers[1] == answers[3] == b"1"
    assert "must be strings or integers" in answers[0][1]


def test_integer_replies_pass_through_a_double() -> None:
    for engine in twins():
        engine.set("big", 2 ** 53)
        assert engine.eval("return redis.call('incrby', 'big', 1)", 0) == 2 ** 53
        assert engine.eval("return redis.call('get', 'big')", 0) == str(2 ** 53 + 1).encode()
        engine.set("max", 2 ** 63 - 1)
        assert engine.eval("return redis.call('incrby', 'max', 0)", 0) == -2 ** 63


def test_read_only_variants_refuse_writes_after_earlier_calls() -> None:
    script = "redis.call('get', 'a')\nreturn redis.call('set', 'a', 1)"
    texts = []
    for engine in twins():
        sha = engine.script_load(script)
        for fn in (lambda: engine.eval_ro(script, 0), lambda: engine.evalsha_ro(sha, 0)):
            texts.append(outcome(fn))
        assert engine.get("a") is None
    assert len(set(texts)) == 1 and "read-only" in texts[0][1] and texts[0][1].endswith(":2.")


def test_no_writes_flag_runs_as_read_only() -> None:
    script = "#!lua flags=no-writes\nreturn redis.call('set', 'a', 1)"
    results = [outcome(lambda: engine.eval(script, 0)) for engine in twins()]
    assert results[0] == results[1] and "read-only" in results[0][1] and results[0][1].endswith(":2.")


def test_watch_sees_keys_a_plan_writes() -> None:
    for engine in twins():
        pipe = engine.pipeline()
        pipe.watch("w")
        engine.eval("redis.call('set', KEYS[1], 'x')", 1, "w")
        pipe.multi()
        pipe.set("w", "y")
        with pytest.raises(redis.WatchError):
            pipe.execute()
        assert engine.get("w") == b"x"


def test_script_flush_drops_plans() -> None:
    engine = Engine()
    script = "return redis.call('incr', KEYS[1])"
    sha = engine.script_load(script)
    assert engine._lua is not None and engine._lua.scripts[sha.encode()][2] is not None
    assert engine.evalsha(sha, 1, "n") == 1
    engine.script_flush()
    assert engine._lua.scripts == {}
    with pytest.raises(redis.exceptions.NoScriptError):
        engine.evalsha(sha, 1, "n")
    assert engine.get("n") == b"1"


def test_status_and_nested_replies() -> None:
    cases = [
        ("return redis.call('set', KEYS[1], ARGV[1])", ["k"], [b"v"]),
        ("return redis.call('set', KEYS[1], ARGV[1], ARGV[2])", ["k"], [b"v", b"get"]),
        ("return redis.call('type', KEYS[1])", ["k"], []),
        ("return redis.call('ping')", [], []),
        ("return redis.call('ping', ARGV[1])", [], [b"OK\r\nX"]),
        ("redis.call('hset', 'h', 'a', 1, 'b', 2.5) return redis.call('hgetall', 'h')", [], []),
        ("redis.call('zadd', 'z', 1.5, 'a') return redis.call('zmscore', 'z', 'a', 'q')", [], []),
        ("return redis.call('zrange', 'nokey', 0, -1)", [], []),
        ("redis.call('set', 'b', ARGV[1]) return redis.call('mget', 'b', 'q', 'b')", [], [b"a\x00b"]),
        ("return redis.call('zpopmin', 'nokey')", [], []),
        ("return redis.call('get', 'nokey')", [], []),
        ("return redis.call('exists', 'nokey')", [], []),
    ]
    for script, keys, args in cases:
        results = [outcome(lambda: engine.eval(script, len(keys), *keys, *args)) for engine in twins()]
        assert results[0] == results[1], script


def test_a_handler_raising_a_python_exception_ends_the_script_as_in_lua() -> None:
    """Not an error reply: the bridge words it ``ERR <text>`` (a test-only command)."""
    def boom(db: Any, args: List[bytes]) -> Any:
        raise ValueError("boom here")

    with mock.patch.dict(COMMAND_TABLE, {b"FRPLANTESTBOOM": Command("frplantestboom", boom, 2, False, False)}):
        script = "redis.call('set', 'a', 1)\nreturn redis.call('frplantestboom', 'a')"
        results = [outcome(lambda: engine.eval(script, 0)) for engine in twins()]
    assert results[0] == results[1]
    assert results[0][0] == "ResponseError" and results[0][1].startswith("boom here script: ")
