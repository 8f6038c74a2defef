"""Random string, counter, hash, set and keyspace commands for the differential
tests: the alphabets of keys, values, amounts, fields and glob patterns, and
:class:`StringsGen`, whose operations send each command through redis-py's
methods or raw through ``execute_command`` to a :class:`Pair`.

Used by tests/compat/commands/test_diff_strings.py and by the pipeline,
asyncio and bad-input differential tests.
"""
from __future__ import annotations

import random
import time
from typing import Any, List

from differential import Gen, Pair, approx_ttl

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
