"""Native paths, on the Engine, of the leaderboard scripts fastrank ships.

``fastrank/scripts/*.lua`` are what the leaderboard sends (EVALSHA) to every
backend. On a Redis server they run in its Lua interpreter; on the Engine a
script is known by its SHA1, and when that SHA1 is one of fastrank's own
scripts, EVALSHA/EVAL runs the Python transcription below instead of the Lua
sandbox: the same commands in the same order through ``Engine.call`` (so
WATCH, expiry and the reply shapes are the Engine's), in IEEE doubles as Lua
5.1 computes, and the same reply (Lua strings → bytes, numbers → integers,
tables → lists, false → nil). tests/domain/test_native_scripts.py runs random
operations through both paths and compares every reply, error and the
keyspace afterwards.

A native path declines (returns :data:`DECLINE`, and the Lua script runs)
whenever anything is unusual, so the Lua path produces the exact error: a key
of the wrong type, arguments not in the form the leaderboard sends, a
read-only call (EVALSHA_RO). Only the Engine's scripting command imports this
module; the leaderboard itself never does.

Each function costs what its script costs: O(log n) per command it sends.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional

from fastrank._core import SortedSet
from fastrank._runner import packaged_script
from fastrank.commands import CommandError
from fastrank.commands.sortedset import ListpackZSet

if TYPE_CHECKING:
    from fastrank.engine import Engine

DECLINE: Any = object()
"""Returned by a native path that leaves the call to the Lua script."""

_WHOLE = 2 ** 40  # sizes and positions up to here print the same in Lua's %.14g as in %d
_NUMBER = re.compile(rb"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
_ZSETS = (SortedSet, ListpackZSet)
_FROZEN = b"FASTRANK_FROZEN this season is frozen (rolled over); write to the current season"
_RANGE = "FASTRANK_RANGE the new points do not fit the board: magnitude above "


def num(x: float) -> bytes:
    """Lua's ``string.format('%.17g', x)``."""
    return b"%.17g" % x


def _number(text: bytes) -> Optional[float]:
    """``tonumber`` for the decimal forms the leaderboard sends; None for anything else."""
    return float(text) if _NUMBER.match(text) else None


class _Board:
    """One script call: the keys, the board's configuration, the prelude's helpers."""

    __slots__ = ("db", "board", "dense_key", "counts_key", "meta_key", "info_key",
                 "scale", "desc", "mirrored", "dense", "max_points")

    def __init__(self, db: Engine, keys: List[bytes], scale: float, flags: List[bytes], max_points: float) -> None:
        self.db = db
        self.board, self.dense_key, self.counts_key, self.meta_key, self.info_key = keys
        self.scale = scale
        self.desc, self.mirrored, self.dense = (f == b"1" for f in flags)
        self.max_points = max_points

    def call(self, *words: bytes) -> Any:
        return self.db.call(list(words))

    def points_of(self, score: float) -> float:
        return score if self.scale == 0 else float(math.floor(score / self.scale))

    def encode(self, points: float, tick: float) -> float:
        if self.scale == 0:
            return points
        if self.mirrored:
            tick = self.scale - 1 - tick
        return points * self.scale + tick

    def better(self, points: float) -> int:
        if self.desc:
            if self.scale == 0:
                return int(self.call(b"ZCOUNT", self.board, b"(" + num(points), b"+inf"))
            return int(self.call(b"ZCOUNT", self.board, num((points + 1) * self.scale), b"+inf"))
        if self.scale == 0:
            return int(self.call(b"ZCOUNT", self.board, b"-inf", b"(" + num(points)))
        return int(self.call(b"ZCOUNT", self.board, b"-inf", b"(" + num(points * self.scale)))

    def worse(self, points: float) -> int:
        if self.desc:
            if self.scale == 0:
                return int(self.call(b"ZCOUNT", self.board, b"-inf", b"(" + num(points)))
            return int(self.call(b"ZCOUNT", self.board, b"-inf", b"(" + num(points * self.scale)))
        if self.scale == 0:
            return int(self.call(b"ZCOUNT", self.board, b"(" + num(points), b"+inf"))
        return int(self.call(b"ZCOUNT", self.board, num((points + 1) * self.scale), b"+inf"))

    def dense_better(self, points: float) -> int:
        if self.desc:
            return int(self.call(b"ZCOUNT", self.dense_key, b"(" + num(points), b"+inf"))
        return int(self.call(b"ZCOUNT", self.dense_key, b"-inf", b"(" + num(points)))

    def index_of(self, player: bytes) -> Optional[int]:
        return self.call(b"ZREVRANK" if self.desc else b"ZRANK", self.board, player)  # type: ignore[no-any-return]

    def rank_in(self, style: bytes, index: int, points: float) -> int:
        if style == b"c":
            return self.better(points) + 1
        if style == b"d":
            return self.dense_better(points) + 1
        return index + 1

    def count_points(self, points: float, delta: int) -> None:
        field = num(points)
        held = self.call(b"HINCRBY", self.counts_key, field, b"%d" % delta)
        if held == 0:
            self.call(b"HDEL", self.counts_key, field)
            self.call(b"ZREM", self.dense_key, field)
        elif held == 1 and delta == 1:
            self.call(b"ZADD", self.dense_key, field, field)

    def frozen(self) -> bool:
        return bool(self.call(b"HEXISTS", self.meta_key, b"frozen") == 1)

    def slice(self, start: int, stop: int, withscores: bool) -> List[bytes]:
        """ZREVRANGE/ZRANGE as Lua sees it: a flat list, scores as %.17g text."""
        words = [b"ZREVRANGE" if self.desc else b"ZRANGE", self.board, b"%d" % start, b"%d" % stop]
        if not withscores:
            return list(self.call(*words))
        flat: List[bytes] = []
        for member, score in self.call(*words, b"WITHSCORES"):
            flat += (member, num(score))
        return flat


def _open(db: Engine, keys: List[bytes], args: List[bytes], extra: int) -> Optional[_Board]:
    """The call's board, or None (decline) when the keys or the configuration are unusual."""
    if len(keys) != 5 or len(args) < 5 + extra:
        return None
    for key, kinds in zip(keys, (_ZSETS, _ZSETS, (dict,), (dict,), (dict,))):
        value = db.lookup(key)
        if value is not None and type(value) not in kinds:
            return None
    scale, max_points = _number(args[0]), _number(args[4])
    if scale is None or max_points is None or any(f not in (b"0", b"1") for f in args[1:4]):
        return None
    return _Board(db, keys, scale, args[1:4], max_points)


def submit(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``submit.lua``."""
    b = _open(db, keys, args, 5)
    if b is None or (len(args) - 10) % 2:
        return DECLINE
    rule, style = args[5], args[7]
    tick, limit, expire_at = _number(args[6]), _number(args[8]), _number(args[9])
    givens = [_number(a) for a in args[11::2]]
    if tick is None or limit is None or expire_at is None or None in givens \
            or rule not in (b"incr", b"set", b"best") or style not in (b"", b"o", b"c", b"d") \
            or (style and len(args) < 12) or not 0 <= limit <= _WHOLE:
        return DECLINE
    if b.frozen():
        raise CommandError(_FROZEN.decode())
    olds: Dict[bytes, Any] = {}
    news: Dict[bytes, float] = {}
    order: List[bytes] = []
    reply: List[bytes] = []
    for player, given in zip(args[10::2], givens):
        assert given is not None
        old = b.call(b"ZSCORE", b.board, player)
        old_points: Any = False if old is None else b.points_of(float(old))
        if player in olds:
            old_points = news[player]
        if rule == b"incr":
            new_points = (0.0 if old_points is False else old_points) + given
        elif rule == b"set":
            new_points = given
        elif old_points is False or (b.desc and given > old_points) or (not b.desc and given < old_points):
            new_points = given
        else:
            new_points = old_points
        if new_points > b.max_points or new_points < -b.max_points:
            raise CommandError(_RANGE + num(b.max_points).decode())
        if player not in olds:
            olds[player] = old_points
            order.append(player)
        news[player] = new_points
        reply.append(num(new_points))
    single = args[10] if len(args) > 10 else None
    previous_index: Optional[int] = None
    previous_rank = 0
    if style and single is not None and olds.get(single, False) is not False:
        previous_index = b.index_of(single)
        assert previous_index is not None
        previous_rank = b.rank_in(style, previous_index, olds[single])
    for player in order:
        old_points, new_points = olds[player], news[player]
        if old_points is False or new_points != old_points:
            b.call(b"ZADD", b.board, num(b.encode(new_points, tick)), player)
            if b.dense:
                if old_points is not False:
                    b.count_points(old_points, -1)
                b.count_points(new_points, 1)
    if expire_at > 0:
        for key in keys:
            b.call(b"PEXPIREAT", key, num(expire_at))
    if not style:
        return reply
    assert single is not None
    index = b.index_of(single)
    assert index is not None
    passed: List[bytes] = []
    if previous_index is not None and index < previous_index and limit > 0:
        last = min(previous_index, index + int(limit))
        passed = b.slice(index + 1, last, False)
    return [reply[0], b.rank_in(style, index, news[single]), previous_rank, passed]


def remove(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``remove.lua``."""
    b = _open(db, keys, args, 1)
    if b is None:
        return DECLINE
    if b.frozen():
        raise CommandError(_FROZEN.decode())
    player = args[5]
    b.call(b"HDEL", b.info_key, player)
    old = b.call(b"ZSCORE", b.board, player)
    if old is None:
        return 0
    b.call(b"ZREM", b.board, player)
    if b.dense:
        b.count_points(b.points_of(float(old)), -1)
    return 1


def standing(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``standing.lua``."""
    b = _open(db, keys, args, 2)
    if b is None or args[6] not in (b"o", b"c", b"d", b"p"):
        return DECLINE
    player, what = args[5], args[6]
    score = b.call(b"ZSCORE", b.board, player)
    if score is None:
        return None
    points = b.points_of(float(score))
    if what == b"p":
        return [num(score), b.better(points), b.worse(points), b.call(b"ZCARD", b.board)]
    index = 0
    if what == b"o":
        index = b.index_of(player) or 0
    return [num(score), b.rank_in(what, index, points)]


def range_(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``range.lua``."""
    b = _open(db, keys, args, 5)
    if b is None or args[5] not in (b"at", b"around") or args[8] not in (b"o", b"c", b"d"):
        return DECLINE
    mode, style, with_info = args[5], args[8], args[9] == b"1"
    size = _number(args[7])
    if size is None or not 0 <= size <= _WHOLE or size != int(size):
        return DECLINE
    if mode == b"around":
        index = b.index_of(args[6])
        if index is None:
            return None
        start, stop = max(index - int(size), 0), index + int(size)
    else:
        first_position = _number(args[6])
        if first_position is None or not 0 <= first_position <= _WHOLE or first_position != int(first_position):
            return DECLINE
        start = int(first_position)
        stop = start + int(size) - 1
    items = b.slice(start, stop, True) if stop >= start else []
    first = start + 1
    if items and style != b"o":
        first = b.rank_in(style, start, b.points_of(float(items[1])))
    infos: List[Any] = []
    if with_info and items:
        infos = list(b.call(b"HMGET", b.info_key, *items[0::2]))
    return [start, first, items, infos]


def friends(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``friends.lua``."""
    b = _open(db, keys, args, 3)
    if b is None or args[5] not in (b"o", b"c", b"d"):
        return DECLINE
    style, with_info = args[5], args[6] == b"1"
    players = args[7:]
    scores = b.call(b"ZMSCORE", b.board, *players)
    ranks: List[int] = []
    for player, score in zip(players, scores):
        if score is None:
            ranks.append(0)
            continue
        index = 0
        if style == b"o":
            index = b.index_of(player) or 0
        ranks.append(b.rank_in(style, index, b.points_of(float(score))))
    infos: List[Any] = list(b.call(b"HMGET", b.info_key, *players)) if with_info else []
    return [[None if s is None else num(s) for s in scores], ranks, infos]


NativeScript = Callable[["Engine", List[bytes], List[bytes]], Any]

NATIVE: Dict[bytes, NativeScript] = {
    packaged_script(name).sha.encode(): fn
    for name, fn in (("submit", submit), ("remove", remove), ("standing", standing),
                     ("range", range_), ("friends", friends))
}
"""SHA1 (hex, as EVALSHA gets it) of each shipped script → its native path."""
