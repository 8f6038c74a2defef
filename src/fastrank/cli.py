"""The ``fastrank`` command.

``fastrank demo`` plays a season on a :class:`fastrank.Leaderboard` over the
embedded engine: players join, a stream of match results moves their points
(the winner takes what the loser loses, both in one atomic script), ties go to
whoever reached the total first, and the board answers what a game asks (the
top 10 with dense ranks beside ordinal ones, one player's rank in each style,
the players around them, who they just overtook) while it is being written.

``fastrank apply`` and ``fastrank rebuild`` run the score service's applier
and rebuild (``fastrank.service.cli``).

``fastrank bench`` runs the side-by-side comparison of ``fastrank.bench``
(fastrank vs redis-py, sortedcontainers, fakeredis and the sketch libraries)
at several board sizes, prints the table, writes it as Markdown and JSON, and
with ``--plot`` draws it.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Optional, Sequence, TextIO

import numpy as np

from fastrank.bench import runner as benchmark
from fastrank.bench.progress import Progress
from fastrank.service import cli as service_cli

SEASON_START = 1_790_000_000  # seconds since the epoch: the season's first match (Sep 2026)


def demo(players: int, matches: int, seed: int, out: TextIO = sys.stdout) -> None:
    """Play one simulated season on a dense-ranked Leaderboard over fastrank.Engine."""
    from fastrank import Engine, Leaderboard

    board = Leaderboard(Engine(), "demo", season="2026", ranking="dense", tiebreak="earliest")
    rng = np.random.default_rng(seed)
    ids = (np.arange(1, players + 1, dtype=np.int64) + 100_000_000).tolist()
    print(f"fastrank demo: a season of {players:,} players and {matches:,} matches on a "
          f"Leaderboard over the in-process engine (ties: earliest first)\n", file=out)

    chunk = 10_000
    bar = Progress(players, "players joining")
    t0 = time.perf_counter()
    for i in range(0, players, chunk):
        board.submit_many(dict.fromkeys(ids[i:i + chunk], 1000), at=SEASON_START)
        bar.update(min(i + chunk, players))
    bar.close()
    joined = time.perf_counter() - t0
    print(f"joined: {players:,} players in {joined:.2f} s ({players / joined:,.0f} players/s)", file=out)

    # Skill decides who wins more often: a match between a and b is won by the
    # stronger one with probability 2/3; the winner gains what the loser loses.
    skill = rng.random(players)
    a = rng.integers(0, players, size=matches)
    b = rng.integers(0, players, size=matches)
    b = np.where(a == b, (b + 1) % players, b) if players > 1 else b
    stronger_wins = rng.random(matches) < 2 / 3
    a_wins = (skill[a] >= skill[b]) == stronger_wins
    winners = np.where(a_wins, a, b).tolist()
    losers = np.where(a_wins, b, a).tolist()
    points = rng.integers(5, 30, size=matches).tolist()

    bar = Progress(matches, "matches played  ")
    submit_many = board.submit_many
    t0 = time.perf_counter()
    for i in range(matches):
        p = points[i]
        submit_many([(ids[winners[i]], p), (ids[losers[i]], -p)], at=SEASON_START + 60 * i)
        if i % 5_000 == 0:
            bar.update(i)
    bar.update(matches)
    bar.close()
    played = time.perf_counter() - t0
    if matches:
        print(f"played: {matches:,} matches in {played:.2f} s ({matches / played:,.0f} matches/s, "
              f"{played / matches * 1e6:.1f} us each: both results in one atomic script)\n", file=out)

    ordinal = board.top(10, ranking="ordinal")
    dense = board.top(10)
    print("top 10 (ordinal rank, dense rank):", file=out)
    for o, d in zip(ordinal, dense):
        print(f"  {o.rank:>3}. {d.rank:>3}.  player {o.player:<10} {o.points:>7,}", file=out)

    me = ids[int(rng.integers(0, players))]
    ranks = {style: board.rank(me, ranking=style) for style in ("ordinal", "competition", "dense")}
    print(f"\nplayer {me}: {board.score(me):,} points; rank {ranks['ordinal']:,} ordinal, "
          f"{ranks['competition']:,} competition, {ranks['dense']:,} dense of {board.count():,} "
          f"({board.bucket(me)}, better than {board.percentile(me):.1f}% of the board)", file=out)
    print("the board around them (dense rank):", file=out)
    for e in board.around(me, 3):
        mark = "  <- you" if e.player == str(me) else ""
        print(f"  {e.rank:>9,}. player {e.player:<10} {e.points:>7,}{mark}", file=out)
    change = board.submit(me, 40, at=SEASON_START + 60 * matches, with_rank=True)
    passed = ", ".join(change.passed) or "nobody"
    print(f"they win 40 more: {change.points:,} points, dense rank {change.previous_rank:,} -> "
          f"{change.rank:,}; passed {passed}", file=out)

    reads = 100_000
    probe = [ids[k] for k in rng.integers(0, players, size=reads).tolist()]
    for style in ("ordinal", "dense"):
        rank = board.rank
        t0 = time.perf_counter()
        for m in probe:
            rank(m, ranking=style)
        per = (time.perf_counter() - t0) / reads
        print(f"{style} rank lookups: {1 / per:,.0f}/s ({per * 1e6:.2f} us each) at {players:,} players",
              file=out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="fastrank", description="fastrank command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="play a season on a Leaderboard over the embedded engine")
    p_demo.add_argument("--players", type=int, default=1_000_000)
    p_demo.add_argument("--matches", type=int, default=200_000)
    p_demo.add_argument("--seed", type=int, default=2026)
    p_bench = sub.add_parser("bench", help="compare fastrank with Redis and the Python libraries",
                             description=benchmark.__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    benchmark.add_arguments(p_bench)
    service_cli.add_commands(sub)
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = parser.parse_args(argv)
    if args.command == "bench":
        return benchmark.run_cli(args, p_bench, " ".join(["fastrank", *argv]))
    if args.command in ("apply", "rebuild"):
        return service_cli.run_command(args)
    if args.command == "demo":
        if args.players < 1 or args.matches < 0:
            parser.error("--players must be >= 1 and --matches >= 0")
        demo(args.players, args.matches, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
