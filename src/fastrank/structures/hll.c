/* hll.c -- HyperLogLog registers, Redis 7.0 string encodings, estimator.
 *
 * WHAT THIS IS
 * ------------
 * A HyperLogLog (Flajolet et al., 2007) with m = 2^14 = 16384 registers of
 * 6 bits each, stored as exactly the bytes Redis 7.0 stores for PFADD, so a
 * value moves between fastrank and a Redis server with GET/SET and both
 * sides give the same PFCOUNT.  Cardinalities are estimated with Otmar
 * Ertl's "improved raw estimator" ("New cardinality estimation algorithms
 * for HyperLogLog sketches", arXiv:1702.01284), as Redis 7.0 does.  The
 * facts were learnt from the Redis 7.0.15 sources and checked against a
 * live server (docs/compatibility.md §1); the code here is our own.
 *
 * HASH, INDEX AND RANK
 * --------------------
 * Each element is hashed with MurmurHash64A, seed 0xadc83b19 (murmurhash64a.h).
 *
 *    bit 63                                        14 13             0
 *    +-------------------------------------------+----------------+
 *    |   50 bits: rank source                     | register index |
 *    +-------------------------------------------+----------------+
 *
 * The low 14 bits pick the register.  The other 50 bits are shifted down,
 * a sentinel 1 is put at bit 50, and the rank is 1 + the number of trailing
 * zero bits: 1..51.  A register keeps the largest rank it has seen.
 *
 * THE HEADER (both encodings)
 * ---------------------------
 *    offset  0   1   2   3   4     5   6   7   8 ........... 15
 *          +---+---+---+---+-----+---+---+---+-----------------+
 *          | H | Y | L | L | enc | unused    | cardinality LE64 |
 *          +---+---+---+---+-----+---+---+---+-----------------+
 *
 * enc is 0 (dense) or 1 (sparse); anything else is not an HLL.  The unused
 * bytes are written as zero and never checked.  Bytes 8..15 cache the last
 * PFCOUNT.  Bit 7 of byte 15 is the "stale" flag: every update ORs it in
 * and leaves the other 63 bits (the old count) alone; PFCOUNT trusts the
 * cache blindly while the flag is clear.
 *
 * DENSE ENCODING: 16 + 12288 bytes, exactly
 * -----------------------------------------
 * The registers form one little-endian bit stream, 6 bits each, register i
 * at stream bits 6i..6i+5, stream bit b being bit (b mod 8) of byte b/8.
 * Every 3 bytes hold 4 registers:
 *
 *        byte 0            byte 1            byte 2
 *    7 6 5 4 3 2 1 0 | 7 6 5 4 3 2 1 0 | 7 6 5 4 3 2 1 0
 *    b a|r0 (6 bits) | c b a 9|r1 hi 4 | r3 (6 bits)|r2 hi2
 *    r1 lo 2          r2 lo 4
 *
 * i.e. r0 = byte0 bits 0-5; r1 = byte0 bits 6-7 (low) + byte1 bits 0-3
 * (high); r2 = byte1 bits 4-7 (low) + byte2 bits 0-1 (high); r3 = byte2
 * bits 2-7.  A hostile dense string may hold any 6-bit value (0..63).
 *
 * SPARSE ENCODING: run-length opcodes
 * -----------------------------------
 * The payload is a sequence of opcodes that, read left to right, describe
 * registers 0, 1, 2, ... 16383, no more and no less:
 *
 *    ZERO   00xxxxxx            x+1 registers (1..64) are 0
 *    XZERO  01xxxxxx yyyyyyyy   (x<<8 | y)+1 registers (1..16384) are 0
 *    VAL    1vvvvvll            l+1 registers (1..4) all hold v+1 (1..32)
 *
 * An empty HLL is XZERO(16384) = 7f ff (18 bytes in all).  A register that
 * must hold more than 32 cannot be sparse: the value is promoted to dense,
 * and so it is when a sparse write would make the string longer than
 * hll-sparse-max-bytes (3000 by default, header included).  There is no way
 * back from dense.  Example, PFADD k a b c:
 *
 *    48 59 4c 4c 01 00 00 00  00 00 00 00 00 00 00 80 | 60 f3 80 50 b1 84 4b fb 80 42 5a
 *    H  Y  L  L  sparse       cache 0, stale flag     | XZERO(8436) VAL(1,1) XZERO(4274)
 *                                                       VAL(2,1) XZERO(3068) VAL(1,1)
 *                                                       XZERO(603)
 *
 * Byte-for-byte equality with Redis needs Redis's exact update procedure,
 * implemented by sparse_set() below: find the opcode covering the register;
 * rewrite a length-1 VAL or ZERO in place; otherwise split it into (left
 * run, VAL(c,1), right run), a zero run becoming XZERO when longer than 64;
 * promote if the string would outgrow the limit; finally try to fuse equal
 * adjacent VALs, looking at no more than 5 opcodes from the one before the
 * change.  Zero runs are never fused, so the encoding is not canonical and
 * only this exact procedure reproduces Redis's bytes.  The batch adds keep
 * marks of where earlier walks passed every 256th register and start the
 * walk at the last valid one (sparse_marks_t): the same opcode is found,
 * with about half the walking.
 *
 * HOSTILE BYTES
 * -------------
 * Values arrive from users (SET, from_bytes) and must never crash us.  The
 * rules below are Redis's own, so an untrusted string gets the reply Redis
 * gives it:
 *  - header checks (fr_hll_check_header): length >= 16, magic, enc <= 1, dense
 *    length exactly 12304; otherwise "not a valid HyperLogLog string".
 *  - a sparse payload is checked lazily, as Redis does: counting, merging
 *    and promoting need the opcodes to cover exactly 16384 registers
 *    (otherwise "corrupted"), while an update only needs the walk to reach
 *    the register it changes.
 *  - the last byte of the string may be the first half of an XZERO; Redis
 *    then reads the NUL that terminates its strings.  We keep a spare byte
 *    after the string for the same purpose (see hll.h).
 *  - Upstream 7.0.15 sums run lengths in an int, which wraps on strings of
 *    2^17+ opcodes, and its merge and promotion walks accept opcodes after
 *    the 16384th register when they start with a VAL (CVE-2025-32023
 *    territory).  The patched 7.0.15 that Debian ships, which we test
 *    against, rejects any opcode that would pass register 16384, in every
 *    walk.  We do the same: one rule for count, merge and promotion (the
 *    runs add up to exactly 16384, summed in 64 bits), and no write can
 *    ever leave the 16384 registers.
 *  - the estimator rounds with llroundl(); on x86-64 an estimate too big
 *    for a signed 64-bit integer (possible only for forged dense registers)
 *    comes out as 0x8000000000000000, and we return that too.
 *
 * BATCHES OF INTEGERS
 * -------------------
 * A numpy integer is added as its decimal text: decimal_text_hash_avx2.h hashes
 * the texts of a block of 64 integers four at a time in AVX2 lanes where
 * the CPU has it; elsewhere decimal_text_hash.h writes them with SSE2 (or SWAR)
 * arithmetic and hashes each in place.  While the value is sparse,
 * elements go through the sparse update one by one, in order.  Once it is
 * dense the order no longer matters (registers only
 * rise), so a long rest is first reduced to one byte of maximum rank per
 * register (fr_hll_int_max, no shared state: hll.pxi runs it on
 * several threads over parts of the batch) and then applied in one pass
 * (fr_hll_dense_apply_max).
 *
 * Sections, low level first: buffer, registers, hashing, sparse update,
 * promotion, batch adds, estimator, unions, self test.
 */
#include "hll.h"
#include "decimal_text_hash.h"
#include "decimal_text_hash_avx2.h"
#include "murmurhash64a.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SPARSE_XZERO_BIT 0x40
#define SPARSE_VAL_BIT 0x80
#define SPARSE_IS_ZERO(p) (((*(p)) & 0xc0) == 0)
#define SPARSE_IS_XZERO(p) (((*(p)) & 0xc0) == SPARSE_XZERO_BIT)
#define SPARSE_IS_VAL(p) ((*(p)) & SPARSE_VAL_BIT)
#define SPARSE_ZERO_LEN(p) (((*(p)) & 0x3f) + 1)
#define SPARSE_XZERO_LEN(p) (((((*(p)) & 0x3f) << 8) | (*((p) + 1))) + 1)
#define SPARSE_VAL_VALUE(p) ((((*(p)) >> 2) & 0x1f) + 1)
#define SPARSE_VAL_LEN(p) (((*(p)) & 0x3) + 1)
#define SPARSE_VAL_MAX_VALUE 32
#define SPARSE_VAL_MAX_LEN 4
#define SPARSE_ZERO_MAX_LEN 64

#define ALPHA_INF 0.721347520444481703680 /* 0.5 / ln 2 */

/* ====================================================================== */
/* Buffer                                                                  */
/* ====================================================================== */

/* Make room for a string of `need` bytes plus the spare byte.  Existing
 * content, spare byte included, is kept.  Returns FR_HLL_OK or NOMEM. */
static int reserve(fr_hll *h, size_t need)
{
    if (need + 1 <= h->cap) return FR_HLL_OK;
    size_t cap = h->cap ? h->cap : 32;
    while (cap < need + 1) cap *= 2;
    uint8_t *nb = (uint8_t *)realloc(h->buf, cap);
    if (nb == NULL) return FR_HLL_ERR_NOMEM;
    memset(nb + h->cap, 0, cap - h->cap);
    h->buf = nb;
    h->cap = cap;
    return FR_HLL_OK;
}

/* The empty HLL Redis creates on PFADD of a missing key: sparse, cache
 * bytes zero, one XZERO(16384).  (PFADD then sets the stale flag.) */
int fr_hll_init_empty(fr_hll *h)
{
    h->buf = NULL;
    h->len = h->cap = 0;
    if (reserve(h, FR_HLL_HDR_SIZE + 2 + 3) != FR_HLL_OK) return FR_HLL_ERR_NOMEM;
    memset(h->buf, 0, h->cap);
    memcpy(h->buf, "HYLL", 4);
    h->buf[4] = FR_HLL_SPARSE;
    h->buf[16] = 0x7f; /* XZERO(16384): 01 111111 11111111 */
    h->buf[17] = 0xff;
    h->len = 18;
    return FR_HLL_OK;
}

/* Copy `len` untrusted bytes into a fresh fr_hll (spare byte 0).  No
 * validation: call fr_hll_check_header() first. */
int fr_hll_init_bytes(fr_hll *h, const uint8_t *bytes, size_t len)
{
    h->buf = NULL;
    h->len = h->cap = 0;
    if (reserve(h, len) != FR_HLL_OK) return FR_HLL_ERR_NOMEM;
    if (len) memcpy(h->buf, bytes, len);
    h->buf[len] = 0;
    h->len = len;
    return FR_HLL_OK;
}

/* Deep copy, spare byte included. */
int fr_hll_copy(fr_hll *dst, const fr_hll *src)
{
    if (fr_hll_init_bytes(dst, src->buf, src->len) != FR_HLL_OK) return FR_HLL_ERR_NOMEM;
    dst->buf[dst->len] = src->buf[src->len];
    return FR_HLL_OK;
}

void fr_hll_release(fr_hll *h)
{
    free(h->buf);
    h->buf = NULL;
    h->len = h->cap = 0;
}

/* Redis's acceptance test for a string value used as an HLL (before any
 * payload is looked at).  FR_HLL_OK or FR_HLL_ERR_NOTHLL. */
int fr_hll_check_header(const uint8_t *b, size_t len)
{
    if (len < FR_HLL_HDR_SIZE) return FR_HLL_ERR_NOTHLL;
    if (b[0] != 'H' || b[1] != 'Y' || b[2] != 'L' || b[3] != 'L') return FR_HLL_ERR_NOTHLL;
    if (b[4] > FR_HLL_SPARSE) return FR_HLL_ERR_NOTHLL;
    if (b[4] == FR_HLL_DENSE && len != FR_HLL_DENSE_SIZE) return FR_HLL_ERR_NOTHLL;
    return FR_HLL_OK;
}

int fr_hll_is_sparse(const fr_hll *h) { return h->buf[4] == FR_HLL_SPARSE; }

void fr_hll_invalidate_cache(fr_hll *h) { h->buf[15] |= 0x80; }

int fr_hll_cache_is_valid(const fr_hll *h) { return (h->buf[15] & 0x80) == 0; }

/* ====================================================================== */
/* Dense registers                                                         */
/* ====================================================================== */

/* Register i of a dense payload.  Reads byte i*6/8 and, only when the
 * register straddles two bytes, the next one; never past byte 12287. */
static inline unsigned dense_get(const uint8_t *r, uint32_t i)
{
    size_t bit = (size_t)i * FR_HLL_BITS;
    size_t byte = bit >> 3;
    unsigned fb = (unsigned)(bit & 7);
    unsigned v = (unsigned)r[byte] >> fb;
    if (fb > 8 - FR_HLL_BITS) v |= (unsigned)r[byte + 1] << (8 - fb);
    return v & FR_HLL_REGISTER_MAX;
}

/* Store v (0..63) into register i of a dense payload. */
static inline void dense_put(uint8_t *r, uint32_t i, unsigned v)
{
    size_t bit = (size_t)i * FR_HLL_BITS;
    size_t byte = bit >> 3;
    unsigned fb = (unsigned)(bit & 7);
    r[byte] = (uint8_t)((r[byte] & ~(FR_HLL_REGISTER_MAX << fb)) | (v << fb));
    if (fb > 8 - FR_HLL_BITS) {
        unsigned fb8 = 8 - fb;
        r[byte + 1] = (uint8_t)((r[byte + 1] & ~(FR_HLL_REGISTER_MAX >> fb8)) | (v >> fb8));
    }
}

/* Raise register i to count if count is larger; 1 if it changed, else 0. */
static inline int dense_set(uint8_t *r, uint32_t i, unsigned count)
{
    if (count > dense_get(r, i)) {
        dense_put(r, i, count);
        return 1;
    }
    return 0;
}

/* ====================================================================== */
/* Hashing                                                                 */
/* ====================================================================== */

static inline int ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while ((x & 1) == 0) { x >>= 1; n++; }
    return n;
#endif
}

uint64_t fr_hll_hash(const void *ele, size_t len)
{
    return fr_murmur64a(ele, len, FR_MURMUR64A_HLL_SEED);
}

/* Rank (1..51) of the hash of ele; *index receives its register (0..16383). */
static inline int pattern_of_hash(uint64_t hash, uint32_t *index)
{
    *index = (uint32_t)(hash & (FR_HLL_REGISTERS - 1));
    hash >>= FR_HLL_P;
    hash |= (uint64_t)1 << FR_HLL_Q; /* sentinel: rank <= Q + 1 */
    return ctz64(hash) + 1;
}

int fr_hll_pattern(const void *ele, size_t len, uint32_t *index)
{
    return pattern_of_hash(fr_hll_hash(ele, len), index);
}

/* ====================================================================== */
/* Sparse -> dense promotion                                               */
/* ====================================================================== */

/* Rewrite a sparse value as dense: header copied (magic, unused bytes and
 * cache included), encoding byte set to 0, registers decoded.  A no-op on
 * a dense value.  FR_HLL_ERR_CORRUPT (value untouched) unless the opcodes
 * cover exactly 16384 registers; FR_HLL_ERR_NOMEM. */
int fr_hll_to_dense(fr_hll *h)
{
    if (h->buf[4] == FR_HLL_DENSE) return FR_HLL_OK;
    uint8_t *dense = (uint8_t *)calloc(FR_HLL_DENSE_SIZE + 1, 1);
    if (dense == NULL) return FR_HLL_ERR_NOMEM;
    memcpy(dense, h->buf, FR_HLL_HDR_SIZE);
    dense[4] = FR_HLL_DENSE;
    uint8_t *regs = dense + FR_HLL_HDR_SIZE;

    const uint8_t *p = h->buf + FR_HLL_HDR_SIZE, *end = h->buf + h->len;
    int64_t idx = 0;
    while (p < end) {
        int64_t runlen;
        if (SPARSE_IS_ZERO(p)) {
            runlen = SPARSE_ZERO_LEN(p);
            p++;
        } else if (SPARSE_IS_XZERO(p)) {
            runlen = SPARSE_XZERO_LEN(p); /* may read the spare byte */
            p += 2;
        } else {
            runlen = SPARSE_VAL_LEN(p);
            if (idx + runlen > FR_HLL_REGISTERS) { idx = -1; break; } /* overshoot */
            unsigned val = SPARSE_VAL_VALUE(p);
            for (int64_t k = 0; k < runlen; k++) dense_put(regs, (uint32_t)(idx + k), val);
            p++;
        }
        idx += runlen;
        if (idx > FR_HLL_REGISTERS) break;
    }
    if (idx != FR_HLL_REGISTERS) {
        free(dense);
        return FR_HLL_ERR_CORRUPT;
    }
    free(h->buf);
    h->buf = dense;
    h->len = FR_HLL_DENSE_SIZE;
    h->cap = FR_HLL_DENSE_SIZE + 1;
    return FR_HLL_OK;
}

/* ====================================================================== */
/* Sparse update (Redis 7.0's procedure, step for step)                    */
/* ====================================================================== */

/* Write a zero run of len registers at n; returns the bytes written. */
static int put_zero_run(uint8_t *n, long len)
{
    if (len > SPARSE_ZERO_MAX_LEN) {
        long l = len - 1;
        n[0] = (uint8_t)((l >> 8) | SPARSE_XZERO_BIT);
        n[1] = (uint8_t)(l & 0xff);
        return 2;
    }
    n[0] = (uint8_t)(len - 1);
    return 1;
}

static inline uint8_t val_op(unsigned val, unsigned len)
{
    return (uint8_t)(((val - 1) << 2) | (len - 1) | SPARSE_VAL_BIT);
}

/* Fuse equal adjacent VAL opcodes, scanning at most 5 opcodes from p.
 * Zero opcodes are stepped over (and use up the budget); a fusion retries
 * at the same place.  *endp is moved back by one per fusion. */
static void sparse_fuse(fr_hll *h, uint8_t *p, uint8_t **endp)
{
    uint8_t *end = *endp;
    int scanlen = 5;
    while (p < end && scanlen--) {
        if (SPARSE_IS_XZERO(p)) { p += 2; continue; }
        if (SPARSE_IS_ZERO(p)) { p++; continue; }
        if (p + 1 < end && SPARSE_IS_VAL(p + 1)) {
            unsigned v1 = SPARSE_VAL_VALUE(p), v2 = SPARSE_VAL_VALUE(p + 1);
            unsigned len = SPARSE_VAL_LEN(p) + SPARSE_VAL_LEN(p + 1);
            if (v1 == v2 && len <= SPARSE_VAL_MAX_LEN) {
                p[1] = val_op(v1, len);
                memmove(p, p + 1, (size_t)(end - p)); /* spare byte moves too */
                h->len--;
                h->buf[h->len] = 0;
                end--;
                continue;
            }
        }
        p++;
    }
    *endp = end;
}

/* Shortcuts for the walk of a batch of sparse updates.  Mark k, once a
 * walk has passed register k * 256, is the opcode covering that register:
 * its offset in the payload, its first register and the offset of the
 * opcode before it (-1: none), i.e. the walk's exact state there, so a
 * later walk to a register >= k * 256 may start from it.  An update
 * rewrites bytes from the opcode before the changed one onwards (the
 * fusion starts there), so it drops the marks at or after that offset;
 * the marks before it describe opcodes it did not touch.  The valid marks
 * are always 0 .. valid-1. */
#define SPARSE_MARK_SHIFT 8
#define SPARSE_MARKS (FR_HLL_REGISTERS >> SPARSE_MARK_SHIFT)

typedef struct sparse_marks {
    int valid;
    int64_t off[SPARSE_MARKS], prev[SPARSE_MARKS], first[SPARSE_MARKS];
} sparse_marks_t;

/* Raise register `index` of a sparse value to `count` (1..51).
 * Returns 1 changed, 0 already >= count, FR_HLL_ERR_CORRUPT when the walk
 * does not reach the register (or promotion meets a corrupt payload),
 * FR_HLL_ERR_NOMEM.  May promote to dense (count > 32, or growth beyond
 * sparse_max bytes); a sparse-side change sets the stale flag itself, a
 * promotion leaves that to the caller, as Redis does. */
static int sparse_set(fr_hll *h, uint32_t index, int count, size_t sparse_max,
                      sparse_marks_t *marks)
{
    uint8_t *sparse, *p, *end, *prev, *next;
    int64_t first = 0, span = 0, runlen;
    int is_zero = 0, is_xzero = 0, is_val = 0;

    if (count > SPARSE_VAL_MAX_VALUE) goto promote;
    /* An XZERO split into XZERO VAL XZERO grows by 3 bytes at most. */
    if (reserve(h, h->len + 3) != FR_HLL_OK) return FR_HLL_ERR_NOMEM;

    /* 1. Find the opcode covering `index`, and the one before it (from the
     *    last mark at or below it, when there is one). */
    sparse = p = h->buf + FR_HLL_HDR_SIZE;
    end = h->buf + h->len;
    prev = NULL;
    int64_t next_mark = INT64_MAX;
    if (marks) {
        int k = (int)(index >> SPARSE_MARK_SHIFT);
        if (k > marks->valid - 1) k = marks->valid - 1;
        if (k >= 0) {
            p = sparse + marks->off[k];
            prev = marks->prev[k] < 0 ? NULL : sparse + marks->prev[k];
            first = marks->first[k];
        }
        if (marks->valid < SPARSE_MARKS) next_mark = (int64_t)marks->valid << SPARSE_MARK_SHIFT;
    }
    while (p < end) {
        int oplen = 1;
        if (SPARSE_IS_ZERO(p)) {
            span = SPARSE_ZERO_LEN(p);
        } else if (SPARSE_IS_VAL(p)) {
            span = SPARSE_VAL_LEN(p);
        } else {
            span = SPARSE_XZERO_LEN(p);
            oplen = 2;
        }
        while (next_mark < first + span) {  /* only with marks: record */
            int k = marks->valid++;
            marks->off[k] = p - sparse;
            marks->prev[k] = prev ? prev - sparse : -1;
            marks->first[k] = first;
            next_mark = marks->valid < SPARSE_MARKS ? next_mark + (1 << SPARSE_MARK_SHIFT) : INT64_MAX;
        }
        if ((int64_t)index <= first + span - 1) break;
        prev = p;
        p += oplen;
        first += span;
    }
    if (span == 0 || p >= end) return FR_HLL_ERR_CORRUPT;

    next = SPARSE_IS_XZERO(p) ? p + 2 : p + 1;
    if (next >= end) next = NULL;
    if (SPARSE_IS_ZERO(p)) {
        is_zero = 1;
        runlen = SPARSE_ZERO_LEN(p);
    } else if (SPARSE_IS_XZERO(p)) {
        is_xzero = 1;
        runlen = SPARSE_XZERO_LEN(p);
    } else {
        is_val = 1;
        runlen = SPARSE_VAL_LEN(p);
    }

    /* 2. Cheap cases: nothing to do, or a one-register opcode in place. */
    if (is_val) {
        if ((int)SPARSE_VAL_VALUE(p) >= count) return 0;
        if (runlen == 1) {
            *p = val_op((unsigned)count, 1);
            goto updated;
        }
    }
    if (is_zero && runlen == 1) {
        *p = val_op((unsigned)count, 1);
        goto updated;
    }

    /* 3. Split the opcode into (left run) VAL(count,1) (right run). */
    {
        uint8_t seq[5], *n = seq;
        int64_t last = first + span - 1;
        if (is_zero || is_xzero) {
            if (index != first) n += put_zero_run(n, (long)(index - first));
            *n++ = val_op((unsigned)count, 1);
            if (index != last) n += put_zero_run(n, (long)(last - index));
        } else {
            unsigned curval = SPARSE_VAL_VALUE(p);
            if (index != first) *n++ = val_op(curval, (unsigned)(index - first));
            *n++ = val_op((unsigned)count, 1);
            if (index != last) *n++ = val_op(curval, (unsigned)(last - index));
        }
        long seqlen = (long)(n - seq);
        long oldlen = is_xzero ? 2 : 1;
        long deltalen = seqlen - oldlen;

        if (deltalen > 0 && h->len + (size_t)deltalen > sparse_max) goto promote;
        /* Same order as Redis: shift the tail, move the terminator, then
         * copy the new opcodes (which, after a truncated XZERO, may land on
         * the spare byte). */
        if (deltalen && next) memmove(next + deltalen, next, (size_t)(end - next));
        h->len = (size_t)((long)h->len + deltalen);
        h->buf[h->len] = 0;
        memcpy(p, seq, (size_t)seqlen);
        end += deltalen;
    }

updated:
    /* 4. Fuse equal neighbours around the change, then mark the cache.
     *    Bytes from prev on may have changed: drop the marks there. */
    if (marks) {
        int64_t from = prev ? prev - sparse : 0;
        while (marks->valid > 0 && marks->off[marks->valid - 1] >= from) marks->valid--;
    }
    sparse_fuse(h, prev ? prev : sparse, &end);
    fr_hll_invalidate_cache(h);
    return 1;

promote:
    {
        int rc = fr_hll_to_dense(h);
        if (rc != FR_HLL_OK) return rc;
        dense_set(h->buf + FR_HLL_HDR_SIZE, index, (unsigned)count);
        return 1;
    }
}

/* Raise register `index` to `count`, whatever the encoding.  See
 * sparse_set() for the return values; dense updates never fail and do not
 * touch the cache flag (callers set it once per command, as PFADD). */
int fr_hll_set(fr_hll *h, uint32_t index, int count, size_t sparse_max)
{
    if (h->buf[4] == FR_HLL_DENSE)
        return dense_set(h->buf + FR_HLL_HDR_SIZE, index, (unsigned)count);
    return sparse_set(h, index, count, sparse_max, NULL);
}

/* Add one element (PFADD of one element, minus the final cache flag). */
int fr_hll_add(fr_hll *h, const void *ele, size_t len, size_t sparse_max)
{
    uint32_t index;
    int count = fr_hll_pattern(ele, len, &index);
    return fr_hll_set(h, index, count, sparse_max);
}

/* ====================================================================== */
/* Batch adds                                                              */
/* ====================================================================== */

/* Apply one hashed element; the fast dense path inline. */
static inline int apply_hash(fr_hll *h, uint64_t hash, size_t sparse_max, int *changed,
                             sparse_marks_t *marks)
{
    uint32_t index;
    int count = pattern_of_hash(hash, &index);
    if (h->buf[4] == FR_HLL_DENSE) {
        uint8_t *r = h->buf + FR_HLL_HDR_SIZE;
        if ((unsigned)count > dense_get(r, index)) {
            dense_put(r, index, (unsigned)count);
            *changed = 1;
        }
        return FR_HLL_OK;
    }
    int rc = sparse_set(h, index, count, sparse_max, marks);
    if (rc < 0) return rc;
    if (rc) *changed = 1;
    return FR_HLL_OK;
}

/* Integers are hashed a block at a time, in passes over the block: the
 * zero-padded decimal texts of every magnitude (fr_dec_text_block,
 * decimal_text_hash.h), then the hashes.  Each pass is a short loop whose
 * iterations are independent, so the CPU overlaps several integers; one
 * long conversion-then-hash chain per integer measured slower with both
 * text makers (core-measurements.md, "HyperLogLog integer hashing").  With AVX2, decimal_text_hash_avx2.h does both in
 * registers, and fr_hll_int_max runs it as a pipeline over the batch. */
#define INT_BLOCK FR_DEC_BLOCK

/* Whether integer batches may take the AVX2 path (decimal_text_hash_avx2.h) when the
 * CPU has it; tests switch it off to compare it with the SSE2 path. */
#ifdef FR_DEC_AVX2
static int int_simd_allowed = 1;

int fr_hll_int_simd(int allow)
{
    if (allow >= 0) __atomic_store_n(&int_simd_allowed, allow ? 1 : 0, __ATOMIC_RELAXED);
    return __atomic_load_n(&int_simd_allowed, __ATOMIC_RELAXED) && fr_dec_use_avx2();
}
#else
int fr_hll_int_simd(int allow)
{
    (void)allow;
    return 0;
}
#endif

static void int_hashes(const void *vals, int is_signed, size_t m, uint64_t *hash)
{
#ifdef FR_DEC_AVX2
    if (fr_hll_int_simd(-1)) {
        fr_dec_hash_block_avx2(vals, is_signed, m, hash, FR_MURMUR64A_HLL_SEED);
        return;
    }
#endif
    uint8_t text[FR_DEC_BUF(INT_BLOCK)];
    unsigned len[INT_BLOCK];
    if (is_signed) {
        const int64_t *v = (const int64_t *)vals;
        uint64_t mag[INT_BLOCK];
        for (size_t j = 0; j < m; j++)
            mag[j] = v[j] < 0 ? (uint64_t)0 - (uint64_t)v[j] : (uint64_t)v[j];
        fr_dec_text_block(mag, m, text, len);
        for (size_t j = 0; j < m; j++)
            hash[j] = fr_murmur64a_dec_text(text + FR_DEC_S * j, len[j], v[j] < 0, FR_MURMUR64A_HLL_SEED);
    } else {
        fr_dec_text_block((const uint64_t *)vals, m, text, len);
        for (size_t j = 0; j < m; j++)
            hash[j] = fr_murmur64a_dec_text(text + FR_DEC_S * j, len[j], 0, FR_MURMUR64A_HLL_SEED);
    }
}

static inline const void *int_at(const void *vals, int is_signed, size_t i)
{
    return is_signed ? (const void *)((const int64_t *)vals + i) : (const void *)((const uint64_t *)vals + i);
}

/* The hashes of n integers, as the batch adds compute them (for tests). */
void fr_hll_hash_ints(const void *vals, int is_signed, size_t n, uint64_t *out)
{
    for (size_t base = 0; base < n; base += INT_BLOCK)
        int_hashes(int_at(vals, is_signed, base), is_signed,
                   n - base < INT_BLOCK ? n - base : INT_BLOCK, out + base);
}

/* Raise max[] by the ranks of hash[j0..j1). */
static inline void raise_max(uint8_t *max, const uint64_t *hash, size_t j0, size_t j1)
{
    for (size_t j = j0; j < j1; j++) {
        uint32_t index;
        uint8_t count = (uint8_t)pattern_of_hash(hash[j], &index);
        if (count > max[index]) max[index] = count;
    }
}

#ifdef FR_DEC_AVX2
/* int_max_avx2(vals, is_signed, n, max, seed): fr_hll_int_max's pipeline. */
FR_DEC_STREAM_AVX2(int_max_avx2, raise_max, uint8_t *)
#endif

/* Raise max[index] to the rank of every integer of vals[0..n): the
 * registers of those integers alone, one byte each (16 KB, stays in L1).
 * Touches nothing else, so it may run on several threads at once on
 * disjoint parts, without the GIL. */
void fr_hll_int_max(uint8_t *max, const void *vals, int is_signed, size_t n)
{
#ifdef FR_DEC_AVX2
    if (fr_hll_int_simd(-1)) {
        int_max_avx2(vals, is_signed, n, max, FR_MURMUR64A_HLL_SEED);
        return;
    }
#endif
    uint64_t hash[INT_BLOCK];
    for (size_t base = 0; base < n; base += INT_BLOCK) {
        size_t m = n - base < INT_BLOCK ? n - base : INT_BLOCK;
        int_hashes(int_at(vals, is_signed, base), is_signed, m, hash);
        raise_max(max, hash, 0, m);
    }
}

/* Raise each register of a dense h to max[i]; 1 if any register rose,
 * else 0.  Same bytes as raising them one element at a time, in any order
 * (the dense encoding is a plain array).  The cache flag is left to the
 * caller, as for every dense update. */
int fr_hll_dense_apply_max(fr_hll *h, const uint8_t *max)
{
    uint8_t *r = h->buf + FR_HLL_HDR_SIZE;
    int changed = 0;
    for (uint32_t i = 0; i < FR_HLL_REGISTERS; i += 4) {
        uint8_t *b = r + (i / 4) * 3;
        uint32_t w = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16);
        uint32_t nw = w;
        for (int k = 0; k < 4; k++) {
            uint32_t old = (nw >> (6 * k)) & 63;
            if (max[i + k] > old) nw = (nw & ~((uint32_t)63 << (6 * k))) | ((uint32_t)max[i + k] << (6 * k));
        }
        if (nw != w) {
            b[0] = (uint8_t)nw;
            b[1] = (uint8_t)(nw >> 8);
            b[2] = (uint8_t)(nw >> 16);
            changed = 1;
        }
    }
    return changed;
}

/* Below this many items a dense batch updates the registers directly;
 * from here on it collects maxima first (fr_hll_int_max) and applies them
 * once, which is cheaper per item but costs a 16 KB pass. */
#define INT_MAX_MIN 16384

/* The batch adds: each element in order, exactly as one PFADD with all of
 * them.  Return 1 if any register changed, 0 if none, or an error; on error
 * *done is the number of elements applied before the failing one (the
 * value keeps their effect, as Redis's does).  They do not set the stale
 * flag for dense changes; the caller does, once.
 *
 * fr_hll_add_many_i64/u64 add the decimal text of each integer (how redis-py
 * sends a Python int).  While the value is sparse every element goes
 * through sparse_set in order (the sparse bytes depend on the order);
 * once it is dense, the rest of a long batch goes through fr_hll_int_max and
 * fr_hll_dense_apply_max.  fr_hll_add_ints_sparse is the sparse part alone: it
 * stops at the end of the block of INT_BLOCK integers in which the value
 * became dense, with *done = the integers applied, so that a caller can
 * spread the dense rest over threads (hll.pxi).
 *
 * fr_hll_add_many_fixed adds n items of itemsize bytes with trailing NUL bytes
 * removed (numpy 'S' arrays). */
int fr_hll_add_ints_sparse(fr_hll *h, const void *vals, int is_signed, size_t n,
                        size_t sparse_max, size_t *done)
{
    uint64_t hash[INT_BLOCK];
    sparse_marks_t marks;
    int changed = 0;
    size_t base = 0;
    marks.valid = 0;
    while (base < n && h->buf[4] == FR_HLL_SPARSE) {
        size_t m = n - base < INT_BLOCK ? n - base : INT_BLOCK;
        int_hashes(int_at(vals, is_signed, base), is_signed, m, hash);
        for (size_t j = 0; j < m; j++) {
            int rc = apply_hash(h, hash[j], sparse_max, &changed, &marks);
            if (rc < 0) { *done = base + j; return rc; }
        }
        base += m;
    }
    *done = base;
    return changed;
}

static int add_many_int(fr_hll *h, const void *vals, int is_signed, size_t n,
                        size_t sparse_max, size_t *done)
{
    size_t i;
    int changed = fr_hll_add_ints_sparse(h, vals, is_signed, n, sparse_max, &i);
    if (changed < 0) { *done = i; return changed; }
    if (n - i >= INT_MAX_MIN) {
        uint8_t max[FR_HLL_REGISTERS];
        memset(max, 0, sizeof max);
        fr_hll_int_max(max, int_at(vals, is_signed, i), is_signed, n - i);
        changed |= fr_hll_dense_apply_max(h, max);
    } else {
        uint64_t hash[INT_BLOCK];
        for (; i < n; i += INT_BLOCK) {
            size_t m = n - i < INT_BLOCK ? n - i : INT_BLOCK;
            int_hashes(int_at(vals, is_signed, i), is_signed, m, hash);
            for (size_t j = 0; j < m; j++) (void)apply_hash(h, hash[j], sparse_max, &changed, NULL);
        }
    }
    *done = n;
    return changed;
}

int fr_hll_add_many_i64(fr_hll *h, const int64_t *vals, size_t n, size_t sparse_max, size_t *done)
{
    return add_many_int(h, vals, 1, n, sparse_max, done);
}

int fr_hll_add_many_u64(fr_hll *h, const uint64_t *vals, size_t n, size_t sparse_max, size_t *done)
{
    return add_many_int(h, vals, 0, n, sparse_max, done);
}

int fr_hll_add_many_fixed(fr_hll *h, const uint8_t *data, size_t itemsize, size_t n,
                       size_t sparse_max, size_t *done)
{
    sparse_marks_t marks;
    int changed = 0;
    marks.valid = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *item = data + i * itemsize;
        size_t len = itemsize;
        while (len > 0 && item[len - 1] == 0) len--;
        int rc = apply_hash(h, fr_murmur64a(item, len, FR_MURMUR64A_HLL_SEED), sparse_max, &changed,
                            &marks);
        if (rc < 0) { *done = i; return rc; }
    }
    *done = n;
    return changed;
}

/* ====================================================================== */
/* Estimator                                                               */
/* ====================================================================== */

/* Count how many registers hold each value 0..63 (hist is zeroed here).
 * FR_HLL_ERR_CORRUPT if a sparse payload does not cover exactly 16384
 * registers; a dense payload is always fine. */
int fr_hll_histogram(const fr_hll *h, int64_t hist[64])
{
    memset(hist, 0, 64 * sizeof hist[0]);
    if (h->buf[4] == FR_HLL_DENSE) {
        /* Four partial histograms break the store-to-load dependency
         * between neighbouring registers that mostly hold the same value. */
        uint32_t part[4][64];
        memset(part, 0, sizeof part);
        const uint8_t *r = h->buf + FR_HLL_HDR_SIZE;
        for (int j = 0; j < FR_HLL_DENSE_PAYLOAD; j += 3) {
            uint32_t w = (uint32_t)r[j] | ((uint32_t)r[j + 1] << 8) | ((uint32_t)r[j + 2] << 16);
            part[0][w & 63]++;
            part[1][(w >> 6) & 63]++;
            part[2][(w >> 12) & 63]++;
            part[3][(w >> 18) & 63]++;
        }
        for (int k = 0; k < 64; k++)
            hist[k] = (int64_t)part[0][k] + part[1][k] + part[2][k] + part[3][k];
        return FR_HLL_OK;
    }
    const uint8_t *p = h->buf + FR_HLL_HDR_SIZE, *end = h->buf + h->len;
    int64_t idx = 0;
    while (p < end) {
        int64_t runlen;
        if (SPARSE_IS_ZERO(p)) {
            runlen = SPARSE_ZERO_LEN(p);
            hist[0] += runlen;
            p++;
        } else if (SPARSE_IS_XZERO(p)) {
            runlen = SPARSE_XZERO_LEN(p);
            hist[0] += runlen;
            p += 2;
        } else {
            runlen = SPARSE_VAL_LEN(p);
            hist[SPARSE_VAL_VALUE(p)] += runlen;
            p++;
        }
        idx += runlen;
        if (idx > FR_HLL_REGISTERS) return FR_HLL_ERR_CORRUPT; /* can only grow */
    }
    return idx == FR_HLL_REGISTERS ? FR_HLL_OK : FR_HLL_ERR_CORRUPT;
}

/* Ertl's sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), iterated until the
 * double sum stops changing; +inf at x = 1. */
static double ertl_sigma(double x)
{
    if (x == 1.) return INFINITY;
    double y = 1, z = x, zprev;
    do {
        x *= x;
        zprev = z;
        z += x * y;
        y += y;
    } while (zprev != z);
    return z;
}

/* Ertl's tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3;
 * 0 at x = 0 and x = 1. */
static double ertl_tau(double x)
{
    if (x == 0. || x == 1.) return 0.;
    double y = 1.0, z = 1 - x, zprev;
    do {
        x = sqrt(x);
        zprev = z;
        y *= 0.5;
        z -= pow(1 - x, 2) * y;
    } while (zprev != z);
    return z / 3;
}

/* The estimate from a register histogram, bit for bit as Redis 7.0
 * computes it (IEEE double throughout, rounded half away from zero).
 * Registers above 51 (forged) fall out of the sum, as in Redis. */
uint64_t fr_hll_estimate(const int64_t hist[64])
{
    const double m = FR_HLL_REGISTERS;
    double z = m * ertl_tau((m - (double)hist[FR_HLL_Q + 1]) / m);
    for (int j = FR_HLL_Q; j >= 1; --j) {
        z += (double)hist[j];
        z *= 0.5;
    }
    z += m * ertl_sigma((double)hist[0] / m);
    double e = ALPHA_INF * m * m / z;
    /* llroundl() out of range (or inf) on x86-64 gives the "integer
     * indefinite" 0x8000000000000000; Redis replies with that. */
    if (!(e < 9223372036854775807.5)) return (uint64_t)1 << 63;
    return (uint64_t)llround(e);
}

/* PFCOUNT of one value: the cached count when the stale flag is clear
 * (trusted as is), else the estimate, stored back into bytes 8..15 with the
 * flag clear.  FR_HLL_ERR_CORRUPT leaves the value unchanged. */
int fr_hll_count(fr_hll *h, uint64_t *card)
{
    uint8_t *c = h->buf + 8;
    if (fr_hll_cache_is_valid(h)) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = (v << 8) | c[i];
        *card = v;
        return FR_HLL_OK;
    }
    int rc = fr_hll_recount(h, card);
    if (rc != FR_HLL_OK) return rc;
    for (int i = 0; i < 8; i++) c[i] = (uint8_t)(*card >> (8 * i));
    return FR_HLL_OK;
}

/* The estimate, ignoring and not touching the cache. */
int fr_hll_recount(const fr_hll *h, uint64_t *card)
{
    int64_t hist[64];
    int rc = fr_hll_histogram(h, hist);
    if (rc != FR_HLL_OK) return rc;
    *card = fr_hll_estimate(hist);
    return FR_HLL_OK;
}

/* ====================================================================== */
/* Unions and merges                                                       */
/* ====================================================================== */

/* max[i] = max(max[i], register i of h) for the 16384 bytes at max.
 * FR_HLL_ERR_CORRUPT for a sparse payload not covering exactly 16384
 * registers (max may then be partly updated; callers discard it).
 * Registers are only written once the opcode is known to fit. */
int fr_hll_merge_max(uint8_t *max, const fr_hll *h)
{
    if (h->buf[4] == FR_HLL_DENSE) {
        const uint8_t *r = h->buf + FR_HLL_HDR_SIZE;
        for (uint32_t i = 0; i < FR_HLL_REGISTERS; i += 4) {
            const uint8_t *b = r + (i / 4) * 3;
            uint32_t w = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16);
            for (int k = 0; k < 4; k++) {
                uint8_t v = (uint8_t)((w >> (6 * k)) & 63);
                if (v > max[i + k]) max[i + k] = v;
            }
        }
        return FR_HLL_OK;
    }
    const uint8_t *p = h->buf + FR_HLL_HDR_SIZE, *end = h->buf + h->len;
    int64_t i = 0;
    while (p < end) {
        int64_t runlen;
        if (SPARSE_IS_ZERO(p)) {
            runlen = SPARSE_ZERO_LEN(p);
            p++;
        } else if (SPARSE_IS_XZERO(p)) {
            runlen = SPARSE_XZERO_LEN(p);
            p += 2;
        } else {
            runlen = SPARSE_VAL_LEN(p);
            if (i + runlen > FR_HLL_REGISTERS) return FR_HLL_ERR_CORRUPT;
            uint8_t val = (uint8_t)SPARSE_VAL_VALUE(p);
            for (int64_t k = 0; k < runlen; k++)
                if (val > max[i + k]) max[i + k] = val;
            p++;
        }
        i += runlen;
        if (i > FR_HLL_REGISTERS) return FR_HLL_ERR_CORRUPT;
    }
    return i == FR_HLL_REGISTERS ? FR_HLL_OK : FR_HLL_ERR_CORRUPT;
}

/* The estimate of a union held as one byte per register (PFCOUNT with
 * several keys; no cache anywhere). */
uint64_t fr_hll_count_max(const uint8_t *max)
{
    int64_t hist[64] = {0};
    for (int i = 0; i < FR_HLL_REGISTERS; i++) hist[max[i] & 63]++;
    return fr_hll_estimate(hist);
}

/* The tail of PFMERGE: make dest dense first when use_dense, then raise
 * every register i with max[i] > 0, in ascending order, through the normal
 * update rules (a sparse dest may still be promoted by size), then set the
 * stale flag.  dest must have been merged into max (so validated) first.
 * Like Redis, a failing sparse update is skipped; only NOMEM is reported. */
int fr_hll_store_max(fr_hll *dest, const uint8_t *max, int use_dense, size_t sparse_max)
{
    if (use_dense) {
        int rc = fr_hll_to_dense(dest);
        if (rc != FR_HLL_OK) return rc;
    }
    for (uint32_t j = 0; j < FR_HLL_REGISTERS; j++) {
        if (max[j] == 0) continue;
        int rc = fr_hll_set(dest, j, max[j], sparse_max);
        if (rc == FR_HLL_ERR_NOMEM) return rc;
    }
    fr_hll_invalidate_cache(dest);
    return FR_HLL_OK;
}

/* ====================================================================== */
/* Inspection and self test                                                */
/* ====================================================================== */

/* Decode all 16384 registers into out.  FR_HLL_ERR_CORRUPT as for a count. */
int fr_hll_registers(const fr_hll *h, uint8_t *out)
{
    memset(out, 0, FR_HLL_REGISTERS);
    return fr_hll_merge_max(out, h);
}

/* Full check of an untrusted value: header, then (sparse) exact coverage. */
int fr_hll_validate(const fr_hll *h)
{
    int rc = fr_hll_check_header(h->buf, h->len);
    if (rc != FR_HLL_OK) return rc;
    if (h->buf[4] == FR_HLL_DENSE) return FR_HLL_OK;
    int64_t hist[64];
    return fr_hll_histogram(h, hist);
}

/* 0 if every integer hashing variant agrees with the text for mag. */
static int selftest_dec(uint64_t mag, unsigned neg)
{
    char text[24], *p = text + sizeof text;
    uint64_t v = mag;
    do { *--p = (char)('0' + v % 10); v /= 10; } while (v);
    if (neg) *--p = '-';
    uint64_t want = fr_hll_hash(p, (size_t)(text + sizeof text - p)), got;
    uint8_t s[FR_DEC_BUF(1)];
    memset(s, 0, sizeof s);
    unsigned digits = fr_dec_text_swar(mag, s);
    if (fr_murmur64a_dec_text(s, digits, neg, FR_MURMUR64A_HLL_SEED) != want) return 1;
    if (neg && (mag == 0 || mag > (uint64_t)1 << 63)) return 0;  /* no such int64 */
    if (neg) {
        int64_t sv = (int64_t)((uint64_t)0 - mag);
        fr_hll_hash_ints(&sv, 1, 1, &got);
    } else {
        fr_hll_hash_ints(&mag, 0, 1, &got);
    }
    return got != want;
}

/* Known answers for the hash and round trips of the 6-bit packing.
 * Returns 0 on success, or a positive number naming the failed check. */
int fr_hll_selftest(void)
{
    uint32_t idx;
    if (fr_hll_hash("a", 1) != 0x53d2470a9b43b1a7ULL) return 1;
    if (fr_hll_pattern("a", 1, &idx) != 2 || idx != 12711) return 2;
    if (fr_hll_hash("", 0) != 0xd8dfea6585bc9732ULL) return 3;

    static uint8_t regs[FR_HLL_DENSE_PAYLOAD + 1];
    static uint8_t ref[FR_HLL_REGISTERS];
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < 20; round++) {
        memset(regs, 0, sizeof regs);
        for (uint32_t i = 0; i < FR_HLL_REGISTERS; i++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            ref[i] = (uint8_t)(s & 63);
            dense_put(regs, i, ref[i]);
        }
        for (uint32_t i = 0; i < FR_HLL_REGISTERS; i++)
            if (dense_get(regs, i) != ref[i]) return 4;
        if (regs[FR_HLL_DENSE_PAYLOAD] != 0) return 5;
    }

    /* Integer hashing (decimal_text_hash.h): every variant against the hash of
     * the text written digit by digit, over all digit counts, the powers
     * of ten and their neighbours, both signs. */
    uint64_t p10 = 1;
    for (int d = 0; d < 20; d++, p10 *= 10) {
        for (int k = -1; k <= 1; k++) {
            for (unsigned neg = 0; neg < 2; neg++) {
                uint64_t mag = p10 + (uint64_t)(int64_t)k;
                if (selftest_dec(mag, neg) != 0) return 6;
            }
        }
    }
    if (selftest_dec(UINT64_MAX, 0) != 0 || selftest_dec((uint64_t)1 << 63, 1) != 0) return 7;
    return 0;
}
