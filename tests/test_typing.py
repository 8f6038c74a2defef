"""Typing (issue 5): ``mypy --strict`` is clean on src/fastrank, and the
stubs of the compiled modules (``_core.pyi``, ``_faces.pyi``, ``_entries.pyi``, ``_totals.pyi``)
match the modules (stubtest)."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mypy")

# stubtest findings that are Cython artifacts, not stub errors:
# - cdef classes with __cinit__ report ``__init__(self, /, *args, **kwargs)``
#   although __init__ takes no positional argument;
# - Cython leaves its pickling helpers (and, in _entries and _totals, its doctest dict
#   __test__) at module level, and in _core the capsules of the C-level interface
#   other extensions cimport (__pyx_capi__).
STUBTEST_ALLOWLIST = """\
fastrank._core.SortedSet.__init__
fastrank._core.HyperLogLog.__init__
fastrank._core.__reduce_cython__
fastrank._core.__setstate_cython__
fastrank._core.__pyx_capi__
fastrank.natives._board.__test__
fastrank.leaderboard._entries.__test__
fastrank.service._totals.__reduce_cython__
fastrank.service._totals.__setstate_cython__
fastrank.service._totals.__test__
"""


def _run(args):
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)


def test_mypy_strict_clean():
    proc = _run(["mypy", "--strict", "src/fastrank"])
    assert proc.returncode == 0, f"mypy --strict src/fastrank:\n{proc.stdout}{proc.stderr}"


def test_core_stub_matches_module():
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(STUBTEST_ALLOWLIST)
    try:
        proc = _run(["mypy.stubtest", "fastrank._core", "fastrank._faces", "fastrank.leaderboard._entries", "fastrank.natives._board",
                     "fastrank.service._totals", "--allowlist", f.name])
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, (f"stubtest of the compiled modules:\n"
                                  f"{proc.stdout}{proc.stderr}")


SUBMIT_TYPES = '''\
from typing import assert_type

import fastrank
import fastrank.asyncio
from fastrank import Change
from fastrank.leaderboard.scorebits import Points

board = fastrank.Leaderboard(fastrank.Engine(), "b")
assert_type(board.submit("a", 1), Points)
assert_type(board.submit("a", 1, with_rank=True), Change)
sharded = fastrank.ShardedLeaderboard(fastrank.Engine(), "s")
assert_type(sharded.submit("a", 1, with_rank=True), Change)


async def run() -> None:
    board = fastrank.asyncio.Leaderboard(fastrank.asyncio.Engine(), "b")
    assert_type(await board.submit("a", 1), Points)
    assert_type(await board.submit("a", 1, with_rank=True), Change)
'''


def test_submit_return_type_follows_with_rank(tmp_path):
    """``submit`` is typed by ``with_rank``: the new points, or a Change."""
    checked = tmp_path / "submit_types.py"
    checked.write_text(SUBMIT_TYPES)
    proc = _run(["mypy", "--strict", str(checked)])
    assert proc.returncode == 0, f"{proc.stdout}{proc.stderr}"


def test_help_shows_what_a_method_returns_not_its_plan():
    import inspect

    import fastrank
    import fastrank.asyncio

    for method in (fastrank.Leaderboard.rank, fastrank.asyncio.Leaderboard.top, fastrank.ShardedLeaderboard.top,
                   fastrank.ScoreService.top, fastrank.ShardedCounter.value):
        returned = str(inspect.signature(method).return_annotation)
        assert "Plan" not in returned and "Steps" not in returned, (method, returned)
