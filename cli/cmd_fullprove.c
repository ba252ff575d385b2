/*
 * cuzk fullprove <input.json> <circuit.wasm> <circuit.zkey> <proof.json> <public.json>
 * `snarkjs groth16 fullprove`: the witness from the inputs, then the proof.
 * It is `cuzk prove --input <input.json> --circuit <circuit.wasm>` under the
 * argument order snarkjs users know, so it proves through the same paths:
 * a running cuzkd when one is configured, else an in-process one-device
 * engine (cli/cmd_prove.c), whose synthesis stage computes the witness.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"

static const char *help =
    "usage: cuzk fullprove [options] <input.json> <circuit.wasm> <circuit.zkey> <proof.json> "
    "<public.json>\n"
    "Compute the witness of a circom circuit from its inputs and prove it, as\n"
    "`snarkjs groth16 fullprove` does.  Options are those of `cuzk prove`\n"
    "(--cpu, --gpu N, --threads N, --verify, -v, the daemon options).\n";

int cmd_fullprove(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    /* options keep their place; the five positionals are rearranged */
    const char **av = calloc((size_t)argc + 6, sizeof *av);
    const char *pos[5];
    int npos = 0, n = 0;
    if (!av)
        return 1;
    av[n++] = "fullprove";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes_value = !strcmp(a, "--gpu") || !strcmp(a, "--threads") ||
                          !strcmp(a, "--addr") || !strcmp(a, "--token") ||
                          !strcmp(a, "--token-file") || !strcmp(a, "--request-id") ||
                          !strcmp(a, "--priority") || !strcmp(a, "--deadline-ms") ||
                          !strcmp(a, "--timeout") || !strcmp(a, "--cache");
        if (a[0] == '-' && a[1]) {
            av[n++] = a;
            if (takes_value && i + 1 < argc)
                av[n++] = argv[++i];
        } else if (npos < 5) {
            pos[npos++] = a;
        } else {
            npos = 6;
        }
    }
    if (npos != 5) {
        fputs(help, stderr);
        free(av);
        return 2;
    }
    av[n++] = "--input";
    av[n++] = pos[0];
    av[n++] = "--circuit";
    av[n++] = pos[1];
    av[n++] = pos[2];
    av[n++] = pos[3];
    av[n++] = pos[4];
    av[n] = NULL;
    /* prove's messages then begin "cuzk fullprove:", and a file in another
     * file's place is refused with this command's usage */
    int rc = cli_prove_run("fullprove", help, n, (char **)av);
    free(av);
    return rc;
}
