/*
 * What a job's inputs must be: the submit options' rules, each witness
 * against its key, the circuit against the key and each input against the
 * circuit, and the digest a request id is recorded with (cuzk_submit,
 * cuzk_submit_check, cuzk_submit_digest in include/cuzk.h).
 *
 * The checks are written here once and made in two places with the same
 * words: by a caller before it submits (cuzk_submit_check: cuzkd refuses a
 * bad job with a 400 instead of queueing it), and by the engine's own
 * threads when they read the job (admission and synthesis, stages.c),
 * where they fail the job.  The second is not redundant: a file can change
 * between the two, and library callers need not call the first.
 *
 * Must not: read more of a witness file than its header (a 2^27 witness
 * is 4 GiB), load a key or compile a circuit (cuzk_submit_check answers
 * from what is known), or take a lock other than keys_lock (for the key's
 * shape, which stays known after eviction).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuzk_files.h"
#include "cuzk_tools.h"
#include "engine/internal.h"
#include "groth16/formats/abc.h"
#include "groth16/formats/wtns.h"

cuzk_status engine_opts_check(const cuzk_submit_opts *o, cuzk_error *err) {
    if (!o || !o->key || !o->key[0])
        return cuzk_fail(err, CUZK_EINVAL, "submit: a key is needed");
    if (!o->witnesses || o->n_witnesses == 0 || o->n_witnesses > UINT32_MAX)
        return cuzk_fail(err, CUZK_EINVAL, "submit: at least one witness is needed");
    if (o->request_id && (!o->request_id[0] || strlen(o->request_id) > CUZK_ID_MAX))
        return cuzk_fail(err, CUZK_EINVAL, "submit: request id must be 1..%d bytes", CUZK_ID_MAX);
    if ((unsigned)o->priority > CUZK_PRIORITY_CRITICAL)
        return cuzk_fail(err, CUZK_EINVAL, "submit: unknown priority %d", (int)o->priority);
    for (size_t i = 0; i < o->n_witnesses; i++) {
        const cuzk_witness *w = &o->witnesses[i];
        int sources = !!w->path + !!w->data + !!w->input_json;
        if (!sources)
            return cuzk_fail(err, CUZK_EINVAL,
                             "submit: witness %zu has neither path nor data nor inputs", i);
        if (sources > 1)
            return cuzk_fail(err, CUZK_EINVAL,
                             "submit: witness %zu has more than one of path, data and inputs", i);
        if (w->data && !w->size)
            return cuzk_fail(err, CUZK_EINVAL, "submit: witness %zu has data of 0 bytes", i);
        if (w->input_json && (!w->input_len || w->release))
            return cuzk_fail(err, CUZK_EINVAL, "submit: witness %zu: %s", i,
                             w->release ? "inputs are always copied: no release callback"
                                        : "input.json of 0 bytes");
    }
    return CUZK_OK;
}

int engine_opts_have_inputs(const cuzk_submit_opts *o) {
    for (size_t i = 0; i < o->n_witnesses; i++)
        if (o->witnesses[i].input_json)
            return 1;
    return 0;
}

void cuzk_submit_digest(const cuzk_submit_opts *o, uint8_t out[32]) {
    cuzk_sha256 h;
    cuzk_sha256_init(&h);
    uint64_t head[2] = {o->n_witnesses, (uint64_t)engine_opts_have_inputs(o)};
    cuzk_sha256_update(&h, head, sizeof head);
    const char *c = o->circuit ? o->circuit : "";
    cuzk_sha256_update(&h, c, strlen(c) + 1);
    for (size_t i = 0; i < o->n_witnesses; i++) {
        const cuzk_witness *w = &o->witnesses[i];
        if (w->path) {
            struct stat st;
            uint64_t id[5] = {0};
            if (stat(w->path, &st) == 0) {
                id[0] = (uint64_t)st.st_dev, id[1] = (uint64_t)st.st_ino;
                id[2] = (uint64_t)st.st_size, id[3] = (uint64_t)st.st_mtim.tv_sec;
                id[4] = (uint64_t)st.st_mtim.tv_nsec;
            }
            cuzk_sha256_update(&h, "P", 1);
            cuzk_sha256_update(&h, w->path, strlen(w->path) + 1);
            cuzk_sha256_update(&h, id, sizeof id);
        } else {
            const void *p = w->data ? w->data : (const void *)w->input_json;
            uint64_t n = w->data ? w->size : w->input_len;
            cuzk_sha256_update(&h, w->data ? "D" : "I", 1);
            cuzk_sha256_update(&h, &n, sizeof n);
            cuzk_sha256_update(&h, p, (size_t)n);
        }
    }
    cuzk_sha256_final(&h, out);
}


/* An upper bound on the values in the JSON text at |p| (every value but
 * the first of a container follows a comma), found without parsing it:
 * parsing builds a node of some 40 bytes a value, so a few MiB of zeros
 * would cost gigabytes.  Stops counting past |max|. */
static size_t values_at_most(const char *p, size_t len, size_t max) {
    size_t n = 1;
    for (size_t i = 0; i < len && n <= max; i++)
        n += p[i] == ',' || p[i] == '[' || p[i] == '{';
    return n;
}

cuzk_status engine_input_parse(cuzk_wc_input **out, const cuzk_wc_circuit *c, const char *text,
                               size_t len, cuzk_error *err) {
    *out = NULL;
    size_t n_sig = cuzk_wc_circuit_n_inputs(c), most = 2 * n_sig + 1024;
    if (values_at_most(text, len, most) > most)
        return cuzk_fail(err, CUZK_EMISMATCH,
                         "far more values than the circuit's %zu input signals (not parsed)",
                         n_sig);
    cuzk_status s = cuzk_wc_input_parse(out, c, text, len, err);
    if (s != CUZK_OK)
        return s;
    size_t have = cuzk_wc_input_count(*out);
    if (have < n_sig) {
        /* the witness layer's words (and snarkjs's), said before the
         * calculation starts */
        cuzk_fail(err, CUZK_EMISMATCH,
                  "Not all inputs have been set. Only %zu out of %zu (%zu value%s missing; a "
                  "circom .wasm holds no signal names to say which)",
                  have, n_sig, n_sig - have, n_sig - have == 1 ? "" : "s");
        cuzk_wc_input_free(*out);
        *out = NULL;
        return CUZK_EMISMATCH;
    }
    return CUZK_OK;
}

cuzk_status engine_job_circuit(cuzk_engine *e, engine_key *k, const cuzk_submit_opts *o,
                               int queue, engine_circuit **out, cuzk_error *err) {
    if (o->circuit)
        return engine_circuit_resolve(e, out, o->circuit, queue, err);
    pthread_mutex_lock(&e->keys_lock);
    *out = k->circuit;
    if (*out)
        engine_circuit_hold(e, *out); /* keys_lock -> circ_lock */
    pthread_mutex_unlock(&e->keys_lock);
    if (!*out)
        return cuzk_fail(err, CUZK_EINVAL,
                         "key %s has no circuit registered: name the circuit's .wasm with the "
                         "job (\"circuit\") or register one with the key",
                         k->id);
    return CUZK_OK;
}

/* The witness file at |path| against the key (curve |kc|, |kv| values, a
 * domain of 2^log_n rows) from its header alone (and, for an image, its
 * size against the header's counts): a client's 3 GiB file costs a few
 * small reads here; its values are read and checked by synthesis, into
 * the partition's buffers, after the same comparison. */
static cuzk_status check_witness_file(const char *path, cuzk_curve kc, uint64_t kv,
                                      unsigned log_n, cuzk_error *err) {
    cuzk_status s;
    if (cuzk_abc_file_is_image(path)) {
        cuzk_abc_head h;
        if ((s = cuzk_abc_head_open(&h, path, err)) == CUZK_OK)
            s = cuzk_abc_head_check_key(&h, kc, (size_t)kv, log_n, err);
        cuzk_abc_head_close(&h);
        return s;
    }
    cuzk_wtns_head h;
    if ((s = cuzk_wtns_head_open(&h, path, err)) == CUZK_OK)
        s = engine_witness_fits(kc, kv, h.curve, h.n_witness, err);
    cuzk_wtns_head_close(&h);
    return s;
}

cuzk_status engine_images_only(const char *key_id, cuzk_error *err) {
    return cuzk_fail(err, CUZK_EUNSUPPORTED,
                     "key %s has no A and B coefficients (its section 4 is empty): it proves "
                     "only a, b, c images, not witnesses or inputs",
                     key_id);
}

/* Witness |i| of |o| against the key (curve |kc|, |kv| values) and, for
 * inputs, against circuit |c| (NULL: not loaded, not checked). */
static cuzk_status check_one(const cuzk_submit_opts *o, size_t i, const engine_circuit *c,
                             cuzk_curve kc, uint64_t kv, unsigned log_n, int images_only,
                             const char *key_id, cuzk_error *err) {
    const cuzk_witness *w = &o->witnesses[i];
    int image = w->path ? cuzk_abc_file_is_image(w->path) : cuzk_abc_is_image(w->data, w->size);
    if (images_only && !image) /* what synthesis would fail it with */
        return engine_images_only(key_id, err);
    if (w->input_json) {
        cuzk_wc_input *in = NULL;
        cuzk_status s = c ? engine_input_parse(&in, c->wc, w->input_json, w->input_len, err)
                          : CUZK_OK;
        cuzk_wc_input_free(in);
        return s;
    }
    if (w->path)
        return check_witness_file(w->path, kc, kv, log_n, err);
    if (cuzk_abc_is_image(w->data, w->size)) { /* checked whole, then against the key */
        cuzk_abc x;
        cuzk_status s = cuzk_abc_from_mem(&x, w->data, w->size, err);
        if (s == CUZK_OK)
            s = cuzk_abc_check_key(&x, kc, (size_t)kv, log_n, err);
        cuzk_abc_close(&x);
        return s;
    }
    cuzk_curve wc;
    uint64_t nw;
    cuzk_status s = cuzk_wtns_inspect(&wc, &nw, NULL, w->data, w->size, err);
    return s != CUZK_OK ? s : engine_witness_fits(kc, kv, wc, nw, err);
}

/* Every witness of |o| against the key and |c|; the failure's message
 * says which one. */
static cuzk_status check_all(const cuzk_submit_opts *o, const engine_circuit *c, cuzk_curve kc,
                             uint64_t kv, unsigned log_n, int images_only, const char *key_id,
                             cuzk_error *err) {
    cuzk_error why = {0};
    for (size_t i = 0; i < o->n_witnesses; i++) {
        cuzk_status s = check_one(o, i, c, kc, kv, log_n, images_only, key_id, &why);
        if (s == CUZK_OK)
            continue;
        if (!o->witnesses[i].input_json)
            return cuzk_fail(err, s, "witness %zu: %s", i, why.msg);
        if (o->n_witnesses == 1)
            return cuzk_fail(err, s, "input: %s", why.msg);
        return cuzk_fail(err, s, "inputs[%zu]: %s", i, why.msg);
    }
    return CUZK_OK;
}

cuzk_status cuzk_submit_check(cuzk_engine *e, const cuzk_submit_opts *o, cuzk_error *err) {
    cuzk_status s = engine_opts_check(o, err);
    if (s != CUZK_OK)
        return s;
    engine_key *k;
    if ((s = engine_key_resolve(e, &k, o->key, err)) != CUZK_OK)
        return s;
    pthread_mutex_lock(&e->keys_lock);
    cuzk_curve kc = k->key.curve; /* known from the first load on (keys.c) */
    uint64_t kv = k->witness_bytes / sizeof(cuzk_fr);
    unsigned log_n = k->log_n;
    int images_only = k->images_only;
    pthread_mutex_unlock(&e->keys_lock);
    int inputs = engine_opts_have_inputs(o);
    engine_circuit *c = NULL;
    if (inputs)
        s = engine_job_circuit(e, k, o, 0, &c, err);
    if (s == CUZK_OK && kc != CUZK_CURVE_NONE && kv) {
        const engine_circuit *ready = c && atomic_load(&c->state) == CIRC_READY ? c : NULL;
        if (ready)
            s = engine_circuit_check(ready, k->id, kc, kv, err);
        if (s == CUZK_OK)
            s = check_all(o, ready, kc, kv, log_n, images_only, k->id, err);
    }
    engine_circuit_release(e, c, 0);
    engine_key_release(e, k);
    return s;
}
