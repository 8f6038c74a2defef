"""The store's review queue: held and flagged scores and the decisions on them.

A mixin of ``SQLStore`` (it uses the store's transaction and row helpers).
``record_matches(..., reviews=...)`` files each held or flagged event here
with its reasons. A *held* event is in the log as kind ``"held"``: it counts
for nothing and no applier applies it. A *flagged* one is a normal score,
listed for a look.

- :meth:`approve`: a held event becomes a score (exactly once: a second
  approve finds nothing open), the player's total is recomputed with it and
  logged as a correction, which the applier writes to the board; a flagged
  one is just marked approved.
- :meth:`reject_flag`: a held event is tombstoned (it never counted); a
  flagged one is tombstoned and the player's total recomputed without it,
  logged as a correction.

Every decision keeps who took it and when (``decided_by``, ``decided_at``).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, List, NamedTuple, Optional

__all__ = ["Flag", "ReviewQueue", "REVIEW_STATUSES"]

#: A queue row's status: open (``held``, ``flagged``) or decided.
REVIEW_STATUSES = ("held", "flagged", "approved", "rejected")


class Flag(NamedTuple):
    """One row of the review queue, with its event."""

    event_id: int
    season: str
    match_id: Optional[str]
    player: str
    points: int
    at: float
    status: str
    reasons: tuple[str, ...]
    decided_by: Optional[str]
    decided_at: Optional[float]


_FLAG_QUERY = ("SELECT r.event_id, e.season, e.match_id, e.player, e.points, e.at, r.status, r.reasons, "
               "r.decided_by, r.decided_at FROM reviews r JOIN events e ON e.id = r.event_id "
               "WHERE r.board = ?")


def _flag(row: tuple[Any, ...]) -> Flag:
    return Flag(int(row[0]), row[1], row[2], row[3], int(row[4]), float(row[5]), row[6],
                tuple(row[7].split("\n")) if row[7] else (), row[8],
                None if row[9] is None else float(row[9]))


class ReviewQueue:
    """The review queue's methods over the store's tables (see the module docstring)."""

    if TYPE_CHECKING:  # what the store provides
        def _write(self) -> Any: ...
        def _read(self, text: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...
        def _sql(self, text: str) -> str: ...
        def _correct(self, cur: Any, board: str, season: str, player: str) -> Any: ...
        def _upsert_total(self, cur: Any, board: str, season: str, player: str, points: int, at: float,
                          event_id: int, max_total: int | None) -> None: ...

    def _queue(self, cur: Any, board: str, event_id: int, status: str, reasons: Sequence[str]) -> None:
        if status not in ("held", "flagged"):
            raise ValueError(f"a review's status is 'held' or 'flagged', not {status!r}")
        cur.execute(self._sql("INSERT INTO reviews (event_id, board, status, reasons) VALUES (?, ?, ?, ?)"),
                    (event_id, board, status, "\n".join(str(r) for r in reasons)))

    def flags(self, status: Optional[str] = None, *, board: str = "") -> List[Flag]:
        """The queue of ``board`` in event order: every row, or those of one status
        (``"held"``, ``"flagged"``, ``"approved"``, ``"rejected"``)."""
        if status is None:
            rows = self._read(_FLAG_QUERY + " ORDER BY r.event_id", (board,))
        elif status in REVIEW_STATUSES:
            rows = self._read(_FLAG_QUERY + " AND r.status = ? ORDER BY r.event_id", (board, status))
        else:
            raise ValueError(f"status must be one of {REVIEW_STATUSES} or None, not {status!r}")
        return [_flag(r) for r in rows]

    def _open_flag(self, cur: Any, board: str, event_id: int) -> Optional[Flag]:
        cur.execute(self._sql(_FLAG_QUERY + " AND r.event_id = ?"), (board, event_id))
        row = cur.fetchone()
        if row is None:
            return None
        flag = _flag(row)
        return flag if flag.status in ("held", "flagged") else None

    def _decide(self, cur: Any, flag: Flag, status: str, by: str) -> Flag:
        now = time.time()
        cur.execute(self._sql("UPDATE reviews SET status = ?, decided_by = ?, decided_at = ? WHERE event_id = ?"),
                    (status, by, now, flag.event_id))
        return flag._replace(status=status, decided_by=by, decided_at=now)

    def approve(self, event_id: int, *, by: str = "", board: str = "",
                max_total: Optional[int] = None) -> Optional[Flag]:
        """Approve an open queue row of ``board``: a held score starts to count
        (its player's total recomputed and logged as a correction); a flagged
        one is marked approved. The row as decided, or None when there is no
        open row for ``event_id`` (unknown, or decided before: approving twice
        changes nothing).

        :raises CeilingExceeded: the total would pass ``max_total``; nothing changed.
        """
        with self._write() as cur:
            flag = self._open_flag(cur, board, event_id)
            if flag is None:
                return None
            if flag.status == "held":
                cur.execute(self._sql("UPDATE events SET kind = 'score' WHERE id = ?"), (event_id,))
                self._upsert_total(cur, board, flag.season, flag.player, flag.points, flag.at, event_id,
                                   max_total)
                self._correct(cur, board, flag.season, flag.player)
            return self._decide(cur, flag, "approved", by)

    def reject_flag(self, event_id: int, *, by: str = "", board: str = "") -> Optional[Flag]:
        """Reject an open queue row of ``board``: the event is tombstoned; a
        flagged score's player gets their total recomputed without it
        (logged as a correction). The row as decided, or None when there is
        no open row for ``event_id``."""
        with self._write() as cur:
            flag = self._open_flag(cur, board, event_id)
            if flag is None:
                return None
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE id = ?"), (event_id,))
            if flag.status == "flagged":
                self._correct(cur, board, flag.season, flag.player)
            return self._decide(cur, flag, "rejected", by)
