/*
 * hello.c: a program that uses the installed libcuzk the way an embedder
 * would, built by tests/test_install.sh with nothing but
 * `pkg-config --cflags --libs cuzk`.  It includes only <cuzk.h> and calls
 * only exported functions: if the public header needed an internal one,
 * or the library failed to export a function the header declares, it would
 * not compile or link.
 *
 * Usage: hello KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json
 * Prints "cuzk VERSION" (cuzk_version()), proves the witness with an engine
 * of one CPU device, writes the proof and its public signals as snarkjs
 * JSON, and prints "proved: N partition(s)".  Exit status 0 on success, 1
 * (with the library's reason on stderr) on any failure, 2 on bad usage.
 */
#include <stdio.h>
#include <string.h>

#include <cuzk.h>

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return -1;
    }
    int bad = fputs(text, f) < 0;
    bad |= fclose(f) != 0;
    if (bad)
        fprintf(stderr, "hello: cannot write %s\n", path);
    return bad ? -1 : 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: hello KEY.zkey WITNESS.wtns PROOF.json PUBLIC.json\n");
        return 2;
    }
    printf("cuzk %s\n", cuzk_version());

    cuzk_engine_config cfg;
    cuzk_engine_config_default(&cfg);
    cfg.n_devices = 1;
    cfg.devices[0].kind = CUZK_DEVICE_CPU;
    cfg.devices[0].threads = 1;
    cfg.synth_workers = 1;
    cfg.synth_threads = 1;
    cfg.log_level = CUZK_LOG_WARN;

    cuzk_error err;
    memset(&err, 0, sizeof err);
    cuzk_engine *e = NULL;
    cuzk_status s = cuzk_engine_create(&e, &cfg, &err);
    if (s != CUZK_OK) {
        fprintf(stderr, "hello: engine: %s: %s\n", cuzk_status_text(s), err.msg);
        return 1;
    }

    cuzk_witness w;
    memset(&w, 0, sizeof w);
    w.path = argv[2];
    cuzk_submit_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.key = argv[1];
    opts.witnesses = &w;
    opts.n_witnesses = 1;
    cuzk_job *job = NULL;
    int rc = 1;
    s = cuzk_submit(e, &job, NULL, &opts, &err);
    if (s != CUZK_OK) {
        fprintf(stderr, "hello: submit: %s: %s\n", cuzk_status_text(s), err.msg);
        goto out;
    }
    /* Bounded: a proof of a small circuit takes well under a second. */
    s = cuzk_job_await(job, 120000, &err);
    if (s != CUZK_OK) {
        fprintf(stderr, "hello: job: %s: %s\n", cuzk_status_text(s), err.msg);
        goto out;
    }
    const char *proof = cuzk_job_proof_json(job, 0);
    const char *pub = cuzk_job_public_json(job, 0);
    if (!proof || !pub) {
        fprintf(stderr, "hello: the job is done but has no proof.json\n");
        goto out;
    }
    if (write_text(argv[3], proof) || write_text(argv[4], pub))
        goto out;
    printf("proved: %zu partition(s)\n", cuzk_job_partitions(job));
    rc = 0;
out:
    cuzk_job_release(job);
    cuzk_engine_destroy(e, -1);
    return rc;
}
