/* Shared load generation and statistics of the benches (bench/load.h). */
#include "bench/load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


double bench_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void bench_cpu_model(char *out, size_t n) {
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                snprintf(out, n, "%s", c + 2);
                out[strcspn(out, "\n")] = 0;
            }
            break;
        }
    fclose(f);
}

int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int bench_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

double bench_percentile(const double *sorted, size_t n, double p) {
    size_t rank = (size_t)(p / 100.0 * (double)n + 0.999999999);
    if (rank < 1)
        rank = 1;
    return sorted[(rank > n ? n : rank) - 1];
}

void bench_stats_of(bench_stats *st, double *v, size_t n) {
    bench_stats z = {0};
    *st = z;
    st->n = n;
    if (!n)
        return;
    qsort(v, n, sizeof *v, bench_cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    st->mean = sum / (double)n;
    st->min = v[0], st->max = v[n - 1];
    st->median = v[n / 2];
    st->p50 = bench_percentile(v, n, 50);
    st->p95 = bench_percentile(v, n, 95);
    st->p99 = bench_percentile(v, n, 99);
}

cuzk_status bench_circuit_params(const bench_circuit *c, cuzk_synth_params *sp, cuzk_error *err) {
    cuzk_synth_params_default(sp, c->curve);
    cuzk_status st;
    if (c->profile && (st = cuzk_synth_params_profile(sp, c->profile, err)) != CUZK_OK)
        return st;
    sp->curve = c->curve;
    sp->log2_domain = c->log2;
    if (c->bool_share >= 0)
        sp->bool_share = c->bool_share;
    return CUZK_OK;
}

cuzk_status bench_circuit_write(const bench_circuit *c, const char *dir, const char *prefix,
                                char *zkey, char *wtns, size_t cap, unsigned threads,
                                cuzk_error *err) {
    char r1cs[4096];
    const char *cn = cuzk_curve_snarkjs_name(c->curve);
    snprintf(r1cs, sizeof r1cs, "%s/%s_%s_%u.r1cs", dir, prefix, cn, c->log2);
    snprintf(wtns, cap, "%s/%s_%s_%u.wtns", dir, prefix, cn, c->log2);
    snprintf(zkey, cap, "%s/%s_%s_%u.zkey", dir, prefix, cn, c->log2);
    cuzk_synth_params sp;
    cuzk_status st = bench_circuit_params(c, &sp, err);
    if (st != CUZK_OK)
        return st;
    uint64_t seed = 1;
    st = cuzk_synth_write(r1cs, wtns, &sp, err);
    if (st == CUZK_OK)
        st = c->timing_key ? cuzk_setup_timing(r1cs, zkey, seed, threads, err)
                           : cuzk_setup_dev(r1cs, zkey, &seed, threads, err);
    unlink(r1cs); /* only the key and the witness are kept */
    return st;
}

cuzk_status bench_make_dirs(const char *dir, cuzk_error *err) {
    char path[1024];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path)
        return cuzk_fail(err, CUZK_EIO, "--dir: %s", len ? "path too long" : "empty path");
    memcpy(path, dir, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char c = path[i];
        path[i] = '\0';
        struct stat st;
        if (mkdir(path, 0700) != 0 && errno != EEXIST)
            return cuzk_fail(err, CUZK_EIO, "--dir %s: cannot create %s: %s", dir, path,
                             strerror(errno));
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            return cuzk_fail(err, CUZK_EIO, "--dir %s: %s is not a folder", dir, path);
        path[i] = c;
    }
    return CUZK_OK;
}

void bench_split_print(const char *indent, const bench_split *d) {
    double idle = d->idle_s > 0 ? d->idle_s : 0;
    double tot = d->busy_s + d->starved_s + idle + d->idle_with_work_s;
    if (tot <= 0)
        tot = 1;
    printf("%sdevice %-12s busy %8.3f s (%5.1f%%)  starved %8.3f s (%5.1f%%%s)", indent, d->name,
           d->busy_s, 100 * d->busy_s / tot, d->starved_s, 100 * d->starved_s / tot,
           d->idle_s >= 0 ? ", synthesis behind" : ", with idle time");
    if (d->idle_s >= 0)
        printf("  idle %8.3f s (%5.1f%%, no work)", idle, 100 * idle / tot);
    printf("  idle-with-work %.6f s (%.3f%%)  %.0f partitions\n", d->idle_with_work_s,
           100 * d->idle_with_work_s / tot, d->proofs);
}
