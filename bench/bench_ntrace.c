/* N-Trace throughput: retirement records of a corpus program (the first
 * 4 M instructions from the hart model, in memory) are encoded in BTM and in
 * HTM with call stack and repeated history (instructions per second, bits
 * per instruction); then the stream is decoded from memory with the ELF,
 * counting retired instructions one address at a time and in blocks. */
#include <stdint.h>
#include <string.h>

#include "bench_util.h"
#include "rvtrace/ntrace.h"

#define WINDOW 4000000u

static rvt_image *img;
static rvt_machine *machine;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    return rvt_program_insn(img, machine, addr, out);
}

int main(int argc, char **argv) {
    bench_window w = {malloc(WINDOW * sizeof(rvt_retire)), 0, WINDOW, false};
    for (int k = 1; k < argc; k++) {
        if (!(img = bench_load_image(argv[k])) || !w.recs || bench_run_window(img, &w))
            return 1;
        rvt_machine_config cfg;
        rvt_machine_config_default(&cfg);
        rvt_diag d = {{0}};
        if (rvt_machine_new(&machine, &cfg, img, &d))
            machine = NULL; /* the boot ROM then stays unknown */
        size_t ninsns = 0;
        for (size_t i = 0; i < w.n; i++)
            ninsns += w.recs[i].ninsns;
        static const struct {
            const char *name;
            rvt_ntrace_options o;
        } modes[] = {{"BTM", {.btm = true}}, {"HTM stack 8 rpt 2", {.call_stack = 8, .repeat = 2}}};
        for (size_t mode = 0; mode < sizeof modes / sizeof modes[0]; mode++) {
            double best_enc = 1e9, best_dec = 1e9, best_blocks = 1e9;
            rvt_membuf b = {0};
            unsigned long long decoded = 0, decoded_blocks = 0;
            for (int rep = 0; rep < 3; rep++) {
                rvt_ntrace_encoder *e;
                b.len = 0;
                double t0 = bench_now();
                rvt_ntrace_encoder_new(&e, &modes[mode].o, rvt_image_xlen(img), rvt_membuf_append, &b);
                rvt_ntrace_encoder_push(e, w.recs, w.n);
                rvt_ntrace_encoder_finish(e, NULL);
                double t = bench_now() - t0;
                best_enc = t < best_enc ? t : best_enc;
            }
            for (int rep = 0; rep < 6; rep++) {
                bool blocks = rep & 1;
                rvt_ntrace_decoder_options dopt = {.call_stack = modes[mode].o.call_stack, .src_id = -1};
                rvt_ntrace_decoder *dec;
                unsigned long long *counter = blocks ? &decoded_blocks : &decoded;
                *counter = 0;
                double t0 = bench_now();
                rvt_ntrace_decoder_new(&dec, &dopt, rvt_image_xlen(img), fetch, bench_count_pc, counter);
                if (blocks)
                    rvt_ntrace_decoder_set_block_sink(dec, bench_count_block);
                rvt_nexus_reader r;
                rvt_nexus_reader_init(&r, NULL, b.data, b.len);
                rvt_nexus_msg m;
                while (rvt_nexus_next(&r, &m, &d) == 1)
                    rvt_ntrace_decode(dec, &m, &d);
                rvt_ntrace_decoder_free(dec);
                double t = bench_now() - t0;
                double *best = blocks ? &best_blocks : &best_dec;
                *best = t < *best ? t : *best;
            }
            printf("%-45s %-18s encode %6.1f M instr/s %6.3f bits/instr  decode %6.1f M instr/s by address, "
                   "%6.1f M in blocks (%llu instr%s)\n",
                   argv[k], modes[mode].name, (double)ninsns / best_enc / 1e6, (double)b.len * 8 / (double)ninsns,
                   (double)decoded / best_dec / 1e6, (double)decoded_blocks / best_blocks / 1e6, decoded,
                   decoded == decoded_blocks && decoded == ninsns ? "" : ", COUNTS DIFFER");
            rvt_membuf_free(&b);
        }
        rvt_machine_free(machine);
        rvt_image_free(img);
    }
    free(w.recs);
    return 0;
}
