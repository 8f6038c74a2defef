"""The libraries Redis 7.0 loads into its Lua that lupa's Lua 5.1 lacks:
``bit`` (LuaBitOp), ``cjson``, ``cmsgpack`` and ``struct``.

cjson is Lua (``cjson.lua``; encode and decode are reached through
Python, :func:`_through_python`); the functions of the others, and
math.random/math.randomseed (``engine/lua/rand48.py``), are Python,
put in the library tables as the callables themselves (lupa makes them
C-level calls to Lua, so a library call in tail position keeps the script's
frame for error positions, as Redis's C functions do). A Python function
returns ``(True, n, v1..vn)`` (n Lua values) or ``(False, message)``;
:func:`expose` turns the latter into a Lua error at the caller's line, so
``bit.band({})`` fails as Redis's C function does (``user_script:1: bad
argument #1 to 'band' (number expected, got table)``).

What each library has is listed in docs/compatibility.md (Scripting).
"""
from __future__ import annotations

import re
import struct
from importlib import resources
from typing import Any, Callable

from fastrank.engine.lua.libs_base import LibError, Result, bad_argument, to_number
from fastrank.engine.lua.cmsgpack import cmsgpack_functions
from fastrank.engine.lua.rand48 import Rand48
from fastrank.engine.lua.struct import struct_functions

PyFn = Callable[..., Result]

WHERE = """
-- the position luaL_error gives: the first script frame above the library
-- call; and whether a C function (pcall) called it directly, when Lua knows
-- neither the position nor the function's name
local getinfo = debug.getinfo
return function()
  local caller = getinfo(3, "S")
  if caller and caller.what == "C" then return "", true end
  local level = 2
  local info = getinfo(level, "Sl")
  while info and (info.what == "C" or info.what == "tail" or info.source == "=fastrank_sandbox") do
    level = level + 1
    info = getinfo(level, "Sl")
  end
  if info and info.currentline > 0 then
    return info.short_src .. ":" .. info.currentline .. ": ", false
  end
  return "", false
end
"""


_ANY_NAME = re.compile(rb"^bad argument #(\d+) to '[^']*'")


def expose(fn: PyFn, where: Callable[[], tuple[bytes, bool]]) -> Callable[..., Any]:
    """A library function as Lua calls it: its values (several as a tuple,
    which lupa unpacks), or a Lua error (LibError) at the caller's line."""
    def call(*args: Any) -> Any:
        result = fn(*args)
        if not result[0]:
            position, from_c = where()
            message = result[1]
            if from_c:
                message = _ANY_NAME.sub(rb"bad argument #\1 to '?'", message)
            raise LibError(position + message)
        n = result[1]
        return result[2] if n == 1 else tuple(result[2:2 + n])
    return call


# -- bit (LuaBitOp 1.0.2) ------------------------------------------------------

_MAGIC = 6755399441055744.0  # 2^52 + 2^51: adding it leaves the int32 in the low word


def _tobit(value: float) -> int:
    """LuaBitOp's argument conversion: the low 32 bits of (value + 2^52 + 2^51)."""
    low: int = struct.unpack("<Q", struct.pack("<d", value + _MAGIC))[0] & 0xFFFFFFFF
    return low - (1 << 32) if low & 0x80000000 else low


def _signed(bits: int) -> int:
    bits &= 0xFFFFFFFF
    return bits - (1 << 32) if bits & 0x80000000 else bits


def _bit_args(name: str, args: tuple[Any, ...], count: int) -> list[int] | Result:
    out: list[int] = []
    for i in range(count):
        value = to_number(args[i]) if i < len(args) else None
        if value is None:
            return bad_argument(i + 1, name, "number", args[i] if i < len(args) else None,
                                i >= len(args))
        out.append(_tobit(float(value)))
    return out


def _unary(name: str, op: Callable[[int], int]) -> PyFn:
    def fn(*args: Any) -> Result:
        xs = _bit_args(name, args, 1)
        if type(xs) is tuple:
            return xs
        return True, 1, _signed(op(xs[0]))
    return fn


def _variadic(name: str, op: Callable[[int, int], int]) -> PyFn:
    def fn(*args: Any) -> Result:
        xs = _bit_args(name, args, max(1, len(args)))
        if type(xs) is tuple:
            return xs
        acc = xs[0]
        for x in xs[1:]:
            acc = op(acc, x)
        return True, 1, _signed(acc)
    return fn


def _shift(name: str, op: Callable[[int, int], int]) -> PyFn:
    def fn(*args: Any) -> Result:
        xs = _bit_args(name, args, 2)
        if type(xs) is tuple:
            return xs
        return True, 1, _signed(op(xs[0] & 0xFFFFFFFF, xs[1] & 31))
    return fn


def _tohex(*args: Any) -> Result:
    xs = _bit_args("tohex", args, 1)
    if type(xs) is tuple:
        return xs
    n = 8
    if len(args) > 1 and args[1] is not None:
        ns = _bit_args("tohex", (args[0], args[1]), 2)
        if type(ns) is tuple:
            return ns
        n = ns[1]
    digits = "0123456789abcdef"
    if n < 0:
        n, digits = -n, "0123456789ABCDEF"
    n = min(n, 8)
    b = xs[0] & 0xFFFFFFFF
    out = []
    for _ in range(n):
        out.append(digits[b & 15])
        b >>= 4
    return True, 1, "".join(reversed(out)).encode()


def _bswap(x: int) -> int:
    x &= 0xFFFFFFFF
    return ((x >> 24) | ((x >> 8) & 0xFF00) | ((x & 0xFF00) << 8) | (x << 24)) & 0xFFFFFFFF


def bit_functions() -> dict[str, PyFn]:
    return {
        "tobit": _unary("tobit", lambda x: x),
        "bnot": _unary("bnot", lambda x: ~x),
        "bswap": _unary("bswap", _bswap),
        "band": _variadic("band", lambda a, b: a & b),
        "bor": _variadic("bor", lambda a, b: a | b),
        "bxor": _variadic("bxor", lambda a, b: a ^ b),
        "lshift": _shift("lshift", lambda x, n: x << n),
        "rshift": _shift("rshift", lambda x, n: x >> n),
        "arshift": _shift("arshift", lambda x, n: _signed(x) >> n),
        "rol": _shift("rol", lambda x, n: (x << n) | (x >> (32 - n)) if n else x),
        "ror": _shift("ror", lambda x, n: (x >> n) | (x << (32 - n)) if n else x),
        "tohex": _tohex,
    }


#: The libraries' constant fields, as Redis 7.0's have them.
_FIELDS = {"cmsgpack": {"_NAME": "cmsgpack", "_VERSION": "lua-cmsgpack 0.4.0",
                        "_COPYRIGHT": "Copyright (C) 2012, Salvatore Sanfilippo",
                        "_DESCRIPTION": "MessagePack C implementation for Lua"}}


_PROTECT = """
local pcall, type, error = pcall, type, error
local function pass(ok, ...)
  if ok or type((...)) == "string" then return ok, ... end
  error((...), 0)
end
return function(f) return function(...) return pass(pcall(f, ...)) end end
"""


def _through_python(protected: Any) -> PyFn:
    """A Lua function (run under pcall) as a Python library function, so that
    Lua sees a C-level call: its errors take the caller's position."""
    def fn(*args: Any) -> Result:
        result = protected(*args)
        if type(result) is not tuple:
            result = (result,)
        if result[0]:
            return (True, len(result) - 1, *result[1:])
        return False, result[1]
    return fn


def install_libs(rt: Any, libs: Any, rand48: Rand48,
                 wrap: Callable[[Callable[..., Any]], Callable[..., Any]] = lambda f: f) -> Any:
    """Fill the ``libs`` Lua table with bit, cjson, cmsgpack and struct; the
    table of math.random and math.randomseed (rand48's state) is returned.
    wrap: applied to each Python function Lua gets (the sandbox's memory cap)."""
    load = rt.eval("function(src) return assert(loadstring(src, '=fastrank_sandbox')) end")
    where = load(WHERE.encode())()
    protect = load(_PROTECT.encode())()
    cjson_source = resources.files("fastrank.engine.lua").joinpath("cjson.lua").read_bytes()
    null = rt.eval("newproxy(false)")
    cjson = load(cjson_source)(null)()
    # every function of cjson is reached through Python, so that Lua sees C
    # functions as Redis's are: an error takes the caller's position even
    # when the call is a tail call
    for function in (b"encode", b"decode", b"encode_number_precision", b"encode_max_depth",
                     b"decode_max_depth", b"encode_sparse_array", b"encode_invalid_numbers",
                     b"decode_invalid_numbers", b"encode_keep_buffer"):
        cjson[function] = wrap(expose(_through_python(protect(cjson[function])), where))
    libs[b"cjson"] = cjson
    for name, functions in (("bit", bit_functions()), ("cmsgpack", cmsgpack_functions(rt)),
                            ("struct", struct_functions(rt))):
        lib = rt.table_from({k.encode(): wrap(expose(fn, where)) for k, fn in functions.items()})
        for field, text in _FIELDS.get(name, {}).items():
            lib[field.encode()] = text.encode()
        libs[name.encode()] = lib
    return rt.table_from({k.encode(): wrap(expose(fn, where))
                          for k, fn in rand48.functions().items()})
