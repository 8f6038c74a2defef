"""String commands (commands/strings.py).

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py),
so the expected replies are checked against Redis 7.0 in the same run.
"""
import pytest
import redis

from fastrank import errors as E
from fastrank.engine import Engine

from .replies import error_of


def test_get_set_basic(r):
    assert r.set("k", "v") is True
    assert r.get("k") == b"v"
    assert r.get("missing") is None
    assert r.set("k", "w", nx=True) is None
    assert r.set("k", "w", xx=True) is True
    assert r.set("new", "w", xx=True) is None
    assert r.set("k", 1.5) and r.get("k") == b"1.5"
    assert r.set("k", 10**20) and r.get("k") == b"100000000000000000000"


def test_set_options_errors(r):
    assert error_of(lambda: r.execute_command("SET", "k", "v", "NX", "XX")) == E.message(E.SYNTAX)
    assert error_of(lambda: r.set("k", "v", ex=0)) == E.message(E.INVALID_EXPIRE, "set")
    assert error_of(lambda: r.execute_command("SET", "k", "v", "EX")) == E.message(E.SYNTAX)
    assert error_of(lambda: r.execute_command("SET", "k")) == E.message(E.WRONG_ARITY, "set")
    assert r.execute_command("SET", "k", "v", "EX", "10", "EX", "20") is True
    assert r.ttl("k") == 20


def test_set_ttl_handling(r):
    r.set("k", "v", ex=100)
    assert r.ttl("k") == 100
    r.set("k", "v", keepttl=True)
    assert r.ttl("k") == 100
    r.set("k", "v")
    assert r.ttl("k") == -1
    assert r.set("k", "new", get=True) == b"v"
    r.set("k", "v", pxat=1)
    assert r.get("k") is None


def test_bad_argument_types_raise_data_error(r):
    for bad in (True, None, 3j):
        with pytest.raises(redis.DataError, match="A tuple item must be str, int, float or bytes."):
            r.set("k", bad)
    assert r.get("k") is None


def test_counters(r):
    assert r.incr("i") == 1
    assert r.incrby("i", 5) == 6
    assert r.decr("i") == 5
    assert r.decrby("i", 10) == -5
    for bad in ("+1", "01", "-0", "1.5", "9223372036854775808"):
        assert error_of(lambda: r.incrby("i", bad)) == E.message(E.NOT_INTEGER)
    for stored in (" 5", "05", "1.0", "", "abc", "+1"):
        r.set("j", stored)
        assert error_of(lambda: r.incr("j")) == E.message(E.NOT_INTEGER)
        assert r.get("j") == stored.encode()
    r.set("i", "9223372036854775807")
    assert error_of(lambda: r.incr("i")) == E.message(E.OVERFLOW)
    assert error_of(lambda: r.decrby("i", -(2**63))) == E.message(E.DECR_OVERFLOW)
    r.set("t", 1, ex=100)
    r.incr("t")
    assert r.ttl("t") == 100


@pytest.mark.parametrize(
    "steps, text",
    [
        (["0.1", "0.2"], b"0.3"),
        (["1e20"], b"100000000000000000000"),
        (["3", "1.5e3"], b"1503"),
        (["5e-18"], b"0"),
        (["1.1", "2.2", "3.3", "-6.6"], b"0"),
        (["123456789.123456789", "0.000000000000000001"], b"123456789.12345678899873747"),
        (["-1.5", "1.5"], b"0"),
        (["0x10"], b"16"),
        (["-0"], b"0"),
        (["0.000000000000000015"], b"0.00000000000000002"),
        (["0.000000000000000005"], b"0"),
    ],
)
def test_incrbyfloat_long_double(r, steps, text):
    for step in steps:
        r.incrbyfloat("f", step)
    assert r.get("f") == text


def test_incrbyfloat_beyond_double_range(r):
    assert r.incrbyfloat("g", "1e400") == float("inf")
    assert r.get("g").startswith(b"1000000000000000000028188068394758651458")
    assert r.incrbyfloat("g", "-1e400") == 0.0
    r.incrbyfloat("h", "1.18e4932")
    assert error_of(lambda: r.incrbyfloat("h", "1e4932")) == E.message(E.NAN_OR_INF)
    for bad in ("nan", " 1", "1 ", "1e-5000", "1e5000", "abc"):
        assert error_of(lambda: r.incrbyfloat("x", bad)) == E.message(E.NOT_FLOAT)
    assert error_of(lambda: r.incrbyfloat("x", "inf")) == E.message(E.NAN_OR_INF)
    assert r.exists("x") == 0


def test_mget_mset(r):
    r.mset({"a": "1", "b": "2"})
    r.sadd("s", "x")
    assert r.mget(["a", "b", "c", "s"]) == [b"1", b"2", None, None]
    assert r.mget([]) == []
    assert r.msetnx({"a": "1", "c": "3"}) is False
    assert r.msetnx({"c": "1", "d": "3"}) is True
    assert error_of(lambda: r.execute_command("MSET", "a", "1", "b")) == E.message(E.WRONG_ARITY, "mset")


def test_ranges_and_append(r):
    assert r.append("ap", "x") == 1
    assert r.append("ap", "yz") == 3
    assert r.getrange("ap", 0, -1) == b"xyz"
    assert r.getrange("ap", -2, -1) == b"yz"
    assert r.getrange("ap", -1, -2) == b""
    assert r.getrange("ap", 5, 10) == b""
    assert r.strlen("ap") == 3 and r.strlen("none") == 0
    assert r.setrange("sr", 5, "x") == 6
    assert r.get("sr") == b"\0\0\0\0\0x"
    assert error_of(lambda: r.setrange("sr", -1, "x")) == E.message(E.OFFSET_OUT_OF_RANGE)
    assert r.setrange("sr2", 1, "") == 0 and r.exists("sr2") == 0
    assert error_of(lambda: r.setrange("sr", 536870911, "ab")) == E.message(E.STRING_TOO_LONG)


def test_getex_getdel_getset(r):
    r.set("k", "v")
    assert r.getex("k", ex=100) == b"v" and r.ttl("k") == 100
    assert r.getex("k", persist=True) == b"v" and r.ttl("k") == -1
    assert error_of(lambda: r.getex("k", ex=0)) == E.message(E.INVALID_EXPIRE, "getex")
    assert r.getset("k", "w") == b"v"
    assert r.getdel("k") == b"w" and r.exists("k") == 0


def test_wrongtype(r):
    r.sadd("s", "x")
    for fn in (lambda: r.get("s"), lambda: r.incr("s"), lambda: r.append("s", "x"),
               lambda: r.incrbyfloat("s", 1), lambda: r.set("s", "v", get=True),
               lambda: r.getset("s", "x"), lambda: r.strlen("s")):
        assert error_of(fn) == E.WRONGTYPE
    assert r.type("s") == b"set"


def test_decode_responses():
    engine = Engine(decode_responses=True)
    engine.set("k", "é")
    assert engine.get("k") == "é"
    assert engine.mget("k", "x") == ["é", None]
    assert engine.type("k") == "string"
    assert engine.incrbyfloat("f", 0.5) == 0.5
