# board_entries.pxi -- a slice of a leaderboard's reply turned into its entries.
#
# Included by _core.pyx.  fastrank.Leaderboard reads a slice of a board (a
# ZRANGE ... WITHSCORES reply, or the flat list range.lua answers) and makes
# one ``Entry`` (rank, player, points, None, info) per member: the member
# decoded as text, the points out of the composite score, the rank in the
# board's style.  This is that loop in C.  It is a pure function of the reply
# -- the same for every backend (Engine, Redis, Cluster) -- and knows nothing
# of the Engine; the leaderboard keeps the rules (fastrank._scorebits for the
# score layout).  O(len(items)).

from cpython.long cimport PyLong_FromDouble
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.math cimport floor as _entry_floor


def board_entries(entry_type, list items, bint flat, double scale, points_of, str style,
                  Py_ssize_t start, Py_ssize_t first, infos, info_of):
    """The entries of a slice of a board in rank order.

    ``items``: (member, score) pairs, or with ``flat`` member, score,
    member, score...; a score is a float or its text. ``scale``: 2**time_bits
    (the points are ``floor(score / scale)``), or 0 to read them with
    ``points_of(score)``. ``style``: ``"o"`` (ordinal: rank ``first + i``),
    ``"c"`` (competition) or ``"d"`` (dense); ties share the rank of the
    first of them, ``first`` being the rank of the slice's first entry and
    ``start`` its 0-based position. ``infos``: None, or one entry-data text
    per member, read by ``info_of``.
    """
    cdef Py_ssize_t n = len(items) // 2 if flat else len(items)
    cdef Py_ssize_t i, rank = first
    cdef double score
    cdef bint ordinal = style == "o", competition = style == "c"
    cdef list out = []
    last = None
    new = tuple.__new__
    for i in range(n):
        if flat:
            member, raw = items[2 * i], items[2 * i + 1]
        else:
            member, raw = items[i]
        if scale:
            score = PyFloat_AS_DOUBLE(raw) if type(raw) is float else float(raw)
            points = PyLong_FromDouble(_entry_floor(score / scale))
        else:
            points = points_of(raw)
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
        info = None if infos is None else info_of(infos[i])
        out.append(new(entry_type, (rank, player, points, None, info)))
    return out
