# zset.pxd -- declarations of the C sorted set (zset.h, names fr_zset_*) for
# zset.pxi, plus the two Python C-API forms zset.pxi uses.  The contracts are
# the comments in zset.h; the design is the essay atop zset.c.
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "zset.h" nogil:
    ctypedef uint32_t fr_zset_ref

    ctypedef struct fr_zset:
        pass

    ctypedef struct fr_zset_range:
        double min
        double max
        int minex
        int maxex

    ctypedef struct fr_zset_lexrange:
        const char *min
        size_t minlen
        const char *max
        size_t maxlen
        int minex
        int maxex
        int mininf
        int maxinf

    enum:
        FR_ZSET_NX
        FR_ZSET_XX
        FR_ZSET_GT
        FR_ZSET_LT

    fr_zset_ref FR_ZSET_NIL

    # inline accessors
    double fr_zset_score(const fr_zset *s, fr_zset_ref r)
    const char *fr_zset_member(const fr_zset *s, fr_zset_ref r, size_t *len)
    fr_zset_ref fr_zset_first(const fr_zset *s)
    fr_zset_ref fr_zset_last(const fr_zset *s)
    uint64_t fr_zset_len(const fr_zset *s)
    uint64_t fr_zset_version(const fr_zset *s)

    # life cycle
    fr_zset *fr_zset_new()
    void fr_zset_free(fr_zset *s)
    int fr_zset_clear(fr_zset *s)
    fr_zset *fr_zset_copy(const fr_zset *s)
    size_t fr_zset_memory(const fr_zset *s)
    int fr_zset_shrink(fr_zset *s)

    # point operations
    fr_zset_ref fr_zset_find(const fr_zset *s, const char *m, size_t len)
    int fr_zset_add(fr_zset *s, const char *m, size_t len, double score, int flags)
    int fr_zset_incr(fr_zset *s, const char *m, size_t len, double delta, double *newscore,
                 fr_zset_ref *ref, double *oldscore, int *was_new)
    int fr_zset_delete(fr_zset *s, const char *m, size_t len)
    void fr_zset_delete_ref(fr_zset *s, fr_zset_ref r)
    int fr_zset_set_score(fr_zset *s, fr_zset_ref r, double score)
    int fr_zset_set_score_ranked(fr_zset *s, fr_zset_ref r, double score, uint64_t *ranks)
    void fr_zset_prefetch_move(const fr_zset *s, fr_zset_ref r)
    uint64_t fr_zset_rank(const fr_zset *s, fr_zset_ref r)
    uint64_t fr_zset_rank_of(const fr_zset *s, const char *m, size_t len)
    fr_zset_ref fr_zset_at_rank(const fr_zset *s, uint64_t rank)
    fr_zset_ref fr_zset_next(const fr_zset *s, fr_zset_ref r)
    fr_zset_ref fr_zset_prev(const fr_zset *s, fr_zset_ref r)
    size_t fr_zset_gather(const fr_zset *s, uint64_t rank, size_t count, int reverse, fr_zset_ref *out)
    size_t fr_zset_gather_from(const fr_zset *s, fr_zset_ref r, size_t count, int reverse, fr_zset_ref *out)

    # batch lookups
    enum:
        FR_ZSET_BATCH
    void fr_zset_find_batch(const fr_zset *s, const char **m, const size_t *len, size_t g,
                        fr_zset_ref *out)
    void fr_zset_rank_batch(const fr_zset *s, const fr_zset_ref *refs, size_t g, uint64_t *out)
    void fr_zset_count_below_batch(const fr_zset *s, const double *x, int inclusive, size_t g, uint64_t *out)
    size_t fr_zset_incr_batch(fr_zset *s, const char **m, const size_t *len, const double *delta,
                          size_t g, double *newscore, fr_zset_ref *ref, double *oldscore,
                          int *was_new, int *rc)

    # ranges
    fr_zset_ref fr_zset_first_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank)
    fr_zset_ref fr_zset_last_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank)
    uint64_t fr_zset_count_in_range(const fr_zset *s, const fr_zset_range *r)
    fr_zset_ref fr_zset_first_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank)
    fr_zset_ref fr_zset_last_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank)
    uint64_t fr_zset_count_in_lex(const fr_zset *s, const fr_zset_lexrange *r)
    uint64_t fr_zset_delete_range_by_rank(fr_zset *s, uint64_t start, uint64_t end)
    uint64_t fr_zset_delete_range_by_score(fr_zset *s, const fr_zset_range *r)
    uint64_t fr_zset_delete_range_by_lex(fr_zset *s, const fr_zset_lexrange *r)
    int fr_zset_one_score(const fr_zset *s)
    int fr_zset_lex_ref_gte_min(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r)
    int fr_zset_lex_ref_lte_max(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r)

    # bulk load
    int fr_zset_bulk_begin(fr_zset *s, uint64_t extra)
    int fr_zset_bulk_put(fr_zset *s, const char *m, size_t len, double score, uint64_t *added)
    double *fr_zset_bulk_slot(fr_zset *s, const char *m, size_t len, uint64_t *added)
    void fr_zset_bulk_end(fr_zset *s)

    # diagnostics, helpers
    int fr_zset_check(const fr_zset *s, char *err, size_t errlen)
    int fr_zset_format_i64(int64_t v, char *buf)
    int fr_zset_format_u64(uint64_t v, char *buf)


cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object s, Py_ssize_t *size) except NULL


# Py_ssize_t's largest value, for length checks.
cdef extern from *:
    """
    #define FR_ZSET_PY_SSIZE_T_MAX PY_SSIZE_T_MAX
    """
    Py_ssize_t FR_ZSET_PY_SSIZE_T_MAX
