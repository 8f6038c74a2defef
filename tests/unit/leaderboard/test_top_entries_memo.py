"""fastrank.leaderboard._entries.board_top_entries remembers the entries of the last top
slice it decoded and gives them again (a copy) when the next reply is equal:
the comparison of the two replies is done in C for bytes members and float
scores. Every difference a reply can carry must make it decode again."""
from __future__ import annotations

from typing import Any, List, Tuple

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank.leaderboard._entries import board_entries, board_top_entries
from fastrank.leaderboard.board import Entry

SCALE = 2.0 ** 33

member = st.one_of(st.binary(max_size=12), st.text(max_size=6))
score = st.one_of(st.integers(0, 2 ** 20).map(lambda p: p * SCALE), st.just(-0.0), st.just(0.0),
                  st.integers(0, 2 ** 20).map(lambda p: str(p * SCALE).encode()))
pairs = st.lists(st.tuples(member, score), max_size=12)


def fresh(reply: List[Tuple[Any, Any]]) -> List[Any]:
    return board_entries(Entry, reply, False, SCALE, None, "d", 0, 1, None, None, None)


def copied(reply: List[Tuple[Any, Any]]) -> List[Tuple[Any, Any]]:
    """The same reply in new objects, as the next call's reply would be."""
    return [(bytes(bytearray(m)) if isinstance(m, bytes) else "".join(list(m)), s) for m, s in reply]


@settings(max_examples=300, deadline=None)
@given(pairs, pairs)
def test_a_reply_after_another_gives_its_own_entries(first, second):
    memo: List[Any] = []
    assert board_top_entries(memo, Entry, SCALE, None, "d", first) == fresh(first)
    assert board_top_entries(memo, Entry, SCALE, None, "d", second) == fresh(second)
    again = board_top_entries(memo, Entry, SCALE, None, "d", copied(second))
    assert again == fresh(second)


def test_the_remembered_entries_are_handed_out_as_copies():
    memo: List[Any] = []
    reply = [(b"ann", 3 * SCALE), (b"bob", 2 * SCALE)]
    first = board_top_entries(memo, Entry, SCALE, None, "o", reply)
    first.append("changed by the caller")
    second = board_top_entries(memo, Entry, SCALE, None, "o", copied(reply))
    assert second == [Entry(1, "ann", 3), Entry(2, "bob", 2)]


def test_a_member_of_the_same_length_or_a_new_score_decodes_again():
    memo: List[Any] = []
    board_top_entries(memo, Entry, SCALE, None, "o", [(b"ann", 3 * SCALE)])
    assert board_top_entries(memo, Entry, SCALE, None, "o", [(b"amm", 3 * SCALE)]) == [Entry(1, "amm", 3)]
    assert board_top_entries(memo, Entry, SCALE, None, "o", [(b"amm", 4 * SCALE)]) == [Entry(1, "amm", 4)]
    assert board_top_entries(memo, Entry, SCALE, None, "o", [(b"amm", 4 * SCALE), (b"x", 0.0)]) == [
        Entry(1, "amm", 4), Entry(2, "x", 0)]
