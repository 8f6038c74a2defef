"""Several threads hammer one Engine; every command must be atomic.

Run longer with FASTRANK_STRESS_ITERS=100000 (and FASTRANK_STRESS_SEED).
"""
import os
import random
import threading

from fastrank.engine import Engine

ITERS = int(os.environ.get("FASTRANK_STRESS_ITERS", "3000"))
SEED = int(os.environ.get("FASTRANK_STRESS_SEED", "1"))
THREADS = 6


def test_concurrent_increments_and_churn():
    r = Engine()
    members = [f"m{i}" for i in range(50)]
    expected = [dict() for _ in range(THREADS)]
    counts = [0] * THREADS
    errors = []

    def worker(t):
        rng = random.Random(SEED * 100 + t)
        try:
            for _ in range(ITERS):
                op = rng.random()
                if op < 0.5:
                    m = rng.choice(members)
                    delta = rng.choice([1, 2, 3])
                    r.zincrby("board", delta, m)
                    expected[t][m] = expected[t].get(m, 0) + delta
                elif op < 0.7:
                    r.incr("counter")
                    counts[t] += 1
                elif op < 0.85:
                    r.zadd(f"churn{t % 2}", {rng.choice(members): rng.random()})
                else:
                    r.zrem(f"churn{t % 2}", rng.choice(members))
                    r.zrevrank("board", rng.choice(members))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    total = {}
    for part in expected:
        for m, v in part.items():
            total[m] = total.get(m, 0) + v
    assert {m.decode(): s for m, s in r.zrange("board", 0, -1, withscores=True)} == total
    assert int(r.get("counter")) == sum(counts)
    for key in ("board", "churn0", "churn1"):
        value = r._data.get(key.encode())
        if value is not None:
            value._check()


def test_blocking_pop_woken_by_write():
    r = Engine()
    got = []
    waiter = threading.Thread(target=lambda: got.append(r.bzpopmax("q", timeout=5)))
    waiter.start()
    threading.Event().wait(0.05)
    r.zadd("q", {"job": 3})
    waiter.join(5)
    assert got == [(b"q", b"job", 3.0)]
    assert r.bzpopmin("q", timeout=0.05) is None
