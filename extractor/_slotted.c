/* Instances of the extractor's frozen slots dataclasses made in one call.
 *
 * A `Maker(cls, names)` is called with one value per name, in the order of `names` (the
 * dataclass's fields), and gives an instance of `cls`: its type's allocation with the slots
 * stored by their offsets, taken once from the class's member descriptors. No frame, no
 * bytecode, no `__class__` assignment; the object is an instance of the dataclass as the
 * Python makers' is (type, equality, hash, repr, frozen). `names` must name every slot of
 * `cls` (no `__dict__`, no `__weakref__`), so no slot is left empty.
 *
 * With `class_first=True` the first argument is the class to make: `cls` or a subclass of it
 * with the same slots (a `Quote` made by the `Span` maker).
 *
 * What is made is left out of the collector's walks: these objects hold strings, ints, None
 * and each other, never a container that could refer back to them, so no cycle can pass
 * through one; a young collection would otherwise walk every citation of the answers kept.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *cls;
    Py_ssize_t count;     /* values per call, the class not counted */
    int class_first;
    Py_ssize_t *offsets;  /* the slots' offsets, in the order of the names */
} Maker;

#define SLOT(object, offset) (*(PyObject **)((char *)(object) + (offset)))

static PyObject *
maker_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Maker *self = (Maker *)callable;
    Py_ssize_t given = PyVectorcall_NARGS(nargsf);
    PyTypeObject *cls = self->cls;
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_SetString(PyExc_TypeError, "a maker takes no keyword arguments");
        return NULL;
    }
    if (given != self->count + self->class_first) {
        PyErr_Format(PyExc_TypeError, "%s's maker takes %zd arguments (%zd given)",
                     cls->tp_name, self->count + self->class_first, given);
        return NULL;
    }
    if (self->class_first) {
        PyObject *asked = args[0];
        if (asked != (PyObject *)cls
            && !(PyType_Check(asked) && PyType_IsSubtype((PyTypeObject *)asked, cls)
                 && ((PyTypeObject *)asked)->tp_basicsize == cls->tp_basicsize
                 && ((PyTypeObject *)asked)->tp_alloc == cls->tp_alloc)) {
            PyErr_Format(PyExc_TypeError, "not %s or a subclass with its slots", cls->tp_name);
            return NULL;
        }
        cls = (PyTypeObject *)asked;
        args++;
    }
    PyObject *made = cls->tp_alloc(cls, 0);
    if (made == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < self->count; i++) {
        SLOT(made, self->offsets[i]) = Py_NewRef(args[i]);
    }
    if (PyObject_IS_GC(made)) {
        PyObject_GC_UnTrack(made);
    }
    return made;
}

static PyObject *
maker_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"cls", "names", "class_first", NULL};
    PyObject *cls, *names;
    int class_first = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!|$p", keywords, &PyType_Type, &cls,
                                     &PyTuple_Type, &names, &class_first)) {
        return NULL;
    }
    PyTypeObject *made_type = (PyTypeObject *)cls;
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    /* every slot named: the instance is the object's header and the slots, nothing more */
    if (made_type->tp_basicsize != (Py_ssize_t)(sizeof(PyObject) + count * sizeof(PyObject *))
        || made_type->tp_dictoffset != 0 || made_type->tp_weaklistoffset != 0
        || made_type->tp_itemsize != 0) {
        PyErr_Format(PyExc_TypeError, "the names are not every slot of %s", made_type->tp_name);
        return NULL;
    }
    Maker *self = (Maker *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = maker_call;
    self->cls = (PyTypeObject *)Py_NewRef(cls);
    self->class_first = class_first;
    self->offsets = PyMem_Calloc(count > 0 ? count : 1, sizeof(Py_ssize_t));
    if (self->offsets == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *descriptor = PyObject_GetAttr(cls, PyTuple_GET_ITEM(names, i));
        if (descriptor == NULL) {
            Py_DECREF(self);
            return NULL;
        }
        int is_slot = Py_IS_TYPE(descriptor, &PyMemberDescr_Type)
                      && ((PyMemberDescrObject *)descriptor)->d_member->type == T_OBJECT_EX;
        Py_ssize_t offset = is_slot ? ((PyMemberDescrObject *)descriptor)->d_member->offset : 0;
        Py_DECREF(descriptor);
        for (Py_ssize_t j = 0; is_slot && j < i; j++) {
            is_slot = self->offsets[j] != offset;  /* each slot named once */
        }
        if (!is_slot) {
            PyErr_Format(PyExc_TypeError, "%R is not a slot of %s (or is named twice)",
                         PyTuple_GET_ITEM(names, i), made_type->tp_name);
            Py_DECREF(self);
            return NULL;
        }
        self->offsets[i] = offset;
    }
    self->count = count;
    return (PyObject *)self;
}

static void
maker_dealloc(Maker *self)
{
    Py_XDECREF(self->cls);
    PyMem_Free(self->offsets);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject MakerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "extractor._slotted.Maker",
    .tp_doc = PyDoc_STR("Maker(cls, names, *, class_first=False): instances of a slots class, "
                        "one value per name"),
    .tp_basicsize = sizeof(Maker),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = maker_new,
    .tp_dealloc = (destructor)maker_dealloc,
};

static struct PyModuleDef slotted_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "extractor._slotted",
    .m_doc = "Instances of frozen slots dataclasses made in one call (see extractor.models).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__slotted(void)
{
    if (PyType_Ready(&MakerType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&slotted_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "Maker", (PyObject *)&MakerType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
