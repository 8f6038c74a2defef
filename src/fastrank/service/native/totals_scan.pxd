# totals_scan.pxd -- Cython declarations of sqlite_runtime.h, totals_scan.h, score_scan.h and
# packed_gather.h.
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
                       const char *board, int board_len, const char *after, int after_len, const char *until, int until_len, int64_t upto,
                       int busy_ms, fr_totals *out, char *err, int errlen) nogil
    void fr_totals_free(fr_totals *t) nogil

cdef extern from "packed_gather.h":
    void fr_packed_gather(const char *blob, const int64_t *offsets, const int64_t *rows, size_t n,
                          char *out, int64_t *out_offsets) nogil

cdef extern from "score_scan.h":
    ctypedef struct fr_score_codec:
        int integer
        int mirrored
        int time_bits
        int64_t scale
    ctypedef struct fr_score_chunk:
        char *blob
        int64_t *offsets
        int64_t *points
        int64_t *rows
        double *scores
        size_t n
        size_t members
        size_t blob_len
    ctypedef struct fr_score_scan:
        void *stmt
    const char FR_SCORE_SCAN_SQL[]
    int fr_score_scan_open(fr_score_scan *s, const fr_sqlite_api *api, const char *path, const char *season,
                           int season_len, const char *board, int board_len, int64_t upto,
                           const fr_score_codec *codec, int busy_ms, char *err, int errlen) nogil
    int fr_score_scan_next(fr_score_scan *s, size_t batch, fr_score_chunk *out, char *err, int errlen) nogil
    size_t fr_score_scan_changed(const fr_score_scan *s, const char **blob, const int64_t **offsets)
    void fr_score_scan_close(fr_score_scan *s) nogil
    void fr_score_chunk_free(fr_score_chunk *c) nogil
