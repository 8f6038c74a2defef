"""math.random and math.randomseed for scripts: Redis's rand48 (redisLrand48,
redisSrand48) and its math.random, Lua 5.1's with rand() replaced.

The state starts at rand48's default (0x1234ABCD330E) when an Engine's Lua
state is made and carries on from script to script, as on Redis 7.0 (which
does not reseed per script: observed on the server). Functions follow the
protocol of ``libs.py``.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from fastrank import errors as E
from fastrank.engine.lua.libs_base import Result, argument_error, bad_argument, to_number

_MASK48 = (1 << 48) - 1
_RAND_MAX = 0x7FFFFFFF


def _check_int(value: Any, n: int, name: str) -> int | Result:
    """luaL_checkint: a number (or numeric string) cast to a C int."""
    number = to_number(value)
    if number is None:
        return bad_argument(n, name, "number", value)
    if number != number or math.isinf(number):
        return 0
    v = int(number)  # C's cast truncates toward zero
    return ((v + (1 << 31)) % (1 << 32)) - (1 << 31)


class Rand48:
    """One Engine's generator."""

    def __init__(self) -> None:
        self.state = 0x1234ABCD330E

    def lrand48(self) -> int:
        self.state = (0x5DEECE66D * self.state + 0xB) & _MASK48
        return self.state >> 17

    def random(self, *args: Any) -> Result:
        r = (self.lrand48() % _RAND_MAX) / _RAND_MAX
        if not args:
            return True, 1, r
        if len(args) == 1:
            u = _check_int(args[0], 1, "random")
            if type(u) is tuple:
                return u
            assert isinstance(u, int)
            if u < 1:
                return argument_error(1, "random", E.LUA_INTERVAL_EMPTY)
            return True, 1, math.floor(r * u) + 1
        if len(args) == 2:
            lo = _check_int(args[0], 1, "random")
            if type(lo) is tuple:
                return lo
            hi = _check_int(args[1], 2, "random")
            if type(hi) is tuple:
                return hi
            assert isinstance(lo, int) and isinstance(hi, int)
            if lo > hi:
                return argument_error(2, "random", E.LUA_INTERVAL_EMPTY)
            return True, 1, math.floor(r * (hi - lo + 1)) + lo
        return False, E.LUA_WRONG_ARGUMENT_COUNT.encode()

    def randomseed(self, *args: Any) -> Result:
        seed = _check_int(args[0] if args else None, 1, "randomseed")
        if type(seed) is tuple:
            if not args:
                return bad_argument(1, "randomseed", "number", None, True)
            return seed
        assert isinstance(seed, int)
        seed &= 0xFFFFFFFF
        self.state = ((seed >> 16) << 32) | ((seed & 0xFFFF) << 16) | 0x330E
        return True, 0

    def functions(self) -> dict[str, Callable[..., Result]]:
        return {"random": self.random, "randomseed": self.randomseed}
