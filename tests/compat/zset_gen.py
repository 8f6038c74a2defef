"""Random sorted-set commands for the differential tests: the alphabets of keys,
members, scores and bounds (many ties, every edge value), and :class:`ZsetGen`,
whose operations send each sorted-set command through redis-py's methods or raw
through ``execute_command`` to a :class:`Pair`; :class:`RawHeavyGen` leans on the
raw commands with invalid arguments (the server-side parsers).

Used by tests/compat/commands/test_diff_sortedset.py and by the pipeline,
asyncio and bad-input differential tests.
"""
from __future__ import annotations

import random
from typing import Any, List

from differential import Gen, Pair, labelled

INF = float("inf")

# -- alphabets -------------------------------------------------------------

ZKEYS = ["z1", "z2", "z3"]
SET_KEY = "st"          # a plain set: valid input of ZUNION*/ZINTER*/ZDIFF*, WRONGTYPE elsewhere
STR_KEY = "sk"          # a string: WRONGTYPE
MISSING = "nokey"       # never written
DEST_KEYS = ZKEYS + ["d1"]
# Lex-range commands are only specified by Redis when all members of the key
# share one score (otherwise the answer depends on the listpack scan or on the
# random skiplist levels: two Redis servers disagree). They run on a key only
# when its scores are uniform (checked on the real side), else on LEX_KEY,
# whose members all have score 0.
LEX_KEY = "zl"

# Members: few, so ties on score are frequent; bytes order matters (memcmp).
MEMBERS_BYTES: List[Any] = ["a", "b", "c", "aa", "ab", b"a\x00", "", b"\x80", b"\xff\x00", "\u00e9",
                            1, 2.5, "B"]
MEMBERS_TEXT: List[Any] = ["a", "b", "c", "aa", "ab", "", "\u00e9", "B", "1", "x y", "z"]

SMALL_SCORES = [0, 1, 2, 3, -1, -2, 1, 2]
FLOAT_SCORES = [0.5, 1.5, -2.5, 0.1, 1 / 3, 2.0, 0.0, -0.0, 1e15, 1e16, 1e17, 1e20, 1.5e-7,
                123456789.123]
EXTREME_SCORES = [INF, -INF, 1e-310, 5e-324, -5e-324, 1.7976931348623157e308, -1e300,
                  2 ** 53, 2 ** 53 + 1, -(2 ** 63), 10 ** 20, 10 ** 400 // 10 ** 380]

# Score strings sent raw. Valid-but-tricky first, then invalid.
RAW_GOOD_SCORES = ["1", "-2", "0", "2.5", "0x10", "+inf", "-inf", "inf", "Infinity", "-INF",
                   "1e-310", "+5", ".5", "1.", "5e-324", "-0", "-0.0", "1E3", "0X1P3",
                   "00012", "1e308"]
RAW_BAD_SCORES = ["nan", "NaN", "-nan", "abc", "1e400", "-1e400", "1e-400", "(1", "[a", " 1",
                  "1 ", "", "1_0", "inf1", "0x", "1e", "--1", "1,5", "\x00"]

SCORE_BOUNDS: List[Any] = ["-inf", "+inf", "inf", "(1", "(", "", " 2", "1 ", "[1", "nan", "(nan",
                           "abc", "1e400", "(-inf", "(+inf", "0", "1", "2.5", "(2.5", "-1", "0x10",
                           "-0", "(0", 3, 1.5, -1, 0, 2, "2", "(2", "(3", "-inf", "+inf",
                           "(1e2", "0x1p3", "(0X1P1", "1e999", "-1e999", "(1e-999", "1\x00x",
                           "(2\x00", "5.", ".5", "(-.5", "1E0", "-2e-0", "+2", "(+inf\x00",
                           -0.0, 0.1, 1e300, float("inf"), 2**53 + 1, 2**60, b"(2", b"+inf"]
LEX_BOUNDS: List[Any] = ["-", "+", "[a", "(a", "[", "(", "a", "", "[b", "(aa", "[aa", "(c", "[c",
                         "[\u00e9", "+a", "-a", "[B", "(ab", "-", "+", "[", "(b", "+\x00",
                         "-\x00a", "[a\x00", "(b\x00c"]
RANKS: List[Any] = [0, 1, 2, 3, -1, -2, -3, 5, -5, 10, -100, 100, 0, -1]
BAD_INTS: List[Any] = ["1.5", "x", "", "9223372036854775808", " 1", "1 ", "+1", "0x1", 1.5]
ZADD_FLAGS = ["NX", "XX", "GT", "LT", "CH", "INCR", "nx", "xX", "gt", "Lt", "ch", "incr"]
AGGREGATES: List[Any] = ["SUM", "MIN", "MAX", "sum", "min", "max", "avg", None]
WEIGHTS: List[Any] = [1, 2, 0, -1, 0.5, INF, -INF, 1e308, 3]
RAW_WEIGHTS = ["1", "2", "0", "-1", ".5", "inf", "-inf", "nan", "abc", "", " 1", "1e400"]


def raw_cast(value: Any) -> Any:
    """A score_cast_func that shows exactly what redis-py handed it."""
    return ("cast", value)


labelled(raw_cast, "raw_cast")


class ZsetGen(Gen):
    """Random sorted-set commands drawn from one ``random.Random``."""

    def __init__(self, rng: random.Random, decoded: bool = False):
        self.members = MEMBERS_TEXT if decoded else MEMBERS_BYTES
        super().__init__(rng, decoded)

    # -- drawing values --------------------------------------------------

    def member(self) -> Any:
        return self.pick(self.members)

    def members_n(self, lo: int = 1, hi: int = 4) -> List[Any]:
        return [self.member() for _ in range(self.rng.randint(lo, hi))]

    def score(self) -> Any:
        x = self.rng.random()
        if x < 0.6:
            return self.pick(SMALL_SCORES)
        if x < 0.85:
            return self.pick(FLOAT_SCORES)
        return self.pick(EXTREME_SCORES)

    def raw_score(self) -> Any:
        x = self.rng.random()
        if x < 0.45:
            return self.score()
        if x < 0.75:
            return self.pick(RAW_GOOD_SCORES)
        return self.pick(RAW_BAD_SCORES)

    def zkey(self, wrong: float = 0.08) -> str:
        x = self.rng.random()
        if x < wrong:
            return self.pick([STR_KEY, SET_KEY])
        if x < wrong + 0.05:
            return MISSING
        return self.pick(ZKEYS)

    def source_keys(self) -> List[str]:
        keys = [self.pick(ZKEYS) for _ in range(self.rng.randint(1, 3))]
        if self.chance(0.2):
            keys.insert(self.rng.randint(0, len(keys)), SET_KEY)
        if self.chance(0.1):
            keys.append(MISSING)
        if self.chance(0.04):
            keys.append(STR_KEY)
        return keys

    def rank(self) -> Any:
        return self.pick(BAD_INTS) if self.chance(0.04) else self.pick(RANKS)

    def score_bound(self) -> Any:
        return self.pick(SCORE_BOUNDS)

    def lex_key(self, p: Any) -> str:
        key = self.zkey()
        if key in (STR_KEY, SET_KEY) or self.chance(0.5):
            return key if key in (STR_KEY, SET_KEY) else LEX_KEY
        real = getattr(p, "real", None)
        if real is None:
            return LEX_KEY
        if real.type(key) not in (b"zset", "zset"):
            return key                  # missing or another type: the reply is determined
        scores = {s for _, s in real.zrange(key, 0, -1, withscores=True)}
        return key if len(scores) <= 1 else LEX_KEY

    def lex_bound(self) -> Any:
        return self.pick(LEX_BOUNDS)

    def limit(self) -> tuple:
        """(offset, num) for redis-py methods; sometimes only one of them."""
        x = self.rng.random()
        if x < 0.6:
            return None, None
        if x < 0.95:
            return self.pick([0, 1, 2, -1, 5, 100]), self.pick([0, 1, 2, 3, -1, -5, 100])
        return (self.pick([0, 1]), None) if self.chance(0.5) else (None, self.pick([1, 2]))

    def cast(self) -> dict:
        return {"score_cast_func": raw_cast} if self.chance(0.15) else {}

    # -- the operations --------------------------------------------------

    def table(self):
        return [
            (30, self.op_zadd), (12, self.op_zadd_raw), (8, self.op_zincrby),
            (6, self.op_zscore), (4, self.op_zmscore), (3, self.op_zcard),
            (4, self.op_zcount), (3, self.op_zlexcount), (4, self.op_zrank),
            (10, self.op_zrange), (4, self.op_zrange_raw), (3, self.op_zrangestore),
            (3, self.op_zrevrange), (5, self.op_zrangebyscore), (3, self.op_zrangebyscore_raw),
            (4, self.op_zrangebylex), (6, self.op_zrem), (2, self.op_zremrangebyrank),
            (2, self.op_zremrangebyscore), (2, self.op_zremrangebylex), (4, self.op_zpop),
            (2, self.op_zpop_raw), (2, self.op_zmpop), (2, self.op_zrandmember),
            (4, self.op_zstore), (2, self.op_zstore_raw), (4, self.op_zaggregate_read),
            (2, self.op_zintercard), (2, self.op_keyspace), (1, self.op_reset_others),
            (1, self.op_arity), (3, self.op_zadd_lex),
        ]

    def op_zadd(self, p: Pair) -> None:
        flags = {f: self.chance(0.15) for f in ("nx", "xx", "ch", "gt", "lt")}
        flags = {k: v for k, v in flags.items() if v}
        if self.chance(0.15):
            flags["incr"] = True
            n = 1 if self.chance(0.85) else 2
        else:
            n = self.rng.randint(0, 4) if self.chance(0.05) else self.rng.randint(1, 4)
        mapping = {}
        for _ in range(n):
            mapping[self.member()] = self.score()
        p.quiet("zadd", self.zkey(), mapping, **flags)

    def op_zadd_lex(self, p: Pair) -> None:
        """Members with score 0 only: the key lex-range commands run on."""
        p.quiet("zadd", LEX_KEY, {m: 0 for m in self.members_n(1, 4)}, nx=self.chance(0.3))

    def op_zadd_raw(self, p: Pair) -> None:
        opts = self.rng.sample(ZADD_FLAGS, self.rng.choice([0, 0, 1, 1, 2, 3]))
        args: List[Any] = ["ZADD", self.zkey()] + opts
        for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
            args += [self.raw_score(), self.member()]
        if self.chance(0.08):
            args.pop()          # odd number of score/member arguments
        if self.chance(0.03):
            args = args[:self.rng.randint(1, 3)]
        p.quiet("execute_command", *args)

    def op_zincrby(self, p: Pair) -> None:
        if self.chance(0.3):
            p.quiet("execute_command", "ZINCRBY", self.zkey(), self.raw_score(), self.member())
        else:
            p.quiet("zincrby", self.zkey(), self.score(), self.member())

    def op_zscore(self, p: Pair) -> None:
        p.quiet("zscore", self.zkey(), self.member())

    def op_zmscore(self, p: Pair) -> None:
        members = [] if self.chance(0.03) else self.members_n(1, 5)
        p.quiet("zmscore", self.zkey(), members)

    def op_zcard(self, p: Pair) -> None:
        p.quiet("zcard", self.zkey())

    def op_zcount(self, p: Pair) -> None:
        p.quiet("zcount", self.zkey(), self.score_bound(), self.score_bound())

    def op_zlexcount(self, p: Pair) -> None:
        p.quiet("zlexcount", self.lex_key(p), self.lex_bound(), self.lex_bound())

    def op_zrank(self, p: Pair) -> None:
        method = self.pick(["zrank", "zrevrank"])
        kwargs = {"withscore": True} if self.chance(0.05) else {}
        p.quiet(method, self.zkey(), self.member(), **kwargs)

    def op_zrange(self, p: Pair) -> None:
        kind = self.pick(["rank", "rank", "score", "lex"])
        kwargs: dict = {}
        key = self.lex_key(p) if kind == "lex" else self.zkey()
        if self.chance(0.3):
            kwargs["desc"] = True
        if kind == "rank":
            start, end = self.rank(), self.rank()
            if self.chance(0.03):
                kwargs["offset"], kwargs["num"] = 0, 1     # LIMIT without BYSCORE/BYLEX
        elif kind == "score":
            kwargs["byscore"] = True
            start, end = self.score_bound(), self.score_bound()
        else:
            kwargs["bylex"] = True
            start, end = self.lex_bound(), self.lex_bound()
        if kind != "rank":
            off, num = self.limit()
            if off is not None:
                kwargs["offset"] = off
            if num is not None:
                kwargs["num"] = num
        if self.chance(0.4):
            kwargs["withscores"] = True
            kwargs.update(self.cast())
        p.quiet("zrange", key, start, end, **kwargs)

    def op_zrange_raw(self, p: Pair) -> None:
        kind = self.pick(["rank", "score", "lex"])
        if kind == "rank":
            args: List[Any] = [self.rank(), self.rank()]
        elif kind == "score":
            args = [self.score_bound(), self.score_bound(), self.pick(["BYSCORE", "byscore"])]
        else:
            args = [self.lex_bound(), self.lex_bound(), "BYLEX"]
        key = self.lex_key(p) if kind == "lex" else self.zkey()
        extra = []
        if self.chance(0.3):
            extra.append(self.pick(["REV", "rev"]))
        if self.chance(0.3):
            extra += ["LIMIT", self.pick([0, 1, -1, "x"]), self.pick([0, 1, 2, -1, "y"])][
                :self.pick([3, 3, 3, 2, 1])]
        if self.chance(0.3):
            extra.append(self.pick(["WITHSCORES", "withscores"]))
        if self.chance(0.05):
            extra.append(self.pick(["BYSCORE", "BYLEX", "FOO"]))
        self.rng.shuffle(extra)
        p.quiet("execute_command", "ZRANGE", key, *args, *extra)

    def op_zrangestore(self, p: Pair) -> None:
        kind = self.pick(["rank", "score", "lex"])
        kwargs: dict = {}
        key = self.lex_key(p) if kind == "lex" else self.zkey()
        if kind == "rank":
            start, end = self.rank(), self.rank()
        elif kind == "score":
            kwargs["byscore"] = True
            start, end = self.score_bound(), self.score_bound()
        else:
            kwargs["bylex"] = True
            start, end = self.lex_bound(), self.lex_bound()
        if kind != "rank" and self.chance(0.4):
            kwargs["offset"], kwargs["num"] = self.pick([0, 1, 2]), self.pick([1, 2, -1, 0])
        if self.chance(0.3):
            kwargs["desc"] = True
        p.quiet("zrangestore", self.pick(DEST_KEYS), key, start, end, **kwargs)

    def op_zrevrange(self, p: Pair) -> None:
        kwargs: dict = {}
        if self.chance(0.4):
            kwargs["withscores"] = True
            kwargs.update(self.cast())
        p.quiet("zrevrange", self.zkey(), self.rank(), self.rank(), **kwargs)

    def op_zrangebyscore(self, p: Pair) -> None:
        method = self.pick(["zrangebyscore", "zrevrangebyscore"])
        kwargs: dict = {}
        off, num = self.limit()
        if off is not None or num is not None:
            kwargs["start"], kwargs["num"] = off, num
        if self.chance(0.4):
            kwargs["withscores"] = True
            kwargs.update(self.cast())
        p.quiet(method, self.zkey(), self.score_bound(), self.score_bound(), **kwargs)

    def op_zrangebyscore_raw(self, p: Pair) -> None:
        cmd = self.pick(["ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZCOUNT", "ZREMRANGEBYSCORE",
                         "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX"])
        lex = "LEX" in cmd
        bound = self.lex_bound if lex else self.score_bound
        key = self.lex_key(p) if lex else self.zkey()
        args: List[Any] = [cmd, key, bound(), bound()]
        if cmd not in ("ZCOUNT", "ZREMRANGEBYSCORE", "ZLEXCOUNT", "ZREMRANGEBYLEX"):
            if self.chance(0.3) and not lex:
                args.append("WITHSCORES")
            if self.chance(0.4):
                args += ["LIMIT", self.pick([0, 1, -1, "a"]), self.pick([1, -1, 0, "b"])][
                    :self.pick([3, 3, 2, 1])]
        if self.chance(0.05):
            args.append("EXTRA")
        p.quiet("execute_command", *args)

    def op_zrangebylex(self, p: Pair) -> None:
        method = self.pick(["zrangebylex", "zrevrangebylex"])
        kwargs: dict = {}
        off, num = self.limit()
        if off is not None or num is not None:
            kwargs["start"], kwargs["num"] = off, num
        p.quiet(method, self.lex_key(p), self.lex_bound(), self.lex_bound(), **kwargs)

    def op_zrem(self, p: Pair) -> None:
        members = self.members_n(1, 3) if self.chance(0.98) else []
        p.quiet("zrem", self.zkey(), *members)

    def op_zremrangebyrank(self, p: Pair) -> None:
        p.quiet("zremrangebyrank", self.zkey(), self.rank(), self.rank())

    def op_zremrangebyscore(self, p: Pair) -> None:
        p.quiet("zremrangebyscore", self.zkey(), self.score_bound(), self.score_bound())

    def op_zremrangebylex(self, p: Pair) -> None:
        p.quiet("zremrangebylex", self.lex_key(p), self.lex_bound(), self.lex_bound())

    def op_zpop(self, p: Pair) -> None:
        method = self.pick(["zpopmin", "zpopmax"])
        if self.chance(0.5):
            p.quiet(method, self.zkey())
        else:
            p.quiet(method, self.zkey(), self.pick([0, 1, 2, 3, 10]))

    def op_zpop_raw(self, p: Pair) -> None:
        args: List[Any] = [self.pick(["ZPOPMIN", "ZPOPMAX"]), self.zkey()]
        if self.chance(0.8):
            args.append(self.pick([-1, "x", "1.5", "", 0, 1, 2, "9223372036854775808"]))
        if self.chance(0.05):
            args.append(1)
        p.quiet("execute_command", *args)

    def op_zmpop(self, p: Pair) -> None:
        keys = [self.zkey() for _ in range(self.rng.randint(1, 3))]
        if self.chance(0.8):
            flag = {self.pick(["min", "max"]): True}
        else:
            flag = self.pick([{}, {"min": True, "max": True}])
        kwargs = dict(flag)
        if self.chance(0.6):
            kwargs["count"] = self.pick([1, 2, 5, 0, -1])
        if self.chance(0.2):
            p.quiet("execute_command", "ZMPOP", self.pick([len(keys), 0, len(keys) + 1, "x"]),
                    *keys, self.pick(["MIN", "MAX", "max", "FOO"]),
                    *self.pick([[], ["COUNT", 2], ["COUNT", 0], ["COUNT"], ["COUNT", "x"]]))
        else:
            p.quiet("zmpop", len(keys), keys, **kwargs)

    def op_zrandmember(self, p: Pair) -> None:
        # Only determined replies: count >= size (all members, compared in any
        # order), count 0, or a wrong type (any count).
        key = self.zkey()
        if key in (STR_KEY, SET_KEY):
            p.quiet("zrandmember", key, self.pick([None, 3, -3]))
        else:
            p.quiet("zrandmember", key, self.pick([0, 1000, 1000]), withscores=self.chance(0.5))

    def op_zstore(self, p: Pair) -> None:
        method = self.pick(["zunionstore", "zinterstore", "zdiffstore"])
        keys: Any = self.source_keys()
        if method == "zdiffstore":
            p.quiet(method, self.pick(DEST_KEYS), keys)
            return
        if self.chance(0.35):
            keys = {k: self.pick(WEIGHTS) for k in keys}
        kwargs = {}
        agg = self.pick(AGGREGATES)
        if agg is not None and (agg != "avg" or self.chance(0.2)):
            kwargs["aggregate"] = agg
        p.quiet(method, self.pick(DEST_KEYS), keys, **kwargs)

    def op_zstore_raw(self, p: Pair) -> None:
        cmd = self.pick(["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZUNION", "ZINTER", "ZDIFF"])
        keys = self.source_keys()
        numkeys: Any = len(keys)
        if self.chance(0.2):
            numkeys = self.pick([0, -1, len(keys) + 1, "x", "1.5"])
        args: List[Any] = [cmd] + ([self.pick(DEST_KEYS)] if cmd.endswith("STORE") else [])
        args += [numkeys] + keys
        if self.chance(0.4):
            n = len(keys) + self.pick([0, 0, 0, -1, 1])
            args += ["WEIGHTS"] + [self.pick(RAW_WEIGHTS) for _ in range(max(n, 0))]
        if self.chance(0.3):
            args += ["AGGREGATE", self.pick(["sum", "MIN", "max", "avg"])][:self.pick([2, 2, 1])]
        if not cmd.endswith("STORE") and self.chance(0.4):
            args.append("WITHSCORES")
        p.quiet("execute_command", *args)

    def op_zaggregate_read(self, p: Pair) -> None:
        method = self.pick(["zunion", "zinter", "zdiff"])
        keys: Any = self.source_keys()
        kwargs: dict = {}
        if self.chance(0.4):
            kwargs["withscores"] = True
            if method == "zunion":
                kwargs.update(self.cast())
        if method != "zdiff":
            if self.chance(0.3):
                keys = {k: self.pick(WEIGHTS) for k in keys}
            agg = self.pick(AGGREGATES)
            if agg is not None and agg != "avg":
                kwargs["aggregate"] = agg
        p.quiet(method, keys, **kwargs)

    def op_zintercard(self, p: Pair) -> None:
        keys = self.source_keys()
        kwargs = {"limit": self.pick([0, 1, 2, 100])} if self.chance(0.5) else {}
        if self.chance(0.2):
            p.quiet("execute_command", "ZINTERCARD", self.pick([len(keys), 0, -1, len(keys) + 1]),
                    *keys, *self.pick([[], ["LIMIT", -1], ["LIMIT", "x"], ["LIMIT"], ["FOO", 1]]))
        else:
            p.quiet("zintercard", len(keys), keys, **kwargs)

    def op_keyspace(self, p: Pair) -> None:
        what = self.pick(["type", "exists", "delete", "keys"])
        if what == "type":
            p.quiet("type", self.pick(ZKEYS + DEST_KEYS + [SET_KEY, STR_KEY, MISSING]))
        elif what == "exists":
            p.quiet("exists", *[self.pick(ZKEYS + [MISSING]) for _ in range(3)])
        elif what == "delete":
            if self.chance(0.3):
                p.quiet("delete", self.pick(ZKEYS + ["d1"]))
        else:
            p.quiet("keys", "*")

    def op_reset_others(self, p: Pair) -> None:
        """Keep a string and a set around for WRONGTYPE and mixed-type inputs."""
        p.quiet("set", STR_KEY, self.pick(["x", "12", ""]))
        p.quiet("sadd", SET_KEY, *self.members_n(1, 3))

    def op_arity(self, p: Pair) -> None:
        cmd = self.pick(["ZADD", "ZINCRBY", "ZSCORE", "ZMSCORE", "ZCARD", "ZCOUNT", "ZRANK",
                         "ZRANGE", "ZREM", "ZPOPMIN", "ZRANGEBYSCORE", "ZRANGEBYLEX",
                         "ZUNIONSTORE", "ZREMRANGEBYRANK", "zlexcount"])
        args = [self.zkey(), self.member(), 1, 2][:self.rng.randint(0, 1)]
        p.quiet("execute_command", cmd, *args)


class RawHeavyGen(ZsetGen):
    """Mostly raw commands with invalid arguments: the server-side parsers."""

    def table(self):
        return [
            (10, self.op_zadd_raw), (4, self.op_zadd), (4, self.op_zincrby),
            (6, self.op_zrange_raw), (6, self.op_zrangebyscore_raw), (4, self.op_zpop_raw),
            (5, self.op_zstore_raw), (2, self.op_zmpop), (2, self.op_zintercard),
            (2, self.op_zadd_lex),
            (3, self.op_arity), (1, self.op_reset_others), (2, self.op_zrange),
        ]
