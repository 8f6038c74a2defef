/* _zset.h -- the sorted set of fastrank: a skip list with rank spans plus a
 * member -> node hash index, in plain C99 (no Python).
 *
 * THE SHAPE IN ONE PARAGRAPH
 * --------------------------
 * A set (frz_set) owns one growable ARENA of 8-byte units.  Every node (and
 * the 32-level header node) lives in the arena and is named by a 32-bit
 * reference: its offset in units (frz_ref; 0 is "no node").  Links, the
 * backward pointer and the hash index all store these 4-byte references
 * instead of 8-byte pointers, which is what keeps a member with a 9-byte id
 * at about 48 bytes in total.  Because the arena may move when it grows, a
 * C pointer to a node (FRZ_N) is valid only until the next allocation; code
 * that keeps a node across calls keeps its frz_ref.
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
 *   - mlen 0..254: the member is inline; mlen 255 (FRZ_LONG): a frz_ext
 *     {length, malloc'd pointer} sits where the member would be.
 *   - units: the node's size in 8-byte units, so a freed node can be reused
 *     by the free list of its size class and the arena can be walked.
 *     A freed node has level 0 and links the free list through `backward`.
 *   - Between nodes the arena may hold PAD chunks (1..7 units whose first
 *     8 bytes are a NaN tag with the length), so that no node's links
 *     straddle a cache line; see frz_pad_units in _zset.c.
 *
 * See _zset.c for the algorithms and where they depart from Redis.
 */
#ifndef FASTRANK_ZSET_H
#define FASTRANK_ZSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FRZ_MAXLEVEL 32
#define FRZ_INLINE_MAX 254u    /* longest member stored inside its node */
#define FRZ_LONG 255u          /* mlen value: member stored out of line */
#define FRZ_MAX_UNITS 66u      /* largest node in units (level 32, 254-byte member) */

/* add() flags, as ZADD's */
#define FRZ_NX 1
#define FRZ_XX 2
#define FRZ_GT 4
#define FRZ_LT 8

typedef uint32_t frz_ref;
#define FRZ_NIL ((frz_ref)0)
#define FRZ_HEAD ((frz_ref)1)

typedef struct frz_node {
    double score;
    frz_ref backward;   /* previous node, FRZ_NIL for the first */
    uint8_t level;      /* 1..32; 0 marks a free chunk */
    uint8_t mlen;       /* inline member length or FRZ_LONG */
    uint16_t units;     /* size of this chunk in 8-byte units */
    frz_ref fwd[];      /* fwd[level], span[level - 1], member */
} frz_node;

/* An out-of-line member (longer than FRZ_INLINE_MAX bytes). */
typedef struct frz_ext {
    size_t len;
    char *ptr;
} frz_ext;

typedef struct frz_set {
    char *arena;        /* unit u is at arena + 8u; unit 0 is unused */
    uint64_t top;       /* units handed out (high-water mark) */
    uint64_t cap;       /* units allocated */
    frz_ref freelist[FRZ_MAX_UNITS + 1]; /* freed chunks by size */
    uint64_t *slots;    /* hash index: (tag << 32) | ref, 0 = empty */
    uint64_t nslots;
    uint64_t hcount;    /* entries in the index (== length outside bulk mode) */
    uint64_t length;    /* members linked in the list */
    frz_ref tail;
    int level;          /* highest level in use, >= 1 */
    int bulk;           /* inside frz_bulk_begin .. frz_bulk_end */
    uint64_t rng;       /* level generator state (splitmix64) */
    uint64_t seed;      /* hash seed */
    uint64_t version;   /* bumped by every change (iterators check it) */
    size_t ext_bytes;   /* bytes malloc'd for out-of-line members */
    uint64_t ext_count; /* number of out-of-line members */
    void *bulk_buf;     /* sort records reserved by frz_bulk_begin */
    uint64_t bulk_cap;
    uint64_t live_units; /* units held by allocated nodes (header and pads excluded) */
} frz_set;

/* Score range [min, max] with exclusive flags (ZRANGEBYSCORE). */
typedef struct frz_range {
    double min, max;
    int minex, maxex;
} frz_range;

/* Member range (ZRANGEBYLEX); mininf / maxinf: that end is open ('-', '+'). */
typedef struct frz_lexrange {
    const char *min;
    size_t minlen;
    const char *max;
    size_t maxlen;
    int minex, maxex;
    int mininf, maxinf;
} frz_lexrange;

/* ---- inline accessors (valid refs only) ---------------------------------- */

#define FRZ_N(s, r) ((frz_node *)((s)->arena + ((size_t)(r) << 3)))

/* The member bytes of a node; *len receives its length. */
static inline const char *frz_node_member(const frz_node *n, size_t *len)
{
    const char *p = (const char *)(n->fwd + 2 * (unsigned)n->level - 1);
    if (n->mlen != FRZ_LONG) {
        *len = n->mlen;
        return p;
    }
    frz_ext e;
    memcpy(&e, p, sizeof e);
    *len = e.len;
    return e.ptr;
}

static inline double frz_score(const frz_set *s, frz_ref r) { return FRZ_N(s, r)->score; }
static inline const char *frz_member(const frz_set *s, frz_ref r, size_t *len)
{
    return frz_node_member(FRZ_N(s, r), len);
}
static inline frz_ref frz_next(const frz_set *s, frz_ref r) { return FRZ_N(s, r)->fwd[0]; }
static inline frz_ref frz_prev(const frz_set *s, frz_ref r) { return FRZ_N(s, r)->backward; }
static inline frz_ref frz_first(const frz_set *s) { return FRZ_N(s, FRZ_HEAD)->fwd[0]; }
static inline frz_ref frz_last(const frz_set *s) { return s->tail; }
static inline uint64_t frz_len(const frz_set *s) { return s->length; }
static inline uint64_t frz_version(const frz_set *s) { return s->version; }

/* ---- life cycle ----------------------------------------------------------- */
frz_set *frz_new(void);
void frz_free(frz_set *s);
int frz_clear(frz_set *s);
frz_set *frz_copy(const frz_set *s);
size_t frz_memory(const frz_set *s);
int frz_shrink(frz_set *s);

/* ---- point operations ----------------------------------------------------- */
frz_ref frz_find(const frz_set *s, const char *m, size_t len);
int frz_add(frz_set *s, const char *m, size_t len, double score, int flags);
int frz_incr(frz_set *s, const char *m, size_t len, double delta, double *newscore,
             frz_ref *ref, double *oldscore, int *was_new);
int frz_delete(frz_set *s, const char *m, size_t len);
void frz_delete_ref(frz_set *s, frz_ref r);
void frz_set_score(frz_set *s, frz_ref r, double score);
uint64_t frz_rank(const frz_set *s, frz_ref r);
uint64_t frz_rank_of(const frz_set *s, const char *m, size_t len);
frz_ref frz_at_rank(const frz_set *s, uint64_t rank);

/* ---- batch lookups (g <= FRZ_BATCH independent searches in lock step) ---- */
#define FRZ_BATCH 16
void frz_find_batch(const frz_set *s, const char *const *m, const size_t *len, size_t g,
                    frz_ref *out);
void frz_rank_batch(const frz_set *s, const frz_ref *refs, size_t g, uint64_t *out);
size_t frz_incr_batch(frz_set *s, const char *const *m, const size_t *len, const double *delta,
                      size_t g, double *newscore, frz_ref *ref, double *oldscore, int *was_new,
                      int *rc);

/* ---- ranges --------------------------------------------------------------- */
frz_ref frz_first_in_range(const frz_set *s, const frz_range *r, uint64_t *rank);
frz_ref frz_last_in_range(const frz_set *s, const frz_range *r, uint64_t *rank);
frz_ref frz_first_in_lex(const frz_set *s, const frz_lexrange *r, uint64_t *rank);
frz_ref frz_last_in_lex(const frz_set *s, const frz_lexrange *r, uint64_t *rank);
uint64_t frz_delete_range_by_rank(frz_set *s, uint64_t start, uint64_t end);
uint64_t frz_delete_range_by_score(frz_set *s, const frz_range *r);
uint64_t frz_delete_range_by_lex(frz_set *s, const frz_lexrange *r);
int frz_one_score(const frz_set *s);
int frz_lex_ref_gte_min(const frz_set *s, frz_ref x, const frz_lexrange *r);
int frz_lex_ref_lte_max(const frz_set *s, frz_ref x, const frz_lexrange *r);

/* ---- bulk load ------------------------------------------------------------ */
int frz_bulk_begin(frz_set *s, uint64_t extra);
int frz_bulk_put(frz_set *s, const char *m, size_t len, double score, uint64_t *added);
void frz_bulk_end(frz_set *s);

/* ---- diagnostics and helpers for the Python layer ------------------------- */
int frz_check(const frz_set *s, char *err, size_t errlen);
uint64_t frz_hash(const void *key, size_t len, uint64_t seed);
int frz_format_i64(int64_t v, char *buf);
int frz_format_u64(uint64_t v, char *buf);

#endif /* FASTRANK_ZSET_H */
