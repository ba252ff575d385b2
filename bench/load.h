/*
 * The one home of what every load generator of cuzk shares: the bench
 * programs (bench/bench_*.c) and the `cuzk bench` subcommands
 * (bench/cmd_bench_prove.c, which also dispatches them,
 * bench/cmd_bench_engine.c, and bench/cmd_bench_daemon.c with its report
 * through bench/bench_daemon.h).
 *
 *   - synthetic circuits: a generated circuit (cuzk gen's generator) with
 *     its witness and an INSECURE development or timing key, as files;
 *   - statistics: one definition of percentiles and medians for every
 *     figure the benches print;
 *   - the per-device split of wall time (busy / starved / idle with work)
 *     that the engine and the daemon report, printed one way.
 *
 * Measurement only: nothing here is a test or asserts on time, and the
 * library never calls it.  Errors come back as cuzk_status with |err|
 * filled; nothing exits.
 */
#ifndef CUZK_BENCH_LOAD_H
#define CUZK_BENCH_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "cuzk_tools.h"

struct cuzk_pool;

/* Monotonic clock in seconds. */
double bench_now_s(void);

/* The CPU's model name from /proc/cpuinfo into out[n] ("unknown CPU" when
 * it cannot be read), for the machine line every bench prints. */
void bench_cpu_model(char *out, size_t n);

/* ---- statistics ----------------------------------------------------------- */

/* Summary of a set of values.  p50/p95/p99 are nearest-rank percentiles
 * (the smallest value with at least p% of the values at or below it);
 * median is the element at n/2 of the sorted values (the upper middle for
 * an even count), the definition every "median of N" figure in
 * docs/PERFORMANCE.md uses.  All zero when n = 0. */
typedef struct bench_stats {
    size_t n;
    double mean, min, median, p50, p95, p99, max;
} bench_stats;

/* Sorts |v| (n values) in place and fills |st|. */
void bench_stats_of(bench_stats *st, double *v, size_t n);
/* Nearest-rank percentile p (0..100] of |sorted| (n > 0 values). */
double bench_percentile(const double *sorted, size_t n, double p);
/* qsort comparators. */
int bench_cmp_double(const void *a, const void *b);
int bench_cmp_u64(const void *a, const void *b);

/* ---- synthetic circuits ----------------------------------------------------- */

typedef struct bench_circuit {
    cuzk_curve curve;
    unsigned log2;       /* 2^log2 constraints */
    const char *profile; /* generator profile (cuzk gen --profile); NULL: default */
    double bool_share;   /* share of boolean signals; < 0: the profile's */
    int timing_key;      /* a timing key: fast to make at any size, proofs do not verify */
} bench_circuit;

/* The generator's parameters for |c| (profile, size, boolean share).
 * CUZK_EINVAL: unknown profile. */
cuzk_status bench_circuit_params(const bench_circuit *c, cuzk_synth_params *sp, cuzk_error *err);

/*
 * Writes <dir>/<prefix>_<curve>_<log2>.wtns and .zkey for |c| (the .r1cs
 * made on the way is removed) and their paths into |wtns| and |zkey|
 * (|cap| bytes each).  The key is an INSECURE development key (fixed seed)
 * or a timing key.  CUZK_EINVAL (bad profile), the generator's and the
 * setup's errors (CUZK_EIO, CUZK_ENOMEM, ...).  |threads|: the setup's
 * threads (0: every online CPU).
 */
cuzk_status bench_circuit_write(const bench_circuit *c, const char *dir, const char *prefix,
                                char *zkey, char *wtns, size_t cap, unsigned threads,
                                cuzk_error *err);

/* --dir DIR of the benches: DIR and the folders above it are made (0700)
 * when they do not exist, as `mkdir -p` would; anything else in the way is
 * CUZK_EIO with a message naming the path and the reason. */
cuzk_status bench_make_dirs(const char *dir, cuzk_error *err);

/* ---- per-device split ------------------------------------------------------- */

/* One device's wall time over a run (deltas of its counters). */
typedef struct bench_split {
    const char *name;
    double busy_s;
    double starved_s; /* nothing ready while synthesis was behind */
    double idle_s;    /* no work at all; < 0: not known (then in starved_s) */
    double idle_with_work_s;
    double proofs; /* partitions proved */
} bench_split;

/* Prints one line: busy, starved (synthesis behind), idle (no work, when
 * known) and idle-with-work, in seconds and as shares of their sum, and
 * the partitions proved.  |indent| precedes it. */
void bench_split_print(const char *indent, const bench_split *d);

#endif
