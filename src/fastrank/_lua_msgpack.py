"""Lua's cmsgpack library for scripts (see _lua_libs.py)."""
from __future__ import annotations

from typing import Any, Callable


def cmsgpack_functions(rt: Any) -> dict[str, Callable[..., tuple[Any, ...]]]:
    return {}
