# dispatch.pxi -- the Engine's one dispatch path, compiled.
#
# Included by _core.pyx.  Every command an Engine runs passes through here:
# redis-py's command methods end in ``execute_command`` (engine_execute_command),
# pipelines and transactions run each queued command with ``run_packed`` /
# ``call``, and a script's ``redis.call`` uses ``call``.  The stages:
#
#   1. pack    the arguments as redis-py + hiredis put them on the wire
#              (``pack_args``: str → UTF-8, int → decimal, float → repr);
#   2. lookup  the command word → ``Command`` (name, handler, arity, flags):
#              a cache keyed by the exact word in front of the command table,
#              which is keyed by the upper-case word;
#   3. run     arity check, then the handler under the Engine's lock; a write
#              wakes blocked pops;
#   4. shape   decode bytes when ``decode_responses``, then redis-py's
#              response callback for the command (``ResponseCallbacks``: a
#              case-insensitive dict that remembers each name's callback).
#
# A handler is the one definition of its command's rule: Python in
# ``fastrank.engine.commands``, or for the hottest reads compiled next to this file
# (zset_commands.pxi, point_reads.pxi) and registered by its command module.
# This file only moves arguments and replies, and gives the handlers their
# keyspace lookups in C (``_live_value``, ``_lookup_type``).  Other entries:
# the forwarding methods (redis-py methods that only send their parameters),
# the pipeline batch, EXEC's queue, and the helpers pipelines and EVALSHA
# pack with (a pipeline's queue of prepared calls: pipeline_calls.pxi).

from cpython.dict cimport PyDict_Check, PyDict_Contains, PyDict_DelItem, PyDict_GetItemWithError, PyDict_SetItem
from cpython.list cimport PyList_Append, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE
from cpython.unicode cimport PyUnicode_AsUTF8String
cimport cython


@cython.auto_pickle(False)
cdef class Command:
    """One entry of the command table: Redis's name, the handler, arity, flags.

    Arity follows Redis: ``n > 0`` means exactly n words (command included),
    ``n < 0`` at least -n. A handler is given the arguments after the command
    word, or with ``whole_argv`` (the compiled handlers: no list is copied)
    the whole argv, the command word first.
    """
    cdef readonly str name
    cdef readonly object handler
    cdef readonly int arity
    cdef readonly bint write
    cdef readonly bint blocking
    cdef readonly bint whole_argv

    def __init__(self, str name, object handler, int arity, bint write, bint blocking,
                 bint whole_argv=False):
        self.name = name
        self.handler = handler
        self.arity = arity
        self.write = write
        self.blocking = blocking
        self.whole_argv = whole_argv

    def __repr__(self):
        return "Command(%r, arity=%d, write=%r)" % (self.name, self.arity, self.write)


#: The commands whose replies a front door shapes itself (engine_fast.pxi,
#: hash_writes.pxi, zadd_front_door.pxi): their callbacks must stay redis-py's
#: for the front doors to answer.
cdef frozenset _FRONT_DOOR_WORDS = frozenset({"ZSCORE", "ZINCRBY", "ZRANK", "ZREVRANK", "ZRANGE", "ZREVRANGE",
                                               "INCRBY", "HINCRBY", "HSET", "ZADD"})


@cython.auto_pickle(False)
cdef class ResponseCallbacks(dict):
    """redis-py's response callbacks, case-insensitive as its CaseInsensitiveDict
    (keys are kept upper-case), remembering each command name's callback so
    that a reply finds it with one dict lookup.  Every change forgets them,
    and a change to the callback of a command a front door answers turns the
    front doors off for the Engine these callbacks belong to (``attach``)."""
    cdef dict resolved
    cdef EngineState owner

    def __init__(self, data=()):
        self.resolved = {}
        for k, v in dict(data).items():
            dict.__setitem__(self, k.upper(), v)

    def attach(self, EngineState state):
        """Belong to ``state``: its front doors answer while no callback of
        theirs changes."""
        self.owner = state
        state.stock_callbacks = True

    cdef inline void _changed(self, object name):
        self.resolved.clear()
        if self.owner is not None and (name is None or str(name).upper() in _FRONT_DOOR_WORDS):
            self.owner.stock_callbacks = False

    def __contains__(self, k):
        return dict.__contains__(self, k.upper())

    def __getitem__(self, k):
        return dict.__getitem__(self, k.upper())

    def get(self, k, default=None):
        return dict.get(self, k.upper(), default)

    def __setitem__(self, k, v):
        self._changed(k)
        dict.__setitem__(self, k.upper(), v)

    def __delitem__(self, k):
        self._changed(k)
        dict.__delitem__(self, k.upper())

    def pop(self, k, *default):
        self._changed(k)
        return dict.pop(self, k.upper(), *default)

    def setdefault(self, k, default=None):
        self._changed(k)
        return dict.setdefault(self, k.upper(), default)

    def update(self, data=(), **kwargs):
        pairs = dict(data, **kwargs)
        for k in pairs:
            self._changed(k)
        self.resolved.clear()
        for k, v in pairs.items():
            dict.__setitem__(self, k.upper(), v)

    def clear(self):
        self._changed(None)
        dict.clear(self)

    def popitem(self):
        self._changed(None)
        return dict.popitem(self)

    cdef object callback(self, object name):
        """The callback for a command name as given (str or bytes), or None."""
        cdef PyObject *hit = PyDict_GetItemWithError(self.resolved, name)
        if hit != NULL:
            return <object>hit
        found = dict.get(self, name.upper())
        if len(self.resolved) < 4096:
            self.resolved[name] = found
        return found


# Set once by fastrank.engine (``dispatch_setup``): the command table and the
# Python pieces the stages call on the rare paths.
cdef dict _COMMANDS = {}
cdef dict _KNOWN = {}  # exact command word → Command, in front of _COMMANDS
cdef object _CommandError = None
cdef object _parse_error = None
cdef object _unknown_line = None
cdef object _arity_line = None
cdef object _DataError = None
cdef str _WRONGTYPE = ""
cdef object _ResponseError = None
cdef object _EMPTY_RESPONSE = None
cdef object _NEVER_DECODE = None
from fastrank.errors import PACK_ARGUMENT as _PACK_ERROR


def dispatch_setup(dict commands, command_error, parse_error, unknown_line, arity_line,
                   data_error, response_error, str empty_response, str never_decode, generic,
                   str wrongtype):
    """Hand the dispatch path the command table and its error helpers, and the
    front doors redis-py's command methods (``generic``) to decline to (once)."""
    global _COMMANDS, _CommandError, _parse_error, _unknown_line, _arity_line, _DataError
    global _EMPTY_RESPONSE, _NEVER_DECODE, _GENERIC, _ResponseError, _WRONGTYPE
    _ResponseError = response_error
    _WRONGTYPE = wrongtype
    _GENERIC = generic
    _COMMANDS = commands
    _KNOWN.clear()
    _CommandError = command_error
    _parse_error = parse_error
    _unknown_line = unknown_line
    _arity_line = arity_line
    _DataError = data_error
    _EMPTY_RESPONSE = empty_response
    _NEVER_DECODE = never_decode


# -- 1. pack -------------------------------------------------------------------

cdef inline bytes _pack_one(object arg):
    cdef long long v
    cdef int overflow = 0
    cdef char buf[24]
    kind = type(arg)
    if kind is bytes:
        return <bytes>arg
    if kind is str:
        if PyUnicode_IS_COMPACT_ASCII(arg):  # its characters are its UTF-8 bytes
            return PyBytes_FromStringAndSize(<const char *>PyUnicode_DATA(arg),
                                             PyUnicode_GET_LENGTH(arg))
        return PyUnicode_AsUTF8String(arg)
    if kind is int:
        v = PyLong_AsLongLongAndOverflow(arg, &overflow)
        if not overflow:
            return PyBytes_FromStringAndSize(buf, fr_zset_format_i64(v, buf))
        return b"%d" % arg
    if kind is float:
        return repr(arg).encode()
    if isinstance(arg, (bytearray, memoryview)) or isinstance(arg, bytes):
        return bytes(arg)
    if isinstance(arg, str):
        return str.encode(arg)
    if isinstance(arg, float):
        return repr(arg).encode()
    raise _DataError(_PACK_ERROR)


def pack_args(tuple args):
    """The argument words as redis-py + hiredis put them on the wire: a
    command name with spaces is split into words; bytes as they are, str as
    UTF-8, int in decimal, float by repr; anything else is redis-py's DataError."""
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(args)
    cdef list out = []
    first = <object>PyTuple_GET_ITEM(args, 0)
    if type(first) is str:
        if " " in <str>first:
            out.extend((<str>first).encode().split())
        else:
            out.append(PyUnicode_AsUTF8String(first))
        i = 1
    elif type(first) is bytes and b" " in <bytes>first:
        out.extend((<bytes>first).split())
        i = 1
    else:
        i = 0
    while i < n:
        PyList_Append(out, _pack_one(<object>PyTuple_GET_ITEM(args, i)))
        i += 1
    return out


# -- 2 and 3. lookup and run ------------------------------------------------------

cdef Command _lookup(list argv):
    cdef object word = argv[0]
    cdef PyObject *hit = PyDict_GetItemWithError(_KNOWN, word)
    if hit != NULL:
        return <Command>hit
    found = _COMMANDS.get(word.upper())
    if found is None:
        raise _CommandError(_unknown_line(argv))
    if len(_KNOWN) < 4096:
        _KNOWN[word] = found
    return <Command>found


cdef object _call(object db, EngineState st, list argv):
    """Stage 3, the caller holding db's lock: db's handler for argv (st is db._fast)."""
    global _RUNNING_DB, _RUNNING_STATE
    cdef Command cmd = _lookup(argv)
    cdef Py_ssize_t n = PyList_GET_SIZE(argv)
    if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
        raise _CommandError(_arity_line(cmd.name))
    args = argv if cmd.whole_argv else argv[1:]
    _RUNNING_STATE = <PyObject *>st
    _RUNNING_DB = <PyObject *>db
    try:
        reply = cmd.handler(db, args)
    finally:
        _RUNNING_DB = NULL
        _RUNNING_STATE = NULL
    if cmd.write and db._waiters:
        db._cond.notify_all()
    return reply


def engine_call(self, list argv):
    """Engine.call: run one packed command (lock held by the caller); the raw
    reply, RESP3-shaped as hiredis hands it over, or CommandError."""
    return _call(self, _state_of(self), argv)


def command_for(list argv):
    """The Command argv names, or None when Redis would reject argv before
    running it: unknown command or wrong arity (raises CommandError with
    Redis's line).  What MULTI checks while queueing."""
    cdef Command cmd = _lookup(argv)
    cdef Py_ssize_t n = PyList_GET_SIZE(argv)
    if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity:
        raise _CommandError(_arity_line(cmd.name))
    return cmd


# -- 4. shape ---------------------------------------------------------------------

cdef object _decode(EngineState st, object reply):
    kind = type(reply)
    if kind is bytes:
        return PyUnicode_Decode(PyBytes_AS_STRING(reply), PyBytes_GET_SIZE(reply),
                                st.encoding, st.errors)
    if kind is list:
        return [_decode(st, x) for x in <list>reply]
    if kind is dict:
        return {_decode(st, k): _decode(st, v) for k, v in (<dict>reply).items()}
    return reply


def engine_decode(self, reply):
    """Engine.decode: bytes in a raw reply decoded as hiredis does with
    decode_responses (lists and maps recursively)."""
    return _decode(_state_of(self), reply)


cdef inline object _shape(EngineState st, object callbacks, object command_name, object reply,
                          dict options):
    """Stage 4 with the given callbacks (the Engine's, or a pipeline's own
    when the user replaced them on the pipeline, as redis-py's pipeline
    reads its own ``response_callbacks``)."""
    cdef bint decode = st.decode
    if options:
        if PyDict_Contains(options, _NEVER_DECODE):
            PyDict_DelItem(options, _NEVER_DECODE)
            decode = False
        if PyDict_Contains(options, _EMPTY_RESPONSE):
            PyDict_DelItem(options, _EMPTY_RESPONSE)
        if PyDict_Contains(options, "keys"):
            PyDict_DelItem(options, "keys")
    if decode:
        reply = _decode(st, reply)
    if type(callbacks) is ResponseCallbacks:
        callback = (<ResponseCallbacks>callbacks).callback(command_name)
    else:  # replaced by the user with a plain mapping
        callback = callbacks[command_name] if command_name in callbacks else None
    if callback is None:
        return reply
    if options:
        return callback(reply, **options)
    return callback(reply)


def engine_finish(self, command_name, reply, dict options, callbacks=None):
    """Engine.finish: decode and run the response callback, as redis-py's
    parse_response (``options`` are execute_command's keyword options;
    ``callbacks``: a pipeline's own, None: the Engine's)."""
    cdef EngineState st = _state_of(self)
    return _shape(st, st.callbacks if callbacks is None else callbacks, command_name, reply, options)


cdef dict _NO_OPTIONS = {}  # a call without keyword options (never changed: _shape
                           # only removes the keys it finds)


cdef object _run_locked(object db, object command_name, list argv, dict options,
                        object callbacks):
    """Stages 2-4 for a packed command: the handler under the Engine's lock
    (taken here), then the reply shaped for redis-py (outside the lock) with
    ``callbacks`` (None: the Engine's); an error reply raised as redis-py
    raises it, or EMPTY_RESPONSE's value."""
    cdef EngineState st = _state_of(db)
    st.lock.enter()
    try:
        reply = _call(db, st, argv)
    except _CommandError as err:
        if PyDict_Contains(options, _EMPTY_RESPONSE):
            return options[_EMPTY_RESPONSE]
        raise _parse_error(err.line) from None
    finally:
        st.lock.leave()
    return _shape(st, st.callbacks if callbacks is None else callbacks, command_name, reply,
                  options)


def engine_run_packed(self, command_name, list argv, dict options, callbacks=None):
    """Engine.run_packed: one packed command with redis-py's reply handling
    (``callbacks``: a pipeline's own, None: the Engine's); an error reply is
    raised as redis-py raises it. (The lock is re-entrant: pipelines call
    this while holding it.)"""
    return _run_locked(self, command_name, argv, options, callbacks)


def engine_execute_command(self, *args, **options):
    """Engine.execute_command: what redis-py's command methods end in."""
    return _run_locked(self, args[0], pack_args(args), options, None)


# -- the keyspace lookup every handler starts with ---------------------------------

cdef object _live_value(object db, object key):
    return _live_in(_state_of(db), db, key)


cdef inline object _live_in(EngineState st, object db, object key):
    """``_live_value`` for a caller that holds the Engine's state already."""
    cdef PyObject *v = PyDict_GetItemWithError(st.data, key)
    if v == NULL:
        return None
    if st.expires and PyDict_Contains(st.expires, key):
        return db.lookup_expiring(key)
    return <object>v


def engine_lookup(self, key):
    """Engine.lookup: the live value at key, or None. A key with a deadline
    goes to ``Engine.lookup_expiring`` (which deletes it once expired)."""
    return _live_value(self, key)


cdef object _lookup_type(object db, object key, object kind):
    value = _live_value(db, key)
    if value is not None and type(value) is not kind:
        raise _CommandError(_WRONGTYPE)
    return value


def engine_lookup_type(self, key, kind):
    """Engine.lookup_type: the live value at key if it is of type ``kind``
    (exactly); None if missing; else WRONGTYPE (CommandError)."""
    return _lookup_type(self, key, kind)


# -- a pipeline's batch --------------------------------------------------------------

def engine_run_batch(self, list stack, list packed, callbacks=None):
    """The commands of a pipeline without transaction, in turn (lock held by
    the caller): each reply as ``run_packed`` gives it, or the ResponseError
    it raised. ``stack`` holds (args, options), ``packed`` their argv or None
    for one redis-py answers itself (packed again here: its error is raised).
    ``callbacks``: the pipeline's own response callbacks when they are not
    the Engine's (None: the Engine's)."""
    cdef EngineState st = _state_of(self)
    return _run_batch(self, st, stack, packed, st.callbacks if callbacks is None else callbacks)


cdef list _run_batch(object db, EngineState st, list stack, list packed, object callbacks):
    cdef list out = PyList_New(0)
    cdef Py_ssize_t i
    cdef tuple args
    cdef dict options
    for i in range(PyList_GET_SIZE(stack)):
        args, options = stack[i]
        argv = packed[i]
        if argv is None:
            argv = pack_args(args)
        try:
            reply = _call(db, st, argv)
        except _CommandError as err:
            if PyDict_Contains(options, _EMPTY_RESPONSE):
                out.append(options[_EMPTY_RESPONSE])
                continue
            exc = _parse_error(err.line)
            if not isinstance(exc, _ResponseError):
                raise exc from None
            out.append(exc)
            continue
        try:
            out.append(_shape(st, callbacks, args[0], reply, options))
        except _ResponseError as exc:
            out.append(exc)
    return out


def engine_callbacks(self, list stack, list response, callbacks=None):
    """The replies of an EXEC read back as redis-py's pipeline does: each
    reply that is not an exception through its command's response callback
    (called with the command's options but ``keys``). ``callbacks``: the
    pipeline's own when they are not the Engine's (None: the Engine's)."""
    cdef list out = []
    cdef Py_ssize_t i
    cdef dict options
    if callbacks is None:
        callbacks = _state_of(self).callbacks
    for i in range(len(response)):
        reply = response[i]
        if isinstance(reply, Exception):
            out.append(reply)
            continue
        args, options = stack[i]
        if type(callbacks) is ResponseCallbacks:
            callback = (<ResponseCallbacks>callbacks).callback(args[0])
        else:
            callback = callbacks[args[0]] if args[0] in callbacks else None
        if callback is not None:
            if options:
                options = dict(options)
                options.pop("keys", None)
            reply = callback(reply, **options) if options else callback(reply)
        out.append(reply)
    return out


def engine_exec_queue(self, list queue):
    """The queued commands of an EXEC, in turn (lock held by the caller): each
    raw reply, or the ResponseError an error reply becomes (Redis runs the
    rest of the queue after an error)."""
    cdef list out = []
    cdef EngineState st = _state_of(self)
    for argv in queue:
        try:
            out.append(_call(self, st, argv))
        except _CommandError as err:
            out.append(_parse_error(err.line))
    return out


# -- methods that only forward their arguments ------------------------------------

def forwarding_method(str name, str word, int fixed, bint rest, generic):
    """An Engine method for a redis-py method (``generic``) whose body only
    sends its parameters, in order, as the arguments of command ``word``:
    ``fixed`` positional parameters, plus any number more when ``rest``. It
    enters the dispatch path directly (no keyword options to pass: the reply
    shaping is the same); a call with keywords or another count of arguments
    takes redis-py's method, so both answer alike."""
    cdef bytes packed_word = word.encode()

    def method(self, *args, **kwargs):
        cdef Py_ssize_t n = len(args)
        if kwargs or n < fixed or (n > fixed and not rest) or n == 0:
            return generic(self, *args, **kwargs)
        return _forward(self, word, packed_word, args)

    method.__name__ = name
    method.__qualname__ = "Engine." + name
    method.__doc__ = generic.__doc__
    method.__wrapped__ = generic  # inspect.signature shows redis-py's parameters
    return method


# The last key a script call or a forwarded call named as str and its bytes:
# a caller names its board by the same str every call, which is then
# encoded, and hashed, once.
cdef object _last_key_text = None
cdef bytes _last_key_bytes = None


cdef object _forward(object db, str word, bytes packed_word, tuple args):
    return _run_locked(db, word, _argv_of(packed_word, args), _NO_OPTIONS, None)


cdef list _argv_of(bytes packed_word, tuple args):
    """[packed_word, *args packed]: what pack_args makes of (word, *args).
    The first argument (the key) given as the same str as the call before
    reuses its bytes (``_last_key_text``)."""
    global _last_key_text, _last_key_bytes
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(args)
    cdef list argv = PyList_New(n + 1)
    Py_INCREF(packed_word)
    PyList_SET_ITEM(argv, 0, packed_word)
    for i in range(n):  # (on an error the slots not yet set are NULL: freed as such)
        word = <object>PyTuple_GET_ITEM(args, i)
        if i == 0 and type(word) is str:
            if word is not _last_key_text:
                arg = _pack_one(word)
                _last_key_text, _last_key_bytes = word, arg
            else:
                arg = _last_key_bytes
        else:
            arg = _pack_one(word)
        Py_INCREF(arg)
        PyList_SET_ITEM(argv, i + 1, arg)
    return argv


cdef frozenset _NOT_QUEUED = frozenset({"multi", "exec", "discard", "watch"})


def plain_transaction(list packed):
    """True when MULTI would queue every command of ``packed`` as it is: all
    sent (no None), known, of the right arity, none of MULTI, EXEC, DISCARD
    or WATCH. A pipeline's transaction then needs no per-command bookkeeping."""
    cdef Command cmd
    cdef Py_ssize_t n
    for argv in packed:
        if argv is None:
            return False
        hit = PyDict_GetItemWithError(_KNOWN, (<list>argv)[0])
        if hit == NULL:
            return False  # not seen yet, or unknown: the full path decides
        cmd = <Command>hit
        n = PyList_GET_SIZE(argv)
        if (cmd.arity > 0 and n != cmd.arity) or n < -cmd.arity or cmd.name in _NOT_QUEUED:
            return False
    return True


def first_error(list response):
    """The index of the first ResponseError in a pipeline's replies, or -1."""
    return _first_error(response)


cdef Py_ssize_t _first_error(list response) except -2:
    cdef Py_ssize_t i
    for i in range(len(response)):
        if isinstance(response[i], _ResponseError):
            return i
    return -1




cdef list _plain_words(object words, Py_ssize_t numkeys):
    """The words (a tuple or a list) as packed bytes when each is bytes, str
    or int (the common arguments of a script call), else None; the first
    numkeys are keys (a str key repeated from the call before is reused)."""
    global _last_key_text, _last_key_bytes
    cdef list out = []
    cdef long long v
    cdef int overflow = 0
    cdef char buf[24]
    cdef Py_ssize_t i = 0
    for word in words:
        kind = type(word)
        if kind is bytes:
            out.append(word)
        elif kind is str:
            if i < numkeys:
                if word is not _last_key_text:
                    _last_key_text, _last_key_bytes = word, PyUnicode_AsUTF8String(word)
                out.append(_last_key_bytes)
            else:
                out.append(PyUnicode_AsUTF8String(word))
        elif kind is int:
            v = PyLong_AsLongLongAndOverflow(word, &overflow)
            if overflow:
                out.append(b"%d" % word)
            else:
                out.append(PyBytes_FromStringAndSize(buf, fr_zset_format_i64(v, buf)))
        else:
            return None
        i += 1
    return out


def plain_words(words):
    """The words (a tuple or a list) as packed bytes when each is bytes, str
    or int (the common arguments of a script call), else None."""
    return _plain_words(words, 0)
