/* A supervisor execution environment in the host (`rvtrace run --sbi`): the
 * payload starts in S-mode and its `ecall`s are answered here, as SBI v3.0
 * says, instead of by M-mode firmware: BASE, TIME, IPI, RFENCE, HSM (one
 * hart), SRST, DBCN and PMU with every function of the PMU chapter. An SBI
 * call is an exception taken and returned from at once (the ecall does not
 * retire, and no M-mode instruction runs); everything the payload does not
 * handle itself is delegated to it, as OpenSBI does. docs/sbi.md lists the
 * choices. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

enum {
    SBI_SUCCESS = 0, SBI_ERR_FAILED = -1, SBI_ERR_NOT_SUPPORTED = -2, SBI_ERR_INVALID_PARAM = -3,
    SBI_ERR_DENIED = -4, SBI_ERR_INVALID_ADDRESS = -5, SBI_ERR_ALREADY_AVAILABLE = -6,
    SBI_ERR_ALREADY_STARTED = -7, SBI_ERR_ALREADY_STOPPED = -8, SBI_ERR_NO_SHMEM = -9,
};

enum {
    EXT_BASE = 0x10, EXT_TIME = 0x54494d45, EXT_IPI = 0x735049, EXT_RFENCE = 0x52464e43, EXT_HSM = 0x48534d,
    EXT_SRST = 0x53525354, EXT_DBCN = 0x4442434e, EXT_PMU = 0x504d55,
};

#define SBI_IMPL_ID 0x7276 /* "rv": not a registered implementation ID */
/* SBI counter i < 32 is the hardware counter of CSR 0xc00 + i: cycle (0),
 * time (1, reported but never configured, started or stopped), instret (2)
 * and hpmcounter3..31; the firmware counters follow. */
#define HW_COUNTERS 32
#define CTR_CYCLE 0
#define CTR_TIME 1
#define CTR_INSTRET 2
#define FW_COUNTERS 16
#define NUM_COUNTERS (HW_COUNTERS + FW_COUNTERS)
#define SNAPSHOT_SIZE 4096

/* Firmware events this environment sees, and so counts (SBI type 15):
 * misaligned loads and stores (which it emulates), access faults and
 * illegal instructions (which go on to the payload), timer set-ups, IPIs
 * and remote fences. The H-extension fences are not offered. */
#define FW_EVENTS 14

/* HSM states (the chapter's numbering). */
enum { HSM_STARTED = 0, HSM_STOPPED = 1, HSM_START_PENDING = 2, HSM_SUSPENDED = 4 };

/* What the environment keeps per hart: counters and the snapshot area are
 * each hart's own, as are its timer and its HSM state. */
struct sbi_hart {
    uint64_t timer;             /* the stime value of the last set_timer */
    bool timer_set;
    uint64_t fw_value[FW_COUNTERS];
    int fw_event[FW_COUNTERS];  /* -1: not configured */
    bool fw_started[FW_COUNTERS];
    bool hw_configured[HW_COUNTERS]; /* has an event (cycle and instret from boot) */
    uint64_t snapshot;          /* physical base of the snapshot area, or all-ones */
    bool snapshot_set;
    int hsm;
    /* where a hart being started, or resuming from a non-retentive
     * suspend, begins, and its a1 */
    uint64_t start_addr, opaque;
    bool non_retentive;
};

struct sbi_state {
    struct sbi_hart hart[RVT_MAX_HARTS];
};

struct sbiret {
    int64_t error;
    uint64_t value;
};

static struct sbiret ret(int64_t error, uint64_t value) { return (struct sbiret){error, value}; }

/* ------------------------------------------------------------ set-up */

int sbi_attach(rvt_machine *m) {
    struct sbi_state *s = calloc(1, sizeof *s);
    if (!s)
        return RVT_E_NOMEM;
    for (unsigned h = 0; h < m->nharts; h++) {
        for (unsigned i = 0; i < FW_COUNTERS; i++)
            s->hart[h].fw_event[i] = -1;
        s->hart[h].hw_configured[CTR_CYCLE] = s->hart[h].hw_configured[CTR_INSTRET] = true;
        s->hart[h].hsm = h == 0 ? HSM_STARTED : HSM_STOPPED;
    }
    m->sbi = s;
    return RVT_OK;
}

void sbi_free(rvt_machine *m) {
    free(m->sbi);
    m->sbi = NULL;
}

/* Where S-mode begins on a hart (the boot hart at the payload's entry, the
 * others at their hart_start address): a0 = hartid, a1 = the device tree or
 * the caller's opaque value, translation off, S interrupts off. */
static void enter_s_mode(hart *h, uint64_t pc, uint64_t a1) {
    h->priv = PRV_S;
    h->pc = pc;
    h->x[10] = h->id;
    h->x[11] = a1;
    h->satp = 0;
    h->mstatus &= ~MSTATUS_SIE;
    forget_fetch_pages(h);
}

/* Every hart as the environment hands it to the payload: every exception
 * but the environment calls to M and every S-level interrupt delegated,
 * counters readable from S; hart 0 starts at the entry with a1 = the device
 * tree, the others wait, stopped, for hart_start. */
void sbi_boot(rvt_machine *m, uint64_t entry, uint64_t dtb) {
    for (unsigned i = 0; i < m->nharts; i++) {
        hart *h = &m->harts[i];
        /* causes 0-3, 5, 7, 8 (U ecall), 12, 13, 15: misaligned loads and
         * stores (4, 6) come to the environment, which emulates them; 0
         * only as the CSR would take it (not while misa.C is set) */
        h->medeleg = 0xb1af & ~(h->ialign_mask ? 0 : 1ull << CAUSE_MISALIGNED_FETCH);
        h->mideleg = (1ull << IRQ_S_SOFT) | (1ull << IRQ_S_TIMER) | (1ull << IRQ_S_EXT) | (1ull << IRQ_LCOF);
        h->mcounteren = 0xffffffff;
        /* cycle and instret count from the start, configured for
         * CPU_CYCLES and INSTRUCTIONS (as OpenSBI leaves them); the hpm
         * counters stay stopped until the payload starts them */
        pmu_write_inhibit(h, ~7ull & 0xffffffffull);
        if (i == 0)
            enter_s_mode(h, entry, dtb);
    }
}

/* S-mode's timer interrupt from the time each hart asked for. */
void sbi_update_timer(rvt_machine *m) {
    for (unsigned i = 0; i < m->nharts; i++) {
        const struct sbi_hart *s = &m->sbi->hart[i];
        hart *h = &m->harts[i];
        uint64_t bit = 1ull << IRQ_S_TIMER;
        if (s->timer_set && m->core.mtime >= s->timer)
            h->mip |= bit;
        else
            h->mip &= ~bit;
    }
}

/* Whether the hart runs in this round. A hart being started begins; a
 * suspended one resumes once an interrupt it enables is pending (as WFI
 * would wake it), returning from its suspend call or, non-retentive, at
 * its resume address. */
bool sbi_hart_runs(hart *h) {
    struct sbi_hart *s = &machine_of(h)->sbi->hart[h->id];
    switch (s->hsm) {
    case HSM_STARTED:
        return true;
    case HSM_START_PENDING:
        enter_s_mode(h, s->start_addr, s->opaque);
        s->hsm = HSM_STARTED;
        return true;
    case HSM_SUSPENDED:
        if (!(hart_mip(h) & h->mie))
            return false;
        if (s->non_retentive)
            enter_s_mode(h, s->start_addr, s->opaque);
        s->hsm = HSM_STARTED;
        return true;
    default:
        return false;
    }
}

bool sbi_hart_stopped(const hart *h) { return machine_of(h)->sbi->hart[h->id].hsm == HSM_STOPPED; }

bool sbi_timer(const hart *h, uint64_t *when) {
    const struct sbi_hart *s = &machine_of(h)->sbi->hart[h->id];
    *when = s->timer;
    return s->timer_set;
}

/* ------------------------------------------------------------ helpers */

/* A 64-bit argument: one register on RV64, two (low first) on RV32. */
static uint64_t arg64(const hart *h, unsigned reg) {
    return h->xlen == 64 ? h->x[reg] : (uint32_t)h->x[reg] | (uint64_t)(uint32_t)h->x[reg + 1] << 32;
}

static uint64_t xlen_value(const hart *h, uint64_t v) { return h->xlen == 32 ? (uint32_t)v : v; }

/* A physical range S-mode may read (and write): inside one RAM region,
 * with PMP allowing S. */
static bool shmem_ok(hart *h, uint64_t pa, uint64_t len, bool write) {
    if (len == 0)
        return true;
    mem_region *r = phys_region(machine_of(h), pa, 1);
    if (!r || pa + len < pa || pa + len > r->base + r->size || (write && r->rom))
        return false;
    return pmp_ok(h, pa, len, ACC_LOAD, PRV_S) && (!write || pmp_ok(h, pa, len, ACC_STORE, PRV_S));
}

/* The physical address of a shared-memory argument pair (lo, hi). */
static bool shmem_address(const hart *h, uint64_t lo, uint64_t hi, uint64_t *pa) {
    if (h->xlen == 64) {
        if (hi != 0)
            return false; /* beyond 64 bits */
        *pa = lo;
        return true;
    }
    *pa = (uint64_t)(uint32_t)lo | (uint64_t)(uint32_t)hi << 32;
    return true;
}

static bool all_ones(const hart *h, uint64_t v) { return xlen_value(h, v) == xlen_value(h, ~0ull); }

/* ------------------------------------------------------------ PMU */

static bool is_fw(unsigned idx) { return idx >= HW_COUNTERS && idx < NUM_COUNTERS; }

/* The counters of a set (base, mask); false when one is not a counter. */
static bool counter_set(uint64_t base, uint64_t mask, unsigned xlen, uint64_t *set) {
    *set = 0;
    for (unsigned i = 0; i < xlen; i++) {
        if (!((mask >> i) & 1))
            continue;
        if (base + i < base || base + i >= NUM_COUNTERS)
            return false;
        *set |= 1ull << (base + i);
    }
    return true;
}

/* The mhpmevent value for a hardware event, or 0 when the model cannot
 * count it; *invalid for encodings the chapter rules out. */
static uint64_t hw_event_code(const hart *h, unsigned type, unsigned code, uint64_t data, bool *invalid) {
    *invalid = false;
    switch (type) {
    case 0:
        if (data != 0) {
            *invalid = true;
            return 0;
        }
        return pmu_event_of(h, code) != PMU_EV_NONE ? code : 0;
    case 1: /* the caches the machine has, by their event_idx (no TLBs or predictor) */
        if (data != 0) {
            *invalid = true;
            return 0;
        }
        return pmu_event_of(h, 0x10000u | code) != PMU_EV_NONE ? 0x10000u | code : 0;
    case 2: case 3: {
        if (code != 0) {
            *invalid = true;
            return 0;
        }
        uint64_t raw = data & (type == 2 ? (1ull << 48) - 1 : (1ull << 56) - 1);
        return pmu_event_of(h, raw) != PMU_EV_NONE ? raw : 0;
    }
    default:
        return 0;
    }
}

static int64_t fw_event_check(unsigned code, uint64_t data) {
    if (code == 0xffff)
        return SBI_ERR_NOT_SUPPORTED; /* no platform-specific firmware events */
    if (data != 0)
        return SBI_ERR_INVALID_PARAM;
    if (code >= FW_EVENTS)
        return SBI_ERR_NOT_SUPPORTED;
    return SBI_SUCCESS;
}

static int64_t event_validity(const hart *h, unsigned long event_idx, uint64_t data, uint64_t *hw_code) {
    unsigned type = (unsigned)(event_idx >> 16) & 0xf, code = (unsigned)event_idx & 0xffff;
    if (event_idx >> 20)
        return SBI_ERR_INVALID_PARAM;
    if (type == 15)
        return fw_event_check(code, data);
    if (type > 3)
        return SBI_ERR_INVALID_PARAM;
    bool invalid;
    *hw_code = hw_event_code(h, type, code, data, &invalid);
    if (invalid)
        return SBI_ERR_INVALID_PARAM;
    return *hw_code ? SBI_SUCCESS : SBI_ERR_NOT_SUPPORTED;
}

static void count_fw_event(struct sbi_hart *s, unsigned event) {
    for (unsigned i = 0; i < FW_COUNTERS; i++)
        if (s->fw_started[i] && s->fw_event[i] == (int)event)
            s->fw_value[i]++;
}

enum { FW_MISALIGNED_LOAD = 0, FW_MISALIGNED_STORE = 1, FW_ACCESS_LOAD = 2, FW_ACCESS_STORE = 3,
       FW_ILLEGAL_INSN = 4 };

/* What OpenSBI does with these exceptions, it being where they trap: it
 * counts them, emulates misaligned loads and stores, and hands the rest to
 * S-mode; here they are delegated, and counted on the way. */
bool sbi_exception(hart *h, uint64_t code, uint64_t tval, uint64_t epc) {
    struct sbi_hart *s = &machine_of(h)->sbi->hart[h->id];
    switch (code) {
    case CAUSE_MISALIGNED_LOAD:
    case CAUSE_MISALIGNED_STORE: {
        count_fw_event(s, code == CAUSE_MISALIGNED_LOAD ? FW_MISALIGNED_LOAD : FW_MISALIGNED_STORE);
        bool emulated = hart_emulate_misaligned(h, tval, epc);
        /* To a tandem trace the emulated access is the instruction's step,
         * as for an SBI call (sbi_take_call). */
        if (emulated && machine_of(h)->observer)
            observe_step(h, RVT_STEP_RETIRED, epc, h->priv, 0, 0);
        return emulated;
    }
    case CAUSE_LOAD_ACCESS: count_fw_event(s, FW_ACCESS_LOAD); return false;
    case CAUSE_STORE_ACCESS: count_fw_event(s, FW_ACCESS_STORE); return false;
    case CAUSE_ILLEGAL_INSTRUCTION: count_fw_event(s, FW_ILLEGAL_INSN); return false;
    default: return false;
    }
}

static bool is_fixed(unsigned idx) { return idx == CTR_CYCLE || idx == CTR_INSTRET; }

/* A hardware counter's started state is its mcountinhibit bit (bit idx:
 * CY, IR, HPM3..31); time always counts. */
static bool counter_started(const hart *h, const struct sbi_hart *s, unsigned idx) {
    if (is_fw(idx))
        return s->fw_started[idx - HW_COUNTERS];
    return idx == CTR_TIME || !((h->mcountinhibit >> idx) & 1);
}

static void set_started(hart *h, struct sbi_hart *s, unsigned idx, bool on) {
    if (is_fw(idx)) {
        s->fw_started[idx - HW_COUNTERS] = on;
        return;
    }
    uint64_t bit = 1ull << idx;
    pmu_write_inhibit(h, on ? h->mcountinhibit & ~bit : h->mcountinhibit | bit);
}

static uint64_t counter_value(const hart *h, const struct sbi_hart *s, unsigned idx) {
    if (is_fw(idx))
        return s->fw_value[idx - HW_COUNTERS];
    return is_fixed(idx) ? pmu_fixed(h, idx) : pmu_counter(h, idx - 3);
}

/* (The call does not retire: the value is what the counter reads next.) */
static void set_value(hart *h, struct sbi_hart *s, unsigned idx, uint64_t v) {
    if (is_fw(idx))
        s->fw_value[idx - HW_COUNTERS] = v;
    else if (is_fixed(idx))
        pmu_set_fixed(h, idx, v, false);
    else
        pmu_write_counter(h, idx - 3, v, 0);
}

/* Whether hardware counter idx can count event_idx: cycle counts
 * CPU_CYCLES and instret INSTRUCTIONS (the chapter's `cycle` count; the
 * model's REF_CPU_CYCLES, equal in number, stays with the hpm counters),
 * without mode filters (the hart has no Smcntrpmf): asked for one (a hint
 * to inhibit U, S or M; VU and VS do not exist without H), matching leaves
 * them to an hpm counter that can apply it. The hpm counters count every
 * event the model has. */
static bool hw_counter_fits(unsigned idx, unsigned long event_idx, uint64_t flags, bool matching) {
    if (idx == CTR_TIME)
        return false;
    if (!is_fixed(idx))
        return true;
    if (matching && (flags & 0xe0))
        return false;
    return event_idx == (idx == CTR_CYCLE ? 1u : 2u);
}

static struct sbiret pmu_config_matching(hart *h, struct sbi_hart *s) {
    uint64_t base = xlen_value(h, h->x[10]), mask = xlen_value(h, h->x[11]), flags = xlen_value(h, h->x[12]);
    unsigned long event_idx = (unsigned long)xlen_value(h, h->x[13]);
    uint64_t data = arg64(h, 14), set, hw_code = 0;
    if ((flags >> 8) || !counter_set(base, mask, h->xlen, &set))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    int64_t valid = event_validity(h, event_idx, data, &hw_code);
    if (valid != SBI_SUCCESS)
        return ret(valid, 0);
    bool fw = (event_idx >> 16) == 15;
    int chosen = -1;
    for (unsigned idx = 0; idx < NUM_COUNTERS && chosen < 0; idx++) {
        if (!((set >> idx) & 1))
            continue;
        if (flags & 1) { /* SKIP_MATCH: the first of the set, as it is */
            chosen = (int)idx;
            break;
        }
        bool free_counter = is_fw(idx) ? s->fw_event[idx - HW_COUNTERS] < 0 : !s->hw_configured[idx];
        bool fits = fw ? is_fw(idx) : !is_fw(idx) && hw_counter_fits(idx, event_idx, flags, true);
        if (fits && free_counter && !counter_started(h, s, idx))
            chosen = (int)idx;
    }
    /* SKIP_MATCH's counter must still be one that can count the event
     * (time none; cycle and instret theirs, the filter hints ignored) */
    if (chosen < 0 || is_fw((unsigned)chosen) != fw ||
        (!fw && !hw_counter_fits((unsigned)chosen, event_idx, flags, false)))
        return ret(SBI_ERR_NOT_SUPPORTED, 0);
    unsigned idx = (unsigned)chosen;
    if (fw) {
        s->fw_event[idx - HW_COUNTERS] = (int)(event_idx & 0xffff);
    } else if (is_fixed(idx)) {
        s->hw_configured[idx] = true;
    } else {
        /* filter hints 5..7: U, S, M inhibit (3, 4 are VU/VS: no H) */
        uint64_t filters = ((flags >> 5) & 1 ? 1ull << 60 : 0) | ((flags >> 6) & 1 ? 1ull << 61 : 0) |
                           ((flags >> 7) & 1 ? 1ull << 62 : 0);
        uint64_t cur = pmu_counter(h, idx - 3);
        pmu_write_event(h, idx - 3, hw_code | filters, 0);
        pmu_write_counter(h, idx - 3, cur, 0);
        s->hw_configured[idx] = true;
    }
    if (flags & 2) /* CLEAR_VALUE */
        set_value(h, s, idx, 0);
    if (flags & 4) /* AUTO_START */
        set_started(h, s, idx, true);
    return ret(SBI_SUCCESS, idx);
}

static bool read_snapshot_value(hart *h, const struct sbi_hart *s, unsigned slot, uint64_t *v) {
    return phys_load(machine_of(h), s->snapshot + 8 + 8ull * slot, v, 8);
}

static struct sbiret pmu_start(hart *h, struct sbi_hart *s) {
    uint64_t base = xlen_value(h, h->x[10]), mask = xlen_value(h, h->x[11]), flags = xlen_value(h, h->x[12]);
    uint64_t init = arg64(h, 13), set;
    if ((flags >> 2) || (flags & 3) == 3 || !counter_set(base, mask, h->xlen, &set))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    if ((flags & 2) && !s->snapshot_set)
        return ret(SBI_ERR_NO_SHMEM, 0);
    int64_t err = SBI_SUCCESS;
    for (unsigned idx = 0; idx < NUM_COUNTERS; idx++) {
        if (!((set >> idx) & 1))
            continue;
        if (counter_started(h, s, idx)) { /* time: always */
            err = SBI_ERR_ALREADY_STARTED;
            continue;
        }
        uint64_t v;
        if (flags & 1)
            set_value(h, s, idx, init);
        else if ((flags & 2) && read_snapshot_value(h, s, (unsigned)(idx - base), &v))
            set_value(h, s, idx, v);
        set_started(h, s, idx, true);
    }
    return ret(err, 0);
}

static struct sbiret pmu_stop(hart *h, struct sbi_hart *s) {
    uint64_t base = xlen_value(h, h->x[10]), mask = xlen_value(h, h->x[11]), flags = xlen_value(h, h->x[12]);
    uint64_t set;
    if ((flags >> 2) || !counter_set(base, mask, h->xlen, &set))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    if ((flags & 2) && !s->snapshot_set)
        return ret(SBI_ERR_NO_SHMEM, 0);
    int64_t err = SBI_SUCCESS;
    uint64_t overflow = 0;
    if (flags & 2)
        phys_load(machine_of(h), s->snapshot, &overflow, 8);
    for (unsigned idx = 0; idx < NUM_COUNTERS; idx++) {
        if (!((set >> idx) & 1))
            continue;
        unsigned slot = (unsigned)(idx - base);
        if (idx == CTR_TIME) {
            /* never stops: not ALREADY_STOPPED, not a success; of the
             * chapter's codes only INVALID_PARAM says nothing false */
            err = SBI_ERR_INVALID_PARAM;
            continue;
        }
        bool was_started = counter_started(h, s, idx);
        if (was_started)
            set_started(h, s, idx, false);
        else if (err == SBI_SUCCESS)
            err = SBI_ERR_ALREADY_STOPPED; /* a RESET still drops its event, as OpenSBI does */
        if ((flags & 2) && was_started) {
            uint64_t v = counter_value(h, s, idx);
            phys_store(machine_of(h), h, s->snapshot + 8 + 8ull * slot, &v, 8);
            bool of = !is_fw(idx) && !is_fixed(idx) && (h->hpm_event[idx - 3] >> 63);
            overflow = of ? overflow | (1ull << slot) : overflow & ~(1ull << slot);
        }
        if (flags & 1) { /* RESET: the counter forgets its event */
            if (is_fw(idx)) {
                s->fw_event[idx - HW_COUNTERS] = -1;
            } else {
                if (!is_fixed(idx)) {
                    uint64_t cur = pmu_counter(h, idx - 3);
                    pmu_write_event(h, idx - 3, 0, 0);
                    pmu_write_counter(h, idx - 3, cur, 0);
                }
                s->hw_configured[idx] = false;
            }
        }
    }
    if (flags & 2)
        phys_store(machine_of(h), h, s->snapshot, &overflow, 8);
    return ret(err, 0);
}

static struct sbiret pmu_get_info(hart *h) {
    uint64_t idx = xlen_value(h, h->x[10]);
    if (idx >= NUM_COUNTERS)
        return ret(SBI_ERR_INVALID_PARAM, 0);
    if (is_fw((unsigned)idx)) /* 64-bit (width ignored for firmware counters) */
        return ret(SBI_SUCCESS, 1ull << (h->xlen - 1) | (63ull << 12));
    return ret(SBI_SUCCESS, (0xc00 + idx) | (63ull << 12)); /* every one 64 bits */
}

static struct sbiret pmu_fw_read(hart *h, struct sbi_hart *s, bool high) {
    uint64_t idx = xlen_value(h, h->x[10]);
    if (idx >= NUM_COUNTERS || !is_fw((unsigned)idx))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    uint64_t v = s->fw_value[idx - HW_COUNTERS];
    if (high)
        return ret(SBI_SUCCESS, h->xlen == 32 ? v >> 32 : 0);
    return ret(SBI_SUCCESS, xlen_value(h, v));
}

static struct sbiret pmu_set_shmem(hart *h, struct sbi_hart *s) {
    uint64_t lo = xlen_value(h, h->x[10]), hi = xlen_value(h, h->x[11]), flags = xlen_value(h, h->x[12]), pa;
    if (flags != 0)
        return ret(SBI_ERR_INVALID_PARAM, 0);
    if (all_ones(h, lo) && all_ones(h, hi)) {
        s->snapshot_set = false;
        return ret(SBI_SUCCESS, 0);
    }
    if (lo & (SNAPSHOT_SIZE - 1))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    if (!shmem_address(h, lo, hi, &pa) || !shmem_ok(h, pa, SNAPSHOT_SIZE, true))
        return ret(SBI_ERR_INVALID_ADDRESS, 0);
    s->snapshot = pa;
    s->snapshot_set = true;
    return ret(SBI_SUCCESS, 0);
}

static struct sbiret pmu_event_get_info(hart *h) {
    uint64_t lo = xlen_value(h, h->x[10]), hi = xlen_value(h, h->x[11]);
    uint64_t n = xlen_value(h, h->x[12]), flags = xlen_value(h, h->x[13]), pa;
    if (flags != 0 || (lo & 15))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    if (n > (1u << 20) || !shmem_address(h, lo, hi, &pa) || !shmem_ok(h, pa, 16 * n, true))
        return ret(SBI_ERR_INVALID_ADDRESS, 0);
    for (uint64_t i = 0; i < n; i++) { /* reserved bits anywhere: nothing is written */
        uint32_t word0 = 0;
        phys_load(machine_of(h), pa + 16 * i, &word0, 4);
        if (word0 >> 20)
            return ret(SBI_ERR_INVALID_PARAM, 0);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint32_t word0 = 0;
        uint64_t data = 0, hw_code = 0;
        phys_load(machine_of(h), pa + 16 * i, &word0, 4);
        phys_load(machine_of(h), pa + 16 * i + 8, &data, 8);
        unsigned type = word0 >> 16;
        if (type != 2 && type != 3 && type != 15)
            data = 0; /* event_data means something for raw and firmware events only */
        uint32_t word1 = event_validity(h, word0, data, &hw_code) == SBI_SUCCESS;
        phys_store(machine_of(h), h, pa + 16 * i + 4, &word1, 4);
    }
    return ret(SBI_SUCCESS, 0);
}

static struct sbiret pmu_call(hart *h, struct sbi_hart *s, uint64_t fid) {
    switch (fid) {
    case 0: return ret(SBI_SUCCESS, NUM_COUNTERS);
    case 1: return pmu_get_info(h);
    case 2: return pmu_config_matching(h, s);
    case 3: return pmu_start(h, s);
    case 4: return pmu_stop(h, s);
    case 5: return pmu_fw_read(h, s, false);
    case 6: return pmu_fw_read(h, s, true);
    case 7: return pmu_set_shmem(h, s);
    case 8: return pmu_event_get_info(h);
    default: return ret(SBI_ERR_NOT_SUPPORTED, 0);
    }
}

/* ------------------------------------------------------------ the rest */

enum { FW_SET_TIMER = 5, FW_IPI_SENT = 6, FW_IPI_RECEIVED = 7, FW_FENCE_I_SENT = 8, FW_FENCE_I_RECEIVED = 9,
       FW_SFENCE_VMA_SENT = 10, FW_SFENCE_VMA_RECEIVED = 11, FW_SFENCE_VMA_ASID_SENT = 12,
       FW_SFENCE_VMA_ASID_RECEIVED = 13 };

/* The harts a hart_mask/hart_mask_base pair names; false when it names one
 * that does not exist. */
static bool hart_set(const hart *h, uint64_t mask, uint64_t base, uint64_t *set) {
    unsigned n = machine_of(h)->nharts;
    uint64_t all = n == 64 ? ~0ull : (1ull << n) - 1;
    if (all_ones(h, base)) {
        *set = all;
        return true;
    }
    *set = 0;
    for (unsigned i = 0; i < h->xlen; i++)
        if ((mask >> i) & 1) {
            if (base + i < base || base + i >= n)
                return false;
            *set |= 1ull << (base + i);
        }
    return true;
}

/* A hart that can take an interrupt: started or suspended (as OpenSBI,
 * IPIs and fences to stopped harts are dropped). */
static bool interruptible(const struct sbi_state *s, unsigned i) {
    return s->hart[i].hsm == HSM_STARTED || s->hart[i].hsm == HSM_SUSPENDED;
}

/* IPI (fid -1) or a remote fence (RFENCE fid 0-2) to a set of harts. */
static struct sbiret send(hart *h, struct sbi_state *s, int fence, uint64_t mask, uint64_t base) {
    static const unsigned sent[3] = {FW_FENCE_I_SENT, FW_SFENCE_VMA_SENT, FW_SFENCE_VMA_ASID_SENT};
    rvt_machine *m = machine_of(h);
    uint64_t set;
    if (!hart_set(h, mask, base, &set))
        return ret(SBI_ERR_INVALID_PARAM, 0);
    unsigned event = fence < 0 ? FW_IPI_SENT : sent[fence];
    for (unsigned i = 0; i < m->nharts; i++) {
        if (!((set >> i) & 1) || !interruptible(s, i))
            continue;
        count_fw_event(&s->hart[h->id], event);
        count_fw_event(&s->hart[i], event + 1); /* the matching _RECEIVED */
        /* (a remote fence.i has nothing to drop: decoded code follows every
         * store; the caller's own translations go with its trap) */
        if (fence < 0)
            m->harts[i].mip |= 1ull << IRQ_S_SOFT;
        else if (fence > 0 && i != h->id)
            forget_fetch_pages(&m->harts[i]);
    }
    return ret(SBI_SUCCESS, 0);
}

/* An address S-mode may start executing at. */
static bool start_address_ok(hart *h, uint64_t pa) {
    return (pa & 1) == 0 && phys_region(machine_of(h), pa, 2) && pmp_ok(h, pa, 2, ACC_FETCH, PRV_S);
}

static struct sbiret hsm_call(hart *h, struct sbi_state *s, uint64_t fid) {
    rvt_machine *m = machine_of(h);
    uint64_t a0 = xlen_value(h, h->x[10]), a1 = xlen_value(h, h->x[11]), a2 = xlen_value(h, h->x[12]);
    struct sbi_hart *self = &s->hart[h->id];
    switch (fid) {
    case 0: { /* hart_start(hartid, start_addr, opaque) */
        if (a0 >= m->nharts)
            return ret(SBI_ERR_INVALID_PARAM, 0);
        struct sbi_hart *t = &s->hart[a0];
        if (t->hsm != HSM_STOPPED)
            return ret(SBI_ERR_ALREADY_AVAILABLE, 0);
        if (!start_address_ok(&m->harts[a0], a1))
            return ret(SBI_ERR_INVALID_ADDRESS, 0);
        t->start_addr = a1;
        t->opaque = a2;
        t->hsm = HSM_START_PENDING;
        return ret(SBI_SUCCESS, 0);
    }
    case 1: /* hart_stop: does not return; the run ends when every hart has stopped */
        self->hsm = HSM_STOPPED;
        return ret(SBI_SUCCESS, 0);
    case 2: /* hart_get_status(hartid) */
        if (a0 >= m->nharts)
            return ret(SBI_ERR_INVALID_PARAM, 0);
        return ret(SBI_SUCCESS, (uint64_t)s->hart[a0].hsm);
    case 3: { /* hart_suspend(suspend_type, resume_addr, opaque) */
        uint32_t type = (uint32_t)a0;
        if ((h->xlen == 64 && (a0 >> 32)) || (type > 0 && type < 0x10000000) ||
            (type > 0x80000000u && type < 0x90000000u))
            return ret(SBI_ERR_INVALID_PARAM, 0); /* reserved */
        if (type != 0 && type != 0x80000000u)
            return ret(SBI_ERR_NOT_SUPPORTED, 0); /* platform-specific: none */
        self->non_retentive = type != 0;
        if (self->non_retentive) {
            if (!start_address_ok(h, a1))
                return ret(SBI_ERR_INVALID_ADDRESS, 0);
            self->start_addr = a1;
            self->opaque = a2;
        }
        self->hsm = HSM_SUSPENDED;
        return ret(SBI_SUCCESS, 0);
    }
    default:
        return ret(SBI_ERR_NOT_SUPPORTED, 0);
    }
}

static bool extension_present(uint64_t eid) {
    switch (eid) {
    case EXT_BASE: case EXT_TIME: case EXT_IPI: case EXT_RFENCE: case EXT_HSM: case EXT_SRST: case EXT_DBCN:
    case EXT_PMU:
        return true;
    default:
        return false;
    }
}

static struct sbiret call(hart *h, struct sbi_state *s) {
    rvt_machine *m = machine_of(h);
    uint64_t eid = xlen_value(h, h->x[17]), fid = xlen_value(h, h->x[16]);
    uint64_t a0 = xlen_value(h, h->x[10]), a1 = xlen_value(h, h->x[11]);
    struct sbi_hart *self = &s->hart[h->id];
    switch (eid) {
    case EXT_BASE:
        switch (fid) {
        case 0: return ret(SBI_SUCCESS, 3u << 24); /* v3.0 */
        case 1: return ret(SBI_SUCCESS, SBI_IMPL_ID);
        case 2: return ret(SBI_SUCCESS, 1);
        case 3: return ret(SBI_SUCCESS, extension_present(a0));
        case 4: case 5: case 6: {
            uint64_t v = 0;
            csr_read(h, fid == 4 ? 0xf11 : fid == 5 ? 0xf12 : 0xf13, &v);
            return ret(SBI_SUCCESS, v);
        }
        default: return ret(SBI_ERR_NOT_SUPPORTED, 0);
        }
    case EXT_TIME:
        if (fid != 0)
            return ret(SBI_ERR_NOT_SUPPORTED, 0);
        self->timer = arg64(h, 10);
        self->timer_set = true;
        count_fw_event(self, FW_SET_TIMER);
        sbi_update_timer(m);
        return ret(SBI_SUCCESS, 0);
    case EXT_IPI:
        return fid == 0 ? send(h, s, -1, a0, a1) : ret(SBI_ERR_NOT_SUPPORTED, 0);
    case EXT_RFENCE: /* fids above 2 are the hypervisor fences: no H */
        return fid <= 2 ? send(h, s, (int)fid, a0, a1) : ret(SBI_ERR_NOT_SUPPORTED, 0);
    case EXT_HSM:
        return hsm_call(h, s, fid);
    case EXT_SRST:
        if (fid != 0)
            return ret(SBI_ERR_NOT_SUPPORTED, 0);
        if (a0 > 2 || a1 > 1)
            return ret(SBI_ERR_INVALID_PARAM, 0);
        m->core.stop = true;
        m->core.stop_reason = RVT_STOP_EXIT;
        m->exit_code = a1 == 1 ? 1 : 0; /* system failure: exit 1 */
        return ret(SBI_SUCCESS, 0);
    case EXT_DBCN:
        switch (fid) {
        case 0: { /* console_write(num_bytes, base_lo, base_hi) */
            uint64_t pa;
            if (!shmem_address(h, a1, xlen_value(h, h->x[12]), &pa) || !shmem_ok(h, pa, a0, false))
                return ret(SBI_ERR_INVALID_PARAM, 0);
            for (uint64_t i = 0; i < a0; i++) {
                uint8_t c = 0;
                phys_load(m, pa + i, &c, 1);
                fputc(c, m->console);
            }
            fflush(m->console);
            return ret(SBI_SUCCESS, a0);
        }
        case 1: return ret(SBI_SUCCESS, 0); /* console_read: no input */
        case 2:
            fputc((int)(a0 & 0xff), m->console);
            fflush(m->console);
            return ret(SBI_SUCCESS, 0);
        default: return ret(SBI_ERR_NOT_SUPPORTED, 0);
        }
    case EXT_PMU:
        return pmu_call(h, self, fid);
    default:
        return ret(SBI_ERR_NOT_SUPPORTED, 0);
    }
}

/* The ecall at h->pc, from S-mode: to the trace and the counters it is the
 * exception a firmware would take and return from (the ecall does not
 * retire; no instruction runs in between), then the call's results and the
 * instruction after it. */
void sbi_take_call(hart *h) {
    rvt_machine *m = machine_of(h);
    uint64_t epc = h->pc;
    unsigned priv = h->priv;
    hart_report_trap(h, CAUSE_SUPERVISOR_ECALL, 0, epc);
    struct sbiret r = call(h, m->sbi);
    h->x[10] = h->xlen == 32 ? (uint64_t)(int64_t)(int32_t)r.error : (uint64_t)r.error;
    h->x[11] = h->xlen == 32 ? (uint64_t)(int64_t)(int32_t)r.value : r.value;
    h->pc = h->xlen == 32 ? (uint32_t)(epc + 4) : epc + 4;
    forget_fetch_pages(h);
    /* To a tandem trace the call is the ecall's step, as if the environment
     * were firmware the trace does not show: what it changed (a0, a1, the
     * pc, whatever else the call did) is the ecall's. */
    if (m->observer)
        observe_step(h, RVT_STEP_RETIRED, epc, priv, 0, 0);
}
