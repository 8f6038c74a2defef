"""TeamLeaderboard against a plain Leaderboard: what keeping the teams in step costs.

    python bench/bench_teams.py [--players 100000] [--team-size 100] [--ops 2000] [--rounds 3]

Loads the same players into a plain board and into team boards (sum, and the
best 10) whose players are all in teams of ``--team-size`` members, on the
in-process Engine and a local Redis (started here on loopback), then times,
in ``--rounds`` alternating rounds (plain, sum, top 10, plain...), a submit
of a random player, ``team_top(10)``, ``team_rank`` and a ``join`` that moves
a player to another team. Prints the median microseconds per call of the
rounds, their range, and the ratio to the plain board's submit.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
from typing import Any, Callable, Dict, List, Tuple

import fastrank
from fastrank import Leaderboard, TeamLeaderboard
from fastrank.testing import free_port, start_redis
from timing import per_call

T0 = 1_790_000_000


def load(board: Any, players: int, team_size: int, batch: int = 2000) -> None:
    rnd = random.Random(1)
    if isinstance(board, TeamLeaderboard):
        for i in range(players):
            board.join(f"player:{i}", f"team:{i // team_size}", at=T0)
    for start in range(0, players, batch):
        board.submit_many({f"player:{i}": rnd.randrange(1_000) for i in range(start, min(players, start + batch))},
                          at=T0)


def operations(board: Any, players: int, teams: int) -> Dict[str, Callable[[int], Any]]:
    ops: Dict[str, Callable[[int], Any]] = {"submit": lambda a: board.submit(f"player:{a % players}", 1, at=T0 + 1)}
    if isinstance(board, TeamLeaderboard):
        ops["team_top(10)"] = lambda a: board.team_top(10)
        ops["team_rank"] = lambda a: board.team_rank(f"team:{a % teams}")
        ops["join (a move)"] = lambda a: board.join(f"player:{a % players}", f"team:{(a >> 8) % teams}", at=T0 + 2)
    return ops


def measure(client: Any, players: int, team_size: int, ops: int, rounds: int,
            label: str) -> Dict[Tuple[str, str], List[float]]:
    teams = max(1, players // team_size)
    boards = {"Leaderboard": Leaderboard(client, f"plain{label}"),
              "TeamLeaderboard sum": TeamLeaderboard(client, f"sum{label}"),
              "TeamLeaderboard top 10": TeamLeaderboard(client, f"top{label}", aggregate="top", k=10)}
    for board in boards.values():
        load(board, players, team_size)
    times: Dict[Tuple[str, str], List[float]] = {}
    for r in range(rounds):
        for name, board in boards.items():
            for op, fn in operations(board, players, teams).items():
                times.setdefault((name, op), []).append(per_call(fn, ops, seed=r))
    return times


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--players", type=int, default=100_000)
    ap.add_argument("--team-size", type=int, default=100)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    results: Dict[str, Dict[Tuple[str, str], List[float]]] = {}
    with tempfile.TemporaryDirectory() as root:
        single = start_redis(free_port(), root)
        try:
            results["Engine"] = measure(fastrank.Engine(), args.players, args.team_size, args.ops, args.rounds, "e")
            results["Redis"] = measure(single.client(), args.players, args.team_size, args.ops, args.rounds, "r")
        finally:
            single.stop()
    print(f"fastrank {fastrank.__version__}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, "
          f"Python {platform.python_version()}; {args.players:,} players in teams of {args.team_size}, "
          f"{args.ops:,} calls a round, {args.rounds} alternating rounds; µs per call, median (range)\n")
    print("| backend | board | operation | µs per call | range | vs plain submit |")
    print("|---|---|---|---:|---:|---:|")
    for backend, times in results.items():
        plain = statistics.median(times[("Leaderboard", "submit")])
        for (board, op), values in times.items():
            median = statistics.median(values)
            print(f"| {backend} | {board} | {op} | {median:,.1f} | {min(values):,.1f}-{max(values):,.1f} | "
                  f"{median / plain:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
