"""Differential harness: run the same redis-py call on two clients and compare.

One side is the real Redis 7.0 server (the reference); the other is the
client under test, normally ``fastrank.Engine``. A :class:`Pair` runs each call
(method name + args + kwargs, or any function of a client) on both sides and
compares the *outcome*:

- a return value, with exact Python types all the way down (``bytes`` vs
  ``str``, ``int`` vs ``float`` vs ``bool``, ``list`` vs ``tuple``, nested);
  floats compare bit-exactly through ``repr`` (so ``-0.0 != 0.0``), NaN equals
  NaN;
- or a raised exception: same class and same ``str(e)``. Exception *instances*
  inside a reply (pipelines with ``raise_on_error=False``) compare the same way.

Replies of unordered commands (``keys``, ``hkeys``, ``hvals``, ``zrandmember``
with a count, ``scan_iter``...) compare as multisets; sets and dicts compare as
sets and dicts whatever their iteration order.

On a mismatch the pair raises :class:`Mismatch` (an ``AssertionError``) whose
text gives the seed, the step index, the failing call, both outcomes and the
last commands with their reference replies, plus the command line that
replays the test with the same seed. Seeds come from ``--seed`` /
``FASTRANK_SEED`` (see ``conftest.py``); random tests derive everything from
one ``random.Random(seed)``, so a seed replays the identical command stream.

The "other" side is chosen with ``FASTRANK_DIFF_OTHER``:

- ``engine`` (default): ``fastrank.Engine``;
- ``redis``: the same real server, database 1 (real vs real must always
  agree; this validates the harness and the tests themselves);
- ``fakeredis``: ``fakeredis.FakeRedis`` (expect mismatches; shows that the
  harness catches differences).

Exploration: ``FASTRANK_DIFF_KEEP_GOING=1`` records each distinct mismatch,
copies Redis's keyspace into the client under test and carries on; the test
then fails at teardown listing them all. ``FASTRANK_STEPS_SCALE=0.1`` (or 10)
shortens (or lengthens) every random run.
"""
from __future__ import annotations

import math
import os
import random
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple

import redis

__all__ = [
    "Gen", "Mismatch", "Outcome", "Pair", "canon", "dump_keyspace", "fmt_call", "fmt_value",
    "make_other", "other_kind", "steps", "UNORDERED_METHODS", "UNORDERED_COMMANDS",
]

#: redis-py methods whose list replies have no defined order.
UNORDERED_METHODS = frozenset({
    "keys", "hkeys", "hvals", "srandmember", "zrandmember", "spop",
    "sunion", "sinter", "sdiff",
})
#: Raw command names (``execute_command``) whose list replies have no order.
UNORDERED_COMMANDS = frozenset({
    "KEYS", "HKEYS", "HVALS", "SRANDMEMBER", "ZRANDMEMBER", "SPOP",
    "SUNION", "SINTER", "SDIFF", "SMEMBERS", "HGETALL",
})


# --------------------------------------------------------------------------
# Canonical form of a reply: a hashable, orderable description with types.
# --------------------------------------------------------------------------

def _sort_key(c: Any) -> str:
    return repr(c)


def canon(value: Any, unordered: bool = False) -> Any:
    """A nested tuple describing ``value`` exactly, types included.

    ``unordered`` applies to the top level only: a list/tuple is compared as a
    multiset of its elements.
    """
    if value is None:
        return ("None",)
    t = type(value)
    if t is bool:
        return ("bool", value)
    if t is int:
        return ("int", value)
    if t is float:
        return ("float", "nan" if math.isnan(value) else repr(value))
    if t is bytes:
        return ("bytes", value)
    if t is str:
        return ("str", value)
    if t is list or t is tuple:
        items = [canon(v) for v in value]
        if unordered:
            items.sort(key=_sort_key)
        return (t.__name__, tuple(items))
    if t is dict:
        items = [(canon(k), canon(v)) for k, v in value.items()]
        items.sort(key=_sort_key)
        return ("dict", tuple(items))
    if t is set or t is frozenset:
        items = [canon(v) for v in value]
        items.sort(key=_sort_key)
        return (t.__name__, tuple(items))
    if isinstance(value, BaseException):
        return ("exception", _exc_name(value), str(value))
    return ("other", f"{t.__module__}.{t.__qualname__}", repr(value))


def _exc_name(exc: BaseException) -> str:
    t = type(exc)
    return f"{t.__module__}.{t.__qualname__}"


class Outcome:
    """What a call did: returned ``value`` or raised ``error``."""

    __slots__ = ("value", "error")

    def __init__(self, value: Any = None, error: Optional[BaseException] = None):
        self.value = value
        self.error = error

    def key(self, unordered: bool = False) -> Any:
        if self.error is not None:
            return ("raised", _exc_name(self.error), str(self.error))
        return ("returned", canon(self.value, unordered))

    def __repr__(self) -> str:
        if self.error is not None:
            return f"raised {fmt_exc(self.error)}"
        return f"-> {fmt_value(self.value)}"


def run(fn: Callable[[], Any]) -> Outcome:
    try:
        return Outcome(value=fn())
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - every failure is an outcome
        return Outcome(error=exc)


# --------------------------------------------------------------------------
# Formatting for failure reports.
# --------------------------------------------------------------------------

def fmt_exc(exc: BaseException) -> str:
    return f"{_exc_name(exc)}({str(exc)!r})"


def fmt_value(value: Any, limit: int = 600) -> str:
    if isinstance(value, BaseException):
        text = fmt_exc(value)
    elif type(value) in (list, tuple) and any(isinstance(v, BaseException) for v in value):
        inner = ", ".join(fmt_value(v, limit) for v in value)
        text = f"[{inner}]" if type(value) is list else f"({inner})"
    else:
        text = repr(value)
        if type(value) not in (bytes, str, int, float, bool, type(None), list, tuple, dict, set):
            text += f" <{type(value).__module__}.{type(value).__qualname__}>"
    if len(text) > limit:
        text = text[:limit] + "...(truncated)"
    return text


def _fmt_arg(a: Any) -> str:
    if callable(a) and getattr(a, "__name__", "") == "<lambda>":
        return getattr(a, "_label", "<lambda>")
    if callable(a) and not isinstance(a, type):
        return getattr(a, "_label", getattr(a, "__name__", repr(a)))
    return repr(a)


def fmt_call(method: str, args: Sequence[Any] = (), kwargs: Optional[Dict[str, Any]] = None) -> str:
    parts = [_fmt_arg(a) for a in args]
    parts += [f"{k}={_fmt_arg(v)}" for k, v in (kwargs or {}).items()]
    return f"{method}({', '.join(parts)})"


def labelled(fn: Callable, label: str) -> Callable:
    """Attach a readable label to a function argument (e.g. a score_cast_func)."""
    fn._label = label  # type: ignore[attr-defined]
    return fn


# --------------------------------------------------------------------------
# The pair.
# --------------------------------------------------------------------------

class Mismatch(AssertionError):
    """The client under test and the real server disagreed."""


OTHER_LABELS = {"engine": "Engine", "redis": "redis-db1", "fakeredis": "fakeredis"}


def steps(n: int) -> int:
    """``n`` scaled by ``FASTRANK_STEPS_SCALE`` (default 1): the length of a random run."""
    return max(1, int(n * float(os.environ.get("FASTRANK_STEPS_SCALE", "1"))))


def other_kind() -> str:
    return os.environ.get("FASTRANK_DIFF_OTHER", "engine").strip().lower() or "engine"


def make_other(real_port: int, decode_responses: bool = False, **kwargs: Any):
    """A fresh client under test, as selected by FASTRANK_DIFF_OTHER."""
    kind = other_kind()
    if kind == "engine":
        from fastrank import Engine

        return Engine(decode_responses=decode_responses, **kwargs)
    if kind == "redis":
        client = redis.Redis(host="127.0.0.1", port=real_port, db=1,
                             decode_responses=decode_responses, **kwargs)
        client.flushdb()
        return client
    if kind == "fakeredis":
        import fakeredis

        return fakeredis.FakeRedis(decode_responses=decode_responses, version=(7, 0), **kwargs)
    raise ValueError(f"FASTRANK_DIFF_OTHER={kind!r}: expected engine, redis or fakeredis")


class Pair:
    """Runs every call on ``engine`` (the client under test) and ``real``.

    ``pair.zadd("z", {"a": 1})`` runs ``zadd`` on both and compares; the real
    reply is returned (or the real exception re-raised) so that tests can
    branch on it. Every call is recorded for the failure report.
    """

    def __init__(self, engine: Any, real: Any, *, seed: Optional[int] = None,
                 test_id: Optional[str] = None, history: int = 25,
                 engine_label: Optional[str] = None):
        self.engine = engine
        self.real = real
        self.seed = seed
        self.test_id = test_id
        self.step = 0
        self.history: Deque[Tuple[int, str, str]] = deque(maxlen=history)
        self.engine_label = engine_label or OTHER_LABELS.get(other_kind(), other_kind())
        self.calls = 0
        # Exploration mode (FASTRANK_DIFF_KEEP_GOING=1): record each mismatch,
        # copy Redis's keyspace into the client under test, and carry on; the
        # fixture fails the test at the end with every distinct mismatch.
        self.keep_going = os.environ.get("FASTRANK_DIFF_KEEP_GOING") == "1"
        self.mismatches: List[str] = []
        self._mismatch_kinds: set = set()

    # -- generic entry points ------------------------------------------------

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def method(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, *args, **kwargs)

        method.__name__ = name
        return method

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``method(*args, **kwargs)`` on both clients and compare."""
        unordered = method in UNORDERED_METHODS
        if method == "execute_command" and args and isinstance(args[0], (str, bytes)):
            name = args[0].decode() if isinstance(args[0], bytes) else args[0]
            unordered = name.upper() in UNORDERED_COMMANDS
        label = fmt_call(method, args, kwargs)
        return self.apply(label, lambda c: getattr(c, method)(*args, **kwargs),
                          unordered=unordered)

    def apply(self, label: str, fn: Callable[[Any], Any], *, unordered: bool = False,
              compare: Optional[Callable[[Outcome, Outcome], bool]] = None,
              reraise: bool = True) -> Any:
        """Run ``fn(client)`` on both clients and compare the outcomes.

        ``compare(real, engine) -> bool`` replaces the exact comparison (used
        for TTLs). Returns the real value, or re-raises the real exception
        when ``reraise`` (the default); with ``reraise=False`` returns the
        real :class:`Outcome` instead.
        """
        step = self.step
        self.step += 1
        self.calls += 1
        real = run(lambda: fn(self.real))
        eng = run(lambda: fn(self.engine))
        if compare is not None:
            same = compare(real, eng)
        else:
            same = real.key(unordered) == eng.key(unordered)
        if not same:
            self._fail(step, label, real, eng)
        self.history.append((step, label, repr(real)))
        if not reraise:
            return real
        if real.error is not None:
            raise real.error
        return real.value

    def quiet(self, method: str, *args: Any, **kwargs: Any) -> Outcome:
        """Like :meth:`call` but returns the real :class:`Outcome`, never raises."""
        unordered = method in UNORDERED_METHODS
        if method == "execute_command" and args and isinstance(args[0], (str, bytes)):
            name = args[0].decode() if isinstance(args[0], bytes) else args[0]
            unordered = name.upper() in UNORDERED_COMMANDS
        label = fmt_call(method, args, kwargs)
        return self.apply(label, lambda c: getattr(c, method)(*args, **kwargs),
                          unordered=unordered, reraise=False)

    # -- keyspace comparison -------------------------------------------------

    def check_keyspace(self, why: str = "keyspace") -> Outcome:
        """Compare a full dump of both keyspaces (keys, types, contents, TTL class)."""
        return self.apply(f"<dump of the whole keyspace: {why}>", dump_keyspace, reraise=False)

    # -- reporting -----------------------------------------------------------

    def replay_hint(self) -> str:
        bits = []
        if self.seed is not None:
            bits.append(f"FASTRANK_SEED={self.seed}")
        if other_kind() != "engine":
            bits.append(f"FASTRANK_DIFF_OTHER={other_kind()}")
        target = self.test_id or "tests/compat"
        return " ".join(bits + [f"python -m pytest '{target}'"])

    def _fail(self, step: int, label: str, real: Outcome, eng: Outcome) -> None:
        lines = [
            f"{self.engine_label} and Redis disagree at step {step}"
            + (f" (seed {self.seed})" if self.seed is not None else ""),
            f"  command : {label}",
            f"  redis   : {real!r}",
            f"  {self.engine_label:<8}: {eng!r}",
            f"  replay  : {self.replay_hint()}",
        ]
        if real.error is None and eng.error is None:
            where = first_difference(real.value, eng.value)
            if where:
                lines.insert(4, f"  first difference: {where}")
        if self.history:
            lines.append(f"  last {len(self.history)} commands before it (with Redis's reply):")
            for s, lab, out in self.history:
                lines.append(f"    [{s}] {lab} {out}")
        text = "\n".join(lines)
        if not self.keep_going:
            raise Mismatch(text)
        kind = (label.split("(")[0] if not label.startswith("execute_command") else
                label.split(",")[0], real.key()[0], eng.key()[0],
                _exc_name(eng.error) if eng.error is not None else None)
        if kind not in self._mismatch_kinds:
            self._mismatch_kinds.add(kind)
            self.mismatches.append(text)
        self.resync()

    def resync(self) -> None:
        """Make the client under test's keyspace a copy of the real one."""
        self.engine.flushdb()
        for key in self.real.keys("*"):
            kind = _text(self.real.type(key))
            if kind == "zset":
                pairs = self.real.zrange(key, 0, -1, withscores=True)
                if pairs:
                    self.engine.zadd(key, dict(pairs))
            elif kind == "string":
                self.engine.set(key, self.real.get(key))
            elif kind == "set":
                self.engine.sadd(key, *self.real.smembers(key))
            elif kind == "hash":
                self.engine.hset(key, mapping=self.real.hgetall(key))
            elif kind == "list":
                self.engine.rpush(key, *self.real.lrange(key, 0, -1))
            when = self.real.pexpiretime(key)
            if when > 0:
                self.engine.pexpireat(key, when)


def first_difference(a: Any, b: Any, path: str = "") -> Optional[str]:
    """Where two replies first differ, e.g. ``[b'z1'][1][3]: (b'a', 1.0) != (b'a', -0.0)``."""
    if canon(a) == canon(b):
        return None
    if type(a) is dict and type(b) is dict:
        for k in a.keys() | b.keys():
            if k not in b:
                return f"{path}[{k!r}] only on Redis: {fmt_value(a[k], 200)}"
            if k not in a:
                return f"{path}[{k!r}] only on the client under test: {fmt_value(b[k], 200)}"
            inner = first_difference(a[k], b[k], f"{path}[{k!r}]")
            if inner:
                return inner
    if type(a) is type(b) and type(a) in (list, tuple):
        for i, (x, y) in enumerate(zip(a, b)):
            inner = first_difference(x, y, f"{path}[{i}]")
            if inner:
                return inner
        if len(a) != len(b):
            return f"{path}: length {len(a)} on Redis, {len(b)} on the client under test"
    return f"{path or 'value'}: {fmt_value(a, 200)} != {fmt_value(b, 200)}"


# --------------------------------------------------------------------------
# Random command generators
# --------------------------------------------------------------------------

class Gen:
    """Base of the random command generators: a weighted table of operations.

    Subclasses define ``table()`` returning ``[(weight, op), ...]`` where each
    op takes the :class:`Pair` and issues one or a few calls on it. Every
    random choice comes from ``self.rng`` so a seed replays the same stream.
    """

    def __init__(self, rng: random.Random, decoded: bool = False):
        self.rng = rng
        self.decoded = decoded
        self.ops: List[Callable[[Pair], Any]] = []
        self.weights: List[int] = []
        for weight, op in self.table():
            self.weights.append(weight)
            self.ops.append(op)

    def table(self) -> List[Tuple[int, Callable[[Pair], Any]]]:
        raise NotImplementedError

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, seq: Sequence[Any]) -> Any:
        return self.rng.choice(seq)

    def step(self, p: Pair) -> None:
        self.rng.choices(self.ops, self.weights)[0](p)

    def run(self, p: Pair, n: int, check_every: int = 250) -> None:
        """``n`` random steps, comparing whole keyspaces every ``check_every`` steps."""
        for i in range(n):
            self.step(p)
            if check_every and i % check_every == check_every - 1:
                p.check_keyspace(f"after step {p.step - 1}")
        p.check_keyspace("at the end")


# --------------------------------------------------------------------------
# Keyspace dump (works on any redis-py-compatible client).
# --------------------------------------------------------------------------

def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else v


def dump_keyspace(client: Any) -> Dict[Any, Any]:
    """Every key with its type, its full contents and its TTL class.

    The TTL is reduced to ``-1`` (none) or ``'ttl'`` (has one) so that the
    dump does not depend on timing.
    """
    out: Dict[Any, Any] = {}
    for key in client.keys("*"):
        kind = _text(client.type(key))
        if kind == "zset":
            content: Any = client.zrange(key, 0, -1, withscores=True)
        elif kind == "string":
            content = client.get(key)
        elif kind == "set":
            content = client.smembers(key)
        elif kind == "hash":
            content = client.hgetall(key)
        elif kind == "list":
            content = client.lrange(key, 0, -1)
        else:
            content = f"<{kind}>"
        ttl = client.pttl(key)
        out[key] = (kind, content, "ttl" if ttl > 0 else ttl)
    return out


def ttl_class(v: Any) -> Any:
    """-2 / -1 stay as they are; any positive TTL becomes 'positive'."""
    if type(v) is int and v > 0:
        return "positive"
    return v


def approx_ttl(tolerance: int) -> Callable[[Outcome, Outcome], bool]:
    """A comparison for TTL/PTTL replies: same type and within ``tolerance``."""

    def compare(real: Outcome, eng: Outcome) -> bool:
        if real.error is not None or eng.error is not None:
            return real.key() == eng.key()
        a, b = real.value, eng.value
        if type(a) is not int or type(b) is not int:
            return real.key() == eng.key()
        if a < 0 or b < 0:
            return a == b
        return abs(a - b) <= tolerance

    return compare

