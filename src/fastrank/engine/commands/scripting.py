"""Scripting commands: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT, as Redis 7.0.

A script runs in the Engine's Lua 5.1 state (``fastrank.engine.lua.sandbox``),
created on first use, with the Engine's lock held for the whole run: nothing
interleaves with it, and a script that fails midway keeps the writes it made
before the failure (Redis has no rollback either). Every ``redis.call`` goes
through ``Engine.call``, so WATCH sees the keys a script touched.

EVAL caches the script by its SHA1 (as Redis does), so EVALSHA finds it
afterwards; SCRIPT FLUSH empties the cache. A straight-line script (only
``redis.call`` statements on literals, KEYS[i] and ARGV[i]) is cached with a
plan that runs its calls without Lua, with the same replies and errors
(``fastrank.engine.lua.plans``). A first line ``#!lua`` (with
``flags=no-writes`` and the other Redis 7.0 flags) is read as Redis reads it.
The loop guard: ``Engine.script_time_limit`` seconds (default 5), checked
every 100,000 Lua instructions; a script past it stops with
``E.SCRIPT_TIMEOUT`` (its writes stay) and the Engine goes on. The memory
cap: ``Engine.script_memory_limit`` bytes (default 256 MiB) for the Lua
runtime; a script that needs more stops with ``E.SCRIPT_MEMORY`` and its
memory is collected.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from redis._parsers.base import BaseParser
from redis.exceptions import ResponseError

from fastrank import errors as E
from fastrank._core import NATIVE_DECLINE as DECLINE
from fastrank.engine.lua.sandbox import LuaScripting, sha1hex
from fastrank.engine.lua.plans import compile_plan
from fastrank.engine.commands.table import COMMANDS, CommandError, command, to_int

if TYPE_CHECKING:
    from fastrank.engine import Engine

_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error

#: SHA1 (hex bytes, as EVALSHA gets it) → the native path registered for that
#: script (``Engine.register_native_script``). A script's SHA1 names its text,
#: so a registration holds for every Engine of the process, as a module loaded
#: into a server holds for all its clients.
NATIVE_SCRIPTS: dict[bytes, Callable[[Any, list[bytes], list[bytes]], Any]] = {}

#: Flags a ``#!lua flags=...`` line may carry in Redis 7.0.
SHEBANG_FLAGS = frozenset({b"no-writes", b"allow-oom", b"allow-stale", b"no-cluster",
                           b"allow-cross-slot-keys"})


def scripting(db: Engine) -> LuaScripting:
    """The Engine's Lua state, made on first use."""
    lua = db._lua
    if lua is None:
        lua = db._lua = LuaScripting(db, COMMANDS)
    return lua


def set_script_plans(engine: Engine, enabled: bool) -> None:
    """Test-only switch: whether engine compiles straight-line scripts into
    plans from now on (on by default). Turning it off drops the plans of the
    scripts already cached, so every script runs in Lua."""
    lua = scripting(engine)
    lua.use_plans = enabled
    if not enabled:
        for sha, entry in list(lua.scripts.items()):
            lua.scripts[sha] = (entry[0], entry[1], None)


def read_shebang(body: bytes) -> tuple[bytes, bool | None]:
    """(the code Lua compiles, whether the script declared no-writes; None
    without a ``#!`` line).

    The ``#!`` line is blanked, not removed, so line numbers stay Redis's."""
    if not body.startswith(b"#!"):
        return body, None
    end = body.find(b"\n")
    line = body if end < 0 else body[:end]
    words = line.split(b" ")
    if words[0] != b"#!lua":
        raise CommandError(E.SHEBANG_ENGINE % words[0].decode("utf-8", "replace"))
    no_writes = False
    for word in words[1:]:
        if not word:
            continue
        if not word.startswith(b"flags="):
            raise CommandError(E.SHEBANG_OPTION % word.decode("utf-8", "replace"))
        for flag in word[6:].split(b","):
            if flag and flag not in SHEBANG_FLAGS:
                raise CommandError(E.SHEBANG_FLAG % flag.decode("utf-8", "replace"))
            no_writes = no_writes or flag == b"no-writes"
    return (b"" if end < 0 else body[end:]), no_writes


def load(lua: LuaScripting, body: bytes) -> tuple[bytes, Any]:
    """Compile body into the cache (if new); (sha, (function, no_writes, plan)):
    plan is the ScriptPlan of a straight-line script (fastrank.engine.lua.plans),
    else None."""
    sha = sha1hex(body)
    entry = lua.scripts.get(sha)
    if entry is None:
        code, no_writes = read_shebang(body)
        fn = lua.compile(code)
        plan = compile_plan(lua, code) if lua.use_plans else None
        entry = lua.scripts[sha] = (fn, no_writes, plan)
    return sha, entry


def numkeys_of(args: list[bytes]) -> int:
    text = args[1]
    numkeys = int(text) if len(text) == 1 and text.isdigit() else to_int(text)
    if numkeys > len(args) - 2:
        raise CommandError(E.NUMKEYS_TOO_BIG)
    if numkeys < 0:
        raise CommandError(E.NUMKEYS_NEGATIVE)
    return numkeys


def eval_generic(db: Engine, args: list[bytes], by_sha: bool, read_only: bool) -> Any:
    """EVAL/EVALSHA[_RO] script-or-sha numkeys key... arg... (Redis evalGenericCommand)."""
    numkeys = numkeys_of(args)
    lua = db._lua or scripting(db)
    if by_sha:
        sha = args[0].lower()
        entry = lua.scripts.get(sha) if len(sha) == 40 else None
        if entry is None:
            raise CommandError(E.NOSCRIPT)
    else:
        sha, entry = load(lua, args[0])
    no_writes = entry[1]
    if read_only and no_writes is False:  # a #! script without no-writes
        raise CommandError(E.SCRIPT_WRITE_FLAG_RO)
    return run_cached(db, lua, sha, entry, numkeys, args[2:], read_only)


def run_cached(db: Engine, lua: LuaScripting, sha: bytes, entry: Any, numkeys: int,
               words: list[bytes], read_only: bool) -> Any:
    """Run a cached script on keys + args ``words``: the plan of a straight-line
    script (fastrank.engine.lua.plans), or the native path registered for its
    SHA1 (``NATIVE_SCRIPTS``) unless the call is read-only, unless they
    decline; else the Lua function."""
    fn, no_writes, plan = entry
    if plan is not None:
        reply = plan.run(db, sha, numkeys, words, bool(read_only or no_writes))
        if reply is not DECLINE:
            return reply
    native = NATIVE_SCRIPTS.get(sha)
    if native is not None and not (read_only or no_writes):
        reply = native(db, words[:numkeys], words[numkeys:])
        if reply is not DECLINE:
            return reply
    return lua.run(sha, fn, numkeys, words, bool(read_only or no_writes))


@command("eval", -3, write=True)
def eval_(db: Engine, args: list[bytes]) -> Any:
    """EVAL script numkeys key... arg...: O(script length) to hash (and compile
    once), then the script's own cost."""
    return eval_generic(db, args, False, False)


@command("evalsha", -3, write=True)
def evalsha(db: Engine, args: list[bytes]) -> Any:
    """EVALSHA sha1 numkeys key... arg...: O(1) lookup, then the script's cost."""
    return eval_generic(db, args, True, False)


@command("eval_ro", -3)
def eval_ro(db: Engine, args: list[bytes]) -> Any:
    """EVAL_RO: EVAL whose redis.call refuses write commands."""
    return eval_generic(db, args, False, True)


@command("evalsha_ro", -3)
def evalsha_ro(db: Engine, args: list[bytes]) -> Any:
    """EVALSHA_RO: EVALSHA whose redis.call refuses write commands."""
    return eval_generic(db, args, True, True)


_HELP = [
    b"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    b"DEBUG (YES|SYNC|NO)",
    b"    Set the debug mode for subsequent scripts executed.",
    b"EXISTS <sha1> [<sha1> ...]",
    b"    Return information about the existence of the scripts in the script cache.",
    b"FLUSH [ASYNC|SYNC]",
    b"    Flush the Lua scripts cache. Very dangerous on replicas.",
    b"    When called without the optional mode argument, the behavior is determined by the",
    b"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    b"    * ASYNC: Asynchronously flush the scripts cache.",
    b"    * SYNC: Synchronously flush the scripts cache.",
    b"KILL",
    b"    Kill the currently executing Lua script.",
    b"LOAD <script>",
    b"    Load a script into the scripts cache without executing it.",
    b"HELP",
    b"    Prints this help.",
]


@command("script", -2)
def script(db: Engine, args: list[bytes]) -> Any:
    """SCRIPT LOAD | EXISTS | FLUSH | KILL | HELP. O(1) per script (LOAD: the compile)."""
    sub = args[0].upper()
    rest = args[1:]
    if sub == b"LOAD" and len(rest) == 1:
        return load(scripting(db), rest[0])[0]
    if sub == b"EXISTS" and rest:
        lua = db._lua
        cache = lua.scripts if lua is not None else {}
        return [1 if s.lower() in cache else 0 for s in rest]
    if sub == b"FLUSH" and len(rest) <= 1:
        if rest and rest[0].upper() not in (b"SYNC", b"ASYNC"):
            raise CommandError(E.SCRIPT_FLUSH_MODE)
        if db._lua is not None:
            db._lua.scripts.clear()
        return b"OK"
    if sub == b"KILL" and not rest:
        raise CommandError(E.SCRIPT_NOT_BUSY)
    if sub == b"HELP" and not rest:
        return list(_HELP)
    if sub in (b"LOAD", b"EXISTS", b"FLUSH", b"KILL", b"HELP"):
        if sub == b"FLUSH":
            raise CommandError(E.SCRIPT_FLUSH_MODE)
        raise CommandError(E.WRONG_ARITY % ("script|" + sub.decode().lower()))
    raise CommandError(E.SCRIPT_UNKNOWN_SUBCOMMAND % args[0].decode("utf-8", "replace"))


