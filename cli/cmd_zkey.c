/* cuzk zkey export-vk <circuit.zkey> <verification_key.json> */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cuzk_files.h"

static const char *help =
    "usage: cuzk zkey export-vk <circuit.zkey> <verification_key.json>\n"
    "Write the verification key of a Groth16 .zkey as snarkjs's\n"
    "`zkey export verificationkey` does (vk_alphabeta_12 included).\n"
    "(`export-verificationkey` is accepted as an alias.)\n";

int cmd_zkey(int argc, char **argv) {
    if (cli_wants_help(argc, argv)) {
        fputs(help, stdout);
        return 0;
    }
    if (argc != 4 || (strcmp(argv[1], "export-vk") && strcmp(argv[1], "export-verificationkey"))) {
        fputs(help, stderr);
        return 2;
    }
    cuzk_error err = {0};
    cuzk_file_info info;
    cuzk_vk *vk = NULL;
    /* a .zkey only: cuzk_vk_load would take a verification_key.json too */
    if (cuzk_file_inspect(&info, argv[2], &err) != CUZK_OK)
        return cli_fail("zkey", argv[2], &err);
    if (info.kind != CUZK_FILE_ZKEY) {
        cuzk_fail(&err, CUZK_EFORMAT, "not a .zkey file");
        return cli_fail("zkey", argv[2], &err);
    }
    if (cuzk_vk_load(&vk, argv[2], &err) != CUZK_OK)
        return cli_fail("zkey", argv[2], &err);
    int rc = 0;
    if (cuzk_vk_save_json(vk, argv[3], &err) != CUZK_OK)
        rc = cli_fail("zkey", argv[3], &err);
    cuzk_vk_release(vk);
    return rc;
}
