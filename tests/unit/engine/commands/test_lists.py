"""List commands (commands/lists.py): the examples of Redis's own command pages,
the count and index rules, errors that leave the list unchanged, WRONGTYPE.

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py);
tests/compat/commands/test_diff_lists.py compares random streams reply for reply.
"""
import pytest

from fastrank import Engine
from fastrank import errors as E

from .replies import error_line, error_of


def test_push_pop_and_counts(r):
    assert r.rpush("l", "a", "b", "c") == 3
    assert r.lpush("l", "z", "y") == 5                 # each pushed to the head in turn
    assert r.lrange("l", 0, -1) == [b"y", b"z", b"a", b"b", b"c"]
    assert r.lpop("l") == b"y" and r.rpop("l", 2) == [b"c", b"b"]
    assert r.lpop("l", 0) == [] and r.llen("l") == 2
    assert r.rpop("l", 10) == [b"a", b"z"] and r.exists("l") == 0   # emptied: deleted
    assert r.lpop("l") is None and r.lpop("l", 2) is None
    assert r.lpushx("l", "x") == 0 and r.rpushx("l", "x") == 0 and r.exists("l") == 0


def test_ranges_indexes_and_trim(r):
    r.rpush("l", *"abcdef")
    assert r.lrange("l", -3, -1) == [b"d", b"e", b"f"]
    assert r.lrange("l", 4, 100) == [b"e", b"f"] and r.lrange("l", 5, 2) == []
    assert r.lindex("l", -1) == b"f" and r.lindex("l", 6) is None
    assert r.lset("l", -2, "E") is True and r.lindex("l", 4) == b"E"
    assert r.ltrim("l", 1, -2) is True and r.lrange("l", 0, -1) == [b"b", b"c", b"d", b"E"]
    assert r.ltrim("l", 3, 1) is True and r.exists("l") == 0       # empty range: deleted


def test_lrem_linsert_lpos(r):
    r.rpush("l", "a", "b", "a", "c", "a")
    assert r.lrem("l", -2, "a") == 2 and r.lrange("l", 0, -1) == [b"a", b"b", b"c"]
    assert r.linsert("l", "BEFORE", "b", "x") == 4
    assert r.linsert("l", "AFTER", "nope", "y") == -1 and r.linsert("none", "AFTER", "a", "y") == 0
    r.rpush("p", *"abcddcba")
    assert r.lpos("p", "c") == 2 and r.lpos("p", "c", rank=-1) == 5
    assert r.lpos("p", "c", count=0) == [2, 5] and r.lpos("p", "c", rank=2, count=1) == [5]
    assert r.lpos("p", "c", maxlen=2) is None and r.lpos("p", "zz", count=2) == []


def test_lmove_rpoplpush_and_lmpop(r):
    r.rpush("a", "1", "2", "3")
    assert r.lmove("a", "b", "LEFT", "RIGHT") == b"1"
    assert r.rpoplpush("a", "b") == b"3"
    assert r.lrange("b", 0, -1) == [b"3", b"1"]
    assert r.lmove("a", "a", "RIGHT", "LEFT") == b"2"                # rotation of one
    assert r.lmpop(2, "none", "b", direction="RIGHT", count=5) == [b"b", [b"1", b"3"]]
    assert r.lmpop(1, "none", direction="LEFT") is None and r.exists("b") == 0


def test_blocking_commands_answer_at_once_when_data_is_there(r):
    r.rpush("q", "x", "y")
    assert r.blpop(["none", "q"], timeout=1) == (b"q", b"x")
    assert r.brpop(["q"], timeout=1) == (b"q", b"y")
    assert r.blpop(["q"], timeout=0.01) is None


def test_bad_arguments_leave_the_list_unchanged(r):
    r.rpush("l", "a", "b")
    assert error_line(r, "LPOP", "l", "-1") == E.message(E.OUT_OF_RANGE_POSITIVE)
    assert error_line(r, "LPOS", "l", "a", "RANK", "0") == E.message(E.LPOS_RANK_ZERO)
    assert error_line(r, "LINSERT", "l", "MIDDLE", "a", "x") == E.message(E.SYNTAX)
    assert error_line(r, "LSET", "l", "5", "x") == E.message(E.INDEX_OUT_OF_RANGE)
    assert error_line(r, "LSET", "none", "0", "x") == E.message(E.NO_SUCH_KEY)
    assert error_line(r, "LMOVE", "l", "m", "UP", "LEFT") == E.message(E.SYNTAX)
    assert error_line(r, "LMPOP", "0", "l", "LEFT") == E.message(E.NUMKEYS_POSITIVE)
    assert error_line(r, "LRANGE", "l", "x", "1") == E.message(E.NOT_INTEGER)
    assert error_line(r, "RPUSH", "l") == E.message(E.WRONG_ARITY, "rpush")
    assert r.lrange("l", 0, -1) == [b"a", b"b"] and r.exists("m") == 0


@pytest.mark.parametrize("make", [lambda c: c.set("k", "v"), lambda c: c.sadd("k", "v"),
                                  lambda c: c.zadd("k", {"v": 1}), lambda c: c.hset("k", "f", "v")],
                         ids=["string", "set", "zset", "hash"])
def test_wrongtype(r, make):
    make(r)
    for call in (lambda: r.lpush("k", "x"), lambda: r.lrange("k", 0, -1),
                 lambda: r.llen("k"), lambda: r.lpos("k", "v"), lambda: r.blpop(["k"], 1)):
        assert error_of(call) == E.WRONGTYPE
    r.rpush("src", "x")
    assert error_of(lambda: r.lmove("src", "k", "LEFT", "LEFT")) == E.WRONGTYPE
    assert r.lrange("src", 0, -1) == [b"x"]          # nothing popped for a wrong destination


def test_decode_responses():
    engine = Engine(decode_responses=True)
    engine.rpush("l", "é", "b")
    assert engine.lrange("l", 0, -1) == ["é", "b"] and engine.lpop("l") == "é"
    assert engine.blpop(["l"], timeout=1) == ("l", "b")
