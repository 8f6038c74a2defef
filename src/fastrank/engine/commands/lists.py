"""List commands (Redis 7.0 t_list.c semantics): pushes, pops with a count,
LRANGE/LTRIM/LINDEX/LSET/LREM/LINSERT/LPOS, LMOVE/RPOPLPUSH, LMPOP and the
blocking forms (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP).

A list is a ``collections.deque`` of bytes (``TYPE_NAMES`` maps it to
``list``): O(1) at both ends, O(n) in the middle, like Redis's quicklist.
A list never stays empty: the command that removes its last element
deletes the key, as Redis does.

Error precedence follows Redis: most commands parse their arguments before
looking the key up; LSET and LINDEX look the key up first (noted there).
Blocking commands retry after every write (``blocking_pop`` of the sorted
sets) and act as their non-blocking form inside a transaction, where the
timeout's nil reply comes at once.
"""
from __future__ import annotations

from collections import deque
from itertools import islice
from typing import TYPE_CHECKING, Any, Optional

from fastrank import errors as E
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int
from fastrank.engine.commands._numbers import INT64_MIN, parse_int
from fastrank.engine.commands.sortedset import blocking_pop, parse_mpop, parse_timeout

if TYPE_CHECKING:
    from fastrank.engine import Engine

LEFT, RIGHT = True, False  # a list end: head (LEFT) or tail (RIGHT)


def get_list(db: Engine, key: bytes) -> Optional[deque[bytes]]:
    """The list at key, None if missing, WRONGTYPE for any other type. O(1)."""
    value: Optional[deque[bytes]] = db.lookup_type(key, deque)
    return value


def parse_end(arg: bytes) -> bool:
    """LEFT or RIGHT (any case) → LEFT/RIGHT; anything else is a syntax error."""
    word = arg.upper()
    if word == b"LEFT":
        return LEFT
    if word == b"RIGHT":
        return RIGHT
    raise syntax_error()


def positive_count(arg: bytes) -> int:
    """LPOP/RPOP's count: a long >= 0 (Redis getPositiveLongFromObjectOrReply)."""
    value = parse_int(arg)
    if value is None or value < 0:
        raise CommandError(E.OUT_OF_RANGE_POSITIVE)
    return value


def pop_some(db: Engine, key: bytes, lst: deque[bytes], left: bool, count: int) -> list[bytes]:
    """Pop up to count elements from one end (in pop order); deletes an emptied key. O(count)."""
    take = lst.popleft if left else lst.pop
    out = [take() for _ in range(min(count, len(lst)))]
    if out:
        db.touched(key)
        db.drop_if_empty(key, lst)
    return out


def push(db: Engine, key: bytes, values: list[bytes], left: bool, only_existing: bool) -> int:
    """LPUSH/RPUSH (and the X forms): the list's new length. O(len(values))."""
    lst = get_list(db, key)
    if lst is None:
        if only_existing:
            return 0
        lst = deque()
        db.store(key, lst)
    if left:
        lst.extendleft(values)
    else:
        lst.extend(values)
    db.touched(key)
    return len(lst)


@command("lpush", -3, write=True)
def lpush(db: Engine, args: list[bytes]) -> int:
    return push(db, args[0], args[1:], LEFT, False)


@command("rpush", -3, write=True)
def rpush(db: Engine, args: list[bytes]) -> int:
    return push(db, args[0], args[1:], RIGHT, False)


@command("lpushx", -3, write=True)
def lpushx(db: Engine, args: list[bytes]) -> int:
    return push(db, args[0], args[1:], LEFT, True)


@command("rpushx", -3, write=True)
def rpushx(db: Engine, args: list[bytes]) -> int:
    return push(db, args[0], args[1:], RIGHT, True)


def pop_command(db: Engine, args: list[bytes], left: bool, name: str) -> Any:
    """LPOP/RPOP key [count]: one element (or nil), or with a count a list (or nil)."""
    if len(args) > 2:
        raise CommandError(E.WRONG_ARITY % name)
    if len(args) == 1:
        lst = get_list(db, args[0])
        if lst is None:
            return None
        return pop_some(db, args[0], lst, left, 1)[0]
    count = positive_count(args[1])
    lst = get_list(db, args[0])
    if lst is None:
        return None
    return pop_some(db, args[0], lst, left, count)


@command("lpop", -2, write=True)
def lpop(db: Engine, args: list[bytes]) -> Any:
    return pop_command(db, args, LEFT, "lpop")


@command("rpop", -2, write=True)
def rpop(db: Engine, args: list[bytes]) -> Any:
    return pop_command(db, args, RIGHT, "rpop")


@command("llen", 2)
def llen(db: Engine, args: list[bytes]) -> int:
    return len(get_list(db, args[0]) or ())


def clamp_range(start: int, end: int, size: int) -> tuple[int, int]:
    """Redis's normalisation of a [start, end] index range: (first, stop) for slicing."""
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = max(start, 0)
    if start > end or start >= size:
        return 0, 0
    return start, min(end, size - 1) + 1


@command("lrange", 4)
def lrange(db: Engine, args: list[bytes]) -> list[bytes]:
    """O(start + count) from the head."""
    start, end = to_int(args[1]), to_int(args[2])
    lst = get_list(db, args[0])
    if lst is None:
        return []
    first, stop = clamp_range(start, end, len(lst))
    return list(islice(lst, first, stop))


@command("ltrim", 4, write=True)
def ltrim(db: Engine, args: list[bytes]) -> bytes:
    """O(elements removed). The key counts as modified even when nothing goes."""
    start, end = to_int(args[1]), to_int(args[2])
    lst = get_list(db, args[0])
    if lst is None:
        return b"OK"
    first, stop = clamp_range(start, end, len(lst))
    for _ in range(len(lst) - stop):
        lst.pop()
    for _ in range(first):
        lst.popleft()
    db.touched(args[0])
    db.drop_if_empty(args[0], lst)
    return b"OK"


def list_index(index: int, size: int) -> Optional[int]:
    """The 0-based position of a Redis index (negative from the tail), None if outside."""
    if index < 0:
        index += size
    return index if 0 <= index < size else None


@command("lindex", 3)
def lindex(db: Engine, args: list[bytes]) -> Optional[bytes]:
    """Key first, then the index (as Redis). O(n)."""
    lst = get_list(db, args[0])
    if lst is None:
        return None
    where = list_index(to_int(args[1]), len(lst))
    return None if where is None else lst[where]


@command("lset", 4, write=True)
def lset(db: Engine, args: list[bytes]) -> bytes:
    """Key first (``no such key``), then the index (as Redis). O(n)."""
    lst = get_list(db, args[0])
    if lst is None:
        raise CommandError(E.NO_SUCH_KEY)
    where = list_index(to_int(args[1]), len(lst))
    if where is None:
        raise CommandError(E.INDEX_OUT_OF_RANGE)
    lst[where] = args[2]
    db.touched(args[0])
    return b"OK"


@command("lrem", 4, write=True)
def lrem(db: Engine, args: list[bytes]) -> int:
    """count > 0: the first count matches from the head; < 0 from the tail; 0 all. O(n)."""
    count = to_int(args[1])
    lst = get_list(db, args[0])
    if lst is None:
        return 0
    element = args[2]
    limit = abs(count) if count else len(lst)
    items = list(lst) if count >= 0 else list(reversed(lst))
    kept: list[bytes] = []
    removed = 0
    for item in items:
        if removed < limit and item == element:
            removed += 1
        else:
            kept.append(item)
    if removed:
        lst.clear()
        lst.extend(kept if count >= 0 else reversed(kept))
        db.touched(args[0])
        db.drop_if_empty(args[0], lst)
    return removed


@command("linsert", 5, write=True)
def linsert(db: Engine, args: list[bytes]) -> int:
    """The new length, 0 for a missing key, -1 when the pivot is absent. O(n)."""
    where = args[1].upper()
    if where not in (b"BEFORE", b"AFTER"):
        raise syntax_error()
    lst = get_list(db, args[0])
    if lst is None:
        return 0
    try:
        at = lst.index(args[2])
    except ValueError:
        return -1
    lst.insert(at if where == b"BEFORE" else at + 1, args[3])
    db.touched(args[0])
    return len(lst)


def _wrap64(value: int) -> int:
    """value as a signed 64-bit C integer would hold it (two's complement wrap)."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


@command("lpos", -3)
def lpos(db: Engine, args: list[bytes]) -> Any:
    """LPOS key element [RANK r] [COUNT c] [MAXLEN m]: indexes from the head. O(n).

    The options are parsed (the last of each wins) before the key is looked up.
    RANK of INT64_MIN is, as on the server, the first match from the tail
    with no COUNT limit (its negation overflows).
    """
    rank, count, maxlen = 1, -1, 0
    i = 2
    while i < len(args):
        word = args[i].upper()
        if i + 1 >= len(args):
            raise syntax_error()
        if word == b"RANK":
            rank = to_int(args[i + 1])
            if rank == 0:
                raise CommandError(E.LPOS_RANK_ZERO)
        elif word == b"COUNT":
            count = to_int(args[i + 1], E.LPOS_COUNT_NEGATIVE)
            if count < 0:
                raise CommandError(E.LPOS_COUNT_NEGATIVE)
        elif word == b"MAXLEN":
            maxlen = to_int(args[i + 1], E.LPOS_MAXLEN_NEGATIVE)
            if maxlen < 0:
                raise CommandError(E.LPOS_MAXLEN_NEGATIVE)
        else:
            raise syntax_error()
        i += 2
    from_tail = rank < 0
    if from_tail and rank != INT64_MIN:
        rank = -rank
    lst = get_list(db, args[0])
    if lst is None:
        return [] if count != -1 else None
    size = len(lst)
    items = reversed(lst) if from_tail else iter(lst)
    found: list[int] = []
    matches = 0
    for index, item in enumerate(items):
        if maxlen and index >= maxlen:
            break
        if item != args[1]:
            continue
        matches += 1
        if matches >= rank:
            found.append(size - index - 1 if from_tail else index)
            if count == -1 or (count and _wrap64(matches - rank + 1) >= count):
                break
    if count == -1:
        return found[0] if found else None
    return found


# -- moves -------------------------------------------------------------------


def move(db: Engine, src: bytes, dst: bytes, src_left: bool, dst_left: bool) -> Optional[bytes]:
    """LMOVE core: the moved element, or None when src is missing. Type errors
    come from src first, then dst (only looked at when src has something). O(1)."""
    source = get_list(db, src)
    if source is None:
        return None
    target = get_list(db, dst)  # the same deque when src == dst
    element = source.popleft() if src_left else source.pop()
    if target is None:
        target = deque()
        db.store(dst, target)
    if dst_left:
        target.appendleft(element)
    else:
        target.append(element)
    db.touched(src)
    db.drop_if_empty(src, source)
    db.touched(dst)
    return element


@command("lmove", 5, write=True)
def lmove(db: Engine, args: list[bytes]) -> Optional[bytes]:
    src_left, dst_left = parse_end(args[2]), parse_end(args[3])
    return move(db, args[0], args[1], src_left, dst_left)


@command("rpoplpush", 3, write=True)
def rpoplpush(db: Engine, args: list[bytes]) -> Optional[bytes]:
    return move(db, args[0], args[1], RIGHT, LEFT)


def blocking_move(db: Engine, args: list[bytes], src_left: bool, dst_left: bool,
                  timeout: bytes) -> Optional[bytes]:
    """BLMOVE/BRPOPLPUSH: a source that became another type while waiting is
    passed over (not a wake-up on the server); a wrong destination is an error."""
    deadline = parse_timeout(timeout)

    def attempt(waiting: bool) -> Optional[bytes]:
        if waiting and type(db.lookup(args[0])) not in (deque, type(None)):
            return None
        return move(db, args[0], args[1], src_left, dst_left)

    return blocking_pop(db, deadline, attempt)


@command("blmove", 6, write=True, blocking=True)
def blmove(db: Engine, args: list[bytes]) -> Optional[bytes]:
    src_left, dst_left = parse_end(args[2]), parse_end(args[3])
    return blocking_move(db, args, src_left, dst_left, args[4])


@command("brpoplpush", 4, write=True, blocking=True)
def brpoplpush(db: Engine, args: list[bytes]) -> Optional[bytes]:
    return blocking_move(db, args, RIGHT, LEFT, args[2])


# -- pops over several keys --------------------------------------------------


def pop_first(db: Engine, keys: list[bytes], left: bool, count: int,
              waiting: bool = False) -> Optional[tuple[bytes, list[bytes]]]:
    """(key, elements) from the first non-empty list among keys, or None.

    A key of another type stops the scan with WRONGTYPE, as on the server,
    except for a client already ``waiting``: the server wakes it only for a
    list, so a key that became another type is passed over.
    """
    for key in keys:
        if waiting and type(db.lookup(key)) not in (deque, type(None)):
            continue
        lst = get_list(db, key)
        if lst:
            return key, pop_some(db, key, lst, left, count)
    return None


def _bpop(db: Engine, args: list[bytes], left: bool) -> Optional[list[bytes]]:
    deadline = parse_timeout(args[-1])
    keys = args[:-1]

    def attempt(waiting: bool) -> Optional[list[bytes]]:
        popped = pop_first(db, keys, left, 1, waiting)
        return None if popped is None else [popped[0], popped[1][0]]

    return blocking_pop(db, deadline, attempt)


@command("blpop", -3, write=True, blocking=True)
def blpop(db: Engine, args: list[bytes]) -> Optional[list[bytes]]:
    return _bpop(db, args, LEFT)


@command("brpop", -3, write=True, blocking=True)
def brpop(db: Engine, args: list[bytes]) -> Optional[list[bytes]]:
    return _bpop(db, args, RIGHT)


def _mpop_reply(popped: Optional[tuple[bytes, list[bytes]]]) -> Optional[list[Any]]:
    return None if popped is None else [popped[0], popped[1]]


@command("lmpop", -4, write=True)
def lmpop(db: Engine, args: list[bytes]) -> Optional[list[Any]]:
    keys, left, count = parse_mpop(args, parse_end)
    return _mpop_reply(pop_first(db, keys, left, count))


@command("blmpop", -5, write=True, blocking=True)
def blmpop(db: Engine, args: list[bytes]) -> Optional[list[Any]]:
    """The timeout is parsed after the other arguments, as Redis does."""
    keys, left, count = parse_mpop(args[1:], parse_end)
    deadline = parse_timeout(args[0])
    return blocking_pop(db, deadline,
                        lambda waiting: _mpop_reply(pop_first(db, keys, left, count, waiting)))
