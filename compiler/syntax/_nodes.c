/* kite.syntax._nodes: making the AST and the graph's tuples in C, where Python code per object was most of a cold
   graph. Without this module the dataclasses', the namedtuples' and kite.syntax.parser's own Python code runs.
   - The AST nodes' __init__: what the __init__ dataclasses writes for a frozen node does (each field set through
     object.__setattr__, in the order of the class's fields, then Node.__post_init__'s ends), without a Python call
     per field. kite.syntax.nodes installs it on every Node class, with the class's layout.
   - Calls of a node class (make_node) and of a NamedTuple class (make_record, kite.syntax.nodes.made_in_c) without
     type.__call__'s tuple and dict, or the namedtuple's Python __new__.
   - nest: the transformer's nesting count (kite.syntax.parser._nest). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_layout, *s_init, *s_new, *s_fields, *s_field_defaults, *s_record_new, *empty;

/* A class's layout, a tuple: (field names in order, the field index of each positional parameter, each field's
   default or the `required` marker, the field indices of line, column, end_line and end_column or None). */
static PyObject *node_init(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyTypeObject *type = Py_TYPE(self);
    PyObject *layout = _PyType_Lookup(type, s_layout);
    if (!layout || !PyTuple_Check(layout) || PyTuple_GET_SIZE(layout) != 5) {
        PyErr_Format(PyExc_TypeError, "%s has no node layout", type->tp_name);
        return NULL;
    }
    PyObject *names = PyTuple_GET_ITEM(layout, 0), *positional = PyTuple_GET_ITEM(layout, 1);
    PyObject *defaults = PyTuple_GET_ITEM(layout, 2), *required = PyTuple_GET_ITEM(layout, 3);
    PyObject *ends = PyTuple_GET_ITEM(layout, 4);
    Py_ssize_t count = PyTuple_GET_SIZE(names), positional_count = PyTuple_GET_SIZE(positional);
    PyObject *values[32] = {NULL};
    if (count > 32 || PyTuple_GET_SIZE(defaults) != count) {
        PyErr_Format(PyExc_TypeError, "%s: a node layout of %zd fields", type->tp_name, count);
        return NULL;
    }
    if (nargs > positional_count) {
        PyErr_Format(PyExc_TypeError, "%s.__init__() takes %zd positional arguments but %zd were given",
                     type->tp_name, positional_count + 1, nargs + 1);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_ssize_t field = PyLong_AsSsize_t(PyTuple_GET_ITEM(positional, i));
        if (field < 0 || field >= count) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: a node layout's field out of range", type->tp_name);
            return NULL;
        }
        values[field] = args[i];
    }
    Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < keywords; k++) {
        PyObject *keyword = PyTuple_GET_ITEM(kwnames, k);
        Py_ssize_t field = -1;
        for (Py_ssize_t i = 0; i < count && field < 0; i++)
            if (PyTuple_GET_ITEM(names, i) == keyword) field = i;  /* interned: most keywords are found by identity */
        for (Py_ssize_t i = 0; i < count && field < 0; i++) {
            int equal = PyObject_RichCompareBool(PyTuple_GET_ITEM(names, i), keyword, Py_EQ);
            if (equal < 0) return NULL;
            if (equal) field = i;
        }
        if (field < 0) {
            PyErr_Format(PyExc_TypeError, "%s.__init__() got an unexpected keyword argument '%S'", type->tp_name, keyword);
            return NULL;
        }
        if (values[field]) {
            PyErr_Format(PyExc_TypeError, "%s.__init__() got multiple values for argument '%S'", type->tp_name, keyword);
            return NULL;
        }
        values[field] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (values[i]) continue;
        values[i] = PyTuple_GET_ITEM(defaults, i);
        if (values[i] == required) {
            PyErr_Format(PyExc_TypeError, "%s.__init__() missing required argument: '%S'", type->tp_name,
                         PyTuple_GET_ITEM(names, i));
            return NULL;
        }
    }
    int point = 0;  /* Node.__post_init__: no end given, the node is a point at its start */
    Py_ssize_t at[4] = {0};
    if (ends != Py_None) {
        if (!PyTuple_Check(ends) || PyTuple_GET_SIZE(ends) != 4) {
            PyErr_Format(PyExc_TypeError, "%s: a node layout's ends are four field indices", type->tp_name);
            return NULL;
        }
        for (int i = 0; i < 4; i++) {
            at[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(ends, i));
            if (at[i] < 0 || at[i] >= count) {
                if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: a node layout's end out of range", type->tp_name);
                return NULL;
            }
        }
        int given = PyObject_IsTrue(values[at[2]]);
        if (given < 0) return NULL;
        point = !given;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *value = values[i];
        if (point && i == at[2]) value = values[at[0]];
        else if (point && i == at[3]) value = values[at[1]];
        if (PyObject_GenericSetAttr(self, PyTuple_GET_ITEM(names, i), value) < 0) return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef init_definition = {"__init__", (PyCFunction)(void (*)(void))node_init, METH_FASTCALL | METH_KEYWORDS,
                                      "Sets each field, as the frozen dataclass's __init__ would (kite.syntax._nodes)."};

/* What type.__call__ does with these vectorcall arguments (make_node's and make_record's way back) */
static PyObject *call_as_usual(PyObject *callable, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *positional = PyTuple_New(nargs), *named = keywords ? PyDict_New() : NULL, *made = NULL;
    for (Py_ssize_t i = 0; positional && i < nargs; i++) PyTuple_SET_ITEM(positional, i, Py_NewRef(args[i]));
    int failed = !positional || (keywords && !named);
    for (Py_ssize_t k = 0; !failed && k < keywords; k++)
        failed = PyDict_SetItem(named, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0;
    if (!failed) made = PyType_Type.tp_call(callable, positional, named);
    Py_XDECREF(positional);
    Py_XDECREF(named);
    return made;
}

/* A node class called: what type.__call__ does for it (object.__new__, then the C __init__), without the tuple of
   arguments and the dict of keywords it makes on the way (those were as costly as the __init__ itself). A class
   whose __init__ is no longer the C one (a test puts the dataclass's back) is called as usual. */
static PyObject *make_node(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    PyTypeObject *type = (PyTypeObject *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *init = _PyType_Lookup(type, s_init);
    if (!init || !Py_IS_TYPE(init, &PyMethodDescr_Type) || ((PyMethodDescrObject *)init)->d_method != &init_definition)
        return call_as_usual(callable, args, nargs, kwnames);
    PyObject *self = PyBaseObject_Type.tp_new(type, empty, NULL);  /* object.__new__: it lays out the attributes too */
    if (!self) return NULL;
    PyObject *done = node_init(self, args, nargs, kwnames);
    if (!done) { Py_DECREF(self); return NULL; }
    Py_DECREF(done);
    return self;
}

/* called_as_node(cls): calls of the class make its nodes through make_node; only for a class object.__new__ makes */
static PyObject *called_as_node(PyObject *module, PyObject *cls) {
    if (!PyType_Check(cls) || !(((PyTypeObject *)cls)->tp_flags & Py_TPFLAGS_HEAPTYPE)
        || ((PyTypeObject *)cls)->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_SetString(PyExc_TypeError, "called_as_node takes a node class that object.__new__ makes");
        return NULL;
    }
    ((PyTypeObject *)cls)->tp_vectorcall = make_node;
    Py_RETURN_NONE;
}

/* A NamedTuple class called with its fields by position (those with defaults may be left out): the tuple made
   straight from them. A namedtuple's __new__ is Python code, and the index makes a hundred tuples a file. Keywords,
   a wrong count, or a __new__ other than the one the class had when it was taken: called as usual. */
static PyObject *make_record(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    PyTypeObject *type = (PyTypeObject *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *fields = _PyType_Lookup(type, s_fields), *defaults = _PyType_Lookup(type, s_field_defaults);
    PyObject *taken = _PyType_Lookup(type, s_record_new);
    if (kwnames || !fields || !PyTuple_Check(fields) || nargs > PyTuple_GET_SIZE(fields) || !defaults
        || !PyDict_Check(defaults) || !taken || taken != _PyType_Lookup(type, s_new))
        return call_as_usual(callable, args, nargs, kwnames);
    Py_ssize_t count = PyTuple_GET_SIZE(fields);
    for (Py_ssize_t i = nargs; i < count; i++)
        if (!PyDict_GetItemWithError(defaults, PyTuple_GET_ITEM(fields, i)))
            return PyErr_Occurred() ? NULL : call_as_usual(callable, args, nargs, kwnames);
    PyObject *record = type->tp_alloc(type, count);
    if (!record) return NULL;
    for (Py_ssize_t i = 0; i < count; i++)
        PyTuple_SET_ITEM(record, i, Py_NewRef(i < nargs ? args[i] : PyDict_GetItem(defaults, PyTuple_GET_ITEM(fields, i))));
    return record;
}

/* called_as_record(cls): calls of a NamedTuple class make its tuples through make_record */
static PyObject *called_as_record(PyObject *module, PyObject *cls) {
    if (!PyType_Check(cls) || !(((PyTypeObject *)cls)->tp_flags & Py_TPFLAGS_HEAPTYPE)
        || !PyType_IsSubtype((PyTypeObject *)cls, &PyTuple_Type) || ((PyTypeObject *)cls)->tp_dictoffset
        || !_PyType_Lookup((PyTypeObject *)cls, s_fields) || !_PyType_Lookup((PyTypeObject *)cls, s_new)) {
        PyErr_SetString(PyExc_TypeError, "called_as_record takes a NamedTuple class");
        return NULL;
    }
    if (PyObject_SetAttr(cls, s_record_new, _PyType_Lookup((PyTypeObject *)cls, s_new)) < 0) return NULL;
    ((PyTypeObject *)cls)->tp_vectorcall = make_record;
    Py_RETURN_NONE;
}

/* nest(depths, node, children): kite.syntax.parser.nest in C (the transformer asks it for nearly every node) */
static PyObject *nest(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "nest takes the depths (a dict), the node and its children");
        return NULL;
    }
    PyObject *depths = args[0], *children = PySequence_Fast(args[2], "a node's children are a sequence");
    if (!children) return NULL;
    long depth = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(children); i++) {
        PyObject *key = PyLong_FromVoidPtr(PySequence_Fast_GET_ITEM(children, i));  /* id(child) */
        PyObject *below = key ? PyDict_GetItemWithError(depths, key) : NULL;
        Py_XDECREF(key);
        long level = below ? PyLong_AsLong(below) : 0;
        if ((!below || level == -1) && PyErr_Occurred()) { Py_DECREF(children); return NULL; }
        if (level > depth) depth = level;
    }
    Py_DECREF(children);
    PyObject *key = PyLong_FromVoidPtr(args[1]), *level = PyLong_FromLong(depth + 1);
    if (!key || !level || PyDict_SetItem(depths, key, level) < 0) { Py_XDECREF(key); Py_XDECREF(level); return NULL; }
    Py_DECREF(key);
    return level;
}

/* initializer(Node): the __init__ descriptor for Node and its subclasses */
static PyObject *initializer(PyObject *module, PyObject *base) {
    if (!PyType_Check(base)) {
        PyErr_SetString(PyExc_TypeError, "initializer takes the base node class");
        return NULL;
    }
    return PyDescr_NewMethod((PyTypeObject *)base, &init_definition);
}

static PyMethodDef methods[] = {
    {"initializer", initializer, METH_O, "The C __init__ for the node classes under this base class."},
    {"called_as_node", called_as_node, METH_O, "Calls of this node class make its node without type.__call__'s tuple and dict."},
    {"nest", (PyCFunction)(void (*)(void))nest, METH_FASTCALL, "kite.syntax.parser.nest, in C."},
    {"called_as_record", called_as_record, METH_O, "Calls of this NamedTuple class make its tuple without its Python __new__."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT, "_nodes", NULL, -1, methods};

PyMODINIT_FUNC PyInit__nodes(void) {
    if (!(s_layout = PyUnicode_InternFromString("__node_layout__")) || !(s_init = PyUnicode_InternFromString("__init__"))
        || !(s_new = PyUnicode_InternFromString("__new__")) || !(s_fields = PyUnicode_InternFromString("_fields"))
        || !(s_field_defaults = PyUnicode_InternFromString("_field_defaults"))
        || !(s_record_new = PyUnicode_InternFromString("__record_new__")) || !(empty = PyTuple_New(0))) return NULL;
    return PyModule_Create(&module_definition);
}
