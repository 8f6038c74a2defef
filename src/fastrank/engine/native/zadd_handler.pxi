# zadd_handler.pxi -- ZADD's handler, its common case compiled.
#
# Included by _core.pyx after engine/native/zincrby_handler.pxi (it reads scores with
# that file's ``_plain_increment``).  fastrank.engine.commands.sortedset registers
# ``zadd_command`` in the command table with ``whole_argv``, so ZADD sent by
# a pipeline, a script's ``redis.call``, a script plan or ``execute_command``
# pays no Python frame in its common case: a few pairs (at most
# ZADD_FEW_PAIRS, from zadd_front_door.pxi), no flags, every score a plain
# decimal (``-?digits[.digits]``, read with C's strtod as Redis reads it),
# the key a skip-list SortedSet without TTL.  Pairs are added one by one with
# fr_zset_add, as ZADD's member-by-member path adds them (a member given its
# current score changes nothing, -0.0 is kept as given, later duplicates
# win); every score is read before the first pair is added.  Everything
# else -- flags (a flag word is never a plain decimal), other score forms, a
# missing key, a listpack, a TTL, more pairs, an odd count -- goes to the
# Python handler that owns the rule (handed over by ``zadd_setup``).

cdef object _zadd_python = None  # fastrank.engine.commands.sortedset.zadd (args after the word)


def zadd_setup(python_handler):
    """Hand over the Python ZADD handler every uncommon case goes to."""
    global _zadd_python
    _zadd_python = python_handler


def zadd_command(object db, list argv):
    """ZADD key score member [score member ...]: the number of members
    added. O(m log n) for m pairs."""
    cdef EngineState st = _state_of(db)
    cdef Py_ssize_t n = PyList_GET_SIZE(argv), pairs = (n - 2) // 2, i, added = 0
    cdef double scores[ZADD_FEW_PAIRS]
    cdef PyObject *v
    cdef SortedSet z
    cdef int rc
    cdef bint changed = False
    key = argv[1]
    if n % 2 or pairs > ZADD_FEW_PAIRS or type(key) is not bytes:
        return _zadd_python(db, argv[1:])
    v = PyDict_GetItemWithError(st.data, key)
    if v == NULL or type(<object>v) is not SortedSet or not _no_ttl(st, key):
        return _zadd_python(db, argv[1:])
    for i in range(pairs):
        score = argv[2 + 2 * i]
        if type(score) is not bytes or type(argv[3 + 2 * i]) is not bytes \
                or not _plain_increment(<bytes>score, &scores[i]):
            return _zadd_python(db, argv[1:])
    z = <SortedSet>v
    for i in range(pairs):
        member = argv[3 + 2 * i]
        rc = fr_zset_add(z._s, PyBytes_AS_STRING(member), <size_t>PyBytes_GET_SIZE(member),
                         scores[i], 0)
        if rc < 0:
            if changed and db._observed:
                db.written(key)
            raise MemoryError()
        if rc:
            changed = True
            added += rc == 1
    if changed and db._observed:
        db.written(key)
    return added
