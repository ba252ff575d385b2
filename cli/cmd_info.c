/* cuzk info <file>: what a circom/snarkjs file is (curve, sizes). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

static const char *help =
    "usage: cuzk info <file>\n"
    "Print what a .r1cs, .wtns or .zkey file holds: curve, counts, sizes.\n"
    "The file type is taken from its magic bytes, not its name.\n";

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
