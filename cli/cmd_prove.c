/*
 * cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
 * The argument order of `snarkjs groth16 prove` and rapidsnark's prover.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/json.h"
#include "groth16/key.h"
#include "util/threadpool.h"

static const char *help =
    "usage: cuzk prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "Make a Groth16 proof with a snarkjs proving key and a circom witness, and\n"
    "write proof.json and public.json exactly as snarkjs does.\n"
    "options:\n"
    "  --cpu          prove on the CPU (the only backend in this build)\n"
    "  --threads N    CPU threads (default: all online CPUs)\n"
    "  --verify       check the proof with the key's verification key before\n"
    "                 writing it\n"
    "  -v             print the time of each step on stderr\n";

static void print_timing(const cuzk_groth16_timing *t, double load_s, double write_s) {
    fprintf(stderr,
            "cuzk prove: load %.3f s | evaluate %.3f | h (6 NTT) %.3f | msm A %.3f B1 %.3f "
            "B2 %.3f C %.3f H %.3f | assemble %.3f | prove total %.3f | write %.3f s\n",
            load_s, t->evaluate_ns / 1e9, t->h_ns / 1e9, t->msm_a_ns / 1e9, t->msm_b1_ns / 1e9,
            t->msm_b2_ns / 1e9, t->msm_c_ns / 1e9, t->msm_h_ns / 1e9, t->assemble_ns / 1e9,
            t->total_ns / 1e9, write_s);
}

int cmd_prove(int argc, char **argv) {
    const char *pos[4];
    int npos = 0, verify = 0;
    unsigned threads = 0;
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            cli_verbose++;
        else if (!strcmp(argv[i], "--cpu"))
            ;
        else if (!strcmp(argv[i], "--verify"))
            verify = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cuzk prove: unknown option %s\n%s", argv[i], help);
            return 2;
        } else if (npos < 4)
            pos[npos++] = argv[i];
        else
            npos = 5;
    }
    if (npos != 4) {
        fputs(help, stderr);
        return 2;
    }
    cuzk_error err = {0};
    cuzk_key key;
    cuzk_wtns w;
    cuzk_proof proof;
    cuzk_groth16_timing t;
    int rc = 1;
    uint64_t t0 = cli_now_ns();
    if (cuzk_key_load(&key, pos[0], &err) != CUZK_OK)
        return cli_fail("prove", pos[0], &err);
    if (cuzk_wtns_open(&w, pos[1], &err) != CUZK_OK) {
        cuzk_key_free(&key);
        return cli_fail("prove", pos[1], &err);
    }
    double load_s = (cli_now_ns() - t0) / 1e9;
    cuzk_pool *pool = cuzk_pool_create(threads, &err);
    cuzk_fr *pub = NULL;
    size_t n_pub = cuzk_key_n_public(&key);
    if (!pool) {
        cli_fail("prove", "thread pool", &err);
        goto out;
    }
    if (cli_stderr_tty())
        fprintf(stderr, "cuzk prove: proving (%s, 2^%u constraints, %u threads)...\r",
                cuzk_curve_snarkjs_name(key.curve), cuzk_key_log_n(&key), cuzk_pool_threads(pool));
    if (cuzk_key_prove(&key, &w, &proof, pool, &t, &err) != CUZK_OK) {
        cli_fail("prove", "prove", &err);
        goto out;
    }
    pub = malloc((n_pub ? n_pub : 1) * sizeof *pub);
    if (!pub || cuzk_wtns_to_mont(&w, pub, 1, n_pub, &err) != CUZK_OK) {
        cli_fail("prove", "public signals", &err);
        goto out;
    }
    if (verify) {
        cuzk_vk vk;
        if (cuzk_key_vk(&key, &vk, &err) != CUZK_OK ||
            cuzk_vk_verify(&vk, pub, n_pub, &proof, &err) != CUZK_OK) {
            cuzk_vk_free(&vk);
            cli_fail("prove", "self-check of the new proof", &err);
            goto out;
        }
        cuzk_vk_free(&vk);
    }
    uint64_t t1 = cli_now_ns();
    if (cuzk_proof_write_json_file(&proof, pos[2], &err) != CUZK_OK) {
        cli_fail("prove", pos[2], &err);
        goto out;
    }
    if (cuzk_public_write_json_file(key.curve, pub, n_pub, pos[3], &err) != CUZK_OK) {
        cli_fail("prove", pos[3], &err);
        goto out;
    }
    if (cli_verbose)
        print_timing(&t, load_s, (cli_now_ns() - t1) / 1e9);
    rc = 0;
out:
    free(pub);
    cuzk_pool_destroy(pool);
    cuzk_wtns_close(&w);
    cuzk_key_free(&key);
    return rc;
}
