/* The E-Trace branch-trace encoder: the reference algorithm of the spec's
 * chapter "Reference Algorithm" (a three-stage view: previous, current and
 * next instruction), applied one ingress record at a time. */
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"
#include "rvtrace/isa.h"

enum { KEPT_PACKETS = 64 };

struct rvt_etrace_encoder {
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_te_packet_sink sink;
    void *user;
    int error;

    rvt_retire ring[4];  /* the records of the three stages (previous, current, next) */
    uint8_t calm[4];     /* CALM_* of the record in each ring slot, set as it joins the stages */
    rvt_code_fetch fetch; /* the code, to take multiple-retire blocks apart where it matters */
    void *fetch_user;
    rvt_retire block; /* with `fetch`: a block waiting for the record after it */
    bool has_block;
    unsigned nstaged, head; /* records staged, index of the oldest */

    bool started;           /* a sync has been sent */
    uint64_t last_addr;     /* address of the last packet that carried one */
    unsigned branches;
    uint32_t branch_map;    /* bit i: branch i not taken */
    uint64_t resync_cnt, max_resync;
    bool sync_after_trap;   /* a trap was reported with thaddr = 0: the handler needs a sync */
    /* A context change that may be reported imprecisely (ctype 1) waits for
     * a step that sends nothing else (the algorithm's last choice, cci); a
     * sync, which carries the context, settles it too. */
    bool context_due;
    uint64_t packets;
    /* Implicit return with a call counter or return-address stack: the
     * link addresses of the calls not yet returned from (the counter mode
     * uses only their number), `depth` of them up from ras[ras_base] in a
     * ring of ras_mask + 1, so that a call on a full stack drops the oldest
     * in O(1) (code that calls without returning does it on every call). */
    uint64_t *ras;
    unsigned depth, max_depth, ras_base, ras_mask;
    bool last_predicted; /* the previous record was a return the decoder predicts */
    /* For the depth a packet before a format 3 reports (depth_before_sync):
     * a return was predicted since the last call, and the branches not yet
     * reported when it was. */
    bool returned_since_call;
    uint64_t unreported_at_return;
    /* Bit d: a predicted return since the last packet left depth d + 1
     * (bit 63: d >= 63). The decoder takes a return at the depth a packet
     * reports for one the packet reports as missed, so that depth cannot
     * be reported when the walk passes such a return. */
    uint64_t return_depths;
    int last_mispredicted; /* stack depth at a return the stack mispredicted, else -1 */
    int prev_mispredicted; /* the same, for the previous record during a step */
    /* Branch prediction: the 2-bit predictor, and the count of correctly
     * predicted branches once 31 in a row were (format 0 subformat 0). */
    uint8_t *bpred;
    bool counting, map_all_correct, fail_pending;
    uint64_t bp_count;
    /* Jump target cache (format 0 subformat 1). */
    uint64_t *jtc;
    uint8_t *jtc_valid;
    /* Filtering: whether the last record was traced, the trigger latch and
     * whether a selected trap handler runs. */
    bool qualified, latch, in_handler;
    bool filtering; /* any filter is set (else only sideband records are not traced) */
    bool may_notify; /* notify addresses or the notify trigger */
    bool blocks_in_two; /* with the code at hand, a block goes in as its first and last instruction */
    /* Sequentially inferable jumps with the code at hand and no filter:
     * the records come in marked (mark_si_jumps), so that a block need not
     * be taken apart to show the decision the instruction before its last.
     * `marked`: the copy of a batch that needed a mark; `last_in`: the last
     * instruction of the previous input record (its address and bits), the
     * one before a jump that is a record of its own. */
    bool marks_si_jumps;
    rvt_retire *marked;
    size_t marked_cap;
    bool last_in_valid;
    uint64_t last_in_addr;
    uint32_t last_in_insn;
    /* Packets emit_address_packet packed, by a hash of their key: code that
     * goes round a loop sends the same few each time (a return to the same
     * caller, the same branches on the way), packed once. With 64 slots
     * dhrystone packs 1 037 of its 8 960 packets (8 532 with the last four
     * kept), crc32 of embench 166 of 197 016. */
    struct kept_packet {
        uint64_t key[3]; /* the fields that reach the payload (packet_key) */
        int len;         /* 0: none kept here */
        uint8_t payload[64];
        rvt_te_inst pkt; /* but for its time */
    } kept[KEPT_PACKETS];
};

static bool use_bpred(const rvt_etrace_encoder *e) { return e->o.branch_prediction && e->p.bpred_size; }
/* Subformat 1 needs the subformat field to be told from subformat 0,
 * unless the predictor is off (then format 0 is always subformat 1). */
static bool use_jtc(const rvt_etrace_encoder *e) {
    return e->o.jump_target_cache && e->p.cache_size && (e->p.f0s_width || !use_bpred(e));
}

static bool is_trap(const rvt_retire *r) { return r->ninsns == 0; }

/* An instruction the user asked to be told about (trigger[2], notify). */
static bool is_notify(const rvt_etrace_encoder *e, const rvt_retire *r) {
    if (e->o.filter.triggers && (r->trigger & RVT_TRIGGER_NOTIFY) && !is_trap(r))
        return true;
    for (unsigned i = 0; i < e->o.filter.nnotify && i < 4; i++)
        if (!is_trap(r) && e->o.filter.notify[i] == r->iaddr)
            return true;
    return false;
}

/* A context change the encoder must report precisely (ctype 2) or as an
 * asynchronous discontinuity (3): handled like a privilege change. */
static bool precise_context_change(const rvt_retire *prev, const rvt_retire *cur) {
    return prev && prev->context != cur->context && cur->ctype >= 2;
}
/* A context change to report as an asynchronous discontinuity (ctype 3, a
 * change of hart say): as an exception would be, the old context's last
 * instruction and the new one's first are both reported; the first with a
 * sync (as 2.0's algorithm, ppccd), which carries the context. */
static bool async_context_change(const rvt_retire *prev, const rvt_retire *cur) {
    return prev && prev->context != cur->context && cur->ctype == 3;
}
/* An exception or interrupt, with or without retirement (ecall retires). */
static bool is_exception(const rvt_retire *r) {
    return r->itype == RVT_ITYPE_EXCEPTION || r->itype == RVT_ITYPE_INTERRUPT;
}

/* Implicit return with neither a call counter nor a return stack: the
 * reference encoder then treats every return and co-routine swap as
 * predictable (its implicit-return traces are encoder-only); our decoder
 * follows them from register values. */
static bool implicit_without_stack(const rvt_etrace_encoder *e) {
    return e->p.return_stack_size == 0 && e->p.call_counter_size == 0;
}

static unsigned insn_size(const rvt_retire *r) { return r->ilastsize ? 4 : 2; }

/* The return stack's i-th entry from the bottom. */
static uint64_t *ras_entry(const rvt_etrace_encoder *e, unsigned i) {
    return &e->ras[(e->ras_base + i) & e->ras_mask];
}

/* Call counter / return-address stack bookkeeping for the instruction that
 * just became current; returns whether its target is predicted. */
static bool predict_return(rvt_etrace_encoder *e, const rvt_retire *cur, const rvt_retire *next) {
    e->last_mispredicted = -1;
    if (!e->o.implicit_return || implicit_without_stack(e) || cur->ninsns == 0)
        return false;
    if (e->o.si_jump && cur->sijump && cur->itype == RVT_ITYPE_RETURN)
        return false; /* the decoder takes the sequential target, not its stack */
    bool predicted = false;
    /* Returns only: a co-routine swap does not go back to a call site. */
    if (cur->itype == RVT_ITYPE_RETURN && e->depth > 0) {
        /* The counter mode trusts the count; the stack must also hold the
         * actual target, else the packet says so (irreport, irdepth). */
        predicted = e->p.return_stack_size == 0 || (next && *ras_entry(e, e->depth - 1) == next->iaddr);
        if (predicted) {
            e->return_depths |= 1ull << (e->depth < 63 ? e->depth : 63);
            e->depth--;
            e->returned_since_call = true;
            e->unreported_at_return = e->branches + (e->counting ? e->bp_count : 0);
        } else {
            e->last_mispredicted = (int)e->depth;
        }
    }
    /* A co-routine swap is neither: the counter counts calls and returns
     * (its target is reported), and a stack entry for it would only stand
     * between the caller's return and its own call site. */
    if (cur->itype == RVT_ITYPE_UNINFERABLE_CALL || cur->itype == RVT_ITYPE_INFERABLE_CALL) {
        if (e->depth == e->max_depth) { /* full: the oldest entry goes */
            e->ras_base = (e->ras_base + 1) & e->ras_mask;
            e->depth--;
        }
        *ras_entry(e, e->depth++) = cur->iaddr + insn_size(cur);
        e->returned_since_call = false;
    }
    return predicted;
}

/* Instructions after which the next address cannot be inferred (itype 6, 8,
 * 10, 12, 14, exception returns and returns). */
/* `predicted`: r is a return the decoder will predict (see predict_return). */
static bool is_updiscon(const rvt_etrace_encoder *e, const rvt_retire *r, bool predicted) {
    if (e->o.si_jump && r->sijump)
        return false; /* sequentially inferable: the decoder computes the target */
    if (e->o.implicit_return &&
        (implicit_without_stack(e) ? r->itype == RVT_ITYPE_RETURN || r->itype == RVT_ITYPE_SWAP : predicted))
        return false;
    switch (r->itype) {
    case RVT_ITYPE_XRET: case RVT_ITYPE_UNINFERABLE_JUMP: case RVT_ITYPE_UNINFERABLE_CALL:
    case RVT_ITYPE_UNINFERABLE_TAIL: case RVT_ITYPE_SWAP: case RVT_ITYPE_RETURN: case RVT_ITYPE_OTHER_UNINFERABLE:
        return !is_trap(r);
    default:
        return false;
    }
}

static bool is_branch(const rvt_retire *r) {
    return !is_trap(r) && (r->itype == RVT_ITYPE_BRANCH_TAKEN || r->itype == RVT_ITYPE_BRANCH_NOT_TAKEN);
}

/* A packet and its payload (n: its length, or the packer's error). */
static void emit_packed(rvt_etrace_encoder *e, rvt_te_inst *pkt, const uint8_t *payload, int n) {
    if (e->error)
        return;
    if (n < 0) {
        e->error = n;
        return;
    }
    e->packets++;
    if (e->sink && e->sink(e->user, pkt, payload, (size_t)n) != 0)
        e->error = RVT_E_IO;
}

static void emit(rvt_etrace_encoder *e, rvt_te_inst *pkt) {
    if (e->error)
        return;
    uint8_t payload[64];
    emit_packed(e, pkt, payload, rvt_te_inst_pack(&e->p, &e->o, pkt, payload, sizeof payload));
}

static uint64_t addr_mask(const rvt_etrace_encoder *e) {
    unsigned w = rvt_etrace_addr_width(&e->p);
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* The fields of a format 0 (subformat 0), 1 or 2 packet that reach its
 * payload, as one key (f0_subformat is 0 throughout: format 0 here counts
 * branches); `flags`: notify, updiscon << 1, irreport << 2. */
static inline void key_of_fields(uint64_t key[3], uint64_t address, uint32_t branch_map, uint32_t irdepth,
                                 uint32_t branch_count, unsigned format, unsigned branches, unsigned branch_fmt,
                                 unsigned flags) {
    key[0] = address;
    key[1] = branch_map | (uint64_t)irdepth << 32;
    key[2] = branch_count | (uint64_t)format << 32 | (uint64_t)branches << 40 | (uint64_t)branch_fmt << 48 |
             (uint64_t)flags << 56;
}

static inline void packet_key(const rvt_te_inst *pkt, uint64_t key[3]) {
    key_of_fields(key, pkt->address, pkt->branch_map, pkt->irdepth, pkt->branch_count, pkt->format, pkt->branches,
                  pkt->branch_fmt, pkt->notify | pkt->updiscon << 1 | pkt->irreport << 2);
}

/* The address field of a packet for `cur`. */
static inline uint64_t packet_address(const rvt_etrace_encoder *e, const rvt_retire *cur) {
    unsigned lsb = e->p.iaddress_lsb;
    uint64_t a = e->o.full_address ? cur->iaddr >> lsb : (uint64_t)((int64_t)(cur->iaddr - e->last_addr) >> lsb);
    return a & addr_mask(e);
}

/* The slot a packet with this key is kept in. */
static inline struct kept_packet *kept_slot(rvt_etrace_encoder *e, const uint64_t key[3]) {
    const uint64_t mix = 0x9e3779b97f4a7c15ull;
    uint64_t h = (key[0] ^ key[1] * mix ^ key[2] >> 29) * mix;
    return &e->kept[h >> 58];
}
_Static_assert(KEPT_PACKETS == 64, "kept_slot takes six bits of the hash");

static inline bool kept_holds(const struct kept_packet *kp, const uint64_t key[3]) {
    return kp->len && kp->key[0] == key[0] && kp->key[1] == key[1] && kp->key[2] == key[2];
}

/* What every format 0/1/2 packet leaves behind. */
static inline void address_packet_sent(rvt_etrace_encoder *e, const rvt_retire *cur) {
    e->last_addr = cur->iaddr;
    e->unreported_at_return = 0;
    e->return_depths = 0;
    e->branches = 0;
    e->branch_map = 0;
    e->map_all_correct = true;
    e->resync_cnt++;
}

static void emit_address_packet_slowly(rvt_etrace_encoder *e, const rvt_retire *cur, bool updiscon_flag,
                                       int mispredicted_depth, bool jump_target, bool notify_flag);

/* Format 0/1/2: the address of `cur` and the pending branches.
 * `jump_target`: cur is the target of an uninferable jump (the jump target
 * cache may then stand in for the address).
 * A format 1 or 2 packet that reports no misprediction and is one of those
 * kept goes out here, without being put together field by field. */
static inline void emit_address_packet(rvt_etrace_encoder *e, const rvt_retire *cur, bool updiscon_flag,
                                       int mispredicted_depth, bool jump_target, bool notify_flag) {
    unsigned d = rvt_etrace_irdepth_width(&e->p);
    if (!e->counting && !e->error && !(jump_target && use_jtc(e)) && (mispredicted_depth < 0 || !d)) {
        uint64_t a = packet_address(e, cur);
        unsigned notify = (unsigned)(a >> (rvt_etrace_addr_width(&e->p) - 1) & 1) ^ notify_flag;
        unsigned updiscon = notify ^ updiscon_flag;
        uint32_t ones = d ? (uint32_t)((1ull << d) - 1) : 0; /* irdepth when not reporting */
        uint64_t key[3];
        key_of_fields(key, a, e->branches ? e->branch_map : 0, ones, 0, e->branches ? 1 : 2, e->branches, 0,
                      notify | updiscon << 1 | updiscon << 2); /* (irreport = updiscon) */
        struct kept_packet *kp = kept_slot(e, key);
        if (kept_holds(kp, key)) {
            kp->pkt.time = cur->time;
            emit_packed(e, &kp->pkt, kp->payload, kp->len);
            address_packet_sent(e, cur);
            return;
        }
    }
    emit_address_packet_slowly(e, cur, updiscon_flag, mispredicted_depth, jump_target, notify_flag);
}

static void emit_address_packet_slowly(rvt_etrace_encoder *e, const rvt_retire *cur, bool updiscon_flag,
                                       int mispredicted_depth, bool jump_target, bool notify_flag) {
    rvt_te_inst pkt = {0};
    unsigned lsb = e->p.iaddress_lsb, w = rvt_etrace_addr_width(&e->p);
    uint64_t a = packet_address(e, cur);
    unsigned d = rvt_etrace_irdepth_width(&e->p);
    uint32_t ones = d ? (uint32_t)((1ull << d) - 1) : 0;
    bool cached = false;
    unsigned idx = 0;
    if (jump_target && use_jtc(e)) {
        idx = rvt_jtc_index(e->p.cache_size, lsb, cur->iaddr);
        cached = e->jtc_valid[idx] && e->jtc[idx] == cur->iaddr;
        e->jtc[idx] = cur->iaddr; /* (as the decoder does with every jump target it is sent) */
        e->jtc_valid[idx] = 1;
    }
    if (e->counting) {
        /* Correct predictions counted: their number and this address. */
        pkt.format = 0;
        pkt.f0_subformat = 0;
        pkt.branch_count = (uint32_t)(e->bp_count - 31);
        pkt.branch_fmt = e->fail_pending ? 3 : 2;
        e->counting = e->fail_pending = false;
        e->bp_count = 0;
        cached = false;
    } else if (e->branches) {
        pkt.format = 1;
        pkt.branches = (uint8_t)e->branches;
        pkt.branch_map = e->branch_map;
    } else {
        pkt.format = 2;
    }
    pkt.address = a;
    pkt.time = cur->time; /* not in the payload; a transport may stamp the packet with it */
    unsigned msb = (unsigned)(a >> (w - 1)) & 1;
    pkt.notify = (uint8_t)(msb ^ notify_flag);
    pkt.updiscon = (uint8_t)(pkt.notify ^ updiscon_flag);
    pkt.irreport = pkt.updiscon;
    pkt.irdepth = ones; /* as the reference: all ones when not reporting */
    if (mispredicted_depth >= 0 && d) {
        /* the return before this instruction did not go where the stack said */
        pkt.irreport = (uint8_t)!pkt.updiscon;
        pkt.irdepth = (uint32_t)mispredicted_depth & ones;
    }
    if (cached && !updiscon_flag && !notify_flag) {
        /* The decoder has this target: its cache index (format 0 subformat
         * 1) goes instead of the address when that packet is shorter. */
        rvt_te_inst alt = {0};
        alt.format = 0;
        alt.f0_subformat = 1;
        alt.index = idx;
        alt.time = cur->time;
        alt.branches = (uint8_t)e->branches;
        alt.branch_map = e->branch_map;
        unsigned top = e->branches ? (unsigned)(e->branch_map >> (rvt_te_branch_map_len(e->branches) - 1)) & 1 : 0;
        alt.irreport = (uint8_t)top;
        alt.irdepth = top ? ones : 0;
        if (mispredicted_depth >= 0 && d) {
            alt.irreport = (uint8_t)!top;
            alt.irdepth = (uint32_t)mispredicted_depth & ones;
        }
        uint8_t by_index[64], by_address[64];
        int n_index = rvt_te_inst_pack(&e->p, &e->o, &alt, by_index, sizeof by_index);
        int n_address = rvt_te_inst_pack(&e->p, &e->o, &pkt, by_address, sizeof by_address);
        if (n_index < n_address)
            emit_packed(e, &alt, by_index, n_index);
        else
            emit_packed(e, &pkt, by_address, n_address);
    } else if (!e->error) {
        uint64_t key[3];
        packet_key(&pkt, key);
        struct kept_packet *kp = kept_slot(e, key);
        int n = kp->len;
        if (!kept_holds(kp, key)) {
            n = rvt_te_inst_pack(&e->p, &e->o, &pkt, kp->payload, sizeof kp->payload);
            kp->len = n > 0 ? n : 0;
            memcpy(kp->key, key, sizeof key);
            kp->pkt = pkt;
        }
        emit_packed(e, &pkt, kp->payload, n);
    }
    address_packet_sent(e, cur);
}

static void emit_sync(rvt_etrace_encoder *e, const rvt_retire *cur, const rvt_retire *trap, bool thaddr) {
    rvt_te_inst pkt = {0};
    pkt.format = 3;
    pkt.subformat = trap ? 1 : 0;
    /* branch = 0 only when the reported instruction is a taken branch */
    pkt.branch = (uint8_t)!(is_branch(cur) && cur->itype == RVT_ITYPE_BRANCH_TAKEN);
    pkt.privilege = trap && !thaddr ? trap->priv : cur->priv;
    pkt.context = cur->context;
    pkt.time = cur->time;
    pkt.address = (cur->iaddr >> e->p.iaddress_lsb) & addr_mask(e);
    if (trap) {
        pkt.ecause = (uint8_t)(trap->cause & ((1u << e->p.ecause_width) - 1));
        pkt.interrupt = trap->itype == RVT_ITYPE_INTERRUPT;
        pkt.thaddr = thaddr;
        pkt.tval = trap->tval;
        /* 1.0's tvalepc: the EPC for an illegal instruction, whose trap
         * value (the opcode) would not name the faulting instruction */
        if (e->o.v1_layout && !pkt.interrupt && trap->cause == 2)
            pkt.tval = trap->iaddr;
    }
    emit(e, &pkt);
    e->started = true;
    e->context_due = false;
    e->last_addr = cur->iaddr;
    e->branches = 0;
    e->branch_map = 0;
    e->resync_cnt = 0;
    e->depth = 0; /* the decoder empties its stack on every sync */
    e->returned_since_call = false;
    e->return_depths = 0;
    /* Both sides restart the predictor and the cache at a sync; the branch
     * at the sync address is the first the decoder records afterwards. */
    e->counting = e->fail_pending = false;
    e->bp_count = 0;
    e->map_all_correct = true;
    if (e->bpred) {
        rvt_bpred_reset(e->bpred, e->p.bpred_size);
        if (is_branch(cur) && use_bpred(e))
            rvt_bpred_update(e->bpred, e->p.bpred_size, e->p.iaddress_lsb, cur->iaddr,
                             cur->itype == RVT_ITYPE_BRANCH_TAKEN);
    }
    if (e->jtc_valid)
        memset(e->jtc_valid, 0, (size_t)1 << e->p.cache_size);
}

static void emit_support(rvt_etrace_encoder *e, bool enable, unsigned qual_status) {
    rvt_te_inst pkt = {0};
    pkt.format = 3;
    pkt.subformat = 3;
    pkt.ienable = enable;
    pkt.qual_status = (uint8_t)qual_status;
    pkt.ioptions = (uint8_t)rvt_etrace_ioptions(&e->o);
    emit(e, &pkt);
}

/* One step of the algorithm for the current record. */
static void decide(rvt_etrace_encoder *e, const rvt_retire *prev, const rvt_retire *cur, const rvt_retire *next,
                   bool prev_predicted);

/* Instruction types after which the next address is always inferable and
 * that are no exception, whatever the options: neither a sync nor an
 * address follows them (branches, inferable jumps and calls, plain ones). */
enum {
    INFERABLE_ITYPES = 1u << RVT_ITYPE_NONE | 1u << RVT_ITYPE_BRANCH_NOT_TAKEN | 1u << RVT_ITYPE_BRANCH_TAKEN |
                       1u << RVT_ITYPE_INFERABLE_CALL | 1u << RVT_ITYPE_INFERABLE_TAIL | 1u << RVT_ITYPE_OTHER_INFERABLE,
};

/* Those after which it is not (the address follows, unless implicit
 * return or a sequentially inferable jump lets the decoder work it out). */
enum {
    UNINFERABLE_ITYPES = 1u << RVT_ITYPE_XRET | 1u << RVT_ITYPE_UNINFERABLE_JUMP | 1u << RVT_ITYPE_UNINFERABLE_CALL |
                         1u << RVT_ITYPE_UNINFERABLE_TAIL | 1u << RVT_ITYPE_SWAP | 1u << RVT_ITYPE_RETURN |
                         1u << RVT_ITYPE_OTHER_UNINFERABLE,
};

/* What a step needs to know of each record in the ring, worked out once as
 * it is staged: it retires, it retires an inferable instruction (so
 * neither a sync nor an address follows it), it has the privilege and
 * context of the record staged before it. */
enum { CALM_RETIRES = 1, CALM_INFERABLE = 2, CALM_JOINS = 4 };

/* The part of quiet() that is the encoder's state rather than the records':
 * it changes only where a packet may go out (a full step, settled
 * branches), so push_run_lazily keeps it in a local. */
static bool encoder_calm(const rvt_etrace_encoder *e) {
    return e->started && e->resync_cnt < e->max_resync && !e->context_due;
}

/* An inferable instruction after another one, in the same privilege and
 * context as the records either side, with no sync or notification due:
 * every rule of decide() but the branch bookkeeping says "no packet", so
 * most records stop here. The three are consecutive ring slots, by index. */
static bool quiet(const rvt_etrace_encoder *e, unsigned prev, unsigned cur, unsigned next) {
    unsigned fp = e->calm[prev], fc = e->calm[cur], fn = e->calm[next];
    return (fp & fc & CALM_INFERABLE) && (fc & fn & CALM_JOINS) && (fn & CALM_RETIRES) && encoder_calm(e) &&
           !e->may_notify;
}

/* A branch of `cur` joins the map, the predictor or the count. */
static void record_branch_at(rvt_etrace_encoder *e, uint64_t iaddr, bool taken) {
    bool correct = use_bpred(e) && rvt_bpred_update(e->bpred, e->p.bpred_size, e->p.iaddress_lsb, iaddr, taken);
    if (e->counting) {
        if (correct)
            e->bp_count++;
        else
            e->fail_pending = true; /* reported after this step's address decision */
    } else {
        e->map_all_correct &= correct;
        e->branch_map |= (uint32_t)!taken << e->branches;
        e->branches++;
    }
}

static void record_branch(rvt_etrace_encoder *e, const rvt_retire *cur) {
    record_branch_at(e, cur->iaddr, cur->itype == RVT_ITYPE_BRANCH_TAKEN);
}

/* With no address packet in the step: a count a failed prediction ended
 * goes out, and a full branch map goes out or turns into a count. */
static void settle_branches(rvt_etrace_encoder *e) {
    if (e->fail_pending) {
        /* The count of correct predictions; the next branch failed. */
        rvt_te_inst pkt = {0};
        pkt.format = 0;
        pkt.f0_subformat = 0;
        pkt.branch_count = (uint32_t)(e->bp_count - 31);
        pkt.branch_fmt = 0;
        emit(e, &pkt);
        e->counting = e->fail_pending = false;
        e->bp_count = 0;
        e->map_all_correct = true;
        e->resync_cnt++;
        e->unreported_at_return = 0;
        e->return_depths = 0;
    }
    if (e->branches == 31) {
        if (use_bpred(e) && e->map_all_correct) {
            /* 31 correct predictions in a row: count them instead. */
            e->counting = true;
            e->bp_count = 31;
        } else {
            rvt_te_inst pkt = {0};
            pkt.format = 1;
            pkt.branches = 0;
            pkt.branch_map = e->branch_map;
            emit(e, &pkt);
            e->resync_cnt++;
            e->unreported_at_return = 0;
            e->return_depths = 0;
        }
        e->branches = 0;
        e->branch_map = 0;
        e->map_all_correct = true;
    }
}

/* One step of the algorithm for the current record (all of it: quiet steps
 * go the short way, see step_slots). */
static void __attribute__((noinline)) step(rvt_etrace_encoder *e, const rvt_retire *prev, const rvt_retire *cur,
                                           const rvt_retire *next) {
    e->prev_mispredicted = e->last_mispredicted;
    if (prev && !is_trap(cur) && cur->ctype == 1 && prev->context != cur->context)
        e->context_due = true;
    uint64_t before = e->packets;
    decide(e, prev, cur, next, e->last_predicted);
    if (e->context_due && e->started && e->packets == before && !is_trap(cur)) {
        /* format 3 subformat 2: the decoder's path does not depend on it */
        rvt_te_inst pkt = {0};
        pkt.format = 3;
        pkt.subformat = 2;
        pkt.privilege = cur->priv;
        pkt.context = cur->context;
        pkt.time = cur->time;
        emit(e, &pkt);
        e->context_due = false;
    }
    /* After the packet decision: a sync in it must not drop this call. */
    e->last_predicted = predict_return(e, cur, next);
}

/* A quiet step's effect: the branch bookkeeping of the current record
 * (itype, address) and the call bookkeeping (`call`: the record, when it is
 * a call). */
/* Returns whether it settled the branches (which may send a packet). */
static inline __attribute__((always_inline)) bool quiet_step(rvt_etrace_encoder *e, unsigned itype, uint64_t iaddr,
                                                         const rvt_retire *call) {
    bool settled = false;
    e->prev_mispredicted = e->last_mispredicted;
    if (itype == RVT_ITYPE_BRANCH_TAKEN || itype == RVT_ITYPE_BRANCH_NOT_TAKEN) {
        record_branch_at(e, iaddr, itype == RVT_ITYPE_BRANCH_TAKEN);
        if (__builtin_expect(e->fail_pending || e->branches == 31, 0)) {
            settle_branches(e);
            settled = true;
        }
    }
    if (itype == RVT_ITYPE_INFERABLE_CALL) {
        e->last_predicted = predict_return(e, call, NULL); /* (only a return looks at the next) */
    } else { /* what predict_return does for an instruction that neither calls nor returns */
        e->last_mispredicted = -1;
        e->last_predicted = false;
    }
    return settled;
}

/* The step of the record in ring slot `cur`, between those in the slots
 * before and after it. */
static inline void step_slots(rvt_etrace_encoder *e, unsigned prev, unsigned cur, unsigned next) {
    const rvt_retire *c = &e->ring[cur];
    if (quiet(e, prev, cur, next)) {
        quiet_step(e, c->itype, c->iaddr, c);
        return;
    }
    step(e, &e->ring[prev], c, &e->ring[next]);
}

/* The call depth a packet reporting the last instruction before a format 3
 * (trap, privilege change, resync) gives, or -1: the decoder follows the
 * path to that address, which recursion may pass at several depths. After
 * a predicted return the depth goes when it is not 0; elsewhere unless no
 * return came since the last call (the decoder stops in the innermost
 * call) or a branch not yet reported came after the last return (it stops
 * where the branches run out). */
static int depth_before_sync(const rvt_etrace_encoder *e, bool after_predicted_return) {
    if (!e->o.implicit_return || implicit_without_stack(e) || !rvt_etrace_irdepth_width(&e->p) || e->depth >= 63 ||
        (e->return_depths >> e->depth & 1))
        return -1;
    if (after_predicted_return)
        return e->depth ? (int)e->depth : -1;
    uint64_t unreported = e->branches + (e->counting ? e->bp_count : 0);
    if (!e->returned_since_call || unreported > e->unreported_at_return)
        return -1;
    return (int)e->depth;
}

static void decide(rvt_etrace_encoder *e, const rvt_retire *prev, const rvt_retire *cur, const rvt_retire *next,
                   bool prev_predicted) {
    int prev_mispredicted = e->prev_mispredicted;
    if (cur->itype == RVT_ITYPE_RESERVED) { /* (never calm: every such record comes here) */
        e->error = RVT_E_FORMAT;
        return;
    }
    if (is_trap(cur)) {
        /* A trap taken at the first instruction of the previous trap's
         * handler (an interrupt pending as an exception enters S mode, say):
         * nothing of that handler retires, so the previous trap is reported
         * now, with thaddr = 0 and its EPC, and this one when its own
         * handler starts. (The 1.0 layout has no way to say it.) */
        if (prev && is_trap(prev) && e->started && !e->o.v1_layout) {
            if (!e->sync_after_trap)
                emit_sync(e, prev, prev, false);
            e->sync_after_trap = false;
        }
        /* An exception at the target of an uninferable discontinuity: the
         * EPC cannot be inferred, so it is reported now (thaddr = 0) and the
         * handler follows with a sync. (The 1.0 layout has no thaddr: the
         * handler's trap packet is all there is.) */
        if (prev && is_updiscon(e, prev, prev_predicted) && e->started && !e->o.v1_layout) {
            emit_sync(e, cur, cur, false);
            e->sync_after_trap = true;
        }
        return;
    }
    if (is_branch(cur))
        record_branch(e, cur);
    if (prev && is_exception(prev) && e->started) {
        if (e->sync_after_trap) {
            e->sync_after_trap = false;
            emit_sync(e, cur, NULL, false);
        } else {
            emit_sync(e, cur, prev, true);
        }
        return;
    }
    if (!e->started || (prev && prev->priv != cur->priv) || precise_context_change(prev, cur) ||
        e->resync_cnt > e->max_resync) {
        emit_sync(e, cur, NULL, false);
        return;
    }
    if (prev && is_updiscon(e, prev, prev_predicted)) {
        /* updiscon differs from notify when the next packet will be a
         * format 3 caused by the next instruction (trap, privilege change
         * or resynchronisation): the decoder must then not stop at the
         * first occurrence of this address. */
        bool f3_next = !next || is_trap(next) || next->priv != cur->priv || e->resync_cnt >= e->max_resync ||
                       precise_context_change(cur, next);
        int depth = prev_mispredicted;
        if (depth < 0 && f3_next && next)
            depth = depth_before_sync(e, false);
        emit_address_packet(e, cur, f3_next && next, depth, true, is_notify(e, cur));
        return;
    }
    if (e->resync_cnt == e->max_resync && (e->branches || e->counting)) {
        emit_address_packet(e, cur, false, depth_before_sync(e, prev_predicted), false, is_notify(e, cur));
        return;
    }
    if (is_exception(cur)) { /* retired and trapped in the same block (ecall) */
        emit_address_packet(e, cur, false, depth_before_sync(e, prev_predicted), false, is_notify(e, cur));
        return;
    }
    bool sync_next = next && (is_trap(next) || async_context_change(cur, next) ||
                              ((next->priv != cur->priv || precise_context_change(cur, next)) &&
                               (e->branches || e->counting)));
    if (!next || sync_next || is_notify(e, cur)) {
        emit_address_packet(e, cur, false, sync_next ? depth_before_sync(e, prev_predicted) : -1, false,
                            is_notify(e, cur));
        return;
    }
    settle_branches(e);
}

int rvt_etrace_encoder_new(rvt_etrace_encoder **out, const rvt_etrace_params *p, const rvt_etrace_options *o,
                           rvt_te_packet_sink sink, void *user) {
    /* Implicit return tells calls from tail calls and returns from other
     * jumps: only the 4-bit itype says which is which. */
    if (o->implicit_return && p->itype_width < 4)
        return RVT_E_ARG;
    rvt_etrace_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return RVT_E_NOMEM;
    e->p = *p;
    e->o = *o;
    e->sink = sink;
    e->user = user;
    e->max_resync = 1ull << (o->resync_max + 4);
    e->last_mispredicted = e->prev_mispredicted = -1;
    e->max_depth = rvt_etrace_return_depth(p) ? rvt_etrace_return_depth(p) : 1;
    unsigned ras_size = rvt_etrace_return_ring(e->max_depth);
    e->ras_mask = ras_size - 1;
    e->ras = calloc(ras_size, sizeof *e->ras);
    e->map_all_correct = true;
    e->latch = !o->filter.use_start && !o->filter.triggers;
    const struct rvt_etrace_filter *f = &o->filter;
    e->filtering = f->use_start || f->use_stop || f->nranges || f->priv_mask || f->exception_mask || f->interrupt_mask ||
                   f->triggers;
    e->may_notify = f->nnotify || f->triggers;
    bool tables_ok = true;
    if (p->bpred_size && p->bpred_size <= 20 && (e->bpred = malloc((size_t)1 << p->bpred_size)))
        rvt_bpred_reset(e->bpred, p->bpred_size);
    else if (p->bpred_size)
        tables_ok = false;
    if (p->cache_size && p->cache_size <= 20) {
        e->jtc = calloc((size_t)1 << p->cache_size, sizeof *e->jtc);
        e->jtc_valid = calloc((size_t)1 << p->cache_size, 1);
        tables_ok = tables_ok && e->jtc && e->jtc_valid;
    }
    if (!e->ras || !tables_ok) {
        free(e->ras);
        free(e->bpred);
        free(e->jtc);
        free(e->jtc_valid);
        free(e);
        return RVT_E_NOMEM;
    }
    emit_support(e, true, 0);
    *out = e;
    return RVT_OK;
}

#define SLOT(e, i) (&(e)->ring[((e)->head + (i)) & 3])

/* An uninferable jump through the register that the lui/auipc/c.lui retired
 * just before it wrote (the hart may also flag it through sijump). */
static bool sequentially_inferable(const rvt_etrace_encoder *e, const rvt_retire *prev, const rvt_retire *r) {
    /* Only a jump can be one, and every reader classifies jumps. */
    if (!prev->ninsns || !r->ninsns || !r->insn || !prev->insn || r->itype == RVT_ITYPE_NONE ||
        r->itype == RVT_ITYPE_BRANCH_TAKEN || r->itype == RVT_ITYPE_BRANCH_NOT_TAKEN)
        return false;
    unsigned xlen = e->p.iaddress_width <= 32 ? 32 : 64;
    rvt_insn pi, ji;
    rvt_decode(r->insn, xlen, &ji);
    if (ji.op != RVT_OP_JALR)
        return false;
    rvt_decode(prev->insn, xlen, &pi);
    uint64_t target;
    return rvt_seq_inferable_target(&pi, prev->iaddr, &ji, xlen, &target);
}

/* The reference flow's ingress conventions, which the golden traces were
 * made with: ecall and ebreak retire and signal the exception in the same
 * block (itype 1, "exception with retirement"); an interrupt is signalled on
 * the block of the instruction it followed, which counts as not retired.
 * Records here are architectural (the trap is its own record), so they are
 * mapped with one record of look-ahead: a record is final only once the
 * record after it has arrived, and steps run on final records. The ring
 * holds previous, current, next and the newest (not yet final) record. */
/* The records still waiting: the last two become current in turn. */
static void drain(rvt_etrace_encoder *e) {
    if (e->nstaged == 1) {
        step(e, NULL, SLOT(e, 0), NULL);
    } else if (e->nstaged == 2) {
        step(e, NULL, SLOT(e, 0), SLOT(e, 1));
        step(e, SLOT(e, 0), SLOT(e, 1), NULL);
    } else if (e->nstaged == 3) {
        step(e, SLOT(e, 0), SLOT(e, 1), SLOT(e, 2));
        step(e, SLOT(e, 1), SLOT(e, 2), NULL);
    }
    e->nstaged = 0;
    e->head = 0;
}

static bool selected_trap(const struct rvt_etrace_filter *f, const rvt_retire *r) {
    if (!is_trap(r) || (r->itype != RVT_ITYPE_EXCEPTION && r->itype != RVT_ITYPE_INTERRUPT))
        return false;
    uint64_t code = r->cause & ~(1ull << 63) & ~(1ull << 31);
    uint64_t mask = r->itype == RVT_ITYPE_INTERRUPT ? f->interrupt_mask : f->exception_mask;
    return code < 64 && (mask >> code) & 1;
}

static bool in_filter(rvt_etrace_encoder *e, const rvt_retire *r) {
    const struct rvt_etrace_filter *f = &e->o.filter;
    if (r->sideband)
        return false; /* halted or in reset: as an unqualified instruction */
    if ((f->use_start && r->iaddr == f->start_addr) || (f->triggers && (r->trigger & RVT_TRIGGER_ON)))
        e->latch = true;
    bool ok = e->latch;
    if (f->nranges) {
        bool inside = false;
        for (unsigned i = 0; i < f->nranges && i < 4; i++)
            inside |= r->iaddr >= f->lo[i] && r->iaddr < f->hi[i];
        ok &= inside;
    }
    if (f->priv_mask)
        ok &= (f->priv_mask >> (r->priv & 3)) & 1;
    if ((f->use_stop && r->iaddr == f->stop_addr) || (f->triggers && (r->trigger & RVT_TRIGGER_OFF)))
        e->latch = false; /* this one is still traced */
    if (f->exception_mask || f->interrupt_mask) {
        ok &= e->in_handler;
        if (selected_trap(f, r))
            e->in_handler = true; /* from the handler's first instruction */
        else if (!is_trap(r) && r->itype == RVT_ITYPE_XRET)
            e->in_handler = false; /* the return itself is still traced */
    }
    return ok;
}


static int push_records(rvt_etrace_encoder *e, const rvt_retire *recs, size_t n, bool interrupt_next);

/* Whether every instruction of a block matters: filters, triggers and
 * notify look at every address, sequentially inferable jumps at the
 * instruction before the jump (unless the records come in marked). */
static bool every_instruction_matters(const rvt_etrace_encoder *e) {
    return (e->o.si_jump && !e->marks_si_jumps) || e->filtering || e->may_notify;
}

void rvt_etrace_encoder_set_code(rvt_etrace_encoder *e, rvt_code_fetch fetch, void *user) {
    e->fetch = fetch;
    e->fetch_user = user;
    e->marks_si_jumps = fetch && e->o.si_jump && !e->filtering && !e->o.filter.nnotify;
    e->blocks_in_two = fetch && !every_instruction_matters(e);
}

static bool si_jump_after(const rvt_insn *prev, uint64_t prev_addr, const rvt_insn *jump, unsigned xlen) {
    uint64_t target;
    return rvt_seq_inferable_target(prev, prev_addr, jump, xlen, &target);
}

/* Whether `jump`, the last instruction of block r (of two or more), is
 * sequentially inferable after the instruction before it, as
 * push_block_singly would stage that one (the code must add up to the
 * block). That instruction is 2 or 4 bytes before the jump: the block is
 * walked only when one of the two would do, which few do (most jumps that
 * end blocks are returns after some other instruction). Decoded from its
 * bits at the encoder's XLEN, as sequentially_inferable does. */
static bool block_ends_in_si_jump(const rvt_etrace_encoder *e, const rvt_retire *r, const rvt_insn *jump,
                                  unsigned xlen) {
    uint64_t last = rvt_retire_last_iaddr(r);
    rvt_insn in, before;
    bool maybe = false;
    for (unsigned len = 2; len <= 4 && !maybe; len += 2) {
        uint64_t at = last - len;
        if (at < r->iaddr || at > last || !e->fetch(e->fetch_user, at, &in) || in.len != len || !in.raw)
            continue;
        rvt_decode(in.raw, xlen, &before);
        maybe = si_jump_after(&before, at, jump, xlen);
    }
    if (!maybe)
        return false;
    uint64_t a = r->iaddr, before_addr = 0;
    uint32_t before_raw = 0;
    for (uint32_t k = 0; k + 1 < r->ninsns; k++) {
        if (a >= last || !e->fetch(e->fetch_user, a, &in))
            return false;
        before_addr = a;
        before_raw = in.raw;
        a += in.len;
    }
    if (a != last || !before_raw)
        return false;
    rvt_decode(before_raw, xlen, &before);
    return si_jump_after(&before, before_addr, jump, xlen);
}

/* The batch with the sijump mark on every record whose last instruction
 * sequentially_inferable() would find to be such a jump when push_records
 * stages it after the instruction before it: that of the block, or the
 * previous record's last (none after a trap, an unqualified record or at
 * the start). recs itself when none needs the mark, else e->marked; NULL
 * without the memory for the copy. */
static const rvt_retire *mark_si_jumps(rvt_etrace_encoder *e, const rvt_retire *recs, size_t n) {
    unsigned xlen = e->p.iaddress_width <= 32 ? 32 : 64;
    rvt_retire *out = NULL;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *r = &recs[i];
        bool mark = false;
        if (!r->sijump && r->ninsns && !r->sideband && r->insn && r->itype != RVT_ITYPE_NONE &&
            r->itype != RVT_ITYPE_BRANCH_TAKEN && r->itype != RVT_ITYPE_BRANCH_NOT_TAKEN) {
            rvt_insn jump;
            rvt_decode(r->insn, xlen, &jump);
            if (jump.op == RVT_OP_JALR) {
                if (r->ninsns > 1) {
                    mark = block_ends_in_si_jump(e, r, &jump, xlen);
                } else if (e->last_in_valid) {
                    rvt_insn before;
                    rvt_decode(e->last_in_insn, xlen, &before);
                    mark = si_jump_after(&before, e->last_in_addr, &jump, xlen);
                }
            }
        }
        e->last_in_valid = r->ninsns && !r->sideband && r->insn;
        e->last_in_addr = rvt_retire_last_iaddr(r);
        e->last_in_insn = r->insn;
        if (mark && !out) {
            if (e->marked_cap < n) {
                rvt_retire *grown = realloc(e->marked, n * sizeof *grown);
                if (!grown)
                    return NULL;
                e->marked = grown;
                e->marked_cap = n;
            }
            memcpy(e->marked, recs, n * sizeof *recs);
            out = e->marked;
        }
        if (mark)
            out[i].sijump = 1;
    }
    return out ? out : recs;
}

static bool qualify(rvt_etrace_encoder *e, const rvt_retire *r);
static void commit_staged(rvt_etrace_encoder *e);
static inline void commit_calm(rvt_etrace_encoder *e, unsigned calm);
static unsigned calm_of(const rvt_retire *before, const rvt_retire *r);

/* A staged record described by the input record it comes from: the record
 * itself, or its block's first or last instruction (as push_records makes
 * them), and its CALM_* flags. */
enum { AS_IS, FIRST_OF, LAST_OF };
struct staged_ref {
    const rvt_retire *src;
    unsigned kind, calm;
};

static void make_staged(const struct staged_ref *d, rvt_retire *out) {
    *out = *d->src;
    if (d->kind == FIRST_OF) {
        out->ninsns = 1;
        out->itype = RVT_ITYPE_NONE;
        out->iretire = 1;
        out->ilastsize = 0;
        out->sijump = 0;
        out->trigger &= RVT_TRIGGER_ON; /* (trace-off and notify are the block's last's) */
    } else if (d->kind == LAST_OF) {
        out->iaddr = rvt_retire_last_iaddr(d->src);
        out->ninsns = 1;
        out->iretire = (uint16_t)(d->src->ilastsize + 1);
    }
}

/* One instruction of a block as its own plain record, made in `r`, a ring
 * slot (see push_records for why not on the stack); `insn` NULL when its
 * size does not matter (it is then given as 16-bit). */
static void make_block_insn(rvt_retire *r, const rvt_retire *block, uint64_t addr, const rvt_insn *insn) {
    make_staged(&(struct staged_ref){block, FIRST_OF, 0}, r);
    r->iaddr = addr;
    if (insn)
        rvt_retire_take_insn(r, insn);
}

/* make_block_insn in the free slot, staged; true when it was (qualified). */
static bool push_block_insn(rvt_etrace_encoder *e, const rvt_retire *block, uint64_t addr, const rvt_insn *insn) {
    rvt_retire *r = SLOT(e, e->nstaged);
    make_block_insn(r, block, addr, insn);
    /* neither a trap, a block nor a jump: staged as it is once qualified */
    if (!qualify(e, r))
        return false;
    commit_staged(e);
    return true;
}

/* A block as the single-retire records it stands for, all but its last
 * instruction (whose record the caller builds); false, with nothing pushed,
 * when the code does not add up to the block. */
static bool push_block_singly(rvt_etrace_encoder *e, const rvt_retire *in) {
    if (!rvt_retire_block_fits_code(in, e->fetch, e->fetch_user))
        return false;
    uint64_t a = in->iaddr;
    rvt_insn insn;
    for (uint32_t k = 0; k + 1 < in->ninsns && !e->error; k++) {
        e->fetch(e->fetch_user, a, &insn);
        push_block_insn(e, in, a, &insn);
        a += insn.len;
    }
    return true;
}

/* The flags of a block's last instruction (with the privilege and context
 * of the block's first). */
static unsigned last_of_calm(const rvt_retire *block) {
    return CALM_RETIRES | CALM_JOINS | ((INFERABLE_ITYPES >> (block->itype & 31)) & 1) * CALM_INFERABLE;
}

/* Whether the instruction after `cur` in cur's block sends a packet, where
 * cur is the block's first or an inner instruction (after `prev`, NULL
 * when none is staged) whose step is still to come, and the encoder's
 * state is what that step starts from. The instructions after a block's
 * first have plain neighbours in their own privilege and context, so their
 * steps look only at the encoder's state: one sends a packet only with the
 * count at its limit (an address, branches waiting) or past it (a sync,
 * which restarts the count). Following decide() through cur's step: a
 * sync there leaves nothing due; an address there (for the jump before
 * cur, or for the branches waiting at the limit) takes the count past it,
 * so the next instruction syncs; else the count stays below its limit or
 * with no branches waiting, and nothing falls due in the rest of the block. */
static bool next_inner_sends(const rvt_etrace_encoder *e, const rvt_retire *prev, const rvt_retire *cur) {
    if (e->resync_cnt != e->max_resync || !e->started)
        return false;
    if (prev && (is_exception(prev) || prev->priv != cur->priv || precise_context_change(prev, cur)))
        return false;
    return (prev && is_updiscon(e, prev, e->last_predicted)) || e->branches || e->counting;
}

/* A block's instructions between its first and last that send a packet
 * (a resynchronisation falling due among them), once its first and last
 * went in as the two newest records: the last is not stepped yet, so each
 * such instruction takes its place, and the last goes in again after it.
 * An inner instruction whose step sends nothing changes nothing the next
 * one looks at, so the rest then stay out. Nothing decided about a plain
 * instruction depends on its size, so the code is read only here. */
static void push_due_inner(rvt_etrace_encoder *e, const rvt_retire *block) {
    if (block->ninsns <= 2 || e->error || e->nstaged < 2 ||
        !next_inner_sends(e, e->nstaged > 2 ? SLOT(e, e->nstaged - 3) : NULL, SLOT(e, e->nstaged - 2)))
        return;
    uint64_t a = block->iaddr, last_addr = rvt_retire_last_iaddr(block);
    rvt_insn insn;
    if (!e->fetch(e->fetch_user, a, &insn) || a + insn.len > last_addr)
        return; /* the code is not what the block says: its last stays as it is */
    rvt_retire_take_insn(SLOT(e, e->nstaged - 2), &insn); /* the block's first */
    a += insn.len;
    for (uint32_t k = 1; k + 1 < block->ninsns; k++) {
        if (!e->fetch(e->fetch_user, a, &insn) || a + insn.len > last_addr)
            break; /* the code changed under the block: its last stays as it is */
        rvt_retire *inner = SLOT(e, e->nstaged - 1);
        make_block_insn(inner, block, a, &insn);
        e->calm[inner - e->ring] = CALM_RETIRES | CALM_INFERABLE | CALM_JOINS;
        make_staged(&(struct staged_ref){block, LAST_OF, 0}, SLOT(e, e->nstaged));
        commit_calm(e, last_of_calm(block));
        a += insn.len;
        if (e->error || !next_inner_sends(e, SLOT(e, e->nstaged - 3), SLOT(e, e->nstaged - 2)))
            break;
    }
}

/* What push_records does with a block no interrupt follows, when it is
 * qualified, the stages are full and only the block's first and last
 * instructions can matter (e->blocks_in_two): the same records staged the
 * same way, without the checks that cannot apply. */
static void push_plain_block(rvt_etrace_encoder *e, const rvt_retire *in) {
    e->qualified = true;
    make_staged(&(struct staged_ref){in, FIRST_OF, 0}, SLOT(e, 3));
    commit_calm(e, calm_of(SLOT(e, 2), SLOT(e, 3)));
    make_staged(&(struct staged_ref){in, LAST_OF, 0}, SLOT(e, 3));
    commit_calm(e, last_of_calm(in));
    push_due_inner(e, in);
}

/* ---- Records staged as descriptors ----
 * Where push_plain_block applies, and for single records, the stages need
 * not hold copies while the input records are at hand: push_run_lazily
 * stages descriptors of a batch's records and makes ring records of the
 * last three where the run ends. A step whose records are calm takes what
 * it needs from the descriptors; any other step is made from copies. */

/* The itype of a staged record (a block's first instruction is plain). */
static unsigned staged_itype(const struct staged_ref *d) {
    return d->kind == FIRST_OF ? RVT_ITYPE_NONE : d->src->itype;
}

/* The two steps at an uninferable jump where nothing else is going on (all
 * three records retire in one privilege and context, the encoder is calm,
 * nothing to notify about), taken the way decide() takes them but without
 * copies of the records: the jump's own step after an inferable instruction
 * sends nothing, unless implicit return keeps calls (which may predict the
 * jump: the full step then); the step of a plain instruction after it
 * sends that instruction's address. Every other step returns false, with
 * nothing done. (Code that returns without implicit return, or through
 * function pointers, has a packet per jump: this is most of its steps.) */
static inline bool calm_jump_step(rvt_etrace_encoder *e, const struct staged_ref st[3]) {
    unsigned fp = st[0].calm, fc = st[1].calm, fn = st[2].calm;
    if (!((fp & fc & fn & CALM_RETIRES) && (fc & fn & CALM_JOINS)))
        return false;
    if (fp & CALM_INFERABLE) {
        if (!((UNINFERABLE_ITYPES >> (staged_itype(&st[1]) & 31)) & 1) ||
            (e->o.implicit_return && !implicit_without_stack(e)))
            return false;
        e->prev_mispredicted = e->last_mispredicted;
        if (e->fail_pending || e->branches == 31)
            settle_branches(e);
    } else {
        if (st[1].kind == LAST_OF || staged_itype(&st[1]) != RVT_ITYPE_NONE ||
            !((UNINFERABLE_ITYPES >> (staged_itype(&st[0]) & 31)) & 1) || !is_updiscon(e, st[0].src, e->last_predicted))
            return false;
        e->prev_mispredicted = e->last_mispredicted;
        /* (a plain instruction's own record or its block's first: the
         * record's address and time) */
        emit_address_packet(e, st[1].src, false, e->prev_mispredicted, true, false);
    }
    /* what predict_return does for the instruction */
    e->last_mispredicted = -1;
    e->last_predicted = false;
    return true;
}

/* The step of st[1], between st[0] and st[2] (see step_slots); `calm`:
 * encoder_calm(e), brought up to date. */
static inline __attribute__((always_inline)) void lazy_step(rvt_etrace_encoder *e, const struct staged_ref st[3],
                                                        bool *calm) {
    unsigned fp = st[0].calm, fc = st[1].calm, fn = st[2].calm;
    /* (as quiet(), with nothing to notify about: blocks_in_two) */
    if (!((fp & fc & CALM_INFERABLE) && (fc & fn & CALM_JOINS) && (fn & CALM_RETIRES) && *calm)) {
        if (*calm && calm_jump_step(e, st)) {
            *calm = encoder_calm(e);
            return;
        }
        rvt_retire r[3];
        for (unsigned k = 0; k < 3; k++)
            make_staged(&st[k], &r[k]);
        step(e, &r[0], &r[1], &r[2]);
        *calm = encoder_calm(e);
        return;
    }
    const struct staged_ref *cur = &st[1];
    unsigned itype = staged_itype(cur);
    bool settled;
    if (itype == RVT_ITYPE_INFERABLE_CALL) {
        rvt_retire r;
        make_staged(cur, &r);
        settled = quiet_step(e, itype, r.iaddr, &r);
    } else {
        settled = quiet_step(e, itype, cur->kind == LAST_OF ? rvt_retire_last_iaddr(cur->src) : cur->src->iaddr, NULL);
    }
    if (settled)
        *calm = encoder_calm(e);
}

/* Stages `d` after a step, as commit_calm does. */
static inline __attribute__((always_inline)) void lazy_commit(rvt_etrace_encoder *e, struct staged_ref st[3],
                                                          struct staged_ref d, bool *calm) {
    lazy_step(e, st, calm);
    st[0] = st[1];
    st[1] = st[2];
    st[2] = d;
}

/* The descriptors' records into the ring. */
static void lazy_end(rvt_etrace_encoder *e, const struct staged_ref st[3]) {
    rvt_retire made[3];
    for (unsigned k = 0; k < 3; k++)
        make_staged(&st[k], &made[k]);
    for (unsigned k = 0; k < 3; k++) {
        *SLOT(e, k) = made[k];
        e->calm[(e->head + k) & 3] = (uint8_t)st[k].calm;
    }
}

/* The inferable call of a block's last instruction, in a quiet step. */
static void __attribute__((noinline)) quiet_call(rvt_etrace_encoder *e, const rvt_retire *block) {
    rvt_retire call;
    make_staged(&(struct staged_ref){block, LAST_OF, 0}, &call);
    predict_return(e, &call, NULL);
}

/* The branch map push_quiet_blocks keeps in locals (without branch
 * prediction) back in the encoder; `mapped`: a branch joined it there. */
static inline void store_map(rvt_etrace_encoder *e, unsigned branches, uint64_t map, bool mapped) {
    e->branches = branches;
    e->branch_map = (uint32_t)map;
    if (mapped)
        e->map_all_correct = false;
}

/* The step of the last record of block x in push_quiet_blocks, with the
 * branch map in the caller's locals (map_only): true when the branches it
 * settled end the calm, or an error came. */
static inline __attribute__((always_inline)) bool quiet_step_ends_calm(rvt_etrace_encoder *e, const rvt_retire *x,
                                                                       bool map_only, unsigned *branches,
                                                                       uint64_t *map, bool *mapped, bool *calm) {
    unsigned itype = x->itype;
    if (itype == RVT_ITYPE_INFERABLE_CALL) {
        quiet_call(e, x);
        return false;
    }
    if (itype != RVT_ITYPE_BRANCH_TAKEN && itype != RVT_ITYPE_BRANCH_NOT_TAKEN)
        return false;
    if (map_only) {
        *map |= (uint64_t)(itype == RVT_ITYPE_BRANCH_NOT_TAKEN) << *branches;
        *mapped = true;
        if (__builtin_expect(++*branches < 31, 1))
            return false;
        store_map(e, *branches, *map, true);
    } else {
        record_branch_at(e, rvt_retire_last_iaddr(x), itype == RVT_ITYPE_BRANCH_TAKEN);
        if (__builtin_expect(!e->fail_pending && e->branches != 31, 1))
            return false;
    }
    settle_branches(e);
    *branches = e->branches;
    *map = e->branch_map;
    *mapped = false;
    *calm = encoder_calm(e);
    return !*calm || e->error;
}

/* What push_run_lazily does with a run of blocks whose steps are all quiet,
 * without descriptors: from recs[i], once the block before it went in as
 * its first and last records (st[1], st[2]). Each block's records step the
 * previous block's: its first record's step changes nothing but the
 * misprediction state, which is -1 and false from then on (no return in
 * the run), and its last record's step is the branch or call bookkeeping.
 * A block of one instruction is its last record alone (a branch that
 * follows a branch: a quarter of the blocks of branchy code).
 * The block after the run's last is looked at first (an interrupt there
 * takes its last instruction back). Inner instructions stay out: with
 * every step quiet the count is below its limit, and a branch that settles
 * sends a packet only as it empties the map or ends the count, so none falls
 * due after it (next_inner_sends). Returns where it stopped; st as the
 * stages are then. */
static inline __attribute__((always_inline)) size_t quiet_blocks(rvt_etrace_encoder *e, struct staged_ref st[3],
                                                                const rvt_retire *recs, size_t i, size_t n,
                                                                bool *calm, const bool map_only) {
    unsigned branches = e->branches;
    /* (64 bits wide, unlike branches: GCC would keep the pair in one vector
     * register, which costs more to update than two) */
    uint64_t map = e->branch_map;
    bool mapped = false;
    const size_t first = i;
    const rvt_retire *before = st[2].src;
    /* The records of the last two blocks stay unstepped: after a block of
     * one instruction, the last record of the block before it (`pending`)
     * waits for the next block. */
    const rvt_retire *pending = NULL;
    bool stepped_fully = false; /* st was left by a full step */
    /* An uninferable jump (a return, say) goes quietly too where
     * calm_jump_step would take its two steps: the jump's own, which
     * changes nothing here, and that of the first instruction of the block
     * it went to (`target`), which sends its address as the block after
     * that goes in. */
    const bool jumps_calm = !(e->o.implicit_return && !implicit_without_stack(e));
    const rvt_retire *target = NULL;
    /* (the run's blocks retire in the privilege and context of the one
     * before each, so of the first) */
    const unsigned priv = before->priv;
    const uint64_t context = before->context;
    const rvt_retire *r = recs + i;
    for (const rvt_retire *const end = recs + n - 1; r < end; r++) {
        if (!r->ninsns || r->sideband || r->priv != priv || r->context != context ||
            (is_trap(&r[1]) && r[1].itype == RVT_ITYPE_INTERRUPT))
            break;
        const rvt_retire *jumped_to = NULL;
        if (!((INFERABLE_ITYPES >> (before->itype & 31)) & 1)) {
            if (!jumps_calm || r->ninsns < 2 || !((UNINFERABLE_ITYPES >> (before->itype & 31)) & 1) ||
                !is_updiscon(e, before, false))
                break;
            jumped_to = r;
        }
        if (target) { /* r's first record steps the target's first: its address goes */
            if (e->resync_cnt + 1 >= e->max_resync)
                break; /* (the packet ends the calm: full steps from here) */
            if (map_only)
                store_map(e, branches, map, mapped);
            e->prev_mispredicted = e->last_mispredicted = -1;
            e->last_predicted = false;
            emit_address_packet(e, target, false, -1, true, false);
            branches = 0;
            map = 0;
            mapped = false;
            if (e->error) {
                r++; /* (r went in: nothing more happens after an error) */
                goto out;
            }
        }
        target = jumped_to;
        /* the last records r's records step, in order: x, then `then`
         * (a pair kept in registers: an array of them went through memory) */
        const rvt_retire *x = pending, *then = r->ninsns > 1 ? before : NULL;
        pending = r->ninsns > 1 ? NULL : before;
        before = r;
        if (!x) {
            x = then;
            then = NULL;
        }
        if (!x || !quiet_step_ends_calm(e, x, map_only, &branches, &map, &mapped, calm)) {
            if (!then || !quiet_step_ends_calm(e, then, map_only, &branches, &map, &mapped, calm))
                continue;
            x = then;
            then = NULL;
        }
        if (then && !e->error) {
            /* r's first record went in (stepping x's last); its last
             * steps the record before it the full way */
            e->prev_mispredicted = e->last_mispredicted = -1;
            e->last_predicted = false;
            st[0] = (struct staged_ref){x, LAST_OF, last_of_calm(x)};
            st[1] = (struct staged_ref){then, LAST_OF, last_of_calm(then)};
            st[2] = (struct staged_ref){r, FIRST_OF, CALM_RETIRES | CALM_INFERABLE | CALM_JOINS};
            lazy_commit(e, st, (struct staged_ref){r, LAST_OF, last_of_calm(r)}, calm);
            stepped_fully = true;
        }
        r++;
        goto out;
    }
out:
    i = (size_t)(r - recs);
    if (map_only)
        store_map(e, branches, map, mapped);
    if (i > first && !stepped_fully) {
        e->prev_mispredicted = e->last_mispredicted = -1;
        e->last_predicted = false;
        /* The stages: the last three records the run's blocks went in as
         * (a block of one instruction as its last alone), then those from
         * before the run. */
        struct staged_ref last[3];
        unsigned k = 3;
        for (size_t j = i; k && j-- > first;) {
            const rvt_retire *b = &recs[j];
            last[--k] = (struct staged_ref){b, LAST_OF, last_of_calm(b)};
            if (k && b->ninsns > 1)
                last[--k] = (struct staged_ref){b, FIRST_OF, CALM_RETIRES | CALM_INFERABLE | CALM_JOINS};
        }
        for (unsigned j = 3; k;)
            last[--k] = st[--j];
        memcpy(st, last, sizeof last);
    }
    return i;
}

/* (a copy for each: without branch prediction a branch only joins the map
 * (record_branch_at), kept in quiet_blocks' locals until it fills) */
static size_t push_quiet_blocks(rvt_etrace_encoder *e, struct staged_ref st[3], const rvt_retire *recs, size_t i,
                                size_t n, bool *calm) {
    if (!(st[0].calm & st[1].calm & CALM_INFERABLE) || !(st[1].calm & CALM_JOINS) || !*calm || e->error)
        return i;
    return use_bpred(e) ? quiet_blocks(e, st, recs, i, n, calm, false) : quiet_blocks(e, st, recs, i, n, calm, true);
}

/* Whether `block`, gone in as st[1] and st[2] (its first and last), may
 * have inner instructions that send a packet (see push_due_inner): the
 * count is at its limit with the first still to step. */
static bool inner_may_send(const rvt_etrace_encoder *e, const struct staged_ref st[3], const rvt_retire *block) {
    return e->resync_cnt == e->max_resync && block->ninsns > 2 && st[1].kind == FIRST_OF && st[1].src == block;
}

/* Takes recs[i..) while they are instructions (a block only with the record
 * after it in the batch and no interrupt there); returns where it stopped. */
static size_t push_run_lazily(rvt_etrace_encoder *e, const rvt_retire *recs, size_t i, size_t n) {
    struct staged_ref st[3];
    for (unsigned k = 0; k < 3; k++)
        st[k] = (struct staged_ref){SLOT(e, k), AS_IS, e->calm[(e->head + k) & 3]};
    const rvt_retire *before = SLOT(e, 2);
    size_t start = i;
    bool calm = encoder_calm(e);
    for (; i < n && !e->error; i++) {
        const rvt_retire *r = &recs[i];
        if (!r->ninsns || r->sideband)
            break;
        unsigned joins = before->priv == r->priv && before->context == r->context ? CALM_JOINS : 0;
        if (r->ninsns == 1) {
            lazy_commit(e, st, (struct staged_ref){r, AS_IS, calm_of(NULL, r) | joins}, &calm);
        } else {
            if (i + 1 == n || (is_trap(&recs[i + 1]) && recs[i + 1].itype == RVT_ITYPE_INTERRUPT))
                break;
            lazy_commit(e, st, (struct staged_ref){r, FIRST_OF, CALM_RETIRES | CALM_INFERABLE | joins}, &calm);
            lazy_commit(e, st, (struct staged_ref){r, LAST_OF, last_of_calm(r)}, &calm);
            size_t to = inner_may_send(e, st, r) ? i + 1 : push_quiet_blocks(e, st, recs, i + 1, n, &calm);
            const rvt_retire *last = &recs[to - 1];
            if (inner_may_send(e, st, last)) {
                /* (after a quiet run: a packet there, for a jump's target,
                 * took the count to its limit) the ring decides */
                e->qualified = true;
                lazy_end(e, st);
                push_due_inner(e, last);
                return to;
            }
            if (to > i + 1) {
                before = last;
                i = to - 1;
                continue;
            }
        }
        before = r;
    }
    if (i > start) {
        e->qualified = true;
        lazy_end(e, st);
    }
    return i;
}

/* A block, once the record after it (`next`) is known. */
static void push_held_block(rvt_etrace_encoder *e, const rvt_retire *block, const rvt_retire *next) {
    bool interrupt_next = is_trap(next) && next->itype == RVT_ITYPE_INTERRUPT;
    if (!interrupt_next && e->blocks_in_two && e->nstaged == 3 && !block->sideband)
        push_plain_block(e, block);
    else
        push_records(e, block, 1, interrupt_next);
}

/* A block waits for the record after it: an interrupt there takes back the
 * block's last instruction (see push_records), and the one before it must
 * then be known. */
int rvt_etrace_encoder_push(rvt_etrace_encoder *e, const rvt_retire *recs, size_t n) {
    if (!e->fetch)
        return push_records(e, recs, n, false);
    if (e->marks_si_jumps && !e->error && !(recs = mark_si_jumps(e, recs, n)))
        return e->error = RVT_E_NOMEM;
    for (size_t i = 0; i < n && !e->error; i++) {
        if (e->has_block) {
            e->has_block = false;
            push_held_block(e, &e->block, &recs[i]);
        }
        if (e->blocks_in_two && e->nstaged == 3 && (i = push_run_lazily(e, recs, i, n)) == n)
            break;
        if (recs[i].ninsns <= 1) {
            push_records(e, &recs[i], 1, false);
        } else if (i + 1 < n) {
            push_held_block(e, &recs[i], &recs[i + 1]);
        } else {
            e->block = recs[i];
            e->has_block = true;
        }
    }
    return e->error;
}

/* `interrupt_next`: the record after a block is an interrupt. */
/* Whether the record is traced; leaving the traced part reports its last
 * instruction and says that tracing ended there (a sync starts the next). */
static bool qualify(rvt_etrace_encoder *e, const rvt_retire *r) {
    if (!e->filtering && !r->sideband) {
        e->qualified = true;
        return true;
    }
    if (in_filter(e, r)) {
        e->qualified = true;
        return true;
    }
    if (e->qualified) {
        drain(e);
        emit_support(e, true, 1);
        e->started = false;
        e->qualified = false;
    }
    return false;
}

/* The staged record in the ring's free slot, whose CALM_* flags are `calm`,
 * joins the stages: the one before it is now final and steps. */
static inline void commit_calm(rvt_etrace_encoder *e, unsigned calm) {
    unsigned h = e->head, n = e->nstaged;
    e->calm[(h + n) & 3] = (uint8_t)calm;
    if (n == 3) {
        step_slots(e, h, (h + 1) & 3, (h + 2) & 3);
        e->head = (h + 1) & 3;
        return;
    }
    e->nstaged = n + 1;
    if (n == 2)
        step(e, NULL, SLOT(e, 0), SLOT(e, 1));
}

/* The flags of record r staged after `before` (NULL: the first staged). */
static unsigned calm_of(const rvt_retire *before, const rvt_retire *r) {
    unsigned calm = r->ninsns ? CALM_RETIRES | ((INFERABLE_ITYPES >> (r->itype & 31)) & 1) * CALM_INFERABLE : 0;
    if (before && before->priv == r->priv && before->context == r->context)
        calm |= CALM_JOINS;
    return calm;
}

static void commit_staged(rvt_etrace_encoder *e) {
    commit_calm(e, calm_of(e->nstaged ? SLOT(e, e->nstaged - 1) : NULL, SLOT(e, e->nstaged)));
}

static int push_records(rvt_etrace_encoder *e, const rvt_retire *recs, size_t n, bool interrupt_next) {
    for (size_t i = 0; i < n && !e->error; i++) {
        const rvt_retire *in = &recs[i];
        if (in->ninsns == 0 && !in->sideband && !is_exception(in))
            continue; /* nothing retired and no trap: the block's other signals mean nothing */
        if (!qualify(e, in))
            continue;
        /* The reference flow's rows carry an interrupt on the row of the
         * instruction it follows, which then counts as not retired; an
         * ecall or ebreak whose handler is interrupted before its first
         * instruction keeps its own trap (the decoder lists it). */
        if (is_trap(in) && in->itype == RVT_ITYPE_INTERRUPT && e->nstaged && !is_trap(SLOT(e, e->nstaged - 1)) &&
            SLOT(e, e->nstaged - 1)->itype != RVT_ITYPE_EXCEPTION) {
            rvt_retire *held = SLOT(e, e->nstaged - 1);
            held->ninsns = 0;
            held->iretire = 0;
            held->itype = RVT_ITYPE_INTERRUPT;
            e->calm[held - e->ring] &= CALM_JOINS;
            held->cause = in->cause;
            held->tval = 0;
            continue;
        }
        bool block = in->ninsns > 1, in_two = false;
        uint16_t last_iretire = (uint16_t)(in->ilastsize + 1);
        uint64_t last_iaddr = rvt_retire_last_iaddr(in);
        if (block) {
            /* A multiple-retire block: only its first and last instructions
             * can change the encoder's state (the ones between are plain),
             * so it is processed as those two. The sizes of the others are
             * not in the record, so a resynchronisation that falls due
             * inside a block is taken at its last instruction, and an
             * interrupt after a block leaves its last instruction retired.
             * With the code at hand, the instructions that can matter go in
             * one at a time, as they retired. */
            in_two = e->fetch && !interrupt_next && !every_instruction_matters(e);
            if (in_two)
                push_block_insn(e, in, in->iaddr, NULL); /* (the ones after it: push_due_inner) */
            bool done = in_two || (e->fetch && push_block_singly(e, in));
            if (!e->error && !done) {
                rvt_retire first = *in;
                first.ninsns = 1;
                first.itype = RVT_ITYPE_NONE;
                first.iretire = 1;
                first.ilastsize = 0;
                first.trigger &= RVT_TRIGGER_ON; /* (trace-off and notify are the block's last's) */
                push_records(e, &first, 1, false);
            }
            if (e->error)
                return e->error;
        }
        /* The block's last instruction is the block's record with its own
         * address and size, made in its slot: a record put together on the
         * stack would be read back with wide loads of fresh narrow stores
         * (no forwarding). Decisions read the record given, which for a
         * block's last instruction they may (neither looks at the address). */
        rvt_retire *r = SLOT(e, e->nstaged);
        bool env_trap = rvt_retire_is_env_trap(in);
        bool sijump = e->o.si_jump && !e->marks_si_jumps && !in->sijump && e->nstaged > 0 &&
                      sequentially_inferable(e, SLOT(e, e->nstaged - 1), in);
        *r = *in;
        if (block) {
            r->iaddr = last_iaddr;
            r->ninsns = 1;
            r->iretire = last_iretire;
        }
        if (env_trap) {
            r->ninsns = 1;
            r->iretire = (uint16_t)(r->ilastsize + 1);
        }
        if (sijump)
            r->sijump = 1;
        commit_staged(e);
        if (in_two)
            push_due_inner(e, in);
    }
    return e->error;
}

int rvt_etrace_encoder_finish(rvt_etrace_encoder *e, uint64_t *packets) {
    if (e->has_block) {
        e->has_block = false;
        push_records(e, &e->block, 1, false);
    }
    drain(e);
    emit_support(e, false, 1); /* ended_rep: tracing ended after the last instruction */
    int rc = e->error;
    if (packets)
        *packets = e->packets;
    free(e->ras);
    free(e->bpred);
    free(e->jtc);
    free(e->jtc_valid);
    free(e->marked);
    free(e);
    return rc;
}
