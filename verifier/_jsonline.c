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
 * The parts a batch repeats are written once for each object and kept as UTF-8 by identity,
 * as the Python writer keeps its texts (`serialize._kept_text`: the object held, so its
 * address is not reused; at most `kept_limit` per kind, all dropped when full): the facts
 * (`_facts_text`: the fields that are not None or empty), the resolved article and the support
 * verdict; the status members come from the Python writer's memo by (status, reason). What is
 * rare or of another shape than a verdict's is handed to the Python writer's functions and
 * their text written: number conflicts other than an empty tuple, a quote check whose found_in
 * is no tuple or list, a summary whose counts are not all ints, facts or a support verdict
 * holding anything but str, int, float, bool, None and dataclasses of those.
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

/* `text` a string literal ("" text "" refuses anything else, whose sizeof would be wrong) */
#define WRITE_LITERAL(b, text) write_bytes((b), "" text "", (Py_ssize_t)(sizeof(text) - 1))

/* What a writer returns: done, failed (an exception set), or a str UTF-8 cannot encode met
 * (nothing set: the caller writes the line in Python). */
#define DONE 0
#define FAILED (-1)
#define UNENCODABLE 1
#define DECLINED 2  /* a part of a shape the compiled writer leaves to the Python one */

/* ---- scalars ------------------------------------------------------------------------------ */

static const char HEX[] = "0123456789abcdef";

/* One character as encode_basestring writes it, in UTF-8; NULL for a lone surrogate. */
static inline char *
put_char(char *out, Py_UCS4 c)
{
    if (c >= 0x80) {
        if (c < 0x800) {
            *out++ = (char)(0xc0 | (c >> 6));
            *out++ = (char)(0x80 | (c & 0x3f));
        }
        else if (c < 0x10000) {
            if (c >= 0xd800 && c <= 0xdfff) {
                return NULL;
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
    return out;
}

/* A str as encode_basestring writes it, in UTF-8. */
static int
write_str(Buffer *b, PyObject *text)
{
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    /* the quotes, and at most 6 bytes a character (\u001f; UTF-8 takes at most 4) */
    if (reserve(b, 2 + 6 * size) < 0) {
        return FAILED;
    }
    char *out = b->data + b->length;
    *out++ = '"';
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND: {
        const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(text);
        if (PyUnicode_IS_ASCII(text)) {  /* runs that need no escape copied whole */
            Py_ssize_t run = 0;
            for (Py_ssize_t i = 0; i < size; i++) {
                Py_UCS1 c = chars[i];
                if (c < 0x20 || c == '"' || c == '\\') {
                    memcpy(out, chars + run, i - run);
                    out = put_char(out + (i - run), c);
                    run = i + 1;
                }
            }
            memcpy(out, chars + run, size - run);
            out += size - run;
            break;
        }
        for (Py_ssize_t i = 0; i < size; i++) {
            out = put_char(out, chars[i]);
        }
        break;
    }
    case PyUnicode_2BYTE_KIND: {
        const Py_UCS2 *chars = PyUnicode_2BYTE_DATA(text);
        for (Py_ssize_t i = 0; i < size; i++) {
            out = put_char(out, chars[i]);
            if (out == NULL) {
                return UNENCODABLE;
            }
        }
        break;
    }
    default: {
        const Py_UCS4 *chars = PyUnicode_4BYTE_DATA(text);
        for (Py_ssize_t i = 0; i < size; i++) {
            out = put_char(out, chars[i]);
            if (out == NULL) {
                return UNENCODABLE;
            }
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
    /* A value that is some n / 10**4 (a score rounded to four places): float.__repr__ is the
     * decimal n / 10**4 with its trailing zeros left out (it has at most 15 significant
     * digits, so no shorter decimal gives the same double; between 1e-4 and 1e16 repr uses no
     * exponent). -0.0 and the rest: float.__repr__'s own digits. */
    double scaled = value * 10000.0;
    if (scaled > -1e15 && scaled < 1e15 && scaled == (double)(long long)scaled
        && (double)(long long)scaled / 10000.0 == value && !(value == 0.0 && signbit(value))) {
        long long n = (long long)scaled;
        unsigned long long magnitude = n < 0 ? 0ULL - (unsigned long long)n
                                             : (unsigned long long)n;
        char digits[32];
        char *end = digits + sizeof(digits), *start = end;
        int places = 4;
        while (places > 1 && magnitude % 10 == 0) {  /* the fraction's trailing zeros */
            magnitude /= 10;
            places--;
        }
        for (int i = 0; i < places; i++) {
            *--start = (char)('0' + magnitude % 10);
            magnitude /= 10;
        }
        *--start = '.';
        do {
            *--start = (char)('0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude);
        if (n < 0) {
            *--start = '-';
        }
        return write_bytes(b, start, end - start);
    }
    char *text = PyOS_double_to_string(value, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (text == NULL) {
        return FAILED;
    }
    int done = write_bytes(b, text, (Py_ssize_t)strlen(text));
    PyMem_Free(text);
    return done;
}

/* ---- the kept texts: object -> its JSON in UTF-8, by identity ------------------------------- */

typedef struct {
    PyObject *key;   /* the object (held, so its address is not reused) */
    PyObject *text;  /* bytes */
} Kept;

typedef struct {
    Kept *entries;
    size_t mask;     /* entries - 1, a power of two less one; 0: none yet */
    Py_ssize_t count;
} KeptTable;

static inline size_t
kept_slot(const KeptTable *table, PyObject *key)
{
    uint64_t hash = (uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ULL;
    return (size_t)(hash >> 32) & table->mask;
}

/* The text kept for this very object (borrowed), NULL when there is none. */
static PyObject *
kept_find(const KeptTable *table, PyObject *key)
{
    if (table->mask == 0) {
        return NULL;
    }
    for (size_t slot = kept_slot(table, key);; slot = (slot + 1) & table->mask) {
        Kept *entry = &table->entries[slot];
        if (entry->key == key) {
            return entry->text;
        }
        if (entry->key == NULL) {
            return NULL;
        }
    }
}

static void
kept_clear(KeptTable *table)
{
    for (size_t slot = 0; table->mask && slot <= table->mask; slot++) {
        Py_CLEAR(table->entries[slot].key);
        Py_CLEAR(table->entries[slot].text);
    }
    table->count = 0;
}

static void
kept_put(KeptTable *table, PyObject *key, PyObject *text)
{
    size_t slot = kept_slot(table, key);
    while (table->entries[slot].key != NULL) {
        slot = (slot + 1) & table->mask;
    }
    table->entries[slot].key = key;
    table->entries[slot].text = text;
    table->count++;
}

/* Keep `text` for `key` (new references taken); all dropped first when `limit` are kept. */
static int
kept_add(KeptTable *table, PyObject *key, PyObject *text, Py_ssize_t limit)
{
    if (table->count >= limit) {
        kept_clear(table);
    }
    if ((size_t)(table->count + 1) * 2 > table->mask + 1) {  /* at most half full */
        size_t size = table->mask ? 2 * (table->mask + 1) : 64;
        Kept *entries = PyMem_Calloc(size, sizeof(Kept));
        if (entries == NULL) {
            PyErr_NoMemory();
            return FAILED;
        }
        Kept *old = table->entries;
        size_t old_size = table->mask ? table->mask + 1 : 0;
        table->entries = entries;
        table->mask = size - 1;
        table->count = 0;
        for (size_t slot = 0; slot < old_size; slot++) {
            if (old[slot].key != NULL) {
                kept_put(table, old[slot].key, old[slot].text);
            }
        }
        PyMem_Free(old);
    }
    kept_put(table, Py_NewRef(key), Py_NewRef(text));
    return DONE;
}

static void
kept_free(KeptTable *table)
{
    kept_clear(table);
    PyMem_Free(table->entries);
    table->entries = NULL;
    table->mask = 0;
}

/* ---- the writer ---------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *encode;          /* json's encoder: any value -> its JSON */
    Py_ssize_t kept_limit;     /* texts kept per kind of part, all dropped when full */
    KeptTable facts[2];        /* without, with text */
    KeptTable resolved[2];
    KeptTable support;
    PyObject *facts_writers;   /* the Python writers of the parts (without, with text) */
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
    write_member((self), (b), "" key "", (Py_ssize_t)(sizeof(key) - 1), (object), (field))

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
    CHECK(write_span_member(self, b, ", \"quote\": ", sizeof(", \"quote\": ") - 1, c,
                            &citation_quote, with_text));
    CHECK(MEMBER(self, b, ", \"range\": ", c, &citation_range));
    CHECK(MEMBER(self, b, ", \"version_hint\": ", c, &citation_version_hint));
    return write_span_member(self, b, ", \"claim\": ", sizeof(", \"claim\": ") - 1, c,
                             &citation_claim, with_text);
}

/* ---- dataclasses written without their None and empty fields (_plain_present) -------------- */

#define LAYOUTS 16

typedef struct {
    PyTypeObject *type;     /* a strong reference; NULL: unused */
    unsigned int version;
    Py_ssize_t count;
    PyObject *names;        /* the fields' names (a tuple of str) */
    PyObject *keys;         /* `"name": ` of each, in UTF-8 (a tuple of bytes) */
    Py_ssize_t *offsets;    /* each field's slot offset, 0: read by getattr */
} Layout;

static Layout layouts[LAYOUTS];
static PyObject *DATACLASS_FIELDS;  /* "__dataclass_fields__" */

static void
layout_clear(Layout *layout)
{
    Py_CLEAR(layout->type);
    Py_CLEAR(layout->names);
    Py_CLEAR(layout->keys);
    PyMem_Free(layout->offsets);
    layout->offsets = NULL;
}

static Py_ssize_t slot_offset(PyTypeObject *type, PyObject *name);

/* The fields of a dataclass type (the keys of its __dataclass_fields__, as
 * serialize._layout takes them); NULL and no exception for any other type, or when the
 * layouts are all taken. */
static Layout *
layout_of(PyTypeObject *type)
{
    Layout *free_layout = NULL;
    for (int i = 0; i < LAYOUTS; i++) {
        Layout *layout = &layouts[i];
        if (layout->type == type) {
            if (layout->version == type->tp_version_tag
                && PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
                return layout;
            }
            layout_clear(layout);  /* the type changed: learnt again */
        }
        if (layout->type == NULL && free_layout == NULL) {
            free_layout = layout;
        }
    }
    if (free_layout == NULL) {
        return NULL;
    }
    PyObject *fields = PyObject_GetAttr((PyObject *)type, DATACLASS_FIELDS);
    if (fields == NULL) {
        PyErr_Clear();
        return NULL;
    }
    if (!PyDict_CheckExact(fields)) {
        Py_XDECREF(fields);
        return NULL;
    }
    PyObject *listed = PyDict_Keys(fields);
    Py_DECREF(fields);
    if (listed == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *names = PyList_AsTuple(listed);
    Py_DECREF(listed);
    if (names == NULL) {
        PyErr_Clear();
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    PyObject *keys = PyTuple_New(count);
    Py_ssize_t *offsets = PyMem_Calloc(count ? count : 1, sizeof(Py_ssize_t));
    if (keys == NULL || offsets == NULL) {
        goto failed;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_CheckExact(name) || !PyUnicode_IS_ASCII(name)) {
            goto failed;
        }
        PyObject *key = PyBytes_FromFormat("\"%s\": ", PyUnicode_AsUTF8(name));
        if (key == NULL) {
            goto failed;
        }
        PyTuple_SET_ITEM(keys, i, key);
        offsets[i] = slot_offset(type, name);
    }
    if (!PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
        goto failed;
    }
    free_layout->type = (PyTypeObject *)Py_NewRef(type);
    free_layout->version = type->tp_version_tag;
    free_layout->count = count;
    free_layout->names = names;
    free_layout->keys = keys;
    free_layout->offsets = offsets;
    return free_layout;
failed:
    PyErr_Clear();
    Py_DECREF(names);
    Py_XDECREF(keys);
    PyMem_Free(offsets);
    return NULL;
}

/* The i-th field of an instance of the layout's type, a new reference. */
static PyObject *
layout_get(Layout *layout, PyObject *object, Py_ssize_t i)
{
    if (layout->offsets[i]) {
        PyObject *value = SLOT(object, layout->offsets[i]);
        if (value != NULL) {
            return Py_NewRef(value);
        }
    }
    return PyObject_GetAttr(object, PyTuple_GET_ITEM(layout->names, i));
}

static int
is_text_name(PyObject *name, const char *text)
{
    return PyUnicode_CompareWithASCIIString(name, text) == 0;
}

static int write_value(Writer *self, Buffer *b, PyObject *value);

/* `_encode(_plain_present(value))` of a dataclass instance: its fields in order, None and
 * empty tuples and lists left out. `nested`: its non-empty tuples' and lists' items and its
 * dataclass fields are written the same way one level down (and no deeper); `skip_text`: its
 * field named text left out; `drop_text_below`: so are those of what the fields named
 * successors and corresponding hold (_facts_json without text). DECLINED for what is not a
 * dataclass instance, and for anything else this leaves to the Python writer. */
static int
write_present(Writer *self, Buffer *b, PyObject *value, int nested, int skip_text,
              int drop_text_below)
{
    Layout *layout = layout_of(Py_TYPE(value));
    if (layout == NULL) {
        return DECLINED;
    }
    CHECK(WRITE_LITERAL(b, "{"));
    int first = 1;
    for (Py_ssize_t i = 0; i < layout->count; i++) {
        PyObject *name = PyTuple_GET_ITEM(layout->names, i);
        if (skip_text && is_text_name(name, "text")) {
            continue;
        }
        PyObject *field = layout_get(layout, value, i);
        if (field == NULL) {
            return FAILED;
        }
        PyTypeObject *type = Py_TYPE(field);
        int sequence = PyTuple_Check(field) || PyList_Check(field);
        if (field == Py_None || (sequence && Py_SIZE(field) == 0)) {
            Py_DECREF(field);
            continue;
        }
        PyObject *key = PyTuple_GET_ITEM(layout->keys, i);
        int done = first ? DONE : WRITE_LITERAL(b, ", ");
        first = 0;
        if (done == DONE) {
            done = write_bytes(b, PyBytes_AS_STRING(key), PyBytes_GET_SIZE(key));
        }
        int skip_below = drop_text_below && (is_text_name(name, "successors")
                                             || is_text_name(name, "corresponding"));
        if (done != DONE) {
            /* failed */
        }
        else if (type == &PyUnicode_Type || type == &PyLong_Type || type == &PyFloat_Type
                 || type == &PyBool_Type) {
            done = write_value(self, b, field);
        }
        else if (!nested) {
            done = DECLINED;
        }
        else if (sequence) {
            done = WRITE_LITERAL(b, "[");
            for (Py_ssize_t j = 0; done == DONE && j < Py_SIZE(field); j++) {
                PyObject *item = PyTuple_Check(field) ? PyTuple_GET_ITEM(field, j)
                                                      : PyList_GET_ITEM(field, j);
                done = j ? WRITE_LITERAL(b, ", ") : DONE;
                if (done == DONE) {
                    Py_INCREF(item);
                    done = write_present(self, b, item, 0, skip_below, 0);
                    Py_DECREF(item);
                }
            }
            if (done == DONE) {
                done = WRITE_LITERAL(b, "]");
            }
        }
        else {
            done = write_present(self, b, field, 0, skip_below, 0);
        }
        Py_DECREF(field);
        if (done != DONE) {
            return done;
        }
    }
    return WRITE_LITERAL(b, "}");
}

/* A kept part: its kept text, or written by `write` (the Python writer `fallback`'s text when
 * that declines) and kept. */
typedef int (*PartWriter)(Writer *self, Buffer *b, PyObject *value, int with_text);

static int
write_kept(Writer *self, Buffer *b, KeptTable *table, PyObject *value, PartWriter write,
           int with_text, PyObject *fallback)
{
    PyObject *text = kept_find(table, value);
    if (text != NULL) {
        return write_bytes(b, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text));
    }
    Py_ssize_t start = b->length;
    int done = write(self, b, value, with_text);
    if (done == DECLINED && fallback != NULL) {
        b->length = start;
        done = write_called(b, fallback, value);
    }
    else if (done == DECLINED) {
        PyErr_SetString(PyExc_SystemError, "a part declined with no Python writer to take it");
        return FAILED;
    }
    if (done != DONE) {
        return done;
    }
    text = PyBytes_FromStringAndSize(b->data + start, b->length - start);
    if (text == NULL) {
        return FAILED;
    }
    done = kept_add(table, value, text, self->kept_limit);
    Py_DECREF(text);
    return done;
}

/* _facts_text(facts, with_text). */
static int
write_facts(Writer *self, Buffer *b, PyObject *facts, int with_text)
{
    return write_present(self, b, facts, 1, 0, !with_text);
}

FIELD(resolved_law, "law");
FIELD(resolved_version_label, "version_label");
FIELD(resolved_effective_from, "effective_from");
FIELD(resolved_effective_to, "effective_to");
FIELD(resolved_article_label, "article_label");
FIELD(resolved_article_text, "article_text");

/* _resolved_text(resolved, with_text). */
static int
write_resolved(Writer *self, Buffer *b, PyObject *resolved, int with_text)
{
    if (resolved == Py_None) {
        return WRITE_LITERAL(b, "null");
    }
    CHECK(MEMBER(self, b, "{\"law\": ", resolved, &resolved_law));
    CHECK(MEMBER(self, b, ", \"version_label\": ", resolved, &resolved_version_label));
    CHECK(MEMBER(self, b, ", \"effective_from\": ", resolved, &resolved_effective_from));
    CHECK(MEMBER(self, b, ", \"effective_to\": ", resolved, &resolved_effective_to));
    CHECK(MEMBER(self, b, ", \"article_label\": ", resolved, &resolved_article_label));
    if (with_text) {
        CHECK(MEMBER(self, b, ", \"article_text\": ", resolved, &resolved_article_text));
    }
    return WRITE_LITERAL(b, "}");
}

FIELD(support_verdict, "verdict");
FIELD(support_evidence, "evidence");
FIELD(support_score, "score");
FIELD(support_coverage, "coverage");
FIELD(support_best_other, "best_other");
FIELD(support_differences, "differences");
FIELD(support_found_in, "found_in");

static PyObject *UNKNOWN;  /* "unknown" */

/* `"key": value` unless the value is None (`, ` before it). */
static int
write_given(Writer *self, Buffer *b, const char *key, Py_ssize_t key_size, PyObject *object,
            Field *field)
{
    PyObject *value = get(object, field);
    if (value == NULL) {
        return FAILED;
    }
    int done = DONE;
    if (value != Py_None) {
        done = write_bytes(b, key, key_size);
        if (done == DONE) {
            done = write_value(self, b, value);
        }
    }
    Py_DECREF(value);
    return done;
}

#define GIVEN(self, b, key, object, field) \
    write_given((self), (b), "" key "", (Py_ssize_t)(sizeof(key) - 1), (object), (field))

/* `"key": [...]` of a tuple or list of dataclasses when not empty, as _support_text writes
 * differences and found_in. */
static int
write_present_list(Writer *self, Buffer *b, const char *key, Py_ssize_t key_size,
                   PyObject *object, Field *field)
{
    PyObject *items = get(object, field);
    if (items == NULL) {
        return FAILED;
    }
    int done = DONE;
    if (!PyTuple_CheckExact(items) && !PyList_CheckExact(items)) {
        done = DECLINED;
    }
    else if (PySequence_Fast_GET_SIZE(items) > 0) {
        done = write_bytes(b, key, key_size);
        for (Py_ssize_t i = 0; done == DONE && i < PySequence_Fast_GET_SIZE(items); i++) {
            done = i ? WRITE_LITERAL(b, ", ") : WRITE_LITERAL(b, "[");
            if (done == DONE) {
                PyObject *item = Py_NewRef(PySequence_Fast_GET_ITEM(items, i));
                done = write_present(self, b, item, 0, 0, 0);
                Py_DECREF(item);
            }
        }
        if (done == DONE) {
            done = WRITE_LITERAL(b, "]");
        }
    }
    Py_DECREF(items);
    return done;
}

/* _support_text(support). */
static int
write_support(Writer *self, Buffer *b, PyObject *support, int with_text)
{
    PyObject *verdict = get(support, &support_verdict);
    if (verdict == NULL) {
        return FAILED;
    }
    int unknown = verdict == UNKNOWN ? 1 : PyObject_RichCompareBool(verdict, UNKNOWN, Py_EQ);
    int done = unknown < 0 ? FAILED : DONE;
    if (unknown == 1) {
        done = WRITE_LITERAL(b, "{\"verdict\": \"unknown\"}");
    }
    else if (unknown == 0) {
        done = WRITE_LITERAL(b, "{\"verdict\": ");
        if (done == DONE) {
            done = write_value(self, b, verdict);
        }
    }
    Py_DECREF(verdict);
    if (unknown != 0 || done != DONE) {
        return done;
    }
    CHECK(GIVEN(self, b, ", \"evidence\": ", support, &support_evidence));
    CHECK(GIVEN(self, b, ", \"score\": ", support, &support_score));
    CHECK(GIVEN(self, b, ", \"coverage\": ", support, &support_coverage));
    CHECK(GIVEN(self, b, ", \"best_other\": ", support, &support_best_other));
    CHECK(write_present_list(self, b, ", \"differences\": ", sizeof(", \"differences\": ") - 1,
                             support, &support_differences));
    CHECK(write_present_list(self, b, ", \"found_in\": ", sizeof(", \"found_in\": ") - 1,
                             support, &support_found_in));
    return WRITE_LITERAL(b, "}");
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

/* A verdict's part, from its kept text or written and kept. */
static int
write_kept_field(Writer *self, Buffer *b, PyObject *verdict, Field *field, KeptTable *table,
                 PartWriter write, int with_text, PyObject *fallback)
{
    PyObject *value = get(verdict, field);
    if (value == NULL) {
        return FAILED;
    }
    int done = write_kept(self, b, table, value, write, with_text, fallback);
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
    CHECK(write_kept_field(self, b, verdict, &verdict_facts, &self->facts[with_text],
                           write_facts, with_text,
                           PyTuple_GET_ITEM(self->facts_writers, with_text)));
    CHECK(WRITE_LITERAL(b, ", \"resolved\": "));
    CHECK(write_kept_field(self, b, verdict, &verdict_resolved, &self->resolved[with_text],
                           write_resolved, with_text, NULL));
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
    CHECK(write_kept_field(self, b, verdict, &verdict_support, &self->support, write_support,
                           with_text, self->support_writer));
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
    static char *keywords[] = {"encode", "kept_limit", "facts_writers", "support_writer",
                               "status_memo", "status_writer", "quote_check_writer",
                               "conflicts_writer", "summary_writer", NULL};
    PyObject *encode, *facts_writers, *support_writer, *status_memo, *status_writer;
    PyObject *quote_check_writer, *conflicts_writer, *summary_writer;
    Py_ssize_t kept_limit;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "$OnO!OO!OOOO", keywords, &encode,
                                     &kept_limit, &PyTuple_Type, &facts_writers,
                                     &support_writer, &PyDict_Type, &status_memo,
                                     &status_writer, &quote_check_writer, &conflicts_writer,
                                     &summary_writer)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(facts_writers) != 2) {
        PyErr_SetString(PyExc_TypeError, "facts_writers: (without text, with text)");
        return NULL;
    }
    Writer *self = (Writer *)type->tp_alloc(type, 0);  /* the kept tables zeroed: empty */
    if (self == NULL) {
        return NULL;
    }
    self->encode = Py_NewRef(encode);
    self->kept_limit = kept_limit > 0 ? kept_limit : 1;
    self->facts_writers = Py_NewRef(facts_writers);
    self->support_writer = Py_NewRef(support_writer);
    self->status_memo = Py_NewRef(status_memo);
    self->status_writer = Py_NewRef(status_writer);
    self->quote_check_writer = Py_NewRef(quote_check_writer);
    self->conflicts_writer = Py_NewRef(conflicts_writer);
    self->summary_writer = Py_NewRef(summary_writer);
    return (PyObject *)self;
}

static int
writer_traverse(Writer *self, visitproc visit, void *arg)
{
    Py_VISIT(self->encode);
    Py_VISIT(self->facts_writers);
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
    Py_CLEAR(self->facts_writers);
    Py_CLEAR(self->support_writer);
    Py_CLEAR(self->status_memo);
    Py_CLEAR(self->status_writer);
    Py_CLEAR(self->quote_check_writer);
    Py_CLEAR(self->conflicts_writer);
    Py_CLEAR(self->summary_writer);
    for (int i = 0; i < 2; i++) {
        kept_free(&self->facts[i]);
        kept_free(&self->resolved[i]);
    }
    kept_free(&self->support);
    return 0;
}

static void
writer_dealloc(Writer *self)
{
    PyObject_GC_UnTrack(self);
    writer_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
writer_kept_count(Writer *self, PyObject *unused)
{
    return Py_BuildValue("nnnnn", self->facts[0].count, self->facts[1].count,
                         self->resolved[0].count, self->resolved[1].count, self->support.count);
}

static PyMethodDef writer_methods[] = {
    {"line", (PyCFunction)(void (*)(void))writer_line, METH_FASTCALL,
     PyDoc_STR("line(item_id, result, with_text): the line as str, None when UTF-8 cannot "
               "encode it")},
    {"line_utf8", (PyCFunction)(void (*)(void))writer_line_utf8, METH_FASTCALL,
     PyDoc_STR("line_utf8(item_id, result, with_text): the line and its newline in UTF-8, "
               "None when UTF-8 cannot encode it")},
    {"kept_count", (PyCFunction)writer_kept_count, METH_NOARGS,
     PyDoc_STR("kept_count(): the texts kept (facts without and with text, resolved without "
               "and with text, support)")},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "verifier._jsonline.Writer",
    .tp_doc = PyDoc_STR("Writer(*, encode, kept_limit, facts_writers, support_writer, "
                        "status_memo, status_writer, quote_check_writer, conflicts_writer, "
                        "summary_writer): the lines of `lexgate check --jsonl`"),
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
    UNKNOWN = PyUnicode_InternFromString("unknown");
    DATACLASS_FIELDS = PyUnicode_InternFromString("__dataclass_fields__");
    if (UNKNOWN == NULL || DATACLASS_FIELDS == NULL) {
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
