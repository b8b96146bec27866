/* E-Trace decoder throughput: the golden stream of a corpus program decoded
 * from memory with the ELF, counting retired instructions one address at a
 * time and in blocks. */
#include "bench_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"
#include "rvtrace/image.h"

static rvt_image *img;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    const rvt_insn *in = rvt_image_insn(img, addr);
    if (!in)
        return false;
    *out = *in;
    return true;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_decode GOLDEN_ETRACE_CONFIG_DIR PROGRAM.elf...\n");
        return 2;
    }
    for (int k = 2; k < argc; k++) {
        rvt_diag d = {{0}};
        if (!(img = bench_load_image(argv[k])))
            return 1;
        const char *base = strrchr(argv[k], '/');
        base = base ? base + 1 : argv[k];
        char name[256], path[4096];
        snprintf(name, sizeof name, "%s", base);
        char *dot = strrchr(name, '.');
        if (dot)
            *dot = 0;
        rvt_etrace_params p;
        rvt_etrace_options o;
        rvt_etrace_params_default(&p);
        rvt_etrace_options_default(&o);
        snprintf(path, sizeof path, "%s/%s", argv[1], rvt_image_xlen(img) == 32 ? "hw32.scf" : "hw64.scf");
        rvt_etrace_load_scf(path, &p, &d);
        snprintf(path, sizeof path, "%s/encoder.ucf", argv[1]);
        rvt_etrace_load_ucf(path, &o, &d);
        snprintf(path, sizeof path, "%s/%s.te_inst_raw", argv[1], name);
        char *raw;
        size_t size;
        if (rvt_read_file(path, &raw, &size, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        double best[2] = {1e9, 1e9};
        unsigned long long n[2] = {0, 0};
        /* Small traces are repeated until each way has run a while: the best
         * of many short runs is what the code can do, not the scheduler. */
        double spent = 0;
        for (int rep = 0; rep < 6 || (spent < 0.5 && rep < 2000); rep++) {
            int blocks = rep & 1;
            n[blocks] = 0;
            rvt_etrace_decoder *dec;
            rvt_etrace_decoder_new(&dec, &p, &o, rvt_image_xlen(img), fetch, bench_count_pc, &n[blocks]);
            if (blocks)
                rvt_etrace_decoder_set_block_sink(dec, bench_count_block);
            double t0 = bench_now();
            rvt_te_raw_cursor c = {.data = (const uint8_t *)raw, .size = size};
            rvt_te_inst pkt;
            while (rvt_te_raw_next(&c, &p, &o, &pkt, NULL, &d) == 1)
                if (rvt_etrace_decode(dec, &pkt, &d))
                    rvt_etrace_decoder_resync(dec); /* the boot ROM is not in the ELF */
            double t = bench_now() - t0;
            spent += t;
            if (t < best[blocks])
                best[blocks] = t;
            rvt_etrace_decoder_free(dec);
        }
        printf("%-50s %10llu instructions  %7.1f M instr/s by address, %7.1f M in blocks%s\n", argv[k], n[0],
               (double)n[0] / best[0] / 1e6, (double)n[1] / best[1] / 1e6, n[0] == n[1] ? "" : " (COUNTS DIFFER)");
        free(raw);
        rvt_image_free(img);
    }
    return 0;
}
