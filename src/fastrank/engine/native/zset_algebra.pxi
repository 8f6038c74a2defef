# zset_algebra.pxi -- the fold of the sorted-set algebra, compiled: the
# (member, score) result of ZUNION, ZINTER, ZDIFF, their STORE forms and
# ZINTERCARD, as a new SortedSet.
#
# Included by _core.pyx after structures/zset.pxi.  fastrank.engine.commands.sortedset
# parses the arguments (WEIGHTS, AGGREGATE, WITHSCORES, LIMIT), checks the
# sources' types (WRONGTYPE before any change) and stores or replies the
# result; ``zset_algebra`` is its one rule for the scores, Redis 7.0's
# zunionInterDiffGenericCommand:
#
# - a source is a zset (any SortedSet, a ListpackZSet too), a plain set
#   (every member scores 1) or None (a missing key: no members);
# - union and intersection fold the sources smallest first (a stable sort by
#   size); union walks every source in its order (a zset ascending, a set in
#   its iteration order), intersection walks the smallest and looks each
#   member up in the others;
# - a source's score is multiplied by its weight; in a union a NaN product
#   (inf * 0) counts 0, as does the first source's product in an
#   intersection; AGGREGATE SUM turns a NaN sum (inf + -inf) into 0, MIN and
#   MAX keep the current score against a NaN; -0.0 is kept as computed;
# - difference keeps the first source's members (their scores unweighted)
#   that no other source holds.
#
# A union's accumulator is the result's own index: the set is in bulk-load
# mode (``fr_zset_bulk_slot``: a member's score read and rewritten in
# place) and its tree is built once at the end.  The reservation starts at
# the largest source and doubles (the bulk load ended and begun again) so
# a union of big overlapping sets never reserves their total.

from cpython.bytes cimport PyBytes_AsStringAndSize


cdef enum:
    _ALGEBRA_CHUNK = 256  # pairs a walk hands over at a time
    _AGG_SUM = 0
    _AGG_MIN = 1
    _AGG_MAX = 2


cdef inline double _agg(double target, double value, int how):
    """AGGREGATE of the current score target and a source's value."""
    cdef double total
    if how == _AGG_SUM:
        total = target + value
        return 0.0 if total != total else total
    if how == _AGG_MIN:
        return value if value < target else target
    return value if value > target else target


cdef inline double _weighted(double score, double weight):
    """score * weight, NaN (inf * 0) counted 0."""
    cdef double v = score * weight
    return 0.0 if v != v else v


cdef class _SourceWalk:
    """A source's (member, score) pairs, up to _ALGEBRA_CHUNK at a time: a
    zset in ascending order (gathered from its leaves), a plain set in its
    iteration order with score 1.  The member pointers stay valid while the
    source is unchanged (the caller holds the GIL throughout)."""
    cdef SortedSet z
    cdef object it
    cdef fr_zset_ref x
    cdef fr_zset_ref refs[_ALGEBRA_CHUNK]
    cdef const char *ps[_ALGEBRA_CHUNK]
    cdef size_t ls[_ALGEBRA_CHUNK]
    cdef double ss[_ALGEBRA_CHUNK]

    cdef Py_ssize_t next(self) except -1:
        """Fills ps/ls/ss; the number of pairs, 0 at the end."""
        cdef size_t got, k
        cdef Py_ssize_t n
        cdef char *p
        if self.z is not None:
            if self.x == FR_ZSET_NIL:
                return 0
            got = fr_zset_gather_from(self.z._s, self.x, _ALGEBRA_CHUNK, 0, self.refs)
            for k in range(got):
                self.ps[k] = fr_zset_member(self.z._s, self.refs[k], &self.ls[k])
                self.ss[k] = fr_zset_score(self.z._s, self.refs[k])
            self.x = fr_zset_next(self.z._s, self.refs[got - 1]) \
                if got == _ALGEBRA_CHUNK else FR_ZSET_NIL
            return <Py_ssize_t>got
        got = 0
        if self.it is None:
            return 0
        for member in self.it:
            PyBytes_AsStringAndSize(member, &p, &n)
            self.ps[got] = p
            self.ls[got] = <size_t>n
            self.ss[got] = 1.0
            got += 1
            if got == _ALGEBRA_CHUNK:
                return <Py_ssize_t>got
        self.it = None
        return <Py_ssize_t>got


cdef _SourceWalk _walk_of(object source):
    cdef _SourceWalk w = _SourceWalk.__new__(_SourceWalk)
    if isinstance(source, SortedSet):
        w.z = <SortedSet>source
        w.x = fr_zset_first(w.z._s)
    elif source is not None:
        w.it = iter(source)
        w.x = FR_ZSET_NIL
    else:
        w.x = FR_ZSET_NIL
    return w


cdef inline Py_ssize_t _size(object source):
    return 0 if source is None else len(source)


cdef bint _holds(object source, const char *p, size_t n, double *score) except -1:
    """Whether source (a zset or a plain set, not None) holds member p[:n];
    its score (1 for a set) into *score."""
    cdef fr_zset_ref r
    if isinstance(source, SortedSet):
        r = fr_zset_find((<SortedSet>source)._s, p, n)
        if r == FR_ZSET_NIL:
            return False
        score[0] = fr_zset_score((<SortedSet>source)._s, r)
        return True
    score[0] = 1.0
    return PyBytes_FromStringAndSize(p, <Py_ssize_t>n) in source


cdef int _begin(SortedSet out, uint64_t room) except -1:
    if fr_zset_bulk_begin(out._s, room) != 0:
        raise MemoryError()
    return 0


cdef int _put(SortedSet out, const char *p, size_t n, double score, uint64_t *added) except -1:
    if fr_zset_bulk_put(out._s, p, n, score, added) != 0:
        raise MemoryError()
    return 0


cdef SortedSet _union(list sources, list weights, int how):
    cdef SortedSet out = SortedSet()
    cdef _SourceWalk w
    cdef Py_ssize_t i, k, got
    cdef uint64_t added = 0, room, left = 0, largest = 0, size
    cdef uint64_t begun_at = 0, before
    cdef bint loading = False
    cdef double weight
    cdef double *slot
    order = sorted(range(len(sources)), key=lambda j: _size(sources[j]))
    for source in sources:
        size = <uint64_t>_size(source)
        left += size
        largest = size if size > largest else largest
    if left == 0:
        return out
    room = largest
    try:
        _begin(out, room)
        loading = True
        for i in order:
            w = _walk_of(sources[i])
            weight = weights[i]
            got = w.next()
            while got:
                for k in range(got):
                    if added - begun_at == room:  # the reservation is full: double it
                        fr_zset_bulk_end(out._s)
                        loading = False
                        room = min(left, added if added > largest else largest)
                        begun_at = added
                        _begin(out, room)
                        loading = True
                    left -= 1
                    before = added
                    slot = fr_zset_bulk_slot(out._s, w.ps[k], w.ls[k], &added)
                    if slot == NULL:
                        raise MemoryError()
                    if added != before:
                        slot[0] = _weighted(w.ss[k], weight)
                    else:
                        slot[0] = _agg(slot[0], _weighted(w.ss[k], weight), how)
                got = w.next()
    finally:
        if loading:
            fr_zset_bulk_end(out._s)
    return out


cdef SortedSet _inter(list sources, list weights, int how):
    cdef SortedSet out = SortedSet()
    cdef _SourceWalk w
    cdef Py_ssize_t j, k, got, first
    cdef uint64_t added = 0
    cdef double score, value, first_weight
    order = sorted(range(len(sources)), key=lambda j: _size(sources[j]))
    first = order[0]
    if _size(sources[first]) == 0:
        return out
    others = [sources[j] for j in order[1:]]
    other_weights = [<double>weights[j] for j in order[1:]]
    first_weight = weights[first]
    w = _walk_of(sources[first])
    _begin(out, <uint64_t>_size(sources[first]))
    try:
        got = w.next()
        while got:
            for k in range(got):
                score = _weighted(w.ss[k], first_weight)
                for j in range(len(others)):
                    if not _holds(others[j], w.ps[k], w.ls[k], &value):
                        break
                    score = _agg(score, value * <double>other_weights[j], how)
                else:
                    _put(out, w.ps[k], w.ls[k], score, &added)
            got = w.next()
    finally:
        fr_zset_bulk_end(out._s)
    return out


cdef SortedSet _diff(list sources):
    cdef SortedSet out = SortedSet()
    cdef _SourceWalk w
    cdef Py_ssize_t j, k, got
    cdef uint64_t added = 0
    cdef double value
    if _size(sources[0]) == 0:
        return out
    others = [s for s in sources[1:] if s is not None]
    w = _walk_of(sources[0])
    _begin(out, <uint64_t>_size(sources[0]))
    try:
        got = w.next()
        while got:
            for k in range(got):
                for j in range(len(others)):
                    if _holds(others[j], w.ps[k], w.ls[k], &value):
                        break
                else:
                    _put(out, w.ps[k], w.ls[k], w.ss[k], &added)
            got = w.next()
    finally:
        fr_zset_bulk_end(out._s)
    return out


def zset_algebra(str op, list sources, list weights, bytes how):
    """The result of op ("union", "inter" or "diff") over sources (each a
    SortedSet, a set of bytes or None) with one float weight per source and
    AGGREGATE how (b"SUM", b"MIN" or b"MAX"), as a new SortedSet.  The rules
    are this file's header.  O(total size) for a union, O(smallest size x
    sources) for an intersection, O(first size x sources) for a difference,
    plus the result's build (a radix sort)."""
    cdef int agg = _AGG_SUM if how == b"SUM" else _AGG_MIN if how == b"MIN" else _AGG_MAX
    if op == "union":
        return _union(sources, weights, agg)
    if op == "inter":
        return _inter(sources, weights, agg)
    return _diff(sources)
