"""The backends ``fastrank bench`` compares, behind two small interfaces.

Leaderboard backends answer the four leaderboard operations: bulk ``load``,
``zincrby`` (ZINCRBY of existing members), ``zrevrank`` and
``zrevrange_top10`` (ZREVRANGE 0 9 WITHSCORES; ``None`` when a backend has
no separate path for it). Each takes the whole list of operations at once
and runs them the way a user of that backend would (one call per operation,
or its batch/pipelined path).

Sketch peers (:class:`SketchPeer`) are the HyperLogLog and Count-Min Sketch
implementations a Python user can reach: fastrank's, Apache DataSketches,
datasketch, bounter, pyprobables and Redis (PFADD, RedisBloom CMS.INCRBY).
:func:`sketch_peers` lists the ones that are importable / reachable.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

KEY = "bench:board"

# Count-Min Sketch shape every CMS peer gets: 65,536 x 4 32-bit counters
# (1 MiB; bounter's size_mb=1, depth=4 is exactly that).
CMS_WIDTH, CMS_DEPTH = 65536, 4
HLL_P = 14  # Redis's precision: 16384 registers


# -- leaderboard backends ----------------------------------------------------------


class SortedSetSingle:
    """fastrank.SortedSet, one Python call per operation."""

    name = "fastrank SortedSet"

    def __init__(self) -> None:
        from fastrank import SortedSet

        self.zset = SortedSet()

    def load(self, members: np.ndarray, scores: np.ndarray) -> None:
        self.zset.add_many(members, scores)

    def zincrby(self, members: Sequence[Any], deltas: Sequence[float]) -> None:
        incr = self.zset.incr
        for m, d in zip(members, deltas):
            incr(m, d)

    def zrevrank(self, members: Sequence[Any]) -> None:
        rank = self.zset.rank
        for m in members:
            rank(m, True)

    def zrevrange_top10(self, repeats: int) -> None:
        rng = self.zset.range
        for _ in range(repeats):
            rng(0, 9, True, True)

    def memory_usage(self) -> int:
        """Bytes the C core allocated for the board."""
        return int(self.zset.memory_usage())


class SortedSetBatch(SortedSetSingle):
    """fastrank.SortedSet through its numpy batch methods (one call per batch)."""

    name = "fastrank SortedSet (numpy batch)"

    def zincrby(self, members: Any, deltas: Any) -> None:
        self.zset.incr_many(members, deltas)

    def zrevrank(self, members: Any) -> None:
        self.zset.rank_many(members, True)

    zrevrange_top10 = None  # type: ignore[assignment]  # no batch form: a top-10 read is one call already


class RedisPyClient:
    """redis-py command methods on a client (fastrank.Engine or redis.Redis), one call per op."""

    def __init__(self, name: str, client: Any, key: str = KEY) -> None:
        self.name = name
        self.client = client
        self.key = key
        client.delete(key)

    def load(self, members: np.ndarray, scores: np.ndarray, chunk: int = 10_000) -> None:
        pipe = self.client.pipeline(transaction=False)
        for i in range(0, len(members), chunk):
            mapping = dict(zip(members[i : i + chunk].tolist(), scores[i : i + chunk].tolist()))
            pipe.zadd(self.key, mapping)
            if (i // chunk) % 10 == 9:
                pipe.execute()
        pipe.execute()

    def zincrby(self, members: Sequence[int], deltas: Sequence[float]) -> None:
        zincrby, key = self.client.zincrby, self.key
        for m, d in zip(members, deltas):
            zincrby(key, d, m)

    def zrevrank(self, members: Sequence[int]) -> None:
        zrevrank, key = self.client.zrevrank, self.key
        for m in members:
            zrevrank(key, m)

    def zrevrange_top10(self, repeats: int) -> None:
        zrevrange, key = self.client.zrevrange, self.key
        for _ in range(repeats):
            zrevrange(key, 0, 9, withscores=True)

    def close(self) -> None:
        self.client.unlink(self.key)


class RedisPyPipelined(RedisPyClient):
    """redis-py against a server, commands sent in pipelines of ``batch`` commands."""

    def __init__(self, name: str, client: Any, batch: int = 1000, key: str = KEY) -> None:
        super().__init__(name, client, key)
        self.batch = batch

    def _pipelined(self, calls: List[Tuple[str, Tuple[Any, ...]]]) -> None:
        pipe = self.client.pipeline(transaction=False)
        for i, (method, args) in enumerate(calls, 1):
            getattr(pipe, method)(*args)
            if i % self.batch == 0:
                pipe.execute()
        pipe.execute()

    def zincrby(self, members: Sequence[int], deltas: Sequence[float]) -> None:
        self._pipelined([("zincrby", (self.key, d, m)) for m, d in zip(members, deltas)])

    def zrevrank(self, members: Sequence[int]) -> None:
        self._pipelined([("zrevrank", (self.key, m)) for m in members])

    def zrevrange_top10(self, repeats: int) -> None:
        self._pipelined([("zrevrange", (self.key, 0, 9, False, True))] * repeats)


class SortedContainersBoard:
    """The usual pure-Python leaderboard: a dict of scores plus a SortedList of (score, member)."""

    name = "sortedcontainers (dict + SortedList)"

    def __init__(self) -> None:
        from sortedcontainers import SortedList

        self.scores: Dict[Any, float] = {}
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


# -- sketch peers ---------------------------------------------------------------------


@dataclass
class SketchPeer:
    """One implementation of one sketch operation.

    ``prepare(items)`` turns the numpy item array into what the peer takes
    (outside the timing); ``make()`` gives a fresh sketch; ``feed(sketch,
    prepared)`` is the timed ingest. ``cost`` bounds how many items it gets:
    ``"batch"`` (one compiled call: all items), ``"loop"`` (a Python loop per
    item) or ``"call"`` (one round trip per item).
    """

    name: str
    operation: str
    cost: str
    prepare: Callable[[np.ndarray], Any]
    make: Callable[[], Any]
    feed: Callable[[Any, Any], None]


def _loop(method: str) -> Callable[[Any, Any], None]:
    def feed(sketch: Any, items: Any) -> None:
        call = getattr(sketch, method)
        for x in items:
            call(x)
    return feed


def _as_str(items: np.ndarray) -> List[str]:
    return [str(v) for v in items.tolist()]


def _as_bytes(items: np.ndarray) -> List[bytes]:
    return [str(v).encode() for v in items.tolist()]


def hll_peers() -> Tuple[List[SketchPeer], List[str]]:
    """HyperLogLog add peers in this Python (fastrank always), and notes on the missing ones."""
    from fastrank import HyperLogLog

    peers = [SketchPeer("fastrank HyperLogLog.add_many", "hll_add", "batch", lambda a: a,
                        HyperLogLog, lambda h, a: h.add_many(a))]
    notes = []
    try:
        import datasketches

        peers.append(SketchPeer(f"DataSketches hll_sketch({HLL_P}) per item", "hll_add", "loop",
                                lambda a: a.tolist(), lambda: datasketches.hll_sketch(HLL_P),
                                _loop("update")))
    except ImportError:
        notes.append("datasketches not installed (HLL, CMS rows omitted)")
    try:
        import datasketch

        peers.append(SketchPeer(f"datasketch HyperLogLog(p={HLL_P}) per item", "hll_add", "loop",
                                _as_bytes, lambda: datasketch.HyperLogLog(p=HLL_P), _loop("update")))
    except ImportError:
        notes.append("datasketch not installed (HLL row omitted)")
    return peers, notes


def cms_peers() -> Tuple[List[SketchPeer], List[str]]:
    """Count-Min Sketch increment peers, all at CMS_WIDTH x CMS_DEPTH, and notes on the missing ones."""
    from fastrank import CountMinSketch

    peers = [SketchPeer("fastrank CountMinSketch.incrby", "cms_incrby", "batch", lambda a: a,
                        lambda: CountMinSketch(CMS_WIDTH, CMS_DEPTH), lambda c, a: c.incrby(a, 1))]
    notes = []
    try:
        import bounter

        peers.append(SketchPeer("bounter CountMinSketch.update(list)", "cms_incrby", "batch", _as_str,
                                lambda: bounter.CountMinSketch(size_mb=CMS_WIDTH * CMS_DEPTH * 4 >> 20,
                                                               depth=CMS_DEPTH),
                                lambda c, a: c.update(a)))
    except ImportError:
        notes.append("bounter not installed (CMS row omitted)")
    try:
        import datasketches

        peers.append(SketchPeer("DataSketches count_min_sketch per item", "cms_incrby", "loop", _as_str,
                                lambda: datasketches.count_min_sketch(CMS_DEPTH, CMS_WIDTH),
                                _loop("update")))
    except ImportError:
        pass
    try:
        import probables

        peers.append(SketchPeer("pyprobables CountMinSketch per item", "cms_incrby", "loop", _as_str,
                                lambda: probables.CountMinSketch(width=CMS_WIDTH, depth=CMS_DEPTH),
                                _loop("add")))
    except ImportError:
        notes.append("pyprobables not installed (CMS row omitted)")
    return peers, notes


def redis_sketch_peers(client: Any, key: str) -> Tuple[List[SketchPeer], List[str]]:
    """PFADD and RedisBloom CMS.INCRBY through redis-py: per call, and pipelined.

    Pipelined: PFADD of 1,000 items a command, 10 commands a round trip;
    CMS.INCRBY of 100 pairs a command, 100 commands a round trip.
    CMS rows only when the server has RedisBloom.
    """
    def hll_make() -> Any:
        client.delete(key)
        return client

    def pfadd_each(r: Any, items: List[int]) -> None:
        pfadd = r.pfadd
        for x in items:
            pfadd(key, x)

    def pfadd_piped(r: Any, items: List[int]) -> None:
        pipe = r.pipeline(transaction=False)
        for n, i in enumerate(range(0, len(items), 1000), 1):
            pipe.pfadd(key, *items[i : i + 1000])
            if n % 10 == 0:
                pipe.execute()
        pipe.execute()

    tolist: Callable[[np.ndarray], Any] = lambda a: a.tolist()  # noqa: E731
    peers = [SketchPeer("redis-py per call", "hll_add", "call", tolist, hll_make, pfadd_each),
             SketchPeer("redis-py pipelined", "hll_add", "batch", tolist, hll_make, pfadd_piped)]

    def cms_make() -> Any:
        client.delete(key)
        client.execute_command("CMS.INITBYDIM", key, CMS_WIDTH, CMS_DEPTH)
        return client

    def incrby_each(r: Any, items: List[int]) -> None:
        cmd = r.execute_command
        for x in items:
            cmd("CMS.INCRBY", key, x, 1)

    def incrby_piped(r: Any, items: List[int]) -> None:
        pipe = r.pipeline(transaction=False)
        for n, i in enumerate(range(0, len(items), 100), 1):
            args: List[int] = []
            for v in items[i : i + 100]:
                args += (v, 1)
            pipe.execute_command("CMS.INCRBY", key, *args)
            if n % 100 == 0:
                pipe.execute()
        pipe.execute()

    notes = []
    try:
        cms_make()
        client.delete(key)
    except Exception:  # no RedisBloom on this server
        notes.append("the Redis server has no RedisBloom module: CMS.INCRBY rows omitted")
    else:
        peers += [SketchPeer("redis-py per call", "cms_incrby", "call", tolist, cms_make, incrby_each),
                  SketchPeer("redis-py pipelined", "cms_incrby", "batch", tolist, cms_make, incrby_piped)]
    return peers, notes

