"""Pipeline: redis-py's Pipeline behaviour on an Engine.

Commands are queued by the same redis-py command methods and run by
``execute()``. All arguments are packed first (a DataError runs nothing).
With ``transaction=True`` the batch behaves as MULTI/EXEC does through
redis-py: an unknown command or a wrong arity is caught when queued and
makes EXEC fail (redis-py raises that first error); errors found while
running (WRONGTYPE, syntax, ...) are per-command results. Without a
transaction each command simply runs in turn. Either way the whole batch
runs under the engine lock, and with ``raise_on_error`` (the default) the
first error is raised after everything ran, annotated as redis-py does
("Command # n (...) of pipeline caused error: ...").

WATCH works as redis-py's Pipeline on one connection: ``watch()`` runs at
once and puts the pipeline in immediate mode (every command runs and
answers at once) until ``multi()``; ``execute()`` then checks the watched
keys as EXEC does (any modification by anyone, this pipeline's own
immediate commands included, or expiry since WATCH → ``WatchError``, nothing
applied) and unwatches. ``unwatch()``, ``reset()`` and leaving the ``with``
block unwatch too. The engine keeps the watched keys (``Engine.watch_keys``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from redis.client import EMPTY_RESPONSE
from redis.commands.core import CoreCommands
from redis.event import EventDispatcherInterface
from redis.exceptions import RedisError, ResponseError, WatchError
from redis.utils import safe_str, truncate_text

from fastrank import _errors as E
from fastrank.commands import COMMANDS
from fastrank.engine import _parse_error, pack_args, unknown_command_line

if TYPE_CHECKING:
    from redis._parsers.encoders import Encoder

    from fastrank.engine import Engine

#: A queued command: redis-py's ``execute_command`` arguments and options.
Queued = tuple[tuple[Any, ...], dict[str, Any]]


def annotate(exception: Exception, number: int, command: tuple[Any, ...]) -> None:
    cmd = " ".join(map(safe_str, command))
    msg = f"Command # {number} ({truncate_text(cmd)}) of pipeline caused error: {exception.args[0]}"
    exception.args = (msg,) + exception.args[1:]


def queue_error(argv: list[bytes]) -> ResponseError | None:
    """The error Redis gives when queueing argv in MULTI, or None."""
    cmd = COMMANDS.get(argv[0].upper())
    if cmd is None:
        return _parse_error(unknown_command_line(argv))
    n = len(argv)
    if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
        return _parse_error(E.WRONG_ARITY % cmd.name)
    return None


class Pipeline(CoreCommands):
    """Queue commands, run them atomically with ``execute()``."""

    #: As redis.Redis's Pipeline (see Engine).
    _is_async_client: Literal[False] = False
    _event_dispatcher: EventDispatcherInterface

    def __init__(self, engine: Engine, transaction: bool = True) -> None:
        self._engine = engine
        self.transaction = transaction
        self.explicit_transaction = False
        self.command_stack: list[Queued] = []
        self.response_callbacks = engine.response_callbacks
        self._event_dispatcher = engine._event_dispatcher
        self.watching = False
        self._watching: dict[bytes, bool] = {}  # watched key → already expired when watched
        self._dirty = False

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.reset()

    def __len__(self) -> int:
        return len(self.command_stack)

    def __bool__(self) -> bool:
        return True

    def get_encoder(self) -> Encoder:
        return self._engine.get_encoder()

    def get_connection_kwargs(self) -> dict[str, Any]:
        return self._engine.get_connection_kwargs()

    # redis-py's Pipeline.reset (empty the queue, unwatch), which shadows the
    # RESET command of the mixins as on redis.client.Pipeline.
    def reset(self) -> None:  # type: ignore[override]
        self.command_stack = []
        if self.watching or self._watching:
            self._unwatch()
        self.watching = False
        self.explicit_transaction = False

    close = reset

    def __del__(self) -> None:
        try:
            self.reset()
        except Exception:
            pass

    def _unwatch(self) -> None:
        engine = self._engine
        with engine._lock:
            engine.unwatch_all(self)
            self._dirty = False

    def multi(self) -> None:
        if self.explicit_transaction:
            raise RedisError("Cannot issue nested calls to MULTI")
        if self.command_stack:
            raise RedisError("Commands without an initial WATCH have already been issued")
        self.explicit_transaction = True

    def execute_command(self, *args: Any, **options: Any) -> Any:
        if (self.watching or args[0] == "WATCH") and not self.explicit_transaction:
            return self.immediate_execute_command(*args, **options)
        self.command_stack.append((args, options))
        return self

    def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        """Run one command now on this pipeline's "connection" (WATCH mode)."""
        engine = self._engine
        command_name = args[0]
        argv = pack_args(args)
        word = argv[0].upper()
        with engine._lock:
            if word == b"WATCH":
                if len(argv) < 2:
                    raise _parse_error(E.WRONG_ARITY % "watch")
                engine.watch_keys(self, argv[1:])
                self.watching = True
                return engine.finish(command_name, b"OK", options)
            if word == b"UNWATCH":
                if len(argv) != 1:
                    raise _parse_error(E.WRONG_ARITY % "unwatch")
                engine.unwatch_all(self)
                self._dirty = False
                self.watching = False
                return engine.finish(command_name, b"OK", options)
            if word in (b"EXEC", b"DISCARD"):
                raise _parse_error(E.WITHOUT_MULTI % word.decode())
            return engine.run_packed(command_name, argv, options)

    def watch(self, *names: Any) -> Any:
        """Watches the values at keys ``names``"""
        if self.explicit_transaction:
            raise RedisError("Cannot issue a WATCH after a MULTI")
        return self.execute_command("WATCH", *names)

    def unwatch(self) -> Any:
        """Unwatches all previously specified keys"""
        return self.watching and self.execute_command("UNWATCH") or True

    def discard(self) -> None:
        self.execute_command("DISCARD")

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        stack = self.command_stack
        if not stack and not self.watching:
            return []
        try:
            packed: list[list[bytes] | None] = [pack_args(args) if EMPTY_RESPONSE not in options else None
                      for args, options in stack]
            if self.transaction or self.explicit_transaction:
                return self._execute_transaction(stack, packed, raise_on_error)
            return self._execute_pipeline(stack, packed, raise_on_error)
        finally:
            self.reset()

    def _execute_pipeline(self, stack: list[Queued], packed: list[list[bytes] | None],
                          raise_on_error: bool) -> list[Any]:
        engine = self._engine
        responses: list[Any] = []
        with engine._lock:
            for (args, options), argv in zip(stack, packed):
                if argv is None:
                    argv = pack_args(args)
                try:
                    responses.append(engine.run_packed(args[0], argv, options))
                except ResponseError as e:
                    responses.append(e)
        if raise_on_error:
            self.raise_first_error(stack, responses)
        return responses

    def _execute_transaction(self, stack: list[Queued], packed: list[list[bytes] | None],
                             raise_on_error: bool) -> list[Any]:
        engine = self._engine
        errors: list[tuple[int, Exception]] = []
        late: list[tuple[int, Exception]] = []
        for i, ((args, options), argv) in enumerate(zip(stack, packed)):
            if argv is None:
                errors.append((i, options[EMPTY_RESPONSE]))
                continue
            err = queue_error(argv)
            if err is not None:
                annotate(err, i + 1, args)
                errors.append((i, err))
            elif argv[0].upper() == b"WATCH":
                # Redis runs WATCH at once inside MULTI: an error reply, not
                # queued, the transaction goes on.
                err = _parse_error(E.WATCH_INSIDE_MULTI)
                annotate(err, i + 1, args)
                late.append((i, err))
                packed[i] = None
        if any(isinstance(e, ResponseError) for _, e in errors):
            errors = sorted(errors + late, key=lambda ie: ie[0])
            self._unwatch()
            self.watching = False
            raise errors[0][1]
        response: list[Any] = []
        with engine._lock:
            failed = engine.watch_failed(self)
            engine.unwatch_all(self)  # EXEC unwatches at once
            self._dirty = False
            self.watching = False
            if failed:
                raise WatchError("Watched variable changed.")
            engine._no_block = True
            try:
                for argv in packed:
                    if argv is None:
                        continue
                    try:
                        response.append(engine.call(argv))
                    except Exception as exc:
                        line = getattr(exc, "line", None)
                        if line is None:
                            raise
                        response.append(_parse_error(line))
            finally:
                engine._no_block = False
        if engine._decode_responses:
            response = [r if isinstance(r, Exception) else engine.decode(r) for r in response]
        for i, e in sorted(errors + late, key=lambda ie: ie[0]):
            response.insert(i, e)
        if raise_on_error:
            self.raise_first_error(stack, response)
        data: list[Any] = []
        for r, (args, options) in zip(response, stack):
            if not isinstance(r, Exception):
                options = dict(options)
                options.pop("keys", None)
                if args[0] in self.response_callbacks:
                    r = self.response_callbacks[args[0]](r, **options)
            data.append(r)
        return data

    def raise_first_error(self, stack: list[Queued], response: list[Any]) -> None:
        for i, r in enumerate(response):
            if isinstance(r, ResponseError):
                annotate(r, i + 1, stack[i][0])
                raise r
