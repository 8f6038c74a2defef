"""The Lua 5.1 runtime of one Engine: Redis 7.0's script environment and the
bridge from ``redis.call`` to the Engine's command path.

``LuaScripting`` owns a lupa ``LuaRuntime`` (Lua 5.1, as Redis embeds) in
which ``sandbox.lua`` builds the readonly environment scripts see. The
EVAL family (``commands/scripting.py``) compiles scripts here and runs them
with the Engine's lock held, so nothing interleaves with a script.

Conversions, as Redis 7.0 does them:

- ``redis.call`` arguments: Lua strings as they are, numbers as ``%.17g``
  text, anything else an error. The command runs through ``Engine.call`` (the
  one command path), after the checks Redis makes for scripts (unknown
  command, arity, commands not allowed in scripts, writes from read-only
  scripts), each with Redis's text.
- Command replies → Lua (RESP2, the default of ``redis.setresp``): the
  Engine's replies are RESP3-shaped (see ``commands/__init__.py``), so doubles
  become their ``%.17g`` bulk text, maps and score pairs are flattened, nil
  becomes ``false``, status replies (known per command, as the Engine's bytes
  do not say) become ``{ok=...}``. With ``redis.setresp(3)`` doubles, maps,
  booleans and nulls come as ``{double=}``, ``{map=}``, ``true/false``, ``nil``.
- The script's reply → the client (redis-py 8's default, RESP3): a number is
  truncated to an integer (C's cast: out of range or NaN gives INT64_MIN),
  ``true`` is 1 and ``false`` nil (RESP3 booleans after ``setresp(3)``),
  ``nil`` is nil, an array stops at its first nil, ``{ok=}``/``{err=}``
  tables are status/error replies (nested errors are exception objects in
  the list, as redis-py's parser gives them), ``{double=}`` a float,
  ``{map=}`` a dict. The Lua side serialises tables (rawget, as Redis reads
  them) and :func:`parse_reply` reads that back.

Errors raised by a script end as Redis words them: the error's text, then
`` script: <sha>, on @user_script:<line>.``; a runtime error's text is
``ERR user_script:<line>: <message>``.
"""
from __future__ import annotations

import hashlib
import logging
import time
from importlib import resources
from typing import TYPE_CHECKING, Any, Callable

import lupa.lua51 as lupa  # type: ignore[import-untyped]  # lupa ships no type hints
from redis._parsers.base import BaseParser
from redis.exceptions import ResponseError

from fastrank import errors as E
from fastrank.engine.lua.detach import detach_errors, detached
from fastrank.engine.lua.libs import WHERE, expose, install_libs
from fastrank.engine.lua.rand48 import Rand48
from fastrank.engine.lua.libs_base import (LibError, Result, argument_error, as_string, bad_argument,
                                     lua_type, to_number)
from fastrank.engine.keyspace import CommandError

if TYPE_CHECKING:
    from fastrank.engine import Engine

_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error
INT64_MIN = -(1 << 63)
_NO_CAP = 1 << 62  # lupa's max_memory when Engine.script_memory_limit is None
_MARGIN = 1 << 20  # room left for lupa's pushes as a Python function returns
_VARARGS_MAX = 4000  # a script's keys and arguments up to this many go as varargs (quicker), more as tables


def _pending(result: Any) -> int:
    """Bytes Lua must allocate to take a Python function's results."""
    kind = type(result)
    if kind is bytes:
        return len(result)
    if kind is tuple:
        return sum(len(x) for x in result if type(x) is bytes)
    return 0
_TWO63 = float(1 << 63)

#: Commands a script may not call (Redis flags them noscript).
NOT_IN_SCRIPTS = frozenset({b"MULTI", b"EXEC", b"DISCARD", b"WATCH", b"UNWATCH", b"EVAL",
                            b"EVALSHA", b"EVAL_RO", b"EVALSHA_RO", b"SCRIPT"})
#: Commands whose bytes replies are status replies (+OK, +PONG, +string...);
#: the Engine's replies do not tell status from bulk, so a new command that
#: answers +OK belongs here (SET and PING are decided by their arguments).
STATUS_COMMANDS = frozenset({b"MSET", b"RENAME", b"FLUSHDB", b"FLUSHALL", b"HMSET",
                             b"PFMERGE", b"PSETEX", b"SETEX", b"TYPE", b"CMS.INITBYDIM",
                             b"CMS.INITBYPROB", b"CMS.MERGE", b"TOPK.RESERVE", b"SELECT",
                             b"LTRIM", b"LSET"})
#: Commands whose RESP3 reply nests (member, score) pairs that RESP2 flattens.
PAIR_COMMANDS = frozenset({b"ZRANGE", b"ZREVRANGE", b"ZRANGEBYSCORE", b"ZREVRANGEBYSCORE",
                           b"ZPOPMIN", b"ZPOPMAX", b"ZRANDMEMBER", b"ZUNION", b"ZINTER",
                           b"ZDIFF", b"HRANDFIELD"})

log = logging.getLogger("fastrank.scripting")


def sha1hex(body: bytes) -> bytes:
    return hashlib.sha1(body).hexdigest().encode()


def double_text(value: float) -> bytes:
    """A double as Redis 7.0 writes it in RESP2 (``%.17g``)."""
    return b"%.17g" % value


def to_int64(value: Any) -> int:
    """A Lua number as Redis turns it into an integer reply: C's (long long) cast."""
    if type(value) is int:
        return value if INT64_MIN <= value < (1 << 63) else INT64_MIN
    if value != value or value >= _TWO63 or value < -_TWO63:
        return INT64_MIN
    return int(value)


def clean_line(text: str) -> str:
    """Redis replaces CR and LF inside error and status replies with spaces."""
    return text.replace("\r", " ").replace("\n", " ")


def parse_reply(data: bytes) -> Any:
    """Read back a reply serialised by the sandbox's ``encode`` (Lua side):
    ``$len\\n`` bulk, ``+len\\n`` status, ``-len\\n`` error, ``:%.17g\\n``
    number, ``,%.17g\\n`` double, ``*n\\n`` array, ``%n\\n`` map, ``_``
    nil, ``#t``/``#f`` booleans (the RESP3 reply redis-py's parser gives). A top-level error raises CommandError;
    nested errors become exception objects (as redis-py's parser gives).
    Iterative: a reply nests as deep as Redis's stack limit allows (about
    8,000 arrays, see the sandbox's encode), past Python's recursion limit."""
    if data[:1] == b"-":
        end = data.index(b"\n")
        raise CommandError(clean_line(data[end + 1:].decode("utf-8", "replace")))
    pos = 0
    stack: list[list[Any]] = []  # open aggregates: [items, items still to read, is a map]
    while True:
        tag = data[pos:pos + 1]
        value: Any
        if tag == b"_":
            pos += 1
            value = None
        elif tag == b"#":
            pos += 2
            value = data[pos - 1:pos] == b"t"
        else:
            end = data.index(b"\n", pos)
            head = data[pos + 1:end]
            pos = end + 1
            if tag == b":":
                value = to_int64(float(head))
            elif tag == b",":
                value = float(head)
            elif tag == b"*" or tag == b"%":
                count = int(head)
                if count:
                    stack.append([[], count * 2 if tag == b"%" else count, tag == b"%"])
                    continue
                value = [] if tag == b"*" else {}
            else:
                size = int(head)
                body = data[pos:pos + size]
                pos += size
                if tag == b"$":
                    value = body
                elif tag == b"+":
                    value = clean_line(body.decode("utf-8", "replace")).encode()
                else:
                    value = _parse_error(clean_line(body.decode("utf-8", "replace")))
        while stack:  # the value ends the aggregates it completes
            top = stack[-1]
            top[0].append(value)
            top[1] -= 1
            if top[1]:
                break
            stack.pop()
            items = top[0]
            value = {items[i]: items[i + 1] for i in range(0, len(items), 2)} if top[2] else items
        else:
            return value


class ScriptCallError(Exception):
    """An error reply of ``redis.call``, raised through Lua as its error value.
    ``executed``: the error comes from the command's lookup or run, not from
    the arguments' Lua types (Redis then marks the error table with
    ``ignore_error_stats_update = true``)."""

    def __init__(self, line: str, executed: bool = False) -> None:
        super().__init__(line)
        self.line = line
        self.text = line.encode("utf-8", "surrogateescape")
        self.executed = executed

    def detached(self) -> ScriptCallError:
        """A copy with no traceback, context or cause (see engine/lua/detach.py)."""
        return ScriptCallError(self.line, self.executed)


def error_text(exc: Any) -> tuple[bytes, bool, bool]:
    """(text, plain, executed) of a Python exception that crossed Lua: a Redis
    error table's text (plain False), or a Lua error message (plain True: a
    library function's, with its user_script:LINE position; Redis prefixes ERR
    when it ends the script); executed: a command answered it. Any other
    Python object gives a fixed text: no repr of it reaches the script."""
    if isinstance(exc, ScriptCallError):
        return exc.text, False, exc.executed
    if isinstance(exc, LibError):
        return exc.text, True, False
    if isinstance(exc, MemoryError):
        return b"ERR not enough memory", False, False
    if not isinstance(exc, Exception):
        return b"ERR userdata", False, False
    return ("ERR " + str(exc)).encode("utf-8", "replace"), False, False


def _sha1hex(*args: Any) -> bytes:
    """redis.sha1hex(text): numbers as their text, other values as ""."""
    if len(args) != 1:
        raise ScriptCallError(E.LUA_SHA1HEX_ARGUMENTS)
    value = args[0]
    if isinstance(value, (int, float)) and type(value) is not bool:
        value = b"%.14g" % value
    return sha1hex(value if type(value) is bytes else b"")


def _set_repl(*args: Any) -> None:
    """redis.set_repl(flags): checked as Redis does; replication has no effect here."""
    if len(args) != 1:
        raise ScriptCallError(E.LUA_SET_REPL_ARGUMENTS)
    flags = args[0]
    if not isinstance(flags, (int, float)) or type(flags) is bool or not 0 <= flags <= 3:
        raise ScriptCallError(E.LUA_SET_REPL_FLAGS)


_READONLY = b"Attempt to modify a readonly table"


def _setmetatable(set_metatable: Any) -> Callable[..., Result]:
    """The scripts' setmetatable (Lua 5.1's checks and texts; a readonly
    table refuses as Redis's do). set_metatable: the sandbox's helper."""
    def fn(*args: Any) -> Result:
        t = args[0] if args else None
        if lua_type(t) != "table":
            return bad_argument(1, "setmetatable", "table", t, not args)
        if len(args) < 2 or (args[1] is not None and lua_type(args[1]) != "table"):
            return argument_error(2, "setmetatable", "nil or table expected")
        refused = set_metatable(t, args[1])
        if refused == b"readonly":
            raise LibError(_READONLY)
        if refused is not None:
            return False, b"cannot change a protected metatable"
        return True, 1, t
    return fn


def _rawset(raw_set: Any) -> Callable[..., Result]:
    """The scripts' rawset (Lua 5.1's checks and texts; a readonly table
    refuses as Redis's do). raw_set: the sandbox's helper."""
    def fn(*args: Any) -> Result:
        t = args[0] if args else None
        if lua_type(t) != "table":
            return bad_argument(1, "rawset", "table", t, not args)
        if len(args) < 3:
            return argument_error(len(args) + 1, "rawset", "value expected")
        key = args[1]
        if key is None:
            raise LibError(b"table index is nil")
        if type(key) is float and key != key:
            raise LibError(b"table index is NaN")
        if raw_set(t, key, args[2]) == b"readonly":
            raise LibError(_READONLY)
        return True, 1, t
    return fn


def _deny_attributes(obj: Any, name: Any, is_setting: bool) -> Any:
    raise AttributeError(E.LUA_NO_ATTRIBUTE_ACCESS)


class LuaScripting:
    """One Engine's Lua state, script cache and ``redis.call`` bridge."""

    def __init__(self, engine: Engine, commands: dict[bytes, Any]) -> None:
        self.engine = engine
        self.commands = commands  # the Engine's command table, handed over by the scripting command
        self.scripts: dict[bytes, Any] = {}  # sha (lower-case hex) → compiled function
        self.read_only = False               # set while an *_RO / no-writes script runs
        self.use_plans = True                # cache straight-line scripts as plans (_script_plans)
        self._plans: dict[bytes, tuple[bytes, Any, bool, bool]] = {}  # see _plan
        self.resp = 2                        # redis.setresp of the running script
        # lupa counts the runtime's memory only when made with a cap; the cap
        # itself follows Engine.script_memory_limit (see _apply_memory_limit)
        rt = lupa.LuaRuntime(encoding=None, unpack_returned_tuples=True, register_eval=False,
                             register_builtins=False,
                             attribute_filter=detach_errors(_deny_attributes),
                             max_memory=_NO_CAP)
        self.runtime = rt
        self._memory_limit: int | None = None
        self._cap: int | None = None  # the runtime's cap while Lua runs (absolute), or None
        self._in_python = False       # a Python function called from Lua is running
        self.table_from: Callable[..., Any] = rt.table_from
        libs = rt.table_from({})
        wrap = self._expose
        py = rt.table_from({
            b"call": wrap(self.bridge), b"pcall": wrap(self.pcall_bridge),
            b"error_text": wrap(error_text), b"sha1hex": wrap(_sha1hex), b"log": wrap(self._log),
            b"set_repl": wrap(_set_repl), b"now": wrap(self._now),
            b"timeout_line": wrap(self._timeout_line), b"memory_line": wrap(self._memory_line),
            b"setresp": wrap(self._setresp), b"getresp": wrap(self._getresp),
            b"acl_check": wrap(self._acl_check), b"libs": libs,
        })
        py[b"math"] = install_libs(rt, libs, Rand48(), wrap)
        source = resources.files("fastrank.engine.lua").joinpath("sandbox.lua").read_bytes()
        loader = rt.eval("function(src) return assert(loadstring(src, '=fastrank_sandbox')) end")
        api = loader(source)(py)
        self._compile = api[b"compile"]
        self._run = api[b"run"]
        self._run_tables = api[b"run_tables"]
        self._recover = api[b"recover"]
        where = loader(WHERE.encode())()
        api[b"set_builtins"](rt.table_from({
            b"setmetatable": wrap(expose(_setmetatable(api[b"set_metatable"]), where)),
            b"rawset": wrap(expose(_rawset(api[b"raw_set"]), where)),
        }))
        api[b"install_guard"]()
        self._apply_memory_limit()

    def _apply_memory_limit(self) -> None:
        """Cap the runtime at Engine.script_memory_limit bytes beyond what it
        holds now (its libraries and cached scripts)."""
        limit = self.engine.script_memory_limit
        rt = self.runtime
        self._cap = None if limit is None else rt.get_memory_used() + max(int(limit), 1)
        rt.set_max_memory(_NO_CAP if self._cap is None else self._cap, True)
        self._memory_limit = limit

    # Every Python function Lua gets goes through _expose, which does two things.
    #
    # The memory cap: lupa's own allocations while a Python function called
    # from Lua runs or returns (converting values, pushing its results) must
    # never fail: lupa cannot unwind from there (the runtime hangs or
    # crashes). So the cap is lifted while Python runs, and set again as it
    # returns, above what its results need; Lua code inside (cjson) stays
    # under the loop guard, which stops a script past the cap (see _now).
    #
    # No Lua value outlives the call: a failed call raises a detached copy of
    # its error, after this frame dropped the arguments (a Lua value bound to
    # a coroutine, released after Lua freed the coroutine, corrupts the heap:
    # see engine/lua/detach.py).
    def _expose(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        rt = self.runtime

        def call(*args: Any) -> Any:
            if self._cap is None or self._in_python:
                try:
                    return fn(*args)
                except BaseException as exc:
                    fresh = detached(exc)
            else:
                rt.set_max_memory(_NO_CAP, True)
                self._in_python = True
                try:
                    result = fn(*args)
                except BaseException as exc:
                    self._in_python = False
                    self._recap(0)
                    fresh = detached(exc)
                else:
                    self._in_python = False
                    self._recap(_pending(result))
                    return result
            del args  # this frame stays in fresh's traceback
            try:
                raise fresh
            finally:
                del fresh
        return call

    def _recap(self, pending: int) -> None:
        cap = self._cap
        if cap is not None:
            need = self.runtime.get_memory_used() + pending + _MARGIN
            self.runtime.set_max_memory(cap if need <= cap else need, True)

    def _now(self) -> float:
        """The loop guard's clock; -1 when the runtime holds more than the cap
        (a reply pushed past it, or Lua run inside a Python function)."""
        cap = self._cap
        if cap is not None and self.runtime.get_memory_used() > cap:
            return -1.0
        return time.monotonic()

    # -- script cache ------------------------------------------------------------

    def compile(self, body: bytes) -> Any:
        """The compiled function of body (raises the compile error as Redis)."""
        result = self._compile(body)
        fn, message = result if type(result) is tuple else (result, None)
        if fn is None:
            text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
            raise CommandError(E.SCRIPT_COMPILE % text)
        return fn

    # -- running -------------------------------------------------------------------

    def run(self, sha: bytes, fn: Any, numkeys: int, args: list[bytes], read_only: bool) -> Any:
        """Run a compiled script (Engine lock held); its reply, Engine-shaped."""
        self.resp = 2
        engine = self.engine
        if engine.script_memory_limit != self._memory_limit:
            self._apply_memory_limit()
        self.read_only = read_only
        try:
            if len(args) <= _VARARGS_MAX:
                result = self._run(fn, engine.script_time_limit, numkeys, *args)
            else:
                result = self._run_tables(fn, engine.script_time_limit, self.table_from(args[:numkeys]),
                                          self.table_from(args[numkeys:]))
        except lupa.LuaError as err:
            # outside the script's own xpcall: its reply did not fit in memory
            self._in_python = False
            self._recover()
            if isinstance(err, MemoryError):
                raise CommandError(clean_line(self._memory_line().decode())) from None
            raise CommandError("ERR " + clean_line(str(err).split("\n")[0])) from None
        finally:
            self.read_only = False
        if result[0]:
            if len(result) == 3:
                return parse_reply(result[2])
            value = result[1]
            kind = type(value)
            if kind is bytes:
                return value
            if kind is int or kind is float:
                return to_int64(value)
            if value is True or value is False:
                return value if self.resp == 3 else (1 if value else None)
            return None
        _, text, source, line, malformed = result
        if malformed:
            text = E.SCRIPT_ERROR_OBJECT
        elif isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        if source is None:  # no script frame (out of memory): the text alone
            raise CommandError(clean_line(text))
        where = source.decode("utf-8", "replace") if isinstance(source, bytes) else "?"
        raise CommandError(clean_line(E.SCRIPT_ERROR % (text, sha.decode(), where, line)))

    # -- redis.* functions backed by Python ---------------------------------------

    def pcall_bridge(self, *args: Any) -> Any:
        """``redis.pcall``: as ``redis.call``, an error reply as ``{err=...}``."""
        try:
            return self.bridge(*args)
        except ScriptCallError as err:
            if err.executed:
                return self.table_from({b"err": err.text, b"ignore_error_stats_update": True})
            return self.table_from({b"err": err.text})

    def bridge(self, *args: Any) -> Any:
        """``redis.call``: the reply as Lua sees it; an error reply raises
        ScriptCallError (a Lua error whose value error_text reads)."""
        if not args:
            raise ScriptCallError(E.LUA_NO_ARGUMENTS)
        argv: list[bytes]
        try:
            b"".join(args)  # all strings (the common case): no per-argument test
            argv = list(args)
        except TypeError:
            argv = []
            for arg in args:
                kind = type(arg)
                if kind is bytes:
                    argv.append(arg)
                elif kind is int or kind is float:
                    argv.append(b"%.17g" % arg)
                else:
                    raise ScriptCallError(E.LUA_BAD_ARGUMENTS) from None
        plan = self._plans.get(argv[0])
        if plan is None:
            plan = self._plan(argv[0])
        word, cmd, refused, status = plan
        if cmd is None:
            raise ScriptCallError(E.LUA_UNKNOWN_COMMAND, True)
        n = len(argv)
        if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
            raise ScriptCallError(E.LUA_WRONG_ARITY, True)
        if refused:
            raise ScriptCallError(E.LUA_NOT_ALLOWED, True)
        if cmd.write and self.read_only:
            raise ScriptCallError(E.LUA_WRITE_IN_READ_ONLY, True)
        try:
            reply = self.engine.call(argv)
        except CommandError as err:
            raise ScriptCallError(err.line, True) from None
        kind = type(reply)
        if kind is bytes:
            if status and (word == b"SET" and not any(a.upper() == b"GET" for a in argv[3:])
                           or word == b"PING" and n == 1 or word in STATUS_COMMANDS):
                return self.table_from({b"ok": reply})
            return reply
        if kind is int:
            return reply
        if kind is float and self.resp == 2:
            return b"%.17g" % reply
        return self.to_lua(word, reply)

    def _plan(self, name: bytes) -> tuple[bytes, Any, bool, bool]:
        """What the bridge needs to know of a command name: (upper-case name,
        the command or None, refused in scripts, may answer a status)."""
        word = name.upper()
        cmd = self.commands.get(word)
        refused = cmd is not None and (cmd.blocking or word in NOT_IN_SCRIPTS)
        status = word in STATUS_COMMANDS or word in (b"SET", b"PING")
        if len(self._plans) > 1024:  # scripts calling many unknown names
            self._plans.clear()
        plan = self._plans[name] = (word, cmd, refused, status)
        return plan

    def to_lua(self, word: bytes, reply: Any, top: bool = True) -> Any:
        """A RESP3-shaped Engine reply as a script sees it (RESP2 or 3)."""
        kind = type(reply)
        if kind is bytes or kind is int:
            return reply
        resp3 = self.resp == 3
        if kind is float:
            if resp3:
                return self.table_from({b"double": reply})
            return double_text(reply)
        if reply is None:
            return None if resp3 else False
        if kind is bool:
            return reply if resp3 else int(reply)
        if kind is dict:
            if resp3:
                items = {self.to_lua(word, k, False): self.to_lua(word, v, False)
                         for k, v in reply.items()}
                return self.table_from({b"map": self.table_from(items)})
            flat: list[Any] = []
            for k, v in reply.items():
                flat.append(self.to_lua(word, k, False))
                flat.append(self.to_lua(word, v, False))
            return self.table_from(flat)
        if kind is list:
            if top and not resp3 and word in PAIR_COMMANDS and reply \
                    and type(reply[0]) is list:
                reply = [x for pair in reply for x in pair]
            return self.table_from([self.to_lua(word, x, False) for x in reply])
        if isinstance(reply, Exception):
            return self.table_from({b"err": str(reply)})
        return reply

    def _setresp(self, *args: Any) -> None:
        """redis.setresp(2 or 3): the RESP of the replies the script sees."""
        if len(args) != 1:
            raise ScriptCallError(E.LUA_SETRESP_ARGUMENTS)
        version = to_number(args[0])
        if version != 2 and version != 3:
            raise ScriptCallError(E.LUA_SETRESP_VERSION)
        self.resp = int(version)

    def _getresp(self) -> int:
        return self.resp

    def _memory_line(self) -> bytes:
        return (E.SCRIPT_MEMORY % (self.engine.script_memory_limit or 0)).encode()

    def _timeout_line(self) -> bytes:
        limit = self.engine.script_time_limit or 0.0
        return (E.SCRIPT_TIMEOUT % (limit * 1000)).encode()

    def _log(self, *args: Any) -> None:
        """redis.log(level, message...): to the Python logger fastrank.scripting."""
        if len(args) < 2:
            raise ScriptCallError(E.LUA_LOG_ARGUMENTS)
        level = args[0]
        if not isinstance(level, (int, float)) or type(level) is bool:
            raise ScriptCallError(E.LUA_LOG_LEVEL_TYPE)
        if not 0 <= level <= 3:
            raise ScriptCallError(E.LUA_LOG_LEVEL)
        parts = [text for text in map(as_string, args[1:]) if text is not None]
        levels = (logging.DEBUG, logging.INFO, logging.INFO, logging.WARNING)
        log.log(levels[int(level)], "%s", b" ".join(parts).decode("utf-8", "replace"))

    def _acl_check(self, *args: Any) -> bool:
        return True

