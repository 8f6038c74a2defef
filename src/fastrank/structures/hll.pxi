# hll.pxi -- HyperLogLog: the Redis 7.0 HLL string, wrapped (included by
# _core.pyx; the C core is hll.c, declared in hll.pxd).
#
# A HyperLogLog object owns one C fr_hll (hll.c), whose buffer *is* the
# value Redis stores for an HLL key: to_bytes() is what GET returns,
# from_bytes() accepts what GET returned.  Two levels of API:
#
# - the class, for direct use: add / add_many / count / merge / union_count;
# - pfadd_bytes / pfcount_bytes / pfcount_union_bytes / pfmerge_bytes,
#   which take and return raw string values with PFADD / PFCOUNT / PFMERGE
#   semantics (lazy validation, cache writes, partial effects on error)
#   so fastrank.Engine can keep HLLs as ordinary string values.
#
# Every module-level name here starts with _hll / HLL / HyperLogLog / pf*
# because this file shares one module namespace with the other .pxi files.
#
# Threads.  add_many of a big numpy integer array runs in three steps: the
# elements that meet a sparse value go through the C core in order, with
# the GIL held (the sparse bytes depend on the order); once the value is
# dense, the rest is split into parts (fastrank._threads: parts /
# run_parallel, fastrank.set_threads), each part reduced to per-register
# maximum ranks by fr_hll_int_max on its own 16 KB array with the GIL
# released (it reads only the array and writes only its own maxima); the
# maxima are then max-merged and applied to the registers with the GIL held
# (fr_hll_dense_apply_max).  The bytes, the return value and the cache flag
# are those of the one-thread path, which is the same call with one part.
#
# While the parts run, other Python threads may run too.  The HyperLogLog
# is "busy" from before its sparse part until the maxima are applied:
# every method that reads or changes the value first waits until the
# object is not busy (_BatchGate, batch_gate.pxi), so each add_many still looks atomic
# to other threads, as it did when the whole call held the GIL.
# The array is kept alive by the calls' arguments and only read; changing
# its contents from another thread meanwhile gives an unspecified (valid)
# HLL, as with any numpy operation that releases the GIL.

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.unicode cimport PyUnicode_AsUTF8AndSize
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset

from hll cimport *

import numpy as _hll_np

from fastrank import _threads as _hll_threads

# The smallest part worth a thread: far more work on one thread than the
# hand-off to the pool costs (figures: bench/results/core-measurements.md,
# "HyperLogLog threads").
HLL_PART_MIN = 1 << 15

# Redis's two HyperLogLog error lines, from the one table in fastrank.errors.
from fastrank.errors import HLL_CORRUPTED as HLL_CORRUPTED_TEXT, HLL_NOT_VALID as HLL_NOT_VALID_TEXT
from fastrank import errors as _hll_err


class HyperLogLogError(ValueError):
    """A string that Redis would refuse as a HyperLogLog; str() is Redis's error line."""


class NotAHyperLogLog(HyperLogLogError):
    """Bad header: Redis's ``WRONGTYPE Key is not a valid HyperLogLog string value.``"""

    def __init__(self, msg=HLL_NOT_VALID_TEXT):
        super().__init__(msg)


class CorruptHyperLogLog(HyperLogLogError):
    """Bad sparse payload: Redis's ``INVALIDOBJ Corrupted HLL object detected``.

    ``value`` holds the string as the failed command left it (Redis keeps
    the updates a PFADD made before it met the corruption), or None.
    """

    def __init__(self, msg=HLL_CORRUPTED_TEXT, value=None):
        super().__init__(msg)
        self.value = value


cdef int _hll_raise(int rc, object value=None) except -1:
    if rc == FR_HLL_ERR_NOMEM:
        raise MemoryError()
    if rc == FR_HLL_ERR_NOTHLL:
        raise NotAHyperLogLog()
    if rc == FR_HLL_ERR_CORRUPT:
        raise CorruptHyperLogLog(HLL_CORRUPTED_TEXT, value)
    raise SystemError(_hll_err.HLL_UNEXPECTED % rc)


cdef inline size_t _hll_check_smax(object sparse_max_bytes) except? 0:
    cdef long long v = sparse_max_bytes
    if v < 0:
        raise ValueError(_hll_err.HLL_SPARSE_MAX_NEGATIVE)
    return <size_t>v


cdef bytes _hll_member_bytes(object item):
    """A member that is not exact bytes/str/int, encoded as redis-py would."""
    if isinstance(item, bool) or item is None:
        raise TypeError(_hll_err.HLL_MEMBER_TYPE % (type(item).__name__,))
    if isinstance(item, (bytes, bytearray, memoryview)):
        return bytes(item)
    if isinstance(item, str):
        return (<str>item).encode("utf-8")
    if isinstance(item, int):
        return str(int(item)).encode("ascii")
    if isinstance(item, float):
        return repr(item).encode("ascii")
    raise TypeError(_hll_err.HLL_MEMBER_TYPE % (type(item).__name__,))


cdef int _hll_add_obj(fr_hll *h, object item, size_t smax) except -9:
    """Add one member; fr_hll_add's result (1/0 or a negative FR_HLL_ERR_*)."""
    cdef const char *p
    cdef Py_ssize_t n
    cdef int64_t iv
    cdef size_t done
    cdef object t = type(item)
    if t is bytes:
        return fr_hll_add(h, PyBytes_AS_STRING(item), <size_t>PyBytes_GET_SIZE(item), smax)
    if t is str:
        p = PyUnicode_AsUTF8AndSize(item, &n)
        return fr_hll_add(h, p, <size_t>n, smax)
    if t is int and -9223372036854775807 <= item <= 9223372036854775807:
        iv = item
        return fr_hll_add_many_i64(h, &iv, 1, smax, &done)
    b = _hll_member_bytes(item)
    return fr_hll_add(h, PyBytes_AS_STRING(b), <size_t>PyBytes_GET_SIZE(b), smax)


def _hll_max_part(arr, int is_signed, Py_ssize_t start, Py_ssize_t stop):
    """Per-register maximum ranks of arr[start:stop] (numpy int64 / uint64,
    contiguous), computed without the GIL; a uint8 array of 16384."""
    out = _hll_np.zeros(FR_HLL_REGISTERS, dtype=_hll_np.uint8)
    cdef uint8_t[::1] o = out
    cdef const int64_t[::1] iv
    cdef const uint64_t[::1] uv
    cdef const void *p
    if is_signed:
        iv = arr
        p = &iv[start]
    else:
        uv = arr
        p = &uv[start]
    with nogil:
        fr_hll_int_max(&o[0], p, is_signed, <size_t>(stop - start))
    return out


cdef int _hll_add_ints(fr_hll *h, object arr, int is_signed, size_t smax,
                       HyperLogLog owner) except -9:
    """Add a contiguous int64 / uint64 array (n >= 1): the sparse part in
    order, then the dense rest on up to get_threads() threads.  owner is
    the HyperLogLog that holds h (busy from before the sparse part until
    the maxima are applied, so no other thread sees the batch half done),
    or None for a private value."""
    cdef const int64_t[::1] iv
    cdef const uint64_t[::1] uv
    cdef const void *p
    cdef size_t n = <size_t>arr.shape[0], done = 0
    cdef int rc, changed
    cdef Py_ssize_t off
    cdef const uint8_t[::1] mv
    if is_signed:
        iv = arr
        p = &iv[0]
    else:
        uv = arr
        p = &uv[0]
    if n < 2 * <size_t>HLL_PART_MIN or _hll_threads.get_threads() == 1:
        # one thread: a single C call, the GIL held throughout
        if is_signed:
            return fr_hll_add_many_i64(h, <const int64_t *>p, n, smax, &done)
        return fr_hll_add_many_u64(h, <const uint64_t *>p, n, smax, &done)
    if owner is not None:
        owner._gate.enter()
    try:
        changed = fr_hll_add_ints_sparse(h, p, is_signed, n, smax, &done)
        if changed < 0 or done == n:
            return changed
        ps = _hll_threads.parts(<Py_ssize_t>(n - done), HLL_PART_MIN)
        if len(ps) == 1:
            p = <const char *>p + 8 * done
            if is_signed:
                rc = fr_hll_add_many_i64(h, <const int64_t *>p, n - done, smax, &done)
            else:
                rc = fr_hll_add_many_u64(h, <const uint64_t *>p, n - done, smax, &done)
            return rc if rc < 0 else rc | changed
        off = <Py_ssize_t>done
        maxima = _hll_threads.run_parallel(
            _hll_max_part, [(arr, is_signed, off + a, off + b) for a, b in ps])
        m = maxima[0]
        for other in maxima[1:]:
            _hll_np.maximum(m, other, out=m)
        mv = m
        return fr_hll_dense_apply_max(h, &mv[0]) | changed
    finally:
        if owner is not None:
            owner._gate.leave()


cdef int _hll_add_seq(fr_hll *h, object items, size_t smax, HyperLogLog owner=None) except -9:
    """Add every member of items in order (one PFADD); 1/0 or FR_HLL_ERR_*.
    owner: as for _hll_add_ints."""
    cdef int rc, changed = 0
    cdef size_t done = 0, n
    cdef const uint8_t[::1] bv
    if isinstance(items, _hll_np.ndarray):
        arr = items
        if arr.ndim != 1:
            raise ValueError(_hll_err.HLL_ARRAY_NDIM)
        kind = arr.dtype.kind
        n = <size_t>arr.shape[0]
        if n == 0:
            return 0
        if kind == "i":
            return _hll_add_ints(h, _hll_np.ascontiguousarray(arr, dtype=_hll_np.int64), 1, smax, owner)
        if kind == "u":
            return _hll_add_ints(h, _hll_np.ascontiguousarray(arr, dtype=_hll_np.uint64), 0, smax, owner)
        if kind == "S":
            if arr.dtype.itemsize == 0:
                return fr_hll_add_many_fixed(h, NULL, 0, n, smax, &done)
            bv = _hll_np.ascontiguousarray(arr).view(_hll_np.uint8)
            return fr_hll_add_many_fixed(h, &bv[0], <size_t>arr.dtype.itemsize, n, smax, &done)
        if kind in "UO":
            items = arr.tolist()
        else:
            raise TypeError(_hll_err.HLL_ARRAY_DTYPE % (arr.dtype,))
    cdef object seq
    cdef Py_ssize_t i
    if type(items) is list and _hll_all_plain(<list>items):
        seq = items  # checked without running Python code, so unchanged since
    else:
        seq = _hll_members(items)
    for i in range(len(seq)):
        rc = _hll_add_obj(h, seq[i], smax)
        if rc < 0:
            return rc
        if rc:
            changed = 1
    return changed


cdef bint _hll_all_plain(list items) except -1:
    """True when every member is exact bytes, str (UTF-8 encodable; cached)
    or an int in int64 range: adding them runs no Python code, so the list
    can be used as it is.  Checking runs no Python code either."""
    cdef Py_ssize_t i, size
    cdef object item, t
    for i in range(len(items)):
        item = items[i]
        t = type(item)
        if t is bytes:
            continue
        if t is str:
            PyUnicode_AsUTF8AndSize(item, &size)  # raises for lone surrogates
            continue
        if t is int and -9223372036854775807 <= item <= 9223372036854775807:
            continue
        return False
    return True


cdef tuple _hll_members(object items):
    """items as the batch's own tuple of exact bytes, str (UTF-8 cached) and
    int (int64 range) members, every item checked first: a refused batch
    adds nothing, as for the other structures.  A lone str, bytes,
    bytearray or memoryview is refused (it is one member, not a batch)."""
    cdef Py_ssize_t i, size
    cdef list out = None
    cdef object t
    if isinstance(items, (str, bytes, bytearray, memoryview)):
        raise TypeError(_hll_err.HLL_MEMBERS_SINGLE % (type(items).__name__,))
    cdef tuple seq = tuple(items)
    for i in range(len(seq)):
        item = seq[i]
        t = type(item)
        if t is bytes:
            continue
        if t is str:
            PyUnicode_AsUTF8AndSize(item, &size)
            continue
        if t is int and -9223372036854775807 <= item <= 9223372036854775807:
            continue
        if out is None:
            out = list(seq)
        out[i] = _hll_member_bytes(item)
    return seq if out is None else tuple(out)


cdef class HyperLogLog:
    """A HyperLogLog whose state is, byte for byte, a Redis 7.0 HLL string.

    16384 six-bit registers (standard error 0.81%), MurmurHash64A, Redis's
    sparse and dense encodings and its cached cardinality, so
    ``to_bytes()`` equals what ``GET`` returns after the same PFADDs on a
    Redis server, and a value read from Redis works here.

    A new HyperLogLog holds what Redis stores after ``PFADD key`` on a
    missing key: empty, sparse, stale cache flag set (18 bytes).

    >>> h = HyperLogLog()
    >>> h.add_many([b"a", "b", 3])
    True
    >>> h.count()
    3
    >>> HyperLogLog.from_bytes(h.to_bytes()).count()
    3

    :param sparse_max_bytes: Redis's ``hll-sparse-max-bytes``: a sparse
        value that would grow beyond this many bytes (header included) is
        converted to dense.  Default 3000.
    """

    cdef fr_hll _h
    cdef size_t _smax
    cdef _BatchGate _gate   # busy while an add_many runs its parts without the GIL

    def __cinit__(self, *args, **kwargs):
        self._gate = _BatchGate.__new__(_BatchGate)
        if fr_hll_init_empty(&self._h) != FR_HLL_OK:
            raise MemoryError()
        fr_hll_invalidate_cache(&self._h)
        self._smax = FR_HLL_SPARSE_MAX_BYTES_DEFAULT

    def __init__(self, *, sparse_max_bytes=FR_HLL_SPARSE_MAX_BYTES_DEFAULT):
        self._smax = _hll_check_smax(sparse_max_bytes)

    def __dealloc__(self):
        fr_hll_release(&self._h)

    # -- construction from and to the Redis string ------------------------
    @classmethod
    def from_bytes(cls, data, *, sparse_max_bytes=FR_HLL_SPARSE_MAX_BYTES_DEFAULT, strict=True):
        """A HyperLogLog holding a copy of the Redis HLL string ``data``.  O(len).

        The header is checked as Redis checks it (``HYLL`` magic, encoding
        byte 0 or 1, dense length exactly 12304), else NotAHyperLogLog.
        With ``strict`` (the default) a sparse payload must also describe
        exactly 16384 registers, else CorruptHyperLogLog; ``strict=False``
        defers that check to the first operation that needs it, as Redis
        does after ``SET``.

        >>> HyperLogLog.from_bytes(bytes.fromhex("48594c4c0100000000000000000000807fff")).count()
        0
        """
        cdef const uint8_t[::1] view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        cdef size_t n = <size_t>view.shape[0]
        cdef const uint8_t *p = &view[0] if n else <const uint8_t *>b""
        cdef int rc = fr_hll_check_header(p, n)
        if rc != FR_HLL_OK:
            _hll_raise(rc)
        cdef HyperLogLog self = cls.__new__(cls)
        self._smax = _hll_check_smax(sparse_max_bytes)
        fr_hll_release(&self._h)
        if fr_hll_init_bytes(&self._h, p, n) != FR_HLL_OK:
            raise MemoryError()
        if strict:
            rc = fr_hll_validate(&self._h)
            if rc != FR_HLL_OK:
                _hll_raise(rc)
        return self

    def to_bytes(self):
        """The Redis string value (what ``GET`` returns).  O(len)."""
        self._gate.wait()
        return PyBytes_FromStringAndSize(<char *>self._h.buf, <Py_ssize_t>self._h.len)

    def copy(self):
        """An independent copy (same bytes, same sparse_max_bytes), of
        type(self) with its instance attributes (shallow) for a subclass."""
        self._gate.wait()
        cdef HyperLogLog other = type(self).__new__(type(self))
        fr_hll_release(&other._h)
        if fr_hll_copy(&other._h, &self._h) != FR_HLL_OK:
            raise MemoryError()
        other._smax = self._smax
        return _set_instance_state(other, _instance_state(self))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        import copy as _copy
        out = self.copy()
        return _set_instance_state(out, _copy.deepcopy(_instance_state(self), memo))

    def __reduce__(self):
        if type(self) is HyperLogLog:
            return (_hll_restore, (self.to_bytes(), self._smax))
        return (_hll_restore, (self.to_bytes(), self._smax, type(self)), _instance_state(self))

    def __setstate__(self, state):
        _set_instance_state(self, state)

    def __len__(self):
        """Length of the Redis string (STRLEN): 18.. for sparse, 12304 dense."""
        self._gate.wait()
        return self._h.len

    def __eq__(self, other):
        if not isinstance(other, HyperLogLog):
            return NotImplemented
        self._gate.wait()
        (<HyperLogLog>other)._gate.wait()
        return self.to_bytes() == (<HyperLogLog>other).to_bytes()

    __hash__ = None

    def __repr__(self):
        self._gate.wait()
        return "<HyperLogLog %s, %d bytes>" % ("sparse" if self.is_sparse else "dense", self._h.len)

    @property
    def is_sparse(self):
        """True while the value uses Redis's sparse encoding."""
        self._gate.wait()
        return bool(fr_hll_is_sparse(&self._h))

    @property
    def sparse_max_bytes(self):
        """The sparse -> dense size threshold (hll-sparse-max-bytes)."""
        return self._smax

    @sparse_max_bytes.setter
    def sparse_max_bytes(self, value):
        self._smax = _hll_check_smax(value)

    # -- updates ------------------------------------------------------------
    def add(self, item):
        """Add one member (PFADD key member); True if a register changed.  O(1) dense.

        ``bytes`` are taken as is, ``str`` UTF-8 encoded, ``int`` as decimal
        text and ``float`` as ``repr`` (as redis-py sends them).

        >>> h = HyperLogLog(); h.add("x"), h.add("x")
        (True, False)
        """
        self._gate.wait()
        cdef int rc = _hll_add_obj(&self._h, item, self._smax)
        if rc < 0:
            _hll_raise(rc)
        if rc:
            fr_hll_invalidate_cache(&self._h)
        return rc == 1

    def add_many(self, items):
        """Add members in order, as one PFADD; True if any register changed.

        O(n) once dense.  ``items`` is an iterable of members (as ``add``),
        or a 1-D numpy array: integer dtypes add each value's decimal text
        (what redis-py sends for a Python int), ``'S'`` arrays add each
        item with its trailing NUL padding removed (as numpy returns it).
        Numpy integer and ``'S'`` arrays are processed in C with no Python
        object per item.  From 65536 integers on, the part of the batch
        that meets a dense value is spread over up to
        ``fastrank.get_threads()`` threads; the value and the result are
        the same with any thread count (``fastrank.set_threads(1)`` turns
        it off).

        >>> import numpy as np
        >>> h = HyperLogLog(); h.add_many(np.arange(1000)); h.count()
        True
        1001
        """
        self._gate.wait()
        cdef int rc = _hll_add_seq(&self._h, items, self._smax, self)
        if rc < 0:
            _hll_raise(rc)
        if rc:
            fr_hll_invalidate_cache(&self._h)
        return rc == 1

    def merge(self, *others):
        """Merge others into this one, as ``PFMERGE self others...``.  O(16384 + len).

        others: HyperLogLog objects, Redis HLL strings (bytes), or None
        (an empty HLL).  The result is dense if this one or any input is
        dense, otherwise sparse (and may be promoted by size).  Nothing
        changes if an input is invalid.
        """
        self._gate.wait()
        cdef uint8_t regmax[FR_HLL_REGISTERS]
        cdef int rc
        memset(regmax, 0, FR_HLL_REGISTERS)
        cdef int use_dense = not fr_hll_is_sparse(&self._h)
        rc = fr_hll_merge_max(regmax, &self._h)
        if rc != FR_HLL_OK:
            _hll_raise(rc)
        for other in others:
            rc = _hll_merge_one(regmax, other, &use_dense)
            if rc != FR_HLL_OK:
                _hll_raise(rc)
        self._gate.wait()  # the waits for others let other threads run
        rc = fr_hll_store_max(&self._h, regmax, use_dense, self._smax)
        if rc != FR_HLL_OK:
            _hll_raise(rc)

    # -- counting -------------------------------------------------------------
    def count(self):
        """The estimated cardinality, as PFCOUNT of one key.

        The cached count is returned while valid; otherwise it is computed
        (O(16384)) and stored in the string, exactly as Redis does.  The
        result is Redis's signed 64-bit reply (negative only for forged
        registers whose estimate overflows).
        """
        self._gate.wait()
        cdef uint64_t card
        cdef int rc = fr_hll_count(&self._h, &card)
        if rc != FR_HLL_OK:
            _hll_raise(rc)
        return <int64_t>card

    def __int__(self):
        return self.count()

    @staticmethod
    def union_count(*hlls):
        """Cardinality of the union, as PFCOUNT with several keys.  O(16384 k).

        hlls: HyperLogLog objects, Redis HLL strings, or None (empty).
        No cache is read or written.
        """
        cdef uint8_t regmax[FR_HLL_REGISTERS]
        cdef int use_dense = 0, rc
        memset(regmax, 0, FR_HLL_REGISTERS)
        for other in hlls:
            rc = _hll_merge_one(regmax, other, &use_dense)
            if rc != FR_HLL_OK:
                _hll_raise(rc)
        return <int64_t>fr_hll_count_max(regmax)

    # -- diagnostics ------------------------------------------------------------
    def _registers(self):
        """All 16384 register values as a numpy uint8 array (corrupt -> error)."""
        self._gate.wait()
        out = _hll_np.zeros(FR_HLL_REGISTERS, dtype=_hll_np.uint8)
        cdef uint8_t[::1] o = out
        cdef int rc = fr_hll_registers(&self._h, &o[0])
        if rc != FR_HLL_OK:
            _hll_raise(rc)
        return out

    def _recount(self):
        """The estimate computed now, ignoring and not touching the cache."""
        self._gate.wait()
        cdef uint64_t card
        cdef int rc = fr_hll_recount(&self._h, &card)
        if rc != FR_HLL_OK:
            _hll_raise(rc)
        return <int64_t>card

    def _check(self):
        """AssertionError unless the value is a valid HLL (header and payload)."""
        self._gate.wait()
        cdef int rc = fr_hll_validate(&self._h)
        assert rc == FR_HLL_OK, "invalid HLL (%d): %s" % (rc, self.to_bytes().hex())


def _hll_restore(data, sparse_max_bytes, cls=None):
    if cls is None:
        cls = HyperLogLog
    return cls.from_bytes(data, sparse_max_bytes=sparse_max_bytes, strict=False)


cdef int _hll_merge_one(uint8_t *regmax, object other, int *use_dense) except -9:
    """Fold one PFCOUNT/PFMERGE input into regmax; FR_HLL_OK or FR_HLL_ERR_*.

    other: a HyperLogLog, a bytes-like Redis string, or None (skipped).
    Anything else raises TypeError (the Engine's WRONGTYPE for a key of
    another type, at the position Redis would report it).
    """
    cdef fr_hll tmp
    cdef int rc
    cdef const uint8_t[::1] view
    cdef size_t n
    if other is None:
        return FR_HLL_OK
    if isinstance(other, HyperLogLog):
        (<HyperLogLog>other)._gate.wait()
        if fr_hll_is_sparse(&(<HyperLogLog>other)._h) == 0:
            use_dense[0] = 1
        return fr_hll_merge_max(regmax, &(<HyperLogLog>other)._h)
    if not isinstance(other, (bytes, bytearray, memoryview)):
        raise TypeError(_hll_err.HLL_NOT_STRING % (type(other).__name__,))
    view = memoryview(other).cast("B") if not isinstance(other, bytes) else other
    n = <size_t>view.shape[0]
    rc = fr_hll_check_header(&view[0] if n else <const uint8_t *>b"", n)
    if rc != FR_HLL_OK:
        return rc
    if fr_hll_init_bytes(&tmp, &view[0], n) != FR_HLL_OK:
        return FR_HLL_ERR_NOMEM
    if fr_hll_is_sparse(&tmp) == 0:
        use_dense[0] = 1
    rc = fr_hll_merge_max(regmax, &tmp)
    fr_hll_release(&tmp)
    return rc


cdef HyperLogLog _hll_from_value(object value, size_t smax):
    """A HyperLogLog over a copy of a stored string value (header checked, lazy)."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(_hll_err.HLL_NOT_STRING % (type(value).__name__,))
    h = HyperLogLog.from_bytes(value, strict=False)
    (<HyperLogLog>h)._smax = smax
    return h


# -- raw string values, for an engine that stores HLLs as strings -------------

def pfadd_bytes(value, members, sparse_max_bytes=FR_HLL_SPARSE_MAX_BYTES_DEFAULT):
    """PFADD on a stored string value: returns ``(new_value, reply)``.

    value: the key's current string (bytes-like) or None for a missing key
    (then an empty HLL is created and reply is 1 even without members).
    members: as ``HyperLogLog.add_many``.  reply is 1 if a register changed
    or the key was created, else 0.  Raises NotAHyperLogLog for a bad header
    and CorruptHyperLogLog (with ``.value``, the string as Redis leaves it:
    store it) when the sparse walk meets corruption, as Redis does lazily.
    """
    cdef size_t smax = _hll_check_smax(sparse_max_bytes)
    cdef HyperLogLog h
    cdef int created = value is None
    h = HyperLogLog(sparse_max_bytes=smax) if created else _hll_from_value(value, smax)
    cdef int rc = _hll_add_seq(&h._h, members, smax)
    if rc < 0:
        _hll_raise(rc, h.to_bytes())
    if rc or created:
        fr_hll_invalidate_cache(&h._h)
    return h.to_bytes(), 1 if (rc or created) else 0


def pfcount_bytes(value):
    """PFCOUNT of one stored string value: ``(count, new_value_or_None)``.

    new_value is the string with the freshly computed count cached (store it
    back, as Redis modifies the value), or None when the cache was valid and
    the value is unchanged.  None as value counts 0.
    """
    if value is None:
        return 0, None
    cdef HyperLogLog h = _hll_from_value(value, FR_HLL_SPARSE_MAX_BYTES_DEFAULT)
    cdef int was_valid = fr_hll_cache_is_valid(&h._h)
    cdef uint64_t card
    cdef int rc = fr_hll_count(&h._h, &card)
    if rc != FR_HLL_OK:
        _hll_raise(rc)
    return <int64_t>card, (None if was_valid else h.to_bytes())


def pfcount_union_bytes(values):
    """PFCOUNT with several keys over their stored values (None = missing).

    Checked in order; the first bad entry decides the error (TypeError for
    an entry that is not a string value).  No cache is read or written.
    """
    return HyperLogLog.union_count(*values)


def pfmerge_bytes(dest, sources, sparse_max_bytes=FR_HLL_SPARSE_MAX_BYTES_DEFAULT):
    """PFMERGE: the new value of the destination key.

    dest: its current value or None (missing: created sparse); sources:
    values or None.  dest is checked first, then the sources in order.
    """
    cdef size_t smax = _hll_check_smax(sparse_max_bytes)
    cdef uint8_t regmax[FR_HLL_REGISTERS]
    cdef int use_dense = 0, rc
    memset(regmax, 0, FR_HLL_REGISTERS)
    rc = _hll_merge_one(regmax, dest, &use_dense)
    if rc != FR_HLL_OK:
        _hll_raise(rc)
    for src in sources:
        rc = _hll_merge_one(regmax, src, &use_dense)
        if rc != FR_HLL_OK:
            _hll_raise(rc)
    cdef HyperLogLog h
    if dest is None:
        h = HyperLogLog.__new__(HyperLogLog)
        fr_hll_release(&h._h)
        if fr_hll_init_empty(&h._h) != FR_HLL_OK:
            raise MemoryError()
    else:
        h = _hll_from_value(dest, smax)
    rc = fr_hll_store_max(&h._h, regmax, use_dense, smax)
    if rc != FR_HLL_OK:
        _hll_raise(rc)
    return h.to_bytes()


def _hll_selftest():
    """Run the C self test (hash known answers, 6-bit packing); 0 = pass."""
    return fr_hll_selftest()


def _hll_int_simd(int allow=-1):
    """Let integer batches use the AVX2 path (1) or not (0); -1 only asks.
    Returns 1 if they use it now (allowed and the CPU has it).  For tests,
    which compare the paths."""
    return fr_hll_int_simd(allow)


def _hll_hash_ints(arr):
    """Hashes of a 1-D int64 or uint64 array's decimal texts, as add_many computes them (for tests)."""
    out = _hll_np.empty(len(arr), dtype=_hll_np.uint64)
    cdef uint64_t[::1] o = out
    cdef const int64_t[::1] iv
    cdef const uint64_t[::1] uv
    cdef size_t n = <size_t>len(arr)
    if n == 0:
        return out
    if arr.dtype == _hll_np.int64:
        iv = arr
        fr_hll_hash_ints(&iv[0], 1, n, &o[0])
    elif arr.dtype == _hll_np.uint64:
        uv = arr
        fr_hll_hash_ints(&uv[0], 0, n, &o[0])
    else:
        raise TypeError(_hll_err.HLL_INT_ARRAY)
    return out


def _hll_hash(data):
    """(hash, register index, rank) of one member's bytes (for tests)."""
    cdef const uint8_t[::1] view = data
    cdef size_t n = <size_t>view.shape[0]
    cdef const uint8_t *p = &view[0] if n else <const uint8_t *>b""
    cdef uint32_t index
    cdef int rank = fr_hll_pattern(p, n, &index)
    return fr_hll_hash(p, n), index, rank
