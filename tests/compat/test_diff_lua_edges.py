"""The edges of the Lua sandbox and its libraries, on the Engine and on Redis 7.0.

Each script runs on both sides (the ``pair`` fixture: replies, or exception
class and text, compared): the readonly tables' errors, bytecode read as
text, Python callables seen as functions, the library edges of issue #25
(cmsgpack's stack limits and argument errors, struct's offsets and size
overflows, cjson's options, NUL bytes and __index), and the reply of a
cyclic or very deep table, which Redis cuts at its Lua stack limit (read
from the server's raw RESP, as redis-py's parsers cannot read that deep).
Scripts that change a cjson setting set it back in the same script: the
server keeps it between tests.
"""
from __future__ import annotations

import socket
from typing import Any, List, Tuple

import pytest

from differential import Pair

# (script, args)
CASES: List[Tuple[str, List[str]]] = [
    # readonly tables: the values iterators hand out, rawset, setmetatable
    ("local ok, e = pcall(function() local _, g = pairs(_G) g.x = 1 end) return e", []),
    ("local ok, e = pcall(function() local _, g = pairs(_G) rawset(g, 'x', 1) end) return e", []),
    ("local ok, e = pcall(function() local _, t = ipairs(string) t.x = 1 end) return e", []),
    ("local ok, e = pcall(function() local t = select(2, pairs(redis)) t.call = 1 end) return e", []),
    ("local ok, e = pcall(rawset, string, 'x', 1) return e", []),
    ("local ok, e = pcall(rawset, select(2, pairs(_G)), 'x', 1) return e", []),
    ("local ok, e = pcall(setmetatable, string, {}) return e", []),
    ("local ok, e = pcall(setmetatable, _G, nil) return e", []),
    ("return setmetatable(string, {})", []),
    ("local x = setmetatable(string, {}) return 1", []),
    ("return rawset(_G, 'x', 1)", []),
    ("return rawset(redis, 'call', 1)", []),
    ("local ok, e = pcall(function() getmetatable('').__index = {} end) return e", []),
    ("return type(getmetatable(''))", []),
    ("return getmetatable(string)", []),
    ("return tostring(select(2, pairs(_G)) == _G)", []),
    ("local n = 0 for k, v in pairs(string) do if k ~= 'dump' then n = n + 1 end end return n", []),
    ("local t = {} for i, v in ipairs(KEYS) do t[i] = v end return t", []),
    ("return rawget(string, 'format') == string.format", []),
    ("return next(redis) ~= nil", []),
    # Lua's own argument errors of the functions the sandbox wraps
    ("return setmetatable({})", []),
    ("return setmetatable(1, {})", []),
    ("return setmetatable()", []),
    ("return setmetatable({}, 1)", []),
    ("local t = setmetatable({}, {__metatable = 1}) return setmetatable(t, {})", []),
    ("return rawset({}, nil, 1)", []),
    ("return rawset({}, 0/0, 1)", []),
    ("return rawset({}, 1)", []),
    ("return rawset({})", []),
    ("return rawset({}, 1, 2)[1]", []),
    ("local x = pairs(nil)", []),
    ("local x = ipairs()", []),
    ("local x = rawget(nil, 1)", []),
    ("local x = type()", []),
    ("local x = getmetatable()", []),
    # an xpcall whose handler fails ends with Lua's text (the Engine runs the
    # handler once, Redis about 220 times: tests/unit/engine/test_lua_xpcall_handler.py)
    ("return {xpcall(function() error('x') end, function(m) error('y') end)}", []),
    ("local ok, e = xpcall(function() error('x') end, function(m) return nil + 1 end) "
     "return {tostring(ok), e}", []),
    ("return {xpcall(error, 1)}", []),
    ("local ok, e = xpcall(function() return redis.call('nosuch') end, "
     "function(m) return redis.call({}) end) return {tostring(ok), e}", []),
    ("local co = coroutine.create(function() return xpcall(function() error('x') end, "
     "function(m) error(m) end) end) local r, ok, e = coroutine.resume(co) "
     "return {tostring(r), tostring(ok), e}", []),
    ("local ok, e = xpcall(function() error('outer') end, function(m) "
     "local ok2, e2 = xpcall(function() error(m) end, function() error('z') end) "
     "return 'handled: ' .. e2 end) return {tostring(ok), e}", []),
    # bytecode: read as text, as Redis's Lua reads it
    ("local f, e = loadstring('\\27LuaQ\\0\\1\\4\\8\\4\\8\\0') return {tostring(f), e}", []),
    ("local f, e = loadstring('\\27Lua', 'name') return {tostring(f), e}", []),
    ("local f, e = loadstring(ARGV[1]) return {tostring(f), e}", ["\x1bLuaQ\x00\x01\x04"]),
    ("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00", []),
    ("return type(loadstring('return 1'))", []),
    # Python callables are functions to scripts
    ("return type(redis.call)", []),
    ("return type(cjson.encode)", []),
    ("return {type(bit.band), type(struct.pack), type(cmsgpack.pack), type(math.random)}", []),
    ("return type(setmetatable)", []),
    ("return tostring(getmetatable(redis.call))", []),
    ("return {pcall(error, redis.call)}", []),
    ("return type(cjson.null)", []),
    # cmsgpack: lua-cmsgpack's stack checks and argument errors
    ("local x = cmsgpack.unpack(string.rep('\\145', tonumber(ARGV[1])) .. '\\1') return 1", ["3999"]),
    ("local x = cmsgpack.unpack(string.rep('\\145', tonumber(ARGV[1])) .. '\\1') return 1", ["4000"]),
    ("local x = cmsgpack.unpack(string.rep('\\145', 100000)) return 1", []),
    ("local x = cmsgpack.unpack(string.rep('\\129\\1', tonumber(ARGV[1])) .. '\\1') return 1", ["3999"]),
    ("local x = cmsgpack.unpack(string.rep('\\129\\1', tonumber(ARGV[1])) .. '\\1') return 1", ["4000"]),
    ("local x = cmsgpack.unpack('\\1\\1\\1' .. string.rep('\\145', tonumber(ARGV[1])) .. '\\1') "
     "return 1", ["3997"]),
    ("local x = cmsgpack.unpack('\\1\\1\\1' .. string.rep('\\145', tonumber(ARGV[1])) .. '\\1') "
     "return 1", ["3998"]),
    ("local x = cmsgpack.unpack_one(string.rep('\\145', 4000) .. '\\1') return 1", []),
    ("local x = {cmsgpack.unpack(string.rep('\\1', tonumber(ARGV[1])))} return #x", ["7999"]),
    ("local x = {cmsgpack.unpack(string.rep('\\1', tonumber(ARGV[1])))} return #x", ["8000"]),
    ("local x = {cmsgpack.unpack_limit(string.rep('\\1', tonumber(ARGV[1])), 8000)} return #x",
     ["7998"]),
    ("local x = {cmsgpack.unpack_limit(string.rep('\\1', tonumber(ARGV[1])), 8000)} return #x",
     ["7999"]),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), -1)}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 1, -5)}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 1, 50)}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0, 0)}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0, 1)}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3))}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 'x')}", []),
    ("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), '2')}", []),
    ("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 'x')}", []),
    ("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1.7)}", []),
    ("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 3)}", []),
    # struct: offsets as size_t, getnum's overflow, luaL_error texts
    ("return {struct.unpack('c', 'abc', -100)}", []),
    ("return {struct.unpack('c', 'abc', -1)}", []),
    ("return {struct.unpack('c', 'abc', 0)}", []),
    ("return {struct.unpack('c', 'abc', 3)}", []),
    ("return {struct.unpack('c', 'abc', 4)}", []),
    ("return {struct.unpack('i', 'abcdefgh', -1)}", []),
    ("return {struct.unpack('!4 i', 'abcdefghijkl', -2)}", []),
    ("return {struct.unpack('c0', 'abc', -1)}", []),
    ("return {struct.unpack('c0', 'abc')}", []),
    ("return {struct.unpack('Bc0', '\\2abc')}", []),
    ("return {struct.unpack('Bc0', '\\9abc')}", []),
    ("return {struct.unpack('zc', 'abc')}", []),
    ("return struct.size('c99999999999')", []),
    ("return struct.size('i99999999999')", []),
    ("return struct.size('c2147483647')", []),
    ("return struct.size('c2147483648')", []),
    ("return struct.size('i33')", []),
    ("return struct.size('i2147483648')", []),
    ("return struct.size('!3i')", []),
    ("return struct.size('!0i')", []),
    ("return struct.size('!2147483648')", []),
    ("return struct.size('z')", []),
    ("return struct.size('?')", []),
    ("return struct.pack('c99999999999', 'a')", []),
    ("local t = {struct.unpack(string.rep('b', 7994), string.rep('a', 8000))} return #t", []),
    ("local t = {struct.unpack(string.rep('b', 7995), string.rep('a', 8000))} return #t", []),
    ("local t = {struct.unpack(string.rep('b', 7994), string.rep('a', 8000), 1)} return #t", []),
    # cjson: options, __index, NUL bytes
    ("return cjson.encode_keep_buffer(2)", []),
    ("local x = cjson.encode_keep_buffer(0) return x", []),
    ("return cjson.encode_keep_buffer('1')", []),
    ("return cjson.encode_keep_buffer({})", []),
    ("local a = cjson.encode_keep_buffer('off') local b = cjson.encode_keep_buffer(true) "
     "return {a, b}", []),
    ("return cjson.encode_invalid_numbers(2)", []),
    ("local a = cjson.encode_invalid_numbers('null') local b = cjson.encode_invalid_numbers(false) "
     "return {a, b}", []),
    ("return cjson.decode_invalid_numbers(2)", []),
    ("return cjson.encode_sparse_array(2)", []),
    ("return {cjson.encode_sparse_array(false, 2, 10)}", []),
    ("return cjson.encode_number_precision(0)", []),
    ("return cjson.encode_max_depth(0)", []),
    ("return cjson.encode(setmetatable({1, nil, 3}, {__index = function() return 5 end}))", []),
    ("return cjson.encode(setmetatable({}, {__index = function() return 5 end}))", []),
    ("return cjson.encode(setmetatable({1, 2}, {__index = {7, 8, 9}}))", []),
    ("return cjson.decode('\\0')", []),
    ("return cjson.decode('[1,\\0]')", []),
    ("return cjson.decode('\"a\\0b\"')", []),
    ("return cjson.decode(' \\0')", []),
    ("return cjson.decode('\\0\\0')", []),
    ("return cjson.decode('a\\0')", []),
    ("return cjson.decode('\"abc')", []),
    ("return cjson.decode('[\"abc')", []),
    ("return cjson.decode('[1,2')", []),
    # replies nested up to Redis's stack limit (within what redis-py reads)
    ("local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return 1", []),
    ("local t = {} local c = t for i = 1, 200 do c[1] = {i} c = c[1] end return t", []),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_edge(pair: Pair, case: int) -> None:
    script, args = CASES[case]
    pair.quiet("eval", script, 0, *args)


def test_evalsha_of_a_bytecode_body(pair: Pair) -> None:
    pair.quiet("script_load", "\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00return 1")


# -- a reply deeper than Redis's Lua stack allows ----------------------------------

def _raw_eval(port: int, script: bytes) -> bytes:
    """EVAL script 0 on the server, the raw RESP2 reply (then a PING's)."""
    sock = socket.create_connection(("127.0.0.1", port))
    try:
        parts = [b"EVAL", script, b"0"]
        sock.sendall(b"*3\r\n" + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
                     + b"*1\r\n$4\r\nPING\r\n")
        data = b""
        while not data.endswith(b"+PONG\r\n"):
            chunk = sock.recv(1 << 20)
            assert chunk, "the server closed the connection"
            data += chunk
        return data[:-len(b"+PONG\r\n")]
    finally:
        sock.close()


def _raw_shape(data: bytes) -> Tuple[int, str]:
    """(arrays of one element around the innermost value, that value's line)."""
    depth = 0
    while data.startswith(b"*1\r\n"):
        data = data[4:]
        depth += 1
    return depth, data.rstrip(b"\r\n").decode()


def _engine_shape(value: Any) -> Tuple[int, str]:
    depth = 0
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
        depth += 1
    if isinstance(value, Exception):
        return depth, "-ERR " + str(value)
    return depth, repr(value)


DEEP = [
    b"local t = {} t[1] = t return t",
    b"local t = {} local c = t for i = 1, 10000 do c[1] = {} c = c[1] end return t",
    b"local t = {} t[1] = {t} return t",
]


@pytest.mark.parametrize("case", range(len(DEEP)))
def test_deep_reply_ends_where_redis_ends_it(redis_server: Any, engine: Any, case: int) -> None:
    """Redis converts the reply on its Lua stack: past its limit the value is
    the error "reached lua stack limit", nested as deep as Redis got."""
    real = _raw_shape(_raw_eval(redis_server.port, DEEP[case]))
    assert real[1] == "-ERR reached lua stack limit"
    assert _engine_shape(engine.eval(DEEP[case], 0)) == real
    assert engine.eval("return 'after'", 0) == b"after"


def test_deep_map_and_set_replies_end_where_redis_ends_them(redis_server: Any,
                                                            engine: Any) -> None:
    """RESP3 maps and sets take more of Redis's stack per level (a map's key
    and value both past the limit are both the error)."""
    script = b"redis.setresp(3) local t = {} t.map = {k = t} return t"
    data = _raw_eval(redis_server.port, script)
    full = data.count(b"*2\r\n$1\r\nk\r\n")  # RESP2 writes a map as key, value
    assert data.endswith(b"*2\r\n-ERR reached lua stack limit\r\n-ERR reached lua stack limit\r\n")
    value = engine.eval(script, 0)
    for _ in range(full):
        assert list(value) == [b"k"]
        value = value[b"k"]
    [(key, inner)] = value.items()
    assert str(key) == str(inner) == "reached lua stack limit"

    script = b"redis.setresp(3) local t = {} t.set = {} t.set[t] = true return t"
    assert _engine_shape(engine.eval(script, 0)) == _raw_shape(_raw_eval(redis_server.port, script))


@pytest.mark.parametrize("nkeys, nargs", [(0, 3999), (0, 4001), (1, 7999), (0, 8000), (3, 20_000), (9_000, 1_000)])
def test_any_number_of_keys_and_arguments(pair: Pair, nkeys: int, nargs: int) -> None:
    """Redis takes any number of keys and arguments; Lua's own stack does
    not (8000 slots), so the Engine hands a long list over as tables."""
    script = "return {#KEYS, #ARGV, KEYS[#KEYS] or false, ARGV[#ARGV] or false, ARGV[1] or false}"
    pair.quiet("eval", script, nkeys, *[f"k{i}" for i in range(nkeys)], *[f"a{i}" for i in range(nargs)])
