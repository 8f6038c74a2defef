"""What the way a domain method is bound costs: ``Leaderboard.rank`` as the
package makes it (a ``fastrank._faces.PlanMethod``: runner.twin) against a plain
``(self, *args, **kwargs)`` closure around the same plan, on a 1,000-player
board on the Engine, where the read itself is cheap.

    python bench/bench_plan_methods.py

Prints microseconds per call, best of 5 runs of 200,000 calls, for both, in
alternating rounds (the machine is shared: compare within a run).
"""
import time

import fastrank
from fastrank.leaderboard.board import BoardPlans, Leaderboard
from fastrank.runner import run

N = 200_000


def main() -> None:
    engine = fastrank.Engine()
    board = Leaderboard(engine, "b")
    for i in range(1000):
        board.submit(f"p{i}", i)
    plan = BoardPlans._plan_rank

    def closure(self, *args, **kwargs):
        return run(self._client, plan(self, *args, **kwargs))

    def best(method) -> float:
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(N):
                method(board, "p5")
            times.append(time.perf_counter() - t0)
        return min(times) / N * 1e6

    for _ in range(3):
        print(f"package {best(Leaderboard.rank):.3f} us   closure {best(closure):.3f} us")


if __name__ == "__main__":
    main()
