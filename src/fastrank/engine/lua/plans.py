"""Straight-line scripts: EVAL/EVALSHA without Lua, proven equal to Lua.

A script whose whole body is a sequence of ``redis.call(...)`` statements,
the last one optionally ``return redis.call(...)``, and whose arguments are
only string literals without escapes (``'..'`` or ``".."``), decimal number
literals, ``KEYS[i]`` and ``ARGV[i]`` (i an integer literal), is read, when
the script is cached (SCRIPT LOAD, EVAL), into a plan
(``fastrank._core.ScriptPlan``): per call, the argument template and the
source line of the call. Whitespace, newlines, ``--`` line comments and a
``;`` after a statement are allowed; anything else (other statements,
expressions, long strings or comments, escapes, ``redis.pcall``) leaves the
script to Lua, as is every call a plan declines.

Running a plan does exactly what the Lua bridge does (``sandbox.py``):
per call the same checks in the same order (unknown command, arity, commands
refused in scripts, writes in read-only scripts), then the Engine's one
dispatch path (``Engine.call``), so WATCH, expiry and blocked pops see the
same thing. An error reply of call k ends the script with the earlier
writes kept and the Lua path's error text (the script's SHA1 and the call's
line); the last reply comes back converted as the Lua round trip converts it
(:func:`lua_round_trip`). A plan declines, before running anything, when a
KEYS/ARGV index is beyond what the call passed (Lua would pass nil and fail
on that call). tests/property/engine/test_script_plans.py runs random straight-line
scripts on twin Engines, one with plans and one without, and compares every
reply, error and the keyspace afterwards.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple, Union

from redis._parsers.base import BaseParser
from redis.exceptions import ResponseError

from fastrank import errors as E
from fastrank._core import PlanStep, ScriptPlan
from fastrank.engine.lua.sandbox import (PAIR_COMMANDS, STATUS_COMMANDS, LuaScripting, clean_line,
                                   double_text, to_int64)
from fastrank.engine.keyspace import CommandError

if TYPE_CHECKING:
    from fastrank.engine import Engine

__all__ = ["compile_plan", "lua_round_trip", "script_error"]

_NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(rb"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?")
_DIGITS = re.compile(rb"[0-9]+\Z")
_SPACE = b" \t\v\f"
_NEWLINE = b"\r\n"
_PUNCT = b".()[],;"
#: A character that would continue a numeral in Lua's lexer (malformed number).
_NUMERAL_TAIL = re.compile(rb"[A-Za-z0-9_.]")

Token = Tuple[str, bytes, int]  # (kind, text, line); kind: name, str, num or punct


def _tokens(code: bytes) -> Optional[List[Token]]:
    """Lua 5.1's tokens of code, for the subset plans read; None at anything else."""
    out: List[Token] = []
    i, n, line = 0, len(code), 1
    while i < n:
        c = code[i:i + 1]
        if c in _NEWLINE:  # \n, \r, \r\n and \n\r each count once, as in Lua's lexer
            i += 1
            if i < n and code[i:i + 1] in _NEWLINE and code[i:i + 1] != c:
                i += 1
            line += 1
        elif c in _SPACE:
            i += 1
        elif code.startswith(b"--", i):
            if code[i + 2:i + 3] == b"[":  # maybe a long comment
                return None
            while i < n and code[i:i + 1] not in _NEWLINE:
                i += 1
        elif c == b"'" or c == b'"':
            end = code.find(c, i + 1)
            if end < 0:
                return None
            body = code[i + 1:end]
            if b"\\" in body or b"\n" in body or b"\r" in body:
                return None
            out.append(("str", body, line))
            i = end + 1
        elif c.isdigit() or c == b"-":
            m = _NUMBER.match(code, i)
            if m is None or _NUMERAL_TAIL.match(code, m.end()):
                return None
            text = m.group()
            value = float(text)
            if value == 0 and text.startswith(b"-"):
                return None  # -0 may share Lua's constant slot with 0
            out.append(("num", text, line))
            i = m.end()
        elif c.isalpha() or c == b"_":
            m = _NAME.match(code, i)
            assert m is not None
            out.append(("name", m.group(), line))
            i = m.end()
        elif c in _PUNCT:
            if c == b"." and code[i + 1:i + 2] in b"0123456789.":
                return None  # ".5" or ".."
            out.append(("punct", c, line))
            i += 1
        else:
            return None
    return out


def _argument(toks: List[Token], pos: int) -> Optional[Tuple[Union[bytes, int], int]]:
    """(template item, next position) of one argument at toks[pos], or None."""
    kind, value, _ = toks[pos]
    if kind == "str":
        return value, pos + 1
    if kind == "num":  # a Lua number: the bridge sends it as %.17g text
        return double_text(float(value)), pos + 1
    if kind == "name" and value in (b"KEYS", b"ARGV") and pos + 3 < len(toks) \
            and toks[pos + 1][:2] == ("punct", b"[") and toks[pos + 3][:2] == ("punct", b"]"):
        ikind, index, _ = toks[pos + 2]
        if ikind != "num" or not _DIGITS.match(index):
            return None
        i = int(index)
        if i < 1:
            return None
        return (i if value == b"KEYS" else -i), pos + 4
    return None


def _calls(toks: List[Token]) -> Optional[Tuple[List[Tuple[List[Union[bytes, int]], int]], bool]]:
    """([(argument template, line of its '(')...], whether the last is returned)."""
    calls: List[Tuple[List[Union[bytes, int]], int]] = []
    pos, n, returned = 0, len(toks), False

    def at(p: int, kind: str, value: Any) -> bool:
        return p < n and toks[p][0] == kind and toks[p][1] == value

    while pos < n:
        if returned:
            return None  # a statement after the return
        if at(pos, "name", b"return"):
            returned = True
            pos += 1
        if not (at(pos, "name", b"redis") and at(pos + 1, "punct", b".")
                and at(pos + 2, "name", b"call") and at(pos + 3, "punct", b"(")):
            return None
        line = toks[pos + 3][2]
        if line != toks[pos + 2][2]:
            return None  # Lua: ambiguous syntax
        pos += 4
        template: List[Union[bytes, int]] = []
        while True:
            if pos >= n:
                return None
            got = _argument(toks, pos)
            if got is None:
                return None
            template.append(got[0])
            pos = got[1]
            if at(pos, "punct", b")"):
                pos += 1
                break
            if not at(pos, "punct", b","):
                return None
            pos += 1
        if type(template[0]) is not bytes:
            return None  # the command name must be a literal
        calls.append((template, line))
        if at(pos, "punct", b";"):
            pos += 1
    if not calls:
        return None
    return calls, returned


def compile_plan(lua: LuaScripting, code: bytes) -> Optional[ScriptPlan]:
    """The plan of a straight-line script (code: the body after the ``#!``
    line, as Lua compiles it), or None. O(length of the script)."""
    toks = _tokens(code)
    if toks is None:
        return None
    found = _calls(toks)
    if found is None:
        return None
    calls, returned = found
    steps: List[PlanStep] = []
    max_key = max_arg = 0
    for template, line in calls:
        name = template[0]
        assert isinstance(name, bytes)
        word, cmd, refused, status = lua._plan(name)
        n = len(template)
        refusal: Optional[str] = None
        if cmd is None:
            refusal = E.LUA_UNKNOWN_COMMAND
        elif (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
            refusal = E.LUA_WRONG_ARITY
        elif refused:
            refusal = E.LUA_NOT_ALLOWED
        for item in template:
            if type(item) is int:
                if item > 0:
                    max_key = max(max_key, item)
                else:
                    max_arg = max(max_arg, -item)
        steps.append(PlanStep(tuple(template), word, refusal, bool(cmd is not None and cmd.write),
                              status, line, _rank_next(calls, len(steps))))
    return ScriptPlan(tuple(steps), max_key, max_arg, returned)


_RANKS = {b"ZRANK": 1, b"ZREVRANK": 2}


def _rank_next(calls: List[Tuple[List[Union[bytes, int]], int]], i: int) -> int:
    """1 (2) when call i is ``ZINCRBY key increment member`` and call i + 1 is
    ``ZRANK (ZREVRANK) key member`` with the same key and member (the same
    literal, or the same KEYS/ARGV index); else 0. The plan then reads the
    rank off the increment's own walk (engine/native/script_plans.pxi)."""
    if i + 1 >= len(calls):
        return 0
    incr, rank = calls[i][0], calls[i + 1][0]
    if len(incr) != 4 or len(rank) != 3 or not all(type(w) is bytes for w in (incr[0], rank[0])):
        return 0
    assert isinstance(incr[0], bytes) and isinstance(rank[0], bytes)
    if incr[0].upper() != b"ZINCRBY" or incr[1] != rank[1] or incr[3] != rank[2]:
        return 0
    return _RANKS.get(rank[0].upper(), 0)


def script_error(text: str, sha: bytes, line: int) -> CommandError:
    """The error a script ends with when redis.call at line gets the error
    reply text, as the Lua path words it."""
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return CommandError(clean_line(E.SCRIPT_ERROR % (text, sha.decode(), "@user_script", line)))


def _is_status(word: bytes, argv: List[bytes]) -> bool:
    """The bridge's rule: a bytes reply of this call is a status reply."""
    return (word == b"SET" and not any(a.upper() == b"GET" for a in argv[3:])
            or word == b"PING" and len(argv) == 1 or word in STATUS_COMMANDS)


_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error


def _nested(reply: Any) -> Any:
    """An element of a table reply after Lua: Engine → Lua (RESP2) → reply."""
    kind = type(reply)
    if kind is bytes:
        return reply
    if kind is int:
        return to_int64(float(reply))
    if kind is float:
        return double_text(reply)
    if reply is None:
        return None
    if kind is bool:
        return int(reply)
    if kind is list:
        return [_nested(x) for x in reply]
    if kind is dict:
        return [_nested(x) for pair in reply.items() for x in pair]
    if isinstance(reply, Exception):
        return _parse_error(clean_line(str(reply)))
    return None


def lua_round_trip(word: bytes, argv: List[bytes], reply: Any) -> Any:
    """A command's reply as a script returning it answers: the Engine's reply
    (RESP3-shaped) as Lua sees it (RESP2), then Lua's value as the script's
    reply. Integers pass through a Lua number (a double), then C's cast; nil
    becomes false and false nil; a status reply loses CR and LF."""
    kind = type(reply)
    if kind is bytes:
        if _is_status(word, argv):
            return clean_line(reply.decode("utf-8", "replace")).encode()
        return reply
    if kind is list and word in PAIR_COMMANDS and reply and type(reply[0]) is list:
        reply = [x for pair in reply for x in pair]
    if isinstance(reply, Exception):
        raise CommandError(clean_line(str(reply)))
    return _nested(reply)
