/*
 * The engine's GPU residency policy (engine/gpu_tier.c), on the CPU: from
 * a key's figures and a device's free memory, where the key goes and
 * what its MSMs may use.  No GPU is needed: the policy is a pure function
 * of the figures, so every branch is checked here on made-up devices:
 * - resident when everything fits in 90% of the free memory (one
 *   prover's buffers included, at the boundary both ways), the G1
 *   stream then growing towards its unbounded plan (less so for more
 *   provers), streamed from host memory (AUTO) when it does not, or
 *   always (HOST);
 * - DEVICE keeps the bases resident with smaller MSM scratch, split in
 *   the ratio of the default plans and adding up to what is left;
 * - under a cap, the matrices stay on the host when only that fits, and
 *   the provers whose buffers fit are counted;
 * - a key that fits in no way is refused, naming the figures.
 */
#include <stdio.h>
#include <string.h>

#include "engine/gpu_tier.h"
#include "testutil.h"

#define GB (1ULL << 30)

/* A 2^24-like key: 20 GiB of bases, 2 GiB of matrices, 3 GiB of buffers,
 * default plans of 4 + 2 GiB (resident) and 3 + 1.5 GiB (streamed),
 * smallest 1 + 0.5 GiB, the unbounded G1 plan 8 GiB. */
static cuzk_gpu_key_needs key24(void) {
    cuzk_gpu_key_needs k = {.bases = 20 * GB, .csr = 2 * GB, .work = 3 * GB,
                            .s1 = 4 * GB, .s2 = 2 * GB, .h1 = 3 * GB, .h2 = 3 * GB / 2,
                            .m1 = 1 * GB, .m2 = GB / 2, .u1 = 8 * GB, .log_n = 24,
                            .n_vars = 1u << 24};
    return k;
}

static cuzk_gpu_mem_info mem(uint64_t free_gb, uint64_t cap_gb) {
    cuzk_gpu_mem_info m = {.free_bytes = free_gb * GB, .limit_bytes = cap_gb * GB};
    return m;
}

/* Equal to within a MiB (the policy works in doubles). */
static int near(uint64_t a, uint64_t b) { return (a > b ? a - b : b - a) < (1u << 20); }

static void resident_and_streamed(void) {
    cuzk_gpu_key_needs k = key24();
    cuzk_gpu_placement p;
    cuzk_error err = {0};
    cuzk_gpu_mem_info big = mem(139, 0);
    CHECK(engine_gpu_place(&k, &big, CUZK_GPU_KEY_AUTO, 1, &p, &err) == CUZK_OK, "%s", err.msg);
    CHECK(!p.host && p.host_if_refused && !p.no_csr && !strncmp(p.why, "device memory", 13),
          "a roomy device holds the key: host %d, why %s", p.host, p.why);
    /* room beyond the defaults: G1 up to its unbounded plan, B2 default */
    CHECK(p.msm_limit[0] == 8 * GB && p.msm_limit[1] == 0 && p.max_provers == 0,
          "G1 takes its unbounded plan: %zu, %zu, %u", p.msm_limit[0], p.msm_limit[1],
          p.max_provers);
    /* more provers' buffers come first: G1 gets what is left of them */
    cuzk_gpu_mem_info some = mem(40, 0); /* room 36: left 36-5-20 = 11 */
    CHECK(engine_gpu_place(&k, &some, CUZK_GPU_KEY_AUTO, 2, &p, &err) == CUZK_OK &&
              !p.host && near(p.msm_limit[0], 6 * GB),
          "two provers: G1 limit %.2f GiB, want 6 (11 - 3 - 2)", p.msm_limit[0] / (double)GB);
    CHECK(engine_gpu_place(&k, &some, CUZK_GPU_KEY_AUTO, 3, &p, &err) == CUZK_OK &&
              !p.host && p.msm_limit[0] == 0,
          "three provers: no room beyond the default G1 plan (%zu)", p.msm_limit[0]);
    /* resident needs 31 GiB: 90% of 30 is not enough, so AUTO streams */
    cuzk_gpu_mem_info small = mem(30, 0);
    CHECK(engine_gpu_place(&k, &small, CUZK_GPU_KEY_AUTO, 1, &p, &err) == CUZK_OK && p.host &&
              !p.host_if_refused && strstr(p.why, "more than 90%"),
          "AUTO on a small device streams: host %d, why %s", p.host, p.why);
    CHECK(engine_gpu_place(&k, &big, CUZK_GPU_KEY_HOST, 1, &p, &err) == CUZK_OK && p.host &&
              strstr(p.why, "asked for"),
          "HOST streams even on a roomy device: %s", p.why);
}

/* The resident fit counts one prover's buffers: bases, matrices and the
 * default scratch (28 GiB) fit 90% of 34 GiB free (30.6), but with the
 * 3 GiB of buffers (31) they do not; 35 GiB free (31.5) holds them all,
 * and the G1 stream gets what the buffers leave (31.5 - 25 - 2). */
static void buffers_in_the_fit(void) {
    cuzk_gpu_key_needs k = key24();
    cuzk_gpu_placement p;
    cuzk_error err = {0};
    cuzk_gpu_mem_info m34 = mem(34, 0), m35 = mem(35, 0);
    cuzk_status s = engine_gpu_place(&k, &m34, CUZK_GPU_KEY_AUTO, 1, &p, &err);
    CHECK(s == CUZK_OK && p.host && strstr(p.why, "resident it needs 31.00 GiB"),
          "bases fit but not with the buffers: host %d, why %s (%s)", p.host, p.why, err.msg);
    s = engine_gpu_place(&k, &m35, CUZK_GPU_KEY_AUTO, 1, &p, &err);
    CHECK(s == CUZK_OK && !p.host &&
              near(p.msm_limit[0], (size_t)(0.9 * (double)(35 * GB)) - 27 * GB),
          "everything fits: host %d, G1 limit %.3f GiB, want 4.5 (%s)", p.host,
          p.msm_limit[0] / (double)GB, err.msg);
}

static void device_mode_and_caps(void) {
    cuzk_gpu_key_needs k = key24();
    cuzk_gpu_placement p;
    cuzk_error err = {0};
    /* DEVICE on 30 GiB free: room 27, left 27 - 25 = 2 < 6 (defaults), >= 1.5 */
    cuzk_gpu_mem_info m30 = mem(30, 0);
    CHECK(engine_gpu_place(&k, &m30, CUZK_GPU_KEY_DEVICE, 1, &p, &err) == CUZK_OK && !p.host,
          "DEVICE stays resident: %s", err.msg);
    double left = 0.9 * (double)(30 * GB) - (double)(25 * GB);
    CHECK(p.msm_limit[0] >= k.m1 && p.msm_limit[1] >= k.m2 &&
              p.msm_limit[0] + p.msm_limit[1] == (size_t)left &&
              p.msm_limit[0] > p.msm_limit[1],
          "DEVICE splits %.3f GiB in the defaults' ratio: %.3f + %.3f", left / GB,
          p.msm_limit[0] / (double)GB, p.msm_limit[1] / (double)GB);
    /* a 16 GiB cap: streamed, room 14.4, left 14.4 - 5 = 9.4 >= 4.5 */
    cuzk_gpu_mem_info cap16 = mem(16, 16);
    CHECK(engine_gpu_place(&k, &cap16, CUZK_GPU_KEY_AUTO, 1, &p, &err) == CUZK_OK && p.host &&
              !p.no_csr && p.msm_limit[0] == k.h1 && p.msm_limit[1] == k.h2 &&
              strstr(p.why, "device cap 16.00 GiB"),
          "capped and streamed: limits %zu %zu, why %s", p.msm_limit[0], p.msm_limit[1], p.why);
    /* spare 9.4 - 4.5 + 3 = 7.9 GiB: two provers' buffers of 3 fit */
    CHECK(p.max_provers == 2, "provers under the cap: %u, want 2", p.max_provers);
    /* a 6 GiB cap: room 5.4, left 0.4 < 1.5, with the matrices 2.4: still
     * short; a 7 GiB cap: room 6.3, left 1.3 < 1.5, + 2 = 3.3: fits */
    cuzk_gpu_mem_info cap7 = mem(7, 7);
    CHECK(engine_gpu_place(&k, &cap7, CUZK_GPU_KEY_AUTO, 1, &p, &err) == CUZK_OK && p.host &&
              p.no_csr && strstr(p.why, "matrices") && p.max_provers >= 1,
          "a tight cap leaves the matrices on the host: %s", p.why);
    cuzk_gpu_mem_info cap4 = mem(4, 4);
    cuzk_status s = engine_gpu_place(&k, &cap4, CUZK_GPU_KEY_AUTO, 1, &p, &err);
    CHECK(s == CUZK_ENOMEM && strstr(err.msg, "at the least") && strstr(err.msg, "2^24") &&
              strstr(err.msg, "even with its bases in host memory"),
          "a key that fits in no way is refused, named: %s (%s)", cuzk_status_name(s),
          err.msg);
    cuzk_gpu_mem_info m24 = mem(24, 0);
    s = engine_gpu_place(&k, &m24, CUZK_GPU_KEY_DEVICE, 1, &p, &err);
    CHECK(s == CUZK_ENOMEM && strstr(err.msg, "resident it needs"),
          "DEVICE without room for the bases is refused: %s (%s)", cuzk_status_name(s), err.msg);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_tier");
    resident_and_streamed();
    buffers_in_the_fit();
    device_mode_and_caps();
    return tu_finish();
}
