/* cms.c -- Count-Min Sketch, counter for counter what RedisBloom 2.8 keeps.
 *
 * THE STRUCTURE
 * A Count-Min Sketch (Cormode and Muthukrishnan, "An improved data stream
 * summary: the count-min sketch and its applications", 2005) is a matrix of
 * depth rows by width columns of counters.  Adding n to item x adds n to one
 * counter per row, the column chosen by that row's hash of x; the estimate of
 * x's total is the smallest of its depth counters.  Collisions only ever add,
 * so the estimate never undercounts; with width = ceil(e / eps) and
 * depth = ceil(ln(1 / delta)) it overcounts by more than eps * N (N = sum of
 * all increments) with probability at most delta.
 *
 * WHAT WE MATCH (RedisBloom 2.8.2, docs/compatibility.md §4)
 * fastrank's sketch must answer CMS.INCRBY / CMS.QUERY / CMS.MERGE / CMS.INFO
 * exactly as RedisBloom 2.8 does for the same inserts, so the choices that are
 * free in the paper are fixed here:
 *   - counters are unsigned 32-bit and SATURATE at 2^32 - 1 (never wrap);
 *   - row i's column is MurmurHash2(item, seed = i) mod width (murmurhash2.h);
 *   - the cells are one row-major array: row i is cells[i*width .. +width);
 *   - `count` is the 64-bit sum of all increments, including those that
 *     saturated, wrapping mod 2^64 (RedisBloom prints it as signed 64-bit);
 *   - an INCRBY reply is the item's minimum AFTER its own increment; a
 *     minimum equal to 2^32 - 1 is reported by RedisBloom as an overflow
 *     error element, so FR_CMS_SATURATED doubles as our overflow marker;
 *   - MERGE overwrites the destination with sum_k weight_k * source_k, cell
 *     by cell, with signed 64-bit weights.  Every cell and the count are
 *     computed and range-checked first (each multiply and add must stay in
 *     int64, each cell in [0, 2^32 - 1], the count >= 0); only when all pass
 *     is anything written, so a failing merge leaves the destination as it
 *     was.  Computing cell by cell makes the destination safe to list among
 *     its own sources.
 * The sizing rule of CMS.INITBYPROB (width = ceil(2/error) in double, depth
 * from single-precision logs) lives with the Python class in cms.pxi.
 * Newer RedisBloom versions changed hashing and overflow rules; this file
 * follows 2.8 only.
 *
 * WHERE WE DEPART (speed, same answers)
 *   - hash % width is a mask when the width is a power of two, else Lemire's
 *     "fastmod" (fr_fastmod in murmurhash2.h: a 64-bit reciprocal and one
 *     128-bit multiply, exact for 32-bit hashes) when the compiler has
 *     128-bit integers; plain % otherwise.  Widths above 2^32 - 1 make the
 *     modulo the identity, as in RedisBloom.
 *   - Each item is hashed once into a seed-independent state
 *     (fr_murmur2_prepare) and one cheap hash per row is finished from it.
 *   - Batches go in blocks: all cell addresses of a block are computed and
 *     prefetched first, then the block is applied in item order.
 *   - Integer items are hashed as their decimal text, as redis-py would send
 *     them; no Python object per item.  Texts of up to 8 bytes (integers
 *     from -9999999 to 99999999) are built in one 64-bit word and hashed
 *     without loops (fr_dec8_word, fr_murmur2_word_*); longer ones go
 *     through a stack buffer.  Big integer batches also remember the cell
 *     addresses of recent items (cms_memo), so the heavy items of a skewed
 *     stream are hashed once.
 *   - Big numpy integer batches (at least 65,536 items, depth >= 2) run on
 *     several threads with the GIL released (cms.pxi), in blocks of 32k
 *     items and two phases per block (fr_cms_par_*, "Two phases per block"
 *     below): the threads share out the hashing of the block's items into
 *     a buffer of cell offsets, then each group of rows applies the whole
 *     block from it.  Each cell still sees the same increments in the same
 *     order, so saturation and every result are those of the one-thread
 *     run; an item's result is the minimum over the row groups, and the
 *     count is added once (fr_cms_add_count).  Where that path is not built
 *     (no GCC/Clang atomics, or Windows) or does not apply (over 512 rows,
 *     over 8 groups, cell offsets beyond 32 bits), a batch is limited to a
 *     run of rows per thread instead (fr_cms_incrby_ints_rows), every
 *     thread hashing every item.  Two phases beat splitting by rows, which
 *     beats one thread (rates: bench/results/core-measurements.md,
 *     "Count-Min Sketch threads").
 *
 * SERIALIZED FORM (ours, not RedisBloom's; version 1; all little-endian)
 *
 *    offset  size  field
 *    0       4     magic "FRCM"
 *    4       2     format version (1)
 *    6       2     reserved, 0
 *    8       8     width  (u64, >= 1)
 *    16      8     depth  (u64, >= 1)
 *    24      8     count  (u64; the signed total in two's complement)
 *    32      4*w*d cells, u32 each, row-major
 *
 * fr_cms_deserialize accepts exactly that: the right magic, version and
 * reserved bytes, non-zero dimensions, and a length of exactly 32 + 4*w*d.
 * There is no checksum: integrity is the transport's business.
 */
#define _POSIX_C_SOURCE 200809L /* sched_yield under -std=c99 */
#include "cms.h"

#include <stdlib.h>
#include <string.h>

#include "murmurhash2.h"

/* ---- Column selection ------------------------------------------------- */

/* Reciprocal for fr_fastmod (murmurhash2.h), or 0 when the width exceeds 32 bits
 * (then every 32-bit hash is already smaller than the width). */
static uint64_t cms_fastmod_init(size_t width) {
    if ((uint64_t)width <= 0xFFFFFFFFu) return fr_fastmod_init((uint32_t)width);
    return 0;
}

/* h mod c->width. */
static inline size_t cms_column(const fr_cms *c, uint32_t h) {
    if ((uint64_t)c->width > 0xFFFFFFFFu) return (size_t)h;
    return fr_fastmod(h, c->fastmod, (uint32_t)c->width);
}

/* ---- Lifetime ------------------------------------------------------------ */

/* Make c an empty width x depth sketch.  FR_CMS_EDIM for a zero dimension,
 * FR_CMS_ENOMEM when width*depth*4 does not fit size_t or calloc fails; on
 * error c owns nothing.  Release with fr_cms_release. */
int fr_cms_init(fr_cms *c, size_t width, size_t depth) {
    memset(c, 0, sizeof *c);
    if (width == 0 || depth == 0) return FR_CMS_EDIM;
    if (width > SIZE_MAX / depth || width * depth > SIZE_MAX / sizeof(uint32_t))
        return FR_CMS_ENOMEM;
    c->cells = (uint32_t *)calloc(width * depth, sizeof(uint32_t));
    if (!c->cells) return FR_CMS_ENOMEM;
    c->width = width;
    c->depth = depth;
    c->fastmod = cms_fastmod_init(width);
    return FR_CMS_OK;
}

/* Free c's cells; c becomes an empty shell (safe to release twice). */
void fr_cms_release(fr_cms *c) {
    free(c->cells);
    memset(c, 0, sizeof *c);
}

/* dst (uninitialised) becomes an independent copy of src. */
int fr_cms_copy(fr_cms *dst, const fr_cms *src) {
    int rc = fr_cms_init(dst, src->width, src->depth);
    if (rc != FR_CMS_OK) return rc;
    memcpy(dst->cells, src->cells, src->width * src->depth * sizeof(uint32_t));
    dst->count = src->count;
    return FR_CMS_OK;
}

/* ---- Counting -------------------------------------------------------- */

/* *cell += incr, saturating at 2^32 - 1; the new value. */
static inline uint32_t cms_sat_add(uint32_t *cell, uint64_t incr) {
    uint64_t s = (uint64_t)*cell + incr;
    if (s < incr || s > FR_CMS_SATURATED) s = FR_CMS_SATURATED;
    *cell = (uint32_t)s;
    return (uint32_t)s;
}

/* Row i's hash of an item with a prepared state (or its bytes). */
static inline uint32_t cms_row_hash(const fr_murmur2_state *st, int prepared, const void *item,
                                    size_t len, size_t row) {
    return prepared ? fr_murmur2_seeded(st, (uint32_t)row) : fr_murmur2(item, len, (uint32_t)row);
}

/* Add incr to item's cell in every row; the minimum of those cells after the
 * add (FR_CMS_SATURATED means RedisBloom's "INCRBY overflow"). */
uint32_t fr_cms_incrby(fr_cms *c, const void *item, size_t len, uint64_t incr) {
    uint32_t min = FR_CMS_SATURATED;
    fr_murmur2_state st;
    int prepared = fr_murmur2_prepare(&st, item, len);
    size_t i;
    for (i = 0; i < c->depth; i++) {
        size_t col = cms_column(c, cms_row_hash(&st, prepared, item, len, i));
        uint32_t v = cms_sat_add(&c->cells[i * c->width + col], incr);
        if (v < min) min = v;
    }
    c->count += incr;
    return min;
}

/* The estimate of item's total: the minimum of its cells (0 if never seen). */
uint32_t fr_cms_query(const fr_cms *c, const void *item, size_t len) {
    uint32_t min = FR_CMS_SATURATED;
    fr_murmur2_state st;
    int prepared = fr_murmur2_prepare(&st, item, len);
    size_t i;
    for (i = 0; i < c->depth; i++) {
        size_t col = cms_column(c, cms_row_hash(&st, prepared, item, len, i));
        uint32_t v = c->cells[i * c->width + col];
        if (v < min) min = v;
    }
    return min;
}

/* ---- Batch paths ---------------------------------------------------------
 * Items of a batch are either integers (int64 or uint64, hashed as their
 * decimal text, as redis-py sends ints) or byte strings given as pointer and
 * length arrays.  A batch may be limited to a run of rows [row0, row1): it
 * then touches only those rows' cells and reports per item the minimum over
 * those rows, so callers can split the rows of one batch between threads and
 * take the element-wise minimum of the parts.  Within its rows a batch goes
 * in blocks: first every cell address of the block is computed and
 * prefetched (independent work the CPU overlaps), then the block is applied
 * strictly in item order.  Every cell therefore sees the same increments in
 * the same order as calling fr_cms_incrby item by item, and the results are
 * exactly its results. */

typedef struct {
    const void *ints;         /* integer items, or NULL for byte strings */
    int is_unsigned;          /* ints are uint64 (else int64) */
    const char *const *ptrs;  /* byte-string items */
    const size_t *lens;
} cms_items;

#define FR_CMS_BLOCK_CELLS 512

/* Integers from -(10^7 - 1) to 10^8 - 1 have decimal texts of at most 8
 * bytes, built in one word (fr_dec8_word) and hashed without loops. */
#define FR_CMS_WORD_MAX 99999999
#define FR_CMS_WORD_MIN (-9999999)

/* Item j's bytes: a decimal text written into buf, or the caller's string. */
static inline const char *cms_item(const cms_items *src, size_t j, char *buf, size_t *len) {
    if (src->ints) {
        *len = src->is_unsigned ? fr_dec_u64(((const uint64_t *)src->ints)[j], 0, buf)
                                : fr_dec_i64(((const int64_t *)src->ints)[j], buf);
        return buf;
    }
    *len = src->lens[j];
    return src->ptrs[j];
}

/* If integer item j has a text of at most 8 bytes, prepare it in *w: 1;
 * else 0 (hash its text from cms_item). */
static inline int cms_int_word(const cms_items *src, size_t j, fr_murmur2_word *w) {
    uint32_t len;
    uint64_t text;
    if (src->is_unsigned) {
        uint64_t v = ((const uint64_t *)src->ints)[j];
        if (v > FR_CMS_WORD_MAX) return 0;
        text = fr_dec8_word((uint32_t)v, &len);
    } else {
        int64_t v = ((const int64_t *)src->ints)[j];
        if (v > FR_CMS_WORD_MAX || v < FR_CMS_WORD_MIN) return 0;
        if (v < 0) {
            text = (fr_dec8_word((uint32_t)-v, &len) << 8) | '-';
            len++;
        } else {
            text = fr_dec8_word((uint32_t)v, &len);
        }
    }
    fr_murmur2_word_prepare(w, text, len);
    return 1;
}

static inline void cms_prefetch(const void *p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1, 3);
#else
    (void)p;
#endif
}

/* Integer batches remember the cell addresses of recent items: streams
 * repeat their heavy items, and a repeat then skips its decimal text and
 * hashing.  A direct-mapped table keyed by the integer itself, of 2^bits
 * slots (about n / 8, at least 2^FR_CMS_MEMO_MIN_BITS, and no more than fit
 * in FR_CMS_MEMO_BYTES), allocated per call for batches of at least
 * FR_CMS_MEMO_MIN items over at most 8 rows whose cell addresses fit 32
 * bits.  An empty slot holds a key that hashes to another slot, so it never
 * matches.  Results are unchanged: a remembered address is the computed one.
 * (The sizes are measured: a bigger table misses less but falls out of the
 * caches, and its misses are mispredicted branches either way.) */
#define FR_CMS_MEMO_MIN 16384
#define FR_CMS_MEMO_MIN_BITS 11
#define FR_CMS_MEMO_BYTES ((size_t)2 << 20)
#define FR_CMS_MEMO_AHEAD 8
#define FR_CMS_MEMO_MUL 0x9E3779B97F4A7C15ull /* Fibonacci hashing of the key */

typedef struct {
    unsigned shift;  /* 64 - bits */
    size_t stride;   /* uint64 words per slot: the key, then rows 32-bit addresses */
    uint64_t *slots; /* 2^bits slots, each in one place (one cache line, mostly) */
} cms_memo;

static inline uint64_t *cms_memo_slot(const cms_memo *m, uint64_t key) {
    return m->slots + m->stride * (size_t)((key * FR_CMS_MEMO_MUL) >> m->shift);
}

/* Set up m for this batch: 1, or 0 (not worth it, not applicable, or no
 * memory: the batch then simply hashes every item). */
static int cms_memo_init(cms_memo *m, const fr_cms *c, const cms_items *src, size_t n, size_t rows) {
    unsigned bits = FR_CMS_MEMO_MIN_BITS;
    size_t slots;
    if (!src->ints || n < FR_CMS_MEMO_MIN || rows > 8) return 0;
    if ((uint64_t)c->width * c->depth > 0xFFFFFFFFu) return 0;
    m->stride = 1 + (rows + 1) / 2;
    while (((size_t)8 << bits) < n && ((size_t)2 << bits) * m->stride * 8 <= FR_CMS_MEMO_BYTES)
        bits++;
    slots = (size_t)1 << bits;
    m->shift = 64 - bits;
    m->slots = (uint64_t *)calloc(slots, m->stride * sizeof(uint64_t)); /* keys 0, addresses 0 */
    if (!m->slots) return 0;
    *cms_memo_slot(m, 0) = 1; /* key 0's slot; key 1 lands elsewhere */
    return 1;
}

/* One item over rows [row0, row1): incrby (update = 1) or query; the minimum
 * of its cells there after the add (FR_CMS_SATURATED when row0 == row1). */
static uint32_t cms_item_rows(fr_cms *c, const void *item, size_t len, uint64_t incr,
                              size_t row0, size_t row1, int update) {
    uint32_t min = FR_CMS_SATURATED;
    fr_murmur2_state st;
    int prepared = fr_murmur2_prepare(&st, item, len);
    size_t i;
    for (i = row0; i < row1; i++) {
        uint32_t *cell = &c->cells[i * c->width + cms_column(c, cms_row_hash(&st, prepared, item, len, i))];
        uint32_t v = update ? cms_sat_add(cell, incr) : *cell;
        if (v < min) min = v;
    }
    return min;
}

#if defined(__GNUC__) || defined(__clang__)
#define FR_CMS_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define FR_CMS_ALWAYS_INLINE inline
#endif

/* The batch entry points inline everything they call (GCC's flatten).
 * Without it GCC's budget for the whole file (--param inline-unit-growth)
 * ran out once the two-phase code was added, and fr_murmur2_seeds_from
 * stopped being inlined into the byte-string batches, which then ran
 * markedly slower (core-measurements.md, "Count-Min Sketch inlining"). */
#if defined(__GNUC__) && !defined(__clang__)
#define FR_CMS_FLATTEN __attribute__((flatten))
#else
#define FR_CMS_FLATTEN
#endif

/* The cell addresses of item j in rows row0 .. row0 + rows - 1 into a[],
 * each prefetched. */
static FR_CMS_ALWAYS_INLINE void cms_addresses(const fr_cms *c, const cms_items *src, size_t j,
                                               size_t row0, size_t rows, int pow2, size_t *a) {
    char buf[FR_DEC_MAX];
    fr_murmur2_state st;
    fr_murmur2_word word;
    uint32_t hashes[FR_CMS_BLOCK_CELLS];
    const size_t width = c->width;
    size_t i, base, len;
    if (src->ints && cms_int_word(src, j, &word)) {
        for (i = 0; i < rows; i++) hashes[i] = fr_murmur2_word_seeded(&word, (uint32_t)(row0 + i));
    } else {
        const char *p = cms_item(src, j, buf, &len);
        if (fr_murmur2_prepare(&st, p, len)) {
            fr_murmur2_seeds_from(&st, (uint32_t)row0, (uint32_t)rows, hashes);
        } else {
            for (i = 0; i < rows; i++) hashes[i] = fr_murmur2(p, len, (uint32_t)(row0 + i));
        }
    }
    for (i = 0, base = row0 * width; i < rows; i++, base += width) {
        a[i] = base + (pow2 ? (hashes[i] & (width - 1)) : cms_column(c, hashes[i]));
        cms_prefetch(&c->cells[a[i]]);
    }
}

/* The batch worker over rows [row0, row1): incrby (update = 1) or query
 * (update = 0, then c is not written).  Never touches c->count.  out may be
 * NULL for incrby.  fixed_rows is row1 - row0 when the caller knows it at
 * compile time (0 otherwise), so the loops over rows unroll.  Always
 * inlined, so each entry point gets its own copy specialised for its item
 * kind, mode and row count.
 *
 * With a memo, a block's addresses come in two passes with no branch on
 * hit or miss (they mix unpredictably): every item copies its slot's
 * addresses, and the items whose slot held another key are listed; then
 * only those are hashed, overwriting the copy, and remembered. */
static FR_CMS_ALWAYS_INLINE void cms_batch(fr_cms *c, const cms_items *src, size_t n,
                                           const uint64_t *incrs, uint64_t incr1, size_t row0,
                                           size_t row1, uint32_t *out, int update,
                                           size_t fixed_rows) {
    char buf[FR_DEC_MAX];
    size_t at[FR_CMS_BLOCK_CELLS];
    uint32_t missed[FR_CMS_BLOCK_CELLS];
    const size_t rows = fixed_rows ? fixed_rows : row1 - row0;
    const int pow2 = (c->width & (c->width - 1)) == 0; /* hash mod width is a mask */
    const size_t block = rows <= FR_CMS_BLOCK_CELLS ? FR_CMS_BLOCK_CELLS / rows : 0;
    const uint64_t *keys = (const uint64_t *)src->ints;
    const size_t stride = 1 + (rows + 1) / 2; /* cms_memo_init's, known at compile time */
    uint64_t *mslots;
    unsigned mshift;
    uint32_t *cells = c->cells;
    cms_memo memo;
    int use_memo;
    size_t j0, j, i;
    if (rows == 0) return;
    if (block == 0) { /* very deep sketches: item by item */
        for (j = 0; j < n; j++) {
            size_t len;
            const char *p = cms_item(src, j, buf, &len);
            uint32_t r = cms_item_rows(c, p, len, incrs ? incrs[j] : incr1, row0, row1, update);
            if (out) out[j] = r;
        }
        return;
    }
    use_memo = cms_memo_init(&memo, c, src, n, rows);
    /* the memo's fields in locals: stores to cells could alias them */
    mslots = memo.slots;
    mshift = memo.shift;
    for (j0 = 0; j0 < n; j0 += block) {
        const size_t end = j0 + block < n ? j0 + block : n;
        size_t *a = at;
        if (use_memo) {
            size_t nmiss = 0, m;
            for (j = j0; j < end; j++, a += rows) {
                const uint64_t *slot = mslots + stride * (size_t)((keys[j] * FR_CMS_MEMO_MUL) >> mshift);
                const uint32_t *off = (const uint32_t *)(slot + 1);
                if (j + FR_CMS_MEMO_AHEAD < n) /* the table outgrows L2: load slots early */
                    cms_prefetch(mslots + stride * (size_t)((keys[j + FR_CMS_MEMO_AHEAD] * FR_CMS_MEMO_MUL) >> mshift));
                for (i = 0; i < rows; i++) {
                    a[i] = off[i];
                    cms_prefetch(&cells[a[i]]);
                }
                missed[nmiss] = (uint32_t)(j - j0);
                nmiss += *slot != keys[j];
            }
            for (m = 0; m < nmiss; m++) {
                uint64_t *slot;
                uint32_t *off;
                j = j0 + missed[m];
                a = at + missed[m] * rows;
                cms_addresses(c, src, j, row0, rows, pow2, a);
                slot = mslots + stride * (size_t)((keys[j] * FR_CMS_MEMO_MUL) >> mshift);
                off = (uint32_t *)(slot + 1);
                *slot = keys[j];
                for (i = 0; i < rows; i++) off[i] = (uint32_t)a[i];
            }
        } else {
            for (j = j0; j < end; j++, a += rows) cms_addresses(c, src, j, row0, rows, pow2, a);
        }
        a = at;
        for (j = j0; j < end; j++, a += rows) {
            uint32_t min = FR_CMS_SATURATED;
            if (update) {
                /* any increment >= 2^32 - 1 saturates: clamp it, then one
                 * compare per cell saturates exactly as cms_sat_add does */
                const uint64_t incr = incrs ? incrs[j] : incr1;
                const uint64_t inc = incr < FR_CMS_SATURATED ? incr : FR_CMS_SATURATED;
                for (i = 0; i < rows; i++) {
                    uint64_t s = (uint64_t)cells[a[i]] + inc;
                    uint32_t v = s < FR_CMS_SATURATED ? (uint32_t)s : FR_CMS_SATURATED;
                    cells[a[i]] = v;
                    if (v < min) min = v;
                }
            } else {
                for (i = 0; i < rows; i++) {
                    uint32_t v = cells[a[i]];
                    if (v < min) min = v;
                }
            }
            if (out) out[j] = min;
        }
    }
    if (use_memo) free(mslots);
}

/* cms_batch with the row count fixed at compile time for runs of 1 to 4
 * rows (the common depths, and the halves of a split depth), else generic;
 * and with "one increment for all" known at compile time too. */
#define FR_CMS_BATCH_ROWS(incrs_)                                                       \
    switch (row1 - row0) {                                                             \
    case 1: cms_batch(c, src, n, incrs_, incr1, row0, row1, out, update, 1); break;    \
    case 2: cms_batch(c, src, n, incrs_, incr1, row0, row1, out, update, 2); break;    \
    case 3: cms_batch(c, src, n, incrs_, incr1, row0, row1, out, update, 3); break;    \
    case 4: cms_batch(c, src, n, incrs_, incr1, row0, row1, out, update, 4); break;    \
    default: cms_batch(c, src, n, incrs_, incr1, row0, row1, out, update, 0); break;   \
    }

static FR_CMS_ALWAYS_INLINE void cms_batch_rows(fr_cms *c, const cms_items *src, size_t n,
                                                const uint64_t *incrs, uint64_t incr1,
                                                size_t row0, size_t row1, uint32_t *out,
                                                int update) {
    if (incrs) {
        FR_CMS_BATCH_ROWS(incrs)
    } else {
        FR_CMS_BATCH_ROWS(NULL)
    }
}

/* c->count += the batch's increments (mod 2^64, as one by one). */
void fr_cms_add_count(fr_cms *c, size_t n, const uint64_t *incrs, uint64_t incr1) {
    uint64_t sum = 0;
    size_t j;
    if (!incrs) {
        c->count += (uint64_t)n * incr1;
        return;
    }
    for (j = 0; j < n; j++) sum += incrs[j];
    c->count += sum;
}

/* incrby of n integer items (int64, or uint64 when is_unsigned), hashed as
 * their decimal text; increments incrs[j], or incr1 for all when incrs is
 * NULL; out (may be NULL) receives fr_cms_incrby's result per item. */
void fr_cms_incrby_ints(fr_cms *c, const void *items, int is_unsigned, size_t n,
                        const uint64_t *incrs, uint64_t incr1, uint32_t *out) {
    fr_cms_incrby_ints_rows(c, items, is_unsigned, n, incrs, incr1, 0, c->depth, out);
    fr_cms_add_count(c, n, incrs, incr1);
}

/* fr_cms_incrby_ints restricted to rows [row0, row1) (row0 < row1 <= depth):
 * out gets the minimum over those rows; c->count is left unchanged. */
FR_CMS_FLATTEN void fr_cms_incrby_ints_rows(fr_cms *c, const void *items, int is_unsigned, size_t n,
                             const uint64_t *incrs, uint64_t incr1, size_t row0, size_t row1,
                             uint32_t *out) {
    cms_items src = {items, is_unsigned, NULL, NULL};
    cms_batch_rows(c, &src, n, incrs, incr1, row0, row1, out, 1);
}

/* query of n integer items (as fr_cms_incrby_ints) into out. */
FR_CMS_FLATTEN void fr_cms_query_ints(const fr_cms *c, const void *items, int is_unsigned, size_t n,
                       uint32_t *out) {
    cms_items src = {items, is_unsigned, NULL, NULL};
    cms_batch_rows((fr_cms *)c, &src, n, NULL, 0, 0, c->depth, out, 0); /* update = 0 writes nothing */
}

/* incrby of n byte strings items[j][0..lens[j]) (same contract otherwise). */
FR_CMS_FLATTEN void fr_cms_incrby_strs(fr_cms *c, const char *const *items, const size_t *lens, size_t n,
                        const uint64_t *incrs, uint64_t incr1, uint32_t *out) {
    cms_items src = {NULL, 0, items, lens};
    cms_batch_rows(c, &src, n, incrs, incr1, 0, c->depth, out, 1);
    fr_cms_add_count(c, n, incrs, incr1);
}

/* query of n byte strings into out. */
FR_CMS_FLATTEN void fr_cms_query_strs(const fr_cms *c, const char *const *items, const size_t *lens, size_t n,
                       uint32_t *out) {
    cms_items src = {NULL, 0, items, lens};
    cms_batch_rows((fr_cms *)c, &src, n, NULL, 0, 0, c->depth, out, 0);
}

/* ---- Two phases per block, on several threads ---------------------------
 * fr_cms_incrby_ints_rows splits a batch by rows, so every thread converts
 * and hashes every item.  A "par" run splits the hashing instead: the batch
 * goes in blocks of B items, each in two phases,
 *   phase 1, split by ITEMS: the cell offsets (32-bit) of every row of a
 *     range of the block's items go into the block's buffer, row by row; no
 *     cell is touched (each thread has its own memo, cms_memo);
 *   phase 2, split by ROWS: a group of rows applies the whole block in item
 *     order from the buffer, and writes each item's minimum over its rows
 *     (group 0 into out, the others into their own buffers).
 * Every cell therefore sees exactly the increments, in the order, of one
 * thread, and out[j] is the minimum over the groups (taken by phase 1 of
 * block b + 2 for its item range, and at the end for the last two blocks).
 * Two buffers let phase 1 of block b + 1 run while phase 2 of block b does.
 *
 * The work is a list of tasks, in order: block 0's phase-1 units, its
 * phase-2 groups, block 1's ..., and every thread (the caller and its
 * helpers, fr_cms_par_run) claims the next task from a shared counter and
 * first waits for what it needs: a phase-1 unit of block b for phase 2 of
 * block b - 2 (buffer reuse), a group of block b for phase 1 of block b and
 * for the same group of block b - 1.  Tasks only wait for earlier tasks,
 * all claimed by running threads, so nothing deadlocks; a helper that never
 * gets a CPU leaves the caller to claim everything (one-thread speed); a
 * helper descheduled mid-task delays the caller by at most that task.
 * Waits spin briefly, then yield the CPU.  (A TopK-like fallback -- the
 * caller stops the helper after waiting a quarter of its time -- measured
 * slower with a CPU hog, so there is none; under two hogs both two-thread
 * paths, by rows or in phases, fall below one thread.)  Block size and
 * units made no measurable difference over the range tried; a memo per
 * thread in phase 1 matters.  Figures for all of these:
 * core-measurements.md, "Count-Min Sketch threads".  Built with GCC or Clang (atomics)
 * on POSIX systems; elsewhere fr_cms_par_new returns NULL and the caller
 * splits by rows instead. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#include <sched.h>

#define FR_CMS_PAR_BLOCK 32768 /* items per block, by default */
#define FR_CMS_PAR_UNITS 4     /* phase-1 units per block */
#define FR_CMS_PAR_THREADS 8   /* most threads (roles) */
#define FR_CMS_PAR_GROUPS 8    /* most row groups */

struct fr_cms_par {
    fr_cms *c;
    cms_items src;
    size_t n;
    const uint64_t *incrs;
    uint64_t incr1;
    uint32_t *out;
    size_t block, nblocks, groups, tasks;
    uint32_t *off[2];  /* depth * block offsets each, row-major */
    uint32_t *mins[2]; /* (groups - 1) * block minima each, or NULL without out */
    size_t next;       /* the next task to claim */
    size_t p1_done;    /* phase-1 units done, over all blocks */
    size_t gdone[FR_CMS_PAR_GROUPS]; /* blocks group g has applied */
    cms_memo memo[FR_CMS_PAR_THREADS];
    int use_memo[FR_CMS_PAR_THREADS];
};

static inline void cms_par_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Wait until *ctr >= want. */
static void cms_par_wait(size_t *ctr, size_t want) {
    unsigned spins = 0;
    while (__atomic_load_n(ctr, __ATOMIC_ACQUIRE) < want) {
        if (++spins < 2048) cms_par_relax();
        else sched_yield();
    }
}

/* Rows [g * depth / groups, (g + 1) * depth / groups) form group g. */
static inline size_t cms_par_row(const fr_cms_par *p, size_t g) {
    return g * p->c->depth / p->groups;
}

/* The cell offsets of integer item j in every row into a[], for phase 1's
 * misses: as cms_addresses, but not inlined, and hashing long texts row by
 * row (fr_murmur2_seeded) -- calling fr_murmur2_seeds_from from here made
 * GCC inline it less in the byte-string batches, which ran slower. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static void cms_par_addresses(const fr_cms *c, const cms_items *src, size_t j, int pow2, size_t *a) {
    char buf[FR_DEC_MAX];
    fr_murmur2_state st;
    fr_murmur2_word word;
    const size_t width = c->width, rows = c->depth;
    size_t i, len;
    uint32_t h;
    if (cms_int_word(src, j, &word)) {
        for (i = 0; i < rows; i++) {
            h = fr_murmur2_word_seeded(&word, (uint32_t)i);
            a[i] = i * width + (pow2 ? (h & (width - 1)) : cms_column(c, h));
        }
    } else {
        const char *p = cms_item(src, j, buf, &len);
        const int prepared = fr_murmur2_prepare(&st, p, len);
        for (i = 0; i < rows; i++) {
            h = cms_row_hash(&st, prepared, p, len, i);
            a[i] = i * width + (pow2 ? (h & (width - 1)) : cms_column(c, h));
        }
    }
}

/* Phase 1 for items [j0 + a, j0 + e) of the block at j0: offsets into off
 * (row r of item j0 + x at off[r * block + x]). */
static FR_CMS_ALWAYS_INLINE void cms_par_offsets(fr_cms_par *p, int role, size_t j0, size_t a,
                                                 size_t e, uint32_t *off, size_t fixed_rows) {
    const fr_cms *c = p->c;
    const size_t rows = fixed_rows ? fixed_rows : c->depth;
    const size_t block = p->block;
    const int pow2 = (c->width & (c->width - 1)) == 0;
    const uint64_t *keys = (const uint64_t *)p->src.ints;
    const size_t stride = 1 + (rows + 1) / 2;
    size_t at[FR_CMS_BLOCK_CELLS];
    uint32_t missed[FR_CMS_BLOCK_CELLS];
    const size_t sub = FR_CMS_BLOCK_CELLS / rows;
    size_t x0, x, i;
    for (x0 = a; x0 < e; x0 += sub) {
        const size_t xe = x0 + sub < e ? x0 + sub : e;
        if (p->use_memo[role]) {
            const uint64_t *mslots = p->memo[role].slots;
            const unsigned mshift = p->memo[role].shift;
            size_t nmiss = 0, m;
            for (x = x0; x < xe; x++) {
                const size_t j = j0 + x;
                const uint64_t *slot = mslots + stride * (size_t)((keys[j] * FR_CMS_MEMO_MUL) >> mshift);
                const uint32_t *o = (const uint32_t *)(slot + 1);
                if (j + FR_CMS_MEMO_AHEAD < p->n)
                    cms_prefetch(mslots + stride * (size_t)((keys[j + FR_CMS_MEMO_AHEAD] * FR_CMS_MEMO_MUL) >> mshift));
                for (i = 0; i < rows; i++) off[i * block + x] = o[i];
                missed[nmiss] = (uint32_t)x;
                nmiss += *slot != keys[j];
            }
            for (m = 0; m < nmiss; m++) {
                uint64_t *slot;
                uint32_t *o;
                const size_t j = j0 + missed[m];
                cms_par_addresses(c, &p->src, j, pow2, at);
                slot = (uint64_t *)mslots + stride * (size_t)((keys[j] * FR_CMS_MEMO_MUL) >> mshift);
                o = (uint32_t *)(slot + 1);
                *slot = keys[j];
                for (i = 0; i < rows; i++) {
                    o[i] = (uint32_t)at[i];
                    off[i * block + missed[m]] = (uint32_t)at[i];
                }
            }
        } else {
            for (x = x0; x < xe; x++) {
                cms_par_addresses(c, &p->src, j0 + x, pow2, at);
                for (i = 0; i < rows; i++) off[i * block + x] = (uint32_t)at[i];
            }
        }
    }
}

static void cms_par_phase1(fr_cms_par *p, int role, size_t j0, size_t a, size_t e, uint32_t *off) {
    switch (p->c->depth) {
    case 2: cms_par_offsets(p, role, j0, a, e, off, 2); break;
    case 3: cms_par_offsets(p, role, j0, a, e, off, 3); break;
    case 4: cms_par_offsets(p, role, j0, a, e, off, 4); break;
    default: cms_par_offsets(p, role, j0, a, e, off, 0); break;
    }
}

/* Phase 2: rows [r0, r0 + rows) apply items [j0, j0 + len) from off; each
 * item's minimum over them into mins (may be NULL). */
static FR_CMS_ALWAYS_INLINE void cms_par_apply(fr_cms_par *p, size_t j0, size_t len,
                                               const uint32_t *off, size_t r0, size_t r1,
                                               uint32_t *mins, size_t fixed_rows) {
    uint32_t *cells = p->c->cells;
    const size_t rows = fixed_rows ? fixed_rows : r1 - r0;
    const size_t block = p->block;
    const uint64_t *incrs = p->incrs ? p->incrs + j0 : NULL;
    const uint64_t inc1 = p->incr1 < FR_CMS_SATURATED ? p->incr1 : FR_CMS_SATURATED;
    const uint32_t *o = off + r0 * block;
    size_t x, i;
    for (x = 0; x < len; x++) {
        uint32_t min = FR_CMS_SATURATED;
        uint64_t inc = inc1;
        if (incrs) inc = incrs[x] < FR_CMS_SATURATED ? incrs[x] : FR_CMS_SATURATED;
        if (x + 16 < len)
            for (i = 0; i < rows; i++) cms_prefetch(&cells[o[i * block + x + 16]]);
        for (i = 0; i < rows; i++) {
            const uint32_t a = o[i * block + x];
            uint64_t s = (uint64_t)cells[a] + inc;
            uint32_t v = s < FR_CMS_SATURATED ? (uint32_t)s : FR_CMS_SATURATED;
            cells[a] = v;
            if (v < min) min = v;
        }
        if (mins) mins[x] = min;
    }
}

static void cms_par_phase2(fr_cms_par *p, size_t j0, size_t len, const uint32_t *off, size_t r0,
                           size_t r1, uint32_t *mins) {
#define FR_CMS_PAR_APPLY(fixed) cms_par_apply(p, j0, len, off, r0, r1, mins, fixed);
    switch (r1 - r0) {
    case 1: FR_CMS_PAR_APPLY(1) break;
    case 2: FR_CMS_PAR_APPLY(2) break;
    case 3: FR_CMS_PAR_APPLY(3) break;
    case 4: FR_CMS_PAR_APPLY(4) break;
    default: FR_CMS_PAR_APPLY(0) break;
    }
#undef FR_CMS_PAR_APPLY
}

/* out[j0 + a .. j0 + e) = the minimum over the groups, for the block at j0
 * whose other groups' minima are in mins. */
static void cms_par_finish(fr_cms_par *p, size_t j0, size_t a, size_t e, const uint32_t *mins) {
    size_t g, x;
    for (g = 1; g < p->groups; g++) {
        const uint32_t *m = mins + (g - 1) * p->block;
        uint32_t *o = p->out + j0;
        for (x = a; x < e; x++) o[x] = m[x] < o[x] ? m[x] : o[x];
    }
}

static inline size_t cms_par_len(const fr_cms_par *p, size_t b) {
    size_t j0 = b * p->block;
    return p->n - j0 < p->block ? p->n - j0 : p->block;
}

/* A par run of fr_cms_incrby_ints (arguments as there, block 0 for the
 * default) with its rows in `groups` groups (2 <= groups <= depth), for up
 * to FR_CMS_PAR_THREADS threads; or NULL (not built here, a sketch this
 * method does not handle, or no memory): split by rows instead.  Each
 * thread then calls fr_cms_par_run with its own role (the caller 0, helpers
 * 1, 2, ...); the caller's call returns once the whole batch is applied
 * except the count (fr_cms_add_count); free with fr_cms_par_free after
 * every call has returned. */
fr_cms_par *fr_cms_par_new(fr_cms *c, const void *items, int is_unsigned, size_t n,
                           const uint64_t *incrs, uint64_t incr1, uint32_t *out, size_t groups,
                           size_t block) {
    fr_cms_par *p;
    int k;
    if (groups < 2 || groups > c->depth || groups > FR_CMS_PAR_GROUPS) return NULL;
    if (c->depth > FR_CMS_BLOCK_CELLS || (uint64_t)c->width * c->depth > 0xFFFFFFFFu) return NULL;
    p = (fr_cms_par *)calloc(1, sizeof *p);
    if (!p) return NULL;
    p->c = c;
    p->src.ints = items;
    p->src.is_unsigned = is_unsigned;
    p->n = n;
    p->incrs = incrs;
    p->incr1 = incr1;
    p->out = out;
    p->block = block ? block : FR_CMS_PAR_BLOCK;
    p->nblocks = (n + p->block - 1) / p->block;
    p->groups = groups;
    p->tasks = p->nblocks * (FR_CMS_PAR_UNITS + groups);
    for (k = 0; k < 2; k++) {
        p->off[k] = (uint32_t *)malloc(c->depth * p->block * sizeof(uint32_t));
        if (out) p->mins[k] = (uint32_t *)malloc((groups - 1) * p->block * sizeof(uint32_t));
        if (!p->off[k] || (out && !p->mins[k])) {
            fr_cms_par_free(p);
            return NULL;
        }
    }
    return p;
}

void fr_cms_par_free(fr_cms_par *p) {
    int k;
    if (!p) return;
    for (k = 0; k < 2; k++) {
        free(p->off[k]);
        free(p->mins[k]);
    }
    for (k = 0; k < FR_CMS_PAR_THREADS; k++)
        if (p->use_memo[k]) free(p->memo[k].slots);
    free(p);
}

/* One thread's part of a par run (see fr_cms_par_new). */
void fr_cms_par_run(fr_cms_par *p, int role) {
    const size_t per = FR_CMS_PAR_UNITS + p->groups;
    size_t t, g;
    if (role < 0 || role >= FR_CMS_PAR_THREADS) return; /* more helpers than memos: not needed */
    if (role != 0 && __atomic_load_n(&p->next, __ATOMIC_RELAXED) >= p->tasks) return; /* too late */
    p->use_memo[role] = cms_memo_init(&p->memo[role], p->c, &p->src, p->n, p->c->depth);
    while ((t = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->tasks) {
        const size_t b = t / per, u = t % per, j0 = b * p->block, len = cms_par_len(p, b);
        uint32_t *off = p->off[b & 1];
        uint32_t *mins = p->mins[b & 1];
        if (u < FR_CMS_PAR_UNITS) { /* phase 1 */
            const size_t a = u * len / FR_CMS_PAR_UNITS, e = (u + 1) * len / FR_CMS_PAR_UNITS;
            if (b >= 2) {
                for (g = 0; g < p->groups; g++) cms_par_wait(&p->gdone[g], b - 1);
                if (p->out) /* block b - 2, a full block */
                    cms_par_finish(p, j0 - 2 * p->block, u * p->block / FR_CMS_PAR_UNITS,
                                   (u + 1) * p->block / FR_CMS_PAR_UNITS, mins);
            }
            cms_par_phase1(p, role, j0, a, e, off);
            __atomic_fetch_add(&p->p1_done, 1, __ATOMIC_RELEASE);
        } else { /* phase 2 */
            g = u - FR_CMS_PAR_UNITS;
            cms_par_wait(&p->p1_done, (b + 1) * FR_CMS_PAR_UNITS);
            cms_par_wait(&p->gdone[g], b);
            cms_par_phase2(p, j0, len, off, cms_par_row(p, g), cms_par_row(p, g + 1),
                           !p->out ? NULL : g == 0 ? p->out + j0 : mins + (g - 1) * p->block);
            __atomic_store_n(&p->gdone[g], b + 1, __ATOMIC_RELEASE);
        }
    }
    if (role != 0) return;
    for (g = 0; g < p->groups; g++) cms_par_wait(&p->gdone[g], p->nblocks);
    if (p->out) {
        size_t b = p->nblocks >= 2 ? p->nblocks - 2 : 0;
        for (; b < p->nblocks; b++) cms_par_finish(p, b * p->block, 0, cms_par_len(p, b), p->mins[b & 1]);
    }
}
#else
fr_cms_par *fr_cms_par_new(fr_cms *c, const void *items, int is_unsigned, size_t n,
                           const uint64_t *incrs, uint64_t incr1, uint32_t *out, size_t groups,
                           size_t block) {
    (void)c, (void)items, (void)is_unsigned, (void)n, (void)incrs, (void)incr1, (void)out;
    (void)groups, (void)block;
    return NULL;
}
void fr_cms_par_free(fr_cms_par *p) { (void)p; }
void fr_cms_par_run(fr_cms_par *p, int role) { (void)p, (void)role; }
#endif

/* ---- Merge ------------------------------------------------------------ */

/* *acc += a * b in int64; 0 if the product or the sum overflows. */
static int cms_mul_add(int64_t *acc, int64_t a, int64_t b) {
    int64_t p;
#if defined(__GNUC__) || defined(__clang__)
    if (__builtin_mul_overflow(a, b, &p)) return 0;
    if (__builtin_add_overflow(*acc, p, acc)) return 0;
    return 1;
#else
    if (a != 0 && b != 0) {
        if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a)
                  : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b))
            return 0;
    }
    p = a * b;
    if ((p > 0 && *acc > INT64_MAX - p) || (p < 0 && *acc < INT64_MIN - p)) return 0;
    *acc += p;
    return 1;
#endif
}

/* Cell `at` of the merge, or 0 (with *ok = 0) if it leaves [0, 2^32 - 1]. */
static uint32_t cms_merged_cell(const fr_cms *const *srcs, const int64_t *w, size_t n,
                                size_t at, int *ok) {
    int64_t acc = 0;
    size_t k;
    for (k = 0; k < n; k++) {
        if (!cms_mul_add(&acc, w[k], (int64_t)srcs[k]->cells[at])) {
            *ok = 0;
            return 0;
        }
    }
    if (acc < 0 || acc > (int64_t)FR_CMS_SATURATED) {
        *ok = 0;
        return 0;
    }
    return (uint32_t)acc;
}

/* dst = sum_k weights[k] * srcs[k] (cells and count), as CMS.MERGE.
 * Preconditions: n >= 1; dst may be one of srcs.  FR_CMS_ESHAPE if a source
 * differs in width or depth, FR_CMS_EOVERFLOW if any multiply/add leaves
 * int64, any cell leaves [0, 2^32 - 1] or the count is negative.  On error
 * nothing has been written. */
int fr_cms_merge(fr_cms *dst, const fr_cms *const *srcs, const int64_t *weights, size_t n) {
    size_t k, at, cells = dst->width * dst->depth;
    int64_t count = 0;
    int ok = 1;
    for (k = 0; k < n; k++)
        if (srcs[k]->width != dst->width || srcs[k]->depth != dst->depth) return FR_CMS_ESHAPE;
    for (k = 0; k < n; k++)
        if (!cms_mul_add(&count, weights[k], (int64_t)srcs[k]->count)) return FR_CMS_EOVERFLOW;
    if (count < 0) return FR_CMS_EOVERFLOW;
    for (at = 0; at < cells && ok; at++) cms_merged_cell(srcs, weights, n, at, &ok);
    if (!ok) return FR_CMS_EOVERFLOW;
    /* All cells are known to be in range: write them. */
    for (at = 0; at < cells; at++) dst->cells[at] = cms_merged_cell(srcs, weights, n, at, &ok);
    dst->count = (uint64_t)count;
    return FR_CMS_OK;
}

/* ---- Serialized form (layout in the essay above) -------------------------- */

static void put_le(unsigned char *p, uint64_t v, int bytes) {
    int i;
    for (i = 0; i < bytes; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    int i;
    for (i = bytes - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Bytes fr_cms_serialize writes for c. */
size_t fr_cms_serialized_size(const fr_cms *c) {
    return FR_CMS_HEADER + c->width * c->depth * sizeof(uint32_t);
}

/* Write fr_cms_serialized_size(c) bytes to out. */
void fr_cms_serialize(const fr_cms *c, unsigned char *out) {
    size_t at, cells = c->width * c->depth;
    memcpy(out, "FRCM", 4);
    put_le(out + 4, FR_CMS_VERSION, 2);
    put_le(out + 6, 0, 2);
    put_le(out + 8, (uint64_t)c->width, 8);
    put_le(out + 16, (uint64_t)c->depth, 8);
    put_le(out + 24, c->count, 8);
    out += FR_CMS_HEADER;
    for (at = 0; at < cells; at++) put_le(out + 4 * at, c->cells[at], 4);
}

/* c (uninitialised) becomes the sketch serialized in buf[0..len).
 * FR_CMS_EFORMAT if buf is not exactly a version-1 serialization,
 * FR_CMS_ENOMEM if the cells cannot be allocated; on error c owns nothing. */
int fr_cms_deserialize(fr_cms *c, const unsigned char *buf, size_t len) {
    uint64_t w, d;
    size_t at, cells;
    int rc;
    memset(c, 0, sizeof *c);
    if (len < FR_CMS_HEADER || memcmp(buf, "FRCM", 4) != 0) return FR_CMS_EFORMAT;
    if (get_le(buf + 4, 2) != FR_CMS_VERSION || get_le(buf + 6, 2) != 0) return FR_CMS_EFORMAT;
    w = get_le(buf + 8, 8);
    d = get_le(buf + 16, 8);
    if (w == 0 || d == 0 || w > SIZE_MAX || d > SIZE_MAX) return FR_CMS_EFORMAT;
    if (w > (SIZE_MAX - FR_CMS_HEADER) / 4 / d) return FR_CMS_EFORMAT;
    cells = (size_t)w * (size_t)d;
    if (len != FR_CMS_HEADER + 4 * cells) return FR_CMS_EFORMAT;
    rc = fr_cms_init(c, (size_t)w, (size_t)d);
    if (rc != FR_CMS_OK) return rc;
    c->count = get_le(buf + 24, 8);
    buf += FR_CMS_HEADER;
    for (at = 0; at < cells; at++) c->cells[at] = (uint32_t)get_le(buf + 4 * at, 4);
    return FR_CMS_OK;
}
