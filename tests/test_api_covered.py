"""Every public method and every Engine command is exercised by some test.

A cheap guard against features that exist but nothing checks: each public
name of the compiled classes must be called somewhere under tests/ (as
``.name(``), and each command in the Engine's table must be called as a
redis-py method or sent by name through ``execute_command``.
"""
import re
from pathlib import Path

import pytest

import fastrank
from fastrank.engine.commands import COMMANDS

TESTS = Path(__file__).parent
SOURCE = "\n".join(
    p.read_text(encoding="utf-8") for p in TESTS.rglob("*.py") if p.name != Path(__file__).name
)
CLASSES = [getattr(fastrank, name) for name in ("SortedSet", "HyperLogLog", "CountMinSketch", "TopK", "Leaderboard")]


def public_methods(cls):
    return sorted(n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n)))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_public_method_is_called_in_tests(cls):
    missing = [n for n in public_methods(cls) if not re.search(r"\.%s\(" % re.escape(n), SOURCE)]
    assert not missing, f"{cls.__name__} methods no test calls: {missing}"


def test_every_engine_command_is_called_in_tests():
    missing = []
    for raw in COMMANDS:
        name = raw.decode().lower()
        as_method = re.search(r"\.%s\(" % re.escape(name), SOURCE)
        by_name = re.search(r"""['"]%s['"]""" % re.escape(name), SOURCE, re.IGNORECASE)
        if not (as_method or by_name):
            missing.append(name)
    assert not missing, f"Engine commands no test sends: {sorted(missing)}"
