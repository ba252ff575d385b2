/*
 * Synthetic circuit generator (see synth.h for the shape).
 *
 * One generator core (synth_next) produces constraint after constraint and
 * fills the witness as it goes; two sinks consume it: an in-memory CSR
 * builder (cuzk_synth_circuit) and a streaming .r1cs writer
 * (cuzk_synth_write), so both produce the same system by construction and
 * the streaming path never holds more than the witness.  Randomness is
 * xoshiro256** seeded through splitmix64, fixed here rather than borrowed
 * from the tests, because the output of a seed must never change.
 *
 * Must not: print, use global state, or depend on the host beyond
 * little-endian byte order (which cuzk assumes everywhere).
 */
#include "groth16/devtools/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/curve_facts.h"
#include "groth16/formats/wtns.h"
#include "util/outfile.h"
#include "util/splitmix.h"

/* ---- deterministic randomness -------------------------------------------- */

typedef struct synth_rng {
    uint64_t s[4];
} synth_rng;

static void rng_seed(synth_rng *r, uint64_t seed) {
    for (int i = 0; i < 4; i++)
        r->s[i] = cuzk_splitmix64(&seed);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(synth_rng *r) { /* xoshiro256** */
    uint64_t *s = r->s;
    uint64_t out = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return out;
}

/* Uniform-enough value in [0, n): the high half of a 64x64 product (bias
 * below 2^-32 for every n we use, and deterministic, which is what counts). */
static uint32_t rng_below(synth_rng *r, uint32_t n) {
    return (uint32_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* ---- scalar helpers (curve chosen at run time) ---------------------------- */

static void fr_from_u64(cuzk_curve c, cuzk_fr *out, uint64_t v) {
    uint8_t b[32] = {0};
    cuzk_wr_u64(b, v);
    cuzk_fr_from_le(c, out, b, NULL); /* v < 2^64 < r: cannot fail */
}

/* Uniform non-zero element of Fr by rejection (r > 2^253 on both curves,
 * so more than half of the masked draws are accepted). */
static void fr_random_nonzero(cuzk_curve c, synth_rng *r, cuzk_fr *out) {
    const uint64_t *mod = cuzk_curve_r_limbs(c);
    uint64_t mask = ~0ULL >> __builtin_clzll(mod[3]);
    for (;;) {
        uint8_t b[32];
        uint64_t l[4];
        for (int i = 0; i < 4; i++)
            l[i] = rng_next(r);
        l[3] &= mask;
        for (int i = 0; i < 4; i++)
            cuzk_wr_u64(b + 8 * i, l[i]);
        if ((l[0] | l[1] | l[2] | l[3]) == 0)
            continue;
        if (cuzk_fr_from_le(c, out, b, NULL) == CUZK_OK)
            return;
    }
}

/* ---- the generator core -------------------------------------------------- */

typedef struct synth_lc {
    uint32_t n;
    uint32_t wire[CUZK_SYNTH_MAX_TERMS];
    cuzk_fr coef[CUZK_SYNTH_MAX_TERMS];
} synth_lc;

/* 2^53: a share of 1 as a cut for 53-bit draws. */
#define SYNTH_ALL 9007199254740992ULL

typedef struct synth {
    cuzk_curve curve;
    uint32_t n_constraints, n_pub_out, n_pub, n_internal, n_wires;
    unsigned min_terms, max_terms;
    uint64_t bool_cut; /* a 53-bit draw below this makes a boolean wire */
    uint64_t gate_cut; /* ... and then one below this a gate (0: never) */
    uint64_t elig_cut[2], elig_key[2]; /* who may be read in A (0), B (1) */
    uint32_t next;     /* index of the next constraint */
    synth_rng rng;
    cuzk_fr one, minus_one;
    cuzk_fr *w; /* n_wires values, filled in wire order */
} synth;

uint32_t cuzk_synth_n_constraints(const cuzk_synth_params *p, cuzk_error *err) {
    uint64_t n_pub = (uint64_t)p->n_pub_out + p->n_pub_in, n;
    if (cuzk_curve_facts_get(p->curve) == NULL)
        return cuzk_fail(err, CUZK_EINVAL, "synth: unknown curve"), 0;
    if (!(p->bool_share >= 0.0 && p->bool_share <= 1.0))
        return cuzk_fail(err, CUZK_EINVAL, "synth: bool_share %g is not in [0, 1]",
                         p->bool_share), 0;
    if (!(p->a_share >= 0.0 && p->a_share <= 1.0) || !(p->b_share >= 0.0 && p->b_share <= 1.0) ||
        !(p->gate_share >= 0.0 && p->gate_share <= 1.0))
        return cuzk_fail(err, CUZK_EINVAL,
                         "synth: a_share %g, b_share %g and gate_share %g must be in [0, 1]",
                         p->a_share, p->b_share, p->gate_share), 0;
    if (p->min_terms < 1 || p->min_terms > p->max_terms ||
        p->max_terms > CUZK_SYNTH_MAX_TERMS)
        return cuzk_fail(err, CUZK_EINVAL, "synth: terms per combination %u..%u not within 1..%d",
                         p->min_terms, p->max_terms, CUZK_SYNTH_MAX_TERMS), 0;
    if (n_pub > (1u << 30))
        return cuzk_fail(err, CUZK_EINVAL, "synth: too many public signals"), 0;
    if (p->log2_domain != 0) {
        if (p->log2_domain > 31)
            return cuzk_fail(err, CUZK_EINVAL, "synth: domain 2^%u is too large",
                             p->log2_domain), 0;
        uint64_t d = 1ULL << p->log2_domain;
        n = d > n_pub + 1 ? d - n_pub - 1 : 0;
    } else {
        n = p->n_constraints;
    }
    /* Every output needs its own earlier internal wire to bind to. */
    uint64_t need = p->n_pub_out ? 2ULL * p->n_pub_out : 1;
    if (n < need)
        return cuzk_fail(err, CUZK_EINVAL, "synth: %llu constraints are too few for %u outputs",
                         (unsigned long long)n, p->n_pub_out), 0;
    if (1 + n_pub + n > (1ULL << 31))
        return cuzk_fail(err, CUZK_EINVAL, "synth: %llu constraints exceed 2^31 wires",
                         (unsigned long long)n), 0;
    return (uint32_t)n;
}

void cuzk_synth_params_default(cuzk_synth_params *p, cuzk_curve curve) {
    memset(p, 0, sizeof *p);
    p->curve = curve;
    p->log2_domain = 10;
    p->n_pub_out = 1;
    p->n_pub_in = 1;
    p->bool_share = 0.8;
    p->min_terms = 2;
    p->max_terms = 3;
    p->seed = 1;
    p->a_share = 1.0;
    p->b_share = 1.0;
    p->gate_share = 0.0;
}

/*
 * Filecoin-shaped profiles (docs/FILES.md says where each number comes
 * from).  PoRep (32 GiB sector): a partition proves 18 challenges, each
 * checking a node's labelling (SHA-256 over its parents, in bit-level
 * circuits: every wire a bit) and Merkle inclusions hashed with Poseidon
 * (full field elements); the SHA-256 part dominates the ~130 million
 * constraints, hence a 0.9 share of 0/1 wires (an estimate from the
 * circuit's structure, not a measured witness); SHA-256's constraints are
 * short (XOR/AND of bits: 2-3 terms), Poseidon's are longer (rounds sum a
 * state of width 9-12: up to 8 terms here).  Public inputs: replica id,
 * comm_d, comm_r and the 18 challenges' packed indices and paths, about 90
 * (an estimate).  SnapDeals (empty-sector update): 16 partitions of the
 * same domain, more Poseidon and fewer bits (0.6, an estimate).
 * Zero columns: SHA-256's bits are mostly outputs of XOR/AND gates (they
 * appear in C) read later in A, in B or not at all, so 80% of the 0/1
 * wires are gates and 60% of the wires may be read in A (resp. B).  Those
 * two numbers are fitted, not counted: with them a PoRep key at 2^27 has
 * about 48% of its wires in A and in B and weighs about 47 GiB, the size
 * of the published parameter file.  Snap uses the same two, for want of a
 * figure of its own.
 */
cuzk_status cuzk_synth_params_profile(cuzk_synth_params *p, const char *name, cuzk_error *err) {
    if (!strcmp(name, "default")) {
        cuzk_synth_params_default(p, p->curve ? p->curve : CUZK_CURVE_BN254);
        return CUZK_OK;
    }
    int porep = !strcmp(name, "porep"), snap = !strcmp(name, "snap");
    if (!porep && !snap)
        return cuzk_fail(err, CUZK_EINVAL, "unknown generator profile '%s' (default, porep, snap)",
                         name);
    cuzk_synth_params_default(p, CUZK_CURVE_BLS12_381);
    p->log2_domain = 27;
    p->bool_share = porep ? 0.9 : 0.6;
    p->min_terms = 2;
    p->max_terms = porep ? 3 : 8;
    p->n_pub_out = 1;
    p->n_pub_in = porep ? 89 : 15;
    p->gate_share = 0.8;
    p->a_share = 0.6;
    p->b_share = 0.6;
    return CUZK_OK;
}

static cuzk_status synth_init(synth *s, const cuzk_synth_params *p, cuzk_error *err) {
    cuzk_error e;
    memset(s, 0, sizeof *s);
    s->n_constraints = cuzk_synth_n_constraints(p, &e);
    if (s->n_constraints == 0)
        return cuzk_fail(err, e.status, "%s", e.msg);
    s->curve = p->curve;
    s->n_pub_out = p->n_pub_out;
    s->n_pub = p->n_pub_out + p->n_pub_in;
    s->n_internal = s->n_constraints - p->n_pub_out;
    s->n_wires = 1 + s->n_pub + s->n_internal;
    s->min_terms = p->min_terms;
    s->max_terms = p->max_terms;
    s->bool_cut = (uint64_t)(p->bool_share * 9007199254740992.0); /* 2^53 */
    s->gate_cut = (uint64_t)(p->gate_share * 9007199254740992.0);
    s->elig_cut[0] = (uint64_t)(p->a_share * 9007199254740992.0);
    s->elig_cut[1] = (uint64_t)(p->b_share * 9007199254740992.0);
    /* eligibility has its own keys, not draws of the stream: at shares of
     * 1 the stream, and so the circuit, is what it was without them */
    uint64_t k = p->seed ^ 0x656c696769626c65ULL; /* "eligible" */
    s->elig_key[0] = cuzk_splitmix64(&k);
    s->elig_key[1] = cuzk_splitmix64(&k);
    rng_seed(&s->rng, p->seed);
    s->w = malloc((size_t)s->n_wires * sizeof *s->w);
    if (!s->w)
        return cuzk_fail(err, CUZK_ENOMEM, "synth: no memory for %u witness values", s->n_wires);
    cuzk_fr zero;
    memset(&zero, 0, sizeof zero);
    cuzk_fr_set_one(s->curve, &s->one);
    cuzk_fr_sub(s->curve, &s->minus_one, &zero, &s->one);
    s->w[0] = s->one;
    /* Public inputs are random; outputs are filled by the final bindings. */
    for (uint32_t i = 1 + s->n_pub_out; i <= s->n_pub; i++)
        fr_random_nonzero(s->curve, &s->rng, &s->w[i]);
    return CUZK_OK;
}

/* A coefficient: +1 (1/4), a small +-1..65536 (1/4), full-size (1/2). */
static void synth_coef(synth *s, cuzk_fr *out) {
    uint64_t r = rng_next(&s->rng);
    switch (r & 3) {
    case 0:
        *out = s->one;
        break;
    case 1: {
        cuzk_fr zero;
        fr_from_u64(s->curve, out, 1 + ((r >> 2) & 0xffff));
        if (r >> 63) {
            memset(&zero, 0, sizeof zero);
            cuzk_fr_sub(s->curve, out, &zero, out);
        }
        break;
    }
    default:
        fr_random_nonzero(s->curve, &s->rng, out);
    }
}

/* Wire ids below |z| the generator may read: the constant, the public
 * inputs and earlier internal wires, never the outputs (their values are
 * only known at the end). */
static uint32_t synth_pick(synth *s, uint32_t z) {
    uint32_t x = rng_below(&s->rng, z - s->n_pub_out);
    return x == 0 ? 0 : x + s->n_pub_out;
}

/* May |wire| be read in matrix |m| (0: A, 1: B)?  A fixed function of the
 * wire and the seed; the constant always may. */
static int synth_eligible(const synth *s, uint32_t wire, int m) {
    if (wire == 0 || s->elig_cut[m] >= SYNTH_ALL)
        return 1;
    uint64_t k = s->elig_key[m] + wire;
    return (cuzk_splitmix64(&k) >> 11) < s->elig_cut[m];
}

/* Draws of a wire that must be eligible (and maybe a bit) before giving up. */
enum { SYNTH_TRIES = 64 };

/* A random combination of distinct readable wires below |z| that may be
 * read in matrix |m|, sorted by id; its value <lc, w> in *val.  With every
 * wire eligible it is drawn as it always was; otherwise ineligible draws
 * are rejected, and after SYNTH_TRIES of them the combination keeps the
 * terms it has (the constant if none). */
static void synth_random_lc(synth *s, uint32_t z, int m, synth_lc *lc, cuzk_fr *val) {
    uint32_t avail = z - s->n_pub_out;
    uint32_t t = s->min_terms + rng_below(&s->rng, s->max_terms - s->min_terms + 1);
    int restricted = s->elig_cut[m] < SYNTH_ALL;
    unsigned tries = 0;
    if (t > avail)
        t = avail;
    lc->n = 0;
    while (lc->n < t) {
        uint32_t wire = synth_pick(s, z), k = lc->n;
        if (restricted && ++tries > SYNTH_TRIES) {
            if (lc->n > 0)
                break;
            wire = 0;
        } else if (restricted && !synth_eligible(s, wire, m)) {
            continue;
        }
        int dup = 0;
        for (uint32_t i = 0; i < k; i++)
            dup |= lc->wire[i] == wire;
        if (dup)
            continue;
        while (k > 0 && lc->wire[k - 1] > wire) { /* insertion keeps it sorted */
            lc->wire[k] = lc->wire[k - 1];
            k--;
        }
        lc->wire[k] = wire;
        lc->n++;
    }
    memset(val, 0, sizeof *val);
    for (uint32_t i = 0; i < lc->n; i++) {
        cuzk_fr t2;
        synth_coef(s, &lc->coef[i]);
        cuzk_fr_mul(s->curve, &t2, &lc->coef[i], &s->w[lc->wire[i]]);
        cuzk_fr_add(s->curve, val, val, &t2);
    }
}

static void lc_one(synth_lc *lc, uint32_t wire, const cuzk_fr *coef) {
    lc->n = 1;
    lc->wire[0] = wire;
    lc->coef[0] = *coef;
}

static int synth_is_bit(const synth *s, uint32_t wire) {
    cuzk_fr zero;
    memset(&zero, 0, sizeof zero);
    return cuzk_fr_eq(&s->w[wire], &zero) || cuzk_fr_eq(&s->w[wire], &s->one);
}

/* An earlier 0/1 wire below |z|, other than |not|, that may be read in
 * matrix |m|; UINT32_MAX if SYNTH_TRIES draws found none. */
static uint32_t synth_pick_bit(synth *s, uint32_t z, int m, uint32_t not) {
    for (unsigned i = 0; i < SYNTH_TRIES; i++) {
        uint32_t w = synth_pick(s, z);
        if (w != not && synth_eligible(s, w, m) && synth_is_bit(s, w))
            return w;
    }
    return UINT32_MAX;
}

/* Wire |z| as a gate of two earlier bits x (read in A) and y (in B):
 *   XOR  A = {x: 2}, B = {y: 1}, C = {x: 1, y: 1, z: -1}   z = x + y - 2xy
 *   AND  A = {x: 1}, B = {y: 1}, C = {z: 1}                z = xy
 * Returns 0 (nothing written) if no such x and y turned up. */
static int synth_gate(synth *s, uint32_t z, synth_lc abc[3]) {
    uint32_t x = synth_pick_bit(s, z, 0, UINT32_MAX);
    uint32_t y = x == UINT32_MAX ? x : synth_pick_bit(s, z, 1, x);
    if (y == UINT32_MAX)
        return 0;
    cuzk_fr two, xy;
    cuzk_fr_add(s->curve, &two, &s->one, &s->one);
    cuzk_fr_mul(s->curve, &xy, &s->w[x], &s->w[y]);
    lc_one(&abc[1], y, &s->one);
    if (rng_next(&s->rng) & 1) { /* XOR */
        cuzk_fr t;
        lc_one(&abc[0], x, &two);
        abc[2].n = 3;
        abc[2].wire[0] = x < y ? x : y;
        abc[2].wire[1] = x < y ? y : x;
        abc[2].wire[2] = z;
        abc[2].coef[0] = abc[2].coef[1] = s->one;
        abc[2].coef[2] = s->minus_one;
        cuzk_fr_add(s->curve, &t, &s->w[x], &s->w[y]);
        cuzk_fr_mul(s->curve, &xy, &xy, &two);
        cuzk_fr_sub(s->curve, &s->w[z], &t, &xy);
    } else { /* AND */
        lc_one(&abc[0], x, &s->one);
        lc_one(&abc[2], z, &s->one);
        s->w[z] = xy;
    }
    return 1;
}

/* The next constraint into abc[0..2]; assigns the witness value of the
 * wire it defines. */
static void synth_next(synth *s, synth_lc abc[3]) {
    uint32_t j = s->next++;
    if (j >= s->n_internal) { /* out_i * 1 = internal wire (last - i) */
        uint32_t i = j - s->n_internal, src = s->n_wires - 1 - i;
        lc_one(&abc[0], 1 + i, &s->one);
        lc_one(&abc[1], 0, &s->one);
        lc_one(&abc[2], src, &s->one);
        s->w[1 + i] = s->w[src];
        return;
    }
    uint32_t z = 1 + s->n_pub + j;
    if ((rng_next(&s->rng) >> 11) < s->bool_cut) {
        /* a gate of earlier bits (never drawn at gate_share 0) */
        if (s->gate_cut && (rng_next(&s->rng) >> 11) < s->gate_cut && synth_gate(s, z, abc))
            return;
        /* a fresh bit: z (z - 1) = 0 */
        if (rng_next(&s->rng) & 1)
            s->w[z] = s->one;
        else
            memset(&s->w[z], 0, sizeof s->w[z]);
        lc_one(&abc[0], z, &s->one);
        abc[1].n = 2;
        abc[1].wire[0] = 0;
        abc[1].coef[0] = s->minus_one;
        abc[1].wire[1] = z;
        abc[1].coef[1] = s->one;
        abc[2].n = 0;
        return;
    }
    cuzk_fr a, b;
    synth_random_lc(s, z, 0, &abc[0], &a);
    synth_random_lc(s, z, 1, &abc[1], &b);
    cuzk_fr_mul(s->curve, &s->w[z], &a, &b);
    lc_one(&abc[2], z, &s->one);
}

/* ---- sink 1: in-memory CSR ----------------------------------------------- */

static cuzk_status matrix_alloc(cuzk_r1cs_matrix *m, uint32_t rows, uint64_t cap) {
    m->row_ptr = calloc((size_t)rows + 1, sizeof *m->row_ptr);
    m->col = malloc(cap * sizeof *m->col);
    m->coef = malloc(cap * sizeof *m->coef);
    m->nnz = 0;
    return (m->row_ptr && m->col && m->coef) ? CUZK_OK : CUZK_ENOMEM;
}

/* Append one row; grows the term arrays by doubling.  *cap is the
 * current capacity of col/coef. */
static int matrix_append(cuzk_r1cs_matrix *m, uint64_t *cap, uint32_t row,
                         const synth_lc *lc) {
    if (m->nnz + lc->n > *cap) {
        uint64_t nc = *cap * 2 + CUZK_SYNTH_MAX_TERMS;
        uint32_t *col = realloc(m->col, nc * sizeof *col);
        if (col)
            m->col = col;
        cuzk_fr *coef = realloc(m->coef, nc * sizeof *coef);
        if (coef)
            m->coef = coef;
        if (!col || !coef)
            return 0;
        *cap = nc;
    }
    for (uint32_t i = 0; i < lc->n; i++) {
        m->col[m->nnz] = lc->wire[i];
        m->coef[m->nnz++] = lc->coef[i];
    }
    m->row_ptr[row + 1] = m->nnz;
    return 1;
}

/* Give back the slack of the doubling growth. */
static void matrix_shrink(cuzk_r1cs_matrix *m) {
    size_t n = m->nnz ? m->nnz : 1;
    uint32_t *col = realloc(m->col, n * sizeof *col);
    cuzk_fr *coef = realloc(m->coef, n * sizeof *coef);
    if (col)
        m->col = col;
    if (coef)
        m->coef = coef;
}

cuzk_status cuzk_synth_circuit(const cuzk_synth_params *p, cuzk_r1cs *out,
                               cuzk_fr **witness, cuzk_error *err) {
    synth s;
    memset(out, 0, sizeof *out);
    if (witness)
        *witness = NULL;
    cuzk_status st = synth_init(&s, p, err);
    if (st != CUZK_OK)
        return st;
    out->curve = s.curve;
    out->n_wires = s.n_wires;
    out->n_pub_out = p->n_pub_out;
    out->n_pub_in = p->n_pub_in;
    out->n_labels = s.n_wires;
    out->n_constraints = s.n_constraints;
    cuzk_r1cs_matrix *mat[3] = {&out->a, &out->b, &out->c};
    /* Initial capacities: the expected term counts at the defaults. */
    uint64_t cap[3] = {s.n_constraints + 16ULL, 2ULL * s.n_constraints + 16, s.n_constraints / 4 + 16};
    for (int m = 0; m < 3 && st == CUZK_OK; m++)
        st = matrix_alloc(mat[m], s.n_constraints, cap[m]);
    for (uint32_t j = 0; j < s.n_constraints && st == CUZK_OK; j++) {
        synth_lc abc[3];
        synth_next(&s, abc);
        for (int m = 0; m < 3 && st == CUZK_OK; m++)
            if (!matrix_append(mat[m], &cap[m], j, &abc[m]))
                st = CUZK_ENOMEM;
    }
    if (st != CUZK_OK) {
        cuzk_r1cs_free(out);
        free(s.w);
        return cuzk_fail(err, CUZK_ENOMEM, "synth: no memory for %u constraints", s.n_constraints);
    }
    for (int m = 0; m < 3; m++)
        matrix_shrink(mat[m]);
    if (witness)
        *witness = s.w;
    else
        free(s.w);
    return CUZK_OK;
}

/* ---- sink 2: streaming .r1cs writer -------------------------------------- */

typedef struct r1cs_stream {
    FILE *f;
    uint64_t section2_bytes;
} r1cs_stream;

static void put_u32(FILE *f, uint32_t v) {
    uint8_t b[4];
    cuzk_wr_u32(b, v);
    fwrite(b, 1, 4, f);
}

static void put_u64(FILE *f, uint64_t v) {
    uint8_t b[8];
    cuzk_wr_u64(b, v);
    fwrite(b, 1, 8, f);
}

/* Container header and section 1 (same layout as cuzk_r1cs_write_mem:
 * sections 1, 2, 3 in id order, identity label map, nLabels = nWires). */
static void stream_header(FILE *f, const synth *s, const cuzk_synth_params *p) {
    const uint64_t *r = cuzk_curve_r_limbs(s->curve);
    fwrite("r1cs", 1, 4, f);
    put_u32(f, 1); /* version */
    put_u32(f, 3); /* sections */
    put_u32(f, 1);
    put_u64(f, 4 + 32 + 4 * 4 + 8 + 4);
    put_u32(f, 32);
    for (int i = 0; i < 4; i++)
        put_u64(f, r[i]);
    put_u32(f, s->n_wires);
    put_u32(f, p->n_pub_out);
    put_u32(f, p->n_pub_in);
    put_u32(f, 0); /* private inputs */
    put_u64(f, s->n_wires);
    put_u32(f, s->n_constraints);
}

/* One constraint as section-2 bytes; returns the byte count. */
static size_t encode_constraint(cuzk_curve c, const synth_lc abc[3], uint8_t *buf) {
    uint8_t *p = buf;
    for (int m = 0; m < 3; m++) {
        cuzk_wr_u32(p, abc[m].n);
        p += 4;
        for (uint32_t i = 0; i < abc[m].n; i++) {
            cuzk_wr_u32(p, abc[m].wire[i]);
            cuzk_fr_to_le(c, p + 4, &abc[m].coef[i]);
            p += 36;
        }
    }
    return (size_t)(p - buf);
}

/* Generate every constraint into |f| (positioned after section 1), then
 * section 3.  The size of section 2 is only known at the end, so it is
 * patched in.  Returns 0 if seeking failed (write errors show in ferror). */
static int stream_constraints(FILE *f, synth *s) {
    uint8_t buf[3 * (4 + 36 * CUZK_SYNTH_MAX_TERMS)];
    put_u32(f, 2);
    off_t size_at = ftello(f);
    put_u64(f, 0);
    uint64_t total = 0;
    for (uint32_t j = 0; j < s->n_constraints; j++) {
        synth_lc abc[3];
        synth_next(s, abc);
        size_t n = encode_constraint(s->curve, abc, buf);
        fwrite(buf, 1, n, f);
        total += n;
    }
    if (size_at < 0 || fseeko(f, size_at, SEEK_SET) != 0)
        return 0;
    put_u64(f, total);
    if (fseeko(f, 0, SEEK_END) != 0)
        return 0;
    put_u32(f, 3);
    put_u64(f, (uint64_t)s->n_wires * 8);
    for (uint32_t i = 0; i < s->n_wires; i++)
        put_u64(f, i);
    return 1;
}

static cuzk_status write_r1cs_stream(const char *path, synth *s,
                                     const cuzk_synth_params *p, cuzk_error *err) {
    cuzk_outfile o;
    cuzk_status st = cuzk_outfile_open(&o, path, err);
    if (st != CUZK_OK)
        return st;
    /* section 2's size is patched in at the end: the output must seek */
    FILE *f = cuzk_outfile_stream(&o, 1, err);
    if (!f) {
        cuzk_outfile_abort(&o);
        return CUZK_EIO;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    errno = 0;
    stream_header(f, s, p);
    if (!stream_constraints(f, s) || ferror(f)) {
        cuzk_fail(err, CUZK_EIO, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        cuzk_outfile_abort(&o);
        return CUZK_EIO;
    }
    return cuzk_outfile_commit(&o, err);
}

cuzk_status cuzk_synth_write(const char *r1cs_path, const char *wtns_path,
                             const cuzk_synth_params *p, cuzk_error *err) {
    synth s;
    cuzk_status st = synth_init(&s, p, err);
    if (st != CUZK_OK)
        return st;
    st = write_r1cs_stream(r1cs_path, &s, p, err);
    if (st == CUZK_OK && wtns_path)
        st = cuzk_wtns_write_file(s.curve, s.w, s.n_wires, wtns_path, err);
    free(s.w);
    return st;
}
