/* Control transfer records: the state ctr.c keeps per hart and the part of
 * recording that runs on the interpreter's fast path (exec.c), inline. */
#ifndef RVTRACE_CTR_INTERNAL_H
#define RVTRACE_CTR_INTERNAL_H

#include "hart_internal.h"

#define CTR_ENTRIES 256

/* Field positions of the control register, per version (-1: absent). */
typedef struct ctr_layout {
    int m, s, u, clr, mte, ste, rasemu, bpfrz, lcofifrz, eten;
    int depth_shift;   /* 0.1.4: DEPTH lives in the control register */
    int stateen_bit;   /* the CTR bit of mstateen0 */
    unsigned frozen_bit, wrap_bit; /* status register; wrap 0: no WRAP */
} ctr_layout;

typedef struct ctr_entry {
    uint64_t source, target, data;
} ctr_entry;

struct ctr_state {
    const ctr_layout *lay;
    unsigned version;
    unsigned min_depth, max_depth, depth;
    uint64_t control;   /* as software reads it through the M-level register */
    unsigned wrptr;
    bool wrap, frozen;
    uint64_t mstateen0;
    uint64_t miselect, siselect;
    uint16_t record_types; /* bit t: type t is recorded outside RAS emulation */
    uint8_t enabled;       /* bit p: privilege p is enabled for recording */
    bool rasemu;
    uint64_t cycles;       /* CtrCycleCounter up to `mark` */
    uint64_t mark;         /* minstret when `cycles` was last brought up to date */
    bool counting;         /* active (an enabled mode, not frozen) since `mark` */
    bool ccv;              /* the counter holds every active cycle since the last record */
    ctr_entry e[CTR_ENTRIES];
    /* the entries when the program stored its exit code (exit_wrptr: the
     * WRPTR then; exit_depth 0: not yet) */
    ctr_entry exit_e[CTR_ENTRIES];
    unsigned exit_wrptr, exit_depth;
};

/* CCE = index of the counter's top one bit minus 11, CCM the 12 bits below
 * it; 4 exponent bits, saturating at CCE = 15, CCM = 0xfff. */
static inline unsigned encode_cycles(uint64_t n) {
    if (n < 4096)
        return (unsigned)n;
    unsigned top = 63u - (unsigned)__builtin_clzll(n);
    unsigned cce = top - 11;
    if (cce > 15)
        return 0xffff;
    return cce << 12 | (unsigned)((n >> (cce - 1)) & 0xfff);
}

/* The TYPE of a retired jump (E-Trace 2.0 numbering, as rvt_itype with the
 * 4-bit itype) by direct/indirect and jump class, looked up: it runs on
 * every recorded transfer. */
static inline unsigned ctr_jump_type(const rvt_insn *in) {
    static const uint8_t types[2][6] = {
        /* indirect: none, call, tail, return, swap, other */
        {RVT_ITYPE_OTHER_UNINFERABLE, RVT_ITYPE_UNINFERABLE_CALL, RVT_ITYPE_UNINFERABLE_TAIL, RVT_ITYPE_RETURN,
         RVT_ITYPE_SWAP, RVT_ITYPE_OTHER_UNINFERABLE},
        /* direct */
        {RVT_ITYPE_OTHER_INFERABLE, RVT_ITYPE_INFERABLE_CALL, RVT_ITYPE_INFERABLE_TAIL, RVT_ITYPE_RETURN,
         RVT_ITYPE_SWAP, RVT_ITYPE_OTHER_INFERABLE},
    };
    return types[in->cf == RVT_CF_JAL][in->jclass < 6 ? in->jclass : 5];
}

/* Writes the record at WRPTR with the cycles counted so far and moves on. */
static inline void ctr_store(ctr_state *c, uint64_t source, uint64_t target, unsigned type) {
    ctr_entry *e = &c->e[c->wrptr];
    e->source = source;
    e->target = target;
    e->data = type | (c->ccv ? 1u << 15 : 0) | (uint64_t)encode_cycles(c->cycles) << 16;
    c->cycles = 0;
    c->ccv = true;
    unsigned last = c->depth - 1;
    c->wrap |= c->wrptr == last;
    c->wrptr = (c->wrptr + 1) & last;
}

/* A retired instruction with a control transfer, while h->ctr_armed: `pc`
 * and `from` are its address and privilege, h->pc where it went. The usual
 * case (no privilege change, no RAS emulation) is handled here; CTR is then
 * active, so the cycle counter runs. */
static inline void ctr_transfer(hart *h, const rvt_insn *in, uint64_t pc, unsigned from) {
    ctr_state *c = h->ctr;
    if (__builtin_expect(in->cf == RVT_CF_XRET || c->rasemu, 0)) {
        ctr_transfer_slow(h, in, pc, from);
        return;
    }
    if (!((c->enabled >> from) & 1))
        return;
    unsigned type;
    if (in->cf == RVT_CF_BRANCH) {
        type = branch_went(h, in, pc) ? RVT_ITYPE_BRANCH_TAKEN : RVT_ITYPE_BRANCH_NOT_TAKEN;
    } else {
        type = ctr_jump_type(in);
    }
    if (!((c->record_types >> type) & 1))
        return;
    c->cycles += h->minstret - c->mark;
    c->mark = h->minstret;
    ctr_store(c, pc | 1, h->pc, type);
}

#endif
