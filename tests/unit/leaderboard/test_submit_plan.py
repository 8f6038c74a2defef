"""``Leaderboard.submit``'s short path (an int, a whole second or now, the
board's own rule, with or without the rank) sends exactly what the general path (``_write_args``)
sends, and anything else still takes the general path: the same script,
keys, arguments and reply parser, or the same error, for random boards and
inputs."""
from __future__ import annotations

import time
from datetime import datetime, timezone
from unittest import mock

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from redis.connection import Encoder

import fastrank
from fastrank import Leaderboard

NOW = 1_790_000_000.75

boards = st.fixed_dictionaries({
    "order": st.sampled_from(["desc", "asc"]),
    "tiebreak": st.sampled_from(["earliest", "latest", None]),
    "rule": st.sampled_from(["incr", "decr", "set", "best"]),
    "point_bits": st.sampled_from([8, 20]),
    "subscore_bits": st.sampled_from([0, 3]),
    "period": st.sampled_from([None, "day"]),
    "epoch": st.sampled_from([0, 1_700_000_000]),
    "tick": st.sampled_from(["1s", "1min"]),
    "time_bits": st.sampled_from([30, 33]),
    "score_form": st.sampled_from(["bits", "bits", "decimal"]),
})
players = st.one_of(st.integers(-10, 10 ** 12), st.text(max_size=4), st.binary(max_size=4), st.booleans(),
                    st.none(), st.floats(allow_nan=False))
points = st.one_of(st.integers(-2 ** 21, 2 ** 21), st.integers(-300, 300), st.floats(-5.0, 5.0), st.booleans(),
                   st.text(max_size=2))
moments = st.one_of(st.none(), st.integers(-5, 2 ** 34), st.integers(1_700_000_000, 1_800_000_000),
                    st.floats(1e9, 2e9), st.just(datetime(2026, 12, 4, tzinfo=timezone.utc)), st.text(max_size=2))


WIRE = Encoder("utf-8", "strict", False)


def on_the_wire(words):
    """The words as redis-py (and the Engine's front door) send them: bytes."""
    return tuple(WIRE.encode(w) for w in words)


def general(board: Leaderboard, player, pts, at, rule, with_rank, subscore):
    """What _plan_submit made before its short path: _write_args, always."""
    keys, args = board._write_args(((player, pts),), at, rule, board.rank_style if with_rank else "", subscore)
    return board._encoded(keys), on_the_wire(args), with_rank


def short(board: Leaderboard, player, pts, at, rule, with_rank, subscore):
    script, keys, args, parse, fail = board._plan_submit(player, pts, at=at, rule=rule, with_rank=with_rank,
                                                         subscore=subscore)
    assert fail == board.translate_error
    assert parse == (board._changed if with_rank else board._new_points)
    return keys, on_the_wire(args), with_rank


def outcome(fn, *args):
    try:
        return fn(*args)
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)


@settings(max_examples=600, deadline=None)
@given(boards, players, points, moments, st.sampled_from([None, None, "set", "decr"]), st.booleans(),
       st.sampled_from([None, None, 2]))
def test_the_short_path_sends_what_the_general_path_sends(options, player, pts, at, rule, with_rank, subscore):
    try:
        board = Leaderboard(fastrank.Engine(), "b", **options)
    except ValueError:  # options that do not go together
        assume(False)
    with mock.patch.object(time, "time", return_value=NOW):
        assert outcome(short, board, player, pts, at, rule, with_rank, subscore) == \
            outcome(general, board, player, pts, at, rule, with_rank, subscore)


def test_a_plain_submit_takes_the_short_path_and_scores_as_before():
    engine = fastrank.Engine()
    board = Leaderboard(engine, "plain", ranking="dense")
    assert board._plain_ticks > 0
    assert board.submit(7, 10, at=1_790_000_000) == 10
    assert board.submit("7", 5) == 15
    assert board.rank(7) == 1 and board.score(7) == 15
    assert Leaderboard(engine, "minus", rule="decr")._plain_ticks == 0
    assert Leaderboard(engine, "daily", period="day")._plain_ticks == 0


plain_boards = st.fixed_dictionaries({
    "order": st.sampled_from(["desc", "asc"]),
    "tiebreak": st.sampled_from(["earliest", "latest", None]),
    "rule": st.sampled_from(["incr", "set", "best"]),
    "point_bits": st.sampled_from([8, 20]),
})


@settings(max_examples=400, deadline=None)
@given(plain_boards, players, points, moments, st.booleans())
def test_plain_submits_send_what_the_general_path_sends(options, player, pts, at, with_rank):
    board = Leaderboard(fastrank.Engine(), "b", **options)
    assert board._plain_ticks > 0
    with mock.patch.object(time, "time", return_value=NOW):
        assert outcome(short, board, player, pts, at, None, with_rank, None) == \
            outcome(general, board, player, pts, at, None, with_rank, None)


def test_the_short_path_words():
    board = Leaderboard(fastrank.Engine(), "words", ranking="dense")
    _, keys, args, _, _ = board._plan_submit(7, 10, at=1_790_000_000)
    assert keys == (b"{lb:words}", b"{lb:words}:dense", b"{lb:words}:counts", b"{lb:words}:meta",
                    b"{lb:words}:info")
    assert args == (*board.script_config, b"incr", 1_790_000_000, b"", b"3", b"0", 7, 10)  # ints go as ints
    with mock.patch.object(time, "time", return_value=NOW):
        assert board._plan_submit("ann", -2)[2][5:] == (b"incr", int(NOW), b"", b"3", b"0", "ann", -2)
        assert board._plan_submit("ann", -2, with_rank=True)[2][7] == b"d"


def test_a_board_that_writes_elsewhere_never_takes_the_short_path():
    from fastrank.leaderboard.rolling import _WindowBoard

    window = _WindowBoard(fastrank.Engine(), "w")
    assert window._plain_ticks == 0
    now = int(time.time())
    _, keys, _, _, _ = window._plan_submit(7, 10, at=now)
    assert keys == window._encoded(window._write_target(now)[0]) != window._encoded(window.keys())
