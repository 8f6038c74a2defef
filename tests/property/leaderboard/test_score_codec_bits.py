"""The score codec with an epoch, a tick and a subscore (#27): every layout
of the 53 bits round-trips points, subscore and time exactly through a
double, and the order of the encoded scores is the board's order: points,
then subscore, then the tie-break time (pure Python, what the scripts
compute from ``low_of``'s word: ``encode`` mirrors it as they do)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import TimeOutOfRange
from fastrank.leaderboard.scorebits import EXACT_LIMIT, TICKS, ScoreCodec

layouts = st.integers(1, 51).flatmap(
    lambda p: st.integers(0, 52 - p).flatmap(
        lambda s: st.tuples(st.just(p), st.just(s), st.integers(1, 53 - p - s))))
codecs = st.builds(
    lambda layout, order, tiebreak, tick, epoch: ScoreCodec(
        order=order, tiebreak=tiebreak, point_bits=layout[0], subscore_bits=layout[1], time_bits=layout[2],
        tick=tick, epoch=epoch),
    layouts, st.sampled_from(["desc", "asc"]), st.sampled_from(["earliest", "latest"]),
    st.sampled_from(sorted(TICKS)), st.integers(0, 2 ** 31))


@st.composite
def results(draw, codec):
    points = draw(st.integers(-codec.max_points, codec.max_points))
    subscore = draw(st.integers(0, codec.max_subscore))
    seconds = draw(st.integers(codec.first_second, min(codec.end_second, codec.first_second + 2 ** 40) - 1))
    return points, subscore, seconds


def score_of(codec, result):
    points, subscore, seconds = result
    return codec.encode(points, codec.low_of(codec.tick_of(seconds, 0.0), subscore))


@given(st.data())
@settings(max_examples=400)
def test_pack_unpack_round_trip(data):
    codec = data.draw(codecs)
    points, subscore, seconds = data.draw(results(codec))
    score = score_of(codec, (points, subscore, seconds))
    assert abs(score) < EXACT_LIMIT
    as_double = float(score)
    assert int(as_double) == score
    for form in (as_double, repr(as_double), b"%.17g" % as_double):   # the double, and the scripts' texts
        assert codec.points(form) == points
        assert codec.subscore(form) == subscore
        assert codec.seconds(form) == seconds - (seconds - codec.epoch) % codec.tick_seconds


def board_key(codec, result):
    """What the board ranks by, best first: points, subscore, then the time
    (the earlier or the later first), all in the board's order."""
    points, subscore, seconds = result
    tick = (seconds - codec.epoch) // codec.tick_seconds
    sign = -1 if codec.desc else 1
    later_first = codec.tiebreak == "latest"
    return sign * points, sign * subscore, -tick if later_first else tick


@given(st.data())
@settings(max_examples=400)
def test_order_is_points_then_subscore_then_time(data):
    codec = data.draw(codecs)
    a, b = data.draw(results(codec)), data.draw(results(codec))
    if data.draw(st.booleans()):  # often the same points (and subscore): the tie-breaks decide
        b = (a[0], a[1] if data.draw(st.booleans()) else b[1], b[2])
    sa, sb = float(score_of(codec, a)), float(score_of(codec, b))
    ka, kb = board_key(codec, a), board_key(codec, b)
    better_a = sa > sb if codec.desc else sa < sb
    better_b = sb > sa if codec.desc else sb < sa
    assert better_a == (ka < kb)
    assert better_b == (kb < ka)


@given(st.data())
@settings(max_examples=200)
def test_a_time_outside_the_span_is_refused(data):
    codec = data.draw(codecs)
    outside = data.draw(st.one_of(st.integers(codec.first_second - 10 ** 6, codec.first_second - 1),
                                  st.integers(codec.end_second, codec.end_second + 10 ** 6)))
    with pytest.raises(TimeOutOfRange):
        codec.tick_of(outside, 0.0)


def test_the_default_layout_is_the_old_one():
    """epoch 1970, one second, no subscore: the low word is the unix second, as before."""
    codec = ScoreCodec(order="desc", tiebreak="earliest", point_bits=20, time_bits=33)
    now = int(datetime(2026, 12, 4, tzinfo=timezone.utc).timestamp())
    assert codec.low_of(now) == now == codec.tick_of(now, 0.0)
    assert codec.encode(5, now) == 5 * 2 ** 33 + 2 ** 33 - 1 - now


def test_the_readme_table_is_what_the_codec_holds():
    """Each row of README's layout table: the largest points, the subscores
    and the span of time are what a codec of that layout takes and refuses."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    rows = [line for line in readme.splitlines()
            if line.startswith("| ") and " / " in line.split("|")[1] and line.split("|")[1].strip()[0].isdigit()]
    assert len(rows) >= 8
    for row in rows:
        bits, tick, largest, subscore, span = [cell.strip() for cell in row.strip("|").split("|")]
        point_bits, subscore_bits, time_bits = (int(b) for b in bits.split()[0:5:2])
        codec = ScoreCodec(order="desc", tiebreak="earliest", point_bits=point_bits, subscore_bits=subscore_bits,
                           time_bits=time_bits, tick=tick.strip("`"))
        assert codec.max_points == int(largest.replace(",", ""))
        assert codec.check_points(codec.max_points) == codec.max_points
        assert codec.max_subscore == (0 if subscore == "none" else int(subscore.split("..")[1].replace(",", "")))
        seconds = codec.end_second - codec.first_second
        amount, unit = span.split()
        assert round(seconds / 86_400 / (365.2425 if unit == "years" else 1), 1) == float(amount.replace(",", ""))
        codec.tick_of(codec.end_second - 1, 0.0)
        with pytest.raises(TimeOutOfRange):
            codec.tick_of(codec.end_second, 0.0)
