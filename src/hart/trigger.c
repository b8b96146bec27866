/* The Sdtrig trigger module as spike configures it by default: four
 * triggers, each an mcontrol (type 2) or mcontrol6 (type 6) address/data
 * match on execute, load and store, chained or not, raising a breakpoint
 * exception (action 0). Fields are kept in the legalised tdata1 value that
 * software reads back, so reading and matching agree by construction.
 * Not modelled (writes of those types leave the trigger disabled, and tinfo
 * does not advertise them): icount, itrigger and etrigger; tdata3 (textra)
 * reads as zero, so no trigger filters on a context. */
#include "hart_internal.h"

enum { TYPE_MCONTROL = 2, TYPE_MCONTROL6 = 6, TYPE_DISABLED = 15 };
enum { MATCH_EQUAL = 0, MATCH_NAPOT = 1, MATCH_GE = 2, MATCH_LT = 3, MATCH_MASK_LOW = 4, MATCH_MASK_HIGH = 5 };

/* Bits shared by mcontrol and mcontrol6. */
#define TR_LOAD (1ull << 0)
#define TR_STORE (1ull << 1)
#define TR_EXECUTE (1ull << 2)
#define TR_U (1ull << 3)
#define TR_S (1ull << 4)
#define TR_M (1ull << 6)
#define TR_MATCH_SHIFT 7
#define TR_CHAIN (1ull << 11)
#define TR_ACTION_SHIFT 12
/* mcontrol only */
#define MC_TIMING (1ull << 18)
#define MC_SELECT (1ull << 19)
#define MC_HIT (1ull << 20)
/* mcontrol6 only */
#define MC6_SELECT (1ull << 21)
#define MC6_HIT0 (1ull << 22)
#define MC6_HIT1 (1ull << 25)

static unsigned trig_type(const hart *h, uint64_t tdata1) { return (unsigned)(tdata1 >> (h->xlen - 4)) & 15; }

static bool trig_select(const hart *h, const trigger *t) {
    return (t->tdata1 & (trig_type(h, t->tdata1) == TYPE_MCONTROL ? MC_SELECT : MC6_SELECT)) != 0;
}

static unsigned trig_action(const trigger *t) { return (unsigned)(t->tdata1 >> TR_ACTION_SHIFT) & 15; }

static void refresh_armed(hart *h) {
    h->trig_armed = false;
    for (unsigned i = 0; i < RVT_TRIGGERS; i++)
        if ((h->trig[i].tdata1 & (TR_LOAD | TR_STORE | TR_EXECUTE)) && trig_type(h, h->trig[i].tdata1) != TYPE_DISABLED)
            h->trig_armed = true;
}

void trigger_reset(hart *h) {
    for (unsigned i = 0; i < RVT_TRIGGERS; i++) {
        h->trig[i].tdata1 = (uint64_t)TYPE_DISABLED << (h->xlen - 4);
        h->trig[i].tdata2 = 0;
    }
    h->trig_armed = false;
    h->trig_pending = false;
}

uint64_t trigger_tinfo(void) {
    return (1ull << TYPE_MCONTROL) | (1ull << TYPE_MCONTROL6) | (1ull << TYPE_DISABLED) | (1ull << 24);
}

/* WARL legalisation of a tdata1 write, as spike does it (no debug mode, so
 * dmode is always 0 and the debug-mode action becomes a breakpoint). */
void trigger_write_tdata1(hart *h, uint64_t val) {
    trigger *t = &h->trig[h->tselect];
    unsigned xlen = h->xlen;
    unsigned type = trig_type(h, val);
    uint64_t keep = TR_LOAD | TR_STORE | TR_EXECUTE | TR_U | TR_S | TR_M | TR_CHAIN;
    unsigned action = (unsigned)(val >> TR_ACTION_SHIFT) & 15;
    if (action == 1 || action > 5)
        action = 0;
    unsigned match = (unsigned)(val >> TR_MATCH_SHIFT) & 15;
    if (match > MATCH_MASK_HIGH || (match == MATCH_NAPOT && type == TYPE_MCONTROL)) /* mcontrol: maskmax 0 */
        match = MATCH_EQUAL;
    uint64_t v = (uint64_t)type << (xlen - 4);
    if (type == TYPE_MCONTROL) {
        v |= val & (keep | MC_HIT | MC_SELECT);
        bool timing = (val & MC_TIMING) != 0;
        if ((val & MC_SELECT) && (val & TR_LOAD))
            timing = true; /* load data matches fire after the load */
        else if (val & TR_EXECUTE)
            timing = false;
        if (timing)
            v |= MC_TIMING;
    } else if (type == TYPE_MCONTROL6) {
        v |= val & (keep | MC6_HIT0 | MC6_HIT1 | MC6_SELECT);
    } else {
        v = (uint64_t)TYPE_DISABLED << (xlen - 4);
        action = match = 0;
    }
    v |= (uint64_t)action << TR_ACTION_SHIFT | (uint64_t)match << TR_MATCH_SHIFT;
    t->tdata1 = v;
    refresh_armed(h);
}

static bool value_matches(const hart *h, const trigger *t, uint64_t value) {
    unsigned xlen = h->xlen, half = xlen / 2;
    uint64_t xmask = xlen == 64 ? ~0ull : 0xffffffffull;
    uint64_t t2 = t->tdata2 & xmask;
    value &= xmask;
    uint64_t lowmask = (1ull << half) - 1;
    switch ((t->tdata1 >> TR_MATCH_SHIFT) & 15) {
    case MATCH_NAPOT: {
        unsigned ones = 0;
        while (ones < 63 && ((t2 >> ones) & 1))
            ones++;
        uint64_t mask = ~((2ull << ones) - 1);
        return (value & mask) == (t2 & mask);
    }
    case MATCH_GE: return value >= t2;
    case MATCH_LT: return value < t2;
    case MATCH_MASK_LOW: return ((value & lowmask) & (t2 >> half)) == (t2 & lowmask);
    case MATCH_MASK_HIGH: return ((value >> half) & (t2 >> half)) == (t2 & lowmask);
    default: return value == t2;
    }
}

/* Whether a trigger may match in the hart's current state: its mode bits,
 * and, for a breakpoint action, spike's rule that keeps M-mode (MIE = 0)
 * and S-mode handlers of delegated breakpoints (SIE = 0) from re-entering. */
static bool mode_allows(const hart *h, const trigger *t) {
    uint64_t bit = h->priv == PRV_M ? TR_M : h->priv == PRV_S ? TR_S : TR_U;
    if (!(t->tdata1 & bit))
        return false;
    if (trig_action(t) == 0) {
        if (h->priv == PRV_M && !(h->mstatus & MSTATUS_MIE))
            return false;
        if (h->priv == PRV_S && ((h->medeleg >> CAUSE_BREAKPOINT) & 1) && !(h->mstatus & MSTATUS_SIE))
            return false;
    }
    return true;
}

static void set_hit(const hart *h, trigger *t, bool after) {
    if (trig_type(h, t->tdata1) == TYPE_MCONTROL)
        t->tdata1 |= MC_HIT;
    else
        t->tdata1 = (t->tdata1 & ~(MC6_HIT0 | MC6_HIT1)) | MC6_HIT0 | (after ? MC6_HIT1 : 0);
}

static bool timing_after(const hart *h, const trigger *t, uint64_t op) {
    if (trig_type(h, t->tdata1) == TYPE_MCONTROL)
        return (t->tdata1 & MC_TIMING) != 0;
    return trig_select(h, t) && op == TR_LOAD;
}

/* One trigger against one access: `op` is TR_EXECUTE, TR_LOAD or TR_STORE;
 * data matches need `have_data`. */
static bool trigger_matches(hart *h, trigger *t, uint64_t op, uint64_t addr, unsigned len, bool have_data,
                            uint64_t data) {
    unsigned type = trig_type(h, t->tdata1);
    if ((type != TYPE_MCONTROL && type != TYPE_MCONTROL6) || !(t->tdata1 & op) || !mode_allows(h, t))
        return false;
    bool hit = false;
    if (!trig_select(h, t)) {
        for (unsigned i = 0; i < len && !hit; i++)
            hit = value_matches(h, t, addr + i);
    } else if (have_data && len * 8 <= h->xlen) {
        hit = value_matches(h, t, data);
    }
    if (hit)
        set_hit(h, t, timing_after(h, t, op));
    return hit;
}

int trigger_check(hart *h, enum access op_kind, uint64_t addr, unsigned len, bool have_data, uint64_t data) {
    if (h->trig_pending)
        return TRIG_NONE;
    static const uint64_t ops[3] = {TR_EXECUTE, TR_LOAD, TR_STORE};
    uint64_t op = ops[op_kind];
    bool chain_ok = true;
    int result = TRIG_NONE;
    for (unsigned i = 0; i < RVT_TRIGGERS; i++) {
        trigger *t = &h->trig[i];
        bool chained = (t->tdata1 & TR_CHAIN) != 0;
        if (!chain_ok) {
            chain_ok = !chained;
            continue;
        }
        bool hit = trigger_matches(h, t, op, addr, len, have_data, data);
        /* The first breakpoint match decides; trace actions have no trace
         * unit to notify here, so their matches only set the hit bits. */
        if (hit && !chained && trig_action(t) == 0 && result == TRIG_NONE)
            result = timing_after(h, t, op) ? TRIG_AFTER : TRIG_BEFORE;
        chain_ok = hit || !chained;
    }
    if (result == TRIG_BEFORE) {
        h->exc_cause = CAUSE_BREAKPOINT;
        h->exc_tval = addr;
    } else if (result == TRIG_AFTER) {
        h->trig_pending = true;
        h->trig_pending_tval = addr;
    }
    return result;
}
