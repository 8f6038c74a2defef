"""Bad input leaves state unchanged, on both sides.

After every failing command (a server error, a client-side DataError or a
failing pipeline) the full keyspaces are dumped and compared: all keys, their
types, their contents (ZRANGE WITHSCORES, GET, SMEMBERS, HGETALL) and whether
they carry a TTL. Redis applies nothing of a command that fails, so an engine
that half-applies one (e.g. adds the first ZADD pair before rejecting the
second score) shows up here.
"""
from __future__ import annotations

import random
from typing import Any, Callable, List

import pytest

from differential import Gen, Outcome, Pair, steps
from strings_gen import StringsGen
from test_diff_pipeline import compare_pipeline, draw_specs
from zset_gen import RawHeavyGen, ZsetGen

pytestmark = pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")


class StateCheckingPair(Pair):
    """A Pair that compares whole keyspaces after every call that failed on Redis."""

    def apply(self, label: str, fn: Callable[[Any], Any], **kwargs: Any) -> Any:
        reraise = kwargs.get("reraise", True)
        kwargs["reraise"] = False
        out: Outcome = super().apply(label, fn, **kwargs)
        if out.error is not None and not label.startswith("<dump"):
            self.failures += 1
            self.check_keyspace(f"after the failing {label}")
        if reraise and out.error is not None:
            raise out.error
        return out.value if reraise else out

    failures = 0


@pytest.fixture
def spair(pair: Pair) -> StateCheckingPair:
    checking = StateCheckingPair(pair.engine, pair.real, seed=pair.seed, test_id=pair.test_id,
                                 engine_label=pair.engine_label)
    checking.keep_going = pair.keep_going
    checking.mismatches = pair.mismatches       # reported by the pair fixture's teardown
    return checking


def populate(p: Pair) -> None:
    p.zadd("z1", {"a": 1, "b": 2, "c": 2, "d": -0.5})
    p.zadd("z2", {"b": 10, "x": 1e20, "i": float("inf")})
    p.zadd("zl", {"a": 0, "b": 0, "c": 0})
    p.set("sk", "hello")
    p.set("n", "41")
    p.set("f", "1.5")
    p.set("t", "with-ttl", ex=1000)
    p.sadd("st", "a", "b")
    p.hset("h1", mapping={"f1": "1", "f2": "x", "f3": "1.5"})
    p.zadd("zt", {"a": 1})
    p.expire("zt", 1000)


class MixedGen(Gen):
    """Sorted-set, string and keyspace commands with many invalid arguments."""

    def __init__(self, rng: random.Random):
        self.z = RawHeavyGen(rng)
        self.zmix = ZsetGen(rng)
        self.s = StringsGen(rng)
        super().__init__(rng)

    def table(self):
        return [(3, self.z.step), (2, self.zmix.step), (4, self.s.step)]


def test_errors_leave_state_unchanged_random(spair: StateCheckingPair, seed: int) -> None:
    populate(spair)
    gen = MixedGen(random.Random(seed * 7 + 1))
    gen.z.op_reset_others(spair)
    gen.run(spair, steps(1200), check_every=0)
    assert spair.failures > 100     # the mix really does fail often


def test_errors_leave_state_unchanged_in_pipelines(spair: StateCheckingPair, seed: int) -> None:
    populate(spair)
    rng = random.Random(seed * 13 + 5)
    gens = [RawHeavyGen(rng), StringsGen(rng)]
    for _ in range(steps(60)):
        specs = draw_specs(rng.choice(gens), rng.choice([1, 2, 4, 6]))
        compare_pipeline(spair, specs, transaction=rng.random() < 0.5,
                         raise_on_error=rng.random() < 0.5)


# Each of these fails on Redis; after each the keyspaces must still agree
# (and, since Redis applies nothing of a failing command, equal the start).
FAILING: List[tuple] = [
    # sorted sets: parse errors after some valid pairs, option conflicts, NaN results
    ("execute_command", "ZADD", "z1", "5", "a", "nan", "b"),
    ("execute_command", "ZADD", "z1", "5", "new", "abc", "b"),
    ("execute_command", "ZADD", "z1", "5", "new", "6"),
    ("execute_command", "ZADD", "z1", "NX", "XX", "5", "new"),
    ("execute_command", "ZADD", "z1", "GT", "LT", "5", "new"),
    ("execute_command", "ZADD", "z1", "INCR", "5", "a", "6", "b"),
    ("execute_command", "ZADD", "sk", "1", "a"),
    ("execute_command", "ZADD", "st", "1", "a"),
    ("execute_command", "ZADD", "z2", "INCR", "-inf", "i"),
    ("execute_command", "ZINCRBY", "z2", "-inf", "i"),
    ("execute_command", "ZADD", "z1", "1e400", "a"),
    ("execute_command", "ZINCRBY", "z1", "nan", "a"),
    ("execute_command", "ZINCRBY", "sk", "1", "a"),
    ("zadd", "z1", {"new": 1, "a": 2}, {"nx": True, "xx": True}),
    ("zadd", "z1", {"new": 1, "a": 2}, {"incr": True}),
    ("zadd", "z1", {}, {}),
    ("zrangestore", "z1", "sk", 0, -1),
    ("zrangestore", "z1", "z2", "abc", "+inf", ), # bad bound (rank)
    ("execute_command", "ZRANGESTORE", "z1", "z2", "0", "-1", "BYLEX"),
    ("execute_command", "ZUNIONSTORE", "z1", "2", "z2", "sk"),
    ("execute_command", "ZUNIONSTORE", "z1", "2", "z2", "zl", "WEIGHTS", "1", "nan"),
    ("execute_command", "ZUNIONSTORE", "z1", "2", "z2", "zl", "WEIGHTS", "1"),
    ("execute_command", "ZUNIONSTORE", "z1", "2", "z2", "zl", "AGGREGATE", "avg"),
    ("execute_command", "ZUNIONSTORE", "z1", "3", "z2", "zl"),
    ("execute_command", "ZUNIONSTORE", "z1", "0", "z2"),
    ("execute_command", "ZINTERSTORE", "z1", "x", "z2"),
    ("execute_command", "ZDIFFSTORE", "z1", "2", "z2", "sk"),
    ("execute_command", "ZREMRANGEBYSCORE", "z1", "(", "abc"),
    ("execute_command", "ZREMRANGEBYLEX", "zl", "a", "+"),
    ("execute_command", "ZREMRANGEBYRANK", "z1", "0", "x"),
    ("execute_command", "ZREM", "z1"),
    ("execute_command", "ZREM", "sk", "a"),
    ("execute_command", "ZPOPMIN", "z1", "-1"),
    ("execute_command", "ZPOPMAX", "z1", "x"),
    ("execute_command", "ZMPOP", "2", "z1", "MIN"),
    ("execute_command", "ZMPOP", "1", "z1", "MIN", "COUNT", "0"),
    ("execute_command", "ZMPOP", "1", "z1", "FOO"),
    ("execute_command", "ZMPOP", "1", "sk", "MIN"),
    # strings and counters
    ("execute_command", "SET", "sk", "v", "NX", "XX"),
    ("execute_command", "SET", "sk", "v", "EX", "0"),
    ("execute_command", "SET", "sk", "v", "EX", "10", "PX", "10"),
    ("execute_command", "SET", "z1", "v", "GET"),
    ("execute_command", "SET", "t", "v", "KEEPTTL", "EX", "5"),
    ("execute_command", "SETEX", "sk", "-1", "v"),
    ("execute_command", "GETEX", "t", "EX", "0"),
    ("execute_command", "GETEX", "t", "PERSIST", "EX", "5"),
    ("execute_command", "MSET", "sk", "1", "n"),
    ("execute_command", "MSETNX", "sk", "1", "n"),
    ("execute_command", "INCR", "sk"),
    ("execute_command", "INCRBY", "n", "1.5"),
    ("execute_command", "INCRBY", "n", "9223372036854775807"),
    ("execute_command", "DECRBY", "n", "-9223372036854775808"),
    ("execute_command", "INCR", "z1"),
    ("execute_command", "INCRBYFLOAT", "sk", "1"),
    ("execute_command", "INCRBYFLOAT", "f", "nan"),
    ("execute_command", "INCRBYFLOAT", "f", "inf"),
    ("execute_command", "INCRBYFLOAT", "f", "1e5000"),
    ("execute_command", "INCRBYFLOAT", "f", "-1e5000"),
    ("execute_command", "INCRBYFLOAT", "t", "1"),
    ("execute_command", "APPEND", "z1", "x"),
    ("execute_command", "SETRANGE", "sk", "-1", "x"),
    ("execute_command", "SETRANGE", "sk", "536870912", "x"),
    ("execute_command", "GETRANGE", "sk", "a", "1"),
    ("execute_command", "GETDEL", "z1"),
    ("execute_command", "GETSET", "z1", "v"),
    # hashes and sets
    ("execute_command", "HSET", "h1", "f1"),
    ("execute_command", "HSET", "h1", "f9", "v", "f10"),
    ("execute_command", "HSET", "sk", "f", "v"),
    ("execute_command", "HINCRBY", "h1", "f2", "1"),
    ("execute_command", "HINCRBY", "h1", "f1", "x"),
    ("execute_command", "HINCRBY", "h1", "f1", "9223372036854775807"),
    ("execute_command", "HINCRBYFLOAT", "h1", "f2", "1"),
    ("execute_command", "HINCRBYFLOAT", "h1", "f3", "nan"),
    ("execute_command", "HDEL", "h1"),
    ("execute_command", "HDEL", "sk", "f"),
    ("execute_command", "SADD", "st"),
    ("execute_command", "SADD", "z1", "a"),
    ("execute_command", "SREM", "sk", "a"),
    ("execute_command", "SMISMEMBER", "st"),
    # keyspace
    ("execute_command", "EXPIRE", "t", "x"),
    ("execute_command", "EXPIRE", "t", "100", "NX", "XX"),
    ("execute_command", "EXPIRE", "t", "100", "GT", "LT"),
    ("execute_command", "EXPIRE", "t", "9223372036854775807"),
    ("execute_command", "PEXPIRE", "t", "9223372036854775807"),
    ("execute_command", "EXPIREAT", "t", "100", "FOO"),
    ("execute_command", "RENAME", "nokey", "sk"),
    ("execute_command", "RENAMENX", "nokey", "sk"),
    ("execute_command", "RENAME", "sk"),
    ("execute_command", "DEL"),
    ("execute_command", "FLUSHDB", "NOW"),
    ("execute_command", "NOSUCHCMD", "sk"),
    ("execute_command", "KEYS"),
    ("execute_command", "TYPE"),
]


def _ids(case: tuple) -> str:
    if case[0] == "execute_command":
        return " ".join(str(a) for a in case[1:])
    return f"{case[0]}{case[1:]}"


@pytest.mark.parametrize("case", FAILING, ids=[_ids(c) for c in FAILING])
def test_failing_command_leaves_state_unchanged(pair: Pair, case: tuple) -> None:
    populate(pair)
    before = pair.check_keyspace("before")
    method, *args = case
    kwargs = {}
    if args and isinstance(args[-1], dict) and method != "execute_command" and len(args) == 3:
        kwargs = args.pop()
    out = pair.quiet(method, *args, **kwargs)
    assert out.error is not None, f"expected {case} to fail on Redis, got {out.value!r}"
    after = pair.check_keyspace("after")
    assert before.value == after.value, "Redis itself changed state on a failing command"
