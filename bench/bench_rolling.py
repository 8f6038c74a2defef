"""RollingLeaderboard: what a window refresh costs at a million players.

    python bench/bench_rolling.py [--players 1000000] [--per-player 3] [--rounds 3]

Fills a 7-day window of 168 hourly slices (and a 1-day window of 24) with
``--players`` players, each in ``--per-player`` random slices, on the
in-process Engine and on a local Redis (started here), then times, in
alternating rounds on both backends:

- ``refresh()``: the ZUNIONSTORE of every slice into the window (SUM);
- ``top(10)`` on a window fresh enough to skip the refresh (the freshness
  check -- one script naming every slice key -- plus the read);
- ``top(10)`` of a plain ``Leaderboard`` of as many players, for scale.

The slices are loaded with ZADD in pipelines (the scores ``submit`` writes on
a board without tie-break are the points themselves), which is what a week
of submits leaves behind. Prints milliseconds (refresh) and microseconds
(reads) per call: the median and the range over the rounds.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

import fastrank
from fastrank import Leaderboard, RollingLeaderboard
from fastrank.testing import free_port, start_redis

NOW = 1_800_000_000.0
HOUR = 3600


def fill(client: Any, board: RollingLeaderboard, players: int, per_player: int, batch: int = 10_000) -> int:
    """Write every slice of the window now (ZADD in pipelines); the number of slice entries."""
    rnd = random.Random(1)
    slices = board.window_slices(NOW)
    by_slice: Dict[int, Dict[str, int]] = {n: {} for n in slices}
    for i in range(players):
        for n in rnd.sample(slices, per_player):
            by_slice[n][f"player:{i}"] = rnd.randrange(1, 1000)
    entries = 0
    for n, members in by_slice.items():
        key = f"{{lb:{board.name}}}:slice:{n}"
        items = list(members.items())
        for start in range(0, len(items), batch):
            pipe = client.pipeline(transaction=False)
            pipe.zadd(key, dict(items[start:start + batch]))
            pipe.execute()
        entries += len(items)
    return entries


def timed(fn: Callable[[], Any], repeat: int) -> float:
    t = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t) / repeat


def setup(client: Any, label: str, window: str, players: int, per_player: int) -> Tuple[RollingLeaderboard, int]:
    board = RollingLeaderboard(client, f"roll-{label}-{window}", window=window, granularity="1h",
                               max_age=10 ** 9, clock=lambda: NOW)
    return board, fill(client, board, players, per_player)


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1_000_000)
    ap.add_argument("--per-player", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reads", type=int, default=2000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        server = start_redis(free_port(), root)
        try:
            clients = {"Engine": fastrank.Engine(), "Redis": server.client(socket_timeout=600)}
            boards: Dict[Tuple[str, str], RollingLeaderboard] = {}
            plain: Dict[str, Leaderboard] = {}
            for backend, client in clients.items():
                for window in ("7d", "1d"):
                    t = time.perf_counter()
                    board, entries = setup(client, backend[0], window, args.players, args.per_player)
                    boards[backend, window] = board
                    print(f"# {backend} {window}: {board.window // board.granularity} slices, "
                          f"{entries:,} slice entries, loaded in {time.perf_counter() - t:.0f} s", flush=True)
                plain[backend] = Leaderboard(client, f"plain-{backend}", tiebreak=None)
                rnd = random.Random(3)
                for start in range(0, args.players, 10_000):
                    plain[backend].submit_many({f"player:{i}": rnd.randrange(1, 3000)
                                                for i in range(start, min(args.players, start + 10_000))})
            samples: Dict[Tuple[str, str], List[float]] = {}
            for _ in range(args.rounds):  # alternate the backends, round after round
                for backend in clients:
                    for window in ("7d", "1d"):
                        board = boards[backend, window]
                        samples.setdefault((backend, f"refresh() {window}"), []).append(
                            timed(board.refresh, 1) * 1e3)
                        print(f"# {backend} refresh() {window}: {samples[backend, f'refresh() {window}'][-1]:.0f} ms",
                              flush=True)
                        samples.setdefault((backend, f"top(10) fresh window {window}"), []).append(
                            timed(lambda: board.top(10), args.reads) * 1e6)
                    samples.setdefault((backend, "top(10) plain board"), []).append(
                        timed(lambda: plain[backend].top(10), args.reads) * 1e6)
            print(f"\n{args.players:,} players, {args.per_player} slices each, {args.rounds} rounds "
                  f"(median, range)\n")
            print("| backend | operation | median | range |\n|---|---|---|---|")
            for (backend, op), values in samples.items():
                unit = "ms" if op.startswith("refresh") else "µs"
                print(f"| {backend} | {op} | {statistics.median(values):.1f} {unit} | "
                      f"{min(values):.1f}-{max(values):.1f} {unit} |")
            windows = {w: boards["Redis", w].count() for w in ("7d", "1d")}
            assert all(boards["Engine", w].count() == n for w, n in windows.items()), "the backends disagree"
            print(f"\nplayers in the window: {windows}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
