/*
 * cuzk: the command line tool.  Dispatches to cli/cmd_*.c; every command
 * accepts --help.  Exit status 0 on success, 1 on failure (with a one-line
 * reason on stderr), 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cuzk.h"

int cli_verbose;

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

/* Whether |msg| already names |what| as a word of its own (the library's
 * readers put the path in their messages): then it is not said twice. */
static int names(const char *msg, const char *what) {
    size_t n = strlen(what);
    for (const char *p = msg; n && (p = strstr(p, what)) != NULL; p++)
        if ((p == msg || p[-1] == ' ') && strchr(": )", p[n]) != NULL)
            return 1;
    return 0;
}

int cli_fail(const char *cmd, const char *what, const cuzk_error *err) {
    const char *msg =
        err && err->msg[0] ? err->msg : cuzk_status_text(err ? err->status : CUZK_EINTERNAL);
    if (names(msg, what))
        fprintf(stderr, "cuzk %s: %s\n", cmd, msg);
    else
        fprintf(stderr, "cuzk %s: %s: %s\n", cmd, what, msg);
    return 1;
}

int cli_wants_help(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

uint64_t cli_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int cli_stderr_tty(void) { return isatty(2); }

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
