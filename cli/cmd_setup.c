/* cuzk setup --dev: an INSECURE Groth16 key for tests and benchmarks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk setup --dev [--seed S] [--threads N] <circuit.r1cs> <circuit.zkey>\n"
    "Make a snarkjs-compatible Groth16 .zkey from random toxic waste that this\n"
    "program knows. ANYONE WHO KNOWS IT CAN FORGE PROOFS: for tests and\n"
    "benchmarks only, never for real use. For production keys run a ceremony\n"
    "(snarkjs powersoftau + zkey contribute).\n";

int cmd_setup(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    int dev = 0, npos = 0;
    const char *pos[2];
    uint64_t seed = 0;
    int have_seed = 0;
    unsigned threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dev"))
            dev = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0), have_seed = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = (unsigned)atoi(argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "cuzk setup: unknown option %s\n", argv[i]);
            return 2;
        } else if (npos < 2)
            pos[npos++] = argv[i];
        else
            npos = 3;
    }
    if (!dev || npos != 2) {
        fputs(help, stderr);
        return 2;
    }
    fprintf(stderr, "cuzk setup: WARNING: INSECURE development key (known toxic waste); "
                    "for tests and benchmarks only\n");
    cuzk_error err = {0};
    uint64_t t0 = cli_now_ns();
    cuzk_status st = cuzk_setup_dev(pos[0], pos[1], have_seed ? &seed : NULL, threads, &err);
    if (st != CUZK_OK)
        return cli_fail("setup", pos[0], &err);
    fprintf(stderr, "cuzk setup: wrote %s in %.2f s\n", pos[1], (cli_now_ns() - t0) / 1e9);
    return 0;
}
