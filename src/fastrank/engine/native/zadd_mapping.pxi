# zadd_mapping.pxi -- the pairs of Engine.zadd's mapping, read in one C loop.
#
# Included by _core.pyx.  fastrank.Engine.zadd hands a plain dict to
# ``zadd_mapping_pairs`` (a ``ZaddColumns``' two lists to
# ``zadd_column_pairs``), which walks it once and returns the members as
# bytes and the scores as a float64 array, ready for ZADD's handler; or None
# when some pair is not of the plain kinds (the Engine then takes redis-py's
# own method, whose packing checks and refuses what it must).  The checks are
# made in the order redis-py packs a pair (the score, then the member), so
# a str member that cannot be encoded raises UnicodeEncodeError where
# redis-py's packing would.

from cpython.dict cimport PyDict_Next
from cpython.unicode cimport PyUnicode_AsUTF8String


cdef bint _put_pair(list members, double[::1] scores, Py_ssize_t i, object member,
                    object score) except -1:
    """Slot i of the two outputs from one pair, checked as redis-py packs it
    (the score, then the member); False when the pair is not of the plain
    kinds: a score that is not a finite float or an int of magnitude below
    1e300, a member that is not bytes, str or int (exact types)."""
    cdef double value
    kind = type(score)
    if kind is float:
        value = PyFloat_AS_DOUBLE(score)
    elif kind is int and -1e300 < score < 1e300:
        value = float(score)
    else:
        return False
    if value - value != 0.0:  # inf or NaN
        return False
    kind = type(member)
    if kind is str:
        member = PyUnicode_AsUTF8String(member)
    elif kind is int:
        member = b"%d" % member
    elif kind is not bytes:
        return False
    Py_INCREF(member)
    PyList_SET_ITEM(members, i, member)
    scores[i] = value
    return True


def zadd_mapping_pairs(dict mapping):
    """(members as a list of bytes, scores as a float64 array) of a ZADD
    mapping, or None if a score is not a finite float or an int of magnitude
    below 1e300, or a member is not bytes, str or int (exact types).  O(n).

    >>> zadd_mapping_pairs({"a": 1, b"b": 2.5, 7: -1.0})
    ([b'a', b'b', b'7'], array([ 1. ,  2.5, -1. ]))
    >>> zadd_mapping_pairs({"a": float("inf")}) is None
    True
    """
    cdef Py_ssize_t pos = 0, i = 0, n = len(mapping)
    cdef PyObject *kp
    cdef PyObject *vp
    cdef list members = PyList_New(n)
    cdef object out = np.empty(n, dtype=np.float64)
    cdef double[::1] scores = out
    while PyDict_Next(mapping, &pos, &kp, &vp):
        if i >= n:
            raise RuntimeError("dictionary changed size during iteration")
        if not _put_pair(members, scores, i, <object>kp, <object>vp):
            return None
        i += 1
    if i != n:
        raise RuntimeError("dictionary changed size during iteration")
    return members, out


def zadd_column_pairs(list members, list scores):
    """``zadd_mapping_pairs`` of pairs given as two lists of the same length
    (a ``fastrank.service.columns.ZaddColumns``), with the same checks in the same
    order; None also when the lengths differ.  O(n).

    >>> zadd_column_pairs([b"a", "b"], [1, 2.5])
    ([b'a', b'b'], array([1. , 2.5]))
    """
    cdef Py_ssize_t i, n = len(members)
    cdef list out_members
    cdef object out
    cdef double[::1] out_scores
    if len(scores) != n:
        return None
    out_members = PyList_New(n)
    out = np.empty(n, dtype=np.float64)
    out_scores = out
    for i in range(n):
        if not _put_pair(out_members, out_scores, i, members[i], scores[i]):
            return None
    return out_members, out
