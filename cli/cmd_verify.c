/*
 * cuzk verify <verification_key.json> <public.json> <proof.json>
 * The argument order of `snarkjs groth16 verify`.  Prints OK and exits 0
 * for a valid proof; prints the reason and exits 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cuzk_files.h"

static const char *help =
    "usage: cuzk verify <verification_key.json> <public.json> <proof.json>\n"
    "Check a Groth16 proof (snarkjs JSON files). Prints OK and exits 0 if it\n"
    "is valid; prints why not and exits 1 otherwise. Unlike snarkjs, proof\n"
    "points must also lie in the prime-order subgroup.\n";

int cmd_verify(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc != 4) {
        fputs(help, stderr);
        return 2;
    }
    cuzk_error err = {0};
    cuzk_vk *vk = NULL;
    cuzk_proof_bytes proof;
    uint8_t *pub = NULL;
    size_t n_pub = 0;
    int rc = 1;
    if (cuzk_vk_load(&vk, argv[1], &err) != CUZK_OK)
        return cli_fail("verify", argv[1], &err);
    if (cuzk_public_bytes_read_json_file(cuzk_vk_curve(vk), &pub, &n_pub, argv[2], &err) !=
        CUZK_OK) {
        cli_fail("verify", argv[2], &err);
        goto out;
    }
    if (cuzk_proof_bytes_read_json_file(&proof, cuzk_vk_curve(vk), argv[3], &err) != CUZK_OK) {
        cli_fail("verify", argv[3], &err);
        goto out;
    }
    if (cuzk_verify(vk, &proof, pub, n_pub, &err) != CUZK_OK) {
        printf("INVALID: %s\n", err.msg);
        goto out;
    }
    printf("OK\n");
    rc = 0;
out:
    free(pub);
    cuzk_vk_release(vk);
    return rc;
}
