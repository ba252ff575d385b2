/* Test harness implementation (see testutil.h). */
#include "testutil.h"
#include "groth16/devtools/setup.h"
#include "groth16/devtools/synth.h"
#include "groth16/formats/wtns.h"
#include "util/splitmix.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/runtime.h"
#include <cuda_runtime_api.h>
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t tu_state[4];
static uint64_t tu_seed_value;
static unsigned long tu_passed, tu_failed;
static const char *tu_name = "test";

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void tu_init(int argc, char **argv, const char *name) {
    const char *s = getenv("CUZK_SEED");
    tu_name = name;
    tu_passed = tu_failed = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--seed") == 0)
            s = argv[i + 1];
    if (s)
        tu_seed_value = strtoull(s, NULL, 0);
    else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tu_seed_value = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    uint64_t x = tu_seed_value;
    for (int i = 0; i < 4; i++)
        tu_state[i] = cuzk_splitmix64(&x);
    printf("%s: seed %llu (replay with CUZK_SEED=%llu)\n", name,
           (unsigned long long)tu_seed_value, (unsigned long long)tu_seed_value);
    fflush(stdout);
}

uint64_t tu_seed(void) { return tu_seed_value; }

uint64_t tu_rand64(void) {
    uint64_t *s = tu_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

unsigned tu_iters(unsigned base) {
    const char *s = getenv("CUZK_TEST_ITERS");
    unsigned k = s ? (unsigned)strtoul(s, NULL, 10) : 1;
    return base * (k ? k : 1);
}

void tu_rand_bytes(void *out, size_t n) {
    uint8_t *p = out;
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)tu_rand64();
}

static int lt(const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Bits in long runs: walk from bit 0 up, flipping between 0 and 1 runs. */
static void rand_runs(uint64_t *out, size_t n) {
    memset(out, 0, n * sizeof *out);
    unsigned bit = 0, total = (unsigned)(64 * n);
    int val = (int)(tu_rand64() & 1);
    while (bit < total) {
        unsigned run = 1 + (unsigned)(tu_rand64() % 96);
        for (unsigned i = 0; i < run && bit < total; i++, bit++)
            if (val)
                out[bit / 64] |= 1ULL << (bit % 64);
        val ^= 1;
    }
}

void tu_rand_below(uint64_t *out, const uint64_t *mod, size_t n) {
    unsigned kind = (unsigned)(tu_rand64() % 16);
    if (kind == 0) { /* small values and zero */
        memset(out, 0, n * sizeof *out);
        out[0] = tu_rand64() % 4;
        return;
    }
    if (kind == 1) { /* p - small */
        uint64_t k = 1 + tu_rand64() % 4, borrow = k;
        for (size_t i = 0; i < n; i++) {
            uint64_t m = mod[i];
            out[i] = m - borrow;
            borrow = m < borrow;
        }
        return;
    }
    size_t top_bits = 64;
    while (top_bits > 0 && !(mod[n - 1] >> (top_bits - 1)))
        top_bits--;
    do {
        if (kind < 6)
            rand_runs(out, n);
        else
            for (size_t i = 0; i < n; i++)
                out[i] = tu_rand64();
        if (top_bits < 64)
            out[n - 1] &= (1ULL << top_bits) - 1;
    } while (!lt(out, mod, n));
}

void tu_check(int ok, const char *file, int line, const char *fmt, ...) {
    if (ok) {
        tu_passed++;
        return;
    }
    tu_failed++;
    if (tu_failed <= 50) {
        va_list ap;
        fprintf(stderr, "FAIL %s:%d: ", file, line);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, " (seed %llu)\n", (unsigned long long)tu_seed_value);
    }
}

int tu_finish(void) {
    printf("%s: %lu passed, %lu failed\n", tu_name, tu_passed, tu_failed);
    /* A program that checked nothing proved nothing: a lost loop or an
     * early return must not read as a pass. */
    if (!tu_passed && !tu_failed) {
        fprintf(stderr, "FAIL %s: no check ran\n", tu_name);
        return 1;
    }
    return tu_failed ? 1 : 0;
}

int tu_require_all(void) {
    const char *s = getenv("CUZK_REQUIRE_ALL");
    return s && !strcmp(s, "1");
}

const char *tu_source_dir(void) {
    const char *s = getenv("CUZK_SOURCE_DIR");
    return s ? s : ".";
}

uint8_t *tu_read_file(const char *path, size_t *size) {
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    uint8_t *p = n >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)n + 1) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    if (p) {
        p[n] = 0;
        *size = (size_t)n;
    }
    return p;
}

/* Whether the NVIDIA driver lists a device (`nvidia-smi -L` prints a "GPU
 * N: ..." line).  CUZK_EXPECT_GPU=1 or 0 overrides the probe. */
static int nvidia_device_listed(void) {
    const char *e = getenv("CUZK_EXPECT_GPU");
    if (e && *e)
        return strcmp(e, "0") != 0;
    FILE *p = popen("nvidia-smi -L 2>/dev/null", "r");
    if (p == NULL)
        return 0;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, p))
        if (strncmp(line, "GPU ", 4) == 0)
            found = 1;
    pclose(p);
    return found;
}

int tu_gpu_present(void) {
#ifdef CUZK_HAVE_CUDA
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0 && cuzk_gpu_device_count() > 0)
        return 1;
    char why[256];
    if (e != cudaSuccess)
        snprintf(why, sizeof why, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
    else
        snprintf(why, sizeof why, "cudaGetDeviceCount: %d devices, cuzk_gpu_device_count: %d", n,
                 cuzk_gpu_device_count());
    if (nvidia_device_listed()) {
        /* A driver that lists a device while the CUDA runtime cannot use it
         * is a broken set-up (e.g. a driver older than the toolkit), never
         * a reason to skip. */
        CHECK(0, "nvidia-smi lists an NVIDIA device but CUDA cannot use it: %s", why);
        exit(tu_finish());
    }
    printf("no GPU: skipped (%s)\n", why);
#else
    if (nvidia_device_listed())
        printf("no GPU: skipped (built without CUDA, although nvidia-smi lists a device)\n");
    else
        printf("no GPU: skipped (built without CUDA)\n");
#endif
    return 0;
}

cuzk_fr *tu_public_of(const cuzk_wtns *w, size_t n_pub) {
    cuzk_fr *pub = malloc((n_pub + 1) * sizeof *pub);
    if (pub && cuzk_wtns_to_mont(w, pub, 1, n_pub, NULL) != CUZK_OK) {
        free(pub);
        return NULL;
    }
    return pub;
}

int tu_gen_keyed(int curve, unsigned log2, cuzk_pool *pool, cuzk_r1cs *r1cs, cuzk_fr **wit,
                 uint8_t **zkey, size_t *zsize, cuzk_error *err) {
    cuzk_synth_params sp;
    cuzk_synth_params_default(&sp, (cuzk_curve)curve);
    sp.log2_domain = log2;
    sp.seed = tu_rand64();
    uint64_t seed = tu_rand64();
    *wit = NULL;
    *zkey = NULL;
    if (cuzk_synth_circuit(&sp, r1cs, wit, err) != CUZK_OK)
        return 0;
    return cuzk_setup_dev_zkey_mem(r1cs, &seed, pool, zkey, zsize, err) == CUZK_OK;
}

#ifdef CUZK_HAVE_CUDA
cuzk_gpu_ctx *tu_gpu_ctx(void) {
    cuzk_gpu_ctx *ctx = NULL;
    cuzk_error err = {0};
    if (cuzk_gpu_ctx_create(0, &ctx, &err) != CUZK_OK)
        CHECK(0, "GPU context on device 0: %s", err.msg);
    return ctx;
}
#endif

int tu_gpu_main(int argc, char **argv, const tu_gpu_test *t) {
    tu_init(argc, argv, t->name);
    if (!tu_gpu_present())
        return 77;
#ifdef CUZK_HAVE_CUDA
    if (!(*t->ctx = tu_gpu_ctx()))
        return tu_finish();
    if (t->stream)
        *t->stream = cuzk_gpu_ctx_stream(*t->ctx);
    const char *e = t->max_log_env ? getenv(t->max_log_env) : NULL;
    if (e && *e)
        *t->max_log = (unsigned)atoi(e);
    if (!t->setup || t->setup()) {
        tu_run_curves(t->curves, t->n_curves);
        if (t->teardown)
            t->teardown();
    }
    cuzk_gpu_ctx_destroy(*t->ctx);
    *t->ctx = NULL;
#endif
    return tu_finish();
}

void tu_run_curves(const tu_curve *curves, size_t n) {
    const char *only = getenv("CUZK_TEST_CURVE");
    size_t ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (only && *only && strcmp(only, curves[i].name) != 0)
            continue;
        unsigned long before = tu_passed + tu_failed;
        curves[i].run(&curves[i]);
        printf("%s: %s: %lu checks\n", tu_name, curves[i].name,
               tu_passed + tu_failed - before);
        fflush(stdout);
        ran++;
    }
    if (ran == 0) /* counted only when it fails: pass counts stay those of the curves */
        CHECK(0, "CUZK_TEST_CURVE=%s names none of the %zu curves of this test", only ? only : "",
              n);
}
