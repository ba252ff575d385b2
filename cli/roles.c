/*
 * What a file on the command line is, told by its contents as `cuzk info`
 * tells it, so that a file given in another file's place (snarkjs's
 * argument orders differ from one command to the next) is refused with
 * the role it was given and the usage line, before a reader's complaint
 * about its contents could hide the mix-up.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char *kind_names[] = {
    [CLI_FILE_UNKNOWN] = "a file of unknown kind",
    [CLI_FILE_ZKEY] = "a proving key (.zkey)",
    [CLI_FILE_WTNS] = "a witness (.wtns)",
    [CLI_FILE_R1CS] = "a constraint system (.r1cs)",
    [CLI_FILE_ABC] = "an a, b, c image",
    [CLI_FILE_WASM] = "a circuit's witness calculator (.wasm)",
    [CLI_FILE_VK] = "a verification key (verification_key.json)",
    [CLI_FILE_PROOF] = "a proof (proof.json)",
    [CLI_FILE_PUBLIC] = "public signals (public.json)",
    [CLI_FILE_INPUT] = "circuit inputs (input.json)",
};

cli_file_kind cli_file_kind_of(const char *path) {
    unsigned char head[8];
    FILE *f = fopen(path, "rb");
    if (!f)
        return CLI_FILE_UNKNOWN;
    size_t got = fread(head, 1, sizeof head, f);
    int c = EOF;
    if (got && isspace(head[0])) {
        rewind(f);
        while ((c = fgetc(f)) != EOF && isspace(c))
            ;
    } else if (got) {
        c = head[0];
    }
    fclose(f);
    if (got >= 4 && !memcmp(head, "zkey", 4))
        return CLI_FILE_ZKEY;
    if (got >= 4 && !memcmp(head, "wtns", 4))
        return CLI_FILE_WTNS;
    if (got >= 4 && !memcmp(head, "r1cs", 4))
        return CLI_FILE_R1CS;
    if (got >= 8 && !memcmp(head, "cuzkabc1", 8))
        return CLI_FILE_ABC;
    if (got >= 4 && !memcmp(head, "\0asm", 4))
        return CLI_FILE_WASM;
    if (c != '{' && c != '[')
        return CLI_FILE_UNKNOWN;
    /* JSON: by its members, as cuzk info tells them apart */
    json_t *j = json_load_file(path, 0, NULL);
    cli_file_kind k = CLI_FILE_UNKNOWN;
    if (json_is_array(j))
        k = CLI_FILE_PUBLIC;
    else if (json_is_object(j))
        k = json_object_get(j, "vk_alpha_1") ? CLI_FILE_VK
            : json_object_get(j, "pi_a")     ? CLI_FILE_PROOF
                                             : CLI_FILE_INPUT;
    json_decref(j);
    return k;
}

const char *cli_file_kind_name(cli_file_kind k) {
    return kind_names[k];
}

int cli_wrong_role(const char *cmd, const char *path, const char *role, unsigned accepted,
                   const char *usage) {
    cli_file_kind k = cli_file_kind_of(path);
    if (k == CLI_FILE_UNKNOWN || (accepted & CLI_KIND(k)))
        return 0;
    fprintf(stderr, "cuzk %s: %s is %s, given as %s\n", cmd, path, kind_names[k], role);
    /* the usage line(s) of the help text: up to the first line that is not one */
    for (const char *p = usage; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (strncmp(p, "usage:", 6) != 0 && strncmp(p, "      ", 6) != 0)
            break;
        fprintf(stderr, "%.*s\n", (int)n, p);
        p += n + (nl != NULL);
    }
    return 1;
}
