"""Set commands (Redis 7.0 t_set.c): SADD, SREM, SMEMBERS, SISMEMBER,
SMISMEMBER, SCARD, SSCAN. A set is a Python ``set`` of bytes.

Replies list members in the order Redis uses for a small all-integer set
(an intset: ascending numbers); a hashtable set's order is its hash order,
which nothing can reproduce, so those come sorted by bytes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection

from fastrank._core import sismember_command
from fastrank.engine.commands.table import command
from fastrank.engine.commands._numbers import parse_int
from fastrank.engine.commands.keys import parse_cursor, scan_options, scan_reply

if TYPE_CHECKING:
    from fastrank.engine import Engine

INTSET_ENTRIES = 512  # set-max-intset-entries


def ordered(s: Collection[bytes]) -> list[bytes]:
    """The members in intset order when Redis could hold s as an intset."""
    if len(s) <= INTSET_ENTRIES:
        numbers = []
        for m in s:
            value = parse_int(m)
            if value is None:
                break
            numbers.append((value, m))
        else:
            return [m for _, m in sorted(numbers)]
    return sorted(s)


def get_set(db: Engine, key: bytes) -> set[bytes] | None:
    s: set[bytes] | None = db.lookup_type(key, set)
    return s


@command("sadd", -3, write=True)
def sadd(db: Engine, args: list[bytes]) -> int:
    s = get_set(db, args[0])
    if s is None:
        s = set()
        db.store(args[0], s)
    before = len(s)
    s.update(args[1:])
    if len(s) != before:
        db.touched(args[0])
    return len(s) - before


@command("srem", -3, write=True)
def srem(db: Engine, args: list[bytes]) -> int:
    s = get_set(db, args[0])
    if s is None:
        return 0
    before = len(s)
    s.difference_update(args[1:])
    if len(s) != before:
        db.touched(args[0])
        db.drop_if_empty(args[0], s)
    return before - len(s)


@command("smembers", 2)
def smembers(db: Engine, args: list[bytes]) -> list[bytes]:
    return ordered(get_set(db, args[0]) or ())


# SISMEMBER is compiled (engine/native/point_reads.pxi).
command("sismember", 3, whole_argv=True)(sismember_command)


@command("smismember", -3)
def smismember(db: Engine, args: list[bytes]) -> list[int]:
    s = get_set(db, args[0]) or ()
    return [int(m in s) for m in args[1:]]


@command("scard", 2)
def scard(db: Engine, args: list[bytes]) -> int:
    return len(get_set(db, args[0]) or ())


@command("sscan", -3)
def sscan(db: Engine, args: list[bytes]) -> Any:
    cursor = parse_cursor(args[1])
    s = get_set(db, args[0])
    if s is None:
        return [b"0", []]
    pattern, _ = scan_options(args[2:], False)
    return scan_reply(cursor, ordered(s), pattern)
