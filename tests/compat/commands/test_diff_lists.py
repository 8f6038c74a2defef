"""List commands (commands/lists.py): client under test vs real Redis 7.0, reply for reply.

Every list command with its options and error paths (error precedence:
arguments before the key, except LSET/LINDEX), WRONGTYPE against every
other type (string, set, zset, hash, CMS and Top-K sketches), keyspace
commands on lists, WATCH seeing list writes, blocking commands inside MULTI
(no wait), and a seeded random stream mixing all of it, also queued in
pipelines (MULTI and plain) and awaited through fastrank.asyncio. Each test
ends with the two keyspaces compared. Then, in a section of its own, blocking
commands woken by writes.
"""
from __future__ import annotations

import asyncio
import random
import threading
from typing import Any, Callable, List

import pytest

import fastrank
from differential import Gen, Pair, canon, steps
from test_diff_asyncio import AsyncPair, outcome, run
from test_diff_pipeline import compare_pipeline, draw_specs

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.usefixtures("redisbloom")]

LKEYS = ["l1", "l2", "l3"]
OTHER_KEYS = ["str", "set", "zset", "hash", "cms", "topk"]
ELEMENTS = ["a", "b", "c", "a", "", "10", "-1", "x" * 70, b"\x00nul", "é"]


def make_other_types(p: Pair) -> None:
    """One key of every other type the server knows."""
    p.set("str", "text")
    p.sadd("set", "1", "2")
    p.zadd("zset", {"m": 1})
    p.hset("hash", "f", "v")
    p.apply("cms.initbydim", lambda c: c.cms().initbydim("cms", 10, 2))
    p.apply("topk.reserve", lambda c: c.topk().reserve("topk", 2, 8, 3, 1))


def test_push_pop_and_lengths(pair: Pair) -> None:
    pair.lpush("l", "a", "b", "c")
    pair.rpush("l", 1, 2.5, b"\x00")
    pair.lpushx("l", "x")
    pair.rpushx("l", "y", "z")
    pair.lpushx("missing", "x")
    pair.rpushx("missing", "x")
    pair.llen("l")
    pair.llen("missing")
    pair.lpop("l")
    pair.rpop("l")
    pair.lpop("l", 2)
    pair.rpop("l", 3)
    pair.lpop("l", 0)
    pair.lpop("l", 100)
    pair.exists("l")                                # emptied: deleted
    pair.lpop("l")
    pair.rpop("l", 2)
    pair.lpop("l", 0)
    for args in (["LPOP", "l", -1], ["LPOP", "l", "x"], ["RPOP", "l", "1", "2"], ["LPOP"],
                 ["LPUSH", "l"], ["RPUSHX", "l"], ["LLEN"], ["RPOP", "l", "9223372036854775808"]):
        pair.quiet("execute_command", *args)
    pair.rpush("l", "only")
    pair.quiet("execute_command", "LPOP", "l", -1)  # count checked before the key
    pair.check_keyspace()


def test_lrange_ltrim_lindex_lset(pair: Pair) -> None:
    pair.rpush("l", *"abcdefgh")
    for start, end in [(0, -1), (2, 4), (-3, -1), (5, 2), (-100, 100), (8, 10), (-1, -1),
                       (0, 0), (7, 7), (-9, -8), (9223372036854775807, -9223372036854775808)]:
        pair.lrange("l", start, end)
    for index in [0, 7, 8, -1, -8, -9, 3]:
        pair.lindex("l", index)
    pair.lset("l", 0, "A")
    pair.lset("l", -1, "H")
    pair.quiet("lset", "l", 8, "x")
    pair.quiet("lset", "l", -9, "x")
    pair.quiet("lset", "missing", 0, "x")
    pair.quiet("execute_command", "LSET", "missing", "x", "v")   # key looked up first
    pair.quiet("execute_command", "LSET", "l", "x", "v")
    pair.quiet("execute_command", "LINDEX", "missing", "x")      # nil: key first
    pair.quiet("execute_command", "LINDEX", "l", "1.5")
    pair.quiet("execute_command", "LRANGE", "missing", "x", "1")  # indexes first
    pair.quiet("execute_command", "LTRIM", "missing", "0", "y")
    pair.lrange("l", 0, -1)
    pair.ltrim("l", 1, -2)
    pair.lrange("l", 0, -1)
    pair.ltrim("l", -3, 100)
    pair.lrange("l", 0, -1)
    pair.ltrim("missing", 0, 1)
    pair.ltrim("l", 5, 1)                                      # empties: deleted
    pair.exists("l")
    pair.check_keyspace()


def test_lrem_linsert(pair: Pair) -> None:
    pair.rpush("l", "a", "b", "a", "c", "a", "b", "a")
    pair.lrem("l", 2, "a")
    pair.lrange("l", 0, -1)
    pair.lrem("l", -1, "a")
    pair.lrange("l", 0, -1)
    pair.lrem("l", 0, "b")
    pair.lrem("l", 0, "zz")
    pair.lrem("missing", 0, "a")
    pair.lrange("l", 0, -1)
    pair.quiet("execute_command", "LREM", "l", "x", "a")
    pair.quiet("execute_command", "LREM", "missing", "x", "a")
    pair.linsert("l", "before", "c", "B")
    pair.linsert("l", "AFTER", "c", "D")
    pair.linsert("l", "after", "a", "E")
    pair.linsert("l", "before", "zz", "x")
    pair.linsert("missing", "before", "c", "x")
    pair.quiet("execute_command", "LINSERT", "l", "MIDDLE", "c", "x")
    pair.quiet("execute_command", "LINSERT", "missing", "MIDDLE", "c", "x")
    pair.lrange("l", 0, -1)
    pair.lrem("l", 0, "c")
    pair.lrem("l", 0, "a")
    pair.lrange("l", 0, -1)
    pair.check_keyspace()


def test_lpos(pair: Pair) -> None:
    pair.rpush("l", "a", "b", "c", "a", "b", "c", "a")
    pair.lpos("l", "a")
    pair.lpos("l", "zz")
    pair.lpos("missing", "a")
    pair.lpos("missing", "a", count=0)
    pair.lpos("l", "zz", count=2)
    for kwargs in [dict(rank=2), dict(rank=-1), dict(rank=-3), dict(rank=4), dict(rank=-4),
                   dict(count=0), dict(count=2), dict(rank=2, count=0), dict(rank=-2, count=2),
                   dict(maxlen=1), dict(maxlen=4, count=0), dict(rank=-1, maxlen=2, count=0),
                   dict(rank=-1, maxlen=1), dict(rank=3, count=1)]:
        pair.lpos("l", "a", **kwargs)
    for extra in (["RANK", 0], ["RANK", "x"], ["COUNT", -1], ["COUNT", "x"], ["MAXLEN", -1],
                  ["MAXLEN", "y"], ["RANK"], ["FOO", 1], ["RANK", 1, "RANK", 2],
                  ["COUNT", 1, "COUNT", 0], ["MAXLEN", 0], ["rank", -9223372036854775808],
                  ["RANK", -9223372036854775808, "COUNT", 1],
                  ["RANK", 9223372036854775807], ["RANK", "9223372036854775808"]):
        pair.quiet("execute_command", "LPOS", "l", "a", *extra)
    pair.set("s", "v")
    pair.quiet("execute_command", "LPOS", "s", "a", "RANK", 0)  # options before the key
    pair.quiet("lpos", "s", "a")
    pair.check_keyspace()


def test_lmove_and_rpoplpush(pair: Pair) -> None:
    pair.rpush("src", "a", "b", "c")
    for wf, wt in [("LEFT", "RIGHT"), ("RIGHT", "LEFT"), ("LEFT", "LEFT"), ("RIGHT", "RIGHT")]:
        pair.lmove("src", "dst", wf, wt)
        pair.lrange("dst", 0, -1)
    pair.lmove("src", "dst")                                 # src now empty: nil
    pair.exists("src")
    pair.rpoplpush("dst", "dst")                             # rotation
    pair.lrange("dst", 0, -1)
    pair.rpush("one", "x")
    pair.lmove("one", "one", "LEFT", "RIGHT")                # a one-element rotation
    pair.lrange("one", 0, -1)
    pair.rpoplpush("dst", "new")
    pair.rpoplpush("missing", "new")
    pair.quiet("execute_command", "LMOVE", "dst", "new", "LEFT", "MIDDLE")
    pair.quiet("execute_command", "LMOVE", "missing", "new", "UP", "LEFT")
    pair.set("str", "v")
    pair.quiet("lmove", "dst", "str")                        # WRONGTYPE, nothing moved
    pair.quiet("lmove", "str", "dst")
    pair.quiet("lmove", "missing", "str")                    # nil: dst not looked at
    pair.quiet("rpoplpush", "dst", "str")
    pair.lrange("dst", 0, -1)
    pair.check_keyspace()


def test_lmpop(pair: Pair) -> None:
    pair.rpush("l1", "a", "b", "c")
    pair.rpush("l2", "x", "y")
    pair.lmpop(2, "missing", "l1", direction="LEFT")
    pair.lmpop(2, "l1", "l2", direction="RIGHT", count=10)
    pair.lmpop(2, "l1", "l2", direction="LEFT", count=1)
    pair.lmpop(1, "missing", direction="LEFT")
    pair.set("str", "v")
    pair.quiet("lmpop", 2, "str", "l2", direction="LEFT")    # WRONGTYPE first
    pair.quiet("lmpop", 2, "l2", "str", direction="LEFT")    # l2 answers first
    for args in ([0, "l1", "LEFT"], [-1, "l1", "LEFT"], ["x", "l1", "LEFT"], [2, "l1", "LEFT"],
                 [1, "l1", "MIDDLE"], [1, "l1", "LEFT", "COUNT", 0], [1, "l1", "LEFT", "COUNT"],
                 [1, "l1", "LEFT", "COUNT", -1], [1, "l1", "LEFT", "COUNT", "x"],
                 [1, "l1", "LEFT", "COUNT", 1, "COUNT", 2], [1, "l1", "left", "count", 2],
                 [1, "l1", "LEFT", "FOO"]):
        pair.quiet("execute_command", "LMPOP", *args)
    pair.check_keyspace()


def test_blocking_commands_with_data_or_timeout(pair: Pair) -> None:
    pair.rpush("l1", "a", "b", "c")
    pair.blpop(["missing", "l1"], 1)
    pair.brpop(["l1"], 1)
    pair.blpop("missing", 0.01)                                # times out: None
    pair.brpoplpush("l1", "l2", 1)
    pair.blmove("l2", "l1", 1, "LEFT", "LEFT")
    pair.blmove("missing", "l1", 0.01, "LEFT", "LEFT")
    pair.brpoplpush("missing", "l1", 0.01)
    pair.blmpop(1, 2, "missing", "l1", direction="RIGHT", count=3)
    pair.blmpop(0.01, 1, "l1", direction="LEFT")
    pair.set("str", "v")
    pair.quiet("blpop", ["missing", "str", "l1"], 1)
    pair.quiet("blmove", "str", "l1", 1, "LEFT", "LEFT")
    for args in (["BLPOP", "l1", -1], ["BLPOP", "l1", "x"], ["BLPOP", "l1", "1e30"],
                 ["BRPOP", "l1", "9223372036854776"], ["BLMOVE", "a", "b", "LEFT", "UP", 1],
                 ["BLMOVE", "a", "b", "LEFT", "LEFT", -1], ["BRPOPLPUSH", "a", "b", "x"],
                 ["BLMPOP", 1, 0, "l1", "LEFT"], ["BLMPOP", -1, 1, "l1", "LEFT"],
                 ["BLMPOP", "x", 1, "l1", "NOWHERE"], ["BLMPOP", "x", 1, "l1", "LEFT"],
                 ["BLMPOP", 1, 1, "l1", "LEFT", "COUNT", 0], ["BLPOP", "l1"],
                 ["BZPOPMIN", "z", "1e30"], ["BZPOPMAX", "z", "9223372036854775.808"]):
        pair.quiet("execute_command", *args)
    pair.check_keyspace()


def test_blocking_commands_in_a_transaction_do_not_wait(pair: Pair) -> None:
    def run(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.blpop(["empty"], 0)
            pipe.brpop(["empty"], 0)
            pipe.blmove("empty", "dst", 0)
            pipe.brpoplpush("empty", "dst", 0)
            pipe.blmpop(0, 1, "empty", direction="LEFT")
            pipe.rpush("empty", "a", "b", "c", "d")
            pipe.blpop(["empty"], 0)
            pipe.brpoplpush("empty", "dst", 0)
            pipe.blmove("empty", "dst", 0, "LEFT", "LEFT")
            pipe.blmpop(0, 1, "empty", direction="RIGHT", count=5)
            pipe.lrange("dst", 0, -1)
            return pipe.execute()

    pair.apply("MULTI blocking list pops EXEC", run)
    pair.check_keyspace()


@pytest.mark.parametrize("key", OTHER_KEYS)
def test_wrongtype_against_every_type(pair: Pair, key: str) -> None:
    make_other_types(pair)
    calls: List[Callable[[Any], Any]] = [
        lambda c: c.lpush(key, "a"), lambda c: c.rpush(key, "a"), lambda c: c.lpushx(key, "a"),
        lambda c: c.rpushx(key, "a"), lambda c: c.lpop(key), lambda c: c.rpop(key, 2),
        lambda c: c.llen(key), lambda c: c.lrange(key, 0, -1), lambda c: c.ltrim(key, 0, 1),
        lambda c: c.lindex(key, 0), lambda c: c.lset(key, 0, "x"), lambda c: c.lrem(key, 0, "a"),
        lambda c: c.linsert(key, "before", "a", "b"), lambda c: c.lpos(key, "a"),
        lambda c: c.lmove(key, "l"), lambda c: c.rpoplpush(key, "l"),
        lambda c: c.blpop([key], 1), lambda c: c.brpop([key], 1),
        lambda c: c.blmove(key, "l", 1), lambda c: c.brpoplpush(key, "l", 1),
        lambda c: c.lmpop(1, key, direction="LEFT"),
        lambda c: c.blmpop(1, 1, key, direction="RIGHT"),
        lambda c: c.lcs(key, "str"), lambda c: c.sort(key), lambda c: c.sort_ro(key),
        lambda c: c.type(key),
    ]
    pair.rpush("l", "a", "b")
    for i, call in enumerate(calls):
        pair.apply(f"call #{i} on {key}", call, reraise=False)
    pair.quiet("lmove", "l", key)
    # and list keys against the other types' commands
    for call in [lambda c: c.get("l"), lambda c: c.sadd("l", "x"), lambda c: c.zadd("l", {"x": 1}),
                 lambda c: c.hset("l", "f", "v"), lambda c: c.incr("l"), lambda c: c.append("l", "x"),
                 lambda c: c.pfadd("l", "x"), lambda c: c.cms().query("l", "x"),
                 lambda c: c.topk().query("l", "x"), lambda c: c.zscore("l", "x")]:
        pair.apply("list key under another type's command", call, reraise=False)
    pair.check_keyspace()


def test_keyspace_commands_on_lists(pair: Pair) -> None:
    pair.rpush("l", "a", "b", "c")
    pair.type("l")
    pair.exists("l", "l", "missing")
    pair.rename("l", "l2")
    pair.lrange("l2", 0, -1)
    pair.renamenx("l2", "l3")
    pair.expire("l3", 100)
    pair.rpush("l3", "d")
    pair.apply("ttl class", lambda c: c.ttl("l3") > 0)
    pair.lpop("l3", 4)                                         # empties: key and TTL gone
    pair.ttl("l3")
    pair.rpush("l3", "x")
    pair.ttl("l3")
    pair.scan(0, _type="list")
    pair.keys("*")
    pair.dbsize()
    pair.delete("l3", "missing")
    pair.exists("l3")
    pair.check_keyspace()


def test_watch_sees_list_writes(pair: Pair) -> None:
    writes: List[Callable[[Any], Any]] = [
        lambda c: c.rpush("w", "x"), lambda c: c.lpop("w"), lambda c: c.lset("w", 0, "z"),
        lambda c: c.ltrim("w", 0, 100), lambda c: c.linsert("w", "after", "a", "q"),
        lambda c: c.lrem("w", 1, "a"), lambda c: c.lmove("w", "other"),
        lambda c: c.lmove("src", "w"), lambda c: c.blpop(["w"], 1),
        lambda c: c.lmpop(1, "w", direction="RIGHT"), lambda c: c.sort("src", store="w"),
    ]
    no_writes: List[Callable[[Any], Any]] = [
        lambda c: c.lrange("w", 0, -1), lambda c: c.lrem("w", 0, "zz"),
        lambda c: c.linsert("w", "after", "zz", "q"), lambda c: c.lpushx("missing", "x"),
        lambda c: c.lpop("w", 0), lambda c: c.lpos("w", "a"),
    ]

    def attempt(write: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def run(c: Any) -> Any:
            c.delete("w", "src", "other")
            c.rpush("w", "a", "b", "c")
            c.rpush("src", "3", "1", "2")
            with c.pipeline() as pipe:
                pipe.watch("w")
                write(c)
                pipe.multi()
                pipe.get("x")
                try:
                    return pipe.execute()
                except Exception as exc:  # noqa: BLE001 - WatchError is the outcome
                    return type(exc).__name__
        return run

    for i, write in enumerate(writes + no_writes):
        pair.apply(f"WATCH w, write #{i} on another client, EXEC", attempt(write))
    pair.check_keyspace()


@pytest.mark.parametrize("transaction", [True, False])
def test_list_commands_in_pipelines(pair: Pair, transaction: bool) -> None:
    def run(c: Any) -> Any:
        pipe = c.pipeline(transaction=transaction)
        pipe.rpush("p", "a", "b", "c").lpush("p", "z").lrange("p", 0, -1).lpop("p", 2)
        pipe.set("s", "v").lpush("s", "x").lset("p", 9, "q").lpos("p", "c", rank=0)
        pipe.lmove("p", "p2", "LEFT", "RIGHT").lmpop(2, "none", "p", direction="RIGHT")
        pipe.blpop(["none"], 0.01).sort("p2", alpha=True).lcs("s", "none").exists("p", "p2")
        return pipe.execute(raise_on_error=False)

    pair.apply(f"pipeline(transaction={transaction}) of list commands", run)
    pair.check_keyspace()


# -- seeded random stream --------------------------------------------------------------


class ListGen(Gen):
    """Every list command, valid and not, on a few keys, plus wrong types."""

    def table(self) -> Any:
        return [
            (8, self.op_push), (5, self.op_pop), (4, self.op_range), (2, self.op_trim),
            (3, self.op_index_set), (3, self.op_rem_insert), (4, self.op_pos),
            (3, self.op_move), (3, self.op_mpop), (3, self.op_blocking), (2, self.op_raw_errors),
            (1, self.op_keyspace), (1, self.op_other_types),
        ]

    def key(self) -> str:
        return self.pick(LKEYS + LKEYS + ["missing", self.pick(OTHER_KEYS[:4])])

    def element(self) -> Any:
        return self.pick(ELEMENTS)

    def index(self) -> int:
        return self.pick([0, 1, 2, -1, -2, 5, -6, 100, -100])

    def op_push(self, p: Pair) -> None:
        method = self.pick(["lpush", "rpush", "lpushx", "rpushx"])
        p.quiet(method, self.key(), *[self.element() for _ in range(self.rng.randint(1, 5))])

    def op_pop(self, p: Pair) -> None:
        method = self.pick(["lpop", "rpop"])
        if self.chance(0.5):
            p.quiet(method, self.key())
        else:
            p.quiet(method, self.key(), self.pick([0, 1, 2, 5, 50]))

    def op_range(self, p: Pair) -> None:
        if self.chance(0.7):
            p.quiet("lrange", self.key(), self.index(), self.index())
        else:
            p.quiet("llen", self.key())

    def op_trim(self, p: Pair) -> None:
        p.quiet("ltrim", self.key(), self.index(), self.index())

    def op_index_set(self, p: Pair) -> None:
        if self.chance(0.5):
            p.quiet("lindex", self.key(), self.index())
        else:
            p.quiet("lset", self.key(), self.index(), self.element())

    def op_rem_insert(self, p: Pair) -> None:
        if self.chance(0.5):
            p.quiet("lrem", self.key(), self.pick([0, 1, 2, -1, -3]), self.element())
        else:
            p.quiet("linsert", self.key(), self.pick(["before", "AFTER"]), self.element(),
                    self.element())

    def op_pos(self, p: Pair) -> None:
        kwargs: dict = {}
        if self.chance(0.5):
            kwargs["rank"] = self.pick([1, 2, -1, -2, 3])
        if self.chance(0.5):
            kwargs["count"] = self.pick([0, 1, 2])
        if self.chance(0.3):
            kwargs["maxlen"] = self.pick([0, 1, 3])
        p.quiet("lpos", self.key(), self.element(), **kwargs)

    def op_move(self, p: Pair) -> None:
        if self.chance(0.3):
            p.quiet("rpoplpush", self.key(), self.key())
        else:
            p.quiet("lmove", self.key(), self.key(), self.pick(["LEFT", "RIGHT"]),
                    self.pick(["LEFT", "RIGHT"]))

    def op_mpop(self, p: Pair) -> None:
        keys = [self.key() for _ in range(self.rng.randint(1, 3))]
        kwargs = {"count": self.pick([1, 2, 10])} if self.chance(0.5) else {}
        p.quiet("lmpop", len(keys), *keys, direction=self.pick(["LEFT", "RIGHT"]), **kwargs)

    def op_blocking(self, p: Pair) -> None:
        """Blocking forms with a short timeout: served at once, or nil after the wait."""
        what = self.pick(["blpop", "brpop", "blmove", "brpoplpush", "blmpop"])
        t = 0.01
        if what in ("blpop", "brpop"):
            p.quiet(what, [self.key() for _ in range(self.rng.randint(1, 3))], t)
        elif what == "blmove":
            p.quiet(what, self.key(), self.key(), t, self.pick(["LEFT", "RIGHT"]),
                    self.pick(["LEFT", "RIGHT"]))
        elif what == "brpoplpush":
            p.quiet(what, self.key(), self.key(), t)
        else:
            keys = [self.key() for _ in range(self.rng.randint(1, 3))]
            p.quiet(what, t, len(keys), *keys, direction=self.pick(["LEFT", "RIGHT"]),
                    count=self.pick([1, 3]))

    def op_raw_errors(self, p: Pair) -> None:
        k = self.key()
        args = self.pick([
            ["LPOP", k, -1], ["RPOP", k, "x"], ["LRANGE", k, "a", 1], ["LTRIM", k, 0, "b"],
            ["LINDEX", k, "x"], ["LSET", k, "x", "v"], ["LSET", k, 99, "v"], ["LREM", k, "x", "a"],
            ["LINSERT", k, "NEAR", "a", "b"], ["LPOS", k, "a", "RANK", 0],
            ["LPOS", k, "a", "COUNT", -2], ["LPOS", k, "a", "MAXLEN"], ["LMOVE", k, k, "UP", "LEFT"],
            ["LMPOP", 0, k, "LEFT"], ["LMPOP", 1, k, "LEFT", "COUNT", 0], ["LPUSH", k],
            ["BLPOP", k, -1], ["BLMPOP", "x", 1, k, "LEFT"], ["RPOPLPUSH", k],
        ])
        p.quiet("execute_command", *args)

    def op_keyspace(self, p: Pair) -> None:
        what = self.pick(["type", "exists", "delete", "rename"])
        if what == "type":
            p.quiet("type", self.key())
        elif what == "exists":
            p.quiet("exists", *LKEYS)
        elif what == "delete":
            p.quiet("delete", self.key())
        else:
            p.quiet("rename", self.key(), self.key())

    def op_other_types(self, p: Pair) -> None:
        p.quiet("set", "str", self.pick(["x", "12"]))
        p.quiet("sadd", "set", "1", "2")
        p.quiet("zadd", "zset", {"m": 1})
        p.quiet("hset", "hash", "f", "v")


def test_lists_random(pair: Pair, seed: int) -> None:
    gen = ListGen(random.Random(seed * 7717 + 11))
    gen.op_other_types(pair)
    gen.run(pair, steps(1500))


def test_lists_random_decoded(pair_decoded: Pair, seed: int) -> None:
    gen = ListGen(random.Random(seed * 6011 + 5), decoded=True)
    gen.op_other_types(pair_decoded)
    gen.run(pair_decoded, steps(600))


@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_lists_random_pipelines(pair: Pair, seed: int, transaction: bool) -> None:
    rng = random.Random(seed * 191 + transaction)
    gen = ListGen(rng)
    gen.op_other_types(pair)
    for _ in range(steps(120)):
        specs = draw_specs(gen, rng.choice([1, 2, 3, 5, 8]))
        compare_pipeline(pair, specs, transaction, raise_on_error=rng.random() < 0.5)


def test_lists_random_asyncio(redis_server: Any, seed: int) -> None:
    """The same random stream through fastrank.asyncio and redis.asyncio."""
    gen = ListGen(random.Random(seed * 389 + 1))
    specs = draw_specs(gen, steps(500))

    async def main() -> None:
        p = AsyncPair(redis_server.port, label=f"lists seed={seed}")
        try:
            for method, args, kwargs in [("set", ("str", "x"), {}), ("sadd", ("set", "1"), {}),
                                         ("zadd", ("zset", {"m": 1}), {}),
                                         ("hset", ("hash", "f", "v"), {})] + specs:
                await p.call(method, *args, **kwargs)
            p.check_keyspace("at the end")
        finally:
            await p.aclose()

    run(main)


# --------------------------------------------------------------------------
# Blocking list commands (and BZPOPMIN) woken by writes
#
# Sync: a thread waits in BLPOP / BRPOP / BLMOVE / BRPOPLPUSH / BLMPOP while
# the main thread writes through the same client (another pooled connection
# on the server) once the waiter is blocked (seen in the Engine's waiter
# count, or CLIENT LIST's ``b`` flag); the waiter's reply and the keyspace
# must agree. A key that turns into another
# type while a client waits is not a wake-up (the server only serves a list);
# a wrong destination for BLMOVE is an error.
#
# asyncio: the same through ``fastrank.asyncio.Engine`` and
# ``redis.asyncio.Redis``, the writer a concurrent task.
# --------------------------------------------------------------------------

PAUSE = 0.05  # asyncio: lets the waiter block first


def wait_until_blocked(c: Any) -> None:
    """Until a client is blocked: an Engine waiter, or a server client flagged 'b'."""
    for _ in range(1000):
        if isinstance(c, fastrank.Engine):
            if c._waiters:
                return
        elif any("b" in info.get("flags", "") for info in c.client_list()):
            return
        threading.Event().wait(0.005)
    raise AssertionError("the waiter never blocked")


def with_writer(wait: Callable[[Any], Any], write: Callable[[Any], Any],
                block: bool = True) -> Callable[[Any], Any]:
    """A scenario: ``wait(c)`` in a thread, ``write(c)`` once it blocks; the waiter's outcome."""

    def scenario(c: Any) -> Any:
        out: List[Any] = []

        def waiter() -> None:
            try:
                out.append(wait(c))
            except Exception as exc:  # noqa: BLE001 - the error is the outcome
                out.append(("error", type(exc).__name__, str(exc)))

        thread = threading.Thread(target=waiter)
        thread.start()
        if block:
            wait_until_blocked(c)
        write(c)
        thread.join(10)
        return out

    return scenario


SCENARIOS = {
    "blpop two keys, push to the second":
        (lambda c: c.blpop(["q1", "q2"], 5), lambda c: c.rpush("q2", "x", "y")),
    "brpop, push three":
        (lambda c: c.brpop(["q"], 5), lambda c: c.rpush("q", "a", "b", "c")),
    "blmove to a new list":
        (lambda c: c.blmove("q", "dst", 5, "RIGHT", "LEFT"), lambda c: c.lpush("q", "a", "b")),
    "brpoplpush":
        (lambda c: c.brpoplpush("q", "dst", 5), lambda c: c.rpush("q", "a", "b")),
    "blmpop with a count":
        (lambda c: c.blmpop(5, 2, "q1", "q", direction="LEFT", count=2),
         lambda c: c.rpush("q", "a", "b", "c")),
    "blpop woken by lmove into its key":
        (lambda c: c.blpop(["q"], 5), lambda c: (c.rpush("src", "s"), c.lmove("src", "q"))),
    "blpop ignores a string, then gets a list":
        (lambda c: c.blpop(["q"], 5),
         lambda c: (c.set("q", "str"), c.delete("q"), c.rpush("q", "late"))),
    "blpop passes over a key that became a string":
        (lambda c: c.blpop(["q1", "q2"], 5),
         lambda c: (c.set("q1", "str"), c.rpush("q2", "ok"))),
    "blmove with a destination of another type":
        (lambda c: c.blmove("q", "dst", 5), lambda c: (c.set("dst", "s"), c.rpush("q", "a"))),
    "bzpopmin passes over a key that became a list":
        (lambda c: c.bzpopmin(["z"], 5),
         lambda c: (c.rpush("z", "a"), c.delete("z"), c.zadd("z", {"m": 1}))),
    "blpop passes over a key that became a zset":
        (lambda c: c.blpop(["q"], 5),
         lambda c: (c.zadd("q", {"m": 1}), c.delete("q"), c.rpush("q", "x"))),
    "blpop in a transaction pushed": (
        lambda c: c.blpop(["q"], 5),
        lambda c: c.pipeline().rpush("q", "a", "b").lpop("q").execute()),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_blocking_list_command_woken_by_a_write(pair: Pair, name: str) -> None:
    wait, write = SCENARIOS[name]
    pair.apply(name, with_writer(wait, write))
    pair.check_keyspace()


def test_blocking_list_command_times_out(pair: Pair) -> None:
    pair.apply("blpop times out, then the key is written",
               with_writer(lambda c: c.blpop(["q"], 0.01), lambda c: c.rpush("other", "x"),
                           block=False))
    pair.check_keyspace()


def test_asyncio_blocking_list_commands(redis_server: Any) -> None:
    async def scenario(c: Any) -> List[Any]:
        out: List[Any] = [await c.blpop(["aq"], 0.05)]
        await c.rpush("aq", "a", "b", "c")
        out.append(await c.blpop(["none", "aq"], 1))
        out.append(await c.brpop(["aq"], 1))
        out.append(await c.blmove("aq", "dst", 1, "LEFT", "RIGHT"))
        out.append(await c.brpoplpush("none", "dst", 0.05))
        out.append(await c.blmpop(1, 2, "none", "dst", direction="RIGHT", count=5))
        await c.set("str", "x")
        for call in (lambda: c.blpop(["str"], 1), lambda: c.blpop(["aq"], -1),
                     lambda: c.brpop(["aq"], "x"), lambda: c.blmpop(1, 1, "str", direction="LEFT")):
            out.append(canon((await outcome(call)).key()))

        async def later(*pushes: Any) -> None:
            await asyncio.sleep(PAUSE)
            for key, value in pushes:
                await c.rpush(key, value)

        out.append((await asyncio.gather(c.blpop(["l1", "l2"], 0), later(("l2", "m"))))[0])
        out.append((await asyncio.gather(c.blmove("l3", "l4", 0), later(("l3", "n"))))[0])
        out.append((await asyncio.gather(c.brpoplpush("l5", "l6", 0), later(("l5", "o"))))[0])
        out.append((await asyncio.gather(c.blmpop(0, 1, "l7", direction="LEFT", count=3),
                                         later(("l7", "p"))))[0])
        async def retype_then_push() -> None:
            await asyncio.sleep(PAUSE)
            await c.set("l8", "str")
            await c.rpush("l9", "q")

        out.append((await asyncio.gather(c.blpop(["l8", "l9"], 0), retype_then_push()))[0])

        async def wrong_destination() -> None:
            await asyncio.sleep(PAUSE)
            await c.set("l11", "str")
            await c.rpush("l10", "r")

        out.append(canon((await outcome(lambda: asyncio.gather(c.blmove("l10", "l11", 0),
                                                                wrong_destination()))).key()))
        async def list_then_zset() -> None:
            await asyncio.sleep(PAUSE)
            await c.rpush("z1", "a")
            await c.delete("z1")
            await c.zadd("z1", {"s": 2})

        out.append((await asyncio.gather(c.bzpopmin("z1", 0), list_then_zset()))[0])
        async with c.pipeline() as pipe:                   # MULTI: never waits
            pipe.blpop(["none"], 0).brpoplpush("none", "x", 0).blmpop(0, 1, "none",
                                                                     direction="LEFT")
            out.append(await pipe.execute())
        return out

    async def main() -> None:
        p = AsyncPair(redis_server.port, label="blocking lists")
        try:
            await p.compare("blocking list scenario", scenario)
            p.check_keyspace("at the end")
        finally:
            await p.aclose()

    run(main)
