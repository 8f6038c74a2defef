"""The score stores (SQLite file, real PostgreSQL): the log, idempotency, ceilings,
tombstones, totals, archives, and several writer processes on one store."""
from __future__ import annotations

import multiprocessing

import pytest

from fastrank.service import (CeilingExceeded, ConflictingResubmit, PostgresStore, SQLiteStore,
                              Standing, Total)

DAY = 86_400.0
T0 = 1_790_000_000.0  # a fixed instant; ceilings count the UTC day of each event


@pytest.fixture(params=["sqlite", "postgres"])
def store_factory(request, tmp_path):
    """A function that opens (again) the same store: a file, or a schema on the server."""
    if request.param == "sqlite":
        path = tmp_path / "scores.db"
        opened = []

        def open_sqlite():
            opened.append(SQLiteStore(path))
            return opened[-1]
        yield open_sqlite
    else:
        dsn = request.getfixturevalue("postgres_dsn")
        opened = []

        def open_postgres():
            opened.append(PostgresStore(dsn))
            return opened[-1]
        yield open_postgres
    for s in opened:
        s.close()


@pytest.fixture
def store(store_factory):
    return store_factory()


def test_record_logs_events_in_order_and_keeps_totals(store):
    events, duplicate = store.record("s1", "m1", {"ann": 10, "bob": 7}, T0)
    assert not duplicate
    assert [(e.kind, e.season, e.match_id, e.player, e.points, e.at, e.tombstoned) for e in events] == [
        ("score", "s1", "m1", "ann", 10, T0, False), ("score", "s1", "m1", "bob", 7, T0, False)]
    assert events[0].id < events[1].id
    store.record("s1", "m2", {"ann": 5}, T0 + 60)
    assert store.total("s1", "ann") == Total("ann", 15, T0 + 60)
    assert store.total("s1", "bob") == Total("bob", 7, T0)
    assert store.total("s1", "nobody") is None
    assert store.total("s2", "ann") is None
    assert store.count("s1") == 2
    assert store.last_event_id() == max(e.id for e in store.events_after(0))


def test_a_retry_returns_the_first_events_and_adds_nothing(store):
    first, _ = store.record("s1", "m1", {"ann": 10, "bob": 7}, T0)
    last = store.last_event_id()
    again, duplicate = store.record("s1", "m1", {"ann": 10, "bob": 7}, T0 + 999)
    assert duplicate and again == first
    assert store.last_event_id() == last
    assert store.total("s1", "ann").points == 10


@pytest.mark.parametrize("retry", [
    {"ann": 11, "bob": 7},          # other points
    {"ann": 10, "bob": 7, "cy": 1},  # another player added to the match
    {"ann": 10},                     # fine on its own, but ...
])
def test_a_conflicting_resubmit_is_refused_and_the_original_stays(store, retry):
    first, _ = store.record("s1", "m1", {"ann": 10, "bob": 7}, T0)
    if retry == {"ann": 10}:
        # ... a subset of the first match is the same events: a duplicate.
        assert store.record("s1", "m1", retry, T0)[1] is True
        return
    last = store.last_event_id()
    with pytest.raises(ConflictingResubmit, match="m1"):
        store.record("s1", "m1", retry, T0)
    assert store.last_event_id() == last
    assert store.total("s1", "ann").points == 10 and store.total("s1", "cy") is None
    with pytest.raises(ConflictingResubmit, match="season"):
        store.record("s2", "m1", {"ann": 10}, T0)


def test_the_daily_ceiling_refuses_the_whole_match(store):
    # The day is the one the store records the match on (recorded_at), not the caller's at.
    store.record("s1", "m1", {"ann": 60}, T0, max_per_day=100, recorded_at=T0)
    last = store.last_event_id()
    with pytest.raises(CeilingExceeded, match="ann"):
        store.record("s1", "m2", {"bob": 10, "ann": 41}, T0 + 10, max_per_day=100, recorded_at=T0 + 10)
    with pytest.raises(CeilingExceeded, match="ann"):   # a claimed time a day later does not dodge it
        store.record("s1", "m2", {"ann": 41}, T0 + DAY, max_per_day=100, recorded_at=T0 + 10)
    assert store.last_event_id() == last and store.total("s1", "bob") is None
    store.record("s1", "m3", {"ann": 40}, T0 + 20, max_per_day=100, recorded_at=T0 + 20)          # exactly 100
    store.record("s1", "m4", {"ann": 40}, T0 + 30, max_per_day=100, recorded_at=T0 + DAY)         # a new day
    assert store.total("s1", "ann").points == 140


def test_tombstones_recompute_totals_and_log_corrections(store):
    store.record("s1", "m1", {"ann": 10, "bob": 7}, T0)
    store.record("s1", "m2", {"ann": 5}, T0 + 60)
    fix = store.tombstone_match("m2")
    assert [(e.kind, e.player, e.points, e.match_id) for e in fix] == [("correction", "ann", 10, None)]
    assert store.total("s1", "ann") == Total("ann", 10, T0)
    assert store.tombstone_match("m2") == []
    fix = store.tombstone_player("s1", "bob")
    assert (fix.kind, fix.player, fix.points) == ("correction", "bob", 0)
    assert store.total("s1", "bob").points == 0
    assert store.tombstone_player("s1", "bob") is None
    history = store.history("ann")
    assert [(e.kind, e.match_id, e.points, e.tombstoned) for e in history] == [
        ("score", "m1", 10, False), ("score", "m2", 5, True), ("correction", None, 10, False)]
    assert store.history("ann", season="s2") == []
    # A tombstoned event still holds its (match, player): a retry is a duplicate.
    assert store.record("s1", "m2", {"ann": 5}, T0)[1] is True


def test_events_after_pages_through_the_log(store):
    for i in range(25):
        store.record("s1", f"m{i}", {f"p{i % 4}": i + 1}, T0 + i)
    seen = []
    after = 0
    while True:
        page = store.events_after(after, limit=7)
        if not page:
            break
        seen += page
        after = page[-1].id
    assert [e.match_id for e in seen] == [f"m{i}" for i in range(25)]
    assert all(a.id < b.id for a, b in zip(seen, seen[1:]))


def test_totals_stream_in_batches_and_top_is_ordered(store):
    for i in range(30):
        store.record("s1", f"m{i}", {f"p{i:02d}": (i % 5) * 10}, T0 + 100 - i)
    batches = list(store.totals("s1", batch=8))
    assert [len(b) for b in batches] == [8, 8, 8, 6]
    everyone = [t for b in batches for t in b]
    assert sorted(t.player for t in everyone) == [f"p{i:02d}" for i in range(30)]
    top = store.top("s1", 7)
    # most points first; among equal points, whoever reached them earliest
    assert [(t.points, t.player) for t in top] == [
        (40, "p29"), (40, "p24"), (40, "p19"), (40, "p14"), (40, "p09"), (40, "p04"), (30, "p28")]
    assert list(store.totals("nope")) == []


def test_archive_and_standings(store):
    rows = [Standing(1, "ann", 30), Standing(2, "bob", 20), Standing(3, "cy", 20)]
    assert store.archive("s1", rows) == 3
    assert store.standings("s1") == rows
    assert store.standings("s1", 2) == rows[:2]
    store.archive("s1", rows[:1])
    assert store.standings("s1") == rows[:1]


def test_what_was_committed_is_there_after_reopening(store_factory):
    first = store_factory()
    first.record("s1", "m1", {"ann": 3}, T0)
    first.close()
    again = store_factory()
    assert again.total("s1", "ann").points == 3
    assert again.record("s1", "m1", {"ann": 3}, T0)[1] is True


def _writer(kind: str, where: str, name: str, n: int) -> None:
    store = SQLiteStore(where) if kind == "sqlite" else PostgresStore(where)
    for i in range(n):
        store.record("s1", f"{name}-{i}", {name: 1, "shared": 1}, T0 + i)
    store.close()


def test_two_writer_processes_lose_nothing_and_ids_follow_commits(store_factory, store):
    where = store.path if isinstance(store, SQLiteStore) else store.dsn
    kind = "sqlite" if isinstance(store, SQLiteStore) else "postgres"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(kind, where, name, 150)) for name in ("w1", "w2")]
    for p in procs:
        p.start()
    # Tail the log while they write, as an applier would: every event is seen
    # exactly once and in id order, even those committed while we read.
    seen = []
    after = 0
    while any(p.is_alive() for p in procs) or store.events_after(after):
        for e in store.events_after(after, limit=50):
            seen.append(e)
            after = e.id
    for p in procs:
        p.join()
        assert p.exitcode == 0
    assert len(seen) == 600 and len({e.id for e in seen}) == 600
    assert store.total("s1", "shared").points == 300
    assert store.total("s1", "w1").points == store.total("s1", "w2").points == 150
