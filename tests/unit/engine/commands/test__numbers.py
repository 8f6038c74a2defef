"""The number readers and writers of commands/_numbers.py, with the real server
as the oracle.

Each text is given to the function under test and to the server command that
reads numbers the same way (INCRBY: string2ll; ZADD: strict strtod; ZCOUNT:
the loose bound parser; INCRBYFLOAT: the x87 long double); the function
refuses exactly what the server refuses, and otherwise gives the value the
server stored (read back as its reply text). Runs against ``redis_client``
only: the Engine's own replies are the differential suite's business.
"""
from __future__ import annotations

import math
from fractions import Fraction

import pytest
import redis

from fastrank.engine.commands._numbers import (add_long_double, format_double, format_long_double,
                                        parse_bound, parse_int, parse_long_double,
                                        parse_score)

pytestmark = pytest.mark.redis

# The server's text of a member's score: a script's reply is RESP2, a bulk string.
ZSCORE_TEXT = "return redis.call('zscore', KEYS[1], ARGV[1])"

INT_TEXTS = ["0", "1", "-1", "+1", "01", "00", "-0", " 1", "1 ", "", "-", "1.0", "0x10", "1e3",
             "abc", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
             "-9223372036854775809", "12345678901234567890", "1\x00", "٣"]

SCORE_TEXTS = ["1", "-2", "0", "-0", "2.5", ".5", "5.", "0x10", "0x1p-1074", "+inf", "-inf",
               "inf", "Infinity", "-INF", "infinit", "1e308", "1e309", "-1e309", "1e-320",
               "1e-400", "4.9e-324", "nan", "NaN", "-nan", "abc", " 1", "1 ", "", "+", "1e",
               "0x", "1_0", "(1", "1\x00", "0.1", "123456789.123456789"]

BOUND_TEXTS = ["-inf", "+inf", "inf", "(1", "(", "", " 2", "1 ", "[1", "nan", "(nan", "0x10",
               "(0x1p-1", "1e400", "(-1e400", "1e-400", "abc", "2\x00junk", "(inf", "-0", "(0",
               ".5", "(.5", "1e", "0.5"]

LONG_DOUBLE_TEXTS = ["0.1", "0.2", "-1.1", "3", "1e20", "-0", "5e-18", "0.000000000000000005",
                     "0.000000000000000015", "1.5e3", "123456789.123456789", "0x10", "1e400",
                     "1.18e4932", "1e4932", "1e-5000", "1e5000", "inf", "-inf", "nan", " 1",
                     "1 ", "abc", ""]


def server_error(fn) -> str | None:
    """The error text of fn() on the server, or None when it succeeds."""
    try:
        fn()
    except redis.ResponseError as e:
        return str(e)
    return None


@pytest.mark.parametrize("text", INT_TEXTS)
def test_parse_int_reads_what_incrby_reads(redis_client, text):
    redis_client.set("n", 0)
    error = server_error(lambda: redis_client.incrby("n", text))
    ours = parse_int(text.encode())
    if error is not None:
        assert error == "value is not an integer or out of range" and ours is None
    else:
        assert ours == int(redis_client.get("n"))


@pytest.mark.parametrize("text", SCORE_TEXTS)
def test_parse_score_reads_what_zadd_reads(redis_client, text):
    error = server_error(lambda: redis_client.execute_command("ZADD", "z", text, "m"))
    ours = parse_score(text.encode())
    if error is not None:
        assert error == "value is not a valid float" and ours is None
    else:
        stored = redis_client.eval(ZSCORE_TEXT, 1, "z", "m")
        assert ours is not None and ours == float(stored)


@pytest.mark.parametrize("value", [0.0, 1.0, -2.5, 0.1, 1 / 3, 2.0 / 3, 1e15, 1e16, 1e17, 1e20,
                                   1.5e-7, 5e-324, 2.2250738585072014e-308,
                                   1.7976931348623157e308, 123456789.123, -1e-5, math.inf,
                                   -math.inf])
def test_format_double_writes_what_the_server_writes(redis_client, value):
    redis_client.zadd("z", {"m": value})
    assert format_double(value) == redis_client.eval(ZSCORE_TEXT, 1, "z", "m")


SCORES = [-math.inf, -1.0, 0.0, 0.5, 1.0, 2.0, 16.0, math.inf]


@pytest.mark.parametrize("text", BOUND_TEXTS)
def test_parse_bound_reads_what_zcount_reads(redis_client, text):
    redis_client.zadd("z", {f"m{i}": s for i, s in enumerate(SCORES)})
    error = server_error(lambda: redis_client.zcount("z", text, "+inf"))
    ours = parse_bound(text.encode())
    if error is not None:
        assert error == "min or max is not a float" and ours is None
    else:
        assert ours is not None
        value, exclusive = ours
        expected = sum(1 for s in SCORES if (s > value if exclusive else s >= value))
        assert redis_client.zcount("z", text, "+inf") == expected


def incrbyfloat_outcome(start: str | None, step: str) -> tuple[str, bytes | str]:
    """("value", stored text) or ("error", text) of SET start + INCRBYFLOAT step, ours."""
    base = Fraction(0) if start is None else parse_long_double(start.encode())
    incr = parse_long_double(step.encode())
    if base is None or incr is None:
        return "error", "value is not a valid float"
    total = add_long_double(base, incr)
    if isinstance(total, float):
        return "error", "increment would produce NaN or Infinity"
    return "value", format_long_double(total)


@pytest.mark.parametrize("step", LONG_DOUBLE_TEXTS)
@pytest.mark.parametrize("start", [None, "0.1", "-3", "1e4932", "9007199254740993"])
def test_long_double_arithmetic_is_incrbyfloats(redis_client, start, step):
    if start is not None:
        redis_client.set("f", start)
    error = server_error(lambda: redis_client.incrbyfloat("f", step))
    kind, ours = incrbyfloat_outcome(start, step)
    if error is not None:
        assert (kind, ours) == ("error", error)
    else:
        assert (kind, ours) == ("value", redis_client.get("f"))
