/* Where a quote and a claim start and end, compiled: `extractor.quotes`'s `_python_lead`,
 * `_python_comment`, `_python_sentence_start` and `_python_claim_bounds`, which find them with
 * regular expressions (_LEAD_RE, _COMMENT_RE, _CLAIM_BODY_RE, _CLAIM_TO_END_RE), step for step
 * in C.
 *
 * The engine tests a character set through a function call per character (about 50
 * instructions a character of the answers) and sets up its state, its match object and the
 * groups at every call; here a character is a switch or a comparison. Each function reads the
 * text where its bounds say, nothing else, and makes no object but its result. The pattern's
 * alternatives are tried in the pattern's order, and where the pattern is possessive (or cannot
 * give anything back to a match) the first way through is the match, as here.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

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

/* Whether text[at:] starts with `word` (a 0-ended string of code points). */
static int
starts_with(int kind, const void *data, Py_ssize_t size, Py_ssize_t at, const Py_UCS4 *word)
{
    for (; *word; word++, at++) {
        if (at >= size || PyUnicode_READ(kind, data, at) != *word) {
            return 0;
        }
    }
    return 1;
}

/* The length of the first of `words` (NULL-ended, in the pattern's order) text[at:] starts
 * with, or 0. */
static Py_ssize_t
first_word(int kind, const void *data, Py_ssize_t size, Py_ssize_t at, const Py_UCS4 *const *words)
{
    for (; *words; words++) {
        if (starts_with(kind, data, size, at, *words)) {
            Py_ssize_t length = 0;
            while ((*words)[length]) {
                length++;
            }
            return length;
        }
    }
    return 0;
}

/* The character at `at` if it is one of `chars` (a 0-ended string), else 0. */
static Py_UCS4
one_of(int kind, const void *data, Py_ssize_t size, Py_ssize_t at, const Py_UCS4 *chars)
{
    if (at >= size) {
        return 0;
    }
    Py_UCS4 c = PyUnicode_READ(kind, data, at);
    for (; *chars; chars++) {
        if (*chars == c) {
            return c;
        }
    }
    return 0;
}

/* quotes._LEAD_RE's parts, in its order. */
static const Py_UCS4 *const RELATED[] = {(const Py_UCS4 *)U"相关", (const Py_UCS4 *)U"有关", NULL};
static const Py_UCS4 *const MANNER[] = {
    (const Py_UCS4 *)U"明确", (const Py_UCS4 *)U"具体", (const Py_UCS4 *)U"中",
    (const Py_UCS4 *)U"里", NULL,
};
static const Py_UCS4 *const VERBS[] = {
    (const Py_UCS4 *)U"规定如下", (const Py_UCS4 *)U"规定了", (const Py_UCS4 *)U"规定",
    (const Py_UCS4 *)U"指出", (const Py_UCS4 *)U"提到", (const Py_UCS4 *)U"载明",
    (const Py_UCS4 *)U"写道", (const Py_UCS4 *)U"明确", (const Py_UCS4 *)U"表述为",
    (const Py_UCS4 *)U"内容为", (const Py_UCS4 *)U"内容如下", (const Py_UCS4 *)U"如下", NULL,
};

/* lead(text, after): (end, verb, mark) of the lead-in at `after` (quotes._python_lead). */
static PyObject *
lead(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "lead() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *bounds[3] = {args[0], args[1], args[1]};
    PyObject *text;
    Py_ssize_t at, unused;
    if (read_args(bounds, 3, "lead", &text, &at, &unused) < 0) {
        return NULL;
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    const Py_UCS4 *spacing_or_close = (const Py_UCS4 *)U" \t\u3000\u00a0】]";
    const Py_UCS4 *spaces = (const Py_UCS4 *)U" \t\u3000\u00a0";
    const Py_UCS4 *spaces_or_break = (const Py_UCS4 *)U" \t\u3000\u00a0\n";
    while (one_of(kind, data, size, at, spacing_or_close)) {
        at++;
    }
    at += one_of(kind, data, size, at, (const Py_UCS4 *)U"的之") != 0;
    at += first_word(kind, data, size, at, RELATED);
    at += one_of(kind, data, size, at, (const Py_UCS4 *)U"也还亦均都") != 0;
    at += first_word(kind, data, size, at, MANNER);
    Py_ssize_t verb = first_word(kind, data, size, at, VERBS);
    at += verb;
    while (one_of(kind, data, size, at, spaces)) {
        at++;
    }
    Py_UCS4 mark = one_of(kind, data, size, at, (const Py_UCS4 *)U"：:，,");
    at += mark != 0;
    while (one_of(kind, data, size, at, spaces_or_break)) {
        at++;
    }
    if (at > 0 && one_of(kind, data, size, at - 1, (const Py_UCS4 *)U"，,")
        && starts_with(kind, data, size, at, (const Py_UCS4 *)U"规定")) {
        at += 2;
        at += one_of(kind, data, size, at, (const Py_UCS4 *)U"了") != 0;
    }
    PyObject *marked = mark ? PyUnicode_FromOrdinal(mark) : PyUnicode_New(0, 0);
    if (marked == NULL) {
        return NULL;
    }
    return Py_BuildValue("(nON)", at, verb ? Py_True : Py_False, marked);
}

/* Whether text[at:stop] starts with one of `words` (a tuple of str). */
static int
starts_with_any(PyObject *text, int kind, const void *data, Py_ssize_t at, Py_ssize_t stop,
                PyObject *words)
{
    Py_ssize_t count = PyTuple_GET_SIZE(words);
    for (Py_ssize_t w = 0; w < count; w++) {
        PyObject *word = PyTuple_GET_ITEM(words, w);
        Py_ssize_t length = PyUnicode_GET_LENGTH(word);
        if (at + length > stop) {
            continue;
        }
        int word_kind = PyUnicode_KIND(word);
        const void *word_data = PyUnicode_DATA(word);
        Py_ssize_t i = 0;
        while (i < length
               && PyUnicode_READ(kind, data, at + i) == PyUnicode_READ(word_kind, word_data, i)) {
            i++;
        }
        if (i == length) {
            return 1;
        }
    }
    return 0;
}

/* The comment words `comment` was last given, and a bit per BMP character: which start one
 * (most marks are followed by none, and trying each of the words costs more than the test). */
static PyObject *known_words = NULL;
static unsigned char word_starts[0x10000 / 8];
static int any_start = 0; /* an empty word, or one starting beyond the BMP: no test */

static void
learn_words(PyObject *words)
{
    memset(word_starts, 0, sizeof word_starts);
    any_start = 0;
    for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(words); w++) {
        PyObject *word = PyTuple_GET_ITEM(words, w);
        Py_UCS4 c = PyUnicode_GET_LENGTH(word) ? PyUnicode_READ_CHAR(word, 0) : 0x10000;
        if (c >= 0x10000) {
            any_start = 1;
        }
        else {
            word_starts[c >> 3] |= (unsigned char)(1u << (c & 7));
        }
    }
    Py_XSETREF(known_words, Py_NewRef(words));
}

/* Whether one of the words last learnt may start at `at`. */
static inline int
may_start_word(int kind, const void *data, Py_ssize_t at, Py_ssize_t stop)
{
    if (any_start) {
        return 1;
    }
    if (at >= stop) {
        return 0;
    }
    Py_UCS4 c = PyUnicode_READ(kind, data, at);
    return c < 0x10000 && ((word_starts[c >> 3] >> (c & 7)) & 1);
}

static inline int
ascii_letter(Py_UCS4 c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* comment(text, start, end, words, comma_words, prompt_words): (start, end) of the first
 * place in text[start:end] where the answer turns to its own comment, or None
 * (quotes._python_comment: quotes._COMMENT_RE's first match, branch by branch). */
static PyObject *
comment(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "comment() takes 6 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *words = args[3], *comma_words = args[4], *prompt_words = args[5];
    PyObject *lists[3] = {words, comma_words, prompt_words};
    /* The words learnt last were checked then (a tuple of str does not change). */
    for (int l = words == known_words ? 1 : 0; l < 3; l++) {
        if (!PyTuple_Check(lists[l])) {
            PyErr_SetString(PyExc_TypeError, "comment(): the words must be tuples of str");
            return NULL;
        }
        for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(lists[l]); w++) {
            PyObject *word = PyTuple_GET_ITEM(lists[l], w);
            if (!PyUnicode_Check(word) || PyUnicode_READY(word) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_TypeError, "comment(): the words must be tuples of str");
                }
                return NULL;
            }
        }
    }
    PyObject *text;
    Py_ssize_t start, end;
    if (read_args(args, 3, "comment", &text, &start, &end) < 0) {
        return NULL;
    }
    if (words != known_words) {
        learn_words(words);
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t at = start; at < end; at++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, at);
        Py_ssize_t next = at + 1;
        switch (c) {
        case 0x3002: case 0xFF01: case 0xFF1F: case '!': case '?': case 0xFF1B: case ';':
            /* a sentence end, spacing, a comment word */
            while (next < end && spacing(PyUnicode_READ(kind, data, next))) {
                next++;
            }
            if (may_start_word(kind, data, next, end)
                && starts_with_any(text, kind, data, next, end, words)) {
                return Py_BuildValue("(nn)", at, next);
            }
            break;
        case 0xFF0C: case ',':
            /* a comma right before 因此, 所以 … */
            if (starts_with_any(text, kind, data, next, end, comma_words)) {
                return Py_BuildValue("(nn)", at, next);
            }
            break;
        case '\n':
            /* a blank line, or a prompt the model echoes */
            while (next < end && spacing(PyUnicode_READ(kind, data, next))) {
                next++;
            }
            if (next < end && PyUnicode_READ(kind, data, next) == '\n') {
                return Py_BuildValue("(nn)", at, next + 1);
            }
            if (starts_with_any(text, kind, data, next, end, prompt_words)) {
                return Py_BuildValue("(nn)", at, next);
            }
            break;
        case '<':
            /* <eoa> or an HTML tag */
            if (next + 4 <= end && PyUnicode_READ(kind, data, next) == 'e'
                && PyUnicode_READ(kind, data, next + 1) == 'o'
                && PyUnicode_READ(kind, data, next + 2) == 'a'
                && PyUnicode_READ(kind, data, next + 3) == '>') {
                return Py_BuildValue("(nn)", at, next + 4);
            }
            if (next < end && PyUnicode_READ(kind, data, next) == '/' && next + 1 < end
                && ascii_letter(PyUnicode_READ(kind, data, next + 1))) {
                next++;
            }
            if (next < end && ascii_letter(PyUnicode_READ(kind, data, next))) {
                Py_ssize_t close = next + 1;
                Py_ssize_t most = close + 30 < end ? close + 30 : end;
                while (close < most) {
                    Py_UCS4 d = PyUnicode_READ(kind, data, close);
                    if (d == '<' || d == '>' || d == '\n') {
                        break;
                    }
                    close++;
                }
                if (close < end && PyUnicode_READ(kind, data, close) == '>') {
                    return Py_BuildValue("(nn)", at, close + 1);
                }
            }
            break;
        default:
            break;
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef quote_bounds_methods[] = {
    {"sentence_start", (PyCFunction)(void (*)(void))sentence_start, METH_FASTCALL,
     PyDoc_STR("sentence_start(text, floor, end): the position after the last sentence end "
               "(。！？；!?; or a line break) of text[floor:end], or floor "
               "(quotes._python_sentence_start compiled).")},
    {"claim_bounds", (PyCFunction)(void (*)(void))claim_bounds, METH_FASTCALL,
     PyDoc_STR("claim_bounds(text, start, end): (left, right) of the sentence around "
               "text[start:end], at most MAX_CLAIM_SIDE characters each side "
               "(quotes._python_claim_bounds compiled).")},
    {"lead", (PyCFunction)(void (*)(void))lead, METH_FASTCALL,
     PyDoc_STR("lead(text, after): (end, verb, mark) of the lead-in before a quote at "
               "`after`: where it ends, whether it holds a verb (规定, 指出 …) and its mark "
               "(：:，, or \"\") (quotes._python_lead compiled).")},
    {"comment", (PyCFunction)(void (*)(void))comment, METH_FASTCALL,
     PyDoc_STR("comment(text, start, end, words, comma_words, prompt_words): (start, end) of "
               "the first place in text[start:end] where the answer turns to its own comment, "
               "or None (quotes._python_comment compiled).")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef quote_bounds_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "extractor._quote_bounds",
    .m_doc = PyDoc_STR("Where a quote and a claim start and end, compiled "
                       "(extractor/_quote_bounds.c)."),
    .m_size = -1,
    .m_methods = quote_bounds_methods,
};

PyMODINIT_FUNC
PyInit__quote_bounds(void)
{
    return PyModule_Create(&quote_bounds_module);
}
