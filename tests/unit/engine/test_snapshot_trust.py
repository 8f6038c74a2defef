"""What ``Engine.load`` trusts in a snapshot file.

The CRC-32 only catches accidents: anyone can recompute it. These files are
crafted by hand with a correct CRC (the layout of the snapshot module's
docstring) and hold what no Engine ever saves: empty containers, a
listpack-tagged zset past a listpack's limits. Each is refused with
``SnapshotError`` and the keyspace stays as it was. Files saved with a key
carry an HMAC-SHA256 and load only with the same key.
"""
from __future__ import annotations

import hashlib
import hmac
import struct
import zlib

import pytest

from fastrank import Engine

STRING, LISTPACK, SKIPLIST, HASH, SET, LIST = 1, 2, 3, 4, 5, 8


def items(values):
    return struct.pack("<Q", len(values)) + b"".join(struct.pack("<I", len(v)) for v in values) + b"".join(values)


def zset(pairs):
    return (struct.pack("<Q", len(pairs)) + b"".join(struct.pack("<d", s) for _, s in pairs)
            + items([m for m, _ in pairs]))


def craft(path, records, flags=0, key=None):
    """A snapshot file of (tag, key, payload) records with a correct CRC (and an HMAC with ``key``)."""
    body = b"FRSNAP" + struct.pack("<HH", 1, flags)
    for tag, name, payload in records:
        body += struct.pack("<BI", tag, len(name)) + name + struct.pack("<qQ", -1, len(payload)) + payload
    body += struct.pack("<BQ", 0, len(records))
    body += struct.pack("<I", zlib.crc32(body))
    if key is not None:
        body += hmac.new(key, body, hashlib.sha256).digest()
    path.write_bytes(body)
    return path


def refused(engine, path, match, **kwargs):
    """Load ``path`` expecting a SnapshotError matching ``match``; the keyspace must not change."""
    before = state(engine)
    with pytest.raises(ValueError, match=match) as info:
        engine.load(path, **kwargs)
    assert type(info.value).__name__ == "SnapshotError"
    assert state(engine) == before


def state(engine):
    """The keyspace of the fixture's engines: strings and sorted sets."""
    return {k: engine.get(k) if engine.type(k) == b"string" else engine.zrange(k, 0, -1, withscores=True)
            for k in engine.keys()}


@pytest.fixture
def engine():
    e = Engine()
    e.set("keep", "me")
    e.zadd("board", {"ann": 1})
    return e


def test_a_crafted_file_with_a_good_crc_loads(engine, tmp_path):
    """The writer above is right: a file of sound records loads."""
    path = craft(tmp_path / "ok.snap", [(STRING, b"s", b"v"), (LISTPACK, b"z", zset([(b"a", 1.0)])),
                                        (HASH, b"h", items([b"f"]) + items([b"1"])), (SET, b"set", items([b"x"])),
                                        (LIST, b"l", items([b"a", b"b"]))])
    assert engine.load(path) == 5
    assert engine.get("s") == b"v" and engine.zrange("z", 0, -1) == [b"a"] and engine.lpop("l") == b"a"


@pytest.mark.parametrize("tag, payload, kind", [
    (LISTPACK, zset([]), "zset"),
    (SKIPLIST, zset([]), "zset"),
    (HASH, items([]) + items([]), "hash"),
    (SET, items([]), "set"),
    (LIST, items([]), "list"),
])
def test_empty_containers_are_refused(engine, tmp_path, tag, payload, kind):
    path = craft(tmp_path / "empty.snap", [(STRING, b"fine", b"x"), (tag, b"hollow", payload)])
    refused(engine, path, f"corrupt snapshot: the {kind} at key b'hollow' is empty")


def test_an_empty_string_is_a_value_and_loads(engine, tmp_path):
    path = craft(tmp_path / "s.snap", [(STRING, b"blank", b"")])
    assert engine.load(path) == 1 and engine.get("blank") == b"" and engine.exists("blank") == 1


def test_a_listpack_zset_past_the_entry_limit_is_refused(engine, tmp_path):
    path = craft(tmp_path / "lp.snap", [(LISTPACK, b"huge", zset([(b"m%d" % i, float(i)) for i in range(60_000)]))])
    refused(engine, path, "a listpack zset holds at most 128 members, not 60000")
    path = craft(tmp_path / "lp129.snap", [(LISTPACK, b"z", zset([(b"m%d" % i, float(i)) for i in range(129)]))])
    refused(engine, path, "at most 128 members, not 129")
    # the same members in a skip list are fine, and so are 128 in a listpack
    path = craft(tmp_path / "sl.snap", [(SKIPLIST, b"huge", zset([(b"m%d" % i, float(i)) for i in range(60_000)])),
                                        (LISTPACK, b"z", zset([(b"m%d" % i, float(i)) for i in range(128)]))])
    assert engine.load(path) == 2 and engine.zcard("huge") == 60_000 and engine.zcard("z") == 128


def test_a_listpack_zset_with_a_long_member_is_refused(engine, tmp_path):
    path = craft(tmp_path / "long.snap", [(LISTPACK, b"z", zset([(b"a", 1.0), (b"x" * 65, 2.0)]))])
    refused(engine, path, "a listpack zset's members are at most 64 bytes")
    path = craft(tmp_path / "64.snap", [(LISTPACK, b"z", zset([(b"x" * 64, 2.0)]))])
    assert engine.load(path) == 1


def test_what_a_crafted_empty_container_would_have_broken_stays_unbroken(engine, tmp_path):
    """Refused, so LPOP / ZRANDMEMBER / ZMPOP keep answering from the old keyspace."""
    path = craft(tmp_path / "empty.snap", [(LIST, b"l", items([])), (SKIPLIST, b"board", zset([]))])
    refused(engine, path, "is empty")
    assert engine.lpop("l") is None
    assert engine.zrandmember("board", -2) == [b"ann", b"ann"]
    assert engine.zmpop(1, ["board"], min=True)[0] == b"board"
    assert engine.dbsize() == 1


# -- authentication --------------------------------------------------------------------


def test_a_file_saved_with_a_key_loads_only_with_that_key(engine, tmp_path):
    path = tmp_path / "signed.snap"
    assert engine.save(path, key=b"s3cret")
    other = Engine()
    other.set("mine", "1")
    refused(other, path, "saved with a key: load it with the same key")
    refused(other, path, "authentication failed", key=b"another")
    refused(other, path, "authentication failed", key=b"s3cre")
    assert other.load(path, key=b"s3cret") == 2
    assert other.get("keep") == b"me" and other.zscore("board", "ann") == 1.0


def test_a_key_refuses_a_file_saved_without_one(engine, tmp_path):
    path = tmp_path / "plain.snap"
    engine.save(path)
    refused(Engine(), path, "not authenticated", key=b"s3cret")
    assert Engine().load(path) == 2


def test_a_signed_file_altered_with_a_fresh_crc_is_refused(engine, tmp_path):
    path = tmp_path / "signed.snap"
    engine.save(path, key=b"k")
    raw = bytearray(path.read_bytes())
    body, tag = raw[:-36], raw[-32:]
    spot = bytes(body).index(b"me")
    body[spot:spot + 2] = b"ME"                           # change the value, recompute the CRC
    forged = bytes(body) + struct.pack("<I", zlib.crc32(bytes(body))) + bytes(tag)
    path.write_bytes(forged)
    refused(Engine(), path, "authentication failed", key=b"k")
    # a whole file crafted without the key: a valid CRC, an HMAC of another key
    craft(path, [(STRING, b"keep", b"ME")], flags=1, key=b"guess")
    refused(Engine(), path, "authentication failed", key=b"k")
    craft(path, [(STRING, b"keep", b"ME")], flags=1, key=b"k")   # with the key it is genuine
    assert Engine().load(path, key=b"k") == 1


def test_the_authentication_tag_is_checked_before_anything_is_parsed(engine, tmp_path):
    """A signed file whose records are nonsense but whose tag is wrong says so, not 'corrupt'."""
    path = craft(tmp_path / "bad.snap", [(LISTPACK, b"z", zset([]))], flags=1, key=b"x")
    refused(Engine(), path, "authentication failed", key=b"y")
    refused(Engine(), path, "is empty", key=b"x")


@pytest.mark.parametrize("key, error", [("text", TypeError), (b"", ValueError), (7, TypeError)])
def test_bad_keys_are_refused_before_any_file_is_touched(engine, tmp_path, key, error):
    path = tmp_path / "never.snap"
    with pytest.raises(error, match="snapshot key must be"):
        engine.save(path, key=key)
    assert not path.exists() and not list(tmp_path.iterdir())
    engine.save(path)
    with pytest.raises(error, match="snapshot key must be"):
        engine.load(path, key=key)
