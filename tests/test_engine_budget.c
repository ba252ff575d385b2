/*
 * The memory budget and key residency (docs/ENGINE.md).
 *
 * - Many jobs under a budget that holds one key and only a couple of buffer
 *   sets: all complete and verify, the engine's own peak never exceeds the
 *   budget, and no more partitions were ever between synthesis and the end
 *   of their device step than the budget's buffer room allows (so
 *   admission waited and resumed as buffers came back, instead of failing).
 * - Least-recently-used eviction with room for two keys out of three: the
 *   key used least recently goes, a key in use never does (even when it is
 *   the least recently used), explicit evict refuses a key in use and
 *   works on an idle one, and a key is loaded again on demand.
 * - A key larger than the whole budget fails its job with CUZK_ENOMEM and a
 *   message; a witness copy that cannot get room fails its submit with
 *   CUZK_EBUSY after the configured wait.
 */
#include <sys/stat.h>

#include "groth16/curve_impl.h"
#include "test_engine_util.h"

static uint64_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Memory an engine charges before any key or buffer (its timeline). */
static uint64_t base_charge(cuzk_engine_config *cfg) {
    cuzk_engine *e;
    cuzk_engine_status st;
    cuzk_error err = {0};
    cfg->budget_bytes = 1ULL << 30;
    if (cuzk_engine_create(&e, cfg, &err) != CUZK_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        exit(1);
    }
    cuzk_engine_status_get(e, &st);
    cuzk_engine_destroy(e, -1);
    return st.mem_used;
}

static cuzk_engine *make(cuzk_engine_config *cfg, uint64_t budget) {
    cuzk_engine *e;
    cuzk_error err = {0};
    cfg->budget_bytes = budget;
    if (cuzk_engine_create(&e, cfg, &err) != CUZK_OK) {
        fprintf(stderr, "engine: %s\n", err.msg);
        exit(1);
    }
    return e;
}

/* Largest number of partitions whose [synthesis start, device end] overlap. */
static unsigned max_overlap(cuzk_partition_info *pi, size_t n) {
    unsigned best = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned k = 0;
        uint64_t t = pi[i].synth_start_ns;
        for (size_t j = 0; j < n; j++)
            k += pi[j].synth_start_ns <= t && t < pi[j].device_end_ns;
        if (k > best)
            best = k;
    }
    return best;
}

/* What a CPU device's worker holds as prover scratch for key |c| (a pool
 * buffer: at least 64 KiB, at most 1.25 times the need). */
static uint64_t scratch_charge(const eu_circuit *c) {
    cuzk_key key;
    cuzk_error err = {0};
    uint64_t need = 0;
    if (cuzk_key_load(&key, c->zkey, &err) != CUZK_OK)
        return 0;
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(key.curve);
    if (ci)
        need = ci->msms_scratch_bytes(&key, 1);
    cuzk_key_free(&key);
    return need < (64 << 10) ? (64 << 10) : need + need / 4;
}

static void many_jobs_small_budget(const eu_circuit *c) {
    enum { JOBS = 8, PARTS = 2 };
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.trace_events = 64;
    eu_cpu_device(&cfg, 1);
    /* One synthesis worker: the budget below leaves room for one
     * evaluation scratch (the slack), and each synthesis worker keeps its
     * own; two workers evaluating at once (a matter of timing: seen under
     * ThreadSanitizer) would fail the second partition with ENOMEM. */
    cfg.synth_workers = 1;
    /* The worker's prover scratch is charged like any buffer: part of the
     * base, not room for buffer sets. */
    uint64_t base = base_charge(&cfg) + scratch_charge(c);
    /* One buffer set: the witness (n_vars scalars) and a|b|c (3n scalars)
     * buffers, each at least the pool's 64 KiB class. */
    uint64_t set = 2 * (64 << 10), est = file_size(c->zkey) * 6 / 5 + 8192;
    uint64_t budget = base + est + 2 * set + 32768;
    cuzk_engine *e = make(&cfg, budget);
    cuzk_error err = {0};
    cuzk_job *j[JOBS];
    /* A job of one partition first: the synthesis worker takes its
     * evaluation scratch (kept from then on) while one buffer set is out.
     * Admission does not reserve that scratch, so had the worker first
     * evaluated with two sets out, there would have been no room for it. */
    {
        cuzk_witness w1 = {.path = c->wtns};
        cuzk_submit_opts o1 = {.key = c->zkey, .witnesses = &w1, .n_witnesses = 1};
        cuzk_job *first = NULL;
        CHECK(cuzk_submit(e, &first, NULL, &o1, &err) == CUZK_OK &&
                  cuzk_job_await(first, 120000, &err) == CUZK_OK,
              "the first job: %s", err.msg);
        if (first)
            cuzk_job_release(first);
    }
    for (int i = 0; i < JOBS; i++) {
        cuzk_witness w[PARTS] = {{.path = c->wtns}, {.data = c->wtns_mem, .size = c->wtns_size}};
        cuzk_submit_opts o = {.key = c->zkey, .witnesses = w, .n_witnesses = PARTS};
        CHECK(cuzk_submit(e, &j[i], NULL, &o, &err) == CUZK_OK, "submit %d: %s", i, err.msg);
    }
    cuzk_partition_info pi[JOBS * PARTS];
    for (int i = 0; i < JOBS; i++) {
        CHECK(cuzk_job_await(j[i], 120000, &err) == CUZK_OK, "job %d: %s", i, err.msg);
        CHECK(eu_verify_job(j[i], &c->vk) == PARTS, "job %d does not verify", i);
        cuzk_job_status(j[i], NULL, &pi[i * PARTS], PARTS);
        cuzk_job_release(j[i]);
    }
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    unsigned overlap = max_overlap(pi, JOBS * PARTS);
    uint64_t room = (budget - base - c->key_bytes) / set;
    printf("  budget %llu bytes, peak %llu; at most %u partitions admitted at once (room for %llu)\n",
           (unsigned long long)budget, (unsigned long long)st.mem_peak, overlap,
           (unsigned long long)room);
    CHECK(st.mem_peak <= budget, "peak %llu over the budget %llu", (unsigned long long)st.mem_peak,
          (unsigned long long)budget);
    CHECK(overlap <= room && overlap < JOBS * PARTS,
          "%u partitions in flight at once, the budget has room for %llu", overlap,
          (unsigned long long)room);
    cuzk_engine_destroy(e, -1);
}

static cuzk_key_tier tier(cuzk_engine *e, const char *id) {
    cuzk_key_info ki[8];
    size_t n = cuzk_engine_keys(e, ki, 8);
    for (size_t i = 0; i < n && i < 8; i++)
        if (!strcmp(ki[i].id, id))
            return ki[i].tier;
    return (cuzk_key_tier)-1;
}

static void run_job(cuzk_engine *e, const eu_circuit *c, const char *key) {
    cuzk_error err = {0};
    cuzk_job *j = eu_submit(e, c, key, 1, CUZK_PRIORITY_NORMAL, NULL, &err);
    CHECK(j && cuzk_job_await(j, 120000, &err) == CUZK_OK, "job on %s: %s", key, err.msg);
    CHECK(j && eu_verify_job(j, &c->vk) == 1, "job on %s does not verify", key);
    cuzk_job_release(j);
}

static void expect_tiers(cuzk_engine *e, cuzk_key_tier a, cuzk_key_tier b, cuzk_key_tier c,
                         const char *when) {
    cuzk_key_tier ta = tier(e, "A"), tb = tier(e, "B"), tc = tier(e, "C");
    CHECK(ta == a && tb == b && tc == c, "%s: tiers A %s B %s C %s, want %s %s %s", when,
          cuzk_key_tier_name(ta), cuzk_key_tier_name(tb), cuzk_key_tier_name(tc),
          cuzk_key_tier_name(a), cuzk_key_tier_name(b), cuzk_key_tier_name(c));
}

/* |cpu|: the device is a CPU one, whose worker holds prover scratch (a
 * simulated device holds none, and the room must not grow by it). */
static uint64_t two_key_budget(cuzk_engine_config *cfg, const eu_circuit *k, int cpu) {
    uint64_t base = base_charge(cfg) + (cpu ? scratch_charge(&k[0]) : 0), big = 0, kb = 0;
    for (int i = 0; i < 3; i++) {
        if (file_size(k[i].zkey) > big)
            big = file_size(k[i].zkey);
        if (k[i].key_bytes > kb)
            kb = k[i].key_bytes;
    }
    /* A load reserves about 1.13 x the file until the key's own size is
     * known (a loaded key is smaller: A, B1, B2 compact).  One key loaded
     * and a second loading, with one buffer set, fit; two loaded and a
     * third loading do not, even with the buffers trimmed. */
    uint64_t load = big + big / 8 + 4096, bufs = 2 * (64 << 10);
    uint64_t budget = base + load + kb + bufs + kb / 4;
    CHECK(2 * kb + load > budget - base, "fixture: three keys would fit in %llu",
          (unsigned long long)budget);
    return budget;
}

static void lru(const eu_circuit *k) {
    const cuzk_key_tier HOST = CUZK_TIER_HOST, DISK = CUZK_TIER_DISK;
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.trace_events = 64;
    cfg.buffer_sets = 1;
    eu_cpu_device(&cfg, 1);
    cuzk_engine *e = make(&cfg, two_key_budget(&cfg, k, 1));
    cuzk_error err = {0};
    const char *ids[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++) /* registers all three; C's load evicts A */
        CHECK(cuzk_engine_key_preload(e, ids[i], k[i].zkey, &err) == CUZK_OK, "preload %s: %s",
              ids[i], err.msg);
    expect_tiers(e, DISK, HOST, HOST, "after preloading A, B, C");
    run_job(e, &k[0], "A"); /* evicts B, the least recently used */
    expect_tiers(e, HOST, DISK, HOST, "after a job on A");
    run_job(e, &k[2], "C");
    run_job(e, &k[1], "B"); /* A is now the least recently used */
    expect_tiers(e, DISK, HOST, HOST, "after jobs on C then B");
    CHECK(cuzk_engine_key_evict(e, "C", &err) == CUZK_OK, "evict C: %s", err.msg);
    expect_tiers(e, DISK, HOST, DISK, "after evicting C");
    CHECK(cuzk_engine_key_evict(e, "nope", &err) == CUZK_ENOTFOUND, "evict of an unknown key");
    run_job(e, &k[2], "C"); /* loaded again on demand */
    expect_tiers(e, DISK, HOST, HOST, "after a job on C again");
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.mem_peak <= st.mem_budget, "peak over budget");
    cuzk_engine_destroy(e, -1);
}

/* Holds the device step of job "hold-A" at its start until released, so
 * that A stays in use for exactly as long as the checks need. */
static _Atomic int hold_released, hold_started;
static void hold_hook(void *ctx, const cuzk_fault_point *at, cuzk_fault *out) {
    (void)ctx, (void)out;
    if (at->site == CUZK_FAULT_DEVICE && !strcmp(at->request_id, "hold-A")) {
        atomic_store(&hold_started, 1);
        while (!atomic_load(&hold_released))
            usleep(1000);
    }
}

/* A key in use is never evicted, even when it is the least recently used. */
static void in_use_kept(const eu_circuit *k) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    cfg.trace_events = 64;
    cfg.buffer_sets = 1;
    cfg.cpu_fallback = 0;
    eu_sim_device(&cfg, 0, 1000);
    eu_testing.fault_fn = hold_hook; /* A's partition stays on the device until released */
    cuzk_engine *e = make(&cfg, two_key_budget(&cfg, k, 0));
    cuzk_error err = {0};
    CHECK(cuzk_engine_key_preload(e, "A", k[0].zkey, &err) == CUZK_OK, "preload A: %s", err.msg);
    CHECK(cuzk_engine_key_preload(e, "B", k[1].zkey, &err) == CUZK_OK, "preload B: %s", err.msg);
    cuzk_job *j = eu_submit(e, &k[0], "A", 1, CUZK_PRIORITY_NORMAL, "hold-A", &err);
    cuzk_partition_info pi;
    while (!atomic_load(&hold_started)) /* until A's partition is on the device */
        usleep(1000);
    cuzk_job_status(j, NULL, &pi, 1);
    CHECK(pi.stage == CUZK_STAGE_PROVING, "partition stage %s", cuzk_stage_name(pi.stage));
    CHECK(cuzk_engine_key_evict(e, "A", &err) == CUZK_EBUSY, "evicting a key in use must fail");
    /* Preloading B again marks it used: A is now the least recently used,
     * but it is pinned, so C's load must take B's place. */
    CHECK(cuzk_engine_key_preload(e, "B", k[1].zkey, &err) == CUZK_OK, "preload B: %s", err.msg);
    CHECK(cuzk_engine_key_preload(e, "C", k[2].zkey, &err) == CUZK_OK, "preload C: %s", err.msg);
    expect_tiers(e, CUZK_TIER_HOST, CUZK_TIER_DISK, CUZK_TIER_HOST, "C loaded while A in use");
    CHECK(cuzk_engine_key_evict(e, "A", &err) == CUZK_EBUSY, "A is still in use");
    atomic_store(&hold_released, 1);
    CHECK(cuzk_job_await(j, 120000, &err) == CUZK_OK, "job on A: %s", err.msg);
    cuzk_job_release(j);
    for (int i = 0; i < 12000 && cuzk_engine_key_evict(e, "A", &err) == CUZK_EBUSY; i++)
        usleep(5000); /* the pin goes when the partition drains */
    expect_tiers(e, CUZK_TIER_DISK, CUZK_TIER_DISK, CUZK_TIER_HOST, "A evicted once idle");
    cuzk_engine_destroy(e, -1);
}

static void too_small(const eu_circuit *c) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_ERROR;
    cfg.trace_events = 64;
    cfg.submit_wait_ms = 100;
    cfg.intake_max_bytes = 4096; /* smaller than one witness */
    eu_cpu_device(&cfg, 1);
    uint64_t base = base_charge(&cfg);
    cuzk_engine *e = make(&cfg, base + c->key_bytes / 2);
    cuzk_error err = {0};
    cuzk_job *j = eu_submit(e, c, NULL, 1, CUZK_PRIORITY_NORMAL, NULL, &err);
    CHECK(j && cuzk_job_await(j, 120000, &err) == CUZK_ENOMEM, "job with a key over budget: %s",
          err.msg);
    CHECK(strstr(err.msg, "budget") != NULL, "message should name the budget: %s", err.msg);
    cuzk_job_release(j);
    cuzk_witness w = {.data = c->wtns_mem, .size = c->wtns_size};
    cuzk_submit_opts o = {.key = c->zkey, .witnesses = &w, .n_witnesses = 1};
    CHECK(cuzk_submit(e, &j, NULL, &o, &err) == CUZK_EBUSY && j == NULL,
          "a witness copy without room must fail the submit: %s", err.msg);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    CHECK(st.mem_peak <= st.mem_budget && st.mem_intake == 0, "peak %llu budget %llu intake %llu",
          (unsigned long long)st.mem_peak, (unsigned long long)st.mem_budget,
          (unsigned long long)st.mem_intake);
    cuzk_engine_destroy(e, -1);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_budget");
    char *dir = eu_tmpdir();
    eu_circuit k[3];
    eu_make(&k[0], dir, "a", CUZK_CURVE_BN254, 9, 41);
    eu_make(&k[1], dir, "b", CUZK_CURVE_BN254, 9, 42);
    eu_make(&k[2], dir, "c", CUZK_CURVE_BN254, 9, 43);
    many_jobs_small_budget(&k[0]);
    lru(k);
    in_use_kept(k);
    too_small(&k[0]);
    for (int i = 0; i < 3; i++)
        eu_free(&k[i]);
    eu_rmdir(dir);
    return tu_finish();
}
