"""Set commands (Redis 7.0 t_set.c): SADD, SREM, SMEMBERS, SISMEMBER,
SMISMEMBER, SCARD, SSCAN, SMOVE, SPOP, SRANDMEMBER, the algebra (SINTER,
SUNION, SDIFF and their STORE forms, SINTERCARD). A set is a Python ``set``
of bytes.

Replies list members in the order Redis uses for a small all-integer set
(an intset: ascending numbers); a hashtable set's order is its hash order,
which nothing can reproduce, so those come sorted by bytes. SPOP and
SRANDMEMBER choose at random, as Redis does (not with its generator).

Encodings (OBJECT ENCODING): Redis 7.0 holds a set as an intset while every
member is an integer (string2ll) and there are at most 512 of them, and
converts it to a hashtable for good when an add breaks either rule. A set
whose content breaks them is a hashtable; one that went through a
conversion is marked (``Keyspace.mark_converted``) and stays one. The sets
a command builds anew (the STORE forms, SPOP rebuilding the rest) start as
an intset, as Redis's do.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Collection, Iterable

from fastrank import errors as E
from fastrank._core import sismember_command
from fastrank.engine.commands.table import CommandError, check_random_reply, command, random_count, syntax_error
from fastrank.engine.commands._numbers import parse_int
from fastrank.engine.commands.keys import ENCODINGS, option_word, parse_cursor, scan_options, scan_reply

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


# -- encodings -------------------------------------------------------------------


def fits_intset(members: Iterable[bytes]) -> bool:
    """Every member is an integer Redis would keep in an intset. O(n)."""
    return all(parse_int(m) is not None for m in members)


def set_encoding(db: Engine, key: bytes, s: set[bytes]) -> bytes:
    """OBJECT ENCODING of the set s. O(n) at most."""
    if db.is_converted(s) or len(s) > INTSET_ENTRIES or not fits_intset(s):
        return b"hashtable"
    return b"intset"


ENCODINGS[set] = set_encoding


def note_added(db: Engine, s: set[bytes], added: Iterable[bytes]) -> None:
    """After members were added to s: Redis's intset converts (for good)
    when one of them is not an integer or the set outgrew 512. O(len(added))."""
    if not db.is_converted(s) and (len(s) > INTSET_ENTRIES or not fits_intset(added)):
        db.mark_converted(s)


def note_built(db: Engine, s: set[bytes]) -> None:
    """s was built anew (an intset that took its members one by one). O(n)."""
    db.forget_converted(s)
    if len(s) > INTSET_ENTRIES or not fits_intset(s):
        db.mark_converted(s)


def sets_at(db: Engine, keys: list[bytes]) -> list[set[bytes] | None]:
    """The sets at keys (None for a missing key); WRONGTYPE if any key holds
    another type, even after a missing one (Redis 7.0 checks them all)."""
    return [get_set(db, k) for k in keys]


def store_set(db: Engine, dest: bytes, result: set[bytes], converted: bool = False) -> int:
    """A STORE form's end: dest becomes the set result (any old value and its
    TTL gone), or is deleted when result is empty; ``converted``: Redis's
    result went through a conversion on the way. The size of result."""
    if not result:
        db.remove(dest)
        return 0
    db.store(dest, result)
    note_built(db, result)
    if converted:
        db.mark_converted(result)
    return len(result)


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
        note_added(db, s, args[1:])
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


# -- SMOVE, SPOP, SRANDMEMBER ------------------------------------------------------


@command("smove", 4, write=True)
def smove(db: Engine, args: list[bytes]) -> int:
    src_key, dst_key, member = args
    src = db.lookup(src_key)
    dst = db.lookup(dst_key)
    if src is None:
        return 0  # (whatever dst holds)
    if type(src) is not set or (dst is not None and type(dst) is not set):
        raise CommandError(E.WRONGTYPE)
    if src is dst:
        return int(member in src)
    if member not in src:
        return 0
    src.remove(member)
    db.touched(src_key)
    db.drop_if_empty(src_key, src)
    if dst is None:
        dst = set()
        db.store(dst_key, dst)
    if member not in dst:  # (dst is signalled only when the member is new to it)
        dst.add(member)
        db.touched(dst_key)
        note_added(db, dst, (member,))
    return 1


def pop_count(arg: bytes) -> int:
    """SPOP's count: a long >= 0 (Redis getPositiveLongFromObjectOrReply)."""
    value = parse_int(arg)
    if value is None or value < 0:
        raise CommandError(E.OUT_OF_RANGE_POSITIVE)
    return value


#: Redis SPOP_MOVE_STRATEGY_MUL: SPOP with a count rebuilds the set from the
#: members that stay when count >= 5 times their number.
SPOP_REBUILD_RATIO = 5


@command("spop", -2, write=True)
def spop(db: Engine, args: list[bytes]) -> Any:
    """SPOP key [count]. O(n): a Python set has no random access, so a draw
    lists the members first (Redis: O(1) a member)."""
    key = args[0]
    if len(args) > 2:
        raise syntax_error()
    if len(args) == 1:
        s = get_set(db, key)
        if s is None:
            return None
        member = random.choice(tuple(s))
        s.remove(member)
        db.touched(key)
        db.drop_if_empty(key, s)
        return member
    count = pop_count(args[1])
    s = get_set(db, key)
    if s is None or count == 0:
        return []
    if count >= len(s):
        out = ordered(s)
        db.remove(key)
        return out
    popped = random.sample(tuple(s), count)
    s.difference_update(popped)
    db.touched(key)
    if len(s) * SPOP_REBUILD_RATIO <= count:
        note_built(db, s)  # Redis puts a new set, built from the rest, at the key
    return popped


@command("srandmember", -2)
def srandmember(db: Engine, args: list[bytes]) -> Any:
    """SRANDMEMBER key [count]; a negative count may repeat members. O(n +
    |count|), as SPOP."""
    if len(args) > 2:
        raise syntax_error()
    if len(args) == 1:
        s = get_set(db, args[0])
        if s is None:
            return None
        return random.choice(tuple(s))
    count = random_count(args[1])
    s = get_set(db, args[0])
    if s is None or count == 0:
        return []
    check_random_reply(db, count)
    members = tuple(s)
    if count < 0:
        return [random.choice(members) for _ in range(-count)]
    if count >= len(members):
        return ordered(s)
    return random.sample(members, count)


# -- set algebra -----------------------------------------------------------------


def inter(sets: list[set[bytes] | None], limit: int = 0) -> set[bytes]:
    """The intersection (empty when a set is missing); with limit > 0 at
    most limit members. O(smallest set x number of sets)."""
    if not sets or any(s is None for s in sets):
        return set()
    present: list[set[bytes]] = sorted(sets, key=len)  # type: ignore[arg-type]
    out: set[bytes] = set()
    rest = present[1:]
    for m in present[0]:
        if all(m in t for t in rest):
            out.add(m)
            if limit and len(out) >= limit:
                break
    return out


def union(sets: list[set[bytes] | None]) -> set[bytes]:
    out: set[bytes] = set()
    for s in sets:
        if s is not None:
            out |= s
    return out


def diff(sets: list[set[bytes] | None]) -> set[bytes]:
    """The first set minus all the others (empty when the first is missing)."""
    first = sets[0]
    if first is None:
        return set()
    out = set(first)
    for s in sets[1:]:
        if s is not None:
            out -= s
    return out


def diff_converts(sets: list[set[bytes] | None]) -> bool:
    """Whether Redis's SDIFFSTORE result went through a conversion although
    it may hold integers only. Redis picks one of two ways: keep the first
    set's members that no other set has (when |first| x sets / 2 <= the sizes'
    sum), or copy the whole first set and remove the others' members; the
    copy converts when the first set does not fit an intset. O(|first|)."""
    first = sets[0]
    if first is None:
        return False
    present = [s for s in sets if s is not None]
    if len(first) * len(present) // 2 <= sum(len(s) for s in present):
        return False
    return len(first) > INTSET_ENTRIES or not fits_intset(first)


@command("sinter", -2)
def sinter(db: Engine, args: list[bytes]) -> list[bytes]:
    return ordered(inter(sets_at(db, args)))


@command("sinterstore", -3, write=True)
def sinterstore(db: Engine, args: list[bytes]) -> int:
    return store_set(db, args[0], inter(sets_at(db, args[1:])))


@command("sunion", -2)
def sunion(db: Engine, args: list[bytes]) -> list[bytes]:
    return ordered(union(sets_at(db, args)))


@command("sunionstore", -3, write=True)
def sunionstore(db: Engine, args: list[bytes]) -> int:
    return store_set(db, args[0], union(sets_at(db, args[1:])))


@command("sdiff", -2)
def sdiff(db: Engine, args: list[bytes]) -> list[bytes]:
    return ordered(diff(sets_at(db, args)))


@command("sdiffstore", -3, write=True)
def sdiffstore(db: Engine, args: list[bytes]) -> int:
    sets = sets_at(db, args[1:])
    return store_set(db, args[0], diff(sets), diff_converts(sets))


@command("sintercard", -3)
def sintercard(db: Engine, args: list[bytes]) -> int:
    """SINTERCARD numkeys key [key ...] [LIMIT limit]: numkeys, then the
    options, then the keys' types are checked, in that order."""
    numkeys = parse_int(args[0])
    if numkeys is None or numkeys < 1:
        raise CommandError(E.NUMKEYS_POSITIVE)
    if numkeys > len(args) - 1:
        raise CommandError(E.NUMKEYS_TOO_BIG)
    limit = 0
    j = 1 + numkeys
    while j < len(args):
        if option_word(args[j]) == b"LIMIT" and j + 1 < len(args):
            value = parse_int(args[j + 1])
            if value is None or value < 0:
                raise CommandError(E.LIMIT_POSITIVE)
            limit = value
            j += 2
        else:
            raise syntax_error()
    return len(inter(sets_at(db, args[1:1 + numkeys]), limit))
