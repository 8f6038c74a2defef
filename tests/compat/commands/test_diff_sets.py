"""Set commands (commands/sets.py): client under test vs real Redis 7.0.

SSCAN replies are deterministic for small containers: one batch, cursor 0,
in sorted order for an intset; a hashtable set's order is its hash order, so
those members are compared as a set.
"""
from __future__ import annotations

import random
from typing import Any, Callable, List

import pytest
import redis

from differential import Gen, Pair, approx_ttl, steps
from test_diff_pipeline import compare_pipeline, draw_specs


def members_sorted(reply):
    """An SSCAN reply (cursor, members) with the members in sorted order."""
    return reply[0], sorted(reply[1])


def test_set_basics(pair: Pair) -> None:
    pair.sadd("s", "a", "b", "a", 1, 2.5, b"\x80")
    pair.smembers("s")
    pair.sismember("s", "a")
    pair.sismember("s", "zz")
    pair.smismember("s", ["a", "zz", 1])
    pair.quiet("smismember", "s", [])
    pair.scard("s")
    pair.srem("s", "a", "zz", "a")
    pair.srem("s", "b", 1, 2.5, b"\x80")
    pair.exists("s")
    pair.smembers("nokey")
    pair.sismember("nokey", "a")


def test_sscan(pair: Pair) -> None:
    pair.sadd("ints", 5, 3, 10, -1)                         # intset: sorted
    pair.sscan("ints")
    pair.sscan("ints", 0, match="1*")
    pair.sadd("words", "b", "a", "c", "\x80")               # hashtable: compare as sets
    pair.apply("sscan words as a set",
               lambda c: members_sorted(c.sscan("words")))
    pair.apply("sscan words match as a set",
               lambda c: members_sorted(c.sscan("words", 0, match="[ab]")))
    pair.sscan("missing")
    pair.quiet("sscan", "ints", 0, count=-1)
    pair.quiet("execute_command", "SSCAN", "ints", "-")
    pair.set("s", "v")
    pair.quiet("sscan", "s")
    pair.apply("sscan_iter sorted", lambda c: sorted(c.sscan_iter("words")))


# -- the rest of the set commands: SMOVE, SPOP, SRANDMEMBER, the algebra --------
#
# Reply order: redis-py turns SINTER/SUNION/SDIFF (and SMEMBERS) replies into
# Python sets, so they compare as sets; SPOP and SRANDMEMBER with a count
# choose at random, so only what is determined is compared: the reply's
# shape and length, that its members come from the set (distinct unless the
# count is negative), and the set afterwards (the popped members gone).

INTS = [str(i) for i in range(1, 9)]


def fill(pair: Pair) -> None:
    pair.sadd("a", "x", "y", "z", 1, 2)
    pair.sadd("b", "y", "z", "w", 2, 3)
    pair.sadd("c", "z", 2, "q")
    pair.set("str", "v")


def test_sinter_sunion_sdiff(pair: Pair) -> None:
    fill(pair)
    for op in ("sinter", "sunion", "sdiff"):
        getattr(pair, op)("a")
        getattr(pair, op)("a", "b")
        getattr(pair, op)(["a", "b", "c"])
        getattr(pair, op)("a", "a")
        getattr(pair, op)("a", "missing")              # a missing key is an empty set
        getattr(pair, op)("missing", "a")
        getattr(pair, op)("missing", "missing2")
        pair.quiet(op, "a", "str")                     # WRONGTYPE anywhere...
        pair.quiet(op, "missing", "str")               # ...even after a missing key
        pair.quiet(op, "str", "missing")
        pair.quiet(op, "a", "missing", "str")
        pair.quiet("execute_command", op.upper())      # arity
        pair.quiet("execute_command", op.upper(), "a", "b")
    pair.sinter("a", "b", "c", "c")
    pair.sdiff("b", "a", "c")


def test_store_forms(pair: Pair) -> None:
    for op in ("sinterstore", "sunionstore", "sdiffstore"):
        pair.flushall()
        fill(pair)
        getattr(pair, op)("d", ["a", "b"])
        pair.smembers("d")
        pair.set("d", "string", ex=1000)               # a string with a TTL: overwritten
        getattr(pair, op)("d", "a", "c")
        pair.type("d")
        pair.ttl("d")                                  # the TTL is gone
        pair.smembers("d")
        pair.expire("d", 1000)
        getattr(pair, op)("d", "a", "missing", "c")
        pair.exists("d")
        getattr(pair, op)("d", "missing")              # empty result: d deleted
        pair.exists("d")
        getattr(pair, op)("d", "missing")              # and nothing to delete
        pair.set("str2", "v")
        getattr(pair, op)("str2", "missing")           # dest of another type deleted too
        pair.exists("str2")
        getattr(pair, op)("a", "a", "b")               # dest among the sources
        pair.smembers("a")
        pair.quiet(op, "d", "a", "str")                # WRONGTYPE: nothing written
        pair.quiet(op, "str", "missing", "str")
        pair.get("str")
        pair.exists("d")
        pair.quiet("execute_command", op.upper(), "d")
        getattr(pair, op)("e", "c")                    # one source: a copy
        pair.smembers("e")
    pair.sdiffstore("f", "b", "b")
    pair.exists("f")


def test_sintercard(pair: Pair) -> None:
    fill(pair)
    pair.sintercard(2, ["a", "b"])
    pair.sintercard(3, ["a", "b", "c"])
    pair.sintercard(1, ["a"])
    for limit in (0, 1, 2, 3, 100):
        pair.sintercard(2, ["a", "b"], limit=limit)
    pair.sintercard(2, ["a", "missing"])
    pair.quiet("sintercard", 2, ["a", "str"])
    pair.quiet("sintercard", 2, ["missing", "str"])
    raw: List[List[Any]] = [
        [], ["1"], ["0", "a"], ["-1", "a"], ["x", "a"], ["1.5", "a"], ["3", "a", "b"],
        ["9223372036854775807", "a"], ["99999999999999999999", "a"],
        ["2", "a", "b", "LIMIT", "-1"], ["2", "a", "b", "LIMIT", "x"],
        ["2", "a", "b", "LIMIT"], ["2", "a", "b", "FOO"], ["1", "a", "b"],
        ["2", "a", "b", "limit", "1", "LIMIT", "5"], ["2", "a", "b", "LiMiT", "1"],
        ["2", "a", "b", b"LIMIT\0x", "1"], ["1", "str", "LIMIT", "x"],
        ["2", "a", "str", "LIMIT", "1"],
    ]
    for args in raw:
        pair.quiet("execute_command", "SINTERCARD", *args)


def test_smove(pair: Pair) -> None:
    fill(pair)
    pair.smove("a", "b", "x")                          # moved
    pair.smove("a", "b", "y")                          # already in b: still 1
    pair.smove("a", "b", "nope")
    pair.smove("a", "a", "z")                          # same key: is it a member?
    pair.smove("a", "a", "nope")
    pair.smove("missing", "b", "x")
    pair.smove("missing", "str", "x")                  # no source: 0 before any type check
    pair.smove("missing", "missing", "x")
    pair.quiet("smove", "str", "b", "x")
    pair.quiet("smove", "a", "str", "z")
    pair.quiet("smove", "a", "str", "nope")
    pair.quiet("smove", "str", "str", "v")
    pair.smove("c", "new", "q")                        # creates the destination
    pair.smembers("new")
    pair.expire("c", 1000)
    pair.smove("c", "new", "z")
    pair.smove("c", "new", 2)                          # c emptied: deleted with its TTL
    pair.exists("c")
    pair.smembers("new")
    for key in ("a", "b"):
        pair.smembers(key)
    pair.quiet("execute_command", "SMOVE", "a", "b")
    pair.quiet("execute_command", "SMOVE", "a", "b", "x", "y")


def facts_of_pop(c: Any, key: str, *count: Any, pop: bool = True) -> Any:
    """What SPOP/SRANDMEMBER's reply determines on one client: the reply's
    shape, membership, distinctness, and the set afterwards."""
    before = c.smembers(key)
    reply = (c.spop if pop else c.srandmember)(key, *count)
    after = c.smembers(key)
    if reply is None or isinstance(reply, bytes):
        shape: Any = None if reply is None else ("one", reply in before)
        gone = {reply} if pop and reply is not None else set()
    else:
        repeats = bool(count) and count[0] < 0         # a negative count may repeat
        shape = (type(reply).__name__, len(reply), set(reply) <= before,
                 repeats or len(set(reply)) == len(reply))
        gone = set(reply) if pop else set()
    return shape, after == before - gone, len(after), c.exists(key)


def test_spop_and_srandmember_errors_and_edges(pair: Pair) -> None:
    fill(pair)
    for name in ("SPOP", "SRANDMEMBER"):
        for args in ([], ["a", "1", "2"], ["a", "x"], ["a", "1.5"],
                     ["a", "-9223372036854775808"], ["a", "99999999999999999999"],
                     ["str"], ["str", "0"], ["str", "1"], ["str", "-1"], ["str", "x"],
                     ["missing"], ["missing", "0"], ["missing", "3"], ["missing", "-3"],
                     ["missing", "x"], ["a", "0"]):
            pair.quiet("execute_command", name, *args)
    pair.quiet("execute_command", "SPOP", "a", "-1")   # SRANDMEMBER takes it: random
    pair.sadd("one", "only")
    pair.srandmember("one")
    pair.srandmember("one", 1)
    pair.srandmember("one", -3)                        # repeats allowed
    pair.spop("one")
    pair.exists("one")
    pair.sadd("ints", *INTS)
    pair.srandmember("ints", 8)                         # the whole set
    pair.srandmember("ints", 100)
    pair.spop("ints", 8)                                # the whole set: key deleted
    pair.exists("ints")
    pair.sadd("ints", *INTS)
    pair.expire("ints", 1000)
    pair.spop("ints", 100)
    pair.exists("ints")


@pytest.mark.parametrize("count", [None, 1, 2, 3, 5, 7, 8, 9, -1, -4, -20])
def test_spop_srandmember_random_facts(pair: Pair, count: Any) -> None:
    args = () if count is None else (count,)
    for key, members in (("ints", INTS), ("mixed", INTS[:4] + ["a", "b", "c", "d"])):
        pair.sadd(key, *members)
        pair.apply(f"srandmember({key!r}, {count}) facts",
                   lambda c: facts_of_pop(c, key, *args, pop=False))
        if count is None or count >= 0:
            pair.apply(f"spop({key!r}, {count}) facts", lambda c: facts_of_pop(c, key, *args))


def encoding_is_of_content(c: Any, key: str) -> Any:
    """For a set Redis rebuilt from random members: is its encoding the one
    its content gives (intset iff every member is an integer)?"""
    members = c.smembers(key)
    want = b"intset" if all(m.lstrip(b"-").isdigit() for m in members) else b"hashtable"
    return c.object("encoding", key) == want


def test_set_encodings_across_thresholds(pair: Pair) -> None:
    enc = lambda key: pair.object("encoding", key)  # noqa: E731
    pair.sadd("i", *range(512))
    enc("i")                                           # 512 integers: intset
    pair.smembers("i")
    pair.sadd("i", 512)                                # the 513th: hashtable
    enc("i")
    pair.srem("i", 512, 511)                           # never back
    enc("i")
    pair.sadd("j", *range(513))                        # one SADD past the limit
    enc("j")
    for member in ("01", "+1", "-0", " 1", "1 ", "0x1", "1.0", "9223372036854775808",
                   "-9223372036854775809"):
        pair.sadd("n", "-9223372036854775808", "9223372036854775807", "0", "-1")
        enc("n")
        pair.sadd("n", member)                         # not string2ll's: hashtable
        enc("n")
        pair.srem("n", member)
        enc("n")                                       # still a hashtable
        pair.delete("n")
    pair.sadd("h", "a", 1, 2)
    pair.srem("h", "a")
    pair.apply("spop('h') is 1 or 2", lambda c: c.spop("h") in (b"1", b"2"))
    enc("h")                                           # one integer left, a hashtable
    pair.quiet("object", "encoding", "missing")


def popped(pair: Pair, key: str, count: int) -> None:
    """SPOP key count on both sides, comparing how many came out (which ones is random)."""
    pair.apply(f"len(spop({key!r}, {count}))", lambda c: len(c.spop(key, count)))


def test_set_encoding_of_built_sets(pair: Pair) -> None:
    enc = lambda key: pair.object("encoding", key)  # noqa: E731
    pair.sadd("h", "a", 1, 2, 3)
    pair.srem("h", "a")                                # a hashtable holding integers
    enc("h")
    pair.copy("h", "hc")                               # COPY keeps the encoding
    enc("hc")
    pair.sunionstore("u", "h")                         # built anew: intset
    enc("u")
    pair.sinterstore("n", "h", "hc")
    enc("n")
    pair.sdiffstore("d", "h", "missing")
    enc("d")
    pair.sadd("m", "a", "b")
    pair.sunionstore("u2", "h", "m")
    enc("u2")
    pair.sdiffstore("d2", "u2", "m")                   # integers only again: intset
    enc("d2")
    pair.rename("h", "h2")                             # the same value moves
    enc("h2")
    pair.smove("h2", "fresh", 1)                       # SMOVE creates from the member
    enc("fresh")
    pair.smove("m", "fresh", "a")
    enc("fresh")
    pair.smove("fresh", "m", "a")
    enc("fresh")
    pair.sadd("big", *range(600))
    pair.sunionstore("big2", "big")
    enc("big2")
    popped(pair, "big", 599)                           # rebuilt from the last member
    enc("big")
    pair.sadd("small", *range(10))
    pair.sadd("small", "a")
    pair.srem("small", "a")
    popped(pair, "small", 1)                           # few popped: in place, stays
    enc("small")
    for count in (9, 10, 12):                          # most popped: rebuilt from the rest
        pair.delete("mixed")
        pair.sadd("mixed", *range(count + 2), "a")
        pair.srem("mixed", "a")
        popped(pair, "mixed", count)
        enc("mixed")
    pair.delete("mixed")
    pair.sadd("mixed", *range(12), "a")
    popped(pair, "mixed", 11)
    pair.apply("rebuilt encoding follows the rest", lambda c: encoding_is_of_content(c, "mixed"))


def test_set_commands_from_lua(pair: Pair) -> None:
    fill(pair)
    pair.sadd("ints", 3, 1, 2, 10)
    ev = lambda body, *keys_and_args: pair.quiet(  # noqa: E731
        "eval", body, len([k for k in keys_and_args if k.startswith("k:")]),
        *[k[2:] if k.startswith("k:") else k for k in keys_and_args])
    ev("return redis.call('sdiff', KEYS[1], KEYS[2])", "k:ints", "k:missing")
    ev("return redis.call('sinter', KEYS[1], KEYS[2])", "k:ints", "k:ints")
    ev("return redis.call('sunion', KEYS[1], KEYS[2])", "k:ints", "k:missing")
    ev("local r = redis.call('sdiff', KEYS[1], KEYS[2]); table.sort(r); return r", "k:a", "k:b")
    ev("local r = redis.call('sinter', KEYS[1], KEYS[2]); table.sort(r); return r", "k:a", "k:b")
    ev("local r = redis.call('sunion', KEYS[1], KEYS[2]); table.sort(r); return r", "k:a", "k:b")
    ev("return redis.call('sdiffstore', KEYS[1], KEYS[2], KEYS[3])", "k:d", "k:a", "k:b")
    ev("return redis.call('sinterstore', KEYS[1], KEYS[2], KEYS[3])", "k:i", "k:a", "k:b")
    ev("return redis.call('sunionstore', KEYS[1], KEYS[2], KEYS[3])", "k:u", "k:a", "k:b")
    ev("return redis.call('sintercard', 2, KEYS[1], KEYS[2], 'LIMIT', 1)", "k:a", "k:b")
    ev("return redis.call('smove', KEYS[1], KEYS[2], 'x')", "k:a", "k:b")
    ev("return redis.call('smismember', KEYS[1], 'x', 'y')", "k:a")
    ev("return redis.call('spop', KEYS[1], 100)", "k:ints")
    ev("return redis.call('srandmember', KEYS[1])", "k:missing")
    ev("return {redis.call('spop', KEYS[1])}", "k:missing")
    ev("return #redis.call('srandmember', KEYS[1], -7)", "k:c")
    ev("return #redis.call('spop', KEYS[1], 2)", "k:b")
    ev("return redis.call('scard', KEYS[1])", "k:b")
    ev("return redis.pcall('sdiff', KEYS[1], KEYS[2])", "k:a", "k:str")
    ev("return redis.call('sinter', KEYS[1], KEYS[2])", "k:missing", "k:str")
    ev("return redis.call('object', 'encoding', KEYS[1])", "k:ints")
    ev("return redis.call('copy', KEYS[1], KEYS[2])", "k:c", "k:c2")
    ev("local r = redis.call('smembers', KEYS[1]); table.sort(r); return r", "k:c2")
    ev("return redis.call('object', 'encoding', KEYS[1])", "k:c2")
    for key in ("a", "c", "d", "i", "u", "ints"):               # (b lost 2 random members)
        pair.apply(f"smembers({key!r})", lambda c, key=key: c.smembers(key))


@pytest.mark.parametrize("transaction", [False, True])
def test_set_commands_in_pipelines(pair: Pair, transaction: bool) -> None:
    fill(pair)

    def run(c: Any) -> Any:
        pipe = c.pipeline(transaction=transaction)
        pipe.sinter("a", "b").sunion("a", "missing").sdiff("a", "b", "c")
        pipe.sinterstore("i", "a", "b").sunionstore("u", ["a", "b"]).sdiffstore("d", "a", "b")
        pipe.sintercard(2, ["a", "b"], limit=1).smove("a", "b", "x").smove("a", "a", "y")
        pipe.sdiff("a", "str").smismember("b", ["x", "q"]).sadd("n", 3, 1, 2).spop("n", 10)
        pipe.srandmember("missing").srandmember("b", 0).object("encoding", "u")
        pipe.copy("u", "u2").smembers("u2").sinter("str", "missing")
        return pipe.execute(raise_on_error=False)

    pair.apply(f"pipeline(transaction={transaction}) of set commands", run)
    for key in ("a", "b", "c", "i", "u", "d", "u2"):
        pair.apply(f"smembers({key!r})", lambda c, key=key: c.smembers(key))


def test_watch_sees_set_writes(pair: Pair) -> None:
    fill(pair)

    def attempt(c: Any, write: Callable[[Any], Any]) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("b")
            write(c)
            pipe.multi()
            pipe.scard("b")
            try:
                return pipe.execute()
            except redis.WatchError as exc:
                return f"WatchError: {exc}"

    writes = [("smove into b", lambda c: c.smove("a", "b", "x")),
              ("smove of a member b has", lambda c: c.smove("c", "b", "z")),
              ("sinterstore to b", lambda c: c.sinterstore("b", "a", "c")),
              ("sunionstore elsewhere", lambda c: c.sunionstore("e", "a", "c")),
              ("sdiffstore to b, empty", lambda c: c.sdiffstore("b", "missing")),
              ("copy to b", lambda c: c.copy("a", "b")),
              ("smove same key", lambda c: c.smove("b", "b", "q"))]
    for label, write in writes:
        pair.apply(f"watch b, {label}", lambda c, write=write: attempt(c, write))


# -- a random sequence of set commands ---------------------------------------------

SKEYS = ["s1", "s2", "s3", "s4", "str", "nokey"]
MEMBERS = [b"1", b"2", b"3", b"10", b"-5", b"0", b"a", b"b", b"c", b"01", b"\x80", b"m" * 70]


class SetGen(Gen):
    """Random set commands over a few keys (one a string, one never set)."""

    def key(self) -> str:
        return self.pick(SKEYS)

    def keys_n(self, lo: int = 1, hi: int = 4) -> List[str]:
        return [self.key() for _ in range(self.rng.randint(lo, hi))]

    def member(self) -> bytes:
        return self.pick(MEMBERS)

    def members_n(self, lo: int = 1, hi: int = 4) -> List[bytes]:
        return [self.member() for _ in range(self.rng.randint(lo, hi))]

    def table(self):
        return [
            (12, self.op_sadd), (5, self.op_srem), (4, self.op_read), (8, self.op_algebra),
            (6, self.op_store), (3, self.op_sintercard), (5, self.op_smove), (4, self.op_spop),
            (3, self.op_srandmember), (3, self.op_encoding), (2, self.op_copy),
            (2, self.op_keyspace), (1, self.op_big), (1, self.op_raw),
        ]

    def op_sadd(self, p: Pair) -> None:
        p.quiet("sadd", self.key(), *self.members_n())

    def op_srem(self, p: Pair) -> None:
        p.quiet("srem", self.key(), *self.members_n())

    def op_read(self, p: Pair) -> None:
        k = self.key()
        which = self.rng.randrange(5)
        if which == 0:
            p.quiet("smembers", k)
        elif which == 1:
            p.quiet("scard", k)
        elif which == 2:
            p.quiet("sismember", k, self.member())
        elif which == 3:
            p.quiet("smismember", k, self.members_n())
        else:
            p.apply(f"sscan_iter({k!r}) sorted", lambda c: sorted(c.sscan_iter(k)),
                    reraise=False)

    def op_algebra(self, p: Pair) -> None:
        p.quiet(self.pick(["sinter", "sunion", "sdiff"]), self.keys_n())

    def op_store(self, p: Pair) -> None:
        p.quiet(self.pick(["sinterstore", "sunionstore", "sdiffstore"]), self.key(),
                self.keys_n())

    def op_sintercard(self, p: Pair) -> None:
        keys = self.keys_n()
        p.quiet("sintercard", len(keys), keys, limit=self.pick([0, 0, 1, 2, 5]))

    def op_smove(self, p: Pair) -> None:
        p.quiet("smove", self.key(), self.key(), self.member())

    def op_spop(self, p: Pair) -> None:
        k = self.key()
        count = () if self.chance(0.3) else (self.pick([0, 1, 2, 3, 5, 20]),)
        p.apply(f"spop({k!r}, {count}) facts", lambda c: facts_of_pop(c, k, *count),
                reraise=False)
        self.resync_key(p, k)

    def op_srandmember(self, p: Pair) -> None:
        k = self.key()
        count = () if self.chance(0.3) else (self.pick([0, 1, 2, 5, 20, -1, -3, -30]),)
        p.apply(f"srandmember({k!r}, {count}) facts",
                lambda c: facts_of_pop(c, k, *count, pop=False), reraise=False)

    def op_encoding(self, p: Pair) -> None:
        p.quiet("object", "encoding", self.key())

    def op_copy(self, p: Pair) -> None:
        p.quiet("copy", self.key(), self.key(), replace=self.chance(0.5))

    def op_keyspace(self, p: Pair) -> None:
        k = self.key()
        which = self.rng.randrange(4)
        if which == 0:
            p.quiet("delete", k)
        elif which == 1:
            p.quiet("expire", k, 1000)
        elif which == 2:
            p.apply(f"ttl({k!r})", lambda c: c.ttl(k), compare=approx_ttl(1), reraise=False)
        else:
            p.quiet("type", k)

    def op_big(self, p: Pair) -> None:
        """Cross the intset's 512-member limit."""
        start = self.rng.randrange(0, 600)
        p.quiet("sadd", self.key(), *range(start, start + self.rng.randint(1, 520)))

    def op_raw(self, p: Pair) -> None:
        name = self.pick(["SINTER", "SUNIONSTORE", "SMOVE", "SPOP", "SRANDMEMBER",
                          "SINTERCARD", "SDIFFSTORE"])
        if name in ("SPOP", "SRANDMEMBER"):                 # errors or no choice only
            tail = self.pick([["x"], ["1", "2"], ["0"], ["1.5"], ["-1"] if name == "SPOP" else []])
            args = [self.key()] * (name == "SPOP" or bool(tail)) + tail
        else:
            args = [self.pick(SKEYS + ["0", "1", "-1", "x", "LIMIT"])
                    for _ in range(self.rng.randint(0, 4))]
        p.quiet("execute_command", name, *args)

    def resync_key(self, p: Pair, key: str) -> None:
        """After a random pop the two sets differ: give both Redis's set
        afterwards, built anew (TTL and type as Redis has them)."""
        kind = p.real.type(key)
        if kind != b"set":
            return
        members = p.real.smembers(key)
        ttl = p.real.pttl(key)
        for c in (p.real, p.engine):
            c.delete(key)
            c.sadd(key, *members)
            if ttl > 0:
                c.pexpire(key, ttl)


def test_sets_random_sequence(pair: Pair, seed: int) -> None:
    gen = SetGen(random.Random(seed))
    gen.run(pair, steps(1500), check_every=100)


def test_sdiffstore_encoding_follows_redis_choice_of_way(pair: Pair) -> None:
    """SDIFFSTORE either keeps the first set's members no other set has, or
    copies the first set and removes the others' members; a copy of a set
    that holds a non-integer converts, even when the result is integers only."""
    pair.sadd("first", *range(20), "a")
    pair.sadd("small", "a")
    pair.sadd("small2", "a", 3)
    pair.sdiffstore("d1", "first", "small")            # 21*2/2 <= 22: kept members only
    pair.object("encoding", "d1")
    pair.sdiffstore("d2", "first", "small", "small")   # 21*3/2 > 23: copy, then remove
    pair.object("encoding", "d2")
    pair.sdiffstore("d3", "first", "small2", "small", "missing")
    pair.object("encoding", "d3")
    pair.sadd("ints", *range(30))
    pair.sdiffstore("d4", "ints", "small", "small", "small")
    pair.object("encoding", "d4")
    pair.sadd("sticky", "a", *range(10))
    pair.srem("sticky", "a")                           # a hashtable of integers
    pair.sdiffstore("d5", "sticky", "small", "small")  # its copy fits an intset
    pair.object("encoding", "d5")
    for key in ("d1", "d2", "d3", "d4", "d5"):
        pair.smembers(key)


def test_encodings_survive_many_keys_coming_and_going(pair: Pair) -> None:
    """Many converted sets and hashes created, deleted and overwritten: the
    ones still there keep answering hashtable (the Engine's record of
    conversions is pruned as keys go, never the live ones)."""
    for i in range(300):
        pair.sadd(f"s{i}", "a", i)
        pair.srem(f"s{i}", "a")
        pair.hset(f"h{i}", "f", "x" * 65)
        pair.hset(f"h{i}", "g", 1)
        pair.hdel(f"h{i}", "f")
        if i % 3 == 0:
            pair.delete(f"s{i}", f"h{i}")
        elif i % 3 == 1:
            pair.sadd(f"s{i}x", i)
            pair.rename(f"s{i}x", f"s{i}")                 # a fresh intset replaces it
    for i in range(300):
        pair.object("encoding", f"s{i}")
        pair.object("encoding", f"h{i}")


def test_set_commands_decoded(pair_decoded: Pair) -> None:
    p = pair_decoded
    p.sadd("a", "é", "x", 1, 2)
    p.sadd("b", "x", 2, 3)
    p.sinter("a", "b")
    p.sunion("a", "b")
    p.sdiff("a", "b")
    p.sdiffstore("d", "a", "b")
    p.smembers("d")
    p.sintercard(2, ["a", "b"])
    p.smove("a", "b", "é")
    p.smembers("b")
    p.object("encoding", "a")
    p.object("encoding", "missing")
    p.copy("a", "c")
    p.smembers("c")
    p.spop("missing")
    p.srandmember("missing", 3)
    p.apply("spop('a', 10) as a set", lambda c: set(c.spop("a", 10)))
    p.exists("a")


class SetPipelineGen(SetGen):
    """SetGen without the random draws (their replies are compared one by
    one above): what a pipeline of set commands must answer exactly."""

    def table(self):
        return [(w, op) for w, op in super().table()
                if op not in (self.op_spop, self.op_srandmember)]


@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_sets_random_pipelines(pair: Pair, seed: int, transaction: bool) -> None:
    rng = random.Random(seed * 7919 + transaction)
    gen = SetPipelineGen(rng)
    for _ in range(steps(120)):
        specs = draw_specs(gen, rng.choice([1, 2, 3, 5, 8]))
        compare_pipeline(pair, specs, transaction, raise_on_error=rng.random() < 0.5)
