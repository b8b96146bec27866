/* N-Trace encoder -> decoder round trip on the hart model's runs of the corpus
 * programs: one run feeds an encoder per option set (BTM and HTM, call stack
 * and counter, every repetition mode, a SRC field), and each stream decoded
 * with the ELF must give the executed address sequence under the corpus
 * PC-list rule (ecall/ebreak listed, the instruction an interrupt follows
 * not), compared as flow_check.h does.
 * Two sets also get halted and reset sideband records between instructions
 * (every 997th and 1999th record): the trace stops and restarts there and
 * the decoded flow must still be the whole run.
 *
 * The call counter (implicit-return mode 1) cannot see a program that changes
 * its return address; the specification accepts that. For it a decoder error
 * (the count walks into code that contradicts it) is reported as a known
 * limit, but a silently wrong flow still fails. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/hart.h"

#include "flow_check.h"
#include "program_run.h"
#include "rvtrace/ntrace.h"

static const struct {
    const char *name;
    rvt_ntrace_options o;
    bool halts; /* with halted and reset records */
} sets[] = {
    {"btm", {.btm = true}, false},
    {"htm", {0}, false},
    {"htm repeated history", {.repeat = 2}, false},
    {"htm stack 8", {.call_stack = 8}, false},
    {"htm stack 8 repeated history", {.call_stack = 8, .repeat = 2}, false},
    {"htm stack 32 both repeats", {.call_stack = 32, .repeat = 3}, false},
    {"htm counter 8 RepeatBranch", {.call_stack = 8, .call_counter = true, .repeat = 1}, false},
    {"btm stack 4", {.btm = true, .call_stack = 4}, false},
    {"htm SRC 4 bits", {.call_stack = 8, .repeat = 2, .src_bits = 4, .src_id = 9}, false},
    {"htm periodic sync, time stamps, ownership",
     {.call_stack = 8, .repeat = 3, .sync_max = 1, .timestamps = true, .ownership = true}, false},
    {"btm periodic sync", {.btm = true, .call_stack = 2, .sync_max = 2}, false},
    {"htm MSB extension", {.call_stack = 8, .repeat = 2, .sync_max = 3, .extend_addr_msb = true}, false},
    {"htm 8-bit I-CNT", {.call_stack = 8, .repeat = 3, .icnt_bits = 8}, false},
    {"btm 6-bit I-CNT", {.btm = true, .call_stack = 4, .icnt_bits = 6}, false},
    {"htm sequential jumps", {.call_stack = 8, .repeat = 3, .seq_jump = true, .sync_max = 2}, false},
    {"btm sequential jumps, 7-bit I-CNT", {.btm = true, .seq_jump = true, .icnt_bits = 7}, false},
    {"btm all jumps", {.btm = true, .all_jumps = true}, false},
    {"htm all jumps, stack 8, repeated history", {.call_stack = 8, .repeat = 3, .all_jumps = true}, false},
    {"btm all jumps, stack 4, 6-bit I-CNT", {.btm = true, .call_stack = 4, .icnt_bits = 6, .all_jumps = true}, false},
    {"htm all jumps, sequential jumps, 8-bit I-CNT",
     {.call_stack = 8, .seq_jump = true, .icnt_bits = 8, .all_jumps = true}, false},
    {"btm all jumps, sequential jumps", {.btm = true, .call_stack = 8, .seq_jump = true, .all_jumps = true}, false},
    {"htm stack 8 repeated history, halts and resets", {.call_stack = 8, .repeat = 2}, true},
    {"btm, halts and resets", {.btm = true}, true},
};
enum { NSETS = sizeof sets / sizeof sets[0] };

typedef struct {
    rvt_ntrace_encoder *enc[NSETS];
    rvt_membuf trace[NSETS];
    flow_executed executed;
    uint64_t pending;
    bool have_pending;
    uint64_t records;     /* records seen, for placing the sideband ones */
    bool last_retired;    /* the last record retired an instruction */
    uint64_t halts, resets; /* sideband records placed (the same in every set) */
} run_ctx;

/* Records as they came, with a halted or reset record before every 997th and
 * 1999th one when both it and the one before retire instructions. */
static int push_with_halts(run_ctx *r, rvt_ntrace_encoder *enc, const rvt_retire *recs, size_t n) {
    uint64_t index = r->records;
    bool last = r->last_retired;
    for (size_t i = 0; i < n; i++, index++) {
        if (index > 0 && recs[i].ninsns && last && (index % 997 == 0 || index % 1999 == 0)) {
            rvt_retire mark = {.sideband = index % 997 == 0 ? RVT_SIDEBAND_HALTED : RVT_SIDEBAND_RESET};
            if (rvt_ntrace_encoder_push(enc, &mark, 1))
                return 1;
            if (enc == r->enc[NSETS - 1]) { /* counted once */
                r->halts += mark.sideband == RVT_SIDEBAND_HALTED;
                r->resets += mark.sideband == RVT_SIDEBAND_RESET;
            }
        }
        if (rvt_ntrace_encoder_push(enc, &recs[i], 1))
            return 1;
        last = recs[i].ninsns != 0;
    }
    return 0;
}

/* The corpus PC list, kept one address behind: an interrupt drops the
 * instruction it follows. */
static int run_sink(void *user, const rvt_retire *recs, size_t n) {
    run_ctx *r = user;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *rec = &recs[i];
        if (rec->ninsns == 0 && rec->itype == RVT_ITYPE_INTERRUPT) {
            r->have_pending = false;
            continue;
        }
        if (rec->ninsns == 0 && !rvt_retire_is_env_trap(rec))
            continue;
        if (r->have_pending)
            flow_executed_add(&r->executed, r->pending);
        r->pending = rec->iaddr;
        r->have_pending = true;
    }
    for (int s = 0; s < NSETS; s++)
        if (sets[s].halts ? push_with_halts(r, r->enc[s], recs, n) : rvt_ntrace_encoder_push(r->enc[s], recs, n))
            return 1;
    r->records += n;
    if (n)
        r->last_retired = recs[n - 1].ninsns != 0;
    return 0;
}

typedef struct {
    rvt_image *img;
    rvt_machine *m;
    flow_decoded decoded;
    uint64_t held;
    bool have_held;
} dec_ctx;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    dec_ctx *c = user;
    return rvt_program_insn(c->img, c->m, addr, out);
}

static int pc_sink(void *user, uint64_t pc) {
    dec_ctx *c = user;
    if (c->have_held)
        flow_decoded_add(&c->decoded, c->held);
    c->held = pc;
    c->have_held = true;
    return 0;
}

static int trap_sink(void *user, const rvt_trap_event *trap) {
    dec_ctx *c = user;
    if (trap->interrupt) {
        c->have_held = false;
        return 0;
    }
    rvt_insn in;
    if (fetch(c, trap->at, &in) && in.cf == RVT_CF_TRAP)
        pc_sink(c, trap->at);
    return 0;
}

/* Whether the flows part right after a jump that pops the return stack by
 * the rules the encoder used (NexRv's: jalr x0, 0(x1) only; the spec's: a
 * return through x1 or x5, and a co-routine swap, which pops and pushes). */
static bool after_return(dec_ctx *c, bool nexrv) {
    uint64_t pc;
    rvt_insn in;
    return flow_before_parting(&c->decoded, false, &pc) && fetch(c, pc, &in) &&
           (rvt_nexus_classify_by(&in, nexrv) & RVT_NXI_RETURN);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: ntrace_roundtrip PROGRAM.elf...\n");
        return 2;
    }
    int failures = 0, limits = 0;
    for (int k = 1; k < argc; k++) {
        program_run pr;
        if (program_run_open(&pr, argv[k], 50000000 /* a program that does not terminate still gives a trace */))
            return 1;
        rvt_image *img = pr.img;
        rvt_machine *m = pr.m;
        rvt_diag d = {{0}};
        run_ctx r;
        memset(&r, 0, sizeof r);
        flow_executed_init(&r.executed);
        for (int s = 0; s < NSETS; s++)
            if (rvt_ntrace_encoder_new(&r.enc[s], &sets[s].o, rvt_image_xlen(img), rvt_membuf_append, &r.trace[s]))
                return 1;
        rvt_machine_set_sink(m, run_sink, &r);
        rvt_run_result res;
        rvt_machine_run(m, &res, &d);
        if (r.have_pending)
            flow_executed_add(&r.executed, r.pending);
        for (int s = 0; s < NSETS; s++) {
            rvt_ntrace_encoder_finish(r.enc[s], NULL);
            dec_ctx dc = {img, m, {0}, 0, false};
            flow_decoded_init(&dc.decoded, &r.executed);
            rvt_ntrace_decoder_options dopt = {.call_stack = sets[s].o.call_stack,
                                               .call_counter = sets[s].o.call_counter,
                                               .src_bits = sets[s].o.src_bits,
                                               .src_id = sets[s].o.src_bits ? (int)sets[s].o.src_id : -1,
                                               .extend_addr_msb = sets[s].o.extend_addr_msb,
                                               .seq_jump = sets[s].o.seq_jump,
                                               .all_jumps = sets[s].o.all_jumps};
            rvt_ntrace_decoder *dec;
            if (rvt_ntrace_decoder_new(&dec, &dopt, rvt_image_xlen(img), fetch, pc_sink, &dc))
                return 1;
            rvt_ntrace_decoder_set_trap_sink(dec, trap_sink);
            rvt_nexus_config ncfg = {.src_bits = sets[s].o.src_bits};
            rvt_nexus_reader rd;
            rvt_nexus_reader_init(&rd, &ncfg, r.trace[s].data, r.trace[s].len);
            rvt_nexus_msg msg;
            int rc = 0, got;
            uint64_t debug_exits = 0, reset_exits = 0;
            while (!rc && (got = rvt_nexus_next(&rd, &msg, &d)) != 0) {
                rc = got < 0 ? got : rvt_ntrace_decode(dec, &msg, &d);
                if (got > 0 && rvt_nexus_has(&msg, RVT_NXF_SYNC)) {
                    debug_exits += rvt_nexus_get(&msg, RVT_NXF_SYNC, 0) == 3;
                    reset_exits += rvt_nexus_get(&msg, RVT_NXF_SYNC, 0) == 1;
                }
            }
            /* Each halt restarts with SYNC 3, each reset (and the start) with SYNC 1. */
            if (sets[s].halts && (debug_exits != r.halts || reset_exits != r.resets + 1)) {
                failures++;
                printf("%s [%s]: %" PRIu64 " SYNC 3 and %" PRIu64 " SYNC 1 messages for %" PRIu64 " halts and %" PRIu64
                       " resets\n", argv[k], sets[s].name, debug_exits, reset_exits, r.halts, r.resets);
            }
            if (dc.have_held)
                flow_decoded_add(&dc.decoded, dc.held);
            bool same = flow_same(&dc.decoded);
            if (rc && sets[s].o.call_counter) {
                limits++;
                printf("%s [%s]: known limit of the call counter: %s\n", argv[k], sets[s].name, d.msg);
            } else if (!same && sets[s].o.call_counter && after_return(&dc, sets[s].o.nexrv)) {
                /* the count said "a return", the stack of call sites named
                 * the wrong one: a silent miss, but exactly at a return */
                limits++;
                printf("%s [%s]: known limit of the call counter: the return at %#" PRIx64 " went elsewhere\n",
                       argv[k], sets[s].name, dc.decoded.ref->pcs[dc.decoded.first_diff - 1]);
            } else if (rc || !same) {
                char where[160];
                failures++;
                printf("%s [%s]: %" PRIu64 " decoded vs %" PRIu64 " executed%s%s%s\n", argv[k], sets[s].name,
                       dc.decoded.n, r.executed.n, rc ? ": " : "", rc ? d.msg : "",
                       flow_where(&dc.decoded, where, sizeof where));
            }
            rvt_ntrace_decoder_free(dec);
            rvt_membuf_free(&r.trace[s]);
        }
        flow_executed_free(&r.executed);
        program_run_close(&pr);
    }
    printf("ntrace round trip: %d programs x %d option sets, %d failures, %d known call-counter limits\n", argc - 1,
           NSETS, failures, limits);
    return failures ? 1 : 0;
}
