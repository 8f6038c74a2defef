# zset.pxi -- SortedSet: the C B+-tree of zset.c as a Python class.
#
# Included by _core.pyx.  The C side knows nothing of Python; this file
# turns Python members into bytes (coercion below), refuses NaN before any C
# call, keeps member refs only within one method (the arena may move on any
# insert, and a compaction renames every record) and builds result lists.
# Point methods take positional arguments and use exact-type fast paths for
# bytes and str members; batch methods check every input before the first
# change.
#
# Batch arguments: every batch method first turns its arguments into
# objects it owns -- a tuple copy of the members (so code run by a score's
# __float__, or by another thread, cannot shrink or free what it reads),
# bytearray members copied to bytes, scores into a float64 array -- and only
# then takes pointers into them; from there to the C calls that use the
# pointers no Python code runs and the GIL is held.

from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.list cimport PyList_Append, PyList_New, PyList_SET_ITEM
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from zset cimport *

import numpy as np

from fastrank import errors as _zset_err


# ---------------------------------------------------------------------------
# Member coercion: Python object -> (pointer, length)
# ---------------------------------------------------------------------------

cdef str _bad_type(object m):
    return _zset_err.ZSET_MEMBER_TYPE % (type(m).__name__,)


cdef object _member_slow(object m, char *buf, const char **p, Py_ssize_t *n):
    """Coerces any accepted member; returns an object that owns *p (or None
    when *p points into buf or into m itself)."""
    cdef long long v
    cdef int overflow = 0
    cdef object b
    if isinstance(m, bytes):
        p[0] = PyBytes_AS_STRING(m)
        n[0] = PyBytes_GET_SIZE(m)
        return m
    if isinstance(m, str):
        p[0] = PyUnicode_AsUTF8AndSize(m, n)
        return m
    if isinstance(m, bytearray):
        b = bytes(m)  # a copy: the bytearray may be resized while b is used
    elif isinstance(m, memoryview):
        b = m.tobytes()
    elif isinstance(m, bool):
        raise TypeError(_bad_type(m))
    elif isinstance(m, int):
        v = PyLong_AsLongLongAndOverflow(m, &overflow)
        if not overflow:
            n[0] = fr_zset_format_i64(v, buf)
            p[0] = buf
            return None
        b = int.__repr__(m).encode("ascii")
    elif isinstance(m, float):
        b = float.__repr__(m).encode("ascii")
    else:
        raise TypeError(_bad_type(m))
    p[0] = PyBytes_AS_STRING(b)
    n[0] = PyBytes_GET_SIZE(b)
    return b


cdef inline object _member(object m, char *buf, const char **p, Py_ssize_t *n):
    """Fast path of _member_slow for exact bytes and str."""
    if type(m) is bytes:
        p[0] = PyBytes_AS_STRING(m)
        n[0] = PyBytes_GET_SIZE(m)
        return None
    if type(m) is str:
        p[0] = PyUnicode_AsUTF8AndSize(m, n)
        return None
    return _member_slow(m, buf, p, n)


cdef inline bytes _mbytes(const fr_zset *s, fr_zset_ref r):
    cdef size_t n
    cdef const char *p = fr_zset_member(s, r, &n)
    return PyBytes_FromStringAndSize(p, <Py_ssize_t>n)


cdef class _Members:
    """The members of a batch call: a sequence of members, or a numpy
    integer array whose items are formatted as decimal text in C."""
    cdef Py_ssize_t n
    cdef int kind              # 0: sequence, 1: int64 array, 2: uint64 array
    cdef tuple seq             # our own copy of the members (kind 0)
    cdef object arr
    cdef const int64_t *i64
    cdef const uint64_t *u64
    cdef char buf[24]

    cdef inline object get(self, Py_ssize_t i, const char **p, Py_ssize_t *n):
        if self.kind == 1:
            n[0] = fr_zset_format_i64(self.i64[i], self.buf)
            p[0] = self.buf
            return None
        if self.kind == 2:
            n[0] = fr_zset_format_u64(self.u64[i], self.buf)
            p[0] = self.buf
            return None
        return _member(self.seq[i], self.buf, p, n)

    cdef inline object get_to(self, Py_ssize_t i, char *buf, const char **p, Py_ssize_t *n):
        """get, formatting integers into buf (>= 24 bytes) instead of self.buf."""
        if self.kind == 1:
            n[0] = fr_zset_format_i64(self.i64[i], buf)
            p[0] = buf
            return None
        if self.kind == 2:
            n[0] = fr_zset_format_u64(self.u64[i], buf)
            p[0] = buf
            return None
        return _member(self.seq[i], buf, p, n)

    cdef int validate(self) except -1:
        """Coerces every member once, so that a bad one raises before any
        change, and points i64 / u64 at the array.  Call it after every other
        argument is converted: from here on no Python code may run until the
        batch's last C call (the pointers are into objects we hold)."""
        cdef Py_ssize_t i, n
        cdef const char *p
        cdef const int64_t[::1] iv
        cdef const uint64_t[::1] uv
        if self.kind == 0:
            for i in range(self.n):
                self.get(i, &p, &n)
        elif self.n and self.kind == 1:
            iv = self.arr
            self.i64 = &iv[0]
        elif self.n:
            uv = self.arr
            self.u64 = &uv[0]
        return 0


cdef class _Batch:
    """Up to FR_ZSET_BATCH members of a _Members, coerced for one fr_zset_*_batch
    call, and the refs / ranks / was-new flags it returns."""
    cdef const char *ps[FR_ZSET_BATCH]
    cdef size_t ls[FR_ZSET_BATCH]
    cdef char bufs[FR_ZSET_BATCH][24]
    cdef list keeps            # owners of ps[j] where coercion made a new object
    cdef fr_zset_ref refs[FR_ZSET_BATCH]
    cdef uint64_t ranks[FR_ZSET_BATCH]
    cdef int news[FR_ZSET_BATCH]

    def __cinit__(self):
        self.keeps = [None] * FR_ZSET_BATCH

    cdef Py_ssize_t fill(self, _Members ms, Py_ssize_t start) except -1:
        """Coerces members start.. (at most FR_ZSET_BATCH); returns how many."""
        cdef Py_ssize_t j, g = ms.n - start, n
        cdef const char *p
        if g > FR_ZSET_BATCH:
            g = FR_ZSET_BATCH
        for j in range(g):
            self.keeps[j] = ms.get_to(start + j, self.bufs[j], &p, &n)
            self.ps[j] = p
            self.ls[j] = <size_t>n
        return g


cdef _Members _members_of(object members):
    cdef _Members ms = _Members.__new__(_Members)
    if isinstance(members, np.ndarray):
        if members.ndim != 1:
            raise ValueError(_zset_err.ZSET_MEMBERS_NDIM)
        kind = members.dtype.kind
        if kind == "u" and members.dtype.itemsize == 8:
            ms.arr = np.ascontiguousarray(members, dtype=np.uint64)
            ms.kind = 2
            ms.n = ms.arr.shape[0]
        elif kind == "i" or kind == "u":
            ms.arr = np.ascontiguousarray(members, dtype=np.int64)
            ms.kind = 1
            ms.n = ms.arr.shape[0]
        elif kind in "OSU":
            ms.seq = tuple(members.tolist())
            ms.n = len(ms.seq)
        else:
            raise TypeError(_zset_err.ZSET_MEMBERS_DTYPE % (members.dtype,))
        return ms
    if isinstance(members, (str, bytes, bytearray, memoryview)):
        raise TypeError(_zset_err.ZSET_MEMBERS_SINGLE % (type(members).__name__,))
    ms.seq = tuple(members)  # a copy, whatever runs later (see the top of this file)
    ms.n = len(ms.seq)
    return ms


cdef object _float_of(object v, str what):
    """One score of a sequence as a Python float: int, float, numpy
    integer/floating values, objects with __float__ / __index__ and numeric
    text; bool, complex and dates raise TypeError."""
    if type(v) is float:
        return v
    if isinstance(v, (bool, np.bool_, complex, np.complexfloating, np.datetime64,
                      np.timedelta64)):
        raise TypeError(_zset_err.ZSET_NUMBERS_TYPE % (what, type(v).__name__))
    if isinstance(v, (list, tuple, np.ndarray)):
        raise ValueError(_zset_err.ZSET_NUMBERS_NDIM % (what,))
    return float(v)  # numbers, and text as float() reads it (ValueError if not)


cdef object _floats(object values, Py_ssize_t n, str what):
    """values as a C-contiguous float64 array of length n, or TypeError /
    ValueError.  Bool, complex and date scores are refused (numpy would
    turn them into numbers).  A sequence is read once, into a new array."""
    cdef Py_ssize_t i
    cdef double[::1] ov
    if isinstance(values, np.ndarray) and values.dtype.kind == "O":
        values = values.tolist()  # checked element by element below
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iuf":
            raise TypeError(_zset_err.ZSET_NUMBERS_TYPE % (what, values.dtype))
        if values.ndim != 1:
            raise ValueError(_zset_err.ZSET_NUMBERS_NDIM % (what,))
        arr = np.ascontiguousarray(values, dtype=np.float64)
    else:
        if isinstance(values, (str, bytes, bytearray, memoryview)):
            raise TypeError(_zset_err.ZSET_NUMBERS_SINGLE % (what, type(values).__name__))
        seq = tuple(values)
        arr = np.empty(len(seq), dtype=np.float64)
        ov = arr
        for i in range(len(seq)):
            ov[i] = _float_of(seq[i], what)
    if arr.shape[0] != n:
        raise ValueError(_zset_err.ZSET_NUMBERS_LENGTH % (n, arr.shape[0], what))
    return arr


cdef int _no_nan(const double[::1] v, str msg) except -1:
    cdef Py_ssize_t i
    for i in range(v.shape[0]):
        if v[i] != v[i]:
            raise ValueError(msg)
    return 0


cdef int _begin_batch(fr_zset *s, const double[::1] scores) except -1:
    """How a batch of m pairs with these scores is added to s: 0 when a bulk
    load was begun (m >= 64 and at least an eighth of the set's size: the
    whole tree rebuilt), the pairs then given to fr_zset_bulk_put and
    fr_zset_bulk_end; 1 when they go one by one (fr_zset_add, O(log n) each,
    which is what a smaller batch costs least).  MemoryError if the bulk
    load cannot start."""
    cdef Py_ssize_t m = scores.shape[0]
    cdef int rc = 1
    if m >= 64 and <uint64_t>m * 8 >= fr_zset_len(s):
        rc = fr_zset_bulk_begin(s, <uint64_t>m)
    if rc < 0:
        raise MemoryError()
    return rc


cdef inline int _flags(bint nx, bint xx, bint gt, bint lt) except -1:
    if nx and xx:
        raise ValueError(_zset_err.ZSET_XX_AND_NX)
    if (gt and lt) or (nx and (gt or lt)):
        raise ValueError(_zset_err.ZSET_GT_LT_AND_NX)
    return (FR_ZSET_NX if nx else 0) | (FR_ZSET_XX if xx else 0) | (FR_ZSET_GT if gt else 0) | (FR_ZSET_LT if lt else 0)


cdef inline int _score_range(fr_zset_range *rg, double min, double max, bint minex, bint maxex) except -1:
    if min != min or max != max:
        raise ValueError(_zset_err.ZSET_RANGE_NAN)
    rg.min = min
    rg.max = max
    rg.minex = minex
    rg.maxex = maxex
    return 0


cdef object _lex_range(fr_zset_lexrange *lr, object min, object max, bint minex, bint maxex,
                       char *buf1, char *buf2):
    """Fills lr; returns the objects that own its bytes (keep them alive)."""
    cdef const char *p
    cdef Py_ssize_t n
    k1 = k2 = None
    lr.minex = minex
    lr.maxex = maxex
    if min is None:
        lr.mininf = 1
        lr.min = NULL
        lr.minlen = 0
    else:
        k1 = _member(min, buf1, &p, &n)
        lr.mininf = 0
        lr.min = p
        lr.minlen = <size_t>n
    if max is None:
        lr.maxinf = 1
        lr.max = NULL
        lr.maxlen = 0
    else:
        k2 = _member(max, buf2, &p, &n)
        lr.maxinf = 0
        lr.max = p
        lr.maxlen = <size_t>n
    return (k1, k2)


def _sortedset_from_items(items, cls=None):
    """Rebuilds a SortedSet (or an instance of the subclass cls, made
    without calling its __init__) from (member, score) pairs; for pickle."""
    z = SortedSet() if cls is None else cls.__new__(cls)
    if items:
        z.add_many([m for m, _ in items], [s for _, s in items])
    return z


cdef object _instance_state(object obj):
    """The attributes of an instance of a Python subclass (its __dict__ and
    slots, as object.__getstate__ gives them), or None."""
    state = obj.__getstate__()
    return state if state else None


cdef object _set_instance_state(object obj, object state):
    """Copies attributes taken by _instance_state onto obj."""
    if state is None:
        return obj
    if isinstance(state, tuple):  # (dict or None, slots dict)
        d, slots = state
    else:
        d, slots = state, None
    if d:
        obj.__dict__.update(d)
    if slots:
        for k, v in slots.items():
            setattr(obj, k, v)
    return obj


# ---------------------------------------------------------------------------
# SortedSet
# ---------------------------------------------------------------------------

cdef enum:
    _WALK_BUFFER = 64  # range walks gather this many nodes at a time (fr_zset_gather_from)


cdef class SortedSet:
    """A sorted set of binary-string members with double scores (a Redis zset).

    Order: ascending score, ties by member bytes (memcmp, shorter prefix
    first).  Point operations are O(log n) (score lookups O(1)); ranges are
    O(log n + m) for m results.

    >>> z = SortedSet()
    >>> z.add("alice", 10); z.add("bob", 20); z.add("carol", 15)
    True
    True
    True
    >>> z.range(0, -1, True, True)
    [(b'bob', 20.0), (b'carol', 15.0), (b'alice', 10.0)]
    >>> z.rank("carol", True)
    1
    """
    cdef fr_zset *_s

    def __cinit__(self):
        self._s = fr_zset_new()
        if self._s == NULL:
            raise MemoryError()

    def __dealloc__(self):
        fr_zset_free(self._s)

    def __init__(self):
        pass

    # -- point operations ---------------------------------------------------

    def add(self, member, double score, *, bint nx=False, bint xx=False, bint gt=False,
            bint lt=False):
        """Set member's score; True when it was added or its score changed.  O(log n).

        Flags as ZADD: nx never updates, xx never adds, gt/lt update an
        existing member only to a strictly greater/smaller score (a new member
        is still added unless xx).  NaN raises ValueError; -0.0 is stored as
        given (it equals 0.0: an existing 0.0 stays, ordering is unaffected).

        >>> z = SortedSet(); z.add(b"a", 1.0), z.add(b"a", 1.0), z.add(b"a", 0.5, gt=True)
        (True, False, False)
        """
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef int flags = 0, rc
        if score != score:
            raise ValueError(_zset_err.ZSET_SCORE_NAN)
        if nx or xx or gt or lt:
            flags = _flags(nx, xx, gt, lt)
        keep = _member(member, buf, &p, &n)
        rc = fr_zset_add(self._s, p, <size_t>n, score, flags)
        if rc < 0:
            raise MemoryError()
        return rc != 0

    def add_status(self, member, double score, bint nx=False, bint xx=False, bint gt=False,
                   bint lt=False):
        """As add, but tells what happened: 0 nothing, 1 added, 2 score changed.  O(log n).

        >>> z = SortedSet(); [z.add_status("m", s) for s in (1, 2, 2)]
        [1, 2, 0]
        """
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef int rc
        if score != score:
            raise ValueError(_zset_err.ZSET_SCORE_NAN)
        keep = _member(member, buf, &p, &n)
        rc = fr_zset_add(self._s, p, <size_t>n, score, _flags(nx, xx, gt, lt))
        if rc < 0:
            raise MemoryError()
        return rc

    def incr(self, member, double delta):
        """Add delta to member's score (a missing member starts at 0); the new score.  O(log n).

        A NaN delta, or a NaN result (inf + -inf), raises ValueError and
        changes nothing.

        >>> z = SortedSet(); z.incr("m", 2.5), z.incr("m", -1)
        (2.5, 1.5)
        """
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef double out
        cdef int rc
        if delta != delta:
            raise ValueError(_zset_err.ZSET_INCREMENT_NAN)
        keep = _member(member, buf, &p, &n)
        rc = fr_zset_incr(self._s, p, <size_t>n, delta, &out, NULL, NULL, NULL)
        if rc == 0:
            return out
        if rc == -1:
            raise ValueError(_zset_err.ZSET_RESULT_NAN)
        raise MemoryError()

    def remove(self, member):
        """Remove member; True when it was present.  O(log n).

        >>> z = SortedSet(); z.add("m", 1); z.remove("m"), z.remove("m")
        True
        (True, False)
        """
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        keep = _member(member, buf, &p, &n)
        if fr_zset_delete(self._s, p, <size_t>n) == 0:
            return False
        fr_zset_shrink(self._s)
        return True

    def score(self, member):
        """member's score, or None when absent.  O(1).

        >>> z = SortedSet(); z.add(7, 1.5); z.score("7"), z.score("8")
        True
        (1.5, None)
        """
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef fr_zset_ref r
        keep = _member(member, buf, &p, &n)
        r = fr_zset_find(self._s, p, <size_t>n)
        if r == FR_ZSET_NIL:
            return None
        return fr_zset_score(self._s, r)

    def rank(self, member, bint reverse=False):
        """0-based rank of member (from the highest with reverse), or None.  O(log n).

        >>> z = SortedSet(); z.add_many(["a", "b", "c"], [1, 2, 3])
        3
        >>> z.rank("a"), z.rank("a", True), z.rank("x")
        (0, 2, None)
        """
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        cdef uint64_t r
        keep = _member(member, buf, &p, &n)
        r = fr_zset_rank_of(self._s, p, <size_t>n)
        if r == 0:
            return None
        if reverse:
            return <Py_ssize_t>(fr_zset_len(self._s) - r)
        return <Py_ssize_t>(r - 1)

    def __len__(self):
        return <Py_ssize_t>fr_zset_len(self._s)

    def __contains__(self, member):
        cdef const char *p
        cdef Py_ssize_t n
        cdef char buf[24]
        try:
            keep = _member(member, buf, &p, &n)
        except TypeError:
            return False
        return fr_zset_find(self._s, p, <size_t>n) != FR_ZSET_NIL

    def __iter__(self):
        """Members in ascending order; changing the set during iteration
        raises RuntimeError at the next step."""
        cdef _SortedSetIterator it = _SortedSetIterator.__new__(_SortedSetIterator)
        it.owner = self
        it.cur = fr_zset_first(self._s)
        it.version = fr_zset_version(self._s)
        return it

    def __repr__(self):
        return f"<fastrank.SortedSet of {len(self)} members>"

    def __reduce__(self):
        if type(self) is SortedSet:
            return (_sortedset_from_items, (self.items(),))
        return (_sortedset_from_items, (self.items(), type(self)), _instance_state(self))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        import copy as _copy
        c = self.copy(cls=type(self), attributes=False)
        state = _instance_state(self)
        return _set_instance_state(c, _copy.deepcopy(state, memo))

    def items(self):
        """All (member, score) pairs in ascending order.  O(n)."""
        return self._collect(fr_zset_first(self._s), <Py_ssize_t>fr_zset_len(self._s), False, True)

    def clear(self):
        """Remove every member and release the memory.  O(n)."""
        if fr_zset_clear(self._s) != 0:
            raise MemoryError()

    def copy(self, *, cls=None, bint attributes=True):
        """An independent copy.  O(n), a few memcpy calls.

        The copy is of type(self) -- a subclass stays a subclass, with its
        instance attributes (shallow) -- or of cls when given (a subclass of
        SortedSet, made without calling its __init__; attributes are then
        copied only when cls is type(self)).

        >>> z = SortedSet(); z.add("a", 1); c = z.copy(); c.add("b", 2); len(z), len(c)
        True
        True
        (1, 2)
        """
        if cls is None:
            cls = type(self)
        elif not (isinstance(cls, type) and issubclass(cls, SortedSet)):
            raise TypeError(_zset_err.ZSET_COPY_CLASS)
        cdef SortedSet c = <SortedSet>cls.__new__(cls)
        cdef fr_zset *s = fr_zset_copy(self._s)
        if s == NULL:
            raise MemoryError()
        fr_zset_free(c._s)
        c._s = s
        if attributes and cls is type(self) and cls is not SortedSet:
            _set_instance_state(c, _instance_state(self))
        return c

    # -- ranges -------------------------------------------------------------

    cdef list _collect(self, fr_zset_ref r, Py_ssize_t count, bint reverse, bint withscores,
                       uint64_t rank0=0):
        """count items from member r on (count must not pass the end),
        gathered from the tree's leaves a block at a time; rank0, when not
        0, is r's 1-based rank (saves finding it)."""
        cdef fr_zset *s = self._s
        cdef list out = PyList_New(count)
        cdef Py_ssize_t i = 0, k, got
        cdef object item
        cdef fr_zset_ref buf[128]
        cdef uint64_t rank
        if count == 0:
            return out
        rank = rank0 if rank0 else fr_zset_rank(s, r)
        while i < count:
            got = <Py_ssize_t>fr_zset_gather(s, rank, <size_t>(count - i if count - i < 128 else 128),
                                             reverse, buf)
            if got == 0:  # past the end: the contract was broken
                raise RuntimeError("sorted set range past its end")
            for k in range(got):
                r = buf[k]
                if withscores:
                    item = (_mbytes(s, r), fr_zset_score(s, r))
                else:
                    item = _mbytes(s, r)
                Py_INCREF(item)
                PyList_SET_ITEM(out, i + k, item)
            i += got
            rank = rank - <uint64_t>got if reverse else rank + <uint64_t>got
        return out

    def range(self, Py_ssize_t start, Py_ssize_t stop, bint reverse=False, bint withscores=False):
        """Members by rank, both ends inclusive, Redis's negative-index rules.  O(log n + m).

        With reverse, rank 0 is the highest member (ZREVRANGE).  With
        withscores, (member, score) pairs.

        >>> z = SortedSet(); z.add_many(list("abcde"), range(5))
        5
        >>> z.range(-2, -1), z.range(0, 1, True, True)
        ([b'd', b'e'], [(b'e', 4.0), (b'd', 3.0)])
        """
        cdef Py_ssize_t n = <Py_ssize_t>fr_zset_len(self._s)
        cdef fr_zset_ref r
        if start < 0:
            start += n
        if stop < 0:
            stop += n
        if start < 0:
            start = 0
        if start > stop or start >= n:
            return []
        if stop >= n:
            stop = n - 1
        return self._collect(FR_ZSET_NIL, stop - start + 1, reverse, withscores,
                             <uint64_t>(n - start) if reverse else <uint64_t>(start + 1))

    def range_by_score(self, double min, double max, *, bint min_exclusive=False,
                       bint max_exclusive=False, bint reverse=False, Py_ssize_t offset=0,
                       Py_ssize_t count=-1, bint withscores=False):
        """Members with min <= score <= max (bounds as given, whatever reverse).  O(log n + m).

        offset < 0 gives []; count < 0 means all remaining (as ZRANGEBYSCORE
        LIMIT).  With reverse the walk starts at max.  Offsets cost
        O(log n), not O(offset).

        >>> z = SortedSet(); z.add_many(list("abcde"), range(5))
        5
        >>> z.range_by_score(1, 3, min_exclusive=True), z.range_by_score(0, 9, reverse=True, offset=1, count=2)
        ([b'c', b'd'], [b'd', b'c'])
        """
        cdef fr_zset_range rg
        _score_range(&rg, min, max, min_exclusive, max_exclusive)
        return self._range_by_score(&rg, reverse, offset, count, withscores)

    cdef list _range_by_score(self, const fr_zset_range *rg, bint reverse, Py_ssize_t offset,
                              Py_ssize_t count, bint withscores):
        """range_by_score for a parsed range (no NaN bound): one descent to
        the first member in range (the last, reversed), one more for an
        offset, then a walk while members stay in range."""
        cdef fr_zset *s = self._s
        cdef uint64_t r
        cdef fr_zset_ref x
        if offset < 0 or count == 0:
            return []
        x = fr_zset_last_in_range(s, rg, &r) if reverse else fr_zset_first_in_range(s, rg, &r)
        if x == FR_ZSET_NIL:
            return []
        if offset:
            if reverse:
                x = FR_ZSET_NIL if <uint64_t>offset >= r else fr_zset_at_rank(s, r - <uint64_t>offset)
            else:
                x = (FR_ZSET_NIL if <uint64_t>offset > fr_zset_len(s) - r
                     else fr_zset_at_rank(s, r + <uint64_t>offset))
        return self._walk(x, reverse, count, withscores, rg, NULL)

    def count(self, double min, double max, *, bint min_exclusive=False,
              bint max_exclusive=False):
        """Number of members with min <= score <= max (ZCOUNT).  O(log n).

        >>> z = SortedSet(); z.add_many(list("abc"), [1, 2, 3]); z.count(1, 3, max_exclusive=True)
        3
        2
        """
        cdef fr_zset_range rg
        _score_range(&rg, min, max, min_exclusive, max_exclusive)
        return self._count(&rg)

    cdef Py_ssize_t _count(self, const fr_zset_range *rg):
        """count for a parsed range (no NaN bound)."""
        return <Py_ssize_t>fr_zset_count_in_range(self._s, rg)

    def range_by_lex(self, min, max, *, bint min_exclusive=False, bint max_exclusive=False,
                     bint reverse=False, Py_ssize_t offset=0, Py_ssize_t count=-1):
        """Members between min and max in member order (ZRANGEBYLEX).  O(log n + m).

        None stands for an open end (Redis's ``-`` for min, ``+`` for max).
        Meaningful when all scores are equal, as in Redis.  Over members of
        different scores the answer is the walk Redis's skip list does: from the
        first member (in set order) >= min, while members are <= max (in
        reverse: from the member before the first one > max, while members
        are >= min), O(n) then.  offset/count as range_by_score.

        >>> z = SortedSet(); z.add_many(["a", "b", "c", "d"], [0] * 4)
        4
        >>> z.range_by_lex(b"b", None), z.range_by_lex(None, b"c", max_exclusive=True, reverse=True)
        ([b'b', b'c', b'd'], [b'b', b'a'])
        """
        cdef fr_zset_lexrange lr
        cdef char buf1[24]
        cdef char buf2[24]
        keep = _lex_range(&lr, min, max, min_exclusive, max_exclusive, buf1, buf2)
        return self._range_by_lex(&lr, reverse, offset, count)

    cdef list _range_by_lex(self, const fr_zset_lexrange *lr, bint reverse, Py_ssize_t offset,
                            Py_ssize_t count):
        """range_by_lex for a filled range (the caller keeps its bytes alive)."""
        cdef fr_zset *s = self._s
        cdef uint64_t r
        cdef fr_zset_ref x
        if offset < 0 or count == 0:
            return []
        cdef uint64_t *rank = &r if offset else NULL  # no rank needed: a member bound is O(1)
        x = fr_zset_last_in_lex(s, lr, rank) if reverse else fr_zset_first_in_lex(s, lr, rank)
        if x == FR_ZSET_NIL or not offset:
            pass
        elif not fr_zset_one_score(s):  # Redis's walk steps over the offset
            while x != FR_ZSET_NIL and offset > 0:
                x = fr_zset_prev(s, x) if reverse else fr_zset_next(s, x)
                offset -= 1
        elif reverse:
            x = FR_ZSET_NIL if <uint64_t>offset >= r else fr_zset_at_rank(s, r - <uint64_t>offset)
        else:
            x = (FR_ZSET_NIL if <uint64_t>offset > fr_zset_len(s) - r
                 else fr_zset_at_rank(s, r + <uint64_t>offset))
        return self._walk(x, reverse, count, False, NULL, lr)

    cdef list _walk(self, fr_zset_ref x, bint reverse, Py_ssize_t count, bint withscores,
                    const fr_zset_range *rg, const fr_zset_lexrange *lr):
        """Up to count (< 0: all) members from node x on, forward or reverse,
        while they stay in the score range rg (or, with rg NULL, the lex range
        lr: Redis's ZRANGEBYLEX walk, also over members of different scores).
        The nodes are gathered from the leaves _WALK_BUFFER at a time
        (fr_zset_gather_from: x's leaf and slot found once a chunk, not a
        next/prev per member), then checked against the range."""
        cdef fr_zset *s = self._s
        cdef fr_zset_ref buf[_WALK_BUFFER]
        cdef size_t want, got, k
        cdef double v
        cdef list out = None
        while x != FR_ZSET_NIL and count != 0:
            want = _WALK_BUFFER if count < 0 or count > _WALK_BUFFER else <size_t>count
            got = fr_zset_gather_from(s, x, want, reverse, buf)
            k = 0
            while k < got:
                x = buf[k]
                if rg != NULL:
                    v = fr_zset_score(s, x)
                    if reverse:
                        if not (v > rg.min if rg.minex else v >= rg.min):
                            break
                    elif not (v < rg.max if rg.maxex else v <= rg.max):
                        break
                elif reverse:
                    if not fr_zset_lex_ref_gte_min(s, x, lr):
                        break
                elif not fr_zset_lex_ref_lte_max(s, x, lr):
                    break
                k += 1
            if out is None:
                out = self._items_of(buf, <Py_ssize_t>k, withscores)
            else:
                out.extend(self._items_of(buf, <Py_ssize_t>k, withscores))
            if k < want:  # out of range, or the end of the set
                break
            count -= <Py_ssize_t>k
            x = fr_zset_prev(s, buf[k - 1]) if reverse else fr_zset_next(s, buf[k - 1])
        return [] if out is None else out

    cdef list _items_of(self, const fr_zset_ref *refs, Py_ssize_t k, bint withscores):
        """The members (or (member, score) pairs) of k nodes."""
        cdef list out = PyList_New(k)
        cdef Py_ssize_t i
        for i in range(k):
            item = (_mbytes(self._s, refs[i]), fr_zset_score(self._s, refs[i])) if withscores \
                else _mbytes(self._s, refs[i])
            Py_INCREF(item)
            PyList_SET_ITEM(out, i, item)
        return out

    def count_by_lex(self, min, max, *, bint min_exclusive=False, bint max_exclusive=False):
        """Number of members between min and max (ZLEXCOUNT).  O(log n).

        >>> z = SortedSet(); z.add_many(["a", "b", "c"], [0] * 3); z.count_by_lex(b"a", b"c", min_exclusive=True)
        3
        2
        """
        cdef fr_zset_lexrange lr
        cdef char buf1[24]
        cdef char buf2[24]
        keep = _lex_range(&lr, min, max, min_exclusive, max_exclusive, buf1, buf2)
        return self._count_by_lex(&lr)

    cdef Py_ssize_t _count_by_lex(self, const fr_zset_lexrange *lr):
        """count_by_lex for a filled range (the caller keeps its bytes alive)."""
        return <Py_ssize_t>fr_zset_count_in_lex(self._s, lr)

    def pop_min(self, Py_ssize_t n=1):
        """Remove and return up to n lowest (member, score) pairs, lowest first.  O(log n + m).

        >>> z = SortedSet(); z.add_many(list("abc"), [1, 1, 2]); z.pop_min(2)
        3
        [(b'a', 1.0), (b'b', 1.0)]
        """
        cdef list out
        if n < 0:
            raise ValueError(_zset_err.ZSET_COUNT_NEGATIVE)
        if <uint64_t>n > fr_zset_len(self._s):
            n = <Py_ssize_t>fr_zset_len(self._s)
        out = self._collect(fr_zset_first(self._s), n, False, True)
        fr_zset_delete_range_by_rank(self._s, 1, <uint64_t>n)
        fr_zset_shrink(self._s)
        return out

    def pop_max(self, Py_ssize_t n=1):
        """Remove and return up to n highest (member, score) pairs, highest first.  O(log n + m).

        Ties come out in descending member order (as ZPOPMAX).

        >>> z = SortedSet(); z.add_many(list("abc"), [2, 2, 1]); z.pop_max(2)
        3
        [(b'b', 2.0), (b'a', 2.0)]
        """
        cdef list out
        cdef uint64_t ln = fr_zset_len(self._s)
        if n < 0:
            raise ValueError(_zset_err.ZSET_COUNT_NEGATIVE)
        if <uint64_t>n > ln:
            n = <Py_ssize_t>ln
        out = self._collect(fr_zset_last(self._s), n, True, True)
        fr_zset_delete_range_by_rank(self._s, ln - <uint64_t>n + 1, ln)
        fr_zset_shrink(self._s)
        return out

    def remove_range_by_rank(self, Py_ssize_t start, Py_ssize_t stop):
        """Remove members by rank with Redis's index rules (ZREMRANGEBYRANK); the number removed.

        O(log n + m).

        >>> z = SortedSet(); z.add_many(list("abcde"), range(5)); z.remove_range_by_rank(-2, -1), z.range(0, -1)
        5
        (2, [b'a', b'b', b'c'])
        """
        cdef Py_ssize_t n = <Py_ssize_t>fr_zset_len(self._s)
        if start < 0:
            start += n
        if stop < 0:
            stop += n
        if start < 0:
            start = 0
        if start > stop or start >= n:
            return 0
        if stop >= n:
            stop = n - 1
        n = <Py_ssize_t>fr_zset_delete_range_by_rank(self._s, <uint64_t>start + 1,
                                                  <uint64_t>stop + 1)
        fr_zset_shrink(self._s)
        return n

    def remove_range_by_score(self, double min, double max, *, bint min_exclusive=False,
                              bint max_exclusive=False):
        """Remove members with min <= score <= max (ZREMRANGEBYSCORE); the number removed.

        O(log n + m).
        """
        cdef fr_zset_range rg
        _score_range(&rg, min, max, min_exclusive, max_exclusive)
        cdef Py_ssize_t n = <Py_ssize_t>fr_zset_delete_range_by_score(self._s, &rg)
        fr_zset_shrink(self._s)
        return n

    def remove_range_by_lex(self, min, max, *, bint min_exclusive=False,
                            bint max_exclusive=False):
        """Remove members between min and max (ZREMRANGEBYLEX); the number removed.

        O(log n + m).
        """
        cdef fr_zset_lexrange lr
        cdef char buf1[24]
        cdef char buf2[24]
        keep = _lex_range(&lr, min, max, min_exclusive, max_exclusive, buf1, buf2)
        cdef Py_ssize_t n = <Py_ssize_t>fr_zset_delete_range_by_lex(self._s, &lr)
        fr_zset_shrink(self._s)
        return n

    # -- batch (numpy) ------------------------------------------------------

    def add_many(self, members, scores):
        """Set each member's score (later duplicates win); the number added.

        members: a sequence of members or a numpy integer array (formatted as
        decimal text in C); scores: anything numpy turns into float64, of the
        same length.  Everything (types, lengths, NaN) is checked before the
        first change.  A batch at least 1/8 of the set's size (and >= 64) is
        loaded in bulk: records are written, then sorted (radix) and the tree
        is rebuilt packed in one pass, O(n + m) instead of m searches.  Other
        batches are O(m log n).

        >>> z = SortedSet(); z.add_many(np.array([5, -5]), np.array([1.0, 2.0])), z.range(0, -1)
        (2, [b'5', b'-5'])
        """
        cdef _Members ms = _members_of(members)
        cdef const double[::1] sv = _floats(scores, ms.n, "scores")
        cdef Py_ssize_t i
        cdef const char *p
        cdef Py_ssize_t n
        cdef uint64_t added = 0
        cdef int rc
        _no_nan(sv, _zset_err.ZSET_SCORE_NAN)
        ms.validate()
        if ms.n == 0:
            return 0
        if _begin_batch(self._s, sv) == 0:
            try:
                for i in range(ms.n):
                    keep = ms.get(i, &p, &n)
                    if fr_zset_bulk_put(self._s, p, <size_t>n, sv[i], &added) != 0:
                        raise MemoryError()
            finally:
                fr_zset_bulk_end(self._s)
        else:
            for i in range(ms.n):
                keep = ms.get(i, &p, &n)
                rc = fr_zset_add(self._s, p, <size_t>n, sv[i], 0)
                if rc < 0:
                    raise MemoryError()
                added += rc == 1
        return <Py_ssize_t>added

    def incr_many(self, members, deltas):
        """incr for each pair in order; the new scores (float64 array).  O(m log n).

        All or nothing: NaN deltas, a length mismatch or a NaN result
        part-way (inf + -inf, found before any change) raise ValueError and
        leave the set as it was.  Out of memory part-way undoes the pairs
        done and raises MemoryError.

        >>> z = SortedSet(); z.incr_many(["a", "b", "a"], [1, 2, 3])
        array([1., 2., 4.])
        """
        cdef _Members ms = _members_of(members)
        cdef const double[::1] dv = _floats(deltas, ms.n, "deltas")
        cdef object out = np.empty(ms.n, dtype=np.float64)
        cdef double[::1] ov = out
        cdef Py_ssize_t i, j, g, k, done = 0
        cdef _Batch b = _Batch.__new__(_Batch)
        cdef int rc = 0
        cdef bint undone = True
        cdef fr_zset_ref *refs = NULL
        cdef double *olds = NULL
        cdef uint8_t *news = NULL
        _no_nan(dv, _zset_err.ZSET_INCREMENT_NAN)
        ms.validate()
        if ms.n == 0:
            return out
        self._refuse_nan_results(ms, dv)
        refs = <fr_zset_ref *>malloc(ms.n * sizeof(fr_zset_ref))
        olds = <double *>malloc(ms.n * sizeof(double))
        news = <uint8_t *>malloc(ms.n)
        try:
            if refs == NULL or olds == NULL or news == NULL:
                raise MemoryError()
            for i in range(0, ms.n, FR_ZSET_BATCH):
                g = b.fill(ms, i)
                k = <Py_ssize_t>fr_zset_incr_batch(self._s, b.ps, b.ls, &dv[i], <size_t>g, &ov[i],
                                               &refs[i], &olds[i], b.news, &rc)
                for j in range(k):
                    news[i + j] = <uint8_t>b.news[j]
                done = i + k
                if k < g:  # out of memory (NaN results were refused above)
                    raise MemoryError()
            done = -1
        finally:
            if done >= 0:  # failed: undo pairs done-1 .. 0
                for i in range(done - 1, -1, -1):
                    if news[i]:
                        fr_zset_delete_ref(self._s, refs[i])
                    elif fr_zset_set_score(self._s, refs[i], olds[i]) != 0:
                        undone = False
            free(refs)
            free(olds)
            free(news)
            if not undone:  # the set holds the pairs whose undo found no memory
                raise MemoryError(_zset_err.ZSET_UNDO_OUT_OF_MEMORY)
        return out

    cdef int _refuse_nan_results(self, _Members ms, const double[::1] dv) except -1:
        """ValueError when adding the deltas in order would make a NaN score
        (inf + -inf), before anything changes.  Only an infinite delta can:
        finite sums overflow to an infinity, never to NaN."""
        cdef Py_ssize_t i
        cdef const char *p
        cdef Py_ssize_t n
        cdef fr_zset_ref r
        cdef dict running
        for i in range(ms.n):
            if dv[i] - dv[i] != 0:
                break
        else:
            return 0
        running = {}
        for i in range(ms.n):
            keep = ms.get(i, &p, &n)
            member = PyBytes_FromStringAndSize(p, n)
            score = running.get(member)
            if score is None:
                r = fr_zset_find(self._s, p, <size_t>n)
                score = fr_zset_score(self._s, r) if r != FR_ZSET_NIL else 0.0
            score = <double>score + dv[i]
            if score != score:
                raise ValueError(_zset_err.ZSET_RESULT_NAN)
            running[member] = score
        return 0

    def rank_many(self, members, bint reverse=False):
        """rank of each member, -1 where missing (int64 array).  O(m log n).

        >>> z = SortedSet(); z.add_many(np.arange(3), [3, 1, 2]); z.rank_many(np.array([0, 1, 9]))
        3
        array([ 2,  0, -1])
        """
        cdef _Members ms = _members_of(members)
        cdef object out = np.empty(ms.n, dtype=np.int64)
        cdef int64_t[::1] ov = out
        cdef _Batch b = _Batch.__new__(_Batch)
        cdef Py_ssize_t i, j, g
        cdef uint64_t r, ln = fr_zset_len(self._s)
        ms.validate()
        for i in range(0, ms.n, FR_ZSET_BATCH):
            g = b.fill(ms, i)
            fr_zset_find_batch(self._s, b.ps, b.ls, <size_t>g, b.refs)
            fr_zset_rank_batch(self._s, b.refs, <size_t>g, b.ranks)
            for j in range(g):
                r = b.ranks[j]
                if r == 0:
                    ov[i + j] = -1
                elif reverse:
                    ov[i + j] = <int64_t>(ln - r)
                else:
                    ov[i + j] = <int64_t>(r - 1)
        return out

    def score_many(self, members):
        """score of each member, NaN where missing (float64 array).  O(m).

        >>> z = SortedSet(); z.add("a", 1); z.score_many(["a", "b"])
        True
        array([ 1., nan])
        """
        cdef _Members ms = _members_of(members)
        cdef object out = np.empty(ms.n, dtype=np.float64)
        cdef double[::1] ov = out
        cdef _Batch b = _Batch.__new__(_Batch)
        cdef Py_ssize_t i, j, g
        cdef fr_zset_ref r
        cdef double nan = float("nan")
        ms.validate()
        for i in range(0, ms.n, FR_ZSET_BATCH):
            g = b.fill(ms, i)
            fr_zset_find_batch(self._s, b.ps, b.ls, <size_t>g, b.refs)
            for j in range(g):
                r = b.refs[j]
                ov[i + j] = fr_zset_score(self._s, r) if r != FR_ZSET_NIL else nan
        return out

    # -- diagnostics --------------------------------------------------------

    def memory_usage(self):
        """Bytes allocated by the C structures (struct, record arena, tree
        nodes, index, long members).  O(1).  Removals give memory back: tree
        nodes merge, a big set's node pool is compacted when more than half
        of its slots are free, the arena when its live records fill less than a
        quarter of it (and it is over 64 KiB), the index when under 1/8
        full."""
        return fr_zset_memory(self._s)

    def _check(self):
        """Verify every invariant (order, spans, levels, index); AssertionError if broken.

        O(n * levels).  The message includes the items of small sets.
        """
        cdef char err[512]
        if fr_zset_check(self._s, err, sizeof(err)) != 0:
            msg = err.decode("utf-8", "replace")
            if fr_zset_len(self._s) <= 64:
                msg += "\nlevel 0: " + repr(self.items())
            raise AssertionError(msg)


cdef class _SortedSetIterator:
    """Iterator over a SortedSet's members in ascending order."""
    cdef SortedSet owner
    cdef fr_zset_ref cur
    cdef uint64_t version

    def __iter__(self):
        return self

    def __next__(self):
        cdef fr_zset *s = self.owner._s
        cdef bytes m
        if fr_zset_version(s) != self.version:
            raise RuntimeError(_zset_err.ZSET_CHANGED_DURING_ITERATION)
        if self.cur == FR_ZSET_NIL:
            raise StopIteration
        m = _mbytes(s, self.cur)
        self.cur = fr_zset_next(s, self.cur)
        return m
