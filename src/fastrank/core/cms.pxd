# C declarations of the sketches: _murmur.h (MurmurHash2, integer texts),
# _cms.h (Count-Min Sketch) and _topk.h (HeavyKeeper Top-K).  The contracts
# are the comments on the C functions; the designs are the essays atop _cms.c
# and _topk.c.
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "_murmur.h" nogil:
    uint32_t fr_murmur2(const void *key, size_t len, uint32_t seed)


cdef extern from "_cms.h" nogil:
    enum:
        FR_CMS_SATURATED
        FR_CMS_OK
        FR_CMS_ENOMEM
        FR_CMS_EDIM
        FR_CMS_ESHAPE
        FR_CMS_EOVERFLOW
        FR_CMS_EFORMAT

    ctypedef struct fr_cms:
        size_t width
        size_t depth
        uint64_t count
        uint32_t *cells

    int fr_cms_init(fr_cms *c, size_t width, size_t depth)
    void fr_cms_release(fr_cms *c)
    int fr_cms_copy(fr_cms *dst, const fr_cms *src)
    uint32_t fr_cms_incrby(fr_cms *c, const void *item, size_t len, uint64_t incr)
    uint32_t fr_cms_query(const fr_cms *c, const void *item, size_t len)
    void fr_cms_incrby_ints(fr_cms *c, const void *items, int is_unsigned, size_t n,
                            const uint64_t *incrs, uint64_t incr1, uint32_t *out)
    void fr_cms_query_ints(const fr_cms *c, const void *items, int is_unsigned, size_t n,
                           uint32_t *out)
    void fr_cms_incrby_strs(fr_cms *c, const char *const *items, const size_t *lens, size_t n,
                            const uint64_t *incrs, uint64_t incr1, uint32_t *out)
    void fr_cms_query_strs(const fr_cms *c, const char *const *items, const size_t *lens,
                           size_t n, uint32_t *out)
    int fr_cms_merge(fr_cms *dst, const fr_cms *const *srcs, const int64_t *weights, size_t n)
    size_t fr_cms_serialized_size(const fr_cms *c)
    void fr_cms_serialize(const fr_cms *c, unsigned char *out)
    int fr_cms_deserialize(fr_cms *c, const unsigned char *buf, size_t len)


cdef extern from "_topk.h" nogil:
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
