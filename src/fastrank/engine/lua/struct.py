"""Lua's ``struct`` library for scripts (pack, unpack, size), as Redis 7.0 embeds
it (Roberto Ierusalimschy's struct.c for Lua 5.1): formats of ``<`` ``>``
``=`` ``!n`` endianness/alignment, ``b B h H l L T i[n] I[n] f d s c[n] x``.
Functions follow the protocol of ``libs.py`` ((True, n, values...) or
(False, message)).
"""
from __future__ import annotations

import struct
import sys
from typing import Any, Callable, Iterator

from fastrank import errors as E
from fastrank.engine.lua.libs_base import Result, argument_error, as_string, bad_argument, to_number

_MAX_INT_SIZE = 32
_STACK_LIMIT = 8000  # Lua's C stack limit (luaL_checkstack)
_NATIVE_ALIGN = 8
_SIZES = {"b": 1, "B": 1, "h": 2, "H": 2, "l": 8, "L": 8, "T": 8, "i": 4, "I": 4,
          "f": 4, "d": 8, "x": 1, "s": 0, "c": 1}


class _FormatError(Exception):
    """A format error struct.c raises as a bad argument #1."""


class _PlainError(Exception):
    """An error struct.c raises with luaL_error (no "bad argument" words)."""


_INT_MAX = (1 << 31) - 1
_SIZE_MASK = (1 << 64) - 1  # struct.c's positions are size_t


def _getnum(text: str, i: int, default: int) -> tuple[int, int]:
    """struct.c's getnum: the decimal number at text[i:] (or default), and
    the index after it; past INT_MAX is "integral size overflow"."""
    if i >= len(text) or not text[i].isdigit():
        return default, i
    a = 0
    while i < len(text) and text[i].isdigit():
        d = ord(text[i]) - 48
        if a > _INT_MAX // 10 or a * 10 > _INT_MAX - d:
            raise _PlainError(E.LUA_STRUCT_SIZE_OVERFLOW)
        a = a * 10 + d
        i += 1
    return a, i


def _items(fmt: bytes) -> Iterator[tuple[str, int, bool, int]]:
    """(option, size, little-endian, alignment) for each item of the format;
    an option struct.c does not know comes with size 0 (pack and unpack
    refuse it, size counts it as nothing when it is a letter or digit)."""
    little = sys.byteorder == "little"
    align = 1
    text = fmt.decode("latin-1")
    i = 0
    while i < len(text):
        opt = text[i]
        i += 1
        if opt == " ":
            continue
        if opt in "<>=":
            little = opt == "<" or (opt == "=" and sys.byteorder == "little")
            continue
        if opt == "!":
            align, i = _getnum(text, i, _NATIVE_ALIGN)
            if align <= 0 or align & (align - 1):
                raise _PlainError(E.LUA_STRUCT_ALIGNMENT % align)
            continue
        size = _SIZES.get(opt, 0)
        if opt == "c":
            size, i = _getnum(text, i, 1)
        elif opt in "iI":
            size, i = _getnum(text, i, 4)
            if size > _MAX_INT_SIZE:
                raise _PlainError(E.LUA_STRUCT_INT_SIZE % (size, _MAX_INT_SIZE))
        yield opt, size, little, align


def _unknown(opt: str) -> _FormatError:
    return _FormatError(E.LUA_STRUCT_FORMAT_OPTION % opt)


def _padding(length: int, opt: str, size: int, align: int) -> int:
    if size == 0 or opt == "c":
        return 0
    size = min(size, align)
    return (size - (length & (size - 1))) & (size - 1)


def _pack(*args: Any) -> Result:
    fmt = as_string(args[0]) if args else None
    if fmt is None:
        return bad_argument(1, "pack", "string", args[0] if args else None, not args)
    out = bytearray()
    arg = 1
    try:
        for opt, size, little, align in _items(fmt):
            if opt not in _SIZES:
                raise _unknown(opt)
            out += b"\0" * _padding(len(out), opt, size, align)
            if opt == "x":
                out += b"\0"
                continue
            value = args[arg] if arg < len(args) else None
            if opt in "sc":
                text = as_string(value)
                if text is None:
                    return bad_argument(arg + 1, "pack", "string", value)
                value = text
                if opt == "c":
                    if size == 0:
                        size = len(value)
                    if len(value) < size:
                        return argument_error(arg + 1, "pack", E.LUA_STRUCT_STRING_TOO_SHORT)
                    out += value[:size]
                else:
                    out += value + b"\0"
                arg += 1
                continue
            number = to_number(value)
            if number is None:
                return bad_argument(arg + 1, "pack", "number", value)
            arg += 1
            if opt == "f":
                out += struct.pack("<f" if little else ">f", number)
            elif opt == "d":
                out += struct.pack("<d" if little else ">d", number)
            else:
                n = int(number) if number == number and abs(number) < 1e300 else 0
                out += (n & ((1 << (8 * size)) - 1)).to_bytes(size, "little" if little else "big")
    except _FormatError as err:
        return argument_error(1, "pack", str(err))
    except _PlainError as err:
        return False, str(err).encode()
    return True, 1, bytes(out)


def _unpack(*args: Any) -> Result:
    fmt = args[0] if args else None
    data = args[1] if len(args) > 1 else None
    if type(fmt) is not bytes:
        return bad_argument(1, "unpack", "string", fmt, not args)
    data = as_string(data)
    if data is None:
        return bad_argument(2, "unpack", "string", args[1] if len(args) > 1 else None,
                            len(args) < 2)
    start = to_number(args[2]) if len(args) > 2 and args[2] is not None else 1
    if start is None:
        return bad_argument(3, "unpack", "number", args[2])
    # a size_t in struct.c: a negative offset wraps to a huge one, which no
    # data is long enough for
    pos = (int(start) if abs(start) < 1 << 63 else -(1 << 63)) & _SIZE_MASK
    if pos == 0:
        return argument_error(3, "unpack", E.LUA_STRUCT_OFFSET)
    pos -= 1
    ld = len(data)
    on_stack = len(args)  # the arguments stay on the Lua stack under the results
    values: list[Any] = []
    try:
        for opt, size, little, align in _items(fmt):
            pos += _padding(pos, opt, size, align)
            if not (size <= ld and pos <= ld - size):
                return argument_error(2, "unpack", E.LUA_STRUCT_DATA_TOO_SHORT)
            if on_stack + len(values) + 2 > _STACK_LIMIT:
                return False, (E.LUA_STACK_OVERFLOW % "too many results").encode()
            if opt not in _SIZES:
                raise _unknown(opt)
            if opt == "c" and size == 0:
                if not values or type(values[-1]) not in (int, float):
                    raise _PlainError(E.LUA_STRUCT_C0_NEEDS_SIZE)
                size = int(values.pop())
                if not (size <= ld and pos <= ld - size):
                    return argument_error(2, "unpack", E.LUA_STRUCT_DATA_TOO_SHORT)
            if opt == "x":
                pos += 1
                continue
            if opt == "s":
                end = data.find(b"\0", pos)
                if end < 0:
                    return False, E.LUA_STRUCT_UNFINISHED_STRING.encode()
                values.append(data[pos:end])
                pos = end + 1
                continue
            chunk = data[pos:pos + size]
            pos += size
            if opt == "c":
                values.append(chunk)
            elif opt == "f":
                values.append(struct.unpack("<f" if little else ">f", chunk)[0])
            elif opt == "d":
                values.append(struct.unpack("<d" if little else ">d", chunk)[0])
            else:
                n = int.from_bytes(chunk, "little" if little else "big", signed=opt.islower())
                values.append(float(n) if abs(n) >= 1 << 53 else n)
    except _FormatError as err:
        return argument_error(1, "unpack", str(err))
    except _PlainError as err:
        return False, str(err).encode()
    values.append(pos + 1)
    return (True, len(values), *values)


def _size(*args: Any) -> Result:
    fmt = args[0] if args else None
    if type(fmt) is not bytes:
        return bad_argument(1, "size", "string", fmt, not args)
    total = 0
    try:
        for opt, size, _little, align in _items(fmt):
            if opt not in _SIZES and not opt.isalnum():
                raise _unknown(opt)
            if opt == "s" or (opt == "c" and size == 0):
                return argument_error(1, "size", E.LUA_STRUCT_NO_FIXED_SIZE % opt)
            total += _padding(total, opt, size, align) + size
    except _FormatError as err:
        return argument_error(1, "size", str(err))
    except _PlainError as err:
        return False, str(err).encode()
    return True, 1, total


def struct_functions(rt: Any) -> dict[str, Callable[..., Result]]:
    return {"pack": _pack, "unpack": _unpack, "size": _size}
