"""The keyspace API (fastrank/keyspace.py) that every command handler goes through.

Each rule is checked through the Keyspace methods and, where a command shows
it, through redis-py's command methods on the Engine (which inherits Keyspace).
The clock is fixed by patching ``fastrank.engine.keyspace.now_ms``: no sleeps.
"""
from __future__ import annotations

import ast
import pathlib
from typing import Any, Callable

import pytest
import redis
from redis.commands.core import CoreCommands
from redis.exceptions import WatchError

import fastrank
import fastrank.engine.keyspace
from fastrank import errors as E
from fastrank.engine.keyspace import CommandError, Keyspace, ListpackZSet

NOW = 1_700_000_000_000


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    now = [NOW]
    monkeypatch.setattr(fastrank.engine.keyspace, "now_ms", lambda: now[0])
    return now


@pytest.fixture
def db(clock: list[int]) -> fastrank.Engine:
    return fastrank.Engine()


def watch_then(db: fastrank.Engine, key: str, meddle: Callable[[], object]) -> Any:
    """WATCH key, run meddle() under the lock, then MULTI GET key EXEC."""
    with db.pipeline() as pipe:
        pipe.watch(key)
        with db._lock:
            meddle()
        pipe.multi()
        pipe.get(key)
        try:
            return pipe.execute()
        except WatchError:
            return "watch error"


# -- store / replace and the TTL ----------------------------------------------------


def test_replace_keeps_the_ttl_and_store_drops_it(db: fastrank.Engine) -> None:
    db.set("k", "one", px=5_000)
    db.replace(b"k", b"two")
    assert db.deadline(b"k") == NOW + 5_000 and db.pttl("k") == 5_000 and db.get("k") == b"two"
    db.store(b"k", b"three")
    assert db.deadline(b"k") is None and db.ttl("k") == -1 and db.get("k") == b"three"


def test_store_with_a_deadline_sets_it(db: fastrank.Engine) -> None:
    db.store(b"k", b"v", NOW + 1_234)
    assert db.pttl("k") == 1_234 and db.has_deadline(b"k")


def test_clear_deadline_is_persist(db: fastrank.Engine) -> None:
    db.set("k", "v", ex=10)
    assert db.clear_deadline(b"k") is True
    assert db.clear_deadline(b"k") is False
    assert not db.has_deadline(b"k") and db.ttl("k") == -1 and db.get("k") == b"v"
    assert db.persist("k") is False  # redis-py's PERSIST: nothing left to drop


def test_set_deadline_then_ttl(db: fastrank.Engine) -> None:
    db.set("k", "v")
    db.set_deadline(b"k", NOW + 2_000)
    assert db.ttl("k") == 2 and db.pexpiretime("k") == NOW + 2_000


# -- expiry: a key lives through its deadline millisecond (now > deadline) ------------


def test_expiry_boundary_is_now_past_the_deadline(db: fastrank.Engine, clock: list[int]) -> None:
    db.store(b"k", b"v", NOW + 100)
    clock[0] = NOW + 100
    assert db.lookup(b"k") == b"v" and db.live_keys() == [b"k"]
    clock[0] += 1
    assert db.lookup(b"k") is None
    assert list(db.entries()) == [] and db.deadline(b"k") is None  # deleted on that lookup


def test_lookup_persistent_skips_keys_with_a_ttl(db: fastrank.Engine) -> None:
    db.store(b"plain", b"1")
    db.store(b"timed", b"2", NOW + 1)
    assert db.lookup_persistent(b"plain") == b"1"
    assert db.lookup_persistent(b"timed") is None and db.lookup(b"timed") == b"2"


def test_entries_include_deadlines(db: fastrank.Engine) -> None:
    db.store(b"a", b"1")
    db.store(b"b", b"2", NOW + 7)
    assert sorted(db.entries()) == [(b"a", b"1", None), (b"b", b"2", NOW + 7)]


# -- types -----------------------------------------------------------------------------


def test_lookup_type_refuses_another_type_with_wrongtype(db: fastrank.Engine) -> None:
    db.zadd("z", {"m": 1})
    assert type(db.lookup_type(b"z", ListpackZSet)) is ListpackZSet
    assert db.lookup_type(b"missing", bytes) is None
    with pytest.raises(CommandError) as err:
        db.lookup_type(b"z", bytes)
    assert err.value.line == E.WRONGTYPE
    with pytest.raises(redis.ResponseError, match=E.message(E.WRONGTYPE)):
        db.get("z")


def test_type_names_cover_every_value_class(db: fastrank.Engine) -> None:
    db.set("s", "v")
    db.zadd("z", {"m": 1})
    db.hset("h", "f", "v")
    db.sadd("set", "m")
    db.rpush("l", "x")
    assert [db.type(k) for k in ("s", "z", "h", "set", "l")] == \
        [b"string", b"zset", b"hash", b"set", b"list"]
    assert {type(v) for _, v, _ in db.entries()} <= set(fastrank.engine.keyspace.TYPE_NAMES)


def test_drop_if_empty_removes_key_and_deadline(db: fastrank.Engine) -> None:
    db.sadd("s", "m")
    db.expire("s", 100)
    value = db.lookup(b"s")
    value.clear()
    db.drop_if_empty(b"s", value)
    assert db.exists("s") == 0 and db.deadline(b"s") is None


# -- the two dicts are never rebound (the compiled fast paths hold them) ----------------


def test_flush_and_load_all_keep_the_same_dicts(db: fastrank.Engine) -> None:
    data, expires = db._data, db._expires
    db.set("k", "v", ex=5)
    db.flush()
    assert db.dbsize() == 0 and db._data is data and db._expires is expires
    db.load_all({b"a": b"1"}, {b"a": NOW + 9})
    assert db._data is data and db._expires is expires
    assert db.get("a") == b"1" and db.pttl("a") == 9
    assert db.zincrby("board", 2, "ann") == 2.0  # a compiled fast path sees the same keys
    assert db.lookup(b"board").score(b"ann") == 2.0


# -- modified-key signalling: WATCH -----------------------------------------------------


def test_touched_marks_watchers(db: fastrank.Engine) -> None:
    db.set("k", "v")
    assert watch_then(db, "k", lambda: db.touched(b"k")) == "watch error"
    assert watch_then(db, "k", lambda: db.touched(b"other")) == [b"v"]
    assert not db.has_watchers() and db._observed is False  # EXEC unwatched everything


@pytest.mark.parametrize("write", [
    lambda db: db.store(b"k", b"new"),
    lambda db: db.replace(b"k", b"new"),
    lambda db: db.remove(b"k"),
    lambda db: db.set_deadline(b"k", NOW + 10),
    lambda db: db.written(b"k"),
    lambda db: db.flush(),
])
def test_every_write_signals_the_key(db: fastrank.Engine,
                                     write: Callable[[fastrank.Engine], object]) -> None:
    db.set("k", "v")
    assert watch_then(db, "k", lambda: write(db)) == "watch error"


def test_clear_deadline_signals_only_when_there_was_one(db: fastrank.Engine) -> None:
    db.set("k", "v")
    assert watch_then(db, "k", lambda: db.clear_deadline(b"k")) == [b"v"]
    db.expire("k", 100)
    assert watch_then(db, "k", lambda: db.clear_deadline(b"k")) == "watch error"


def test_replace_without_signal_leaves_watchers_alone(db: fastrank.Engine) -> None:
    db.set("k", "v")
    assert watch_then(db, "k", lambda: db.replace(b"k", b"quiet", signal=False)) == [b"quiet"]


def test_removing_a_missing_key_signals_nothing(db: fastrank.Engine) -> None:
    assert watch_then(db, "k", lambda: db.remove(b"k")) == [None]


# -- structure ----------------------------------------------------------------------------


def test_no_keyspace_method_shadows_a_redis_py_command() -> None:
    ours = {name for name in vars(Keyspace) if not name.startswith("__")}
    assert ours.isdisjoint(dir(CoreCommands)) and ours.isdisjoint(dir(redis.Redis))


def test_command_modules_import_nothing_from_the_engine() -> None:
    """commands/*.py reach the engine only for type hints (under TYPE_CHECKING),
    and import nothing of fastrank inside functions."""
    folder = pathlib.Path(fastrank.__file__).parent / "engine" / "commands"
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text())
        guarded = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and getattr(block.test, "id", None) == "TYPE_CHECKING"
                   for node in ast.walk(block)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("fastrank.engine", "fastrank.engine.engine"):
                assert id(node) in guarded, f"{path.name}:{node.lineno} imports fastrank.engine"
        for func in ast.walk(tree):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(func):
                    if isinstance(node, ast.ImportFrom):
                        assert not (node.module or "").startswith("fastrank"), \
                            f"{path.name}:{node.lineno} imports inside {func.name}"


def test_only_the_keyspace_touches_the_two_dicts() -> None:
    """Outside keyspace.py, only engine.py (its compiled fast paths' Python
    side shares the dicts with EngineState) names ``_data`` or ``_expires``."""
    package = pathlib.Path(fastrank.__file__).parent
    for path in sorted(package.rglob("*.py")):
        if path.name in ("keyspace.py", "engine.py"):
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                assert node.attr not in ("_data", "_expires"), \
                    f"{path.relative_to(package)}:{node.lineno} reads .{node.attr}"
