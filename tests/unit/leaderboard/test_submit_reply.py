"""Points and a submit's reply read in C (``reply_points``, which
``ScoreCodec.parse_points`` calls, and ``submit_change`` of
leaderboard/_entries.pyx) answer as the plain-Python rule below and the
``Change`` NamedTuple made in Python would, values, types and errors
alike, for every text a script or a decoding client can send back."""
from __future__ import annotations

from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import Leaderboard
from fastrank.leaderboard._entries import reply_points, submit_change
from fastrank.leaderboard.board import Change
from fastrank.leaderboard.scorebits import EXACT_LIMIT

ENGINE = fastrank.Engine()
CODECS = [Leaderboard(ENGINE, "int", tiebreak="earliest").codec,   # integer points (scale set)
          Leaderboard(ENGINE, "float", tiebreak=None).codec,       # float points (scale 0)
          Leaderboard(ENGINE, "decimal", score_form="decimal").codec]

numbers = st.one_of(st.integers(-2 ** 64, 2 ** 64), st.integers(-10 ** 6, 10 ** 6),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([2 ** 53, 2 ** 53 + 1, -2 ** 53, 2.0 ** 53 + 2, 0.5, -0.0, 1e300]))
texts = st.one_of(numbers.map(lambda v: repr(v).encode()), numbers.map(repr),
                  numbers.map(lambda v: f"{v:.17g}".encode()), st.binary(max_size=8), st.text(max_size=8),
                  st.sampled_from([b"inf", b"-inf", b"nan", b"1e3", b" 7", b"7 ", b"0x10", b"\x007", b""]))


def model_points(text: Any, scale: int) -> Any:
    """The rule in plain Python: float(text), as an int on an integer board
    (scale set) or when whole and at most EXACT_LIMIT, else the float."""
    value = float(text)
    if scale or (value.is_integer() and abs(value) <= EXACT_LIMIT):
        return int(value)
    return value


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        value = fn()
    except Exception as exc:  # noqa: BLE001 -- the error's type is the answer compared
        return ("raises", type(exc))
    fields = tuple(type(f) for f in value) if isinstance(value, tuple) else ()
    return (type(value), fields, repr(value))  # repr: a NaN equals itself


@settings(max_examples=2000, deadline=None)
@given(texts, st.sampled_from(CODECS))
def test_points_read_as_the_rule_reads_them(text: Any, codec: Any) -> None:
    want = outcome(lambda: model_points(text, codec.scale))
    assert outcome(lambda: reply_points(text, codec.scale)) == want
    assert outcome(lambda: codec.parse_points(text)) == want


@settings(max_examples=1000, deadline=None)
@given(texts, st.integers(1, 10 ** 7), st.integers(0, 10 ** 7),
       st.lists(st.one_of(st.binary(max_size=6), st.text(max_size=6)), max_size=4), st.sampled_from(CODECS))
def test_change_made_as_the_namedtuple_would_be(text: Any, rank: int, previous: int, passed: Any, codec: Any) -> None:
    def in_python() -> Change:
        return Change(model_points(text, codec.scale), int(rank), int(previous) or None,
                      [m if isinstance(m, str) else m.decode("utf-8", "surrogateescape") for m in passed])

    got, want = outcome(lambda: submit_change(Change, [text, rank, previous, passed], codec.scale)), outcome(in_python)
    assert got == want
    if got[0] is Change:
        change = submit_change(Change, [text, rank, previous, passed], codec.scale)
        assert type(change.passed) is list and all(type(p) is str for p in change.passed)


def test_a_malformed_reply_raises() -> None:
    with pytest.raises(ValueError):
        submit_change(Change, [b"1", 2, 0], 1.0)
    with pytest.raises(IndexError):
        Leaderboard(ENGINE, "int", tiebreak="earliest")._new_points([])
