"""Keyspace commands (Redis 7.0 db.c / expire.c / object.c): DEL, EXISTS,
TYPE, the EXPIRE family with NX/XX/GT/LT, TTL, PERSIST, RENAME, COPY,
OBJECT ENCODING / FREQ / HELP, KEYS and SCAN with Redis's glob matcher,
DBSIZE, RANDOMKEY, FLUSHDB, and connection odds and ends (PING, ECHO, TIME).

SCAN (and ZSCAN/HSCAN/SSCAN) answer in one batch: cursor 0 returns every
match and the cursor 0 again (COUNT is only a hint in Redis too).
"""
from __future__ import annotations

import random
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Union

from fastrank import errors as E
import fastrank.engine.keyspace as keyspace  # keyspace.now_ms(): the one clock expiry reads
from fastrank._core import (CountMinSketch, SortedSet, TopK, exists_command,
                            ttl_generic)
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int
from fastrank.engine.commands._numbers import INT64_MAX, INT64_MIN, parse_int
from fastrank.engine.keyspace import TYPE_NAMES, ListpackZSet

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
    kind = db.string_kind(src, value)
    db.remove(src)
    db.store(dst, value, deadline)  # both keys are touched
    if kind is not None:
        db.mark_string(dst, value, kind)  # the same object, encoded as before
    return 1 if nx else b"OK"


@command("rename", 3, write=True)
def rename(db: Engine, args: list[bytes]) -> Any:
    return rename_generic(db, args, False)


@command("renamenx", 3, write=True)
def renamenx(db: Engine, args: list[bytes]) -> Any:
    return rename_generic(db, args, True)


# -- COPY -----------------------------------------------------------------------


def option_word(arg: bytes) -> bytes:
    """An option word as Redis compares it (strcasecmp on a C string: upper
    case, and nothing after a NUL byte counts)."""
    return arg.split(b"\0", 1)[0].upper()


def duplicate(db: Engine, value: Any) -> Any:
    """A deep copy of a stored value, in the same encoding (Redis's
    dupStringObject, setTypeDup, hashTypeDup, zsetDup, listTypeDup).
    O(size of the value). RedisBloom's sketches have no copy in the module:
    COPY refuses them, as the server does."""
    kind = type(value)
    if kind is bytes:
        return value  # immutable: sharing it is a copy
    if kind is set or kind is dict:
        new = kind(value)
        if db.is_converted(value):
            db.mark_converted(new)
        return new
    if kind is deque:
        return deque(value)
    if kind is SortedSet or kind is ListpackZSet:
        return value.copy()
    if kind is CountMinSketch or kind is TopK:
        raise CommandError(E.MODULE_COPY_UNSUPPORTED)
    raise CommandError(E.WRONGTYPE)  # (no other type is ever stored)


@command("copy", -3, write=True)
def copy(db: Engine, args: list[bytes]) -> Any:
    """COPY source destination [DB destination-db] [REPLACE]. The Engine is a
    server with one database: DB 0 is this one, any other index is out of
    range (docs/compatibility.md)."""
    src, dst = args[0], args[1]
    replace = False
    j = 2
    while j < len(args):
        word = option_word(args[j])
        if word == b"REPLACE":
            replace = True
        elif word == b"DB" and j + 1 < len(args):
            dbid = to_int(args[j + 1])
            if not -(1 << 31) <= dbid < 1 << 31:  # a C int
                raise CommandError(E.INT_RANGE)
            if dbid != 0:
                raise CommandError(E.DB_OUT_OF_RANGE)
            j += 1
        else:
            raise syntax_error()
        j += 1
    if src == dst:
        raise CommandError(E.SAME_OBJECT)
    value = db.lookup(src)
    if value is None:
        return 0
    deadline = db.deadline(src)
    if db.lookup(dst) is not None and not replace:
        return 0
    new = duplicate(db, value)  # (refuses a sketch before dst is touched)
    db.store(dst, new, deadline)
    kind = db.string_kind(src, value) if type(value) is bytes else None
    if kind is not None:
        db.mark_string(dst, new, kind)
    return 1


# -- OBJECT -----------------------------------------------------------------------

#: OBJECT HELP's lines, as Redis 7.0 sends them.
OBJECT_HELP = [
    b"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    b"ENCODING <key>",
    b"    Return the kind of internal representation used in order to store the value",
    b"    associated with a <key>.",
    b"FREQ <key>",
    b"    Return the access frequency index of the <key>. The returned integer is",
    b"    proportional to the logarithm of the recent access frequency of the key.",
    b"IDLETIME <key>",
    b"    Return the idle time of the <key>, that is the approximated number of",
    b"    seconds elapsed since the last access to the key.",
    b"REFCOUNT <key>",
    b"    Return the number of references of the value associated with the specified",
    b"    <key>.",
    b"HELP",
    b"    Prints this help.",
]

EMBSTR_LIMIT = 44    # OBJ_ENCODING_EMBSTR_SIZE_LIMIT
HASH_LISTPACK_ENTRIES = 512  # hash-max-listpack-entries (Redis 7.0: 512; zsets: 128)
HASH_LISTPACK_VALUE = 64     # hash-max-listpack-value


def string_encoding(db: Engine, key: bytes, value: bytes) -> bytes:
    """What Redis's tryObjectEncoding makes of a string SET stores: int for
    the decimal of a long (at most 20 chars), embstr up to 44 bytes, raw;
    a string rewritten in place stays raw, INCRBYFLOAT's is never an int
    (``Keyspace.mark_string``)."""
    kind = db.string_kind(key, value)
    if kind == b"raw":
        return b"raw"
    if kind is None and len(value) <= 20 and parse_int(value) is not None:
        return b"int"
    return b"embstr" if len(value) <= EMBSTR_LIMIT else b"raw"


def hash_fits_listpack(h: dict[bytes, bytes]) -> bool:
    """At most 512 fields, none and no value longer than 64 bytes. O(n)."""
    return len(h) <= HASH_LISTPACK_ENTRIES and all(
        len(f) <= HASH_LISTPACK_VALUE and len(v) <= HASH_LISTPACK_VALUE for f, v in h.items())


def note_hash_write(db: Engine, h: dict[bytes, bytes], written: Iterable[bytes]) -> None:
    """After fields/values were written to h: Redis converts its listpack
    (for good) when one of them is longer than 64 bytes or h outgrew 512
    fields. O(len(written))."""
    if not db.is_converted(h) and (len(h) > HASH_LISTPACK_ENTRIES or any(
            len(w) > HASH_LISTPACK_VALUE for w in written)):
        db.mark_converted(h)


def hash_encoding(db: Engine, key: bytes, h: dict[bytes, bytes]) -> bytes:
    if db.is_converted(h) or not hash_fits_listpack(h):
        return b"hashtable"
    return b"listpack"


#: Value type → OBJECT ENCODING's answer for a value of it (O(size) at most).
#: commands/sets.py adds sets' (its module docstring); a module's value
#: (RedisBloom's sketches) is raw.
ENCODINGS: dict[type, Callable[[Engine, bytes, Any], bytes]] = {
    bytes: string_encoding,
    ListpackZSet: lambda db, key, value: b"listpack",
    SortedSet: lambda db, key, value: b"skiplist",
    dict: hash_encoding,
    deque: lambda db, key, value: b"quicklist",  # every Redis 7.0 list
}


def object_encoding(db: Engine, key: bytes, value: Any) -> bytes:
    """OBJECT ENCODING's answer for the value at key (docs/compatibility.md)."""
    encoding = ENCODINGS.get(type(value))
    return b"raw" if encoding is None else encoding(db, key, value)


@command("object", -2)
def object_(db: Engine, args: list[bytes]) -> Any:
    """OBJECT ENCODING | FREQ | HELP. IDLETIME and REFCOUNT are not kept
    (docs/compatibility.md): they answer as unknown subcommands."""
    sub = args[0].upper()
    if sub == b"HELP":
        if len(args) != 1:
            raise CommandError(E.WRONG_ARITY % "object|help")
        return list(OBJECT_HELP)
    if sub in (b"ENCODING", b"FREQ"):
        if len(args) != 2:
            raise CommandError(E.WRONG_ARITY % ("object|" + sub.decode().lower()))
        value = db.lookup(args[1])
        if value is None:
            return None
        if sub == b"FREQ":
            raise CommandError(E.OBJECT_FREQ_NO_LFU)  # maxmemory-policy is noeviction
        return object_encoding(db, args[1], value)
    raise CommandError(E.UNKNOWN_SUBCOMMAND % (args[0].decode("utf-8", "replace"), "OBJECT"))


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


@command("randomkey", 1)
def randomkey(db: Engine, args: list[bytes]) -> Optional[bytes]:
    """A live key at random, nil when there is none (expired keys are
    deleted on the way). O(number of keys): Redis draws from its hash table."""
    live = db.live_keys()
    return random.choice(live) if live else None


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
