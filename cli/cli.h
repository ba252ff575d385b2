/*
 * Shared pieces of the cuzk command line: the command table entry type,
 * error printing, and step timing output.  Commands live in cli/cmd_*.c and
 * are thin: they parse arguments, call the library, and print.
 */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "cuzk.h"

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
} cli_command;

int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_info(int argc, char **argv);
/* cuzk info --gpu: the keys a running daemon holds on its GPUs (cli/info_gpu.c). */
int cli_daemon_gpu_residency(int argc, char **argv);
int cmd_zkey(int argc, char **argv);
int cmd_abc(int argc, char **argv);          /* cuzk abc: a, b, c image of a witness */
int cmd_gen(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_engine(int argc, char **argv); /* cuzk bench engine */
int cmd_bench_filecoin(int argc, char **argv); /* cuzk bench filecoin */
int cmd_wtns(int argc, char **argv);         /* cuzk wtns calculate */
int cmd_fullprove(int argc, char **argv);    /* cuzk fullprove */
/* Read a whole file into a NUL-terminated malloc'd buffer: 0, or -1 with
 * |err| set. */
int cli_read_file(const char *path, char **data, size_t *len, cuzk_error *err);
/* The witness of |input| (input.json) for circuit |wasm| (cli/cmd_wtns.c)
 * as a .wtns image (malloc'd, |*size| bytes, |*n| values), made straight
 * from where the witness calculator wrote it, and the circuit load,
 * calculation and image times.  0, or 1 after printing the error. */
int cli_witness_from_inputs(const char *wasm, const char *input, const char *cache,
                            uint8_t **image, size_t *size, uint32_t *n, double *load_s,
                            double *calc_s, double *image_s);

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

/* Commands that talk to a running cuzkd (cli/cmd_daemon.c, cli/client.h). */
int cmd_status(int argc, char **argv);
int cmd_keys(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* cuzk bench single|batch|stress against a daemon (bench/cmd_bench_daemon.c). */
int cmd_bench_daemon(int argc, char **argv);
/*
 * cuzk prove through a daemon: called first by cmd_prove.  Removes the
 * daemon-only options from argv (updating *argc) and returns -1 when the
 * proof is to be made in-process with what is left (no daemon configured,
 * --local, an in-process-only option, or a stale default socket); else it
 * has proved through the daemon and returns the exit status.
 */
int cli_prove_daemon(int *argc, char **argv);
/* "prove", or "fullprove" when cmd_fullprove runs cmd_prove: the name its
 * messages (in-process and through a daemon) begin with. */
extern const char *cli_prove_cmd;
/* cuzk fullprove's help text (cli/cmd_fullprove.c). */
extern const char *cli_fullprove_help;
/* 2 after saying which file of a proof's command line is in another's
 * place (cli_wrong_role); else 0.  |wtns| or |input| and |circuit| NULL
 * when absent. */
int cli_prove_roles(const char *zkey, const char *wtns, const char *input, const char *circuit);
/* Help lines for those options, appended to cuzk prove --help. */
extern const char *cli_prove_daemon_help;

/* Print "cuzk <cmd>: <what>: <reason>" to stderr and return exit status 1. */
int cli_fail(const char *cmd, const char *what, const cuzk_error *err);
/* 1 if argv has -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Monotonic clock in nanoseconds. */
uint64_t cli_now_ns(void);
/* 1 when stderr is a terminal (progress output is shown only then). */
int cli_stderr_tty(void);
/* Verbosity from -v flags, set by the dispatcher. */
extern int cli_verbose;

#endif
