# _entries.pyx -- fastrank.leaderboard._entries: a slice of a leaderboard's reply turned
# into its entries.
#
# A compiled module of its own, apart from the Engine's core (fastrank._core):
# the leaderboard, which speaks to every backend alike, imports it and never
# the core.  fastrank.Leaderboard reads a slice of a board (a
# ZRANGE ... WITHSCORES reply, or the flat list range.lua answers) and makes
# one ``Entry`` (rank, player, points, None, info) per member: the member
# decoded as text, the points out of the composite score, the rank in the
# board's style.  This is that loop in C.  It is a pure function of the reply
# -- the same for every backend (Engine, Redis, Cluster) -- and knows nothing
# of the Engine; the leaderboard keeps the rules (fastrank.leaderboard.scorebits for the
# score layout).  O(len(items)).

# cython: language_level=3
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_FromDouble
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM
from cpython.object cimport PyTypeObject
from python_extra cimport PyType_GenericAlloc
from libc.string cimport memcmp, strlen
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.math cimport floor as _entry_floor
from libc.stdlib cimport free, malloc, qsort


cdef extern from "Python.h":
    double PyOS_string_to_double(const char *s, char **endptr, object overflow_exception) except? -1.0


cdef inline bint _whole_text(const char *p, Py_ssize_t n, double *out):
    """p[:n] is -?digits, at most 19 of them (what %.17g prints for a whole
    score below 10**17, every composite score): its value in out, rounded
    to the nearest double as strtod rounds it (an integer below 2**64 converts
    exactly rounded). Python's own text-to-float, which handles any form,
    costs several times more on 16 digits."""
    cdef Py_ssize_t i = 1 if n > 0 and p[0] == c'-' else 0
    cdef unsigned long long v = 0
    if n - i < 1 or n - i > 19:
        return False
    for i in range(i, n):
        if not c'0' <= p[i] <= c'9':
            return False
        v = v * 10 + <unsigned long long>(p[i] - c'0')
    out[0] = -<double>v if p[0] == c'-' else <double>v
    return True


cdef inline double _score_value(object raw) except? -1.0:
    """A score: a float, or its text as a script returns it."""
    cdef double score = 0.0
    if type(raw) is float:
        return PyFloat_AS_DOUBLE(raw)
    if type(raw) is bytes and _whole_text(PyBytes_AS_STRING(raw), PyBytes_GET_SIZE(raw), &score):
        return score
    if type(raw) is bytes and <Py_ssize_t>strlen(PyBytes_AS_STRING(raw)) == PyBytes_GET_SIZE(raw):
        try:  # a plain decimal (float() would accept more: ask it then)
            return PyOS_string_to_double(PyBytes_AS_STRING(raw), NULL, None)
        except ValueError:
            pass
    return float(raw)


cdef inline object _score_points(object raw, double scale):
    """floor(score / scale) as an int; the score a float or its text."""
    return PyLong_FromDouble(_entry_floor(_score_value(raw) / scale))


cdef inline object _entry(object entry_type, bint plain, object rank, object player, object points,
                          object global_rank, object info):
    """entry_type(rank, player, points, global_rank, info), made as tuple.__new__ makes it."""
    if not plain:
        return tuple.__new__(entry_type, (rank, player, points, global_rank, info))
    row = PyType_GenericAlloc(<PyTypeObject *>entry_type, 5)
    Py_INCREF(rank)
    PyTuple_SET_ITEM(row, 0, rank)
    Py_INCREF(player)
    PyTuple_SET_ITEM(row, 1, player)
    Py_INCREF(points)
    PyTuple_SET_ITEM(row, 2, points)
    Py_INCREF(global_rank)
    PyTuple_SET_ITEM(row, 3, global_rank)
    Py_INCREF(info)
    PyTuple_SET_ITEM(row, 4, info)
    return row


def board_entries(entry_type, list items, bint flat, double scale, points_of, str style,
                  Py_ssize_t start, Py_ssize_t first, infos, info_of, global_ranks):
    """The entries of a slice of a board in rank order.

    ``items``: (member, score) pairs, or with ``flat`` member, score,
    member, score...; a score is a float or its text. ``scale``: 2**time_bits
    (the points are ``floor(score / scale)``), or 0 to read them with
    ``points_of(score)``. ``style``: ``"o"`` (ordinal: rank ``first + i``),
    ``"c"`` (competition) or ``"d"`` (dense); ties share the rank of the
    first of them, ``first`` being the rank of the slice's first entry and
    ``start`` its 0-based position. ``infos``: None, or one entry-data text
    per member, read by ``info_of``. ``global_ranks``: None, or the fourth
    field of each entry (friends' ranks on the whole board). ``entry_type``: a NamedTuple of five
    fields, made as ``tuple.__new__(entry_type, fields)`` makes it.
    """
    cdef Py_ssize_t n = len(items) // 2 if flat else len(items)
    cdef Py_ssize_t i, rank = first
    cdef bint ordinal = style == "o", competition = style == "c"
    # A tuple subclass with no fields of its own is allocated directly (its tp_alloc).
    cdef bint plain = (isinstance(entry_type, type) and issubclass(entry_type, tuple)
                       and entry_type.__basicsize__ == tuple.__basicsize__
                       and entry_type.__itemsize__ == tuple.__itemsize__)
    cdef list out = []
    last = None
    for i in range(n):
        if flat:
            member, raw = items[2 * i], items[2 * i + 1]
        else:
            member, raw = items[i]
        points = _score_points(raw, scale) if scale else points_of(raw)
        if type(member) is bytes:
            player = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(member), PyBytes_GET_SIZE(member),
                                          "surrogateescape")
        elif type(member) is str:
            player = member
        else:
            player = member.decode("utf-8", "surrogateescape")
        if ordinal:
            rank = first + i
        elif i and points != last:
            rank = start + i + 1 if competition else rank + 1
        last = points
        out.append(_entry(entry_type, plain, rank, player, points,
                          None if global_ranks is None else global_ranks[i],
                          None if infos is None else info_of(infos[i])))
    return out


cdef bint _same_pairs(list a, list b) except -1:
    """a == b for two lists of (member, score) pairs: bytes members and float
    scores compared in C (their bytes and their values), anything else by
    ``==``. O(len(a))."""
    cdef Py_ssize_t i, n = PyList_GET_SIZE(a)
    if PyList_GET_SIZE(b) != n:
        return False
    for i in range(n):
        x = <object>PyList_GET_ITEM(a, i)
        y = <object>PyList_GET_ITEM(b, i)
        if type(x) is not tuple or type(y) is not tuple \
                or PyTuple_GET_SIZE(x) != 2 or PyTuple_GET_SIZE(y) != 2:
            if x != y:
                return False
            continue
        mx = <object>PyTuple_GET_ITEM(x, 0)
        my = <object>PyTuple_GET_ITEM(y, 0)
        sx = <object>PyTuple_GET_ITEM(x, 1)
        sy = <object>PyTuple_GET_ITEM(y, 1)
        if type(mx) is bytes and type(my) is bytes:
            if PyBytes_GET_SIZE(mx) != PyBytes_GET_SIZE(my) or memcmp(
                    PyBytes_AS_STRING(mx), PyBytes_AS_STRING(my), PyBytes_GET_SIZE(mx)) != 0:
                return False
        elif mx != my:
            return False
        if type(sx) is float and type(sy) is float:
            if PyFloat_AS_DOUBLE(sx) != PyFloat_AS_DOUBLE(sy):
                return False
        elif sx != sy:
            return False
    return True


def board_top_entries(list memo, entry_type, double scale, points_of, str style, list pairs):
    """``board_entries`` of a top slice (position 0, rank 1), remembered in
    ``memo`` (a list: [reply, entries], empty at first) with the reply it was
    made from: the same reply again -- a board whose top did not change --
    gives (a copy of) the same entries without decoding it again.
    O(len(pairs)): one comparison of the two replies."""
    if memo and _same_pairs(<list>memo[0], pairs):
        return list(<list>memo[1])
    entries = board_entries(entry_type, pairs, False, scale, points_of, style, 0, 1, None, None, None)
    memo[:] = [pairs, entries]
    return list(entries)


cdef struct _FriendRow:
    double score
    const char *member
    Py_ssize_t length
    Py_ssize_t index


cdef int _by_score_then_member(const void *a, const void *b) noexcept nogil:
    """The order of a sorted set: score, then member bytes (as bytes compare)."""
    cdef const _FriendRow *x = <const _FriendRow *>a
    cdef const _FriendRow *y = <const _FriendRow *>b
    cdef int c
    if x.score != y.score:
        return -1 if x.score < y.score else 1
    c = memcmp(x.member, y.member, <size_t>(x.length if x.length < y.length else y.length))
    if c:
        return c
    return -1 if x.length < y.length else (1 if x.length > y.length else 0)


cdef int _by_score_then_member_desc(const void *a, const void *b) noexcept nogil:
    return -_by_score_then_member(a, b)


def board_friend_entries(entry_type, list scores, list ranks, list infos, list members, bint desc,
                         double scale, points_of, str style, info_of):
    """friends.lua's reply (``scores``: each member's score text or None when
    absent; ``ranks``: each one's rank on the whole board; ``infos``: each
    one's entry data, or None) as the entries of the members present, in the
    board's order (score, then member bytes; reversed on a descending
    board), ranked among themselves in ``style``, each with its global rank.
    ``members`` are distinct (str or bytes). O(k log k) for k members."""
    cdef Py_ssize_t n = len(members), i, k = 0
    cdef list raw = []  # each member's bytes, kept alive while rows point into them
    cdef _FriendRow *rows = <_FriendRow *>malloc(<size_t>(n if n else 1) * sizeof(_FriendRow))
    if rows == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            if scores[i] is None:
                continue
            member = members[i]
            data = member if type(member) is bytes else member.encode("utf-8", "surrogateescape")
            raw.append(data)
            rows[k].score = _score_value(scores[i])
            rows[k].member = PyBytes_AS_STRING(data)
            rows[k].length = PyBytes_GET_SIZE(data)
            rows[k].index = i
            k += 1
        qsort(rows, <size_t>k, sizeof(_FriendRow),
              _by_score_then_member_desc if desc else _by_score_then_member)
        pairs = [(members[rows[i].index], scores[rows[i].index]) for i in range(k)]
        globals_ = [int(ranks[rows[i].index]) for i in range(k)]
        chosen = None if infos is None else [infos[rows[i].index] for i in range(k)]
    finally:
        free(rows)
    return board_entries(entry_type, pairs, False, scale, points_of, style, 0, 1, chosen, info_of, globals_)
