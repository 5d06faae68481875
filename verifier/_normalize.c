/* Steps of `verifier.textnorm_quote.normalize_for_compare` compiled, character for character:
 * `fold_width` (what `textnorm.fold_width`'s str.translate gives: U+FF01-U+FF5E to ASCII, the
 * ideographic space to a space), `word_characters` (what `[\W_]+` replaced by nothing gives:
 * the characters the regular expression engine takes for word characters but the underscore,
 * that is those Py_UNICODE_ISALNUM holds, as str.isalnum) and `lowered_words` (them lowered),
 * the two tests that spare the text a search (`holds_marker_char`, `holds_decimal`), and the
 * split of an article into sentences (`sentences`, `textnorm_quote.split_sentences`). The
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

/* Whether ch is one of the `count` code points of data. */
static inline int
is_among(Py_UCS4 ch, int kind, const void *data, Py_ssize_t count)
{
    for (Py_ssize_t n = 0; n < count; n++) {
        if (PyUnicode_READ(kind, data, n) == ch) {
            return 1;
        }
    }
    return 0;
}

/* Append text[start:end] to pieces unless it is all white space (what str.strip empties:
 * Py_UNICODE_ISSPACE); -1 with an error set. */
static int
append_piece(PyObject *pieces, PyObject *text, int kind, const void *data, Py_ssize_t start,
             Py_ssize_t end)
{
    Py_ssize_t i = start;
    while (i < end && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) {
        i++;
    }
    if (i == end) {
        return 0;
    }
    PyObject *piece = PyUnicode_Substring(text, start, end);
    if (piece == NULL) {
        return -1;
    }
    int failed = PyList_Append(pieces, piece);
    Py_DECREF(piece);
    return failed;
}

/* sentences(text, ends): the pieces of text that end after each of the characters of ends, and
 * the rest after the last one, those that are not all white space, in order: what
 * `list(filter(str.strip, re.findall(f"[^{ends}]*[{ends}]|[^{ends}]+", text)))` gives
 * (`textnorm_quote.split_sentences`), without the engine's class test at every character. */
static PyObject *
sentences(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "sentences(text: str, ends: str)");
        return NULL;
    }
    PyObject *text = args[0], *ends = args[1];
    int kind = PyUnicode_KIND(text), ekind = PyUnicode_KIND(ends);
    const void *data = PyUnicode_DATA(text), *edata = PyUnicode_DATA(ends);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), ecount = PyUnicode_GET_LENGTH(ends);
    /* A filter on the ends' low six bits: clear, the character is none of them. */
    uint64_t marked = 0;
    for (Py_ssize_t n = 0; n < ecount; n++) {
        marked |= (uint64_t)1 << (PyUnicode_READ(ekind, edata, n) & 63);
    }
    PyObject *pieces = PyList_New(0);
    if (pieces == NULL) {
        return NULL;
    }
    Py_ssize_t start = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if ((marked >> (ch & 63) & 1) && is_among(ch, ekind, edata, ecount)) {
            if (append_piece(pieces, text, kind, data, start, i + 1) < 0) {
                Py_DECREF(pieces);
                return NULL;
            }
            start = i + 1;
        }
    }
    if (start < length && append_piece(pieces, text, kind, data, start, length) < 0) {
        Py_DECREF(pieces);
        return NULL;
    }
    return pieces;
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
    {"sentences", (PyCFunction)(void (*)(void))sentences, METH_FASTCALL,
     PyDoc_STR("sentences(text, ends): the pieces of text ending after each of the characters "
               "of ends, and the rest, but those all white space.")},
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
