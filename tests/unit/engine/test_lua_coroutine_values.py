"""Lua values bound to a coroutine never outlive it in Python (issue #25, the fuzz crash).

lupa binds each Lua value it hands to Python to the lua_State of the thread
that made the call, and releases it through that state. When a Python
function called from Lua inside a coroutine raised, the exception (its
traceback's frames hold the call's arguments; lupa keeps the last exception
until the next one) kept those values alive after Lua had collected the
coroutine; releasing them later wrote through the freed state: a heap
corruption, a SIGSEGV or a glibc assertion some scripts later.

Each case runs in a child process (a crash fails the test, not the run)
with glibc's allocator told to fill freed memory and to keep no per-thread
cache, so a use of a freed coroutine state crashes at once instead of some
day. Every Python callable a script can reach is called with Lua values
(tables, functions) inside a coroutine and made to raise (and the ones that
take or give tables are also called so that they succeed); the coroutine is
then collected, later Python errors replace the one lupa keeps, and the
child checks that the Engine still answers and that no Lua value is left
alive in Python.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import lru_cache

import fastrank

SRC = os.path.dirname(os.path.dirname(os.path.abspath(fastrank.__file__)))

# statements that raise in Python with Lua values among the arguments (redis.pcall's
# bridge raises, and pcall_bridge catches it)
CALLS = [
    "redis.call({}, function() end)",
    "redis.call('set', {}, 'v')",
    "redis.call('nope', {})",
    "redis.pcall({}, {})",
    "redis.sha1hex({}, {})",
    "redis.log({}, {})",
    "redis.log(redis.LOG_WARNING)",
    "redis.setresp({})",
    "redis.set_repl({})",
    "bit.band({}, 1)",
    "bit.tohex(1, {})",
    "struct.pack('i', {})",
    "struct.unpack({}, 'x')",
    "cmsgpack.unpack({})",
    "cjson.encode({f = function() end})",
    "cjson.decode({})",
    "cjson.encode_keep_buffer({})",
    "math.random({})",
    "math.randomseed({})",
    "setmetatable(redis, {})",
    "setmetatable({}, 1)",
    "rawset(string, {}, {})",
    "rawset({}, nil, {})",
    "local x = redis.call[{}]",
    "redis.call[{}] = {}",
]

# statements that succeed with Lua values crossing into Python and back
# (a reference cycle holding one would release it late, through the freed state)
SUCCEEDING = [
    "local x = cmsgpack.pack({1, {a = {2, 3}}, 'x'}, {b = {}})",
    "local x = cmsgpack.pack(function() end, {})",
    "local x = cmsgpack.unpack(cmsgpack.pack({1, {a = {2, 3}}}))",
    "local x = cjson.encode({1, {a = {2, 3}}})",
    'local x = cjson.decode("[1, {\\"a\\": [2, 3]}]")',
    "local x = setmetatable({}, {__index = {}})",
    "local x = rawset({}, {}, {})",
    "redis.setresp(3) local x = redis.call('hgetall', 'h') redis.setresp(2)",
    "local x = redis.call('zrange', 'z', 0, -1, 'withscores')",
    "local x = redis.pcall('incr', 'h')",
    "local x = struct.unpack('>i', struct.pack('>i', 7))",
]

CHILD = r'''
import gc, json, sys
import redis
import fastrank

calls = json.loads(sys.argv[1])
e = fastrank.Engine()
e.hset("h", "f", "v")
e.zadd("z", {"a": 1, "b": 2})

def lua_objects():
    e.script_flush()  # the compiled scripts are Lua values Python keeps
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o).__name__.startswith("_Lua"))  # lupa's wrappers of Lua values

def drop_kept_error():
    # a Python error outside any coroutine replaces the exception lupa keeps
    e.eval("return {pcall(redis.call, 'nope')}", 0)

drop_kept_error()
before = lua_objects()
forms = [
    "local co = coroutine.create(function() %s end) coroutine.resume(co)",
    "pcall(coroutine.wrap(function() %s end))",
    "local co = coroutine.create(function() return pcall(function() %s end) end) coroutine.resume(co)",
    "local co = coroutine.create(function() return xpcall(function() %s end, function(m) return m end) end) coroutine.resume(co)",
]
errors = []
for call in calls:
    for form in forms:
        script = "for i = 1, 5 do " + (form % call) + " end collectgarbage() collectgarbage() return 1"
        try:
            e.eval(script, 0)
        except redis.ResponseError as err:
            errors.append([call, str(err)])
        drop_kept_error()
after = lua_objects()
print(json.dumps({"before": before, "after": after, "errors": errors, "ping": e.ping()}))
'''


@lru_cache(maxsize=None)  # one child for both tests
def run_child() -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MALLOC_PERTURB_="165", GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(CALLS + SUCCEEDING)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr[-3000:]}"
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_the_engine_survives_python_errors_raised_inside_coroutines() -> None:
    child = run_child()
    assert child["ping"] is True
    assert child["errors"] == []  # every script caught its error and returned


def test_no_lua_value_outlives_the_call_that_received_it() -> None:
    child = run_child()
    assert child["after"] == child["before"]
