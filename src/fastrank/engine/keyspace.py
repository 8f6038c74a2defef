"""The Engine's keyspace: what a value is, and the one API that reads and writes keys.

**Values.** The keyspace maps key ``bytes`` to a value whose Python type is
the Redis type (:data:`TYPE_NAMES`): ``bytes`` a string, :class:`SortedSet`
or :class:`ListpackZSet` a zset, ``dict`` a hash, ``set`` a set, ``deque`` a
list, ``CountMinSketch`` / ``TopK`` RedisBloom's sketches.

Zset encodings: Redis keeps a zset listpack-encoded while it has at most
:data:`LISTPACK_ENTRIES` members of at most :data:`LISTPACK_VALUE` bytes, and
a listpack stores an integral score as an integer, so -0.0 reads back as 0; a
skiplist keeps -0.0. That is the only observable difference, so the only one
modelled: a zset Redis would hold as a listpack is a :class:`ListpackZSet` (a
SortedSet subclass; every score written to it is normalised to +0.0), one it
would hold as a skiplist a plain ``SortedSet`` (scores kept as given). A
listpack becomes a skiplist (copied once, at most 128 members) on the insert
of a 129th or a 65-byte member, before that member goes in (:func:`zset_add`),
and never turns back. Which encoding a new key starts in is the command's
business (``commands/sortedset.py``).

**Keys.** :class:`Keyspace` (the Engine inherits it) owns two dicts: key →
value and key → deadline (ms since the epoch; a key without one never
expires). Every key in the second is in the first. Expiry is lazy, as in
Redis: a key whose deadline has passed (``now > deadline``) is deleted by the
first lookup that meets it. Command handlers, snapshots, the Lua bridge and
pipelines go through the methods below only; the compiled fast paths
(``EngineState``) read the same two dicts in C, so the dicts are made once
and never rebound (emptying one clears it in place).

**Modified keys.** Every method that changes a key reports it as Redis's
``signalModifiedKey`` does (``store``, ``replace``, ``remove``,
``set_deadline``, ``clear_deadline``); a handler that changes a value in place calls
:meth:`Keyspace.touched` itself. While nothing is watched that costs one
attribute test. WATCH bookkeeping: ``_watched`` maps each watched key to the
pipelines watching it; a touch marks them dirty so that their EXEC fails
(``fastrank/pipeline.py``). ``_observed`` is the one flag the fast paths test
after a write: someone watches a key or waits for a write (a blocked pop).

All methods expect the Engine's lock (``_lock``, re-entrant) to be held.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from fastrank._core import (CountMinSketch, EngineLock, SortedSet, TopK, engine_lookup,
                            engine_lookup_type)

if TYPE_CHECKING:
    from fastrank.engine.pipeline import Pipeline


class CommandError(Exception):
    """An error reply: ``line`` is the whole Redis error line (``ERR ...``)."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def now_ms() -> int:
    """The clock expiry is measured on: ms since the epoch. O(1)."""
    return int(time.time() * 1000)


# -- zset encodings --------------------------------------------------------------

LISTPACK_ENTRIES = 128  # zset-max-listpack-entries
LISTPACK_VALUE = 64     # zset-max-listpack-value


class ListpackZSet(SortedSet):
    """A zset Redis would hold listpack-encoded: scores are stored -0.0 → 0.0.

    Lex ranges over members of different scores follow Redis's listpack
    walks (:class:`_LexBounds`), which differ in reverse from its skip
    list's (the core's ``SortedSet._lex_walk``); with one score they are
    the core's, as in Redis. O(128) at most: a listpack is that small.
    """

    __slots__ = ()

    def range_by_lex(self, min: bytes | None, max: bytes | None, *,  # noqa: A002
                     min_exclusive: bool = False, max_exclusive: bool = False,
                     reverse: bool = False, offset: int = 0, count: int = -1) -> list[bytes]:
        if self._one_score():
            return super().range_by_lex(min, max, min_exclusive=min_exclusive,
                                        max_exclusive=max_exclusive, reverse=reverse,
                                        offset=offset, count=count)
        if offset < 0 or count == 0:
            return []
        bounds = _LexBounds(min, max, min_exclusive, max_exclusive)
        members = [m for m, _ in self.items()]
        i = bounds.last(members) if reverse else bounds.first(members)
        if i is None:
            return []
        step = -1 if reverse else 1
        i += step * offset
        out: list[bytes] = []
        while 0 <= i < len(members) and count != 0:
            m = members[i]
            if not (bounds.gte_min(m) if reverse else bounds.lte_max(m)):
                break
            out.append(m)
            i += step
            count -= 1
        return out

    def count_by_lex(self, min: bytes | None, max: bytes | None, *,  # noqa: A002
                     min_exclusive: bool = False, max_exclusive: bool = False) -> int:
        if self._one_score():
            return super().count_by_lex(min, max, min_exclusive=min_exclusive,
                                        max_exclusive=max_exclusive)
        return len(self.range_by_lex(min, max, min_exclusive=min_exclusive,
                                     max_exclusive=max_exclusive))

    def remove_range_by_lex(self, min: bytes | None, max: bytes | None, *,  # noqa: A002
                            min_exclusive: bool = False, max_exclusive: bool = False) -> int:
        if self._one_score():
            return super().remove_range_by_lex(min, max, min_exclusive=min_exclusive,
                                               max_exclusive=max_exclusive)
        gone = self.range_by_lex(min, max, min_exclusive=min_exclusive,
                                 max_exclusive=max_exclusive)
        for m in gone:
            self.remove(m)
        return len(gone)

    def _one_score(self) -> bool:
        return len(self) < 2 or self.range(0, 0, False, True)[0][1] == \
            self.range(-1, -1, False, True)[0][1]


class _LexBounds:
    """Redis's listpack lex walks (zzlFirstInLexRange / zzlLastInLexRange)
    over a zset's members in set order, for members of different scores.

    Both first check that the range can hold anything: it is not empty, the
    last member is >= min and the first is <= max.  first: the first member
    >= min, if it is <= max.  last: scanning back from the end, the first
    member <= max, if it is >= min.  A range then walks on from there until
    the first member out of range (ZRANGEBYLEX forward, ZLEXCOUNT,
    ZREMRANGEBYLEX), or back (ZREVRANGEBYLEX).  O(n): a listpack has at most
    128 members.
    """

    def __init__(self, lo: bytes | None, hi: bytes | None, lo_ex: bool, hi_ex: bool) -> None:
        self.lo, self.hi, self.lo_ex, self.hi_ex = lo, hi, lo_ex, hi_ex

    def gte_min(self, m: bytes) -> bool:
        return self.lo is None or (m > self.lo if self.lo_ex else m >= self.lo)

    def lte_max(self, m: bytes) -> bool:
        return self.hi is None or (m < self.hi if self.hi_ex else m <= self.hi)

    def _possible(self, members: list[bytes]) -> bool:
        if self.lo is not None and self.hi is not None:
            if self.lo > self.hi or (self.lo == self.hi and (self.lo_ex or self.hi_ex)):
                return False
        return bool(members) and self.gte_min(members[-1]) and self.lte_max(members[0])

    def first(self, members: list[bytes]) -> int | None:
        if not self._possible(members):
            return None
        for i, m in enumerate(members):
            if self.gte_min(m):
                return i if self.lte_max(m) else None
        return None

    def last(self, members: list[bytes]) -> int | None:
        if not self._possible(members):
            return None
        for i in range(len(members) - 1, -1, -1):
            if self.lte_max(members[i]):
                return i if self.gte_min(members[i]) else None
        return None


def blen(member: bytes | str) -> int:
    """Byte length of a member as the Engine stores it (str is UTF-8)."""
    # (isinstance would narrow the type but is slower: blen is on ZADD's fast path)
    return len(member) if type(member) is bytes else len(member.encode())  # type: ignore[union-attr]


def new_zset(first_member_len: int) -> SortedSet:
    """An empty zset encoded as ZADD creates one for this first member."""
    return SortedSet() if first_member_len > LISTPACK_VALUE else ListpackZSet()


def zset_add(z: SortedSet, member: bytes | str, score: float, nx: bool = False,
             xx: bool = False, gt: bool = False, lt: bool = False) -> tuple[SortedSet, int]:
    """Redis zsetAdd of one pair: (the zset, now maybe converted, status).

    status as SortedSet.add_status. A listpack converts to a (new) skiplist
    SortedSet before a 129th or a too long member is inserted; the caller
    puts the returned object at the key (``Keyspace.replace``) when it is
    not ``z``. O(log n), plus O(128) for a conversion.
    """
    if type(z) is ListpackZSet:
        if not xx and (blen(member) > LISTPACK_VALUE
                       or (len(z) >= LISTPACK_ENTRIES and member not in z)):
            z = z.copy(cls=SortedSet)
        elif score == 0.0:
            score = 0.0
    return z, z.add_status(member, score, nx, xx, gt, lt)


# -- value types -------------------------------------------------------------------

#: Value class → the name TYPE (and SCAN TYPE) answers.
TYPE_NAMES: dict[type, bytes] = {
    bytes: b"string", SortedSet: b"zset", ListpackZSet: b"zset", dict: b"hash", set: b"set",
    deque: b"list", CountMinSketch: b"CMSk-TYPE", TopK: b"TopK-TYPE",  # RedisBloom 2.8's names
}


class Keyspace:
    """Keys, their values and deadlines, WATCH bookkeeping and blocked-pop waits.

    The Engine inherits it, so a handler's ``db`` is a Keyspace too (module
    docstring). Every method is O(1) unless its docstring says otherwise.
    """

    def __init__(self) -> None:
        # The compiled fast paths hold references to these two dicts and to
        # the lock: never rebind them.
        self._data: dict[bytes, Any] = {}  # key → value (module docstring)
        self._expires: dict[bytes, int] = {}  # key → deadline, ms since the epoch
        self._lock = EngineLock()  # an RLock whose uncontended use costs no OS call
        # EngineLock has what Condition needs of an RLock (_release_save...).
        self._cond = threading.Condition(self._lock)  # type: ignore[arg-type]
        self._waiters = 0  # threads inside wait_for_write
        self._no_block = False  # set while a transaction runs: nothing may block
        self._watched: dict[bytes, list[Pipeline]] = {}  # key → pipelines WATCHing it
        # True while someone waits for a write or watches a key: the one
        # attribute the fast paths test after writing.
        self._observed = False
        # Containers Redis holds in its large encoding although their content
        # may fit the compact one again (Redis converts a set to a hashtable,
        # a hash to a hashtable, and never back): id → the value, kept so
        # that the id stays its own. OBJECT ENCODING reads it (mark_converted).
        self._converted: dict[int, Any] = {}
        self._converted_limit = 64  # prune past this many entries
        # Strings whose Redis encoding does not follow from their bytes (an
        # APPEND or a PFADD leaves a raw string, INCRBYFLOAT's result is never
        # an int): key → (the value written there, its kind) (mark_string).
        self._string_kinds: dict[bytes, tuple[Any, bytes]] = {}
        self._string_kinds_limit = 64

    # -- reads -------------------------------------------------------------------

    # Compiled (engine/native/dispatch.pxi), as every handler starts with them: the
    # live value at key, or None; and the same when exactly of type ``kind``,
    # else CommandError(WRONGTYPE). A key with a deadline goes to
    # lookup_expiring.
    lookup = engine_lookup
    lookup_type = engine_lookup_type

    def lookup_expiring(self, key: bytes) -> Any:
        """The live value at a key with a deadline, or None (an expired key is
        deleted here). What ``lookup`` calls for keys with a deadline."""
        value = self._data.get(key)
        if value is not None and key in self._expires and self._expires[key] < now_ms():
            del self._data[key]
            del self._expires[key]
            if self._watched:
                self._touch(key)
            return None
        return value

    def lookup_persistent(self, key: bytes) -> Any:
        """The value at key if the key has no deadline (so it cannot have
        expired: no clock read), else None. For fast paths that leave keys
        with a TTL to :meth:`lookup`."""
        if key in self._expires:
            return None
        return self._data.get(key)

    def live_keys(self) -> list[bytes]:
        """All live keys (expired ones are deleted on the way). O(number of keys)."""
        return [k for k in list(self._data) if self.lookup(k) is not None]

    def entries(self) -> Iterator[tuple[bytes, Any, int | None]]:
        """Every (key, value, deadline or None) as stored, expired keys
        included (a snapshot keeps them; they expire on their first access
        after loading). O(number of keys) to iterate."""
        expires = self._expires
        for key, value in self._data.items():
            yield key, value, expires.get(key)

    # -- writes --------------------------------------------------------------------

    def store(self, key: bytes, value: Any, deadline: int | None = None) -> None:
        """Overwrite key with value; its TTL becomes ``deadline`` (ms since
        the epoch; None: no TTL, as SET without options). Signals the key."""
        self._data[key] = value
        if deadline is None:
            self._expires.pop(key, None)
        else:
            self._expires[key] = deadline
        if self._string_kinds:
            self._string_kinds.pop(key, None)
        if self._watched:
            self._touch(key)

    def replace(self, key: bytes, value: Any, signal: bool = True) -> None:
        """Put a new value object at key keeping its TTL, as Redis does when
        it rewrites a value in place (APPEND, INCR, a zset that changes
        encoding...). Signals the key unless ``signal`` is False (a write
        Redis does not report, such as the registers PFADD keeps on a corrupt
        HyperLogLog)."""
        self._data[key] = value
        if self._string_kinds:
            self._string_kinds.pop(key, None)
        if signal and self._watched:
            self._touch(key)

    def remove(self, key: bytes) -> bool:
        """Delete key (live or not); True when a live key was deleted (then signalled)."""
        live = self.lookup(key) is not None
        self._data.pop(key, None)
        self._expires.pop(key, None)
        if self._string_kinds:
            self._string_kinds.pop(key, None)
        if live and self._watched:
            self._touch(key)
        return live

    def drop_if_empty(self, key: bytes, value: Any) -> None:
        """Delete a container key once its last element is gone (the caller
        has signalled the key already)."""
        if not value:
            self._data.pop(key, None)
            self._expires.pop(key, None)

    def flush(self) -> None:
        """FLUSHDB / FLUSHALL: empty the keyspace (watchers of live keys fail).
        O(number of keys)."""
        self.flushed()
        self._data.clear()
        self._expires.clear()
        self._converted.clear()
        self._string_kinds.clear()

    def load_all(self, data: Mapping[bytes, Any], expires: Mapping[bytes, int]) -> None:
        """Replace every key with ``data`` and ``expires`` (a snapshot): as
        FLUSHALL for watchers, then every watched key counts as modified and
        blocked pops wake up. O(old keys + new keys)."""
        self.flushed()
        self._data.clear()
        self._data.update(data)
        self._expires.clear()
        self._expires.update(expires)
        self._converted.clear()  # as a server loading a dump: encodings from content
        self._string_kinds.clear()
        for key in list(self._watched):
            self._touch(key)
        self.wake_waiters()

    # -- encodings ----------------------------------------------------------------

    def mark_converted(self, value: Any) -> None:
        """Record that Redis would hold this container (a set or a hash) in
        its large encoding from now on, whatever it later holds. O(1)
        amortised: past a limit, entries of values no key holds any more are
        dropped (O(number of keys), then the limit doubles)."""
        self._converted[id(value)] = value
        if len(self._converted) > self._converted_limit:
            live = {id(v) for v in self._data.values()}
            for ident in [i for i in self._converted if i not in live]:
                del self._converted[ident]
            self._converted_limit = max(64, 2 * len(self._converted))

    def is_converted(self, value: Any) -> bool:
        """True when :meth:`mark_converted` recorded this very value."""
        return self._converted.get(id(value)) is value

    def forget_converted(self, value: Any) -> None:
        """The value's encoding follows from its content again (Redis rebuilt it)."""
        if self.is_converted(value):
            del self._converted[id(value)]

    def mark_string(self, key: bytes, value: bytes, kind: bytes) -> None:
        """Record how Redis encodes the string value just written at key:
        ``b"raw"`` (a string Redis rewrote in place: APPEND, SETRANGE, the
        HyperLogLog commands) or ``b"float"`` (INCRBYFLOAT's result: never
        int-encoded). Forgotten when :meth:`store`, :meth:`replace` or
        :meth:`remove` writes the key, and ignored once another object is
        there (the compiled INCRBY rewrites a value without these methods;
        only a one-byte value, which CPython shares, could then meet its
        old mark again). O(1) amortised (pruned as :meth:`mark_converted`)."""
        self._string_kinds[key] = (value, kind)
        if len(self._string_kinds) > self._string_kinds_limit:
            data = self._data
            for k in [k for k, (v, _) in self._string_kinds.items() if data.get(k) is not v]:
                del self._string_kinds[k]
            self._string_kinds_limit = max(64, 2 * len(self._string_kinds))

    def string_kind(self, key: bytes, value: Any) -> bytes | None:
        """What :meth:`mark_string` recorded for this value at key, or None."""
        entry = self._string_kinds.get(key)
        return entry[1] if entry is not None and entry[0] is value else None

    # -- expiry -------------------------------------------------------------------

    def deadline(self, key: bytes) -> int | None:
        """Key's deadline in ms since the epoch, or None (no TTL or no key).
        No expiry check: look the key up first."""
        return self._expires.get(key)

    def has_deadline(self, key: bytes) -> bool:
        """True when key has a TTL (no expiry check: look the key up first)."""
        return key in self._expires

    def set_deadline(self, key: bytes, when: int) -> None:
        """Give the existing key the deadline ``when`` (ms since the epoch) and
        signal it. A deadline already past is the caller's to handle (Redis
        deletes the key instead)."""
        self._expires[key] = when
        if self._watched:
            self._touch(key)

    def clear_deadline(self, key: bytes) -> bool:
        """Drop key's TTL; True (and the key signalled) when it had one."""
        if self._expires.pop(key, None) is None:
            return False
        if self._watched:
            self._touch(key)
        return True

    def _expired(self, key: bytes) -> bool:
        """Redis keyIsExpired: present with a deadline that has passed (now > deadline)."""
        deadline = self._expires.get(key)
        return deadline is not None and key in self._data and deadline < now_ms()

    # -- modified-key signalling (Redis signalModifiedKey) ----------------------------

    def touched(self, key: bytes) -> None:
        """Key was modified in place: watchers of it fail their EXEC. O(1)
        while nothing watches key; else O(its watchers' keys)."""
        if self._watched:
            self._touch(key)

    def written(self, key: bytes) -> None:
        """Key was written: watchers fail (as :meth:`touched`) and blocked
        pops wake up to look again. O(1) while nothing is ``_observed``."""
        if self._observed:
            if self._watched:
                self._touch(key)
            if self._waiters:
                self._cond.notify_all()

    def wake_waiters(self) -> None:
        """A write command ran (the dispatch path does this after each one):
        blocked pops wake up to look again. O(1) while nobody waits."""
        if self._waiters:
            self._cond.notify_all()

    def _touch(self, key: bytes) -> None:
        watchers = self._watched.get(key)
        if not watchers:
            return
        for w in list(watchers):
            if w._watching.get(key):
                # Watched while already expired: its deletion is no change;
                # anything else ends the scan (as Redis's touchWatchedKey).
                if key not in self._data:
                    w._watching[key] = False
                    continue
                break
            w._dirty = True
            self.unwatch_all(w)

    def flushed(self) -> None:
        """The keyspace is about to be emptied (Redis touchAllWatchedKeysInDb):
        watchers of live keys fail. O(watched keys)."""
        for key, watchers in list(self._watched.items()):
            if key not in self._data:
                continue
            for w in list(watchers):
                if w._watching.get(key):
                    w._watching[key] = False
                else:
                    w._dirty = True

    # -- WATCH (Redis multi.c) ----------------------------------------------------------

    def has_watchers(self) -> bool:
        """True while any key is watched (a write must then say whether it changed anything)."""
        return bool(self._watched)

    def watch_keys(self, watcher: Pipeline, keys: Iterable[bytes]) -> None:
        """WATCH keys for watcher (a Pipeline): remembers which were already
        expired. O(len(keys))."""
        if watcher._dirty:
            return
        for key in keys:
            if key not in watcher._watching:
                watcher._watching[key] = self._expired(key)
                self._watched.setdefault(key, []).append(watcher)
                self._observed = True

    def unwatch_all(self, watcher: Pipeline) -> None:
        """Forget every key watcher watches (UNWATCH, EXEC, DISCARD, reset).
        O(its keys × their watchers)."""
        for key in watcher._watching:
            watchers = self._watched.get(key)
            if watchers is not None:
                watchers.remove(watcher)
                if not watchers:
                    del self._watched[key]
        watcher._watching.clear()
        self._observed = bool(self._waiters or self._watched)

    def watch_failed(self, watcher: Pipeline) -> bool:
        """At EXEC: a watched key was modified, or expired since WATCH (7.0).
        O(its keys)."""
        if watcher._dirty:
            return True
        return any(not expired and self._expired(key)
                   for key, expired in watcher._watching.items())

    # -- blocking ------------------------------------------------------------------

    def wait_for_write(self, deadline: float | None) -> bool:
        """Block (the lock released) until some write happens or the deadline
        (monotonic s, None = forever). Returns False when the deadline passed.
        Never blocks in a transaction."""
        if self._no_block:
            return False
        timeout = None if deadline is None else deadline - time.monotonic()
        if timeout is not None and timeout <= 0:
            return False
        self._waiters += 1
        self._observed = True
        try:
            self._cond.wait(timeout)
        finally:
            self._waiters -= 1
            self._observed = bool(self._waiters or self._watched)
        return deadline is None or time.monotonic() < deadline
