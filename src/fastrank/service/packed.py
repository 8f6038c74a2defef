"""A season's totals as packed columns, read by SQLite's C API, in score order.

What ``ScoreService.rebuild`` loads from a ``SQLiteStore`` file when the
compiled reader (``fastrank.service._totals``) can bind to the SQLite library that
Python's ``sqlite3`` module loaded. For the boards whose order the ranking
index gives when walked backwards (a tie-break board whose tick is mirrored
-- the default, descending with the earliest first -- and boards without a
tie-break) ``open_score_scan`` reads it chunk by chunk already in score order
(``ScoreOrderScan``), so the rebuild writes one chunk while the next is read.
For the others ``read_packed`` reads the whole season: the totals table is
stepped in player order by a few threads at once (one range of players
each, each on a connection of its own, without the GIL), straight into one bytes blob of
player ids plus numeric columns, with no Python object per row. The rows
are then put into a sorted set's order with one stable sort of the encoded
scores (the rows come in player order, so equal scores stay in member
order) and handed to the board as ``ZaddPacked`` chunks. When the reader
is not available (no such library, an in-memory database) or SQLite refuses
it, both answer None and the caller keeps its ``sqlite3`` path.
"""
from __future__ import annotations

import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

import numpy as np
import numpy.typing as npt

from fastrank.service.columns import ZaddPacked
from fastrank.leaderboard.scorebits import ScoreCodec
from fastrank.service._totals import (ScoreOrderScan, TotalsScanError, gather_members, scan_error, scan_totals,
                              ties_in_member_order)

if TYPE_CHECKING:
    from fastrank.service.sqlite import SQLiteStore

__all__ = ["BoardOrder", "PackedTotals", "ReadAhead", "board_order", "open_score_scan", "read_packed"]

#: Chunks a ReadAhead reads before the board has taken them.
READ_AHEAD = 4


class PackedTotals(NamedTuple):
    """A season's totals as of one event id, in player order: the player of
    row r is ``blob[offsets[r]:offsets[r + 1]]`` (UTF-8), with ``points[r]``
    reached at ``ats[r]``; ``rows`` lists the rows that exist as of that
    event (a player whose events all came later is left out)."""

    blob: bytes
    offsets: npt.NDArray[np.int64]
    points: npt.NDArray[np.int64]
    ats: npt.NDArray[np.float64]
    rows: npt.NDArray[np.int64]


class BoardOrder(NamedTuple):
    """Packed totals in a sorted set's order (encoded score, then member):
    member k is ``blob[offsets[k]:offsets[k + 1]]``, its encoded score
    ``scores[k]``; ``positions`` is ``arange(len(scores))``, the rows of the
    chunks."""

    blob: bytes
    offsets: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float64]
    positions: npt.NDArray[np.int64]

    def chunk(self, start: int, stop: int) -> ZaddPacked:
        """The ZADD mapping of positions [start, stop). O(1)."""
        return ZaddPacked(self.blob, self.offsets, self.positions[start:stop], self.scores[start:stop])


def _readable(store: SQLiteStore) -> bool:
    """True when the compiled reader can open this store's file on a connection of its own."""
    return scan_error() is None and store.path not in ("", ":memory:") and not store.path.startswith("file:")


def _busy_ms(store: SQLiteStore) -> int:
    return int(min(store.busy_timeout, 2_000_000.0) * 1000)


def open_score_scan(store: SQLiteStore, season: str, upto: int, codec: ScoreCodec, *,
                    board: str = "") -> Optional[ScoreOrderScan]:
    """The ranking-index scan of ``season`` of ``board`` as of event ``upto`` in the order
    of a board encoded by ``codec``, or None: no compiled reader, a board
    whose order the index does not give (a tie-break whose tick is not
    mirrored), or SQLite refused it (no ranking index in an old file). The
    caller closes it. O(log n + k) to open, k the players changed after
    ``upto``."""
    if not _readable(store) or (codec.integer and not codec.mirrored):
        return None
    try:
        return ScoreOrderScan(store.path, season, upto, codec.integer, codec.mirrored, codec.time_bits,
                              _busy_ms(store), board)
    except TotalsScanError:
        return None


class ReadAhead:
    """A ``ScoreOrderScan`` read by a thread of its own, up to ``depth``
    chunks ahead of the caller: ``get()`` returns the chunks in order, None
    at the end, and raises what the reading raised; ``close()`` stops the
    thread and closes the scan (always call it). The scan's reading runs
    without the GIL, so the caller's work on one chunk overlaps the reading
    of the next ones."""

    def __init__(self, scan: ScoreOrderScan, batch: int, depth: int = READ_AHEAD) -> None:
        self._scan = scan
        self._chunks: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(batch,), name="fastrank-rebuild", daemon=True)
        self._thread.start()

    def _read(self, batch: int) -> None:
        try:
            while not self._stop.is_set():
                chunk = self._scan.next_chunk(batch)
                self._chunks.put(chunk)
                if chunk is None:
                    return
        except BaseException as exc:  # handed to the caller's get()
            self._chunks.put(exc)

    def get(self) -> Any:
        """The next chunk (``ScoreOrderScan.next_chunk``'s tuple), or None at the end."""
        item = self._chunks.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def changed(self) -> list[str]:
        """``ScoreOrderScan.changed()``."""
        return self._scan.changed()

    def close(self) -> None:
        """Stop reading (the thread ends after the chunk it reads), then close the scan."""
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._chunks.get(timeout=0.05)  # make room, so a blocked put returns
            except queue.Empty:
                pass
        self._scan.close()


def read_packed(store: SQLiteStore, season: str, upto: int, parts: int, *,
                board: str = "") -> Optional[PackedTotals]:
    """Every total of ``season`` of ``board`` as of event ``upto`` (exact as ``totals_upto``
    pages are: a row changed after ``upto`` is summed again from its events
    up to ``upto``), read by ``parts`` threads side by side; None when the
    compiled reader cannot read this store. O(n) (the few changed rows:
    one query each)."""
    if not _readable(store):
        return None
    cuts = store.totals_splits(season, parts, board=board)
    ranges = list(zip(["", *cuts], [*cuts, None]))
    busy_ms = _busy_ms(store)
    try:
        with ThreadPoolExecutor(max_workers=len(ranges), thread_name_prefix="fastrank-rebuild") as readers:
            parts_read = [r.result() for r in [readers.submit(scan_totals, store.path, season, upto, after, until,
                                                              busy_ms, board) for after, until in ranges]]
    except TotalsScanError:
        return None
    blob = b"".join(p[0] for p in parts_read)
    offsets = [np.zeros(1, np.int64)]
    stale = []
    base_bytes = base_rows = 0
    for part_blob, part_offsets, _, _, part_stale in parts_read:
        offsets.append(part_offsets[1:] + base_bytes)
        stale.append(part_stale + base_rows)
        base_bytes += len(part_blob)
        base_rows += len(part_offsets) - 1
    packed = PackedTotals(blob, np.concatenate(offsets), np.concatenate([p[2] for p in parts_read]),
                          np.concatenate([p[3] for p in parts_read]), np.arange(base_rows, dtype=np.int64))
    changed = np.concatenate(stale)
    if not len(changed):
        return packed
    gone = []
    for row in changed.tolist():
        player = blob[packed.offsets[row]:packed.offsets[row + 1]].decode()
        total = store.total_upto(season, player, upto, board=board)
        if total is None:
            gone.append(row)
        else:
            packed.points[row], packed.ats[row] = total.points, total.at
    return packed._replace(rows=np.delete(packed.rows, gone)) if gone else packed


def board_order(packed: PackedTotals, codec: ScoreCodec) -> BoardOrder:
    """The rows of ``packed`` in a sorted set's order under ``codec`` (scores
    encoded as the board stores them). The rows come in player order (the
    store's BINARY order of UTF-8 text, which is a sorted set's member
    order), so one stable sort by score leaves equal scores in member order;
    that is checked, and the few ties out of order (another text encoding in
    the file) are sorted by member. The members are then copied into that
    order (one pass), so the ZADDs read them front to back. O(n log n) in
    numpy."""
    rows = packed.rows
    points = packed.points[rows]
    seconds = (np.floor(np.clip(packed.ats[rows], -4e18, 4e18)).astype(np.int64) if codec.integer else None)
    encoded = codec.encode_columns(points, seconds)
    order = np.argsort(encoded, kind="stable")
    ranked_rows, ranked = rows[order], encoded[order]
    if not ties_in_member_order(packed.blob, packed.offsets, ranked_rows, ranked):
        blob, offsets = packed.blob, packed.offsets
        pairs = sorted(zip(ranked.tolist(), ranked_rows.tolist()),
                       key=lambda p: (p[0], blob[offsets[p[1]]:offsets[p[1] + 1]]))
        ranked = np.array([p[0] for p in pairs], dtype=np.float64)
        ranked_rows = np.array([p[1] for p in pairs], dtype=np.int64)
    blob, offsets = gather_members(packed.blob, packed.offsets, ranked_rows)
    return BoardOrder(blob, offsets, ranked, np.arange(len(ranked), dtype=np.int64))
