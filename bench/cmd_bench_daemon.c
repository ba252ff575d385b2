/*
 * cuzk bench single|batch|stress: a running cuzkd under load, through its
 * HTTP API (docs/API.md), the way real clients use it.
 *
 *   single   one proof at a time, N times: the latency of an idle daemon
 *   batch    N proofs from J concurrent clients (threads, each with its own
 *            connection), optionally split over P processes (fork)
 *   stress   J clients submit for S seconds with random priorities and, given
 *            several key/witness pairs, mixed circuit sizes
 *
 * Reports throughput, latency percentiles (submit to result received), the
 * intake (bytes sent per submit, submit times, MB/s), failures grouped by
 * error, and each daemon device's busy / starved /
 * idle-with-work split over the run (deltas of /v1/status).  --verify checks
 * every proof on the client with the key's vk and compares its public
 * signals with the witness's.  Prints figures; never a test by itself.
 *
 * Records flow one way: workers -> sink.  In a forked client process the
 * sink writes one line per job to a pipe (one write() each, shorter than
 * PIPE_BUF, so concurrent threads need no lock) and the parent folds them
 * into its own sink.
 */
#include "bench/bench_daemon.h"
#include "cli/commands.h"

static const char *help =
    "usage: cuzk bench single [-n N] ...\n"
    "       cuzk bench batch  [-n N] [-j J] [--procs P] ...\n"
    "       cuzk bench stress [--duration S] [-j J] [--procs P] ...\n"
    "  circuits (one or more pairs, used round-robin; stress picks at random):\n"
    "    --key PATH_OR_ID --witness W.wtns   a .zkey (or a key id the daemon\n"
    "                                        knows) and a witness for it\n"
    "    --gen [--curve C] --log2 K ...      generate a synthetic circuit, an\n"
    "                                        INSECURE dev key and a witness per\n"
    "                                        --log2 (with the --curve before it)\n"
    "    --dir DIR                           keep generated files in DIR\n"
    "    --zkey PATH_OR_ID --input IN.json [--circuit C.wasm]\n"
    "                                        send circom inputs instead of a\n"
    "                                        witness (the daemon computes it with\n"
    "                                        C.wasm, or the key's circuit)\n"
    "  -n N             proofs (single: 10, batch: 100)\n"
    "  -j J             concurrent clients (batch, stress: 4)\n"
    "  --procs P        split the clients over P processes (default 1)\n"
    "  --duration S     stress: seconds of submitting (default 10)\n"
    "  --priority P     batch/single priority (default normal)\n"
    "  --verify         verify every proof here (invalid ones are failures)\n"
    "  --upload         send witness bytes even on a unix socket (TCP always does)\n"
    "  --timeout S      per job (default 600)\n"
    "  --json FILE      also write the figures as JSON\n"
    "Every job has a unique request id; a submission answered with 429 (too many\n"
    "jobs of this client) is retried after a short pause and counted.  Jobs and\n"
    "proofs/s count the submits the daemon answered; submits that never reached\n"
    "it (no connection, connection lost) are reported apart.  A simulated device\n"
    "(devices = sim:...) returns no proofs: its jobs count as done (not with\n"
    "--verify).\n";

#if CLI_HAVE_DAEMON

/* snprintf where cutting the text short is intended (labels, error kinds). */
__attribute__((format(printf, 3, 4))) static void fmt_trunc(char *dst, size_t n,
                                                            const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

/* ---- sink ----------------------------------------------------------------- */

static void sink_fail_kind(bench_sink *s, const char *text) {
    unsigned i;
    for (i = 0; i < s->n_fails; i++)
        if (!strcmp(s->fails[i].text, text))
            break;
    if (i == s->n_fails) {
        if (s->n_fails == MAX_FAIL_KINDS)
            i = MAX_FAIL_KINDS - 1, text = "(other errors)";
        else
            s->n_fails++;
        snprintf(s->fails[i].text, ERR_TEXT, "%s", text);
    }
    s->fails[i].count++;
}

static void sink_add(bench_sink *s, const bench_rec *r, unsigned retries, const char *err) {
    if (s->fd >= 0) {
        char line[ERR_TEXT + 96];
        int n = snprintf(line, sizeof line, "R %u %u %u %.9f %.9f %llu %llu %u %s\n", r->status,
                         r->prio, r->pair, r->latency_s, r->submit_s,
                         (unsigned long long)r->bytes, (unsigned long long)r->job_id, retries,
                         err ? err : "");
        if (n > 0 && write(s->fd, line, (size_t)n) < 0)
            perror("cuzk bench: pipe");
        return;
    }
    pthread_mutex_lock(&s->mu);
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        bench_rec *nr = realloc(s->recs, cap * sizeof *nr);
        if (nr)
            s->recs = nr, s->cap = cap;
    }
    if (s->n < s->cap)
        s->recs[s->n++] = *r;
    s->retries += retries;
    s->unreached += r->status == 3;
    if (r->status) {
        s->failed++;
        s->invalid += r->status == 2;
        sink_fail_kind(s, err && err[0] ? err : "unknown");
    }
    pthread_mutex_unlock(&s->mu);
}

/* A line from a child process (see sink_add). */
static void sink_add_line(bench_sink *s, char *line) {
    unsigned st, prio, pair, retries;
    double lat, sub;
    unsigned long long job, bytes;
    int off = 0;
    if (sscanf(line, "R %u %u %u %lf %lf %llu %llu %u %n", &st, &prio, &pair, &lat, &sub, &bytes,
               &job, &retries, &off) < 8 ||
        off == 0)
        return;
    bench_rec r = {.latency_s = lat, .submit_s = sub, .bytes = bytes, .job_id = job,
                   .status = (unsigned char)st, .prio = (unsigned char)prio,
                   .pair = (unsigned char)pair};
    sink_add(s, &r, retries, line + off);
}

static size_t sink_count(bench_sink *s) {
    pthread_mutex_lock(&s->mu);
    size_t n = s->n;
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* ---- one job ----------------------------------------------------------------- */

/* A failure's kind: its text with the job's request id taken out, so that
 * the same error of different jobs is counted together. */
static void fail_text(char *out, const char *phase, const char *msg, const char *rid) {
    char buf[CUZK_ERROR_MSG_BYTES + 32];
    const char *hit = rid && rid[0] ? strstr(msg, rid) : NULL;
    if (hit)
        snprintf(buf, sizeof buf, "%.*s*%s", (int)(hit - msg), msg, hit + strlen(rid));
    else
        snprintf(buf, sizeof buf, "%s", msg);
    fmt_trunc(out, ERR_TEXT, "%s: %s", phase, buf);
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
}

/* Does the result hold a valid proof of |pair|'s witness? */
static int check_proof(const bench_pair *pair, const json_t *result, int verify, char *why) {
    cuzk_error err = {0};
    cuzk_proof_bytes proof;
    uint8_t *pub = NULL;
    size_t n_pub = 0;
    int ok = 0;
    if (json_is_true(json_object_get(result, "simulated"))) {
        if (!verify)
            return 1;
        snprintf(why, ERR_TEXT, "result: a simulated device made no proof to verify");
        return 0;
    }
    if (json_array_size(json_object_get(result, "proofs")) != 1) {
        snprintf(why, ERR_TEXT, "result: expected 1 proof, got %zu",
                 json_array_size(json_object_get(result, "proofs")));
        return 0;
    }
    if (!verify)
        return 1;
    if (cli_result_proof(result, 0, &proof, &pub, &n_pub, &err) != CUZK_OK) {
        fail_text(why, "invalid proof", err.msg, NULL);
        goto out;
    }
    /* The public signals must be the witness's own w[1..n_pub] (inputs:
     * the daemon computed the witness; the vk check below decides). */
    for (size_t i = 0; pair->w_open && i < n_pub; i++) {
        if (i >= pair->n_expect ||
            memcmp(pair->expect + i * CUZK_SCALAR_BYTES, pub + i * CUZK_SCALAR_BYTES,
                   CUZK_SCALAR_BYTES) != 0) {
            snprintf(why, ERR_TEXT, "invalid proof: public signal %zu is not the witness's", i);
            goto out;
        }
    }
    if (cuzk_verify(pair->vk, &proof, pub, n_pub, &err) != CUZK_OK) {
        fail_text(why, "invalid proof", err.msg, NULL);
        goto out;
    }
    ok = 1;
out:
    free(pub);
    return ok;
}

/* Submit (retrying 429), await, check.  Fills |rec| and |why|. */
static void run_job(bench_ctx *ctx, cli_conn *c, const char *rid, unsigned pair_i, int prio,
                    bench_rec *rec, unsigned *retries, char *why) {
    const bench_opts *o = ctx->o;
    const bench_pair *pair = &o->pairs[pair_i];
    cli_job_req req = {.key = pair->key, .priority = prio_names[prio], .request_id = rid};
    if (pair->is_input) {
        req.input_json = pair->input, req.input_len = pair->input_len;
        req.circuit = pair->circuit[0] ? pair->circuit : NULL;
        rec->bytes = pair->input_len;
    } else if (pair->data) {
        req.witness_data = pair->data, req.witness_len = pair->len;
        rec->bytes = pair->len;
    } else
        req.witness_path = pair->wtns;
    cuzk_error err = {0};
    cli_job_ref ref;
    json_t *result = NULL;
    uint64_t t0 = cli_now_ns(), end = t0 + (uint64_t)(o->timeout_s * 1e9);
    unsigned backoff_ms = 5;
    cuzk_status st;
    rec->status = 1, rec->prio = (unsigned char)prio, rec->pair = (unsigned char)pair_i;
    why[0] = 0;
    uint64_t ts = t0;
    while ((st = cli_job_submit(c, &req, &ref, NULL, &err)) != CUZK_OK && ref.code == 429 &&
           cli_now_ns() < end) {
        (*retries)++;
        usleep(backoff_ms * 1000);
        backoff_ms = backoff_ms < 200 ? 2 * backoff_ms : 200;
        ts = cli_now_ns();
    }
    rec->submit_s = (cli_now_ns() - ts) / 1e9;
    if (st != CUZK_OK) {
        if (!ref.code)
            rec->status = 3; /* never reached the daemon: not one of its jobs */
        fail_text(why, "submit", err.msg, rid);
        goto out;
    }
    rec->job_id = ref.job_id;
    if (ref.attached) {
        snprintf(why, ERR_TEXT, "submit: a unique request id attached to an existing job");
        goto out;
    }
    uint64_t now = cli_now_ns();
    long left_ms = now < end ? (long)((end - now) / 1000000) : 1;
    st = cli_job_await(c, ref.request_id, left_ms > 0 ? left_ms : 1, &result, &err);
    if (st != CUZK_OK) {
        fail_text(why, "job", err.msg, ref.request_id);
        if (st == CUZK_ETIMEOUT && strstr(err.msg, "still running"))
            cli_job_cancel(c, ref.request_id, &err);
        goto out;
    }
    rec->latency_s = (cli_now_ns() - t0) / 1e9;
    rec->status = check_proof(pair, result, o->verify, why) ? 0 : 2;
out:
    if (rec->status && !rec->latency_s)
        rec->latency_s = (cli_now_ns() - t0) / 1e9;
    json_decref(result);
}

typedef struct worker_arg {
    bench_ctx *ctx;
    unsigned tid;
} worker_arg;

static void *worker(void *p) {
    worker_arg *wa = p;
    bench_ctx *ctx = wa->ctx;
    const bench_opts *o = ctx->o;
    char sfx[32], rid[128], why[ERR_TEXT];
    cuzk_error err = {0};
    snprintf(sfx, sizeof sfx, "%u", ctx->proc * 1000 + wa->tid);
    /* Its own client id, so the daemon's per-client limit applies per worker. */
    cli_conn *c = cli_connect(&o->d, sfx, &err);
    unsigned seed = (unsigned)(cli_now_ns() ^ ((uint64_t)getpid() << 16) ^ wa->tid);
    int stress = !strcmp(o->mode, "stress");
    for (unsigned seq = 0;; seq++) {
        unsigned idx = 0;
        if (stress) {
            if (cli_now_ns() >= ctx->stop_ns)
                break;
        } else if ((idx = atomic_fetch_add(&ctx->next, 1)) >= ctx->jobs)
            break;
        snprintf(rid, sizeof rid, "%s-%u-%u", ctx->rid_prefix, wa->tid, seq);
        unsigned pair = stress ? (unsigned)rand_r(&seed) % o->n_pairs : idx % o->n_pairs;
        int prio = stress ? rand_r(&seed) % 4 : o->prio;
        bench_rec rec = {0};
        unsigned retries = 0;
        if (!c) {
            rec.status = 1, fail_text(why, "connect", err.msg, NULL);
            sink_add(ctx->sink, &rec, 0, why);
            break;
        }
        run_job(ctx, c, rid, pair, prio, &rec, &retries, why);
        sink_add(ctx->sink, &rec, retries, rec.status ? why : NULL);
        /* A stress run against a failing daemon must not become a busy loop. */
        if (stress && rec.status)
            usleep(10000);
    }
    cli_conn_free(c);
    atomic_fetch_sub(&ctx->running, 1);
    return NULL;
}

/* ---- progress and the run ------------------------------------------------------- */

static void progress(const bench_opts *o, bench_sink *s, uint64_t t0, uint64_t total, int last) {
    size_t done = sink_count(s);
    double el = (cli_now_ns() - t0) / 1e9;
    if (!cli_stderr_tty()) {
        if (last)
            fprintf(stderr, "bench %s: %zu jobs done, %llu failed, %llu never reached the daemon, "
                            "%.2f s\n",
                    o->mode, done - (size_t)s->unreached,
                    (unsigned long long)(s->failed - s->unreached),
                    (unsigned long long)s->unreached, el);
        return;
    }
    int stress = !strcmp(o->mode, "stress");
    double frac = stress ? el / o->duration_s : total ? (double)done / total : 1;
    if (frac > 1)
        frac = 1;
    char bar[31];
    int fill = (int)(frac * 30);
    for (int i = 0; i < 30; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[30] = 0;
    if (stress)
        fprintf(stderr, "\r[%s] %5.1f/%.0f s %6zu done %4llu failed %7.1f/s ", bar, el,
                o->duration_s, done, (unsigned long long)s->failed, el > 0 ? done / el : 0);
    else
        fprintf(stderr, "\r[%s] %6zu/%llu %4llu failed %7.1f/s ", bar, done,
                (unsigned long long)total, (unsigned long long)s->failed,
                el > 0 ? done / el : 0);
    if (last)
        fputc('\n', stderr);
}

/* Run |threads| workers in this process until the work is done. */
static void run_threads(bench_ctx *ctx, unsigned threads, int show, uint64_t t0, uint64_t total) {
    pthread_t *th = calloc(threads, sizeof *th);
    worker_arg *args = calloc(threads, sizeof *args);
    unsigned started = 0;
    atomic_store(&ctx->running, threads);
    for (unsigned t = 0; th && args && t < threads; t++) {
        args[t] = (worker_arg){ctx, t};
        if (pthread_create(&th[t], NULL, worker, &args[t]) != 0)
            break;
        started++;
    }
    atomic_fetch_sub(&ctx->running, threads - started);
    while (atomic_load(&ctx->running) > 0) {
        usleep(200000);
        if (show)
            progress(ctx->o, ctx->sink, t0, total, 0);
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(th);
    free(args);
}

static unsigned share(unsigned total, unsigned parts, unsigned k) {
    return total / parts + (k < total % parts);
}

/* Fork |o->procs| client processes; collect their records in |sink|. */
static int run_procs(const bench_opts *o, bench_ctx *base, bench_sink *sink, uint64_t t0,
                     uint64_t total) {
    unsigned P = o->procs;
    pid_t *pids = calloc(P, sizeof *pids);
    struct pollfd *pf = calloc(P, sizeof *pf);
    char **buf = calloc(P, sizeof *buf);
    size_t *blen = calloc(P, sizeof *blen);
    int rc = 0;
    if (!pids || !pf || !buf || !blen)
        return -1;
    fflush(NULL);
    for (unsigned k = 0; k < P; k++) {
        int fds[2];
        if (pipe(fds) != 0 || !(buf[k] = malloc(8192)))
            return -1;
        pid_t pid = fork();
        if (pid < 0)
            return -1;
        if (pid == 0) {
            close(fds[0]);
            for (unsigned m = 0; m < k; m++)
                close(pf[m].fd);
            bench_sink child = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = fds[1]};
            bench_ctx ctx = *base;
            ctx.sink = &child;
            ctx.proc = k + 1;
            ctx.jobs = share(o->n, P, k);
            atomic_store(&ctx.next, 0);
            fmt_trunc(ctx.rid_prefix, sizeof ctx.rid_prefix, "%s-p%u", base->rid_prefix, k);
            run_threads(&ctx, share(o->j, P, k), 0, t0, total);
            close(fds[1]);
            _exit(0);
        }
        close(fds[1]);
        pids[k] = pid;
        pf[k] = (struct pollfd){.fd = fds[0], .events = POLLIN};
    }
    uint64_t shown = 0;
    for (unsigned open = P; open > 0;) {
        int n = poll(pf, P, 200);
        if (n < 0 && errno != EINTR)
            break;
        for (unsigned k = 0; n > 0 && k < P; k++) {
            if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t r = read(pf[k].fd, buf[k] + blen[k], 8191 - blen[k]);
            if (r <= 0) {
                close(pf[k].fd);
                pf[k].fd = -1;
                open--;
                continue;
            }
            blen[k] += (size_t)r;
            buf[k][blen[k]] = 0;
            char *line = buf[k], *nl;
            while ((nl = strchr(line, '\n'))) {
                *nl = 0;
                sink_add_line(sink, line);
                line = nl + 1;
            }
            blen[k] -= (size_t)(line - buf[k]);
            memmove(buf[k], line, blen[k]);
        }
        if (cli_stderr_tty() && cli_now_ns() - shown > 100000000) {
            progress(o, sink, t0, total, 0);
            shown = cli_now_ns();
        }
    }
    for (unsigned k = 0; k < P; k++) {
        int ws = 0;
        if (waitpid(pids[k], &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            fprintf(stderr, "cuzk bench: client process %u did not finish cleanly\n", k);
            rc = -1;
        }
        free(buf[k]);
    }
    free(pids), free(pf), free(buf), free(blen);
    return rc;
}
/* ---- circuits ----------------------------------------------------------------------- */

static int gen_pair(bench_opts *o, cuzk_curve curve, unsigned log2, const char *dir,
                    unsigned threads) {
    bench_pair *p = &o->pairs[o->n_pairs];
    const char *cn = cuzk_curve_snarkjs_name(curve);
    cuzk_error err = {0};
    bench_circuit c = {curve, log2, NULL, -1, 0};
    snprintf(p->label, sizeof p->label, "%s 2^%u", cn, log2);
    fprintf(stderr, "bench: %s 2^%u: generating circuit and INSECURE dev key in %s\n", cn, log2,
            dir);
    if (bench_circuit_write(&c, dir, "bench", p->key, p->wtns, sizeof p->key, threads, &err) !=
        CUZK_OK)
        return cli_fail("bench", "generate", &err);
    o->n_pairs++;
    return 0;
}

/* Circuits are named by their key file's name; two keys of one name in
 * different folders (a/circuit.zkey, b/circuit.zkey) would share a line of
 * the report, so those are named by their whole path (its last 63 bytes
 * when longer), and keys that still share a label get "#n" added. */
static void unique_labels(bench_opts *o) {
    unsigned char clash[MAX_PAIRS] = {0};
    for (unsigned i = 0; i < o->n_pairs; i++)
        for (unsigned j = 0; j < o->n_pairs; j++)
            if (i != j && !strcmp(o->pairs[i].label, o->pairs[j].label) &&
                strcmp(o->pairs[i].key, o->pairs[j].key))
                clash[i] = 1;
    for (unsigned i = 0; i < o->n_pairs; i++) {
        bench_pair *a = &o->pairs[i];
        size_t n = strlen(a->key);
        if (clash[i])
            fmt_trunc(a->label, sizeof a->label, "%s%s",
                      n >= sizeof a->label ? a->key + n - (sizeof a->label - 1) : a->key,
                      a->is_input ? " (inputs)" : "");
    }
    for (unsigned i = 0; i < o->n_pairs; i++)
        for (unsigned j = 0; j < i; j++)
            if (!strcmp(o->pairs[i].label, o->pairs[j].label) &&
                strcmp(o->pairs[i].key, o->pairs[j].key)) {
                char base[sizeof o->pairs[i].label];
                snprintf(base, sizeof base, "%s", o->pairs[i].label);
                fmt_trunc(o->pairs[i].label, sizeof o->pairs[i].label, "%.56s #%u", base, i + 1);
                break;
            }
}

/* Everything a pair needs before the run: absolute paths, the witness
 * (open for the public signals, mapped for uploads) and the vk. */
static int prepare_pair(const bench_opts *o, bench_pair *p, cli_conn *c, int upload) {
    cuzk_error err = {0};
    char abs[PATH_MAX];
    if (realpath(p->key, abs))
        snprintf(p->key, sizeof p->key, "%s", abs);
    else if (strchr(p->key, '/')) {
        fprintf(stderr, "cuzk bench: %s: no such file\n", p->key);
        return 1;
    }
    if (!realpath(p->wtns, abs)) {
        fprintf(stderr, "cuzk bench: %s: no such file\n", p->wtns);
        return 1;
    }
    snprintf(p->wtns, sizeof p->wtns, "%s", abs);
    if (!p->label[0]) {
        const char *b = strrchr(p->key, '/');
        fmt_trunc(p->label, sizeof p->label, "%s%s", b ? b + 1 : p->key,
                  p->is_input ? " (inputs)" : "");
    }
    if (p->circuit[0]) {
        if (!p->is_input) {
            fprintf(stderr, "cuzk bench: --circuit goes with --input\n");
            return 1;
        }
        if (!realpath(p->circuit, abs)) {
            fprintf(stderr, "cuzk bench: %s: no such file\n", p->circuit);
            return 1;
        }
        snprintf(p->circuit, sizeof p->circuit, "%s", abs);
    }
    if (p->is_input) {
        /* Sent as it is, by every job of this pair. */
        FILE *f = fopen(p->wtns, "rb");
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (p->input = malloc((size_t)n + 1)) && fread(p->input, 1, (size_t)n, f) == (size_t)n)
            p->input_len = (size_t)n;
        else
            n = -1;
        if (f)
            fclose(f);
        if (n < 0) {
            fprintf(stderr, "cuzk bench: %s: cannot read\n", p->wtns);
            return 1;
        }
    } else {
        /* Checked here: a bad witness stops the bench before it starts.
         * Uploads send the file's bytes as they are. */
        cuzk_curve wc;
        uint64_t nw;
        size_t len = 0;
        if ((upload && cli_read_file(p->wtns, &p->wdata, &len, &err)) ||
            cuzk_wtns_inspect(&wc, &nw, upload ? NULL : p->wtns, p->wdata, len, &err) != CUZK_OK)
            return cli_fail("bench", p->wtns, &err);
        p->w_open = 1;
        if (upload)
            p->data = p->wdata, p->len = len;
    }
    if (o->verify) {
        if (cli_key_vk(c, p->key, &p->vk, &err) != CUZK_OK)
            return cli_fail("bench", p->key, &err);
        p->n_expect = cuzk_vk_n_public(p->vk);
        if (p->w_open &&
            (!(p->expect = malloc(p->n_expect * CUZK_SCALAR_BYTES + 1)) ||
             cuzk_wtns_public_bytes(p->wtns, NULL, p->expect, p->n_expect, &err) != CUZK_OK))
            return cli_fail("bench", p->wtns, &err);
    }
    return 0;
}

static void release_pairs(bench_opts *o, int remove_files) {
    for (unsigned i = 0; i < o->n_pairs; i++) {
        bench_pair *p = &o->pairs[i];
        free(p->wdata);
        p->wdata = NULL;
        free(p->expect);
        p->expect = NULL;
        free(p->input);
        p->input = NULL;
        cuzk_vk_release(p->vk);
        p->vk = NULL;
        if (remove_files) {
            char r1cs[PATH_MAX];
            snprintf(r1cs, sizeof r1cs, "%.*s.r1cs", (int)(strlen(p->key) - 5), p->key);
            unlink(r1cs), unlink(p->key), unlink(p->wtns);
        }
    }
}

/* ---- options ------------------------------------------------------------------------ */

typedef struct gen_req {
    cuzk_curve curve[MAX_PAIRS];
    unsigned log2[MAX_PAIRS], n;
} gen_req;

static int needs_value(const char *a) {
    fprintf(stderr, "cuzk bench: %s needs a value\n", a);
    return 2;
}

/* One option with a value; 0, or 2 on a usage error (printed). */
static int parse_valued(bench_opts *o, gen_req *g, cuzk_curve *curve, unsigned *n_keys,
                        unsigned *n_wtns, const char *a, const char *v) {
    if (!strcmp(a, "--key") || !strcmp(a, "--zkey") || !strcmp(a, "--witness") ||
        !strcmp(a, "--input")) {
        int is_key = a[2] == 'k' || a[2] == 'z';
        unsigned *cnt = is_key ? n_keys : n_wtns;
        if (*cnt == MAX_PAIRS) {
            fprintf(stderr, "cuzk bench: at most %d key/witness pairs\n", MAX_PAIRS);
            return 2;
        }
        bench_pair *p = &o->pairs[(*cnt)++];
        snprintf(is_key ? p->key : p->wtns, PATH_MAX, "%s", v);
        if (!is_key)
            p->is_input = a[2] == 'i';
    } else if (!strcmp(a, "--circuit")) {
        /* The circuit of the pair whose input is given next (or was last). */
        unsigned k = *n_wtns && o->pairs[*n_wtns - 1].is_input && !o->pairs[*n_wtns - 1].circuit[0]
                         ? *n_wtns - 1
                         : *n_wtns;
        if (k >= MAX_PAIRS) {
            fprintf(stderr, "cuzk bench: at most %d key/witness pairs\n", MAX_PAIRS);
            return 2;
        }
        snprintf(o->pairs[k].circuit, PATH_MAX, "%s", v);
    } else if (!strcmp(a, "--curve")) {
        if ((*curve = cuzk_curve_from_name(v)) == CUZK_CURVE_NONE) {
            fprintf(stderr, "cuzk bench: unknown curve '%s'\n", v);
            return 2;
        }
    } else if (!strcmp(a, "--log2")) {
        if (g->n == MAX_PAIRS) {
            fprintf(stderr, "cuzk bench: at most %d circuits\n", MAX_PAIRS);
            return 2;
        }
        g->curve[g->n] = *curve, g->log2[g->n++] = (unsigned)atoi(v);
    } else if (!strcmp(a, "-n"))
        o->n = (unsigned)atoi(v);
    else if (!strcmp(a, "-j"))
        o->j = (unsigned)atoi(v);
    else if (!strcmp(a, "--procs"))
        o->procs = (unsigned)atoi(v);
    else if (!strcmp(a, "--duration"))
        o->duration_s = atof(v);
    else if (!strcmp(a, "--timeout"))
        o->timeout_s = atof(v);
    else if (!strcmp(a, "--json"))
        o->json_path = v;
    else if (!strcmp(a, "--dir"))
        o->dir = v;
    else if (!strcmp(a, "--priority")) {
        for (o->prio = 3; o->prio >= 0 && strcmp(v, prio_names[o->prio]); o->prio--)
            ;
        if (o->prio < 0) {
            fprintf(stderr, "cuzk bench: --priority wants low, normal, high or critical\n");
            return 2;
        }
    } else {
        fprintf(stderr, "cuzk bench: unknown option %s\n%s", a, help);
        return 2;
    }
    return 0;
}

static int parse(bench_opts *o, gen_req *g, int argc, char **argv) {
    cuzk_curve curve = CUZK_CURVE_BN254;
    unsigned n_keys = 0, n_wtns = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = cli_daemon_opt(&o->d, argc, argv, &i);
        if (r < 0)
            return needs_value(a);
        if (r > 0)
            continue;
        if (!strcmp(a, "--verify"))
            o->verify = 1;
        else if (!strcmp(a, "--upload"))
            o->upload = 1;
        else if (!strcmp(a, "--gen"))
            o->gen = 1;
        else if (i + 1 >= argc)
            return needs_value(a);
        else if ((r = parse_valued(o, g, &curve, &n_keys, &n_wtns, a, argv[++i])) != 0)
            return r;
    }
    if (n_keys != n_wtns || (o->gen ? n_keys != 0 : n_keys == 0)) {
        fprintf(stderr, "cuzk bench: give --key/--witness (or --zkey/--input) pairs, or --gen\n");
        return 2;
    }
    if (o->gen && g->n == 0) /* --gen alone: one 2^10 circuit of the curve */
        g->curve[0] = curve, g->log2[0] = 10, g->n = 1;
    o->n_pairs = n_keys;
    if (!strcmp(o->mode, "single"))
        o->j = 1, o->procs = 1;
    if (!o->n || !o->j || !o->procs || o->duration_s <= 0 || o->timeout_s <= 0) {
        fprintf(stderr, "cuzk bench: -n, -j, --procs, --duration and --timeout must be > 0\n");
        return 2;
    }
    if (o->procs > o->j)
        o->procs = o->j;
    return 0;
}

/* ---- the command ------------------------------------------------------------------ */

static json_t *daemon_status(cli_conn *c) {
    cuzk_error err = {0};
    json_t *s = cli_request_json(c, "GET", "/v1/status", NULL, 30000, NULL, &err);
    if (!s)
        fprintf(stderr, "cuzk bench: status: %s\n", err.msg);
    return s;
}

static int bench_run(bench_opts *o, cli_conn *c) {
    bench_sink sink = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};
    bench_ctx ctx = {.o = o, .sink = &sink};
    int stress = !strcmp(o->mode, "stress");
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = 0;
    /* Unique across hosts, processes and runs: host, pid, start time. */
    snprintf(ctx.rid_prefix, sizeof ctx.rid_prefix, "bench-%.40s-%ld-%llx", host, (long)getpid(),
             (unsigned long long)(cli_now_ns() / 1000000));
    printf("bench %s via %s: ", o->mode, cli_conn_addr(c)->text);
    if (stress)
        printf("%.1f s, ", o->duration_s);
    else
        printf("%u jobs, ", o->n);
    printf("%u clients in %u process%s; circuits:", o->j, o->procs, o->procs > 1 ? "es" : "");
    for (unsigned i = 0; i < o->n_pairs; i++)
        printf("%s %s", i ? "," : "", o->pairs[i].label);
    printf("\n");
    fflush(stdout);
    json_t *before = daemon_status(c);
    uint64_t t0 = cli_now_ns();
    uint64_t total = stress ? 0 : o->n;
    ctx.stop_ns = t0 + (uint64_t)(o->duration_s * 1e9);
    ctx.jobs = o->n;
    int rc = 0;
    if (o->procs > 1)
        rc = run_procs(o, &ctx, &sink, t0, total) ? 1 : 0;
    else
        run_threads(&ctx, o->j, cli_stderr_tty(), t0, total);
    double wall = (cli_now_ns() - t0) / 1e9;
    progress(o, &sink, t0, total, 1);
    json_t *after = before ? daemon_status(c) : NULL;
    /* A fleet node's status is a snapshot of the nodes' heartbeats (each
     * about a second apart): wait, a few seconds at most, until it counts
     * the run's jobs and stops growing. */
    double seen = -1;
    for (int i = 0; i < 10 && after && json_object_get(after, "fleet"); i++) {
        double now = bench_fleet_committed(before, after);
        if (now >= (double)sink.n - sink.failed && now == seen)
            break;
        seen = now;
        usleep(600000);
        json_t *again = daemon_status(c);
        if (!again)
            break;
        json_decref(after);
        after = again;
    }
    if (bench_daemon_report(o, &sink, wall, sink.n, before, after))
        rc = 1;
    if (!stress && sink.n != o->n) {
        fprintf(stderr, "cuzk bench: %zu of %u jobs accounted for\n", sink.n, o->n);
        rc = 1;
    }
    json_decref(before);
    json_decref(after);
    free(sink.recs);
    return rc || sink.failed ? 1 : 0;
}

#endif /* CLI_HAVE_DAEMON */

int cmd_bench_daemon(int argc, char **argv) {
#if !CLI_HAVE_DAEMON
    if (cli_wants_help(argc, argv)) {
        printf("%s%s(%s)\n", help, cli_daemon_opts_help, CLI_NO_DAEMON_TEXT);
        return 0;
    }
    fprintf(stderr, "cuzk bench %s: %s\n", argv[0], CLI_NO_DAEMON_TEXT);
    return 1;
#else
    if (cli_wants_help(argc, argv)) {
        printf("%s%s", help, cli_daemon_opts_help);
        return 0;
    }
    static bench_pair pairs[MAX_PAIRS];
    bench_opts o = {.mode = argv[0], .pairs = pairs, .n = !strcmp(argv[0], "single") ? 10 : 100,
                    .j = 4, .procs = 1, .duration_s = 10, .timeout_s = 600, .prio = 1};
    gen_req g = {0};
    int rc = parse(&o, &g, argc, argv);
    if (rc)
        return rc;
    signal(SIGPIPE, SIG_IGN);
    cuzk_error err = {0};
    cli_conn *c = cli_connect(&o.d, NULL, &err);
    if (!c) {
        fprintf(stderr, "cuzk bench: %s\n", err.msg);
        return 1;
    }
    char tmpl[] = "/tmp/cuzk-bench-XXXXXX";
    const char *dir = o.dir;
    int made_dir = 0;
    if (o.gen) {
        cuzk_error derr = {0};
        if (dir && bench_make_dirs(dir, &derr) != CUZK_OK) {
            fprintf(stderr, "cuzk bench: %s\n", derr.msg);
            rc = 1;
            goto out;
        }
        if (!dir && !(dir = mkdtemp(tmpl))) {
            perror("cuzk bench: mkdtemp");
            rc = 1;
            goto out;
        }
        made_dir = !o.dir;
        for (unsigned i = 0; i < g.n && !rc; i++)
            rc = gen_pair(&o, g.curve[i], g.log2[i], dir, 0);
    }
    int upload = o.upload || cli_conn_addr(c)->kind == CLI_ADDR_TCP;
    for (unsigned i = 0; i < o.n_pairs && !rc; i++)
        rc = prepare_pair(&o, &o.pairs[i], c, upload);
    if (!rc)
        unique_labels(&o);
    if (!rc)
        rc = bench_run(&o, c);
out:
    release_pairs(&o, made_dir);
    if (made_dir)
        rmdir(dir);
    cli_conn_free(c);
    return rc;
#endif
}
