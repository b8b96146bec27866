/* What every benchmark needs: a monotonic clock, a program image, and a
 * window of the hart model's retirement records held in memory. */
#ifndef RVTRACE_BENCH_UTIL_H
#define RVTRACE_BENCH_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rvtrace/hart.h"
#include "rvtrace/image.h"

static inline double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The ELF at `path`, or NULL after printing why not. */
static inline rvt_image *bench_load_image(const char *path) {
    rvt_image *img;
    rvt_diag d = {{0}};
    if (rvt_image_new(&img))
        return NULL;
    if (rvt_image_load_elf(img, path, 0, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        rvt_image_free(img);
        return NULL;
    }
    return img;
}

/* Counting consumers of a decoder's flow (`user` is an unsigned long long). */
static inline int bench_count_pc(void *user, uint64_t pc) {
    (void)pc;
    (*(unsigned long long *)user)++;
    return 0;
}

static inline int bench_count_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    (void)start;
    (void)end;
    *(unsigned long long *)user += n;
    return 0;
}

typedef struct bench_window {
    rvt_retire *recs;
    size_t n, cap;
    bool blocks; /* multiple-retire records, as run --etrace/--ntrace take them */
} bench_window;

static inline int bench_window_sink(void *user, const rvt_retire *recs, size_t n) {
    bench_window *w = user;
    for (size_t i = 0; i < n && w->n < w->cap; i++)
        w->recs[w->n++] = recs[i];
    return w->n >= w->cap;
}

/* Runs the program on the hart model (console output dropped) and keeps its
 * first `w->cap` records in `w`. Returns 0, or 1 after printing the error. */
static inline int bench_run_window(rvt_image *img, bench_window *w) {
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.merge_blocks = w->blocks;
    FILE *null = fopen("/dev/null", "w");
    cfg.console = null;
    rvt_machine *m;
    rvt_diag d = {{0}};
    if (rvt_machine_new(&m, &cfg, img, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        if (null)
            fclose(null);
        return 1;
    }
    w->n = 0;
    rvt_machine_set_sink(m, bench_window_sink, w);
    rvt_run_result res;
    rvt_machine_run(m, &res, &d);
    rvt_machine_free(m);
    if (null)
        fclose(null);
    return 0;
}

#endif
