"""The rebuild's compiled reader of a SQLite store (``fastrank._totals`` via
``SQLiteStore.packed_totals``) against the ``sqlite3``-module path it
replaces: for every board configuration both give the same rows, the same
encoded scores and the same order (score, then member bytes), with player
ids that sort differently as text and as bytes, runs of equal scores, rows
changed after the rebuild's event id (summed again as of it), players who
only appear later (left out), and another season in the file."""
from __future__ import annotations

import random

import numpy as np
import pytest

from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService
from fastrank._totals import (TotalsScanError, gather_members, packed_members, scan_error, scan_totals,
                              ties_in_member_order)
from fastrank.service.packed import board_order, read_packed
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
        store.record("s", f"m{m}", {p: rng.randint(-3, 6) for p in chosen}, T0 + rng.randint(0, 5) + rng.random())
    store.record("other", "elsewhere", {players[0]: 1000}, T0)


def by_python(service, upto, batch):
    """What the sqlite3-module path loads: members and scores in score order."""
    players, _points, scores = service._read_totals(upto, batch)
    order = ascending_order(players, scores, batch)
    return players[order].tolist(), scores[order].tolist()


def by_native(service, upto):
    packed = service.store.packed_totals(service.season, upto, 2)
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
        store.record("s", f"late{m}", {rng.choice(players): rng.randint(1, 9)}, T0 + 9)
    store.tombstone_match("m3")
    service = ScoreService(Leaderboard(Engine(), "b", season="s", order=order, tiebreak=tiebreak),
                           store, allow_negative=True)
    members, scores = by_native(service, upto)
    # The python path sorts ties only where a chunk boundary cuts them (each ZADD sorts its own).
    python_members, python_scores = by_python(service, upto, 7)
    assert sorted(zip(scores, members)) == sorted(zip(python_scores, python_members))
    assert list(zip(scores, members)) == sorted(zip(scores, members))   # a sorted set's order, exactly
    assert len(members) == len(set(members)) and set(m.decode() for m in members) <= set(players[:-15])


def test_rows_changed_after_upto_are_summed_as_of_upto(store):
    store.record("s", "m1", {"a": 5, "b": 7}, T0 + 1.5)
    upto = store.last_event_id()
    store.record("s", "m2", {"a": 100, "c": 3}, T0 + 50)
    packed = store.packed_totals("s", upto, 2)
    got = {packed_members(packed.blob, packed.offsets, np.array([r]))[0]: (int(packed.points[r]), packed.ats[r])
           for r in packed.rows.tolist()}
    assert got == {b"a": (5, T0 + 1.5), b"b": (7, T0 + 1.5)}
    now = store.packed_totals("s", store.last_event_id(), 1)
    assert len(now.rows) == 3 and sorted(now.points.tolist()) == [3, 7, 105]


def test_scan_reads_a_range_in_player_order(store):
    store.record("s", "m1", {p: i for i, p in enumerate(["b", "a", "d", "c", "é"])}, T0)
    blob, offsets, points, ats, stale = scan_totals(str(store.path), "s", store.last_event_id(), "a", "d")
    assert packed_members(blob, offsets, np.arange(len(points))) == [b"b", b"c", b"d"]
    assert points.tolist() == [0, 3, 2] and ats.tolist() == [T0] * 3 and stale.tolist() == []
    blob, offsets, points, ats, stale = scan_totals(str(store.path), "s", 0)
    assert len(points) == 5 and stale.tolist() == [0, 1, 2, 3, 4]  # every row changed after event 0
    assert scan_totals(str(store.path), "nothing", 0)[0] == b""


def test_a_file_sqlite_refuses_raises(tmp_path):
    (tmp_path / "empty.db").write_bytes(b"")
    with pytest.raises(TotalsScanError, match="no such table: totals"):
        scan_totals(str(tmp_path / "empty.db"), "s", 0)
    with pytest.raises(TotalsScanError, match="unable to open database file"):
        scan_totals(str(tmp_path / "missing.db"), "s", 0)  # never created
    assert not (tmp_path / "missing.db").exists()


def test_an_in_memory_store_keeps_the_sqlite3_path():
    memory = SQLiteStore(":memory:")
    memory.record("s", "m1", {"a": 1}, T0)
    assert read_packed(memory, "s", memory.last_event_id(), 2) is None
    service = ScoreService(Leaderboard(Engine(), "b", season="s"), memory)
    assert service.rebuild() == 1 and service.top(1)[0].player == "a"
    memory.close()


def test_ties_out_of_member_order_are_sorted(store):
    store.record("s", "m1", {"b": 1, "a": 1, "c": 2}, T0)
    packed = store.packed_totals("s", store.last_event_id(), 1)
    blob, offsets = packed.blob, packed.offsets
    assert ties_in_member_order(blob, offsets, np.array([0, 1, 2]), np.array([1.0, 1.0, 2.0]))
    assert not ties_in_member_order(blob, offsets, np.array([1, 0, 2]), np.array([1.0, 1.0, 2.0]))
    # Rows given out of player order (as another text encoding would read them):
    swapped = packed._replace(rows=np.array([1, 0, 2]))
    ranked = board_order(swapped, Leaderboard(Engine(), "b", season="s", tiebreak=None).codec)
    assert packed_members(ranked.blob, ranked.offsets, ranked.positions) == [b"a", b"b", b"c"]


def test_bad_rows_raise_before_reading(store):
    store.record("s", "m1", {"a": 1}, T0)
    packed = store.packed_totals("s", store.last_event_id(), 1)
    with pytest.raises(IndexError, match="packed row out of range"):
        packed_members(packed.blob, packed.offsets, np.array([1]))
    with pytest.raises(ValueError, match="1 rows but 2 scores"):
        ties_in_member_order(packed.blob, packed.offsets, np.array([0]), np.array([1.0, 2.0]))


@pytest.mark.parametrize("order,tiebreak", CONFIGS)
def test_rebuild_fills_the_same_board_by_both_readers(store, monkeypatch, order, tiebreak):
    rng = random.Random(7)
    fill(store, rng, NAMES + [f"p{i:03d}" for i in range(300)], 400)
    boards = []
    for native in (True, False):
        engine = Engine()
        service = ScoreService(Leaderboard(engine, "b", season="s", order=order, tiebreak=tiebreak,
                                           ranking="dense"), store, allow_negative=True)
        if not native:
            monkeypatch.setattr(store, "packed_totals", lambda *args: None)
        assert service.rebuild(batch=64) == store.count("s")
        boards.append({k: (engine.zrange(k, 0, -1, withscores=True) if engine.type(k) == b"zset"
                           else engine.hgetall(k) if engine.type(k) == b"hash" else engine.get(k))
                       for k in engine.keys("*")})
    assert boards[0] == boards[1] and len(boards[0]) >= 3


def test_gather_packs_the_rows_again_in_order():
    blob, offsets = b"aabbbc", np.array([0, 2, 5, 5, 6], dtype=np.int64)   # "aa", "bbb", "", "c"
    out, out_offsets = gather_members(blob, offsets, np.array([3, 0, 2, 1, 0], dtype=np.int64))
    assert packed_members(out, out_offsets, np.arange(5)) == [b"c", b"aa", b"", b"bbb", b"aa"]
    assert gather_members(blob, offsets, np.array([], dtype=np.int64))[0] == b""
    with pytest.raises(IndexError, match="packed row out of range"):
        gather_members(blob, offsets, np.array([4], dtype=np.int64))
