"""The review checks on a synthetic season: who gets flagged, per kind of player.

    python bench/bench_review.py [--players 3000] [--cheaters 0.05] [--seeds 7,11,23]

Builds a 7-day season (fastrank.bench.cheaters: honest players with
log-normal skill and Gamma per-match points; inflators, boosters and bots
among them), runs fastrank's default checks over every submission in time
order as a service with ``review="hold"`` does, and prints, per seed, the
share of each kind flagged at least once and the share of honest
submissions flagged. This measures detection, not speed.
"""
from __future__ import annotations

import argparse
import time

from fastrank.bench.cheaters import KINDS, measure, synthetic_season
from fastrank.service.review import default_checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3000)
    parser.add_argument("--cheaters", type=float, default=0.05)
    parser.add_argument("--seeds", default="7,11,23")
    args = parser.parse_args()
    print(f"{'seed':>5} {'submissions':>11} " + " ".join(f"{k + ' flagged':>18}" for k in KINDS)
          + f" {'honest subs flagged':>20} {'s':>6}")
    for seed in (int(s) for s in args.seeds.split(",")):
        started = time.perf_counter()
        roster, subs = synthetic_season(players=args.players, cheaters=args.cheaters, seed=seed)
        result = measure(roster, subs, default_checks())
        cells = " ".join(f"{result.flagged[k]:>6}/{result.players[k]:<5} {100 * result.share(k):5.1f}%" for k in KINDS)
        rate = 100 * result.honest_submissions_flagged / result.honest_submissions
        print(f"{seed:>5} {len(subs):>11} {cells} {rate:19.3f}% {time.perf_counter() - started:6.1f}")


if __name__ == "__main__":
    main()
