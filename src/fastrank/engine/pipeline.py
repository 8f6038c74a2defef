"""Pipeline: redis-py's Pipeline behaviour on an Engine.

Commands are queued by the same redis-py command methods and run by
``execute()``: the queue is a list of prepared calls (the compiled base
``PipelineCalls``, engine/native/pipeline_calls.pxi), each run through its
command's handler and reply shaping as a direct call. All arguments are
packed before anything runs (a DataError runs nothing).
With ``transaction=True`` the batch behaves as MULTI/EXEC does through
redis-py: an unknown command or a wrong arity is caught when queued and
makes EXEC fail (redis-py raises that first error); errors found while
running (WRONGTYPE, syntax, ...) are per-command results. MULTI, EXEC,
DISCARD and WATCH queued in a transaction act as on the server (see
``Pipeline._execute_transaction``). Without a transaction each command
simply runs in turn. Either way the whole batch runs under the engine lock,
and with ``raise_on_error`` (the default) the first error is raised after
everything ran, annotated as redis-py does ("Command # n (...) of pipeline
caused error: ...").

WATCH works as redis-py's Pipeline on one connection: ``watch()`` runs at
once and puts the pipeline in immediate mode (every command runs and
answers at once) until ``multi()``; ``execute()`` then checks the watched
keys as EXEC does (any modification by anyone, this pipeline's own
immediate commands included, or expiry since WATCH → ``WatchError``, nothing
applied) and unwatches. ``unwatch()``, ``reset()`` and leaving the ``with``
block unwatch too. The engine keeps the watched keys (``Engine.watch_keys``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal

from redis._parsers.base import BaseParser
from redis.client import EMPTY_RESPONSE
from redis.commands.core import CoreCommands
from redis.exceptions import ExecAbortError, RedisError, ResponseError, WatchError
from redis.utils import safe_str, truncate_text

from fastrank import errors as E
from fastrank.engine.keyspace import CommandError
from fastrank._core import (PipelineCalls, command_for, engine_callbacks, engine_exec_queue,
                            engine_run_batch, first_error, pack_args, plain_transaction,
                            queueing_method)
from fastrank.engine.forwarded import FORWARDED

if TYPE_CHECKING:
    from redis._parsers.encoders import Encoder

_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error

#: A queued command: redis-py's ``execute_command`` arguments and options.
Queued = tuple[tuple[Any, ...], dict[str, Any]]


def annotate(exception: Exception, number: int, command: tuple[Any, ...]) -> None:
    cmd = " ".join(map(safe_str, command))
    msg = f"Command # {number} ({truncate_text(cmd)}) of pipeline caused error: {exception.args[0]}"
    exception.args = (msg,) + exception.args[1:]


def rejection(argv: list[bytes]) -> str | None:
    """The error line Redis rejects argv with before running or queueing it
    (unknown command, wrong arity), or None."""
    try:
        command_for(argv)
    except CommandError as err:
        return err.line
    return None


#: Commands Redis runs at once inside MULTI (everything else is queued).
_NOT_QUEUED = frozenset({b"MULTI", b"EXEC", b"DISCARD", b"WATCH"})


class Pipeline(PipelineCalls, CoreCommands):
    """Queue commands, run them atomically with ``execute()``.

    The state (``command_stack``, ``transaction``, ``watching``, ...) and the
    queue of prepared calls are the compiled base's (``PipelineCalls``,
    engine/native/pipeline_calls.pxi): ``Pipeline(engine, transaction)``."""

    #: As redis.Redis's Pipeline (see Engine).
    _is_async_client: Literal[False] = False

    def __enter__(self) -> Pipeline:
        return self

    def __exit__(self, *exc: object) -> None:
        self.reset()

    def get_encoder(self) -> Encoder:
        return self._engine.get_encoder()

    def get_connection_kwargs(self) -> dict[str, Any]:
        return self._engine.get_connection_kwargs()

    # redis-py's Pipeline.reset (empty the queue, unwatch), which shadows the
    # RESET command of the mixins as on redis.client.Pipeline.
    def reset(self) -> None:  # type: ignore[override]
        self.clear_calls()
        self.scripts = set()
        if self.watching or self._watching:
            self._unwatch()
        self.watching = False
        self.explicit_transaction = False

    close = reset

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

    def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        """Run one command now on this pipeline's "connection" (WATCH mode);
        the reply goes through the pipeline's own ``response_callbacks``, as
        redis-py's ``parse_response`` reads the pipeline's."""
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
                return engine.finish(command_name, b"OK", options, self.response_callbacks)
            if word == b"UNWATCH":
                if len(argv) != 1:
                    raise _parse_error(E.WRONG_ARITY % "unwatch")
                engine.unwatch_all(self)
                self._dirty = False
                self.watching = False
                return engine.finish(command_name, b"OK", options, self.response_callbacks)
            return engine.run_packed(command_name, argv, options, self.response_callbacks)

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

    def execute_general(self, raise_on_error: bool = True) -> list[Any]:
        """``execute()`` of a transaction, or of a pipeline that watches or
        has scripts to load (a plain pipeline runs in ``PipelineCalls.execute``)."""
        stack = self.command_stack
        if not stack and not self.watching:
            return []
        if self.scripts:
            self.load_scripts()
        try:
            packed = self.packed_calls()
            if self.transaction or self.explicit_transaction:
                return self._execute_transaction(stack, packed, raise_on_error)
            return self._execute_pipeline(stack, packed, raise_on_error)
        finally:
            self.reset()

    def _own_callbacks(self) -> dict[str, Callable[..., Any]] | None:
        """The callbacks the replies go through when they are not the
        Engine's: as redis-py's pipeline, this one reads its own
        ``response_callbacks``, the Engine's when it was made, which the user
        may replace on the pipeline alone (or the Engine's since)."""
        own = self.response_callbacks
        return None if own is self._engine.response_callbacks else own

    def _execute_pipeline(self, stack: list[Queued], packed: list[list[bytes] | None],
                          raise_on_error: bool) -> list[Any]:
        engine = self._engine
        with engine._lock:
            responses: list[Any] = engine_run_batch(engine, stack, packed, self.response_callbacks)
        if raise_on_error:
            self.raise_first_error(stack, responses)
        return responses

    def _execute_transaction(self, stack: list[Queued], packed: list[list[bytes] | None],
                             raise_on_error: bool) -> list[Any]:
        """MULTI, the stack, EXEC on one connection, read back as redis-py does.

        The server side follows Redis's multi.c: a command rejected while
        queueing (unknown, wrong arity) makes EXEC abort; MULTI and WATCH
        inside the transaction answer an error and change nothing; a DISCARD
        (or an EXEC) in the stack ends the transaction, so what follows it
        runs at once and redis-py's final EXEC fails with "EXEC without
        MULTI". Of the replies before the final EXEC redis-py keeps only the
        errors, which it annotates.
        """
        engine = self._engine
        errors: list[tuple[int, Any]] = []
        in_multi, dirty = True, False  # opened by redis-py's own MULTI
        queue: list[list[bytes]] = []
        with engine._lock:
            if plain_transaction(packed):  # nothing to check one by one: queue them all
                queue = packed  # type: ignore[assignment]  # no None in it
            else:
                for i, ((args, options), argv) in enumerate(zip(stack, packed)):
                    if argv is None:  # not sent: redis-py answers it itself
                        errors.append((i, options[EMPTY_RESPONSE]))
                        continue
                    word = argv[0].upper()
                    try:
                        line = rejection(argv)
                        if line is not None:
                            if word == b"EXEC":  # a malformed EXEC still ends the transaction
                                in_multi, dirty, queue = False, False, []
                                self._unwatch()
                            elif in_multi:
                                dirty = True
                            raise CommandError(line)
                        if not in_multi:
                            if word == b"MULTI":
                                in_multi = True
                            elif word == b"WATCH":
                                engine.watch_keys(self, argv[1:])
                            elif word == b"UNWATCH":
                                self._unwatch()
                            else:  # EXEC and DISCARD answer "... without MULTI"
                                engine.call(argv)
                        elif word not in _NOT_QUEUED:
                            queue.append(argv)
                        elif word == b"MULTI":
                            raise CommandError(E.MULTI_NESTED)
                        elif word == b"WATCH":
                            raise CommandError(E.WATCH_INSIDE_MULTI)
                        else:  # DISCARD or EXEC: the transaction ends here
                            ended, ended_dirty = queue, dirty
                            in_multi, dirty, queue = False, False, []
                            if word == b"EXEC":
                                self._exec(ended, ended_dirty)  # redis-py drops its reply
                            else:
                                self._unwatch()
                    except CommandError as err:
                        exc = _parse_error(err.line)
                        annotate(exc, i + 1, args)
                        errors.append((i, exc))
            try:
                if not in_multi:
                    raise CommandError(E.WITHOUT_MULTI % "EXEC")
                response = self._exec(queue, dirty)
            except CommandError as err:
                exc = _parse_error(err.line)
                if isinstance(exc, ExecAbortError) and errors:
                    raise errors[0][1] from None
                raise exc from None
        if response is None:
            raise WatchError("Watched variable changed.")
        if engine._decode_responses:
            response = [r if isinstance(r, Exception) else engine.decode(r) for r in response]
        for i, e in errors:
            response.insert(i, e)
        if len(response) != len(stack):
            raise ResponseError("Wrong number of response items from pipeline execution")
        if raise_on_error:
            self.raise_first_error(stack, response)
        data: list[Any] = engine_callbacks(engine, stack, response, self._own_callbacks())
        return data

    def _exec(self, queue: list[list[bytes]], dirty: bool) -> list[Any] | None:
        """EXEC of a transaction (lock held): it unwatches; it aborts if a
        command was rejected while queueing, answers None if a watched key
        changed, else runs the queue (errors as exception objects)."""
        engine = self._engine
        failed = False
        if self._watching or self._dirty:  # WATCH was called
            failed = engine.watch_failed(self)
            self._unwatch()
        if dirty:
            raise CommandError(E.EXEC_ABORTED)
        if failed:
            return None
        engine._no_block = True
        try:
            replies: list[Any] = engine_exec_queue(engine, queue)
        finally:
            engine._no_block = False
        return replies

    def load_scripts(self) -> None:
        """As redis-py's Pipeline: SCRIPT LOAD, before the batch, the scripts
        called on this pipeline that the engine does not have."""
        scripts = list(self.scripts)
        exists = self.immediate_execute_command("SCRIPT EXISTS", *[s.sha for s in scripts])
        for s, exist in zip(scripts, exists):
            if not exist:
                s.sha = self.immediate_execute_command("SCRIPT LOAD", s.script)

    def raise_first_error(self, stack: list[Queued], response: list[Any]) -> None:
        i = first_error(response)
        if i >= 0:
            error = response[i]
            annotate(error, i + 1, stack[i][0])
            raise error


# redis-py methods that only send their parameters (FORWARDED) queue them directly.
for _name, _word, _fixed, _rest in FORWARDED:
    setattr(Pipeline, _name, queueing_method(_name, _word, _fixed, _rest,
                                             getattr(CoreCommands, _name)))
