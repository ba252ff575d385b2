/* cuzk gen: synthetic circuits (.r1cs + satisfied .wtns) for tests and benchmarks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk gen [options] <circuit.r1cs> <witness.wtns>\n"
    "Write a synthetic circuit and a witness that satisfies it.\n"
    "options:\n"
    "  --curve bn254|bls12_381   (default bn254; bn128 and bls12381 accepted)\n"
    "  --log2 K                  fill a Groth16 domain of 2^K exactly (10..26)\n"
    "  --constraints N           or give the number of constraints\n"
    "  --bool-share F            share of boolean signals, 0..1 (default 0.8)\n"
    "  --terms MIN-MAX           terms per linear combination (default 2-3)\n"
    "  --a-share F, --b-share F  share of signals later constraints may read in A,\n"
    "                            in B (default 1: every one; the others' columns are 0)\n"
    "  --gate-share F            share of the 0/1 signals made by XOR/AND gates of\n"
    "                            earlier ones instead of checked fresh (default 0)\n"
    "  --public-in N             public inputs (default 1)\n"
    "  --seed S                  (default 1; the output is a function of it)\n"
    "  --profile NAME            start from a profile, then apply the other options:\n"
    "                            default, porep (a Filecoin PoRep partition: BLS12-381,\n"
    "                            2^27, 90% 0/1 wires mostly from gates, ~90 public\n"
    "                            inputs, about half the columns of A and B zero), snap\n"
    "                            (SnapDeals); docs/FILES.md says where the numbers\n"
    "                            come from\n";

int cmd_gen(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    cuzk_synth_params p;
    cuzk_synth_params_default(&p, CUZK_CURVE_BN254);
    const char *pos[2];
    int npos = 0;
    /* the profile first, whatever its place: the other options refine it */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--profile")) {
            cuzk_error perr = {0};
            if (cuzk_synth_params_profile(&p, argv[i + 1], &perr) != CUZK_OK) {
                fprintf(stderr, "cuzk gen: %s\n", perr.msg);
                return 2;
            }
        }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-') {
            if (npos < 2)
                pos[npos] = a;
            npos++;
            continue;
        }
        if (!v) {
            fprintf(stderr, "cuzk gen: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--curve")) {
            p.curve = cuzk_curve_from_name(v);
            if (p.curve == CUZK_CURVE_NONE) {
                fprintf(stderr, "cuzk gen: unknown curve '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--log2"))
            p.log2_domain = (unsigned)atoi(v);
        else if (!strcmp(a, "--constraints"))
            p.n_constraints = (uint32_t)strtoul(v, NULL, 0), p.log2_domain = 0;
        else if (!strcmp(a, "--bool-share"))
            p.bool_share = atof(v);
        else if (!strcmp(a, "--a-share"))
            p.a_share = atof(v);
        else if (!strcmp(a, "--b-share"))
            p.b_share = atof(v);
        else if (!strcmp(a, "--gate-share"))
            p.gate_share = atof(v);
        else if (!strcmp(a, "--terms")) {
            if (sscanf(v, "%u-%u", &p.min_terms, &p.max_terms) != 2) {
                fprintf(stderr, "cuzk gen: --terms wants MIN-MAX\n");
                return 2;
            }
        } else if (!strcmp(a, "--profile")) {
            /* applied above */
        } else if (!strcmp(a, "--public-in"))
            p.n_pub_in = (uint32_t)atoi(v);
        else if (!strcmp(a, "--seed"))
            p.seed = strtoull(v, NULL, 0);
        else {
            fprintf(stderr, "cuzk gen: unknown option %s\n", a);
            return 2;
        }
    }
    if (npos != 2) {
        fputs(help, stderr);
        return 2;
    }
    cuzk_error err = {0};
    uint64_t t0 = cli_now_ns();
    if (cuzk_synth_write(pos[0], pos[1], &p, &err) != CUZK_OK)
        return cli_fail("gen", pos[0], &err);
    fprintf(stderr, "cuzk gen: wrote %s and %s in %.2f s\n", pos[0], pos[1],
            (cli_now_ns() - t0) / 1e9);
    return 0;
}
