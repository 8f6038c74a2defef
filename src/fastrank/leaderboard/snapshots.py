"""Snapshots of a board: frozen, labelled copies to read and compare ranks with.

``board.snapshot("yesterday")`` copies the current season's board (and its
dense companion) in one script (``scripts/snapshot.lua``: ``COPY``) to
``{lb:<name>[:<season>]}:snap:<label>`` and records the label and the time
taken in the hash ``{lb:<name>[:<season>]}:snapshots`` -- all under the
season's hash tag, so the copy is atomic on a Redis Cluster too and sits on
the board's node. A label already used raises :class:`fastrank.SnapshotExists`;
``snapshots()`` lists them, ``drop_snapshot(label)`` deletes one. A season
that expires (``retain=``, ``rollover(archive=)``) takes its snapshots with it.

``board.at_snapshot(label)`` is a read view (:class:`SnapshotView`): ``top``,
``rank``, ``around``, ``score``, ``count`` of the copy, through the board's
own read plans over the copy's keys; ``board.rank_change(player,
since=label)`` is a :class:`RankChange`. An unknown label raises
:class:`fastrank.UnknownSnapshot` (one HEXISTS before each read). Snapshots
are of a plain :class:`fastrank.Leaderboard`; a sharded board has none.
"""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional

from fastrank.leaderboard.parts import tag_part
from fastrank.leaderboard.scorebits import Points
from fastrank.leaderboard.descriptor import bare_script
from fastrank.runner import AsyncFace, Steps, SyncFace, steps, twin

if TYPE_CHECKING:
    from fastrank.leaderboard.board import BoardPlans, Entry, PlayerId

__all__ = ["RankChange", "SnapshotInfo", "SnapshotView", "AsyncSnapshotView", "SNAPSHOT"]

SNAPSHOT = bare_script("snapshot")


class SnapshotInfo(NamedTuple):
    """One snapshot of a board: its ``label`` and when it was ``taken`` (UTC)."""

    label: str
    taken: datetime


class RankChange(NamedTuple):
    """A player's rank ``now`` and ``then`` (at a snapshot), and ``delta``:
    places climbed since (``then - now``: 12 for "up 12", negative for a fall).
    ``now`` or ``then`` is None when the player is absent there, and ``delta``
    is then None too."""

    now: Optional[int]
    then: Optional[int]
    delta: Optional[int]


class SnapshotViewPlans:
    """The reads of one snapshot as plans (no I/O here): each first checks the
    label is known, then runs the board's read plan over the copy's keys."""

    def __init__(self, board: "BoardPlans", label: str) -> None:
        self._board = board
        self._client = board.client
        self.label = tag_part(label, "label")

    @property
    def _opened(self) -> bool:
        return self._board._opened

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._board.name!r}, label={self.label!r})"

    def _reader(self) -> Steps["BoardPlans"]:
        keys = yield from self._board._known_snapshot(self.label)
        return self._board._reading(keys)

    def _plan_top(self, n: int = 10, *, with_info: bool = False,
                  ranking: Optional[str] = None) -> Steps[List["Entry"]]:
        """The best ``n`` entries of the snapshot."""
        reader = yield from self._reader()
        entries: List["Entry"] = yield from steps(reader._plan_top(n, with_info=with_info, ranking=ranking))
        return entries

    def _plan_rank(self, player: "PlayerId", *, ranking: Optional[str] = None) -> Steps[Optional[int]]:
        """A player's rank in the snapshot, None if absent."""
        reader = yield from self._reader()
        rank: Optional[int] = yield from steps(reader._plan_rank(player, ranking=ranking))
        return rank

    def _plan_around(self, player: "PlayerId", radius: int = 5, *, with_info: bool = False,
                     ranking: Optional[str] = None) -> Steps[List["Entry"]]:
        """The snapshot's entries within ``radius`` places of a player (empty if absent)."""
        reader = yield from self._reader()
        entries: List["Entry"] = yield from steps(reader._plan_around(player, radius, with_info=with_info,
                                                                      ranking=ranking))
        return entries

    def _plan_score(self, player: "PlayerId") -> Steps[Optional[Points]]:
        """A player's points in the snapshot, None if absent."""
        reader = yield from self._reader()
        points: Optional[Points] = yield from steps(reader._plan_score(player))
        return points

    def _plan_count(self) -> Steps[int]:
        """How many players the snapshot holds."""
        reader = yield from self._reader()
        count: int = yield from steps(reader._plan_count())
        return count

    top = twin(_plan_top, opens=True)
    rank = twin(_plan_rank, opens=True)
    around = twin(_plan_around, opens=True)
    score = twin(_plan_score, opens=True)
    count = twin(_plan_count, opens=True)


class SnapshotView(SyncFace, SnapshotViewPlans):
    """``Leaderboard.at_snapshot(label)``: the reads of a snapshot, on a sync client."""


class AsyncSnapshotView(AsyncFace, SnapshotViewPlans):
    """``fastrank.asyncio.Leaderboard.at_snapshot(label)``: the reads of a snapshot as coroutines."""

    async def _opening(self) -> None:
        opening: Any = getattr(self._board, "_opening")
        await opening()

