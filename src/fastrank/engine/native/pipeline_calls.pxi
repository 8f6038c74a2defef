# pipeline_calls.pxi -- a pipeline's queue of prepared calls, compiled.
#
# Included by _core.pyx after dispatch.pxi.  ``PipelineCalls`` is the
# compiled base of fastrank.engine.pipeline.Pipeline: its state lives in C
# fields, and each call it queues is kept twice, as redis-py keeps it in
# ``command_stack`` ((args, options): what the reply shaping, the error
# annotation and the user see) and as the argv the dispatch path runs,
# packed when it was queued.  ``execute()`` then hands the prepared argv to
# the same stages as a direct call (dispatch.pxi: lookup, the command's one
# handler under the lock, reply shaping).
#
# A call is packed when queued only when packing it at ``execute()`` would
# give the same words and raise nothing: every argument of an exact
# immutable type (bytes, str, int, float) and no EMPTY_RESPONSE option.
# Anything else (a bytearray the caller may still change, a value redis-py
# refuses with DataError at execute, an entry the user put in
# ``command_stack`` directly) is packed at ``execute()``, as before.

from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM


cdef inline bint _immutable_words(tuple args, Py_ssize_t start):
    cdef Py_ssize_t i
    for i in range(start, PyTuple_GET_SIZE(args)):
        kind = type(<object>PyTuple_GET_ITEM(args, i))
        if kind is not bytes and kind is not str and kind is not int and kind is not float:
            return False
    return True


cdef object _prepared_argv(tuple args, dict options):
    """args packed now, or None to pack them at execute()."""
    if options and PyDict_Contains(options, _EMPTY_RESPONSE):
        return None
    if PyTuple_GET_SIZE(args) == 0 or not _immutable_words(args, 0):
        return None
    try:
        return pack_args(args)
    except UnicodeError:  # a str with a lone surrogate: redis-py's error at execute()
        return None


cdef object _prepared_forward(bytes packed_word, tuple args):
    """(word, *args) packed now, as ``_forward`` packs them, or None."""
    if not _immutable_words(args, 0):
        return None
    try:
        return _argv_of(packed_word, args)
    except UnicodeError:
        return None


cdef tuple _with_word(str word, tuple args):
    """(word, *args), built in one tuple."""
    cdef Py_ssize_t i, n = PyTuple_GET_SIZE(args)
    cdef tuple out = PyTuple_New(n + 1)
    Py_INCREF(word)
    PyTuple_SET_ITEM(out, 0, word)
    for i in range(n):
        arg = <object>PyTuple_GET_ITEM(args, i)
        Py_INCREF(arg)
        PyTuple_SET_ITEM(out, i + 1, arg)
    return out


@cython.auto_pickle(False)
cdef class PipelineCalls:
    """The compiled base of fastrank.engine.pipeline.Pipeline: redis-py's
    Pipeline state (``command_stack``, ``transaction``, ``watching``, ...)
    in C fields, and the queue of prepared calls beside ``command_stack``."""
    cdef public object _engine
    cdef public object transaction
    cdef public bint explicit_transaction
    cdef public bint watching
    cdef public bint _dirty
    cdef public list command_stack
    cdef public object response_callbacks
    cdef public object scripts             # register_script objects called on this pipeline
    cdef public dict _watching             # watched key -> already expired when watched
    cdef public object _event_dispatcher
    cdef list _prepared                    # flat: the entry, then its argv or None, per call

    def __init__(self, engine, transaction=True):
        self._engine = engine
        self.transaction = transaction
        self.explicit_transaction = False
        self.watching = False
        self._dirty = False
        self.command_stack = []
        self._prepared = []
        self.response_callbacks = _state_of(engine).callbacks  # engine.response_callbacks
        self.scripts = set()
        self._watching = {}
        self._event_dispatcher = engine._event_dispatcher

    def __len__(self):
        return len(self.command_stack)

    def __bool__(self):
        return True

    cdef inline void _queue(self, tuple args, dict options, object argv):
        entry = (args, options)
        self.command_stack.append(entry)
        self._prepared.append(entry)
        self._prepared.append(argv)

    def execute_command(self, *args, **options):
        """As redis-py's Pipeline: queue the command (in WATCH's immediate
        mode, run it now)."""
        if (self.watching or args[0] == "WATCH") and not self.explicit_transaction:
            return self.immediate_execute_command(*args, **options)
        self._queue(args, options, _prepared_argv(args, options))
        return self

    def clear_calls(self):
        """Empty the queue (``reset`` and ``execute`` end with it)."""
        self.command_stack = []
        self._prepared = []

    def packed_calls(self):
        """The argv of each queued call, as ``pack_args`` makes it (prepared
        when queued, else packed now), or None for one redis-py answers
        itself (EMPTY_RESPONSE). A DataError raises before anything runs."""
        cdef list stack = self.command_stack
        cdef list prepared = self._prepared
        cdef list out = PyList_New(0)
        cdef Py_ssize_t i, n = PyList_GET_SIZE(stack), m = PyList_GET_SIZE(prepared)
        cdef dict options
        for i in range(n):
            entry = stack[i]
            if 2 * i + 1 < m and prepared[2 * i] is entry:
                argv = prepared[2 * i + 1]
                if argv is not None:
                    out.append(argv)
                    continue
            args, options = entry
            if PyDict_Contains(options, _EMPTY_RESPONSE):
                out.append(None)
            else:
                out.append(pack_args(args))
        return out


    def execute(self, raise_on_error=True):
        """Run the queued commands; their replies (redis-py's Pipeline.execute).

        A plain pipeline (no transaction, no WATCH, no scripts to load) runs
        its prepared calls here, under the Engine's lock, each through its
        command's handler and reply shaping as a direct call; anything else
        is ``execute_general``'s (fastrank.engine.pipeline)."""
        cdef list stack = self.command_stack
        if self.transaction or self.explicit_transaction or self.watching or self.scripts \
                or self._watching or not stack:
            return self.execute_general(raise_on_error)
        cdef EngineState st = _state_of(self._engine)
        try:
            packed = self.packed_calls()
            st.lock.enter()
            try:
                responses = _run_batch(self._engine, st, stack, packed, self.response_callbacks)
            finally:
                st.lock.leave()
            if raise_on_error and _first_error(responses) >= 0:
                self.raise_first_error(stack, responses)
        finally:
            self.command_stack = []
            self._prepared = []
        return responses


def queueing_method(str name, str word, int fixed, bint rest, generic):
    """The Pipeline twin of ``forwarding_method``: queues (word, *arguments)
    as redis-py's method would (its reply callback options are the same),
    prepared, and returns the pipeline. In WATCH's immediate mode, with
    keywords or another count of arguments, redis-py's method runs instead."""
    cdef bytes packed_word = word.encode()

    def method(self, *args, **kwargs):
        cdef Py_ssize_t n = len(args)
        cdef PipelineCalls pipe = <PipelineCalls?>self
        if kwargs or n < fixed or (n > fixed and not rest) or n == 0 \
                or (pipe.watching and not pipe.explicit_transaction):
            return generic(self, *args, **kwargs)
        pipe._queue(_with_word(word, args), _NO_OPTIONS, _prepared_forward(packed_word, args))
        return self

    method.__name__ = name
    method.__qualname__ = "Pipeline." + name
    method.__doc__ = generic.__doc__
    method.__wrapped__ = generic
    return method
