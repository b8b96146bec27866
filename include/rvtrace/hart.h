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

/* A cache of the model (spike's --ic/--dc/--l2 S:W:B): `sets` sets (a power
 * of two) of `ways` lines of `block` bytes (a power of two, at least 8);
 * sets 0: no such cache. Replacement is random, as spike's. */
typedef struct rvt_cache_geometry {
    unsigned sets, ways, block;
} rvt_cache_geometry;

typedef struct rvt_machine_config {
    unsigned nharts;            /* spike -p; default 1 */
    rvt_mem_region ram[8];      /* spike -m; default: the reference flow's layout */
    unsigned nram;
    uint64_t max_insns;         /* 0: unlimited */
    unsigned pmp_regions;       /* spike --pmpregions; default 16 */
    bool merge_blocks;          /* multiple-retire interface: merge sequential instructions */
    FILE *console;              /* where HTIF console writes go; default stdout */
    unsigned ctr_version;       /* enum rvt_ctr_version; default RVT_CTR_0_1_4 */
    unsigned ctr_min_depth, ctr_max_depth; /* supported CTR depths (16..256, powers of two);
                                            * default 16..256 */
    bool sbi;                   /* the program is an S-mode payload: it starts in S-mode at
                                 * its entry and its ecalls are answered by a supervisor
                                 * execution environment in the host (docs/sbi.md); hart 0
                                 * starts, the others wait for HSM hart_start */
    /* The machine for supervisor software (implied by sbi and firmware): a
     * PLIC at 0xc000000, an ns16550a UART at 0x10000000 as the console (its
     * interrupt is the PLIC's source 1), a SiFive test finisher at 0x100000,
     * and a device tree (boot ROM 0x1020; for sbi also at the top of RAM, in
     * a1) with these boot arguments and initial RAM disk. */
    bool board;
    /* What the UART receives (read without blocking, as it arrives; a
     * terminal is read as it is set: the caller makes it raw). NULL: nothing.
     * While every hart waits for an interrupt, the machine waits for this
     * input up to the next timer, rather than skipping ahead to it. */
    FILE *console_input;
    const char *bootargs;
    const void *initrd;
    size_t initrd_size;
    /* M-mode firmware (a raw binary such as OpenSBI's fw_jump.bin) loaded at
     * the start of RAM, where the boot ROM jumps; the program is its payload. */
    const void *firmware;
    size_t firmware_size;
    /* Caches that count accesses and misses (docs/pmu.md): the instruction
     * and data caches of every hart (shared, as spike's) and a second level
     * behind both. The counts are the cache events of the performance
     * counters; none of this changes what the program computes. */
    rvt_cache_geometry icache, dcache, l2;
} rvt_machine_config;

/* Parses spike's S:W:B; RVT_E_ARG with a message for anything else. */
RVT_API int rvt_parse_cache_geometry(const char *spec, rvt_cache_geometry *g, rvt_diag *diag);

/* Control Transfer Records (Smctr/Ssctr): which version of the extension's
 * CSRs the harts have (docs/ctr.md lists the differences). */
enum rvt_ctr_version {
    RVT_CTR_NONE = 0,  /* no CTR, no Smstateen/Smcsrind CSRs */
    RVT_CTR_0_1_4,     /* the v0.1.4 draft: mctrcontrol, mctrstatus, miselect 0x200.. */
    RVT_CTR_1_0,       /* ratified 1.0: mctrctl, sctrdepth, sctrstatus, SCTRCLR */
};

/* Parse spike's -m syntax: "BASE:SIZE[,BASE:SIZE...]" (hex or decimal), or a
 * plain size in MiB placed at 0x80000000. */
RVT_API int rvt_parse_mem_regions(const char *spec, rvt_machine_config *cfg, rvt_diag *diag);

RVT_API void rvt_machine_config_default(rvt_machine_config *cfg);

typedef struct rvt_machine rvt_machine;

/* Builds the machine for the program in `img` (its PT_LOAD segments are copied
 * into RAM; XLEN comes from the ELF class). The image must outlive the machine. */
RVT_API int rvt_machine_new(rvt_machine **out, const rvt_machine_config *cfg, rvt_image *img, rvt_diag *diag);
RVT_API void rvt_machine_free(rvt_machine *m);

/* Retirement records go to `sink` in batches during rvt_machine_run. */
RVT_API void rvt_machine_set_sink(rvt_machine *m, rvt_retire_sink sink, void *user);
/* Or packed (rvt_retire_packed), the form the machine writes them in, to
 * a sink that hands them on to another thread (rvt_retire_relay). `space`,
 * if not NULL, gives the memory to write them in (room for *cap slots, at
 * least RVT_PACKED_MAX_SLOTS), asked for before the first record and after
 * each batch; it may return NULL for the machine's own buffer. The last
 * sink set is the one; each gets a packed stream of its own (state 0 before
 * its first record). */
typedef rvt_retire_packed *(*rvt_packed_space)(void *user, size_t *cap);
RVT_API void rvt_machine_set_packed_sink(rvt_machine *m, rvt_packed_sink sink, rvt_packed_space space, void *user);

enum rvt_stop_reason {
    RVT_STOP_EXIT = 0,     /* the program wrote its exit code to tohost */
    RVT_STOP_MAX_INSNS,    /* --max-insns reached */
    RVT_STOP_SINK,         /* the sink asked to stop */
    RVT_STOP_ERROR,        /* simulator error, see diag */
    RVT_STOP_NO_PROGRESS,  /* a hart took traps in a row without retiring anything */
    RVT_STOP_ASLEEP,       /* --sbi: every hart is stopped or suspended and nothing can wake one */
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

RVT_API int rvt_machine_run(rvt_machine *m, rvt_run_result *res, rvt_diag *diag);
/* The limit of the runs that follow (0: none), as the configuration's
 * max_insns: instructions retired and traps taken since the machine was made.
 * A run that stopped at its limit goes on with a higher one. */
RVT_API void rvt_machine_set_max_insns(rvt_machine *m, uint64_t max_insns);

/* Whether the program ended: a hart stored an exit code to tohost (though
 * the run may have stopped before the host saw it), or the host took its
 * exit call through HTIF's syscall proxy. */
RVT_API bool rvt_machine_exited(const rvt_machine *m);

/* Low-level access for tests and tools. */
RVT_API uint64_t rvt_machine_reg(const rvt_machine *m, unsigned hart, unsigned reg);
RVT_API uint64_t rvt_machine_pc(const rvt_machine *m, unsigned hart);
/* A CSR of a hart as software would read it (0 when it does not exist). */
RVT_API uint64_t rvt_machine_csr(rvt_machine *m, unsigned hart, unsigned csr);
RVT_API bool rvt_machine_read_mem(rvt_machine *m, uint64_t paddr, void *buf, size_t n);

/* Code for trace decoders: the decoded instruction at `addr` from the
 * program image, or else from the machine's memory (spike's boot ROM, which
 * traces from reset start in). `m` may be NULL. */
RVT_API bool rvt_program_insn(rvt_image *img, rvt_machine *m, uint64_t addr, rvt_insn *out);
/* Read-only memory of the machine (the boot ROM): contents a decoder may
 * trust when following register values. */
RVT_API bool rvt_machine_read_rom(rvt_machine *m, uint64_t addr, void *buf, unsigned n);
/* From now on the machine notes whether a hart executes an instruction
 * outside the executable ones of `segs` and the boot ROM, or any with
 * address translation on: until then the code of every retired instruction
 * is the image's or the ROM's, which another thread may read while the harts
 * run (rvt_program_insn reads the machine's memory only for other code).
 * RVT_E_RANGE for more than 16 executable segments (nothing is watched then). */
RVT_API int rvt_machine_watch_code(rvt_machine *m, const rvt_segment_info *segs, size_t n);
/* Whether a hart left the watched code (true when nothing is watched). */
RVT_API bool rvt_machine_left_code(const rvt_machine *m);
/* Whether a hart executed code inside the watched segments that differs from
 * the image's (the program wrote over its own code; true when nothing is
 * watched): from then on the image is not the code the records ran, and
 * the machine's memory is, read on the hart's thread as records are passed
 * on. A store that changes decoded code ends the record block before it
 * and passes the records written so far on first (rvt_machine_set_sink,
 * rvt_machine_set_packed_sink), the last of them one record per instruction
 * (whoever reads them may hold the last back until the next comes), so that
 * every record's code is read while it is in memory. */
RVT_API bool rvt_machine_changed_code(const rvt_machine *m);
/* How many of the packed records slots[0..n), from the first, ran code that
 * the watched segments of the image or the boot ROM hold (records of fewer
 * than two instructions count: their code is not read): those a consumer on
 * another thread may read the code of from the image while the harts run
 * on. From the first that did not, the records are to be read on the hart's
 * thread (the protocol as a whole: src/hart/trace_port.c). n while no hart
 * left the watched code; 0 once it changed. */
RVT_API size_t rvt_machine_image_code_prefix(rvt_machine *m, const rvt_retire_packed *slots, size_t n);


/* ---- Control transfer records ---- */

/* One CTR entry as software reads it, decoded. */
typedef struct rvt_ctr_record {
    unsigned entry;          /* logical entry: 0 is the youngest */
    uint64_t source, target; /* 0 for the disabled side of a privilege transition */
    unsigned type;           /* ctrdata.TYPE (E-Trace 2.0 itype numbering) */
    bool misp;
    bool ccv;                /* cycles is valid */
    uint64_t cycles;         /* elapsed active cycles, decoded from CCE/CCM */
} rvt_ctr_record;

/* Switches recording on as M-mode software would: `modes` is a mask of
 * 1 << privilege (M 8, S 2, U 1), `depth` the buffer depth (0: keep); the
 * buffer is cleared. RVT_E_UNSUPP when the machine has no CTR or the depth
 * is not supported. */
RVT_API int rvt_machine_ctr_enable(rvt_machine *m, unsigned hart, unsigned modes, unsigned depth, rvt_diag *diag);
/* The valid entries of a hart's CTR buffer, youngest (logical entry 0)
 * first; returns how many were written to `out` (at most `cap`). */
RVT_API size_t rvt_machine_ctr_read(rvt_machine *m, unsigned hart, rvt_ctr_record *out, size_t cap);
/* The same as they were when the program stored its exit code to tohost
 * (the end of spike's trace; the hart runs on until the host sees it), or
 * the current ones when it has not. */
RVT_API size_t rvt_machine_ctr_read_at_exit(rvt_machine *m, unsigned hart, rvt_ctr_record *out, size_t cap);
/* Elapsed cycles of a ctrdata.CC value (CCE in bits 15:12, CCM in 11:0). */
RVT_API uint64_t rvt_ctr_cycles(unsigned cc);

/* Calls `fn` each time hart 0 has retired another `period` instructions,
 * between instructions (before a trap that follows the last one): what a
 * counter overflow interrupt gives a sampling profiler, without the
 * interrupt. 0 detaches. */
typedef void (*rvt_sample_fn)(void *user, rvt_machine *m, uint64_t instret);
RVT_API void rvt_machine_sample_every(rvt_machine *m, uint64_t period, rvt_sample_fn fn, void *user);

/* `fn` runs between rounds of the harts about every 16 M instructions
 * (for a progress display; it does not change the run). NULL detaches. */
typedef void (*rvt_progress_fn)(void *user, uint64_t instret);
RVT_API void rvt_machine_set_progress(rvt_machine *m, rvt_progress_fn fn, void *user);

/* ---- Performance counters ---- */

/* mhpmevent selectors of the events beyond the SBI general ones (1 cycles,
 * 2 instructions, 5 branch instructions, 10 reference cycles): raw events
 * (SBI type 3 event_data); docs/pmu.md. */
enum {
    RVT_PMU_RAW_BRANCHES = 0x8000001,       /* conditional branches retired */
    RVT_PMU_RAW_TAKEN_BRANCHES = 0x8000002, /* ... of them taken */
    RVT_PMU_RAW_JUMPS = 0x8000003,          /* jal, jalr and their compressed forms */
    RVT_PMU_RAW_LOADS = 0x8000004,          /* integer and FP loads, LR */
    RVT_PMU_RAW_STORES = 0x8000005,         /* integer and FP stores, SC */
    RVT_PMU_RAW_AMOS = 0x8000006,           /* read-modify-write AMOs */
    RVT_PMU_RAW_EXCEPTIONS = 0x8000007,     /* exceptions taken (in the mode they came from) */
    RVT_PMU_RAW_INTERRUPTS = 0x8000008,     /* interrupts taken */
};

/* The SBI PMU's hardware cache events (type 1) are mhpmevent selectors as
 * their event_idx is: 0x10000 | cache << 3 | op << 1 | result. Offered when
 * the machine has that cache. */
enum rvt_pmu_cache_id { RVT_PMU_CACHE_L1D = 0, RVT_PMU_CACHE_L1I = 1, RVT_PMU_CACHE_LL = 2 };
enum rvt_pmu_cache_op { RVT_PMU_CACHE_READ = 0, RVT_PMU_CACHE_WRITE = 1 };
enum rvt_pmu_cache_result { RVT_PMU_CACHE_ACCESS = 0, RVT_PMU_CACHE_MISS = 1 };
#define RVT_PMU_CACHE_EVENT(cache, op, result) (0x10000u | (unsigned)(cache) << 3 | (unsigned)(op) << 1 | (unsigned)(result))

/* What a cache counted, in spike's terms (its cache simulator's report). */
typedef struct rvt_cache_stats {
    uint64_t read_accesses, write_accesses, read_misses, write_misses;
    uint64_t bytes_read, bytes_written, writebacks;
} rvt_cache_stats;
/* The counts of cache `cache` (enum rvt_pmu_cache_id) so far; false when the
 * machine has no such cache. */
RVT_API bool rvt_machine_cache_stats(const rvt_machine *m, unsigned cache, rvt_cache_stats *out);

/* Counter `counter` of a hart (0 mcycle, 2 minstret, 3..31 mhpmcounterN)
 * and, in *event, the event its mhpmevent selects (0: none). With `at_exit`
 * the value when the program stored its exit code to tohost (the current
 * one when it has not). */
RVT_API uint64_t rvt_machine_hpm_counter(rvt_machine *m, unsigned hart, unsigned counter, uint64_t *event, bool at_exit);
/* Programs mhpmcounter`counter` (3..31) to count `code` from 0, as M-mode
 * software would; RVT_E_UNSUPP for an event the model does not count. */
RVT_API int rvt_machine_hpm_program(rvt_machine *m, unsigned hart, unsigned counter, uint64_t code, rvt_diag *diag);
/* perf's spelling of an event (cycles, instructions, branches, ref-cycles,
 * and the cache events L1-dcache-loads, L1-dcache-load-misses,
 * L1-dcache-stores, L1-dcache-store-misses, L1-icache-loads,
 * L1-icache-load-misses, LLC-loads, LLC-load-misses, LLC-stores,
 * LLC-store-misses) or this model's name for a raw one (cond-branches,
 * taken-branches, jumps, loads, stores, amos, exceptions, interrupts);
 * NULL when there is none. */
RVT_API const char *rvt_pmu_event_name(uint64_t code);
RVT_API bool rvt_pmu_event_code(const char *name, uint64_t *code);

/* ---- Observation and single steps, for tandem verification ---- */

/* State elements: the Debug specification's abstract register numbers (CSRs
 * 0x0000-0x0fff, x0-x31 at 0x1000, f0-f31 at 0x1020) and three more. */
enum { RVT_ELEM_GPR = 0x1000, RVT_ELEM_FPR = 0x1020, RVT_ELEM_PC = 0x10000, RVT_ELEM_PRIV = 0x10001,
       RVT_ELEM_MTIME = 0x10002 };

typedef struct rvt_elem_value {
    uint32_t elem;
    uint64_t value;
} rvt_elem_value;

enum rvt_access_kind {
    RVT_ACCESS_LOAD,   /* an instruction's load (LR included) */
    RVT_ACCESS_STORE,  /* an instruction's store (successful SC included) */
    RVT_ACCESS_AMO,    /* read-modify-write: data = the old value, operand = rs2 */
    RVT_ACCESS_HOST,   /* a store by the host (HTIF) between instructions */
};

typedef struct rvt_mem_access {
    uint64_t vaddr, paddr;
    uint64_t data;     /* loaded value (AMO: the old value) or stored value */
    uint64_t stored;   /* AMO: the value written back */
    uint64_t operand;  /* AMO: the rs2 operand */
    uint64_t old;      /* stores and AMOs: the bytes that were there before */
    uint8_t kind;      /* enum rvt_access_kind */
    uint8_t len;       /* bytes */
} rvt_mem_access;

enum rvt_step_kind {
    RVT_STEP_RETIRED,  /* an instruction retired */
    RVT_STEP_TRAP,     /* an exception or interrupt was taken */
    RVT_STEP_HOST,     /* between instructions: the host or the timer changed state */
};

/* What one step changed, against the state at the previous observation.
 * Changes list every element whose value differs (the pc always, for
 * instructions and traps), except the free-running counters (mcycle,
 * minstret and their views), which are listed only when software wrote them. */
typedef struct rvt_step {
    int kind;              /* enum rvt_step_kind */
    uint64_t pc;           /* the instruction's address, or the trap's epc */
    uint32_t insn;         /* the instruction's bits (len 0: none, e.g. interrupts) */
    uint8_t len;
    unsigned priv;         /* privilege before the step */
    uint64_t cause, tval;  /* RVT_STEP_TRAP */
    const rvt_elem_value *changes;
    size_t nchanges;
    const rvt_mem_access *accesses;
    size_t naccesses;
} rvt_step;

typedef void (*rvt_step_observer)(void *user, const rvt_step *s);

/* Calls `fn` after every step of hart 0 (single-hart machines only) while the
 * machine runs; NULL detaches. The interpreter's loop observes each instruction
 * itself (one instruction per call of the loop only while a trigger is armed
 * or counters count, whose checks follow the instruction). The
 * step, with its change and access lists, stays valid until the machine steps
 * again: an observer may keep the pointer. */
RVT_API int rvt_machine_observe(rvt_machine *m, rvt_step_observer fn, void *user, rvt_diag *diag);

/* The state elements the model has, in a fixed order (registers, then CSRs,
 * then pc and privilege): for complete-state comparison and copying. */
RVT_API size_t rvt_machine_elements(rvt_machine *m, const uint32_t **elems);
/* Reads an element as software would (any privilege); false if the hart
 * has no such element. */
RVT_API bool rvt_machine_get(rvt_machine *m, uint32_t elem, uint64_t *value);
/* Writes an element as a debugger would (CSR values are legalised); the
 * write is not reported as a change by the next step. */
RVT_API bool rvt_machine_set(rvt_machine *m, uint32_t elem, uint64_t value);
/* Physical memory write that the next step does not report (state
 * initialisation, re-synchronisation); false outside RAM and devices. */
RVT_API bool rvt_machine_write_mem(rvt_machine *m, uint64_t paddr, const void *buf, size_t n);
/* Hart 0's LR reservation is lost, as when the machine's scheduling yields
 * it or another agent stores there: its next SC fails (the architecture
 * lets an SC fail so; a trace says whether it did). */
RVT_API void rvt_machine_drop_reservation(rvt_machine *m);
/* Resets hart 0 to its reset state (memory and the devices' interrupt
 * lines are kept); under --sbi the payload starts again, as the SBI
 * environment started it. */
RVT_API void rvt_machine_reset_hart(rvt_machine *m);

/* Steps hart 0 once: executes one instruction (or takes its exception) without
 * sampling interrupts, or, with `interrupt`, takes the highest-priority
 * pending interrupt if there is one (else executes). The observer sees it.
 * After it the host answers HTIF (tohost, fromhost) as after a quantum of
 * rvt_machine_run, unless a step observer is attached (it follows a trace,
 * which says what the host wrote). */
RVT_API void rvt_machine_step(rvt_machine *m, bool interrupt);
/* The same steps as rvt_machine_step(m, false) over and over, without
 * returning between them: the observer sees each, and the run ends after the
 * step in which it called rvt_machine_stop_run, after a trap, after an
 * instruction at which a single step would sample interrupts (CSR accesses,
 * fences, returns, WFI), or when the program stops the machine. The
 * observer changes the machine only in a step after which it stops the run. */
RVT_API void rvt_machine_run_observed(rvt_machine *m);
RVT_API void rvt_machine_stop_run(rvt_machine *m);

/* ---- Devices as a trace says: tandem verification of a whole system ---- */

/* What a device returned to a load, as the trace being verified says: true
 * with *value (its low `len` bytes) for the hart's load of `len` bytes at
 * `paddr`, false when the trace does not say. */
typedef bool (*rvt_device_load_fn)(void *user, uint64_t paddr, unsigned len, uint64_t *value);
/* From now on a load from a device (CLINT, PLIC, UART, ...) returns what
 * `fn` says, where it says something, instead of what the model's device
 * has: the traced system's devices were not the model's (their timing, the
 * console input, a real board's). The device still sees the access, so one
 * it refuses still faults and its state follows the program's accesses.
 * NULL: the devices answer again. */
RVT_API void rvt_machine_device_loads(rvt_machine *m, rvt_device_load_fn fn, void *user);
/* `held`: the devices no longer drive the harts' interrupt lines (MSIP,
 * MTIP, MEIP, and SEIP from the PLIC); they stay as rvt_machine_set(mip)
 * leaves them, so that the interrupts pending are the traced system's.
 * false: the devices drive them again (the CLINT's at once, the others' as
 * their state next changes). */
RVT_API void rvt_machine_hold_device_lines(rvt_machine *m, bool held);

#ifdef __cplusplus
}
#endif
#endif
