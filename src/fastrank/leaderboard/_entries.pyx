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
# score layout).  O(len(items)).  A friends read also names its members
# here (``friend_members``: the distinct ids, ints told apart as ints), the
# list its entries are made for; and a submit's reply is read here
# (``reply_points``, ``submit_change``: the new points, the ``Change``).

# cython: language_level=3
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_GET_SIZE
from cpython.float cimport PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.long cimport PyLong_FromDouble
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM
from cpython.object cimport PyTypeObject
from python_extra cimport PyType_GenericAlloc
from libc.string cimport memcmp, memcpy, memset, strlen
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.unicode cimport PyUnicode_AsUTF8AndSize, PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.math cimport fabs, floor as _entry_floor
from libc.stdlib cimport free, malloc


cdef extern from "decimal_text.h" nogil:
    enum: FR_DEC_MAX
    size_t fr_dec_i64(long long v, char *buf)


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


cdef object _last_row_type = None  # the entry type _plain_row_type answered last, and its answer
cdef bint _last_row_plain = False


cdef bint _plain_row_type(object entry_type) except -1:
    """entry_type is a tuple subclass with no fields of its own (its rows
    are allocated directly, by its tp_alloc)."""
    global _last_row_type, _last_row_plain
    if entry_type is not _last_row_type:
        _last_row_plain = (isinstance(entry_type, type) and issubclass(entry_type, tuple)
                           and entry_type.__basicsize__ == tuple.__basicsize__
                           and entry_type.__itemsize__ == tuple.__itemsize__)
        _last_row_type = entry_type
    return _last_row_plain


cdef inline object _player_text(object member):
    """A member as an entry's player: a str as is, bytes decoded (UTF-8,
    surrogateescape), an int (friends' ids) as its decimal text."""
    cdef char buf[FR_DEC_MAX]
    cdef int overflow = 0
    cdef long long v
    if type(member) is bytes:
        return PyUnicode_DecodeUTF8(PyBytes_AS_STRING(member), PyBytes_GET_SIZE(member), "surrogateescape")
    if type(member) is str:
        return member
    if type(member) is int:
        v = PyLong_AsLongLongAndOverflow(member, &overflow)
        return str(member) if overflow else PyUnicode_DecodeASCII(buf, <Py_ssize_t>fr_dec_i64(v, buf), NULL)
    return member.decode("utf-8", "surrogateescape")


cdef double _EXACT_LIMIT = 9007199254740992.0  # 2**53: every integer up to it is a double


cdef inline object _reply_points(object text, bint integral):
    """Points a script sent back as text (ScoreCodec.parse_points):
    an int on an integer board (``integral``) and for any whole value up to
    2**53, else a float; the text read as float() reads it."""
    cdef double v = _score_value(text)
    if integral or (v == _entry_floor(v) and fabs(v) <= _EXACT_LIMIT):
        return PyLong_FromDouble(v)
    return PyFloat_FromDouble(v)


def reply_points(text, double scale):
    """Points a script sent back as text (an unranked submit's reply, the
    points of submit_many...), as ``ScoreCodec.parse_points`` answers them
    (it calls this): ``scale`` the codec's, 0 on a board of float points."""
    return _reply_points(text, scale != 0.0)


def submit_change(change_type, reply, double scale):
    """submit.lua's reply to a ranked submit -- [new points as text, rank,
    the rank before (0: the player was new), the members passed] -- as
    ``change_type(points, rank, previous or None, [player...])``, made as
    tuple.__new__ makes it (a NamedTuple of four fields)."""
    new_points, rank, previous, passed = reply
    players = [_player_text(m) for m in passed]
    return tuple.__new__(change_type, (_reply_points(new_points, scale != 0.0), int(rank), int(previous) or None,
                                       players))


cdef inline Py_ssize_t _rank_next(bint ordinal, bint competition, Py_ssize_t i, Py_ssize_t start,
                                  Py_ssize_t first, Py_ssize_t rank, object points, object last) except? -1:
    """The rank of entry i of a slice (``rank``: entry i - 1's; ``last``: its
    points): ``first + i`` when ordinal, else the rank before unless the
    points differ (then ``start + i + 1`` in competition, one more in dense)."""
    if ordinal:
        return first + i
    if i and points != last:
        return start + i + 1 if competition else rank + 1
    return rank


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
    cdef bint plain = _plain_row_type(entry_type)
    cdef list out = []
    last = None
    for i in range(n):
        if flat:
            member, raw = items[2 * i], items[2 * i + 1]
        else:
            member, raw = items[i]
        points = _score_points(raw, scale) if scale else points_of(raw)
        player = _player_text(member)
        rank = _rank_next(ordinal, competition, i, start, first, rank, points, last)
        last = points
        out.append(_entry(entry_type, plain, rank, player, points,
                          None if global_ranks is None else global_ranks[i],
                          None if infos is None else info_of(infos[i])))
    return out


def board_range_entries(entry_type, double scale, points_of, str style, info_of, reply):
    """range.lua's reply -- [start, first rank, [member, score, ...], infos],
    or empty when the player is absent -- as ``board_entries``' rows; the
    infos read by ``info_of``, or ignored when it is None."""
    if not reply:
        return []
    start, first, items, infos = reply
    return board_entries(entry_type, items if type(items) is list else list(items), True, scale, points_of, style,
                         int(start), int(first), None if info_of is None else infos, info_of, None)


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
    const char *member  # its bytes, NULL until a tie on score needs them
    Py_ssize_t length
    Py_ssize_t index


cdef inline bint _row_before(const _FriendRow *a, const _FriendRow *b, bint desc) noexcept nogil:
    """a sorts before b in a sorted set's order (score, then member bytes
    compared as bytes compare; both reversed when ``desc``); rows alike in
    both (no bytes yet, or the same bytes) keep their order in the reply."""
    cdef int c
    if a.score != b.score:
        return a.score > b.score if desc else a.score < b.score
    if a.member != NULL and b.member != NULL:
        c = memcmp(a.member, b.member, <size_t>(a.length if a.length < b.length else b.length))
        if c == 0 and a.length != b.length:
            c = -1 if a.length < b.length else 1
        if c:
            return c > 0 if desc else c < 0
    return a.index < b.index


cdef void _sort_rows(_FriendRow *a, _FriendRow *tmp, Py_ssize_t n, bint desc) noexcept nogil:
    """Merge sort of a[:n] by _row_before (tmp: room for n // 2 rows)."""
    cdef Py_ssize_t i, j, k, half
    cdef _FriendRow x
    if n <= 16:
        for i in range(1, n):
            x = a[i]
            j = i
            while j > 0 and _row_before(&x, &a[j - 1], desc):
                a[j] = a[j - 1]
                j -= 1
            a[j] = x
        return
    half = n // 2
    _sort_rows(a, tmp, half, desc)
    _sort_rows(a + half, tmp, n - half, desc)
    if not _row_before(&a[half], &a[half - 1], desc):
        return
    memcpy(tmp, a, <size_t>half * sizeof(_FriendRow))
    i, j, k = 0, half, 0
    while i < half and j < n:
        if _row_before(&a[j], &tmp[i], desc):
            a[k] = a[j]
            j += 1
        else:
            a[k] = tmp[i]
            i += 1
        k += 1
    while i < half:
        a[k] = tmp[i]
        i += 1
        k += 1


cdef int _sort_by_board_order(_FriendRow *rows, Py_ssize_t k, list members, bint desc) except -1:
    """Sorts rows[:k] (their scores and reply positions set) in the board's
    order: by score first; then each run of equal scores by its members'
    bytes, read only for those (a str's UTF-8, kept by the str itself; with
    lone surrogates, its surrogateescape bytes, kept in a list)."""
    cdef _FriendRow *tmp = <_FriendRow *>malloc(<size_t>(k // 2 + 1) * sizeof(_FriendRow))
    cdef Py_ssize_t i = 0, j, t, n
    cdef const char *p
    cdef list kept = []
    if tmp == NULL:
        raise MemoryError()
    try:
        _sort_rows(rows, tmp, k, desc)
        while i < k:
            j = i + 1
            while j < k and rows[j].score == rows[i].score:
                j += 1
            if j - i > 1:
                for t in range(i, j):
                    member = members[rows[t].index]
                    if type(member) is int:  # friends' ids given as ints: their text's bytes
                        member = str(member).encode()
                        kept.append(member)
                    if type(member) is bytes:
                        p, n = PyBytes_AS_STRING(member), PyBytes_GET_SIZE(member)
                    else:
                        try:
                            p = PyUnicode_AsUTF8AndSize(member, &n)
                        except UnicodeEncodeError:
                            data = member.encode("utf-8", "surrogateescape")
                            kept.append(data)
                            p, n = PyBytes_AS_STRING(data), PyBytes_GET_SIZE(data)
                    rows[t].member, rows[t].length = p, n
                _sort_rows(rows + i, tmp, j - i, desc)
            i = j
    finally:
        free(tmp)
    return 0


def board_friend_entries(entry_type, list scores, list ranks, list infos, list members, bint desc,
                         double scale, points_of, str style, info_of):
    """friends.lua's reply (``scores``: each member's score text or None when
    absent; ``ranks``: each one's rank on the whole board; ``infos``: each
    one's entry data, or None) as the entries of the members present, in the
    board's order (score, then member bytes; reversed on a descending
    board), ranked among themselves in ``style``, each with its global rank.
    ``members`` are distinct (str, bytes or int). The rows are made as
    ``board_entries`` makes them, from the sorted reply. O(k log k) for k
    members."""
    cdef Py_ssize_t n = len(members), i, k = 0, index, rank = 1
    cdef bint ordinal = style == "o", competition = style == "c"
    cdef bint plain = _plain_row_type(entry_type)
    cdef list out = []
    cdef _FriendRow *rows = <_FriendRow *>malloc(<size_t>(n if n else 1) * sizeof(_FriendRow))
    if rows == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            if scores[i] is None:
                continue
            rows[k].score = _score_value(scores[i])
            rows[k].member = NULL
            rows[k].length = 0
            rows[k].index = i
            k += 1
        _sort_by_board_order(rows, k, members, desc)
        last = None
        for i in range(k):
            index = rows[i].index
            points = PyLong_FromDouble(_entry_floor(rows[i].score / scale)) if scale else points_of(scores[index])
            rank = _rank_next(ordinal, competition, i, 0, 1, rank, points, last)
            last = points
            global_rank = ranks[index]
            out.append(_entry(entry_type, plain, rank, _player_text(members[index]), points,
                              global_rank if type(global_rank) is int else int(global_rank),
                              None if infos is None else info_of(infos[index])))
    finally:
        free(rows)
    return out


cdef list _distinct_ints(object player, list ids):
    """``list(dict.fromkeys([player] + ids))`` for ints (of type int
    exactly): their 64-bit values told apart in a small open-addressing
    table in C (a dict hashes and stores each int object); any int past 64
    bits, and the dict does it."""
    cdef Py_ssize_t n = len(ids) + 1, size = 16, i, slot
    cdef int overflow = 0, shift = 60  # 64 - log2(size): the hash's top bits pick the slot
    cdef long long v
    cdef unsigned long long *seen
    cdef unsigned char *used
    cdef list out = []
    while size < 2 * n:
        size *= 2
        shift -= 1
    seen = <unsigned long long *>malloc(<size_t>size * (sizeof(unsigned long long) + 1))
    if seen == NULL:
        raise MemoryError()
    used = <unsigned char *>(seen + size)
    memset(used, 0, <size_t>size)
    try:
        for i in range(n):
            x = player if i == 0 else ids[i - 1]
            v = PyLong_AsLongLongAndOverflow(x, &overflow)
            if overflow:
                return list(dict.fromkeys([player] + ids))
            slot = <Py_ssize_t>(((<unsigned long long>v) * 0x9E3779B97F4A7C15ULL) >> shift)
            while used[slot] and seen[slot] != <unsigned long long>v:
                slot = (slot + 1) & (size - 1)
            if not used[slot]:
                used[slot] = 1
                seen[slot] = <unsigned long long>v
                out.append(x)
    finally:
        free(seen)
    return out


def friend_members(player, friend_ids, player_id):
    """The members a friends read names: ``list(dict.fromkeys([player_id(player)]
    + [player_id(f) for f in friend_ids]))`` (the first of each, in order),
    ``player_id`` the leaderboard's id check. When the player and every
    friend are ints (of type int exactly) the distinct ints themselves, in
    the same order: every client sends an int as its decimal text (str(f),
    what player_id makes of it), the Engine's front door formats it in C,
    and the entries take their player text from it (``_player_text``), so
    no str is made twice. O(k) for k ids."""
    cdef list ids
    if type(player) is int:
        ids = friend_ids if type(friend_ids) is list else list(friend_ids)
        for f in ids:
            if type(f) is not int:
                break
        else:
            return _distinct_ints(player, ids)
        friend_ids = ids
    return list(dict.fromkeys([player_id(player)] + [f if type(f) is str and f else player_id(f)
                                                     for f in friend_ids]))
