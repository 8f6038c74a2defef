"""Lua's ``cmsgpack`` library for scripts (pack, unpack, unpack_one,
unpack_limit), as the lua-cmsgpack 0.4 that Redis 7.0 embeds encodes:
integers in their smallest form, other numbers as float32 when exact else
float64, strings as fixstr/str8/16/32, a table with keys 1..n as an array and
any other as a map (in ``next`` order), nesting past 16 tables as nil.
Functions follow the protocol of ``libs.py``.
"""
from __future__ import annotations

import struct
from typing import Any, Callable

from fastrank import errors as E
from fastrank.engine.lua.libs_base import Result, argument_error, as_string, bad_argument, to_number

_MAX_NESTING = 16
_INT64 = 1 << 63


class _Short(Exception):
    """Missing bytes in input."""


class _Bad(Exception):
    """Bad data format in input."""


def _is_table(value: Any) -> bool:
    return type(value).__name__ == "_LuaTable"


def _pack_int(n: int, out: bytearray) -> None:
    if n >= 0:
        if n < 128:
            out.append(n)
        elif n < 1 << 8:
            out += b"\xcc" + n.to_bytes(1, "big")
        elif n < 1 << 16:
            out += b"\xcd" + n.to_bytes(2, "big")
        elif n < 1 << 32:
            out += b"\xce" + n.to_bytes(4, "big")
        else:
            out += b"\xcf" + n.to_bytes(8, "big")
    elif n >= -32:
        out.append(n & 0xFF)
    elif n >= -128:
        out += b"\xd0" + n.to_bytes(1, "big", signed=True)
    elif n >= -(1 << 15):
        out += b"\xd1" + n.to_bytes(2, "big", signed=True)
    elif n >= -(1 << 31):
        out += b"\xd2" + n.to_bytes(4, "big", signed=True)
    else:
        out += b"\xd3" + n.to_bytes(8, "big", signed=True)


def _pack_number(x: float | int, out: bytearray) -> None:
    """An integer in int64 range as an integer; else float32 when exact, else float64."""
    if type(x) is int:
        if -_INT64 <= x < _INT64:
            _pack_int(x, out)
            return
        x = float(x)
    if x - x == 0.0 and x == int(x) and -_INT64 <= int(x) < _INT64:
        _pack_int(int(x), out)
        return
    try:
        single = struct.pack(">f", x)
    except OverflowError:
        single = b""
    if single and struct.unpack(">f", single)[0] == x:
        out += b"\xca" + single
    else:
        out += b"\xcb" + struct.pack(">d", x)


def _pack_bytes(s: bytes, out: bytearray) -> None:
    n = len(s)
    if n < 32:
        out.append(0xA0 | n)
    elif n < 1 << 8:
        out += b"\xd9" + n.to_bytes(1, "big")
    elif n < 1 << 16:
        out += b"\xda" + n.to_bytes(2, "big")
    else:
        out += b"\xdb" + n.to_bytes(4, "big")
    out += s


def _header(n: int, fix: int, b16: bytes, b32: bytes, out: bytearray) -> None:
    if n < 16:
        out.append(fix | n)
    elif n < 1 << 16:
        out += b16 + n.to_bytes(2, "big")
    else:
        out += b32 + n.to_bytes(4, "big")


def _pack_value(value: Any, level: int, out: bytearray) -> None:
    kind = type(value)
    if kind is bytes:
        _pack_bytes(value, out)
    elif kind is bool:
        out.append(0xC3 if value else 0xC2)
    elif kind is int or kind is float:
        _pack_number(value, out)
    elif _is_table(value) and level < _MAX_NESTING:
        items = list(value.items())
        count = len(items)
        is_array = all(type(k) is int and k > 0 for k, _ in items) and (
            count == 0 or max(k for k, _ in items) == count)
        if is_array:
            _header(count, 0x90, b"\xdc", b"\xdd", out)
            for i in range(1, count + 1):
                _pack_value(value[i], level + 1, out)
        else:
            _header(count, 0x80, b"\xde", b"\xdf", out)
            for k, v in items:
                _pack_value(k, level + 1, out)
                _pack_value(v, level + 1, out)
    else:
        out.append(0xC0)


def _pack(*args: Any) -> Result:
    if not args:
        return argument_error(0, "pack", E.LUA_MSGPACK_NO_INPUT)
    out = bytearray()
    for value in args:
        _pack_value(value, 0, out)
    return True, 1, bytes(out)


#: Lua's C stack limit (LUAI_MAXCSTACK): lua-cmsgpack checks it before each
#: value it pushes (luaL_checkstack), so deep input ends in "stack overflow".
_STACK_LIMIT = 8000
_TOO_MANY = "too many return values at once; use unpack_one or unpack_limit instead."
_IN_ARRAY = "in function mp_decode_to_lua_array"


class _Overflow(Exception):
    """luaL_checkstack failed: the text is its "stack overflow (...)" message."""


class _Reader:
    """Decodes as lua-cmsgpack does, without recursion: ``slots`` counts the
    values lua-cmsgpack's C code holds on the Lua stack at each point (1 for
    the argument, one per value already decoded at the top level, +2 per
    array level, +1 for a map's key and +2 for its value), so input nested
    too deep fails where and as Redis's fails."""

    def __init__(self, rt: Any, data: bytes, pos: int) -> None:
        self.rt = rt
        self.data = data
        self.pos = pos

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise _Short()
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def uint(self, n: int) -> int:
        return int.from_bytes(self.take(n), "big")

    def sint(self, n: int) -> int:
        return int.from_bytes(self.take(n), "big", signed=True)

    def value(self, slots: int) -> Any:
        """The next value, decoded with ``slots`` stack slots in use."""
        frames: list[list[Any]] = []  # open tables: [is a map, items, items left, slots]
        while True:
            if frames:
                top = frames[-1]
                slots = top[3] + (1 if top[0] and not len(top[1]) % 2 else 2)
            if self.pos >= len(self.data):
                raise _Short()
            if slots + 1 > _STACK_LIMIT:
                raise _Overflow(_TOO_MANY)
            opened = self.item(slots)
            if type(opened) is _Open:
                if opened.count:
                    frames.append([opened.is_map, [], opened.count, slots])
                    continue
                value: Any = self.rt.table_from({})
            else:
                value = opened
            while frames:  # the value ends the tables it completes
                top = frames[-1]
                top[1].append(value)
                top[2] -= 1
                if top[2]:
                    break
                frames.pop()
                value = self.close(top)
            else:
                return value

    def close(self, frame: list[Any]) -> Any:
        items = frame[1]
        if not frame[0]:
            return self.rt.table_from(items)
        table = self.rt.table_from({})
        for i in range(0, len(items), 2):
            if items[i] is not None:
                table[items[i]] = items[i + 1]
        return table

    def item(self, slots: int) -> Any:
        """A scalar, or an _Open for an array or map header."""
        t = self.uint(1)
        if t < 0x80:
            return t
        if t >= 0xE0:
            return t - 0x100
        if 0xA0 <= t < 0xC0:
            return self.take(t & 0x1F)
        if 0x90 <= t < 0xA0:
            return self.array(t & 0x0F, slots)
        if 0x80 <= t < 0x90:
            return _Open(True, 2 * (t & 0x0F))
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if t in simple:
            return simple[t]
        if t == 0xCA:
            return struct.unpack(">f", self.take(4))[0]
        if t == 0xCB:
            return struct.unpack(">d", self.take(8))[0]
        sizes = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
        if t in sizes:
            n = self.uint(sizes[t])
            return float(n) if n >= 1 << 53 else n
        ssizes = {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
        if t in ssizes:
            n = self.sint(ssizes[t])
            return float(n) if abs(n) >= 1 << 53 else n
        strs = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4}
        if t in strs:
            return self.take(self.uint(strs[t]))
        if t in (0xDC, 0xDD):
            return self.array(self.uint(2 if t == 0xDC else 4), slots)
        if t in (0xDE, 0xDF):
            return _Open(True, 2 * self.uint(2 if t == 0xDE else 4))
        raise _Bad()

    def array(self, n: int, slots: int) -> _Open:
        if slots + 2 > _STACK_LIMIT:  # the new table, then room for one more
            raise _Overflow(_IN_ARRAY)
        return _Open(False, n)


class _Open:
    """An array or map header: its values follow."""
    __slots__ = ("is_map", "count")

    def __init__(self, is_map: bool, count: int) -> None:
        self.is_map = is_map
        self.count = count


def _unpacker(rt: Any, name: str) -> Callable[..., Result]:
    def fn(*args: Any) -> Result:
        data = as_string(args[0]) if args else None
        if data is None:
            return bad_argument(1, name, "string", args[0] if args else None, not args)
        limit = 0
        offset = 0
        numbers: list[int] = []
        # luaL_checkinteger / luaL_optinteger: unpack_limit's limit (argument
        # 2) is required, the offset optional; numbers or numeric strings
        required = 2 if name == "unpack_limit" else 0
        for i in range(1, 3 if name == "unpack_limit" else 2):
            value = args[i] if i < len(args) else None
            if value is None and i + 1 != required:
                numbers.append(0)
                continue
            number = to_number(value)
            if number is None or number != number:
                return bad_argument(i + 1, name, "number", value, i >= len(args))
            numbers.append(int(number) if abs(number) < 1 << 63 else -(1 << 63))
        if name == "unpack_one":
            limit, offset = 1, numbers[0]
        elif name == "unpack_limit":
            limit, offset = numbers
        decode_all = not limit and not offset
        if offset < 0 or limit < 0:  # lua-cmsgpack prints the input length as the limit
            return False, (E.LUA_MSGPACK_NEGATIVE % (_c_int(offset), _c_int(len(data)))).encode()
        if offset > len(data):
            return False, (E.LUA_MSGPACK_OFFSET_PAST_END % (_c_int(offset), len(data))).encode()
        reader = _Reader(rt, data, offset)
        values: list[Any] = []
        try:
            while reader.pos < len(data) and (decode_all or len(values) < limit):
                values.append(reader.value(1 + len(values)))
            if not decode_all and 1 + len(values) + 1 > _STACK_LIMIT:
                raise _Overflow("in function mp_unpack_full")
        except _Short:
            return False, E.LUA_MSGPACK_MISSING_BYTES.encode()
        except _Bad:
            return False, E.LUA_MSGPACK_BAD_DATA.encode()
        except _Overflow as err:
            return False, (E.LUA_STACK_OVERFLOW % err).encode()
        if decode_all:
            return (True, len(values), *values)
        next_offset = reader.pos if reader.pos < len(data) else -1
        return (True, len(values) + 1, next_offset, *values)
    return fn


def _c_int(n: int) -> int:
    """n as C's (int) cast gives it."""
    n &= 0xFFFFFFFF
    return n - (1 << 32) if n & 0x80000000 else n


def cmsgpack_functions(rt: Any) -> dict[str, Callable[..., Result]]:
    return {"pack": _pack, "unpack": _unpacker(rt, "unpack"),
            "unpack_one": _unpacker(rt, "unpack_one"),
            "unpack_limit": _unpacker(rt, "unpack_limit")}
