"""The ``fastrank`` command.

``fastrank demo`` plays a season through :class:`fastrank.ScoreService` on the
embedded defaults: every match result is recorded in a SQLite file first (the
record of truth), then applied exactly once to a dense-ranked
:class:`fastrank.Leaderboard` over the in-process engine, ties going to whoever
reached the total first. The board then answers what a game asks (the top 10
with dense ranks beside ordinal ones, one player's rank in each style, the
players around them), a retried submission changes nothing, and a restarted
engine rebuilds the board from the store with a progress bar.

``fastrank apply`` and ``fastrank rebuild`` run the score service's applier
and rebuild (``fastrank.service_cli``).

``fastrank bench`` runs the side-by-side comparison of ``fastrank.bench``
(fastrank vs redis-py, sortedcontainers, fakeredis and the sketch libraries)
at several board sizes, prints the table, writes it as Markdown and JSON, and
with ``--plot`` draws it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Optional, Sequence, TextIO

import numpy as np

from fastrank.bench import runner as benchmark
from fastrank.progress import Progress
from fastrank import service_cli

SEASON_START = 1_790_000_000  # seconds since the epoch: the season's first match (Sep 2026)


def demo(players: int, matches: int, seed: int, store_path: Optional[str] = None,
         out: TextIO = sys.stdout) -> None:
    """Play one simulated season through the score service: every result is
    recorded in a SQLite file first, then applied to a dense-ranked Leaderboard
    over fastrank.Engine; then the engine "restarts" and rebuilds the board."""
    from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService

    folder = None
    if store_path is None:
        folder = tempfile.mkdtemp(prefix="fastrank-demo-")
        store_path = os.path.join(folder, "scores.db")
    store = SQLiteStore(store_path)
    try:
        _season(players, matches, seed, store, out)
    finally:
        store.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def _board(engine: Any) -> Any:
    from fastrank import Leaderboard

    return Leaderboard(engine, "demo", season="2026", ranking="dense", tiebreak="earliest")


def _season(players: int, matches: int, seed: int, store: Any, out: TextIO) -> None:
    from fastrank import Engine, ScoreService

    board = _board(Engine())
    service = ScoreService(board, store, max_points_per_match=100)
    rng = np.random.default_rng(seed)
    ids = (np.arange(1, players + 1, dtype=np.int64) + 100_000_000).tolist()
    print(f"fastrank demo: {players:,} players, {matches:,} matches through the score service: each "
          f"result is recorded in {store.path} first, then applied to a dense-ranked Leaderboard "
          f"over the in-process engine (ties: earliest first)\n", file=out)

    # Skill decides who wins more often: a match between a and b is won by the
    # stronger one with probability 2/3; the winner scores 5-29, the loser 1.
    skill = rng.random(players)
    a = rng.integers(0, players, size=matches)
    b = rng.integers(0, players, size=matches)
    b = np.where(a == b, (b + 1) % players, b) if players > 1 else b
    stronger_wins = rng.random(matches) < 2 / 3
    a_wins = (skill[a] >= skill[b]) == stronger_wins
    winners = np.where(a_wins, a, b).tolist()
    losers = np.where(a_wins, b, a).tolist()
    points = rng.integers(5, 30, size=matches).tolist()

    chunk = 2_000  # matches per store transaction
    bar = Progress(matches, "matches played  ")
    t0 = time.perf_counter()
    for start in range(0, matches, chunk):
        batch = []
        for i in range(start, min(matches, start + chunk)):
            result = {ids[winners[i]]: points[i]}
            if losers[i] != winners[i]:
                result[ids[losers[i]]] = 1
            batch.append((f"match:{i}", result, SEASON_START + 60 * i))
        service.submit_matches(batch)
        bar.update(min(matches, start + chunk))
    bar.close()
    played = time.perf_counter() - t0
    if matches:
        print(f"played: {matches:,} matches in {played:.2f} s ({matches / played:,.0f} matches/s: "
              f"recorded {chunk:,} to a transaction, then applied exactly once)\n", file=out)
    if not board.count():
        return

    ordinal = board.top(10, ranking="ordinal")
    dense = board.top(10)
    print("top 10 (ordinal rank, dense rank):", file=out)
    for o, d in zip(ordinal, dense):
        print(f"  {o.rank:>3}. {d.rank:>3}.  player {o.player:<10} {o.points:>7,}", file=out)

    me = ids[winners[int(rng.integers(0, max(matches, 1)))]]
    ranks = {style: board.rank(me, ranking=style) for style in ("ordinal", "competition", "dense")}
    print(f"\nplayer {me}: {board.score(me):,} points; rank {ranks['ordinal']:,} ordinal, "
          f"{ranks['competition']:,} competition, {ranks['dense']:,} dense of {board.count():,} "
          f"({board.bucket(me)}, better than {board.percentile(me):.1f}% of the board)", file=out)
    print("the board around them (dense rank):", file=out)
    for e in board.around(me, 3):
        mark = "  <- you" if e.player == str(me) else ""
        print(f"  {e.rank:>9,}. player {e.player:<10} {e.points:>7,}{mark}", file=out)
    before = board.rank(me)
    service.submit("bonus:1", me, 40, at=SEASON_START + 60 * matches)
    print(f"they win a 40-point bonus: {board.score(me):,} points, dense rank {before:,} -> "
          f"{board.rank(me):,}; submitting it again changes nothing: "
          f"{service.submit('bonus:1', me, 40) == service.submit('bonus:1', me, 40)}", file=out)

    # The engine restarts empty: the store rebuilds the board.
    restarted = ScoreService(_board(Engine()), store)
    bar = Progress(0, "rebuilding board")

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done)

    t0 = time.perf_counter()
    rebuilt = restarted.rebuild(progress=progress)
    bar.close()
    took = time.perf_counter() - t0
    same = restarted.top(10) == service.top(10) and restarted.rank(me) == board.rank(me)
    print(f"\nrestart: the board rebuilt from the store in {took:.2f} s ({rebuilt:,} players, "
          f"{rebuilt / max(took, 1e-9):,.0f} players/s); same top 10 and ranks: {same}", file=out)

    reads = 100_000
    probe = [ids[k] for k in rng.integers(0, players, size=reads).tolist()]
    for style in ("ordinal", "dense"):
        rank = board.rank
        t0 = time.perf_counter()
        for m in probe:
            rank(m, ranking=style)
        per = (time.perf_counter() - t0) / reads
        print(f"{style} rank lookups: {1 / per:,.0f}/s ({per * 1e6:.2f} us each) at {board.count():,} "
              f"players", file=out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="fastrank", description="fastrank command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="play a season through the score service on the embedded engine")
    p_demo.add_argument("--players", type=int, default=1_000_000)
    p_demo.add_argument("--matches", type=int, default=200_000)
    p_demo.add_argument("--seed", type=int, default=2026)
    p_demo.add_argument("--store", default=None, help="keep the SQLite record of truth in this file")
    p_bench = sub.add_parser("bench", help="compare fastrank with Redis and the Python libraries",
                             description=benchmark.__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    benchmark.add_arguments(p_bench)
    service_cli.add_commands(sub)
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = parser.parse_args(argv)
    if args.command == "bench":
        return benchmark.run_cli(args, p_bench, " ".join(["fastrank", *argv]))
    if args.command in ("apply", "rebuild", "export", "import"):
        return service_cli.run_command(args)
    if args.command == "demo":
        if args.players < 1 or args.matches < 0:
            parser.error("--players must be >= 1 and --matches >= 0")
        demo(args.players, args.matches, args.seed, args.store)
    return 0


if __name__ == "__main__":
    sys.exit(main())
