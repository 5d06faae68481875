/* One line of `lexgate check --jsonl` written in one call, as UTF-8.
 *
 * `Writer(...).line(item_id, result, with_text)` gives the line `verifier.serialize`'s Python
 * writer gives (`python_result_line`), and `line_utf8` the same line with its newline in UTF-8,
 * written straight into one buffer from the objects' fields: each str escaped as
 * json.encoder.encode_basestring escapes it (ensure_ascii off: `"`, `\` and the control
 * characters) and encoded to UTF-8 on the way, an int as int.__repr__, a float as
 * float.__repr__ (NaN, Infinity, -Infinity as json writes them), True, False and None as true,
 * false and null; a value of any other type (a str or int subclass …) through the Writer's
 * `encode`, json's own encoder, as the Python writer does.
 *
 * The parts a batch repeats are the Python writer's kept texts: the facts, the resolved article
 * and the support verdict read from the same memos (id -> (object, text)) and, when not there,
 * through the same `kept(memo, value, write)`; the status members from their memo by (status,
 * reason). A few rare parts are handed to the Python writer's functions whole: number
 * conflicts that are not an empty tuple, a quote check whose found_in is no tuple or list, a
 * summary whose counts are not all ints.
 *
 * A field is read from its slot when the object's type keeps it in one (the offset learnt from
 * the type's member descriptor once per type and read site, checked against the type's version
 * tag), by getattr otherwise: any object with the fields is written as Python writes it.
 *
 * A line holding a str that UTF-8 cannot encode (a lone surrogate) is not written here: the
 * methods then return None and the caller writes it in Python (and encodes it with its own
 * error handler).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>

/* ---- the output buffer -------------------------------------------------------------------- */

#define STACK_BYTES 16384

typedef struct {
    char *data;
    Py_ssize_t length;
    Py_ssize_t capacity;
    char stack[STACK_BYTES];
} Buffer;

static void
buffer_init(Buffer *b)
{
    b->data = b->stack;
    b->length = 0;
    b->capacity = STACK_BYTES;
}

static void
buffer_free(Buffer *b)
{
    if (b->data != b->stack) {
        PyMem_Free(b->data);
    }
}

/* Room for `more` bytes; -1 (MemoryError) when there is none. */
static int
reserve(Buffer *b, Py_ssize_t more)
{
    if (b->length + more <= b->capacity) {
        return 0;
    }
    if (more > PY_SSIZE_T_MAX / 2 - b->length) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t wanted = b->capacity * 2;
    if (wanted < b->length + more) {
        wanted = b->length + more;
    }
    char *grown;
    if (b->data == b->stack) {
        grown = PyMem_Malloc(wanted);
        if (grown != NULL) {
            memcpy(grown, b->data, b->length);
        }
    }
    else {
        grown = PyMem_Realloc(b->data, wanted);
    }
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = grown;
    b->capacity = wanted;
    return 0;
}

static int
write_bytes(Buffer *b, const char *bytes, Py_ssize_t size)
{
    if (reserve(b, size) < 0) {
        return -1;
    }
    memcpy(b->data + b->length, bytes, size);
    b->length += size;
    return 0;
}

#define WRITE_LITERAL(b, text) write_bytes((b), (text), (Py_ssize_t)(sizeof(text) - 1))

/* What a writer returns: done, failed (an exception set), or a str UTF-8 cannot encode met
 * (nothing set: the caller writes the line in Python). */
#define DONE 0
#define FAILED (-1)
#define UNENCODABLE 1

/* ---- scalars ------------------------------------------------------------------------------ */

static const char HEX[] = "0123456789abcdef";

/* A str as encode_basestring writes it, in UTF-8. */
static int
write_str(Buffer *b, PyObject *text)
{
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    /* the quotes, and at most 6 bytes a character (\u001f; UTF-8 takes at most 4) */
    if (reserve(b, 2 + 6 * size) < 0) {
        return FAILED;
    }
    char *out = b->data + b->length;
    *out++ = '"';
    for (Py_ssize_t i = 0; i < size; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 0x80) {
            if (c < 0x800) {
                *out++ = (char)(0xc0 | (c >> 6));
                *out++ = (char)(0x80 | (c & 0x3f));
            }
            else if (c < 0x10000) {
                if (c >= 0xd800 && c <= 0xdfff) {
                    return UNENCODABLE;
                }
                *out++ = (char)(0xe0 | (c >> 12));
                *out++ = (char)(0x80 | ((c >> 6) & 0x3f));
                *out++ = (char)(0x80 | (c & 0x3f));
            }
            else {
                *out++ = (char)(0xf0 | (c >> 18));
                *out++ = (char)(0x80 | ((c >> 12) & 0x3f));
                *out++ = (char)(0x80 | ((c >> 6) & 0x3f));
                *out++ = (char)(0x80 | (c & 0x3f));
            }
        }
        else if (c >= 0x20 && c != '"' && c != '\\') {
            *out++ = (char)c;
        }
        else {
            *out++ = '\\';
            switch (c) {
            case '"': *out++ = '"'; break;
            case '\\': *out++ = '\\'; break;
            case '\b': *out++ = 'b'; break;
            case '\f': *out++ = 'f'; break;
            case '\n': *out++ = 'n'; break;
            case '\r': *out++ = 'r'; break;
            case '\t': *out++ = 't'; break;
            default:
                *out++ = 'u';
                *out++ = '0';
                *out++ = '0';
                *out++ = HEX[(c >> 4) & 0xf];
                *out++ = HEX[c & 0xf];
            }
        }
    }
    *out++ = '"';
    b->length = out - b->data;
    return DONE;
}

/* A str that is JSON already (a kept text, what `encode` gave), as it is, in UTF-8. */
static int
write_raw(Buffer *b, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "a JSON text must be a str, not %.100s",
                     Py_TYPE(text)->tp_name);
        return FAILED;
    }
    if (PyUnicode_IS_ASCII(text)) {
        return write_bytes(b, (const char *)PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text));
    }
    Py_ssize_t size;
    const char *bytes = PyUnicode_AsUTF8AndSize(text, &size);
    if (bytes == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
            PyErr_Clear();
            return UNENCODABLE;
        }
        return FAILED;
    }
    return write_bytes(b, bytes, size);
}

static int
write_long(Buffer *b, PyObject *value)
{
    int overflow;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (number == -1 && PyErr_Occurred()) {
        return FAILED;
    }
    if (overflow) {
        PyObject *text = PyObject_Repr(value);
        if (text == NULL) {
            return FAILED;
        }
        int done = write_raw(b, text);
        Py_DECREF(text);
        return done;
    }
    char digits[24];
    char *end = digits + sizeof(digits), *start = end;
    unsigned long long magnitude = number < 0 ? 0ULL - (unsigned long long)number
                                              : (unsigned long long)number;
    do {
        *--start = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (number < 0) {
        *--start = '-';
    }
    return write_bytes(b, start, end - start);
}

static int
write_float(Buffer *b, double value)
{
    if (!isfinite(value)) {
        if (isnan(value)) {
            return WRITE_LITERAL(b, "NaN");
        }
        return value > 0 ? WRITE_LITERAL(b, "Infinity") : WRITE_LITERAL(b, "-Infinity");
    }
    char *text = PyOS_double_to_string(value, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (text == NULL) {
        return FAILED;
    }
    int done = write_bytes(b, text, (Py_ssize_t)strlen(text));
    PyMem_Free(text);
    return done;
}

typedef struct {
    PyObject_HEAD
    PyObject *encode;          /* json's encoder: any value -> its JSON */
    PyObject *kept;            /* kept(memo, value, write) -> the value's JSON, kept */
    PyObject *facts_memos;     /* (without text, with text) */
    PyObject *facts_writers;
    PyObject *resolved_memos;
    PyObject *resolved_writers;
    PyObject *support_memo;
    PyObject *support_writer;
    PyObject *status_memo;     /* (status, reason) -> the status members */
    PyObject *status_writer;   /* verdict -> the status members, kept */
    PyObject *quote_check_writer;
    PyObject *conflicts_writer;
    PyObject *summary_writer;
} Writer;

/* A Python writer's text for `value`, written as it is. */
static int
write_called(Buffer *b, PyObject *write, PyObject *value)
{
    PyObject *text = PyObject_CallOneArg(write, value);
    if (text == NULL) {
        return FAILED;
    }
    int done = write_raw(b, text);
    Py_DECREF(text);
    return done;
}

/* Any value as json writes it (what json_str, json_int, json_bool and _number write). */
static int
write_value(Writer *self, Buffer *b, PyObject *value)
{
    PyTypeObject *type = Py_TYPE(value);
    if (type == &PyUnicode_Type) {
        return write_str(b, value);
    }
    if (value == Py_None) {
        return WRITE_LITERAL(b, "null");
    }
    if (type == &PyLong_Type) {
        return write_long(b, value);
    }
    if (type == &PyFloat_Type) {
        return write_float(b, PyFloat_AS_DOUBLE(value));
    }
    if (value == Py_True) {
        return WRITE_LITERAL(b, "true");
    }
    if (value == Py_False) {
        return WRITE_LITERAL(b, "false");
    }
    return write_called(b, self->encode, value);
}

/* ---- fields read from their slots ---------------------------------------------------------- */

typedef struct {
    const char *name;
    PyObject *interned;
    PyTypeObject *type;  /* the type last read here (a strong reference) */
    unsigned int version;
    Py_ssize_t offset;   /* its slot's offset, 0: read by getattr */
} Field;

#define SLOT(object, offset) (*(PyObject **)((char *)(object) + (offset)))

/* Where `type` keeps the field: its slot's offset when the attribute is a plain slot read
 * (a T_OBJECT_EX member descriptor, found first on the type, generic getattr), else 0. */
static Py_ssize_t
slot_offset(PyTypeObject *type, PyObject *name)
{
    if (type->tp_getattro != PyObject_GenericGetAttr
        || !PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
        return 0;
    }
    PyObject *descriptor = _PyType_Lookup(type, name);  /* borrowed */
    if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) {
        return 0;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
    if (member->type != T_OBJECT_EX || member->flags != 0) {
        return 0;
    }
    return member->offset;
}

/* object.<field>, a new reference (NULL: an exception set). */
static PyObject *
get(PyObject *object, Field *field)
{
    PyTypeObject *type = Py_TYPE(object);
    if (type != field->type || type->tp_version_tag != field->version
        || !PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
        if (field->interned == NULL) {
            field->interned = PyUnicode_InternFromString(field->name);
            if (field->interned == NULL) {
                return NULL;
            }
        }
        Py_ssize_t offset = slot_offset(type, field->interned);  /* sets the version tag */
        Py_XSETREF(field->type, (PyTypeObject *)Py_NewRef(type));
        field->version = type->tp_version_tag;
        field->offset = PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) ? offset : 0;
    }
    if (field->offset) {
        PyObject *value = SLOT(object, field->offset);
        if (value != NULL) {
            return Py_NewRef(value);
        }
    }
    return PyObject_GetAttr(object, field->interned);
}

#define FIELD(variable, name) static Field variable = {name, NULL, NULL, 0, 0}

/* ",<text>" or the first member: `"key": ` then the field's value as json writes it. */
static int
write_member(Writer *self, Buffer *b, const char *key, Py_ssize_t key_size, PyObject *object,
             Field *field)
{
    if (write_bytes(b, key, key_size) < 0) {
        return FAILED;
    }
    PyObject *value = get(object, field);
    if (value == NULL) {
        return FAILED;
    }
    int done = write_value(self, b, value);
    Py_DECREF(value);
    return done;
}

#define MEMBER(self, b, key, object, field) \
    write_member((self), (b), (key), (Py_ssize_t)(sizeof(key) - 1), (object), (field))

#define CHECK(call) do { int done_ = (call); if (done_ != DONE) return done_; } while (0)

/* ---- the parts of a verdict ------------------------------------------------------------------ */

FIELD(span_text, "text");
FIELD(span_start, "start");
FIELD(span_end, "end");

/* span_text(span, with_text) of extractor.jsontext. */
static int
write_span(Writer *self, Buffer *b, PyObject *span, int with_text)
{
    if (span == Py_None) {
        return WRITE_LITERAL(b, "null");
    }
    if (with_text) {
        CHECK(MEMBER(self, b, "{\"text\": ", span, &span_text));
        CHECK(MEMBER(self, b, ", \"start\": ", span, &span_start));
    }
    else {
        CHECK(MEMBER(self, b, "{\"start\": ", span, &span_start));
    }
    CHECK(MEMBER(self, b, ", \"end\": ", span, &span_end));
    return WRITE_LITERAL(b, "}");
}

FIELD(citation_surface, "surface");
FIELD(citation_start, "start");
FIELD(citation_end, "end");
FIELD(citation_law_as_written, "law_as_written");
FIELD(citation_law, "law");
FIELD(citation_implicit, "implicit");
FIELD(citation_article, "article");
FIELD(citation_article_suffix, "article_suffix");
FIELD(citation_paragraph, "paragraph");
FIELD(citation_item, "item");
FIELD(citation_quote, "quote");
FIELD(citation_range, "range");
FIELD(citation_version_hint, "version_hint");
FIELD(citation_claim, "claim");

static int
write_span_member(Writer *self, Buffer *b, const char *key, Py_ssize_t key_size,
                  PyObject *citation, Field *field, int with_text)
{
    if (write_bytes(b, key, key_size) < 0) {
        return FAILED;
    }
    PyObject *span = get(citation, field);
    if (span == NULL) {
        return FAILED;
    }
    int done = write_span(self, b, span, with_text);
    Py_DECREF(span);
    return done;
}

/* citation_members(citation, with_text) of extractor.jsontext. */
static int
write_citation_members(Writer *self, Buffer *b, PyObject *c, int with_text)
{
    CHECK(MEMBER(self, b, "\"surface\": ", c, &citation_surface));
    CHECK(MEMBER(self, b, ", \"start\": ", c, &citation_start));
    CHECK(MEMBER(self, b, ", \"end\": ", c, &citation_end));
    CHECK(MEMBER(self, b, ", \"law_as_written\": ", c, &citation_law_as_written));
    CHECK(MEMBER(self, b, ", \"law\": ", c, &citation_law));
    CHECK(MEMBER(self, b, ", \"implicit\": ", c, &citation_implicit));
    CHECK(MEMBER(self, b, ", \"article\": ", c, &citation_article));
    CHECK(MEMBER(self, b, ", \"article_suffix\": ", c, &citation_article_suffix));
    CHECK(MEMBER(self, b, ", \"paragraph\": ", c, &citation_paragraph));
    CHECK(MEMBER(self, b, ", \"item\": ", c, &citation_item));
    CHECK(write_span_member(self, b, ", \"quote\": ", 11, c, &citation_quote, with_text));
    CHECK(MEMBER(self, b, ", \"range\": ", c, &citation_range));
    CHECK(MEMBER(self, b, ", \"version_hint\": ", c, &citation_version_hint));
    return write_span_member(self, b, ", \"claim\": ", 11, c, &citation_claim, with_text);
}

/* _kept_text(memo, value, write): the memo's text when it holds this very object. */
static int
write_kept(Writer *self, Buffer *b, PyObject *memo, PyObject *value, PyObject *write)
{
    PyObject *key = PyLong_FromVoidPtr(value);
    if (key == NULL) {
        return FAILED;
    }
    PyObject *kept = PyDict_GetItemWithError(memo, key);  /* borrowed */
    Py_DECREF(key);
    if (kept == NULL && PyErr_Occurred()) {
        return FAILED;
    }
    if (kept != NULL && PyTuple_CheckExact(kept) && PyTuple_GET_SIZE(kept) == 2
        && PyTuple_GET_ITEM(kept, 0) == value) {
        return write_raw(b, PyTuple_GET_ITEM(kept, 1));
    }
    PyObject *text = PyObject_CallFunctionObjArgs(self->kept, memo, value, write, NULL);
    if (text == NULL) {
        return FAILED;
    }
    int done = write_raw(b, text);
    Py_DECREF(text);
    return done;
}

FIELD(verdict_citation, "citation");
FIELD(verdict_status, "status");
FIELD(verdict_reason, "reason");
FIELD(verdict_facts, "facts");
FIELD(verdict_resolved, "resolved");
FIELD(verdict_quote_check, "quote_check");
FIELD(verdict_number_conflicts, "number_conflicts");
FIELD(verdict_support, "support");

static int
write_status(Writer *self, Buffer *b, PyObject *verdict)
{
    PyObject *status = get(verdict, &verdict_status);
    if (status == NULL) {
        return FAILED;
    }
    PyObject *reason = get(verdict, &verdict_reason);
    if (reason == NULL) {
        Py_DECREF(status);
        return FAILED;
    }
    PyObject *key = PyTuple_Pack(2, status, reason);
    Py_DECREF(status);
    Py_DECREF(reason);
    if (key == NULL) {
        return FAILED;
    }
    PyObject *members = PyDict_GetItemWithError(self->status_memo, key);  /* borrowed */
    Py_DECREF(key);
    if (members != NULL) {
        return write_raw(b, members);
    }
    if (PyErr_Occurred()) {
        return FAILED;
    }
    return write_called(b, self->status_writer, verdict);
}

/* A verdict's part written from the memo of its kind (the one for with_text, when a pair). */
static int
write_kept_field(Writer *self, Buffer *b, PyObject *verdict, Field *field, PyObject *memos,
                 PyObject *writers, int with_text)
{
    PyObject *memo = memos, *write = writers;
    if (PyTuple_Check(memos)) {
        memo = PyTuple_GET_ITEM(memos, with_text ? 1 : 0);
        write = PyTuple_GET_ITEM(writers, with_text ? 1 : 0);
    }
    PyObject *value = get(verdict, field);
    if (value == NULL) {
        return FAILED;
    }
    int done = write_kept(self, b, memo, value, write);
    Py_DECREF(value);
    return done;
}

FIELD(quote_check_verdict, "verdict");
FIELD(quote_check_score, "score");
FIELD(quote_check_found_in, "found_in");
FIELD(place_law, "law");
FIELD(place_article_label, "article_label");
FIELD(place_version_label, "version_label");
FIELD(place_score, "score");
FIELD(place_where, "where");

/* _quote_check_text(quote_check); found_in other than a tuple or list: that function's text. */
static int
write_quote_check(Writer *self, Buffer *b, PyObject *quote_check)
{
    PyObject *found_in = get(quote_check, &quote_check_found_in);
    if (found_in == NULL) {
        return FAILED;
    }
    if (!PyTuple_CheckExact(found_in) && !PyList_CheckExact(found_in)) {
        Py_DECREF(found_in);
        return write_called(b, self->quote_check_writer, quote_check);
    }
    int done = MEMBER(self, b, "{\"verdict\": ", quote_check, &quote_check_verdict);
    if (done == DONE) {
        done = MEMBER(self, b, ", \"score\": ", quote_check, &quote_check_score);
    }
    if (done == DONE) {
        done = WRITE_LITERAL(b, ", \"found_in\": [");
    }
    for (Py_ssize_t i = 0; done == DONE && i < PySequence_Fast_GET_SIZE(found_in); i++) {
        PyObject *place = Py_NewRef(PySequence_Fast_GET_ITEM(found_in, i));
        done = i ? MEMBER(self, b, ", {\"law\": ", place, &place_law)
                 : MEMBER(self, b, "{\"law\": ", place, &place_law);
        if (done == DONE) {
            done = MEMBER(self, b, ", \"article_label\": ", place, &place_article_label);
        }
        if (done == DONE) {
            done = MEMBER(self, b, ", \"version_label\": ", place, &place_version_label);
        }
        if (done == DONE) {
            done = MEMBER(self, b, ", \"score\": ", place, &place_score);
        }
        if (done == DONE) {
            done = MEMBER(self, b, ", \"where\": ", place, &place_where);
        }
        if (done == DONE) {
            done = WRITE_LITERAL(b, "}");
        }
        Py_DECREF(place);
    }
    Py_DECREF(found_in);
    return done == DONE ? WRITE_LITERAL(b, "]}") : done;
}

/* verdict_text(verdict, with_text) of verifier.serialize. */
static int
write_verdict(Writer *self, Buffer *b, PyObject *verdict, int with_text)
{
    CHECK(WRITE_LITERAL(b, "{"));
    PyObject *part = get(verdict, &verdict_citation);
    if (part == NULL) {
        return FAILED;
    }
    int done = write_citation_members(self, b, part, with_text);
    Py_DECREF(part);
    CHECK(done);
    CHECK(WRITE_LITERAL(b, ", "));
    CHECK(write_status(self, b, verdict));
    CHECK(WRITE_LITERAL(b, ", \"facts\": "));
    CHECK(write_kept_field(self, b, verdict, &verdict_facts, self->facts_memos,
                           self->facts_writers, with_text));
    CHECK(WRITE_LITERAL(b, ", \"resolved\": "));
    CHECK(write_kept_field(self, b, verdict, &verdict_resolved, self->resolved_memos,
                           self->resolved_writers, with_text));
    CHECK(WRITE_LITERAL(b, ", \"quote_check\": "));
    part = get(verdict, &verdict_quote_check);
    if (part == NULL) {
        return FAILED;
    }
    done = write_quote_check(self, b, part);
    Py_DECREF(part);
    CHECK(done);
    CHECK(WRITE_LITERAL(b, ", \"number_conflicts\": "));
    part = get(verdict, &verdict_number_conflicts);
    if (part == NULL) {
        return FAILED;
    }
    if (PyTuple_CheckExact(part) && PyTuple_GET_SIZE(part) == 0) {
        done = WRITE_LITERAL(b, "[]");
    }
    else {
        done = write_called(b, self->conflicts_writer, part);
    }
    Py_DECREF(part);
    CHECK(done);
    CHECK(WRITE_LITERAL(b, ", \"support\": "));
    CHECK(write_kept_field(self, b, verdict, &verdict_support, self->support_memo,
                           self->support_writer, with_text));
    return WRITE_LITERAL(b, "}");
}

FIELD(summary_total, "total");
FIELD(summary_verified, "verified");
FIELD(summary_deprecated, "deprecated");
FIELD(summary_not_yet_effective, "not_yet_effective");
FIELD(summary_unverified, "unverified");

/* _summary_text(summary): the counts and the line of them; counts not all ints: that text. */
static int
write_summary(Writer *self, Buffer *b, PyObject *summary)
{
    static const char *keys[] = {"{\"total\": ", ", \"verified\": ", ", \"deprecated\": ",
                                 ", \"notYetEffective\": ", ", \"unverified\": "};
    /* summary_line: 已校对 {total} 条 · 现行有效 {verified} · 已废止 {deprecated}
     * · 尚未生效 {not_yet_effective} · 未能核验 {unverified} */
    static const char *words[] = {"\xe5\xb7\xb2\xe6\xa0\xa1\xe5\xaf\xb9 ",
                                  " \xe6\x9d\xa1 \xc2\xb7 \xe7\x8e\xb0\xe8\xa1\x8c\xe6\x9c\x89\xe6\x95\x88 ",
                                  " \xc2\xb7 \xe5\xb7\xb2\xe5\xba\x9f\xe6\xad\xa2 ",
                                  " \xc2\xb7 \xe5\xb0\x9a\xe6\x9c\xaa\xe7\x94\x9f\xe6\x95\x88 ",
                                  " \xc2\xb7 \xe6\x9c\xaa\xe8\x83\xbd\xe6\xa0\xb8\xe9\xaa\x8c "};
    Field *fields[] = {&summary_total, &summary_verified, &summary_deprecated,
                       &summary_not_yet_effective, &summary_unverified};
    PyObject *counts[5] = {NULL};
    int done = DONE;
    for (int i = 0; i < 5; i++) {
        counts[i] = get(summary, fields[i]);
        if (counts[i] == NULL) {
            done = FAILED;
            break;
        }
        if (!PyLong_CheckExact(counts[i])) {
            done = UNENCODABLE;  /* not all ints: the Python writer's text */
        }
    }
    if (done == UNENCODABLE) {
        done = write_called(b, self->summary_writer, summary);
    }
    else if (done == DONE) {
        for (int i = 0; done == DONE && i < 5; i++) {
            done = write_bytes(b, keys[i], (Py_ssize_t)strlen(keys[i]));
            if (done == DONE) {
                done = write_long(b, counts[i]);
            }
        }
        if (done == DONE) {
            done = WRITE_LITERAL(b, ", \"line\": \"");
        }
        for (int i = 0; done == DONE && i < 5; i++) {
            done = write_bytes(b, words[i], (Py_ssize_t)strlen(words[i]));
            if (done == DONE) {
                done = write_long(b, counts[i]);
            }
        }
        if (done == DONE) {
            done = WRITE_LITERAL(b, "\"}");
        }
    }
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(counts[i]);
    }
    return done;
}

FIELD(result_as_of, "as_of");
FIELD(result_verdicts, "verdicts");
FIELD(result_summary, "summary");

/* result_line(item_id, result, with_text) of verifier.serialize, into `b`. */
static int
write_line(Writer *self, Buffer *b, PyObject *item_id, PyObject *result, int with_text)
{
    CHECK(WRITE_LITERAL(b, "{\"id\": "));
    CHECK(write_value(self, b, item_id));
    CHECK(MEMBER(self, b, ", \"as_of\": ", result, &result_as_of));
    CHECK(WRITE_LITERAL(b, ", \"citations\": ["));
    PyObject *verdicts = get(result, &result_verdicts);
    if (verdicts == NULL) {
        return FAILED;
    }
    PyObject *sequence = PySequence_Fast(verdicts, "the verdicts must be iterable");
    Py_DECREF(verdicts);
    if (sequence == NULL) {
        return FAILED;
    }
    int done = DONE;
    for (Py_ssize_t i = 0; done == DONE && i < PySequence_Fast_GET_SIZE(sequence); i++) {
        PyObject *verdict = Py_NewRef(PySequence_Fast_GET_ITEM(sequence, i));
        done = i ? WRITE_LITERAL(b, ", ") : DONE;
        if (done == DONE) {
            done = write_verdict(self, b, verdict, with_text);
        }
        Py_DECREF(verdict);
    }
    Py_DECREF(sequence);
    CHECK(done);
    CHECK(WRITE_LITERAL(b, "], \"summary\": "));
    PyObject *summary = get(result, &result_summary);
    if (summary == NULL) {
        return FAILED;
    }
    done = write_summary(self, b, summary);
    Py_DECREF(summary);
    CHECK(done);
    return WRITE_LITERAL(b, "}");
}

/* ---- the Writer ------------------------------------------------------------------------------ */

static PyObject *
written(Writer *self, PyObject *const *args, Py_ssize_t count, int utf8)
{
    if (count != 3) {
        PyErr_Format(PyExc_TypeError, "takes 3 arguments (item_id, result, with_text), %zd given",
                     count);
        return NULL;
    }
    int with_text = PyObject_IsTrue(args[2]);
    if (with_text < 0) {
        return NULL;
    }
    Buffer buffer, *b = &buffer;
    buffer_init(b);
    PyObject *made = NULL;
    int done = write_line(self, b, args[0], args[1], with_text);
    if (done == DONE && utf8) {
        done = WRITE_LITERAL(b, "\n");
    }
    if (done == UNENCODABLE) {
        made = Py_NewRef(Py_None);
    }
    else if (done == DONE) {
        made = utf8 ? PyBytes_FromStringAndSize(b->data, b->length)
                    : PyUnicode_DecodeUTF8(b->data, b->length, NULL);
    }
    buffer_free(b);
    return made;
}

static PyObject *
writer_line(Writer *self, PyObject *const *args, Py_ssize_t count)
{
    return written(self, args, count, 0);
}

static PyObject *
writer_line_utf8(Writer *self, PyObject *const *args, Py_ssize_t count)
{
    return written(self, args, count, 1);
}

static PyObject *
writer_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"encode", "kept", "facts_memos", "facts_writers",
                               "resolved_memos", "resolved_writers", "support_memo",
                               "support_writer", "status_memo", "status_writer",
                               "quote_check_writer", "conflicts_writer", "summary_writer", NULL};
    PyObject *given[13];
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "$OOO!O!O!O!O!OO!OOOO", keywords, &given[0],
                                     &given[1], &PyTuple_Type, &given[2], &PyTuple_Type,
                                     &given[3], &PyTuple_Type, &given[4], &PyTuple_Type,
                                     &given[5], &PyDict_Type, &given[6], &given[7],
                                     &PyDict_Type, &given[8], &given[9], &given[10], &given[11],
                                     &given[12])) {
        return NULL;
    }
    for (int pair = 2; pair <= 5; pair++) {
        if (PyTuple_GET_SIZE(given[pair]) != 2) {
            PyErr_SetString(PyExc_TypeError, "memos and writers come in pairs (without, with text)");
            return NULL;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (!PyDict_Check(PyTuple_GET_ITEM(given[2], i))
            || !PyDict_Check(PyTuple_GET_ITEM(given[4], i))) {
            PyErr_SetString(PyExc_TypeError, "a memo must be a dict");
            return NULL;
        }
    }
    Writer *self = (Writer *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    PyObject **slots[] = {&self->encode, &self->kept, &self->facts_memos, &self->facts_writers,
                          &self->resolved_memos, &self->resolved_writers, &self->support_memo,
                          &self->support_writer, &self->status_memo, &self->status_writer,
                          &self->quote_check_writer, &self->conflicts_writer,
                          &self->summary_writer};
    for (int i = 0; i < 13; i++) {
        *slots[i] = Py_NewRef(given[i]);
    }
    return (PyObject *)self;
}

static int
writer_traverse(Writer *self, visitproc visit, void *arg)
{
    Py_VISIT(self->encode);
    Py_VISIT(self->kept);
    Py_VISIT(self->facts_memos);
    Py_VISIT(self->facts_writers);
    Py_VISIT(self->resolved_memos);
    Py_VISIT(self->resolved_writers);
    Py_VISIT(self->support_memo);
    Py_VISIT(self->support_writer);
    Py_VISIT(self->status_memo);
    Py_VISIT(self->status_writer);
    Py_VISIT(self->quote_check_writer);
    Py_VISIT(self->conflicts_writer);
    Py_VISIT(self->summary_writer);
    return 0;
}

static int
writer_clear(Writer *self)
{
    Py_CLEAR(self->encode);
    Py_CLEAR(self->kept);
    Py_CLEAR(self->facts_memos);
    Py_CLEAR(self->facts_writers);
    Py_CLEAR(self->resolved_memos);
    Py_CLEAR(self->resolved_writers);
    Py_CLEAR(self->support_memo);
    Py_CLEAR(self->support_writer);
    Py_CLEAR(self->status_memo);
    Py_CLEAR(self->status_writer);
    Py_CLEAR(self->quote_check_writer);
    Py_CLEAR(self->conflicts_writer);
    Py_CLEAR(self->summary_writer);
    return 0;
}

static void
writer_dealloc(Writer *self)
{
    PyObject_GC_UnTrack(self);
    writer_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef writer_methods[] = {
    {"line", (PyCFunction)(void (*)(void))writer_line, METH_FASTCALL,
     PyDoc_STR("line(item_id, result, with_text): the line as str, None when UTF-8 cannot "
               "encode it")},
    {"line_utf8", (PyCFunction)(void (*)(void))writer_line_utf8, METH_FASTCALL,
     PyDoc_STR("line_utf8(item_id, result, with_text): the line and its newline in UTF-8, "
               "None when UTF-8 cannot encode it")},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "verifier._jsonline.Writer",
    .tp_doc = PyDoc_STR("Writer(*, encode, kept, facts_memos, facts_writers, resolved_memos, "
                        "resolved_writers, support_memo, support_writer, status_memo, "
                        "status_writer, quote_check_writer, conflicts_writer, summary_writer): "
                        "the lines of `lexgate check --jsonl`"),
    .tp_basicsize = sizeof(Writer),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = writer_new,
    .tp_traverse = (traverseproc)writer_traverse,
    .tp_clear = (inquiry)writer_clear,
    .tp_dealloc = (destructor)writer_dealloc,
    .tp_methods = writer_methods,
};

static struct PyModuleDef jsonline_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "verifier._jsonline",
    .m_doc = "The lines of `lexgate check --jsonl` written compiled (see verifier.serialize).",
    .m_size = -1,
};

PyMODINIT_FUNC
PyInit__jsonline(void)
{
    if (PyType_Ready(&WriterType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&jsonline_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "Writer", (PyObject *)&WriterType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
