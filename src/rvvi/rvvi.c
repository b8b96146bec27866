/* The RVVI-API over the hart model. The DUT's side is a shadow of what the
 * testbench reported since the last step (the event, the registers it
 * wrote); the reference's side is the model's observation of its last step.
 * Compares set the one against the other and report each mismatch with the
 * event's number, so that a testbench's log points at the instruction. */
#include "rvtrace/rvvi.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/isa.h"
#include "rvtrace/tandem.h"

#define NCSRS 4096
#define MAX_VOLATILE_REGIONS 64
#define CSR_MIP 0x344
#define CSR_MISA 0x301

typedef struct net {
    const char *name;
    int mip_bit;         /* -1: not an interrupt line */
} net;

/* The hart's interrupt-pending bits the platform drives, and reset. */
static const net nets[] = {
    {"SSWInterrupt", 1},       {"MSWInterrupt", 3},      {"STimerInterrupt", 5},
    {"MTimerInterrupt", 7},    {"SExternalInterrupt", 9}, {"MExternalInterrupt", 11},
    {"reset", -1},
};
#define NNETS (sizeof nets / sizeof nets[0])

typedef struct region {
    uint64_t low, high; /* inclusive */
} region;

typedef struct rvvi_state {
    bool initialised;
    rvt_image *img;
    rvt_machine *m;
    unsigned xlen;
    /* Configuration for the next rvviRefInit. */
    char *memory_spec;
    unsigned pmp_regions;
    bool pmp_set;
    FILE *report;
    bool report_owned, report_none;

    /* The DUT's event since the last step and the registers it wrote. */
    bool dut_event, dut_trap, dut_debug;
    uint64_t dut_pc, dut_insn;
    bool dut_stale;     /* a step came after the last report: the next report starts an event */
    uint64_t dut_gpr[32], dut_fpr[32];
    uint32_t dut_gpr_written, dut_fpr_written;
    uint64_t dut_csr[NCSRS];
    bool dut_csr_known[NCSRS];
    uint16_t known_csrs[NCSRS]; /* those with dut_csr_known, in the order reported */
    unsigned nknown;
    bool dut_vr_reported;

    /* The reference's last step. */
    bool ref_stepped;
    int ref_kind;       /* enum rvt_step_kind */
    uint64_t ref_pc, ref_cause;
    uint32_t ref_insn;
    unsigned ref_len;
    uint32_t ref_gpr_written, ref_fpr_written;
    uint64_t events;    /* steps taken: the number reports give the event */
    const rvt_step *step;

    uint64_t csr_compare_mask[NCSRS];
    bool csr_compare_off[NCSRS];
    uint64_t csr_volatile[NCSRS];
    uint16_t volatile_csrs[NCSRS]; /* those with a non-zero csr_volatile */
    unsigned nvolatile_csrs;
    region volatile_mem[MAX_VOLATILE_REGIONS];
    unsigned nvolatile;
    uint64_t net_value[NNETS];
    uint32_t net_group[NNETS];
    bool lines_held;

    uint64_t metrics[RVVI_METRIC_FATALS + 1];
    char error[512];
    char text[256];     /* the string the last name or disassembly call returned */
} rvvi_state;

static rvvi_state st = {.report = NULL};

static FILE *report_stream(void) {
    if (st.report_none)
        return NULL;
    return st.report ? st.report : stderr;
}

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.error, sizeof st.error, fmt, ap);
    va_end(ap);
    st.metrics[RVVI_METRIC_ERRORS]++;
    FILE *f = report_stream();
    if (f)
        fprintf(f, "rvvi: error: %s\n", st.error);
}

/* A query's negative answer: rvviErrorGet says why, nothing is reported. */
static void note_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.error, sizeof st.error, fmt, ap);
    va_end(ap);
}

static void mismatch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mismatch(const char *fmt, ...) {
    st.metrics[RVVI_METRIC_MISMATCHES]++;
    FILE *f = report_stream();
    if (!f)
        return;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(f, "rvvi: mismatch at event %" PRIu64 " (pc %#" PRIx64 "): %s\n", st.events ? st.events - 1 : 0,
            st.ref_pc, what);
}

/* The hart this model has (0) and an initialised reference; else an error. */
static bool usable(uint32_t hart, const char *fn) {
    if (!st.initialised) {
        set_error("%s: the reference is not initialised (rvviRefInit)", fn);
        return false;
    }
    if (hart != 0) {
        set_error("%s: hart %" PRIu32 ": the reference has hart 0 only", fn, hart);
        return false;
    }
    return true;
}

static uint64_t xmask(void) { return st.xlen == 32 ? 0xffffffffull : ~0ull; }

static void observe(void *user, const rvt_step *s) {
    (void)user;
    st.step = s;
}

static void reset_dut_shadow(void) {
    st.dut_event = st.dut_trap = st.dut_debug = false;
    st.dut_gpr_written = st.dut_fpr_written = 0;
    st.dut_stale = false;
}

/* A DUT report after a step begins the next event. */
static void dut_report(void) {
    if (st.dut_stale)
        reset_dut_shadow();
}

static void release(void) {
    if (st.m)
        rvt_machine_free(st.m);
    if (st.img)
        rvt_image_free(st.img);
    st.m = NULL;
    st.img = NULL;
    st.initialised = false;
}

bool_t rvviVersionCheck(uint32_t version) {
    /* A header of the same major version with a lower minor declares a
     * subset of what is here. */
    unsigned major = version >> 24, minor = version & 0xffffff;
    if (major == RVVI_API_VERSION_MAJOR && minor <= RVVI_API_VERSION_MINOR)
        return RVVI_TRUE;
    set_error("rvviVersionCheck: the caller has RVVI-API %u.%u, this library %d.%d", major, minor,
              RVVI_API_VERSION_MAJOR, RVVI_API_VERSION_MINOR);
    return RVVI_FALSE;
}

bool_t rvviRefInit(const char *programPath) {
    release();
    if (!programPath) {
        set_error("rvviRefInit: the model needs a program: its ELF class gives the XLEN");
        return RVVI_FALSE;
    }
    rvt_diag diag = {0};
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    if (st.memory_spec && rvt_parse_mem_regions(st.memory_spec, &cfg, &diag) != RVT_OK) {
        set_error("rvviRefInit: memory %s: %s", st.memory_spec, diag.msg);
        return RVVI_FALSE;
    }
    if (st.pmp_set)
        cfg.pmp_regions = st.pmp_regions;
    if (rvt_image_new(&st.img) != RVT_OK || rvt_image_load_elf(st.img, programPath, 0, &diag) != RVT_OK) {
        set_error("rvviRefInit: %s: %s", programPath, diag.msg[0] ? diag.msg : "cannot load");
        release();
        return RVVI_FALSE;
    }
    if (rvt_machine_new(&st.m, &cfg, st.img, &diag) != RVT_OK || rvt_machine_observe(st.m, observe, NULL, &diag) != RVT_OK) {
        set_error("rvviRefInit: %s: %s", programPath, diag.msg);
        release();
        return RVVI_FALSE;
    }
    st.xlen = rvt_image_xlen(st.img);
    st.initialised = true;
    reset_dut_shadow();
    st.ref_stepped = false;
    st.events = 0;
    st.step = NULL;
    st.nvolatile = 0;
    st.lines_held = false;
    memset(st.dut_csr_known, 0, sizeof st.dut_csr_known);
    st.nknown = st.nvolatile_csrs = 0;
    st.dut_vr_reported = false;
    memset(st.csr_compare_off, 0, sizeof st.csr_compare_off);
    memset(st.csr_volatile, 0, sizeof st.csr_volatile);
    memset(st.net_value, 0, sizeof st.net_value);
    memset(st.metrics, 0, sizeof st.metrics);
    for (unsigned i = 0; i < NCSRS; i++)
        st.csr_compare_mask[i] = ~0ull;
    /* The registers start as the reference's reset state has them (zero):
     * a DUT whose reset differs reports its values before its first event. */
    for (unsigned i = 0; i < 32; i++) {
        rvt_machine_get(st.m, RVT_ELEM_GPR + i, &st.dut_gpr[i]);
        rvt_machine_get(st.m, RVT_ELEM_FPR + i, &st.dut_fpr[i]);
    }
    st.error[0] = 0;
    return RVVI_TRUE;
}

bool_t rvviRefShutdown(void) {
    release();
    free(st.memory_spec);
    st.memory_spec = NULL;
    if (st.report_owned)
        fclose(st.report);
    st.report = NULL;
    st.report_owned = st.report_none = false;
    return RVVI_TRUE;
}

bool_t rvviRefProgramLoad(const char *programPath) {
    if (!usable(0, "rvviRefProgramLoad"))
        return RVVI_FALSE;
    if (!programPath) {
        set_error("rvviRefProgramLoad: no path");
        return RVVI_FALSE;
    }
    rvt_image *img = NULL;
    rvt_diag diag = {0};
    if (rvt_image_new(&img) != RVT_OK || rvt_image_load_elf(img, programPath, 0, &diag) != RVT_OK) {
        set_error("rvviRefProgramLoad: %s: %s", programPath, diag.msg[0] ? diag.msg : "cannot load");
        rvt_image_free(img);
        return RVVI_FALSE;
    }
    rvt_segment_info segs[64];
    size_t n = rvt_image_segments(img, segs, 64);
    bool ok = n <= 64;
    uint8_t buf[4096];
    for (size_t i = 0; ok && i < n; i++) {
        for (uint64_t off = 0; ok && off < segs[i].memsz; off += sizeof buf) {
            size_t len = segs[i].memsz - off < sizeof buf ? (size_t)(segs[i].memsz - off) : sizeof buf;
            memset(buf, 0, len);
            rvt_image_read(img, segs[i].vaddr + off, buf, len);
            ok = rvt_machine_write_mem(st.m, segs[i].vaddr + off, buf, len);
        }
    }
    rvt_image_free(img);
    if (!ok) {
        set_error("rvviRefProgramLoad: %s: a segment lies outside the reference's memory", programPath);
        return RVVI_FALSE;
    }
    return RVVI_TRUE;
}

bool_t rvviRefConfigSetInt(uint64_t configParam, uint64_t value) {
    if (configParam == RVT_RVVI_CONFIG_PMP_REGIONS && value <= 64) {
        st.pmp_regions = (unsigned)value;
        st.pmp_set = true;
        return RVVI_TRUE;
    }
    set_error("rvviRefConfigSetInt: no parameter %#" PRIx64 " with value %" PRIu64, configParam, value);
    return RVVI_FALSE;
}

bool_t rvviRefConfigSetString(uint64_t configParam, const char *value) {
    if (!value) {
        set_error("rvviRefConfigSetString: no value");
        return RVVI_FALSE;
    }
    if (configParam == RVT_RVVI_CONFIG_MEMORY) {
        char *copy = strdup(value);
        if (!copy)
            return RVVI_FALSE;
        free(st.memory_spec);
        st.memory_spec = copy;
        return RVVI_TRUE;
    }
    if (configParam == RVT_RVVI_CONFIG_REPORT) {
        FILE *f = NULL;
        if (value[0] && strcmp(value, "-") != 0 && !(f = fopen(value, "w"))) {
            set_error("rvviRefConfigSetString: cannot write %s", value);
            return RVVI_FALSE;
        }
        if (st.report_owned)
            fclose(st.report);
        st.report_none = !value[0];
        st.report = value[0] && !f ? stdout : f;
        st.report_owned = f != NULL;
        return RVVI_TRUE;
    }
    set_error("rvviRefConfigSetString: no parameter %#" PRIx64, configParam);
    return RVVI_FALSE;
}

const char *rvviErrorGet(void) { return st.error; }

uint64_t rvviRefMetricGet(rvviMetricE metric) {
    if ((unsigned)metric > RVVI_METRIC_FATALS) {
        set_error("rvviRefMetricGet: no metric %d", (int)metric);
        return 0;
    }
    return st.metrics[metric];
}

/* ---- The DUT ---- */

void rvviDutGprSet(uint32_t hartId, uint32_t gprIndex, uint64_t value) {
    if (!usable(hartId, "rvviDutGprSet"))
        return;
    if (gprIndex >= 32) {
        set_error("rvviDutGprSet: no x%" PRIu32, gprIndex);
        return;
    }
    dut_report();
    st.dut_gpr[gprIndex] = value & xmask();
    st.dut_gpr_written |= 1u << gprIndex;
}

void rvviDutFprSet(uint32_t hartId, uint32_t fprIndex, uint64_t value) {
    if (!usable(hartId, "rvviDutFprSet"))
        return;
    if (fprIndex >= 32) {
        set_error("rvviDutFprSet: no f%" PRIu32, fprIndex);
        return;
    }
    dut_report();
    st.dut_fpr[fprIndex] = value;
    st.dut_fpr_written |= 1u << fprIndex;
}

void rvviDutVrSet(uint32_t hartId, uint32_t vrIndex, uint32_t byteIndex, uint8_t data) {
    (void)data;
    if (!usable(hartId, "rvviDutVrSet"))
        return;
    dut_report();
    st.dut_vr_reported = true;
    set_error("rvviDutVrSet: v%" PRIu32 " byte %" PRIu32 ": the reference has no vector registers", vrIndex, byteIndex);
}

/* CSRs that are views of the same state (fflags and frm are two fields of
 * fcsr, not views of each other): the DUT's value of one makes what it said
 * of the other stale. */
static const uint16_t views[][2] = {
    {0x300, 0x100}, /* mstatus, sstatus */
    {0x304, 0x104}, /* mie, sie */
    {0x344, 0x144}, /* mip, sip */
    {0x003, 0x001}, /* fcsr, fflags */
    {0x003, 0x002}, /* fcsr, frm */
};

static void forget_other_views(unsigned csr) {
    for (size_t f = 0; f < sizeof views / sizeof views[0]; f++) {
        if (views[f][0] == csr)
            st.dut_csr_known[views[f][1]] = false;
        else if (views[f][1] == csr)
            st.dut_csr_known[views[f][0]] = false;
    }
}

void rvviDutCsrSet(uint32_t hartId, uint32_t csrIndex, uint64_t value) {
    if (!usable(hartId, "rvviDutCsrSet"))
        return;
    if (csrIndex >= NCSRS) {
        set_error("rvviDutCsrSet: no CSR %#" PRIx32, csrIndex);
        return;
    }
    dut_report();
    st.dut_csr[csrIndex] = value & xmask();
    forget_other_views(csrIndex);
    bool listed = false;
    for (unsigned i = 0; i < st.nknown; i++)
        listed |= st.known_csrs[i] == csrIndex;
    if (!listed)
        st.known_csrs[st.nknown++] = (uint16_t)csrIndex;
    st.dut_csr_known[csrIndex] = true;
}

void rvviDutRetire(uint32_t hartId, uint64_t dutPc, uint64_t dutInsBin, bool_t debugMode) {
    if (!usable(hartId, "rvviDutRetire"))
        return;
    dut_report();
    st.dut_event = true;
    st.dut_trap = false;
    st.dut_pc = dutPc & xmask();
    st.dut_insn = dutInsBin;
    st.dut_debug = debugMode != 0;
}

void rvviDutTrap(uint32_t hartId, uint64_t dutPc, uint64_t dutInsBin) {
    if (!usable(hartId, "rvviDutTrap"))
        return;
    dut_report();
    st.dut_event = true;
    st.dut_trap = true;
    st.dut_pc = dutPc & xmask();
    st.dut_insn = dutInsBin;
    st.dut_debug = false;
}

static bool volatile_address(uint64_t addr, unsigned len) {
    for (unsigned i = 0; i < st.nvolatile; i++)
        if (addr <= st.volatile_mem[i].high && addr + len - 1 >= st.volatile_mem[i].low)
            return true;
    return false;
}

void rvviDutBusWrite(uint32_t hartId, uint64_t address, uint64_t value, uint64_t byteEnableMask) {
    if (!usable(hartId, "rvviDutBusWrite"))
        return;
    /* Memory the model has is the program's stores, which the model makes
     * itself; what the DUT's bus writes to a volatile region (a device of
     * the DUT's platform) the reference's memory takes. */
    for (unsigned b = 0; b < 8; b++) {
        if (!(byteEnableMask >> b & 1) || !volatile_address(address + b, 1))
            continue;
        uint8_t byte = (uint8_t)(value >> (8 * b));
        if (!rvt_machine_write_mem(st.m, address + b, &byte, 1))
            set_error("rvviDutBusWrite: %#" PRIx64 " is outside the reference's memory", address + b);
    }
}

void rvviDutCycleCountSet(uint64_t cycleCount) { st.metrics[RVVI_METRIC_CYCLES] = cycleCount; }

/* ---- Stepping ---- */

static bool is_volatile_csr_read(const rvt_insn *in) {
    /* Zicsr: SYSTEM opcode with a non-zero funct3 other than 4. */
    uint32_t raw = in->raw;
    unsigned f3 = (raw >> 12) & 7;
    if (in->len != 4 || (raw & 0x7f) != 0x73 || f3 == 0 || f3 == 4)
        return false;
    return st.csr_volatile[raw >> 20] != 0;
}

/* What the DUT says a volatile read gave: its register writes of the event. */
static void take_dut_writes(void) {
    for (unsigned r = 1; r < 32; r++)
        if (st.dut_gpr_written >> r & 1)
            rvt_machine_set(st.m, RVT_ELEM_GPR + r, st.dut_gpr[r]);
    for (unsigned r = 0; r < 32; r++)
        if (st.dut_fpr_written >> r & 1)
            rvt_machine_set(st.m, RVT_ELEM_FPR + r, st.dut_fpr[r]);
    st.ref_gpr_written |= st.dut_gpr_written & ~1u;
    st.ref_fpr_written |= st.dut_fpr_written;
}

bool_t rvviRefEventStep(uint32_t hartId) {
    if (!usable(hartId, "rvviRefEventStep"))
        return RVVI_FALSE;
    if (st.dut_stale) /* a second step with no report between: no DUT event */
        reset_dut_shadow();
    /* A volatile CSR holds, in its volatile bits, what the DUT last said. */
    for (unsigned i = 0; i < st.nvolatile_csrs; i++) {
        unsigned c = st.volatile_csrs[i];
        if (!st.csr_volatile[c] || !st.dut_csr_known[c])
            continue;
        uint64_t v = 0;
        if (rvt_machine_get(st.m, c, &v)) {
            uint64_t want = (v & ~st.csr_volatile[c]) | (st.dut_csr[c] & st.csr_volatile[c]);
            if (want != v)
                rvt_machine_set(st.m, c, want);
        }
    }
    /* Interrupts are taken where the DUT took one: an event that is a trap
     * samples them, a retirement does not. */
    bool interrupt = !st.dut_event || st.dut_trap;
    st.step = NULL;
    for (int tries = 0; tries < 16; tries++) {
        rvt_machine_step(st.m, interrupt);
        if (st.step && st.step->kind != RVT_STEP_HOST)
            break;
        st.step = NULL;
    }
    st.events++;
    st.ref_stepped = st.step != NULL;
    if (!st.step) {
        st.dut_stale = true;
        set_error("rvviRefEventStep: the reference did not step (event %" PRIu64 ")", st.events - 1);
        return RVVI_FALSE;
    }
    const rvt_step *s = st.step;
    st.ref_kind = s->kind;
    st.ref_pc = s->pc & xmask();
    st.ref_insn = s->insn;
    st.ref_len = s->len;
    st.ref_cause = s->cause;
    st.ref_gpr_written = st.ref_fpr_written = 0;
    for (size_t i = 0; i < s->nchanges; i++) {
        uint32_t e = s->changes[i].elem;
        if (e >= RVT_ELEM_GPR && e < RVT_ELEM_GPR + 32)
            st.ref_gpr_written |= 1u << (e - RVT_ELEM_GPR);
        else if (e >= RVT_ELEM_FPR && e < RVT_ELEM_FPR + 32)
            st.ref_fpr_written |= 1u << (e - RVT_ELEM_FPR);
    }
    st.metrics[s->kind == RVT_STEP_TRAP ? RVVI_METRIC_TRAPS : RVVI_METRIC_RETIRES]++;
    if (s->kind == RVT_STEP_RETIRED && st.dut_event && !st.dut_trap) {
        bool volatile_load = false;
        for (size_t i = 0; i < s->naccesses; i++) {
            const rvt_mem_access *a = &s->accesses[i];
            if ((a->kind == RVT_ACCESS_LOAD || a->kind == RVT_ACCESS_AMO) && volatile_address(a->paddr, a->len))
                volatile_load = true;
        }
        rvt_insn in;
        rvt_decode(s->insn, st.xlen, &in);
        if (volatile_load || is_volatile_csr_read(&in))
            take_dut_writes();
    }
    st.dut_stale = true;
    return RVVI_TRUE;
}

/* ---- Comparing ---- */

static bool stepped(const char *fn) {
    if (st.ref_stepped)
        return true;
    set_error("%s: no event to compare (rvviRefEventStep)", fn);
    return false;
}

bool_t rvviRefPcCompare(uint32_t hartId) {
    if (!usable(hartId, "rvviRefPcCompare") || !stepped("rvviRefPcCompare"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_PC]++;
    bool ok = true;
    bool ref_trap = st.ref_kind == RVT_STEP_TRAP;
    if (st.dut_event && st.dut_trap != ref_trap) {
        bool irq = ref_trap && (st.ref_cause >> (st.xlen - 1) & 1);
        if (ref_trap)
            mismatch("the DUT retired at %#" PRIx64 ", the reference took a trap (%s, cause %#" PRIx64 ")",
                     st.dut_pc, rvt_trap_cause_name(irq, st.ref_cause & (xmask() >> 1)), st.ref_cause);
        else
            mismatch("the DUT took a trap at %#" PRIx64 ", the reference retired the instruction", st.dut_pc);
        ok = false;
    }
    if (st.dut_event && st.dut_pc != st.ref_pc) {
        mismatch("pc: DUT %#" PRIx64 ", reference %#" PRIx64, st.dut_pc, st.ref_pc);
        ok = false;
    }
    return ok ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefInsBinCompare(uint32_t hartId) {
    if (!usable(hartId, "rvviRefInsBinCompare") || !stepped("rvviRefInsBinCompare"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_INSBIN]++;
    if (!st.ref_len || !st.dut_event)
        return RVVI_TRUE; /* an interrupt before any instruction: no bits to compare */
    uint64_t mask = st.ref_len == 2 ? 0xffff : 0xffffffff;
    if ((st.dut_insn & mask) != (st.ref_insn & mask)) {
        mismatch("instruction: DUT %#" PRIx64 ", reference %#" PRIx32, st.dut_insn, st.ref_insn);
        return RVVI_FALSE;
    }
    return RVVI_TRUE;
}

static bool compare_gpr(unsigned r) {
    uint64_t ref = 0;
    rvt_machine_get(st.m, RVT_ELEM_GPR + r, &ref);
    if (ref == st.dut_gpr[r])
        return true;
    mismatch("x%u (%s): DUT %#" PRIx64 ", reference %#" PRIx64, r, rvt_gpr_name(r), st.dut_gpr[r], ref);
    return false;
}

bool_t rvviRefGprsCompare(uint32_t hartId) {
    if (!usable(hartId, "rvviRefGprsCompare"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_GPR]++;
    bool ok = true;
    for (unsigned r = 1; r < 32; r++)
        ok &= compare_gpr(r);
    return ok ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefGprsCompareWritten(uint32_t hartId, bool_t ignoreX0) {
    if (!usable(hartId, "rvviRefGprsCompareWritten") || !stepped("rvviRefGprsCompareWritten"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_GPR]++;
    bool ok = true;
    uint32_t dut = st.dut_gpr_written, ref = st.ref_gpr_written;
    if (ignoreX0)
        dut &= ~1u;
    for (unsigned r = 0; r < 32; r++) {
        bool d = dut >> r & 1, m = ref >> r & 1;
        if (!d && !m)
            continue;
        uint64_t refval = 0;
        rvt_machine_get(st.m, RVT_ELEM_GPR + r, &refval);
        /* The model reports a write that changed the register: a DUT write
         * of the value the register held is one the model made too. */
        if (d && !m && st.dut_gpr[r] == refval)
            continue;
        if (d != m) {
            mismatch("x%u (%s) written by the %s only (DUT %#" PRIx64 ", reference %#" PRIx64 ")", r,
                     rvt_gpr_name(r), d ? "DUT" : "reference", st.dut_gpr[r], refval);
            ok = false;
        } else if (r != 0) {
            ok &= compare_gpr(r);
        }
    }
    return ok ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefFprsCompare(uint32_t hartId) {
    if (!usable(hartId, "rvviRefFprsCompare"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_FPR]++;
    bool ok = true;
    for (unsigned r = 0; r < 32; r++) {
        uint64_t ref = 0;
        rvt_machine_get(st.m, RVT_ELEM_FPR + r, &ref);
        if (ref != st.dut_fpr[r]) {
            mismatch("f%u (%s): DUT %#" PRIx64 ", reference %#" PRIx64, r, rvt_fpr_name(r), st.dut_fpr[r], ref);
            ok = false;
        }
    }
    return ok ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefVrsCompare(uint32_t hartId) {
    if (!usable(hartId, "rvviRefVrsCompare"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_VR]++;
    if (st.dut_vr_reported) {
        mismatch("the DUT wrote vector registers, which the reference does not have");
        return RVVI_FALSE;
    }
    return RVVI_TRUE;
}

/* A CSR the DUT has reported, compared in the bits neither masked nor volatile. */
static bool compare_csr(unsigned c) {
    uint64_t ref = 0;
    if (!st.dut_csr_known[c] || st.csr_compare_off[c] || !rvt_machine_get(st.m, c, &ref))
        return true;
    uint64_t mask = st.csr_compare_mask[c] & ~st.csr_volatile[c] & xmask();
    if (((ref ^ st.dut_csr[c]) & mask) == 0)
        return true;
    const char *name = rvt_csr_name(c);
    mismatch("%s (csr %#x): DUT %#" PRIx64 ", reference %#" PRIx64 " (compared bits %#" PRIx64 ")",
             name ? name : "?", c, st.dut_csr[c], ref, mask);
    return false;
}

bool_t rvviRefCsrCompare(uint32_t hartId, uint32_t csrIndex) {
    if (!usable(hartId, "rvviRefCsrCompare"))
        return RVVI_FALSE;
    if (csrIndex >= NCSRS) {
        set_error("rvviRefCsrCompare: no CSR %#" PRIx32, csrIndex);
        return RVVI_FALSE;
    }
    st.metrics[RVVI_METRIC_COMPARISONS_CSR]++;
    return compare_csr(csrIndex) ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefCsrsCompare(uint32_t hartId) {
    if (!usable(hartId, "rvviRefCsrsCompare"))
        return RVVI_FALSE;
    st.metrics[RVVI_METRIC_COMPARISONS_CSR]++;
    bool ok = true;
    for (unsigned i = 0; i < st.nknown; i++)
        ok &= compare_csr(st.known_csrs[i]);
    return ok ? RVVI_TRUE : RVVI_FALSE;
}

void rvviRefCsrCompareEnable(uint32_t hartId, uint32_t csrIndex, bool_t enableState) {
    if (!usable(hartId, "rvviRefCsrCompareEnable"))
        return;
    if (csrIndex >= NCSRS) {
        set_error("rvviRefCsrCompareEnable: no CSR %#" PRIx32, csrIndex);
        return;
    }
    st.csr_compare_off[csrIndex] = !enableState;
}

void rvviRefCsrCompareMask(uint32_t hartId, uint32_t csrIndex, uint64_t mask) {
    if (!usable(hartId, "rvviRefCsrCompareMask"))
        return;
    if (csrIndex >= NCSRS) {
        set_error("rvviRefCsrCompareMask: no CSR %#" PRIx32, csrIndex);
        return;
    }
    st.csr_compare_mask[csrIndex] = mask;
}

/* ---- Volatile state ---- */

bool_t rvviRefCsrSetVolatile(uint32_t hartId, uint32_t csrIndex) {
    return rvviRefCsrSetVolatileMask(hartId, csrIndex, ~0ull);
}

bool_t rvviRefCsrSetVolatileMask(uint32_t hartId, uint32_t csrIndex, uint64_t csrMask) {
    if (!usable(hartId, "rvviRefCsrSetVolatileMask"))
        return RVVI_FALSE;
    if (csrIndex >= NCSRS || !rvviRefCsrPresent(hartId, csrIndex)) {
        set_error("rvviRefCsrSetVolatileMask: the reference has no CSR %#" PRIx32, csrIndex);
        return RVVI_FALSE;
    }
    bool listed = false;
    for (unsigned i = 0; i < st.nvolatile_csrs; i++)
        listed |= st.volatile_csrs[i] == csrIndex;
    if (!listed)
        st.volatile_csrs[st.nvolatile_csrs++] = (uint16_t)csrIndex;
    st.csr_volatile[csrIndex] = csrMask;
    return RVVI_TRUE;
}

bool_t rvviRefMemorySetVolatile(uint64_t addressLow, uint64_t addressHigh) {
    if (addressLow > addressHigh) {
        set_error("rvviRefMemorySetVolatile: %#" PRIx64 " is above %#" PRIx64, addressLow, addressHigh);
        return RVVI_FALSE;
    }
    if (st.nvolatile == MAX_VOLATILE_REGIONS) {
        set_error("rvviRefMemorySetVolatile: more than %d regions", MAX_VOLATILE_REGIONS);
        return RVVI_FALSE;
    }
    st.volatile_mem[st.nvolatile++] = (region){addressLow, addressHigh};
    return RVVI_TRUE;
}

bool_t rvviRefMemorySetPrivilege(uint64_t addrLo, uint64_t addrHi, uint32_t access) {
    set_error("rvviRefMemorySetPrivilege: [%#" PRIx64 ", %#" PRIx64 "] access %" PRIu32
              ": the model's memory map is spike's and fixed",
              addrLo, addrHi, access);
    return RVVI_FALSE;
}

/* ---- Nets ---- */

uint64_t rvviRefNetIndexGet(const char *name) {
    for (unsigned i = 0; name && i < NNETS; i++)
        if (strcmp(nets[i].name, name) == 0)
            return i;
    set_error("rvviRefNetIndexGet: no net %s", name ? name : "(null)");
    return (uint64_t)RVVI_INVALID_INDEX;
}

static bool net_valid(uint64_t index, const char *fn) {
    if (index < NNETS)
        return true;
    set_error("%s: no net %" PRIu64, fn, index);
    return false;
}

void rvviRefNetGroupSet(uint64_t netIndex, uint32_t group) {
    if (net_valid(netIndex, "rvviRefNetGroupSet"))
        st.net_group[netIndex] = group;
}

void rvviRefNetSet(uint64_t netIndex, uint64_t value, uint64_t when) {
    (void)when; /* each change takes effect before the next step */
    if (!usable(0, "rvviRefNetSet") || !net_valid(netIndex, "rvviRefNetSet"))
        return;
    uint64_t old = st.net_value[netIndex];
    st.net_value[netIndex] = value;
    const net *n = &nets[netIndex];
    if (n->mip_bit < 0) {
        if (value && !old) /* reset asserted */
            rvt_machine_reset_hart(st.m);
        return;
    }
    /* From the testbench's first interrupt net on, its nets are the lines. */
    if (!st.lines_held) {
        rvt_machine_hold_device_lines(st.m, true);
        st.lines_held = true;
    }
    uint64_t mip = 0;
    rvt_machine_get(st.m, CSR_MIP, &mip);
    uint64_t want = value ? mip | 1ull << n->mip_bit : mip & ~(1ull << n->mip_bit);
    if (want != mip)
        rvt_machine_set(st.m, CSR_MIP, want);
}

uint64_t rvviRefNetGet(uint64_t netIndex) {
    if (!net_valid(netIndex, "rvviRefNetGet"))
        return 0;
    if (st.initialised && nets[netIndex].mip_bit >= 0) {
        uint64_t mip = 0;
        rvt_machine_get(st.m, CSR_MIP, &mip);
        return mip >> nets[netIndex].mip_bit & 1;
    }
    return st.net_value[netIndex];
}

/* ---- The reference's state ---- */

bool_t rvviRefPcSet(uint32_t hartId, uint64_t address) {
    if (!usable(hartId, "rvviRefPcSet"))
        return RVVI_FALSE;
    return rvt_machine_set(st.m, RVT_ELEM_PC, address & xmask()) ? RVVI_TRUE : RVVI_FALSE;
}

uint64_t rvviRefPcGet(uint32_t hartId) {
    uint64_t v = 0;
    if (usable(hartId, "rvviRefPcGet"))
        rvt_machine_get(st.m, RVT_ELEM_PC, &v);
    return v;
}

void rvviRefGprSet(uint32_t hartId, uint32_t gprIndex, uint64_t gprValue) {
    if (!usable(hartId, "rvviRefGprSet"))
        return;
    if (gprIndex >= 32) {
        set_error("rvviRefGprSet: no x%" PRIu32, gprIndex);
        return;
    }
    rvt_machine_set(st.m, RVT_ELEM_GPR + gprIndex, gprValue & xmask());
}

uint64_t rvviRefGprGet(uint32_t hartId, uint32_t gprIndex) {
    uint64_t v = 0;
    if (!usable(hartId, "rvviRefGprGet"))
        return 0;
    if (gprIndex >= 32) {
        set_error("rvviRefGprGet: no x%" PRIu32, gprIndex);
        return 0;
    }
    rvt_machine_get(st.m, RVT_ELEM_GPR + gprIndex, &v);
    return v;
}

uint32_t rvviRefGprsWrittenGet(uint32_t hartId) {
    if (!usable(hartId, "rvviRefGprsWrittenGet"))
        return 0;
    return st.ref_stepped ? st.ref_gpr_written : 0;
}

void rvviRefFprSet(uint32_t hartId, uint32_t fprIndex, uint64_t fprValue) {
    if (!usable(hartId, "rvviRefFprSet"))
        return;
    if (fprIndex >= 32) {
        set_error("rvviRefFprSet: no f%" PRIu32, fprIndex);
        return;
    }
    rvt_machine_set(st.m, RVT_ELEM_FPR + fprIndex, fprValue);
}

uint64_t rvviRefFprGet(uint32_t hartId, uint32_t fprIndex) {
    uint64_t v = 0;
    if (!usable(hartId, "rvviRefFprGet"))
        return 0;
    if (fprIndex >= 32) {
        set_error("rvviRefFprGet: no f%" PRIu32, fprIndex);
        return 0;
    }
    rvt_machine_get(st.m, RVT_ELEM_FPR + fprIndex, &v);
    return v;
}

void rvviRefVrSet(uint32_t hartId, uint32_t vrIndex, uint32_t byteIndex, uint8_t data) {
    (void)hartId, (void)data;
    set_error("rvviRefVrSet: v%" PRIu32 " byte %" PRIu32 ": the reference has no vector registers", vrIndex, byteIndex);
}

uint8_t rvviRefVrGet(uint32_t hartId, uint32_t vrIndex, uint32_t byteIndex) {
    (void)hartId;
    set_error("rvviRefVrGet: v%" PRIu32 " byte %" PRIu32 ": the reference has no vector registers", vrIndex, byteIndex);
    return 0;
}

void rvviRefCsrSet(uint32_t hartId, uint32_t csrIndex, uint64_t value) {
    if (!usable(hartId, "rvviRefCsrSet"))
        return;
    if (csrIndex >= NCSRS || !rvt_machine_set(st.m, csrIndex, value & xmask()))
        set_error("rvviRefCsrSet: the reference has no CSR %#" PRIx32, csrIndex);
}

uint64_t rvviRefCsrGet(uint32_t hartId, uint32_t csrIndex) {
    uint64_t v = 0;
    if (!usable(hartId, "rvviRefCsrGet"))
        return 0;
    if (csrIndex >= NCSRS || !rvt_machine_get(st.m, csrIndex, &v)) {
        set_error("rvviRefCsrGet: the reference has no CSR %#" PRIx32, csrIndex);
        return 0;
    }
    return v;
}

uint64_t rvviRefInsBinGet(uint32_t hartId) {
    if (!usable(hartId, "rvviRefInsBinGet"))
        return 0;
    return st.ref_stepped ? st.ref_insn : 0;
}

void rvviRefReservationInvalidate(uint32_t hartId) {
    if (usable(hartId, "rvviRefReservationInvalidate"))
        rvt_machine_drop_reservation(st.m);
}

void rvviRefMemoryWrite(uint32_t hartId, uint64_t address, uint64_t data, uint32_t size) {
    if (!usable(hartId, "rvviRefMemoryWrite"))
        return;
    if (size < 1 || size > 8) {
        set_error("rvviRefMemoryWrite: size %" PRIu32 " (1 to 8)", size);
        return;
    }
    uint8_t bytes[8];
    for (unsigned i = 0; i < size; i++)
        bytes[i] = (uint8_t)(data >> (8 * i));
    if (!rvt_machine_write_mem(st.m, address, bytes, size))
        set_error("rvviRefMemoryWrite: %#" PRIx64 " is outside the reference's memory", address);
}

uint64_t rvviRefMemoryRead(uint32_t hartId, uint64_t address, uint32_t size) {
    if (!usable(hartId, "rvviRefMemoryRead"))
        return 0;
    if (size < 1 || size > 8) {
        set_error("rvviRefMemoryRead: size %" PRIu32 " (1 to 8)", size);
        return 0;
    }
    uint8_t bytes[8] = {0};
    if (!rvt_machine_read_mem(st.m, address, bytes, size)) {
        set_error("rvviRefMemoryRead: %#" PRIx64 " is outside the reference's memory", address);
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)bytes[i] << (8 * i);
    return v;
}

void rvviRefStateDump(uint32_t hartId) {
    if (!usable(hartId, "rvviRefStateDump"))
        return;
    FILE *f = report_stream() ? report_stream() : stdout;
    uint64_t pc = 0, priv = 0;
    rvt_machine_get(st.m, RVT_ELEM_PC, &pc);
    rvt_machine_get(st.m, RVT_ELEM_PRIV, &priv);
    fprintf(f, "rvvi: hart 0 pc %#" PRIx64 " privilege %" PRIu64 " after %" PRIu64 " events\n", pc, priv, st.events);
    for (unsigned r = 0; r < 32; r++) {
        uint64_t v = 0;
        rvt_machine_get(st.m, RVT_ELEM_GPR + r, &v);
        fprintf(f, "  x%-2u %-4s %#018" PRIx64 "%s", r, rvt_gpr_name(r), v, r % 4 == 3 ? "\n" : "");
    }
}

/* ---- Names ---- */

const char *rvviDasmInsBin(uint32_t hartId, uint64_t address, uint64_t insBin) {
    if (!usable(hartId, "rvviDasmInsBin"))
        return "";
    rvt_insn in;
    rvt_decode((uint32_t)insBin, st.xlen, &in);
    rvt_disasm_ctx ctx;
    rvt_disasm_init(&ctx, st.xlen, 0);
    uint8_t bytes[4];
    for (unsigned i = 0; i < 4; i++)
        bytes[i] = (uint8_t)(insBin >> (8 * i));
    rvt_disasm(&ctx, &in, bytes, address, st.text, sizeof st.text);
    return st.text;
}

const char *rvviRefCsrName(uint32_t hartId, uint32_t csrIndex) {
    (void)hartId;
    const char *name = csrIndex < NCSRS ? rvt_csr_name(csrIndex) : NULL;
    return name ? name : "";
}

uint32_t rvviRefCsrIndex(uint32_t hartId, const char *csrName) {
    if (!usable(hartId, "rvviRefCsrIndex") || !csrName)
        return (uint32_t)RVVI_INVALID_INDEX;
    int reg = rvt_tv_reg_lookup(csrName);
    if (reg < 0 || reg >= NCSRS || !rvviRefCsrPresent(hartId, (uint32_t)reg)) {
        note_error("rvviRefCsrIndex: the reference has no CSR %s", csrName);
        return (uint32_t)RVVI_INVALID_INDEX;
    }
    return (uint32_t)reg;
}

const char *rvviRefGprName(uint32_t hartId, uint32_t gprIndex) {
    (void)hartId;
    return gprIndex < 32 ? rvt_gpr_name(gprIndex) : "";
}

const char *rvviRefFprName(uint32_t hartId, uint32_t fprIndex) {
    (void)hartId;
    return fprIndex < 32 ? rvt_fpr_name(fprIndex) : "";
}

const char *rvviRefVrName(uint32_t hartId, uint32_t vrIndex) {
    (void)hartId, (void)vrIndex;
    return ""; /* no vector registers */
}

bool_t rvviRefCsrPresent(uint32_t hartId, uint32_t csrIndex) {
    uint64_t v;
    if (!st.initialised || hartId != 0 || csrIndex >= NCSRS)
        return RVVI_FALSE;
    return rvt_machine_get(st.m, csrIndex, &v) ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefFprsPresent(uint32_t hartId) {
    uint64_t misa = 0;
    if (!st.initialised || hartId != 0 || !rvt_machine_get(st.m, CSR_MISA, &misa))
        return RVVI_FALSE;
    return (misa & ((1u << ('F' - 'A')) | (1u << ('D' - 'A')))) ? RVVI_TRUE : RVVI_FALSE;
}

bool_t rvviRefVrsPresent(uint32_t hartId) {
    (void)hartId;
    return RVVI_FALSE;
}

/* ---- Connections ---- */

uint64_t rvviRefConnIndexGet(const char *name) {
    set_error("rvviRefConnIndexGet: no connection %s: the model has none", name ? name : "(null)");
    return (uint64_t)RVVI_INVALID_INDEX;
}

bool_t rvviRefConnSetEmpty(uint64_t connIndex) {
    set_error("rvviRefConnSetEmpty: no connection %" PRIu64, connIndex);
    return RVVI_FALSE;
}

bool_t rvviRefConnSetFull(uint64_t connIndex) {
    set_error("rvviRefConnSetFull: no connection %" PRIu64, connIndex);
    return RVVI_FALSE;
}

bool_t rvviRefConnData(uint64_t connIndex, uint32_t offset, uint64_t value, bool_t commit) {
    (void)offset, (void)value, (void)commit;
    set_error("rvviRefConnData: no connection %" PRIu64, connIndex);
    return RVVI_FALSE;
}
