"""Keyspace commands (Redis 7.0 db.c / expire.c): DEL, EXISTS, TYPE, the
EXPIRE family with NX/XX/GT/LT, TTL, PERSIST, RENAME, KEYS and SCAN with
Redis's glob matcher, DBSIZE, FLUSHDB, and connection odds and ends
(PING, ECHO, TIME).

SCAN (and ZSCAN/HSCAN/SSCAN) answer in one batch: cursor 0 returns every
match and the cursor 0 again (COUNT is only a hint in Redis too).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from fastrank import errors as E
import fastrank.engine.keyspace as keyspace  # keyspace.now_ms(): the one clock expiry reads
from fastrank._core import exists_command, ttl_generic
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int
from fastrank.engine.commands._numbers import INT64_MAX, INT64_MIN
from fastrank.engine.keyspace import TYPE_NAMES

if TYPE_CHECKING:
    from fastrank.engine import Engine


def type_name(value: object) -> bytes:
    return TYPE_NAMES[type(value)]


@command("del", -2, write=True)
def del_(db: Engine, args: list[bytes]) -> Any:
    return sum(db.remove(key) for key in args)


@command("unlink", -2, write=True)
def unlink(db: Engine, args: list[bytes]) -> Any:
    return del_(db, args)


# EXISTS (and TOUCH, which only counts too) and the TTL family are compiled
# (engine/native/point_reads.pxi).
command("exists", -2, whole_argv=True)(exists_command)


command("touch", -2, whole_argv=True)(exists_command)


@command("type", 2)
def type_(db: Engine, args: list[bytes]) -> Any:
    value = db.lookup(args[0])
    return b"none" if value is None else type_name(value)


# -- expiry ------------------------------------------------------------------


def _expire_flags(options: list[bytes]) -> set[bytes]:
    flags: set[bytes] = set()
    for opt in options:
        word = opt.upper()
        if word in (b"NX", b"XX", b"GT", b"LT"):
            flags.add(word)
        else:
            raise CommandError(E.UNSUPPORTED_OPTION % opt.decode("utf-8", "replace"))
    if b"NX" in flags and flags & {b"XX", b"GT", b"LT"}:
        raise CommandError(E.EXPIRE_NX_AND_OTHERS)
    if b"GT" in flags and b"LT" in flags:
        raise CommandError(E.EXPIRE_GT_AND_LT)
    return flags


def expire_generic(db: Engine, args: list[bytes], name: str, seconds: bool, basetime: int) -> int:
    flags = _expire_flags(args[2:])
    when = to_int(args[1])
    if seconds:
        if when > INT64_MAX // 1000 or when < -(-INT64_MIN // 1000):
            raise CommandError(E.INVALID_EXPIRE % name)
        when *= 1000
    if when > INT64_MAX - basetime:
        raise CommandError(E.INVALID_EXPIRE % name)
    when += basetime
    key = args[0]
    if db.lookup(key) is None:
        return 0
    deadline = db.deadline(key)
    current = -1 if deadline is None else deadline
    if b"NX" in flags and current != -1:
        return 0
    if b"XX" in flags and current == -1:
        return 0
    if b"GT" in flags and (when <= current or current == -1):
        return 0
    if b"LT" in flags and current != -1 and when >= current:
        return 0
    if when <= keyspace.now_ms():
        db.remove(key)
    else:
        db.set_deadline(key, when)
    return 1


@command("expire", -3, write=True)
def expire(db: Engine, args: list[bytes]) -> Any:
    return expire_generic(db, args, "expire", True, keyspace.now_ms())


@command("pexpire", -3, write=True)
def pexpire(db: Engine, args: list[bytes]) -> Any:
    return expire_generic(db, args, "pexpire", False, keyspace.now_ms())


@command("expireat", -3, write=True)
def expireat(db: Engine, args: list[bytes]) -> Any:
    return expire_generic(db, args, "expireat", True, 0)


@command("pexpireat", -3, write=True)
def pexpireat(db: Engine, args: list[bytes]) -> Any:
    return expire_generic(db, args, "pexpireat", False, 0)


@command("ttl", 2)
def ttl(db: Engine, args: list[bytes]) -> Any:
    return ttl_generic(db, args[0], False, False)


@command("pttl", 2)
def pttl(db: Engine, args: list[bytes]) -> Any:
    return ttl_generic(db, args[0], True, False)


@command("expiretime", 2)
def expiretime(db: Engine, args: list[bytes]) -> Any:
    return ttl_generic(db, args[0], False, True)


@command("pexpiretime", 2)
def pexpiretime(db: Engine, args: list[bytes]) -> Any:
    return ttl_generic(db, args[0], True, True)


@command("persist", 2, write=True)
def persist(db: Engine, args: list[bytes]) -> Any:
    if db.lookup(args[0]) is None:
        return 0
    return 1 if db.clear_deadline(args[0]) else 0


# -- rename --------------------------------------------------------------------


def rename_generic(db: Engine, args: list[bytes], nx: bool) -> Union[int, bytes]:
    src, dst = args
    value = db.lookup(src)
    if value is None:
        raise CommandError(E.NO_SUCH_KEY)
    if src == dst:
        return 0 if nx else b"OK"
    deadline = db.deadline(src)
    if db.lookup(dst) is not None:
        if nx:
            return 0
        db.remove(dst)
    db.remove(src)
    db.store(dst, value, deadline)  # both keys are touched
    return 1 if nx else b"OK"


@command("rename", 3, write=True)
def rename(db: Engine, args: list[bytes]) -> Any:
    return rename_generic(db, args, False)


@command("renamenx", 3, write=True)
def renamenx(db: Engine, args: list[bytes]) -> Any:
    return rename_generic(db, args, True)


# -- KEYS / SCAN with Redis's glob matcher --------------------------------------


def _signed(c: int) -> int:
    return c - 256 if c >= 128 else c


def stringmatch(pattern: bytes, string: bytes) -> bool:
    """Redis stringmatchlen (case-sensitive): * ? [abc] [^a] [a-z] and \\ escapes."""
    return _match(pattern, 0, string, 0, [False])


def _match(pat: bytes, p: int, s: bytes, i: int, skip_longer: list[bool]) -> bool:
    plen, slen = len(pat), len(s)

    def at(k: int) -> int:
        return pat[k] if k < plen else 0

    while p < plen and i < slen:
        c = pat[p]
        if c == 0x2A:  # '*'
            while p < plen and at(p + 1) == 0x2A:
                p += 1
            if plen - p == 1:
                return True
            while i < slen:
                if _match(pat, p + 1, s, i, skip_longer):
                    return True
                if skip_longer[0]:
                    return False
                i += 1
            skip_longer[0] = True
            return False
        elif c == 0x3F:  # '?'
            i += 1
        elif c == 0x5B:  # '['
            p += 1
            negate = at(p) == 0x5E
            if negate:
                p += 1
            matched = False
            while True:
                if at(p) == 0x5C and plen - p >= 2:
                    p += 1
                    if pat[p] == s[i]:
                        matched = True
                elif at(p) == 0x5D:
                    break
                elif p >= plen:
                    p -= 1
                    break
                elif plen - p >= 3 and pat[p + 1] == 0x2D:
                    lo, hi = _signed(pat[p]), _signed(pat[p + 2])
                    if lo > hi:
                        lo, hi = hi, lo
                    p += 2
                    if lo <= _signed(s[i]) <= hi:
                        matched = True
                elif pat[p] == s[i]:
                    matched = True
                p += 1
            if negate:
                matched = not matched
            if not matched:
                return False
            i += 1
        else:
            if c == 0x5C and plen - p >= 2:  # '\\'
                p += 1
            if pat[p] != s[i]:
                return False
            i += 1
        p += 1
        if i == slen:
            while at(p) == 0x2A:
                p += 1
            break
    return p >= plen and i == slen


@command("keys", 2)
def keys(db: Engine, args: list[bytes]) -> Any:
    pattern = args[0]
    if pattern == b"*":
        return db.live_keys()
    return [k for k in db.live_keys() if stringmatch(pattern, k)]


def parse_cursor(arg: bytes) -> int:
    """Redis parseScanCursorOrReply (strtoul rules, roughly: digits only)."""
    digits = arg[1:] if arg[:1] in (b"-", b"+") else arg
    if not digits.isdigit() or int(digits) >= 1 << 64:
        raise CommandError(E.INVALID_CURSOR)
    return int(arg)


def scan_options(
    args: list[bytes], allow_type: bool
) -> tuple[Optional[bytes], Optional[bytes]]:
    """(pattern or None, type name or None) from MATCH/COUNT/TYPE options."""
    pattern: Optional[bytes] = None
    kind: Optional[bytes] = None
    i = 0
    while i < len(args):
        word, left = args[i].upper(), len(args) - i
        if word == b"COUNT" and left >= 2:
            if to_int(args[i + 1]) < 1:
                raise syntax_error()
        elif word == b"MATCH" and left >= 2:
            pattern = None if args[i + 1] == b"*" else args[i + 1]
        elif word == b"TYPE" and allow_type and left >= 2:
            kind = args[i + 1]
        else:
            raise syntax_error()
        i += 2
    return pattern, kind


def scan_reply(
    cursor: int, items: Iterable[Any], pattern: Optional[bytes], pairs: bool = False
) -> list[Any]:
    """One-batch scan reply: [b'0', items] filtered by pattern (on names)."""
    if cursor != 0:
        return [b"0", []]
    out: list[Any] = []
    for item in items:
        name = item[0] if pairs else item
        if pattern is None or stringmatch(pattern, name):
            out.extend(item) if pairs else out.append(item)
    return [b"0", out]


@command("scan", -2)
def scan(db: Engine, args: list[bytes]) -> Any:
    cursor = parse_cursor(args[0])
    pattern, kind = scan_options(args[1:], True)
    found = db.live_keys()
    if kind is not None:
        found = [k for k in found if type_name(db.lookup(k)).lower() == kind.lower()]
    return scan_reply(cursor, found, pattern)


@command("dbsize", 1)
def dbsize(db: Engine, args: list[bytes]) -> Any:
    return len(db.live_keys())


def _flush(db: Engine, args: list[bytes]) -> bytes:
    if len(args) > 1 or (args and args[0].upper() not in (b"SYNC", b"ASYNC")):
        raise syntax_error()
    db.flush()
    return b"OK"


@command("flushdb", -1, write=True)
def flushdb(db: Engine, args: list[bytes]) -> Any:
    return _flush(db, args)


@command("flushall", -1, write=True)
def flushall(db: Engine, args: list[bytes]) -> Any:
    return _flush(db, args)


@command("watch", -2)
def watch(db: Engine, args: list[bytes]) -> Any:
    """Outside a pipeline there is no connection to keep the WATCH on (a
    pooled redis-py connection neither); pipelines handle WATCH themselves."""
    return b"OK"


@command("unwatch", 1)
def unwatch(db: Engine, args: list[bytes]) -> Any:
    """Queued inside MULTI (redis-py's unwatch() after multi()): EXEC has
    already unwatched everything, so it only answers OK, as Redis does."""
    return b"OK"


# Inside a transaction pipeline MULTI, EXEC and DISCARD are run by the
# pipeline itself (fastrank.engine.pipeline); these handlers answer where no MULTI
# is open.


@command("exec", 1)
def exec_(db: Engine, args: list[bytes]) -> Any:
    raise CommandError(E.WITHOUT_MULTI % "EXEC")


@command("discard", 1)
def discard(db: Engine, args: list[bytes]) -> Any:
    raise CommandError(E.WITHOUT_MULTI % "DISCARD")


@command("multi", 1)
def multi(db: Engine, args: list[bytes]) -> Any:
    """On Redis, MULTI sent on its own (bare client, plain pipeline, a
    pipeline in WATCH mode) leaves that connection answering QUEUED to what
    follows. The Engine keeps no such per-connection state there, so it
    refuses instead of running the following commands at once."""
    raise CommandError(E.MULTI_UNSUPPORTED)


@command("ping", -1)
def ping(db: Engine, args: list[bytes]) -> Any:
    if len(args) > 1:
        raise CommandError(E.WRONG_ARITY % "ping")
    return args[0] if args else b"PONG"


@command("echo", 2)
def echo(db: Engine, args: list[bytes]) -> Any:
    return args[0]


@command("time", 1)
def time_(db: Engine, args: list[bytes]) -> Any:
    now = time.time_ns() // 1000
    return [b"%d" % (now // 1000000), b"%d" % (now % 1000000)]
