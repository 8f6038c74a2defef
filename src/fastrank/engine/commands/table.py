"""The command table: Redis command name → handler, arity, flags.

A handler is ``handler(db, args)``: ``db`` is the Engine, whose keys it
reads and writes only through the methods of ``fastrank.engine.keyspace.Keyspace``
(which the Engine inherits); ``args`` the list of argument ``bytes`` after the command name. It
returns the reply as redis-py's hiredis parser would hand it over for a RESP3
connection (bytes for bulk and simple strings, int, float for doubles, None
for nil, list, dict for maps) and raises :class:`CommandError` with the whole
Redis error line for an error reply.

Arity follows Redis: ``n > 0`` means exactly n words (command included),
``n < 0`` at least -n. The per-type modules register their handlers here
with :func:`command`; importing the package ``fastrank.engine.commands``
imports them all, so the table is whole.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypeVar

from fastrank import errors as E
from fastrank._core import Command
from fastrank.engine.commands._numbers import INT64_MAX, parse_int, parse_score
from fastrank.engine.keyspace import CommandError as CommandError  # re-exported: handlers raise it

if TYPE_CHECKING:
    from fastrank.engine import Engine

Handler = Callable[["Engine", list[bytes]], Any]
"""A command handler: ``handler(db, args)`` → the reply (RESP3 shaped, so dynamic)."""
_H = TypeVar("_H", bound=Handler)




COMMANDS: dict[bytes, Command] = {}


def command(name: str, arity: int, write: bool = False,
            blocking: bool = False, whole_argv: bool = False) -> Callable[[_H], _H]:
    """Register the decorated handler under ``name`` (lower case, as Redis).
    ``whole_argv``: the handler takes the whole argv, command word first (the
    compiled handlers), instead of the arguments after it."""

    def register(handler: _H) -> _H:
        COMMANDS[name.upper().encode()] = Command(name, handler, arity, write, blocking,
                                                  whole_argv)
        return handler

    return register


# -- argument helpers shared by the per-type modules ------------------------


def to_int(arg: bytes, error: str = E.NOT_INTEGER) -> int:
    value = parse_int(arg)
    if value is None:
        raise CommandError(error)
    return value


def to_score(arg: bytes, error: str = E.NOT_FLOAT) -> float:
    value = parse_score(arg)
    if value is None:
        raise CommandError(error)
    return value


def syntax_error() -> CommandError:
    return CommandError(E.SYNTAX)


def random_count(arg: bytes) -> int:
    """The count of ZRANDMEMBER, SRANDMEMBER and HRANDFIELD: an integer of
    at least -INT64_MAX (Redis's -LONG_MAX), else Redis's error."""
    count = parse_int(arg)
    if count is None:
        raise CommandError(E.NOT_INTEGER)
    if count < -INT64_MAX:
        raise CommandError(E.ZRANDMEMBER_COUNT_RANGE)
    return count


def check_random_reply(db: Engine, count: int) -> None:
    """Refuse a negative count above the Engine's ``random_reply_limit`` (its
    own cap, not Redis's), before anything is built."""
    limit = getattr(db, "random_reply_limit", None)
    if count < 0 and limit is not None and -count > limit:
        raise CommandError(E.RANDOM_REPLY_LIMIT % (count, -count, limit))
