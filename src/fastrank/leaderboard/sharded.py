"""ShardedLeaderboard: one board split over N shards, answers merged exactly.

A stable hash of the player id (CRC-32 of its bytes) picks the shard; each
shard is an ordinary :class:`fastrank.Leaderboard` named ``<name>~<N>.<i>``
(keys ``{lb:<name>~<N>.<i>[:<season>]}``, the name escaped as a board's, so
its ``~`` is never a shard's), so its keys carry a hash tag of their own and a Redis Cluster spreads the
shards over its slots and nodes. A player lives on one shard, so every write
is the shard board's atomic script, exactly as on an unsharded board.

Reads merge the shards in a pipelined round (or two): the global order is the
order of an unsharded board (encoded score, then member bytes, both reversed
on a descending board), so a sharded board answers exactly what an unsharded
board fed the same events answers:

- ``top(n)``: every shard's top n, merged (O(N·n)); ``page`` fetches every
  shard's first ``start + size`` (deep pages cost more than on one board).
- ``rank``: the player's score, then per shard the players strictly ahead
  (ZCOUNT) plus the players tied on the exact score ordered before them: read
  when a shard holds fewer than 16 such ties, else counted by a script
  (``scripts/tie_place.lua``) that binary-searches the tie run in member byte
  order, in one more round (O(N·log² n) however many are tied); competition
  counts better points; dense unites the shards' distinct better values
  (dense O(N·d) for d distinct better values).
- ``around``: per shard the nearest ``radius`` on each side of the player
  (the tied ones read, or from the same script's window), merged around them.
- ``friends``: ZMSCORE per shard in one round, then their global ranks.
- ``reshard(new_count)`` copies every shard into the new layout while reads
  go on answering from the old one (writes are refused meanwhile: the old
  shards are frozen), then switches.
"""
from __future__ import annotations

import functools
import zlib
from datetime import datetime, timezone
from collections import deque
from typing import (TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple, TypeVar,
                    Union)

from fastrank.errors import SeasonFrozen
from fastrank.leaderboard.descriptor import (DESCRIBE, REDESCRIBE, UNSET, Unset, bare_script, check_given,
                                             descriptor_key, flat, stored_of)
from fastrank.leaderboard.periods import recent_seasons
from fastrank.runner import Call, Pages, Plan, Run, Steps, checked_client, steps, twin, twin_pages
from fastrank.leaderboard.scorebits import Points
from fastrank.leaderboard.board import BoardPlans, Change, Entry, PlayerId, SyncSubmit, When
from fastrank.leaderboard.parts import (SIZE_LIMIT, Ranker, as_bytes, as_text, count_arg, info_of, key_part, page_slice,
                                         player_id, tag_part)

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")

_T = TypeVar("_T")

__all__ = ["LayoutMoved", "ShardedLeaderboard", "ShardedBoardPlans", "Layered", "guarded"]

Pair = Tuple[Any, float]

TIE_PLACE = bare_script("tie_place", "_bytes")
"""Where a (score, member) falls on one shard, without reading the players tied on the score."""

TIE_READ = 16
"""A rank reads up to this many players tied on the exact score per shard; a longer tie run
is counted by :data:`TIE_PLACE` instead (one more round, but no tie read)."""


def _tied_rows(reply: Sequence[Any]) -> List[Pair]:
    """The tied rows of a :data:`TIE_PLACE` reply, as (member, score) pairs."""
    flat_rows = reply[2]
    return [(flat_rows[i], float(flat_rows[i + 1])) for i in range(0, len(flat_rows), 2)]


class LayoutMoved(Exception):
    """The board's layout moved under a plan (another process resharded it,
    or rebalanced a range-partitioned board): :func:`guarded` runs it again."""


class Layered(Protocol):
    """What :func:`guarded` needs of a board whose descriptor names a layout
    generation (a sharded or a range-partitioned board)."""

    name: str
    generation: int
    _opened: bool
    _descriptor_key: str
    _reference: BoardPlans

    def _plan_open(self) -> Steps[None]: ...


_B = TypeVar("_B", bound=Layered)


def _checked(board: Layered, inner: Steps[_T], generation: int) -> Steps[_T]:
    """Drive ``inner``, reading the descriptor's layout generation in the same
    pipeline as its first command; LayoutMoved when it is not ``generation``."""
    try:
        step = next(inner)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    probe = Call("hget", (board._descriptor_key, "generation"))
    checked = False
    while True:
        try:
            if not checked and isinstance(step, (Call, list)) and (
                    isinstance(step, Call) or all(isinstance(c, Call) for c in step)):
                checked = True
                sent = [step, probe] if isinstance(step, Call) else [*step, probe]
                replies = yield sent
                if as_text(replies[-1] or b"") != str(generation):
                    inner.close()
                    raise LayoutMoved()
                reply = replies[0] if isinstance(step, Call) else replies[:-1]
            else:
                reply = yield step
        except LayoutMoved:
            raise
        except Exception as exc:  # noqa: BLE001 -- the inner plan's to handle or re-raise
            try:
                step = inner.throw(exc)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            continue
        try:
            step = inner.send(reply)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def guarded(plan: Callable[Concatenate[_B, _P], Plan[_T]]
            ) -> Callable[Concatenate[_B, _P], Steps[_T]]:
    """The plan of a sharded board's method, run on the layout the descriptor
    names: the board opens first if it has not; the first round of reads
    carries one HGET of the layout generation, and a write refused by a
    frozen shard reads it; when it moved (a reshard by another process) the
    board takes the new layout and the plan runs again on it."""

    def run_guarded(self: _B, *args: Any, **kwargs: Any) -> Steps[_T]:
        held = self._reference.season if self._opened else None
        for _ in range(8):
            if not self._opened:
                yield from self._plan_open()
                if held is not None and self._reference.season != held:
                    raise SeasonFrozen(f"leaderboard {self.name!r} was rolled over to season "
                                       f"{self._reference.season!r} (and resharded) meanwhile; it uses that "
                                       f"season now")
            generation = self.generation
            try:
                result = yield from _checked(self, steps(plan(self, *args, **kwargs)), generation)
            except LayoutMoved:
                self._opened = False
                continue
            except SeasonFrozen as exc:
                if getattr(exc, "applied", None):
                    raise  # part of it was written: not run again
                now = yield Call("hget", (self._descriptor_key, "generation"))
                if as_text(now or b"") == str(generation):
                    raise
                self._opened = False
                continue
            return result
        raise RuntimeError(f"sharded leaderboard {self.name!r} was resharded again and again while a call ran")

    functools.update_wrapper(run_guarded, plan)
    return run_guarded  # type: ignore[return-value]


PRESENTATION = ("buckets", "cache_ttl", "passed")
"""Options each process chooses for itself (not stored in the descriptor)."""


class ShardedBoardPlans:
    """The sharded board's configuration and methods as plans (no I/O here)."""

    def __init__(self, client: Any, name: str, shards: Union[int, Unset] = UNSET, **options: Any) -> None:
        if shards is not UNSET and (isinstance(shards, bool) or not isinstance(shards, int) or shards < 1):
            raise ValueError(f"shards must be an int >= 1, not {shards!r}")
        self._client = checked_client(self, client)
        self.name = tag_part(name, "name")
        self._given_shards = shards
        # the options, checked (and kept, with those given) by a board of the same options
        self._reference = BoardPlans(self._client, self.name, **options)
        self._reference._descriptor_key = None
        self._reference._opened = True
        self._descriptor_key = descriptor_key(self.name)
        self._opened = False
        #: the seasons rolled over before (from the descriptor), copied by a reshard
        self._past: List[str] = []
        self._options: Dict[str, Any] = {k: v for k, v in options.items() if k in PRESENTATION}
        self._options.update(self._reference._options())
        self._layout(8 if isinstance(shards, Unset) else shards, 1)
        self._made()

    def _made(self) -> None:
        """Called at the end of construction: a sync face opens the board here."""

    @property
    def descriptor_key(self) -> str:
        """The key of the board's descriptor."""
        return self._descriptor_key

    @property
    def season(self) -> Optional[str]:
        """The season writes go to (None without seasons; see :meth:`current_season`)."""
        return self._reference.season

    def current_season(self) -> Optional[str]:
        """The season reads use by default (the current period on a periodic board)."""
        return self._reference.current_season()

    def season_at(self, at: When) -> Optional[str]:
        """The season a write dated ``at`` goes to (see :meth:`Leaderboard.season_at`)."""
        return self._reference.season_at(at)

    def descriptor(self) -> Dict[str, str]:
        """The stored options, shard count and layout generation as the descriptor holds them (text)."""
        return {**self._reference.descriptor(), "kind": "sharded", "shards": str(self.shards),
                "generation": str(self.generation), "planned": str(self.generation)}

    def _plan_open(self) -> Steps[None]:
        """Read the board's descriptor (writing it if the board is new): the
        options, the shard count and the layout generation; BoardConfigMismatch
        if an option or shard count given differs."""
        reply = yield Run(DESCRIBE, (self._descriptor_key,), flat(self.descriptor()))
        self._take(stored_of(reply))
        self._opened = True

    def _take(self, stored: Dict[str, str]) -> None:
        self._reference._take(stored, "sharded")
        if not isinstance(self._given_shards, Unset):
            check_given("sharded leaderboard", self.name, stored, {"shards": str(self._given_shards)},
                        {"shards": self._given_shards}, {"shards": int(stored.get("shards", "0"))})
            # checked once: the layout may move later (a reshard), and this board follows it
            self._given_shards = UNSET
        self._options.update(self._reference._options())
        self._past = sorted(k[5:] for k in stored if k.startswith("past:"))
        self._stored = stored
        shards, generation = int(stored["shards"]), int(stored["generation"])
        if (shards, generation) != (self.shards, self.generation) or self.boards[0].season != self._reference.season:
            self._layout(shards, generation)

    def _shard_names(self, shards: int, generation: int) -> List[Tuple[str, str]]:
        """Each shard's (board name, name in its keys) in the layout (shards, generation)."""
        suffix = "" if generation == 1 else f".g{generation}"
        # the raw "~" marks a shard: a name's own "~" is escaped, so no plain
        # board (nor another sharded board) can reach these keys
        return [(f"{self.name}~{shards}.{i}{suffix}", f"{key_part(self.name)}~{shards}.{i}{suffix}")
                for i in range(shards)]

    def _shard_boards(self, shards: int, generation: int) -> List[BoardPlans]:
        boards = []
        for name, key_name in self._shard_names(shards, generation):
            board = BoardPlans(self._client, name, **self._options)
            board._key_name = key_name
            board._descriptor_key = None  # the sharded board's descriptor describes its shards
            board._opened = True
            boards.append(board)
        return boards

    def _layout(self, shards: int, generation: int) -> None:
        self.shards = shards
        self.generation = generation
        self.boards = self._shard_boards(shards, generation)
        ref = self.boards[0]
        self.codec = ref.codec
        self.ranking = ref.ranking
        self.rank_style = ref.rank_style
        self._desc = ref.codec.desc

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, shards={self.shards}, ranking={self.ranking!r})"

    # -- placement and order ----------------------------------------------------

    def shard_of(self, player: PlayerId) -> int:
        """The shard a player lives on: CRC-32 of the id's bytes, modulo the shard count."""
        return zlib.crc32(as_bytes(player_id(player))) % self.shards

    def _board(self, player: PlayerId) -> BoardPlans:
        return self.boards[self.shard_of(player)]

    def _key(self, board: BoardPlans, season: Optional[Union[str, int]] = None, part: int = 0) -> str:
        return board.keys(season)[part]

    def _sorted(self, pairs: Sequence[Pair]) -> List[Pair]:
        """Pairs in the board's rank order (score, then member bytes)."""
        return sorted(pairs, key=lambda p: (float(p[1]), as_bytes(p[0])), reverse=self._desc)

    def _ahead_of(self, score: float, member: Any, pair: Pair) -> bool:
        """Whether ``pair`` ranks before (score, member)."""
        mine, theirs = (score, as_bytes(member)), (float(pair[1]), as_bytes(pair[0]))
        return theirs > mine if self._desc else theirs < mine

    def _strict_bounds(self, score: float) -> Tuple[str, str]:
        """ZCOUNT bounds of the scores strictly better than ``score``."""
        text = repr(float(score))
        return ("(" + text, "+inf") if self._desc else ("-inf", "(" + text)

    def _points_bounds(self, points: Points, better: bool = True, *, equals: bool = False) -> Tuple[str, str]:
        """ZCOUNT bounds of the encoded scores whose points are better (or worse) than ``points``."""
        codec, text = self.codec, self.codec.text
        up = better == self._desc  # the scores wanted lie above
        if codec.integer:
            low, high = points * codec.scale, (points + 1) * codec.scale
            if up:
                return (str(low if equals else high), "+inf")
            return ("-inf", "(" + str(high if equals else low))
        edge = text(points) if equals else "(" + text(points)
        return (edge, "+inf") if up else ("-inf", edge)

    # -- rank helpers: plans that answer in one pipelined round --------------------

    def _tie_place(self, key: str, score: float, member: Any, window: int = 0) -> Call:
        """The call of :data:`TIE_PLACE` on one shard: ``[ahead, present, tied rows]``.
        A plain EVAL (the script is short): a cluster pipeline refuses EVALSHA and
        has no ``eval`` method, but queues the command itself, routed by its key."""
        desc = "1" if self._desc else "0"
        return Call("execute_command", ("EVAL", TIE_PLACE.source, 1, key, repr(float(score)), member, desc, window))

    def _tie_runs(self, keys: Sequence[str], score: float, member: Any, window: int,
                  read: Sequence[Any]) -> Steps[List[List[Pair]]]:
        """Each shard's players tied on ``score`` near ``member``: the ``read`` ones (its
        first :data:`TIE_READ`, with scores) when the run is shorter, else the ``window``
        on each side found by :data:`TIE_PLACE` (one more round, for those shards only)."""
        runs = [list(r) for r in read]
        long_runs = [i for i, r in enumerate(runs) if len(r) >= TIE_READ]
        if long_runs:
            placed = yield [self._tie_place(keys[i], score, member, window) for i in long_runs]
            for i, reply in zip(long_runs, placed):
                runs[i] = _tied_rows(reply)
        return runs

    def _tie_read(self, key: str, score: float) -> Call:
        text = repr(float(score))
        return Call("zrangebyscore", (key, text, text), {"start": 0, "num": TIE_READ, "withscores": True})

    def _ordinal_ranks(self, targets: Sequence[Tuple[Any, float]], season: Any = None) -> Steps[List[int]]:
        """The 1-based ordinal rank of each (member, score) among all shards: per shard
        ZCOUNT of the better scores and the first :data:`TIE_READ` tied players, ordered
        here; a shard holding more ties counts them with :data:`TIE_PLACE` in one more
        round (O(log² n), however many are tied)."""
        if not targets:
            return []
        calls: List[Call] = []
        for member, score in targets:
            text = repr(float(score))
            for board in self.boards:
                key = self._key(board, season)
                calls.append(Call("zcount", (key, *self._strict_bounds(score))))
                calls.append(Call("zrangebyscore", (key, text, text), {"start": 0, "num": TIE_READ}))
        replies = yield calls
        ahead = [0] * len(targets)
        long_runs: List[Tuple[int, Call]] = []
        for i, (member, score) in enumerate((t for t in targets for _ in self.boards)):
            count, tied = replies[2 * i], replies[2 * i + 1]
            t = i // self.shards
            if len(tied) < TIE_READ:
                ahead[t] += int(count) + sum(1 for m in tied if self._ahead_of(score, member, (m, score)))
            else:
                key = self._key(self.boards[i % self.shards], season)
                long_runs.append((t, self._tie_place(key, score, member)))
        if long_runs:
            placed = yield [call for _, call in long_runs]
            for (t, _), reply in zip(long_runs, placed):
                ahead[t] += int(reply[0])
        return [a + 1 for a in ahead]

    def _points_ranks(self, points: Sequence[Points], style: str, season: Any = None) -> Steps[List[int]]:
        """The competition (``c``) or dense (``d``) rank each points value has."""
        if not points:
            return []
        if style == "c":
            calls = [Call("zcount", (self._key(b, season), *self._points_bounds(p)))
                     for p in points for b in self.boards]
            replies = yield calls
            n = self.shards
            return [1 + sum(int(x) for x in replies[i * n:(i + 1) * n]) for i in range(len(points))]
        # every distinct value at least as good as the worst asked: their union
        worst = self.codec.text(min(points) if self._desc else max(points))
        low, high = (worst, "+inf") if self._desc else ("-inf", worst)
        replies = yield [Call("zrangebyscore", (self._key(b, season, 1), low, high)) for b in self.boards]
        distinct = sorted({float(v) for group in replies for v in group}, reverse=self._desc)
        out = []
        for p in points:
            better = sum(1 for v in distinct if (v > p if self._desc else v < p))
            out.append(better + 1)
        return out

    def _ranks(self, targets: Sequence[Tuple[Any, float]], style: str, season: Any = None) -> Steps[List[int]]:
        if style == "o":
            ranks = yield from self._ordinal_ranks(targets, season)
            return ranks
        ranks = yield from self._points_ranks([self.codec.points(s) for _, s in targets], style, season)
        return ranks

    def _style_of(self, ranking: Optional[str]) -> str:
        return self.boards[0]._style_of(ranking)

    def _entries(self, pairs: Sequence[Pair], first_rank: int, start: int, style: str,
                 infos: Optional[Sequence[Any]] = None) -> List[Entry]:
        ranker = Ranker(style)
        out = []
        for i, (member, score) in enumerate(pairs):
            points = self.codec.points(score)
            rank = ranker.rank_at(start + i, points, first_rank if i == 0 else None)
            out.append(Entry(rank, as_text(member), points, None, None if infos is None else info_of(infos[i])))
        return out

    def _with_info(self, pairs: Sequence[Pair], season: Any = None) -> Steps[List[Any]]:
        """Each pair's entry data, in one pipelined round."""
        calls = [Call("hget", (self._key(self._board(as_text(m)), season, 4), m)) for m, _ in pairs]
        infos = yield calls
        return list(infos)

    # -- writes ---------------------------------------------------------------------

    def _submit(self, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                with_rank: bool = False, subscore: Optional[int] = None) -> Steps[Any]:
        """Apply a result on the player's shard (one atomic script); the new points,
        or with ``with_rank=True`` a :class:`Change` with global ranks, read
        around the write."""
        board = self._board(player)
        if not with_rank:
            result = yield from steps(board._plan_submit(player, points, at=at, rule=rule, subscore=subscore))
            return result
        member = player_id(player)
        season = board.season_at(at)  # the ranks around the write are read in the season it goes to
        old = yield Call("zscore", (self._key(board, season), member))
        previous = None
        if old is not None:
            (previous,) = yield from self._ranks([(member, float(old))], self.rank_style, season)
        new_points = yield from steps(board._plan_submit(player, points, at=at, rule=rule, subscore=subscore))
        score = yield Call("zscore", (self._key(board, season), member))
        (rank,) = yield from self._ranks([(member, float(score))], self.rank_style, season)
        passed: List[str] = []
        limit = self.boards[0].passed
        if old is not None and limit and self._ahead_of(float(old), member, (member, float(score))):
            between = yield from self._between(float(score), float(old), member, limit, season)
            passed = [as_text(m) for m, _ in between]
        return Change(new_points, rank, previous, passed)


    _plan_submit = guarded(_submit)

    def _between(self, new: float, old: float, member: Any, limit: int,
                 season: Optional[Union[str, int]] = None) -> Steps[List[Pair]]:
        """Up to ``limit`` players ranked between a player's new place and their old
        one, nearest first: per shard the first ``limit`` strictly between the two
        scores, the ``limit`` tied on the new score just after the player (see
        :meth:`_tie_runs`) and the best ``limit`` tied on the old score."""
        calls: List[Call] = []
        ranged = "zrevrangebyscore" if self._desc else "zrangebyscore"
        keys = [self._key(b, season) for b in self.boards]
        for key in keys:
            calls.append(Call(ranged, (key, "(" + repr(new), "(" + repr(old)),
                              {"start": 0, "num": limit, "withscores": True}))
            calls.append(Call(ranged, (key, repr(old), repr(old)), {"start": 0, "num": limit, "withscores": True}))
            calls.append(self._tie_read(key, new))
        replies = yield calls
        tied = yield from self._tie_runs(keys, new, member, limit, replies[2::3])
        groups = [*replies[0::3], *replies[1::3], *tied]
        rows = {as_bytes(m): (m, float(sc)) for group in groups for m, sc in group}
        rows.pop(as_bytes(member), None)
        between = [p for p in rows.values()
                   if self._ahead_of(old, member, p) and not self._ahead_of(new, member, p)]
        return self._sorted(between)[:limit]

    def _plan_submit_many(self, results: Any, *, at: When = None, rule: Optional[str] = None) -> Steps[List[Points]]:
        """Apply many results: one atomic script per shard touched; each result's new points.

        Every player, points value, ``at`` and rule is checked first, and so is
        every total an ``incr``/``decr`` would reach (read in one round), so
        bad input writes nothing. A shard that still refuses (its points moved
        meanwhile, a rollover) raises the shard's error, its message naming the
        players already applied (also in the exception's ``applied``)."""
        pairs = list(results.items()) if hasattr(results, "items") else list(results)
        reference = self.boards[0]
        reference._write_args(pairs, at, rule, "")         # players, points, at and rule, checked
        chosen = reference.rule if rule is None else reference._rule(rule)
        if chosen in ("incr", "decr") and pairs:
            sign = -1 if chosen == "decr" else 1
            season = reference.season_at(at)
            olds = yield [Call("zscore", (self._key(self._board(p), season), player_id(p))) for p, _ in pairs]
            totals: Dict[Any, Points] = {}
            for (player, points), old in zip(pairs, olds):
                member = player_id(player)
                base = totals.get(member, 0 if old is None else self.codec.points(old))
                totals[member] = base + sign * points
                self.codec.check_points(totals[member])     # PointsOutOfRange before any write
        groups: Dict[int, List[Tuple[int, Any]]] = {}
        for i, pair in enumerate(pairs):
            groups.setdefault(self.shard_of(pair[0]), []).append((i, pair))
        out: List[Points] = [0] * len(pairs)
        applied: List[str] = []
        for shard, items in groups.items():
            try:
                new = yield from steps(self.boards[shard]._plan_submit_many([p for _, p in items], at=at, rule=rule))
            except ValueError as exc:
                if not applied:
                    raise
                partial = type(exc)(f"{exc} (applied before it, on other shards: {', '.join(applied)})")
                partial.applied = list(applied)  # type: ignore[attr-defined]
                raise partial from exc
            for (i, pair), value in zip(items, new):
                out[i] = value
                applied.append(as_text(player_id(pair[0])))
        return out

    def _plan_set_points(self, player: PlayerId, points: Points, *, at: When = None) -> Steps[Points]:
        """Set a player's points, whatever the board's rule; the points. One script on their shard."""
        result = yield from steps(self._board(player)._plan_set_points(player, points, at=at))
        return result

    def _plan_remove(self, player: PlayerId) -> Steps[bool]:
        """Remove a player (and their entry data) from their shard; whether they were there. O(log n)."""
        result = yield from steps(self._board(player)._plan_remove(player))
        return result

    def _plan_set_info(self, player: PlayerId, mapping: Any) -> Steps[None]:
        """Store a player's entry data (a JSON-able mapping) beside their shard. O(1)."""
        yield from steps(self._board(player)._plan_set_info(player, mapping))

    def _plan_rollover(self, new_season: Union[str, int], *, archive: Any = None) -> Steps[None]:
        """Roll every shard over to ``new_season`` (see :meth:`Leaderboard.rollover`):
        the descriptor moves first (only from the season this process holds),
        then every shard's current season is frozen."""
        yield from self._plan_open()  # the layout and season stored now
        ref = self._reference
        if ref.period is not None:
            raise ValueError("a periodic board rolls over by itself; rollover() is for named seasons")
        new = tag_part(new_season, "season")
        old = ref.season
        if old is not None and new == old:
            raise ValueError(f"leaderboard {self.name!r} is in season {new!r} already: roll over to a new name")
        if new in self._past:
            raise SeasonFrozen(f"leaderboard {self.name!r}: season {new!r} was played and frozen before; "
                               f"roll over to a new name")
        for board in self.boards:  # refused before the descriptor moves
            if (yield Call("hexists", (board.keys(new)[3], "frozen"))):
                raise SeasonFrozen(f"leaderboard {self.name!r}: season {new!r} was played and frozen before; "
                                   f"roll over to a new name")
        moved = yield Run(REDESCRIBE, (self._descriptor_key,), ("season", old or "", new))
        if moved:
            ref._given.pop("season", None)
            self._take(stored_of(moved))
            raise SeasonFrozen(f"leaderboard {self.name!r} was rolled over to season {ref.season!r} meanwhile "
                               f"(by another process); it uses that season now")
        for board in self.boards:
            board._descriptor_key = None
            yield from steps(board._plan_rollover(new, archive=archive))
        if old is not None:
            yield Call("hset", (self._descriptor_key, "past:" + old, "1"))
            self._past.append(old)
        ref.season = new
        if "season" in ref._given:
            ref._given["season"] = new
        self._options["season"] = new

    # -- reads ------------------------------------------------------------------------

    def _plan_score(self, player: PlayerId, *, season: Optional[Union[str, int]] = None) -> Steps[Optional[Points]]:
        """A player's points (read on their shard), or None if absent. O(1)."""
        result = yield from steps(self._board(player)._plan_score(player, season=season))
        return result

    def _plan_info(self, player: PlayerId) -> Steps[Optional[Dict[str, Any]]]:
        """A player's entry data (from their shard), or None. O(1)."""
        result = yield from steps(self._board(player)._plan_info(player))
        return result

    def _plan_count(self, *, season: Optional[Union[str, int]] = None) -> Steps[int]:
        """Players on every shard: ZCARD each, one round."""
        replies = yield [Call("zcard", (self._key(b, season),)) for b in self.boards]
        return sum(int(r) for r in replies)

    def _plan_rank(self, player: PlayerId, *, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> Steps[Optional[int]]:
        """A player's exact global rank, None if absent (two rounds; see the module docstring)."""
        style = self._style_of(ranking)
        member = player_id(player)
        score = yield Call("zscore", (self._key(self._board(player), season), member))
        if score is None:
            return None
        (rank,) = yield from self._ranks([(member, float(score))], style, season)
        return rank

    def _plan_rank_for(self, points: Points, *, ranking: Optional[str] = None,
                       season: Optional[Union[str, int]] = None) -> Steps[int]:
        """The rank ``points`` would get if submitted now (nothing is written)."""
        value = self.codec.check_points(points)
        style = self._style_of(ranking)
        if style == "d":
            (rank,) = yield from self._points_ranks([value], "d", season)
            return rank
        with_equals = style == "o" and self.boards[0].tiebreak == "earliest"
        bounds = self._points_bounds(value, equals=with_equals)
        replies = yield [Call("zcount", (self._key(b, season), *bounds)) for b in self.boards]
        return 1 + sum(int(r) for r in replies)

    def _merged_prefix(self, size: int, season: Any = None) -> Steps[List[Pair]]:
        """The first ``size`` entries of the global order."""
        if size == 0:
            return []
        replies = yield [self.boards[0]._slice_call(self._key(b, season), 0, size - 1) for b in self.boards]
        return self._sorted([(m, float(s)) for group in replies for m, s in group])[:size]

    def _plan_top(self, n: int = 10, *, with_info: bool = False, ranking: Optional[str] = None,
                  season: Optional[Union[str, int]] = None) -> Steps[List[Entry]]:
        """The best n: every shard's top n in one round, merged. O(N·n)."""
        n = count_arg(n, "n")
        style = self._style_of(ranking)
        pairs = yield from self._merged_prefix(n, season)
        infos = (yield from self._with_info(pairs, season)) if with_info and pairs else None
        return self._entries(pairs, 1, 0, style, infos)

    def _plan_standings(self, season: Union[str, int], n: int = 10, *, with_info: bool = False,
                        ranking: Optional[str] = None) -> Steps[List[Entry]]:
        """The top ``n`` of a past (or the current) season, merged across the shards."""
        entries = yield from self._plan_top(n, with_info=with_info, ranking=ranking, season=season)
        return entries

    def _plan_page(self, number: int, size: int = 10, *, with_info: bool = False, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> Steps[List[Entry]]:
        """Page ``number`` (1-based) of ``size``: every shard's first start + size, merged."""
        start, size = page_slice(number, size)
        style = self._style_of(ranking)
        if size == 0 or start >= SIZE_LIMIT:
            return []
        prefix = yield from self._merged_prefix(start + size, season)
        pairs = prefix[start:]
        if not pairs:
            return []
        first = start + 1
        if style != "o":
            (first,) = yield from self._points_ranks([self.codec.points(pairs[0][1])], style, season)
        infos = (yield from self._with_info(pairs, season)) if with_info else None
        return self._entries(pairs, first, start, style, infos)

    def _plan_around(self, player: PlayerId, radius: int = 5, *, with_info: bool = False,
                     ranking: Optional[str] = None, season: Optional[Union[str, int]] = None) -> Steps[List[Entry]]:
        """The entries within ``radius`` places of a player (clipped at the ends, the
        player included); empty if absent."""
        member = player_id(player)
        radius = count_arg(radius, "radius")
        style = self._style_of(ranking)
        score = yield Call("zscore", (self._key(self._board(player), season), member))
        if score is None:
            return []
        score = float(score)
        text = repr(score)
        calls: List[Call] = []
        keys = [self._key(b, season) for b in self.boards]
        for key in keys:
            if radius:
                calls.append(Call("zrangebyscore", (key, "(" + text, "+inf"),
                                  {"start": 0, "num": radius, "withscores": True}))
                calls.append(Call("zrevrangebyscore", (key, "(" + text, "-inf"),
                                  {"start": 0, "num": radius, "withscores": True}))
            calls.append(self._tie_read(key, score))
        replies = yield calls
        per = len(calls) // self.shards  # the tie read ends each shard's group
        tied = yield from self._tie_runs(keys, score, member, radius, replies[per - 1::per])
        groups = [r for i, r in enumerate(replies) if i % per != per - 1] + tied
        rows = {as_bytes(m): (m, float(s)) for group in groups for m, s in group}
        rows[as_bytes(member)] = (member, score)
        ordered = self._sorted(list(rows.values()))
        mine = next(i for i, (m, _) in enumerate(ordered) if as_bytes(m) == as_bytes(member))
        window = ordered[max(0, mine - radius):mine + radius + 1]
        (position,) = yield from self._ordinal_ranks([window[0]], season)
        first = position
        if style != "o":
            (first,) = yield from self._points_ranks([self.codec.points(window[0][1])], style, season)
        infos = (yield from self._with_info(window, season)) if with_info else None
        return self._entries(window, first, position - 1, style, infos)

    def _plan_friends(self, player: PlayerId, friend_ids: Sequence[PlayerId], *, with_info: bool = False,
                      ranking: Optional[str] = None, season: Optional[Union[str, int]] = None) -> Steps[List[Entry]]:
        """The player and their friends ranked among themselves, each with their global
        rank: ZMSCORE per shard in one round, then the global ranks in one more."""
        if isinstance(friend_ids, (str, bytes)):
            raise TypeError("friend_ids must be a sequence of player ids, not one id")
        members = list(dict.fromkeys([player_id(player), *(player_id(f) for f in friend_ids)]))
        style = self._style_of(ranking)
        groups: Dict[int, List[Any]] = {}
        for m in members:
            groups.setdefault(self.shard_of(m), []).append(m)
        order = list(groups)
        replies = yield [Call("zmscore", (self._key(self.boards[s], season), groups[s])) for s in order]
        present = [(m, float(sc)) for s, scores in zip(order, replies)
                   for m, sc in zip(groups[s], scores) if sc is not None]
        present = self._sorted(present)
        global_ranks = yield from self._ranks(present, style, season)
        infos = (yield from self._with_info(present, season)) if with_info and present else None
        ranker = Ranker(style)
        out = []
        for i, (member, score) in enumerate(present):
            points = self.codec.points(score)
            out.append(Entry(ranker.rank_at(i, points), as_text(member), points, global_ranks[i],
                             None if infos is None else info_of(infos[i])))
        return out

    def _standing(self, player: PlayerId,
                  season: Optional[Union[str, int]] = None) -> Steps[Optional[Tuple[int, int, int]]]:
        """(players with better points, with worse points, all players), or None."""
        member = player_id(player)
        score = yield Call("zscore", (self._key(self._board(player), season), member))
        if score is None:
            return None
        points = self.codec.points(score)
        calls = []
        for b in self.boards:
            key = self._key(b, season)
            calls += [Call("zcount", (key, *self._points_bounds(points, True))),
                      Call("zcount", (key, *self._points_bounds(points, False))),
                      Call("zcard", (key,))]
        replies = yield calls
        return (sum(int(x) for x in replies[0::3]), sum(int(x) for x in replies[1::3]),
                sum(int(x) for x in replies[2::3]))

    def _plan_percentile(self, player: PlayerId, *,
                         season: Optional[Union[str, int]] = None) -> Steps[Optional[float]]:
        """The percentage of players with worse points (0..100), None if absent."""
        standing = yield from self._standing(player, season)
        if standing is None:
            return None
        _, worse, count = standing
        return 100.0 * worse / count

    def _plan_bucket(self, player: PlayerId, *, season: Optional[Union[str, int]] = None) -> Steps[Optional[str]]:
        """``"top 1%"``... as :meth:`Leaderboard.bucket`, over every shard."""
        standing = yield from self._standing(player, season)
        if standing is None:
            return None
        better, _, count = standing
        share = 100.0 * (better + 1) / count
        buckets = self.boards[0].buckets
        for cut in buckets:
            if share <= cut:
                return f"top {cut:g}%"
        return f"bottom {100 - buckets[-1]:g}%"

    # -- iteration and resharding ----------------------------------------------------

    def _refill(self, state: Dict[str, Any], batch: int, season: Any) -> Steps[None]:
        """Fetch the next batch of every shard whose buffer ran dry."""
        buffers, cursors, done = state["buffers"], state["cursors"], state["done"]
        wanted = [i for i, buf in enumerate(buffers) if not buf and not done[i]]
        if not wanted:
            return
        replies = yield [self.boards[0]._slice_call(self._key(self.boards[i], season), cursors[i],
                                                    cursors[i] + batch - 1) for i in wanted]
        for i, pairs in zip(wanted, replies):
            buffers[i] = deque((m, float(s)) for m, s in pairs)
            cursors[i] += len(pairs)
            done[i] = len(pairs) < batch

    def _next_batch(self, state: Dict[str, Any], batch: int, season: Any) -> Steps[List[Pair]]:
        """The next ``batch`` entries of the global order (a k-way merge with per-shard cursors)."""
        out: List[Pair] = []
        buffers = state["buffers"]
        while len(out) < batch:
            yield from self._refill(state, batch, season)
            best = None
            for i, buf in enumerate(buffers):
                if buf and (best is None or self._ahead_of(buffers[best][0][1], buffers[best][0][0], buf[0])):
                    best = i
            if best is None:
                break
            out.append(buffers[best].popleft())
        return out

    def _pages_iter(self, batch: int = 1000, *, ranking: Optional[str] = None,
                    season: Optional[Union[str, int]] = None) -> Pages[Entry]:
        """Every entry in rank order: a k-way merge of the shards, ``batch`` at a time."""
        ranker = self.boards[0]._iter_start(batch, ranking)
        state = self._iter_state()
        position = 0
        while True:
            entries = yield self._merged_page(ranker, state, position, batch, season)
            position += len(entries)
            if len(entries) < batch:
                return

    def _merged_page(self, ranker: Ranker, state: Dict[str, Any], position: int, batch: int,
                     season: Any) -> Steps[List[Entry]]:
        """The plan of the next ``batch`` entries of the merge, the first at 0-based ``position``."""
        pairs = yield from self._next_batch(state, batch, season)
        return list(self.boards[0].entries_from(ranker, position, pairs))

    def _iter_state(self) -> Dict[str, Any]:
        return {"cursors": [0] * self.shards, "buffers": [deque() for _ in range(self.shards)],
                "done": [False] * self.shards}

    def _seasons(self) -> List[Optional[str]]:
        """The seasons a reshard copies, the current one first: the seasons
        rolled over before, or on a periodic board the periods its retention
        keeps (the current one only without ``retain``)."""
        ref = self._reference
        if ref.period is not None:
            return list(recent_seasons(ref.period, datetime.now(timezone.utc), ref.tz, ref.retain or 0))
        return [ref.season, *[p for p in self._past if p != ref.season]]

    def _plan_reshard(self, new_count: int, *, batch: int = 10_000, progress: Any = None) -> Steps[int]:
        """Move every player to a layout of ``new_count`` shards; how many moved
        (in the current season).

        The layout gets a new generation, whose key names no layout used
        before. The old shards are frozen first (writes to them are refused,
        and a process still on the old layout re-reads the descriptor and
        writes to the new one) and keep answering reads while their entries,
        entry data and dense companions are copied, season by season (the
        current one, those rolled over before); then the descriptor switches
        to the new layout in one script and the old keys go, but for their
        frozen markers. A reshard interrupted part-way is finished by the next
        ``reshard`` (from any process): it first drops the half-made layout,
        so nothing is counted twice. ``progress(moved, total)`` runs after
        each batch of the current season (reads are exact then).
        """
        if isinstance(new_count, bool) or not isinstance(new_count, int) or new_count < 1:
            raise ValueError(f"shards must be an int >= 1, not {new_count!r}")
        yield from self._plan_open()
        desc = self._descriptor_key
        pending = self._stored.get("next", "")
        seasons = self._seasons()
        current = seasons[0]
        writable = seasons if self._reference.period is not None else [current]
        if pending:  # an interrupted reshard: its half-made layout goes first
            count, generation = (int(x) for x in pending.split("."))
            yield [Call("delete", (k,)) for b in self._shard_boards(count, generation) for season in seasons
                   for k in b.keys(season)]
        if new_count == self.shards:
            if pending:  # back to writing on the layout that stays
                yield [Call("hdel", (b.keys(season)[3], "frozen")) for b in self.boards for season in writable] + [
                    Call("hdel", (desc, "next"))]
            return 0
        generation = int((yield Call("hincrby", (desc, "planned", 1))))
        yield Call("hset", (desc, "next", f"{new_count}.{generation}"))
        old = list(self.boards)
        total = sum(int(n) for n in (yield [Call("zcard", (b.keys(current)[0],)) for b in old]))
        yield [Call("hset", (b.keys(season)[3], "frozen", "1")) for b in old for season in writable]
        target = self._shard_boards(new_count, generation)
        dense = self.ranking == "dense"
        moved = 0
        for season in seasons:
            ttls = yield [Call("pttl", (b.keys(season)[0],)) for b in old]
            for board in old:
                key, info_key = board.keys(season)[0], board.keys(season)[4]
                start = 0
                while True:
                    pairs = yield board._slice_call(key, start, start + batch - 1)
                    if not pairs:
                        break
                    start += len(pairs)
                    groups: Dict[int, Dict[Any, float]] = {}
                    for m, sc in pairs:
                        groups.setdefault(zlib.crc32(as_bytes(m)) % new_count, {})[m] = float(sc)
                    members = [m for m, _ in pairs]
                    infos = yield Call("hmget", (info_key, members))
                    calls = [Call("zadd", (target[shard].keys(season)[0], mapping)) for shard, mapping in groups.items()]
                    for m, text in zip(members, infos):
                        if text is not None:
                            dest = target[zlib.crc32(as_bytes(m)) % new_count]
                            calls.append(Call("hset", (dest.keys(season)[4], m, text)))
                    if dense:
                        for shard, mapping in groups.items():
                            dest_keys = target[shard].keys(season)
                            for sc in mapping.values():
                                field = "%.17g" % self.codec.points(sc)
                                calls.append(Call("hincrby", (dest_keys[2], field, 1)))
                                calls.append(Call("zadd", (dest_keys[1], {field: float(field)})))
                    yield calls
                    if season == current:
                        moved += len(pairs)
                        if progress is not None:
                            progress(moved, total)
            # entry data of players no longer (or not yet) on the board, as it was
            left = yield [Call("hgetall", (b.keys(season)[4],)) for b in old]
            extra = [Call("hsetnx", (target[zlib.crc32(as_bytes(m)) % new_count].keys(season)[4], m, text))
                     for mapping in left for m, text in mapping.items()]
            if extra:
                yield extra
            after = []
            if season not in writable:  # a season rolled over before stays frozen
                after += [Call("hset", (t.keys(season)[3], "frozen", "1")) for t in target]
            ttl = max(int(t) for t in ttls)
            if ttl > 0:  # an archived season keeps its expiry
                after += [Call("pexpire", (k, ttl)) for t in target for k in t.keys(season)]
            if after:
                yield after
        switched = yield Run(REDESCRIBE, (desc,), ("shards", str(self.shards), str(new_count),
                                                   "generation", str(self.generation), str(generation),
                                                   "next", f"{new_count}.{generation}", ""))
        if switched:
            raise RuntimeError(f"sharded leaderboard {self.name!r} was resharded meanwhile by another process; "
                               f"this reshard's copy is dropped by the next reshard")
        yield [Call("delete", (k,)) for b in old for season in seasons
               for i, k in enumerate(b.keys(season)) if i != 3]
        self._layout(new_count, generation)
        self._stored = {**self._stored, "shards": str(new_count), "generation": str(generation), "next": ""}
        return moved

    # the methods of both faces (fastrank.ShardedLeaderboard, fastrank.asyncio.ShardedLeaderboard: runner.twin)
    submit_many = twin(guarded(_plan_submit_many))
    set_points = twin(guarded(_plan_set_points))
    remove = twin(guarded(_plan_remove))
    set_info = twin(guarded(_plan_set_info))
    rollover = twin(_plan_rollover)
    score = twin(guarded(_plan_score))
    rank = twin(guarded(_plan_rank))
    count = twin(guarded(_plan_count))
    rank_for = twin(guarded(_plan_rank_for))
    top = twin(guarded(_plan_top))
    standings = twin(guarded(_plan_standings))
    page = twin(guarded(_plan_page))
    around = twin(guarded(_plan_around))
    friends = twin(guarded(_plan_friends))
    percentile = twin(guarded(_plan_percentile))
    bucket = twin(guarded(_plan_bucket))
    info = twin(guarded(_plan_info))
    reshard = twin(_plan_reshard)
    iter = twin_pages(_pages_iter, opens=True)


class ShardedLeaderboard(SyncSubmit, ShardedBoardPlans):
    """A leaderboard split over ``shards`` keys (see the module docstring).

    ``ShardedLeaderboard(client, name, shards=8, **the options of Leaderboard)``
    """
