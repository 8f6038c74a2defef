"""The engine: an in-process Redis 7.0 behind redis-py's command API.

- ``engine``: :class:`Engine`, the sync client face, and its dispatch path;
- ``keyspace``: typed values, expiry, WATCH and blocked-pop bookkeeping;
- ``commands/``: one module per Redis type, the one command table;
- ``lua/``: the Lua runtime (sandbox, cjson/cmsgpack/struct/bit, script plans);
- ``pipeline``, ``script``: redis-py's Pipeline and Script over the Engine;
- ``asyncio``: the redis.asyncio face over the same state;
- ``snapshot``: the keyspace saved to and loaded from a file;
- ``connect``: one URL to an Engine, a Redis or a Redis Cluster;
- ``native/``: the compiled handlers, built into ``fastrank._core``;
- ``wiring``: what those compiled handlers call back, handed over once.

The engine knows nothing of leaderboards, counters or the score service: it
imports none of them. A domain package that wants a native path for one of
its scripts registers it (:meth:`Engine.register_native_script`).
"""
from fastrank.engine.engine import Engine
from fastrank.engine.wiring import wire

wire()

__all__ = ["Engine"]
