# hash_writes.pxi -- HINCRBY and HSET, their common cases compiled.
#
# Included by _core.pyx after engine/native/engine_fast.pxi (it uses that file's
# helpers).  Two entries per command:
#
# - the command-table handlers ``hincrby_command`` and ``hset_command``,
#   registered with ``whole_argv`` by fastrank.engine.commands.hashes, so the
#   command sent from a pipeline, a script's ``redis.call``, a script plan or
#   ``execute_command`` pays no Python frame in its common case;
# - the front doors ``engine_hincrby`` and ``engine_hset``, bound as
#   fastrank.Engine's methods (HSET: a field and value and/or a dict).
#
# The common case: exact bytes arguments (front doors: bytes/str key, field
# and value bytes/str/int64), a dict hash without TTL or a missing key (made
# as ``hash_for_write`` makes it: an empty dict with no deadline), and for
# HINCRBY an int64 increment and a stored value that Redis's string2ll reads
# (``_canonical_i64``) whose sum does not overflow; the new value is stored
# as its decimal text.  Everything else -- a TTL, another type, a stored
# value that is not an integer, an overflow, an odd argument count -- goes to
# the Python handler that owns the rule and its errors (handed over by
# ``hash_writes_setup``; the front doors go through redis-py's own method,
# which ends in the same handler).  Nothing is changed before the C path
# knows it will finish.

from cpython.dict cimport PyDict_Contains, PyDict_GetItemWithError, PyDict_SetItem, PyDict_Size
from cpython.list cimport PyList_GET_SIZE
from cpython.long cimport PyLong_FromVoidPtr
from cpython.unicode cimport PyUnicode_AsUTF8String

cdef object _hincrby_python = None  # fastrank.engine.commands.hashes.hincrby (args after the word)
cdef object _hset_python = None  # fastrank.engine.commands.hashes.hset (args after the word)


def hash_writes_setup(hincrby_handler, hset_handler):
    """Hand over the Python HINCRBY and HSET handlers every uncommon case goes to."""
    global _hincrby_python, _hset_python
    _hincrby_python = hincrby_handler
    _hset_python = hset_handler


cdef inline object _fast_field(object x):
    """A field or value as redis-py packs it, for an exact bytes, str (UTF-8
    encodable) or int64 x; None for anything else (the generic path)."""
    cdef long long v = 0
    cdef char buf[24]
    if type(x) is bytes:
        return x
    if type(x) is str:
        try:
            return PyUnicode_AsUTF8String(x)
        except UnicodeEncodeError:
            return None
    if _int64_arg(x, &v):
        return PyBytes_FromStringAndSize(buf, fr_zset_format_i64(v, buf))
    return None


cdef dict _hash_for_write(EngineState st, object key):
    """The dict hash at key (exact bytes) when it has no TTL; for a missing
    key without a deadline a new empty one, stored there.  None otherwise
    (the Python path decides).  The caller signals the key after writing."""
    cdef PyObject *v = PyDict_GetItemWithError(st.data, key)
    cdef dict h
    if v != NULL:
        if type(<object>v) is dict and _no_ttl(st, key):
            return <dict>v
        return None
    if not _no_ttl(st, key):  # a deadline left behind: the Python path
        return None
    h = {}
    PyDict_SetItem(st.data, key, h)
    return h


cdef bint _hincrby_in_c(EngineState st, object key, object field, long long by,
                        long long *out) except -1:
    """HINCRBY's common case (key and field exact bytes): True with the new
    value in out, or False having changed nothing."""
    cdef PyObject *v = PyDict_GetItemWithError(st.data, key)
    cdef PyObject *old_text
    cdef long long old = 0
    cdef char buf[24]
    cdef dict h
    if v != NULL:
        if type(<object>v) is not dict or not _no_ttl(st, key):
            return False
        old_text = PyDict_GetItemWithError(<dict>v, field)
        if old_text != NULL and (type(<object>old_text) is not bytes
                                 or not _canonical_i64(<object>old_text, &old)):
            return False
        if (by > 0 and old > INT64_MAX_LL - by) or (by < 0 and old < INT64_MIN_LL - by):
            return False
        h = <dict>v
    else:
        h = _hash_for_write(st, key)  # a new hash: the field starts at 0
        if h is None:
            return False
    out[0] = old + by
    PyDict_SetItem(h, field, PyBytes_FromStringAndSize(buf, fr_zset_format_i64(out[0], buf)))
    return True


cdef Py_ssize_t _hset_pair(dict h, object field, object text):
    """Set one field of h; 1 when it was added, else 0."""
    cdef Py_ssize_t added = not PyDict_Contains(h, field)
    PyDict_SetItem(h, field, text)
    return added


cdef enum:
    _HASH_LISTPACK_ENTRIES = 512  # Redis 7.0 hash-max-listpack-entries
    _HASH_LISTPACK_VALUE = 64     # hash-max-listpack-value


cdef inline bint _long_word(object word):
    """A field or value (exact bytes) too long for Redis's listpack hash."""
    return PyBytes_GET_SIZE(word) > _HASH_LISTPACK_VALUE


cdef inline void _note_hash_write(object db, dict h, bint long_seen) except *:
    """After a write: Redis's listpack hash converts for good when a word
    longer than 64 bytes went in or it outgrew 512 fields; the Engine
    remembers it (``Keyspace.mark_converted``, read by OBJECT ENCODING).
    A hash already recorded costs a dict look-up, not a method call."""
    cdef PyObject *seen
    if long_seen or PyDict_Size(h) > _HASH_LISTPACK_ENTRIES:
        converted = db._converted
        if type(converted) is dict:
            seen = PyDict_GetItemWithError(converted, PyLong_FromVoidPtr(<void *>h))
            if seen == <PyObject *>h:
                return
        db.mark_converted(h)


def hincrby_command(object db, list argv):
    """HINCRBY key field increment: the new value. O(1)."""
    cdef long long by = 0, new = 0
    key = argv[1]
    field = argv[2]
    amount = argv[3]
    if type(key) is bytes and type(field) is bytes and type(amount) is bytes \
            and _canonical_i64(amount, &by) and _hincrby_in_c(_state_of(db), key, field, by, &new):
        if _long_word(field) or PyDict_Size(_state_of(db).data[key]) > _HASH_LISTPACK_ENTRIES:
            _note_hash_write(db, _state_of(db).data[key], True)
        if db._observed:
            db.written(key)
        return new
    return _hincrby_python(db, argv[1:])


def hset_command(object db, list argv):
    """HSET key field value [field value ...]: the number of fields added.
    O(number of pairs)."""
    cdef Py_ssize_t n = PyList_GET_SIZE(argv), i, added = 0
    cdef dict h
    cdef bint long_seen = False
    key = argv[1]
    if n % 2 or type(key) is not bytes:  # an odd pair: the Python handler's error
        return _hset_python(db, argv[1:])
    for i in range(2, n):
        if type(argv[i]) is not bytes:
            return _hset_python(db, argv[1:])
    h = _hash_for_write(_state_of(db), key)
    if h is None:
        return _hset_python(db, argv[1:])
    for i in range(2, n, 2):
        added += _hset_pair(h, argv[i], argv[i + 1])
        if _long_word(argv[i]) or _long_word(argv[i + 1]):
            long_seen = True
    _note_hash_write(db, h, long_seen)
    if db._observed:
        db.written(key)
    return added


def engine_hincrby(self, name, key, amount=1):
    """Engine.hincrby: C path for a dict hash without TTL (or a missing key)
    and a plain int64 value, else redis-py's method. O(1)."""
    cdef EngineState st = _state_of(self)
    cdef long long by = 0, new = 0
    cdef bint done = False
    k = _fast_key(name)
    if k is None or not st.stock_callbacks or not _int64_arg(amount, &by):
        return _GENERIC.hincrby(self, name, key, amount)
    field = _fast_field(key)
    if field is None:
        return _GENERIC.hincrby(self, name, key, amount)
    st.lock.enter()
    try:
        done = _hincrby_in_c(st, k, field, by, &new)
        if done and (_long_word(field) or PyDict_Size(st.data[k]) > _HASH_LISTPACK_ENTRIES):
            _note_hash_write(self, st.data[k], True)
        if done and self._observed:
            self.written(k)
    finally:
        st.lock.leave()
    if done:
        return new
    return _GENERIC.hincrby(self, name, key, amount)


cdef list _hset_words(object key, object value, object mapping):
    """HSET's field and value words as redis-py packs them (key and value,
    then the mapping's pairs; mapping None or an exact dict), or None when
    there are none or one is not of the plain kinds (the generic path)."""
    cdef list words = []
    if key is not None:
        field = _fast_field(key)
        text = _fast_field(value)
        if field is None or text is None:
            return None
        words.append(field)
        words.append(text)
    if mapping is not None:
        for pair_key, pair_value in (<dict>mapping).items():
            field = _fast_field(pair_key)
            text = _fast_field(pair_value)
            if field is None or text is None:
                return None
            words.append(field)
            words.append(text)
    return words if words else None


def engine_hset(self, name, key=None, value=None, mapping=None, items=None):
    """Engine.hset: C path for a field and value and/or a dict of pairs on a
    dict hash without TTL (or a missing key), else redis-py's method.
    O(number of pairs)."""
    cdef EngineState st
    cdef dict h = None
    cdef list words = None
    cdef Py_ssize_t i, added = 0
    cdef bint long_seen = False
    if items is not None or (mapping is not None and type(mapping) is not dict):
        return _GENERIC.hset(self, name, key, value, mapping, items)
    k = _fast_key(name)
    if mapping is None:  # the commonest call: one field and value, no list
        field = _fast_field(key)
        text = _fast_field(value)
        if field is None or text is None:
            k = None
    else:
        words = _hset_words(key, value, mapping)
        if words is None:
            k = None
    if k is not None:
        st = _state_of(self)
    if k is not None and st.stock_callbacks:
        st.lock.enter()
        try:
            h = _hash_for_write(st, k)
            if h is not None:
                if words is None:
                    added = _hset_pair(h, field, text)
                    long_seen = _long_word(field) or _long_word(text)
                else:
                    for i in range(0, PyList_GET_SIZE(words), 2):
                        added += _hset_pair(h, words[i], words[i + 1])
                        if _long_word(words[i]) or _long_word(words[i + 1]):
                            long_seen = True
                _note_hash_write(self, h, long_seen)
                if self._observed:
                    self.written(k)
        finally:
            st.lock.leave()
        if h is not None:
            return added
    return _GENERIC.hset(self, name, key, value, mapping, items)
