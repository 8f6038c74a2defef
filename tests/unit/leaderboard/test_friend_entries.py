"""fastrank.leaderboard._entries' friends read: ``friend_members`` (the distinct
members named; ints kept as ints, which every client sends as their text) and ``board_friend_entries`` (friends.lua's
reply as entries in the board's order, members' bytes read only for ties on
score) give what their plain-Python definitions give, ties, str and bytes
spellings of one member, int members, lone surrogates and bad ids included."""
from __future__ import annotations

import functools
from typing import Any, List, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank.leaderboard._entries import board_entries, board_friend_entries, friend_members
from fastrank.leaderboard.board import Entry
from fastrank.leaderboard.parts import info_of, player_id

SCALE = 2.0 ** 33


def members_by_definition(player: Any, friend_ids: Any) -> List[Any]:
    return list(dict.fromkeys([player_id(player)] + [player_id(f) for f in friend_ids]))


def on_the_wire(members: List[Any]) -> List[Any]:
    """The members as a client sends them: an int as its decimal text."""
    return [str(m) if type(m) is int else m for m in members]


def outcome(fn: Any, *args: Any) -> Any:
    try:
        return on_the_wire(fn(*args))
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)


ids = st.one_of(st.integers(-2 ** 70, 2 ** 70), st.integers(0, 30), st.text(max_size=3), st.binary(max_size=3),
                st.booleans(), st.none())


@settings(max_examples=400, deadline=None)
@given(ids, st.lists(ids, max_size=12))
def test_friend_members_are_the_distinct_player_ids_in_order(player, friend_ids):
    assert outcome(friend_members, player, friend_ids, player_id) == outcome(members_by_definition, player,
                                                                            friend_ids)


@settings(max_examples=200, deadline=None)
@given(st.integers(-2 ** 64, 2 ** 64), st.lists(st.integers(-2 ** 64, 2 ** 64) | st.integers(0, 9), max_size=30))
def test_int_ids_stay_ints_and_name_what_their_text_names(player, friend_ids):
    got = friend_members(player, iter(friend_ids), player_id)
    assert all(type(m) is int for m in got)
    assert on_the_wire(got) == members_by_definition(player, friend_ids)


def test_a_long_list_of_int_ids_keeps_the_first_of_each():
    friend_ids = [(k * 7919) % 5003 - 2500 for k in range(20_000)] + [-2 ** 63, 2 ** 63 - 1, -2 ** 63]
    got = friend_members(17, friend_ids, player_id)
    assert got == list(dict.fromkeys([17] + friend_ids)) and len(got) == 5003 + 2


def test_a_bad_friend_id_raises_as_player_id_does():
    with pytest.raises(TypeError):
        friend_members(1, [2, 2.5], player_id)
    with pytest.raises(ValueError):
        friend_members(1, [2, ""], player_id)


def entries_by_definition(scores: List[Any], ranks: List[int], infos: Optional[List[Any]], members: List[Any],
                          desc: bool, style: str) -> List[Any]:
    """Sorted by (score, member bytes), reversed on a descending board, stable, then board_entries."""
    def as_bytes(m: Any) -> bytes:
        return m if isinstance(m, bytes) else str(m).encode("utf-8", "surrogateescape")

    def order(i: int, j: int) -> int:
        a, b = (float(scores[i]), as_bytes(members[i])), (float(scores[j]), as_bytes(members[j]))
        c = (a > b) - (a < b)
        return -c if desc else c

    present = sorted([i for i in range(len(members)) if scores[i] is not None], key=functools.cmp_to_key(order))
    return board_entries(Entry, [(on_the_wire([members[i]])[0], scores[i]) for i in present], False, SCALE, None,
                         style, 0, 1,
                         None if infos is None else [infos[i] for i in present], info_of, [ranks[i] for i in present])


member = st.one_of(st.binary(max_size=4), st.text(max_size=3), st.sampled_from(["a", b"a", "\udc80", "ab", b"\xff"]),
                   st.integers(-2 ** 70, 2 ** 70), st.integers(-20, 20))
score = st.one_of(st.none(), st.integers(0, 3).map(lambda p: repr(p * SCALE + 5).encode()),
                  st.integers(0, 2 ** 20).map(lambda p: repr(p * SCALE).encode()))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(member, score), max_size=40, unique_by=lambda pair: pair[0]), st.booleans(),
       st.sampled_from("ocd"), st.booleans())
def test_friend_entries_are_sorted_as_the_board_sorts(rows, desc, style, with_info):
    members = [m for m, _ in rows]
    scores = [s for _, s in rows]
    ranks = list(range(len(rows)))
    infos = [b'{"i": %d}' % i for i in range(len(rows))] if with_info else None
    got = board_friend_entries(Entry, scores, ranks, infos, members, desc, SCALE, None, style, info_of)
    assert got == entries_by_definition(scores, ranks, infos, members, desc, style)
