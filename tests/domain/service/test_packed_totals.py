"""The rebuild's compiled readers of a SQLite store (``fastrank.service._totals`` via
``SQLiteStore.score_order_scan`` and ``SQLiteStore.packed_totals``) against
the ``sqlite3``-module path they replace, and against each other: for every board configuration both give the same rows, the same
encoded scores and the same order (score, then member bytes), with player
ids that sort differently as text and as bytes, runs of equal scores, rows
changed after the rebuild's event id (summed again as of it), players who
only appear later (left out), and another season in the file."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService
from fastrank.service._totals import (SCORE_SCAN_SQL, ScoreOrderScan, TotalsScanError, gather_members, packed_members,
                              scan_error, scan_totals, ties_in_member_order)
from fastrank.service.packed import ReadAhead, board_order, open_score_scan, read_packed
from fastrank.service.service import ascending_order

T0 = 1_790_000_000

NAMES = ["zed", "é", "e\u0301", "ü", "😀", "a\x1fb", "A", "a", "10", "9", "x" * 80]
CONFIGS = [("desc", None), ("desc", "earliest"), ("desc", "latest"), ("asc", "earliest"), ("asc", "latest")]


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "scores.db")
    yield s
    s.close()


def fill(store, rng, players, matches):
    for m in range(matches):
        chosen = rng.sample(players, rng.randint(1, 4))
        store.record("s", f"m{m}", {p: rng.randint(-3, 6) for p in chosen}, T0 + rng.randint(0, 5) + rng.random(), board="b")
    store.record("other", "elsewhere", {players[0]: 1000}, T0, board="b")


def by_python(service, upto, batch):
    """What the sqlite3-module path loads: members and scores in score order."""
    players, _points, scores = service._read_totals(upto, batch)
    order = ascending_order(players, scores, batch)
    return players[order].tolist(), scores[order].tolist()


def by_native(service, upto):
    packed = service.store.packed_totals(service.season, upto, 2, board="b")
    assert packed is not None
    ranked = board_order(packed, service.board.codec)
    return packed_members(ranked.blob, ranked.offsets, ranked.positions), ranked.scores.tolist()


def test_the_compiled_reader_binds_here():
    assert scan_error() is None


@pytest.mark.parametrize("order,tiebreak", CONFIGS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_readers_give_the_same_board(store, order, tiebreak, seed):
    rng = random.Random(seed)
    players = NAMES + [f"p{i:03d}" for i in range(120)]
    fill(store, rng, players[:-15], 150)
    upto = store.last_event_id()
    # After upto: changed rows, players who only appear later, a tombstone.
    for m in range(20):
        store.record("s", f"late{m}", {rng.choice(players): rng.randint(1, 9)}, T0 + 9, board="b")
    store.tombstone_match("m3", board="b")
    service = ScoreService(Leaderboard(Engine(), "b", season="s", order=order, tiebreak=tiebreak),
                           store, allow_negative=True)
    members, scores = by_native(service, upto)
    # The python path sorts ties only where a chunk boundary cuts them (each ZADD sorts its own).
    python_members, python_scores = by_python(service, upto, 7)
    assert sorted(zip(scores, members)) == sorted(zip(python_scores, python_members))
    assert list(zip(scores, members)) == sorted(zip(scores, members))   # a sorted set's order, exactly
    assert len(members) == len(set(members)) and set(m.decode() for m in members) <= set(players[:-15])


def test_rows_changed_after_upto_are_summed_as_of_upto(store):
    store.record("s", "m1", {"a": 5, "b": 7}, T0 + 1.5, board="b")
    upto = store.last_event_id()
    store.record("s", "m2", {"a": 100, "c": 3}, T0 + 50, board="b")
    packed = store.packed_totals("s", upto, 2, board="b")
    got = {packed_members(packed.blob, packed.offsets, np.array([r]))[0]: (int(packed.points[r]), packed.ats[r])
           for r in packed.rows.tolist()}
    assert got == {b"a": (5, T0 + 1.5), b"b": (7, T0 + 1.5)}
    now = store.packed_totals("s", store.last_event_id(), 1, board="b")
    assert len(now.rows) == 3 and sorted(now.points.tolist()) == [3, 7, 105]


def test_scan_reads_a_range_in_player_order(store):
    store.record("s", "m1", {p: i for i, p in enumerate(["b", "a", "d", "c", "é"])}, T0, board="b")
    blob, offsets, points, ats, stale = scan_totals(str(store.path), "s", store.last_event_id(), "a", "d", board="b")
    assert packed_members(blob, offsets, np.arange(len(points))) == [b"b", b"c", b"d"]
    assert points.tolist() == [0, 3, 2] and ats.tolist() == [T0] * 3 and stale.tolist() == []
    blob, offsets, points, ats, stale = scan_totals(str(store.path), "s", 0, board="b")
    assert len(points) == 5 and stale.tolist() == [0, 1, 2, 3, 4]  # every row changed after event 0
    assert scan_totals(str(store.path), "nothing", 0, board="b")[0] == b""


def test_a_file_sqlite_refuses_raises(tmp_path):
    (tmp_path / "empty.db").write_bytes(b"")
    with pytest.raises(TotalsScanError, match="no such table: totals"):
        scan_totals(str(tmp_path / "empty.db"), "s", 0, board="b")
    with pytest.raises(TotalsScanError, match="unable to open database file"):
        scan_totals(str(tmp_path / "missing.db"), "s", 0, board="b")  # never created
    assert not (tmp_path / "missing.db").exists()


def test_an_in_memory_store_keeps_the_sqlite3_path():
    memory = SQLiteStore(":memory:")
    memory.record("s", "m1", {"a": 1}, T0, board="b")
    assert read_packed(memory, "s", memory.last_event_id(), 2, board="b") is None
    service = ScoreService(Leaderboard(Engine(), "b", season="s"), memory)
    assert service.rebuild() == 1 and service.top(1)[0].player == "a"
    memory.close()


def test_ties_out_of_member_order_are_sorted(store):
    store.record("s", "m1", {"b": 1, "a": 1, "c": 2}, T0, board="b")
    packed = store.packed_totals("s", store.last_event_id(), 1, board="b")
    blob, offsets = packed.blob, packed.offsets
    assert ties_in_member_order(blob, offsets, np.array([0, 1, 2]), np.array([1.0, 1.0, 2.0]))
    assert not ties_in_member_order(blob, offsets, np.array([1, 0, 2]), np.array([1.0, 1.0, 2.0]))
    # Rows given out of player order (as another text encoding would read them):
    swapped = packed._replace(rows=np.array([1, 0, 2]))
    ranked = board_order(swapped, Leaderboard(Engine(), "b", season="s", tiebreak=None).codec)
    assert packed_members(ranked.blob, ranked.offsets, ranked.positions) == [b"a", b"b", b"c"]


def test_bad_rows_raise_before_reading(store):
    store.record("s", "m1", {"a": 1}, T0, board="b")
    packed = store.packed_totals("s", store.last_event_id(), 1, board="b")
    with pytest.raises(IndexError, match="packed row out of range"):
        packed_members(packed.blob, packed.offsets, np.array([1]))
    with pytest.raises(ValueError, match="1 rows but 2 scores"):
        ties_in_member_order(packed.blob, packed.offsets, np.array([0]), np.array([1.0, 2.0]))


@pytest.mark.parametrize("order,tiebreak", CONFIGS)
def test_rebuild_fills_the_same_board_by_every_reader(store, monkeypatch, order, tiebreak):
    rng = random.Random(7)
    fill(store, rng, NAMES + [f"p{i:03d}" for i in range(300)], 400)
    boards = []
    for reader in ("scan", "packed", "python"):
        if reader != "scan":
            monkeypatch.setattr(store, "score_order_scan", lambda *args, **kwargs: None)
        if reader == "python":
            monkeypatch.setattr(store, "packed_totals", lambda *args, **kwargs: None)
        engine = Engine()
        service = ScoreService(Leaderboard(engine, "b", season="s", order=order, tiebreak=tiebreak,
                                           ranking="dense"), store, allow_negative=True)
        seen = []
        assert service.rebuild(progress=lambda done, total: seen.append(done), batch=64) == store.count("s", board="b")
        assert seen == [min(k, store.count("s", board="b")) for k in range(64, store.count("s", board="b") + 64, 64)]
        boards.append({k: (engine.zrange(k, 0, -1, withscores=True) if engine.type(k) == b"zset"
                           else engine.hgetall(k) if engine.type(k) == b"hash" else engine.get(k))
                       for k in engine.keys("*")})
    assert boards[0] == boards[1] == boards[2] and len(boards[0]) >= 3


def test_gather_packs_the_rows_again_in_order():
    blob, offsets = b"aabbbc", np.array([0, 2, 5, 5, 6], dtype=np.int64)   # "aa", "bbb", "", "c"
    out, out_offsets = gather_members(blob, offsets, np.array([3, 0, 2, 1, 0], dtype=np.int64))
    assert packed_members(out, out_offsets, np.arange(5)) == [b"c", b"aa", b"", b"bbb", b"aa"]
    assert gather_members(blob, offsets, np.array([], dtype=np.int64))[0] == b""
    with pytest.raises(IndexError, match="packed row out of range"):
        gather_members(blob, offsets, np.array([4], dtype=np.int64))


def scanned(store, season, upto, codec, batch):
    """Every chunk a ScoreOrderScan gives: (members written in order, scores, points), chunk sizes, changed."""
    scan = open_score_scan(store, season, upto, codec, board="b")
    assert scan is not None
    members, scores, points, sizes = [], [], [], []
    try:
        while (chunk := scan.next_chunk(batch)) is not None:
            blob, offsets, rows, chunk_scores, chunk_points = chunk
            members += packed_members(blob, offsets, rows)
            scores += chunk_scores.tolist()
            points += chunk_points.tolist()
            sizes.append(len(rows))
        changed = scan.changed()
    finally:
        scan.close()
    return members, scores, points, sizes, changed


def test_the_score_scan_walks_the_ranking_index_without_a_sort(store):
    plan = store._read("EXPLAIN QUERY PLAN " + SCORE_SCAN_SQL, ("s", "b"))
    assert [row[-1] for row in plan] == ["SEARCH totals USING COVERING INDEX totals_by_rank (board=? AND season=?)"]


@pytest.mark.parametrize("order,tiebreak", [("desc", None), ("desc", "earliest"), ("asc", "latest"),
                                            ("asc", None)])
@pytest.mark.parametrize("batch", [1, 5, 1000])
def test_score_scan_equals_the_sorted_read(store, order, tiebreak, batch):
    rng = random.Random(batch)
    players = NAMES + [f"p{i:03d}" for i in range(120)]
    for m in range(150):   # few distinct points and seconds: long runs of equal scores across chunks
        chosen = rng.sample(players[:-15], rng.randint(1, 4))
        store.record("s", f"m{m}", {p: rng.randint(0, 2) for p in chosen}, T0 + rng.randint(0, 1) + rng.random(), board="b")
    store.record("other", "elsewhere", {players[0]: 1000}, T0, board="b")
    upto = store.last_event_id()
    store.record("s", "late", {"p001": 5, "p119": 1, "zed": 2}, T0 + 9, board="b")  # p119 only appears later
    store.record("s", "later", {"p001": 1}, T0 + 10, board="b")                      # p001 changed twice
    store.record("other", "elsewhere2", {"p002": 3}, T0 + 10, board="b")             # another season's change
    codec = Leaderboard(Engine(), "b", season="s", order=order, tiebreak=tiebreak).codec
    members, scores, points, sizes, changed = scanned(store, "s", upto, codec, batch)
    assert changed == sorted({"p001", "p119", "zed"}, key=str.encode)
    # The scan leaves the changed players out (the rebuild adds them as of upto).
    ranked = board_order(store.packed_totals("s", upto, 2, board="b"), codec)
    expected = [(m, s) for m, s in zip(packed_members(ranked.blob, ranked.offsets, ranked.positions),
                                       ranked.scores.tolist()) if m.decode() not in changed]
    assert list(zip(members, scores)) == expected
    assert points == [codec.points(s) for s in scores]
    assert all(size == batch for size in sizes[:-1]) and 0 < sizes[-1] <= batch


def test_score_scan_refusals(store, tmp_path):
    store.record("s", "m1", {"a": 1}, T0, board="b")
    with pytest.raises(ValueError, match="only when its tick is mirrored"):
        ScoreOrderScan(str(store.path), "s", 0, True, False, 32, board="b")
    assert open_score_scan(store, "s", 0, Leaderboard(Engine(), "b", season="s", tiebreak="latest").codec, board="b") is None
    scan = ScoreOrderScan(str(store.path), "s", store.last_event_id(), True, True, 32, board="b")
    with pytest.raises(ValueError, match="batch must be at least 1"):
        scan.next_chunk(0)
    scan.close()
    scan.close()
    with pytest.raises(RuntimeError, match="closed"):
        scan.next_chunk(10)
    store.record("s", "m2", {"early": 1}, -5.0, board="b")       # before the epoch: no tick for it
    scan = ScoreOrderScan(str(store.path), "s", store.last_event_id(), True, True, 32, board="b")
    with pytest.raises(ValueError, match="a time does not fit in time_bits=32"):
        scan.next_chunk(10)
    scan.close()
    (tmp_path / "old.db").write_bytes(b"")
    with pytest.raises(TotalsScanError, match="no such table"):
        ScoreOrderScan(str(tmp_path / "old.db"), "s", 0, False, False, 32, board="b")


def test_a_file_without_the_ranking_index_reads_whole(store):
    store.record("s", "m1", {"a": 1, "b": 2}, T0, board="b")
    store._read("DROP INDEX totals_by_rank")
    codec = Leaderboard(Engine(), "b", season="s").codec
    assert open_score_scan(store, "s", store.last_event_id(), codec, board="b") is None
    service = ScoreService(Leaderboard(Engine(), "b", season="s"), store)
    assert service.rebuild() == 2 and [e.player for e in service.top(2)] == ["b", "a"]


@pytest.mark.parametrize("order,tiebreak", CONFIGS)
def test_rows_changed_during_the_rebuild_are_written_as_of_its_event(store, monkeypatch, order, tiebreak):
    """The rebuild reads as of the last event id it saw; rows changed after
    it (the scan leaves them out) are written as of that id, then the later
    events are applied: the board ends as a rebuild of everything."""
    rng = random.Random(11)
    players = NAMES + [f"p{i:03d}" for i in range(80)]
    fill(store, rng, players[:-10], 120)
    upto = store.last_event_id()
    for m in range(15):
        store.record("s", f"late{m}", {rng.choice(players): rng.randint(1, 9)}, T0 + 20 + m, board="b")
    store.tombstone_match("m5", board="b")

    def board_after_rebuild(seen_upto):
        engine = Engine()
        board = Leaderboard(engine, "b", season="s", order=order, tiebreak=tiebreak)
        service = ScoreService(board, store, allow_negative=True)
        if seen_upto is not None:
            monkeypatch.setattr(store, "last_event_id", lambda **kwargs: seen_upto)
        service.rebuild(batch=16)
        monkeypatch.undo()
        return engine.zrange(board.keys()[0], 0, -1, withscores=True)

    full = board_after_rebuild(None)
    assert board_after_rebuild(upto) == full and len(full) == store.count("s", board="b")


def test_read_ahead_gives_the_chunks_in_order_and_stops_early(store):
    store.record("s", "m1", {f"p{i:02d}": i for i in range(40)}, T0, board="b")
    codec = Leaderboard(Engine(), "b", season="s").codec
    upto = store.last_event_id()
    reader = ReadAhead(open_score_scan(store, "s", upto, codec, board="b"), 3, depth=2)
    chunks = []
    while (chunk := reader.get()) is not None:
        chunks.append(chunk[4].tolist())
    reader.close()
    assert chunks == [list(range(k, min(k + 3, 40))) for k in range(0, 40, 3)]
    scan = open_score_scan(store, "s", upto, codec, board="b")
    reader = ReadAhead(scan, 1, depth=1)
    assert reader.get()[4].tolist() == [0]
    reader.close()                          # the thread was blocked on a full queue
    with pytest.raises(RuntimeError, match="closed"):
        scan.next_chunk(1)


@pytest.mark.parametrize("reader", ["scan", "packed", "python"])
def test_a_total_the_board_cannot_encode_fails_the_rebuild_alike(store, monkeypatch, reader):
    store.record("s", "m1", {f"p{i:02d}": i for i in range(30)}, T0, board="b")
    store.record("s", "m2", {"early": 1}, -5.0, board="b")
    if reader != "scan":
        monkeypatch.setattr(store, "score_order_scan", lambda *args, **kwargs: None)
    if reader == "python":
        monkeypatch.setattr(store, "packed_totals", lambda *args, **kwargs: None)
    service = ScoreService(Leaderboard(Engine(), "b", season="s"), store)
    service.board.submit("p01", 7, at=T0)                # the board before the rebuild
    with pytest.raises(ValueError, match="a time does not fit in time_bits="):
        service.rebuild(batch=4)
    assert not service.rebuilding()                      # refused before anything was written
    assert service.rank("p01") == 1 and service.board.count() == 1


def test_a_file_with_a_rowid_totals_table_reads_alike(tmp_path):
    """Files created before totals became WITHOUT ROWID keep a rowid table: same reading."""
    import sqlite3

    from fastrank.service.store import SCHEMA_VERSION, SQLStore

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        for statement in SQLStore._schema(SQLiteStore.__new__(SQLiteStore)):
            conn.execute(statement)
        conn.execute("INSERT INTO fastrank_schema (version) VALUES (?)", (SCHEMA_VERSION,))
    old = SQLiteStore(path)
    assert "WITHOUT ROWID" not in old._read("SELECT sql FROM sqlite_master WHERE name = 'totals'")[0][0]
    fill(old, random.Random(5), NAMES + [f"p{i:03d}" for i in range(60)], 90)
    upto = old.last_event_id()
    for order, tiebreak in CONFIGS:
        service = ScoreService(Leaderboard(Engine(), "b", season="s", order=order, tiebreak=tiebreak), old,
                               allow_negative=True)
        codec = service.board.codec
        python_members, python_scores = by_python(service, upto, 7)
        packed_members_, packed_scores = by_native(service, upto)
        assert sorted(zip(packed_scores, packed_members_)) == sorted(zip(python_scores, python_members))
        if codec.mirrored or not codec.integer:
            members, scores, _, _, _ = scanned(old, "s", upto, codec, 7)
            assert list(zip(scores, members)) == list(zip(packed_scores, packed_members_))
    old.close()


def test_a_batch_larger_than_the_season_is_one_zadd(store):
    store.record("s", "m1", {f"p{i:02d}": i for i in range(30)}, T0, board="b")
    for tiebreak in ("earliest", "latest"):    # the index scan, the whole-table read
        service = ScoreService(Leaderboard(Engine(), "b", season="s", tiebreak=tiebreak), store)
        seen = []
        assert service.rebuild(progress=lambda done, total: seen.append((done, total)), batch=10 ** 12) == 30
        assert seen == [(30, 30)] and service.top(1)[0].player == "p29"
