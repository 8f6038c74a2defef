"""Counters: sharded counters on a server, and counters that merge (CRDTs).

``ShardedCounter`` spreads one hot counter over N keys whose hash tags put
them on different Redis Cluster slots: each increment goes to one shard
chosen at random, a read sums the shards in one round trip, and ``rollup``
caches the total under a key of its own for readers that can accept a few
seconds of staleness.

The rest of this module is the state-based G-Counter and PN-Counter CRDTs,
kept in memory (``GCounter``, ``PNCounter``) or on a server
(``GCounterReplica``, ``PNCounterReplica``: one hash field per node, merged
by a Lua script so a merge is atomic).

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

import functools
import math
import random
import struct
import zlib
from collections.abc import Mapping
from datetime import timedelta
from importlib import resources
from typing import Any

from fastrank.errors import BoardConfigMismatch
from fastrank.runner import Call, Run, Script, Steps, SyncFace, checked_client, run, twin

__all__ = ["GCounter", "GCounterReplica", "PNCounter", "PNCounterReplica", "ShardedCounter"]

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


def _checked_counts(counts: Mapping[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for node, count in counts.items():
        _check_node_id(node)
        if type(count) is not int or not 0 <= count <= _MAX_COUNT:
            raise ValueError(f"the count of {node!r} must be an int in [0, 2**64 - 1], got {count!r}")
        out[node] = count
    return out


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
    >>> a.merge(b); a.value()
    6
    >>> GCounter.from_bytes(a.to_bytes()) == a
    True
    """

    __slots__ = ("_counts", "node_id")

    def __init__(self, node_id: str) -> None:
        self.node_id = _check_node_id(node_id)
        self._counts: dict[str, int] = {}

    @classmethod
    def from_counts(cls, node_id: str, counts: Mapping[str, int]) -> GCounter:
        """A replica for node_id holding the given per-node entries."""
        counter = cls(node_id)
        counter._counts = _checked_counts(counts)
        return counter

    def increment(self, n: int = 1) -> None:
        """Count n (an int ≥ 1) on this replica's own entry. O(1)."""
        self._counts[self.node_id] = _raised(self._counts, self.node_id, n)

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
        return f"GCounter({self.node_id!r}, value={self.value()})"


class PNCounter:
    """One replica of a counter that goes up and down: a G-Counter for each way.

    >>> a, b = PNCounter("eu"), PNCounter("us")
    >>> a.increment(5); b.decrement(2)
    >>> b.merge(a); a.merge(b); (a.value(), b.value())
    (3, 3)
    """

    __slots__ = ("_n", "_p", "node_id")

    def __init__(self, node_id: str) -> None:
        self.node_id = _check_node_id(node_id)
        self._p: dict[str, int] = {}
        self._n: dict[str, int] = {}

    @classmethod
    def from_counts(cls, node_id: str, increments: Mapping[str, int],
                    decrements: Mapping[str, int]) -> PNCounter:
        """A replica for node_id holding the given per-node entries of each half."""
        counter = cls(node_id)
        counter._p = _checked_counts(increments)
        counter._n = _checked_counts(decrements)
        return counter

    def increment(self, n: int = 1) -> None:
        """Add n (an int ≥ 1). O(1)."""
        self._p[self.node_id] = _raised(self._p, self.node_id, n)

    def decrement(self, n: int = 1) -> None:
        """Subtract n (an int ≥ 1). O(1)."""
        self._n[self.node_id] = _raised(self._n, self.node_id, n)

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
        return f"PNCounter({self.node_id!r}, value={self.value()})"


# -- on a server ------------------------------------------------------------------------

_SERVER_MAX = (1 << 63) - 1  # a server's integers are signed 64-bit


def _check_key(key: object) -> str:
    if type(key) is not str:
        raise TypeError(f"the key must be a str, not {type(key).__name__}")
    if not key or "{" in key or "}" in key:
        raise ValueError(f"the key must be non-empty and without braces (the counter picks "
                         f"its keys' hash tags), got {key!r}")
    return key


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


@functools.lru_cache(maxsize=None)
def _merge_script() -> Script:
    source = resources.files("fastrank.counters").joinpath("scripts", "counter_merge.lua")
    return Script("counter_merge", source.read_text(encoding="utf-8"))


def _counter_script(name: str) -> Script:
    source = resources.files("fastrank.counters").joinpath("scripts", f"{name}.lua").read_text(encoding="utf-8")
    return Script(name, source)


_DESCRIBE = _counter_script("counter_describe")
_RESIZE = _counter_script("counter_resize")


def _texts(reply: Any) -> dict[str, str]:
    items = [x.decode() if isinstance(x, bytes) else str(x) for x in reply]
    return dict(zip(items[0::2], items[1::2]))


class ShardedCounterPlans:
    """What :class:`ShardedCounter` (sync) and ``fastrank.asyncio.ShardedCounter``
    send; see the module docstring.

    The counter stores its shard count under its own hash tag
    (``{<key>}:shards``, a hash written once by a script): ``shards``, the
    keys ``incr`` spreads over, and ``high``, every shard key it ever had,
    which ``value`` sums (so a ``resize`` down loses nothing, and a process
    given another count never reads a partial total). ``ShardedCounter(client,
    key)`` opens a counter with its stored count; a count given that differs
    raises :class:`fastrank.BoardConfigMismatch`."""

    def __init__(self, client: Any, key: str, shards: int | None = None) -> None:
        self._client = checked_client(self, client)
        self.key = _check_key(key)
        if shards is not None and (type(shards) is not int or shards < 1):
            raise ValueError(f"shards must be an int >= 1, got {shards!r}")
        #: the count given (None: the stored one, 8 on a new counter), checked when the counter opens
        self._given_shards = shards
        #: where the counter's shard count is stored
        self.descriptor_key = f"{{{key}}}:shards"
        #: where ``rollup`` caches the total
        self.total_key = f"{{{key}}}:total"
        self._opened = False
        self._layout(shards or 8, shards or 8)
        self._made()

    def _made(self) -> None:
        """Called at the end of construction: the sync face opens the counter here."""

    def _layout(self, shards: int, high: int) -> None:
        self.shards = shards
        #: how many shard keys the counter ever had (``value`` sums them all)
        self.high = max(shards, high)
        #: one key per shard, each its own hash tag (so its own cluster slot)
        self.shard_keys = [f"{{{self.key}:{i}}}" for i in range(self.high)]

    def _take(self, reply: Any) -> None:
        stored = _texts(reply)
        shards, high = int(stored["shards"]), int(stored["high"])
        if self._given_shards is not None and self._given_shards != shards:
            raise BoardConfigMismatch("sharded counter", self.key, "shards", shards, self._given_shards)
        self._given_shards = None  # checked once: a resize may move it later
        self._layout(shards, high)
        self._opened = True

    def _plan_open(self) -> Steps[None]:
        """Read the stored shard count (writing it if the counter is new);
        BoardConfigMismatch if the count given differs."""
        reply = yield Run(_DESCRIBE, (self.descriptor_key,),
                          ("schema", "1", "kind", "counter", "shards", str(self.shards), "high", str(self.high)))
        self._take(reply)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r}, shards={self.shards})"

    @staticmethod
    def shards_for(peak_qps: float, per_shard_qps: float, headroom: float = 2.0) -> int:
        """How many shards a peak rate needs: ceil(peak / per shard) × headroom, rounded up.

        >>> ShardedCounter.shards_for(500_000, 80_000)
        14
        """
        for name, value in (("peak_qps", peak_qps), ("per_shard_qps", per_shard_qps),
                            ("headroom", headroom)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
        return max(1, math.ceil(math.ceil(peak_qps / per_shard_qps) * headroom))

    def _plan_incr(self, n: int = 1) -> Steps[int]:
        """Add n (an int ≥ 1) to one shard picked at random; that shard's new
        value (not the total: reading that costs every shard). One command."""
        shard = yield Call("incrby", (self.shard_keys[random.randrange(self.shards)], _check_amount(n)))
        return int(shard)

    def _plan_decr(self, n: int = 1) -> Steps[int]:
        """Take n (an int ≥ 1) off one shard picked at random; that shard's new
        value. One command."""
        shard = yield Call("decrby", (self.shard_keys[random.randrange(self.shards)], _check_amount(n)))
        return int(shard)

    def _plan_value(self) -> Steps[int]:
        """The exact total: every shard key the counter ever had, read in one
        round trip (a pipeline) with its stored count, summed; read again if
        another process resized it meanwhile."""
        while True:
            replies = yield [Call("hget", (self.descriptor_key, "high")), *(Call("get", (k,)) for k in self.shard_keys)]
            high = int(replies[0] or 0)
            if high <= self.high:
                return sum(int(v) for v in replies[1:] if v is not None)
            self._opened = False
            yield from self._plan_open()

    def _plan_resize(self, shards: int) -> Steps[int]:
        """Spread increments over ``shards`` keys from now on (for every process:
        the count is stored); the total. Growing adds keys; shrinking leaves
        the keys above in place, still summed by :meth:`value`, so nothing
        counted is lost. One script and one read."""
        if type(shards) is not int or shards < 1:
            raise ValueError(f"shards must be an int >= 1, got {shards!r}")
        if not self._opened:
            yield from self._plan_open()
        reply = yield Run(_RESIZE, (self.descriptor_key,), (str(shards),))
        self._take(reply)
        total = yield from self._plan_value()
        return total

    def _plan_rollup(self, ttl: int | timedelta = 5) -> Steps[int]:
        """Sum the shards and cache the total for ``ttl`` (seconds or a timedelta); the total."""
        seconds = ttl.total_seconds() if isinstance(ttl, timedelta) else ttl
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0:
            raise ValueError(f"ttl must be > 0 seconds, got {ttl!r}")
        total = yield from self._plan_value()
        yield Call("set", (self.total_key, total), {"px": max(1, int(seconds * 1000))})
        return total

    def _plan_cached_value(self) -> Steps[int | None]:
        """The total the last ``rollup`` cached, or None once it has expired. One command."""
        cached = yield Call("get", (self.total_key,))
        return None if cached is None else int(cached)

    # the methods of both faces (fastrank.ShardedCounter, fastrank.asyncio.ShardedCounter: runner.twin)
    incr = twin(_plan_incr, opens=True)
    decr = twin(_plan_decr, opens=True)
    value = twin(_plan_value, opens=True)
    resize = twin(_plan_resize, opens=True)
    rollup = twin(_plan_rollup, opens=True)
    cached_value = twin(_plan_cached_value)


class ShardedCounter(SyncFace, ShardedCounterPlans):
    """A hot counter split over ``shards`` keys on different cluster slots.

    >>> import fastrank
    >>> likes = ShardedCounter(fastrank.Engine(), "likes:post:7", shards=4)
    >>> for _ in range(10): _ = likes.incr()
    >>> likes.value(), likes.rollup(ttl=5), likes.cached_value()
    (10, 10, 10)
    """


    def _made(self) -> None:
        run(self._client, self._plan_open())

    def open(self) -> "ShardedCounter":
        """Read the stored shard count again (the counter reads it when it is made)."""
        run(self._client, self._plan_open())
        return self


class _ReplicaPlans:
    """A CRDT replica kept on a server: one hash per half, one field per node."""

    halves: tuple[str, ...] = ("p",)

    def __init__(self, client: Any, key: str, node_id: str) -> None:
        self._client = checked_client(self, client)
        self.key = _check_key(key)
        self.node_id = _check_node_id(node_id)
        #: the hashes (one hash tag, so a merge runs on one cluster node)
        self.hash_keys = tuple(f"{{{key}}}:{half}" for half in self.halves)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r}, {self.node_id!r})"

    def _bump(self, half: int, n: int) -> Steps[None]:
        yield Call("hincrby", (self.hash_keys[half], self.node_id, _check_amount(n)))

    def _read(self) -> Steps[list[dict[str, int]]]:
        replies = yield [Call("hgetall", (k,)) for k in self.hash_keys]
        return [{_text(node): int(count) for node, count in reply.items()} for reply in replies]

    def _send_merge(self, halves: list[dict[str, int]]) -> Steps[int]:
        args: list[Any] = []
        for counts in halves:
            if any(c > _SERVER_MAX for c in counts.values()):
                raise ValueError("a count above 2**63 - 1 cannot be stored on the server")
            live = {node: c for node, c in counts.items() if c}
            args.append(len(live))
            for node, count in live.items():
                args += [node, count]
        grew = yield Run(_merge_script(), self.hash_keys, tuple(args))
        return int(grew)


class GCounterReplicaPlans(_ReplicaPlans):
    def _plan_increment(self, n: int = 1) -> Steps[None]:
        """Count n (an int ≥ 1) on this node's field (HINCRBY, atomic)."""
        return self._bump(0, n)

    def _plan_merge(self, other: GCounter) -> Steps[int]:
        """Merge a GCounter into the stored one, atomically (one script); the entries that grew."""
        if type(other) is not GCounter:
            raise TypeError(f"a GCounterReplica merges a GCounter, not {type(other).__name__}")
        return self._send_merge([other._counts])

    def _plan_state(self) -> Steps[GCounter]:
        """The stored counter as an in-memory GCounter of this node."""
        (counts,) = yield from self._read()
        return GCounter.from_counts(self.node_id, counts)

    def _plan_value(self) -> Steps[int]:
        """The stored counter's value: the sum of every node's entry. One read."""
        state = yield from self._plan_state()
        return state.value()

    # the methods of both faces (fastrank.GCounterReplica, fastrank.asyncio.GCounterReplica: runner.twin)
    increment = twin(_plan_increment)
    merge = twin(_plan_merge)
    state = twin(_plan_state)
    value = twin(_plan_value)


class GCounterReplica(SyncFace, GCounterReplicaPlans):
    """A G-Counter replica stored on a server (``fastrank.Engine``, Redis, a cluster).

    >>> import fastrank
    >>> eu = GCounterReplica(fastrank.Engine(), "visits", "eu")
    >>> eu.increment(5)
    >>> us = GCounter("us"); us.increment(2)
    >>> eu.merge(us), eu.value()
    (1, 7)
    """



class PNCounterReplicaPlans(_ReplicaPlans):
    halves = ("p", "n")

    def _plan_increment(self, n: int = 1) -> Steps[None]:
        """Add n (an int ≥ 1) on this node (HINCRBY of the increments, atomic)."""
        return self._bump(0, n)

    def _plan_decrement(self, n: int = 1) -> Steps[None]:
        """Subtract n (an int ≥ 1) on this node (HINCRBY of the decrements, atomic)."""
        return self._bump(1, n)

    def _plan_merge(self, other: PNCounter) -> Steps[int]:
        """Merge a PNCounter into the stored one, both halves in one script."""
        if type(other) is not PNCounter:
            raise TypeError(f"a PNCounterReplica merges a PNCounter, not {type(other).__name__}")
        return self._send_merge([other._p, other._n])

    def _plan_state(self) -> Steps[PNCounter]:
        """The stored counter as an in-memory PNCounter of this node."""
        p, n = yield from self._read()
        return PNCounter.from_counts(self.node_id, p, n)

    def _plan_value(self) -> Steps[int]:
        """The stored counter's value: increments minus decrements over every node. One read."""
        state = yield from self._plan_state()
        return state.value()

    # the methods of both faces (fastrank.PNCounterReplica, fastrank.asyncio.PNCounterReplica: runner.twin)
    increment = twin(_plan_increment)
    decrement = twin(_plan_decrement)
    merge = twin(_plan_merge)
    state = twin(_plan_state)
    value = twin(_plan_value)


class PNCounterReplica(SyncFace, PNCounterReplicaPlans):
    """A PN-Counter replica stored on a server (see :class:`GCounterReplica`)."""

