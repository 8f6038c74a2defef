/* cms.h -- Count-Min Sketch laid out and hashed as RedisBloom 2.8 does.
 * The design essay is at the top of cms.c. */
#ifndef FASTRANK_CMS_H
#define FASTRANK_CMS_H

#include <stddef.h>
#include <stdint.h>

/* A saturated counter; also the "overflow" marker of fr_cms_incrby. */
#define FR_CMS_SATURATED 0xFFFFFFFFu

/* Return codes (0 is success). */
#define FR_CMS_OK 0
#define FR_CMS_ENOMEM (-1)    /* allocation failed, or width*depth too large */
#define FR_CMS_EDIM (-2)      /* width or depth is 0 */
#define FR_CMS_ESHAPE (-3)    /* merge: a source has another width/depth */
#define FR_CMS_EOVERFLOW (-4) /* merge: a cell or the count leaves its range */
#define FR_CMS_EFORMAT (-5)   /* deserialize: not a valid serialized sketch */

typedef struct fr_cms {
    size_t width;     /* columns, >= 1 */
    size_t depth;     /* rows, >= 1 */
    uint64_t count;   /* sum of all increments mod 2^64 (RedisBloom reports it signed) */
    uint32_t *cells;  /* depth * width saturating counters, row-major, owned */
    uint64_t fastmod; /* precomputed divisor inverse for hash % width (see cms.c) */
} fr_cms;

/* Serialized form: FR_CMS_HEADER bytes, then 4 * width * depth cell bytes. */
#define FR_CMS_HEADER 32
#define FR_CMS_VERSION 1

int fr_cms_init(fr_cms *c, size_t width, size_t depth);
void fr_cms_release(fr_cms *c);
int fr_cms_copy(fr_cms *dst, const fr_cms *src);

uint32_t fr_cms_incrby(fr_cms *c, const void *item, size_t len, uint64_t incr);
uint32_t fr_cms_query(const fr_cms *c, const void *item, size_t len);

/* Batch forms over integer items hashed as their decimal text.  items points
 * at n int64 (is_unsigned == 0) or uint64 (is_unsigned == 1) values.
 * incrs == NULL means every increment is incr1.  out (may be NULL) receives
 * one result per item, as the single-item functions return. */
void fr_cms_incrby_ints(fr_cms *c, const void *items, int is_unsigned, size_t n,
                        const uint64_t *incrs, uint64_t incr1, uint32_t *out);
void fr_cms_query_ints(const fr_cms *c, const void *items, int is_unsigned, size_t n,
                       uint32_t *out);
/* The same over n byte strings items[j][0..lens[j]). */
void fr_cms_incrby_strs(fr_cms *c, const char *const *items, const size_t *lens, size_t n,
                        const uint64_t *incrs, uint64_t incr1, uint32_t *out);
void fr_cms_query_strs(const fr_cms *c, const char *const *items, const size_t *lens, size_t n,
                       uint32_t *out);

/* fr_cms_incrby_ints over rows [row0, row1) only (0 <= row0 < row1 <= depth),
 * for splitting one batch between threads: out (may be NULL) receives each
 * item's minimum over those rows; count is not changed (add it once with
 * fr_cms_add_count). */
void fr_cms_incrby_ints_rows(fr_cms *c, const void *items, int is_unsigned, size_t n,
                             const uint64_t *incrs, uint64_t incr1, size_t row0, size_t row1,
                             uint32_t *out);
void fr_cms_add_count(fr_cms *c, size_t n, const uint64_t *incrs, uint64_t incr1);

/* A batch of fr_cms_incrby_ints run by several threads in two phases per
 * block (see cms.c); NULL from fr_cms_par_new means "not here": split by
 * rows instead. */
typedef struct fr_cms_par fr_cms_par;
fr_cms_par *fr_cms_par_new(fr_cms *c, const void *items, int is_unsigned, size_t n,
                           const uint64_t *incrs, uint64_t incr1, uint32_t *out, size_t groups,
                           size_t block);
void fr_cms_par_run(fr_cms_par *p, int role);
void fr_cms_par_free(fr_cms_par *p);

int fr_cms_merge(fr_cms *dst, const fr_cms *const *srcs, const int64_t *weights, size_t n);

size_t fr_cms_serialized_size(const fr_cms *c);
void fr_cms_serialize(const fr_cms *c, unsigned char *out);
int fr_cms_deserialize(fr_cms *c, const unsigned char *buf, size_t len);

#endif /* FASTRANK_CMS_H */
