"""The ``fastrank`` command.

``fastrank demo`` simulates a season on the embedded engine: players join,
a stream of match results moves ratings with ZINCRBY, and the board answers
the questions a game asks (top 10, one player's exact rank, the players
around them) while it is being written.

``fastrank bench`` runs the side-by-side comparison of ``fastrank.bench``
(fastrank vs redis-py, sortedcontainers, fakeredis and the sketch libraries)
at several board sizes, prints the table, writes it as Markdown and JSON, and
with ``--plot`` draws it.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import List, Optional, Sequence, TextIO, Tuple, cast

import numpy as np

from fastrank.bench import runner as benchmark
from fastrank.bench.progress import Progress

BOARD = "season:1"


def _name(member: bytes) -> str:
    return f"player {member.decode()}"


def demo(players: int, matches: int, seed: int, out: TextIO = sys.stdout) -> None:
    """Run one simulated season on fastrank.Engine and print what it shows."""
    from fastrank import Engine

    r = Engine()
    rng = np.random.default_rng(seed)
    ids = np.arange(1, players + 1, dtype=np.int64) + 100_000_000
    print(f"fastrank demo: a season of {players:,} players and {matches:,} matches "
          f"on the in-process engine\n", file=out)

    chunk = 50_000
    bar = Progress(players, "players joining")
    t0 = time.perf_counter()
    for i in range(0, players, chunk):
        part = ids[i : i + chunk].tolist()
        r.zadd(BOARD, dict.fromkeys(part, 1000))
        bar.update(min(i + chunk, players))
    bar.close()
    joined = time.perf_counter() - t0
    print(f"joined: {players:,} players in {joined:.2f} s ({players / joined:,.0f} ZADD members/s)", file=out)

    # Skill decides who wins more often: a match between a and b is won by
    # the stronger one with probability 2/3; the winner gains what the loser loses.
    skill = rng.random(players)
    a = rng.integers(0, players, size=matches)
    b = rng.integers(0, players, size=matches)
    stronger_wins = rng.random(matches) < 2 / 3
    a_wins = (skill[a] >= skill[b]) == stronger_wins
    winners = np.where(a_wins, ids[a], ids[b]).tolist()
    losers = np.where(a_wins, ids[b], ids[a]).tolist()
    points = rng.integers(5, 30, size=matches).tolist()

    bar = Progress(matches, "matches played  ")
    zincrby = r.zincrby
    t0 = time.perf_counter()
    for i in range(matches):
        zincrby(BOARD, points[i], winners[i])
        zincrby(BOARD, -points[i], losers[i])
        if i % 20_000 == 0:
            bar.update(i)
    bar.update(matches)
    bar.close()
    played = time.perf_counter() - t0
    print(f"played: {matches:,} matches = {2 * matches:,} ZINCRBY in {played:.2f} s "
          f"({2 * matches / played:,.0f} ZINCRBY/s, {played / (2 * matches) * 1e6:.2f} us each)\n", file=out)

    print("top 10:", file=out)
    top = cast(List[Tuple[bytes, float]], r.zrevrange(BOARD, 0, 9, withscores=True))
    for rank, (member, score) in enumerate(top, 1):
        print(f"  {rank:>3}. {_name(member):<18} {score:>8.0f}", file=out)

    me = int(ids[int(rng.integers(0, players))])
    my_rank = cast(Optional[int], r.zrevrank(BOARD, me))  # no withscore: the rank
    my_score = r.zscore(BOARD, me)
    assert my_rank is not None and my_score is not None
    print(f"\nplayer {me}: rank {my_rank + 1:,} of {r.zcard(BOARD):,} with {my_score:.0f} points "
          f"(top {100 * (my_rank + 1) / players:.2f}%)", file=out)
    print("the board around them:", file=out)
    lo = max(my_rank - 3, 0)
    around = cast(List[Tuple[bytes, float]],
                  r.zrevrange(BOARD, lo, my_rank + 3, withscores=True))
    for rank, (member, score) in enumerate(around, lo + 1):
        mark = "  <- you" if member == str(me).encode() else ""
        print(f"  {rank:>9,}. {_name(member):<18} {score:>8.0f}{mark}", file=out)

    t0 = time.perf_counter()
    reads = 100_000
    probe = ids[rng.integers(0, players, size=reads)].tolist()
    zrevrank = r.zrevrank
    for m in probe:
        zrevrank(BOARD, m)
    per = (time.perf_counter() - t0) / reads
    print(f"\nexact rank lookups: {1 / per:,.0f} ZREVRANK/s ({per * 1e6:.2f} us each) "
          f"at {players:,} members", file=out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="fastrank", description="fastrank command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="simulate a season on the embedded engine")
    p_demo.add_argument("--players", type=int, default=1_000_000)
    p_demo.add_argument("--matches", type=int, default=1_000_000)
    p_demo.add_argument("--seed", type=int, default=2026)
    p_bench = sub.add_parser("bench", help="compare fastrank with Redis and the Python libraries",
                             description=benchmark.__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    benchmark.add_arguments(p_bench)
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = parser.parse_args(argv)
    if args.command == "bench":
        return benchmark.run_cli(args, p_bench, " ".join(["fastrank", *argv]))
    if args.command == "demo":
        if args.players < 1 or args.matches < 0:
            parser.error("--players must be >= 1 and --matches >= 0")
        demo(args.players, args.matches, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
