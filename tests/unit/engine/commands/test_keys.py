"""Keyspace commands (commands/keys.py): DEL, EXPIRE and TTL, RENAME, KEYS
and SCAN, FLUSHDB, the connection commands; the glob matcher itself.

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py);
those taking ``engine`` depend on the Engine's own clock or objects.
"""
import time

import pytest

from fastrank import errors as E
from fastrank.engine.commands.keys import stringmatch
from fastrank.engine import Engine

from .replies import error_of


def test_del_exists_type(r):
    r.set("a", 1)
    r.set("b", 2)
    assert r.delete("a", "a", "nokey") == 1
    assert r.exists("b", "b", "nokey") == 2
    assert r.type("b") == b"string" and r.type("none") == b"none"
    assert error_of(lambda: r.delete()) == E.message(E.WRONG_ARITY, "del")


def test_expire_options(r):
    r.set("b", 1)
    assert r.expire("b", 100) is True
    assert r.expire("b", 100, nx=True) is False
    assert r.expire("b", 200, xx=True) is True
    assert r.expire("b", 50, gt=True) is False
    assert r.expire("b", 500, gt=True) is True and r.ttl("b") == 500
    assert r.expire("b", 50, lt=True) is True and r.ttl("b") == 50
    r.set("h", 1)
    assert r.expire("h", 100, gt=True) is False
    assert r.expire("h", 100, lt=True) is True
    assert r.expire("nokey", 10) is False
    assert error_of(lambda: r.execute_command("EXPIRE", "b", 5, "NX", "XX")) == \
        E.message(E.EXPIRE_NX_AND_OTHERS)
    assert error_of(lambda: r.execute_command("EXPIRE", "b", 5, "GT", "LT")) == \
        E.message(E.EXPIRE_GT_AND_LT)
    assert error_of(lambda: r.execute_command("EXPIRE", "b", 5, "FOO")) == "Unsupported option FOO"
    assert error_of(lambda: r.expire("b", "1.5")) == E.message(E.NOT_INTEGER)
    assert error_of(lambda: r.expire("b", 922337203685477580)) == \
        E.message(E.INVALID_EXPIRE, "expire")
    assert error_of(lambda: r.pexpire("b", 2**63 - 1)) == E.message(E.INVALID_EXPIRE, "pexpire")


def test_expire_non_positive_deletes(r):
    r.set("c", 1)
    assert r.expire("c", 0) is True and r.exists("c") == 0
    r.set("c", 1)
    assert r.expire("c", -5) is True and r.exists("c") == 0
    r.set("c", 1)
    assert r.pexpireat("c", 1) is True and r.exists("c") == 0


def test_ttl_rounding_and_lazy_expiry(engine):
    """Engine only: TTL rounds the remaining milliseconds, so on a server one
    millisecond of round trip already turns 3 into 2."""
    engine.set("k", 1, px=2500)
    assert engine.ttl("k") == 3
    assert 2400 <= engine.pttl("k") <= 2500
    assert engine.ttl("none") == -2
    engine.set("p", 1)
    assert engine.ttl("p") == -1
    engine.set("gone", 1, px=20)
    time.sleep(0.03)
    assert engine.get("gone") is None and engine.exists("gone") == 0
    assert engine.ttl("gone") == -2
    engine.set("q", 1, ex=10)
    assert engine.persist("q") is True and engine.persist("q") is False
    assert engine.persist("none") is False


def test_rename(r):
    r.set("r1", "v", ex=100)
    assert r.rename("r1", "r2") is True
    assert r.ttl("r2") == 100 and r.exists("r1") == 0
    assert error_of(lambda: r.rename("nokey", "x")) == E.message(E.NO_SUCH_KEY)
    assert r.rename("r2", "r2") is True
    assert r.renamenx("r2", "r2") is False
    r.set("r3", "v")
    assert r.renamenx("r2", "r3") is False
    assert r.renamenx("r2", "r4") is True


@pytest.mark.parametrize(
    "pattern, matches",
    [
        (b"h?llo", {b"hello", b"hallo", b"hxllo", b"h*llo", b"h\\llo"}),
        (b"h[ae]llo", {b"hello", b"hallo"}),
        (b"h[^e]llo", {b"hallo", b"hxllo", b"h*llo", b"h\\llo"}),
        (b"h[b-a]llo", {b"hallo"}),
        (b"h\\*llo", {b"h*llo"}),
        (b"h[a", set()),
        (b"h**o", {b"hello", b"hallo", b"hxllo", b"hllo", b"heeeello", b"h*llo", b"h\\llo",
                   b"h[a]llo"}),
        (b"h\\\\llo", {b"h\\llo"}),
    ],
)
def test_keys_glob(r, pattern, matches):
    names = [b"hello", b"hallo", b"hxllo", b"hllo", b"heeeello", b"h[a]llo", b"h*llo", b"h\\llo"]
    r.mset({n: 1 for n in names})
    assert set(r.keys(pattern)) == matches


def test_stringmatch_edges():
    assert not stringmatch(b"*", b"")  # Redis quirk; KEYS/SCAN special-case a lone "*"
    assert not stringmatch(b"?", b"")
    assert stringmatch(b"a*", b"a")
    assert stringmatch(b"[\x80-\xff]*", b"\xc3\xa9")


def test_scan_and_flush(r):
    r.mset({"a": 1, "b": 2})
    r.sadd("s", "x")
    cursor, keys = r.scan(0, match="*", count=10)
    assert cursor == 0 and sorted(keys) == [b"a", b"b", b"s"]
    assert r.scan(0, _type="set") == (0, [b"s"])
    assert sorted(r.scan_iter()) == [b"a", b"b", b"s"]
    assert error_of(lambda: r.scan(0, count=0)) == E.message(E.SYNTAX)
    assert error_of(lambda: r.execute_command("SCAN", "x")) == E.message(E.INVALID_CURSOR)
    assert r.dbsize() == 3
    assert error_of(lambda: r.execute_command("FLUSHDB", "x")) == E.message(E.SYNTAX)
    assert r.flushdb() is True and r.dbsize() == 0


def test_misc_connection_commands(r):
    assert r.ping() is True
    assert r.echo("x") == b"x"
    seconds, micros = r.time()
    assert abs(seconds - time.time()) < 5 and 0 <= micros < 10**6
    assert error_of(lambda: r.execute_command("NOSUCH", "a", "b")) == \
        "unknown command 'NOSUCH', with args beginning with: 'a' 'b' "


def test_decode_responses_shapes():
    engine = Engine(decode_responses=True)
    engine.hset("h", "é", "ü")
    engine.sadd("s", "x")
    assert engine.hgetall("h") == {"é": "ü"}
    assert engine.smembers("s") == {"x"}
    assert engine.keys() in (["h", "s"], ["s", "h"])
