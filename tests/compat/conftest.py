"""Fixtures of the differential suite: a :class:`Pair` of (client under test, real Redis).

- ``pair``: the client under test (``fastrank.Engine`` unless
  ``FASTRANK_DIFF_OTHER`` says otherwise, see ``differential.py``) against a
  redis-py ``Redis`` with default options on the real 7.0 server.
- ``pair_decoded``: the same with ``decode_responses=True`` on both sides.
- ``seed``: random tests take it; they run once per default seed, or once
  with the seed given by ``--seed N`` or ``FASTRANK_SEED=N`` (which the
  failure report prints). ``FASTRANK_STEPS_SCALE`` multiplies step counts.
"""
from __future__ import annotations

import os
from typing import Iterator, List

import pytest
import redis

from differential import Pair, make_other

DEFAULT_SEEDS = [1, 2, 3, 4]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--seed", action="store", type=int, default=None,
                     help="run the seeded differential tests with this seed only")


def _seeds(config: pytest.Config) -> List[int]:
    opt = config.getoption("--seed", default=None)
    if opt is not None:
        return [opt]
    env = os.environ.get("FASTRANK_SEED")
    if env:
        return [int(s) for s in env.replace(",", " ").split()]
    return DEFAULT_SEEDS


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "seed" in metafunc.fixturenames:
        seeds = _seeds(metafunc.config)
        metafunc.parametrize("seed", seeds, ids=[f"seed{s}" for s in seeds])


def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    for item in items:
        if "tests/compat/" in item.nodeid.replace(os.sep, "/"):
            item.add_marker(pytest.mark.redis)
            item.add_marker(pytest.mark.compat)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "compat: differential test, client under test vs real Redis")


def _make_pair(request: pytest.FixtureRequest, decode: bool) -> Iterator[Pair]:
    server = request.getfixturevalue("redis_server")
    real = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=decode)
    real.flushall()
    other = make_other(server.port, decode_responses=decode)
    seed = request.node.callspec.params.get("seed") if hasattr(request.node, "callspec") else None
    pair = Pair(other, real, seed=seed, test_id=request.node.nodeid)
    yield pair
    if pair.mismatches:
        pytest.fail(f"{len(pair.mismatches)} distinct mismatches (FASTRANK_DIFF_KEEP_GOING=1):\n\n"
                    + "\n\n".join(pair.mismatches), pytrace=False)
    real.close()
    close = getattr(other, "close", None)
    if callable(close):
        close()


@pytest.fixture
def pair(request: pytest.FixtureRequest) -> Iterator[Pair]:
    yield from _make_pair(request, decode=False)


@pytest.fixture
def pair_decoded(request: pytest.FixtureRequest) -> Iterator[Pair]:
    yield from _make_pair(request, decode=True)
