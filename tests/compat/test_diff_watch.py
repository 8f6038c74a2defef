"""WATCH / MULTI / EXEC / UNWATCH through redis-py pipelines: client under test vs Redis 7.0.

Each scenario is one function of a client, run on both sides: it opens a
pipeline, WATCHes, lets "someone else" (the client itself, i.e. another
pooled connection on the real server) do something, then MULTI ... EXEC.
The outcome (the results, or WatchError) and the keyspace afterwards must
agree. Writes that change nothing (SET NX on an existing key, ZADD of the
same score, DEL of a missing key...) must not abort the transaction.
"""
from __future__ import annotations

import time
from typing import Any, Callable

import pytest
import redis

from differential import Pair

pytestmark = pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")


def guarded(meddle: Callable[[Any], Any], watch=("w",)) -> Callable[[Any], Any]:
    """WATCH, run meddle(client), MULTI, SET w mine, INCR n, EXEC."""

    def scenario(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch(*watch)
            meddle(c)
            pipe.multi()
            pipe.set("w", "mine")
            pipe.incr("n")
            return pipe.execute()

    return scenario


def setup(p: Pair) -> None:
    p.flushdb()
    p.set("w", "0")
    p.zadd("z", {"a": 1})
    p.hset("h", "f", "v")
    p.sadd("s", "x")
    p.set("other", "1")


MEDDLES = {
    "nothing": lambda c: None,
    "read": lambda c: (c.get("w"), c.exists("w"), c.ttl("w")),
    "set": lambda c: c.set("w", "x"),
    "set_same_value": lambda c: c.set("w", "0"),
    "set_nx_existing": lambda c: c.set("w", "x", nx=True),
    "set_xx": lambda c: c.set("w", "x", xx=True),
    "delete": lambda c: c.delete("w"),
    "delete_other": lambda c: c.delete("other"),
    "expire": lambda c: c.expire("w", 100),
    "expire_nx_fails": lambda c: (c.expire("w", 100), c.expire("other", 5)),
    "persist_no_ttl": lambda c: c.persist("w"),
    "incr": lambda c: c.incr("w"),
    "append": lambda c: c.append("w", "x"),
    "append_empty": lambda c: c.append("w", ""),
    "setrange_empty": lambda c: c.setrange("w", 0, ""),
    "rename_to": lambda c: c.rename("other", "w"),
    "rename_from": lambda c: c.rename("w", "w2"),
    "renamenx_blocked": lambda c: c.renamenx("other", "w"),
    "flushdb": lambda c: c.flushdb(),
    "getdel": lambda c: c.getdel("w"),
    "getex_plain": lambda c: c.getex("w"),
    "getex_persist": lambda c: c.getex("w", persist=True),
    "mset": lambda c: c.mset({"a": 1, "w": 2}),
    "msetnx_blocked": lambda c: c.msetnx({"zz": 1, "w": 2}),
    "wrongtype_error": lambda c: _quiet(lambda: c.zadd("w", {"a": 1})),
}

ZSET_MEDDLES = {
    "zadd_same": lambda c: c.zadd("z", {"a": 1}),
    "zadd_change": lambda c: c.zadd("z", {"a": 2}),
    "zadd_nx_existing": lambda c: c.zadd("z", {"a": 5}, nx=True),
    "zincrby_zero": lambda c: c.zincrby("z", 0, "a"),
    "zincrby": lambda c: c.zincrby("z", 1, "a"),
    "zrem_missing": lambda c: c.zrem("z", "nope"),
    "zrem": lambda c: c.zrem("z", "a"),
    "zpopmin": lambda c: c.zpopmin("z"),
    "zremrangebyscore_none": lambda c: c.zremrangebyscore("z", 5, 6),
    "zunionstore_into": lambda c: c.zunionstore("z", ["z"]),
    "zrangestore_empty_into": lambda c: c.zrangestore("z", "missing", 0, -1),
    "hset_same": lambda c: c.hset("h", "f", "v"),
    "hdel_missing": lambda c: c.hdel("h", "nope"),
    "hsetnx_existing": lambda c: c.hsetnx("h", "f", "x"),
    "sadd_existing": lambda c: c.sadd("s", "x"),
    "srem_missing": lambda c: c.srem("s", "nope"),
    "sadd_new": lambda c: c.sadd("s", "y"),
}


def _quiet(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except redis.ResponseError as e:
        return e


@pytest.mark.parametrize("name", sorted(MEDDLES))
def test_watch_string_key(pair: Pair, name: str) -> None:
    setup(pair)
    pair.apply(f"watch w; {name}; multi/set/incr/exec", guarded(MEDDLES[name]), reraise=False)
    pair.check_keyspace()


@pytest.mark.parametrize("name", sorted(ZSET_MEDDLES))
def test_watch_container_keys(pair: Pair, name: str) -> None:
    setup(pair)
    pair.apply(f"watch z h s; {name}; multi/set/incr/exec",
               guarded(ZSET_MEDDLES[name], watch=("z", "h", "s")), reraise=False)
    pair.check_keyspace()


def test_watch_missing_key_then_created_or_flushed(pair: Pair) -> None:
    setup(pair)
    pair.apply("watch missing; flushdb", guarded(lambda c: c.flushdb(), watch=("missing",)),
               reraise=False)
    setup(pair)
    pair.apply("watch missing; set it", guarded(lambda c: c.set("missing", 1),
                                                watch=("missing",)), reraise=False)
    pair.check_keyspace()


def test_own_immediate_write_dirties_the_watch(pair: Pair) -> None:
    def scenario(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            before = pipe.get("w")
            pipe.set("w", "by me, immediately")
            pipe.multi()
            pipe.get("w")
            return before, pipe.execute()

    pair.set("w", "0")
    pair.apply("watch; immediate set; multi/get/exec", scenario, reraise=False)
    pair.check_keyspace()


def test_unwatch_and_watch_again(pair: Pair) -> None:
    def scenario(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w", "v")
            c.set("w", "changed")
            out = [pipe.unwatch(), pipe.watching]
            pipe.watch("v")
            c.set("w", "changed again")
            pipe.multi()
            pipe.set("v", "mine")
            out.append(pipe.execute())
            return out

    pair.set("w", "0")
    pair.apply("watch; outside write; unwatch; watch v; multi/exec", scenario, reraise=False)
    pair.check_keyspace()


def test_watch_then_no_commands(pair: Pair) -> None:
    def empty_exec(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            return pipe.execute()

    def empty_exec_dirty(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            c.set("w", "x")
            return pipe.execute()

    def plain_pipeline(c: Any) -> Any:
        with c.pipeline(transaction=False) as pipe:
            pipe.watch("w")
            got = pipe.get("w")
            c.set("w", "y")
            return got, pipe.execute()

    pair.set("w", "0")
    pair.apply("watch; execute", empty_exec, reraise=False)
    pair.apply("watch; outside write; execute", empty_exec_dirty, reraise=False)
    pair.apply("non-transactional pipeline with watch", plain_pipeline, reraise=False)
    pair.check_keyspace()


def test_watch_client_side_errors_and_exec_without_multi(pair: Pair) -> None:
    def watch_after_multi(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.multi()
            pipe.watch("w")

    def exec_while_watching(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            return pipe.execute_command("EXEC")

    def discard_while_watching(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            return pipe.discard()

    def watch_no_keys(c: Any) -> Any:
        with c.pipeline() as pipe:
            return pipe.watch()

    def watch_inside_multi(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.multi()
            pipe.set("w", "1")
            pipe.execute_command("WATCH", "w")
            pipe.get("w")
            return pipe.execute(raise_on_error=False)

    pair.set("w", "0")
    for fn in (watch_after_multi, exec_while_watching, discard_while_watching, watch_no_keys,
               watch_inside_multi):
        pair.apply(fn.__name__, fn, reraise=False)
    pair.check_keyspace()


def test_watch_queue_error_aborts_and_unwatches(pair: Pair) -> None:
    def scenario(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            pipe.multi()
            pipe.set("w", "1")
            pipe.execute_command("GET")
            try:
                pipe.execute()
            except redis.ResponseError as e:
                first = e
            c.set("w", "later")     # not watched any more
            pipe.watch("v")
            pipe.multi()
            pipe.set("v", "ok")
            return str(first), pipe.execute()

    pair.set("w", "0")
    pair.apply("queue error; then a new watch", scenario, reraise=False)
    pair.check_keyspace()


def test_watched_key_expiring_before_exec(pair: Pair) -> None:
    """7.0: a key that expires between WATCH and EXEC aborts the EXEC, even unread."""

    def expires_unread(c: Any) -> Any:
        c.set("t", "x", px=100)
        with c.pipeline() as pipe:
            pipe.watch("t")
            time.sleep(0.15)
            pipe.multi()
            pipe.set("done", "1")
            return pipe.execute()

    def expires_read(c: Any) -> Any:
        c.set("t", "x", px=100)
        with c.pipeline() as pipe:
            pipe.watch("t")
            time.sleep(0.15)
            c.get("t")                # deletes it on the way
            pipe.multi()
            pipe.set("done", "2")
            return pipe.execute()

    for fn in (expires_unread, expires_read):    # each side sets its own TTL
        pair.apply(fn.__name__, fn, reraise=False)
        pair.check_keyspace()


def test_key_already_expired_when_watched(pair: Pair) -> None:
    """Expired before WATCH (not yet deleted): its later deletion is no change."""

    def untouched(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("t")
            pipe.multi()
            pipe.set("done", "1")
            return pipe.execute()

    def read_deletes_it(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("t")
            c.exists("t")
            pipe.multi()
            pipe.set("done", "2")
            return pipe.execute()

    def recreated(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("t")
            c.set("t", "new")
            pipe.multi()
            pipe.set("done", "3")
            return pipe.execute()

    def expired(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def run(c: Any) -> Any:
            c.set("t", "x", px=30)
            time.sleep(0.06)
            return fn(c)
        return run

    for fn in (untouched, read_deletes_it, recreated):
        pair.apply(fn.__name__, expired(fn), reraise=False)
        pair.check_keyspace()


def test_transaction_helper_retries(pair: Pair) -> None:
    def run(c: Any) -> Any:
        attempts = []

        def body(pipe: Any) -> Any:
            value = int(pipe.get("counter") or 0)
            attempts.append(value)
            if len(attempts) == 1:
                c.incr("counter")     # someone else gets in first: retried
            pipe.multi()
            pipe.set("counter", value + 10)
            return value

        result = c.transaction(body, "counter")
        again = c.transaction(body, "counter", value_from_callable=True)
        return attempts, result, again

    pair.set("counter", 1)
    pair.apply("transaction(func, 'counter') with one conflict", run, reraise=False)
    pair.get("counter")
