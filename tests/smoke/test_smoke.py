"""Smoke tests of an installed fastrank: no server, a few seconds in all.

cibuildwheel's test-command runs them against every wheel it builds, and
tests/packaging runs them against the auditwheel-repaired wheel in a fresh
venv. They touch each compiled structure and the Engine's main paths once.
"""
import numpy as np

import fastrank
from fastrank import CountMinSketch, Engine, HyperLogLog, SortedSet, TopK


def test_sortedset_point_and_batch():
    z = SortedSet()
    z.add_many(np.arange(10_000), np.arange(10_000, dtype=np.float64))
    assert len(z) == 10_000
    assert z.rank(9_999, reverse=True) == 0
    assert z.incr(0, 20_000.0) == 20_000.0
    assert z.rank(0, reverse=True) == 0
    assert z.range(0, 2, True, True) == [(b"0", 20_000.0), (b"9999", 9_999.0), (b"9998", 9_998.0)]
    assert z.rank_many(np.array([9_999, 1]), True).tolist() == [1, 9_999]
    z._check()


def test_engine_leaderboard_and_pipeline():
    r = Engine()
    assert r.zadd("board", {"alice": 10, "bob": 20, "carol": 15}) == 3
    assert r.zincrby("board", 10, "alice") == 20.0
    assert r.zrevrange("board", 0, -1, withscores=True) == [(b"bob", 20.0), (b"alice", 20.0), (b"carol", 15.0)]
    assert r.zrevrank("board", "carol") == 2
    pipe = r.pipeline()
    pipe.incr("visits").incr("visits").get("visits")
    assert pipe.execute() == [1, 2, b"2"]


def test_engine_lua_script():
    r = Engine()
    add = r.register_script("redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2]) "
                            "return {redis.call('zrevrank', KEYS[1], ARGV[2]), cjson.encode({1, 'x'})}")
    assert add(keys=["board"], args=[5, "ann"]) == [0, b'[1,"x"]']


def test_hyperloglog_redis_bytes_round_trip():
    h = HyperLogLog()
    h.add_many(np.arange(100_000, dtype=np.uint64))
    assert abs(h.count() - 100_000) < 3_000
    again = HyperLogLog.from_bytes(h.to_bytes())
    assert again.count() == h.count()
    assert h.to_bytes()[:4] == b"HYLL"
    r = Engine()
    assert r.pfadd("u", "a", "b", "c") == 1
    assert r.pfcount("u") == 3


def test_count_min_sketch_and_topk():
    c = CountMinSketch(2000, 7)
    c.incrby(["a", "b", "a"], [1, 2, 3])
    assert c.query(["a", "b", "zz"]) == [4, 2, 0]
    assert CountMinSketch.from_bytes(c.to_bytes()) == c
    t = TopK(k=3, width=8, depth=7, decay=0.9, seed=1)
    t.add_many(np.repeat(np.arange(5), [50, 40, 30, 2, 1]))
    assert sorted(t.list()) == [b"0", b"1", b"2"]


def test_version_and_public_names():
    assert fastrank.__version__
    for name in ("Engine", "SortedSet", "HyperLogLog", "CountMinSketch", "TopK", "connect"):
        assert hasattr(fastrank, name), name


def test_leaderboard_scripts_ship_in_the_package():
    board = fastrank.Leaderboard(Engine(), "smoke", ranking="dense")
    board.submit_many({"ann": 5, "bob": 5, "cy": 3}, at=1)
    assert board.submit("cy", 2, at=2, with_rank=True) == fastrank.Change(5, 1, 2, [])
    assert [(e.rank, e.player) for e in board.top(3)] == [(1, "bob"), (1, "ann"), (1, "cy")]  # same second: member order
