/*
 * One curve's snarkjs JSON readers and writers, stamped out by json.c with
 * P defined as the curve prefix (bn254 or bls12_381).  Only names change
 * between the two instances; the algorithm is written once here.
 *
 * Helpers expected from json.c: fail_at (error with file and field path),
 * json_path (formats a field path), dec_string (JSON value -> decimal
 * string or NULL), J(alphabeta) (the pairing, or 0 when not usable), and
 * <jansson.h>.
 */
#include "util/paste.h"
#define T(x) CUZK_PASTE(P, x)         /* T(fp) -> bn254_fp */
#define J(x) CUZK_PASTE(P, CUZK_PASTE(json, x)) /* J(g1_read) -> bn254_json_g1_read */

/* ---- scalars and coordinates ----------------------------------------------- */

static cuzk_status J(fp_read)(T(fp) *r, json_t *v, const char *src,
                              const char *path, cuzk_error *err) {
    cuzk_error sub;
    char nb[32];
    const char *s = dec_string(v, nb, sizeof nb);
    if (s == NULL)
        return fail_at(err, CUZK_EFORMAT, src, path, "must be a decimal string");
    cuzk_status st = T(fp_from_dec)(r, s, &sub);
    if (st != CUZK_OK)
        return fail_at(err, st, src, path,
                       st == CUZK_ERANGE ? "is not below the field modulus p" : sub.msg);
    return CUZK_OK;
}

static cuzk_status J(fp2_read)(T(fp2) *r, json_t *v, const char *src,
                               const char *path, cuzk_error *err) {
    char sub[96];
    if (!json_is_array(v) || json_array_size(v) != 2)
        return fail_at(err, CUZK_EFORMAT, src, path, "must be an array of 2 decimal strings");
    cuzk_status st = J(fp_read)(&r->c0, json_array_get(v, 0), src,
                                json_path(sub, sizeof sub, path, 0), err);
    if (st == CUZK_OK)
        st = J(fp_read)(&r->c1, json_array_get(v, 1), src,
                        json_path(sub, sizeof sub, path, 1), err);
    return st;
}

static json_t *J(fp_json)(const T(fp) *a) {
    char buf[160];
    T(fp_to_dec)(buf, sizeof buf, a);
    return json_string(buf);
}

static json_t *J(fp2_json)(const T(fp2) *a) {
    json_t *arr = json_array();
    json_array_append_new(arr, J(fp_json)(&a->c0));
    json_array_append_new(arr, J(fp_json)(&a->c1));
    return arr;
}

/* ---- points (Jacobian on input, affine z = 1 on output) -------------------- */

/* Number of coordinates of a point array: 3 (Jacobian) or 2 (affine). */
static size_t J(point_arity)(json_t *v) {
    size_t n = json_is_array(v) ? json_array_size(v) : 0;
    return (n == 2 || n == 3) ? n : 0;
}

static cuzk_status J(g1_finish)(T(g1_affine) *r, T(fp) c[3], int subgroup,
                                const char *src, const char *path, cuzk_error *err) {
    if (T(fp_is_zero)(&c[2])) {
        T(g1_affine_set_inf)(r);
        return CUZK_OK;
    }
    if (!T(fp_is_one)(&c[2])) {
        T(fp) zi, zi2;
        T(fp_inv_var)(&zi, &c[2]);
        T(fp_sqr)(&zi2, &zi);
        T(fp_mul)(&c[0], &c[0], &zi2);
        T(fp_mul)(&c[1], &c[1], &zi2);
        T(fp_mul)(&c[1], &c[1], &zi);
    }
    r->x = c[0];
    r->y = c[1];
    if (!T(g1_affine_on_curve)(r))
        return fail_at(err, CUZK_ENOTONCURVE, src, path, "is not on the curve");
    if (subgroup && !T(g1_affine_in_subgroup)(r))
        return fail_at(err, CUZK_ENOTINSUBGROUP, src, path, "is not in the subgroup");
    return CUZK_OK;
}

static cuzk_status J(g1_read)(T(g1_affine) *r, json_t *v, int subgroup,
                              const char *src, const char *path, cuzk_error *err) {
    char sub[96];
    T(fp) c[3];
    size_t n = J(point_arity)(v);
    if (n == 0)
        return fail_at(err, CUZK_EFORMAT, src, path,
                       "must be a G1 point: an array of 3 decimal strings");
    T(fp_set_one)(&c[2]);
    for (size_t i = 0; i < n; i++) {
        cuzk_status st = J(fp_read)(&c[i], json_array_get(v, i), src,
                                    json_path(sub, sizeof sub, path, (int)i), err);
        if (st != CUZK_OK)
            return st;
    }
    return J(g1_finish)(r, c, subgroup, src, path, err);
}

static cuzk_status J(g2_finish)(T(g2_affine) *r, T(fp2) c[3], int subgroup,
                                const char *src, const char *path, cuzk_error *err) {
    if (T(fp2_is_zero)(&c[2])) {
        T(g2_affine_set_inf)(r);
        return CUZK_OK;
    }
    if (!T(fp2_is_one)(&c[2])) {
        T(fp2) zi, zi2;
        T(fp2_inv_var)(&zi, &c[2]);
        T(fp2_sqr)(&zi2, &zi);
        T(fp2_mul)(&c[0], &c[0], &zi2);
        T(fp2_mul)(&c[1], &c[1], &zi2);
        T(fp2_mul)(&c[1], &c[1], &zi);
    }
    r->x = c[0];
    r->y = c[1];
    if (!T(g2_affine_on_curve)(r))
        return fail_at(err, CUZK_ENOTONCURVE, src, path, "is not on the curve");
    if (subgroup && !T(g2_affine_in_subgroup)(r))
        return fail_at(err, CUZK_ENOTINSUBGROUP, src, path, "is not in the subgroup");
    return CUZK_OK;
}

static cuzk_status J(g2_read)(T(g2_affine) *r, json_t *v, int subgroup,
                              const char *src, const char *path, cuzk_error *err) {
    char sub[96];
    T(fp2) c[3];
    size_t n = J(point_arity)(v);
    if (n == 0)
        return fail_at(err, CUZK_EFORMAT, src, path,
                       "must be a G2 point: an array of 3 pairs of decimal strings");
    T(fp2_set_one)(&c[2]);
    for (size_t i = 0; i < n; i++) {
        cuzk_status st = J(fp2_read)(&c[i], json_array_get(v, i), src,
                                     json_path(sub, sizeof sub, path, (int)i), err);
        if (st != CUZK_OK)
            return st;
    }
    return J(g2_finish)(r, c, subgroup, src, path, err);
}

/* snarkjs prints infinity as the Jacobian zero (0, 1, 0). */
static json_t *J(g1_json)(const T(g1_affine) *a) {
    T(fp) x = a->x, y = a->y, z;
    json_t *arr = json_array();
    T(fp_set_one)(&z);
    if (T(g1_affine_is_inf)(a)) {
        T(fp_set_zero)(&x);
        T(fp_set_one)(&y);
        T(fp_set_zero)(&z);
    }
    json_array_append_new(arr, J(fp_json)(&x));
    json_array_append_new(arr, J(fp_json)(&y));
    json_array_append_new(arr, J(fp_json)(&z));
    return arr;
}

static json_t *J(g2_json)(const T(g2_affine) *a) {
    T(fp2) x = a->x, y = a->y, z;
    json_t *arr = json_array();
    T(fp2_set_one)(&z);
    if (T(g2_affine_is_inf)(a)) {
        T(fp2_set_zero)(&x);
        T(fp2_set_one)(&y);
        T(fp2_set_zero)(&z);
    }
    json_array_append_new(arr, J(fp2_json)(&x));
    json_array_append_new(arr, J(fp2_json)(&y));
    json_array_append_new(arr, J(fp2_json)(&z));
    return arr;
}

/* ---- verification_key.json ------------------------------------------------- */

static cuzk_status J(vk_points)(T(groth16_vk) *vk, json_t *root, const char *src,
                                cuzk_error *err) {
    char path[32];
    cuzk_status st = J(g1_read)(&vk->alpha1, json_object_get(root, "vk_alpha_1"), 1, src,
                                "vk_alpha_1", err);
    if (st == CUZK_OK)
        st = J(g2_read)(&vk->beta2, json_object_get(root, "vk_beta_2"), 1, src, "vk_beta_2", err);
    if (st == CUZK_OK)
        st = J(g2_read)(&vk->gamma2, json_object_get(root, "vk_gamma_2"), 1, src,
                        "vk_gamma_2", err);
    if (st == CUZK_OK)
        st = J(g2_read)(&vk->delta2, json_object_get(root, "vk_delta_2"), 1, src,
                        "vk_delta_2", err);
    json_t *ic = json_object_get(root, "IC");
    for (size_t i = 0; st == CUZK_OK && i <= vk->n_public; i++)
        st = J(g1_read)(&vk->ic[i], json_array_get(ic, i), 1, src,
                        json_path(path, sizeof path, "IC", (int)i), err);
    return st;
}

static cuzk_status J(vk_read)(T(groth16_vk) *vk, json_t *root, const char *src,
                              cuzk_error *err) {
    json_t *np = json_object_get(root, "nPublic");
    json_t *ic = json_object_get(root, "IC");
    memset(vk, 0, sizeof *vk);
    if (!json_is_integer(np) || json_integer_value(np) < 0 ||
        json_integer_value(np) >= (json_int_t)UINT32_MAX)
        return fail_at(err, CUZK_EFORMAT, src, "nPublic", "must be a non-negative integer");
    vk->n_public = (size_t)json_integer_value(np);
    if (!json_is_array(ic) || json_array_size(ic) != vk->n_public + 1)
        return fail_at(err, CUZK_EFORMAT, src, "IC", "must be an array of nPublic + 1 points");
    vk->ic = malloc((vk->n_public + 1) * sizeof *vk->ic);
    if (vk->ic == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "%s: no memory for IC", src);
    cuzk_status st = J(vk_points)(vk, root, src, err);
    if (st != CUZK_OK) {
        free(vk->ic);
        memset(vk, 0, sizeof *vk);
    }
    return st;
}

/* The verification key of an open .zkey: its header points and IC (copied,
 * each checked on the curve); on failure nothing is left owned. */
static cuzk_status J(vk_from_zkey)(T(groth16_vk) *vk, const cuzk_zkey *z, cuzk_error *err) {
    vk->alpha1 = z->vk.P.alpha1;
    vk->beta2 = z->vk.P.beta2;
    vk->gamma2 = z->vk.P.gamma2;
    vk->delta2 = z->vk.P.delta2;
    vk->n_public = z->n_public;
    vk->ic = malloc(((size_t)z->n_public + 1) * sizeof *vk->ic);
    if (vk->ic == NULL)
        return cuzk_fail(err, CUZK_ENOMEM, "no memory for IC");
    cuzk_status st = cuzk_zkey_points_copy(&z->ic, 0, z->n_public + 1ull, vk->ic, err);
    for (size_t i = 0; st == CUZK_OK && i <= vk->n_public; i++)
        if (!T(g1_affine_on_curve)(&vk->ic[i]))
            st = cuzk_fail(err, CUZK_ENOTONCURVE,
                           "zkey: section 3 (IC) point %zu is not on the curve", i);
    if (st != CUZK_OK) {
        free(vk->ic);
        vk->ic = NULL;
    }
    return st;
}

/* e(alpha, beta) as snarkjs's 2 x 3 x 2 nesting: [c0, c1] of Fp6, each
 * [c0, c1, c2] of Fp2.  NULL if the pairing does not give snarkjs's value
 * (see ALPHABETA_OK in json.c). */
static json_t *J(alphabeta_json)(const T(groth16_vk) *vk) {
    T(fp12) e;
    if (!J(alphabeta)(&e, &vk->alpha1, &vk->beta2))
        return NULL;
    const T(fp6) *half[2] = {&e.c0, &e.c1};
    json_t *arr = json_array();
    for (int i = 0; i < 2; i++) {
        json_t *f6 = json_array();
        json_array_append_new(f6, J(fp2_json)(&half[i]->c0));
        json_array_append_new(f6, J(fp2_json)(&half[i]->c1));
        json_array_append_new(f6, J(fp2_json)(&half[i]->c2));
        json_array_append_new(arr, f6);
    }
    return arr;
}

static json_t *J(vk_json)(const T(groth16_vk) *vk, const char *curve_name) {
    json_t *root = json_object(), *ic = json_array(), *ab;
    json_object_set_new(root, "protocol", json_string("groth16"));
    json_object_set_new(root, "curve", json_string(curve_name));
    json_object_set_new(root, "nPublic", json_integer((json_int_t)vk->n_public));
    json_object_set_new(root, "vk_alpha_1", J(g1_json)(&vk->alpha1));
    json_object_set_new(root, "vk_beta_2", J(g2_json)(&vk->beta2));
    json_object_set_new(root, "vk_gamma_2", J(g2_json)(&vk->gamma2));
    json_object_set_new(root, "vk_delta_2", J(g2_json)(&vk->delta2));
    if ((ab = J(alphabeta_json)(vk)) != NULL)
        json_object_set_new(root, "vk_alphabeta_12", ab);
    for (size_t i = 0; i <= vk->n_public; i++)
        json_array_append_new(ic, J(g1_json)(&vk->ic[i]));
    json_object_set_new(root, "IC", ic);
    return root;
}

/* ---- proof.json ------------------------------------------------------------ */

static cuzk_status J(proof_read)(T(groth16_proof) *p, json_t *root, const char *src,
                                 cuzk_error *err) {
    cuzk_status st = J(g1_read)(&p->a, json_object_get(root, "pi_a"), 0, src, "pi_a", err);
    if (st == CUZK_OK)
        st = J(g2_read)(&p->b, json_object_get(root, "pi_b"), 0, src, "pi_b", err);
    if (st == CUZK_OK)
        st = J(g1_read)(&p->c, json_object_get(root, "pi_c"), 0, src, "pi_c", err);
    return st;
}

static json_t *J(proof_json)(const T(groth16_proof) *p, const char *curve_name) {
    json_t *root = json_object();
    json_object_set_new(root, "pi_a", J(g1_json)(&p->a));
    json_object_set_new(root, "pi_b", J(g2_json)(&p->b));
    json_object_set_new(root, "pi_c", J(g1_json)(&p->c));
    json_object_set_new(root, "protocol", json_string("groth16"));
    json_object_set_new(root, "curve", json_string(curve_name));
    return root;
}

/* ---- public.json ----------------------------------------------------------- */

static cuzk_status J(public_read)(T(fr) *out, json_t *arr, const char *src,
                                  cuzk_error *err) {
    char path[32];
    cuzk_error sub;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        char nb[32];
        const char *s = dec_string(json_array_get(arr, i), nb, sizeof nb);
        json_path(path, sizeof path, "", (int)i);
        if (s == NULL)
            return fail_at(err, CUZK_EFORMAT, src, path, "must be a decimal string");
        cuzk_status st = T(fr_from_dec)(&out[i], s, &sub);
        if (st != CUZK_OK)
            return fail_at(err, st, src, path,
                           st == CUZK_ERANGE ? "is not below the scalar field order r" : sub.msg);
    }
    return CUZK_OK;
}

static json_t *J(public_json)(const T(fr) *pub, size_t n) {
    char buf[96];
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        T(fr_to_dec)(buf, sizeof buf, &pub[i]);
        json_array_append_new(arr, json_string(buf));
    }
    return arr;
}

#undef T
#undef J
