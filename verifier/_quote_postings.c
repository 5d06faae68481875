/* The quote index's postings walk and run search compiled: `verifier.quotes`'s
 * `_python_shortlist`, `_python_coverage` and `_python_best_run`, step for step, in C.
 *
 * The first two walk the bigram codes of a quote in their order through a `QuoteIndex`'s
 * postings table (`_Postings`: the arrays codes, at and items, read through the buffer
 * protocol), adding each posting's idf to the quote's weight and to each candidate of the
 * posting, one by one in the quote's order: the same additions of the same doubles as the
 * Python walk, so the same sums to the last bit. `shortlist` then ranks the candidates reached
 * as `_python_shortlist` does (shared weight over the smaller of the two weights, the length
 * factor through the same libm `pow`) and keeps the best `keep` by (rank, index), highest
 * first; `coverage` gives the shares in the order the bigrams first reach the candidates.
 * The index's lists (_idf, _weights, _lengths, _keys) are read item by item. `best_run`
 * decides which runs of sentences to score with the same arithmetic and scores them with the
 * same calls, in the same order; given rapidfuzz's own scorer (Indel.normalized_similarity),
 * it asks that scorer's C interface instead of calling it from Python (see rf_scorer_of).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NO_CODE UINT64_MAX /* an empty place of the table (quotes._NO_CODE) */

/* What a walk reads of a QuoteIndex. */
typedef struct {
    Py_buffer table, at, items; /* _Postings.codes ("Q"), .at ("I"), .items ("I") */
    Py_ssize_t size;            /* _Postings.size: a code's first place is code % size */
    PyObject *idfs;             /* _idf: the idf of a bigram held by n candidates, at n */
    double unseen;              /* _unseen_idf: the weight of a bigram no candidate holds */
    PyObject *keys;             /* _keys: the candidates' keys */
    Py_ssize_t count;           /* the number of candidates (len(_keys)) */
} Index;

/* What a walk adds up: the quote's weight, and per candidate the weight it shares, with the
 * candidates reached in the order they are first reached. */
typedef struct {
    double total;
    double *shared;     /* per candidate, 0.0 but for those reached */
    uint32_t *reached;  /* the first `reached_count` are set */
    unsigned char *seen;
    Py_ssize_t reached_count;
    char *owned;        /* the arrays' block, when it is not the scratch one */
} Sums;

/* The walks' arrays, kept from call to call and left zeroed (a walk clears the places it
 * reached): zeroing a version's arrays on every call cost more than the walk itself. A walk
 * that starts while another holds them (a key's __hash__ calling back) takes its own. */
static char *scratch = NULL;
static Py_ssize_t scratch_count = 0;
static int scratch_busy = 0;

/* Lay out sums over a zeroed block of arrays for `capacity` candidates. */
static void
sums_over(Sums *sums, char *block, Py_ssize_t capacity)
{
    sums->total = 0.0;
    sums->shared = (double *)block;
    sums->reached = (uint32_t *)(block + capacity * sizeof(double));
    sums->seen = (unsigned char *)(block + capacity * (sizeof(double) + sizeof(uint32_t)));
    sums->reached_count = 0;
}

/* Zeroed arrays for `count` candidates, the scratch ones when free; -1 with an error set. */
static int
sums_start(Sums *sums, Py_ssize_t count)
{
    const size_t width = sizeof(double) + sizeof(uint32_t) + 1;
    if (count < 1) {
        count = 1;
    }
    sums->owned = NULL;
    if (!scratch_busy) {
        if (scratch_count < count) {
            char *grown = PyMem_Calloc(count, width);
            if (grown == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            PyMem_Free(scratch);
            scratch = grown;
            scratch_count = count;
        }
        scratch_busy = 1;
        sums_over(sums, scratch, scratch_count);
        return 0;
    }
    sums->owned = PyMem_Calloc(count, width);
    if (sums->owned == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    sums_over(sums, sums->owned, count);
    return 0;
}

/* Give the arrays back, the scratch ones zeroed where the walk wrote. */
static void
sums_end(Sums *sums)
{
    if (sums->owned != NULL) {
        PyMem_Free(sums->owned);
        return;
    }
    for (Py_ssize_t r = 0; r < sums->reached_count; r++) {
        uint32_t candidate = sums->reached[r];
        sums->shared[candidate] = 0.0;
        sums->seen[candidate] = 0;
    }
    scratch_busy = 0;
}

/* The attribute names read, interned once (a name made from a C string on every read cost
 * more than the walk of a short quote). */
enum { POSTINGS, CODES, AT, ITEMS, SIZE, IDF, UNSEEN_IDF, KEYS, WEIGHTS, LENGTHS, KEY_HASHES,
       NAMES };
static const char *const name_texts[NAMES] = {
    "_postings", "codes", "at", "items", "size", "_idf", "_unseen_idf", "_keys", "_weights",
    "_lengths", "_key_hashes",
};
static PyObject *names[NAMES];

static void
index_release(Index *index)
{
    PyBuffer_Release(&index->table);
    PyBuffer_Release(&index->at);
    PyBuffer_Release(&index->items);
    Py_CLEAR(index->idfs);
    Py_CLEAR(index->keys);
}

/* A buffer of the array attribute names[name] of postings, of items `itemsize` bytes wide. */
static int
array_buffer(PyObject *postings, int name, Py_ssize_t itemsize, Py_buffer *view)
{
    PyObject *array = PyObject_GetAttr(postings, names[name]);
    if (array == NULL) {
        return -1;
    }
    int failed = PyObject_GetBuffer(array, view, PyBUF_C_CONTIGUOUS);
    Py_DECREF(array);
    if (failed) {
        return -1;
    }
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "_Postings.%s: items of %zd bytes expected",
                     name_texts[name], itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* The parts of the QuoteIndex `self` a walk reads; -1 with an error set (nothing held). */
static int
index_read(PyObject *self, Index *index)
{
    memset(index, 0, sizeof(*index));
    PyObject *postings = PyObject_GetAttr(self, names[POSTINGS]);
    if (postings == NULL) {
        return -1;
    }
    PyObject *size = NULL, *unseen = NULL;
    if (array_buffer(postings, CODES, 8, &index->table) < 0
        || array_buffer(postings, AT, 4, &index->at) < 0
        || array_buffer(postings, ITEMS, 4, &index->items) < 0
        || (size = PyObject_GetAttr(postings, names[SIZE])) == NULL
        || (index->size = PyLong_AsSsize_t(size)) == -1
        || (index->idfs = PyObject_GetAttr(self, names[IDF])) == NULL
        || (unseen = PyObject_GetAttr(self, names[UNSEEN_IDF])) == NULL
        || ((index->unseen = PyFloat_AsDouble(unseen)) == -1.0 && PyErr_Occurred())
        || (index->keys = PyObject_GetAttr(self, names[KEYS])) == NULL) {
        goto failed;
    }
    if (index->size <= 0 || !PyList_CheckExact(index->idfs) || !PyList_CheckExact(index->keys)
        || index->at.len / 4 != index->table.len / 8 + 1) {
        PyErr_SetString(PyExc_TypeError, "not a QuoteIndex's postings");
        goto failed;
    }
    index->count = PyList_GET_SIZE(index->keys);
    Py_DECREF(postings);
    Py_DECREF(size);
    Py_DECREF(unseen);
    return 0;
failed:
    Py_DECREF(postings);
    Py_XDECREF(size);
    Py_XDECREF(unseen);
    index_release(index);
    return -1;
}

/* Add one code's weight to sums (`QuoteIndex._shared_weights`'s loop body); -1 with an
 * error set. */
static int
walk_code(const Index *index, Sums *sums, uint64_t code)
{
    const uint64_t *table = index->table.buf;
    const uint32_t *at = index->at.buf, *items = index->items.buf;
    Py_ssize_t places = index->table.len / 8;
    Py_ssize_t place = (Py_ssize_t)(code % (uint64_t)index->size);
    for (;;) {
        if (place >= places) {
            PyErr_SetString(PyExc_IndexError, "a probe ran past the postings table");
            return -1;
        }
        uint64_t there = table[place];
        if (there == code) {
            break;
        }
        if (there == NO_CODE) {
            sums->total += index->unseen;
            return 0;
        }
        place++;
    }
    uint32_t start = at[place], end = at[place + 1];
    if (start == end) {
        return 0; /* a common bigram: no posting */
    }
    if (end < start || (Py_ssize_t)end > index->items.len / 4
        || (Py_ssize_t)(end - start) >= PyList_GET_SIZE(index->idfs)) {
        PyErr_SetString(PyExc_IndexError, "a posting beyond the postings' items or idfs");
        return -1;
    }
    double idf = PyFloat_AsDouble(PyList_GET_ITEM(index->idfs, end - start));
    if (idf == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    sums->total += idf;
    for (uint32_t j = start; j < end; j++) {
        uint32_t candidate = items[j];
        if ((Py_ssize_t)candidate >= index->count) {
            PyErr_SetString(PyExc_IndexError, "a posting names no candidate");
            return -1;
        }
        if (!sums->seen[candidate]) {
            sums->seen[candidate] = 1;
            sums->reached[sums->reached_count++] = candidate;
        }
        sums->shared[candidate] += idf;
    }
    return 0;
}

/* walk_code of an int. One that is no 64-bit unsigned int (the -1 of a text that is not a
 * bigram) is a code no place holds: a bigram no candidate holds, as in the Python probe. */
static int
walk_item(const Index *index, Sums *sums, PyObject *item)
{
    int overflow;
    long long value = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (value == -1 && PyErr_Occurred()) {
        return -1; /* not an int */
    }
    if (overflow > 0) { /* from 2**63: maybe a 64-bit unsigned int still */
        uint64_t code = PyLong_AsUnsignedLongLong(item);
        if (code == (uint64_t)-1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
                return -1;
            }
            PyErr_Clear();
            sums->total += index->unseen;
            return 0;
        }
        return walk_code(index, sums, code);
    }
    if (overflow < 0 || value < 0) {
        sums->total += index->unseen;
        return 0;
    }
    return walk_code(index, sums, (uint64_t)value);
}

/* Walk the codes (a dict's keys, a view of 64-bit words, or any iterable of ints) in their
 * order; -1 with an error set. */
static int
walk(const Index *index, Sums *sums, PyObject *codes)
{
    if (PyDict_CheckExact(codes)) {
        Py_ssize_t position = 0;
        PyObject *key, *value;
        while (PyDict_Next(codes, &position, &key, &value)) {
            if (walk_item(index, sums, key) < 0) {
                return -1;
            }
        }
        return 0;
    }
    if (PyMemoryView_Check(codes)) { /* read as the words it iterates as, when they are */
        const Py_buffer *view = PyMemoryView_GET_BUFFER(codes);
        if (view->ndim == 1 && view->itemsize == 8 && view->format != NULL
            && strcmp(view->format, "Q") == 0
            && (view->strides == NULL || view->strides[0] == 8)) {
            const uint64_t *words = view->buf;
            for (Py_ssize_t i = 0; i < view->shape[0]; i++) {
                if (walk_code(index, sums, words[i]) < 0) {
                    return -1;
                }
            }
            return 0;
        }
    }
    PyObject *iterator = PyObject_GetIter(codes);
    if (iterator == NULL) {
        return -1;
    }
    PyObject *item;
    while ((item = PyIter_Next(iterator)) != NULL) {
        int failed = walk_item(index, sums, item);
        Py_DECREF(item);
        if (failed) {
            Py_DECREF(iterator);
            return -1;
        }
    }
    Py_DECREF(iterator);
    return PyErr_Occurred() ? -1 : 0;
}

/* A bigram's code (quotes._gram_code): its two characters' UTF-32-LE bytes read as one native
 * 64-bit word. */
static uint64_t
bigram_code(Py_UCS4 first, Py_UCS4 second)
{
    unsigned char bytes[8] = {
        first & 0xFF, (first >> 8) & 0xFF, (first >> 16) & 0xFF, first >> 24,
        second & 0xFF, (second >> 8) & 0xFF, (second >> 16) & 0xFF, second >> 24,
    };
    uint64_t code;
    memcpy(&code, bytes, sizeof(code));
    return code;
}

/* Walk the codes of the distinct bigrams of text in the order they first occur (those of
 * quotes._gram_codes, in its order); -1 with an error set. */
static int
walk_text(const Index *index, Sums *sums, PyObject *text)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (length < 2) {
        return 0;
    }
    /* The codes walked so far, in an open-addressing set (NO_CODE is no bigram's code). */
    size_t capacity = 64;
    while (capacity < 2 * (size_t)length) {
        capacity *= 2;
    }
    uint64_t local[256];
    uint64_t *walked = capacity <= 256 ? local : PyMem_Malloc(capacity * sizeof(uint64_t));
    if (walked == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(walked, 0xFF, capacity * sizeof(uint64_t));
    int kind = PyUnicode_KIND(text), failed = 0;
    const void *data = PyUnicode_DATA(text);
    Py_UCS4 first = PyUnicode_READ(kind, data, 0);
    for (Py_ssize_t i = 1; i < length && !failed; i++) {
        Py_UCS4 second = PyUnicode_READ(kind, data, i);
        uint64_t code = bigram_code(first, second);
        first = second;
        size_t slot = (size_t)((code * 0x9E3779B97F4A7C15ULL) >> 40) & (capacity - 1);
        while (walked[slot] != NO_CODE && walked[slot] != code) {
            slot = (slot + 1) & (capacity - 1);
        }
        if (walked[slot] == NO_CODE) {
            walked[slot] = code;
            failed = walk_code(index, sums, code) < 0;
        }
    }
    if (walked != local) {
        PyMem_Free(walked);
    }
    return failed ? -1 : 0;
}

/* The float at `at` of list, or -1.0 with an error set. */
static double
float_item(PyObject *list, Py_ssize_t at)
{
    if (at >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1.0;
    }
    return PyFloat_AsDouble(PyList_GET_ITEM(list, at));
}

typedef struct {
    double rank;
    uint32_t index;
} Ranked;

/* shortlist(index, quote, keep, exponent): `_python_shortlist` compiled. */
static PyObject *
shortlist(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "shortlist(index, quote: str, keep, exponent)");
        return NULL;
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(args[1]), keep = PyLong_AsSsize_t(args[2]);
    double exponent = PyFloat_AsDouble(args[3]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (keep < 0 || size > ((Py_ssize_t)1 << 50)) {
        PyErr_SetString(PyExc_ValueError, "keep from 0, a quote below 2**50 characters");
        return NULL;
    }
    Index index;
    if (index_read(args[0], &index) < 0) {
        return NULL;
    }
    PyObject *weights = NULL, *lengths = NULL, *result = NULL;
    Ranked *best = NULL;
    Sums sums;
    if (sums_start(&sums, index.count) < 0) {
        index_release(&index);
        return NULL;
    }
    if (walk_text(&index, &sums, args[1]) < 0) {
        goto done;
    }
    if ((weights = PyObject_GetAttr(args[0], names[WEIGHTS])) == NULL
        || (lengths = PyObject_GetAttr(args[0], names[LENGTHS])) == NULL) {
        goto done;
    }
    if (!PyList_CheckExact(weights) || !PyList_CheckExact(lengths)) {
        PyErr_SetString(PyExc_TypeError, "a QuoteIndex's _weights and _lengths are lists");
        goto done;
    }
    best = PyMem_Malloc((keep ? keep : 1) * sizeof(Ranked));
    if (best == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    double quote_weight = sums.total;
    Py_ssize_t kept = 0;
    for (Py_ssize_t r = 0; r < sums.reached_count; r++) {
        uint32_t candidate = sums.reached[r];
        double own = float_item(weights, candidate);
        if (own == -1.0 && PyErr_Occurred()) {
            goto done;
        }
        if (candidate >= PyList_GET_SIZE(lengths)) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            goto done;
        }
        long long other = PyLong_AsLongLong(PyList_GET_ITEM(lengths, candidate));
        if (other == -1 && PyErr_Occurred()) {
            goto done;
        }
        double smaller = own < quote_weight ? own : quote_weight;
        if (smaller == 0.0) {
            PyErr_SetString(PyExc_ZeroDivisionError, "float division by zero");
            goto done;
        }
        double rank = sums.shared[candidate] / smaller;
        /* More than 2:1 apart: (2 * shorter / longer) ** exponent (ints below 2**53 divide
         * as Python's true division does). */
        if (other > size + size) {
            rank *= pow((double)(2 * size) / (double)other, exponent);
        }
        else if (other + other < size) {
            rank *= pow((double)(2 * other) / (double)size, exponent);
        }
        /* Keep the best `keep` by (rank, index), highest first: insertion into best[]. */
        Py_ssize_t place = kept;
        while (place > 0
               && (best[place - 1].rank < rank
                   || (best[place - 1].rank == rank && best[place - 1].index < candidate))) {
            place--;
        }
        if (place < keep) {
            Py_ssize_t last = kept < keep ? kept : keep - 1;
            memmove(best + place + 1, best + place, (last - place) * sizeof(Ranked));
            best[place].rank = rank;
            best[place].index = candidate;
            if (kept < keep) {
                kept++;
            }
        }
    }
    result = PyList_New(kept);
    for (Py_ssize_t i = 0; result != NULL && i < kept; i++) {
        PyObject *number = PyLong_FromUnsignedLong(best[i].index);
        if (number == NULL) {
            Py_CLEAR(result);
            break;
        }
        PyList_SET_ITEM(result, i, number);
    }
done:
    PyMem_Free(best);
    Py_XDECREF(weights);
    Py_XDECREF(lengths);
    sums_end(&sums);
    index_release(&index);
    return result;
}

/* The hashes of an index's keys, kept on the index (`QuoteIndex._key_hashes`: a bytearray of
 * one Py_hash_t per key, -1, which no hash is, where not yet asked; made here on the first
 * call): coverage puts the keys of the candidates it reaches in a dict, and a key is a tuple
 * of a tuple and a str, whose hash Python makes again at every insertion (four tenths of the
 * walk). A new reference, or NULL with an error set. */
static PyObject *
key_hashes(PyObject *self, Py_ssize_t count)
{
    PyObject *hashes = PyObject_GetAttr(self, names[KEY_HASHES]);
    if (hashes == NULL) {
        return NULL;
    }
    if (PyByteArray_CheckExact(hashes)
        && PyByteArray_GET_SIZE(hashes) == count * (Py_ssize_t)sizeof(Py_hash_t)) {
        return hashes;
    }
    Py_DECREF(hashes);
    hashes = PyByteArray_FromStringAndSize(NULL, count * (Py_ssize_t)sizeof(Py_hash_t));
    if (hashes == NULL) {
        return NULL;
    }
    memset(PyByteArray_AS_STRING(hashes), 0xff, count * sizeof(Py_hash_t)); /* all -1 */
    if (PyObject_SetAttr(self, names[KEY_HASHES], hashes) < 0) {
        Py_DECREF(hashes);
        return NULL;
    }
    return hashes;
}

/* hash(key), the key of candidate: kept in hashes (`key_hashes`), or asked and kept; -1 with an
 * error set. */
static Py_hash_t
key_hash(PyObject *hashes, Py_ssize_t candidate, PyObject *key)
{
    Py_ssize_t size = PyByteArray_GET_SIZE(hashes) / (Py_ssize_t)sizeof(Py_hash_t);
    if (candidate < size) {
        Py_hash_t kept;
        memcpy(&kept, PyByteArray_AS_STRING(hashes) + candidate * sizeof(Py_hash_t), sizeof(kept));
        if (kept != -1) {
            return kept;
        }
    }
    Py_hash_t hash = PyObject_Hash(key);
    /* Kept unless the hash failed or its __hash__ resized the array (read its size again). */
    if (hash != -1 && candidate < PyByteArray_GET_SIZE(hashes) / (Py_ssize_t)sizeof(Py_hash_t)) {
        memcpy(PyByteArray_AS_STRING(hashes) + candidate * sizeof(Py_hash_t), &hash, sizeof(hash));
    }
    return hash;
}

/* coverage(index, codes): `_python_coverage` compiled. */
static PyObject *
coverage(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "coverage(index, codes)");
        return NULL;
    }
    Index index;
    if (index_read(args[0], &index) < 0) {
        return NULL;
    }
    Sums sums;
    if (sums_start(&sums, index.count) < 0) {
        index_release(&index);
        return NULL;
    }
    PyObject *keys = index.keys, *shares = NULL, *hashes = NULL, *result = NULL;
    if (walk(&index, &sums, args[1]) < 0) {
        goto done;
    }
    double total = sums.total;
    if (total == 0.0) {
        result = Py_BuildValue("(dN)", 0.0, PyDict_New());
        goto done;
    }
    /* Made at its final size (no resizing on the way; a dict's order is its insertion's). */
    if ((shares = _PyDict_NewPresized(sums.reached_count)) == NULL
        || (hashes = key_hashes(args[0], index.count)) == NULL) {
        goto done;
    }
    for (Py_ssize_t r = 0; r < sums.reached_count; r++) {
        uint32_t candidate = sums.reached[r];
        if (candidate >= PyList_GET_SIZE(keys)) { /* changed by a key's __hash__ or __eq__ */
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            goto done;
        }
        PyObject *key = PyList_GET_ITEM(keys, candidate);
        Py_INCREF(key);
        Py_hash_t hash = key_hash(hashes, candidate, key);
        PyObject *share = hash == -1 ? NULL : PyFloat_FromDouble(sums.shared[candidate] / total);
        if (share == NULL || _PyDict_SetItem_KnownHash(shares, key, share, hash)) {
            Py_DECREF(key);
            Py_XDECREF(share);
            goto done;
        }
        Py_DECREF(key);
        Py_DECREF(share);
    }
    result = Py_BuildValue("(dO)", total, shares);
done:
    Py_XDECREF(hashes);
    Py_XDECREF(shares);
    sums_end(&sums);
    index_release(&index);
    return result;
}

/* The keyword of the similarity's score_cutoff, as a vectorcall's kwnames. */
static PyObject *score_cutoff_kwnames;

/* rapidfuzz's scorer interface, as its rapidfuzz_capi.h declares it (SCORER_STRUCT_VERSION 3):
 * each of its scorer functions carries, as the capsule `_RF_Scorer`, the constructor of a
 * scorer kept for one first string (its bit-parallel table built once) and asked for the
 * score of any second one; the Python call does the same computation on the same code
 * points, after parsing its arguments and building that table again. */
typedef enum { RF_UINT8, RF_UINT16, RF_UINT32, RF_UINT64 } RF_StringType;
typedef struct RF_String {
    void (*dtor)(struct RF_String *self);
    RF_StringType kind;
    void *data;
    int64_t length;
    void *context;
} RF_String;
typedef struct RF_Kwargs {
    void (*dtor)(struct RF_Kwargs *self);
    void *context;
} RF_Kwargs;
typedef struct RF_ScorerFunc {
    void (*dtor)(struct RF_ScorerFunc *self);
    union {
        bool (*f64)(const struct RF_ScorerFunc *self, const RF_String *str, int64_t str_count,
                    double score_cutoff, double score_hint, double *result);
        bool (*i64)(const struct RF_ScorerFunc *self, const RF_String *str, int64_t str_count,
                    int64_t score_cutoff, int64_t score_hint, int64_t *result);
        bool (*sizet)(const struct RF_ScorerFunc *self, const RF_String *str, int64_t str_count,
                      size_t score_cutoff, size_t score_hint, size_t *result);
    } call;
    void *context;
} RF_ScorerFunc;
typedef struct {
    double f64;
} RF_Score; /* a union of f64, i64 and size_t in the header: 8 bytes */
typedef struct {
    uint32_t flags;
    RF_Score optimal_score;
    RF_Score worst_score;
} RF_ScorerFlags;
typedef struct {
    uint32_t version;
    bool (*kwargs_init)(RF_Kwargs *self, PyObject *kwargs);
    bool (*get_scorer_flags)(const RF_Kwargs *kwargs, RF_ScorerFlags *flags);
    bool (*scorer_func_init)(RF_ScorerFunc *self, const RF_Kwargs *kwargs, int64_t str_count,
                             const RF_String *strings);
} RF_Scorer;
#define RF_SCORER_VERSION 3
#define RF_SCORER_FLAG_RESULT_F64 ((uint32_t)1 << 5)
#define RF_SCORER_FLAG_RESULT_I64 ((uint32_t)1 << 6)
#define RF_SCORER_FLAG_RESULT_SIZE_T ((uint32_t)1 << 7)

/* Per kind of result (a double, an integer), the function whose scorer was looked up last
 * and that scorer (NULL: none to use). */
typedef struct {
    PyObject *owner;
    const RF_Scorer *found;
    uint32_t flags;
} ScorerSeen;
static ScorerSeen seen_f64 = {NULL, NULL, 0}, seen_int = {NULL, NULL, 0};
static PyObject *no_kwargs = NULL; /* an empty dict: a scorer's keyword arguments */

/* The C scorer of similarity: its `_RF_Scorer` capsule's, when it is one of rapidfuzz's scorers
 * of this interface version whose result has one of the `wanted` flags (its flags are put in
 * *flags_found); NULL (no error) for any other callable. */
static const RF_Scorer *
rf_scorer_of(PyObject *similarity, ScorerSeen *seen, uint32_t wanted, uint32_t *flags_found)
{
    RF_ScorerFlags flags = {0};
    if (similarity == seen->owner) {
        *flags_found = seen->flags;
        return seen->found;
    }
    const RF_Scorer *found = NULL;
    PyObject *capsule = PyObject_GetAttrString(similarity, "_RF_Scorer");
    if (capsule == NULL) {
        PyErr_Clear();
    }
    else {
        if (PyCapsule_CheckExact(capsule)) {
            found = PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule));
            if (found == NULL) {
                PyErr_Clear();
            }
        }
        Py_DECREF(capsule);
    }
    flags.flags = 0;
    if (found != NULL) {
        RF_Kwargs kwargs = {NULL, NULL};
        if (found->version != RF_SCORER_VERSION || !found->kwargs_init(&kwargs, no_kwargs)) {
            PyErr_Clear();
            found = NULL;
        }
        else {
            if (!found->get_scorer_flags(&kwargs, &flags) || !(flags.flags & wanted)) {
                PyErr_Clear();
                found = NULL;
            }
            if (kwargs.dtor != NULL) {
                kwargs.dtor(&kwargs);
            }
        }
    }
    Py_INCREF(similarity);
    Py_XSETREF(seen->owner, similarity); /* kept alive: its capsule's pointers stay valid */
    seen->found = found;
    seen->flags = *flags_found = found != NULL ? flags.flags : 0;
    return found;
}

/* A view of text[start:end] as rapidfuzz reads a str: its code points, in place. */
static RF_String
rf_view(PyObject *text, Py_ssize_t start, Py_ssize_t end)
{
    int kind = PyUnicode_KIND(text);
    RF_String view = {NULL, kind == PyUnicode_1BYTE_KIND   ? RF_UINT8
                            : kind == PyUnicode_2BYTE_KIND ? RF_UINT16
                                                           : RF_UINT32,
                      (char *)PyUnicode_DATA(text) + start * kind, end - start, NULL};
    return view;
}

/* The scorers best_run and common_lengths made for their last quotes (an Indel scorer and an
 * LCSseq one per quote: four quotes' worth), each kept with its scorer and its quote (the same
 * str object, held, so its code points stay the same) for the next calls: `_best_runs` asks each
 * of a lookup's quote variants of up to eight candidates in turn, and making a scorer (a table
 * of the quote's characters, most of it cleared) cost a third of what its scores cost. */
#define KEPT_SCORERS 8
typedef struct {
    PyObject *quote; /* NULL: an empty place */
    const RF_Scorer *scorer;
    RF_ScorerFunc func;
    RF_Kwargs kwargs;
} KeptScorer;
static KeptScorer kept_scorers[KEPT_SCORERS];
static int kept_next = 0; /* the place the next scorer made takes (the oldest) */

static void
kept_clear(KeptScorer *place)
{
    if (place->quote != NULL && place->func.dtor != NULL) {
        place->func.dtor(&place->func);
    }
    if (place->kwargs.dtor != NULL) {
        place->kwargs.dtor(&place->kwargs);
    }
    Py_CLEAR(place->quote);
    memset(place, 0, sizeof(*place));
}

/* scorer's function for quote (size code points, at least one): kept from an earlier call, or
 * made and kept in the oldest place; NULL with an error set. */
static const RF_ScorerFunc *
kept_scorer(const RF_Scorer *scorer, PyObject *quote, Py_ssize_t size)
{
    for (int i = 0; i < KEPT_SCORERS; i++) {
        if (kept_scorers[i].quote == quote && kept_scorers[i].scorer == scorer) {
            return &kept_scorers[i].func;
        }
    }
    KeptScorer *place = &kept_scorers[kept_next];
    kept_next = (kept_next + 1) % KEPT_SCORERS;
    kept_clear(place);
    RF_String whole = rf_view(quote, 0, size);
    if (!scorer->kwargs_init(&place->kwargs, no_kwargs)) {
        memset(place, 0, sizeof(*place));
        return NULL;
    }
    if (!scorer->scorer_func_init(&place->func, &place->kwargs, 1, &whole)) {
        kept_clear(place);
        return NULL;
    }
    Py_INCREF(quote);
    place->quote = quote;
    place->scorer = scorer;
    return &place->func;
}

/* A run of sentences found: (score, first, last, length) of `_python_best_run`. */
typedef struct {
    double score;
    Py_ssize_t first, last;
    long long length;
} Found;

/* The bounds (a tuple of ints) as longs in *at (local when it holds them, else allocated:
 * free it when it is not local); the number of sentences in *sentences. -1 with an error set. */
static int
bounds_read(PyObject *bounds, long long *local, Py_ssize_t local_size, long long **at,
            Py_ssize_t *sentences)
{
    const long long limit = 1LL << 50;
    if (!PyTuple_CheckExact(bounds)) {
        PyErr_SetString(PyExc_TypeError, "bounds must be a tuple");
        return -1;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(bounds);
    *sentences = count - 1;
    *at = count <= local_size ? local : PyMem_Malloc((count > 0 ? count : 1) * sizeof(long long));
    if (*at == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        long long value = PyLong_AsLongLong(PyTuple_GET_ITEM(bounds, i));
        if (value == -1 && PyErr_Occurred()) {
            goto failed;
        }
        if (value < 0 || value > limit) {
            PyErr_SetString(PyExc_ValueError, "bounds from 0, below 2**50");
            goto failed;
        }
        (*at)[i] = value;
    }
    return 0;
failed:
    if (*at != local) {
        PyMem_Free(*at);
    }
    *at = NULL;
    return -1;
}

/* `_python_best_run`'s search: the runs of sentences of text between the bounds at[0..sentences]
 * for the first best scoring above floor by similarity; -1 with an error set. The same
 * arithmetic on the same ints and doubles decides which runs are scored, in the same order,
 * each by the same call: `similarity(quote, text[start:end], score_cutoff=best)`. */
static int
runs_search(PyObject *similarity, PyObject *quote, PyObject *text, const long long *at,
            Py_ssize_t sentences, double best, long long common, double margin, Found *found)
{
    const long long limit = 1LL << 50; /* ints below 2**53 divide as Python's true division */
    long long size = PyUnicode_GET_LENGTH(quote);
    if (size > limit || common < -limit || common > limit) {
        PyErr_SetString(PyExc_ValueError, "a quote and common below 2**50");
        return -1;
    }
    PyObject *best_object = NULL;
    const RF_ScorerFunc *kept = NULL;
    Py_ssize_t best_first = 0, best_last = -1;
    long long best_length = 0;
    /* The C scorer, for a quote that is not empty (its function for the quote: kept_scorer's,
     * asked for at the first run scored). */
    uint32_t flags = 0;
    const RF_Scorer *scorer =
        size > 0 ? rf_scorer_of(similarity, &seen_f64, RF_SCORER_FLAG_RESULT_F64, &flags) : NULL;
    for (Py_ssize_t first = 0; first < sentences; first++) {
        long long start = at[first];
        for (Py_ssize_t last = first; last < sentences; last++) {
            long long end = at[last + 1], length = end - start, both = length + size;
            if (both == 0) {
                PyErr_SetString(PyExc_ZeroDivisionError, "division by zero");
                goto failed;
            }
            if (length > size) {
                if ((double)(2 * size) / (double)both <= best) {
                    break; /* longer runs only lower the bound further */
                }
            }
            else if ((double)(2 * length) / (double)both <= best) {
                continue;
            }
            if ((double)(2 * common) / (double)both <= best - margin) {
                break; /* and so are the longer runs, as their bound is lower still */
            }
            Py_ssize_t text_length = PyUnicode_GET_LENGTH(text);
            Py_ssize_t from = start < text_length ? start : text_length;
            Py_ssize_t to = end < text_length ? end : text_length;
            double score;
            if (scorer != NULL) {
                if (kept == NULL && (kept = kept_scorer(scorer, quote, size)) == NULL) {
                    goto failed;
                }
                RF_String run = rf_view(text, from, to);
                if (!kept->call.f64(kept, &run, 1, best, 0.0, &score)) {
                    goto failed;
                }
            }
            else {
                if (best_object == NULL && (best_object = PyFloat_FromDouble(best)) == NULL) {
                    goto failed;
                }
                PyObject *run = PyUnicode_Substring(text, from, to);
                if (run == NULL) {
                    goto failed;
                }
                PyObject *call[3] = {quote, run, best_object};
                PyObject *scored = PyObject_Vectorcall(similarity, call, 2, score_cutoff_kwnames);
                Py_DECREF(run);
                if (scored == NULL) {
                    goto failed;
                }
                score = PyFloat_AsDouble(scored);
                Py_DECREF(scored);
                if (score == -1.0 && PyErr_Occurred()) {
                    goto failed;
                }
            }
            if (score > best) {
                best = score;
                best_first = first;
                best_last = last;
                best_length = length;
                Py_CLEAR(best_object);
            }
        }
    }
    Py_XDECREF(best_object);
    found->score = best;
    found->first = best_first;
    found->last = best_last;
    found->length = best_length;
    return 0;
failed:
    Py_XDECREF(best_object);
    return -1;
}

/* best_run(similarity, quote, text, bounds, floor, common, margin): `_python_best_run`
 * compiled (runs_search). */
static PyObject *
best_run(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7 || !PyUnicode_Check(args[1]) || !PyUnicode_Check(args[2])
        || !PyTuple_CheckExact(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "best_run(similarity, quote: str, text: str, bounds: tuple, floor, "
                        "common, margin)");
        return NULL;
    }
    double floor = PyFloat_AsDouble(args[4]), margin = PyFloat_AsDouble(args[6]);
    long long common = PyLong_AsLongLong(args[5]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    long long local[64], *at = NULL;
    Py_ssize_t sentences;
    if (bounds_read(args[3], local, 64, &at, &sentences) < 0) {
        return NULL;
    }
    Found found;
    PyObject *result = NULL;
    if (runs_search(args[0], args[1], args[2], at, sentences, floor, common, margin, &found) == 0) {
        result = Py_BuildValue("(dnnL)", found.score, found.first, found.last, found.length);
    }
    if (at != local) {
        PyMem_Free(at);
    }
    return result;
}

/* The first index i of at[lo..count) with at[i] >= value (bisect_left), count when none. */
static Py_ssize_t
bisect_at(const long long *at, Py_ssize_t lo, Py_ssize_t count, long long value)
{
    Py_ssize_t hi = count;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (at[mid] < value) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

/* The first run of sentences equal to the quote (it scores 1.0: the first place the quote
 * occurs between two sentence bounds), looked for unless the quote is empty or floor is 1.0
 * or more: 1 when found (in *found), 0 when not, -1 with an error set. */
static int
exact_span(PyObject *quote, PyObject *text, const long long *at, Py_ssize_t sentences,
           double floor, Found *found)
{
    Py_ssize_t size = PyUnicode_GET_LENGTH(quote), text_length = PyUnicode_GET_LENGTH(text);
    if (size && floor < 1.0) {
        Py_ssize_t place = PyUnicode_Find(text, quote, 0, text_length, 1);
        while (place >= 0) {
            Py_ssize_t first = bisect_at(at, 0, sentences + 1, place);
            if (first <= sentences && at[first] == place) {
                Py_ssize_t after = bisect_at(at, first, sentences + 1, place + size);
                if (after <= sentences && at[after] == place + size) {
                    found->score = 1.0;
                    found->first = first;
                    found->last = after - 1;
                    found->length = size;
                    return 1;
                }
            }
            place = PyUnicode_Find(text, quote, place + 1, text_length, 1);
        }
        if (place == -2) {
            return -1;
        }
    }
    return 0;
}

/* `quotes._python_best_span`'s search given common: the exact run first, else runs_search.
 * 1 when found exact, 0 when searched, -1 with an error set. */
static int
span_search(PyObject *similarity, PyObject *quote, PyObject *text, const long long *at,
            Py_ssize_t sentences, double floor, long long common, double margin, Found *found)
{
    int exact = exact_span(quote, text, at, sentences, floor, found);
    if (exact != 0) {
        return exact;
    }
    return runs_search(similarity, quote, text, at, sentences, floor, common, margin, found);
}

/* The length of the longest common subsequence of quote and text by lcs (rapidfuzz's
 * LCSseq.similarity: its C scorer for the quote, kept as common_lengths keeps it; any other
 * callable is called) in *common; -1 with an error set. */
static int
lcs_length(PyObject *lcs, PyObject *quote, PyObject *text, long long *common)
{
    uint32_t flags = 0;
    const RF_Scorer *scorer = rf_scorer_of(
        lcs, &seen_int, RF_SCORER_FLAG_RESULT_I64 | RF_SCORER_FLAG_RESULT_SIZE_T, &flags);
    if (scorer == NULL) {
        PyObject *found = PyObject_CallFunctionObjArgs(lcs, quote, text, NULL);
        if (found == NULL) {
            return -1;
        }
        *common = PyLong_AsLongLong(found);
        Py_DECREF(found);
        return *common == -1 && PyErr_Occurred() ? -1 : 0;
    }
    Py_ssize_t size = PyUnicode_GET_LENGTH(quote);
    if (size == 0) {
        *common = 0; /* an empty quote shares nothing */
        return 0;
    }
    const RF_ScorerFunc *kept = kept_scorer(scorer, quote, size);
    if (kept == NULL) {
        return -1;
    }
    RF_String second = rf_view(text, 0, PyUnicode_GET_LENGTH(text));
    if (flags & RF_SCORER_FLAG_RESULT_SIZE_T) {
        size_t found = 0;
        if (!kept->call.sizet(kept, &second, 1, 0, 0, &found)) {
            return -1;
        }
        *common = (long long)found;
    }
    else {
        int64_t found = 0;
        if (!kept->call.i64(kept, &second, 1, 0, 0, &found)) {
            return -1;
        }
        *common = (long long)found;
    }
    return 0;
}

/* best_span(similarity, lcs, quote, text, bounds, floor, common, margin): `quotes._best_span`
 * compiled (`_python_best_span`): the exact run first; then, for common < 0, the quote's LCS
 * with the whole text by lcs where the text has three sentences or more (else the quote's
 * length); then runs_search. (score, first, last, length). */
static PyObject *
best_span(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8 || !PyUnicode_Check(args[2]) || !PyUnicode_Check(args[3])
        || !PyTuple_CheckExact(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "best_span(similarity, lcs, quote: str, text: str, bounds: tuple, floor, "
                        "common, margin)");
        return NULL;
    }
    double floor = PyFloat_AsDouble(args[5]), margin = PyFloat_AsDouble(args[7]);
    long long common = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    long long local[64], *at = NULL;
    Py_ssize_t sentences;
    if (bounds_read(args[4], local, 64, &at, &sentences) < 0) {
        return NULL;
    }
    PyObject *quote = args[2], *text = args[3];
    Found found;
    int done = exact_span(quote, text, at, sentences, floor, &found);
    if (done == 0 && common < 0) {
        if (sentences > 2) {
            done = lcs_length(args[1], quote, text, &common);
        }
        else {
            common = PyUnicode_GET_LENGTH(quote);
        }
    }
    if (done == 0) {
        done = runs_search(args[0], quote, text, at, sentences, floor, common, margin, &found);
    }
    if (at != local) {
        PyMem_Free(at);
    }
    if (done < 0) {
        return NULL;
    }
    return Py_BuildValue("(dnnL)", found.score, found.first, found.last, found.length);
}

/* best_spans(similarity, variants, indices, texts, bounds, commons, min_score, floor, margin):
 * `quotes._python_best_spans` compiled. */
static PyObject *
best_spans(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 9 || !PyTuple_CheckExact(args[1]) || !PyList_CheckExact(args[2])
        || !PyList_CheckExact(args[3]) || !PyList_CheckExact(args[4])
        || !PyList_CheckExact(args[5])) {
        PyErr_SetString(PyExc_TypeError,
                        "best_spans(similarity, variants: tuple, indices: list, texts: list, "
                        "bounds: list, commons: list, min_score, floor, margin)");
        return NULL;
    }
    PyObject *similarity = args[0], *variants = args[1], *indices = args[2], *texts = args[3],
             *bounds = args[4], *commons = args[5];
    double min_score = PyFloat_AsDouble(args[6]), floor = PyFloat_AsDouble(args[7]),
           margin = PyFloat_AsDouble(args[8]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(texts), variant_count = PyTuple_GET_SIZE(variants);
    if (PyList_GET_SIZE(indices) != count || PyList_GET_SIZE(bounds) != count
        || PyList_GET_SIZE(commons) != variant_count) {
        PyErr_SetString(PyExc_ValueError, "best_spans: lengths differ");
        return NULL;
    }
    for (Py_ssize_t v = 0; v < variant_count; v++) {
        PyObject *variant = PyTuple_GET_ITEM(variants, v), *common_of = PyList_GET_ITEM(commons, v);
        if (!PyTuple_CheckExact(variant) || PyTuple_GET_SIZE(variant) != 2
            || !PyUnicode_Check(PyTuple_GET_ITEM(variant, 1)) || !PyList_CheckExact(common_of)
            || PyList_GET_SIZE(common_of) != count) {
            PyErr_SetString(PyExc_TypeError, "best_spans: variants (raw, str), commons lists");
            return NULL;
        }
    }
    PyObject *result = PyList_New(0);
    if (result == NULL) {
        return NULL;
    }
    long long local[64];
    for (Py_ssize_t place = 0; place < count; place++) {
        PyObject *text = PyList_GET_ITEM(texts, place);
        if (!PyUnicode_Check(text)) {
            PyErr_SetString(PyExc_TypeError, "best_spans: texts must be str");
            goto failed;
        }
        long long *at = NULL;
        Py_ssize_t sentences;
        if (bounds_read(PyList_GET_ITEM(bounds, place), local, 64, &at, &sentences) < 0) {
            goto failed;
        }
        Found best = {0.0, 0, -1, 0};
        PyObject *best_variant = PyTuple_GET_ITEM(PyTuple_GET_ITEM(variants, 0), 0);
        int failed = 0;
        for (Py_ssize_t v = 0; v < variant_count; v++) {
            PyObject *variant = PyTuple_GET_ITEM(variants, v);
            PyObject *norm = PyTuple_GET_ITEM(variant, 1);
            long long common = PyLong_AsLongLong(PyList_GET_ITEM(PyList_GET_ITEM(commons, v), place));
            if (common == -1 && PyErr_Occurred()) {
                failed = 1;
                break;
            }
            Py_ssize_t size = PyUnicode_GET_LENGTH(norm);
            double needed = best.score > min_score ? best.score : min_score;
            if (size == 0 || common < -(1LL << 50) || common > (1LL << 50)) {
                if (size == 0) {
                    continue;
                }
                PyErr_SetString(PyExc_ValueError, "a quote and common below 2**50");
                failed = 1;
                break;
            }
            long long both = (long long)size + common;
            if (both == 0) {
                both = 1;
            }
            if ((double)(2 * common) / (double)both < needed) {
                continue;
            }
            Found span;
            if (span_search(similarity, norm, text, at, sentences, floor, common, margin, &span) < 0) {
                failed = 1;
                break;
            }
            if (span.score > best.score) {
                best = span;
                best_variant = PyTuple_GET_ITEM(variant, 0);
                if (best.score == 1.0) {
                    break; /* no variant scores higher */
                }
            }
        }
        if (at != local) {
            PyMem_Free(at);
        }
        if (failed) {
            goto failed;
        }
        if (best.score >= min_score) {
            PyObject *found = Py_BuildValue("(dOO(dnnL))", best.score, PyList_GET_ITEM(indices, place),
                                            best_variant, best.score, best.first, best.last,
                                            best.length);
            if (found == NULL) {
                goto failed;
            }
            int appended = PyList_Append(result, found);
            Py_DECREF(found);
            if (appended < 0) {
                goto failed;
            }
        }
    }
    return result;
failed:
    Py_DECREF(result);
    return NULL;
}

/* common_lengths(similarity, quote, texts): [similarity(quote, text) for text in texts], for
 * rapidfuzz's LCSseq.similarity (or another of its scorers of an integer result), asked through
 * its C scorer built for the quote (or kept from an earlier call: `kept_scorer`); None when
 * similarity has no such scorer (the caller then asks rapidfuzz's process.extract). */
static PyObject *
common_lengths(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyUnicode_Check(args[1]) || !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "common_lengths(similarity, quote: str, texts: list)");
        return NULL;
    }
    PyObject *quote = args[1], *texts = args[2];
    uint32_t flags = 0;
    const RF_Scorer *scorer = rf_scorer_of(
        args[0], &seen_int, RF_SCORER_FLAG_RESULT_I64 | RF_SCORER_FLAG_RESULT_SIZE_T, &flags);
    if (scorer == NULL) {
        Py_RETURN_NONE;
    }
    Py_ssize_t count = PyList_GET_SIZE(texts);
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyUnicode_Check(PyList_GET_ITEM(texts, i))) {
            PyErr_SetString(PyExc_TypeError, "common_lengths: texts must be str");
            return NULL;
        }
    }
    PyObject *result = PyList_New(count);
    if (result == NULL) {
        return NULL;
    }
    /* The quote's scorer, kept as best_run keeps its own (`kept_scorer`): a quote is compared
     * with its article, then its variants located, its item passages compared, each asking
     * for its LCS with some text. An empty quote shares nothing with any text. */
    Py_ssize_t size = PyUnicode_GET_LENGTH(quote);
    const RF_ScorerFunc *kept = NULL;
    if (size > 0 && (kept = kept_scorer(scorer, quote, size)) == NULL) {
        goto failed;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *text = PyList_GET_ITEM(texts, i);
        RF_String second = rf_view(text, 0, PyUnicode_GET_LENGTH(text));
        PyObject *length;
        if (kept == NULL) {
            length = PyLong_FromLong(0);
        }
        else if (flags & RF_SCORER_FLAG_RESULT_SIZE_T) {
            size_t found = 0;
            if (!kept->call.sizet(kept, &second, 1, 0, 0, &found)) {
                goto failed;
            }
            length = PyLong_FromSize_t(found);
        }
        else {
            int64_t found = 0;
            if (!kept->call.i64(kept, &second, 1, 0, 0, &found)) {
                goto failed;
            }
            length = PyLong_FromLongLong(found);
        }
        if (length == NULL) {
            goto failed;
        }
        PyList_SET_ITEM(result, i, length);
    }
    return result;
failed:
    Py_DECREF(result);
    return NULL;
}

static PyMethodDef quote_postings_methods[] = {
    {"best_span", (PyCFunction)(void (*)(void))best_span, METH_FASTCALL,
     PyDoc_STR("best_span(similarity, lcs, quote, text, bounds, floor, common, margin): "
               "quotes._python_best_span compiled.")},
    {"shortlist", (PyCFunction)(void (*)(void))shortlist, METH_FASTCALL,
     PyDoc_STR("shortlist(index, quote, keep, exponent): the `keep` candidates of the "
               "QuoteIndex ranked best by the rare bigrams they share with the quote "
               "(quotes._python_shortlist compiled).")},
    {"coverage", (PyCFunction)(void (*)(void))coverage, METH_FASTCALL,
     PyDoc_STR("coverage(index, codes): the codes' idf weight and each reached candidate's "
               "share of it, by key (quotes._python_coverage compiled).")},
    {"best_run", (PyCFunction)(void (*)(void))best_run, METH_FASTCALL,
     PyDoc_STR("best_run(similarity, quote, text, bounds, floor, common, margin): the first "
               "best run of sentences, (score, first, last, length) "
               "(quotes._python_best_run compiled).")},
    {"best_spans", (PyCFunction)(void (*)(void))best_spans, METH_FASTCALL,
     PyDoc_STR("best_spans(similarity, variants, indices, texts, bounds, commons, min_score, "
               "floor, margin): each candidate's best variant and run scoring at least "
               "min_score, (score, index, raw, (score, first, last, length)) "
               "(quotes._python_best_spans compiled).")},
    {"common_lengths", (PyCFunction)(void (*)(void))common_lengths, METH_FASTCALL,
     PyDoc_STR("common_lengths(similarity, quote, texts): similarity(quote, text) of each "
               "text through rapidfuzz's C scorer of similarity for the quote (kept); None when it has "
               "none.")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef quote_postings_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "verifier._quote_postings",
    .m_doc = PyDoc_STR("The quote index's postings walk compiled (verifier/_quote_postings.c)."),
    .m_size = -1,
    .m_methods = quote_postings_methods,
};

PyMODINIT_FUNC
PyInit__quote_postings(void)
{
    for (int name = 0; name < NAMES; name++) {
        if (names[name] == NULL && (names[name] = PyUnicode_InternFromString(name_texts[name])) == NULL) {
            return NULL;
        }
    }
    if (score_cutoff_kwnames == NULL
        && (score_cutoff_kwnames = Py_BuildValue("(s)", "score_cutoff")) == NULL) {
        return NULL;
    }
    if (no_kwargs == NULL && (no_kwargs = PyDict_New()) == NULL) {
        return NULL;
    }
    return PyModule_Create(&quote_postings_module);
}
