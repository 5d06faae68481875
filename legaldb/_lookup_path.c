/* The lookup path compiled: `legaldb.index.Lookups.lookup`, step for step, in C.
 *
 * A `LookupPath` is made over a `Lookups` and answers as its `lookup` does, from the same
 * dicts and lists (the names' timelines, each law's memo, the index's layouts, made articles,
 * shapes and labels), so the two can be called in turn and give the same objects. It reads the
 * slots of `Timeline`, `VersionInfo` and `StatuteIndex` by their offsets, and makes `Lookup`
 * and `ArticleInfo` as their type's allocation with the slots stored: no bytecode, no frame,
 * no `__class__` assignment, and left out of the collector's walks (they hold frozen statute data
 * and nothing that refers back to them, so no cycle can pass through one; a young collection
 * would otherwise walk every new answer). A name not yet resolved goes to `Lookups.timeline_of`, an article
 * of a version not numbered 1 ... n to `StatuteIndex.article`, and anything else it was not
 * written for (other argument types, numbers beyond 2**40, keyword arguments) to
 * `Lookups.lookup` itself, before anything is stored.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <datetime.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *python_lookup; /* Lookups.lookup, bound */
    PyObject *timeline_of;   /* Lookups.timeline_of, bound */
    PyObject *article;       /* StatuteIndex.article, bound */
    PyObject *timelines;     /* Lookups.timelines: name -> Timeline | None */
    PyObject *index;         /* StatuteIndex */
    PyObject *nothing;       /* the answer for a name of no law */
    PyTypeObject *timeline_type, *version_type, *lookup_type, *article_type;
    Py_ssize_t memo_limit;
    Py_ssize_t tl_starts, tl_ends, tl_dated, tl_fallback, tl_slots, tl_memo, tl_law, tl_repeal;
    Py_ssize_t version_id;
    Py_ssize_t ix_layouts, ix_made, ix_article_shapes, ix_shapes, ix_labels;
    Py_ssize_t lk_law, lk_version, lk_article, lk_repeal, lk_article_version;
    Py_ssize_t ai_version_id, ai_number, ai_suffix, ai_label, ai_deleted, ai_paragraph_count,
        ai_item_counts, ai_chapter_path;
} LookupPath;

#define SLOT(object, offset) (*(PyObject **)((char *)(object) + (offset)))
#define NUMBER_LIMIT (1LL << 40)

/* The offset of the slot `name` of the class `cls` (its member descriptor's). */
static int
slot_offset(PyTypeObject *cls, const char *name, Py_ssize_t *offset)
{
    PyObject *descriptor = PyDict_GetItemString(cls->tp_dict, name);
    if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)
        || ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", cls->tp_name, name);
        return -1;
    }
    *offset = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    return 0;
}

/* date.toordinal() of a date's year, month and day. */
static long long
ordinal_of(PyObject *day)
{
    static const int before_month[] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
    long long year = PyDateTime_GET_YEAR(day), month = PyDateTime_GET_MONTH(day);
    long long y = year - 1;
    long long days = y * 365 + y / 4 - y / 100 + y / 400 + before_month[month];
    if (month > 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) {
        days += 1;
    }
    return days + PyDateTime_GET_DAY(day);
}

/* The int item's value; -1 with an error set when it is not an exact int or too large. */
static int
int_item(PyObject *item, long long *value)
{
    int overflow;
    if (!PyLong_CheckExact(item)) {
        PyErr_SetString(PyExc_TypeError, "an int was expected");
        return -1;
    }
    *value = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (overflow) {
        PyErr_SetString(PyExc_OverflowError, "int too large");
        return -1;
    }
    return (*value == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* A new object of the slot class `cls`, its slots stored from `values` (new references),
 * untracked by the collector (see the top of this file). */
static PyObject *
made(PyTypeObject *cls, int count, const Py_ssize_t *offsets, PyObject *const *values)
{
    PyObject *object = cls->tp_alloc(cls, 0);
    if (object == NULL) {
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        SLOT(object, offsets[i]) = Py_NewRef(values[i]);
    }
    PyObject_GC_UnTrack(object);
    return object;
}

/* The article a version numbered 1 ... count holds at position `at` of the index's arrays,
 * made when it is not yet (StatuteIndex._make's stores); NULL with an error set, or NULL
 * without one when Lookups.lookup is to answer instead. */
static PyObject *
dense_article(LookupPath *self, PyObject *version_id, PyObject *number, Py_ssize_t at)
{
    PyObject *index = self->index;
    PyObject *made_list = SLOT(index, self->ix_made);
    if (made_list == NULL || !PyList_CheckExact(made_list) || at >= PyList_GET_SIZE(made_list)) {
        return NULL;
    }
    PyObject *found = PyList_GET_ITEM(made_list, at);
    if (found != Py_None) {
        return Py_NewRef(found);
    }
    PyObject *shapes = SLOT(index, self->ix_shapes), *labels = SLOT(index, self->ix_labels);
    PyObject *article_shapes = SLOT(index, self->ix_article_shapes);
    if (shapes == NULL || labels == NULL || article_shapes == NULL || !PyTuple_CheckExact(shapes)
        || !PyDict_CheckExact(labels)) {
        return NULL;
    }
    PyObject *shape_id = PySequence_GetItem(article_shapes, at);
    if (shape_id == NULL) {
        return NULL;
    }
    Py_ssize_t which = PyLong_AsSsize_t(shape_id);
    Py_DECREF(shape_id);
    if (which == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (which < 0 || which >= PyTuple_GET_SIZE(shapes)) {
        return NULL;
    }
    PyObject *shape = PyTuple_GET_ITEM(shapes, which);
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 4) {
        return NULL;
    }
    PyObject *label = PyDict_GetItemWithError(labels, number);
    if (label == NULL) {
        return NULL; /* none: Lookups.lookup raises the KeyError */
    }
    const Py_ssize_t offsets[] = {self->ai_version_id, self->ai_number, self->ai_suffix,
                                  self->ai_label, self->ai_deleted, self->ai_paragraph_count,
                                  self->ai_item_counts, self->ai_chapter_path};
    PyObject *const values[] = {version_id, number, Py_None, label,
                                PyTuple_GET_ITEM(shape, 0), PyTuple_GET_ITEM(shape, 1),
                                PyTuple_GET_ITEM(shape, 2), PyTuple_GET_ITEM(shape, 3)};
    found = made(self->article_type, 8, offsets, values);
    if (found == NULL) {
        return NULL;
    }
    if (PyList_SetItem(made_list, at, Py_NewRef(found)) < 0) {
        Py_DECREF(found);
        return NULL;
    }
    return found;
}

/* The article of the answer (a new reference, None included): StatuteIndex.article's, made
 * in place for a version numbered 1 ... count; NULL as dense_article. */
static PyObject *
article_of(LookupPath *self, PyObject *where, PyObject *number_object, long long number,
           PyObject *suffix)
{
    if (where == Py_None) {
        return Py_NewRef(Py_None);
    }
    if (!Py_IS_TYPE(where, self->version_type)) {
        return NULL;
    }
    PyObject *version_id = SLOT(where, self->version_id);
    PyObject *layouts = SLOT(self->index, self->ix_layouts);
    if (version_id == NULL || layouts == NULL || !PyDict_CheckExact(layouts)) {
        return NULL;
    }
    PyObject *layout = PyDict_GetItemWithError(layouts, version_id);
    if (layout == NULL) {
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    }
    if (!PyTuple_CheckExact(layout) || PyTuple_GET_SIZE(layout) != 5
        || !PyBytes_CheckExact(PyTuple_GET_ITEM(layout, 2))) {
        return NULL;
    }
    if (PyBytes_GET_SIZE(PyTuple_GET_ITEM(layout, 2)) || PyTuple_GET_ITEM(layout, 4) != Py_None
        || suffix != Py_None) {
        PyObject *const args[] = {version_id, number_object, suffix};
        return PyObject_Vectorcall(self->article, args, 3, NULL);
    }
    long long first, count;
    if (int_item(PyTuple_GET_ITEM(layout, 0), &first) < 0
        || int_item(PyTuple_GET_ITEM(layout, 1), &count) < 0) {
        return NULL;
    }
    if (number <= 0 || number > count) {
        return Py_NewRef(Py_None);
    }
    return dense_article(self, version_id, number_object, (Py_ssize_t)(first + number - 1));
}

static PyObject *
lookup_path_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    LookupPath *self = (LookupPath *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 4 || kwnames != NULL) {
        return PyObject_Vectorcall(self->python_lookup, args, nargsf, kwnames);
    }
    PyObject *name = args[0], *number_object = args[1], *suffix = args[2], *as_of = args[3];
    if (!PyUnicode_CheckExact(name) || !PyLong_CheckExact(number_object)
        || !PyDate_CheckExact(as_of) || (suffix != Py_None && !PyUnicode_CheckExact(suffix))) {
        return PyObject_Vectorcall(self->python_lookup, args, nargsf, NULL);
    }
    int overflow;
    long long number = PyLong_AsLongLongAndOverflow(number_object, &overflow);
    if (overflow || number >= NUMBER_LIMIT || number <= -NUMBER_LIMIT) {
        return PyObject_Vectorcall(self->python_lookup, args, nargsf, NULL);
    }
    if (suffix != Py_None && PyUnicode_GET_LENGTH(suffix) == 0) {
        suffix = Py_None;
    }
    PyObject *timeline = PyDict_GetItemWithError(self->timelines, name);
    if (timeline == NULL && PyErr_Occurred()) {
        return NULL;
    }
    if (timeline == NULL || timeline == Py_None) {
        timeline = PyObject_Vectorcall(self->timeline_of, &name, 1, NULL);
        if (timeline == NULL) {
            return NULL;
        }
        if (timeline == Py_None) {
            Py_DECREF(timeline);
            return Py_NewRef(self->nothing);
        }
    }
    else {
        Py_INCREF(timeline);
    }
    PyObject *key = NULL, *slot_object = NULL, *where = NULL, *article = NULL, *found = NULL;
    if (!Py_IS_TYPE(timeline, self->timeline_type)) {
        goto python;
    }
    long long ordinal = ordinal_of(as_of);
    PyObject *starts = SLOT(timeline, self->tl_starts), *ends = SLOT(timeline, self->tl_ends);
    PyObject *dated = SLOT(timeline, self->tl_dated), *memo = SLOT(timeline, self->tl_memo);
    PyObject *slots_object = SLOT(timeline, self->tl_slots);
    if (starts == NULL || ends == NULL || dated == NULL || memo == NULL || slots_object == NULL
        || !PyList_CheckExact(starts) || !PyTuple_CheckExact(ends) || !PyTuple_CheckExact(dated)
        || !PyDict_CheckExact(memo) || PyTuple_GET_SIZE(ends) != PyTuple_GET_SIZE(dated)
        || PyList_GET_SIZE(starts) > PyTuple_GET_SIZE(dated)) {
        goto python;
    }
    /* bisect_right(starts, ordinal) - 1 */
    Py_ssize_t low = 0, high = PyList_GET_SIZE(starts);
    while (low < high) {
        Py_ssize_t middle = (low + high) / 2;
        long long start;
        if (int_item(PyList_GET_ITEM(starts, middle), &start) < 0) {
            goto error;
        }
        if (ordinal < start) {
            high = middle;
        }
        else {
            low = middle + 1;
        }
    }
    Py_ssize_t position = low - 1;
    long long slot, slots, end;
    if (position >= 0) {
        slot = 2 * (long long)position + 2;
        if (int_item(PyTuple_GET_ITEM(ends, position), &end) < 0) {
            goto error;
        }
        if (ordinal < end) {
            slot += 1;
        }
    }
    else if (PyTuple_GET_SIZE(dated)) {
        position = 0;
        slot = 2;
    }
    else {
        slot = 0;
    }
    if (int_item(slots_object, &slots) < 0) {
        goto error;
    }
    if (slots <= 0 || slots >= NUMBER_LIMIT) {
        goto python;
    }
    slot_object = PyLong_FromLongLong(slot);
    if (slot_object == NULL) {
        goto error;
    }
    key = suffix == Py_None ? PyLong_FromLongLong(number * slots + slot)
                            : PyTuple_Pack(3, number_object, suffix, slot_object);
    if (key == NULL) {
        goto error;
    }
    found = PyDict_GetItemWithError(memo, key);
    if (found != NULL) {
        Py_INCREF(found);
        goto done;
    }
    if (PyErr_Occurred()) {
        goto error;
    }
    where = position >= 0 ? PyTuple_GET_ITEM(dated, position) : SLOT(timeline, self->tl_fallback);
    if (where == NULL) {
        goto python;
    }
    Py_INCREF(where);
    article = article_of(self, where, number_object, number, suffix);
    if (article == NULL) {
        if (PyErr_Occurred()) {
            goto error;
        }
        goto python;
    }
    if (PyDict_GET_SIZE(memo) >= self->memo_limit) {
        PyDict_Clear(memo);
    }
    PyObject *shared_key = NULL;
    if (article == Py_None) {
        shared_key = PyTuple_Pack(1, slot_object);
        if (shared_key == NULL) {
            goto error;
        }
        PyObject *shared = PyDict_GetItemWithError(memo, shared_key);
        if (shared != NULL) {
            Py_DECREF(shared_key);
            found = Py_NewRef(shared);
            if (PyDict_SetItem(memo, key, found) < 0) {
                goto error;
            }
            goto done;
        }
        if (PyErr_Occurred()) {
            Py_DECREF(shared_key);
            goto error;
        }
    }
    PyObject *law = SLOT(timeline, self->tl_law), *repeal = SLOT(timeline, self->tl_repeal);
    if (law == NULL || repeal == NULL) {
        Py_XDECREF(shared_key);
        goto python;
    }
    const Py_ssize_t offsets[] = {self->lk_law, self->lk_version, self->lk_article,
                                  self->lk_repeal, self->lk_article_version};
    PyObject *const values[] = {law, (slot & 1) ? where : Py_None, article, repeal, where};
    found = made(self->lookup_type, 5, offsets, values);
    if (found == NULL || (shared_key != NULL && PyDict_SetItem(memo, shared_key, found) < 0)
        || PyDict_SetItem(memo, key, found) < 0) {
        Py_XDECREF(shared_key);
        goto error;
    }
    Py_XDECREF(shared_key);
    goto done;
python:
    /* nothing stored yet: the Python path answers */
    found = PyObject_Vectorcall(self->python_lookup, args, nargsf, NULL);
    goto done;
error:
    Py_CLEAR(found);
done:
    Py_DECREF(timeline);
    Py_XDECREF(key);
    Py_XDECREF(slot_object);
    Py_XDECREF(where);
    Py_XDECREF(article);
    return found;
}

static int
lookup_path_init(PyObject *object, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"lookups", "nothing", "timeline", "version", "index", "lookup",
                               "article", "memo_limit", NULL};
    LookupPath *self = (LookupPath *)object;
    PyObject *lookups, *nothing;
    PyTypeObject *timeline_type, *version_type, *index_type, *lookup_type, *article_type;
    Py_ssize_t memo_limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO!O!O!O!O!n", keywords, &lookups, &nothing,
                                     &PyType_Type, &timeline_type, &PyType_Type, &version_type,
                                     &PyType_Type, &index_type, &PyType_Type, &lookup_type,
                                     &PyType_Type, &article_type, &memo_limit)) {
        return -1;
    }
    struct {
        PyTypeObject *cls;
        const char *name;
        Py_ssize_t *offset;
    } slots[] = {
        {timeline_type, "starts", &self->tl_starts},
        {timeline_type, "ends", &self->tl_ends},
        {timeline_type, "dated", &self->tl_dated},
        {timeline_type, "fallback", &self->tl_fallback},
        {timeline_type, "slots", &self->tl_slots},
        {timeline_type, "memo", &self->tl_memo},
        {timeline_type, "law", &self->tl_law},
        {timeline_type, "repeal", &self->tl_repeal},
        {version_type, "id", &self->version_id},
        {index_type, "layouts", &self->ix_layouts},
        {index_type, "made", &self->ix_made},
        {index_type, "article_shapes", &self->ix_article_shapes},
        {index_type, "shapes", &self->ix_shapes},
        {index_type, "labels", &self->ix_labels},
        {lookup_type, "law", &self->lk_law},
        {lookup_type, "version", &self->lk_version},
        {lookup_type, "article", &self->lk_article},
        {lookup_type, "repeal", &self->lk_repeal},
        {lookup_type, "article_version", &self->lk_article_version},
        {article_type, "version_id", &self->ai_version_id},
        {article_type, "number", &self->ai_number},
        {article_type, "suffix", &self->ai_suffix},
        {article_type, "label", &self->ai_label},
        {article_type, "deleted", &self->ai_deleted},
        {article_type, "paragraph_count", &self->ai_paragraph_count},
        {article_type, "item_counts", &self->ai_item_counts},
        {article_type, "chapter_path", &self->ai_chapter_path},
    };
    for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++) {
        if (slot_offset(slots[i].cls, slots[i].name, slots[i].offset) < 0) {
            return -1;
        }
    }
    if (memo_limit <= 0) {
        PyErr_SetString(PyExc_ValueError, "memo_limit must be positive");
        return -1;
    }
    PyObject *python_lookup = PyObject_GetAttrString(lookups, "lookup");
    PyObject *timeline_of = PyObject_GetAttrString(lookups, "timeline_of");
    PyObject *timelines = PyObject_GetAttrString(lookups, "timelines");
    PyObject *index = PyObject_GetAttrString(lookups, "index");
    PyObject *article = index == NULL ? NULL : PyObject_GetAttrString(index, "article");
    if (article == NULL || !PyDict_CheckExact(timelines) || !Py_IS_TYPE(index, index_type)) {
        if (article != NULL) {
            PyErr_SetString(PyExc_TypeError, "lookups: a Lookups over a StatuteIndex");
        }
        Py_XDECREF(python_lookup);
        Py_XDECREF(timeline_of);
        Py_XDECREF(timelines);
        Py_XDECREF(index);
        Py_XDECREF(article);
        return -1;
    }
    Py_XSETREF(self->python_lookup, python_lookup);
    Py_XSETREF(self->timeline_of, timeline_of);
    Py_XSETREF(self->timelines, timelines);
    Py_XSETREF(self->index, index);
    Py_XSETREF(self->article, article);
    Py_XSETREF(self->nothing, Py_NewRef(nothing));
    Py_XSETREF(self->timeline_type, (PyTypeObject *)Py_NewRef(timeline_type));
    Py_XSETREF(self->version_type, (PyTypeObject *)Py_NewRef(version_type));
    Py_XSETREF(self->lookup_type, (PyTypeObject *)Py_NewRef(lookup_type));
    Py_XSETREF(self->article_type, (PyTypeObject *)Py_NewRef(article_type));
    self->memo_limit = memo_limit;
    self->vectorcall = lookup_path_call;
    return 0;
}

static int
lookup_path_traverse(LookupPath *self, visitproc visit, void *arg)
{
    Py_VISIT(self->python_lookup);
    Py_VISIT(self->timeline_of);
    Py_VISIT(self->article);
    Py_VISIT(self->timelines);
    Py_VISIT(self->index);
    Py_VISIT(self->nothing);
    Py_VISIT(self->timeline_type);
    Py_VISIT(self->version_type);
    Py_VISIT(self->lookup_type);
    Py_VISIT(self->article_type);
    return 0;
}

static int
lookup_path_clear(LookupPath *self)
{
    Py_CLEAR(self->python_lookup);
    Py_CLEAR(self->timeline_of);
    Py_CLEAR(self->article);
    Py_CLEAR(self->timelines);
    Py_CLEAR(self->index);
    Py_CLEAR(self->nothing);
    Py_CLEAR(self->timeline_type);
    Py_CLEAR(self->version_type);
    Py_CLEAR(self->lookup_type);
    Py_CLEAR(self->article_type);
    return 0;
}

static void
lookup_path_dealloc(LookupPath *self)
{
    PyObject_GC_UnTrack(self);
    lookup_path_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
lookup_path_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    LookupPath *self = (LookupPath *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->vectorcall = NULL; /* callable once initialised */
    }
    return (PyObject *)self;
}

static PyObject *
lookup_path_tp_call(PyObject *callable, PyObject *args, PyObject *kwargs)
{
    if (((LookupPath *)callable)->vectorcall == NULL) {
        PyErr_SetString(PyExc_TypeError, "LookupPath not initialised");
        return NULL;
    }
    return PyVectorcall_Call(callable, args, kwargs);
}

static PyTypeObject LookupPathType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "legaldb._lookup_path.LookupPath",
    .tp_doc = PyDoc_STR("LookupPath(lookups, nothing, timeline, version, index, lookup, article, "
                        "memo_limit): Lookups.lookup compiled, called as it is."),
    .tp_basicsize = sizeof(LookupPath),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(LookupPath, vectorcall),
    .tp_new = lookup_path_new,
    .tp_init = lookup_path_init,
    .tp_call = lookup_path_tp_call,
    .tp_traverse = (traverseproc)lookup_path_traverse,
    .tp_clear = (inquiry)lookup_path_clear,
    .tp_dealloc = (destructor)lookup_path_dealloc,
};

static struct PyModuleDef lookup_path_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "legaldb._lookup_path",
    .m_doc = PyDoc_STR("legaldb.index.Lookups.lookup compiled (legaldb/_lookup_path.c)."),
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__lookup_path(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL || PyType_Ready(&LookupPathType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&lookup_path_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "LookupPath", (PyObject *)&LookupPathType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
