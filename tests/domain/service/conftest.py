"""Fixtures of the score service's tests.

- ``sql_store``: an empty store, parametrised over ``sqlite`` (a file in the
  test's folder) and ``postgres`` (a schema of the test's own on the test
  server), closed after the test.
"""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from fastrank import PostgresStore, SQLiteStore


@pytest.fixture(params=["sqlite", "postgres"])
def sql_store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    s = (SQLiteStore(tmp_path / "scores.db") if request.param == "sqlite"
         else PostgresStore(request.getfixturevalue("postgres_dsn")))
    yield s
    s.close()
