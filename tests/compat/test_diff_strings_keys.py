"""Strings, counters, hashes, sets and the keyspace: client under test vs real Redis 7.0.

Seeded random sequences plus directed tests. INCRBYFLOAT results are
compared bit-exactly (the reply float and the stored text). TTLs are compared
with a tolerance (``ttl`` +-1 s, ``pttl`` +-250 ms) since the two sides start
their clocks a few microseconds apart; key expiry itself is tested with short
PX values and generous sleeps.
"""
from __future__ import annotations

import random
import time
from typing import Any, List

import pytest

from differential import Gen, Pair, approx_ttl, steps

pytestmark = pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")

STR_KEYS = ["k1", "k2", "k3"]
HASH_KEYS = ["h1", "h2"]
SET_KEYS = ["s1", "s2"]
ZSET_KEY = "z"
MISSING = "nokey"
ALL_KEYS = STR_KEYS + HASH_KEYS + SET_KEYS + [ZSET_KEY, MISSING, "a*b", "k10"]

VALUES: List[Any] = ["0", "1", "-1", "10", "9223372036854775807", "-9223372036854775808",
                     "9223372036854775806", "05", " 5", "1.0", "", "abc", "+1", "0.1", "1e20",
                     "-0", "5e-18", "1e400", "nan", " 1", "0x10", "inf", 3, 2.5, -7, 10 ** 19,
                     "hello", "x" * 40]
BYTES_VALUES: List[Any] = [b"\x80\x00", b"\xff", b"a\x00b"]
INCR_AMOUNTS: List[Any] = [1, -1, 0, 5, -5, 2 ** 62, -(2 ** 62), 9223372036854775807,
                           -9223372036854775808, 100]
RAW_INT_ARGS: List[Any] = ["1", "+1", "01", "-0", "1.5", "9223372036854775808", "", " 1", "abc",
                           "-9223372036854775809", "0x10"]
FLOAT_AMOUNTS: List[Any] = [0.1, 0.2, -0.1, 1.5, 1e20, -1e20, 5e-18, 1e-300, 1e300, 3, -3, 0,
                            -0.0, 1e308]
RAW_FLOAT_ARGS: List[Any] = ["0.1", "1e20", "-0", "5e-18", "1e400", "-1e400", "nan", " 1", "0x10",
                             "inf", "-inf", "", "1e-400", "abc", "1.", ".5", "+1", "1e4000",
                             "0.30000000000000004", "1 "]
FIELDS: List[Any] = ["f1", "f2", "f3", "", b"\x80", 7]
MEMBERS: List[Any] = ["a", "b", "c", "", b"\x80", 1, 2.5, "aa"]
FIELDS_TEXT = [f for f in FIELDS if not isinstance(f, bytes)]
MEMBERS_TEXT = [m for m in MEMBERS if not isinstance(m, bytes)]
PATTERNS = ["*", "k*", "k?", "k[12]", "k[^1]", "h\\*", "[a-z]1", "*1", "nope*", "k[", "\\k1",
            "a\\*b", "a*b", "?", "*[0-9]", "[hs]?"]


class StringsGen(Gen):
    def __init__(self, rng: random.Random, decoded: bool = False):
        super().__init__(rng, decoded)
        self.now = int(time.time())

    # -- values ----------------------------------------------------------

    def value(self) -> Any:
        if not self.decoded and self.chance(0.05):
            return self.pick(BYTES_VALUES)
        return self.pick(VALUES)

    def skey(self) -> str:
        x = self.rng.random()
        if x < 0.85:
            return self.pick(STR_KEYS)
        if x < 0.9:
            return MISSING
        return self.pick(HASH_KEYS + SET_KEYS + [ZSET_KEY])

    def any_key(self) -> str:
        return self.pick(ALL_KEYS)

    def hkey(self) -> str:
        return self.pick(HASH_KEYS) if self.chance(0.9) else self.pick([ZSET_KEY, "k1", MISSING])

    def setkey(self) -> str:
        return self.pick(SET_KEYS) if self.chance(0.9) else self.pick([ZSET_KEY, "k1", MISSING])

    def field(self) -> Any:
        return self.pick(FIELDS_TEXT if self.decoded else FIELDS)

    def member(self) -> Any:
        return self.pick(MEMBERS_TEXT if self.decoded else MEMBERS)

    def ttl_args(self) -> dict:
        """Expiry options, always long (>= 100 s) or already in the past."""
        x = self.rng.random()
        if x < 0.55:
            return {}
        which = self.pick(["ex", "px", "exat", "pxat", "keepttl", "bad"])
        if which == "ex":
            return {"ex": self.pick([100, 1000])}
        if which == "px":
            return {"px": self.pick([100000, 1000000])}
        if which == "exat":
            return {"exat": self.pick([self.now + 500, 1])}
        if which == "pxat":
            return {"pxat": self.pick([(self.now + 500) * 1000, 1000])}
        if which == "keepttl":
            return {"keepttl": True}
        return self.pick([{"ex": 0}, {"px": -5}, {"ex": 100, "px": 100000},
                          {"ex": 100, "keepttl": True}, {"ex": "x"}])

    # -- operations ------------------------------------------------------

    def table(self):
        return [
            (10, self.op_get), (14, self.op_set), (5, self.op_set_raw), (3, self.op_setex),
            (3, self.op_getset_getdel), (4, self.op_getex), (4, self.op_mget_mset),
            (3, self.op_append_strlen), (4, self.op_getrange_setrange), (12, self.op_incr),
            (10, self.op_incrbyfloat), (10, self.op_hash), (8, self.op_set_type),
            (8, self.op_expire), (6, self.op_ttl), (4, self.op_delete_exists),
            (3, self.op_rename), (3, self.op_keys), (1, self.op_flushdb),
        ]

    def op_get(self, p: Pair) -> None:
        p.quiet("get", self.skey())

    def op_set(self, p: Pair) -> None:
        kwargs = self.ttl_args()
        if self.chance(0.2):
            kwargs["nx"] = True
        if self.chance(0.2):
            kwargs["xx"] = True
        if self.chance(0.2):
            kwargs["get"] = True
        key = self.skey()
        p.quiet("set", key, self.value(), **kwargs)
        self.reap(p, key)

    def reap(self, p: Pair, key: str) -> None:
        """Touch ``key`` so Redis deletes it now if it is already expired.

        SET with an EXAT/PXAT in the past stores a key that is logically gone
        but still counted by DBSIZE until Redis's active expiry cycle or an
        access reclaims it: a timing-dependent answer. An access makes it
        deterministic (and checks that both sides report the key missing).
        """
        p.quiet("exists", key)

    def op_set_raw(self, p: Pair) -> None:
        opts = self.rng.sample(["NX", "XX", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT", "nx",
                                "get", "FOO"], self.rng.choice([0, 1, 2, 3]))
        args: List[Any] = ["SET", self.skey(), self.value()]
        for o in opts:
            args.append(o)
            if o in ("EX", "PX", "EXAT", "PXAT") and self.chance(0.9):
                args.append(self.pick([100000, 0, -1, "x", "1.5", 9223372036854775807,
                                       "9223372036854775808"]))
        p.quiet("execute_command", *args)
        self.reap(p, args[1])

    def op_setex(self, p: Pair) -> None:
        what = self.pick(["setex", "psetex", "setnx"])
        if what == "setex":
            p.quiet("setex", self.skey(), self.pick([100, 0, -1, 1000]), self.value())
        elif what == "psetex":
            p.quiet("psetex", self.skey(), self.pick([100000, 0, -1]), self.value())
        else:
            p.quiet("setnx", self.skey(), self.value())

    def op_getset_getdel(self, p: Pair) -> None:
        if self.chance(0.5):
            p.quiet("getset", self.skey(), self.value())
        else:
            p.quiet("getdel", self.skey())

    def op_getex(self, p: Pair) -> None:
        kwargs = self.pick([{}, {"ex": 100}, {"px": 100000}, {"exat": self.now + 500},
                            {"pxat": (self.now + 500) * 1000}, {"persist": True},
                            {"ex": 100, "persist": True}, {"ex": 0}, {"px": -1}])
        p.quiet("getex", self.skey(), **kwargs)

    def op_mget_mset(self, p: Pair) -> None:
        what = self.pick(["mget", "mget", "mset", "msetnx"])
        if what == "mget":
            keys = [self.any_key() for _ in range(self.rng.randint(0, 4))]
            if keys:
                p.quiet("mget", keys)
            else:
                p.quiet("execute_command", "MGET")
        else:
            mapping = {self.skey(): self.value() for _ in range(self.rng.randint(1, 3))}
            p.quiet(what, mapping)

    def op_append_strlen(self, p: Pair) -> None:
        if self.chance(0.5):
            p.quiet("append", self.skey(), self.value())
        else:
            p.quiet("strlen", self.skey())

    def op_getrange_setrange(self, p: Pair) -> None:
        if self.chance(0.6):
            p.quiet("getrange", self.skey(), self.pick([0, 1, -1, -3, 5, 100, -100]),
                    self.pick([0, 2, -1, -2, 100, -100, 3]))
        else:
            offset = self.pick([0, 1, 3, 10, -1, 536870912, "x"])
            p.quiet("setrange", self.skey(), offset, self.pick(["", "ab", "xyz", 5]))

    def op_incr(self, p: Pair) -> None:
        key = self.skey()
        what = self.pick(["incr", "decr", "incrby", "decrby", "raw"])
        if what in ("incr", "decr"):
            if self.chance(0.5):
                p.quiet(what, key)
            else:
                p.quiet(what, key, self.pick(INCR_AMOUNTS))
        elif what in ("incrby", "decrby"):
            p.quiet(what, key, self.pick(INCR_AMOUNTS))
        else:
            cmd = self.pick(["INCRBY", "DECRBY"])
            p.quiet("execute_command", cmd, key, self.pick(RAW_INT_ARGS + INCR_AMOUNTS))
        if self.chance(0.5):
            p.quiet("get", key)

    def op_incrbyfloat(self, p: Pair) -> None:
        key = self.skey()
        if self.chance(0.5):
            p.quiet("incrbyfloat", key, self.pick(FLOAT_AMOUNTS))
        else:
            p.quiet("execute_command", "INCRBYFLOAT", key, self.pick(RAW_FLOAT_ARGS))
        p.quiet("get", key)

    def op_hash(self, p: Pair) -> None:
        key = self.hkey()
        what = self.pick(["hset", "hset", "hget", "hmget", "hgetall", "hdel", "hincrby",
                          "hincrbyfloat", "hlen", "hexists", "hkeys", "hvals", "hsetnx",
                          "hstrlen", "raw"])
        if what == "hset":
            form = self.pick(["kv", "mapping", "both", "items", "none"])
            if form == "kv":
                p.quiet("hset", key, self.field(), self.value())
            elif form == "mapping":
                p.quiet("hset", key, mapping={self.field(): self.value() for _ in range(2)})
            elif form == "both":
                p.quiet("hset", key, self.field(), self.value(), mapping={self.field(): 1})
            elif form == "items":
                p.quiet("hset", key, items=[self.field(), self.value(), self.field(), 2])
            else:
                p.quiet("hset", key)
        elif what in ("hget", "hexists", "hstrlen"):
            p.quiet(what, key, self.field())
        elif what == "hmget":
            p.quiet("hmget", key, [self.field() for _ in range(self.rng.randint(1, 3))])
        elif what in ("hgetall", "hlen", "hkeys", "hvals"):
            p.quiet(what, key)
        elif what == "hdel":
            p.quiet("hdel", key, *[self.field() for _ in range(self.rng.randint(1, 3))])
        elif what == "hincrby":
            p.quiet("hincrby", key, self.field(), self.pick(INCR_AMOUNTS))
        elif what == "hincrbyfloat":
            p.quiet("hincrbyfloat", key, self.field(), self.pick(FLOAT_AMOUNTS + RAW_FLOAT_ARGS))
            p.quiet("hgetall", key)
        elif what == "hsetnx":
            p.quiet("hsetnx", key, self.field(), self.value())
        else:
            cmd = self.pick(["HSET", "HINCRBY", "HINCRBYFLOAT", "HGET", "HDEL", "HMGET"])
            args = [key, self.field(), self.pick(RAW_INT_ARGS + RAW_FLOAT_ARGS)]
            p.quiet("execute_command", cmd, *args[:self.rng.randint(1, 3)])

    def op_set_type(self, p: Pair) -> None:
        key = self.setkey()
        what = self.pick(["sadd", "sadd", "srem", "smembers", "sismember", "smismember", "scard",
                          "raw"])
        if what in ("sadd", "srem"):
            p.quiet(what, key, *[self.member() for _ in range(self.rng.randint(1, 3))])
        elif what in ("smembers", "scard"):
            p.quiet(what, key)
        elif what == "sismember":
            p.quiet("sismember", key, self.member())
        elif what == "smismember":
            p.quiet("smismember", key, [self.member() for _ in range(self.rng.randint(1, 3))])
        else:
            cmd = self.pick(["SADD", "SREM", "SMISMEMBER", "SISMEMBER", "SCARD", "SMEMBERS"])
            p.quiet("execute_command", cmd, *[key, self.member()][:self.rng.randint(0, 1)])

    def op_expire(self, p: Pair) -> None:
        key = self.any_key()
        what = self.pick(["expire", "pexpire", "expireat", "pexpireat", "persist", "raw"])
        flags = {}
        if self.chance(0.4):
            flags = self.pick([{"nx": True}, {"xx": True}, {"gt": True}, {"lt": True},
                               {"nx": True, "xx": True}, {"gt": True, "lt": True},
                               {"xx": True, "gt": True}])
        if what == "expire":
            p.quiet("expire", key, self.pick([100, 200, 1000, 0, -5]), **flags)
        elif what == "pexpire":
            p.quiet("pexpire", key, self.pick([100000, 300000, 0, -1]), **flags)
        elif what == "expireat":
            p.quiet("expireat", key, self.pick([self.now + 300, self.now + 900, 1]), **flags)
        elif what == "pexpireat":
            p.quiet("pexpireat", key, self.pick([(self.now + 300) * 1000, 5]), **flags)
        elif what == "persist":
            p.quiet("persist", key)
        else:
            cmd = self.pick(["EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"])
            args = [key, self.pick(["1.5", "x", "", 9223372036854775807, 922337203685477580,
                                    -9223372036854775808, 100000])]
            args += self.rng.sample(["NX", "XX", "GT", "LT", "FOO"], self.rng.choice([0, 1, 2]))
            p.quiet("execute_command", cmd, *args)

    def op_ttl(self, p: Pair) -> None:
        key = self.any_key()
        if self.chance(0.5):
            p.apply(f"ttl({key!r})", lambda c: c.ttl(key), compare=approx_ttl(1), reraise=False)
        else:
            p.apply(f"pttl({key!r})", lambda c: c.pttl(key), compare=approx_ttl(250),
                    reraise=False)

    def op_delete_exists(self, p: Pair) -> None:
        keys = [self.any_key() for _ in range(self.rng.randint(1, 4))]
        what = self.pick(["exists", "exists", "delete", "type", "unlink", "touch"])
        if what == "type":
            p.quiet("type", keys[0])
        elif what == "delete" and self.chance(0.5):
            p.quiet("delete", *keys)
        elif what in ("unlink", "touch"):
            p.quiet(what, *keys)
        else:
            p.quiet("exists", *keys)

    def op_rename(self, p: Pair) -> None:
        method = self.pick(["rename", "renamenx"])
        p.quiet(method, self.any_key(), self.any_key())

    def op_keys(self, p: Pair) -> None:
        what = self.pick(["keys", "keys", "dbsize", "scan"])
        if what == "keys":
            p.quiet("keys", self.pick(PATTERNS))
        elif what == "dbsize":
            p.quiet("dbsize")
        else:
            pattern = self.pick(PATTERNS + [None])
            p.apply(f"list(scan_iter(match={pattern!r}))",
                    lambda c: list(c.scan_iter(match=pattern)), unordered=True, reraise=False)

    def op_flushdb(self, p: Pair) -> None:
        if self.chance(0.3):
            p.quiet("flushdb")
        self.op_setup(p)

    def op_setup(self, p: Pair) -> None:
        p.quiet("zadd", ZSET_KEY, {"m": 1})
        p.quiet("sadd", "s1", "a", "b")
        p.quiet("hset", "h1", mapping={"f1": "1", "f2": "x"})


def run_random(p: Pair, seed: int, n: int, decoded: bool = False) -> None:
    gen = StringsGen(random.Random(seed), decoded=decoded)
    gen.op_setup(p)
    gen.run(p, n)


# --------------------------------------------------------------------------
# Random sequences
# --------------------------------------------------------------------------

def test_strings_keys_random_mixed(pair: Pair, seed: int) -> None:
    run_random(pair, seed * 1009 + 11, steps(3000))


def test_strings_keys_random_decoded(pair_decoded: Pair, seed: int) -> None:
    run_random(pair_decoded, seed * 2003 + 17, steps(1500), decoded=True)


# --------------------------------------------------------------------------
# Directed tests
# --------------------------------------------------------------------------

@pytest.mark.parametrize("start", ["0", "0.1", "1e20", "-0", "5e-18", "1e400", "nan", " 1",
                                   "0x10", "3", "10.5", "1.7976931348623157e308", "inf", "",
                                   "-1e-17", "123456789012345678"])
def test_incrbyfloat_tricky_values_bit_exact(pair: Pair, start: str) -> None:
    amounts = [0.1, 0.2, "0.1", "1e20", "-0", "5e-18", "1e400", "-1e400", "nan", " 1", "0x10",
               1e-17, -0.3, 3, "1.7976931348623157e308", 1e308, "-1e20"]
    for amount in amounts:
        pair.set("f", start)
        pair.quiet("incrbyfloat", "f", amount)
        pair.get("f")
        pair.quiet("incrbyfloat", "f", amount)
        pair.get("f")
    pair.quiet("incrbyfloat", "missing", "0.1")
    pair.get("missing")


def test_incrbyfloat_accumulation_bit_exact(pair: Pair) -> None:
    rng = random.Random(42)
    for _ in range(400):
        pair.incrbyfloat("acc", rng.choice([0.1, 0.2, -0.3, 1e-5, 7, 1 / 3, -1e10, 2.5e-17]))
        pair.get("acc")
    pair.incrbyfloat("big", 1e20)
    pair.incrbyfloat("big", 1e20)
    pair.get("big")
    pair.hincrbyfloat("h", "f", 0.1)
    pair.hincrbyfloat("h", "f", 0.2)
    pair.hget("h", "f")


@pytest.mark.parametrize("start", ["0", "-1", "9223372036854775807", "-9223372036854775808",
                                   " 5", "05", "1.0", "", "abc", "+1", "-0", "1e3"])
def test_incr_decr_edges(pair: Pair, start: str) -> None:
    for method, args in [("incr", ()), ("decr", ()), ("incrby", (5,)), ("decrby", (5,)),
                         ("incrby", (9223372036854775807,)), ("decrby", (-9223372036854775808,)),
                         ("incrby", (-9223372036854775808,)), ("decrby", (9223372036854775807,))]:
        pair.set("n", start)
        pair.quiet(method, "n", *args)
        pair.get("n")
    for arg in ["+1", "01", "-0", "1.5", "9223372036854775808", "", " 1"]:
        pair.set("n", start)
        pair.quiet("execute_command", "INCRBY", "n", arg)
        pair.quiet("execute_command", "DECRBY", "n", arg)
        pair.get("n")
    pair.quiet("execute_command", "INCR", "n", "1")
    pair.quiet("execute_command", "DECR")


def test_set_all_options(pair: Pair) -> None:
    now = int(time.time())
    options = [{}, {"nx": True}, {"xx": True}, {"get": True}, {"nx": True, "get": True},
               {"xx": True, "get": True}, {"ex": 100}, {"px": 100000}, {"exat": now + 100},
               {"pxat": (now + 100) * 1000}, {"keepttl": True}, {"ex": 100, "keepttl": True},
               {"nx": True, "xx": True}, {"ex": 0}, {"px": 0}, {"ex": -1}, {"exat": 1},
               {"ex": 100, "px": 1000}, {"get": True, "ex": 100}, {"ex": 10 ** 19}]
    for opts in options:
        for initial in (None, "old", "zset", "with-ttl"):
            pair.delete("k")
            if initial == "old":
                pair.set("k", "old")
            elif initial == "zset":
                pair.zadd("k", {"a": 1})
            elif initial == "with-ttl":
                pair.set("k", "old", ex=500)
            pair.quiet("set", "k", "new", **opts)
            pair.check_keyspace(f"set {opts} on {initial}")
            pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(1))


def test_set_raw_option_errors(pair: Pair) -> None:
    cases = [["SET", "k"], ["SET", "k", "v", "EX"], ["SET", "k", "v", "EX", "x"],
             ["SET", "k", "v", "EX", "1.5"], ["SET", "k", "v", "NX", "XX"],
             ["SET", "k", "v", "EX", "10", "PX", "10"], ["SET", "k", "v", "KEEPTTL", "EX", "10"],
             ["SET", "k", "v", "FOO"], ["SET", "k", "v", "EX", "9223372036854775807"],
             ["SET", "k", "v", "PX", "9223372036854775807"], ["SET", "k", "v", "ex", "100"],
             ["SET", "k", "v", "GET", "GET"], ["SET", "k", "v", "EXAT", "0"],
             ["SET", "k", "v", "PXAT", "-1"], ["SETEX", "k", "0", "v"], ["SETEX", "k", "x", "v"],
             ["PSETEX", "k", "-1", "v"], ["GETEX", "k", "EX"], ["GETEX", "k", "PERSIST", "EX", "1"],
             ["GETEX", "k", "FOO"], ["MSET", "a"], ["MSET", "a", "1", "b"], ["MSETNX", "a"],
             ["GETRANGE", "k", "x", "1"], ["SETRANGE", "k", "-1", "x"],
             ["SETRANGE", "k", "536870912", "x"], ["SETRANGE", "k", "536870911", ""],
             ["APPEND", "k"], ["STRLEN"], ["GETDEL", "k", "x"]]
    for initial in (None, "v"):
        for args in cases:
            pair.delete("k")
            if initial:
                pair.set("k", initial)
            pair.quiet("execute_command", *args)
            pair.check_keyspace(" ".join(args))


def test_string_commands_wrongtype(pair: Pair) -> None:
    pair.zadd("z", {"a": 1})
    pair.sadd("s", "a")
    pair.hset("h", "f", "v")
    for key in ("z", "s", "h"):
        for method, args in [("get", ()), ("set", ("v",)), ("getset", ("v",)), ("getdel", ()),
                             ("getex", ()), ("append", ("x",)), ("strlen", ()),
                             ("getrange", (0, 1)), ("setrange", (0, "x")), ("incr", ()),
                             ("decr", ()), ("incrby", (2,)), ("decrby", (2,)),
                             ("incrbyfloat", (1.5,)), ("setnx", ("v",)),
                             ("set", ("v",)), ("hget", ("f",)), ("sadd", ("m",)),
                             ("smembers", ()), ("hgetall", ()), ("hincrby", ("f", 1)),
                             ("scard", ()), ("hlen", ()), ("sismember", ("a",))]:
            kwargs = {"get": True} if method == "set" and args == ("v",) and key == "s" else {}
            pair.quiet(method, key, *args, **kwargs)
        pair.check_keyspace(key)
    pair.mget(["z", "s", "h", "nokey"])


def test_exists_delete_duplicates_and_type(pair: Pair) -> None:
    pair.set("i", 1)
    pair.zadd("z", {"a": 1})
    pair.sadd("s", "x")
    pair.hset("h", "f", 1)
    pair.exists("i", "i", "nokey")
    pair.exists("i", "z", "s", "h", "z")
    for key in ("i", "z", "s", "h", "nokey"):
        pair.type(key)
    pair.delete("i", "i", "nokey")
    pair.delete("z", "s", "h", "z")
    pair.quiet("execute_command", "EXISTS")
    pair.quiet("execute_command", "DEL")
    pair.dbsize()


def test_expire_options(pair: Pair) -> None:
    now = int(time.time())
    flag_sets = [{}, {"nx": True}, {"xx": True}, {"gt": True}, {"lt": True},
                 {"nx": True, "xx": True}, {"nx": True, "gt": True}, {"gt": True, "lt": True},
                 {"xx": True, "gt": True}, {"xx": True, "lt": True}]
    for flags in flag_sets:
        for initial_ttl in (None, 500):
            for method, amount in [("expire", 100), ("expire", 1000), ("pexpire", 100000),
                                   ("pexpire", 2000000), ("expireat", now + 700),
                                   ("pexpireat", (now + 50) * 1000), ("expire", 0),
                                   ("expire", -5)]:
                pair.set("k", "v")
                if initial_ttl:
                    pair.expire("k", initial_ttl)
                pair.quiet(method, "k", amount, **flags)
                pair.quiet(method, "nokey", amount, **flags)
                pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(1))
                pair.apply("pttl('k')", lambda c: c.pttl("k"), compare=approx_ttl(250))
                pair.check_keyspace(f"{method} {amount} {flags}")


def test_expire_raw_errors(pair: Pair) -> None:
    pair.set("k", "v")
    cases = [["EXPIRE", "k", "1.5"], ["EXPIRE", "k", "x"], ["EXPIRE", "k"],
             ["EXPIRE", "k", "9223372036854775807"], ["EXPIRE", "k", "922337203685477580"],
             ["PEXPIRE", "k", "9223372036854775807"], ["EXPIRE", "k", "-9223372036854775808"],
             ["EXPIREAT", "k", "9223372036854775807"], ["EXPIRE", "k", "100", "FOO"],
             ["EXPIRE", "k", "100", "NX", "XX"], ["EXPIRE", "k", "100", "GT", "LT"],
             ["EXPIRE", "k", "100", "nx", "gt"], ["EXPIRE", "k", "100", "XX", "GT"],
             ["PERSIST"], ["TTL"], ["PTTL", "k", "x"], ["PERSIST", "k", "k"]]
    for args in cases:
        pair.quiet("execute_command", *args)
        pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(1))
        pair.check_keyspace(" ".join(args))


def test_ttl_rounding_and_codes(pair: Pair) -> None:
    pair.ttl("nokey")
    pair.pttl("nokey")
    pair.set("k", "v")
    pair.ttl("k")
    pair.pttl("k")
    pair.persist("k")
    pair.pexpire("k", 2600)
    pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(0))
    pair.persist("k")
    pair.persist("k")
    pair.ttl("k")


def test_ttl_survives_in_place_and_is_dropped_by_overwrite(pair: Pair) -> None:
    steps_ = [("incr", ("n",)), ("incrbyfloat", ("n", 1.5)), ("append", ("n", "0")),
              ("setrange", ("n", 0, "9")), ("set", ("n", 5)), ("getset", ("n", 6)),
              ("set", ("n", 7, None, None, False, False, True)), ("getex", ("n",))]
    for method, args in steps_:
        pair.set("n", 1)
        pair.expire("n", 500)
        pair.quiet(method, *args)
        pair.apply("ttl('n')", lambda c: c.ttl("n"), compare=approx_ttl(1))
    pair.hset("h", "f", 1)
    pair.expire("h", 500)
    pair.hincrby("h", "f", 1)
    pair.hdel("h", "f")
    pair.exists("h")
    pair.hset("h", "f", 1)
    pair.ttl("h")


def test_rename_and_renamenx(pair: Pair) -> None:
    pair.set("a", "1", ex=500)
    pair.set("b", "2")
    pair.zadd("z", {"m": 1})
    pair.quiet("rename", "nokey", "x")
    pair.quiet("renamenx", "nokey", "x")
    pair.renamenx("a", "b")
    pair.rename("a", "c")
    pair.apply("ttl('c')", lambda c: c.ttl("c"), compare=approx_ttl(1))
    pair.rename("c", "c")
    pair.renamenx("c", "c")
    pair.rename("z", "b")
    pair.type("b")
    pair.check_keyspace()


def test_keys_glob_patterns(pair: Pair) -> None:
    for k in ["k1", "k2", "k10", "kx", "h*", "a*b", "ab", "a\\b", "[x]", "x", "", "\u00e9t\u00e9",
              "k\n"]:
        pair.set(k, 1)
    patterns = PATTERNS + ["", "[", "[]", "[!a]", "k[1-2]", "k[2-1]", "\\[x\\]", "[[]x]", "*\\",
                           "h[*]", "a?b", "a**b", "[a-]", "[^]", "\u00e9*", "k\\", "*\n"]
    for pattern in patterns:
        pair.quiet("keys", pattern)
        pair.apply(f"list(scan_iter(match={pattern!r}))",
                   lambda c, pat=pattern: list(c.scan_iter(match=pat)), unordered=True)
    pair.dbsize()


def test_hash_and_set_basics(pair: Pair) -> None:
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


def test_mset_msetnx_mget(pair: Pair) -> None:
    pair.mset({"a": 1, "b": b"\x00\xff", "c": 2.5})
    pair.mget(["a", "b", "c", "d"])
    pair.mget("a", "b")
    pair.msetnx({"c": 1, "d": 2})
    pair.msetnx({"d": 1, "e": 2})
    pair.mget(["d", "e"])
    pair.quiet("mset", {})
    pair.quiet("mget", [])


def test_getrange_setrange_append(pair: Pair) -> None:
    pair.set("s", "Hello World")
    for start in (0, 1, -1, -5, 5, 100, -100, 10, 11):
        for end in (0, 3, -1, -3, 100, -100, 10, 11):
            pair.getrange("s", start, end)
    pair.getrange("nokey", 0, -1)
    pair.setrange("s", 6, "Redis")
    pair.setrange("s", 20, "!")
    pair.get("s")
    pair.setrange("new", 3, "x")
    pair.get("new")
    pair.setrange("empty", 5, "")
    pair.exists("empty")
    pair.append("s", "tail")
    pair.append("fresh", "x")
    pair.strlen("s")
    pair.strlen("nokey")
    pair.set("n", 123)
    pair.append("n", 4)
    pair.incr("n")
    pair.getrange("n", 0, 1)


def test_flushdb_and_dbsize(pair: Pair) -> None:
    pair.set("a", 1)
    pair.zadd("z", {"m": 1})
    pair.dbsize()
    pair.flushdb()
    pair.dbsize()
    pair.keys("*")
    pair.flushdb(asynchronous=True)
    pair.quiet("execute_command", "FLUSHDB", "FOO")
    pair.quiet("execute_command", "FLUSHDB", "SYNC")


# --------------------------------------------------------------------------
# Expiry itself (the only timing-dependent tests; margins are generous)
# --------------------------------------------------------------------------

def test_expiry_px_keys_disappear(pair: Pair) -> None:
    pair.set("s", "v", px=50)
    pair.zadd("z", {"a": 1})
    pair.pexpire("z", 50)
    pair.hset("h", "f", "v")
    pair.pexpire("h", 50)
    pair.sadd("set", "m")
    pair.pexpire("set", 50)
    pair.psetex("ps", 50, "v")
    pair.set("keep", "v", px=60000)
    time.sleep(0.4)
    for key in ("s", "z", "h", "set", "ps"):
        pair.exists(key)
        pair.ttl(key)
        pair.pttl(key)
        pair.type(key)
    pair.get("s")
    pair.zrange("z", 0, -1)
    pair.hgetall("h")
    pair.smembers("set")
    pair.keys("*")
    pair.dbsize()
    pair.incr("s")
    pair.ttl("s")


def test_expiry_setnx_after_expiry_and_persist_before(pair: Pair) -> None:
    pair.set("a", "1", px=50)
    pair.set("b", "1", px=5000)
    pair.persist("b")
    pair.set("c", "1", ex=5)
    pair.getex("c", persist=True)
    time.sleep(0.4)
    pair.set("a", "2", nx=True)
    pair.get("a")
    pair.get("b")
    pair.ttl("b")
    pair.ttl("c")


@pytest.mark.parametrize("text", ["-1e20000", "-1e-20000", "1e20000", "1e-20000", "-1e4933"])
def test_long_double_out_of_range_both_signs(pair: Pair, text: str) -> None:
    """Values beyond even the 80-bit range (or below its smallest subnormal)."""
    pair.set("f", "1")
    pair.quiet("incrbyfloat", "f", text)
    pair.quiet("incrbyfloat", "missing", text)
    pair.get("f")
    pair.hset("h", "f", "1")
    pair.quiet("hincrbyfloat", "h", "f", text)
    pair.hget("h", "f")
    pair.quiet("execute_command", "BZPOPMIN", "z", text)
