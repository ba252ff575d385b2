/*
 * The test harness itself (testutil.h): a program that ran no check must
 * not pass, one with a failed check must not pass, and one whose checks
 * all held passes.  Each verdict is taken in a forked child, which starts
 * its counts afresh with tu_init, so the parent's own counts stay its own.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* The exit status of tu_finish() in a child that first records |pass|
 * passing and |fail| failing checks (its messages go to /dev/null). */
static int verdict(int pass, int fail) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            _exit(99);
        tu_init(0, NULL, "child");
        for (int i = 0; i < pass; i++)
            CHECK(1, "holds");
        for (int i = 0; i < fail; i++)
            CHECK(0, "fails");
        _exit(tu_finish());
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int main(int argc, char **argv) {
    tu_init(argc, argv, "test_testutil");
    CHECK(verdict(0, 0) == 1, "a program that ran no check passed");
    CHECK(verdict(0, 1) == 1, "a program with one failed check passed");
    CHECK(verdict(3, 1) == 1, "a program with a failed check among passing ones passed");
    CHECK(verdict(3, 0) == 0, "a program whose checks all held failed");
    return tu_finish();
}
