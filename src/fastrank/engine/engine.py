"""Engine: an in-process Redis 7.0 that speaks redis-py's command API.

``Engine`` inherits redis-py's command mixins (``CoreCommands``), so every
method signature and client-side check is redis-py's own. Every command then
takes one compiled dispatch path (``engine/native/dispatch.pxi``), which does what
redis-py plus a server do:

1. pack the arguments as redis-py with hiredis packs them (same DataError),
2. run the command's handler from the table in ``fastrank.engine.commands`` under
   one lock (arity, parsing and error precedence as Redis 7.0), producing the
   reply hiredis would hand over for a RESP3 connection,
3. turn an error line into the exception redis-py's parser raises
   (``BaseParser.parse_error``), decode bytes when ``decode_responses``, and
   apply redis-py's response callbacks for the default configuration
   (RESP3 with ``legacy_responses=True``).

redis-py's methods enter it through ``execute_command``; the methods of
``FORWARDED`` (whose redis-py body only sends its parameters) enter it
directly, and the hot methods have compiled front doors: ZSCORE, ZINCRBY,
ZRANK, ZRANGE by rank and INCRBY answer the common case in C
(``engine/native/engine_fast.pxi``), ZCOUNT, ZLEXCOUNT, ZMSCORE and the by-score /
by-lex ranges pack their words and enter the path (``engine/native/zset_commands.pxi``);
anything unusual goes to redis-py's method. A command's rule is written once, in its
handler.

The keyspace (values, expiry, WATCH bookkeeping, blocked-pop waits) is
``fastrank/keyspace.py``'s ``Keyspace``, which ``Engine`` inherits: command
handlers read and write keys only through its methods. A re-entrant lock
(``EngineLock``, an RLock in C) makes every command (and every transaction)
atomic across threads; blocking pops wait on a Condition of that lock, which
is released while they wait.

"""
from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from redis._parsers.base import BaseParser
from redis._parsers.encoders import Encoder
# Defined in redis._parsers.response_callbacks; helpers re-exports it
# (implicitly) and redis.client imports it from there, as here.
from redis._parsers.helpers import get_response_callbacks  # type: ignore[attr-defined]
from redis.commands.core import CoreCommands
from redis.exceptions import ResponseError, WatchError
from redis.event import EventDispatcher, EventDispatcherInterface
from redis.typing import EncodableT, KeyT, ScriptTextT

from fastrank import errors as E
from fastrank._core import (NATIVE_DECLINE, EngineState, ResponseCallbacks, engine_call,
                            engine_decode, engine_evalsha, engine_execute_command, engine_finish, engine_incrby,
                            engine_run_packed, engine_zcount, engine_zincrby, engine_zlexcount,
                            engine_zmscore, engine_zrange, engine_zrangebylex,
                            engine_zrangebyscore, engine_zrank, engine_zrevrange,
                            engine_zrevrangebylex, engine_zrevrangebyscore, engine_zrevrank,
                            engine_zscore, engine_zadd, engine_hincrby, engine_hset,
                            forwarding_method, zadd_column_pairs, zadd_mapping_pairs)
from fastrank.engine.commands import CommandError
from fastrank.engine.commands.scripting import NATIVE_SCRIPTS
from fastrank.engine.commands.sortedset import zadd_pairs
from fastrank.engine.commands.zadd_packed import zadd_packed
from fastrank.engine.keyspace import Keyspace
from fastrank.engine.pipeline import Pipeline
from fastrank.engine.script import Script
from fastrank.engine.snapshot import read_snapshot, write_snapshot
from fastrank.engine.forwarded import FORWARDED

if TYPE_CHECKING:
    from redis.commands.bf import CMSBloom, TOPKBloom

    from fastrank.engine.lua.sandbox import LuaScripting

_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error


class Engine(Keyspace, CoreCommands):
    """In-process Redis 7.0 keyspace behind redis-py's command methods.

    The keys and every rule about reading and writing them are
    :class:`fastrank.engine.keyspace.Keyspace`'s, which the Engine inherits."""

    #: As redis.Redis: tells the typed redis-py command mixins (their
    #: SyncClientProtocol overloads) that the replies are not awaitables.
    _is_async_client: Literal[False] = False
    #: redis-py's CommandsProtocol declares it; redis.Redis makes one per
    #: client for its connection events. The Engine has no connections, so
    #: nothing is ever dispatched, but it is there as on a Redis.
    _event_dispatcher: EventDispatcherInterface

    #: Redis's hll-sparse-max-bytes (commands/hyperloglog.py).
    hll_sparse_max_bytes = 3000
    #: Seed of the generator that seeds each new Top-K's decay coin
    #: (commands/bloom.py); None: random. Set it before TOPK.RESERVE.
    topk_seed: int | None = None
    #: The loop guard of scripts (commands/scripting.py): seconds a script may
    #: run before it is stopped with an error; None: no limit.
    script_time_limit: float | None = 5.0
    #: What a native script path returns to leave a call to the Lua script
    #: (:meth:`register_native_script`).
    NATIVE_DECLINE: Any = NATIVE_DECLINE
    #: The most entries a random sample with repetitions (ZRANDMEMBER,
    #: SRANDMEMBER, HRANDFIELD with a negative count) may hold; None: no limit, as Redis. See
    #: :attr:`random_reply_limit`.
    _random_reply_limit: int | None = 1_000_000

    @property
    def random_reply_limit(self) -> int | None:
        """The most entries ZRANDMEMBER, SRANDMEMBER or HRANDFIELD with a
        negative count may answer
        (``-count`` above it: an error, nothing built); None for no limit.

        Redis builds any such reply (a billion entries for ``-1000000000``);
        the Engine builds it in the caller's process, under the lock every
        other thread waits on, so it stops at a million by default: about
        100 MB of Python objects with scores and a fraction of a second
        under the lock, beyond any sampling a leaderboard needs.
        docs/compatibility.md lists it among the deliberate differences."""
        return self._random_reply_limit

    @random_reply_limit.setter
    def random_reply_limit(self, limit: int | None) -> None:
        if limit is not None and (type(limit) is not int or limit < 1):
            raise ValueError(f"random_reply_limit must be an int >= 1 or None, not {limit!r}")
        self._random_reply_limit = limit
    #: The memory cap of scripts (commands/scripting.py): bytes the Engine's
    #: Lua runtime may take beyond the bare runtime (libraries and cached
    #: scripts count in it); a
    #: script that needs more stops with an error and its memory is freed.
    #: None: no cap. Read at each script run.
    script_memory_limit: int | None = 256 * 1024 * 1024

    def __reduce__(self) -> Any:
        raise TypeError(E.ENGINE_NOT_PICKLABLE)

    def __init__(self, decode_responses: bool = False, encoding: str = "utf-8",
                 encoding_errors: str = "strict") -> None:
        Keyspace.__init__(self)  # _data, _expires, _lock, WATCH and wait state
        self._retrying = False  # set while fastrank.asyncio retries a blocked command
        self._decode_responses = decode_responses
        self._encoding = encoding
        self._encoding_errors = encoding_errors
        self._encoder = Encoder(encoding, encoding_errors, decode_responses)
        # What the compiled fast paths read in C (shares _data, _expires, _lock).
        self._fast = EngineState(self._data, self._expires, self._lock, decode_responses,
                                 encoding, encoding_errors)
        # Case-insensitive as redis-py's; remembers each command's callback.
        # The front doors answer while their commands' callbacks are these.
        callbacks = ResponseCallbacks(get_response_callbacks(user_protocol=None, legacy_responses=True))
        self._fast.callbacks = callbacks
        callbacks.attach(self._fast)
        self._event_dispatcher = EventDispatcher()
        self._lua: LuaScripting | None = None  # the Lua state, made by the first script
        self._snapshot_path: str | os.PathLike[str] | None = None  # save() without a path
        self._topk_seeds: random.Random | None = None  # made from topk_seed by the first TOPK.RESERVE

    @property
    def response_callbacks(self) -> dict[str, Callable[..., Any]]:
        """redis-py's reply callbacks by command name (kept in the state the
        compiled dispatch path reads)."""
        return self._fast.callbacks  # type: ignore[no-any-return]

    @response_callbacks.setter
    def response_callbacks(self, callbacks: dict[str, Callable[..., Any]]) -> None:
        # Other callbacks: every reply goes through them (no front door).
        self._fast.callbacks = callbacks
        self._fast.stock_callbacks = False

    # -- redis.Redis look-alikes ------------------------------------------

    def __repr__(self) -> str:
        return f"<fastrank.Engine(decode_responses={self._decode_responses})>"

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        pass

    def get_encoder(self) -> Encoder:
        return self._encoder

    def get_connection_kwargs(self) -> dict[str, Any]:
        return {"decode_responses": self._decode_responses, "encoding": self._encoding,
                "encoding_errors": self._encoding_errors, "protocol": None}

    def set_response_callback(self, command: str, callback: Callable[..., Any]) -> None:
        self.response_callbacks[command] = callback

    def topk_seeds(self) -> random.Random:
        """The generator that seeds each new Top-K's decay coin, made from
        ``topk_seed`` when the first Top-K is reserved (commands/bloom.py)."""
        if self._topk_seeds is None:
            self._topk_seeds = random.Random(self.topk_seed)
        return self._topk_seeds

    def cms(self) -> CMSBloom:
        """redis-py's own CMS commands, bound to this engine (as ``Redis.cms()``)."""
        from redis.commands.bf import CMSBloom

        return CMSBloom(client=self)

    def topk(self) -> TOPKBloom:
        """redis-py's own TOPK commands, bound to this engine (as ``Redis.topk()``)."""
        from redis.commands.bf import TOPKBloom

        return TOPKBloom(client=self)

    @staticmethod
    def register_native_script(sha1: str | bytes, fn: Callable[[Engine, list[bytes], list[bytes]], Any]) -> None:
        """Run ``fn(engine, keys, args)`` instead of the Lua script whose SHA1
        (40 hex digits) is ``sha1``, when EVALSHA or EVAL runs that script on
        any Engine of this process (read-only calls, EVALSHA_RO and
        ``no-writes`` scripts, always run the Lua).

        The way a Redis module adds commands: a package that ships a script and
        knows a faster way to run it on the Engine registers that way, and the
        Engine needs to know nothing of it. ``fn`` runs under the Engine's lock
        with the keys and arguments as bytes; it must give exactly the reply
        and the effects of the script, and return ``Engine.NATIVE_DECLINE``
        (before it changes anything) to leave a call it does not handle to the
        Lua script. Registering a SHA1 again replaces its path."""
        key = sha1.encode() if isinstance(sha1, str) else bytes(sha1)
        if len(key) != 40 or not all(c in b"0123456789abcdef" for c in key):
            raise ValueError(f"a script's SHA1 is 40 lowercase hex digits, not {sha1!r}")
        if not callable(fn):
            raise TypeError(f"a native script path must be callable, not {type(fn).__name__}")
        NATIVE_SCRIPTS[key] = fn

    def register_script(self, script: ScriptTextT) -> Script:
        """redis-py's ``Script`` (EVALSHA, SCRIPT LOAD on NOSCRIPT), pipelines too."""
        return Script(self, script)  # type: ignore[arg-type]  # redis-py types it for Redis only

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Pipeline:
        return Pipeline(self, transaction)

    def transaction(self, func: Callable[[Pipeline], Any], *watches: KeyT,
                    **kwargs: Any) -> Any:
        """redis-py's Redis.transaction: run func(pipe) under WATCH, retry on WatchError."""
        shard_hint = kwargs.pop("shard_hint", None)
        value_from_callable = kwargs.pop("value_from_callable", False)
        watch_delay = kwargs.pop("watch_delay", None)
        with self.pipeline(True, shard_hint) as pipe:
            while True:
                try:
                    if watches:
                        pipe.watch(*watches)
                    func_value = func(pipe)
                    exec_value = pipe.execute()
                    return func_value if value_from_callable else exec_value
                except WatchError:
                    if watch_delay is not None and watch_delay > 0:
                        time.sleep(watch_delay)
                    continue

    # -- snapshots (fastrank/snapshot.py) ------------------------------------

    def save(self, path: str | os.PathLike[str] | None = None, *, key: bytes | None = None,
             **kwargs: Any) -> bool:
        """Write the whole keyspace to a snapshot file, atomically; True.

        The file is written beside ``path``, fsynced and renamed over it, so a
        crash leaves the old snapshot or the new one. Without ``path``, the
        path of the last ``save``/``load`` is used. With ``key`` (non-empty
        bytes) the file carries an HMAC-SHA256 under it and :meth:`load`
        takes it only with the same key (docs/engine.md, "Snapshots": what a
        file may be trusted for). Commands wait while it runs, as Redis's
        SAVE blocks the server. O(size of the keyspace).

        >>> import os, tempfile
        >>> r = Engine(); r.zadd("board", {"ann": 3}); r.set("motd", "hi", px=60_000)
        1
        True
        >>> path = os.path.join(tempfile.mkdtemp(), "engine.snap")
        >>> r.save(path), Engine().load(path)
        (True, 2)
        """
        if path is None:
            path = self._snapshot_path
            if path is None:
                raise ValueError("Engine.save needs a path (no earlier save or load named one)")
        with self._lock:
            write_snapshot(path, ((k, v, -1 if deadline is None else deadline)
                                  for k, v, deadline in self.entries()), key=key)
        self._snapshot_path = path
        return True

    def load(self, path: str | os.PathLike[str], *, key: bytes | None = None) -> int:
        """Replace the whole keyspace with a snapshot's; the number of keys read.

        The file is read and checked completely first: a missing, truncated,
        altered or unknown-version file, one holding what no Engine holds (an
        empty container, a listpack-tagged zset past a listpack's limits),
        one saved with a key when ``key`` is not that key, or one saved
        without a key when ``key`` is given, raises (``OSError``,
        ``fastrank.engine.snapshot.SnapshotError``) and the keyspace stays as it was.
        Keys whose deadline has passed expire on their first access, as any
        key does. Watching transactions fail as after FLUSHALL; blocked pops
        wake up. O(size of the snapshot).
        """
        data, expires = read_snapshot(path, key)
        with self._lock:
            self.load_all(data, expires)
        self._snapshot_path = path
        return len(data)

    # -- the one dispatch path (compiled: engine/native/dispatch.pxi) -----------------------
    # execute_command packs, looks up, runs the handler under the lock and
    # shapes the reply; the others are its stages, which pipelines and the
    # script bridge call on their own.

    execute_command = engine_execute_command
    call = engine_call  # one packed command, lock held by the caller: the raw reply
    run_packed = engine_run_packed  # call + finish, errors raised as redis-py's
    decode = engine_decode  # bytes in a raw reply → str, as hiredis decodes
    finish = engine_finish  # decode and run redis-py's response callback

    # -- compiled front doors ----------------------------------------------------
    # The hottest commands skip redis-py's method and the packing: each front
    # door (``engine/native/engine_fast.pxi``) handles the common case in C -- exact
    # bytes/str key, bytes/str/int member, an existing key without TTL of the
    # right type, plain numbers -- and hands anything else to redis-py's own
    # method, i.e. the dispatch path above and the command's one handler.
    # tests/unit/engine/test_engine_fastpaths.py proves both give the same answers.

    zincrby = engine_zincrby
    zscore = engine_zscore
    zrank = engine_zrank
    zrevrank = engine_zrevrank
    zrange = engine_zrange
    zrevrange = engine_zrevrange
    zcount = engine_zcount
    zlexcount = engine_zlexcount
    zmscore = engine_zmscore
    zrangebyscore = engine_zrangebyscore
    zrevrangebyscore = engine_zrevrangebyscore
    zrangebylex = engine_zrangebylex
    zrevrangebylex = engine_zrevrangebylex
    incrby = incr = engine_incrby
    evalsha = engine_evalsha  # a cached script with plain arguments skips the generic path
    zadd = engine_zadd  # a few plain pairs on a skip-list zset; else _zadd_general
    hincrby = engine_hincrby
    hset = engine_hset  # a field and value and/or a dict of pairs

    def _zadd_general(self, name: KeyT, mapping: Mapping[Any, EncodableT], nx: bool = False,
                     xx: bool = False, ch: bool = False, incr: bool = False, gt: bool = False,
                     lt: bool = False) -> int | float | None:
        """Engine.zadd beyond its compiled front door (``engine_zadd``).
        ZADD of a plain mapping without packing each score as text: the
        pairs, read by one compiled loop (``zadd_mapping_pairs`` /
        ``zadd_column_pairs``), go to ZADD's handler logic (``zadd_pairs``)
        as bytes and a float64 array. Besides a dict, the mapping may be in a
        column form its type names (``zadd_form``):

        - ``"columns"``: aligned lists ``members`` and ``scores`` (distinct
          members), read as they are;
        - ``"packed"``: members packed in one bytes ``blob``, member k being
          ``blob[offsets[rows[k]]:offsets[rows[k] + 1]]``, scored
          ``scores[k]`` (int64 and float64 arrays): added from the blob in C.

        (``fastrank.service.columns`` has both.) Anything redis-py would
        check or refuse takes redis-py's own method."""
        key = name if type(name) is bytes else None
        if type(name) is str:
            try:
                key = name.encode()
            except UnicodeEncodeError:  # redis-py's own checks come first: generic path
                pass
        if not self._fast.stock_callbacks:  # ZADD's callback is not redis-py's: the generic path
            key = None
        form = getattr(type(mapping), "zadd_form", None)
        if form == "packed" and key is not None and mapping and not (nx or xx or ch or incr or gt or lt):
            with self._lock:  # members packed in one blob: added from it in C
                try:
                    reply = zadd_packed(self, key, mapping)
                except CommandError as err:  # WRONGTYPE
                    raise _parse_error(err.line) from None
                self.wake_waiters()
            return reply
        if key is not None and mapping and not incr and not (nx and (xx or gt or lt)) \
                and not (gt and lt) and (type(mapping) is dict or form == "columns"):
            columns = (zadd_column_pairs(getattr(mapping, "members"), getattr(mapping, "scores")) if form == "columns"
                       else zadd_mapping_pairs(cast("dict[Any, Any]", mapping)))  # a dict
            if columns is not None:
                with self._lock:
                    try:
                        reply = zadd_pairs(self, key, columns[0], columns[1], nx, xx, gt, lt, ch)
                    except CommandError as err:  # WRONGTYPE
                        raise _parse_error(err.line) from None
                    self.wake_waiters()
                return reply
        return CoreCommands.zadd(self, name, mapping, nx, xx, ch, incr, gt, lt)


# The forwarding methods (FORWARDED), bound where the Engine has no front door.
for _name, _word, _fixed, _rest in FORWARDED:
    if _name not in Engine.__dict__:
        setattr(Engine, _name, forwarding_method(_name, _word, _fixed, _rest,
                                                 getattr(CoreCommands, _name)))
