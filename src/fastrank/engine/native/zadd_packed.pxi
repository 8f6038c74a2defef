# zadd_packed.pxi -- SortedSet pairs added from packed columns, no Python
# object per member.
#
# Included by _core.pyx after zset.pxi.  A ``fastrank.service.columns.ZaddPacked``
# holds its members as one bytes blob with offsets (the store's totals as
# fastrank.service._totals reads them) and a list of rows to take from it;
# ``sortedset_add_packed`` adds those pairs to a SortedSet the way
# ``SortedSet.add_many`` does (``_begin_batch``: a bulk load when the batch
# is big next to the set, else pair by pair), reading each member in place
# from the blob.


def sortedset_add_packed(SortedSet z, bytes blob not None, const int64_t[::1] offsets,
                         const int64_t[::1] rows, const double[::1] scores):
    """``z.add_many([blob[offsets[r]:offsets[r + 1]] for r in rows], scores)``
    without making the member objects: the number added (later duplicates
    win).  Rows, lengths and NaN scores are checked before the first change.
    O(m + n) bulk, O(m log m) appended, else O(m log n) for m pairs."""
    cdef Py_ssize_t i, m = rows.shape[0]
    cdef const char *base = PyBytes_AS_STRING(blob)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(blob)
    cdef int64_t r
    cdef uint64_t added = 0
    cdef int rc
    if scores.shape[0] != m:
        raise ValueError(_zset_err.PACKED_LENGTHS % (m, scores.shape[0]))
    for i in range(m):
        r = rows[i]
        if r < 0 or r + 1 >= offsets.shape[0] or not 0 <= offsets[r] <= offsets[r + 1] <= size:
            raise IndexError(_zset_err.PACKED_ROW_RANGE)
    _no_nan(scores, _zset_err.ZSET_SCORE_NAN)
    if m == 0:
        return 0
    if _begin_batch(z._s, scores) == 0:
        try:
            for i in range(m):
                r = rows[i]
                if fr_zset_bulk_put(z._s, base + offsets[r], <size_t>(offsets[r + 1] - offsets[r]),
                                    scores[i], &added) != 0:
                    raise MemoryError()
        finally:
            fr_zset_bulk_end(z._s)
    else:
        for i in range(m):
            r = rows[i]
            rc = fr_zset_add(z._s, base + offsets[r], <size_t>(offsets[r + 1] - offsets[r]), scores[i], 0)
            if rc < 0:
                raise MemoryError()
            added += rc == 1
    return <Py_ssize_t>added
