/* zset.h -- the sorted set of fastrank: an order-statistic B+-tree over
 * member records, plus a member -> record hash index, in plain C99 (no
 * Python).
 *
 * THE SHAPE IN ONE PARAGRAPH
 * --------------------------
 * A set (fr_zset) owns one growable ARENA of 8-byte units holding a RECORD
 * per member (score, member bytes, the name of the leaf that holds it).  A
 * record is named by a 32-bit reference, its offset in units (fr_zset_ref;
 * 0 is "no member"); the hash index and the tree's leaves store these
 * 4-byte references.  The order lives in a B+-tree: LEAVES hold up to FR_ZSET_LEAF_CAP (score, ref) pairs in two parallel
 * arrays, INNER nodes up to FR_ZSET_INNER_CAP children with the 64-bit
 * number of members under each child and a separator per child (the
 * child's smallest key: score, first 4 member bytes, record ref).  Nodes
 * are malloc'd while the tree is small; past FR_ZSET_POOL_MIN_NODES nodes
 * new ones come from the set's NODE POOL (fr_zset_pool): fixed-size slots,
 * one class for full leaves and one for inner nodes, carved from 2 MiB
 * chunks on huge pages where the system has them.  Because
 * the arena may move when it grows, a C pointer to a record (FR_ZSET_N) is
 * valid only until the next allocation; code that keeps a member across
 * calls keeps its fr_zset_ref.  A ref stays valid until its member is
 * removed or fr_zset_shrink runs.
 *
 * A RECORD (14 bytes of header, then the member; 8-byte aligned):
 *
 *     0       8        12     13      14
 *     +-------+--------+------+-------+--------+
 *     | score | leaf   | mlen | units | member |
 *     | f64   | u32    | u8   | u8    | bytes  |
 *     |       | name   |      |       |        |
 *     +-------+--------+------+-------+--------+
 *
 *   - leaf: the name of the leaf holding the member (zset.c, LEAF NAMES):
 *     a pooled leaf's place in the node pool, else its id in the leaf table.
 *   - mlen 0..254: the member is inline; mlen 255 (FR_ZSET_LONG): a
 *     fr_zset_ext {length, malloc'd pointer} sits where the member would be.
 *   - units: the record's size in 8-byte units (free lists by size, arena
 *     walks).  A freed record's score word is FR_ZSET_FREE_TAG (a NaN no
 *     score can be) and its leaf field links the free list of its size.
 *
 * See zset.c for the algorithms and where they depart from Redis.
 */
#ifndef FASTRANK_ZSET_H
#define FASTRANK_ZSET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Node capacities: compile-time, overridable (the C property test builds
 * the tree with 4 and 4 so splits and merges happen constantly).  66
 * entries fill a full leaf's 64-byte-rounded pool slot exactly: a 40-byte
 * header and 66 x 12 bytes are 832, thirteen cache lines, which a leaf of
 * 64 (808 bytes) took as well. */
#ifndef FR_ZSET_LEAF_CAP
#define FR_ZSET_LEAF_CAP 66
#endif
#ifndef FR_ZSET_INNER_CAP
#define FR_ZSET_INNER_CAP 32
#endif
#define FR_ZSET_MAXH 48            /* tree height bound (path arrays) */

#define FR_ZSET_INLINE_MAX 254u    /* longest member stored inside its record */
#define FR_ZSET_LONG 255u          /* mlen value: member stored out of line */
#define FR_ZSET_HDR 14u            /* bytes of a record before its member */
#define FR_ZSET_MAX_UNITS 34u      /* largest record in units (254-byte member) */
#define FR_ZSET_FREE_TAG 0x7ff4f4eef4eef4eeULL /* score word of a free record */

/* add() flags, as ZADD's */
#define FR_ZSET_NX 1
#define FR_ZSET_XX 2
#define FR_ZSET_GT 4
#define FR_ZSET_LT 8

typedef uint32_t fr_zset_ref;
#define FR_ZSET_NIL ((fr_zset_ref)0)

typedef struct fr_zset_node {
    double score;
    uint32_t leaf;      /* id of the leaf holding the member (free: next free) */
    uint8_t mlen;       /* inline member length or FR_ZSET_LONG */
    uint8_t units;      /* size of this record in 8-byte units */
    char member[2];     /* the member starts here (FR_ZSET_HDR), may run on */
} fr_zset_node;

/* An out-of-line member (longer than FR_ZSET_INLINE_MAX bytes). */
typedef struct fr_zset_ext {
    size_t len;
    char *ptr;
} fr_zset_ext;

/* A leaf: n (score, ref) pairs in key order; score[cap] then ref[cap].
 * id: its name, as its records hold it.  pooled: 1 when the leaf sits in
 * a pool slot, 0 when it was malloc'd. */
typedef struct fr_zset_leaf {
    struct fr_zset_inner *parent;
    struct fr_zset_leaf *prev, *next;
    uint32_t n, cap, id, pooled;
    double score[];
} fr_zset_leaf;

/* An inner node: n children; sep*[i] (i >= 1) is child i's smallest key;
 * pooled as in a leaf. */
typedef struct fr_zset_inner {
    struct fr_zset_inner *parent;
    uint32_t n, pooled;
    uint64_t cnt[FR_ZSET_INNER_CAP];      /* members under child i */
    double sep[FR_ZSET_INNER_CAP];        /* its score */
    uint32_t pfx[FR_ZSET_INNER_CAP];      /* its first 4 member bytes, big-endian */
    fr_zset_ref sref[FR_ZSET_INNER_CAP];  /* its record */
    void *child[FR_ZSET_INNER_CAP];
} fr_zset_inner;

#define FR_ZSET_LREF(l) ((fr_zset_ref *)((l)->score + (l)->cap))

/* The node pool: slot class 0 holds full-capacity leaves, class 1 inner
 * nodes, each slot rounded up to 64 bytes.  Chunks are carved front to
 * back (bump..end is the uncarved rest of the newest); a released slot
 * goes on its class's free list (the link in its first 8 bytes). */
typedef struct fr_zset_pool {
    char **chunks;              /* the mapped chunks */
    uint32_t nchunks, chunkcap;
    char *bump, *end;
    void *free[2];              /* free slots by class */
    uint64_t nfree[2];          /* slots on each free list */
    uint64_t live[2];           /* slots handed out (tree, stash, bulk load) */
} fr_zset_pool;

typedef struct fr_zset {
    char *arena;        /* unit u is at arena + 8u; unit 0 is unused */
    uint64_t top;       /* units handed out (high-water mark) */
    uint64_t cap;       /* units allocated */
    fr_zset_ref freelist[FR_ZSET_MAX_UNITS + 1]; /* freed records by size */
    uint64_t *slots;    /* hash index: (tag << 32) | ref, 0 = empty */
    uint64_t nslots;
    uint64_t hcount;    /* entries in the index (== length outside bulk mode) */
    uint64_t length;    /* members in the tree */
    void *root;         /* NULL (empty, never filled), a leaf or an inner node */
    int height;         /* inner levels above the leaves (0: root is a leaf) */
    int bulk;           /* inside fr_zset_bulk_begin .. fr_zset_bulk_end */
    fr_zset_leaf *head, *tail;  /* first and last leaf */
    fr_zset_leaf **leaves;      /* malloc'd leaf by id (NULL: id free; pooled leaves are named by place) */
    uint32_t *free_ids;         /* stack of free leaf ids */
    uint32_t nids, idcap, nfree_ids;
    uint32_t nstash;            /* spare inner nodes kept for splits */
    fr_zset_inner *stash[FR_ZSET_MAXH + 2];
    fr_zset_leaf *stash_leaf;   /* a spare full-size leaf */
    uint64_t nleaves, ninners;  /* nodes in the tree */
    uint64_t heap_node_bytes;   /* bytes of the malloc'd nodes (tree, stash, bulk load) */
    fr_zset_pool pool;          /* the pooled nodes */
    uint64_t seed;      /* hash seed */
    uint64_t version;   /* bumped by every change (iterators check it) */
    /* The rank a write just learned: record hint_ref has 1-based rank
     * hint_rank while version == hint_version (see fr_zset_rank). */
    fr_zset_ref hint_ref;
    uint64_t hint_rank;
    uint64_t hint_version;
    size_t ext_bytes;   /* bytes malloc'd for out-of-line members */
    uint64_t ext_count; /* number of out-of-line members */
    void *bulk_buf;     /* sort records reserved by fr_zset_bulk_begin */
    uint64_t bulk_cap;
    uint64_t bulk_new;  /* records added by this bulk load */
    int bulk_moved;     /* this bulk load changed a member's score */
    void **bulk_nodes;  /* tree nodes reserved for the rebuild */
    uint64_t bulk_nleaf, bulk_ninner;
    uint64_t live_units; /* units held by live records */
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

/* The member bytes of a record; *len receives its length. */
static inline const char *fr_zset_node_member(const fr_zset_node *n, size_t *len)
{
    const char *p = (const char *)n + FR_ZSET_HDR;
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
static inline uint64_t fr_zset_len(const fr_zset *s) { return s->length; }
static inline uint64_t fr_zset_version(const fr_zset *s) { return s->version; }
static inline fr_zset_ref fr_zset_first(const fr_zset *s)
{
    return s->length ? FR_ZSET_LREF(s->head)[0] : FR_ZSET_NIL;
}
static inline fr_zset_ref fr_zset_last(const fr_zset *s)
{
    return s->length ? FR_ZSET_LREF(s->tail)[s->tail->n - 1] : FR_ZSET_NIL;
}

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
int fr_zset_set_score(fr_zset *s, fr_zset_ref r, double score);
int fr_zset_set_score_ranked(fr_zset *s, fr_zset_ref r, double score, uint64_t ranks[2]);
void fr_zset_prefetch_move(const fr_zset *s, fr_zset_ref r);
uint64_t fr_zset_rank(const fr_zset *s, fr_zset_ref r);
uint64_t fr_zset_rank_of(const fr_zset *s, const char *m, size_t len);
fr_zset_ref fr_zset_at_rank(const fr_zset *s, uint64_t rank);
fr_zset_ref fr_zset_next(const fr_zset *s, fr_zset_ref r);
fr_zset_ref fr_zset_prev(const fr_zset *s, fr_zset_ref r);
size_t fr_zset_gather(const fr_zset *s, uint64_t rank, size_t count, int reverse, fr_zset_ref *out);
size_t fr_zset_gather_from(const fr_zset *s, fr_zset_ref r, size_t count, int reverse, fr_zset_ref *out);

/* ---- batch lookups (g <= FR_ZSET_BATCH independent searches overlapped) ---- */
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
uint64_t fr_zset_count_in_range(const fr_zset *s, const fr_zset_range *r);
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
int fr_zset_bulk_put(fr_zset *s, const char *m, size_t len, double score, uint64_t *added);
double *fr_zset_bulk_slot(fr_zset *s, const char *m, size_t len, uint64_t *added);
void fr_zset_bulk_end(fr_zset *s);

/* ---- diagnostics and helpers for the Python layer ------------------------- */
int fr_zset_check(const fr_zset *s, char *err, size_t errlen);
uint64_t fr_zset_hash(const void *key, size_t len, uint64_t seed);
int fr_zset_format_i64(int64_t v, char *buf);
int fr_zset_format_u64(uint64_t v, char *buf);

#endif /* FASTRANK_ZSET_H */
