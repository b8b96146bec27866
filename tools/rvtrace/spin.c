/* Why a program did not end: after a run stops at its instruction limit, the
 * machine runs on a while with nothing attached that records, and the pcs
 * hart 0 goes through are searched for a cycle. A program stuck in a loop (a
 * missing trap it waited for, a device that never answers, a machine other
 * than the one it was built for) is then named by the loop's addresses and
 * symbols, and the machine it ran on is spelled out as options. */
#include <inttypes.h>
#include <stdlib.h>

#include "commands.h"

enum {
    SPIN_STEPS = 1 << 16,            /* instructions run past the limit */
    SPIN_LONGEST = SPIN_STEPS / 8,   /* the longest loop recognised */
};

/* The shortest period, up to `longest`, with which the last half of
 * pcs[0..n) repeats, or 0. */
static size_t spin_period(const uint64_t *pcs, size_t n, size_t longest) {
    size_t half = n / 2;
    for (size_t p = 1; p <= longest && p <= half; p++) {
        if (pcs[n - 1 - p] != pcs[n - 1])
            continue;
        size_t j = n - 1;
        while (j >= half && pcs[j] == pcs[j - p])
            j--;
        if (j < half)
            return p;
    }
    return 0;
}

static void print_place(FILE *f, const rvt_image *img, uint64_t addr) {
    uint64_t off;
    const char *sym = img ? rvt_image_symbolize(img, addr, &off) : NULL;
    if (sym)
        fprintf(f, "%s+%#" PRIx64, sym, off);
    else
        fprintf(f, "no symbol");
}

typedef struct spin_log {
    uint64_t *pcs;
    size_t n, cap;
} spin_log;

static void note_pc(void *user, rvt_machine *m, uint64_t instret) {
    (void)instret;
    spin_log *log = user;
    if (log->n < log->cap)
        log->pcs[log->n++] = rvt_machine_pc(m, 0);
}

/* The hart runs on `n` more instructions, each pc noted; false when the
 * program ended meanwhile or the run stopped for another reason. */
static bool run_on(rvt_machine *m, uint64_t n, rvt_run_result *res) {
    rvt_diag diag = {{0}};
    rvt_machine_set_max_insns(m, res->instret + res->traps + n);
    rvt_machine_run(m, res, &diag);
    return res->reason == RVT_STOP_MAX_INSNS;
}

void report_spin(FILE *f, rvt_machine *m, const rvt_image *img, const rvt_run_result *stopped) {
    spin_log log = {malloc(SPIN_STEPS * sizeof *log.pcs), 0, SPIN_STEPS};
    if (!log.pcs)
        return;
    rvt_machine_set_packed_sink(m, NULL, NULL, NULL);
    rvt_machine_set_sink(m, NULL, NULL);
    rvt_machine_set_progress(m, NULL, NULL);
    rvt_diag diag = {{0}};
    rvt_machine_observe(m, NULL, NULL, &diag);
    rvt_machine_sample_every(m, 1, note_pc, &log);
    rvt_run_result res = *stopped;
    uint64_t before = res.instret;
    if (!run_on(m, SPIN_STEPS, &res)) {
        if (res.reason == RVT_STOP_EXIT)
            fprintf(f, "  it stores its exit code to tohost within %" PRIu64 " instructions past the limit: a higher "
                       "--max-insns lets it end\n", res.instret - before);
        free(log.pcs);
        return;
    }
    size_t p = spin_period(log.pcs, log.n, SPIN_LONGEST);
    if (!p) {
        fprintf(f, "  hart 0 repeats no loop of up to %d instructions in the %zu past the limit\n", SPIN_LONGEST, log.n);
        free(log.pcs);
        return;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = log.n - p; i < log.n; i++) {
        lo = log.pcs[i] < lo ? log.pcs[i] : lo;
        hi = log.pcs[i] > hi ? log.pcs[i] : hi;
    }
    /* Whether one more pass leaves every register as it found it: then
     * nothing the loop computes will ever let it out. */
    bool same = true;
    uint64_t regs[32];
    for (unsigned r = 0; r < 32; r++)
        regs[r] = rvt_machine_reg(m, 0, r);
    uint64_t pc = rvt_machine_pc(m, 0);
    if (run_on(m, p, &res)) {
        for (unsigned r = 0; r < 32; r++)
            same &= rvt_machine_reg(m, 0, r) == regs[r];
        same &= rvt_machine_pc(m, 0) == pc;
    } else {
        same = false;
    }
    fprintf(f, "  %spast the limit, hart 0 repeats a loop of %zu instruction%s at %#" PRIx64, same ? "it is spinning: " : "",
            p, p == 1 ? "" : "s", lo);
    if (hi != lo)
        fprintf(f, "-%#" PRIx64, hi);
    fprintf(f, " (");
    print_place(f, img, lo);
    if (hi != lo) {
        fprintf(f, " to ");
        print_place(f, img, hi);
    }
    fprintf(f, ")%s\n", same ? ",\n  and a pass leaves its registers as they were: it cannot leave the loop by itself (an interrupt or "
                                    "another agent's store could end it)"
                             : ";\n  its registers change from pass to pass");
    free(log.pcs);
}

void report_machine(FILE *f, const rvt_machine_config *cfg) {
    fprintf(f, "  the machine it ran on: -p %u -m ", cfg->nharts);
    for (unsigned i = 0; i < cfg->nram; i++)
        fprintf(f, "%s%#" PRIx64 ":%#" PRIx64, i ? "," : "", cfg->ram[i].base, cfg->ram[i].size);
    fprintf(f, " --pmpregions %u\n"
               "  (the defaults are the machine spike ran the reference flow's programs on; a program made for\n"
               "  another machine, e.g. one without PMP or with its memory elsewhere, needs that machine's options)\n",
            cfg->pmp_regions);
}
