# zincrby_handler.pxi -- ZINCRBY's handler, its common case compiled.
#
# Included by _core.pyx after engine/native/zset_commands.pxi.  fastrank.engine.commands.
# sortedset registers ``zincrby_command`` in the command table with
# ``whole_argv`` (the command word first), so ZINCRBY sent by a script's
# ``redis.call``, a script plan, a pipeline or ``execute_command`` pays no
# Python frame in its common case: a skip-list zset without TTL and a plain
# decimal increment (``-?digits[.digits]``) that is finite and not zero.  The
# increment is read with C's strtod, which rounds as Redis's does (and as
# Python's float, which the Python rule uses).  Everything else -- a missing
# key, a listpack, a TTL, another increment form, a result that would be
# NaN -- goes to the Python handler that owns the rule (handed over by
# ``zincrby_setup``), so each rule is written once.

from libc.stdlib cimport strtod as _zi_strtod

cdef object _zincrby_python = None  # fastrank.engine.commands.sortedset.zincrby (args after the word)


def zincrby_setup(python_handler):
    """Hand over the Python ZINCRBY handler every uncommon case goes to."""
    global _zincrby_python
    _zincrby_python = python_handler


cdef inline bint _plain_increment(bytes text, double *out):
    """text is -?digits[.digits] (at most 40 bytes): its strtod value in out."""
    cdef const char *p = PyBytes_AS_STRING(text)
    cdef Py_ssize_t n = PyBytes_GET_SIZE(text), i = 0, digits = 0, fraction = -1
    cdef char *end
    if n == 0 or n > 40:
        return False
    if p[0] == b'-':
        i = 1
    while i < n:
        if b'0' <= p[i] <= b'9':
            digits += 1
        elif p[i] == b'.' and fraction < 0 and digits > 0:
            fraction = digits
        else:
            return False
        i += 1
    if digits == 0 or fraction == digits:  # no digits, or nothing after the point
        return False
    out[0] = _zi_strtod(p, &end)
    return end == p + n


cdef SortedSet _zincrby_target(EngineState st, list argv, double *delta):
    """The skip-list zset ``ZINCRBY key increment member`` acts on in its
    compiled case -- key, increment and member bytes; a plain decimal
    increment, finite and not zero (in ``delta``); the key a skip list
    without TTL -- else None (the Python rule's case)."""
    cdef PyObject *v
    key, amount, member = argv[1], argv[2], argv[3]
    if not (type(key) is bytes and type(amount) is bytes and type(member) is bytes
            and _plain_increment(<bytes>amount, delta) and delta[0] != 0.0 and delta[0] - delta[0] == 0.0):
        return None
    v = PyDict_GetItemWithError(st.data, key)
    if v == NULL or type(<object>v) is not SortedSet or not _no_ttl(st, key):
        return None
    return <SortedSet>v


def zincrby_command(object db, list argv):
    """ZINCRBY key increment member: the new score (a float). O(log n)."""
    cdef double delta, out
    cdef int rc
    cdef SortedSet z = _zincrby_target(_state_of(db), argv, &delta)
    if z is not None:
        member = argv[3]
        rc = fr_zset_incr(z._s, PyBytes_AS_STRING(member), <size_t>PyBytes_GET_SIZE(member),
                          delta, &out, NULL, NULL, NULL)
        if rc < -1:
            raise MemoryError()
        if rc == 0:
            if db._observed:
                db.written(argv[1])
            return out
    return _zincrby_python(db, argv[1:])
