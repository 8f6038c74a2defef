# _totals.pyx -- fastrank.service._totals: the store's totals read into flat columns
# by SQLite's C API, and the member lists built from those columns.
#
# A compiled module of its own (apart from the Engine's core).  The SQLite
# functions are found at run time in the library Python's sqlite3 module
# loaded (service/native/sqlite_runtime.c), so the package builds without SQLite's
# headers; when they cannot be found ``scan_error()`` says why and callers
# keep their sqlite3-module path.  ``scan_totals`` steps one SELECT without
# the GIL and returns the rows as a bytes blob of the player ids, their
# offsets and numpy columns: no Python object per row.  ``ScoreOrderScan``
# reads them instead from the ranking index in a board's ascending order,
# one chunk at a time (service/native/score_scan.c).

# cython: language_level=3
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t
from libc.string cimport memcmp, memcpy, memset

from totals_scan cimport (FR_SCORE_SCAN_SQL, fr_packed_gather, fr_score_chunk, fr_score_chunk_free,
                         fr_score_codec, fr_score_scan, fr_score_scan_changed, fr_score_scan_close,
                         fr_score_scan_next, fr_score_scan_open, fr_sqlite_api, fr_sqlite_load, fr_totals,
                         fr_totals_free, fr_totals_scan)

import numpy as np

from fastrank import errors as _errors

cdef fr_sqlite_api _api
cdef int _state = 0  # 0: not tried yet, 1: loaded, -1: not available
cdef str _why = ""


class TotalsScanError(RuntimeError):
    """SQLite refused the native read (its message); the caller may read another way."""


def scan_error():
    """None when ``scan_totals`` can run here, else why not (SQLite's C API
    was not found in the process).  Loads it once.  O(1)."""
    global _state, _why
    cdef char err[200]
    cdef bytes path
    if _state == 0:
        try:
            import _sqlite3  # the extension module whose libsqlite3 we bind to
        except ImportError:
            _sqlite3 = None
        path = (getattr(_sqlite3, "__file__", None) or "").encode()
        if fr_sqlite_load(PyBytes_AS_STRING(path) if path else NULL, &_api, err, sizeof(err)) == 0:
            _state = 1
        else:
            _state = -1
            _why = err.decode("utf-8", "replace")
    return None if _state == 1 else _why


cdef object _column(const void *data, size_t n, object dtype):
    out = np.empty(n, dtype=dtype)
    if n:
        memcpy(<void *><size_t>out.ctypes.data, data, n * out.itemsize)
    return out


def scan_totals(str path, str season, long long upto, str after="", str until=None, int busy_ms=30000,
                str board=""):
    """The totals of ``season`` of ``board`` with player ids in (``after``, ``until``]
    (``until`` None: no bound), in player order, read from the SQLite file
    ``path`` on a connection of its own in one statement (one snapshot),
    without the GIL: ``(blob, offsets, points, ats, stale)`` where row i's
    player id is ``blob[offsets[i]:offsets[i + 1]]`` (UTF-8), ``points`` is
    int64, ``ats`` float64 and ``stale`` (int64) the rows whose last event id
    is above ``upto``.  Raises TotalsScanError (SQLite's message) or
    MemoryError.  O(rows).
    """
    if scan_error() is not None:
        raise TotalsScanError(_why)
    cdef bytes path_b = path.encode(), season_b = season.encode(), after_b = after.encode()
    cdef bytes board_b = board.encode()
    cdef const char *b = PyBytes_AS_STRING(board_b)
    cdef int bl = len(board_b)
    cdef bytes until_b = until.encode() if until is not None else None
    cdef const char *p = PyBytes_AS_STRING(path_b)
    cdef const char *s = PyBytes_AS_STRING(season_b)
    cdef const char *a = PyBytes_AS_STRING(after_b)
    cdef const char *u = PyBytes_AS_STRING(until_b) if until_b is not None else NULL
    cdef int sl = len(season_b), al = len(after_b), ul = len(until_b) if until_b is not None else 0
    cdef fr_totals t
    cdef char err[512]
    cdef int rc
    memset(&t, 0, sizeof(t))
    err[0] = 0
    try:
        with nogil:
            rc = fr_totals_scan(&_api, p, s, sl, b, bl, a, al, u, ul, upto, busy_ms, &t, err, sizeof(err))
        if rc == -1:
            raise MemoryError()
        if rc != 0:
            raise TotalsScanError(err.decode("utf-8", "replace"))
        blob = PyBytes_FromStringAndSize(t.blob, <Py_ssize_t>t.blob_len) if t.blob_len else b""
        offsets = _column(t.offsets, t.n + 1, np.int64) if t.n else np.zeros(1, np.int64)
        return (blob, offsets, _column(t.points, t.n, np.int64), _column(t.ats, t.n, np.float64),
                _column(t.stale, t.nstale, np.int64))
    finally:
        fr_totals_free(&t)


def packed_members(bytes blob not None, const int64_t[::1] offsets, const int64_t[::1] rows):
    """``[blob[offsets[r]:offsets[r + 1]] for r in rows]``, in one C loop.  O(len(rows))."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef const char *base = PyBytes_AS_STRING(blob)
    cdef Py_ssize_t size = len(blob)
    cdef int64_t r
    cdef list out = PyList_New(n)
    for i in range(n):
        r = rows[i]
        if r < 0 or r + 1 >= offsets.shape[0] or not 0 <= offsets[r] <= offsets[r + 1] <= size:
            raise IndexError(_errors.PACKED_ROW_RANGE)
        member = PyBytes_FromStringAndSize(base + offsets[r], <Py_ssize_t>(offsets[r + 1] - offsets[r]))
        Py_INCREF(member)
        PyList_SET_ITEM(out, i, member)
    return out


def gather_members(bytes blob not None, const int64_t[::1] offsets, const int64_t[::1] rows):
    """The members of ``rows`` packed again in that order: ``(blob, offsets)``
    with member k at ``blob[offsets[k]:offsets[k + 1]]``.  One pass that
    reads ahead (prefetch), without the GIL.  O(len(rows) + their bytes)."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef Py_ssize_t size = len(blob)
    cdef int64_t r, total = 0
    for i in range(n):
        r = rows[i]
        if r < 0 or r + 1 >= offsets.shape[0] or not 0 <= offsets[r] <= offsets[r + 1] <= size:
            raise IndexError(_errors.PACKED_ROW_RANGE)
        total += offsets[r + 1] - offsets[r]
    out = PyBytes_FromStringAndSize(NULL, <Py_ssize_t>total)
    out_offsets = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] ov = out_offsets
    cdef char *dst = PyBytes_AS_STRING(out)
    cdef const char *src = PyBytes_AS_STRING(blob)
    if n == 0:
        ov[0] = 0
        return out, out_offsets
    with nogil:
        fr_packed_gather(src, &offsets[0], &rows[0], <size_t>n, dst, &ov[0])
    return out, out_offsets


def ties_in_member_order(bytes blob not None, const int64_t[::1] offsets, const int64_t[::1] rows,
                         const double[::1] scores):
    """True when every two neighbours of ``rows`` with the same score (the
    scores given in the order of ``rows``) have their members in a sorted
    set's order (memcmp, then the shorter first).  O(len(rows)) comparisons.
    """
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef const char *base = PyBytes_AS_STRING(blob)
    cdef Py_ssize_t size = len(blob)
    cdef int64_t a, b, la, lb
    cdef int c
    if scores.shape[0] != n:
        raise ValueError(_errors.PACKED_LENGTHS % (n, scores.shape[0]))
    for i in range(n):
        a = rows[i]
        if a < 0 or a + 1 >= offsets.shape[0] or not 0 <= offsets[a] <= offsets[a + 1] <= size:
            raise IndexError(_errors.PACKED_ROW_RANGE)
    for i in range(1, n):
        if scores[i] != scores[i - 1]:
            continue
        a, b = rows[i - 1], rows[i]
        la, lb = offsets[a + 1] - offsets[a], offsets[b + 1] - offsets[b]
        c = memcmp(base + offsets[a], base + offsets[b], <size_t>(la if la < lb else lb))
        if c > 0 or (c == 0 and la >= lb):
            return False
    return True


#: The SELECT a ScoreOrderScan steps (the ranking index, backwards).
SCORE_SCAN_SQL = FR_SCORE_SCAN_SQL.decode()


cdef class ScoreOrderScan:
    """A season's totals of ``board`` as of event ``upto`` read from the store's ranking
    index (``totals_by_rank``) in a sorted set's ascending order, with each
    score encoded as a board stores it: ``integer`` (a tie-break board:
    ``points * 2**time_bits + tick``, the tick ``floor(at)`` or, when
    ``mirrored``, ``2**time_bits - 1 - floor(at)``), else the points.  Only
    the orders the index walks backwards are possible: a tie-break board
    needs ``mirrored``.  One connection, one read transaction (a single
    snapshot) from the constructor to ``close``.

    ``changed()`` lists the players with an event after ``upto`` (their rows
    are left out: the caller sums them as of ``upto``); ``next_chunk(batch)``
    reads the next chunk without the GIL.  One thread at a time may call
    its methods.
    """
    cdef fr_score_scan s
    cdef fr_score_chunk c
    cdef bint busy

    def __cinit__(self):
        memset(&self.s, 0, sizeof(self.s))
        memset(&self.c, 0, sizeof(self.c))

    def __init__(self, str path, str season, long long upto, bint integer, bint mirrored, int time_bits,
                 int busy_ms=30000, str board=""):
        if scan_error() is not None:
            raise TotalsScanError(_why)
        if integer and not mirrored:
            raise ValueError(_errors.SCORE_SCAN_ORDER)
        if integer and not 1 <= time_bits <= 52:
            raise ValueError(_errors.SCORE_SCAN_TIME_BITS % (time_bits,))
        cdef bytes path_b = path.encode(), season_b = season.encode(), board_b = board.encode()
        cdef const char *bp = PyBytes_AS_STRING(board_b)
        cdef int bl = len(board_b)
        cdef const char *p = PyBytes_AS_STRING(path_b)
        cdef const char *sp = PyBytes_AS_STRING(season_b)
        cdef int sl = len(season_b)
        cdef fr_score_codec codec
        cdef char err[512]
        cdef int rc
        codec.integer, codec.mirrored, codec.time_bits = integer, mirrored, time_bits
        codec.scale = (<int64_t>1) << time_bits if integer else 0
        err[0] = 0
        with nogil:
            rc = fr_score_scan_open(&self.s, &_api, p, sp, sl, bp, bl, upto, &codec, busy_ms, err, sizeof(err))
        if rc != 0:
            fr_score_scan_close(&self.s)
            if rc == -1:
                raise MemoryError()
            raise TotalsScanError(err.decode("utf-8", "replace"))

    def changed(self):
        """The player ids (str) with an event after ``upto``, in byte order.  O(k)."""
        cdef const char *blob
        cdef const int64_t *offsets
        cdef size_t i, n = fr_score_scan_changed(&self.s, &blob, &offsets)
        return [blob[offsets[i]:offsets[i + 1]].decode("utf-8", "surrogateescape") for i in range(n)]

    def next_chunk(self, Py_ssize_t batch):
        """The next ``batch`` players (fewer at the end) as ``(blob, offsets,
        rows, scores, points)``: write member ``rows[k]`` (``blob[offsets[r]:
        offsets[r + 1]]`` for ``r = rows[k]``) with ``scores[k]`` (its
        points ``points[k]``), in that order, which is a sorted set's; None
        when the scan is over.  A run of equal scores that passes the end of
        a chunk is read whole and sorted by member, and its rest carried into
        the next chunks.  Raises TotalsScanError, ValueError (a time or total
        the board cannot encode) or MemoryError.  O(batch) (a run of k equal
        scores: O(k log k))."""
        cdef char err[512]
        cdef int rc
        if batch < 1:
            raise ValueError(_errors.SCORE_SCAN_BATCH % (batch,))
        if self.busy or self.s.stmt == NULL:
            raise RuntimeError(_errors.SCORE_SCAN_CLOSED)
        self.busy = True
        err[0] = 0
        try:
            with nogil:
                rc = fr_score_scan_next(&self.s, <size_t>batch, &self.c, err, sizeof(err))
        finally:
            self.busy = False
        if rc == -1:
            raise MemoryError()
        if rc == -2:
            raise TotalsScanError(err.decode("utf-8", "replace"))
        if rc == -3:
            raise ValueError(err.decode("utf-8", "replace"))
        if self.c.n == 0:
            return None
        blob = PyBytes_FromStringAndSize(self.c.blob, <Py_ssize_t>self.c.blob_len) if self.c.blob_len else b""
        return (blob, _column(self.c.offsets, self.c.members + 1, np.int64), _column(self.c.rows, self.c.n, np.int64),
                _column(self.c.scores, self.c.n, np.float64), _column(self.c.points, self.c.n, np.int64))

    def close(self):
        """End the read transaction and close the connection (idempotent)."""
        if self.busy:
            raise RuntimeError(_errors.SCORE_SCAN_BUSY)
        fr_score_scan_close(&self.s)
        fr_score_chunk_free(&self.c)

    def __dealloc__(self):
        fr_score_scan_close(&self.s)
        fr_score_chunk_free(&self.c)
