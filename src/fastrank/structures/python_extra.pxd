# python_extra.pxd -- the few CPython C-API functions Cython's own cpython
# declarations lack, used by the Engine's lock (engine_fast.pxi) and its
# reply decoding and argument packing (engine_fast.pxi, dispatch.pxi), the
# leaderboard's entry rows (_entries.pyx), and the vectorcall entry of
# Script objects (script_front_door.pxi).

from cpython.object cimport PyObject, PyTypeObject
from cpython.pythread cimport PyThread_type_lock

cdef extern from "Python.h":
    int PyThread_acquire_lock_timed(PyThread_type_lock lock, long long microseconds,
                                    int intr_flag) nogil
    object PyUnicode_Decode(const char *s, Py_ssize_t size, const char *encoding,
                            const char *errors)
    bint PyUnicode_IS_COMPACT_ASCII(object o)
    const void *PyUnicode_DATA(object o)
    Py_ssize_t PyUnicode_GET_LENGTH(object o)
    object PyType_GenericAlloc(PyTypeObject *type, Py_ssize_t nitems)


# The vectorcall protocol (PEP 590) for an extension type's instances: a
# call with keyword arguments then passes their names as a tuple instead of
# building a dict (script_front_door.pxi's ScriptCall).
cdef extern from *:
    """
    typedef PyObject *(*fr_vectorcallfunc)(PyObject *, PyObject *const *, size_t, PyObject *);

    /* Instances of t are called through the fr_vectorcallfunc stored at
       byte `offset` of each (a NULL there falls back to tp_call). */
    static void fr_type_use_vectorcall(PyTypeObject *t, Py_ssize_t offset)
    {
        t->tp_vectorcall_offset = offset;
        t->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    }

    /* The type's tp_call, bypassing vectorcall (the general path it falls back to). */
    static PyObject *fr_type_call(PyObject *self, PyObject *args, PyObject *kwargs)
    {
        return Py_TYPE(self)->tp_call(self, args, kwargs);
    }
    """
    ctypedef PyObject *(*fr_vectorcallfunc)(PyObject *callable, PyObject **args, size_t nargsf,
                                            PyObject *kwnames)
    Py_ssize_t PyVectorcall_NARGS(size_t nargsf)
    void fr_type_use_vectorcall(PyTypeObject *t, Py_ssize_t offset)
    object fr_type_call(object self, object args, object kwargs)
