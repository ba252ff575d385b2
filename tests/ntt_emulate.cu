/*
 * Host emulation of the GPU NTT (ntt/gpu/ntt_kernels.cuh) against the CPU
 * NTT (ntt/ntt.h), without a GPU.  The kernel bodies are __host__
 * __device__; this program runs the pass plan of ntt.cu the way the device
 * would: for each block, each phase between two barriers is run for every
 * thread of the block in turn, with a host array standing in for shared
 * memory and one register set per thread.  Blocks run one after another,
 * which is one of the orders the device may pick (blocks of a pass never
 * read what another block of the same pass writes).
 *
 * Checks, for both scalar fields, every log_n in 1..18 plus 20
 * (CUZK_NTT_EMULATE_MAX_LOG lowers or raises the top), all five directions
 * (coset generator w_2n, and a random one at some sizes; the fifth,
 * inverse-to-coset, against the CPU inverse times g^i, and followed by a
 * forward transform against the CPU inverse then coset forward), element by
 * element equal to the CPU transform, with the fixed-tile plan and, at the sizes
 * where it differs (2^11 .. 2^16), the small-tile plan on the same input.
 * Also checks ntt_inv_n (1/2^k without an inversion) against a Fermat
 * inversion for k = 0..28.  Also checks that the swizzled shared-memory
 * slots of every round are a permutation (no two threads share a slot).
 * Exit 0 pass, 1 fail.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

extern "C" {
#include "field/field.h"
#include "ntt/ntt.h"
}
#include "ntt/gpu/ntt_kernels.cuh"
#include "tests/emulate_rng.h"

static int failures;

#define EXPECT(cond, ...)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
        }                                                                     \
    } while (0)


/* Field glue: the CPU type and functions of each curve, stamped per
 * curve prefix P. */
template <class C> struct emu_field;
#define EMU_FIELD(P)                                                          \
    template <> struct emu_field<gpu_##P##_fr_cfg> {                          \
        typedef P##_fr F;                                                     \
        typedef P##_ntt_domain D;                                             \
        static void root(F *r, unsigned lg) { P##_fr_root_of_unity(r, lg); }  \
        static cuzk_status dom(D **d, unsigned lg, cuzk_error *e) {           \
            return P##_ntt_domain_create(d, lg, e);                           \
        }                                                                     \
        static void dom_free(D *d) { P##_ntt_domain_destroy(d); }             \
        static void run(D *d, F *a, int dir, const F *g) {                    \
            switch (dir) {                                                    \
            case 0: P##_ntt_forward(d, a, NULL); break;                       \
            case 1: P##_ntt_inverse(d, a, NULL); break;                       \
            case 2: P##_ntt_coset_forward(d, a, g, NULL); break;              \
            case 3: P##_ntt_coset_inverse(d, a, g, NULL); break;              \
            default: { /* inverse, then a[i] times g^i */                     \
                P##_ntt_inverse(d, a, NULL);                                  \
                F p;                                                          \
                P##_fr_set_one(&p);                                           \
                for (size_t i = 0; i < ((size_t)1 << P##_ntt_domain_log_n(d)); i++) { \
                    P##_fr_mul(&a[i], &a[i], &p);                             \
                    P##_fr_mul(&p, &p, g);                                    \
                }                                                             \
            }                                                                 \
            }                                                                 \
        }                                                                     \
        static const char *name() { return #P; }                              \
    };
EMU_FIELD(bls12_381)
EMU_FIELD(bn254)
#undef EMU_FIELD

/* Runs one launch of k_ntt_tile (ntt.cu) for pass |P| on the host. */
template <class C>
static void emu_pass(const ntt_pass &P, const fp_t<C> *src, fp_t<C> *dst,
                     const fp_t<C> *tw, const fp_t<C> *lo, const fp_t<C> *hi,
                     const fp_t<C> &scale) {
    const uint32_t nthreads = 1u << (P.tile_log - NTT_EPT_LOG);
    std::vector<uint32_t> sh(ntt_pass_shared_bytes(&P) / sizeof(uint32_t));
    std::vector<ntt_regs<C> > regs(nthreads);
    for (uint32_t b = 0; b < (1u << P.log_nb); b++) {
        for (uint32_t t = 0; t < nthreads; t++)
            ntt_tile_load<C>(P, b, t, nthreads, sh.data(), regs[t], src, tw,
                             lo, hi);
        for (unsigned rho = 0; rho < P.rounds; rho++) {
            for (uint32_t t = 0; t < nthreads; t++) {
                if (rho > 0)
                    ntt_tile_from_shared<C>(P, rho, t, sh.data(), regs[t]);
                ntt_tile_round<C>(P, rho, t, sh.data(), regs[t]);
            }
            if (rho + 1 < P.rounds) {
                /* poison the tile: a slot read before it is written shows */
                for (size_t k = 0; k < (8u << P.tile_log); k++)
                    sh[k] = 0xdeadbeefu;
                for (uint32_t t = 0; t < nthreads; t++)
                    ntt_tile_to_shared<C>(P, rho, t, sh.data(), regs[t]);
            }
        }
        for (uint32_t t = 0; t < nthreads; t++)
            ntt_tile_store<C>(P, b, t, regs[t], dst, tw, lo, hi, scale);
    }
}

/* Every round's (thread, element) -> swizzled slot map is a bijection. */
static void check_slots(const ntt_pass &P) {
    const uint32_t tile = 1u << P.tile_log;
    const uint32_t nthreads = tile >> NTT_EPT_LOG;
    for (unsigned rho = 0; rho < P.rounds; rho++) {
        std::vector<char> seen(tile, 0);
        unsigned h = P.log_c + ntt_round_b0(P, rho);
        int ok = 1;
        for (uint32_t t = 0; t < nthreads; t++)
            for (uint32_t e = 0; e < NTT_EPT; e++) {
                uint32_t s = ntt_swz(ntt_thread_slot(t, P.tile_log, h) |
                                     (e << h));
                if (s >= tile || seen[s])
                    ok = 0;
                else
                    seen[s] = 1;
            }
        EXPECT(ok, "2^%u pass L=%u round %u: slot map not a permutation",
               P.log_n, P.L, rho);
    }
}

template <class C> static void f_from_u64_host(fp_t<C> &r, uint64_t v) {
    f_set_zero(r);
    r.v[0] = (uint32_t)v;
    r.v[1] = (uint32_t)(v >> 32);
    f_to_mont(r, r);
}

/* The whole cuzk_gpu_ntt of ntt.cu, on the host. */
template <class C>
static void emu_ntt(fp_t<C> *x, unsigned log_n, int dir, const fp_t<C> &g,
                    unsigned shape) {
    typedef fp_t<C> E;
    const uint32_t n = 1u << log_n, half = n / 2;
    typename emu_field<C>::F wf;
    emu_field<C>::root(&wf, log_n);
    E w, one;
    memcpy(w.v, &wf, sizeof w.v);
    f_set_one(one);
    std::vector<E> tw(half);
    tw[0] = one;
    for (uint32_t k = 1; k < half; k++)
        f_mul(tw[k], tw[k - 1], w);
    bool inverse = dir == 1 || dir == 3 || dir == 4, coset = dir >= 2;
    E ninv;
    ntt_inv_n(ninv, log_n);
    std::vector<E> lo(NTT_POW_LO), hi((n + NTT_POW_LO - 1) / NTT_POW_LO);
    if (coset) {
        E b = g, sc = one;
        if (dir == 4) { /* inverse to coset: output j times g^j / n */
            sc = ninv;
        } else if (inverse) {
            f_inv(b, g);
            sc = ninv;
        }
        E b4096 = b;
        for (int k = 0; k < NTT_POW_LO_BITS; k++)
            f_sqr(b4096, b4096);
        for (uint32_t k = 0; k < NTT_POW_LO && k < n; k++)
            ntt_powers_one<C>(k, lo.data(), b, one);
        for (uint32_t k = 0; k < hi.size(); k++)
            ntt_powers_one<C>(k, hi.data(), b4096, sc);
    }
    ntt_pass plan[NTT_MAX_PASSES];
    unsigned np = ntt_plan_passes(log_n, inverse, coset && !inverse,
                                  !inverse ? 0 : coset ? 2 : 1, shape, plan);
    if (log_n <= NTT_SMALL_LOG) {
        ntt_small_one<C>(x, plan[0], tw.data(), lo.data(), hi.data(), ninv);
        return;
    }
    std::vector<E> tmp(np > 1 ? n : 0);
    for (unsigned k = 0; k < np; k++) {
        check_slots(plan[k]);
        const E *src = k == 0 ? x : tmp.data();
        E *dst = k + 1 == np ? x : tmp.data();
        emu_pass<C>(plan[k], src, dst, tw.data(), lo.data(), hi.data(), ninv);
    }
}

/* Whether the two plan shapes give different passes at 2^|log_n|. */
static bool plans_differ(unsigned log_n) {
    ntt_pass a[NTT_MAX_PASSES], b[NTT_MAX_PASSES];
    unsigned na = ntt_plan_passes(log_n, 0, 0, 0, NTT_PLAN_FIXED, a);
    unsigned nb = ntt_plan_passes(log_n, 0, 0, 0, NTT_PLAN_SMALL, b);
    return na != nb || memcmp(a, b, na * sizeof a[0]) != 0;
}

/* ntt_inv_n against a Fermat inversion of n, every 2^k up to 2^28. */
template <class C> static void test_inv_n(void) {
    for (unsigned lg = 0; lg <= 28; lg++) {
        fp_t<C> a, b, one;
        f_from_u64_host(a, (uint64_t)1 << lg);
        f_inv(a, a);
        ntt_inv_n(b, lg);
        EXPECT(memcmp(&a, &b, sizeof a) == 0, "%s 1/2^%u",
               emu_field<C>::name(), lg);
        f_from_u64_host(a, (uint64_t)1 << lg);
        f_mul(a, a, b);
        f_set_one(one);
        EXPECT(memcmp(&a, &one, sizeof a) == 0, "%s 2^%u / 2^%u != 1",
               emu_field<C>::name(), lg, lg);
    }
}

template <class C> static void test_field(unsigned max_log) {
    typedef fp_t<C> E;
    typedef typename emu_field<C>::F F;
    const uint64_t *mod = (const uint64_t *)C::p();
    for (unsigned lg = 1; lg <= max_log; lg++) {
        if (lg > 18 && lg != 20 && lg != max_log)
            continue;
        const size_t n = (size_t)1 << lg;
        typename emu_field<C>::D *dom = NULL;
        cuzk_error err;
        if (emu_field<C>::dom(&dom, lg, &err) != CUZK_OK) {
            EXPECT(0, "%s domain 2^%u", emu_field<C>::name(), lg);
            continue;
        }
        std::vector<E> gpu(n), cpu(n), in(n);
        F g_last;
        for (int dir = 0; dir < 5; dir++)
        for (unsigned shape = 0; shape < 2; shape++) {
            if (shape == NTT_PLAN_SMALL && !plans_differ(lg))
                continue;
            if (shape == NTT_PLAN_SMALL) { /* same input, the other plan */
                memcpy(gpu.data(), in.data(), n * sizeof(E));
                E ge;
                memcpy(ge.v, &g_last, sizeof ge.v);
                emu_ntt<C>(gpu.data(), lg, dir, ge, shape);
                size_t bad = n;
                for (size_t i = 0; i < n && bad == n; i++)
                    if (memcmp(&gpu[i], &cpu[i], sizeof(E)))
                        bad = i;
                EXPECT(bad == n, "%s 2^%u dir %d plan %u differs from CPU "
                       "at %zu", emu_field<C>::name(), lg, dir, shape, bad);
                continue;
            }
            F g;
            emu_field<C>::root(&g, lg + 1);
            if ((dir == 2 && (lg & 1)) || (dir == 4 && !(lg & 1))) {
                /* random generator, below 2^253 */
                uint64_t v[4] = {rnd64(), rnd64(), rnd64(),
                                 rnd64() & ((1ull << 61) - 1)};
                memcpy(&g, v, sizeof v);
            }
            for (size_t i = 0; i < n; i++) {
                uint64_t v[4] = {rnd64(), rnd64(), rnd64(),
                                 rnd64() & ((1ull << 61) - 1)};
                if (v[3] >= mod[3])
                    v[3] = 0;
                memcpy(gpu[i].v, v, sizeof v);
            }
            memcpy(cpu.data(), gpu.data(), n * sizeof(E));
            memcpy(in.data(), gpu.data(), n * sizeof(E));
            g_last = g;
            emu_field<C>::run(dom, (F *)cpu.data(), dir, &g);
            E ge;
            memcpy(ge.v, &g, sizeof ge.v);
            emu_ntt<C>(gpu.data(), lg, dir, ge, NTT_PLAN_FIXED);
            size_t bad = n;
            for (size_t i = 0; i < n && bad == n; i++)
                if (memcmp(&gpu[i], &cpu[i], sizeof(E)))
                    bad = i;
            EXPECT(bad == n, "%s 2^%u dir %d plan 0 differs from CPU at %zu",
                   emu_field<C>::name(), lg, dir, bad);
            if (dir == 4) { /* then a plain forward = the coset forward */
                memcpy(cpu.data(), in.data(), n * sizeof(E));
                emu_field<C>::run(dom, (F *)cpu.data(), 1, &g);
                emu_field<C>::run(dom, (F *)cpu.data(), 2, &g);
                emu_ntt<C>(gpu.data(), lg, 0, ge, NTT_PLAN_SMALL);
                bad = n;
                for (size_t i = 0; i < n && bad == n; i++)
                    if (memcmp(&gpu[i], &cpu[i], sizeof(E)))
                        bad = i;
                EXPECT(bad == n, "%s 2^%u inverse-to-coset + forward differs"
                       " from inverse + coset forward at %zu",
                       emu_field<C>::name(), lg, bad);
                /* restore the dir 4 reference for the other plan */
                memcpy(cpu.data(), in.data(), n * sizeof(E));
                emu_field<C>::run(dom, (F *)cpu.data(), 4, &g);
            }
        }
        emu_field<C>::dom_free(dom);
    }
}

int main(void) {
    unsigned max_log = 20;
    const char *e = getenv("CUZK_NTT_EMULATE_MAX_LOG");
    if (e)
        max_log = (unsigned)atoi(e);
    if (max_log > 28)
        max_log = 28;
    /* print the pass plans the report quotes: stages, tile and blocks of
     * each pass, per shape */
    for (unsigned lg = 10; lg <= 28; lg++) {
        if (lg > 24 && lg != 27 && lg != 28)
            continue;
        for (unsigned shape = 0; shape < 2; shape++) {
            if (shape == NTT_PLAN_SMALL && !plans_differ(lg))
                continue;
            ntt_pass plan[NTT_MAX_PASSES];
            unsigned np = ntt_plan_passes(lg, 0, 0, 0, shape, plan);
            printf("plan 2^%u %s:", lg, shape ? "small" : "fixed");
            for (unsigned i = 0; i < np; i++)
                printf(" L%u/tile 2^%u/%u blocks of %u thr (%zu B)%s",
                       plan[i].L, plan[i].tile_log, 1u << plan[i].log_nb,
                       1u << (plan[i].tile_log - NTT_EPT_LOG),
                       ntt_pass_shared_bytes(&plan[i]),
                       i + 1 < np ? " +" : "");
            printf("\n");
        }
    }
    test_inv_n<gpu_bls12_381_fr_cfg>();
    test_inv_n<gpu_bn254_fr_cfg>();
    test_field<gpu_bls12_381_fr_cfg>(max_log);
    test_field<gpu_bn254_fr_cfg>(max_log);
    printf("ntt_emulate: %s (%d failures)\n", failures ? "FAIL" : "ok",
           failures);
    return failures ? 1 : 0;
}
