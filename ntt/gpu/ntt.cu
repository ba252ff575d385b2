/*
 * GPU NTT over the scalar fields of BLS12-381 and BN254 (gpu/ntt.h:
 * cuzk_gpu_ntt, cuzk_gpu_ntt_prepare).  The algorithm and the kernel bodies
 * are in ntt_kernels.cuh; this file launches the passes of the plan,
 * builds and caches the twiddle tables and computes the per-call scalars
 * (1/n, g^-1) on the host.
 *
 * Roots: w = root_of_unity(log_n) exactly as field/field.c defines it (the
 * 2^S-th root from consts_gen.h squared S - log_n times), so the output order
 * matches ntt/ntt.h and snarkjs (and, the arithmetic being exact, every
 * element equals the CPU transform's).
 *
 * Twiddle cache: one table of n/2 powers of w per (curve, log_n), built on
 * the caller's stream and synchronised before it is published under the
 * context lock, so other streams never see a half-built table.  The passes
 * read their small in-pass roots from it too (w^(n/2^L) = the 2^L-th root).
 *
 * Scratch per call (cuzk_gpu_scratch): n elements for the intermediate copy
 * when the plan has two or more passes (log_n > 10), plus 4096 + n/4096
 * elements of coset power tables for the coset directions (and
 * inverse-to-coset).
 *
 * cuzk_gpu_ctx_tune's ntt_log_radix is ignored: the pass plan follows
 * from the size (ntt_kernels.cuh: ntt_plan_passes; CUZK_NTT_PLAN=fixed in
 * the environment selects the older fixed-tile plan, for A/B timing).
 *
 * Host work per call is kept to a few scalar operations: 1/n comes from a
 * shift of p - 1 (ntt_inv_n), not a Fermat inversion (about 20 us on the
 * host, which the measured time of a small transform includes since the
 * launches wait for it); only the inverse coset still inverts g on the host.
 *
 * Must not: allocate in steady state (only the first use of a size builds
 * its table; the scratch grows once), or block except when building a
 * table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/dispatch.cuh"
#include "gpu/internal.cuh"
#include "gpu/ntt.h"
#include "ntt/gpu/ntt_kernels.cuh"

/* One pass of the plan (ntt_kernels.cuh): a tile of 2^tile_log elements
 * per block, NTT_EPT per thread.  Register cap for 3 blocks of 256 threads
 * per multiprocessor (E = 4: 80 registers, at most 48 KB of shared memory
 * per block). */
#ifndef NTT_MIN_BLOCKS
#define NTT_MIN_BLOCKS (NTT_EPT_LOG == 2 ? 3 : 4)
#endif
/*
 * FL = 0: the plan's shape is read at run time (any tile size).  FL > 0:
 * a tile of 2^FT elements (FT = NTT_TILE_LOG, or one of the smaller tiles
 * of NTT_PLAN_SMALL) over FL stages, the shape fixed at compile time (the
 * launch picks it by (tile_log, L), from which log_c and rounds follow, so
 * the constants always equal the plan's), and the slot and index
 * arithmetic of every round (bit placements, shifts, masks) folds to
 * constants and the rounds unroll.
 * That arithmetic is integer ALU work competing with the products' carry
 * instructions, the busiest pipe of these kernels.  The bodies are the
 * same; only the copy of the plan they read differs.
 */
template <class C, unsigned FL, unsigned FT>
__global__ void __launch_bounds__(NTT_THREADS, NTT_MIN_BLOCKS)
    k_ntt_tile(ntt_pass P, const fp_t<C> *src, fp_t<C> *dst,
               const fp_t<C> *__restrict__ tw, const fp_t<C> *lo,
               const fp_t<C> *hi, fp_t<C> scale) {
    extern __shared__ uint32_t ntt_sh[];
    constexpr unsigned FR = (FL + NTT_EPT_LOG - 1) / NTT_EPT_LOG;
    if (FL != 0) {
        P.L = FL;
        P.tile_log = FT;
        P.log_c = FT - FL;
        P.rounds = FR;
    }
    ntt_regs<C> r;
    const uint32_t t = threadIdx.x, b = blockIdx.x;
    ntt_tile_load<C>(P, b, t, blockDim.x, ntt_sh, r, src, tw, lo, hi);
    __syncthreads();
    const unsigned rounds = FL != 0 ? FR : P.rounds;
#pragma unroll
    for (unsigned rho = 0; rho < rounds; rho++) {
        if (rho > 0)
            ntt_tile_from_shared<C>(P, rho, t, ntt_sh, r);
        ntt_tile_round<C>(P, rho, t, ntt_sh, r);
        if (rho + 1 < rounds) {
            if (rho > 0)
                __syncthreads(); /* everyone has read this round's slots */
            ntt_tile_to_shared<C>(P, rho, t, ntt_sh, r);
            __syncthreads();
        }
    }
    ntt_tile_store<C>(P, b, t, r, dst, tw, lo, hi, scale);
}

/* Launches one pass: the fixed-shape kernel for full tiles of 5 to 10
 * stages (every pass of a plan for log_n >= 10 up to 2^28 and beyond) and
 * for the small tiles of NTT_PLAN_SMALL (2^11 .. 2^16), the run-time one
 * otherwise. */
template <class C>
static void ntt_launch_pass(cudaStream_t cs, const ntt_pass &P,
                            const fp_t<C> *src, fp_t<C> *dst,
                            const fp_t<C> *tw, const fp_t<C> *lo,
                            const fp_t<C> *hi, const fp_t<C> &scale) {
    dim3 grid(1u << P.log_nb), block(1u << (P.tile_log - NTT_EPT_LOG));
    size_t shb = ntt_pass_shared_bytes(&P);
#define NTT_FIXED(l, t)                                                        \
    case (t) * 32 + (l):                                                       \
        k_ntt_tile<C, l, t><<<grid, block, shb, cs>>>(P, src, dst, tw, lo, hi, \
                                                      scale);                  \
        return;
    switch (P.tile_log * 32 + P.L) {
        NTT_FIXED(5, NTT_TILE_LOG)
        NTT_FIXED(6, NTT_TILE_LOG)
        NTT_FIXED(7, NTT_TILE_LOG)
        NTT_FIXED(8, NTT_TILE_LOG)
        NTT_FIXED(9, NTT_TILE_LOG)
        NTT_FIXED(10, NTT_TILE_LOG)
#if NTT_TILE_LOG == 10 && NTT_EPT_LOG == 2
        NTT_FIXED(5, 7)
        NTT_FIXED(6, 7)
        NTT_FIXED(7, 7)
        NTT_FIXED(7, 8)
        NTT_FIXED(8, 8)
        NTT_FIXED(8, 9)
#endif
    default:
        k_ntt_tile<C, 0, 0><<<grid, block, shb, cs>>>(P, src, dst, tw, lo, hi,
                                                      scale);
    }
#undef NTT_FIXED
}

/* The plan's tile rule for this call: CUZK_NTT_PLAN=fixed selects the
 * fixed 2^NTT_TILE_LOG tiles (read per call, so one process can time both
 * plans; the default is NTT_PLAN_SMALL). */
static unsigned ntt_plan_shape(void) {
    const char *e = getenv("CUZK_NTT_PLAN");
    return e != NULL && strcmp(e, "fixed") == 0 ? NTT_PLAN_FIXED
                                                 : NTT_PLAN_SMALL;
}

template <class C>
__global__ void k_ntt_small(fp_t<C> *x, ntt_pass P, const fp_t<C> *tw,
                            const fp_t<C> *lo, const fp_t<C> *hi,
                            fp_t<C> scale) {
    ntt_small_one<C>(x, P, tw, lo, hi, scale);
}

template <class C>
__global__ void k_ntt_powers(fp_t<C> *out, uint32_t count, fp_t<C> base,
                             fp_t<C> scale) {
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count)
        ntt_powers_one<C>(k, out, base, scale);
}

template <class C>
__global__ void k_ntt_twiddles(fp_t<C> *tw, uint32_t count, const fp_t<C> *lo,
                               const fp_t<C> *hi) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        ntt_pow_lookup(tw[i], lo, hi, i);
}

/* ---- host-side constants ------------------------------------------------------ */

template <class C> struct ntt_field;
template <> struct ntt_field<gpu_bls12_381_fr_cfg> {
    static void root(fp_t<gpu_bls12_381_fr_cfg> &w) {
        static const uint64_t r[4] = BLS12_381_FR_ROOT_MONT;
        memcpy(w.v, r, sizeof r);
    }
    enum { S = BLS12_381_FR_S };
};
template <> struct ntt_field<gpu_bn254_fr_cfg> {
    static void root(fp_t<gpu_bn254_fr_cfg> &w) {
        static const uint64_t r[4] = BN254_FR_ROOT_MONT;
        memcpy(w.v, r, sizeof r);
    }
    enum { S = BN254_FR_S };
};

/* w = root_of_unity(log_n): the 2^S-th root squared S - log_n times. */
template <class C> static void ntt_omega(fp_t<C> &w, unsigned log_n) {
    ntt_field<C>::root(w);
    for (unsigned i = log_n; i < (unsigned)ntt_field<C>::S; i++)
        f_sqr(w, w);
}

/* Fills lo[k] = scale0 * b^k (k < 4096 or count_lo) and
 * hi[k] = scale1 * (b^4096)^k (k < count_hi) on the stream. */
template <class C>
static cuzk_status ntt_power_tables(cudaStream_t cs, fp_t<C> *lo, fp_t<C> *hi,
                                    uint32_t count_lo, uint32_t count_hi,
                                    const fp_t<C> &b, const fp_t<C> &scale_hi,
                                    cuzk_error *err) {
    fp_t<C> one, b4096 = b;
    f_set_one(one);
    for (int k = 0; k < NTT_POW_LO_BITS; k++)
        f_sqr(b4096, b4096);
    k_ntt_powers<C><<<cuzk_gpu_blocks(count_lo, 256), 256, 0, cs>>>(
        lo, count_lo, b, one);
    CUZK_LAUNCHED(err);
    k_ntt_powers<C><<<cuzk_gpu_blocks(count_hi, 256), 256, 0, cs>>>(
        hi, count_hi, b4096, scale_hi);
    CUZK_LAUNCHED(err);
    return CUZK_OK;
}

static uint32_t ntt_hi_count(uint32_t count) {
    return (count + NTT_POW_LO - 1) >> NTT_POW_LO_BITS;
}

/* Returns the cached twiddle table of (curve, log_n), building it on |s|. */
template <class C>
static cuzk_status ntt_twiddles(cuzk_gpu_stream *s, int curve, unsigned log_n,
                                const fp_t<C> **out, cuzk_error *err) {
    cuzk_gpu_ctx *ctx = s->ctx;
    pthread_mutex_lock(&ctx->lock);
    void *t = ctx->d_twiddles[curve][log_n];
    cuzk_status st = CUZK_OK;
    if (t == NULL) {
        uint32_t half = 1u << (log_n - 1);
        uint32_t hc = ntt_hi_count(half);
        size_t bytes = sizeof(fp_t<C>) * ((size_t)half + NTT_POW_LO + hc);
        cudaError_t e = cuzk_gpu_dmalloc(ctx, &t, bytes);
        if (e != cudaSuccess) {
            pthread_mutex_unlock(&ctx->lock);
            return cuzk_gpu_cuda_fail(err, e, "cudaMalloc(twiddles)", __FILE__,
                                      __LINE__);
        }
        fp_t<C> *tw = (fp_t<C> *)t, *lo = tw + half, *hi = lo + NTT_POW_LO;
        fp_t<C> w, one;
        ntt_omega(w, log_n);
        f_set_one(one);
        uint32_t lc = half < NTT_POW_LO ? half : NTT_POW_LO;
        st = ntt_power_tables<C>(s->s, lo, hi, lc, hc, w, one, err);
        if (st == CUZK_OK) {
            k_ntt_twiddles<C><<<cuzk_gpu_blocks(half, 256), 256, 0, s->s>>>(
                tw, half, lo, hi);
            cudaError_t e2 = cudaGetLastError();
            if (e2 == cudaSuccess)
                e2 = cudaStreamSynchronize(s->s);
            if (e2 != cudaSuccess)
                st = cuzk_gpu_cuda_fail(err, e2, "twiddle build", __FILE__,
                                        __LINE__);
        }
        if (st == CUZK_OK) {
            ctx->d_twiddles[curve][log_n] = t;
            ctx->cached_bytes += bytes;
        } else {
            cuzk_gpu_dfree(ctx, t);
            t = NULL;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    *out = (const fp_t<C> *)t;
    return st;
}

/* The coset's power tables at |lo| (NTT_POW_LO entries) and |hi| (hc):
 * powers of the generator g (forward), of g^-1 (inverse; times 1/n), or
 * of g times 1/n (the inverse into the coset). */
template <class C>
static cuzk_status ntt_coset_tables(cuzk_gpu_stream *s, const void *coset_gen, bool to_coset,
                                    bool inverse, uint32_t n, uint32_t hc, const fp_t<C> &ninv,
                                    fp_t<C> *lo, fp_t<C> *hi, cuzk_error *err) {
    typedef fp_t<C> E;
    E g;
    memcpy(g.v, coset_gen, sizeof g.v);
    if (f_is_zero(g))
        return cuzk_gpu_fail(err, CUZK_EINVAL, "ntt: coset generator 0");
    E one;
    f_set_one(one);
    uint32_t lc = n < NTT_POW_LO ? n : NTT_POW_LO;
    if (to_coset)
        return ntt_power_tables<C>(s->s, lo, hi, lc, hc, g, ninv, err);
    if (inverse) {
        E ginv;
        f_inv(ginv, g);
        return ntt_power_tables<C>(s->s, lo, hi, lc, hc, ginv, ninv, err);
    }
    return ntt_power_tables<C>(s->s, lo, hi, lc, hc, g, one, err);
}

template <class C>
static cuzk_status ntt_run(cuzk_gpu_stream *s, int curve, fp_t<C> *x,
                           unsigned log_n, cuzk_gpu_ntt_dir dir,
                           const void *coset_gen, cuzk_error *err) {
    typedef fp_t<C> E;
    const fp_t<C> *tw;
    cuzk_status st = ntt_twiddles<C>(s, curve, log_n, &tw, err);
    if (st != CUZK_OK)
        return st;
    uint32_t n = 1u << log_n;
    /* to_coset: the inverse whose last pass multiplies output j by g^j / n
     * (the coset inverse's store, with g for g^-1) */
    bool to_coset = dir == CUZK_GPU_NTT_INVERSE_TO_COSET;
    bool inverse = dir == CUZK_GPU_NTT_INVERSE ||
                   dir == CUZK_GPU_NTT_COSET_INVERSE || to_coset;
    bool coset = dir == CUZK_GPU_NTT_COSET_FORWARD ||
                 dir == CUZK_GPU_NTT_COSET_INVERSE || to_coset;
    ntt_pass plan[NTT_MAX_PASSES];
    unsigned np = ntt_plan_passes(log_n, inverse, coset && !inverse,
                                  !inverse ? 0 : coset ? 2 : 1,
                                  ntt_plan_shape(), plan);
    /* scratch: the intermediate copy (two or more passes), then the coset
     * power tables */
    cuzk_gpu_arena arena = {0};
    size_t off_data = np > 1 ? cuzk_gpu_arena_take(&arena, sizeof(E) * n) : 0;
    uint32_t hc = ntt_hi_count(n);
    size_t off_pow =
        coset ? cuzk_gpu_arena_take(&arena, sizeof(E) * (NTT_POW_LO + hc)) : 0;
    if (arena.used > 0) {
        st = cuzk_gpu_scratch(s, arena.used, err);
        if (st != CUZK_OK)
            return st;
    }
    char *scr = (char *)s->d_scratch;
    E *tmp = np > 1 ? (E *)(scr + off_data) : x;
    E *lo = NULL, *hi = NULL;
    E ninv;
    ntt_inv_n(ninv, log_n);
    if (coset) {
        lo = (E *)(scr + off_pow);
        hi = lo + NTT_POW_LO;
        st = ntt_coset_tables<C>(s, coset_gen, to_coset, inverse, n, hc, ninv, lo, hi, err);
        if (st != CUZK_OK)
            return st;
    }
    if (log_n <= NTT_SMALL_LOG) {
        k_ntt_small<C><<<1, 1, 0, s->s>>>(x, plan[0], tw, lo, hi, ninv);
        CUZK_LAUNCHED(err);
        return CUZK_OK;
    }
    for (unsigned k = 0; k < np; k++) {
        const ntt_pass &P = plan[k];
        const E *src = k == 0 ? x : tmp;
        E *dst = k + 1 == np ? x : tmp;
        ntt_launch_pass<C>(s->s, P, src, dst, tw, lo, hi, ninv);
        CUZK_LAUNCHED(err);
    }
    return CUZK_OK;
}

static cuzk_status ntt_check(cuzk_curve curve, unsigned log_n,
                             cuzk_error *err) {
    /* the twiddle cache is indexed by the curve (internal.cuh) */
    if ((unsigned)curve >= sizeof ((cuzk_gpu_ctx *)0)->d_twiddles /
                               sizeof ((cuzk_gpu_ctx *)0)->d_twiddles[0])
        return cuzk_gpu_fail(err, CUZK_EINVAL, "ntt: unknown curve %d",
                             (int)curve);
    if (log_n < 1 || log_n > CUZK_GPU_MAX_LOG_NTT)
        return cuzk_gpu_fail(err, CUZK_ERANGE,
                             "ntt: log_n = %u outside [1, %d]", log_n,
                             CUZK_GPU_MAX_LOG_NTT);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_ntt(cuzk_gpu_stream *s, cuzk_curve curve,
                                    void *d_data, unsigned log_n,
                                    cuzk_gpu_ntt_dir dir,
                                    const void *coset_gen, cuzk_error *err) {
    cuzk_status st = ntt_check(curve, log_n, err);
    if (st != CUZK_OK)
        return st;
    if (d_data == NULL || (unsigned)dir > CUZK_GPU_NTT_INVERSE_TO_COSET ||
        (dir >= CUZK_GPU_NTT_COSET_FORWARD && coset_gen == NULL))
        return cuzk_gpu_fail(err, CUZK_EINVAL,
                             "ntt: NULL data, bad direction or missing coset "
                             "generator");
    st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    return cuzk_gpu_dispatch(curve, err, "ntt", [&](auto t) {
        typedef typename decltype(t)::fr C;
        return ntt_run<C>(s, (int)curve, (fp_t<C> *)d_data, log_n, dir, coset_gen, err);
    });
}

extern "C" cuzk_status cuzk_gpu_ntt_prepare(cuzk_gpu_ctx *ctx,
                                            cuzk_curve curve,
                                            unsigned log_n, cuzk_error *err) {
    cuzk_status st = ntt_check(curve, log_n, err);
    if (st != CUZK_OK)
        return st;
    cuzk_gpu_stream *s = &ctx->dflt;
    st = cuzk_gpu_enter(s, err);
    if (st != CUZK_OK)
        return st;
    return cuzk_gpu_dispatch(curve, err, "ntt prepare", [&](auto t) {
        typedef typename decltype(t)::fr C;
        const fp_t<C> *tw;
        return ntt_twiddles<C>(s, (int)curve, log_n, &tw, err);
    });
}
