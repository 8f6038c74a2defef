# native_api.pxi -- the C-level interface of the Engine for native script paths.
#
# Included by _core.pyx last (it uses dispatch.pxi's lookups and the
# sorted-set types); declared in _core.pxd, so other extensions cimport these
# functions from fastrank._core.  A native script path runs under the
# Engine's lock, called by the EVALSHA path with the Engine itself (``db``);
# these are the reads and bookkeeping it needs at C speed.  Writes go
# through the keyspace's Python methods (store, replace, drop_if_empty), so a
# key is created, converted and deleted as by a command's handler.


cdef fr_zset *native_zset_of(object value):
    """The C sorted set inside a sorted-set value (one Redis would keep in its
    skiplist encoding, or a small one it would keep as a listpack: a SortedSet
    subclass; both are the core's B+-tree); NULL for any other value or None.
    Reads only: a listpack-kind set has write rules of its own."""
    if isinstance(value, SortedSet):
        return (<SortedSet>value)._s
    return NULL


cdef bint native_is_zset(object value):
    """A sorted-set value of the keyspace (of Redis's skiplist or listpack kind)."""
    return type(value) is SortedSet or type(value) is _ListpackZSet


cdef bint native_is_skiplist(object value):
    """A sorted set of Redis's skiplist encoding (a plain SortedSet; the
    name is the encoding's, the structure is the core's B+-tree), which a
    native path may write to directly (fr_zset_add and friends), as ZADD's
    handler does."""
    return type(value) is SortedSet


cdef object native_state(object db):
    """The compiled state of the Engine db, for ``native_live`` (an opaque
    object; take it once per call of a native path)."""
    return _state_of(db)


cdef object native_live(object state, object db, object key):
    """The live value at key in the Engine db whose ``native_state`` is
    ``state``, or None (missing or expired: an expired key is deleted on this
    access, as any lookup does)."""
    return _live_in(<EngineState>state, db, key)


cdef int native_touched(object db, object key) except -1:
    """What a write to key does for WATCH: transactions watching it fail."""
    if db._watched:
        db._touch(key)
    return 0


cdef bint native_canonical_i64(object text, long long *out):
    """text is exactly ``b"%d" % v`` for an int64 v (HINCRBY's own test)."""
    return _canonical_i64(text, out)
