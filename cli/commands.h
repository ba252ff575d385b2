/*
 * The cuzk commands' entry points: what main's table (cli/cuzk.c) calls,
 * and the few commands that run another under a different face (`cuzk
 * fullprove` is `cuzk prove --input`; `cuzk bench` hands its subcommands
 * on).  Each takes argv with argv[0] the command's name and returns the
 * exit status: 0, 1 on failure, 2 on a usage error.  A command calls the
 * helpers of cli/cli.h and cli/client.h, never main.
 */
#ifndef CUZK_CLI_COMMANDS_H
#define CUZK_CLI_COMMANDS_H

int cmd_prove(int argc, char **argv);     /* cuzk prove (cli/cmd_prove.c) */
int cmd_fullprove(int argc, char **argv); /* cuzk fullprove */
int cmd_wtns(int argc, char **argv);      /* cuzk wtns calculate */
int cmd_verify(int argc, char **argv);
int cmd_zkey(int argc, char **argv);
int cmd_abc(int argc, char **argv); /* cuzk abc: a, b, c image of a witness */
int cmd_info(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_setup(int argc, char **argv);
/* Commands that talk to a running cuzkd (cli/cmd_daemon.c, cli/client.h). */
int cmd_status(int argc, char **argv);
int cmd_keys(int argc, char **argv);
int cmd_trace(int argc, char **argv);

/* `cuzk prove` under the name |cmd| ("prove", or "fullprove" when
 * cmd_fullprove rearranges its line into prove's): every message begins
 * "cuzk <cmd>:", and a file given in another's place is refused with the
 * help text |usage| (the caller's own). */
int cli_prove_run(const char *cmd, const char *usage, int argc, char **argv);

/* cuzk bench (bench/cmd_bench_prove.c) and the subcommands it hands on. */
int cmd_bench(int argc, char **argv);
int cmd_bench_engine(int argc, char **argv);   /* cuzk bench engine */
int cmd_bench_filecoin(int argc, char **argv); /* cuzk bench filecoin */
/* cuzk bench single|batch|stress against a daemon (bench/cmd_bench_daemon.c). */
int cmd_bench_daemon(int argc, char **argv);

#endif
