/* Where a quote and a claim start and end, compiled: `extractor.quotes`'s `_python_lead`,
 * `_python_comment`, `_python_sentence_start` and `_python_claim_bounds`, which find them with
 * regular expressions (_LEAD_RE, _COMMENT_RE, _CLAIM_BODY_RE, _CLAIM_TO_END_RE), step for step
 * in C; and `quote_span`, the whole of `_python_quote_span` (find_quote without the Quote made):
 * the lead-in, the closing quote mark, the word tests, the heading (_HEADING_RE), the first
 * sentence end (_FIRST_END_OR_SIGN_RE), the comments and list lines (_LIST_LINE_RE) and the
 * cut, in its order.
 *
 * The engine tests a character set through a function call per character (about 50
 * instructions a character of the answers) and sets up its state, its match object and the
 * groups at every call; here a character is a switch or a comparison. Each function reads the
 * text where its bounds say, nothing else, and makes no object but its result. The pattern's
 * alternatives are tried in the pattern's order, and where the pattern is possessive (or cannot
 * give anything back to a match) the first way through is the match, as here. The word lists
 * are the Python's, passed in; the numbers and character sets are stated here and held by the
 * module (MAX_QUOTE, TRAILING …) for the test that they are the Python's.
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

/* (left, right) of the claim around text[start:end] (bounds within the text, start <= end). */
static void
find_claim_bounds(PyObject *text, Py_ssize_t start, Py_ssize_t end, Py_ssize_t *found_left,
                  Py_ssize_t *found_right)
{
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
    *found_left = left;
    *found_right = right;
}

/* claim_bounds(text, start, end): (left, right) of the claim around text[start:end]. */
static PyObject *
claim_bounds(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text;
    Py_ssize_t start, end, left, right;
    if (read_args(args, nargs, "claim_bounds", &text, &start, &end) < 0) {
        return NULL;
    }
    find_claim_bounds(text, start, end, &left, &right);
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

/* Where the lead-in at `at` ends (quotes._LEAD_RE), whether it holds a verb and its mark
 * (：:，, or 0). */
static Py_ssize_t
lead_end(int kind, const void *data, Py_ssize_t size, Py_ssize_t at, int *verb, Py_UCS4 *mark)
{
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
    Py_ssize_t verb_length = first_word(kind, data, size, at, VERBS);
    at += verb_length;
    *verb = verb_length != 0;
    while (one_of(kind, data, size, at, spaces)) {
        at++;
    }
    *mark = one_of(kind, data, size, at, (const Py_UCS4 *)U"：:，,");
    at += *mark != 0;
    while (one_of(kind, data, size, at, spaces_or_break)) {
        at++;
    }
    if (at > 0 && one_of(kind, data, size, at - 1, (const Py_UCS4 *)U"，,")
        && starts_with(kind, data, size, at, (const Py_UCS4 *)U"规定")) {
        at += 2;
        at += one_of(kind, data, size, at, (const Py_UCS4 *)U"了") != 0;
    }
    return at;
}

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
    int verb;
    Py_UCS4 mark;
    at = lead_end(PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), at,
                  &verb, &mark);
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

/* Where the first comment of text[start:end] starts (its end in *after), or -1: quotes._COMMENT_RE's
 * first match, branch by branch (the words of `words` learnt). */
static Py_ssize_t
find_comment(PyObject *text, int kind, const void *data, Py_ssize_t start, Py_ssize_t end,
             PyObject *words, PyObject *comma_words, PyObject *prompt_words, Py_ssize_t *after)
{
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
                *after = next;
                return at;
            }
            break;
        case 0xFF0C: case ',':
            /* a comma right before 因此, 所以 … */
            if (starts_with_any(text, kind, data, next, end, comma_words)) {
                *after = next;
                return at;
            }
            break;
        case '\n':
            /* a blank line, or a prompt the model echoes */
            while (next < end && spacing(PyUnicode_READ(kind, data, next))) {
                next++;
            }
            if (next < end && PyUnicode_READ(kind, data, next) == '\n') {
                *after = next + 1;
                return at;
            }
            if (starts_with_any(text, kind, data, next, end, prompt_words)) {
                *after = next;
                return at;
            }
            break;
        case '<':
            /* <eoa> or an HTML tag */
            if (next + 4 <= end && PyUnicode_READ(kind, data, next) == 'e'
                && PyUnicode_READ(kind, data, next + 1) == 'o'
                && PyUnicode_READ(kind, data, next + 2) == 'a'
                && PyUnicode_READ(kind, data, next + 3) == '>') {
                *after = next + 4;
                return at;
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
                    *after = close + 1;
                    return at;
                }
            }
            break;
        default:
            break;
        }
    }
    return -1;
}

/* Whether each of `lists` is a tuple of str (ready to be read). */
static int
check_word_lists(PyObject *const *lists, int count, const char *name)
{
    for (int l = 0; l < count; l++) {
        if (!PyTuple_Check(lists[l])) {
            PyErr_Format(PyExc_TypeError, "%s(): the words must be tuples of str", name);
            return -1;
        }
        for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(lists[l]); w++) {
            PyObject *word = PyTuple_GET_ITEM(lists[l], w);
            if (!PyUnicode_Check(word) || PyUnicode_READY(word) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_Format(PyExc_TypeError, "%s(): the words must be tuples of str", name);
                }
                return -1;
            }
        }
    }
    return 0;
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
    /* The words learnt last were checked then (a tuple of str does not change). */
    int known = words == known_words;
    if (check_word_lists(args + 3 + known, 3 - known, "comment") < 0) {
        return NULL;
    }
    PyObject *text;
    Py_ssize_t start, end;
    if (read_args(args, 3, "comment", &text, &start, &end) < 0) {
        return NULL;
    }
    if (!known) {
        learn_words(words);
    }
    Py_ssize_t after;
    Py_ssize_t at = find_comment(text, PyUnicode_KIND(text), PyUnicode_DATA(text), start, end,
                                 words, comma_words, prompt_words, &after);
    if (at < 0) {
        Py_RETURN_NONE;
    }
    return Py_BuildValue("(nn)", at, after);
}

/* --- find_quote whole (quotes._python_quote_span) --- */

#define MAX_QUOTE 5000    /* quotes.MAX_QUOTE */
#define COMMENT_REACH 34  /* quotes._COMMENT_REACH */
/* quotes._OPEN_QUOTES: each opening mark and its closing mark. */
static const char OPEN_QUOTES[] = "“”\"\"「」『』‘’";
/* quotes._SENTENCE_ENDS, quotes._TRAILING, quotes._LIST_LINE_FIRST (the module holds each,
 * as UTF-8 here, for the test that they are the Python's). */
static const char SENTENCE_ENDS[] = "。！？!?";
static const char TRAILING[] = " \t\u3000\u00a0\n。；;，,";
static const char LIST_LINE_FIRST[] = " \t\u3000\u00a0（(一二三四五六七八九十";

/* The closing mark of the quote `c` opens, or 0. */
static inline Py_UCS4
closer_of(Py_UCS4 c)
{
    switch (c) {
    case 0x201C: return 0x201D; /* “ ” */
    case '"': return '"';
    case 0x300C: return 0x300D; /* 「 」 */
    case 0x300E: return 0x300F; /* 『 』 */
    case 0x2018: return 0x2019; /* ‘ ’ */
    default: return 0;
    }
}

/* 。！？!?: quotes._SENTENCE_ENDS. */
static inline int
sentence_end_mark(Py_UCS4 c)
{
    return kept_end(c);
}

/* The spacing, line breaks and marks a quote does not end with (quotes._TRAILING). */
static inline int
trailing(Py_UCS4 c)
{
    switch (c) {
    case ' ': case '\t': case 0x3000: case 0xA0: case '\n':
    case 0x3002: case 0xFF1B: case ';': case 0xFF0C: case ',':
        return 1;
    default:
        return 0;
    }
}

/* 一二三四五六七八九十: the numerals of a list item (（一）, 一、). */
static inline int
numeral(Py_UCS4 c)
{
    switch (c) {
    case 0x4E00: case 0x4E8C: case 0x4E09: case 0x56DB: case 0x4E94:
    case 0x516D: case 0x4E03: case 0x516B: case 0x4E5D: case 0x5341:
        return 1;
    default:
        return 0;
    }
}

/* How many numerals (at most 3) stand at `at`. */
static inline Py_ssize_t
numerals(int kind, const void *data, Py_ssize_t stop, Py_ssize_t at)
{
    Py_ssize_t n = 0;
    while (n < 3 && at + n < stop && numeral(PyUnicode_READ(kind, data, at + n))) {
        n++;
    }
    return n;
}

/* Whether a numbered list item opens at `at` (quotes._opens_list: _LIST_LINE_RE, whose \d is
 * a Unicode decimal, as str.isdecimal). */
static int
opens_list(int kind, const void *data, Py_ssize_t size, Py_ssize_t at)
{
    while (at < size && spacing(PyUnicode_READ(kind, data, at))) {
        at++;
    }
    if (at >= size) {
        return 0;
    }
    Py_UCS4 c = PyUnicode_READ(kind, data, at);
    if (Py_UNICODE_ISDECIMAL(c)) {
        /* \d{1,2}[.、．](?!\d) */
        Py_ssize_t n = 1;
        if (at + 1 < size && Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, data, at + 1))) {
            n = 2;
        }
        if (at + n >= size) {
            return 0;
        }
        Py_UCS4 m = PyUnicode_READ(kind, data, at + n);
        if (m != '.' && m != 0x3001 && m != 0xFF0E) {
            return 0;
        }
        return at + n + 1 >= size || !Py_UNICODE_ISDECIMAL(PyUnicode_READ(kind, data, at + n + 1));
    }
    if (c == 0xFF08 || c == '(') {
        /* [（(][一二三四五六七八九十]{1,3}[）)] */
        Py_ssize_t n = numerals(kind, data, size, at + 1);
        if (n == 0 || at + 1 + n >= size) {
            return 0;
        }
        Py_UCS4 d = PyUnicode_READ(kind, data, at + 1 + n);
        return d == 0xFF09 || d == ')';
    }
    /* [一二三四五六七八九十]{1,3}、 */
    Py_ssize_t n = numerals(kind, data, size, at);
    return n > 0 && at + n < size && PyUnicode_READ(kind, data, at + n) == 0x3001;
}

/* Where a heading at `start` ends (quotes._heading_end: _HEADING_RE, 【…】, […], …罪：), or
 * `start`. */
static Py_ssize_t
heading_end(int kind, const void *data, Py_ssize_t size, Py_ssize_t start)
{
    if (start >= size) {
        return start;
    }
    Py_UCS4 c = PyUnicode_READ(kind, data, start);
    Py_ssize_t at = -1;
    if (c == 0x3010 || c == '[') {
        /* 【[^】\n]{1,40}】 or \[[^\]\n]{1,40}\] */
        Py_UCS4 close = c == '[' ? ']' : 0x3011;
        Py_ssize_t n = 0;
        while (n < 40 && start + 1 + n < size) {
            Py_UCS4 d = PyUnicode_READ(kind, data, start + 1 + n);
            if (d == close || d == '\n') {
                break;
            }
            n++;
        }
        if (n > 0 && start + 1 + n < size && PyUnicode_READ(kind, data, start + 1 + n) == close) {
            at = start + n + 2;
        }
    }
    else {
        /* [\u4e00-\u9fff、]{2,20}罪[：:], the longest that is one (罪 is in the set) */
        Py_ssize_t run = 0;
        while (run < 20 && start + run < size) {
            Py_UCS4 d = PyUnicode_READ(kind, data, start + run);
            if (!((d >= 0x4E00 && d <= 0x9FFF) || d == 0x3001)) {
                break;
            }
            run++;
        }
        for (Py_ssize_t n = run; n >= 2; n--) {
            if (start + n + 1 < size && PyUnicode_READ(kind, data, start + n) == 0x7F6A) {
                Py_UCS4 d = PyUnicode_READ(kind, data, start + n + 1);
                if (d == 0xFF1A || d == ':') {
                    at = start + n + 2;
                    break;
                }
            }
        }
    }
    if (at < 0) {
        return start;
    }
    /* [ \t\u3000\xa0,，:：]* */
    while (at < size) {
        Py_UCS4 d = PyUnicode_READ(kind, data, at);
        if (!(spacing(d) || d == ',' || d == 0xFF0C || d == ':' || d == 0xFF1A)) {
            break;
        }
        at++;
    }
    return at;
}

/* Where the first sentence end (。！？!?) of text[start:end] is, unless a recital sign (：:,
 * （一）) comes first, or -1 (quotes._first_sentence_end: _FIRST_END_OR_SIGN_RE). */
static Py_ssize_t
first_sentence_end(int kind, const void *data, Py_ssize_t start, Py_ssize_t end)
{
    for (Py_ssize_t at = start; at < end; at++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, at);
        if (sentence_end_mark(c)) {
            return at;
        }
        if (c == 0xFF1A || c == ':') {
            return -1;
        }
        if (c == 0xFF08 || c == '(') {
            Py_ssize_t n = numerals(kind, data, end, at + 1);
            if (n > 0 && at + 1 + n < end) {
                Py_UCS4 d = PyUnicode_READ(kind, data, at + 1 + n);
                if (d == 0xFF09 || d == ')') {
                    return -1;
                }
            }
        }
    }
    return -1;
}

/* Whether text[start:end) ends with one of `words` (str.endswith with a tuple). */
static int
ends_with_any(PyObject *text, Py_ssize_t start, Py_ssize_t end, PyObject *words)
{
    for (Py_ssize_t w = 0; w < PyTuple_GET_SIZE(words); w++) {
        Py_ssize_t found = PyUnicode_Tailmatch(text, PyTuple_GET_ITEM(words, w), start, end, 1);
        if (found != 0) {
            return (int)found; /* 1, or -1 with an error */
        }
    }
    return 0;
}

/* The word lists quote_span was last given, checked. */
static PyObject *known_quote_words = NULL;
enum { ANSWER_VOICE, INSTRUCTION, APPLYING, NOT_CONTENT, WORDS, COMMA_WORDS, PROMPT_WORDS,
       WORD_LISTS };

/* The content an answer gives for the citation ending at `after`, not past `limit`, from the
 * arguments (text, after, limit, cited_at, word_lists): 1 and its bounds in *found_start and
 * *found_end, 0 if none, -1 with an error (quotes._python_quote_span compiled, step for step). */
static int
find_quote_span(PyObject *const *args, const char *name, Py_ssize_t *found_start,
                Py_ssize_t *found_end)
{
    PyObject *text = args[0], *lists = args[4];
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s(): the text must be a str", name);
        return -1;
    }
    if (lists != known_quote_words) {
        if (!PyTuple_Check(lists) || PyTuple_GET_SIZE(lists) != WORD_LISTS) {
            PyErr_Format(PyExc_TypeError, "%s(): the word lists must be 7 tuples", name);
            return -1;
        }
        if (check_word_lists(&PyTuple_GET_ITEM(lists, 0), WORD_LISTS, name) < 0) {
            return -1;
        }
        Py_XSETREF(known_quote_words, Py_NewRef(lists));
    }
    PyObject *words = PyTuple_GET_ITEM(lists, WORDS);
    if (words != known_words) {
        learn_words(words);
    }
    Py_ssize_t after = PyLong_AsSsize_t(args[1]);
    if (after == -1 && PyErr_Occurred()) {
        return -1;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(args[2]);
    if (limit == -1 && PyErr_Occurred()) {
        return -1;
    }
    int cited = args[3] != Py_None;
    Py_ssize_t cited_at = cited ? PyLong_AsSsize_t(args[3]) : 0;
    if (cited_at == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (after < 0 || cited_at < 0) {
        PyErr_Format(PyExc_ValueError, "%s(): after and cited_at must be >= 0", name);
        return -1;
    }
    if (PyUnicode_READY(text) < 0) {
        return -1;
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (after >= size) {
        return 0; /* the lead-in ends at the text's end */
    }
    int verb;
    Py_UCS4 mark;
    Py_ssize_t start = lead_end(kind, data, size, after, &verb, &mark);
    if (start >= limit || start >= size) {
        return 0;
    }
    /* Applying (按照《…》第X条…) or instructing: the two characters before the citation. */
    Py_ssize_t cited_from = cited_at > 2 ? cited_at - 2 : 0;
    Py_UCS4 first = PyUnicode_READ(kind, data, start);
    Py_UCS4 closer = closer_of(first);
    if (closer && (mark || verb || start == after)) {
        /* quotes._closing: the matching mark within MAX_QUOTE characters, nested ones counted */
        Py_ssize_t stop = start + 1 + MAX_QUOTE < size ? start + 1 + MAX_QUOTE : size;
        Py_ssize_t depth = 0;
        for (Py_ssize_t at = start + 1; at < stop; at++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, at);
            if (c == closer) {
                if (depth == 0) {
                    if (at > start + 1) {
                        *found_start = start + 1;
                        *found_end = at;
                        return 1;
                    }
                    break;
                }
                depth--;
            }
            else if (c == first) {
                depth++;
            }
        }
        start++;
    }
    else if (!mark) {
        if (verb) {
            return 0;
        }
        for (Py_ssize_t at = after; at < start; at++) {
            if (PyUnicode_READ(kind, data, at) == '\n') {
                return 0;
            }
        }
        if (starts_with_any(text, kind, data, start, size,
                            PyTuple_GET_ITEM(lists, NOT_CONTENT))) {
            return 0;
        }
        if (cited) {
            int applying = ends_with_any(text, cited_from, cited_at,
                                         PyTuple_GET_ITEM(lists, APPLYING));
            if (applying != 0) {
                return applying < 0 ? -1 : 0;
            }
        }
    }
    int comma = mark == 0xFF0C || mark == ',';
    if (comma) {
        if (starts_with_any(text, kind, data, start, size, PyTuple_GET_ITEM(lists, ANSWER_VOICE))) {
            return 0;
        }
        if (cited) {
            int instructing = ends_with_any(text, cited_from, cited_at,
                                            PyTuple_GET_ITEM(lists, INSTRUCTION));
            if (instructing != 0) {
                return instructing < 0 ? -1 : 0;
            }
        }
    }
    start = heading_end(kind, data, size, start);
    Py_ssize_t end = start + MAX_QUOTE;
    if (end > limit) {
        end = limit;
    }
    if (end > size) {
        end = size;
    }
    Py_ssize_t window_end = end;
    if (end - start < 2) {
        return 0; /* the content is cut from text[start:end] */
    }
    /* After "，" the recitation ends at its first sentence end unless a recital sign comes
     * first: no comment is looked for far past it. */
    Py_ssize_t sentence_end = comma ? first_sentence_end(kind, data, start, end) : -1;
    Py_ssize_t search_end = end;
    if (sentence_end >= 0 && sentence_end + COMMENT_REACH < end) {
        search_end = sentence_end + COMMENT_REACH;
    }
    PyObject *comma_words = PyTuple_GET_ITEM(lists, COMMA_WORDS);
    PyObject *prompt_words = PyTuple_GET_ITEM(lists, PROMPT_WORDS);
    Py_ssize_t comment_end;
    Py_ssize_t comment_at = find_comment(text, kind, data, start, search_end, words, comma_words,
                                         prompt_words, &comment_end);
    int in_list = opens_list(kind, data, size, start);
    while (comment_at >= 0) {
        /* quotes._continues_as_list: a blank line before an item of a numbered list that a
         * lead-in ending in a colon opened (or that is already running) */
        int breaks = 0;
        for (Py_ssize_t at = comment_at; at < comment_end && breaks < 2; at++) {
            breaks += PyUnicode_READ(kind, data, at) == '\n';
        }
        if (breaks < 2 || !opens_list(kind, data, size, comment_end)) {
            break;
        }
        if (!in_list) {
            Py_ssize_t last = comment_at;
            while (last > start && spacing(PyUnicode_READ(kind, data, last - 1))) {
                last--;
            }
            if (last <= start) {
                break;
            }
            Py_UCS4 c = PyUnicode_READ(kind, data, last - 1);
            if (c != 0xFF1A && c != ':') {
                break;
            }
        }
        in_list = 1;
        comment_at = find_comment(text, kind, data, comment_end, search_end, words, comma_words,
                                  prompt_words, &comment_end);
    }
    if (sentence_end >= 0) {
        end = comment_at >= 0 && comment_at < sentence_end ? comment_at : sentence_end + 1;
    }
    else if (comment_at >= 0) {
        end = comment_at + sentence_end_mark(PyUnicode_READ(kind, data, comment_at));
    }
    else if (window_end == limit) {
        /* The next citation starts here: the recitation ends with the sentence before it. */
        Py_ssize_t sentence = end;
        while (sentence > start && !ends_sentence(PyUnicode_READ(kind, data, sentence - 1))) {
            sentence--;
        }
        if (sentence > start) {
            end = sentence;
        }
    }
    while (end > start && trailing(PyUnicode_READ(kind, data, end - 1))) {
        end--;
    }
    if (end - start < 2) {
        return 0;
    }
    *found_start = start;
    *found_end = end;
    return 1;
}

/* --- the spans made: models.new_span (the compiled maker of extractor/_slotted.c, or the
 * Python one) called with the class and the bounds found here --- */

/* make(cls, text[start:end], start, end) (bounds within the text), or NULL. */
static PyObject *
make_span(PyObject *make, PyObject *cls, PyObject *text, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *args[4] = {cls, PyUnicode_Substring(text, start, end), PyLong_FromSsize_t(start),
                         PyLong_FromSsize_t(end)};
    PyObject *made = args[1] && args[2] && args[3] ? PyObject_Vectorcall(make, args, 4, NULL)
                                                   : NULL;
    for (int f = 1; f < 4; f++) {
        Py_XDECREF(args[f]);
    }
    return made;
}

/* claim(text, start, end, make, cls): the claim around text[start:end] as make(cls, its text,
 * left, right) (quotes._python_claim). */
static PyObject *
claim(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyCallable_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "claim() takes a text, two bounds, a maker and a class");
        return NULL;
    }
    PyObject *text;
    Py_ssize_t start, end, left, right;
    if (read_args(args, 3, "claim", &text, &start, &end) < 0) {
        return NULL;
    }
    find_claim_bounds(text, start, end, &left, &right);
    return make_span(args[3], args[4], text, left, right);
}

/* quote_span(text, after, limit, cited_at, word_lists): (start, end) of the content an answer
 * gives for the citation ending at `after`, not past `limit`, or None. */
static PyObject *
quote_span(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "quote_span() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    Py_ssize_t start, end;
    int found = find_quote_span(args, "quote_span", &start, &end);
    if (found <= 0) {
        return found < 0 ? NULL : Py_NewRef(Py_None);
    }
    return Py_BuildValue("(nn)", start, end);
}

/* quote(text, after, limit, cited_at, word_lists, make, cls): the content as make(cls, its
 * text, start, end), or None (quotes._python_quote). */
static PyObject *
quote(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7 || !PyCallable_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "quote() takes 5 arguments, a maker and a class");
        return NULL;
    }
    Py_ssize_t start, end;
    int found = find_quote_span(args, "quote", &start, &end);
    if (found <= 0) {
        return found < 0 ? NULL : Py_NewRef(Py_None);
    }
    return make_span(args[5], args[6], args[0], start, end);
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
    {"quote_span", (PyCFunction)(void (*)(void))quote_span, METH_FASTCALL,
     PyDoc_STR("quote_span(text, after, limit, cited_at, word_lists): (start, end) of the "
               "content an answer gives for the citation ending at `after`, not past `limit`, "
               "or None; word_lists: quotes._QUOTE_WORD_LISTS (quotes._python_quote_span "
               "compiled).")},
    {"quote", (PyCFunction)(void (*)(void))quote, METH_FASTCALL,
     PyDoc_STR("quote(text, after, limit, cited_at, word_lists, make, cls): quote_span's "
               "content as make(cls, text[start:end], start, end) (models.new_span and a "
               "Quote), or None (quotes._python_quote compiled).")},
    {"claim", (PyCFunction)(void (*)(void))claim, METH_FASTCALL,
     PyDoc_STR("claim(text, start, end, make, cls): the claim around text[start:end] "
               "(claim_bounds) as make(cls, its text, left, right) (models.new_span and a "
               "Span; quotes._python_claim compiled).")},
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
    PyObject *module = PyModule_Create(&quote_bounds_module);
    if (module == NULL) {
        return NULL;
    }
    /* The constants stated here, for the test that they are extractor.quotes's. */
    if (PyModule_AddIntConstant(module, "MAX_QUOTE", MAX_QUOTE) < 0
        || PyModule_AddIntConstant(module, "MAX_CLAIM_SIDE", MAX_CLAIM_SIDE) < 0
        || PyModule_AddIntConstant(module, "COMMENT_REACH", COMMENT_REACH) < 0
        || PyModule_AddStringConstant(module, "OPEN_QUOTES", OPEN_QUOTES) < 0
        || PyModule_AddStringConstant(module, "SENTENCE_ENDS", SENTENCE_ENDS) < 0
        || PyModule_AddStringConstant(module, "TRAILING", TRAILING) < 0
        || PyModule_AddStringConstant(module, "LIST_LINE_FIRST", LIST_LINE_FIRST) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
