# script_front_door.pxi -- the compiled front door of Engine.evalsha.
#
# Included by _core.pyx (after dispatch.pxi).  fastrank.Engine binds
# ``engine_evalsha`` as its evalsha.  The common case -- the Lua state exists,
# the script is cached, numkeys is an int in range, every key and argument is
# bytes, str or int, no response callback is set for EVALSHA -- runs the
# cached script under the Engine's lock with no Python frame in between:
# the plan of a straight-line script (script_plans.pxi) or the native path
# of a script fastrank ships (looked up here first), else
# ``run_cached`` of fastrank.engine.commands.scripting (the Lua function); a
# CommandError is raised as the ResponseError redis-py's parser would raise,
# the reply decoded when the Engine decodes.  Anything else goes to
# redis-py's own method (the EVALSHA handler through the dispatch path),
# which gives the same answer, NOSCRIPT included
# (tests/unit/engine/test_evalsha_front_door.py compares the two doors).
# ``ScriptCall`` is the compiled base of fastrank.engine.script.Script: its call, on
# an Engine, enters the front door without a Python frame in between.  It is
# called through the vectorcall protocol (``_script_vectorcall``), so
# redis-py's usual ``script(keys=[...], args=[...])`` builds no keyword dict.

from cpython.object cimport PyTypeObject
from python_extra cimport PyVectorcall_NARGS, fr_type_call, fr_type_use_vectorcall, fr_vectorcallfunc

cdef object _run_cached = None  # fastrank.engine.commands.scripting.run_cached
cdef dict _native = {}          # commands/scripting.py NATIVE_SCRIPTS: SHA1 -> registered native path
cdef object _declined = None    # what a native path returns to leave the call to Lua


def script_front_door_setup(run_cached, dict native, declined):
    """Hand over the scripting command's ``run_cached`` and the table of native
    paths run_cached consults (fastrank.engine.commands.scripting)."""
    global _run_cached, _native, _declined
    _run_cached, _native, _declined = run_cached, native, declined


cdef object _script_engine = None      # fastrank.Engine: its evalsha is engine_evalsha
cdef object _script_pipeline = None    # fastrank.engine.pipeline.Pipeline
cdef object _is_redis_pipeline = None  # fastrank.engine.script: isinstance of redis-py's Pipeline
cdef object _NoScriptError = None


def script_object_setup(script_cls, engine_cls, pipeline_cls, is_redis_pipeline, noscript_error):
    """Hand over what ``ScriptCall.__call__`` tells clients apart with
    (fastrank.engine.script), and have ``script_cls`` (fastrank.engine.script.Script, a
    subclass of ScriptCall) called through vectorcall as ScriptCall is.
    A class made by a ``class`` statement takes the vectorcall flag from
    its base only from Python 3.12, and only when made after the flag is
    set, hence the explicit call. A subclass that defines ``__call__`` keeps
    the ordinary call (Python leaves the flag off then)."""
    global _script_engine, _script_pipeline, _is_redis_pipeline, _NoScriptError
    if not issubclass(script_cls, ScriptCall):
        raise TypeError("script_cls must be a subclass of ScriptCall")
    cdef ScriptCall probe = ScriptCall.__new__(ScriptCall)
    cdef Py_ssize_t offset = <char *>&probe._vectorcall - <char *><PyObject *>probe
    _script_engine, _script_pipeline = engine_cls, pipeline_cls
    _is_redis_pipeline, _NoScriptError = is_redis_pipeline, noscript_error
    fr_type_use_vectorcall(<PyTypeObject *>ScriptCall, offset)
    fr_type_use_vectorcall(<PyTypeObject *>script_cls, offset)


cdef object _KEYS = "keys"
cdef object _ARGS = "args"
cdef object _CLIENT = "client"


cdef object _script_vectorcall(PyObject *callable, PyObject **argv, size_t nargsf, PyObject *kwnames):
    """``ScriptCall.__call__(keys=None, args=None, client=None)`` through
    vectorcall: the arguments read from the stack and the keyword names'
    tuple.  Any other form of call (more than three arguments, an unknown
    or repeated name) goes to the type's ordinary call, for its errors."""
    cdef Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), i, nkw = 0, slot
    cdef PyObject *given[3]
    given[0] = given[1] = given[2] = NULL
    if nargs <= 3:
        for i in range(nargs):
            given[i] = argv[i]
        if kwnames != NULL:
            nkw = PyTuple_GET_SIZE(<object>kwnames)
        for i in range(nkw):
            name = <object>PyTuple_GET_ITEM(<object>kwnames, i)
            if name is _KEYS or name == _KEYS:
                slot = 0
            elif name is _ARGS or name == _ARGS:
                slot = 1
            elif name is _CLIENT or name == _CLIENT:
                slot = 2
            else:
                break
            if given[slot] != NULL:
                break
            given[slot] = argv[nargs + i]
        else:
            return (<ScriptCall>callable)._call(
                None if given[0] == NULL else <object>given[0],
                None if given[1] == NULL else <object>given[1],
                None if given[2] == NULL else <object>given[2])
    if kwnames != NULL:
        nkw = PyTuple_GET_SIZE(<object>kwnames)
    positional = tuple([<object>argv[i] for i in range(nargs)])
    keywords = {<object>PyTuple_GET_ITEM(<object>kwnames, i): <object>argv[nargs + i] for i in range(nkw)}
    return fr_type_call(<object>callable, positional, keywords)


@cython.auto_pickle(False)
cdef class ScriptCall:
    """The compiled base of fastrank.engine.script.Script (beside redis-py's Script):
    its ``__call__`` is redis-py's (EVALSHA; on NOSCRIPT, SCRIPT LOAD and
    EVALSHA again), registering with fastrank's and redis-py's pipelines; on
    a fastrank.Engine it enters the front door directly.  The client and the
    SHA1 that redis-py's ``__init__`` sets are C fields here, and the call is
    the type's own slot (no Python-level ``__call__`` lookup)."""
    cdef public object registered_client
    cdef public object sha
    cdef fr_vectorcallfunc _vectorcall  # _script_vectorcall: how the instance is called

    def __cinit__(self, *args, **kwargs):
        self._vectorcall = <fr_vectorcallfunc>_script_vectorcall

    def __call__(self, keys=None, args=None, client=None):
        return self._call(keys, args, client)

    cdef object _call(self, keys, args, client):
        if type(keys) is list and (args is None or type(args) is list):  # one list, no tuples
            words = keys if not args else <list>keys + <list>args
        else:
            keys = keys or []
            words = tuple(keys) + tuple(args or ())
        if client is None:
            client = self.registered_client
        elif type(client) is _script_pipeline:
            client.scripts.add(self)
        elif _is_redis_pipeline(client):
            client.scripts.add(self)
        numkeys = len(keys)
        try:
            if type(client) is _script_engine:
                return _evalsha(client, self.sha, numkeys, words)
            return client.evalsha(self.sha, numkeys, *words)
        except _NoScriptError:
            self.sha = client.script_load(self.script)
            return client.evalsha(self.sha, numkeys, *words)


def engine_evalsha(self, sha, numkeys, *keys_and_args):
    """Engine.evalsha: EVALSHA sha numkeys key... arg...; O(1) to find the
    script, then the script's own cost."""
    return _evalsha(self, sha, numkeys, keys_and_args)


# The last SHA1 text an EVALSHA named and its bytes (a Script object names its
# script by the same str every call: it is encoded, and hashed, once).
cdef object _last_sha_text = None
cdef bytes _last_sha_key = None


cdef object _evalsha(object self, object sha, object numkeys, object keys_and_args):
    """engine_evalsha, for callers that hold the arguments as a tuple or a list."""
    global _last_sha_text, _last_sha_key
    cdef EngineState st = _state_of(self)
    cdef PyObject *hit
    lua = self._lua
    if sha is _last_sha_text:
        key = _last_sha_key
    elif type(sha) is str:
        key = PyUnicode_AsUTF8String(sha)
        _last_sha_text, _last_sha_key = sha, key
    else:
        key = sha
    args = None
    callbacks = st.callbacks
    if lua is not None and type(key) is bytes and type(numkeys) is int \
            and 0 <= numkeys <= len(keys_and_args) \
            and not (PyDict_Contains(callbacks, "EVALSHA") if PyDict_Check(callbacks)
                     else "EVALSHA" in callbacks):
        args = _plain_words(keys_and_args, numkeys)
    if args is None:
        return _GENERIC.evalsha(self, sha, numkeys, *keys_and_args)
    cdef dict scripts = lua.scripts
    st.lock.enter()
    try:
        hit = PyDict_GetItemWithError(scripts, key)
        if hit == NULL:  # not cached: NOSCRIPT the generic way
            return _GENERIC.evalsha(self, sha, numkeys, *keys_and_args)
        entry = <object>hit
        try:
            plan = entry[2]  # run_cached's first choices, inlined: a plan, a native path
            reply = _declined
            if plan is not None:  # its writes went through _call, which wakes blocked pops
                reply = run_plan(<ScriptPlan>plan, self, st, key, numkeys, args, entry[1] is True)
            if reply is _declined:
                native = _native.get(key) if not entry[1] else None
                reply = _declined if native is None else native(self, args[:numkeys], args[numkeys:])
                if reply is _declined:
                    reply = _run_cached(self, lua, key, entry, numkeys, args, False)
                if self._waiters:
                    self.wake_waiters()
        except _CommandError as err:
            raise _parse_error(err.line) from None
        if st.decode:
            reply = _decode(st, reply)
        return reply
    finally:
        st.lock.leave()
