/* _hll.h -- HyperLogLog kept as the exact bytes of a Redis 7.0 HLL string.
 *
 * An hll_t owns one heap buffer that holds the value Redis would store under
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
 * they do on the server.  See _hll.c for the formats and the algorithms.
 *
 * Every function that takes an hll_t requires a header that passed
 * hll_check_header() (magic HYLL, encoding 0 or 1, dense length exact);
 * the payload may still be corrupt, which the functions report.
 *
 * Return codes: >= 0 success (1/0 = changed/unchanged where stated),
 * HLL_ERR_NOMEM, HLL_ERR_NOTHLL (Redis: "WRONGTYPE Key is not a valid
 * HyperLogLog string value."), HLL_ERR_CORRUPT (Redis: "INVALIDOBJ
 * Corrupted HLL object detected").
 */
#ifndef FASTRANK_HLL_H
#define FASTRANK_HLL_H

#include <stddef.h>
#include <stdint.h>

#define HLL_P 14
#define HLL_Q (64 - HLL_P)                 /* 50 hash bits feed the rank */
#define HLL_REGISTERS (1 << HLL_P)         /* 16384 */
#define HLL_BITS 6
#define HLL_REGISTER_MAX 63
#define HLL_HDR_SIZE 16
#define HLL_DENSE_PAYLOAD ((HLL_REGISTERS * HLL_BITS + 7) / 8)  /* 12288 */
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + HLL_DENSE_PAYLOAD)        /* 12304 */
#define HLL_DENSE 0
#define HLL_SPARSE 1
#define HLL_SPARSE_MAX_BYTES_DEFAULT 3000

#define HLL_OK 0
#define HLL_ERR_NOMEM (-1)
#define HLL_ERR_NOTHLL (-2)
#define HLL_ERR_CORRUPT (-3)

typedef struct hll {
    uint8_t *buf;   /* header + payload + spare byte; owned */
    size_t len;     /* length of the Redis string */
    size_t cap;     /* bytes allocated at buf, always >= len + 1 */
} hll_t;

/* -- hashing ------------------------------------------------------------ */
uint64_t hll_hash(const void *ele, size_t len);
int hll_pattern(const void *ele, size_t len, uint32_t *index);

/* -- life cycle ----------------------------------------------------------- */
int hll_init_empty(hll_t *h);
int hll_init_bytes(hll_t *h, const uint8_t *bytes, size_t len);
int hll_copy(hll_t *dst, const hll_t *src);
void hll_release(hll_t *h);

/* -- validation ----------------------------------------------------------- */
int hll_check_header(const uint8_t *bytes, size_t len);
int hll_validate(const hll_t *h);
int hll_is_sparse(const hll_t *h);

/* -- updates -------------------------------------------------------------- */
int hll_set(hll_t *h, uint32_t index, int count, size_t sparse_max);
int hll_add(hll_t *h, const void *ele, size_t len, size_t sparse_max);
int hll_add_many_i64(hll_t *h, const int64_t *vals, size_t n,
                     size_t sparse_max, size_t *done);
int hll_add_many_u64(hll_t *h, const uint64_t *vals, size_t n,
                     size_t sparse_max, size_t *done);
int hll_add_ints_sparse(hll_t *h, const void *vals, int is_signed, size_t n,
                        size_t sparse_max, size_t *done);
void hll_hash_ints(const void *vals, int is_signed, size_t n, uint64_t *out);
void hll_int_max(uint8_t *max, const void *vals, int is_signed, size_t n);
/* allow = 1 / 0: let integer batches use AVX2 or not (-1: leave as is);
 * returns 1 if they use it now (allowed and the CPU has it). */
int hll_int_simd(int allow);
int hll_dense_apply_max(hll_t *h, const uint8_t *max);
int hll_add_many_fixed(hll_t *h, const uint8_t *data, size_t itemsize,
                       size_t n, size_t sparse_max, size_t *done);
int hll_to_dense(hll_t *h);
void hll_invalidate_cache(hll_t *h);
int hll_cache_is_valid(const hll_t *h);

/* -- counting ------------------------------------------------------------- */
int hll_histogram(const hll_t *h, int64_t hist[64]);
uint64_t hll_estimate(const int64_t hist[64]);
int hll_count(hll_t *h, uint64_t *card);
int hll_recount(const hll_t *h, uint64_t *card);

/* -- unions and merges (PFCOUNT k1 k2 .., PFMERGE) ------------------------ */
int hll_merge_max(uint8_t *max, const hll_t *h);
uint64_t hll_count_max(const uint8_t *max);
int hll_store_max(hll_t *dest, const uint8_t *max, int use_dense,
                  size_t sparse_max);

/* -- inspection ----------------------------------------------------------- */
int hll_registers(const hll_t *h, uint8_t *out);
int hll_selftest(void);

#endif /* FASTRANK_HLL_H */
