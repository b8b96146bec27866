/* E-Trace encoder throughput: retirement records of a corpus program (the
 * first 4 M instructions, produced by the hart model and held in memory) are
 * encoded in each mode; prints instructions per second and bits per
 * instruction (payload and with headers). Twice: from single-retire records,
 * and from the multiple-retire blocks with the program's code as rvtrace run
 * --etrace feeds it (through the reference filter). */
#include "bench_util.h"
#include <stdio.h>
#include <stdlib.h>

#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"

#define WINDOW 4000000u

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

/* The program's code for the encoder's block mode. */
static rvt_image *code_img;
static bool fetch_code(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    return rvt_program_insn(code_img, NULL, addr, out);
}

static int push_to_encoder(void *e, const rvt_retire *recs, size_t n) { return rvt_etrace_encoder_push(e, recs, n); }

/* Encodes the window once (through the reference filter, as rvtrace run
 * does, when it holds blocks); returns the seconds it took. */
static double encode_once(const bench_window *w, const rvt_etrace_params *p, const rvt_etrace_options *o,
                          counter *cnt) {
    rvt_etrace_encoder *e;
    rvt_ref_filter *f = NULL;
    *cnt = (counter){0, 0};
    double t0 = bench_now();
    rvt_etrace_encoder_new(&e, p, o, count_sink, cnt);
    if (w->blocks) {
        rvt_etrace_encoder_set_code(e, fetch_code, NULL);
        rvt_ref_filter_new(&f, push_to_encoder, e);
        rvt_ref_filter_set_code(f, fetch_code, NULL);
        rvt_ref_filter_sink(f, w->recs, w->n);
        rvt_ref_filter_finish(f);
    } else {
        rvt_etrace_encoder_push(e, w->recs, w->n);
    }
    rvt_etrace_encoder_finish(e, NULL);
    return bench_now() - t0;
}

int main(int argc, char **argv) {
    bench_window windows[2] = {{malloc(WINDOW * sizeof(rvt_retire)), 0, WINDOW, false},
                               {malloc(WINDOW * sizeof(rvt_retire)), 0, WINDOW, true}};
    for (int k = 1; k < argc; k++) {
        rvt_image *img = bench_load_image(argv[k]);
        code_img = img;
        if (!img || rvt_image_decode_all(img))
            return 1;
        for (int b = 0; b < 2; b++) {
            bench_window *w = &windows[b];
            if (!w->recs || bench_run_window(img, w))
                return 1;
            size_t ninsns = 0;
            for (size_t i = 0; i < w->n; i++)
                ninsns += w->recs[i].ninsns;
            static const struct {
                const char *name;
                bool full, implicit_return, predict, sijump;
            } modes[] = {{"delta address", false, false, false, false},
                         {"full address", true, false, false, false},
                         {"implicit return", false, true, false, false},
                         {"bpred+jtc", false, false, true, false},
                         {"most compact", false, true, true, true}};
            for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
                rvt_etrace_params p;
                rvt_etrace_options o;
                rvt_etrace_params_default(&p);
                rvt_etrace_options_default(&o);
                p.iaddress_width = rvt_image_xlen(img);
                p.itype_width = 4;
                o.full_address = modes[mode].full;
                o.implicit_return = modes[mode].implicit_return;
                if (modes[mode].predict) { /* a 1024-entry predictor and a 64-entry jump target cache */
                    p.bpred_size = 10;
                    p.cache_size = 6;
                    p.f0s_width = 1;
                    o.branch_prediction = o.jump_target_cache = true;
                }
                o.si_jump = p.sijump = modes[mode].sijump;
                double best = 1e9, spent = 0; /* short runs repeat until each mode has run a while */
                counter cnt;
                for (int rep = 0; rep < 3 || (spent < 0.5 && rep < 200); rep++) {
                    double t = encode_once(w, &p, &o, &cnt);
                    spent += t;
                    best = t < best ? t : best;
                }
                printf("%-50s %-7s %-16s %7.1f M instr/s  %6.3f bits/instr payload, %6.3f with headers\n", argv[k],
                       w->blocks ? "blocks" : "single", modes[mode].name, (double)ninsns / best / 1e6,
                       (double)(cnt.bytes - cnt.packets) * 8 / (double)ninsns, (double)cnt.bytes * 8 / (double)ninsns);
            }
        }
        rvt_image_free(img);
    }
    free(windows[0].recs);
    free(windows[1].recs);
    return 0;
}
