"""Worker threads for the big batch paths of the compiled sketches.

A batch method (``HyperLogLog.add_many``, ``CountMinSketch.incrby`` ...) may
split a large numpy batch into parts that C code processes with the GIL
released, one part per thread, and then combine the parts so that the result
is exactly the one-thread result.  This module owns the threads: one shared
pool, created on first use and re-created after ``fork``.

How many threads a batch may use:

- ``fastrank.set_threads(n)`` sets it for the process (``1`` turns threading
  off); ``fastrank.get_threads()`` reads it;
- otherwise the environment variable ``FASTRANK_THREADS``;
- otherwise the number of CPUs this process may run on, at most 8.

Small batches always run on the calling thread: a part must be worth more
than the hand-off (a few microseconds).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, List, Optional, Sequence, Tuple

_MAX_DEFAULT = 8

_lock = threading.Lock()
_pool: Optional[ThreadPoolExecutor] = None
_pool_pid = 0
_pool_size = 0
_threads: Optional[int] = None


def _default_threads() -> int:
    env = os.environ.get("FASTRANK_THREADS", "").strip()
    if env:
        try:
            n = int(env)
        except ValueError:
            raise ValueError("FASTRANK_THREADS must be a positive integer, not %r" % env) from None
        if n < 1:
            raise ValueError("FASTRANK_THREADS must be a positive integer, not %r" % env)
        return n
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, _MAX_DEFAULT))


def get_threads() -> int:
    """How many threads one big batch call may use (1: no threading)."""
    global _threads
    if _threads is None:
        _threads = _default_threads()
    return _threads


def set_threads(n: int) -> None:
    """Let one big batch call use up to ``n`` threads (``1`` turns threading off).

    >>> import fastrank
    >>> fastrank.set_threads(1); fastrank.get_threads()
    1
    """
    global _threads
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("threads must be a positive integer")
    _threads = n


def _get_pool(size: int) -> ThreadPoolExecutor:
    global _pool, _pool_pid, _pool_size
    with _lock:
        pid = os.getpid()
        if _pool is None or _pool_pid != pid or _pool_size < size:
            old = _pool if _pool_pid == pid else None  # a forked child's pool has no threads
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="fastrank")
            _pool_pid, _pool_size = pid, size
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def parts(n: int, min_part: int) -> List[Tuple[int, int]]:
    """Split range(n) into at most get_threads() contiguous (start, stop) parts
    of at least ``min_part`` items each (one part when n is small)."""
    k = max(1, min(get_threads(), n // max(1, min_part)))
    return [(i * n // k, (i + 1) * n // k) for i in range(k)]


def run_parallel(fn: Callable[..., Any], calls: Sequence[Tuple[Any, ...]]) -> List[Any]:
    """fn(*args) for every args in calls, concurrently; the results in order.

    The first call runs on the calling thread, the others on the pool, so a
    single call costs nothing extra.  fn should release the GIL for its long
    part.  If any call raises, every call is still waited for, then the first
    exception (in call order) is raised.
    """
    if len(calls) <= 1:
        return [fn(*args) for args in calls]
    pool = _get_pool(len(calls) - 1)
    futures: List["Future[Any]"] = [pool.submit(fn, *args) for args in calls[1:]]
    first: List[Any] = []
    error: Optional[BaseException] = None
    try:
        first.append(fn(*calls[0]))
    except BaseException as exc:  # noqa: BLE001 - re-raised after the others finish
        error = exc
    results = first
    for f in futures:
        try:
            results.append(f.result())
        except BaseException as exc:  # noqa: BLE001
            if error is None:
                error = exc
    if error is not None:
        raise error
    return results
