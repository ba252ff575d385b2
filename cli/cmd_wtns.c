/*
 * cuzk wtns calculate <circuit.wasm> <input.json> <witness.wtns>
 * The arguments and output of `snarkjs wtns calculate`: the witness of a
 * circom circuit from its inputs, computed by the circuit's wasm compiled
 * to native code (witness/wc.h).  The .wtns is written only when the
 * witness was computed, atomically (never a partial file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk wtns calculate [options] <circuit.wasm> <input.json> <witness.wtns>\n"
    "Compute the witness of a circom circuit from its inputs, as `snarkjs wtns\n"
    "calculate` does (same files, same bytes), with the circuit's wasm compiled\n"
    "to native code once and cached.\n"
    "options:\n"
    "  --cache DIR   folder of compiled circuits (default $CUZK_WC_CACHE, else\n"
    "                $XDG_CACHE_HOME/cuzk/wc, else ~/.cache/cuzk/wc)\n"
    "  -v            print the compile, load and calculation times on stderr\n";

static void print_line(void *ctx, const char *line) {
    FILE *f = ctx;
    fprintf(f, "%s\n", line);
}

static void progress_line(void *ctx, const char *line) {
    (void)ctx;
    cli_compile_line("wtns calculate", line);
}

/* The witness of |input| (input.json) for circuit |wasm| as a .wtns image
 * (malloc'd, |*size| bytes, |*n| values), made straight from where the
 * witness calculator wrote it, and the circuit load, calculation and image
 * times; |verbose| also describes the circuit.  0, or 1 after printing the
 * error. */
static int witness_from_inputs(const char *wasm, const char *input, const char *cache,
                               int verbose, uint8_t **image, size_t *size, uint32_t *n,
                               double *load_s, double *calc_s, double *image_s) {
    cuzk_error err = {0};
    cuzk_wc_opts o = {.cache_dir = cache, .progress = progress_line};
    cuzk_wc_circuit *c = NULL;
    cuzk_wc *wc = NULL;
    cuzk_wc_input *in = NULL;
    char *text = NULL;
    size_t len = 0;
    void *out = NULL;
    int rc = 1;
    uint64_t t0 = cli_now_ns();
    cuzk_status ls = cuzk_wc_circuit_load(&c, wasm, &o, &err);
    cli_compile_done();
    if (ls != CUZK_OK) {
        cli_fail("wtns", "circuit", &err);
        goto done;
    }
    *load_s = (cli_now_ns() - t0) / 1e9;
    if (verbose)
        fprintf(stderr, "cuzk: circuit %s: circom %s, %s, %u witness values, field products %s\n",
                wasm, cuzk_wc_circuit_version(c),
                cuzk_curve_snarkjs_name(cuzk_wc_circuit_curve(c)), cuzk_wc_circuit_n_witness(c),
                cuzk_wc_circuit_native(c) ? "native" : "wasm");
    if (cli_read_file(input, &text, &len, &err)) {
        cli_fail("wtns", "input", &err);
        goto done;
    }
    uint64_t t1 = cli_now_ns();
    uint32_t nw = cuzk_wc_circuit_n_witness(c);
    /* the witness stays where the worker wrote it; the image is made from
     * there (one copy, as when the module ran in this process) */
    if (cuzk_wc_input_parse(&in, c, text, len, &err) != CUZK_OK ||
        cuzk_wc_new(&wc, c, print_line, stdout, &err) != CUZK_OK ||
        cuzk_wc_calculate(wc, NULL, in, &err) != CUZK_OK) {
        cli_fail("wtns", input, &err);
        goto done;
    }
    if (cuzk_wc_log_dropped(wc))
        fprintf(stdout, "... and %u more log() lines of this calculation not shown\n",
                cuzk_wc_log_dropped(wc));
    uint64_t t2 = cli_now_ns();
    *calc_s = (t2 - t1) / 1e9;
    cuzk_curve curve = cuzk_wc_circuit_curve(c);
    size_t bytes = cuzk_wtns_image(NULL, curve, NULL, nw);
    if (!(out = malloc(bytes))) {
        fprintf(stderr, "cuzk wtns: no memory for the .wtns image of %u values\n", nw);
        goto done;
    }
    cuzk_wtns_image(out, curve, cuzk_wc_witness(wc), nw);
    *image_s = (cli_now_ns() - t2) / 1e9;
    *image = out;
    *size = bytes;
    *n = nw;
    out = NULL;
    rc = 0;
done:
    free(out);
    free(text);
    cuzk_wc_input_free(in);
    cuzk_wc_free(wc);
    cuzk_wc_circuit_free(c);
    return rc;
}

static int calculate(int argc, char **argv) {
    const char *pos[3], *cache = NULL;
    int npos = 0, verbose = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose++;
        else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
            cache = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cuzk wtns calculate: unknown option %s\n%s", argv[i], help);
            return 2;
        } else if (npos < 3)
            pos[npos++] = argv[i];
        else
            npos = 4;
    }
    if (npos != 3) {
        fputs(help, stderr);
        return 2;
    }
    uint8_t *img = NULL;
    size_t size = 0;
    uint32_t n = 0;
    double load_s = 0, calc_s = 0, image_s = 0;
    if (witness_from_inputs(pos[0], pos[1], cache, verbose, &img, &size, &n, &load_s, &calc_s,
                            &image_s))
        return 1;
    uint64_t t0 = cli_now_ns();
    cuzk_error err = {0};
    int rc = 0;
    if (cuzk_file_write_atomic(pos[2], img, size, &err) != CUZK_OK)
        rc = cli_fail("wtns", pos[2], &err);
    if (verbose && !rc)
        fprintf(stderr, "cuzk wtns calculate: circuit load %.3f s | witness %.3f s (%u values) | "
                "write %.3f s\n", load_s, calc_s, n, image_s + (cli_now_ns() - t0) / 1e9);
    free(img);
    return rc;
}

int cmd_wtns(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "calculate"))
        return calculate(argc - 1, argv + 1);
    fputs(help, stderr);
    return 2;
}
