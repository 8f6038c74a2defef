# Declarations of the C HyperLogLog (_hll.h) for _hyperloglog.pxi.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t


cdef extern from "_hll.h" nogil:
    enum:
        HLL_REGISTERS
        HLL_HDR_SIZE
        HLL_DENSE_SIZE
        HLL_DENSE
        HLL_SPARSE
        HLL_SPARSE_MAX_BYTES_DEFAULT
        HLL_OK
        HLL_ERR_NOMEM
        HLL_ERR_NOTHLL
        HLL_ERR_CORRUPT

    ctypedef struct hll_t:
        uint8_t *buf
        size_t len
        size_t cap

    uint64_t hll_hash(const void *ele, size_t len)
    int hll_pattern(const void *ele, size_t len, uint32_t *index)

    int hll_init_empty(hll_t *h)
    int hll_init_bytes(hll_t *h, const uint8_t *data, size_t len)
    int hll_copy(hll_t *dst, const hll_t *src)
    void hll_release(hll_t *h)

    int hll_check_header(const uint8_t *data, size_t len)
    int hll_validate(const hll_t *h)
    int hll_is_sparse(const hll_t *h)

    int hll_set(hll_t *h, uint32_t index, int count, size_t sparse_max)
    int hll_add(hll_t *h, const void *ele, size_t len, size_t sparse_max)
    int hll_add_many_i64(hll_t *h, const int64_t *vals, size_t n,
                         size_t sparse_max, size_t *done)
    int hll_add_many_u64(hll_t *h, const uint64_t *vals, size_t n,
                         size_t sparse_max, size_t *done)
    int hll_add_ints_sparse(hll_t *h, const void *vals, int is_signed, size_t n,
                            size_t sparse_max, size_t *done)
    void hll_hash_ints(const void *vals, int is_signed, size_t n, uint64_t *out)
    void hll_int_max(uint8_t *max, const void *vals, int is_signed, size_t n)
    int hll_int_simd(int allow)
    int hll_dense_apply_max(hll_t *h, const uint8_t *max)
    int hll_add_many_fixed(hll_t *h, const uint8_t *data, size_t itemsize,
                           size_t n, size_t sparse_max, size_t *done)
    int hll_to_dense(hll_t *h)
    void hll_invalidate_cache(hll_t *h)
    int hll_cache_is_valid(const hll_t *h)

    int hll_histogram(const hll_t *h, int64_t *hist)
    uint64_t hll_estimate(const int64_t *hist)
    int hll_count(hll_t *h, uint64_t *card)
    int hll_recount(const hll_t *h, uint64_t *card)

    int hll_merge_max(uint8_t *max, const hll_t *h)
    uint64_t hll_count_max(const uint8_t *max)
    int hll_store_max(hll_t *dest, const uint8_t *max, int use_dense,
                      size_t sparse_max)

    int hll_registers(const hll_t *h, uint8_t *out)
    int hll_selftest()
