"""Batch calls whose list argument another thread mutates meanwhile.

Each scenario runs three threads on one object: a writer of big numpy
batches (threaded: it releases the GIL while the object's gate is busy, so
list calls wait behind it), a caller of list batches, and a mutator that
clears, grows and replaces the caller's list all the time.  A batch works on
the list as it was when the call started (its own copy), so nothing crashes
or reads freed items, and the totals add up exactly: every call's result
length is the number of items it applied.
"""
from __future__ import annotations

import threading
from typing import Callable, List

import numpy as np
import pytest

import fastrank
from fastrank import CountMinSketch, HyperLogLog, SortedSet, TopK

ROUNDS = 40
BIG = 200_000


@pytest.fixture(autouse=True)
def _two_threads():
    before = fastrank.get_threads()
    fastrank.set_threads(2)
    yield
    fastrank.set_threads(before)


def run_three(big_batch: Callable[[], None], list_call: Callable[[List[str]], int]) -> int:
    """Runs the three threads; returns the items the list calls applied."""
    shared: List[str] = [f"i{k}" for k in range(500)]
    stop = threading.Event()
    errors: List[BaseException] = []
    applied = [0]

    def mutator() -> None:
        k = 0
        while not stop.is_set():
            k += 1
            if k % 3 == 0:
                shared.clear()
            elif k % 3 == 1:
                shared.extend(f"g{k}-{j}" for j in range(300))
            else:
                shared[:] = [f"r{k}-{j}" * 3 for j in range(200)]

    def writer() -> None:
        try:
            for _ in range(4):
                big_batch()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def caller() -> None:
        try:
            for _ in range(ROUNDS):
                applied[0] += list_call(shared)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=f, daemon=True) for f in (mutator, writer, caller)]
    for t in threads:
        t.start()
    for t in threads[1:]:
        t.join(timeout=120)
    stop.set()
    threads[0].join(timeout=10)
    assert not any(t.is_alive() for t in threads), "a batch call hangs"
    assert not errors, errors[0]
    return applied[0]


def test_cms_incrby_list_waiting_behind_a_threaded_batch() -> None:
    cms = CountMinSketch(2000, 4)
    ints = np.arange(BIG, dtype=np.int64)
    applied = run_three(lambda: cms.add_many(ints), lambda lst: len(cms.incrby(lst, 1)))
    assert cms.total == 4 * BIG + applied


def test_cms_query_list_waiting_behind_a_threaded_batch() -> None:
    cms = CountMinSketch(2000, 4)
    ints = np.arange(BIG, dtype=np.int64)
    run_three(lambda: cms.add_many(ints), lambda lst: len(cms.query(lst)))
    assert cms.total == 4 * BIG


def test_hll_add_many_list_waiting_behind_a_threaded_batch() -> None:
    h = HyperLogLog()
    ints = np.arange(BIG, dtype=np.int64)
    def call(lst: List[str]) -> int:
        h.add_many(lst)
        return 0

    run_three(lambda: h.add_many(ints), call)
    h._check()
    assert h.count() >= BIG * 0.95


def test_topk_incrby_list_while_a_two_thread_batch_runs() -> None:
    t = TopK(10, 64, 5, 1.0, seed=4)
    ints = np.arange(BIG, dtype=np.int64) % 1000
    run_three(lambda: t.add_many(ints), lambda lst: len(t.incrby(lst, 1)))
    t._check()


def test_sortedset_add_many_list_while_mutated() -> None:
    z = SortedSet()

    def big() -> None:
        z.add_many(np.arange(BIG // 4), np.ones(BIG // 4))

    class Score(float):
        def __float__(self) -> float:  # runs Python code: other threads may run
            return 1.0

    def call(lst: List[str]) -> int:
        # The scores are read with Python code (the mutator then runs), so the
        # members must be the call's own copy, taken first.
        n = len(lst)
        try:
            return z.add_many(lst, [Score(1.0)] * n)
        except ValueError:  # the list changed length before the call copied it
            return 0

    run_three(big, call)
    z._check()
