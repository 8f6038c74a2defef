"""What the board benchmarks share: the microseconds one call takes."""
import random
import time
from typing import Any, Callable


def per_call(fn: Callable[[int], Any], ops: int, seed: int) -> float:
    """Mean microseconds of ``fn(a)`` over ``ops`` calls, ``a`` drawn at
    random (seeded) before the clock starts."""
    rnd = random.Random(seed)
    args = [rnd.randrange(1 << 30) for _ in range(ops)]
    t = time.perf_counter()
    for a in args:
        fn(a)
    return (time.perf_counter() - t) / ops * 1e6
