"""The score encoding: exact round trips, order by points then time, limits (pure Python)."""
from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank.leaderboard._entries import board_entries
from fastrank.leaderboard.scorebits import EXACT_LIMIT, ScoreCodec
from fastrank.leaderboard.board import Entry

splits = st.integers(1, 52).flatmap(lambda p: st.tuples(st.just(p), st.integers(1, 53 - p)))
configs = st.tuples(splits, st.sampled_from(["desc", "asc"]), st.sampled_from(["earliest", "latest"]))


def codec_of(config) -> ScoreCodec:
    (point_bits, time_bits), order, tiebreak = config
    return ScoreCodec(order=order, tiebreak=tiebreak, point_bits=point_bits, time_bits=time_bits)


@st.composite
def codec_and_values(draw, count=1):
    codec = codec_of(draw(configs))
    values = []
    for _ in range(count):
        points = draw(st.integers(-codec.max_points, codec.max_points))
        tick = draw(st.integers(0, codec.scale - 1))
        values.append((points, tick))
    return codec, values


@given(codec_and_values())
@settings(max_examples=500)
def test_round_trip_is_exact(case):
    codec, [(points, tick)] = case
    score = codec.encode(points, tick)
    assert abs(score) < EXACT_LIMIT
    as_double = float(score)
    assert int(as_double) == score  # the double holds it exactly
    assert codec.points(as_double) == points
    assert codec.tick(as_double) == tick
    assert codec.points(repr(as_double)) == points  # the text a script returns
    # the leaderboard's compiled slice decoder reads the same points from a float and from text
    rows = board_entries(Entry, [(b"m", as_double), (b"m", repr(as_double).encode()),
                                 (b"m", b"%.17g" % as_double)], False,  # the scripts' text: digits
                         float(codec.scale), codec.points, "o", 0, 1, None, None, None)
    assert [row.points for row in rows] == [points, points, points]


@given(st.one_of(st.integers(-(10 ** 19) + 1, 10 ** 19 - 1).map(lambda v: b"%d" % v),
                 st.from_regex(rb"\A-?[0-9]{1,21}\Z"), st.sampled_from([b"-0", b"007", b"-", b"", b"+5"])))
@settings(max_examples=500)
def test_whole_score_texts_read_as_float_reads_them(text):
    """A score text of digits (the decoder's own fast path, up to 19 of them)
    gives the points float() would: the same double, rounded alike."""
    def decode():
        return board_entries(Entry, [(b"m", text)], False, 1.0, None, "o", 0, 1, None, None, None)

    try:
        want = float(text)
    except ValueError:
        with pytest.raises(ValueError):  # not a number: refused as float() refuses it
            decode()
        return
    assert decode()[0].points == int(want)


def better_first(codec: ScoreCodec, a, b) -> bool:
    """Model: does (points, tick) a rank strictly before b on this board?"""
    (pa, ta), (pb, tb) = a, b
    if pa != pb:
        return pa > pb if codec.desc else pa < pb
    if ta == tb:
        return False
    return ta < tb if codec.tiebreak == "earliest" else ta > tb


@given(codec_and_values(count=2))
@settings(max_examples=500)
def test_order_is_points_then_time(case):
    codec, [a, b] = case
    sa, sb = float(codec.encode(*a)), float(codec.encode(*b))
    a_first = sa > sb if codec.desc else sa < sb
    assert a_first == better_first(codec, a, b)
    assert (sa == sb) == (a == b)


def test_limits_are_the_bit_split():
    codec = ScoreCodec(order="desc", tiebreak="earliest", point_bits=20, time_bits=33)
    assert codec.max_points == 2 ** 20 - 1
    assert codec.check_points(2 ** 20 - 1) == 2 ** 20 - 1
    assert codec.check_points(-(2 ** 20 - 1)) == -(2 ** 20 - 1)
    for bad in (2 ** 20, -(2 ** 20)):
        with pytest.raises(ValueError, match="do not fit"):
            codec.check_points(bad)
    assert codec.tick_of(2 ** 33 - 1, 0) == 2 ** 33 - 1
    with pytest.raises(ValueError, match="time_bits=33"):
        codec.tick_of(2 ** 33, 0)
    with pytest.raises(ValueError, match="time_bits=33"):
        codec.tick_of(-1, 0)


@pytest.mark.parametrize("bad", [1.5, float("nan"), float("inf"), 2.0])
def test_integer_board_rejects_floats(bad):
    codec = ScoreCodec(order="desc", tiebreak="latest", point_bits=20, time_bits=33)
    with pytest.raises(ValueError):
        codec.check_points(bad)


@pytest.mark.parametrize("bad", ["1", None, True, [1]])
def test_points_must_be_numbers(bad):
    codec = ScoreCodec(order="desc", tiebreak="latest", point_bits=20, time_bits=33)
    with pytest.raises(TypeError):
        codec.check_points(bad)


def test_board_without_tiebreak_keeps_numbers():
    codec = ScoreCodec(order="asc", tiebreak=None, point_bits=20, time_bits=33)
    assert codec.encode(12.25, 99) == 12.25
    assert codec.points(12.25) == 12.25 and codec.points(12.0) == 12
    assert codec.check_points(2 ** 53) == 2 ** 53
    with pytest.raises(ValueError, match="2\\*\\*53"):
        codec.check_points(2 ** 53 + 1)
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="finite"):
            codec.check_points(bad)


@pytest.mark.parametrize("kwargs, text", [
    ({"point_bits": 30, "time_bits": 24}, "at most 53"),
    ({"point_bits": 0}, "point_bits"),
    ({"time_bits": True}, "time_bits"),
    ({"order": "up"}, "order"),
    ({"tiebreak": "first"}, "tiebreak"),
])
def test_bad_configuration(kwargs, text):
    base = {"order": "desc", "tiebreak": "earliest", "point_bits": 20, "time_bits": 33}
    with pytest.raises(ValueError, match=text):
        ScoreCodec(**{**base, **kwargs})


def test_times_from_datetimes():
    codec = ScoreCodec(order="desc", tiebreak="earliest", point_bits=20, time_bits=33)
    moment = datetime(2026, 12, 1, 12, 0, 30, 900_000, tzinfo=timezone.utc)
    assert codec.tick_of(moment, 0) == int(moment.timestamp())
    assert codec.tick_of(moment.replace(tzinfo=None), 0) == int(moment.timestamp())  # naive = UTC
    paris = moment.astimezone(timezone(timedelta(hours=1)))
    assert codec.tick_of(paris, 0) == int(moment.timestamp())
    assert codec.tick_of(None, 1234.9) == 1234
    with pytest.raises(TypeError):
        codec.tick_of("2026-12-01", 0)
