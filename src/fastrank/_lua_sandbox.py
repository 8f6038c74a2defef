"""The Lua 5.1 runtime of one Engine: Redis 7.0's script environment and the
bridge from ``redis.call`` to the Engine's command path.

``LuaScripting`` owns a lupa ``LuaRuntime`` (Lua 5.1, as Redis embeds) in
which ``_lua_sandbox.lua`` builds the readonly environment scripts see. The
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
- The script's reply → the client: a number is truncated to an integer (C's
  cast: out of range or NaN gives INT64_MIN), ``true`` is 1, ``false`` and
  ``nil`` are nil, an array stops at its first nil, ``{ok=}``/``{err=}``
  tables are status/error replies (nested errors are exception objects in
  the list, as redis-py's parser gives them), ``{double=}`` is its text. The
  Lua side serialises tables (rawget, as Redis reads them) and
  :func:`parse_reply` reads that back.

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

import lupa.lua51 as lupa

from fastrank import _errors as E
from fastrank._lua_libs import install_libs
from fastrank.commands import COMMANDS, CommandError

if TYPE_CHECKING:
    from fastrank.engine import Engine

INT64_MIN = -(1 << 63)
_TWO63 = float(1 << 63)

#: Commands a script may not call (Redis flags them noscript).
NOT_IN_SCRIPTS = frozenset({b"MULTI", b"EXEC", b"DISCARD", b"WATCH", b"UNWATCH", b"EVAL",
                            b"EVALSHA", b"EVAL_RO", b"EVALSHA_RO", b"SCRIPT"})
#: Commands whose bytes replies are status replies (+OK, +PONG, +string...).
STATUS_COMMANDS = frozenset({b"MSET", b"RENAME", b"FLUSHDB", b"FLUSHALL", b"HMSET",
                             b"PFMERGE", b"PSETEX", b"SETEX", b"TYPE", b"CMS.INITBYDIM",
                             b"CMS.INITBYPROB", b"CMS.MERGE", b"TOPK.RESERVE", b"SELECT"})
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
    nested errors become exception objects (as redis-py's parser gives)."""
    from fastrank.engine import _parse_error

    pos = 0

    def read() -> Any:
        nonlocal pos
        tag = data[pos:pos + 1]
        if tag == b"_":
            pos += 1
            return None
        if tag == b"#":
            pos += 2
            return data[pos - 1:pos] == b"t"
        end = data.index(b"\n", pos)
        head = data[pos + 1:end]
        pos = end + 1
        if tag == b":":
            return to_int64(float(head))
        if tag == b",":
            return float(head)
        if tag == b"*":
            return [read() for _ in range(int(head))]
        if tag == b"%":
            pairs = [(read(), read()) for _ in range(int(head))]
            return {k: v for k, v in pairs}
        size = int(head)
        body = data[pos:pos + size]
        pos += size
        if tag == b"$":
            return body
        if tag == b"+":
            return clean_line(body.decode("utf-8", "replace")).encode()
        return _parse_error(clean_line(body.decode("utf-8", "replace")))

    if data[:1] == b"-":
        end = data.index(b"\n")
        raise CommandError(clean_line(data[end + 1:].decode("utf-8", "replace")))
    return read()


class ScriptCallError(Exception):
    """An error reply of ``redis.call``, raised through Lua as its error value."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.text = line.encode("utf-8", "surrogateescape")


def error_text(exc: Any) -> bytes:
    """The Redis error text of a Python exception that crossed Lua."""
    if isinstance(exc, ScriptCallError):
        return exc.text
    return ("ERR " + str(exc)).encode("utf-8", "replace")


def _deny_attributes(obj: Any, name: Any, is_setting: bool) -> Any:
    raise AttributeError("attribute access is not available to scripts")


class LuaScripting:
    """One Engine's Lua state, script cache and ``redis.call`` bridge."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.scripts: dict[bytes, Any] = {}  # sha (lower-case hex) → compiled function
        self.read_only = False               # set while an *_RO / no-writes script runs
        self.resp = 2                        # redis.setresp of the running script
        self.time_limit: float | None = None
        self.running_sha = b""
        rt = lupa.LuaRuntime(encoding=None, unpack_returned_tuples=True, register_eval=False,
                             register_builtins=False, attribute_filter=_deny_attributes)
        self.runtime = rt
        self.table_from: Callable[..., Any] = rt.table_from
        libs = rt.table_from({})
        py = rt.table_from({
            b"call": self.bridge, b"pcall": self.pcall_bridge, b"error_text": error_text,
            b"sha1hex": sha1hex, b"log": self._log, b"now": time.monotonic,
            b"timeout_line": self._timeout_line, b"setresp": self._setresp,
            b"acl_check": self._acl_check, b"libs": libs,
        })
        install_libs(rt, libs)
        source = resources.files("fastrank").joinpath("_lua_sandbox.lua").read_bytes()
        loader = rt.eval("function(src) return assert(loadstring(src, '=fastrank_sandbox')) end")
        api = loader(source)(py)
        self._compile = api[b"compile"]
        self._run = api[b"run"]
        api[b"install_guard"]()

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
        engine = self.engine
        self.read_only = read_only
        self.resp = 2
        self.running_sha = sha
        engine._no_block = True
        try:
            result = self._run(fn, self.time_limit, numkeys, *args)
        finally:
            engine._no_block = False
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
        where = source.decode("utf-8", "replace") if isinstance(source, bytes) else "?"
        raise CommandError(clean_line(E.SCRIPT_ERROR % (text, sha.decode(), where, line)))

    # -- redis.* functions backed by Python ---------------------------------------

    def pcall_bridge(self, *args: Any) -> Any:
        """``redis.pcall``: as ``redis.call``, an error reply as ``{err=...}``."""
        try:
            return self.bridge(*args)
        except ScriptCallError as err:
            return self.table_from({b"err": err.text})

    def bridge(self, *args: Any) -> Any:
        """``redis.call``: the reply as Lua sees it; an error reply raises
        ScriptCallError (a Lua error whose value error_text reads)."""
        if not args:
            raise ScriptCallError(E.LUA_NO_ARGUMENTS)
        argv: list[bytes] = []
        for arg in args:
            kind = type(arg)
            if kind is bytes:
                argv.append(arg)
            elif kind is int or kind is float:
                argv.append(b"%.17g" % arg)
            else:
                raise ScriptCallError(E.LUA_BAD_ARGUMENTS)
        word = argv[0].upper()
        cmd = COMMANDS.get(word)
        if cmd is None:
            raise ScriptCallError(E.LUA_UNKNOWN_COMMAND)
        n = len(argv)
        if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
            raise ScriptCallError(E.LUA_WRONG_ARITY)
        if cmd.blocking or word in NOT_IN_SCRIPTS:
            raise ScriptCallError(E.LUA_NOT_ALLOWED)
        if cmd.write and self.read_only:
            raise ScriptCallError(E.LUA_WRITE_IN_READ_ONLY)
        try:
            reply = self.engine.call(argv)
        except CommandError as err:
            raise ScriptCallError(err.line) from None
        kind = type(reply)
        if kind is bytes:
            if word in STATUS_COMMANDS or (word == b"PING" and n == 1) or (
                    word == b"SET" and reply == b"OK"
                    and not any(a.upper() == b"GET" for a in argv[3:])):
                return self.table_from({b"ok": reply})
            return reply
        if kind is int:
            return reply
        return self.to_lua(word, reply)

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

    def _setresp(self, version: int) -> None:
        self.resp = int(version)

    def _timeout_line(self) -> bytes:
        limit = self.time_limit if self.time_limit is not None else 0.0
        return (E.SCRIPT_TIMEOUT % (limit * 1000)).encode()

    def _log(self, level: int, text: bytes) -> None:
        levels = (logging.DEBUG, logging.INFO, logging.INFO, logging.WARNING)
        log.log(levels[int(level)], "%s", text.decode("utf-8", "replace"))

    def _acl_check(self, *args: Any) -> bool:
        return True

