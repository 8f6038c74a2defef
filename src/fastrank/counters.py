"""Counters that merge: the state-based G-Counter and PN-Counter CRDTs.

A ``GCounter`` is one replica of a grow-only counter: a map node id → how
much that node has counted. A replica only ever raises its own entry
(``increment``); two replicas combine by taking, per node, the larger entry
(``merge``). That merge is commutative, associative and idempotent, so
replicas that exchange their states in any order, any number of times, end
with the same value: the sum of the entries.

A ``PNCounter`` is two G-Counters, one for increments (P) and one for
decrements (N); its value is P − N and it merges per part.

States travel as bytes (``to_bytes`` / ``from_bytes``)::

    magic     4 bytes   b"FRGC" (GCounter) or b"FRPN" (PNCounter)
    version   1 byte    1
    node id   u16 length, UTF-8 bytes (the replica that wrote the state)
    parts     one map for a GCounter, two (P then N) for a PNCounter:
              u32 entry count, then per entry: u16 length, UTF-8 node id,
              u64 count (big-endian, sorted by node id)
    crc32     4 bytes, big-endian, of everything before it

Anything else (another magic or version, a short or long buffer, a bad
checksum, an id that is not UTF-8, a repeated id) raises ``ValueError`` and
builds nothing.
"""
from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping

__all__ = ["GCounter", "PNCounter"]

_VERSION = 1
_MAX_COUNT = (1 << 64) - 1
_MAX_ID_BYTES = 0xFFFF


def _check_node_id(node_id: object) -> str:
    if type(node_id) is not str:
        raise TypeError(f"node_id must be a str, not {type(node_id).__name__}")
    if len(node_id.encode()) > _MAX_ID_BYTES:
        raise ValueError("node_id is longer than 65535 UTF-8 bytes")
    return node_id


def _check_amount(n: object) -> int:
    if type(n) is not int:
        raise TypeError(f"the amount must be an int, not {type(n).__name__}")
    if n <= 0:
        raise ValueError(f"the amount must be positive, got {n}")
    return n


def _raised(counts: dict[str, int], node_id: str, n: int) -> int:
    """The entry of node_id after adding n; ValueError past 64 bits."""
    total = counts.get(node_id, 0) + _check_amount(n)
    if total > _MAX_COUNT:
        raise ValueError("the counter would exceed 2**64 - 1")
    return total


def _max_merge(mine: dict[str, int], theirs: Mapping[str, int]) -> None:
    for node, count in theirs.items():
        if count > mine.get(node, 0):
            mine[node] = count


def _nonzero(counts: Mapping[str, int]) -> dict[str, int]:
    """The entries that count (a state read from bytes may list zeros)."""
    return {node: count for node, count in counts.items() if count}


def _pack_id(node_id: str) -> bytes:
    raw = node_id.encode()
    return struct.pack(">H", len(raw)) + raw


def _pack_counts(counts: Mapping[str, int]) -> bytes:
    parts = [struct.pack(">I", len(counts))]
    for node in sorted(counts):
        parts.append(_pack_id(node) + struct.pack(">Q", counts[node]))
    return b"".join(parts)


class _Reader:
    """Reads the state format, raising ValueError on any defect."""

    def __init__(self, data: object, magic: bytes, kind: str) -> None:
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"{kind}.from_bytes takes bytes, not {type(data).__name__}")
        raw = bytes(data)
        if len(raw) < 4 + 1 + 2 + 4 or raw[:4] != magic:
            raise ValueError(f"not a {kind} state (bad magic or too short)")
        if raw[4] != _VERSION:
            raise ValueError(f"unsupported {kind} state version {raw[4]}")
        body, crc = raw[:-4], raw[-4:]
        if struct.unpack(">I", crc)[0] != zlib.crc32(body):
            raise ValueError(f"corrupt {kind} state (checksum mismatch)")
        self.buf = body
        self.pos = 5
        self.kind = kind

    def take(self, size: int) -> bytes:
        end = self.pos + size
        if end > len(self.buf):
            raise ValueError(f"truncated {self.kind} state")
        out = self.buf[self.pos:end]
        self.pos = end
        return out

    def node_id(self) -> str:
        (size,) = struct.unpack(">H", self.take(2))
        try:
            return self.take(size).decode()
        except UnicodeDecodeError:
            raise ValueError(f"corrupt {self.kind} state (node id is not UTF-8)") from None

    def counts(self) -> dict[str, int]:
        (entries,) = struct.unpack(">I", self.take(4))
        counts: dict[str, int] = {}
        for _ in range(entries):
            node = self.node_id()
            (count,) = struct.unpack(">Q", self.take(8))
            if node in counts:
                raise ValueError(f"corrupt {self.kind} state (node {node!r} appears twice)")
            counts[node] = count
        return counts

    def end(self) -> None:
        if self.pos != len(self.buf):
            raise ValueError(f"corrupt {self.kind} state ({len(self.buf) - self.pos} extra bytes)")


def _sealed(body: bytes) -> bytes:
    return body + struct.pack(">I", zlib.crc32(body))


class GCounter:
    """One replica of a grow-only counter.

    >>> a, b = GCounter("eu"), GCounter("us")
    >>> a.increment(3); b.increment(2); b.increment(1)
    >>> a.merge(b); a.value
    6
    >>> GCounter.from_bytes(a.to_bytes()) == a
    True
    """

    __slots__ = ("_counts", "node_id")

    def __init__(self, node_id: str) -> None:
        self.node_id = _check_node_id(node_id)
        self._counts: dict[str, int] = {}

    def increment(self, n: int = 1) -> None:
        """Count n (an int ≥ 1) on this replica's own entry. O(1)."""
        self._counts[self.node_id] = _raised(self._counts, self.node_id, n)

    @property
    def value(self) -> int:
        """The sum over every node's entry. O(nodes)."""
        return sum(self._counts.values())

    @property
    def counts(self) -> dict[str, int]:
        """A copy of the per-node entries."""
        return dict(self._counts)

    def merge(self, other: GCounter) -> None:
        """Take, node by node, the larger entry of self and other. O(nodes)."""
        if type(other) is not GCounter:
            raise TypeError(f"a GCounter merges with a GCounter, not {type(other).__name__}")
        _max_merge(self._counts, other._counts)

    def to_bytes(self) -> bytes:
        """The versioned, checksummed state (module docstring)."""
        return _sealed(b"FRGC" + bytes([_VERSION]) + _pack_id(self.node_id)
                       + _pack_counts(self._counts))

    @classmethod
    def from_bytes(cls, data: bytes) -> GCounter:
        """A replica from ``to_bytes`` output; ValueError if it is not one."""
        reader = _Reader(data, b"FRGC", "GCounter")
        counter = cls(reader.node_id())
        counter._counts = reader.counts()
        reader.end()
        return counter

    def __eq__(self, other: object) -> bool:
        if type(other) is not GCounter:
            return NotImplemented
        return self.node_id == other.node_id and _nonzero(self._counts) == _nonzero(other._counts)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GCounter({self.node_id!r}, value={self.value})"


class PNCounter:
    """One replica of a counter that goes up and down: a G-Counter for each way.

    >>> a, b = PNCounter("eu"), PNCounter("us")
    >>> a.increment(5); b.decrement(2)
    >>> b.merge(a); a.merge(b); (a.value, b.value)
    (3, 3)
    """

    __slots__ = ("_n", "_p", "node_id")

    def __init__(self, node_id: str) -> None:
        self.node_id = _check_node_id(node_id)
        self._p: dict[str, int] = {}
        self._n: dict[str, int] = {}

    def increment(self, n: int = 1) -> None:
        """Add n (an int ≥ 1). O(1)."""
        self._p[self.node_id] = _raised(self._p, self.node_id, n)

    def decrement(self, n: int = 1) -> None:
        """Subtract n (an int ≥ 1). O(1)."""
        self._n[self.node_id] = _raised(self._n, self.node_id, n)

    @property
    def value(self) -> int:
        """Increments minus decrements over every node. O(nodes)."""
        return sum(self._p.values()) - sum(self._n.values())

    @property
    def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        """Copies of the (increments, decrements) entries per node."""
        return dict(self._p), dict(self._n)

    def merge(self, other: PNCounter) -> None:
        """Merge each part by per-node maximum. O(nodes)."""
        if type(other) is not PNCounter:
            raise TypeError(f"a PNCounter merges with a PNCounter, not {type(other).__name__}")
        _max_merge(self._p, other._p)
        _max_merge(self._n, other._n)

    def to_bytes(self) -> bytes:
        """The versioned, checksummed state (module docstring)."""
        return _sealed(b"FRPN" + bytes([_VERSION]) + _pack_id(self.node_id)
                       + _pack_counts(self._p) + _pack_counts(self._n))

    @classmethod
    def from_bytes(cls, data: bytes) -> PNCounter:
        """A replica from ``to_bytes`` output; ValueError if it is not one."""
        reader = _Reader(data, b"FRPN", "PNCounter")
        counter = cls(reader.node_id())
        counter._p = reader.counts()
        counter._n = reader.counts()
        reader.end()
        return counter

    def __eq__(self, other: object) -> bool:
        if type(other) is not PNCounter:
            return NotImplemented
        return (self.node_id == other.node_id and _nonzero(self._p) == _nonzero(other._p)
                and _nonzero(self._n) == _nonzero(other._n))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PNCounter({self.node_id!r}, value={self.value})"
