/* cuzk info <file>: what a circom/snarkjs file is (curve, sizes). */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/client.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk info <file>\n"
    "       cuzk info --gpu\n"
    "Print what a .r1cs, .wtns or .zkey file or an a, b, c image (`cuzk abc`)\n"
    "holds: curve, counts, sizes; a circom .wasm (curve, circom version, wires,\n"
    "input values, whether its native code is in the cache: CUZK_WC_CACHE,\n"
    "else $XDG_CACHE_HOME/cuzk/wc, else ~/.cache/cuzk/wc); or a\n"
    "snarkjs JSON file: a verification key (curve, public signals, points checked),\n"
    "a proof (curve, points checked), a public.json (signal count, the curves whose\n"
    "field holds every value) or a circom input.json (signals and values).\n"
    "The file type is taken from its contents, not its name.\n"
    "--gpu lists the CUDA devices (memory in use and free, multiprocessors,\n"
    "compute capability) and, when a cuzkd daemon is reachable (--addr,\n"
    "CUZK_ADDR or the default socket), the keys it holds on each GPU.\n";

/* The daemon half of `cuzk info --gpu`: which keys a running cuzkd holds on
 * each of its GPUs (GET /v1/status, docs/API.md).  Keys stay resident only
 * in a daemon; a one-shot `cuzk prove` uploads and drops its key. */
static int daemon_gpu_residency(int argc, char **argv) {
#if CLI_HAVE_DAEMON
    cli_daemon_opts o = {0};
    for (int i = 1; i < argc; i++) {
        int r = cli_daemon_opt(&o, argc, argv, &i);
        if (r < 0 || (r == 0 && argv[i][0] == '-')) {
            fprintf(stderr, "cuzk info --gpu: bad option %s\n", argv[i]);
            return 2;
        }
    }
    cuzk_error err = {0};
    cli_conn *c = cli_connect(&o, "info", &err);
    if (!c) {
        if (err.status == CUZK_ENOTFOUND) {
            printf("daemon: none configured (no --addr, CUZK_ADDR or default socket): "
                   "no keys are resident\n");
            return 0;
        }
        return cli_fail("info --gpu", "daemon", &err);
    }
    long code = 0;
    json_t *s = cli_request_json(c, "GET", "/v1/status", NULL, 10000, &code, &err);
    if (!s) {
        int rc = cli_fail("info --gpu", cli_conn_addr(c)->text, &err);
        cli_conn_free(c);
        return rc;
    }
    printf("daemon %s:\n", cli_conn_addr(c)->text);
    size_t i, gpus = 0;
    json_t *d;
    json_array_foreach(json_object_get(s, "devices"), i, d) {
        if (strcmp(cli_json_str(d, "kind", ""), "gpu"))
            continue;
        gpus++;
        printf("  %s (CUDA device %.0f): %.0f keys resident, %.1f MiB of device memory; "
               "%.0f proofs, busy %.1f s\n",
               cli_json_str(d, "name", "?"), cli_json_num(d, "gpu_index", -1),
               cli_json_num(d, "device_keys", 0), cli_json_num(d, "device_mem_bytes", 0) / 1048576.0,
               cli_json_num(d, "proofs", 0), cli_json_num(d, "busy_s", 0));
    }
    if (!gpus)
        printf("  no GPU devices (the daemon proves on the CPU)\n");
    json_array_foreach(json_object_get(s, "keys"), i, d)
        printf("  key %-20s %-9s %s 2^%.0f  %s\n", cli_json_str(d, "id", "?"),
               cli_json_str(d, "curve", "?"), cli_json_str(d, "tier", "?"),
               cli_json_num(d, "log_n", 0), cli_json_str(d, "path", ""));
    json_decref(s);
    cli_conn_free(c);
    return 0;
#else
    (void)argc, (void)argv;
    printf("daemon: %s\n", CLI_NO_DAEMON_TEXT);
    return 0;
#endif
}

static int info_gpu(int argc, char **argv) {
    int n = 0;
    cuzk_gpu_info d;
    cuzk_error err = {0};
    cuzk_status ps = cuzk_gpu_probe(&n, &err);
    if (ps == CUZK_EUNSUPPORTED) {
        printf("CUDA devices: none (this build has no CUDA support)\n");
        return daemon_gpu_residency(argc, argv);
    }
    if (ps == CUZK_ENOTFOUND) { /* no driver installed */
        printf("CUDA devices: none (%s)\n", err.msg);
        return daemon_gpu_residency(argc, argv);
    }
    if (ps != CUZK_OK) { /* not "no GPU": CUDA could not tell */
        printf("CUDA devices: none usable: %s\n", err.msg);
        return daemon_gpu_residency(argc, argv);
    }
    printf("CUDA devices: %d\n", n);
    for (int i = 0; i < n; i++) {
        if (cuzk_gpu_query(i, &d, &err) != CUZK_OK) {
            printf("  gpu%d: %s\n", i, err.msg);
            continue;
        }
        printf("  gpu%d: %s, compute capability %d.%d, %d multiprocessors, L2 %zu MiB\n", i,
               d.name, d.cc_major, d.cc_minor, d.sm_count, d.l2_bytes >> 20);
        printf("        memory %.1f GiB, %.1f GiB in use (all processes), %.1f GiB free\n",
               d.total_mem_bytes / 1073741824.0,
               (d.total_mem_bytes - d.free_mem_bytes) / 1073741824.0,
               d.free_mem_bytes / 1073741824.0);
    }
    return daemon_gpu_residency(argc, argv);
}

static int info_r1cs(const char *path, const cuzk_file_info *r) {
    printf("%s: circom r1cs\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(r->curve));
    printf("  constraints  %u\n", r->n_constraints);
    printf("  wires        %u\n", r->n_wires);
    printf("  public       %u outputs, %u inputs\n", r->n_pub_out, r->n_pub_in);
    printf("  private in   %u\n", r->n_prv_in);
    printf("  labels       %llu\n", (unsigned long long)r->n_labels);
    printf("  non-zeros    A %llu, B %llu, C %llu\n", (unsigned long long)r->nnz_a,
           (unsigned long long)r->nnz_b, (unsigned long long)r->nnz_c);
    printf("  domain       2^%u (Groth16)\n", r->log_n);
    return 0;
}

static int info_wtns(const char *path, const cuzk_file_info *w) {
    printf("%s: circom witness\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(w->curve));
    printf("  values       %llu\n", (unsigned long long)w->n_values);
    printf("  range        %s\n", w->range == CUZK_OK ? "all values below r" : w->range_msg);
    return w->range == CUZK_OK ? 0 : 1;
}

static int info_abc(const char *path, const cuzk_file_info *x) {
    printf("%s: a, b, c image (evaluated a, b, c and the witness)\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(x->curve));
    printf("  rows         %llu (a, b, c each)\n", (unsigned long long)x->n_rows);
    printf("  values       %llu (witness)\n", (unsigned long long)x->n_values);
    printf("  range        all values below r\n");
    printf("  file size    %llu bytes\n", (unsigned long long)x->file_bytes);
    return 0;
}

static int info_zkey(const char *path, const cuzk_file_info *z) {
    printf("%s: snarkjs Groth16 proving key\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(z->curve));
    printf("  signals      %u (%u public)\n", z->n_vars, z->n_public);
    printf("  domain       2^%u = %llu\n", z->log_n, 1ULL << z->log_n);
    printf("  coefficients %u (A and B)\n", z->n_coefs);
    printf("  points       IC %llu, A %llu, B1 %llu, B2 %llu, C %llu, H %llu\n",
           (unsigned long long)z->n_ic, (unsigned long long)z->n_a,
           (unsigned long long)z->n_b1, (unsigned long long)z->n_b2,
           (unsigned long long)z->n_c, (unsigned long long)z->n_h);
    printf("  contributions %u\n", z->n_contributions);
    printf("  file size    %llu bytes\n", (unsigned long long)z->file_bytes);
    return 0;
}

/* The number of leaves (numbers or strings) of a circom input value. */
static size_t input_leaves(const json_t *v, size_t depth) {
    if (depth > 64)
        return 0;
    if (!json_is_array(v))
        return 1;
    size_t n = 0, i;
    const json_t *e;
    json_array_foreach(v, i, e) n += input_leaves(e, depth + 1);
    return n;
}

/* The reader's message names the file when it read one; it is printed
 * with the path once. */
static int info_fail(const char *path, const cuzk_error *err) {
    if (!strncmp(err->msg, path, strlen(path)))
        fprintf(stderr, "cuzk info: %s\n", err->msg);
    else
        fprintf(stderr, "cuzk info: %s: %s\n", path, err->msg);
    return 1;
}

static int info_json_vk(const char *path) {
    cuzk_vk *vk = NULL;
    cuzk_error err = {0};
    if (cuzk_vk_load(&vk, path, &err) != CUZK_OK)
        return info_fail(path, &err);
    printf("%s: snarkjs Groth16 verification key\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(cuzk_vk_curve(vk)));
    printf("  public       %zu signals (IC %zu points)\n", cuzk_vk_n_public(vk),
           cuzk_vk_n_public(vk) + 1);
    printf("  points       on the curve and in the prime-order subgroup\n");
    cuzk_vk_release(vk);
    return 0;
}

static int info_json_proof(const char *path) {
    cuzk_proof_bytes pb;
    cuzk_error err = {0};
    if (cuzk_proof_bytes_read_json_file(&pb, CUZK_CURVE_NONE, path, &err) != CUZK_OK)
        return info_fail(path, &err);
    printf("%s: snarkjs Groth16 proof\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(pb.curve));
    printf("  points       A, B, C on the curve and in the prime-order subgroup\n");
    return 0;
}

/* public.json: which curves' scalar field holds every value (a list of
 * decimal strings says nothing else about its curve). */
static int info_json_public(const char *path, size_t n) {
    static const cuzk_curve curves[] = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};
    char fits[64] = "";
    for (size_t c = 0; c < sizeof curves / sizeof *curves; c++) {
        uint8_t *out = NULL;
        size_t m = 0;
        cuzk_error err = {0};
        if (cuzk_public_bytes_read_json_file(curves[c], &out, &m, path, &err) == CUZK_OK) {
            size_t w = strlen(fits);
            snprintf(fits + w, sizeof fits - w, "%s%s", w ? ", " : "",
                     cuzk_curve_snarkjs_name(curves[c]));
        } else if (err.status == CUZK_EFORMAT) {
            return info_fail(path, &err);
        }
        free(out);
    }
    printf("%s: snarkjs public signals\n", path);
    printf("  signals      %zu\n", n);
    printf("  fits         %s\n", fits[0] ? fits : "no curve (a value is not below r)");
    return fits[0] ? 0 : 1;
}

static int info_json_input(const char *path, const json_t *j) {
    size_t values = 0;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)j, k, v) values += input_leaves(v, 0);
    printf("%s: circom input\n", path);
    printf("  signals      %zu\n", json_object_size(j));
    printf("  values       %zu\n", values);
    return 0;
}

/* A JSON file: told apart by its members, each kind checked by the
 * library's own reader. */
static int info_json(const char *path) {
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        fprintf(stderr, "cuzk info: %s: invalid JSON at line %d: %s\n", path, je.line, je.text);
        return 1;
    }
    int rc;
    if (json_is_object(j) && json_object_get(j, "vk_alpha_1"))
        rc = info_json_vk(path);
    else if (json_is_object(j) && json_object_get(j, "pi_a"))
        rc = info_json_proof(path);
    else if (json_is_array(j))
        rc = info_json_public(path, json_array_size(j));
    else if (json_is_object(j))
        rc = info_json_input(path, j);
    else {
        fprintf(stderr, "cuzk info: %s: JSON, but neither a key, a proof, public signals nor "
                        "an input\n", path);
        rc = 1;
    }
    json_decref(j);
    return rc;
}

/* A circom witness calculator, read without running or compiling it. */
static int info_wasm(const char *path) {
    cuzk_wc_wasm_info w;
    cuzk_error err = {0};
    if (cuzk_wc_wasm_inspect(&w, path, NULL, &err) != CUZK_OK)
        return info_fail(path, &err);
    char size[32];
    if (w.wasm_bytes < 1000000)
        snprintf(size, sizeof size, "%.0f KB", w.wasm_bytes < 1000 ? 1.0 : w.wasm_bytes / 1e3);
    else
        snprintf(size, sizeof size, "%.1f MB", w.wasm_bytes / 1e6);
    printf("%s: circom witness calculator (.wasm, %s)\n", path, size);
    printf("  curve        %s\n", w.curve != CUZK_CURVE_NONE ? cuzk_curve_snarkjs_name(w.curve)
                                                          : "unknown (a prime cuzk has no curve for)");
    if (w.version[0])
        printf("  circom       %u.%u.%u\n", w.version[0], w.version[1], w.version[2]);
    else
        printf("  circom       unknown\n");
    printf("  wires        %u (values of its .wtns)\n", w.n_witness);
    printf("  inputs       %u values in all (the .wasm knows signals by hashes of their "
           "names only)\n", w.n_inputs);
    if (w.cached)
        printf("  native code  cached: %s\n", w.cache_path);
    else
        printf("  native code  not compiled yet: its first use compiles it (to %s)\n",
               w.cache_path);
    return 0;
}

/* Whether the file starts with wasm's magic. */
static int is_wasm(const char *path) {
    unsigned char head[4] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t got = fread(head, 1, sizeof head, f);
    fclose(f);
    return got == 4 && !memcmp(head, "\0asm", 4);
}

/* Whether the file's first non-blank byte opens JSON. */
static int looks_like_json(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int c;
    while ((c = fgetc(f)) != EOF && isspace(c))
        ;
    fclose(f);
    return c == '{' || c == '[';
}

int cmd_info(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--gpu"))
        return info_gpu(argc - 1, argv + 1);
    if (argc != 2) {
        fputs(help, stderr);
        return 2;
    }
    const char *path = argv[1];
    if (is_wasm(path))
        return info_wasm(path);
    if (looks_like_json(path))
        return info_json(path);
    cuzk_file_info info;
    cuzk_error err = {0};
    if (cuzk_file_inspect(&info, path, &err) != CUZK_OK)
        return cli_fail("info", path, &err);
    if (info.kind == CUZK_FILE_R1CS)
        return info_r1cs(path, &info);
    if (info.kind == CUZK_FILE_WTNS)
        return info_wtns(path, &info);
    if (info.kind == CUZK_FILE_ABC)
        return info_abc(path, &info);
    return info_zkey(path, &info);
}
