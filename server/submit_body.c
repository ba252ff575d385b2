/*
 * The top level of a submit's JSON body (submit_body.h): a scan that skips
 * values without building them, so the inputs stay the client's bytes.
 *
 * Must not: allocate for an input, or read past |end|.
 */
#include "server/submit_body.h"

#include <stdio.h>
#include <string.h>



static const char *skip_ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* End of the JSON value at |p| (its structure only: brackets and strings;
 * the contents are checked by whoever parses the value); NULL if it does
 * not end before |end|. */
static const char *skip_value(const char *p, const char *end) {
    if (p >= end)
        return NULL;
    if (*p == '"') {
        for (p++; p < end; p++) {
            if (*p == '\\')
                p++;
            else if (*p == '"')
                return p + 1;
        }
        return NULL;
    }
    if (*p == '{' || *p == '[') {
        size_t depth = 0;
        for (; p < end; p++) {
            if (*p == '"') {
                const char *q = skip_value(p, end);
                if (!q)
                    return NULL;
                p = q - 1;
            } else if (*p == '{' || *p == '[') {
                depth++;
            } else if (*p == '}' || *p == ']') {
                if (--depth == 0)
                    return p + 1;
            }
        }
        return NULL;
    }
    const char *q = p;
    while (q < end && !strchr(",}] \t\r\n", *q))
        q++;
    return q > p ? q : NULL;
}

/* The scalar values (strings, numbers, true, false, null; not member
 * names) in the JSON text |p|..|end|, by its structure only, counted up to
 * |max| + 1.  Parsing builds a node of some 40 bytes for each of them, so
 * this bounds what a parse of the text can cost before it is parsed: a
 * 16 MiB array of zeros is 8 million nodes. */
size_t json_scalars(const char *p, const char *end, size_t max) {
    size_t n = 0;
    while (p < end && n <= max) {
        char ch = *p;
        if (ch == '"') {
            const char *q = skip_value(p, end);
            if (!q)
                return n + 1; /* malformed: the parser says so */
            p = skip_ws(q, end);
            if (p >= end || *p != ':')
                n++;
        } else if (strchr("{}[],: \t\r\n", ch)) {
            p++;
        } else {
            n++;
            while (p < end && !strchr(",}] \t\r\n", *p))
                p++;
        }
    }
    return n;
}

/* Split the body's top-level object: "input" / "inputs" into |input|
 * (NULL n when absent) and |*is_array|, every other member parsed into a
 * new object (*rest).  0 with |why| set when the body is not an object. */
int split_body(const char *body, size_t len, json_t **rest, json_span *input, int *is_array,
               int *n_input_members, char *why, size_t why_n) {
    const char *p = body, *end = body + len;
    *rest = json_object();
    input->p = NULL, input->n = 0;
    *n_input_members = 0;
    p = skip_ws(p, end);
    if (p >= end || *p != '{') {
        snprintf(why, why_n, "the JSON body must be an object");
        return 0;
    }
    p = skip_ws(p + 1, end);
    if (p < end && *p == '}')
        p++;
    else
        for (;;) {
            const char *k = p, *ke = p < end && *p == '"' ? skip_value(p, end) : NULL;
            if (!ke) {
                snprintf(why, why_n, "malformed JSON body: expected a member name at byte %zu",
                         (size_t)(p - body));
                return 0;
            }
            p = skip_ws(ke, end);
            if (p >= end || *p != ':') {
                snprintf(why, why_n, "malformed JSON body: expected ':' at byte %zu",
                         (size_t)(p - body));
                return 0;
            }
            const char *v = skip_ws(p + 1, end), *ve = skip_value(v, end);
            if (!ve) {
                snprintf(why, why_n, "malformed JSON body: unterminated value at byte %zu",
                         (size_t)(v - body));
                return 0;
            }
            json_error_t je;
            json_t *name = json_loadb(k, (size_t)(ke - k), JSON_DECODE_ANY, &je);
            const char *ns = json_string_value(name);
            if (!ns) {
                json_decref(name);
                snprintf(why, why_n, "malformed JSON body: bad member name at byte %zu",
                         (size_t)(k - body));
                return 0;
            }
            if (!strcmp(ns, "input") || !strcmp(ns, "inputs")) {
                input->p = v;
                input->n = (size_t)(ve - v);
                *is_array = ns[5] == 's';
                ++*n_input_members;
            } else if (json_scalars(v, ve, MAX_PARTITIONS) > MAX_PARTITIONS) {
                /* none holds more than "witness_paths" may */
                snprintf(why, why_n, "member \"%s\" holds more than %d values", ns,
                         MAX_PARTITIONS);
                json_decref(name);
                return 0;
            } else {
                json_t *val = json_loadb(v, (size_t)(ve - v), JSON_DECODE_ANY, &je);
                if (!val || json_object_get(*rest, ns)) {
                    if (val)
                        snprintf(why, why_n, "malformed JSON body: duplicate member \"%s\"", ns);
                    else
                        snprintf(why, why_n, "malformed JSON body: member \"%s\": %s", ns,
                                 je.text);
                    json_decref(val);
                    json_decref(name);
                    return 0;
                }
                json_object_set_new(*rest, ns, val);
            }
            json_decref(name);
            p = skip_ws(ve, end);
            if (p < end && *p == ',') {
                p = skip_ws(p + 1, end);
                continue;
            }
            if (p < end && *p == '}') {
                p++;
                break;
            }
            snprintf(why, why_n, "malformed JSON body: expected ',' or '}' at byte %zu",
                     (size_t)(p - body));
            return 0;
        }
    p = skip_ws(p, end);
    if (p != end) {
        snprintf(why, why_n, "malformed JSON body: text after the object at byte %zu",
                 (size_t)(p - body));
        return 0;
    }
    return 1;
}

/* The elements of the array |a| as spans into |w[i].input_json|; returns
 * their number (at most |max|; max + 1 means more), or -1 if |a| is not a
 * well-formed array. */
long array_spans(json_span a, cuzk_witness *w, size_t max) {
    const char *p = a.p, *end = a.p + a.n;
    long n = 0;
    if (!a.n || *p != '[')
        return -1;
    p = skip_ws(p + 1, end);
    if (p < end && *p == ']')
        return skip_ws(p + 1, end) == end ? 0 : -1;
    for (;;) {
        const char *ve = skip_value(p, end);
        if (!ve)
            return -1;
        if ((size_t)n < max && w) {
            w[n].input_json = p;
            w[n].input_len = (size_t)(ve - p);
        }
        n++;
        p = skip_ws(ve, end);
        if (p < end && *p == ',') {
            p = skip_ws(p + 1, end);
            continue;
        }
        if (p < end && *p == ']' && skip_ws(p + 1, end) == end)
            return (size_t)n > max ? (long)max + 1 : n;
        return -1;
    }
}
