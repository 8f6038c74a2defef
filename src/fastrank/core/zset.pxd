# Declarations of the C sorted set (_zset.h) for _sortedset.pxi.
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "_zset.h" nogil:
    ctypedef uint32_t frz_ref

    ctypedef struct frz_set:
        pass

    ctypedef struct frz_range:
        double min
        double max
        int minex
        int maxex

    ctypedef struct frz_lexrange:
        const char *min
        size_t minlen
        const char *max
        size_t maxlen
        int minex
        int maxex
        int mininf
        int maxinf

    enum:
        FRZ_NX
        FRZ_XX
        FRZ_GT
        FRZ_LT

    frz_ref FRZ_NIL

    # inline accessors
    double frz_score(const frz_set *s, frz_ref r)
    const char *frz_member(const frz_set *s, frz_ref r, size_t *len)
    frz_ref frz_next(const frz_set *s, frz_ref r)
    frz_ref frz_prev(const frz_set *s, frz_ref r)
    frz_ref frz_first(const frz_set *s)
    frz_ref frz_last(const frz_set *s)
    uint64_t frz_len(const frz_set *s)
    uint64_t frz_version(const frz_set *s)

    # life cycle
    frz_set *frz_new()
    void frz_free(frz_set *s)
    int frz_clear(frz_set *s)
    frz_set *frz_copy(const frz_set *s)
    size_t frz_memory(const frz_set *s)
    int frz_shrink(frz_set *s)

    # point operations
    frz_ref frz_find(const frz_set *s, const char *m, size_t len)
    int frz_add(frz_set *s, const char *m, size_t len, double score, int flags)
    int frz_incr(frz_set *s, const char *m, size_t len, double delta, double *newscore,
                 frz_ref *ref, double *oldscore, int *was_new)
    int frz_delete(frz_set *s, const char *m, size_t len)
    void frz_delete_ref(frz_set *s, frz_ref r)
    void frz_set_score(frz_set *s, frz_ref r, double score)
    uint64_t frz_rank(const frz_set *s, frz_ref r)
    uint64_t frz_rank_of(const frz_set *s, const char *m, size_t len)
    frz_ref frz_at_rank(const frz_set *s, uint64_t rank)

    # batch lookups
    enum:
        FRZ_BATCH
    void frz_find_batch(const frz_set *s, const char **m, const size_t *len, size_t g,
                        frz_ref *out)
    void frz_rank_batch(const frz_set *s, const frz_ref *refs, size_t g, uint64_t *out)
    size_t frz_incr_batch(frz_set *s, const char **m, const size_t *len, const double *delta,
                          size_t g, double *newscore, frz_ref *ref, double *oldscore,
                          int *was_new, int *rc)

    # ranges
    frz_ref frz_first_in_range(const frz_set *s, const frz_range *r, uint64_t *rank)
    frz_ref frz_last_in_range(const frz_set *s, const frz_range *r, uint64_t *rank)
    frz_ref frz_first_in_lex(const frz_set *s, const frz_lexrange *r, uint64_t *rank)
    frz_ref frz_last_in_lex(const frz_set *s, const frz_lexrange *r, uint64_t *rank)
    uint64_t frz_delete_range_by_rank(frz_set *s, uint64_t start, uint64_t end)
    uint64_t frz_delete_range_by_score(frz_set *s, const frz_range *r)
    uint64_t frz_delete_range_by_lex(frz_set *s, const frz_lexrange *r)
    int frz_one_score(const frz_set *s)
    int frz_lex_ref_gte_min(const frz_set *s, frz_ref x, const frz_lexrange *r)
    int frz_lex_ref_lte_max(const frz_set *s, frz_ref x, const frz_lexrange *r)

    # bulk load
    int frz_bulk_begin(frz_set *s, uint64_t extra)
    int frz_bulk_put(frz_set *s, const char *m, size_t len, double score, uint64_t *added)
    void frz_bulk_end(frz_set *s)

    # diagnostics, helpers
    int frz_check(const frz_set *s, char *err, size_t errlen)
    int frz_format_i64(int64_t v, char *buf)
    int frz_format_u64(uint64_t v, char *buf)
