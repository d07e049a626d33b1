/* kite.syntax._lalr: kite.syntax.lalr._run's loop in C, over the same Tables, the same Lark regular expressions and
   the same transformer callbacks. Any exception, and anything _run would answer None for, gives None: Lark answers. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <structmember.h>

static PyObject *s_type, *s_value, *s_start_pos, *s_end_pos, *s_line, *s_end_line, *s_column, *s_end_column;
static PyObject *s_lastgroup, *s_end, *s_default, *s_newline, *s_end_symbol;
static PyObject **token_names[] = {&s_type, &s_value, &s_start_pos, &s_end_pos, &s_line, &s_end_line, &s_column, &s_end_column};

typedef struct { long *items; Py_ssize_t size, capacity; } Stack;

static int push(Stack *stack, long item) {
    if (stack->size == stack->capacity) {
        Py_ssize_t capacity = stack->capacity ? stack->capacity * 2 : 64;
        long *items = PyMem_Realloc(stack->items, capacity * sizeof(long));
        if (!items) { PyErr_NoMemory(); return -1; }
        stack->items = items;
        stack->capacity = capacity;
    }
    stack->items[stack->size++] = item;
    return 0;
}

/* A Token's attributes, in this order: written straight into their slots (lark's Token has __slots__), as setattr
   would, without its lookup per attribute per token (a tenth of the loop). */
enum { TYPE, VALUE, START_POS, END_POS, LINE, END_LINE, COLUMN, END_COLUMN, TOKEN_FIELDS };

/* Each field's slot offset in `token_class`; -1 when one of them is not a plain writable object slot. */
static int slot_offsets(PyObject *token_class, Py_ssize_t offsets[TOKEN_FIELDS]) {
    if (!PyType_Check(token_class)) return -1;
    for (int field = 0; field < TOKEN_FIELDS; field++) {
        PyObject *descriptor = _PyType_Lookup((PyTypeObject *)token_class, *token_names[field]);
        if (!descriptor || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) return -1;
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type != T_OBJECT_EX || (member->flags & READONLY)) return -1;
        offsets[field] = member->offset;
    }
    return 0;
}

/* token.<field> = value, taking the reference to `value` (NULL: an error already set) */
static int set_field(PyObject *token, const Py_ssize_t offsets[TOKEN_FIELDS], int field, PyObject *value) {
    if (!value) return -1;
    Py_XSETREF(*(PyObject **)((char *)token + offsets[field]), value);
    return 0;
}

/* A terminal's kinds, lalr.Tables.token_kinds's bits: one dict lookup where five sets were asked. */
enum { IGNORED = 1, NEWLINE = 2, KEPT = 4, OPENING = 8, CLOSING = 16 };

static long kind_of(PyObject *kinds, PyObject *type_) {
    PyObject *found = PyDict_GetItemWithError(kinds, type_);
    if (!found) return PyErr_Occurred() ? -1 : 0;
    long kind = PyLong_AsLong(found);
    return kind == -1 && PyErr_Occurred() ? -1 : kind;
}

/* lalr._laid_out over the `size` values from `first`: a reduction's children, placeholders (None) and spliced
   `_rule`s (lists) in, as Lark's ChildFilterLALR lays them out. */
static PyObject *laid_out(PyObject *values, Py_ssize_t first, long size, PyObject *layout, PyObject *trailing_object) {
    long trailing = PyLong_AsLong(trailing_object);
    if (trailing == -1 && PyErr_Occurred()) return NULL;
    if (!PyTuple_Check(layout)) { PyErr_SetString(PyExc_TypeError, "a layout is a tuple"); return NULL; }
    PyObject *children = PyList_New(0);
    for (Py_ssize_t i = 0; children && i < PyTuple_GET_SIZE(layout); i++) {
        PyObject *entry = PyTuple_GET_ITEM(layout, i);
        long index = -1, placeholders = -1;
        int spliced = -1;
        if (PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == 3) {
            index = PyLong_AsLong(PyTuple_GET_ITEM(entry, 0));
            spliced = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
            placeholders = PyLong_AsLong(PyTuple_GET_ITEM(entry, 2));
        }
        if (index < 0 || index >= size || spliced < 0 || placeholders < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a layout entry out of range");
            Py_CLEAR(children);
            break;
        }
        for (long placeholder = 0; placeholder < placeholders; placeholder++)
            if (PyList_Append(children, Py_None) < 0) { Py_CLEAR(children); break; }
        PyObject *value = PyList_GET_ITEM(values, first + index);
        if (children && (spliced ? PyList_SetSlice(children, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, value)
                                 : PyList_Append(children, value)) < 0)
            Py_CLEAR(children);
    }
    for (long placeholder = 0; children && placeholder < trailing; placeholder++)
        if (PyList_Append(children, Py_None) < 0) Py_CLEAR(children);
    return children;
}

/* run(action_rows, rules, lexer_rows, chains, kinds, indenter, start_state, end_state,
       end_states, actions, after_chain, token_class, text, transformer, line_offset, column_offset) */
static PyObject *run(PyObject *module, PyObject *args) {
    PyObject *action_rows, *rules, *lexer_rows, *chains, *kinds, *indenter, *end_states;
    PyObject *actions, *after_chain, *token_class, *text, *transformer;
    long state, end_state, line_offset, column_offset;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!O!llOOOOUOll", &PyList_Type, &action_rows, &PyList_Type, &rules,
                          &PyList_Type, &lexer_rows, &PyDict_Type, &chains, &PyDict_Type, &kinds,
                          &PyTuple_Type, &indenter, &state, &end_state, &end_states, &actions, &after_chain,
                          &token_class, &text, &transformer, &line_offset, &column_offset))
        return NULL;
    Py_ssize_t offsets[TOKEN_FIELDS];
    if (PyTuple_GET_SIZE(indenter) != 6 || slot_offsets(token_class, offsets) < 0) Py_RETURN_NONE;
    /* the indenter's opening and closing brackets are token_kinds' OPENING and CLOSING */
    PyObject *nl_type = PyTuple_GET_ITEM(indenter, 0), *indent_type = PyTuple_GET_ITEM(indenter, 3);
    PyObject *dedent_type = PyTuple_GET_ITEM(indenter, 4);
    long tab_len = PyLong_AsLong(PyTuple_GET_ITEM(indenter, 5));
    if (tab_len == -1 && PyErr_Occurred()) { PyErr_Clear(); Py_RETURN_NONE; }
    PyObject *end_symbol = s_end_symbol;

    Stack states = {0}, levels = {0};
    PyObject **feed = NULL;
    Py_ssize_t feed_capacity = 0;
    PyObject *values = PyList_New(0), *result = NULL, *token = NULL, *held = NULL;  /* held: the feed's symbol */
    if (!values || push(&states, state) < 0 || push(&levels, 0) < 0) goto fail;
    Py_ssize_t action_count = PyList_GET_SIZE(action_rows), rule_count = PyList_GET_SIZE(rules);
    long depth = 0, line = 1, line_start = 0, pos = 0, length = (long)PyUnicode_GET_LENGTH(text);

    for (;;) {
        Py_ssize_t feed_size = 0;
        int at_end = 0;
        if (pos < length) {
            if (state < 0 || state >= PyList_GET_SIZE(lexer_rows)) goto none;
            PyObject *lexer = PyList_GET_ITEM(lexer_rows, state);
            if (!PyTuple_Check(lexer) || PyTuple_GET_SIZE(lexer) != 4 || !PyList_Check(PyTuple_GET_ITEM(lexer, 2))) goto none;
            PyObject *match_at = PyTuple_GET_ITEM(lexer, 0), *keywords = PyTuple_GET_ITEM(lexer, 1);
            /* the match for the terminals that can start with this character (lalr.FirstCharacter), made on first use */
            PyObject *by_first = PyTuple_GET_ITEM(lexer, 2);
            Py_UCS4 first = PyUnicode_READ_CHAR(text, pos);
            if (first < (Py_UCS4)PyList_GET_SIZE(by_first)) {
                match_at = PyList_GET_ITEM(by_first, first);
                if (match_at == Py_None) {
                    PyObject *code = PyLong_FromLong((long)first);
                    match_at = code ? PyObject_CallOneArg(PyTuple_GET_ITEM(lexer, 3), code) : NULL;
                    Py_XDECREF(code);
                    if (!match_at) goto fail;
                    Py_DECREF(match_at);  /* by_first holds it now */
                    if (PyList_GET_ITEM(by_first, first) != match_at) goto none;
                }
            }
            PyObject *type_;
            long end;
            if (PyTuple_Check(match_at)) {  /* one terminal, a run of characters: scanned (lalr.FirstCharacter) */
                if (PyTuple_GET_SIZE(match_at) != 3 || !PyUnicode_Check(PyTuple_GET_ITEM(match_at, 2))) goto none;
                PyObject *tail = PyTuple_GET_ITEM(match_at, 2);
                Py_ssize_t tail_size = PyUnicode_GET_LENGTH(tail);
                for (end = pos + 1; end < length; end++)
                    if (PyUnicode_FindChar(tail, PyUnicode_READ_CHAR(text, end), 0, tail_size, 1) < 0) break;
                type_ = Py_NewRef(PyTuple_GET_ITEM(match_at, 0));
            } else {
                PyObject *pos_object = PyLong_FromLong(pos);
                if (!pos_object) goto fail;
                PyObject *match = PyObject_CallFunctionObjArgs(match_at, text, pos_object, NULL);
                Py_DECREF(pos_object);
                if (!match) goto fail;
                if (match == Py_None) { Py_DECREF(match); goto none; }
                type_ = PyObject_GetAttr(match, s_lastgroup);
                PyObject *end_object = type_ ? PyObject_CallMethodNoArgs(match, s_end) : NULL;
                end = end_object ? PyLong_AsLong(end_object) : -1;
                Py_XDECREF(end_object);
                Py_DECREF(match);
                if (!type_ || (end == -1 && PyErr_Occurred())) { Py_XDECREF(type_); goto fail; }
            }
            long kind = kind_of(kinds, type_);
            if (kind < 0) { Py_DECREF(type_); goto fail; }
            int is_ignored = (kind & IGNORED) != 0, is_newline = (kind & NEWLINE) != 0;
            if (end < pos || end > length) { Py_DECREF(type_); goto none; }
            if (is_ignored && !is_newline) { Py_DECREF(type_); pos = end; continue; }
            PyObject *value = PyUnicode_Substring(text, pos, end);  /* match.group(), without the call */
            if (!value) { Py_DECREF(type_); goto fail; }
            long start_line = line, start_column = pos - line_start + 1;
            Py_ssize_t value_length = PyUnicode_GET_LENGTH(value);
            if (is_newline) {
                Py_ssize_t breaks = PyUnicode_Count(value, s_newline, 0, value_length);
                if (breaks < 0) { Py_DECREF(type_); Py_DECREF(value); goto fail; }
                if (breaks) {
                    line += (long)breaks;
                    line_start = pos + (long)PyUnicode_FindChar(value, '\n', 0, value_length, -1) + 1;
                }
            }
            long token_start = pos;
            pos = end;
            if (is_ignored) { Py_DECREF(type_); Py_DECREF(value); continue; }
            PyObject *known_pair = PyDict_GetItemWithError(keywords, type_);
            if (!known_pair && PyErr_Occurred()) { Py_DECREF(type_); Py_DECREF(value); goto fail; }
            if (known_pair) {
                if (!PyTuple_Check(known_pair) || PyTuple_GET_SIZE(known_pair) != 2
                    || !PyDict_Check(PyTuple_GET_ITEM(known_pair, 1))) { Py_DECREF(type_); Py_DECREF(value); goto none; }
                PyObject *known = PyTuple_GET_ITEM(known_pair, 1);
                PyObject *retyped = PyDict_GetItemWithError(known, value);
                if (retyped) Py_INCREF(retyped);
                else if (PyErr_Occurred()) { Py_DECREF(type_); Py_DECREF(value); goto fail; }
                else {
                    retyped = PyObject_CallOneArg(PyTuple_GET_ITEM(known_pair, 0), value);
                    if (!retyped) { Py_DECREF(type_); Py_DECREF(value); goto fail; }
                    int truth = PyObject_IsTrue(retyped);
                    if (truth < 0) { Py_DECREF(retyped); Py_DECREF(type_); Py_DECREF(value); goto fail; }
                    if (!truth) { Py_DECREF(retyped); retyped = Py_NewRef(type_); }
                    if (PyDict_SetItem(known, value, retyped) < 0) {
                        Py_DECREF(retyped); Py_DECREF(type_); Py_DECREF(value); goto fail;
                    }
                }
                Py_SETREF(type_, retyped);
                if ((kind = kind_of(kinds, type_)) < 0) { Py_DECREF(type_); Py_DECREF(value); goto fail; }
            }
            Py_CLEAR(token);
            if (kind & KEPT) {
                PyObject *text_args = PyTuple_Pack(1, value);
                token = text_args ? PyUnicode_Type.tp_new((PyTypeObject *)token_class, text_args, NULL) : NULL;
                Py_XDECREF(text_args);
                if (!token || set_field(token, offsets, TYPE, Py_NewRef(type_)) < 0
                    || set_field(token, offsets, VALUE, Py_NewRef(value)) < 0
                    || set_field(token, offsets, START_POS, PyLong_FromLong(token_start)) < 0
                    || set_field(token, offsets, END_POS, PyLong_FromLong(end)) < 0
                    || set_field(token, offsets, LINE, PyLong_FromLong(start_line + line_offset)) < 0
                    || set_field(token, offsets, END_LINE, PyLong_FromLong(line + line_offset)) < 0
                    || set_field(token, offsets, COLUMN, PyLong_FromLong(start_line == 1 ? start_column + column_offset : start_column)) < 0
                    || set_field(token, offsets, END_COLUMN, PyLong_FromLong(end - line_start + 1 + (line == 1 ? column_offset : 0))) < 0) {
                    Py_DECREF(type_); Py_DECREF(value); goto fail;
                }
            }
            if (feed_capacity < levels.size + 2) {
                PyObject **grown = PyMem_Realloc(feed, (levels.size + 2) * 2 * sizeof(PyObject *));
                if (!grown) { PyErr_NoMemory(); Py_DECREF(type_); Py_DECREF(value); goto fail; }
                feed = grown;
                feed_capacity = (levels.size + 2) * 2;
            }
            int is_nl = PyObject_RichCompareBool(type_, nl_type, Py_EQ);
            if (is_nl < 0) { Py_DECREF(type_); Py_DECREF(value); goto fail; }
            if (is_nl) {
                if (depth) { Py_DECREF(type_); Py_DECREF(value); continue; }
                Py_ssize_t last_break = PyUnicode_FindChar(value, '\n', 0, value_length, -1);
                Py_DECREF(type_);
                if (last_break < 0) { Py_DECREF(value); goto none; }  /* rsplit("\n", 1)[1] raises */
                long indent = 0;
                int value_kind = PyUnicode_KIND(value);
                const void *data = PyUnicode_DATA(value);
                for (Py_ssize_t i = last_break + 1; i < value_length; i++) {
                    Py_UCS4 c = PyUnicode_READ(value_kind, data, i);
                    if (c == ' ') indent += 1;
                    else if (c == '\t') indent += tab_len;
                }
                Py_DECREF(value);
                feed[feed_size++] = nl_type;
                if (indent > levels.items[levels.size - 1]) {
                    if (push(&levels, indent) < 0) goto fail;
                    feed[feed_size++] = indent_type;
                } else {
                    while (indent < levels.items[levels.size - 1]) {
                        levels.size--;
                        feed[feed_size++] = dedent_type;
                        if (levels.size == 0) goto none;  /* levels[-1] of an empty list raises */
                    }
                    if (indent != levels.items[levels.size - 1]) goto none;
                }
            } else {
                Py_DECREF(value);
                if (kind & OPENING) depth++;
                else if ((kind & CLOSING) && --depth < 0) { Py_DECREF(type_); goto none; }
                feed[feed_size++] = type_;
                Py_XSETREF(held, type_);
            }
        } else {
            if (feed_capacity < levels.size + 1) {
                PyObject **grown = PyMem_Realloc(feed, (levels.size + 1) * sizeof(PyObject *));
                if (!grown) { PyErr_NoMemory(); goto fail; }
                feed = grown;
                feed_capacity = levels.size + 1;
            }
            for (Py_ssize_t i = 1; i < levels.size; i++) feed[feed_size++] = dedent_type;
            feed[feed_size++] = end_symbol;
            levels.size = 1;
            Py_CLEAR(token);
            at_end = 1;
        }
        for (Py_ssize_t f = 0; f < feed_size; f++) {
            PyObject *symbol = feed[f];
            int is_end = at_end && f == feed_size - 1;
            for (;;) {
                if (state < 0 || state >= action_count) goto none;
                PyObject *row = PyList_GET_ITEM(action_rows, state);
                if (!PyDict_Check(row)) goto none;
                PyObject *action_object = PyDict_GetItemWithError(row, symbol);
                if (!action_object) { if (PyErr_Occurred()) goto fail; goto none; }
                long action = PyLong_AsLong(action_object);
                if (action == -1 && PyErr_Occurred()) goto fail;
                if (action >= 0) {
                    state = action;
                    if (push(&states, state) < 0) goto fail;
                    if (PyList_Append(values, token ? token : Py_None) < 0) goto fail;
                    break;
                }
                if (~action >= rule_count) goto none;
                PyObject *rule = PyList_GET_ITEM(rules, ~action);
                if (!PyTuple_Check(rule) || PyTuple_GET_SIZE(rule) < 4) goto none;
                long size = PyLong_AsLong(PyTuple_GET_ITEM(rule, 0)), take = PyLong_AsLong(PyTuple_GET_ITEM(rule, 2));
                if (PyErr_Occurred()) goto fail;
                Py_ssize_t count = PyList_GET_SIZE(values);
                if (size < 0 || size > count || size >= states.size) goto none;
                PyObject *value;
                if (take == 0) {  /* PASS_ONE */
                    if (size == 1) {
                        PyObject *chain = Py_BuildValue("(llO)", states.items[states.size - 2], state, symbol);
                        if (!chain) goto fail;
                        PyObject *known = PyDict_GetItemWithError(chains, chain);
                        long next;
                        if (known) next = PyLong_AsLong(known);
                        else if (PyErr_Occurred()) { Py_DECREF(chain); goto fail; }
                        else {
                            PyObject *found = PyObject_CallFunctionObjArgs(after_chain, actions, rules, chain, end_states, NULL);
                            if (!found || PyDict_SetItem(chains, chain, found) < 0) { Py_XDECREF(found); Py_DECREF(chain); goto fail; }
                            next = PyLong_AsLong(found);
                            Py_DECREF(found);
                        }
                        Py_DECREF(chain);
                        if (next == -1 && PyErr_Occurred()) goto fail;
                        if (next < 0) goto none;
                        state = next;
                        states.items[states.size - 1] = state;
                        if (is_end && state == end_state) { result = Py_NewRef(PyList_GET_ITEM(values, count - 1)); goto done; }
                        continue;
                    }
                    long index = PyLong_AsLong(PyTuple_GET_ITEM(rule, 3));
                    if (index == -1 && PyErr_Occurred()) goto fail;
                    if (index >= 0 || -index > count) goto none;
                    value = Py_NewRef(PyList_GET_ITEM(values, count + index));
                } else {
                    if (PyTuple_GET_SIZE(rule) < 7) goto none;
                    PyObject *taken = PyTuple_GET_ITEM(rule, 3), *children;
                    if (take == 1) children = PyList_GetSlice(values, count - size, count);
                    else if (take == 2) {
                        long index = PyLong_AsLong(taken);
                        if (index == -1 && PyErr_Occurred()) goto fail;
                        if (index >= 0 || -index > count) goto none;
                        children = PyList_New(1);
                        if (children) PyList_SET_ITEM(children, 0, Py_NewRef(PyList_GET_ITEM(values, count + index)));
                    } else if (take == 3) {
                        PyObject *picked = PyObject_CallOneArg(taken, values);
                        children = picked ? PySequence_List(picked) : NULL;
                        Py_XDECREF(picked);
                    } else {
                        if (!PyTuple_Check(taken) || PyTuple_GET_SIZE(taken) != 2) goto none;
                        children = laid_out(values, count - size, size, PyTuple_GET_ITEM(taken, 0), PyTuple_GET_ITEM(taken, 1));
                    }
                    if (!children) goto fail;
                    if (!PyList_Check(children)) { Py_DECREF(children); goto none; }
                    long make = PyLong_AsLong(PyTuple_GET_ITEM(rule, 4));
                    if (make == -1 && PyErr_Occurred()) { Py_DECREF(children); goto fail; }
                    PyObject *callback = PyTuple_GET_ITEM(rule, 5);
                    if (make == 0) value = PyObject_CallFunctionObjArgs(callback, transformer, children, NULL);
                    else if (make == 1) value = Py_NewRef(children);
                    else if (PyList_GET_SIZE(children) == 1) value = Py_NewRef(PyList_GET_ITEM(children, 0));
                    else if (callback == Py_None) {
                        PyObject *method = PyObject_GetAttr(transformer, s_default);
                        value = method ? PyObject_CallFunctionObjArgs(method, PyTuple_GET_ITEM(rule, 6), children, Py_None, NULL) : NULL;
                        Py_XDECREF(method);
                    } else value = PyObject_CallFunctionObjArgs(callback, transformer, children, NULL);
                    Py_DECREF(children);
                    if (!value) goto fail;
                }
                count = PyList_GET_SIZE(values);  /* a callback may not touch it, but read it again */
                if (size > count || size >= states.size) { Py_DECREF(value); goto none; }
                if (size) {
                    states.size -= size;
                    if (PyList_SetSlice(values, count - size, count, NULL) < 0) { Py_DECREF(value); goto fail; }
                }
                long under = states.items[states.size - 1];
                if (under < 0 || under >= action_count || !PyDict_Check(PyList_GET_ITEM(action_rows, under))) { Py_DECREF(value); goto none; }
                PyObject *go = PyDict_GetItemWithError(PyList_GET_ITEM(action_rows, under), PyTuple_GET_ITEM(rule, 1));
                long next = go ? PyLong_AsLong(go) : -1;
                if (!go || next < 0) { Py_DECREF(value); if (PyErr_Occurred()) goto fail; goto none; }
                state = next;
                if (push(&states, state) < 0 || PyList_Append(values, value) < 0) { Py_DECREF(value); goto fail; }
                if (is_end && state == end_state) { result = value; goto done; }
                Py_DECREF(value);
            }
        }
        if (at_end) goto none;
    }
fail:
    /* An Exception is Lark's to report in its own words; Ctrl-C or an exit (BaseException) goes on up, as from _run */
    if (!PyErr_ExceptionMatches(PyExc_Exception)) { result = NULL; goto done; }
    PyErr_Clear();
none:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(token);
    Py_XDECREF(held);
    Py_XDECREF(values);
    PyMem_Free(states.items);
    PyMem_Free(levels.items);
    PyMem_Free(feed);
    return result;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS, "kite.syntax.lalr._run's loop: the transformer's result, or None (then Lark answers)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT, "_lalr", NULL, -1, methods};

PyMODINIT_FUNC PyInit__lalr(void) {
    const char *names[] = {"type", "value", "start_pos", "end_pos", "line", "end_line", "column", "end_column",
                           "lastgroup", "end", "__default__", "\n", "$END"};
    PyObject **slots[] = {&s_type, &s_value, &s_start_pos, &s_end_pos, &s_line, &s_end_line, &s_column, &s_end_column,
                          &s_lastgroup, &s_end, &s_default, &s_newline, &s_end_symbol};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!(*slots[i] = PyUnicode_InternFromString(names[i]))) return NULL;
    return PyModule_Create(&module_definition);
}
