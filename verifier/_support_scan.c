/* Two scans of the support verdicts and the quantities compiled (verifier/support.py and
 * verifier/numbers.py keep the Python reference of each and take it when this module is not
 * built):
 *
 * - `content_bigrams(text, phrases)`: the character bigrams of text with the phrases cut out,
 *   what `support.content_bigrams` gives (the text split by the alternation of the phrases,
 *   longest first, then each segment's bigrams in text order, as a frozenset). At each place
 *   the longest phrase found there is cut (the alternation tries them longest first; two
 *   phrases of one length cannot both match at one place). The regular expression engine
 *   tried the alternatives one after the other at every place that opens one of them.
 * - `quantity_matches(match, text, numerals, openers, prefixes)`: what
 *   `pattern.finditer(text)` gives for a pattern whose matches are never empty and start
 *   either at a numeral (a decimal digit, read by \d+…, or a run of `numerals`, read by
 *   [numerals]+) or an opener, or with one of the `prefixes` followed by one of those
 *   (`numbers._QUANTITY`: an optional bound word written before, then alternatives that each
 *   open with a numeral, 双 or 半): `match` (the pattern's bound `match`) asked at each such
 *   place, from the end of the last match on, but inside a run the place before opened in
 *   vain. The engine cannot skip to those places by
 *   itself: a pattern opening with a look-ahead gets no first-character set, so it entered
 *   its matcher at every character; and at 不, 年, 最 … it tried every alternative.
 * - `top_other(shares, cited, share)`: the best share of the articles other than the cited
 *   one, as `support._cited_and_top_other` finds it, in one pass over the values.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

/* A filter of 1,024 bits on a character's low bits: clear, the character is none of the
 * characters marked (set, it may be one). */
#define MARK(bits, ch) ((bits)[((ch) & 1023) >> 5] |= (uint32_t)1 << ((ch) & 31))
#define MARKED(bits, ch) ((bits)[((ch) & 1023) >> 5] >> ((ch) & 31) & 1)

/* content_bigrams(text: str, phrases: tuple[str, ...]) -> frozenset[str] */
static PyObject *
content_bigrams(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "content_bigrams(text: str, phrases: tuple[str, ...])");
        return NULL;
    }
    PyObject *text = args[0], *phrases = args[1];
    Py_ssize_t count = PyTuple_GET_SIZE(phrases);
    if (count > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "content_bigrams: too many phrases");
        return NULL;
    }
    /* The phrases chained by their first character's low ten bits: at each place only the
     * phrases whose first character may be the place's are compared. */
    int32_t head[1024];
    memset(head, 0xff, sizeof(head)); /* -1: no phrase */
    int32_t *chain = PyMem_Malloc((count ? count : 1) * sizeof(int32_t));
    if (chain == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t p = 0; p < count; p++) {
        PyObject *phrase = PyTuple_GET_ITEM(phrases, p);
        if (!PyUnicode_Check(phrase)) {
            PyMem_Free(chain);
            PyErr_SetString(PyExc_TypeError, "content_bigrams: the phrases must be str");
            return NULL;
        }
        chain[p] = -1;
        if (PyUnicode_GET_LENGTH(phrase)) {
            Py_UCS4 first = PyUnicode_READ_CHAR(phrase, 0);
            chain[p] = head[first & 1023];
            head[first & 1023] = (int32_t)p;
        }
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    PyObject *grams = PySet_New(NULL);
    if (grams == NULL) {
        PyMem_Free(chain);
        return NULL;
    }
    Py_ssize_t i = 0, segment = 0; /* segment: where the current segment starts */
    while (i < length) {
        Py_UCS4 first = PyUnicode_READ(kind, data, i);
        Py_ssize_t cut = 0; /* the longest phrase found here (the alternation's choice) */
        for (int32_t p = head[first & 1023]; p >= 0; p = chain[p]) {
            PyObject *phrase = PyTuple_GET_ITEM(phrases, p);
            Py_ssize_t size = PyUnicode_GET_LENGTH(phrase);
            if (size > length - i || size <= cut) {
                continue;
            }
            int pkind = PyUnicode_KIND(phrase);
            const void *pdata = PyUnicode_DATA(phrase);
            Py_ssize_t k = 0;
            while (k < size && PyUnicode_READ(pkind, pdata, k) == PyUnicode_READ(kind, data, i + k)) {
                k++;
            }
            if (k == size) {
                cut = size;
            }
        }
        if (cut) {
            segment = i + cut;
            i += cut;
            continue;
        }
        if (i > segment) {
            PyObject *gram = PyUnicode_Substring(text, i - 1, i + 1);
            if (gram == NULL || PySet_Add(grams, gram) < 0) {
                Py_XDECREF(gram);
                Py_DECREF(grams);
                PyMem_Free(chain);
                return NULL;
            }
            Py_DECREF(gram);
        }
        i++;
    }
    PyMem_Free(chain);
    PyObject *result = PyFrozenSet_New(grams);
    Py_DECREF(grams);
    return result;
}

/* Whether ch is one of the `count` characters of data. */
static inline int
is_listed(Py_UCS4 ch, int dkind, const void *data, Py_ssize_t count)
{
    for (Py_ssize_t n = 0; n < count; n++) {
        if (PyUnicode_READ(dkind, data, n) == ch) {
            return 1;
        }
    }
    return 0;
}

/* 1 when ch is a decimal digit (what \d matches in a str pattern), 2 when it is one of the
 * numerals (marked: their filter), 0 otherwise. */
static inline int
numeral_kind(Py_UCS4 ch, const uint32_t *marked, int nkind, const void *ndata, Py_ssize_t ncount)
{
    if (ch < 128) {
        return ch >= '0' && ch <= '9';
    }
    if (MARKED(marked, ch) && is_listed(ch, nkind, ndata, ncount)) {
        return 2;
    }
    /* The CJK unified ideographs (U+4E00-U+9FFF) hold no decimal digit. */
    return !(ch >= 0x4E00 && ch <= 0x9FFF) && Py_UNICODE_ISDECIMAL(ch);
}

/* Characters a run of numerals holds besides the decimal digits and the numerals: what \d+
 * (?:,\d{3})*(?:\.\d+)? reads between digits. */
static inline int
is_separator(Py_UCS4 ch)
{
    return ch == ',' || ch == '.';
}

/* What `quantity_matches` needs to know of the pattern at a place: its numerals (marked: their
 * filter), openers, and the followers (marked too) one of which follows the number of every
 * match but an opener's, after white space. */
typedef struct {
    int kind, nkind, okind, fkind;
    const void *data, *ndata, *odata, *fdata;
    Py_ssize_t length, ncount, ocount, fcount;
    const uint32_t *marked, *following;
} Scan;

static inline int
is_follower(const Scan *s, Py_UCS4 ch)
{
    return MARKED(s->following, ch) && is_listed(ch, s->fkind, s->fdata, s->fcount);
}

/* Whether a match may open at place at (past a bound word, or with none): at an opener, or at
 * a numeral whose run (the decimal digits, numerals and separators from there on) ends where
 * a follower comes after white space. Every number the pattern reads from a numeral lies in
 * that run, and what follows it inside the run is a numeral (万 and 亿, which open 万元 and
 * 亿元, are numerals: the run goes on to the 元 after them), so where this is 0, the pattern
 * cannot match here (it is not asked). Without followers every numeral may open one. */
static int
may_open(const Scan *s, Py_ssize_t at)
{
    if (at >= s->length) {
        return 0;
    }
    Py_UCS4 ch = PyUnicode_READ(s->kind, s->data, at);
    if (is_listed(ch, s->okind, s->odata, s->ocount)) {
        return 1;
    }
    if (!numeral_kind(ch, s->marked, s->nkind, s->ndata, s->ncount)) {
        return 0;
    }
    if (s->fcount == 0) {
        return 1;
    }
    Py_ssize_t j = at + 1;
    for (; j < s->length; j++) {
        Py_UCS4 next = PyUnicode_READ(s->kind, s->data, j);
        if (is_separator(next)) {
            continue;
        }
        if (!numeral_kind(next, s->marked, s->nkind, s->ndata, s->ncount)) {
            break;
        }
    }
    while (j < s->length && Py_UNICODE_ISSPACE(PyUnicode_READ(s->kind, s->data, j))) {
        j++;
    }
    return j < s->length && is_follower(s, PyUnicode_READ(s->kind, s->data, j));
}

/* quantity_matches(match, text, numerals: str, openers: str, prefixes: tuple[str, ...],
 *                  followers: str = "") */
static PyObject *
quantity_matches(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if ((nargs != 5 && nargs != 6) || !PyUnicode_Check(args[1]) || !PyUnicode_Check(args[2]) ||
        !PyUnicode_Check(args[3]) || !PyTuple_Check(args[4]) ||
        (nargs == 6 && !PyUnicode_Check(args[5]))) {
        PyErr_SetString(PyExc_TypeError, "quantity_matches(match, text: str, numerals: str, "
                                         "openers: str, prefixes: tuple, followers: str = '')");
        return NULL;
    }
    PyObject *match = args[0], *text = args[1], *numerals = args[2], *openers = args[3];
    PyObject *prefixes = args[4];
    int kind = PyUnicode_KIND(text), nkind = PyUnicode_KIND(numerals);
    int okind = PyUnicode_KIND(openers);
    const void *data = PyUnicode_DATA(text), *ndata = PyUnicode_DATA(numerals);
    const void *odata = PyUnicode_DATA(openers);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), ncount = PyUnicode_GET_LENGTH(numerals);
    Py_ssize_t ocount = PyUnicode_GET_LENGTH(openers), pcount = PyTuple_GET_SIZE(prefixes);
    uint32_t marked[32] = {0}, opening[32] = {0}; /* the numerals; the prefixes' first characters */
    uint32_t following[32] = {0};                  /* the followers */
    for (Py_ssize_t n = 0; n < ncount; n++) {
        MARK(marked, PyUnicode_READ(nkind, ndata, n));
    }
    Scan scan = {kind, nkind, okind, 0, data, ndata, odata, NULL, length, ncount, ocount, 0,
                 marked, following};
    if (nargs == 6) {
        PyObject *followers = args[5];
        scan.fkind = PyUnicode_KIND(followers);
        scan.fdata = PyUnicode_DATA(followers);
        scan.fcount = PyUnicode_GET_LENGTH(followers);
        for (Py_ssize_t n = 0; n < scan.fcount; n++) {
            MARK(following, PyUnicode_READ(scan.fkind, scan.fdata, n));
        }
    }
    for (Py_ssize_t p = 0; p < pcount; p++) {
        PyObject *prefix = PyTuple_GET_ITEM(prefixes, p);
        if (!PyUnicode_Check(prefix) || PyUnicode_GET_LENGTH(prefix) == 0) {
            PyErr_SetString(PyExc_TypeError, "quantity_matches: the prefixes must be words");
            return NULL;
        }
        MARK(opening, PyUnicode_READ_CHAR(prefix, 0));
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) {
        return NULL;
    }
    Py_ssize_t i = 0, failed = -1; /* failed: the last place asked in vain */
    int failed_run = 0;            /* its numeral_kind */
    while (i < length) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        int run = numeral_kind(ch, marked, nkind, ndata, ncount);
        if (run && failed == i - 1 && failed_run == run) {
            /* Inside a run of digits (or of numerals) that the place before opened in vain:
             * each numeral read from here (\d+… or [numerals]+), the place before reads too,
             * with the same rest after it, and no bound word opens at a numeral; so no match
             * opens here either. */
            failed = i;
            i++;
            continue;
        }
        /* A match may open here without a bound word (may_open), or else only with a prefix
         * word, where one may open right after it. */
        int opens = (run || is_listed(ch, okind, odata, ocount)) && may_open(&scan, i);
        for (Py_ssize_t p = 0; !opens && MARKED(opening, ch) && p < pcount; p++) {
            PyObject *prefix = PyTuple_GET_ITEM(prefixes, p);
            Py_ssize_t size = PyUnicode_GET_LENGTH(prefix), k = 0;
            int pkind = PyUnicode_KIND(prefix);
            const void *pdata = PyUnicode_DATA(prefix);
            if (size >= length - i) {
                continue; /* no room for the numeral after it */
            }
            while (k < size && PyUnicode_READ(pkind, pdata, k) == PyUnicode_READ(kind, data, i + k)) {
                k++;
            }
            if (k == size) {
                /* The test of the place past the word, as may_open starts it. */
                Py_UCS4 next = PyUnicode_READ(kind, data, i + size);
                opens = (numeral_kind(next, marked, nkind, ndata, ncount) ||
                         is_listed(next, okind, odata, ocount)) &&
                        may_open(&scan, i + size);
            }
        }
        if (!opens) {
            /* The pattern would answer None here: as when asked in vain (a numeral whose run
             * reaches no follower is the place before of the rest of its run). */
            failed = i;
            failed_run = run;
            i++;
            continue;
        }
        PyObject *position = PyLong_FromSsize_t(i);
        if (position == NULL) {
            goto failed;
        }
        PyObject *call[2] = {text, position};
        PyObject *got = PyObject_Vectorcall(match, call, 2, NULL);
        Py_DECREF(position);
        if (got == NULL) {
            goto failed;
        }
        if (got == Py_None) {
            Py_DECREF(got);
            failed = i;
            failed_run = run;
            i++;
            continue;
        }
        int appended = PyList_Append(found, got);
        PyObject *end = appended < 0 ? NULL : PyObject_CallMethod(got, "end", NULL);
        Py_DECREF(got);
        if (end == NULL) {
            goto failed;
        }
        Py_ssize_t after = PyLong_AsSsize_t(end);
        Py_DECREF(end);
        if (after == -1 && PyErr_Occurred()) {
            goto failed;
        }
        if (after <= i) {
            PyErr_SetString(PyExc_ValueError, "quantity_matches: an empty match");
            goto failed;
        }
        i = after;
    }
    return found;
failed:
    Py_DECREF(found);
    return NULL;
}

/* A share as a double: 1 when it is a float the double stands for exactly as max() and >
 * would see it (not NaN, not -0.0), 0 otherwise (the caller then answers in Python). */
static int
plain_share(PyObject *value, double *share)
{
    if (!PyFloat_CheckExact(value)) {
        return 0;
    }
    *share = PyFloat_AS_DOUBLE(value);
    return !Py_IS_NAN(*share) && !(*share == 0.0 && signbit(*share));
}

/* top_other(shares, cited, share) -> float | None: the highest share of the articles other
 * than the cited one, as `support._cited_and_top_other` finds it. `share` is the cited
 * article's share under its own key (None when it has none there): the highest of the other
 * values, one value equal to `share` left out (0.0 when none is left). With no share, the
 * highest of all values (0.0 when none), or None when some key's article is `cited` (held
 * under another label: the caller walks the shares) or a value is not a plain float. */
static PyObject *
top_other(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyDict_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "top_other(shares: dict, cited, share: float | None)");
        return NULL;
    }
    PyObject *shares = args[0], *cited = args[1], *held = args[2];
    double share = 0.0;
    if (held != Py_None && !plain_share(held, &share)) {
        Py_RETURN_NONE;
    }
    double top = 0.0, second = 0.0; /* the highest value and the highest below it */
    Py_ssize_t tops = 0, seconds = 0, position = 0;
    PyObject *key, *value;
    while (PyDict_Next(shares, &position, &key, &value)) {
        double v;
        if (!plain_share(value, &v)) {
            Py_RETURN_NONE;
        }
        if (held == Py_None) {
            if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) < 1) {
                Py_RETURN_NONE;
            }
            Py_INCREF(key);
            int same = PyObject_RichCompareBool(PyTuple_GET_ITEM(key, 0), cited, Py_EQ);
            Py_DECREF(key);
            if (same < 0) {
                return NULL;
            }
            if (same) {
                Py_RETURN_NONE;
            }
        }
        if (tops == 0 || v > top) {
            if (tops) {
                second = top;
                seconds = 1;
            }
            top = v;
            tops = 1;
        }
        else if (v == top) {
            tops++;
        }
        else if (seconds == 0 || v > second) {
            second = v;
            seconds = 1;
        }
    }
    if (held == Py_None || tops == 0 || share < top || tops > 1) {
        return PyFloat_FromDouble(tops ? top : 0.0);
    }
    return PyFloat_FromDouble(seconds ? second : 0.0); /* the cited share was the one highest */
}

static PyMethodDef methods[] = {
    {"content_bigrams", (PyCFunction)(void (*)(void))content_bigrams, METH_FASTCALL,
     "content_bigrams(text, phrases): the text's bigrams, the phrases cut out (a frozenset)."},
    {"quantity_matches", (PyCFunction)(void (*)(void))quantity_matches, METH_FASTCALL,
     "quantity_matches(match, text, numerals, openers, prefixes): the matches finditer "
     "gives, asked only where one can start."},
    {"top_other", (PyCFunction)(void (*)(void))top_other, METH_FASTCALL,
     "top_other(shares, cited, share): the highest share of the other articles (None: ask "
     "Python)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "verifier._support_scan",
    "The support verdicts' content bigrams and best other share, and the quantity scan, compiled.", -1, methods,
};

PyMODINIT_FUNC
PyInit__support_scan(void)
{
    return PyModule_Create(&module);
}
