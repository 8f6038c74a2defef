"""The layers of the package, enforced over its import graph (read from the
sources by ``imports.py``; every import that runs counts, at module level or
inside a function).

    structures (fastrank._core, _threads, errors)
        ^
    engine (fastrank.engine.*)            knows nothing of the domain
        ^
    leaderboard, counters (+ runner, _faces) speak only redis-py commands and Lua
        ^
    service                               records first, applies after
        ^
    cli, bench, asyncio, the package      faces for people and programs
"""
from __future__ import annotations

import pytest

from imports import cycles, import_graph

GRAPH = import_graph()

BASE = ("fastrank._core", "fastrank._threads", "fastrank.errors")
DOMAIN_BASE = ("fastrank.errors", "fastrank.runner")

#: module prefix → the module prefixes it may import (besides its own package).
#: The domain (leaderboard, counters, service) imports neither the Engine nor
#: the compiled core: it speaks redis-py commands and Lua scripts only, so it
#: runs on a Redis server as on the Engine.
ALLOWED = {
    "fastrank._core": ("fastrank._threads", "fastrank.errors"),
    "fastrank._threads": (),
    "fastrank.errors": (),
    "fastrank.progress": (),
    "fastrank.testing": (),
    "fastrank.engine": BASE,
    # the runner's one compiled part: the sync face's method of a plan (plain C, imports nothing)
    "fastrank.runner": ("fastrank._faces",),
    "fastrank._faces": (),
    "fastrank.leaderboard": DOMAIN_BASE,
    "fastrank.counters": DOMAIN_BASE,
    "fastrank.service": DOMAIN_BASE + ("fastrank.leaderboard", "fastrank.counters"),
    # Above both: the Engine's native paths of the leaderboard's scripts know
    # the Engine's keyspace (through _core.pxd) and the leaderboard's scripts.
    "fastrank.natives": BASE + ("fastrank.engine", "fastrank.runner"),
}

#: Exact modules a rule allows beyond its prefixes.
EXACT = {"fastrank.natives": ("fastrank.engine.keyspace",)}


def _rule(module: str):
    best = max((prefix for prefix in ALLOWED if module == prefix or module.startswith(prefix + ".")),
               key=len, default=None)
    return best


def _permitted(module: str, target: str) -> bool:
    rule = _rule(module)
    own = rule if rule not in ("fastrank._core", "fastrank._threads", "fastrank.errors") else module
    if target == own or target.startswith(own + "."):
        return True
    allowed = ALLOWED[rule] + EXACT.get(rule, ())
    # an exact module, or anything under a package named with a trailing part
    return any(target == a or (target.startswith(a + ".") and a not in ("fastrank.engine",)) for a in allowed)


LAYERED = sorted(m for m in GRAPH if _rule(m) is not None)


def test_every_module_is_placed_in_a_layer_or_is_a_face():
    faces = {"fastrank", "fastrank.asyncio", "fastrank.cli", "fastrank.service_cli"}
    loose = [m for m in GRAPH if _rule(m) is None and m not in faces and not m.startswith("fastrank.bench")]
    assert loose == []


@pytest.mark.parametrize("module", LAYERED)
def test_imports_point_down(module):
    wrong = sorted(t for t in GRAPH[module] if not _permitted(module, t))
    assert wrong == [], f"{module} imports {wrong} across its layer"


def test_the_engine_imports_nothing_of_the_domain():
    domain = ("fastrank.leaderboard", "fastrank.counters", "fastrank.service", "fastrank.runner", "fastrank.cli",
              "fastrank.bench", "fastrank.asyncio", "fastrank.natives")
    for module in GRAPH:
        if module.startswith("fastrank.engine") or module in BASE:
            assert not [t for t in GRAPH[module] if t.startswith(domain)], module


def test_no_import_cycle():
    assert cycles(GRAPH) == []


def test_the_checker_sees_a_cycle_and_a_wrong_arrow():
    """The checks themselves: a made-up graph with a cycle and an upward import."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert not _permitted("fastrank.engine.engine", "fastrank.leaderboard.board")
    assert not _permitted("fastrank.leaderboard.board", "fastrank.engine.keyspace")
    assert not _permitted("fastrank.service.service", "fastrank.engine.keyspace")
    assert not _permitted("fastrank.service.service", "fastrank.engine")
    assert not _permitted("fastrank.leaderboard.board", "fastrank._core")
    assert not _permitted("fastrank.leaderboard.board", "fastrank.natives")
    assert _permitted("fastrank.natives", "fastrank.engine.keyspace")
    assert _permitted("fastrank.natives._board", "fastrank._core")
    assert not _permitted("fastrank.leaderboard._entries", "fastrank._core")
    assert _permitted("fastrank.service.service", "fastrank.leaderboard.board")


def test_no_module_imports_another_modules_private_members():
    from imports import private_imports

    assert private_imports() == []
