"""RangePartitionedLeaderboard: one board split by score into bands, answers exact.

``bounds=[1000, 5000]`` cut the points into bands: band 0 holds points below
1000 (the long tail), band 1 from 1000 up to below 5000, band 2 from 5000 up
(the elite); ``k`` bounds make ``k + 1`` bands. Each band is a sorted set of
the board's encoded scores (``scorebits``), with its own dense companion on a
dense-ranked board. A player lives in the band of their points, so:

- a global rank is the rank inside the band plus the sizes of the bands of
  better points (their distinct values for a dense rank): one script
  (``scripts/bands.lua``), O(bands + log n);
- ``top(n)`` reads the best bands first, one pipelined round; ``around``
  finds the player's place in one script, then reads the window in one
  pipelined round (one more script for a competition or dense rank);
- a write that carries a player across a bound removes them from the old band
  and adds them to the new one in the same script (atomic).

The bands and the descriptor share the board's hash tag ``{lb:<name>}``
(keys ``{lb:<name>}:band:g<generation>.<i>[:dense|:counts]``), so on a Redis
Cluster the whole board lives on one node, one slot: a crossing is one
script, and every read is one node's. A band is therefore no unit of
distribution: it keeps each band's sorted set small (a rank within the long
tail never walks the elite's, and the per-band sizes show where the players
are), it does not spread load. When one node cannot hold the board or its
write rate, use :class:`fastrank.ShardedLeaderboard` (hash sharding: each
shard a hash tag of its own, spread over the nodes, every read merged).

The bounds and the layout generation live in the descriptor; a process that
gives other bounds gets :class:`fastrank.BoardConfigMismatch`.
:meth:`rebalance` moves the board to new bounds: it builds the new bands
beside the old ones under a new generation of key names while reads go on
answering exactly from the old ones (writes are refused meanwhile, with
:class:`fastrank.SeasonFrozen`), then moves the descriptor to the new
generation by compare-and-set (as ``ShardedLeaderboard.reshard`` does), and
every process follows. An interrupted rebalance is finished by the next
``rebalance`` from any process (it drops the half-made bands first).

Seasons and periods are not options of this board.
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from redis.exceptions import ResponseError

from fastrank import errors as _errors
from fastrank.errors import SeasonFrozen
from fastrank.leaderboard.board import BoardPlans, Entry, PlayerId, When
from fastrank.leaderboard.descriptor import (DESCRIBE, REDESCRIBE, UNSET, Unset, check_given, descriptor_key, flat,
                                             stored_of)
from fastrank.leaderboard.parts import Ranker, as_text, count_arg, key_part, player_id, tag_part
from fastrank.leaderboard.scorebits import Points
from fastrank.leaderboard.sharded import LayoutMoved, guarded
from fastrank.runner import Call, Run, Steps, SyncFace, checked_client, packaged_script, run, twin

__all__ = ["BandPlans", "RangePartitionedLeaderboard", "bounds_of"]

BANDS = packaged_script("bands")
DEFAULT_BOUNDS = (1000, 5000)
MAX_BOUNDS = 15
"""At most 16 bands: a write or a rank looks for the player in every band."""
HISTOGRAM = 32
"""Buckets of the histogram of band 0 on an ``approximate`` board (as in ``scripts/bands.lua``)."""

NOT_OPTIONS = ("season", "period", "tz", "retain")
"""Board options a range-partitioned board does not take (it has no seasons)."""

Bound = Union[int, float]
Pair = Tuple[Any, float]


def bounds_of(bounds: Any) -> Tuple[Bound, ...]:
    """``bounds`` checked: 1 to 15 finite numbers, strictly increasing
    (TypeError for other types, ValueError otherwise)."""
    if isinstance(bounds, (str, bytes)) or not isinstance(bounds, Sequence):
        raise TypeError(f"bounds must be a sequence of numbers, not {type(bounds).__name__}")
    for b in bounds:
        if isinstance(b, bool) or not isinstance(b, (int, float)):
            raise TypeError(f"bounds must be numbers, not {type(b).__name__} ({b!r})")
        if not math.isfinite(b):
            raise ValueError(f"bounds must be finite numbers, not {b!r}")
    if not 1 <= len(bounds) <= MAX_BOUNDS:
        raise ValueError(f"bounds must hold 1 to {MAX_BOUNDS} numbers, not {len(bounds)}")
    if any(low >= high for low, high in zip(bounds, bounds[1:])):
        raise ValueError(f"bounds must be strictly increasing (sorted, no duplicates), not {list(bounds)!r}")
    return tuple(bounds)


def _text(bounds: Sequence[Bound]) -> str:
    """Bounds as the descriptor stores them: exact decimal text, comma-separated."""
    return ",".join("%.17g" % b for b in bounds)


def _parsed(text: str) -> Tuple[Bound, ...]:
    """The bounds of a stored text (:func:`_text`'s inverse); integral ones as ints."""
    values = [float(x) for x in text.split(",")]
    return tuple(int(v) if v.is_integer() else v for v in values)


def band_at(bounds: Sequence[Bound], points: Points) -> int:
    """The band (0-based, lowest points first) that ``points`` belong to."""
    return sum(1 for b in bounds if points >= b)


def bucket_at(bounds: Sequence[Bound], points: Points) -> int:
    """The histogram bucket of band 0 that ``points`` count in on an
    approximate board: ``floor(points / width)`` clipped to 0..31, buckets
    ``width = bounds[0] / 32`` wide (as ``scripts/bands.lua`` computes it)."""
    return min(HISTOGRAM - 1, max(0, math.floor(points / (bounds[0] / HISTOGRAM))))


class BandPlans:
    """The range-partitioned board's configuration and methods as plans (no I/O here)."""

    def __init__(self, client: Any, name: str, bounds: Union[Sequence[Bound], Unset] = UNSET, *,
                 approximate: Union[bool, Unset] = UNSET, **options: Any) -> None:
        for option in NOT_OPTIONS:
            if option in options:
                raise ValueError(f"a range-partitioned leaderboard has no seasons: {option}= is not one of its options")
        self._given_bounds = UNSET if isinstance(bounds, Unset) else bounds_of(bounds)
        if not isinstance(approximate, (bool, Unset)):
            raise TypeError(f"approximate must be True or False, not {approximate!r}")
        self._given_approximate = approximate
        self.approximate = approximate is True
        self._client = checked_client(self, client)
        self.name = tag_part(name, "name")
        # the options, checked (and kept, with those given) by a board of the same options
        self._reference = BoardPlans(self._client, self.name, **options)
        self._reference._descriptor_key = None
        self._reference._opened = True
        self._descriptor_key = descriptor_key(self.name)
        self._opened = False
        self._stored: Dict[str, str] = {}
        self._layout(DEFAULT_BOUNDS if isinstance(self._given_bounds, Unset) else self._given_bounds, 1)
        self._check_approximate(self.bounds)
        self._made()

    def _made(self) -> None:
        """Called at the end of construction: a sync face opens the board here."""

    @property
    def descriptor_key(self) -> str:
        """The key of the board's descriptor."""
        return self._descriptor_key

    @property
    def ranking(self) -> str:
        """The board's ranking style (``ordinal``, ``competition`` or ``dense``)."""
        return str(self._reference.ranking)

    @property
    def buckets(self) -> Tuple[float, ...]:
        """The cut-offs (percentages) :meth:`bucket` names (``buckets=``, this process's own)."""
        return self._reference.buckets

    def _check_approximate(self, bounds: Sequence[Bound]) -> None:
        """ValueError when ``approximate`` cannot hold with these bounds and options."""
        if not self.approximate:
            return
        if not self._reference.codec.desc or self.ranking == "dense":
            raise ValueError("approximate=True estimates ordinal and competition ranks of the lowest band of a "
                             "board where higher is better: not with order='asc' nor ranking='dense'")
        if bounds[0] <= 0:
            raise ValueError(f"approximate=True needs a first bound above 0 (its histogram spans 0 to it in "
                             f"{HISTOGRAM} buckets), not {bounds[0]!r}")

    def descriptor(self) -> Dict[str, str]:
        """The stored options, bounds, ``approximate`` and layout generation as the descriptor holds them (text)."""
        return {**self._reference.descriptor(), "kind": "bands", "bounds": _text(self.bounds),
                "approximate": "1" if self.approximate else "",
                "generation": str(self.generation), "planned": str(self.generation)}

    def _plan_open(self) -> Steps[None]:
        """Read the board's descriptor (writing it if the board is new): the
        options, the bounds and the generation; BoardConfigMismatch if an
        option or the bounds given differ."""
        reply = yield Run(DESCRIBE, (self._descriptor_key,), flat(self.descriptor()))
        self._take(stored_of(reply))
        self._opened = True

    def _take(self, stored: Dict[str, str]) -> None:
        self._reference._take(stored, "bands")
        stored_approximate = stored.get("approximate", "") == "1"
        given: Dict[str, Any] = {}
        if not isinstance(self._given_bounds, Unset):
            given["bounds"] = list(self._given_bounds)
        if not isinstance(self._given_approximate, Unset):
            given["approximate"] = self._given_approximate
        texts = {option: _text(value) if option == "bounds" else "1" if value else ""
                 for option, value in given.items()}
        check_given("range-partitioned leaderboard", self.name, stored, texts, given,
                    {"bounds": list(_parsed(stored["bounds"])), "approximate": stored_approximate})
        # the bounds are checked once: a rebalance may move them later, and this board follows
        self._given_bounds = UNSET
        self.approximate = stored_approximate
        self._stored = stored
        bounds, generation = _parsed(stored["bounds"]), int(stored["generation"])
        if (_text(bounds), generation) != (_text(self.bounds), self.generation):
            self._layout(bounds, generation)

    def _band_keys(self, generation: int, bands: int) -> List[Tuple[str, str, str]]:
        """Each band's keys (board, dense, counts) in a layout, lowest points first."""
        base = f"{{lb:{key_part(self.name)}}}:band:g{generation}"
        return [(f"{base}.{i}", f"{base}.{i}:dense", f"{base}.{i}:counts") for i in range(bands)]

    def _histogram_key(self, generation: int) -> str:
        """The key of band 0's histogram in a layout (kept on an approximate board)."""
        return f"{{lb:{key_part(self.name)}}}:band:g{generation}.0:histogram"

    def _layout(self, bounds: Sequence[Bound], generation: int) -> None:
        self.bounds: Tuple[Bound, ...] = tuple(bounds)
        self.generation = generation
        self.bands = self._band_keys(generation, len(bounds) + 1)
        self.histogram_key = self._histogram_key(generation)
        self._script_keys = (self._descriptor_key, self.histogram_key, *(k for keys in self.bands for k in keys))
        # the bands in rank order: best points first
        self._best_first = list(range(len(self.bands)))[::-1] if self._reference.codec.desc else list(
            range(len(self.bands)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, bounds={list(self.bounds)!r}, ranking={self.ranking!r})"

    # -- script calls --------------------------------------------------------------

    def _script(self, mode: str, *args: Any) -> Steps[Any]:
        """Run ``scripts/bands.lua`` in ``mode`` on this layout; its errors as the board's."""
        try:
            reply = yield Run(BANDS, self._script_keys,
                              (*self._reference.script_config, str(self.generation), mode,
                               "%.17g" % (self.bounds[0] / HISTOGRAM) if self.approximate else "0", *args))
        except ResponseError as exc:
            text = str(exc)
            if text.startswith(_errors.BANDS_MOVED_PREFIX):
                raise LayoutMoved() from exc
            if text.startswith(_errors.BANDS_BUSY_PREFIX):
                raise SeasonFrozen(f"range-partitioned leaderboard {self.name!r} is being rebalanced; writes wait "
                                   f"until the rebalance ends (an interrupted one ends by running rebalance "
                                   f"again)") from exc
            raise self._reference.translate_error(exc) from exc
        return reply

    def _fetched(self, calls: List[Call]) -> Steps[List[Any]]:
        """The replies of ``calls`` sent with a probe of the generation in the
        same pipeline (LayoutMoved if it moved, so the plan runs again)."""
        replies = yield [*calls, Call("hget", (self._descriptor_key, "generation"))]
        if as_text(replies[-1] or b"") != str(self.generation):
            raise LayoutMoved()
        return list(replies[:-1])

    def _locate(self, member: Any, style: str,
                estimate: bool = False) -> Steps[Optional[Tuple[int, int, int, int, List[int]]]]:
        """(band, index in the band, global rank in ``style``, players sharing
        the bucket of an estimated rank (0 when exact), every band's size), or
        None if absent: one script. With ``estimate`` on an approximate board,
        a rank in band 0 comes from its histogram (index -1)."""
        reply = yield from self._script("rank", style, member, "1" if estimate else "0")
        if not reply:
            return None
        band, index, rank, shared, *sizes = (int(x) for x in reply)
        return band, index, rank, shared, sizes

    # -- writes --------------------------------------------------------------------

    def _write(self, pairs: Sequence[Tuple[PlayerId, Points]], at: When, rule: Optional[str],
               subscore: Optional[int] = None) -> Steps[List[Points]]:
        _, args = self._reference._write_args(pairs, at, rule, "", subscore)
        chosen, low, results = args[5], args[6], args[10:]
        if not results:
            return []
        reply = yield from self._script("submit", chosen, low, len(self.bounds), *_text(self.bounds).split(","),
                                        *results)
        parse = self._reference.codec.parse_points
        return [parse(x) for x in reply]

    def _plan_submit(self, player: PlayerId, points: Points, *, at: When = None, rule: Optional[str] = None,
                     subscore: Optional[int] = None) -> Steps[Points]:
        """Apply a result by the board's rule (or ``rule=``); the new points.
        One atomic script: a player whose points cross a bound moves band in it."""
        (new,) = yield from self._write(((player, points),), at, rule, subscore)
        return new

    def _plan_submit_many(self, results: Union[Mapping[PlayerId, Points], Sequence[Tuple[PlayerId, Points]]],
                          *, at: When = None, rule: Optional[str] = None) -> Steps[List[Points]]:
        """Apply many results earned at the same time in one atomic script; each
        result's new points. Nothing is written if any total would not fit."""
        pairs = list(results.items()) if isinstance(results, Mapping) else list(results)
        return (yield from self._write(pairs, at, rule))

    def _plan_set_points(self, player: PlayerId, points: Points, *, at: When = None) -> Steps[Points]:
        """Set a player's points (rule ``set``), moving band if they cross a bound."""
        return (yield from self._plan_submit(player, points, at=at, rule="set"))

    def _plan_remove(self, player: PlayerId) -> Steps[bool]:
        """Take a player off the board; True if they were on it. One script."""
        return bool((yield from self._script("remove", player_id(player))))

    # -- reads ---------------------------------------------------------------------

    def _scores(self, member: Any) -> Steps[List[Optional[float]]]:
        replies = yield [Call("zscore", (keys[0], member)) for keys in self.bands]
        return list(replies)

    def _plan_score(self, player: PlayerId) -> Steps[Optional[Points]]:
        """A player's points, or None if absent: ZSCORE in every band, one round."""
        for score in (yield from self._scores(player_id(player))):
            if score is not None:
                return self._reference.codec.points(score)
        return None

    def _plan_band_of(self, player: PlayerId) -> Steps[Optional[int]]:
        """The band a player is in (0-based, lowest points first), or None if absent."""
        scores = yield from self._scores(player_id(player))
        return next((b for b, score in enumerate(scores) if score is not None), None)

    def _plan_band_sizes(self) -> Steps[List[int]]:
        """How many players each band holds, lowest points first: one round."""
        replies = yield [Call("zcard", (keys[0],)) for keys in self.bands]
        return [int(n) for n in replies]

    def _plan_count(self) -> Steps[int]:
        """How many players are on the board (every band)."""
        return sum((yield from self._plan_band_sizes()))

    def _plan_rank(self, player: PlayerId, *, ranking: Optional[str] = None) -> Steps[Optional[int]]:
        """A player's 1-based global rank in the board's style (or ``ranking=``),
        None if absent: the rank inside their band plus the bands of better
        points, in one script. O(bands + log n).

        On an ``approximate`` board a player of the lowest band gets an
        estimate in O(bands + 32): 1 + the players of better bands + those of
        band 0's better histogram buckets, the best place in their bucket.
        The exact rank (ordinal or competition) lies between it and it +
        the other players of the bucket (:meth:`rank_range` gives both)."""
        style = self._reference._style_of(ranking)
        found = yield from self._locate(player_id(player), style, self.approximate)
        return None if found is None else found[2]

    def _plan_rank_range(self, player: PlayerId, *,
                         ranking: Optional[str] = None) -> Steps[Optional[Tuple[int, int]]]:
        """The lowest and highest rank a player can hold, None if absent: (rank,
        rank) when :meth:`rank` is exact, (estimate, estimate + players sharing
        the bucket - 1) for an estimated rank of an approximate board."""
        style = self._reference._style_of(ranking)
        found = yield from self._locate(player_id(player), style, self.approximate)
        if found is None:
            return None
        rank, shared = found[2], found[3]
        return rank, rank + max(shared - 1, 0)

    def _plan_bucket(self, player: PlayerId) -> Steps[Optional[str]]:
        """``"top 1%"``, ``"top 5%"``... by the board's ``buckets`` cut-offs, as
        :meth:`fastrank.Leaderboard.bucket` (the first cut-off at or above the
        player's competition rank as a percentage), ``"bottom N%"`` below the
        last; None if absent. On an ``approximate`` board a player of the
        lowest band is placed at the worst rank their histogram bucket allows
        (the high end of :meth:`rank_range`), so the bucket never flatters."""
        found = yield from self._locate(player_id(player), "c", self.approximate)
        if found is None:
            return None
        rank, shared, sizes = found[2], found[3], found[4]
        worst = rank + max(shared - 1, 0)
        return self._reference._bucket_of((worst - 1, 0, sum(sizes)))

    def _plan_top(self, n: int = 10, *, ranking: Optional[str] = None) -> Steps[List[Entry]]:
        """The best ``n`` entries across the bands: each band's first ``n``,
        best band first, in one round. O(bands · (log n + n))."""
        n = count_arg(n, "n")
        style = self._reference._style_of(ranking)
        if n == 0:
            return []
        replies = yield [self._reference._slice_call(self.bands[b][0], 0, n - 1) for b in self._best_first]
        pairs = [(m, float(s)) for group in replies for m, s in group][:n]
        return self._ranked(pairs, 0, 1, style)

    def _plan_around(self, player: PlayerId, radius: int = 5, *,
                     ranking: Optional[str] = None) -> Steps[List[Entry]]:
        """The entries within ``radius`` places of a player (clipped at the
        ends, across bands, the player included); empty if absent."""
        member = player_id(player)
        radius = count_arg(radius, "radius")
        style = self._reference._style_of(ranking)
        found = yield from self._locate(member, style)
        if found is None:
            return []
        band, index, rank, _, sizes = found
        above = self._best_first[:self._best_first.index(band)]
        position = sum(sizes[b] for b in above) + index
        start, stop = max(0, position - radius), position + radius
        calls, offset = [], 0
        for b in self._best_first:
            low, high = max(start - offset, 0), min(stop - offset, sizes[b] - 1)
            if low <= high:
                calls.append(self._reference._slice_call(self.bands[b][0], low, high))
            offset += sizes[b]
        replies = yield from self._fetched(calls)
        pairs = [(m, float(s)) for group in replies for m, s in group]
        first = start + 1
        if style != "o" and pairs[0][0] != member:
            located = yield from self._locate(pairs[0][0], style)
            if located is None:  # taken off between the rounds: read again
                raise LayoutMoved()
            first = located[2]
        elif style != "o":
            first = rank
        return self._ranked(pairs, start, first, style)

    def _ranked(self, pairs: Sequence[Pair], start: int, first: int, style: str) -> List[Entry]:
        """Entries of consecutive pairs in rank order from 0-based ``start``, the first ranked ``first``."""
        ranker = Ranker(style)
        codec = self._reference.codec
        out = []
        for i, (member, score) in enumerate(pairs):
            points = codec.points(score)
            out.append(Entry(ranker.rank_at(start + i, points, first if i == 0 else None), as_text(member), points))
        return out

    # -- rebalance -----------------------------------------------------------------

    def _plan_rebalance(self, new_bounds: Sequence[Bound], *, batch: int = 10_000) -> Steps[int]:
        """Move every player to the bands of ``new_bounds``; how many were
        copied into the new layout (0 when the bounds stay).

        The new bands are built beside the old ones under a new generation of
        key names; writes are refused meanwhile (SeasonFrozen) and reads go on
        answering exactly from the old bands. Then the descriptor moves to the
        new bounds and generation by compare-and-set, every process follows,
        and the old bands go. A rebalance interrupted part-way is finished by
        the next ``rebalance`` (from any process), which first drops the
        half-made bands. ``batch`` players are copied a round.
        """
        wanted = bounds_of(new_bounds)
        if count_arg(batch, "batch") < 1:
            raise ValueError("batch must be >= 1")
        yield from self._plan_open()
        self._check_approximate(wanted)
        desc = self._descriptor_key
        pending = self._stored.get("next", "")
        if pending:  # an interrupted rebalance: its half-made bands go first
            begun, text = pending.split("|", 1)
            half = self._band_keys(int(begun), len(_parsed(text)) + 1)
            yield [Call("delete", (k,)) for keys in half for k in keys] + [
                Call("delete", (self._histogram_key(int(begun)),))]
        if _text(wanted) == _text(self.bounds):
            if pending:  # back to writing on the bands that stay
                yield Call("hdel", (desc, "next"))
                self._stored = {**self._stored, "next": ""}
            return 0
        generation = int((yield Call("hincrby", (desc, "planned", 1))))
        planned = f"{generation}|{_text(wanted)}"
        yield Call("hset", (desc, "next", planned))
        target = self._band_keys(generation, len(wanted) + 1)
        codec = self._reference.codec
        dense = self.ranking == "dense"
        copied = 0
        for keys in self.bands:
            start = 0
            while True:
                pairs = yield self._reference._slice_call(keys[0], start, start + batch - 1)
                if not pairs:
                    break
                start += len(pairs)
                groups: Dict[int, Dict[Any, float]] = {}
                for member, score in pairs:
                    groups.setdefault(band_at(wanted, codec.points(score)), {})[member] = float(score)
                calls = [Call("zadd", (target[b][0], mapping)) for b, mapping in groups.items()]
                if self.approximate and 0 in groups:
                    buckets = Counter(bucket_at(wanted, codec.points(score)) for score in groups[0].values())
                    calls += [Call("hincrby", (self._histogram_key(generation), str(b), n))
                              for b, n in buckets.items()]
                if dense:
                    for b, mapping in groups.items():
                        held = Counter("%.17g" % codec.points(score) for score in mapping.values())
                        calls += [Call("hincrby", (target[b][2], field, n)) for field, n in held.items()]
                        calls.append(Call("zadd", (target[b][1], {field: float(field) for field in held})))
                yield calls
                copied += len(pairs)
        switched = yield Run(REDESCRIBE, (desc,), ("bounds", _text(self.bounds), _text(wanted),
                                                   "generation", str(self.generation), str(generation),
                                                   "next", planned, ""))
        if switched:
            raise RuntimeError(f"range-partitioned leaderboard {self.name!r} was rebalanced meanwhile by another "
                               f"process; this rebalance's copy is dropped by the next rebalance")
        yield [Call("delete", (k,)) for keys in self.bands for k in keys] + [Call("delete", (self.histogram_key,))]
        self._layout(wanted, generation)
        self._stored = {**self._stored, "bounds": _text(wanted), "generation": str(generation), "next": ""}
        return copied

    submit = twin(guarded(_plan_submit))
    submit_many = twin(guarded(_plan_submit_many))
    set_points = twin(guarded(_plan_set_points))
    remove = twin(guarded(_plan_remove))
    score = twin(guarded(_plan_score))
    rank = twin(guarded(_plan_rank))
    rank_range = twin(guarded(_plan_rank_range))
    bucket = twin(guarded(_plan_bucket))
    count = twin(guarded(_plan_count))
    top = twin(guarded(_plan_top))
    around = twin(guarded(_plan_around))
    band_of = twin(guarded(_plan_band_of))
    band_sizes = twin(guarded(_plan_band_sizes))
    rebalance = twin(_plan_rebalance)

class RangePartitionedLeaderboard(SyncFace, BandPlans):
    """A leaderboard split by score into bands (see the module docstring).

    ``RangePartitionedLeaderboard(client, name, bounds=[1000, 5000], *, order="desc",
    tiebreak="earliest", ranking="ordinal", rule="incr", point_bits=20, time_bits=33, ...)``
    (the options of :class:`fastrank.Leaderboard` but its seasons).
    """


    def _made(self) -> None:
        run(self._client, self._plan_open())

    def open(self) -> "RangePartitionedLeaderboard":
        """Read the board's stored options and layout again."""
        run(self._client, self._plan_open())
        return self


