/* decimal_text_hash.h -- MurmurHash64A of the decimal text of 64-bit integers,
 * a block of integers at a time.
 *
 * redis-py sends a Python int as its decimal text (PFADD k 5 adds "5"), so
 * HyperLogLog.add_many on a numpy integer array must hash exactly those
 * bytes.  Formatting each text with a per-digit (or digit-pair table) loop
 * and then hashing it is most of the cost; here the digits are produced
 * eight or more at a time and the hash reads whole 8-byte blocks.
 *
 *   v (magnitude, < 2^64) = A * 10^16 + B * 10^8 + C,   A < 1845, B, C < 10^8
 *
 *   S = 24 bytes "AAAAAAAA BBBBBBBB CCCCCCCC": the digits, zero padded.
 *       The text of v is its last `digits` bytes; for a negative int64 the
 *       pad '0' just before them stands for the '-' (digits <= 19 then).
 *
 *   fr_murmur64a_dec_text hashes the text in place: with len = digits +
 *   sign, r = len % 8 and nb = len / 8 (0, 1 or 2), the blocks are the
 *   8-byte little-endian loads at S + 24 - len (+ 8), the tail the load
 *   after them masked to its r bytes, and the '-' is XORed into the first
 *   of those words ('0' ^ '-' = 0x1d).  No byte is copied or shifted.
 *
 * fr_dec_text_block writes S for up to FR_DEC_BLOCK magnitudes, one after
 * the other, so that a batch runs each stage as a short loop over a block
 * (hll.c): the iterations are independent and the CPU overlaps several
 * integers.
 *
 * Portable version (fr_dec_text_swar, decimal_text.h, per integer): each
 * 8-digit chunk of S with SWAR arithmetic on one 64-bit word, no table and
 * no per-digit loop.
 *
 * SSE2 version (every x86-64): the same splits, 8 groups of 4 digits per
 * 128-bit vector whatever integer they belong to (see fr_dec_text_block);
 * it takes fewer instructions per integer than the SWAR version
 * (bench/results/core-measurements.md, "HyperLogLog integer hashing").
 *
 * AVX2 version: decimal_text_hash_avx2.h, the same hashes four integers per
 * vector without writing any text, used when the CPU has AVX2.
 *
 * Tests: the C self test checks the SWAR text and the batch path against
 * the text for every digit count and the powers of ten +-1, both signs;
 * tests/unit/structures/test_hll_decimal.py checks the batch hashes against hashing
 * str(v).encode() for the same values, the int64 / uint64 extremes and
 * random values.
 */
#ifndef FASTRANK_DECIMAL_TEXT_HASH_H
#define FASTRANK_DECIMAL_TEXT_HASH_H

#include <stdint.h>
#include <string.h>

#include "decimal_text.h"
#include "murmurhash64a.h"

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define FR_DEC_SSE2 1
#endif

/* Texts of a block: item j's S at s + FR_DEC_S * j.  A buffer for m items
 * needs FR_DEC_BUF(m) bytes: the vector stores may run 28 bytes past the
 * last S and the hash reads up to 8 bytes past an S. */
#define FR_DEC_BLOCK 64
#define FR_DEC_S 24
#define FR_DEC_BUF(m) (FR_DEC_S * (m) + 32)

/* S and digit count of m <= FR_DEC_BLOCK magnitudes, into s (FR_DEC_BUF(m)
 * bytes; the 32 after the last S are written too) and len. */
#ifdef FR_DEC_SSE2
/* SSE2 version, in two passes over the block.  Pass 1 (scalar) splits each
 * magnitude into its six 4-digit groups of S (A < 10^4, so its upper group
 * is 0), stored as 16-bit values one item after the other, and counts its
 * digits.  Pass 2 takes the groups 8 at a time, whatever item they belong
 * to, splits them into 2-digit and then 1-digit lanes with pmulhuw by
 * reciprocals (y * 5243 >> 19 = y / 100 for y < 10^4, y * 6554 >> 16 =
 * y / 10 for y < 100) and stores the 32 ASCII digits: in memory they form
 * the S of one item after the other. */
static inline void fr_dec_text_block(const uint64_t *mag, size_t m, uint8_t *s, unsigned *len)
{
    uint16_t g[FR_DEC_BLOCK * 6 + 8];
    for (size_t j = 0; j < m; j++) {
        uint32_t a, b, c;
        fr_dec_abc(mag[j], &a, &b, &c);
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
            _mm_storeu_si128((__m128i *)(s + 32 * i + 16 * k), d[k]);
        }
    }
    memset(s + 32 * vecs, 0, FR_DEC_BUF(m) - 32 * vecs);
}
#else
static inline void fr_dec_text_block(const uint64_t *mag, size_t m, uint8_t *s, unsigned *len)
{
    for (size_t j = 0; j < m; j++) len[j] = fr_dec_text_swar(mag[j], s + FR_DEC_S * j);
    memset(s + FR_DEC_S * m, 0, 32);
}
#endif

/* MurmurHash64A (seed) of the text that ends the S at s: its last digits
 * bytes, with '-' in front when neg (over the pad '0' there: '0' ^ '-' =
 * 0x1d).  The blocks are read straight from memory at their offsets, the
 * tail masked; up to 8 bytes after S are read. */
static inline uint64_t fr_murmur64a_dec_text(const uint8_t *s, unsigned digits, unsigned neg,
                                             uint64_t seed)
{
    unsigned len = digits + neg, r = len & 7, nb = len >> 3;
    const uint8_t *t = s + FR_DEC_S - len;
    uint64_t sign = (uint64_t)neg * 0x1d;
    uint64_t h = seed ^ ((uint64_t)len * FR_MURMUR64A_M);
    if (nb) {
        h = fr_murmur64a_block(h, fr_load_le64(t) ^ sign);
        sign = 0;
        if (nb == 2) h = fr_murmur64a_block(h, fr_load_le64(t + 8));
    }
    if (r) {
        uint64_t tail = (fr_load_le64(t + 8 * nb) ^ sign) & (~(uint64_t)0 >> (64 - 8 * r));
        h = (h ^ tail) * FR_MURMUR64A_M;
    }
    return fr_murmur64a_finish(h);
}

#endif /* FASTRANK_DECIMAL_TEXT_HASH_H */
