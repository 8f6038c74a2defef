# cms.pxi -- CountMinSketch: RedisBloom 2.8's Count-Min Sketch as a Python
# class (included by _core.pyx).  The C structure and its design essay are in
# cms.c; this file adds argument checking with RedisBloom's error texts, the
# item encoding redis-py uses, numpy batch paths and serialization.
#
# Also defined here and shared with topk.pxi (included after this file): the
# item helpers (_sk_*), the numpy-integer-array helper and the RedisBloom
# error-text constants.
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.ref cimport PyObject
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.math cimport ceil, ceilf, isfinite, log10f
from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy

cimport numpy as cnp
import numpy as np

from murmurhash2 cimport *
from cms cimport *

cnp.import_array()

from fastrank import _threads

# ---- Error texts -------------------------------------------------------------
# RedisBloom 2.8.2's texts and fastrank's own, from the one table in
# fastrank.errors; the RedisBloom ones (and the not-initialised ones) stay
# names of this module, for the Engine and for users catching them.
from fastrank.errors import (CMS_ERR_DEPTH, CMS_ERR_ERROR, CMS_ERR_INCRBY_OVERFLOW, CMS_ERR_INIT,
                              CMS_ERR_KEY_EXISTS, CMS_ERR_MERGE_OVERFLOW, CMS_ERR_NEGATIVE,
                              CMS_ERR_NO_KEY, CMS_ERR_NO_MEMORY, CMS_ERR_NOT_READY, CMS_ERR_NUMKEYS,
                              CMS_ERR_PARSE, CMS_ERR_PROB, CMS_ERR_SHAPE, CMS_ERR_WEIGHT,
                              CMS_ERR_WIDTH, CMS_ERR_WRONG_KEYS, CMS_ERR_WRONG_KEYS_WEIGHTS,
                              TOPK_ERR_DECAY, TOPK_ERR_DEPTH, TOPK_ERR_INCREMENT, TOPK_ERR_K,
                              TOPK_ERR_KEY_EXISTS, TOPK_ERR_NO_KEY, TOPK_ERR_NO_MEMORY,
                              TOPK_ERR_NOT_READY, TOPK_ERR_WIDTH, TOPK_ERR_WITHCOUNT)
from fastrank import errors as _sk_err

TOPK_MAX_INCREMENT = 100000

CMS_OVERFLOW = 0xFFFFFFFF    # a saturated counter: incrby's overflow marker
_INT64_MAX = 0x7FFFFFFFFFFFFFFF
_UINT32_MAX = 0xFFFFFFFF

# ---- Items ------------------------------------------------------------------
# An item is a binary string, encoded as redis-py encodes arguments: bytes,
# bytearray and memoryview as they are, str as UTF-8, int as decimal text,
# float as its shortest repr.  bool and other types raise TypeError.

cdef bytes _sk_item_bytes(object item):
    """Bytes of one item of any accepted type."""
    if isinstance(item, bytes):
        return bytes(item)
    if isinstance(item, str):
        return (<str>item).encode("utf-8")
    if isinstance(item, (bytearray, memoryview)):
        return bytes(item)
    if isinstance(item, bool):
        raise TypeError(_sk_err.SKETCH_ITEM_TYPE % ("bool",))
    if isinstance(item, int):
        return int.__repr__(item).encode("ascii")
    if isinstance(item, float):
        return float.__repr__(item).encode("ascii")
    raise TypeError(_sk_err.SKETCH_ITEM_TYPE % (type(item).__name__,))


cdef inline const char *_sk_ptr(object obj, Py_ssize_t *size) except NULL:
    """Pointer and size of an object that is exactly bytes or str (str: its
    cached UTF-8 form, valid while obj lives)."""
    if type(obj) is bytes:
        size[0] = PyBytes_GET_SIZE(obj)
        return PyBytes_AS_STRING(obj)
    return PyUnicode_AsUTF8AndSize(obj, size)


cdef tuple _sk_items(object items):
    """items as a new tuple whose elements are exactly bytes or str.

    Every item is checked (and every str UTF-8 encoded once, which CPython
    caches) here, before a caller changes any state.  The tuple is the
    batch's own: code that runs later (an increment's __int__, another
    thread) may change or free the caller's sequence, never these items,
    and bytes and str never move, so pointers into them stay valid.
    """
    cdef Py_ssize_t size
    cdef tuple seq
    if isinstance(items, (bytes, str, bytearray, memoryview, int, float)):
        raise TypeError(_sk_err.SKETCH_ITEMS_SINGLE)
    if isinstance(items, np.ndarray):
        items = items.tolist()
    seq = tuple(items)
    cdef list out = None
    cdef Py_ssize_t i, n = len(seq)
    for i in range(n):
        item = seq[i]
        if type(item) is bytes:
            continue
        if type(item) is str:
            PyUnicode_AsUTF8AndSize(item, &size)
            continue
        if out is None:
            out = list(seq)
        out[i] = _sk_item_bytes(item)
    return seq if out is None else tuple(out)


cdef class _SkItems:
    """A batch of items as C pointer/length arrays for the *_strs C paths.

    Built in two steps.  The constructor copies the items into the batch's
    own tuple of bytes / str (_sk_items: every item checked, every str
    UTF-8 encoded and cached) and allocates the arrays; ``bind`` fills the
    arrays with pointers into those objects.  A method calls ``bind`` after
    converting its other arguments and after waiting for the object's gate,
    right before the C call: nothing in between runs Python code or
    releases the GIL, and the pointed-to objects are immutable and held
    here, whatever the caller does to its own sequence.
    """
    cdef tuple seq
    cdef list src     # _sk_list_now: the caller's list the pointers point into
    cdef cnp.ndarray ptrs
    cdef cnp.ndarray lens
    cdef Py_ssize_t n

    def __cinit__(self, items):
        self.seq = _sk_items(items)
        self.n = len(self.seq)
        self.ptrs = np.empty(self.n, dtype=np.uintp)
        self.lens = np.empty(self.n, dtype=np.uintp)

    cdef int bind(self) except -1:
        """Points the arrays at the items (no allocation, no Python code:
        every str's UTF-8 form is cached already)."""
        cdef Py_ssize_t i, size
        cdef size_t *pp = <size_t *>self.ptrs.data
        cdef size_t *lp = <size_t *>self.lens.data
        cdef object item
        for i in range(self.n):
            item = self.seq[i]
            if type(item) is bytes:
                pp[i] = <size_t>PyBytes_AS_STRING(item)
                size = PyBytes_GET_SIZE(item)
            else:
                pp[i] = <size_t>PyUnicode_AsUTF8AndSize(item, &size)
            lp[i] = <size_t>size
        return 0

    cdef inline const char *const *items(self):
        return <const char *const *>self.ptrs.data

    cdef inline const size_t *sizes(self):
        return <const size_t *>self.lens.data


cdef _SkItems _sk_list_now(list items):
    """The fast form of _SkItems for a list of exact bytes / str, bound at
    once to the caller's own list (no copy), or None when an item needs a
    conversion (which may run Python code): then use _SkItems.

    Only for a caller that, from here to its last C call on the pointers,
    runs no Python code and does not release the GIL (it has already
    converted its other arguments and waited for the object's gate): the
    list cannot change in that window, so it is what the call started with.
    """
    cdef Py_ssize_t i, size, n = len(items)
    cdef _SkItems b = _SkItems.__new__(_SkItems, ())
    cdef size_t *pp
    cdef size_t *lp
    cdef object item
    b.n = n
    b.ptrs = np.empty(n, dtype=np.uintp)
    b.lens = np.empty(n, dtype=np.uintp)
    pp = <size_t *>b.ptrs.data
    lp = <size_t *>b.lens.data
    for i in range(n):
        item = items[i]
        if type(item) is bytes:
            pp[i] = <size_t>PyBytes_AS_STRING(item)
            size = PyBytes_GET_SIZE(item)
        elif type(item) is str:
            pp[i] = <size_t>PyUnicode_AsUTF8AndSize(item, &size)
        else:
            return None
        lp[i] = <size_t>size
    b.src = items
    return b


cdef object _sk_int_array(object items):
    """A C-contiguous int64 or uint64 copy/view of a numpy integer array, or
    None when items is not a numpy integer array."""
    if not isinstance(items, np.ndarray):
        return None
    if items.dtype.kind == "i":
        arr = np.ascontiguousarray(items, dtype=np.int64)
    elif items.dtype.kind == "u":
        arr = np.ascontiguousarray(items, dtype=np.uint64)
    else:
        return None
    if arr.ndim != 1:
        raise ValueError(_sk_err.SKETCH_ITEMS_NDIM)
    return arr


cdef object _sk_scalar_increment(object increments, object limit, str err_type,
                                 str err_negative, str err_big):
    """The value when increments is a single int (checked as
    _sk_uint_increments checks), else None."""
    if isinstance(increments, (bool, float, np.bool_, np.floating, np.complexfloating, complex,
                               str, bytes, bytearray)):
        raise TypeError(err_type)
    if isinstance(increments, int) or isinstance(increments, np.integer):
        v = int(increments)
        if v < 0:
            raise ValueError(err_negative)
        if v > limit:
            raise ValueError(err_big)
        return v
    if isinstance(increments, np.generic) or not hasattr(increments, "__iter__"):
        raise TypeError(err_type)  # a scalar of another kind
    return None


cdef object _sk_uint_increments(object increments, Py_ssize_t n, object limit, str err_type,
                                str err_negative, str err_big):
    """increments (one int for all, or a sequence/array of n ints) as a
    C-contiguous uint64 array; all checked before anything is applied.
    err_* are the messages for a non-integer, a negative and a too-big value."""
    if isinstance(increments, (bool, float, np.bool_, np.floating, np.complexfloating, complex,
                               str, bytes, bytearray)):
        raise TypeError(err_type)
    if isinstance(increments, np.generic) or not hasattr(increments, "__iter__"):
        if not (isinstance(increments, int) or isinstance(increments, np.integer)):
            raise TypeError(err_type)  # a scalar of another kind
    if isinstance(increments, int) or isinstance(increments, np.integer):
        v = int(increments)
        if v < 0:
            raise ValueError(err_negative)
        if v > limit:
            raise ValueError(err_big)
        return np.full(n, v, dtype=np.uint64)
    if isinstance(increments, np.ndarray):
        if increments.dtype.kind not in "iu":
            raise TypeError(err_type)
        if increments.ndim != 1:
            raise ValueError(_sk_err.SKETCH_INCREMENTS_NDIM)
        if increments.shape[0] != n:
            raise ValueError(_sk_err.SKETCH_INCREMENTS_LENGTH)
        if n and increments.dtype.kind == "i" and increments.min() < 0:
            raise ValueError(err_negative)
        if n and int(increments.max()) > limit:
            raise ValueError(err_big)
        return np.ascontiguousarray(increments, dtype=np.uint64)
    seq = tuple(increments)
    if len(seq) != n:
        raise ValueError(_sk_err.SKETCH_INCREMENTS_LENGTH)
    cdef cnp.ndarray[cnp.uint64_t, ndim=1] out = np.empty(n, dtype=np.uint64)
    cdef Py_ssize_t i
    for i in range(n):
        v = seq[i]
        if isinstance(v, bool) or not (isinstance(v, int) or isinstance(v, np.integer)):
            raise TypeError(err_type)
        v = int(v)
        if v < 0:
            raise ValueError(err_negative)
        if v > limit:
            raise ValueError(err_big)
        out[i] = v
    return out


cdef size_t _sk_dim(object value, str message, uint64_t limit) except 0:
    """A dimension: an int in [1, limit], else ValueError/TypeError(message)."""
    if isinstance(value, bool) or not (isinstance(value, int) or isinstance(value, np.integer)):
        raise TypeError(message)
    v = int(value)
    if v < 1 or v > limit:
        raise ValueError(message)
    return <size_t>v


def murmurhash2(item, seed=0):
    """32-bit MurmurHash2 of an item (encoded as redis-py encodes it) with a
    32-bit seed: the hash RedisBloom 2.8 uses for CMS rows (seed = row) and
    TopK fingerprints (seed 1919).  O(len).

    >>> murmurhash2(b"a", 0)
    2456313694
    """
    cdef bytes b = _sk_item_bytes(item)
    cdef uint32_t s = <uint32_t>(int(seed) & 0xFFFFFFFF)
    return fr_murmur2(PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b), s)


# ---- CountMinSketch ----------------------------------------------------------

# A numpy integer batch of at least this many items over at least 2 rows runs
# on up to fastrank.get_threads() threads: in blocks, the threads sharing out
# the hashing and then the rows (fr_cms_par_*, see cms.c), or, where that
# path is unavailable, each thread taking a run of rows.  Smaller batches,
# and batches of Python objects, run on the calling thread.  (Splitting a
# list of str measured slower: reading the items is serial.)
_CMS_PARALLEL_MIN = 65536

# Items per block of the two-phase threaded path (fr_cms_par_new; 0: its
# default).  Tests shrink it to put many block boundaries in small batches.
_CMS_PAR_BLOCK = 0

# Values below this share one int object per result list (see _cms_int_list).
cdef enum:
    _CMS_INT_CACHE = 65536


cdef list _cms_int_list(const uint32_t *res, Py_ssize_t n):
    """res[0..n) as a list of ints.  Most results of a skewed stream are small
    counts that repeat, so each value below _CMS_INT_CACHE is made into an
    int once per call and shared (ints are immutable; CPython itself shares
    its small ints); larger values get their own."""
    cdef Py_ssize_t i, size = n if n < _CMS_INT_CACHE else _CMS_INT_CACHE
    cdef PyObject **cache = <PyObject **>calloc(size + 1, sizeof(PyObject *))
    cdef PyObject *lst
    cdef PyObject *o
    cdef uint32_t v
    cdef bint failed = False
    cdef list result
    if cache == NULL:
        raise MemoryError()
    try:
        lst = _cms_PyList_New(n)
    except MemoryError:
        free(cache)
        raise
    for i in range(n):
        v = res[i]
        if v < <uint32_t>size:
            o = cache[v]
            if o == NULL:
                o = _cms_PyLong_FromUnsignedLong(v)
                if o == NULL:
                    failed = True
                    break
                cache[v] = o
            _cms_Py_INCREF(o)
        else:
            o = _cms_PyLong_FromUnsignedLong(v)
            if o == NULL:
                failed = True
                break
        _cms_PyList_SET_ITEM(lst, i, o)
    for i in range(size):
        _cms_Py_XDECREF(cache[i])
    free(cache)
    if failed:  # the list frees the items set so far (unset ones are NULL)
        _cms_Py_DECREF(lst)
        raise MemoryError()
    result = <list>lst
    _cms_Py_DECREF(lst)
    return result


cdef class _CmsRowsJob:
    """One incrby batch of integer items, ready to run over any run of the
    sketch's rows with the GIL released (``run``), one call per thread.
    Holds every object whose memory the C code reads: the sketch, the items
    and the increments."""
    cdef CountMinSketch sk
    cdef cnp.ndarray items
    cdef cnp.ndarray incr
    cdef int unsigned
    cdef const uint64_t *incp
    cdef uint64_t incr1

    def run(self, size_t row0, size_t row1, cnp.ndarray out):
        """Rows [row0, row1) of the batch; out (uint32, or None) gets each
        item's minimum over those rows."""
        cdef fr_cms *c = &self.sk.c
        cdef const void *items = self.items.data
        cdef size_t n = self.items.shape[0]
        cdef uint32_t *res = NULL if out is None else <uint32_t *>out.data
        with nogil:
            fr_cms_incrby_ints_rows(c, items, self.unsigned, n, self.incp, self.incr1, row0, row1,
                                    res)


cdef class _CmsParJob:
    """A two-phase threaded batch (fr_cms_par) and the arrays it reads and
    writes, for CountMinSketch._incrby_threaded."""
    cdef fr_cms_par *p
    cdef object keep

    def __dealloc__(self):
        fr_cms_par_free(self.p)


def _cms_par_part(_CmsParJob job, int role):
    """One thread's part of a two-phase batch, with the GIL released."""
    cdef fr_cms_par *p = job.p
    with nogil:
        fr_cms_par_run(p, role)


cdef class CountMinSketch:
    """Count-Min Sketch with RedisBloom 2.8's layout, hashing and limits.

    ``width x depth`` unsigned 32-bit counters that saturate at 2**32 - 1.
    Row ``i`` puts an item in column ``MurmurHash2(item, seed=i) % width``,
    so for the same inserts every counter, ``incrby`` reply, ``query``
    answer and ``info()`` equals RedisBloom 2.8's CMS.* replies.

    >>> cms = CountMinSketch(10, 3)
    >>> cms.incrby(["a", "b"], [1, 2])
    [1, 2]
    >>> cms.query(["a", "b", "c"])
    [1, 2, 0]
    >>> cms.info()
    {'width': 10, 'depth': 3, 'count': 3}

    Each call (a whole batch included) is atomic with respect to other
    Python threads.  Methods hold the GIL for their whole run, except that a
    big ``incrby`` / ``add_many`` batch of a numpy integer array (at least
    65,536 items, depth >= 2, ``fastrank.get_threads() > 1``) is shared
    between worker threads with the GIL released; meanwhile any other
    call on the same sketch waits for it.  Do not modify the array while
    such a batch reads it.

    :param width: columns, an int in [1, 2**63 - 1] (ValueError ``CMS:
        invalid width``).
    :param depth: rows, likewise (``CMS: invalid depth``).
    :raises ValueError: ``CMS: invalid init arguments`` when width * depth
        passes 2**63 - 1 (RedisBloom 2.8's limit).
    :raises MemoryError: ``CMS: Insufficient memory to create the key`` when
        the counters cannot be allocated.
    """

    cdef fr_cms c
    cdef _BatchGate gate  # busy while a threaded batch runs on c without the GIL

    #: The counter value that marks overflow in ``incrby`` results.
    OVERFLOW = CMS_OVERFLOW

    def __cinit__(self, width=None, depth=None, *args, **kwargs):
        # Allocation happens in __init__ (or from_bytes); c starts empty.
        self.gate = _BatchGate.__new__(_BatchGate)
        self.c.cells = NULL
        self.c.width = 0
        self.c.depth = 0
        self.c.count = 0

    def __init__(self, width, depth):
        if self.c.cells != NULL:
            raise TypeError(_sk_err.CMS_ALREADY_READY)
        cdef size_t w = _sk_dim(width, CMS_ERR_WIDTH, <uint64_t>_INT64_MAX)
        cdef size_t d = _sk_dim(depth, CMS_ERR_DEPTH, <uint64_t>_INT64_MAX)
        self._alloc(w, d)

    cdef int _alloc(self, size_t w, size_t d) except -1:
        """Counters for w x d (each in [1, 2^63 - 1]).  As RedisBloom 2.8:
        ValueError ``CMS: invalid init arguments`` when w * d passes
        2^63 - 1; MemoryError ``CMS: Insufficient memory to create the key``
        when the counters cannot be allocated."""
        cdef fr_cms fresh
        if w > <size_t>_INT64_MAX // d:
            raise ValueError(CMS_ERR_INIT)
        if fr_cms_init(&fresh, w, d) != FR_CMS_OK:
            raise MemoryError(CMS_ERR_NO_MEMORY)
        fr_cms_release(&self.c)
        self.c = fresh
        return 0

    def __dealloc__(self):
        fr_cms_release(&self.c)

    cdef inline int _ready(self) except -1:
        """TypeError unless __init__ (or from_error / from_bytes) gave the
        sketch its counters: an object made by __new__ alone, or by a
        subclass whose __init__ skips CountMinSketch.__init__, has none."""
        if self.c.cells == NULL:
            raise TypeError(CMS_ERR_NOT_READY)
        return 0

    @classmethod
    def from_error(cls, error, probability):
        """A sketch sized as CMS.INITBYPROB sizes it (RedisBloom 2.8).

        ``width = ceil(2 / error)`` in double precision and
        ``depth = ceil(log10f(probability) / log10f(0.5))`` in single
        precision, as RedisBloom computes them (so probability 0.249999999999
        gives depth 2, not 3).  O(width * depth).

        >>> CountMinSketch.from_error(0.01, 0.01).info()
        {'width': 200, 'depth': 7, 'count': 0}

        :raises ValueError: ``CMS: invalid overestimation value`` unless
            0 < error < 1; ``CMS: invalid prob value`` unless
            0 < probability < 1; ``CMS: invalid init arguments`` when the
            sizes are unusable (depth 0 because probability rounds to 1.0 in
            single precision, or an infinite/too large size).
        """
        if isinstance(error, bool) or not isinstance(error, (int, float, np.integer, np.floating)):
            raise TypeError(CMS_ERR_ERROR)
        if isinstance(probability, bool) or not isinstance(
                probability, (int, float, np.integer, np.floating)):
            raise TypeError(CMS_ERR_PROB)
        cdef double e = error, p = probability
        if not (e > 0.0 and e < 1.0):
            raise ValueError(CMS_ERR_ERROR)
        if not (p > 0.0 and p < 1.0):
            raise ValueError(CMS_ERR_PROB)
        cdef double wd = ceil(2.0 / e)
        cdef float q = log10f(<float>p) / log10f(<float>0.5)
        cdef float dd = ceilf(q)
        if (not isfinite(wd) or not isfinite(dd) or dd < 1.0 or wd >= 9223372036854775808.0
                or dd >= 9223372036854775808.0):
            raise ValueError(CMS_ERR_INIT)
        cdef CountMinSketch out = cls.__new__(cls)
        out._alloc(<size_t>wd, <size_t>dd)
        return out

    # -- properties --------------------------------------------------------
    @property
    def width(self):
        """Columns per row."""
        return self.c.width

    @property
    def depth(self):
        """Rows."""
        return self.c.depth

    @property
    def total(self):
        """Sum of all increments as RedisBloom reports it: signed 64-bit,
        wrapping (it counts increments that saturated, too)."""
        self.gate.wait()
        cdef int64_t s = <int64_t>self.c.count
        return s

    def info(self):
        """CMS.INFO as a dict: ``{'width': w, 'depth': d, 'count': total}``. O(1)."""
        self._ready()
        return {"width": self.c.width, "depth": self.c.depth, "count": self.total}

    # -- counting ------------------------------------------------------------
    def incrby(self, items, increments=1):
        """Add each increment to its item, in order, as CMS.INCRBY does.

        O(n * depth).  Returns, per item, the minimum of its counters after
        its own increment: a list of ints, or a uint32 ndarray when items is
        a numpy array.  A result equal to ``CountMinSketch.OVERFLOW``
        (2**32 - 1) is the saturated value RedisBloom reports as the error
        element ``CMS: INCRBY overflow``; nothing is raised for it.

        items: a sequence of bytes/str/int/float items, or a numpy array (an
        integer array is hashed as each number's decimal text, as redis-py
        sends ints, without a Python object per item).  increments: one int
        for all items, or a sequence/array of ints in [0, 2**63 - 1].

        >>> cms = CountMinSketch(10, 3)
        >>> cms.incrby(["a", "a"], [5, 1])
        [5, 6]

        :raises TypeError: a non-integer increment (``CMS: Cannot parse
            number``) or an item of an unsupported type.
        :raises ValueError: a negative increment (``CMS: Number cannot be
            negative``), one above 2**63 - 1 (``CMS: Cannot parse number``),
            or lengths that differ.  Every check runs before the first
            counter changes, so on error the sketch is unchanged.
        """
        return self._incrby(items, increments, True)

    def add_many(self, items, increments=1):
        """``incrby`` without the per-item results, for streams. O(n * depth).

        Same items, increments, checks and effect as ``incrby``; returns None
        (no result list or array is built).

        >>> cms = CountMinSketch(10, 3)
        >>> cms.add_many(["a", "b", "a"])
        >>> cms.query(["a", "b"])
        [2, 1]
        """
        self._incrby(items, increments, False)

    cdef object _incrby(self, object items, object increments, bint replies):
        cdef cnp.ndarray arr = _sk_int_array(items)
        cdef cnp.ndarray incr = None
        cdef cnp.ndarray out = None
        cdef _SkItems batch = None
        cdef Py_ssize_t n, k = 1
        cdef bint unsigned
        cdef const uint64_t *incp = NULL
        cdef uint64_t incr1 = 0
        cdef uint32_t *res = NULL
        self._ready()
        one = _sk_scalar_increment(increments, _INT64_MAX, CMS_ERR_PARSE, CMS_ERR_NEGATIVE,
                                   CMS_ERR_PARSE)
        if one is not None and type(items) is list:
            # A list of bytes / str with one increment: wait for the gate,
            # then point straight into the caller's list; nothing from here
            # to the C call runs Python code or lets go of the GIL.
            self.gate.wait()
            batch = _sk_list_now(<list>items)
            if batch is not None:
                n = batch.n
                if replies:
                    out = np.empty(n, dtype=np.uint32)
                    res = <uint32_t *>out.data
                fr_cms_incrby_strs(&self.c, batch.items(), batch.sizes(), n, NULL, one, res)
                return _cms_int_list(res, n) if replies else None
        if arr is None:
            batch = _SkItems(items)  # the batch's own copy (see _SkItems)
            n = batch.n
        else:
            n = arr.shape[0]
        if one is None:
            incr = _sk_uint_increments(increments, n, _INT64_MAX, CMS_ERR_PARSE,
                                       CMS_ERR_NEGATIVE, CMS_ERR_PARSE)
            incp = <const uint64_t *>incr.data
        else:
            incr1 = one
        if replies:
            out = np.empty(n, dtype=np.uint32)
            res = <uint32_t *>out.data
        if arr is not None and n >= _CMS_PARALLEL_MIN and self.c.depth >= 2:
            k = min(_threads.get_threads(), self.c.depth)
        if arr is not None and arr.shape[0] != n:
            raise RuntimeError(_sk_err.SKETCH_ARRAY_RESIZED)
        if k > 1:
            self._incrby_threaded(k, arr, incr, incr1, out)
        elif arr is not None:
            unsigned = arr.dtype.kind == "u"
            self.gate.wait()
            fr_cms_incrby_ints(&self.c, arr.data, unsigned, n, incp, incr1, res)
        else:
            self.gate.wait()
            batch.bind()
            fr_cms_incrby_strs(&self.c, batch.items(), batch.sizes(), n, incp, incr1, res)
        if not replies or isinstance(items, np.ndarray):
            return out
        return _cms_int_list(res, n)

    cdef int _incrby_threaded(self, Py_ssize_t k, cnp.ndarray arr, cnp.ndarray incr,
                              uint64_t incr1, cnp.ndarray out) except -1:
        """The integer batch arr on k threads (k <= depth): in two phases per
        block with k row groups (fr_cms_par_new), or else with its rows split
        into k runs, one per thread.  Each cell sees exactly the increments,
        in the order, of the one-thread run; out (or None) gets the
        element-wise minimum over the row groups; the count is added once."""
        cdef _CmsRowsJob job = _CmsRowsJob.__new__(_CmsRowsJob)
        cdef _CmsParJob par = _CmsParJob.__new__(_CmsParJob)
        cdef size_t d = self.c.depth, n = arr.shape[0]
        cdef Py_ssize_t i
        cdef const uint64_t *incp = NULL if incr is None else <const uint64_t *>incr.data
        # Enter the gate (which may wait, GIL released) before any pointer
        # into the arrays is handed to C; every array is held by this call.
        self.gate.enter()  # other calls wait for it (gate.wait)
        try:
            par.p = fr_cms_par_new(&self.c, arr.data, arr.dtype.kind == "u", n, incp, incr1,
                                   NULL if out is None else <uint32_t *>out.data, k,
                                   _CMS_PAR_BLOCK)
            if par.p != NULL:
                par.keep = (arr, incr, out)
                _threads.run_parallel(_cms_par_part, [(par, i) for i in range(k)])
                fr_cms_add_count(&self.c, n, incp, incr1)
                return 0
            job.sk = self
            job.items = arr
            job.unsigned = arr.dtype.kind == "u"
            job.incr = incr
            job.incp = incp
            job.incr1 = incr1
            outs = [out] + [None if out is None else np.empty(n, dtype=np.uint32)
                            for i in range(1, k)]
            calls = [(i * d // k, (i + 1) * d // k, outs[i]) for i in range(k)]
            _threads.run_parallel(job.run, calls)
            fr_cms_add_count(&self.c, n, incp, incr1)
        finally:
            self.gate.leave()
        if out is not None:
            for i in range(1, k):
                np.minimum(out, outs[i], out=out)
        return 0

    def query(self, items):
        """The estimated total of each item (CMS.QUERY): the minimum of its
        counters, 0 for an item never added.  O(n * depth).

        A list of ints, or a uint32 ndarray when items is a numpy array.

        >>> cms = CountMinSketch(10, 3)
        >>> _ = cms.incrby(["a"], [3])
        >>> cms.query(["a", "zz"])
        [3, 0]
        """
        cdef cnp.ndarray arr = _sk_int_array(items)
        cdef cnp.ndarray out
        cdef _SkItems batch
        cdef Py_ssize_t n
        cdef bint unsigned
        self._ready()
        if arr is not None:
            n = arr.shape[0]
            out = np.empty(n, dtype=np.uint32)
            unsigned = arr.dtype.kind == "u"
            self.gate.wait()
            fr_cms_query_ints(&self.c, arr.data, unsigned, n,
                              <uint32_t *>out.data)
            return out
        if type(items) is list:  # as in _incrby: the caller's list, gate first
            self.gate.wait()
            batch = _sk_list_now(<list>items)
            if batch is not None:
                n = batch.n
                out = np.empty(n, dtype=np.uint32)
                fr_cms_query_strs(&self.c, batch.items(), batch.sizes(), n,
                                  <uint32_t *>out.data)
                return _cms_int_list(<uint32_t *>out.data, n)
        batch = _SkItems(items)
        n = batch.n
        out = np.empty(n, dtype=np.uint32)
        self.gate.wait()
        batch.bind()
        fr_cms_query_strs(&self.c, batch.items(), batch.sizes(), n, <uint32_t *>out.data)
        if isinstance(items, np.ndarray):
            return out
        return _cms_int_list(<uint32_t *>out.data, n)

    def merge(self, sources, weights=None):
        """Overwrite this sketch with ``sum(w * s for s, w in zip(sources,
        weights))``, as CMS.MERGE does (weights default to 1; they may be
        negative).  O(len(sources) * width * depth).

        The sketch may itself be one of the sources.  Everything is checked
        before any counter is written; on error the sketch is unchanged.

        >>> a, b = CountMinSketch(10, 3), CountMinSketch(10, 3)
        >>> _ = a.incrby(["x"], [4])
        >>> dest = CountMinSketch(10, 3)
        >>> dest.merge([a, a], [2, -1])
        >>> dest.query(["x"]), dest.total
        ([4], 4)

        :raises TypeError: a source that is not a CountMinSketch, or a
            non-integer weight (``CMS: invalid weight value``).
        :raises ValueError: no sources; ``CMS: width/depth is not equal``;
            ``CMS: wrong number of keys/weights``; a weight outside signed
            64-bit (``CMS: invalid weight value``).
        :raises OverflowError: ``CMS: MERGE overflow`` when a counter would
            leave [0, 2**32 - 1], the total would be negative, or any step
            leaves signed 64-bit.
        """
        cdef list srcs = list(sources)
        cdef Py_ssize_t i, n = len(srcs)
        cdef CountMinSketch s
        self._ready()
        if n == 0:
            raise ValueError(_sk_err.CMS_MERGE_NO_SOURCE)
        for i in range(n):
            if not isinstance(srcs[i], CountMinSketch):
                raise TypeError(_sk_err.CMS_MERGE_SOURCE_TYPE)
            (<CountMinSketch>srcs[i])._ready()
        if weights is None:
            wlist = [1] * n
        else:
            wlist = list(weights)
            if len(wlist) != n:
                raise ValueError(CMS_ERR_WRONG_KEYS_WEIGHTS)
        cdef cnp.ndarray[cnp.int64_t, ndim=1] w = np.empty(n, dtype=np.int64)
        for i in range(n):
            v = wlist[i]
            if isinstance(v, bool) or not (isinstance(v, int) or isinstance(v, np.integer)):
                raise TypeError(CMS_ERR_WEIGHT)
            if not (-0x8000000000000000 <= int(v) <= _INT64_MAX):
                raise ValueError(CMS_ERR_WEIGHT)
            w[i] = int(v)
        self._wait_all(srcs)
        cdef const fr_cms **ptrs = <const fr_cms **>malloc(n * sizeof(fr_cms *))
        if ptrs == NULL:
            raise MemoryError()
        for i in range(n):
            s = <CountMinSketch>srcs[i]
            ptrs[i] = &s.c
        rc = fr_cms_merge(&self.c, ptrs, <int64_t *>w.data, n)
        free(ptrs)
        if rc == FR_CMS_ESHAPE:
            raise ValueError(CMS_ERR_SHAPE)
        if rc == FR_CMS_EOVERFLOW:
            raise OverflowError(CMS_ERR_MERGE_OVERFLOW)

    cdef int _wait_all(self, list others) except -1:
        """gate.wait for this sketch and every CountMinSketch in others,
        until none of them is busy at once."""
        cdef CountMinSketch s
        cdef bint waited = True
        while waited:
            waited = False
            for o in [self] + others:
                s = <CountMinSketch>o
                if s.gate.busy:
                    s.gate.wait()
                    waited = True
        return 0

    # -- copies, equality, serialization -------------------------------------
    def counters(self):
        """A copy of the counters as a (depth, width) uint32 ndarray. O(w*d)."""
        self._ready()
        out = np.empty((self.c.depth, self.c.width), dtype=np.uint32)
        cdef cnp.ndarray o = out
        self.gate.wait()
        memcpy(o.data, self.c.cells, self.c.width * self.c.depth * sizeof(uint32_t))
        return out

    def copy(self):
        """An independent copy, of type(self) with its instance attributes
        (shallow) when that is a subclass. O(width * depth)."""
        self._ready()
        cdef CountMinSketch out = type(self).__new__(type(self))
        self.gate.wait()
        if fr_cms_copy(&out.c, &self.c) != FR_CMS_OK:
            raise MemoryError()
        return _set_instance_state(out, _instance_state(self))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        import copy as _copy
        out = self.copy()
        return _set_instance_state(out, _copy.deepcopy(_instance_state(self), memo))

    def __eq__(self, other):
        if not isinstance(other, CountMinSketch):
            return NotImplemented
        cdef CountMinSketch o = <CountMinSketch>other
        self._wait_all([o])
        if (self.c.width, self.c.depth, self.c.count) != (o.c.width, o.c.depth, o.c.count):
            return False
        return self.to_bytes() == o.to_bytes()

    __hash__ = None

    def to_bytes(self):
        """Serialize (fastrank's own format, version 1, little-endian; the
        byte layout is documented atop cms.c). O(width * depth)."""
        self._ready()
        cdef size_t size = fr_cms_serialized_size(&self.c)
        cdef bytes out = PyBytes_FromStringAndSize(NULL, size)
        self.gate.wait()
        fr_cms_serialize(&self.c, <unsigned char *>PyBytes_AS_STRING(out))
        return out

    @classmethod
    def from_bytes(cls, data):
        """A sketch from ``to_bytes()`` output.

        :raises ValueError: data is not exactly a valid version-1
            serialization (wrong magic, version, reserved bytes, dimensions
            or length).
        """
        cdef const unsigned char[::1] view = memoryview(data).cast("B")
        cdef CountMinSketch out = cls.__new__(cls)
        cdef fr_cms fresh
        cdef int rc = fr_cms_deserialize(&fresh, &view[0] if view.shape[0] else NULL,
                                         view.shape[0])
        if rc == FR_CMS_EFORMAT:
            raise ValueError(_sk_err.CMS_NOT_SERIALIZED)
        if rc != FR_CMS_OK:
            raise MemoryError()
        out.c = fresh
        return out

    def __reduce__(self):
        """Pickles as from_bytes of type(self) (a subclass stays one), with
        the instance attributes of a subclass."""
        return (type(self).from_bytes, (self.to_bytes(),), _instance_state(self))

    def __setstate__(self, state):
        _set_instance_state(self, state)

    def __repr__(self):
        if self.c.cells == NULL:
            return "CountMinSketch(not initialised)"
        return f"CountMinSketch(width={self.c.width}, depth={self.c.depth}, total={self.total})"
