/* Hardware performance counters: mhpmcounter3..31 counting the events of
 * docs/pmu.md, with Sscofpmf's mode filters (MINH/SINH/UINH), overflow bit,
 * scountovf and local counter overflow interrupt (13).
 *
 * Counting is lazy. While some counter counts, the interpreter adds each
 * retired instruction to per-privilege event totals (ev[priv][event]); a
 * counter's value is its value at the last change of its configuration plus
 * the growth since then of the totals of the privileges it counts in. So
 * nothing is counted while no counter is programmed, and the interpreter
 * adds a few increments per instruction while one is. Overflow is found at
 * the end of each run of instructions, whose length is cut so that no
 * counter can pass 2^64 unseen (an event is at most one per instruction). */
#include <string.h>

#include "hart_internal.h"

/* mhpmevent: the event in bits 55:0, Sscofpmf's bits above. */
#define HPM_OF (1ull << 63)
#define HPM_MINH (1ull << 62)
#define HPM_SINH (1ull << 61)
#define HPM_UINH (1ull << 60)
#define HPM_EVENT_MASK ((1ull << 56) - 1)

/* Event selector values (docs/pmu.md): the SBI general events by their
 * event_idx, the rest as raw (type 3) events. */
static const struct {
    uint64_t code;
    unsigned event;
    const char *name; /* as perf spells the general ones */
} event_codes[] = {
    {0x1, PMU_EV_INSTRUCTIONS, "cycles"}, /* CPU_CYCLES: one cycle per instruction in this model */
    {0x2, PMU_EV_INSTRUCTIONS, "instructions"},
    {0x5, PMU_EV_TRANSFERS, "branches"},  /* BRANCH_INSTRUCTIONS: branches and jumps, as perf counts them */
    {0xa, PMU_EV_INSTRUCTIONS, "ref-cycles"},
    {RVT_PMU_RAW_BRANCHES, PMU_EV_BRANCHES, "cond-branches"},
    {RVT_PMU_RAW_TAKEN_BRANCHES, PMU_EV_TAKEN, "taken-branches"},
    {RVT_PMU_RAW_JUMPS, PMU_EV_JUMPS, "jumps"},
    {RVT_PMU_RAW_LOADS, PMU_EV_LOADS, "loads"},
    {RVT_PMU_RAW_STORES, PMU_EV_STORES, "stores"},
    {RVT_PMU_RAW_AMOS, PMU_EV_AMOS, "amos"},
    {RVT_PMU_RAW_EXCEPTIONS, PMU_EV_EXCEPTIONS, "exceptions"},
    {RVT_PMU_RAW_INTERRUPTS, PMU_EV_INTERRUPTS, "interrupts"},
    /* the SBI's cache events (type 1) by their event_idx, where the machine has the cache */
#define CACHE_EVENT(cache, op, result, name)                                                                       \
    {RVT_PMU_CACHE_EVENT(RVT_PMU_CACHE_##cache, RVT_PMU_CACHE_##op, RVT_PMU_CACHE_##result),                        \
     PMU_EV_CACHE + RVT_PMU_CACHE_##cache * 4 + RVT_PMU_CACHE_##op * 2 + RVT_PMU_CACHE_##result, name}
    CACHE_EVENT(L1D, READ, ACCESS, "L1-dcache-loads"),
    CACHE_EVENT(L1D, READ, MISS, "L1-dcache-load-misses"),
    CACHE_EVENT(L1D, WRITE, ACCESS, "L1-dcache-stores"),
    CACHE_EVENT(L1D, WRITE, MISS, "L1-dcache-store-misses"),
    CACHE_EVENT(L1I, READ, ACCESS, "L1-icache-loads"),
    CACHE_EVENT(L1I, READ, MISS, "L1-icache-load-misses"),
    CACHE_EVENT(LL, READ, ACCESS, "LLC-loads"),
    CACHE_EVENT(LL, READ, MISS, "LLC-load-misses"),
    CACHE_EVENT(LL, WRITE, ACCESS, "LLC-stores"),
    CACHE_EVENT(LL, WRITE, MISS, "LLC-store-misses"),
#undef CACHE_EVENT
};

const char *rvt_pmu_event_name(uint64_t code) {
    for (size_t i = 0; i < sizeof event_codes / sizeof event_codes[0]; i++)
        if (event_codes[i].code == code)
            return event_codes[i].name;
    return NULL;
}

bool rvt_pmu_event_code(const char *name, uint64_t *code) {
    for (size_t i = 0; i < sizeof event_codes / sizeof event_codes[0]; i++)
        if (!strcmp(event_codes[i].name, name)) {
            *code = event_codes[i].code;
            return true;
        }
    return false;
}

const uint8_t pmu_op_event[RVT_OP_COUNT] = {
    [RVT_OP_LB] = PMU_EV_LOADS, [RVT_OP_LH] = PMU_EV_LOADS, [RVT_OP_LW] = PMU_EV_LOADS,
    [RVT_OP_LD] = PMU_EV_LOADS, [RVT_OP_LBU] = PMU_EV_LOADS, [RVT_OP_LHU] = PMU_EV_LOADS,
    [RVT_OP_LWU] = PMU_EV_LOADS, [RVT_OP_FLW] = PMU_EV_LOADS, [RVT_OP_FLD] = PMU_EV_LOADS,
    [RVT_OP_LR_W] = PMU_EV_LOADS, [RVT_OP_LR_D] = PMU_EV_LOADS,
    [RVT_OP_SB] = PMU_EV_STORES, [RVT_OP_SH] = PMU_EV_STORES, [RVT_OP_SW] = PMU_EV_STORES,
    [RVT_OP_SD] = PMU_EV_STORES, [RVT_OP_FSW] = PMU_EV_STORES, [RVT_OP_FSD] = PMU_EV_STORES,
    [RVT_OP_SC_W] = PMU_EV_STORES, [RVT_OP_SC_D] = PMU_EV_STORES,
    [RVT_OP_AMOSWAP_W] = PMU_EV_AMOS, [RVT_OP_AMOADD_W] = PMU_EV_AMOS, [RVT_OP_AMOXOR_W] = PMU_EV_AMOS,
    [RVT_OP_AMOAND_W] = PMU_EV_AMOS, [RVT_OP_AMOOR_W] = PMU_EV_AMOS, [RVT_OP_AMOMIN_W] = PMU_EV_AMOS,
    [RVT_OP_AMOMAX_W] = PMU_EV_AMOS, [RVT_OP_AMOMINU_W] = PMU_EV_AMOS, [RVT_OP_AMOMAXU_W] = PMU_EV_AMOS,
    [RVT_OP_AMOSWAP_D] = PMU_EV_AMOS, [RVT_OP_AMOADD_D] = PMU_EV_AMOS, [RVT_OP_AMOXOR_D] = PMU_EV_AMOS,
    [RVT_OP_AMOAND_D] = PMU_EV_AMOS, [RVT_OP_AMOOR_D] = PMU_EV_AMOS, [RVT_OP_AMOMIN_D] = PMU_EV_AMOS,
    [RVT_OP_AMOMAX_D] = PMU_EV_AMOS, [RVT_OP_AMOMINU_D] = PMU_EV_AMOS, [RVT_OP_AMOMAXU_D] = PMU_EV_AMOS,
};

/* A cache event only where the machine has that cache. */
unsigned pmu_event_of(const hart *h, uint64_t code) {
    for (size_t i = 0; i < sizeof event_codes / sizeof event_codes[0]; i++)
        if (event_codes[i].code == code) {
            unsigned ev = event_codes[i].event;
            if (ev >= PMU_EV_CACHE && !cache_has(h->m, (ev - PMU_EV_CACHE) / 4))
                return PMU_EV_NONE;
            return ev;
        }
    return PMU_EV_NONE;
}

/* The privileges counter i counts in (bit p), none when it is inhibited. */
static unsigned counting_modes(const hart *h, unsigned i) {
    uint64_t e = h->hpm_event[i];
    if (h->hpm_ev[i] == PMU_EV_NONE || ((h->mcountinhibit >> (i + 3)) & 1))
        return 0;
    return (e & HPM_MINH ? 0 : 1u << PRV_M) | (e & HPM_SINH ? 0 : 1u << PRV_S) | (e & HPM_UINH ? 0 : 1u << PRV_U);
}

/* The event total counter i follows, over the privileges it counts in. */
static uint64_t total(const hart *h, unsigned i) {
    unsigned modes = counting_modes(h, i), ev = h->hpm_ev[i];
    uint64_t t = 0;
    for (unsigned p = 0; p < 4; p++)
        if ((modes >> p) & 1)
            t += h->ev[p][ev];
    return t;
}

uint64_t pmu_counter(const hart *h, unsigned i) { return h->hpm_base[i] + (total(h, i) - h->hpm_snap[i]); }

/* Starts counting afresh from `value` under the current configuration. */
static void rebase(hart *h, unsigned i, uint64_t value) {
    h->hpm_base[i] = value;
    h->hpm_snap[i] = total(h, i);
    h->hpm_gen++;
}

/* Whether any counter counts, and how many instructions may run before the
 * next overflow check. */
static void refresh(hart *h) {
    uint64_t until = UINT64_MAX;
    bool any = false;
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        if (!counting_modes(h, i))
            continue;
        any = true;
        uint64_t left = ~pmu_counter(h, i) + 1; /* events until the counter wraps to 0 */
        if (left && left < until)
            until = left;
    }
    h->hpm_counting = any;
    h->hpm_until_check = until;
}

void pmu_write_counter(hart *h, unsigned i, uint64_t val, int half) {
    uint64_t cur = pmu_counter(h, i);
    if (half == 1)
        val = (cur & ~0xffffffffull) | (uint32_t)val;
    else if (half == 2)
        val = (cur & 0xffffffffull) | (val << 32);
    rebase(h, i, val);
    refresh(h);
}

void pmu_write_event(hart *h, unsigned i, uint64_t val, int half) {
    uint64_t cur = pmu_counter(h, i);
    uint64_t e = h->hpm_event[i];
    if (half == 1)
        val = (e & ~0xffffffffull) | (uint32_t)val;
    else if (half == 2)
        val = (e & 0xffffffffull) | (val << 32);
    uint64_t code = val & HPM_EVENT_MASK;
    if (pmu_event_of(h, code) == PMU_EV_NONE)
        code = 0; /* WARL: an event the model cannot count selects none */
    h->hpm_event[i] = code | (val & (HPM_OF | HPM_MINH | HPM_SINH | HPM_UINH));
    h->hpm_ev[i] = (uint8_t)pmu_event_of(h, code);
    rebase(h, i, cur);
    refresh(h);
}

/* mcycle and minstret count retired instructions (one cycle each) unless
 * mcountinhibit's CY or IR stops them, as spike does: an instruction that
 * sets the bit is not counted, one that clears it is. */
uint64_t pmu_fixed(const hart *h, unsigned c) {
    uint64_t offset = c == 0 ? h->mcycle_offset : h->minstret_offset;
    return (h->mcountinhibit >> c) & 1 ? offset : h->minstret + offset;
}

void pmu_set_fixed(hart *h, unsigned c, uint64_t v, bool retiring) {
    uint64_t *offset = c == 0 ? &h->mcycle_offset : &h->minstret_offset;
    if ((h->mcountinhibit >> c) & 1)
        *offset = v;
    else
        *offset = v - h->minstret - (retiring ? 1 : 0);
}

void pmu_write_inhibit(hart *h, uint64_t val) {
    uint64_t cur[PMU_COUNTERS], cycle = pmu_fixed(h, 0), instret = pmu_fixed(h, 2);
    for (unsigned i = 0; i < PMU_COUNTERS; i++)
        cur[i] = pmu_counter(h, i);
    h->mcountinhibit = val & ~2ull;
    pmu_set_fixed(h, 0, cycle, false);
    pmu_set_fixed(h, 2, instret, false);
    for (unsigned i = 0; i < PMU_COUNTERS; i++)
        rebase(h, i, cur[i]);
    refresh(h);
}

uint64_t pmu_overflow_bits(const hart *h) {
    uint64_t bits = 0;
    for (unsigned i = 0; i < PMU_COUNTERS; i++)
        if (h->hpm_event[i] & HPM_OF)
            bits |= 1ull << (i + 3);
    return bits;
}

/* After a run of instructions or a trap: a counter that passed 2^64 sets
 * its OF bit and, when that was clear, raises the local counter overflow
 * interrupt; true when it did. */
bool pmu_check_overflow(hart *h) {
    bool raised = false;
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        if (!counting_modes(h, i))
            continue;
        uint64_t grown = total(h, i) - h->hpm_snap[i];
        if (grown == 0 || grown <= ~h->hpm_base[i])
            continue; /* no wrap */
        if (!(h->hpm_event[i] & HPM_OF)) {
            h->hpm_event[i] |= HPM_OF;
            h->mip |= 1ull << IRQ_LCOF;
            raised = true;
        }
        rebase(h, i, pmu_counter(h, i));
    }
    refresh(h);
    return raised;
}

void pmu_reset(hart *h) {
    memset(h->hpm_event, 0, sizeof h->hpm_event);
    memset(h->hpm_ev, pmu_event_of(h, 0), sizeof h->hpm_ev);
    memset(h->hpm_base, 0, sizeof h->hpm_base);
    memset(h->hpm_snap, 0, sizeof h->hpm_snap);
    memset(h->ev, 0, sizeof h->ev);
    h->hpm_gen++;
    refresh(h);
}

/* Counter `counter` (0 mcycle, 2 minstret, 3..31) as it reads now. */
static uint64_t read_counter(const hart *h, unsigned counter) {
    if (counter == 0 || counter == 2)
        return pmu_fixed(h, counter);
    return pmu_counter(h, counter - 3);
}

/* Called while the exit store executes: it is counted too (an instruction
 * and a store), as spike's trace ends with it. A program that loops on its
 * exit store (riscv-tests do) calls this for every store until the host
 * looks: where no counter counts and none started afresh since the last
 * call, only mcycle and minstret moved. */
void pmu_note_exit(hart *h) {
    bool others_as_noted = h->hpm_exit_valid && !h->hpm_counting && h->hpm_exit_gen == h->hpm_gen;
    for (unsigned c = 0, end = others_as_noted ? 3 : 32; c < end; c++) {
        uint64_t v = c == 1 ? 0 : read_counter(h, c);
        if (c == 0 || c == 2) {
            v += !((h->mcountinhibit >> c) & 1);
        } else if (c >= 3 && ((counting_modes(h, c - 3) >> h->priv) & 1)) {
            unsigned ev = h->hpm_ev[c - 3];
            v += ev == PMU_EV_INSTRUCTIONS || ev == PMU_EV_STORES;
        }
        h->hpm_exit[c] = v;
    }
    h->hpm_exit_valid = true;
    h->hpm_exit_gen = h->hpm_gen;
}

uint64_t pmu_read(const hart *h, unsigned counter, uint64_t *event, bool at_exit) {
    if (counter == 1 || counter > 31)
        return 0;
    if (event)
        *event = counter >= 3 ? h->hpm_event[counter - 3] & HPM_EVENT_MASK : 0;
    return at_exit && h->hpm_exit_valid ? h->hpm_exit[counter] : read_counter(h, counter);
}

int pmu_program(hart *h, unsigned counter, uint64_t code, rvt_diag *diag) {
    if (!h || counter < 3 || counter > 31)
        return rvt_diag_set(diag, RVT_E_ARG, "no mhpmcounter%u", counter);
    if (pmu_event_of(h, code) == PMU_EV_NONE && rvt_pmu_event_name(code))
        return rvt_diag_set(diag, RVT_E_UNSUPP, "event %s counts a cache the machine does not have (--ic, --dc, --l2)",
                            rvt_pmu_event_name(code));
    if (pmu_event_of(h, code) == PMU_EV_NONE)
        return rvt_diag_set(diag, RVT_E_UNSUPP, "event %#llx is not one the model counts", (unsigned long long)code);
    pmu_write_event(h, counter - 3, code, 0);
    pmu_write_counter(h, counter - 3, 0, 0);
    return RVT_OK;
}
