"""ScoreService.rebuild: players per second from a SQLite store into a board.

    python bench/bench_service.py [--players 1000000] [--ranking ordinal] [--tiebreak earliest]

Fills a SQLite store with one score event per player (written with one
executemany, as a season's log would be after play), then rebuilds the
board from it into the in-process Engine and into a local Redis through
redis-py (a throwaway redis-server on loopback), and prints players/s for
each, with the time split into its phases: reading the store (the reader
threads: the compiled reader of the file, or the sqlite3-module pages with
their encoding), the sort into score order (the compiled reader's), the
ZADDs, and the rest (the fallback's sort and gathers, the chunks, the flags,
the waits for the reader). The default board reads the ranking index in
score order on a reader thread while the ZADDs run (``ScoreOrderScan``): its
reading overlaps the ZADDs, so the phases add up to more than the rebuild
and the wall time the reading costs shows in the rest, as waits. Also times ``submit`` (record + apply) per match
on both boards. The load average is printed: other work on the machine
slows every phase.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any, Dict, List

import fastrank
import fastrank.service.service as service_module
from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.testing import free_port, start_redis

T0 = 1_790_000_000


def fill(path: str, players: int) -> None:
    store = SQLiteStore(path)
    rows = [(f"player:{i}", (i * 7919) % 100_000, float(T0 + i % 86_400)) for i in range(players)]
    with store._write() as cur:  # bulk set-up of the benchmark's log, not a service path
        cur.executemany("INSERT INTO events (board, kind, season, match_id, player, points, at, recorded_at, day, "
                        "tombstoned) VALUES ('bench', 'score', 's', 'bulk:' || ?, ?, ?, ?, ?, 0, FALSE)",
                        [(p, p, pts, at, at) for p, pts, at in rows])
        cur.executemany("INSERT INTO totals (board, season, player, points, at, last_id) "
                        "VALUES ('bench', 's', ?, ?, ?, 1)", rows)
    store.close()


def timed(owner: Any, name: str, spent: List[float]) -> Any:
    """Wrap owner.name so that its wall time adds up in spent[0]; returns the original."""
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t

    setattr(owner, name, wrapper)
    return original


class TimedScan:
    """A ScoreOrderScan whose next_chunk adds its wall time (on the reader thread) to spent[0]."""

    def __init__(self, scan: Any, spent: List[float]) -> None:
        self.scan, self.spent = scan, spent
        self.changed, self.close = scan.changed, scan.close

    def next_chunk(self, batch: int) -> Any:
        t = time.perf_counter()
        try:
            return self.scan.next_chunk(batch)
        finally:
            self.spent[0] += time.perf_counter() - t


def rebuild(client: Any, path: str, ranking: str, tiebreak: Any) -> Dict[str, float]:
    store = SQLiteStore(path)
    board = Leaderboard(client, "bench", season="s", ranking=ranking, tiebreak=tiebreak)
    service = ScoreService(board, store)
    reading, sorting, writing = [0.0], [0.0], [0.0]
    timed(service, "_read_totals", reading)  # the sqlite3-module path: pages read and encoded
    timed(store, "packed_totals", reading)   # the compiled reader of the file
    open_scan = store.score_order_scan       # the compiled reader of the ranking index, chunk by chunk
    scanned = [False]

    def timed_scan(*args: Any, **kwargs: Any) -> Any:
        scan = open_scan(*args, **kwargs)
        scanned[0] = scan is not None
        return scan and TimedScan(scan, reading)

    store.score_order_scan = timed_scan
    original_order = timed(service_module, "board_order", sorting)
    original_zadd = timed(client, "zadd", writing)
    t0 = time.perf_counter()
    players = service.rebuild()
    took = time.perf_counter() - t0
    client.zadd = original_zadd
    service_module.board_order = original_order
    assert board.count() == players
    t1 = time.perf_counter()
    for i in range(200):
        service.submit(f"live:{i}", f"player:{i}", 1, at=T0 + 100_000 + i)
    per_submit = (time.perf_counter() - t1) / 200
    store.close()
    return {"players": players, "seconds": took, "reading": reading[0], "sorting": sorting[0],
            "writing": writing[0], "submit_us": per_submit * 1e6, "overlapped": scanned[0]}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1_000_000)
    ap.add_argument("--ranking", default="ordinal", choices=["ordinal", "competition", "dense"])
    ap.add_argument("--tiebreak", default="earliest", choices=["earliest", "latest", "none"],
                    help="the board's tie-break (latest: the whole-table read and sort, not the index scan)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        path = os.path.join(root, "scores.db")
        t = time.perf_counter()
        fill(path, args.players)
        print(f"store filled with {args.players:,} players in {time.perf_counter() - t:.1f} s")
        tiebreak = None if args.tiebreak == "none" else args.tiebreak
        rows = [("fastrank.Engine", rebuild(fastrank.Engine(), path, args.ranking, tiebreak))]
        server = start_redis(free_port(), root)
        try:
            rows.append(("Redis via redis-py (loopback)", rebuild(server.client(), path, args.ranking, tiebreak)))
        finally:
            server.stop()
    print(f"\nfastrank {fastrank.__version__}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}; {args.players:,} players, ranking={args.ranking}, tiebreak={args.tiebreak}\n")
    print("| board | rebuild players/s | reading the store | sort into score order | ZADDs | the rest | "
          "submit (record + apply) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in rows:
        # Read on a thread beside the ZADDs: the reading is not part of the sum; the rest holds the waits.
        rest = r["seconds"] - r["sorting"] - r["writing"] - (0.0 if r["overlapped"] else r["reading"])
        reading = f"{r['reading']:.2f} s" + (" (beside the ZADDs)" if r["overlapped"] else "")
        print(f"| {name} | {r['players'] / r['seconds']:,.0f} | {reading} | {r['sorting']:.2f} s | "
              f"{r['writing']:.2f} s | {rest:.2f} s | {r['submit_us']:,.0f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
