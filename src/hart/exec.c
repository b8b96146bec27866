/* The interpreter: fetch, address translation (Sv32/Sv39), integer, M, A and
 * system instructions, traps and interrupts, following the RISC-V
 * unprivileged and privileged specifications and spike's stepping rules
 * (when interrupts are sampled, what ends a scheduling quantum). */
#include "ctr_internal.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>

void hart_reset(hart *h, hart_machine *m, unsigned id) {
    ctr_state *ctr = h->ctr; /* allocated once, reset with the hart */
    struct tlb *tlb = h->tlb; /* likewise (its entries end with tlb_gen) */
    uint64_t tlb_gen = h->tlb_gen;
    hart_env env = h->env;   /* the platform's, given once */
    memset(h, 0, sizeof *h);
    h->ctr = ctr;
    h->tlb = tlb;
    h->tlb_gen = tlb_gen + 1;
    h->htlb_nfilled = HOST_TLB_FILLED + 1; /* (every entry: the memset's tags would match page 0) */
    host_tlb_clear(h);
    h->env = env;
    h->m = m;
    h->id = id;
    h->xlen = m->xlen;
    h->priv = PRV_M;
    h->pc = 0x1000;
    uint64_t ext = 0;
    for (const char *p = "IMAFDCSU"; *p; p++)
        ext |= 1ull << (*p - 'A');
    h->misa = (h->xlen == 64 ? 2ull << 62 : 1ull << 30) | ext;
    if (h->xlen == 64)
        h->mstatus = (2ull << 32) | (2ull << 34); /* UXL = SXL = 64 */
    h->frm = 0;
    trigger_reset(h);
    if (m->pmp_regions) {
        /* spike opens all of memory through entry 0 at reset, for software
         * that does not know PMP. */
        h->pmpaddr[0] = h->xlen == 64 ? (1ull << 54) - 1 : 0xffffffffull;
        h->pmpcfg[0] = 0x1f; /* NAPOT, R, W, X */
    }
    pmp_changed(h);
    ctr_reset(h);
    pmu_reset(h);
}

/* ------------------------------------------------------------ traps */

static uint64_t xlen_msb(const hart *h) { return 1ull << (h->xlen - 1); }

/* A record word where the stream's state is the hart's at mtime
 * (machine_sync_record_state), once room was made. */
static inline __attribute__((always_inline)) void write_record_word_now(hart_machine *m, const hart *h,
                                                                        uint64_t iaddr, uint64_t word) {
    assert(m->port.record_state.time == m->mtime && m->port.record_state.hart_group == h->id >> 2);
    (void)h;
    port_put_word(&m->port, iaddr, word);
}

static inline void write_block_record(const hart *h, const struct retire_block *b, unsigned itype) {
    port_write_block(&h->m->port, h->id, b->pc, b->n, b->insn, b->hw, itype, port_owner_word(b->priv, h->id), h->m->mtime);
}

static void emit_block(hart *h, unsigned itype) {
    port_make_room(&h->m->port);
    write_block_record(h, &h->blk, itype);
    h->blk.n = 0;
    h->blk.hw = 0;
}

void hart_flush_block(hart *h) {
    if (h->blk.n)
        emit_block(h, RVT_ITYPE_NONE);
}

/* What every trap leaves for the outputs, before it is handled: the
 * retirement stream's trap record and the exception or interrupt event
 * of the privilege it came from. */
void hart_report_trap(hart *h, uint64_t cause, uint64_t tval, uint64_t epc) {
    hart_machine *m = h->m;
    bool interrupt = (cause & xlen_msb(h)) != 0;
    hart_flush_block(h);
    m->traps++;
    if (m->port.sink) {
        rvt_retire r = {0};
        r.iaddr = epc;
        r.cause = cause;
        r.tval = tval;
        r.priv = (uint8_t)h->priv;
        r.itype = interrupt ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION;
        r.time = m->mtime;
        r.hart = (uint8_t)h->id;
        if (!interrupt) {
            r.insn = h->cur_insn;
            r.ilastsize = h->cur_len == 4;
        }
        port_emit(&m->port, &r);
    }
    if (h->hpm_counting) {
        h->ev[h->priv][interrupt ? PMU_EV_INTERRUPTS : PMU_EV_EXCEPTIONS]++;
        pmu_check_overflow(h);
    }
}

void hart_take_trap(hart *h, uint64_t cause, uint64_t tval, uint64_t epc) {
    hart_machine *m = h->m;
    unsigned priv_before = h->priv;
    forget_fetch_pages(h);
    bool interrupt = (cause & xlen_msb(h)) != 0;
    uint64_t code = cause & ~xlen_msb(h);
    h->last_trap_cause = cause;
    h->last_trap_pc = epc;
    h->trapped = true;
    /* Without a retired instruction between them, traps repeat for ever: the
     * handler itself faults (an unmapped or unfetchable trap vector). */
    if (++h->traps_in_a_row == RVT_STUCK_TRAPS && !m->stop) {
        m->stop = true;
        m->stop_reason = RVT_STOP_NO_PROGRESS;
    }
    hart_report_trap(h, cause, tval, epc);
    if (h->env.exception && !interrupt && h->priv <= PRV_S && h->env.exception(h, code, tval, epc))
        return; /* the environment handled it, as firmware would */
    uint64_t deleg = interrupt ? h->mideleg : h->medeleg;
    if (h->priv <= PRV_S && code < 64 && ((deleg >> code) & 1)) {
        uint64_t vector = (h->stvec & 1) && interrupt ? 4 * code : 0;
        h->pc = mask_xlen(h, (h->stvec & ~3ull) + vector);
        h->scause = cause;
        h->sepc = epc;
        h->stval = tval;
        uint64_t s = h->mstatus;
        s = (s & ~MSTATUS_SPIE) | ((s & MSTATUS_SIE) ? MSTATUS_SPIE : 0);
        s = (s & ~MSTATUS_SPP) | (h->priv == PRV_S ? MSTATUS_SPP : 0);
        s &= ~MSTATUS_SIE;
        h->mstatus = s;
        h->priv = PRV_S;
    } else {
        uint64_t vector = (h->mtvec & 1) && interrupt ? 4 * code : 0;
        h->pc = mask_xlen(h, (h->mtvec & ~3ull) + vector);
        h->mcause = cause;
        h->mepc = epc;
        h->mtval = tval;
        uint64_t s = h->mstatus;
        s = (s & ~MSTATUS_MPIE) | ((s & MSTATUS_MIE) ? MSTATUS_MPIE : 0);
        s = (s & ~MSTATUS_MPP) | ((uint64_t)h->priv << 11);
        s &= ~MSTATUS_MIE;
        h->mstatus = s;
        h->priv = PRV_M;
    }
    h->resv_valid = false;
    if (h->ctr_armed)
        ctr_trap(h, interrupt, code, epc, priv_before);
    if (m->observer)
        observe_step(h, RVT_STEP_TRAP, epc, priv_before, cause, tval);
}

/* Another hart holds a reservation (LR) that a store of this one may break. */
static bool others_reserved(const hart *h) {
    const hart_machine *m = h->m;
    for (unsigned i = 0; i < m->nharts; i++)
        if (&m->harts[i] != h && m->harts[i].resv_valid)
            return true;
    return false;
}

/* spike's take_pending_interrupt: priority MEI, MSI, MTI, SEI, SSI, STI. */
static bool pending_interrupt(const hart *h, uint64_t *cause) {
    uint64_t pending = hart_mip(h) & h->mie;
    if (!pending)
        return false;
    bool m_enabled = h->priv < PRV_M || (h->mstatus & MSTATUS_MIE);
    uint64_t enabled = m_enabled ? pending & ~h->mideleg : 0;
    if (!enabled) {
        bool s_enabled = h->priv < PRV_S || (h->priv == PRV_S && (h->mstatus & MSTATUS_SIE));
        enabled = s_enabled ? pending & h->mideleg : 0;
    }
    if (!enabled)
        return false;
    static const unsigned order[7] = {IRQ_M_EXT, IRQ_M_SOFT, IRQ_M_TIMER, IRQ_S_EXT, IRQ_S_SOFT, IRQ_S_TIMER, IRQ_LCOF};
    for (unsigned i = 0; i < 7; i++)
        if (enabled & (1ull << order[i])) {
            *cause = xlen_msb(h) | order[i];
            return true;
        }
    return false;
}

static bool load(hart *h, uint64_t va, void *out, unsigned len) {
    va = mask_xlen(h, va);
    if (h->trig_armed && trigger_check(h, ACC_LOAD, va, len, false, 0) == TRIG_BEFORE)
        return false;
    if (va & (len - 1)) {
        h->exc_cause = CAUSE_MISALIGNED_LOAD;
        h->exc_tval = va;
        return false;
    }
    uint64_t pa;
    if (!mmu_translate(h, va, ACC_LOAD, len, &pa))
        return false;
    if (!bus_load(h->m, pa, out, len)) {
        h->exc_cause = CAUSE_LOAD_ACCESS;
        h->exc_tval = va;
        return false;
    }
    if (h->m->caches)
        cache_data(h, pa, len, false);
    if (h->htlb_loads)
        host_tlb_fill(h, ACC_LOAD, va, pa);
    if (h->m->observer) {
        uint64_t data = 0;
        memcpy(&data, out, len);
        note_access(h, RVT_ACCESS_LOAD, va, pa, len, data, 0);
    }
    if (h->trig_armed) {
        uint64_t data = 0;
        memcpy(&data, out, len);
        trigger_check(h, ACC_LOAD, va, len, true, data);
    }
    return true;
}

static bool store(hart *h, uint64_t va, const void *in, unsigned len) {
    va = mask_xlen(h, va);
    if (h->trig_armed) {
        uint64_t data = 0;
        memcpy(&data, in, len);
        if (trigger_check(h, ACC_STORE, va, len, true, data) == TRIG_BEFORE)
            return false;
    }
    if (va & (len - 1)) {
        h->exc_cause = CAUSE_MISALIGNED_STORE;
        h->exc_tval = va;
        return false;
    }
    uint64_t pa;
    if (!mmu_translate(h, va, ACC_STORE, len, &pa))
        return false;
    uint64_t old = 0;
    mem_region *ram;
    if (h->m->observer && (ram = bus_region(h->m, pa, len))) /* (a device's load may have effects) */
        copy_small(&old, ram->data + (pa - ram->base), len);
    if (!bus_store(h->m, h, pa, in, len)) {
        h->exc_cause = CAUSE_STORE_ACCESS;
        h->exc_tval = va;
        return false;
    }
    if (h->m->caches)
        cache_data(h, pa, len, true);
    if (h->htlb_stores)
        host_tlb_fill(h, ACC_STORE, va, pa);
    if (h->m->observer) {
        uint64_t data = 0;
        memcpy(&data, in, len);
        note_access(h, RVT_ACCESS_STORE, va, pa, len, data, old);
    }
    return true;
}

bool hart_emulate_misaligned(hart *h, uint64_t va, uint64_t epc) {
    rvt_insn in;
    rvt_decode(h->cur_insn, h->xlen, &in);
    unsigned size = 0;
    bool store_op = false, fp = false, sign = false;
    switch (in.op) {
    case RVT_OP_LH: sign = true; /* fall through */
    case RVT_OP_LHU: size = 2; break;
    case RVT_OP_LW: sign = true; /* fall through */
    case RVT_OP_LWU: size = 4; break;
    case RVT_OP_LD: size = 8; break;
    case RVT_OP_FLW: size = 4, fp = true; break;
    case RVT_OP_FLD: size = 8, fp = true; break;
    case RVT_OP_SH: size = 2, store_op = true; break;
    case RVT_OP_SW: size = 4, store_op = true; break;
    case RVT_OP_SD: size = 8, store_op = true; break;
    case RVT_OP_FSW: size = 4, store_op = fp = true; break;
    case RVT_OP_FSD: size = 8, store_op = fp = true; break;
    default: return false; /* AMOs, LR/SC: not emulated */
    }
    uint64_t v = 0;
    if (store_op) {
        v = fp ? h->f[in.rs2] : h->x[in.rs2];
        for (unsigned i = 0; i < size; i++) {
            uint8_t b = (uint8_t)(v >> (8 * i));
            if (!store(h, va + i, &b, 1)) {
                hart_take_trap(h, h->exc_cause, h->exc_tval, epc);
                return true;
            }
        }
    } else {
        for (unsigned i = 0; i < size; i++) {
            uint8_t b;
            if (!load(h, va + i, &b, 1)) {
                hart_take_trap(h, h->exc_cause, h->exc_tval, epc);
                return true;
            }
            v |= (uint64_t)b << (8 * i);
        }
        if (fp) {
            h->f[in.rd] = size == 4 ? 0xffffffff00000000ull | v : v;
            fp_dirty(h);
        } else if (in.rd != 0) {
            if (sign && size < 8)
                v = (uint64_t)((int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size));
            h->x[in.rd] = sext_xlen(h, v); /* registers hold RV32 values sign-extended */
        }
    }
    h->pc = mask_xlen(h, epc + in.len);
    forget_fetch_pages(h);
    return true;
}

/* An access of the fast paths (host TLB hits, at `host`) for the step observer. */
static __attribute__((noinline)) void note_fast(hart *h, int kind, uint64_t va, const uint8_t *host,
                                                const void *data_at, unsigned len, const void *old_at) {
    uint64_t data = 0, old = 0;
    memcpy(&data, data_at, len);
    if (old_at)
        memcpy(&old, old_at, len);
    uint64_t off = 0;
    const mem_region *r = bus_region_of_host(h->m, host, &off);
    note_access(h, kind, va, r ? r->base + off : 0, len, data, old);
}

/* Loads and stores to RAM pages the host TLB holds go straight to them; the
 * rest, and whatever fills it, go the whole way (load, store). */
static inline __attribute__((always_inline)) bool load_fast(hart *h, uint64_t va, void *out, unsigned len) {
    const struct host_page *e = host_page_at(h->htlb.load, va, len);
    if (__builtin_expect(e != NULL, 1)) {
        const uint8_t *from = host_address(e, va);
        copy_small(out, from, len);
        if (__builtin_expect(h->m->observer != NULL, 0))
            note_fast(h, RVT_ACCESS_LOAD, va, from, out, len, NULL);
        return true;
    }
    return load(h, va, out, len);
}

/* A store that meets decoded code (host_store_meets_code) drops what it
 * overwrites at `to`, the host TLB's address. */
static __attribute__((noinline)) void drop_code_at(hart *h, const uint8_t *to, unsigned len) {
    uint64_t off = 0;
    mem_region *r = bus_region_of_host(h->m, to, &off);
    if (r)
        code_drop(h->m, r, off, len);
}

static inline __attribute__((always_inline)) bool store_fast(hart *h, uint64_t va, const void *in, unsigned len) {
    const struct host_page *e = host_page_at(h->htlb.store, va, len);
    if (__builtin_expect(e && va != e->watch, 1)) {
        uint8_t *to = host_address(e, va);
        if (__builtin_expect(h->m->observer != NULL, 0))
            note_fast(h, RVT_ACCESS_STORE, va, to, in, len, to);
        if (__builtin_expect(host_store_meets_code(e, va), 0))
            drop_code_at(h, to, len); /* (before the code changes) */
        copy_small(to, in, len);
        return true;
    }
    return store(h, va, in, len);
}

#define MISA_BIT(c) (1ull << ((c) - 'A'))

/* An instruction of an extension that misa has switched off is illegal. */
static bool insn_enabled(const hart *h, const rvt_insn *in) {
    uint64_t misa = h->misa;
    unsigned op = in->op;
    if (in->len == 2)
        return (misa & MISA_BIT('C')) != 0;
    if (op >= RVT_OP_MUL && op <= RVT_OP_REMUW)
        return (misa & MISA_BIT('M')) != 0;
    if (op >= RVT_OP_LR_W && op <= RVT_OP_AMOMAXU_D)
        return (misa & MISA_BIT('A')) != 0;
    if (op >= RVT_OP_FLW && op <= RVT_OP_FCVT_S_LU)
        return (misa & MISA_BIT('F')) != 0;
    if (op >= RVT_OP_FLD && op <= RVT_OP_FMV_D_X)
        return (misa & MISA_BIT('D')) != 0;
    return true;
}

static const rvt_insn *fetch_translated(hart *h);

/* Fetch the decoded instruction at h->pc; NULL with exc_* set on a fault.
 * cur_insn stays 0 unless the instruction itself was fetched. */
static const rvt_insn *fetch(hart *h) {
    h->cur_insn = 0;
    h->cur_len = 0;
    const rvt_insn *in = fetch_translated(h);
    if (in && h->misa_restricted && !insn_enabled(h, in)) {
        h->cur_insn = in->raw;
        h->cur_len = in->len;
        h->exc_cause = CAUSE_ILLEGAL_INSTRUCTION;
        h->exc_tval = in->raw;
        return NULL;
    }
    return in;
}

static const rvt_insn *fetch_translated(hart *h) {
    uint64_t pa;
    if (!mmu_translate(h, h->pc, ACC_FETCH, 2, &pa))
        return NULL;
    h->fetch_pa = pa;
    const rvt_insn *in = bus_fetch(h->m, pa);
    if (pa != h->pc)
        h->m->port.left_code = true; /* (see rvt_machine_watch_code) */
    if (!in) {
        h->exc_cause = CAUSE_FETCH_ACCESS;
        h->exc_tval = h->pc;
        return NULL;
    }
    if (in->len == 4 && ((pa + 2) & 0xfff) != 0 && !pmp_ok(h, pa + 2, 2, ACC_FETCH, h->priv)) {
        h->exc_cause = CAUSE_FETCH_ACCESS; /* the second parcel lies in another PMP granule */
        h->exc_tval = h->pc + 2;
        return NULL;
    }
    if (in->len == 4 && ((pa + 2) & 0xfff) == 0 && h->m->xlen) {
        /* A 32-bit instruction crossing a page: both halves must be fetchable. */
        uint64_t pa2;
        if (!mmu_translate(h, h->pc + 2, ACC_FETCH, 2, &pa2)) {
            h->exc_tval = h->pc + 2;
            return NULL;
        }
        if (pa2 != pa + 2) {
            h->m->port.left_code = true;
            static _Thread_local rvt_insn split;
            uint8_t b[4];
            if (!bus_load(h->m, pa, b, 2) || !bus_load(h->m, pa2, b + 2, 2)) {
                h->exc_cause = CAUSE_FETCH_ACCESS;
                h->exc_tval = h->pc;
                return NULL;
            }
            rvt_decode((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24,
                       h->xlen, &split);
            return &split;
        }
    }
    return in;
}

/* ------------------------------------------------------------ execute */

/* A jump or taken branch to a target that IALIGN forbids raises the
 * exception itself, without retiring (spike: set_pc). */
static int misaligned_target(hart *h, uint64_t target) {
    h->exc_cause = CAUSE_MISALIGNED_FETCH;
    h->exc_tval = mask_xlen(h, target);
    return EXEC_TRAP;
}

static int illegal(hart *h, const rvt_insn *in) {
    h->exc_cause = CAUSE_ILLEGAL_INSTRUCTION;
    h->exc_tval = in->raw;
    return EXEC_TRAP;
}

static inline void wr(hart *h, unsigned rd, uint64_t v) {
    if (rd)
        h->x[rd] = sext_xlen(h, v);
}

static int exec_csr(hart *h, const rvt_insn *in) {
    uint64_t cause;
    if (__builtin_expect((hart_mip(h) & h->mie) != 0, 0) && !h->interrupts_held && pending_interrupt(h, &cause))
        return EXEC_INTERRUPT;
    unsigned op = in->op;
    bool imm = op >= RVT_OP_CSRRWI;
    uint64_t src = imm ? in->rs1 : h->x[in->rs1];
    bool is_rw = op == RVT_OP_CSRRW || op == RVT_OP_CSRRWI;
    bool write = is_rw || in->rs1 != 0;
    uint64_t old = 0;
    if (!csr_access_ok(h, in->csr, write) || csr_read(h, in->csr, &old))
        return illegal(h, in);
    if (write) {
        uint64_t base = is_rw ? 0 : csr_rmw_base(h, in->csr, old);
        uint64_t v = is_rw ? src : (op == RVT_OP_CSRRS || op == RVT_OP_CSRRSI) ? base | src : base & ~src;
        if (csr_write(h, in->csr, v))
            return illegal(h, in);
    }
    wr(h, in->rd, old);
    h->pc = mask_xlen(h, h->pc + in->len);
    return EXEC_SERIALIZE;
}

static uint64_t mulh_u(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
static uint64_t mulh_s(int64_t a, int64_t b) { return (uint64_t)(((__int128)a * b) >> 64); }
static uint64_t mulh_su(int64_t a, uint64_t b) { return (uint64_t)(((__int128)a * (__int128)b) >> 64); }

static int exec_amo(hart *h, const rvt_insn *in) {
    bool d = in->op >= RVT_OP_LR_D;
    unsigned size = d ? 8 : 4;
    uint64_t addr = mask_xlen(h, h->x[in->rs1]);
    unsigned op = d ? in->op - (RVT_OP_LR_D - RVT_OP_LR_W) : in->op;
    if (op == RVT_OP_LR_W) {
        uint64_t v = 0;
        if (!load(h, addr, &v, size))
            return EXEC_TRAP;
        wr(h, in->rd, d ? v : (uint64_t)(int64_t)(int32_t)v);
        h->resv_valid = true;
        h->resv_addr = addr;
    } else if (op == RVT_OP_SC_W) {
        /* Triggers, alignment and permission are checked even when the SC
         * fails; a failing SC matches store triggers by address only. */
        bool ok = h->resv_valid && h->resv_addr == addr;
        if (h->trig_armed && trigger_check(h, ACC_STORE, addr, size, ok, h->x[in->rs2]) == TRIG_BEFORE)
            return EXEC_TRAP;
        if (addr & (size - 1)) {
            h->exc_cause = CAUSE_MISALIGNED_STORE;
            h->exc_tval = addr;
            return EXEC_TRAP;
        }
        if (ok) {
            uint64_t v = h->x[in->rs2];
            if (!store(h, addr, &v, size))
                return EXEC_TRAP;
        } else {
            uint64_t pa;
            if (!mmu_translate(h, addr, ACC_STORE, size, &pa))
                return EXEC_TRAP;
        }
        h->resv_valid = false;
        wr(h, in->rd, ok ? 0 : 1);
    } else {
        /* An AMO matches store, then load triggers by address (not by data). */
        if (h->trig_armed && (trigger_check(h, ACC_STORE, addr, size, false, 0) == TRIG_BEFORE ||
                              trigger_check(h, ACC_LOAD, addr, size, false, 0) == TRIG_BEFORE))
            return EXEC_TRAP;
        if (addr & (size - 1)) {
            h->exc_cause = CAUSE_MISALIGNED_STORE;
            h->exc_tval = addr;
            return EXEC_TRAP;
        }
        uint64_t pa;
        if (!mmu_translate(h, addr, ACC_STORE, size, &pa))
            return EXEC_TRAP;
        /* The AMO's read needs R as well; spike reports its fault as a store's. */
        if (!pmp_ok(h, pa, size, ACC_LOAD, data_priv(h))) {
            h->exc_cause = CAUSE_STORE_ACCESS;
            h->exc_tval = addr;
            return EXEC_TRAP;
        }
        uint64_t old = 0;
        if (!bus_load(h->m, pa, &old, size)) {
            h->exc_cause = CAUSE_STORE_ACCESS;
            h->exc_tval = addr;
            return EXEC_TRAP;
        }
        if (h->m->caches)
            cache_data(h, pa, size, false);
        uint64_t a = d ? old : (uint64_t)(int64_t)(int32_t)old;
        uint64_t b = d ? h->x[in->rs2] : (uint64_t)(int64_t)(int32_t)h->x[in->rs2];
        uint64_t r;
        switch (op) {
        case RVT_OP_AMOSWAP_W: r = b; break;
        case RVT_OP_AMOADD_W: r = a + b; break;
        case RVT_OP_AMOXOR_W: r = a ^ b; break;
        case RVT_OP_AMOAND_W: r = a & b; break;
        case RVT_OP_AMOOR_W: r = a | b; break;
        case RVT_OP_AMOMIN_W: r = (int64_t)a < (int64_t)b ? a : b; break;
        case RVT_OP_AMOMAX_W: r = (int64_t)a > (int64_t)b ? a : b; break;
        case RVT_OP_AMOMINU_W: r = (d ? a : (uint32_t)a) < (d ? b : (uint32_t)b) ? a : b; break;
        default: r = (d ? a : (uint32_t)a) > (d ? b : (uint32_t)b) ? a : b; break;
        }
        if (!bus_store(h->m, h, pa, &r, size)) {
            h->exc_cause = CAUSE_STORE_ACCESS;
            h->exc_tval = addr;
            return EXEC_TRAP;
        }
        if (h->m->caches)
            cache_data(h, pa, size, true);
        if (h->m->observer) {
            uint64_t mask = d ? ~0ull : 0xffffffffull;
            rvt_mem_access acc = {.vaddr = addr, .paddr = pa, .data = old & mask, .stored = r & mask,
                                  .operand = b & mask, .old = old & mask, .kind = RVT_ACCESS_AMO,
                                  .len = (uint8_t)size};
            hart_observe_access(h, &acc);
        }
        wr(h, in->rd, a);
    }
    h->pc = mask_xlen(h, h->pc + in->len);
    return EXEC_OK;
}

static int exec_system(hart *h, const rvt_insn *in) {
    switch (in->op) {
    case RVT_OP_ECALL:
        if ((h->env.ecall_privs >> h->priv) & 1) /* the environment answers */
            return EXEC_HANDOVER;
        h->exc_cause = h->priv == PRV_U ? CAUSE_USER_ECALL : h->priv == PRV_S ? CAUSE_SUPERVISOR_ECALL
                                                                              : CAUSE_MACHINE_ECALL;
        h->exc_tval = 0;
        return EXEC_TRAP;
    case RVT_OP_EBREAK:
        h->exc_cause = CAUSE_BREAKPOINT;
        h->exc_tval = h->pc;
        return EXEC_TRAP;
    case RVT_OP_MRET: {
        if (h->priv < PRV_M)
            return illegal(h, in);
        uint64_t s = h->mstatus;
        unsigned mpp = (unsigned)((s & MSTATUS_MPP) >> 11);
        s = (s & ~MSTATUS_MIE) | ((s & MSTATUS_MPIE) ? MSTATUS_MIE : 0);
        s |= MSTATUS_MPIE;
        s &= ~MSTATUS_MPP; /* MPP becomes the least-privileged supported mode (U) */
        if (mpp != PRV_M)
            s &= ~MSTATUS_MPRV;
        h->mstatus = s;
        h->priv = mpp;
        h->translation_changed = true; /* spike's set_privilege */
        h->pc = mask_xlen(h, h->mepc & ~h->ialign_mask);
        return EXEC_SERIALIZE;
    }
    case RVT_OP_SRET: {
        if (h->priv < PRV_S || (h->priv == PRV_S && (h->mstatus & MSTATUS_TSR)))
            return illegal(h, in);
        uint64_t s = h->mstatus;
        unsigned spp = (s & MSTATUS_SPP) ? PRV_S : PRV_U;
        s = (s & ~MSTATUS_SIE) | ((s & MSTATUS_SPIE) ? MSTATUS_SIE : 0);
        s |= MSTATUS_SPIE;
        s &= ~MSTATUS_SPP;
        s &= ~MSTATUS_MPRV;
        h->mstatus = s;
        h->priv = spp;
        h->translation_changed = true; /* spike's set_privilege */
        h->pc = mask_xlen(h, h->sepc & ~h->ialign_mask);
        return EXEC_SERIALIZE;
    }
    case RVT_OP_WFI:
        if (h->priv == PRV_U || (h->priv == PRV_S && (h->mstatus & MSTATUS_TW)))
            return illegal(h, in);
        h->pc = mask_xlen(h, h->pc + in->len);
        /* spike's WFI only ends the quantum; on a machine for supervisor
         * software the hart sleeps until an interrupt it enables is pending,
         * so firmware that waits (OpenSBI's stopped and suspended harts)
         * waits for real */
        h->asleep = h->env.wfi_sleeps;
        return EXEC_WFI;
    case RVT_OP_SCTRCLR:
        if (!ctr_sctrclr(h))
            return illegal(h, in);
        h->pc = mask_xlen(h, h->pc + in->len);
        return EXEC_OK;
    case RVT_OP_SFENCE_VMA:
        if (h->priv == PRV_U || (h->priv == PRV_S && (h->mstatus & MSTATUS_TVM)))
            return illegal(h, in);
        h->pc = mask_xlen(h, h->pc + in->len);
        /* The translations go (forget_fetch_pages at the run's end); as for
         * fence.i, ending the run does not sample interrupts (spike's
         * sfence.vma does not serialise). */
        h->sfence_pending = true;
        return EXEC_SERIALIZE;
    case RVT_OP_FENCE_I:
        /* Ending the run for it does not sample interrupts, as spike's
         * fence.i does not serialise. */
        h->fence_i_pending = true;
        h->pc = mask_xlen(h, h->pc + in->len);
        return EXEC_SERIALIZE;
    default: /* uret, dret: not available outside debug mode / without N */
        return illegal(h, in);
    }
}

#define MASKX(v) (XLEN == 32 ? (uint64_t)(uint32_t)(v) : (uint64_t)(v))
#define SEXTX(v) (XLEN == 32 ? (uint64_t)(int64_t)(int32_t)(v) : (uint64_t)(v))
#define SX(v) ((int64_t)SEXTX(v))
#define WR(rd, v) (h->x[(rd)] = SEXTX(v)) /* x0 is cleared after every instruction */

/* The integer instructions that touch nothing but registers, pc and RAM, in
 * tables that execute() and run_loop.h's threaded dispatch both expand:
 * operands a (rs1), b (rs2), imm, pc; v for the loaded value. */
#define HART_ALU(X)                                                                                                    \
    X(LUI, (uint64_t)imm)                                                                                              \
    X(AUIPC, pc + (uint64_t)imm)                                                                                       \
    X(ADDI, a + (uint64_t)imm)                                                                                         \
    X(SLTI, SX(a) < imm)                                                                                               \
    X(SLTIU, MASKX(a) < MASKX((uint64_t)imm))                                                                          \
    X(XORI, a ^ (uint64_t)imm)                                                                                         \
    X(ORI, a | (uint64_t)imm)                                                                                          \
    X(ANDI, a & (uint64_t)imm)                                                                                         \
    X(SLLI, a << imm)                                                                                                  \
    X(SRLI, MASKX(a) >> imm)                                                                                           \
    X(SRAI, (uint64_t)(SX(a) >> imm))                                                                                  \
    X(ADD, a + b)                                                                                                      \
    X(SUB, a - b)                                                                                                      \
    X(SLL, a << (b & (XLEN - 1)))                                                                                      \
    X(SLT, SX(a) < SX(b))                                                                                              \
    X(SLTU, MASKX(a) < MASKX(b))                                                                                       \
    X(XOR, a ^ b)                                                                                                      \
    X(SRL, MASKX(a) >> (b & (XLEN - 1)))                                                                               \
    X(SRA, (uint64_t)(SX(a) >> (b & (XLEN - 1))))                                                                      \
    X(OR, a | b)                                                                                                       \
    X(AND, a & b)                                                                                                      \
    X(ADDIW, (uint64_t)(int64_t)(int32_t)(a + (uint64_t)imm))                                                          \
    X(SLLIW, (uint64_t)(int64_t)(int32_t)((uint32_t)a << imm))                                                         \
    X(SRLIW, (uint64_t)(int64_t)(int32_t)((uint32_t)a >> imm))                                                         \
    X(SRAIW, (uint64_t)(int64_t)((int32_t)a >> imm))                                                                   \
    X(ADDW, (uint64_t)(int64_t)(int32_t)(a + b))                                                                       \
    X(SUBW, (uint64_t)(int64_t)(int32_t)(a - b))                                                                       \
    X(SLLW, (uint64_t)(int64_t)(int32_t)((uint32_t)a << (b & 31)))                                                     \
    X(SRLW, (uint64_t)(int64_t)(int32_t)((uint32_t)a >> (b & 31)))                                                     \
    X(SRAW, (uint64_t)(int64_t)((int32_t)a >> (b & 31)))                                                               \
    X(MUL, a * b)                                                                                                      \
    X(MULH, XLEN == 64 ? mulh_s((int64_t)a, (int64_t)b)                                                                \
                       : (uint64_t)(((int64_t)(int32_t)a * (int64_t)(int32_t)b) >> 32))                                \
    X(MULHSU, XLEN == 64 ? mulh_su((int64_t)a, b)                                                                      \
                         : (uint64_t)(((int64_t)(int32_t)a * (int64_t)(uint32_t)b) >> 32))                             \
    X(MULHU, XLEN == 64 ? mulh_u(a, b) : (uint64_t)(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32))                      \
    X(DIV, SX(b) == 0 ? ~0ull                                                                                          \
           : (SX(a) == (XLEN == 64 ? INT64_MIN : INT32_MIN) && SX(b) == -1) ? (uint64_t)SX(a)                          \
                                                                            : (uint64_t)(SX(a) / SX(b)))               \
    X(DIVU, MASKX(b) == 0 ? ~0ull : MASKX(a) / MASKX(b))                                                               \
    X(REM, SX(b) == 0 ? (uint64_t)SX(a)                                                                                \
           : (SX(a) == (XLEN == 64 ? INT64_MIN : INT32_MIN) && SX(b) == -1) ? 0 : (uint64_t)(SX(a) % SX(b)))           \
    X(REMU, MASKX(b) == 0 ? MASKX(a) : MASKX(a) % MASKX(b))                                                            \
    X(MULW, (uint64_t)(int64_t)(int32_t)((uint32_t)a * (uint32_t)b))                                                   \
    X(DIVW, (int32_t)b == 0 ? ~0ull                                                                                    \
            : ((int32_t)a == INT32_MIN && (int32_t)b == -1) ? (uint64_t)(int64_t)(int32_t)a                            \
                                                            : (uint64_t)(int64_t)((int32_t)a / (int32_t)b))            \
    X(DIVUW, (uint32_t)b == 0 ? ~0ull : (uint64_t)(int64_t)(int32_t)((uint32_t)a / (uint32_t)b))                       \
    X(REMW, (int32_t)b == 0 ? (uint64_t)(int64_t)(int32_t)a                                                            \
            : ((int32_t)a == INT32_MIN && (int32_t)b == -1) ? 0 : (uint64_t)(int64_t)((int32_t)a % (int32_t)b))        \
    X(REMUW, (uint64_t)(int64_t)(int32_t)((uint32_t)b == 0 ? (uint32_t)a : (uint32_t)a % (uint32_t)b))
#define HART_BRANCHES(X)                                                                                               \
    X(BEQ, a == b)                                                                                                     \
    X(BNE, a != b)                                                                                                     \
    X(BLT, (int64_t)a < (int64_t)b)                                                                                    \
    X(BGE, (int64_t)a >= (int64_t)b)                                                                                   \
    X(BLTU, MASKX(a) < MASKX(b))                                                                                       \
    X(BGEU, MASKX(a) >= MASKX(b))
#define HART_LOADS(X)                                                                                                  \
    X(LB, 1, (uint64_t)(int64_t)(int8_t)v)                                                                             \
    X(LH, 2, (uint64_t)(int64_t)(int16_t)v)                                                                            \
    X(LW, 4, (uint64_t)(int64_t)(int32_t)v)                                                                            \
    X(LD, 8, v)                                                                                                        \
    X(LBU, 1, v)                                                                                                       \
    X(LHU, 2, v)                                                                                                       \
    X(LWU, 4, v)
#define HART_STORES(X) X(SB, 1) X(SH, 2) X(SW, 4) X(SD, 8)

/* Pairs of operations a code block runs with one dispatch (run_loop.h): a
 * frequent register operation, load or store, then the operation after it,
 * whose handler the pair's handler jumps to directly. By how often they retire next to
 * each other in the corpus and embench programs. The second list is a list
 * of its own: the preprocessor cannot expand a list inside its own expansion. */
#define HART_PAIR_FIRST(X)                                                                                             \
    X(ADDI, ALU) X(ADD, ALU) X(SLLI, ALU) X(SRLI, ALU) X(OR, ALU) X(MUL, ALU) X(ANDI, ALU) X(XOR, ALU) X(LUI, ALU)     \
    X(AND, ALU) X(SUB, ALU) X(SLTU, ALU) X(SRAI, ALU) X(XORI, ALU) X(ADDW, ALU) X(ADDIW, ALU) X(LW, LOAD)             \
    X(LD, LOAD) X(LBU, LOAD) X(LH, LOAD) X(LHU, LOAD) X(SW, STORE) X(SD, STORE) X(SB, STORE)
#define HART_PAIR_SECOND(X, first, kind)                                                                               \
    X(first, kind, ADDI) X(first, kind, ADD) X(first, kind, SLLI) X(first, kind, SRLI) X(first, kind, OR)            \
    X(first, kind, MUL) X(first, kind, ANDI) X(first, kind, XOR) X(first, kind, LUI) X(first, kind, AND)             \
    X(first, kind, SUB) X(first, kind, SLTU) X(first, kind, SRAI) X(first, kind, XORI) X(first, kind, ADDW)          \
    X(first, kind, ADDIW) X(first, kind, BEQ) X(first, kind, BNE) X(first, kind, BLT) X(first, kind, BGE)            \
    X(first, kind, BLTU) X(first, kind, BGEU) X(first, kind, LB) X(first, kind, LH) X(first, kind, LW)               \
    X(first, kind, LD) X(first, kind, LBU) X(first, kind, LHU) X(first, kind, LWU) X(first, kind, SB)                \
    X(first, kind, SH) X(first, kind, SW) X(first, kind, SD) X(first, kind, JAL) X(first, kind, JALR)                \
    X(first, kind, END)
enum {
#define PAIR_FIRST_ENUM(name, kind) PAIR_FIRST_##name,
    HART_PAIR_FIRST(PAIR_FIRST_ENUM)
#undef PAIR_FIRST_ENUM
    PAIR_FIRSTS
};
enum {
#define PAIR_SECOND_ENUM(first, kind, name) PAIR_SECOND_##name,
    HART_PAIR_SECOND(PAIR_SECOND_ENUM, , )
#undef PAIR_SECOND_ENUM
    PAIR_SECONDS
};
/* The handler of the pair (first, second) in a run loop's dispatch table. */
#define CODE_OP_PAIR(first, second) (CODE_OP_PAIRS + (first) * PAIR_SECONDS + (second))
#define CODE_OP_TABLE_SIZE (CODE_OP_PAIRS + PAIR_FIRSTS * PAIR_SECONDS)

/* A register operation's value (what execute() and the handlers write to rd). */
#define ALU_VALUE_FUNCTION(name, value)                                                                                \
    static inline uint64_t alu_value_##name(uint64_t a, uint64_t b, int64_t imm, uint64_t pc, const unsigned XLEN) {   \
        (void)a, (void)b, (void)imm, (void)pc;                                                                         \
        return SEXTX(value);                                                                                           \
    }
HART_ALU(ALU_VALUE_FUNCTION)
#undef ALU_VALUE_FUNCTION
/* A load's and a store's size, and the value a load writes from what it read. */
#define LOAD_FUNCTIONS(name, nbytes, extend)                                                                           \
    enum { LOAD_BYTES_##name = nbytes };                                                                               \
    static inline uint64_t load_extend_##name(uint64_t v) { return extend; }
HART_LOADS(LOAD_FUNCTIONS)
#undef LOAD_FUNCTIONS
#define STORE_SIZE(name, nbytes) enum { STORE_BYTES_##name = nbytes };
HART_STORES(STORE_SIZE)
#undef STORE_SIZE

/* Executes the instruction `in` at `pc`; sets *next_pc where execution goes
 * on when it retires. The pc and minstret (`instret`) are the caller's
 * locals, written to the hart only for the handlers that read them: register
 * writes through h->x could alias the hart's fields, which would make the
 * compiler reload them per instruction. */
static inline __attribute__((always_inline)) int execute(hart *h, const rvt_insn *in, uint64_t pc, uint64_t instret,
                                                          uint64_t *next_pc, const unsigned XLEN) {
    uint64_t *x = h->x;
    uint64_t a = x[in->rs1], b = x[in->rs2];
    int64_t imm = in->imm;
    uint64_t next = pc + in->len;
    int st;
    *next_pc = pc; /* where a trap leaves it */
    switch (in->op) {
    case RVT_OP_JAL: {
        uint64_t t = pc + (uint64_t)imm;
        if (__builtin_expect(t & h->ialign_mask, 0))
            return misaligned_target(h, t);
        WR(in->rd, next);
        *next_pc = MASKX(t);
        return EXEC_OK;
    }
    case RVT_OP_JALR: {
        uint64_t t = (a + (uint64_t)imm) & ~1ull;
        if (__builtin_expect(t & h->ialign_mask, 0))
            return misaligned_target(h, t);
        WR(in->rd, next);
        *next_pc = MASKX(t);
        return EXEC_OK;
    }
#define BRANCH_CASE(name, cond) case RVT_OP_##name: if (cond) goto taken; break;
    HART_BRANCHES(BRANCH_CASE)
#undef BRANCH_CASE
#define LOAD_CASE(name, size, extend)                                                                                  \
    case RVT_OP_##name: {                                                                                              \
        uint64_t v = 0;                                                                                                \
        if (!load_fast(h, MASKX(a + (uint64_t)imm), &v, size))                                                         \
            return EXEC_TRAP;                                                                                          \
        WR(in->rd, extend);                                                                                            \
        break;                                                                                                         \
    }
    HART_LOADS(LOAD_CASE)
#undef LOAD_CASE
#define STORE_CASE(name, size)                                                                                         \
    case RVT_OP_##name:                                                                                                \
        if (!store_fast(h, MASKX(a + (uint64_t)imm), &b, size))                                                        \
            return EXEC_TRAP;                                                                                          \
        break;
    HART_STORES(STORE_CASE)
#undef STORE_CASE
#define ALU_CASE(name, value) case RVT_OP_##name: WR(in->rd, value); break;
    HART_ALU(ALU_CASE)
#undef ALU_CASE
    case RVT_OP_FLW: case RVT_OP_FLD: {
        if (!fp_enabled(h))
            return illegal(h, in);
        uint64_t v = 0;
        unsigned size = in->op == RVT_OP_FLW ? 4 : 8;
        if (!load_fast(h, MASKX(a + (uint64_t)imm), &v, size))
            return EXEC_TRAP;
        h->f[in->rd] = size == 4 ? 0xffffffff00000000ull | v : v;
        fp_dirty(h);
        break;
    }
    case RVT_OP_FSW: case RVT_OP_FSD: {
        if (!fp_enabled(h))
            return illegal(h, in);
        uint64_t v = h->f[in->rs2];
        if (!store_fast(h, MASKX(a + (uint64_t)imm), &v, in->op == RVT_OP_FSW ? 4 : 8))
            return EXEC_TRAP;
        break;
    }
    case RVT_OP_FENCE: case RVT_OP_FENCE_TSO: break;
    case RVT_OP_CSRRW: case RVT_OP_CSRRS: case RVT_OP_CSRRC:
    case RVT_OP_CSRRWI: case RVT_OP_CSRRSI: case RVT_OP_CSRRCI:
        h->pc = pc;
        h->minstret = instret;
        st = exec_csr(h, in);
        goto from_hart;
    case RVT_OP_ECALL: case RVT_OP_EBREAK: case RVT_OP_MRET: case RVT_OP_SRET:
    case RVT_OP_URET: case RVT_OP_DRET: case RVT_OP_WFI: case RVT_OP_SFENCE_VMA: case RVT_OP_FENCE_I:
    case RVT_OP_SCTRCLR:
        h->pc = pc;
        h->minstret = instret;
        st = exec_system(h, in);
        goto from_hart;
    default:
        h->pc = pc;
        h->minstret = instret;
        if (in->op >= RVT_OP_LR_W && in->op <= RVT_OP_AMOMAXU_D)
            st = exec_amo(h, in);
        else if (in->op >= RVT_OP_FLW && in->op <= RVT_OP_FMV_D_X)
            st = fp_exec(h, in);
        else
            st = illegal(h, in);
        goto from_hart;
    }
    *next_pc = MASKX(next);
    return EXEC_OK;
taken:
    next = pc + (uint64_t)imm;
    if (__builtin_expect(next & h->ialign_mask, 0))
        return misaligned_target(h, next);
    *next_pc = MASKX(next);
    return EXEC_OK;
from_hart: /* the handlers that work on the hart's own pc */
    *next_pc = h->pc;
    return st;
}

/* `priv`: the privilege the instruction executed in (an xret's record
 * carries the one it returned from, as spike's commit log does). */
static inline void emit_retired(hart *h, const rvt_insn *in, uint64_t pc, uint64_t next_pc, unsigned priv) {
    hart_machine *m = h->m;
    bool taken = in->cf == RVT_CF_BRANCH && next_pc != pc + in->len;
    unsigned itype = in->cf == RVT_CF_NONE ? RVT_ITYPE_NONE : rvt_itype(in, taken, 4, false);
    port_make_room(&m->port);
    port_write_block(&m->port, h->id, pc, 1, in->raw, in->len / 2, itype, port_owner_word(priv, h->id), m->mtime);
}

/* Whether `in`, about to execute, may write over decoded code: a store or
 * AMO to a page that holds some. A record block ends before it, so that
 * the records of the code it may overwrite are passed on while that code is
 * in memory (code_drop). Addresses are taken as physical: with
 * translation on, code is read from elsewhere anyway (rvt_machine_left_code). */
static bool may_write_code(const hart *h, const rvt_insn *in) {
    uint64_t va = h->x[in->rs1];
    switch (in->op) {
#define STORE_OP(name, ...) case RVT_OP_##name:
    HART_STORES(STORE_OP)
#undef STORE_OP
    case RVT_OP_FSW: case RVT_OP_FSD:
        va += (uint64_t)(int64_t)in->imm;
        break;
    default:
        if (in->op < RVT_OP_LR_W || in->op > RVT_OP_AMOMAXU_D)
            return false;
    }
    if (h->xlen == 32)
        va = (uint32_t)va;
    const mem_region *r = bus_region(h->m, va, 1);
    return r && r->icache[(va - r->base) >> 12] != NULL;
}

/* The length of a retired instruction from its bits (longer encodings never retire). */
static inline unsigned retired_length(uint32_t raw) { return (raw & 3) == 3 ? 4 : 2; }

/* How an operation goes into a code block: not at all (0: run_loop.h has
 * no handler for it), as it is (1), or, for a register operation, as
 * CODE_OP_NOP where it writes x0 (2). */
static const uint8_t code_block_role[RVT_OP_COUNT] = {
#define ALU_ROLE(name, ...) [RVT_OP_##name] = 2,
#define PLAIN_ROLE(name, ...) [RVT_OP_##name] = 1,
    HART_ALU(ALU_ROLE) HART_BRANCHES(PLAIN_ROLE) HART_LOADS(PLAIN_ROLE) HART_STORES(PLAIN_ROLE)
#undef ALU_ROLE
#undef PLAIN_ROLE
    [RVT_OP_JAL] = 1, [RVT_OP_JALR] = 1,
};

/* Gives the first operation of each pair in `ops` (n of them and the end,
 * their operations in `kinds`) the pair's handler, first come first paired. */
static void pair_operations(struct code_op *ops, const uint16_t *kinds, uint32_t n, const void *const *dispatch) {
    /* By operation, one more than its place in the lists (0: in none). */
    static const uint8_t pair_first[RVT_OP_COUNT + 1] = {
#define PAIR_FIRST_OF(name, kind) [RVT_OP_##name] = PAIR_FIRST_##name + 1,
        HART_PAIR_FIRST(PAIR_FIRST_OF)
#undef PAIR_FIRST_OF
    };
    static const uint8_t pair_second[RVT_OP_COUNT + 1] = {
#define RVT_OP_END CODE_OP_END /* (the list's END: the operation after a block's last) */
#define PAIR_SECOND_OF(first, kind, name) [RVT_OP_##name] = PAIR_SECOND_##name + 1,
        HART_PAIR_SECOND(PAIR_SECOND_OF, , )
#undef PAIR_SECOND_OF
#undef RVT_OP_END
    };
    for (uint32_t k = 0; k < n; k++) {
        unsigned first = kinds[k] <= RVT_OP_COUNT ? pair_first[kinds[k]] : 0;
        unsigned second = kinds[k + 1] <= RVT_OP_COUNT ? pair_second[kinds[k + 1]] : 0;
        if (first && second) {
            ops[k].go = dispatch[CODE_OP_PAIR(first - 1, second - 1)];
            k++;
        }
    }
}

const struct code_block *code_block_make(hart_machine *m, const rvt_insn *page, uint64_t page_base, uint64_t limit,
                                         uint64_t pc, const void *const *dispatch) {
    uint32_t slot = code_slot_of(pc);
    uint16_t entry = m->code_slots[slot];
    if (!entry) { /* the pool's next entry, taken from the slot that had it */
        entry = (uint16_t)m->code_blocks_next;
        m->code_blocks_next = m->code_blocks_next + 1 < CODE_BLOCK_POOL ? m->code_blocks_next + 1 : 1;
        uint32_t was = m->code_blocks[entry].slot;
        if (m->code_slots[was] == entry)
            m->code_slots[was] = 0;
        m->code_slots[slot] = entry;
    }
    struct code_block *cb = &m->code_blocks[entry];
    cb->slot = slot;
    cb->pc = pc;
    cb->page_id = code_page_of(page)->id;
    const uint64_t page_pa = code_page_of(page)->pa;
    cb->ends_in_jump = false;
    uint32_t n = 0, from_index = 0;
    uint64_t at = pc, from = pc;
    uint16_t kinds[CODE_BLOCK_MAX + 1]; /* by operation: enum rvt_op, or CODE_OP_END or CODE_OP_NOP */
    while (n < CODE_BLOCK_MAX && at - page_base < limit) {
        const rvt_insn *in = &page[(at - page_base) >> 1];
        if (!in->len && !(in = bus_fetch(m, page_pa + (at - page_base)))) /* decodes into the same page */
            break;
        unsigned role = in->op < RVT_OP_COUNT ? code_block_role[in->op] : 0;
        if (!role || in->imm != (int32_t)in->imm)
            break;
        /* (the register operations' handlers need not clear x0 after them) */
        unsigned op = role == 2 && in->rd == 0 ? CODE_OP_NOP : in->op;
        struct code_op *o = &cb->ops[n];
        o->go = dispatch[op];
        o->imm = (int32_t)in->imm;
        o->raw = in->raw;
        o->next = 0;
        kinds[n] = (uint16_t)op;
        o->rd = in->rd;
        o->rs1 = in->rs1;
        o->rs2 = in->rs2;
        o->at = (uint8_t)((at - pc) >> 1);
        o->index = (uint8_t)n;
        n++;
        at += in->len;
        if (in->cf != RVT_CF_NONE) { /* a branch or a jump (the rest never come here) */
            bool jump = in->cf != RVT_CF_BRANCH;
            unsigned itype = jump ? rvt_itype(in, false, 4, false) : RVT_ITYPE_BRANCH_NOT_TAKEN;
            cb->records[n - 1] = (struct static_record){
                from, rvt_packed_word(in->raw, n - from_index, (unsigned)((at - from) >> 1), in->len == 4, itype, 0, 0),
                0};
            from = at;
            from_index = n;
            if (jump) {
                cb->ends_in_jump = true;
                cb->jump_itype = (uint8_t)itype;
                break;
            }
        }
    }
    struct code_op *end = &cb->ops[n];
    kinds[n] = CODE_OP_END;
    end->go = dispatch[CODE_OP_END];
    end->next = 0;
    end->at = (uint8_t)((at - pc) >> 1); /* where a branch not taken goes on */
    end->index = (uint8_t)n;
    pair_operations(cb->ops, kinds, n, dispatch);
    if (n) {
        cb->last_at = cb->ops[n - 1].at;
        cb->last_raw = cb->ops[n - 1].raw;
    }
    cb->dispatch = dispatch;
    cb->n = n;
    cb->end_at = end->at;
    return cb;
}

/* The interpreter loop (run_loop.h), one function per variant. */
#define RUN_NAME run_64_plain
#define RUN_XLEN 64
#define RUN_EMIT false
#define RUN_BLOCKS false
#define RUN_COUNT false
#include "run_loop.h"
#define RUN_NAME run_64_plain_counting
#define RUN_XLEN 64
#define RUN_EMIT false
#define RUN_BLOCKS false
#define RUN_COUNT true
#include "run_loop.h"
#define RUN_NAME run_64_records
#define RUN_XLEN 64
#define RUN_EMIT true
#define RUN_BLOCKS false
#define RUN_COUNT false
#include "run_loop.h"
#define RUN_NAME run_64_records_counting
#define RUN_XLEN 64
#define RUN_EMIT true
#define RUN_BLOCKS false
#define RUN_COUNT true
#include "run_loop.h"
#define RUN_NAME run_64_blocks
#define RUN_XLEN 64
#define RUN_EMIT true
#define RUN_BLOCKS true
#define RUN_COUNT false
#include "run_loop.h"
#define RUN_NAME run_64_blocks_counting
#define RUN_XLEN 64
#define RUN_EMIT true
#define RUN_BLOCKS true
#define RUN_COUNT true
#include "run_loop.h"
#define RUN_NAME run_32_plain
#define RUN_XLEN 32
#define RUN_EMIT false
#define RUN_BLOCKS false
#define RUN_COUNT false
#include "run_loop.h"
#define RUN_NAME run_32_plain_counting
#define RUN_XLEN 32
#define RUN_EMIT false
#define RUN_BLOCKS false
#define RUN_COUNT true
#include "run_loop.h"
#define RUN_NAME run_32_records
#define RUN_XLEN 32
#define RUN_EMIT true
#define RUN_BLOCKS false
#define RUN_COUNT false
#include "run_loop.h"
#define RUN_NAME run_32_records_counting
#define RUN_XLEN 32
#define RUN_EMIT true
#define RUN_BLOCKS false
#define RUN_COUNT true
#include "run_loop.h"
#define RUN_NAME run_32_blocks
#define RUN_XLEN 32
#define RUN_EMIT true
#define RUN_BLOCKS true
#define RUN_COUNT false
#include "run_loop.h"
#define RUN_NAME run_32_blocks_counting
#define RUN_XLEN 32
#define RUN_EMIT true
#define RUN_BLOCKS true
#define RUN_COUNT true
#include "run_loop.h"

/* Execute triggers see each 16-bit parcel of the instruction at pc: its
 * address before the fetch, its bits after (spike's fetch slow path). True
 * with exc_* set when one fires. A fetch that faults is left to the real
 * fetch to report. */
static bool execute_trigger_fires(hart *h) {
    uint64_t pc = h->pc;
    if (trigger_check(h, ACC_FETCH, pc, 2, false, 0) == TRIG_BEFORE)
        return true;
    const rvt_insn *in = fetch(h);
    if (!in)
        return false;
    if (trigger_check(h, ACC_FETCH, pc, 2, true, in->raw & 0xffff) == TRIG_BEFORE)
        return true;
    return in->len == 4 && (trigger_check(h, ACC_FETCH, pc + 2, 2, false, 0) == TRIG_BEFORE ||
                            trigger_check(h, ACC_FETCH, pc + 2, 2, true, in->raw >> 16) == TRIG_BEFORE);
}

/* A trap taken before any instruction was fetched. */
static void take_fetch_stage_trap(hart *h, uint64_t cause, uint64_t tval) {
    h->cur_insn = 0;
    h->cur_len = 0;
    hart_take_trap(h, cause, tval, h->pc);
}

void hart_step(hart *h, uint64_t n) { hart_step_from(h, n, true); }

void hart_step_from(hart *h, uint64_t n, bool sample_first) {
    hart_machine *m = h->m;
    /* Interrupts are sampled where spike samples them: when the step starts
     * and after an instruction that serialises. */
    bool sample_interrupts = sample_first;
    while (n > 0 && !m->stop) {
        uint64_t cause;
        if (sample_interrupts && pending_interrupt(h, &cause)) {
            take_fetch_stage_trap(h, cause, 0);
            return; /* a trap ends spike's step() and with it the quantum */
        }
        if (h->trig_pending) { /* a trigger that fires after the instruction that matched */
            h->trig_pending = false;
            take_fetch_stage_trap(h, CAUSE_BREAKPOINT, h->trig_pending_tval);
            return;
        }
        if (h->trig_armed && execute_trigger_fires(h)) {
            take_fetch_stage_trap(h, h->exc_cause, h->exc_tval);
            return;
        }
        /* Armed triggers check every access, one instruction at a time,
         * the whole way; else loads and stores take the host TLB, stores
         * only while no other hart holds a reservation that one of them
         * would have to break. */
        bool direct = !h->trig_armed && !m->caches; /* the cache model sees every access */
        host_tlb_allow(h, direct, direct && !others_reserved(h));
        /* Observed instructions are observed inside the run, so that a
         * run goes on past one, while nothing that follows an instruction in
         * this loop (overflow checks, triggers firing after it) could change
         * what its observation must show; else one at a time. */
        h->observe_in_loop = m->observer && !h->trig_armed && !h->hpm_counting;
        uint64_t limit = h->trig_armed || m->caches || (m->observer && !h->observe_in_loop) ? 1 : n;
        if (m->max_insns) {
            uint64_t used = m->instret_total + m->traps;
            if (used >= m->max_insns) {
                m->stop = true;
                m->stop_reason = RVT_STOP_MAX_INSNS;
                return;
            }
            if (m->max_insns - used < limit)
                limit = m->max_insns - used;
        }
        if (m->sample_fn && m->sample_next - m->instret_total < limit)
            limit = m->sample_next - m->instret_total;
        if (h->hpm_counting && h->hpm_until_check < limit) /* no counter passes 2^64 unseen */
            limit = h->hpm_until_check;
        uint64_t done;
        int st;
        bool blocks = m->port.sink && m->merge_blocks && !m->observer;
        bool emit = m->port.sink || m->observer;
        bool count = h->hpm_counting;
        /* With caches, one instruction a run: its fetch is an access before
         * its loads and stores (one at a time, more than one cache event an
         * instruction cannot pass an overflow unseen) */
        if (m->caches)
            cache_fetch(h);
        uint64_t pc_before = h->pc;
        unsigned priv_before = h->priv;
        static int (*const run[2][3][2])(hart *, uint64_t, uint64_t *) = {
            {{run_32_plain, run_32_plain_counting}, {run_32_records, run_32_records_counting},
             {run_32_blocks, run_32_blocks_counting}},
            {{run_64_plain, run_64_plain_counting}, {run_64_records, run_64_records_counting},
             {run_64_blocks, run_64_blocks_counting}},
        };
        st = run[h->xlen == 64][blocks ? 2 : emit ? 1 : 0][count](h, limit, &done);
        m->instret_total += done;
        /* an overflow interrupt is taken at once, not at the next point
         * where spike would sample interrupts */
        bool overflowed = count && pmu_check_overflow(h);
        if (done)
            h->traps_in_a_row = 0;
        if (m->sample_fn && m->instret_total >= m->sample_next) {
            m->sample_next += m->sample_period;
            m->sample_fn(m->sample_user, m->self, m->instret_total);
        }
        bool sfenced = h->sfence_pending, flushed = h->fence_i_pending || sfenced;
        h->sfence_pending = h->fence_i_pending = false;
        if (done && m->observer && !h->observe_in_loop)
            observe_step(h, RVT_STEP_RETIRED, pc_before, priv_before, 0, 0);
        if (st == EXEC_TRAP) {
            hart_take_trap(h, h->exc_cause, h->exc_tval, h->pc);
            return;
        }
        if (st == EXEC_HANDOVER) { /* a trap too: it ends the quantum */
            h->env.ecall(h);
            return;
        }
        if (st == EXEC_INTERRUPT && pending_interrupt(h, &cause)) {
            take_fetch_stage_trap(h, cause, 0);
            return;
        }
        if (st == EXEC_WFI || m->stop)
            return;
        /* An observed run ends where a single step would sample interrupts
         * or where it could not go on observing in the loop. */
        if (m->observe_runs && ((st != EXEC_OK && !sfenced) || h->trig_armed || h->hpm_counting))
            return;
        sample_interrupts = (st == EXEC_SERIALIZE && !flushed) || overflowed; /* fence.i, sfence.vma only end the run */
        n -= done;
    }
}
