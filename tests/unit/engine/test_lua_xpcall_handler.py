"""An xpcall whose error handler fails runs that handler once (issue #25).

Lua 5.1 calls the handler again for an error raised inside it, nested, about
220 times until its C stack runs out, then answers ``false, "error in error
handling"`` (Redis 7.0 does the same: the text is checked against the live
server in tests/compat/test_diff_lua_edges.py). Each of those calls may be
slow or call back into Python, so a failing handler could keep a script (and
the Engine's lock) busy far past its own cost. The Engine ends the xpcall at
the handler's first failure with the same text; a handler stopped by the time
limit stops the script, and the Engine answers after.
"""
from __future__ import annotations

import pytest
import redis

import fastrank

ERRERR = b"error in error handling"


@pytest.fixture
def engine() -> fastrank.Engine:
    e = fastrank.Engine()
    e.script_time_limit = 1.0
    return e


# handlers that fail, each counting its runs in the script's local n
FAILING = [
    "function(m) n = n + 1 error('again') end",
    "function(m) n = n + 1 return nil + 1 end",
    "function(m) n = n + 1 local t = nil return t.x end",
    "function(m) n = n + 1 return redis.call({}) end",
    "function(m) n = n + 1 return bit.band({}) end",
    "function(m) n = n + 1 error(m, 0) end",
    "function(m) n = n + 1 for i = 1, 2e5 do end error('slow') end",
    "function(m) n = n + 1 local s = string.rep('x', 2^20) error(s) end",
]


@pytest.mark.parametrize("handler", FAILING)
def test_a_failing_handler_runs_once(engine: fastrank.Engine, handler: str) -> None:
    script = (f"local n = 0 local ok, e = xpcall(function() error('first') end, {handler}) "
              "return {tostring(ok), e, n}")
    assert engine.eval(script, 0) == [b"false", ERRERR, 1]


@pytest.mark.parametrize("handler", FAILING[:4])
def test_a_failing_handler_runs_once_inside_a_coroutine(engine: fastrank.Engine,
                                                        handler: str) -> None:
    script = ("local n = 0 local co = coroutine.create(function() "
              f"return xpcall(function() redis.call('nosuch') end, {handler}) end) "
              "local resumed, ok, e = coroutine.resume(co) return {tostring(resumed), tostring(ok), e, n}")
    assert engine.eval(script, 0) == [b"true", b"false", ERRERR, 1]


def test_a_handler_that_is_not_a_function(engine: fastrank.Engine) -> None:
    assert engine.eval("return {xpcall(error, 1)}", 0) == [None, ERRERR]


def test_each_xpcall_gets_its_own_handler_run(engine: fastrank.Engine) -> None:
    # an xpcall inside a handler, whose own handler fails, leaves the outer
    # handler's result alone; and a second xpcall runs its handler again
    script = """
    local n = 0
    local function failing() n = n + 1 error('again') end
    local ok, e = xpcall(function() error('outer') end, function(m)
      local inner_ok, inner_e = xpcall(function() error('inner') end, failing)
      return 'handled: ' .. inner_e
    end)
    local ok2, e2 = xpcall(function() error('second') end, failing)
    return {tostring(ok), e, tostring(ok2), e2, n}
    """
    assert engine.eval(script, 0) == [b"false", b"handled: " + ERRERR, b"false", ERRERR, 2]


def test_a_handler_that_succeeds_is_unchanged(engine: fastrank.Engine) -> None:
    script = ("local n = 0 local ok, e = xpcall(function() error('x') end, "
              "function(m) n = n + 1 return 'got: ' .. m end) return {tostring(ok), e, n}")
    assert engine.eval(script, 0) == [b"false", b"got: user_script:1: x", 1]


def test_a_handler_stopped_by_the_time_limit_stops_the_script(engine: fastrank.Engine) -> None:
    engine.script_time_limit = 0.05
    script = ("local ok, e = xpcall(function() error('x') end, "
              "function(m) local s = m while true do s = m end end) return 'went on'")
    with pytest.raises(redis.ResponseError, match="Script killed"):
        engine.eval(script, 0)
    assert engine.eval("return {xpcall(error, function() error('y') end)}", 0) == [None, ERRERR]
    assert engine.ping() is True
