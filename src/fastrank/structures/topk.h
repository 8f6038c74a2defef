/* topk.h -- HeavyKeeper Top-K as RedisBloom 2.8 keeps it.
 * The design essay is at the top of topk.c. */
#ifndef FASTRANK_TOPK_H
#define FASTRANK_TOPK_H

#include <stddef.h>
#include <stdint.h>

#define FR_TOPK_OK 0
#define FR_TOPK_ENOMEM (-1)
#define FR_TOPK_ESHAPE (-2) /* merge of sketches with other k/width/depth/decay */
#define FR_TOPK_EFORMAT (-3) /* deserialize: not a valid serialized sketch */

#define FR_TOPK_FP_SEED 1919u /* MurmurHash2 seed of the fingerprint */
#define FR_TOPK_DECAY_TABLE 256
#define FR_TOPK_BIG_TABLE 64

typedef struct {
    uint32_t fp;    /* fingerprint of the owning item */
    uint32_t count; /* 0 = free */
} fr_topk_bucket;

typedef struct {
    uint32_t fp;
    uint32_t count;
    size_t len;          /* item length */
    size_t cap;          /* bytes allocated at item */
    unsigned char *item; /* owned; NULL = empty slot */
} fr_topk_slot;

typedef struct fr_topk {
    uint32_t k, width, depth;
    double decay;
    fr_topk_bucket *buckets; /* depth * width, row-major, owned */
    fr_topk_slot *heap;      /* k slots, min-heap on count, owned */
    double lookup[FR_TOPK_DECAY_TABLE]; /* lookup[j] = decay^j */
    double big[FR_TOPK_BIG_TABLE];      /* big[q] = lookup[255]^q */
    uint64_t thr[FR_TOPK_DECAY_TABLE];  /* thr[j] = floor(lookup[j] * 2^32) */
    uint64_t rng[4];         /* xoshiro256** state */
    uint64_t fastmod;        /* fr_fastmod reciprocal of width */
    uint64_t zero_from;      /* counts >= this never decay (see topk.c) */
} fr_topk;

int fr_topk_init(fr_topk *t, uint32_t k, uint32_t width, uint32_t depth, double decay,
                 uint64_t seed);
void fr_topk_release(fr_topk *t);
void fr_topk_seed(fr_topk *t, uint64_t seed);

int fr_topk_add(fr_topk *t, const void *item, size_t len, uint32_t incr,
                unsigned char **expelled, size_t *expelled_len, int *has_expelled);
int fr_topk_add_ints(fr_topk *t, const void *items, int is_unsigned, size_t n,
                     const uint32_t *incrs, uint32_t incr1);
int fr_topk_add_strs(fr_topk *t, const char *const *items, const size_t *lens, size_t n,
                     const uint32_t *incrs, uint32_t incr1);

/* Two-thread batches (protocol in topk.c, "Two threads"). */
typedef struct fr_topk_pipe fr_topk_pipe;
fr_topk_pipe *fr_topk_pipe_new(fr_topk *t, const void *ints, int is_unsigned,
                               const char *const *ptrs, const size_t *lens, size_t n);
void fr_topk_pipe_produce(fr_topk_pipe *p);
void fr_topk_pipe_wait_started(fr_topk_pipe *p);
int fr_topk_pipe_consume(fr_topk_pipe *p);
void fr_topk_pipe_free(fr_topk_pipe *p);

int fr_topk_query(const fr_topk *t, const void *item, size_t len);
uint32_t fr_topk_count(const fr_topk *t, const void *item, size_t len);
size_t fr_topk_list(const fr_topk *t, uint32_t *order);
uint32_t fr_topk_heap_min(const fr_topk *t);

int fr_topk_merge(fr_topk *dst, const fr_topk *src);

size_t fr_topk_serialized_size(const fr_topk *t);
void fr_topk_serialize(const fr_topk *t, unsigned char *out);
int fr_topk_deserialize(fr_topk *t, const unsigned char *buf, size_t len);

int fr_topk_check(const fr_topk *t);

#endif /* FASTRANK_TOPK_H */
