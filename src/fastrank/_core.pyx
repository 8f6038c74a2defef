# cython: language_level=3, autotestdict=False
"""The compiled core of fastrank: fast data structures with a small API.

One extension module, ``fastrank._core``, built from this file and the
source folder ``src/fastrank/core/`` (a folder of C and Cython sources, not
a Python package).  This file stays next to the package's Python modules,
beside its type stub ``_core.pyi``, so that the module's import name and
the generated ``_core.c`` keep their places; everything it includes and
cimports lives in ``core/``.  setup.py puts ``core/`` on both the C include
path and Cython's include path.

Each structure has one stem there, with the same C prefix on every name it
exports:

========  ==========  ====================================================
stem      C prefix    what it is
========  ==========  ====================================================
zset      fr_zset_    skip list with rank spans and a member index
hll       fr_hll_     Redis 7.0's HyperLogLog strings, sparse and dense
cms       fr_cms_     RedisBloom 2.8's Count-Min Sketch
topk      fr_topk_    RedisBloom 2.8's HeavyKeeper Top-K
========  ==========  ====================================================

``<stem>.c`` is the structure in plain C, ``<stem>.h`` its C API,
``<stem>.pxd`` the Cython declarations of that API (every ``cdef extern``
block lives in a ``.pxd``), ``<stem>.pxi`` the ``cdef class`` that wraps it:
point methods tuned for call overhead and numpy batch methods that loop in
C.  Shared C headers, named for what they hold:

- ``murmurhash2.h`` (+ ``murmurhash2.pxd``): the 32-bit MurmurHash2 that
  the Count-Min Sketch and Top-K hash items with (``fr_murmur2*``).
- ``murmurhash64a.h``: MurmurHash64A, the HyperLogLog element hash
  (``fr_murmur64a*``).
- ``decimal_text.h``: the decimal text of a 64-bit integer, as redis-py
  sends an int, built with word arithmetic (``fr_dec*``).
- ``decimal_text_hash.h`` and ``decimal_text_hash_avx2.h``: MurmurHash64A
  of those texts a block of integers at a time, portable/SSE2 and AVX2.
- ``python_extra.pxd``: CPython C-API functions Cython does not declare.

Nothing here knows about keys, expiry or redis-py except the Engine's front
doors and its dispatch path (the last two includes); the rest is
``fastrank.Engine``'s job.  Error texts come from
``fastrank._errors``.

The includes, in order:

- ``core/batch_gate.pxi``: ``_BatchGate`` -- the busy gate that makes other
  threads wait while a threaded batch works on an object.
- ``core/zset.pxi``: ``SortedSet`` -- the skip list (``zset.c``).
- ``core/cms.pxi``: ``CountMinSketch`` (``cms.c``), plus ``murmurhash2``,
  the item helpers Top-K shares and the RedisBloom error names.
- ``core/topk.pxi``: ``TopK`` (``topk.c``).
- ``core/hll.pxi``: ``HyperLogLog`` and the ``pf*_bytes`` functions the
  Engine keeps HLL string values with (``hll.c``).
- ``core/engine_fast.pxi``: ``EngineLock`` and the compiled front doors of
  ``fastrank.Engine``'s hottest commands.
- ``core/zadd_mapping.pxi``: ``zadd_mapping_pairs`` and
  ``zadd_column_pairs``, the loops that read ``Engine.zadd``'s mapping (a
  dict or a ``ZaddColumns``) into members and a score array.
- ``core/zadd_packed.pxi``: ``sortedset_add_packed``, a ZADD's pairs
  added from a ``ZaddPacked`` (members in one blob) without member objects.
- ``core/zadd_front_door.pxi``: ``engine_zadd``, the compiled front door
  of ``Engine.zadd`` (a few plain pairs on a skip-list zset).
- ``core/hash_writes.pxi``: HINCRBY and HSET, their common cases compiled
  (command-table handlers and the Engine's front doors).
- ``core/dispatch.pxi``: the Engine's one dispatch path (argument packing,
  command lookup, the handler under the lock, reply shaping), the
  ``Command`` table entry and ``ResponseCallbacks``.
- ``core/zset_commands.pxi``: the compiled handlers of the sorted-set read
  commands (ZCARD, ZCOUNT, ZLEXCOUNT, ZMSCORE, the ZRANGE family with its
  BYSCORE / BYLEX commands) and the Engine's front doors for ZMSCORE and the
  by-score / by-lex ranges.
- ``core/zincrby_handler.pxi``: ZINCRBY's handler, its common case compiled.
- ``core/zadd_handler.pxi``: ZADD's handler, its common case compiled.
- ``core/point_reads.pxi``: the compiled handlers of GET, HGET, SISMEMBER,
  EXISTS (and TOUCH) and the TTL family.
- ``core/script_plans.pxi``: ``ScriptPlan`` -- a straight-line script's
  ``redis.call`` sequence, run without Lua (``fastrank._script_plans``).
- ``core/script_front_door.pxi``: the compiled front door of ``Engine.evalsha``.
- ``core/board_scripts.pxi``: the Engine's native paths of the leaderboard's
  Lua scripts (``fastrank._board_native`` picks them by the script's SHA1).
"""
include "core/batch_gate.pxi"
include "core/zset.pxi"
include "core/cms.pxi"
include "core/topk.pxi"
include "core/hll.pxi"
include "core/engine_fast.pxi"
include "core/zadd_mapping.pxi"
include "core/zadd_packed.pxi"
include "core/zadd_front_door.pxi"
include "core/hash_writes.pxi"
include "core/dispatch.pxi"
include "core/zset_commands.pxi"
include "core/zincrby_handler.pxi"
include "core/zadd_handler.pxi"
include "core/point_reads.pxi"
include "core/script_plans.pxi"
include "core/script_front_door.pxi"
include "core/board_scripts.pxi"
