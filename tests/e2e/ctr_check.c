/* Control transfer records against an independent view of the same run:
 * each program runs on the hart model with CTR recording in every mode while
 * its retirement stream goes through the E-Trace encoder; the packets are
 * decoded with the program binary, the decoded flow gives the transfers
 * (types from the decoded instructions, traps from the trap packets), and a
 * model of the buffer fed with them must equal the hart's CTR contents at
 * every sample point: sources, targets, types, and the cycle counts (this
 * model counts one cycle per retired instruction). The first configuration
 * also programs the performance counters (instructions, branches, jumps,
 * loads, stores, AMOs, traps), which must equal the flow's counts.
 * usage: ctr_check [--period N] [--max-insns N] [--sbi] PROGRAM.elf...
 *
 * With --sbi the programs are S-mode payloads under the SBI environment:
 * CTR records S-mode only and the counters count S-mode only (MINH, UINH),
 * which the trace, all S-mode, must match; an SBI call is a trap into the
 * disabled firmware, an external trap CTR does not record by default.
 *
 * With --hot-pairs SAMPLES PROGRAM.elf it checks `rvtrace run
 * --sample-branches` output instead: the source/target pairs that fill the
 * sampled branch stacks must occur as often as the decoded E-Trace of the
 * program says the transfers happen (hot_pairs below gives the measure). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"

#include "program_run.h"
#include "raw_packets.h"

#define MAX_DEPTH 64

/* mctrcontrol (v0.1.4) fields */
#define EN_MSU 0x7ull
#define RASEMU (1ull << 10)
#define DEPTH(enc) ((uint64_t)(enc) << 16)
#define NTBREN (1ull << 36)
#define INHIBIT(type) (1ull << (40 + (type) - 8)) /* types 8..15 */
#define TKBRINH (1ull << 37)

typedef struct {
    const char *name;
    uint64_t control;
    unsigned depth;
    bool check_cycles;
    bool counters; /* the performance counters are programmed and compared too */
} variant;

static const variant variants[] = {
    {"default filters, depth 16", EN_MSU | DEPTH(0), 16, true, true},
    {"not-taken branches, returns and direct jumps inhibited, depth 64", EN_MSU | DEPTH(3) | NTBREN |
     INHIBIT(13) | INHIBIT(11), 64, true, false},
    {"calls only, depth 32", EN_MSU | DEPTH(1) | TKBRINH | INHIBIT(10) | INHIBIT(11) | INHIBIT(12) | INHIBIT(13) |
     INHIBIT(14) | INHIBIT(15) | (0x7ull << 33), 32, true, false},
    {"RAS emulation, depth 32", EN_MSU | DEPTH(1) | RASEMU, 32, false, false},
};

/* The performance counters the first configuration also programs
 * (mhpmcounter3..11), with the events of docs/pmu.md. */
enum { PMU_INSTRUCTIONS, PMU_BRANCHES, PMU_TAKEN, PMU_JUMPS, PMU_LOADS, PMU_STORES, PMU_AMOS, PMU_EXCEPTIONS,
       PMU_INTERRUPTS, PMU_EVENTS };
static const uint64_t pmu_codes[PMU_EVENTS] = {
    2, RVT_PMU_RAW_BRANCHES, RVT_PMU_RAW_TAKEN_BRANCHES, RVT_PMU_RAW_JUMPS, RVT_PMU_RAW_LOADS,
    RVT_PMU_RAW_STORES, RVT_PMU_RAW_AMOS, RVT_PMU_RAW_EXCEPTIONS, RVT_PMU_RAW_INTERRUPTS};
static bool sbi_mode;

static const char *const pmu_names[PMU_EVENTS] = {"instructions", "branches", "taken branches", "jumps", "loads",
                                                  "stores", "AMOs", "exceptions", "interrupts"};

typedef struct {
    uint64_t instret, pc;
    unsigned n;
    rvt_ctr_record recs[MAX_DEPTH];
    uint64_t counters[PMU_EVENTS];
} sample;

typedef struct {
    sample *s;
    size_t n, cap;
} samples;

static void take_sample(void *user, rvt_machine *m, uint64_t instret) {
    samples *S = user;
    if (S->n == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 1024;
        S->s = realloc(S->s, S->cap * sizeof *S->s);
        if (!S->s)
            abort();
    }
    sample *s = &S->s[S->n++];
    s->instret = instret;
    s->pc = rvt_machine_pc(m, 0);
    s->n = (unsigned)rvt_machine_ctr_read(m, 0, s->recs, MAX_DEPTH);
    for (unsigned e = 0; e < PMU_EVENTS; e++)
        s->counters[e] = rvt_machine_hpm_counter(m, 0, 3 + e, NULL, false);
}

static int encode_sink(void *user, const rvt_retire *recs, size_t n) {
    return rvt_etrace_encoder_push(user, recs, n);
}

/* The buffer as the specification says it must be, fed from the decoded
 * flow: logical entry 0 is ring[(wrptr - 1) % depth]. */
typedef struct {
    uint64_t source, target, cycles;
    unsigned type;
    bool valid, ccv;
} entry;

typedef struct {
    rvt_image *img;
    rvt_machine *m;
    const variant *v;
    uint16_t types; /* recorded types outside RAS emulation */
    entry ring[MAX_DEPTH];
    unsigned wrptr;
    uint64_t last_record; /* retired count at the previous record */
    bool counting;        /* a record since recording was switched on */
    /* the flow */
    bool have_pending;
    uint64_t pending_pc;
    rvt_insn pending;
    uint64_t retired, transfers;
    /* the samples */
    const samples *S;
    size_t next;
    uint64_t checked, failures;
    char first_failure[512];
    unsigned blind;             /* records to come before the model is exact again */
    uint64_t events[PMU_EVENTS]; /* what the counters must show */
    struct pair_table *truth;   /* --hot-pairs: the recorded transfers by pair */
    uint64_t blind_events, unplaced;
} model;

/* What a 16-bit CC field (4 exponent bits) reports for `n` elapsed cycles:
 * exact below 4096; above, the 12 bits below the top one bit, scaled back;
 * saturated beyond the 27-bit counter. */
static uint64_t reported_cycles(uint64_t n) {
    if (n < 4096)
        return n;
    unsigned top = 63u - (unsigned)__builtin_clzll(n);
    if (top > 26)
        return (uint64_t)(4096 + 4095) << 14;
    unsigned shift = top - 12;
    return n >> shift << shift;
}

struct pair_table;
static void pair_add(struct pair_table *t, uint64_t source, uint64_t target);

static void push(model *md, uint64_t source, uint64_t target, unsigned type) {
    entry *e = &md->ring[md->wrptr];
    *e = (entry){source, target, reported_cycles(md->retired - md->last_record), type, true, md->counting};
    md->last_record = md->retired;
    md->counting = true;
    md->wrptr = (md->wrptr + 1) % md->v->depth;
    if (md->blind)
        md->blind--;
}

static void pop(model *md) {
    md->wrptr = (md->wrptr + md->v->depth - 1) % md->v->depth;
    md->ring[md->wrptr].valid = false;
}

static void transfer(model *md, uint64_t source, uint64_t target, unsigned type) {
    md->transfers++;
    if (md->truth && ((md->types >> type) & 1))
        pair_add(md->truth, source, target);
    if (!(md->v->control & RASEMU)) {
        if ((md->types >> type) & 1)
            push(md, source, target, type);
    } else if (type == RVT_ITYPE_INFERABLE_CALL || type == RVT_ITYPE_UNINFERABLE_CALL) {
        push(md, source, target, type);
    } else if (type == RVT_ITYPE_RETURN) {
        pop(md);
    } else if (type == RVT_ITYPE_SWAP) {
        pop(md);
        push(md, source, target, type);
    }
}

/* Notes a difference in the current sample (the first one is described). */
static void fail(model *md, bool *sample_failed, const char *fmt, uint64_t a, uint64_t b) {
    if (*sample_failed)
        return;
    *sample_failed = true;
    if (!md->failures++) {
        const sample *s = &md->S->s[md->next];
        snprintf(md->first_failure, sizeof md->first_failure,
                 "sample at instruction %" PRIu64 " (pc %#" PRIx64 "): ", s->instret, s->pc);
        size_t len = strlen(md->first_failure);
        snprintf(md->first_failure + len, sizeof md->first_failure - len, fmt, a, b);
    }
}

/* Compares the samples taken after `md->retired` instructions, before the
 * instruction at `next_pc` (or the trap that comes first). */
static void check_samples(model *md, uint64_t next_pc) {
    while (md->next < md->S->n && md->S->s[md->next].instret <= md->retired) {
        const sample *s = &md->S->s[md->next];
        unsigned k = 0;
        bool bad = false;
        if (md->blind || (next_pc == 0 && s->instret == md->retired)) {
            md->unplaced++; /* see trap_sink */
            md->next++;
            continue;
        }
        if (s->instret != md->retired || s->pc != next_pc)
            fail(md, &bad, "the flow is at %#" PRIx64 " after %" PRIu64 " instructions", next_pc, md->retired);
        for (unsigned i = 0; i < md->v->depth && !bad; i++) {
            const entry *e = &md->ring[(md->wrptr + 2 * md->v->depth - 1 - i) % md->v->depth];
            if (!e->valid)
                continue;
            if (k >= s->n) {
                fail(md, &bad, "CTR has %" PRIu64 " records, the flow gives more (next: from %#" PRIx64 ")", s->n,
                     e->source);
                break;
            }
            const rvt_ctr_record *r = &s->recs[k++];
            if (r->source != e->source || r->target != e->target)
                fail(md, &bad, "record %" PRIu64 ": CTR has it from %#" PRIx64, k - 1, r->source);
            else if (r->type != e->type)
                fail(md, &bad, "record %" PRIu64 ": CTR says type %" PRIu64, k - 1, r->type);
            else if (md->v->check_cycles && (r->ccv != e->ccv || (r->ccv && r->cycles != e->cycles)))
                fail(md, &bad, "record %" PRIu64 ": CTR counts %" PRIu64 " cycles", k - 1, r->ccv ? r->cycles : 99999999);
        }
        if (!bad && k != s->n)
            fail(md, &bad, "CTR has %" PRIu64 " records, the flow gives %" PRIu64, s->n, k);
        for (unsigned e = 0; e < PMU_EVENTS && md->v->counters && !bad; e++)
            if (s->counters[e] != md->events[e]) {
                fail(md, &bad, "a performance counter reads %" PRIu64 ", the flow gives %" PRIu64 ": ",
                     s->counters[e], md->events[e]);
                if (md->failures == 1)
                    strncat(md->first_failure, pmu_names[e], sizeof md->first_failure - strlen(md->first_failure) - 1);
            }
        if (bad && md->failures == 1 && getenv("CTR_CHECK_VERBOSE")) {
            for (unsigned i = 0; i < s->n && i < 8; i++)
                printf("  ctr  %u: %#" PRIx64 " -> %#" PRIx64 " type %u cycles %" PRIu64 "\n", i, s->recs[i].source,
                       s->recs[i].target, s->recs[i].type, s->recs[i].cycles);
            for (unsigned i = 0, j = 0; i < md->v->depth && j < 8; i++) {
                const entry *e = &md->ring[(md->wrptr + 2 * md->v->depth - 1 - i) % md->v->depth];
                if (e->valid)
                    printf("  flow %u: %#" PRIx64 " -> %#" PRIx64 " type %u cycles %" PRIu64 "\n", j++, e->source,
                           e->target, e->type, e->cycles);
            }
        }
        md->checked++;
        md->next++;
    }
}

/* The transfer of the last listed instruction, now that its successor is
 * known (ecall and ebreak do not retire: their trap is the transfer). */
static void settle(model *md, uint64_t next_pc) {
    if (md->have_pending && md->pending.cf != RVT_CF_NONE && md->pending.cf != RVT_CF_TRAP) {
        bool taken = next_pc != md->pending_pc + md->pending.len;
        md->events[PMU_TAKEN] += md->pending.cf == RVT_CF_BRANCH && taken;
        transfer(md, md->pending_pc, next_pc, rvt_itype(&md->pending, taken, 4, false));
    }
    md->have_pending = false;
    check_samples(md, next_pc);
}

/* An instruction of the flow that retired, by the events it counts as. */
static void retire(model *md, const rvt_insn *in) {
    unsigned op = in->op;
    md->retired++;
    md->events[PMU_INSTRUCTIONS]++;
    if (in->cf == RVT_CF_BRANCH)
        md->events[PMU_BRANCHES]++;
    else if (in->cf == RVT_CF_JAL || in->cf == RVT_CF_JALR)
        md->events[PMU_JUMPS]++;
    else if (op == RVT_OP_LB || op == RVT_OP_LH || op == RVT_OP_LW || op == RVT_OP_LD || op == RVT_OP_LBU ||
             op == RVT_OP_LHU || op == RVT_OP_LWU || op == RVT_OP_FLW || op == RVT_OP_FLD || op == RVT_OP_LR_W ||
             op == RVT_OP_LR_D)
        md->events[PMU_LOADS]++;
    else if (op == RVT_OP_SB || op == RVT_OP_SH || op == RVT_OP_SW || op == RVT_OP_SD || op == RVT_OP_FSW ||
             op == RVT_OP_FSD || op == RVT_OP_SC_W || op == RVT_OP_SC_D)
        md->events[PMU_STORES]++;
    else if ((op >= RVT_OP_AMOSWAP_W && op <= RVT_OP_AMOMAXU_W) || (op >= RVT_OP_AMOSWAP_D && op <= RVT_OP_AMOMAXU_D))
        md->events[PMU_AMOS]++;
}

static int pc_sink(void *user, uint64_t pc) {
    model *md = user;
    settle(md, pc);
    if (!rvt_program_insn(md->img, md->m, pc, &md->pending))
        return 1;
    md->have_pending = true;
    md->pending_pc = pc;
    if (md->pending.cf != RVT_CF_TRAP)
        retire(md, &md->pending);
    return 0;
}

/* An exception is taken at `at`, which did not retire. For an interrupt the
 * E-Trace flow leaves out the last instruction that retired, and `at` is
 * its address: the interrupt's epc is the instruction after it, known when
 * it falls through; after a branch or jump the trace does not say where it
 * went, and the comparison waits until those records have left the buffer. */
static int trap_sink(void *user, const rvt_trap_event *ev) {
    model *md = user;
    settle(md, ev->at);
    if (sbi_mode && !ev->interrupt && ev->has_cause && ev->cause == 9 && ev->handler == ev->at + 4) {
        md->events[PMU_EXCEPTIONS]++; /* an SBI call: counted, not recorded */
        return 0;
    }
    uint64_t epc = ev->at;
    if (ev->interrupt) {
        rvt_insn last;
        if (!rvt_program_insn(md->img, md->m, ev->at, &last))
            return 1;
        retire(md, &last);
        check_samples(md, 0); /* taken before the interrupt: its epc is not known yet */
        md->events[PMU_INTERRUPTS]++;
        if (last.cf != RVT_CF_NONE) {
            md->blind = md->v->depth + 2;
            md->blind_events++;
            return 0;
        }
        epc = ev->at + last.len;
    }
    if (!ev->interrupt)
        md->events[PMU_EXCEPTIONS]++;
    transfer(md, epc, ev->handler, ev->interrupt ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION);
    return 0;
}

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    model *md = user;
    return rvt_program_insn(md->img, md->m, addr, out);
}

static bool rom(void *user, uint64_t addr, void *buf, unsigned n) {
    return rvt_machine_read_rom(((model *)user)->m, addr, buf, n);
}

/* Decodes the packets of `trace` with the program into the model. */
static int decode_into(model *md, const rvt_membuf *trace, const rvt_etrace_params *p, const rvt_etrace_options *o,
                       rvt_diag *d) {
    rvt_etrace_decoder *dec;
    if (rvt_etrace_decoder_new(&dec, p, o, rvt_image_xlen(md->img), fetch, pc_sink, md))
        return RVT_E_NOMEM;
    rvt_etrace_decoder_set_const_memory(dec, rom, md);
    rvt_etrace_decoder_set_trap_sink(dec, trap_sink);
    rvt_etrace_decoder_set_tvec(dec, rvt_machine_csr(md->m, 0, 0x305));
    rvt_etrace_decoder_set_stvec(dec, rvt_machine_csr(md->m, 0, 0x105));
    rvt_te_raw_cursor cur = {.data = trace->data, .size = trace->len};
    rvt_te_inst pkt;
    int rc = 0;
    while (!rc && rvt_te_raw_next(&cur, p, o, &pkt, NULL, d) == 1)
        rc = rvt_etrace_decode(dec, &pkt, d);
    rvt_etrace_decoder_free(dec);
    return rc;
}

static uint16_t recorded_types(uint64_t control) {
    static const int inhibit_bit[16] = {-1, 33, 34, 35, -1, 37, -1, -1, 40, 41, 42, 43, 44, 45, 46, 47};
    uint16_t types = (control & NTBREN) ? 1u << RVT_ITYPE_BRANCH_NOT_TAKEN : 0;
    for (unsigned t = 1; t < 16; t++)
        if (inhibit_bit[t] >= 0 && !((control >> inhibit_bit[t]) & 1))
            types |= (uint16_t)(1u << t);
    return types;
}

/* An empty buffer model of `v` for the program's flow, checked at `S`. */
static model *model_new(const program_run *pr, const variant *v, const samples *S) {
    model *md = calloc(1, sizeof *md);
    if (!md)
        abort();
    md->img = pr->img;
    md->m = pr->m;
    md->v = v;
    md->types = recorded_types(v->control);
    md->S = S;
    return md;
}

/* The E-Trace encoder every check uses (4-bit itype, delta addresses, the
 * program's XLEN), fed by the machine's retirement stream into `trace`. */
static int attach_encoder(program_run *pr, rvt_etrace_params *p, rvt_etrace_options *o, rvt_membuf *trace,
                          rvt_etrace_encoder **enc) {
    rvt_etrace_params_default(p);
    rvt_etrace_options_default(o);
    p->iaddress_width = rvt_image_xlen(pr->img);
    p->itype_width = 4;
    if (rvt_etrace_encoder_new(enc, p, o, keep_raw_packet, trace))
        return -1;
    rvt_machine_set_sink(pr->m, encode_sink, *enc);
    return 0;
}

/* One program under one variant; returns the failures. */
static uint64_t check(const char *path, const variant *v, uint64_t period, uint64_t max_insns, uint64_t *checked,
                      uint64_t *transfers, uint64_t *unplaced) {
    program_run pr;
    if (program_run_open_with(&pr, path, max_insns, 16, sbi_mode))
        return 1;
    rvt_diag d = {{0}};
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_membuf trace = {0};
    rvt_etrace_encoder *enc;
    samples S = {0};
    uint64_t failures = 0;
    bool rv32 = rvt_image_xlen(pr.img) == 32; /* the upper half through mctrcontrolh */
    uint64_t control = sbi_mode ? (v->control & ~EN_MSU) | 2 : v->control; /* S only */
    if (attach_encoder(&pr, &p, &o, &trace, &enc) ||
        rvt_machine_ctr_enable(pr.m, 0, sbi_mode ? 0x2 : 0xb, v->depth, &d) ||
        (rv32 && !rvt_machine_set(pr.m, 0x382, control >> 32)) || !rvt_machine_set(pr.m, 0x381, control)) {
        fprintf(stderr, "%s: cannot set up: %s\n", path, d.msg);
        return 1;
    }
    uint64_t only_s = sbi_mode ? (1ull << 62) | (1ull << 60) : 0; /* MINH, UINH */
    if (sbi_mode && !rvt_machine_set(pr.m, 0x320, 0)) { /* the environment boots them stopped */
        fprintf(stderr, "%s: cannot start the counters\n", path);
        return 1;
    }
    for (unsigned e = 0; e < PMU_EVENTS && v->counters; e++)
        if ((rv32 && !rvt_machine_set(pr.m, 0x723 + e, only_s >> 32)) || /* mhpmevent3h.. */
            !rvt_machine_set(pr.m, 0x323 + e, pmu_codes[e] | (rv32 ? 0 : only_s))) { /* mhpmevent3.. */
            fprintf(stderr, "%s: cannot program the performance counters\n", path);
            return 1;
        }
    rvt_machine_sample_every(pr.m, period, take_sample, &S);
    rvt_run_result res;
    rvt_machine_run(pr.m, &res, &d);
    rvt_etrace_encoder_finish(enc, NULL);

    model *md = model_new(&pr, v, &S);
    int rc = decode_into(md, &trace, &p, &o, &d);
    if (rc) {
        printf("%s (%s): the E-Trace does not decode: %s\n", path, v->name, d.msg);
        failures = 1;
    } else {
        /* The samples after the last decoded instruction fall in the loop
         * the program ends in, which E-Trace does not count (a `j .` has
         * no branch): the flow lists it once. */
        md->unplaced += S.n - md->next;
        failures = md->failures;
        if (failures)
            printf("%s (%s): %" PRIu64 " of %" PRIu64 " samples differ; first: %s\n", path, v->name, failures,
                   md->checked, md->first_failure);
        else if (md->checked == 0)
            failures = 1, printf("%s (%s): no sample could be placed in the flow (%zu taken)\n", path, v->name, S.n);
    }
    *checked += md->checked;
    *unplaced += md->unplaced;
    *transfers += md->transfers;
    free(md);
    free(S.s);
    rvt_membuf_free(&trace);
    program_run_close(&pr);
    return failures;
}

/* ---- --hot-pairs: sampled branch stacks against transfer counts ---- */

typedef struct {
    uint64_t source, target, count;
} pair_count;

typedef struct pair_table {
    pair_count *slots;
    size_t cap, used;
    uint64_t total;
} pair_table;

static size_t pair_slot(const pair_table *t, uint64_t source, uint64_t target) {
    size_t i = (size_t)((source * 0x9e3779b97f4a7c15ull) ^ (target * 0xc2b2ae3d27d4eb4full)) & (t->cap - 1);
    while (t->slots[i].count && (t->slots[i].source != source || t->slots[i].target != target))
        i = (i + 1) & (t->cap - 1);
    return i;
}

static void pair_add_n(pair_table *t, uint64_t source, uint64_t target, uint64_t n) {
    if (2 * (t->used + 1) > t->cap) {
        pair_table bigger = {calloc(t->cap ? 2 * t->cap : 4096, sizeof(pair_count)), t->cap ? 2 * t->cap : 4096, 0, 0};
        if (!bigger.slots)
            abort();
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i].count)
                pair_add_n(&bigger, t->slots[i].source, t->slots[i].target, t->slots[i].count);
        free(t->slots);
        *t = bigger;
    }
    size_t i = pair_slot(t, source, target);
    if (!t->slots[i].count) {
        t->slots[i].source = source;
        t->slots[i].target = target;
        t->used++;
    }
    t->slots[i].count += n;
    t->total += n;
}

static void pair_add(struct pair_table *t, uint64_t source, uint64_t target) { pair_add_n(t, source, target, 1); }

static int by_count(const void *a, const void *b) {
    uint64_t x = ((const pair_count *)a)->count, y = ((const pair_count *)b)->count;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int hot_pairs(const char *samples_path, const char *program, unsigned top) {
    FILE *f = fopen(samples_path, "r");
    if (!f) {
        perror(samples_path);
        return 2;
    }
    /* Each stack covers the last transfers; its entries' cycle counts give
     * the instructions between them, so the newest 15 entries over the span
     * they cover estimate the local rate of each pair; times the period,
     * summed over the samples, that estimates the pair's count whatever the
     * density of transfers in the code sampled. */
    pair_table truth = {0};
    struct est { uint64_t source, target; double sum, sumsq; } *est = NULL;
    size_t nest = 0, capest = 0;
    uint64_t nsamples = 0, period = 0, entries = 0;
    char line[65536];
    while (fgets(line, sizeof line, f)) {
        char *p = line, *end;
        if (!strncmp(line, "# period ", 9)) {
            period = strtoull(line + 9, NULL, 10);
            continue;
        }
        strtoull(p, &end, 16); /* the ip */
        if (end == p)
            continue;
        uint64_t from[64], to[64], cycles[64];
        unsigned n = 0;
        for (p = end; *p == ' ' && n < 64;) {
            from[n] = strtoull(p + 1, &end, 16);
            if (*end != '/')
                break;
            to[n] = strtoull(end + 1, &end, 16);
            char *c = end;
            for (int slash = 0; *c && slash < 4; c++) /* /P/-/-/CYCLES */
                slash += *c == '/';
            cycles[n++] = strtoull(c, &end, 10);
            p = end;
        }
        nsamples++;
        entries += n;
        if (n < 2)
            continue;
        double span = 0;
        for (unsigned k = 0; k + 1 < n; k++)
            span += (double)cycles[k];
        if (span <= 0)
            continue;
        /* per-sample rates, kept per pair with their squares (zero terms
         * for the samples a pair is absent from are implicit) */
        for (unsigned k = 0; k + 1 < n; k++) {
            bool seen = false;
            for (unsigned j = 0; j < k; j++)
                seen |= from[j] == from[k] && to[j] == to[k];
            if (seen)
                continue;
            unsigned same = 0;
            for (unsigned j = k; j + 1 < n; j++)
                same += from[j] == from[k] && to[j] == to[k];
            size_t e = 0;
            while (e < nest && (est[e].source != from[k] || est[e].target != to[k]))
                e++;
            if (e == nest) {
                if (nest == capest) {
                    capest = capest ? 2 * capest : 256;
                    est = realloc(est, capest * sizeof *est);
                    if (!est)
                        abort();
                }
                est[nest++] = (struct est){from[k], to[k], 0, 0};
            }
            double rate = same / span;
            est[e].sum += rate;
            est[e].sumsq += rate * rate;
        }
    }
    fclose(f);
    /* the transfers the trace says happened, as the default filters record them */
    variant all = {"default filters", EN_MSU, 16, false, false};
    program_run pr;
    if (program_run_open(&pr, program, 10000000000ull))
        return 2;
    rvt_diag d = {{0}};
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_membuf trace = {0};
    rvt_etrace_encoder *enc;
    if (attach_encoder(&pr, &p, &o, &trace, &enc))
        return 2;
    rvt_run_result res;
    rvt_machine_run(pr.m, &res, &d);
    rvt_etrace_encoder_finish(enc, NULL);
    samples none = {0};
    model *md = model_new(&pr, &all, &none);
    md->truth = &truth;
    int rc = decode_into(md, &trace, &p, &o, &d);
    if (rc || nsamples < 2 || !truth.total) {
        fprintf(stderr, "%s: %s\n", program, rc ? d.msg : "no samples or no transfers");
        return 2;
    }
    /* The estimate of a pair's count is P * sum(rate); its standard error
     * P * sqrt(S) * sd(rate) over the S samples. A pair fails beyond 4
     * standard errors (and 1 % of its count, for pairs the samples see in
     * nearly every stack, whose spread is tiny). */
    if (!period) {
        fprintf(stderr, "%s: no '# period' line\n", samples_path);
        return 2;
    }
    qsort(truth.slots, truth.cap, sizeof *truth.slots, by_count);
    printf("%-12s %-12s %12s %12s %9s %7s\n", "source", "target", "transfers", "estimated", "error %", "z");
    int bad = 0;
    double S = (double)nsamples;
    for (unsigned i = 0; i < top && i < truth.used; i++) {
        const pair_count *t = &truth.slots[i];
        size_t e = 0;
        while (e < nest && (est[e].source != t->source || est[e].target != t->target))
            e++;
        double sum = e < nest ? est[e].sum : 0, sumsq = e < nest ? est[e].sumsq : 0;
        double mean = sum / S, var = sumsq / S - mean * mean;
        double estimate = (double)period * sum;
        double se = (double)period * sqrt(S * (var > 0 ? var : 0));
        double err = estimate - (double)t->count;
        double z = se > 0 ? err / se : 0;
        bool fails = fabs(z) > 4 && fabs(err) > 0.01 * (double)t->count;
        bad += fails;
        printf("%#-12" PRIx64 " %#-12" PRIx64 " %12" PRIu64 " %12.0f %9.2f %7.2f%s\n", t->source, t->target, t->count,
               estimate, 100 * err / (double)t->count, z, fails ? "  <-" : "");
    }
    printf("hot pairs: %" PRIu64 " samples (period %" PRIu64 "), %" PRIu64 " stack entries, %" PRIu64
           " recorded transfers in the trace; %d of the top %u pairs off by more than 4 standard errors\n",
           nsamples, period, entries, truth.total, bad, top);
    free(est);
    free(md);
    rvt_membuf_free(&trace);
    free(truth.slots);
    program_run_close(&pr);
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--hot-pairs"))
        return hot_pairs(argv[2], argv[3], 10);
    uint64_t period = 997, max_insns = 5000000;
    int first = 1;
    while (first + 1 < argc && argv[first][0] == '-') {
        if (!strcmp(argv[first], "--period"))
            period = strtoull(argv[first + 1], NULL, 0);
        else if (!strcmp(argv[first], "--max-insns"))
            max_insns = strtoull(argv[first + 1], NULL, 0);
        else if (!strcmp(argv[first], "--sbi")) {
            sbi_mode = true;
            first++;
            continue;
        } else
            break;
        first += 2;
    }
    if (first >= argc || period == 0) {
        fprintf(stderr, "usage: ctr_check [--period N] [--max-insns N] [--sbi] PROGRAM.elf...\n");
        return 2;
    }
    uint64_t failures = 0, checked = 0, transfers = 0, unplaced = 0;
    for (int k = first; k < argc; k++)
        for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
            failures += check(argv[k], &variants[i], period, max_insns, &checked, &transfers, &unplaced);
    printf("ctr check: %d programs x %zu configurations, %" PRIu64 " transfers decoded from E-Trace, %" PRIu64
           " samples compared (%" PRIu64 " not placeable: in the final loop or next to an interrupt the trace "
           "cannot place), %" PRIu64 " failing\n",
           argc - first, sizeof variants / sizeof variants[0], transfers, checked, unplaced, failures);
    return failures ? 1 : 0;
}
