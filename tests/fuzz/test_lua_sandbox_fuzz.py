"""Fuzz test of the Engine's Lua sandbox: random hostile scripts, then a canary.

A seeded generator builds scripts from a small grammar that favours what
could break the sandbox (pairs/ipairs/next values, rawset, getmetatable,
setmetatable, loadstring/load of bytecode, string.dump, xpcall handlers,
coroutines, loops that hit the time limit, allocations that hit the memory
cap). A child Python process runs them on one Engine (a crash or a hang fails
the test, not the run), then a fixed canary script fingerprints what scripts
can reach: the globals, redis.*, string.*, every library table and the
string metatable must be as they were before the first random script, and
every error must have been a redis ResponseError. Bounded: seeds 1-10, 150
scripts each, a few seconds per seed (whether a looping script ends by the time
limit sooner or later, it ends the same way). The child's glibc fills freed
memory and keeps no per-thread cache, so a use of freed memory crashes at once
(this test found Lua values outliving their coroutine: engine/lua/detach.py).
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import List

import pytest

import fastrank

SRC = os.path.dirname(os.path.dirname(os.path.abspath(fastrank.__file__)))
SCRIPTS_PER_SEED = 150

TABLES = ["_G", "redis", "string", "table", "math", "cjson", "cmsgpack", "struct", "bit",
          "coroutine", "getmetatable('')", "select(2, pairs(_G))", "select(2, pairs(string))",
          "select(2, ipairs(redis))", "select(2, next, cjson)", "rawget(_G, 'string')",
          "getmetatable('').__index", "KEYS", "{}"]
KEYS = ["'call'", "'pcall'", "'format'", "'sub'", "'byte'", "'__index'", "'__newindex'",
        "'__metatable'", "'encode'", "'x'", "'string'", "'redis'", "1", "'dump'", "'rep'"]
VALUES = ["function(...) return 'spy' end", "nil", "1", "{}", "'text'", "redis.call",
          "string.format", "setmetatable({}, {__index = function() return 'spy' end})",
          "function() while true do end end", "_G", "string"]
CHUNKS = ["'\\27LuaQ\\0\\1\\4\\8\\4\\8\\0'", "(string.dump and string.dump(function() end) or '')",
          "'return 1'", "'leak = 1'", "'\\27' .. 'return 1'", "ARGV[1]",
          "'rawset(_G, \"leak\", 1)'", "'local _, g = pairs(_G) g.leak = 1'"]


def statement(rng: random.Random, depth: int = 0) -> str:
    t, k, v = rng.choice(TABLES), rng.choice(KEYS), rng.choice(VALUES)
    choices = [
        lambda: f"rawset({t}, {k}, {v})",
        lambda: f"({t})[{k}] = {v}",
        lambda: f"setmetatable({t}, {{__index = {v}, __newindex = {v}}})",
        lambda: f"setmetatable({t}, nil)",
        lambda: f"getmetatable({t}).__index = {v}",
        lambda: f"rawset(getmetatable({t}), {k}, {v})",
        lambda: f"for key in pairs({t}) do rawset({t}, key, {v}) end",
        lambda: f"for key, x in next, {t} do local _, s = pairs({t}) s[key] = {v} end",
        lambda: f"local _, s = ipairs({t}) s[{k}] = {v}",
        lambda: f"local f = loadstring({rng.choice(CHUNKS)}) if f then f() end",
        lambda: (f"local n = 0 local f = load(function() n = n + 1 "
                 f"if n == 1 then return {rng.choice(CHUNKS)} end end) if f then f() end"),
        lambda: "local d = string.dump(function() return 1 end) loadstring(d)()",
        lambda: "string.dump(function() end)",
        lambda: f"local s = string.rep('x', 2^{rng.randint(10, 30)}) leak = s",
    ]
    if depth < 2:
        inner = statement(rng, depth + 1)
        other = statement(rng, depth + 1)
        choices += [
            lambda: f"xpcall(function() {inner} end, function(e) {other} return e end)",
            lambda: f"xpcall(function() {inner} end, function() while true do end end)",
            lambda: f"coroutine.wrap(function() {inner} coroutine.yield() {other} end)()",
            lambda: (f"local co = coroutine.create(function() {inner} end) "
                     f"coroutine.resume(co) coroutine.resume(co)"),
            lambda: f"pcall(function() {inner} end) {other}",
            lambda: f"for i = 1, 3 do {inner} end",
        ]
    return rng.choice(choices)()


def script(rng: random.Random) -> str:
    body = " ".join(f"pcall(function() {statement(rng)} end)" for _ in range(rng.randint(1, 4)))
    if rng.random() < 0.05:
        body += " while true do end"
    return body + " return 1"


CHILD = r'''
import json, sys
import redis
import lupa.lua51
import fastrank

scripts = json.loads(sys.stdin.read())
e = fastrank.Engine()
e.script_time_limit = 0.05
e.script_memory_limit = 32 * 1024 * 1024
bytecode = lupa.lua51.LuaRuntime(encoding=None).eval(
    "string.dump(function() leak = 1 return 'loaded' end)")

CANARY = """
local out = {}
local function add(s) out[#out + 1] = s end
for k, v in pairs(_G) do
  add('G.' .. tostring(k) .. '=' .. type(v))
  if type(v) == 'table' and k ~= '_G' and k ~= 'KEYS' and k ~= 'ARGV' then
    for f, x in pairs(v) do add(k .. '.' .. tostring(f) .. '=' .. tostring(x)) end
    local mt = getmetatable(v)
    add(k .. '.mt=' .. tostring(mt))
  end
end
local mt = getmetatable('')
add('mt.index=' .. tostring(mt.__index == string))
for f, x in pairs(mt) do add('mt.' .. tostring(f) .. '=' .. tostring(x)) end
add('upper=' .. ('abc'):upper() .. ' sub=' .. ('abc'):sub(2))
add('format=' .. string.format('%d-%s', 7, 'x'))
add('set=' .. tostring(redis.call('set', 'canary', 'v').ok))
add('get=' .. tostring(redis.pcall('get', 'canary')))
add('json=' .. cjson.encode({1, 2}) .. ' pack=' .. #cmsgpack.pack({1, 2}))
add('leak=' .. tostring(rawget(_G, 'leak')))
local ok, err = pcall(function() return leak end)
add('leak global=' .. tostring(ok))
table.sort(out)
return out
"""

before = e.eval(CANARY, 0)
odd = []
for i, body in enumerate(scripts):
    try:
        if i % 3 == 0:
            e.evalsha(e.script_load(body), 0, bytecode)
        else:
            e.eval(body, 0, bytecode)
    except redis.ResponseError:
        pass
    except Exception as err:
        odd.append([body, type(err).__name__, str(err)[:300]])
    if i % 50 == 49:
        e.script_flush()
after = e.eval(CANARY, 0)
e.script_flush()
flushed = e.eval(CANARY, 0)
changed = sorted(set(before) ^ set(after)) + sorted(set(before) ^ set(flushed))
print(json.dumps({"changed": [c.decode("utf-8", "replace") for c in changed],
                  "odd": odd, "ping": e.ping()}))
'''


@pytest.mark.parametrize("seed", range(1, 11))
def test_random_scripts_leave_the_environment_untouched(seed: int) -> None:
    rng = random.Random(seed)
    scripts: List[str] = [script(rng) for _ in range(SCRIPTS_PER_SEED)]
    # glibc fills freed memory and keeps no per-thread cache: a use of freed
    # memory (a Lua state the script's coroutines left) crashes at once
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MALLOC_PERTURB_="165", GLIBC_TUNABLES="glibc.malloc.tcache_count=0")
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(scripts),
                              capture_output=True, text=True, timeout=300, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"seed {seed}: the child did not finish (a script hung the Engine)")
    assert proc.returncode == 0, f"seed {seed}: child exited with {proc.returncode}:\n" \
                                 f"{proc.stderr[-3000:]}"
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["changed"] == [], f"seed {seed}: the canary changed"
    assert result["odd"] == [], f"seed {seed}: errors other than ResponseError"
    assert result["ping"] is True
