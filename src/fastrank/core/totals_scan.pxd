# totals_scan.pxd -- Cython declarations of sqlite_runtime.h, totals_scan.h and packed_gather.h.
from libc.stdint cimport int64_t

cdef extern from "sqlite_runtime.h":
    ctypedef struct fr_sqlite_api:
        pass
    int fr_sqlite_load(const char *path, fr_sqlite_api *api, char *err, int errlen) nogil

cdef extern from "totals_scan.h":
    ctypedef struct fr_totals:
        char *blob
        int64_t *offsets
        int64_t *points
        double *ats
        int64_t *stale
        size_t n
        size_t blob_len
        size_t nstale
    int fr_totals_scan(const fr_sqlite_api *api, const char *path, const char *season, int season_len,
                       const char *after, int after_len, const char *until, int until_len, int64_t upto,
                       int busy_ms, fr_totals *out, char *err, int errlen) nogil
    void fr_totals_free(fr_totals *t) nogil

cdef extern from "packed_gather.h":
    void fr_packed_gather(const char *blob, const int64_t *offsets, const int64_t *rows, size_t n,
                          char *out, int64_t *out_offsets) nogil
