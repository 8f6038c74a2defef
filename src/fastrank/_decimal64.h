/* _decimal64.h -- MurmurHash64A of the decimal text of 64-bit integers,
 * a block of integers at a time.
 *
 * redis-py sends a Python int as its decimal text (PFADD k 5 adds "5"), so
 * HyperLogLog.add_many on a numpy integer array must hash exactly those
 * bytes.  Formatting each text with a per-digit (or digit-pair table) loop
 * and hashing it back byte-wise is most of the cost; here every step works
 * on whole 8-byte words, the unit MurmurHash64A reads.
 *
 *   v (magnitude, < 2^64) = A * 10^16 + B * 10^8 + C,   A < 1845, B, C < 10^8
 *
 *   S = 24 digit bytes "AAAAAAAA BBBBBBBB CCCCCCCC" (zero padded), held as
 *       three words w0 w1 w2; word j, read little-endian, is S[8j .. 8j+8)
 *       (byte 0 of a word = its low 8 bits = the most significant digit).
 *
 *   The text (len = digits + sign <= 20 bytes) is the suffix S[24-len, 24),
 *   with '-' written over the pad '0' just before the first digit
 *   (fr_dec_sign).  With r = len % 8 and nb = len / 8 (0, 1 or 2),
 *   MurmurHash64A sees
 *
 *     block 1 (nb = 2):  S[8-r  .. 16-r)  = funnel(w0, w1, r)
 *     block 2 (nb >= 1): S[16-r .. 24-r)  = funnel(w1, w2, r)
 *     tail    (r > 0):   S[24-r .. 24)    = w2 >> (64 - 8r)
 *
 *   where funnel(a, b, r) = (a >> (64 - 8r)) | (b << 8r) (= b when r = 0);
 *   fr_murmur64a_words does that, with the steps of _murmur64.h.
 *
 * fr_dec_words_block gives w and len for up to FR_DEC_BLOCK magnitudes, so
 * that a batch runs each stage as a short loop over a block (_hll.c): the
 * iterations are independent and the CPU overlaps several integers.
 *
 * Portable version (fr_dec_words_swar, per integer): one 8-digit chunk
 * becomes its 8 ASCII bytes with SWAR arithmetic on one 64-bit word, no
 * table and no per-digit loop: split into two 4-digit halves (32-bit
 * lanes), each into two 2-digit parts (16-bit lanes), each into two digits
 * (8-bit lanes), every split a multiply by a reciprocal and a shift that
 * cannot carry across lanes for these ranges; then add '0' to every byte.
 * Quotients go to the lower lane, so the most significant digit ends in
 * byte 0, as the little-endian block needs.  The digit count comes from
 * the bit length: t = floor(bits * log10(2)) (1233 / 4096 is close enough
 * for bits <= 64), plus one if v >= 10^t (v | 1, so that 0 has one digit).
 * This is arithmetic on values, so the words are the same on every host,
 * big-endian included.
 *
 * SSE2 version (every x86-64; little-endian): the same splits, 8 groups of
 * 4 digits per 128-bit vector whatever integer they belong to, the digits
 * stored straight into w (see fr_dec_words_block).  On the 2-CPU EPYC
 * (Zen 3) we measure on, hashing an integer and raising its register
 * (hll_int_max) takes 14.5 ns and 179 instructions with it, 18.6 ns and
 * 207 instructions with the SWAR words.
 *
 * Tests: the C self test checks the SWAR words and the batch path against
 * the text for every digit count and the powers of ten +-1, both signs;
 * tests/unit/test_hll_decimal.py checks the batch hashes against hashing
 * str(v).encode() for the same values, the int64 / uint64 extremes and
 * random values.
 */
#ifndef FASTRANK_DECIMAL64_H
#define FASTRANK_DECIMAL64_H

#include <stdint.h>

#include "_murmur64.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define FR_DEC_SSE2 1
#endif

#define FR_DEC_1E8 100000000ULL

/* x < 10^8 -> its 8 ASCII digits, zero padded, as a little-endian word. */
static inline uint64_t fr_dec8_ascii(uint32_t x)
{
    uint64_t v = (uint64_t)(x / 10000) | ((uint64_t)(x % 10000) << 32);   /* 2 x 4 digits */
    uint64_t q = ((v * 5243) >> 19) & 0x0000007f0000007fULL;              /* /100, lanes < 10^4 */
    v = q | ((v - q * 100) << 16);                                          /* 4 x 2 digits */
    q = ((v * 103) >> 10) & 0x000f000f000f000fULL;                          /* /10, lanes < 100 */
    v = q | ((v - q * 10) << 8);                                            /* 8 x 1 digit */
    return v + 0x3030303030303030ULL;
}

/* Number of decimal digits of v (1 for 0). */
static inline unsigned fr_dec_digits(uint64_t v)
{
    static const uint64_t pow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
    };
    unsigned bits;
#if defined(__GNUC__) || defined(__clang__)
    bits = 64 - (unsigned)__builtin_clzll(v | 1);
#else
    bits = 1;
    for (uint64_t t = v >> 1; t; t >>= 1) bits++;
#endif
    unsigned t = (bits * 1233) >> 12;
    return t + ((v | 1) >= pow10[t]);
}

/* Write '-' over the pad '0' just before a text of len bytes ending at
 * S[24] ('0' ^ '-' = 0x1d); nothing when neg is 0. */
static inline void fr_dec_sign(uint64_t w[3], unsigned len, unsigned neg)
{
    unsigned at = 24 - len;
    uint64_t sign = (uint64_t)(neg * 0x1dU) << (8 * (at & 7));
    w[0] ^= at < 8 ? sign : 0;
    w[1] ^= (at >> 3) == 1 ? sign : 0;
    w[2] ^= at >= 16 ? sign : 0;
}

/* The words w[0..2] of S for mag (see the top), '-' included when neg;
 * returns the text length.  Portable version. */
static inline unsigned fr_dec_words_swar(uint64_t mag, unsigned neg, uint64_t w[3])
{
    uint64_t q = mag / FR_DEC_1E8, a = q / FR_DEC_1E8;
    w[0] = fr_dec8_ascii((uint32_t)a);
    w[1] = fr_dec8_ascii((uint32_t)(q - a * FR_DEC_1E8));
    w[2] = fr_dec8_ascii((uint32_t)(mag - q * FR_DEC_1E8));
    unsigned len = fr_dec_digits(mag) + neg;
    fr_dec_sign(w, len, neg);
    return len;
}

/* The words and digit counts (no sign) of m <= FR_DEC_BLOCK magnitudes:
 * w[j] and len[j] as fr_dec_words_swar(mag[j], 0, w[j]) gives them.  w
 * must have room for m + 2 items (the vector stores may write up to 28
 * bytes past item m - 1). */
#define FR_DEC_BLOCK 32

#ifdef FR_DEC_SSE2
/* SSE2 version, in two passes over the block.  Pass 1 (scalar) splits each
 * magnitude into its six 4-digit groups of S (A < 10^4, so its upper group
 * is 0), stored as 16-bit values one item after the other, and counts its
 * digits.  Pass 2 takes the groups 8 at a time, whatever item they belong
 * to, splits them into 2-digit and then 1-digit lanes with pmulhuw by
 * reciprocals (y * 5243 >> 19 = y / 100 for y < 10^4, y * 6554 >> 16 =
 * y / 10 for y < 100) and stores the 32 ASCII digits; in memory they form
 * the S of one item after the other, 24 bytes each, which is w.  (x86 is
 * little-endian, so w[j][k] is S[8k .. 8k+8) read little-endian.) */
static inline void fr_dec_words_block(const uint64_t *mag, size_t m, uint64_t (*w)[3],
                                      unsigned *len)
{
    uint16_t g[FR_DEC_BLOCK * 6 + 8];
    for (size_t j = 0; j < m; j++) {
        uint64_t q = mag[j] / FR_DEC_1E8, a = q / FR_DEC_1E8;
        uint32_t b = (uint32_t)(q - a * FR_DEC_1E8), c = (uint32_t)(mag[j] - q * FR_DEC_1E8);
        uint32_t bh = b / 10000, ch = c / 10000;
        uint16_t *gj = g + 6 * j;
        gj[0] = 0;
        gj[1] = (uint16_t)a;
        gj[2] = (uint16_t)bh;
        gj[3] = (uint16_t)(b - bh * 10000);
        gj[4] = (uint16_t)ch;
        gj[5] = (uint16_t)(c - ch * 10000);
        len[j] = fr_dec_digits(mag[j]);
    }
    size_t groups = 6 * m, vecs = (groups + 7) / 8;
    for (size_t k = groups; k < 8 * vecs; k++) g[k] = 0;

    __m128i k100 = _mm_set1_epi16(100), k10 = _mm_set1_epi16(10);
#if defined(__GNUC__) || defined(__clang__)
    /* Keep the multiplies: compilers expand them into 4-5 shifts and adds. */
    __asm__("" : "+x"(k100), "+x"(k10));
#endif
    __m128i ascii = _mm_set1_epi8('0');
    uint8_t *out = (uint8_t *)w;    /* 24 * m bytes; the last store may pass them */
    for (size_t i = 0; i < vecs; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(g + 8 * i));
        __m128i hi2 = _mm_srli_epi16(_mm_mulhi_epu16(v, _mm_set1_epi16(5243)), 3);
        __m128i lo2 = _mm_sub_epi16(v, _mm_mullo_epi16(hi2, k100));
        __m128i d[2];
        d[0] = _mm_unpacklo_epi16(hi2, lo2);
        d[1] = _mm_unpackhi_epi16(hi2, lo2);
        for (int k = 0; k < 2; k++) {
            __m128i tens = _mm_mulhi_epu16(d[k], _mm_set1_epi16(6554));
            __m128i ones = _mm_sub_epi16(d[k], _mm_mullo_epi16(tens, k10));
            d[k] = _mm_or_si128(_mm_or_si128(tens, _mm_slli_epi16(ones, 8)), ascii);
            _mm_storeu_si128((__m128i *)(out + 32 * i + 16 * k), d[k]);
        }
    }
}
#else
static inline void fr_dec_words_block(const uint64_t *mag, size_t m, uint64_t (*w)[3],
                                      unsigned *len)
{
    for (size_t j = 0; j < m; j++) len[j] = fr_dec_words_swar(mag[j], 0, w[j]);
}
#endif

/* (a >> (64 - 8r)) | (b << 8r) for r in 0..7, without a shift by 64. */
static inline uint64_t fr_dec_funnel(uint64_t a, uint64_t b, unsigned r)
{
    return ((a >> (63 - 8 * r)) >> 1) | (b << (8 * r));
}

/* MurmurHash64A (seed) of the len-byte text that ends S = w[0..2]. */
static inline uint64_t fr_murmur64a_words(const uint64_t w[3], unsigned len, uint64_t seed)
{
    unsigned r = len & 7, nb = len >> 3;
    uint64_t h = seed ^ ((uint64_t)len * FR_MURMUR64A_M);
    if (nb == 2) h = fr_murmur64a_block(h, fr_dec_funnel(w[0], w[1], r));
    if (nb != 0) h = fr_murmur64a_block(h, fr_dec_funnel(w[1], w[2], r));
    if (r) h = (h ^ (w[2] >> (64 - 8 * r))) * FR_MURMUR64A_M;
    return fr_murmur64a_finish(h);
}

#endif /* FASTRANK_DECIMAL64_H */
