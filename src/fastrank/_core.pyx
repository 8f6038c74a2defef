# cython: language_level=3, autotestdict=False
"""The compiled core of fastrank: fast data structures with a small API.

One extension module, ``fastrank._core``, built from this file and two
plain source folders (C and Cython sources, not Python packages):
``structures/`` (the data structures) and ``engine/native/`` (the Engine's
compiled handlers, front doors and dispatch path).  This file stays at the
package root, beside its type stub ``_core.pyi``, so that the module's
import name and the generated ``_core.c`` keep their places.  setup.py puts
both folders on the C include path and on Cython's include path.

Each structure has one stem in ``structures/``, with the same C prefix on every name it
exports:

========  ==========  ====================================================
stem      C prefix    what it is
========  ==========  ====================================================
zset      fr_zset_    order-statistic B+-tree and a member index
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

The structures know nothing about keys, expiry or redis-py; the Engine's
files (``engine/native/``) add that.  Error texts come from
``fastrank.errors``.

The includes, in order:

- ``structures/batch_gate.pxi``: ``_BatchGate`` -- the busy gate that makes other
  threads wait while a threaded batch works on an object.
- ``structures/zset.pxi``: ``SortedSet`` -- the order-statistic B+-tree (``zset.c``).
- ``structures/cms.pxi``: ``CountMinSketch`` (``cms.c``), plus ``murmurhash2``,
  the item helpers Top-K shares and the RedisBloom error names.
- ``structures/topk.pxi``: ``TopK`` (``topk.c``).
- ``structures/hll.pxi``: ``HyperLogLog`` and the ``pf*_bytes`` functions the
  Engine keeps HLL string values with (``hll.c``).
- ``engine/native/engine_fast.pxi``: ``EngineLock`` and the compiled front doors of
  ``fastrank.Engine``'s hottest commands.
- ``engine/native/zadd_mapping.pxi``: ``zadd_mapping_pairs`` and
  ``zadd_column_pairs``, the loops that read ``Engine.zadd``'s mapping (a
  dict or a ``ZaddColumns``) into members and a score array.
- ``engine/native/zadd_packed.pxi``: ``sortedset_add_packed``, a ZADD's pairs
  added from a ``ZaddPacked`` (members in one blob) without member objects.
- ``engine/native/zadd_front_door.pxi``: ``engine_zadd``, the compiled front door
  of ``Engine.zadd`` (a few plain pairs on a skip-list zset).
- ``engine/native/hash_writes.pxi``: HINCRBY and HSET, their common cases compiled
  (command-table handlers and the Engine's front doors).
- ``engine/native/dispatch.pxi``: the Engine's one dispatch path (argument packing,
  command lookup, the handler under the lock, reply shaping), the
  ``Command`` table entry and ``ResponseCallbacks``.
- ``engine/native/pipeline_calls.pxi``: ``PipelineCalls``, the compiled base of
  the Engine's Pipeline: its queue of prepared calls (argv packed when queued).
- ``engine/native/zset_commands.pxi``: the compiled handlers of the sorted-set read
  commands (ZCARD, ZCOUNT, ZLEXCOUNT, ZMSCORE, the ZRANGE family with its
  BYSCORE / BYLEX commands) and the Engine's front doors for ZMSCORE and the
  by-score / by-lex ranges.
- ``engine/native/zset_algebra.pxi``: ``zset_algebra``, the fold of ZUNION,
  ZINTER, ZDIFF, their STORE forms and ZINTERCARD (WEIGHTS, AGGREGATE).
- ``engine/native/zincrby_handler.pxi``: ZINCRBY's handler, its common case compiled.
- ``engine/native/zadd_handler.pxi``: ZADD's handler, its common case compiled.
- ``engine/native/point_reads.pxi``: the compiled handlers of GET, HGET, SISMEMBER,
  EXISTS (and TOUCH) and the TTL family.
- ``engine/native/script_plans.pxi``: ``ScriptPlan`` -- a straight-line script's
  ``redis.call`` sequence, run without Lua (``fastrank.engine.lua.plans``).
- ``engine/native/script_front_door.pxi``: the compiled front door of ``Engine.evalsha``.
- ``engine/native/native_api.pxi``: the C-level interface native script
  paths use (declared in ``_core.pxd``): a value's sorted set, the live value
  at a key, what a write does for WATCH. The leaderboard's natives
  (``fastrank.natives._board``, an extension of its own) cimport it.
"""
include "structures/batch_gate.pxi"
include "structures/zset.pxi"
include "structures/cms.pxi"
include "structures/topk.pxi"
include "structures/hll.pxi"
include "engine/native/engine_fast.pxi"
include "engine/native/zadd_mapping.pxi"
include "engine/native/zadd_packed.pxi"
include "engine/native/zadd_front_door.pxi"
include "engine/native/hash_writes.pxi"
include "engine/native/dispatch.pxi"
include "engine/native/pipeline_calls.pxi"
include "engine/native/zset_commands.pxi"
include "engine/native/zset_algebra.pxi"
include "engine/native/zincrby_handler.pxi"
include "engine/native/zadd_handler.pxi"
include "engine/native/point_reads.pxi"
include "engine/native/script_plans.pxi"
include "engine/native/script_front_door.pxi"
include "engine/native/native_api.pxi"
