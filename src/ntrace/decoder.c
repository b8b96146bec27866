/* N-Trace decoder: Nexus messages plus the program image in, the retired
 * instruction addresses out.
 *
 * Each message is applied as the specification's decoding chapter says: the
 * history bits first (walking inferable code, one bit per conditional
 * branch), then the instruction count (walking with branches not taken),
 * then the address. I-CNT counts 16-bit units since the last message that
 * carried one; a ResourceFull with history does not reset it, so the units
 * walked for those bits are remembered (`used`). Returns that the encoder's
 * stack predicted produce no message; the decoder keeps the same stack. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ntrace_internal.h"

/* Instructions a history walk may pass without meeting a branch: a real
 * path reaches one long before; a loop of direct jumps never does. */
#define MAX_STRAIGHT_WALK (1u << 20)


enum final_kind {
    FINAL_ANY,      /* the count ends on any instruction, followed when inferable */
    FINAL_TAKEN,    /* ... on a taken conditional branch (DirectBranch) */
    FINAL_INDIRECT, /* ... on the uninferable transfer the message's address completes */
    FINAL_NONE,     /* no count: history bits alone (walk_message) */
};

struct rvt_ntrace_decoder {
    rvt_ntrace_decoder_options o;
    unsigned xlen;
    rvt_code_fetch fetch;
    rvt_pc_sink sink;
    rvt_trap_sink trap;
    rvt_block_sink block;
    rvt_walk_sink walk; /* (with a block sink) */
    rvt_run_sink run;
    void *user; /* the fetch's */
    void *out;  /* the sinks' (the user, or a worker's flow log) */
    rvt_run_cache *runs; /* straight-line code, passed in one step */

    bool synced;
    bool ever_synced;     /* a full address came at some point */
    uint64_t unplaced;    /* path messages before that */
    bool have_pc; /* pc is known (kept after a correlation, lost with the path) */
    uint64_t pc, last_addr;
    uint64_t used; /* I-CNT units walked since the count was last sent */
    nx_call_stack stack;

    /* The last indirect-branch message, which a RepeatBranch repeats. */
    bool have_prev;
    uint64_t prev_icnt, prev_hist;
    unsigned prev_btype;

    /* The instruction walked last in this message (sequential jumps). */
    bool prev_valid;
    uint64_t prev_pc;

    bool have_event_addr; /* SiFive: last_addr came from an in-circuit trace event */
    /* SiFive: the walk ended on an uninferable transfer, listed already;
     * where it went comes with the next indirect-branch message */
    bool pending;
    bool just_lost; /* the last message lost the path: its pc is shown once more */
    bool event_valid;     /* the message just decoded was such an event, at event_addr */
    uint64_t event_addr;
    /* SiFive: units an I-CNT overflow (ResourceFull 0) counted that are not
     * walked yet, because a conditional branch whose history bits come in a
     * later message stood in the way; the next count includes them. */
    uint64_t carried;

    /* Ownership: the process and privilege, and whether the flow of that
     * process is walked (options.pids) */
    bool have_context;
    uint64_t context;
    unsigned priv;

    /* With a run or block sink: consecutive instructions waiting to go out
     * as one run or block (the consumer's cost is per call, not per
     * instruction); a run holds RVT_RUN_MAX at most, a block any number */
    uint64_t queue_start, queue_end, queue_wide;
    uint32_t queue_n;

    struct walk_memos *memo;     /* walks seen before (allocated with the first one kept) */
    bool shares_memo;            /* (another decoder's, not freed with this one) */
    struct walk_memo *recording; /* the slot the walk under way is written into */
    uint32_t memo_last;          /* the slot of the last message's walk, + 1 (0: none) */

    uint64_t message_units; /* units walked for the message under way (RVT_NTRACE_MAX_MESSAGE_UNITS) */

    uint64_t error_messages;
    const rvt_nexus_msg *msg;
    rvt_diag *diag;
    int status;
};

/* N-Trace's flags of an instruction a walk cannot simply pass, else 0: by
 * the specification's rules, or NexRv's. */
static unsigned nonlinear_flags_spec(const rvt_insn *in) {
    unsigned f = rvt_nexus_classify_spec(in);
    return f & ~(unsigned)RVT_NXI_SIZE4 ? f : 0;
}
static unsigned nonlinear_flags_nexrv(const rvt_insn *in) {
    unsigned f = rvt_nexus_classify(in);
    return f & ~(unsigned)RVT_NXI_SIZE4 ? f : 0;
}

int rvt_ntrace_decoder_new(rvt_ntrace_decoder **out, const rvt_ntrace_decoder_options *o, unsigned xlen,
                           rvt_code_fetch fetch, rvt_pc_sink sink, void *user) {
    if (!out || !fetch)
        return RVT_E_ARG;
    if (o && o->share_runs_of && o->share_runs_of->o.nexrv != o->nexrv)
        return RVT_E_ARG; /* the runs end where the other rules say */
    rvt_ntrace_decoder *d = calloc(1, sizeof *d);
    if (d && o && o->share_runs_of)
        d->runs = o->share_runs_of->runs;
    else if (d && rvt_run_cache_new(&d->runs, fetch, user, xlen ? xlen : 64,
                                    o && o->nexrv ? nonlinear_flags_nexrv : nonlinear_flags_spec))
        d->runs = NULL;
    if (!d || !d->runs) {
        free(d);
        return RVT_E_NOMEM;
    }
    if (o)
        d->o = *o;
    else
        d->o.src_id = -1;
    if (d->o.call_stack == 0 || d->o.call_counter)
        d->o.call_stack = RVT_NTRACE_MAX_CALL_STACK;
    if (d->o.no_implicit_return)
        d->o.call_stack = 0; /* every return's target comes in a message */
    d->xlen = xlen ? xlen : 64;
    d->fetch = fetch;
    d->sink = sink;
    d->user = user;
    d->out = user;
    rvt_ntrace_decoder_resync(d);
    *out = d;
    return 0;
}

void rvt_ntrace_decoder_resync(rvt_ntrace_decoder *d) {
    d->synced = false;
    d->have_pc = false;
    d->pending = false;
    d->used = 0;
    d->carried = 0;
    d->have_prev = false;
    /* A counter-based encoder sent no addresses: a real stack recovers them. */
    nx_stack_init(&d->stack, d->o.call_stack, false);
}

/* The fields below are everything a later message's decoding depends on;
 * a field added to the decoder's path state belongs in both functions. */
void rvt_ntrace_decoder_copy_state(rvt_ntrace_decoder *to, const rvt_ntrace_decoder *from) {
    to->synced = from->synced;
    to->ever_synced = from->ever_synced;
    to->have_pc = from->have_pc;
    to->pc = from->pc;
    to->last_addr = from->last_addr;
    to->used = from->used;
    to->stack = from->stack;
    to->have_prev = from->have_prev;
    to->prev_icnt = from->prev_icnt;
    to->prev_hist = from->prev_hist;
    to->prev_btype = from->prev_btype;
    to->have_event_addr = from->have_event_addr;
    to->pending = from->pending;
    to->just_lost = from->just_lost;
    to->carried = from->carried;
    to->have_context = from->have_context;
    to->context = from->context;
    to->priv = from->priv;
}

bool rvt_ntrace_decoder_same_state(const rvt_ntrace_decoder *a, const rvt_ntrace_decoder *b) {
    if (a->synced != b->synced || a->ever_synced != b->ever_synced || a->have_pc != b->have_pc ||
        a->used != b->used || a->pending != b->pending || a->just_lost != b->just_lost ||
        a->carried != b->carried || a->have_prev != b->have_prev || a->have_event_addr != b->have_event_addr)
        return false;
    /* an address counts only where a message can read it */
    if ((a->have_pc || a->synced || a->have_event_addr) && (a->pc != b->pc || a->last_addr != b->last_addr))
        return false;
    if (a->have_prev && (a->prev_icnt != b->prev_icnt || a->prev_hist != b->prev_hist || a->prev_btype != b->prev_btype))
        return false;
    /* the process matters where it decides what is walked */
    if (a->o.npids && (a->have_context != b->have_context || a->context != b->context))
        return false;
    return nx_stack_same(&a->stack, &b->stack);
}

void rvt_ntrace_decoder_set_trap_sink(rvt_ntrace_decoder *d, rvt_trap_sink trap) { d->trap = trap; }
void rvt_ntrace_decoder_set_block_sink(rvt_ntrace_decoder *d, rvt_block_sink block) { d->block = block; }
void rvt_ntrace_decoder_set_walk_sink(rvt_ntrace_decoder *d, rvt_walk_sink walk) { d->walk = walk; }
void rvt_ntrace_decoder_set_run_sink(rvt_ntrace_decoder *d, rvt_run_sink run) { d->run = run; }

uint64_t rvt_ntrace_decoder_error_messages(const rvt_ntrace_decoder *d) { return d->error_messages; }
uint64_t rvt_ntrace_decoder_unplaced(const rvt_ntrace_decoder *d) { return d->unplaced; }

bool rvt_ntrace_decoder_context(const rvt_ntrace_decoder *d, uint64_t *context, unsigned *priv) {
    *context = d->context;
    *priv = d->priv;
    return d->have_context;
}

static bool traced(const rvt_ntrace_decoder *d);
bool rvt_ntrace_decoder_traced(const rvt_ntrace_decoder *d) { return traced(d); }

bool rvt_ntrace_decoder_event_addr(const rvt_ntrace_decoder *d, uint64_t *addr) {
    *addr = d->event_addr;
    return d->event_valid;
}

int rvt_ntrace_decoder_next_addr(const rvt_ntrace_decoder *d, uint64_t *addr) {
    *addr = d->pc;
    return d->pending ? RVT_NEXT_PENDING : d->have_pc ? RVT_NEXT_KNOWN : RVT_NEXT_NONE;
}

static void free_memo(struct walk_memos *memo);

void rvt_ntrace_decoder_free(rvt_ntrace_decoder *d) {
    if (d && !d->o.share_runs_of)
        rvt_run_cache_free(d->runs);
    if (d && !d->shares_memo)
        free_memo(d->memo);
    free(d);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool fail(rvt_ntrace_decoder *d, const char *fmt, ...) {
    if (d->status)
        return false;
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *name = rvt_nexus_tcode_name(d->msg->tcode);
    d->status = rvt_diag_set(d->diag, RVT_E_FORMAT, "message at byte %" PRIu64 " (%s): %s", d->msg->offset,
                             name ? name : "?", what);
    return false;
}

/* `units` more walked for this message: false, failed, when that would go
 * past the bound (nothing of them goes out then). */
static bool charge(rvt_ntrace_decoder *d, uint64_t units) {
    if (units > RVT_NTRACE_MAX_MESSAGE_UNITS - d->message_units)
        return fail(d, "the message walks more than %" PRIu64 " units of 16 bits (the most one message may "
                       "account for); a count this long is damage", RVT_NTRACE_MAX_MESSAGE_UNITS);
    d->message_units += units;
    return true;
}

/* A message that repeats a walk `times` times, each of at least `units_each`
 * units: false, failed, when they cannot fit in the bound (so nothing of
 * them goes out). */
static bool repeats_fit(rvt_ntrace_decoder *d, uint64_t times, uint64_t units_each) {
    if (units_each && times > RVT_NTRACE_MAX_MESSAGE_UNITS / units_each)
        return fail(d, "%" PRIu64 " repeats of at least %" PRIu64 " units each are more than the %" PRIu64
                       " units one message may account for (damage)", times, units_each,
                    RVT_NTRACE_MAX_MESSAGE_UNITS);
    return true;
}

/* The fewest units history bits `hist` walk: one branch per bit. */
static uint64_t hist_units(uint64_t hist) { return hist > 1 ? (uint64_t)(63 - __builtin_clzll(hist)) : 0; }

static uint64_t xlen_mask(const rvt_ntrace_decoder *d, uint64_t v);
static void record_block(rvt_ntrace_decoder *d, uint64_t start, uint32_t n, uint64_t end);
static void record_stack(rvt_ntrace_decoder *d, unsigned op, uint64_t value);

/* Hands the queued instructions to the block or run sink. */
static bool flush_queue(rvt_ntrace_decoder *d) {
    uint32_t n = d->queue_n;
    d->queue_n = 0;
    if (n && (d->block ? d->block(d->out, d->queue_start, d->queue_end, n)
                       : d->run(d->out, d->queue_start, n, d->queue_wide)) != 0) {
        d->status = RVT_E_IO;
        return false;
    }
    return true;
}

/* `n` instructions from `start` (bit i of `wide`: instruction i is 32-bit)
 * up to `end`, for the block or run sink: joined to the queued ones they
 * follow. */
static bool queue_run(rvt_ntrace_decoder *d, uint64_t start, uint32_t n, uint64_t wide, uint64_t end) {
    if (d->recording)
        record_block(d, start, n, end);
    uint32_t room = d->block ? UINT32_MAX : RVT_RUN_MAX;
    if (d->queue_n && (d->queue_end != start || n > room - d->queue_n) && !flush_queue(d))
        return false;
    if (d->queue_n == 0) {
        d->queue_start = start;
        d->queue_wide = 0;
    }
    if (!d->block) { /* (a block has no sizes, and may pass 64 instructions) */
        if (n < 64)
            wide &= (UINT64_C(1) << n) - 1;
        d->queue_wide |= wide << d->queue_n;
    }
    d->queue_n += n;
    d->queue_end = end;
    return true;
}

/* One address to the block or PC sink, after what is queued. */
static bool emit_alone(rvt_ntrace_decoder *d, uint64_t pc, unsigned len) {
    if (!flush_queue(d))
        return false;
    int rc = d->block ? d->block(d->out, pc, pc + len, 1) : d->sink ? d->sink(d->out, pc) : 0;
    if (rc) {
        d->status = RVT_E_IO;
        return false;
    }
    return true;
}

/* The instruction at `pc`, `len` bytes long. */
static bool emit(rvt_ntrace_decoder *d, uint64_t pc, unsigned len) {
    if (!charge(d, len / 2))
        return false;
    if (d->block || (d->run && (len == 2 || len == 4)))
        return queue_run(d, pc, 1, len == 4, xlen_mask(d, pc + len));
    return emit_alone(d, pc, len);
}

/* Units walked: those an I-CNT overflow left owing (SiFive) come first. */
static void add_units(rvt_ntrace_decoder *d, uint64_t n) {
    uint64_t owed = n < d->carried ? n : d->carried;
    d->carried -= owed;
    d->used += n - owed;
}

/* Reports a whole run and moves past it. */
static bool pass_run(rvt_ntrace_decoder *d, const rvt_run *r) {
    if (!charge(d, r->units))
        return false;
    uint64_t pc = r->start, end = r->end;
    add_units(d, r->units);
    d->pc = end;
    if (d->o.seq_jump) {
        d->prev_valid = true;
        d->prev_pc = rvt_run_last(r, xlen_mask(d, ~0ull));
    }
    if (d->run || d->block)
        return queue_run(d, pc, r->n, r->wide, end);
    for (uint32_t i = 0; i < r->n; i++) {
        if (d->sink && d->sink(d->out, pc) != 0) {
            d->status = RVT_E_IO;
            return false;
        }
        pc = xlen_mask(d, pc + ((r->wide >> i) & 1 ? 4 : 2));
    }
    return true;
}

static bool fetch_at(rvt_ntrace_decoder *d, rvt_insn *in) {
    if (d->fetch(d->user, d->pc, in) && rvt_insn_walkable(in))
        return true;
    return fail(d, "no instruction at %#" PRIx64 " in the program image", d->pc);
}

/* trTeInstEnAllJumps: the encoder reported a direct jump as a taken branch. */
static unsigned as_reported(const rvt_ntrace_decoder *d, unsigned flags) {
    if (d->o.all_jumps && nx_direct_jump(flags))
        flags |= RVT_NXI_BRANCH;
    return flags;
}

/* The instruction at d->pc and its flags; `r` is the run just passed (or
 * empty), which usually knows it already. */
static bool insn_at(rvt_ntrace_decoder *d, const rvt_run *r, rvt_insn *in, unsigned *flags) {
    if (r->has_end && d->pc == r->end) {
        *in = r->end_insn;
        *flags = as_reported(d, r->end_class);
        return true;
    }
    if (!fetch_at(d, in))
        return false;
    *flags = as_reported(d, rvt_nexus_classify_by(in, d->o.nexrv));
    return true;
}

static uint64_t xlen_mask(const rvt_ntrace_decoder *d, uint64_t v) {
    return d->xlen == 32 ? (uint32_t)v : v;
}

/* The return-address stack as walks use it: what they do to it is noted
 * while a walk is recorded (see walk_memo). */
enum { STACK_PUSH, STACK_POP_ADDR, STACK_POP, STACK_HAS_ADDRESS, STACK_NO_ADDRESS };

static void stack_push(rvt_ntrace_decoder *d, uint64_t ret) {
    if (d->recording)
        record_stack(d, STACK_PUSH, ret);
    nx_stack_push(&d->stack, ret);
}

/* A pop whose address the walk goes on from. */
static bool stack_pop_addr(rvt_ntrace_decoder *d, uint64_t *ret) {
    if (nx_stack_pop(&d->stack, ret) != NX_POP_ADDR)
        return false;
    if (d->recording)
        record_stack(d, STACK_POP_ADDR, *ret);
    return true;
}

/* A pop whatever it gives. */
static void stack_pop(rvt_ntrace_decoder *d) {
    uint64_t ret;
    if (d->recording)
        record_stack(d, STACK_POP, 0);
    nx_stack_pop(&d->stack, &ret);
}

static bool stack_has_address(rvt_ntrace_decoder *d) {
    bool has = nx_stack_has_address(&d->stack);
    if (d->recording)
        record_stack(d, has ? STACK_HAS_ADDRESS : STACK_NO_ADDRESS, 0);
    return has;
}

/* Moves past an instruction for which the encoder sent nothing: linear code,
 * a branch whose direction is known, a direct jump, or a return its stack
 * predicted. */
/* A jump whose target the instruction before it gives (lui/auipc + jalr),
 * which the encoder leaves out under the sequential-jump option. */
static bool seq_jump(rvt_ntrace_decoder *d, const rvt_insn *in, unsigned flags, uint64_t *target) {
    rvt_insn prev;
    return (flags & RVT_NXI_INDIRECT) && d->o.seq_jump && d->prev_valid && d->fetch(d->user, d->prev_pc, &prev) &&
           rvt_seq_inferable_target(&prev, d->prev_pc, in, d->xlen, target);
}

static bool follow(rvt_ntrace_decoder *d, const rvt_insn *in, unsigned flags, bool taken) {
    uint64_t at = d->pc, next = xlen_mask(d, at + in->len), target;
    if (seq_jump(d, in, flags, &target)) {
        /* A sequential jump: the encoder left it out. */
        d->pc = target;
        if (flags & RVT_NXI_CALL)
            stack_push(d, next);
        d->prev_valid = d->o.seq_jump;
        d->prev_pc = at;
        return true;
    }
    if (flags & RVT_NXI_BRANCH) {
        if (!taken && (flags & RVT_NXI_JUMP))
            return fail(d, "the direct jump at %#" PRIx64 " is not reported as taken (all-jumps mode)", at);
        d->pc = taken ? rvt_direct_target(in, at, d->xlen) : next;
    } else if (flags & RVT_NXI_INDIRECT) {
        uint64_t ret;
        if (!(flags & RVT_NXI_RETURN))
            return fail(d, "uninferable jump at %#" PRIx64 " before the message's count ends", at);
        if (!stack_pop_addr(d, &ret))
            return fail(d, "return at %#" PRIx64 " with no message and nothing on the call stack", at);
        d->pc = ret;
    } else if (flags & RVT_NXI_JUMP) {
        d->pc = rvt_direct_target(in, at, d->xlen);
    } else {
        d->pc = next;
    }
    /* (an indirect call ends the walk, and pushes there; a co-routine swap
     * the stack predicted pushes after its pop) */
    if ((flags & RVT_NXI_CALL) && (!(flags & RVT_NXI_INDIRECT) || (flags & RVT_NXI_RETURN)))
        stack_push(d, next);
    d->prev_valid = d->o.seq_jump;
    d->prev_pc = at;
    return true;
}

/* SiFive: walking on from an uninferable transfer whose target is still to
 * come would list it twice; the messages disagree with the code. */
static bool pending_target(rvt_ntrace_decoder *d) {
    if (!d->pending)
        return false;
    fail(d, "the target of the indirect transfer at %#" PRIx64 " did not come next", d->pc);
    return true;
}

static bool walk_hist(rvt_ntrace_decoder *d, uint64_t hist) {
    if (hist <= 1)
        return true;
    if (pending_target(d))
        return false;
    for (int bit = 62 - __builtin_clzll(hist); bit >= 0; bit--) {
        bool taken = (hist >> bit) & 1;
        for (unsigned steps = 0;; steps++) {
            rvt_insn in;
            if (steps >= MAX_STRAIGHT_WALK)
                return fail(d, "no conditional branch for history bit %d after %u instructions from %#" PRIx64,
                            bit, steps, d->pc);
            const rvt_run *r = rvt_run_at(d->runs, d->pc);
            if (r->n) {
                steps += r->n;
                if (!pass_run(d, r))
                    return false;
            }
            unsigned flags;
            if (!insn_at(d, r, &in, &flags) || !emit(d, d->pc, in.len))
                return false;
            add_units(d, in.len / 2);
            if (!follow(d, &in, flags, taken))
                return false;
            if (flags & RVT_NXI_BRANCH)
                break;
        }
    }
    return true;
}

static bool walk_icnt(rvt_ntrace_decoder *d, uint64_t icnt, enum final_kind kind) {
    if (icnt >> 32)
        return fail(d, "I-CNT %#" PRIx64 " is wider than an encoder's 32-bit counter", icnt);
    if (icnt + d->carried > RVT_NTRACE_MAX_MESSAGE_UNITS)
        return fail(d, "I-CNT %" PRIu64 " is more than the %" PRIu64 " units one message may account for "
                       "(damage, or a counter far wider than the specification's 22 bits)",
                    icnt + d->carried, RVT_NTRACE_MAX_MESSAGE_UNITS);
    if (icnt + d->carried > d->used && pending_target(d))
        return false;
    icnt += d->carried;
    d->carried = 0;
    if (d->used > icnt && d->o.sifive)
        return true; /* SiFive's decoder lets the history bits outrun the count */
    if (d->used > icnt)
        return fail(d, "I-CNT %" PRIu64 " is less than the %" PRIu64 " units its history bits covered", icnt,
                    d->used);
    if (d->used == icnt && kind != FINAL_ANY)
        return fail(d, "I-CNT %" PRIu64 " leaves no instruction for the %s", icnt,
                    kind == FINAL_TAKEN ? "taken branch" : "indirect transfer");
    while (d->used < icnt) {
        rvt_insn in;
        const rvt_run *r = rvt_run_at(d->runs, d->pc);
        if (r->n && (d->used + r->units < icnt || (kind == FINAL_ANY && d->used + r->units == icnt))) {
            if (!pass_run(d, r))
                return false;
            if (d->used == icnt)
                break;
        }
        unsigned flags;
        if (!insn_at(d, r, &in, &flags))
            return false;
        unsigned units = in.len / 2;
        if (d->used + units > icnt)
            return fail(d, "I-CNT %" PRIu64 " ends inside the instruction at %#" PRIx64, icnt, d->pc);
        if (!emit(d, d->pc, in.len))
            return false;
        d->used += units;
        if (d->used < icnt || kind == FINAL_ANY) {
            uint64_t target;
            if (d->used == icnt && (flags & RVT_NXI_INDIRECT) && !seq_jump(d, &in, flags, &target) &&
                (!(flags & RVT_NXI_RETURN) || !stack_has_address(d))) {
                d->prev_valid = false;
                return true; /* the trace ends, halts or traps here; no address follows */
            }
            if (!follow(d, &in, flags, false))
                return false;
            continue;
        }
        d->prev_valid = d->o.seq_jump; /* the message's last instruction */
        d->prev_pc = d->pc;
        if (kind == FINAL_TAKEN) {
            if (!(flags & RVT_NXI_BRANCH))
                return fail(d, "I-CNT %" PRIu64 " ends at %#" PRIx64 ", which is not a conditional branch%s", icnt,
                            d->pc, nx_direct_jump(flags) ? " (a direct jump: was the trace made in all-jumps mode?)"
                                                         : "");
            if (flags & RVT_NXI_CALL) /* all-jumps mode: a direct call */
                stack_push(d, xlen_mask(d, d->pc + in.len));
            d->pc = rvt_direct_target(&in, d->pc, d->xlen);
        } else {
            if (!(flags & RVT_NXI_INDIRECT))
                return fail(d, "I-CNT %" PRIu64 " ends at %#" PRIx64 ", which is not an uninferable transfer",
                            icnt, d->pc);
            if (flags & RVT_NXI_RETURN)
                stack_pop(d); /* the encoder popped it and found it wrong */
            if (flags & RVT_NXI_CALL) /* (after the pop: a co-routine swap) */
                stack_push(d, xlen_mask(d, d->pc + in.len));
        }
    }
    return true;
}

/* SiFive's history mode records every conditional branch, so a count can
 * only be walked up to the next branch whose bit has not come yet. An I-CNT
 * overflow (ResourceFull 0) restarts the encoder's count while the history
 * of its branches is still to come: walks what is certain of the `left`
 * units owed (up to such a branch, an indirect transfer or the count) and,
 * with `carry`, leaves the rest owing for the next walk, as SiFive's decoder
 * does; a correlation (trace stops) drops it. */
static bool walk_certain(rvt_ntrace_decoder *d, uint64_t left, bool carry) {
    uint64_t used = d->used; /* these units were counted before the count restarted */
    if (left > RVT_NTRACE_MAX_MESSAGE_UNITS)
        return fail(d, "a count of %" PRIu64 " units is more than the %" PRIu64 " one message may account for",
                    left, RVT_NTRACE_MAX_MESSAGE_UNITS);
    while (left > 0 && !d->pending) {
        const rvt_run *r = rvt_run_at(d->runs, d->pc);
        if (r->n && r->units <= left) {
            if (!pass_run(d, r))
                return false;
            left -= r->units;
            continue;
        }
        rvt_insn in;
        unsigned flags;
        if (!insn_at(d, r, &in, &flags))
            return false;
        bool predicted = (flags & RVT_NXI_RETURN) && nx_stack_has_address(&d->stack);
        if ((flags & RVT_NXI_INDIRECT) && !predicted && in.len / 2u == left) {
            if (!emit(d, d->pc, in.len)) /* where it went comes later */
                return false;
            uint64_t ret;
            if (flags & RVT_NXI_RETURN)
                nx_stack_pop(&d->stack, &ret);
            if (flags & RVT_NXI_CALL)
                nx_stack_push(&d->stack, xlen_mask(d, d->pc + in.len));
            left -= in.len / 2u;
            d->pending = true;
            break;
        }
        if ((flags & RVT_NXI_BRANCH) || ((flags & RVT_NXI_INDIRECT) && !predicted) || in.len / 2u > left)
            break; /* its outcome or address comes later */
        if (!emit(d, d->pc, in.len) || !follow(d, &in, flags, false))
            return false;
        left -= in.len / 2u;
    }
    d->used = used;
    d->carried = carry ? left : 0;
    return true;
}

/* SiFive: after branch outcomes, on through what an overflow left owing,
 * as far as it is certain. */
static bool walk_owed(rvt_ntrace_decoder *d) {
    uint64_t owed = d->carried;
    d->carried = 0;
    return !d->o.sifive || !owed || walk_certain(d, owed, true);
}

/* The units a SiFive count (with what an overflow left owing) still has
 * beyond those walked for history bits; the count restarts. */
static uint64_t units_left(rvt_ntrace_decoder *d, uint64_t icnt) {
    /* (a count past the bound stays past it: walk_certain refuses it) */
    uint64_t total = icnt > RVT_NTRACE_MAX_MESSAGE_UNITS ? icnt : icnt + d->carried;
    uint64_t left = total > d->used ? total - d->used : 0;
    d->used = d->carried = 0;
    return left;
}

/* ---- Walks seen before ----
 * A message's walk (history bits, then the count) depends on where it
 * starts, the message's count and history, and what it pops off the
 * return-address stack; the code does not change. Loops send the same
 * messages again and again: a walk that went through cleanly is kept with
 * the blocks it gave, what it did to the stack and where it ended, and is
 * handed out again when it is due again from the same place with the same
 * message, after checking that the stack gives the same pops. Kept only
 * with a block sink and where nothing else decides the walk (SiFive's owed
 * counts, sequential jumps). */

#define MEMO_SLOT_BITS 14u /* direct mapped: a later walk takes the slot */
#define MEMO_SLOTS (1u << MEMO_SLOT_BITS)
#define MEMO_BLOCKS 40u
#define MEMO_STACK_OPS 8u

typedef struct {
    uint64_t value;
    unsigned op; /* STACK_* */
} memo_stack_op;

/* The key and end state in a slot's first cache line, the rest of what a
 * walk without stack operations needs in the second (as the E-Trace
 * decoder's: every line beyond them is one more trip to memory). */
typedef struct walk_memo {
    _Alignas(64) uint64_t pc;
    uint64_t left, hist; /* left: units of the count not walked when the walk started */
    uint64_t end_pc, used, end_prev_pc; /* used: units walked */
    unsigned kind;
    uint32_t nblocks, nops;
    bool valid, end_prev_valid; /* valid: the slot holds a walk */
    uint64_t blocks;    /* where its blocks start in the ring */
    uint64_t id, insns; /* (for a walk sink) its rvt_walk_id; instructions in the blocks before the last */
    rvt_block last;     /* its last block, which the decoder queues (nblocks > 0) */
    uint32_t next;      /* the slot of the walk that came after it last time */
    memo_stack_op ops[MEMO_STACK_OPS];
} walk_memo;
_Static_assert(offsetof(walk_memo, blocks) == 64, "a walk's key and end state: one line");

struct walk_memos {
    walk_memo slots[MEMO_SLOTS];
    rvt_block_ring ring;
};

static void record_block(rvt_ntrace_decoder *d, uint64_t start, uint32_t n, uint64_t end) {
    walk_memo *m = d->recording;
    rvt_block *blocks = rvt_block_ring_at(&d->memo->ring, m->blocks);
    if (!rvt_block_keep(blocks, &m->nblocks, MEMO_BLOCKS, start, end, n)) /* (joined as queue_run joins) */
        d->recording = NULL; /* too long to keep */
}

static void record_stack(rvt_ntrace_decoder *d, unsigned op, uint64_t value) {
    walk_memo *m = d->recording;
    if (m->nops == MEMO_STACK_OPS)
        d->recording = NULL;
    else
        m->ops[m->nops++] = (memo_stack_op){value, op};
}

/* What the kept walk did to the stack, done to `s`: false, with `s` put
 * back as it was, when `s` does not give the pops the walk went by. (In
 * place, not on a copy: copying the stack there and back took a fifth of
 * walk_message's time on coremark.) */
static bool replay_stack(const walk_memo *m, nx_call_stack *s) {
    const unsigned top = s->top, count = s->count;
    struct {
        unsigned at;
        uint64_t was;
    } written[MEMO_STACK_OPS]; /* the slots pushes wrote over */
    unsigned nwritten = 0;
    for (uint32_t i = 0; i < m->nops; i++) {
        const memo_stack_op *op = &m->ops[i];
        uint64_t ret;
        switch (op->op) {
        case STACK_PUSH:
            if (s->depth && !s->counter) {
                unsigned at = nx_stack_next_slot(s);
                written[nwritten].at = at;
                written[nwritten++].was = s->slot[at];
            }
            nx_stack_push(s, op->value);
            break;
        case STACK_POP_ADDR:
            if (nx_stack_pop(s, &ret) != NX_POP_ADDR || ret != op->value)
                goto undo;
            break;
        case STACK_POP: nx_stack_pop(s, &ret); break;
        default:
            if (nx_stack_has_address(s) != (op->op == STACK_HAS_ADDRESS))
                goto undo;
            break;
        }
    }
    return true;
undo:
    while (nwritten--)
        s->slot[written[nwritten].at] = written[nwritten].was;
    s->top = top;
    s->count = count;
    return false;
}

/* Where walks depend on nothing but the key: the count matters only by
 * what is left of it (units walked so far add up, SiFive's owed units
 * aside). */
static bool memo_applies(const rvt_ntrace_decoder *d, uint64_t icnt, enum final_kind kind) {
    return d->block && !d->o.sifive && !d->o.seq_jump && !d->carried && !d->pending && !d->queue_n && !d->status &&
           (kind == FINAL_NONE || (icnt >> 32 == 0 && d->used <= icnt));
}

/* On huge pages, as the E-Trace decoder's (page faults). */
static struct walk_memos *new_memo(void) { return rvt_huge_alloc(sizeof(struct walk_memos)); }
static void free_memo(struct walk_memos *memo) { rvt_huge_free(memo, sizeof *memo); }

static bool walk_uncached(rvt_ntrace_decoder *d, uint64_t icnt, uint64_t hist, enum final_kind kind) {
    return walk_hist(d, hist) && (kind == FINAL_NONE || walk_icnt(d, icnt, kind));
}

/* walk_hist, then walk_icnt to a final instruction of `kind` (none: the
 * history alone). */
static bool walk_message(rvt_ntrace_decoder *d, uint64_t icnt, uint64_t hist, enum final_kind kind) {
    if (!memo_applies(d, icnt, kind) || (!d->memo && !(d->memo = new_memo()))) {
        d->memo_last = 0;
        return walk_uncached(d, icnt, hist, kind);
    }
    uint64_t left = kind == FINAL_NONE ? 0 : icnt - d->used, used = d->used;
    uint64_t h = (d->pc ^ left * 0x9e3779b97f4a7c15ull ^ hist * 0xff51afd7ed558ccdull ^ kind) * 0xc4ceb9fe1a85ec53ull;
    const size_t slot = h >> (64 - MEMO_SLOT_BITS);
    walk_memo *m = &d->memo->slots[slot];
    rvt_block_ring *ring = &d->memo->ring;
    /* The slot of the walk due next, as the E-Trace decoder asks for it. */
    if (d->memo_last)
        d->memo->slots[d->memo_last - 1].next = (uint32_t)slot;
    d->memo_last = (uint32_t)slot + 1;
    /* (a kept walk that would go past the message's bound is walked again,
     * to stop where an uncached walk stops) */
    if (m->valid && m->pc == d->pc && m->left == left && m->hist == hist && m->kind == kind &&
        m->used <= RVT_NTRACE_MAX_MESSAGE_UNITS - d->message_units && rvt_block_ring_holds(ring, m->blocks) &&
        (!m->nops || replay_stack(m, &d->stack))) {
        d->message_units += m->used;
        const walk_memo *due = &d->memo->slots[m->next];
        __builtin_prefetch(due);
        __builtin_prefetch((const char *)due + 64);
        /* Nothing was queued before, and the kept blocks are joined already:
         * all but the last go out as they are, the last is queued. */
        const rvt_block *blocks = rvt_block_ring_at(ring, m->blocks);
        if (d->walk && m->nblocks > 2) {
            if (d->walk(d->out, m->id, blocks, m->nblocks - 1, m->insns) != 0) {
                d->status = RVT_E_IO;
                return false;
            }
        } else {
            for (uint32_t i = 0; i + 1 < m->nblocks; i++) {
                if (d->block(d->out, blocks[i].start, rvt_block_end(&blocks[i]), blocks[i].n) != 0) {
                    d->status = RVT_E_IO;
                    return false;
                }
            }
        }
        if (m->nblocks) {
            d->queue_start = m->last.start;
            d->queue_end = rvt_block_end(&m->last);
            d->queue_n = m->last.n;
        }
        d->pc = m->end_pc;
        d->used = used + m->used;
        d->prev_valid = m->end_prev_valid;
        d->prev_pc = m->end_prev_pc;
        return true;
    }
    /* the same walk again (its blocks were written over; with returns to
     * addresses from the stack, it may have gone elsewhere): the same id */
    bool again = m->valid && m->pc == d->pc && m->left == left && m->hist == hist && m->kind == kind && !m->nops;
    m->valid = false; /* (field by field: the arrays are filled as the walk goes) */
    m->pc = d->pc;
    m->left = left;
    m->hist = hist;
    m->kind = kind;
    m->nblocks = m->nops = 0;
    m->blocks = rvt_block_ring_open(ring, MEMO_BLOCKS);
    d->recording = m;
    bool ok = walk_uncached(d, icnt, hist, kind);
    rvt_block_ring_close(ring, m->blocks, m->nblocks);
    if (ok && d->recording && !d->status && !d->carried) {
        m->end_pc = d->pc;
        m->used = d->used - used;
        m->end_prev_valid = d->prev_valid;
        m->end_prev_pc = d->prev_pc;
        rvt_block_ring_walk_end(ring, m->blocks, m->nblocks, &m->last, d->walk ? &m->insns : NULL);
        if (d->walk && !again) /* (all but the last block go to it) */
            m->id = rvt_walk_id();
        m->valid = true;
    }
    d->recording = NULL;
    return ok;
}

/* IndirectBranch(Hist) and what a RepeatBranch repeats: history, count, then
 * the new address. An exception or interrupt (B-TYPE 1-3) happened after the
 * counted instructions; `btype` 4 (not on the wire) is an I-CNT overflow,
 * after which execution simply went on. */
static bool indirect(rvt_ntrace_decoder *d, uint64_t icnt, uint64_t hist, unsigned btype, uint64_t target) {
    if (d->pending) { /* the transfer was walked already (SiFive) */
        d->pending = false;
        if (hist > 1 || icnt + d->carried > d->used)
            return fail(d, "the count goes on past the indirect transfer at %#" PRIx64 " it ended on", d->pc);
    } else if (!walk_message(d, icnt, hist, btype == 0 ? FINAL_INDIRECT : FINAL_ANY)) {
        return false;
    }
    rvt_trap_event ev = {.interrupt = btype == 3, .at = d->pc, .handler = target};
    if (btype != 0 && btype != 4 && d->trap && (!flush_queue(d) || d->trap(d->out, &ev) != 0)) {
        d->status = RVT_E_IO;
        return false;
    }
    d->pc = d->last_addr = target;
    d->used = d->carried = 0;
    return true;
}

/* A synchronising message restarts the encoder's return-address stack,
 * except the markers SYNC 0 (trigger), 4 (I-CNT overflow) and 6 (event). */
static void sync_to(rvt_ntrace_decoder *d, uint64_t faddr, uint64_t sync) {
    if (!d->synced || (sync != 0 && sync != 4 && sync != 6))
        nx_stack_init(&d->stack, d->o.call_stack, false);
    /* A RepeatBranch repeats the previous branch message, which is now this
     * one; N-Trace's encoders repeat nothing across a sync. */
    if (!d->o.sifive)
        d->have_prev = false;
    d->pc = d->last_addr = xlen_mask(d, faddr << 1);
    d->used = 0;
    d->carried = 0;
    d->pending = false;
    d->synced = d->have_pc = d->ever_synced = true;
}

/* A SiFive in-circuit trace event: its address (full in 35, XORed into the
 * last address in 34) becomes the reference for the next compressed one and
 * goes to the PC sink; an inferable call with its return destination
 * (CKDF 1) leaves that destination as the reference. Control events
 * without CKDATA1 carry a code, not an address. */
static void ict_event(rvt_ntrace_decoder *d, const rvt_nexus_msg *m) {
    uint64_t reason = rvt_nexus_get(m, RVT_NXF_CKSRC, 0), ckdf = rvt_nexus_get(m, RVT_NXF_CKDF, 0);
    uint64_t data0 = rvt_nexus_get(m, RVT_NXF_CKDATA0, 0);
    if (reason == 0 && ckdf == 0)
        return;
    uint64_t addr;
    if (m->tcode == RVT_NX_ICT_SYNC) {
        addr = xlen_mask(d, data0 << 1);
    } else if (d->have_event_addr || d->synced) {
        addr = xlen_mask(d, d->last_addr ^ (data0 << 1));
    } else {
        return; /* no address to decompress against */
    }
    d->last_addr = addr;
    d->have_event_addr = true;
    d->event_valid = true;
    d->event_addr = addr;
    if (reason == 9 && ckdf == 1)
        d->last_addr = xlen_mask(d, addr ^ (rvt_nexus_get(m, RVT_NXF_CKDATA1, 0) << 1));
    emit_alone(d, addr, 2);
}

/* An F-ADDR or U-ADDR value (address bits 63:1) with the extensions the
 * options ask for: N-Trace's MSB extension, or SiFive's sign extension of
 * an `addr_bits`-bit address. */
static uint64_t addr_value(const rvt_ntrace_decoder *d, const rvt_nexus_field *f) {
    uint64_t v = rvt_nexus_addr_field(f, d->o.extend_addr_msb);
    unsigned top = d->o.addr_bits ? d->o.addr_bits - 1 : 0; /* the sign of the address, in v's bit top - 1 */
    if (top >= 2 && top < 64 && ((v >> (top - 1)) & 1))
        v |= ~UINT64_C(0) << (top - 1);
    return v;
}

/* Ownership's PROCESS field: FORMAT in bits 1:0 (0: privilege only, 2: a
 * new scontext, 3: a new hcontext), PRV in 3:2, V in 4, the context above.
 * (hcontext selects no process here: processes are told by scontext.) */
static void ownership(rvt_ntrace_decoder *d, uint64_t process) {
    unsigned format = (unsigned)(process & 3);
    d->priv = (unsigned)(process >> 2) & 7; /* V with PRV */
    if (format == 2) {
        d->context = process >> 5;
        d->have_context = true;
    }
}

/* Whether the flow of the current process is walked. */
static bool traced(const rvt_ntrace_decoder *d) {
    if (!d->o.npids)
        return true;
    for (unsigned i = 0; d->have_context && i < d->o.npids; i++)
        if (d->o.pids[i] == d->context)
            return true;
    return false;
}

/* A process that is not traced: only the addresses its messages carry are
 * followed (as SiFive's decoder does; the code may not be at hand). The
 * flow of a traced process starts again at the next full address. */
static void follow_addresses(rvt_ntrace_decoder *d, const rvt_nexus_msg *m, uint64_t faddr) {
    const rvt_nexus_field *u = rvt_nexus_find(m, RVT_NXF_UADDR);
    if (rvt_nexus_has(m, RVT_NXF_FADDR)) {
        sync_to(d, faddr, rvt_nexus_get(m, RVT_NXF_SYNC, 1));
    } else if (u && d->have_pc) {
        d->pc = d->last_addr = xlen_mask(d, d->last_addr ^ (addr_value(d, u) << 1));
    }
    d->synced = false;
    d->used = d->carried = 0;
}

int rvt_ntrace_decode(rvt_ntrace_decoder *d, const rvt_nexus_msg *m, rvt_diag *diag) {
    d->event_valid = false;
    if (d->just_lost)
        d->have_pc = d->just_lost = false;
    if (d->o.src_id >= 0 && rvt_nexus_has(m, RVT_NXF_SRC) &&
        rvt_nexus_get(m, RVT_NXF_SRC, 0) != (uint64_t)d->o.src_id)
        return 0;
    d->msg = m;
    d->diag = diag;
    d->status = 0;
    d->prev_valid = false; /* a sequential jump and its constant share one message */
    d->message_units = 0;
    uint64_t icnt = rvt_nexus_get(m, RVT_NXF_ICNT, 0);
    uint64_t hist = rvt_nexus_get(m, RVT_NXF_HIST, 1);
    unsigned btype = (unsigned)rvt_nexus_get(m, RVT_NXF_BTYPE, 0);
    if (d->o.sifive && btype == 1)
        btype = 2; /* SiFive's exception or interrupt */
    uint64_t faddr = addr_value(d, rvt_nexus_find(m, RVT_NXF_FADDR));
    uint64_t sync = rvt_nexus_get(m, RVT_NXF_SYNC, 1);
    if (m->tcode == RVT_NX_OWNERSHIP) {
        ownership(d, rvt_nexus_get(m, RVT_NXF_PROCESS, 0));
        return 0;
    }
    if (!d->ever_synced && traced(d) && !rvt_nexus_has(m, RVT_NXF_FADDR) &&
        (m->tcode == RVT_NX_DIRECT_BRANCH || m->tcode == RVT_NX_INDIRECT_BRANCH || m->tcode == RVT_NX_RESOURCE_FULL ||
         m->tcode == RVT_NX_INDIRECT_BRANCH_HIST || m->tcode == RVT_NX_REPEAT_BRANCH))
        d->unplaced++;
    /* SiFive's decoder follows the addresses while it waits for a sync */
    bool event = m->tcode == RVT_NX_ICT || m->tcode == RVT_NX_ICT_SYNC;
    if (!traced(d) || (d->o.sifive && !d->synced && !event && !rvt_nexus_has(m, RVT_NXF_FADDR))) {
        follow_addresses(d, m, faddr);
        return 0;
    }
    if (sync == 7 && rvt_nexus_has(m, RVT_NXF_FADDR) && !d->o.sifive) {
        /* Restart after the encoder's queue overran: what this message
         * counts cannot be placed, the flow goes on at its address. Unless
         * an Error message reported it already, that is a loss. */
        bool lost = d->synced;
        rvt_ntrace_decoder_resync(d);
        sync_to(d, faddr, sync);
        if (!lost)
            return 0;
        return rvt_diag_set(diag, RVT_E_FORMAT, "message at byte %" PRIu64 " (%s): SYNC 7: the encoder lost messages "
                                                "before it (queue overrun); the flow goes on at %#" PRIx64,
                            m->offset, rvt_nexus_tcode_name(m->tcode) ? rvt_nexus_tcode_name(m->tcode) : "?", d->pc);
    }
    switch (m->tcode) {
    case RVT_NX_PROG_TRACE_SYNC:
        if (d->synced && icnt && !walk_icnt(d, icnt, FINAL_ANY))
            break;
        sync_to(d, faddr, sync);
        break;
    case RVT_NX_DIRECT_BRANCH:
        if (d->synced && walk_icnt(d, icnt, FINAL_TAKEN))
            d->used = 0;
        break;
    case RVT_NX_DIRECT_BRANCH_SYNC:
        if (!d->synced || walk_icnt(d, icnt, FINAL_TAKEN))
            sync_to(d, faddr, sync);
        break;
    case RVT_NX_INDIRECT_BRANCH:
    case RVT_NX_INDIRECT_BRANCH_HIST:
        if (!d->synced)
            break;
        d->have_prev = true;
        d->prev_icnt = icnt;
        d->prev_hist = hist;
        d->prev_btype = btype;
        indirect(d, icnt, hist, btype,
                 xlen_mask(d, d->last_addr ^ (addr_value(d, rvt_nexus_find(m, RVT_NXF_UADDR)) << 1)));
        break;
    case RVT_NX_INDIRECT_BRANCH_SYNC:
    case RVT_NX_INDIRECT_BRANCH_HIST_SYNC:
        /* SYNC 4 (I-CNT overflow) reports the next address after any
         * instruction, not only after an uninferable one; so does every
         * SiFive sync reason (a periodic sync takes the place of any). */
        if (!d->synced ||
            indirect(d, icnt, hist, (sync == 4 || d->o.sifive) && btype == 0 ? 4 : btype, xlen_mask(d, faddr << 1)))
            sync_to(d, faddr, sync);
        d->have_prev = false;
        break;
    case RVT_NX_RESOURCE_FULL: {
        if (!d->synced)
            break;
        uint64_t rcode = rvt_nexus_get(m, RVT_NXF_RCODE, 0), rdata = rvt_nexus_get(m, RVT_NXF_RDATA, 0);
        if (rcode == 0 && d->o.sifive) {
            walk_certain(d, units_left(d, rdata), true);
        } else if (rcode == 0) {
            if (walk_icnt(d, rdata, FINAL_ANY))
                d->used = 0;
        } else if (rcode == 1) {
            if (walk_message(d, 0, rdata, FINAL_NONE))
                walk_owed(d);
        } else if ((rcode == 8 || rcode == 9) && d->o.sifive) {
            /* SiFive: a run of RDATA not-taken (8) or taken (9) branches */
            uint64_t k = 0;
            if (!repeats_fit(d, rdata, 1))
                break;
            while (k < rdata && walk_hist(d, rcode == 9 ? 3 : 2))
                k++;
            if (k == rdata)
                walk_owed(d);
        } else if (rcode == 2 && rdata > 1) { /* (a pattern without bits repeats nothing) */
            uint64_t times = rvt_nexus_get(m, RVT_NXF_HREPEAT, 1);
            if (!repeats_fit(d, times, hist_units(rdata)))
                break;
            for (uint64_t k = 0; k < times && walk_hist(d, rdata); k++)
                ;
        }
        break;
    }
    case RVT_NX_REPEAT_BRANCH: {
        if (!d->synced)
            break;
        if (!d->have_prev) {
            fail(d, "RepeatBranch with no earlier indirect-branch message to repeat");
            break;
        }
        uint64_t times = rvt_nexus_get(m, RVT_NXF_BCNT, 0);
        if (d->prev_icnt == 0 && d->prev_hist <= 1 && times > 1)
            times = 1; /* a message that walks nothing ends the same however often it repeats */
        if (!repeats_fit(d, times, d->prev_icnt + hist_units(d->prev_hist)))
            break;
        for (uint64_t k = 0; k < times && indirect(d, d->prev_icnt, d->prev_hist, d->prev_btype, d->last_addr);
             k++)
            ;
        break;
    }
    case RVT_NX_PROG_TRACE_CORRELATION:
        if (d->synced && (rvt_nexus_get(m, RVT_NXF_CDF, 0) != 1 || walk_hist(d, hist))) {
            if (d->o.sifive)
                walk_certain(d, units_left(d, icnt), false);
            else
                walk_icnt(d, icnt, FINAL_ANY);
        }
        d->synced = false; /* tracing stopped: the next message must carry a full address */
        d->used = 0;
        break;
    case RVT_NX_ICT:
    case RVT_NX_ICT_SYNC:
        if (d->o.sifive)
            ict_event(d, m);
        break;
    case RVT_NX_ERROR:
        d->error_messages++;
        fail(d, "the encoder lost messages (Error ETYPE %" PRIu64 ", ECODE %#" PRIx64 ")",
             rvt_nexus_get(m, RVT_NXF_ETYPE, 0), rvt_nexus_get(m, RVT_NXF_ECODE, 0));
        break;
    default:
        break; /* Ownership, vendor and reserved messages do not move the PC */
    }
    if (d->status == RVT_E_IO)
        d->queue_n = 0; /* a sink failed: nothing more goes out */
    else if (!flush_queue(d)) /* what was walked before any failure */
        return d->status;
    if (d->status && d->status != RVT_E_IO) {
        rvt_ntrace_decoder_resync(d);
        d->have_pc = d->just_lost = true; /* where it was lost, for this message's listing */
    }
    return d->status;
}

/* ---- The pool's view of an N-Trace decoder ---- */

static bool pool_restarts(const void *item) {
    /* a full address that resets the return stack (SYNC 0, 4 and 6 keep it) */
    const rvt_nexus_msg *m = item;
    if (m->tcode != RVT_NX_PROG_TRACE_SYNC && m->tcode != RVT_NX_DIRECT_BRANCH_SYNC &&
        m->tcode != RVT_NX_INDIRECT_BRANCH_SYNC && m->tcode != RVT_NX_INDIRECT_BRANCH_HIST_SYNC)
        return false;
    uint64_t sync = rvt_nexus_get(m, RVT_NXF_SYNC, 1);
    return rvt_nexus_has(m, RVT_NXF_FADDR) && sync != 0 && sync != 4 && sync != 6;
}

/* The pool makes a decoder for every segment, each sharing the code caches
 * of its worker's model (which decodes nothing itself, on the same thread):
 * the walks kept go with them, or each segment would start with none. */
static void share_memo(rvt_ntrace_decoder *d, const void *share_runs_of) {
    rvt_ntrace_decoder *owner = (rvt_ntrace_decoder *)share_runs_of; /* (made by pool_like, not const) */
    if (!owner)
        return;
    if (!owner->memo)
        owner->memo = new_memo();
    d->memo = owner->memo;
    d->shares_memo = d->memo != NULL;
}

static int pool_like(void **out, const void *model_, const void *share_runs_of, rvt_flow_log *log) {
    const rvt_ntrace_decoder *model = model_;
    rvt_ntrace_decoder_options o = model->o;
    o.share_runs_of = share_runs_of;
    rvt_ntrace_decoder *d;
    if (rvt_ntrace_decoder_new(&d, &o, model->xlen, model->fetch, log ? rvt_flow_log_pc : NULL, model->user))
        return RVT_E_NOMEM;
    if (model->block) /* (walks are kept only for a block sink) */
        share_memo(d, share_runs_of);
    d->block = model->block; /* (a mark only, without a log: this one never decodes) */
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

static int pool_decode(void *d, const void *item, rvt_diag *diag) { return rvt_ntrace_decode(d, item, diag); }
static void pool_resync(void *d) { rvt_ntrace_decoder_resync(d); }
static void pool_copy_state(void *to, const void *from) { rvt_ntrace_decoder_copy_state(to, from); }
static bool pool_same_state(const void *a, const void *b) { return rvt_ntrace_decoder_same_state(a, b); }
static void pool_add_counts(void *to, const void *from) {
    rvt_ntrace_decoder *d = to;
    const rvt_ntrace_decoder *seg = from;
    d->unplaced += seg->unplaced;
    d->error_messages += seg->error_messages;
}
static void pool_free(void *d) { rvt_ntrace_decoder_free(d); }
/* (a message's fields are read up to nfields: rvt_nexus_find) */
static size_t pool_item_bytes(const void *item) {
    const rvt_nexus_msg *m = item;
    return offsetof(rvt_nexus_msg, fields) + m->nfields * sizeof m->fields[0];
}

const rvt_pool_codec rvt_ntrace_pool_codec = {
    sizeof(rvt_nexus_msg), pool_restarts, pool_like, pool_decode, pool_resync, pool_copy_state,
    pool_same_state, pool_add_counts, pool_free, pool_item_bytes,
};
