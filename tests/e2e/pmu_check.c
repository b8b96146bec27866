/* The performance counters against spike's trace of the same program: each
 * corpus program runs on the hart model with mhpmcounter3.. programmed for
 * every event the model counts and stopped where the reference spike CSV
 * ends; the counters must equal the counts taken from that trace
 * (instructions retired, conditional branches and the taken ones, jumps,
 * loads, stores, AMOs, exceptions, interrupts), and where the trace ends
 * with the program's exit store, so must the values kept at that store.
 * usage: pmu_check SHARED_DIR OPTIONS_FILE PROGRAM.riscv...
 * (OPTIONS_FILE: tests/e2e/spike_trace_options.txt, the machines spike
 * traced the programs on). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/hart.h"
#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

#include "program_run.h"

enum { INSTRUCTIONS, BRANCHES, TAKEN, JUMPS, LOADS, STORES, AMOS, EXCEPTIONS, INTERRUPTS, EVENTS };
static const char *const names[EVENTS] = {"instructions", "cond-branches", "taken-branches", "jumps", "loads",
                                          "stores", "amos", "exceptions", "interrupts"};

/* The counts of one reference trace. */
static int count_trace(const char *path, unsigned xlen, uint64_t *counts) {
    rvt_retire_reader *r;
    rvt_diag d = {{0}};
    if (rvt_retire_reader_open(&r, path, RVT_FMT_SPIKE_CSV, xlen, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    rvt_retire recs[4096];
    long n;
    while ((n = rvt_retire_reader_read(r, recs, 4096, &d)) > 0) {
        for (long i = 0; i < n; i++) {
            const rvt_retire *x = &recs[i];
            if (x->itype == RVT_ITYPE_EXCEPTION || x->itype == RVT_ITYPE_INTERRUPT) {
                counts[x->itype == RVT_ITYPE_EXCEPTION ? EXCEPTIONS : INTERRUPTS]++;
                continue;
            }
            if (!x->ninsns)
                continue;
            rvt_insn in;
            rvt_decode(x->insn, xlen, &in);
            unsigned op = in.op;
            counts[INSTRUCTIONS]++;
            if (in.cf == RVT_CF_BRANCH) {
                counts[BRANCHES]++;
                counts[TAKEN] += x->itype == RVT_ITYPE_BRANCH_TAKEN;
            } else if (in.cf == RVT_CF_JAL || in.cf == RVT_CF_JALR) {
                counts[JUMPS]++;
            } else if (op == RVT_OP_LB || op == RVT_OP_LH || op == RVT_OP_LW || op == RVT_OP_LD ||
                       op == RVT_OP_LBU || op == RVT_OP_LHU || op == RVT_OP_LWU || op == RVT_OP_FLW ||
                       op == RVT_OP_FLD || op == RVT_OP_LR_W || op == RVT_OP_LR_D) {
                counts[LOADS]++;
            } else if (op == RVT_OP_SB || op == RVT_OP_SH || op == RVT_OP_SW || op == RVT_OP_SD ||
                       op == RVT_OP_FSW || op == RVT_OP_FSD || op == RVT_OP_SC_W || op == RVT_OP_SC_D) {
                counts[STORES]++;
            } else if ((op >= RVT_OP_AMOSWAP_W && op <= RVT_OP_AMOMAXU_W) ||
                       (op >= RVT_OP_AMOSWAP_D && op <= RVT_OP_AMOMAXU_D)) {
                counts[AMOS]++;
            }
        }
    }
    rvt_retire_reader_close(r);
    if (n < 0) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: pmu_check SHARED_DIR OPTIONS_FILE PROGRAM.riscv...\n");
        return 2;
    }
    int failures = 0, checked = 0, exits = 0;
    uint64_t total = 0;
    for (int k = 3; k < argc; k++) {
        const char *base = strrchr(argv[k], '/') ? strrchr(argv[k], '/') + 1 : argv[k];
        char trace[4096];
        snprintf(trace, sizeof trace, "%s/corpus/spike/%.*s.csv.zst", argv[1], (int)strcspn(base, "."), base);
        FILE *probe = fopen(trace, "rb");
        if (!probe)
            continue; /* no reference trace for this one */
        fclose(probe);
        /* The reference trace is the start of the run: the run stops
         * after as many instructions and traps. */
        uint64_t want[EVENTS] = {0};
        unsigned xlen = 64;
        FILE *elf = fopen(argv[k], "rb");
        if (elf) {
            unsigned char ident[5] = {0};
            if (fread(ident, 1, 5, elf) == 5 && ident[4] == 1)
                xlen = 32;
            fclose(elf);
        }
        if (count_trace(trace, xlen, want))
            return 1;
        program_run pr;
        if (program_run_open_pmp(&pr, argv[k], want[INSTRUCTIONS] + want[EXCEPTIONS] + want[INTERRUPTS],
                                 program_pmp_regions(argv[2], argv[k])))
            return 1;
        rvt_diag d = {{0}};
        for (unsigned e = 0; e < EVENTS; e++) {
            uint64_t code;
            if (!rvt_pmu_event_code(names[e], &code) || rvt_machine_hpm_program(pr.m, 0, 3 + e, code, &d)) {
                fprintf(stderr, "%s: %s\n", names[e], d.msg);
                return 1;
            }
        }
        rvt_run_result res;
        rvt_machine_run(pr.m, &res, &d);
        uint64_t minstret = rvt_machine_hpm_counter(pr.m, 0, 2, NULL, false);
        if (minstret != want[INSTRUCTIONS]) {
            failures++;
            printf("%s: minstret %" PRIu64 ", the spike trace has %" PRIu64 " instructions\n", base, minstret,
                   want[INSTRUCTIONS]);
        }
        /* When the trace ends with the exit store (the program then spins
         * in a loop the reference leaves out), the counters kept at that
         * store must be the same. */
        bool ends_at_exit = rvt_machine_exited(pr.m) && rvt_machine_hpm_counter(pr.m, 0, 2, NULL, true) == minstret;
        exits += ends_at_exit;
        for (unsigned e = 0; e < EVENTS; e++) {
            uint64_t got = rvt_machine_hpm_counter(pr.m, 0, 3 + e, NULL, false);
            uint64_t at_exit = rvt_machine_hpm_counter(pr.m, 0, 3 + e, NULL, true);
            if (got != want[e] || (ends_at_exit && at_exit != got)) {
                failures++;
                printf("%s: %s counted %" PRIu64 " (%" PRIu64 " at the exit store), the spike trace has %" PRIu64
                       "\n", base, names[e], got, at_exit, want[e]);
            }
        }
        total += want[INSTRUCTIONS];
        checked++;
        program_run_close(&pr);
    }
    printf("pmu check: %d programs (%" PRIu64 " instructions) x %d events against spike's traces (%d also at the "
           "exit store), %d differences\n",
           checked, total, EVENTS, exits, failures);
    return failures || !checked ? 1 : 0;
}
