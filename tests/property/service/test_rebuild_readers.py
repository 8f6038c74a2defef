"""Property: for any season of totals (player ids of any text, ties on points
and on the second, rows changed after the rebuild's event id) and any chunk
size, the three ways ScoreService.rebuild reads a SQLite store agree: the
score-order scan of the ranking index (``ScoreOrderScan``, chunks of exactly
``batch``), the compiled read of the whole table (``packed_totals`` +
``board_order``) and the ``sqlite3``-module pages; and all of them give a
sorted set's order, (score, member bytes)."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService
from fastrank.service._totals import packed_members
from fastrank.service.packed import board_order, open_score_scan

T0 = 1_790_000_000

players = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)
events = st.lists(st.tuples(players, st.integers(-2, 3), st.integers(0, 2), st.sampled_from([0.0, 0.25, 0.75])),
                  min_size=1, max_size=40)
configs = st.sampled_from([("desc", "earliest"), ("asc", "latest"), ("desc", None), ("asc", None),
                           ("desc", "latest"), ("asc", "earliest")])


def scan_all(store, upto, codec, batch):
    scan = open_score_scan(store, "s", upto, codec, board="b")
    assert scan is not None
    pairs, sizes = [], []
    try:
        while (chunk := scan.next_chunk(batch)) is not None:
            blob, offsets, rows, scores, _ = chunk
            pairs += list(zip(scores.tolist(), packed_members(blob, offsets, rows)))
            sizes.append(len(rows))
        changed = scan.changed()
    finally:
        scan.close()
    return pairs, sizes, changed


@settings(max_examples=60, deadline=None)
@given(events, st.integers(0, 8), configs, st.integers(1, 9))
def test_the_readers_agree(before, later, config, batch):
    order, tiebreak = config
    with tempfile.TemporaryDirectory() as root:
        store = SQLiteStore(Path(root) / "scores.db")
        for i, (player, points, second, fraction) in enumerate(before):
            store.record("s", f"m{i}", {player: points}, T0 + second + fraction, board="b")
        upto = store.last_event_id()
        for i, (player, points, second, fraction) in enumerate(before[:later]):
            store.record("s", f"late{i}", {player + "x": points}, T0 + second + fraction, board="b")  # new players
            store.record("s", f"again{i}", {player: 1}, T0 + 5, board="b")                            # changed rows
        service = ScoreService(Leaderboard(Engine(), "b", season="s", order=order, tiebreak=tiebreak), store,
                               allow_negative=True)
        codec = service.board.codec
        ranked = board_order(store.packed_totals("s", upto, 2, board="b"), codec)
        whole = list(zip(ranked.scores.tolist(), packed_members(ranked.blob, ranked.offsets, ranked.positions)))
        assert whole == sorted(whole)
        names, _points, scores = service._read_totals(upto, batch)
        assert sorted(zip(scores.tolist(), names.tolist())) == whole
        if codec.mirrored or not codec.integer:
            pairs, sizes, changed = scan_all(store, upto, codec, batch)
            assert pairs == [p for p in whole if p[1].decode() not in changed]
            assert all(size == batch for size in sizes[:-1])
        store.close()
