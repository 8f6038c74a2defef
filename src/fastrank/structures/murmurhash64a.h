/* murmurhash64a.h -- MurmurHash64A, the 64-bit hash Redis 7.0 feeds its
 * HyperLogLog with.
 *
 * MurmurHash64A is Austin Appleby's public-domain hash (MurmurHash2 family,
 * 64-bit variant for 64-bit hosts).  This is our own rendering of the
 * published algorithm.  Redis hashes every PFADD element with it, seed
 * 0xadc83b19, and reads the 8-byte blocks little-endian on every host, so
 * the same element lands in the same register on x86-64, arm64 and s390x.
 * docs/compatibility.md §1 states the algorithm; the known-answer vectors are
 * tests/vectors/hll-vectors.json -> element_hash_vectors (checked by
 * tests/unit/structures/test_hll_vectors.py and by the C self test).
 *
 *   all arithmetic is mod 2^64,  m = 0xc6a4a7935bd1e995,  r = 47
 *
 *   h = seed ^ (len * m)
 *
 *   key bytes:  | b0 b1 b2 b3 b4 b5 b6 b7 | b8 ... b15 | ... | t0 .. t(k-1) |
 *               '------ block 0 ----------'-- block 1 -'     '-- tail, k<8 -'
 *
 *   each block, read as k = b0 | b1<<8 | ... | b7<<56 (little-endian):
 *       k *= m;  k ^= k >> r;  k *= m;  h ^= k;  h *= m
 *   tail (only when k > 0):  h ^= t_i << 8i for every tail byte;  h *= m
 *   finish:  h ^= h >> r;  h *= m;  h ^= h >> r
 *
 * Departures from the classic reference code, on purpose:
 * - Blocks are loaded with memcpy and byte-swapped on big-endian hosts, so
 *   there is no unaligned or type-punned load (no UB under -fsanitize) and
 *   the result never depends on the host.  Compilers turn the memcpy into a
 *   single load on x86-64 and arm64.
 * - The length is a size_t.  Redis passes an int; the two agree for every
 *   length a Redis string can have (at most 512 MB).
 *
 * fr_murmur64a_block / fr_murmur64a_finish are the two steps above, exposed
 * for decimal_text_hash.h, which builds the blocks of an integer's decimal text in
 * registers instead of reading them from memory.
 *
 * Names: fr_murmur64a*.  (The CMS/TopK 32-bit MurmurHash2 lives in murmurhash2.h
 * under fr_murmur2*; the two headers do not depend on each other.)
 */
#ifndef FASTRANK_MURMURHASH64A_H
#define FASTRANK_MURMURHASH64A_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FR_MURMUR64A_HLL_SEED 0xadc83b19ULL

/* Load 8 bytes at p as a little-endian unsigned 64-bit integer.
 * p may have any alignment. */
static inline uint64_t fr_load_le64(const uint8_t *p)
{
    uint64_t k;
    memcpy(&k, p, sizeof k);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    k = __builtin_bswap64(k);
#endif
    return k;
}

/* The per-block step and the finish, shared with the integer hashing of
 * decimal_text_hash.h. */
#define FR_MURMUR64A_M 0xc6a4a7935bd1e995ULL
#define FR_MURMUR64A_R 47

static inline uint64_t fr_murmur64a_block(uint64_t h, uint64_t k)
{
    k *= FR_MURMUR64A_M;
    k ^= k >> FR_MURMUR64A_R;
    k *= FR_MURMUR64A_M;
    h ^= k;
    return h * FR_MURMUR64A_M;
}

static inline uint64_t fr_murmur64a_finish(uint64_t h)
{
    h ^= h >> FR_MURMUR64A_R;
    h *= FR_MURMUR64A_M;
    return h ^ (h >> FR_MURMUR64A_R);
}

/* MurmurHash64A of the len bytes at key with the given seed.
 * key may be NULL when len is 0.  Pure function, no allocation. */
static inline uint64_t fr_murmur64a(const void *key, size_t len, uint64_t seed)
{
    const uint8_t *data = (const uint8_t *)key;
    const uint8_t *blocks_end = data + (len & ~(size_t)7);
    uint64_t h = seed ^ ((uint64_t)len * FR_MURMUR64A_M);

    while (data != blocks_end) {
        h = fr_murmur64a_block(h, fr_load_le64(data));
        data += 8;
    }
    switch (len & 7) {
    case 7: h ^= (uint64_t)data[6] << 48; /* fall through */
    case 6: h ^= (uint64_t)data[5] << 40; /* fall through */
    case 5: h ^= (uint64_t)data[4] << 32; /* fall through */
    case 4: h ^= (uint64_t)data[3] << 24; /* fall through */
    case 3: h ^= (uint64_t)data[2] << 16; /* fall through */
    case 2: h ^= (uint64_t)data[1] << 8;  /* fall through */
    case 1: h ^= (uint64_t)data[0];
            h *= FR_MURMUR64A_M;
    }
    return fr_murmur64a_finish(h);
}

#endif /* FASTRANK_MURMURHASH64A_H */
