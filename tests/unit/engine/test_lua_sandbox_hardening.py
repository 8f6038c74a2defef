"""The Engine's Lua sandbox against hostile scripts (issue #25, the sandbox).

Every hostile script runs in a child Python process (``run_child``): a crash
(SIGSEGV), a hang or a leak there fails the test instead of ending the test
run. The child drives the Engine only through its public entry points
(``eval``, ``evalsha``, ``script_load``, ``script_flush``) and prints one JSON
line that the test reads. What is checked:

- no table a script can reach is writable across scripts (the values
  ``pairs``/``next``/``ipairs`` hand out, rawset, setmetatable, the string
  metatable): a later script, even after SCRIPT FLUSH, sees the environment
  the Engine built;
- no precompiled chunk loads (EVAL body, loadstring, load), even after a
  script tried to replace the string functions the check could use;
- the time limit holds inside xpcall handlers and the Engine answers after;
- the memory cap (``Engine.script_memory_limit``) stops a script with a clear
  error, pcall cannot catch it, and the Engine goes on;
- no Python object, type name or address reaches Lua;
- a cyclic or very deep reply ends as Redis's does, as a reply, not a lupa
  error.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import fastrank

SRC = os.path.dirname(os.path.dirname(os.path.abspath(fastrank.__file__)))

PRELUDE = '''
import json, sys, threading
import redis
import fastrank
e = fastrank.Engine()

def run(script, *args, numkeys=0, engine=None):
    """["ok", repr(reply)] or [exception class name, text]."""
    try:
        return ["ok", repr((engine or e).eval(script, numkeys, *args))]
    except Exception as err:
        return [type(err).__name__, str(err)]

# a fingerprint of everything a script can reach: each global's type, each
# field of each library table (functions by their text, unique per
# function), the string metatable, and a few calls that must still work
CANARY = """
local out = {}
local function add(s) out[#out + 1] = s end
for k, v in pairs(_G) do
  add('G.' .. tostring(k) .. '=' .. type(v))
  if type(v) == 'table' and k ~= '_G' and k ~= 'KEYS' and k ~= 'ARGV' then
    for f, x in pairs(v) do add(k .. '.' .. tostring(f) .. '=' .. tostring(x)) end
  end
end
local mt = getmetatable('')
add('mt=' .. type(mt) .. ':' .. tostring(mt.__index == string))
for f, x in pairs(mt) do add('mt.' .. tostring(f) .. '=' .. tostring(x)) end
add('upper=' .. ('abc'):upper())
add('format=' .. string.format('%d-%s', 7, 'x'))
add('ping=' .. tostring(redis.call('ping').ok))
add('json=' .. cjson.encode({1, 2}))
table.sort(out)
return out
"""

def canary():
    return e.eval(CANARY, 0)
'''


def run_child(body: str, timeout: float = 120, setup: str = "") -> Any:
    """Run PRELUDE + setup + body in a fresh Python process; the last line it
    prints is JSON. The process must exit by itself with status 0."""
    code = PRELUDE + setup + textwrap.dedent(body)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process did not finish within {timeout}s (a script hung it)")
    assert proc.returncode == 0, f"child exited with {proc.returncode}:\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines, f"child printed nothing:\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1])


# -- readonly tables ----------------------------------------------------------------

# Each attack reaches for a table through an iterator's or a function's
# values and writes into it; every write must fail, and nothing may change.
ATTACKS = [
    "local _, g = pairs(_G) rawset(g, 'leak', 1)",
    "local _, g = pairs(_G) g.leak = 1",
    "local _, g = ipairs(_G) g.leak = 1",
    "local g = select(2, pairs(_G)) g.redis = {call = function() return 'spy' end}",
    "local _, r = pairs(redis) r.call = function(...) return 'spy' end",
    "local _, r = pairs(redis) rawset(r, 'call', function() return 'spy' end)",
    "local _, r = ipairs(redis) rawset(r, 'pcall', tostring)",
    "local _, s = pairs(string) s.format = function() return 'hijacked' end",
    "local _, s = pairs(string) rawset(s, 'upper', function() return 'hijacked' end)",
    "local _, s = next, string for k in next, s do end rawset(s, 'sub', nil)",
    "for _, lib in pairs({cjson, cmsgpack, struct, bit, math, table, coroutine}) do "
    "  local _, t = pairs(lib) for k in pairs(t) do rawset(t, k, nil) end end",
    "local _, t = pairs(cjson) t.encode = function() return 'x' end",
    "rawset(_G, 'leak', 1)",
    "setmetatable(_G, nil) leak = 1",
    "setmetatable(string, {__index = function() return 'x' end})",
    "local mt = getmetatable('') mt.__index = {upper = function() return 'x' end}",
    "local mt = getmetatable('') rawset(mt, '__index', {})",
    "local _, mt = pairs(getmetatable('')) mt.__index = {}",
    "setmetatable(getmetatable(''), {})",
    "local r = rawget(_G, 'redis') rawset(r, 'call', nil)",
]


def test_no_attack_changes_what_the_next_script_sees() -> None:
    result = run_child(f'''
        attacks = {ATTACKS!r}
        before = canary()
        outcomes = []
        for attack in attacks:
            outcomes.append(run("pcall(function() " + attack + " end) return 1"))
            outcomes.append(run(attack))
        after = canary()
        flushed = e.script_flush() and canary()
        leak = run("return leak")
        print(json.dumps([before == after, before == flushed, leak,
                          [o for o in outcomes if o[0] not in ("ok", "ResponseError")]]))
    ''')
    same, same_after_flush, leak, odd = result
    assert same and same_after_flush
    assert leak[0] == "ResponseError"
    assert "nonexistent global variable 'leak'" in leak[1]
    assert odd == []


def test_every_write_is_refused_as_redis_words_it() -> None:
    result = run_child(f'''
        attacks = {ATTACKS!r}
        texts = [run("local ok, e = pcall(function() " + a + " end) return e")[1] for a in attacks]
        print(json.dumps(texts))
    ''')
    for attack, text in zip(ATTACKS, result):
        assert "Attempt to modify a readonly table" in text, (attack, text)


def test_a_spy_on_redis_call_never_sees_another_scripts_arguments() -> None:
    result = run_child('''
        spy = (
            "local seen = {} "
            "local _, r = pairs(redis) "
            "pcall(rawset, r, 'call', function(...) seen[#seen + 1] = table.concat({...}, ' ') end) "
            "pcall(function() r.call = function(...) seen[#seen + 1] = 1 end end) "
            "local _, g = pairs(_G) pcall(rawset, g, 'SEEN', seen) "
            "return 1")
        run(spy)
        e.script_flush()
        secret = run("return redis.call('set', KEYS[1], ARGV[1])", "k", "secret", numkeys=1)
        seen = run("return SEEN")
        print(json.dumps([secret, seen, e.get("k").decode()]))
    ''')
    secret, seen, stored = result
    assert secret == ["ok", "b'OK'"]
    assert stored == "secret"
    assert seen[0] == "ResponseError" and "nonexistent global variable 'SEEN'" in seen[1]


def test_iterating_a_library_still_reads_its_functions() -> None:
    result = run_child('''
        print(json.dumps([
            run("local n = 0 for k, v in pairs(string) do n = n + 1 end return n"),
            run("local n = 0 for k, v in next, redis do n = n + 1 end return n"),
            run("local t = {} for i, v in ipairs(KEYS) do t[i] = v end return t", "a", "b",
                numkeys=2),
            run("return rawget(string, 'format') == string.format"),
            run("local t = setmetatable({}, {__index = {x = 1}}) return t.x"),
            run("local t = rawset({}, 'a', 5) return t.a"),
        ]))
    ''')
    strings, redis_fields, keys, raw, inherited, raw_set = result
    assert strings == ["ok", "14"]  # Lua 5.1's string library without dump
    assert redis_fields[0] == "ok" and int(redis_fields[1]) > 10
    assert keys == ["ok", "[b'a', b'b']"]
    assert raw == inherited == ["ok", "1"]
    assert raw_set == ["ok", "5"]


# -- bytecode -------------------------------------------------------------------------

BYTECODE_CHILD = '''
import lupa.lua51
plain = lupa.lua51.LuaRuntime(encoding=None)
chunk = plain.eval("string.dump(function() return 'loaded' end)")
'''


def test_no_path_loads_a_precompiled_chunk() -> None:
    result = run_child(setup=BYTECODE_CHILD, body='''
        out = [
            run(chunk),
            run("return {loadstring(ARGV[1])}", chunk),
            run("local f = loadstring(ARGV[1]) return f and f() or 'refused'", chunk),
            run("local done = false "
                "local f = load(function() if done then return nil end done = true "
                "return ARGV[1] end) return f and f() or 'refused'", chunk),
            run("local i = 0 local f = load(function() i = i + 1 "
                "if i == 1 then return ARGV[1]:sub(1, 1) elseif i == 2 then "
                "return ARGV[1]:sub(2) end end) return f and f() or 'refused'", chunk),
        ]
        try:
            out.append(["ok", repr(e.evalsha(e.script_load(chunk), 0))])
        except Exception as err:
            out.append([type(err).__name__, str(err)])
        print(json.dumps(out))
    ''')
    body, listed, called, loaded, split, by_sha = result
    assert body[0] == "ResponseError" and "Error compiling script" in body[1]
    assert by_sha[0] == "ResponseError" and "Error compiling script" in by_sha[1]
    assert listed == ["ok", "[]"]
    assert called == loaded == ["ok", "b'refused'"]
    assert split == ["ok", "b'refused'"]


def test_bytecode_stays_refused_after_attempts_on_the_string_functions() -> None:
    # Before: a script could replace string.sub (through pairs' second value)
    # and so switch off the loader's check; the chunk then loaded.
    result = run_child(setup=BYTECODE_CHILD, body='''
        for attack in ("local _, s = pairs(string) s.sub = function() return 'x' end",
                       "local _, s = pairs(string) s.byte = function() return 0 end",
                       "local mt = getmetatable('') mt.__index = {sub = function() return '' end}"):
            run(attack)
        print(json.dumps([
            run("local f = loadstring(ARGV[1]) return f and f() or 'refused'", chunk),
            run("return string.dump"),
        ]))
    ''')
    assert result == [["ok", "b'refused'"], ["ok", "None"]]


# -- the time limit everywhere a script runs code ----------------------------------

HANDLER_LOOPS = [
    "return xpcall(function() while true do end end, function() while true do end end)",
    "return xpcall(function() while true do end end, "
    "function() local x = 0 for i = 1, 1e12 do x = x + i end return x end)",
    "return xpcall(function() xpcall(function() while true do end end, "
    "function() while true do end end) end, function() while true do end end)",
    "return xpcall(function() while true do end end, "
    "function() return pcall(function() while true do end end) end)",
    "return xpcall(function() while true do end end, function() "
    "local co = coroutine.wrap(function() while true do end end) co() end)",
    "return xpcall(function() error('x') end, function() while true do end end)",
    "local co = coroutine.create(function() "
    "xpcall(function() while true do end end, function() while true do end end) end) "
    "return {coroutine.resume(co)}",
    "local t = {} for i = 1, 100 do t[i] = i end "
    "while true do cjson.encode(t) end",
]


@pytest.mark.parametrize("case", range(len(HANDLER_LOOPS)))
def test_the_time_limit_holds_in_error_handlers(case: int) -> None:
    result = run_child(f'''
        e.script_time_limit = 0.2
        out = run({HANDLER_LOOPS[case]!r})
        answers = []
        t = threading.Thread(target=lambda: answers.append(e.ping()))
        t.start()
        t.join()
        print(json.dumps([out, answers, run("return 'after'")]))
    ''', timeout=90)
    out, answers, after = result
    assert out[0] == "ResponseError"
    assert "Script killed: it ran longer than the engine's script time limit (200 ms)" in out[1]
    assert answers == [True]
    assert after == ["ok", "b'after'"]


# -- memory -----------------------------------------------------------------------------

def test_the_memory_cap_stops_a_script_and_the_engine_goes_on() -> None:
    result = run_child('''
        import resource
        e.script_memory_limit = 64 * 1024 * 1024
        out = [
            run("return string.rep('x', 2^30)"),
            run("return {pcall(string.rep, 'x', 2^30)}"),
            run("local t = {} for i = 1, 1e9 do t[i] = i end"),
            run("local s = 'y' for i = 1, 16 do s = s .. s end "
                "local ok = pcall(function() local t = {} for i = 1, 1e9 do t[#t + 1] = "
                "s .. i end end) return 'caught'"),
            run("return #string.rep('x', 2^20)"),
        ]
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        e.script_memory_limit = None
        out.append(run("return #string.rep('x', 2^26)"))
        print(json.dumps([out, peak_mb]))
    ''')
    out, peak_mb = result
    for outcome in out[:4]:
        assert outcome[0] == "ResponseError", outcome
        assert ("Script killed: it needed more memory than the engine's script memory limit "
                "(67108864 bytes)") in outcome[1]
    assert out[4] == ["ok", str(1 << 20)]
    assert out[5] == ["ok", str(1 << 26)]
    assert peak_mb < 1024  # 3.6 GB before the cap


def test_the_memory_cap_is_per_engine() -> None:
    assert fastrank.Engine.script_memory_limit == 256 * 1024 * 1024
    result = run_child('''
        small = fastrank.Engine()
        small.script_memory_limit = 8 * 1024 * 1024
        print(json.dumps([run("return #string.rep('x', 2^24)", engine=small),
                          run("return #string.rep('x', 2^24)")]))
    ''')
    small, default = result
    assert small[0] == "ResponseError" and "(8388608 bytes)" in small[1]
    assert default == ["ok", str(1 << 24)]


def test_collector_settings_do_not_outlive_the_script() -> None:
    result = run_child('''
        e.script_memory_limit = 32 * 1024 * 1024
        churn = ("for i = 1, 300 do local s = string.rep('z', 2^20) .. i end return 'done'")
        print(json.dumps([run("collectgarbage('stop') return 1"), run(churn),
                          run("collectgarbage('setpause', 100000) return 1"), run(churn)]))
    ''')
    assert result == [["ok", "1"], ["ok", "b'done'"], ["ok", "1"], ["ok", "b'done'"]]


# -- nothing of Python reaches Lua ----------------------------------------------------

def test_no_python_object_reaches_lua() -> None:
    probes = [
        "return tostring(redis.call)", "return tostring(redis.pcall)",
        "return tostring(cjson.encode)", "return tostring(bit.band)",
        "return tostring(math.random)", "return tostring(setmetatable)",
        "return type(redis.call)", "return type(struct.pack)",
        "return tostring(getmetatable(redis.call))",
        "error(redis.call)", "error(cmsgpack.pack)",
        "return {pcall(error, redis.call)}",
        "local ok, e = pcall(error, redis.log) return tostring(e)",
        "return redis.call.__self__", "return redis.call.__class__",
        "local ok, e = xpcall(function() error(redis.sha1hex) end, function(x) return tostring(x) end) "
        "return e",
        "local co = coroutine.create(function() error(redis.call) end) "
        "return tostring(select(2, coroutine.resume(co)))",
        "local t = {} for k, v in pairs(redis) do t[#t + 1] = tostring(v) end return t",
    ]
    result = run_child(f'''
        print(json.dumps([run(p) for p in {probes!r}]))
    ''')
    for probe, (kind, text) in zip(probes, result):
        for word in ("bound method", "LuaScripting", "object at", "fastrank", "lupa", "<",
                     "builtin", "python", "userdata"):
            assert word not in text, (probe, text)
    by_probe = dict(zip(probes, result))
    import re
    for probe in probes[:6]:
        assert re.fullmatch(r"b'function: 0x[0-9a-f]+'", by_probe[probe][1]), by_probe[probe]
    assert by_probe["return type(redis.call)"] == ["ok", "b'function'"]
    assert by_probe["return type(struct.pack)"] == ["ok", "b'function'"]
    assert by_probe["return tostring(getmetatable(redis.call))"] == ["ok", "b'nil'"]
    assert re.fullmatch(r"function: 0x[0-9a-f]+ script: [0-9a-f]{40}, on @user_script:1\.",
                        by_probe["error(redis.call)"][1])


# -- replies ------------------------------------------------------------------------------

def test_a_cyclic_or_deep_reply_is_a_reply_not_a_lua_error() -> None:
    result = run_child('''
        def shape(value):
            depth = 0
            while isinstance(value, list) and len(value) == 1:
                value = value[0]
                depth += 1
            return [depth, type(value).__name__, str(value)]
        out = []
        for script in ("local t = {} t[1] = t return t",
                       "local t = {} local c = t for i = 1, 20000 do c[1] = {} c = c[1] end "
                       "return t"):
            try:
                out.append(shape(e.eval(script, 0)))
            except Exception as err:
                out.append([type(err).__name__, str(err)[:200]])
        out.append(run("return 'after'"))
        print(json.dumps(out))
    ''')
    cyclic, deep, after = result
    assert cyclic == [7995, "ResponseError", "reached lua stack limit"]
    assert deep == cyclic
    assert after == ["ok", "b'after'"]
