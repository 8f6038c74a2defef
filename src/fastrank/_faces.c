/* fastrank._faces: PlanMethod, the sync face's method of a plan (fastrank.runner.twin).
 *
 * PlanMethod(plan, runner) is a method descriptor: board.rank(*args, **kwargs)
 * is runner(board._client, plan(board, *args, **kwargs)). The call arrives as
 * a vectorcall with the object first (Py_TPFLAGS_METHOD_DESCRIPTOR: no bound
 * method is made for obj.name(...)), and the very same argument array and
 * keyword names are handed on to the plan: no tuple or dict of arguments is
 * packed, and no Python frame stands between the caller and the plan. Its
 * __name__, __doc__, __signature__... live in its own __dict__ (set by
 * fastrank.runner), so inspect and help() show the plan's parameters.
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
    .m_doc = "PlanMethod: the sync face's method of a plan, called without repacking its arguments.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__faces(void) {
    client_name = PyUnicode_InternFromString("_client");
    if (client_name == NULL || PyType_Ready(&PlanMethodType) < 0)
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
