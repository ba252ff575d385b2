/*
 * The top level of a submit's JSON body (submit_body.c), read without
 * parsing its inputs: cuzkd's submit (api_jobs.c) hands each input on as
 * the client's own bytes.
 */
#ifndef CUZKD_SUBMIT_BODY_H
#define CUZKD_SUBMIT_BODY_H

#include <stddef.h>

#include <jansson.h>

#include "cuzk.h"

/* Most partitions one submit may carry. */
#define MAX_PARTITIONS 4096

/*
 * The JSON form is read in two parts: the inputs ("input", "inputs") are
 * located in the body and handed on as the client's own bytes, and every
 * other member is parsed with jansson.  Handing on the bytes keeps what
 * the client wrote (integers beyond 64 bits, which snarkjs reads as
 * JavaScript numbers, would not survive jansson) and costs no copy or
 * re-serialisation; the witness layer parses and checks each input.
 */
typedef struct json_span {
    const char *p;
    size_t n;
} json_span;

/* The scalar values (strings, numbers, true, false, null; not member
 * names) in the JSON text |p|..|end|, by its structure only, counted up to
 * |max| + 1.  Parsing builds a node of some 40 bytes for each of them, so
 * this bounds what a parse of the text can cost before it is parsed: a
 * 16 MiB array of zeros is 8 million nodes. */
size_t json_scalars(const char *p, const char *end, size_t max);

/* Split the body's top-level object: "input" / "inputs" into |input|
 * (NULL n when absent) and |*is_array|, every other member parsed into a
 * new object (*rest).  0 with |why| set when the body is not an object. */
int split_body(const char *body, size_t len, json_t **rest, json_span *input, int *is_array,
               int *n_input_members, char *why, size_t why_n);

/* The elements of the array |a| as spans into |w[i].input_json|; returns
 * their number (at most |max|; max + 1 means more), or -1 if |a| is not a
 * well-formed array. */
long array_spans(json_span a, cuzk_witness *w, size_t max);

#endif
