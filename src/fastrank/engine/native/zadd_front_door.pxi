# zadd_front_door.pxi -- the compiled front door of Engine.zadd.
#
# Included by _core.pyx after engine/native/engine_fast.pxi (it uses that file's
# helpers).  fastrank.Engine binds ``engine_zadd`` as its zadd.  The common
# case -- a plain dict of a few pairs (fewer than ZADD_FEW_PAIRS), no flags,
# members exact bytes/str/int64, scores exact finite float or int64, the key
# an existing skip-list SortedSet without a TTL -- is added in C, pair by
# pair with fr_zset_add as ZADD's member-by-member path adds them (a member
# given its current score changes nothing, -0.0 is kept as given, later
# duplicates win).  Everything else -- a new key, a listpack, a TTL, a flag,
# a NaN or infinite score, other types, larger mappings -- goes to the
# Engine's Python method (``Engine._zadd_general``) unchanged.  The pairs are
# all read and checked under the lock before the first one is added, so a
# declined call has changed nothing.

from cpython.dict cimport PyDict_Next, PyDict_Size

cdef enum:
    # At most this many pairs take the front door (ZADD's bulk path starts
    # at 16 pairs: fewer are added member by member there too).
    ZADD_FEW_PAIRS = 15


def engine_zadd(self, name, mapping, nx=False, xx=False, ch=False, incr=False, gt=False,
                lt=False):
    """Engine.zadd: C path for a few plain pairs on a skip-list zset, else
    ``Engine._zadd_general``.  The number of members added.  O(m log n)."""
    cdef EngineState st
    cdef Py_ssize_t count, pos = 0, i = 0, added = 0
    cdef PyObject *kp
    cdef PyObject *vp
    cdef PyObject *v
    cdef const char *ptrs[ZADD_FEW_PAIRS]
    cdef Py_ssize_t lens[ZADD_FEW_PAIRS]
    cdef double scores[ZADD_FEW_PAIRS]
    cdef char bufs[ZADD_FEW_PAIRS][24]
    cdef long long iv = 0
    cdef double score
    cdef int rc
    cdef bint plain = True, changed = False
    cdef SortedSet z
    if type(mapping) is not dict or nx is not False or xx is not False or ch is not False \
            or incr is not False or gt is not False or lt is not False:
        return self._zadd_general(name, mapping, nx, xx, ch, incr, gt, lt)
    count = PyDict_Size(mapping)
    key = _fast_key(name)
    st = _state_of(self)
    if key is None or count == 0 or count > ZADD_FEW_PAIRS or not st.stock_callbacks:
        return self._zadd_general(name, mapping, nx, xx, ch, incr, gt, lt)
    st.lock.enter()
    try:
        # Read the pairs only now that the lock is held: the pointers into
        # the members stay valid while no other thread runs.
        v = PyDict_GetItemWithError(st.data, key)
        if v == NULL or type(<object>v) is not SortedSet or not _no_ttl(st, key):
            plain = False
        while plain and PyDict_Next(mapping, &pos, &kp, &vp):
            if i >= count:
                plain = False
                break
            if type(<object>vp) is _PyFloat:
                score = PyFloat_AS_DOUBLE(<object>vp)
                if score - score != 0.0:  # inf, NaN: Python path (and its errors)
                    plain = False
                    break
            elif _int64_arg(<object>vp, &iv):
                score = <double>iv
            else:
                plain = False
                break
            if not _fast_member(<object>kp, bufs[i], &ptrs[i], &lens[i]):
                plain = False
                break
            scores[i] = score
            i += 1
        if plain and i == count:
            z = <SortedSet>v
            for i in range(count):
                rc = fr_zset_add(z._s, ptrs[i], <size_t>lens[i], scores[i], 0)
                if rc < 0:
                    if changed and self._observed:
                        self.written(key)
                    raise MemoryError()
                if rc:
                    changed = True
                    added += rc == 1
            if changed and self._observed:
                self.written(key)
        else:
            plain = False
    finally:
        st.lock.leave()
    if plain:
        return added
    return self._zadd_general(name, mapping, nx, xx, ch, incr, gt, lt)
