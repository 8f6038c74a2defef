# point_reads.pxi -- GET, HGET, SISMEMBER, EXISTS and the TTL family,
# compiled: the point reads hot loops call most.
#
# Included by _core.pyx after engine/native/dispatch.pxi (it uses that file's
# ``_lookup_type``).  These handlers are the one definition of their
# commands: fastrank.engine.commands.strings, .hashes and .sets register them in the
# command table with ``whole_argv`` (``handler(db, argv)``, the command word
# first) → raw reply, CommandError(WRONGTYPE) for a key of another type
# (``ttl_generic`` is called by the Python TTL handlers); a key with a
# deadline is looked up by ``Engine.lookup_expiring``).  O(1) each (EXISTS:
# O(1) a key).  The clock is ``fastrank.engine.keyspace.now_ms`` (handed over by
# ``point_reads_setup``, read through the module so tests can fix it).

cdef object _keyspace_module = None


def point_reads_setup(keyspace_module):
    """Hand the TTL family the module whose ``now_ms`` is the clock (once)."""
    global _keyspace_module
    _keyspace_module = keyspace_module


def get_command(object db, list argv):
    """GET key: the string, or None."""
    return _lookup_type(db, argv[1], bytes)


def hget_command(object db, list argv):
    """HGET key field: the field's value, or None."""
    h = _lookup_type(db, argv[1], dict)
    if h is None:
        return None
    return (<dict>h).get(argv[2])


def sismember_command(object db, list argv):
    """SISMEMBER key member: 1 when member is in the set, else 0."""
    s = _lookup_type(db, argv[1], set)
    return 1 if s is not None and argv[2] in <set>s else 0


def exists_command(object db, list argv):
    """EXISTS key [key ...] (and TOUCH): how many of the keys are live,
    counting a key named twice twice."""
    cdef Py_ssize_t found = 0, i
    for i in range(1, PyList_GET_SIZE(argv)):
        if _live_value(db, argv[i]) is not None:
            found += 1
    return found


def ttl_generic(object db, object key, bint in_ms, bint absolute):
    """TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for a missing key, -1 for one
    without a deadline, else the time left (rounded to the nearest second
    unless in ms) or the deadline itself when ``absolute``."""
    cdef EngineState st = _state_of(db)
    if _live_value(db, key) is None:
        return -2
    hit = PyDict_GetItemWithError(st.expires, key)
    if hit == NULL:
        return -1
    deadline = <object>hit  # a Python int: no overflow near the int64 ends
    if absolute:
        left = deadline
    else:
        left = max(deadline - _keyspace_module.now_ms(), 0)
    return left if in_ms else (left + 500) // 1000
