# zset_commands.pxi -- the sorted-set read commands, compiled: their handlers
# and the Engine's front doors for them.
#
# Included by _core.pyx after engine/native/dispatch.pxi (it calls that file's cdef
# helpers).  The handlers are the one definition of ZCARD, ZSCORE, ZRANK,
# ZREVRANK, ZCOUNT, ZLEXCOUNT,
# ZMSCORE and the ZRANGE family (ZRANGE, ZRANGESTORE, ZREVRANGE and the
# BYSCORE / BYLEX commands): fastrank.engine.commands.sortedset registers them in the
# command table with ``whole_argv`` (``handler(db, argv)``, the command word
# first, so the dispatch path copies no list; ``zrange_generic``, which Python
# handlers call, takes the arguments after the word) → raw reply,
# CommandError for an error reply.  The common argument forms are read here
# in C; every rarer form goes to the Python rule that owns it
# (``_numbers.parse_bound`` for a score bound that is not plain decimal or an
# infinity, ``commands.to_int`` for an integer that is not canonical), so
# each rule is written once.  A zset other than a plain skip list (a
# ListpackZSet, which walks lex ranges its own way) is asked through its
# Python methods, so an override is never bypassed.
#
# ``score_range`` and ``lex_range`` give the same bound readers to the Python
# handlers that need them (ZREMRANGEBYSCORE, ZREMRANGEBYLEX).
#
# The front doors (engine_zcount, engine_zlexcount, engine_zmscore,
# engine_zrangebyscore, ...) are redis-py's methods for these commands, bound
# on fastrank.Engine: they pack the words redis-py would send, run them
# through the dispatch path with the options redis-py passes to its response
# callback, and decline anything unusual to redis-py's own method
# (``_GENERIC``).  engine_zcount first counts, under the lock, bounds given
# as numbers or plain text itself (``_number_bound``).

from libc.math cimport INFINITY
from libc.stdlib cimport strtod
from libc.string cimport memcmp

from fastrank import errors as _zc_err

cdef object _ListpackZSet = None
cdef object _parse_bound = None
cdef object _to_int = None

cdef enum _RangeType:
    _BY_UNSET = -1
    _BY_RANK = 0
    _BY_SCORE = 1
    _BY_LEX = 2

cdef enum _LexEnd:
    _LEX_MEMBER = 0
    _LEX_MIN = 1    # Redis's shared.minstring, ``-``
    _LEX_MAX = 2    # shared.maxstring, ``+``


def zset_commands_setup(listpack_cls, parse_bound, to_int):
    """Hand the handlers the Python pieces they defer to (once, from
    fastrank.engine.commands.sortedset): the ListpackZSet class, the full score-bound
    parser and the integer-argument reader."""
    global _ListpackZSet, _parse_bound, _to_int
    _ListpackZSet = listpack_cls
    _parse_bound = parse_bound
    _to_int = to_int


# -- lookup and argument reading ------------------------------------------------------

cdef object _zset_lookup(object db, object key):
    """db.lookup(key) for a zset command: the zset, None when missing or
    expired (an expiring key goes to ``Engine.lookup_expiring``), WRONGTYPE
    for another type."""
    value = _live_value(db, key)
    if value is None:
        return None
    if type(value) is not SortedSet and type(value) is not _ListpackZSet:
        raise _CommandError(_WRONGTYPE)
    return value


cdef inline bint _plain_decimal(const char *p, Py_ssize_t n):
    """p[:n] is ``-?[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?``: text on which C's
    strtod and the Python rule agree."""
    cdef Py_ssize_t i = 0, start
    if i < n and p[i] == c'-':
        i += 1
    start = i
    while i < n and c'0' <= p[i] <= c'9':
        i += 1
    if i == start:
        return False
    if i < n and p[i] == c'.':
        i += 1
        while i < n and c'0' <= p[i] <= c'9':
            i += 1
    if i < n and (p[i] == c'e' or p[i] == c'E'):
        i += 1
        if i < n and (p[i] == c'-' or p[i] == c'+'):
            i += 1
        start = i
        while i < n and c'0' <= p[i] <= c'9':
            i += 1
        if i == start:
            return False
    return i == n


cdef inline bint _small_integer(const char *p, Py_ssize_t n, double *value):
    """p[:n] is ``-?[0-9]{1,15}``: its value, exact in a double (what strtod gives)."""
    cdef Py_ssize_t i = 0
    cdef long long v = 0
    cdef bint neg = n > 0 and p[0] == c'-'
    if neg:
        i = 1
    if n - i < 1 or n - i > 15:
        return False
    while i < n:
        if not (c'0' <= p[i] <= c'9'):
            return False
        v = v * 10 + (p[i] - c'0')
        i += 1
    value[0] = -<double>v if neg else <double>v
    return True


cdef inline bint _plain_bound(const char *p, Py_ssize_t n, double *value, int *exclusive):
    """A score bound's text read in C: an optional ``(``, then plain decimal
    or an infinity; False for any other text (the Python rule decides)."""
    cdef char *end
    exclusive[0] = n > 0 and p[0] == c'('
    if exclusive[0]:
        p += 1
        n -= 1
    if _small_integer(p, n, value):
        return True
    if _plain_decimal(p, n):
        value[0] = strtod(p, &end)
        return end == p + n  # (else a locale's decimal point: the Python rule decides)
    if n == 3 and memcmp(p, b"inf", 3) == 0:
        value[0] = INFINITY
        return True
    if n == 4 and (memcmp(p, b"+inf", 4) == 0 or memcmp(p, b"-inf", 4) == 0):
        value[0] = -INFINITY if p[0] == c'-' else INFINITY
        return True
    return False


cdef int _score_bound(bytes arg, double *value, int *exclusive) except -1:
    """A ZCOUNT / BYSCORE bound (Redis zslParseRange): plain decimal and the
    infinities here, any other text by ``_numbers.parse_bound``."""
    if _plain_bound(PyBytes_AS_STRING(arg), PyBytes_GET_SIZE(arg), value, exclusive):
        return 0
    bound = _parse_bound(arg)
    if bound is None:
        raise _CommandError(_zc_err.MIN_MAX_NOT_FLOAT)
    value[0] = bound[0]
    exclusive[0] = bound[1]
    return 0


cdef int _score_range_of(bytes lo, bytes hi, fr_zset_range *rg) except -1:
    """Both bounds, min first (its error wins)."""
    _score_bound(lo, &rg.min, &rg.minex)
    _score_bound(hi, &rg.max, &rg.maxex)
    return 0


cdef int _lex_item(bytes arg, const char **p, size_t *n, int *exclusive) except -1:
    """A lex bound: _LEX_MIN for ``-`` (below every member), _LEX_MAX for
    ``+`` (above), _LEX_MEMBER for ``(member`` / ``[member`` (p/n point into
    arg); else Redis's error."""
    cdef const char *s = PyBytes_AS_STRING(arg)
    cdef Py_ssize_t size = PyBytes_GET_SIZE(arg)
    if size > 0 and (s[0] == c'+' or s[0] == c'-'):
        if size > 1 and s[1] != 0:
            raise _CommandError(_zc_err.MIN_MAX_NOT_LEX)
        exclusive[0] = 1
        return _LEX_MAX if s[0] == c'+' else _LEX_MIN
    if size > 0 and (s[0] == c'(' or s[0] == c'['):
        exclusive[0] = s[0] == c'('
        p[0] = s + 1
        n[0] = <size_t>(size - 1)
        return _LEX_MEMBER
    raise _CommandError(_zc_err.MIN_MAX_NOT_LEX)


cdef bint _lex_range_of(bytes lo, bytes hi, fr_zset_lexrange *lr) except -1:
    """Both lex bounds, min first (its error wins); False when the range is
    empty by its ends alone (min is ``+`` or max is ``-``)."""
    cdef int a = _lex_item(lo, &lr.min, &lr.minlen, &lr.minex)
    cdef int b = _lex_item(hi, &lr.max, &lr.maxlen, &lr.maxex)
    lr.mininf = a == _LEX_MIN
    lr.maxinf = b == _LEX_MAX
    if lr.mininf:
        lr.min = NULL
        lr.minlen = 0
    if lr.maxinf:
        lr.max = NULL
        lr.maxlen = 0
    return a != _LEX_MAX and b != _LEX_MIN


def score_range(bytes lo, bytes hi):
    """(min, max, min_exclusive, max_exclusive) of a score range (ZCOUNT,
    BYSCORE, ZREMRANGEBYSCORE); Redis's error for a bad bound, min's first."""
    cdef fr_zset_range rg
    _score_range_of(lo, hi, &rg)
    return rg.min, rg.max, rg.minex != 0, rg.maxex != 0


def lex_range(bytes lo, bytes hi):
    """(min, max, min_exclusive, max_exclusive) of a lex range (ZLEXCOUNT,
    BYLEX, ZREMRANGEBYLEX), None for an open end; None for a range empty by
    its ends alone; Redis's error for a bad bound, min's first."""
    cdef fr_zset_lexrange lr
    if not _lex_range_of(lo, hi, &lr):
        return None
    return (_lex_end(lr.min, lr.minlen, lr.mininf), _lex_end(lr.max, lr.maxlen, lr.maxinf),
            lr.minex != 0, lr.maxex != 0)


cdef inline object _lex_end(const char *p, size_t n, int inf):
    """A lex bound as the SortedSet methods take it: bytes, or None for open."""
    return None if inf else PyBytes_FromStringAndSize(p, <Py_ssize_t>n)


cdef long long _int_arg(bytes arg) except? -1:
    """A long argument (Redis string2ll): canonical decimal here, anything
    else by ``commands.to_int`` (which raises Redis's error)."""
    cdef long long v
    if _canonical_i64(arg, &v):
        return v
    return _to_int(arg)


cdef inline bint _is_word(bytes arg, bytes upper):
    """arg is the option word ``upper`` in any case, compared as Redis's
    strcasecmp compares C strings: up to arg's first NUL byte."""
    cdef Py_ssize_t i, n = PyBytes_GET_SIZE(upper)
    cdef const char *a = PyBytes_AS_STRING(arg)
    cdef const char *u = PyBytes_AS_STRING(upper)
    cdef char c
    if PyBytes_GET_SIZE(arg) < n or (PyBytes_GET_SIZE(arg) > n and a[n] != 0):
        return False
    for i in range(n):
        c = a[i]
        if c'a' <= c <= c'z':
            c = c - 32
        if c != u[i]:
            return False
    return True


cdef list _pairs(list items):
    """(member, score) tuples → [member, score] lists, as RESP3 nests them."""
    cdef Py_ssize_t i
    for i in range(PyList_GET_SIZE(items)):
        m, s = items[i]
        items[i] = [m, s]
    return items


# -- the handlers ----------------------------------------------------------------------

def zcard(object db, list argv):
    """ZCARD key: the number of members (0 when missing). O(1)."""
    z = _zset_lookup(db, argv[1])
    return 0 if z is None else len(z)


def zscore(object db, list argv):
    """ZSCORE key member: the score, or None. O(1)."""
    cdef SortedSet z = _zset_lookup(db, argv[1])
    cdef bytes m = argv[2]
    cdef fr_zset_ref r
    if z is None:
        return None
    r = fr_zset_find(z._s, PyBytes_AS_STRING(m), <size_t>PyBytes_GET_SIZE(m))
    if r == FR_ZSET_NIL:
        return None
    return fr_zset_score(z._s, r)


cdef object _rank(object db, list argv, bint reverse):
    cdef SortedSet z = _zset_lookup(db, argv[1])
    cdef bytes m = argv[2]
    cdef uint64_t r
    if z is None:
        return None
    r = fr_zset_rank_of(z._s, PyBytes_AS_STRING(m), <size_t>PyBytes_GET_SIZE(m))
    if r == 0:
        return None
    if reverse:
        return <Py_ssize_t>(fr_zset_len(z._s) - r)
    return <Py_ssize_t>(r - 1)


def zrank(object db, list argv):
    """ZRANK key member: the 0-based rank from the lowest score, or None. O(log n)."""
    return _rank(db, argv, False)


def zrevrank(object db, list argv):
    """ZREVRANK key member: the 0-based rank from the highest score, or None. O(log n)."""
    return _rank(db, argv, True)


def zcount(object db, list argv):
    """ZCOUNT key min max: the bounds are read before the key is looked up.
    O(log n)."""
    cdef fr_zset_range rg
    _score_range_of(argv[2], argv[3], &rg)
    z = _zset_lookup(db, argv[1])
    if z is None:
        return 0
    if type(z) is SortedSet:
        return (<SortedSet>z)._count(&rg)
    return z.count(rg.min, rg.max, min_exclusive=rg.minex, max_exclusive=rg.maxex)


def zlexcount(object db, list argv):
    """ZLEXCOUNT key min max: the bounds are read before the key is looked
    up. O(log n) when all scores are equal."""
    cdef fr_zset_lexrange lr
    cdef bint possible = _lex_range_of(argv[2], argv[3], &lr)
    z = _zset_lookup(db, argv[1])
    if z is None or not possible:
        return 0
    if type(z) is SortedSet:
        return (<SortedSet>z)._count_by_lex(&lr)
    return z.count_by_lex(_lex_end(lr.min, lr.minlen, lr.mininf),
                          _lex_end(lr.max, lr.maxlen, lr.maxinf),
                          min_exclusive=lr.minex, max_exclusive=lr.maxex)


def zmscore(object db, list argv):
    """ZMSCORE key member...: each member's score or None. O(k)."""
    cdef Py_ssize_t i, k = PyList_GET_SIZE(argv) - 2
    cdef list out = PyList_New(k)
    cdef SortedSet s
    cdef fr_zset_ref r
    cdef bytes m
    z = _zset_lookup(db, argv[1])
    for i in range(k):
        if z is None:
            item = None
        elif type(z) is SortedSet:
            s = <SortedSet>z
            m = argv[i + 2]
            r = fr_zset_find(s._s, PyBytes_AS_STRING(m), <size_t>PyBytes_GET_SIZE(m))
            item = None if r == FR_ZSET_NIL else fr_zset_score(s._s, r)
        else:
            item = z.score(argv[i + 2])
        Py_INCREF(item)
        PyList_SET_ITEM(out, i, item)
    return out


cdef object _zrange(object db, list args, Py_ssize_t first, object store, int rangetype,
                    int reverse):
    """Redis's zrangeGenericCommand, args[first:] from the source key on: the reply;
    with ``store`` (ZRANGESTORE) (the (member, score) items, whether they
    are a rank range: the caller builds the destination). rangetype/reverse: _BY_UNSET / -1
    when the options decide (ZRANGE)."""
    cdef Py_ssize_t j = first + 3, n = PyList_GET_SIZE(args)
    cdef bint withscores = False
    cdef long long offset = 0, limit = -1, start = 0, stop = 0
    cdef fr_zset_range rg
    cdef fr_zset_lexrange lr
    cdef bint possible = True
    cdef bytes lo, hi
    while j < n:
        word = args[j]
        if store is None and _is_word(word, b"WITHSCORES"):
            withscores = True
        elif _is_word(word, b"LIMIT") and n - j - 1 >= 2:
            offset = _int_arg(args[j + 1])
            limit = _int_arg(args[j + 2])
            j += 2
        elif reverse == -1 and _is_word(word, b"REV"):
            reverse = 1
        elif rangetype == _BY_UNSET and _is_word(word, b"BYLEX"):
            rangetype = _BY_LEX
        elif rangetype == _BY_UNSET and _is_word(word, b"BYSCORE"):
            rangetype = _BY_SCORE
        else:
            raise _CommandError(_zc_err.SYNTAX)
        j += 1
    if reverse == -1:
        reverse = 0
    if rangetype == _BY_UNSET:
        rangetype = _BY_RANK
    if limit != -1 and rangetype == _BY_RANK:
        raise _CommandError(_zc_err.ZRANGE_LIMIT)
    if withscores and rangetype == _BY_LEX:
        raise _CommandError(_zc_err.ZRANGE_WITHSCORES_BYLEX)
    lo, hi = args[first + 1], args[first + 2]
    if reverse and rangetype != _BY_RANK:
        lo, hi = hi, lo
    if rangetype == _BY_RANK:
        start = _int_arg(lo)
        stop = _int_arg(hi)
    elif rangetype == _BY_SCORE:
        _score_range_of(lo, hi, &rg)
    else:
        possible = _lex_range_of(lo, hi, &lr)
    z = _zset_lookup(db, args[first])
    cdef bint scores = withscores or store is not None
    if z is None or not possible:
        items = []
    elif rangetype == _BY_RANK:
        items = z.range(start, stop, reverse, scores)
    elif rangetype == _BY_SCORE:
        if type(z) is SortedSet:
            items = (<SortedSet>z)._range_by_score(&rg, reverse, offset, limit, scores)
        else:
            items = z.range_by_score(rg.min, rg.max, min_exclusive=rg.minex,
                                     max_exclusive=rg.maxex, reverse=reverse, offset=offset,
                                     count=limit, withscores=scores)
    else:
        if type(z) is SortedSet:
            items = (<SortedSet>z)._range_by_lex(&lr, reverse, offset, limit)
        else:
            items = z.range_by_lex(_lex_end(lr.min, lr.minlen, lr.mininf),
                                   _lex_end(lr.max, lr.maxlen, lr.maxinf),
                                   min_exclusive=lr.minex, max_exclusive=lr.maxex,
                                   reverse=reverse, offset=offset, count=limit)
        if store is not None:
            items = [(m, z.score(m)) for m in items]
    if store is not None:
        return items, rangetype == _BY_RANK
    return _pairs(items) if withscores else items


def zrange_generic(object db, list args, store=None, str rangetype=None, reverse=None):
    """The ZRANGE family (ZRANGE, ZRANGESTORE, ZREVRANGE): ``_zrange`` with
    the range type ("rank", "score", "lex") and direction fixed by the
    command, or None for the options to decide."""
    cdef int kind = _BY_UNSET
    if rangetype is not None:
        kind = {"rank": _BY_RANK, "score": _BY_SCORE, "lex": _BY_LEX}[rangetype]
    return _zrange(db, args, 0, store, kind, -1 if reverse is None else bool(reverse))


def zrangebyscore(object db, list argv):
    """ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]. O(log n + m)."""
    return _zrange(db, argv, 1, None, _BY_SCORE, 0)


def zrevrangebyscore(object db, list argv):
    """ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]. O(log n + m)."""
    return _zrange(db, argv, 1, None, _BY_SCORE, 1)


def zrangebylex(object db, list argv):
    """ZRANGEBYLEX key min max [LIMIT offset count]. O(log n + m) when all
    scores are equal."""
    return _zrange(db, argv, 1, None, _BY_LEX, 0)


def zrevrangebylex(object db, list argv):
    """ZREVRANGEBYLEX key max min [LIMIT offset count]. O(log n + m) when all
    scores are equal."""
    return _zrange(db, argv, 1, None, _BY_LEX, 1)


# -- the front doors ---------------------------------------------------------------------

cdef list _range_argv(bytes word, object name, object a, object b, object start, object num):
    cdef list argv = [word, _pack_one(name), _pack_one(a), _pack_one(b)]
    if start is not None:
        PyList_Append(argv, b"LIMIT")
        PyList_Append(argv, _pack_one(start))
        PyList_Append(argv, _pack_one(num))
    return argv


cdef inline bint _usual_limit(object start, object num):
    """start/num both absent or both given (else redis-py's DataError)."""
    return (start is None) == (num is None)


cdef inline bint _number_bound(object x, double *value, int *exclusive):
    """A ZCOUNT bound given as an int of at most 53 bits, a finite float, or
    bytes or ASCII str that ``_plain_bound`` reads: its value read here, as
    ``_score_bound`` would read the text redis-py packs for it (an int's
    digits, a float's repr, which strtod reads back to the same double).
    False for anything else: the packed path answers it, errors included."""
    cdef long long v
    cdef int overflow = 0
    exclusive[0] = 0
    kind = type(x)
    if kind is int:
        v = PyLong_AsLongLongAndOverflow(x, &overflow)
        if overflow or v > (1LL << 53) or v < -(1LL << 53):
            return False
        value[0] = <double>v
        return True
    if kind is float:
        value[0] = PyFloat_AS_DOUBLE(x)
        return value[0] - value[0] == 0  # finite
    if kind is bytes:
        return _plain_bound(PyBytes_AS_STRING(x), PyBytes_GET_SIZE(x), value, exclusive)
    if kind is str and PyUnicode_IS_COMPACT_ASCII(x):
        return _plain_bound(<const char *>PyUnicode_DATA(x), PyUnicode_GET_LENGTH(x), value, exclusive)
    return False


def engine_zcount(self, name, min, max):
    """Engine.zcount: redis-py's ZCOUNT; counted here in C for a plain
    sorted set without TTL and bounds given as numbers, plain decimal
    text or infinities (``_number_bound``), else through the packed path."""
    cdef EngineState st = _state_of(self)
    cdef fr_zset_range rg
    cdef SortedSet z
    key = _fast_key(name)
    if key is not None and st.stock_callbacks and _number_bound(min, &rg.min, &rg.minex) \
            and _number_bound(max, &rg.max, &rg.maxex):
        st.lock.enter()
        try:
            z = _zset_at(st, key)
            if z is not None and type(z) is SortedSet:
                return z._count(&rg)
        finally:
            st.lock.leave()
    return _run_locked(self, "ZCOUNT",
                       [b"ZCOUNT", _pack_one(name), _pack_one(min), _pack_one(max)],
                       _NO_OPTIONS, None)


def engine_zlexcount(self, name, min, max):
    """Engine.zlexcount: redis-py's ZLEXCOUNT."""
    return _run_locked(self, "ZLEXCOUNT",
                       [b"ZLEXCOUNT", _pack_one(name), _pack_one(min), _pack_one(max)],
                       _NO_OPTIONS, None)


def engine_zmscore(self, key, members):
    """Engine.zmscore: redis-py's ZMSCORE for a non-empty list of members."""
    if type(members) is not list or not members:
        return _GENERIC.zmscore(self, key, members)
    cdef list argv = [b"ZMSCORE", _pack_one(key)]
    for m in <list>members:
        PyList_Append(argv, _pack_one(m))
    return _run_locked(self, "ZMSCORE", argv, _NO_OPTIONS, None)


cdef object _STOCK_PAIRS = False  # redis-py's callback of the by-score ranges; False: not yet seen


cdef object _stock_pairs():
    """redis-py's default response callback for ZRANGEBYSCORE (None if this
    redis-py has no such function: the front doors then always call the
    callback)."""
    global _STOCK_PAIRS
    if _STOCK_PAIRS is False:
        from redis._parsers import helpers
        _STOCK_PAIRS = getattr(helpers, "zset_score_pairs_resp3_to_resp2_legacy", None)
    return _STOCK_PAIRS


cdef object _enter_scored(object db, str word, list argv, object withscores,
                          object score_cast_func):
    """_run_locked for a by-score range. With redis-py's own callback and a float
    cast (or no scores) the reply is shaped here as that callback does:
    members as they are, scores as (member, score) tuples (the callback's
    float of the score's %.17g text is the score itself)."""
    cdef EngineState st = _state_of(db)
    cdef Py_ssize_t i
    callbacks = st.callbacks
    if type(callbacks) is not ResponseCallbacks \
            or (<ResponseCallbacks>callbacks).callback(word) is not _stock_pairs() \
            or (withscores and score_cast_func is not _PyFloat):
        return _run_locked(db, word, argv, {"withscores": withscores,
                                            "score_cast_func": score_cast_func}, None)
    st.lock.enter()
    try:
        reply = _call(db, st, argv)
    except _CommandError as err:
        raise _parse_error(err.line) from None
    finally:
        st.lock.leave()
    if st.decode:
        reply = _decode(st, reply)
    if withscores:
        for i in range(PyList_GET_SIZE(reply)):
            item = (<list>reply)[i]
            (<list>reply)[i] = ((<list>item)[0], (<list>item)[1])
    return reply


def engine_zrangebyscore(self, name, min, max, start=None, num=None, withscores=False,
                         score_cast_func=float):
    """Engine.zrangebyscore: redis-py's ZRANGEBYSCORE."""
    if not _usual_limit(start, num) or (withscores is not True and withscores is not False):
        return _GENERIC.zrangebyscore(self, name, min, max, start, num, withscores,
                                      score_cast_func)
    cdef list argv = _range_argv(b"ZRANGEBYSCORE", name, min, max, start, num)
    if withscores:
        PyList_Append(argv, b"WITHSCORES")
    return _enter_scored(self, "ZRANGEBYSCORE", argv, withscores, score_cast_func)


def engine_zrevrangebyscore(self, name, max, min, start=None, num=None, withscores=False,
                            score_cast_func=float):
    """Engine.zrevrangebyscore: redis-py's ZREVRANGEBYSCORE."""
    if not _usual_limit(start, num) or (withscores is not True and withscores is not False):
        return _GENERIC.zrevrangebyscore(self, name, max, min, start, num, withscores,
                                         score_cast_func)
    cdef list argv = _range_argv(b"ZREVRANGEBYSCORE", name, max, min, start, num)
    if withscores:
        PyList_Append(argv, b"WITHSCORES")
    return _enter_scored(self, "ZREVRANGEBYSCORE", argv, withscores, score_cast_func)


def engine_zrangebylex(self, name, min, max, start=None, num=None):
    """Engine.zrangebylex: redis-py's ZRANGEBYLEX."""
    if not _usual_limit(start, num):
        return _GENERIC.zrangebylex(self, name, min, max, start, num)
    return _run_locked(self, "ZRANGEBYLEX",
                       _range_argv(b"ZRANGEBYLEX", name, min, max, start, num), _NO_OPTIONS,
                       None)


def engine_zrevrangebylex(self, name, max, min, start=None, num=None):
    """Engine.zrevrangebylex: redis-py's ZREVRANGEBYLEX."""
    if not _usual_limit(start, num):
        return _GENERIC.zrevrangebylex(self, name, max, min, start, num)
    return _run_locked(self, "ZREVRANGEBYLEX",
                       _range_argv(b"ZREVRANGEBYLEX", name, max, min, start, num),
                       _NO_OPTIONS, None)
