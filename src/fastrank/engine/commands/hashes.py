"""Hash commands (Redis 7.0 t_hash.c): HSET/HMSET/HSETNX, HGET/HMGET/HGETALL,
HDEL, HINCRBY, HINCRBYFLOAT (80-bit long double like INCRBYFLOAT), HLEN,
HEXISTS, HKEYS, HVALS, HSTRLEN, HRANDFIELD, HSCAN. A hash is a ``dict``
bytes → bytes.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from fastrank import errors as E
from fastrank._core import hget_command, hincrby_command, hset_command
from fastrank.engine.commands.table import (CommandError, check_random_reply, command, random_count,
                                            syntax_error, to_int)
from fastrank.engine.commands._numbers import (
    INT64_MAX,
    INT64_MIN,
    add_long_double,
    format_long_double,
    parse_int,
    parse_long_double,
)
from fastrank.engine.commands.keys import (hash_fits_listpack, note_hash_write, parse_cursor, scan_options,
                                    scan_reply)

if TYPE_CHECKING:
    from fastrank.engine import Engine

#: A hash value: field → value.
Hash = Dict[bytes, bytes]


def get_hash(db: Engine, key: bytes) -> Optional[Hash]:
    h: Optional[Hash] = db.lookup_type(key, dict)
    return h


def hash_for_write(db: Engine, key: bytes) -> Hash:
    value = get_hash(db, key)
    if value is None:
        value = {}
        db.store(key, value)
    return value


def _set_pairs(db: Engine, args: List[bytes], name: str) -> int:
    if len(args) % 2 == 0:  # key plus an odd number of field/value words
        raise CommandError(E.WRONG_ARITY % name)
    h = hash_for_write(db, args[0])
    added = 0
    for i in range(1, len(args), 2):
        if args[i] not in h:
            added += 1
        h[args[i]] = args[i + 1]
    db.touched(args[0])
    note_hash_write(db, h, args[1:])
    return added


def hset(db: Engine, args: List[bytes]) -> int:
    """HSET's rule (args after the word). The registered handler,
    ``hset_command`` (engine/native/hash_writes.pxi), runs the common case in C and
    hands every other call here. O(number of pairs)."""
    return _set_pairs(db, args, "hset")


@command("hmset", -4, write=True)
def hmset(db: Engine, args: List[bytes]) -> bytes:
    _set_pairs(db, args, "hmset")
    return b"OK"


@command("hsetnx", 4, write=True)
def hsetnx(db: Engine, args: List[bytes]) -> int:
    h = hash_for_write(db, args[0])
    if args[1] in h:
        return 0
    h[args[1]] = args[2]
    db.touched(args[0])
    note_hash_write(db, h, args[1:])
    return 1


# HGET is compiled (engine/native/point_reads.pxi).
command("hget", 3, whole_argv=True)(hget_command)


@command("hmget", -3)
def hmget(db: Engine, args: List[bytes]) -> List[Optional[bytes]]:
    h = get_hash(db, args[0]) or {}
    return [h.get(f) for f in args[1:]]


@command("hgetall", 2)
def hgetall(db: Engine, args: List[bytes]) -> Hash:
    return dict(get_hash(db, args[0]) or {})


@command("hkeys", 2)
def hkeys(db: Engine, args: List[bytes]) -> List[bytes]:
    return list(get_hash(db, args[0]) or {})


@command("hvals", 2)
def hvals(db: Engine, args: List[bytes]) -> List[bytes]:
    return list((get_hash(db, args[0]) or {}).values())


@command("hdel", -3, write=True)
def hdel(db: Engine, args: List[bytes]) -> int:
    h = get_hash(db, args[0])
    if h is None:
        return 0
    if not db.is_converted(h) and not hash_fits_listpack(h):
        db.mark_converted(h)  # (O(n) for a hash of at most 512 fields)
    removed = sum(h.pop(f, None) is not None for f in args[1:])
    if removed:
        db.touched(args[0])
        db.drop_if_empty(args[0], h)
    return removed


@command("hlen", 2)
def hlen(db: Engine, args: List[bytes]) -> int:
    return len(get_hash(db, args[0]) or {})


@command("hstrlen", 3)
def hstrlen(db: Engine, args: List[bytes]) -> int:
    return len((get_hash(db, args[0]) or {}).get(args[1], b""))


@command("hexists", 3)
def hexists(db: Engine, args: List[bytes]) -> int:
    return int(args[1] in (get_hash(db, args[0]) or {}))


def hincrby(db: Engine, args: List[bytes]) -> int:
    """HINCRBY's rule (args after the word). The registered handler,
    ``hincrby_command`` (engine/native/hash_writes.pxi), runs the common case in C
    and hands every other call here. O(1)."""
    incr = to_int(args[2])
    h = hash_for_write(db, args[0])
    old = h.get(args[1])
    value = 0 if old is None else parse_int(old)
    if value is None:
        db.drop_if_empty(args[0], h)
        raise CommandError(E.HASH_NOT_INTEGER)
    new = value + incr
    if new < INT64_MIN or new > INT64_MAX:
        db.drop_if_empty(args[0], h)
        raise CommandError(E.OVERFLOW)
    h[args[1]] = b"%d" % new
    db.touched(args[0])
    note_hash_write(db, h, args[1:2])
    return new


# HSET's and HINCRBY's common cases are compiled (engine/native/hash_writes.pxi); the
# rest is hset and hincrby above.
command("hset", -4, write=True, whole_argv=True)(hset_command)
command("hincrby", 4, write=True, whole_argv=True)(hincrby_command)


@command("hincrbyfloat", 4, write=True)
def hincrbyfloat(db: Engine, args: List[bytes]) -> bytes:
    incr = parse_long_double(args[2])
    if incr is None:
        raise CommandError(E.NOT_FLOAT)
    if isinstance(incr, float):
        raise CommandError(E.HASH_NAN_OR_INF)
    h = hash_for_write(db, args[0])
    old = h.get(args[1])
    value = 0 if old is None else parse_long_double(old)
    if value is None:
        db.drop_if_empty(args[0], h)
        raise CommandError(E.HASH_NOT_FLOAT)
    new = add_long_double(value, incr)
    if isinstance(new, float):
        db.drop_if_empty(args[0], h)
        raise CommandError(E.NAN_OR_INF)
    h[args[1]] = text = format_long_double(new)
    db.touched(args[0])
    note_hash_write(db, h, (args[1], text))
    return text


@command("hrandfield", -2)
def hrandfield(db: Engine, args: List[bytes]) -> Any:
    """HRANDFIELD key [count [WITHVALUES]]: one random field (nil for a
    missing key), or ``count`` distinct fields (a negative count: ``-count``
    fields that may repeat), with WITHVALUES as [field, value] pairs (RESP3).
    All the fields, when count covers them, in the hash's order (a listpack
    hash's: insertion order). O(size of the hash + |count|)."""
    if len(args) == 1:
        h = get_hash(db, args[0])
        return None if not h else random.choice(list(h))
    count = random_count(args[1])
    if len(args) > 3 or (len(args) == 3 and args[2].upper() != b"WITHVALUES"):
        raise syntax_error()
    withvalues = len(args) == 3
    if withvalues and (count < -INT64_MAX // 2 or count > INT64_MAX // 2):
        raise CommandError(E.VALUE_OUT_OF_RANGE)
    h = get_hash(db, args[0])
    if h is None or count == 0:
        return []
    check_random_reply(db, count)
    items = list(h.items())
    if count < 0:
        chosen = [random.choice(items) for _ in range(-count)]
    elif count >= len(items):
        chosen = items
    else:
        chosen = random.sample(items, count)
    return [[f, v] for f, v in chosen] if withvalues else [f for f, _ in chosen]


@command("hscan", -3)
def hscan(db: Engine, args: List[bytes]) -> List[Any]:
    cursor = parse_cursor(args[1])
    h = get_hash(db, args[0])
    if h is None:
        return [b"0", []]
    pattern, _ = scan_options(args[2:], False)
    return scan_reply(cursor, list(h.items()), pattern, pairs=True)
