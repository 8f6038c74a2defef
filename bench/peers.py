"""The leaderboard backends the benchmarks compare, behind one small interface.

Each backend answers the four leaderboard operations measured by
``compare.py``: bulk load, ZINCRBY, ZREVRANK and ZREVRANGE 0 9 WITHSCORES.
A backend may also offer batch versions (``*_many``) when it has a real batch
path; the runner then reports them as separate rows.
"""
from __future__ import annotations

from typing import Any, List, Sequence, Tuple

import numpy as np

KEY = "bench:board"


class SortedSetSingle:
    """fastrank.SortedSet, one Python call per operation."""

    name = "fastrank SortedSet"

    def __init__(self) -> None:
        from fastrank import SortedSet

        self.zset = SortedSet()

    def load(self, members: np.ndarray, scores: np.ndarray) -> None:
        self.zset.add_many(members, scores)

    def zincrby(self, members: Sequence[bytes], deltas: Sequence[float]) -> None:
        incr = self.zset.incr
        for m, d in zip(members, deltas):
            incr(m, d)

    def zrevrank(self, members: Sequence[bytes]) -> None:
        rank = self.zset.rank
        for m in members:
            rank(m, True)

    def zrevrange_top10(self, repeats: int) -> None:
        rng = self.zset.range
        for _ in range(repeats):
            rng(0, 9, True, True)


class SortedSetBatch(SortedSetSingle):
    """fastrank.SortedSet through its numpy batch methods (one call per batch)."""

    name = "fastrank SortedSet (numpy batch)"

    def zincrby(self, members: Any, deltas: Any) -> None:
        self.zset.incr_many(members, deltas)

    def zrevrank(self, members: Any) -> None:
        self.zset.rank_many(members, True)

    zrevrange_top10 = None  # no batch form: a top-10 read is one call already


class RedisPyClient:
    """redis-py command methods on a client (fastrank.Engine or redis.Redis), one call per op."""

    def __init__(self, name: str, client: Any) -> None:
        self.name = name
        self.client = client
        client.delete(KEY)

    def load(self, members: np.ndarray, scores: np.ndarray, chunk: int = 10_000) -> None:
        pipe = self.client.pipeline(transaction=False)
        for i in range(0, len(members), chunk):
            mapping = dict(zip(members[i : i + chunk].tolist(), scores[i : i + chunk].tolist()))
            pipe.zadd(KEY, mapping)
            if (i // chunk) % 10 == 9:
                pipe.execute()
        pipe.execute()

    def zincrby(self, members: Sequence[int], deltas: Sequence[float]) -> None:
        zincrby = self.client.zincrby
        for m, d in zip(members, deltas):
            zincrby(KEY, d, m)

    def zrevrank(self, members: Sequence[int]) -> None:
        zrevrank = self.client.zrevrank
        for m in members:
            zrevrank(KEY, m)

    def zrevrange_top10(self, repeats: int) -> None:
        zrevrange = self.client.zrevrange
        for _ in range(repeats):
            zrevrange(KEY, 0, 9, withscores=True)


class RedisPyPipelined(RedisPyClient):
    """redis-py against a server, commands sent in pipelines of ``batch`` commands."""

    def __init__(self, name: str, client: Any, batch: int = 1000) -> None:
        super().__init__(name, client)
        self.batch = batch

    def _pipelined(self, calls: List[Tuple[str, tuple]]) -> None:
        pipe = self.client.pipeline(transaction=False)
        for i, (method, args) in enumerate(calls, 1):
            getattr(pipe, method)(*args)
            if i % self.batch == 0:
                pipe.execute()
        pipe.execute()

    def zincrby(self, members: Sequence[int], deltas: Sequence[float]) -> None:
        self._pipelined([("zincrby", (KEY, d, m)) for m, d in zip(members, deltas)])

    def zrevrank(self, members: Sequence[int]) -> None:
        self._pipelined([("zrevrank", (KEY, m)) for m in members])

    def zrevrange_top10(self, repeats: int) -> None:
        self._pipelined([("zrevrange", (KEY, 0, 9, False, True))] * repeats)


class SortedContainersBoard:
    """The usual pure-Python leaderboard: a dict of scores plus a SortedList of (score, member)."""

    name = "sortedcontainers (dict + SortedList)"

    def __init__(self) -> None:
        from sortedcontainers import SortedList

        self.scores: dict = {}
        self.order = SortedList()

    def load(self, members: np.ndarray, scores: np.ndarray) -> None:
        from sortedcontainers import SortedList

        self.scores = dict(zip(members.tolist(), scores.tolist()))
        self.order = SortedList((s, m) for m, s in self.scores.items())

    def zincrby(self, members: Sequence[int], deltas: Sequence[float]) -> None:
        scores, order = self.scores, self.order
        for m, d in zip(members, deltas):
            old = scores.get(m)
            if old is not None:
                order.remove((old, m))
                new = old + d
            else:
                new = d
            scores[m] = new
            order.add((new, m))

    def zrevrank(self, members: Sequence[int]) -> None:
        scores, order = self.scores, self.order
        n = len(order)
        for m in members:
            s = scores.get(m)
            if s is not None:
                n - 1 - order.index((s, m))

    def zrevrange_top10(self, repeats: int) -> None:
        order = self.order
        for _ in range(repeats):
            [(m, s) for s, m in reversed(order[-10:])]
