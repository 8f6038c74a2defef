/* zset.h -- the sorted set of fastrank: a skip list with rank spans plus a
 * member -> node hash index, in plain C99 (no Python).
 *
 * THE SHAPE IN ONE PARAGRAPH
 * --------------------------
 * A set (fr_zset) owns one growable ARENA of 8-byte units.  Every node (and
 * the 32-level header node) lives in the arena and is named by a 32-bit
 * reference: its offset in units (fr_zset_ref; 0 is "no node").  Links, the
 * backward pointer and the hash index all store these 4-byte references
 * instead of 8-byte pointers, which is what keeps a member with a 9-byte id
 * at about 48 bytes in total.  Because the arena may move when it grows, a
 * C pointer to a node (FR_ZSET_N) is valid only until the next allocation; code
 * that keeps a node across calls keeps its fr_zset_ref.
 *
 * A NODE (all little fields first, then three variable parts):
 *
 *     0       8        12      13     14      16
 *     +-------+--------+-------+------+-------+------------------+-------------------+--------+
 *     | score |backward| level | mlen | units | fwd[0..level)    | span[1..level)    | member |
 *     | f64   | u32 ref| u8    | u8   | u16   | u32 refs         | u32 level-0 steps | bytes  |
 *     +-------+--------+-------+------+-------+------------------+-------------------+--------+
 *
 *   - span[i] (i >= 1) counts the level-0 steps the level-i link skips; the
 *     level-0 span is always 1 and is not stored.  A NIL link's span is the
 *     number of nodes after this one (as in Redis).  Spans are 32-bit: a set
 *     holds at most 2^32 - 1 members (the 32-bit arena offsets already limit
 *     it to about 10^9 members / 32 GiB of nodes).
 *   - mlen 0..254: the member is inline; mlen 255 (FR_ZSET_LONG): a fr_zset_ext
 *     {length, malloc'd pointer} sits where the member would be.
 *   - units: the node's size in 8-byte units, so a freed node can be reused
 *     by the free list of its size class and the arena can be walked.
 *     A freed node has level 0 and links the free list through `backward`.
 *   - Between nodes the arena may hold PAD chunks (1..7 units whose first
 *     8 bytes are a NaN tag with the length), so that no node's links
 *     straddle a cache line; see fr_zset_pad_units in zset.c.
 *
 * See zset.c for the algorithms and where they depart from Redis.
 */
#ifndef FASTRANK_ZSET_H
#define FASTRANK_ZSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FR_ZSET_MAXLEVEL 32
#define FR_ZSET_INLINE_MAX 254u    /* longest member stored inside its node */
#define FR_ZSET_LONG 255u          /* mlen value: member stored out of line */
#define FR_ZSET_MAX_UNITS 66u      /* largest node in units (level 32, 254-byte member) */

/* add() flags, as ZADD's */
#define FR_ZSET_NX 1
#define FR_ZSET_XX 2
#define FR_ZSET_GT 4
#define FR_ZSET_LT 8

typedef uint32_t fr_zset_ref;
#define FR_ZSET_NIL ((fr_zset_ref)0)
#define FR_ZSET_HEAD ((fr_zset_ref)1)

typedef struct fr_zset_node {
    double score;
    fr_zset_ref backward;   /* previous node, FR_ZSET_NIL for the first */
    uint8_t level;      /* 1..32; 0 marks a free chunk */
    uint8_t mlen;       /* inline member length or FR_ZSET_LONG */
    uint16_t units;     /* size of this chunk in 8-byte units */
    fr_zset_ref fwd[];      /* fwd[level], span[level - 1], member */
} fr_zset_node;

/* An out-of-line member (longer than FR_ZSET_INLINE_MAX bytes). */
typedef struct fr_zset_ext {
    size_t len;
    char *ptr;
} fr_zset_ext;

typedef struct fr_zset {
    char *arena;        /* unit u is at arena + 8u; unit 0 is unused */
    uint64_t top;       /* units handed out (high-water mark) */
    uint64_t cap;       /* units allocated */
    fr_zset_ref freelist[FR_ZSET_MAX_UNITS + 1]; /* freed chunks by size */
    uint64_t *slots;    /* hash index: (tag << 32) | ref, 0 = empty */
    uint64_t nslots;
    uint64_t hcount;    /* entries in the index (== length outside bulk mode) */
    uint64_t length;    /* members linked in the list */
    fr_zset_ref tail;
    int level;          /* highest level in use, >= 1 */
    int bulk;           /* inside fr_zset_bulk_begin .. fr_zset_bulk_end */
    uint64_t rng;       /* level generator state (splitmix64) */
    uint64_t seed;      /* hash seed */
    uint64_t version;   /* bumped by every change (iterators check it) */
    /* The rank a write just learned: node hint_ref has 1-based rank
     * hint_rank while version == hint_version (see fr_zset_rank). */
    fr_zset_ref hint_ref;
    uint64_t hint_rank;
    uint64_t hint_version;
    size_t ext_bytes;   /* bytes malloc'd for out-of-line members */
    uint64_t ext_count; /* number of out-of-line members */
    void *bulk_buf;     /* sort records reserved by fr_zset_bulk_begin */
    uint64_t bulk_cap;
    uint64_t bulk_new;  /* nodes added by this bulk load (their refs head bulk_buf) */
    int bulk_moved;     /* this bulk load changed a linked node's score in place */
    int bulk_append;    /* begun by fr_zset_bulk_begin_append */
    uint64_t live_units; /* units held by allocated nodes (header and pads excluded) */
} fr_zset;

/* Score range [min, max] with exclusive flags (ZRANGEBYSCORE). */
typedef struct fr_zset_range {
    double min, max;
    int minex, maxex;
} fr_zset_range;

/* Member range (ZRANGEBYLEX); mininf / maxinf: that end is open ('-', '+'). */
typedef struct fr_zset_lexrange {
    const char *min;
    size_t minlen;
    const char *max;
    size_t maxlen;
    int minex, maxex;
    int mininf, maxinf;
} fr_zset_lexrange;

/* ---- inline accessors (valid refs only) ---------------------------------- */

#define FR_ZSET_N(s, r) ((fr_zset_node *)((s)->arena + ((size_t)(r) << 3)))

/* Where a node's member is stored: its bytes when inline (mlen < FR_ZSET_LONG),
 * else its fr_zset_ext. */
static inline const char *fr_zset_node_member_slot(const fr_zset_node *n)
{
    return (const char *)(n->fwd + 2 * (unsigned)n->level - 1);
}

/* The member bytes of a node; *len receives its length. */
static inline const char *fr_zset_node_member(const fr_zset_node *n, size_t *len)
{
    const char *p = fr_zset_node_member_slot(n);
    if (n->mlen != FR_ZSET_LONG) {
        *len = n->mlen;
        return p;
    }
    fr_zset_ext e;
    memcpy(&e, p, sizeof e);
    *len = e.len;
    return e.ptr;
}

static inline double fr_zset_score(const fr_zset *s, fr_zset_ref r) { return FR_ZSET_N(s, r)->score; }
static inline const char *fr_zset_member(const fr_zset *s, fr_zset_ref r, size_t *len)
{
    return fr_zset_node_member(FR_ZSET_N(s, r), len);
}
static inline fr_zset_ref fr_zset_next(const fr_zset *s, fr_zset_ref r) { return FR_ZSET_N(s, r)->fwd[0]; }
static inline fr_zset_ref fr_zset_prev(const fr_zset *s, fr_zset_ref r) { return FR_ZSET_N(s, r)->backward; }
static inline fr_zset_ref fr_zset_first(const fr_zset *s) { return FR_ZSET_N(s, FR_ZSET_HEAD)->fwd[0]; }
static inline fr_zset_ref fr_zset_last(const fr_zset *s) { return s->tail; }
static inline uint64_t fr_zset_len(const fr_zset *s) { return s->length; }
static inline uint64_t fr_zset_version(const fr_zset *s) { return s->version; }

/* ---- life cycle ----------------------------------------------------------- */
fr_zset *fr_zset_new(void);
void fr_zset_free(fr_zset *s);
int fr_zset_clear(fr_zset *s);
fr_zset *fr_zset_copy(const fr_zset *s);
size_t fr_zset_memory(const fr_zset *s);
int fr_zset_shrink(fr_zset *s);

/* ---- point operations ----------------------------------------------------- */
fr_zset_ref fr_zset_find(const fr_zset *s, const char *m, size_t len);
int fr_zset_add(fr_zset *s, const char *m, size_t len, double score, int flags);
int fr_zset_incr(fr_zset *s, const char *m, size_t len, double delta, double *newscore,
             fr_zset_ref *ref, double *oldscore, int *was_new);
int fr_zset_delete(fr_zset *s, const char *m, size_t len);
void fr_zset_delete_ref(fr_zset *s, fr_zset_ref r);
void fr_zset_set_score(fr_zset *s, fr_zset_ref r, double score);
void fr_zset_set_score_ranked(fr_zset *s, fr_zset_ref r, double score, uint64_t ranks[2]);
uint64_t fr_zset_rank(const fr_zset *s, fr_zset_ref r);
uint64_t fr_zset_rank_of(const fr_zset *s, const char *m, size_t len);
fr_zset_ref fr_zset_at_rank(const fr_zset *s, uint64_t rank);

/* ---- batch lookups (g <= FR_ZSET_BATCH independent searches in lock step) ---- */
#define FR_ZSET_BATCH 16
void fr_zset_find_batch(const fr_zset *s, const char *const *m, const size_t *len, size_t g,
                    fr_zset_ref *out);
void fr_zset_rank_batch(const fr_zset *s, const fr_zset_ref *refs, size_t g, uint64_t *out);
void fr_zset_count_below_batch(const fr_zset *s, const double *x, int inclusive, size_t g, uint64_t *out);
size_t fr_zset_incr_batch(fr_zset *s, const char *const *m, const size_t *len, const double *delta,
                      size_t g, double *newscore, fr_zset_ref *ref, double *oldscore, int *was_new,
                      int *rc);

/* ---- ranges --------------------------------------------------------------- */
fr_zset_ref fr_zset_first_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank);
fr_zset_ref fr_zset_last_in_range(const fr_zset *s, const fr_zset_range *r, uint64_t *rank);
fr_zset_ref fr_zset_first_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank);
fr_zset_ref fr_zset_last_in_lex(const fr_zset *s, const fr_zset_lexrange *r, uint64_t *rank);
uint64_t fr_zset_count_in_lex(const fr_zset *s, const fr_zset_lexrange *r);
uint64_t fr_zset_delete_range_by_rank(fr_zset *s, uint64_t start, uint64_t end);
uint64_t fr_zset_delete_range_by_score(fr_zset *s, const fr_zset_range *r);
uint64_t fr_zset_delete_range_by_lex(fr_zset *s, const fr_zset_lexrange *r);
int fr_zset_one_score(const fr_zset *s);
int fr_zset_lex_ref_gte_min(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r);
int fr_zset_lex_ref_lte_max(const fr_zset *s, fr_zset_ref x, const fr_zset_lexrange *r);

/* ---- bulk load ------------------------------------------------------------ */
int fr_zset_bulk_begin(fr_zset *s, uint64_t extra);
int fr_zset_bulk_begin_append(fr_zset *s, uint64_t extra);
int fr_zset_bulk_put(fr_zset *s, const char *m, size_t len, double score, uint64_t *added);
void fr_zset_bulk_end(fr_zset *s);

/* ---- diagnostics and helpers for the Python layer ------------------------- */
int fr_zset_check(const fr_zset *s, char *err, size_t errlen);
uint64_t fr_zset_hash(const void *key, size_t len, uint64_t seed);
int fr_zset_format_i64(int64_t v, char *buf);
int fr_zset_format_u64(uint64_t v, char *buf);

#endif /* FASTRANK_ZSET_H */
