"""``totals_columns_upto``: the totals a rebuild loads, read as columns, on a
SQLite file and on PostgreSQL. Each page must equal ``totals_upto``'s (the
row-by-row reading) with the ids as UTF-8 and the times floored to whole
seconds: pages in player
order, the cursor, rows changed after ``upto`` summed again, player ids that
contain the separator, times before the epoch, huge and fractional."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fastrank.service import SQLiteStore
from fastrank.service.store import PLAYER_SEPARATOR

T0 = 1_790_000_000.0


@pytest.fixture
def store(sql_store):
    return sql_store


def pages(store, upto, batch, read):
    out, after = [], ""
    while after is not None:
        page = read(store, upto, after, batch)
        out.append(page)
        after = page.next_after
    return out


def rows(store, upto, after, batch):
    return store.totals_upto("s", upto, after, batch)


def columns(store, upto, after, batch):
    return store.totals_columns_upto("s", upto, after, batch)


def assert_same_pages(store, upto, batch):
    by_rows, by_columns = pages(store, upto, batch, rows), pages(store, upto, batch, columns)
    assert [p.next_after for p in by_columns] == [p.next_after for p in by_rows]
    for r, c in zip(by_rows, by_columns):
        assert c.players == [p.encode() for p in r.players]
        assert c.points.dtype == np.int64 and c.points.tolist() == r.points
        assert c.seconds.dtype == np.int64 and c.seconds.tolist() == [math.floor(a) for a in r.ats]
    return by_columns


def test_columns_equal_the_rows_page_by_page(store):
    for i in range(23):
        store.record("s", f"m{i}", {f"p{i % 9}": i + 1, f"q{i % 4}": -i}, T0 + i + 0.75)
    store.record("other", "x1", {"p1": 1000}, T0)        # another season is not read
    upto = store.last_event_id()
    for batch in (1, 4, 13, 100):
        got = assert_same_pages(store, upto, batch)
        assert sum(len(p.players) for p in got) == 13
    assert store.totals_columns_upto("s", upto, "zzz", 5).players == []
    assert store.totals_columns_upto("nope", upto).next_after is None


def test_rows_changed_after_upto_are_summed_again(store):
    store.record("s", "m1", {"a": 5, "b": 7, "c": 1}, T0)
    upto = store.last_event_id()
    store.record("s", "m2", {"b": 100, "d": 3}, T0 + 50.5)   # after upto: b re-summed, d left out
    store.tombstone_player("s", "c")                         # its correction comes after upto too
    got = assert_same_pages(store, upto, 2)
    flat = {p: (pts, sec) for page in got for p, pts, sec in
            zip(page.players, page.points.tolist(), page.seconds.tolist())}
    assert flat == {b"a": (5, int(T0)), b"b": (7, int(T0))}


def test_separator_in_ids_and_extreme_times(store):
    store.record("s", "m1", {f"x{PLAYER_SEPARATOR.decode()}y": 1, "plain": 2, "é": 3}, -2.5)
    store.record("s", "m2", {"big": 4}, 5e18)
    store.record("s", "m3", {"small": 5}, -5e18)
    store.record("s", "m4", {"frac": 6}, T0 + 0.999999)
    upto = store.last_event_id()
    for batch in (1, 2, 10):
        assert_same_pages_clamped(store, upto, batch)
    page = store.totals_columns_upto("s", upto, "", 10, with_seconds=False)
    assert page.seconds is None and page.players == [b"big", b"frac", b"plain", b"small",
                                                     b"x\x1fy", "é".encode()]


def assert_same_pages_clamped(store, upto, batch):
    by_rows, by_columns = pages(store, upto, batch, rows), pages(store, upto, batch, columns)
    for r, c in zip(by_rows, by_columns):
        assert c.players == [p.encode() for p in r.players] and c.points.tolist() == r.points
        assert c.seconds.tolist() == [math.floor(min(max(a, -4e18), 4e18)) for a in r.ats]


def test_ranges_cut_by_splits_cover_every_player_once(store):
    for i in range(40):
        store.record("s", f"m{i}", {f"p{i:02d}": i + 1}, T0 + i)
    upto = store.last_event_id()
    store.record("s", "late", {"p05": 50, "p30": 1}, T0 + 99)   # changed after upto: summed again
    cuts = store.totals_splits("s", 3)
    assert len(cuts) == 2 and store.totals_splits("nope", 3) == []
    seen = []
    with store.reading_copy() as copy:
        for after, until in zip(["", *cuts], [*cuts, None]):
            for batch in (1, 7, 100):
                got, cursor = [], after
                while cursor is not None:
                    page = copy.totals_columns_upto("s", upto, cursor, batch, until=until)
                    rows = store.totals_upto("s", upto, cursor, batch, until=until)
                    assert page.players == [p.encode() for p in rows.players]
                    assert page.next_after == rows.next_after
                    got.append(page)
                    cursor = page.next_after
                if batch == 7:
                    seen += [(p, pts) for page in got for p, pts in zip(page.players, page.points.tolist())]
    assert seen == [(b"p%02d" % i, i + 1) for i in range(40)]


def test_new_files_keep_totals_without_rowid_and_older_files_are_migrated_to_it(tmp_path):
    s = SQLiteStore(tmp_path / "new.db")
    (sql,), = s._read("SELECT sql FROM sqlite_master WHERE name = 'totals'")
    assert sql.endswith("WITHOUT ROWID")
    s.close()
    import sqlite3
    old = sqlite3.connect(tmp_path / "old.db")
    old.execute("CREATE TABLE totals (season TEXT NOT NULL, player TEXT NOT NULL, points BIGINT NOT NULL, "
                "at DOUBLE PRECISION NOT NULL, last_id BIGINT NOT NULL, PRIMARY KEY (season, player))")
    old.commit()
    old.close()
    s = SQLiteStore(tmp_path / "old.db")   # an empty store of the layout before boards: migrated by itself
    (sql,), = s._read("SELECT sql FROM sqlite_master WHERE name = 'totals'")
    assert sql.endswith("WITHOUT ROWID")
    for i in range(5):
        s.record("s", f"m{i}", {f"p{i}": i + 1}, T0 + i)
    assert_same_pages(s, s.last_event_id(), 2)
    s.close()
