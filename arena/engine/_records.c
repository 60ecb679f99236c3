/* A named tuple made from a tuple of its fields, without the class's __new__.
 *
 * records.new(cls, fields) is tuple.__new__(cls, fields) for a tuple subclass that adds
 * no fields of its own (a NamedTuple): the same object, made as CPython's own
 * tuple_subtype_new makes it, but without the argument tuples and checks of a call to
 * tuple.__new__ (a third of the cost; the engine makes several a decision). Anything
 * else is handed to tuple.__new__'s own slot, which makes it or raises as it would.
 * arena/engine/records.py falls back to tuple.__new__ where this is not built.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* From 3.14 a tuple caches its hash in a field that a fresh allocation leaves unset:
 * there only the slot may make one. */
#if PY_VERSION_HEX < 0x030E0000
#define RECORDS_DIRECT 1
#else
#define RECORDS_DIRECT 0
#endif

static int
is_plain_subtype(PyTypeObject *type)
{
    return type != &PyTuple_Type && type->tp_basicsize == PyTuple_Type.tp_basicsize
        && type->tp_itemsize == PyTuple_Type.tp_itemsize && type->tp_dictoffset == 0
        && PyType_IS_GC(type);
}

static PyObject *
by_slot(PyTypeObject *type, PyObject *fields)
{
    PyObject *args = PyTuple_Pack(1, fields);
    if (args == NULL) {
        return NULL;
    }
    PyObject *made = PyTuple_Type.tp_new(type, args, NULL);
    Py_DECREF(args);
    return made;
}

static PyObject *
records_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "new() takes a class and a tuple (%zd given)", nargs);
        return NULL;
    }
    PyObject *cls = args[0];
    PyObject *fields = args[1];
    if (!PyType_Check(cls) || !PyType_FastSubclass((PyTypeObject *)cls, Py_TPFLAGS_TUPLE_SUBCLASS)) {
        PyErr_SetString(PyExc_TypeError, "new(cls, fields): cls must be a tuple subclass");
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)cls;
    if (!RECORDS_DIRECT || !PyTuple_CheckExact(fields) || !is_plain_subtype(type)) {
        return by_slot(type, fields);
    }
    Py_ssize_t size = PyTuple_GET_SIZE(fields);
    PyObject *made = type->tp_alloc(type, size);
    if (made == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *item = PyTuple_GET_ITEM(fields, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(made, i, item);
    }
    return made;
}

static PyMethodDef records_methods[] = {
    {"new", (PyCFunction)(void (*)(void))records_new, METH_FASTCALL,
     "new(cls, fields) -> tuple.__new__(cls, fields), made directly for a named tuple."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef records_module = {
    PyModuleDef_HEAD_INIT, "_records", "Named tuples made fast (see records.py).", -1,
    records_methods,
};

PyMODINIT_FUNC
PyInit__records(void)
{
    return PyModule_Create(&records_module);
}
