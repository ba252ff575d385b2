/*
 * Host emulation of the device Montgomery products (field/gpu/mont.cuh)
 * against GMP, without a GPU.  On the host, the PTX carry-chain wrappers
 * (ptx.cuh) keep the carry flag in a variable with the exact PTX
 * semantics, so the word-level algorithms run here as they run on the
 * device, carry by carry; a carry the algorithm drops on the assumption
 * that it is zero would show up as a wrong product.
 *
 * Checks, for the four fields, the even/odd product the kernels use
 * (mont_mul_eo) on 32-bit words and, for comparison, on 64-bit words, and
 * the CIOS loop (mont_mul_chain) on both word sizes: every pair of a set of
 * edge operands (0, 1, 2, p-1, p-2, (p-1)/2, R mod p, R^2 mod p, powers of
 * two, values with all-ones low words, random values near p) and random
 * pairs, against a * b / R mod p from GMP, also that each output is below
 * p.  The kernels' entry points f_mul and f_sqr are checked the same way
 * (CUZK_GPU_EMULATE_PTX makes them run the device chain here, with the
 * device's operand copies and n0 accessor), also with the result written
 * over an operand, as the point formulas do.  Exit 0 pass, 1 fail.
 */
#define CUZK_GPU_EMULATE_PTX 1
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "field/gpu/mont.cuh"
#include "tests/emulate_rng.h"

static int failures;
static long checks;


static void to_words(uint32_t *w, int n, const mpz_t x) {
    memset(w, 0, sizeof(uint32_t) * n);
    size_t cnt = 0;
    mpz_export(w, &cnt, -1, sizeof(uint32_t), 0, 0, x);
}
static void from_words(mpz_t x, const uint32_t *w, int n) {
    mpz_import(x, (size_t)n, -1, sizeof(uint32_t), 0, 0, w);
}

/* One field: N32 words, modulus p (64-bit limbs), n0 for both word sizes. */
template <class C> static void check_field(const char *name, int randoms) {
    enum { N = C::N32, N64 = C::N64 };
    const uint64_t *p64 = C::p();
    const uint32_t *p32 = (const uint32_t *)p64;
    mpz_t p, R, Rinv, a, b, e, t;
    mpz_inits(p, R, Rinv, a, b, e, t, NULL);
    from_words(p, p32, N);
    mpz_set_ui(R, 1);
    mpz_mul_2exp(R, R, 32 * N);
    mpz_invert(Rinv, R, p);

    /* edge operands */
    std::vector<std::vector<uint32_t> > edge;
    auto add = [&](const mpz_t v) {
        std::vector<uint32_t> w(N);
        to_words(w.data(), N, v);
        edge.push_back(w);
    };
    long small[] = {0, 1, 2, -1, -2};
    for (long s : small) {
        if (s >= 0)
            mpz_set_ui(t, (unsigned long)s);
        else
            mpz_sub_ui(t, p, (unsigned long)-s);
        add(t);
    }
    mpz_sub_ui(t, p, 1);
    mpz_fdiv_q_2exp(t, t, 1);
    add(t); /* (p-1)/2 */
    mpz_mod(t, R, p);
    add(t); /* R mod p (Montgomery one) */
    mpz_mul(t, R, R);
    mpz_mod(t, t, p);
    add(t); /* R^2 mod p */
    for (unsigned k = 31; k < 32u * N; k += 61) {
        mpz_set_ui(t, 1);
        mpz_mul_2exp(t, t, k);
        if (mpz_cmp(t, p) < 0)
            add(t);
    }
    for (int low = 1; low < N; low++) { /* p's top words, all-ones below */
        std::vector<uint32_t> w(p32, p32 + N);
        for (int j = 0; j < low; j++)
            w[j] = 0xffffffffu;
        w[low] -= 1; /* below p: one less in the first kept word */
        from_words(t, w.data(), N);
        if (mpz_cmp(t, p) < 0)
            edge.push_back(w);
    }
    for (int k = 0; k < 8; k++) { /* p - small random */
        mpz_sub_ui(t, p, 1 + (unsigned long)(rnd64() & 0xffffff));
        add(t);
    }

    auto one = [&](const uint32_t *x, const uint32_t *y) {
        from_words(a, x, N);
        from_words(b, y, N);
        mpz_mul(e, a, b);
        mpz_mul(e, e, Rinv);
        mpz_mod(e, e, p);
        uint32_t want[N], got[N];
        to_words(want, N, e);
        /* even/odd, 32-bit words (the kernels' product) */
        mont_mul_eo<uint32_t, N>(got, x, y, p32, C::n0_32);
        checks++;
        if (memcmp(got, want, sizeof got) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s eo-32 (word0 %08x * %08x)\n", name,
                    x[0], y[0]);
        /* CIOS, 32-bit words */
        mont_mul_chain<uint32_t, N>(got, x, y, p32, C::n0_32);
        checks++;
        if (memcmp(got, want, sizeof got) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s cios-32\n", name);
        /* both on 64-bit words */
        uint64_t X[N64], Y[N64], G[N64], Wt[N64];
        memcpy(X, x, sizeof X);
        memcpy(Y, y, sizeof Y);
        memcpy(Wt, want, sizeof Wt);
        mont_mul_eo<uint64_t, N64>(G, X, Y, p64, C::n0_64);
        checks++;
        if (memcmp(G, Wt, sizeof G) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s eo-64\n", name);
        mont_mul_chain<uint64_t, N64>(G, X, Y, p64, C::n0_64);
        checks++;
        if (memcmp(G, Wt, sizeof G) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s cios-64\n", name);
        /* f_mul as the kernels call it: separate result, then written
         * over the first and over the second operand */
        fp_t<C> fa, fb, fr;
        memcpy(fa.v, x, sizeof fa.v);
        memcpy(fb.v, y, sizeof fb.v);
        f_mul(fr, fa, fb);
        checks++;
        if (memcmp(fr.v, want, sizeof want) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s f_mul\n", name);
        fp_t<C> fc = fa;
        f_mul(fc, fc, fb);
        checks++;
        if (memcmp(fc.v, want, sizeof want) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s f_mul r=a\n", name);
        fc = fb;
        f_mul(fc, fa, fc);
        checks++;
        if (memcmp(fc.v, want, sizeof want) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s f_mul r=b\n", name);
        /* f_sqr in place against a * a / R */
        mpz_mul(e, a, a);
        mpz_mul(e, e, Rinv);
        mpz_mod(e, e, p);
        to_words(want, N, e);
        fc = fa;
        f_sqr(fc, fc);
        checks++;
        if (memcmp(fc.v, want, sizeof want) != 0 && failures++ < 10)
            fprintf(stderr, "FAIL %s f_sqr\n", name);
    };
    for (size_t i = 0; i < edge.size(); i++)
        for (size_t j = 0; j < edge.size(); j++)
            one(edge[i].data(), edge[j].data());
    std::vector<uint32_t> x(N), y(N);
    for (int k = 0; k < randoms; k++) {
        for (int h = 0; h < 2; h++) {
            std::vector<uint32_t> &v = h ? y : x;
            do { /* uniform below p by rejection on the top word */
                for (int j = 0; j < N; j++)
                    v[j] = (uint32_t)rnd64();
                v[N - 1] %= p32[N - 1] + 1;
                from_words(t, v.data(), N);
            } while (mpz_cmp(t, p) >= 0);
        }
        one(x.data(), y.data());
    }
    printf("mont_emulate: %s: %zu edge operands, %d random pairs\n", name,
           edge.size(), randoms);
    mpz_clears(p, R, Rinv, a, b, e, t, NULL);
}

int main(void) {
    check_field<gpu_bls12_381_fp_cfg>("bls12_381 fp", 20000);
    check_field<gpu_bls12_381_fr_cfg>("bls12_381 fr", 20000);
    check_field<gpu_bn254_fp_cfg>("bn254 fp", 20000);
    check_field<gpu_bn254_fr_cfg>("bn254 fr", 20000);
    printf("mont_emulate: %ld checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
