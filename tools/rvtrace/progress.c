/* A progress line on standard error for work that takes a while. It only
 * appears when standard error is a terminal (a log file or a pipe gets
 * nothing) and after the first second, so short runs stay quiet. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* RVTRACE_PROGRESS=now shows the line from the start instead of after a
 * second (still only on a terminal); =off never shows it. */
void progress_start(progress *pr, const char *what, const char *unit, bool quiet) {
    const char *env = getenv("RVTRACE_PROGRESS");
    bool off = env && !strcmp(env, "off"), at_once = env && !strcmp(env, "now");
    *pr = (progress){!quiet && !off && isatty(STDERR_FILENO), false, what, unit, now(), 0, at_once ? 0.0 : 1.0};
}

static void print_amount(char *buf, size_t cap, double v, const char *unit) {
    static const char *const prefix[] = {"", "k", "M", "G", "T"};
    unsigned k = 0;
    double step = unit[0] == 'B' ? 1024.0 : 1000.0; /* bytes in binary multiples */
    while (v >= step && k < 4) {
        v /= step;
        k++;
    }
    if (step == 1024.0)
        snprintf(buf, cap, "%.1f %s%sB", v, prefix[k], k ? "i" : "");
    else
        snprintf(buf, cap, "%.1f%s %s", v, prefix[k], unit);
}

void progress_update(progress *pr, uint64_t done, uint64_t total) {
    if (!pr->on)
        return;
    double t = now(), elapsed = t - pr->start;
    if (elapsed < pr->delay || t - pr->last < 0.25)
        return;
    pr->last = t;
    char amount[32], all[32], rate[32];
    print_amount(amount, sizeof amount, (double)done, pr->unit);
    print_amount(rate, sizeof rate, (double)done / elapsed, pr->unit);
    if (total && done <= total) {
        print_amount(all, sizeof all, (double)total, pr->unit);
        double left = done ? elapsed * (double)(total - done) / (double)done : 0;
        if (pr->unit[0] != 'B') /* "1.0M of 2.0M instructions" */
            *strchr(amount, ' ') = 0;
        fprintf(stderr, "\r%s: %s of %s (%.0f%%), %s/s, %.0f s left\033[K", pr->what, amount, all,
                100.0 * (double)done / (double)total, rate, left);
    } else {
        fprintf(stderr, "\r%s: %s, %s/s\033[K", pr->what, amount, rate);
    }
    pr->shown = true;
}

void progress_end(progress *pr) {
    if (pr->shown)
        fputs("\r\033[K", stderr);
    pr->shown = false;
}
