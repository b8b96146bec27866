/* Control Transfer Records (Smctr/Ssctr): the control and status CSRs, the
 * entry registers behind the indirect CSR access of Smcsrind/Sscsrind, the
 * Smstateen access control, and recording of qualified transfers, traps and
 * trap returns. Two versions: the v0.1.4 draft (mctrcontrol, mctrstatus with
 * WRAP, entries also through miselect) and ratified 1.0 (mctrctl,
 * sctrdepth, sctrstatus, SCTRCLR). No H extension: VS/VU never occur and
 * the vs* CSRs are illegal. The cycle counter counts what mcycle counts,
 * which in this model is one per retired instruction. */
#include <stddef.h>
#include <stdlib.h>

#include "ctr_internal.h"

static const ctr_layout layout_0_1_4 = {0, 1, 2, 7, 8, 9, 10, 11, 12, 38, 16, 55, 15, 14};
static const ctr_layout layout_1_0 = {2, 1, 0, -1, 9, 8, 7, 11, 12, -1, -1, 54, 31, 0};

/* Transfer-type filter bits, the same in both versions: EXCINH..TKBRINH at
 * 33..37 (NTBREN at 36 enables type 4), INDCALLINH..DIROJMPINH at 40..47. */
#define CTR_FILTER_MASK ((0x1full << 33) | (0xffull << 40))
#define NTBREN_BIT 36
#define STATEEN_CSRIND (1ull << 60)

enum {
    CSR_SISELECT = 0x150, CSR_SIREG = 0x151, CSR_SIREG6 = 0x157,
    CSR_MSTATEEN0 = 0x30c, CSR_MSTATEEN0H = 0x31c,
    CSR_MISELECT = 0x350, CSR_MIREG = 0x351, CSR_MIREG6 = 0x357,
    /* v0.1.4 */
    CSR_SCTRCONTROL = 0x181, CSR_SCTRCONTROLH = 0x182, CSR_SCTRSTATUS_014 = 0x183,
    CSR_MCTRCONTROL = 0x381, CSR_MCTRCONTROLH = 0x382, CSR_MCTRSTATUS = 0x383,
    /* 1.0 */
    CSR_SCTRCTL = 0x14e, CSR_SCTRSTATUS = 0x14f, CSR_SCTRDEPTH = 0x15f, CSR_MCTRCTL = 0x34e,
};

static inline uint64_t bit(int pos) { return pos < 0 ? 0 : 1ull << pos; }
static inline bool has(const ctr_state *c, int pos) { return pos >= 0 && ((c->control >> pos) & 1); }

static uint64_t xmask(const hart *h) { return h->xlen == 32 ? 0xffffffffull : ~0ull; }

static bool mode_enabled(const ctr_state *c, unsigned priv) { return (c->enabled >> priv) & 1; }

/* ------------------------------------------------------------ cycle counting */

uint64_t rvt_ctr_cycles(unsigned cc) {
    unsigned cce = (cc >> 12) & 15, ccm = cc & 0xfff;
    return cce == 0 ? ccm : (uint64_t)(4096 + ccm) << (cce - 1);
}

/* Brings the counter up to the current instruction and re-evaluates, for
 * the mode the hart is now in, whether CTR is active and whether it can
 * record at all (ctr_armed, checked on the interpreter's fast path). */
static void sync(hart *h);

void ctr_sync(hart *h) {
    if (h->ctr)
        sync(h);
}

static void sync(hart *h) {
    ctr_state *c = h->ctr;
    if (c->counting)
        c->cycles += h->minstret - c->mark;
    c->mark = h->minstret;
    h->ctr_armed = c->enabled && !c->frozen;
    h->ctr_modes = h->ctr_armed ? c->enabled : 0;
    c->counting = h->ctr_armed && mode_enabled(c, h->priv);
}

/* ------------------------------------------------------------ the buffer */

static unsigned physical(const ctr_state *c, unsigned logical) {
    return (c->wrptr - 1 - logical) & (c->depth - 1);
}

static void push(hart *h, uint64_t source, uint64_t target, unsigned type) {
    ctr_state *c = h->ctr;
    if (c->counting)
        c->cycles += h->minstret - c->mark;
    c->mark = h->minstret;
    ctr_store(c, (source & xmask(h)) | 1, target & xmask(h) & ~1ull, type);
}

/* RAS emulation's return: invalidate logical entry 0 and make it the
 * oldest; the cycles counted for it go back to the running count. */
static void pop(hart *h) {
    ctr_state *c = h->ctr;
    ctr_entry *e = &c->e[physical(c, 0)];
    if ((e->source & 1) && ((e->data >> 15) & 1))
        c->cycles += rvt_ctr_cycles((unsigned)(e->data >> 16) & 0xffff);
    else
        c->ccv = false;
    e->source &= ~1ull;
    if (c->wrptr == 0)
        c->wrap = false;
    c->wrptr = (c->wrptr - 1) & (c->depth - 1);
}

static void clear_entries(ctr_state *c) { memset(c->e, 0, sizeof c->e); }

/* CLR (0.1.4) and the host's switch-on: every entry and the status. */
static void clear_buffer(ctr_state *c) {
    clear_entries(c);
    c->wrptr = 0;
    c->wrap = c->frozen = false;
}

/* ------------------------------------------------------------ recording */

/* After an instruction with a control transfer retired: `pc` and `from`
 * are its address and privilege, h->pc and h->priv where it went. */
void ctr_transfer_slow(hart *h, const rvt_insn *in, uint64_t pc, unsigned from) {
    ctr_state *c = h->ctr;
    bool rasemu = c->rasemu;
    if (in->cf == RVT_CF_XRET) {
        /* Enabled -> enabled: recorded; enabled -> disabled: the target is
         * left out; from a disabled mode: never. */
        if (mode_enabled(c, from) && !rasemu && ((c->record_types >> RVT_ITYPE_XRET) & 1))
            push(h, pc, mode_enabled(c, h->priv) ? h->pc : 0, RVT_ITYPE_XRET);
        sync(h);
        return;
    }
    if (!mode_enabled(c, from))
        return;
    unsigned type;
    if (in->cf == RVT_CF_BRANCH) /* the target may be the next instruction */
        type = branch_went(h, in, pc) ? RVT_ITYPE_BRANCH_TAKEN : RVT_ITYPE_BRANCH_NOT_TAKEN;
    else
        type = ctr_jump_type(in);
    if (!rasemu) {
        if ((c->record_types >> type) & 1)
            push(h, pc, h->pc, type);
        return;
    }
    switch (type) {
    case RVT_ITYPE_UNINFERABLE_CALL: case RVT_ITYPE_INFERABLE_CALL:
        push(h, pc, h->pc, type);
        break;
    case RVT_ITYPE_RETURN:
        pop(h);
        break;
    case RVT_ITYPE_SWAP: /* a return and a call: entry 0 is overwritten */
        pop(h);
        push(h, pc, h->pc, type);
        break;
    default: /* everything else is inhibited, whatever the filter bits */
        break;
    }
}

/* External traps (from an enabled to a disabled mode) need the target
 * mode's opt-in: 0.1.4 ETEN and xTE; 1.0 xTE of the target and of every
 * mode in between. */
static bool external_trap_recorded(const ctr_state *c, unsigned from, unsigned to) {
    const ctr_layout *l = c->lay;
    bool te = has(c, to == PRV_M ? l->mte : l->ste);
    if (c->version == RVT_CTR_0_1_4)
        return has(c, l->eten) && te;
    if (to == PRV_M && from == PRV_U)
        te = te && has(c, l->ste);
    return te;
}

/* After a trap was taken: `epc` and `from` are where it came from, h->pc
 * and h->priv the handler. */
void ctr_trap(hart *h, bool interrupt, uint64_t code, uint64_t epc, unsigned from) {
    ctr_state *c = h->ctr;
    const ctr_layout *l = c->lay;
    unsigned to = h->priv;
    bool src = mode_enabled(c, from), dst = mode_enabled(c, to);
    unsigned type = interrupt ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION;
    if (!src && !dst) {
        /* not recorded */
    } else if ((!interrupt && code == CAUSE_BREAKPOINT && has(c, l->bpfrz)) ||
               (interrupt && code == IRQ_LCOF && has(c, l->lcofifrz))) {
        /* Freeze keeps the history that led to the sample or breakpoint;
         * the trap itself is not recorded. */
        if (c->counting)
            c->cycles += h->minstret - c->mark;
        c->mark = h->minstret;
        c->frozen = true;
    } else if (c->rasemu) {
        /* traps are not calls or returns */
    } else if (src && dst) {
        if ((c->record_types >> type) & 1)
            push(h, epc, h->pc, type);
    } else if (dst) {
        if ((c->record_types >> type) & 1)
            push(h, 0, h->pc, type);
    } else if (external_trap_recorded(c, from, to)) {
        push(h, epc, 0, type); /* not subject to EXCINH/INTRINH */
    }
    sync(h);
}

/* ------------------------------------------------------------ CSRs */

static uint64_t control_mask(const ctr_state *c) {
    const ctr_layout *l = c->lay;
    return bit(l->m) | bit(l->s) | bit(l->u) | bit(l->mte) | bit(l->ste) | bit(l->rasemu) | bit(l->bpfrz) |
           bit(l->lcofifrz) | bit(l->eten) | CTR_FILTER_MASK;
}

/* DEPTH encodings: 0.1.4 0000, 0001, 0011, 0111, 1111; 1.0 0..4. A value
 * that encodes no depth leaves it as it was; others are clamped to the
 * supported range. */
static void write_depth(ctr_state *c, unsigned enc) {
    unsigned depth = 0;
    if (c->version == RVT_CTR_0_1_4) {
        if (enc == 0 || enc == 1 || enc == 3 || enc == 7 || enc == 15)
            depth = 16u * (enc + 1);
    } else if (enc <= 4) {
        depth = 16u << enc;
    }
    if (!depth)
        return;
    if (depth < c->min_depth)
        depth = c->min_depth;
    if (depth > c->max_depth)
        depth = c->max_depth;
    c->depth = depth;
    c->wrptr &= depth - 1;
}

static unsigned depth_encoding(const ctr_state *c) {
    return c->version == RVT_CTR_0_1_4 ? c->depth / 16 - 1 : (unsigned)__builtin_ctz(c->depth / 16);
}

static void recompute_filter(ctr_state *c) {
    uint64_t v = c->control;
    c->enabled = (uint8_t)((has(c, c->lay->m) ? 1u << PRV_M : 0) | (has(c, c->lay->s) ? 1u << PRV_S : 0) |
                           (has(c, c->lay->u) ? 1u << PRV_U : 0));
    c->rasemu = has(c, c->lay->rasemu);
    uint16_t types = 0;
    static const int inhibit_bit[16] = {-1, 33, 34, 35, -1, 37, -1, -1, 40, 41, 42, 43, 44, 45, 46, 47};
    for (unsigned t = 1; t < 16; t++)
        if (inhibit_bit[t] >= 0 && !((v >> inhibit_bit[t]) & 1))
            types |= (uint16_t)(1u << t);
    if ((v >> NTBREN_BIT) & 1)
        types |= 1u << RVT_ITYPE_BRANCH_NOT_TAKEN;
    c->record_types = types;
}

/* A write to the control register through the M-level view (`writable`:
 * the bits this view may change). Writes reset the cycle counter. */
static void write_control(hart *h, uint64_t val, uint64_t writable) {
    ctr_state *c = h->ctr;
    const ctr_layout *l = c->lay;
    sync(h);
    uint64_t mask = control_mask(c) & writable;
    c->control = (c->control & ~mask) | (val & mask);
    if (l->depth_shift >= 0 && ((writable >> l->depth_shift) & 0xf) == 0xf)
        write_depth(c, (unsigned)(val >> l->depth_shift) & 0xf);
    if (l->clr >= 0 && ((val & writable) >> l->clr) & 1)
        clear_buffer(c);
    recompute_filter(c);
    c->cycles = 0;
    c->ccv = false;
    sync(h);
}

static uint64_t read_control(const ctr_state *c) {
    uint64_t v = c->control;
    if (c->lay->depth_shift >= 0)
        v |= (uint64_t)depth_encoding(c) << c->lay->depth_shift;
    return v;
}

static uint64_t read_status(const ctr_state *c) {
    return c->wrptr | (c->wrap ? 1ull << c->lay->wrap_bit : 0) | (c->frozen ? 1ull << c->lay->frozen_bit : 0);
}

static void write_status(hart *h, uint64_t val) {
    ctr_state *c = h->ctr;
    sync(h);
    c->wrptr = (unsigned)val & 0xff & (c->depth - 1);
    c->wrap = c->lay->wrap_bit && ((val >> c->lay->wrap_bit) & 1);
    c->frozen = (val >> c->lay->frozen_bit) & 1;
    sync(h);
}

/* Entry registers: `reg` 1..6 for *ireg..*ireg6, `sel` the select value. */
static uint64_t *entry_field(ctr_state *c, uint64_t sel, unsigned reg) {
    unsigned logical = (unsigned)(sel - 0x200);
    if (logical >= c->depth || reg > 3)
        return NULL; /* read-only 0 */
    ctr_entry *e = &c->e[physical(c, logical)];
    return reg == 1 ? &e->source : reg == 2 ? &e->target : &e->data;
}

static uint64_t entry_writable(const hart *h, unsigned reg) {
    if (reg == 1)
        return xmask(h);
    if (reg == 2)
        return xmask(h) & ~1ull; /* MISP: no branch predictor to report */
    return 0xfull | (1ull << 15) | (0xffffull << 16);
}

static bool is_ctr_select(uint64_t sel) { return sel >= 0x200 && sel <= 0x2ff; }

/* Access control below M: Smstateen's CTR bit for the CTR CSRs and entries,
 * Smcsrind's bit 60 for siselect/sireg*. */
static bool stateen_ok(const hart *h, uint64_t bits) {
    return h->priv == PRV_M || (h->ctr->mstateen0 & bits) == bits;
}

/* Which CSR the number names, for the configured version. */
enum ctr_csr { NOT_CTR, C_CONTROL, C_CONTROLH, C_SCONTROL, C_SCONTROLH, C_STATUS, C_SSTATUS, C_DEPTH,
               C_STATEEN, C_STATEENH, C_MISELECT, C_SISELECT, C_MIREG, C_SIREG };

static enum ctr_csr classify_csr(const hart *h, unsigned csr, unsigned *reg) {
    const ctr_state *c = h->ctr;
    bool rv32 = h->xlen == 32;
    if (csr == CSR_MSTATEEN0) return C_STATEEN;
    if (csr == CSR_MSTATEEN0H) return rv32 ? C_STATEENH : NOT_CTR;
    if (csr == CSR_MISELECT) return C_MISELECT;
    if (csr == CSR_SISELECT) return C_SISELECT;
    if ((csr >= CSR_MIREG && csr <= CSR_MIREG6 && csr != 0x354) ||
        (csr >= CSR_SIREG && csr <= CSR_SIREG6 && csr != 0x154)) {
        unsigned i = (csr & 0xf) - 1;
        *reg = i < 3 ? i + 1 : i; /* *ireg4..6 are 0x?55..0x?57 */
        return csr >= CSR_MIREG ? C_MIREG : C_SIREG;
    }
    if (c->version == RVT_CTR_0_1_4) {
        switch (csr) {
        case CSR_MCTRCONTROL: return C_CONTROL;
        case CSR_MCTRCONTROLH: return rv32 ? C_CONTROLH : NOT_CTR;
        case CSR_MCTRSTATUS: return C_STATUS;
        case CSR_SCTRCONTROL: return C_SCONTROL;
        case CSR_SCTRCONTROLH: return rv32 ? C_SCONTROLH : NOT_CTR;
        case CSR_SCTRSTATUS_014: return C_SSTATUS;
        default: return NOT_CTR;
        }
    }
    switch (csr) {
    case CSR_MCTRCTL: return C_CONTROL;
    case CSR_SCTRCTL: return C_SCONTROL;
    case CSR_SCTRSTATUS: return C_SSTATUS;
    case CSR_SCTRDEPTH: return C_DEPTH;
    default: return NOT_CTR;
    }
}

/* The bits S-mode cannot see or change: M and MTE. */
static uint64_t s_hidden(const ctr_state *c) { return bit(c->lay->m) | bit(c->lay->mte); }

static uint64_t stateen_writable(const ctr_state *c) { return bit(c->lay->stateen_bit) | STATEEN_CSRIND; }

/* The entry register an *ireg access reaches (NULL with *ok set: reads 0),
 * or *ok false when the access is illegal. */
static uint64_t *ireg_target(hart *h, enum ctr_csr kind, unsigned reg, bool *ok) {
    ctr_state *c = h->ctr;
    uint64_t sel = kind == C_MIREG ? c->miselect : c->siselect;
    *ok = false;
    if (kind == C_SIREG && !stateen_ok(h, STATEEN_CSRIND))
        return NULL;
    /* 1.0 reaches the entries through siselect only; no other state sits
     * behind either select register. */
    if (!is_ctr_select(sel) || (kind == C_MIREG && c->version != RVT_CTR_0_1_4))
        return NULL;
    if (kind == C_SIREG && !stateen_ok(h, bit(c->lay->stateen_bit)))
        return NULL;
    *ok = true;
    return entry_field(c, sel, reg);
}

int ctr_csr_read(hart *h, unsigned csr, uint64_t *val) {
    ctr_state *c = h->ctr;
    if (!c)
        return CTR_NOT_MINE;
    unsigned reg = 0;
    enum ctr_csr kind = classify_csr(h, csr, &reg);
    uint64_t ctr_bit = bit(c->lay->stateen_bit);
    bool ok = true;
    uint64_t *field;
    switch (kind) {
    case NOT_CTR: return CTR_NOT_MINE;
    case C_CONTROL: *val = read_control(c); break;
    case C_CONTROLH: *val = read_control(c) >> 32; break;
    case C_SCONTROL: case C_SCONTROLH:
        if (!stateen_ok(h, ctr_bit)) return -1;
        *val = read_control(c) & ~s_hidden(c);
        if (kind == C_SCONTROLH) *val >>= 32;
        break;
    case C_STATUS: *val = read_status(c); break;
    case C_SSTATUS: if (!stateen_ok(h, ctr_bit)) return -1; *val = read_status(c); break;
    case C_DEPTH: if (!stateen_ok(h, ctr_bit)) return -1; *val = depth_encoding(c); break;
    case C_STATEEN: *val = c->mstateen0; break;
    case C_STATEENH: *val = c->mstateen0 >> 32; break;
    case C_MISELECT: *val = c->miselect; break;
    case C_SISELECT: if (!stateen_ok(h, STATEEN_CSRIND)) return -1; *val = c->siselect; break;
    case C_MIREG: case C_SIREG:
        field = ireg_target(h, kind, reg, &ok);
        if (!ok) return -1;
        *val = field ? *field : 0;
        break;
    }
    *val &= xmask(h);
    return 0;
}

int ctr_csr_write(hart *h, unsigned csr, uint64_t val) {
    ctr_state *c = h->ctr;
    if (!c)
        return CTR_NOT_MINE;
    unsigned reg = 0;
    enum ctr_csr kind = classify_csr(h, csr, &reg);
    uint64_t ctr_bit = bit(c->lay->stateen_bit);
    bool rv32 = h->xlen == 32, ok = true;
    uint64_t low = rv32 ? 0xffffffffull : ~0ull, *field;
    switch (kind) {
    case NOT_CTR: return CTR_NOT_MINE;
    case C_CONTROL: write_control(h, val, low); break;
    case C_CONTROLH: write_control(h, val << 32, ~0xffffffffull); break;
    case C_SCONTROL: case C_SCONTROLH:
        if (!stateen_ok(h, ctr_bit)) return -1;
        if (kind == C_SCONTROL)
            write_control(h, val, low & ~s_hidden(c));
        else
            write_control(h, val << 32, ~0xffffffffull & ~s_hidden(c));
        break;
    case C_STATUS: write_status(h, val); break;
    case C_SSTATUS: if (!stateen_ok(h, ctr_bit)) return -1; write_status(h, val); break;
    case C_DEPTH: if (!stateen_ok(h, ctr_bit)) return -1; write_depth(c, (unsigned)val & 7); break;
    case C_STATEEN: c->mstateen0 = (c->mstateen0 & ~(stateen_writable(c) & low)) | (val & stateen_writable(c) & low); break;
    case C_STATEENH: {
        uint64_t mask = stateen_writable(c) & ~0xffffffffull;
        c->mstateen0 = (c->mstateen0 & ~mask) | ((val << 32) & mask);
        break;
    }
    case C_MISELECT: c->miselect = val & 0xfff; break;
    case C_SISELECT: if (!stateen_ok(h, STATEEN_CSRIND)) return -1; c->siselect = val & 0xfff; break;
    case C_MIREG: case C_SIREG:
        field = ireg_target(h, kind, reg, &ok);
        if (!ok) return -1;
        if (field) {
            uint64_t w = entry_writable(h, reg);
            *field = (*field & ~w) | (val & w);
        }
        break;
    }
    return 0;
}

/* SCTRCLR (1.0): illegal in U-mode, and in S-mode unless mstateen0 allows. */
bool ctr_sctrclr(hart *h) {
    ctr_state *c = h->ctr;
    if (!c || c->version != RVT_CTR_1_0 || h->priv == PRV_U || !stateen_ok(h, bit(c->lay->stateen_bit)))
        return false;
    sync(h);
    clear_entries(c);
    c->cycles = 0;
    c->ccv = false;
    return true;
}

/* ------------------------------------------------------------ set-up */

int ctr_attach(hart *h, const rvt_machine_config *cfg) {
    if (cfg->ctr_version == RVT_CTR_NONE)
        return RVT_OK;
    ctr_state *c = calloc(1, sizeof *c);
    if (!c)
        return RVT_E_NOMEM;
    c->version = cfg->ctr_version;
    c->lay = cfg->ctr_version == RVT_CTR_0_1_4 ? &layout_0_1_4 : &layout_1_0;
    c->min_depth = cfg->ctr_min_depth ? cfg->ctr_min_depth : 16;
    c->max_depth = cfg->ctr_max_depth ? cfg->ctr_max_depth : CTR_ENTRIES;
    h->ctr = c;
    ctr_reset(h);
    return RVT_OK;
}

void ctr_reset(hart *h) {
    ctr_state *c = h->ctr;
    if (!c)
        return;
    const ctr_layout *lay = c->lay;
    unsigned version = c->version, min = c->min_depth, max = c->max_depth;
    memset(c, 0, offsetof(ctr_state, exit_e)); /* what the program left at its exit stays */
    c->lay = lay;
    c->version = version;
    c->min_depth = min;
    c->max_depth = max;
    c->depth = min;
    recompute_filter(c);
    sync(h);
}

void ctr_free(hart *h) {
    free(h->ctr);
    h->ctr = NULL;
}

bool ctr_depth_valid(unsigned depth) { return depth >= 16 && depth <= CTR_ENTRIES && !(depth & (depth - 1)); }

int ctr_enable(hart *h, unsigned modes, unsigned depth, rvt_diag *diag) {
    if (!h->ctr)
        return rvt_diag_set(diag, RVT_E_UNSUPP, "the machine has no control transfer records (--ctr)");
    ctr_state *c = h->ctr;
    if (depth && (!ctr_depth_valid(depth) || depth < c->min_depth || depth > c->max_depth))
        return rvt_diag_set(diag, RVT_E_UNSUPP, "CTR depth %u is not supported (%u..%u, a power of two)", depth,
                            c->min_depth, c->max_depth);
    const ctr_layout *l = c->lay;
    uint64_t v = c->control & ~(bit(l->m) | bit(l->s) | bit(l->u));
    v |= ((modes >> PRV_M) & 1 ? bit(l->m) : 0) | ((modes >> PRV_S) & 1 ? bit(l->s) : 0) |
         ((modes >> PRV_U) & 1 ? bit(l->u) : 0);
    write_control(h, v, l->depth_shift >= 0 ? ~(0xfull << l->depth_shift) : ~0ull);
    if (depth)
        c->depth = depth;
    clear_buffer(c);
    sync(h);
    return RVT_OK;
}

void ctr_note_exit(hart *h) {
    ctr_state *c = h->ctr;
    if (!c)
        return;
    /* (called for every store while a program loops on its exit store;
     * the entries past the depth are never read from the copy) */
    memcpy(c->exit_e, c->e, c->depth * sizeof c->e[0]);
    c->exit_wrptr = c->wrptr;
    c->exit_depth = c->depth;
}

/* Logical entries of `e` (WRPTR `wrptr`, `depth` entries), valid ones only. */
static size_t decode_entries(const ctr_entry *entries, unsigned wrptr, unsigned depth, rvt_ctr_record *out,
                             size_t cap) {
    size_t n = 0;
    for (unsigned k = 0; k < depth && n < cap; k++) {
        const ctr_entry *e = &entries[(wrptr - 1 - k) & (depth - 1)];
        if (!(e->source & 1))
            continue;
        rvt_ctr_record *r = &out[n++];
        r->entry = k;
        r->source = e->source & ~1ull;
        r->target = e->target & ~1ull;
        r->misp = e->target & 1;
        r->type = (unsigned)e->data & 0xf;
        r->ccv = (e->data >> 15) & 1;
        r->cycles = rvt_ctr_cycles((unsigned)(e->data >> 16) & 0xffff);
    }
    return n;
}

size_t ctr_read(const hart *h, rvt_ctr_record *out, size_t cap, bool at_exit) {
    const ctr_state *c = h->ctr;
    if (!c)
        return 0;
    if (at_exit && c->exit_depth)
        return decode_entries(c->exit_e, c->exit_wrptr, c->exit_depth, out, cap);
    return decode_entries(c->e, c->wrptr, c->depth, out, cap);
}
