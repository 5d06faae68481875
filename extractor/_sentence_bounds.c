/* A claim's and a quote's sentence bounds compiled: `extractor.quotes`'s
 * `_python_sentence_start` and `_python_claim_bounds`, which find them with regular
 * expressions, step for step in C.
 *
 * A sentence ends at 。！？；!?; or a line break. The engine tests a character set through a
 * function call per character (about 50 instructions a character of the answers); here it is a
 * switch. Both functions read the text where its bounds say, nothing else, and make no object
 * but their result.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_CLAIM_SIDE 400 /* quotes.MAX_CLAIM_SIDE */

/* 。！？；!?; or a line break: where a sentence ends (quotes._CLAIM_BODY_RE's set). */
static inline int
ends_sentence(Py_UCS4 c)
{
    switch (c) {
    case 0x3002: case 0xFF01: case 0xFF1F: case 0xFF1B:
    case '!': case '?': case ';': case '\n':
        return 1;
    default:
        return 0;
    }
}

/* 。！？!?: the marks a claim keeps (quotes._CLAIM_TO_END_RE's last set). */
static inline int
kept_end(Py_UCS4 c)
{
    return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == '!' || c == '?';
}

/* The spacing a claim does not start with. */
static inline int
spacing(Py_UCS4 c)
{
    return c == ' ' || c == '\t' || c == 0x3000 || c == 0xA0;
}

static int
read_args(PyObject *const *args, Py_ssize_t nargs, const char *name, PyObject **text,
          Py_ssize_t *first, Py_ssize_t *second)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "%s() takes 3 arguments (%zd given)", name, nargs);
        return -1;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s(): the text must be a str", name);
        return -1;
    }
    *text = args[0];
    *first = PyLong_AsSsize_t(args[1]);
    if (*first == -1 && PyErr_Occurred()) {
        return -1;
    }
    *second = PyLong_AsSsize_t(args[2]);
    if (*second == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (PyUnicode_READY(*text) < 0) {
        return -1;
    }
    /* The bounds as the engine takes them (state_init): within the text, start <= end. */
    Py_ssize_t size = PyUnicode_GET_LENGTH(*text);
    if (*first < 0) {
        *first = 0;
    }
    if (*first > size) {
        *first = size;
    }
    if (*second < 0) {
        *second = 0;
    }
    if (*second > size) {
        *second = size;
    }
    if (*second < *first) {
        *second = *first;
    }
    return 0;
}

/* sentence_start(text, floor, end): after the last sentence end of text[floor:end], or floor. */
static PyObject *
sentence_start(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text;
    Py_ssize_t floor, end;
    if (read_args(args, nargs, "sentence_start", &text, &floor, &end) < 0) {
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t at = end;
    while (at > floor && !ends_sentence(PyUnicode_READ(kind, data, at - 1))) {
        at--;
    }
    return PyLong_FromSsize_t(at);
}

/* claim_bounds(text, start, end): (left, right) of the claim around text[start:end]. */
static PyObject *
claim_bounds(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text;
    Py_ssize_t start, end;
    if (read_args(args, nargs, "claim_bounds", &text, &start, &end) < 0) {
        return NULL;
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* Back from start over at most MAX_CLAIM_SIDE characters to a sentence end. */
    Py_ssize_t floor = start > MAX_CLAIM_SIDE ? start - MAX_CLAIM_SIDE : 0;
    Py_ssize_t left = start;
    while (left > floor && !ends_sentence(PyUnicode_READ(kind, data, left - 1))) {
        left--;
    }
    /* On from end over at most MAX_CLAIM_SIDE characters, and the 。！？ ending them. */
    Py_ssize_t stop = end + MAX_CLAIM_SIDE + 1 < size ? end + MAX_CLAIM_SIDE + 1 : size;
    Py_ssize_t body_stop = end + MAX_CLAIM_SIDE < stop ? end + MAX_CLAIM_SIDE : stop;
    Py_ssize_t right = end;
    while (right < body_stop && !ends_sentence(PyUnicode_READ(kind, data, right))) {
        right++;
    }
    if (right < stop && kept_end(PyUnicode_READ(kind, data, right))) {
        right++;
    }
    while (left < right && spacing(PyUnicode_READ(kind, data, left))) {
        left++;
    }
    return Py_BuildValue("(nn)", left, right);
}

static PyMethodDef sentence_bounds_methods[] = {
    {"sentence_start", (PyCFunction)(void (*)(void))sentence_start, METH_FASTCALL,
     PyDoc_STR("sentence_start(text, floor, end): the position after the last sentence end "
               "(。！？；!?; or a line break) of text[floor:end], or floor "
               "(quotes._python_sentence_start compiled).")},
    {"claim_bounds", (PyCFunction)(void (*)(void))claim_bounds, METH_FASTCALL,
     PyDoc_STR("claim_bounds(text, start, end): (left, right) of the sentence around "
               "text[start:end], at most MAX_CLAIM_SIDE characters each side "
               "(quotes._python_claim_bounds compiled).")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef sentence_bounds_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "extractor._sentence_bounds",
    .m_doc = PyDoc_STR("A claim's and a quote's sentence bounds compiled "
                       "(extractor/_sentence_bounds.c)."),
    .m_size = -1,
    .m_methods = sentence_bounds_methods,
};

PyMODINIT_FUNC
PyInit__sentence_bounds(void)
{
    return PyModule_Create(&sentence_bounds_module);
}
