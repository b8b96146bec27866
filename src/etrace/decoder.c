/* The E-Trace decoder: rebuilds the sequence of retired instruction addresses
 * from te_inst packets and the program's code, following the decoder
 * algorithm of the spec (Decoder chapter): follow the program from the last
 * known address, consuming branch outcomes from the branch map, until the
 * reported address is reached in the way the packet's flags say. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"

/* The calls followed for implicit returns without a counter or a return
 * stack (the reference's mode: registers resolve what the stack cannot) */
#define UNBOUNDED_STACK_DEPTH 4096
#define MAX_WALK (1u << 24) /* instructions followed for one packet before giving up */

struct rvt_etrace_decoder {
    rvt_etrace_params p;
    rvt_etrace_options o;  /* updated by support packets */
    unsigned xlen;
    rvt_code_fetch fetch;
    rvt_pc_sink sink;
    void *user; /* the fetch's */
    void *out;  /* the sinks' (the user, or a worker's flow log) */

    uint64_t pc, last_pc, address;
    uint64_t branch_map; /* up to 31 + 1 pending outcomes */
    unsigned branches;
    bool stop_at_last_branch, inferred_address, start_of_trace;
    /* Waiting for a sync after a loss the caller was told of (resync):
     * packets before it are skipped without another report. */
    bool lost;
    unsigned privilege;
    uint64_t context; /* the last format 3 packet's */
    /* The return stack: `depth` entries up from stack[base] in a ring of
     * stack_mask + 1, so that a call on a full stack (stack_max entries, as
     * the encoder's) drops the oldest entry in O(1) (code that calls
     * without returning does it on every call). */
    uint64_t *stack;
    unsigned depth, base, stack_max, stack_mask;
    /* Integer registers whose values follow from the code walked so far
     * (constants, pc-relative values, links, loads from read-only memory):
     * they resolve returns and co-routine swaps the encoder left implicit. */
    uint64_t reg[32];
    uint32_t known;
    rvt_const_read read_const;
    void *read_user;
    bool last_implicit; /* the previous instruction's target came from implicit return */
    bool handler_next;  /* a trap was reported before its handler ran (thaddr = 0) */
    uint64_t tvec, stvec; /* trap vectors for implicit-exception mode */
    bool has_stvec;
    uint64_t packet_index;
    int error;
    rvt_diag *diag;
    rvt_run_cache *runs; /* straight-line code, passed in one step when nothing is tracked */
    bool shares_runs;    /* (another decoder's cache, not freed with this one) */
    rvt_block_sink block;
    rvt_walk_sink walk; /* (with a block sink) */
    rvt_run_sink run; /* straight runs at once; the rest through `sink` */
    /* With a block or run sink a single reported address waits here: the
     * run that starts there usually comes next and joins it in one block or
     * run (a consumer's cost is per call). */
    uint64_t pending;
    bool has_pending;
    /* A block that the next may continue (a branch not taken): the sink's
     * cost is per block, so blocks in a row go out as one, at the latest when
     * the packet is done or a trap is reported. */
    uint64_t held_start, held_end;
    uint32_t held_n; /* 0: none held */
    uint64_t ambiguous_ends, ambiguous_addr, ambiguous_len;
    uint64_t ambiguous_traps, ambiguous_trap_addr;
    bool trap_unplaced; /* the trap being processed is one of those */
    rvt_trap_sink trap;
    rvt_trap_event handler_trap; /* the trap waiting for its handler (thaddr = 0) */
    /* Branch prediction: of the pending branches, `bp_skip` come from the
     * map, then (bp_fail_first) one that failed, then `bp_left` went as
     * predicted, then (bp_fail) one did not; later ones from the map. */
    uint8_t *bpred;
    uint64_t bp_skip, bp_left;
    bool bp_fail_first; /* a failed one left by the previous count comes first */
    bool bp_fail;
    uint64_t *jtc;      /* jump target cache */
    uint8_t *jtc_valid;
    struct walk_memos *memo;     /* walks seen before (allocated with the first one kept) */
    bool shares_memo;            /* (another decoder's, not freed with this one) */
    struct walk_memo *recording; /* the slot the walk under way is written into */
    uint32_t memo_last;          /* the slot of the last packet's walk, + 1 (0: none) */
};

static bool use_bpred(const rvt_etrace_decoder *d) { return d->o.branch_prediction && d->bpred; }
static bool use_jtc(const rvt_etrace_decoder *d) {
    return d->o.jump_target_cache && d->jtc && (d->p.f0s_width || !use_bpred(d)); /* (as the encoder) */
}

/* What both sides forget at a synchronisation packet. */
static void restart_caches(rvt_etrace_decoder *d) {
    d->bp_skip = d->bp_left = 0;
    d->bp_fail = d->bp_fail_first = false;
    if (d->bpred)
        rvt_bpred_reset(d->bpred, d->p.bpred_size);
    if (d->jtc_valid)
        memset(d->jtc_valid, 0, (size_t)1 << d->p.cache_size);
}

/* What the walk cannot simply pass: branches, jumps and exception returns. */
static unsigned etrace_nonlinear(const rvt_insn *in) {
    return in->cf == RVT_CF_BRANCH || in->cf == RVT_CF_JAL || in->cf == RVT_CF_JALR || in->cf == RVT_CF_XRET;
}

/* `runs`: the run cache of another decoder of the same code, or NULL for one
 * of its own. */
static int decoder_new(rvt_etrace_decoder **out, const rvt_etrace_params *p, const rvt_etrace_options *o,
                       unsigned xlen, rvt_code_fetch fetch, rvt_pc_sink sink, void *user, rvt_run_cache *runs) {
    rvt_etrace_decoder *d = calloc(1, sizeof *d);
    if (d && runs) {
        d->runs = runs;
        d->shares_runs = true;
    }
    unsigned stack_max = rvt_etrace_return_depth(p) ? rvt_etrace_return_depth(p) : UNBOUNDED_STACK_DEPTH;
    unsigned stack_size = rvt_etrace_return_ring(stack_max);
    if (!d || !(d->stack = calloc(stack_size, sizeof *d->stack)) ||
        (!runs && rvt_run_cache_new(&d->runs, fetch, user, xlen, etrace_nonlinear)) ||
        (p->bpred_size && (p->bpred_size > 20 || !(d->bpred = malloc((size_t)1 << p->bpred_size)))) ||
        (p->cache_size && (p->cache_size > 20 || !(d->jtc = calloc((size_t)1 << p->cache_size, sizeof *d->jtc)) ||
                           !(d->jtc_valid = calloc((size_t)1 << p->cache_size, 1))))) {
        rvt_etrace_decoder_free(d);
        return RVT_E_NOMEM;
    }
    d->p = *p;
    d->o = *o;
    d->xlen = xlen;
    d->stack_max = stack_max;
    d->stack_mask = stack_size - 1;
    d->fetch = fetch;
    d->sink = sink;
    d->user = user;
    d->out = user;
    d->start_of_trace = true;
    d->known = 1;
    *out = d;
    return RVT_OK;
}

int rvt_etrace_decoder_new(rvt_etrace_decoder **out, const rvt_etrace_params *p, const rvt_etrace_options *o,
                           unsigned xlen, rvt_code_fetch fetch, rvt_pc_sink sink, void *user) {
    return decoder_new(out, p, o, xlen, fetch, sink, user, NULL);
}

void rvt_etrace_decoder_set_const_memory(rvt_etrace_decoder *d, rvt_const_read read, void *user) {
    d->read_const = read;
    d->read_user = user;
}

void rvt_etrace_decoder_set_tvec(rvt_etrace_decoder *d, uint64_t tvec) { d->tvec = tvec; }
void rvt_etrace_decoder_set_stvec(rvt_etrace_decoder *d, uint64_t stvec) {
    d->stvec = stvec;
    d->has_stvec = true;
}

void rvt_etrace_decoder_set_block_sink(rvt_etrace_decoder *d, rvt_block_sink block) { d->block = block; }
void rvt_etrace_decoder_set_walk_sink(rvt_etrace_decoder *d, rvt_walk_sink walk) { d->walk = walk; }
void rvt_etrace_decoder_set_run_sink(rvt_etrace_decoder *d, rvt_run_sink run) { d->run = run; }

void rvt_etrace_decoder_resync(rvt_etrace_decoder *d) {
    d->error = 0;
    d->start_of_trace = true;
    d->lost = true;
    d->inferred_address = false;
    d->stop_at_last_branch = false;
    d->branches = 0;
    d->branch_map = 0;
    d->depth = 0;
}

static void free_memo(struct walk_memos *memo);

void rvt_etrace_decoder_free(rvt_etrace_decoder *d) {
    if (d) {
        if (!d->shares_runs)
            rvt_run_cache_free(d->runs);
        free(d->stack);
        free(d->bpred);
        free(d->jtc);
        free(d->jtc_valid);
        if (!d->shares_memo)
            free_memo(d->memo);
        free(d);
    }
}

static int fail(rvt_etrace_decoder *d, const char *what, uint64_t addr) {
    d->error = rvt_diag_set(d->diag, RVT_E_FORMAT, "packet %" PRIu64 ": %s (pc %#" PRIx64 ")", d->packet_index,
                            what, addr);
    return d->error;
}

static bool get(rvt_etrace_decoder *d, uint64_t addr, rvt_insn *in) {
    if (d->fetch(d->user, addr, in) && in->op != RVT_OP_ILLEGAL)
        return true;
    fail(d, "no valid instruction at this address in the program image", addr);
    return false;
}

static uint64_t mask_addr(const rvt_etrace_decoder *d, uint64_t a);

static void send_held(rvt_etrace_decoder *d) {
    uint32_t n = d->held_n;
    d->held_n = 0;
    if (n && d->block(d->out, d->held_start, d->held_end, n) != 0 && !d->error)
        d->error = RVT_E_IO;
}

static void record_block(rvt_etrace_decoder *d, uint64_t start, uint64_t end, uint32_t n);

static void emit_block(rvt_etrace_decoder *d, uint64_t start, uint64_t end, uint32_t n) {
    if (d->recording)
        record_block(d, start, end, n);
    if (d->held_n && start == d->held_end && n <= UINT32_MAX - d->held_n) {
        d->held_end = end;
        d->held_n += n;
        return;
    }
    send_held(d);
    d->held_start = start;
    d->held_end = end;
    d->held_n = n;
}

/* Emitted even after an error: it was reported before the error. */
static void flush_pending(rvt_etrace_decoder *d) {
    if (!d->has_pending)
        return;
    d->has_pending = false;
    if (!d->block) {
        if (d->sink && d->sink(d->out, d->pending) != 0 && !d->error)
            d->error = RVT_E_IO;
        return;
    }
    const rvt_run *r = rvt_run_at(d->runs, d->pending);
    unsigned len = r->n ? ((r->wide & 1) ? 4 : 2) : r->has_end ? r->end_insn.len : 2;
    emit_block(d, d->pending, mask_addr(d, d->pending + len), 1);
}

static void report(rvt_etrace_decoder *d, uint64_t pc) {
    if (d->error)
        return;
    if (d->block || d->run) {
        flush_pending(d);
        d->pending = pc;
        d->has_pending = true;
    } else if (d->sink && d->sink(d->out, pc) != 0) {
        d->error = RVT_E_IO;
    }
}

static bool is_branch(const rvt_insn *in) { return in->cf == RVT_CF_BRANCH; }
static bool is_inferable_jump(const rvt_insn *in) { return in->op == RVT_OP_JAL; }
static bool is_uninferable_jump(const rvt_insn *in) { return in->op == RVT_OP_JALR && in->rs1 != 0; }
static bool is_xret(const rvt_insn *in) { return in->cf == RVT_CF_XRET; }
static bool is_uninferable_discon(const rvt_insn *in) { return is_uninferable_jump(in) || is_xret(in); }
static bool without_stack(const rvt_etrace_decoder *d);

/* Calls push their return address, as the encoder counts them. A co-routine
 * swap is neither call nor return to the counter or the stack (the encoder
 * reports its target): only without either, where every swap is left to us,
 * does its link serve a later return. */
static bool pushes_return(const rvt_etrace_decoder *d, const rvt_insn *in) {
    return in->jclass == RVT_JUMP_CALL || (in->jclass == RVT_JUMP_SWAP && without_stack(d));
}

/* The bit transmitted just before a flag: address MSB, then notify, then
 * updiscon. A flag is "set" when it differs from that bit. */
static unsigned address_msb(const rvt_etrace_decoder *d, const rvt_te_inst *t) {
    return (unsigned)(t->address >> (rvt_etrace_addr_width(&d->p) - 1)) & 1;
}
static bool notify_set(const rvt_etrace_decoder *d, const rvt_te_inst *t) { return t->notify != address_msb(d, t); }
static bool updiscon_set(const rvt_te_inst *t) { return t->updiscon != t->notify; }
static bool irreport_set(const rvt_te_inst *t) { return t->irreport != t->updiscon; }

static uint64_t mask_addr(const rvt_etrace_decoder *d, uint64_t a) {
    return d->xlen == 32 ? (uint32_t)a : a;
}

/* Implicit return: in implicit-return mode the encoder leaves out the
 * targets of returns and co-routine swaps (jumps through x1/x5) that the
 * decoder can predict: from the value of the register when the code walked so
 * far determines it, else from the decoder's own stack of call sites. */
/* No call counter and no return stack: the reference encoder's mode in
 * which every return and swap is left implicit. */
static bool without_stack(const rvt_etrace_decoder *d) {
    return d->p.return_stack_size == 0 && d->p.call_counter_size == 0;
}

/* The return stack's i-th entry from the bottom. */
static uint64_t *stack_entry(const rvt_etrace_decoder *d, unsigned i) {
    return &d->stack[(d->base + i) & d->stack_mask];
}

static bool implicit_target(rvt_etrace_decoder *d, const rvt_insn *in, const rvt_te_inst *t, uint64_t *target) {
    if (!d->o.implicit_return || in->op != RVT_OP_JALR ||
        (in->jclass != RVT_JUMP_RETURN && (in->jclass != RVT_JUMP_SWAP || !without_stack(d))))
        return false;
    if (t && t->format != 3 && irreport_set(t) && t->irdepth == d->depth)
        return false; /* the encoder says this one was mispredicted */
    bool known = d->known >> in->rs1 & 1;
    if (!without_stack(d)) {
        /* With a counter or stack the encoder predicted exactly when its
         * depth was non-zero, which ours mirrors. */
        if (d->depth == 0)
            return false;
        uint64_t top = *stack_entry(d, --d->depth);
        *target = known ? (d->reg[in->rs1] + (uint64_t)in->imm) & ~1ull : top;
        return true;
    }
    /* A return or a swap takes the top entry (a swap then pushes its own
     * link, as the resumption it will come back to) */
    bool popped = d->depth > 0;
    uint64_t top = popped ? *stack_entry(d, --d->depth) : 0;
    if (known)
        *target = (d->reg[in->rs1] + (uint64_t)in->imm) & ~1ull;
    else if (popped)
        *target = top;
    return known || popped;
}

static bool writes_xreg(const rvt_insn *in) {
    unsigned op = in->op;
    if (in->rd == 0 || in->cf == RVT_CF_BRANCH)
        return false;
    if ((op >= RVT_OP_SB && op <= RVT_OP_SD) || op == RVT_OP_FSW || op == RVT_OP_FSD || op == RVT_OP_FLW ||
        op == RVT_OP_FLD || op == RVT_OP_FENCE || op == RVT_OP_FENCE_TSO || op == RVT_OP_FENCE_I ||
        op == RVT_OP_SFENCE_VMA || op == RVT_OP_ECALL || op == RVT_OP_EBREAK || in->cf == RVT_CF_XRET ||
        op == RVT_OP_WFI || op == RVT_OP_SCTRCLR)
        return false;
    if (op >= RVT_OP_FMADD_S && op <= RVT_OP_FMV_D_X) /* only the FP ops with an integer result */
        return op == RVT_OP_FMV_X_W || op == RVT_OP_FMV_X_D || op == RVT_OP_FCLASS_S || op == RVT_OP_FCLASS_D ||
               (op >= RVT_OP_FEQ_S && op <= RVT_OP_FLE_S) || (op >= RVT_OP_FEQ_D && op <= RVT_OP_FLE_D) ||
               (op >= RVT_OP_FCVT_W_S && op <= RVT_OP_FCVT_WU_S) || op == RVT_OP_FCVT_L_S ||
               op == RVT_OP_FCVT_LU_S || op == RVT_OP_FCVT_W_D || op == RVT_OP_FCVT_WU_D ||
               op == RVT_OP_FCVT_L_D || op == RVT_OP_FCVT_LU_D;
    return true;
}

static uint64_t sx32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)v; }

/* Register values after `in` executed at `pc`. */
static void track(rvt_etrace_decoder *d, const rvt_insn *in, uint64_t pc) {
    if (!writes_xreg(in))
        return;
    unsigned rd = in->rd;
    bool k1 = d->known >> in->rs1 & 1, k2 = d->known >> in->rs2 & 1;
    uint64_t a = d->reg[in->rs1], b = d->reg[in->rs2], v = 0;
    bool ok = false;
    switch (in->op) {
    case RVT_OP_LUI: v = (uint64_t)in->imm, ok = true; break;
    case RVT_OP_AUIPC: v = pc + (uint64_t)in->imm, ok = true; break;
    case RVT_OP_JAL: case RVT_OP_JALR: v = pc + in->len, ok = true; break;
    case RVT_OP_ADDI: v = a + (uint64_t)in->imm, ok = k1; break;
    case RVT_OP_ADDIW: v = sx32(a + (uint64_t)in->imm), ok = k1; break;
    case RVT_OP_ADD: v = a + b, ok = k1 && k2; break;
    case RVT_OP_SLLI: v = a << in->imm, ok = k1; break;
    case RVT_OP_LD: case RVT_OP_LW: case RVT_OP_LWU: {
        unsigned size = in->op == RVT_OP_LD ? 8 : 4;
        uint64_t m = 0;
        if (k1 && d->read_const && d->read_const(d->read_user, mask_addr(d, a + (uint64_t)in->imm), &m, size)) {
            v = in->op == RVT_OP_LW ? sx32(m) : m;
            ok = true;
        }
        break;
    }
    default: break;
    }
    if (ok) {
        d->reg[rd] = d->xlen == 32 ? sx32(v) : v;
        d->known |= 1u << rd;
    } else {
        d->known &= ~(1u << rd);
    }
}

static void push_return(rvt_etrace_decoder *d, uint64_t link) {
    if (!d->o.implicit_return)
        return;
    if (d->depth == d->stack_max) {
        d->base = (d->base + 1) & d->stack_mask;
        d->depth--;
    }
    *stack_entry(d, d->depth++) = link;
}


/* Advances pc past one instruction (`known`: the instruction at pc, when the
 * caller has it); true when it reached `address` through an uninferable
 * discontinuity (the reported target). */
static bool next_pc(rvt_etrace_decoder *d, uint64_t address, const rvt_te_inst *t, const rvt_insn *known) {
    rvt_insn in, prev;
    uint64_t this_pc = d->pc;
    bool stop = false;
    if (known)
        in = *known;
    else if (!get(d, d->pc, &in))
        return true;
    uint64_t target;
    bool implicit = false;
    if (is_inferable_jump(&in)) {
        d->pc = mask_addr(d, d->pc + (uint64_t)in.imm);
    } else if (implicit_target(d, &in, t, &target)) {
        d->pc = mask_addr(d, target);
        implicit = true;
    } else if (d->o.si_jump && is_uninferable_jump(&in) && d->fetch(d->user, d->last_pc, &prev) &&
               (prev.op == RVT_OP_LUI || prev.op == RVT_OP_AUIPC) && prev.rd == in.rs1) {
        rvt_seq_inferable_target(&prev, d->last_pc, &in, d->xlen, &d->pc);
    } else if (is_uninferable_discon(&in)) {
        if (d->stop_at_last_branch) {
            fail(d, "uninferable discontinuity while only branches were expected", d->pc);
            return true;
        }
        d->pc = address;
        stop = true;
        if (use_jtc(d)) { /* the encoder keeps every reported jump target */
            unsigned idx = rvt_jtc_index(d->p.cache_size, d->p.iaddress_lsb, address);
            d->jtc[idx] = address;
            d->jtc_valid[idx] = 1;
        }
    } else if (is_branch(&in)) {
        if (d->branches == 0) {
            fail(d, "branch with no outcome left in the branch map", d->pc);
            return true;
        }
        bool taken = !(d->branch_map & 1);
        if (d->bp_skip) {
            d->bp_skip--;
        } else if (d->bp_fail_first) {
            taken = !rvt_bpred_predict(d->bpred, d->p.bpred_size, d->p.iaddress_lsb, d->pc);
            d->bp_fail_first = false;
        } else if (d->bp_left) {
            taken = rvt_bpred_predict(d->bpred, d->p.bpred_size, d->p.iaddress_lsb, d->pc);
            d->bp_left--;
        } else if (d->bp_fail) {
            taken = !rvt_bpred_predict(d->bpred, d->p.bpred_size, d->p.iaddress_lsb, d->pc);
            d->bp_fail = false;
        }
        if (use_bpred(d))
            rvt_bpred_update(d->bpred, d->p.bpred_size, d->p.iaddress_lsb, d->pc, taken);
        d->branch_map >>= 1;
        d->branches--;
        d->pc = mask_addr(d, taken ? d->pc + (uint64_t)in.imm : d->pc + in.len);
    } else {
        d->pc = mask_addr(d, d->pc + in.len);
    }
    if (d->o.implicit_return) { /* call sites and register values serve implicit returns only */
        if (pushes_return(d, &in))
            push_return(d, this_pc + in.len);
        track(d, &in, this_pc);
    }
    d->last_pc = this_pc;
    d->last_implicit = implicit;
    return stop;
}

/* Branches still to process, except the one of a branch at `addr` itself. */
static bool unprocessed_branches(rvt_etrace_decoder *d, uint64_t addr) {
    rvt_insn in;
    bool br = d->fetch(d->user, addr, &in) && is_branch(&in);
    return d->branches != (br ? 1u : 0u);
}

/* Without sequential jumps nothing but the position and (for implicit
 * returns) the register values matter in straight-line code: the linear
 * instructions after pc and the instruction that ends their run are passed
 * at once, unless the reported
 * address lies among them (where the walk may have to stop). The walk then
 * stands on the run's last instruction, `*end` (NULL when the run has no
 * known end: it stops before its last linear one). `*n` counts the
 * instructions walked. Where there is nothing to pass (false), `*end` may
 * still be the instruction at pc, which the run cache knows. */
static bool pass_straight_code(rvt_etrace_decoder *d, uint64_t address, uint32_t *n, const rvt_insn **end) {
    const rvt_run *r = rvt_run_at(d->runs, d->pc);
    uint32_t count = r->has_end ? r->n : r->n - 1; /* instructions to report */
    if (r->n == 0 && r->has_end)
        *end = &r->end_insn; /* nothing to pass: the walk steps over this one, known already */
    if (r->n == 0 || count == 0)
        return false;
    uint64_t stop = r->has_end ? r->end : rvt_run_last(r, mask_addr(d, ~0ull));
    if (address > r->start && address <= stop)
        return false;
    uint64_t first = mask_addr(d, r->start + ((r->wide & 1) ? 4 : 2));
    uint64_t after = r->has_end ? mask_addr(d, r->end + r->end_insn.len) : r->end;
    d->last_pc = r->has_end ? rvt_run_last(r, mask_addr(d, ~0ull)) : rvt_run_addr(d->runs, r, count - 1);
    if (d->block) {
        if (d->has_pending && d->pending == r->start) {
            d->has_pending = false;
            emit_block(d, r->start, after, count + 1);
        } else {
            flush_pending(d);
            emit_block(d, first, after, count);
        }
    } else if (d->run) {
        /* the instructions after the run's first: its other linear ones and
         * the one that ends it; the first too where it waits (report) */
        uint64_t wide = count < 64 ? (r->wide >> 1) & ((UINT64_C(1) << count) - 1) : r->wide >> 1;
        if (r->has_end && r->end_insn.len == 4)
            wide |= UINT64_C(1) << (count - 1);
        uint64_t from = first;
        uint32_t k = count;
        if (d->has_pending && d->pending == r->start && count < RVT_RUN_MAX) {
            d->has_pending = false;
            from = r->start;
            wide = wide << 1 | (r->wide & 1);
            k++;
        }
        flush_pending(d);
        if (!d->error && d->run(d->out, from, k, wide) != 0)
            d->error = RVT_E_IO;
    } else {
        uint64_t pc = r->start;
        for (uint32_t i = 0; i < count && !d->error; i++) {
            pc = mask_addr(d, pc + ((r->wide >> i) & 1 ? 4 : 2));
            report(d, pc);
        }
    }
    if (d->o.implicit_return) { /* the register values of the instructions stepped over */
        uint64_t pc = r->start;
        for (uint32_t i = 0; i < count; i++) {
            rvt_insn in;
            if (d->fetch(d->user, pc, &in))
                track(d, &in, pc);
            pc = mask_addr(d, pc + ((r->wide >> i) & 1 ? 4 : 2));
        }
    }
    d->pc = stop;
    d->last_implicit = false;
    *end = r->has_end ? &r->end_insn : NULL;
    *n += count - 1;
    return true;
}

/* The previous packet's address was only provisional: walk on from it to
 * its second occurrence (`t` is the packet that says so). */
static void walk_to_second_occurrence(rvt_etrace_decoder *d, const rvt_te_inst *t) {
    uint64_t previous = d->pc;
    /* the new packet's "only branches from here" starts after this walk */
    bool only_branches = d->stop_at_last_branch;
    d->stop_at_last_branch = false;
    for (uint32_t n = 0; n < MAX_WALK && d->inferred_address && !d->error; n++) {
        if (next_pc(d, previous, t, NULL))
            d->inferred_address = false;
        report(d, d->pc);
    }
    d->stop_at_last_branch = only_branches;
}

/* A walk into a block sink that reads and changes nothing but the path,
 * the branch outcomes and the blocks: no return stack or register values
 * (implicit return), predictor, jump targets or instruction before
 * (sequential jumps), and no predicted branches due. */
static bool plain_walk(const rvt_etrace_decoder *d) {
    return d->block && !d->o.implicit_return && !d->o.branch_prediction && !d->o.jump_target_cache &&
           !d->o.si_jump && !d->bp_skip && !d->bp_left && !d->bp_fail && !d->bp_fail_first;
}

/* The steps most of a plain walk is made of: a straight run ending in a
 * conditional branch or a direct jump whose successor is not the reported
 * address. Each goes as the loop in follow() would take it
 * (pass_straight_code, next_pc, report), the same blocks, state and count
 * `*n`; anything else is left to that loop. A walk that is to stop at the
 * last branch (a full branch map without an address) leaves a run ending in
 * that branch to the loop too, and ends (true) where that loop's check after
 * a step would end it: on the last branch, with its outcome unused. */
static bool quick_steps(rvt_etrace_decoder *d, uint64_t address, uint32_t *n) {
    /* The path state in locals, written back once (the block sink, called
     * through a pointer, would make every step read it again). */
    uint64_t pc = d->pc, map = d->branch_map, last_pc = d->last_pc;
    unsigned branches = d->branches;
    const bool stop_at_last = d->stop_at_last_branch;
    bool pending = d->has_pending, stepped = false, ends = false;
    uint32_t count = *n;
    if (pending && d->pending != pc)
        return false;
    while (count + RVT_RUN_MAX + 1 < MAX_WALK && !d->error) {
        const rvt_run *r = rvt_run_at(d->runs, pc);
        if (!r->has_end || (r->n && address > r->start && address <= r->end))
            break;
        const rvt_insn *e = &r->end_insn;
        bool branch = is_branch(e);
        uint64_t next;
        if (branch && branches) {
            if (branches == 1 && stop_at_last)
                break;
            next = mask_addr(d, r->end + ((map & 1) ? (uint64_t)e->len : (uint64_t)e->imm));
        } else if (is_inferable_jump(e)) {
            next = mask_addr(d, r->end + (uint64_t)e->imm);
        } else {
            break;
        }
        if (next == address)
            break;
        uint64_t after = mask_addr(d, r->end + e->len);
        if (pending) /* the run's first instruction, reported by the step before */
            emit_block(d, r->start, after, r->n + 1u);
        else if (r->n)
            emit_block(d, mask_addr(d, r->start + ((r->wide & 1) ? 4 : 2)), after, r->n);
        if (branch) {
            map >>= 1;
            branches--;
        }
        last_pc = r->end;
        stepped = true;
        pc = next;
        pending = !d->error;
        count += r->n ? r->n : 1u;
        if (branches == 1 && stop_at_last) {
            const rvt_run *at = rvt_run_at(d->runs, next); /* a branch there: a run of none ending in it */
            if (at->n == 0 && at->has_end && is_branch(&at->end_insn)) {
                ends = true;
                break;
            }
        }
    }
    if (stepped) {
        d->pc = pc;
        d->branch_map = map;
        d->branches = branches;
        d->last_pc = last_pc;
        d->last_implicit = false;
        d->has_pending = pending;
        if (pending)
            d->pending = pc;
        *n = count;
    }
    return ends;
}

static void follow(rvt_etrace_decoder *d, uint64_t address, const rvt_te_inst *t) {
    walk_to_second_occurrence(d, t);
    bool quick = plain_walk(d);
    for (uint32_t n = 0; n < MAX_WALK; n++) {
        if (quick && quick_steps(d, address, &n)) {
            d->stop_at_last_branch = false; /* its successor is not known yet */
            return;
        }
        if (d->error)
            return;
        const rvt_insn *known = NULL;
        if (pass_straight_code(d, address, &n, &known)) {
            if (!known)
                continue;
            /* On the run's last instruction, which is not `address`: what the
             * walk checks after each step, then that instruction's step. */
            if (d->error)
                return;
            if (d->branches == 1 && d->stop_at_last_branch && is_branch(known)) {
                d->stop_at_last_branch = false;
                return;
            }
        }
        bool stop = next_pc(d, address, t, known);
        if (d->error)
            return;
        report(d, d->pc);
        rvt_insn in;
        if (d->branches == 1 && d->stop_at_last_branch && d->fetch(d->user, d->pc, &in) && is_branch(&in)) {
            d->stop_at_last_branch = false; /* its successor is not known yet */
            return;
        }
        if (stop) {
            if (unprocessed_branches(d, d->pc))
                fail(d, "reached the reported address with branch outcomes left over", d->pc);
            return;
        }
        if (d->pc != address || d->stop_at_last_branch || unprocessed_branches(d, d->pc))
            continue;
        if (t->format != 3) {
            if (notify_set(d, t))
                return;
            rvt_insn last;
            bool after_discon =
                !d->last_implicit && d->fetch(d->user, d->last_pc, &last) && is_uninferable_discon(&last);
            if (!after_discon && !updiscon_set(t) && (!irreport_set(t) || t->irdepth == d->depth)) {
                d->inferred_address = true; /* may not be the final occurrence */
                return;
            }
        } else {
            rvt_insn last;
            bool xret = d->fetch(d->user, d->last_pc, &last) && is_xret(&last);
            if (t->privilege == d->privilege || xret)
                return;
        }
    }
    fail(d, "the reported address was never reached", d->pc);
}

/* ---- Walks seen before ----
 * Without implicit returns, branch prediction, the jump target cache and
 * sequential jumps, a packet's walk depends only on where it starts, the
 * branch outcomes still to use, the reported address and the packet's flags
 * (the code does not change). Loops send the same packets again and again:
 * a walk that went through cleanly is kept with the blocks it gave and where
 * it left the decoder, and handed out again when it is due again. Walks of
 * more than MEMO_BLOCKS blocks are walked each time. */

#define MEMO_SLOT_BITS 16u /* two ways a set: a later walk takes the one used less lately */
#define MEMO_SLOTS (1u << MEMO_SLOT_BITS)
#define MEMO_BLOCKS 32u

enum { /* what a walk starts from besides addresses and branches, and how it ends */
    MEMO_STOP_AT_LAST_BRANCH = 1,
    MEMO_INFERRED_ADDRESS = 2,
    MEMO_NOTIFY = 4,
    MEMO_UPDISCON = 8,
    MEMO_IRREPORT = 16, /* irreport set and irdepth the decoder's depth */
    MEMO_VALID = 32,
    MEMO_PENDING = 64, /* (how it ends) an address waits for the run after it */
    MEMO_LAST_IMPLICIT = 128,
};

/* A slot is two cache lines, the key and most of the end state in the
 * first: nearly every packet of a long trace finds its walk kept, and
 * each line it reads beyond the slot's (a table of flags, the ring for the
 * last block) is one more trip to memory. */
typedef struct walk_memo {
    _Alignas(128) uint64_t pc;
    uint64_t address, branch_map;
    uint32_t branches, flags; /* flags: the key's MEMO_* (0: the slot is empty) */
    uint64_t end_pc, end_last_pc, end_branch_map, end_pending;
    uint32_t end_branches, end_flags, nblocks;
    uint32_t next;      /* the slot of the walk that came after it last time */
    uint64_t blocks;    /* where its blocks start in the ring */
    uint64_t id, insns; /* (for a walk sink) its rvt_walk_id; instructions in the blocks before the last */
    rvt_block last;     /* its last block, which the decoder holds (nblocks > 0) */
} walk_memo;
_Static_assert(sizeof(walk_memo) == 128 && offsetof(walk_memo, end_branches) == 64, "a walk's slot: two lines");

struct walk_memos {
    uint8_t recent[MEMO_SLOTS / 2]; /* of a set, the way used last */
    walk_memo slots[MEMO_SLOTS];
    rvt_block_ring ring;
};

static void record_block(rvt_etrace_decoder *d, uint64_t start, uint64_t end, uint32_t n) {
    walk_memo *m = d->recording;
    rvt_block *blocks = rvt_block_ring_at(&d->memo->ring, m->blocks);
    if (!rvt_block_keep(blocks, &m->nblocks, MEMO_BLOCKS, start, end, n)) /* (joined as emit_block joins) */
        d->recording = NULL; /* too long to keep */
}

/* Nothing outside the key decides the walk (see plain_walk), and the flow
 * goes out with none waiting. */
static bool memo_applies(const rvt_etrace_decoder *d) {
    return plain_walk(d) && !d->has_pending && !d->held_n && !d->error;
}

static uint32_t walk_flags(const rvt_etrace_decoder *d, const rvt_te_inst *t) {
    return (d->stop_at_last_branch ? MEMO_STOP_AT_LAST_BRANCH : 0) | (d->inferred_address ? MEMO_INFERRED_ADDRESS : 0) |
           (notify_set(d, t) ? MEMO_NOTIFY : 0) | (updiscon_set(t) ? MEMO_UPDISCON : 0) |
           (irreport_set(t) && t->irdepth == d->depth ? MEMO_IRREPORT : 0) | MEMO_VALID;
}

/* Whether `slot` holds the walk due (its blocks may be gone). */
static bool memo_is(const rvt_etrace_decoder *d, size_t slot, uint32_t flags) {
    const walk_memo *m = &d->memo->slots[slot];
    return m->flags == flags && m->pc == d->pc && m->address == d->address &&
           m->branch_map == d->branch_map && m->branches == d->branches;
}

/* On huge pages: the walks kept fill megabytes, and a page fault costs
 * microseconds (3 us each measured on a virtual machine, where 2600 of them
 * took a tenth of decoding coremark). */
static struct walk_memos *new_memo(void) { return rvt_huge_alloc(sizeof(struct walk_memos)); }
static void free_memo(struct walk_memos *memo) { rvt_huge_free(memo, sizeof *memo); }

/* follow() to the packet's address, for a packet with one (format 1 or 2). */
static void follow_packet(rvt_etrace_decoder *d, const rvt_te_inst *t) {
    if (!memo_applies(d) || (!d->memo && !(d->memo = new_memo()))) {
        d->memo_last = 0;
        follow(d, d->address, t);
        return;
    }
    uint32_t flags = walk_flags(d, t);
    uint64_t h = (d->pc ^ d->address * 0x9e3779b97f4a7c15ull ^ d->branch_map * 0xff51afd7ed558ccdull ^
                  ((uint64_t)d->branches << 8 | flags)) * 0xc4ceb9fe1a85ec53ull;
    const size_t set = (h >> (64 - MEMO_SLOT_BITS)) & ~(size_t)1;
    rvt_block_ring *ring = &d->memo->ring;
    size_t slot = set;
    bool same = memo_is(d, set, flags), hit = same && rvt_block_ring_holds(ring, d->memo->slots[set].blocks);
    if (!hit && memo_is(d, set + 1, flags)) {
        slot = set + 1;
        same = true;
        hit = rvt_block_ring_holds(ring, d->memo->slots[slot].blocks);
    } else if (!same) { /* a new walk: into an empty way, else the one used less lately */
        const walk_memo *ways = &d->memo->slots[set];
        slot = ways[0].flags == 0 ? set : ways[1].flags == 0 ? set + 1 : set + !d->memo->recent[set / 2];
    }
    d->memo->recent[set / 2] = (uint8_t)(slot - set);
    walk_memo *m = &d->memo->slots[slot];
    /* Loops send their packets in the same order again: each walk notes
     * the one after it, whose slot is asked for while this one's blocks go
     * out (the slots are megabytes: nearly every look is a trip to memory). */
    if (d->memo_last)
        d->memo->slots[d->memo_last - 1].next = (uint32_t)slot;
    d->memo_last = (uint32_t)slot + 1;
    if (hit) {
        const walk_memo *due = &d->memo->slots[m->next];
        __builtin_prefetch(due);
        __builtin_prefetch((const char *)due + 64);
        /* None was held before, and the kept blocks are joined already:
         * all but the last go out as they are, the last is held. */
        const rvt_block *blocks = rvt_block_ring_at(ring, m->blocks);
        if (d->walk && m->nblocks > 2) {
            if (d->walk(d->out, m->id, blocks, m->nblocks - 1, m->insns) != 0)
                d->error = RVT_E_IO;
        } else {
            for (uint32_t i = 0; i + 1 < m->nblocks && !d->error; i++)
                if (d->block(d->out, blocks[i].start, rvt_block_end(&blocks[i]), blocks[i].n) != 0)
                    d->error = RVT_E_IO;
        }
        if (m->nblocks) {
            d->held_start = m->last.start;
            d->held_end = rvt_block_end(&m->last);
            d->held_n = m->last.n;
        }
        d->pc = m->end_pc;
        d->last_pc = m->end_last_pc;
        d->branch_map = m->end_branch_map;
        d->branches = m->end_branches;
        d->pending = m->end_pending;
        d->stop_at_last_branch = m->end_flags & MEMO_STOP_AT_LAST_BRANCH;
        d->inferred_address = m->end_flags & MEMO_INFERRED_ADDRESS;
        d->has_pending = m->end_flags & MEMO_PENDING;
        d->last_implicit = m->end_flags & MEMO_LAST_IMPLICIT;
        return;
    }
    bool again = same; /* (its blocks were written over): the same id */
    m->flags = 0; /* (field by field: the blocks are filled as the walk goes) */
    m->pc = d->pc;
    m->address = d->address;
    m->branch_map = d->branch_map;
    m->branches = d->branches;
    m->nblocks = 0;
    m->blocks = rvt_block_ring_open(ring, MEMO_BLOCKS);
    d->recording = m;
    follow(d, d->address, t);
    rvt_block_ring_close(ring, m->blocks, m->nblocks);
    if (d->recording && !d->error) {
        m->end_pc = d->pc;
        m->end_last_pc = d->last_pc;
        m->end_branch_map = d->branch_map;
        m->end_branches = d->branches;
        m->end_pending = d->pending;
        m->end_flags = (d->stop_at_last_branch ? MEMO_STOP_AT_LAST_BRANCH : 0) |
                       (d->inferred_address ? MEMO_INFERRED_ADDRESS : 0) | (d->has_pending ? MEMO_PENDING : 0) |
                       (d->last_implicit ? MEMO_LAST_IMPLICIT : 0);
        rvt_block_ring_walk_end(ring, m->blocks, m->nblocks, &m->last, d->walk ? &m->insns : NULL);
        if (d->walk && !again) /* (all but the last block go to it) */
            m->id = rvt_walk_id();
        m->flags = flags; /* valid from here */
    }
    d->recording = NULL;
}

#define MAX_LOOP 65536u /* instructions of an uncounted loop looked for at the end */

/* Walking ahead without reporting, on a copy of the state that is put back
 * afterwards (tables the next sync restarts may change). */
typedef struct {
    rvt_etrace_decoder saved;
    uint64_t *stack;
} lookahead;

static bool lookahead_begin(rvt_etrace_decoder *d, lookahead *la) {
    /* (the stack's entries, which are all of it put back needs) */
    if (!(la->stack = malloc((d->depth ? d->depth : 1) * sizeof *la->stack)))
        return false;
    for (unsigned i = 0; i < d->depth; i++)
        la->stack[i] = *stack_entry(d, i);
    la->saved = *d;
    d->sink = NULL;
    d->block = NULL;
    d->run = NULL;
    d->stop_at_last_branch = false;
    return true;
}

static void lookahead_end(rvt_etrace_decoder *d, lookahead *la) {
    *d = la->saved;
    for (unsigned i = 0; i < d->depth; i++)
        *stack_entry(d, i) = la->stack[i];
    free(la->stack);
}

/* How many instructions after the reported address the code comes back to
 * it without a branch outcome or a reported target (0: it does not): the
 * packets cannot then say which of those occurrences they meant. */
static uint64_t comes_back(rvt_etrace_decoder *d) {
    lookahead la;
    if (d->error || !lookahead_begin(d, &la))
        return 0;
    uint64_t start = d->pc, len = 0;
    /* A loop that does not pass `start` (a final `j .`) ends the walk as
     * soon as it repeats: the address seen at step 2^k comes round again. */
    uint64_t mark = start;
    uint32_t next_mark = 1;
    d->branches = 0;
    for (uint32_t n = 1; n <= MAX_LOOP && !d->error; n++) {
        rvt_insn in;
        if (!d->fetch(d->user, d->pc, &in) || is_branch(&in))
            break; /* a branch would have needed an outcome in the packet */
        /* An uninferable jump stops the walk (it would have been reported)
         * unless implicit return or a sequential jump resolves it. */
        if (next_pc(d, ~0ull, NULL, NULL) || d->error)
            break;
        if (d->pc == start) {
            len = n;
            break;
        }
        if (d->pc == mark)
            break;
        if (n == next_mark) {
            mark = d->pc;
            next_mark *= 2;
        }
    }
    lookahead_end(d, &la);
    return len;
}

/* The trace ended on a provisional address: in a loop the packets do not
 * count, nothing tells in which iteration. */
static void check_end(rvt_etrace_decoder *d) {
    if (!d->inferred_address)
        return;
    uint64_t len = comes_back(d);
    d->inferred_address = false; /* the trace ended: the address stands, checked once */
    if (len) {
        d->ambiguous_ends++;
        d->ambiguous_addr = d->pc;
        d->ambiguous_len = len;
    }
}

/* A trap follows a provisional address that recurs with no packet between
 * (the same call made twice, its return the last instruction before the
 * trap: both occurrences have the same depth, so irdepth cannot tell them
 * apart). The 1.0 trap packet of an illegal instruction carries the EPC,
 * which names the occurrence: the one whose successor trapped. Without it
 * the first occurrence stands, as the specification's decoder has it, and
 * the ambiguity is counted. */
static void place_before_trap(rvt_etrace_decoder *d, const rvt_te_inst *t) {
    if (!d->inferred_address || d->start_of_trace)
        return;
    d->inferred_address = false;
    bool epc_known = (d->o.v1_layout && !t->interrupt && t->ecause == 2) ||
                     (!d->o.v1_layout && !t->thaddr && !d->o.implicit_except); /* (no address field there) */
    uint64_t epc = mask_addr(d, d->o.v1_layout ? t->tval : t->address << d->p.iaddress_lsb);
    for (unsigned tries = 0; tries < MAX_WALK; tries++) {
        uint64_t len = comes_back(d), next;
        if (!len)
            return;
        if (!epc_known) {
            d->trap_unplaced = true;
            d->ambiguous_traps++;
            if (d->ambiguous_traps == 1)
                d->ambiguous_trap_addr = d->pc;
            return;
        }
        lookahead la;
        if (!lookahead_begin(d, &la))
            return;
        bool stepped = !next_pc(d, ~0ull, NULL, NULL) && !d->error;
        next = d->pc;
        lookahead_end(d, &la);
        if (stepped && next == epc)
            return;
        for (uint64_t n = 0; n < len && !d->error; n++) { /* on to the next occurrence */
            next_pc(d, ~0ull, NULL, NULL);
            report(d, d->pc);
        }
    }
}

/* The trap's address when the packet gives the handler: ecall and ebreak
 * were reported as the last instruction; anything else trapped at (or was
 * interrupted before) the successor of the last reported instruction. */
static bool trap_address(rvt_etrace_decoder *d, const rvt_te_inst *t, uint64_t *at) {
    rvt_insn in;
    if (!d->fetch(d->user, d->pc, &in))
        return false;
    if (!t->interrupt && in.cf == RVT_CF_TRAP) {
        *at = d->pc;
        return true;
    }
    lookahead la;
    if (!lookahead_begin(d, &la))
        return false;
    bool known = !next_pc(d, ~0ull, NULL, NULL) && !d->error;
    *at = d->pc;
    lookahead_end(d, &la);
    return known;
}

/* The last reported instruction retired before the trap (an ecall or ebreak
 * is the trapping one): its call or return and the register it writes still
 * count for implicit return, although the walk stopped on it. */
static void retire_before_trap(rvt_etrace_decoder *d) {
    rvt_insn in;
    uint64_t target;
    if (!d->o.implicit_return || !d->fetch(d->user, d->pc, &in) || in.op == RVT_OP_ILLEGAL ||
        in.cf == RVT_CF_TRAP)
        return;
    implicit_target(d, &in, NULL, &target); /* pops the stack for a return */
    if (pushes_return(d, &in))
        push_return(d, d->pc + in.len);
    track(d, &in, d->pc);
}

/* Whether the code leads from pc to `addr` the way the packets leave it
 * to the decoder: without a branch (whose outcome would have been sent) or
 * a jump implicit return does not resolve (whose target would have been). */
static bool leads_to(rvt_etrace_decoder *d, uint64_t addr) {
    lookahead la;
    if (d->error || !lookahead_begin(d, &la))
        return false;
    bool there = false;
    uint64_t mark = d->pc;
    uint32_t next_mark = 1;
    for (uint32_t n = 1; n <= MAX_LOOP && !d->error; n++) {
        rvt_insn in;
        if (!d->fetch(d->user, d->pc, &in) || is_branch(&in) || next_pc(d, ~0ull, NULL, NULL) || d->error)
            break;
        if (d->pc == addr) {
            there = true;
            break;
        }
        if (d->pc == mark) /* round a loop that does not pass addr */
            break;
        if (n == next_mark) {
            mark = d->pc;
            next_mark *= 2;
        }
    }
    lookahead_end(d, &la);
    return there;
}

static rvt_trap_event trap_of(rvt_etrace_decoder *d, const rvt_te_inst *t) {
    rvt_trap_event ev = {.interrupt = t->interrupt, .has_cause = true, .cause = t->ecause, .unplaced = d->trap_unplaced};
    d->trap_unplaced = false;
    ev.has_tval = d->o.v1_layout || !t->interrupt;
    ev.tval = ev.has_tval ? t->tval : 0;
    return ev;
}

static void report_trap(rvt_etrace_decoder *d, const rvt_trap_event *ev) {
    flush_pending(d); /* in order with the PCs */
    send_held(d);
    if (d->trap && !d->error && d->trap(d->out, ev) != 0)
        d->error = RVT_E_IO;
}

void rvt_etrace_decoder_set_trap_sink(rvt_etrace_decoder *d, rvt_trap_sink trap) { d->trap = trap; }

uint64_t rvt_etrace_decoder_ambiguous_ends(rvt_etrace_decoder *d, bool at_end, uint64_t *addr, uint64_t *loop_len) {
    if (at_end)
        check_end(d);
    if (addr)
        *addr = d->ambiguous_addr;
    if (loop_len)
        *loop_len = d->ambiguous_len;
    return d->ambiguous_ends;
}

uint64_t rvt_etrace_decoder_ambiguous_traps(const rvt_etrace_decoder *d, uint64_t *addr) {
    if (addr)
        *addr = d->ambiguous_trap_addr;
    return d->ambiguous_traps;
}

static void process_support(rvt_etrace_decoder *d, const rvt_te_inst *t) {
    d->o.implicit_return = t->ioptions & RVT_IOPT_IMPLICIT_RETURN;
    d->o.implicit_except = t->ioptions & RVT_IOPT_IMPLICIT_EXCEPT;
    d->o.full_address = t->ioptions & RVT_IOPT_FULL_ADDRESS;
    d->o.jump_target_cache = t->ioptions & RVT_IOPT_JUMP_TARGET_CACHE;
    d->o.branch_prediction = t->ioptions & RVT_IOPT_BRANCH_PREDICTION;
    if (t->qual_status != 0)
        d->start_of_trace = true;
    if (t->qual_status == 1 || t->qual_status == 2)
        check_end(d); /* ended_rep or trace lost: the last address stands */
    if (t->qual_status == 3 && d->inferred_address) { /* ended_upd: on to the next occurrence */
        uint64_t previous = d->pc;
        d->inferred_address = false;
        for (uint32_t n = 0; n < MAX_WALK && !d->error; n++) {
            bool stop = next_pc(d, previous, NULL, NULL);
            report(d, d->pc);
            if (stop)
                return;
        }
    }
}

/* Format 0 in the terms of formats 1 and 2: a jump-target-cache packet
 * becomes a format 1/2 packet with the cached address; a branch count is
 * checked here and handled by the caller. NULL after an error. */
static const rvt_te_inst *format0(rvt_etrace_decoder *d, const rvt_te_inst *t, rvt_te_inst *norm) {
    if (t->f0_subformat == 0) {
        if (!use_bpred(d) || t->branch_fmt == 1 || d->branches > 1) {
            fail(d, "branch count packet without branch prediction, or with unprocessed branches", d->pc);
            return NULL;
        }
        return t;
    }
    if (t->f0_subformat != 1 || !use_jtc(d) || t->index >= (1u << d->p.cache_size) || !d->jtc_valid[t->index]) {
        fail(d, "jump target cache index with no cached target", d->pc);
        return NULL;
    }
    *norm = *t;
    norm->format = t->branches ? 1 : 2;
    uint64_t target = d->jtc[t->index];
    unsigned lsb = d->p.iaddress_lsb, w = rvt_etrace_addr_width(&d->p);
    uint64_t a = d->o.full_address ? target >> lsb : (uint64_t)((int64_t)(target - d->address) >> lsb);
    norm->address = w < 64 ? a & ((1ull << w) - 1) : a;
    /* irreport was sent against the map's last bit (or 0): restate it
     * against updiscon = notify = the address MSB, i.e. "no flags". */
    unsigned top = t->branches ? (unsigned)(t->branch_map >> (rvt_te_branch_map_len(t->branches) - 1)) & 1 : 0;
    norm->notify = (uint8_t)address_msb(d, norm);
    norm->updiscon = norm->notify;
    norm->irreport = (uint8_t)(norm->updiscon ^ (t->irreport != top));
    return norm;
}

static int decode_packet(rvt_etrace_decoder *d, const rvt_te_inst *t, rvt_diag *diag) {
    d->diag = diag;
    if (d->error)
        return d->error;
    d->packet_index++;
    unsigned lsb = d->p.iaddress_lsb;
    if (t->format == 3) {
        if (t->subformat == 3) {
            process_support(d, t);
            return d->error;
        }
        if (t->subformat == 2) {
            d->context = t->context;
            return 0;
        }
        if (t->subformat == 1)
            place_before_trap(d, t);
        if (t->subformat == 1 && !t->thaddr && !d->o.v1_layout) {
            /* A trap reported before its handler ran: nothing retired; the
             * sync that follows gives the handler, not a path to follow. */
            if (d->handler_next && !d->start_of_trace) { /* an earlier one whose handler never ran */
                d->handler_trap.handler = mask_addr(d, t->address << lsb);
                report_trap(d, &d->handler_trap);
            }
            d->handler_next = true;
            d->handler_trap = trap_of(d, t);
            d->handler_trap.at = mask_addr(d, t->address << lsb);
            rvt_insn at;
            if (!d->start_of_trace && !t->interrupt && d->fetch(d->user, d->handler_trap.at, &at) &&
                at.cf == RVT_CF_TRAP)
                report(d, d->handler_trap.at); /* ecall and ebreak are listed, as when they end a packet */
            restart_caches(d); /* the encoder restarts them with every sync it sends */
            return 0;
        }
        /* A sync in another context that the last reported instruction
         * does not lead to: the context changed as an asynchronous
         * discontinuity (ctype 3, a change of hart say), after which the
         * encoder reported the old context's last instruction; the new one
         * starts here, with no way between. */
        bool discontinuity = t->subformat == 0 && !d->start_of_trace && !d->handler_next &&
                             t->context != d->context && !leads_to(d, mask_addr(d, t->address << lsb));
        d->inferred_address = false;
        d->address = mask_addr(d, t->address << lsb);
        if (t->subformat == 1 && d->o.implicit_except) { /* (1.0: never in the packet; 2.0: thaddr 1 here) */
            /* The handler address is not in the packet: it follows from the
             * trap vector (vectored mode adds 4 x cause for interrupts). */
            uint64_t tvec = d->has_stvec && t->privilege == 1 ? d->stvec : d->tvec; /* delegated to S */
            uint64_t base = tvec & ~3ull;
            d->address = mask_addr(d, (tvec & 1) && t->interrupt ? base + 4u * t->ecause : base);
        }
        if (d->handler_next && !d->start_of_trace) { /* the handler of the trap reported before */
            d->handler_trap.handler = d->address;
            report_trap(d, &d->handler_trap);
        } else if (t->subformat == 1 && !d->start_of_trace) {
            rvt_trap_event ev = trap_of(d, t);
            ev.handler = d->address;
            if (trap_address(d, t, &ev.at))
                report_trap(d, &ev);
        }
        if (t->subformat == 1 && !d->start_of_trace && !d->handler_next)
            retire_before_trap(d);
        if (t->subformat == 1 || d->start_of_trace) {
            d->branches = 0;
            d->branch_map = 0;
        }
        bool walk = t->subformat == 0 && !d->start_of_trace && !d->handler_next && !discontinuity;
        if (!walk)
            restart_caches(d);
        rvt_insn in;
        if (d->fetch(d->user, d->address, &in) && is_branch(&in)) {
            d->branch_map |= (uint64_t)(t->branch & 1) << d->branches;
            d->branches++;
        }
        if (walk) {
            /* the way there is the encoder's before its sync: predictions
             * and cached targets it counted on are forgotten afterwards */
            follow(d, d->address, t);
            restart_caches(d);
        } else {
            if (d->start_of_trace)
                d->known = 1; /* a new trace: only x0 is known */
            d->pc = d->address;
            d->last_pc = d->pc;
            report(d, d->pc);
        }
        d->privilege = t->privilege;
        d->context = t->context;
        d->start_of_trace = false;
        d->lost = false;
        d->handler_next = false;
        d->trap_unplaced = false;
        /* Without a counter or stack the encoder predicts every return and
         * has nothing to reset: our call stack carries on across syncs and
         * traps (a handler returns to the code it interrupted). Otherwise
         * the sync is where decoding may start: the register values go with
         * the stack, so that what follows decodes the same from here as
         * from the start of the trace (and segments decode apart). */
        if (!d->o.implicit_return || !without_stack(d)) {
            d->depth = 0;
            d->known = 1;
        }
        return d->error;
    }
    if (d->start_of_trace) {
        /* (after damage the caller knows already: its packets are skipped) */
        if (!d->lost) {
            d->lost = true;
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "packet %" PRIu64 ": expecting trace to start with format 3 (a sync), got format %u",
                                d->packet_index, t->format);
        }
        return 0;
    }
    rvt_te_inst norm;
    if (t->format == 0 && t->f0_subformat == 1 && d->inferred_address) {
        /* The walk still due from the previous address ends with a jump
         * whose target the encoder cached before it chose this index: walk
         * first (only the packet's irreport matters on the way), then look
         * the index up. */
        norm = *t;
        norm.format = t->branches ? 1 : 2;
        unsigned top = t->branches ? (unsigned)(t->branch_map >> (rvt_te_branch_map_len(t->branches) - 1)) & 1 : 0;
        norm.notify = norm.updiscon = 0;
        norm.irreport = t->irreport != top;
        walk_to_second_occurrence(d, &norm);
    }
    if (t->format == 0)
        t = format0(d, t, &norm);
    if (!t)
        return d->error;
    if (t->format == 0) { /* correctly predicted branches, then maybe a failed one */
        /* A failed branch the previous count left unprocessed comes first. */
        d->bp_fail_first = d->bp_fail && d->bp_left == 0 && d->branches == 1;
        d->bp_skip = d->bp_fail_first ? 0 : d->branches;
        d->bp_left = (uint64_t)t->branch_count + 31;
        d->bp_fail = t->branch_fmt != 2;
        d->branches += (unsigned)d->bp_left + d->bp_fail;
        d->stop_at_last_branch = t->branch_fmt == 0;
        if (t->branch_fmt == 0) {
            follow(d, d->address, t);
            return d->error;
        }
    }
    if (t->format == 2 || t->format == 0 || t->branches != 0) {
        d->stop_at_last_branch = false;
        uint64_t field = t->address << lsb;
        if (!d->o.full_address) { /* sign-extend the W-bit delta */
            unsigned w = rvt_etrace_addr_width(&d->p) + lsb;
            if (w < 64 && (field >> (w - 1)) & 1)
                field |= ~0ull << w;
            field += d->address;
        }
        d->address = mask_addr(d, field);
    }
    if (t->format == 1) {
        d->stop_at_last_branch = t->branches == 0;
        d->branch_map |= (uint64_t)t->branch_map << d->branches;
        d->branches += t->branches == 0 ? 31 : t->branches;
    }
    follow_packet(d, t);
    return d->error;
}

int rvt_etrace_decode(rvt_etrace_decoder *d, const rvt_te_inst *t, rvt_diag *diag) {
    int status = decode_packet(d, t, diag);
    flush_pending(d);
    send_held(d);
    return status ? status : d->error;
}

/* (apart: the copy of the message would be on every packet's stack) */
static __attribute__((noinline, cold)) void lost_at(rvt_etrace_decoder *d, const rvt_etrace_item *it, int rc,
                                                    rvt_diag *diag) {
    char why[sizeof diag->msg];
    snprintf(why, sizeof why, "%s", diag->msg);
    rvt_diag_set(diag, rc, "byte %" PRIu64 ": %s", it->offset, why);
    rvt_etrace_decoder_resync(d);
}

int rvt_etrace_decode_item(rvt_etrace_decoder *d, const rvt_etrace_item *it, rvt_diag *diag) {
    d->packet_index = it->index - 1; /* numbered as in the whole capture */
    int rc = rvt_etrace_decode(d, &it->pkt, diag);
    if (rc && rc != RVT_E_IO)
        lost_at(d, it, rc, diag);
    return rc;
}

/* ---- Path state, for decoding on several threads ----
 * The fields below are everything a later packet's decoding depends on; a
 * field added to the decoder's path state belongs in both functions. */

static size_t bpred_bytes(const rvt_etrace_decoder *d) { return d->bpred ? (size_t)1 << d->p.bpred_size : 0; }
static size_t jtc_entries(const rvt_etrace_decoder *d) { return d->jtc ? (size_t)1 << d->p.cache_size : 0; }

void rvt_etrace_decoder_copy_state(rvt_etrace_decoder *to, const rvt_etrace_decoder *from) {
    to->o = from->o;
    to->pc = from->pc;
    to->last_pc = from->last_pc;
    to->address = from->address;
    to->branch_map = from->branch_map;
    to->branches = from->branches;
    to->stop_at_last_branch = from->stop_at_last_branch;
    to->inferred_address = from->inferred_address;
    to->start_of_trace = from->start_of_trace;
    to->lost = from->lost;
    to->privilege = from->privilege;
    to->context = from->context;
    /* (decoders of the same parameters hold the same number of calls) */
    unsigned skip = from->depth > to->stack_max ? from->depth - to->stack_max : 0;
    for (unsigned i = skip; i < from->depth; i++)
        to->stack[i - skip] = *stack_entry(from, i);
    to->depth = from->depth - skip;
    to->base = 0;
    memcpy(to->reg, from->reg, sizeof to->reg);
    to->known = from->known;
    to->last_implicit = from->last_implicit;
    to->handler_next = from->handler_next;
    to->handler_trap = from->handler_trap;
    to->trap_unplaced = from->trap_unplaced;
    to->error = from->error;
    to->bp_skip = from->bp_skip;
    to->bp_left = from->bp_left;
    to->bp_fail_first = from->bp_fail_first;
    to->bp_fail = from->bp_fail;
    if (to->bpred && bpred_bytes(to) == bpred_bytes(from))
        memcpy(to->bpred, from->bpred, bpred_bytes(from));
    if (to->jtc && jtc_entries(to) == jtc_entries(from)) {
        memcpy(to->jtc, from->jtc, jtc_entries(from) * sizeof *to->jtc);
        memcpy(to->jtc_valid, from->jtc_valid, jtc_entries(from));
    }
}

bool rvt_etrace_decoder_same_state(const rvt_etrace_decoder *a, const rvt_etrace_decoder *b) {
    if (rvt_etrace_ioptions(&a->o) != rvt_etrace_ioptions(&b->o) || a->start_of_trace != b->start_of_trace ||
        a->error != b->error)
        return false;
    if (a->start_of_trace) /* waiting for a sync, which sets all that follows */
        return a->lost == b->lost;
    if (a->pc != b->pc || a->address != b->address || a->branch_map != b->branch_map ||
        a->branches != b->branches || a->stop_at_last_branch != b->stop_at_last_branch ||
        a->inferred_address != b->inferred_address || a->privilege != b->privilege || a->context != b->context ||
        a->last_implicit != b->last_implicit || a->handler_next != b->handler_next ||
        a->trap_unplaced != b->trap_unplaced || a->depth != b->depth)
        return false;
    for (unsigned i = 0; i < a->depth; i++)
        if (*stack_entry(a, i) != *stack_entry(b, i))
            return false;
    /* the instruction before counts only to a sequential jump */
    if (a->o.si_jump && a->last_pc != b->last_pc)
        return false;
    const rvt_trap_event *ta = &a->handler_trap, *tb = &b->handler_trap; /* (field by field: padding) */
    if (a->handler_next && (ta->interrupt != tb->interrupt || ta->has_cause != tb->has_cause ||
                            ta->has_tval != tb->has_tval || ta->cause != tb->cause || ta->tval != tb->tval ||
                            ta->at != tb->at || ta->handler != tb->handler || ta->unplaced != tb->unplaced))
        return false;
    /* register values serve implicit returns only */
    if (a->o.implicit_return) {
        if (a->known != b->known)
            return false;
        for (unsigned r = 1; r < 32; r++)
            if ((a->known >> r & 1) && a->reg[r] != b->reg[r])
                return false;
    }
    if (a->bp_skip != b->bp_skip || a->bp_left != b->bp_left || a->bp_fail_first != b->bp_fail_first ||
        a->bp_fail != b->bp_fail || bpred_bytes(a) != bpred_bytes(b) || jtc_entries(a) != jtc_entries(b))
        return false;
    if (a->bpred && memcmp(a->bpred, b->bpred, bpred_bytes(a)) != 0)
        return false;
    for (size_t i = 0; i < jtc_entries(a); i++)
        if (a->jtc_valid[i] != b->jtc_valid[i] || (a->jtc_valid[i] && a->jtc[i] != b->jtc[i]))
            return false;
    return true;
}

/* ---- The pool's view of an E-Trace decoder ---- */

static bool pool_restarts(const void *item) {
    const rvt_te_inst *t = &((const rvt_etrace_item *)item)->pkt;
    return t->format == 3 && t->subformat == 0;
}

/* The pool makes a decoder for every segment, each sharing the code caches
 * of its worker's model (which decodes nothing itself, on the same thread):
 * the walks kept go with them, or each segment would start with none. */
static void share_memo(rvt_etrace_decoder *d, const void *share_runs_of) {
    rvt_etrace_decoder *owner = (rvt_etrace_decoder *)share_runs_of; /* (made by pool_like, not const) */
    if (!owner)
        return;
    if (!owner->memo)
        owner->memo = new_memo();
    d->memo = owner->memo;
    d->shares_memo = d->memo != NULL;
}

static int pool_like(void **out, const void *model_, const void *share_runs_of, rvt_flow_log *log) {
    const rvt_etrace_decoder *model = model_;
    rvt_etrace_decoder *d;
    rvt_run_cache *runs = share_runs_of ? ((const rvt_etrace_decoder *)share_runs_of)->runs : NULL;
    if (decoder_new(&d, &model->p, &model->o, model->xlen, model->fetch, log ? rvt_flow_log_pc : NULL, model->user,
                    runs))
        return RVT_E_NOMEM;
    if (model->block) /* (walks are kept only for a block sink) */
        share_memo(d, share_runs_of);
    d->read_const = model->read_const;
    d->read_user = model->read_user;
    d->tvec = model->tvec;
    d->stvec = model->stvec;
    d->has_stvec = model->has_stvec;
    d->block = model->block; /* (marks only, without a log: this one never decodes) */
    d->walk = model->walk;
    if (log) {
        d->out = log;
        d->block = model->block ? rvt_flow_log_block : NULL;
        d->walk = model->walk ? rvt_flow_log_walk : NULL;
        d->run = rvt_flow_log_run;
        d->trap = rvt_flow_log_trap;
    }
    *out = d;
    return 0;
}

static int pool_decode(void *d, const void *item, rvt_diag *diag) { return rvt_etrace_decode_item(d, item, diag); }
static void pool_resync(void *d) { rvt_etrace_decoder_resync(d); }
static void pool_copy_state(void *to, const void *from) { rvt_etrace_decoder_copy_state(to, from); }
static bool pool_same_state(const void *a, const void *b) { return rvt_etrace_decoder_same_state(a, b); }
static void pool_add_counts(void *to, const void *from) {
    rvt_etrace_decoder *d = to;
    const rvt_etrace_decoder *seg = from;
    if (seg->ambiguous_ends) { /* the last one is the one reported */
        d->ambiguous_addr = seg->ambiguous_addr;
        d->ambiguous_len = seg->ambiguous_len;
    }
    d->ambiguous_ends += seg->ambiguous_ends;
    if (seg->ambiguous_traps && !d->ambiguous_traps) /* the first one is */
        d->ambiguous_trap_addr = seg->ambiguous_trap_addr;
    d->ambiguous_traps += seg->ambiguous_traps;
}
static void pool_free(void *d) { rvt_etrace_decoder_free(d); }

const rvt_pool_codec rvt_etrace_pool_codec = {
    sizeof(rvt_etrace_item), pool_restarts, pool_like, pool_decode, pool_resync, pool_copy_state,
    pool_same_state, pool_add_counts, pool_free, NULL,
};
