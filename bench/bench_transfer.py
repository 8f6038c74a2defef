"""Import and export of scores, rows per second each way, and a round trip.

    python bench/bench_transfer.py [--rows 1000000] [--format csv|jsonl|both]

On the in-process Engine with a SQLite store in a temporary folder: writes
``--rows`` random rows (one match per player) to a file, imports them
through a ScoreService (fastrank.service.transfer.import_rows, 1,000 rows a
transaction), exports the board's standings and the store's events back to
files, imports the events file into a second board, and checks that the
two boards are equal. Prints rows per second for each step.
"""
from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

import fastrank
from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.service.transfer import (BOARD_FIELDS, EVENT_FIELDS, export_board, export_events, import_rows,
                                       read_rows, write_rows)

T0 = 1_790_000_000


def timed(label: str, rows: int, fn):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - started
    print(f"  {label:<34} {rows:>9,} rows {seconds:8.2f} s {rows / seconds:>11,.0f} rows/s", flush=True)
    return result


def run(rows: int, fmt: str, folder: str) -> None:
    print(f"{fmt}:")
    rnd = random.Random(1)
    source = os.path.join(folder, f"in.{fmt}")
    with open(source, "w") as out:
        write_rows(({"match_id": f"m{i}", "player": f"p{i}", "points": rnd.randrange(1, 10**6), "at": T0 + i}
                    for i in range(rows)), out, fmt, ("match_id", "player", "points", "at"))
    engine = fastrank.Engine()
    board = Leaderboard(engine, "a", season="s")
    service = ScoreService(board, SQLiteStore(os.path.join(folder, f"a-{fmt}.db")))
    with open(source) as f:
        result = timed("import (through the service)", rows, lambda: import_rows(service, read_rows(f, fmt)))
    assert result.recorded == rows
    with open(os.path.join(folder, f"board.{fmt}"), "w") as out:
        timed("export board", rows, lambda: write_rows(export_board(board), out, fmt, BOARD_FIELDS))
    events = os.path.join(folder, f"events.{fmt}")
    with open(events, "w") as out:
        timed("export events", rows, lambda: write_rows(export_events(service.store), out, fmt, EVENT_FIELDS))
    copy_board = Leaderboard(engine, "b", season="s")
    copy = ScoreService(copy_board, SQLiteStore(os.path.join(folder, f"b-{fmt}.db")))
    with open(events) as f:
        timed("import events into a second board", rows, lambda: import_rows(copy, read_rows(f, fmt)))
    same = list(board.iter(10_000)) == list(copy_board.iter(10_000))
    print(f"  round trip equal: {same}")
    assert same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--format", choices=["csv", "jsonl", "both"], default="both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for fmt in (["csv", "jsonl"] if args.format == "both" else [args.format]):
            run(args.rows, fmt, folder)


if __name__ == "__main__":
    main()
