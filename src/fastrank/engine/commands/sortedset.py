"""Sorted-set commands (Redis 7.0 t_zset.c semantics) on the C SortedSet.

Sections: argument parsing, point commands (ZADD, ZINCRBY, ZSCORE,
ZRANK...), range reads (the ZRANGE family), removals, pops (ZPOP*, ZMPOP and
the blocking variants), ZRANDMEMBER, set algebra (ZUNION/ZINTER/ZDIFF and
their STORE forms, ZINTERCARD) and ZSCAN.

The read commands ZCOUNT, ZLEXCOUNT, ZMSCORE and the ZRANGE family (one
generic like Redis's zrangeGenericCommand, with the score and lex range
parsers) are compiled, in engine/native/zset_commands.pxi; they are registered in the
command table here like the others.

Encodings: a zset Redis would hold listpack-encoded is a
:class:`ListpackZSet`, one it would hold as a skiplist a plain ``SortedSet``
(the value types and the conversion rule, :func:`zset_add`, are
``fastrank/keyspace.py``'s). New keys follow Redis: ZADD/ZINCRBY choose from
the first member's length, ZRANGESTORE from the range length (BYSCORE/BYLEX:
listpack) and then converts as members go in, ZUNIONSTORE/ZINTERSTORE/
ZDIFFSTORE build a skiplist and turn it into a listpack when the result
fits.

Replies are RESP3 shaped as hiredis hands them over: a score is a ``float``,
WITHSCORES gives ``[[member, score], ...]``; redis-py's callbacks then make
the legacy Python shapes. Error precedence follows Redis: arguments are
parsed (and rejected) before the key is looked up, except where Redis looks
the key up first (noted at the handler).
"""
from __future__ import annotations

import math
import random
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, TypeVar, Union

import numpy as np
import numpy.typing as npt

from fastrank import errors as E
from fastrank._core import (SortedSet, lex_range, score_range, zcard, zcount, zlexcount, zmscore,
                            zrank, zrevrank, zscore,
                            zrange_generic, zrangebylex, zrangebyscore, zrevrangebylex,
                            zrevrangebyscore, zincrby_command, zadd_command, zset_algebra)
from fastrank.engine.commands.table import (CommandError, check_random_reply, command, random_count,
                                            syntax_error, to_int, to_score)
from fastrank.engine.commands._numbers import (
    INT64_MAX,
    parse_score,
    format_double,
    parse_int,
    parse_long_double,
)
from fastrank.engine.commands.keys import parse_cursor, scan_options, scan_reply
from fastrank.engine.keyspace import (LISTPACK_ENTRIES, LISTPACK_VALUE, ListpackZSet, blen, new_zset,
                               zset_add)

if TYPE_CHECKING:
    from fastrank.engine import Engine

_T = TypeVar("_T")

# A ZUNION/ZINTER/ZDIFF source: a zset, a plain set (scores 1) or a missing key.
_Source = Union[SortedSet, "set[bytes]", None]


# ZADD's scores once parsed: floats, or a float64 array (the Engine's ZADD front door).
Scores = Union[Sequence[float], "npt.NDArray[np.float64]"]

# A plain ZADD of at least this many pairs into a skiplist zset uses the core's batch insert.
BULK_MIN = 16


def _no_negative_zero(scores: Scores) -> bool:
    """True when no score is -0.0. O(n) (vectorised for an array)."""
    if isinstance(scores, np.ndarray):
        return not bool(np.any(np.signbit(scores) & (scores == 0.0)))
    return all(s or math.copysign(1.0, s) > 0 for s in scores)


def zset_add_bulk(db: Engine, z: SortedSet, members: Sequence[bytes | str],
                  scores: Scores) -> int | None:
    """Plain ZADD (no NX/XX/GT/LT/CH) of many pairs via SortedSet.add_many.

    Returns the number added, or None when the member-by-member path must
    run: a listpack zset (it may convert part-way), few pairs, a -0.0
    score (kept on the member-by-member path, which owns the -0.0 rules),
    or a watched key (WATCH needs to know whether anything changed). Later
    duplicates win, as in Redis.
    """
    if type(z) is not SortedSet or len(members) < BULK_MIN or db.has_watchers() \
            or not _no_negative_zero(scores):
        return None
    return z.add_many(members, scores)


def zset_new_bulk(members: Sequence[bytes | str], scores: Scores) -> SortedSet | None:
    """The skiplist zset a plain ZADD of more than 128 pairs creates at a
    missing key, loaded in one bulk build (``SortedSet.add_many``: the pairs
    sorted in C, the list linked in one pass); later duplicates win.

    None when Redis would end with another value, for the member-by-member
    path to build: fewer distinct members than convert a listpack (none
    longer than 64 bytes), or a -0.0 score (the listpack that Redis starts
    with stores -0.0 as 0.0). O(n) after the sort.
    """
    if len(members) <= LISTPACK_ENTRIES or not _no_negative_zero(scores):
        return None
    z = SortedSet()
    if z.add_many(members, scores) <= LISTPACK_ENTRIES and \
            all(blen(m) <= LISTPACK_VALUE for m in members):
        return None
    return z


def replace_zset(db: Engine, key: bytes, old: SortedSet, new: SortedSet) -> None:
    """After a conversion: put the new object where the old one was (TTL kept)."""
    if new is not old:
        db.replace(key, new)


# -- lookups and argument parsing --------------------------------------------


def get_zset(db: Engine, key: bytes) -> SortedSet | None:
    value: SortedSet | None = db.lookup(key)
    if value is not None and type(value) is not SortedSet and type(value) is not ListpackZSet:
        raise CommandError(E.WRONGTYPE)
    return value


def count_arg(arg: bytes, error: str) -> int:
    """A long in [1, LONG_MAX] (Redis getRangeLongFromObjectOrReply with msg)."""
    value = parse_int(arg)
    if value is None or value < 1:
        raise CommandError(error)
    return value


def pairs(items: Iterable[tuple[bytes, float]]) -> list[list[bytes | float]]:
    return [[m, s] for m, s in items]


# -- point commands ----------------------------------------------------------


def zadd_generic(db: Engine, args: list[bytes], incr: bool) -> int | float | None:
    key, i = args[0], 1
    flags: set[bytes] = set()
    while i < len(args):
        word = args[i].upper()
        if word not in (b"NX", b"XX", b"CH", b"INCR", b"GT", b"LT"):
            break
        flags.add(word)
        i += 1
    incr = incr or b"INCR" in flags
    rest = args[i:]
    if not rest or len(rest) % 2:
        raise syntax_error()
    nx, xx, gt, lt = (w in flags for w in (b"NX", b"XX", b"GT", b"LT"))
    if nx and xx:
        raise CommandError(E.ZADD_XX_NX)
    if (gt and nx) or (lt and nx) or (gt and lt):
        raise CommandError(E.ZADD_GT_LT_NX)
    if incr and len(rest) > 2:
        raise CommandError(E.ZADD_INCR_PAIRS)
    scores = [to_score(rest[j]) for j in range(0, len(rest), 2)]
    if incr:
        z = get_zset(db, key)
        if z is None:
            if xx:
                return None
            z = new_zset(len(rest[1]))
            db.store(key, z)
        return _zadd_incr(db, key, z, rest[1], scores[0], nx, xx, gt, lt)
    return zadd_pairs(db, key, rest[1::2], scores, nx, xx, gt, lt, b"CH" in flags)


def zadd_pairs(db: Engine, key: bytes, members: Sequence[bytes | str], scores: Scores,
               nx: bool = False, xx: bool = False, gt: bool = False, lt: bool = False,
               ch: bool = False) -> int:
    """ZADD without INCR once its arguments are parsed (flags already checked):
    the number added, or added + changed with CH. Creates the key (unless XX),
    converts a listpack when it outgrows its limits. O(m log n) for m pairs."""
    z = get_zset(db, key)
    plain = not (nx or xx or gt or lt or ch)
    if z is None:
        if xx:
            return 0
        z = zset_new_bulk(members, scores) if plain else None
        if z is not None:
            db.store(key, z)
            return len(z)
        z = new_zset(blen(members[0]))
        db.store(key, z)
    if plain:
        added = zset_add_bulk(db, z, members, scores)
        if added is not None:
            return added
    if isinstance(scores, np.ndarray):
        scores = scores.tolist()
    added = changed = 0
    first = z
    for member, score in zip(members, scores):
        z, status = zset_add(z, member, score, nx, xx, gt, lt)
        added += status == 1
        changed += status == 2
    replace_zset(db, key, first, z)
    if added or changed:
        db.touched(key)
    return added + changed if ch else added


def _zadd_incr(db: Engine, key: bytes, z: SortedSet, member: bytes, incr: float, nx: bool,
               xx: bool, gt: bool, lt: bool) -> float | None:
    """ZADD INCR / ZINCRBY: the reply is the computed score, whatever is stored."""
    current = z.score(member)
    if current is None:
        if xx:
            return None
        new, _ = zset_add(z, member, incr)
        replace_zset(db, key, z, new)
        db.touched(key)
        return incr
    if nx:
        return None
    score = current + incr
    if score != score:
        raise CommandError(E.SCORE_NAN)
    if (lt and score >= current) or (gt and score <= current):
        return None
    if score != current:
        zset_add(z, member, score)
        db.touched(key)
    return score


def zadd(db: Engine, args: list[bytes]) -> int | float | None:
    """ZADD's rule (args after the word). The registered handler,
    ``zadd_command`` (engine/native/zadd_handler.pxi), runs the common case in C and
    hands every other call here. O(m log n) for m pairs."""
    return zadd_generic(db, args, False)


def zincrby(db: Engine, args: list[bytes]) -> int | float | None:
    """ZINCRBY's rule (args after the word). The registered handler,
    ``zincrby_command`` (engine/native/zincrby_handler.pxi), runs the common case in C
    and hands every other call here. O(log n)."""
    # The common case first (a skiplist zset without TTL, a finite non-zero
    # increment: no NaN, no -0.0 to keep), for increments the compiled
    # handler does not read (exponents, a leading '+'...).
    z = db.lookup_persistent(args[0])
    if type(z) is SortedSet:
        amount = parse_score(args[1])
        if amount is not None and amount and amount - amount == 0.0:
            score: float = z.incr(args[2], amount)
            db.written(args[0])
            return score
    return zadd_generic(db, args, True)


# -- the ZRANGE family ---------------------------------------------------------


def zrange_store(db: Engine, args: list[bytes]) -> int:
    """ZRANGESTORE: the range the compiled ZRANGE family gives, stored at args[0]."""
    items, by_rank = zrange_generic(db, args[1:], store=args[0])
    # Redis zrangeResultBeginStore: a rank range longer than the listpack
    # limit starts as a skiplist, anything else as a listpack that
    # converts as the members go in (in reply order).
    listpack = not by_rank or len(items) <= LISTPACK_ENTRIES
    z = ListpackZSet() if listpack else SortedSet()
    for member, score in items:
        z, _ = zset_add(z, member, score)
    return store_result(db, args[0], z)


def store_result(db: Engine, dest: bytes, z: SortedSet) -> int:
    """Overwrite dest with the zset z (deleting dest when z is empty); the size."""
    if not z:
        db.remove(dest)  # signals dest when it existed
        return 0
    db.store(dest, z)
    return len(z)


@command("zrange", -4)
def zrange(db: Engine, args: list[bytes]) -> Any:
    return zrange_generic(db, args)


@command("zrangestore", -5, write=True)
def zrangestore(db: Engine, args: list[bytes]) -> Any:
    return zrange_store(db, args)


@command("zrevrange", -4)
def zrevrange(db: Engine, args: list[bytes]) -> Any:
    return zrange_generic(db, args, rangetype="rank", reverse=True)


# The by-score and by-lex commands, ZCARD, ZSCORE, ZRANK, ZREVRANK, ZCOUNT, ZLEXCOUNT
# and ZMSCORE are compiled
# (engine/native/zset_commands.pxi, as the ZRANGE family's zrange_generic above): their
# bounds are read in C, rarer argument forms by the rules of this package.
command("zmscore", -3, whole_argv=True)(zmscore)
command("zcard", 2, whole_argv=True)(zcard)
command("zscore", 3, whole_argv=True)(zscore)
command("zrank", 3, whole_argv=True)(zrank)
command("zrevrank", 3, whole_argv=True)(zrevrank)
# ZINCRBY's and ZADD's common cases are compiled (engine/native/zincrby_handler.pxi,
# engine/native/zadd_handler.pxi); the rest is zincrby and zadd above.
command("zadd", -4, write=True, whole_argv=True)(zadd_command)
command("zincrby", 4, write=True, whole_argv=True)(zincrby_command)
command("zcount", 4, whole_argv=True)(zcount)
command("zlexcount", 4, whole_argv=True)(zlexcount)
command("zrangebyscore", -4, whole_argv=True)(zrangebyscore)
command("zrevrangebyscore", -4, whole_argv=True)(zrevrangebyscore)
command("zrangebylex", -4, whole_argv=True)(zrangebylex)
command("zrevrangebylex", -4, whole_argv=True)(zrevrangebylex)


# -- removal -------------------------------------------------------------------


@command("zrem", -3, write=True)
def zrem(db: Engine, args: list[bytes]) -> int:
    z = get_zset(db, args[0])
    if z is None:
        return 0
    removed = sum(z.remove(m) for m in args[1:])
    if removed:
        db.touched(args[0])
        db.drop_if_empty(args[0], z)
    return removed


def _zremrange(db: Engine, args: list[bytes], how: str) -> int:
    if how == "rank":
        start, stop = to_int(args[1]), to_int(args[2])
    elif how == "score":
        lo, hi, lo_ex, hi_ex = score_range(args[1], args[2])
    else:
        bounds = lex_range(args[1], args[2])
    z = get_zset(db, args[0])
    if z is None:
        return 0
    if how == "rank":
        removed = z.remove_range_by_rank(start, stop)
    elif how == "score":
        removed = z.remove_range_by_score(lo, hi, min_exclusive=lo_ex, max_exclusive=hi_ex)
    elif bounds is None:
        removed = 0
    else:
        lex_lo, lex_hi, lo_ex, hi_ex = bounds
        removed = z.remove_range_by_lex(lex_lo, lex_hi, min_exclusive=lo_ex, max_exclusive=hi_ex)
    if removed:
        db.touched(args[0])
        db.drop_if_empty(args[0], z)
    return removed


@command("zremrangebyrank", 4, write=True)
def zremrangebyrank(db: Engine, args: list[bytes]) -> int:
    return _zremrange(db, args, "rank")


@command("zremrangebyscore", 4, write=True)
def zremrangebyscore(db: Engine, args: list[bytes]) -> int:
    return _zremrange(db, args, "score")


@command("zremrangebylex", 4, write=True)
def zremrangebylex(db: Engine, args: list[bytes]) -> int:
    return _zremrange(db, args, "lex")


# -- pops ------------------------------------------------------------------------


def pop_first(
    db: Engine, keys: Sequence[bytes], where_max: bool, count: int, waiting: bool = False
) -> tuple[bytes, list[tuple[bytes, float]]] | tuple[None, None]:
    """Redis genericZpopCommand core: (key, items) from the first non-empty key.

    Type errors stop at the first existing key of another type, except for a
    client already ``waiting`` (see ``blocking_pop``), which passes it over.
    """
    for key in keys:
        if waiting and type(db.lookup(key)) not in (SortedSet, ListpackZSet, type(None)):
            continue
        z = get_zset(db, key)
        if z is None:
            continue
        if count == 0:
            return key, []
        items = z.pop_max(count) if where_max else z.pop_min(count)
        if items:
            db.touched(key)
            db.drop_if_empty(key, z)
        return key, items
    return None, None


def _zpop(db: Engine, args: list[bytes], where_max: bool) -> list[Any]:
    if len(args) > 2:
        raise syntax_error()
    count: int | None = None
    if len(args) == 2:
        count = parse_int(args[1])
        if count is None or count < 0:
            raise CommandError(E.OUT_OF_RANGE_POSITIVE)
    key, items = pop_first(db, args[:1], where_max, 1 if count is None else count)
    if not items:
        return []
    if count is None:
        return [items[0][0], items[0][1]]
    return pairs(items)


@command("zpopmin", -2, write=True)
def zpopmin(db: Engine, args: list[bytes]) -> list[Any]:
    return _zpop(db, args, False)


@command("zpopmax", -2, write=True)
def zpopmax(db: Engine, args: list[bytes]) -> list[Any]:
    return _zpop(db, args, True)


def min_or_max(arg: bytes) -> bool:
    """MIN or MAX (any case) → True for MAX; anything else is a syntax error."""
    word = arg.upper()
    if word not in (b"MIN", b"MAX"):
        raise syntax_error()
    return word == b"MAX"


def parse_mpop(args: list[bytes], end: Callable[[bytes], bool] = min_or_max
               ) -> tuple[list[bytes], bool, int]:
    """ZMPOP/LMPOP arguments from numkeys on: (keys, the end word as ``end``
    reads it, count), in Redis's order of checks."""
    numkeys = count_arg(args[0], E.NUMKEYS_POSITIVE)
    where = 1 + numkeys
    if where >= len(args):
        raise syntax_error()
    which = end(args[where])
    count: int | None = None
    j = where + 1
    while j < len(args):
        if count is None and args[j].upper() == b"COUNT" and j + 1 < len(args):
            count = count_arg(args[j + 1], E.COUNT_POSITIVE)
            j += 2
        else:
            raise syntax_error()
    return args[1:where], which, count or 1


@command("zmpop", -4, write=True)
def zmpop(db: Engine, args: list[bytes]) -> list[Any] | None:
    keys, where_max, count = parse_mpop(args)
    key, items = pop_first(db, keys, where_max, count)
    return None if items is None else [key, pairs(items)]  # items is None iff key is


_FOREVER_S = threading.TIMEOUT_MAX / 2


def parse_timeout(arg: bytes) -> float | None:
    """Redis getTimeoutFromObjectOrReply (seconds): a monotonic deadline or None."""
    value = parse_long_double(arg)
    if value is None:
        raise CommandError(E.TIMEOUT_NOT_FLOAT)
    ms = value * 1000
    # Past INT64_MAX the server's conversion to a long long yields its most
    # negative value, hence "negative"; a deadline beyond what a wait can
    # take (centuries) is never reached: no deadline.
    if ms < 0 or ms > INT64_MAX:
        raise CommandError(E.TIMEOUT_NEGATIVE)
    ms = math.ceil(ms)
    if ms == 0 or ms / 1000.0 > _FOREVER_S:
        return None
    return time.monotonic() + ms / 1000.0


def blocking_pop(db: Engine, deadline: float | None,
                 attempt: Callable[[bool], _T | None]) -> _T | None:
    """Retry ``attempt(waiting)`` after every write until it answers or time runs out.

    ``waiting`` is False on the first try, True on the retries (also when
    fastrank.asyncio retries a blocked command afresh: ``db._retrying``). The
    server wakes a blocked client only for a key of the type it waits for, so
    a retry passes over keys that have turned into another type.
    """
    waiting = db._retrying
    while True:
        reply = attempt(waiting)
        if reply is not None:
            return reply
        if not db.wait_for_write(deadline):
            return None
        waiting = True


def _bzpop(db: Engine, args: list[bytes], where_max: bool) -> list[Any] | None:
    deadline = parse_timeout(args[-1])
    keys = args[:-1]

    def attempt(waiting: bool) -> list[Any] | None:
        key, items = pop_first(db, keys, where_max, 1, waiting)
        return None if not items else [key, items[0][0], items[0][1]]

    return blocking_pop(db, deadline, attempt)


@command("bzpopmin", -3, write=True, blocking=True)
def bzpopmin(db: Engine, args: list[bytes]) -> list[Any] | None:
    return _bzpop(db, args, False)


@command("bzpopmax", -3, write=True, blocking=True)
def bzpopmax(db: Engine, args: list[bytes]) -> list[Any] | None:
    return _bzpop(db, args, True)


@command("bzmpop", -5, write=True, blocking=True)
def bzmpop(db: Engine, args: list[bytes]) -> list[Any] | None:
    deadline = parse_timeout(args[0])
    keys, where_max, count = parse_mpop(args[1:])

    def attempt(waiting: bool) -> list[Any] | None:
        key, items = pop_first(db, keys, where_max, count, waiting)
        return None if items is None else [key, pairs(items)]  # items is None iff key is

    return blocking_pop(db, deadline, attempt)


# -- ZRANDMEMBER -------------------------------------------------------------------


@command("zrandmember", -2)
def zrandmember(db: Engine, args: list[bytes]) -> Any:
    if len(args) == 1:
        z = get_zset(db, args[0])
        if z is None or not len(z):
            return None
        i = random.randrange(len(z))
        return z.range(i, i)[0]
    count = random_count(args[1])
    withscores = False
    if len(args) > 3 or (len(args) == 3 and args[2].upper() != b"WITHSCORES"):
        raise syntax_error()
    if len(args) == 3:
        withscores = True
        if count < -INT64_MAX // 2 or count > INT64_MAX // 2:
            raise CommandError(E.VALUE_OUT_OF_RANGE)
    z = get_zset(db, args[0])
    if z is None or count == 0:
        return []
    check_random_reply(db, count)
    items = z.items()
    if count < 0:
        chosen = [random.choice(items) for _ in range(-count)]
    elif count >= len(items):
        chosen = items[::-1]  # the order a small (listpack) zset gives
    else:
        chosen = random.sample(items, count)
    return pairs(chosen) if withscores else [m for m, _ in chosen]


# -- set algebra -------------------------------------------------------------------


def setop_generic(db: Engine, args: list[bytes], name: str, op: str, store: bool = False,
                  card_only: bool = False) -> tuple[SortedSet, bool, int]:
    """Redis zunionInterDiffGenericCommand from numkeys on: the result (a new
    SortedSet, folded by the compiled ``zset_algebra``), WITHSCORES, LIMIT."""
    numkeys = to_int(args[0])
    if numkeys < 1:
        raise CommandError(E.AT_LEAST_ONE_KEY % name)
    if numkeys > len(args) - 1:
        raise syntax_error()
    sources: list[_Source] = []
    for key in args[1:1 + numkeys]:
        value = db.lookup(key)
        if value is not None and type(value) not in (SortedSet, ListpackZSet, set):
            raise CommandError(E.WRONGTYPE)
        sources.append(value)
    weights = [1.0] * numkeys
    limit: int | None
    how, withscores, limit = b"SUM", False, 0
    j = 1 + numkeys
    while j < len(args):
        word, left = args[j].upper(), len(args) - j
        if op != "diff" and not card_only and left >= numkeys + 1 and word == b"WEIGHTS":
            weights = [to_score(w, E.WEIGHT_NOT_FLOAT) for w in args[j + 1:j + 1 + numkeys]]
            j += 1 + numkeys
        elif op != "diff" and not card_only and left >= 2 and word == b"AGGREGATE":
            how = args[j + 1].upper()
            if how not in (b"SUM", b"MIN", b"MAX"):
                raise syntax_error()
            j += 2
        elif not store and not card_only and word == b"WITHSCORES":
            withscores = True
            j += 1
        elif card_only and left >= 2 and word == b"LIMIT":
            limit = parse_int(args[j + 1])
            if limit is None or limit < 0:
                raise CommandError(E.LIMIT_POSITIVE)
            j += 2
        else:
            raise syntax_error()
    result = zset_algebra(op, sources, weights, how)
    return result, withscores, limit


def _setop_reply(db: Engine, args: list[bytes], name: str, op: str) -> list[Any]:
    result, withscores, _ = setop_generic(db, args, name, op)
    items = result.items()  # by (score, member), as Redis replies
    return pairs(items) if withscores else [m for m, _ in items]


def _setop_store(db: Engine, args: list[bytes], name: str, op: str) -> int:
    result, _, _ = setop_generic(db, args[1:], name, op, store=True)
    # Redis builds a skiplist, then zsetConvertToListpackIfNeeded.
    if len(result) <= LISTPACK_ENTRIES:
        items = result.items()
        if all(len(m) <= LISTPACK_VALUE for m, _ in items):
            result = ListpackZSet()
            for member, score in items:
                result.add_status(member, 0.0 if score == 0.0 else score)
    return store_result(db, args[0], result)


@command("zunion", -3)
def zunion(db: Engine, args: list[bytes]) -> list[Any]:
    return _setop_reply(db, args, "zunion", "union")


@command("zinter", -3)
def zinter(db: Engine, args: list[bytes]) -> list[Any]:
    return _setop_reply(db, args, "zinter", "inter")


@command("zdiff", -3)
def zdiff(db: Engine, args: list[bytes]) -> list[Any]:
    return _setop_reply(db, args, "zdiff", "diff")


@command("zunionstore", -4, write=True)
def zunionstore(db: Engine, args: list[bytes]) -> int:
    return _setop_store(db, args, "zunionstore", "union")


@command("zinterstore", -4, write=True)
def zinterstore(db: Engine, args: list[bytes]) -> int:
    return _setop_store(db, args, "zinterstore", "inter")


@command("zdiffstore", -4, write=True)
def zdiffstore(db: Engine, args: list[bytes]) -> int:
    return _setop_store(db, args, "zdiffstore", "diff")


@command("zintercard", -3)
def zintercard(db: Engine, args: list[bytes]) -> int:
    result, _, limit = setop_generic(db, args, "zintercard", "inter", card_only=True)
    return len(result) if limit == 0 else min(limit, len(result))


# -- ZSCAN -------------------------------------------------------------------------


@command("zscan", -3)
def zscan(db: Engine, args: list[bytes]) -> Any:
    cursor = parse_cursor(args[1])
    z = get_zset(db, args[0])
    if z is None:
        return [b"0", []]
    pattern, _ = scan_options(args[2:], False)
    items = [(m, format_double(s)) for m, s in z.items()]
    return scan_reply(cursor, items, pattern, pairs=True)
