/* topk.c -- HeavyKeeper Top-K, step for step what RedisBloom 2.8 does.
 *
 * THE STRUCTURE
 * HeavyKeeper (Gong et al., "HeavyKeeper: An Accurate Algorithm for Finding
 * Top-k Elephant Flows", USENIX ATC 2018) keeps depth rows of width buckets,
 * each bucket a (fingerprint, count) pair, plus a min-heap of the k items
 * currently believed heaviest.  An item's fingerprint and its bucket in each
 * row come from independent hashes.  A bucket the item owns grows; an empty
 * bucket is taken; a bucket owned by someone else is "decayed": its count
 * drops by one with probability decay^count, so big owners are almost never
 * evicted while small ones are quickly replaced.  The heap is fed with the
 * largest count the item reached in any row.
 *
 * WHAT WE MATCH (RedisBloom 2.8.2, docs/compatibility.md §5)
 *   - fingerprint = MurmurHash2(item, seed 1919); the bucket of row i is
 *     MurmurHash2(item, seed i) mod width (see murmurhash2.h);
 *   - buckets are one row-major array of (fp u32, count u32);
 *   - decay probability for a bucket holding c: lookup[c] for c < 256, where
 *     lookup[j] = pow(decay, j); otherwise lookup[255]^(c div 255) times
 *     lookup[c mod 255] (RedisBloom's approximation, kept as is);
 *   - adding item x with increment n, per row: a free bucket is taken with
 *     count n; an owned bucket adds n; a foreign bucket is decayed up to n
 *     times, and if it reaches 0 on the step where r of the n units remain,
 *     x takes it with count r.  maxCount is the largest count x ended with in
 *     any row (0 if it won none);
 *   - the heap is offered x only if maxCount >= the heap minimum as it was
 *     BEFORE this add.  If x is already in the heap (same fingerprint, length
 *     and bytes) its count is SET to maxCount (it may go down) and it is sifted
 *     down; otherwise x overwrites slot 0 (the minimum, possibly an empty slot
 *     with count 0) and the previous occupant of slot 0 is reported expelled;
 *   - the sift-down is RedisBloom's exact variant (identical heaps need it):
 *     choose the left child unless it is strictly greater than the right; on
 *     the first step stop only if that child is strictly greater than the
 *     start (so a tie swaps); afterwards keep going while the next chosen
 *     child is strictly less than the moving element.  Nothing is ever
 *     sifted up, so after a count goes down the array may break heap order
 *     and "slot 0" is then not the true minimum; RedisBloom answers from
 *     that very array, so we keep it as is;
 *   - LIST is the heap sorted by count, descending, ties in heap-array order
 *     (glibc's qsort is a stable merge sort there), ending at the first
 *     count-0 slot;
 *   - COUNT is the largest count among the rows whose bucket holds x's
 *     fingerprint; when x is in the heap, only buckets with count >= the heap
 *     minimum take part.  QUERY is "x is in the heap", bytes compared.
 *
 * WHERE WE DEPART
 *   - RedisBloom draws its decay coin from libc rand(), seeded by the server
 *     at start and shared with unrelated commands, so its results with
 *     collisions are not reproducible even against itself.  We use our own
 *     xoshiro256** generator (Blackman and Vigna), seeded through splitmix64;
 *     a coin is 32 bits of a draw and a decay step of probability p
 *     succeeds when coin < floor(p * 2^32) -- a 32-bit coin where
 *     RedisBloom's rand() / RAND_MAX has 31 bits.  Every row of an add owns
 *     one coin, drawn in pairs (the two halves of one draw) whether or not
 *     the row decays, so an add with increment 1 always takes ceil(depth/2)
 *     draws and batches can draw coins ahead; only further decay steps
 *     (increment > 1) draw more (see Coins below).  Every decay step still
 *     has a fresh uniform coin, so the decay probability is unchanged.
 *     Hence: whenever no decay step happens (no collisions) or decay == 1
 *     (threshold 2^32: every step decrements; RedisBloom's rand() ==
 *     RAND_MAX exception, probability 2^-31 per step, is not reproduced) our
 *     replies equal RedisBloom's reply for reply; otherwise they agree
 *     statistically only.
 *   - Speed only: hash % width without a division (fr_fastmod); the
 *     thresholds for counts below 256 and the powers of lookup[255] are
 *     tabulated; further decay steps of buckets whose threshold is 0 (from
 *     zero_from on: 211 for decay 0.9) draw no coin, which changes nothing
 *     since no coin could win; batches hash a block of items (the
 *     fingerprint and up to 7 rows in one 8-lane pass, fr_murmur2_seeds8)
 *     before applying them in order, big integer batches remember the hashes
 *     of recent items (topk_memo), on CPUs with AVX2 the rows of an item
 *     with increment 1 are updated together, without branches
 *     (topk_rows_avx2), and big numpy batches may hash on a second thread
 *     while the caller applies (fr_topk_pipe); results are the same on
 *     every path.
 *   - Beyond RedisBloom: fr_topk_merge (two sketches of one shape) and a
 *     batch path over integer items hashed as their decimal text.
 *   - Items are kept with their full bytes.  RedisBloom returns expelled and
 *     listed names as C strings (cut at the first NUL byte); that cut is the
 *     Engine's business, not the core's.
 *
 * SERIALIZED FORM (ours; version 1; all little-endian)
 *
 *    offset  size     field
 *    0       4        magic "FRTK"
 *    4       2        format version (1)
 *    6       2        reserved, 0
 *    8       4        k
 *    12      4        width
 *    16      4        depth
 *    20      4        reserved, 0
 *    24      8        decay (IEEE-754 double bits), 0 < decay <= 1
 *    32      32       generator state, 4 x u64
 *    64      8*w*d    buckets: fp u32, count u32, row-major
 *    ...     k slots  each: fp u32, count u32, len u64 (UINT64_MAX = empty
 *                     slot, then fp = count = 0), then len item bytes
 *
 * fr_topk_deserialize accepts only that exact length and a heap that passes
 * fr_topk_check (distinct items, fingerprints that match, clean empty slots).
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* clock_gettime and pthreads under -std=c99 */
#endif
#include "topk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "murmurhash2.h"

/* The AVX2 rows step (topk_rows_avx2) is built with GCC or Clang for
 * x86-64 and used when the running CPU has AVX2; elsewhere the scalar step
 * (topk_bucket_add) runs, with the same results. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define FR_TOPK_AVX2 1
#include <immintrin.h>
#endif

/* ---- Generator: xoshiro256**, seeded by splitmix64 ---------------------- */

/* splitmix64 (Steele, Lea, Flood): the next of a sequence that spreads a
 * 64-bit seed over the generator state. */
static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* xoshiro256** (Blackman and Vigna, 2018): the next 64 random bits of the
 * generator state s[4] (t->rng, or a copy of it). */
static inline uint64_t topk_rand64(uint64_t *s) {
    uint64_t result = rotl64(s[1] * 5u, 7) * 9u;
    uint64_t tmp = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= tmp;
    s[3] = rotl64(s[3], 45);
    return result;
}

/* Coins.  A decay step with probability p succeeds when its coin, 32
 * uniform bits, is below floor(p * 2^32) (topk_threshold).  An add of an
 * item takes its coins from the generator thus: row i's first decay step
 * uses the item's coin i, where coins 2d and 2d + 1 are the high and low
 * halves of a draw made when row 2d is reached (whether or not either row
 * decays); each further decay step of the row (increment > 1) uses the high
 * half of a new draw.  An add with increment 1 therefore always uses
 * exactly ceil(depth / 2) draws, so batches draw them ahead. */
static inline uint32_t topk_coin(fr_topk *t) { return (uint32_t)(topk_rand64(t->rng) >> 32); }

/* Reset the generator from a 64-bit seed (same seed, same coins). */
void fr_topk_seed(fr_topk *t, uint64_t seed) {
    int i;
    for (i = 0; i < 4; i++) t->rng[i] = splitmix64(&seed);
}

/* ---- Lifetime ------------------------------------------------------------ */

static uint64_t topk_zero_from(const fr_topk *t);
static inline uint64_t topk_threshold(double p);

/* Make t an empty sketch.  Preconditions (checked by the caller, with
 * RedisBloom's messages): k, width, depth >= 1; 0 < decay <= 1.
 * FR_TOPK_ENOMEM if allocation fails (t then owns nothing). */
int fr_topk_init(fr_topk *t, uint32_t k, uint32_t width, uint32_t depth, double decay,
                 uint64_t seed) {
    size_t j;
    memset(t, 0, sizeof *t);
    if ((size_t)width > SIZE_MAX / sizeof(fr_topk_bucket) / depth) return FR_TOPK_ENOMEM;
    t->buckets = (fr_topk_bucket *)calloc((size_t)width * depth, sizeof(fr_topk_bucket));
    t->heap = (fr_topk_slot *)calloc(k, sizeof(fr_topk_slot));
    if (!t->buckets || !t->heap) {
        free(t->buckets);
        free(t->heap);
        memset(t, 0, sizeof *t);
        return FR_TOPK_ENOMEM;
    }
    t->k = k;
    t->width = width;
    t->depth = depth;
    t->decay = decay;
    t->fastmod = fr_fastmod_init(width);
    for (j = 0; j < FR_TOPK_DECAY_TABLE; j++) t->lookup[j] = pow(decay, (double)j);
    for (j = 0; j < FR_TOPK_BIG_TABLE; j++) t->big[j] = pow(t->lookup[255], (double)j);
    for (j = 0; j < FR_TOPK_DECAY_TABLE; j++) t->thr[j] = topk_threshold(t->lookup[j]);
    t->zero_from = topk_zero_from(t);
    fr_topk_seed(t, seed);
    return FR_TOPK_OK;
}

/* Free everything t owns; t becomes an empty shell (safe to release twice). */
void fr_topk_release(fr_topk *t) {
    uint32_t i;
    if (t->heap)
        for (i = 0; i < t->k; i++) free(t->heap[i].item);
    free(t->heap);
    free(t->buckets);
    memset(t, 0, sizeof *t);
}

/* ---- Heap ------------------------------------------------------------ */

/* Slot 0's count: what an add compares its maxCount with (see essay). */
uint32_t fr_topk_heap_min(const fr_topk *t) { return t->heap[0].count; }

/* 1 if heap slot s holds the item (fingerprint, length and bytes). */
static inline int topk_slot_is(const fr_topk_slot *s, const void *item, size_t len, uint32_t fp) {
    const unsigned char *x = s->item, *y = (const unsigned char *)item;
    size_t q = 0;
    if (s->fp != fp || !x || s->len != len) return 0;
    if (len > 16) return memcmp(x, y, len) == 0;
    while (q < len && x[q] == y[q]) q++; /* short items (numbers): no library call */
    return q == len;
}

/* Slot index of the item in the heap, or -1.  Searched from the last slot
 * down, as RedisBloom does (only the result matters: items are unique). */
static long topk_heap_find(const fr_topk *t, const void *item, size_t len, uint32_t fp) {
    long i;
    for (i = (long)t->k - 1; i >= 0; i--)
        if (topk_slot_is(&t->heap[i], item, len, fp)) return i;
    return -1;
}

/* Index of the child of `parent` the sift-down follows: the left one unless it
 * is strictly greater than the right one.  Precondition: a left child exists. */
static inline size_t topk_pick_child(const fr_topk_slot *h, size_t n, size_t parent) {
    size_t child = 2 * parent + 1;
    if (child + 1 < n && h[child].count > h[child + 1].count) child++;
    return child;
}

/* RedisBloom's sift-down from `start` (rules in the essay); the slot where
 * the moving element ends. */
static size_t topk_sift_down(fr_topk_slot *h, size_t n, size_t start) {
    size_t child;
    fr_topk_slot moving;
    if (2 * start + 1 >= n) return start;
    child = topk_pick_child(h, n, start);
    if (h[child].count > h[start].count) return start;
    moving = h[start];
    for (;;) {
        h[start] = h[child];
        start = child;
        if (2 * start + 1 >= n) break;
        child = topk_pick_child(h, n, start);
        if (!(h[child].count < moving.count)) break;
    }
    h[start] = moving;
    return start;
}

/* Put (item, fp, count) into slot s, reusing its buffer when large enough.
 * FR_TOPK_ENOMEM leaves the slot as it was. */
static int topk_slot_store(fr_topk_slot *s, const void *item, size_t len, uint32_t fp,
                           uint32_t count) {
    if (!s->item || s->cap < len || s->cap == 0) {
        size_t cap = len ? len : 1;
        unsigned char *p = (unsigned char *)realloc(s->item, cap);
        if (!p) return FR_TOPK_ENOMEM;
        s->item = p;
        s->cap = cap;
    }
    if (len) memcpy(s->item, item, len);
    s->len = len;
    s->fp = fp;
    s->count = count;
    return FR_TOPK_OK;
}

/* ---- Add --------------------------------------------------------------- */

/* Probability that a foreign bucket holding c is decremented.  For c >= 256
 * the power of lookup[255] comes from a small table of the same pow() values
 * (t->big[q] = pow(lookup[255], q)) while q is below FR_TOPK_BIG_TABLE. */
static inline double topk_decay_prob(const fr_topk *t, uint32_t c) {
    uint32_t q;
    if (c < FR_TOPK_DECAY_TABLE) return t->lookup[c];
    q = c / 255;
    if (q < FR_TOPK_BIG_TABLE) return t->big[q] * t->lookup[c % 255];
    /* pow(x, q) with 0 <= x <= 1 does not grow with q: once the table's
     * last entry is 0, so is every later power. */
    if (t->big[FR_TOPK_BIG_TABLE - 1] == 0.0) return 0.0;
    return pow(t->lookup[255], (double)q) * t->lookup[c % 255];
}

/* floor(p * 2^32): the number of winning coin values out of 2^32. */
static inline uint64_t topk_threshold(double p) { return (uint64_t)(p * 4294967296.0); }

/* Decay threshold for a bucket holding c (see topk_coin). */
static inline uint64_t topk_decay_threshold(const fr_topk *t, uint32_t c) {
    if (c < FR_TOPK_DECAY_TABLE) return t->thr[c];
    return topk_threshold(topk_decay_prob(t, c));
}

/* The smallest bucket count whose threshold is 0 (probability below 2^-32:
 * such buckets never decay and no coin is drawn for them), or 2^32 when
 * there is none in the tabulated range.  Thresholds never grow with the
 * count, so bisection finds it. */
static uint64_t topk_zero_from(const fr_topk *t) {
    uint64_t lo = 0, hi = (uint64_t)FR_TOPK_BIG_TABLE * 255u - 1u;
    if (topk_decay_threshold(t, (uint32_t)hi) != 0) return (uint64_t)1 << 32;
    while (lo < hi) { /* invariant: threshold(hi) == 0 */
        uint64_t mid = lo + (hi - lo) / 2;
        if (topk_decay_threshold(t, (uint32_t)mid) == 0) hi = mid;
        else lo = mid + 1;
    }
    return hi;
}

/* One row's bucket for the item: update it; the count the item now holds
 * there (0 if another item still owns it).  coin is the row's first coin;
 * further decay steps draw theirs (see Coins). */
static inline uint32_t topk_bucket_add(fr_topk *t, fr_topk_bucket *b, uint32_t fp, uint32_t incr,
                                       uint32_t coin) {
    uint32_t r;
    if (b->count == 0) {
        b->fp = fp;
        b->count = incr;
        return incr;
    }
    if (b->fp == fp) {
        b->count += incr; /* 32-bit, as RedisBloom */
        return b->count;
    }
    for (r = incr; r > 0; r--) {
        if (b->count >= t->zero_from) break; /* no coin can win: nothing changes */
        if (r != incr) coin = topk_coin(t);
        if (coin < topk_decay_threshold(t, b->count)) {
            if (--b->count == 0) {
                b->fp = fp;
                b->count = r;
                return r;
            }
        }
    }
    return 0;
}

/* The buckets step for an item; the item's maxCount.  Row i's column is
 * cols[i] when cols is given, else it is hashed from the prepared state st
 * (or from the raw bytes when st is NULL).  Coins are drawn as they come
 * (see Coins). */
static uint32_t topk_update(fr_topk *t, const uint32_t *cols, const fr_murmur2_state *st,
                            const void *item, size_t len, uint32_t fp, uint32_t incr) {
    uint32_t i, max = 0;
    uint64_t pair = 0;
    fr_topk_bucket *row = t->buckets;
    for (i = 0; i < t->depth; i++, row += t->width) {
        uint32_t col, got;
        if (cols) {
            col = cols[i];
        } else {
            uint32_t h = st ? fr_murmur2_seeded(st, i) : fr_murmur2(item, len, i);
            col = fr_fastmod(h, t->fastmod, t->width);
        }
        if ((i & 1) == 0) pair = topk_rand64(t->rng);
        got = topk_bucket_add(t, &row[col], fp, incr, (i & 1) ? (uint32_t)pair : (uint32_t)(pair >> 32));
        if (got > max) max = got;
    }
    return max;
}

/* The heap step (see essay).  When the item replaces a previous occupant of
 * slot 0: if `expelled` is non-NULL the occupant's buffer moves to the caller
 * (*expelled, *expelled_len, free() it) and *has_expelled = 1; if NULL its
 * buffer is reused.  hint (may be NULL): a guess of the item's slot, checked
 * before the search, and set to where the item ends. */
static int topk_offer(fr_topk *t, const void *item, size_t len, uint32_t fp, uint32_t max,
                      uint32_t heap_min, unsigned char **expelled, size_t *expelled_len,
                      int *has_expelled, uint32_t *hint) {
    long at = -1;
    fr_topk_slot *s0 = &t->heap[0];
    size_t end;
    if (max < heap_min) return FR_TOPK_OK;
    if (hint && *hint < t->k && topk_slot_is(&t->heap[*hint], item, len, fp)) at = (long)*hint;
    if (at < 0) at = topk_heap_find(t, item, len, fp);
    if (at >= 0) {
        t->heap[at].count = max;
        end = topk_sift_down(t->heap, t->k, (size_t)at);
        if (hint) *hint = (uint32_t)end;
        return FR_TOPK_OK;
    }
    if (expelled && s0->item) {
        fr_topk_slot fresh;
        memset(&fresh, 0, sizeof fresh);
        if (topk_slot_store(&fresh, item, len, fp, max) != FR_TOPK_OK) return FR_TOPK_ENOMEM;
        *expelled = s0->item;
        *expelled_len = s0->len;
        *has_expelled = 1;
        *s0 = fresh;
    } else if (topk_slot_store(s0, item, len, fp, max) != FR_TOPK_OK) {
        return FR_TOPK_ENOMEM;
    }
    end = topk_sift_down(t->heap, t->k, 0);
    if (hint) *hint = (uint32_t)end;
    return FR_TOPK_OK;
}

/* TOPK.INCRBY item incr (TOPK.ADD is incr 1).  *has_expelled is set to 0, or
 * to 1 with the expelled item's bytes handed over in *expelled (caller frees
 * with free()).  FR_TOPK_ENOMEM: the buckets may have been updated but the
 * heap was not. */
int fr_topk_add(fr_topk *t, const void *item, size_t len, uint32_t incr,
                unsigned char **expelled, size_t *expelled_len, int *has_expelled) {
    fr_murmur2_state st;
    int prepared = fr_murmur2_prepare(&st, item, len);
    uint32_t heap_min = t->heap[0].count;
    uint32_t fp = prepared ? fr_murmur2_seeded(&st, FR_TOPK_FP_SEED)
                           : fr_murmur2(item, len, FR_TOPK_FP_SEED);
    uint32_t max = topk_update(t, NULL, prepared ? &st : NULL, item, len, fp, incr);
    *has_expelled = 0;
    *expelled = NULL;
    *expelled_len = 0;
    return topk_offer(t, item, len, fp, max, heap_min, expelled, expelled_len, has_expelled, NULL);
}

/* ---- Eight rows at once (AVX2) ----------------------------------------
 * For an item with increment 1 and depth <= 8, topk_rows_avx2 does the
 * buckets step of all rows together, one row per 32-bit lane, without a
 * branch on the buckets' states or the coins (those branches are a coin
 * toss for the CPU's predictor): the item's buckets are loaded, split into
 * fingerprints and counts, updated with masks and stored back.  Row i's
 * coin is coins[i] (increment 1: one coin per row, see Coins).  Thresholds
 * come from a 32-bit copy of the table (counts 1..255; with decay < 1 each
 * is below 2^32; decay == 1 always decays). */
#ifdef FR_TOPK_AVX2
#define FR_TOPK_SIMD_MIN 64 /* smaller batches skip the table set-up */

typedef struct {
    uint32_t rows[8];                  /* lane i: i * width (0 beyond depth) */
    uint32_t live[8];                  /* lane i: all ones if i < depth, else 0 */
    uint32_t thr[FR_TOPK_DECAY_TABLE]; /* thr[c] for c >= 1 (c = 0 never decays) */
    uint32_t zf1;                      /* zero_from - 1, at most 2^32 - 1 */
    int always;                        /* decay == 1: every decay step succeeds */
    int wide;                          /* counts >= FR_TOPK_DECAY_TABLE may decay */
} topk_simd;

/* 1 when the running CPU has AVX2. */
static int topk_use_avx2(void) {
    static int has = -1; /* -1: not asked yet (racing threads store the same value) */
    int v = __atomic_load_n(&has, __ATOMIC_RELAXED);
    if (v < 0) {
        v = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&has, v, __ATOMIC_RELAXED);
    }
    return v;
}

/* Set x up for t (depth <= 8, width * depth < 2^31). */
static void topk_simd_init(const fr_topk *t, topk_simd *x) {
    uint32_t c;
    for (c = 0; c < 8; c++) {
        x->live[c] = c < t->depth ? 0xFFFFFFFFu : 0u;
        x->rows[c] = c < t->depth ? c * t->width : 0u;
    }
    x->thr[0] = 0;
    for (c = 1; c < FR_TOPK_DECAY_TABLE; c++)
        x->thr[c] = t->thr[c] > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)t->thr[c];
    x->zf1 = (uint32_t)(t->zero_from - 1u);
    x->always = t->decay == 1.0;
    x->wide = t->zero_from > FR_TOPK_DECAY_TABLE;
}

/* The item's rows (columns cols[0..depth), depth <= 8, eight coins readable
 * at coins) with increment 1.  Returns the item's maxCount, or -1 with
 * nothing changed when a decaying bucket's count is beyond the threshold
 * table (wide sketches only; the caller then takes the scalar step). */
__attribute__((target("avx2"))) static inline int64_t topk_rows_avx2(fr_topk *t, const topk_simd *x,
                                                                 const uint32_t *cols,
                                                                 const uint32_t *coins, uint32_t fp) {
    const __m256i live = _mm256_loadu_si256((const __m256i *)x->live), zero = _mm256_setzero_si256();
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u), fpv = _mm256_set1_epi32((int)fp);
    fr_topk_bucket *const bk = t->buckets;
    __m256i a, b, fps, cnt, same, own, step, thr, dec, nc, take, got, lo, hi;
    uint32_t at[8];
    uint64_t w[8];
    int i;
    /* bucket indexes i * width + cols[i]; 0 in the lanes beyond depth (a
     * harmless load; stored back unchanged, before row 0's lane) */
    _mm256_storeu_si256((__m256i *)at, _mm256_and_si256(
        _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)cols),
                         _mm256_loadu_si256((const __m256i *)x->rows)), live));
    for (i = 0; i < 8; i++) memcpy(&w[i], &bk[at[i]], 8);
    a = _mm256_setr_epi64x((long long)w[0], (long long)w[1], (long long)w[2], (long long)w[3]);
    b = _mm256_setr_epi64x((long long)w[4], (long long)w[5], (long long)w[6], (long long)w[7]);
    /* a bucket read as 64 bits is fp (low half) and count (high half) on x86 */
    fps = _mm256_permute4x64_epi64(
        _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                              _MM_SHUFFLE(2, 0, 2, 0))),
        _MM_SHUFFLE(3, 1, 2, 0));
    cnt = _mm256_permute4x64_epi64(
        _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b),
                                              _MM_SHUFFLE(3, 1, 3, 1))),
        _MM_SHUFFLE(3, 1, 2, 0));
    same = _mm256_and_si256(live, _mm256_cmpeq_epi32(fps, fpv));
    own = _mm256_andnot_si256(_mm256_cmpeq_epi32(cnt, zero), same);
    /* a decay step when 1 <= count < zero_from (unsigned: count - 1 < zf1) */
    step = _mm256_andnot_si256(
        same, _mm256_and_si256(live, _mm256_cmpgt_epi32(
                                         _mm256_xor_si256(_mm256_set1_epi32((int)x->zf1), sign),
                                         _mm256_xor_si256(_mm256_sub_epi32(cnt, _mm256_set1_epi32(1)),
                                                          sign))));
    if (x->wide) {
        __m256i big = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_srli_epi32(cnt, 8), zero), step);
        if (!_mm256_testz_si256(big, big)) return -1;
    }
    /* the step succeeds when coin < thr[count] (unsigned); the thresholds
     * are looked up one by one (faster here than a gather) */
#define FR_TOPK_THR(i) ((int)x->thr[(w[i] >> 32) & (FR_TOPK_DECAY_TABLE - 1)])
    thr = _mm256_setr_epi32(FR_TOPK_THR(0), FR_TOPK_THR(1), FR_TOPK_THR(2), FR_TOPK_THR(3),
                            FR_TOPK_THR(4), FR_TOPK_THR(5), FR_TOPK_THR(6), FR_TOPK_THR(7));
#undef FR_TOPK_THR
    dec = _mm256_cmpgt_epi32(_mm256_xor_si256(thr, sign),
                             _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)coins), sign));
    if (x->always) dec = _mm256_set1_epi32(-1);
    dec = _mm256_and_si256(step, dec);
    /* count + own - dec (masks are -1); 0 means the item takes the bucket
     * (an owned count that wraps to 0 stays so, as in topk_bucket_add) */
    nc = _mm256_add_epi32(_mm256_sub_epi32(cnt, own), dec);
    take = _mm256_andnot_si256(own, _mm256_and_si256(live, _mm256_cmpeq_epi32(nc, zero)));
    nc = _mm256_sub_epi32(nc, take);
    fps = _mm256_blendv_epi8(fps, fpv, take);
    got = _mm256_and_si256(nc, _mm256_or_si256(take, own));
    got = _mm256_max_epu32(got, _mm256_permute2x128_si256(got, got, 1));
    got = _mm256_max_epu32(got, _mm256_shuffle_epi32(got, _MM_SHUFFLE(1, 0, 3, 2)));
    got = _mm256_max_epu32(got, _mm256_shuffle_epi32(got, _MM_SHUFFLE(2, 3, 0, 1)));
    /* back to (fp, count) pairs, in row order */
    lo = _mm256_unpacklo_epi32(fps, nc); /* rows 0 1 | 4 5 */
    hi = _mm256_unpackhi_epi32(fps, nc); /* rows 2 3 | 6 7 */
    _mm256_storeu_si256((__m256i *)w, _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256((__m256i *)(w + 4), _mm256_permute2x128_si256(lo, hi, 0x31));
    for (i = 7; i >= 0; i--) memcpy(&bk[at[i]], &w[i], 8); /* the spare lanes first */
    return (uint32_t)_mm256_cvtsi256_si32(got);
}
#endif

/* ---- Batches -------------------------------------------------------------
 * Items of a batch are integers (int64, or uint64 when is_unsigned, hashed
 * as their decimal text, as redis-py sends ints) or byte strings given as
 * pointer and length arrays; increments are incrs[j], or incr1 for all when
 * incrs is NULL.  Expelled items are dropped.  Items go in blocks: first the
 * fingerprints and bucket columns of the whole block are computed
 * (independent work the CPU overlaps) and, when every increment is 1, the
 * block's coins drawn (ceil(depth / 2) draws per item, see Coins); then the
 * items are applied strictly in order, exactly as fr_topk_add would apply
 * them one by one.  FR_TOPK_ENOMEM stops at the failing item. */
#define FR_TOPK_BLOCK_CELLS 512
#define FR_TOPK_BLOCK_ITEMS 64

typedef struct {
    const char *p; /* the item's bytes: text below, or the caller's string */
    size_t len;
    uint32_t fp;
    char text[FR_DEC_MAX];
} topk_pending;

/* Integer batches remember the fingerprint and bucket columns of recent
 * items (a direct-mapped table keyed by the integer, allocated per call for
 * big batches of shallow sketches), so the heavy items of a skewed stream
 * are hashed once; their decimal text is then written only when the heap
 * needs it.  Results are unchanged. */
#define FR_TOPK_MEMO_BITS 12
#define FR_TOPK_MEMO_MIN 16384
#define FR_TOPK_MEMO_DEPTH 8 /* columns per entry: sketches up to depth 8 */

typedef struct {
    uint64_t keys[(size_t)1 << FR_TOPK_MEMO_BITS];
    uint32_t fps[(size_t)1 << FR_TOPK_MEMO_BITS];
    unsigned char used[(size_t)1 << FR_TOPK_MEMO_BITS];
    uint32_t cols[(size_t)1 << FR_TOPK_MEMO_BITS][FR_TOPK_MEMO_DEPTH];
} topk_memo;

/* A memo for this batch, or NULL (small batch, deep sketch, not integers,
 * or no memory: the batch then hashes every item). */
static topk_memo *topk_memo_new(const fr_topk *t, const void *ints, size_t n) {
    if (!ints || n < FR_TOPK_MEMO_MIN || t->depth > FR_TOPK_MEMO_DEPTH) return NULL;
    return (topk_memo *)calloc(1, sizeof(topk_memo));
}

#if (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) || defined(_M_X64) || \
    defined(_M_IX86) || defined(_M_ARM64)
#define FR_TOPK_LITTLE_ENDIAN 1
#else
#define FR_TOPK_LITTLE_ENDIAN 0
#endif

/* The decimal text of integer item j into m (m->p, m->len), as fr_dec_u64 /
 * fr_dec_i64 write it.  Numbers of up to 8 characters are converted in a
 * register (fr_dec8_word) and stored with one 8-byte write, which the hash's
 * 4-byte reads can then take straight from the store buffer (byte-wise
 * writes make the CPU wait until they reach the cache). */
static inline void topk_int_text(topk_pending *m, const void *ints, int is_unsigned, size_t j) {
    uint64_t v, y;
    int neg = 0;
    uint32_t n;
    if (is_unsigned) {
        v = ((const uint64_t *)ints)[j];
    } else {
        int64_t x = ((const int64_t *)ints)[j];
        neg = x < 0;
        v = neg ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    }
    if (!FR_TOPK_LITTLE_ENDIAN || v >= (neg ? 10000000u : 100000000u)) {
        m->len = is_unsigned ? fr_dec_u64(v, 0, m->text)
                             : fr_dec_i64(((const int64_t *)ints)[j], m->text);
        m->p = m->text;
        return;
    }
    y = fr_dec8_word((uint32_t)v, &n); /* the digits, first in byte 0 */
    if (neg) y = (y << 8) | '-';
    memcpy(m->text, &y, 8); /* byte 0 first: little-endian hosts only */
    m->len = n + (size_t)neg;
    m->p = m->text;
}

#define FR_TOPK_HINTS 64

/* A batch in progress: its items and what every block needs. */
typedef struct {
    const void *ints;
    int is_unsigned;
    const char *const *ptrs;
    const size_t *lens;
    const uint32_t *incrs;
    uint32_t incr1;
    int blocked; /* depth <= FR_TOPK_BLOCK_CELLS: columns computed per block */
    int ahead;   /* every increment is 1: coins drawn per block */
    int text;    /* write every integer's text when preparing (two threads) */
    uint32_t stride; /* coins per item: depth rounded up to even */
    uint32_t seeds8[8];
    topk_memo *memo;
#ifdef FR_TOPK_AVX2
    int avx2;
    topk_simd simd;
#endif
    /* the heap slot where an item with these fingerprint bits was last put
     * (a guess topk_offer checks; the applying side's alone) */
    uint32_t hints[FR_TOPK_HINTS];
} topk_run;

/* Room for the prepared items of one block. */
typedef struct {
    size_t cap;
    topk_pending *meta;
    uint32_t *cols;  /* cap * depth columns, plus slack: memo entries are copied whole */
    uint32_t *coins; /* cap * stride coins, plus slack: they are read eight at a time */
} topk_block;

static void topk_run_init(const fr_topk *t, topk_run *r, const void *ints, int is_unsigned,
                          const char *const *ptrs, const size_t *lens, size_t n,
                          const uint32_t *incrs, uint32_t incr1) {
    uint32_t i;
    memset(r, 0, sizeof *r);
    r->ints = ints;
    r->is_unsigned = is_unsigned;
    r->ptrs = ptrs;
    r->lens = lens;
    r->incrs = incrs;
    r->incr1 = incr1;
    r->blocked = t->depth <= FR_TOPK_BLOCK_CELLS;
    r->ahead = r->blocked && !incrs && incr1 == 1;
    r->stride = t->depth + (t->depth & 1);
    for (i = 0; i < 8; i++) r->seeds8[i] = i < t->depth ? i : FR_TOPK_FP_SEED;
    r->memo = r->blocked ? topk_memo_new(t, ints, n) : NULL;
#ifdef FR_TOPK_AVX2
    r->avx2 = r->ahead && t->depth <= 8 && (uint64_t)t->width * t->depth < ((uint64_t)1 << 31) &&
              n >= FR_TOPK_SIMD_MIN && topk_use_avx2();
    if (r->avx2) topk_simd_init(t, &r->simd);
#endif
}

/* Allocate a block of cap items (FR_TOPK_ENOMEM: nothing is held). */
static int topk_block_new(const fr_topk *t, const topk_run *r, topk_block *blk, size_t cap) {
    blk->cap = cap;
    blk->meta = (topk_pending *)malloc(cap * sizeof *blk->meta);
    blk->cols = r->blocked ? (uint32_t *)calloc(cap * t->depth + FR_TOPK_MEMO_DEPTH, sizeof(uint32_t))
                           : NULL;
    blk->coins = r->ahead ? (uint32_t *)calloc(cap * r->stride + 8, sizeof(uint32_t)) : NULL;
    if (!blk->meta || (r->blocked && !blk->cols) || (r->ahead && !blk->coins)) {
        free(blk->meta);
        free(blk->cols);
        free(blk->coins);
        memset(blk, 0, sizeof *blk);
        return FR_TOPK_ENOMEM;
    }
    return FR_TOPK_OK;
}

static void topk_block_free(topk_block *blk) {
    free(blk->meta);
    free(blk->cols);
    free(blk->coins);
    memset(blk, 0, sizeof *blk);
}

/* Prepare items [j0, end) (at most blk->cap): fingerprints, columns and,
 * when r->ahead, the coins, drawn from the generator state rng (t->rng or
 * a copy).  Uses the memo, not the buckets or the heap. */
static void topk_prepare(const fr_topk *t, topk_run *r, uint64_t *rng, topk_block *blk, size_t j0,
                         size_t end) {
    const uint32_t depth = t->depth, width = t->width;
    uint32_t hashes[FR_TOPK_BLOCK_CELLS], *a = blk->cols, i;
    fr_murmur2_state st;
    topk_memo *memo = r->memo;
    size_t j, b, q;
    for (j = j0, b = 0; j < end; j++, b++) {
        topk_pending *m = &blk->meta[b];
        size_t slot = 0;
        int prepared;
        if (memo) {
            uint64_t key = ((const uint64_t *)r->ints)[j];
            slot = (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - FR_TOPK_MEMO_BITS));
            if (memo->used[slot] && memo->keys[slot] == key) {
                m->fp = memo->fps[slot];
                m->len = 0; /* text written later, if the heap needs it */
                if (r->text) topk_int_text(m, r->ints, r->is_unsigned, j);
                memcpy(a, memo->cols[slot], sizeof memo->cols[slot]);
                a += depth;
                continue;
            }
            memo->used[slot] = 1;
            memo->keys[slot] = key;
        }
        if (r->ints) {
            topk_int_text(m, r->ints, r->is_unsigned, j);
        } else {
            m->p = r->ptrs[j];
            m->len = r->lens[j];
        }
        prepared = fr_murmur2_prepare(&st, m->p, m->len);
        if (prepared && depth < 8) { /* the rows and the fingerprint at once */
            fr_murmur2_seeds8(&st, r->seeds8, hashes);
            m->fp = hashes[depth];
        } else {
            m->fp = prepared ? fr_murmur2_seeded(&st, FR_TOPK_FP_SEED)
                             : fr_murmur2(m->p, m->len, FR_TOPK_FP_SEED);
            if (!r->blocked) continue;
            if (prepared) fr_murmur2_seeds(&st, depth, hashes);
        }
        for (i = 0; i < depth; i++) {
            uint32_t h = prepared ? hashes[i] : fr_murmur2(m->p, m->len, i);
            a[i] = fr_fastmod(h, t->fastmod, width);
        }
        if (memo) {
            memo->fps[slot] = m->fp;
            memcpy(memo->cols[slot], a, depth * sizeof *a);
        }
        a += depth;
    }
    if (r->ahead) {
        for (q = 0; q < (end - j0) * r->stride; q += 2) {
            uint64_t x = topk_rand64(rng);
            blk->coins[q] = (uint32_t)(x >> 32);
            blk->coins[q + 1] = (uint32_t)x;
        }
    }
}

/* Apply the prepared items [j0, end) in order.  Uses the buckets and the
 * heap, and the generator only when coins are not drawn ahead.  Written
 * once, built twice: with avx2 = 1 (compiled for AVX2, so that
 * topk_rows_avx2 is inlined) and with avx2 = 0. */
#if defined(__GNUC__) || defined(__clang__)
#define FR_TOPK_INLINE static inline __attribute__((always_inline))
#else
#define FR_TOPK_INLINE static __forceinline
#endif
FR_TOPK_INLINE int topk_apply_rows(fr_topk *t, topk_run *r, topk_block *blk, size_t j0,
                                   size_t end, const int avx2) {
    const uint32_t depth = t->depth, width = t->width;
    const uint32_t *a = blk->cols;
    size_t j, b;
    uint32_t i;
    for (j = j0, b = 0; j < end; j++, b++) {
        topk_pending *m = &blk->meta[b];
        uint32_t heap_min = t->heap[0].count, max = 0;
        int rc;
        if (!r->blocked) { /* very deep sketches: hashed row by row */
            max = topk_update(t, NULL, NULL, m->p, m->len, m->fp, r->incrs ? r->incrs[j] : r->incr1);
        } else if (r->ahead) {
            const uint32_t *c = blk->coins + b * r->stride;
            int64_t got = -1;
#ifdef FR_TOPK_AVX2
            if (avx2) got = topk_rows_avx2(t, &r->simd, a, c, m->fp);
#else
            (void)avx2;
#endif
            if (got >= 0) {
                max = (uint32_t)got;
            } else {
                fr_topk_bucket *row = t->buckets;
                for (i = 0; i < depth; i++, row += width) {
                    uint32_t g = topk_bucket_add(t, &row[a[i]], m->fp, 1, c[i]);
                    if (g > max) max = g;
                }
            }
        } else {
            max = topk_update(t, a, NULL, NULL, 0, m->fp, r->incrs ? r->incrs[j] : r->incr1);
        }
        if (r->blocked) a += depth;
        if (max < heap_min) continue;
        if (m->len == 0 && r->ints) topk_int_text(m, r->ints, r->is_unsigned, j);
        rc = topk_offer(t, m->p, m->len, m->fp, max, heap_min, NULL, NULL, NULL,
                        &r->hints[m->fp & (FR_TOPK_HINTS - 1)]);
        if (rc != FR_TOPK_OK) return rc;
    }
    return FR_TOPK_OK;
}

static int topk_apply_plain(fr_topk *t, topk_run *r, topk_block *blk, size_t j0,
                            size_t end) {
    return topk_apply_rows(t, r, blk, j0, end, 0);
}

#ifdef FR_TOPK_AVX2
__attribute__((target("avx2"))) static int topk_apply_avx2(fr_topk *t, topk_run *r,
                                                            topk_block *blk, size_t j0, size_t end) {
    return topk_apply_rows(t, r, blk, j0, end, 1);
}
#endif

static int topk_apply(fr_topk *t, topk_run *r, topk_block *blk, size_t j0, size_t end) {
#ifdef FR_TOPK_AVX2
    if (r->avx2) return topk_apply_avx2(t, r, blk, j0, end);
#endif
    return topk_apply_plain(t, r, blk, j0, end);
}

/* The batch worker behind fr_topk_add_ints / fr_topk_add_strs. */
static int topk_batch(fr_topk *t, const void *ints, int is_unsigned, const char *const *ptrs,
                      const size_t *lens, size_t n, const uint32_t *incrs, uint32_t incr1) {
    topk_run r;
    topk_block blk;
    size_t cap, j0;
    int rc;
    topk_run_init(t, &r, ints, is_unsigned, ptrs, lens, n, incrs, incr1);
    cap = r.blocked ? FR_TOPK_BLOCK_CELLS / t->depth : 1;
    if (cap > FR_TOPK_BLOCK_ITEMS) cap = FR_TOPK_BLOCK_ITEMS;
    rc = topk_block_new(t, &r, &blk, cap);
    for (j0 = 0; j0 < n && rc == FR_TOPK_OK; j0 += cap) {
        size_t end = j0 + cap < n ? j0 + cap : n;
        topk_prepare(t, &r, t->rng, &blk, j0, end);
        rc = topk_apply(t, &r, &blk, j0, end);
    }
    topk_block_free(&blk);
    free(r.memo);
    return rc;
}

/* Add n integer items (see the batch notes above). */
int fr_topk_add_ints(fr_topk *t, const void *items, int is_unsigned, size_t n,
                     const uint32_t *incrs, uint32_t incr1) {
    return topk_batch(t, items, is_unsigned, NULL, NULL, n, incrs, incr1);
}

/* Add n byte strings items[j][0..lens[j]) (see the batch notes above). */
int fr_topk_add_strs(fr_topk *t, const char *const *items, const size_t *lens, size_t n,
                     const uint32_t *incrs, uint32_t incr1) {
    return topk_batch(t, NULL, 0, items, lens, n, incrs, incr1);
}

/* ---- Two threads -------------------------------------------------------
 * A batch whose increments are all 1 can run on two threads: a helper
 * prepares chunks of items (topk_prepare: hashing, memo, coins) while the
 * caller applies the chunks before (topk_apply: buckets and heap), strictly
 * in order.  That is topk_batch's work split by what it touches -- the
 * helper owns the memo and a copy of the generator, written back after its
 * last chunk; the caller owns the buckets and the heap -- so the results
 * are exactly the one-thread results.  Chunks pass through a ring of
 * FR_TOPK_PIPE_SLOTS blocks, each with a flag (0: the helper may fill it,
 * 1: prepared) read and written with acquire/release atomics; a side that
 * must wait spins briefly, then sleeps on a condition variable.  A busy
 * machine may not give both threads a CPU: a caller that keeps waiting
 * stops the helper and goes on alone (fr_topk_pipe_consume).  Built with
 * GCC or Clang on POSIX systems; elsewhere fr_topk_pipe_new returns NULL
 * and batches run on one thread. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#include <pthread.h>
#include <time.h>

#define FR_TOPK_PIPE_SLOTS 4
#define FR_TOPK_PIPE_CHUNK 2048 /* items */

struct fr_topk_pipe {
    fr_topk *t;
    size_t n;
    topk_run run;
    uint64_t rng[4]; /* the helper's copy of the generator */
    topk_block blk[FR_TOPK_PIPE_SLOTS];
    int full[FR_TOPK_PIPE_SLOTS];
    int started, go, stop, done;
    int prepared; /* chunks the helper has prepared */
    pthread_mutex_t mu; /* with cv: sleeping on a flag */
    pthread_cond_t cv;
};

/* Set *flag = v and wake whoever sleeps on the pipe's flags. */
static void topk_pipe_set(fr_topk_pipe *p, int *flag, int v) {
    __atomic_store_n(flag, v, __ATOMIC_RELEASE);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Wait until *flag == want (return 1) or, when stoppable, p->stop is set
 * (return 0). */
static int topk_pipe_wait(fr_topk_pipe *p, const int *flag, int want, int stoppable) {
    int spins, ok;
    for (spins = 0; spins < 4096; spins++) {
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == want) return 1;
        if (stoppable && __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) return 0;
    }
    pthread_mutex_lock(&p->mu);
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want &&
           !(stoppable && __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)))
        pthread_cond_wait(&p->cv, &p->mu);
    ok = __atomic_load_n(flag, __ATOMIC_ACQUIRE) == want;
    pthread_mutex_unlock(&p->mu);
    return ok;
}

static double topk_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A two-thread run of fr_topk_add_ints / fr_topk_add_strs with every
 * increment 1 (arguments as there), or NULL (not built here, or no memory:
 * run the batch on one thread).  Protocol: the helper thread calls
 * fr_topk_pipe_produce; the caller calls fr_topk_pipe_wait_started (it may
 * release the GIL meanwhile), then -- holding whatever lock keeps others off
 * t -- fr_topk_pipe_consume, waits for the helper to return, and frees the
 * pipe.  The helper touches t only between those two calls. */
fr_topk_pipe *fr_topk_pipe_new(fr_topk *t, const void *ints, int is_unsigned,
                               const char *const *ptrs, const size_t *lens, size_t n) {
    fr_topk_pipe *p = (fr_topk_pipe *)calloc(1, sizeof *p);
    int i;
    if (!p) return NULL;
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    p->t = t;
    p->n = n;
    topk_run_init(t, &p->run, ints, is_unsigned, ptrs, lens, n, NULL, 1);
    p->run.text = 1; /* the helper has time to spare */
    if (!p->run.ahead) { /* very deep sketch */
        fr_topk_pipe_free(p);
        return NULL;
    }
    for (i = 0; i < FR_TOPK_PIPE_SLOTS; i++) {
        if (topk_block_new(t, &p->run, &p->blk[i], FR_TOPK_PIPE_CHUNK) != FR_TOPK_OK) {
            fr_topk_pipe_free(p);
            return NULL;
        }
    }
    return p;
}

void fr_topk_pipe_free(fr_topk_pipe *p) {
    int i;
    if (!p) return;
    for (i = 0; i < FR_TOPK_PIPE_SLOTS; i++) topk_block_free(&p->blk[i]);
    free(p->run.memo);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* The helper thread's part.  Asked to stop, it finishes the chunk in hand,
 * hands the generator back (t->rng) and sets done. */
void fr_topk_pipe_produce(fr_topk_pipe *p) {
    size_t j0;
    unsigned c;
    topk_pipe_set(p, &p->started, 1);
    topk_pipe_wait(p, &p->go, 1, 0);
    memcpy(p->rng, p->t->rng, sizeof p->rng);
    for (j0 = 0, c = 0; j0 < p->n; j0 += FR_TOPK_PIPE_CHUNK, c = (c + 1) % FR_TOPK_PIPE_SLOTS) {
        size_t end = j0 + FR_TOPK_PIPE_CHUNK < p->n ? j0 + FR_TOPK_PIPE_CHUNK : p->n;
        if (!topk_pipe_wait(p, &p->full[c], 0, 1) || __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
            break;
        topk_prepare(p->t, &p->run, p->rng, &p->blk[c], j0, end);
        __atomic_store_n(&p->prepared, __atomic_load_n(&p->prepared, __ATOMIC_RELAXED) + 1,
                         __ATOMIC_RELEASE);
        topk_pipe_set(p, &p->full[c], 1);
    }
    memcpy(p->t->rng, p->rng, sizeof p->rng);
    topk_pipe_set(p, &p->done, 1);
}

/* The caller's wait for the helper to be running (and not touching t). */
void fr_topk_pipe_wait_started(fr_topk_pipe *p) { topk_pipe_wait(p, &p->started, 1, 0); }

/* The caller's part: apply every chunk in order.  When it has spent more
 * than a quarter of its time (and over a millisecond) waiting for the
 * helper -- a machine too busy to run both threads -- it stops the helper
 * and prepares the remaining chunks itself, as one thread would.
 * FR_TOPK_ENOMEM stops at the failing item. */
int fr_topk_pipe_consume(fr_topk_pipe *p) {
    size_t j0;
    unsigned c;
    int rc = FR_TOPK_OK, k, helper = 1;
    double start = topk_now(), waited = 0.0;
    topk_pipe_set(p, &p->go, 1);
    for (j0 = 0, c = 0, k = 0; j0 < p->n;
         j0 += FR_TOPK_PIPE_CHUNK, c = (c + 1) % FR_TOPK_PIPE_SLOTS, k++) {
        size_t end = j0 + FR_TOPK_PIPE_CHUNK < p->n ? j0 + FR_TOPK_PIPE_CHUNK : p->n;
        if (helper && !__atomic_load_n(&p->full[c], __ATOMIC_ACQUIRE)) {
            double t0 = topk_now();
            if (waited > 1e-3 && waited > 0.25 * (t0 - start)) { /* go on alone */
                topk_pipe_set(p, &p->stop, 1);
                topk_pipe_wait(p, &p->done, 1, 0); /* t->rng is then the helper's */
                helper = 0;
                p->run.text = 0;
            } else {
                topk_pipe_wait(p, &p->full[c], 1, 0);
                waited += topk_now() - t0;
            }
        }
        if (!helper && k >= __atomic_load_n(&p->prepared, __ATOMIC_ACQUIRE))
            topk_prepare(p->t, &p->run, p->t->rng, &p->blk[c], j0, end);
        rc = topk_apply(p->t, &p->run, &p->blk[c], j0, end);
        if (rc != FR_TOPK_OK) break;
        if (helper) topk_pipe_set(p, &p->full[c], 0);
    }
    if (helper) { /* let the helper finish (it hands the generator back) */
        topk_pipe_set(p, &p->stop, 1);
        topk_pipe_wait(p, &p->done, 1, 0);
    }
    return rc;
}
#else
fr_topk_pipe *fr_topk_pipe_new(fr_topk *t, const void *ints, int is_unsigned,
                               const char *const *ptrs, const size_t *lens, size_t n) {
    (void)t, (void)ints, (void)is_unsigned, (void)ptrs, (void)lens, (void)n;
    return NULL;
}
void fr_topk_pipe_free(fr_topk_pipe *p) { (void)p; }
void fr_topk_pipe_produce(fr_topk_pipe *p) { (void)p; }
void fr_topk_pipe_wait_started(fr_topk_pipe *p) { (void)p; }
int fr_topk_pipe_consume(fr_topk_pipe *p) { (void)p; return FR_TOPK_OK; }
#endif

/* ---- Reads ------------------------------------------------------------- */

/* 1 if the item is in the heap (TOPK.QUERY), else 0. */
int fr_topk_query(const fr_topk *t, const void *item, size_t len) {
    return topk_heap_find(t, item, len, fr_murmur2(item, len, FR_TOPK_FP_SEED)) >= 0;
}

/* TOPK.COUNT: the largest count among rows whose bucket holds the item's
 * fingerprint; for an item in the heap only counts >= the heap minimum. */
uint32_t fr_topk_count(const fr_topk *t, const void *item, size_t len) {
    uint32_t fp = fr_murmur2(item, len, FR_TOPK_FP_SEED), i, max = 0;
    int in_heap = topk_heap_find(t, item, len, fp) >= 0;
    uint32_t heap_min = t->heap[0].count;
    for (i = 0; i < t->depth; i++) {
        uint32_t h = fr_murmur2(item, len, i);
        const fr_topk_bucket *b = &t->buckets[(size_t)i * t->width + fr_fastmod(h, t->fastmod, t->width)];
        if (b->fp != fp) continue;
        if (in_heap && b->count < heap_min) continue;
        if (b->count > max) max = b->count;
    }
    return max;
}

/* TOPK.LIST: write into order[0..n) the heap slots by count descending, ties
 * in slot order, stopping before the first count-0 slot; return n.  order
 * must hold 2 * k entries (the second half is merge-sort scratch). */
size_t fr_topk_list(const fr_topk *t, uint32_t *order) {
    uint32_t *a = order, *b = order + t->k, *tmp;
    size_t n = t->k, width, i;
    for (i = 0; i < n; i++) a[i] = (uint32_t)i;
    /* bottom-up merge sort: stable, O(k log k) */
    for (width = 1; width < n; width *= 2) {
        size_t lo;
        for (lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi)
                b[o++] = t->heap[a[y]].count > t->heap[a[x]].count ? a[y++] : a[x++];
            while (x < mid) b[o++] = a[x++];
            while (y < hi) b[o++] = a[y++];
        }
        tmp = a;
        a = b;
        b = tmp;
    }
    if (a != order) memcpy(order, a, n * sizeof *order);
    for (i = 0; i < n; i++)
        if (t->heap[order[i]].count == 0) break;
    return i;
}

/* ---- Merge (beyond RedisBloom) ------------------------------------------- */

/* A merge candidate: an item of either heap with its combined estimate. */
typedef struct {
    const fr_topk_slot *slot;
    uint64_t est;
    size_t order; /* discovery order: dst's slots first, then src's */
} topk_candidate;

/* The item's count in t: its heap count if present, else its COUNT estimate. */
static uint64_t topk_estimate(const fr_topk *t, const fr_topk_slot *s) {
    long at = topk_heap_find(t, s->item, s->len, s->fp);
    if (at >= 0) return t->heap[at].count;
    return fr_topk_count(t, s->item, s->len);
}

static int topk_candidate_cmp(const void *pa, const void *pb) {
    const topk_candidate *a = (const topk_candidate *)pa, *b = (const topk_candidate *)pb;
    if (a->est != b->est) return a->est > b->est ? -1 : 1;
    return a->order < b->order ? -1 : (a->order > b->order);
}

/* Merge src into dst (same k, width, depth and decay, else FR_TOPK_ESHAPE).
 * Buckets: equal fingerprints add; a free bucket takes the other; two owners
 * cancel, the larger keeping the difference.  Heap: every item of either heap
 * is re-estimated as its count in dst plus its count in src (heap count when
 * held, COUNT estimate otherwise); the k largest (ties: dst's items first, in
 * slot order) form the new heap.  dst may be src (counts double).
 * FR_TOPK_ENOMEM leaves dst unchanged. */
int fr_topk_merge(fr_topk *dst, const fr_topk *src) {
    size_t nc = 0, i, cells = (size_t)dst->width * dst->depth, keep;
    topk_candidate *cand;
    fr_topk_slot *heap;
    uint32_t s;
    if (dst->k != src->k || dst->width != src->width || dst->depth != src->depth ||
        dst->decay != src->decay)
        return FR_TOPK_ESHAPE;
    cand = (topk_candidate *)malloc(2 * (size_t)dst->k * sizeof *cand);
    heap = (fr_topk_slot *)calloc(dst->k, sizeof *heap);
    if (!cand || !heap) {
        free(cand);
        free(heap);
        return FR_TOPK_ENOMEM;
    }
    /* 1. candidates and their combined estimates, before anything changes */
    for (s = 0; s < dst->k; s++) {
        const fr_topk_slot *x = &dst->heap[s];
        if (!x->item) continue;
        cand[nc].slot = x;
        cand[nc].est = (uint64_t)x->count + topk_estimate(src, x);
        cand[nc].order = nc;
        nc++;
    }
    for (s = 0; s < src->k; s++) {
        const fr_topk_slot *x = &src->heap[s];
        if (!x->item || topk_heap_find(dst, x->item, x->len, x->fp) >= 0) continue;
        cand[nc].slot = x;
        cand[nc].est = (uint64_t)x->count + fr_topk_count(dst, x->item, x->len);
        cand[nc].order = nc;
        nc++;
    }
    qsort(cand, nc, sizeof *cand, topk_candidate_cmp);
    keep = nc < dst->k ? nc : dst->k;
    /* 2. the new heap, ascending = a valid min-heap (empty slots first) */
    for (i = 0; i < keep; i++) {
        const topk_candidate *c = &cand[keep - 1 - i];
        fr_topk_slot *h = &heap[dst->k - keep + i];
        uint32_t est = c->est > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)c->est;
        if (topk_slot_store(h, c->slot->item, c->slot->len, c->slot->fp, est) != FR_TOPK_OK) {
            for (s = 0; s < dst->k; s++) free(heap[s].item);
            free(heap);
            free(cand);
            return FR_TOPK_ENOMEM;
        }
    }
    free(cand);
    /* 3. buckets (nothing can fail from here on) */
    for (i = 0; i < cells; i++) {
        fr_topk_bucket *a = &dst->buckets[i];
        const fr_topk_bucket b = src->buckets[i];
        if (b.count == 0) continue;
        if (a->count == 0) {
            *a = b;
        } else if (a->fp == b.fp) {
            uint64_t sum = (uint64_t)a->count + b.count;
            a->count = sum > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)sum;
        } else if (b.count > a->count) {
            a->fp = b.fp;
            a->count = b.count - a->count;
        } else {
            a->count -= b.count;
        }
    }
    for (s = 0; s < dst->k; s++) free(dst->heap[s].item);
    free(dst->heap);
    dst->heap = heap;
    return FR_TOPK_OK;
}

/* ---- Checks ---------------------------------------------------------- */

/* 0 if t's invariants hold, -1 otherwise: empty slots have count 0 and no
 * fingerprint, each item's fingerprint is its hash, items are distinct.
 * Min-heap ORDER is deliberately not an invariant: RedisBloom assigns an
 * item's count (it can go down) and never sifts up, so its "heap" can break
 * order, and replies depend on that exact array (verified against 2.8.2). */
int fr_topk_check(const fr_topk *t) {
    size_t i, j;
    for (i = 0; i < t->k; i++) {
        const fr_topk_slot *s = &t->heap[i];
        if (!s->item && (s->count != 0 || s->fp != 0 || s->len != 0)) return -1;
        if (s->item && s->fp != fr_murmur2(s->item, s->len, FR_TOPK_FP_SEED)) return -1;
    }
    for (i = 0; i < t->k; i++) {
        if (!t->heap[i].item) continue;
        for (j = i + 1; j < t->k; j++)
            if (t->heap[j].item && t->heap[j].len == t->heap[i].len &&
                memcmp(t->heap[j].item, t->heap[i].item, t->heap[i].len) == 0)
                return -1;
    }
    return 0;
}

/* ---- Serialized form (layout in the essay above) -------------------------- */

static void tk_put(unsigned char *p, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t tk_get(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    int i;
    for (i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

#define FR_TOPK_HEADER 64
#define FR_TOPK_SLOT_HEADER 16

/* Bytes fr_topk_serialize writes for t. */
size_t fr_topk_serialized_size(const fr_topk *t) {
    size_t n = FR_TOPK_HEADER + 8 * (size_t)t->width * t->depth, i;
    for (i = 0; i < t->k; i++) n += FR_TOPK_SLOT_HEADER + (t->heap[i].item ? t->heap[i].len : 0);
    return n;
}

/* Write fr_topk_serialized_size(t) bytes to out (layout in the essay). */
void fr_topk_serialize(const fr_topk *t, unsigned char *out) {
    size_t i, cells = (size_t)t->width * t->depth;
    uint64_t bits;
    memcpy(out, "FRTK", 4);
    tk_put(out + 4, 1, 2);
    tk_put(out + 6, 0, 2);
    tk_put(out + 8, t->k, 4);
    tk_put(out + 12, t->width, 4);
    tk_put(out + 16, t->depth, 4);
    tk_put(out + 20, 0, 4);
    memcpy(&bits, &t->decay, 8);
    tk_put(out + 24, bits, 8);
    for (i = 0; i < 4; i++) tk_put(out + 32 + 8 * i, t->rng[i], 8);
    out += FR_TOPK_HEADER;
    for (i = 0; i < cells; i++) {
        tk_put(out, t->buckets[i].fp, 4);
        tk_put(out + 4, t->buckets[i].count, 4);
        out += 8;
    }
    for (i = 0; i < t->k; i++) {
        const fr_topk_slot *s = &t->heap[i];
        tk_put(out, s->fp, 4);
        tk_put(out + 4, s->count, 4);
        tk_put(out + 8, s->item ? (uint64_t)s->len : UINT64_MAX, 8);
        out += FR_TOPK_SLOT_HEADER;
        if (s->item && s->len) {
            memcpy(out, s->item, s->len);
            out += s->len;
        }
    }
}

/* t (uninitialised) becomes the serialized sketch; FR_TOPK_EFORMAT for
 * anything but an exact, valid version-1 serialization (t then owns nothing). */
int fr_topk_deserialize(fr_topk *t, const unsigned char *buf, size_t len) {
    uint64_t k, w, d, bits, n;
    double decay;
    size_t i, cells, left;
    const unsigned char *p;
    memset(t, 0, sizeof *t);
    if (len < FR_TOPK_HEADER || memcmp(buf, "FRTK", 4) != 0) return FR_TOPK_EFORMAT;
    if (tk_get(buf + 4, 2) != 1 || tk_get(buf + 6, 2) != 0 || tk_get(buf + 20, 4) != 0)
        return FR_TOPK_EFORMAT;
    k = tk_get(buf + 8, 4);
    w = tk_get(buf + 12, 4);
    d = tk_get(buf + 16, 4);
    bits = tk_get(buf + 24, 8);
    memcpy(&decay, &bits, 8);
    if (k == 0 || w == 0 || d == 0 || !(decay > 0.0 && decay <= 1.0)) return FR_TOPK_EFORMAT;
    cells = (size_t)w * (size_t)d;
    left = len - FR_TOPK_HEADER;
    if (cells > left / 8 || k > (left - 8 * cells) / FR_TOPK_SLOT_HEADER) return FR_TOPK_EFORMAT;
    if (fr_topk_init(t, (uint32_t)k, (uint32_t)w, (uint32_t)d, decay, 0) != FR_TOPK_OK)
        return FR_TOPK_ENOMEM;
    for (i = 0; i < 4; i++) t->rng[i] = tk_get(buf + 32 + 8 * i, 8);
    p = buf + FR_TOPK_HEADER;
    for (i = 0; i < cells; i++) {
        t->buckets[i].fp = (uint32_t)tk_get(p, 4);
        t->buckets[i].count = (uint32_t)tk_get(p + 4, 4);
        p += 8;
    }
    left -= 8 * cells;
    for (i = 0; i < k; i++) {
        fr_topk_slot *s = &t->heap[i];
        if (left < FR_TOPK_SLOT_HEADER) goto bad;
        s->fp = (uint32_t)tk_get(p, 4);
        s->count = (uint32_t)tk_get(p + 4, 4);
        n = tk_get(p + 8, 8);
        p += FR_TOPK_SLOT_HEADER;
        left -= FR_TOPK_SLOT_HEADER;
        if (n == UINT64_MAX) continue;
        if (n > left) goto bad;
        if (topk_slot_store(s, p, (size_t)n, s->fp, s->count) != FR_TOPK_OK) {
            fr_topk_release(t);
            return FR_TOPK_ENOMEM;
        }
        p += n;
        left -= (size_t)n;
    }
    if (left != 0 || fr_topk_check(t) != 0) goto bad;
    return FR_TOPK_OK;
bad:
    fr_topk_release(t);
    return FR_TOPK_EFORMAT;
}
