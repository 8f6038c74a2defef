/* _zset.c -- skip list with rank spans and a member index, for fastrank.
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
 *     (frz_ref, in 8-byte units; see the byte diagram in _zset.h).  Links,
 *     backward pointers and index slots are 4 bytes instead of 8, and there
 *     is no per-node malloc header.  Freed nodes go to a free list per size
 *     (in units) and are reused by the next node of the same size; when the
 *     live nodes fill less than a quarter of a big arena, frz_shrink moves
 *     them into a fresh arena of their size (see "COMPACTION").  Growing
 *     the arena may move it, so a node pointer is only used between
 *     allocations; a compaction also renames every node (new refs).
 *   - The member is stored inline after the links (one cache line holds a
 *     typical node), the score is inside the node, and there is no separate
 *     dict entry or sds string: Redis spends ~120 bytes on a 9-byte member,
 *     this file ~48.5 measured at 10M members (node ~37 with line padding,
 *     index ~12).
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
 *     reallocated (frz_move).
 *   - The arena and the index, once past 4 MiB, are mmap'd 2 MiB-aligned
 *     with MADV_HUGEPAGE on Linux (see frz_big_alloc): a descent's ~30
 *     random node reads otherwise also miss the TLB.  The arena is trimmed
 *     to its exact size after a bulk load.
 *   - A fresh node never lets its HOT part (score, links, spans: all a
 *     search reads unless scores tie) straddle a 64-byte cache line: when
 *     it would, a PAD chunk (1..7 units, tagged with a NaN pattern no score
 *     can have) fills the rest of the line first (frz_pad_units).  Without
 *     it ~30% of the nodes a descent visits cost two lines, the second one
 *     not covered by the descent's prefetch.  Cachegrind (D1 32 KiB, LL
 *     32 MiB), misses per rank at 10M members: D1 55.0 -> 41.6, LL 17.4 ->
 *     13.3; at 1M: D1 39.9 -> 28.2.  Wall time in C at 10M (medians of 5
 *     alternating runs, loaded machine): rank 6.4 -> 5.3 us, incr 10.0 ->
 *     8.5 us; at 1M within the noise.  Cost: ~3.5 bytes per member.
 *   - Batch lookups (frz_find_batch, frz_rank_batch; the numpy paths
 *     rank_many / score_many) run up to FRZ_BATCH = 16 independent
 *     searches in lock step, each prefetching the node it reads next, so
 *     16 cache misses are in flight instead of one.  One descent is a
 *     chain of ~30 dependent misses that no layout removes; overlapping
 *     chains is what a batch can do.  At 1M members, wall time per member
 *     (median of 5, loaded 2-core machine): rank_many 3.7 -> 1.3 us,
 *     score_many 450 -> 180 ns.
 *   - incr_many (frz_incr_batch) cannot overlap its updates -- each one
 *     changes the list the next one searches -- so it first WARMS a block:
 *     finds the members as above, prefetches their neighbours and walks
 *     the paths to every old and new key in lock step without writing;
 *     then applies the increments in order, mostly from cache.  A stale
 *     warm-up only costs time, never correctness.  1M members: 2.8-7.8 ->
 *     2.2-4.5 us per pair (same loaded machine, alternating runs).
 *   - Bulk load (frz_bulk_*): members are written into nodes without
 *     linking; at the end all nodes are sorted (LSD radix sort on the score
 *     bits and a 4-byte member prefix, merge sort for the remaining ties)
 *     and the whole list is rebuilt in one left-to-right pass that tracks
 *     the last node of every level.  O(n) passes with no search per member.
 *
 * TRIED AND DROPPED: caching the top 32 bits of the next node's score in
 * every link above level 0 (so a search need not touch the nodes it looks
 * past) cut L1 misses by only ~5% in cachegrind at 1M members, for +2
 * bytes per member and more instructions: a p = 1/4 search's ~30 node
 * reads are mostly moves, not look-pasts.
 *
 * MEASURED, NOT BUILT: an "express lane" -- the links, spans and score of
 * every node of level >= 2 copied into a separate compact array, so a
 * search touches the node arena only on level 0.  A read-only prototype
 * (rank only, built after a bulk load) in cachegrind, misses per rank:
 * with the records in allocation order it is WORSE than the nodes (1M:
 * D1 29.2 -> 34.0; 10M: 42.6 -> 49.0, LL 14.2 -> 14.2), because the
 * bottom of the search now reads two structures; only with the records
 * grouped by level (tallest first, which a dynamic version would need one
 * pool per level for) does it win: 10M D1 42.6 -> 33.5, LL 14.2 -> 12.8
 * (-10%), 1M D1 29.2 -> 23.6, LL unchanged; for ~+4 bytes per member and
 * a second copy of every tall node's links to keep in step.  Not worth
 * its complexity next to the line padding above.
 *
 * INVARIANTS (verified by frz_check)
 * ---------------------------------
 *   - level-0 order is strictly increasing in (score, member); no score is
 *     NaN (refused by the caller, a NaN incr result by frz_incr).  Scores
 *     are stored as given, -0.0 included (it compares equal to +0.0, so
 *     the order is unaffected; callers that want Redis's listpack
 *     behaviour normalise it themselves);
 *   - backward pointers mirror level-0 links; tail is the last node;
 *   - a node of level L is on exactly the lists 0..L-1; no list above the
 *     set's level is used and the top list is non-empty (unless empty set);
 *   - span(x, i) = rank(x.fwd[i]) - rank(x), or length - rank(x) for NIL;
 *   - the index holds exactly the linked nodes, each under its hash tag.
 *
 * Sections: helpers; arena; hash index; span bookkeeping; searches; point
 * operations; batch lookups; ranges; bulk load; life cycle; checker.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mmap, mremap, madvise(MADV_HUGEPAGE) under -std=c99 */
#endif
#include "_zset.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define FRZ_ARENA_MAX ((uint64_t)UINT32_MAX) /* refs are 32-bit */

/* ======================================================================
 * Helpers
 * ====================================================================== */

/* memcmp order with the shorter of two equal prefixes first; <0, 0, >0. */
static inline int frz_memcmp(const char *a, size_t la, const char *b, size_t lb)
{
    size_t n = la < lb ? la : lb;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return (la > lb) - (la < lb);
}

/* Compare node n with the key (score, m): <0 when n sorts first. */
static inline int frz_cmp_key(const frz_node *n, double score, const char *m, size_t len)
{
    if (n->score < score)
        return -1;
    if (n->score > score)
        return 1;
    size_t nl;
    const char *nm = frz_node_member(n, &nl);
    return frz_memcmp(nm, nl, m, len);
}

/* splitmix64 step: the level generator (deterministic per set). */
static inline uint64_t frz_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Number of trailing zero bits of a non-zero word. */
static inline int frz_ctz64(uint64_t x)
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
static int frz_random_level(frz_set *s)
{
    uint64_t r = frz_rng_next(&s->rng);
    int lvl = 1 + (r ? frz_ctz64(r) : 64) / 2;
    return lvl > FRZ_MAXLEVEL ? FRZ_MAXLEVEL : lvl;
}

/* Formats v in decimal into buf (>= 20 bytes, not terminated); the length. */
int frz_format_u64(uint64_t v, char *buf)
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
int frz_format_i64(int64_t v, char *buf)
{
    if (v < 0) {
        buf[0] = '-';
        return 1 + frz_format_u64(0 - (uint64_t)v, buf + 1);
    }
    return frz_format_u64((uint64_t)v, buf);
}

/* 64x64 -> 128 multiply folded to 64 bits (low ^ high). */
static inline void frz_mum(uint64_t *a, uint64_t *b)
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

static inline uint64_t frz_mix(uint64_t a, uint64_t b)
{
    frz_mum(&a, &b);
    return a ^ b;
}

static inline uint64_t frz_r8(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t frz_r4(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Hash of a byte string: wyhash's construction (public domain, Wang Yi),
 * reduced to what short members need.  Host byte order, so values differ
 * between big- and little-endian hosts; they are never stored. */
uint64_t frz_hash(const void *key, size_t len, uint64_t seed)
{
    static const uint64_t s0 = 0xa0761d6478bd642fULL, s1 = 0xe7037ed1a0b428dbULL;
    const unsigned char *p = (const unsigned char *)key;
    uint64_t a, b;
    seed ^= frz_mix(seed ^ s0, s1);
    if (len <= 16) {
        if (len >= 4) {
            size_t q = (len >> 3) << 2;
            a = (frz_r4(p) << 32) | frz_r4(p + q);
            b = (frz_r4(p + len - 4) << 32) | frz_r4(p + len - 4 - q);
        } else if (len > 0) {
            a = ((uint64_t)p[0] << 16) | ((uint64_t)p[len >> 1] << 8) | p[len - 1];
            b = 0;
        } else {
            a = b = 0;
        }
    } else {
        size_t i = len;
        while (i > 16) {
            seed = frz_mix(frz_r8(p) ^ s1, frz_r8(p + 8) ^ seed);
            p += 16;
            i -= 16;
        }
        a = frz_r8(p + i - 16);
        b = frz_r8(p + i - 8);
    }
    a ^= s1;
    b ^= seed;
    frz_mum(&a, &b);
    return frz_mix(a ^ s0 ^ (uint64_t)len, b ^ s1);
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
#define FRZ_MMAP 1
#else
#define FRZ_MMAP 0
#endif
#define FRZ_HUGE ((size_t)2 << 20)
#define FRZ_BIG_MIN ((size_t)4 << 20)

/* Bytes really held for a buffer of len bytes. */
static inline size_t frz_big_size(size_t len)
{
    if (FRZ_MMAP && len >= FRZ_BIG_MIN)
        return (len + FRZ_HUGE - 1) & ~(FRZ_HUGE - 1);
    return len;
}

/* A buffer of len bytes (zeroed when zero is set), or NULL. */
static void *frz_big_alloc(size_t len, int zero)
{
#if FRZ_MMAP
    if (len >= FRZ_BIG_MIN) {
        size_t used = frz_big_size(len), maplen = used + FRZ_HUGE, head;
        char *p = (char *)mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                               -1, 0);
        char *a;
        if (p == MAP_FAILED)
            return NULL;
        a = (char *)(((uintptr_t)p + FRZ_HUGE - 1) & ~(uintptr_t)(FRZ_HUGE - 1));
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

/* Frees a buffer of len bytes from frz_big_alloc / frz_big_realloc. */
static void frz_big_free(void *p, size_t len)
{
    if (!p)
        return;
#if FRZ_MMAP
    if (len >= FRZ_BIG_MIN) {
        munmap(p, frz_big_size(len));
        return;
    }
#endif
    free(p);
}

/* Resizes a buffer from oldlen to newlen bytes, keeping the contents;
 * NULL (and p untouched) when out of memory. */
static void *frz_big_realloc(void *p, size_t oldlen, size_t newlen)
{
    void *q;
#if FRZ_MMAP
    if (oldlen < FRZ_BIG_MIN && newlen < FRZ_BIG_MIN)
        return realloc(p, newlen);
    if (oldlen >= FRZ_BIG_MIN && newlen >= FRZ_BIG_MIN) {
        size_t o = frz_big_size(oldlen), n = frz_big_size(newlen);
        if (n == o)
            return p;
        q = mremap(p, o, n, 0); /* in place: keeps the 2 MiB alignment */
        if (q != MAP_FAILED) {
            if (n > o)
                (void)madvise((char *)q + o, n - o, MADV_HUGEPAGE);
            return q;
        }
    }
    q = frz_big_alloc(newlen, 0);
    if (!q)
        return NULL;
    memcpy(q, p, oldlen < newlen ? oldlen : newlen);
    frz_big_free(p, oldlen);
    return q;
#else
    (void)oldlen;
    q = realloc(p, newlen);
    return q;
#endif
}

/* Byte offset of the member inside a node of the given level. */
static inline size_t frz_member_offset(unsigned level)
{
    return sizeof(frz_node) + 4u * (2u * level - 1u);
}

/* Size in units of a node of this level holding a member of len bytes. */
static inline unsigned frz_units_for(unsigned level, size_t len)
{
    size_t stored = len <= FRZ_INLINE_MAX ? len : sizeof(frz_ext);
    return (unsigned)((frz_member_offset(level) + stored + 7) / 8);
}

/* A PAD chunk fills the end of a cache line that a fresh node's hot part
 * would otherwise straddle (see frz_node_alloc).  It is 1..7 units long and
 * its first 8 bytes hold FRZ_PAD_TAG | length: a NaN pattern, which no node
 * score (first 8 bytes of every other chunk) can be.  Pads are never reused;
 * only the arena walkers see them, through the two helpers below. */
#define FRZ_PAD_TAG 0x7ff4adadadad0000ULL
#define FRZ_LINE_UNITS 8u /* 64-byte cache line */

/* The first word of chunk u (score bits, or a pad's tag). */
static inline uint64_t frz_chunk_word(const frz_set *s, uint64_t u)
{
    uint64_t w;
    memcpy(&w, s->arena + (u << 3), 8);
    return w;
}

/* Size in units of the chunk at unit u (node, free chunk or pad). */
static inline uint64_t frz_chunk_units(const frz_set *s, uint64_t u)
{
    uint64_t w = frz_chunk_word(s, u);
    if ((w & ~(uint64_t)0xffff) == FRZ_PAD_TAG)
        return w & 0xffff;
    return FRZ_N(s, u)->units;
}

/* True when the chunk at unit u is a linked (or bulk-loaded) node. */
static inline int frz_chunk_live(const frz_set *s, uint64_t u)
{
    uint64_t w = frz_chunk_word(s, u);
    return (w & ~(uint64_t)0xffff) != FRZ_PAD_TAG && FRZ_N(s, u)->level != 0;
}

/* Units of padding to put at the top before a fresh node of this level so
 * that its HOT part -- score, links and spans, all a search reads unless
 * scores tie -- sits in one cache line (or, when longer than a line, starts
 * one).  Offsets are taken from the arena start, which is 2 MiB-aligned
 * once the arena is big (frz_big_alloc); a small malloc'd arena is cache
 * resident anyway. */
static inline unsigned frz_pad_units(const frz_set *s, unsigned level)
{
    unsigned hot = (unsigned)(frz_member_offset(level) + 7) / 8;
    unsigned off = (unsigned)(s->top % FRZ_LINE_UNITS);
    if (off == 0 || off + hot <= FRZ_LINE_UNITS)
        return 0;
    return FRZ_LINE_UNITS - off;
}

/* Hints the CPU to start loading node r (FRZ_NIL is ignored).  Descents
 * prefetch the level-below successor while they test the current one, so
 * the miss of whichever is taken next overlaps with the current one. */
static inline void frz_prefetch(const frz_set *s, frz_ref r)
{
#if defined(__GNUC__) || defined(__clang__)
    if (r)
        __builtin_prefetch(FRZ_N(s, r));
#else
    (void)s;
    (void)r;
#endif
}

/* Makes room for `need` more units at the top; may move the arena.
 * 0, or -1 when out of memory or past the 32-bit ref space. */
static int frz_arena_reserve(frz_set *s, uint64_t need)
{
    uint64_t want = s->top + need, ncap;
    char *a;
    if (want <= s->cap)
        return 0;
    if (want > FRZ_ARENA_MAX || want > SIZE_MAX / 8)
        return -1;
    ncap = s->cap < 4096 ? 2 * s->cap : s->cap + s->cap / 2;
    if (ncap < want)
        ncap = want;
    if (ncap > FRZ_ARENA_MAX)
        ncap = FRZ_ARENA_MAX;
    a = (char *)frz_big_realloc(s->arena, (size_t)s->cap * 8, (size_t)ncap * 8);
    if (!a)
        return -1;
    s->arena = a;
    s->cap = ncap;
    return 0;
}

/* Gives back the arena's unused tail (after a bulk load, whose size is
 * known); failure to shrink is harmless. */
static void frz_arena_trim(frz_set *s)
{
    char *a;
    if (s->cap - s->top < 64)
        return;
    a = (char *)frz_big_realloc(s->arena, (size_t)s->cap * 8, (size_t)s->top * 8);
    if (a) {
        s->arena = a;
        s->cap = s->top;
    }
}

/* Allocates a node of `level` holding a copy of member m (len bytes), links
 * and spans zeroed, score 0.  Returns its ref, or FRZ_NIL when out of memory
 * (nothing changed).  Invalidates node pointers (the arena may move). */
static frz_ref frz_node_alloc(frz_set *s, int level, const char *m, size_t len)
{
    unsigned units = frz_units_for((unsigned)level, len);
    char *ext = NULL;
    frz_ref r;
    frz_node *n;
    if (len > FRZ_INLINE_MAX) {
        ext = (char *)malloc(len);
        if (!ext)
            return FRZ_NIL;
        memcpy(ext, m, len);
    }
    r = s->freelist[units];
    if (r) {
        s->freelist[units] = FRZ_N(s, r)->backward;
    } else {
        unsigned pad = frz_pad_units(s, (unsigned)level);
        if (frz_arena_reserve(s, pad + units)) {
            free(ext);
            return FRZ_NIL;
        }
        if (pad) {
            uint64_t w = FRZ_PAD_TAG | pad;
            memcpy(s->arena + (s->top << 3), &w, 8);
            s->top += pad;
        }
        r = (frz_ref)s->top;
        s->top += units;
    }
    s->live_units += units;
    n = FRZ_N(s, r);
    n->score = 0.0;
    n->backward = FRZ_NIL;
    n->level = (uint8_t)level;
    n->units = (uint16_t)units;
    memset(n->fwd, 0, 4u * (2u * (unsigned)level - 1u));
    if (ext) {
        frz_ext e = {len, ext};
        n->mlen = FRZ_LONG;
        memcpy((char *)n + frz_member_offset((unsigned)level), &e, sizeof e);
        s->ext_bytes += len;
        s->ext_count++;
    } else {
        n->mlen = (uint8_t)len;
        if (len)
            memcpy((char *)n + frz_member_offset((unsigned)level), m, len);
    }
    return r;
}

/* Returns node r (already unlinked and out of the index) to its free list. */
static void frz_node_free(frz_set *s, frz_ref r)
{
    frz_node *n = FRZ_N(s, r);
    if (n->mlen == FRZ_LONG) {
        size_t len;
        char *p = (char *)frz_node_member(n, &len);
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
static inline uint64_t frz_home(const frz_set *s, uint32_t tag)
{
    return ((uint64_t)tag * s->nslots) >> 32;
}

/* True when node n holds exactly member m. */
static inline int frz_member_eq(const frz_node *n, const char *m, size_t len)
{
    size_t nl;
    const char *nm = frz_node_member(n, &nl);
    return nl == len && (len == 0 || memcmp(nm, m, len) == 0);
}

/* The node holding member m (whose hash is h), or FRZ_NIL. */
static frz_ref frz_hash_find(const frz_set *s, const char *m, size_t len, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    uint64_t i = frz_home(s, tag);
    for (;;) {
        uint64_t v = s->slots[i];
        if (!v)
            return FRZ_NIL;
        if ((uint32_t)(v >> 32) == tag && frz_member_eq(FRZ_N(s, (frz_ref)v), m, len))
            return (frz_ref)v;
        if (++i == s->nslots)
            i = 0;
    }
}

/* Moves every entry into a fresh table of n slots (n > hcount).  0 or -1. */
static int frz_hash_resize(frz_set *s, uint64_t n)
{
    uint64_t *old = s->slots, oldn = s->nslots, j;
    uint64_t *slots = (uint64_t *)frz_big_alloc((size_t)n * sizeof(uint64_t), 1);
    if (!slots)
        return -1;
    s->slots = slots;
    s->nslots = n;
    for (j = 0; j < oldn; j++) {
        uint64_t v = old[j], i;
        if (!v)
            continue;
        i = frz_home(s, (uint32_t)(v >> 32));
        while (slots[i])
            if (++i == n)
                i = 0;
        slots[i] = v;
    }
    frz_big_free(old, (size_t)oldn * sizeof(uint64_t));
    return 0;
}

/* Ensures `count` entries fit under the load limit (0.8).  0 or -1. */
static int frz_hash_reserve(frz_set *s, uint64_t count)
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
    return frz_hash_resize(s, n);
}

/* Adds node r (hash h) to the index; room must have been reserved. */
static void frz_hash_put(frz_set *s, frz_ref r, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    uint64_t i = frz_home(s, tag);
    assert(s->hcount < s->nslots);
    while (s->slots[i])
        if (++i == s->nslots)
            i = 0;
    s->slots[i] = ((uint64_t)tag << 32) | r;
    s->hcount++;
}

/* Removes node r (hash h) from the index by backward-shift deletion; may
 * shrink the table (a failed shrink is harmless). */
static void frz_hash_remove(frz_set *s, frz_ref r, uint64_t h)
{
    uint64_t i = frz_home(s, (uint32_t)(h >> 32)), j;
    while ((frz_ref)s->slots[i] != r) {
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
        k = frz_home(s, (uint32_t)(v >> 32));
        /* v stays if its home lies cyclically in (i, j] */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        s->slots[i] = v;
        i = j;
    }
    s->slots[i] = 0;
    s->hcount--;
    if (s->nslots > 64 && s->hcount * 8 < s->nslots)
        (void)frz_hash_resize(s, s->hcount * 2 + 16);
}

/* Hash of node r's member. */
static inline uint64_t frz_node_hash(const frz_set *s, frz_ref r)
{
    size_t len;
    const char *m = frz_member(s, r, &len);
    return frz_hash(m, len, s->seed);
}

/* ======================================================================
 * Span bookkeeping: the only code that reads or writes spans
 * ====================================================================== */

/* Span of n's level-i link (level 0 is always 1). */
static inline uint32_t frz_span(const frz_node *n, int i)
{
    return i ? n->fwd[n->level + i - 1] : 1u;
}

/* Sets the span of n's level-i link, i >= 1. */
static inline void frz_span_set(frz_node *n, int i, uint32_t v)
{
    assert(i > 0 && i < n->level);
    n->fwd[n->level + i - 1] = v;
}

/* Links detached node x after the path upd[] (ranks rank[]), fixing spans of
 * x and of every level's predecessor, the backward links and the tail.
 * upd/rank cover levels 0..s->level-1, which already includes x's levels. */
static void frz_splice_in(frz_set *s, frz_ref x, const frz_ref *upd, const uint64_t *rank)
{
    frz_node *xn = FRZ_N(s, x);
    int lvl = xn->level, i;
    for (i = 0; i < lvl; i++) {
        frz_node *u = FRZ_N(s, upd[i]);
        xn->fwd[i] = u->fwd[i];
        u->fwd[i] = x;
        if (i) {
            uint32_t d = (uint32_t)(rank[0] - rank[i]);
            frz_span_set(xn, i, frz_span(u, i) - d);
            frz_span_set(u, i, d + 1);
        }
    }
    for (; i < s->level; i++) {
        frz_node *u = FRZ_N(s, upd[i]);
        frz_span_set(u, i, frz_span(u, i) + 1);
    }
    xn->backward = upd[0] == FRZ_HEAD ? FRZ_NIL : upd[0];
    if (xn->fwd[0])
        FRZ_N(s, xn->fwd[0])->backward = x;
    else
        s->tail = x;
    s->length++;
    s->version++;
}

/* Unlinks node x whose predecessors on every level are upd[]; fixes spans,
 * backward links, tail and the set's level.  x stays allocated. */
static void frz_splice_out(frz_set *s, frz_ref x, const frz_ref *upd)
{
    frz_node *xn = FRZ_N(s, x), *head;
    int i;
    for (i = 0; i < s->level; i++) {
        frz_node *u = FRZ_N(s, upd[i]);
        if (u->fwd[i] == x) {
            if (i)
                frz_span_set(u, i, frz_span(u, i) + frz_span(xn, i) - 1);
            u->fwd[i] = xn->fwd[i];
        } else if (i) {
            frz_span_set(u, i, frz_span(u, i) - 1);
        }
    }
    if (xn->fwd[0])
        FRZ_N(s, xn->fwd[0])->backward = xn->backward;
    else
        s->tail = xn->backward;
    head = FRZ_N(s, FRZ_HEAD);
    while (s->level > 1 && head->fwd[s->level - 1] == FRZ_NIL)
        s->level--;
    s->length--;
    s->version++;
}

/* Raises the set's level to lvl, giving the header's new links the span of
 * the whole list; upd/rank get the header for those levels. */
static void frz_raise_level(frz_set *s, int lvl, frz_ref *upd, uint64_t *rank)
{
    frz_node *head = FRZ_N(s, FRZ_HEAD);
    int i;
    for (i = s->level; i < lvl; i++) {
        upd[i] = FRZ_HEAD;
        rank[i] = 0;
        frz_span_set(head, i, (uint32_t)s->length);
    }
    s->level = lvl;
}

/* ======================================================================
 * Searches
 * ====================================================================== */

/* Fills upd[i] with the last node < (score, m) on each level (the header if
 * none) and rank[i] (may be NULL) with its rank (header = 0). */
static void frz_find_path(const frz_set *s, double score, const char *m, size_t len,
                          frz_ref *upd, uint64_t *rank)
{
    frz_ref x = FRZ_HEAD, f;
    const frz_node *xn = FRZ_N(s, x);
    uint64_t r = 0;
    int i;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            frz_prefetch(s, xn->fwd[i - 1]);
        while ((f = xn->fwd[i]) && frz_cmp_key(FRZ_N(s, f), score, m, len) < 0) {
            r += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
            if (i)
                frz_prefetch(s, xn->fwd[i - 1]);
        }
        upd[i] = x;
        if (rank)
            rank[i] = r;
    }
}

/* Links detached node x (level and score set) at its place in the order. */
static void frz_link(frz_set *s, frz_ref x)
{
    frz_ref upd[FRZ_MAXLEVEL];
    uint64_t rank[FRZ_MAXLEVEL];
    size_t len;
    const frz_node *xn = FRZ_N(s, x);
    const char *m = frz_node_member(xn, &len);
    frz_find_path(s, xn->score, m, len, upd, rank);
    if (xn->level > s->level)
        frz_raise_level(s, xn->level, upd, rank);
    frz_splice_in(s, x, upd, rank);
}

/* Unlinks node x from the list (it stays in the index and allocated). */
static void frz_unlink(frz_set *s, frz_ref x)
{
    frz_ref upd[FRZ_MAXLEVEL];
    size_t len;
    const frz_node *xn = FRZ_N(s, x);
    const char *m = frz_node_member(xn, &len);
    frz_find_path(s, xn->score, m, len, upd, NULL);
    assert(FRZ_N(s, upd[0])->fwd[0] == x);
    frz_splice_out(s, x, upd);
}

/* 1-based rank of linked node target.  O(log n). */
uint64_t frz_rank(const frz_set *s, frz_ref target)
{
    const frz_node *tn = FRZ_N(s, target), *xn = FRZ_N(s, FRZ_HEAD);
    double score = tn->score;
    size_t len;
    const char *m = frz_node_member(tn, &len);
    uint64_t r = 0;
    frz_ref f;
    int i;
    if (target == s->tail)
        return s->length;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            frz_prefetch(s, xn->fwd[i - 1]);
        while ((f = xn->fwd[i]) && (f == target || frz_cmp_key(FRZ_N(s, f), score, m, len) < 0)) {
            r += frz_span(xn, i);
            if (f == target)
                return r;
            xn = FRZ_N(s, f);
            if (i)
                frz_prefetch(s, xn->fwd[i - 1]);
        }
    }
    assert(0 && "node not in list");
    return 0;
}

/* Node at 1-based rank, or FRZ_NIL when out of 1..length.  O(log n). */
frz_ref frz_at_rank(const frz_set *s, uint64_t rank)
{
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    uint64_t t = 0;
    frz_ref x = FRZ_HEAD, f;
    int i;
    if (rank == 0 || rank > s->length)
        return FRZ_NIL;
    if (rank == s->length)
        return s->tail;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            frz_prefetch(s, xn->fwd[i - 1]);
        while ((f = xn->fwd[i]) && t + frz_span(xn, i) <= rank) {
            t += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
            if (i)
                frz_prefetch(s, xn->fwd[i - 1]);
        }
        if (t == rank)
            return x;
    }
    return FRZ_NIL;
}

/* Fills upd[] with the predecessors of the node at 1-based rank `rank`. */
static void frz_path_to_rank(const frz_set *s, uint64_t rank, frz_ref *upd)
{
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    uint64_t t = 0;
    frz_ref x = FRZ_HEAD, f;
    int i;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && t + frz_span(xn, i) < rank) {
            t += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
        }
        upd[i] = x;
    }
}

/* ======================================================================
 * Point operations
 * ====================================================================== */

/* Node holding member m, or FRZ_NIL.  O(1) expected. */
frz_ref frz_find(const frz_set *s, const char *m, size_t len)
{
    return frz_hash_find(s, m, len, frz_hash(m, len, s->seed));
}

/* 1-based rank of member m, 0 when absent. */
uint64_t frz_rank_of(const frz_set *s, const char *m, size_t len)
{
    frz_ref r = frz_find(s, m, len);
    return r ? frz_rank(s, r) : 0;
}

/* Inserts member m (absent; hash h) with score.  The new ref, or FRZ_NIL
 * when out of memory (nothing changed). */
static frz_ref frz_insert(frz_set *s, const char *m, size_t len, double score, uint64_t h)
{
    frz_ref r;
    if (frz_hash_reserve(s, s->hcount + 1))
        return FRZ_NIL;
    r = frz_node_alloc(s, frz_random_level(s), m, len);
    if (!r)
        return FRZ_NIL;
    FRZ_N(s, r)->score = score;
    frz_link(s, r);
    frz_hash_put(s, r, h);
    return r;
}

/* Moves linked node r to a different score ns that does not fit in place:
 * one descent tracks two cursors, for the lower and the higher of the old
 * and new keys (they share the path until they part, so a small move costs
 * about one search, not two), then unlinks at the old place and links at
 * the new one, correcting the new path for the node's removal. */
static void frz_move(frz_set *s, frz_ref r, double ns)
{
    frz_ref ulo[FRZ_MAXLEVEL], uhi[FRZ_MAXLEVEL], *unew, a = FRZ_HEAD, b = FRZ_HEAD, f;
    uint64_t rlo[FRZ_MAXLEVEL], rhi[FRZ_MAXLEVEL], *rnew, ra = 0, rb = 0;
    const frz_node *x = FRZ_N(s, r), *an = FRZ_N(s, FRZ_HEAD), *bn = an;
    size_t len;
    const char *m = frz_node_member(x, &len);
    int up = ns > x->score, i;
    double lo = up ? x->score : ns, hi = up ? ns : x->score;
    for (i = s->level - 1; i >= 0; i--) {
        if (i)
            frz_prefetch(s, an->fwd[i - 1]);
        while ((f = an->fwd[i]) && frz_cmp_key(FRZ_N(s, f), lo, m, len) < 0) {
            ra += frz_span(an, i);
            a = f;
            an = FRZ_N(s, f);
        }
        ulo[i] = a;
        rlo[i] = ra;
        if (rb < ra) { /* the high cursor is never behind the low one */
            b = a;
            bn = an;
            rb = ra;
        }
        while ((f = bn->fwd[i]) && frz_cmp_key(FRZ_N(s, f), hi, m, len) < 0) {
            rb += frz_span(bn, i);
            b = f;
            bn = FRZ_N(s, f);
        }
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
        frz_splice_out(s, r, ulo);
        unew = uhi;
        rnew = rhi;
    } else { /* r sits after uhi; the new path ulo lies before r */
        frz_splice_out(s, r, uhi);
        unew = ulo;
        rnew = rlo;
    }
    FRZ_N(s, r)->score = ns;
    if (FRZ_N(s, r)->level > s->level)
        frz_raise_level(s, FRZ_N(s, r)->level, unew, rnew);
    frz_splice_in(s, r, unew, rnew);
}

/* Gives linked node r a new score (not NaN), moving it if needed.  The node
 * is reused, never reallocated; stays in place when it still fits between
 * its neighbours.  Only the neighbour on the side it moves towards is read
 * (one cache miss, not two): the other one sorts before (after) the old
 * key, so before (after) the new one too. */
void frz_set_score(frz_set *s, frz_ref r, double score)
{
    frz_node *x = FRZ_N(s, r);
    size_t len;
    const char *m = frz_node_member(x, &len);
    frz_ref prev = x->backward, next = x->fwd[0];
    if (score > x->score)
        prev = FRZ_NIL;
    else if (score < x->score)
        next = FRZ_NIL;
    if ((prev == FRZ_NIL || frz_cmp_key(FRZ_N(s, prev), score, m, len) < 0) &&
        (next == FRZ_NIL || frz_cmp_key(FRZ_N(s, next), score, m, len) > 0)) {
        x->score = score;
        s->version++;
        return;
    }
    frz_move(s, r, score);
}

/* ZADD of one pair with FRZ_NX/XX/GT/LT flags (a valid combination, score
 * not NaN).  Returns 0 nothing done, 1 added, 2 score changed, -1 no memory. */
int frz_add(frz_set *s, const char *m, size_t len, double score, int flags)
{
    uint64_t h = frz_hash(m, len, s->seed);
    frz_ref r = frz_hash_find(s, m, len, h);
    if (r) {
        double cur = FRZ_N(s, r)->score;
        if (flags & FRZ_NX)
            return 0;
        if ((flags & FRZ_GT) && !(score > cur))
            return 0;
        if ((flags & FRZ_LT) && !(score < cur))
            return 0;
        if (score == cur)
            return 0;
        frz_set_score(s, r, score);
        return 2;
    }
    if (flags & FRZ_XX)
        return 0;
    return frz_insert(s, m, len, score, h) ? 1 : -1;
}

/* ZINCRBY of member m whose hash is h: adds delta to m's score (a missing
 * member starts at 0).  0 done (*newscore set; ref/oldscore/was_new, each optional, describe the
 * change for an undo), -1 the result is NaN (nothing changed), -2 no memory. */
static int frz_incr_hashed(frz_set *s, const char *m, size_t len, uint64_t h, double delta,
                           double *newscore, frz_ref *ref, double *oldscore, int *was_new)
{
    frz_ref r = frz_hash_find(s, m, len, h);
    double cur = 0.0, ns;
    int created = 0;
    if (r)
        cur = FRZ_N(s, r)->score;
    ns = cur + delta;
    if (ns != ns)
        return -1;
    if (r) {
        if (ns != cur)
            frz_set_score(s, r, ns);
    } else {
        r = frz_insert(s, m, len, ns, h);
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

/* frz_incr_hashed with the member's hash computed here. */
int frz_incr(frz_set *s, const char *m, size_t len, double delta, double *newscore,
             frz_ref *ref, double *oldscore, int *was_new)
{
    return frz_incr_hashed(s, m, len, frz_hash(m, len, s->seed), delta, newscore, ref, oldscore,
                           was_new);
}

/* Removes linked node r: list, index, storage. */
void frz_delete_ref(frz_set *s, frz_ref r)
{
    uint64_t h = frz_node_hash(s, r);
    frz_unlink(s, r);
    frz_hash_remove(s, r, h);
    frz_node_free(s, r);
}

/* ZREM of one member: 1 removed, 0 absent. */
int frz_delete(frz_set *s, const char *m, size_t len)
{
    uint64_t h = frz_hash(m, len, s->seed);
    frz_ref r = frz_hash_find(s, m, len, h);
    if (!r)
        return 0;
    frz_unlink(s, r);
    frz_hash_remove(s, r, h);
    frz_node_free(s, r);
    return 1;
}

/* ======================================================================
 * Batch lookups: several independent searches in lock step
 * ====================================================================== */

/* One search is a chain of dependent cache misses; g searches advanced
 * round-robin, each prefetching the node it reads next, keep g misses in
 * flight at once (group prefetching).  Answers equal the one-at-a-time
 * functions'.  FRZ_BATCH bounds g. */

/* Hints the CPU to load the cache line at p. */
static inline void frz_prefetch_addr(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}

/* h[j] = the hash of member j and out[j] = its node or FRZ_NIL, for j < g
 * (g <= FRZ_BATCH): hashes all and prefetches their home slots, then the
 * first tag-matching node of each, then probes. */
static void frz_hash_batch(const frz_set *s, const char *const *m, const size_t *len, size_t g,
                           uint64_t *h, frz_ref *out)
{
    size_t j;
    assert(g <= FRZ_BATCH);
    for (j = 0; j < g; j++) {
        h[j] = frz_hash(m[j], len[j], s->seed);
        frz_prefetch_addr(&s->slots[frz_home(s, (uint32_t)(h[j] >> 32))]);
    }
    for (j = 0; j < g; j++) {
        uint32_t tag = (uint32_t)(h[j] >> 32);
        uint64_t i = frz_home(s, tag), v;
        while ((v = s->slots[i]) && (uint32_t)(v >> 32) != tag)
            if (++i == s->nslots)
                i = 0;
        frz_prefetch(s, (frz_ref)v);
    }
    for (j = 0; j < g; j++)
        out[j] = frz_hash_find(s, m[j], len[j], h[j]);
}

/* out[j] = frz_find(s, m[j], len[j]) for j < g (g <= FRZ_BATCH). */
void frz_find_batch(const frz_set *s, const char *const *m, const size_t *len, size_t g,
                    frz_ref *out)
{
    uint64_t h[FRZ_BATCH];
    frz_hash_batch(s, m, len, g, h, out);
}

/* A descent in flight: towards node `target` (a rank search), or, with
 * target FRZ_NIL, to the last node before the key (score, m) on level 0. */
typedef struct frz_cursor {
    const frz_node *xn; /* last node passed */
    frz_ref target;
    int level;          /* list being walked */
    uint64_t rank;      /* rank of xn */
    double score;
    const char *m;
    size_t len;
} frz_cursor;

/* Starts cursor c at the header for target / key (score, m, len). */
static void frz_cursor_init(const frz_set *s, frz_cursor *c, frz_ref target, double score,
                            const char *m, size_t len)
{
    c->xn = FRZ_N(s, FRZ_HEAD);
    c->target = target;
    c->level = s->level - 1;
    c->rank = 0;
    c->score = score;
    c->m = m;
    c->len = len;
    frz_prefetch(s, c->xn->fwd[c->level]);
}

/* One step of cursor c: passes one node or descends one level; true when
 * done (for a target, c->rank is then its rank).  Prefetches the node the
 * next step reads. */
static inline int frz_cursor_step(const frz_set *s, frz_cursor *c)
{
    int i = c->level;
    frz_ref f = c->xn->fwd[i];
    if (f && (f == c->target || frz_cmp_key(FRZ_N(s, f), c->score, c->m, c->len) < 0)) {
        c->rank += frz_span(c->xn, i);
        if (f == c->target)
            return 1;
        c->xn = FRZ_N(s, f);
    } else if (--c->level < 0) {
        assert(!c->target && "node not in list");
        return 1;
    } else {
        i = c->level;
    }
    frz_prefetch(s, c->xn->fwd[i]);
    return 0;
}

/* Runs cursors c[0..live) round-robin to the end; when out is given,
 * out[slot[j]] receives cursor j's final rank.  Reorders c and slot. */
static void frz_cursors_run(const frz_set *s, frz_cursor *c, size_t *slot, size_t live,
                            uint64_t *out)
{
    size_t j;
    while (live) {
        for (j = 0; j < live;) {
            if (!frz_cursor_step(s, &c[j])) {
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

/* out[j] = frz_rank(s, refs[j]), or 0 where refs[j] is FRZ_NIL, for j < g
 * (g <= FRZ_BATCH); the descents advance one step each in turn. */
void frz_rank_batch(const frz_set *s, const frz_ref *refs, size_t g, uint64_t *out)
{
    frz_cursor c[FRZ_BATCH];
    size_t slot[FRZ_BATCH], j, live = 0;
    assert(g <= FRZ_BATCH);
    for (j = 0; j < g; j++) {
        const frz_node *t = FRZ_N(s, refs[j]);
        size_t len;
        const char *m;
        out[j] = refs[j] == s->tail ? s->length : 0; /* NIL tail: empty set */
        if (!refs[j] || refs[j] == s->tail)
            continue;
        m = frz_node_member(t, &len);
        frz_cursor_init(s, &c[live], refs[j], t->score, m, len);
        slot[live++] = j;
    }
    frz_cursors_run(s, c, slot, live, out);
}

/* Prefetches what the increments of pairs j < g will read (r[j]: the
 * member's node or FRZ_NIL): the node's neighbours, and the search paths
 * to its old and new keys, walked in lock step without changing anything. */
static void frz_warm_incr(const frz_set *s, const char *const *m, const size_t *len,
                          const double *delta, size_t g, const frz_ref *r)
{
    frz_cursor c[2 * FRZ_BATCH];
    size_t slot[2 * FRZ_BATCH], j, live = 0;
    for (j = 0; j < g; j++) {
        double cur = 0.0, ns;
        if (r[j]) {
            const frz_node *x = FRZ_N(s, r[j]);
            cur = x->score;
            frz_prefetch(s, delta[j] > 0 ? x->fwd[0] : x->backward);
            frz_cursor_init(s, &c[live], FRZ_NIL, cur, m[j], len[j]);
            slot[live++] = j;
        }
        ns = cur + delta[j];
        if (ns == ns) {
            frz_cursor_init(s, &c[live], FRZ_NIL, ns, m[j], len[j]);
            slot[live++] = j;
        }
    }
    frz_cursors_run(s, c, slot, live, NULL);
}

/* frz_incr of pairs j < g (g <= FRZ_BATCH) in order, pair j writing
 * newscore[j], ref[j], oldscore[j] and was_new[j].  First finds all
 * members and walks all their paths in lock step (frz_warm_incr) so that
 * the increments, which must run one after the other, mostly hit the
 * cache.  Returns the number of pairs done; when fewer than g, *rc holds
 * the failing pair's frz_incr code and that pair changed nothing. */
size_t frz_incr_batch(frz_set *s, const char *const *m, const size_t *len, const double *delta,
                      size_t g, double *newscore, frz_ref *ref, double *oldscore, int *was_new,
                      int *rc)
{
    uint64_t h[FRZ_BATCH];
    frz_ref r[FRZ_BATCH];
    size_t j;
    frz_hash_batch(s, m, len, g, h, r);
    frz_warm_incr(s, m, len, delta, g, r);
    for (j = 0; j < g; j++) {
        int c = frz_incr_hashed(s, m[j], len[j], h[j], delta[j], &newscore[j], &ref[j],
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

static inline int frz_gte_min(double v, const frz_range *r)
{
    return r->minex ? v > r->min : v >= r->min;
}

static inline int frz_lte_max(double v, const frz_range *r)
{
    return r->maxex ? v < r->max : v <= r->max;
}

/* True when no score can be inside r (min > max, or an excluded point). */
static inline int frz_range_empty(const frz_range *r)
{
    return r->min > r->max || (r->min == r->max && (r->minex || r->maxex));
}

static inline int frz_lex_gte_min(const frz_node *n, const frz_lexrange *r)
{
    size_t len;
    const char *m;
    int c;
    if (r->mininf)
        return 1;
    m = frz_node_member(n, &len);
    c = frz_memcmp(m, len, r->min, r->minlen);
    return r->minex ? c > 0 : c >= 0;
}

static inline int frz_lex_lte_max(const frz_node *n, const frz_lexrange *r)
{
    size_t len;
    const char *m;
    int c;
    if (r->maxinf)
        return 1;
    m = frz_node_member(n, &len);
    c = frz_memcmp(m, len, r->max, r->maxlen);
    return r->maxex ? c < 0 : c <= 0;
}

static inline int frz_lex_empty(const frz_lexrange *r)
{
    int c;
    if (r->mininf || r->maxinf)
        return 0;
    c = frz_memcmp(r->min, r->minlen, r->max, r->maxlen);
    return c > 0 || (c == 0 && (r->minex || r->maxex));
}

/* First node with score in r and its 1-based rank (optional), or FRZ_NIL. */
frz_ref frz_first_in_range(const frz_set *s, const frz_range *r, uint64_t *rank)
{
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    frz_ref x = FRZ_HEAD, f;
    uint64_t t = 0;
    int i;
    if (frz_range_empty(r) || !s->tail || !frz_gte_min(FRZ_N(s, s->tail)->score, r))
        return FRZ_NIL;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && !frz_gte_min(FRZ_N(s, f)->score, r)) {
            t += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
        }
    }
    x = xn->fwd[0];
    if (!x || !frz_lte_max(FRZ_N(s, x)->score, r))
        return FRZ_NIL;
    if (rank)
        *rank = t + 1;
    return x;
}

/* Last node with score in r and its 1-based rank (optional), or FRZ_NIL. */
frz_ref frz_last_in_range(const frz_set *s, const frz_range *r, uint64_t *rank)
{
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    frz_ref x = FRZ_HEAD, f;
    uint64_t t = 0;
    int i;
    if (frz_range_empty(r) || !s->tail || !frz_lte_max(FRZ_N(s, frz_first(s))->score, r))
        return FRZ_NIL;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && frz_lte_max(FRZ_N(s, f)->score, r)) {
            t += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
        }
    }
    if (x == FRZ_HEAD || !frz_gte_min(xn->score, r))
        return FRZ_NIL;
    if (rank)
        *rank = t;
    return x;
}

/* True when every member has the same score (or there are fewer than two):
 * then the list is in member order and lex searches may use every level. */
int frz_one_score(const frz_set *s)
{
    return !s->tail || FRZ_N(s, frz_first(s))->score == FRZ_N(s, s->tail)->score;
}

/* Whether node x's member is >= r's min (<= r's max): ZRANGEBYLEX's tests. */
int frz_lex_ref_gte_min(const frz_set *s, frz_ref x, const frz_lexrange *r)
{
    return frz_lex_gte_min(FRZ_N(s, x), r);
}

int frz_lex_ref_lte_max(const frz_set *s, frz_ref x, const frz_lexrange *r)
{
    return frz_lex_lte_max(FRZ_N(s, x), r);
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
static int frz_lex_possible(const frz_set *s, const frz_lexrange *r)
{
    return !frz_lex_empty(r) && s->tail && frz_lex_gte_min(FRZ_N(s, s->tail), r) &&
           frz_lex_lte_max(FRZ_N(s, frz_first(s)), r);
}

/* First node with member in r and its rank, or FRZ_NIL (see above). */
frz_ref frz_first_in_lex(const frz_set *s, const frz_lexrange *r, uint64_t *rank)
{
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    frz_ref x = FRZ_HEAD, f;
    uint64_t t = 0;
    int i;
    if (!frz_lex_possible(s, r))
        return FRZ_NIL;
    for (i = frz_one_score(s) ? s->level - 1 : 0; i >= 0; i--) {
        while ((f = xn->fwd[i]) && !frz_lex_gte_min(FRZ_N(s, f), r)) {
            t += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
        }
    }
    x = xn->fwd[0];
    if (!x || !frz_lex_lte_max(FRZ_N(s, x), r))
        return FRZ_NIL;
    if (rank)
        *rank = t + 1;
    return x;
}

/* Last node with member in r, its rank, or FRZ_NIL (see above). */
frz_ref frz_last_in_lex(const frz_set *s, const frz_lexrange *r, uint64_t *rank)
{
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    frz_ref x = FRZ_HEAD, f;
    uint64_t t = 0;
    int i;
    if (!frz_lex_possible(s, r))
        return FRZ_NIL;
    for (i = frz_one_score(s) ? s->level - 1 : 0; i >= 0; i--) {
        while ((f = xn->fwd[i]) && frz_lex_lte_max(FRZ_N(s, f), r)) {
            t += frz_span(xn, i);
            x = f;
            xn = FRZ_N(s, f);
        }
    }
    if (x == FRZ_HEAD || !frz_lex_gte_min(xn, r))
        return FRZ_NIL;
    if (rank)
        *rank = t;
    return x;
}

/* Removes x (the successor of upd[0]) from list, index and storage; the
 * path upd[] stays valid for x's successor. */
static void frz_remove_at(frz_set *s, frz_ref x, const frz_ref *upd)
{
    uint64_t h = frz_node_hash(s, x);
    frz_splice_out(s, x, upd);
    frz_hash_remove(s, x, h);
    frz_node_free(s, x);
}

/* ZREMRANGEBYRANK with 1-based inclusive ranks (1 <= start <= end clamped
 * by the caller); the number removed. */
uint64_t frz_delete_range_by_rank(frz_set *s, uint64_t start, uint64_t end)
{
    frz_ref upd[FRZ_MAXLEVEL], x;
    uint64_t removed = 0;
    if (start < 1)
        start = 1;
    if (end > s->length)
        end = s->length;
    if (start > end)
        return 0;
    frz_path_to_rank(s, start, upd);
    x = FRZ_N(s, upd[0])->fwd[0];
    while (x && start + removed <= end) {
        frz_ref next = FRZ_N(s, x)->fwd[0];
        frz_remove_at(s, x, upd);
        removed++;
        x = next;
    }
    return removed;
}

/* ZREMRANGEBYSCORE; the number removed. */
uint64_t frz_delete_range_by_score(frz_set *s, const frz_range *r)
{
    frz_ref upd[FRZ_MAXLEVEL], x = FRZ_HEAD, f;
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    uint64_t removed = 0;
    int i;
    if (frz_range_empty(r))
        return 0;
    for (i = s->level - 1; i >= 0; i--) {
        while ((f = xn->fwd[i]) && !frz_gte_min(FRZ_N(s, f)->score, r)) {
            x = f;
            xn = FRZ_N(s, f);
        }
        upd[i] = x;
    }
    x = xn->fwd[0];
    while (x && frz_lte_max(FRZ_N(s, x)->score, r)) {
        frz_ref next = FRZ_N(s, x)->fwd[0];
        frz_remove_at(s, x, upd);
        removed++;
        x = next;
    }
    return removed;
}

/* ZREMRANGEBYLEX: from the first member >= min (a level-0 walk over mixed
 * scores, see above) while members are <= max; the number removed. */
uint64_t frz_delete_range_by_lex(frz_set *s, const frz_lexrange *r)
{
    frz_ref upd[FRZ_MAXLEVEL], x = FRZ_HEAD, f;
    const frz_node *xn = FRZ_N(s, FRZ_HEAD);
    uint64_t removed = 0, t = 0;
    int i;
    if (frz_lex_empty(r))
        return 0;
    if (frz_one_score(s)) {
        for (i = s->level - 1; i >= 0; i--) {
            while ((f = xn->fwd[i]) && !frz_lex_gte_min(FRZ_N(s, f), r)) {
                x = f;
                xn = FRZ_N(s, f);
            }
            upd[i] = x;
        }
    } else {
        while ((f = xn->fwd[0]) && !frz_lex_gte_min(FRZ_N(s, f), r)) {
            t++;
            xn = FRZ_N(s, f);
        }
        frz_path_to_rank(s, t + 1, upd);
        xn = FRZ_N(s, upd[0]);
    }
    x = xn->fwd[0];
    while (x && frz_lex_lte_max(FRZ_N(s, x), r)) {
        frz_ref next = FRZ_N(s, x)->fwd[0];
        frz_remove_at(s, x, upd);
        removed++;
        x = next;
    }
    return removed;
}

/* ======================================================================
 * Bulk load: write nodes unlinked, then sort and rebuild the list
 * ====================================================================== */

/* A sort record: order key of the score, first 4 member bytes big-endian. */
typedef struct frz_rec {
    uint64_t key;
    uint32_t pre;
    frz_ref ref;
} frz_rec;

/* Unsigned key with the order of the (non-NaN) double; -0.0 gets +0.0's
 * key (they are equal scores, so ties go by member). */
static inline uint64_t frz_score_key(double d)
{
    uint64_t u;
    if (d == 0.0)
        d = 0.0;
    memcpy(&u, &d, 8);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
}

static inline uint32_t frz_prefix(const char *m, size_t len)
{
    unsigned char b[4] = {0, 0, 0, 0};
    memcpy(b, m, len < 4 ? len : 4);
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/* Full (score, member) order of two records. */
static inline int frz_rec_cmp(const frz_set *s, const frz_rec *a, const frz_rec *b)
{
    size_t la, lb;
    const char *ma, *mb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->pre != b->pre)
        return a->pre < b->pre ? -1 : 1;
    ma = frz_member(s, a->ref, &la);
    mb = frz_member(s, b->ref, &lb);
    return frz_memcmp(ma, la, mb, lb);
}

/* Merge sort of a[0..n) by frz_rec_cmp, tmp has room for n/2 + 1. */
static void frz_msort(const frz_set *s, frz_rec *a, frz_rec *tmp, size_t n)
{
    size_t h, i, j, k;
    if (n <= 16) {
        for (i = 1; i < n; i++) {
            frz_rec v = a[i];
            for (j = i; j > 0 && frz_rec_cmp(s, &a[j - 1], &v) > 0; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    h = n / 2;
    frz_msort(s, a, tmp, h);
    frz_msort(s, a + h, tmp, n - h);
    if (frz_rec_cmp(s, &a[h - 1], &a[h]) <= 0)
        return;
    memcpy(tmp, a, h * sizeof *a);
    i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = frz_rec_cmp(s, &a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

static inline unsigned frz_digit(const frz_rec *r, int d)
{
    return d < 4 ? (r->pre >> (8 * d)) & 0xff : (unsigned)(r->key >> (8 * (d - 4))) & 0xff;
}

/* Sorts a[0..n) (tmp: n more records) fully; returns the sorted array (a or
 * tmp).  LSD radix sort on (key, pre) skipping constant digits, then merge
 * sort of the runs of equal (key, pre). */
static frz_rec *frz_sort_recs(const frz_set *s, frz_rec *a, frz_rec *tmp, size_t n)
{
    static const int ndig = 12;
    size_t (*cnt)[256] = (size_t (*)[256])calloc(12, sizeof *cnt);
    size_t i, j;
    int d;
    if (!cnt) { /* no memory for counters: merge sort everything */
        frz_msort(s, a, tmp, n);
        return a;
    }
    for (i = 0; i < n; i++)
        for (d = 0; d < ndig; d++)
            cnt[d][frz_digit(&a[i], d)]++;
    for (d = 0; d < ndig; d++) {
        size_t sum = 0;
        frz_rec *t;
        if (n == 0 || cnt[d][frz_digit(&a[0], d)] == n)
            continue;
        for (j = 0; j < 256; j++) {
            size_t c = cnt[d][j];
            cnt[d][j] = sum;
            sum += c;
        }
        for (i = 0; i < n; i++)
            tmp[cnt[d][frz_digit(&a[i], d)]++] = a[i];
        t = a;
        a = tmp;
        tmp = t;
    }
    free(cnt);
    for (i = 0; i < n; i = j) {
        for (j = i + 1; j < n && a[j].key == a[i].key && a[j].pre == a[i].pre; j++)
            ;
        if (j - i > 1)
            frz_msort(s, a + i, tmp, j - i);
    }
    return a;
}

/* Rebuilds every link, span and backward pointer from refs in order. */
static void frz_relink(frz_set *s, const frz_rec *recs, size_t n)
{
    frz_ref last[FRZ_MAXLEVEL];
    uint64_t lastrank[FRZ_MAXLEVEL];
    frz_ref prev = FRZ_NIL;
    int i, maxlevel = 1;
    size_t k;
    for (i = 0; i < FRZ_MAXLEVEL; i++) {
        last[i] = FRZ_HEAD;
        lastrank[i] = 0;
    }
    for (k = 0; k < n; k++) {
        frz_ref x = recs[k].ref;
        frz_node *xn = FRZ_N(s, x);
        int lvl = xn->level;
        for (i = 0; i < lvl; i++) {
            frz_node *u = FRZ_N(s, last[i]);
            u->fwd[i] = x;
            if (i)
                frz_span_set(u, i, (uint32_t)(k + 1 - lastrank[i]));
            last[i] = x;
            lastrank[i] = k + 1;
        }
        if (lvl > maxlevel)
            maxlevel = lvl;
        xn->backward = prev;
        prev = x;
    }
    for (i = 0; i < FRZ_MAXLEVEL; i++) {
        frz_node *u = FRZ_N(s, last[i]);
        if (i >= u->level)
            continue;
        u->fwd[i] = FRZ_NIL;
        if (i)
            frz_span_set(u, i, (uint32_t)(n - lastrank[i]));
    }
    s->tail = prev;
    s->length = n;
    s->level = maxlevel;
    s->version++;
}

/* Starts a bulk load of up to `extra` new members: reserves the index and
 * the sort buffer, so that frz_bulk_end cannot fail.  0, or -1 when out of
 * memory (nothing changed).  Until frz_bulk_end only frz_bulk_put may be
 * called. */
int frz_bulk_begin(frz_set *s, uint64_t extra)
{
    uint64_t n = s->length + extra;
    if (frz_hash_reserve(s, s->hcount + extra))
        return -1;
    if (n > SIZE_MAX / (2 * sizeof(frz_rec)))
        return -1;
    s->bulk_buf = malloc((size_t)(n ? n : 1) * 2 * sizeof(frz_rec));
    if (!s->bulk_buf)
        return -1;
    s->bulk_cap = n;
    s->bulk = 1;
    return 0;
}

/* Sets m's score (not NaN), adding m if absent (*added is incremented);
 * an equal score is no change (an existing 0.0 stays 0.0 when -0.0 comes,
 * as in frz_add).  The list is not maintained until frz_bulk_end.  0, or
 * -1 no memory. */
int frz_bulk_put(frz_set *s, const char *m, size_t len, double score, uint64_t *added)
{
    uint64_t h = frz_hash(m, len, s->seed);
    frz_ref r = frz_hash_find(s, m, len, h);
    assert(s->bulk);
    if (!r) {
        if (frz_hash_reserve(s, s->hcount + 1))
            return -1;
        r = frz_node_alloc(s, frz_random_level(s), m, len);
        if (!r)
            return -1;
        frz_hash_put(s, r, h);
        (*added)++;
        FRZ_N(s, r)->score = score;
    } else if (FRZ_N(s, r)->score != score) {
        FRZ_N(s, r)->score = score;
    }
    return 0;
}

/* Ends a bulk load: sorts all nodes and rebuilds the list.  Never fails. */
void frz_bulk_end(frz_set *s)
{
    frz_rec *recs = (frz_rec *)s->bulk_buf, *sorted;
    uint64_t u = FRZ_HEAD + FRZ_N(s, FRZ_HEAD)->units;
    size_t n = 0;
    assert(s->bulk && s->hcount <= s->bulk_cap);
    while (u < s->top) {
        frz_node *xn = FRZ_N(s, u);
        if (frz_chunk_live(s, u)) {
            size_t len;
            const char *m = frz_node_member(xn, &len);
            recs[n].key = frz_score_key(xn->score);
            recs[n].pre = frz_prefix(m, len);
            recs[n].ref = (frz_ref)u;
            n++;
        }
        u += frz_chunk_units(s, u);
    }
    assert(n == s->hcount);
    sorted = frz_sort_recs(s, recs, recs + s->bulk_cap, n);
    frz_relink(s, sorted, n);
    frz_arena_trim(s);
    free(s->bulk_buf);
    s->bulk_buf = NULL;
    s->bulk_cap = 0;
    s->bulk = 0;
}

/* ======================================================================
 * Life cycle
 * ====================================================================== */

static uint64_t frz_seed_counter;

/* Initialises an empty set in *s (all fields).  0 or -1 (no memory). */
static int frz_init(frz_set *s)
{
    frz_node *head;
    unsigned hu = frz_units_for(FRZ_MAXLEVEL, 0);
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
    s->top = FRZ_HEAD + hu;
    head = FRZ_N(s, FRZ_HEAD);
    memset(head, 0, (size_t)hu * 8);
    head->level = FRZ_MAXLEVEL;
    head->units = (uint16_t)hu;
    s->level = 1;
    s->rng = 0x5eed0f5a5715eedULL;
    frz_seed_counter += 0x9e3779b97f4a7c15ULL;
    s->seed = frz_hash(&s, sizeof s, frz_seed_counter ^ (uint64_t)(uintptr_t)s);
    return 0;
}

/* Frees out-of-line members of all live nodes. */
static void frz_free_ext(frz_set *s)
{
    uint64_t u;
    if (!s->ext_count)
        return;
    for (u = FRZ_HEAD; u < s->top; u += frz_chunk_units(s, u)) {
        frz_node *xn = FRZ_N(s, u);
        if (frz_chunk_live(s, u) && xn->mlen == FRZ_LONG) {
            size_t len;
            free((char *)frz_node_member(xn, &len));
        }
    }
}

/* A new empty set, or NULL when out of memory. */
frz_set *frz_new(void)
{
    frz_set *s = (frz_set *)malloc(sizeof *s);
    if (s && frz_init(s)) {
        free(s);
        s = NULL;
    }
    return s;
}

/* Frees the set and everything it owns (NULL is fine). */
void frz_free(frz_set *s)
{
    if (!s)
        return;
    frz_free_ext(s);
    frz_big_free(s->arena, (size_t)s->cap * 8);
    frz_big_free(s->slots, (size_t)s->nslots * sizeof(uint64_t));
    free(s->bulk_buf);
    free(s);
}

/* Empties the set, releasing its memory.  0, or -1 when the fresh empty
 * state cannot be allocated (the set is then unchanged). */
int frz_clear(frz_set *s)
{
    frz_set fresh;
    uint64_t version = s->version;
    if (frz_init(&fresh))
        return -1;
    frz_free_ext(s);
    frz_big_free(s->arena, (size_t)s->cap * 8);
    frz_big_free(s->slots, (size_t)s->nslots * sizeof(uint64_t));
    free(s->bulk_buf);
    *s = fresh;
    s->version = version + 1;
    return 0;
}

/* A deep copy (same refs, same hash seed), or NULL when out of memory. */
frz_set *frz_copy(const frz_set *s)
{
    frz_set *c = (frz_set *)malloc(sizeof *c);
    uint64_t u;
    if (!c)
        return NULL;
    *c = *s;
    c->bulk_buf = NULL;
    c->bulk_cap = 0;
    c->cap = s->top;
    c->arena = (char *)frz_big_alloc((size_t)c->cap * 8, 0);
    c->slots = (uint64_t *)frz_big_alloc((size_t)c->nslots * sizeof(uint64_t), 0);
    if (!c->arena || !c->slots) {
        frz_big_free(c->arena, (size_t)c->cap * 8);
        frz_big_free(c->slots, (size_t)c->nslots * sizeof(uint64_t));
        free(c);
        return NULL;
    }
    memcpy(c->arena, s->arena, (size_t)s->top * 8);
    memcpy(c->slots, s->slots, (size_t)s->nslots * sizeof(uint64_t));
    if (!s->ext_count)
        return c;
    for (u = FRZ_HEAD; u < c->top; u += frz_chunk_units(c, u)) {
        frz_node *xn = FRZ_N(c, u);
        if (frz_chunk_live(c, u) && xn->mlen == FRZ_LONG) {
            frz_ext e;
            char *p = (char *)xn + frz_member_offset(xn->level);
            memcpy(&e, p, sizeof e);
            e.ptr = (char *)malloc(e.len);
            if (e.ptr)
                memcpy(e.ptr, frz_member(s, (frz_ref)u, &e.len), e.len);
            memcpy(p, &e, sizeof e);
            if (!e.ptr) { /* undo: free the copies made so far */
                uint64_t v;
                for (v = FRZ_HEAD; v < u; v += frz_chunk_units(c, v)) {
                    frz_node *yn = FRZ_N(c, v);
                    if (frz_chunk_live(c, v) && yn->mlen == FRZ_LONG) {
                        size_t len;
                        free((char *)frz_node_member(yn, &len));
                    }
                }
                frz_big_free(c->arena, (size_t)c->cap * 8);
                frz_big_free(c->slots, (size_t)c->nslots * sizeof(uint64_t));
                free(c);
                return NULL;
            }
        }
    }
    return c;
}

/* COMPACTION.  Freed nodes go to free lists, so a set that lost most of
 * its members (a board trimmed to its top N) would keep its peak arena.
 * frz_shrink moves the live nodes, in list order, into a fresh arena of
 * exactly their size and frees the old one, when the live nodes fill less
 * than a quarter of an arena of more than FRZ_SHRINK_MIN units.  Right after
 * a shrink the arena is full, so it takes losing 3/4 of the members again
 * (or growing and then losing them) before the next one: each shrink costs
 * O(n) against the >= 3n removals that made it due, and a steady churn of
 * adds and removes never triggers it.  The index shrinks on its own (see
 * frz_hash_remove).  Every ref changes: callers only shrink between whole
 * operations, never while they hold refs. */
#define FRZ_SHRINK_MIN 8192u /* 64 KiB */

/* Units the live nodes take when laid out in list order from unit `top`,
 * pads included. */
static uint64_t frz_compact_units(const frz_set *s, uint64_t top)
{
    frz_ref x;
    for (x = frz_first(s); x; x = FRZ_N(s, x)->fwd[0]) {
        const frz_node *xn = FRZ_N(s, x);
        unsigned hot = (unsigned)(frz_member_offset(xn->level) + 7) / 8;
        unsigned off = (unsigned)(top % FRZ_LINE_UNITS);
        if (off != 0 && off + hot > FRZ_LINE_UNITS)
            top += FRZ_LINE_UNITS - off;
        top += xn->units;
    }
    return top;
}

/* Compacts the arena when it is mostly free (see above).  1 when it was
 * compacted, 0 when not due, -1 when out of memory (nothing changed). */
int frz_shrink(frz_set *s)
{
    frz_set old = *s;
    uint64_t hu = FRZ_N(s, FRZ_HEAD)->units, need, j;
    frz_rec *recs;
    frz_ref x;
    size_t k = 0;
    if (s->bulk || s->cap <= FRZ_SHRINK_MIN || (FRZ_HEAD + hu + s->live_units) * 4 >= s->cap)
        return 0;
    need = frz_compact_units(s, FRZ_HEAD + hu);
    recs = (frz_rec *)malloc((size_t)(s->length ? s->length : 1) * sizeof(frz_rec));
    s->arena = (char *)frz_big_alloc((size_t)need * 8, 0);
    if (!recs || !s->arena) {
        free(recs);
        frz_big_free(s->arena, (size_t)need * 8);
        *s = old;
        return -1;
    }
    s->cap = need;
    memcpy(s->arena + 8 * FRZ_HEAD, old.arena + 8 * FRZ_HEAD, (size_t)hu * 8);
    s->top = FRZ_HEAD + hu;
    memset(s->freelist, 0, sizeof s->freelist);
    /* Copy each node; its old copy's backward field records the new ref. */
    for (x = frz_first(&old); x; x = FRZ_N(&old, x)->fwd[0]) {
        frz_node *on = FRZ_N(&old, x);
        unsigned pad = frz_pad_units(s, on->level);
        if (pad) {
            uint64_t w = FRZ_PAD_TAG | pad;
            memcpy(s->arena + (s->top << 3), &w, 8);
            s->top += pad;
        }
        memcpy(s->arena + (s->top << 3), on, (size_t)on->units * 8);
        on->backward = (frz_ref)s->top;
        recs[k++].ref = (frz_ref)s->top;
        s->top += on->units;
    }
    assert(s->top == need && k == s->length);
    for (j = 0; j < s->nslots; j++) {
        uint64_t v = s->slots[j];
        if (v)
            s->slots[j] = (v & 0xffffffff00000000ULL) | FRZ_N(&old, (frz_ref)v)->backward;
    }
    frz_relink(s, recs, k);
    free(recs);
    frz_big_free(old.arena, (size_t)old.cap * 8);
    return 1;
}

/* Bytes allocated for the set: struct, arena, index, long members. */
size_t frz_memory(const frz_set *s)
{
    return sizeof *s + frz_big_size((size_t)s->cap * 8) +
           frz_big_size((size_t)s->nslots * sizeof(uint64_t)) + s->ext_bytes;
}

/* ======================================================================
 * Checker
 * ====================================================================== */

#define FRZ_FAIL(...)                                                      \
    do {                                                                   \
        snprintf(err, errlen, __VA_ARGS__);                                \
        return -1;                                                         \
    } while (0)

/* Verifies every invariant listed at the top of this file.  0, or -1 with a
 * message in err.  O(n * levels). */
int frz_check(const frz_set *s, char *err, size_t errlen)
{
    const frz_node *head = FRZ_N(s, FRZ_HEAD);
    frz_ref x, prev = FRZ_NIL;
    uint64_t n = 0, u, live = 0, live_units = 0, slots = 0, j;
    int i;
    if (s->bulk)
        FRZ_FAIL("inside a bulk load");
    if (s->level < 1 || s->level > FRZ_MAXLEVEL)
        FRZ_FAIL("bad level %d", s->level);
    /* level 0: order, backward, scores, index */
    for (x = head->fwd[0]; x; x = FRZ_N(s, x)->fwd[0]) {
        const frz_node *xn = FRZ_N(s, x);
        size_t len;
        const char *m = frz_node_member(xn, &len);
        if (x >= s->top || xn->level < 1 || xn->level > s->level)
            FRZ_FAIL("node %u: bad ref or level %d", (unsigned)x, (int)xn->level);
        if (xn->score != xn->score)
            FRZ_FAIL("node %u: NaN score", (unsigned)x);
        if (xn->backward != prev)
            FRZ_FAIL("node %u: backward %u, expected %u", (unsigned)x, (unsigned)xn->backward,
                     (unsigned)prev);
        if (prev && frz_cmp_key(FRZ_N(s, prev), xn->score, m, len) >= 0)
            FRZ_FAIL("node %u (rank %llu) out of order", (unsigned)x, (unsigned long long)(n + 1));
        if (frz_find(s, m, len) != x)
            FRZ_FAIL("node %u (rank %llu) not found by the index", (unsigned)x,
                     (unsigned long long)(n + 1));
        prev = x;
        if (++n > s->length)
            FRZ_FAIL("more nodes than length %llu", (unsigned long long)s->length);
    }
    if (n != s->length)
        FRZ_FAIL("%llu nodes, length %llu", (unsigned long long)n, (unsigned long long)s->length);
    if (s->tail != prev)
        FRZ_FAIL("tail %u, last node %u", (unsigned)s->tail, (unsigned)prev);
    if (s->hcount != n)
        FRZ_FAIL("index holds %llu, list %llu", (unsigned long long)s->hcount, (unsigned long long)n);
    /* higher levels: membership and spans */
    for (i = 1; i < FRZ_MAXLEVEL; i++) {
        uint64_t rank = 0;
        const frz_node *xn = head;
        if (i >= s->level) {
            if (head->fwd[i])
                FRZ_FAIL("header link at level %d above set level %d", i, s->level);
            continue;
        }
        if (i == s->level - 1 && !head->fwd[i] && s->level > 1)
            FRZ_FAIL("top level %d empty", i);
        for (;;) {
            frz_ref f = xn->fwd[i], y;
            uint64_t steps = 0;
            const frz_node *yn = xn;
            if (!f) {
                if (frz_span(xn, i) != n - rank)
                    FRZ_FAIL("level %d: NIL span %u at rank %llu, expected %llu", i,
                             (unsigned)frz_span(xn, i), (unsigned long long)rank,
                             (unsigned long long)(n - rank));
                break;
            }
            if (FRZ_N(s, f)->level <= i)
                FRZ_FAIL("level %d: node %u of level %d linked", i, (unsigned)f,
                         (int)FRZ_N(s, f)->level);
            do { /* count level-0 steps, checking no skipped node is tall */
                y = yn->fwd[0];
                if (!y)
                    FRZ_FAIL("level %d: link to %u not reachable on level 0", i, (unsigned)f);
                yn = FRZ_N(s, y);
                steps++;
                if (y != f && yn->level > i)
                    FRZ_FAIL("level %d: node %u skipped", i, (unsigned)y);
            } while (y != f);
            if (frz_span(xn, i) != steps)
                FRZ_FAIL("level %d: span %u at rank %llu, expected %llu", i,
                         (unsigned)frz_span(xn, i), (unsigned long long)rank,
                         (unsigned long long)steps);
            rank += steps;
            xn = FRZ_N(s, f);
        }
    }
    /* arena: chunks tile it; live chunks are exactly the list */
    for (u = FRZ_HEAD + head->units; u < s->top; u += frz_chunk_units(s, u)) {
        const frz_node *xn = FRZ_N(s, u);
        uint64_t cu = frz_chunk_units(s, u);
        if (cu == 0 || cu > FRZ_MAX_UNITS)
            FRZ_FAIL("chunk %llu: bad size %llu", (unsigned long long)u, (unsigned long long)cu);
        if (frz_chunk_live(s, u)) {
            size_t len;
            frz_node_member(xn, &len);
            if (xn->units != frz_units_for(xn->level, len))
                FRZ_FAIL("node %llu: size %u", (unsigned long long)u, (unsigned)xn->units);
            live++;
            live_units += xn->units;
        }
    }
    if (u != s->top || live != n)
        FRZ_FAIL("arena: %llu live chunks, %llu members", (unsigned long long)live,
                 (unsigned long long)n);
    if (live_units != s->live_units)
        FRZ_FAIL("arena: %llu live units counted, %llu recorded",
                 (unsigned long long)live_units, (unsigned long long)s->live_units);
    for (j = 0; j < s->nslots; j++) {
        uint64_t v = s->slots[j];
        if (!v)
            continue;
        slots++;
        if ((uint32_t)(v >> 32) != (uint32_t)(frz_node_hash(s, (frz_ref)v) >> 32))
            FRZ_FAIL("slot %llu: wrong tag", (unsigned long long)j);
    }
    if (slots != n || s->hcount * 5 > s->nslots * 4 + 4)
        FRZ_FAIL("index: %llu slots used of %llu", (unsigned long long)slots,
                 (unsigned long long)s->nslots);
    return 0;
}
