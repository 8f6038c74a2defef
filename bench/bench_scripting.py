"""EVALSHA of ZINCRBY + ZREVRANK at 1M members: the Engine vs the two direct
Engine calls vs the same EVALSHA through redis-py to a local redis-server.

Method
  - Board: N distinct random 9-digit ids (numpy, seed 1), integer scores in
    [0, 1e6), loaded with ZADD in batches of 10,000 on both sides.
  - One operation: add 1..100 points to a random existing member and read its
    reverse rank. Three ways, the same member/amount sequence (seed 2):
      direct   r.zincrby(key, n, m); r.zrevrank(key, m)         (Engine)
      evalsha  script(keys=[key], args=[n, m])                   (Engine)
               the script is straight-line, so the Engine runs its plan
               (fastrank.engine.lua.plans); the same again with plans off
               (every call through Lua) is printed beside it
      redis-py script(keys=[key], args=[n, m]) on redis-server   (one round trip)
    The script is redis-py's ``register_script`` object (EVALSHA).
  - The bridge: one ``redis.call('zrevrank')`` costs the difference between a
    script making K + 1 such calls and one making 1, divided by K (K = 20);
    the direct ``Engine.zrevrank`` is printed beside it.
  - Five rounds; each round times direct, evalsha and redis-py in turn, so
    a change of the shared machine's speed weighs on all three alike. The
    in-process rows are this process's CPU time (time.process_time: they do
    not wait, and CPU time is steadier than wall time on a shared machine);
    the redis-py row is wall time over a tenth as many operations, as its
    cost is mostly the round trip. Each row prints its best round; "Engine
    is Nx faster" is the median of the five rounds' own ratios (redis-py /
    evalsha of the same round), with their range. Rates are operations per
    second. The plans-off row and the bridge rows are best of 5 runs.

Usage
  python bench/bench_scripting.py              # 1M members, 100k operations
  python bench/bench_scripting.py --size 100000 --ops 20000
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, List, Tuple

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import redis  # noqa: E402

import fastrank  # noqa: E402
from fastrank.engine.commands.scripting import set_script_plans  # noqa: E402
from fastrank.testing import free_port, start_redis  # noqa: E402

SCRIPT = """
redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])
return redis.call('zrevrank', KEYS[1], ARGV[2])
"""
K = 20
BRIDGE_K = ("for i = 1, %d do redis.call('zrevrank', KEYS[1], ARGV[1]) end "
            "redis.call('zrevrank', KEYS[1], ARGV[1]) return 1" % K)
BRIDGE_1 = "redis.call('zrevrank', KEYS[1], ARGV[1]) return 1"
EMPTY = "return 1"
ROUNDS = 5


def best(fn: Callable[[], Any], repeats: int = 5, clock: Callable[[], float] = time.process_time
         ) -> float:
    times = []
    for _ in range(repeats):
        t = clock()
        fn()
        times.append(clock() - t)
    return min(times)


def load(client: Any, key: str, ids: np.ndarray, scores: np.ndarray) -> None:
    for i in range(0, len(ids), 10_000):
        client.zadd(key, {int(m): float(s) for m, s in zip(ids[i:i + 10_000], scores[i:i + 10_000])})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--ops", type=int, default=100_000)
    opts = ap.parse_args()
    rng = np.random.default_rng(1)
    ids = rng.choice(900_000_000, size=opts.size, replace=False).astype(np.int64) + 100_000_000
    scores = rng.integers(0, 1_000_000, size=opts.size).astype(np.float64)
    pick = np.random.default_rng(2)
    members = [str(int(m)) for m in pick.choice(ids, size=opts.ops)]
    amounts = [int(a) for a in pick.integers(1, 101, size=opts.ops)]
    ops = list(zip(amounts, members))
    key = "board"

    engine = fastrank.Engine()
    load(engine, key, ids, scores)
    script = engine.register_script(SCRIPT)

    def direct() -> None:
        for n, m in ops:
            engine.zincrby(key, n, m)
            engine.zrevrank(key, m)

    def evalsha() -> None:
        for n, m in ops:
            script(keys=[key], args=[n, m])

    rops = ops[: max(1, opts.ops // 10)]
    rounds: List[Tuple[float, float, float]] = []  # (direct, evalsha, redis-py) seconds per len(ops)
    with tempfile.TemporaryDirectory(prefix="fastrank-bench-") as workdir:
        server = start_redis(free_port(), workdir)
        try:
            client = redis.Redis(host="127.0.0.1", port=server.port)
            load(client, key, ids, scores)
            rscript = client.register_script(SCRIPT)

            def via_redis() -> None:
                for n, m in rops:
                    rscript(keys=[key], args=[n, m])

            for _ in range(ROUNDS):
                # wall time for redis-py: the server's work is in another process
                rounds.append((best(direct, 1), best(evalsha, 1),
                               best(via_redis, 1, time.perf_counter) * len(ops) / len(rops)))
            client.close()
        finally:
            server.stop()
    t_direct = min(r[0] for r in rounds)
    t_eval = min(r[1] for r in rounds)
    t_redis = min(r[2] for r in rounds)
    ratios = sorted(r[2] / r[1] for r in rounds)

    # the same script with plans off (every call in Lua, as before plans)
    set_script_plans(engine, False)
    t_lua = best(evalsha)
    set_script_plans(engine, True)

    few = ops[: max(1, opts.ops // 10)]
    s_k, s_1, s_0 = (engine.register_script(b) for b in (BRIDGE_K, BRIDGE_1, EMPTY))

    def run(s: Any) -> Callable[[], None]:
        def go() -> None:
            for _, m in few:
                s(keys=[key], args=[m])
        return go

    t_k, t_1, t_0 = best(run(s_k)), best(run(s_1)), best(run(s_0))

    def zrevrank_only() -> None:
        for _, m in few:
            engine.zrevrank(key, m)

    t_rank = best(zrevrank_only)

    n = len(ops)
    us = lambda t, count=n: t / count * 1e6  # noqa: E731
    print(f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"redis-py {redis.__version__}, {opts.size:,} members, {n:,} operations")
    print(f"direct ZINCRBY + ZREVRANK (Engine)      {us(t_direct):8.2f} us/op  "
          f"{n / t_direct:12,.0f} op/s")
    print(f"EVALSHA script (Engine)                 {us(t_eval):8.2f} us/op  "
          f"{n / t_eval:12,.0f} op/s   {t_eval / t_direct:5.2f}x the direct calls")
    print(f"EVALSHA script, plans off (Lua)         {us(t_lua):8.2f} us/op  "
          f"{n / t_lua:12,.0f} op/s   {t_lua / t_direct:5.2f}x the direct calls")
    print(f"EVALSHA script (redis-py -> redis)      {us(t_redis):8.2f} us/op  "
          f"{n / t_redis:12,.0f} op/s   Engine is {statistics.median(ratios):5.1f}x faster "
          f"(rounds {ratios[0]:.1f}x-{ratios[-1]:.1f}x)")
    m = len(few)
    print(f"empty script (EVALSHA 'return 1')       {us(t_0, m):8.2f} us/op")
    print(f"one redis.call('zrevrank') in a script  {us(t_k - t_1, m * K):8.2f} us/call "
          f"(direct Engine zrevrank {us(t_rank, m):.2f} us)")


if __name__ == "__main__":
    main()
