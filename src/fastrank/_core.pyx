# cython: language_level=3, autotestdict=False
"""The compiled core of fastrank: fast data structures with a small API.

One extension module, one file per idea: each ``.pxi`` included below wraps
one C structure (declared in a ``.pxd``, written in plain C next to it) in a
``cdef class``, with point methods tuned for call overhead and numpy batch
methods that loop in C.  Nothing here knows about keys, expiry or redis-py;
that is ``fastrank.Engine``'s job.

The includes, in order:

- ``_batchgate.pxi``: ``_BatchGate`` -- the busy gate that makes other
  threads wait while a threaded batch works on an object.
- ``_sortedset.pxi``: ``SortedSet`` -- skip list with rank spans and a member
  index (``_zset.c``).
- ``_cms.pxi``: ``CountMinSketch`` -- RedisBloom 2.8's Count-Min Sketch
  (``_cms.c``), plus ``murmurhash2`` and the RedisBloom error texts.
- ``_topk.pxi``: ``TopK`` -- RedisBloom 2.8's HeavyKeeper Top-K (``_topk.c``).
- ``_hyperloglog.pxi``: ``HyperLogLog`` -- Redis 7.0's HLL strings, sparse
  and dense, byte for byte (``_hll.c``).
- ``_enginefast.pxi``: ``EngineLock`` and the compiled front doors of
  ``fastrank.Engine``'s hottest commands.
- ``_dispatch.pxi``: the Engine's one dispatch path (argument packing,
  command lookup, the handler under the lock, reply shaping), the
  ``Command`` table entry and ``ResponseCallbacks``.
"""
include "_batchgate.pxi"
include "_sortedset.pxi"
include "_cms.pxi"
include "_topk.pxi"
include "_hyperloglog.pxi"
include "_enginefast.pxi"
include "_dispatch.pxi"
