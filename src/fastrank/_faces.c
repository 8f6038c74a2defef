/* fastrank._faces: PlanMethod, the sync face's method of a plan (fastrank.runner.twin),
 * and run, the sync runner of a plan (fastrank.runner.run).
 *
 * PlanMethod(plan, runner) is a method descriptor: board.rank(*args, **kwargs)
 * is runner(board._client, plan(board, *args, **kwargs)). The call arrives as
 * a vectorcall with the object first (Py_TPFLAGS_METHOD_DESCRIPTOR: no bound
 * method is made for obj.name(...)), and the very same argument array and
 * keyword names are handed on to the plan: no tuple or dict of arguments is
 * packed, and no Python frame stands between the caller and the plan. Its
 * __name__, __doc__, __signature__... live in its own __dict__ (set by
 * fastrank.runner), so inspect and help() show the plan's parameters.
 *
 * run(client, plan) is fastrank.runner.run: a one-step plan (a Direct, the
 * 5-tuple (target, first, second, parse, fail) most methods make) is run
 * here -- the command method called, or EVALSHA sent with SCRIPT LOAD and
 * again on NOSCRIPT (evalsha_loading), a ResponseError turned by fail into
 * the method's error (raised "from" it, as `raise fail(exc) from exc`
 * does), the reply read by parse -- with no Python frame in between; a
 * generator plan goes to the step loop fastrank.runner hands over
 * (runner_setup).  fastrank.runner's docstring defines the plans.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

typedef struct {
    PyObject_HEAD
    PyObject *plan;   /* (self, *args, **kwargs) -> a plan */
    PyObject *runner; /* (client, plan) -> the result */
    PyObject *dict;
    vectorcallfunc vectorcall;
} PlanMethod;

static PyObject *client_name; /* "_client", interned */

/* ---- run ---------------------------------------------------------------- */

static PyObject *run_steps;      /* fastrank.runner._run_steps(client, plan): a generator plan */
static PyObject *response_error; /* redis.exceptions.ResponseError */
static PyObject *noscript_error; /* redis.exceptions.NoScriptError */
static PyObject *evalsha_name, *script_load_name, *sha_name, *source_name, *noscript_prefix;

/* 0 when a function of this module got its `want` arguments, else -1 with a TypeError. */
static int check_nargs(const char *signature, Py_ssize_t nargs, Py_ssize_t want) {
    if (nargs == want)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", signature, want, nargs);
    return -1;
}

/* 0 once runner_setup has handed its objects over, else -1 with a RuntimeError. */
static int check_set_up(void) {
    if (run_steps != NULL)
        return 0;
    PyErr_SetString(PyExc_RuntimeError, "fastrank._faces.runner_setup was not called (import fastrank.runner)");
    return -1;
}

/* exc (a ResponseError) says the script is not cached: 1, 0, or -1 on error. */
static int is_noscript(PyObject *exc) {
    int hit = PyObject_IsInstance(exc, noscript_error);
    if (hit != 0)
        return hit;
    PyObject *text = PyObject_Str(exc);
    if (text == NULL)
        return -1;
    Py_ssize_t starts = PyUnicode_Tailmatch(text, noscript_prefix, 0, PY_SSIZE_T_MAX, -1);
    Py_DECREF(text);
    return (int)starts;
}

/* client.evalsha(sha, len(keys), *keys, *args), the words on the stack. */
static PyObject *call_evalsha(PyObject *client, PyObject *sha, PyObject *keys, PyObject *args) {
    Py_ssize_t nk = PySequence_Fast_GET_SIZE(keys), na = PySequence_Fast_GET_SIZE(args), i;
    Py_ssize_t n = 3 + nk + na;
    PyObject *small[48], **stack = n + 1 <= 48 ? small : PyMem_New(PyObject *, n + 1);
    if (stack == NULL)
        return PyErr_NoMemory();
    PyObject *numkeys = PyLong_FromSsize_t(nk);
    PyObject *reply = NULL;
    if (numkeys != NULL) {
        stack[1] = client;  /* stack[0]: the slot PY_VECTORCALL_ARGUMENTS_OFFSET lends the callee */
        stack[2] = sha;
        stack[3] = numkeys;
        for (i = 0; i < nk; i++)
            stack[4 + i] = PySequence_Fast_GET_ITEM(keys, i);
        for (i = 0; i < na; i++)
            stack[4 + nk + i] = PySequence_Fast_GET_ITEM(args, i);
        reply = PyObject_VectorcallMethod(evalsha_name, stack + 1, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        Py_DECREF(numkeys);
    }
    if (stack != small)
        PyMem_Free(stack);
    return reply;
}

/* EVALSHA of script (its .sha) with keys and args on a sync client; on
 * NOSCRIPT, client.script_load(script.source) and EVALSHA again, so each
 * server learns a script once. */
static PyObject *evalsha_loading_impl(PyObject *client, PyObject *script, PyObject *keys, PyObject *args) {
    PyObject *reply = NULL, *sha = NULL;
    PyObject *kf = PySequence_Fast(keys, "a script's keys must be a sequence");
    PyObject *af = kf == NULL ? NULL : PySequence_Fast(args, "a script's arguments must be a sequence");
    if (af == NULL || (sha = PyObject_GetAttr(script, sha_name)) == NULL)
        goto done;
    reply = call_evalsha(client, sha, kf, af);
    if (reply == NULL && PyErr_ExceptionMatches(response_error)) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        int missing = is_noscript(value);
        if (missing == 0) {
            PyErr_Restore(type, value, tb);
            goto done;
        }
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        if (missing < 0)
            goto done;
        PyObject *source = PyObject_GetAttr(script, source_name);
        PyObject *loaded = source == NULL ? NULL : PyObject_CallMethodOneArg(client, script_load_name, source);
        Py_XDECREF(source);
        if (loaded != NULL) {
            Py_DECREF(loaded);
            reply = call_evalsha(client, sha, kf, af);
        }
    }
done:
    Py_XDECREF(sha);
    Py_XDECREF(af);
    Py_XDECREF(kf);
    return reply;
}

static PyObject *evalsha_loading(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (check_nargs("evalsha_loading(client, script, keys, args)", nargs, 4) < 0 || check_set_up() < 0)
        return NULL;
    return evalsha_loading_impl(args[0], args[1], args[2], args[3]);
}

/* The pending ResponseError, when fail is given, replaced by fail(exc)
 * raised from it (its __cause__ and __context__). */
static void translate_error(PyObject *fail) {
    if (fail == Py_None || !PyErr_ExceptionMatches(response_error))
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL)
        PyException_SetTraceback(value, tb);
    PyObject *raised = PyObject_CallOneArg(fail, value);
    if (raised != NULL && !PyExceptionInstance_Check(raised)) {
        Py_DECREF(raised);
        raised = NULL;
        PyErr_SetString(PyExc_TypeError, "exceptions must derive from BaseException");
    }
    if (raised != NULL) {
        Py_INCREF(value);
        PyException_SetCause(raised, value); /* steals; sets __suppress_context__ */
        Py_INCREF(value);
        PyException_SetContext(raised, value); /* steals */
        Py_INCREF(Py_TYPE(raised));
        PyErr_Restore((PyObject *)Py_TYPE(raised), raised, NULL); /* steals both */
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

/* A Direct plan's result (see the top of this file). */
static PyObject *run_direct(PyObject *client, PyObject *plan) {
    if (PyTuple_GET_SIZE(plan) != 5) {
        PyErr_SetString(PyExc_TypeError, "a one-step plan is (target, first, second, parse, fail)");
        return NULL;
    }
    PyObject *target = PyTuple_GET_ITEM(plan, 0), *first = PyTuple_GET_ITEM(plan, 1);
    PyObject *second = PyTuple_GET_ITEM(plan, 2), *parse = PyTuple_GET_ITEM(plan, 3);
    PyObject *fail = PyTuple_GET_ITEM(plan, 4), *reply;
    if (!PyUnicode_CheckExact(target)) {
        reply = evalsha_loading_impl(client, target, first, second);
    } else {
        int keywords = second == Py_None ? 0 : PyObject_IsTrue(second);
        PyObject *method = keywords < 0 ? NULL : PyObject_GetAttr(client, target);
        PyObject *positional = method == NULL ? NULL : PySequence_Tuple(first);
        reply = positional == NULL ? NULL : PyObject_Call(method, positional, keywords ? second : NULL);
        Py_XDECREF(positional);
        Py_XDECREF(method);
    }
    if (reply == NULL) {
        translate_error(fail);
        return NULL;
    }
    PyObject *result = PyObject_CallOneArg(parse, reply);
    Py_DECREF(reply);
    return result;
}

static PyObject *run(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (check_nargs("run(client, plan)", nargs, 2) < 0 || check_set_up() < 0)
        return NULL;
    if (PyTuple_CheckExact(args[1]))
        return run_direct(args[0], args[1]);
    return PyObject_Vectorcall(run_steps, args, 2, NULL);
}

static PyObject *runner_setup(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (check_nargs("runner_setup(run_steps, response_error, noscript_error)", nargs, 3) < 0)
        return NULL;
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    Py_INCREF(args[2]);
    Py_XSETREF(run_steps, args[0]);
    Py_XSETREF(response_error, args[1]);
    Py_XSETREF(noscript_error, args[2]);
    Py_RETURN_NONE;
}

static PyMethodDef faces_functions[] = {
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL,
     "run(client, plan)\n--\n\nDrive plan on a sync redis-py style client and return its result."},
    {"evalsha_loading", (PyCFunction)(void (*)(void))evalsha_loading, METH_FASTCALL,
     "evalsha_loading(client, script, keys, args)\n--\n\n"
     "EVALSHA of script on a sync client; SCRIPT LOAD and again on NOSCRIPT."},
    {"runner_setup", (PyCFunction)(void (*)(void))runner_setup, METH_FASTCALL,
     "runner_setup(run_steps, response_error, noscript_error)\n--\n\n"
     "Hand over the step loop of generator plans and redis-py's two error classes."},
    {NULL, NULL, 0, NULL},
};

static PyObject *plan_method_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    PlanMethod *self = (PlanMethod *)callable;
    if (PyVectorcall_NARGS(nargsf) < 1) {
        PyErr_SetString(PyExc_TypeError, "a plan's method is called on an object (none given)");
        return NULL;
    }
    PyObject *client = PyObject_GetAttr(args[0], client_name);
    if (client == NULL)
        return NULL;
    PyObject *plan = PyObject_Vectorcall(self->plan, args, nargsf, kwnames);
    if (plan == NULL) {
        Py_DECREF(client);
        return NULL;
    }
    PyObject *stack[3] = {NULL, client, plan};
    PyObject *result = PyObject_Vectorcall(self->runner, stack + 1, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    Py_DECREF(client);
    Py_DECREF(plan);
    return result;
}

static PyObject *plan_method_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *plan, *runner;
    static char *names[] = {"plan", "runner", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:PlanMethod", names, &plan, &runner))
        return NULL;
    if (!PyCallable_Check(plan) || !PyCallable_Check(runner)) {
        PyErr_SetString(PyExc_TypeError, "PlanMethod(plan, runner) takes two callables");
        return NULL;
    }
    PlanMethod *self = (PlanMethod *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(plan);
    Py_INCREF(runner);
    self->plan = plan;
    self->runner = runner;
    self->dict = NULL;
    self->vectorcall = plan_method_vectorcall;
    return (PyObject *)self;
}

static int plan_method_traverse(PlanMethod *self, visitproc visit, void *arg) {
    Py_VISIT(self->plan);
    Py_VISIT(self->runner);
    Py_VISIT(self->dict);
    return 0;
}

static int plan_method_clear(PlanMethod *self) {
    Py_CLEAR(self->plan);
    Py_CLEAR(self->runner);
    Py_CLEAR(self->dict);
    return 0;
}

static void plan_method_dealloc(PlanMethod *self) {
    PyObject_GC_UnTrack(self);
    plan_method_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* plan.__get__(obj): the bound method (when the method is looked up without
 * being called at once); on the class, the method itself. */
static PyObject *plan_method_get(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

static PyObject *plan_method_plan(PlanMethod *self, void *closure) {
    (void)closure;
    Py_INCREF(self->plan);
    return self->plan;
}

static PyGetSetDef plan_method_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"plan", (getter)plan_method_plan, NULL, "the plan this method runs", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PlanMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "fastrank._faces.PlanMethod",
    .tp_basicsize = sizeof(PlanMethod),
    .tp_dealloc = (destructor)plan_method_dealloc,
    .tp_vectorcall_offset = offsetof(PlanMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "PlanMethod(plan, runner): the method runner(obj._client, plan(obj, *args, **kwargs)).",
    .tp_traverse = (traverseproc)plan_method_traverse,
    .tp_clear = (inquiry)plan_method_clear,
    .tp_getset = plan_method_getset,
    .tp_descr_get = plan_method_get,
    .tp_dictoffset = offsetof(PlanMethod, dict),
    .tp_new = plan_method_new,
};

static struct PyModuleDef faces_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "fastrank._faces",
    .m_doc = "PlanMethod: the sync face's method of a plan, called without repacking its arguments; "
              "run: the sync runner of a plan.",
    .m_size = -1,
    .m_methods = faces_functions,
};

PyMODINIT_FUNC PyInit__faces(void) {
    client_name = PyUnicode_InternFromString("_client");
    evalsha_name = PyUnicode_InternFromString("evalsha");
    script_load_name = PyUnicode_InternFromString("script_load");
    sha_name = PyUnicode_InternFromString("sha");
    source_name = PyUnicode_InternFromString("source");
    noscript_prefix = PyUnicode_InternFromString("NOSCRIPT");
    if (client_name == NULL || evalsha_name == NULL || script_load_name == NULL || sha_name == NULL ||
        source_name == NULL || noscript_prefix == NULL || PyType_Ready(&PlanMethodType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&faces_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&PlanMethodType);
    if (PyModule_AddObject(module, "PlanMethod", (PyObject *)&PlanMethodType) < 0) {
        Py_DECREF(&PlanMethodType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
