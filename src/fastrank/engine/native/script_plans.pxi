# script_plans.pxi -- running a straight-line script's plan without Lua.
#
# Included by _core.pyx (after dispatch.pxi, whose ``_call`` it uses, and
# before script_front_door.pxi, which runs plans).  fastrank.engine.lua.plans
# reads a script made only of ``redis.call`` statements with literal, KEYS[i]
# and ARGV[i] arguments into a ``ScriptPlan``: one ``PlanStep`` per call (its
# argument template and the source line of the call).  Running a plan does
# what the Lua bridge (fastrank.engine.lua.sandbox) does for each call -- the same
# checks in the same order, then the Engine's one dispatch path -- and
# converts the last reply as the Lua round trip would: the common shapes
# here, the rest by fastrank.engine.lua.plans.lua_round_trip.  A ZINCRBY step
# marked ``rank_next`` (a ZRANK or ZREVRANK of the same key and member comes
# next: the leaderboard's "add points, tell me my place") moves the member
# with fr_zset_set_score_ranked on a skip-list zset and hands the rank it
# read off the move's walk to the next step, which then skips its descent;
# in any other case both steps run as usual.  A plan declines
# (returns the declined sentinel, and the Lua function runs) before running
# anything when a KEYS/ARGV index is beyond what the call passed.

cimport cython
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF

cdef object _plan_declined = None     # what run_plan returns to leave the call to Lua
cdef object _plan_round_trip = None   # fastrank.engine.lua.plans.lua_round_trip
cdef object _plan_error = None        # fastrank.engine.lua.plans.script_error
cdef str _plan_write_refused = ""     # the bridge's error for a write in a read-only script
cdef double _PLAN_TWO63 = 9223372036854775808.0


def script_plans_setup(declined, round_trip, script_error, str write_refused):
    """Hand over the declined sentinel and the Python pieces of the rare paths
    (fastrank.engine.lua.plans)."""
    global _plan_declined, _plan_round_trip, _plan_error, _plan_write_refused
    _plan_declined, _plan_round_trip, _plan_error = declined, round_trip, script_error
    _plan_write_refused = write_refused


@cython.final
@cython.auto_pickle(False)
cdef class PlanStep:
    """One ``redis.call`` of a plan.  ``words``: the argument template, each
    item the bytes of a literal, ``i > 0`` for KEYS[i] or ``-i`` for ARGV[i];
    ``refusal``: the error the bridge raises before running this call
    (unknown command, wrong arity, not allowed in scripts) or None; ``write``:
    the command writes; ``maybe_status``: a bytes reply may be a status reply
    (decided per call, on the final argv); ``line``: the call's source line;
    ``rank_next``: on a ZINCRBY, 1 (2) when the next step is ZRANK (ZREVRANK)
    of the same key and member, else 0."""
    cdef readonly tuple words
    cdef readonly bytes word
    cdef readonly object refusal
    cdef readonly bint write
    cdef readonly bint maybe_status
    cdef readonly int line
    cdef readonly int rank_next

    def __init__(self, tuple words, bytes word, refusal, bint write, bint maybe_status, int line,
                 int rank_next=0):
        self.words = words
        self.word = word
        self.refusal = refusal
        self.write = write
        self.maybe_status = maybe_status
        self.line = line
        self.rank_next = rank_next


@cython.final
@cython.auto_pickle(False)
cdef class ScriptPlan:
    """The compiled form of a straight-line script: its steps, the highest
    KEYS and ARGV indexes they read (a call passing fewer declines), and
    whether the script returns the last call's reply (else it answers nil)."""
    cdef readonly tuple steps
    cdef readonly Py_ssize_t max_key
    cdef readonly Py_ssize_t max_arg
    cdef readonly bint returns

    def __init__(self, tuple steps, Py_ssize_t max_key, Py_ssize_t max_arg, bint returns):
        self.steps = steps
        self.max_key = max_key
        self.max_arg = max_arg
        self.returns = returns

    def run(self, db, bytes sha, Py_ssize_t numkeys, list words, bint read_only):
        """Run on db (its lock held by the caller): the script's reply, the
        script's error as CommandError, or the declined sentinel.  O(steps)
        plus each command's own cost."""
        return run_plan(self, db, _state_of(db), sha, numkeys, words, read_only)


cdef inline list _plan_argv(tuple template, list words, Py_ssize_t numkeys):
    """The argv of one call: literals as they are, KEYS[i] and ARGV[i] from words."""
    cdef Py_ssize_t n = PyTuple_GET_SIZE(template), i, index
    cdef list argv = PyList_New(n)
    cdef object item
    for i in range(n):
        item = <object>PyTuple_GET_ITEM(template, i)
        if type(item) is int:
            index = <Py_ssize_t>item
            item = words[index - 1] if index > 0 else words[numkeys - index - 1]
        Py_INCREF(item)
        PyList_SET_ITEM(argv, i, item)
    return argv


cdef bint _incr_ranked(object db, EngineState st, list argv, bint reverse, long long *rank) except -1:
    """ZINCRBY key increment member, then the member's rank (reverse: from the
    top) in ``rank``: True when done here -- a member already on a skip-list
    zset without TTL, a plain decimal increment that leaves a number -- the
    rank read off the move's own walk (or one descent when the member keeps
    its place); False, nothing done, for every other case (the two commands
    then run as usual, with their own errors)."""
    cdef double delta, current, score
    cdef uint64_t ranks[2]
    cdef fr_zset *s
    cdef fr_zset_ref r
    cdef SortedSet z = _zincrby_target(st, argv, &delta)
    if z is None:
        return False
    s = z._s
    member = argv[3]
    r = fr_zset_find(s, PyBytes_AS_STRING(member), <size_t>PyBytes_GET_SIZE(member))
    if r == FR_ZSET_NIL:
        return False
    current = fr_zset_score(s, r)
    score = current + delta
    if score != score:  # inf + -inf: ZINCRBY's own error
        return False
    if score != current:
        if fr_zset_set_score_ranked(s, r, score, ranks) != 0:
            raise MemoryError()
    else:  # too small to change a large score: the place is unchanged
        ranks[1] = fr_zset_rank(s, r)
    if db._observed:
        db.written(argv[1])
    rank[0] = <long long>(fr_zset_len(s) - ranks[1]) if reverse else <long long>ranks[1] - 1
    return True


cdef object run_plan(ScriptPlan plan, object db, EngineState st, bytes sha, Py_ssize_t numkeys,
                     list words, bint read_only):
    """ScriptPlan.run, for the front door without a method lookup (st: db's state)."""
    cdef PlanStep step
    cdef list argv = None
    cdef object reply = None
    cdef double d
    cdef long long rank = 0
    cdef bint ranked = False  # the step before read this step's rank already
    if numkeys < plan.max_key or PyList_GET_SIZE(words) - numkeys < plan.max_arg:
        return _plan_declined
    for item in plan.steps:
        step = <PlanStep>item
        if ranked:  # a ZRANK/ZREVRANK of valid arity, not a write: no check to run
            reply, ranked = rank, False
            continue
        argv = _plan_argv(step.words, words, numkeys)
        if step.refusal is not None:
            raise _plan_error(step.refusal, sha, step.line)
        if step.write and read_only:
            raise _plan_error(_plan_write_refused, sha, step.line)
        if step.rank_next and _incr_ranked(db, st, argv, step.rank_next == 2, &rank):
            ranked = True
            continue
        try:
            reply = _call(db, st, argv)
        except _CommandError as err:
            raise _plan_error(err.line, sha, step.line) from None
        except Exception as exc:  # not an error reply: the bridge's error_text words it
            text = ("ERR " + str(exc)).encode("utf-8", "replace").decode("utf-8", "replace")
            raise _plan_error(text, sha, step.line) from None
    if not plan.returns:
        return None
    # the last reply, as Lua hands it back (RESP2 conversion, then the script's reply)
    kind = type(reply)
    if kind is bytes:
        if step.maybe_status:
            return _plan_round_trip(step.word, argv, reply)
        return reply
    if kind is int:  # through a Lua number (a double), then C's cast to long long
        d = <double>reply
        if d >= _PLAN_TWO63 or d < -_PLAN_TWO63:
            return -9223372036854775807 - 1
        return <long long>d
    if reply is None:
        return None
    return _plan_round_trip(step.word, argv, reply)
