# python_extra.pxd -- the few CPython C-API functions Cython's own cpython
# declarations lack, used by the Engine's lock (engine_fast.pxi) and its
# reply decoding and argument packing (engine_fast.pxi, dispatch.pxi).

from cpython.pythread cimport PyThread_type_lock

cdef extern from "Python.h":
    int PyThread_acquire_lock_timed(PyThread_type_lock lock, long long microseconds,
                                    int intr_flag) nogil
    object PyUnicode_Decode(const char *s, Py_ssize_t size, const char *encoding,
                            const char *errors)
    bint PyUnicode_IS_COMPACT_ASCII(object o)
    const void *PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
