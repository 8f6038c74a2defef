# hll.pxd -- declarations of the C HyperLogLog (hll.h, names fr_hll_*) for
# hll.pxi.  The contracts are the comments in hll.h; the design is the essay
# atop hll.c.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "hll.h" nogil:
    enum:
        FR_HLL_REGISTERS
        FR_HLL_HDR_SIZE
        FR_HLL_DENSE_SIZE
        FR_HLL_DENSE
        FR_HLL_SPARSE
        FR_HLL_SPARSE_MAX_BYTES_DEFAULT
        FR_HLL_OK
        FR_HLL_ERR_NOMEM
        FR_HLL_ERR_NOTHLL
        FR_HLL_ERR_CORRUPT

    ctypedef struct fr_hll:
        uint8_t *buf
        size_t len
        size_t cap

    uint64_t fr_hll_hash(const void *ele, size_t len)
    int fr_hll_pattern(const void *ele, size_t len, uint32_t *index)

    int fr_hll_init_empty(fr_hll *h)
    int fr_hll_init_bytes(fr_hll *h, const uint8_t *data, size_t len)
    int fr_hll_copy(fr_hll *dst, const fr_hll *src)
    void fr_hll_release(fr_hll *h)

    int fr_hll_check_header(const uint8_t *data, size_t len)
    int fr_hll_validate(const fr_hll *h)
    int fr_hll_is_sparse(const fr_hll *h)

    int fr_hll_set(fr_hll *h, uint32_t index, int count, size_t sparse_max)
    int fr_hll_add(fr_hll *h, const void *ele, size_t len, size_t sparse_max)
    int fr_hll_add_many_i64(fr_hll *h, const int64_t *vals, size_t n,
                         size_t sparse_max, size_t *done)
    int fr_hll_add_many_u64(fr_hll *h, const uint64_t *vals, size_t n,
                         size_t sparse_max, size_t *done)
    int fr_hll_add_ints_sparse(fr_hll *h, const void *vals, int is_signed, size_t n,
                            size_t sparse_max, size_t *done)
    void fr_hll_hash_ints(const void *vals, int is_signed, size_t n, uint64_t *out)
    void fr_hll_int_max(uint8_t *max, const void *vals, int is_signed, size_t n)
    int fr_hll_int_simd(int allow)
    int fr_hll_dense_apply_max(fr_hll *h, const uint8_t *max)
    int fr_hll_add_many_fixed(fr_hll *h, const uint8_t *data, size_t itemsize,
                           size_t n, size_t sparse_max, size_t *done)
    int fr_hll_to_dense(fr_hll *h)
    void fr_hll_invalidate_cache(fr_hll *h)
    int fr_hll_cache_is_valid(const fr_hll *h)

    int fr_hll_histogram(const fr_hll *h, int64_t *hist)
    uint64_t fr_hll_estimate(const int64_t *hist)
    int fr_hll_count(fr_hll *h, uint64_t *card)
    int fr_hll_recount(const fr_hll *h, uint64_t *card)

    int fr_hll_merge_max(uint8_t *max, const fr_hll *h)
    uint64_t fr_hll_count_max(const uint8_t *max)
    int fr_hll_store_max(fr_hll *dest, const uint8_t *max, int use_dense,
                      size_t sparse_max)

    int fr_hll_registers(const fr_hll *h, uint8_t *out)
    int fr_hll_selftest()
