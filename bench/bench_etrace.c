/* E-Trace encoder throughput: retirement records of a corpus program (the
 * first 4 M instructions, produced by the hart model and held in memory) are
 * encoded in each mode; prints instructions per second and bits per
 * instruction (payload and with headers). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"

#define WINDOW 4000000u

typedef struct {
    rvt_retire *recs;
    size_t n;
} collect;

static int collect_sink(void *user, const rvt_retire *recs, size_t n) {
    collect *c = user;
    for (size_t i = 0; i < n && c->n < WINDOW; i++)
        c->recs[c->n++] = recs[i];
    return c->n >= WINDOW;
}

typedef struct {
    unsigned long long bytes, packets;
} counter;

static int count_sink(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)pkt;
    (void)payload;
    counter *c = user;
    c->bytes += len + 1;
    c->packets++;
    return 0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    collect c = {malloc(WINDOW * sizeof(rvt_retire)), 0};
    for (int k = 1; k < argc; k++) {
        rvt_image *img;
        rvt_diag d = {{0}};
        if (rvt_image_new(&img) || rvt_image_load_elf(img, argv[k], 0, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        rvt_machine_config cfg;
        rvt_machine_config_default(&cfg);
        FILE *null = fopen("/dev/null", "w");
        cfg.console = null;
        rvt_machine *m;
        if (rvt_machine_new(&m, &cfg, img, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        c.n = 0;
        rvt_machine_set_sink(m, collect_sink, &c);
        rvt_run_result res;
        rvt_machine_run(m, &res, &d);
        rvt_machine_free(m);
        fclose(null);
        size_t ninsns = 0;
        for (size_t i = 0; i < c.n; i++)
            ninsns += c.recs[i].ninsns;
        static const struct {
            const char *name;
            bool full, implicit_return;
        } modes[] = {{"delta address", false, false}, {"full address", true, false}, {"implicit return", false, true}};
        for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
            rvt_etrace_params p;
            rvt_etrace_options o;
            rvt_etrace_params_default(&p);
            rvt_etrace_options_default(&o);
            p.iaddress_width = rvt_image_xlen(img);
            p.itype_width = 4;
            o.full_address = modes[mode].full;
            o.implicit_return = modes[mode].implicit_return;
            double best = 1e9;
            counter cnt = {0, 0};
            for (int rep = 0; rep < 3; rep++) {
                rvt_etrace_encoder *e;
                cnt = (counter){0, 0};
                double t0 = now();
                rvt_etrace_encoder_new(&e, &p, &o, count_sink, &cnt);
                rvt_etrace_encoder_push(e, c.recs, c.n);
                rvt_etrace_encoder_finish(e, NULL);
                double t = now() - t0;
                if (t < best)
                    best = t;
            }
            printf("%-55s %-16s %7.1f M instr/s  %6.3f bits/instr payload, %6.3f with headers\n", argv[k],
                   modes[mode].name, (double)ninsns / best / 1e6,
                   (double)(cnt.bytes - cnt.packets) * 8 / (double)ninsns, (double)cnt.bytes * 8 / (double)ninsns);
        }
        rvt_image_free(img);
    }
    free(c.recs);
    return 0;
}
