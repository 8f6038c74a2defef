/* zset.c -- the sorted set of fastrank: an order-statistic B+-tree over
 * member records, with a member index.
 *
 * WHAT IT IS
 * ----------
 * A sorted set maps binary-string members to double scores and keeps them in
 * (score, member) order: ascending score, ties by member bytes compared
 * unsigned, memcmp style, the shorter of two members with a common prefix
 * first.  Three parts:
 *
 *   1. RECORDS: one per member, in an arena of 8-byte units (zset.h has
 *      the byte diagram): score, member bytes, and the name of the leaf that
 *      holds the member.  A record never moves while its member lives
 *      (except in fr_zset_shrink), so its 32-bit offset (fr_zset_ref) names
 *      the member everywhere.
 *   2. AN ORDER-STATISTIC B+-TREE (the counted B-tree of the literature):
 *      leaves of up to FR_ZSET_LEAF_CAP = 66 entries, each entry a score
 *      (in a score array) and a record ref (in a parallel ref array); inner
 *      nodes of up to FR_ZSET_INNER_CAP = 32 children, each with the 64-bit
 *      number of members below it and a SEPARATOR: the child's smallest key
 *      as (score, first 4 member bytes big-endian, record ref).  Leaves are
 *      linked both ways for walks.  Counts give rank -> member and member
 *      -> rank in O(log n); a search compares scores out of the node's own
 *      arrays, and among equal scores the 4-byte prefixes, so a member
 *      record (a cold cache line) is read only for ties on both.
 *   3. A HASH INDEX from member bytes to record (open addressing, linear
 *      probing), so score lookups are O(1) and an update finds its member
 *      without a search.
 *
 * A search touches about four cache lines a level and three or four levels
 * at a million members; the skip list this replaced chased 15-30 dependent
 * pointers (one miss each) for the same answer.  A single descent requests
 * the next node's separator, count and child lines at once (one latency a
 * level, not three: a ZCOUNT bound 14% faster at 1M members, 28% at 10M).
 * A batch of counts runs its descents one after another: with no exit that
 * depends on the data the processor overlaps them by itself, and that beat
 * descents taken a level at a time together by half.  Figures:
 * bench/results/zset-bptree.md.
 *
 * OPERATIONS
 * ----------
 *   - rank(member): record -> leaf (by the leaf's name, see LEAF NAMES), the slot by
 *     scanning the leaf's ref array, then up through the parents adding the
 *     counts of the children left of the path.  No key comparison at all.
 *     The leaf's header and ref lines are requested together (the ref
 *     array of a full-capacity leaf is at a fixed offset), so the leaf
 *     costs one memory latency, not two; the parent's count and child
 *     lines are requested as soon as the leaf's header names it, so they
 *     arrive with the refs (6% at 1M).  What is left is three dependent
 *     misses (index slot, record, leaf).  The AVX-512 copy of the walk up
 *     (see CPU DISPATCH) compares and sums every slot of a parent under a
 *     mask instead of stopping at the child (3-4% more).
 *   - at_rank: down from the root subtracting counts; the last leaf is
 *     answered without a descent.  Range replies walk the leaf chain
 *     (fr_zset_gather from a rank, fr_zset_gather_from from a member: the
 *     score and lex walks), an offset costs O(log n) through the counts.
 *     fr_zset_next/prev rescan the member's leaf on every call; walks take
 *     chunks from one (leaf, slot) position instead.
 *   - insert: one descent by key; a full leaf first hands some entries to a
 *     sibling with room (fr_zset_spill), else splits in two halves; a full
 *     inner node splits likewise, up to a new root.  The nodes a split may need are
 *     reserved BEFORE anything changes (fr_zset_reserve_insert: a spare leaf
 *     and height + 1 spare inner nodes), so an insertion or a move either
 *     happens whole or reports no memory; nothing aborts.
 *   - delete: the entry leaves its leaf, the counts on the way up drop by
 *     one; a leaf below a quarter full merges with a sibling when both fit
 *     in one, else borrows half the difference; inner nodes the same; a
 *     root with one child is replaced by it.  A separator always equals its
 *     child's smallest key: removing a leaf's first entry rewrites the one
 *     separator that names it (fr_zset_fix_min).
 *   - score change: when the new key still belongs between the neighbouring
 *     leaves, the entry moves inside its leaf (a memmove, no count changes);
 *     when it belongs in the next or the previous leaf (the parent's
 *     separators tell, without reading that leaf's far lines) and neither
 *     leaf needs a split or a merge, it moves over, the counts changing
 *     below the two leaves' common ancestor only (fr_zset_move_to_neighbour:
 *     moves by 1..100 at 1M members 9% faster); otherwise delete + insert.
 *     The leaf's lines, its neighbours' first lines and its parent's
 *     child, separator and count lines are requested up front (a move out
 *     of the leaf reads all of these, and at 10M members the parent is a
 *     cache miss: moves 9% faster there), and as soon as the parent's
 *     separators arrive, the lines of the leaf under it where the new key
 *     falls (where a move by a little lands; 3% at 10M).  A descent by
 *     key requests its leaf's refs with its scores.  Among equal scores
 *     a leaf has no member prefixes, so each tie compared reads a cold
 *     record: with integer scores that is a large share of a move (see
 *     the figures).  The rank the write learns is kept as the
 *     RANK HINT (record, rank, version) so that "add points, then ask my
 *     place" costs no second walk; a write that would need a walk up only
 *     to learn it (a move inside a leaf or to a neighbour, the hint on
 *     another member) drops the hint instead.
 *   - bulk load: records are written first, then all are sorted (LSD radix
 *     sort on score bits and the 4-byte prefix, merge sort for the rest of
 *     the ties) and the tree is rebuilt packed, bottom up, from nodes
 *     reserved by fr_zset_bulk_begin.
 *   - memory: a new set has no tree; the first member brings a root leaf of
 *     4 entries that doubles up to 64 (then 66) before the first split, so a small set
 *     costs bytes, not kilobytes.  The record arena and the index go on
 *     huge pages once they pass 4 MiB; tree nodes are malloc'd until the
 *     tree has FR_ZSET_POOL_MIN_NODES (2048) nodes, then new ones come
 *     from the set's NODE POOL: 64-byte aligned slots for full leaves and
 *     inner nodes carved from 2 MiB chunks that become huge pages once
 *     full, so a descent at 10M members costs cache misses but few TLB
 *     misses (see "THE NODE POOL" below).  Merges give nodes back to the
 *     pool's free lists; fr_zset_shrink moves the nodes of a pool whose
 *     slots are more than half free into compact storage, and compacts the
 *     record arena and the lone root leaf.
 *
 * WHERE IT DEPARTS FROM REDIS
 * ---------------------------
 * Redis keeps sorted sets in a skip list with spans (plus a listpack when
 * small).  Here one structure serves every size; member records are
 * arena-allocated and named by 32-bit refs (no per-member malloc, no
 * separate dict entry); ranges over lex bounds with more than one score are
 * answered by the same fixed walk Redis does (see "LEX SEARCHES" below), so
 * replies are identical; everything else is order-equivalent by
 * construction.
 *
 * TRIED AND DROPPED: the skip list itself (see the git history of this
 * file: arena nodes with 32-bit links, line padding, lock-step batch
 * descents); its rank walk could not go below ~15 dependent misses at 1M
 * members.  A leaf slot index in every record (so next() need not scan its
 * leaf) was not built: every shift inside a leaf would rewrite up to 65
 * cold records.  Measured and dropped: the leaf's name beside each index
 * slot, so that a rank could fetch the leaf with the record (ranks 10%
 * faster at 1M, but 4 bytes a slot, or the slot's hash tag given up);
 * requesting all equal-score records before a leaf's tie comparisons (no
 * gain at 10M); a rank's parent walk with every child slot compared, no
 * early exit, in the baseline and AVX2 copies (20% slower and the same:
 * the exit lets the processor run ahead), and in a move's child lookups
 * (fr_zset_child_index: moves 10% slower).  Requesting a rank's parent
 * lines early measured as noise once (leaves of 64, no dispatch) and 6%
 * later (leaves of 66): kept.  (Nodes on huge pages were first dropped
 * too, measured at 1M members only, where they were within noise; at
 * 10M, running with glibc's malloc on huge pages made moves 10 to 25%
 * faster and ZCOUNT bounds 10 to 20%.  Hence the node pool, which at 10M measured rank and
 * moves about 15% faster and ZCOUNT bounds 20%, at 1M 5 to 10%, for 0.6
 * to 0.9% more memory: bench/results/zset-bptree.md.)
 *
 * INVARIANTS (verified by fr_zset_check)
 * --------------------------------------
 *   - the leaves, in list order, hold every member exactly once, in strictly
 *     increasing (score, member) order; no score is NaN; all leaves are at
 *     the same depth;
 *   - every record's leaf name leads to the leaf that holds it (a pooled
 *     leaf's name is its place, a malloc'd leaf's its id table entry), and the leaf's
 *     score equals the record's;
 *   - a non-root leaf holds LEAF_CAP / 4 .. LEAF_CAP entries and has full
 *     capacity; a non-root inner node has INNER_CAP / 4 (at least 2) ..
 *     INNER_CAP children; the root inner node at least 2;
 *   - parent links mirror child arrays; cnt[i] is the number of members
 *     under child i; separator i (i >= 1) is the smallest key under child i;
 *   - every node flagged pooled lies in a chunk of the pool and every other
 *     node outside it; the pool's slots in use are the tree's and the
 *     stash's pooled nodes, its free lists hold nfree slots each, and
 *     carved slots plus the uncarved rest fill its chunks;
 *   - the index holds exactly the tree's records, each under its hash tag;
 *     the arena's records tile it and the live ones are the tree's;
 *   - while hint_version == version, record hint_ref has rank hint_rank.
 *
 * Sections: helpers (with the CPU dispatch); arena; hash index; records; tree nodes (the node
 * pool); keys; searches; insertion; deletion; point operations; batch
 * lookups; ranges; bulk load; life cycle; checker.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mmap, mremap, madvise(MADV_HUGEPAGE) under -std=c99 */
#endif
#include "zset.h"
#include "decimal_text.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define FR_ZSET_ARENA_MAX ((uint64_t)UINT32_MAX) /* refs are 32-bit */

/* ======================================================================
 * Helpers
 * ====================================================================== */

/* CPU DISPATCH.  The searches by key and by score, and a score change,
 * spend their time in loops over a node's arrays (count the scores below
 * x, find a ref) that the compiler vectorises: two doubles a compare with
 * the baseline x86-64 instructions, four with AVX2, eight (and mask
 * registers instead of blends) with AVX-512.  Those four functions
 * (fr_zset_descend_score, fr_zset_descend_key, fr_zset_set_score_ranked,
 * fr_zset_rank) are each compiled three times, for the baseline, AVX2
 * (x86-64-v3) and AVX-512 (x86-64-v4) feature sets, from one body, and
 * the first call picks the version the CPU and the OS support
 * (__builtin_cpu_supports).  Same answers; only the instructions differ,
 * and where a loop pays off in one version only (a rank's walk up, in
 * AVX-512) the body reads the level it is compiled for.  At 1M members
 * AVX-512 made a ZCOUNT bound 37% faster, a move about 5% and a rank 3-4%
 * (bench/results/zset-bptree.md).  FR_ZSET_ISA=0/1/2 at compile time
 * forces one version (the C model test runs each); other compilers and
 * CPUs build the baseline only. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(FR_ZSET_NO_DISPATCH)
#define FR_ZSET_DISPATCH 1
#define FR_ZSET_V3 __attribute__((target("avx2,bmi,bmi2,popcnt,fma")))
#define FR_ZSET_V4 __attribute__((target("avx2,bmi,bmi2,popcnt,fma,avx512f,avx512vl,avx512bw,avx512dq,avx512cd")))
#define FR_ZSET_BODY static inline __attribute__((always_inline))

/* 2 when the CPU and the OS run AVX-512 (F, VL, BW, DQ, CD) and AVX2, 1
 * when AVX2 (with BMI1/2, POPCNT, FMA), else 0; decided once. */
static int fr_zset_isa(void)
{
#ifdef FR_ZSET_ISA
    return FR_ZSET_ISA;
#else
    static int level = -1; /* written once; atomics keep thread checkers quiet */
    int v = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = 0;
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
            __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") &&
            __builtin_cpu_supports("fma"))
            v = 1;
        if (v && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
            __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
            __builtin_cpu_supports("avx512cd"))
            v = 2;
        __atomic_store_n(&level, v, __ATOMIC_RELAXED);
    }
    return v;
#endif
}
#else
#define FR_ZSET_DISPATCH 0
#define FR_ZSET_BODY static inline
#endif

/* Defines function `name` (linkage: static or nothing) as name##_body
 * compiled for the version fr_zset_isa picks.  The body takes one more
 * argument than `name`, last: the level it is compiled for (0, 1, 2 as
 * fr_zset_isa answers), a constant once inlined, for a loop that pays
 * off in one version only. */
#define FR_ZSET_ARGS(...) __VA_ARGS__
#if FR_ZSET_DISPATCH
#define FR_ZSET_DISPATCHED(linkage, ret, name, params, args)                            \
    FR_ZSET_V4 static ret name##_v4 params { return name##_body(FR_ZSET_ARGS args, 2); } \
    FR_ZSET_V3 static ret name##_v3 params { return name##_body(FR_ZSET_ARGS args, 1); } \
    linkage ret name params                                                             \
    {                                                                                   \
        switch (fr_zset_isa()) {                                                        \
        case 2:                                                                         \
            return name##_v4 args;                                                      \
        case 1:                                                                         \
            return name##_v3 args;                                                      \
        default:                                                                        \
            return name##_body(FR_ZSET_ARGS args, 0);                                   \
        }                                                                               \
    }
#else
#define FR_ZSET_DISPATCHED(linkage, ret, name, params, args) \
    linkage ret name params { return name##_body(FR_ZSET_ARGS args, 0); }
#endif

/* memcmp order with the shorter of two equal prefixes first; <0, 0, >0.
 * Inline, eight (or four) bytes at a time (members are short: a call of the library's
 * memcmp costs more than the comparison itself in a search). */
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

/* Formats v in decimal into buf (>= 20 bytes, not terminated); the length
 * (decimal_text.h's formatter, which the sketches share). */
int fr_zset_format_u64(uint64_t v, char *buf)
{
    return (int)fr_dec_u64(v, 0, buf);
}

/* Formats v in decimal into buf (>= 21 bytes, not terminated); the length. */
int fr_zset_format_i64(int64_t v, char *buf)
{
    return (int)fr_dec_i64(v, buf);
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
#if FR_ZSET_MMAP && !defined(MADV_COLLAPSE) && (defined(__x86_64__) || defined(__aarch64__))
#define MADV_COLLAPSE 25 /* Linux 6.1's value; C libraries before 2.37 lack the name */
#endif
#define FR_ZSET_HUGE ((size_t)2 << 20)
#define FR_ZSET_BIG_MIN ((size_t)4 << 20)

/* From 256 KiB up to FR_ZSET_BIG_MIN a buffer (the arena, the index, a
 * bulk load's sort buffer) is mapped too, on small pages: through malloc,
 * growing or freeing one raises glibc's mmap threshold and leaves
 * megabytes free inside the heap that nothing of the set reuses once its
 * nodes come from the node pool (2.6 bytes a member at 1M after one-by-one
 * adds, 5.5 after batched loads; 0.4-0.8 with this).  Not lower: every
 * mapping is one of the process's limited memory areas (vm.max_map_count). */
#define FR_ZSET_MAP_MIN ((size_t)256 << 10)
#define FR_ZSET_PAGE ((size_t)4096)

/* Bytes really held for a buffer of len bytes. */
static inline size_t fr_zset_big_size(size_t len)
{
    if (FR_ZSET_MMAP && len >= FR_ZSET_BIG_MIN)
        return (len + FR_ZSET_HUGE - 1) & ~(FR_ZSET_HUGE - 1);
    if (FR_ZSET_MMAP && len >= FR_ZSET_MAP_MIN)
        return (len + FR_ZSET_PAGE - 1) & ~(FR_ZSET_PAGE - 1);
    return len;
}

#if FR_ZSET_MMAP
/* len bytes mapped at an address aligned to align (a power of two),
 * with madvise advice (MADV_HUGEPAGE, MADV_NOHUGEPAGE), or NULL. */
static void *fr_zset_map(size_t len, size_t align, int advice)
{
    size_t maplen = len + align, head;
    char *p = (char *)mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *a;
    if (p == MAP_FAILED)
        return NULL;
    a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
    head = (size_t)(a - p);
    if (head)
        munmap(p, head);
    if (maplen - head - len)
        munmap(a + len, maplen - head - len);
    (void)madvise(a, len, advice);
    return a;
}
#endif

/* A buffer of len bytes (zeroed when zero is set), or NULL. */
static void *fr_zset_big_alloc(size_t len, int zero)
{
#if FR_ZSET_MMAP
    if (len >= FR_ZSET_BIG_MIN)
        return fr_zset_map(fr_zset_big_size(len), FR_ZSET_HUGE, MADV_HUGEPAGE); /* anonymous maps are zeroed */
    if (len >= FR_ZSET_MAP_MIN) {
        void *p = mmap(NULL, fr_zset_big_size(len), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p;
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
    if (len >= FR_ZSET_MAP_MIN) {
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
    if (oldlen < FR_ZSET_MAP_MIN && newlen < FR_ZSET_MAP_MIN)
        return realloc(p, newlen);
    if (oldlen >= FR_ZSET_MAP_MIN && oldlen < FR_ZSET_BIG_MIN && newlen >= FR_ZSET_MAP_MIN &&
        newlen < FR_ZSET_BIG_MIN) {
        q = mremap(p, fr_zset_big_size(oldlen), fr_zset_big_size(newlen), MREMAP_MAYMOVE);
        if (q != MAP_FAILED)
            return q;
    }
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

/* Hints the CPU to load the cache line at p. */
static inline void fr_zset_prefetch_addr(const void *p)
{
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p);
#else
    (void)p;
#endif
}


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
        m = ((const char *)n + FR_ZSET_HDR);
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

/* ======================================================================
 * Sort records (bulk load)
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


/* ======================================================================
 * Records
 * ====================================================================== */

#define FR_ZSET_LMIN (FR_ZSET_LEAF_CAP / 4 > 0 ? FR_ZSET_LEAF_CAP / 4 : 1)
#define FR_ZSET_IMIN (FR_ZSET_INNER_CAP / 4 > 2 ? FR_ZSET_INNER_CAP / 4 : 2)
#define FR_ZSET_SMALL_LEAF 4u /* capacity of a fresh root leaf */

#if FR_ZSET_LEAF_CAP < 4 || FR_ZSET_INNER_CAP < 4
#error "node capacities must be at least 4"
#endif

/* Size in units of a record holding a member of len bytes. */
static inline unsigned fr_zset_units_for(size_t len)
{
    size_t stored = len <= FR_ZSET_INLINE_MAX ? len : sizeof(fr_zset_ext);
    return (unsigned)((FR_ZSET_HDR + stored + 7) / 8);
}

static inline uint64_t fr_zset_chunk_word(const fr_zset *s, uint64_t u)
{
    uint64_t w;
    memcpy(&w, s->arena + (u << 3), 8);
    return w;
}

/* True when the record at unit u is live (in the tree, or bulk-loaded). */
static inline int fr_zset_chunk_live(const fr_zset *s, uint64_t u)
{
    return fr_zset_chunk_word(s, u) != FR_ZSET_FREE_TAG;
}

/* Hints the CPU to start loading record r (FR_ZSET_NIL is ignored). */
static inline void fr_zset_prefetch(const fr_zset *s, fr_zset_ref r)
{
    if (r)
        fr_zset_prefetch_addr(FR_ZSET_N(s, r));
}

/* Allocates a record holding a copy of member m (len bytes), score 0, leaf
 * 0.  Its ref, or FR_ZSET_NIL when out of memory (nothing changed).
 * Invalidates record pointers (the arena may move). */
static fr_zset_ref fr_zset_node_alloc(fr_zset *s, const char *m, size_t len)
{
    unsigned units = fr_zset_units_for(len);
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
        s->freelist[units] = FR_ZSET_N(s, r)->leaf;
    } else {
        if (fr_zset_arena_reserve(s, units)) {
            free(ext);
            return FR_ZSET_NIL;
        }
        r = (fr_zset_ref)s->top;
        s->top += units;
    }
    s->live_units += units;
    n = FR_ZSET_N(s, r);
    n->score = 0.0;
    n->leaf = 0;
    n->units = (uint8_t)units;
    if (ext) {
        fr_zset_ext e = {len, ext};
        n->mlen = FR_ZSET_LONG;
        memcpy((char *)n + FR_ZSET_HDR, &e, sizeof e);
        s->ext_bytes += len;
        s->ext_count++;
    } else {
        n->mlen = (uint8_t)len;
        if (len)
            memcpy((char *)n + FR_ZSET_HDR, m, len);
    }
    return r;
}

/* Returns record r (out of the tree and the index) to its free list. */
static void fr_zset_node_free(fr_zset *s, fr_zset_ref r)
{
    fr_zset_node *n = FR_ZSET_N(s, r);
    uint64_t tag = FR_ZSET_FREE_TAG;
    if (n->mlen == FR_ZSET_LONG) {
        size_t len;
        char *p = (char *)fr_zset_node_member(n, &len);
        free(p);
        s->ext_bytes -= len;
        s->ext_count--;
    }
    memcpy(&n->score, &tag, 8);
    n->mlen = 0;
    s->live_units -= n->units;
    n->leaf = s->freelist[n->units];
    s->freelist[n->units] = r;
}

/* ======================================================================
 * Tree nodes: the node pool, allocation, leaf ids, the stash
 * ====================================================================== */

static inline size_t fr_zset_leaf_size(uint32_t cap)
{
    return sizeof(fr_zset_leaf) + (size_t)cap * (sizeof(double) + sizeof(fr_zset_ref));
}

/* THE NODE POOL.  At millions of members the tree's nodes take hundreds
 * of megabytes and a search touches a node per level: on 4 KiB pages each
 * is a TLB miss on top of its cache miss.  So past FR_ZSET_POOL_MIN_NODES
 * nodes, new full leaves and inner nodes come from fixed-size slots (two
 * classes, each rounded up to 64 bytes so a node starts on a cache line)
 * carved front to back from chunks of FR_ZSET_POOL_CHUNK bytes mapped
 * aligned (plain malloc off Linux).  The newest chunk is on small pages
 * (MADV_NOHUGEPAGE), so the part not carved yet costs nothing and is not
 * counted; once full it is turned into a huge page (MADV_HUGEPAGE, and
 * MADV_COLLAPSE where the kernel has it, Linux 6.1: synchronous, one copy
 * of 2 MiB per ~2,500 leaves; else khugepaged does it in time).  That
 * keeps a set's memory within a few hundred bytes of what its nodes use
 * instead of up to 2 MiB more (2 bytes a member at 1M).  Released slots go on
 * their class's free list; a pool with no slot in use is unmapped at once,
 * and fr_zset_shrink moves the live nodes of a mostly free pool into
 * compact storage (fr_zset_compact_nodes).  Each node's `pooled` field says
 * where it came from, so it goes back there.
 *
 * The threshold: 2048 nodes are about 1.7 MB of nodes (some 100,000
 * members).  Below that the nodes' 4 KiB pages fit a second-level TLB
 * (1,500 to 2,000 entries, 6 to 8 MiB) next to the huge-page arena and
 * index, so huge pages would gain nothing, while a chunk would be a 2 MiB
 * step in a set of a few MB.  Past it a chunk adds at most a third to the
 * set, and less as the set grows.  The tests set it low. */
#ifndef FR_ZSET_POOL_MIN_NODES
#define FR_ZSET_POOL_MIN_NODES 2048u
#endif
#ifndef FR_ZSET_POOL_CHUNK /* a power of two; the tests map small chunks */
#define FR_ZSET_POOL_CHUNK FR_ZSET_HUGE
#endif
#define FR_ZSET_PLEAF 0  /* slot class of full-capacity leaves */
#define FR_ZSET_PINNER 1 /* slot class of inner nodes */
/* leaf names (see LEAF NAMES below) */
#define FR_ZSET_NAMED_SLOT 0x80000000u
#define FR_ZSET_NAME_CHUNKS 65535u /* chunks 0 .. 65534 (all ones is FR_ZSET_UNLINKED) */

typedef char fr_zset_chunk_fits_a_name[FR_ZSET_POOL_CHUNK / 64 <= 32768 ? 1 : -1];

static inline size_t fr_zset_slot_size(int cls)
{
    size_t b = cls == FR_ZSET_PLEAF ? fr_zset_leaf_size(FR_ZSET_LEAF_CAP) : sizeof(fr_zset_inner);
    return (b + 63) & ~(size_t)63;
}

static inline char *fr_zset_chunk_base(char *c)
{
    return (char *)(((uintptr_t)c + 63) & ~(uintptr_t)63);
}

/* Unmaps every chunk and empties the pool. */
static void fr_zset_pool_release(fr_zset_pool *p)
{
    uint32_t i;
    for (i = 0; i < p->nchunks; i++) {
#if FR_ZSET_MMAP
        munmap(p->chunks[i], FR_ZSET_POOL_CHUNK);
#else
        free(p->chunks[i]);
#endif
    }
    free(p->chunks);
    memset(p, 0, sizeof *p);
}

/* Maps one more chunk (its bytes become bump..end; what was left of the
 * one before, when it holds a leaf slot, goes on the leaf free list).
 * 0 or -1. */
static int fr_zset_pool_grow(fr_zset_pool *p)
{
    char *c;
    if (p->nchunks >= FR_ZSET_NAME_CHUNKS) /* no leaf name for a further chunk: malloc from here */
        return -1;
    if (p->nchunks == p->chunkcap) {
        uint32_t ncap = p->chunkcap ? p->chunkcap * 2 : 8;
        char **cs = (char **)realloc(p->chunks, ncap * sizeof *cs);
        if (!cs)
            return -1;
        p->chunks = cs;
        p->chunkcap = ncap;
    }
#if FR_ZSET_MMAP
    c = (char *)fr_zset_map(FR_ZSET_POOL_CHUNK, FR_ZSET_POOL_CHUNK, MADV_NOHUGEPAGE);
#else
    c = (char *)calloc(1, FR_ZSET_POOL_CHUNK); /* zeroed as a mapping is */
#endif
    if (!c)
        return -1;
#if FR_ZSET_MMAP
    if (p->nchunks) { /* the chunk before is full: onto a huge page */
        (void)madvise(p->chunks[p->nchunks - 1], FR_ZSET_POOL_CHUNK, MADV_HUGEPAGE);
#ifdef MADV_COLLAPSE
        (void)madvise(p->chunks[p->nchunks - 1], FR_ZSET_POOL_CHUNK, MADV_COLLAPSE);
#endif
    }
#endif
    if ((size_t)(p->end - p->bump) >= fr_zset_slot_size(FR_ZSET_PLEAF)) {
        memcpy(p->bump, &p->free[FR_ZSET_PLEAF], sizeof(void *));
        p->free[FR_ZSET_PLEAF] = p->bump;
        p->nfree[FR_ZSET_PLEAF]++;
    }
    p->chunks[p->nchunks++] = c;
    p->bump = fr_zset_chunk_base(c);
    p->end = c + FR_ZSET_POOL_CHUNK;
    return 0;
}

/* A slot of class cls: from the free list, the newest chunk's rest, or
 * (when may_map) a new chunk.  NULL when none. */
static void *fr_zset_pool_take(fr_zset_pool *p, int cls, int may_map)
{
    size_t sz = fr_zset_slot_size(cls);
    void *x = p->free[cls];
    if (x) {
        memcpy(&p->free[cls], x, sizeof(void *));
        p->nfree[cls]--;
    } else {
        if ((size_t)(p->end - p->bump) < sz && (!may_map || fr_zset_pool_grow(p)))
            return NULL;
        x = p->bump;
        p->bump += sz;
    }
    p->live[cls]++;
    return x;
}

/* Gives slot x of class cls back; the last slot in use unmaps the pool. */
static void fr_zset_pool_give(fr_zset_pool *p, void *x, int cls)
{
    memcpy(x, &p->free[cls], sizeof(void *));
    p->free[cls] = x;
    p->nfree[cls]++;
    p->live[cls]--;
    if (p->live[FR_ZSET_PLEAF] + p->live[FR_ZSET_PINNER] == 0)
        fr_zset_pool_release(p);
}

/* Bytes the pool holds: its full chunks, and the carved pages of the
 * newest (the rest of it is not touched yet; see above). */
static size_t fr_zset_pool_bytes(const fr_zset_pool *p)
{
    size_t newest;
    if (!p->nchunks)
        return 0;
    newest = FR_ZSET_MMAP ? (((size_t)(p->bump - p->chunks[p->nchunks - 1]) + FR_ZSET_PAGE - 1) & ~(FR_ZSET_PAGE - 1))
                          : FR_ZSET_POOL_CHUNK;
    return (size_t)(p->nchunks - 1) * FR_ZSET_POOL_CHUNK + newest + (size_t)p->chunkcap * sizeof(char *);
}

/* The number of the pool's chunk holding address x, or nchunks when none
 * does. */
static uint32_t fr_zset_pool_chunk_of(const fr_zset_pool *p, const void *x)
{
    uint32_t i = p->nchunks;
    while (i-- > 0) /* the newest first: where new nodes come from */
        if ((const char *)x >= p->chunks[i] && (const char *)x < p->chunks[i] + FR_ZSET_POOL_CHUNK)
            return i;
    return p->nchunks;
}

/* Does the pool hold address x (in one of its chunks)? */
static int fr_zset_pool_holds(const fr_zset_pool *p, const void *x)
{
    return fr_zset_pool_chunk_of(p, x) < p->nchunks;
}

/* LEAF NAMES.  A record names the leaf that holds it in 32 bits (its leaf
 * field, which fr_zset_leaf_of follows), and so does the leaf itself (its
 * id).  A pooled leaf is named by its place: FR_ZSET_NAMED_SLOT, then the
 * number of its chunk (16 bits: 0 .. FR_ZSET_NAME_CHUNKS - 1), then
 * its offset from the chunk's first line in 64-byte lines (15 bits), so
 * finding it is an addition off the pool's chunk table (640 bytes at 10M
 * members: always cached).  A malloc'd leaf is named by an index into the
 * set's leaf id table (s->leaves).  The table was all there was before:
 * 12 bytes a leaf (1.6 MB of pointers at 10M members) read at a random
 * index on every rank and move, one more dependent load.  Named by place,
 * ranks took 12% less time at 10M members (8% at 1M) and moves 5% (3%),
 * and a pooled leaf has no table entry (0.3 bytes a member less); see
 * bench/results/zset-bptree.md.  A leaf that changes place
 * (fr_zset_root_move, copies, compaction) changes name when pooled, and
 * its records follow. */

/* The name of pooled slot x (a leaf in one of the pool's chunks). */
static uint32_t fr_zset_pool_name(const fr_zset_pool *p, const void *x)
{
    uint32_t i = fr_zset_pool_chunk_of(p, x);
    assert(i < p->nchunks && "a pooled leaf outside the pool");
    return FR_ZSET_NAMED_SLOT | i << 15 | (uint32_t)(((const char *)x - fr_zset_chunk_base(p->chunks[i])) >> 6);
}

/* The chunk number in a pooled leaf's name. */
static inline uint32_t fr_zset_name_chunk(uint32_t id)
{
    return (id >> 15) & 0xffff;
}

/* The leaf named id. */
static inline fr_zset_leaf *fr_zset_leaf_named(const fr_zset *s, uint32_t id)
{
    if (id & FR_ZSET_NAMED_SLOT)
        return (fr_zset_leaf *)(fr_zset_chunk_base(s->pool.chunks[fr_zset_name_chunk(id)]) +
                                ((size_t)(id & 0x7fff) << 6));
    return s->leaves[id];
}

/* A leaf of capacity cap for a tree of `nodes` nodes (pooled when it is a
 * full leaf and the pool has a slot or the tree is big enough for a
 * chunk; else, or when no chunk can be mapped, malloc'd), with its cap and
 * pooled fields set; NULL when out of memory. */
static fr_zset_leaf *fr_zset_leaf_alloc(fr_zset *s, uint32_t cap, uint64_t nodes)
{
    fr_zset_leaf *l = NULL;
    if (cap == FR_ZSET_LEAF_CAP)
        l = (fr_zset_leaf *)fr_zset_pool_take(&s->pool, FR_ZSET_PLEAF, nodes >= FR_ZSET_POOL_MIN_NODES);
    if (l) {
        l->pooled = 1;
    } else {
        if (!(l = (fr_zset_leaf *)calloc(1, fr_zset_leaf_size(cap)))) /* zeroed: see fr_zset_descend_score */
            return NULL;
        l->pooled = 0;
        s->heap_node_bytes += fr_zset_leaf_size(cap);
    }
    l->cap = cap;
    return l;
}

static void fr_zset_leaf_free(fr_zset *s, fr_zset_leaf *l)
{
    if (l->pooled) {
        fr_zset_pool_give(&s->pool, l, FR_ZSET_PLEAF);
    } else {
        s->heap_node_bytes -= fr_zset_leaf_size(l->cap);
        free(l);
    }
}

/* An inner node for a tree of `nodes` nodes, as fr_zset_leaf_alloc. */
static fr_zset_inner *fr_zset_inner_alloc(fr_zset *s, uint64_t nodes)
{
    fr_zset_inner *x = (fr_zset_inner *)fr_zset_pool_take(&s->pool, FR_ZSET_PINNER,
                                                          nodes >= FR_ZSET_POOL_MIN_NODES);
    if (x) {
        x->pooled = 1;
    } else {
        if (!(x = (fr_zset_inner *)calloc(1, sizeof *x)))
            return NULL;
        x->pooled = 0;
        s->heap_node_bytes += sizeof *x;
    }
    return x;
}

static void fr_zset_inner_free(fr_zset *s, fr_zset_inner *x)
{
    if (x->pooled) {
        fr_zset_pool_give(&s->pool, x, FR_ZSET_PINNER);
    } else {
        s->heap_node_bytes -= sizeof *x;
        free(x);
    }
}

static inline uint64_t fr_zset_tree_nodes(const fr_zset *s)
{
    return s->nleaves + s->ninners;
}

/* Makes room in the leaf id table for `more` new ids.  0 or -1. */
static int fr_zset_ids_reserve(fr_zset *s, uint64_t more)
{
    uint64_t want = (uint64_t)s->nids + more, ncap;
    fr_zset_leaf **l;
    uint32_t *f;
    if (want <= s->idcap)
        return 0;
    if (want >= UINT32_MAX)
        return -1;
    ncap = s->idcap < 8 ? 8 : (uint64_t)s->idcap * 2;
    if (ncap < want)
        ncap = want;
    if (ncap >= UINT32_MAX)
        ncap = UINT32_MAX - 1;
    l = (fr_zset_leaf **)realloc(s->leaves, (size_t)ncap * sizeof *l);
    if (!l)
        return -1;
    s->leaves = l;
    f = (uint32_t *)realloc(s->free_ids, (size_t)ncap * sizeof *f);
    if (!f)
        return -1;
    s->free_ids = f;
    s->idcap = (uint32_t)ncap;
    return 0;
}

/* A table id never given before (the table must have room). */
static uint32_t fr_zset_fresh_id(fr_zset *s)
{
    uint32_t id = s->nids++;
    if (id == 0) /* id 0 is never used: a record's leaf 0 means "none" */
        id = s->nids++;
    return id;
}

/* Points the records of leaf l at its name. */
static void fr_zset_leaf_own(fr_zset *s, const fr_zset_leaf *l)
{
    const fr_zset_ref *refs = FR_ZSET_LREF(l);
    uint32_t k;
    for (k = 0; k < l->n; k++)
        FR_ZSET_N(s, refs[k])->leaf = l->id;
}

/* A name for leaf l, just placed: its place when pooled, else a table id
 * (the table must have room: ids in use + 1 <= idcap). */
static uint32_t fr_zset_leaf_take_name(fr_zset *s, fr_zset_leaf *l)
{
    uint32_t id;
    if (l->pooled)
        return fr_zset_pool_name(&s->pool, l);
    id = s->nfree_ids ? s->free_ids[--s->nfree_ids] : fr_zset_fresh_id(s);
    s->leaves[id] = l;
    return id;
}

/* Gives up name id (a table id goes back to the table). */
static void fr_zset_leaf_drop_name(fr_zset *s, uint32_t id)
{
    if (!(id & FR_ZSET_NAMED_SLOT)) {
        s->leaves[id] = NULL;
        s->free_ids[s->nfree_ids++] = id;
    }
}

/* Gives leaf l, moved, the name its new place calls for (from `was`): a
 * pooled leaf is named by its place, a malloc'd one keeps a table id or
 * takes one (the table must have room); its records follow. */
static void fr_zset_leaf_rename(fr_zset *s, fr_zset_leaf *l, uint32_t was)
{
    if (!l->pooled && !(was & FR_ZSET_NAMED_SLOT)) {
        l->id = was;
        s->leaves[was] = l;
        return;
    }
    fr_zset_leaf_drop_name(s, was);
    l->id = fr_zset_leaf_take_name(s, l);
    fr_zset_leaf_own(s, l);
}

/* A leaf of capacity cap with a fresh name (the id table must have room:
 * ids in use + 1 <= idcap), or NULL. */
static fr_zset_leaf *fr_zset_leaf_new(fr_zset *s, uint32_t cap)
{
    fr_zset_leaf *l;
    if (cap == FR_ZSET_LEAF_CAP && s->stash_leaf) {
        l = s->stash_leaf;
        s->stash_leaf = NULL;
    } else {
        l = fr_zset_leaf_alloc(s, cap, fr_zset_tree_nodes(s));
        if (!l)
            return NULL;
    }
    l->parent = NULL;
    l->prev = l->next = NULL;
    l->n = 0;
    l->id = fr_zset_leaf_take_name(s, l);
    s->nleaves++;
    return l;
}

static void fr_zset_leaf_release(fr_zset *s, fr_zset_leaf *l)
{
    fr_zset_leaf_drop_name(s, l->id);
    s->nleaves--;
    fr_zset_leaf_free(s, l);
}

static void fr_zset_inner_release(fr_zset *s, fr_zset_inner *x)
{
    s->ninners--;
    fr_zset_inner_free(s, x);
}

/* Ensures the nodes a worst-case insertion needs (a split on every level
 * and a new root) are allocated: one spare leaf, height + 1 spare inner
 * nodes and a free leaf id.  Only called for trees that can split a full
 * leaf, so a small set keeps no spares.  0, or -1 when out of memory. */
static int fr_zset_stash_fill(fr_zset *s)
{
    uint32_t need = (uint32_t)s->height + 1;
    if (fr_zset_ids_reserve(s, 2))
        return -1;
    if (!s->stash_leaf) {
        s->stash_leaf = fr_zset_leaf_alloc(s, FR_ZSET_LEAF_CAP, fr_zset_tree_nodes(s));
        if (!s->stash_leaf)
            return -1;
    }
    while (s->nstash < need) {
        fr_zset_inner *x = fr_zset_inner_alloc(s, fr_zset_tree_nodes(s));
        if (!x)
            return -1;
        s->stash[s->nstash++] = x;
    }
    return 0;
}

static void fr_zset_stash_free(fr_zset *s)
{
    while (s->nstash)
        fr_zset_inner_free(s, s->stash[--s->nstash]);
    if (s->stash_leaf)
        fr_zset_leaf_free(s, s->stash_leaf);
    s->stash_leaf = NULL;
}

/* Frees the malloc'd nodes of the subtree under node (h inner levels above
 * its leaves; NULL children are skipped), not touching ids or counters;
 * the pooled ones go when their pool is released. */
static void fr_zset_tree_free(void *node, int h)
{
    int pooled;
    if (!node)
        return;
    if (h > 0) {
        fr_zset_inner *x = (fr_zset_inner *)node;
        uint32_t i;
        for (i = 0; i < x->n; i++)
            fr_zset_tree_free(x->child[i], h - 1);
        pooled = (int)x->pooled;
    } else {
        pooled = (int)((fr_zset_leaf *)node)->pooled;
    }
    if (!pooled)
        free(node);
}

/* ======================================================================
 * Keys and comparisons
 * ====================================================================== */

/* A search key: score and member, with the member's 4-byte prefix. */
typedef struct fr_zset_key {
    double score;
    const char *m;
    size_t len;
    uint32_t pfx;
} fr_zset_key;

static inline uint32_t fr_zset_pfx(const char *m, size_t len)
{
    unsigned char b[4] = {0, 0, 0, 0};
    memcpy(b, m, len < 4 ? len : 4);
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

static inline fr_zset_key fr_zset_key_of(double score, const char *m, size_t len)
{
    fr_zset_key k = {score, m, len, fr_zset_pfx(m, len)};
    return k;
}

/* Separator i of x compared with key k: < 0 when it sorts first.  Equal
 * scores go by the prefixes; only equal prefixes read the record. */
static inline int fr_zset_cmp_sep(const fr_zset *s, const fr_zset_inner *x, uint32_t i,
                                  const fr_zset_key *k)
{
    size_t len;
    const char *m;
    if (x->sep[i] != k->score)
        return x->sep[i] < k->score ? -1 : 1;
    if (x->pfx[i] != k->pfx)
        return x->pfx[i] < k->pfx ? -1 : 1;
    m = fr_zset_member(s, x->sref[i], &len);
    return fr_zset_memcmp(m, len, k->m, k->len);
}

/* Entry j of leaf l compared with key k. */
static inline int fr_zset_cmp_entry(const fr_zset *s, const fr_zset_leaf *l, uint32_t j,
                                    const fr_zset_key *k)
{
    size_t len;
    const char *m;
    if (l->score[j] != k->score)
        return l->score[j] < k->score ? -1 : 1;
    m = fr_zset_member(s, FR_ZSET_LREF(l)[j], &len);
    return fr_zset_memcmp(m, len, k->m, k->len);
}

/* Sets separator i of x to the key of record r (score taken from sc). */
static inline void fr_zset_set_sep(const fr_zset *s, fr_zset_inner *x, uint32_t i, double sc,
                                   fr_zset_ref r)
{
    size_t len;
    const char *m = fr_zset_member(s, r, &len);
    x->sep[i] = sc;
    x->pfx[i] = fr_zset_pfx(m, len);
    x->sref[i] = r;
}

/* Index of child c in inner node x. */
static inline uint32_t fr_zset_child_index(const fr_zset_inner *x, const void *c)
{
    uint32_t i = 0;
    while (x->child[i] != c)
        i++;
    return i;
}

static inline void *fr_zset_parent_of(const void *node, int is_leaf)
{
    return is_leaf ? (void *)((const fr_zset_leaf *)node)->parent
                   : (void *)((const fr_zset_inner *)node)->parent;
}

/* Members under node (h: its inner levels; 0 = a leaf). */
static inline uint64_t fr_zset_node_count(const void *node, int h)
{
    const fr_zset_inner *x;
    uint64_t t = 0;
    uint32_t i;
    if (h == 0)
        return ((const fr_zset_leaf *)node)->n;
    x = (const fr_zset_inner *)node;
    for (i = 0; i < x->n; i++)
        t += x->cnt[i];
    return t;
}

/* After node's smallest key may have changed (it is not empty): writes it
 * into the separator that names it -- at the first ancestor reached
 * through a child other than the first. */
static void fr_zset_fix_min(fr_zset *s, void *node, int h)
{
    void *c = node;
    fr_zset_inner *p;
    const fr_zset_leaf *l;
    int ch = h;
    while (h > 0)
        node = ((fr_zset_inner *)node)->child[0], h--;
    l = (const fr_zset_leaf *)node;
    p = (fr_zset_inner *)fr_zset_parent_of(c, ch == 0);
    while (p) {
        uint32_t i = fr_zset_child_index(p, c);
        if (i > 0) {
            fr_zset_set_sep(s, p, i, l->score[0], FR_ZSET_LREF(l)[0]);
            return;
        }
        c = p;
        p = p->parent;
    }
}

/* Slot of record r in leaf l. */
static inline uint32_t fr_zset_slot_of(const fr_zset_leaf *l, fr_zset_ref r)
{
    const fr_zset_ref *refs = FR_ZSET_LREF(l);
    uint32_t j, at = 0;
    for (j = 0; j < l->n; j++) /* no early exit: the compiler vectorises it */
        at |= refs[j] == r ? j : 0;
    return at;
}

/* Prefetches leaf l's header line and its ref lines (with_scores: the
 * score lines too) without waiting for the header: the arrays are taken
 * where a full-capacity leaf has them, as every leaf but a small root
 * does (for that one some hints name lines past its end, harmless: a
 * prefetch never faults, and the addresses are integers until then). */
static inline void fr_zset_prefetch_leaf(const fr_zset_leaf *l, int with_scores)
{
    uintptr_t sc = (uintptr_t)l + offsetof(fr_zset_leaf, score);
    uintptr_t rf = sc + FR_ZSET_LEAF_CAP * sizeof(double);
    size_t k;
    fr_zset_prefetch_addr(l);
    for (k = 0; k < FR_ZSET_LEAF_CAP * sizeof(fr_zset_ref); k += 64)
        fr_zset_prefetch_addr((const void *)(rf + k));
    for (k = 0; with_scores && k < FR_ZSET_LEAF_CAP * sizeof(double); k += 64)
        fr_zset_prefetch_addr((const void *)(sc + k));
}

/* Prefetches the lines of inner node x a single descent reads after its
 * separators: the counts and the children (a descent sums the counts left
 * of the child it takes, then follows it), so they arrive with the
 * separators instead of one latency after them.  Batched descents do not:
 * sixteen descents' worth of lines in flight would queue. */
static inline void fr_zset_prefetch_counted(const fr_zset_inner *x)
{
    size_t k;
    for (k = 0; k < sizeof x->cnt; k += 64)
        fr_zset_prefetch_addr((const char *)x->cnt + k);
    for (k = 0; k < sizeof x->child; k += 64)
        fr_zset_prefetch_addr((const char *)x->child + k);
}

/* Prefetches the score lines a search reads in a node (h: its levels). */
static inline void fr_zset_prefetch_keys(const void *node, int h)
{
    const char *p;
    size_t k, len;
    if (h == 0) {
        p = (const char *)((const fr_zset_leaf *)node)->score;
        len = FR_ZSET_LEAF_CAP * sizeof(double);
        fr_zset_prefetch_addr(node);
    } else {
        p = (const char *)((const fr_zset_inner *)node)->sep;
        len = FR_ZSET_INNER_CAP * sizeof(double);
        fr_zset_prefetch_addr(node);
    }
    for (k = 0; k < len; k += 64)
        fr_zset_prefetch_addr(p + k);
}

static inline fr_zset_leaf *fr_zset_leaf_of(const fr_zset *s, fr_zset_ref r)
{
    return fr_zset_leaf_named(s, FR_ZSET_N(s, r)->leaf);
}

/* ======================================================================
 * Searches
 * ====================================================================== */

static inline void fr_zset_set_hint(fr_zset *s, fr_zset_ref x, uint64_t rank)
{
    s->hint_ref = x;
    s->hint_rank = rank;
    s->hint_version = s->version;
}

static inline int fr_zset_hint_holds(const fr_zset *s, fr_zset_ref x)
{
    return x == s->hint_ref && s->hint_version == s->version;
}

/* Child of x to descend into for key k: the last one whose separator is
 * below k (child 0 when none). */
static inline uint32_t fr_zset_pick_key(const fr_zset *s, const fr_zset_inner *x, const fr_zset_key *k)
{
    uint32_t i, c = 0;
    for (i = 1; i < x->n; i++)
        c += x->sep[i] < k->score;
    while (c + 1 < x->n && x->sep[c + 1] == k->score && fr_zset_cmp_sep(s, x, c + 1, k) < 0)
        c++;
    return c;
}

/* Number of entries of leaf l below key k. */
static inline uint32_t fr_zset_leaf_lower(const fr_zset *s, const fr_zset_leaf *l, const fr_zset_key *k)
{
    uint32_t j, c = 0;
    for (j = 0; j < l->n; j++)
        c += l->score[j] < k->score;
    while (c < l->n && l->score[c] == k->score && fr_zset_cmp_entry(s, l, c, k) < 0)
        c++;
    return c;
}

/* Descends to the leaf where key k belongs; fills path[0..height) (path[i]
 * the inner node on level height - i, idx[i] the child taken) when given,
 * *below the members before that leaf, *slot k's place in it. */
FR_ZSET_BODY fr_zset_leaf *fr_zset_descend_key_body(const fr_zset *s, const fr_zset_key *k, fr_zset_inner **path,
                                                   uint32_t *idx, uint64_t *below, uint32_t *slot, int isa)
{
    void *node = s->root;
    uint64_t t = 0;
    int h;
    (void)isa;
    for (h = s->height; h > 0; h--) {
        fr_zset_inner *x = (fr_zset_inner *)node;
        uint32_t c = fr_zset_pick_key(s, x, k), i;
        for (i = 0; i < c; i++)
            t += x->cnt[i];
        if (path) {
            path[s->height - h] = x;
            idx[s->height - h] = c;
        }
        node = x->child[c];
        if (h > 1) {
            fr_zset_prefetch_keys(node, h - 1);
            fr_zset_prefetch_counted((const fr_zset_inner *)node);
        } else { /* the leaf: its refs too (equal scores read them, an insertion shifts them) */
            fr_zset_prefetch_leaf((const fr_zset_leaf *)node, 1);
        }
    }
    *below = t;
    *slot = fr_zset_leaf_lower(s, (const fr_zset_leaf *)node, k);
    return (fr_zset_leaf *)node;
}

FR_ZSET_DISPATCHED(static, fr_zset_leaf *, fr_zset_descend_key,
                   (const fr_zset *s, const fr_zset_key *k, fr_zset_inner **path, uint32_t *idx,
                    uint64_t *below, uint32_t *slot),
                   (s, k, path, idx, below, slot))

/* 1-based rank of the entry at slot j of leaf l: j + 1 plus, on each
 * level up, the counts of the children left of the one walked from.
 * masked (the AVX-512 copies): both loops run over every slot, those past
 * n masked out (each holds a pointer or zero: nodes start zeroed), with
 * no early exit, in a few mask-register instructions, and no branch
 * guesses where the child sits: ranks 9-10% faster at 1M.  Otherwise the
 * loops stop at the child: the masked form measured the same with AVX2
 * and 20% slower with the baseline instructions, where the exit lets the
 * processor run ahead. */
FR_ZSET_BODY uint64_t fr_zset_rank_at(const fr_zset_leaf *l, uint32_t j, int masked)
{
    uint64_t r = (uint64_t)j + 1;
    const void *c = l;
    const fr_zset_inner *p = l->parent;
    while (p) {
        uint32_t i = 0, k, n = p->n;
        if (masked) {
            for (k = 0; k < FR_ZSET_INNER_CAP; k++)
                i |= ((k < n) & (p->child[k] == c)) ? k : 0;
            for (k = 0; k < FR_ZSET_INNER_CAP; k++)
                r += k < i ? p->cnt[k] : 0;
        } else {
            i = fr_zset_child_index(p, c);
            for (k = 0; k < i; k++)
                r += p->cnt[k];
        }
        c = p;
        p = p->parent;
    }
    return r;
}

/* 1-based rank of member record target.  O(log n): the leaf is read off
 * the record, the rank summed on the way up; O(1) for the record the last
 * write left as the rank hint.  The parent's counts and children are
 * requested as soon as the leaf's header names it, so they arrive with
 * the leaf's refs instead of after them. */
FR_ZSET_BODY uint64_t fr_zset_rank_body(const fr_zset *s, fr_zset_ref target, int isa)
{
    const fr_zset_leaf *l;
    if (fr_zset_hint_holds(s, target))
        return s->hint_rank;
    l = fr_zset_leaf_of(s, target);
    fr_zset_prefetch_leaf(l, 0);
    if (l->parent)
        fr_zset_prefetch_counted(l->parent);
    return fr_zset_rank_at(l, fr_zset_slot_of(l, target), isa == 2);
}

FR_ZSET_DISPATCHED(, uint64_t, fr_zset_rank, (const fr_zset *s, fr_zset_ref target), (s, target))

/* Leaf and slot of the entry at 1-based rank (1..length). */
static fr_zset_leaf *fr_zset_find_rank(const fr_zset *s, uint64_t rank, uint32_t *slot)
{
    void *node = s->root;
    uint64_t t = rank - 1;
    int h;
    if (rank > s->length - s->tail->n) { /* the last leaf: no descent */
        *slot = (uint32_t)(rank - 1 - (s->length - s->tail->n));
        return s->tail;
    }
    for (h = s->height; h > 0; h--) {
        const fr_zset_inner *x = (const fr_zset_inner *)node;
        uint32_t i = 0;
        while (t >= x->cnt[i])
            t -= x->cnt[i++];
        node = x->child[i];
        fr_zset_prefetch_addr(node);
    }
    *slot = (uint32_t)t;
    return (fr_zset_leaf *)node;
}

/* Record at 1-based rank, or FR_ZSET_NIL when out of 1..length. */
fr_zset_ref fr_zset_at_rank(const fr_zset *s, uint64_t rank)
{
    uint32_t j;
    const fr_zset_leaf *l;
    if (rank == 0 || rank > s->length)
        return FR_ZSET_NIL;
    l = fr_zset_find_rank(s, rank, &j);
    return FR_ZSET_LREF(l)[j];
}

/* The member after (before) r in the order, or FR_ZSET_NIL. */
fr_zset_ref fr_zset_next(const fr_zset *s, fr_zset_ref r)
{
    const fr_zset_leaf *l = fr_zset_leaf_of(s, r);
    uint32_t j = fr_zset_slot_of(l, r) + 1;
    if (j < l->n)
        return FR_ZSET_LREF(l)[j];
    return l->next ? FR_ZSET_LREF(l->next)[0] : FR_ZSET_NIL;
}

fr_zset_ref fr_zset_prev(const fr_zset *s, fr_zset_ref r)
{
    const fr_zset_leaf *l = fr_zset_leaf_of(s, r);
    uint32_t j = fr_zset_slot_of(l, r);
    if (j > 0)
        return FR_ZSET_LREF(l)[j - 1];
    return l->prev ? FR_ZSET_LREF(l->prev)[l->prev->n - 1] : FR_ZSET_NIL;
}

/* Writes into out[] up to count records from slot j of leaf l on, walking
 * the leaves forward (backward when reverse).  The number written. */
static size_t fr_zset_gather_at(const fr_zset_leaf *l, uint32_t j, size_t count, int reverse,
                                fr_zset_ref *out)
{
    size_t k = 0;
    if (!reverse) {
        while (l && k < count) {
            const fr_zset_ref *refs = FR_ZSET_LREF(l);
            if (l->next)
                fr_zset_prefetch_addr(l->next);
            for (; j < l->n && k < count; j++)
                out[k++] = refs[j];
            l = l->next;
            j = 0;
        }
    } else {
        for (;;) {
            const fr_zset_ref *refs = FR_ZSET_LREF(l);
            if (l->prev)
                fr_zset_prefetch_addr(l->prev);
            for (;; j--) {
                out[k++] = refs[j];
                if (j == 0 || k == count)
                    break;
            }
            l = l->prev;
            if (!l || k == count)
                break;
            j = l->n - 1;
        }
    }
    return k;
}

/* GATHER: writes into out[] up to count records starting at 1-based rank
 * (ascending, or descending when reverse: rank, rank - 1, ...), walking the
 * leaves (no per-member search).  The number written. */
size_t fr_zset_gather(const fr_zset *s, uint64_t rank, size_t count, int reverse, fr_zset_ref *out)
{
    const fr_zset_leaf *l;
    uint32_t j;
    if (rank == 0 || rank > s->length || count == 0)
        return 0;
    l = fr_zset_find_rank(s, rank, &j);
    return fr_zset_gather_at(l, j, count, reverse, out);
}

/* GATHER FROM A MEMBER: as fr_zset_gather, from record r on (r first)
 * instead of from a rank.  r's leaf and slot are found once (the leaf scan
 * fr_zset_next/prev do per call), then the leaves are walked: the score and
 * lex range walks with LIMIT take their members in chunks from here. */
size_t fr_zset_gather_from(const fr_zset *s, fr_zset_ref r, size_t count, int reverse, fr_zset_ref *out)
{
    const fr_zset_leaf *l;
    if (r == FR_ZSET_NIL || count == 0)
        return 0;
    l = fr_zset_leaf_of(s, r);
    return fr_zset_gather_at(l, fr_zset_slot_of(l, r), count, reverse, out);
}

/* ======================================================================
 * Insertion: splits
 * ====================================================================== */

/* An inner node from the stash (fr_zset_stash_fill put it there). */
static fr_zset_inner *fr_zset_stash_take(fr_zset *s)
{
    fr_zset_inner *x = s->stash[--s->nstash];
    x->parent = NULL;
    x->n = 0;
    s->ninners++;
    return x;
}

/* Inserts child d (count dc, smallest key (ds, dr)) into x right after
 * child c (whose count becomes cc); splits x when full, up to a new root.
 * The nodes are in the stash (fr_zset_stash_fill), so this cannot fail. */
static void fr_zset_add_child(fr_zset *s, fr_zset_inner *x, void *c, uint64_t cc, void *d,
                              uint64_t dc, double ds, fr_zset_ref dr, int h)
{
    uint32_t i, n;
    if (!x) { /* c was the root: a new root above c and d */
        assert(s->nstash > 0);
        x = fr_zset_stash_take(s);
        x->n = 2;
        x->child[0] = c;
        x->cnt[0] = cc;
        x->child[1] = d;
        x->cnt[1] = dc;
        x->sep[0] = 0.0;
        x->pfx[0] = 0;
        x->sref[0] = FR_ZSET_NIL;
        fr_zset_set_sep(s, x, 1, ds, dr);
        if (h == 0) {
            ((fr_zset_leaf *)c)->parent = x;
            ((fr_zset_leaf *)d)->parent = x;
        } else {
            ((fr_zset_inner *)c)->parent = x;
            ((fr_zset_inner *)d)->parent = x;
        }
        s->root = x;
        s->height++;
        return;
    }
    i = fr_zset_child_index(x, c);
    x->cnt[i] = cc;
    n = x->n;
    if (n == FR_ZSET_INNER_CAP) { /* split x: upper half to y */
        fr_zset_inner *y;
        uint32_t half = n / 2, m = n - half, k;
        uint64_t xc = 0, yc = 0;
        assert(s->nstash > 0);
        y = fr_zset_stash_take(s);
        memcpy(y->cnt, x->cnt + half, m * sizeof x->cnt[0]);
        memcpy(y->sep, x->sep + half, m * sizeof x->sep[0]);
        memcpy(y->pfx, x->pfx + half, m * sizeof x->pfx[0]);
        memcpy(y->sref, x->sref + half, m * sizeof x->sref[0]);
        memcpy(y->child, x->child + half, m * sizeof x->child[0]);
        y->n = m;
        x->n = half;
        for (k = 0; k < m; k++) {
            if (h == 0)
                ((fr_zset_leaf *)y->child[k])->parent = y;
            else
                ((fr_zset_inner *)y->child[k])->parent = y;
        }
        /* now insert d next to c in whichever half holds c */
        if (i >= half) {
            fr_zset_add_child(s, y, c, cc, d, dc, ds, dr, h);
        } else {
            fr_zset_add_child(s, x, c, cc, d, dc, ds, dr, h);
        }
        for (k = 0; k < x->n; k++)
            xc += x->cnt[k];
        for (k = 0; k < y->n; k++)
            yc += y->cnt[k];
        fr_zset_add_child(s, x->parent, x, xc, y, yc, y->sep[0], y->sref[0], h + 1);
        return;
    }
    memmove(x->cnt + i + 2, x->cnt + i + 1, (n - i - 1) * sizeof x->cnt[0]);
    memmove(x->sep + i + 2, x->sep + i + 1, (n - i - 1) * sizeof x->sep[0]);
    memmove(x->pfx + i + 2, x->pfx + i + 1, (n - i - 1) * sizeof x->pfx[0]);
    memmove(x->sref + i + 2, x->sref + i + 1, (n - i - 1) * sizeof x->sref[0]);
    memmove(x->child + i + 2, x->child + i + 1, (n - i - 1) * sizeof x->child[0]);
    x->child[i + 1] = d;
    x->cnt[i + 1] = dc;
    fr_zset_set_sep(s, x, i + 1, ds, dr);
    x->n = n + 1;
    if (h == 0)
        ((fr_zset_leaf *)d)->parent = x;
    else
        ((fr_zset_inner *)d)->parent = x;
}

/* Splits full leaf l (capacity FR_ZSET_LEAF_CAP) in two; the new right half. */
static fr_zset_leaf *fr_zset_split_leaf(fr_zset *s, fr_zset_leaf *l)
{
    fr_zset_leaf *r = fr_zset_leaf_new(s, FR_ZSET_LEAF_CAP);
    uint32_t half = l->n / 2, m = l->n - half;
    fr_zset_ref *rr;
    assert(r);
    rr = FR_ZSET_LREF(r);
    memcpy(r->score, l->score + half, m * sizeof(double));
    memcpy(rr, FR_ZSET_LREF(l) + half, m * sizeof(fr_zset_ref));
    r->n = m;
    l->n = half;
    fr_zset_leaf_own(s, r);
    r->next = l->next;
    r->prev = l;
    if (l->next)
        l->next->prev = r;
    else
        s->tail = r;
    l->next = r;
    fr_zset_add_child(s, l->parent, l, half, r, m, r->score[0], rr[0], 0);
    return r;
}

/* Moves the lone root leaf l into g (capacity and pooled set, room for
 * l's entries, a free id in the table) and frees l. */
static void fr_zset_root_move(fr_zset *s, fr_zset_leaf *g, fr_zset_leaf *l)
{
    uint32_t cap = g->cap, pooled = g->pooled;
    memcpy(g, l, sizeof *l);
    g->cap = cap;
    g->pooled = pooled;
    memcpy(g->score, l->score, l->n * sizeof(double));
    memcpy(FR_ZSET_LREF(g), FR_ZSET_LREF(l), l->n * sizeof(fr_zset_ref));
    fr_zset_leaf_rename(s, g, l->id);
    s->root = s->head = s->tail = g;
    fr_zset_leaf_free(s, l);
}

/* Grows the root leaf (the only leaf that may be small) to hold more. */
static int fr_zset_grow_root(fr_zset *s, fr_zset_leaf *l)
{
    uint32_t ncap = l->cap * 2 > FR_ZSET_LEAF_CAP ? FR_ZSET_LEAF_CAP : l->cap * 2;
    fr_zset_leaf *g;
    if (fr_zset_ids_reserve(s, 1))
        return -1;
    g = fr_zset_leaf_alloc(s, ncap, fr_zset_tree_nodes(s));
    if (!g)
        return -1;
    fr_zset_root_move(s, g, l);
    return 0;
}

/* Makes sure an insertion cannot fail for lack of memory: a first leaf, a
 * bigger root leaf, or the stash.  0 or -1 (nothing changed). */
static int fr_zset_reserve_insert(fr_zset *s)
{
    fr_zset_leaf *l;
    if (!s->root) {
        if (fr_zset_ids_reserve(s, 2))
            return -1;
        l = fr_zset_leaf_new(s, FR_ZSET_SMALL_LEAF);
        if (!l)
            return -1;
        s->root = s->head = s->tail = l;
        return 0;
    }
    if (s->height == 0) {
        l = (fr_zset_leaf *)s->root;
        if (l->n < l->cap)
            return 0;
        if (l->cap < FR_ZSET_LEAF_CAP)
            return fr_zset_grow_root(s, l);
    }
    return fr_zset_stash_fill(s);
}

/* SPILL.  Before splitting a full leaf, entries move to a sibling under the
 * same parent that has at least FR_ZSET_SPILL_MIN free slots (half of its
 * room), as in a B*-tree: the leaves stay fuller than the ~70% of plain
 * halving (a set grown by random inserts ends at the skip list's bytes per
 * member instead of 7% above), for a few record writes per spill.  The new key's place is *slot in l; returns
 * the leaf (l or the sibling) where it now goes, *slot its slot there --
 * never slot 0 of a leaf other than l, so no separator needs the new key --
 * or NULL when no sibling has room (then the caller splits). */
#define FR_ZSET_SPILL_MIN 2

static void fr_zset_move_entries(fr_zset *s, fr_zset_leaf *b, uint32_t bi, const fr_zset_leaf *a,
                                 uint32_t ai, uint32_t k);

static fr_zset_leaf *fr_zset_spill(fr_zset *s, fr_zset_leaf *l, uint32_t *slot)
{
    fr_zset_inner *p = l->parent;
    fr_zset_leaf *a, *b;
    uint32_t i, k;
    if (!p)
        return NULL;
    i = fr_zset_child_index(p, l);
    b = i + 1 < p->n ? (fr_zset_leaf *)p->child[i + 1] : NULL;
    a = i > 0 ? (fr_zset_leaf *)p->child[i - 1] : NULL;
    if (b && b->cap - b->n >= FR_ZSET_SPILL_MIN && *slot < l->n) { /* the last k entries of l go to the front of b */
        k = (b->cap - b->n + 1) / 2;
        if (k > l->n - *slot)
            k = l->n - *slot; /* keep the new key's place in l */
        memmove(b->score + k, b->score, b->n * sizeof(double));
        memmove(FR_ZSET_LREF(b) + k, FR_ZSET_LREF(b), b->n * sizeof(fr_zset_ref));
        fr_zset_move_entries(s, b, 0, l, l->n - k, k);
        b->n += k;
        l->n -= k;
        p->cnt[i] -= k;
        p->cnt[i + 1] += k;
        fr_zset_set_sep(s, p, i + 1, b->score[0], FR_ZSET_LREF(b)[0]);
        return l; /* *slot <= l->n: the key goes into l */
    }
    if (a && a->cap - a->n >= FR_ZSET_SPILL_MIN && *slot > 0 && (*slot > 1 || a->cap - a->n >= 2)) { /* the first k entries of l go to the end of a */
        k = (a->cap - a->n + 1) / 2;
        if (k > *slot)
            k = *slot; /* the key stays in l, not at its front */
        if (k == *slot && k > 1)
            k--;
        fr_zset_move_entries(s, a, a->n, l, 0, k);
        a->n += k;
        l->n -= k;
        memmove(l->score, l->score + k, l->n * sizeof(double));
        memmove(FR_ZSET_LREF(l), FR_ZSET_LREF(l) + k, l->n * sizeof(fr_zset_ref));
        p->cnt[i - 1] += k;
        p->cnt[i] -= k;
        fr_zset_set_sep(s, p, i, l->score[0], FR_ZSET_LREF(l)[0]);
        *slot -= k;
        if (*slot == 0) { /* k was 1 and the key was at slot 1: it ends a */
            *slot = a->n;
            return a;
        }
        return l;
    }
    return NULL;
}

/* Puts record r with score at slot j of leaf l (which has room) and
 * points r at l; no count changes. */
static inline void fr_zset_leaf_insert_at(fr_zset *s, fr_zset_leaf *l, uint32_t j, double score, fr_zset_ref r)
{
    fr_zset_ref *refs = FR_ZSET_LREF(l);
    memmove(l->score + j + 1, l->score + j, (l->n - j) * sizeof(double));
    memmove(refs + j + 1, refs + j, (l->n - j) * sizeof(fr_zset_ref));
    l->score[j] = score;
    refs[j] = r;
    l->n++;
    FR_ZSET_N(s, r)->leaf = l->id;
}

/* Takes the entry at slot j out of leaf l; no count changes. */
static inline void fr_zset_leaf_remove_at(fr_zset_leaf *l, uint32_t j)
{
    fr_zset_ref *refs = FR_ZSET_LREF(l);
    memmove(l->score + j, l->score + j + 1, (l->n - j - 1) * sizeof(double));
    memmove(refs + j, refs + j + 1, (l->n - j - 1) * sizeof(fr_zset_ref));
    l->n--;
}

/* Puts record r (its score set, not in the tree) at its place; returns its
 * 1-based rank.  fr_zset_reserve_insert must have succeeded. */
static uint64_t fr_zset_link(fr_zset *s, fr_zset_ref r)
{
    fr_zset_inner *path[FR_ZSET_MAXH];
    uint32_t idx[FR_ZSET_MAXH], slot, k;
    uint64_t below;
    size_t len;
    const fr_zset_node *xn = FR_ZSET_N(s, r);
    const char *m = fr_zset_node_member(xn, &len);
    fr_zset_key key = fr_zset_key_of(xn->score, m, len);
    fr_zset_leaf *l = fr_zset_descend_key(s, &key, path, idx, &below, &slot);
    uint64_t rank = below + slot + 1;
    if (l->n == l->cap) {
        fr_zset_leaf *to = fr_zset_spill(s, l, &slot);
        if (!to) {
            fr_zset_leaf *rl = fr_zset_split_leaf(s, l);
            if (slot > l->n) {
                slot -= l->n;
                l = rl;
            }
        } else {
            l = to;
        }
        /* the path changed: count the new member on the way up */
        {
            void *c = l;
            fr_zset_inner *p = l->parent;
            while (p) {
                p->cnt[fr_zset_child_index(p, c)]++;
                c = p;
                p = p->parent;
            }
        }
    } else {
        for (k = 0; k < (uint32_t)s->height; k++)
            path[k]->cnt[idx[k]]++;
    }
    fr_zset_leaf_insert_at(s, l, slot, key.score, r);
    s->length++;
    s->version++;
    fr_zset_set_hint(s, r, rank);
    return rank;
}

/* ======================================================================
 * Deletion: merges and borrows
 * ====================================================================== */

static inline void fr_zset_set_parent(void *child, int is_leaf, fr_zset_inner *p)
{
    if (is_leaf)
        ((fr_zset_leaf *)child)->parent = p;
    else
        ((fr_zset_inner *)child)->parent = p;
}

/* Removes child i from x's arrays (its members are gone or moved). */
static void fr_zset_drop_child(fr_zset_inner *x, uint32_t i)
{
    uint32_t m = x->n - i - 1;
    memmove(x->cnt + i, x->cnt + i + 1, m * sizeof x->cnt[0]);
    memmove(x->sep + i, x->sep + i + 1, m * sizeof x->sep[0]);
    memmove(x->pfx + i, x->pfx + i + 1, m * sizeof x->pfx[0]);
    memmove(x->sref + i, x->sref + i + 1, m * sizeof x->sref[0]);
    memmove(x->child + i, x->child + i + 1, m * sizeof x->child[0]);
    x->n--;
}

/* Copies k children of src from si to dst at di (dst has room, its
 * children from di on already moved away), re-parenting them. */
static void fr_zset_copy_children(fr_zset_inner *dst, uint32_t di, const fr_zset_inner *src, uint32_t si,
                                  uint32_t k, int leafkids)
{
    uint32_t j;
    memcpy(dst->cnt + di, src->cnt + si, k * sizeof dst->cnt[0]);
    memcpy(dst->sep + di, src->sep + si, k * sizeof dst->sep[0]);
    memcpy(dst->pfx + di, src->pfx + si, k * sizeof dst->pfx[0]);
    memcpy(dst->sref + di, src->sref + si, k * sizeof dst->sref[0]);
    memcpy(dst->child + di, src->child + si, k * sizeof dst->child[0]);
    for (j = 0; j < k; j++)
        fr_zset_set_parent(dst->child[di + j], leafkids, dst);
}

/* Opens (k > 0) a gap of k children at the front of x. */
static void fr_zset_shift_children(fr_zset_inner *x, uint32_t k)
{
    memmove(x->cnt + k, x->cnt, x->n * sizeof x->cnt[0]);
    memmove(x->sep + k, x->sep, x->n * sizeof x->sep[0]);
    memmove(x->pfx + k, x->pfx, x->n * sizeof x->pfx[0]);
    memmove(x->sref + k, x->sref, x->n * sizeof x->sref[0]);
    memmove(x->child + k, x->child, x->n * sizeof x->child[0]);
}

/* Copies k entries of leaf a from ai into leaf b at bi (room made), and
 * points their records at b. */
static void fr_zset_move_entries(fr_zset *s, fr_zset_leaf *b, uint32_t bi, const fr_zset_leaf *a,
                                 uint32_t ai, uint32_t k)
{
    fr_zset_ref *br = FR_ZSET_LREF(b);
    const fr_zset_ref *ar = FR_ZSET_LREF(a);
    uint32_t j;
    memcpy(b->score + bi, a->score + ai, k * sizeof(double));
    memcpy(br + bi, ar + ai, k * sizeof(fr_zset_ref));
    for (j = 0; j < k; j++)
        FR_ZSET_N(s, br[bi + j])->leaf = b->id;
}

static void fr_zset_unlink_leaf(fr_zset *s, fr_zset_leaf *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        s->head = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        s->tail = l->prev;
}

/* Inner node x (h inner levels, h >= 1) lost a child: collapses a root of
 * one child; below the minimum fill, merges x with a sibling or borrows
 * from it; then looks at the parent. */
static void fr_zset_rebalance_inner(fr_zset *s, fr_zset_inner *x, int h)
{
    fr_zset_inner *p = x->parent, *a, *b;
    uint32_t i, k, j;
    uint64_t mc = 0;
    int leafkids = h == 1;
    if (!p) {
        if (x->n == 1) {
            void *c = x->child[0];
            fr_zset_set_parent(c, leafkids, NULL);
            s->root = c;
            s->height--;
            fr_zset_inner_release(s, x);
        }
        return;
    }
    if (x->n >= FR_ZSET_IMIN)
        return;
    i = fr_zset_child_index(p, x);
    if (i > 0) {
        a = (fr_zset_inner *)p->child[i - 1];
        x->sep[0] = p->sep[i]; /* x's smallest key, named in p */
        x->pfx[0] = p->pfx[i];
        x->sref[0] = p->sref[i];
        if (a->n + x->n <= FR_ZSET_INNER_CAP) {
            fr_zset_copy_children(a, a->n, x, 0, x->n, leafkids);
            a->n += x->n;
            p->cnt[i - 1] += p->cnt[i];
            fr_zset_drop_child(p, i);
            fr_zset_inner_release(s, x);
        } else {
            k = (a->n - x->n) / 2;
            fr_zset_shift_children(x, k);
            fr_zset_copy_children(x, 0, a, a->n - k, k, leafkids);
            a->n -= k;
            x->n += k;
            for (j = 0; j < k; j++)
                mc += x->cnt[j];
            p->cnt[i - 1] -= mc;
            p->cnt[i] += mc;
            p->sep[i] = x->sep[0];
            p->pfx[i] = x->pfx[0];
            p->sref[i] = x->sref[0];
        }
    } else {
        b = (fr_zset_inner *)p->child[1];
        b->sep[0] = p->sep[1];
        b->pfx[0] = p->pfx[1];
        b->sref[0] = p->sref[1];
        if (x->n + b->n <= FR_ZSET_INNER_CAP) {
            fr_zset_copy_children(x, x->n, b, 0, b->n, leafkids);
            x->n += b->n;
            p->cnt[0] += p->cnt[1];
            fr_zset_drop_child(p, 1);
            fr_zset_inner_release(s, b);
        } else {
            k = (b->n - x->n) / 2;
            fr_zset_copy_children(x, x->n, b, 0, k, leafkids);
            for (j = 0; j < k; j++)
                mc += b->cnt[j];
            x->n += k;
            b->n -= k;
            memmove(b->cnt, b->cnt + k, b->n * sizeof b->cnt[0]);
            memmove(b->sep, b->sep + k, b->n * sizeof b->sep[0]);
            memmove(b->pfx, b->pfx + k, b->n * sizeof b->pfx[0]);
            memmove(b->sref, b->sref + k, b->n * sizeof b->sref[0]);
            memmove(b->child, b->child + k, b->n * sizeof b->child[0]);
            p->cnt[0] += mc;
            p->cnt[1] -= mc;
            p->sep[1] = b->sep[0];
            p->pfx[1] = b->pfx[0];
            p->sref[1] = b->sref[0];
        }
    }
    fr_zset_rebalance_inner(s, p, h + 1);
}

/* Leaf l (not the root) lost an entry: below the minimum fill, merges it
 * with a sibling or borrows from it. */
static void fr_zset_rebalance_leaf(fr_zset *s, fr_zset_leaf *l)
{
    fr_zset_inner *p = l->parent;
    fr_zset_leaf *a, *b;
    uint32_t i, k;
    if (!p || l->n >= FR_ZSET_LMIN)
        return;
    i = fr_zset_child_index(p, l);
    if (i > 0) {
        a = (fr_zset_leaf *)p->child[i - 1];
        if (a->n + l->n <= FR_ZSET_LEAF_CAP) {
            fr_zset_move_entries(s, a, a->n, l, 0, l->n);
            a->n += l->n;
            p->cnt[i - 1] += p->cnt[i];
            fr_zset_unlink_leaf(s, l);
            fr_zset_drop_child(p, i);
            fr_zset_leaf_release(s, l);
        } else {
            k = (a->n - l->n) / 2;
            memmove(l->score + k, l->score, l->n * sizeof(double));
            memmove(FR_ZSET_LREF(l) + k, FR_ZSET_LREF(l), l->n * sizeof(fr_zset_ref));
            fr_zset_move_entries(s, l, 0, a, a->n - k, k);
            a->n -= k;
            l->n += k;
            p->cnt[i - 1] -= k;
            p->cnt[i] += k;
            fr_zset_set_sep(s, p, i, l->score[0], FR_ZSET_LREF(l)[0]);
        }
    } else {
        int was_empty = l->n == 0;
        b = (fr_zset_leaf *)p->child[1];
        if (l->n + b->n <= FR_ZSET_LEAF_CAP) {
            fr_zset_move_entries(s, l, l->n, b, 0, b->n);
            l->n += b->n;
            p->cnt[0] += p->cnt[1];
            fr_zset_unlink_leaf(s, b);
            fr_zset_drop_child(p, 1);
            fr_zset_leaf_release(s, b);
        } else {
            k = (b->n - l->n) / 2;
            fr_zset_move_entries(s, l, l->n, b, 0, k);
            b->n -= k;
            l->n += k;
            memmove(b->score, b->score + k, b->n * sizeof(double));
            memmove(FR_ZSET_LREF(b), FR_ZSET_LREF(b) + k, b->n * sizeof(fr_zset_ref));
            p->cnt[0] += k;
            p->cnt[1] -= k;
            fr_zset_set_sep(s, p, 1, b->score[0], FR_ZSET_LREF(b)[0]);
        }
        if (was_empty)
            fr_zset_fix_min(s, l, 0);
    }
    fr_zset_rebalance_inner(s, p, 1);
}

/* Takes record r out of the tree (it stays allocated and indexed). */
static void fr_zset_unlink(fr_zset *s, fr_zset_ref r)
{
    fr_zset_leaf *l = fr_zset_leaf_of(s, r);
    uint32_t j = fr_zset_slot_of(l, r);
    void *c = l;
    fr_zset_inner *p = l->parent;
    fr_zset_leaf_remove_at(l, j);
    while (p) {
        p->cnt[fr_zset_child_index(p, c)]--;
        c = p;
        p = p->parent;
    }
    if (j == 0 && l->n > 0)
        fr_zset_fix_min(s, l, 0);
    s->length--;
    s->version++;
    fr_zset_rebalance_leaf(s, l);
}

/* ======================================================================
 * Point operations
 * ====================================================================== */

/* Record holding member m, or FR_ZSET_NIL.  O(1) expected. */
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

/* Inserts member m (absent; hash h) with score.  The new ref, or
 * FR_ZSET_NIL when out of memory (nothing changed). */
static fr_zset_ref fr_zset_insert(fr_zset *s, const char *m, size_t len, double score, uint64_t h)
{
    fr_zset_ref r;
    if (fr_zset_hash_reserve(s, s->hcount + 1) || fr_zset_reserve_insert(s))
        return FR_ZSET_NIL;
    r = fr_zset_node_alloc(s, m, len);
    if (!r)
        return FR_ZSET_NIL;
    FR_ZSET_N(s, r)->score = score;
    fr_zset_link(s, r);
    fr_zset_hash_put(s, r, h);
    return r;
}

/* A score change whose new key belongs in the leaf next to r's (r at slot
 * j of l, c entries of l other than r below the new key): the entry moves
 * over directly, when neither leaf needs a split or a merge for it.  The
 * counts change only below the two leaves' lowest common ancestor (most
 * often their parent) and nothing descends from the root.  Of 200,000
 * moves by 1..100 at 1M members (integer scores in [0, 1e6)), 47% go this
 * way, 27% stay in their leaf and 26% take the general path; at 10M
 * members (ten a score) 5%.  1 when done (ranks as
 * fr_zset_set_score_ranked's), 0 when the general path must do it
 * (nothing changed). */
static int fr_zset_move_to_neighbour(fr_zset *s, fr_zset_leaf *l, uint32_t j, uint32_t c,
                                     const fr_zset_key *key, uint64_t ranks[2])
{
    fr_zset_leaf *nb;
    fr_zset_ref r = FR_ZSET_LREF(l)[j];
    fr_zset_inner *pa, *pb;
    void *a, *b;
    uint32_t cn, i;
    uint64_t old = 0;
    if (l->n <= FR_ZSET_LMIN) /* l would need a merge or a borrow */
        return 0;
    if (c == l->n - 1 && l->next) { /* every other entry of l is below the key */
        nb = l->next;         /* and nb's first: the key is in nb if below the next separator */
        pb = nb->parent;
        i = fr_zset_child_index(pb, nb);
        if (i + 1 == pb->n || fr_zset_cmp_sep(s, pb, i + 1, key) < 0)
            return 0; /* maybe further right: the general path */
    } else if (c == 0 && l->prev) { /* every entry of l is above the key, and prev's last */
        nb = l->prev;                 /* so it is in nb if above nb's separator */
        pb = nb->parent;
        i = fr_zset_child_index(pb, nb);
        if (i == 0 || fr_zset_cmp_sep(s, pb, i, key) > 0)
            return 0;
    } else {
        return 0;
    }
    if (nb->n == nb->cap)
        return 0;
    cn = fr_zset_leaf_lower(s, nb, key);
    if (ranks)
        old = fr_zset_hint_holds(s, r) ? s->hint_rank : fr_zset_rank_at(l, j, 0);
    fr_zset_leaf_remove_at(l, j);
    fr_zset_leaf_insert_at(s, nb, cn, key->score, r);
    FR_ZSET_N(s, r)->score = key->score;
    a = l;
    b = nb;
    pa = l->parent;
    pb = nb->parent;
    while (pa != pb) { /* leaves are at one depth: the paths meet */
        pa->cnt[fr_zset_child_index(pa, a)]--;
        pb->cnt[fr_zset_child_index(pb, b)]++;
        a = pa;
        b = pb;
        pa = pa->parent;
        pb = pb->parent;
    }
    pa->cnt[fr_zset_child_index(pa, a)]--;
    pa->cnt[fr_zset_child_index(pa, b)]++;
    if (j == 0)
        fr_zset_fix_min(s, l, 0);
    if (cn == 0)
        fr_zset_fix_min(s, nb, 0);
    s->version++; /* the rank hint goes: a new one would cost a walk up */
    if (ranks) {
        ranks[0] = old;
        ranks[1] = fr_zset_rank_at(nb, cn, 0);
        fr_zset_set_hint(s, r, ranks[1]);
    }
    return 1;
}

/* Gives member record r a new score (not NaN).  When the new key still
 * belongs in r's leaf (between the last key of the leaf before and the
 * first of the leaf after) the entry moves inside the leaf: no count
 * changes.  When it belongs in the leaf before or after, it moves there
 * (fr_zset_move_to_neighbour).  Otherwise it is taken out and put back
 * (two O(log n) walks).
 * With ranks (else NULL), also r's 1-based rank before (ranks[0]) and after
 * (ranks[1]).  0, or -1 when out of memory (nothing changed). */
FR_ZSET_BODY int fr_zset_set_score_ranked_body(fr_zset *s, fr_zset_ref r, double score, uint64_t ranks[2], int isa)
{
    fr_zset_leaf *l = fr_zset_leaf_of(s, r);
    uint32_t j, c;
    size_t len;
    const char *m;
    fr_zset_key key;
    fr_zset_ref *refs;
    uint64_t old = 0;
    fr_zset_prefetch_leaf(l, 1);
    if (l->next) /* the bound checks below read the neighbours' first lines */
        fr_zset_prefetch_addr(l->next);
    if (l->prev)
        fr_zset_prefetch_addr(l->prev);
    if (l->parent) { /* a move out of the leaf reads where l and its neighbours sit in it (the */
        fr_zset_prefetch_keys(l->parent, 1); /* neighbour check, the unlink's counts, the descent) */
        fr_zset_prefetch_counted(l->parent);
    }
    refs = FR_ZSET_LREF(l);
    j = fr_zset_slot_of(l, r);
    m = fr_zset_member(s, r, &len);
    key = fr_zset_key_of(score, m, len);
    if (l->parent) /* where the key goes, if under the same parent: fetched while l is looked at */
        fr_zset_prefetch_leaf((const fr_zset_leaf *)l->parent->child[fr_zset_pick_key(s, l->parent, &key)], 1);
    c = fr_zset_leaf_lower(s, l, &key);
    if (c > j)
        c--; /* r's own old entry is below the new key */
    if ((c > 0 || !l->prev || fr_zset_cmp_entry(s, l->prev, l->prev->n - 1, &key) < 0) &&
        (c < l->n - 1 || !l->next || fr_zset_cmp_entry(s, l->next, 0, &key) > 0)) {
        int held = s->hint_version == s->version, mine = held && s->hint_ref == r;
        if (ranks || mine) /* a hint on another member is not worth a walk up */
            old = mine ? s->hint_rank : fr_zset_rank_at(l, j, isa == 2);
        if (c < j) {
            memmove(l->score + c + 1, l->score + c, (j - c) * sizeof(double));
            memmove(refs + c + 1, refs + c, (j - c) * sizeof(fr_zset_ref));
        } else if (c > j) {
            memmove(l->score + j, l->score + j + 1, (c - j) * sizeof(double));
            memmove(refs + j, refs + j + 1, (c - j) * sizeof(fr_zset_ref));
        }
        l->score[c] = score;
        refs[c] = r;
        FR_ZSET_N(s, r)->score = score;
        if ((c == 0 || j == 0) && l->parent)
            fr_zset_fix_min(s, l, 0);
        s->version++;
        if (c == j) {
            if (held)
                s->hint_version = s->version; /* no rank changed */
        } else if (ranks || mine) {
            fr_zset_set_hint(s, r, old + c - j);
        }
        if (ranks) {
            ranks[0] = old;
            ranks[1] = old + c - j;
        }
        return 0;
    }
    if (fr_zset_move_to_neighbour(s, l, j, c, &key, ranks))
        return 0;
    if (fr_zset_stash_fill(s))
        return -1;
    if (ranks)
        old = fr_zset_rank(s, r);
    fr_zset_unlink(s, r);
    FR_ZSET_N(s, r)->score = score;
    c = 0;
    {
        uint64_t nr = fr_zset_link(s, r);
        if (ranks) {
            ranks[0] = old;
            ranks[1] = nr;
        }
    }
    return 0;
}

FR_ZSET_DISPATCHED(, int, fr_zset_set_score_ranked, (fr_zset *s, fr_zset_ref r, double score, uint64_t ranks[2]),
                   (s, r, score, ranks))

/* Requests the leaf lines a score change of record r reads first (its
 * header, scores and refs), for a caller with other work to do before the
 * change: a hint, that changes nothing. */
void fr_zset_prefetch_move(const fr_zset *s, fr_zset_ref r)
{
    if (r)
        fr_zset_prefetch_leaf(fr_zset_leaf_of(s, r), 1);
}

/* fr_zset_set_score_ranked without the ranks. */
int fr_zset_set_score(fr_zset *s, fr_zset_ref r, double score)
{
    return fr_zset_set_score_ranked(s, r, score, NULL);
}

/* ZADD of one pair with FR_ZSET_NX/XX/GT/LT flags (a valid combination,
 * score not NaN).  Returns 0 nothing done, 1 added, 2 score changed, -1 no
 * memory. */
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
        return fr_zset_set_score(s, r, score) ? -1 : 2;
    }
    if (flags & FR_ZSET_XX)
        return 0;
    return fr_zset_insert(s, m, len, score, h) ? 1 : -1;
}

/* ZINCRBY of member m whose hash is h: adds delta to m's score (a missing
 * member starts at 0).  0 done (*newscore set; ref/oldscore/was_new, each
 * optional, describe the change for an undo), -1 the result is NaN
 * (nothing changed), -2 no memory (nothing changed). */
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
        if (ns != cur && fr_zset_set_score(s, r, ns))
            return -2;
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

int fr_zset_incr(fr_zset *s, const char *m, size_t len, double delta, double *newscore,
             fr_zset_ref *ref, double *oldscore, int *was_new)
{
    return fr_zset_incr_hashed(s, m, len, fr_zset_hash(m, len, s->seed), delta, newscore, ref, oldscore,
                           was_new);
}

/* Removes member record r: tree, index, storage. */
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
 * Batch lookups
 * ====================================================================== */

/* h[j] = the hash of member j and out[j] = its record or FR_ZSET_NIL, for
 * j < g: hashes all and prefetches their home slots, then the first
 * tag-matching record of each, then probes. */
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

void fr_zset_find_batch(const fr_zset *s, const char *const *m, const size_t *len, size_t g,
                    fr_zset_ref *out)
{
    uint64_t h[FR_ZSET_BATCH];
    fr_zset_hash_batch(s, m, len, g, h, out);
}

/* out[j] = fr_zset_rank(s, refs[j]), or 0 where refs[j] is FR_ZSET_NIL:
 * the records, then their leaves are prefetched for all before any rank
 * is summed, so the misses overlap. */
void fr_zset_rank_batch(const fr_zset *s, const fr_zset_ref *refs, size_t g, uint64_t *out)
{
    const fr_zset_leaf *l[FR_ZSET_BATCH];
    size_t j;
    assert(g <= FR_ZSET_BATCH);
    for (j = 0; j < g; j++)
        fr_zset_prefetch(s, refs[j]);
    for (j = 0; j < g; j++) {
        if (!refs[j])
            continue;
        l[j] = fr_zset_leaf_of(s, refs[j]);
        fr_zset_prefetch_addr(FR_ZSET_LREF(l[j]));
        fr_zset_prefetch_addr((const char *)FR_ZSET_LREF(l[j]) + 64);
    }
    for (j = 0; j < g; j++)
        out[j] = refs[j] ? (fr_zset_hint_holds(s, refs[j]) ? s->hint_rank
                                                            : fr_zset_rank_at(l[j], fr_zset_slot_of(l[j], refs[j]), 0))
                         : 0;
}

/* How many of a[from..cap) are below x (at most x when inclusive), only
 * the first n counting: every slot is compared and the rest masked out (see
 * fr_zset_descend_score). */
static inline uint32_t fr_zset_count_masked(const double *a, uint32_t from, uint32_t cap, uint32_t n,
                                            double x, int inclusive)
{
    uint32_t i, c = 0;
    if (inclusive) {
        for (i = from; i < cap; i++)
            c += (a[i] <= x) & (i < n);
    } else {
        for (i = from; i < cap; i++)
            c += (a[i] < x) & (i < n);
    }
    return c;
}

/* Descends to where score x belongs: the leaf, *slot the number of its
 * entries scoring below x (at most x when inclusive); returns the number
 * of members before that leaf in *below. */
FR_ZSET_BODY const fr_zset_leaf *fr_zset_descend_score_body(const fr_zset *s, double x, int inclusive,
                                                           uint64_t *below, uint32_t *slot, int isa)
{
    const void *node = s->root;
    uint64_t t = 0;
    uint32_t c;
    int h;
    const fr_zset_leaf *l;
    (void)isa;
    /* Every slot of a node is compared, those past its length masked out
     * (values left there are read, never counted; they are scores a node
     * once held or the zeroes of a fresh node, never NaN): loops of fixed
     * length have no exit to mispredict, which lets the next call's loads
     * start early; a count 16% faster at 1M members than loops up to the
     * length (bench/results/zset-bptree.md). */
    for (h = s->height; h > 0; h--) {
        const fr_zset_inner *y = (const fr_zset_inner *)node;
        uint32_t i;
        c = fr_zset_count_masked(y->sep, 1, FR_ZSET_INNER_CAP, y->n, x, inclusive);
        node = y->child[c];
        fr_zset_prefetch_keys(node, h - 1);
        if (h > 1)
            fr_zset_prefetch_counted((const fr_zset_inner *)node);
        for (i = 0; i < FR_ZSET_INNER_CAP; i++)
            t += i < c ? y->cnt[i] : 0;
    }
    l = (const fr_zset_leaf *)node;
    c = l->cap == FR_ZSET_LEAF_CAP /* a constant length unrolls; a small root leaf is shorter */
            ? fr_zset_count_masked(l->score, 0, FR_ZSET_LEAF_CAP, l->n, x, inclusive)
            : fr_zset_count_masked(l->score, 0, l->cap, l->n, x, inclusive);
    *below = t;
    *slot = c;
    return l;
}

FR_ZSET_DISPATCHED(static, const fr_zset_leaf *, fr_zset_descend_score,
                   (const fr_zset *s, double x, int inclusive, uint64_t *below, uint32_t *slot),
                   (s, x, inclusive, below, slot))

/* How many members score below x (at most x when inclusive). */
static uint64_t fr_zset_count_below(const fr_zset *s, double x, int inclusive)
{
    uint64_t t;
    uint32_t c;
    if (!s->length || x != x)
        return 0;
    fr_zset_descend_score(s, x, inclusive, &t, &c);
    return t + c;
}

/* out[j] = how many members score below x[j] (at most x[j] when
 * inclusive), for j < g: ZCOUNT's half-open ranges for a batch of bounds.
 * A NaN bound counts 0.  One descent after another: a descent by score
 * compares every slot of a node (no exit that depends on the data), so the
 * processor runs the next descent's loads while this one's are in flight;
 * the descents taken a level at a time together were twice as slow
 * (bench/zset_floor.c's "16 a batch" row, then "16 in step": 193 against
 * 115 ns at 1M). */
void fr_zset_count_below_batch(const fr_zset *s, const double *x, int inclusive, size_t g, uint64_t *out)
{
    size_t j;
    assert(g <= FR_ZSET_BATCH);
    for (j = 0; j < g; j++)
        out[j] = fr_zset_count_below(s, x[j], inclusive);
}

/* fr_zset_incr of pairs j < g in order, pair j writing newscore[j], ref[j],
 * oldscore[j] and was_new[j]; the members are found (and their records
 * prefetched) together first.  Returns the number of pairs done; when
 * fewer than g, *rc holds the failing pair's fr_zset_incr code and that
 * pair changed nothing. */
size_t fr_zset_incr_batch(fr_zset *s, const char *const *m, const size_t *len, const double *delta,
                      size_t g, double *newscore, fr_zset_ref *ref, double *oldscore, int *was_new,
                      int *rc)
{
    uint64_t h[FR_ZSET_BATCH];
    fr_zset_ref r[FR_ZSET_BATCH];
    size_t j;
    fr_zset_hash_batch(s, m, len, g, h, r);
    for (j = 0; j < g; j++)
        if (r[j])
            fr_zset_prefetch_addr(fr_zset_leaf_of(s, r[j]));
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

/* The record at 0-based position t (t < length) given as (leaf, slot)
 * where slot may equal the leaf's n (then it is the next leaf's first). */
static inline fr_zset_ref fr_zset_entry_at(const fr_zset_leaf *l, uint32_t slot)
{
    if (slot < l->n)
        return FR_ZSET_LREF(l)[slot];
    return l->next ? FR_ZSET_LREF(l->next)[0] : FR_ZSET_NIL;
}

/* The record before position slot of leaf l, or FR_ZSET_NIL. */
static inline fr_zset_ref fr_zset_entry_before(const fr_zset_leaf *l, uint32_t slot)
{
    if (slot > 0)
        return FR_ZSET_LREF(l)[slot - 1];
    return l->prev ? FR_ZSET_LREF(l->prev)[l->prev->n - 1] : FR_ZSET_NIL;
}

/* First record with score in r and its 1-based rank (optional), or NIL. */
fr_zset_ref fr_zset_first_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank)
{
    const fr_zset_leaf *l;
    uint64_t t;
    uint32_t c;
    fr_zset_ref x;
    if (fr_zset_range_empty(r) || !s->length)
        return FR_ZSET_NIL;
    l = fr_zset_descend_score(s, r->min, r->minex, &t, &c);
    x = fr_zset_entry_at(l, c);
    if (!x || !fr_zset_lte_max(c < l->n ? l->score[c] : l->next->score[0], r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t + c + 1;
    return x;
}

/* Last record with score in r and its 1-based rank (optional), or NIL. */
fr_zset_ref fr_zset_last_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank)
{
    const fr_zset_leaf *l;
    uint64_t t;
    uint32_t c;
    fr_zset_ref x;
    if (fr_zset_range_empty(r) || !s->length)
        return FR_ZSET_NIL;
    l = fr_zset_descend_score(s, r->max, !r->maxex, &t, &c);
    x = fr_zset_entry_before(l, c);
    if (!x || !fr_zset_gte_min(c > 0 ? l->score[c - 1] : l->prev->score[l->prev->n - 1], r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t + c;
    return x;
}

/* True when every member has the same score (or there are fewer than two):
 * then the order is member order and lex searches may descend. */
int fr_zset_one_score(const fr_zset *s)
{
    return s->length < 2 || s->head->score[0] == s->tail->score[s->tail->n - 1];
}

int fr_zset_lex_ref_gte_min(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r)
{
    return fr_zset_lex_gte_min(FR_ZSET_N(s, x), r);
}

int fr_zset_lex_ref_lte_max(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r)
{
    return fr_zset_lex_lte_max(FR_ZSET_N(s, x), r);
}

/* LEX SEARCHES OVER MIXED SCORES.  Redis calls lex ranges over members of
 * different scores unspecified, but what it does is a fixed walk: from the
 * first member forward "while the member is below min" (first) or "while
 * it is <= max" (last); the range commands then walk on until the first
 * member out of range.  With one score the order is member order and a
 * descent finds the same place; with more than one these functions walk
 * the leaves from the start (O(n)), as Redis's listpack encoding does. */

static int fr_zset_lex_possible(const fr_zset *s, const fr_zset_lexrange *r)
{
    return !fr_zset_lex_empty(r) && s->length && fr_zset_lex_gte_min(FR_ZSET_N(s, fr_zset_last(s)), r) &&
           fr_zset_lex_lte_max(FR_ZSET_N(s, fr_zset_first(s)), r);
}

/* Number of members from the start, in order, while the member compares
 * (memcmp order) below bound b by less than thr (0: below b; 1: below or
 * equal): by a descent with one score, else by a walk that stops at the
 * first member failing the test. */
static uint64_t fr_zset_lex_prefix(const fr_zset *s, const char *b, size_t blen, int thr)
{
    fr_zset_lexkey k = fr_zset_lexkey_of(b, blen);
    if (fr_zset_one_score(s)) {
        fr_zset_key key = fr_zset_key_of(s->head->score[0], b, blen);
        uint64_t t;
        uint32_t c;
        const fr_zset_leaf *l = fr_zset_descend_key(s, &key, NULL, NULL, &t, &c);
        fr_zset_ref x;
        if (thr && (x = fr_zset_entry_at(l, c)) != FR_ZSET_NIL &&
            fr_zset_cmp_lexkey(FR_ZSET_N(s, x), &k) == 0)
            c++;
        return t + c;
    } else {
        const fr_zset_leaf *l;
        uint64_t t = 0;
        for (l = s->head; l; l = l->next) {
            const fr_zset_ref *refs = FR_ZSET_LREF(l);
            uint32_t j;
            for (j = 0; j < l->n; j++) {
                if (fr_zset_cmp_lexkey(FR_ZSET_N(s, refs[j]), &k) >= thr)
                    return t;
                t++;
            }
        }
        return t;
    }
}

/* Members before the first one >= min (> min when exclusive). */
static uint64_t fr_zset_lex_before(const fr_zset *s, const fr_zset_lexrange *r)
{
    if (r->mininf || fr_zset_lex_gte_min(FR_ZSET_N(s, fr_zset_first(s)), r))
        return 0;
    return fr_zset_lex_prefix(s, r->min, r->minlen, r->minex);
}

/* First record with member in r and its 1-based rank (optional), or NIL. */
fr_zset_ref fr_zset_first_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank)
{
    uint64_t t;
    fr_zset_ref x;
    if (!fr_zset_lex_possible(s, r))
        return FR_ZSET_NIL;
    t = fr_zset_lex_before(s, r);
    x = fr_zset_at_rank(s, t + 1);
    if (!x || !fr_zset_lex_lte_max(FR_ZSET_N(s, x), r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t + 1;
    return x;
}

/* Last record with member in r and its 1-based rank (optional), or NIL. */
fr_zset_ref fr_zset_last_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank)
{
    uint64_t t;
    fr_zset_ref x;
    int one;
    if (!fr_zset_lex_possible(s, r))
        return FR_ZSET_NIL;
    one = fr_zset_one_score(s);
    if (r->maxinf || (one && fr_zset_lex_lte_max(FR_ZSET_N(s, fr_zset_last(s)), r))) {
        x = fr_zset_last(s);
        if (!fr_zset_lex_gte_min(FR_ZSET_N(s, x), r))
            return FR_ZSET_NIL;
        if (rank)
            *rank = s->length;
        return x;
    }
    t = fr_zset_lex_prefix(s, r->max, r->maxlen, 1 - r->maxex);
    if (t == 0)
        return FR_ZSET_NIL;
    x = fr_zset_at_rank(s, t);
    if (!fr_zset_lex_gte_min(FR_ZSET_N(s, x), r))
        return FR_ZSET_NIL;
    if (rank)
        *rank = t;
    return x;
}

/* ZLEXCOUNT: the members from the first in r to the last in r (over
 * members of different scores, where no last one is found, to the end). */
uint64_t fr_zset_count_in_lex(const fr_zset *s, const fr_zset_lexrange *r)
{
    uint64_t r1, r2;
    if (fr_zset_first_in_lex(s, r, &r1) == FR_ZSET_NIL)
        return 0;
    if (fr_zset_last_in_lex(s, r, &r2) == FR_ZSET_NIL)
        return s->length - r1 + 1;
    return r2 < r1 ? 0 : r2 - r1 + 1;
}

/* ZREMRANGEBYRANK with 1-based inclusive ranks; the number removed. */
uint64_t fr_zset_delete_range_by_rank(fr_zset *s, uint64_t start, uint64_t end)
{
    uint64_t removed = 0;
    if (start < 1)
        start = 1;
    if (end > s->length)
        end = s->length;
    if (start > end)
        return 0;
    while (start + removed <= end) {
        fr_zset_delete_ref(s, fr_zset_at_rank(s, start));
        removed++;
    }
    return removed;
}

/* The members before range r's first and up to its last: [*a, *b) in
 * 0-based positions.  A bound that is an infinity it includes costs no
 * descent (-inf: none before; +inf: all up to the end), any other one. */
static void fr_zset_range_span(const fr_zset *s, const fr_zset_range *r, uint64_t *a, uint64_t *b)
{
    *a = r->min == -INFINITY && !r->minex ? 0 : fr_zset_count_below(s, r->min, r->minex);
    *b = r->max == INFINITY && !r->maxex ? s->length : fr_zset_count_below(s, r->max, !r->maxex);
}

/* ZCOUNT: the members with score in r. */
uint64_t fr_zset_count_in_range(const fr_zset *s, const fr_zset_range *r)
{
    uint64_t a, b;
    if (fr_zset_range_empty(r) || !s->length)
        return 0;
    fr_zset_range_span(s, r, &a, &b);
    return b > a ? b - a : 0;
}

/* ZREMRANGEBYSCORE; the number removed. */
uint64_t fr_zset_delete_range_by_score(fr_zset *s, const fr_zset_range *r)
{
    uint64_t a, b;
    if (fr_zset_range_empty(r) || !s->length)
        return 0;
    fr_zset_range_span(s, r, &a, &b);
    return b > a ? fr_zset_delete_range_by_rank(s, a + 1, b) : 0;
}

/* ZREMRANGEBYLEX: from the first member >= min (a walk over mixed scores,
 * see above) while members are <= max; the number removed. */
uint64_t fr_zset_delete_range_by_lex(fr_zset *s, const fr_zset_lexrange *r)
{
    uint64_t t, removed = 0;
    fr_zset_ref x;
    if (fr_zset_lex_empty(r) || !s->length)
        return 0;
    if (r->mininf)
        t = 0;
    else if (fr_zset_one_score(s))
        t = fr_zset_lex_prefix(s, r->min, r->minlen, r->minex);
    else { /* walk to the first member >= min */
        const fr_zset_leaf *l;
        t = 0;
        for (l = s->head; l; l = l->next) {
            uint32_t j;
            for (j = 0; j < l->n && !fr_zset_lex_gte_min(FR_ZSET_N(s, FR_ZSET_LREF(l)[j]), r); j++)
                t++;
            if (j < l->n)
                break;
        }
    }
    while ((x = fr_zset_at_rank(s, t + 1)) != FR_ZSET_NIL && fr_zset_lex_lte_max(FR_ZSET_N(s, x), r)) {
        fr_zset_delete_ref(s, x);
        removed++;
    }
    return removed;
}

/* ======================================================================
 * Bulk load: write records unindexed by the tree, then rebuild it
 * ====================================================================== */

#define FR_ZSET_UNLINKED UINT32_MAX /* leaf of a record a bulk load added */

/* Leaf capacity for a tree of n members held in one leaf. */
static uint32_t fr_zset_root_cap(uint64_t n)
{
    uint32_t c = FR_ZSET_SMALL_LEAF;
    while (c < n && c < FR_ZSET_LEAF_CAP)
        c *= 2;
    return c > FR_ZSET_LEAF_CAP ? FR_ZSET_LEAF_CAP : c;
}

/* Nodes (leaves, inner nodes) of a tree of n >= 1 members built packed. */
static void fr_zset_build_shape(uint64_t n, uint64_t *nl, uint64_t *ni)
{
    uint64_t k = (n + FR_ZSET_LEAF_CAP - 1) / FR_ZSET_LEAF_CAP;
    *nl = k ? k : 1;
    *ni = 0;
    k = *nl;
    while (k > 1) {
        k = (k + FR_ZSET_INNER_CAP - 1) / FR_ZSET_INNER_CAP;
        *ni += k;
    }
}

/* Frees the reserved nodes still in bulk_nodes: bulk_nleaf leaves, then
 * bulk_ninner inner nodes. */
static void fr_zset_bulk_nodes_free(fr_zset *s)
{
    uint64_t j;
    if (!s->bulk_nodes)
        return;
    for (j = 0; j < s->bulk_nleaf; j++)
        fr_zset_leaf_free(s, (fr_zset_leaf *)s->bulk_nodes[j]);
    for (; j < s->bulk_nleaf + s->bulk_ninner; j++)
        fr_zset_inner_free(s, (fr_zset_inner *)s->bulk_nodes[j]);
    free(s->bulk_nodes);
    s->bulk_nodes = NULL;
    s->bulk_nleaf = s->bulk_ninner = 0;
}

/* Bytes of the sort buffer of a bulk load of up to cap members. */
static inline size_t fr_zset_bulk_buf_size(uint64_t cap)
{
    return (size_t)(cap ? cap : 1) * 2 * sizeof(fr_zset_rec);
}

/* Starts a bulk load of up to `extra` new members: reserves the index, the
 * sort buffer and the nodes of the rebuilt tree, so that fr_zset_bulk_end
 * cannot fail.  0, or -1 when out of memory (nothing changed).  Until
 * fr_zset_bulk_end only fr_zset_bulk_put may be called. */
int fr_zset_bulk_begin(fr_zset *s, uint64_t extra)
{
    uint64_t n = s->length + extra, nl, ni, j, nodes, heap_leaves;
    if (fr_zset_hash_reserve(s, s->hcount + extra))
        return -1;
    if (n > SIZE_MAX / (2 * sizeof(fr_zset_rec)) || n > ((uint64_t)1 << 40))
        return -1;
    fr_zset_build_shape(n, &nl, &ni);
    s->bulk_nodes = (void **)calloc((size_t)(nl + ni), sizeof(void *));
    s->bulk_buf = fr_zset_big_alloc(fr_zset_bulk_buf_size(n), 0);
    if (!s->bulk_nodes || !s->bulk_buf)
        goto fail;
    /* pooled as for the tree to be when that is the bigger */
    nodes = nl + ni > fr_zset_tree_nodes(s) ? nl + ni : fr_zset_tree_nodes(s);
    for (j = 0; j < nl + ni; j++) {
        void *x = j < nl ? (void *)fr_zset_leaf_alloc(s, nl == 1 ? fr_zset_root_cap(n) : FR_ZSET_LEAF_CAP, nodes)
                         : (void *)fr_zset_inner_alloc(s, nodes);
        if (!x)
            goto fail;
        s->bulk_nodes[j] = x;
        s->bulk_nleaf = j < nl ? j + 1 : nl;
        s->bulk_ninner = j < nl ? 0 : j + 1 - nl;
    }
    for (j = 0, heap_leaves = 0; j < nl; j++) /* they take table ids; pooled ones are named by place */
        heap_leaves += !((fr_zset_leaf *)s->bulk_nodes[j])->pooled;
    if (fr_zset_ids_reserve(s, heap_leaves + 1))
        goto fail;
    s->bulk_cap = n;
    s->bulk_new = 0;
    s->bulk_moved = 0;
    s->bulk = 1;
    return 0;
fail:
    fr_zset_bulk_nodes_free(s);
    free(s->bulk_nodes); /* when no node was reserved */
    s->bulk_nodes = NULL;
    fr_zset_big_free(s->bulk_buf, fr_zset_bulk_buf_size(n));
    s->bulk_buf = NULL;
    return -1;
}

/* m's record inside a bulk load, added (score 0.0, *added incremented) when
 * absent; 0 when out of memory. */
static fr_zset_ref fr_zset_bulk_ref(fr_zset *s, const char *m, size_t len, uint64_t *added)
{
    uint64_t h = fr_zset_hash(m, len, s->seed);
    fr_zset_ref r = fr_zset_hash_find(s, m, len, h);
    assert(s->bulk);
    if (r)
        return r;
    if (s->hcount >= s->bulk_cap || fr_zset_hash_reserve(s, s->hcount + 1))
        return 0;
    r = fr_zset_node_alloc(s, m, len);
    if (!r)
        return 0;
    fr_zset_hash_put(s, r, h);
    (*added)++;
    FR_ZSET_N(s, r)->score = 0.0;
    FR_ZSET_N(s, r)->leaf = FR_ZSET_UNLINKED;
    s->bulk_new++;
    return r;
}

/* Sets m's score (not NaN), adding m if absent (*added is incremented); an
 * equal score is no change (an existing 0.0 stays 0.0 when -0.0 comes, as
 * in fr_zset_add).  The tree is rebuilt by fr_zset_bulk_end.  0, or -1 no
 * memory. */
int fr_zset_bulk_put(fr_zset *s, const char *m, size_t len, double score, uint64_t *added)
{
    uint64_t before = *added;
    fr_zset_ref r = fr_zset_bulk_ref(s, m, len, added);
    if (!r)
        return -1;
    if (*added != before) {
        FR_ZSET_N(s, r)->score = score;
    } else if (FR_ZSET_N(s, r)->score != score) {
        FR_ZSET_N(s, r)->score = score;
        s->bulk_moved = 1;
    }
    return 0;
}

/* The score of m inside a bulk load, for the caller to read and overwrite
 * with any value but NaN (a fold: ZUNIONSTORE's aggregate, -0.0 kept as
 * written); m is added with score 0.0 when absent (*added is incremented).
 * Valid until the next call that may add a member; NULL when out of
 * memory. */
double *fr_zset_bulk_slot(fr_zset *s, const char *m, size_t len, uint64_t *added)
{
    uint64_t before = *added;
    fr_zset_ref r = fr_zset_bulk_ref(s, m, len, added);
    if (!r)
        return NULL;
    if (*added == before)
        s->bulk_moved = 1;
    return &FR_ZSET_N(s, r)->score;
}

/* Releases the tree under node (ids and counters kept right). */
static void fr_zset_tree_drop(fr_zset *s, void *node, int h)
{
    if (!node)
        return;
    if (h > 0) {
        fr_zset_inner *x = (fr_zset_inner *)node;
        uint32_t i;
        for (i = 0; i < x->n; i++)
            fr_zset_tree_drop(s, x->child[i], h - 1);
        fr_zset_inner_release(s, x);
    } else {
        fr_zset_leaf_release(s, (fr_zset_leaf *)node);
    }
}

/* Builds the tree over recs[0..n) (sorted, n >= 1) from the reserved
 * nodes: leaves filled evenly (each at least half full when there are
 * several), then each level of inner nodes the same way. */
static void fr_zset_build(fr_zset *s, const fr_zset_rec *recs, uint64_t n)
{
    uint64_t nl, ni, k, j, q, at = 0, used = 0, level_n;
    void **level;
    fr_zset_leaf *prev = NULL;
    int h = 0;
    fr_zset_build_shape(n, &nl, &ni);
    assert(nl <= s->bulk_nleaf && ni <= s->bulk_ninner);
    level = s->bulk_nodes; /* reused in place: node j of a level goes to slot j */
    for (k = 0; k < nl; k++) {
        uint32_t m;
        fr_zset_leaf *l;
        fr_zset_ref *refs;
        l = (fr_zset_leaf *)s->bulk_nodes[k]; /* its cap set by fr_zset_bulk_begin */
        m = (uint32_t)(n / nl + (k < n % nl));
        l->n = m;
        l->parent = NULL;
        l->prev = prev;
        l->next = NULL;
        if (prev)
            prev->next = l;
        else
            s->head = l;
        prev = l;
        l->id = fr_zset_leaf_take_name(s, l);
        s->nleaves++;
        refs = FR_ZSET_LREF(l);
        for (j = 0; j < m; j++, at++) {
            refs[j] = recs[at].ref;
            l->score[j] = FR_ZSET_N(s, recs[at].ref)->score;
            FR_ZSET_N(s, recs[at].ref)->leaf = l->id;
        }
    }
    s->tail = prev;
    used = nl;
    level_n = nl;
    /* inner levels: the children of this level are level[0..level_n) */
    while (level_n > 1) {
        uint64_t m = (level_n + FR_ZSET_INNER_CAP - 1) / FR_ZSET_INNER_CAP, c = 0;
        for (k = 0; k < m; k++) {
            fr_zset_inner *x = (fr_zset_inner *)s->bulk_nodes[s->bulk_nleaf + (used - nl)];
            uint32_t kn = (uint32_t)(level_n / m + (k < level_n % m));
            used++;
            x->parent = NULL;
            x->n = kn;
            for (q = 0; q < kn; q++, c++) {
                void *ch = level[c];
                const void *lm = ch;
                int hh = h;
                x->child[q] = ch;
                x->cnt[q] = fr_zset_node_count(ch, h);
                fr_zset_set_parent(ch, h == 0, x);
                while (hh > 0)
                    lm = ((const fr_zset_inner *)lm)->child[0], hh--;
                if (q == 0) {
                    x->sep[0] = 0.0;
                    x->pfx[0] = 0;
                    x->sref[0] = FR_ZSET_NIL;
                } else {
                    fr_zset_set_sep(s, x, q, ((const fr_zset_leaf *)lm)->score[0],
                                    FR_ZSET_LREF((const fr_zset_leaf *)lm)[0]);
                }
            }
            level[k] = x; /* safe: k < c, slot k's node is already placed */
            s->ninners++;
        }
        level_n = m;
        h++;
    }
    s->root = level[0];
    s->height = h;
    s->length = n;
    /* the nodes not used stay in bulk_nodes for freeing: the unused
     * leaves, then the unused inner nodes, moved down past the used ones */
    {
        uint64_t ui = used - nl, j2;
        void **rest = s->bulk_nodes;
        uint64_t w = 0;
        for (j2 = nl; j2 < s->bulk_nleaf; j2++)
            rest[w++] = s->bulk_nodes[j2];
        for (j2 = s->bulk_nleaf + ui; j2 < s->bulk_nleaf + s->bulk_ninner; j2++)
            rest[w++] = s->bulk_nodes[j2];
        s->bulk_ninner -= ui;
        s->bulk_nleaf -= nl;
        assert(w == s->bulk_nleaf + s->bulk_ninner);
    }
}

/* Ends a bulk load: when a member was added or a score changed, all
 * records are sorted (LSD radix sort on score bits and 4-byte prefix,
 * merge sort for the remaining ties) and the tree is rebuilt packed from
 * them, O(n).  Never fails. */
void fr_zset_bulk_end(fr_zset *s)
{
    fr_zset_rec *recs = (fr_zset_rec *)s->bulk_buf, *sorted;
    uint64_t u = 1;
    size_t n = 0;
    assert(s->bulk && s->hcount <= s->bulk_cap);
    if (!s->bulk_moved && s->bulk_new == 0)
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
        u += xn->units;
    }
    assert(n == s->hcount);
    sorted = fr_zset_sort_recs(s, recs, recs + s->bulk_cap, n);
    fr_zset_tree_drop(s, s->root, s->height);
    s->root = NULL;
    s->head = s->tail = NULL;
    s->height = 0;
    fr_zset_stash_free(s);
    fr_zset_build(s, sorted, n);
    s->version++;
done:
    assert(s->length == s->hcount);
    fr_zset_arena_trim(s);
    fr_zset_bulk_nodes_free(s);
    fr_zset_big_free(s->bulk_buf, fr_zset_bulk_buf_size(s->bulk_cap));
    s->bulk_buf = NULL;
    s->bulk_cap = 0;
    s->bulk = 0;
}

/* ======================================================================
 * Life cycle
 * ====================================================================== */

static uint64_t fr_zset_seed_counter;

/* Initialises an empty set in *s (all fields).  0 or -1 (no memory).  The
 * tree's first leaf comes with the first member. */
static int fr_zset_init(fr_zset *s)
{
    memset(s, 0, sizeof *s);
    s->cap = 16;
    s->arena = (char *)malloc((size_t)s->cap * 8);
    s->nslots = 8;
    s->slots = (uint64_t *)calloc((size_t)s->nslots, sizeof(uint64_t));
    if (!s->arena || !s->slots) {
        free(s->arena);
        free(s->slots);
        return -1;
    }
    s->top = 1;
    fr_zset_seed_counter += 0x9e3779b97f4a7c15ULL;
    s->seed = fr_zset_hash(&s, sizeof s, fr_zset_seed_counter ^ (uint64_t)(uintptr_t)s);
    return 0;
}

/* Frees out-of-line members of all live records. */
static void fr_zset_free_ext(fr_zset *s)
{
    uint64_t u;
    if (!s->ext_count)
        return;
    for (u = 1; u < s->top; u += FR_ZSET_N(s, u)->units) {
        fr_zset_node *xn = FR_ZSET_N(s, u);
        if (fr_zset_chunk_live(s, u) && xn->mlen == FR_ZSET_LONG) {
            size_t len;
            free((char *)fr_zset_node_member(xn, &len));
        }
    }
}

/* Frees everything *s owns (not s itself). */
static void fr_zset_release_all(fr_zset *s)
{
    fr_zset_free_ext(s);
    fr_zset_big_free(s->arena, (size_t)s->cap * 8);
    fr_zset_big_free(s->slots, (size_t)s->nslots * sizeof(uint64_t));
    fr_zset_tree_free(s->root, s->height);
    free(s->leaves);
    free(s->free_ids);
    fr_zset_stash_free(s);
    fr_zset_bulk_nodes_free(s);
    fr_zset_big_free(s->bulk_buf, fr_zset_bulk_buf_size(s->bulk_cap));
    fr_zset_pool_release(&s->pool);
}

fr_zset *fr_zset_new(void)
{
    fr_zset *s = (fr_zset *)malloc(sizeof *s);
    if (s && fr_zset_init(s)) {
        free(s);
        s = NULL;
    }
    return s;
}

void fr_zset_free(fr_zset *s)
{
    if (!s)
        return;
    fr_zset_release_all(s);
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
    fr_zset_release_all(s);
    *s = fresh;
    s->version = version + 1;
    return 0;
}

/* The leaf id table from the leaves' names (after fr_zset_copy_tree): each
 * malloc'd leaf at its id, every other id below nids free. */
static void fr_zset_ids_rebuild(fr_zset *s)
{
    fr_zset_leaf *l;
    uint32_t id;
    if (!s->leaves)
        return;
    memset(s->leaves, 0, (size_t)s->nids * sizeof *s->leaves);
    for (l = s->head; l; l = l->next)
        if (!(l->id & FR_ZSET_NAMED_SLOT))
            s->leaves[l->id] = l;
    s->nfree_ids = 0;
    for (id = s->nids; id-- > 1;)
        if (!s->leaves[id])
            s->free_ids[s->nfree_ids++] = id;
}

/* Copies the subtree under node (h inner levels) into c's nodes (pooled
 * as c's node counts say), c's records of them following.  A leaf keeps
 * its table id when malloc'd in both; else it takes the name of its new
 * place, or a new table id (c->nids up: the table must have room for one
 * per leaf); fr_zset_ids_rebuild then gives c's table its free list.
 * *prev threads the leaf list, c->head and c->tail follow.  NULL when out
 * of memory (the malloc'd nodes of the partial copy are freed, the pooled
 * ones stay in c's pool). */
static void *fr_zset_copy_tree(fr_zset *c, const void *node, int h, fr_zset_inner *parent,
                               fr_zset_leaf **prev)
{
    if (h == 0) {
        const fr_zset_leaf *l = (const fr_zset_leaf *)node;
        fr_zset_leaf *d = fr_zset_leaf_alloc(c, l->cap, fr_zset_tree_nodes(c));
        uint32_t pooled;
        if (!d)
            return NULL;
        pooled = d->pooled;
        memcpy(d, l, fr_zset_leaf_size(l->cap));
        d->pooled = pooled;
        if (pooled || (l->id & FR_ZSET_NAMED_SLOT)) {
            d->id = pooled ? fr_zset_pool_name(&c->pool, d) : fr_zset_fresh_id(c);
            fr_zset_leaf_own(c, d);
        }
        d->parent = parent;
        d->prev = *prev;
        d->next = NULL;
        if (*prev)
            (*prev)->next = d;
        else
            c->head = d;
        *prev = d;
        c->tail = d;
        return d;
    } else {
        const fr_zset_inner *x = (const fr_zset_inner *)node;
        fr_zset_inner *y = fr_zset_inner_alloc(c, fr_zset_tree_nodes(c));
        uint32_t i, pooled;
        if (!y)
            return NULL;
        pooled = y->pooled;
        memcpy(y, x, sizeof *y);
        y->pooled = pooled;
        y->parent = parent;
        for (i = 0; i < x->n; i++)
            y->child[i] = NULL;
        for (i = 0; i < x->n; i++) {
            y->child[i] = fr_zset_copy_tree(c, x->child[i], h - 1, y, prev);
            if (!y->child[i]) {
                y->n = i; /* free only what exists */
                fr_zset_tree_free(y, h);
                return NULL;
            }
        }
        return y;
    }
}

/* A deep copy (same refs, same hash seed), or NULL when out of memory. */
fr_zset *fr_zset_copy(const fr_zset *s)
{
    fr_zset *c;
    fr_zset_leaf *prev = NULL;
    uint64_t u = 1;
    if ((uint64_t)s->nids + s->nleaves + 2 >= UINT32_MAX)
        return NULL;
    c = (fr_zset *)malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *s;
    c->bulk_buf = NULL;
    c->bulk_cap = 0;
    c->bulk_nodes = NULL;
    c->bulk_nleaf = c->bulk_ninner = 0;
    c->nstash = 0;
    c->stash_leaf = NULL;
    c->root = NULL;
    c->head = c->tail = NULL;
    c->heap_node_bytes = 0;
    memset(&c->pool, 0, sizeof c->pool);
    c->ext_count = 0; /* counted back as the long members are copied */
    c->ext_bytes = 0;
    c->cap = s->top;
    c->arena = (char *)fr_zset_big_alloc((size_t)c->cap * 8, 0);
    c->slots = (uint64_t *)fr_zset_big_alloc((size_t)c->nslots * sizeof(uint64_t), 0);
    c->idcap = (uint32_t)s->nids + (uint32_t)s->nleaves + 2; /* a new id per leaf, at most */
    c->leaves = (fr_zset_leaf **)calloc(c->idcap, sizeof *c->leaves);
    c->free_ids = (uint32_t *)malloc(c->idcap * sizeof *c->free_ids);
    if (!c->arena || !c->slots || !c->leaves || !c->free_ids)
        goto fail;
    memcpy(c->arena, s->arena, (size_t)s->top * 8);
    memcpy(c->slots, s->slots, (size_t)s->nslots * sizeof(uint64_t));
    for (u = 1; u < c->top; u += FR_ZSET_N(c, u)->units) {
        fr_zset_node *xn = FR_ZSET_N(c, u);
        if (fr_zset_chunk_live(c, u) && xn->mlen == FR_ZSET_LONG) {
            fr_zset_ext e;
            char *p = (char *)xn + FR_ZSET_HDR;
            memcpy(&e, p, sizeof e);
            e.ptr = (char *)malloc(e.len);
            if (!e.ptr) {
                xn->mlen = 0; /* not copied: the free below must skip it */
                goto fail;
            }
            memcpy(e.ptr, fr_zset_member(s, (fr_zset_ref)u, &e.len), e.len);
            memcpy(p, &e, sizeof e);
            c->ext_count++;
            c->ext_bytes += e.len;
        }
    }
    if (s->root) {
        c->root = fr_zset_copy_tree(c, s->root, s->height, NULL, &prev);
        if (!c->root)
            goto fail;
    }
    fr_zset_ids_rebuild(c);
    return c;
fail:
    if (c->arena) { /* long members copied so far */
        uint64_t v;
        for (v = 1; v < u && v < c->top; v += FR_ZSET_N(c, v)->units) {
            fr_zset_node *yn = FR_ZSET_N(c, v);
            if (fr_zset_chunk_live(c, v) && yn->mlen == FR_ZSET_LONG) {
                size_t len;
                free((char *)fr_zset_node_member(yn, &len));
            }
        }
    }
    fr_zset_big_free(c->arena, (size_t)c->cap * 8);
    fr_zset_big_free(c->slots, (size_t)c->nslots * sizeof(uint64_t));
    free(c->leaves);
    free(c->free_ids);
    fr_zset_pool_release(&c->pool);
    free(c);
    return NULL;
}

/* COMPACTION.  Freed records go to free lists, so a set that lost most of
 * its members (a board trimmed to its top N) would keep its peak arena,
 * and the pool its peak chunks (merges give nodes back to free lists, not
 * to the system).  fr_zset_shrink moves a pool with more bytes in free
 * slots than in live ones into compact storage (fr_zset_compact_nodes: each costs O(nodes) against the
 * >= nodes / 2 merges that made it due), then
 * the live records, in order, into a fresh arena of exactly their size
 * when they fill less than a quarter of an arena of more than
 * FR_ZSET_SHRINK_MIN units; each shrink costs O(n) against the >= 3n
 * removals that made it due.  Every ref changes: callers only shrink
 * between whole operations, never while they hold refs.  A lone root leaf
 * far bigger than its members is made small again, and a tree down to one
 * leaf drops its spare nodes.  1 when records or nodes moved, 0 when
 * nothing was due, -1 when out of memory. */
#ifndef FR_ZSET_SHRINK_MIN /* the C property test sets it low */
#define FR_ZSET_SHRINK_MIN 8192u /* 64 KiB */
#endif

/* Re-names every separator's record through the old arena's forwarding. */
static void fr_zset_rename_seps(const fr_zset *old, void *node, int h)
{
    fr_zset_inner *x;
    uint32_t i;
    if (h == 0)
        return;
    x = (fr_zset_inner *)node;
    for (i = 0; i < x->n; i++) {
        if (i > 0)
            x->sref[i] = FR_ZSET_N(old, x->sref[i])->leaf;
        fr_zset_rename_seps(old, x->child[i], h - 1);
    }
}

/* Moves every node of a pool whose free slots outweigh its slots in use
 * (the uncarved rest of the newest chunk, never touched, does not count)
 * into fresh
 * storage (a compact pool, or malloc once the tree is below
 * FR_ZSET_POOL_MIN_NODES nodes) and unmaps the old chunks: a copy of the
 * tree in leaf order, then the old tree goes.  The spare nodes are
 * dropped first (the next insertion takes them again).  1 (moved), 0
 * (nothing to do), or -1 when out of memory (nothing changed). */
static int fr_zset_compact_nodes(fr_zset *s)
{
    fr_zset t;
    fr_zset_leaf *prev = NULL, *l;
    void *root;
    const fr_zset_pool *p = &s->pool;
    if (p->nfree[FR_ZSET_PLEAF] * fr_zset_slot_size(FR_ZSET_PLEAF) +
            p->nfree[FR_ZSET_PINNER] * fr_zset_slot_size(FR_ZSET_PINNER) <=
        p->live[FR_ZSET_PLEAF] * fr_zset_slot_size(FR_ZSET_PLEAF) +
            p->live[FR_ZSET_PINNER] * fr_zset_slot_size(FR_ZSET_PINNER))
        return 0; /* the common case: one look (called after every removal) */
    fr_zset_stash_free(s);
    if (!s->pool.nchunks) /* the stash held the last pooled nodes */
        return 1;
    if (fr_zset_ids_reserve(s, s->nleaves + 1)) /* a new table id per leaf at most (and id 0, never used) */
        return -1;
    t = *s;
    t.heap_node_bytes = 0;
    memset(&t.pool, 0, sizeof t.pool);
    root = fr_zset_copy_tree(&t, s->root, s->height, NULL, &prev);
    if (!root) { /* the copy renamed records of the shared arena: back */
        for (l = s->head; l; l = l->next)
            fr_zset_leaf_own(s, l);
        fr_zset_pool_release(&t.pool);
        return -1;
    }
    fr_zset_tree_free(s->root, s->height);
    fr_zset_pool_release(&s->pool);
    s->root = root;
    s->head = t.head;
    s->tail = t.tail;
    s->heap_node_bytes = t.heap_node_bytes;
    s->pool = t.pool;
    s->nids = t.nids;
    fr_zset_ids_rebuild(s);
    s->version++;
    return 1;
}

int fr_zset_shrink(fr_zset *s)
{
    fr_zset old = *s;
    fr_zset_leaf *lw, **ids;
    uint32_t *fids, idcap;
    uint64_t need, j;
    int moved;
    if (s->bulk)
        return 0;
    if (s->height == 0) {
        fr_zset_stash_free(s);
        if (s->root && ((fr_zset_leaf *)s->root)->cap > FR_ZSET_SMALL_LEAF &&
            ((fr_zset_leaf *)s->root)->n * 4 <= ((fr_zset_leaf *)s->root)->cap) {
            fr_zset_leaf *r = (fr_zset_leaf *)s->root;
            fr_zset_leaf *g = fr_zset_ids_reserve(s, 1) ? NULL : fr_zset_leaf_alloc(s, fr_zset_root_cap(r->n), 1);
            if (g)
                fr_zset_root_move(s, g, r);
        }
    }
    moved = fr_zset_compact_nodes(s);
    if (moved < 0)
        return -1;
    old = *s;
    if (s->cap <= FR_ZSET_SHRINK_MIN || (1 + s->live_units) * 4 >= s->cap)
        return moved;
    need = 1 + s->live_units;
    idcap = (uint32_t)s->nleaves + 3;
    s->arena = (char *)fr_zset_big_alloc((size_t)need * 8, 0);
    ids = (fr_zset_leaf **)malloc(idcap * sizeof *ids);
    fids = (uint32_t *)malloc(idcap * sizeof *fids);
    if (!s->arena || !ids || !fids) {
        fr_zset_big_free(s->arena, (size_t)need * 8);
        free(ids);
        free(fids);
        *s = old;
        return -1;
    }
    s->cap = need;
    s->top = 1;
    memset(s->freelist, 0, sizeof s->freelist);
    /* copy each record; its old copy's leaf field records the new ref.
     * The malloc'd leaves are renumbered 1.. in order on the way (the id
     * table shrinks with the tree). */
    free(s->leaves);
    free(s->free_ids);
    s->leaves = ids;
    s->free_ids = fids;
    s->idcap = idcap;
    s->nfree_ids = 0;
    s->nids = 1;
    ids[0] = NULL;
    for (lw = s->head; lw; lw = lw->next) {
        fr_zset_ref *refs = FR_ZSET_LREF(lw);
        uint32_t k;
        if (!lw->pooled) { /* a pooled leaf keeps the name of its place */
            lw->id = s->nids++;
            ids[lw->id] = lw;
        }
        for (k = 0; k < lw->n; k++) {
            fr_zset_node *on = FR_ZSET_N(&old, refs[k]);
            memcpy(s->arena + (s->top << 3), on, (size_t)on->units * 8);
            FR_ZSET_N(s, s->top)->leaf = lw->id;
            on->leaf = (uint32_t)s->top;
            refs[k] = (fr_zset_ref)s->top;
            s->top += on->units;
        }
    }
    assert(s->top == need);
    for (j = 0; j < s->nslots; j++) {
        uint64_t v = s->slots[j];
        if (v)
            s->slots[j] = (v & 0xffffffff00000000ULL) | FR_ZSET_N(&old, (fr_zset_ref)v)->leaf;
    }
    if (s->root)
        fr_zset_rename_seps(&old, s->root, s->height);
    s->version++;
    fr_zset_big_free(old.arena, (size_t)old.cap * 8);
    return 1;
}

/* Bytes allocated for the set: struct, arena, index, tree nodes (malloc'd
 * ones, and the pool's chunks with their free slots), long members. */
size_t fr_zset_memory(const fr_zset *s)
{
    return sizeof *s + fr_zset_big_size((size_t)s->cap * 8) +
           fr_zset_big_size((size_t)s->nslots * sizeof(uint64_t)) + s->ext_bytes +
           (size_t)s->heap_node_bytes + fr_zset_pool_bytes(&s->pool) +
           (size_t)s->idcap * (sizeof(fr_zset_leaf *) + sizeof(uint32_t));
}

/* ======================================================================
 * Checker
 * ====================================================================== */

#define FR_ZSET_FAIL(...)                                                  \
    do {                                                                   \
        snprintf(err, errlen, __VA_ARGS__);                                \
        return -1;                                                         \
    } while (0)

/* Nodes seen by the checker: in the tree, and where they live. */
typedef struct fr_zset_tally {
    uint64_t leaves, inners; /* in the tree */
    uint64_t pooled[2];      /* pool slots in use, by class */
    uint64_t heap;           /* bytes of malloc'd nodes */
} fr_zset_tally;

/* Counts node x (a leaf of capacity cap, or an inner node when cap is 0)
 * in *t; -1 when its pooled flag and its address disagree. */
static int fr_zset_check_home(const fr_zset *s, const void *x, uint32_t pooled, uint32_t cap,
                              fr_zset_tally *t)
{
    int in_pool = fr_zset_pool_holds(&s->pool, x);
    if (pooled != (uint32_t)in_pool || (pooled && (((uintptr_t)x & 63) || (cap && cap != FR_ZSET_LEAF_CAP))))
        return -1;
    if (pooled)
        t->pooled[cap ? FR_ZSET_PLEAF : FR_ZSET_PINNER]++;
    else
        t->heap += cap ? fr_zset_leaf_size(cap) : sizeof(fr_zset_inner);
    return 0;
}

/* Checks the pool's bookkeeping against the nodes tallied in *t (the
 * tree's and the stash's): slots in use, free lists, chunk bytes. */
static int fr_zset_check_pool(const fr_zset *s, const fr_zset_tally *t, char *err, size_t errlen)
{
    const fr_zset_pool *p = &s->pool;
    uint64_t carved = 0;
    int c;
    if (t->heap != s->heap_node_bytes)
        FR_ZSET_FAIL("malloc'd nodes: %llu bytes, recorded %llu", (unsigned long long)t->heap,
                     (unsigned long long)s->heap_node_bytes);
    for (c = 0; c < 2; c++) {
        uint64_t k = 0;
        const void *x;
        if (t->pooled[c] != p->live[c])
            FR_ZSET_FAIL("pool class %d: %llu slots in use, recorded %llu", c,
                         (unsigned long long)t->pooled[c], (unsigned long long)p->live[c]);
        for (x = p->free[c]; x; memcpy(&x, x, sizeof x)) {
            if (++k > p->nfree[c] || !fr_zset_pool_holds(p, x) || ((uintptr_t)x & 63))
                FR_ZSET_FAIL("pool class %d: free list broken after %llu slots", c, (unsigned long long)k);
        }
        if (k != p->nfree[c])
            FR_ZSET_FAIL("pool class %d: %llu free slots, recorded %llu", c, (unsigned long long)k,
                         (unsigned long long)p->nfree[c]);
        carved += (p->live[c] + p->nfree[c]) * fr_zset_slot_size(c);
    }
    if (p->nchunks == 0 && (carved || p->bump != p->end))
        FR_ZSET_FAIL("pool: slots without chunks");
    if (p->nchunks && (p->live[FR_ZSET_PLEAF] + p->live[FR_ZSET_PINNER] == 0 || p->nchunks > p->chunkcap ||
                       !fr_zset_pool_holds(p, p->end - 1) || p->bump > p->end ||
                       carved + (uint64_t)(p->end - p->bump) > (uint64_t)p->nchunks * FR_ZSET_POOL_CHUNK ||
                       carved + (uint64_t)(p->end - p->bump) + (uint64_t)p->nchunks * (64 + fr_zset_slot_size(FR_ZSET_PLEAF) + fr_zset_slot_size(FR_ZSET_PINNER)) <
                           (uint64_t)p->nchunks * FR_ZSET_POOL_CHUNK))
        FR_ZSET_FAIL("pool: %u chunks, %llu bytes carved, %llu uncarved", (unsigned)p->nchunks,
                     (unsigned long long)carved, (unsigned long long)(p->end - p->bump));
    return 0;
}

/* Checks the subtree under node (h inner levels, parent p): fill, parent
 * links, counts, separators, leaf ids, where each node lives; *count
 * receives its members, *t its nodes. */
static int fr_zset_check_node(const fr_zset *s, const void *node, int h, const fr_zset_inner *p,
                              uint64_t *count, fr_zset_tally *t, char *err, size_t errlen)
{
    uint32_t i;
    if (h == 0) {
        const fr_zset_leaf *l = (const fr_zset_leaf *)node;
        const fr_zset_ref *refs = FR_ZSET_LREF(l);
        if (l->parent != p)
            FR_ZSET_FAIL("leaf %u: wrong parent", (unsigned)l->id);
        if (l->n > l->cap || (p && l->cap != FR_ZSET_LEAF_CAP) || l->cap > FR_ZSET_LEAF_CAP)
            FR_ZSET_FAIL("leaf %u: %u entries, capacity %u", (unsigned)l->id, (unsigned)l->n,
                         (unsigned)l->cap);
        if (p && l->n < FR_ZSET_LMIN)
            FR_ZSET_FAIL("leaf %u: underfull (%u)", (unsigned)l->id, (unsigned)l->n);
        if (fr_zset_check_home(s, l, l->pooled, l->cap, t))
            FR_ZSET_FAIL("leaf %u: pooled %u, in the pool %d", (unsigned)l->id, (unsigned)l->pooled,
                         fr_zset_pool_holds(&s->pool, l));
        if (l->pooled ? !(l->id & FR_ZSET_NAMED_SLOT) || fr_zset_name_chunk(l->id) >= s->pool.nchunks ||
                            fr_zset_leaf_named(s, l->id) != l
                      : (l->id & FR_ZSET_NAMED_SLOT) || l->id == 0 || l->id >= s->nids || s->leaves[l->id] != l)
            FR_ZSET_FAIL("leaf %u: its name does not lead to it", (unsigned)l->id);
        for (i = 0; i < l->n; i++) {
            const fr_zset_node *xn = FR_ZSET_N(s, refs[i]);
            if (refs[i] == 0 || refs[i] >= s->top || !fr_zset_chunk_live(s, refs[i]))
                FR_ZSET_FAIL("leaf %u slot %u: bad ref %u", (unsigned)l->id, i, (unsigned)refs[i]);
            if (xn->leaf != l->id)
                FR_ZSET_FAIL("record %u: leaf %u, held by %u", (unsigned)refs[i], (unsigned)xn->leaf,
                             (unsigned)l->id);
            if (memcmp(&xn->score, &l->score[i], 8) != 0)
                FR_ZSET_FAIL("record %u: score differs from its leaf's", (unsigned)refs[i]);
        }
        *count = l->n;
        t->leaves++;
        return 0;
    } else {
        const fr_zset_inner *x = (const fr_zset_inner *)node;
        t->inners++;
        if (x->parent != p)
            FR_ZSET_FAIL("inner node: wrong parent");
        if (fr_zset_check_home(s, x, x->pooled, 0, t))
            FR_ZSET_FAIL("inner node at height %d: pooled %u, in the pool %d", h, (unsigned)x->pooled,
                         fr_zset_pool_holds(&s->pool, x));
        if (x->n > FR_ZSET_INNER_CAP || x->n < (p ? FR_ZSET_IMIN : 2))
            FR_ZSET_FAIL("inner node at height %d: %u children", h, (unsigned)x->n);
        *count = 0;
        for (i = 0; i < x->n; i++) {
            uint64_t c;
            const void *lm = x->child[i];
            int hh = h - 1;
            if (fr_zset_check_node(s, x->child[i], h - 1, x, &c, t, err, errlen))
                return -1;
            if (c != x->cnt[i])
                FR_ZSET_FAIL("inner node at height %d: child %u counts %llu, holds %llu", h, i,
                             (unsigned long long)x->cnt[i], (unsigned long long)c);
            *count += c;
            while (hh > 0)
                lm = ((const fr_zset_inner *)lm)->child[0], hh--;
            if (i > 0) {
                const fr_zset_leaf *ml = (const fr_zset_leaf *)lm;
                size_t len;
                const char *m;
                if (ml->n == 0)
                    FR_ZSET_FAIL("inner node at height %d: child %u empty", h, i);
                m = fr_zset_member(s, FR_ZSET_LREF(ml)[0], &len);
                if (x->sref[i] != FR_ZSET_LREF(ml)[0] || x->sep[i] != ml->score[0] ||
                    x->pfx[i] != fr_zset_pfx(m, len))
                    FR_ZSET_FAIL("inner node at height %d: separator %u is not its child's smallest key",
                                 h, i);
            }
        }
        return 0;
    }
}

/* Verifies every invariant listed at the top of this file.  0, or -1 with a
 * message in err.  O(n). */
int fr_zset_check(const fr_zset *s, char *err, size_t errlen)
{
    uint64_t n = 0, leaves, inners, u, live = 0, live_units = 0, slots = 0, j, rank = 0;
    const fr_zset_leaf *l, *prev = NULL;
    fr_zset_ref last = FR_ZSET_NIL;
    fr_zset_tally t;
    memset(&t, 0, sizeof t);
    if (s->bulk)
        FR_ZSET_FAIL("inside a bulk load");
    for (j = 0; j < s->nstash; j++)
        if (fr_zset_check_home(s, s->stash[j], s->stash[j]->pooled, 0, &t))
            FR_ZSET_FAIL("spare inner node %llu: pooled %u", (unsigned long long)j,
                         (unsigned)s->stash[j]->pooled);
    if (s->stash_leaf && fr_zset_check_home(s, s->stash_leaf, s->stash_leaf->pooled, s->stash_leaf->cap, &t))
        FR_ZSET_FAIL("spare leaf: pooled %u", (unsigned)s->stash_leaf->pooled);
    if (!s->root) {
        if (s->length || s->head || s->tail || s->height)
            FR_ZSET_FAIL("no tree, but length %llu", (unsigned long long)s->length);
    } else {
        if (s->height < 0 || s->height >= FR_ZSET_MAXH)
            FR_ZSET_FAIL("bad height %d", s->height);
        if (fr_zset_check_node(s, s->root, s->height, NULL, &n, &t, err, errlen))
            return -1;
        leaves = t.leaves;
        inners = t.inners;
        if (n != s->length)
            FR_ZSET_FAIL("tree holds %llu, length %llu", (unsigned long long)n,
                         (unsigned long long)s->length);
        if (leaves != s->nleaves || inners != s->ninners)
            FR_ZSET_FAIL("%llu leaves and %llu inner nodes, recorded %llu and %llu",
                         (unsigned long long)leaves, (unsigned long long)inners,
                         (unsigned long long)s->nleaves, (unsigned long long)s->ninners);
        /* the leaf list: in order, each key above the one before */
        j = 0;
        for (l = s->head; l; prev = l, l = l->next) {
            uint32_t i;
            if (l->prev != prev)
                FR_ZSET_FAIL("leaf %u: prev link", (unsigned)l->id);
            if (++j > leaves)
                FR_ZSET_FAIL("leaf list longer than the tree");
            for (i = 0; i < l->n; i++) {
                fr_zset_ref x = FR_ZSET_LREF(l)[i];
                const fr_zset_node *xn = FR_ZSET_N(s, x);
                size_t len;
                const char *m = fr_zset_node_member(xn, &len);
                rank++;
                if (xn->score != xn->score)
                    FR_ZSET_FAIL("record %u: NaN score", (unsigned)x);
                if (last && fr_zset_cmp_key(FR_ZSET_N(s, last), xn->score, m, len) >= 0)
                    FR_ZSET_FAIL("record %u (rank %llu) out of order", (unsigned)x,
                                 (unsigned long long)rank);
                if (fr_zset_find(s, m, len) != x)
                    FR_ZSET_FAIL("record %u (rank %llu) not found by the index", (unsigned)x,
                                 (unsigned long long)rank);
                if (fr_zset_hint_holds(s, x) && s->hint_rank != rank)
                    FR_ZSET_FAIL("rank hint: record %u has rank %llu, hint says %llu", (unsigned)x,
                                 (unsigned long long)rank, (unsigned long long)s->hint_rank);
                if (fr_zset_rank(s, x) != rank || fr_zset_at_rank(s, rank) != x)
                    FR_ZSET_FAIL("record %u: rank %llu not found by rank or at_rank", (unsigned)x,
                                 (unsigned long long)rank);
                last = x;
            }
        }
        if (j != leaves || s->tail != prev)
            FR_ZSET_FAIL("leaf list: %llu leaves, tail mismatch", (unsigned long long)j);
    }
    if (fr_zset_check_pool(s, &t, err, errlen))
        return -1;
    if (s->hcount != s->length)
        FR_ZSET_FAIL("index holds %llu, tree %llu", (unsigned long long)s->hcount,
                     (unsigned long long)s->length);
    /* arena: records tile it; live records are exactly the tree's */
    for (u = 1; u < s->top; u += FR_ZSET_N(s, u)->units) {
        const fr_zset_node *xn = FR_ZSET_N(s, u);
        if (xn->units == 0 || xn->units > FR_ZSET_MAX_UNITS)
            FR_ZSET_FAIL("record %llu: bad size %u", (unsigned long long)u, (unsigned)xn->units);
        if (fr_zset_chunk_live(s, u)) {
            size_t len;
            fr_zset_node_member(xn, &len);
            if (xn->units != fr_zset_units_for(len))
                FR_ZSET_FAIL("record %llu: size %u", (unsigned long long)u, (unsigned)xn->units);
            live++;
            live_units += xn->units;
        }
    }
    if (u != s->top || live != s->length)
        FR_ZSET_FAIL("arena: %llu live records, %llu members", (unsigned long long)live,
                     (unsigned long long)s->length);
    if (live_units != s->live_units)
        FR_ZSET_FAIL("arena: %llu live units counted, %llu recorded", (unsigned long long)live_units,
                     (unsigned long long)s->live_units);
    for (j = 0; j < s->nslots; j++) {
        uint64_t v = s->slots[j];
        if (!v)
            continue;
        slots++;
        if ((uint32_t)(v >> 32) != (uint32_t)(fr_zset_node_hash(s, (fr_zset_ref)v) >> 32))
            FR_ZSET_FAIL("slot %llu: wrong tag", (unsigned long long)j);
    }
    if (slots != s->length || s->hcount * 5 > s->nslots * 4 + 4)
        FR_ZSET_FAIL("index: %llu slots used of %llu", (unsigned long long)slots,
                     (unsigned long long)s->nslots);
    return 0;
}
