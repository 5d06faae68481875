/* Two steps of `verifier.textnorm_quote.normalize_for_compare` compiled, character for
 * character: `fold_width` (what `textnorm.fold_width`'s str.translate gives: U+FF01-U+FF5E to
 * ASCII, the ideographic space to a space) and `word_characters` (what `[\W_]+` replaced by
 * nothing gives: the characters the regular expression engine takes for word characters but
 * the underscore, that is those Py_UNICODE_ISALNUM holds, as str.isalnum). The engine asked
 * a character class, and the Python fold made a string of each folded character found, at
 * every character: these were a quarter of the normalisation's cost (docs/performance.md).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The text of the `length` code points in `buffer` (of the narrowest kind that holds them). */
static PyObject *
from_code_points(Py_UCS4 *buffer, Py_ssize_t length)
{
    PyObject *result = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buffer, length);
    PyMem_Free(buffer);
    return result;
}

/* fold_width(text): the text with each full-width ASCII form and the ideographic space folded
 * to ASCII; the text itself when it holds none. */
static PyObject *
fold_width(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "fold_width(text: str)");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), first = -1;
    if (kind != PyUnicode_1BYTE_KIND) { /* a Latin-1 text holds none */
        for (Py_ssize_t i = 0; i < length; i++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            if ((ch >= 0xFF01 && ch <= 0xFF5E) || ch == 0x3000) {
                first = i;
                break;
            }
        }
    }
    if (first < 0) {
        Py_INCREF(text);
        return text;
    }
    Py_UCS4 *buffer = PyMem_Malloc((length ? length : 1) * sizeof(Py_UCS4));
    if (buffer == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch >= 0xFF01 && ch <= 0xFF5E) {
            ch -= 0xFEE0;
        }
        else if (ch == 0x3000) {
            ch = 0x20;
        }
        buffer[i] = ch;
    }
    return from_code_points(buffer, length);
}

/* word_characters(text): the characters of text that are alphanumeric (str.isalnum), in
 * order: what re.sub(r"[\W_]+", "", text) leaves. */
static PyObject *
word_characters(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "word_characters(text: str)");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    Py_UCS4 *buffer = PyMem_Malloc((length ? length : 1) * sizeof(Py_UCS4));
    if (buffer == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (Py_UNICODE_ISALNUM(ch)) {
            buffer[kept++] = ch;
        }
    }
    return from_code_points(buffer, kept);
}

static PyMethodDef normalize_methods[] = {
    {"fold_width", fold_width, METH_O,
     PyDoc_STR("fold_width(text): full-width ASCII forms and the ideographic space to ASCII "
               "(textnorm.fold_width compiled).")},
    {"word_characters", word_characters, METH_O,
     PyDoc_STR("word_characters(text): the alphanumeric characters of text, in order (what "
               "[\\W_]+ replaced by nothing leaves).")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef normalize_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "verifier._normalize",
    .m_doc = PyDoc_STR("Steps of the quote normalisation compiled (verifier/_normalize.c)."),
    .m_size = -1,
    .m_methods = normalize_methods,
};

PyMODINIT_FUNC
PyInit__normalize(void)
{
    return PyModule_Create(&normalize_module);
}
