/* The hart model: an instruction-set simulator of RV32GC/RV64GC harts in the
 * machine spike presents to a bare-metal program (boot ROM at 0x1000, RAM,
 * CLINT, HTIF through the ELF's tohost/fromhost), whose retired-instruction
 * stream matches spike's. */
#ifndef RVTRACE_HART_H
#define RVTRACE_HART_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/common.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rvt_mem_region {
    uint64_t base, size;
} rvt_mem_region;

typedef struct rvt_machine_config {
    unsigned nharts;            /* spike -p; default 1 */
    rvt_mem_region ram[8];      /* spike -m; default: the reference flow's layout */
    unsigned nram;
    uint64_t max_insns;         /* 0: unlimited */
    unsigned pmp_regions;       /* spike --pmpregions; default 16 */
    bool merge_blocks;          /* multiple-retire interface: merge sequential instructions */
    FILE *console;              /* where HTIF console writes go; default stdout */
} rvt_machine_config;

/* Parse spike's -m syntax: "BASE:SIZE[,BASE:SIZE...]" (hex or decimal), or a
 * plain size in MiB placed at 0x80000000. */
int rvt_parse_mem_regions(const char *spec, rvt_machine_config *cfg, rvt_diag *diag);

void rvt_machine_config_default(rvt_machine_config *cfg);

typedef struct rvt_machine rvt_machine;

/* Builds the machine for the program in `img` (its PT_LOAD segments are copied
 * into RAM; XLEN comes from the ELF class). The image must outlive the machine. */
int rvt_machine_new(rvt_machine **out, const rvt_machine_config *cfg, rvt_image *img, rvt_diag *diag);
void rvt_machine_free(rvt_machine *m);

/* Retirement records go to `sink` in batches during rvt_machine_run. */
void rvt_machine_set_sink(rvt_machine *m, rvt_retire_sink sink, void *user);

enum rvt_stop_reason {
    RVT_STOP_EXIT = 0,     /* the program wrote its exit code to tohost */
    RVT_STOP_MAX_INSNS,    /* --max-insns reached */
    RVT_STOP_SINK,         /* the sink asked to stop */
    RVT_STOP_ERROR,        /* simulator error, see diag */
    RVT_STOP_NO_PROGRESS,  /* a hart took traps in a row without retiring anything */
};

typedef struct rvt_run_result {
    int reason;            /* enum rvt_stop_reason */
    int exit_code;         /* program exit code when reason is RVT_STOP_EXIT */
    uint64_t instret;      /* instructions retired by all harts */
    uint64_t traps;
    /* Where the run stopped (for a stop other than the exit): the hart that
     * stopped it, its pc, and its last trap (cause 0 and pc 0 when none). */
    unsigned hart;
    uint64_t pc;
    uint64_t last_trap_cause, last_trap_pc;
    bool had_trap;
} rvt_run_result;

int rvt_machine_run(rvt_machine *m, rvt_run_result *res, rvt_diag *diag);

/* Low-level access for tests and tools. */
uint64_t rvt_machine_reg(const rvt_machine *m, unsigned hart, unsigned reg);
uint64_t rvt_machine_pc(const rvt_machine *m, unsigned hart);
/* A CSR of a hart as software would read it (0 when it does not exist). */
uint64_t rvt_machine_csr(rvt_machine *m, unsigned hart, unsigned csr);
bool rvt_machine_read_mem(rvt_machine *m, uint64_t paddr, void *buf, size_t n);

/* Code for trace decoders: the decoded instruction at `addr` from the
 * program image, or else from the machine's memory (spike's boot ROM, which
 * traces from reset start in). `m` may be NULL. */
bool rvt_program_insn(rvt_image *img, rvt_machine *m, uint64_t addr, rvt_insn *out);
/* Read-only memory of the machine (the boot ROM): contents a decoder may
 * trust when following register values. */
bool rvt_machine_read_rom(rvt_machine *m, uint64_t addr, void *buf, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
