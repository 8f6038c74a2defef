"""SORT and SORT_RO (Redis 7.0 sort.c semantics) over lists, sets and sorted sets.

``SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
[ALPHA] [STORE dest]``; SORT_RO is the same without STORE.

- Numeric order parses each weight as C ``strtod`` does (leading blanks,
  hex, ``inf``; an empty string is 0; text after the number, NaN or an
  out-of-range value is an error); equal weights fall back to the elements'
  bytes so the order is total. ALPHA compares bytes (the server's collation
  in the C and C.UTF-8 locales), up to a NUL byte except when storing.
- ``BY pattern`` replaces the first ``*`` with the element to name a key
  (``->field`` after it reads a hash field); a missing weight counts as 0,
  or with ALPHA sorts first. A pattern without ``*`` means "do not sort":
  lists and sorted sets keep their order (DESC walks it from the end), sets
  keep theirs, except under STORE, where they are sorted ALPHA for a
  deterministic result, as the server does.
- ``GET pattern`` emits the looked-up value (nil when missing or not a
  string / hash field), ``GET #`` the element itself; STORE writes nil as an
  empty string, stores a list (dropping dest's TTL) and deletes dest when the
  result is empty.

Time O(n log n) for n elements plus O(1) per pattern lookup.
"""
from __future__ import annotations

import functools
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Optional

from fastrank import errors as E
from fastrank._core import SortedSet
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int
from fastrank.engine.commands._numbers import INT64_MAX, match_to_double, strtod_prefix
from fastrank.engine.commands.sets import ordered
from fastrank.engine.keyspace import ListpackZSet

if TYPE_CHECKING:
    from fastrank.engine import Engine


def strtod_weight(text: bytes) -> Optional[float]:
    """A SORT weight as Redis reads it with strtod, or None when it is an error."""
    nul = text.find(b"\0")
    if nul >= 0:
        text = text[:nul]
    if not text:
        return 0.0
    match, end = strtod_prefix(text)
    if match is None or end != len(text):
        return None
    value, erange = match_to_double(match)
    if erange or value != value:
        return None
    return value


def lookup_pattern(db: Engine, pattern: bytes, element: bytes) -> Optional[bytes]:
    """Redis lookupKeyByPattern: ``#`` is the element; else the string (or hash
    field after ``->``) at the key made by putting element in place of ``*``."""
    cstring = pattern.split(b"\0", 1)[0]
    if cstring == b"#":
        return element
    star = cstring.find(b"*")
    if star < 0:
        return None
    arrow = cstring.find(b"->", star + 1)
    field: Optional[bytes] = None
    tail = pattern[star + 1:]
    if arrow >= 0 and arrow + 2 < len(cstring):
        field = pattern[arrow + 2:]
        tail = pattern[star + 1:arrow]
    value = db.lookup(pattern[:star] + element + tail)
    if field is not None:
        if type(value) is not dict:
            return None
        found: Optional[bytes] = value.get(field)
        return found
    return value if type(value) is bytes else None


def _compare_bytes(a: bytes, b: bytes) -> int:
    return (a > b) - (a < b)


def _c_string(text: bytes) -> bytes:
    nul = text.find(b"\0")
    return text if nul < 0 else text[:nul]


def sort_generic(db: Engine, args: list[bytes], readonly: bool) -> Any:
    key = args[0]
    desc = alpha = dont_sort = False
    by: Optional[bytes] = None
    store: Optional[bytes] = None
    limit_start, limit_count = 0, -1
    gets: list[bytes] = []
    j = 1
    while j < len(args):
        word = args[j].upper()
        left = len(args) - j - 1
        if word == b"ASC":
            desc = False
        elif word == b"DESC":
            desc = True
        elif word == b"ALPHA":
            alpha = True
        elif word == b"LIMIT" and left >= 2:
            limit_start, limit_count = to_int(args[j + 1]), to_int(args[j + 2])
            j += 2
        elif word == b"STORE" and not readonly and left >= 1:
            store = args[j + 1]
            j += 1
        elif word == b"BY" and left >= 1:
            by = args[j + 1]
            dont_sort = b"*" not in _c_string(by)
            j += 1
        elif word == b"GET" and left >= 1:
            gets.append(args[j + 1])
            j += 1
        else:
            raise syntax_error()
        j += 1

    value = db.lookup(key)
    kind = type(value)
    if value is not None and kind not in (deque, set, SortedSet, ListpackZSet):
        raise CommandError(E.WRONGTYPE)
    if dont_sort and kind is set and store is not None:
        dont_sort, alpha, by = False, True, None  # a set's own order is not stable

    size = 0 if value is None else len(value)
    start = max(limit_start, 0)
    end = size - 1 if limit_count < 0 else min(start + limit_count - 1, INT64_MAX)
    if start >= size:
        start, end = size - 1, size - 2
    end = min(end, size - 1)

    elements: list[bytes]
    if value is None:
        elements = []
    elif kind is set:
        elements = ordered(value)
    elif kind is deque:
        elements = list(value)
    else:
        elements = value.range(0, -1)
    if dont_sort:
        if kind is not set and desc:
            elements.reverse()
    else:
        elements = sort_elements(db, elements, by, alpha, desc, store is not None)

    chosen = elements[start:end + 1] if end >= start else []
    out: list[Optional[bytes]]
    if gets:
        out = [lookup_pattern(db, g, e) for e in chosen for g in gets]
    else:
        out = list(chosen)
    if store is None:
        return out
    if out:
        db.store(store, deque(b"" if v is None else v for v in out))
    else:
        db.remove(store)
    return len(out)


def sort_elements(db: Engine, elements: list[bytes], by: Optional[bytes], alpha: bool,
                  desc: bool, storing: bool) -> list[bytes]:
    """The elements in SORT order (numeric or ALPHA, by their own value or BY's)."""
    compare: Callable[[Any, Any], int]
    if alpha:
        text = (lambda v: v) if storing else _c_string
        if by is None:
            items: list[tuple[Any, bytes]] = [(text(e), e) for e in elements]

            def compare(x: Any, y: Any) -> int:
                return _compare_bytes(x[0], y[0])
        else:
            weights = [lookup_pattern(db, by, e) for e in elements]
            items = [(None if w is None else text(w), e) for w, e in zip(weights, elements)]

            def compare(x: Any, y: Any) -> int:
                if x[0] is None or y[0] is None:
                    return (x[0] is not None) - (y[0] is not None)
                return _compare_bytes(x[0], y[0])
    else:
        scored: list[tuple[Any, bytes]] = []
        failed = False
        for e in elements:
            source = e if by is None else lookup_pattern(db, by, e)
            score = 0.0 if source is None else strtod_weight(source)
            if score is None:
                failed, score = True, 0.0
            scored.append((score, e))
        if failed:
            raise CommandError(E.SORT_NOT_DOUBLE)
        items = scored

        def compare(x: Any, y: Any) -> int:
            if x[0] != y[0]:
                return 1 if x[0] > y[0] else -1
            return _compare_bytes(x[1], y[1])
    items.sort(key=functools.cmp_to_key(compare), reverse=desc)
    return [e for _, e in items]


@command("sort", -2, write=True)
def sort(db: Engine, args: list[bytes]) -> Any:
    return sort_generic(db, args, False)


@command("sort_ro", -2)
def sort_ro(db: Engine, args: list[bytes]) -> Any:
    return sort_generic(db, args, True)
