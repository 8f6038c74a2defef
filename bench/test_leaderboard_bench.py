"""pytest-benchmark suite for the leaderboard operations (not part of the tests).

Run:  python -m pytest bench/test_leaderboard_bench.py --benchmark-only
      [--benchmark-columns=median,ops] [-k engine]

Each benchmark is one operation on a board of N = 1,000,000 members (random
9-digit ids, integer scores), on fastrank.SortedSet, fastrank.Engine and the
sortedcontainers board. The side-by-side table with redis-py and fakeredis is
``fastrank bench``.
"""
import itertools
import os

import numpy as np
import pytest

from fastrank.bench import peers
from fastrank.bench.runner import make_board

N = int(os.environ.get("FASTRANK_BENCH_N", 1_000_000))


@pytest.fixture(scope="module")
def board():
    return make_board(N)


@pytest.fixture(scope="module", params=["sortedset", "engine", "sortedcontainers"])
def backend(request, board):
    ids, scores = board
    if request.param == "sortedset":
        b = peers.SortedSetSingle()
    elif request.param == "engine":
        from fastrank import Engine

        b = peers.RedisPyClient("engine", Engine())
    else:
        b = peers.SortedContainersBoard()
    b.load(ids, scores)
    return b


def _members(board, n=4096):
    ids, _ = board
    rng = np.random.default_rng(3)
    return itertools.cycle(ids[rng.integers(0, len(ids), size=n)].tolist())


def test_zincrby(benchmark, backend, board):
    members = _members(board)
    benchmark(lambda: backend.zincrby([next(members)], [1.0]))


def test_zrevrank(benchmark, backend, board):
    members = _members(board)
    benchmark(lambda: backend.zrevrank([next(members)]))


def test_zrevrange_top10(benchmark, backend):
    benchmark(lambda: backend.zrevrange_top10(1))


def test_sortedset_rank_many_1000(benchmark, board):
    ids, scores = board
    z = peers.SortedSetBatch()
    z.load(ids, scores)
    probe = ids[np.random.default_rng(5).integers(0, len(ids), size=1000)]
    benchmark(lambda: z.zrevrank(probe))
