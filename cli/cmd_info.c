/* cuzk info <file>: what a circom/snarkjs file is (curve, sizes). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk_files.h"
#include "cuzk_tools.h"

static const char *help =
    "usage: cuzk info <file>\n"
    "       cuzk info --gpu\n"
    "Print what a .r1cs, .wtns or .zkey file holds: curve, counts, sizes.\n"
    "The file type is taken from its magic bytes, not its name.\n"
    "--gpu lists the CUDA devices (memory in use and free, multiprocessors,\n"
    "compute capability) and, when a cuzkd daemon is reachable (--addr,\n"
    "CUZK_ADDR or the default socket), the keys it holds on each GPU.\n";

static int info_gpu(int argc, char **argv) {
    int n = 0;
    cuzk_gpu_info d;
    cuzk_error err = {0};
    cuzk_status ps = cuzk_gpu_probe(&n, &err);
    if (ps == CUZK_EUNSUPPORTED) {
        printf("CUDA devices: none (this build has no CUDA support)\n");
        return cli_daemon_gpu_residency(argc, argv);
    }
    if (ps != CUZK_OK) { /* not "no GPU": CUDA could not tell */
        printf("CUDA devices: none usable: %s\n", err.msg);
        return cli_daemon_gpu_residency(argc, argv);
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
    return cli_daemon_gpu_residency(argc, argv);
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
    cuzk_file_info info;
    cuzk_error err = {0};
    if (cuzk_file_inspect(&info, path, &err) != CUZK_OK)
        return cli_fail("info", path, &err);
    if (info.kind == CUZK_FILE_R1CS)
        return info_r1cs(path, &info);
    if (info.kind == CUZK_FILE_WTNS)
        return info_wtns(path, &info);
    return info_zkey(path, &info);
}
