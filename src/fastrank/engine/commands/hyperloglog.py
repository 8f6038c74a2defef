"""HyperLogLog commands (Redis 7.0 hyperloglog.c): PFADD, PFCOUNT, PFMERGE.

An HLL *is* a string: the value stays ``bytes`` in the keyspace, byte for
byte the string Redis stores (docs/compatibility.md §1), so GET/SET/APPEND/SETRANGE/STRLEN
work on it unchanged and a value moved to or from a real Redis keeps
working. The register work is done on those bytes by the compiled core's
raw-value helpers (``pfadd_bytes``...), which also validate untrusted
strings and raise with Redis's own error lines:

- a string with a bad header → ``WRONGTYPE Key is not a valid HyperLogLog
  string value.``; a sparse payload that does not cover 16384 registers →
  ``INVALIDOBJ Corrupted HLL object detected`` (found lazily, as Redis does:
  a PFADD keeps the registers it changed before meeting the corruption);
- a key of another type → the ordinary WRONGTYPE, in key order.

PFADD and PFMERGE modify the value in place (the TTL stays); PFCOUNT of one
key writes the freshly computed cardinality into the cache bytes, so GET
changes after it, exactly as on Redis. ``Engine.hll_sparse_max_bytes``
(Redis's ``hll-sparse-max-bytes``, default 3000) bounds the sparse form.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from fastrank import errors as E
from fastrank._core import (
    CorruptHyperLogLog,
    NotAHyperLogLog,
    pfadd_bytes,
    pfcount_bytes,
    pfcount_union_bytes,
    pfmerge_bytes,
)
from fastrank.engine.commands.table import CommandError, command

if TYPE_CHECKING:
    from fastrank.engine import Engine

_T = TypeVar("_T")

SPARSE_MAX_BYTES = 3000


def _sparse_max(db: Engine) -> int:
    return getattr(db, "hll_sparse_max_bytes", SPARSE_MAX_BYTES)


def _string(db: Engine, key: bytes) -> bytes | None:
    """The live string at key (None if missing); WRONGTYPE for other types."""
    value: bytes | None = db.lookup_type(key, bytes)
    return value


@command("pfadd", -2, write=True)
def pfadd(db: Engine, args: list[bytes]) -> int:
    key = args[0]
    value = _string(db, key)
    try:
        new, reply = pfadd_bytes(value, args[1:], _sparse_max(db))
    except NotAHyperLogLog:
        raise CommandError(E.HLL_NOT_VALID) from None
    except CorruptHyperLogLog as exc:
        # Redis keeps the registers set before the walk met the corruption
        # (no cache invalidation, no keyspace signal).
        if value is not None and exc.value is not None:
            db.replace(key, exc.value, signal=False)
            db.mark_string(key, exc.value, b"raw")
        raise CommandError(E.HLL_CORRUPTED) from None
    if value is None:
        db.store(key, new)
    elif reply:
        db.replace(key, new)  # in place: the TTL stays
    db.mark_string(key, db.lookup(key), b"raw")  # (Redis unshares it: raw, even unchanged)
    return reply


@command("pfcount", -2)
def pfcount(db: Engine, args: list[bytes]) -> int:
    if len(args) == 1:
        key = args[0]
        value = _string(db, key)
        try:
            count, new = pfcount_bytes(value)
        except NotAHyperLogLog:
            raise CommandError(E.HLL_NOT_VALID) from None
        except CorruptHyperLogLog:
            raise CommandError(E.HLL_CORRUPTED) from None
        if new is not None:
            db.replace(key, new)  # the cached cardinality, written back
        if value is not None:
            db.mark_string(key, db.lookup(key), b"raw")  # (Redis unshares it: raw)
        return count
    values = [db.lookup(key) for key in args]
    return _union(lambda: pfcount_union_bytes(values))


def _union(run: Callable[[], _T]) -> _T:
    try:
        return run()
    except TypeError:  # a key of another type, reached in key order
        raise CommandError(E.WRONGTYPE) from None
    except NotAHyperLogLog:
        raise CommandError(E.HLL_NOT_VALID) from None
    except CorruptHyperLogLog:
        raise CommandError(E.HLL_CORRUPTED) from None


@command("pfmerge", -2, write=True)
def pfmerge(db: Engine, args: list[bytes]) -> bytes:
    key = args[0]
    dest = db.lookup(key)
    sources = [db.lookup(k) for k in args[1:]]
    new = _union(lambda: pfmerge_bytes(dest, sources, _sparse_max(db)))
    if dest is None:
        db.store(key, new)
    else:
        db.replace(key, new)  # in place: the TTL stays
    db.mark_string(key, new, b"raw")
    return b"OK"
