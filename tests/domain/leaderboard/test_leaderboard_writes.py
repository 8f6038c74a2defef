"""Writes on every backend: rules, orders, tie-breaks, remove, set_points, with_rank."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from fastrank import Change, Entry, Leaderboard


def rows(entries):
    return [(e.rank, e.player, e.points) for e in entries]


def test_incr_decr_best_set(client):
    board = Leaderboard(client, "rules")
    assert board.submit("ann", 10, at=1) == 10
    assert board.submit("ann", 5, at=2) == 15                      # incr (the board's rule)
    assert board.submit("ann", 4, at=3, rule="decr") == 11
    assert board.submit("ann", 7, at=4, rule="best") == 11         # not better: kept
    assert board.submit("ann", 30, at=5, rule="best") == 30
    assert board.submit("ann", -3, at=6, rule="set") == -3
    assert board.set_points("ann", 8, at=7) == 8
    assert board.score("ann") == 8 and isinstance(board.score("ann"), int)
    best = Leaderboard(client, "bests", rule="best")
    assert [best.submit("bob", p, at=1) for p in (5, 3, 9, 9, 1)] == [5, 5, 9, 9, 9]


def test_best_on_an_ascending_board_keeps_the_lowest(client):
    race = Leaderboard(client, "race", order="asc", rule="best")
    assert [race.submit("ann", t, at=1) for t in (95, 99, 91, 93)] == [95, 95, 91, 91]
    race.submit("bob", 92, at=2)
    race.submit("cy", 91, at=3)
    assert rows(race.top()) == [(1, "ann", 91), (2, "cy", 91), (3, "bob", 92)]


@pytest.mark.parametrize("order, tiebreak, expected", [
    ("desc", "earliest", ["bob", "ann", "cy", "dee"]),
    ("desc", "latest", ["cy", "ann", "bob", "dee"]),
    ("desc", None, ["cy", "bob", "ann", "dee"]),      # Redis's member order, reversed
    ("asc", "earliest", ["dee", "bob", "ann", "cy"]),
    ("asc", "latest", ["dee", "cy", "ann", "bob"]),
    ("asc", None, ["dee", "ann", "bob", "cy"]),
])
def test_tie_breaks(client, order, tiebreak, expected):
    board = Leaderboard(client, f"ties-{order}-{tiebreak}", order=order, tiebreak=tiebreak)
    board.submit("ann", 50, at=200)
    board.submit("bob", 50, at=100)
    board.submit("cy", 50, at=300)
    board.submit("dee", 40 if order == "desc" else 10, at=50)
    assert [e.player for e in board.top()] == expected
    assert [e.rank for e in board.top()] == [1, 2, 3, 4]


def test_time_moves_only_when_points_change(client):
    board = Leaderboard(client, "moves")
    board.submit("ann", 10, at=100)
    board.submit("bob", 10, at=200)
    board.submit("ann", 0, at=300)          # +0: still reached 10 at 100
    board.set_points("ann", 10, at=400)     # same points: unchanged
    assert [e.player for e in board.top()] == ["ann", "bob"]
    board.submit("ann", 1, at=500)
    board.submit("ann", -1, at=600)         # back to 10, reached at 600 now
    assert [e.player for e in board.top()] == ["bob", "ann"]


def test_times_as_datetimes(client):
    board = Leaderboard(client, "dt")
    board.submit("ann", 3, at=datetime(2026, 1, 2, tzinfo=timezone.utc))
    board.submit("bob", 3, at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert [e.player for e in board.top()] == ["bob", "ann"]


def test_points_at_the_limits(client):
    board = Leaderboard(client, "limits", point_bits=20, time_bits=33)
    top_points = 2 ** 20 - 1
    assert board.submit("max", top_points, at=2 ** 33 - 1) == top_points
    assert board.submit("min", -top_points, at=0) == -top_points
    assert board.score("max") == top_points and board.score("min") == -top_points
    assert rows(board.top()) == [(1, "max", top_points), (2, "min", -top_points)]
    before = client.zrange(board.keys()[0], 0, -1, withscores=True)
    with pytest.raises(ValueError, match="do not fit"):
        board.submit("max", 1, at=5)            # the sum overflows: checked inside the script
    with pytest.raises(ValueError, match="do not fit"):
        board.submit("min", 1, at=5, rule="decr")
    assert client.zrange(board.keys()[0], 0, -1, withscores=True) == before


def test_float_points_without_tiebreak(client):
    board = Leaderboard(client, "floats", tiebreak=None, order="asc", rule="best")
    assert board.submit("ann", 12.75) == 12.75
    assert board.submit("ann", 12.5) == 12.5
    assert board.submit("bob", 13) == 13
    assert rows(board.top()) == [(1, "ann", 12.5), (2, "bob", 13)]


def test_negative_zero_is_zero(client):
    board = Leaderboard(client, "zeros", tiebreak=None, ranking="dense")
    board.submit("ann", 0.0)
    board.submit("bob", -0.0)
    board.submit("cy", -1.5)
    assert [(e.rank, e.player, e.points) for e in board.top()] == [(1, "bob", 0), (1, "ann", 0), (2, "cy", -1.5)]
    assert client.hgetall(board.keys()[2]) == {b"0": b"2", b"-1.5": b"1"}


def test_remove(client):
    board = Leaderboard(client, "rm", ranking="dense")
    board.submit("ann", 5, at=1)
    board.submit("bob", 5, at=2)
    board.set_info("ann", {"name": "Ann"})
    assert board.remove("ann") is True
    assert board.remove("ann") is False
    assert board.info("ann") is None and board.score("ann") is None and board.rank("ann") is None
    assert rows(board.top()) == [(1, "bob", 5)]
    assert board.remove("bob") is True
    assert client.exists(*board.keys()) == 0         # nothing left behind


def test_player_ids(client):
    board = Leaderboard(client, "ids")
    board.submit(42, 1, at=1)
    board.submit(b"bytes", 2, at=1)
    board.submit("caf\u00e9", 3, at=1)
    assert [e.player for e in board.top()] == ["caf\u00e9", "bytes", "42"]
    assert board.rank("42") == board.rank(42) == 3


def test_with_rank_names_who_was_passed(client):
    board = Leaderboard(client, "moves", passed=2)
    for i, name in enumerate(["ann", "bob", "cy", "dee"]):
        board.submit(name, 40 - 10 * i, at=i)           # ann 40, bob 30, cy 20, dee 10
    change = board.submit("dee", 25, at=10, with_rank=True)
    assert change == Change(points=35, rank=2, previous_rank=4, passed=["bob", "cy"])
    assert board.submit("eve", 1, at=11, with_rank=True) == Change(1, 5, None, [])
    assert board.submit("ann", -100, at=12, with_rank=True) == Change(-60, 5, 1, [])
    assert board.submit("eve", 100, at=13, with_rank=True, rule="set") == Change(100, 1, 4, ["dee", "bob"])


def test_with_rank_in_each_style(client):
    for ranking, previous in (("ordinal", 4), ("competition", 4), ("dense", 3)):
        board = Leaderboard(client, f"wr-{ranking}", ranking=ranking)
        board.submit("ann", 50, at=1)
        board.submit("bob", 40, at=1)
        board.submit("cy", 40, at=2)
        board.submit("dee", 30, at=3)
        assert board.submit("dee", 15, at=4, with_rank=True) == Change(45, 2, previous, ["bob", "cy"])
        # ann 50, dee 45 (reached first), bob 40, cy 40
        tied = board.submit("cy", 5, at=5, with_rank=True)
        if ranking == "ordinal":
            assert tied == Change(45, 3, 4, ["bob"])
        else:
            assert tied == Change(45, 2, 3, ["bob"])


def test_entry_shape(client):
    board = Leaderboard(client, "shape")
    board.submit("ann", 7, at=1)
    [entry] = board.top()
    assert entry == Entry(1, "ann", 7) and entry.global_rank is None and entry.info is None
    assert type(entry.player) is str and type(entry.points) is int


def test_submit_many(client):
    board = Leaderboard(client, "many", ranking="dense")
    assert board.submit_many({"ann": 5, "bob": 7, 42: 1}, at=10) == [5, 7, 1]
    assert board.submit_many([("ann", 2), ("ann", 3), ("cy", 4)], at=11) == [7, 10, 4]
    assert board.submit_many([("bob", 9), ("cy", 1)], at=12, rule="best") == [9, 4]
    assert board.submit_many([], at=13) == []
    assert [(e.rank, e.player, e.points) for e in board.top()] == [(1, "ann", 10), (2, "bob", 9), (3, "cy", 4),
                                                                   (4, "42", 1)]
    before = client.zrange(board.keys()[0], 0, -1, withscores=True)
    with pytest.raises(ValueError, match="do not fit"):
        board.submit_many([("dee", 1), ("ann", 2 ** 20 - 5)], at=14)      # the second overflows
    assert client.zrange(board.keys()[0], 0, -1, withscores=True) == before
    with pytest.raises(TypeError):
        board.submit_many([("dee", 1), (None, 2)], at=14)
    assert client.zrange(board.keys()[0], 0, -1, withscores=True) == before
