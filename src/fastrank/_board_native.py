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
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from fastrank import _errors as E
from fastrank._core import SortedSet
from fastrank._runner import packaged_script
from fastrank.commands._numbers import parse_int
from fastrank.keyspace import CommandError, ListpackZSet, new_zset, zset_add

if TYPE_CHECKING:
    from fastrank.engine import Engine

DECLINE: Any = object()
"""Returned by a native path that leaves the call to the Lua script."""

_WHOLE = 2 ** 40  # sizes and positions up to here print the same in Lua's %.14g as in %d
_NUMBER = re.compile(rb"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
_ZSETS = (SortedSet, ListpackZSet)
_KINDS = (_ZSETS, _ZSETS, (dict,), (dict,), (dict,))  # board, dense, counts, meta, info
_CONFIGS: Dict[Tuple[bytes, ...], Tuple[float, List[bytes], float]] = {}  # ARGV 1..5 → parsed (few distinct)


def num(x: float) -> bytes:
    """Lua's ``string.format('%.17g', x)``."""
    return b"%.17g" % x


def _number(text: bytes) -> Optional[float]:
    """``tonumber`` for the decimal forms the leaderboard sends; None for anything else."""
    if text.isdigit():
        return float(int(text))
    return float(text) if _NUMBER.match(text) else None


class _Board:
    """One script call: the keys, the board's configuration, the prelude's helpers.

    Reads go straight to the Engine's structures (``SortedSet.score/rank/count/
    range``, the hash dicts), as the commands' handlers do; writes use the
    handlers' own helpers (``zset_add``, ``touched``, ``drop_if_empty``), so a
    key is created, converted, watched and deleted exactly as by the command.
    """

    __slots__ = ("db", "board", "dense_key", "counts_key", "meta_key", "info_key",
                 "scale", "desc", "mirrored", "dense", "max_points")

    def __init__(self, db: Engine, keys: List[bytes], scale: float, flags: List[bytes], max_points: float) -> None:
        self.db = db
        self.board, self.dense_key, self.counts_key, self.meta_key, self.info_key = keys
        self.scale = scale
        self.desc, self.mirrored, self.dense = (f == b"1" for f in flags)
        self.max_points = max_points

    # -- the commands the scripts send ---------------------------------------

    def zscore(self, member: bytes) -> Optional[float]:
        z = self.db.lookup(self.board)
        return None if z is None else z.score(member)

    def zcount(self, key: bytes, low: float, high: float, low_open: bool = False, high_open: bool = False) -> int:
        z = self.db.lookup(key)
        return 0 if z is None else int(z.count(low, high, min_exclusive=low_open, max_exclusive=high_open))

    def zadd(self, key: bytes, member: bytes, score: float) -> None:
        db = self.db
        z = db.lookup(key)
        if z is None:
            z = new_zset(len(member))
            db.store(key, z)
        converted, status = zset_add(z, member, score)
        if converted is not z:  # the listpack turned into a skiplist
            db.replace(key, converted)
        if status:
            db.touched(key)

    def zrem(self, key: bytes, member: bytes) -> None:
        z = self.db.lookup(key)
        if z is not None and z.remove(member):
            self.db.touched(key)
            self.db.drop_if_empty(key, z)

    def hincrby(self, field: bytes, delta: int) -> int:
        db = self.db
        h = db.lookup(self.counts_key)
        if h is None:
            h = {}
            db.store(self.counts_key, h)
        old = h.get(field)
        held = (0 if old is None else int(old)) + delta
        h[field] = b"%d" % held
        db.touched(self.counts_key)
        return held

    def hdel(self, key: bytes, field: bytes) -> None:
        h = self.db.lookup(key)
        if h is not None and h.pop(field, None) is not None:
            self.db.touched(key)
            self.db.drop_if_empty(key, h)

    # -- the prelude's helpers -----------------------------------------------

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
                return self.zcount(self.board, points, math.inf, low_open=True)
            return self.zcount(self.board, (points + 1) * self.scale, math.inf)
        if self.scale == 0:
            return self.zcount(self.board, -math.inf, points, high_open=True)
        return self.zcount(self.board, -math.inf, points * self.scale, high_open=True)

    def worse(self, points: float) -> int:
        if self.desc:
            if self.scale == 0:
                return self.zcount(self.board, -math.inf, points, high_open=True)
            return self.zcount(self.board, -math.inf, points * self.scale, high_open=True)
        if self.scale == 0:
            return self.zcount(self.board, points, math.inf, low_open=True)
        return self.zcount(self.board, (points + 1) * self.scale, math.inf)

    def dense_better(self, points: float) -> int:
        if self.desc:
            return self.zcount(self.dense_key, points, math.inf, low_open=True)
        return self.zcount(self.dense_key, -math.inf, points, high_open=True)

    def index_of(self, player: bytes) -> Optional[int]:
        z = self.db.lookup(self.board)
        return None if z is None else z.rank(player, self.desc)

    def rank_in(self, style: bytes, index: int, points: float) -> int:
        if style == b"c":
            return self.better(points) + 1
        if style == b"d":
            return self.dense_better(points) + 1
        return index + 1

    def count_points(self, points: float, delta: int) -> None:
        field = num(points)
        held = self.hincrby(field, delta)
        if held == 0:
            self.hdel(self.counts_key, field)
            self.zrem(self.dense_key, field)
        elif held == 1 and delta == 1:
            self.zadd(self.dense_key, field, float(field))

    def counts_are_integers(self, points: List[float]) -> bool:
        """The count fields a submit will touch hold integers (else HINCRBY would fail)."""
        h = self.db.lookup(self.counts_key)
        if h is None:
            return True
        for value in points:
            text = h.get(num(value))
            if text is not None and parse_int(text) is None:
                return False
        return True

    def frozen(self) -> bool:
        h = self.db.lookup(self.meta_key)
        return h is not None and b"frozen" in h

    def slice(self, start: int, stop: int, withscores: bool) -> List[bytes]:
        """ZREVRANGE/ZRANGE as Lua sees it: a flat list, scores as %.17g text."""
        z = self.db.lookup(self.board)
        if z is None:
            return []
        if not withscores:
            return list(z.range(start, stop, self.desc))
        flat: List[bytes] = []
        for member, score in z.range(start, stop, self.desc, True):
            flat += (member, num(score))
        return flat

    def hmget(self, fields: List[bytes]) -> List[Optional[bytes]]:
        h = self.db.lookup(self.info_key) or {}
        return [h.get(f) for f in fields]


def _open(db: Engine, keys: List[bytes], args: List[bytes], extra: int) -> Optional[_Board]:
    """The call's board, or None (decline) when the keys or the configuration are unusual."""
    if len(keys) != 5 or len(args) < 5 + extra:
        return None
    for key, kinds in zip(keys, _KINDS):
        value = db.lookup(key)
        if value is not None and type(value) not in kinds:
            return None
    conf = (args[0], args[1], args[2], args[3], args[4])
    parsed = _CONFIGS.get(conf)
    if parsed is None:
        scale, max_points = _number(args[0]), _number(args[4])
        if scale is None or max_points is None or any(f not in (b"0", b"1") for f in args[1:4]):
            return None
        parsed = _CONFIGS[conf] = (scale, args[1:4], max_points)
    return _Board(db, keys, *parsed)


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
        raise CommandError(E.BOARD_FROZEN)
    olds: Dict[bytes, Any] = {}
    news: Dict[bytes, float] = {}
    order: List[bytes] = []
    reply: List[bytes] = []
    for player, given in zip(args[10::2], givens):
        assert given is not None
        old = b.zscore(player)
        old_points: Any = False if old is None else b.points_of(old)
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
            raise CommandError(E.BOARD_RANGE % num(b.max_points).decode())
        if player not in olds:
            olds[player] = old_points
            order.append(player)
        news[player] = new_points
        reply.append(num(new_points))
    if b.dense and not b.counts_are_integers([p for p in olds.values() if p is not False] + list(news.values())):
        return DECLINE
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
            b.zadd(b.board, player, b.encode(new_points, tick))  # = the %.17g text Lua sends, parsed back
            if b.dense:
                if old_points is not False:
                    b.count_points(old_points, -1)
                b.count_points(new_points, 1)
    if expire_at > 0:
        for key in keys:
            b.db.call([b"PEXPIREAT", key, num(expire_at)])
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
        raise CommandError(E.BOARD_FROZEN)
    player = args[5]
    old = b.zscore(player)
    if b.dense and old is not None and not b.counts_are_integers([b.points_of(old)]):
        return DECLINE
    b.hdel(b.info_key, player)
    if old is None:
        return 0
    b.zrem(b.board, player)
    if b.dense:
        b.count_points(b.points_of(old), -1)
    return 1


def standing(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``standing.lua``."""
    b = _open(db, keys, args, 2)
    if b is None or args[6] not in (b"o", b"c", b"d", b"p"):
        return DECLINE
    player, what = args[5], args[6]
    score = b.zscore(player)
    if score is None:
        return None
    points = b.points_of(score)
    if what == b"p":
        return [num(score), b.better(points), b.worse(points), len(b.db.lookup(b.board))]
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
        infos = b.hmget(items[0::2])
    return [start, first, items, infos]


def friends(db: Engine, keys: List[bytes], args: List[bytes]) -> Any:
    """``friends.lua``."""
    b = _open(db, keys, args, 3)
    if b is None or args[5] not in (b"o", b"c", b"d"):
        return DECLINE
    style, with_info = args[5], args[6] == b"1"
    players = args[7:]
    scores = [b.zscore(p) for p in players]
    ranks: List[int] = []
    for player, score in zip(players, scores):
        if score is None:
            ranks.append(0)
            continue
        index = 0
        if style == b"o":
            index = b.index_of(player) or 0
        ranks.append(b.rank_in(style, index, b.points_of(score)))
    infos: List[Any] = b.hmget(players) if with_info else []
    return [[None if s is None else num(s) for s in scores], ranks, infos]


NativeScript = Callable[["Engine", List[bytes], List[bytes]], Any]

NATIVE: Dict[bytes, NativeScript] = {
    packaged_script(name).sha.encode(): fn
    for name, fn in (("submit", submit), ("remove", remove), ("standing", standing),
                     ("range", range_), ("friends", friends))
}
"""SHA1 (hex, as EVALSHA gets it) of each shipped script → its native path."""
