"""Engine snapshots: the whole keyspace in one versioned, checksummed file.

A snapshot is a fast restart for the embedded engine, not a record of truth
(that is the score service's store). ``write_snapshot`` writes to a temporary
file next to the target, fsyncs it, renames it over the target and fsyncs the
directory, so a crash leaves either the old file or the new one, never a mix.
``read_snapshot`` checks the whole file before it builds anything: a file that
is truncated, altered or of another version raises ``SnapshotError`` (a
``ValueError``) and nothing is loaded.

What a file may be trusted for: the CRC-32 catches accidents (a torn write,
a flipped bit), not intent, since anyone can recompute it. Every record is
still checked against what an Engine can hold (no empty sorted set, hash,
set or list; no listpack-tagged zset past a listpack's limits; no key twice),
so a crafted file cannot load a keyspace the commands would trip over, but
without a key it can load any *well-formed* keyspace its author likes. Saved
with a ``key``, the file carries an HMAC-SHA256 of everything before it
(flag bit 0) and loads only with the same key: a file nobody holding the key
wrote is refused before a byte of it is parsed. A key that loads a file
vouches only for who wrote it; the file is not encrypted.

Layout (integers little-endian)::

    header   b"FRSNAP" + u16 version (1) + u16 flags (0, or 1: authenticated)
    record   u8 type tag, u32 key length + key, i64 deadline in ms since the
             epoch (-1: no TTL), u64 payload length + payload
    ...      one record per live key
    end      u8 tag 0, u64 number of records, u32 CRC-32 of every byte before it
    [tag]    with flag 1: the 32-byte HMAC-SHA256, under the key, of every
             byte before it

Payloads by tag (lists of byte strings are packed as a u64 count, a u32
length per item, then the items back to back):

    1 string              the bytes
    2 zset (listpack)     u64 n, n f64 scores, then the n members packed
    3 zset (skip list)    the same; the tag keeps Redis's encoding choice
    4 hash                the fields packed, then the values packed
    5 set                 the members packed
    6 Count-Min Sketch    CountMinSketch.to_bytes()
    7 Top-K               TopK.to_bytes()
    8 list                the elements packed, head first
"""
from __future__ import annotations

import hashlib
import hmac
import os
import struct
import tempfile
import zlib
from collections import deque
from typing import Any, BinaryIO, Callable, Iterable

import numpy as np

from fastrank._core import CountMinSketch, SortedSet, TopK
from fastrank.engine.keyspace import LISTPACK_ENTRIES, LISTPACK_VALUE, ListpackZSet

__all__ = ["SnapshotError", "check_key", "read_snapshot", "write_snapshot"]

MAGIC = b"FRSNAP"
VERSION = 1
_HEADER = struct.Struct("<6sHH")
_RECORD = struct.Struct("<BI")
_DEADLINE_LEN = struct.Struct("<qQ")
_END = struct.Struct("<BQ")
_CRC = struct.Struct("<I")
#: flag bit 0: an HMAC-SHA256 of the file follows the CRC
AUTHENTICATED = 1
_TAG_SIZE = hashlib.sha256().digest_size
#: the record tags of containers, which an Engine never holds empty
_CONTAINERS = {2: "zset", 3: "zset", 4: "hash", 5: "set", 8: "list"}

Keyspace = dict[bytes, Any]


class SnapshotError(ValueError):
    """The file is not a complete, intact fastrank snapshot of a known version."""


# -- packing ---------------------------------------------------------------------


def _pack_items(items: list[bytes]) -> bytes:
    lengths = np.fromiter(map(len, items), dtype="<u4", count=len(items))
    return struct.pack("<Q", len(items)) + lengths.tobytes() + b"".join(items)


def _pack_zset(z: SortedSet) -> bytes:
    pairs = z.items()
    members = [m for m, _ in pairs]
    scores = np.fromiter((s for _, s in pairs), dtype="<f8", count=len(pairs))
    return struct.pack("<Q", len(pairs)) + scores.tobytes() + _pack_items(members)


def _pack_hash(h: dict[bytes, bytes]) -> bytes:
    return _pack_items(list(h)) + _pack_items(list(h.values()))


_PACKERS: dict[type, tuple[int, Callable[[Any], bytes]]] = {
    bytes: (1, bytes),
    ListpackZSet: (2, _pack_zset),
    SortedSet: (3, _pack_zset),
    dict: (4, _pack_hash),
    set: (5, lambda s: _pack_items(list(s))),
    CountMinSketch: (6, lambda c: c.to_bytes()),
    TopK: (7, lambda t: t.to_bytes()),
    deque: (8, lambda d: _pack_items(list(d))),
}


class _CrcWriter:
    """Writes through to a file and keeps the CRC-32 (and, given a key, the
    HMAC-SHA256) of what it wrote."""

    def __init__(self, f: BinaryIO, key: bytes | None = None) -> None:
        self.f = f
        self.crc = 0
        self.mac = None if key is None else hmac.new(key, digestmod=hashlib.sha256)

    def write(self, data: bytes) -> None:
        self.crc = zlib.crc32(data, self.crc)
        if self.mac is not None:
            self.mac.update(data)
        self.f.write(data)


def check_key(key: Any) -> bytes | None:
    """A snapshot key as bytes (None: no key); TypeError / ValueError otherwise."""
    if key is None:
        return None
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"a snapshot key must be bytes, not {type(key).__name__}")
    secret = bytes(key)
    if not secret:
        raise ValueError("a snapshot key must be non-empty bytes")
    return secret


def write_snapshot(path: str | os.PathLike[str], records: Iterable[tuple[bytes, Any, int]],
                   key: bytes | None = None) -> int:
    """Write (key, value, deadline or -1) records to path, atomically; the record count.

    With ``key`` (bytes) the file is authenticated: an HMAC-SHA256 under it
    follows the CRC, and :func:`read_snapshot` loads it only with that key.

    :raises TypeError: a value of a type snapshots do not know, or a key that
        is not bytes (nothing is written).
    :raises ValueError: an empty key (nothing is written).
    """
    secret = check_key(key)
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".fastrank-snapshot-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            out = _CrcWriter(f, secret)
            out.write(_HEADER.pack(MAGIC, VERSION, 0 if secret is None else AUTHENTICATED))
            count = 0
            for key, value, deadline in records:
                packer = _PACKERS.get(type(value))
                if packer is None:
                    raise TypeError(f"a snapshot cannot hold a {type(value).__name__} value "
                                    f"(key {key!r})")
                tag, pack = packer
                payload = pack(value)
                out.write(_RECORD.pack(tag, len(key)) + key
                          + _DEADLINE_LEN.pack(deadline, len(payload)))
                out.write(payload)
                count += 1
            out.write(_END.pack(0, count))
            out.write(_CRC.pack(out.crc))  # (the CRC covers what precedes it; the HMAC covers it too)
            if out.mac is not None:
                f.write(out.mac.digest())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(folder)
    return count


def _fsync_dir(folder: str) -> None:
    """Make the rename durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


# -- reading ---------------------------------------------------------------------


class _Reader:
    def __init__(self, buf: memoryview) -> None:
        self.buf = buf
        self.pos = 0

    def take(self, size: int) -> memoryview:
        end = self.pos + size
        if size < 0 or end > len(self.buf):
            raise SnapshotError("corrupt snapshot: a length runs past the end of the file")
        out = self.buf[self.pos:end]
        self.pos = end
        return out

    def peek(self) -> int:
        if self.pos >= len(self.buf):
            raise SnapshotError("corrupt snapshot: it ends before its end record")
        return int(self.buf[self.pos])

    def unpack(self, fmt: struct.Struct) -> tuple[Any, ...]:
        return fmt.unpack(self.take(fmt.size))

    def items(self) -> list[bytes]:
        (n,) = self.unpack(struct.Struct("<Q"))
        if n * 4 > len(self.buf) - self.pos:
            raise SnapshotError("corrupt snapshot: an item count runs past the end of the file")
        lengths = np.frombuffer(self.take(4 * n), dtype="<u4").tolist()
        blob = bytes(self.take(sum(lengths)))
        out: list[bytes] = []
        at = 0
        for size in lengths:
            out.append(blob[at:at + size])
            at += size
        return out

    def done(self) -> None:
        if self.pos != len(self.buf):
            raise SnapshotError("corrupt snapshot: a payload is longer than its value")


def _read_zset(kind: type) -> Callable[[_Reader], SortedSet]:
    listpack = kind is ListpackZSet

    def read(r: _Reader) -> SortedSet:
        (n,) = r.unpack(struct.Struct("<Q"))
        if n * 8 > len(r.buf) - r.pos:
            raise SnapshotError("corrupt snapshot: a zset size runs past the end of the file")
        if listpack and n > LISTPACK_ENTRIES:  # Redis converts a listpack past these to a skip list
            raise SnapshotError(f"corrupt snapshot: a listpack zset holds at most {LISTPACK_ENTRIES} "
                                f"members, not {n}")
        scores = np.frombuffer(r.take(8 * n), dtype="<f8").astype(np.float64)
        members = r.items()
        if listpack and any(len(m) > LISTPACK_VALUE for m in members):
            raise SnapshotError(f"corrupt snapshot: a listpack zset's members are at most "
                                f"{LISTPACK_VALUE} bytes")
        if len(members) != n or np.isnan(scores).any():
            raise SnapshotError("corrupt snapshot: a zset's members and scores disagree")
        z: SortedSet = kind()
        if members:
            z.add_many(members, scores)
        if len(z) != n:
            raise SnapshotError("corrupt snapshot: a zset lists a member twice")
        return z
    return read


def _read_hash(r: _Reader) -> dict[bytes, bytes]:
    fields, values = r.items(), r.items()
    if len(fields) != len(values) or len(set(fields)) != len(fields):
        raise SnapshotError("corrupt snapshot: a hash's fields and values disagree")
    return dict(zip(fields, values))


def _read_sketch(kind: Any) -> Callable[[_Reader], Any]:
    def read(r: _Reader) -> Any:
        try:
            return kind.from_bytes(bytes(r.take(len(r.buf))))
        except ValueError as e:
            raise SnapshotError(f"corrupt snapshot: {e}") from None
    return read


_READERS: dict[int, Callable[[_Reader], Any]] = {
    1: lambda r: bytes(r.take(len(r.buf))),
    2: _read_zset(ListpackZSet),
    3: _read_zset(SortedSet),
    4: _read_hash,
    5: lambda r: set(r.items()),
    6: _read_sketch(CountMinSketch),
    7: _read_sketch(TopK),
    8: lambda r: deque(r.items()),
}


def read_snapshot(path: str | os.PathLike[str], key: bytes | None = None) -> tuple[Keyspace, dict[bytes, int]]:
    """The keyspace and the deadlines a snapshot file holds.

    A file saved with a key loads only with the same ``key``, and a ``key``
    refuses a file saved without one; the HMAC is checked before anything is
    parsed. Then every record must be what an Engine holds: no empty
    container, no listpack-tagged zset beyond a listpack's limits.

    :raises SnapshotError: the file is not a complete, intact version-1
        snapshot, or not authenticated by ``key`` as asked.
    :raises OSError: the file cannot be read.
    :raises TypeError, ValueError: ``key`` is not non-empty bytes (checked first).
    """
    secret = check_key(key)
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < _HEADER.size + _END.size + _CRC.size:
        raise SnapshotError("not a fastrank snapshot (file too short)")
    magic, version, flags = _HEADER.unpack_from(raw)
    if magic != MAGIC:
        raise SnapshotError("not a fastrank snapshot (bad magic)")
    if version != VERSION or flags & ~AUTHENTICATED:
        raise SnapshotError(f"unsupported snapshot version {version} (flags {flags})")
    if flags & AUTHENTICATED:
        if secret is None:
            raise SnapshotError("the snapshot was saved with a key: load it with the same key")
        if len(raw) < _HEADER.size + _END.size + _CRC.size + _TAG_SIZE:
            raise SnapshotError("not a fastrank snapshot (file too short)")
        expected = hmac.new(secret, memoryview(raw)[:-_TAG_SIZE], hashlib.sha256).digest()
        if not hmac.compare_digest(expected, raw[-_TAG_SIZE:]):
            raise SnapshotError("snapshot authentication failed: the file was altered, or saved with "
                                "another key")
        raw = raw[:-_TAG_SIZE]
    elif secret is not None:
        raise SnapshotError("the snapshot is not authenticated (saved without a key): refused, "
                            "since a key was given")
    (crc,) = _CRC.unpack_from(raw, len(raw) - _CRC.size)
    if zlib.crc32(memoryview(raw)[:-_CRC.size]) != crc:
        raise SnapshotError("corrupt or truncated snapshot (checksum mismatch)")
    r = _Reader(memoryview(raw)[:-_CRC.size])
    r.pos = _HEADER.size
    data: Keyspace = {}
    expires: dict[bytes, int] = {}
    while True:
        if r.peek() == 0:
            _, count = r.unpack(_END)
            if count != len(data) or r.pos != len(r.buf):
                raise SnapshotError("corrupt snapshot: the record count does not match")
            return data, expires
        tag, key_len = r.unpack(_RECORD)
        key = bytes(r.take(key_len))
        deadline, size = r.unpack(_DEADLINE_LEN)
        reader = _READERS.get(tag)
        if reader is None:
            raise SnapshotError(f"corrupt snapshot: unknown record type {tag}")
        if key in data:
            raise SnapshotError(f"corrupt snapshot: key {key!r} appears twice")
        payload = _Reader(r.take(size))
        value = reader(payload)
        payload.done()
        if tag in _CONTAINERS and not len(value):  # an Engine deletes a container when it empties
            raise SnapshotError(f"corrupt snapshot: the {_CONTAINERS[tag]} at key {key!r} is empty")
        data[key] = value
        if deadline != -1:
            expires[key] = deadline
