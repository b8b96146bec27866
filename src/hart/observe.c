/* Observation of single steps for tandem verification: what each step
 * changed (found by comparing the hart with a snapshot, so nothing depends on
 * knowing what an instruction is supposed to change), the memory accesses it
 * made, and debugger-style access to every state element. The machine gives
 * the core its hooks (hart_observer) while someone observes. */
#include "machine.h"

#include <stdlib.h>
#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_AVX2_VARIANT 1 /* observe_step_avx2 */
#include <immintrin.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_CHANGES 192
#define MAX_ACCESSES 16

struct observe_state {
    hart snap;          /* the state at the last observation */
    uint64_t snap_mtime;
    uint16_t csrs[160]; /* the CSRs hart 0 has, counters left out */
    size_t ncsrs;
    uint32_t elems[32 + 32 + 160 + 6];
    size_t nelems;
    rvt_elem_value changes[MAX_CHANGES];
    rvt_mem_access acc[MAX_ACCESSES];
    size_t nacc;
    rvt_step step; /* the last step observed: observers may keep a pointer to it */
};

/* Canonical state: views that alias other CSRs (sstatus, sie, sip, fflags,
 * frm, cycle, time, instret) are left out, and so are the counters, which
 * change with every instruction and are listed only on software writes. */
static const uint16_t candidate_csrs[] = {
    0x003, 0x105, 0x106, 0x10a, 0x140, 0x141, 0x142, 0x143, 0x180,
    0x300, 0x301, 0x302, 0x303, 0x304, 0x305, 0x306, 0x30a, 0x310, 0x31a, 0x320,
    0x340, 0x341, 0x342, 0x343, 0x344, 0x7a0, 0x7a1, 0x7a2,
};
enum { CSR_MCYCLE_ = 0xb00, CSR_MINSTRET_ = 0xb02, CSR_MCYCLEH_ = 0xb80, CSR_MINSTRETH_ = 0xb82, CSR_MIP_ = 0x344 };

/* csr_read at machine level; the FP CSRs also while mstatus.FS is off. */
static int csr_peek(hart *h, unsigned csr, uint64_t *v) {
    unsigned priv = h->priv;
    uint64_t ms = h->mstatus;
    h->priv = PRV_M;
    if (csr <= 3)
        h->mstatus |= MSTATUS_FS;
    int rc = csr_read(h, csr, v);
    h->priv = priv;
    h->mstatus = ms;
    return rc;
}

static void take_snapshot(rvt_machine *m) {
    struct observe_state *o = m->obs;
    o->snap = m->harts[0];
    o->snap_mtime = m->core.mtime;
}

static void observe_step_plain(hart *h, int kind, uint64_t pc, unsigned priv, uint64_t cause, uint64_t tval);
#ifdef HAVE_AVX2_VARIANT
static void observe_step_avx2(hart *h, int kind, uint64_t pc, unsigned priv, uint64_t cause, uint64_t tval);
#endif
static void observe_hart_access(hart *h, const rvt_mem_access *a) { observe_access(machine_of(h), a); }
/* The core's hooks, with the step function for this CPU (AVX2 or not),
 * called from the interpreter's loop for every step. */
static const hart_observer hooks_plain = {observe_step_plain, observe_hart_access};
#ifdef HAVE_AVX2_VARIANT
static const hart_observer hooks_avx2 = {observe_step_avx2, observe_hart_access};
#endif

int rvt_machine_observe(rvt_machine *m, rvt_step_observer fn, void *user, rvt_diag *diag) {
    if (!fn) {
        m->observer = NULL;
        m->core.observer = NULL;
        free(m->obs);
        m->obs = NULL;
        return RVT_OK;
    }
    if (m->nharts != 1)
        return rvt_diag_set(diag, RVT_E_UNSUPP, "observing single steps needs a machine with one hart (it has %u)",
                            m->nharts);
    if (!m->obs) {
        struct observe_state *o = calloc(1, sizeof *o);
        if (!o)
            return RVT_E_NOMEM;
        m->obs = o;
        m->core.observer = &hooks_plain;
#ifdef HAVE_AVX2_VARIANT
        if (__builtin_cpu_supports("avx2"))
            m->core.observer = &hooks_avx2;
#endif
        hart *h = &m->harts[0];
        for (unsigned i = 1; i < 32; i++)
            o->elems[o->nelems++] = RVT_ELEM_GPR + i;
        for (unsigned i = 0; i < 32; i++)
            o->elems[o->nelems++] = RVT_ELEM_FPR + i;
        uint64_t v;
        for (size_t i = 0; i < sizeof candidate_csrs / sizeof candidate_csrs[0]; i++)
            if (csr_peek(h, candidate_csrs[i], &v) == 0)
                o->csrs[o->ncsrs++] = candidate_csrs[i];
        for (unsigned c = 0x3a0; c <= 0x3ef; c++)
            if (m->cfg.pmp_regions && csr_peek(h, c, &v) == 0)
                o->csrs[o->ncsrs++] = (uint16_t)c;
        for (size_t i = 0; i < o->ncsrs; i++)
            o->elems[o->nelems++] = o->csrs[i];
        o->elems[o->nelems++] = RVT_ELEM_PC;
        o->elems[o->nelems++] = RVT_ELEM_PRIV;
    }
    m->observer = fn;
    m->observer_user = user;
    take_snapshot(m);
    return RVT_OK;
}

size_t rvt_machine_elements(rvt_machine *m, const uint32_t **elems) {
    if (!m->obs) {
        *elems = NULL;
        return 0;
    }
    *elems = m->obs->elems;
    return m->obs->nelems;
}

void observe_access(rvt_machine *m, const rvt_mem_access *a) {
    struct observe_state *o = m->obs;
    if (o->nacc < MAX_ACCESSES)
        o->acc[o->nacc++] = *a;
}

/* Word-wise comparison the compiler vectorises: cheaper than memcmp for
 * the few hundred bytes compared on every step. */
static inline bool words_differ(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d != 0;
}

static bool range_differs(const hart *a, const hart *b, size_t from, size_t to) {
    return words_differ((const uint64_t *)((const char *)a + from), (const uint64_t *)((const char *)b + from),
                        (to - from) / 8);
}

/* Bit i set: word i of the 32 at a and b differs. One pass without
 * branches or stores: most steps change one register or none. */
static inline uint32_t words_differing(const uint64_t *a, const uint64_t *b) {
#if defined(__SSE2__)
    uint32_t equal = 0;
    for (unsigned i = 0; i < 32; i += 2) {
        __m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(a + i)),
                                     _mm_loadu_si128((const __m128i *)(b + i)));
        eq = _mm_and_si128(eq, _mm_shuffle_epi32(eq, _MM_SHUFFLE(2, 3, 0, 1))); /* both halves of a word */
        equal |= (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(eq)) << i;
    }
    return ~equal;
#else
    uint32_t differ = 0;
    for (unsigned i = 0; i < 32; i++)
        differ |= (uint32_t)(a[i] != b[i]) << i;
    return differ;
#endif
}

#ifdef HAVE_AVX2_VARIANT
/* words_differing in half the instructions, where the CPU has AVX2. */
__attribute__((target("avx2"))) static inline uint32_t words_differing_avx2(const uint64_t *a, const uint64_t *b) {
    uint32_t equal = 0;
    for (unsigned i = 0; i < 32; i += 4) {
        __m256i eq = _mm256_cmpeq_epi64(_mm256_loadu_si256((const __m256i *)(a + i)),
                                        _mm256_loadu_si256((const __m256i *)(b + i)));
        equal |= (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(eq)) << i;
    }
    return ~equal;
}
#endif

/* Appends the registers of `now` that differ from `snap` (bit i of
 * `differ`) to c[n..], in register order, and brings `snap` up to date. */
static inline __attribute__((always_inline)) size_t diff_registers(uint32_t differ, const uint64_t *now,
                                                                   uint64_t *snap, uint32_t first_elem,
                                                                   uint64_t mask, rvt_elem_value *c, size_t n) {
    for (uint32_t d = differ; d; d &= d - 1) {
        unsigned i = (unsigned)__builtin_ctz(d);
        c[n++] = (rvt_elem_value){first_elem + i, now[i] & mask};
        snap[i] = now[i];
    }
    return n;
}

#define RANGE(first, end) offsetof(hart, first), offsetof(hart, end)

/* Appends the CSRs and counters that differ from the snapshot to c[n..]
 * and brings the snapshot's CSRs up to date: out of line, as few steps
 * change any. */
static __attribute__((noinline)) size_t collect_csr_changes(rvt_machine *m, bool csrs, rvt_elem_value *c, size_t n) {
    struct observe_state *o = m->obs;
    hart *h = &m->harts[0], *s = &o->snap;
    if (csrs) {
        for (size_t i = 0; i < o->ncsrs; i++) {
            uint64_t now = 0, before = 0;
            csr_peek(h, o->csrs[i], &now);
            csr_peek(s, o->csrs[i], &before);
            now = mask_xlen(h, now);
            if (now != mask_xlen(h, before))
                c[n++] = (rvt_elem_value){o->csrs[i], now};
        }
    }
    uint64_t v;
    bool rv32 = h->xlen == 32;
    if (h->mcycle_offset != s->mcycle_offset) {
        csr_peek(h, CSR_MCYCLE_, &v);
        c[n++] = (rvt_elem_value){CSR_MCYCLE_, v};
        if (rv32 && csr_peek(h, CSR_MCYCLEH_, &v) == 0)
            c[n++] = (rvt_elem_value){CSR_MCYCLEH_, v};
    }
    if (h->minstret_offset != s->minstret_offset) {
        csr_peek(h, CSR_MINSTRET_, &v);
        c[n++] = (rvt_elem_value){CSR_MINSTRET_, v};
        if (rv32 && csr_peek(h, CSR_MINSTRETH_, &v) == 0)
            c[n++] = (rvt_elem_value){CSR_MINSTRETH_, v};
    }
    /* Everything but the registers, which are up to date already. */
    uint64_t x[32], f[32];
    memcpy(x, s->x, sizeof x);
    memcpy(f, s->f, sizeof f);
    *s = *h;
    memcpy(s->x, x, sizeof x);
    memcpy(s->f, f, sizeof f);
    return n;
}

/* The changes since the snapshot, which is brought up to date. */
#ifdef HAVE_AVX2_VARIANT
#define DIFFER(now, snap) (avx2 ? words_differing_avx2(now, snap) : words_differing(now, snap))
#else
#define DIFFER(now, snap) words_differing(now, snap)
#endif
static inline __attribute__((always_inline)) size_t collect_changes(rvt_machine *m, bool moved, bool avx2) {
    (void)avx2; /* without the AVX2 variant */
    struct observe_state *o = m->obs;
    hart *h = &m->harts[0], *s = &o->snap;
    rvt_elem_value *c = o->changes;
    size_t n = 0;
    uint64_t old_pc = s->pc;
    unsigned old_priv = s->priv;
    /* Traps, returns, FP instructions and devices change the CSRs of the
     * first two ranges; misa, PMP and trigger settings change only through
     * csr_write (trigger hit bits also while a trigger is armed), so they are
     * compared only then. PMP entries beyond the configured ones never change.
     * Compared before the registers: the step has just stored a register (and
     * x0 back to zero), and a wide load over a store still in flight waits for
     * it to leave the store buffer; this work fills the wait. */
    bool csrs = range_differs(h, s, RANGE(mstatus, minstret)) || range_differs(h, s, RANGE(fflags, pmpaddr));
    n = diff_registers(DIFFER(h->x, s->x), h->x, s->x, RVT_ELEM_GPR, h->xlen == 32 ? 0xffffffffull : ~0ull, c, n);
    if (h->fp_writes != s->fp_writes) {
        n = diff_registers(DIFFER(h->f, s->f), h->f, s->f, RVT_ELEM_FPR, ~0ull, c, n);
        s->fp_writes = h->fp_writes;
    }
    if (!csrs && (h->csr_writes != s->csr_writes || h->trig_armed || s->trig_armed)) {
        unsigned npmp = m->cfg.pmp_regions;
        csrs = words_differ(h->pmpaddr, s->pmpaddr, npmp) ||
               words_differ((const uint64_t *)h->pmpcfg, (const uint64_t *)s->pmpcfg, (npmp + 7) / 8) ||
               range_differs(h, s, RANGE(tselect, trig_armed)) || h->ialign_mask != s->ialign_mask;
        s->csr_writes = h->csr_writes;
    }
    if (csrs || h->mcycle_offset != s->mcycle_offset || h->minstret_offset != s->minstret_offset)
        n = collect_csr_changes(m, csrs, c, n);
    if (moved || h->pc != old_pc)
        c[n++] = (rvt_elem_value){RVT_ELEM_PC, h->pc};
    if (h->priv != old_priv)
        c[n++] = (rvt_elem_value){RVT_ELEM_PRIV, h->priv};
    if (m->core.mtime != o->snap_mtime)
        c[n++] = (rvt_elem_value){RVT_ELEM_MTIME, m->core.mtime};
    s->pc = h->pc;
    s->priv = h->priv;
    o->snap_mtime = m->core.mtime;
    return n;
}

#undef DIFFER

/* Compiled twice (rvt_machine_observe picks one for the core's hooks), so that
 * the comparisons of every step use AVX2 where the CPU has it. */
static inline __attribute__((always_inline)) void observe_step_with(hart *h, int kind, uint64_t pc, unsigned priv,
                                                                    uint64_t cause, uint64_t tval, bool avx2) {
    rvt_machine *m = machine_of(h);
    struct observe_state *o = m->obs;
    rvt_step *s = &o->step;
    bool host = kind == RVT_STEP_HOST;
    size_t nchanges = collect_changes(m, !host, avx2);
    s->kind = kind;
    s->pc = pc;
    s->priv = priv;
    s->cause = cause;
    s->tval = tval;
    s->insn = host ? 0 : h->cur_insn;
    s->len = host ? 0 : h->cur_len;
    s->nchanges = nchanges;
    s->changes = o->changes;
    s->accesses = o->acc;
    s->naccesses = o->nacc;
    if (!host || s->nchanges || s->naccesses)
        m->observer(m->observer_user, s);
    o->nacc = 0;
}

static void observe_step_plain(hart *h, int kind, uint64_t pc, unsigned priv, uint64_t cause, uint64_t tval) {
    observe_step_with(h, kind, pc, priv, cause, tval, false);
}

#ifdef HAVE_AVX2_VARIANT
__attribute__((target("avx2"))) static void observe_step_avx2(hart *h, int kind, uint64_t pc, unsigned priv,
                                                             uint64_t cause, uint64_t tval) {
    observe_step_with(h, kind, pc, priv, cause, tval, true);
}
#endif

/* ------------------------------------------------- debugger-style access */

bool rvt_machine_get(rvt_machine *m, uint32_t elem, uint64_t *value) {
    hart *h = &m->harts[0];
    if (elem >= RVT_ELEM_GPR && elem < RVT_ELEM_GPR + 32) {
        *value = mask_xlen(h, h->x[elem - RVT_ELEM_GPR]);
    } else if (elem >= RVT_ELEM_FPR && elem < RVT_ELEM_FPR + 32) {
        *value = h->f[elem - RVT_ELEM_FPR];
    } else if (elem < 0x1000) {
        if (csr_peek(h, elem, value) != 0)
            return false;
        *value = mask_xlen(h, *value);
    } else if (elem == RVT_ELEM_PC) {
        *value = h->pc;
    } else if (elem == RVT_ELEM_PRIV) {
        *value = h->priv;
    } else if (elem == RVT_ELEM_MTIME) {
        *value = m->core.mtime;
    } else {
        return false;
    }
    return true;
}

bool rvt_machine_set(rvt_machine *m, uint32_t elem, uint64_t value) {
    hart *h = &m->harts[0];
    bool ok = true;
    if (elem >= RVT_ELEM_GPR && elem < RVT_ELEM_GPR + 32) {
        if (elem != RVT_ELEM_GPR)
            h->x[elem - RVT_ELEM_GPR] = sext_xlen(h, value);
    } else if (elem >= RVT_ELEM_FPR && elem < RVT_ELEM_FPR + 32) {
        h->f[elem - RVT_ELEM_FPR] = value;
    } else if (elem == CSR_MIP_) {
        /* the lines too: they are inputs, set as the trace says */
        h->mip = value & ~MIP_LINES;
        h->irq_lines = value & MIP_LINES;
    } else if (elem < 0x1000) {
        unsigned priv = h->priv;
        uint64_t ms = h->mstatus;
        h->priv = PRV_M;
        if (elem <= 3)
            h->mstatus |= MSTATUS_FS;
        ok = csr_write(h, elem, value) == 0;
        if (elem <= 3)
            h->mstatus = (h->mstatus & ~MSTATUS_FS) | (ms & MSTATUS_FS);
        h->priv = priv;
        ctr_sync(h); /* the write ran at M; CTR's activity is the hart's mode's */
        pmp_changed(h);
    } else if (elem == RVT_ELEM_PC) {
        h->pc = mask_xlen(h, value);
    } else if (elem == RVT_ELEM_PRIV) {
        ok = value == PRV_U || value == PRV_S || value == PRV_M;
        if (ok) {
            h->priv = (unsigned)value;
            ctr_sync(h);
        }
    } else if (elem == RVT_ELEM_MTIME) {
        m->core.mtime = value;
        machine_time_moved(m); /* the CLINT compares it with mtimecmp */
    } else {
        ok = false;
    }
    forget_fetch_pages(h);
    if (elem < 0x1000)
        code_flush(&m->core); /* misa, satp or PMP may have changed what fetches see */
    if (m->obs)
        take_snapshot(m);
    return ok;
}

void rvt_machine_drop_reservation(rvt_machine *m) { m->harts[0].resv_valid = false; }

void rvt_machine_reset_hart(rvt_machine *m) {
    uint64_t lines = m->harts[0].irq_lines;
    hart_reset(&m->harts[0], &m->core, 0);
    if (m->device_lines_held) /* (the devices, which keep them, do not drive them now) */
        m->harts[0].irq_lines = lines;
    if (m->sbi)
        sbi_boot(m, rvt_image_entry(m->img), m->dtb);
    machine_time_moved(m); /* the CLINT keeps its state through a hart reset */
    code_flush(&m->core);
    if (m->obs)
        take_snapshot(m);
}

void rvt_machine_run_observed(rvt_machine *m) {
    hart *h = &m->harts[0];
    m->core.stop = false;
    h->traps_in_a_row = 0;
    h->interrupts_held = true;
    m->core.observe_runs = true;
    hart_step_from(h, UINT64_MAX, false);
    m->core.observe_runs = false;
    h->interrupts_held = false;
}

void rvt_machine_stop_run(rvt_machine *m) { m->core.stop = true; }

void rvt_machine_step(rvt_machine *m, bool interrupt) {
    hart *h = &m->harts[0];
    m->core.stop = false;
    h->traps_in_a_row = 0;
    h->interrupts_held = !interrupt;
    hart_step_from(h, 1, interrupt);
    h->interrupts_held = false;
    /* The host answers tohost after a step as after a quantum of a run
     * (rvt_machine_run), so that a program that waits for a proxied system
     * call, or ends through one, goes on. A step observer follows a trace
     * (tandem verification), which says what the host wrote: the host then
     * leaves tohost and fromhost to it. */
    if (!m->observer) {
        htif_poll(m);
        if (!m->core.stop)
            htif_deliver(m);
    }
}
