"""Helpers shared by the Python-backed Lua libraries (libs.py, struct.py,
cmsgpack.py): Lua type names, lua_tonumber, the argument errors (their
texts are in _errors.py)."""
from __future__ import annotations

from typing import Any

from fastrank import errors as E

Result = tuple[Any, ...]
"""(True, n, v1..vn) or (False, message): see libs.py."""


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


def argument_error(n: int, name: str, detail: str) -> Result:
    """The failed Result of a bad argument #n to function name (E.LUA_BAD_ARGUMENT)."""
    return False, (E.LUA_BAD_ARGUMENT % (n, name, detail)).encode()


def bad_argument(n: int, name: str, expected: str, got: Any, missing: bool = False) -> Result:
    """Argument n of name is not of the ``expected`` Lua type (or missing)."""
    kind = "no value" if missing else lua_type(got)
    return argument_error(n, name, E.LUA_EXPECTED % (expected, kind))


def to_number(value: Any) -> float | int | None:
    """Lua's lua_tonumber: numbers, and strings that read as numbers."""
    kind = type(value)
    if isinstance(value, (int, float)) and kind is not bool:
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


def as_string(value: Any) -> bytes | None:
    """Lua's lua_tolstring for library arguments: strings, and numbers as "%.14g"."""
    if isinstance(value, (int, float)) and type(value) is not bool:
        return b"%.14g" % value
    return value if type(value) is bytes else None


class LibError(Exception):
    """A library function's Lua error: ``text`` is the message with the
    caller's ``user_script:LINE:`` position, as luaL_error words it."""

    def __init__(self, text: bytes) -> None:
        super().__init__(text)
        self.text = text

    def detached(self) -> LibError:
        """A copy with no traceback, context or cause (see engine/lua/detach.py)."""
        return LibError(self.text)
