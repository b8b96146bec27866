/* Simulated MIPS of the hart model: without output, and while writing .rvti
 * (single-retire and multiple-retire) to a temporary file. */
#include "bench_util.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rvtrace/hart.h"

static int run(const char *path, int mode, double *mips, uint64_t *insns, long *bytes) {
    rvt_image *img;
    rvt_diag d = {{0}};
    if (rvt_image_new(&img) || rvt_image_load_elf(img, path, 0, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    FILE *null = fopen("/dev/null", "w");
    cfg.console = null;
    cfg.merge_blocks = mode == 2;
    rvt_machine *m;
    if (rvt_machine_new(&m, &cfg, img, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    FILE *out = NULL;
    rvt_rvti_writer *w = NULL;
    if (mode) {
        out = tmpfile();
        rvt_rvti_writer_new(&w, out, rvt_image_xlen(img), mode == 2);
        rvt_machine_set_sink(m, rvt_rvti_writer_sink, w);
    }
    rvt_run_result res;
    double t0 = bench_now();
    rvt_machine_run(m, &res, &d);
    if (w)
        rvt_rvti_writer_finish(w);
    double t1 = bench_now();
    *bytes = out ? ftell(out) : 0;
    if (out)
        fclose(out);
    *insns = res.instret;
    *mips = (double)res.instret / (t1 - t0) / 1e6;
    rvt_machine_free(m);
    rvt_image_free(img);
    fclose(null);
    return res.reason == RVT_STOP_EXIT ? 0 : 1;
}

int main(int argc, char **argv) {
    static const char *const modes[] = {"no output", ".rvti single-retire", ".rvti multiple-retire"};
    for (int k = 1; k < argc; k++) {
        for (int mode = 0; mode < 3; mode++) {
            double best = 0, mips;
            uint64_t insns = 0;
            long bytes = 0;
            for (int rep = 0; rep < 3; rep++) { /* best of three */
                if (run(argv[k], mode, &mips, &insns, &bytes))
                    return 1;
                if (mips > best)
                    best = mips;
            }
            printf("%-60s %-22s %7.1f MIPS  (%" PRIu64 " instructions", argv[k], modes[mode], best, insns);
            if (mode)
                printf(", %.2f bytes/instruction", (double)bytes / (double)insns);
            printf(")\n");
        }
    }
    return 0;
}
