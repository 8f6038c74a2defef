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
from fastrank.snapshot import SnapshotError


def fill(r: Engine) -> None:
    r.set("s", b"bin\0ary")
    r.set("ttl", "v", px=3_600_000)
    r.pfadd("hll", *[f"u{i}" for i in range(2000)])
    r.zadd("small", {"a": 1, "b": -0.0, "c": float("inf")})
    r.zadd("big", {f"m{i}": i / 7 for i in range(300)})
    r.zincrby("big", -0.0, "negzero")
    r.hset("h", mapping={"f": "1", "g": b"\xff"})
    r.sadd("set", "x", "y", b"\0")
    r.cms().initbydim("cms", 50, 4)
    r.cms().incrby("cms", ["a", "b"], [3, 5])
    r.topk().reserve("tk", 3, 8, 7, 0.9)
    r.topk().add("tk", "a", "b", "a")
    r.expire("big", 7200)
    r.rpush("recent", "m3", b"m\x002", "m1")


def dump(r: Engine) -> dict:
    """Everything a client can observe about each key."""
    out = {}
    for key in sorted(r.keys()):
        kind = r.type(key)
        ttl = r.pttl(key)
        entry = {"type": kind, "has_ttl": ttl > 0, "encoding": type(r._data[key]).__name__}  # listpack or skip list
        if kind == b"string":
            entry["value"] = r.get(key)
        elif kind == b"zset":
            entry["value"] = [(m, repr(s)) for m, s in r.zrange(key, 0, -1, withscores=True)]
        elif kind == b"hash":
            entry["value"] = r.hgetall(key)
        elif kind == b"set":
            entry["value"] = sorted(r.smembers(key))
        elif kind == b"list":
            entry["value"] = r.lrange(key, 0, -1)
        elif kind == b"CMSk-TYPE":
            entry["value"] = (r.cms().info(key).count, r.cms().query(key, "a", "b", "c"))
        elif kind == b"TopK-TYPE":
            entry["value"] = r.topk().list(key, withcount=True)
        out[key] = entry
    return out


def test_every_value_type_round_trips(tmp_path):
    r = Engine()
    fill(r)
    path = tmp_path / "engine.snap"
    assert r.save(path) is True
    again = Engine()
    assert again.load(path) == len(r.keys())
    assert dump(again) == dump(r)
    assert 3_500_000 < again.pttl("ttl") <= 3_600_000
    assert again.pfcount("hll") == r.pfcount("hll")
    # The loaded keyspace is live: the compiled fast paths see it too.
    assert again.zincrby("big", 1, "m1") == r.zincrby("big", 1, "m1")
    assert again.zrevrank("big", "m1") == r.zrevrank("big", "m1")


def test_load_replaces_the_whole_keyspace(tmp_path):
    r = Engine()
    r.set("kept", 1)
    r.save(tmp_path / "a.snap")
    r.set("later", 2)
    r.delete("kept")
    assert r.load(tmp_path / "a.snap") == 1
    assert r.keys() == [b"kept"]


def test_save_without_a_path_reuses_the_last_one(tmp_path):
    r = Engine()
    with pytest.raises(ValueError, match="needs a path"):
        r.save()
    r.set("k", 1)
    r.save(tmp_path / "x.snap")
    r.set("k", 2)
    r.save()
    fresh = Engine()
    fresh.load(tmp_path / "x.snap")
    assert fresh.get("k") == b"2"


def _good_file(tmp_path):
    r = Engine()
    fill(r)
    path = tmp_path / "good.snap"
    r.save(path)
    return path, path.read_bytes()


def test_every_truncation_is_refused_and_loads_nothing(tmp_path):
    path, raw = _good_file(tmp_path)
    r = Engine()
    r.set("mine", "stays")
    before = dump(r)
    cuts = sorted(set(range(0, 64)) | set(range(0, len(raw), max(1, len(raw) // 300))))
    for cut in cuts:
        path.write_bytes(raw[:cut])
        with pytest.raises(SnapshotError):
            r.load(path)
        assert dump(r) == before


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
    r = Engine()
    r.set("mine", "stays")
    with pytest.raises(SnapshotError):
        r.load(path)
    assert r.keys() == [b"mine"]


def test_other_files_and_versions_are_refused_by_name(tmp_path):
    path, raw = _good_file(tmp_path)
    r = Engine()
    path.write_bytes(b"REDIS0009" + raw[9:])
    with pytest.raises(SnapshotError, match="bad magic"):
        r.load(path)
    future = bytearray(raw)
    future[6] = 2
    path.write_bytes(bytes(future))
    with pytest.raises(SnapshotError, match="version 2"):
        r.load(path)
    with pytest.raises(FileNotFoundError):
        r.load(tmp_path / "missing.snap")
    assert r.keys() == []


def test_a_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path, raw = _good_file(tmp_path)
    r = Engine()
    r.set("new", "value")

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        r.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == raw
    assert sorted(os.listdir(tmp_path)) == ["good.snap"]
    assert r.get("new") == b"value"


def test_a_value_a_snapshot_cannot_hold_is_refused_before_the_file_changes(tmp_path):
    path, raw = _good_file(tmp_path)
    r = Engine()
    r.set("a", 1)
    r._data[b"odd"] = object()  # no command makes such a value; the check is the writer's
    with pytest.raises(TypeError, match="cannot hold"):
        r.save(path)
    assert path.read_bytes() == raw
    assert sorted(os.listdir(tmp_path)) == ["good.snap"]


def test_load_fails_a_watching_transaction(tmp_path):
    r = Engine()
    r.set("k", 1)
    r.save(tmp_path / "s.snap")
    pipe = r.pipeline()
    pipe.watch("k")
    r.load(tmp_path / "s.snap")
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
    r = Engine()
    for k, v in strings.items():
        r.set(b"s:" + k, v)
    for k, z in zsets.items():
        r.zadd(b"z:" + k, z)
    for k, h in hashes.items():
        r.hset(b"h:" + k, mapping=h)
    for k, s in sets.items():
        r.sadd(b"t:" + k, *s)
    path = tmp_path_factory.mktemp("snap") / "r.snap"
    r.save(path)
    again = Engine()
    again.load(path)
    assert dump(again) == dump(r)


def test_docstring_example():
    import doctest

    import fastrank.engine

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(fastrank.engine.Engine.save, "save", globs={"Engine": Engine}):
        runner.run(test)
    assert runner.tries >= 2 and runner.failures == 0
