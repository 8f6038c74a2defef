"""SortedSet's lex ranges over members of different scores walk as Redis walks
(issue item 3). The same through the Engine's commands is in
tests/unit/engine/commands/test_sortedset.py; the differential proof against a server
is tests/compat/commands/test_diff_sortedset.py."""
from __future__ import annotations

from fastrank import SortedSet


def test_core_walks() -> None:
    z = SortedSet()
    z.add_many(["a", "z", "b"], [1, 2, 3])
    assert z.range_by_lex(None, b"b") == [b"a"]
    assert z.range_by_lex(None, b"b", reverse=True) == [b"a"]
    assert z.range_by_lex(b"c", None) == []                 # the last member b < c: empty
    assert z.count_by_lex(b"a", b"a") == 1
    assert z.range_by_lex(None, None, offset=1, count=1) == [b"z"]
    assert z.remove_range_by_lex(b"c", None) == 2           # from z (first >= c) to the end
    assert z.items() == [(b"a", 1.0)]
    z._check()


def test_one_score_keeps_the_fast_path_answers() -> None:
    z = SortedSet()
    z.add_many(list("edcba"), [0] * 5)
    assert z.range_by_lex(b"b", b"d") == [b"b", b"c", b"d"]
    assert z.range_by_lex(b"b", b"d", reverse=True, offset=1) == [b"c", b"b"]
    assert z.count_by_lex(None, b"c", max_exclusive=True) == 2
