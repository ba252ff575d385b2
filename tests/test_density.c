/*
 * Proving keys with density bitmaps (groth16.h, "Density"), both curves.
 *
 * - A compact key proves byte for byte what the same key with A, B1 and B2
 *   expanded to every wire (infinity for the left-out ones) proves, with
 *   fixed r and s: development keys of generated circuits with zero
 *   columns (gates of bits, a share of the wires readable in A and in B)
 *   at 2^10, 2^12 and 2^14, through P_groth16_prove and through the
 *   *_with_scratch form given exactly its scratch size (one byte less is
 *   CUZK_EINVAL); the proofs verify.  Counts that disagree with the
 *   bitmaps are refused.
 * - snarkjs's keys (tests/interop/fixtures) load compact: the bitmaps are
 *   the non-infinity points, the key's block shrinks, and the proof is the
 *   one the whole sections (the loader's old form) give.  A wire whose B1
 *   point is infinity but whose B2 point is not stays in B.
 * - A development key written as .zkey holds nVars points in A, B1, B2,
 *   infinity exactly off the bitmaps, and loads back with the same bitmaps,
 *   points and proofs.
 * - A timing key of the porep profile at 2^12: n_a and n_b are the
 *   bitmaps' populations and the counts of the r1cs's columns, every array
 *   lies in its one block, and it proves.  The key size this gives at 2^27
 *   is printed (an extrapolation, not a check).
 * Per-curve code is this file included again with TEST_CURVE defined
 * (tests/testutil.h).
 */
#ifndef TEST_CURVE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/curve.h"
#include "groth16/prover/groth16.h"
#include "groth16/prover/key.h"
#include "groth16/formats/r1cs.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/wtns.h"
#include "groth16/formats/zkey.h"
#include "cpu_prove.h"
#include "testutil.h"
#include "util/threadpool.h"

TU_GROTH16_PROVE_DEFINE(bls12_381)
TU_GROTH16_PROVE_DEFINE(bn254)

static cuzk_pool *g_pool;

/* Wire s is in the bitmap (a NULL bitmap holds every wire). */
static int has(const uint64_t *bits, size_t s) { return !bits || (bits[s / 64] >> (s % 64) & 1); }

static size_t al(size_t x) { return (x + 63) & ~(size_t)63; }

static size_t popcount(const uint64_t *bits, size_t n) {
    size_t c = 0;
    for (size_t w = 0; w < (n + 63) / 64; w++)
        c += (size_t)__builtin_popcountll(bits[w]);
    return c;
}

/* A circuit with zero columns: the porep profile's shares on |curve|. */
static void zero_column_params(cuzk_synth_params *sp, cuzk_curve curve, unsigned log2) {
    cuzk_error err = {0};
    cuzk_synth_params_profile(sp, "porep", &err);
    sp->curve = curve;
    sp->log2_domain = log2;
    sp->n_pub_in = 3;
    sp->seed = tu_rand64();
}

#define TEST_CURVE bls12_381
#define TEST_ID CUZK_CURVE_BLS12_381
#include __FILE__
#undef TEST_CURVE
#undef TEST_ID

#define TEST_CURVE bn254
#define TEST_ID CUZK_CURVE_BN254
#include __FILE__
#undef TEST_CURVE
#undef TEST_ID

static const tu_curve curves[] = {
    {"bn254", CUZK_CURVE_BN254, bn254_tests},
    {"bls12_381", CUZK_CURVE_BLS12_381, bls12_381_tests},
};

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_density");
    cuzk_error err = {0};
    g_pool = cuzk_pool_create(3, &err); /* 3 threads: gather blocks split unevenly */
    CHECK(g_pool != NULL, "pool: %s", err.msg);
    tu_run_curves(curves, TU_COUNT(curves));
    cuzk_pool_destroy(g_pool);
    return tu_finish();
}

#else /* ---- template, instantiated per curve (TEST_CURVE) --------------- */

#define T(x) TC(x)
#define PN TEST_CURVE_NAME
#define FR T(fr)
#define G1A T(g1_affine)
#define G2A T(g2_affine)

/* A copy of |pk| whose A, B1 and B2 hold every wire (infinity where the
 * bitmap has no point), no bitmaps; free with T(full_free). */
typedef struct T(full) {
    T(groth16_pk) pk;
    G1A *a, *b1;
    G2A *b2;
} T(full);

static void T(full_of)(T(full) *f, const T(groth16_pk) *pk) {
    size_t nv = pk->n_vars, ia = 0, ib = 0;
    f->pk = *pk;
    f->a = calloc(nv, sizeof *f->a);
    f->b1 = calloc(nv, sizeof *f->b1);
    f->b2 = calloc(nv, sizeof *f->b2);
    for (size_t s = 0; s < nv; s++) {
        if (has(pk->a_density, s))
            f->a[s] = pk->a[ia++];
        else
            T(g1_affine_set_inf)(&f->a[s]);
        if (has(pk->b_density, s)) {
            f->b1[s] = pk->b1[ib];
            f->b2[s] = pk->b2[ib++];
        } else {
            T(g1_affine_set_inf)(&f->b1[s]);
            T(g2_affine_set_inf)(&f->b2[s]);
        }
    }
    f->pk.a = f->a, f->pk.b1 = f->b1, f->pk.b2 = f->b2;
    f->pk.a_density = f->pk.b_density = NULL;
    f->pk.n_a = f->pk.n_b = (uint32_t)nv;
}

static void T(full_free)(T(full) *f) { free(f->a), free(f->b1), free(f->b2); }

static void T(rand_fr)(FR *x) {
    uint64_t l[4];
    tu_rand_below(l, T(fr_modulus), 4);
    T(fr_to_mont)(x, l);
}

/* The plain witness the prover takes, from Montgomery values. */
static FR *T(plain_of)(const cuzk_fr *wm, size_t nv) {
    FR *p = malloc(nv * sizeof *p);
    for (size_t i = 0; i < nv; i++)
        T(fr_from_mont)(p[i].l, &wm[i].TEST_CURVE);
    return p;
}

/* Prove with |pk| for |plain| with the given r, s (status into *st). */
static T(groth16_proof) T(prove)(const T(groth16_pk) *pk, const FR *plain, const FR *r,
                                 const FR *s, cuzk_status *st) {
    T(groth16_proof) p;
    cuzk_error err = {0};
    memset(&p, 0, sizeof p);
    *st = T(tu_groth16_prove)(&p, pk, plain, pk->n_vars, r, s, g_pool, NULL, &err);
    CHECK(*st == CUZK_OK, "%s: prove: %s", PN, err.msg);
    return p;
}

/* The proofs of |pk| and of its expansion agree; the proof verifies with
 * the public inputs |pub| (NULL: not checked). */
static void T(same_as_full)(const T(groth16_pk) *pk, const FR *plain, const FR *pub,
                            const char *what) {
    T(full) f;
    FR r, s;
    cuzk_status st1, st2;
    T(rand_fr)(&r);
    T(rand_fr)(&s);
    T(full_of)(&f, pk);
    T(groth16_proof) p1 = T(prove)(pk, plain, &r, &s, &st1);
    T(groth16_proof) p2 = T(prove)(&f.pk, plain, &r, &s, &st2);
    CHECK(st1 == CUZK_OK && st2 == CUZK_OK && !memcmp(&p1, &p2, sizeof p1),
          "%s: the compact key (%u of %u in A, %u in B) proves otherwise than the full one",
          what, pk->n_a, pk->n_vars, pk->n_b);
    if (pub) {
        T(groth16_vk) vk;
        cuzk_error err = {0};
        if (T(groth16_vk_from_pk)(&vk, pk, &err) == CUZK_OK) {
            CHECK(T(groth16_verify)(&vk, pub, pk->n_public, &p1, &err) == CUZK_OK,
                  "%s: proof of the compact key does not verify: %s", what, err.msg);
            T(groth16_vk_free)(&vk);
        }
    }
    T(full_free)(&f);
}

/* ---- dev keys of generated circuits --------------------------------------- */

static void T(test_generated)(unsigned log2) {
    char what[96];
    snprintf(what, sizeof what, "%s 2^%u", PN, log2);
    cuzk_synth_params sp;
    zero_column_params(&sp, TEST_ID, log2);
    cuzk_r1cs r;
    cuzk_fr *wm;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(&sp, &r, &wm, &err) != CUZK_OK) {
        CHECK(0, "%s: synth: %s", what, err.msg);
        return;
    }
    uint64_t seed = tu_rand64();
    T(setup_toxic) t;
    T(dev_key) key;
    T(setup_toxic_draw)(&t, &seed, &err);
    cuzk_status st = T(setup_dev)(&key, &r, &t, g_pool, &err);
    CHECK(st == CUZK_OK, "%s: setup: %s", what, err.msg);
    if (st != CUZK_OK)
        goto out;
    const T(groth16_pk) *pk = &key.pk;
    size_t nv = pk->n_vars;
    CHECK(pk->a_density && pk->b_density && pk->n_a < nv && pk->n_b < nv &&
              popcount(pk->a_density, nv) == pk->n_a && popcount(pk->b_density, nv) == pk->n_b,
          "%s: the key has zero columns (%u, %u of %zu)", what, pk->n_a, pk->n_b, nv);
    FR *plain = T(plain_of)(wm, nv), *pub = malloc((pk->n_public + 1) * sizeof *pub);
    for (size_t i = 0; i < pk->n_public; i++)
        pub[i] = wm[1 + i].TEST_CURVE;
    T(same_as_full)(pk, plain, pub, what);

    /* the scratch form with exactly its size, then one byte short */
    size_t need = T(groth16_prove_scratch_bytes)(pk, cuzk_pool_threads(g_pool));
    void *sc = malloc(need);
    T(groth16_proof) p1, p2;
    FR rr, ss;
    T(rand_fr)(&rr);
    T(rand_fr)(&ss);
    CHECK(T(groth16_prove_with_scratch)(&p1, pk, plain, nv, &rr, &ss, sc, need, g_pool, NULL,
                                        &err) == CUZK_OK &&
              T(tu_groth16_prove)(&p2, pk, plain, nv, &rr, &ss, g_pool, NULL, &err) == CUZK_OK &&
              !memcmp(&p1, &p2, sizeof p1),
          "%s: prove in a scratch of exactly %zu bytes: %s", what, need, err.msg);
    CHECK(T(groth16_prove_with_scratch)(&p1, pk, plain, nv, &rr, &ss, sc, need - 1, g_pool, NULL,
                                        &err) == CUZK_EINVAL,
          "%s: a scratch one byte short accepted", what);
    free(sc);

    /* counts that disagree with the bitmaps read past the points: refused */
    T(groth16_pk) bad = *pk;
    bad.n_a = pk->n_a + 1;
    CHECK(T(tu_groth16_prove)(&p1, &bad, plain, nv, &rr, &ss, g_pool, NULL, &err) == CUZK_EINVAL,
          "%s: n_a one above the bitmap accepted", what);
    bad = *pk;
    bad.n_b = pk->n_b - 1; /* a gather by the bitmap would overrun its n_b */
    CHECK(T(tu_groth16_prove)(&p1, &bad, plain, nv, &rr, &ss, g_pool, NULL, &err) == CUZK_EINVAL,
          "%s: n_b one below the bitmap accepted", what);
    bad = *pk;
    bad.b_density = NULL;
    CHECK(T(tu_groth16_prove)(&p1, &bad, plain, nv, &rr, &ss, g_pool, NULL, &err) == CUZK_EINVAL,
          "%s: no B bitmap with n_b < n_vars accepted", what);
    free(plain), free(pub);
out:
    T(dev_key_free)(&key);
    free(wm);
    cuzk_r1cs_free(&r);
}

/* ---- snarkjs's keys --------------------------------------------------------- */

/* Point i of a view is all zero bytes. */
static int T(inf_at)(const cuzk_zkey_points *v, size_t i) {
    const uint8_t *p = v->data + i * v->elem_bytes;
    for (uint32_t k = 0; k < v->elem_bytes; k++)
        if (p[k])
            return 0;
    return 1;
}

/* The key as the loader made it before density: the whole sections. */
static void T(whole)(T(full) *f, const cuzk_key *k, const cuzk_zkey *z) {
    size_t nv = z->n_vars;
    f->pk = k->pk.TEST_CURVE;
    f->a = malloc(nv * sizeof *f->a);
    f->b1 = malloc(nv * sizeof *f->b1);
    f->b2 = malloc(nv * sizeof *f->b2);
    cuzk_zkey_points_copy(&z->a, 0, nv, f->a, NULL);
    cuzk_zkey_points_copy(&z->b1, 0, nv, f->b1, NULL);
    cuzk_zkey_points_copy(&z->b2, 0, nv, f->b2, NULL);
    f->pk.a = f->a, f->pk.b1 = f->b1, f->pk.b2 = f->b2;
    f->pk.a_density = f->pk.b_density = NULL;
    f->pk.n_a = f->pk.n_b = (uint32_t)nv;
}

static void T(test_snarkjs)(void) {
    static const char *circs[] = {"multiplier", "poseidon_chain", "merkle", "many_public"};
    const char *cn = cuzk_curve_snarkjs_name(TEST_ID);
    int seen = 0, compact = 0;
    for (size_t c = 0; c < TU_COUNT(circs); c++) {
        char zp[1024], wp[1024];
        snprintf(zp, sizeof zp, "%s/tests/interop/fixtures/%s/%s.zkey", tu_source_dir(), cn,
                 circs[c]);
        snprintf(wp, sizeof wp, "%s/tests/interop/fixtures/%s/%s.wtns", tu_source_dir(), cn,
                 circs[c]);
        cuzk_error err = {0};
        cuzk_zkey z;
        cuzk_wtns w;
        if (cuzk_zkey_open(&z, zp, &err) != CUZK_OK)
            continue;
        if (cuzk_wtns_open(&w, wp, &err) != CUZK_OK) {
            cuzk_zkey_close(&z);
            continue;
        }
        seen++;
        size_t nv = z.n_vars, na = 0, nb = 0, bad_bits = 0;
        cuzk_key k;
        cuzk_status st = cuzk_key_from_zkey(&k, &z, &err);
        CHECK(st == CUZK_OK, "%s/%s: load: %s", cn, circs[c], err.msg);
        if (st == CUZK_OK) {
            const T(groth16_pk) *pk = &k.pk.TEST_CURVE;
            for (size_t s = 0; s < nv; s++) {
                int in_a = !T(inf_at)(&z.a, s), in_b = !T(inf_at)(&z.b1, s) || !T(inf_at)(&z.b2, s);
                na += in_a, nb += in_b;
                bad_bits += has(pk->a_density, s) != in_a || has(pk->b_density, s) != in_b;
            }
            CHECK(pk->n_a == na && pk->n_b == nb && bad_bits == 0,
                  "%s/%s: bitmaps are not the non-infinity points (%u/%zu A, %u/%zu B, %zu bad)",
                  cn, circs[c], pk->n_a, na, pk->n_b, nb, bad_bits);
            compact += na < nv || nb < nv;
            T(full) f;
            T(whole)(&f, &k, &z);
            /* the block holds the kept points (and the bitmaps) only */
            size_t g1 = sizeof(G1A), g2 = sizeof(G2A), words = (nv + 63) / 64;
            size_t whole = al(z.ic.count * g1) + 2 * al(nv * g1) + al(nv * g2) +
                           al(z.c.count * g1) + al(z.h.count * g1) +
                           al(z.n_coefs * sizeof(cuzk_coef));
            size_t want = whole - (al(nv * g1) - al(na * g1)) - (al(nv * g1) - al(nb * g1)) -
                          (al(nv * g2) - al(nb * g2)) + (na < nv) * al(words * 8) +
                          (nb < nv) * al(words * 8);
            CHECK(k.mem_bytes == want, "%s/%s: a block of %zu bytes, %zu expected (%zu whole)",
                  cn, circs[c], k.mem_bytes, want, whole);
            FR *plain = malloc(nv * sizeof *plain);
            memcpy(plain, w.values, nv * sizeof *plain);
            FR r, s;
            cuzk_status s1, s2;
            T(rand_fr)(&r);
            T(rand_fr)(&s);
            T(groth16_proof) p1 = T(prove)(pk, plain, &r, &s, &s1);
            T(groth16_proof) p2 = T(prove)(&f.pk, plain, &r, &s, &s2);
            CHECK(s1 == CUZK_OK && s2 == CUZK_OK && !memcmp(&p1, &p2, sizeof p1),
                  "%s/%s: the compact key proves otherwise than the whole sections", cn,
                  circs[c]);
            free(plain);
            T(full_free)(&f);
            cuzk_key_free(&k);
        }
        cuzk_wtns_close(&w);
        cuzk_zkey_close(&z);
    }
    if (!seen) {
        printf("test_density: no interop fixtures for %s, skipped\n", cn);
        CHECK(!tu_require_all(), "CUZK_REQUIRE_ALL=1: the fixture checks may not be skipped");
    } else {
        CHECK(compact > 0, "%s: no fixture key has an infinity point to leave out", cn);
    }
}

/* ---- a dev key through .zkey and back --------------------------------------- */

static void T(test_zkey_round_trip)(void) {
    cuzk_synth_params sp;
    zero_column_params(&sp, TEST_ID, 10);
    cuzk_r1cs r;
    cuzk_fr *wm;
    cuzk_error err = {0};
    if (cuzk_synth_circuit(&sp, &r, &wm, &err) != CUZK_OK) {
        CHECK(0, "synth: %s", err.msg);
        return;
    }
    uint64_t seed = tu_rand64();
    T(setup_toxic) t;
    T(dev_key) key;
    uint8_t *buf = NULL;
    size_t size = 0;
    cuzk_zkey z;
    T(setup_toxic_draw)(&t, &seed, &err);
    if (T(setup_dev)(&key, &r, &t, g_pool, &err) != CUZK_OK ||
        T(dev_key_write_mem)(&key, &buf, &size, &err) != CUZK_OK ||
        cuzk_zkey_from_mem(&z, buf, size, &err) != CUZK_OK) {
        CHECK(0, "%s: dev key to zkey: %s", PN, err.msg);
        T(dev_key_free)(&key);
        free(buf), free(wm);
        cuzk_r1cs_free(&r);
        return;
    }
    const T(groth16_pk) *pk = &key.pk;
    size_t nv = pk->n_vars;
    /* written whole: infinity exactly off the bitmaps, the points on them */
    T(full) f;
    T(full_of)(&f, pk);
    CHECK(z.a.count == nv && z.b1.count == nv && z.b2.count == nv &&
              !memcmp(z.a.data, f.a, nv * sizeof *f.a) &&
              !memcmp(z.b1.data, f.b1, nv * sizeof *f.b1) &&
              !memcmp(z.b2.data, f.b2, nv * sizeof *f.b2),
          "%s: the zkey's A, B1, B2 are not the key expanded with infinity", PN);
    size_t inf = 0;
    for (size_t s = 0; s < nv; s++)
        inf += T(inf_at)(&z.a, s) != !has(pk->a_density, s);
    CHECK(inf == 0, "%s: %zu A points infinity off the bitmap or not on it", PN, inf);
    CHECK(cuzk_zkey_check_points(&z, 1, &err) == CUZK_OK, "%s: points: %s", PN, err.msg);
    cuzk_key k;
    if (cuzk_key_from_zkey(&k, &z, &err) == CUZK_OK) {
        const T(groth16_pk) *q = &k.pk.TEST_CURVE;
        size_t words = (nv + 63) / 64;
        CHECK(q->n_a == pk->n_a && q->n_b == pk->n_b && q->a_density && q->b_density &&
                  !memcmp(q->a_density, pk->a_density, words * 8) &&
                  !memcmp(q->b_density, pk->b_density, words * 8) &&
                  !memcmp(q->a, pk->a, pk->n_a * sizeof *q->a) &&
                  !memcmp(q->b1, pk->b1, pk->n_b * sizeof *q->b1) &&
                  !memcmp(q->b2, pk->b2, pk->n_b * sizeof *q->b2),
              "%s: loaded back, the bitmaps or points differ", PN);
        FR *plain = T(plain_of)(wm, nv), rr, ss;
        cuzk_status s1, s2;
        T(rand_fr)(&rr);
        T(rand_fr)(&ss);
        T(groth16_proof) p1 = T(prove)(pk, plain, &rr, &ss, &s1);
        T(groth16_proof) p2 = T(prove)(q, plain, &rr, &ss, &s2);
        CHECK(s1 == CUZK_OK && s2 == CUZK_OK && !memcmp(&p1, &p2, sizeof p1),
              "%s: the loaded key proves otherwise than the dev key", PN);
        free(plain);

        /* a wire kept in B whose B1 point is infinity (B2 not): still kept */
        size_t s = 0;
        while (s < nv && !has(pk->b_density, s))
            s++;
        uint8_t *b1 = buf + (z.b1.data - buf) + s * z.b1.elem_bytes;
        cuzk_zkey z2;
        memset(b1, 0, z.b1.elem_bytes);
        cuzk_key k2;
        if (s < nv && cuzk_zkey_from_mem(&z2, buf, size, &err) == CUZK_OK) {
            if (cuzk_key_from_zkey(&k2, &z2, &err) == CUZK_OK) {
                const T(groth16_pk) *q2 = &k2.pk.TEST_CURVE;
                CHECK(q2->n_b == pk->n_b && has(q2->b_density, s),
                      "%s: wire %zu with B1 infinity, B2 not, left out of B", PN, s);
                cuzk_key_free(&k2);
            }
            cuzk_zkey_close(&z2);
        }
        cuzk_key_free(&k);
    } else {
        CHECK(0, "%s: load the written key: %s", PN, err.msg);
    }
    T(full_free)(&f);
    cuzk_zkey_close(&z);
    free(buf);
    T(dev_key_free)(&key);
    free(wm);
    cuzk_r1cs_free(&r);
}

/* ---- the timing key ---------------------------------------------------------- */

/* |p| lies in [mem, mem + bytes) with |n| bytes after it. */
static int T(inside)(const void *p, size_t n, const void *mem, size_t bytes) {
    const char *a = p, *m = mem;
    return !n || (a >= m && a + n <= m + bytes);
}

static void T(test_timing)(void) {
    cuzk_synth_params sp;
    cuzk_error err = {0};
    cuzk_synth_params_profile(&sp, "porep", &err);
    sp.curve = TEST_ID;
    sp.log2_domain = 12;
    sp.seed = tu_rand64();
    cuzk_r1cs r;
    cuzk_fr *wm;
    if (cuzk_synth_circuit(&sp, &r, &wm, &err) != CUZK_OK) {
        CHECK(0, "synth: %s", err.msg);
        return;
    }
    T(dev_key) key;
    cuzk_status st = T(setup_timing)(&key, &r, tu_rand64(), g_pool, &err);
    CHECK(st == CUZK_OK, "%s: timing key: %s", PN, err.msg);
    if (st == CUZK_OK) {
        const T(groth16_pk) *pk = &key.pk;
        size_t nv = pk->n_vars, n = (size_t)1 << pk->log_n, words = (nv + 63) / 64;
        size_t npub = pk->n_public, na = 0, nb = 0;
        uint8_t *ia = calloc(nv, 1), *ib = calloc(nv, 1);
        for (uint64_t k = 0; k < r.a.nnz; k++)
            ia[r.a.col[k]] = 1;
        for (uint64_t k = 0; k < r.b.nnz; k++)
            ib[r.b.col[k]] = 1;
        for (size_t i = 0; i <= npub; i++)
            ia[i] = 1;
        for (size_t i = 0; i < nv; i++)
            na += ia[i], nb += ib[i];
        CHECK(pk->a_density && pk->b_density && pk->n_a == popcount(pk->a_density, nv) &&
                  pk->n_b == popcount(pk->b_density, nv) && pk->n_a == na && pk->n_b == nb,
              "%s timing key: n_a %u, n_b %u; bitmaps %zu, %zu; r1cs columns %zu, %zu", PN,
              pk->n_a, pk->n_b, pk->a_density ? popcount(pk->a_density, nv) : 0,
              pk->b_density ? popcount(pk->b_density, nv) : 0, na, nb);
        const void *m = key.mem;
        size_t mb = key.mem_bytes;
        CHECK(m && T(inside)(pk->ic, (npub + 1) * sizeof(G1A), m, mb) &&
                  T(inside)(pk->a, pk->n_a * sizeof(G1A), m, mb) &&
                  T(inside)(pk->b1, pk->n_b * sizeof(G1A), m, mb) &&
                  T(inside)(pk->b2, pk->n_b * sizeof(G2A), m, mb) &&
                  T(inside)(pk->c, (nv - npub - 1) * sizeof(G1A), m, mb) &&
                  T(inside)(pk->h, n * sizeof(G1A), m, mb) &&
                  T(inside)(pk->coefs, pk->n_coefs * sizeof *pk->coefs, m, mb) &&
                  T(inside)(pk->a_density, words * 8, m, mb) &&
                  T(inside)(pk->b_density, words * 8, m, mb),
              "%s timing key: an array outside its one block", PN);
        FR *plain = T(plain_of)(wm, nv);
        T(groth16_proof) p;
        CHECK(T(tu_groth16_prove)(&p, pk, plain, nv, NULL, NULL, g_pool, NULL, &err) == CUZK_OK,
              "%s timing key: prove: %s", PN, err.msg);
        free(plain);
        free(ia), free(ib);
        /* the same shares at 2^27 (the profile's own curve only) */
        if (TEST_ID == CUZK_CURVE_BLS12_381) {
            double N = 134217728.0, v27 = N - sp.n_pub_out, fa = (double)na / nv,
                   fb = (double)nb / nv, g1 = sizeof(G1A), g2 = sizeof(G2A), np = npub + 1;
            double full = g1 * (N + (v27 - np) + np + 2 * v27) + g2 * v27;
            double dense = g1 * (N + (v27 - np) + np + (fa + fb) * v27) + g2 * fb * v27;
            printf("porep profile, %s: %.1f%% of the wires in A, %.1f%% in B at 2^12; a key at "
                   "2^27 would weigh about %.1f GiB compact, %.1f GiB with every wire "
                   "(extrapolated)\n",
                   PN, 100 * fa, 100 * fb, dense / 1073741824.0, full / 1073741824.0);
        }
    }
    T(dev_key_free)(&key);
    free(wm);
    cuzk_r1cs_free(&r);
}

static void T(tests)(const tu_curve *c) {
    (void)c;
    for (unsigned k = 10; k <= 14; k += 2)
        T(test_generated)(k);
    T(test_snarkjs)();
    T(test_zkey_round_trip)();
    T(test_timing)();
}

#undef T
#undef PN
#undef FR
#undef G1A
#undef G2A

#endif
