"""Engine.save / Engine.load: every value type round-trips, a bad file loads nothing."""
from __future__ import annotations

import asyncio
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.exceptions import WatchError

import fastrank.asyncio
from fastrank import Engine
from fastrank.engine.snapshot import SnapshotError


def fill(engine: Engine) -> None:
    engine.set("s", b"bin\0ary")
    engine.set("ttl", "v", px=3_600_000)
    engine.pfadd("hll", *[f"u{i}" for i in range(2000)])
    engine.zadd("small", {"a": 1, "b": -0.0, "c": float("inf")})
    engine.zadd("big", {f"m{i}": i / 7 for i in range(300)})
    engine.zincrby("big", -0.0, "negzero")
    engine.hset("h", mapping={"f": "1", "g": b"\xff"})
    engine.sadd("set", "x", "y", b"\0")
    engine.cms().initbydim("cms", 50, 4)
    engine.cms().incrby("cms", ["a", "b"], [3, 5])
    engine.topk().reserve("tk", 3, 8, 7, 0.9)
    engine.topk().add("tk", "a", "b", "a")
    engine.expire("big", 7200)
    engine.rpush("recent", "m3", b"m\x002", "m1")


def dump(engine: Engine) -> dict:
    """Everything a client can observe about each key."""
    out = {}
    for key in sorted(engine.keys()):
        kind = engine.type(key)
        ttl = engine.pttl(key)
        entry = {"type": kind, "has_ttl": ttl > 0, "encoding": type(engine._data[key]).__name__}  # listpack or skip list
        if kind == b"string":
            entry["value"] = engine.get(key)
        elif kind == b"zset":
            entry["value"] = [(m, repr(s)) for m, s in engine.zrange(key, 0, -1, withscores=True)]
        elif kind == b"hash":
            entry["value"] = engine.hgetall(key)
        elif kind == b"set":
            entry["value"] = sorted(engine.smembers(key))
        elif kind == b"list":
            entry["value"] = engine.lrange(key, 0, -1)
        elif kind == b"CMSk-TYPE":
            entry["value"] = (engine.cms().info(key).count, engine.cms().query(key, "a", "b", "c"))
        elif kind == b"TopK-TYPE":
            entry["value"] = engine.topk().list(key, withcount=True)
        out[key] = entry
    return out


def test_every_value_type_round_trips(tmp_path):
    engine = Engine()
    fill(engine)
    path = tmp_path / "engine.snap"
    assert engine.save(path) is True
    again = Engine()
    assert again.load(path) == len(engine.keys())
    assert dump(again) == dump(engine)
    assert 3_500_000 < again.pttl("ttl") <= 3_600_000
    assert again.pfcount("hll") == engine.pfcount("hll")
    # The loaded keyspace is live: the compiled fast paths see it too.
    assert again.zincrby("big", 1, "m1") == engine.zincrby("big", 1, "m1")
    assert again.zrevrank("big", "m1") == engine.zrevrank("big", "m1")


def test_load_replaces_the_whole_keyspace(tmp_path):
    engine = Engine()
    engine.set("kept", 1)
    engine.save(tmp_path / "a.snap")
    engine.set("later", 2)
    engine.delete("kept")
    assert engine.load(tmp_path / "a.snap") == 1
    assert engine.keys() == [b"kept"]


def test_save_without_a_path_reuses_the_last_one(tmp_path):
    engine = Engine()
    with pytest.raises(ValueError, match="needs a path"):
        engine.save()
    engine.set("k", 1)
    engine.save(tmp_path / "x.snap")
    engine.set("k", 2)
    engine.save()
    fresh = Engine()
    fresh.load(tmp_path / "x.snap")
    assert fresh.get("k") == b"2"


def _good_file(tmp_path):
    engine = Engine()
    fill(engine)
    path = tmp_path / "good.snap"
    engine.save(path)
    return path, path.read_bytes()


def test_every_truncation_is_refused_and_loads_nothing(tmp_path):
    path, raw = _good_file(tmp_path)
    engine = Engine()
    engine.set("mine", "stays")
    before = dump(engine)
    cuts = sorted(set(range(0, 64)) | set(range(0, len(raw), max(1, len(raw) // 300))))
    for cut in cuts:
        path.write_bytes(raw[:cut])
        with pytest.raises(SnapshotError):
            engine.load(path)
        assert dump(engine) == before


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_altered_byte_is_refused_and_loads_nothing(tmp_path_factory, data):
    tmp_path = tmp_path_factory.mktemp("snap")
    path, raw = _good_file(tmp_path)
    pos = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    flip = data.draw(st.integers(min_value=1, max_value=255))
    bad = bytearray(raw)
    bad[pos] ^= flip
    path.write_bytes(bytes(bad))
    engine = Engine()
    engine.set("mine", "stays")
    with pytest.raises(SnapshotError):
        engine.load(path)
    assert engine.keys() == [b"mine"]


def test_other_files_and_versions_are_refused_by_name(tmp_path):
    path, raw = _good_file(tmp_path)
    engine = Engine()
    path.write_bytes(b"REDIS0009" + raw[9:])
    with pytest.raises(SnapshotError, match="bad magic"):
        engine.load(path)
    future = bytearray(raw)
    future[6] = 2
    path.write_bytes(bytes(future))
    with pytest.raises(SnapshotError, match="version 2"):
        engine.load(path)
    with pytest.raises(FileNotFoundError):
        engine.load(tmp_path / "missing.snap")
    assert engine.keys() == []


def test_a_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path, raw = _good_file(tmp_path)
    engine = Engine()
    engine.set("new", "value")

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        engine.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == raw
    assert sorted(os.listdir(tmp_path)) == ["good.snap"]
    assert engine.get("new") == b"value"


def test_a_value_a_snapshot_cannot_hold_is_refused_before_the_file_changes(tmp_path):
    path, raw = _good_file(tmp_path)
    engine = Engine()
    engine.set("a", 1)
    engine._data[b"odd"] = object()  # no command makes such a value; the check is the writer's
    with pytest.raises(TypeError, match="cannot hold"):
        engine.save(path)
    assert path.read_bytes() == raw
    assert sorted(os.listdir(tmp_path)) == ["good.snap"]


def test_load_fails_a_watching_transaction(tmp_path):
    engine = Engine()
    engine.set("k", 1)
    engine.save(tmp_path / "s.snap")
    pipe = engine.pipeline()
    pipe.watch("k")
    engine.load(tmp_path / "s.snap")
    pipe.multi()
    pipe.set("k", 2)
    with pytest.raises(WatchError):
        pipe.execute()


def test_asyncio_engine_saves_and_loads(tmp_path):
    async def main():
        a = fastrank.asyncio.Engine()
        await a.zadd("board", {"ann": 5, "bob": 7})
        assert await a.save(str(tmp_path / "a.snap")) is True
        b = fastrank.asyncio.Engine()
        assert await b.load(str(tmp_path / "a.snap")) == 1
        return await b.zrevrange("board", 0, -1, withscores=True)

    assert asyncio.run(main()) == [(b"bob", 7.0), (b"ann", 5.0)]


keys = st.binary(min_size=1, max_size=8)
members = st.binary(max_size=70)
scores = st.floats(allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(strings=st.dictionaries(keys, st.binary(max_size=40), max_size=5),
       zsets=st.dictionaries(keys, st.dictionaries(members, scores, min_size=1, max_size=150),
                             max_size=3),
       hashes=st.dictionaries(keys, st.dictionaries(members, st.binary(max_size=10), min_size=1,
                                                    max_size=5), max_size=2),
       sets=st.dictionaries(keys, st.sets(members, min_size=1, max_size=5), max_size=2))
def test_random_keyspaces_round_trip(tmp_path_factory, strings, zsets, hashes, sets):
    engine = Engine()
    for k, v in strings.items():
        engine.set(b"s:" + k, v)
    for k, z in zsets.items():
        engine.zadd(b"z:" + k, z)
    for k, h in hashes.items():
        engine.hset(b"h:" + k, mapping=h)
    for k, s in sets.items():
        engine.sadd(b"t:" + k, *s)
    path = tmp_path_factory.mktemp("snap") / "r.snap"
    engine.save(path)
    again = Engine()
    again.load(path)
    assert dump(again) == dump(engine)


def test_docstring_example():
    import doctest

    import fastrank.engine

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(fastrank.engine.Engine.save, "save", globs={"Engine": Engine}):
        runner.run(test)
    assert runner.tries >= 2 and runner.failures == 0
