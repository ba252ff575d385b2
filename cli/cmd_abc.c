/*
 * cuzk abc <circuit.zkey> <witness.wtns> <out.abc>: the a, b, c image of a
 * witness (docs/FILES.md, "The a, b, c image"), the input a synthesis
 * without an R1CS (Filecoin's) hands the prover, made here from circom
 * files so that `cuzk prove`, cuzkd and `cuzk bench prove --input abc` can
 * be run and compared on it.
 *
 * Must not: include anything but the public headers and cli/ (the image is
 * made by cuzk_abc_make), or leave a partial file (it writes atomically).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk_files.h"

static const char *help =
    "usage: cuzk abc [--threads N] <circuit.zkey> <witness.wtns> <out.abc>\n"
    "Evaluate a = A·w, b = B·w and c = a∘b of a witness with the key's\n"
    "matrices and write them with the witness as an a, b, c image: the input\n"
    "of a synthesis that builds no R1CS (Filecoin's).  `cuzk prove` and cuzkd\n"
    "take the image wherever they take a .wtns (told apart by its magic) and\n"
    "prove it without evaluating, also with a key whose coefficient list is\n"
    "empty.  `cuzk info` prints its header.\n"
    "options:\n"
    "  --threads N    CPU threads for the evaluation (default: all online CPUs)\n";

int cmd_abc(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = ncpu > 0 ? (unsigned)ncpu : 1;
    const char *pos[3];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            char *end;
            long t = strtol(argv[++i], &end, 10);
            if (*end || t < 1 || t > 4096) {
                fprintf(stderr, "cuzk abc: --threads wants a count from 1 to 4096\n");
                return 2;
            }
            threads = (unsigned)t;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cuzk abc: unknown option %s\n", argv[i]);
            fputs(help, stderr);
            return 2;
        } else if (npos < 3) {
            pos[npos++] = argv[i];
        } else {
            npos++;
        }
    }
    if (npos != 3) {
        fputs(help, stderr);
        return 2;
    }
    cuzk_error err = {0};
    if (cuzk_abc_make(pos[0], pos[1], pos[2], threads, &err) != CUZK_OK)
        return cli_fail("abc", pos[2], &err);
    return 0;
}
