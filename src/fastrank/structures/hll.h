/* hll.h -- HyperLogLog kept as the exact bytes of a Redis 7.0 HLL string.
 *
 * An fr_hll owns one heap buffer that holds the value Redis would store under
 * the key (GET returns the same bytes), plus one spare byte after it:
 *
 *    buf                                                   buf+len
 *     |<-------- 16-byte header -------->|<--- payload --->|  spare
 *     +------+-----+-------+-------------+-----------------+-------+
 *     | HYLL | enc | 3 x ? | card (LE64) | registers / ops |  0/?  |
 *     +------+-----+-------+-------------+-----------------+-------+
 *       0..3   4     5..7     8..15         16..len-1        len
 *
 * The spare byte mirrors the NUL that terminates every Redis (sds) string.
 * Redis's sparse walkers may read one byte past the end of a truncated XZERO
 * opcode and so see that NUL; we keep the byte so hostile strings behave as
 * they do on the server.  See hll.c for the formats and the algorithms.
 *
 * Every function that takes an fr_hll requires a header that passed
 * fr_hll_check_header() (magic HYLL, encoding 0 or 1, dense length exact);
 * the payload may still be corrupt, which the functions report.
 *
 * Return codes: >= 0 success (1/0 = changed/unchanged where stated),
 * FR_HLL_ERR_NOMEM, FR_HLL_ERR_NOTHLL (Redis: "WRONGTYPE Key is not a valid
 * HyperLogLog string value."), FR_HLL_ERR_CORRUPT (Redis: "INVALIDOBJ
 * Corrupted HLL object detected").
 */
#ifndef FASTRANK_HLL_H
#define FASTRANK_HLL_H

#include <stddef.h>
#include <stdint.h>

#define FR_HLL_P 14
#define FR_HLL_Q (64 - FR_HLL_P)                 /* 50 hash bits feed the rank */
#define FR_HLL_REGISTERS (1 << FR_HLL_P)         /* 16384 */
#define FR_HLL_BITS 6
#define FR_HLL_REGISTER_MAX 63
#define FR_HLL_HDR_SIZE 16
#define FR_HLL_DENSE_PAYLOAD ((FR_HLL_REGISTERS * FR_HLL_BITS + 7) / 8)  /* 12288 */
#define FR_HLL_DENSE_SIZE (FR_HLL_HDR_SIZE + FR_HLL_DENSE_PAYLOAD)        /* 12304 */
#define FR_HLL_DENSE 0
#define FR_HLL_SPARSE 1
#define FR_HLL_SPARSE_MAX_BYTES_DEFAULT 3000

#define FR_HLL_OK 0
#define FR_HLL_ERR_NOMEM (-1)
#define FR_HLL_ERR_NOTHLL (-2)
#define FR_HLL_ERR_CORRUPT (-3)

typedef struct fr_hll {
    uint8_t *buf;   /* header + payload + spare byte; owned */
    size_t len;     /* length of the Redis string */
    size_t cap;     /* bytes allocated at buf, always >= len + 1 */
} fr_hll;

/* -- hashing ------------------------------------------------------------ */
uint64_t fr_hll_hash(const void *ele, size_t len);
int fr_hll_pattern(const void *ele, size_t len, uint32_t *index);

/* -- life cycle ----------------------------------------------------------- */
int fr_hll_init_empty(fr_hll *h);
int fr_hll_init_bytes(fr_hll *h, const uint8_t *bytes, size_t len);
int fr_hll_copy(fr_hll *dst, const fr_hll *src);
void fr_hll_release(fr_hll *h);

/* -- validation ----------------------------------------------------------- */
int fr_hll_check_header(const uint8_t *bytes, size_t len);
int fr_hll_validate(const fr_hll *h);
int fr_hll_is_sparse(const fr_hll *h);

/* -- updates -------------------------------------------------------------- */
int fr_hll_set(fr_hll *h, uint32_t index, int count, size_t sparse_max);
int fr_hll_add(fr_hll *h, const void *ele, size_t len, size_t sparse_max);
int fr_hll_add_many_i64(fr_hll *h, const int64_t *vals, size_t n,
                     size_t sparse_max, size_t *done);
int fr_hll_add_many_u64(fr_hll *h, const uint64_t *vals, size_t n,
                     size_t sparse_max, size_t *done);
int fr_hll_add_ints_sparse(fr_hll *h, const void *vals, int is_signed, size_t n,
                        size_t sparse_max, size_t *done);
void fr_hll_hash_ints(const void *vals, int is_signed, size_t n, uint64_t *out);
void fr_hll_int_max(uint8_t *max, const void *vals, int is_signed, size_t n);
/* allow = 1 / 0: let integer batches use AVX2 or not (-1: leave as is);
 * returns 1 if they use it now (allowed and the CPU has it). */
int fr_hll_int_simd(int allow);
int fr_hll_dense_apply_max(fr_hll *h, const uint8_t *max);
int fr_hll_add_many_fixed(fr_hll *h, const uint8_t *data, size_t itemsize,
                       size_t n, size_t sparse_max, size_t *done);
int fr_hll_to_dense(fr_hll *h);
void fr_hll_invalidate_cache(fr_hll *h);
int fr_hll_cache_is_valid(const fr_hll *h);

/* -- counting ------------------------------------------------------------- */
int fr_hll_histogram(const fr_hll *h, int64_t hist[64]);
uint64_t fr_hll_estimate(const int64_t hist[64]);
int fr_hll_count(fr_hll *h, uint64_t *card);
int fr_hll_recount(const fr_hll *h, uint64_t *card);

/* -- unions and merges (PFCOUNT k1 k2 .., PFMERGE) ------------------------ */
int fr_hll_merge_max(uint8_t *max, const fr_hll *h);
uint64_t fr_hll_count_max(const uint8_t *max);
int fr_hll_store_max(fr_hll *dest, const uint8_t *max, int use_dense,
                  size_t sparse_max);

/* -- inspection ----------------------------------------------------------- */
int fr_hll_registers(const fr_hll *h, uint8_t *out);
int fr_hll_selftest(void);

#endif /* FASTRANK_HLL_H */
