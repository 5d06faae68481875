/* Steps of `verifier.textnorm_quote.normalize_for_compare` compiled, character for character:
 * `fold_width` (what `textnorm.fold_width`'s str.translate gives: U+FF01-U+FF5E to ASCII, the
 * ideographic space to a space), `word_characters` (what `[\W_]+` replaced by nothing gives:
 * the characters the regular expression engine takes for word characters but the underscore,
 * that is those Py_UNICODE_ISALNUM holds, as str.isalnum) and `lowered_words` (them lowered),
 * and the two tests that spare the text a search (`holds_marker_char`, `holds_decimal`). The
 * engine asked a character class at every character, and the Python fold made a string of
 * each folded character found: these were most of the normalisation's cost
 * (docs/performance.md).
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
        /* ASCII and the CJK unified ideographs (U+4E00-U+9FEF, all letters since Unicode 11)
         * without the database's lookups: a statute's text is mostly these, and
         * Py_UNICODE_ISALNUM asked up to four tables of each. */
        if (ch < 0x80 ? (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
                            || (ch >= '0' && ch <= '9')
                      : (ch >= 0x4E00 && ch <= 0x9FEF) || Py_UNICODE_ISALNUM(ch)) {
            buffer[kept++] = ch;
        }
    }
    return from_code_points(buffer, kept);
}

/* lowered_words(text): word_characters(text).lower(), str.lower asked only when a word
 * character may have a lower case: one other than a-z, 0-9 and the CJK unified ideographs
 * (U+4E00-U+9FFF, which have none), so the text of a statute is not looked up character by
 * character again. */
static PyObject *
lowered_words(PyObject *module, PyObject *text)
{
    PyObject *words = word_characters(module, text);
    if (words == NULL) {
        return NULL;
    }
    int kind = PyUnicode_KIND(words);
    const void *data = PyUnicode_DATA(words);
    Py_ssize_t length = PyUnicode_GET_LENGTH(words);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
              || (ch >= 0x4E00 && ch <= 0x9FFF))) {
            PyObject *lowered = PyObject_CallMethod(words, "lower", NULL);
            Py_DECREF(words);
            return lowered;
        }
    }
    return words;
}

/* holds_marker_char(text): whether text holds a character every item marker holds (once
 * brackets are half-width): ( . 、 ① to ⑳ or ❶ to ❿, as textnorm_quote._MARKER_CHARS. */
static PyObject *
holds_marker_char(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "holds_marker_char(text: str)");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch == '(' || ch == '.' || ch == 0x3001 || (ch >= 0x2460 && ch <= 0x2473)
            || (ch >= 0x2776 && ch <= 0x277F)) {
            Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

/* holds_decimal(text): whether text holds a decimal digit of any script (what \d matches in
 * a str pattern: Py_UNICODE_ISDECIMAL). */
static PyObject *
holds_decimal(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "holds_decimal(text: str)");
        return NULL;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        /* No CJK unified ideograph (U+4E00-U+9FFF) is a decimal digit: not looked up. */
        if ((ch >= '0' && ch <= '9')
            || (ch > 0x7F && (ch < 0x4E00 || ch > 0x9FFF) && Py_UNICODE_ISDECIMAL(ch))) {
            Py_RETURN_TRUE;
        }
    }
    Py_RETURN_FALSE;
}

static PyMethodDef normalize_methods[] = {
    {"fold_width", fold_width, METH_O,
     PyDoc_STR("fold_width(text): full-width ASCII forms and the ideographic space to ASCII "
               "(textnorm.fold_width compiled).")},
    {"word_characters", word_characters, METH_O,
     PyDoc_STR("word_characters(text): the alphanumeric characters of text, in order (what "
               "[\\W_]+ replaced by nothing leaves).")},
    {"lowered_words", lowered_words, METH_O,
     PyDoc_STR("lowered_words(text): word_characters(text).lower().")},
    {"holds_marker_char", holds_marker_char, METH_O,
     PyDoc_STR("holds_marker_char(text): whether text holds ( . 、 ①-⑳ or ❶-❿.")},
    {"holds_decimal", holds_decimal, METH_O,
     PyDoc_STR("holds_decimal(text): whether text holds a decimal digit (\\d).")},
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
