/*
 * The prover's scratch inside the engine is charged to the budget, and a
 * budget without room for it fails the job instead of letting the prover
 * allocate outside the budget (docs/ENGINE.md, "The prover's working
 * memory is the caller's").
 *
 * - Charged: after a job on a CPU device, the status shows the worker's
 *   scratch (mem_scratch) at least the prover's own figure for the key,
 *   inside the pool's buffers (mem_buffers), which are inside mem_used.
 * - Too small: a budget that holds the key, one buffer set and
 *   synthesis's scratch but not the device worker's scratch beside them
 *   fails the job with CUZK_ENOMEM and a message naming the budget and
 *   the scratch; no proof is published, the peak stays within the budget
 *   and the worker holds no scratch afterwards.
 */
#include <sys/stat.h>

#include "groth16/curve_impl.h"
#include "test_engine_util.h"

enum { THREADS = 2 };

/* The CPU worker's scratch need for |c|'s key on THREADS threads (what
 * engine/device_cpu.c sizes: the MSMs' or evaluate's, the larger). */
static uint64_t scratch_need(const eu_circuit *c) {
    cuzk_key key;
    cuzk_error err = {0};
    uint64_t need = 0;
    if (cuzk_key_load(&key, c->zkey, &err) != CUZK_OK) {
        CHECK(0, "load %s: %s", c->zkey, err.msg);
        return 0;
    }
    const cuzk_curve_impl *ci = cuzk_curve_impl_get(key.curve);
    if (ci) {
        uint64_t m = ci->msms_scratch_bytes(&key, THREADS), e = ci->evaluate_scratch_bytes(&key);
        need = m > e ? m : e;
    }
    cuzk_key_free(&key);
    return need;
}

/* Memory an engine of |cfg| charges before any key or buffer. */
static uint64_t base_charge(cuzk_engine_config *cfg) {
    cuzk_engine_status st;
    cfg->budget_bytes = 1ULL << 30;
    cuzk_engine *e = eu_create(cfg);
    cuzk_engine_status_get(e, &st);
    cuzk_engine_destroy(e, -1);
    return st.mem_used;
}

static void charged(const eu_circuit *c, uint64_t need) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_WARN;
    eu_cpu_device(&cfg, THREADS);
    cuzk_engine *e = eu_create(&cfg);
    cuzk_error err = {0};
    cuzk_job *j = eu_submit(e, c, NULL, 1, CUZK_PRIORITY_NORMAL, NULL, &err);
    CHECK(j && cuzk_job_await(j, 120000, &err) == CUZK_OK, "job: %s", err.msg);
    CHECK(j && eu_verify_job(j, &c->vk) == 1, "the job's proof verifies");
    cuzk_job_release(j);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    printf("  scratch need %llu, charged %llu; buffers %llu, used %llu\n",
           (unsigned long long)need, (unsigned long long)st.mem_scratch,
           (unsigned long long)st.mem_buffers, (unsigned long long)st.mem_used);
    CHECK(need > 0 && st.mem_scratch >= need, "scratch charged %llu, the prover needs %llu",
          (unsigned long long)st.mem_scratch, (unsigned long long)need);
    CHECK(st.mem_buffers >= st.mem_scratch && st.mem_used >= st.mem_keys + st.mem_buffers,
          "scratch %llu inside buffers %llu inside used %llu (keys %llu)",
          (unsigned long long)st.mem_scratch, (unsigned long long)st.mem_buffers,
          (unsigned long long)st.mem_used, (unsigned long long)st.mem_keys);
    cuzk_engine_destroy(e, -1);
}

static void too_small(const eu_circuit *c, uint64_t need) {
    cuzk_engine_config cfg;
    eu_config(&cfg, NULL);
    cfg.log_level = CUZK_LOG_ERROR;
    cfg.trace_events = 64;
    eu_cpu_device(&cfg, THREADS);
    uint64_t base = base_charge(&cfg);
    struct stat sb;
    uint64_t file = stat(c->zkey, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    /* A load reserves up to about 1.13 times the file; one buffer set is
     * two buffers of the pool's smallest class (64 KiB) at this size, and
     * synthesis's evaluate scratch one more. */
    uint64_t est = file + file / 5 + 8192, set = 3 * (64 << 10);
    uint64_t room = c->key_bytes + set + 16384 > est ? c->key_bytes + set + 16384 : est;
    CHECK(room - c->key_bytes >= set && room - c->key_bytes < need,
          "fixture: the budget's room beside the key (%llu) holds a buffer set (%llu) but not "
          "the scratch (%llu)",
          (unsigned long long)(room - c->key_bytes), (unsigned long long)set,
          (unsigned long long)need);
    cfg.budget_bytes = base + room;
    cuzk_engine *e = eu_create(&cfg);
    cuzk_error err = {0};
    cuzk_job *j = eu_submit(e, c, NULL, 1, CUZK_PRIORITY_NORMAL, NULL, &err);
    cuzk_status s = j ? cuzk_job_await(j, 120000, &err) : CUZK_EINTERNAL;
    printf("  budget %llu: %s\n", (unsigned long long)(base + room), err.msg);
    CHECK(s == CUZK_ENOMEM, "a budget without room for the scratch: %s (%s)", cuzk_status_name(s),
          err.msg);
    CHECK(strstr(err.msg, "budget") && strstr(err.msg, "the CPU prover's scratch"),
          "the message names the budget and the scratch: %s", err.msg);
    CHECK(j && eu_verify_job(j, &c->vk) == 0, "no proof is published");
    cuzk_job_release(j);
    cuzk_engine_status st;
    cuzk_engine_status_get(e, &st);
    /* synthesis keeps its (small) evaluate scratch; the worker holds none */
    CHECK(st.mem_peak <= st.mem_budget && st.mem_scratch < need,
          "peak %llu within budget %llu, scratch held %llu", (unsigned long long)st.mem_peak,
          (unsigned long long)st.mem_budget, (unsigned long long)st.mem_scratch);
    cuzk_engine_destroy(e, -1);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_engine_scratch");
    char *dir = eu_tmpdir();
    eu_circuit c;
    eu_make(&c, dir, "s", CUZK_CURVE_BN254, 9, 51);
    uint64_t need = scratch_need(&c);
    charged(&c, need);
    too_small(&c, need);
    eu_free(&c);
    eu_rmdir(dir);
    return tu_finish();
}
