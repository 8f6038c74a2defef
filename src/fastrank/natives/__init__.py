"""Native paths, on the Engine, of the leaderboard scripts fastrank ships.

This package stands above both the engine and the domain: it knows the
Engine's keyspace (through the C-level interface ``fastrank/_core.pxd``) and
the leaderboard's scripts and keys, so neither has to know the other. The
``fastrank`` package imports it, which registers each path with
:meth:`fastrank.Engine.register_native_script`; the leaderboard never imports
it, nor the Engine.

``fastrank/leaderboard/scripts/*.lua`` are what the leaderboard sends (EVALSHA) to every
backend. On a Redis server they run in its Lua interpreter; on the Engine a
script is known by its SHA1, and when that SHA1 is one of fastrank's own
scripts, EVALSHA/EVAL runs a compiled transcription of it
(the extension ``fastrank.natives._board``) instead of the Lua sandbox:
the same commands in the same order (reads straight from the C sorted set and
the hashes, writes through the keyspace's helpers, so WATCH, expiry and the
reply shapes are the Engine's), in IEEE doubles as Lua 5.1 computes, and the
same reply (Lua strings → bytes, numbers → integers, tables → lists, false →
nil). tests/domain/leaderboard/test_native_scripts.py runs random operations through both
paths and compares every reply, error and the keyspace afterwards.

A native path declines (returns :data:`DECLINE`, and the Lua script runs)
whenever anything is unusual, so the Lua path produces the exact error: a key
of the wrong type, arguments not in the form the leaderboard sends, a
read-only call (EVALSHA_RO). The Engine knows neither their SHA1s nor their
key layout.

Each path costs what its script costs: O(log n) per command it sends.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List

from fastrank._core import NATIVE_DECLINE
from fastrank.engine import Engine
from fastrank.engine.keyspace import new_zset, zset_add
from fastrank.natives._board import (board_friends, board_range, board_remove, board_scripts_setup, board_standing,
                                     board_submit)
from fastrank.runner import packaged_script

DECLINE: Any = NATIVE_DECLINE
"""Returned by a native path that leaves the call to the Lua script."""

board_scripts_setup(zset_add, new_zset)

NativeScript = Callable[["Engine", List[bytes], List[bytes]], Any]

NATIVE: Dict[bytes, NativeScript] = {
    packaged_script(name).sha.encode(): fn
    for name, fn in (("submit", board_submit), ("remove", board_remove), ("standing", board_standing),
                     ("range", board_range), ("friends", board_friends))
}
"""SHA1 (hex, as EVALSHA gets it) of each shipped script → its native path."""

for _sha, _fn in NATIVE.items():
    Engine.register_native_script(_sha, _fn)
