/*
 * Arithmetic micro-benchmarks (not a test): ns per operation for the field,
 * curve and pairing primitives of both curves, as dependent chains so the
 * figure is latency, the way blst's numbers are usually quoted.
 * Usage: bench_arith [min_seconds_per_item]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench/load.h"
#include "curve/curve.h"
#include "field/field.h"
#include "field/fp2.h"
#include "pairing/pairing.h"

static double min_s = 0.3;

/* Runs |body| in doubling batches until min_s has passed; prints ns/op. */
#define BENCH(label, setup, body)                                             \
    do {                                                                      \
        setup;                                                                \
        unsigned long iters = 1, done = 0;                                    \
        double t0 = bench_now_s(), t;                                               \
        for (;;) {                                                            \
            for (unsigned long i = 0; i < iters; i++) {                       \
                body;                                                         \
            }                                                                 \
            done += iters;                                                    \
            t = bench_now_s() - t0;                                                 \
            if (t >= min_s)                                                   \
                break;                                                        \
            iters *= 2;                                                       \
        }                                                                     \
        printf("%-34s %12.1f ns/op\n", label, 1e9 * t / (double)done);       \
    } while (0)

static void machine_line(void) {
    struct utsname u;
    char model[256];
    bench_cpu_model(model, sizeof model);
    uname(&u);
    printf("machine: %s, %ld online CPUs, %s %s; field products: %s\n", model,
           sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.machine,
           cuzk_field_uses_asm() ? "x86-64 mulx/adx" : "portable C");
}

#define FIELD_BENCH(F, label)                                                 \
    BENCH(label " mul", F a; F b; F##_set_u64(&a, 7); F##_set_u64(&b, 11),    \
          F##_mul(&a, &a, &b));                                               \
    BENCH(label " sqr", F a; F##_set_u64(&a, 7), F##_sqr(&a, &a));            \
    BENCH(label " add", F a; F b; F##_set_u64(&a, 7); F##_set_u64(&b, 11),    \
          F##_add(&a, &a, &b));                                               \
    BENCH(label " inv (var time)", F a; F##_set_u64(&a, 7),                   \
          F##_inv_var(&a, &a));                                               \
    BENCH(label " inv (const time)", F a; F##_set_u64(&a, 7), F##_inv(&a, &a));

/* Group and pairing figures: mixed additions in a dependent chain, one
 * constant-time scalar multiplication by a random 255-bit scalar, and one
 * full pairing (Miller loop + final exponentiation). */
#define CURVE_BENCH(P, label)                                                 \
    BENCH(label " G1 mixed add (Jacobian+affine)", P##_g1 acc; P##_g1_affine g; \
          P##_g1_generator(&g); P##_g1_from_affine(&acc, &g); P##_g1_dbl(&acc, &acc), \
          P##_g1_add_affine(&acc, &acc, &g));                                 \
    BENCH(label " G1 XYZZ mixed add", P##_g1_xyzz acc; P##_g1_affine g;        \
          P##_g1_generator(&g); P##_g1_xyzz_from_affine(&acc, &g);           \
          P##_g1_xyzz_dbl(&acc, &acc), P##_g1_xyzz_add_affine(&acc, &acc, &g)); \
    BENCH(label " G2 mixed add (Jacobian+affine)", P##_g2 acc; P##_g2_affine g; \
          P##_g2_generator(&g); P##_g2_from_affine(&acc, &g); P##_g2_dbl(&acc, &acc), \
          P##_g2_add_affine(&acc, &acc, &g));                                 \
    BENCH(label " G1 scalar mul (const time)", P##_g1 acc; P##_g1_affine g;   \
          P##_fr k; P##_fr_set_u64(&k, 0x1234567); P##_fr_inv_var(&k, &k);     \
          P##_g1_generator(&g); P##_g1_from_affine(&acc, &g),                  \
          P##_g1_mul(&acc, &acc, &k));                                        \
    BENCH(label " G2 scalar mul (const time)", P##_g2 acc; P##_g2_affine g;   \
          P##_fr k; P##_fr_set_u64(&k, 0x1234567); P##_fr_inv_var(&k, &k);     \
          P##_g2_generator(&g); P##_g2_from_affine(&acc, &g),                  \
          P##_g2_mul(&acc, &acc, &k));                                        \
    BENCH(label " pairing", P##_fp12 f; P##_g1_affine g1; P##_g2_affine g2;   \
          P##_g1_generator(&g1); P##_g2_generator(&g2),                       \
          P##_pairing(&f, &g1, &g2));

int main(int argc, char **argv) {
    if (argc > 1)
        min_s = atof(argv[1]);
    machine_line();
    FIELD_BENCH(bls12_381_fp, "bls12_381 Fp")
    FIELD_BENCH(bls12_381_fr, "bls12_381 Fr")
    BENCH("bls12_381 Fp2 mul", bls12_381_fp2 a; bls12_381_fp2 b;
          bls12_381_fp2_set_one(&a); bls12_381_fp2_set_one(&b);
          bls12_381_fp_set_u64(&b.c1, 3), bls12_381_fp2_mul(&a, &a, &b));
    FIELD_BENCH(bn254_fp, "bn254 Fp")
    FIELD_BENCH(bn254_fr, "bn254 Fr")
    BENCH("bn254 Fp2 mul", bn254_fp2 a; bn254_fp2 b; bn254_fp2_set_one(&a);
          bn254_fp2_set_one(&b); bn254_fp_set_u64(&b.c1, 3),
          bn254_fp2_mul(&a, &a, &b));
    CURVE_BENCH(bls12_381, "bls12_381")
    CURVE_BENCH(bn254, "bn254")
    return 0;
}
