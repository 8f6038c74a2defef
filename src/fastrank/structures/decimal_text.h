/* decimal_text.h -- the decimal text of a 64-bit integer, as redis-py sends an
 * int, built with word arithmetic instead of a loop over digits.
 *
 * Every sketch hashes an integer item as its decimal text (PFADD k 5 adds
 * "5", CMS.INCRBY k 5 1 counts "5"), so the numpy batch paths make that
 * text for each integer without a Python object.  Shared by HyperLogLog
 * (decimal_text_hash.h hashes the text in place with MurmurHash64A) and the
 * Count-Min Sketch / Top-K (murmurhash2.h users, MurmurHash2); fr_dec_i64
 * is also every integer reply and argument the Engine formats
 * (fr_zset_format_i64 in zset.c) and a friends entry's player text
 * (leaderboard/_entries.pyx).
 *
 *   v (magnitude, < 2^64) = A * 10^16 + B * 10^8 + C,   A < 1845, B, C < 10^8
 *
 *   S = 24 bytes "AAAAAAAA BBBBBBBB CCCCCCCC" (fr_dec_text_swar): the
 *       digits, zero padded; the text of v is its last fr_dec_digits(v)
 *       bytes.
 *
 * fr_dec8_lanes turns one 8-digit chunk into its 8 digits, one per byte of
 * a 64-bit word, with SWAR arithmetic ("SIMD within a register"): split
 * into two 4-digit halves (32-bit lanes), each into two 2-digit parts
 * (16-bit lanes), each into two digits (8-bit lanes), every split a
 * multiply by a reciprocal and a shift that cannot carry across lanes for
 * these ranges.  Quotients go to the lower lane, so the most significant
 * digit ends in byte 0.  Then:
 *   fr_dec8_ascii   '0' added to every byte: 8 ASCII digits, zero padded,
 *                   stored little-endian (fr_store_le64) so S is the same
 *                   bytes on every host, big-endian included;
 *   fr_dec8_word    the leading zeros dropped: a text of at most 8 bytes
 *                   packed in one word, first byte lowest, with its length
 *                   (short items hashed without a loop, murmurhash2.h users).
 * fr_dec_digits counts digits from the bit length: t = floor((b - 1)
 * log10 2) is the count or one less, whichever v >= 10^t says.
 * fr_dec_u64 / fr_dec_i64 write a whole text into a buffer.
 *
 * Tests: the HLL C self test checks S for every digit count and the powers
 * of ten +-1; tests/unit/structures/test_hll_decimal.py, test_cms.py and the Top-K
 * tests compare the batch hashes with hashing str(v).encode().
 */
#ifndef FASTRANK_DECIMAL_TEXT_H
#define FASTRANK_DECIMAL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FR_DEC_1E8 100000000ULL

/* x < 10^8 -> its 8 digits (0..9), one per byte, the first in byte 0. */
static inline uint64_t fr_dec8_lanes(uint32_t x)
{
    uint64_t v = (uint64_t)(x / 10000) | ((uint64_t)(x % 10000) << 32);   /* 2 x 4 digits */
    uint64_t q = ((v * 5243) >> 19) & 0x0000007f0000007fULL;              /* /100, lanes < 10^4 */
    v = q | ((v - q * 100) << 16);                                          /* 4 x 2 digits */
    q = ((v * 103) >> 10) & 0x000f000f000f000fULL;                          /* /10, lanes < 100 */
    return q | ((v - q * 10) << 8);                                         /* 8 x 1 digit */
}

/* x < 10^8 -> its 8 ASCII digits, zero padded, as a little-endian word. */
static inline uint64_t fr_dec8_ascii(uint32_t x)
{
    return fr_dec8_lanes(x) + 0x3030303030303030ULL;
}

/* The decimal text of v < 10^8 in one word, first byte lowest, the bytes
 * past it zero; its length (1..8) in *len. */
static inline uint64_t fr_dec8_word(uint32_t v, uint32_t *len)
{
    uint64_t x = fr_dec8_lanes(v);
    unsigned zeros;
    /* leading zero digits sit in the low bytes; v == 0 keeps one */
#if defined(__GNUC__) || defined(__clang__)
    zeros = x ? (unsigned)__builtin_ctzll(x) / 8u : 7u;
#else
    for (zeros = 0; zeros < 7 && ((x >> (8 * zeros)) & 0xFF) == 0; zeros++) {
    }
#endif
    *len = 8u - zeros;
    return (x | 0x3030303030303030ULL) >> (8u * zeros);
}

/* Number of decimal digits of v (1 for 0).  From the bit length b:
 * t = floor((b - 1) * log10(2)) is the digit count or one less, whichever
 * v >= 10^t says. */
static inline unsigned fr_dec_digits(uint64_t v)
{
    static const uint64_t pow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
        100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
    };
    /* t_of_top[i] = floor((i + 1) * 1233 / 4096), i = index of the top bit */
    static const uint8_t t_of_top[64] = {
        0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9,
        9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16,
        17, 17, 17, 18, 18, 18, 18, 19,
    };
    unsigned top;
#if defined(__GNUC__) || defined(__clang__)
    top = 63 ^ (unsigned)__builtin_clzll(v | 1);
#else
    top = 0;
    for (uint64_t x = v >> 1; x; x >>= 1) top++;
#endif
    unsigned t = t_of_top[top];
    return t + ((v | 1) >= pow10[t]);
}

/* Store x at p as 8 little-endian bytes (any alignment). */
static inline void fr_store_le64(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, sizeof x);
}

/* mag = a * 10^16 + b * 10^8 + c (a < 1845, b, c < 10^8). */
static inline void fr_dec_abc(uint64_t mag, uint32_t *a, uint32_t *b, uint32_t *c)
{
    uint64_t q = mag / FR_DEC_1E8;
    /* q < 2^38: q / 10^8 = (q >> 8) / 390625 = (q >> 8) * ceil(2^52 / 390625) >> 52,
     * exact below 2^30 (one 64-bit multiply instead of a 128-bit one) */
    uint64_t hi = ((q >> 8) * 11529215047ULL) >> 52;
    *a = (uint32_t)hi;
    *b = (uint32_t)(q - hi * FR_DEC_1E8);
    *c = (uint32_t)(mag - q * FR_DEC_1E8);
}

/* S of mag (24 bytes at s, see the top); returns the digit count. */
static inline unsigned fr_dec_text_swar(uint64_t mag, uint8_t *s)
{
    uint32_t a, b, c;
    fr_dec_abc(mag, &a, &b, &c);
    fr_store_le64(s, fr_dec8_ascii(a));
    fr_store_le64(s + 8, fr_dec8_ascii(b));
    fr_store_le64(s + 16, fr_dec8_ascii(c));
    return fr_dec_digits(mag);
}

/* The text of v (with '-' in front when negative) into buf, which must
 * hold FR_DEC_MAX bytes; not NUL-terminated; the length is returned.  Two
 * digits per division, from a table of digit pairs. */
#define FR_DEC_MAX 21

static inline size_t fr_dec_u64(uint64_t v, int negative, char *buf) {
    static const char pairs[201] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    size_t len = fr_dec_digits(v) + (negative ? 1 : 0);
    char *p = buf + len;
    while (v >= 100u) { /* two digits per division, from the right */
        unsigned d = (unsigned)(v % 100u) * 2u;
        v /= 100u;
        p -= 2;
        p[0] = pairs[d];
        p[1] = pairs[d + 1];
    }
    if (v >= 10u) {
        p -= 2;
        p[0] = pairs[v * 2u];
        p[1] = pairs[v * 2u + 1];
    } else {
        *--p = (char)('0' + (int)v);
    }
    if (negative) buf[0] = '-';
    return len;
}

static inline size_t fr_dec_i64(int64_t v, char *buf) {
    /* magnitude computed in unsigned arithmetic: INT64_MIN is safe */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    return fr_dec_u64(mag, v < 0, buf);
}

#endif /* FASTRANK_DECIMAL_TEXT_H */
