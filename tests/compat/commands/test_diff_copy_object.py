"""COPY and OBJECT (commands/keys.py): client under test vs real Redis 7.0.

COPY of every value type the Engine holds, deep (writing to the copy leaves
the source alone), with the source's TTL (compared with a tolerance), the
REPLACE and DB options and their errors. The Engine has one database: DB 0
is it, any other index is out of range there (on the server, 1..15 exist;
those are not compared). RedisBloom's sketches cannot be copied on the
server ("not supported for this module key"), nor on the Engine.

OBJECT ENCODING for every type on both sides of each size threshold, and
after the writes that change it for good; OBJECT FREQ (no LFU policy) and
HELP; IDLETIME and REFCOUNT are not compared (docs/compatibility.md).
"""
from __future__ import annotations

import random
import time
from typing import Any

import pytest

from differential import Gen, Pair, approx_ttl, steps


def fill_every_type(pair: Pair) -> None:
    pair.set("str", "hello")
    pair.set("int", 12345)
    pair.hset("hash", mapping={"f": "v", "g": "w"})
    pair.rpush("list", "a", "b", "c")
    pair.sadd("set", "x", "y", 1)
    pair.sadd("intset", 3, 1, 2)
    pair.zadd("zlp", {"a": 1, "b": 2})
    pair.zadd("zsl", {"m" * 70: 1, "b": 2})
    pair.pfadd("hll", "a", "b", "c")


def contents(c: Any, key: str) -> Any:
    kind = c.type(key)
    if kind == b"string":
        return kind, c.get(key)
    if kind == b"hash":
        return kind, c.hgetall(key)
    if kind == b"list":
        return kind, c.lrange(key, 0, -1)
    if kind == b"set":
        return kind, c.smembers(key)
    if kind == b"zset":
        return kind, c.zrange(key, 0, -1, withscores=True)
    return kind, None


KEYS = ["str", "int", "hash", "list", "set", "intset", "zlp", "zsl", "hll"]


def test_copy_every_type_is_deep(pair: Pair) -> None:
    fill_every_type(pair)
    for key in KEYS:
        pair.copy(key, key + ":c")
        pair.apply(f"contents of {key}:c", lambda c, key=key: contents(c, key + ":c"))
        pair.object("encoding", key + ":c")
    # Writes to the copies...
    pair.append("str:c", "!")
    pair.incr("int:c")
    pair.hset("hash:c", "f", "changed")
    pair.rpush("list:c", "d")
    pair.lset("list:c", 0, "A")
    pair.sadd("set:c", "new")
    pair.srem("intset:c", 1)
    pair.zadd("zlp:c", {"a": 10, "c": 3})
    pair.zadd("zsl:c", {"b": -1})
    pair.pfadd("hll:c", *[f"e{i}" for i in range(50)])
    # ...leave the sources as they were.
    for key in KEYS:
        pair.apply(f"contents of {key}", lambda c, key=key: contents(c, key))
        pair.apply(f"contents of {key}:c", lambda c, key=key: contents(c, key + ":c"))
    pair.pfcount("hll")
    pair.pfcount("hll:c")


def test_copy_ttl_replace_and_missing(pair: Pair) -> None:
    fill_every_type(pair)
    pair.expire("hash", 1000)
    pair.copy("hash", "h2")
    pair.apply("ttl(h2)", lambda c: c.ttl("h2"), compare=approx_ttl(1))
    pair.copy("str", "h2")                              # destination exists: 0
    pair.apply("contents of h2", lambda c: contents(c, "h2"))
    pair.copy("str", "h2", replace=True)                # replaced, TTL of the source (none)
    pair.ttl("h2")
    pair.get("h2")
    pair.expire("set", 500)
    pair.copy("set", "str", replace=True)               # a string replaced by a set with a TTL
    pair.type("str")
    pair.apply("ttl(str)", lambda c: c.ttl("str"), compare=approx_ttl(1))
    pair.copy("missing", "new")
    pair.copy("missing", "list", replace=True)          # no source: nothing replaced
    pair.lrange("list", 0, -1)
    pair.exists("new")
    pair.set("gone", "x", px=1)
    pair.apply("sleep past gone's TTL", lambda c: time.sleep(0.01))
    pair.copy("gone", "g2")
    pair.copy("list", "gone")                           # an expired destination is free
    pair.lrange("gone", 0, -1)


def test_copy_options_and_errors(pair: Pair) -> None:
    fill_every_type(pair)
    raw = [
        [], ["str"], ["str", "str"], ["str", "str", "REPLACE"], ["str", "x", "DB", "0"],
        ["str", "x", "db", "0", "replace"], ["str", "x", "DB", "0"], ["str", "x", "REPLACE"],
        ["str", "y", "DB"], ["str", "y", "FOO"], ["str", "y", "DB", "x"],
        ["str", "y", "DB", "-1"], ["str", "y", "DB", "16"], ["str", "y", "DB", "1.5"],
        ["str", "y", "DB", "4294967296"], ["str", "y", "DB", "99999999999999999999"],
        ["str", "z", "REPLACE", "REPLACE"], ["str", "z2", b"REPLACE\0x"],
        ["str", "z3", b"db\0x", "0"], ["str", "str", "DB", "0"], ["missing", "missing"],
        ["missing", "y", "DB", "x"], ["str", "str", "FOO"], ["str", "w", "DB", "0", "DB", "0"],
    ]
    for args in raw:
        pair.quiet("execute_command", "COPY", *args)
    pair.quiet("copy", "str", "y", destination_db=0)
    pair.quiet("copy", "str", "y", destination_db="x")
    pair.quiet("copy", "str", "y", destination_db=-1)
    for key in ("x", "y", "z", "z2", "z3", "w"):
        pair.apply(f"contents of {key}", lambda c, key=key: contents(c, key))


@pytest.mark.redisbloom
def test_copy_refuses_sketches(pair: Pair) -> None:
    pair.execute_command("CMS.INITBYDIM", "cms", 10, 3)
    pair.execute_command("TOPK.RESERVE", "topk", 3)
    pair.set("taken", "v")
    for key in ("cms", "topk"):
        pair.quiet("copy", key, "dst")
        pair.quiet("copy", key, "taken")                # destination exists: 0 first
        pair.quiet("copy", key, "taken", replace=True)  # refused: nothing deleted
        pair.get("taken")
        pair.exists("dst")
        pair.object("encoding", key)
    pair.quiet("execute_command", "CMS.QUERY", "cms", "a")


# -- OBJECT ----------------------------------------------------------------------------


def test_object_subcommands_and_errors(pair: Pair) -> None:
    fill_every_type(pair)
    pair.execute_command("OBJECT", "HELP")
    pair.execute_command("object", "help")
    for args in ([], ["encoding"], ["encoding", "str", "x"], ["help", "x"], ["foo", "str"],
                 ["foo"], ["freq", "str"], ["FREQ", "missing"], ["freq"],
                 ["ENCODING", "missing"], ["EnCoDiNg", "str"]):
        pair.quiet("execute_command", "OBJECT", *args)
    pair.object("encoding", "str")
    pair.object("encoding", "missing")


STRINGS = ["0", "1", "-1", "9999", "10000", "123456789", "-9223372036854775808",
           "9223372036854775807", "9223372036854775808", "-9223372036854775809", "01", "+1",
           "-0", " 1", "1.5", "", "a", "x" * 44, "x" * 45, "1" * 20, "1" * 21, "é" * 22,
           "9" * 19]


def test_object_encoding_strings(pair: Pair) -> None:
    for i, value in enumerate(STRINGS):
        pair.set(f"s{i}", value)
        pair.object("encoding", f"s{i}")
    pair.mset({"m1": 5, "m2": "abc", "m3": "y" * 50})
    for key in ("m1", "m2", "m3"):
        pair.object("encoding", key)
    pair.incr("counter")
    pair.object("encoding", "counter")
    pair.incrby("counter", 1 << 40)
    pair.object("encoding", "counter")
    pair.getset("counter", "word")
    pair.object("encoding", "counter")
    pair.set("ex", "77", ex=100)
    pair.object("encoding", "ex")
    pair.pfadd("hll", *range(20))
    pair.object("encoding", "hll")


def test_object_encoding_strings_rewritten_in_place(pair: Pair) -> None:
    """A string Redis changed in place stays raw however short; INCRBYFLOAT's
    result is never int-encoded; RENAME and COPY keep the encoding."""
    enc = lambda key: pair.object("encoding", key)  # noqa: E731
    pair.set("a", 12)
    pair.append("a", 3)                                 # "123", raw
    enc("a")
    pair.append("a", "")
    enc("a")
    pair.append("new", 12)                              # APPEND creating the key: as SET
    enc("new")
    pair.set("r", "x")
    pair.setrange("r", 0, "y")
    enc("r")
    pair.setrange("r2", 0, "ab")
    enc("r2")
    pair.set("r3", 12)
    pair.setrange("r3", 0, "")                          # nothing written
    enc("r3")
    pair.set("f", 3)
    pair.incrbyfloat("f", 0)                            # "3", embstr
    enc("f")
    pair.incrbyfloat("f2", 1e30)                        # a long decimal
    enc("f2")
    pair.incr("f")
    enc("f")                                            # INCR: an int again
    pair.rename("a", "a2")
    enc("a2")
    pair.copy("a2", "a3")
    enc("a3")
    pair.copy("f", "f3")
    enc("f3")
    pair.set("a2", 123)                                 # a new value: as SET
    enc("a2")
    pair.pfadd("h", "a")
    hll = pair.get("h")
    pair.set("h2", hll)                                 # the same bytes SET: embstr
    enc("h2")
    pair.pfcount("h2")                                  # PFCOUNT rewrites it: raw
    enc("h2")
    pair.set("h3", hll)
    pair.pfadd("h3")                                    # even without a change
    enc("h3")
    pair.set("h4", hll)
    pair.pfmerge("h4")
    enc("h4")
    pair.pfmerge("h5", "h")
    enc("h5")
    pair.getset("h4", "x")
    enc("h4")


def test_object_encoding_lists(pair: Pair) -> None:
    pair.rpush("l", "a")
    pair.object("encoding", "l")
    pair.rpush("l", *range(200), "x" * 100)
    pair.object("encoding", "l")


def test_object_encoding_hashes(pair: Pair) -> None:
    enc = lambda key: pair.object("encoding", key)  # noqa: E731
    pair.hset("h", mapping={f"f{i}": i for i in range(512)})
    enc("h")                                            # 512 fields: listpack
    pair.hset("h", "f512", 1)
    enc("h")                                            # 513: hashtable
    pair.hdel("h", "f512", "f0")
    enc("h")                                            # never back
    pair.hset("big", mapping={f"f{i}": i for i in range(513)})
    enc("big")
    pair.hset("l", "f", "x" * 65)
    pair.hdel("l", "f")                                 # emptied: gone
    pair.hset("l", "f", "x" * 65, mapping={"g": 1})
    pair.hdel("l", "f")
    enc("l")
    pair.hset("v", "f", "x" * 64)
    enc("v")                                            # 64-byte value: listpack
    pair.hset("v", "g", "x" * 65)
    enc("v")
    pair.hdel("v", "g")
    enc("v")                                            # still a hashtable
    pair.hset("k", "k" * 64, 1)
    enc("k")
    pair.hset("k", "k" * 65, 1)
    enc("k")
    pair.hset("o", "f", "short")
    pair.hset("o", "f", "y" * 65)                       # an overwrite converts too
    enc("o")
    pair.hset("o", "g", "short")
    pair.hdel("o", "f")
    enc("o")
    pair.copy("o", "o2")
    enc("o2")                                           # a copy keeps the encoding
    pair.hincrbyfloat("fl", "f", "1" + "0" * 70)        # a 71-byte value
    pair.hincrbyfloat("fl", "f", "-" + "1" + "0" * 70)  # back to 0
    enc("fl")
    pair.hsetnx("n", "f", "z" * 65)
    enc("n")
    pair.hsetnx("n2", "f", "v")
    pair.hsetnx("n2", "f", "z" * 65)                    # not set: no conversion
    enc("n2")
    pair.hincrby("i", "f", 5)
    enc("i")
    pair.hincrbyfloat("i", "g", 1.5)
    enc("i")


def test_object_encoding_hashes_every_write_path(pair: Pair) -> None:
    """A long value overwritten with a short one leaves a hashtable, whichever
    way the HSET or HINCRBY came (method, raw command, pipeline, script)."""
    enc = lambda key: pair.object("encoding", key)  # noqa: E731
    long = "y" * 65
    pair.hset("m", "f", long)
    pair.hset("m", "f", "short")
    enc("m")
    pair.hset("d", mapping={"f": long, "g": "v"})
    pair.hset("d", mapping={"f": "s"})
    enc("d")
    pair.execute_command("HSET", "x", "f", long)
    pair.execute_command("HSET", "x", "f", "s")
    enc("x")
    pair.execute_command("HMSET", "hm", "f", long)
    pair.execute_command("HMSET", "hm", "f", "s")
    enc("hm")
    pair.hincrby("i", "k" * 65, 1)
    pair.hset("i", "a", 1)
    pair.hdel("i", "k" * 65)
    enc("i")
    pair.execute_command("HINCRBY", "j", "k" * 65, 1)
    pair.execute_command("HSET", "j", "a", 1)
    pair.execute_command("HDEL", "j", "k" * 65)
    enc("j")

    def piped(c):
        pipe = c.pipeline(transaction=True)
        pipe.hset("p", "f", long).hset("p", "f", "s").object("encoding", "p")
        return pipe.execute()

    pair.apply("pipeline: hset long, hset short, object encoding", piped)
    pair.eval("redis.call('hset', KEYS[1], 'f', ARGV[1]); redis.call('hset', KEYS[1], 'f', 's');"
              " return redis.call('object', 'encoding', KEYS[1])", 1, "lua", long)
    pair.hset("big", mapping={f"f{i}": i for i in range(512)})
    pair.hset("big", "one", "more")
    pair.hdel("big", "one")
    enc("big")
    pair.execute_command("HINCRBY", "big", "new", 1)
    pair.hdel("big", "new", "f0")
    enc("big")


def test_object_encoding_zsets(pair: Pair) -> None:
    enc = lambda key: pair.object("encoding", key)  # noqa: E731
    pair.zadd("z", {f"m{i}": i for i in range(128)})
    enc("z")
    pair.zadd("z", {"m128": 1})
    enc("z")
    pair.zremrangebyrank("z", 0, 100)
    enc("z")                                            # never back
    pair.zadd("big", {f"m{i}": i for i in range(129)})
    enc("big")
    pair.zadd("long", {"x" * 64: 1})
    enc("long")
    pair.zadd("long", {"x" * 65: 1})
    enc("long")
    pair.zadd("long2", {"x" * 65: 1})
    enc("long2")
    pair.zunionstore("u", ["z", "long"])
    enc("u")
    pair.zunionstore("u2", ["long"])
    enc("u2")
    pair.zrangestore("r", "big", 0, 10)
    enc("r")
    pair.zrangestore("r2", "big", 0, -1)
    enc("r2")
    pair.copy("z", "zc")
    enc("zc")
    pair.zincrby("inc", 1, "a")
    enc("inc")


# -- a random sequence over every type: writes, COPY, RENAME, OBJECT ENCODING -------

EKEYS = ["k1", "k2", "k3", "k4", "k5"]
STRING_VALUES = ["0", "7", "-12", "9999", "10000", "01", "+3", "1.5", "", "word", "x" * 44,
                 "x" * 45, "9223372036854775807", "9223372036854775808", "z" * 80]
WORDS = ["a", "b", "1", "2", "-3", "f" * 64, "f" * 65, "é"]


class EncodingGen(Gen):
    """Writes of every type that move values across their encodings, COPY
    and RENAME between a few keys, and OBJECT ENCODING of them."""

    def key(self) -> str:
        return self.pick(EKEYS)

    def word(self) -> str:
        return self.pick(WORDS)

    def table(self):
        return [
            (6, self.op_string), (6, self.op_hash), (5, self.op_zset), (5, self.op_set),
            (2, self.op_list), (2, self.op_hll), (4, self.op_copy), (2, self.op_rename),
            (1, self.op_delete), (8, self.op_encoding), (1, self.op_big),
        ]

    def op_string(self, p: Pair) -> None:
        k = self.key()
        which = self.rng.randrange(6)
        if which == 0:
            p.quiet("set", k, self.pick(STRING_VALUES))
        elif which == 1:
            p.quiet("append", k, self.pick(["", "1", "x"]))
        elif which == 2:
            p.quiet("setrange", k, self.rng.randrange(3), self.pick(["", "9", "ab"]))
        elif which == 3:
            p.quiet("incr", k)
        elif which == 4:
            p.quiet("incrbyfloat", k, self.pick([0, 1, 0.5, -2]))
        else:
            p.quiet("getset", k, self.pick(STRING_VALUES))

    def op_hash(self, p: Pair) -> None:
        k = self.key()
        which = self.rng.randrange(5)
        if which == 0:
            p.quiet("hset", k, mapping={self.word(): self.word()
                                        for _ in range(self.rng.randint(1, 3))})
        elif which == 1:
            p.quiet("execute_command", "HSET", k, self.word(), self.word())
        elif which == 2:
            p.quiet("hdel", k, self.word(), self.word())
        elif which == 3:
            p.quiet("hincrby", k, self.word(), 1)
        else:
            p.quiet("hsetnx", k, self.word(), self.word())

    def op_zset(self, p: Pair) -> None:
        k = self.key()
        which = self.rng.randrange(4)
        if which == 0:
            p.quiet("zadd", k, {self.word(): self.rng.randint(-2, 2)
                                for _ in range(self.rng.randint(1, 3))})
        elif which == 1:
            p.quiet("zrem", k, self.word())
        elif which == 2:
            p.quiet("zincrby", k, 1, self.word())
        else:
            p.quiet(self.pick(["zunionstore", "zinterstore", "zdiffstore"]), self.key(),
                    [self.key(), self.key()])

    def op_set(self, p: Pair) -> None:
        k = self.key()
        which = self.rng.randrange(4)
        if which == 0:
            p.quiet("sadd", k, *[self.word() for _ in range(self.rng.randint(1, 3))])
        elif which == 1:
            p.quiet("srem", k, self.word())
        elif which == 2:
            p.quiet(self.pick(["sunionstore", "sinterstore", "sdiffstore"]), self.key(),
                    [self.key(), self.key()])
        else:
            p.quiet("smove", self.key(), self.key(), self.word())

    def op_list(self, p: Pair) -> None:
        if self.chance(0.6):
            p.quiet("rpush", self.key(), self.word())
        else:
            p.quiet("lpop", self.key())

    def op_hll(self, p: Pair) -> None:
        if self.chance(0.6):
            p.quiet("pfadd", self.key(), self.word())
        elif self.chance(0.5):
            p.quiet("pfcount", self.key())
        else:
            p.quiet("pfmerge", self.key(), self.key())

    def op_copy(self, p: Pair) -> None:
        p.quiet("copy", self.key(), self.key(), replace=self.chance(0.5))

    def op_rename(self, p: Pair) -> None:
        p.quiet("rename", self.key(), self.key())

    def op_delete(self, p: Pair) -> None:
        p.quiet("delete", self.key())

    def op_encoding(self, p: Pair) -> None:
        p.quiet("object", "encoding", self.key())

    def op_big(self, p: Pair) -> None:
        """Past the size limits: 129 zset members, 513 fields or set members."""
        k = self.key()
        which = self.rng.randrange(3)
        if which == 0:
            p.quiet("zadd", k, {f"m{i}": i for i in range(129)})
        elif which == 1:
            p.quiet("hset", k, mapping={f"f{i}": i for i in range(513)})
        else:
            p.quiet("sadd", k, *range(513))


def test_encodings_random_sequence(pair: Pair, seed: int) -> None:
    gen = EncodingGen(random.Random(seed))
    gen.run(pair, steps(1500), check_every=250)
