"""Errors of Python functions called from Lua, with nothing of Lua left in them.

lupa binds every Lua value it hands to Python (a table, a function) to the
lua_State of the thread that made the call (inside a coroutine, the
coroutine's) and releases it through that state. Once Lua has collected the
coroutine, that state is freed memory: releasing a value bound to it then
corrupts the heap (a SIGSEGV or a glibc assertion some scripts later).

A Python function's arguments die with its call, while the coroutine runs,
except when it raises: the exception's traceback holds the frames, the
frames hold the arguments, and lupa keeps the last exception (and hands it
to Lua as the error value) long after the call. So every Python function the
sandbox hands to Lua ends a failed call with :func:`detached`: a fresh
exception that says the same (its class where that is ours or a builtin,
its text) and holds no frame, no context and no cause, after the frames of
the original are cleared (so that no reference cycle keeps the arguments
either). Whoever raises must also drop its own reference to the arguments
first (see ``LuaScripting._expose``).
"""
from __future__ import annotations

import builtins
import traceback
from typing import Any, Callable


def detached(exc: BaseException) -> BaseException:
    """A fresh exception that means what exc means and holds no Lua value.

    An exception with a ``detached()`` method (ScriptCallError, LibError)
    makes its own copy from plain fields; a builtin exception is rebuilt from
    its text; any other becomes an ``Exception`` with its text (all the
    sandbox reads of it, see ``error_text``). exc's frames are cleared."""
    fresh: BaseException
    copy = getattr(exc, "detached", None)
    if callable(copy):
        fresh = copy()
    else:
        try:
            text = str(exc)
        except Exception:
            text = type(exc).__name__
        kind = type(exc)
        fresh = Exception(text)
        if kind.__module__ == "builtins" and getattr(builtins, kind.__name__, None) is kind:
            try:
                fresh = kind(text) if text else kind()
            except Exception:
                pass
    _clear(exc)
    return fresh


def _clear(exc: BaseException) -> None:
    """Clear the locals of every finished frame exc's chain holds."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        traceback.clear_frames(e.__traceback__)  # skips the frames still running
        todo.append(e.__context__)
        todo.append(e.__cause__)


def detach_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """fn, whose failed calls raise :func:`detached` exceptions (for Python
    functions lupa calls on Lua's behalf outside ``LuaScripting._expose``,
    such as the runtime's attribute filter)."""
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except BaseException as exc:
            fresh = detached(exc)
        del args  # this frame stays in fresh's traceback
        try:
            raise fresh
        finally:
            del fresh
    return call
