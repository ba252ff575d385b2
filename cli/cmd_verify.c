/*
 * cuzk verify <verification_key.json> <public.json> <proof.json>
 * The argument order of `snarkjs groth16 verify`.  Prints OK and exits 0
 * for a valid proof; prints why and exits 1 for a proof that does not
 * verify (points off the curve or outside the subgroup, a proof of another
 * curve, the wrong number of public signals, a failed pairing check); exits
 * 2 when a file cannot be read or is not what its place asks for (a
 * usage error too), so that a script can tell a bad proof from a bad call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk_files.h"

static const char *help =
    "usage: cuzk verify <verification_key.json> <public.json> <proof.json>\n"
    "Check a Groth16 proof (snarkjs JSON files). The key may also be the\n"
    "circuit's .zkey (its verification key is read from it). Unlike snarkjs,\n"
    "proof points must also lie in the prime-order subgroup.\n"
    "exit status:\n"
    "  0  the proof is valid (prints OK)\n"
    "  1  the proof is invalid (prints why: INVALID: ... or the bad point)\n"
    "  2  a file cannot be read, is malformed or is in the wrong place, or\n"
    "     the command line is wrong\n";

/* A reader's failure: an invalid proof (1) when the proof's points are
 * what is wrong, else a file that cannot be used (2). */
static int read_fail(const char *path, const cuzk_error *err, int is_proof) {
    cli_fail("verify", path, err);
    int bad_point = err->status == CUZK_ENOTONCURVE || err->status == CUZK_ENOTINSUBGROUP ||
                    err->status == CUZK_ERANGE || err->status == CUZK_ECURVE;
    return is_proof && bad_point ? 1 : 2;
}

int cmd_verify(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc != 4) {
        fputs(help, stderr);
        return 2;
    }
    if (cli_wrong_role("verify", argv[1], "the verification key (argument 1)",
                       CLI_KIND(CLI_FILE_VK) | CLI_KIND(CLI_FILE_ZKEY), help) ||
        cli_wrong_role("verify", argv[2], "the public signals (argument 2)",
                       CLI_KIND(CLI_FILE_PUBLIC), help) ||
        cli_wrong_role("verify", argv[3], "the proof (argument 3)", CLI_KIND(CLI_FILE_PROOF),
                       help))
        return 2;
    cuzk_error err = {0};
    cuzk_vk *vk = NULL;
    cuzk_proof_bytes proof;
    uint8_t *pub = NULL;
    size_t n_pub = 0;
    int rc = 2;
    if (cuzk_vk_load(&vk, argv[1], &err) != CUZK_OK)
        return read_fail(argv[1], &err, 0);
    if (cuzk_public_bytes_read_json_file(cuzk_vk_curve(vk), &pub, &n_pub, argv[2], &err) !=
        CUZK_OK) {
        rc = read_fail(argv[2], &err, 0);
        goto out;
    }
    if (cuzk_proof_bytes_read_json_file(&proof, cuzk_vk_curve(vk), argv[3], &err) != CUZK_OK) {
        rc = read_fail(argv[3], &err, 1);
        goto out;
    }
    if (cuzk_verify(vk, &proof, pub, n_pub, &err) != CUZK_OK) {
        printf("INVALID: %s\n", err.msg);
        rc = 1;
        goto out;
    }
    printf("OK\n");
    rc = 0;
out:
    free(pub);
    cuzk_vk_release(vk);
    return rc;
}
