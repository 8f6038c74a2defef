# topk.pxd -- declarations of the C HeavyKeeper Top-K (topk.h, names
# fr_topk_*) for topk.pxi.  The contracts are the comments on the C
# functions; the design is the essay atop topk.c.
from libc.stdint cimport uint32_t, uint64_t


cdef extern from "topk.h" nogil:
    enum:
        FR_TOPK_OK
        FR_TOPK_ENOMEM
        FR_TOPK_ESHAPE
        FR_TOPK_EFORMAT

    ctypedef struct fr_topk_slot:
        uint32_t fp
        uint32_t count
        size_t len
        unsigned char *item

    ctypedef struct fr_topk:
        uint32_t k
        uint32_t width
        uint32_t depth
        double decay
        fr_topk_slot *heap

    int fr_topk_init(fr_topk *t, uint32_t k, uint32_t width, uint32_t depth, double decay,
                     uint64_t seed)
    void fr_topk_release(fr_topk *t)
    void fr_topk_seed(fr_topk *t, uint64_t seed)
    int fr_topk_add(fr_topk *t, const void *item, size_t len, uint32_t incr,
                    unsigned char **expelled, size_t *expelled_len, int *has_expelled)
    int fr_topk_add_ints(fr_topk *t, const void *items, int is_unsigned, size_t n,
                         const uint32_t *incrs, uint32_t incr1)
    int fr_topk_add_strs(fr_topk *t, const char *const *items, const size_t *lens, size_t n,
                         const uint32_t *incrs, uint32_t incr1)
    int fr_topk_query(const fr_topk *t, const void *item, size_t len)
    uint32_t fr_topk_count(const fr_topk *t, const void *item, size_t len)
    size_t fr_topk_list(const fr_topk *t, uint32_t *order)
    uint32_t fr_topk_heap_min(const fr_topk *t)
    int fr_topk_merge(fr_topk *dst, const fr_topk *src)
    size_t fr_topk_serialized_size(const fr_topk *t)
    void fr_topk_serialize(const fr_topk *t, unsigned char *out)
    int fr_topk_deserialize(fr_topk *t, const unsigned char *buf, size_t len)
    int fr_topk_check(const fr_topk *t)

    # Two-thread batches (protocol in topk.c, "Two threads").
    ctypedef struct fr_topk_pipe:
        pass
    fr_topk_pipe *fr_topk_pipe_new(fr_topk *t, const void *ints, int is_unsigned,
                                   const char *const *ptrs, const size_t *lens, size_t n)
    void fr_topk_pipe_produce(fr_topk_pipe *p)
    void fr_topk_pipe_wait_started(fr_topk_pipe *p)
    int fr_topk_pipe_consume(fr_topk_pipe *p)
    void fr_topk_pipe_free(fr_topk_pipe *p)
