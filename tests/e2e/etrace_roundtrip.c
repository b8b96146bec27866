/* Encoder -> decoder round trip on the hart model's runs of corpus and
 * generated programs, under every combination of E-Trace options the encoder
 * implements (branch prediction and the jump target cache included): the
 * decoded address sequence must equal the executed one (flow_check.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"

#include "flow_check.h"
#include "program_run.h"
#include "raw_packets.h"

#define MODES 28 /* mode 23 is left out: see configure() */

typedef struct {
    rvt_etrace_encoder *enc[MODES];
    flow_executed executed;
    uint64_t pending; /* the last record's address, listed unless an interrupt follows */
    bool have_pending, pending_env;
} run_ctx;

/* One run feeds the encoders of every mode. The executed flow lists what
 * retired (ecall and ebreak included) except an instruction an interrupt
 * record follows; that record may come in the next batch. */
static int run_sink(void *user, const rvt_retire *recs, size_t n) {
    run_ctx *r = user;
    for (size_t i = 0; i < n; i++) {
        if (r->have_pending && (r->pending_env || recs[i].itype != RVT_ITYPE_INTERRUPT || recs[i].ninsns))
            flow_executed_add(&r->executed, r->pending);
        r->pending_env = rvt_retire_is_env_trap(&recs[i]);
        r->have_pending = recs[i].ninsns || r->pending_env;
        r->pending = recs[i].iaddr;
    }
    for (unsigned mode = 0; mode < MODES; mode++)
        if (r->enc[mode] && rvt_etrace_encoder_push(r->enc[mode], recs, n))
            return 1;
    return 0;
}

/* The parameters and options of one mode; false for a mode not run. */
static bool configure(unsigned mode, unsigned xlen, rvt_etrace_params *p, rvt_etrace_options *o) {
    if (mode == 23)
        return false;
    rvt_etrace_params_default(p);
    rvt_etrace_options_default(o);
    p->iaddress_width = xlen;
    o->full_address = mode & 1;
    o->implicit_return = mode & 2;
    p->itype_width = (mode & 2) ? 4 : 3;
    /* implicit return with a call counter, or (with nocontext) a
     * return-address stack */
    p->call_counter_size = (mode & 10) == 2 ? 6 : 0;
    p->return_stack_size = (mode & 10) == 10 ? 4 : 0;
    o->v1_layout = mode & 4;
    p->nocontext = mode & 8;
    o->resync_max = (mode & 8) ? 0 : 4;
    /* 16..19: sequentially inferable jumps and implicit exceptions */
    o->si_jump = mode >= 16 && mode < 20 && (mode & 1);
    o->implicit_except = mode >= 16 && mode < 20 && (mode & 2);
    /* 20..26: branch prediction and the jump target cache (format 0),
     * with the 1.0 layout (20-22) and the 2.0 one (24-26) */
    o->branch_prediction = o->jump_target_cache = mode >= 20;
    p->bpred_size = mode >= 20 ? 5 : 0;
    p->cache_size = mode >= 20 ? 4 : 0;
    p->f0s_width = mode >= 20 ? 1 : 0;
    if (mode == 27) {
        /* implicit return with neither counter nor stack: the reference
         * encoder's mode, in which every return is left to the decoder */
        p->call_counter_size = p->return_stack_size = 0;
        o->branch_prediction = o->jump_target_cache = false;
        p->bpred_size = p->cache_size = p->f0s_width = 0;
        o->implicit_return = true;
        p->itype_width = 4;
    }
    return true;
}

typedef struct {
    rvt_image *img;
    rvt_machine *m;
    flow_decoded decoded;
    uint64_t unplaced[16]; /* decoded-flow positions of traps the decoder could not place */
    unsigned nunplaced;
} dec_ctx;

static int trap_sink(void *user, const rvt_trap_event *ev) {
    dec_ctx *c = user;
    if (ev->unplaced && c->nunplaced < 16)
        c->unplaced[c->nunplaced++] = c->decoded.n;
    return 0;
}

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    dec_ctx *c = user;
    return rvt_program_insn(c->img, c->m, addr, out);
}

static bool rom(void *user, uint64_t addr, void *buf, unsigned n) {
    return rvt_machine_read_rom(((dec_ctx *)user)->m, addr, buf, n);
}

static int pc_sink(void *user, uint64_t pc) {
    flow_decoded_add(&((dec_ctx *)user)->decoded, pc);
    return 0;
}

/* Whether the decoder reported a trap it could not place (see
 * rvt_etrace_decoder_ambiguous_traps) right where the flows part. */
static bool ambiguous_trap(const dec_ctx *c) {
    for (unsigned i = 0; i < c->nunplaced; i++)
        if (c->decoded.differs && c->decoded.first_diff == c->unplaced[i])
            return true;
    return false;
}

/* Whether the flows part (or the decoded one stops) right after a return or
 * co-routine swap. */
static bool after_return(dec_ctx *c) {
    uint64_t pc;
    rvt_insn in;
    return flow_before_parting(&c->decoded, true, &pc) && rvt_program_insn(c->img, c->m, pc, &in) &&
           (in.jclass == RVT_JUMP_RETURN || in.jclass == RVT_JUMP_SWAP);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: etrace_roundtrip PROGRAM.elf...\n");
        return 2;
    }
    int failures = 0, sets = 0, ambiguous = 0, stackless_limits = 0;
    for (int k = 1; k < argc; k++) {
        program_run pr;
        if (program_run_open(&pr, argv[k], 50000000 /* a program that does not terminate still gives a trace */))
            return 1;
        rvt_image *img = pr.img;
        rvt_machine *m = pr.m;
        rvt_diag d = {{0}};
        rvt_etrace_params p[MODES];
        rvt_etrace_options o[MODES];
        rvt_membuf trace[MODES];
        run_ctx r;
        memset(&r, 0, sizeof r);
        flow_executed_init(&r.executed);
        memset(trace, 0, sizeof trace);
        for (unsigned mode = 0; mode < MODES; mode++)
            if (configure(mode, rvt_image_xlen(img), &p[mode], &o[mode]) &&
                rvt_etrace_encoder_new(&r.enc[mode], &p[mode], &o[mode], keep_raw_packet, &trace[mode]))
                return 1;
        rvt_ref_filter *filter;
        rvt_ref_filter_new(&filter, run_sink, &r);
        rvt_machine_set_sink(m, rvt_ref_filter_sink, filter);
        rvt_run_result res;
        rvt_machine_run(m, &res, &d);
        rvt_ref_filter_free(filter);
        if (r.have_pending)
            flow_executed_add(&r.executed, r.pending);
        for (unsigned mode = 0; mode < MODES; mode++) {
            if (!r.enc[mode])
                continue;
            sets += k == 1;
            rvt_etrace_encoder_finish(r.enc[mode], NULL);
            dec_ctx dc = {img, m, {0}, {0}, 0};
            flow_decoded_init(&dc.decoded, &r.executed);
            rvt_etrace_decoder *dec;
            rvt_etrace_decoder_new(&dec, &p[mode], &o[mode], rvt_image_xlen(img), fetch, pc_sink, &dc);
            rvt_etrace_decoder_set_const_memory(dec, rom, &dc);
            rvt_etrace_decoder_set_trap_sink(dec, trap_sink);
            rvt_etrace_decoder_set_tvec(dec, rvt_machine_csr(m, 0, 0x305)); /* mtvec and stvec as the program left them */
            rvt_etrace_decoder_set_stvec(dec, rvt_machine_csr(m, 0, 0x105));
            rvt_te_raw_cursor cur = {.data = trace[mode].data, .size = trace[mode].len};
            rvt_te_inst pkt;
            int rc = 0;
            while (!rc && rvt_te_raw_next(&cur, &p[mode], &o[mode], &pkt, NULL, &d) == 1)
                rc = rvt_etrace_decode(dec, &pkt, &d);
            /* Without a counter or stack every return is left out, so a
             * program that ends in a loop closed by one gives packets that
             * cannot say which pass the run ended in (see
             * etrace_decode_limits.txt); the decoder must say so itself. */
            uint64_t loop_at = 0, loop_len = 0;
            if (!rc && mode == 27 && dc.decoded.n < r.executed.n &&
                rvt_etrace_decoder_ambiguous_ends(dec, true, &loop_at, &loop_len)) {
                ambiguous++;
                printf("%s mode %u: ends in a loop no packet counts (%" PRIu64 " instructions through %#" PRIx64
                       "), the decoder says so: %" PRIu64 " of %" PRIu64 " listed\n",
                       argv[k], mode, loop_len, loop_at, dc.decoded.n, r.executed.n);
            } else if (!rc && !flow_same(&dc.decoded) && ambiguous_trap(&dc)) {
                /* The decoder says it could not place a trap, and that is
                 * exactly where the flows part. */
                ambiguous++;
                printf("%s mode %u: a trap the packets cannot place (after %#" PRIx64 "), the decoder says so\n",
                       argv[k], mode, dc.decoded.ref->pcs[dc.decoded.first_diff - 1]);
            } else if (mode == 27 && (rc || !flow_same(&dc.decoded)) && after_return(&dc)) {
                /* Neither counter nor stack: the encoder leaves every return
                 * to the decoder, which the specification does not allow
                 * (ET "the encoder must ensure" the call was reported), so a
                 * return that does not go back to its call site (co-routines,
                 * handlers) can only be guessed. A limit of that mode, where
                 * the flows part right after a return or swap. */
                stackless_limits++;
                printf("%s mode 27: a return the stackless mode leaves to the decoder went elsewhere%s%s\n", argv[k],
                       rc ? ": " : "", rc ? d.msg : "");
            } else if (rc || !flow_same(&dc.decoded)) {
                char where[160];
                failures++;
                printf("%s mode %u (full %d, implicit return %d, counter %u, stack %u, v1 %d, nocontext %d): %" PRIu64
                       " decoded vs %" PRIu64 " executed%s%s%s\n",
                       argv[k], mode, o[mode].full_address, o[mode].implicit_return, p[mode].call_counter_size,
                       p[mode].return_stack_size, o[mode].v1_layout, p[mode].nocontext, dc.decoded.n,
                       r.executed.n, rc ? ": " : "", rc ? d.msg : "", flow_where(&dc.decoded, where, sizeof where));
            }
            rvt_etrace_decoder_free(dec);
            rvt_membuf_free(&trace[mode]);
        }
        flow_executed_free(&r.executed);
        program_run_close(&pr);
    }
    printf("etrace round trip: %d programs x %d option sets, %d failures, %d ambiguous ends or traps reported, %d "
           "guessed returns of the stackless mode\n",
           argc - 1, sets, failures, ambiguous, stackless_limits);
    return failures ? 1 : 0;
}
