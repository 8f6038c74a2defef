"""The shared worker pool of the batch paths (fastrank._threads)."""
import os
import subprocess
import sys
import threading

import pytest

import fastrank
from fastrank import _threads


@pytest.fixture(autouse=True)
def _restore_threads():
    before = fastrank.get_threads()
    yield
    fastrank.set_threads(before)


def test_set_and_get():
    fastrank.set_threads(3)
    assert fastrank.get_threads() == 3
    fastrank.set_threads(1)
    assert fastrank.get_threads() == 1


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True, None])
def test_set_threads_rejects_bad_values(bad):
    fastrank.set_threads(2)
    with pytest.raises(ValueError):
        fastrank.set_threads(bad)
    assert fastrank.get_threads() == 2


def test_environment_variable_sets_the_default():
    code = "import fastrank; print(fastrank.get_threads())"
    env = dict(os.environ, FASTRANK_THREADS="5")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "5"
    env["FASTRANK_THREADS"] = "zero"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "FASTRANK_THREADS" in bad.stderr


def test_parts_cover_the_range_in_order():
    fastrank.set_threads(4)
    for n in (0, 1, 10, 999, 1000, 4001, 10**6):
        ps = _threads.parts(n, 1000)
        assert ps[0][0] == 0 and ps[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(ps, ps[1:]))
        assert len(ps) <= 4
        assert len(ps) == 1 or all(stop - start >= 1000 for start, stop in ps)
    fastrank.set_threads(1)
    assert _threads.parts(10**6, 10) == [(0, 10**6)]


def test_run_parallel_runs_every_call_and_keeps_order():
    fastrank.set_threads(4)
    names = set()

    def work(i):
        names.add(threading.current_thread().name)
        return i * i

    assert _threads.run_parallel(work, [(i,) for i in range(6)]) == [0, 1, 4, 9, 16, 25]
    assert threading.current_thread().name in names


def test_run_parallel_raises_the_first_error_after_all_finish():
    done = []

    def work(i):
        if i in (1, 2):
            raise KeyError(i)
        done.append(i)

    with pytest.raises(KeyError) as info:
        _threads.run_parallel(work, [(0,), (1,), (2,), (3,)])
    assert info.value.args == (1,)
    assert sorted(done) == [0, 3]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_pool_works_in_a_forked_child():
    _threads.run_parallel(lambda: None, [(), ()])  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # child: a pool whose threads did not survive the fork
        try:
            ok = _threads.run_parallel(lambda x: x + 1, [(1,), (2,)]) == [2, 3]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
