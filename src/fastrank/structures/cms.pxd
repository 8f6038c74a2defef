# cms.pxd -- declarations of the C Count-Min Sketch (cms.h, names fr_cms_*)
# for cms.pxi, plus the raw Python C-API forms it builds result lists with.
# The contracts are the comments on the C functions; the design is the essay
# atop cms.c.
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t, uint32_t, uint64_t


cdef extern from "cms.h" nogil:
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

    # Row-range and two-thread batches (protocol in cms.c).
    void fr_cms_incrby_ints_rows(fr_cms *c, const void *items, int is_unsigned, size_t n,
                                 const uint64_t *incrs, uint64_t incr1, size_t row0, size_t row1,
                                 uint32_t *out)
    void fr_cms_add_count(fr_cms *c, size_t n, const uint64_t *incrs, uint64_t incr1)
    ctypedef struct fr_cms_par:
        pass
    fr_cms_par *fr_cms_par_new(fr_cms *c, const void *items, int is_unsigned, size_t n,
                               const uint64_t *incrs, uint64_t incr1, uint32_t *out,
                               size_t groups, size_t block)
    void fr_cms_par_run(fr_cms_par *p, int role)
    void fr_cms_par_free(fr_cms_par *p)


cdef extern from "Python.h":
    # Raw forms (no reference counting by Cython) for building result lists.
    PyObject *_cms_PyList_New "PyList_New"(Py_ssize_t n) except NULL
    void _cms_PyList_SET_ITEM "PyList_SET_ITEM"(PyObject *lst, Py_ssize_t i, PyObject *o)
    PyObject *_cms_PyLong_FromUnsignedLong "PyLong_FromUnsignedLong"(unsigned long v)
    void _cms_Py_INCREF "Py_INCREF"(PyObject *o)
    void _cms_Py_XDECREF "Py_XDECREF"(PyObject *o)
    void _cms_Py_DECREF "Py_DECREF"(PyObject *o)
