"""SegmentedLeaderboard: one board per natural segment (region, league,
platform), a player in one segment at a time, and a global view over all.

Every key of a segmented board shares the hash tag ``{lb:<name>}``:

- ``{lb:<name>}:seg:<segment>`` (and its ``:dense``, ``:counts``, ``:meta``,
  ``:info`` names, as a board's): each segment's board, read with the plans
  of :class:`fastrank.Leaderboard` (``top``, ``score``...);
- ``{lb:<name>}:where``: player → segment;
- ``{lb:<name>}:global``: the best ``global_size`` entries over every segment;
- ``{lb:<name>}:state``: ``stale`` while the global key may miss someone;
- ``{lb:<name>}:hist`` and ``...:seg:<segment>:hist`` (``bucket_width`` set):
  players per points bucket, over all segments and per segment.

One hash tag makes every write one atomic Lua script on every backend --
and on a Redis Cluster puts the whole segmented board on one node. Prefer
:class:`fastrank.ShardedLeaderboard` when one board is too big or too busy
for one node; a segmented board is for boards that are naturally split and
read per segment.

**Moves.** ``submit(player, points, segment=s)`` for a player now in another
segment moves them in the same script: their entry leaves the old segment
with its points and tie-break time, enters ``s``, then the rule applies
(with rule ``best`` a worse result leaves the carried points as they were).

**The global key** holds the exact best ``global_size`` entries: a write
adds its entry when it beats the key's last (O(log size)); only an entry of
a full key getting worse, or leaving, can let in someone the key never saw,
and then the key is marked stale and the next ``global_top`` (or
:meth:`refresh`) rebuilds it from every segment's best ``global_size`` in
the same script as the read. So ``global_top`` is never stale: its answer
is exact at the moment of the read, as one board holding every entry would
give it (same order, ties included).

The segment list is stored in the descriptor (kind ``segmented``); opening
the name with another list raises BoardConfigMismatch. Adding a segment to
a board is a later feature: today a new list means a new board. Seasons
(``season``, ``period``) and dense ranking are not options of a segmented board.
"""
from __future__ import annotations

import re
from importlib import resources
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from fastrank.leaderboard.board import BoardPlans, Entry, PlayerId, When
from fastrank.leaderboard.descriptor import DESCRIBE, UNSET, Unset, check_given, flat, stored_of
from fastrank.leaderboard.parts import as_text, count_arg, key_part, player_id
from fastrank.leaderboard.scorebits import Points
from fastrank.runner import Plan, Run, Script, Steps, SyncFace, checked_client, direct_run, run, twin

__all__ = ["SegmentedLeaderboard", "SegmentedBoardPlans", "DEFAULT_SEGMENTS"]

DEFAULT_SEGMENTS = ("eu", "na", "asia")
"""A new segmented board's segments when none are given."""

BOARD_OPTIONS = ("order", "tiebreak", "ranking", "rule", "point_bits", "time_bits", "epoch", "tick")
"""The board options a segmented board takes (stored in its descriptor, as a board's)."""

_SEGMENT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_GLOBAL_SIZE = 10_000


def _script(name: str) -> Script:
    """``scripts/<name>.lua`` after the board prelude, member byte order and the segmented boards' shared part."""
    folder = resources.files("fastrank.leaderboard").joinpath("scripts")
    parts = [folder.joinpath(f"{part}.lua").read_text(encoding="utf-8") for part in ("_prelude", "_bytes", "_segments", name)]
    return Script(name, "".join(parts))


SEGMENT_SUBMIT = _script("segment_submit")
SEGMENT_REMOVE = _script("segment_remove")
SEGMENT_READ = _script("segment_read")


def _segments_of(segments: Any) -> Tuple[str, ...]:
    """The segment list, checked: distinct names of 1-64 characters of [A-Za-z0-9_.-]."""
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence):
        raise TypeError(f"segments must be a sequence of names, not {type(segments).__name__}")
    names = tuple(segments)
    if not names:
        raise ValueError("a segmented board needs at least one segment")
    for name in names:
        if not isinstance(name, str) or not _SEGMENT_NAME.fullmatch(name):
            raise ValueError(f"a segment name is 1-64 characters of letters, digits, '_', '.' or '-', not {name!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"segment names must be distinct: {names!r}")
    return names


def _width_text(width: Optional[float]) -> str:
    return "" if width is None else format(float(width), ".17g")


class _SegmentBoard(BoardPlans):
    """One segment: a board whose keys live under the segmented board's hash tag."""

    def __init__(self, client: Any, name: str, segment: str, options: Dict[str, Any]) -> None:
        self.segment = segment
        super().__init__(client, name, **options)
        self._descriptor_key = None  # the segmented board's descriptor holds its options
        self._opened = True

    def keys(self, season: Optional[Union[str, int]] = None) -> Tuple[str, str, str, str, str]:
        base = f"{{lb:{self._key_name}}}:seg:{self.segment}"
        return (base, base + ":dense", base + ":counts", base + ":meta", base + ":info")


class SegmentedBoardPlans:
    """The segmented board's configuration and methods as plans (no I/O here)."""

    def __init__(self, client: Any, name: str, segments: Union[Sequence[str], Unset] = UNSET, *,
                 global_size: Union[int, Unset] = UNSET, bucket_width: Union[float, None, Unset] = UNSET,
                 **options: Any) -> None:
        unknown = sorted(set(options) - set(BOARD_OPTIONS))
        if unknown:
            raise TypeError(f"a segmented board has no option {unknown[0]!r} (its board options: {BOARD_OPTIONS})")
        if options.get("ranking") == "dense":
            raise ValueError("a segmented board ranks 'ordinal' or 'competition', not 'dense'")
        self._given: Dict[str, Any] = {}
        if not isinstance(segments, Unset):
            self._given["segments"] = _segments_of(segments)
        if not isinstance(global_size, Unset):
            if count_arg(global_size, "global_size") < 1 or global_size > MAX_GLOBAL_SIZE:
                raise ValueError(f"global_size must be 1..{MAX_GLOBAL_SIZE}, not {global_size}")
            self._given["global_size"] = global_size
        if not isinstance(bucket_width, Unset):
            if bucket_width is not None and (isinstance(bucket_width, bool) or not isinstance(bucket_width, (int, float))
                                             or not 0 < bucket_width < float("inf")):
                raise ValueError(f"bucket_width must be a positive number of points or None, not {bucket_width!r}")
            self._given["bucket_width"] = bucket_width
        self._client = checked_client(self, client)
        # the board options, checked (and kept, with those given) by a board of the same options
        self._reference = BoardPlans(self._client, name, **options)
        self.name = self._reference.name
        self._descriptor_key = self._reference.descriptor_key
        self._reference._descriptor_key = None
        base = f"{{lb:{key_part(self.name)}}}"
        self._prefix = base + ":seg:"
        self._shared_keys = (base + ":where", base + ":global", base + ":state", base + ":hist")
        self._opened = False
        self._configure(self._given.get("segments", DEFAULT_SEGMENTS), self._given.get("global_size", 100),
                        self._given.get("bucket_width"))
        self._made()

    def _configure(self, segments: Tuple[str, ...], global_size: int, bucket_width: Optional[float]) -> None:
        self.segments = segments
        self.global_size = global_size
        self.bucket_width = bucket_width
        options = {k: v for k, v in self._reference._options().items() if k in BOARD_OPTIONS}
        self.boards = {s: _SegmentBoard(self._client, self.name, s, options) for s in segments}
        self._shape = (self._prefix, str(global_size), _width_text(bucket_width) or "0")

    def _made(self) -> None:
        """Called at the end of construction: a sync face opens the board here."""

    @property
    def descriptor_key(self) -> Optional[str]:
        """The key of the board's descriptor."""
        return self._descriptor_key

    def descriptor(self) -> Dict[str, str]:
        """The stored options and segments as the descriptor holds them (text)."""
        return {**self._reference.descriptor(), "kind": "segmented", "segments": ",".join(self.segments),
                "global_size": str(self.global_size), "bucket_width": _width_text(self.bucket_width)}

    def _plan_open(self) -> Steps[None]:
        """Read the board's descriptor (writing it if the board is new);
        BoardConfigMismatch if an option or the segment list given differs."""
        assert self._descriptor_key is not None
        reply = yield Run(DESCRIBE, (self._descriptor_key,), flat(self.descriptor()))
        stored = stored_of(reply)
        self._reference._take(stored, "segmented")
        given = {k: ",".join(v) if k == "segments" else _width_text(v) if k == "bucket_width" else str(v)
                 for k, v in self._given.items()}
        width_text = stored.get("bucket_width", "")
        segments = tuple(stored.get("segments", "").split(","))
        global_size = int(stored.get("global_size", "0"))
        width = float(width_text) if width_text else None
        check_given("segmented leaderboard", self.name, stored, given, self._given,
                    {"segments": segments, "global_size": global_size, "bucket_width": width})
        self._configure(segments, global_size, width)
        self._opened = True

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, segments={self.segments!r}, order={self._reference.order!r})"

    # -- writes -------------------------------------------------------------

    def _board(self, segment: Any) -> _SegmentBoard:
        board = self.boards.get(segment) if isinstance(segment, str) else None
        if board is None:
            raise ValueError(f"segmented leaderboard {self.name!r} has no segment {segment!r} "
                             f"(its segments: {self.segments})")
        return board

    def _plan_submit(self, player: PlayerId, points: Points, *, segment: str, at: When = None,
                     rule: Optional[str] = None) -> Plan[Points]:
        """Apply a result by the board's rule (or ``rule=``) to the player in
        ``segment``; the new points. A player in another segment moves with
        their points and tie-break time, then the rule applies. One atomic
        script; O(log n), plus O(log global_size) for the global key."""
        board = self._board(segment)
        keys, args = board._write_args(((player, points),), at, rule, "")
        return direct_run(SEGMENT_SUBMIT, (*keys, *self._shared_keys), (*args, segment, *self._shape),
                          self._new_points, board.translate_error)

    def _new_points(self, reply: List[Any]) -> Points:
        return self._reference.codec.parse_points(reply[0])

    def _plan_remove(self, player: PlayerId) -> Plan[bool]:
        """Take a player off the board (whatever their segment); True if they were on it. O(log n)."""
        return direct_run(SEGMENT_REMOVE, self._shared_keys, (*self._reference.script_config, player_id(player),
                                                               *self._shape), bool)

    def _plan_refresh(self) -> Plan[int]:
        """Rebuild the global key from every segment's best ``global_size``
        entries (a read does it by itself when it is stale); how many it holds.
        O(S · global_size · log global_size) for S segments."""
        return self._read("refresh", "", "o", int)

    # -- reads --------------------------------------------------------------

    def _read(self, mode: str, player: Any, style: str, parse: Any) -> Plan[Any]:
        args = (*self._reference.script_config, mode, *self._shape, player, style, *self.segments)
        return direct_run(SEGMENT_READ, self._shared_keys, args, parse)

    def _style(self, ranking: Optional[str]) -> str:
        if ranking == "dense":
            raise ValueError("a segmented board ranks 'ordinal' or 'competition', not 'dense'")
        return self._reference._style_of(ranking)

    def _plan_segment_of(self, player: PlayerId) -> Plan[Optional[str]]:
        """The segment a player is in, or None if absent. O(1)."""
        return ("hget", (self._shared_keys[0], player_id(player)), None, _text_or_none, None)

    def _plan_score(self, player: PlayerId) -> Plan[Optional[Points]]:
        """A player's points, or None if absent. One script, O(1)."""
        return self._read("rank", player_id(player), "o", self._points_of_rank)

    def _points_of_rank(self, reply: Any) -> Optional[Points]:
        return None if not reply else self._reference.codec.points(float(reply[2]))

    def _plan_rank(self, player: PlayerId, *, ranking: Optional[str] = None) -> Plan[Optional[int]]:
        """A player's 1-based rank in their own segment (exact), None if absent.
        One script; O(log n)."""
        return self._read("rank", player_id(player), self._style(ranking), _rank_in_segment)

    def _plan_top(self, n: int = 10, *, segment: str, ranking: Optional[str] = None) -> Plan[List[Entry]]:
        """The best ``n`` entries of ``segment``. O(log n + n)."""
        return self._board(segment)._plan_top(n, ranking=ranking)

    def _plan_count(self, *, segment: Optional[str] = None) -> Plan[int]:
        """How many players are in ``segment`` (None: in every segment). O(1)."""
        if segment is None:
            return ("hlen", (self._shared_keys[0],), None, int, None)
        return self._board(segment)._plan_count()

    def _plan_global_top(self, n: int = 10, *, ranking: Optional[str] = None) -> Plan[List[Entry]]:
        """The best ``n`` entries over every segment (``n`` at most the board's
        ``global_size``), exactly as one board holding every entry would rank
        them. One script on the global key: O(log global_size + n); when the
        key is stale it is rebuilt first, in the same script."""
        n = count_arg(n, "n")
        if n > self.global_size:
            raise ValueError(f"global_top reads at most the board's global_size={self.global_size} entries, not {n}")
        style = self._style(ranking)
        return self._read("top", n, "o", lambda items: self._reference._entries(items, 0, 1, style, flat=True))

    def _plan_global_rank(self, player: PlayerId, *, ranking: Optional[str] = None,
                          approximate: bool = False) -> Plan[Optional[int]]:
        """A player's 1-based rank over every segment, None if absent.

        Exact by default: the better entries of every segment counted in one
        script (O(S log n) for S segments, plus the entries tied on the
        player's exact score). With ``approximate=True`` (a board made with
        ``bucket_width``): exact within the player's own segment, from the
        points histograms elsewhere -- the entries of other segments in
        strictly better buckets, plus half of those in the player's bucket.
        The answer is off by at most half (rounded up) the players of other
        segments whose points fall in the player's bucket (a bucket is
        ``bucket_width`` points wide); O(log n + B) for B buckets in use."""
        style = self._style(ranking)
        member = player_id(player)
        if not approximate:
            return self._read("global", member, style, _rank_or_none)
        if self.bucket_width is None:
            raise ValueError(f"segmented leaderboard {self.name!r} keeps no histograms: approximate ranks need a "
                             f"board made with bucket_width=")
        return self._read("approx", member, style, _approximate_rank)

    submit = twin(_plan_submit, opens=True)
    remove = twin(_plan_remove, opens=True)
    refresh = twin(_plan_refresh, opens=True)
    segment_of = twin(_plan_segment_of, opens=True)
    score = twin(_plan_score, opens=True)
    rank = twin(_plan_rank, opens=True)
    top = twin(_plan_top, opens=True)
    count = twin(_plan_count, opens=True)
    global_top = twin(_plan_global_top, opens=True)
    global_rank = twin(_plan_global_rank, opens=True)


def _text_or_none(reply: Any) -> Optional[str]:
    return None if reply is None else as_text(reply)


def _rank_in_segment(reply: Any) -> Optional[int]:
    return None if not reply else int(reply[1])


def _rank_or_none(reply: Any) -> Optional[int]:
    return None if not reply else int(reply)


def _approximate_rank(reply: Any) -> Optional[int]:
    return None if not reply else int(reply[0])



class SegmentedLeaderboard(SyncFace, SegmentedBoardPlans):
    """A board split by natural segments (region, league, platform) over a
    sync redis-py style client (``fastrank.Engine``, ``redis.Redis``,
    ``redis.cluster.RedisCluster``).

    ``SegmentedLeaderboard(client, name, segments=("eu", "na", "asia"), *,
    global_size=100, bucket_width=None, order="desc", tiebreak="earliest",
    ranking="ordinal", rule="incr", point_bits=20, time_bits=33, epoch=0, tick="1s")``

    Every key shares the hash tag ``{lb:<name>}``: on a Redis Cluster the
    whole board lives on one node (see :mod:`fastrank.leaderboard.segmented`).
    """


    def _made(self) -> None:
        run(self._client, self._plan_open())

    def open(self) -> "SegmentedLeaderboard":
        """Read the board's stored options and segments again."""
        run(self._client, self._plan_open())
        return self

