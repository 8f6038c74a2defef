# _board.pyx -- the compiled native paths of fastrank's leaderboard scripts.
#
# The extension fastrank.natives._board, apart from the Engine's core:
# it reads the keyspace through the C-level interface fastrank._core exports
# (_core.pxd: a value's C sorted set, the live value at a key, WATCH), and the
# sorted set through its C API (structures/zset.c, a B+-tree, compiled in here too).
# fastrank/leaderboard/scripts/*.lua are what fastrank.Leaderboard sends to every backend;
# on the Engine, EVALSHA of one of them runs the function here that
# fastrank.natives maps its SHA1 to, instead of the Lua sandbox: the
# same commands in the same order, in IEEE doubles as Lua 5.1 computes, and
# the same reply (Lua strings -> bytes, numbers -> integers, tables -> lists,
# false -> nil).  tests/domain/leaderboard/test_native_scripts.py runs random operations
# through both paths and compares every reply, error and the keyspace after.
#
# Reads go to the C sorted set directly (score, rank, count, slices) and to
# the hash dicts; writes use the keyspace's own helpers (``zset_add`` and
# ``new_zset``, handed over by ``board_scripts_setup``, and
# ``Engine.store/replace/drop_if_empty``; ``native_touched`` for WATCH), so a key is created, converted, watched and
# deleted exactly as by the command's handler.  A submit with a rank style
# takes the player's places before and after from the write itself
# (``fr_zset_set_score_ranked``) when the player moves on a board Redis would keep as a skip list
# (not a listpack).  A function declines (returns
# NATIVE_DECLINE, and the Lua script runs) whenever anything is unusual -- a
# key of the wrong type, arguments not in the form the leaderboard sends --
# so the Lua path produces the exact error.  Each costs what its script
# costs: O(log n) per command the script sends.

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from libc.math cimport floor as _c_floor
from libc.stdint cimport uint64_t
from libc.stdio cimport snprintf

from zset cimport *
from fastrank._core cimport (native_canonical_i64, native_is_skiplist, native_is_zset, native_live, native_state,
                             native_touched, native_zset_of)

import re as _board_re

from fastrank import errors as _zset_err
from fastrank._core import NATIVE_DECLINE as _DECLINE
from fastrank.engine.keyspace import CommandError as _CommandError


cdef double _WHOLE = 1099511627776.0  # 2**40: sizes and positions print the same in %.14g as in %d
cdef double _INF = float("inf")
cdef object _NUMBER_RE = _board_re.compile(rb"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?\Z")
cdef dict _board_configs = {}  # ARGV 1..5 -> _BoardConf (a board has one; few distinct)

cdef object _zset_add_fn = None     # fastrank.engine.keyspace.zset_add
cdef object _new_zset_fn = None     # fastrank.engine.keyspace.new_zset


def board_scripts_setup(zset_add, new_zset):
    """Hand over the keyspace helpers the write paths use (fastrank.natives).
    """
    global _zset_add_fn, _new_zset_fn
    _zset_add_fn, _new_zset_fn = zset_add, new_zset


cdef inline bytes _num(double x):
    """Lua's ``string.format('%.17g', x)``. A whole number of magnitude below
    10**17 (every encoded score, every points value) prints as its digits
    there, so it is formatted as an integer (much faster); -0.0 ("-0") and
    the rest go through snprintf."""
    cdef char buf[40]
    cdef int n
    if x != 0 and -1e17 < x < 1e17 and x == <double><long long>x:
        n = fr_zset_format_i64(<long long>x, buf)
    else:
        n = snprintf(buf, sizeof(buf), "%.17g", x)
    return PyBytes_FromStringAndSize(buf, n)


cdef object _number(object text):
    """``tonumber`` for the decimal forms the leaderboard sends (a float); None for anything else."""
    cdef const char *p
    cdef Py_ssize_t i, n
    cdef long long v = 0
    if type(text) is not bytes:
        return None
    p, n = PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text)
    if 0 < n <= 15:  # digits only (a count, a time, a points value): exact in a double
        for i in range(n):
            if not c'0' <= p[i] <= c'9':
                break
            v = v * 10 + (p[i] - c'0')
        else:
            return <double>v
    if text.isdigit():
        return float(int(text))
    return float(text) if _NUMBER_RE.match(text) else None


cdef inline object _member(object m, char *buf, const char **p, Py_ssize_t *n):
    """The bytes of a member as the scripts get it (bytes; anything else as
    its str's UTF-8); the object that owns them."""
    if type(m) is not bytes:
        m = str(m).encode()
    p[0] = PyBytes_AS_STRING(m)
    n[0] = PyBytes_GET_SIZE(m)
    return m


cdef inline bytes _mbytes(const fr_zset *s, fr_zset_ref r):
    cdef size_t n
    cdef const char *p = fr_zset_member(s, r, &n)
    return PyBytes_FromStringAndSize(p, <Py_ssize_t>n)


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define fr_board_prefetch_record(s, r) __builtin_prefetch(FR_ZSET_N((s), (r)))
    #else
    #define fr_board_prefetch_record(s, r) ((void)0)
    #endif
    """
    void _prefetch_record "fr_board_prefetch_record"(const fr_zset *s, fr_zset_ref r) nogil


cdef int _append_slice(const fr_zset *s, uint64_t rank, Py_ssize_t count, bint reverse, bint withscores,
                       list flat) except -1:
    """Appends ``count`` members (with their scores when asked) from 1-based
    ``rank`` on, descending when ``reverse``, gathered from the tree's leaves
    a block at a time (no search per member), the block's records requested
    together before any is read."""
    cdef fr_zset_ref buf[64]
    cdef size_t got, k
    while count > 0:
        got = fr_zset_gather(s, rank, <size_t>(count if count < 64 else 64), reverse, buf)
        if got == 0:
            break
        for k in range(got):  # the records' misses overlap, not one per member made
            _prefetch_record(s, buf[k])
        for k in range(got):
            flat.append(_mbytes(s, buf[k]))
            if withscores:
                flat.append(_num(fr_zset_score(s, buf[k])))
        count -= <Py_ssize_t>got
        rank = rank - got if reverse else rank + got
    return 0



cdef inline Py_ssize_t _count(fr_zset *s, double low, double high, bint low_open, bint high_open):
    """ZCOUNT of the sorted set s between the bounds (none is NaN)."""
    cdef fr_zset_range rg
    rg.min, rg.max, rg.minex, rg.maxex = low, high, low_open, high_open
    return <Py_ssize_t>fr_zset_count_in_range(s, &rg)


cdef class _BoardConf:
    """ARGV 1..5 of a call, parsed: the board's configuration."""
    cdef double scale
    cdef bint desc, mirrored, dense
    cdef double max_points


cdef tuple _last_words = (None,) * 5  # ARGV 1..5 of the last call (the same objects, call after call)
cdef _BoardConf _last_conf = None


cdef _BoardConf _conf_of(list args):
    global _last_words, _last_conf
    cdef tuple last = _last_words
    if args[0] is last[0] and args[1] is last[1] and args[2] is last[2] and args[3] is last[3] \
            and args[4] is last[4]:
        return _last_conf
    key = (args[0], args[1], args[2], args[3], args[4])
    cdef _BoardConf c = <_BoardConf>_board_configs.get(key)
    if c is not None:
        _last_words, _last_conf = key, c
        return c
    scale, max_points = _number(args[0]), _number(args[4])
    if scale is None or max_points is None or any(f not in (b"0", b"1") for f in args[1:4]):
        return None
    c = _BoardConf()
    c.scale, c.max_points = scale, max_points
    c.desc, c.mirrored, c.dense = args[1] == b"1", args[2] == b"1", args[3] == b"1"
    _board_configs[key] = c
    _last_words, _last_conf = key, c
    return c


cdef class _Board:
    """One script call: the keys, the board's configuration, the prelude's helpers."""
    cdef object db
    cdef object st  # the Engine's compiled state (native_state), taken once per call
    cdef object board, dense_key, counts_key, meta_key, info_key
    cdef double scale, max_points
    cdef bint desc, mirrored, dense

    cdef inline object value(self, object key):
        """The live value at key (None if missing or expired)."""
        return native_live(self.st, self.db, key)

    # -- the commands the scripts send ---------------------------------------

    cdef object zscore(self, object member, bint moving=False):
        """ZSCORE as a double, or None.  ``moving``: the member's score is
        about to change, so its leaf's lines are requested now, to arrive
        while the caller looks at the counts (fr_zset_prefetch_move)."""
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef fr_zset_ref r
        z = self.value(self.board)
        if z is None:
            return None
        keep = _member(member, buf, &p, &n)
        cdef fr_zset *s = native_zset_of(z)
        r = fr_zset_find(s, p, <size_t>n)
        if r == FR_ZSET_NIL:
            return None
        if moving:
            fr_zset_prefetch_move(s, r)
        return fr_zset_score(s, r)

    cdef Py_ssize_t zcount(self, object key, double low, double high, bint low_open, bint high_open) except -1:
        z = self.value(key)
        if z is None:
            return 0
        return _count(native_zset_of(z), low, high, low_open, high_open)

    cdef zadd(self, object key, object member, double score):
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef int rc
        db = self.db
        z = self.value(key)
        if z is None:
            z = _new_zset_fn(len(member))
            db.store(key, z)
        if native_is_skiplist(z) and score == score:  # what zset_add does for a skip list
            keep = _member(member, buf, &p, &n)
            rc = fr_zset_add(native_zset_of(z), p, <size_t>n, score, 0)
            if rc < 0:
                raise MemoryError()
        else:
            converted, rc = _zset_add_fn(z, member, score)
            if converted is not z:  # the listpack turned into a skiplist
                db.replace(key, converted)
        if rc:
            native_touched(db, key)

    cdef zrem(self, object key, object member):
        z = self.value(key)
        if z is not None and z.remove(member):
            native_touched(self.db, key)
            self.db.drop_if_empty(key, z)

    cdef object hincrby(self, object field, long long delta):
        cdef char buf[24]
        db = self.db
        h = self.value(self.counts_key)
        if h is None:
            h = {}
            db.store(self.counts_key, h)
        cdef long long held = 0
        old = (<dict>h).get(field)
        if old is not None and not native_canonical_i64(old, &held):  # count_is_integer said it is
            held = int(old)
        held += delta
        (<dict>h)[field] = PyBytes_FromStringAndSize(buf, fr_zset_format_i64(held, buf))
        native_touched(db, self.counts_key)
        return held

    cdef hdel(self, object key, object field):
        h = self.value(key)
        if h is not None and (<dict>h).pop(field, None) is not None:
            native_touched(self.db, key)
            self.db.drop_if_empty(key, h)

    # -- the prelude's helpers -----------------------------------------------

    cdef inline double points_of(self, double score):
        return score if self.scale == 0 else _c_floor(score / self.scale)

    cdef inline double encode(self, double points, double tick):
        if self.scale == 0:
            return points
        if self.mirrored:
            tick = self.scale - 1 - tick
        return points * self.scale + tick

    cdef Py_ssize_t better(self, double points) except -1:
        if self.desc:
            if self.scale == 0:
                return self.zcount(self.board, points, _INF, True, False)
            return self.zcount(self.board, (points + 1) * self.scale, _INF, False, False)
        if self.scale == 0:
            return self.zcount(self.board, -_INF, points, False, True)
        return self.zcount(self.board, -_INF, points * self.scale, False, True)

    cdef Py_ssize_t worse(self, double points) except -1:
        if self.desc:
            if self.scale == 0:
                return self.zcount(self.board, -_INF, points, False, True)
            return self.zcount(self.board, -_INF, points * self.scale, False, True)
        if self.scale == 0:
            return self.zcount(self.board, points, _INF, True, False)
        return self.zcount(self.board, (points + 1) * self.scale, _INF, False, False)

    cdef Py_ssize_t dense_better(self, double points) except -1:
        if self.desc:
            return self.zcount(self.dense_key, points, _INF, True, False)
        return self.zcount(self.dense_key, -_INF, points, False, True)

    cdef Py_ssize_t index_of(self, object player) except -2:
        """0-based position in rank order, or -1 when absent."""
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef uint64_t r
        z = self.value(self.board)
        if z is None:
            return -1
        keep = _member(player, buf, &p, &n)
        r = fr_zset_rank_of(native_zset_of(z), p, <size_t>n)
        if r == 0:
            return -1
        if self.desc:
            return <Py_ssize_t>(fr_zset_len(native_zset_of(z)) - r)
        return <Py_ssize_t>(r - 1)

    cdef bint rescore_ranked(self, object player, double score, Py_ssize_t *before,
                             Py_ssize_t *after) except -1:
        """ZADD of a new score for a player already on a skip-list board (False,
        nothing done, otherwise), with the player's 0-based position in rank
        order before and after, as the write's own walk found them."""
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef fr_zset *s
        cdef fr_zset_ref x
        cdef uint64_t ranks[2]
        z = self.value(self.board)
        if not native_is_skiplist(z) or score != score:
            return False
        s = native_zset_of(z)
        keep = _member(player, buf, &p, &n)
        x = fr_zset_find(s, p, <size_t>n)
        if x == FR_ZSET_NIL or fr_zset_score(s, x) == score:
            return False
        if fr_zset_set_score_ranked(s, x, score, ranks) != 0:
            raise MemoryError()
        native_touched(self.db, self.board)
        n = <Py_ssize_t>fr_zset_len(s)
        before[0] = n - <Py_ssize_t>ranks[0] if self.desc else <Py_ssize_t>ranks[0] - 1
        after[0] = n - <Py_ssize_t>ranks[1] if self.desc else <Py_ssize_t>ranks[1] - 1
        return True

    cdef passed_after(self, Py_ssize_t index, Py_ssize_t previous_index, double limit, list passed):
        """submit.lua's ZREVRANGE/ZRANGE index+1 min(previous_index, index+limit)
        into ``passed`` when the player (now at ``index``) moved up from
        ``previous_index`` (>= 0): gathered from the leaves from the place
        after the player's (one descent by rank, whose path the move has just
        read; the members' records requested together, not one miss after
        another as a walk member by member costs)."""
        cdef fr_zset *s
        cdef Py_ssize_t count
        if not (previous_index >= 0 and index < previous_index and limit > 0):
            return
        s = native_zset_of(self.value(self.board))
        count = previous_index - index if previous_index - index <= limit else <Py_ssize_t>limit
        if self.desc:  # place index + 1 in reverse order is rank n - index - 1 (1-based, ascending)
            _append_slice(s, fr_zset_len(s) - <uint64_t>index - 1, count, True, False, passed)
        else:
            _append_slice(s, <uint64_t>index + 2, count, False, False, passed)

    cdef Py_ssize_t rank_in(self, object style, Py_ssize_t index, double points) except -1:
        if style == b"c":
            return self.better(points) + 1
        if style == b"d":
            return self.dense_better(points) + 1
        return index + 1

    cdef count_points(self, double points, long long delta):
        field = _num(points)
        held = self.hincrby(field, delta)
        if held == 0:
            self.hdel(self.counts_key, field)
            self.zrem(self.dense_key, field)
        elif held == 1 and delta == 1:
            self.zadd(self.dense_key, field, float(field))

    cdef bint count_is_integer(self, double points) except -1:
        """The count field of ``points`` holds an integer or is missing (else HINCRBY would fail)."""
        return self.counts_are_integers(False, 0.0, points)

    cdef bint counts_are_integers(self, bint had, double old_points, double new_points) except -1:
        """count_is_integer of old_points (when ``had``) and of new_points: the
        count fields hold integers or are missing (else HINCRBY would fail); the
        two lookups in the counts hash made back to back, their keys made and
        hashed first and their values read after both: in a hash of 100,000
        counts each lookup is a few cache misses, and this way the two
        overlap instead of following each other."""
        cdef long long held
        h = self.value(self.counts_key)
        if h is None:
            return True
        new_key = _num(new_points)
        old_key = _num(old_points) if had else None
        hash(new_key)  # bytes keep their hash: the lookups below only read memory
        if had:
            hash(old_key)
        new_text = (<dict>h).get(new_key)
        old_text = (<dict>h).get(old_key) if had else None
        return ((old_text is None or native_canonical_i64(old_text, &held))  # HINCRBY's own test
                and (new_text is None or native_canonical_i64(new_text, &held)))

    cdef write_points(self, object player, bint had, double old_points, double new_points, double tick):
        """store_points of the prelude: the player's new score, and the dense
        companion moved along, when the points changed (or the player is new)."""
        if had and new_points == old_points:
            return
        self.zadd(self.board, player, self.encode(new_points, tick))  # = the %.17g text Lua sends, parsed back
        self.count_change(had, old_points, new_points)

    cdef count_change(self, bint had, double old_points, double new_points):
        """The dense companion follows a player's points from old to new."""
        if self.dense:
            if had:
                self.count_points(old_points, -1)
            self.count_points(new_points, 1)

    cdef bint frozen(self) except -1:
        h = self.value(self.meta_key)
        return h is not None and b"frozen" in <dict>h

    cdef list slice(self, Py_ssize_t start, Py_ssize_t stop, bint withscores):
        """ZREVRANGE/ZRANGE start stop [WITHSCORES] as Lua sees it: a flat list,
        scores as %.17g text."""
        cdef fr_zset *s
        cdef fr_zset_ref r
        cdef Py_ssize_t n, i
        cdef list flat = []
        z = self.value(self.board)
        if z is None:
            return flat
        s = native_zset_of(z)
        n = <Py_ssize_t>fr_zset_len(s)
        if start < 0:
            start += n
        if stop < 0:
            stop += n
        if start < 0:
            start = 0
        if start > stop or start >= n:
            return flat
        if stop >= n:
            stop = n - 1
        _append_slice(s, <uint64_t>(n - start) if self.desc else <uint64_t>(start + 1), stop - start + 1,
                      self.desc, withscores, flat)
        return flat

    cdef Py_ssize_t around(self, object player, Py_ssize_t radius, list flat) except -2:
        """range.lua's "around" slice: ZREVRANK/ZRANK of ``player``, then
        ZREVRANGE/ZRANGE index-radius index+radius WITHSCORES into ``flat``
        (clipped at the ends); the first position, or -1 when the player is
        absent. The slice is gathered from the tree's leaves, so the second
        command costs O(log n + radius)."""
        cdef const char *p
        cdef Py_ssize_t n, index, start, stop, i
        cdef char buf[24]
        cdef fr_zset *s
        cdef fr_zset_ref x
        z = self.value(self.board)
        if z is None:
            return -1
        s = native_zset_of(z)
        keep = _member(player, buf, &p, &n)
        x = fr_zset_find(s, p, <size_t>n)
        if x == FR_ZSET_NIL:
            return -1
        n = <Py_ssize_t>fr_zset_len(s)
        index = <Py_ssize_t>fr_zset_rank(s, x) - 1
        if self.desc:
            index = n - 1 - index
        start = index - radius if index > radius else 0
        stop = index + radius if radius < n - index else n - 1
        _append_slice(s, <uint64_t>(n - start) if self.desc else <uint64_t>(start + 1), stop - start + 1,
                      self.desc, True, flat)
        return start

    cdef list hmget(self, list fields):
        h = self.value(self.info_key)
        if h is None:
            return [None] * len(fields)
        return [(<dict>h).get(f) for f in fields]


cdef enum:
    _ALL_KEYS = 0b11111      # submit, remove: every key
    _READ_KEYS = 0b10011     # range, friends: the board, its distinct values, the entry data
    _RANK_KEYS = 0b00011     # standing: the board and its distinct values


cdef _Board _board_open(object db, list keys, list args, Py_ssize_t extra, int used):
    """The call's board, or None (decline) when the keys it ``used`` (a mask of
    KEYS 1..5) or the configuration are unusual."""
    cdef Py_ssize_t i
    if len(keys) != 5 or len(args) < 5 + extra:
        return None
    st = native_state(db)
    for i in range(5):
        if not (used >> i) & 1:
            continue
        value = native_live(st, db, keys[i])
        if value is not None and not (native_is_zset(value) if i < 2 else type(value) is dict):
            return None
    cdef _BoardConf c = _conf_of(args)
    if c is None:
        return None
    cdef _Board b = _Board.__new__(_Board)
    b.db, b.st = db, st
    b.board, b.dense_key, b.counts_key, b.meta_key, b.info_key = keys[0], keys[1], keys[2], keys[3], keys[4]
    b.scale, b.max_points = c.scale, c.max_points
    b.desc, b.mirrored, b.dense = c.desc, c.mirrored, c.dense
    return b


cdef double _points_after(_Board b, object rule, bint had, double old_points, double given) except? -1.0:
    """The prelude's ``points_after``: a player's new points by ``rule`` (incr,
    set, best) from their points now (``had`` False: not on the board);
    the board's range error when they do not fit."""
    cdef double new_points
    if rule == b"incr":
        new_points = (old_points if had else 0.0) + given
    elif rule == b"set":
        new_points = given
    elif not had or (b.desc and given > old_points) or (not b.desc and given < old_points):
        new_points = given
    else:
        new_points = old_points
    if new_points > b.max_points or new_points < -b.max_points:
        raise _CommandError(_zset_err.BOARD_RANGE % _num(b.max_points).decode())
    return new_points


def board_submit(db, list keys, list args):
    """``submit.lua``."""
    cdef _Board b = _board_open(db, keys, args, 5, _ALL_KEYS)
    cdef Py_ssize_t previous_index = -1, index, n = len(args)
    cdef double new_points
    if b is None or (n - 10) % 2:
        return _DECLINE
    rule, style = args[5], args[7]
    tick, limit, expire_at = _number(args[6]), _number(args[8]), _number(args[9])
    given = _number(args[11]) if n == 12 else None
    givens = [given] if n == 12 else [_number(a) for a in args[11::2]]
    if tick is None or limit is None or expire_at is None or None in givens \
            or rule not in (b"incr", b"set", b"best") or style not in (b"", b"o", b"c", b"d") \
            or (style and n != 12) or not 0 <= limit <= _WHOLE or limit != int(limit):
        return _DECLINE
    if b.frozen():
        raise _CommandError(_zset_err.BOARD_FROZEN)
    if n == 12:
        return _submit_one(b, keys, args[10], given, rule, style, tick, limit, expire_at)
    cdef dict olds = {}
    cdef dict news = {}
    cdef list order = []
    cdef list reply = []
    for player, given in zip(args[10::2], givens):
        old = b.zscore(player)
        old_points = False if old is None else b.points_of(old)
        if player in olds:
            old_points = news[player]
        new_points = _points_after(b, rule, old_points is not False, 0.0 if old_points is False else old_points,
                                   given)
        if player not in olds:
            olds[player] = old_points
            order.append(player)
        news[player] = new_points
        reply.append(_num(new_points))
    if b.dense:
        for points in [p for p in olds.values() if p is not False] + list(news.values()):
            if not b.count_is_integer(points):
                return _DECLINE
    for player in order:
        old_points = olds[player]
        b.write_points(player, old_points is not False, 0.0 if old_points is False else old_points, news[player],
                       tick)
    _expire_keys(db, keys, expire_at)
    return reply


cdef object _submit_one(_Board b, list keys, object player, double given, object rule, object style,
                        double tick, double limit, double expire_at):
    """``submit.lua`` for one player (what ``Leaderboard.submit`` sends): the
    same steps as board_submit's loop, on C doubles.  With a rank style, a
    player who moves gets both places from the write itself (the ranks the
    move's walk passes), not from two more descents."""
    cdef double old_points = 0.0, new_points
    cdef Py_ssize_t previous_index = -1, index = -1, previous_rank = 0
    cdef bint moved = False
    old = b.zscore(player, True)
    cdef bint had = old is not None
    if had:
        old_points = b.points_of(old)
    new_points = _points_after(b, rule, had, old_points, given)
    if b.dense and not b.counts_are_integers(had, old_points, new_points):
        return _DECLINE
    cdef bint changed = not had or new_points != old_points
    if style and had:
        if style != b"o":
            previous_rank = b.rank_in(style, 0, old_points)  # read before anything is written
        if changed:
            moved = b.rescore_ranked(player, b.encode(new_points, tick), &previous_index, &index)
        if not moved:
            previous_index = b.index_of(player)
        if style == b"o":
            previous_rank = previous_index + 1
    if moved:
        b.count_change(had, old_points, new_points)
    else:
        b.write_points(player, had, old_points, new_points, tick)
    _expire_keys(b.db, keys, expire_at)
    if not style:
        return [_num(new_points)]
    if not moved:
        index = previous_index if had and not changed else b.index_of(player)
    passed = []
    b.passed_after(index, previous_index, limit, passed)
    return [_num(new_points), b.rank_in(style, index, new_points), previous_rank, passed]


cdef _expire_keys(object db, list keys, double expire_at):
    """submit.lua's PEXPIREAT of every key when ``expire_at`` (unix ms) is set."""
    if expire_at > 0:
        for key in keys:
            db.call([b"PEXPIREAT", key, _num(expire_at)])


def board_remove(db, list keys, list args):
    """``remove.lua``."""
    cdef _Board b = _board_open(db, keys, args, 1, _ALL_KEYS)
    if b is None:
        return _DECLINE
    if b.frozen():
        raise _CommandError(_zset_err.BOARD_FROZEN)
    player = args[5]
    old = b.zscore(player)
    if b.dense and old is not None and not b.count_is_integer(b.points_of(old)):
        return _DECLINE
    b.hdel(b.info_key, player)
    if old is None:
        return 0
    b.zrem(b.board, player)
    if b.dense:
        b.count_points(b.points_of(old), -1)
    return 1


def board_standing(db, list keys, list args):
    """``standing.lua``."""
    cdef _Board b = _board_open(db, keys, args, 2, _RANK_KEYS)
    cdef double score, points
    cdef Py_ssize_t index = 0
    if b is None:
        return _DECLINE
    player, what = args[5], args[6]
    if what != b"o" and what != b"c" and what != b"d" and what != b"p":
        return _DECLINE
    found = b.zscore(player)
    if found is None:
        return None
    score = found
    points = b.points_of(score)
    if what == b"p":
        return [_num(score), b.better(points), b.worse(points), len(b.value(b.board))]
    if what == b"o":
        index = b.index_of(player)
    return [_num(score), b.rank_in(what, index, points)]


def board_range(db, list keys, list args):
    """``range.lua``."""
    cdef _Board b = _board_open(db, keys, args, 5, _READ_KEYS)
    cdef Py_ssize_t start, stop, index, first
    if b is None or args[5] not in (b"at", b"around") or args[8] not in (b"o", b"c", b"d"):
        return _DECLINE
    mode, style, with_info = args[5], args[8], args[9] == b"1"
    size = _number(args[7])
    if size is None or not 0 <= size <= _WHOLE or size != int(size):
        return _DECLINE
    cdef list items = []
    if mode == b"around":
        start = b.around(args[6], <Py_ssize_t>int(size), items)
        if start < 0:
            return None
    else:
        first_position = _number(args[6])
        if first_position is None or not 0 <= first_position <= _WHOLE or first_position != int(first_position):
            return _DECLINE
        start = int(first_position)
        stop = start + <Py_ssize_t>int(size) - 1
        if stop >= start:
            items = b.slice(start, stop, True)
    first = start + 1
    if items and style != b"o":
        first = b.rank_in(style, start, b.points_of(float(items[1])))
    infos = []
    if with_info and items:
        infos = b.hmget(items[0::2])
    return [start, first, items, infos]


cdef uint64_t _LOCK_STEP_MIN = 65536  # members from which _friends_batched runs descents in lock step


cdef bint _friends_batched(_Board b, object style, list players, list scores, list ranks) except -1:
    """friends.lua's loop over ``players`` (each's score and rank in ``style``,
    into ``scores`` and ``ranks``) on a board that exists, FR_ZSET_BATCH
    players at a time: their lookups run in lock step (fr_zset_find_batch),
    so a batch's cache misses overlap, and so do their rank descents
    (ZREVRANK/ZRANK: fr_zset_rank_batch; the ZCOUNT of players or of
    distinct values with better points: fr_zset_count_below_batch, whose
    descents the processor overlaps one after another) on a set of
    _LOCK_STEP_MIN members or more.  A smaller set stays in cache, and
    there the lock step's bookkeeping costs more than it saves (figures in
    bench/results/leaderboard.md, "friends in lock step"): its ranks come one by one, as the loop finds them (``rank_in``).  The
    same answers as the loop, which runs instead when this returns False
    (nothing appended): no board, or a player not given as bytes."""
    cdef const char *m[FR_ZSET_BATCH]
    cdef size_t lens[FR_ZSET_BATCH]
    cdef fr_zset_ref refs[FR_ZSET_BATCH]
    cdef fr_zset_ref found[FR_ZSET_BATCH]
    cdef double bound[FR_ZSET_BATCH]
    cdef uint64_t out[FR_ZSET_BATCH]
    cdef Py_ssize_t n = len(players), base, j, g, hits
    cdef fr_zset *s
    cdef fr_zset *counted = NULL  # the set whose ZCOUNT gives the rank (styles c, d)
    cdef uint64_t counted_len = 0, length
    cdef double points, score
    cdef bint ordinal = style == b"o", inclusive = False, lock_step
    for player in players:
        if type(player) is not bytes:
            return False
    z = b.value(b.board)
    if z is None:
        return False
    s = native_zset_of(z)
    length = fr_zset_len(s)
    if style == b"c":  # better(points): ZCOUNT of the board
        counted, inclusive = s, b.desc and b.scale == 0
    elif style == b"d":  # dense_better(points): ZCOUNT of the distinct values
        d = b.value(b.dense_key)
        if d is not None:
            counted = native_zset_of(d)
        inclusive = b.desc
    if counted != NULL:
        counted_len = fr_zset_len(counted)
    lock_step = length >= _LOCK_STEP_MIN if ordinal else counted_len >= _LOCK_STEP_MIN
    for base in range(0, n, FR_ZSET_BATCH):
        g = min(<Py_ssize_t>FR_ZSET_BATCH, n - base)
        for j in range(g):
            player = players[base + j]
            m[j], lens[j] = PyBytes_AS_STRING(player), <size_t>PyBytes_GET_SIZE(player)
        fr_zset_find_batch(s, m, lens, <size_t>g, refs)
        if lock_step:  # the batch's descents, for the players present
            hits = 0
            for j in range(g):
                if refs[j] == FR_ZSET_NIL:
                    continue
                found[hits] = refs[j]
                if not ordinal:
                    points = b.points_of(fr_zset_score(s, refs[j]))
                    if style == b"c" and b.scale != 0:  # the bounds better() sends
                        bound[hits] = (points + 1) * b.scale if b.desc else points * b.scale
                    else:
                        bound[hits] = points
                hits += 1
            if ordinal:
                fr_zset_rank_batch(s, found, <size_t>hits, out)
            else:
                fr_zset_count_below_batch(counted, bound, inclusive, <size_t>hits, out)
        hits = 0
        for j in range(g):
            if refs[j] == FR_ZSET_NIL:
                scores.append(None)
                ranks.append(0)
                continue
            score = fr_zset_score(s, refs[j])
            scores.append(_num(score))
            if ordinal:  # index_of + 1
                if not lock_step:
                    out[hits] = fr_zset_rank(s, refs[j])
                ranks.append(<Py_ssize_t>(length - out[hits]) + 1 if b.desc else <Py_ssize_t>out[hits])
            elif lock_step:  # ZCOUNT (bound, +inf] / [bound, +inf] in desc, [-inf, bound) in asc, + 1
                ranks.append(<Py_ssize_t>((counted_len - out[hits]) if b.desc else out[hits]) + 1)
            else:
                ranks.append(b.rank_in(style, 0, b.points_of(score)))
            hits += 1
    return True


def board_friends(db, list keys, list args):
    """``friends.lua``."""
    cdef _Board b = _board_open(db, keys, args, 3, _READ_KEYS)
    cdef Py_ssize_t index
    if b is None or args[5] not in (b"o", b"c", b"d"):
        return _DECLINE
    style, with_info = args[5], args[6] == b"1"
    cdef list players = args[7:]
    cdef list scores = []
    cdef list ranks = []
    for player in ([] if _friends_batched(b, style, players, scores, ranks) else players):
        score = b.zscore(player)
        if score is None:
            scores.append(None)
            ranks.append(0)
            continue
        scores.append(_num(score))
        index = 0
        if style == b"o":
            index = b.index_of(player)
            if index < 0:
                index = 0
        ranks.append(b.rank_in(style, index, b.points_of(score)))
    infos = b.hmget(players) if with_info else []
    return [scores, ranks, infos]
