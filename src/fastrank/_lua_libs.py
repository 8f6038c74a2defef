"""The libraries Redis 7.0 loads into its Lua that lupa's Lua 5.1 lacks:
``bit`` (LuaBitOp), ``cjson``, ``cmsgpack`` and ``struct``.

Each function is Python, reached from Lua through a small Lua wrapper (the
Python objects stay in upvalues, out of the scripts' reach). A Python
function returns ``(True, n, v1..vn)`` (n Lua values) or ``(False,
message)``, which the wrapper raises as a Lua error at the caller's line, so
``bit.band({})`` fails as Redis's C function does (``user_script:1: bad
argument #1 to 'band' (number expected, got table)``).

What each library has is listed in docs/compatibility.md (Scripting).
"""
from __future__ import annotations

import struct
from typing import Any, Callable

from fastrank._lua_cjson import cjson_functions
from fastrank._lua_msgpack import cmsgpack_functions
from fastrank._lua_struct import struct_functions

Result = tuple[Any, ...]
PyFn = Callable[..., Result]

_WRAP = """
local fns, names = ...
local unpack, error = unpack, error
local lib = {}
for i = 1, #names do
  local f = fns[i]
  lib[names[i]] = function(...)
    local r = {f(...)}
    if r[1] then return unpack(r, 3, r[2] + 2) end
    error(r[2], 2)
  end
end
return lib
"""


def lua_type(value: Any) -> str:
    """The Lua type name of a value lupa passes to Python."""
    if value is None:
        return "nil"
    kind = type(value)
    if kind is bool:
        return "boolean"
    if kind is int or kind is float:
        return "number"
    if kind is bytes:
        return "string"
    name = type(value).__name__
    return "table" if "Table" in name else ("function" if "Function" in name else "userdata")


def bad_argument(n: int, name: str, expected: str, got: Any, missing: bool = False) -> Result:
    kind = "no value" if missing else lua_type(got)
    return False, f"bad argument #{n} to '{name}' ({expected} expected, got {kind})".encode()


def to_number(value: Any) -> float | int | None:
    """Lua's lua_tonumber: numbers, and strings that read as numbers."""
    kind = type(value)
    if kind is int or kind is float:
        return value
    if kind is bytes:
        text = value.strip()
        try:
            if text[:2].lower() in (b"0x", b"-0x", b"+0"):
                return float(int(text, 16))
            return float(text)
        except ValueError:
            return None
    return None


# -- bit (LuaBitOp 1.0.2) ------------------------------------------------------

_MAGIC = 6755399441055744.0  # 2^52 + 2^51: adding it leaves the int32 in the low word


def _tobit(value: float) -> int:
    """LuaBitOp's argument conversion: the low 32 bits of (value + 2^52 + 2^51)."""
    low = struct.unpack("<Q", struct.pack("<d", value + _MAGIC))[0] & 0xFFFFFFFF
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


def install_libs(rt: Any, libs: Any) -> None:
    """Fill the ``libs`` Lua table with bit, cjson, cmsgpack and struct."""
    wrap = rt.eval("function(src) return assert(loadstring(src, '=fastrank_sandbox')) end")(
        _WRAP.encode())
    for name, functions in (("bit", bit_functions()), ("cjson", cjson_functions(rt)),
                            ("cmsgpack", cmsgpack_functions(rt)),
                            ("struct", struct_functions(rt))):
        names = [k.encode() for k in functions]
        lib = wrap(rt.table_from(list(functions.values())), rt.table_from(names))
        libs[name.encode()] = lib
