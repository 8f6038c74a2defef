"""fastrank.engine.asyncio: the in-process engine behind redis.asyncio's API.

``Engine`` mirrors ``redis.asyncio.Redis`` for every command the sync
:class:`fastrank.Engine` has. It wraps a sync Engine (``.sync``, shareable
with threads or other async views) and shares all of its logic: the command
table, argument packing, reply callbacks, errors and the fast paths. Each
command method is a coroutine function with redis-py's signature
(``functools.wraps`` of redis-py's async mixin method) that calls the sync
Engine's method and returns its reply. The in-process commands never wait
for I/O, so they run on the event loop without yielding, as a command on a
local server would.

Blocking pops (BZPOPMIN, BZPOPMAX, BZMPOP) never block the loop. The choice:
the command is tried on the loop as a transaction would run it (the sync
Engine's ``_no_block``: no wait, the timeout's nil reply); while it has
nothing to pop, the coroutine awaits a future. One daemon thread per core
(started only while some coroutine waits) sleeps on the core's write
Condition, the one the sync blocking pops use; after each write it resolves,
through ``call_soon_threadsafe``, the futures of the waiters one of whose
keys now exists, and they try again on their loop. Nothing is popped off the
loop, so cancelling a waiting task (or ``asyncio.wait_for``) never loses an
element, and no wake-up is lost (the thread holds the lock except inside the
Condition's wait, and checks the keys when it starts). Blocking commands the
engine may learn later without a key table here run in ``asyncio.to_thread``.

``pipeline()`` gives :class:`Pipeline`, redis.asyncio's Pipeline API over the
sync Pipeline: queued methods return the pipeline, ``await execute()`` runs
the batch, WATCH puts it in immediate mode (``await pipe.get(...)``),
``multi()``, ``async with``. ``cms()``/``topk()`` are redis-py's own
``AsyncCMSBloom``/``AsyncTOPKBloom`` bound to the engine (or pipeline).

``connect(url)``: ``memory://`` → :class:`Engine`; ``redis://``,
``rediss://``, ``unix://`` → ``redis.asyncio.Redis.from_url``;
``redis+cluster://host:port`` → ``redis.asyncio.cluster.RedisCluster``.

This module is named like the stdlib package; inside it ``import asyncio``
is an absolute import and finds the stdlib (``src/fastrank`` is never on
``sys.path``).
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import re
import threading
import time
from typing import (
    TYPE_CHECKING,
    Any,
    Awaitable,
    Callable,
    Coroutine,
    Dict,
    Generator,
    Iterable,
    List,
    Literal,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
)
from urllib.parse import urlparse

from redis.typing import EncodableT, KeyT

from redis.commands.core import AsyncCoreCommands, CoreCommands
from redis.commands.core import AsyncScript as _AsyncScript
from redis.exceptions import RedisError, ResponseError, WatchError

from fastrank import errors as E
from fastrank.engine.commands import COMMANDS
from fastrank.engine.commands.sortedset import parse_timeout
from fastrank.engine.engine import Engine as SyncEngine
from fastrank._core import pack_args

if TYPE_CHECKING:
    from redis._parsers import Encoder
    from redis.commands.bf import AsyncCMSBloom, AsyncTOPKBloom
    from redis.event import EventDispatcherInterface

    from fastrank.engine.pipeline import Pipeline as SyncPipeline

_T = TypeVar("_T")

#: A coroutine function standing in for a redis-py async command method.
_CommandMethod = Callable[..., Coroutine[Any, Any, Any]]

__all__ = ["Engine", "Pipeline", "connect"]

#: Methods that may send a blocking command: they go through the async
#: ``execute_command`` (redis-py's async mixin method), never the sync method.
_BLOCKING_METHODS = frozenset({
    "blpop", "brpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzpopmax", "bzmpop",
    "xread", "xreadgroup", "wait", "waitaof",
})
_BLOCKING_WORDS = frozenset(w.upper() for w in _BLOCKING_METHODS)


_BLOCKING_CACHE: Dict[Any, bool] = {}


def _is_blocking(first: Any) -> bool:
    """Is ``first`` (execute_command's first argument) a blocking command's name?"""
    try:
        return _BLOCKING_CACHE[first]
    except (KeyError, TypeError):
        pass
    if isinstance(first, (bytes, bytearray, memoryview)):
        text = bytes(first).decode("latin-1")
    elif isinstance(first, str):
        text = first
    else:
        return False
    words = text.split(None, 1)
    answer = bool(words) and words[0].upper() in _BLOCKING_WORDS
    if isinstance(first, (str, bytes)) and len(_BLOCKING_CACHE) < 4096:
        _BLOCKING_CACHE[first] = answer
    return answer


def _keys_and_timeout(word: bytes, argv: List[bytes]) -> Optional[Tuple[List[bytes], bytes]]:
    """(keys, timeout word) of a blocking command that parsed, or None if unknown here."""
    if word in (b"BZPOPMIN", b"BZPOPMAX", b"BLPOP", b"BRPOP"):
        return argv[1:-1], argv[-1]
    if word in (b"BZMPOP", b"BLMPOP"):
        n = int(argv[2])
        return argv[3:3 + n], argv[1]
    if word in (b"BRPOPLPUSH", b"BLMOVE"):
        return argv[1:2], argv[-1]
    return None


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


class _Wakeups:
    """Futures of coroutines waiting for one of their keys to exist (see module doc)."""

    def __init__(self, core: SyncEngine) -> None:
        self.core = core
        self.waiting: Dict[asyncio.Future[None], Sequence[bytes]] = {}
        self.thread: Optional[threading.Thread] = None

    def add(self, fut: asyncio.Future[None], keys: Sequence[bytes]) -> None:
        """Register fut (core lock held)."""
        self.waiting[fut] = keys
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="fastrank-asyncio-wakeups",
                                           daemon=True)
            self.thread.start()

    def remove(self, fut: asyncio.Future[None]) -> None:
        with self.core._lock:
            self.waiting.pop(fut, None)

    def _run(self) -> None:
        core = self.core
        with core._lock:
            try:
                self._sweep()  # writes between registration and this thread's start
                while self.waiting:
                    core.wait_for_write(time.monotonic() + 1.0)
                    self._sweep()
            finally:
                self.thread = None

    def _sweep(self) -> None:
        core = self.core
        for fut, keys in list(self.waiting.items()):
            if fut.done():
                del self.waiting[fut]
            elif any(core.lookup(k) is not None for k in keys):
                del self.waiting[fut]
                try:
                    fut.get_loop().call_soon_threadsafe(_wake, fut)
                except RuntimeError:  # its loop is closed
                    pass


def _sync_method(name: str, template: Callable[..., Any]) -> _CommandMethod:
    @functools.wraps(template)
    async def method(self: Engine, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._sync, name)(*args, **kwargs)

    return method


def _async_method(template: Callable[..., Any]) -> _CommandMethod:
    @functools.wraps(template)
    async def method(self: Engine, *args: Any, **kwargs: Any) -> Any:
        return await template(self, *args, **kwargs)

    return method


def command_method_names() -> List[str]:
    """The public command methods of the sync Engine (redis-py's CoreCommands)."""
    return sorted(n for n in dir(SyncEngine)
                  if not n.startswith("_") and n != "execute_command"
                  and callable(getattr(CoreCommands, n, None)))


class Engine(AsyncCoreCommands):
    """In-process Redis 7.0 keyspace behind redis.asyncio's command methods.

    ``Engine(decode_responses=..., encoding=..., encoding_errors=...)`` makes a
    new sync core; ``Engine(engine=sync_engine)`` wraps an existing one (its
    options apply).
    """

    #: Declared by redis-py's command mixins (CommandsProtocol); no command
    #: method here reads it, so it is never set (redis.asyncio.Redis sets an
    #: EventDispatcher for its connections' events).
    _event_dispatcher: EventDispatcherInterface
    #: As redis.asyncio.Redis: the replies of its command methods are awaitables.
    _is_async_client: Literal[True] = True

    def __init__(self, decode_responses: bool = False, encoding: str = "utf-8",
                 encoding_errors: str = "strict", *,
                 engine: Optional[SyncEngine] = None) -> None:
        if engine is None:
            engine = SyncEngine(decode_responses=decode_responses, encoding=encoding,
                                encoding_errors=encoding_errors)
        self._sync = engine
        wakeups = getattr(engine, "_fastrank_async_wakeups", None)
        if wakeups is None:
            wakeups = _Wakeups(engine)
            engine._fastrank_async_wakeups = wakeups  # type: ignore[attr-defined]
        self._wakeups: _Wakeups = wakeups

    @property
    def sync_engine(self) -> SyncEngine:
        """The sync :class:`fastrank.Engine` holding the keyspace."""
        return self._sync

    # -- redis.asyncio.Redis look-alikes ---------------------------------------

    def __repr__(self) -> str:
        return f"<fastrank.asyncio.Engine(decode_responses={self._sync._decode_responses})>"

    def __await__(self) -> Generator[Any, None, Engine]:
        return self.initialize().__await__()

    async def initialize(self) -> "Engine":
        return self

    async def __aenter__(self) -> "Engine":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self, close_connection_pool: Optional[bool] = None) -> None:
        self._sync.close()

    async def close(self, close_connection_pool: Optional[bool] = None) -> None:
        await self.aclose()

    @property
    def response_callbacks(self) -> Dict[str, Callable[..., Any]]:
        return self._sync.response_callbacks

    @response_callbacks.setter
    def response_callbacks(self, callbacks: Dict[str, Callable[..., Any]]) -> None:
        # As on redis.asyncio.Redis: replaces them (for the sync Engine too,
        # which holds them; replies then reach them raw, no front door).
        self._sync.response_callbacks = callbacks

    def get_encoder(self) -> Encoder:
        return self._sync.get_encoder()

    def get_connection_kwargs(self) -> Dict[str, Any]:
        return self._sync.get_connection_kwargs()

    def set_response_callback(self, command: str, callback: Callable[..., Any]) -> None:
        self._sync.set_response_callback(command, callback)

    async def save(self, path: Optional[str] = None, *,
                   key: Optional[bytes] = None, **kwargs: Any) -> bool:
        """:meth:`fastrank.Engine.save`, its file I/O in a worker thread."""
        return await asyncio.to_thread(self._sync.save, path, key=key)

    async def load(self, path: str, *, key: Optional[bytes] = None) -> int:
        """:meth:`fastrank.Engine.load`, its file I/O in a worker thread."""
        return await asyncio.to_thread(self._sync.load, path, key=key)

    def cms(self) -> AsyncCMSBloom:
        """redis-py's AsyncCMSBloom bound to this engine (as ``redis.asyncio.Redis.cms()``)."""
        from redis.commands.bf import AsyncCMSBloom

        return AsyncCMSBloom(client=self)

    def topk(self) -> AsyncTOPKBloom:
        """redis-py's AsyncTOPKBloom bound to this engine (as ``redis.asyncio.Redis.topk()``)."""
        from redis.commands.bf import AsyncTOPKBloom

        return AsyncTOPKBloom(client=self)

    def register_script(self, script: Any) -> AsyncScript:  # type: ignore[override]
        """redis-py's ``AsyncScript`` (EVALSHA, SCRIPT LOAD on NOSCRIPT), pipelines too."""
        return AsyncScript(self, script)  # type: ignore[arg-type]  # typed for Redis only

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> "Pipeline":
        return Pipeline(self, transaction)

    async def transaction(self, func: Callable[[Pipeline], Any], *watches: Any,
                          shard_hint: Any = None, value_from_callable: bool = False,
                          watch_delay: Optional[float] = None) -> Any:
        """redis.asyncio's Redis.transaction: ``func(pipe)`` (sync or async) under WATCH."""
        async with self.pipeline(True, shard_hint) as pipe:
            while True:
                try:
                    if watches:
                        await pipe.watch(*watches)
                    func_value = func(pipe)
                    if inspect.isawaitable(func_value):
                        func_value = await func_value
                    exec_value = await pipe.execute()
                    return func_value if value_from_callable else exec_value
                except WatchError:
                    if watch_delay is not None and watch_delay > 0:
                        await asyncio.sleep(watch_delay)
                    continue

    # -- commands ----------------------------------------------------------------

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        if _is_blocking(args[0]):
            return await self._blocking(args, options)
        return self._sync.execute_command(*args, **options)

    async def _blocking(self, args: Tuple[Any, ...], options: Dict[str, Any],
                        run: Optional[Callable[..., Any]] = None) -> Any:
        """A blocking command: tried at once, then again after each write to
        its keys until its timeout. ``run`` runs one try (default: this
        Engine's ``execute_command``, through its callbacks; a pipeline in
        WATCH's immediate mode passes its own)."""
        core = self._sync
        if run is None:
            run = core.execute_command
        argv = pack_args(args)
        word = argv[0].upper()
        cmd = COMMANDS.get(word)
        if cmd is None or not cmd.blocking:
            return run(*args, **options)
        keys: Sequence[bytes] = ()
        deadline: Optional[float] = None
        started = False
        while True:
            with core._lock:
                no_block, core._no_block = core._no_block, True
                core._retrying = started  # a retry: keys of another type are passed over
                try:
                    reply = run(*args, **options)
                finally:
                    core._no_block = no_block
                    core._retrying = False
                if reply is not None:
                    return reply
                if not started:  # the first try parsed every argument
                    started = True
                    spec = _keys_and_timeout(word, argv)
                    if spec is None:
                        break
                    keys = spec[0]
                    deadline = parse_timeout(spec[1])
                if deadline is not None and time.monotonic() >= deadline:
                    return reply
                fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                self._wakeups.add(fut, keys)
            try:
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                await asyncio.wait_for(fut, timeout)
            except asyncio.TimeoutError:
                pass
            finally:
                self._wakeups.remove(fut)
        return await asyncio.to_thread(run, *args, **options)


def _install_engine_methods() -> None:
    own = set(Engine.__dict__)
    for name in command_method_names():
        if name in own:
            continue
        template = getattr(AsyncCoreCommands, name, None)
        if template is None:
            template = getattr(SyncEngine, name)
        if inspect.isasyncgenfunction(template) or inspect.iscoroutinefunction(template):
            continue  # redis-py's async method, over our execute_command
        if name in _BLOCKING_METHODS:
            setattr(Engine, name, _async_method(template))
        else:
            setattr(Engine, name, _sync_method(name, template))


_install_engine_methods()


_ANNOTATED = re.compile(r"(Command # \d+ \(.*?\) of pipeline caused error: )(.*)\Z", re.S)


def _asyncio_annotation(exc: BaseException) -> None:
    """Re-annotate a pipeline error as redis.asyncio does (the args tuple, not args[0])."""
    if isinstance(exc, ResponseError) and exc.args and isinstance(exc.args[0], str):
        exc.args = (_asyncio_text(exc.args[0], exc.args[1:]),) + exc.args[1:]


def _asyncio_text(text: str, rest: Tuple[Any, ...]) -> str:
    # An error redis-py already annotated while reading the transaction's
    # replies (WATCH or MULTI inside MULTI) is annotated again when raised:
    # each level shows the args tuple of the level below.
    match = _ANNOTATED.match(text)
    if match is None:
        return text
    return f"{match.group(1)}{(_asyncio_text(match.group(2), rest),) + rest}"


class AsyncScript(_AsyncScript):
    """redis-py's async Script; called with one of our Pipelines it registers
    there, so ``execute()`` loads it first when the engine lacks it."""

    async def __call__(self, keys: Sequence[KeyT] | None = None,
                       args: Iterable[EncodableT] | None = None, client: Any = None) -> Any:
        if isinstance(client, Pipeline):
            client.scripts.add(self)
        return await super().__call__(keys, args, client)


class Pipeline(AsyncCoreCommands):
    """redis.asyncio's Pipeline API over the sync :class:`fastrank.engine.pipeline.Pipeline`."""

    _event_dispatcher: EventDispatcherInterface  # as Engine's: declared, never set

    def __init__(self, engine: Engine, transaction: bool = True) -> None:
        self._engine = engine
        self._pipe: SyncPipeline = engine.sync_engine.pipeline(transaction)

    # state lives in the sync pipeline
    @property
    def response_callbacks(self) -> Dict[str, Callable[..., Any]]:
        return self._pipe.response_callbacks

    @response_callbacks.setter
    def response_callbacks(self, callbacks: Dict[str, Callable[..., Any]]) -> None:
        self._pipe.response_callbacks = callbacks

    @property
    def is_transaction(self) -> bool:
        return self._pipe.transaction

    @property
    def watching(self) -> bool:
        return self._pipe.watching

    @property
    def explicit_transaction(self) -> bool:
        return self._pipe.explicit_transaction

    @property
    def scripts(self) -> Any:
        return self._pipe.scripts

    @property
    def command_stack(self) -> List[Tuple[Tuple[Any, ...], Dict[str, Any]]]:
        return self._pipe.command_stack

    async def __aenter__(self) -> "Pipeline":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.reset()

    def __await__(self) -> Generator[Any, None, Pipeline]:
        return self._async_self().__await__()

    async def _async_self(self) -> "Pipeline":
        return self

    def __len__(self) -> int:
        return len(self._pipe.command_stack)

    def __bool__(self) -> bool:
        return True

    def get_encoder(self) -> Encoder:
        return self._engine.get_encoder()

    def get_connection_kwargs(self) -> Dict[str, Any]:
        return self._engine.get_connection_kwargs()

    def set_response_callback(self, command: str, callback: Callable[..., Any]) -> None:
        self._engine.set_response_callback(command, callback)

    def cms(self) -> AsyncCMSBloom:
        from redis.commands.bf import AsyncCMSBloom

        return AsyncCMSBloom(client=self)

    def topk(self) -> AsyncTOPKBloom:
        from redis.commands.bf import AsyncTOPKBloom

        return AsyncTOPKBloom(client=self)

    # redis.asyncio's Pipeline API: RESET/WATCH/UNWATCH here are the
    # pipeline's own coroutines, not the mixins' command methods.
    async def reset(self) -> None:  # type: ignore[override]
        self._pipe.reset()

    async def aclose(self) -> None:
        await self.reset()

    def multi(self) -> None:
        self._pipe.multi()

    def execute_command(self, *args: Any, **options: Any) -> Any:
        pipe = self._pipe
        if (pipe.watching or args[0] == "WATCH") and not pipe.explicit_transaction:
            return self.immediate_execute_command(*args, **options)
        return self.pipeline_execute_command(*args, **options)

    def pipeline_execute_command(self, *args: Any, **options: Any) -> "Pipeline":
        self._pipe.command_stack.append((args, options))
        return self

    async def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        if _is_blocking(args[0]):  # waits on the loop; its replies through this pipeline's callbacks
            return await self._engine._blocking(args, options, self._pipe.immediate_execute_command)
        return self._pipe.immediate_execute_command(*args, **options)

    async def watch(self, *names: Any) -> Any:  # type: ignore[override]
        if self._pipe.explicit_transaction:
            raise RedisError(E.WATCH_AFTER_MULTI)
        return await self.execute_command("WATCH", *names)

    async def unwatch(self) -> Any:  # type: ignore[override]
        return self.watching and await self.execute_command("UNWATCH") or True

    async def discard(self) -> None:
        await self.execute_command("DISCARD")

    async def execute(self, raise_on_error: bool = True) -> List[Any]:
        pipe = self._pipe
        run: Callable[[], Awaitable[List[Any]]]
        if not (pipe.transaction or pipe.explicit_transaction) and any(
                _is_blocking(args[0]) for args, _ in pipe.command_stack):
            # A blocking command in a plain pipeline blocks its connection:
            # wait in a worker thread, not on the loop.
            run = functools.partial(asyncio.to_thread, pipe.execute, raise_on_error)
        else:
            run = functools.partial(_now, pipe.execute, raise_on_error)
        try:
            results: List[Any] = await run()
        except ResponseError as exc:
            _asyncio_annotation(exc)
            raise
        for r in results:
            if isinstance(r, ResponseError):
                _asyncio_annotation(r)
        return results


async def _now(fn: Callable[..., _T], *args: Any) -> _T:
    return fn(*args)


def connect(url: str = "memory://", **kwargs: Any) -> Any:
    """An asyncio redis-py compatible client for ``url`` (see the module docstring)."""
    parsed = urlparse(url)
    scheme = parsed.scheme.lower()
    if scheme == "memory":
        return Engine(**kwargs)
    if scheme in ("redis", "rediss", "unix"):
        import redis.asyncio

        return redis.asyncio.Redis.from_url(url, **kwargs)
    if scheme == "redis+cluster":
        from redis.asyncio.cluster import RedisCluster

        return RedisCluster(host=parsed.hostname or "localhost", port=parsed.port or 6379,
                            **kwargs)
    raise ValueError(f"unsupported URL scheme {scheme!r} (memory, redis, rediss, unix, "
                     "redis+cluster)")
