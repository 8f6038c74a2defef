"""Plans and runners: domain logic written once for sync and asyncio clients.

A *plan* is a generator that yields the I/O it needs and receives the replies
(or, for a single step, a :data:`Direct`: the step and how to read its reply):

- a :class:`Call` (one redis-py command method) → its reply;
- a list of calls → the list of their replies, sent as one non-transactional
  pipeline (one round trip; on a cluster the keys share a hash tag, so one node);
- a :class:`Run` (a Lua :class:`Script` with keys and arguments) → its reply,
  sent as EVALSHA; on NOSCRIPT the script is loaded (SCRIPT LOAD, which a
  cluster client sends to every primary) and the EVALSHA retried, so each
  server learns a script once;
- a :class:`Do` (a blocking local call, such as a database query) → its
  result: called directly by the sync runner, in a worker thread by the
  asyncio runner (so the event loop never waits on it).

The plan's return value is the method's result. An error raised while
sending a step (a server error, or whatever a :class:`Do` raised) is thrown
into the plan, which may translate it (a script's ``FASTRANK_...`` error line
into a ``ValueError``), undo what it began (a failed rebuild drops its
half-built board) or let it propagate.

:func:`run` drives a plan on a sync client (``fastrank.Engine``,
``redis.Redis``, ``redis.cluster.RedisCluster``); :func:`run_async` on an
asyncio one (``fastrank.asyncio.Engine``, ``redis.asyncio.Redis``,
``redis.asyncio.cluster.RedisCluster``). Nothing here knows any backend's
internals: only redis-py's command methods are called.

A class declares its two faces once: its plans class names each public
method after its plan, ``rank = twin(_plan_rank)`` (``opens=True`` when the
asyncio face must ``await self._opening()`` first); the sync face subclasses
:class:`SyncFace` and the plans class, the asyncio face :class:`AsyncFace`
and the plans class, and each gets ``rank`` (run, or awaited) from the twin.
An iteration is ``iter = twin_pages(_pages_iter)``, over a :data:`Pages` plan.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
from importlib import resources
from typing import (TYPE_CHECKING, Any, AsyncIterator, Callable, Coroutine, Dict, Generator, Generic, Iterator, List,
                    NamedTuple, Optional, Sequence, Tuple, TypeVar, Union, overload)

from redis.exceptions import NoScriptError, ResponseError

from fastrank._faces import PlanMethod, evalsha_loading, runner_setup
from fastrank._faces import run as run  # re-exported: the sync runner (see below)

_T = TypeVar("_T")

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")
else:
    _P = TypeVar("_P")  # at run time a stand-in (Python 3.9 has no ParamSpec): only type checkers read it


class Call(NamedTuple):
    """One redis-py command method call: ``getattr(client, method)(*args, **kwargs)``."""

    method: str
    args: Tuple[Any, ...] = ()
    kwargs: Dict[str, Any] = {}


class Script:
    """A Lua script shipped with fastrank, known by the SHA1 of its text."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"Script({self.name!r}, sha={self.sha[:10]})"


@functools.lru_cache(maxsize=None)
def packaged_script(name: str, package: str = "fastrank.leaderboard") -> Script:
    """The script ``scripts/<name>.lua`` of ``package``, after the boards'
    shared prelude (``fastrank/leaderboard/scripts/_prelude.lua``)."""
    prelude = resources.files("fastrank.leaderboard").joinpath("scripts", "_prelude.lua").read_text(encoding="utf-8")
    body = resources.files(package).joinpath("scripts", f"{name}.lua").read_text(encoding="utf-8")
    return Script(name, prelude + body)


class Run(NamedTuple):
    """Run ``script`` on ``keys`` (all under one hash tag) with ``args``."""

    script: Script
    keys: Tuple[Any, ...]
    args: Tuple[Any, ...]


async def _evalsha_async(client: Any, script: Script, keys: Sequence[Any], args: Sequence[Any]) -> Any:
    """EVALSHA of ``script`` on an asyncio client; SCRIPT LOAD and again on
    NOSCRIPT (the sync runner's is ``fastrank._faces.evalsha_loading``)."""
    try:
        return await client.evalsha(script.sha, len(keys), *keys, *args)
    except ResponseError as exc:
        if not _is_noscript(exc):
            raise
    await client.script_load(script.source)
    return await client.evalsha(script.sha, len(keys), *keys, *args)


class Do(NamedTuple):
    """Call ``function(*args, **kwargs)`` here (blocking I/O other than the client's)."""

    function: Callable[..., Any]
    args: Tuple[Any, ...] = ()
    kwargs: Dict[str, Any] = {}


Direct = Tuple[Any, Tuple[Any, ...], Any, Callable[[Any], _T], Optional[Callable[[ResponseError], Exception]]]
"""A plan of a single step, as a plain tuple ``(target, first, second, parse, fail)``:
either a command -- ``target`` a redis-py method name, ``first`` its
arguments, ``second`` its keyword arguments or None -- or a script --
``target`` a :class:`Script`, ``first`` its keys, ``second`` its arguments.
``parse(reply)`` is the result; ``fail``, when not None, turns a server
error of the step into the error the method raises (as a generator plan's
``except`` would).

The one-step methods (a rank, a score, a submit, a slice) are this instead
of a generator, which spares them the generator's start and stop, and a
plain tuple, which costs a fifth of a NamedTuple to make (the hot reads make
one per call). :func:`direct_call` and :func:`direct_run` name the two forms."""


def direct_call(method: str, args: Tuple[Any, ...], parse: Callable[[Any], _T],
                fail: Optional[Callable[[ResponseError], Exception]] = None) -> Direct[_T]:
    """The one-step plan of the command method ``method(*args)``."""
    return (method, args, None, parse, fail)


def direct_run(script: Script, keys: Tuple[Any, ...], args: Tuple[Any, ...], parse: Callable[[Any], _T],
               fail: Optional[Callable[[ResponseError], Exception]] = None) -> Direct[_T]:
    """The one-step plan of ``script`` on ``keys`` with ``args``."""
    return (script, keys, args, parse, fail)


Step = Union[Call, List[Call], Run, Do]
Steps = Generator[Step, Any, _T]
Plan = Union[Steps[_T], Direct[_T]]


def steps(plan: Plan[_T]) -> Steps[_T]:
    """Any plan as a generator, for ``yield from`` inside another plan."""
    if type(plan) is tuple:
        target, first, second, parse, fail = plan
        step: Step = Call(target, first, second or {}) if type(target) is str else Run(target, first, second)
        try:
            reply = yield step
        except ResponseError as exc:
            if fail is None:
                raise
            raise fail(exc) from exc
        return parse(reply)
    result = yield from plan  # type: ignore[misc]
    return result  # type: ignore[return-value]


def _is_noscript(exc: Exception) -> bool:
    return isinstance(exc, NoScriptError) or str(exc).startswith("NOSCRIPT")


def _send(client: Any, step: Step) -> Any:
    if isinstance(step, Do):
        return step.function(*step.args, **step.kwargs)
    if isinstance(step, Run):  # EVALSHA; SCRIPT LOAD and again on NOSCRIPT (C: fastrank._faces)
        return evalsha_loading(client, step.script, step.keys, step.args)
    if isinstance(step, Call):
        return getattr(client, step.method)(*step.args, **step.kwargs)
    pipe = client.pipeline(transaction=False)
    for call in step:
        getattr(pipe, call.method)(*call.args, **call.kwargs)
    return pipe.execute()


async def _send_async(client: Any, step: Step) -> Any:
    if isinstance(step, Do):
        return await asyncio.to_thread(step.function, *step.args, **step.kwargs)
    if isinstance(step, Run):
        return await _evalsha_async(client, step.script, step.keys, step.args)
    if isinstance(step, Call):
        return await getattr(client, step.method)(*step.args, **step.kwargs)
    pipe = client.pipeline(transaction=False)
    for call in step:
        getattr(pipe, call.method)(*call.args, **call.kwargs)
    return await pipe.execute()


def _run_steps(client: Any, plan: Steps[_T]) -> _T:
    """:func:`run` of a generator plan: each step sent, its reply (or error) sent back in."""
    try:
        step = next(plan)
        while True:
            try:
                reply = _send(client, step)
            except Exception as exc:  # noqa: BLE001 -- the plan's to handle (cleanup) or re-raise
                step = plan.throw(exc)
            else:
                step = plan.send(reply)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


# run(client, plan) drives a plan on a sync redis-py style client and returns
# its result: fastrank._faces.run, in C, runs a one-step plan (a Direct: the
# command method, or EVALSHA with SCRIPT LOAD on NOSCRIPT; a ResponseError
# turned by ``fail`` and raised from the server's; the reply read by
# ``parse``) with no Python frame in between, and hands a generator plan to
# _run_steps.
runner_setup(_run_steps, ResponseError, NoScriptError)


async def run_async(client: Any, plan: Plan[_T]) -> _T:
    """Drive ``plan`` on an asyncio redis-py style client and return its result."""
    if type(plan) is tuple:
        target, first, second, parse, fail = plan
        try:
            if type(target) is str:
                reply = await getattr(client, target)(*first, **(second or {}))
            else:
                reply = await _evalsha_async(client, target, first, second)
        except ResponseError as exc:
            if fail is None:
                raise
            raise fail(exc) from exc
        return parse(reply)
    assert not isinstance(plan, tuple)
    try:
        step = next(plan)
        while True:
            try:
                reply = await _send_async(client, step)
            except Exception as exc:  # noqa: BLE001 -- the plan's to handle (cleanup) or re-raise
                step = plan.throw(exc)
            else:
                step = plan.send(reply)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def checked_client(face: Any, client: Any) -> Any:
    """``client``, once it suits ``face``: a sync face (a class with
    ``is_async = False``: ``fastrank.Leaderboard``...) runs on a sync client
    (``fastrank.Engine``, ``redis.Redis``, ``redis.cluster.RedisCluster``), an
    asyncio face (``is_async = True``: ``fastrank.asyncio.Leaderboard``...)
    on an asyncio one, told apart as redis-py does (``_is_async_client``).
    Otherwise TypeError, at construction rather than at the first call."""
    wants = getattr(face, "is_async", None)
    if wants is not None and bool(getattr(client, "_is_async_client", False)) is not wants:
        name = type(face).__name__
        if wants:
            raise TypeError(f"fastrank.asyncio.{name} needs an asyncio client (fastrank.asyncio.Engine, "
                            f"redis.asyncio.Redis, redis.asyncio.cluster.RedisCluster), not "
                            f"{type(client).__module__}.{type(client).__qualname__}; use fastrank.{name} with it")
        raise TypeError(f"fastrank.{name} needs a sync client (fastrank.Engine, redis.Redis, "
                        f"redis.cluster.RedisCluster), not {type(client).__module__}.{type(client).__qualname__}; "
                        f"use fastrank.asyncio.{name} with it")
    return client


def _plan_result(annotation: Any) -> Any:
    """``Plan[X]`` (or ``Steps[X]``, ``Direct[X]``, ``Pages[X]``), as a plan's
    return annotation is written, → ``X``; anything else as it is."""
    if isinstance(annotation, str):
        for prefix in ("Plan[", "Steps[", "Direct[", "Pages["):
            if annotation.startswith(prefix) and annotation.endswith("]"):
                return annotation[len(prefix):-1]
    return annotation


class _Twinned:
    """What :class:`twin` and :class:`twin_pages` share: the plan, its name, the methods made."""

    #: the method's return annotation from the plan's result X: (sync face's, asyncio face's)
    returns = ("{}", "{}")

    def __init__(self, plan: Callable[..., Any], opens: bool,
                 make: Callable[[Callable[..., Any], bool, bool], Callable[..., Any]]) -> None:
        self.plan = plan
        self.make = make
        self.opens = opens
        #: the method's name: the attribute's (set by the class), else the plan's without ``_plan_``
        self.name = plan.__name__.replace("_plan_", "", 1)
        self._methods: Dict[bool, Callable[..., Any]] = {}

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def _not_a_face(self, face: Any) -> TypeError:
        return TypeError(f"{type(face).__name__}.{self.name} is a plan's method: call it on a sync or asyncio face "
                         f"(a SyncFace or AsyncFace subclass), or call {self.plan.__name__} for the plan")

    def method(self, is_async: bool) -> Callable[..., Any]:
        """The method of the sync face (``is_async`` false) or of the asyncio face."""
        made = self._methods.get(is_async)
        if made is None:
            made = self._methods[is_async] = _described(self.make(self.plan, self.opens, is_async), self,
                                                        self.returns[is_async])
        return made


class twin(_Twinned, Generic[_P, _T]):  # noqa: N801 -- used like a decorator, named like one
    """A plan made a method of both faces: ``rank = twin(_plan_rank)`` in a
    plans class gives every sync face (a :class:`SyncFace` subclass) the
    method ``rank`` that runs the plan (:func:`run`), and every asyncio face
    (an :class:`AsyncFace` subclass) the coroutine ``rank`` that awaits it
    (:func:`run_async`); both with the plan's signature and docstring.

    With ``opens``, the coroutine first awaits ``self._opening()`` while
    ``self._opened`` is false (an object that reads its stored description
    once, before its first call; a sync face reads it when it is made).

    The sync method is a :class:`fastrank._faces.PlanMethod`: the call's
    arguments reach the plan as they came (no ``*args``/``**kwargs`` packed,
    no Python frame between), so it costs what a method written out from the
    plan's signature would (bench/bench_plan_methods.py)."""

    def __init__(self, plan: Callable[Concatenate[Any, _P], Plan[_T]], *, opens: bool = False) -> None:
        super().__init__(plan, opens, _plan_method)

    @overload
    def __get__(self, face: None, owner: Any) -> "twin[_P, _T]": ...

    @overload
    def __get__(self, face: "SyncFace", owner: Any) -> Callable[_P, _T]: ...

    @overload
    def __get__(self, face: "AsyncFace", owner: Any) -> Callable[_P, Coroutine[Any, Any, _T]]: ...

    def __get__(self, face: Any, owner: Any = None) -> Any:
        if face is None:
            return self
        raise self._not_a_face(face)


Pages = Generator[Plan[List[_T]], List[_T], None]
"""An iteration written once for both faces: a generator that yields the plan
of each batch and is sent back that batch's items (which the face's iterator
gives out), and ends after the last batch."""


class twin_pages(_Twinned, Generic[_P, _T]):  # noqa: N801 -- used like a decorator, named like one
    """:class:`twin` of an iteration: ``iter = twin_pages(_pages_iter)`` gives
    the sync face a generator method and the asyncio face an async generator
    method (``async for``) over the items of the :data:`Pages` the plan makes."""

    returns = ("Iterator[{}]", "AsyncIterator[{}]")

    def __init__(self, plan: Callable[Concatenate[Any, _P], Pages[_T]], *, opens: bool = False) -> None:
        super().__init__(plan, opens, _pages_method)

    @overload
    def __get__(self, face: None, owner: Any) -> "twin_pages[_P, _T]": ...

    @overload
    def __get__(self, face: "SyncFace", owner: Any) -> Callable[_P, Iterator[_T]]: ...

    @overload
    def __get__(self, face: "AsyncFace", owner: Any) -> Callable[_P, AsyncIterator[_T]]: ...

    def __get__(self, face: Any, owner: Any = None) -> Any:
        if face is None:
            return self
        raise self._not_a_face(face)


def _pages_method(pages: Callable[..., Any], opens: bool, is_async: bool) -> Callable[..., Any]:
    """The (async) generator function that gives out the items of ``pages``'s batches."""
    if is_async:
        async def items_async(self: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            if opens and not self._opened:
                await self._opening()
            plans = pages(self, *args, **kwargs)
            try:
                plan = next(plans)
                while True:
                    batch = await run_async(self._client, plan)
                    for item in batch:
                        yield item
                    plan = plans.send(batch)
            except StopIteration:
                return
        return items_async

    def items(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        plans = pages(self, *args, **kwargs)
        try:
            plan = next(plans)
            while True:
                batch = run(self._client, plan)
                yield from batch
                plan = plans.send(batch)
        except StopIteration:
            return
    return items


def _plan_method(plan: Callable[..., Any], opens: bool, is_async: bool) -> Callable[..., Any]:
    """The sync face's method of ``plan`` (a PlanMethod) or the asyncio face's coroutine function."""
    if not is_async:
        return PlanMethod(plan, run)
    # (the object is args[0]: the arguments go on to the plan as one tuple, not rebuilt around it)
    if opens:
        async def opened(*args: Any, **kwargs: Any) -> Any:
            if not args[0]._opened:
                await args[0]._opening()
            return await run_async(args[0]._client, plan(*args, **kwargs))
        return opened

    async def method(*args: Any, **kwargs: Any) -> Any:
        return await run_async(args[0]._client, plan(*args, **kwargs))
    return method


def _described(method: Any, made: _Twinned, returns: str) -> Any:
    """``method`` named, documented and signed as ``made``'s plan (help() and
    inspect show the plan's parameters and what the method returns: the
    plan's result X, as ``returns`` writes it)."""
    plan = made.plan
    returned = _plan_result(plan.__annotations__.get("return", inspect.Signature.empty))
    if isinstance(returned, str):
        returned = returns.format(returned)
    method.__name__ = method.__qualname__ = made.name
    method.__doc__ = plan.__doc__
    method.__module__ = plan.__module__
    method.__annotations__ = {**plan.__annotations__, "return": returned}
    method.__signature__ = inspect.signature(plan).replace(return_annotation=returned)
    return method


def _make_methods(face: type) -> None:
    """Give ``face`` the method of each :class:`twin` (or :class:`twin_pages`) it inherits and does not override."""
    seen = set()
    for klass in face.__mro__:
        for name, value in vars(klass).items():
            if name not in seen:
                seen.add(name)
                if isinstance(value, _Twinned):
                    setattr(face, name, value.method(face.is_async))  # type: ignore[attr-defined]


class SyncFace:
    """Base of a sync face (``fastrank.Leaderboard``...): each :class:`twin`
    of its plans' classes becomes a method that runs the plan on ``self._client``."""

    is_async = False  # the face this class is: checked against the client (checked_client)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _make_methods(cls)


class AsyncFace:
    """Base of an asyncio face (``fastrank.asyncio.Leaderboard``...): each
    :class:`twin` of its plans' classes becomes a coroutine that awaits the plan."""

    is_async = True  # the face this class is: checked against the client (checked_client)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _make_methods(cls)
