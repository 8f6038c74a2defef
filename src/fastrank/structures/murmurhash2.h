/* murmurhash2.h -- 32-bit MurmurHash2, as RedisBloom 2.8 hashes CMS and TopK items.
 *
 * MurmurHash2 is Austin Appleby's public-domain hash (2008).  This is our own
 * rendering of the well-known algorithm, not a copy of any particular file.
 * RedisBloom 2.8 uses it with seed = row index (0, 1, 2, ...) to pick a column
 * of each Count-Min / HeavyKeeper row, and with seed 1919 for the TopK
 * fingerprint; see docs/compatibility.md §4.
 *
 *   m = 0x5bd1e995, r = 24, all arithmetic mod 2^32
 *   h = seed ^ len
 *   for each whole 4-byte block k (read LITTLE-ENDIAN, whatever the host):
 *       k *= m; k ^= k >> r; k *= m;  h *= m; h ^= k;
 *   tail (len % 4 bytes t0 t1 t2): h ^= t2 << 16; h ^= t1 << 8; h ^= t0; h *= m
 *   h ^= h >> 13; h *= m; h ^= h >> 15
 *
 * Departures from the classic reference code, on purpose:
 * - Blocks are assembled byte by byte, so the result does not depend on host
 *   endianness and there is no unaligned or type-punned load (no UB).  On
 *   x86-64 and arm64 compilers fuse the four loads into one.
 * - `len` is folded in as a 32-bit value, as the reference does with its
 *   `int len`; items longer than 4 GiB therefore hash as the reference would
 *   on a 64-bit host (truncated length in the seed mix, all bytes hashed).
 *
 * Because the seed enters only in the first step, hashing one item under many
 * seeds can share the block mixing: fr_murmur2_prepare() mixes the blocks once
 * and fr_murmur2_seeded() finishes one seed from the prepared state; the
 * sketches use that split for every item of up to 64 bytes.  fr_murmur2() is
 * the plain one-shot form; a known-answer self test lives in tests/unit/structures/test_cms.py (vectors
 * captured from RedisBloom 2.8.2).
 *
 * A division-free "hash mod width" the sketches share follows the hash; the
 * decimal text of an integer item (what redis-py sends for an int) comes
 * from decimal_text.h.
 */
#ifndef FASTRANK_MURMURHASH2_H
#define FASTRANK_MURMURHASH2_H

#include <stddef.h>
#include <stdint.h>

#include "decimal_text.h"

#define FR_MURMUR2_M 0x5bd1e995u
#define FR_MURMUR2_R 24

/* The largest number of whole blocks fr_murmur2_prepare() keeps; longer items
 * fall back to the one-shot hash per seed. */
#define FR_MURMUR2_MAXBLOCKS 16

static inline uint32_t fr_le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static inline uint32_t fr_murmur2_mixblock(uint32_t k) {
    k *= FR_MURMUR2_M;
    k ^= k >> FR_MURMUR2_R;
    k *= FR_MURMUR2_M;
    return k;
}

static inline uint32_t fr_murmur2_tail(const unsigned char *t, size_t n) {
    uint32_t x = 0;
    switch (n) {
    case 3: x ^= (uint32_t)t[2] << 16; /* fall through */
    case 2: x ^= (uint32_t)t[1] << 8;  /* fall through */
    case 1: x ^= (uint32_t)t[0];
    }
    return x;
}

static inline uint32_t fr_murmur2_final(uint32_t h) {
    h ^= h >> 13;
    h *= FR_MURMUR2_M;
    h ^= h >> 15;
    return h;
}

/* MurmurHash2 of key[0..len) with the given seed.  key may be NULL when
 * len == 0.  Pure function. */
static inline uint32_t fr_murmur2(const void *key, size_t len, uint32_t seed) {
    const unsigned char *p = (const unsigned char *)key;
    uint32_t h = seed ^ (uint32_t)len;
    size_t n = len;
    while (n >= 4) {
        h *= FR_MURMUR2_M;
        h ^= fr_murmur2_mixblock(fr_le32(p));
        p += 4;
        n -= 4;
    }
    if (n) {
        h ^= fr_murmur2_tail(p, n);
        h *= FR_MURMUR2_M;
    }
    return fr_murmur2_final(h);
}

/* An item's seed-independent part: its mixed blocks and tail. */
typedef struct {
    uint32_t len32;                         /* (uint32_t)len */
    uint32_t nblocks;                       /* whole 4-byte blocks */
    uint32_t tail;                          /* tail bytes, already combined */
    uint32_t has_tail;                      /* len % 4 != 0 */
    uint32_t blocks[FR_MURMUR2_MAXBLOCKS];  /* mixed blocks */
} fr_murmur2_state;

/* Fill st for key[0..len).  Returns 1 on success, 0 when the item has more
 * than FR_MURMUR2_MAXBLOCKS blocks (then hash with fr_murmur2 per seed). */
static inline int fr_murmur2_prepare(fr_murmur2_state *st, const void *key, size_t len) {
    const unsigned char *p = (const unsigned char *)key;
    size_t nb = len / 4, i;
    st->len32 = (uint32_t)len;
    if (nb > FR_MURMUR2_MAXBLOCKS) { /* leave a defined (unusable) state */
        st->nblocks = 0;
        st->has_tail = 0;
        st->tail = 0;
        return 0;
    }
    st->nblocks = (uint32_t)nb;
    for (i = 0; i < nb; i++) st->blocks[i] = fr_murmur2_mixblock(fr_le32(p + 4 * i));
    st->has_tail = (len & 3) != 0;
    st->tail = fr_murmur2_tail(p + 4 * nb, len & 3);
    return 1;
}

/* MurmurHash2 of the prepared item under seed; equals fr_murmur2(key, len, seed). */
static inline uint32_t fr_murmur2_seeded(const fr_murmur2_state *st, uint32_t seed) {
    uint32_t h = seed ^ st->len32, i;
    for (i = 0; i < st->nblocks; i++) {
        h *= FR_MURMUR2_M;
        h ^= st->blocks[i];
    }
    if (st->has_tail) {
        h ^= st->tail;
        h *= FR_MURMUR2_M;
    }
    return fr_murmur2_final(h);
}

/* h[i] = fr_murmur2_seeded(st, h[i]) for i in [0, n): the seeds in h are
 * replaced by their hashes, written seed-major so that the compiler can run
 * the seeds side by side (in vector lanes when n is a constant). */
static inline void fr_murmur2_seeds_in_place(const fr_murmur2_state *st, uint32_t n, uint32_t *h) {
    uint32_t i, b;
    for (i = 0; i < n; i++) h[i] ^= st->len32;
    for (b = 0; b < st->nblocks; b++) {
        const uint32_t k = st->blocks[b];
        for (i = 0; i < n; i++) h[i] = (h[i] * FR_MURMUR2_M) ^ k;
    }
    if (st->has_tail) {
        const uint32_t t = st->tail;
        for (i = 0; i < n; i++) h[i] = (h[i] ^ t) * FR_MURMUR2_M;
    }
    for (i = 0; i < n; i++) h[i] = fr_murmur2_final(h[i]);
}

/* out[i] = fr_murmur2_seeded(st, first + i) for i in [0, n). */
static inline void fr_murmur2_seeds_from(const fr_murmur2_state *st, uint32_t first, uint32_t n,
                                         uint32_t *out) {
    uint32_t i;
    for (i = 0; i < n; i++) out[i] = first + i;
    fr_murmur2_seeds_in_place(st, n, out);
}

/* out[i] = fr_murmur2_seeded(st, i) for i in [0, n). */
static inline void fr_murmur2_seeds(const fr_murmur2_state *st, uint32_t n, uint32_t *out) {
    fr_murmur2_seeds_from(st, 0, n, out);
}

/* ---- Hash to column -------------------------------------------------------
 * h mod d for a 32-bit hash and a fixed 32-bit divisor d >= 1, without a
 * division instruction: Lemire, Kaser and Kurz, "Faster remainder by direct
 * computation" (2019).  m = fr_fastmod_init(d) once; then
 * fr_fastmod(h, m, d) == h % d exactly for every 32-bit h.  Compilers
 * without 128-bit integers fall back to %. */
#if defined(__SIZEOF_INT128__)
static inline uint64_t fr_fastmod_init(uint32_t d) { return UINT64_MAX / d + 1u; }
static inline uint32_t fr_fastmod(uint32_t h, uint64_t m, uint32_t d) {
    uint64_t low = m * h;
    return (uint32_t)(((unsigned __int128)low * d) >> 64);
}
#else
static inline uint64_t fr_fastmod_init(uint32_t d) { return d; }
static inline uint32_t fr_fastmod(uint32_t h, uint64_t m, uint32_t d) {
    (void)m;
    return h % d;
}
#endif

/* ---- Short items in one word ----------------------------------------------
 * Items of at most 8 bytes -- the decimal text of most integers -- can be
 * hashed from one 64-bit word holding their bytes little-endian (the first
 * byte lowest, the unused high bytes zero), with no loop and no branch that
 * depends on the length.  fr_dec8_word() (decimal_text.h) writes the decimal
 * text of an integer below 10^8 straight into such a word, and
 * fr_murmur2_word_seeded() equals fr_murmur2() of those bytes under any
 * seed. */

/* A prepared item of 1 to 8 bytes.  Whatever its length, MurmurHash2 of it
 * under seed s is final(((((s ^ len ^ a) * m) ^ b) * c) ^ d) for constants
 * a, b, c, d of the item:
 *     1..3 bytes (tail t):              a = t, b = 0,          c = 1, d = 0
 *     4 bytes (block k0):               a = 0, b = k0,         c = 1, d = 0
 *     5..7 bytes (block k0, tail t):    a = 0, b = k0 ^ t,     c = m, d = 0
 *     8 bytes (blocks k0, k1):          a = 0, b = k0,         c = m, d = k1
 * (k0, k1 mixed as in the loop; t the tail bytes as one little-endian value),
 * so every seed costs three multiplies and no branch. */
typedef struct {
    uint32_t len32, a, b, c, d;
} fr_murmur2_word;

/* Prepare the len (1..8) bytes packed in w (bytes past len must be zero). */
static inline void fr_murmur2_word_prepare(fr_murmur2_word *s, uint64_t w, uint32_t len) {
    /* masks, not branches: lengths mix unpredictably in a stream */
    const uint32_t nb = len >> 2, lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
    const uint32_t has0 = 0u - (uint32_t)(nb != 0);          /* a block k0 */
    const uint32_t only1 = 0u - (uint32_t)(nb == 1);         /* hi is the tail, or 0 */
    const uint32_t two = 0u - (uint32_t)(nb == 2);           /* a block k1 */
    const uint32_t mul2 = two | (only1 & (0u - (uint32_t)((len & 3u) != 0)));
    s->len32 = len;
    s->a = lo & ~has0;
    s->b = (fr_murmur2_mixblock(lo) ^ (hi & only1)) & has0;
    s->c = 1u + ((FR_MURMUR2_M - 1u) & mul2);
    s->d = fr_murmur2_mixblock(hi) & two;
}

/* fr_murmur2() of the prepared bytes under seed. */
static inline uint32_t fr_murmur2_word_seeded(const fr_murmur2_word *s, uint32_t seed) {
    uint32_t h = (((seed ^ s->len32 ^ s->a) * FR_MURMUR2_M) ^ s->b) * s->c;
    return fr_murmur2_final(h ^ s->d);
}

/* ---- Eight seeds at once (added for the TopK batch) ----------------------
 * out[i] = fr_murmur2_seeded(st, seeds[i]) for i in [0, 8).  A fixed count
 * of eight lanes lets the compiler keep them in vector registers (a Top-K
 * item needs depth row seeds plus its fingerprint seed: eight for the usual
 * depth 7); unused lanes cost nothing extra. */
static inline void fr_murmur2_seeds8(const fr_murmur2_state *st, const uint32_t seeds[8],
                                     uint32_t out[8]) {
    int i;
    for (i = 0; i < 8; i++) out[i] = seeds[i];
    fr_murmur2_seeds_in_place(st, 8, out);
}

#endif /* FASTRANK_MURMURHASH2_H */
