"""What the board descriptor costs on the Engine (#24): opening a board by name,
and the hot calls around it. Run: PYTHONPATH=src python bench/bench_descriptor.py
(against another checkout: PYTHONPATH=<checkout>/src). Best of 5, microseconds a call."""
from __future__ import annotations

import time

import fastrank
from fastrank import Leaderboard, ShardedLeaderboard


def best(f, n):
    b = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n): f()
        b = min(b, (time.perf_counter() - t) / n)
    return b * 1e6
e = fastrank.Engine()
board = Leaderboard(e, "b", ranking="dense")
sh = ShardedLeaderboard(e, "s", shards=8)
for i in range(10000):
    board.submit(f"p{i}", i % 500, at=1000 + i); sh.submit(f"p{i}", i % 500, at=1000 + i)
print(f"Leaderboard(e, name) construction: {best(lambda: Leaderboard(e, 'b'), 2000):.1f} us")
print(f"ShardedLeaderboard(e, name) construction: {best(lambda: ShardedLeaderboard(e, 's'), 500):.1f} us")
print(f"board.top(10): {best(lambda: board.top(10), 20000):.2f} us")
print(f"board.rank: {best(lambda: board.rank('p77'), 20000):.2f} us")
print(f"board.submit: {best(lambda: board.submit('p77', 1), 20000):.2f} us")
print(f"board.set_info: {best(lambda: board.set_info('p77', {'n': 1}), 5000):.2f} us")
print(f"sharded.top(10): {best(lambda: sh.top(10), 5000):.2f} us")
print(f"sharded.rank: {best(lambda: sh.rank('p77'), 5000):.2f} us")
print(f"sharded.submit: {best(lambda: sh.submit('p77', 1), 5000):.2f} us")
