/*
 * The helpers below the cuzk commands: error printing, --help detection,
 * the clock, whole-file reading (cli/common.c), what a file is
 * (cli/roles.c) and the compile progress lines (cli/progress.c).  Commands
 * live in cli/cmd_*.c (their entry points: cli/commands.h) and are thin:
 * they parse arguments, call the library, and print.  Nothing declared
 * here calls a command back (tests/test_cli_layers.sh).
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk.h"

/* Print "cuzk <cmd>: <what>: <reason>" to stderr and return exit status 1. */
int cli_fail(const char *cmd, const char *what, const cuzk_error *err);
/* 1 if argv has -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Monotonic clock in nanoseconds. */
uint64_t cli_now_ns(void);
/* 1 when stderr is a terminal (progress output is shown only then). */
int cli_stderr_tty(void);
/* Read a whole file into a NUL-terminated malloc'd buffer: 0, or -1 with
 * |err| set. */
int cli_read_file(const char *path, char **data, size_t *len, cuzk_error *err);

/* What a file is, by its contents (cli/roles.c): for the errors of a file
 * given in another file's place. */
typedef enum cli_file_kind {
    CLI_FILE_UNKNOWN, /* missing, unreadable, or none of these */
    CLI_FILE_ZKEY,
    CLI_FILE_WTNS,
    CLI_FILE_R1CS,
    CLI_FILE_ABC,
    CLI_FILE_WASM,
    CLI_FILE_VK,     /* snarkjs verification_key.json */
    CLI_FILE_PROOF,  /* snarkjs proof.json */
    CLI_FILE_PUBLIC, /* a JSON array: public.json */
    CLI_FILE_INPUT   /* any other JSON object: circom's input.json */
} cli_file_kind;
#define CLI_KIND(k) (1u << (k))
cli_file_kind cli_file_kind_of(const char *path);
const char *cli_file_kind_name(cli_file_kind k);
/* 1 after printing "cuzk <cmd>: <path> is <kind>, given as <role>" and the
 * usage lines at the start of |usage| when |path| is a file of a known
 * kind that is not in |accepted| (CLI_KIND bits); else 0 (also for a file
 * that cannot be read or told: its reader says what is wrong). */
int cli_wrong_role(const char *cmd, const char *path, const char *role, unsigned accepted,
                   const char *usage);

/* The compile lines of a first use of a circuit (cli/progress.c): print
 * |line| as "cuzk <cmd>: <line>"; "compiling ..." also starts showing the
 * time spent until "compiled ..." or cli_compile_done. */
void cli_compile_line(const char *cmd, const char *line);
void cli_compile_done(void);

#endif
