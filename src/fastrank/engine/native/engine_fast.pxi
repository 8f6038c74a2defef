# engine_fast.pxi -- compiled front doors of fastrank.Engine's hottest methods.
#
# Included by _core.pyx.  fastrank.Engine binds these functions as its
# zincrby, zscore, zrank, zrevrank, zrange, zrevrange, incrby and incr
# (cyfunctions bind like Python functions, so ``self`` is the Engine).  Each
# one handles the commonest case entirely in C: exact bytes/str key, exact
# bytes/str/int member, an existing key without a TTL holding a SortedSet (or
# a canonical integer string for INCRBY), plain numeric arguments.  Anything
# else -- and every case they are unsure of -- calls redis-py's own method
# (``_GENERIC``, set by ``dispatch_setup``), which ends in the one dispatch
# path (engine/native/dispatch.pxi) and the command's handler, so both give the same
# answer (tests/unit/engine/test_engine_fastpaths.py).
#
# Locking: the Engine's lock (an EngineLock, below) is taken around the
# lookup and the change, blocking as ``with lock:`` does, so a MULTI/EXEC
# holding it is never interleaved. Taking it may wait with the GIL released,
# so pointers into the member are (re)taken once it is held. Inside the lock
# only C code runs (dict lookups with exact-bytes keys, the C sorted set),
# except ``Engine.written`` after a write while someone watches a key or
# waits in a blocking pop.

from cpython.dict cimport PyDict_GetItemWithError, PyDict_SetItem
from cpython.exc cimport PyErr_CheckSignals
from cpython.pythread cimport (NOWAIT_LOCK, PY_LOCK_ACQUIRED, PY_LOCK_INTR, PyThread_allocate_lock,
                               PyThread_acquire_lock, PyThread_free_lock,
                               PyThread_get_thread_ident, PyThread_release_lock,
                               PyThread_type_lock)
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.object cimport PyObject

from python_extra cimport (PyThread_acquire_lock_timed, PyUnicode_DATA, PyUnicode_Decode,
                           PyUnicode_GET_LENGTH, PyUnicode_IS_COMPACT_ASCII)


cdef object _PyFloat = float
cdef object _GENERIC = None  # redis-py's CoreCommands: where a front door declines to
cdef long long INT64_MAX_LL = 0x7FFFFFFFFFFFFFFF
cdef long long INT64_MIN_LL = -INT64_MAX_LL - 1


# ---------------------------------------------------------------------------
# EngineLock
# ---------------------------------------------------------------------------

cdef class EngineLock:
    """A re-entrant lock, a drop-in for threading.RLock (also under a
    threading.Condition), whose uncontended acquire/release are a few C
    field updates.

    The design of fastrlock (S. Behnel): the GIL serialises every change of
    the fields, so while no other thread wants the lock its owner never
    touches the OS lock.  A thread that finds the lock owned takes the OS
    lock on the owner's behalf (``is_locked``), then waits on it; the
    owner's final release releases it and so hands the lock over.  Every
    method runs with the GIL held and calls no Python code between reading
    and writing the fields.
    """
    cdef PyThread_type_lock real
    cdef unsigned long owner
    cdef Py_ssize_t count      # re-entry depth; 0: free
    cdef Py_ssize_t pending    # threads waiting on real
    cdef bint is_locked        # real is held (for the owner, by a waiter)

    def __cinit__(self):
        self.real = PyThread_allocate_lock()
        if self.real == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.real != NULL:
            if self.is_locked:
                PyThread_release_lock(self.real)
            PyThread_free_lock(self.real)

    cdef inline bint enter(self) except -1:
        """Blocking acquire (the fast paths' and ``with``'s)."""
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.count:
            if self.owner == me:
                self.count += 1
                return True
        elif not self.pending:
            self.owner = me
            self.count = 1
            return True
        return self._wait(me, True, -1, True)

    cdef bint _wait(self, unsigned long me, bint blocking, long long timeout_us,
                    bint intr) except -1:
        """Contended acquire: through the OS lock (intr: signal handlers may raise)."""
        cdef int rc
        if not self.is_locked and not self.pending:
            # The owner never took the OS lock: take it for them (it is free).
            if not PyThread_acquire_lock(self.real, NOWAIT_LOCK):
                return False
            self.is_locked = True
        if not blocking:
            return False
        self.pending += 1
        try:
            while True:
                with nogil:
                    rc = PyThread_acquire_lock_timed(self.real, timeout_us, intr)
                if rc != PY_LOCK_INTR:
                    break
                PyErr_CheckSignals()  # may raise (KeyboardInterrupt), as RLock does
        finally:
            self.pending -= 1
        if rc != PY_LOCK_ACQUIRED:
            return False
        self.is_locked = True
        self.owner = me
        self.count = 1
        return True

    cdef inline void leave(self) noexcept:
        """Release once (the caller owns the lock)."""
        self.count -= 1
        if self.count == 0 and self.is_locked:
            self.is_locked = False
            PyThread_release_lock(self.real)

    def acquire(self, bint blocking=True, double timeout=-1):
        """As RLock.acquire: True when acquired."""
        cdef unsigned long me = PyThread_get_thread_ident()
        if timeout != -1:
            if not blocking:
                raise ValueError("can't specify a timeout for a non-blocking call")
            if timeout < 0:
                raise ValueError("timeout value must be a non-negative number")
            if timeout > 1e9:
                raise OverflowError("timeout value is too large")
        if self.count:
            if self.owner == me:
                self.count += 1
                return True
        elif not self.pending:
            self.owner = me
            self.count = 1
            return True
        return self._wait(me, blocking, -1 if timeout < 0 else <long long>(timeout * 1e6), True)

    def release(self):
        """As RLock.release."""
        if self.count == 0 or self.owner != PyThread_get_thread_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self.leave()

    def __enter__(self):
        self.enter()
        return True

    def __exit__(self, t, v, tb):
        if self.count == 0 or self.owner != PyThread_get_thread_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self.leave()

    def _is_owned(self):
        return self.count > 0 and self.owner == PyThread_get_thread_ident()

    def _release_save(self):
        """threading.Condition.wait: release completely; the state to restore."""
        cdef Py_ssize_t depth = self.count
        if depth == 0 or self.owner != PyThread_get_thread_ident():
            raise RuntimeError("cannot release un-acquired lock")
        self.count = 1
        self.leave()
        return (depth, self.owner)

    def _acquire_restore(self, state):
        """threading.Condition.wait: take the lock again at the saved depth
        (not interruptible, as RLock's)."""
        cdef Py_ssize_t depth = state[0]
        cdef unsigned long me = PyThread_get_thread_ident()
        if self.count == 0 and not self.pending:
            self.owner = me
            self.count = 1
        else:
            self._wait(me, True, -1, False)
        self.count = depth

    def __repr__(self):
        return (f"<fastrank._core.EngineLock {'locked' if self.count else 'unlocked'} "
                f"count={self.count}>")


# ---------------------------------------------------------------------------
# Fast paths
# ---------------------------------------------------------------------------

cdef object _DECLINE = object()
NATIVE_DECLINE = _DECLINE
"""What a native script path (``Engine.register_native_script``) or a script
plan returns to leave the call to the Lua script."""


cdef class EngineState:
    """The parts of one Engine the compiled fast paths use, as C fields.

    The Engine keeps one in ``_fast``; it shares the Engine's dicts and lock
    (the Engine never rebinds them).
    """
    cdef dict data
    cdef dict expires
    cdef EngineLock lock
    cdef bint decode
    cdef bytes encoding
    cdef bytes errors
    cdef public object callbacks  # redis-py's response callbacks (Engine.response_callbacks)
    # True while the callbacks of the commands the front doors answer are
    # redis-py's own: the front doors shape replies as those callbacks would.
    # Any change to one of them (or new callbacks) clears it, and the front
    # doors then take the generic path, which calls the callbacks.
    cdef public bint stock_callbacks

    def __cinit__(self, dict data, dict expires, EngineLock lock, bint decode_responses,
                  str encoding, str encoding_errors):
        self.data = data
        self.expires = expires
        self.lock = lock
        self.decode = decode_responses
        self.encoding = encoding.encode("ascii")
        self.errors = encoding_errors.encode("ascii")


# The Engine whose handler runs and its state (borrowed: _call's caller holds
# both), so that the handler's lookups reach the state without an attribute
# lookup. Written and read with the GIL held, always as a pair, and cleared
# when any handler ends: a nested or interleaved call then only falls back to
# ``db._fast``, and the pair never names an Engine that is gone.
cdef PyObject *_RUNNING_DB = NULL
cdef PyObject *_RUNNING_STATE = NULL


cdef inline EngineState _state_of(object db):
    """db._fast (db is an Engine), without the attribute lookup while db's handler runs."""
    if <PyObject *>db == _RUNNING_DB:
        return <EngineState>_RUNNING_STATE
    return <EngineState?>db._fast


cdef inline object _fast_key(object name):
    """The key as the dict holds it (exact bytes), or None: use the generic path."""
    cdef const char *p
    cdef Py_ssize_t n
    if type(name) is bytes:
        return name
    if type(name) is str:
        try:
            p = PyUnicode_AsUTF8AndSize(name, &n)
        except UnicodeEncodeError:
            return None
        return PyBytes_FromStringAndSize(p, n)
    return None


cdef inline bint _fast_member(object m, char *buf, const char **p, Py_ssize_t *n):
    """Points p/n at an exact bytes/str/int member (as pack_args would send it);
    False for anything else, or a str that is not UTF-8 encodable."""
    cdef long long v
    cdef int overflow = 0
    if type(m) is bytes:
        p[0] = PyBytes_AS_STRING(m)
        n[0] = PyBytes_GET_SIZE(m)
        return True
    if type(m) is str:
        try:
            p[0] = PyUnicode_AsUTF8AndSize(m, n)
        except UnicodeEncodeError:
            return False
        return True
    if type(m) is int:
        v = PyLong_AsLongLongAndOverflow(m, &overflow)
        if overflow:
            return False
        n[0] = fr_zset_format_i64(v, buf)
        p[0] = buf
        return True
    return False


cdef inline bint _no_ttl(EngineState st, object key):
    return not st.expires or key not in st.expires


cdef inline SortedSet _zset_at(EngineState st, object key):
    """The SortedSet (or ListpackZSet) at key when it has no TTL, else None."""
    cdef PyObject *v = PyDict_GetItemWithError(st.data, key)
    if v == NULL or not isinstance(<object>v, SortedSet) or not _no_ttl(st, key):
        return None
    return <SortedSet>v


cdef inline bint _int64_arg(object x, long long *out):
    cdef int overflow = 0
    if type(x) is not int:
        return False
    out[0] = PyLong_AsLongLongAndOverflow(x, &overflow)
    return not overflow


cdef inline bint _canonical_i64(object text, long long *out):
    """Text is exactly "%d" % v for an int64 v (what INCRBY accepts unchanged)."""
    cdef const char *p = PyBytes_AS_STRING(text)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(text), i = 0
    cdef bint neg = False
    cdef unsigned long long v = 0, limit
    cdef char c
    if n == 0 or n > 20:
        return False
    if p[0] == c'-':
        neg = True
        i = 1
        if n == 1:
            return False
    if p[i] == c'0' and (neg or n > 1):  # leading zero, "-0"
        return False
    limit = (<unsigned long long>1 << 63) if neg else ((<unsigned long long>1 << 63) - 1)
    while i < n:
        c = p[i]
        if c < c'0' or c > c'9':
            return False
        if v > (limit - <unsigned long long>(c - c'0')) // 10:
            return False
        v = v * 10 + <unsigned long long>(c - c'0')
        i += 1
    out[0] = -<long long>(v - 1) - 1 if neg else <long long>v
    return True


def engine_zincrby(self, name, amount, value):
    """Engine.zincrby: C path for a plain skiplist zset, else the generic path."""
    cdef EngineState st = _state_of(self)
    cdef double delta, out
    cdef long long iv
    cdef const char *p
    cdef Py_ssize_t n
    cdef char buf[24]
    cdef int rc
    cdef PyObject *v
    cdef SortedSet z
    key = _fast_key(name)
    if key is None or not st.stock_callbacks:
        return _GENERIC.zincrby(self, name, amount, value)
    if type(amount) is _PyFloat:
        delta = PyFloat_AS_DOUBLE(amount)
    elif _int64_arg(amount, &iv):
        delta = <double>iv
    else:
        return _GENERIC.zincrby(self, name, amount, value)
    # Zero (a new member gets the amount itself) and inf/NaN: the other paths.
    if delta - delta != 0.0 or delta == 0.0 or not _fast_member(value, buf, &p, &n):
        return _GENERIC.zincrby(self, name, amount, value)
    st.lock.enter()
    try:
        # Point at the member again: the lock may have waited with the GIL
        # released, and no pointer is kept across such a wait.
        _fast_member(value, buf, &p, &n)
        v = PyDict_GetItemWithError(st.data, key)
        # Only a skiplist: a listpack may convert (the handler does it).
        if v == NULL or type(<object>v) is not SortedSet or not _no_ttl(st, key):
            rc = -1
        else:
            z = <SortedSet>v
            rc = fr_zset_incr(z._s, p, <size_t>n, delta, &out, NULL, NULL, NULL)
            if rc < -1:
                raise MemoryError()
            if rc == 0 and self._observed:
                self.written(key)
    finally:
        st.lock.leave()
    if rc == 0:
        return out
    return _GENERIC.zincrby(self, name, amount, value)  # rc == -1: nothing was changed


def engine_zscore(self, name, value):
    """Engine.zscore: C path for a zset without TTL, else the generic path."""
    cdef EngineState st = _state_of(self)
    cdef const char *p
    cdef Py_ssize_t n
    cdef char buf[24]
    cdef SortedSet z
    cdef fr_zset_ref r = FR_ZSET_NIL
    cdef bint found = False
    key = _fast_key(name)
    if key is None or not st.stock_callbacks or not _fast_member(value, buf, &p, &n):
        return _GENERIC.zscore(self, name, value)
    st.lock.enter()
    try:
        # Point at the member again: the lock may have waited with the GIL
        # released, and no pointer is kept across such a wait.
        _fast_member(value, buf, &p, &n)
        z = _zset_at(st, key)
        if z is not None:
            found = True
            r = fr_zset_find(z._s, p, <size_t>n)
            if r != FR_ZSET_NIL:
                return fr_zset_score(z._s, r)
    finally:
        st.lock.leave()
    if found:
        return None
    return _GENERIC.zscore(self, name, value)


cdef object _fast_rank(EngineState st, object name, object value, bint reverse):
    """The rank (int or None), or False when the generic path must answer."""
    cdef const char *p
    cdef Py_ssize_t n
    cdef char buf[24]
    cdef SortedSet z
    cdef uint64_t r
    key = _fast_key(name)
    if key is None or not st.stock_callbacks or not _fast_member(value, buf, &p, &n):
        return False
    st.lock.enter()
    try:
        # Point at the member again: the lock may have waited with the GIL
        # released, and no pointer is kept across such a wait.
        _fast_member(value, buf, &p, &n)
        z = _zset_at(st, key)
        if z is None:
            return False
        r = fr_zset_rank_of(z._s, p, <size_t>n)
        if r == 0:
            return None
        if reverse:
            return <Py_ssize_t>(fr_zset_len(z._s) - r)
        return <Py_ssize_t>(r - 1)
    finally:
        st.lock.leave()


def engine_zrank(self, name, value, withscore=False, score_cast_func=float):
    """Engine.zrank: C path without withscore, else the generic path."""
    if withscore is False:
        rank = _fast_rank(_state_of(self), name, value, False)
        if rank is not False:
            return rank
    return _GENERIC.zrank(self, name, value, withscore, score_cast_func)


def engine_zrevrank(self, name, value, withscore=False, score_cast_func=float):
    """Engine.zrevrank: C path without withscore, else the generic path."""
    if withscore is False:
        rank = _fast_rank(_state_of(self), name, value, True)
        if rank is not False:
            return rank
    return _GENERIC.zrevrank(self, name, value, withscore, score_cast_func)


cdef object _fast_range(EngineState st, object name, object start, object end, object desc,
                        object withscores, object score_cast_func):
    """ZRANGE by rank without options, or False for the generic path."""
    cdef long long a, b
    cdef Py_ssize_t ln, i, count
    cdef SortedSet z
    cdef fr_zset_ref r
    cdef list out
    cdef bint reverse = desc is True
    cdef bint scores = withscores is True
    cdef bytes m
    key = _fast_key(name)
    if key is None or not st.stock_callbacks or (desc is not True and desc is not False) \
            or (withscores is not True and withscores is not False) \
            or (scores and score_cast_func is not _PyFloat) \
            or not _int64_arg(start, &a) or not _int64_arg(end, &b):
        return False
    st.lock.enter()
    try:
        z = _zset_at(st, key)
        if z is None:
            return False
        ln = <Py_ssize_t>fr_zset_len(z._s)
        if a < 0:
            a += ln
        if b < 0:
            b += ln
        if a < 0:
            a = 0
        if a > b or a >= ln:
            out = []
        else:
            if b >= ln:
                b = ln - 1
            out = z._collect(FR_ZSET_NIL, <Py_ssize_t>(b - a + 1), reverse, scores,
                             <uint64_t>(ln - a) if reverse else <uint64_t>(a + 1))
    finally:
        st.lock.leave()
    if st.decode:
        count = len(out)
        for i in range(count):
            if scores:
                m = out[i][0]
                out[i] = (PyUnicode_Decode(PyBytes_AS_STRING(m), PyBytes_GET_SIZE(m),
                                           st.encoding, st.errors), out[i][1])
            else:
                m = out[i]
                out[i] = PyUnicode_Decode(PyBytes_AS_STRING(m), PyBytes_GET_SIZE(m),
                                          st.encoding, st.errors)
    return out


def engine_zrange(self, name, start, end, desc=False, withscores=False, score_cast_func=float,
                  byscore=False, bylex=False, offset=None, num=None):
    """Engine.zrange: C path for a plain rank range, else the generic path."""
    if byscore is False and bylex is False and offset is None and num is None:
        result = _fast_range(_state_of(self), name, start, end, desc, withscores,
                             score_cast_func)
        if result is not False:
            return result
    return _GENERIC.zrange(self, name, start, end, desc, withscores, score_cast_func, byscore, bylex,
                        offset, num)


def engine_zrevrange(self, name, start, end, withscores=False, score_cast_func=float):
    """Engine.zrevrange: C path for a plain rank range, else the generic path."""
    result = _fast_range(_state_of(self), name, start, end, True, withscores,
                         score_cast_func)
    if result is not False:
        return result
    return _GENERIC.zrevrange(self, name, start, end, withscores, score_cast_func)


def engine_incrby(self, name, amount=1):
    """Engine.incrby / incr: C path for a canonical int64 string, else the generic path."""
    cdef EngineState st = _state_of(self)
    cdef long long by, old, new = 0
    cdef PyObject *v
    cdef char buf[24]
    cdef bint done = False
    key = _fast_key(name)
    if key is None or not st.stock_callbacks or not _int64_arg(amount, &by):
        return _GENERIC.incrby(self, name, amount)
    st.lock.enter()
    try:
        v = PyDict_GetItemWithError(st.data, key)
        if v != NULL and type(<object>v) is bytes and _no_ttl(st, key) \
                and _canonical_i64(<object>v, &old) \
                and not (by > 0 and old > INT64_MAX_LL - by) \
                and not (by < 0 and old < INT64_MIN_LL - by):
            new = old + by
            PyDict_SetItem(st.data, key, PyBytes_FromStringAndSize(buf, fr_zset_format_i64(new, buf)))
            done = True
            if self._observed:
                self.written(key)
    finally:
        st.lock.leave()
    if done:
        return new
    return _GENERIC.incrby(self, name, amount)

