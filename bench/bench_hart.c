/* Simulated MIPS of the hart model: without output, while writing .rvti
 * (single-retire and multiple-retire) to a temporary file, with control
 * transfer records on in every mode (plus branch-stack sampling every 10007
 * instructions), and with four performance counters counting. Median of 9
 * runs, the modes interleaved so that all see the same machine load. */
#include "bench_util.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rvtrace/hart.h"

static void read_stack(void *user, rvt_machine *m, uint64_t instret) {
    (void)instret;
    rvt_machine_ctr_read(m, 0, user, 16);
}

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
    rvt_ctr_record stack[16];
    if ((mode == 3 || mode == 4) && rvt_machine_ctr_enable(m, 0, 0xb, 16, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    if (mode == 4)
        rvt_machine_sample_every(m, 10007, read_stack, stack);
    static const char *const events[] = {"instructions", "branches", "loads", "stores"};
    for (unsigned e = 0; mode == 5 && e < 4; e++) {
        uint64_t code = 0;
        if (!rvt_pmu_event_code(events[e], &code) || rvt_machine_hpm_program(m, 0, 3 + e, code, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
    }
    FILE *out = NULL;
    rvt_rvti_writer *w = NULL;
    if (mode == 1 || mode == 2) {
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

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define MODES 6
#define RUNS 9

int main(int argc, char **argv) {
    static const char *const modes[MODES] = {"no output", ".rvti single-retire", ".rvti multiple-retire",
                                             "CTR recording (M/S/U)", "CTR + stack sampling",
                                             "4 counters counting"};
    for (int k = 1; k < argc; k++) {
        double mips[MODES][RUNS], median[MODES];
        uint64_t insns = 0;
        long bytes[MODES] = {0};
        for (int rep = 0; rep < RUNS; rep++)
            for (int mode = 0; mode < MODES; mode++)
                if (run(argv[k], mode, &mips[mode][rep], &insns, &bytes[mode]))
                    return 1;
        for (int mode = 0; mode < MODES; mode++) {
            qsort(mips[mode], RUNS, sizeof mips[mode][0], by_value);
            median[mode] = mips[mode][RUNS / 2];
            printf("%-60s %-22s %7.1f MIPS  (%" PRIu64 " instructions", argv[k], modes[mode], median[mode], insns);
            if (bytes[mode])
                printf(", %.2f bytes/instruction", (double)bytes[mode] / (double)insns);
            if (mode >= 3)
                printf(", %.1f %% of the plain run", 100 * median[mode] / median[0]);
            printf(")\n");
        }
    }
    return 0;
}
