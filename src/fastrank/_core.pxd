# _core.pxd -- what fastrank._core exports at C level, to other extensions.
#
# One thing only: the interface a native script path (registered with
# Engine.register_native_script) uses to read and write the Engine's keyspace
# without Python attribute lookups, as a Redis module uses the module API.
# Defined in engine/native/native_api.pxi; fastrank.natives._board
# cimports it.  Cython exports these through the module's __pyx_capi__.
from zset cimport fr_zset

cdef fr_zset *native_zset_of(object value)
cdef bint native_is_zset(object value)
cdef bint native_is_skiplist(object value)
cdef object native_state(object db)
cdef object native_live(object state, object db, object key)
cdef int native_touched(object db, object key) except -1
cdef bint native_canonical_i64(object text, long long *out)
