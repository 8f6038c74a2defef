"""String commands (Redis 7.0 t_string.c semantics): GET/SET family,
counters (INCR…, INCRBYFLOAT in 80-bit long double), ranges, MGET/MSET.

A string value is stored as ``bytes``; integers are stored as their
canonical decimal text, so INCR and GET agree with Redis byte for byte.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from fastrank import errors as E
import fastrank.engine.keyspace as keyspace  # keyspace.now_ms(): the one clock expiry reads
from fastrank._core import get_command
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int
from fastrank.engine.commands._numbers import (
    INT64_MAX,
    INT64_MIN,
    add_long_double,
    format_long_double,
    parse_int,
    parse_long_double,
)

if TYPE_CHECKING:
    from fastrank.engine import Engine

MAX_STRING = 512 * 1024 * 1024


def get_string(db: Engine, key: bytes) -> Optional[bytes]:
    value: Optional[bytes] = db.lookup_type(key, bytes)
    return value


# GET is compiled (engine/native/point_reads.pxi).
command("get", 2, whole_argv=True)(get_command)


# -- SET and its options -----------------------------------------------------


def parse_set_options(
    args: list[bytes], for_set: bool
) -> tuple[set[str], Optional[str], Optional[bytes]]:
    """Redis parseExtendedStringArgumentsOrReply: (flags set, unit, expire arg)."""
    flags: set[str] = set()
    unit: Optional[str] = None
    expire: Optional[bytes] = None
    j = 0
    while j < len(args):
        opt = args[j].upper()
        has_next = j + 1 < len(args)
        timed = flags & {"EX", "PX", "EXAT", "PXAT"}
        if opt == b"NX" and "XX" not in flags and for_set:
            flags.add("NX")
        elif opt == b"XX" and "NX" not in flags and for_set:
            flags.add("XX")
        elif opt == b"GET" and for_set:
            flags.add("GET")
        elif opt == b"KEEPTTL" and not timed and "PERSIST" not in flags and for_set:
            flags.add("KEEPTTL")
        elif opt == b"PERSIST" and not for_set and not timed and "KEEPTTL" not in flags:
            flags.add("PERSIST")
        elif opt in (b"EX", b"PX", b"EXAT", b"PXAT") and has_next \
                and not (flags & {"KEEPTTL", "PERSIST"}) and not (timed - {opt.decode()}):
            flags.add(opt.decode())
            unit = opt.decode()
            expire = args[j + 1]
            j += 1
        else:
            raise syntax_error()
        j += 1
    return flags, unit, expire


def expire_deadline(expire: bytes, unit: Optional[str], name: str) -> int:
    """Redis getExpireMillisecondsOrReply: the absolute deadline in ms."""
    ms = to_int(expire)
    seconds = unit in ("EX", "EXAT")
    if ms <= 0 or (seconds and ms > INT64_MAX // 1000):
        raise CommandError(E.INVALID_EXPIRE % name)
    if seconds:
        ms *= 1000
    if unit in ("EX", "PX"):
        ms += keyspace.now_ms()
    if ms <= 0 or ms > INT64_MAX:
        raise CommandError(E.INVALID_EXPIRE % name)
    return ms


def set_generic(
    db: Engine,
    key: bytes,
    value: bytes,
    flags: set[str],
    unit: Optional[str],
    expire: Optional[bytes],
    name: str,
    ok: Union[bytes, int] = b"OK",
    abort: Optional[int] = None,
) -> Union[bytes, int, None]:
    deadline = expire_deadline(expire, unit, name) if expire is not None else None
    old = None
    if "GET" in flags:
        old = get_string(db, key)
    found = db.lookup(key) is not None
    if ("NX" in flags and found) or ("XX" in flags and not found):
        return old if "GET" in flags else abort
    if deadline is None and "KEEPTTL" in flags:
        deadline = db.deadline(key)
    db.store(key, value, deadline)
    return old if "GET" in flags else ok


@command("set", -3, write=True)
def set_(db: Engine, args: list[bytes]) -> Any:
    flags, unit, expire = parse_set_options(args[2:], True)
    return set_generic(db, args[0], args[1], flags, unit, expire, "set")


@command("setex", 4, write=True)
def setex(db: Engine, args: list[bytes]) -> Any:
    return set_generic(db, args[0], args[2], set(), "EX", args[1], "setex")


@command("psetex", 4, write=True)
def psetex(db: Engine, args: list[bytes]) -> Any:
    return set_generic(db, args[0], args[2], set(), "PX", args[1], "psetex")


@command("setnx", 3, write=True)
def setnx(db: Engine, args: list[bytes]) -> Any:
    return set_generic(db, args[0], args[1], {"NX"}, None, None, "setnx", ok=1, abort=0)


@command("getset", 3, write=True)
def getset(db: Engine, args: list[bytes]) -> Any:
    old = get_string(db, args[0])
    db.store(args[0], args[1])
    return old


@command("getex", -2, write=True)
def getex(db: Engine, args: list[bytes]) -> Any:
    flags, unit, expire = parse_set_options(args[1:], False)
    value = get_string(db, args[0])
    if value is None:
        return None
    if expire is not None:
        deadline = expire_deadline(expire, unit, "getex")
        if unit in ("EXAT", "PXAT") and deadline <= keyspace.now_ms():
            db.remove(args[0])
        else:
            db.set_deadline(args[0], deadline)
    elif "PERSIST" in flags:
        db.clear_deadline(args[0])
    return value


@command("getdel", 2, write=True)
def getdel(db: Engine, args: list[bytes]) -> Any:
    value = get_string(db, args[0])
    if value is not None:
        db.remove(args[0])
    return value


@command("mget", -2)
def mget(db: Engine, args: list[bytes]) -> Any:
    out = []
    for key in args:
        value = db.lookup(key)
        out.append(value if type(value) is bytes else None)
    return out


@command("mset", -3, write=True)
def mset(db: Engine, args: list[bytes]) -> Any:
    if len(args) % 2:
        raise CommandError(E.WRONG_ARITY % "mset")
    for i in range(0, len(args), 2):
        db.store(args[i], args[i + 1])
    return b"OK"


@command("msetnx", -3, write=True)
def msetnx(db: Engine, args: list[bytes]) -> Any:
    if len(args) % 2:
        raise CommandError(E.WRONG_ARITY % "msetnx")
    if any(db.lookup(args[i]) is not None for i in range(0, len(args), 2)):
        return 0
    for i in range(0, len(args), 2):
        db.store(args[i], args[i + 1])
    return 1


# -- in-place edits ----------------------------------------------------------


def _check_length(offset: int, extra: int) -> None:
    if offset + extra > MAX_STRING:
        raise CommandError(E.STRING_TOO_LONG)


@command("append", 3, write=True)
def append(db: Engine, args: list[bytes]) -> Any:
    old = get_string(db, args[0])
    if old is None:
        db.store(args[0], args[1])
        return len(args[1])
    _check_length(len(old), len(args[1]))
    new = old + args[1]
    db.replace(args[0], new)
    db.mark_string(args[0], new, b"raw")  # (Redis appends in place: raw)
    return len(new)


@command("strlen", 2)
def strlen(db: Engine, args: list[bytes]) -> Any:
    value = get_string(db, args[0])
    return 0 if value is None else len(value)


@command("getrange", 4)
def getrange(db: Engine, args: list[bytes]) -> Any:
    start, end = to_int(args[1]), to_int(args[2])
    value = get_string(db, args[0])
    if value is None:
        return b""
    n = len(value)
    if start < 0 and end < 0 and start > end:
        return b""
    if start < 0:
        start += n
    if end < 0:
        end += n
    start, end = max(start, 0), max(end, 0)
    if end >= n:
        end = n - 1
    if start > end or n == 0:
        return b""
    return value[start:end + 1]


@command("substr", 4)
def substr(db: Engine, args: list[bytes]) -> Any:
    return getrange(db, args)


@command("setrange", 4, write=True)
def setrange(db: Engine, args: list[bytes]) -> Any:
    offset = to_int(args[1])
    if offset < 0:
        raise CommandError(E.OFFSET_OUT_OF_RANGE)
    key, piece = args[0], args[2]
    old = get_string(db, key)
    if not piece:
        return 0 if old is None else len(old)
    _check_length(offset, len(piece))
    text = b"" if old is None else old
    if len(text) < offset:
        text = text + b"\0" * (offset - len(text))
    new = text[:offset] + piece + text[offset + len(piece):]
    if old is None:
        db.store(key, new)
    else:
        db.replace(key, new)
    db.mark_string(key, new, b"raw")  # (Redis writes in place: raw)
    return len(new)


# -- counters ----------------------------------------------------------------


def incr_by(db: Engine, key: bytes, incr: int) -> int:
    old = get_string(db, key)
    value = 0 if old is None else parse_int(old)
    if value is None:
        raise CommandError(E.NOT_INTEGER)
    new = value + incr
    if new < INT64_MIN or new > INT64_MAX:
        raise CommandError(E.OVERFLOW)
    if old is None:
        db.store(key, b"%d" % new)
    else:
        db.replace(key, b"%d" % new)  # keeps the TTL
    return new


@command("incr", 2, write=True)
def incr(db: Engine, args: list[bytes]) -> Any:
    return incr_by(db, args[0], 1)


@command("decr", 2, write=True)
def decr(db: Engine, args: list[bytes]) -> Any:
    return incr_by(db, args[0], -1)


@command("incrby", 3, write=True)
def incrby(db: Engine, args: list[bytes]) -> Any:
    return incr_by(db, args[0], to_int(args[1]))


@command("decrby", 3, write=True)
def decrby(db: Engine, args: list[bytes]) -> Any:
    amount = to_int(args[1])
    if amount == INT64_MIN:
        raise CommandError(E.DECR_OVERFLOW)
    return incr_by(db, args[0], -amount)


@command("incrbyfloat", 3, write=True)
def incrbyfloat(db: Engine, args: list[bytes]) -> Any:
    key = args[0]
    old = get_string(db, key)
    value = 0 if old is None else parse_long_double(old)
    if value is None:
        raise CommandError(E.NOT_FLOAT)
    incr = parse_long_double(args[1])
    if incr is None:
        raise CommandError(E.NOT_FLOAT)
    new = add_long_double(value, incr)
    if isinstance(new, float):  # inf or nan
        raise CommandError(E.NAN_OR_INF)
    text = format_long_double(new)
    if old is None:
        db.store(key, text)
    else:
        db.replace(key, text)
    db.mark_string(key, text, b"float")  # (never int-encoded by Redis)
    return text
