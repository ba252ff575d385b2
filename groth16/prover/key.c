/*
 * Loading a .zkey into a cuzk_key, the prover's table per curve, and
 * curve dispatch for prove/verify (key.h) through that table.  The
 * copies here happen once per key load, never per proof; A, B1 and B2
 * are copied compact (only the wires whose point is not infinity, with a
 * density bitmap: key_template.h).
 */
#include "groth16/prover/key.h"

#include <stdlib.h>
#include <string.h>

#include "msm/msm.h"
#include "util/paste.h"

static size_t align64(size_t x) { return (x + 63) & ~(size_t)63; }

/* Carve |bytes| out of the key's block at *off; the block is 64-byte aligned. */
static void *carve(cuzk_key *k, size_t *off, size_t bytes) {
    void *p = (uint8_t *)k->mem + *off;
    *off += align64(bytes);
    return p;
}

/* A point of |v| is the point at infinity: all zero bytes in the file. */
static int is_infinity(const cuzk_zkey_points *v, uint64_t i) {
    const uint8_t *p = v->data + i * v->elem_bytes;
    return p[0] == 0 && !memcmp(p, p + 1, v->elem_bytes - 1);
}

/* Is wire |i| kept: its point of |v| (or of |v2|, the G2 twin of B1) is
 * not infinity?  Where B1 and B2 disagree, the wire is kept. */
static int kept(const cuzk_zkey_points *v, const cuzk_zkey_points *v2, uint64_t i) {
    return !is_infinity(v, i) || (v2 && !is_infinity(v2, i));
}

/* The wires of |nv| that |v| (and |v2|) keep. */
static size_t count_kept(const cuzk_zkey_points *v, const cuzk_zkey_points *v2, size_t nv) {
    size_t n = 0;
    for (size_t i = 0; i < nv && i < v->count && (!v2 || i < v2->count); i++)
        n += kept(v, v2, i);
    return n;
}

/* Copy the kept points of |v| into |dst| (and of |v2| into |dst2|) in wire
 * order and set their bits in |bits|; with |bits| NULL every point is kept
 * (count_kept said so) and the sections are copied whole. */
static cuzk_status copy_kept(const cuzk_zkey_points *v, const cuzk_zkey_points *v2, size_t nv,
                             void *dst, void *dst2, uint64_t *bits, cuzk_error *err) {
    cuzk_status st;
    if (!bits) {
        if ((st = cuzk_zkey_points_copy(v, 0, nv, dst, err)) != CUZK_OK)
            return st;
        return v2 ? cuzk_zkey_points_copy(v2, 0, nv, dst2, err) : CUZK_OK;
    }
    if (v->count < nv || (v2 && v2->count < nv))
        return cuzk_fail(err, CUZK_EINVAL, "zkey: a point section is shorter than nVars");
    memset(bits, 0, (nv + 63) / 64 * sizeof *bits);
    uint8_t *d = dst, *d2 = dst2;
    for (size_t i = 0; i < nv; i++) {
        if (!kept(v, v2, i))
            continue;
        bits[i / 64] |= 1ULL << (i % 64);
        memcpy(d, v->data + i * v->elem_bytes, v->elem_bytes);
        d += v->elem_bytes;
        if (v2) {
            memcpy(d2, v2->data + i * v2->elem_bytes, v2->elem_bytes);
            d2 += v2->elem_bytes;
        }
    }
    return CUZK_OK;
}

#define P bls12_381
#define P_ID CUZK_CURVE_BLS12_381
#include "groth16/prover/key_template.h"
#include "groth16/prover/prover_table_template.h"
#undef P
#undef P_ID
#define P bn254
#define P_ID CUZK_CURVE_BN254
#include "groth16/prover/key_template.h"
#include "groth16/prover/prover_table_template.h"
#undef P
#undef P_ID

static const cuzk_prover_table *const by_id[] = {
    [CUZK_CURVE_BN254] = &bn254_prover_table,
    [CUZK_CURVE_BLS12_381] = &bls12_381_prover_table,
};

const cuzk_prover_table *cuzk_prover_table_get(cuzk_curve c) {
    /* unsigned: a negative value read from a corrupt struct is out of range too */
    return (unsigned)c < sizeof by_id / sizeof by_id[0] ? by_id[(unsigned)c] : NULL;
}

/* The prover's table of the key's curve; NULL (and |err| set) for none
 * of ours. */
static const cuzk_prover_table *impl_of(cuzk_curve c, const char *what, cuzk_error *err) {
    const cuzk_prover_table *ci = cuzk_prover_table_get(c);
    if (ci == NULL)
        cuzk_fail(err, CUZK_ECURVE, "%s: unknown curve", what);
    return ci;
}

cuzk_status cuzk_key_from_zkey(cuzk_key *k, const cuzk_zkey *z, cuzk_error *err) {
    memset(k, 0, sizeof *k);
    k->curve = z->curve;
    const cuzk_prover_table *ci = impl_of(z->curve, "zkey", err);
    return ci ? ci->key_from_zkey(k, z, err) : CUZK_ECURVE;
}

cuzk_status cuzk_key_load(cuzk_key *k, const char *path, cuzk_error *err) {
    cuzk_zkey z;
    memset(k, 0, sizeof *k);
    cuzk_status st = cuzk_zkey_open(&z, path, err);
    if (st != CUZK_OK)
        return st;
    st = cuzk_key_from_zkey(k, &z, err);
    cuzk_zkey_close(&z);
    return st;
}

void cuzk_key_free(cuzk_key *k) {
    if (k) {
        free(k->mem);
        memset(k, 0, sizeof *k);
    }
}

/* Counts of a key of no known curve (an unloaded, zeroed key) are 0. */
size_t cuzk_key_n_public(const cuzk_key *k) {
    const cuzk_prover_table *ci = cuzk_prover_table_get(k->curve);
    return ci ? ci->key_n_public(k) : 0;
}
size_t cuzk_key_n_vars(const cuzk_key *k) {
    const cuzk_prover_table *ci = cuzk_prover_table_get(k->curve);
    return ci ? ci->key_n_vars(k) : 0;
}
unsigned cuzk_key_log_n(const cuzk_key *k) {
    const cuzk_prover_table *ci = cuzk_prover_table_get(k->curve);
    return ci ? ci->key_log_n(k) : 0;
}

size_t cuzk_key_n_coefs(const cuzk_key *k) {
    const cuzk_prover_table *ci = cuzk_prover_table_get(k->curve);
    cuzk_key_arrays v;
    if (ci == NULL)
        return 0;
    ci->key_arrays(k, &v);
    return v.n_coefs;
}

cuzk_status cuzk_key_vk(const cuzk_key *k, cuzk_vk *vk, cuzk_error *err) {
    memset(vk, 0, sizeof *vk);
    const cuzk_prover_table *ci = impl_of(k->curve, "proving key", err);
    return ci ? ci->vk_from_key(k, vk, err) : CUZK_ECURVE;
}

void cuzk_vk_clear(cuzk_vk *vk) {
    const cuzk_prover_table *ci = vk ? cuzk_prover_table_get(vk->curve) : NULL;
    if (ci)
        ci->vk_free(vk);
}

cuzk_status cuzk_vk_verify(const cuzk_vk *vk, const cuzk_fr *pub, size_t n_pub,
                           const cuzk_proof *proof, cuzk_error *err) {
    const cuzk_prover_table *ci = impl_of(vk->curve, "verification key", err);
    if (ci == NULL)
        return CUZK_ECURVE;
    if (proof->curve != vk->curve)
        return cuzk_fail(err, CUZK_ECURVE, "proof is for %s, the key for %s",
                         cuzk_curve_snarkjs_name(proof->curve),
                         cuzk_curve_snarkjs_name(vk->curve));
    return ci->verify(vk, pub, n_pub, proof, err);
}
