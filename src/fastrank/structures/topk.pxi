# topk.pxi -- TopK: RedisBloom 2.8's HeavyKeeper Top-K as a Python class
# (included by _core.pyx after cms.pxi, whose item helpers and error-text
# names, imported there from fastrank.errors, it uses).  The C structure
# and its design essay are in topk.c, its declarations in topk.pxd.
import os as _sk_os

from fastrank import _threads as _sk_threads

from topk cimport *

# A numpy batch this big (all increments 1) is split over two threads when
# fastrank.get_threads() > 1: one hashes ahead while the caller applies.
_TOPK_TWO_THREADS_MIN = 65536


cdef class TopK:
    """The k heaviest items of a stream: HeavyKeeper as RedisBloom 2.8 runs it.

    ``depth x width`` buckets of (fingerprint, count) and a min-heap of ``k``
    items, with RedisBloom's hashing (MurmurHash2; fingerprint seed 1919),
    decay table and heap rules.  When ``decay == 1`` or no two items meet in
    a bucket, every reply equals RedisBloom's (the expelled item of
    ``add``/``incrby``, ``list``, ``query``, ``count``, ``info``).  Otherwise
    the decay coin comes from fastrank's own generator (xoshiro256**), so a
    run is reproducible given ``seed`` (RedisBloom's libc ``rand()`` is not)
    and agrees with RedisBloom statistically.

    >>> t = TopK(3, 1000, 5, 0.9, seed=1)
    >>> t.add(["a", "b", "c", "d", "a", "a", "b"])
    [None, None, None, b'a', b'c', None, None]
    >>> t.list(withcount=True)
    [(b'a', 3), (b'b', 2), (b'd', 1)]

    :param k: heap size, an int in [1, 2**32 - 1] (ValueError ``TopK: invalid
        k``; RedisBloom 2.8 takes k up to 2**63 - 1 and keeps its low 32 bits,
        crashing when they are 0, so larger k are refused here).
    :param width: buckets per row, int >= 1 (``TopK: invalid width``).
    :param depth: rows, int >= 1 (``TopK: invalid depth``).
    :param decay: in (0, 1] (``TopK: invalid decay value. must be '<= 1' &
        '> 0'``).
    :param seed: an int seeding the decay generator; None draws one from
        ``os.urandom``.
    :raises MemoryError: ``Insufficient memory to create topk data
        structure`` (RedisBloom's text) when the buckets or heap cannot be
        allocated.

    Every method holds the GIL while it reads or changes the sketch (a big
    ``add_many`` lets go of it only while its helper thread starts, before
    anything changes), so each call, a whole batch included, is atomic with
    respect to other Python threads.
    """

    cdef fr_topk t
    cdef uint32_t *order  # 2k scratch for list()

    def __cinit__(self, *args, **kwargs):
        self.t.heap = NULL
        self.t.k = 0
        self.order = NULL

    def __init__(self, k, width=8, depth=7, decay=0.9, seed=None):
        if self.t.heap != NULL:
            raise TypeError(_sk_err.TOPK_ALREADY_READY)
        cdef size_t kk = _sk_dim(k, TOPK_ERR_K, 0xFFFFFFFF)
        cdef size_t w = _sk_dim(width, TOPK_ERR_WIDTH, 0xFFFFFFFF)
        cdef size_t d = _sk_dim(depth, TOPK_ERR_DEPTH, 0xFFFFFFFF)
        if isinstance(decay, bool) or not isinstance(decay, (int, float, np.integer, np.floating)):
            raise TypeError(TOPK_ERR_DECAY)
        cdef double dc = decay
        if not (dc > 0.0 and dc <= 1.0):
            raise ValueError(TOPK_ERR_DECAY)
        cdef uint64_t s = _sk_seed(seed)
        cdef fr_topk fresh
        if fr_topk_init(&fresh, <uint32_t>kk, <uint32_t>w, <uint32_t>d, dc, s) != FR_TOPK_OK:
            raise MemoryError(TOPK_ERR_NO_MEMORY[4:])
        self._adopt(&fresh)

    cdef int _adopt(self, fr_topk *fresh) except -1:
        cdef uint32_t *order = <uint32_t *>malloc(2 * <size_t>fresh.k * sizeof(uint32_t))
        if order == NULL:
            fr_topk_release(fresh)
            raise MemoryError()
        fr_topk_release(&self.t)
        free(self.order)
        self.t = fresh[0]
        self.order = order
        return 0

    def __dealloc__(self):
        fr_topk_release(&self.t)
        free(self.order)

    cdef inline int _ready(self) except -1:
        """TypeError unless __init__ (or from_bytes) built the sketch: an
        object made by __new__ alone, or by a subclass whose __init__ skips
        TopK.__init__, has no buckets or heap."""
        if self.t.heap == NULL or self.order == NULL:
            raise TypeError(TOPK_ERR_NOT_READY)
        return 0

    # -- properties ----------------------------------------------------------
    @property
    def k(self):
        return self.t.k

    @property
    def width(self):
        return self.t.width

    @property
    def depth(self):
        return self.t.depth

    @property
    def decay(self):
        return self.t.decay

    def info(self):
        """TOPK.INFO as a dict: ``{'k', 'width', 'depth', 'decay'}``. O(1)."""
        self._ready()
        return {"k": self.t.k, "width": self.t.width, "depth": self.t.depth,
                "decay": self.t.decay}

    def seed(self, seed):
        """Re-seed the decay generator (None: from os.urandom). O(1)."""
        self._ready()
        fr_topk_seed(&self.t, _sk_seed(seed))

    # -- adding ----------------------------------------------------------------
    def add(self, items):
        """TOPK.ADD: add each item once, in order. O(n * (depth + k)).

        Returns, per item, the item it expelled from the heap (bytes), or
        None.  Items are bytes/str/int/float (as redis-py encodes them).

        >>> t = TopK(1, 100, 3, 1.0)
        >>> t.add(["x", "y"])
        [None, b'x']
        """
        self._ready()
        return self._add(_sk_items(items), None)

    def incrby(self, items, increments):
        """TOPK.INCRBY: add each increment to its item, in order.
        O(n * (depth * increment + k)) -- a decaying bucket costs one coin per
        unit of increment, as in RedisBloom.

        increments: one int for all or a sequence of ints in [0, 100000];
        all are checked before anything changes (unlike RedisBloom, which
        stops half way and corrupts its reply).  Returns the expelled items
        as ``add`` does.

        :raises ValueError/TypeError: ``TopK: increment must be an integer
            greater or equal to 0 ... and smaller or equal to 100,000`` (the
            exact text is ``TOPK_ERR_INCREMENT``); lengths that differ.
        """
        self._ready()
        seq = _sk_items(items)  # the batch's own tuple: increments' code cannot touch it
        incr = _sk_uint_increments(increments, len(seq), TOPK_MAX_INCREMENT,
                                   TOPK_ERR_INCREMENT, TOPK_ERR_INCREMENT, TOPK_ERR_INCREMENT)
        return self._add(seq, incr)

    cdef list _add(self, tuple seq, cnp.ndarray incr):
        cdef Py_ssize_t i, n = len(seq), size
        cdef const char *p
        cdef unsigned char *gone
        cdef size_t gone_len
        cdef int has_gone, rc
        cdef uint64_t *inc = <uint64_t *>incr.data if incr is not None else NULL
        out = [None] * n
        for i in range(n):
            p = _sk_ptr(seq[i], &size)
            rc = fr_topk_add(&self.t, p, size, <uint32_t>(inc[i] if inc != NULL else 1),
                             &gone, &gone_len, &has_gone)
            if rc != FR_TOPK_OK:
                raise MemoryError()
            if has_gone:
                try:
                    out[i] = PyBytes_FromStringAndSize(<char *>gone, gone_len)
                finally:
                    free(gone)
        return out

    def add_many(self, items, increments=None):
        """Add a stream of items (with increments, default 1 each), dropping
        the expelled-item replies. O(n * (depth + k)).

        A numpy integer array is hashed as each number's decimal text (as
        redis-py sends ints) in one C loop with no Python object per item;
        other sequences go item by item.  Same result as ``incrby``.  With
        increment 1 and at least 65,536 numbers, when ``fastrank.get_threads()``
        is more than 1, a second thread hashes ahead while this one applies
        the items in order: same result again, item for item.
        """
        cdef cnp.ndarray arr = _sk_int_array(items)
        cdef cnp.ndarray inc32 = None
        cdef _SkItems batch
        cdef Py_ssize_t n
        cdef bint unsigned
        cdef int rc
        cdef uint32_t incr1 = 1
        self._ready()
        if increments is not None:
            one = _sk_scalar_increment(increments, TOPK_MAX_INCREMENT, TOPK_ERR_INCREMENT,
                                       TOPK_ERR_INCREMENT, TOPK_ERR_INCREMENT)
        if arr is None and (increments is None or one is not None) and type(items) is list:
            # One increment and a list of bytes / str: point straight into
            # the caller's list (no Python code runs from here to the C call).
            batch = _sk_list_now(<list>items)
            if batch is not None:
                if fr_topk_add_strs(&self.t, batch.items(), batch.sizes(), batch.n, NULL,
                                    <uint32_t>(1 if increments is None else one)) != FR_TOPK_OK:
                    raise MemoryError()
                return None
        if arr is None:
            batch = _SkItems(items)
            n = batch.n
        else:
            n = arr.shape[0]
        if increments is not None:
            if one is None:
                inc32 = np.ascontiguousarray(
                    _sk_uint_increments(increments, n, TOPK_MAX_INCREMENT, TOPK_ERR_INCREMENT,
                                        TOPK_ERR_INCREMENT, TOPK_ERR_INCREMENT), dtype=np.uint32)
            else:
                incr1 = one
        cdef const uint32_t *incp = <const uint32_t *>inc32.data if inc32 is not None else NULL
        if arr is not None and arr.shape[0] != n:
            raise RuntimeError(_sk_err.SKETCH_ARRAY_RESIZED)
        if arr is not None:
            unsigned = arr.dtype.kind == "u"
            if (incp == NULL and incr1 == 1 and n >= _TOPK_TWO_THREADS_MIN
                    and _sk_threads.get_threads() > 1):
                rc = self._add_ints_two_threads(arr, unsigned, n)
            else:
                rc = fr_topk_add_ints(&self.t, arr.data, unsigned, n, incp, incr1)
        else:
            batch.bind()
            rc = fr_topk_add_strs(&self.t, batch.items(), batch.sizes(), n, incp, incr1)
        if rc != FR_TOPK_OK:
            raise MemoryError()
        return None

    cdef int _add_ints_two_threads(self, cnp.ndarray arr, bint unsigned, size_t n) except -2:
        """fr_topk_add_ints with increment 1 on two threads (same result).

        The caller holds the GIL while it applies, so, as for every method,
        no other Python thread touches this TopK meanwhile; the helper starts
        while the caller waits with the GIL released, and touches the TopK
        only once the caller has it back (fr_topk_pipe_consume)."""
        cdef _TopKPipe pipe = _TopKPipe.__new__(_TopKPipe)
        pipe.p = fr_topk_pipe_new(&self.t, arr.data, unsigned, NULL, NULL, n)
        if pipe.p == NULL:  # not built for this platform, or no memory
            return fr_topk_add_ints(&self.t, arr.data, unsigned, n, NULL, 1)
        try:
            return _sk_threads.run_parallel(_topk_pipe_part, [(pipe, 0), (pipe, 1)])[0]
        finally:
            fr_topk_pipe_free(pipe.p)
            pipe.p = NULL

    # -- reads -------------------------------------------------------------------
    def query(self, items):
        """TOPK.QUERY: whether each item is in the heap (bytes compared).
        O(n * k). A list of bool."""
        self._ready()
        cdef tuple seq = _sk_items(items)
        cdef Py_ssize_t i, size
        cdef const char *p
        out = []
        for i in range(len(seq)):
            p = _sk_ptr(seq[i], &size)
            out.append(bool(fr_topk_query(&self.t, p, size)))
        return out

    def count(self, items):
        """TOPK.COUNT: each item's estimated count -- the largest bucket count
        among rows holding its fingerprint (for an item in the heap, only
        counts >= the heap minimum).  O(n * (depth + k)). A list of int."""
        self._ready()
        cdef tuple seq = _sk_items(items)
        cdef Py_ssize_t i, size
        cdef const char *p
        out = []
        for i in range(len(seq)):
            p = _sk_ptr(seq[i], &size)
            out.append(fr_topk_count(&self.t, p, size))
        return out

    def list(self, withcount=False):
        """TOPK.LIST: the heap's items by count, descending (ties in heap
        order, as RedisBloom on glibc), without empty (count-0) slots.
        O(k log k).  ``withcount=True`` gives (item, count) pairs.

        Items are returned whole; RedisBloom cuts names at the first NUL
        byte when it replies (the Engine does that, not the core).
        """
        self._ready()
        cdef size_t i, n = fr_topk_list(&self.t, self.order)
        cdef fr_topk_slot *s
        out = []
        for i in range(n):
            s = &self.t.heap[self.order[i]]
            name = PyBytes_FromStringAndSize(<char *>s.item, s.len)
            out.append((name, s.count) if withcount else name)
        return out

    # -- merge, copies, serialization -------------------------------------------
    def merge(self, other):
        """Merge another TopK of the same k, width, depth and decay into this
        one (not a RedisBloom command).  O(w*d + k * (k + depth)).

        Buckets with equal fingerprints add; a free bucket takes the other's;
        two owners cancel and the larger keeps the difference.  Each item of
        either heap is re-estimated as its count here plus its count in
        ``other`` and the k largest form the new heap.  ``other`` is not
        changed.

        :raises ValueError: the shapes differ.
        """
        if not isinstance(other, TopK):
            raise TypeError(_sk_err.TOPK_MERGE_TYPE)
        cdef TopK o = <TopK>other
        self._ready()
        o._ready()
        cdef int rc = fr_topk_merge(&self.t, &o.t)
        if rc == FR_TOPK_ESHAPE:
            raise ValueError(_sk_err.TOPK_MERGE_SHAPE % (self.info(), o.info()))
        if rc != FR_TOPK_OK:
            raise MemoryError()

    def copy(self):
        """An independent copy (generator state included), of type(self) with
        its instance attributes (shallow) when that is a subclass. O(size)."""
        return _set_instance_state(type(self).from_bytes(self.to_bytes()),
                                   _instance_state(self))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        import copy as _copy
        out = type(self).from_bytes(self.to_bytes())
        return _set_instance_state(out, _copy.deepcopy(_instance_state(self), memo))

    def to_bytes(self):
        """Serialize (fastrank's own format, version 1, little-endian; the
        layout is documented atop topk.c).  O(size)."""
        self._ready()
        cdef size_t size = fr_topk_serialized_size(&self.t)
        cdef bytes out = PyBytes_FromStringAndSize(NULL, size)
        fr_topk_serialize(&self.t, <unsigned char *>PyBytes_AS_STRING(out))
        return out

    @classmethod
    def from_bytes(cls, data):
        """A TopK from ``to_bytes()`` output.

        :raises ValueError: data is not exactly a valid version-1
            serialization (including a heap that breaks its invariants).
        """
        cdef const unsigned char[::1] view = memoryview(data).cast("B")
        cdef TopK out = cls.__new__(cls)
        cdef fr_topk fresh
        cdef int rc = fr_topk_deserialize(&fresh, &view[0] if view.shape[0] else NULL,
                                          view.shape[0])
        if rc == FR_TOPK_EFORMAT:
            raise ValueError(_sk_err.TOPK_NOT_SERIALIZED)
        if rc != FR_TOPK_OK:
            raise MemoryError()
        out._adopt(&fresh)
        return out

    def __reduce__(self):
        """Pickles as from_bytes of type(self) (a subclass stays one), with
        the instance attributes of a subclass."""
        return (type(self).from_bytes, (self.to_bytes(),), _instance_state(self))

    def __setstate__(self, state):
        _set_instance_state(self, state)

    def __eq__(self, other):
        if not isinstance(other, TopK):
            return NotImplemented
        return self.to_bytes() == (<TopK>other).to_bytes()

    __hash__ = None

    def _check(self):
        """Verify the heap invariants; AssertionError with the heap if broken."""
        self._ready()
        if fr_topk_check(&self.t) != 0:
            raise AssertionError(_sk_err.TOPK_HEAP_BROKEN % (self._heap(),))

    def _heap(self):
        """The raw heap slots as (item or None, count, fingerprint), slot order."""
        self._ready()
        cdef uint32_t i
        cdef fr_topk_slot *s
        out = []
        for i in range(self.t.k):
            s = &self.t.heap[i]
            name = PyBytes_FromStringAndSize(<char *>s.item, s.len) if s.item != NULL else None
            out.append((name, s.count, s.fp))
        return out

    def __repr__(self):
        return (f"TopK(k={self.t.k}, width={self.t.width}, depth={self.t.depth}, "
                f"decay={self.t.decay!r})")


cdef class _TopKPipe:
    """Holds a two-thread batch (fr_topk_pipe) for TopK._add_ints_two_threads."""
    cdef fr_topk_pipe *p


def _topk_pipe_part(_TopKPipe pipe, int role):
    """Role 1 (a pool thread): prepare chunks, GIL released.  Role 0 (the
    caller): wait for the helper to start, GIL released, then apply every
    chunk holding the GIL; returns the C status."""
    cdef fr_topk_pipe *p = pipe.p
    cdef int rc
    if role == 1:
        with nogil:
            fr_topk_pipe_produce(p)
        return FR_TOPK_OK
    with nogil:
        fr_topk_pipe_wait_started(p)
    rc = fr_topk_pipe_consume(p)
    return rc


cdef uint64_t _sk_seed(object seed) except? 0:
    """A 64-bit generator seed from an int (taken mod 2**64) or None (random)."""
    if seed is None:
        return int.from_bytes(_sk_os.urandom(8), "little")
    if isinstance(seed, bool) or not (isinstance(seed, int) or isinstance(seed, np.integer)):
        raise TypeError(_sk_err.TOPK_SEED_TYPE)
    return int(seed) & 0xFFFFFFFFFFFFFFFF
