/*
 * cuzk: the command line tool.  main and its command table, the top of
 * cli/ (docs/INTERNALS.md): it calls the commands (cli/commands.h), which
 * call the helpers below them (cli/cli.h); nothing calls back up here.
 * Every command accepts --help.  Exit status 0 on success, 1 on failure
 * (with a one-line reason on stderr), 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cuzk.h"

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

static const cli_command commands[] = {
    {"prove", "prove: zkey + witness -> proof.json + public.json", cmd_prove},
    {"fullprove", "fullprove: input.json + circuit.wasm + zkey -> proof.json + public.json",
     cmd_fullprove},
    {"wtns", "wtns calculate: circuit.wasm + input.json -> witness.wtns", cmd_wtns},
    {"verify", "verify a proof with a verification_key.json", cmd_verify},
    {"zkey", "zkey export-vk: write verification_key.json of a .zkey", cmd_zkey},
    {"abc", "abc: zkey + witness -> a, b, c image (input without an R1CS)", cmd_abc},
    {"info", "describe a .r1cs, .wtns, .zkey, .wasm, a, b, c image or JSON file", cmd_info},
    {"gen", "generate a synthetic circuit (.r1cs) and its witness (.wtns)", cmd_gen},
    {"setup", "setup --dev: INSECURE development .zkey for an .r1cs", cmd_setup},
    {"bench", "benchmarks (bench prove|engine|single|batch|stress)", cmd_bench},
    {"status", "what a running cuzkd is doing (devices, memory, queues, keys)", cmd_status},
    {"keys", "list, import, preload or evict the keys of a running cuzkd", cmd_keys},
    {"trace", "write a running cuzkd's timeline as Chrome trace JSON", cmd_trace},
};

static void usage(FILE *f) {
    fprintf(f, "usage: cuzk <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'cuzk <command> --help' describes a command.\n");
}

int main(int argc, char **argv) {
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version"))
        return printf("cuzk %s\n", cuzk_version()) < 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
