/*
 * wc.c: circuits, instances and the witness computation (witness/wc.h).
 *
 * The order of calls follows circom's witness_calculator.js, so that the
 * same inputs give the same witness and the same errors: init(0); for each
 * input signal in the order of input.json, each value written to the
 * shared memory and set with setInputSignal (the circuit runs as its
 * inputs arrive: a failing assert surfaces from here); then the count of
 * values set is compared with getInputSize; then getWitness for every
 * wire.  An instance whose module trapped or threw is replaced before its
 * next use, because a wasm module interrupted mid-call may hold any state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dlfcn.h>

#include "witness/internal.h"

struct cuzk_wc {
    const cuzk_wc_circuit *c;
    void *inst;
    int dirty;
    cuzk_wc_print_fn print;
    void *print_ctx;
};

static cuzk_status abi_status(int code) {
    switch (code) {
    case CUZK_WC_EEXCEPTION: return CUZK_EVERIFY;
    case CUZK_WC_ENOMEM: return CUZK_ENOMEM;
    case CUZK_WC_ERANGE: return CUZK_ERANGE;
    default: return CUZK_EINTERNAL;
    }
}

static cuzk_status load_common(cuzk_wc_circuit **out, const uint8_t *wasm, size_t size,
                               const char *name, const cuzk_wc_opts *opts, cuzk_error *err) {
    *out = NULL;
    cuzk_wc_circuit *c = calloc(1, sizeof *c);
    if (!c)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a circuit");
    pthread_mutex_init(&c->query_lock, NULL);
    cuzk_status s = wc_obtain(c, wasm, size, name, opts, err);
    if (s != CUZK_OK) {
        cuzk_wc_circuit_free(c);
        return s;
    }
    char msg[WC_MSG] = "";
    void *inst = c->abi->instance_new(NULL, NULL, msg, sizeof msg);
    if (!inst) {
        cuzk_wc_circuit_free(c);
        return cuzk_fail(err, CUZK_EINTERNAL, "%s: %s", name, msg);
    }
    uint32_t ver[3];
    int rc = c->abi->info(inst, ver, &c->n32, c->prime, WC_WORDS, &c->n_witness, &c->n_inputs,
                          msg, sizeof msg);
    c->query = inst;
    if (rc) {
        s = cuzk_fail(err, abi_status(rc), "%s: %s", name, msg);
        cuzk_wc_circuit_free(c);
        return s;
    }
    snprintf(c->version, sizeof c->version, "%u.%u.%u", ver[0], ver[1], ver[2]);
    uint8_t prime[32];
    for (uint32_t j = 0; j < WC_WORDS; j++)
        for (int b = 0; b < 4; b++)
            prime[4 * j + b] = (uint8_t)((j < c->n32 ? c->prime[j] : 0) >> (8 * b));
    c->curve = c->n32 == WC_WORDS ? cuzk_curve_from_r(prime, 32) : CUZK_CURVE_NONE;
    if (c->curve == CUZK_CURVE_NONE) {
        s = cuzk_fail(err, CUZK_EUNSUPPORTED,
                      "%s: the circuit's prime is not the scalar field of bn128 or bls12381",
                      name);
        cuzk_wc_circuit_free(c);
        return s;
    }
    if (c->n_witness == 0) {
        s = cuzk_fail(err, CUZK_EFORMAT, "%s: the circuit has no witness", name);
        cuzk_wc_circuit_free(c);
        return s;
    }
    *out = c;
    return CUZK_OK;
}

cuzk_status cuzk_wc_circuit_load_mem(cuzk_wc_circuit **c, const void *wasm, size_t size,
                                     const char *name, const cuzk_wc_opts *opts,
                                     cuzk_error *err) {
    return load_common(c, wasm, size, name ? name : "circuit.wasm", opts, err);
}

cuzk_status cuzk_wc_circuit_load(cuzk_wc_circuit **c, const char *path, const cuzk_wc_opts *opts,
                                 cuzk_error *err) {
    *c = NULL;
    /* O_NONBLOCK: a FIFO named as a circuit must not block the caller */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return cuzk_fail(err, errno == ENOENT ? CUZK_ENOTFOUND : CUZK_EIO, "%s: %s", path,
                         strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_fail(err, CUZK_EINVAL, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return cuzk_fail(err, CUZK_EFORMAT, "%s: empty file", path);
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return cuzk_fail(err, CUZK_EIO, "%s: %s", path, strerror(errno));
    const char *base = strrchr(path, '/');
    cuzk_status s = load_common(c, m, (size_t)st.st_size, base ? base + 1 : path, opts, err);
    munmap(m, (size_t)st.st_size);
    return s;
}

void cuzk_wc_circuit_free(cuzk_wc_circuit *c) {
    if (!c)
        return;
    if (c->query)
        c->abi->instance_free(c->query);
    if (c->dl)
        dlclose(c->dl);
    pthread_mutex_destroy(&c->query_lock);
    free(c);
}

cuzk_curve cuzk_wc_circuit_curve(const cuzk_wc_circuit *c) { return c->curve; }
uint32_t cuzk_wc_circuit_n_witness(const cuzk_wc_circuit *c) { return c->n_witness; }
uint32_t cuzk_wc_circuit_n_inputs(const cuzk_wc_circuit *c) { return c->n_inputs; }
const char *cuzk_wc_circuit_version(const cuzk_wc_circuit *c) { return c->version; }
const char *cuzk_wc_circuit_hash(const cuzk_wc_circuit *c) { return c->hash; }
double cuzk_wc_circuit_compile_s(const cuzk_wc_circuit *c) { return c->compile_s; }
int cuzk_wc_circuit_native(const cuzk_wc_circuit *c) {
    return c->query && (c->abi->flags(c->query) & CUZK_WC_FLAG_NATIVE_FR) != 0;
}

cuzk_status cuzk_wc_new(cuzk_wc **out, const cuzk_wc_circuit *c, cuzk_wc_print_fn print,
                        void *print_ctx, cuzk_error *err) {
    *out = NULL;
    cuzk_wc *wc = calloc(1, sizeof *wc);
    if (!wc)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a witness calculator");
    char msg[WC_MSG] = "";
    wc->c = c;
    wc->print = print;
    wc->print_ctx = print_ctx;
    wc->inst = c->abi->instance_new(print, print_ctx, msg, sizeof msg);
    if (!wc->inst) {
        free(wc);
        return cuzk_fail(err, CUZK_EINTERNAL, "witness calculator: %s", msg);
    }
    *out = wc;
    return CUZK_OK;
}

void cuzk_wc_free(cuzk_wc *wc) {
    if (!wc)
        return;
    if (wc->inst)
        wc->c->abi->instance_free(wc->inst);
    free(wc);
}

cuzk_status cuzk_wc_calculate(cuzk_wc *wc, void *out, const cuzk_wc_input *in,
                              cuzk_error *err) {
    const cuzk_wc_circuit *c = wc->c;
    const cuzk_wc_abi *abi = c->abi;
    char msg[WC_MSG] = "";
    if (in->c != c)
        return cuzk_fail(err, CUZK_EINVAL, "the input was parsed for another circuit");
    if (wc->dirty) {
        abi->instance_free(wc->inst);
        wc->inst = abi->instance_new(wc->print, wc->print_ctx, msg, sizeof msg);
        if (!wc->inst) {
            wc->dirty = 1;
            wc->inst = NULL;
            return cuzk_fail(err, CUZK_EINTERNAL, "witness calculator: %s", msg);
        }
        wc->dirty = 0;
    }
    if (!wc->inst)
        return cuzk_fail(err, CUZK_EINTERNAL, "witness calculator has no instance");
    int rc = abi->init(wc->inst, 0, msg, sizeof msg);
    size_t set = 0;
    for (size_t i = 0; !rc && i < in->n_signals; i++) {
        const wc_signal *sg = &in->signals[i];
        for (uint32_t k = 0; !rc && k < sg->count; k++) {
            rc = abi->set_input(wc->inst, sg->hi, sg->lo, k,
                                in->values + (sg->first + k) * WC_WORDS, msg, sizeof msg);
            set += !rc;
        }
    }
    if (rc) {
        wc->dirty = 1;
        return cuzk_fail(err, abi_status(rc), "%s", msg);
    }
    if (set < c->n_inputs)
        return cuzk_fail(err, CUZK_EMISMATCH, "Not all inputs have been set. Only %zu out of %u",
                         set, c->n_inputs);
    rc = abi->get_witness(wc->inst, 0, c->n_witness, out, WC_WORDS, msg, sizeof msg);
    if (rc) {
        wc->dirty = 1;
        return cuzk_fail(err, abi_status(rc), "%s", msg);
    }
    return CUZK_OK;
}

size_t cuzk_wtns_image(uint8_t *out, cuzk_curve curve, const void *values, uint32_t n) {
    const uint32_t n8 = 32;
    size_t total = 12 + 12 + 4 + n8 + 4 + 12 + (size_t)n * n8;
    if (!out)
        return total;
    uint8_t *p = out;
#define PUT32(v)                                                                           \
    do {                                                                                   \
        uint32_t v_ = (v);                                                                 \
        for (int b_ = 0; b_ < 4; b_++)                                                     \
            *p++ = (uint8_t)(v_ >> (8 * b_));                                              \
    } while (0)
#define PUT64(v)                                                                           \
    do {                                                                                   \
        uint64_t v_ = (v);                                                                 \
        for (int b_ = 0; b_ < 8; b_++)                                                     \
            *p++ = (uint8_t)(v_ >> (8 * b_));                                              \
    } while (0)
    memcpy(p, "wtns", 4);
    p += 4;
    PUT32(2); /* version */
    PUT32(2); /* sections */
    PUT32(1);
    PUT64(8 + n8);
    PUT32(n8);
    const uint64_t *r = cuzk_curve_r_limbs(curve);
    for (int i = 0; i < 4; i++)
        PUT64(r ? r[i] : 0);
    PUT32(n);
    PUT32(2);
    PUT64((uint64_t)n * n8);
#undef PUT32
#undef PUT64
    memcpy(p, values, (size_t)n * n8);
    return total;
}
