/*
 * The public API's proofs and public signals as bytes (include/cuzk.h):
 * image encoding and decoding, verification keys as handles, verification
 * of images, and a job's results as images.
 *
 * Why images: the public header stays free of the curve unions of
 * groth16/prover/key.h, so an embedding program compiles against include/ alone
 * and the internal layout can change without breaking it.  The proof image
 * is the raw form cuzkd has always served (zcash compressed for BLS12-381,
 * Ethereum's for BN254); the daemon gets it from here instead of encoding
 * points itself.  Both directions go through the curve table
 * (proof_encode_raw, proof_decode_raw): this file names no curve.
 *
 * Must not: hold engine locks (a DONE partition's proof and signals are
 * immutable), or accept an image without validating every point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/api.h"
#include "engine/internal.h"
#include "groth16/curve_impl.h"
#include "groth16/formats/json.h"
#include "groth16/formats/zkey.h"
#include "util/infile.h"

size_t cuzk_proof_bytes_len(cuzk_curve c) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(c);
    return ci ? ci->proof_raw_bytes : 0;
}

void cuzk_proof_to_bytes(cuzk_proof_bytes *out, const cuzk_proof *p) {
    memset(out, 0, sizeof *out);
    out->curve = p->curve;
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(p->curve);
    if (ci && ci->proof_raw_bytes <= sizeof out->bytes)
        out->len = (uint32_t)ci->proof_encode_raw(out->bytes, p);
}

cuzk_status cuzk_proof_from_bytes(cuzk_proof *p, const cuzk_proof_bytes *in, cuzk_error *err) {
    memset(p, 0, sizeof *p);
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(in->curve);
    if (!ci)
        return cuzk_fail(err, CUZK_ECURVE, "proof image has no known curve (tag %d)",
                         (int)in->curve);
    if (in->len != ci->proof_raw_bytes || in->len > sizeof in->bytes)
        return cuzk_fail(err, CUZK_EFORMAT, "a %s proof image has %zu bytes, this one %u",
                         ci->name, ci->proof_raw_bytes, (unsigned)in->len);
    cuzk_error e = {0};
    cuzk_status s = ci->proof_decode_raw(p, in->bytes, &e);
    if (s != CUZK_OK) {
        memset(p, 0, sizeof *p);
        return cuzk_fail(err, s, "proof image, %s", e.msg);
    }
    return CUZK_OK;
}

void cuzk_public_to_bytes(cuzk_curve c, uint8_t *out, const cuzk_fr *pub, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        cuzk_fr_to_le(c, le, &pub[i]);
        for (int j = 0; j < 32; j++)
            out[32 * i + (size_t)j] = le[31 - j];
    }
}

cuzk_status cuzk_public_from_bytes(cuzk_curve c, cuzk_fr *out, const uint8_t *in, size_t n,
                                   cuzk_error *err) {
    for (size_t i = 0; i < n; i++) {
        uint8_t le[32];
        for (int j = 0; j < 32; j++)
            le[j] = in[32 * i + (size_t)(31 - j)];
        cuzk_error e = {0};
        cuzk_status s = cuzk_fr_from_le(c, &out[i], le, &e);
        if (s != CUZK_OK)
            return cuzk_fail(err, s, "public signal %zu: %s", i, e.msg);
    }
    return CUZK_OK;
}

/* ---- verification keys ---------------------------------------------------------- */

cuzk_status cuzk_vk_load(cuzk_vk **out, const char *path, cuzk_error *err) {
    *out = NULL;
    if (!path || !*path)
        return cuzk_fail(err, CUZK_EINVAL, "no verification key path");
    cuzk_infile f; /* no FIFO waited on: util/infile.h */
    cuzk_error why = {0};
    cuzk_status os = cuzk_infile_open(&f, path, "verification key", &why);
    if (os != CUZK_OK)
        return cuzk_fail(err, os == CUZK_EIO ? CUZK_ENOTFOUND : os, "%s: cannot open%s",
                         path, os == CUZK_EINVAL ? " (not a regular file)" : "");
    unsigned char head[64];
    size_t got = f.size < sizeof head ? (size_t)f.size : sizeof head;
    if (cuzk_infile_pread(&f, head, got, 0, NULL) != CUZK_OK)
        got = 0;
    cuzk_infile_close(&f);
    cuzk_vk *vk = calloc(1, sizeof *vk);
    if (!vk)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for a verification key");
    cuzk_status s;
    if (got >= 4 && !memcmp(head, "zkey", 4)) {
        cuzk_zkey z;
        s = cuzk_zkey_open(&z, path, err);
        if (s == CUZK_OK) {
            s = cuzk_vk_from_zkey(vk, &z, err);
            cuzk_zkey_close(&z);
        }
    } else {
        size_t i = 0;
        while (i < got && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
            i++;
        if (i == got || head[i] != '{') {
            free(vk);
            return cuzk_fail(err, CUZK_EFORMAT,
                             "%s: neither a .zkey nor a verification_key.json", path);
        }
        s = cuzk_vk_read_json_file(vk, path, err);
    }
    if (s != CUZK_OK) {
        cuzk_vk_clear(vk);
        free(vk);
        return s;
    }
    *out = vk;
    return CUZK_OK;
}

void cuzk_vk_release(cuzk_vk *vk) {
    if (!vk)
        return;
    cuzk_vk_clear(vk);
    free(vk);
}

cuzk_curve cuzk_vk_curve(const cuzk_vk *vk) {
    return vk->curve;
}

size_t cuzk_vk_n_public(const cuzk_vk *vk) {
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(vk->curve);
    return ci ? ci->vk_n_public(vk) : 0;
}

cuzk_status cuzk_verify(const cuzk_vk *vk, const cuzk_proof_bytes *proof, const uint8_t *pub,
                        size_t n_pub, cuzk_error *err) {
    if (!vk || !proof || (n_pub && !pub))
        return cuzk_fail(err, CUZK_EINVAL, "cuzk_verify: NULL argument");
    if (proof->curve != vk->curve)
        return cuzk_fail(err, CUZK_ECURVE, "proof is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(proof->curve), cuzk_curve_snarkjs_name(vk->curve));
    if (n_pub != cuzk_vk_n_public(vk))
        return cuzk_fail(err, CUZK_EMISMATCH, "%zu public signals, the key has %zu", n_pub,
                         cuzk_vk_n_public(vk));
    cuzk_proof p;
    cuzk_status s = cuzk_proof_from_bytes(&p, proof, err);
    if (s != CUZK_OK)
        return s;
    cuzk_fr *fr = calloc(n_pub ? n_pub : 1, sizeof *fr);
    if (!fr)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for %zu public signals", n_pub);
    s = cuzk_public_from_bytes(vk->curve, fr, pub, n_pub, err);
    if (s == CUZK_OK)
        s = cuzk_vk_verify(vk, fr, n_pub, &p, err);
    free(fr);
    if (s == CUZK_OK)
        cuzk_error_clear(err);
    return s;
}

/* ---- a job's results as images ------------------------------------------------------ */

/* Partition |i| of |job| when it is DONE with a real proof; else NULL after
 * recording why. */
static const engine_part *proved_part(const cuzk_job *job, size_t i, cuzk_error *err) {
    if (i >= job->n_parts) {
        cuzk_fail(err, CUZK_ERANGE, "partition %zu of %u", i, job->n_parts);
        return NULL;
    }
    const engine_part *p = &job->parts[i];
    if (atomic_load(&job->parts[i].stage) != CUZK_STAGE_DONE) {
        cuzk_fail(err, CUZK_EBUSY, "partition %zu is not done", i);
        return NULL;
    }
    if (p->simulated) {
        cuzk_fail(err, CUZK_EUNSUPPORTED,
                  "partition %zu ran on a simulated device: there is no proof", i);
        return NULL;
    }
    return p;
}

static cuzk_status why(cuzk_error *err) {
    return err ? err->status : CUZK_EINVAL;
}

cuzk_status cuzk_job_proof_bytes(const cuzk_job *job, cuzk_proof_bytes *proof, size_t i,
                                 cuzk_error *err) {
    cuzk_error e = {0};
    const engine_part *p = proved_part(job, i, &e);
    if (!p)
        return cuzk_fail(err, why(&e), "%s", e.msg);
    cuzk_proof_to_bytes(proof, &p->proof);
    return CUZK_OK;
}

cuzk_status cuzk_job_public_bytes(const cuzk_job *job, cuzk_curve *curve, uint8_t *pub,
                                  size_t *n, size_t i, cuzk_error *err) {
    cuzk_error e = {0};
    const engine_part *p = proved_part(job, i, &e);
    if (!p)
        return cuzk_fail(err, why(&e), "%s", e.msg);
    if (!pub && *n)
        return cuzk_fail(err, CUZK_EINVAL, "room for %zu public signals but no buffer", *n);
    if (curve)
        *curve = p->proof.curve;
    if (!pub) { /* counting */
        *n = p->n_pub;
        return CUZK_OK;
    }
    if (*n < p->n_pub) {
        size_t room = *n;
        *n = p->n_pub;
        return cuzk_fail(err, CUZK_ERANGE, "partition %zu has %zu public signals, room for %zu",
                         i, p->n_pub, room);
    }
    *n = p->n_pub;
    cuzk_public_to_bytes(p->proof.curve, pub, p->pub, p->n_pub);
    return CUZK_OK;
}
