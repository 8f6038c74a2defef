"""Engine: an in-process Redis 7.0 that speaks redis-py's command API.

``Engine`` inherits redis-py's command mixins (``CoreCommands``), so every
method signature and client-side check is redis-py's own. Those methods end
in ``execute_command``, which here does what redis-py plus a server do:

1. pack the arguments as redis-py with hiredis packs them (same DataError),
2. run the command from the table in ``fastrank.commands`` under one lock
   (arity, parsing and error precedence as Redis 7.0), producing the reply
   hiredis would hand over for a RESP3 connection,
3. turn an error line into the exception redis-py's parser raises
   (``BaseParser.parse_error``), decode bytes when ``decode_responses``, and
   apply redis-py's response callbacks for the default configuration
   (RESP3 with ``legacy_responses=True``).

The keyspace (values, expiry, WATCH bookkeeping, blocked-pop waits) is
``fastrank/keyspace.py``'s ``Keyspace``, which ``Engine`` inherits: command
handlers read and write keys only through its methods. A re-entrant lock
(``EngineLock``, an RLock in C) makes every command (and every transaction)
atomic across threads; blocking pops wait on a Condition of that lock, which
is released while they wait.

The hot methods (``zincrby``, ``zscore``, ``zrank``...) are overridden by
fast paths at the end of this file. Each handles only the common case
(bytes/str/int arguments, an existing live key of the right type) and
otherwise defers to the generic path, so both give the same answer.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from redis._parsers.base import BaseParser
from redis._parsers.encoders import Encoder
# Defined in redis._parsers.response_callbacks; helpers re-exports it
# (implicitly) and redis.client imports it from there, as here.
from redis._parsers.helpers import get_response_callbacks  # type: ignore[attr-defined]
from redis.client import EMPTY_RESPONSE, NEVER_DECODE
from redis.commands.core import CoreCommands
from redis.exceptions import DataError, ResponseError, WatchError
from redis.client import CaseInsensitiveDict
from redis.event import EventDispatcher, EventDispatcherInterface
from redis.typing import EncodableT, KeysT, KeyT, ScriptTextT, ZSetRangeResponse

from fastrank import _errors as E
from fastrank._core import (EngineState, SortedSet,
                            engine_incrby, engine_zincrby, engine_zrange, engine_zrank,
                            engine_zrevrange, engine_zrevrank, engine_zscore)
from fastrank.commands import COMMANDS, CommandError
from fastrank.commands.scripting import evalsha_fast
from fastrank.snapshot import read_snapshot, write_snapshot
from fastrank.commands.sortedset import zset_add_bulk
from fastrank.keyspace import (LISTPACK_ENTRIES, LISTPACK_VALUE, Keyspace, ListpackZSet, blen,
                               zset_add)

if TYPE_CHECKING:
    from redis.commands.bf import CMSBloom, TOPKBloom

    from fastrank._lua_sandbox import LuaScripting
    from fastrank.script import Script
    from fastrank.pipeline import Pipeline

_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error


def pack_args(args: tuple[Any, ...]) -> list[bytes]:
    """The argument words as redis-py + hiredis put them on the wire."""
    first = args[0]
    if isinstance(first, str):
        args = tuple(first.encode().split()) + tuple(args[1:])
    elif isinstance(first, bytes) and b" " in first:
        args = tuple(first.split()) + tuple(args[1:])
    out: list[bytes] = []
    for arg in args:
        kind = type(arg)
        if kind is bytes:
            out.append(arg)
        elif kind is str:
            out.append(arg.encode())
        elif kind is int:
            out.append(b"%d" % arg)
        elif kind is float:
            out.append(repr(arg).encode())
        elif isinstance(arg, (bytearray, memoryview)):
            out.append(bytes(arg))
        elif isinstance(arg, bytes):
            out.append(bytes(arg))
        elif isinstance(arg, str):
            out.append(str.encode(arg))
        elif isinstance(arg, float):
            out.append(repr(arg).encode())
        else:
            raise DataError(E.PACK_ARGUMENT)
    return out


def unknown_command_line(argv: list[bytes]) -> str:
    """Redis's "unknown command" line: the name and up to ~128 chars of args."""
    args = ""
    for arg in argv[1:]:
        if len(args) >= 128:
            break
        text = arg.split(b"\0", 1)[0].decode("utf-8", "replace")
        args += "'%s' " % text[: 128 - len(args)]
    name = argv[0].split(b"\0", 1)[0].decode("utf-8", "replace")[:128]
    line = E.UNKNOWN_COMMAND % (name, args)
    return line.replace("\r", " ").replace("\n", " ")


def arity_line(name: str) -> str:
    """Redis's rejection of a wrong argument count. A malformed EXEC is
    answered as an aborted transaction (EXECABORT), even with no MULTI open."""
    line = E.WRONG_ARITY % name
    return E.EXEC_REJECTED % line[4:] if name == "exec" else line


class Engine(Keyspace, CoreCommands):
    """In-process Redis 7.0 keyspace behind redis-py's command methods.

    The keys and every rule about reading and writing them are
    :class:`fastrank.keyspace.Keyspace`'s, which the Engine inherits."""

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
        self.response_callbacks: dict[str, Callable[..., Any]] = CaseInsensitiveDict(
            # redis-py annotates the data Dict[str, str]; it holds the callbacks.
            get_response_callbacks(user_protocol=None, legacy_responses=True)  # type: ignore[arg-type]
        )
        self._event_dispatcher = EventDispatcher()
        self._lua: LuaScripting | None = None  # the Lua state, made by the first script
        self._snapshot_path: str | os.PathLike[str] | None = None  # save() without a path
        # What the compiled fast paths read in C (shares _data, _expires, _lock).
        self._fast = EngineState(self._data, self._expires, self._lock, decode_responses,
                                 encoding, encoding_errors)

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

    def cms(self) -> CMSBloom:
        """redis-py's own CMS commands, bound to this engine (as ``Redis.cms()``)."""
        from redis.commands.bf import CMSBloom

        return CMSBloom(client=self)

    def topk(self) -> TOPKBloom:
        """redis-py's own TOPK commands, bound to this engine (as ``Redis.topk()``)."""
        from redis.commands.bf import TOPKBloom

        return TOPKBloom(client=self)

    def register_script(self, script: ScriptTextT) -> Script:
        """redis-py's ``Script`` (EVALSHA, SCRIPT LOAD on NOSCRIPT), pipelines too."""
        from fastrank.script import Script  # script.py imports Engine: import it once Engine exists

        return Script(self, script)  # type: ignore[arg-type]  # redis-py types it for Redis only

    def evalsha(self, sha: str, numkeys: int, *keys_and_args: str) -> Any:  # type: ignore[override]
        """EVALSHA; a cached script with plain arguments skips the generic path."""
        return evalsha_fast(self, sha, numkeys, keys_and_args)

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Pipeline:
        from fastrank.pipeline import Pipeline  # pipeline.py imports this module's packing helpers

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

    def save(self, path: str | os.PathLike[str] | None = None, **kwargs: Any) -> bool:
        """Write the whole keyspace to a snapshot file, atomically; True.

        The file is written beside ``path``, fsynced and renamed over it, so a
        crash leaves the old snapshot or the new one. Without ``path``, the
        path of the last ``save``/``load`` is used. Commands wait while it
        runs, as Redis's SAVE blocks the server. O(size of the keyspace).

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
                                  for k, v, deadline in self.entries()))
        self._snapshot_path = path
        return True

    def load(self, path: str | os.PathLike[str]) -> int:
        """Replace the whole keyspace with a snapshot's; the number of keys read.

        The file is read and checked completely first: a missing, truncated,
        altered or unknown-version file raises (``OSError``,
        ``fastrank.snapshot.SnapshotError``) and the keyspace stays as it was.
        Keys whose deadline has passed expire on their first access, as any
        key does. Watching transactions fail as after FLUSHALL; blocked pops
        wake up. O(size of the snapshot).
        """
        data, expires = read_snapshot(path)
        with self._lock:
            self.load_all(data, expires)
        self._snapshot_path = path
        return len(data)

    # -- generic path --------------------------------------------------------

    def call(self, argv: list[bytes]) -> Any:
        """Run one packed command (lock held by the caller); the raw reply."""
        cmd = COMMANDS.get(argv[0].upper())
        if cmd is None:
            raise CommandError(unknown_command_line(argv))
        n = len(argv)
        if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
            raise CommandError(arity_line(cmd.name))
        reply = cmd.handler(self, argv[1:])
        if cmd.write and self._waiters:
            self._cond.notify_all()
        return reply

    def decode(self, reply: Any) -> Any:
        """Decode bytes in a raw reply as hiredis does with decode_responses."""
        kind = type(reply)
        if kind is bytes:
            return reply.decode(self._encoding, self._encoding_errors)
        if kind is list:
            return [self.decode(x) for x in reply]
        if kind is dict:
            return {self.decode(k): self.decode(v) for k, v in reply.items()}
        return reply

    def finish(self, command_name: str | bytes, reply: Any, options: dict[str, Any]) -> Any:
        """Decode and run the response callback, as redis-py's parse_response."""
        if NEVER_DECODE in options:
            options.pop(NEVER_DECODE)
        elif self._decode_responses:
            reply = self.decode(reply)
        options.pop(EMPTY_RESPONSE, None)
        options.pop("keys", None)
        if command_name in self.response_callbacks:
            return self.response_callbacks[command_name](reply, **options)
        return reply

    def execute_command(self, *args: Any, **options: Any) -> Any:
        argv = pack_args(args)
        with self._lock:
            return self.run_packed(args[0], argv, options)

    def run_packed(self, command_name: str | bytes, argv: list[bytes],
                   options: dict[str, Any]) -> Any:
        """One packed command with redis-py's reply handling (lock held)."""
        try:
            reply = self.call(argv)
        except CommandError as err:
            if EMPTY_RESPONSE in options:
                return options[EMPTY_RESPONSE]
            raise _parse_error(err.line) from None
        return self.finish(command_name, reply, options)

    # -- fast paths ------------------------------------------------------------
    # Each returns exactly what the generic path returns; anything unusual
    # (other argument types, missing or expiring keys, non-finite numbers)
    # goes to the generic path. tests/unit/test_engine_fastpaths.py proves it.
    #
    # Two levels. The public methods are compiled (``_enginefast.pxi`` in the
    # core): exact bytes/str key, exact bytes/str/int member, a key without
    # TTL holding a skiplist SortedSet (any zset for reads), an integer
    # string for INCRBY -- decided and done in C under the lock. Whatever
    # they decline goes to the Python fast paths below (``_py_zincrby``...; they
    # also handle listpack zsets), which decline to the generic path.

    zincrby = engine_zincrby
    zscore = engine_zscore
    zrank = engine_zrank
    zrevrank = engine_zrevrank
    zrange = engine_zrange
    zrevrange = engine_zrevrange
    incrby = incr = engine_incrby

    # The _py_* paths take what the public method (engine_* in _core.pyi,
    # redis-py's signatures) was given; ``value: Any`` as they dispatch on
    # ``kind = type(value)``, which mypy does not narrow through.

    def _py_zincrby(self, name: KeyT, amount: float, value: Any) -> float | None:
        key = name if type(name) is bytes else (name.encode() if type(name) is str else None)
        kind = type(value)
        if kind is int:
            value = b"%d" % value
        elif kind is not bytes and kind is not str:
            key = None
        if type(amount) is int and -1e300 < amount < 1e300:
            amount = float(amount)
        # A zero amount goes the generic way: a new member then gets the
        # amount itself (-0.0 stays -0.0), not 0.0 + amount.
        if key is not None and type(amount) is float and amount - amount == 0.0 and amount:
            with self._lock:
                z = self._data.get(key)
                if type(z) is SortedSet and key not in self._expires:
                    score = z.incr(value, amount)
                    if self._observed:
                        self._written(key)
                    return score
                if type(z) is ListpackZSet and key not in self._expires:
                    score = z.incr(value, amount)  # never -0.0: amount is not zero
                    if len(z) > LISTPACK_ENTRIES or blen(value) > LISTPACK_VALUE:
                        self._data[key] = z.copy(cls=SortedSet)  # Redis converts to a skiplist
                    if self._observed:
                        self._written(key)
                    return score
        return CoreCommands.zincrby(self, name, amount, value)

    def _py_zscore(self, name: KeyT, value: Any) -> float | None:
        key = name if type(name) is bytes else (name.encode() if type(name) is str else None)
        kind = type(value)
        if kind is int:
            value = b"%d" % value
        elif kind is not bytes and kind is not str:
            key = None
        if key is not None:
            with self._lock:
                z = self._data.get(key)
                if (type(z) is SortedSet or type(z) is ListpackZSet) \
                        and key not in self._expires:
                    return z.score(value)
        return CoreCommands.zscore(self, name, value)

    def _rank(self, name: KeyT, value: Any, reverse: bool) -> int | None | Literal[False]:
        """Fast rank, or the sentinel False when the generic path must answer."""
        key = name if type(name) is bytes else (name.encode() if type(name) is str else None)
        kind = type(value)
        if kind is int:
            value = b"%d" % value
        elif kind is not bytes and kind is not str:
            return False
        if key is None:
            return False
        with self._lock:
            z = self._data.get(key)
            if (type(z) is SortedSet or type(z) is ListpackZSet) and key not in self._expires:
                return z.rank(value, reverse)
        return False

    def _py_zrank(self, name: KeyT, value: EncodableT, withscore: bool = False,
                  score_cast_func: type | Callable[..., Any] = float) -> int | list[Any] | None:
        if not withscore:
            rank = self._rank(name, value, False)
            if rank is not False:
                return rank
        return CoreCommands.zrank(self, name, value, withscore, score_cast_func)

    def _py_zrevrank(self, name: KeyT, value: EncodableT, withscore: bool = False,
                     score_cast_func: type | Callable[..., Any] = float
                     ) -> int | list[Any] | None:
        if not withscore:
            rank = self._rank(name, value, True)
            if rank is not False:
                return rank
        return CoreCommands.zrevrank(self, name, value, withscore, score_cast_func)

    def zadd(self, name: KeyT, mapping: Mapping[Any, EncodableT], nx: bool = False,
             xx: bool = False, ch: bool = False, incr: bool = False, gt: bool = False,
             lt: bool = False) -> int | float | None:
        key = name if type(name) is bytes else None
        if type(name) is str:
            try:
                key = name.encode()
            except UnicodeEncodeError:  # redis-py's own checks come first: generic path
                pass
        if key is not None and mapping and not incr and not (nx and (xx or gt or lt)) \
                and not (gt and lt) and type(mapping) is dict:
            pairs: list[tuple[Any, float]] = []
            for member, score in mapping.items():
                kind = type(member)
                if kind is int:
                    member = b"%d" % member
                elif kind is not bytes and kind is not str:
                    break
                if type(score) is int and -1e300 < score < 1e300:
                    score = float(score)
                if type(score) is not float or score - score != 0.0:
                    break
                pairs.append((member, score))
            else:
                with self._lock:
                    z = self._data.get(key)
                    if z is None and key not in self._expires and not xx:
                        z = self._data[key] = (SortedSet() if blen(pairs[0][0]) > LISTPACK_VALUE
                                               else ListpackZSet())
                    bulk: int | None = None
                    added: int
                    changed: int
                    if type(z) is SortedSet and key not in self._expires \
                            and not (nx or xx or gt or lt or ch):
                        bulk = zset_add_bulk(self, z, [m for m, _ in pairs],
                                             [s for _, s in pairs])
                    if bulk is not None:
                        added, changed = bulk, 0
                    elif type(z) is SortedSet and key not in self._expires:
                        added = changed = 0
                        add = z.add_status
                        for member, score in pairs:
                            status = add(member, score, nx, xx, gt, lt)
                            if status == 1:
                                added += 1
                            elif status == 2:
                                changed += 1
                    elif type(z) is ListpackZSet and key not in self._expires:
                        added = changed = 0
                        first = z
                        for member, score in pairs:
                            z, status = zset_add(z, member, score, nx, xx, gt, lt)
                            if status == 1:
                                added += 1
                            elif status == 2:
                                changed += 1
                        if z is not first:
                            self._data[key] = z
                    else:
                        z = None
                    if z is not None:
                        if not z:
                            del self._data[key]
                        if self._observed:
                            if self._watched and (added or changed):
                                self._touch(key)
                            if self._waiters:
                                self._cond.notify_all()
                        return added + changed if ch else added
        return CoreCommands.zadd(self, name, mapping, nx, xx, ch, incr, gt, lt)

    def _fast_range(self, name: KeyT, start: Any, end: Any, reverse: bool, withscores: bool,
                    score_cast_func: type | Callable[..., Any]) -> list[Any] | Literal[False]:
        """Rank range without options, or False for the generic path."""
        key = name if type(name) is bytes else (name.encode() if type(name) is str else None)
        if key is None or type(start) is not int or type(end) is not int \
                or (withscores and score_cast_func is not float):
            return False
        with self._lock:
            z = self._data.get(key)
            if (type(z) is not SortedSet and type(z) is not ListpackZSet) or key in self._expires:
                return False
            if not -(1 << 63) <= start < (1 << 63) or not -(1 << 63) <= end < (1 << 63):
                return False
            result: list[Any] = z.range(start, end, reverse, withscores)
        if self._decode_responses:
            enc, errors = self._encoding, self._encoding_errors
            if withscores:
                return [(m.decode(enc, errors), s) for m, s in result]
            return [m.decode(enc, errors) for m in result]
        return result

    def _py_zrange(self, name: KeyT, start: EncodableT, end: EncodableT, desc: bool = False,
                   withscores: bool = False,
                   score_cast_func: type | Callable[..., Any] = float, byscore: bool = False,
                   bylex: bool = False, offset: int | None = None,
                   num: int | None = None) -> ZSetRangeResponse:
        if not byscore and not bylex and offset is None and num is None:
            result = self._fast_range(name, start, end, desc, withscores, score_cast_func)
            if result is not False:
                return result
        return CoreCommands.zrange(self, name, start, end, desc, withscores, score_cast_func,
                                   byscore, bylex, offset, num)

    def _py_zrevrange(self, name: KeyT, start: int, end: int, withscores: bool = False,
                      score_cast_func: type | Callable[..., Any] = float) -> ZSetRangeResponse:
        result = self._fast_range(name, start, end, True, withscores, score_cast_func)
        if result is not False:
            return result
        return CoreCommands.zrevrange(self, name, start, end, withscores, score_cast_func)

    def _py_incrby(self, name: KeyT, amount: int = 1) -> int:
        key = name if type(name) is bytes else (name.encode() if type(name) is str else None)
        if key is not None and type(amount) is int:
            with self._lock:
                old = self._data.get(key)
                if type(old) is bytes and key not in self._expires:
                    value = _canonical_int(old)
                    if value is not None:
                        new = value + amount
                        if -(1 << 63) <= amount < (1 << 63) and -(1 << 63) <= new < (1 << 63):
                            self._data[key] = b"%d" % new
                            if self._observed:
                                self._written(key)
                            return new
        return CoreCommands.incrby(self, name, amount)


    def mget(self, keys: KeysT, *args: EncodableT) -> list[bytes | str | None]:
        if not args and type(keys) is list and keys and not self._expires:
            encoded: list[bytes] = []
            for k in keys:
                if type(k) is bytes:
                    encoded.append(k)
                elif type(k) is str:
                    encoded.append(k.encode())
                else:
                    break
            else:
                get = self._data.get
                with self._lock:
                    values = [get(k) for k in encoded]
                values = [v if type(v) is bytes else None for v in values]
                if self._decode_responses:
                    enc, errors = self._encoding, self._encoding_errors
                    return [None if v is None else v.decode(enc, errors) for v in values]
                return values
        return CoreCommands.mget(self, keys, *args)


def _canonical_int(text: bytes) -> int | None:
    """int(text) when text is a canonical int64 decimal, else None (fast check)."""
    if not text or len(text) > 20:
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    if b"%d" % value != text or not -(1 << 63) <= value < (1 << 63):
        return None
    return value
