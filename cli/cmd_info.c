/* cuzk info <file>: what a circom/snarkjs file is (curve, sizes). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"
#ifdef CUZK_HAVE_CUDA
#include "gpu/runtime.h"
#endif

static const char *help =
    "usage: cuzk info <file>\n"
    "       cuzk info --gpu\n"
    "Print what a .r1cs, .wtns or .zkey file holds: curve, counts, sizes.\n"
    "The file type is taken from its magic bytes, not its name.\n"
    "--gpu lists the CUDA devices (memory in use and free, multiprocessors,\n"
    "compute capability) and, when a cuzkd daemon is reachable (--addr,\n"
    "CUZK_ADDR or the default socket), the keys it holds on each GPU.\n";

static int info_gpu(int argc, char **argv) {
#ifdef CUZK_HAVE_CUDA
    int n = cuzk_gpu_device_count();
    printf("CUDA devices: %d\n", n);
    for (int i = 0; i < n; i++) {
        cuzk_gpu_device_info d;
        cuzk_error err = {0};
        if (cuzk_gpu_device_query(i, &d, &err) != CUZK_OK) {
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
#else
    printf("CUDA devices: none (this build has no CUDA support)\n");
#endif
    return cli_daemon_gpu_residency(argc, argv);
}

static int info_r1cs(const char *path) {
    cuzk_r1cs r;
    cuzk_error err = {0};
    if (cuzk_r1cs_read_file(&r, path, &err) != CUZK_OK)
        return cli_fail("info", path, &err);
    printf("%s: circom r1cs\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(r.curve));
    printf("  constraints  %u\n", r.n_constraints);
    printf("  wires        %u\n", r.n_wires);
    printf("  public       %u outputs, %u inputs\n", r.n_pub_out, r.n_pub_in);
    printf("  private in   %u\n", r.n_prv_in);
    printf("  labels       %llu\n", (unsigned long long)r.n_labels);
    printf("  non-zeros    A %llu, B %llu, C %llu\n", (unsigned long long)r.a.nnz,
           (unsigned long long)r.b.nnz, (unsigned long long)r.c.nnz);
    uint64_t need = (uint64_t)r.n_constraints + cuzk_r1cs_n_public(&r) + 1, n = 1;
    unsigned log_n = 0;
    while (n < need)
        n <<= 1, log_n++;
    printf("  domain       2^%u (Groth16)\n", log_n);
    cuzk_r1cs_free(&r);
    return 0;
}

static int info_wtns(const char *path) {
    cuzk_wtns w;
    cuzk_error err = {0};
    if (cuzk_wtns_open(&w, path, &err) != CUZK_OK)
        return cli_fail("info", path, &err);
    printf("%s: circom witness\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(w.curve));
    printf("  values       %u\n", w.n_witness);
    cuzk_status st = cuzk_wtns_check_range(&w, &err);
    printf("  range        %s\n", st == CUZK_OK ? "all values below r" : err.msg);
    cuzk_wtns_close(&w);
    return st == CUZK_OK ? 0 : 1;
}

static int info_zkey(const char *path) {
    cuzk_zkey z;
    cuzk_error err = {0};
    if (cuzk_zkey_open(&z, path, &err) != CUZK_OK)
        return cli_fail("info", path, &err);
    printf("%s: snarkjs Groth16 proving key\n", path);
    printf("  curve        %s\n", cuzk_curve_snarkjs_name(z.curve));
    printf("  signals      %u (%u public)\n", z.n_vars, z.n_public);
    printf("  domain       2^%u = %u\n", z.log_domain_size, z.domain_size);
    printf("  coefficients %u (A and B)\n", z.n_coefs);
    printf("  points       IC %llu, A %llu, B1 %llu, B2 %llu, C %llu, H %llu\n",
           (unsigned long long)z.ic.count, (unsigned long long)z.a.count,
           (unsigned long long)z.b1.count, (unsigned long long)z.b2.count,
           (unsigned long long)z.c.count, (unsigned long long)z.h.count);
    printf("  contributions %u\n", z.n_contributions);
    printf("  file size    %llu bytes\n", (unsigned long long)z.bf.size);
    cuzk_zkey_close(&z);
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
    char magic[5] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        cuzk_error err;
        cuzk_fail(&err, CUZK_EIO, "cannot open: %m");
        return cli_fail("info", path, &err);
    }
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    if (got == 4 && !memcmp(magic, "r1cs", 4))
        return info_r1cs(path);
    if (got == 4 && !memcmp(magic, "wtns", 4))
        return info_wtns(path);
    if (got == 4 && !memcmp(magic, "zkey", 4))
        return info_zkey(path);
    cuzk_error err;
    cuzk_fail(&err, CUZK_EFORMAT, "not a .r1cs, .wtns or .zkey file (unknown magic)");
    return cli_fail("info", path, &err);
}
