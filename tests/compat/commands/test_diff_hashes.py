"""Hash commands (commands/hashes.py): client under test vs real Redis 7.0.

HSCAN replies are deterministic for a small hash: one batch, cursor 0, in
listpack order (insertion order).
"""
from __future__ import annotations

import pytest

from differential import Pair

pytestmark = pytest.mark.filterwarnings("ignore:.*:DeprecationWarning")  # HMSET


def test_hash_basics(pair: Pair) -> None:
    pair.hset("h", "a", 1)
    pair.hset("h", mapping={"b": 2.5, "c": b"\x80"})
    pair.hset("h", "d", "4", mapping={"e": 5}, items=["f", 6])
    pair.quiet("hset", "h")
    pair.hget("h", "a")
    pair.hmget("h", ["a", "nope", "c"])
    pair.quiet("hmget", "h", [])
    pair.hgetall("h")
    pair.hkeys("h")
    pair.hvals("h")
    pair.hlen("h")
    pair.hexists("h", "a")
    pair.hexists("h", "zz")
    pair.hincrby("h", "a", 10)
    pair.quiet("hincrby", "h", "b", 1)
    pair.hincrbyfloat("h", "b", 0.1)
    pair.quiet("hincrbyfloat", "h", "c", 1)
    pair.quiet("hincrbyfloat", "h", "a", "nan")
    pair.hdel("h", "a", "a", "nope")
    pair.hdel("h", "b", "c", "d", "e", "f")
    pair.exists("h")
    pair.hgetall("nokey")


def test_hmset(pair: Pair) -> None:
    pair.hmset("h", {"a": 1, "b": "two", "c": b"\x00\xff"})
    pair.hmset("h", {"a": "one", "d": 4.5})
    pair.hgetall("h")
    pair.quiet("hmset", "h", {})                            # redis-py DataError
    pair.quiet("execute_command", "HMSET", "h", "a")        # odd field/value count
    pair.set("s", "v")
    pair.quiet("hmset", "s", {"a": 1})                      # WRONGTYPE


def test_hscan(pair: Pair) -> None:
    pair.hset("h", mapping={"name": "x", "n1": "1", "n2": "2", "other": "3", "\x80": "4"})
    pair.hscan("h")
    pair.hscan("h", 0, match="n*")
    pair.hscan("h", 0, match="*", count=1000)
    pair.hscan("h", 0, match="zz*")
    pair.hscan("missing")
    pair.quiet("hscan", "h", 0, count=0)
    pair.quiet("execute_command", "HSCAN", "h", "notacursor")
    pair.quiet("execute_command", "HSCAN", "h", 0, "MATCH")
    pair.quiet("execute_command", "HSCAN", "h", 0, "FOO", "bar")
    pair.set("s", "v")
    pair.quiet("hscan", "s")
    pair.apply("hscan_iter sorted", lambda c: sorted(c.hscan_iter("h", match="n*")))


# HRANDFIELD draws at random (neither side with Redis's generator): each call
# is compared by what does not depend on the draw -- the reply's shape and
# length, that every field is the hash's and carries its own value, and that
# a positive count gives distinct fields. A draw that covers the whole hash,
# or a hash of one field, is determined and compared as it is.

_FIELDS = {"a": "1", "b": "two", "c": "3.5", "d": "\x80", "e": ""}


def _draw_summary(fields: dict, count: int, withvalues: bool):
    """What a HRANDFIELD reply determines, from redis-py's legacy shape
    (a flat [field, value, ...] list with WITHVALUES)."""
    def summary(client):
        reply = client.hrandfield("h", count, withvalues)
        if withvalues:
            pairs = list(zip(reply[::2], reply[1::2]))
            chosen = [f for f, _ in pairs]
            own_values = all(fields.get(f.decode("latin-1")) is not None
                             and v == fields[f.decode("latin-1")].encode("latin-1") for f, v in pairs)
        else:
            chosen, own_values = reply, True
        return (type(reply).__name__, len(reply), own_values,
                all(f.decode("latin-1") in fields for f in chosen),
                len(set(chosen)) == len(chosen) if count > 0 else None)
    return summary


def test_hrandfield_draws(pair: Pair) -> None:
    pair.hset("h", mapping={k.encode("latin-1"): v.encode("latin-1") for k, v in _FIELDS.items()})
    for count in (1, 2, 4, 5, 6, 100, -1, -3, -20):
        for withvalues in (False, True):
            pair.apply(f"hrandfield('h', {count}, withvalues={withvalues})",
                       _draw_summary(_FIELDS, count, withvalues))
    pair.apply("hrandfield('h')", lambda c: c.hrandfield("h").decode("latin-1") in _FIELDS)


def test_hrandfield_determined_cases(pair: Pair) -> None:
    pair.hset("h", mapping={"a": 1, "b": 2, "c": 3})
    pair.hset("one", "x", "5")
    pair.hrandfield("h", 3)                     # the whole (listpack) hash, in its order
    pair.hrandfield("h", 100, withvalues=True)
    pair.hrandfield("h", 0)
    pair.hrandfield("h", 0, withvalues=True)
    pair.hrandfield("one")
    pair.hrandfield("one", -3)
    pair.hrandfield("one", -2, withvalues=True)
    pair.hrandfield("one", 1, withvalues=True)
    pair.hrandfield("nokey")
    pair.hrandfield("nokey", 5)
    pair.hrandfield("nokey", -5, withvalues=True)
    pair.hdel("h", "a")
    pair.hset("h", "a", "again")                # a re-added field goes last
    pair.hrandfield("h", 3, withvalues=True)
    pair.eval("return redis.call('HRANDFIELD', KEYS[1], 5, 'WITHVALUES')", 1, "h")  # RESP2 in Lua: flat
    pair.eval("return redis.call('HRANDFIELD', KEYS[1], -2)", 1, "one")


def test_hrandfield_errors(pair: Pair) -> None:
    pair.hset("h", "a", "1")
    pair.set("s", "v")
    pair.quiet("hrandfield", "s")
    pair.quiet("hrandfield", "s", 1)
    pair.quiet("hrandfield", "s", 0)
    pair.quiet("execute_command", "HRANDFIELD", "h", "x")
    pair.quiet("execute_command", "HRANDFIELD", "nokey", "x")
    pair.quiet("execute_command", "HRANDFIELD", "h", "1.5")
    pair.quiet("execute_command", "HRANDFIELD", "h", 1, "FOO")
    pair.quiet("execute_command", "HRANDFIELD", "h", 1, "WITHVALUES", "x")
    pair.quiet("execute_command", "HRANDFIELD", "h", "-9223372036854775808")
    pair.quiet("execute_command", "HRANDFIELD", "h", "9223372036854775807")
    pair.quiet("execute_command", "HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES")
    pair.quiet("execute_command", "HRANDFIELD", "h", "4611686018427387904", "WITHVALUES")
    pair.quiet("execute_command", "HRANDFIELD", "nokey", 1, "FOO")
    pair.quiet("execute_command", "HRANDFIELD")
