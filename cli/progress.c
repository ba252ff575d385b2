/*
 * The first compile of a circuit: seconds to minutes in which nothing else
 * is printed.  The witness layer's "compiling ..." line starts a ticker
 * that shows the time spent so far: a line redrawn every half second on a
 * terminal, a plain line every ten seconds otherwise (a log file gets no
 * carriage returns).  "compiled ..." or the end of the load stops it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    pthread_t thread;
    int running, stop;
    uint64_t t0;
    char cmd[32], what[256];
} tick = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *ticker(void *arg) {
    (void)arg;
    int tty = cli_stderr_tty();
    uint64_t period_ns = tty ? 500000000ULL : 10000000000ULL;
    pthread_mutex_lock(&tick.lock);
    uint64_t next = cli_now_ns() + period_ns;
    while (!tick.stop) {
        /* the condition variable runs on CLOCK_REALTIME: wait the rest of
         * the period measured on the monotonic clock */
        uint64_t now = cli_now_ns();
        if (now < next) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t ns = (uint64_t)ts.tv_nsec + (next - now);
            ts.tv_sec += (time_t)(ns / 1000000000ULL);
            ts.tv_nsec = (long)(ns % 1000000000ULL);
            pthread_cond_timedwait(&tick.cv, &tick.lock, &ts);
            continue;
        }
        next += period_ns;
        double s = (now - tick.t0) / 1e9;
        if (tty)
            fprintf(stderr, "\rcuzk %s: compiling %s: %.0f s so far", tick.cmd, tick.what, s);
        else
            fprintf(stderr, "cuzk %s: still compiling %s: %.0f s so far\n", tick.cmd, tick.what,
                    s);
        fflush(stderr);
    }
    if (tty) /* the redrawn line goes; the lines after it say the outcome */
        fputs("\r\033[K", stderr);
    pthread_mutex_unlock(&tick.lock);
    return NULL;
}

void cli_compile_done(void) {
    pthread_mutex_lock(&tick.lock);
    int running = tick.running;
    tick.stop = 1;
    pthread_cond_broadcast(&tick.cv);
    pthread_mutex_unlock(&tick.lock);
    if (running)
        pthread_join(tick.thread, NULL);
    tick.running = 0;
}

void cli_compile_line(const char *cmd, const char *line) {
    int starts = !strncmp(line, "compiling ", 10);
    cli_compile_done();
    fprintf(stderr, "cuzk %s: %s\n", cmd, line);
    if (!starts)
        return;
    /* the circuit: what follows "compiling ", up to its size */
    const char *name = line + 10, *end = strstr(name, " (");
    size_t n = end ? (size_t)(end - name) : strlen(name);
    snprintf(tick.cmd, sizeof tick.cmd, "%s", cmd);
    snprintf(tick.what, sizeof tick.what, "%.*s", (int)(n < 255 ? n : 255), name);
    tick.t0 = cli_now_ns();
    tick.stop = 0;
    tick.running = pthread_create(&tick.thread, NULL, ticker, NULL) == 0;
}
