"""RedisBloom 2.8 Count-Min Sketch and Top-K commands: CMS.* and TOPK.*.

A key holds a ``fastrank.CountMinSketch`` (TYPE ``CMSk-TYPE``) or a
``fastrank.TopK`` (``TopK-TYPE``); the compiled core gives RedisBloom 2.8's
counters, replies and error texts (docs/compatibility.md §4, §5). This module adds what the
module adds around them, as observed on RedisBloom 2.8.2:

- Module commands are registered with arity -1 (``COMMAND INFO``), so the
  argument count is checked inside each handler, with Redis's usual
  ``wrong number of arguments`` line: in MULTI such a command is queued and
  fails at EXEC, as on the server.
- The order of checks: argument count, then the key (missing → ``CMS: key
  does not exist`` / ``TopK: key does not exist``; creation on an existing
  key of any type → ``... key already exists``; another type → WRONGTYPE),
  then the arguments in order, then the work. Nothing changes on an error.
- Numbers are parsed as the module API parses them (``string2ll``, and
  ``strtod`` without spaces, NaN or range errors for doubles).
- CMS.INCRBY reports a saturated item as an error *element* of its reply
  (``CMS: INCRBY overflow``), which redis-py hands over as a
  ``ResponseError`` inside the list.
- Top-K item names in TOPK.ADD/INCRBY (expelled items) and TOPK.LIST replies
  are cut at the first NUL byte, as RedisBloom sends them as C strings;
  QUERY and COUNT match whole names.
- TOPK.INCRBY with a bad increment in the *last* pair answers as RedisBloom
  does (the pairs before it applied, the error as the last element). With a
  bad increment elsewhere RedisBloom sends a malformed reply (its array
  header counts elements it never sends); here that is a plain error reply
  and nothing changes.
- With decay < 1 the Top-K decay coin comes from the core's seeded
  generator, not libc ``rand()``: each Engine draws the seed of every new
  Top-K from its own generator, seeded by ``Engine.topk_seed`` (None:
  random), so a run is reproducible given that seed. Replies equal
  RedisBloom's exactly when decay is 1 or no two items share a bucket.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

from redis._parsers.base import BaseParser
from redis.exceptions import ResponseError

from fastrank import _core
from fastrank import errors as E
from fastrank._core import CountMinSketch, TopK
from fastrank.engine.commands.table import CommandError, command
from fastrank.engine.commands._numbers import parse_int, parse_score

if TYPE_CHECKING:
    from fastrank.engine import Engine

    Handler = Callable[[Engine, list[bytes]], Any]

_T = TypeVar("_T")
_parse_error: Callable[[str], ResponseError] = BaseParser.parse_error
TOPK_DEFAULTS = (8, 7, 0.9)  # width, depth, decay of a 1-parameter TOPK.RESERVE


def _arity(name: str) -> _Arity:
    return _Arity(E.WRONG_ARITY % name)


class _Arity(CommandError):
    """A wrong argument count: found before RedisBloom opens the key."""


def signals_key(handler: Handler) -> Handler:
    """RedisBloom opens the key of these commands for writing once the
    argument count is right, so Redis signals it as modified (WATCH) whatever
    happens next, errors included (verified on 2.8.2). CMS.INCRBY and the
    read commands never do."""

    def wrapped(db: Engine, args: list[bytes]) -> Any:
        try:
            reply = handler(db, args)
        except _Arity:
            raise
        except CommandError:
            db.touched(args[0])
            raise
        db.touched(args[0])
        return reply

    wrapped.__name__ = handler.__name__
    wrapped.__doc__ = handler.__doc__
    return wrapped


def _get(db: Engine, key: bytes, kind: type[_T], missing: str) -> _T:
    value = db.lookup(key)
    if value is None:
        raise CommandError(missing)
    if type(value) is not kind:
        raise CommandError(E.WRONGTYPE)
    return value


def _get_cms(db: Engine, key: bytes) -> CountMinSketch:
    return _get(db, key, CountMinSketch, _core.CMS_ERR_NO_KEY)


def _get_topk(db: Engine, key: bytes) -> TopK:
    return _get(db, key, TopK, _core.TOPK_ERR_NO_KEY)


def _create(db: Engine, key: bytes, exists_error: str) -> None:
    if db.lookup(key) is not None:
        raise CommandError(exists_error)


def _positive(arg: bytes, error: str) -> int:
    value = parse_int(arg)
    if value is None or value < 1:
        raise CommandError(error)
    return value


def _core_call(fn: Callable[..., _T], *args: Any, no_memory: Optional[str] = None) -> _T:
    """Run a core method; its ValueError/TypeError/OverflowError texts are
    RedisBloom's error lines.  With no_memory, a MemoryError (sizes RedisBloom
    accepts but that cannot be allocated) is that error line."""
    try:
        return fn(*args)
    except (ValueError, TypeError, OverflowError) as exc:
        raise CommandError(str(exc)) from None
    except MemoryError:
        if no_memory is None:
            raise
        raise CommandError(no_memory) from None


# -- Count-Min Sketch -----------------------------------------------------------


@command("cms.initbydim", -1, write=True)
@signals_key
def cms_initbydim(db: Engine, args: list[bytes]) -> Any:
    if len(args) != 3:
        raise _arity("cms.initbydim")
    _create(db, args[0], _core.CMS_ERR_KEY_EXISTS)
    width = _positive(args[1], _core.CMS_ERR_WIDTH)
    depth = _positive(args[2], _core.CMS_ERR_DEPTH)
    db.store(args[0], _core_call(CountMinSketch, width, depth,
                                 no_memory=_core.CMS_ERR_NO_MEMORY))
    return b"OK"


def _unit_interval(arg: bytes, error: str) -> float:
    value = parse_score(arg)
    if value is None or not 0.0 < value < 1.0:
        raise CommandError(error)
    return value


@command("cms.initbyprob", -1, write=True)
@signals_key
def cms_initbyprob(db: Engine, args: list[bytes]) -> Any:
    if len(args) != 3:
        raise _arity("cms.initbyprob")
    _create(db, args[0], _core.CMS_ERR_KEY_EXISTS)
    error = _unit_interval(args[1], _core.CMS_ERR_ERROR)
    probability = _unit_interval(args[2], _core.CMS_ERR_PROB)
    db.store(args[0], _core_call(CountMinSketch.from_error, error, probability,
                                 no_memory=_core.CMS_ERR_NO_MEMORY))
    return b"OK"


def _pairs(args: list[bytes], name: str) -> tuple[list[bytes], list[bytes]]:
    """items, raw increments of ``key item incr [item incr ...]``."""
    if len(args) < 3 or len(args) % 2 == 0:
        raise _arity(name)
    return args[1::2], args[2::2]


@command("cms.incrby", -1, write=True)
def cms_incrby(db: Engine, args: list[bytes]) -> Any:
    items, raw = _pairs(args, "cms.incrby")
    cms = _get_cms(db, args[0])
    increments: list[int] = []
    for text in raw:
        value = parse_int(text)
        if value is None:
            raise CommandError(_core.CMS_ERR_PARSE)
        if value < 0:
            raise CommandError(_core.CMS_ERR_NEGATIVE)
        increments.append(value)
    mins = _core_call(cms.incrby, items, increments)  # no keyspace signal (RedisBloom)
    overflow = _core.CMS_OVERFLOW
    return [_parse_error(_core.CMS_ERR_INCRBY_OVERFLOW) if m == overflow else m for m in mins]


@command("cms.query", -1)
def cms_query(db: Engine, args: list[bytes]) -> Any:
    if len(args) < 2:
        raise _arity("cms.query")
    return _get_cms(db, args[0]).query(args[1:])


@command("cms.merge", -1, write=True)
@signals_key
def cms_merge(db: Engine, args: list[bytes]) -> Any:
    if len(args) < 3:
        raise _arity("cms.merge")
    dest = _get_cms(db, args[0])
    numkeys = parse_int(args[1])
    if numkeys is None:
        raise CommandError(_core.CMS_ERR_NUMKEYS)
    if numkeys < 1:
        raise CommandError(E.CMS_NUMKEYS_POSITIVE)
    # The first WEIGHTS (any case) after numkeys splits keys from weights.
    pos = next((i for i in range(2, len(args)) if args[i].upper() == b"WEIGHTS"), None)
    if pos is None:
        if len(args) - 2 != numkeys:
            raise CommandError(_core.CMS_ERR_WRONG_KEYS)
        keys, weights = args[2:], [1] * numkeys
    else:
        if pos != 2 + numkeys or len(args) - pos - 1 != numkeys:
            raise CommandError(_core.CMS_ERR_WRONG_KEYS_WEIGHTS)
        keys, weights = args[2:pos], []
        for text in args[pos + 1:]:
            value = parse_int(text)
            if value is None:
                raise CommandError(_core.CMS_ERR_WEIGHT)
            weights.append(value)
    sources: list[CountMinSketch] = []
    for key in keys:
        src = _get_cms(db, key)
        if src.width != dest.width or src.depth != dest.depth:
            raise CommandError(_core.CMS_ERR_SHAPE)
        sources.append(src)
    # RedisBloom multiplies each source's total as an *unsigned* 64-bit count:
    # a total that has wrapped negative overflows with any non-zero weight.
    if any(src.total < 0 and w for src, w in zip(sources, weights)):
        raise CommandError(_core.CMS_ERR_MERGE_OVERFLOW)
    _core_call(dest.merge, sources, weights)
    return b"OK"


@command("cms.info", -1)
def cms_info(db: Engine, args: list[bytes]) -> Any:
    if len(args) != 1:
        raise _arity("cms.info")
    cms = _get_cms(db, args[0])
    return {b"width": cms.width, b"depth": cms.depth, b"count": cms.total}


# -- Top-K ------------------------------------------------------------------------


def _cut(name: Optional[bytes]) -> Optional[bytes]:
    """An item name as RedisBloom sends it: a C string, cut at the first NUL."""
    if name is None:
        return None
    nul = name.find(b"\0")
    return name if nul < 0 else name[:nul]


def _new_seed(db: Engine) -> int:
    return db.topk_seeds().getrandbits(64)


@command("topk.reserve", -1, write=True)
@signals_key
def topk_reserve(db: Engine, args: list[bytes]) -> Any:
    if len(args) not in (2, 5):
        raise _arity("topk.reserve")
    _create(db, args[0], _core.TOPK_ERR_KEY_EXISTS)
    k = _positive(args[1], _core.TOPK_ERR_K)
    decay: Optional[float]
    width, depth, decay = TOPK_DEFAULTS
    if len(args) == 5:
        width = _positive(args[2], _core.TOPK_ERR_WIDTH)
        depth = _positive(args[3], _core.TOPK_ERR_DEPTH)
        decay = parse_score(args[4])
        if decay is None or not 0.0 < decay <= 1.0:
            raise CommandError(_core.TOPK_ERR_DECAY)
    db.store(args[0], _core_call(TopK, k, width, depth, decay, _new_seed(db),
                                 no_memory=_core.TOPK_ERR_NO_MEMORY))
    return b"OK"


@command("topk.add", -1, write=True)
@signals_key
def topk_add(db: Engine, args: list[bytes]) -> Any:
    if len(args) < 2:
        raise _arity("topk.add")
    topk = _get_topk(db, args[0])
    expelled = topk.add(args[1:])
    return [_cut(x) for x in expelled]


@command("topk.incrby", -1, write=True)
@signals_key
def topk_incrby(db: Engine, args: list[bytes]) -> Any:
    items, raw = _pairs(args, "topk.incrby")
    topk = _get_topk(db, args[0])
    increments: list[int] = []
    for text in raw:
        value = parse_int(text)
        if value is None or not 0 <= value <= _core.TOPK_MAX_INCREMENT:
            break
        increments.append(value)
    bad = len(increments) < len(items)
    if bad and len(increments) < len(items) - 1:
        # RedisBloom would send a malformed reply here: a clean error instead.
        raise CommandError(_core.TOPK_ERR_INCREMENT)
    reply: list[Any] = [_cut(x) for x in topk.incrby(items[:len(increments)], increments)] \
        if increments else []
    if bad:  # the last pair: RedisBloom's well-formed reply, error as last element
        reply.append(_parse_error(_core.TOPK_ERR_INCREMENT))
    return reply


@command("topk.query", -1)
def topk_query(db: Engine, args: list[bytes]) -> Any:
    if len(args) < 2:
        raise _arity("topk.query")
    return _get_topk(db, args[0]).query(args[1:])


@command("topk.count", -1)
def topk_count(db: Engine, args: list[bytes]) -> Any:
    if len(args) < 2:
        raise _arity("topk.count")
    return _get_topk(db, args[0]).count(args[1:])


@command("topk.list", -1)
def topk_list(db: Engine, args: list[bytes]) -> Any:
    if len(args) not in (1, 2):
        raise _arity("topk.list")
    withcount = len(args) == 2
    if withcount and not b"WITHCOUNT".startswith(args[1].upper()):
        raise CommandError(_core.TOPK_ERR_WITHCOUNT)
    topk = _get_topk(db, args[0])
    if not withcount:
        return [_cut(x) for x in topk.list()]
    reply: list[Any] = []
    for name, count in topk.list(True):
        reply += [_cut(name), count]
    return reply


@command("topk.info", -1)
def topk_info(db: Engine, args: list[bytes]) -> Any:
    if len(args) != 1:
        raise _arity("topk.info")
    topk = _get_topk(db, args[0])
    return {b"k": topk.k, b"width": topk.width, b"depth": topk.depth, b"decay": topk.decay}
