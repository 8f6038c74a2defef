"""The wiring of the compiled core: every Python callback and class the
Engine's compiled paths (``engine/native/*.pxi``, built into ``fastrank._core``)
call back into, handed over in one place, in the order below.

The package's ``__init__`` runs :func:`wire` once, after the Engine class
exists and before any command can run. Nothing else imports this module, so
the compiled core never imports Python modules back.
"""
from __future__ import annotations

from redis._parsers.base import BaseParser
from redis.client import EMPTY_RESPONSE, NEVER_DECODE
from redis.commands.core import CoreCommands
from redis.exceptions import DataError, NoScriptError, ResponseError

from fastrank import _core
from fastrank import errors as E
import fastrank.engine.keyspace as keyspace
from fastrank.engine.commands import COMMANDS, hashes, scripting, sortedset
from fastrank.engine.commands._numbers import parse_bound
from fastrank.engine.commands.table import to_int
from fastrank.engine.engine import Engine
from fastrank.engine.keyspace import CommandError, ListpackZSet
from fastrank.engine.lua import plans
from fastrank.engine.pipeline import Pipeline
from fastrank.engine.script import Script, is_redis_pipeline


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


def wire() -> None:
    """Hand the compiled core what it calls back, in dependency order."""
    # 1. The one dispatch path (dispatch.pxi): the command table, the error
    #    lines it builds, and redis-py's parser and reply conventions.
    _core.dispatch_setup(COMMANDS, CommandError, BaseParser.parse_error, unknown_command_line, arity_line,
                         DataError, ResponseError, EMPTY_RESPONSE, NEVER_DECODE, CoreCommands, E.WRONGTYPE)
    # 2. The compiled handlers and the Python rules they defer to.
    _core.point_reads_setup(keyspace)                                     # point_reads.pxi: the clock
    _core.zset_commands_setup(ListpackZSet, parse_bound, to_int)          # zset_commands.pxi
    _core.zincrby_setup(sortedset.zincrby)                                # zincrby_handler.pxi
    _core.zadd_setup(sortedset.zadd)                                      # zadd_handler.pxi
    _core.hash_writes_setup(hashes.hincrby, hashes.hset)                  # hash_writes.pxi
    # 3. Scripts: plans (script_plans.pxi), the EVALSHA front door and the
    #    registered native paths (script_front_door.pxi), Script objects.
    _core.script_plans_setup(_core.NATIVE_DECLINE, plans.lua_round_trip, plans.script_error,
                             E.LUA_WRITE_IN_READ_ONLY)
    _core.script_front_door_setup(scripting.run_cached, scripting.NATIVE_SCRIPTS, _core.NATIVE_DECLINE)
    _core.script_object_setup(Script, Engine, Pipeline, is_redis_pipeline, NoScriptError)
