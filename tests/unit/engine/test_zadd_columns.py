"""fastrank.service.columns.ZaddColumns: two aligned lists as a read-only mapping."""
from __future__ import annotations

import pytest

from fastrank.service.columns import ZaddColumns


def test_mapping_view_of_two_lists():
    cols = ZaddColumns([b"a", b"b", b"a"], [1, 2, 3])
    assert len(cols) == 3 and bool(cols) and not ZaddColumns([], [])
    assert list(cols) == [b"a", b"b", b"a"]
    assert list(cols.items()) == [(b"a", 1), (b"b", 2), (b"a", 3)]
    assert cols[b"a"] == 3 and cols[b"b"] == 2          # the last pair of a member, as ZADD keeps it
    with pytest.raises(KeyError):
        cols[b"c"]
    assert repr(cols) == "ZaddColumns(3 pairs)"


def test_lengths_must_match():
    with pytest.raises(ValueError, match="2 members but 1 scores"):
        ZaddColumns([b"a", b"b"], [1])
