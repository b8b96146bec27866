/* The CSR file: access rules, WARL legalisation and side effects of the
 * machine- and supervisor-level CSRs, counters and the FP CSRs, following the
 * privileged specification and spike's choices where the spec leaves room. */
#include "hart_internal.h"

enum {
    CSR_FFLAGS = 0x001, CSR_FRM = 0x002, CSR_FCSR = 0x003,
    CSR_CYCLE = 0xc00, CSR_TIME = 0xc01, CSR_INSTRET = 0xc02, CSR_HPMCOUNTER3 = 0xc03, CSR_HPMCOUNTER31 = 0xc1f,
    CSR_CYCLEH = 0xc80, CSR_TIMEH = 0xc81, CSR_INSTRETH = 0xc82, CSR_HPMCOUNTER3H = 0xc83, CSR_HPMCOUNTER31H = 0xc9f,
    CSR_SSTATUS = 0x100, CSR_SIE = 0x104, CSR_STVEC = 0x105, CSR_SCOUNTEREN = 0x106, CSR_SENVCFG = 0x10a,
    CSR_SSCRATCH = 0x140, CSR_SEPC = 0x141, CSR_SCAUSE = 0x142, CSR_STVAL = 0x143, CSR_SIP = 0x144,
    CSR_SATP = 0x180,
    CSR_MSTATUS = 0x300, CSR_MISA = 0x301, CSR_MEDELEG = 0x302, CSR_MIDELEG = 0x303, CSR_MIE = 0x304,
    CSR_MTVEC = 0x305, CSR_MCOUNTEREN = 0x306, CSR_MENVCFG = 0x30a, CSR_MSTATUSH = 0x310, CSR_MENVCFGH = 0x31a,
    CSR_MCOUNTINHIBIT = 0x320, CSR_MHPMEVENT3 = 0x323, CSR_MHPMEVENT31 = 0x33f,
    CSR_MSCRATCH = 0x340, CSR_MEPC = 0x341, CSR_MCAUSE = 0x342, CSR_MTVAL = 0x343, CSR_MIP = 0x344,
    CSR_PMPCFG0 = 0x3a0, CSR_PMPCFG15 = 0x3af, CSR_PMPADDR0 = 0x3b0, CSR_PMPADDR63 = 0x3ef,
    CSR_TSELECT = 0x7a0, CSR_TDATA1 = 0x7a1, CSR_TDATA2 = 0x7a2, CSR_TDATA3 = 0x7a3, CSR_TINFO = 0x7a4,
    CSR_DCSR = 0x7b0, CSR_DPC = 0x7b1, CSR_DSCRATCH0 = 0x7b2, CSR_DSCRATCH1 = 0x7b3,
    CSR_MCYCLE = 0xb00, CSR_MINSTRET = 0xb02, CSR_MHPMCOUNTER3 = 0xb03, CSR_MHPMCOUNTER31 = 0xb1f,
    CSR_MCYCLEH = 0xb80, CSR_MINSTRETH = 0xb82, CSR_MHPMCOUNTER3H = 0xb83, CSR_MHPMCOUNTER31H = 0xb9f,
    CSR_MHPMEVENT3H = 0x723, CSR_MHPMEVENT31H = 0x73f, CSR_SCOUNTOVF = 0xda0,
    CSR_MVENDORID = 0xf11, CSR_MARCHID = 0xf12, CSR_MIMPID = 0xf13, CSR_MHARTID = 0xf14, CSR_MCONFIGPTR = 0xf15,
};

#define SSTATUS_MASK64 (MSTATUS_SIE | MSTATUS_SPIE | MSTATUS_UBE | MSTATUS_SPP | MSTATUS_FS | MSTATUS_XS | \
                        MSTATUS_SUM | MSTATUS_MXR | (3ull << 32))
#define MIP_S_MASK ((1ull << IRQ_S_SOFT) | (1ull << IRQ_S_TIMER) | (1ull << IRQ_S_EXT) | (1ull << IRQ_LCOF))
#define MIE_MASK (MIP_S_MASK | (1ull << IRQ_M_SOFT) | (1ull << IRQ_M_TIMER) | (1ull << IRQ_M_EXT))

static uint64_t sd_bit(const hart *h) { return 1ull << (h->xlen - 1); }

uint64_t hart_mstatus_read(const hart *h) {
    uint64_t s = h->mstatus;
    if ((s & MSTATUS_FS) == MSTATUS_FS || (s & MSTATUS_XS) == MSTATUS_XS)
        s |= sd_bit(h);
    return h->xlen == 32 ? (uint32_t)s : s;
}

/* Privilege and read-only checks common to every CSR. */
bool csr_access_ok(const hart *h, unsigned csr, bool write) {
    unsigned level = (csr >> 8) & 3;
    if (level > h->priv)
        return false;
    if (write && (csr >> 10) == 3)
        return false;
    return true;
}

/* cycle/time/instret and the hpm counters from S and U mode. */
static bool counter_enabled(const hart *h, unsigned index) {
    if (h->priv == PRV_M)
        return true;
    if (!((h->mcounteren >> index) & 1))
        return false;
    if (h->priv == PRV_U && !((h->scounteren >> index) & 1))
        return false;
    return true;
}

static uint64_t legal_priv(unsigned p) { return p == 2 ? PRV_U : p; }

static bool fp_csr_ok(const hart *h) { return fp_enabled(h); }

int csr_read(hart *h, unsigned csr, uint64_t *val) {
    bool rv32 = h->xlen == 32;
    uint64_t v;
    switch (csr) {
    case CSR_FFLAGS: if (!fp_csr_ok(h)) return -1; v = h->fflags; break;
    case CSR_FRM: if (!fp_csr_ok(h)) return -1; v = h->frm; break;
    case CSR_FCSR: if (!fp_csr_ok(h)) return -1; v = (h->frm << 5) | h->fflags; break;
    case CSR_CYCLE: case CSR_INSTRET:
        if (!counter_enabled(h, csr - CSR_CYCLE)) return -1;
        v = pmu_fixed(h, csr - CSR_CYCLE);
        if (rv32) v = (uint32_t)v;
        break;
    case CSR_CYCLEH: case CSR_INSTRETH:
        if (!rv32 || !counter_enabled(h, csr - CSR_CYCLEH)) return -1;
        v = pmu_fixed(h, csr - CSR_CYCLEH) >> 32;
        break;
    case CSR_TIME: if (!counter_enabled(h, 1)) return -1; v = rv32 ? (uint32_t)h->m->mtime : h->m->mtime; break;
    case CSR_TIMEH: if (!rv32 || !counter_enabled(h, 1)) return -1; v = h->m->mtime >> 32; break;
    case CSR_SSTATUS: v = hart_mstatus_read(h) & (SSTATUS_MASK64 | sd_bit(h)); break;
    case CSR_SIE: v = h->mie & h->mideleg; break;
    case CSR_SIP: v = hart_mip(h) & h->mideleg; break;
    case CSR_STVEC: v = h->stvec; break;
    case CSR_SCOUNTEREN: v = h->scounteren; break;
    case CSR_SENVCFG: v = h->senvcfg; break;
    case CSR_SSCRATCH: v = h->sscratch; break;
    case CSR_SEPC: v = h->sepc & ~h->ialign_mask; break;
    case CSR_SCAUSE: v = h->scause; break;
    case CSR_STVAL: v = h->stval; break;
    case CSR_SATP:
        if (h->priv == PRV_S && (h->mstatus & MSTATUS_TVM)) return -1;
        v = h->satp;
        break;
    case CSR_MSTATUS: v = hart_mstatus_read(h); break;
    case CSR_MSTATUSH: if (!rv32) return -1; v = 0; break;
    case CSR_MISA: v = h->misa; break;
    case CSR_MEDELEG: v = h->medeleg; break;
    case CSR_MIDELEG: v = h->mideleg; break;
    case CSR_MIE: v = h->mie; break;
    case CSR_MIP: v = hart_mip(h); break;
    case CSR_MTVEC: v = h->mtvec; break;
    case CSR_MCOUNTEREN: v = h->mcounteren; break;
    case CSR_MCOUNTINHIBIT: v = h->mcountinhibit; break;
    case CSR_MENVCFG: v = rv32 ? (uint32_t)h->menvcfg : h->menvcfg; break;
    case CSR_MENVCFGH: if (!rv32) return -1; v = h->menvcfg >> 32; break;
    case CSR_MSCRATCH: v = h->mscratch; break;
    case CSR_MEPC: v = h->mepc & ~h->ialign_mask; break;
    case CSR_MCAUSE: v = h->mcause; break;
    case CSR_MTVAL: v = h->mtval; break;
    case CSR_MCYCLE: v = pmu_fixed(h, 0); if (rv32) v = (uint32_t)v; break;
    case CSR_MINSTRET: v = pmu_fixed(h, 2); if (rv32) v = (uint32_t)v; break;
    case CSR_MCYCLEH: if (!rv32) return -1; v = pmu_fixed(h, 0) >> 32; break;
    case CSR_MINSTRETH: if (!rv32) return -1; v = pmu_fixed(h, 2) >> 32; break;
    case CSR_TSELECT: v = h->tselect; break;
    case CSR_TDATA1: v = h->trig[h->tselect].tdata1; break;
    case CSR_TDATA2: v = h->trig[h->tselect].tdata2; break;
    case CSR_TDATA3: v = 0; break;
    case CSR_TINFO: v = trigger_tinfo(); break;
    case CSR_MVENDORID: case CSR_MIMPID: case CSR_MCONFIGPTR: v = 0; break;
    case CSR_MARCHID: v = 5; break; /* spike's architecture ID */
    case CSR_MHARTID: v = h->id; break;
    default:
        if (csr >= CSR_PMPCFG0 && csr <= CSR_PMPCFG15) {
            if (h->m->pmp_regions == 0 || (!rv32 && (csr & 1))) return -1;
            unsigned first = (csr - CSR_PMPCFG0) * 4, n = h->xlen / 8;
            v = 0;
            for (unsigned i = 0; i < n; i++)
                v |= (uint64_t)h->pmpcfg[first + i] << (8 * i);
            break;
        }
        if (csr >= CSR_PMPADDR0 && csr <= CSR_PMPADDR63) {
            if (h->m->pmp_regions == 0) return -1;
            v = h->pmpaddr[csr - CSR_PMPADDR0];
            break;
        }
        if (csr >= CSR_MHPMCOUNTER3 && csr <= CSR_MHPMCOUNTER31) {
            v = pmu_counter(h, csr - CSR_MHPMCOUNTER3);
            if (rv32) v = (uint32_t)v;
            break;
        }
        if (csr >= CSR_MHPMEVENT3 && csr <= CSR_MHPMEVENT31) {
            v = h->hpm_event[csr - CSR_MHPMEVENT3];
            if (rv32) v = (uint32_t)v;
            break;
        }
        if (csr >= CSR_MHPMEVENT3H && csr <= CSR_MHPMEVENT31H) {
            if (!rv32) return -1;
            v = h->hpm_event[csr - CSR_MHPMEVENT3H] >> 32;
            break;
        }
        if (csr >= CSR_MHPMCOUNTER3H && csr <= CSR_MHPMCOUNTER31H) {
            if (!rv32) return -1;
            v = pmu_counter(h, csr - CSR_MHPMCOUNTER3H) >> 32;
            break;
        }
        if (csr >= CSR_HPMCOUNTER3 && csr <= CSR_HPMCOUNTER31) {
            if (!counter_enabled(h, csr - CSR_CYCLE)) return -1;
            v = pmu_counter(h, csr - CSR_HPMCOUNTER3);
            if (rv32) v = (uint32_t)v;
            break;
        }
        if (csr >= CSR_HPMCOUNTER3H && csr <= CSR_HPMCOUNTER31H) {
            if (!rv32 || !counter_enabled(h, csr - CSR_CYCLEH)) return -1;
            v = pmu_counter(h, csr - CSR_HPMCOUNTER3H) >> 32;
            break;
        }
        if (csr == CSR_SCOUNTOVF) { /* Sscofpmf: below M, only what mcounteren lets through */
            v = pmu_overflow_bits(h) & (h->priv == PRV_M ? ~0ull : h->mcounteren);
            break;
        }
        if (ctr_csr_read(h, csr, &v) == 0)
            break;
        return -1; /* includes dcsr/dpc/dscratch: debug mode only */
    }
    *val = rv32 ? (uint64_t)(int64_t)(int32_t)v : v;
    return 0;
}

/* The bits `mask` of mstatus become val's. Those that decide how loads and
 * stores translate end the TLB's translations when they change, as in
 * spike. */
static void set_mstatus_bits(hart *h, uint64_t mask, uint64_t val) {
    uint64_t was = h->mstatus;
    h->mstatus = (was & ~mask) | (val & mask);
    if ((was ^ h->mstatus) & (MSTATUS_MPP | MSTATUS_MPRV | MSTATUS_SUM | MSTATUS_MXR))
        h->translation_changed = true;
}

static void write_mstatus(hart *h, uint64_t val) {
    uint64_t mask = MSTATUS_SIE | MSTATUS_MIE | MSTATUS_SPIE | MSTATUS_MPIE | MSTATUS_SPP | MSTATUS_MPP |
                    MSTATUS_FS | MSTATUS_MPRV | MSTATUS_SUM | MSTATUS_MXR | MSTATUS_TVM | MSTATUS_TW | MSTATUS_TSR;
    uint64_t mpp = legal_priv((unsigned)((val & MSTATUS_MPP) >> 11));
    val = (val & ~MSTATUS_MPP) | (mpp << 11);
    set_mstatus_bits(h, mask, val);
}

/* misa: M, A, F, D and C can be switched off and on again, as in spike; D
 * needs F; clearing C is ignored while the next instruction is only
 * 2-byte aligned. */
static void write_misa(hart *h, uint64_t val) {
    const uint64_t bit_c = 1ull << ('C' - 'A'), bit_d = 1ull << ('D' - 'A'), bit_f = 1ull << ('F' - 'A');
    const uint64_t writable = bit_c | bit_d | bit_f | (1ull << ('M' - 'A')) | (1ull << ('A' - 'A'));
    if (!(val & bit_c) && (h->misa & bit_c) && (h->pc & 2))
        return;
    if (!(val & bit_f))
        val &= ~bit_d;
    h->misa = (h->misa & ~writable) | (val & writable);
    h->misa_restricted = (h->misa & writable) != writable;
    h->ialign_mask = (h->misa & bit_c) ? 0 : 2;
}

static void write_counter(hart *h, unsigned c, uint64_t val, bool high) {
    uint64_t cur = pmu_fixed(h, c);
    uint64_t want = h->xlen == 32 ? (high ? (cur & 0xffffffffull) | (val << 32) : (cur & ~0xffffffffull) | (uint32_t)val)
                                  : val;
    /* spike: the written value is what the next instruction sees, so the
     * writing instruction's own retirement is accounted for. */
    pmu_set_fixed(h, c, want, true);
}

/* mip's SEIP reads as the OR of its software-writable bit and the PLIC's
 * line, but a read-modify-write combines its operand with the software bit
 * alone (the privileged specification, mip). Else firmware that sets or
 * clears another bit of mip (OpenSBI passing a timer or an IPI on to S-mode)
 * while the line is up would latch the line into the software bit, and the
 * supervisor would take an external interrupt that no claim can end. */
uint64_t csr_rmw_base(const hart *h, unsigned csr, uint64_t read) {
    const uint64_t seip = 1ull << IRQ_S_EXT;
    return csr == CSR_MIP ? (read & ~seip) | (h->mip & seip) : read;
}

int csr_write(hart *h, unsigned csr, uint64_t val) {
    bool rv32 = h->xlen == 32;
    h->csr_writes++;
    if (rv32)
        val = (uint32_t)val;
    switch (csr) {
    case CSR_FFLAGS: if (!fp_csr_ok(h)) return -1; h->fflags = val & 0x1f; fp_dirty(h); break;
    case CSR_FRM: if (!fp_csr_ok(h)) return -1; h->frm = val & 7; fp_dirty(h); break;
    case CSR_FCSR:
        if (!fp_csr_ok(h)) return -1;
        h->fflags = val & 0x1f;
        h->frm = (val >> 5) & 7;
        fp_dirty(h);
        break;
    case CSR_SSTATUS: {
        set_mstatus_bits(h, MSTATUS_SIE | MSTATUS_SPIE | MSTATUS_SPP | MSTATUS_FS | MSTATUS_SUM | MSTATUS_MXR, val);
        break;
    }
    case CSR_SIE: h->mie = (h->mie & ~h->mideleg) | (val & h->mideleg & MIP_S_MASK); break;
    case CSR_SIP: {
        uint64_t mask = h->mideleg & ((1ull << IRQ_S_SOFT) | (1ull << IRQ_LCOF));
        h->mip = (h->mip & ~mask) | (val & mask);
        break;
    }
    case CSR_STVEC: h->stvec = val & ~2ull; break;
    case CSR_SCOUNTEREN: h->scounteren = (uint32_t)val; break;
    case CSR_SENVCFG: h->senvcfg = val & 1; break;
    case CSR_SSCRATCH: h->sscratch = val; break;
    case CSR_SEPC: h->sepc = val & ~1ull; break;
    case CSR_SCAUSE: h->scause = val; break;
    case CSR_STVAL: h->stval = val; break;
    case CSR_SATP: {
        if (h->priv == PRV_S && (h->mstatus & MSTATUS_TVM)) return -1;
        /* MODE, ASID and PPN: every ASID bit, as spike (ASIDLEN 9 and
         * 16); the TLB keeps no ASIDs, as spike's, so they change nothing */
        if (rv32) {
            h->satp = val & 0xffffffffull;
        } else {
            unsigned mode = (unsigned)(val >> 60);
            if (mode == 0 || mode == 8)
                h->satp = val;
        }
        h->translation_changed = true; /* spike's TLB goes with every write */
        break;
    }
    case CSR_MSTATUS: write_mstatus(h, val); break;
    case CSR_MSTATUSH: if (!rv32) return -1; break;
    case CSR_MISA:
        write_misa(h, val);
        h->translation_changed = true; /* what decoded pages hold may change */
        break;
    case CSR_MEDELEG: {
        /* An exception that cannot happen below M is not delegable
         * (privileged spec, medeleg): with C in misa (IALIGN 16) no fetch
         * is misaligned, so bit 0 is writable only while misa.C is clear,
         * as in spike since February 2026. A bit written then stays when C
         * comes back, as in spike; it can delegate nothing while C is on. */
        uint64_t mask = (h->ialign_mask ? 1ull << CAUSE_MISALIGNED_FETCH : 0) | (1ull << CAUSE_FETCH_ACCESS) |
                        (1ull << CAUSE_ILLEGAL_INSTRUCTION) | (1ull << CAUSE_BREAKPOINT) |
                        (1ull << CAUSE_MISALIGNED_LOAD) | (1ull << CAUSE_LOAD_ACCESS) |
                        (1ull << CAUSE_MISALIGNED_STORE) | (1ull << CAUSE_STORE_ACCESS) |
                        (1ull << CAUSE_USER_ECALL) | (1ull << CAUSE_SUPERVISOR_ECALL) |
                        (1ull << CAUSE_FETCH_PAGE_FAULT) | (1ull << CAUSE_LOAD_PAGE_FAULT) |
                        (1ull << CAUSE_STORE_PAGE_FAULT);
        h->medeleg = val & mask;
        break;
    }
    case CSR_MIDELEG: h->mideleg = val & MIP_S_MASK; break;
    case CSR_MIE: h->mie = val & MIE_MASK; break;
    case CSR_MIP: h->mip = (h->mip & ~MIP_S_MASK) | (val & MIP_S_MASK); break;
    case CSR_MTVEC: h->mtvec = val & ~2ull; break;
    case CSR_MCOUNTEREN: h->mcounteren = (uint32_t)val; break;
    case CSR_MCOUNTINHIBIT: pmu_write_inhibit(h, val); break;
    case CSR_MENVCFG: h->menvcfg = rv32 ? (h->menvcfg & ~0xffffffffull) | (val & 1) : val & 1; break;
    case CSR_MENVCFGH: if (!rv32) return -1; break;
    case CSR_MSCRATCH: h->mscratch = val; break;
    case CSR_MEPC: h->mepc = val & ~1ull; break;
    case CSR_MCAUSE: h->mcause = val; break;
    case CSR_MTVAL: h->mtval = val; break;
    case CSR_MCYCLE: write_counter(h, 0, val, false); break;
    case CSR_MINSTRET: write_counter(h, 2, val, false); break;
    case CSR_MCYCLEH: if (!rv32) return -1; write_counter(h, 0, val, true); break;
    case CSR_MINSTRETH: if (!rv32) return -1; write_counter(h, 2, val, true); break;
    case CSR_TSELECT: if (val < RVT_TRIGGERS) h->tselect = val; break;
    case CSR_TDATA1: trigger_write_tdata1(h, val); break;
    case CSR_TDATA2: h->trig[h->tselect].tdata2 = val; break;
    case CSR_TDATA3: case CSR_TINFO: break; /* no context matching; tinfo is read-only */
    default:
        if (csr >= CSR_PMPCFG0 && csr <= CSR_PMPCFG15) {
            if (h->m->pmp_regions == 0 || (!rv32 && (csr & 1))) return -1;
            unsigned first = (csr - CSR_PMPCFG0) * 4, n = h->xlen / 8;
            for (unsigned i = 0; i < n; i++) {
                unsigned idx = first + i;
                if (idx >= h->m->pmp_regions || (h->pmpcfg[idx] & 0x80))
                    continue; /* absent or locked */
                uint8_t cfg = (uint8_t)(val >> (8 * i)) & 0x9f;
                if ((cfg & 3) == 2) /* W without R is reserved */
                    cfg &= (uint8_t)~2;
                h->pmpcfg[idx] = cfg;
            }
            pmp_changed(h);
            break;
        }
        if (csr >= CSR_PMPADDR0 && csr <= CSR_PMPADDR63) {
            unsigned idx = csr - CSR_PMPADDR0;
            if (h->m->pmp_regions == 0) return -1;
            if (idx < h->m->pmp_regions && !pmp_addr_locked(h, idx))
                h->pmpaddr[idx] = rv32 ? (uint32_t)val : val & ((1ull << 54) - 1);
            pmp_changed(h);
            break;
        }
        if (csr >= CSR_MHPMCOUNTER3 && csr <= CSR_MHPMCOUNTER31) {
            pmu_write_counter(h, csr - CSR_MHPMCOUNTER3, val, rv32 ? 1 : 0);
            break;
        }
        if (rv32 && csr >= CSR_MHPMCOUNTER3H && csr <= CSR_MHPMCOUNTER31H) {
            pmu_write_counter(h, csr - CSR_MHPMCOUNTER3H, val, 2);
            break;
        }
        if (csr >= CSR_MHPMEVENT3 && csr <= CSR_MHPMEVENT31) {
            pmu_write_event(h, csr - CSR_MHPMEVENT3, val, rv32 ? 1 : 0);
            break;
        }
        if (rv32 && csr >= CSR_MHPMEVENT3H && csr <= CSR_MHPMEVENT31H) {
            pmu_write_event(h, csr - CSR_MHPMEVENT3H, val, 2);
            break;
        }
        return ctr_csr_write(h, csr, val) == 0 ? 0 : -1;
    }
    return 0;
}
