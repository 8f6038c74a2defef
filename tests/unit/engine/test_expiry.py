"""A key lives through its deadline millisecond: Redis's keyIsExpired is
``now > deadline`` (issue: keys expired 1 ms early)."""
from __future__ import annotations

import pytest

import fastrank
import fastrank.engine.keyspace


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list:
    now = [1_700_000_000_000]
    monkeypatch.setattr(fastrank.engine.keyspace, "now_ms", lambda: now[0])
    return now


def test_value_and_pttl_at_the_deadline(clock: list) -> None:
    engine = fastrank.Engine()
    engine.set("k", "v")
    engine.zadd("z", {"a": 1})
    assert engine.pexpire("k", 100) and engine.pexpire("z", 100)
    clock[0] += 100                       # exactly at the deadline
    assert engine.get("k") == b"v"
    assert engine.pttl("k") == 0
    assert engine.zscore("z", "a") == 1.0
    assert engine.exists("k", "z") == 2
    clock[0] += 1                         # one past it
    assert engine.get("k") is None
    assert engine.pttl("k") == -2
    assert engine.zscore("z", "a") is None
    assert engine.exists("k", "z") == 0


def test_watch_sees_expiry_only_past_the_deadline(clock: list) -> None:
    engine = fastrank.Engine()
    engine.set("k", "v", px=10)
    with engine.pipeline() as p:
        p.watch("k")
        clock[0] += 10                    # at the deadline: not expired yet
        p.multi()
        p.get("k")
        assert p.execute() == [b"v"]


def test_pexpireat_now_deletes_at_once(clock: list) -> None:
    # EXPIRE with a time <= now deletes the key (checkAlreadyExpired uses <=).
    engine = fastrank.Engine()
    engine.set("k", "v")
    assert engine.pexpireat("k", clock[0]) is True
    assert engine.exists("k") == 0
