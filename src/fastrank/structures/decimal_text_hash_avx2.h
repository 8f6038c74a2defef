/* decimal_text_hash_avx2.h -- MurmurHash64A of the decimal texts of 64-bit
 * integers, four integers per AVX2 vector, as a pipeline over long batches.
 *
 * Same hashes as decimal_text_hash.h (the text redis-py sends for an int), built
 * without writing any text to memory.  One 64-bit lane per integer; its
 * 24-byte zero-padded text S (see decimal_text_hash.h) is three words
 *
 *     W0 W1 W2 = fr_dec8_ascii of A, B, C      (|v| = A 10^16 + B 10^8 + C)
 *
 * and the text proper starts at byte o = 24 - len of S (len = digits +
 * '-').  Its 8-byte words are
 *
 *     T_k = (X_k >> s) | (X_(k+1) << (64 - s)),  s = 8 (o % 8),  X_k = W_(o/8 + k)
 *
 * (0 past W2), picked per lane by blends; AVX2 shifts by 64 give 0, so
 * s = 0 needs no special case, and the word after the last full 8 bytes is
 * the tail, already zero padded.  A '-' is XORed into the first byte of T0
 * (over the pad '0': '0' ^ '-' = 0x1d).  MurmurHash64A then runs on four
 * lanes at once: every lane runs both block steps and the tail step and
 * keeps a step only where its text has that block (len >= 8, >= 16) or a
 * tail (len % 8 != 0).  A 64-bit multiply by the constant m is a vpmuludq
 * and a vpmulld (fr_v_mul_m).
 *
 * A block of FR_DEC_BLOCK integers goes through three stages
 * (fr_dec_block_t):
 *
 *     split (scalar)   A, B, C, len, sign      the divisions by 10^8
 *     words (vector)   T0 T1 T2, h0 = seed ^ len m
 *     hash  (vector)   MurmurHash64A
 *
 * When every text of a block is 17-20 bytes (integers >= 10^16, as random
 * 64-bit ids are) all lanes have two blocks and a tail starting in W0, and
 * a blend-free version of both vector stages runs (all_long).
 *
 * FR_DEC_STREAM_AVX2 runs the stages of a long batch as a pipeline: while
 * the words of block k are made, four at a time, block k + 1 is split and
 * the caller's consumer takes the hashes of block k - 1.  The scalar and
 * the vector work then overlap (they use different execution units), and a
 * vector load never waits for the scalar stores it reads (they were made a
 * block earlier).  On one thread this about halves the time per integer
 * of the SSE2 passes of decimal_text_hash.h (bench/results/
 * core-measurements.md, "HyperLogLog integer hashing").
 *
 * Built for AVX2 with target attributes, used only when the running CPU
 * has it (fr_dec_use_avx2), so the package still runs on any x86-64; GCC
 * or Clang on x86-64 only (FR_DEC_AVX2).  tests/unit/structures/test_hll_decimal.py
 * runs every check on both paths (_hll_int_simd switches this one off).
 */
#ifndef FASTRANK_DECIMAL_TEXT_HASH_AVX2_H
#define FASTRANK_DECIMAL_TEXT_HASH_AVX2_H

#include "decimal_text_hash.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define FR_DEC_AVX2 1
#include <immintrin.h>

/* 1 when the running CPU has AVX2 (asked once; racing threads store the
 * same answer). */
static inline int fr_dec_use_avx2(void)
{
    static int has = -1;
    int v = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (v < 0) {
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&has, v, __ATOMIC_RELAXED);
    }
    return v;
}

#define FR_AVX2_FN __attribute__((target("avx2"))) static inline

/* x * m mod 2^64 in each lane (m = FR_MURMUR64A_M), from 32-bit halves:
 * lo(x) lo(m) + ((hi(x) lo(m) + lo(x) hi(m)) << 32).  One vpmulld gives
 * both cross products at once (x times m with its halves swapped). */
FR_AVX2_FN __m256i fr_v_mul_m(__m256i x)
{
    const uint32_t lo = (uint32_t)FR_MURMUR64A_M, hi = (uint32_t)(FR_MURMUR64A_M >> 32);
    __m256i mlo = _mm256_set1_epi64x((long long)lo);
    __m256i mswap = _mm256_set1_epi64x((long long)(((uint64_t)lo << 32) | hi));
    __m256i t = _mm256_mullo_epi32(x, mswap);          /* 32-bit lanes: lo(x) hi(m), hi(x) lo(m) */
    __m256i cross = _mm256_add_epi64(_mm256_slli_epi64(t, 32),
                                     _mm256_blend_epi32(_mm256_setzero_si256(), t, 0xAA));
    return _mm256_add_epi64(_mm256_mul_epu32(x, mlo), cross);
}

/* h[k] = MurmurHash64A's block step of h[k] with the word w[k], in the
 * lanes whose text length l[k] > after (the others keep h[k]; all: every
 * lane has the block); the FR_V_WAYS vectors one step at a time (see
 * fr_dec_hash_stage). */
#define FR_V_WAYS 4
#define FR_V_EACH for (int k = 0; k < FR_V_WAYS; k++)
FR_AVX2_FN void fr_v_blocks(__m256i *h, __m256i *w, const __m256i *l, __m256i after, const int all)
{
    __m256i x[FR_V_WAYS];
    FR_V_EACH x[k] = fr_v_mul_m(w[k]);
    FR_V_EACH x[k] = _mm256_xor_si256(x[k], _mm256_srli_epi64(x[k], FR_MURMUR64A_R));
    FR_V_EACH x[k] = fr_v_mul_m(x[k]);
    FR_V_EACH x[k] = fr_v_mul_m(_mm256_xor_si256(h[k], x[k]));
    FR_V_EACH h[k] = all ? x[k] : _mm256_blendv_epi8(h[k], x[k], _mm256_cmpgt_epi64(l[k], after));
}

/* A constant the compiler may not see through: it would rewrite a
 * multiply by 2559 as shifts and adds, more instructions than the multiply. */
#define FR_V_OPAQUE(v) __asm__("" : "+x"(v))

/* The last two splits of fr_dec8_ascii, from 32-bit lanes y < 10^4 (every
 * other 16-bit lane 0) to 8 ASCII digits per 64-bit lane:
 *   y / 100 = (y * 5243 >> 16) >> 3,  q | (y - 100 q) << 16 = (y << 16) - q * 6553599
 *   y / 10  =  y * 6554 >> 16,        q | (y - 10 q) << 8   = (y << 8) - q * 2559    */
FR_AVX2_FN __m256i fr_v_dec_4x4(__m256i v)
{
    __m256i k6553599 = _mm256_set1_epi32(6553599), k2559 = _mm256_set1_epi16(2559);
    FR_V_OPAQUE(k6553599);
    FR_V_OPAQUE(k2559);
    __m256i q = _mm256_srli_epi16(_mm256_mulhi_epu16(v, _mm256_set1_epi16(5243)), 3);
    v = _mm256_sub_epi32(_mm256_slli_epi32(v, 16), _mm256_mullo_epi32(q, k6553599));
    q = _mm256_mulhi_epu16(v, _mm256_set1_epi16(6554));
    v = _mm256_sub_epi16(_mm256_slli_epi16(v, 8), _mm256_mullo_epi16(q, k2559));
    return _mm256_add_epi8(v, _mm256_set1_epi8('0'));
}

/* fr_dec8_ascii of each lane (x < 10^8 in the low 32 bits, high bits 0). */
FR_AVX2_FN __m256i fr_v_dec8(__m256i x)
{
    /* x / 10^4 = x * 0xd1b71759 >> 45 for x < 2^32: 2 x 4 digits in 32-bit lanes */
    __m256i hi = _mm256_srli_epi64(_mm256_mul_epu32(x, _mm256_set1_epi64x(0xd1b71759LL)), 45);
    __m256i lo = _mm256_sub_epi32(x, _mm256_mul_epu32(hi, _mm256_set1_epi64x(10000)));
    return fr_v_dec_4x4(_mm256_or_si256(hi, _mm256_slli_epi64(lo, 32)));
}

/* fr_dec8_ascii of each lane's x < 10^4 (low 32 bits): "0000" and its 4
 * digits. */
FR_AVX2_FN __m256i fr_v_dec4(__m256i x)
{
    return fr_v_dec_4x4(_mm256_slli_epi64(x, 32));
}

#define FR_V_LOAD64(p) _mm256_loadu_si256((const __m256i *)(p))
#define FR_V_LOAD32(p) _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(p)))
#define FR_V_STORE(p, v) _mm256_storeu_si256((__m256i *)(p), (v))

#define FR_V_GROUP (4 * FR_V_WAYS)
/* The hash stage takes a block FR_V_GROUP integers at a time. */
typedef char fr_dec_block_is_whole_groups[FR_DEC_BLOCK % FR_V_GROUP == 0 ? 1 : -1];

/* One block on its way through the stages (see the top of the file). */
typedef struct {
    size_t m;                            /* integers in the block */
    uint32_t a[FR_DEC_BLOCK], b[FR_DEC_BLOCK], c[FR_DEC_BLOCK];  /* |v| = a 10^16 + b 10^8 + c */
    uint32_t len[FR_DEC_BLOCK];          /* text length: digits + '-' */
    uint32_t sign[FR_DEC_BLOCK];         /* 0x1d for '-' ('0' ^ '-'), else 0; int64 only */
    int32_t short_any;                   /* < 0 once a text is shorter than 17 */
    unsigned all_long;                   /* every text 17..20 bytes: two blocks and a tail */
    uint64_t t0[FR_DEC_BLOCK], t1[FR_DEC_BLOCK], t2[FR_DEC_BLOCK];
    uint64_t hash[FR_DEC_BLOCK];         /* h0, then the hashes */
} fr_dec_block_t;

/* Split vals[j0..j1) (int64 when is_signed, else uint64; vals is the
 * start of the block) into sp.  Always inlined with is_signed a constant,
 * so that each kind of integer gets its own loop. */
__attribute__((always_inline)) static inline void
fr_dec_split_part(const void *vals, const int is_signed, fr_dec_block_t *sp, size_t j0, size_t j1)
{
    int32_t short_any = 0;
    for (size_t j = j0; j < j1; j++) {
        uint64_t v;
        unsigned neg = 0;
        if (is_signed) {
            /* branch-free: signs are as random as the values */
            uint64_t x = (uint64_t)((const int64_t *)vals)[j], s = (uint64_t)0 - (x >> 63);
            neg = (unsigned)(x >> 63);
            v = (x ^ s) - s;
            sp->sign[j] = neg * 0x1d;
        } else {
            v = ((const uint64_t *)vals)[j];
        }
        fr_dec_abc(v, &sp->a[j], &sp->b[j], &sp->c[j]);
        unsigned len = fr_dec_digits(v) + neg;
        sp->len[j] = len;
        short_any |= (int32_t)len - 17;
    }
    sp->short_any |= short_any;
}

static inline void fr_dec_split_begin(fr_dec_block_t *sp, size_t m)
{
    sp->m = m;
    sp->short_any = 0;
}

/* After every integer of the block is split: zero the rest of the block
 * (the vector stages read whole vectors) and set all_long. */
static inline void fr_dec_split_end(fr_dec_block_t *sp)
{
    sp->all_long = sp->short_any >= 0 && sp->m == FR_DEC_BLOCK;
    for (size_t j = sp->m; j < FR_DEC_BLOCK; j++) sp->a[j] = sp->b[j] = sp->c[j] = sp->len[j] = sp->sign[j] = 0;
}

/* The words stage for integers g .. g + 3 of sp.  all_long: see
 * fr_dec_block_t (every text starts in W0, so no blends). */
__attribute__((target("avx2"), always_inline)) static inline void
fr_dec_words4(fr_dec_block_t *sp, size_t g, uint64_t seed, const int is_signed, const int all_long)
{
    const __m256i zero = _mm256_setzero_si256(), seven = _mm256_set1_epi64x(7);
    __m256i l = FR_V_LOAD32(sp->len + g);
    __m256i w0 = fr_v_dec4(FR_V_LOAD32(sp->a + g));
    __m256i w1 = fr_v_dec8(FR_V_LOAD32(sp->b + g));
    __m256i w2 = fr_v_dec8(FR_V_LOAD32(sp->c + g));
    __m256i o = _mm256_sub_epi64(_mm256_set1_epi64x(24), l);
    __m256i s = _mm256_slli_epi64(_mm256_and_si256(o, seven), 3);
    __m256i rs = _mm256_sub_epi64(_mm256_set1_epi64x(64), s);
    __m256i x0 = w0, x1 = w1, x2 = w2;
    if (!all_long) {
        __m256i wi = _mm256_srli_epi64(o, 3);
        __m256i at0 = _mm256_cmpeq_epi64(wi, zero);
        __m256i at1 = _mm256_cmpeq_epi64(wi, _mm256_set1_epi64x(1));
        __m256i at2 = _mm256_cmpeq_epi64(wi, _mm256_set1_epi64x(2));
        x0 = _mm256_blendv_epi8(_mm256_blendv_epi8(w0, w1, at1), w2, at2);
        x1 = _mm256_andnot_si256(at2, _mm256_blendv_epi8(w1, w2, at1));
        x2 = _mm256_and_si256(at0, w2);
    }
    __m256i v0 = _mm256_or_si256(_mm256_srlv_epi64(x0, s), _mm256_sllv_epi64(x1, rs));
    FR_V_STORE(sp->t0 + g, is_signed ? _mm256_xor_si256(FR_V_LOAD32(sp->sign + g), v0) : v0);
    FR_V_STORE(sp->t1 + g, _mm256_or_si256(_mm256_srlv_epi64(x1, s), _mm256_sllv_epi64(x2, rs)));
    FR_V_STORE(sp->t2 + g, _mm256_srlv_epi64(x2, s));
    /* seed ^ len * m (len < 2^32: two 32-bit products) */
    FR_V_STORE(sp->hash + g, _mm256_xor_si256(_mm256_set1_epi64x((long long)seed), _mm256_add_epi64(
        _mm256_mul_epu32(l, _mm256_set1_epi64x((long long)(FR_MURMUR64A_M & 0xffffffffULL))),
        _mm256_slli_epi64(_mm256_mul_epu32(l, _mm256_set1_epi64x((long long)(FR_MURMUR64A_M >> 32))), 32))));
}

/* The hash stage for the whole block, FR_V_WAYS vectors side by side (each
 * vector's chain of dependent multiplies is long, and side by side the
 * chains overlap: core-measurements.md, "HyperLogLog integer hashing"). */
__attribute__((target("avx2"), always_inline)) static inline void
fr_dec_hash_stage(fr_dec_block_t *sp, const int all_long)
{
    const __m256i zero = _mm256_setzero_si256(), seven = _mm256_set1_epi64x(7);
    size_t end = (sp->m + FR_V_GROUP - 1) / FR_V_GROUP * FR_V_GROUP;
    for (size_t g = 0; g < end; g += FR_V_GROUP) {
        __m256i h[FR_V_WAYS], v0[FR_V_WAYS], v1[FR_V_WAYS], v2[FR_V_WAYS], l[FR_V_WAYS];
        FR_V_EACH {
            size_t i = g + 4 * k;
            l[k] = FR_V_LOAD32(sp->len + i);
            h[k] = FR_V_LOAD64(sp->hash + i);
            v0[k] = FR_V_LOAD64(sp->t0 + i);
            v1[k] = FR_V_LOAD64(sp->t1 + i);
            v2[k] = FR_V_LOAD64(sp->t2 + i);
        }
        fr_v_blocks(h, v0, l, seven, all_long);
        fr_v_blocks(h, v1, l, _mm256_set1_epi64x(15), all_long);
        if (all_long) FR_V_EACH h[k] = fr_v_mul_m(_mm256_xor_si256(h[k], v2[k]));
        else FR_V_EACH {
            /* the tail is T_(len / 8); a length that is a multiple of 8 has none */
            __m256i has1 = _mm256_cmpgt_epi64(l[k], seven), has2 = _mm256_cmpgt_epi64(l[k], _mm256_set1_epi64x(15));
            __m256i tail = _mm256_blendv_epi8(_mm256_blendv_epi8(v0[k], v1[k], has1), v2[k], has2);
            __m256i no_tail = _mm256_cmpeq_epi64(_mm256_and_si256(l[k], seven), zero);
            h[k] = _mm256_blendv_epi8(fr_v_mul_m(_mm256_xor_si256(h[k], tail)), h[k], no_tail);
        }
        FR_V_EACH h[k] = _mm256_xor_si256(h[k], _mm256_srli_epi64(h[k], FR_MURMUR64A_R));
        FR_V_EACH h[k] = fr_v_mul_m(h[k]);
        FR_V_EACH FR_V_STORE(sp->hash + g + 4 * k, _mm256_xor_si256(h[k], _mm256_srli_epi64(h[k], FR_MURMUR64A_R)));
    }
}

/* hash[j] = MurmurHash64A (seed) of the decimal text of vals[j], for
 * m <= FR_DEC_BLOCK integers: one block, stage after stage. */
FR_AVX2_FN void fr_dec_hash_block_avx2(const void *vals, int is_signed, size_t m, uint64_t *hash,
                                       uint64_t seed)
{
    fr_dec_block_t sp;
    size_t end = (m + FR_V_GROUP - 1) / FR_V_GROUP * FR_V_GROUP;
    fr_dec_split_begin(&sp, m);
    if (is_signed) fr_dec_split_part(vals, 1, &sp, 0, m);
    else fr_dec_split_part(vals, 0, &sp, 0, m);
    fr_dec_split_end(&sp);
    for (size_t g = 0; g < end; g += 4) {
        if (is_signed) fr_dec_words4(&sp, g, seed, 1, 0);
        else fr_dec_words4(&sp, g, seed, 0, 0);
    }
    fr_dec_hash_stage(&sp, 0);
    memcpy(hash, sp.hash, m * sizeof *hash);
}

/* The pipeline over n integers (see fr_dec_block_t): the hashes of each
 * block are handed, in order, to CONSUME(ctx, hash, j0, j1) -- an inline
 * function the caller names -- a few at a time, while the next blocks are
 * prepared.  A macro, so that CONSUME is inlined into the loop; it defines
 * name(vals, is_signed, n, ctx, seed). */
#define FR_DEC_STREAM_AVX2(name, CONSUME, ctx_t)                                                 \
__attribute__((target("avx2"), always_inline)) static inline void                                \
name##_step(fr_dec_block_t *cur, fr_dec_block_t *nxt, const void *nvals, fr_dec_block_t *prv,   \
            ctx_t ctx, uint64_t seed, const int is_signed, const int all_long)                   \
{                                                                                               \
    size_t end = (cur->m + FR_V_GROUP - 1) / FR_V_GROUP * FR_V_GROUP;                          \
    size_t nm = nxt ? nxt->m : 0, pm = prv ? prv->m : 0, g;                                    \
    for (g = 0; g < end; g += 4) {                                                              \
        fr_dec_words4(cur, g, seed, is_signed, all_long);                                       \
        /* four at a time (a loop of constant length, unrolled) but at the end */               \
        if (g + 4 <= nm) fr_dec_split_part(nvals, is_signed, nxt, g, g + 4);                    \
        else if (g < nm) fr_dec_split_part(nvals, is_signed, nxt, g, nm);                       \
        if (g + 4 <= pm) CONSUME(ctx, prv->hash, g, g + 4);                                     \
        else if (g < pm) CONSUME(ctx, prv->hash, g, pm);                                        \
    }                                                                                           \
    /* cur is a short last block: the rest of the previous one */                              \
    if (end < pm) CONSUME(ctx, prv->hash, end, pm);                                            \
    if (nxt) fr_dec_split_end(nxt);                                                             \
    fr_dec_hash_stage(cur, all_long);                                                           \
}                                                                                               \
__attribute__((target("avx2"), always_inline)) static inline void                                \
name##_run(const void *vals, size_t n, ctx_t ctx, uint64_t seed, const int is_signed)            \
{                                                                                               \
    fr_dec_block_t blk[3];                                                                      \
    size_t nblocks = (n + FR_DEC_BLOCK - 1) / FR_DEC_BLOCK, k;                                  \
    const char *base = (const char *)vals;                                                      \
    fr_dec_split_begin(&blk[0], n < FR_DEC_BLOCK ? n : FR_DEC_BLOCK);                           \
    fr_dec_split_part(base, is_signed, &blk[0], 0, blk[0].m);                                   \
    fr_dec_split_end(&blk[0]);                                                                  \
    for (k = 0; k < nblocks; k++) {                                                             \
        fr_dec_block_t *cur = &blk[k % 3], *nxt = NULL, *prv = k ? &blk[(k + 2) % 3] : NULL;    \
        const char *nvals = base + (k + 1) * FR_DEC_BLOCK * 8;                                  \
        if (k + 1 < nblocks) {                                                                  \
            size_t left = n - (k + 1) * FR_DEC_BLOCK;                                           \
            nxt = &blk[(k + 1) % 3];                                                            \
            fr_dec_split_begin(nxt, left < FR_DEC_BLOCK ? left : FR_DEC_BLOCK);                 \
        }                                                                                       \
        if (cur->all_long) name##_step(cur, nxt, nvals, prv, ctx, seed, is_signed, 1);          \
        else name##_step(cur, nxt, nvals, prv, ctx, seed, is_signed, 0);                        \
    }                                                                                           \
    CONSUME(ctx, blk[(nblocks - 1) % 3].hash, 0, blk[(nblocks - 1) % 3].m);                     \
}                                                                                               \
FR_AVX2_FN void name(const void *vals, int is_signed, size_t n, ctx_t ctx, uint64_t seed)        \
{                                                                                               \
    if (n == 0) return;                                                                         \
    if (is_signed) name##_run(vals, n, ctx, seed, 1);                                           \
    else name##_run(vals, n, ctx, seed, 0);                                                     \
}
#endif /* GCC or Clang on x86-64 */


#endif /* FASTRANK_DECIMAL_TEXT_HASH_AVX2_H */
