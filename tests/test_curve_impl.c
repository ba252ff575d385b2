/*
 * The per-curve tables (groth16/curve_impl.h) and the layers' tables they
 * are made of (curve_facts.h, prover/key.h, formats/json.h, setup.h).
 *
 * Walks every table: each mandatory entry is set, the sizes agree with the
 * primes the table names (and with what curve_id.c derives from them),
 * names and aliases round-trip, lookups of non-curves give NULL.  Then for
 * each curve a small circuit goes generate -> development key -> load ->
 * prove -> verify using the table's entries only, both in one call and step
 * by step (evaluate, h, MSMs), and a wrong public input must fail: a table
 * entry wired to the other curve's code, or to nothing, cannot pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/curve_facts.h"
#include "groth16/curve_impl.h"
#include "groth16/formats/json.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/zkey.h"
#include "testutil.h"

static cuzk_pool *pool;

/* Every entry that must be present whatever the build. */
static void test_entries(const cuzk_curve_impl *ci) {
    const char *nm = ci->name ? ci->name : "?";
#define MUST(f) CHECK(ci->f != NULL, "%s: entry " #f " is set", nm)
    MUST(name);
    MUST(aliases);
    MUST(r_limbs);
    MUST(q_limbs);
    MUST(fr_from_le);
    MUST(fr_to_le);
    MUST(fr_from_mont);
    MUST(fr_to_mont);
    MUST(fr_mul);
    MUST(fr_add);
    MUST(fr_sub);
    MUST(fr_set_one);
    MUST(fr_random);
    MUST(fr_root_of_unity);
    MUST(g1_on_curve);
    MUST(g1_in_subgroup);
    MUST(g2_on_curve);
    MUST(g2_in_subgroup);
    MUST(key_from_zkey);
    MUST(key_n_public);
    MUST(key_n_vars);
    MUST(key_log_n);
    MUST(key_arrays);
    MUST(b2_msm_scratch_bytes);
    MUST(b2_msm_cpu);
    MUST(compute_h);
    MUST(evaluate_scratch_bytes);
    MUST(evaluate_with_scratch);
    MUST(msms_scratch_bytes);
    MUST(msms_assemble_with_scratch);
    MUST(assemble);
    MUST(prove_scratch_bytes);
    MUST(prove);
    MUST(prove_abc_scratch_bytes);
    MUST(prove_abc);
    MUST(vk_from_key);
    MUST(vk_free);
    MUST(verify);
    MUST(proof_encode_raw);
    MUST(proof_decode_raw);
    MUST(vk_n_public);
    /* the layers' own tables, every entry set */
    CHECK(ci->setup && ci->setup->dev && ci->setup->timing_write && ci->setup->key_generate,
          "%s: the setup table is complete", nm);
    CHECK(ci->json && ci->json->vk_read && ci->json->vk_write && ci->json->proof_read &&
              ci->json->proof_write && ci->json->public_read && ci->json->public_write &&
              ci->json->vk_from_zkey,
          "%s: the JSON table is complete", nm);
    /* the sum of the layers' tables, each the one its layer looks up */
    CHECK(ci->setup == cuzk_setup_table_get(ci->id) && ci->json == cuzk_json_table_get(ci->id),
          "%s: the setup and JSON tables are their layers'", nm);
    /* first and last members of each part: both views of a part line up */
    const cuzk_curve_facts *f = cuzk_curve_facts_get(ci->id);
    const cuzk_prover_table *p = cuzk_prover_table_get(ci->id);
    CHECK(f && p && ci->facts.id == f->id && ci->name == f->name && ci->r_limbs == f->r_limbs &&
              ci->fr_mul == f->fr_mul && ci->proof_decode_raw == f->proof_decode_raw &&
              ci->fr_random == p->fr_random && ci->compute_h == p->compute_h &&
              ci->verify == p->verify && ci->prover.verify == p->verify,
          "%s: the facts and the prover's entries are their layers'", nm);
#undef MUST
}

/* |limbs| little-endian limbs as 8 * n bytes. */
static void limbs_le(uint8_t *out, const uint64_t *l, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            out[8 * i + (unsigned)j] = (uint8_t)(l[i] >> (8 * j));
}

static void test_sizes(const cuzk_curve_impl *ci) {
    uint8_t buf[64];
    const char *nm = ci->name;
    CHECK(ci->q_n_limbs >= 4 && ci->q_n_limbs <= 8 && ci->n8q == 8 * ci->q_n_limbs,
          "%s: n8q %u is the width of q (%u limbs)", nm, ci->n8q, ci->q_n_limbs);
    CHECK(ci->n8r == 32, "%s: scalars are 4 limbs (n8r %u)", nm, ci->n8r);
    CHECK(ci->g1_bytes == 2 * ci->n8q && ci->g2_bytes == 4 * ci->n8q,
          "%s: point sizes %u / %u follow n8q", nm, ci->g1_bytes, ci->g2_bytes);
    CHECK(ci->g1_jacobian_bytes == 3 * ci->n8q && ci->g2_jacobian_bytes == 6 * ci->n8q,
          "%s: Jacobian sizes %zu / %zu follow n8q", nm, ci->g1_jacobian_bytes,
          ci->g2_jacobian_bytes);
    CHECK(ci->q_n_limbs <= 8, "%s: q fits the test buffer", nm);
    limbs_le(buf, ci->q_limbs, ci->q_n_limbs);
    CHECK(cuzk_curve_from_q(buf, ci->n8q) == ci->id, "%s: its q names it", nm);
    limbs_le(buf, ci->r_limbs, 4);
    CHECK(cuzk_curve_from_r(buf, 32) == ci->id, "%s: its r names it", nm);
    CHECK(cuzk_curve_n8q(ci->id) == ci->n8q && cuzk_curve_g1_bytes(ci->id) == ci->g1_bytes &&
              cuzk_curve_g2_bytes(ci->id) == ci->g2_bytes &&
              cuzk_curve_two_adicity(ci->id) == ci->two_adicity &&
              cuzk_curve_r_limbs(ci->id) == ci->r_limbs &&
              cuzk_curve_q_limbs(ci->id) == ci->q_limbs,
          "%s: curve_id.h answers from the table", nm);
    /* r - 1 = 2^s * odd with s the two-adicity */
    uint64_t rm1[4];
    memcpy(rm1, ci->r_limbs, sizeof rm1);
    rm1[0] -= 1; /* r is odd: no borrow */
    unsigned s = 0;
    while (s < 256 && !((rm1[s / 64] >> (s % 64)) & 1))
        s++;
    CHECK(s == ci->two_adicity, "%s: two-adicity %u (r - 1 has %u factors of 2)", nm,
          ci->two_adicity, s);
    cuzk_fr w;
    CHECK(ci->fr_root_of_unity(&w, ci->two_adicity) == CUZK_OK &&
              ci->fr_root_of_unity(&w, ci->two_adicity + 1) != CUZK_OK,
          "%s: roots of unity up to 2^%u only", nm, ci->two_adicity);
    CHECK(ci->proof_raw_bytes > 0 && ci->proof_raw_bytes <= 2 * ci->g1_bytes + ci->g2_bytes,
          "%s: raw proof size %zu is at most the uncompressed points", nm, ci->proof_raw_bytes);
}

static void test_names(const cuzk_curve_impl *ci) {
    CHECK(!strcmp(cuzk_curve_snarkjs_name(ci->id), ci->name), "%s: snarkjs name round-trips",
          ci->name);
    CHECK(cuzk_curve_from_name(ci->name) == ci->id, "%s: its name selects it", ci->name);
    int n = 0;
    for (const char *const *a = ci->aliases; *a; a++, n++)
        CHECK(cuzk_curve_from_name(*a) == ci->id, "%s: alias %s selects it", ci->name, *a);
    CHECK(n >= 1, "%s: at least one alias", ci->name);
    CHECK(cuzk_curve_impl_get(ci->id) == ci, "%s: lookup by id gives this table", ci->name);
}

/* Scalar field through the table: 1 * 1 = 1, (a + b) - b = a, LE round
 * trip, r itself rejected. */
static void test_scalars(const cuzk_curve_impl *ci) {
    cuzk_fr one, a, b, t, u;
    uint8_t le[32], back[32];
    ci->fr_set_one(&one);
    ci->fr_mul(&t, &one, &one);
    CHECK(cuzk_fr_eq(&t, &one), "%s: 1 * 1 = 1", ci->name);
    tu_rand_below(a.l, ci->r_limbs, 4);
    tu_rand_below(b.l, ci->r_limbs, 4);
    ci->fr_add(&t, &a, &b);
    ci->fr_sub(&u, &t, &b);
    CHECK(cuzk_fr_eq(&u, &a), "%s: (a + b) - b = a", ci->name);
    limbs_le(le, a.l, 4);
    CHECK(ci->fr_from_le(&t, le) == CUZK_OK, "%s: a value below r is accepted", ci->name);
    ci->fr_to_le(back, &t);
    CHECK(!memcmp(le, back, 32), "%s: from_le / to_le round-trip", ci->name);
    uint64_t plain[4];
    ci->fr_from_mont(plain, &t);
    ci->fr_to_mont(&u, plain);
    CHECK(cuzk_fr_eq(&u, &t), "%s: from_mont / to_mont round-trip", ci->name);
    limbs_le(le, ci->r_limbs, 4);
    CHECK(ci->fr_from_le(&t, le) == CUZK_ERANGE, "%s: r itself is rejected", ci->name);
    CHECK(ci->fr_random(&t, NULL) == CUZK_OK && ci->fr_random(&u, NULL) == CUZK_OK &&
              !cuzk_fr_eq(&t, &u),
          "%s: two random scalars differ", ci->name);
}

/* Generate, set up, prove, verify: only table entries touch the curve. */
static void test_prove_verify(const cuzk_curve_impl *ci, unsigned log2) {
    cuzk_error err = {0};
    cuzk_synth_params sp;
    cuzk_r1cs r1cs;
    cuzk_fr *wit = NULL;
    uint8_t *zbuf = NULL;
    size_t zsize = 0;
    uint64_t seed = tu_rand64();
    cuzk_synth_params_default(&sp, ci->id);
    sp.log2_domain = log2;
    sp.seed = tu_rand64();
    if (cuzk_synth_circuit(&sp, &r1cs, &wit, &err) != CUZK_OK) {
        CHECK(0, "%s: generate 2^%u: %s", ci->name, log2, err.msg);
        return;
    }
    cuzk_zkey z;
    cuzk_key key;
    cuzk_vk vk, vkz;
    memset(&key, 0, sizeof key);
    memset(&vk, 0, sizeof vk);
    memset(&vkz, 0, sizeof vkz);
    int ok = ci->setup->dev(&r1cs, &seed, pool, NULL, &zbuf, &zsize, &err) == CUZK_OK &&
             cuzk_zkey_from_mem(&z, zbuf, zsize, &err) == CUZK_OK;
    CHECK(ok, "%s: development key for 2^%u: %s", ci->name, log2, err.msg);
    if (!ok) {
        free(zbuf), free(wit), cuzk_r1cs_free(&r1cs);
        return;
    }
    key.curve = ci->id;
    CHECK(ci->key_from_zkey(&key, &z, &err) == CUZK_OK && ci->vk_from_key(&key, &vk, &err) == CUZK_OK &&
              ci->json->vk_from_zkey(&vkz, &z, &err) == CUZK_OK,
          "%s: key and verification keys load: %s", ci->name, err.msg);
    size_t nv = ci->key_n_vars(&key), n_pub = ci->key_n_public(&key);
    size_t n = (size_t)1 << ci->key_log_n(&key);
    CHECK(nv == r1cs.n_wires && n_pub == cuzk_r1cs_n_public(&r1cs) && ci->key_log_n(&key) >= log2,
          "%s: key counts %zu vars, %zu public match the r1cs", ci->name, nv, n_pub);
    cuzk_key_arrays arr;
    ci->key_arrays(&key, &arr);
    CHECK(arr.n_vars == nv && arr.n_public == n_pub && arr.a && arr.b2 && arr.h && arr.coefs,
          "%s: key arrays are the key's", ci->name);
    CHECK(vk.curve == ci->id && vkz.curve == ci->id, "%s: verification keys carry the curve",
          ci->name);
    /* The prover takes plain values. */
    cuzk_fr *plain = malloc(nv * sizeof *plain), *abc = malloc(3 * n * sizeof *abc);
    void *scratch = NULL;
    if (!plain || !abc) {
        CHECK(0, "no memory");
        goto out;
    }
    for (size_t i = 0; i < nv; i++) {
        uint8_t le[32];
        ci->fr_to_le(le, &wit[i]);
        memcpy(plain[i].l, le, 32);
    }
    cuzk_proof p1, p2;
    memset(&p1, 0, sizeof p1);
    memset(&p2, 0, sizeof p2);
    /* Scratch is the caller's: none, or one byte short, is refused. */
    unsigned threads = cuzk_pool_threads(pool);
    size_t pb = ci->prove_scratch_bytes(&key, threads), eb = ci->evaluate_scratch_bytes(&key),
           mb = ci->msms_scratch_bytes(&key, threads);
    scratch = malloc(pb);
    CHECK(pb > eb && pb > mb && eb > 0 && mb > 0, "%s: scratch sizes %zu, %zu, %zu", ci->name, pb,
          eb, mb);
    CHECK(ci->prove(&key, plain, nv, NULL, pb, &p1, pool, NULL, &err) == CUZK_EINVAL &&
              strstr(err.msg, "no scratch"),
          "%s: prove without scratch: %s", ci->name, err.msg);
    CHECK(ci->prove(&key, plain, nv, scratch, pb - 1, &p1, pool, NULL, &err) == CUZK_EINVAL &&
              strstr(err.msg, "needed"),
          "%s: prove in short scratch: %s", ci->name, err.msg);
    CHECK(ci->evaluate_with_scratch(&key, plain, abc, abc + n, abc + 2 * n, NULL, eb, pool,
                                    &err) == CUZK_EINVAL &&
              ci->evaluate_with_scratch(&key, plain, abc, abc + n, abc + 2 * n, scratch, eb - 1,
                                        pool, &err) == CUZK_EINVAL,
          "%s: evaluate without enough scratch: %s", ci->name, err.msg);
    CHECK(ci->prove(&key, plain, nv, scratch, pb, &p1, pool, NULL, &err) == CUZK_OK &&
              p1.curve == ci->id,
          "%s: prove: %s", ci->name, err.msg);
    CHECK(ci->verify(&vk, wit + 1, n_pub, &p1, &err) == CUZK_OK, "%s: the proof verifies: %s",
          ci->name, err.msg);
    CHECK(ci->verify(&vkz, wit + 1, n_pub, &p1, &err) == CUZK_OK,
          "%s: the proof verifies with the zkey's vk: %s", ci->name, err.msg);
    /* Step by step, with fresh blinding from the table. */
    cuzk_fr r, s;
    cuzk_groth16_timing t;
    CHECK(ci->fr_random(&r, &err) == CUZK_OK && ci->fr_random(&s, &err) == CUZK_OK &&
              ci->evaluate_with_scratch(&key, plain, abc, abc + n, abc + 2 * n, scratch, eb, pool,
                                        &err) == CUZK_OK &&
              ci->compute_h(&key, abc, abc + n, abc + 2 * n, pool, &err) == CUZK_OK &&
              ci->msms_assemble_with_scratch(&p2, &key, plain, abc, &r, &s, NULL, mb, pool, &t,
                                             &err) == CUZK_EINVAL &&
              ci->msms_assemble_with_scratch(&p2, &key, plain, abc, &r, &s, scratch, mb, pool, &t,
                                             &err) == CUZK_OK,
          "%s: prove by steps: %s", ci->name, err.msg);
    CHECK(p2.curve == ci->id && ci->verify(&vk, wit + 1, n_pub, &p2, &err) == CUZK_OK,
          "%s: the step-by-step proof verifies: %s", ci->name, err.msg);
    /* A wrong public input fails. */
    if (n_pub > 0) {
        cuzk_fr *bad = malloc(n_pub * sizeof *bad);
        memcpy(bad, wit + 1, n_pub * sizeof *bad);
        cuzk_fr one;
        ci->fr_set_one(&one);
        ci->fr_add(&bad[0], &bad[0], &one);
        CHECK(ci->verify(&vk, bad, n_pub, &p1, &err) == CUZK_EVERIFY,
              "%s: a changed public input fails", ci->name);
        free(bad);
    }
    /* Raw encoding writes exactly its size. */
    uint8_t raw[512];
    memset(raw, 0, sizeof raw);
    CHECK(ci->proof_raw_bytes <= sizeof raw &&
              ci->proof_encode_raw(raw, &p1) == ci->proof_raw_bytes,
          "%s: raw proof is %zu bytes", ci->name, ci->proof_raw_bytes);
    /* ... and decoding it gives the same proof back: it verifies and
     * encodes to the same bytes.  A damaged point A is refused. */
    cuzk_proof un;
    uint8_t again[512];
    memset(again, 0, sizeof again);
    CHECK(ci->proof_decode_raw(&un, raw, &err) == CUZK_OK && un.curve == ci->id &&
              ci->verify(&vk, wit + 1, n_pub, &un, &err) == CUZK_OK &&
              ci->proof_encode_raw(again, &un) == ci->proof_raw_bytes &&
              !memcmp(again, raw, ci->proof_raw_bytes),
          "%s: raw proof decodes to the proof it encodes: %s", ci->name, err.msg);
    uint8_t bad_raw[512];
    memcpy(bad_raw, raw, sizeof bad_raw);
    bad_raw[ci->g1_bytes / 2 - 1] ^= 0x5a;
    cuzk_error derr = {0};
    CHECK(ci->proof_decode_raw(&un, bad_raw, &derr) != CUZK_OK && strstr(derr.msg, "point A"),
          "%s: a damaged point A is refused, named: %s", ci->name, derr.msg);
    CHECK(ci->vk_n_public(&vk) == n_pub && ci->vk_n_public(&vkz) == n_pub,
          "%s: the verification keys have %zu public signals", ci->name, n_pub);
    /* JSON through the table: proof.json written and read back. */
    char *text = NULL;
    cuzk_proof back;
    CHECK(cuzk_proof_write_json(&p1, &text, &err) == CUZK_OK &&
              cuzk_proof_read_json(&back, CUZK_CURVE_NONE, text, strlen(text), &err) ==
                  CUZK_OK &&
              back.curve == ci->id && ci->verify(&vk, wit + 1, n_pub, &back, &err) == CUZK_OK,
          "%s: proof.json round-trips and still verifies: %s", ci->name, err.msg);
    free(text);
    /* A timing key of the same shape has the same counts. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/cuzk_test_curve_impl_%d.zkey", (int)getpid());
    cuzk_key tk;
    memset(&tk, 0, sizeof tk);
    CHECK(ci->setup->timing_write(&r1cs, 7, pool, path, &err) == CUZK_OK &&
              cuzk_key_load(&tk, path, &err) == CUZK_OK && tk.curve == ci->id &&
              cuzk_key_n_vars(&tk) == nv,
          "%s: timing key written and loaded: %s", ci->name, err.msg);
    cuzk_key_free(&tk);
    unlink(path);
out:
    free(plain);
    free(abc);
    free(scratch);
    ci->vk_free(&vk);
    ci->vk_free(&vkz);
    cuzk_key_free(&key);
    cuzk_zkey_close(&z);
    free(zbuf);
    free(wit);
    cuzk_r1cs_free(&r1cs);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "curve_impl");
    pool = cuzk_pool_create(2, NULL); /* NULL: the steps run serially */
    size_t n = 0;
    const cuzk_curve_impl *const *all = cuzk_curve_impl_all(&n);
    size_t n_facts = 0;
    const cuzk_curve_facts *const *facts = cuzk_curve_facts_all(&n_facts);
    CHECK(n >= 2, "at least the two curves are listed (%zu)", n);
    CHECK(n == n_facts, "every curve with facts has a table (%zu of %zu)", n, n_facts);
    for (size_t i = 0; i < n && i < n_facts; i++)
        CHECK(all[i]->id == facts[i]->id, "table %zu is in the facts' order", i);
    CHECK(cuzk_curve_impl_get(CUZK_CURVE_NONE) == NULL, "no table for CUZK_CURVE_NONE");
    CHECK(cuzk_curve_impl_get((cuzk_curve)99) == NULL && cuzk_curve_impl_get((cuzk_curve)-1) == NULL,
          "no table for values that are not curves");
    CHECK(cuzk_curve_from_name("nocurve") == CUZK_CURVE_NONE &&
              !strcmp(cuzk_curve_snarkjs_name(CUZK_CURVE_NONE), "none"),
          "unknown names give no curve");
    for (size_t i = 0; i < n; i++) {
        CHECK(all[i] != NULL && all[i]->id != CUZK_CURVE_NONE, "table %zu is a curve", i);
        if (!all[i])
            continue;
        for (size_t j = 0; j < i; j++)
            CHECK(all[j]->id != all[i]->id && strcmp(all[j]->name, all[i]->name),
                  "tables %zu and %zu are different curves", j, i);
        test_entries(all[i]);
        test_sizes(all[i]);
        test_names(all[i]);
        test_scalars(all[i]);
        test_prove_verify(all[i], 6);
    }
    cuzk_pool_destroy(pool);
    return tu_finish();
}
