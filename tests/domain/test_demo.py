"""``fastrank demo`` plays a small season through the score service and prints consistent ranks."""
from __future__ import annotations

import io
import re

from fastrank.cli import demo


def test_demo_small_season():
    out = io.StringIO()
    demo(players=300, matches=800, seed=7, out=out)
    text = out.getvalue()
    rows = re.findall(r"^\s+(\d+)\.\s+(\d+)\.\s+player (\d+)\s+([\d,]+)$", text, re.M)
    assert [int(o) for o, _, _, _ in rows] == list(range(1, 11))
    dense = [int(d) for _, d, _, _ in rows]
    points = [int(p.replace(",", "")) for _, _, _, p in rows]
    assert dense[0] == 1 and points == sorted(points, reverse=True)
    for i in range(1, 10):   # a dense rank moves by one exactly when the points change
        assert dense[i] - dense[i - 1] == (points[i] != points[i - 1])
    mine = re.search(r"rank ([\d,]+) ordinal, ([\d,]+) competition, ([\d,]+) dense of [\d,]+", text)
    ordinal, competition, dense_rank = (int(x.replace(",", "")) for x in mine.groups())
    assert dense_rank <= competition <= ordinal
    assert "<- you" in text and "rank lookups" in text
    assert "changes nothing: True" in text and "same top 10 and ranks: True" in text


def test_demo_keeps_the_store_it_is_given(tmp_path):
    from fastrank import SQLiteStore

    path = tmp_path / "season.db"
    demo(players=50, matches=60, seed=1, store_path=str(path), out=io.StringIO())
    store = SQLiteStore(path)
    assert store.count("2026", board="demo") > 0 and store.history("nobody", "2026", board="demo") == []
    store.close()
