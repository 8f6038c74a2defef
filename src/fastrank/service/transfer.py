"""Moving scores in and out: a board's standings or the store's events as
CSV or JSON Lines, and an import through the service.

Rows are plain dicts, streamed (an iterator in, an iterator out), so a
million rows never sit in memory at once:

- :func:`export_board`: ``rank, player, points`` in rank order (one season;
  no times, so an import orders ties by import, not by the original times);
- :func:`export_events`: the store's log, ``id, kind, season, match_id,
  player, points, at, tombstoned``;
- :func:`import_rows`: rows with ``player`` and ``points`` (and optionally
  ``match_id`` and ``at``) submitted through a :class:`ScoreService` in
  batches. A row without ``match_id`` gets ``import:<player>``, so a
  standings file imports as one match per player. The service's idempotency
  makes an import safe to run twice: the second run records nothing. An
  events file carries each score's time, so it imports with ties intact;
  its corrections and tombstoned scores are skipped (what they removed stays
  removed);
- :func:`write_rows` / :func:`read_rows`: the two file formats.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Dict, List, Optional

__all__ = ["BOARD_FIELDS", "EVENT_FIELDS", "FORMATS", "ImportResult", "export_board", "export_events",
           "import_rows", "read_rows", "write_rows"]

FORMATS = ("csv", "jsonl")
BOARD_FIELDS = ("rank", "player", "points")
EVENT_FIELDS = ("id", "kind", "season", "match_id", "player", "points", "at", "tombstoned")

Row = Dict[str, Any]


def export_board(board: Any, season: Optional[str] = None, batch: int = 10_000) -> Iterator[Row]:
    """A board's entries in rank order (its ranking style), as rows of :data:`BOARD_FIELDS`."""
    for entry in board.iter(batch, season=season):
        yield {"rank": entry.rank, "player": entry.player, "points": entry.points}


def export_events(store: Any, season: Optional[str] = None, batch: int = 10_000, *,
                  board: str = "") -> Iterator[Row]:
    """The store's events of ``board`` (the store keys its rows by board: a
    service's ``board_key``) in log order (one season, or all), as rows of
    :data:`EVENT_FIELDS`."""
    after = 0
    while True:
        events = store.events_after(after, batch, board=board)
        if not events:
            return
        for e in events:
            if season is None or e.season == season:
                yield {"id": e.id, "kind": e.kind, "season": e.season, "match_id": e.match_id,
                       "player": e.player, "points": e.points, "at": e.at, "tombstoned": e.tombstoned}
        after = events[-1].id


@dataclass(frozen=True)
class ImportResult:
    """Rows read, and how many of them the store recorded for the first time."""

    rows: int
    recorded: int


def _match(row: Row, line: int) -> tuple[str, Dict[str, int], Any]:
    try:
        player = str(row["player"])
        raw = row["points"]
    except KeyError as missing:
        raise ValueError(f"row {line}: no {missing.args[0]!r} column") from None
    if isinstance(raw, str):
        try:
            points = int(raw)
        except ValueError:
            raise ValueError(f"row {line}: points must be an integer, not {raw!r}") from None
    elif type(raw) is int:
        points = raw
    else:
        raise ValueError(f"row {line}: points must be an integer, not {raw!r}")
    match_id = row.get("match_id") or f"import:{player}"
    at = row.get("at")
    at = float(at) if at not in (None, "") else None
    return str(match_id), {player: points}, at


def import_rows(service: Any, rows: Iterable[Row], *, batch: int = 1000,
                progress: Optional[Callable[[int], Any]] = None) -> ImportResult:
    """Submit every row through ``service`` (``submit_matches``, ``batch`` rows
    a transaction). A bad row raises ``ValueError`` naming it before its
    batch is written; batches before it stay recorded, and running the
    import again after fixing the file records only what is missing."""
    total = recorded = 0
    pending: List[tuple[str, Dict[str, int], Any]] = []

    def flush() -> int:
        receipts = service.submit_matches(pending)
        first = {(r.match_id, r.player) for match in receipts for r in match if r.event_id > high}
        pending.clear()
        return len(first)

    high = service.store.last_event_id()
    for total, row in enumerate(rows, 1):
        if row.get("kind", "score") != "score" or str(row.get("tombstoned", "")).lower() in ("true", "1"):
            continue                                # a correction, a tombstoned score: not a score to carry
        pending.append(_match(row, total))
        if len(pending) >= batch:
            recorded += flush()
            high = service.store.last_event_id()
            if progress is not None:
                progress(total)
    if pending:
        recorded += flush()
    if progress is not None:
        progress(total)
    return ImportResult(total, recorded)


def write_rows(rows: Iterable[Row], out: IO[str], fmt: str, fields: Iterable[str]) -> int:
    """Write rows to a text stream as CSV (with a header) or JSON Lines; how many."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    count = 0
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=list(fields), lineterminator="\n")
        writer.writeheader()
        for count, row in enumerate(rows, 1):
            writer.writerow(row)
    else:
        for count, row in enumerate(rows, 1):
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
    return count


def read_rows(source: IO[str], fmt: str) -> Iterator[Row]:
    """Rows from a text stream of CSV (header first) or JSON Lines (blank lines skipped)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    if fmt == "csv":
        yield from csv.DictReader(source)
        return
    for number, line in enumerate(source, 1):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"line {number}: not JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"line {number}: a row must be a JSON object")
            yield row


