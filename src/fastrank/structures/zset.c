/* zset.c -- skip list with rank spans and a member index, for fastrank.
 *
 * WHAT IT IS
 * ----------
 * A sorted set maps binary-string members to double scores and keeps them in
 * (score, member) order: ascending score, ties by member bytes compared
 * unsigned, memcmp style, the shorter of two members with a common prefix
 * first.  Two structures share the nodes:
 *
 *   1. A skip list (W. Pugh, "Skip Lists: A Probabilistic Alternative to
 *      Balanced Trees", CACM 1990) in the variant Redis uses in t_zset.c:
 *      p = 1/4, at most 32 levels, a backward pointer on every node for
 *      reverse walks, and a SPAN on every forward link -- the number of
 *      level-0 steps the link jumps over.  Summing spans along a search path
 *      gives a node's rank, so rank, node-at-rank and rank ranges are
 *      O(log n) like every other search.
 *   2. A hash index from member bytes to node (open addressing, linear
 *      probing), so score lookups are O(1) and an update finds its node
 *      without a search.
 *
 * WHERE IT DEPARTS FROM REDIS (all for memory and cache misses)
 * ------------------------------------------------------------
 *   - Nodes live in one arena per set and are named by 32-bit offsets
 *     (fr_zset_ref, in 8-byte units; see the byte diagram in zset.h).  Links,
 *     backward pointers and index slots are 4 bytes instead of 8, and there
 *     is no per-node malloc header.  Freed nodes go to a free list per size
 *     (in units) and are reused by the next node of the same size; when the
 *     live nodes fill less than a quarter of a big arena, fr_zset_shrink moves
 *     them into a fresh arena of their size (see "COMPACTION").  Growing
 *     the arena may move it, so a node pointer is only used between
 *     allocations; a compaction also renames every node (new refs).
 *   - The member is stored inline after the links (one cache line holds a
 *     typical node), the score is inside the node, and there is no separate
 *     dict entry or sds string, so a member costs well under half of what
 *     Redis spends on it (figures: bench/results/core-measurements.md,
 *     "Sorted set").
 *   - The level-0 span is always 1 and is not stored.
 *   - Index slots are 64 bits: the high 32 bits of the member's hash (the
 *     "tag") and the node's ref.  The home slot is derived from the tag
 *     (fastrange: tag * nslots >> 32), so a slot is probed, resized and
 *     deleted (backward-shift deletion, no tombstones) without touching its
 *     node, and a probe only dereferences nodes whose tag matches: a lookup
 *     costs about one miss for the slot and one for the node.  The table
 *     grows by 1.5x at load 0.8 and shrinks below load 0.125; its size need
 *     not be a power of two.
 *   - Levels come from the set's own splitmix64 generator with a fixed seed
 *     (reproducible structure, no libc rand()): level = 1 + (trailing zero
 *     bits of a 64-bit draw) / 2, i.e. P(level > k) = 4^-k, capped at 32.
 *     The hash seed is per set and not predictable from outside (it mixes
 *     the set's address), which blunts precomputed collision floods.
 *   - Updating a score keeps the node in place when it still sits between
 *     its neighbours (checked through backward/forward, no search); else
 *     ONE descent with two cursors finds the old and the new place (Redis
 *     searches twice), and the node is unlinked and relinked, never
 *     reallocated (fr_zset_move).
 *   - A write that links a node learns its rank on the way (the spans its
 *     descent summed) and leaves it as the set's RANK HINT: (node, rank,
 *     version).  fr_zset_rank answers from the hint while the version is
 *     unchanged -- every change to the list bumps it; a score changed in
 *     place keeps it, as no rank changes -- so the rank read that usually
 *     follows a write ("add my points, then tell me my place") costs no
 *     second descent.  One hint per set, 24 bytes.
 *   - The arena and the index, once past 4 MiB, are mmap'd 2 MiB-aligned
 *     with MADV_HUGEPAGE on Linux (see fr_zset_big_alloc): a descent's ~30
 *     random node reads otherwise also miss the TLB.  The arena is trimmed
 *     to its exact size after a bulk load.
 *   - A fresh node never lets its HOT part (score, links, spans: all a
 *     search reads unless scores tie) straddle a 64-byte cache line: when
 *     it would, a PAD chunk (1..7 units, tagged with a NaN pattern no score
 *     can have) fills the rest of the line first (fr_zset_pad_units).  Without
 *     it a good share of the nodes a descent visits cost two lines, the
 *     second one not covered by the descent's prefetch.  The padding cuts
 *     cache misses per rank and pays off at 10M members for a few bytes per
 *     member (cachegrind and wall-time figures: core-measurements.md, "Line
 *     padding").
 *   - Batch lookups (fr_zset_find_batch, fr_zset_rank_batch,
 *     fr_zset_count_below_batch; the numpy paths rank_many / score_many, the
 *     leaderboard's friends) run up to FR_ZSET_BATCH = 16 independent
 *     searches in lock step, each prefetching the node it reads next, so
 *     16 cache misses are in flight instead of one.  One descent is a
 *     chain of ~30 dependent misses that no layout removes; overlapping
 *     chains is what a batch can do (rank_many / score_many figures:
 *     core-measurements.md, "Batch lookups").
 *   - incr_many (fr_zset_incr_batch) cannot overlap its updates -- each one
 *     changes the list the next one searches -- so it first WARMS a block:
 *     finds the members as above, prefetches their neighbours and walks
 *     the paths to every old and new key in lock step without writing;
 *     then applies the increments in order, mostly from cache.  A stale
 *     warm-up only costs time, never correctness (figures:
 *     core-measurements.md, "incr_many warm-up").
 *   - Bulk load (fr_zset_bulk_*): members are written into nodes without
 *     linking; at the end all nodes are sorted (LSD radix sort on the score
 *     bits and a 4-byte member prefix, merge sort for the remaining ties)
 *     and the whole list is rebuilt in one left-to-right pass that tracks
 *     the last node of every level.  O(n) passes with no search per member.
 *     When the new members all sort after the current tail (a board loaded
 *     in ascending chunks), only they are sorted, and they are linked after
 *     the list's right edge: O(m log m + log n), the old nodes untouched.
 *
 * TRIED AND DROPPED: caching the top 32 bits of the next node's score in
 * every link above level 0 (so a search need not touch the nodes it looks
 * past) barely cut L1 misses in cachegrind (core-measurements.md, "Dropped:
 * key cache in links"), for +2 bytes per member and more instructions: a
 * p = 1/4 search's node reads are mostly moves, not look-pasts.
 *
 * MEASURED, NOT BUILT: an "express lane" -- the links, spans and score of
 * every node of level >= 2 copied into a separate compact array, so a
 * search touches the node arena only on level 0.  A read-only prototype
 * (rank only, built after a bulk load) in cachegrind: with the records in
 * allocation order it misses MORE than the nodes, because the bottom of
 * the search now reads two structures; only with the records grouped by
 * level (tallest first, which a dynamic version would need one pool per
 * level for) does it win, and only modestly (core-measurements.md,
 * "Measured, not built: express lane"); for ~+4 bytes per member and a
 * second copy of every tall node's links to keep in step.  Not worth its
 * complexity next to the line padding above.
 *
 * INVARIANTS (verified by fr_zset_check)
 * ---------------------------------
 *   - level-0 order is strictly increasing in (score, member); no score is
 *     NaN (refused by the caller, a NaN incr result by fr_zset_incr).  Scores
 *     are stored as given, -0.0 included (it compares equal to +0.0, so
 *     the order is unaffected; callers that want Redis's listpack
 *     behaviour normalise it themselves);
 *   - backward pointers mirror level-0 links; tail is the last node;
 *   - a node of level L is on exactly the lists 0..L-1; no list above the
 *     set's level is used and the top list is non-empty (unless empty set);
 *   - span(x, i) = rank(x.fwd[i]) - rank(x), or length - rank(x) for NIL;
 *   - the index holds exactly the linked nodes, each under its hash tag;
 *   - while hint_version == version, node hint_ref has rank hint_rank.
 *
 * Sections: helpers; arena; hash index; span bookkeeping; searches; point
 * operations; batch lookups; ranges; bulk load; life cycle; checker.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mmap, mremap, madvise(MADV_HUGEPAGE) under -std=c99 */
#endif
#include "zset.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define FR_ZSET_ARENA_MAX ((uint64_t)UINT32_MAX) /* refs are 32-bit */
/* The backward link of a node a bulk load added and has not linked yet: no
 * node starts at the arena's last unit, so no ref has this value. */
#define FR_ZSET_UNLINKED ((fr_zset_ref)UINT32_MAX)

/* ======================================================================
 * Helpers
 * ====================================================================== */

/* memcmp order with the shorter of two equal prefixes first; <0, 0, >0.
 * Inline, eight (or four) bytes at a time (members are short: a call of the library's
 * memcmp costs more than the comparison itself on a skip-list descent). */
static inline uint64_t fr_zset_load_be64(const char *p)
{
    uint64_t v;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__)
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
#else
    int i;
    for (v = 0, i = 0; i < 8; i++)
        v = v << 8 | (unsigned char)p[i];
#endif
    return v;
}

static inline uint64_t fr_zset_load_be32(const char *p)
{
    uint32_t v;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__)
    memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
#else
    int i;
    for (v = 0, i = 0; i < 4; i++)
        v = v << 8 | (unsigned char)p[i];
#endif
    return v;
}

static inline int fr_zset_memcmp(const char *a, size_t la, const char *b, size_t lb)
{
    size_t n = la < lb ? la : lb, i = 0;
    uint64_t x, y;
    if (n >= 8) {
        for (; i + 8 <= n; i += 8) {
            x = fr_zset_load_be64(a + i);
            y = fr_zset_load_be64(b + i);
            if (x != y)
                return x < y ? -1 : 1;
        }
        if (i < n) {  /* the last 8 bytes (overlapping bytes already compared equal) */
            x = fr_zset_load_be64(a + n - 8);
            y = fr_zset_load_be64(b + n - 8);
            if (x != y)
                return x < y ? -1 : 1;
        }
    } else if (n >= 4) {  /* the first four bytes, then the last four */
        x = fr_zset_load_be32(a);
        y = fr_zset_load_be32(b);
        if (x == y) {
            x = fr_zset_load_be32(a + n - 4);
            y = fr_zset_load_be32(b + n - 4);
        }
        if (x != y)
            return x < y ? -1 : 1;
    } else {
        for (; i < n; i++) {
            if (a[i] != b[i])
                return (unsigned char)a[i] < (unsigned char)b[i] ? -1 : 1;
        }
    }
    return (la > lb) - (la < lb);
}

/* Compare node n with the key (score, m): <0 when n sorts first. */
static inline int fr_zset_cmp_key(const fr_zset_node *n, double score, const char *m, size_t len)
{
    if (n->score < score)
        return -1;
    if (n->score > score)
        return 1;
    size_t nl;
    const char *nm = fr_zset_node_member(n, &nl);
    return fr_zset_memcmp(nm, nl, m, len);
}

/* splitmix64 step: the level generator (deterministic per set). */
static inline uint64_t fr_zset_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Number of trailing zero bits of a non-zero word. */
static inline int fr_zset_ctz64(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* A random level in 1..32 with P(level > k) = 4^-k. */
static int fr_zset_random_level(fr_zset *s)
{
    uint64_t r = fr_zset_rng_next(&s->rng);
    int lvl = 1 + (r ? fr_zset_ctz64(r) : 64) / 2;
    return lvl > FR_ZSET_MAXLEVEL ? FR_ZSET_MAXLEVEL : lvl;
}

/* Formats v in decimal into buf (>= 20 bytes, not terminated); the length. */
int fr_zset_format_u64(uint64_t v, char *buf)
{
    char tmp[20];
    int n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    return n;
}

/* Formats v in decimal into buf (>= 21 bytes, not terminated); the length. */
int fr_zset_format_i64(int64_t v, char *buf)
{
    if (v < 0) {
        buf[0] = '-';
        return 1 + fr_zset_format_u64(0 - (uint64_t)v, buf + 1);
    }
    return fr_zset_format_u64((uint64_t)v, buf);
}

/* 64x64 -> 128 multiply folded to 64 bits (low ^ high). */
static inline void fr_zset_mum(uint64_t *a, uint64_t *b)
{
#if defined(__SIZEOF_INT128__)
    __uint128_t r = (__uint128_t)*a * *b;
    *a = (uint64_t)r;
    *b = (uint64_t)(r >> 64);
#else
    uint64_t ha = *a >> 32, hb = *b >> 32, la = (uint32_t)*a, lb = (uint32_t)*b;
    uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
    uint64_t t = rl + (rm0 << 32), c = t < rl, lo = t + (rm1 << 32);
    c += lo < t;
    *a = lo;
    *b = rh + (rm0 >> 32) + (rm1 >> 32) + c;
#endif
}

static inline uint64_t fr_zset_mix(uint64_t a, uint64_t b)
{
    fr_zset_mum(&a, &b);
    return a ^ b;
}

static inline uint64_t fr_zset_r8(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t fr_zset_r4(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Hash of a byte string: wyhash's construction (public domain, Wang Yi),
 * reduced to what short members need.  Host byte order, so values differ
 * between big- and little-endian hosts; they are never stored. */
uint64_t fr_zset_hash(const void *key, size_t len, uint64_t seed)
{
    static const uint64_t s0 = 0xa0761d6478bd642fULL, s1 = 0xe7037ed1a0b428dbULL;
    const unsigned char *p = (const unsigned char *)key;
    uint64_t a, b;
    seed ^= fr_zset_mix(seed ^ s0, s1);
    if (len <= 16) {
        if (len >= 4) {
            size_t q = (len >> 3) << 2;
            a = (fr_zset_r4(p) << 32) | fr_zset_r4(p + q);
            b = (fr_zset_r4(p + len - 4) << 32) | fr_zset_r4(p + len - 4 - q);
        } else if (len > 0) {
            a = ((uint64_t)p[0] << 16) | ((uint64_t)p[len >> 1] << 8) | p[len - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        size_t i = len;
        while (i > 16) {
            seed = fr_zset_mix(fr_zset_r8(p) ^ s1, fr_zset_r8(p + 8) ^ seed);
            p += 16;
            i -= 16;
        }
        a = fr_zset_r8(p + i - 16);
        b = fr_zset_r8(p + i - 8);
    }
    a ^= s1;
    b ^= seed;
    fr_zset_mum(&a, &b);
    return fr_zset_mix(a ^ s0 ^ (uint64_t)len, b ^ s1);
}

/* ======================================================================
 * Arena: node storage
 * ====================================================================== */

/* Big buffers (the arena and the index once they pass 4 MiB) are mapped
 * directly on Linux, aligned to 2 MiB and marked MADV_HUGEPAGE, because THP
 * is often "madvise" only: a descent touches ~log4(n) random nodes and
 * without huge pages most of them also miss the TLB, which costs as much
 * again (more under virtualisation).  Growth tries mremap in place, else
 * maps anew and copies.  Elsewhere, and for small buffers, malloc. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE)
#define FR_ZSET_MMAP 1
#else
#define FR_ZSET_MMAP 0
#endif
#define FR_ZSET_HUGE ((size_t)2 << 20)
#define FR_ZSET_BIG_MIN ((size_t)4 << 20)

/* Bytes really held for a buffer of len bytes. */
static inline size_t fr_zset_big_size(size_t len)
{
    if (FR_ZSET_MMAP && len >= FR_ZSET_BIG_MIN)
        return (len + FR_ZSET_HUGE - 1) & ~(FR_ZSET_HUGE - 1);
    return len;
}

/* A buffer of len bytes (zeroed when zero is set), or NULL. */
static void *fr_zset_big_alloc(size_t len, int zero)
{
#if FR_ZSET_MMAP
    if (len >= FR_ZSET_BIG_MIN) {
        size_t used = fr_zset_big_size(len), maplen = used + FR_ZSET_HUGE, head;
        char *p = (char *)mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                               -1, 0);
        char *a;
        if (p == MAP_FAILED)
            return NULL;
        a = (char *)(((uintptr_t)p + FR_ZSET_HUGE - 1) & ~(uintptr_t)(FR_ZSET_HUGE - 1));
        head = (size_t)(a - p);
        if (head)
            munmap(p, head);
        if (maplen - head - used)
            munmap(a + used, maplen - head - used);
        (void)madvise(a, used, MADV_HUGEPAGE);
        return a; /* anonymous maps are zeroed */
    }
#endif
    return zero ? calloc(1, len) : malloc(len);
}

/* Frees a buffer of len bytes from fr_zset_big_alloc / fr_zset_big_realloc. */
static void fr_zset_big_free(void *p, size_t len)
{
    if (!p)
        return;
#if FR_ZSET_MMAP
    if (len >= FR_ZSET_BIG_MIN) {
        munmap(p, fr_zset_big_size(len));
        return;
    }
#endif
    free(p);
}

/* Resizes a buffer from oldlen to newlen bytes, keeping the contents;
 * NULL (and p untouched) when out of memory. */
static void *fr_zset_big_realloc(void *p, size_t oldlen, size_t newlen)
{
    void *q;
#if FR_ZSET_MMAP
    if (oldlen < FR_ZSET_BIG_MIN && newlen < FR_ZSET_BIG_MIN)
        return realloc(p, newlen);
    if (oldlen >= FR_ZSET_BIG_MIN && newlen >= FR_ZSET_BIG_MIN) {
        size_t o = fr_zset_big_size(oldlen), n = fr_zset_big_size(newlen);
        if (n == o)
            return p;
        q = mremap(p, o, n, 0); /* in place: keeps the 2 MiB alignment */
        if (q != MAP_FAILED) {
            if (n > o)
                (void)madvise((char *)q + o, n - o, MADV_HUGEPAGE);
            return q;
        }
    }
    q = fr_zset_big_alloc(newlen, 0);
    if (!q)
        return NULL;
    memcpy(q, p, oldlen < newlen ? oldlen : newlen);
    fr_zset_big_free(p, oldlen);
    return q;
#else
    (void)oldlen;
    q = realloc(p, newlen);
    return q;
#endif
}

/* Byte offset of the member inside a node of the given level. */
static inline size_t fr_zset_member_offset(unsigned level)
{
    return sizeof(fr_zset_node) + 4u * (2u * level - 1u);
}

/* Size in units of a node of this level holding a member of len bytes. */
static inline unsigned fr_zset_units_for(unsigned level, size_t len)
{
    size_t stored = len <= FR_ZSET_INLINE_MAX ? len : sizeof(fr_zset_ext);
    return (unsigned)((fr_zset_member_offset(level) + stored + 7) / 8);
}

/* A PAD chunk fills the end of a cache line that a fresh node's hot part
 * would otherwise straddle (see fr_zset_node_alloc).  It is 1..7 units long and
 * its first 8 bytes hold FR_ZSET_PAD_TAG | length: a NaN pattern, which no node
 * score (first 8 bytes of every other chunk) can be.  Pads are never reused;
 * only the arena walkers see them, through the two helpers below. */
#define FR_ZSET_PAD_TAG 0x7ff4adadadad0000ULL
#define FR_ZSET_LINE_UNITS 8u /* 64-byte cache line */

/* The first word of chunk u (score bits, or a pad's tag). */
static inline uint64_t fr_zset_chunk_word(const fr_zset *s, uint64_t u)
{
    uint64_t w;
    memcpy(&w, s->arena + (u << 3), 8);
    return w;
}

/* Size in units of the chunk at unit u (node, free chunk or pad). */
static inline uint64_t fr_zset_chunk_units(const fr_zset *s, uint64_t u)
{
    uint64_t w = fr_zset_chunk_word(s, u);
    if ((w & ~(uint64_t)0xffff) == FR_ZSET_PAD_TAG)
        return w & 0xffff;
    return FR_ZSET_N(s, u)->units;
}

/* True when the chunk at unit u is a linked (or bulk-loaded) node. */
static inline int fr_zset_chunk_live(const fr_zset *s, uint64_t u)
{
    uint64_t w = fr_zset_chunk_word(s, u);
    return (w & ~(uint64_t)0xffff) != FR_ZSET_PAD_TAG && FR_ZSET_N(s, u)->level != 0;
}

/* Units of padding to put at the top before a fresh node of this level so
 * that its HOT part -- score, links and spans, all a search reads unless
 * scores tie -- sits in one cache line (or, when longer than a line, starts
 * one).  Offsets are taken from the arena start, which is 2 MiB-aligned
 * once the arena is big (fr_zset_big_alloc); a small malloc'd arena is cache
 * resident anyway. */
static inline unsigned fr_zset_pad_units(const fr_zset *s, unsigned level)
{
    unsigned hot = (unsigned)(fr_zset_member_offset(level) + 7) / 8;
    unsigned off = (unsigned)(s->top % FR_ZSET_LINE_UNITS);
    if (off == 0 || off + hot <= FR_ZSET_LINE_UNITS)
        return 0;
    return FR_ZSET_LINE_UNITS - off;
}

/* Hints the CPU to start loading node r (FR_ZSET_NIL is ignored).  Descents
 * prefetch the level-below successor while they test the current one, so
 * the miss of whichever is taken next overlaps with the current one. */
static inline void fr_zset_prefetch(const fr_zset *s, fr_zset_ref r)
{
#if defined(__GNUC__) || defined(__clang__)
    if (r)
        __builtin_prefetch(FR_ZSET_N(s, r));
#else
    (void)s;
    (void)r;
#endif
}

/* Makes room for `need` more units at the top; may move the arena.
 * 0, or -1 when out of memory or past the 32-bit ref space. */
static int fr_zset_arena_reserve(fr_zset *s, uint64_t need)
{
    uint64_t want = s->top + need, ncap;
    char *a;
    if (want <= s->cap)
        return 0;
    if (want > FR_ZSET_ARENA_MAX || want > SIZE_MAX / 8)
        return -1;
    ncap = s->cap < 4096 ? 2 * s->cap : s->cap + s->cap / 2;
    if (ncap < want)
        ncap = want;
    if (ncap > FR_ZSET_ARENA_MAX)
        ncap = FR_ZSET_ARENA_MAX;
    a = (char *)fr_zset_big_realloc(s->arena, (size_t)s->cap * 8, (size_t)ncap * 8);
    if (!a)
        return -1;
    s->arena = a;
    s->cap = ncap;
    return 0;
}

/* Gives back the arena's unused tail (after a bulk load, whose size is
 * known); failure to shrink is harmless. */
static void fr_zset_arena_trim(fr_zset *s)
{
    char *a;
    if (s->cap - s->top < 64)
        return;
    a = (char *)fr_zset_big_realloc(s->arena, (size_t)s->cap * 8, (size_t)s->top * 8);
    if (a) {
        s->arena = a;
        s->cap = s->top;
    }
}

/* Allocates a node of `level` holding a copy of member m (len bytes), links
 * and spans zeroed, score 0.  Returns its ref, or FR_ZSET_NIL when out of memory
 * (nothing changed).  Invalidates node pointers (the arena may move). */
static fr_zset_ref fr_zset_node_alloc(fr_zset *s, int level, const char *m, size_t len)
{
    unsigned units = fr_zset_units_for((unsigned)level, len);
    char *ext = NULL;
    fr_zset_ref r;
    fr_zset_node *n;
    if (len > FR_ZSET_INLINE_MAX) {
        ext = (char *)malloc(len);
        if (!ext)
            return FR_ZSET_NIL;
        memcpy(ext, m, len);
    }
    r = s->freelist[units];
    if (r) {
        s->freelist[units] = FR_ZSET_N(s, r)->backward;
    } else {
        unsigned pad = fr_zset_pad_units(s, (unsigned)level);
        if (fr_zset_arena_reserve(s, pad + units)) {
            free(ext);
            return FR_ZSET_NIL;
        }
        if (pad) {
            uint64_t w = FR_ZSET_PAD_TAG | pad;
            memcpy(s->arena + (s->top << 3), &w, 8);
            s->top += pad;
        }
        r = (fr_zset_ref)s->top;
        s->top += units;
    }
    s->live_units += units;
    n = FR_ZSET_N(s, r);
    n->score = 0.0;
    n->backward = FR_ZSET_NIL;
    n->level = (uint8_t)level;
    n->units = (uint16_t)units;
    memset(n->fwd, 0, 4u * (2u * (unsigned)level - 1u));
    if (ext) {
        fr_zset_ext e = {len, ext};
        n->mlen = FR_ZSET_LONG;
        memcpy((char *)n + fr_zset_member_offset((unsigned)level), &e, sizeof e);
        s->ext_bytes += len;
        s->ext_count++;
    } else {
        n->mlen = (uint8_t)len;
        if (len)
            memcpy((char *)n + fr_zset_member_offset((unsigned)level), m, len);
    }
    return r;
}

/* Returns node r (already unlinked and out of the index) to its free list. */
static void fr_zset_node_free(fr_zset *s, fr_zset_ref r)
{
    fr_zset_node *n = FR_ZSET_N(s, r);
    if (n->mlen == FR_ZSET_LONG) {
        size_t len;
        char *p = (char *)fr_zset_node_member(n, &len);
        free(p);
        s->ext_bytes -= len;
        s->ext_count--;
    }
    n->level = 0;
    n->mlen = 0;
    s->live_units -= n->units;
    n->backward = s->freelist[n->units];
    s->freelist[n->units] = r;
}

/* ======================================================================
 * Hash index
 * ====================================================================== */

/* Home slot of a tag (fastrange: maps 32 bits onto 0..nslots-1). */
static inline uint64_t fr_zset_home(const fr_zset *s, uint32_t tag)
{
    return ((uint64_t)tag * s->nslots) >> 32;
}

/* True when node n holds exactly member m. */
static inline int fr_zset_member_eq(const fr_zset_node *n, const char *m, size_t len)
{
    size_t nl;
    const char *nm = fr_zset_node_member(n, &nl);
    return nl == len && (len == 0 || memcmp(nm, m, len) == 0);
}

/* The node holding member m (whose hash is h), or FR_ZSET_NIL. */
static fr_zset_ref fr_zset_hash_find(const fr_zset *s, const char *m, size_t len, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    uint64_t i = fr_zset_home(s, tag);
    for (;;) {
        uint64_t v = s->slots[i];
        if (!v)
            return FR_ZSET_NIL;
        if ((uint32_t)(v >> 32) == tag && fr_zset_member_eq(FR_ZSET_N(s, (fr_zset_ref)v), m, len))
            return (fr_zset_ref)v;
        if (++i == s->nslots)
            i = 0;
    }
}

/* Moves every entry into a fresh table of n slots (n > hcount).  0 or -1. */
static int fr_zset_hash_resize(fr_zset *s, uint64_t n)
{
    uint64_t *old = s->slots, oldn = s->nslots, j;
    uint64_t *slots = (uint64_t *)fr_zset_big_alloc((size_t)n * sizeof(uint64_t), 1);
    if (!slots)
        return -1;
    s->slots = slots;
    s->nslots = n;
    for (j = 0; j < oldn; j++) {
        uint64_t v = old[j], i;
        if (!v)
            continue;
        i = fr_zset_home(s, (uint32_t)(v >> 32));
        while (slots[i])
            if (++i == n)
                i = 0;
        slots[i] = v;
    }
    fr_zset_big_free(old, (size_t)oldn * sizeof(uint64_t));
    return 0;
}

/* Ensures `count` entries fit under the load limit (0.8).  0 or -1. */
static int fr_zset_hash_reserve(fr_zset *s, uint64_t count)
{
    uint64_t n;
    if (count * 5 <= s->nslots * 4)
        return 0;
    n = s->nslots + s->nslots / 2;
    if (n * 4 < count * 5)
        n = count * 5 / 4 + 1;
    if (n > ((uint64_t)1 << 32))
        n = (uint64_t)1 << 32;
    if (count >= n)
        return -1;
    return fr_zset_hash_resize(s, n);
}

/* Adds node r (hash h) to the index; room must have been reserved. */
static void fr_zset_hash_put(fr_zset *s, fr_zset_ref r, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    uint64_t i = fr_zset_home(s, tag);
    assert(s->hcount < s->nslots);
    while (s->slots[i])
        if (++i == s->nslots)
            i = 0;
    s->slots[i] = ((uint64_t)tag << 32) | r;
    s->hcount++;
}

/* Removes node r (hash h) from the index by backward-shift deletion; may
 * shrink the table (a failed shrink is harmless). */
static void fr_zset_hash_remove(fr_zset *s, fr_zset_ref r, uint64_t h)
{
    uint64_t i = fr_zset_home(s, (uint32_t)(h >> 32)), j;
    while ((fr_zset_ref)s->slots[i] != r) {
        assert(s->slots[i]);
        if (++i == s->nslots)
            i = 0;
    }
    j = i;
    for (;;) {
        uint64_t v, k;
        if (++j == s->nslots)
            j = 0;
        v = s->slots[j];
        if (!v)
            break;
        k = fr_zset_home(s, (uint32_t)(v >> 32));
        /* v stays if its home lies cyclically in (i, j] */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        s->slots[i] = v;
        i = j;
    }
    s->slots[i] = 0;
    s->hcount--;
    if (s->nslots > 64 && s->hcount * 8 < s->nslots)
        (void)fr_zset_hash_resize(s, s->hcount * 2 + 16);
}

/* Hash of node r's member. */
static inline uint64_t fr_zset_node_hash(const fr_zset *s, fr_zset_ref r)
{
    size_t len;
    const char *m = fr_zset_member(s, r, &len);
    return fr_zset_hash(m, len, s->seed);
}

/* ======================================================================
 * Span bookkeeping: the only code that reads or writes spans
 * ====================================================================== */

/* Span of n's level-i link (level 0 is always 1). */
static inline uint32_t fr_zset_span(const fr_zset_node *n, int i)
{
    return i ? n->fwd[n->level + i - 1] : 1u;
}

/* Sets the span of n's level-i link, i >= 1. */
static inline void fr_zset_span_set(fr_zset_node *n, int i, uint32_t v)
{
    assert(i > 0 && i < n->level);
    n->fwd[n->level + i - 1] = v;
}

/* Links detached node x after the path upd[] (ranks rank[]), fixing spans of
 * x and of every level's predecessor, the backward links and the tail.
 * upd/rank cover levels 0..s->level-1, which already includes x's levels. */
static void fr_zset_splice_in(fr_zset *s, fr_zset_ref x, const fr_zset_ref *upd, const uint64_t *rank)
{
    fr_zset_node *xn = FR_ZSET_N(s, x);
    int lvl = xn->level, i;
    for (i = 0; i < lvl; i++) {
        fr_zset_node *u = FR_ZSET_N(s, upd[i]);
        xn->fwd[i] = u->fwd[i];
        u->fwd[i] = x;
        if (i) {
            uint32_t d = (uint32_t)(rank[0] - rank[i]);
            fr_zset_span_set(xn, i, fr_zset_span(u, i) - d);
            fr_zset_span_set(u, i, d + 1);
        }
    }
    for (; i < s->level; i++) {
        fr_zset_node *u = FR_ZSET_N(s, upd[i]);
        fr_zset_span_set(u, i, fr_zset_span(u, i) + 1);
    }
    xn->backward = upd[0] == FR_ZSET_HEAD ? FR_ZSET_NIL : upd[0];
    if (xn->fwd[0])
        FR_ZSET_N(s, xn->fwd[0])->backward = x;
    else
        s->tail = x;
    s->length++;
    s->version++;
}

/* Unlinks node x whose predecessors on every level are upd[]; fixes spans,
 * backward links, tail and the set's level.  x stays allocated. */
static void fr_zset_splice_out(fr_zset *s, fr_zset_ref x, const fr_zset_ref *upd)
{
    fr_zset_node *xn = FR_ZSET_N(s, x), *head;
    int i;
    for (i = 0; i < s->level; i++) {
        fr_zset_node *u = FR_ZSET_N(s, upd[i]);
        if (u->fwd[i] == x) {
            if (i)
                fr_zset_span_set(u, i, fr_zset_span(u, i) + fr_zset_span(xn, i) - 1);
            u->fwd[i] = xn->fwd[i];
        } else if (i) {
            fr_zset_span_set(u, i, fr_zset_span(u, i) - 1);
        }
    }
    if (xn->fwd[0])
        FR_ZSET_N(s, xn->fwd[0])->backward = xn->backward;
    else
        s->tail = xn->backward;
    head = FR_ZSET_N(s, FR_ZSET_HEAD);
    while (s->level > 1 && head->fwd[s->level - 1] == FR_ZSET_NIL)
        s->level--;
    s->length--;
    s->version++;
}

/* Raises the set's level to lvl, giving the header's new links the span of
 * the whole list; upd/rank get the header for those levels. */
static void fr_zset_raise_level(fr_zset *s, int lvl, fr_zset_ref *upd, uint64_t *rank)
{
    fr_zset_node *head = FR_ZSET_N(s, FR_ZSET_HEAD);
    int i;
    for (i = s->level; i < lvl; i++) {
        upd[i] = FR_ZSET_HEAD;
        rank[i] = 0;
        fr_zset_span_set(head, i, (uint32_t)s->length);
    }
    s->level = lvl;
}

/* ======================================================================
 * Searches
 * ====================================================================== */

/* Records that linked node x has 1-based rank `rank` in the list as it is
 * now (after the change that bumped the version). */
static inline void fr_zset_set_hint(fr_zset *s, fr_zset_ref x, uint64_t rank)
{
    s->hint_ref = x;
    s->hint_rank = rank;
    s->hint_version = s->version;
}

/* True when the rank hint holds for linked node x. */
static inline int fr_zset_hint_holds(const fr_zset *s, fr_zset_ref x)
{
    return x == s->hint_ref && s->hint_version == s->version;
}

/* One step of a descent's cursor (*c, its node *cn, its rank *rank) on
 * level i towards the key (score, m): moves it to the next node when that
 * one sorts before the key (prefetching where the level below starts from
 * there); 1 when it moved, 0 when it stays (its place on this level). */
static inline int fr_zset_step(const fr_zset *s, fr_zset_ref *c, const fr_zset_node **cn, uint64_t *rank,
                               int i, double score, const char *m, size_t len)
{
    fr_zset_ref f = (*cn)->fwd[i];
    if (!f || fr_zset_cmp_key(FR_ZSET_N(s, f), score, m, len) >= 0)
        return 0;
    *rank += fr_zset_span(*cn, i);
    *c = f;
    *cn = FR_ZSET_N(s, f);
    if (i)
        fr_zset_prefetch(s, (*cn)->fwd[i - 1]);
    return 1;
}

/* Fills upd[i] with the last node < (score, m) on each level (the header if
 * none) and rank[i] (may be NULL) with its rank (header = 0). */
static void fr_zset_find_path(const fr_zset *s, double score, const char *m, size_t len,
                          fr_zset_ref *upd, uint64_t *rank)
{
    fr_zset_ref x = FR_ZSET_HEAD;
    const fr_zset_node *xn = FR_ZSET_N(s, x);
    uint64_t r = 0;
    int i;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            fr_zset_prefetch(s, xn->fwd[i - 1]);
        while (fr_zset_step(s, &x, &xn, &r, i, score, m, len))
            ;
        upd[i] = x;
        if (rank)
            rank[i] = r;
    }
}

/* Links detached node x (level and score set) at its place in the order. */
static void fr_zset_link(fr_zset *s, fr_zset_ref x)
{
    fr_zset_ref upd[FR_ZSET_MAXLEVEL];
    uint64_t rank[FR_ZSET_MAXLEVEL];
    size_t len;
    const fr_zset_node *xn = FR_ZSET_N(s, x);
    const char *m = fr_zset_node_member(xn, &len);
    fr_zset_find_path(s, xn->score, m, len, upd, rank);
    if (xn->level > s->level)
        fr_zset_raise_level(s, xn->level, upd, rank);
    fr_zset_splice_in(s, x, upd, rank);
    fr_zset_set_hint(s, x, rank[0] + 1);
}

/* Unlinks node x from the list (it stays in the index and allocated). */
static void fr_zset_unlink(fr_zset *s, fr_zset_ref x)
{
    fr_zset_ref upd[FR_ZSET_MAXLEVEL];
    size_t len;
    const fr_zset_node *xn = FR_ZSET_N(s, x);
    const char *m = fr_zset_node_member(xn, &len);
    fr_zset_find_path(s, xn->score, m, len, upd, NULL);
    assert(FR_ZSET_N(s, upd[0])->fwd[0] == x);
    fr_zset_splice_out(s, x, upd);
}

/* 1-based rank of linked node target.  O(log n); O(1) for the node the
 * last write left as the rank hint. */
uint64_t fr_zset_rank(const fr_zset *s, fr_zset_ref target)
{
    const fr_zset_node *tn = FR_ZSET_N(s, target), *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    double score = tn->score;
    size_t len;
    const char *m = fr_zset_node_member(tn, &len);
    uint64_t r = 0;
    fr_zset_ref f;
    int i;
    if (target == s->tail)
        return s->length;
    if (fr_zset_hint_holds(s, target))
        return s->hint_rank;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            fr_zset_prefetch(s, xn->fwd[i - 1]);
        while ((f = xn->fwd[i]) && (f == target || fr_zset_cmp_key(FR_ZSET_N(s, f), score, m, len) < 0)) {
            r += fr_zset_span(xn, i);
            if (f == target)
                return r;
            xn = FR_ZSET_N(s, f);
            if (i)
                fr_zset_prefetch(s, xn->fwd[i - 1]);
        }
    }
    assert(0 && "node not in list");
    return 0;
}

/* Node at 1-based rank, or FR_ZSET_NIL when out of 1..length.  O(log n). */
fr_zset_ref fr_zset_at_rank(const fr_zset *s, uint64_t rank)
{
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    uint64_t t = 0;
    fr_zset_ref x = FR_ZSET_HEAD, f;
    int i;
    if (rank == 0 || rank > s->length)
        return FR_ZSET_NIL;
    if (rank == s->length)
        return s->tail;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            fr_zset_prefetch(s, xn->fwd[i - 1]);
        while ((f = xn->fwd[i]) && t + fr_zset_span(xn, i) <= rank) {
            t += fr_zset_span(xn, i);
            x = f;
            xn = FR_ZSET_N(s, f);
            if (i)
                fr_zset_prefetch(s, xn->fwd[i - 1]);
        }
        if (t == rank)
            return x;
    }
    return FR_ZSET_NIL;
}

/* Fills upd[] with the predecessors of the node at 1-based rank `rank`. */
static void fr_zset_path_to_rank(const fr_zset *s, uint64_t rank, fr_zset_ref *upd)
{
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    uint64_t t = 0;
    fr_zset_ref x = FR_ZSET_HEAD, f;
    int i;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && t + fr_zset_span(xn, i) < rank) {
            t += fr_zset_span(xn, i);
            x = f;
            xn = FR_ZSET_N(s, f);
        }
        upd[i] = x;
    }
}

/* ======================================================================
 * Point operations
 * ====================================================================== */

/* Node holding member m, or FR_ZSET_NIL.  O(1) expected. */
fr_zset_ref fr_zset_find(const fr_zset *s, const char *m, size_t len)
{
    return fr_zset_hash_find(s, m, len, fr_zset_hash(m, len, s->seed));
}

/* 1-based rank of member m, 0 when absent. */
uint64_t fr_zset_rank_of(const fr_zset *s, const char *m, size_t len)
{
    fr_zset_ref r = fr_zset_find(s, m, len);
    return r ? fr_zset_rank(s, r) : 0;
}

/* Inserts member m (absent; hash h) with score.  The new ref, or FR_ZSET_NIL
 * when out of memory (nothing changed). */
static fr_zset_ref fr_zset_insert(fr_zset *s, const char *m, size_t len, double score, uint64_t h)
{
    fr_zset_ref r;
    if (fr_zset_hash_reserve(s, s->hcount + 1))
        return FR_ZSET_NIL;
    r = fr_zset_node_alloc(s, fr_zset_random_level(s), m, len);
    if (!r)
        return FR_ZSET_NIL;
    FR_ZSET_N(s, r)->score = score;
    fr_zset_link(s, r);
    fr_zset_hash_put(s, r, h);
    return r;
}

/* Moves linked node r to a different score ns that does not fit in place:
 * one descent tracks two cursors, for the lower and the higher of the old
 * and new keys, then unlinks at the old place and links at the new one,
 * correcting the new path for the node's removal.  The cursors share the
 * path from the top until they part; below that each level advances them
 * in turn, one step each, so the two chains of cache misses (about one
 * node per level each) overlap instead of following one another. */
static void fr_zset_move(fr_zset *s, fr_zset_ref r, double ns, uint64_t *ranks)
{
    fr_zset_ref ulo[FR_ZSET_MAXLEVEL], uhi[FR_ZSET_MAXLEVEL], *unew, a = FR_ZSET_HEAD, b = FR_ZSET_HEAD;
    uint64_t rlo[FR_ZSET_MAXLEVEL], rhi[FR_ZSET_MAXLEVEL], *rnew, ra = 0, rb = 0;
    const fr_zset_node *x = FR_ZSET_N(s, r), *an = FR_ZSET_N(s, FR_ZSET_HEAD), *bn = an;
    size_t len;
    const char *m = fr_zset_node_member(x, &len);
    int up = ns > x->score, i, alo, ahi;
    double lo = up ? x->score : ns, hi = up ? ns : x->score;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            fr_zset_prefetch(s, an->fwd[i - 1]);
        alo = 1;
        if (a == b) { /* together: a step below the low key is below the high key too */
            while (fr_zset_step(s, &a, &an, &ra, i, lo, m, len))
                ;
            b = a;
            bn = an;
            rb = ra;
            alo = 0;
        } else if (i) {
            fr_zset_prefetch(s, bn->fwd[i - 1]);
        }
        ahi = 1;
        while (alo | ahi) { /* one step of each cursor still moving */
            alo = alo && fr_zset_step(s, &a, &an, &ra, i, lo, m, len);
            ahi = ahi && fr_zset_step(s, &b, &bn, &rb, i, hi, m, len);
        }
        ulo[i] = a;
        rlo[i] = ra;
        uhi[i] = b;
        rhi[i] = rb;
    }
    if (up) { /* r sits after ulo; the new path uhi may pass through r */
        for (i = 0; i < s->level; i++) {
            if (uhi[i] == r) {
                uhi[i] = ulo[i];
                rhi[i] = rlo[i];
            } else if (rhi[i] > rlo[0]) {
                rhi[i]--;
            }
        }
        fr_zset_splice_out(s, r, ulo);
        unew = uhi;
        rnew = rhi;
        if (ranks)
            ranks[0] = rlo[0] + 1;
    } else { /* r sits after uhi; the new path ulo lies before r */
        fr_zset_splice_out(s, r, uhi);
        unew = ulo;
        rnew = rlo;
        if (ranks)
            ranks[0] = rhi[0] + 1;
    }
    if (ranks)
        ranks[1] = rnew[0] + 1;
    FR_ZSET_N(s, r)->score = ns;
    if (FR_ZSET_N(s, r)->level > s->level)
        fr_zset_raise_level(s, FR_ZSET_N(s, r)->level, unew, rnew);
    fr_zset_splice_in(s, r, unew, rnew);
    fr_zset_set_hint(s, r, rnew[0] + 1);
}

/* True when linked node r may take score (not NaN) where it stands: it
 * still sorts between its neighbours.  Only the neighbour on the side it
 * moves towards is read (one cache miss, not two): the other one sorts
 * before (after) the old key, so before (after) the new one too. */
static int fr_zset_fits_in_place(const fr_zset *s, fr_zset_ref r, double score)
{
    const fr_zset_node *x = FR_ZSET_N(s, r);
    size_t len;
    const char *m = fr_zset_node_member(x, &len);
    fr_zset_ref prev = x->backward, next = x->fwd[0];
    if (score > x->score)
        prev = FR_ZSET_NIL;
    else if (score < x->score)
        next = FR_ZSET_NIL;
    return (prev == FR_ZSET_NIL || fr_zset_cmp_key(FR_ZSET_N(s, prev), score, m, len) < 0) &&
           (next == FR_ZSET_NIL || fr_zset_cmp_key(FR_ZSET_N(s, next), score, m, len) > 0);
}

/* Gives linked node r a new score (not NaN), moving it if needed.  The node
 * is reused, never reallocated; stays in place when it still fits between
 * its neighbours.  With ranks (else NULL), also r's 1-based rank before
 * (ranks[0]) and after (ranks[1]) the change: read off the move's own walk
 * when r moves, one descent when it keeps its place.  O(log n). */
void fr_zset_set_score_ranked(fr_zset *s, fr_zset_ref r, double score, uint64_t ranks[2])
{
    if (fr_zset_fits_in_place(s, r, score)) {
        int held = s->hint_version == s->version; /* no node changes rank */
        FR_ZSET_N(s, r)->score = score;
        s->version++;
        if (held)
            s->hint_version = s->version;
        if (ranks)
            ranks[0] = ranks[1] = fr_zset_rank(s, r);
        return;
    }
    fr_zset_move(s, r, score, ranks);
}

/* fr_zset_set_score_ranked without the ranks. */
void fr_zset_set_score(fr_zset *s, fr_zset_ref r, double score)
{
    fr_zset_set_score_ranked(s, r, score, NULL);
}

/* ZADD of one pair with FR_ZSET_NX/XX/GT/LT flags (a valid combination, score
 * not NaN).  Returns 0 nothing done, 1 added, 2 score changed, -1 no memory. */
int fr_zset_add(fr_zset *s, const char *m, size_t len, double score, int flags)
{
    uint64_t h = fr_zset_hash(m, len, s->seed);
    fr_zset_ref r = fr_zset_hash_find(s, m, len, h);
    if (r) {
        double cur = FR_ZSET_N(s, r)->score;
        if (flags & FR_ZSET_NX)
            return 0;
        if ((flags & FR_ZSET_GT) && !(score > cur))
            return 0;
        if ((flags & FR_ZSET_LT) && !(score < cur))
            return 0;
        if (score == cur)
            return 0;
        fr_zset_set_score(s, r, score);
        return 2;
    }
    if (flags & FR_ZSET_XX)
        return 0;
    return fr_zset_insert(s, m, len, score, h) ? 1 : -1;
}

/* ZINCRBY of member m whose hash is h: adds delta to m's score (a missing
 * member starts at 0).  0 done (*newscore set; ref/oldscore/was_new, each optional, describe the
 * change for an undo), -1 the result is NaN (nothing changed), -2 no memory. */
static int fr_zset_incr_hashed(fr_zset *s, const char *m, size_t len, uint64_t h, double delta,
                           double *newscore, fr_zset_ref *ref, double *oldscore, int *was_new)
{
    fr_zset_ref r = fr_zset_hash_find(s, m, len, h);
    double cur = 0.0, ns;
    int created = 0;
    if (r)
        cur = FR_ZSET_N(s, r)->score;
    ns = cur + delta;
    if (ns != ns)
        return -1;
    if (r) {
        if (ns != cur)
            fr_zset_set_score(s, r, ns);
    } else {
        r = fr_zset_insert(s, m, len, ns, h);
        if (!r)
            return -2;
        created = 1;
    }
    *newscore = ns;
    if (ref)
        *ref = r;
    if (oldscore)
        *oldscore = cur;
    if (was_new)
        *was_new = created;
    return 0;
}

/* fr_zset_incr_hashed with the member's hash computed here. */
int fr_zset_incr(fr_zset *s, const char *m, size_t len, double delta, double *newscore,
             fr_zset_ref *ref, double *oldscore, int *was_new)
{
    return fr_zset_incr_hashed(s, m, len, fr_zset_hash(m, len, s->seed), delta, newscore, ref, oldscore,
                           was_new);
}

/* Removes linked node r: list, index, storage. */
void fr_zset_delete_ref(fr_zset *s, fr_zset_ref r)
{
    uint64_t h = fr_zset_node_hash(s, r);
    fr_zset_unlink(s, r);
    fr_zset_hash_remove(s, r, h);
    fr_zset_node_free(s, r);
}

/* ZREM of one member: 1 removed, 0 absent. */
int fr_zset_delete(fr_zset *s, const char *m, size_t len)
{
    uint64_t h = fr_zset_hash(m, len, s->seed);
    fr_zset_ref r = fr_zset_hash_find(s, m, len, h);
    if (!r)
        return 0;
    fr_zset_unlink(s, r);
    fr_zset_hash_remove(s, r, h);
    fr_zset_node_free(s, r);
    return 1;
}

/* ======================================================================
 * Batch lookups: several independent searches in lock step
 * ====================================================================== */

/* One search is a chain of dependent cache misses; g searches advanced
 * round-robin, each prefetching the node it reads next, keep g misses in
 * flight at once (group prefetching).  Answers equal the one-at-a-time
 * functions'.  FR_ZSET_BATCH bounds g. */

/* Hints the CPU to load the cache line at p. */
static inline void fr_zset_prefetch_addr(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/* h[j] = the hash of member j and out[j] = its node or FR_ZSET_NIL, for j < g
 * (g <= FR_ZSET_BATCH): hashes all and prefetches their home slots, then the
 * first tag-matching node of each, then probes. */
static void fr_zset_hash_batch(const fr_zset *s, const char *const *m, const size_t *len, size_t g,
                           uint64_t *h, fr_zset_ref *out)
{
    size_t j;
    assert(g <= FR_ZSET_BATCH);
    for (j = 0; j < g; j++) {
        h[j] = fr_zset_hash(m[j], len[j], s->seed);
        fr_zset_prefetch_addr(&s->slots[fr_zset_home(s, (uint32_t)(h[j] >> 32))]);
    }
    for (j = 0; j < g; j++) {
        uint32_t tag = (uint32_t)(h[j] >> 32);
        uint64_t i = fr_zset_home(s, tag), v;
        while ((v = s->slots[i]) && (uint32_t)(v >> 32) != tag)
            if (++i == s->nslots)
                i = 0;
        fr_zset_prefetch(s, (fr_zset_ref)v);
    }
    for (j = 0; j < g; j++)
        out[j] = fr_zset_hash_find(s, m[j], len[j], h[j]);
}

/* out[j] = fr_zset_find(s, m[j], len[j]) for j < g (g <= FR_ZSET_BATCH). */
void fr_zset_find_batch(const fr_zset *s, const char *const *m, const size_t *len, size_t g,
                    fr_zset_ref *out)
{
    uint64_t h[FR_ZSET_BATCH];
    fr_zset_hash_batch(s, m, len, g, h, out);
}

/* A descent in flight: towards node `target` (a rank search), or, with
 * target FR_ZSET_NIL, to the last node before the key (score, m) on level 0. */
typedef struct fr_zset_cursor {
    const fr_zset_node *xn; /* last node passed */
    fr_zset_ref target;
    int level;          /* list being walked */
    uint64_t rank;      /* rank of xn */
    double score;
    const char *m;
    size_t len;
} fr_zset_cursor;

/* Starts cursor c at the header for target / key (score, m, len). */
static void fr_zset_cursor_init(const fr_zset *s, fr_zset_cursor *c, fr_zset_ref target, double score,
                            const char *m, size_t len)
{
    c->xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    c->target = target;
    c->level = s->level - 1;
    c->rank = 0;
    c->score = score;
    c->m = m;
    c->len = len;
    fr_zset_prefetch(s, c->xn->fwd[c->level]);
}

/* One step of cursor c: passes one node or descends one level; true when
 * done (for a target, c->rank is then its rank).  Prefetches the node the
 * next step reads. */
static inline int fr_zset_cursor_step(const fr_zset *s, fr_zset_cursor *c)
{
    int i = c->level;
    fr_zset_ref f = c->xn->fwd[i];
    if (f && (f == c->target || fr_zset_cmp_key(FR_ZSET_N(s, f), c->score, c->m, c->len) < 0)) {
        c->rank += fr_zset_span(c->xn, i);
        if (f == c->target)
            return 1;
        c->xn = FR_ZSET_N(s, f);
    } else if (--c->level < 0) {
        assert(!c->target && "node not in list");
        return 1;
    } else {
        i = c->level;
    }
    fr_zset_prefetch(s, c->xn->fwd[i]);
    return 0;
}

/* Runs cursors c[0..live) round-robin to the end; when out is given,
 * out[slot[j]] receives cursor j's final rank.  Reorders c and slot. */
static void fr_zset_cursors_run(const fr_zset *s, fr_zset_cursor *c, size_t *slot, size_t live,
                            uint64_t *out)
{
    size_t j;
    while (live) {
        for (j = 0; j < live;) {
            if (!fr_zset_cursor_step(s, &c[j])) {
                j++;
                continue;
            }
            if (out)
                out[slot[j]] = c[j].rank;
            live--;
            c[j] = c[live];
            slot[j] = slot[live];
        }
    }
}

/* out[j] = fr_zset_rank(s, refs[j]), or 0 where refs[j] is FR_ZSET_NIL, for j < g
 * (g <= FR_ZSET_BATCH); the descents advance one step each in turn. */
void fr_zset_rank_batch(const fr_zset *s, const fr_zset_ref *refs, size_t g, uint64_t *out)
{
    fr_zset_cursor c[FR_ZSET_BATCH];
    size_t slot[FR_ZSET_BATCH], j, live = 0;
    assert(g <= FR_ZSET_BATCH);
    for (j = 0; j < g; j++) {
        const fr_zset_node *t = FR_ZSET_N(s, refs[j]);
        size_t len;
        const char *m;
        out[j] = refs[j] == s->tail ? s->length : 0; /* NIL tail: empty set */
        if (!refs[j] || refs[j] == s->tail)
            continue;
        m = fr_zset_node_member(t, &len);
        fr_zset_cursor_init(s, &c[live], refs[j], t->score, m, len);
        slot[live++] = j;
    }
    fr_zset_cursors_run(s, c, slot, live, out);
}

/* out[j] = how many members score below x[j] (at most x[j] when inclusive),
 * for j < g (g <= FR_ZSET_BATCH): ZCOUNT's half-open ranges for a batch of
 * bounds, the descents advancing one step each in turn.  A NaN bound counts 0. */
void fr_zset_count_below_batch(const fr_zset *s, const double *x, int inclusive, size_t g, uint64_t *out)
{
    const fr_zset_node *at[FR_ZSET_BATCH];
    int level[FR_ZSET_BATCH];
    size_t idx[FR_ZSET_BATCH], j, k, live = g;
    assert(g <= FR_ZSET_BATCH);
    for (j = 0; j < g; j++) {
        at[j] = FR_ZSET_N(s, FR_ZSET_HEAD);
        level[j] = s->level - 1;
        out[j] = 0;
        idx[j] = j;
        fr_zset_prefetch(s, at[j]->fwd[level[j]]);
    }
    while (live) {
        for (k = 0; k < live;) {
            int i;
            fr_zset_ref f;
            double v;
            j = idx[k];
            i = level[j];
            f = at[j]->fwd[i];
            if (f && ((v = FR_ZSET_N(s, f)->score) < x[j] || (inclusive && v == x[j]))) {
                out[j] += fr_zset_span(at[j], i);
                at[j] = FR_ZSET_N(s, f);
            } else if (--level[j] < 0) {
                idx[k] = idx[--live];
                continue;
            } else {
                i = level[j];
            }
            fr_zset_prefetch(s, at[j]->fwd[i]);
            k++;
        }
    }
}

/* Prefetches what the increments of pairs j < g will read (r[j]: the
 * member's node or FR_ZSET_NIL): the node's neighbours, and the search paths
 * to its old and new keys, walked in lock step without changing anything. */
static void fr_zset_warm_incr(const fr_zset *s, const char *const *m, const size_t *len,
                          const double *delta, size_t g, const fr_zset_ref *r)
{
    fr_zset_cursor c[2 * FR_ZSET_BATCH];
    size_t slot[2 * FR_ZSET_BATCH], j, live = 0;
    for (j = 0; j < g; j++) {
        double cur = 0.0, ns;
        if (r[j]) {
            const fr_zset_node *x = FR_ZSET_N(s, r[j]);
            cur = x->score;
            fr_zset_prefetch(s, delta[j] > 0 ? x->fwd[0] : x->backward);
            fr_zset_cursor_init(s, &c[live], FR_ZSET_NIL, cur, m[j], len[j]);
            slot[live++] = j;
        }
        ns = cur + delta[j];
        if (ns == ns) {
            fr_zset_cursor_init(s, &c[live], FR_ZSET_NIL, ns, m[j], len[j]);
            slot[live++] = j;
        }
    }
    fr_zset_cursors_run(s, c, slot, live, NULL);
}

/* fr_zset_incr of pairs j < g (g <= FR_ZSET_BATCH) in order, pair j writing
 * newscore[j], ref[j], oldscore[j] and was_new[j].  First finds all
 * members and walks all their paths in lock step (fr_zset_warm_incr) so that
 * the increments, which must run one after the other, mostly hit the
 * cache.  Returns the number of pairs done; when fewer than g, *rc holds
 * the failing pair's fr_zset_incr code and that pair changed nothing. */
size_t fr_zset_incr_batch(fr_zset *s, const char *const *m, const size_t *len, const double *delta,
                      size_t g, double *newscore, fr_zset_ref *ref, double *oldscore, int *was_new,
                      int *rc)
{
    uint64_t h[FR_ZSET_BATCH];
    fr_zset_ref r[FR_ZSET_BATCH];
    size_t j;
    fr_zset_hash_batch(s, m, len, g, h, r);
    fr_zset_warm_incr(s, m, len, delta, g, r);
    for (j = 0; j < g; j++) {
        int c = fr_zset_incr_hashed(s, m[j], len[j], h[j], delta[j], &newscore[j], &ref[j],
                                &oldscore[j], &was_new[j]);
        if (c) {
            *rc = c;
            return j;
        }
    }
    return g;
}

/* ======================================================================
 * Ranges
 * ====================================================================== */

static inline int fr_zset_gte_min(double v, const fr_zset_range *r)
{
    return r->minex ? v > r->min : v >= r->min;
}

static inline int fr_zset_lte_max(double v, const fr_zset_range *r)
{
    return r->maxex ? v < r->max : v <= r->max;
}

/* True when no score can be inside r (min > max, or an excluded point). */
static inline int fr_zset_range_empty(const fr_zset_range *r)
{
    return r->min > r->max || (r->min == r->max && (r->minex || r->maxex));
}

/* A lex bound prepared for a walk: its bytes and, when it has eight or more,
 * those first eight as a big-endian number (read once, not at every node).
 * When it has 8 to 16 bytes, also its last eight: a member of the same
 * length then compares in two word comparisons (head, then tail; the bytes
 * the two words share already compared equal), the common case of members
 * written in one fixed format ("name:00001000"). */
typedef struct fr_zset_lexkey {
    const char *p;
    size_t len;
    uint64_t head;
    uint64_t tail;
    unsigned same_len;  /* len when 8 <= len <= 16, else 256 (no node's mlen) */
} fr_zset_lexkey;

static inline fr_zset_lexkey fr_zset_lexkey_of(const char *p, size_t len)
{
    int words = len >= 8 && len <= 16;
    fr_zset_lexkey k = {p, len, len >= 8 ? fr_zset_load_be64(p) : 0,
                        words ? fr_zset_load_be64(p + len - 8) : 0,
                        words ? (unsigned)len : 256u};
    return k;
}

/* fr_zset_memcmp of node n's member against k: -1, 0, 1. */
static inline int fr_zset_cmp_lexkey(const fr_zset_node *n, const fr_zset_lexkey *k)
{
    size_t len;
    const char *m;
    uint64_t h;
    if (n->mlen == k->same_len) {  /* inline, as long as k, 8..16 bytes */
        m = fr_zset_node_member_slot(n);
        h = fr_zset_load_be64(m);
        if (h == k->head)
            h = fr_zset_load_be64(m + k->same_len - 8);
        else
            return h < k->head ? -1 : 1;
        return h == k->tail ? 0 : h < k->tail ? -1 : 1;
    }
    m = fr_zset_node_member(n, &len);
    if (len >= 8 && k->len >= 8) {
        h = fr_zset_load_be64(m);
        if (h != k->head)
            return h < k->head ? -1 : 1;
        return fr_zset_memcmp(m + 8, len - 8, k->p + 8, k->len - 8);
    }
    return fr_zset_memcmp(m, len, k->p, k->len);
}

static inline int fr_zset_lex_gte_min(const fr_zset_node *n, const fr_zset_lexrange *r)
{
    size_t len;
    const char *m;
    int c;
    if (r->mininf)
        return 1;
    m = fr_zset_node_member(n, &len);
    c = fr_zset_memcmp(m, len, r->min, r->minlen);
    return r->minex ? c > 0 : c >= 0;
}

static inline int fr_zset_lex_lte_max(const fr_zset_node *n, const fr_zset_lexrange *r)
{
    size_t len;
    const char *m;
    int c;
    if (r->maxinf)
        return 1;
    m = fr_zset_node_member(n, &len);
    c = fr_zset_memcmp(m, len, r->max, r->maxlen);
    return r->maxex ? c < 0 : c <= 0;
}

static inline int fr_zset_lex_empty(const fr_zset_lexrange *r)
{
    int c;
    if (r->mininf || r->maxinf)
        return 0;
    c = fr_zset_memcmp(r->min, r->minlen, r->max, r->maxlen);
    return c > 0 || (c == 0 && (r->minex || r->maxex));
}

/* First node with score in r and its 1-based rank (optional), or FR_ZSET_NIL. */
fr_zset_ref fr_zset_first_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank)
{
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    fr_zset_ref x = FR_ZSET_HEAD, f;
    uint64_t t = 0;
    int i;
    if (fr_zset_range_empty(r) || !s->tail || !fr_zset_gte_min(FR_ZSET_N(s, s->tail)->score, r))
        return FR_ZSET_NIL;
    x = fr_zset_first(s);
    if (fr_zset_gte_min(FR_ZSET_N(s, x)->score, r)) {  /* e.g. -inf: no descent */
        if (!fr_zset_lte_max(FR_ZSET_N(s, x)->score, r))
            return FR_ZSET_NIL;
        if (rank)
            *rank = 1;
        return x;
    }
    x = FR_ZSET_HEAD;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && !fr_zset_gte_min(FR_ZSET_N(s, f)->score, r)) {
            t += fr_zset_span(xn, i);
            x = f;
            xn = FR_ZSET_N(s, f);
        }
    }
    x = xn->fwd[0];
    if (!x || !fr_zset_lte_max(FR_ZSET_N(s, x)->score, r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t + 1;
    return x;
}

/* Last node with score in r and its 1-based rank (optional), or FR_ZSET_NIL. */
fr_zset_ref fr_zset_last_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank)
{
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    fr_zset_ref x = FR_ZSET_HEAD, f;
    uint64_t t = 0;
    int i;
    if (fr_zset_range_empty(r) || !s->tail || !fr_zset_lte_max(FR_ZSET_N(s, fr_zset_first(s))->score, r))
        return FR_ZSET_NIL;
    if (fr_zset_lte_max(FR_ZSET_N(s, s->tail)->score, r)) {  /* e.g. +inf: no descent */
        if (!fr_zset_gte_min(FR_ZSET_N(s, s->tail)->score, r))
            return FR_ZSET_NIL;
        if (rank)
            *rank = s->length;
        return s->tail;
    }
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && fr_zset_lte_max(FR_ZSET_N(s, f)->score, r)) {
            t += fr_zset_span(xn, i);
            x = f;
            xn = FR_ZSET_N(s, f);
        }
    }
    if (x == FR_ZSET_HEAD || !fr_zset_gte_min(xn->score, r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t;
    return x;
}

/* True when every member has the same score (or there are fewer than two):
 * then the list is in member order and lex searches may use every level. */
static inline int fr_zset_one_score_inline(const fr_zset *s)
{
    return !s->tail || FR_ZSET_N(s, fr_zset_first(s))->score == FR_ZSET_N(s, s->tail)->score;
}

int fr_zset_one_score(const fr_zset *s)
{
    return fr_zset_one_score_inline(s);
}

/* Whether node x's member is >= r's min (<= r's max): ZRANGEBYLEX's tests. */
int fr_zset_lex_ref_gte_min(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r)
{
    return fr_zset_lex_gte_min(FR_ZSET_N(s, x), r);
}

int fr_zset_lex_ref_lte_max(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r)
{
    return fr_zset_lex_lte_max(FR_ZSET_N(s, x), r);
}

/* LEX SEARCHES OVER MIXED SCORES.  Redis calls lex ranges over members of
 * different scores unspecified, but what it does is a fixed walk: the
 * searches below move forward "while the next member is below min" (first)
 * or "while the next member is <= max" (last), and the range commands then
 * walk from there until the first member out of range.  When the members
 * are not in member order, a descent that starts on a high level can jump
 * past the member where a level-0 walk stops, so its answer would depend on
 * the random node levels; with more than one score these functions use
 * level 0 only (O(n)), which is what Redis's skip list does whenever its
 * nodes have level 1 and always what its listpack does going forward. */

/* Redis's zslIsInLexRange: the range is not empty, the last member is >= min
 * and the first is <= max (with one score, exactly "some member is in r"). */
static int fr_zset_lex_possible(const fr_zset *s, const fr_zset_lexrange *r)
{
    return !fr_zset_lex_empty(r) && s->tail && fr_zset_lex_gte_min(FR_ZSET_N(s, s->tail), r) &&
           fr_zset_lex_lte_max(FR_ZSET_N(s, fr_zset_first(s)), r);
}

/* The walk of fr_zset_first_in_lex, r known possible (see above). */
static fr_zset_ref fr_zset_first_in_lex_walk(const fr_zset *s, const fr_zset_lexrange *r,
                                             uint64_t *rank)
{
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    fr_zset_ref x = FR_ZSET_HEAD, f, stop = FR_ZSET_NIL;
    uint64_t t = 0;
    int i, one = fr_zset_one_score_inline(s);
    /* No rank wanted and min a member of a one-score set (list order is
     * member order): the first node is min's own, or the next one. */
    if (!rank && !r->mininf && one &&
        (x = fr_zset_find(s, r->min, r->minlen)) != FR_ZSET_NIL) {
        if (r->minex)
            x = fr_zset_next(s, x);
        return x && fr_zset_lex_lte_max(FR_ZSET_N(s, x), r) ? x : FR_ZSET_NIL;
    }
    x = FR_ZSET_HEAD;
    if (fr_zset_lex_gte_min(FR_ZSET_N(s, fr_zset_first(s)), r))  /* e.g. "-": no walk */
        i = -1;
    else
        i = one ? s->level - 1 : 0;
    /* Below min: the member compares below the bound (or equal to an
     * exclusive one), i.e. cmp < minex. stop: the node that ended the walk a
     * level up (>= min), not compared again. */
    fr_zset_lexkey k = fr_zset_lexkey_of(r->min, i >= 0 ? r->minlen : 0);
    for (; i >= 0; i--) {
        while ((f = xn->fwd[i]) && f != stop && fr_zset_cmp_lexkey(FR_ZSET_N(s, f), &k) < r->minex) {
            t += fr_zset_span(xn, i);
            x = f;
            xn = FR_ZSET_N(s, f);
        }
        stop = f;
    }
    x = xn->fwd[0];
    if (!x || !fr_zset_lex_lte_max(FR_ZSET_N(s, x), r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t + 1;
    return x;
}

/* The walk of fr_zset_last_in_lex, r known possible (see above). */
static fr_zset_ref fr_zset_last_in_lex_walk(const fr_zset *s, const fr_zset_lexrange *r,
                                            uint64_t *rank)
{
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    fr_zset_ref x = FR_ZSET_HEAD, f, stop = FR_ZSET_NIL;
    uint64_t t = 0;
    int i, one = fr_zset_one_score_inline(s);
    /* No rank wanted and max a member of a one-score set: as above. */
    if (!rank && !r->maxinf && one &&
        (x = fr_zset_find(s, r->max, r->maxlen)) != FR_ZSET_NIL) {
        if (r->maxex)
            x = fr_zset_prev(s, x);
        return x && fr_zset_lex_gte_min(FR_ZSET_N(s, x), r) ? x : FR_ZSET_NIL;
    }
    x = FR_ZSET_HEAD;
    /* e.g. "+": the walk would end at the tail (over members of different
     * scores only when it is "+": an earlier member may be past the max). */
    if (r->maxinf || (one && fr_zset_lex_lte_max(FR_ZSET_N(s, s->tail), r))) {
        if (!fr_zset_lex_gte_min(FR_ZSET_N(s, s->tail), r))
            return FR_ZSET_NIL;
        if (rank)
            *rank = s->length;
        return s->tail;
    }
    /* Within max: cmp < 1 - maxex (below, or equal to an inclusive bound);
     * stop: as above (> max). */
    fr_zset_lexkey k = fr_zset_lexkey_of(r->max, r->maxlen);
    int within = 1 - r->maxex;
    for (i = one ? s->level - 1 : 0; i >= 0; i--) {
        while ((f = xn->fwd[i]) && f != stop && fr_zset_cmp_lexkey(FR_ZSET_N(s, f), &k) < within) {
            t += fr_zset_span(xn, i);
            x = f;
            xn = FR_ZSET_N(s, f);
        }
        stop = f;
    }
    if (x == FR_ZSET_HEAD || !fr_zset_lex_gte_min(xn, r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t;
    return x;
}

/* First node with member in r and its 1-based rank (optional), or FR_ZSET_NIL. */
fr_zset_ref fr_zset_first_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank)
{
    return fr_zset_lex_possible(s, r) ? fr_zset_first_in_lex_walk(s, r, rank) : FR_ZSET_NIL;
}

/* Last node with member in r and its 1-based rank (optional), or FR_ZSET_NIL. */
fr_zset_ref fr_zset_last_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank)
{
    return fr_zset_lex_possible(s, r) ? fr_zset_last_in_lex_walk(s, r, rank) : FR_ZSET_NIL;
}

/* ZLEXCOUNT: the members from the first in r to the last in r (over members
 * of different scores, where no last one is found, to the end: Redis's walk). */
uint64_t fr_zset_count_in_lex(const fr_zset *s, const fr_zset_lexrange *r)
{
    uint64_t r1, r2;
    if (!fr_zset_lex_possible(s, r) || fr_zset_first_in_lex_walk(s, r, &r1) == FR_ZSET_NIL)
        return 0;
    if (fr_zset_last_in_lex_walk(s, r, &r2) == FR_ZSET_NIL)
        return s->length - r1 + 1;
    return r2 < r1 ? 0 : r2 - r1 + 1;
}

/* Removes x (the successor of upd[0]) from list, index and storage; the
 * path upd[] stays valid for x's successor. */
static void fr_zset_remove_at(fr_zset *s, fr_zset_ref x, const fr_zset_ref *upd)
{
    uint64_t h = fr_zset_node_hash(s, x);
    fr_zset_splice_out(s, x, upd);
    fr_zset_hash_remove(s, x, h);
    fr_zset_node_free(s, x);
}

/* ZREMRANGEBYRANK with 1-based inclusive ranks (1 <= start <= end clamped
 * by the caller); the number removed. */
uint64_t fr_zset_delete_range_by_rank(fr_zset *s, uint64_t start, uint64_t end)
{
    fr_zset_ref upd[FR_ZSET_MAXLEVEL], x;
    uint64_t removed = 0;
    if (start < 1)
        start = 1;
    if (end > s->length)
        end = s->length;
    if (start > end)
        return 0;
    fr_zset_path_to_rank(s, start, upd);
    x = FR_ZSET_N(s, upd[0])->fwd[0];
    while (x && start + removed <= end) {
        fr_zset_ref next = FR_ZSET_N(s, x)->fwd[0];
        fr_zset_remove_at(s, x, upd);
        removed++;
        x = next;
    }
    return removed;
}

/* ZREMRANGEBYSCORE; the number removed. */
uint64_t fr_zset_delete_range_by_score(fr_zset *s, const fr_zset_range *r)
{
    fr_zset_ref upd[FR_ZSET_MAXLEVEL], x = FR_ZSET_HEAD, f;
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    uint64_t removed = 0;
    int i;
    if (fr_zset_range_empty(r))
        return 0;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && !fr_zset_gte_min(FR_ZSET_N(s, f)->score, r)) {
            x = f;
            xn = FR_ZSET_N(s, f);
        }
        upd[i] = x;
    }
    x = xn->fwd[0];
    while (x && fr_zset_lte_max(FR_ZSET_N(s, x)->score, r)) {
        fr_zset_ref next = FR_ZSET_N(s, x)->fwd[0];
        fr_zset_remove_at(s, x, upd);
        removed++;
        x = next;
    }
    return removed;
}

/* ZREMRANGEBYLEX: from the first member >= min (a level-0 walk over mixed
 * scores, see above) while members are <= max; the number removed. */
uint64_t fr_zset_delete_range_by_lex(fr_zset *s, const fr_zset_lexrange *r)
{
    fr_zset_ref upd[FR_ZSET_MAXLEVEL], x = FR_ZSET_HEAD, f;
    const fr_zset_node *xn = FR_ZSET_N(s, FR_ZSET_HEAD);
    uint64_t removed = 0, t = 0;
    int i;
    if (fr_zset_lex_empty(r))
        return 0;
    if (fr_zset_one_score(s)) {
        for (i = s->level - 1; i >= 0; i--) {
            while ((f = xn->fwd[i]) && !fr_zset_lex_gte_min(FR_ZSET_N(s, f), r)) {
                x = f;
                xn = FR_ZSET_N(s, f);
            }
            upd[i] = x;
        }
    } else {
        while ((f = xn->fwd[0]) && !fr_zset_lex_gte_min(FR_ZSET_N(s, f), r)) {
            t++;
            xn = FR_ZSET_N(s, f);
        }
        fr_zset_path_to_rank(s, t + 1, upd);
        xn = FR_ZSET_N(s, upd[0]);
    }
    x = xn->fwd[0];
    while (x && fr_zset_lex_lte_max(FR_ZSET_N(s, x), r)) {
        fr_zset_ref next = FR_ZSET_N(s, x)->fwd[0];
        fr_zset_remove_at(s, x, upd);
        removed++;
        x = next;
    }
    return removed;
}

/* ======================================================================
 * Bulk load: write nodes unlinked, then sort and rebuild the list
 * ====================================================================== */

/* A sort record: order key of the score, first 4 member bytes big-endian. */
typedef struct fr_zset_rec {
    uint64_t key;
    uint32_t pre;
    fr_zset_ref ref;
} fr_zset_rec;

/* Unsigned key with the order of the (non-NaN) double; -0.0 gets +0.0's
 * key (they are equal scores, so ties go by member). */
static inline uint64_t fr_zset_score_key(double d)
{
    uint64_t u;
    if (d == 0.0)
        d = 0.0;
    memcpy(&u, &d, 8);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
}

static inline uint32_t fr_zset_prefix(const char *m, size_t len)
{
    unsigned char b[4] = {0, 0, 0, 0};
    memcpy(b, m, len < 4 ? len : 4);
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/* Full (score, member) order of two records. */
static inline int fr_zset_rec_cmp(const fr_zset *s, const fr_zset_rec *a, const fr_zset_rec *b)
{
    size_t la, lb;
    const char *ma, *mb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->pre != b->pre)
        return a->pre < b->pre ? -1 : 1;
    ma = fr_zset_member(s, a->ref, &la);
    mb = fr_zset_member(s, b->ref, &lb);
    return fr_zset_memcmp(ma, la, mb, lb);
}

/* Merge sort of a[0..n) by fr_zset_rec_cmp, tmp has room for n/2 + 1. */
static void fr_zset_msort(const fr_zset *s, fr_zset_rec *a, fr_zset_rec *tmp, size_t n)
{
    size_t h, i, j, k;
    if (n <= 16) {
        for (i = 1; i < n; i++) {
            fr_zset_rec v = a[i];
            for (j = i; j > 0 && fr_zset_rec_cmp(s, &a[j - 1], &v) > 0; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    h = n / 2;
    fr_zset_msort(s, a, tmp, h);
    fr_zset_msort(s, a + h, tmp, n - h);
    if (fr_zset_rec_cmp(s, &a[h - 1], &a[h]) <= 0)
        return;
    memcpy(tmp, a, h * sizeof *a);
    i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = fr_zset_rec_cmp(s, &a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

static inline unsigned fr_zset_digit(const fr_zset_rec *r, int d)
{
    return d < 4 ? (r->pre >> (8 * d)) & 0xff : (unsigned)(r->key >> (8 * (d - 4))) & 0xff;
}

/* Sorts a[0..n) (tmp: n more records) fully; returns the sorted array (a or
 * tmp).  LSD radix sort on (key, pre) skipping constant digits, then merge
 * sort of the runs of equal (key, pre). */
static fr_zset_rec *fr_zset_sort_recs(const fr_zset *s, fr_zset_rec *a, fr_zset_rec *tmp, size_t n)
{
    static const int ndig = 12;
    size_t (*cnt)[256] = (size_t (*)[256])calloc(12, sizeof *cnt);
    size_t i, j;
    int d;
    if (!cnt) { /* no memory for counters: merge sort everything */
        fr_zset_msort(s, a, tmp, n);
        return a;
    }
    for (i = 0; i < n; i++)
        for (d = 0; d < ndig; d++)
            cnt[d][fr_zset_digit(&a[i], d)]++;
    for (d = 0; d < ndig; d++) {
        size_t sum = 0;
        fr_zset_rec *t;
        if (n == 0 || cnt[d][fr_zset_digit(&a[0], d)] == n)
            continue;
        for (j = 0; j < 256; j++) {
            size_t c = cnt[d][j];
            cnt[d][j] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            tmp[cnt[d][fr_zset_digit(&a[i], d)]++] = a[i];
        t = a;
        a = tmp;
        tmp = t;
    }
    free(cnt);
    for (i = 0; i < n; i = j) {
        for (j = i + 1; j < n && a[j].key == a[i].key && a[j].pre == a[i].pre; j++)
            ;
        if (j - i > 1)
            fr_zset_msort(s, a + i, tmp, j - i);
    }
    return a;
}

/* Links recs[0..m) (sorted) after the list's right edge: last[i] is the
 * last node of level i and lastrank[i] its rank, prev the tail, n0 the
 * length; then ends every level and sets the tail, length and level. O(m). */
static void fr_zset_link_after(fr_zset *s, fr_zset_ref *last, uint64_t *lastrank,
                               fr_zset_ref prev, int maxlevel, uint64_t n0,
                               const fr_zset_rec *recs, size_t m)
{
    uint64_t total = n0 + m;
    int i;
    size_t k;
    for (k = 0; k < m; k++) {
        fr_zset_ref y = recs[k].ref;
        fr_zset_node *yn = FR_ZSET_N(s, y);
        int lvl = yn->level;
        for (i = 0; i < lvl; i++) {
            fr_zset_node *u = FR_ZSET_N(s, last[i]);
            u->fwd[i] = y;
            if (i)
                fr_zset_span_set(u, i, (uint32_t)(n0 + k + 1 - lastrank[i]));
            last[i] = y;
            lastrank[i] = n0 + k + 1;
        }
        if (lvl > maxlevel)
            maxlevel = lvl;
        yn->backward = prev;
        prev = y;
    }
    for (i = 0; i < FR_ZSET_MAXLEVEL; i++) {
        fr_zset_node *u = FR_ZSET_N(s, last[i]);
        if (i >= u->level)
            continue;
        u->fwd[i] = FR_ZSET_NIL;
        if (i)
            fr_zset_span_set(u, i, (uint32_t)(total - lastrank[i]));
    }
    s->tail = prev;
    s->length = total;
    s->level = maxlevel;
    s->version++;
}

/* Rebuilds every link, span and backward pointer from refs in order. */
static void fr_zset_relink(fr_zset *s, const fr_zset_rec *recs, size_t n)
{
    fr_zset_ref last[FR_ZSET_MAXLEVEL];
    uint64_t lastrank[FR_ZSET_MAXLEVEL];
    int i;
    for (i = 0; i < FR_ZSET_MAXLEVEL; i++) {
        last[i] = FR_ZSET_HEAD;
        lastrank[i] = 0;
    }
    fr_zset_link_after(s, last, lastrank, FR_ZSET_NIL, 1, 0, recs, n);
}

/* Starts a bulk load of up to `extra` new members: reserves the index and
 * the sort buffer, so that fr_zset_bulk_end cannot fail.  0, or -1 when out of
 * memory (nothing changed).  Until fr_zset_bulk_end only fr_zset_bulk_put may be
 * called. */
int fr_zset_bulk_begin(fr_zset *s, uint64_t extra)
{
    uint64_t n = s->length + extra;
    if (fr_zset_hash_reserve(s, s->hcount + extra))
        return -1;
    if (n > SIZE_MAX / (2 * sizeof(fr_zset_rec)))
        return -1;
    s->bulk_buf = malloc((size_t)(n ? n : 1) * 2 * sizeof(fr_zset_rec));
    if (!s->bulk_buf)
        return -1;
    s->bulk_cap = n;
    s->bulk_new = 0;
    s->bulk_moved = 0;
    s->bulk_append = 0;
    s->bulk = 1;
    return 0;
}

/* fr_zset_bulk_begin for a load expected to go after the tail: a member
 * already linked whose score changes is moved in the list right away
 * (fr_zset_set_score, O(log n)) instead of forcing fr_zset_bulk_end to
 * rebuild the whole list, so a few updates among the new members cost
 * what they cost outside a bulk load. */
int fr_zset_bulk_begin_append(fr_zset *s, uint64_t extra)
{
    if (fr_zset_bulk_begin(s, extra))
        return -1;
    s->bulk_append = 1;
    return 0;
}

/* Sets m's score (not NaN), adding m if absent (*added is incremented);
 * an equal score is no change (an existing 0.0 stays 0.0 when -0.0 comes,
 * as in fr_zset_add).  The list is not maintained until fr_zset_bulk_end.  0, or
 * -1 no memory. */
int fr_zset_bulk_put(fr_zset *s, const char *m, size_t len, double score, uint64_t *added)
{
    uint64_t h = fr_zset_hash(m, len, s->seed);
    fr_zset_ref r = fr_zset_hash_find(s, m, len, h);
    assert(s->bulk);
    if (!r) {
        if (fr_zset_hash_reserve(s, s->hcount + 1))
            return -1;
        r = fr_zset_node_alloc(s, fr_zset_random_level(s), m, len);
        if (!r)
            return -1;
        fr_zset_hash_put(s, r, h);
        (*added)++;
        FR_ZSET_N(s, r)->score = score;
        FR_ZSET_N(s, r)->backward = FR_ZSET_UNLINKED;
        ((fr_zset_rec *)s->bulk_buf)[s->bulk_new++].ref = r;
    } else if (FR_ZSET_N(s, r)->score != score) {
        if (FR_ZSET_N(s, r)->backward == FR_ZSET_UNLINKED) {
            FR_ZSET_N(s, r)->score = score; /* added by this load: not in the list yet */
        } else if (s->bulk_append) {
            fr_zset_set_score(s, r, score);
        } else {
            FR_ZSET_N(s, r)->score = score;
            s->bulk_moved = 1;
        }
    }
    return 0;
}

/* Links recs[0..m) (new nodes, sorted, all after the current tail) after
 * the tail: the last node of every level is found from the head (the right
 * edge of the list, O(log n)), then the new nodes are linked as
 * fr_zset_relink links a whole list.  O(m + log n); the old nodes other than
 * that right edge are not touched. */
static void fr_zset_append(fr_zset *s, const fr_zset_rec *recs, size_t m)
{
    fr_zset_ref last[FR_ZSET_MAXLEVEL];
    uint64_t lastrank[FR_ZSET_MAXLEVEL];
    fr_zset_ref x = FR_ZSET_HEAD;
    uint64_t rank = 0;
    int i;
    for (i = FR_ZSET_MAXLEVEL - 1; i >= 0; i--) {
        if (i < s->level) {
            fr_zset_node *xn;
            while ((xn = FR_ZSET_N(s, x))->fwd[i] != FR_ZSET_NIL) {
                rank += i ? fr_zset_span(xn, i) : 1;
                x = xn->fwd[i];
            }
        }
        last[i] = x;
        lastrank[i] = rank;
    }
    fr_zset_link_after(s, last, lastrank, s->tail, s->level, s->length, recs, m);
}

/* The bulk load's new nodes sorted, if the list was not empty and the load
 * changed no linked node's score in place: when they all go after the tail
 * they are appended (fr_zset_append), else, in a load begun by
 * fr_zset_bulk_begin_append, linked one by one in order (O(m log n), what
 * the same pairs cost outside a bulk load); 1 then, 0 when nothing was
 * linked (the caller rebuilds the whole list). */
static int fr_zset_bulk_append(fr_zset *s)
{
    fr_zset_rec *recs = (fr_zset_rec *)s->bulk_buf, *sorted, tail;
    size_t k, m = (size_t)s->bulk_new, len;
    const char *mem;
    if (s->bulk_moved || s->length == 0 || m == 0)
        return 0;
    for (k = 0; k < m; k++) {
        fr_zset_node *xn = FR_ZSET_N(s, recs[k].ref);
        mem = fr_zset_node_member(xn, &len);
        recs[k].key = fr_zset_score_key(xn->score);
        recs[k].pre = fr_zset_prefix(mem, len);
    }
    sorted = fr_zset_sort_recs(s, recs, recs + s->bulk_cap, m);
    mem = fr_zset_member(s, s->tail, &len);
    tail.key = fr_zset_score_key(fr_zset_score(s, s->tail));
    tail.pre = fr_zset_prefix(mem, len);
    tail.ref = s->tail;
    if (fr_zset_rec_cmp(s, &tail, &sorted[0]) < 0) {
        fr_zset_append(s, sorted, m);
        return 1;
    }
    if (!s->bulk_append)
        return 0;
    for (k = 0; k < m; k++)
        fr_zset_link(s, sorted[k].ref);
    return 1;
}

/* Ends a bulk load.  When the new nodes all sort after the old tail (and no
 * old score changed) they are sorted and appended, O(m log m + log n);
 * otherwise all nodes are sorted and the whole list rebuilt, O(n + m).
 * Never fails. */
void fr_zset_bulk_end(fr_zset *s)
{
    fr_zset_rec *recs = (fr_zset_rec *)s->bulk_buf, *sorted;
    uint64_t u = FR_ZSET_HEAD + FR_ZSET_N(s, FR_ZSET_HEAD)->units;
    size_t n = 0;
    assert(s->bulk && s->hcount <= s->bulk_cap);
    if (!s->bulk_moved && s->bulk_new == 0)
        goto done; /* no node added, no score changed: the list stands */
    if (fr_zset_bulk_append(s))
        goto done;
    while (u < s->top) {
        fr_zset_node *xn = FR_ZSET_N(s, u);
        if (fr_zset_chunk_live(s, u)) {
            size_t len;
            const char *m = fr_zset_node_member(xn, &len);
            recs[n].key = fr_zset_score_key(xn->score);
            recs[n].pre = fr_zset_prefix(m, len);
            recs[n].ref = (fr_zset_ref)u;
            n++;
        }
        u += fr_zset_chunk_units(s, u);
    }
    assert(n == s->hcount);
    sorted = fr_zset_sort_recs(s, recs, recs + s->bulk_cap, n);
    fr_zset_relink(s, sorted, n);
done:
    assert(s->length == s->hcount);
    fr_zset_arena_trim(s);
    free(s->bulk_buf);
    s->bulk_buf = NULL;
    s->bulk_cap = 0;
    s->bulk = 0;
}

/* ======================================================================
 * Life cycle
 * ====================================================================== */

static uint64_t fr_zset_seed_counter;

/* Initialises an empty set in *s (all fields).  0 or -1 (no memory). */
static int fr_zset_init(fr_zset *s)
{
    fr_zset_node *head;
    unsigned hu = fr_zset_units_for(FR_ZSET_MAXLEVEL, 0);
    memset(s, 0, sizeof *s);
    s->cap = 64;
    s->arena = (char *)malloc((size_t)s->cap * 8);
    s->nslots = 8;
    s->slots = (uint64_t *)calloc((size_t)s->nslots, sizeof(uint64_t));
    if (!s->arena || !s->slots) {
        free(s->arena);
        free(s->slots);
        return -1;
    }
    s->top = FR_ZSET_HEAD + hu;
    head = FR_ZSET_N(s, FR_ZSET_HEAD);
    memset(head, 0, (size_t)hu * 8);
    head->level = FR_ZSET_MAXLEVEL;
    head->units = (uint16_t)hu;
    s->level = 1;
    s->rng = 0x5eed0f5a5715eedULL;
    fr_zset_seed_counter += 0x9e3779b97f4a7c15ULL;
    s->seed = fr_zset_hash(&s, sizeof s, fr_zset_seed_counter ^ (uint64_t)(uintptr_t)s);
    return 0;
}

/* Frees out-of-line members of all live nodes. */
static void fr_zset_free_ext(fr_zset *s)
{
    uint64_t u;
    if (!s->ext_count)
        return;
    for (u = FR_ZSET_HEAD; u < s->top; u += fr_zset_chunk_units(s, u)) {
        fr_zset_node *xn = FR_ZSET_N(s, u);
        if (fr_zset_chunk_live(s, u) && xn->mlen == FR_ZSET_LONG) {
            size_t len;
            free((char *)fr_zset_node_member(xn, &len));
        }
    }
}

/* A new empty set, or NULL when out of memory. */
fr_zset *fr_zset_new(void)
{
    fr_zset *s = (fr_zset *)malloc(sizeof *s);
    if (s && fr_zset_init(s)) {
        free(s);
        s = NULL;
    }
    return s;
}

/* Frees the set and everything it owns (NULL is fine). */
void fr_zset_free(fr_zset *s)
{
    if (!s)
        return;
    fr_zset_free_ext(s);
    fr_zset_big_free(s->arena, (size_t)s->cap * 8);
    fr_zset_big_free(s->slots, (size_t)s->nslots * sizeof(uint64_t));
    free(s->bulk_buf);
    free(s);
}

/* Empties the set, releasing its memory.  0, or -1 when the fresh empty
 * state cannot be allocated (the set is then unchanged). */
int fr_zset_clear(fr_zset *s)
{
    fr_zset fresh;
    uint64_t version = s->version;
    if (fr_zset_init(&fresh))
        return -1;
    fr_zset_free_ext(s);
    fr_zset_big_free(s->arena, (size_t)s->cap * 8);
    fr_zset_big_free(s->slots, (size_t)s->nslots * sizeof(uint64_t));
    free(s->bulk_buf);
    *s = fresh;
    s->version = version + 1;
    return 0;
}

/* A deep copy (same refs, same hash seed), or NULL when out of memory. */
fr_zset *fr_zset_copy(const fr_zset *s)
{
    fr_zset *c = (fr_zset *)malloc(sizeof *c);
    uint64_t u;
    if (!c)
        return NULL;
    *c = *s;
    c->bulk_buf = NULL;
    c->bulk_cap = 0;
    c->cap = s->top;
    c->arena = (char *)fr_zset_big_alloc((size_t)c->cap * 8, 0);
    c->slots = (uint64_t *)fr_zset_big_alloc((size_t)c->nslots * sizeof(uint64_t), 0);
    if (!c->arena || !c->slots) {
        fr_zset_big_free(c->arena, (size_t)c->cap * 8);
        fr_zset_big_free(c->slots, (size_t)c->nslots * sizeof(uint64_t));
        free(c);
        return NULL;
    }
    memcpy(c->arena, s->arena, (size_t)s->top * 8);
    memcpy(c->slots, s->slots, (size_t)s->nslots * sizeof(uint64_t));
    if (!s->ext_count)
        return c;
    for (u = FR_ZSET_HEAD; u < c->top; u += fr_zset_chunk_units(c, u)) {
        fr_zset_node *xn = FR_ZSET_N(c, u);
        if (fr_zset_chunk_live(c, u) && xn->mlen == FR_ZSET_LONG) {
            fr_zset_ext e;
            char *p = (char *)xn + fr_zset_member_offset(xn->level);
            memcpy(&e, p, sizeof e);
            e.ptr = (char *)malloc(e.len);
            if (e.ptr)
                memcpy(e.ptr, fr_zset_member(s, (fr_zset_ref)u, &e.len), e.len);
            memcpy(p, &e, sizeof e);
            if (!e.ptr) { /* undo: free the copies made so far */
                uint64_t v;
                for (v = FR_ZSET_HEAD; v < u; v += fr_zset_chunk_units(c, v)) {
                    fr_zset_node *yn = FR_ZSET_N(c, v);
                    if (fr_zset_chunk_live(c, v) && yn->mlen == FR_ZSET_LONG) {
                        size_t len;
                        free((char *)fr_zset_node_member(yn, &len));
                    }
                }
                fr_zset_big_free(c->arena, (size_t)c->cap * 8);
                fr_zset_big_free(c->slots, (size_t)c->nslots * sizeof(uint64_t));
                free(c);
                return NULL;
            }
        }
    }
    return c;
}

/* COMPACTION.  Freed nodes go to free lists, so a set that lost most of
 * its members (a board trimmed to its top N) would keep its peak arena.
 * fr_zset_shrink moves the live nodes, in list order, into a fresh arena of
 * exactly their size and frees the old one, when the live nodes fill less
 * than a quarter of an arena of more than FR_ZSET_SHRINK_MIN units.  Right after
 * a shrink the arena is full, so it takes losing 3/4 of the members again
 * (or growing and then losing them) before the next one: each shrink costs
 * O(n) against the >= 3n removals that made it due, and a steady churn of
 * adds and removes never triggers it.  The index shrinks on its own (see
 * fr_zset_hash_remove).  Every ref changes: callers only shrink between whole
 * operations, never while they hold refs. */
#define FR_ZSET_SHRINK_MIN 8192u /* 64 KiB */

/* Units the live nodes take when laid out in list order from unit `top`,
 * pads included. */
static uint64_t fr_zset_compact_units(const fr_zset *s, uint64_t top)
{
    fr_zset_ref x;
    for (x = fr_zset_first(s); x; x = FR_ZSET_N(s, x)->fwd[0]) {
        const fr_zset_node *xn = FR_ZSET_N(s, x);
        unsigned hot = (unsigned)(fr_zset_member_offset(xn->level) + 7) / 8;
        unsigned off = (unsigned)(top % FR_ZSET_LINE_UNITS);
        if (off != 0 && off + hot > FR_ZSET_LINE_UNITS)
            top += FR_ZSET_LINE_UNITS - off;
        top += xn->units;
    }
    return top;
}

/* Compacts the arena when it is mostly free (see above).  1 when it was
 * compacted, 0 when not due, -1 when out of memory (nothing changed). */
int fr_zset_shrink(fr_zset *s)
{
    fr_zset old = *s;
    uint64_t hu = FR_ZSET_N(s, FR_ZSET_HEAD)->units, need, j;
    fr_zset_rec *recs;
    fr_zset_ref x;
    size_t k = 0;
    if (s->bulk || s->cap <= FR_ZSET_SHRINK_MIN || (FR_ZSET_HEAD + hu + s->live_units) * 4 >= s->cap)
        return 0;
    need = fr_zset_compact_units(s, FR_ZSET_HEAD + hu);
    recs = (fr_zset_rec *)malloc((size_t)(s->length ? s->length : 1) * sizeof(fr_zset_rec));
    s->arena = (char *)fr_zset_big_alloc((size_t)need * 8, 0);
    if (!recs || !s->arena) {
        free(recs);
        fr_zset_big_free(s->arena, (size_t)need * 8);
        *s = old;
        return -1;
    }
    s->cap = need;
    memcpy(s->arena + 8 * FR_ZSET_HEAD, old.arena + 8 * FR_ZSET_HEAD, (size_t)hu * 8);
    s->top = FR_ZSET_HEAD + hu;
    memset(s->freelist, 0, sizeof s->freelist);
    /* Copy each node; its old copy's backward field records the new ref. */
    for (x = fr_zset_first(&old); x; x = FR_ZSET_N(&old, x)->fwd[0]) {
        fr_zset_node *on = FR_ZSET_N(&old, x);
        unsigned pad = fr_zset_pad_units(s, on->level);
        if (pad) {
            uint64_t w = FR_ZSET_PAD_TAG | pad;
            memcpy(s->arena + (s->top << 3), &w, 8);
            s->top += pad;
        }
        memcpy(s->arena + (s->top << 3), on, (size_t)on->units * 8);
        on->backward = (fr_zset_ref)s->top;
        recs[k++].ref = (fr_zset_ref)s->top;
        s->top += on->units;
    }
    assert(s->top == need && k == s->length);
    for (j = 0; j < s->nslots; j++) {
        uint64_t v = s->slots[j];
        if (v)
            s->slots[j] = (v & 0xffffffff00000000ULL) | FR_ZSET_N(&old, (fr_zset_ref)v)->backward;
    }
    fr_zset_relink(s, recs, k);
    free(recs);
    fr_zset_big_free(old.arena, (size_t)old.cap * 8);
    return 1;
}

/* Bytes allocated for the set: struct, arena, index, long members. */
size_t fr_zset_memory(const fr_zset *s)
{
    return sizeof *s + fr_zset_big_size((size_t)s->cap * 8) +
           fr_zset_big_size((size_t)s->nslots * sizeof(uint64_t)) + s->ext_bytes;
}

/* ======================================================================
 * Checker
 * ====================================================================== */

#define FR_ZSET_FAIL(...)                                                      \
    do {                                                                   \
        snprintf(err, errlen, __VA_ARGS__);                                \
        return -1;                                                         \
    } while (0)

/* Verifies every invariant listed at the top of this file.  0, or -1 with a
 * message in err.  O(n * levels). */
int fr_zset_check(const fr_zset *s, char *err, size_t errlen)
{
    const fr_zset_node *head = FR_ZSET_N(s, FR_ZSET_HEAD);
    fr_zset_ref x, prev = FR_ZSET_NIL;
    uint64_t n = 0, u, live = 0, live_units = 0, slots = 0, j;
    int i;
    if (s->bulk)
        FR_ZSET_FAIL("inside a bulk load");
    if (s->level < 1 || s->level > FR_ZSET_MAXLEVEL)
        FR_ZSET_FAIL("bad level %d", s->level);
    /* level 0: order, backward, scores, index */
    for (x = head->fwd[0]; x; x = FR_ZSET_N(s, x)->fwd[0]) {
        const fr_zset_node *xn = FR_ZSET_N(s, x);
        size_t len;
        const char *m = fr_zset_node_member(xn, &len);
        if (x >= s->top || xn->level < 1 || xn->level > s->level)
            FR_ZSET_FAIL("node %u: bad ref or level %d", (unsigned)x, (int)xn->level);
        if (xn->score != xn->score)
            FR_ZSET_FAIL("node %u: NaN score", (unsigned)x);
        if (xn->backward != prev)
            FR_ZSET_FAIL("node %u: backward %u, expected %u", (unsigned)x, (unsigned)xn->backward,
                     (unsigned)prev);
        if (prev && fr_zset_cmp_key(FR_ZSET_N(s, prev), xn->score, m, len) >= 0)
            FR_ZSET_FAIL("node %u (rank %llu) out of order", (unsigned)x, (unsigned long long)(n + 1));
        if (fr_zset_find(s, m, len) != x)
            FR_ZSET_FAIL("node %u (rank %llu) not found by the index", (unsigned)x,
                     (unsigned long long)(n + 1));
        prev = x;
        if (++n > s->length)
            FR_ZSET_FAIL("more nodes than length %llu", (unsigned long long)s->length);
        if (fr_zset_hint_holds(s, x) && s->hint_rank != n)
            FR_ZSET_FAIL("rank hint: node %u has rank %llu, hint says %llu", (unsigned)x,
                     (unsigned long long)n, (unsigned long long)s->hint_rank);
    }
    if (n != s->length)
        FR_ZSET_FAIL("%llu nodes, length %llu", (unsigned long long)n, (unsigned long long)s->length);
    if (s->tail != prev)
        FR_ZSET_FAIL("tail %u, last node %u", (unsigned)s->tail, (unsigned)prev);
    if (s->hcount != n)
        FR_ZSET_FAIL("index holds %llu, list %llu", (unsigned long long)s->hcount, (unsigned long long)n);
    /* higher levels: membership and spans */
    for (i = 1; i < FR_ZSET_MAXLEVEL; i++) {
        uint64_t rank = 0;
        const fr_zset_node *xn = head;
        if (i >= s->level) {
            if (head->fwd[i])
                FR_ZSET_FAIL("header link at level %d above set level %d", i, s->level);
            continue;
        }
        if (i == s->level - 1 && !head->fwd[i] && s->level > 1)
            FR_ZSET_FAIL("top level %d empty", i);
        for (;;) {
            fr_zset_ref f = xn->fwd[i], y;
            uint64_t steps = 0;
            const fr_zset_node *yn = xn;
            if (!f) {
                if (fr_zset_span(xn, i) != n - rank)
                    FR_ZSET_FAIL("level %d: NIL span %u at rank %llu, expected %llu", i,
                             (unsigned)fr_zset_span(xn, i), (unsigned long long)rank,
                             (unsigned long long)(n - rank));
                break;
            }
            if (FR_ZSET_N(s, f)->level <= i)
                FR_ZSET_FAIL("level %d: node %u of level %d linked", i, (unsigned)f,
                         (int)FR_ZSET_N(s, f)->level);
            do { /* count level-0 steps, checking no skipped node is tall */
                y = yn->fwd[0];
                if (!y)
                    FR_ZSET_FAIL("level %d: link to %u not reachable on level 0", i, (unsigned)f);
                yn = FR_ZSET_N(s, y);
                steps++;
                if (y != f && yn->level > i)
                    FR_ZSET_FAIL("level %d: node %u skipped", i, (unsigned)y);
            } while (y != f);
            if (fr_zset_span(xn, i) != steps)
                FR_ZSET_FAIL("level %d: span %u at rank %llu, expected %llu", i,
                         (unsigned)fr_zset_span(xn, i), (unsigned long long)rank,
                         (unsigned long long)steps);
            rank += steps;
            xn = FR_ZSET_N(s, f);
        }
    }
    /* arena: chunks tile it; live chunks are exactly the list */
    for (u = FR_ZSET_HEAD + head->units; u < s->top; u += fr_zset_chunk_units(s, u)) {
        const fr_zset_node *xn = FR_ZSET_N(s, u);
        uint64_t cu = fr_zset_chunk_units(s, u);
        if (cu == 0 || cu > FR_ZSET_MAX_UNITS)
            FR_ZSET_FAIL("chunk %llu: bad size %llu", (unsigned long long)u, (unsigned long long)cu);
        if (fr_zset_chunk_live(s, u)) {
            size_t len;
            fr_zset_node_member(xn, &len);
            if (xn->units != fr_zset_units_for(xn->level, len))
                FR_ZSET_FAIL("node %llu: size %u", (unsigned long long)u, (unsigned)xn->units);
            live++;
            live_units += xn->units;
        }
    }
    if (u != s->top || live != n)
        FR_ZSET_FAIL("arena: %llu live chunks, %llu members", (unsigned long long)live,
                 (unsigned long long)n);
    if (live_units != s->live_units)
        FR_ZSET_FAIL("arena: %llu live units counted, %llu recorded",
                 (unsigned long long)live_units, (unsigned long long)s->live_units);
    for (j = 0; j < s->nslots; j++) {
        uint64_t v = s->slots[j];
        if (!v)
            continue;
        slots++;
        if ((uint32_t)(v >> 32) != (uint32_t)(fr_zset_node_hash(s, (fr_zset_ref)v) >> 32))
            FR_ZSET_FAIL("slot %llu: wrong tag", (unsigned long long)j);
    }
    if (slots != n || s->hcount * 5 > s->nslots * 4 + 4)
        FR_ZSET_FAIL("index: %llu slots used of %llu", (unsigned long long)slots,
                 (unsigned long long)s->nslots);
    return 0;
}
