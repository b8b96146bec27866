/* Tandem verification end to end:
 *  1. every program: its trace from the hart model verifies with no
 *     divergence, also as partial traces and with the incremental forms;
 *  2. every spike commit log, converted, verifies against the hart model
 *     (an independent implementation agreeing state by state);
 *  3. fault injection: traces mutated at random groups (register, CSR, pc,
 *     memory data, a data address or store data, privilege, a dropped,
 *     duplicated or swapped group, a cut stream) and made invalid (a second,
 *     different value for one register, BS-037; an increment-pc whose
 *     instruction record is gone, BS-042; an instruction in a state
 *     initialisation group, BS-043); the verifier must name the injected
 *     group every time, and refuse the invalid ones for the rule they break.
 * Usage: tandem_check SHARED_DIR [--inject N] [--seed S] PROGRAM.riscv...
 * RVT_TEST_MAX_INSNS caps each run (the sanitizer build). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program_run.h"
#include "rvtrace/tandem.h"

#define RUN_CAP 3000000ull        /* instructions per program run */
#define VARIANT_CAP 300000ull     /* instructions of the partial and incremental variants */
#define INJECT_WINDOW 40000       /* injections land in a trace's first groups */

static int failures;

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

typedef struct subject {
    const char *path;
    unsigned pmp_regions;
    uint64_t max_insns;
} subject;

static int open_machine(const subject *s, program_run *p) {
    return program_run_open_pmp(p, s->path, s->max_insns, s->pmp_regions) ? -1 : 0;
}

static int write_trace(const subject *s, const rvt_tv_writer_options *opt, rvt_membuf *out) {
    program_run p;
    if (open_machine(s, &p)) {
        program_run_close(&p);
        return -1;
    }
    rvt_tv_params tp;
    rvt_tv_params_default(&tp, rvt_image_xlen(p.img));
    rvt_tv_writer *w = NULL;
    rvt_diag d = {{0}};
    int rc = rvt_tv_writer_new(&w, &tp, opt, rvt_membuf_append, out, &d);
    if (!rc)
        rc = rvt_tv_writer_attach(w, p.m, p.img);
    rvt_run_result res;
    if (!rc)
        rc = rvt_machine_run(p.m, &res, &d);
    if (!rc)
        rc = rvt_tv_writer_finish(w);
    rvt_tv_writer_free(w);
    program_run_close(&p);
    if (rc)
        fprintf(stderr, "%s: writing the trace: %s\n", s->path, d.msg[0] ? d.msg : rvt_strerror(rc));
    return rc;
}

/* Verifies `len` bytes as pieces (a prefix, a replaced middle, a suffix),
 * stopping at the first divergence when `first_only`. Returns the verifier's
 * status; *res gets its result. */
typedef struct piece {
    const uint8_t *data;
    size_t len;
} piece;

typedef struct piece_source {
    const piece *pieces;
    size_t npieces, i, off;
} piece_source;

/* rvt_tv_read_fn over the pieces, at most 40,000 bytes at a time (so that
 * records are cut where 64 KiB chunks do not cut them). */
static long read_pieces(void *user, uint8_t *buf, size_t size, rvt_diag *d) {
    (void)d;
    piece_source *src = user;
    while (src->i < src->npieces && src->off == src->pieces[src->i].len) {
        src->i++;
        src->off = 0;
    }
    if (src->i == src->npieces)
        return 0;
    size_t n = src->pieces[src->i].len - src->off;
    if (n > size)
        n = size;
    if (n > 40000)
        n = 40000;
    memcpy(buf, src->pieces[src->i].data + src->off, n);
    src->off += n;
    return (long)n;
}

static int verify_pieces(const subject *s, const piece *pieces, size_t npieces, const rvt_tv_verify_options *opt,
                         rvt_tv_verify_result *res, rvt_diag *d) {
    program_run p;
    subject unlimited = *s; /* the model steps as long as the trace goes on */
    unlimited.max_insns = 0;
    if (open_machine(&unlimited, &p)) {
        program_run_close(&p);
        return -1;
    }
    rvt_tv_params tp;
    rvt_tv_params_default(&tp, rvt_image_xlen(p.img));
    rvt_tv_verifier *v = NULL;
    int rc = rvt_tv_verifier_new(&v, &tp, opt, p.m, p.img, d);
    /* Both ways of giving the verifier a trace, in turn: fed in 64 KiB
     * chunks, or read by its reading thread in odd-sized ones. */
    static unsigned calls;
    if (!rc && calls++ % 2) {
        piece_source src = {pieces, npieces, 0, 0};
        rc = rvt_tv_verifier_read_all(v, read_pieces, &src, d);
    } else {
        for (size_t i = 0; !rc && i < npieces; i++)
            for (size_t off = 0; !rc && off < pieces[i].len && !rvt_tv_verifier_result(v)->stopped; off += 65536) {
                size_t n = pieces[i].len - off < 65536 ? pieces[i].len - off : 65536;
                rc = rvt_tv_verifier_feed(v, pieces[i].data + off, n, d);
            }
        if (!rc && !rvt_tv_verifier_result(v)->stopped)
            rc = rvt_tv_verifier_finish(v, d);
    }
    if (v)
        *res = *rvt_tv_verifier_result(v);
    rvt_tv_verifier_free(v);
    program_run_close(&p);
    return rc;
}

static void expect_clean(const subject *s, const char *what, const rvt_membuf *trace, unsigned absent,
                         const uint16_t *absent_regs, unsigned nabsent_regs) {
    rvt_tv_verify_options opt = {.absent = absent, .report = stderr, .max_errors = 3};
    if (nabsent_regs)
        memcpy(opt.absent_regs, absent_regs, nabsent_regs * sizeof *absent_regs);
    opt.nabsent_regs = nabsent_regs;
    rvt_tv_verify_result res = {0};
    rvt_diag d = {{0}};
    piece whole = {trace->data, trace->len};
    int rc = verify_pieces(s, &whole, 1, &opt, &res, &d);
    if (rc || res.divergences || res.steps == 0) {
        fprintf(stderr, "FAIL %s (%s): %s%" PRIu64 " divergences in %" PRIu64 " steps\n", base_name(s->path), what,
                rc ? d.msg : "", res.divergences, res.steps);
        failures++;
    } else {
        printf("ok   %-28s %-26s %9" PRIu64 " steps, %10zu bytes\n", base_name(s->path), what, res.steps, trace->len);
    }
}

/* ------------------------------------------------------------ clean runs */

static void check_program(const subject *whole) {
    const subject *s = whole;
    static const struct {
        const char *name;
        const char *fields; /* written */
        unsigned absent;    /* declared to the verifier */
        bool incremental, omit_end;
    } variants[] = {
        {"full", "all", 0, false, false},
        {"incremental, no end", "all", 0, true, true},
        {"partial: no memory", "all,-mem,-addr", RVT_TV_F_MEM | RVT_TV_F_ADDR, false, false},
        {"partial: no CSRs, no priv", "all,-csr,-priv", RVT_TV_F_CSR | RVT_TV_F_PRIV, false, false},
        /* The fewest records that still carry the non-deterministic inputs
         * (mtime; the host's writes in the init groups). */
        {"partial: gpr pc insn mtime", "gpr,pc,insn,mtime,init",
         RVT_TV_F_FPR | RVT_TV_F_CSR | RVT_TV_F_PRIV | RVT_TV_F_MEM | RVT_TV_F_ADDR, false, false},
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        /* The whole run once; the variants on its start. */
        subject run = *whole;
        if (i > 0 && (run.max_insns == 0 || run.max_insns > VARIANT_CAP))
            run.max_insns = VARIANT_CAP;
        s = &run;
        rvt_tv_writer_options o = {.incremental = variants[i].incremental, .omit_end = variants[i].omit_end};
        rvt_tv_parse_fields(variants[i].fields, &o.fields, NULL);
        rvt_membuf trace = {0};
        if (write_trace(s, &o, &trace) == 0)
            expect_clean(s, variants[i].name, &trace, variants[i].absent, NULL, 0);
        else
            failures++;
        rvt_membuf_free(&trace);
    }
}

static void check_spike_log(const char *shared, const char *name, const subject *s) {
    char log[1024];
    snprintf(log, sizeof log, "%s/corpus/spike-commits/%s.log.zst", shared, name);
    rvt_tv_params tp;
    rvt_tv_params_default(&tp, 64);
    rvt_membuf trace = {0};
    rvt_diag d = {{0}};
    if (rvt_tv_convert_spike_log(log, &tp, 0, rvt_membuf_append, &trace, NULL, &d)) {
        fprintf(stderr, "FAIL %s: converting spike's log: %s\n", name, d.msg);
        failures++;
    } else {
        subject whole = *s;
        whole.max_insns = 0; /* spike's log is the whole run */
        uint16_t mstatus = 0x300;
        expect_clean(&whole, "spike commit log", &trace, 0, &mstatus, 1);
    }
    rvt_membuf_free(&trace);
}

/* --------------------------------------------------------- fault injection */

typedef struct group {
    size_t first, last; /* record indexes: begin .. end */
    size_t start, stop; /* byte range */
    bool step;          /* an instruction or trap (not reset or initialisation) */
    bool init;          /* a state initialisation group */
    uint8_t priv;       /* the privilege after the group */
} group;

typedef struct parsed {
    rvt_tv_record *recs;
    size_t nrecs;
    group *groups;
    size_t ngroups;
} parsed;

static int parse_trace(const rvt_membuf *t, unsigned xlen, parsed *out) {
    rvt_tv_params tp;
    rvt_tv_params_default(&tp, xlen);
    rvt_tv_reader *r;
    if (rvt_tv_reader_new(&r, &tp, NULL))
        return -1;
    rvt_tv_reader_feed(r, t->data, t->len);
    size_t cap = 1024, gcap = 256;
    out->recs = malloc(cap * sizeof *out->recs);
    out->groups = malloc(gcap * sizeof *out->groups);
    out->nrecs = out->ngroups = 0;
    rvt_tv_record rec;
    group *open = NULL;
    uint8_t priv = 3;
    while (rvt_tv_reader_next(r, &rec, NULL) == 1) {
        if (rec.opcode == RVT_TV_RESET)
            priv = 3;
        if (rec.opcode == RVT_TV_STATE && rec.id == RVT_TV_PRIV)
            priv = (uint8_t)rec.value;
        if (out->nrecs == cap)
            out->recs = realloc(out->recs, (cap *= 2) * sizeof *out->recs);
        out->recs[out->nrecs] = rec;
        if (rec.opcode == RVT_TV_BEGIN) {
            if (out->ngroups == gcap)
                out->groups = realloc(out->groups, (gcap *= 2) * sizeof *out->groups);
            open = &out->groups[out->ngroups++];
            *open = (group){out->nrecs, out->nrecs, rec.offset, rec.offset + 1, false, false, priv};
        } else if (open) {
            open->last = out->nrecs;
            open->priv = priv;
            if (rec.opcode == RVT_TV_INSN16 || rec.opcode == RVT_TV_INSN32 ||
                (rec.opcode == RVT_TV_STATE && rec.id == RVT_TV_PC))
                open->step = true;
            if (rec.opcode == RVT_TV_INIT)
                open->init = true;
            if (rec.opcode == RVT_TV_END)
                open = NULL;
        }
        out->nrecs++;
    }
    rvt_tv_reader_free(r);
    /* Byte ranges: a group ends where its end record ends. */
    for (size_t i = 0; i < out->ngroups; i++) {
        group *g = &out->groups[i];
        g->stop = g->last + 1 < out->nrecs ? out->recs[g->last + 1].offset : t->len;
    }
    return 0;
}

static uint64_t rng_state;
static uint64_t rnd(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

enum fault {
    F_GPR, F_CSR, F_PC, F_MEM, F_ADDR, F_PRIV, F_DROP, F_DUP, F_SWAP, F_TRUNC,
    F_CONFLICT, F_LONE_INCR, F_INIT_INSN, F_COUNT
};
static const char *const fault_names[F_COUNT] = {
    "register value", "CSR value", "pc", "memory data", "data address", "privilege", "dropped group",
    "duplicated group", "swapped groups", "truncated stream", "conflicting value", "lone increment-pc",
    "insn in init group"};
/* The rule an invalid group breaks, as the verifier's refusal names it. */
static const char *const fault_rule[F_COUNT] = {[F_CONFLICT] = "(BS-037)", [F_LONE_INCR] = "(BS-042)",
                                                [F_INIT_INSN] = "(BS-043)"};

static bool same_bytes(const rvt_membuf *t, const group *a, const group *b) {
    return a->stop - a->start == b->stop - b->start && !memcmp(t->data + a->start, t->data + b->start, a->stop - a->start);
}

/* Encodes records [first, last] of `p`, with record `change` replaced by
 * `with` (or, when `insert`, `with` inserted before `change`). */
static size_t encode_group(const parsed *p, const rvt_tv_params *tp, size_t first, size_t last, size_t change,
                           const rvt_tv_record *with, bool insert, uint8_t *out) {
    size_t n = 0;
    for (size_t i = first; i <= last; i++) {
        if (i == change && insert)
            n += rvt_tv_encode(tp, with, out + n, NULL);
        n += rvt_tv_encode(tp, i == change && !insert ? with : &p->recs[i], out + n, NULL);
    }
    return n;
}

typedef struct tally {
    unsigned tried[F_COUNT], caught[F_COUNT];
} tally;

/* One injection of `kind` into `t`; returns false when the trace offers no
 * place for it (the caller picks another). */
static bool inject(const subject *s, const rvt_membuf *t, const parsed *p, unsigned xlen, enum fault kind,
                   tally *tl) {
    size_t window = p->ngroups < INJECT_WINDOW ? p->ngroups : INJECT_WINDOW;
    if (window < 4)
        return false;
    rvt_tv_params tp;
    rvt_tv_params_default(&tp, xlen);
    for (int attempt = 0; attempt < 200; attempt++) {
        size_t k = kind == F_INIT_INSN ? rnd() % window : 1 + rnd() % (window - 3);
        const group *g = &p->groups[k], *next = &p->groups[k + 1];
        if (kind == F_INIT_INSN ? !g->init : !g->step || !next->step || same_bytes(t, g, next))
            continue;
        static uint8_t middle[1 << 16];
        size_t mlen = 0, expect = k;
        piece pieces[4];
        size_t np = 0;
        rvt_tv_record with;
        size_t change = SIZE_MAX;
        bool insert = false;
        switch (kind) {
        case F_GPR: case F_CSR: case F_PC: case F_MEM: case F_ADDR: {
            bool request = rnd() & 1; /* F_ADDR: the request's address, else an address or store data record */
            for (size_t i = g->first; i <= g->last && change == SIZE_MAX; i++) {
                const rvt_tv_record *r = &p->recs[i];
                bool fits = kind == F_GPR   ? r->opcode == RVT_TV_REG && r->reg >= 0x1000 && r->reg < 0x1020
                            : kind == F_CSR ? r->opcode == RVT_TV_REG && r->reg < 0x1000
                            : kind == F_PC  ? r->opcode == RVT_TV_STATE && r->id == RVT_TV_PC
                            : kind == F_MEM ? (r->opcode == RVT_TV_MEM_REQ || r->opcode == RVT_TV_MEM_RSP) && r->has_data
                            : request       ? r->opcode == RVT_TV_MEM_REQ
                                            : r->opcode == RVT_TV_STATE && r->id >= RVT_TV_PADDR &&
                                                  r->id <= RVT_TV_STDATA64;
                if (!fits)
                    continue;
                change = i;
                with = *r;
                unsigned bits = kind == F_MEM ? 8u << r->size : kind == F_PC ? 12 : xlen;
                if (kind == F_ADDR) /* an address within the page, or store data of the record's width */
                    bits = r->opcode == RVT_TV_STATE && r->id >= RVT_TV_STDATA8 ? 8u << (r->id - RVT_TV_STDATA8) : 12;
                unsigned bit = kind == F_PC ? 1 + (unsigned)(rnd() % (bits - 1)) : (unsigned)(rnd() % bits);
                if (kind == F_ADDR && r->opcode == RVT_TV_MEM_REQ)
                    with.addr ^= 1ull << bit;
                else
                    with.value ^= 1ull << bit;
            }
            if (change == SIZE_MAX && kind == F_CSR) {
                /* A CSR write the instruction did not make (BS-057). */
                change = g->last;
                insert = true;
                with = (rvt_tv_record){.opcode = RVT_TV_REG, .reg = 0x340, .value = rnd() & (xlen == 32 ? 0xffffffffull : ~0ull)};
            }
            if (change == SIZE_MAX)
                continue;
            mlen = encode_group(p, &tp, g->first, g->last, change, &with, insert, middle);
            pieces[np++] = (piece){t->data, g->start};
            pieces[np++] = (piece){middle, mlen};
            pieces[np++] = (piece){t->data + g->stop, t->len - g->stop};
            break;
        }
        case F_PRIV: {
            /* Claim a privilege the hart is not in after the instruction. */
            with = (rvt_tv_record){.opcode = RVT_TV_STATE, .id = RVT_TV_PRIV, .value = g->priv == 0 ? 3 : 0};
            change = g->last; /* before the end record */
            insert = true;
            for (size_t i = g->first; i <= g->last; i++)
                if (p->recs[i].opcode == RVT_TV_STATE && p->recs[i].id == RVT_TV_PRIV) {
                    change = i;
                    insert = false;
                }
            mlen = encode_group(p, &tp, g->first, g->last, change, &with, insert, middle);
            pieces[np++] = (piece){t->data, g->start};
            pieces[np++] = (piece){middle, mlen};
            pieces[np++] = (piece){t->data + g->stop, t->len - g->stop};
            break;
        }
        case F_DROP:
            pieces[np++] = (piece){t->data, g->start};
            pieces[np++] = (piece){t->data + g->stop, t->len - g->stop};
            break;
        case F_DUP:
            pieces[np++] = (piece){t->data, g->stop};
            pieces[np++] = (piece){t->data + g->start, g->stop - g->start};
            pieces[np++] = (piece){t->data + g->stop, t->len - g->stop};
            expect = k + 1;
            break;
        case F_SWAP:
            if (next->start != g->stop)
                continue; /* records between the two groups */
            pieces[np++] = (piece){t->data, g->start};
            pieces[np++] = (piece){t->data + next->start, next->stop - next->start};
            pieces[np++] = (piece){t->data + g->start, g->stop - g->start};
            pieces[np++] = (piece){t->data + next->stop, t->len - next->stop};
            break;
        case F_CONFLICT: case F_LONE_INCR: case F_INIT_INSN: {
            /* BS-037: a register record again with another value; BS-042:
             * the instruction record dropped from a group that increments
             * the pc; BS-043: an instruction in an initialisation group. */
            bool has_incr = false;
            for (size_t i = g->first; i <= g->last; i++)
                has_incr |= p->recs[i].opcode == RVT_TV_INCR_PC;
            for (size_t i = g->first; i <= g->last && change == SIZE_MAX; i++) {
                const rvt_tv_record *r = &p->recs[i];
                if (kind == F_CONFLICT && r->opcode == RVT_TV_REG) {
                    change = i + 1;
                    with = *r;
                    with.value ^= 1ull << (rnd() % (r->reg < 0x1000 ? xlen : 32));
                    insert = true;
                } else if (kind == F_LONE_INCR && (r->opcode == RVT_TV_INSN16 || r->opcode == RVT_TV_INSN32)) {
                    change = i;
                }
            }
            if (kind == F_INIT_INSN) {
                change = g->last;
                insert = true;
                with = (rvt_tv_record){.opcode = RVT_TV_INSN32, .insn = 0x00000013}; /* nop */
            }
            if (change == SIZE_MAX || (kind == F_LONE_INCR && !has_incr))
                continue;
            for (size_t i = g->first; i <= g->last; i++) {
                if (i == change && insert)
                    mlen += rvt_tv_encode(&tp, &with, middle + mlen, NULL);
                if (i != change || insert)
                    mlen += rvt_tv_encode(&tp, &p->recs[i], middle + mlen, NULL);
            }
            pieces[np++] = (piece){t->data, g->start};
            pieces[np++] = (piece){middle, mlen};
            pieces[np++] = (piece){t->data + g->stop, t->len - g->stop};
            break;
        }
        case F_TRUNC: {
            size_t cut = g->start + 1 + rnd() % (g->stop - g->start - 1);
            pieces[np++] = (piece){t->data, cut};
            break;
        }
        default:
            return false;
        }
        rvt_tv_verify_options opt = {.max_errors = 1};
        rvt_tv_verify_result res = {0};
        rvt_diag d = {{0}};
        int rc = verify_pieces(s, pieces, np, &opt, &res, &d);
        bool caught;
        uint64_t at = UINT64_MAX;
        if (rc) {
            /* Unusable input: the error must name a byte of the injected group. */
            const char *b = strstr(d.msg, "byte ");
            at = b ? strtoull(b + 5, NULL, 10) : UINT64_MAX;
            caught = (kind == F_TRUNC && at >= g->start && at < g->stop) ||
                     (fault_rule[kind] && at == g->start && strstr(d.msg, fault_rule[kind]));
        } else {
            caught = res.divergences > 0 && res.first_group == expect;
            at = res.divergences ? res.first_group : UINT64_MAX;
        }
        tl->tried[kind]++;
        if (caught) {
            tl->caught[kind]++;
        } else {
            fprintf(stderr, "MISSED %s in %s at group %zu (byte %zu): %s, reported %s %" PRIu64 "\n",
                    fault_names[kind], base_name(s->path), expect, g->start, rc ? d.msg : "verifier ran",
                    rc ? "byte" : "group", at);
            failures++;
        }
        return true;
    }
    return false;
}

/* A trace whose reading fails part way: the verifier ends with the reader's
 * status and message, after verifying what came before. */
static long read_then_fail(void *user, uint8_t *buf, size_t size, rvt_diag *d) {
    const rvt_membuf *t = user;
    static size_t given;
    if (!buf) { /* restart */
        given = 0;
        return 0;
    }
    size_t stop = t->len > 1000 ? t->len - 1000 : 0; /* the last 1000 bytes cannot be read */
    if (given >= stop)
        return rvt_diag_set(d, RVT_E_IO, "the disk went away");
    size_t n = stop - given < size ? stop - given : size;
    memcpy(buf, t->data + given, n);
    given += n;
    return (long)n;
}

static void check_read_error(const subject *s, const rvt_membuf *trace) {
    program_run p;
    subject unlimited = *s;
    unlimited.max_insns = 0;
    rvt_tv_verifier *v = NULL;
    rvt_diag d = {{0}};
    int rc = open_machine(&unlimited, &p);
    if (!rc) {
        rvt_tv_params tp;
        rvt_tv_params_default(&tp, rvt_image_xlen(p.img));
        rvt_tv_verify_options opt = {.report = stderr};
        rc = rvt_tv_verifier_new(&v, &tp, &opt, p.m, p.img, &d);
    }
    if (!rc) {
        read_then_fail(NULL, NULL, 0, NULL);
        rc = rvt_tv_verifier_read_all(v, read_then_fail, (void *)trace, &d);
        const rvt_tv_verify_result *res = rvt_tv_verifier_result(v);
        if (rc != RVT_E_IO || !strstr(d.msg, "the disk went away") || res->steps == 0 || res->divergences) {
            fprintf(stderr, "FAIL read error in %s: status %d, '%s', %" PRIu64 " steps\n", base_name(s->path), rc,
                    d.msg, res->steps);
            failures++;
        } else {
            printf("ok   %-28s a read error after %" PRIu64 " steps ends verification with it\n", base_name(s->path),
                   res->steps);
        }
    }
    rvt_tv_verifier_free(v);
    program_run_close(&p);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: tandem_check SHARED_DIR [--inject N] [--seed S] PROGRAM.riscv...\n");
        return 2;
    }
    const char *shared = argv[1];
    unsigned injections = 1000;
    rng_state = 1;
    char options_file[1024];
    snprintf(options_file, sizeof options_file, "%s", getenv("RVT_SPIKE_OPTIONS") ? getenv("RVT_SPIKE_OPTIONS") : "");
    subject subjects[64];
    size_t nsubjects = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--inject") && i + 1 < argc)
            injections = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--options") && i + 1 < argc)
            snprintf(options_file, sizeof options_file, "%s", argv[++i]);
        else if (nsubjects < 64)
            subjects[nsubjects++] = (subject){argv[i], 16, RUN_CAP};
    }
    for (size_t i = 0; i < nsubjects; i++)
        subjects[i].pmp_regions = program_pmp_regions(options_file, subjects[i].path);

    for (size_t i = 0; i < nsubjects; i++)
        check_program(&subjects[i]);

    for (size_t i = 0; i < nsubjects; i++) {
        char log[1024], name[256];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(base_name(subjects[i].path), "."),
                 base_name(subjects[i].path));
        snprintf(log, sizeof log, "%s/corpus/spike-commits/%s.log.zst", shared, name);
        FILE *f = fopen(log, "rb");
        if (f) {
            fclose(f);
            check_spike_log(shared, name, &subjects[i]);
        }
    }

    /* Fault injection over the programs' traces, kinds in turn. */
    tally tl = {{0}, {0}};
    parsed *traces = calloc(nsubjects, sizeof *traces);
    rvt_membuf *bufs = calloc(nsubjects, sizeof *bufs);
    unsigned *xlens = calloc(nsubjects, sizeof *xlens);
    for (size_t i = 0; i < nsubjects; i++) {
        subject capped = subjects[i];
        capped.max_insns = INJECT_WINDOW * 2;
        rvt_tv_writer_options o = {0};
        program_run p;
        if (open_machine(&capped, &p) == 0)
            xlens[i] = rvt_image_xlen(p.img);
        program_run_close(&p);
        subjects[i].max_insns = capped.max_insns;
        if (write_trace(&capped, &o, &bufs[i]) || parse_trace(&bufs[i], xlens[i], &traces[i]))
            failures++;
    }
    unsigned done = 0, stuck = 0;
    for (unsigned n = 0; done < injections && stuck < 1000; n++) {
        size_t i = rnd() % nsubjects;
        enum fault kind = (enum fault)(n % F_COUNT);
        if (inject(&subjects[i], &bufs[i], &traces[i], xlens[i], kind, &tl))
            done++, stuck = 0;
        else
            stuck++;
    }
    if (nsubjects)
        check_read_error(&subjects[0], &bufs[0]);
    printf("\nfault injection: %u injections over %zu programs\n", done, nsubjects);
    printf("%-18s %8s %8s\n", "fault", "injected", "caught");
    unsigned all = 0, caught = 0;
    for (int k = 0; k < F_COUNT; k++) {
        printf("%-18s %8u %8u\n", fault_names[k], tl.tried[k], tl.caught[k]);
        all += tl.tried[k];
        caught += tl.caught[k];
    }
    printf("%-18s %8u %8u (%.1f %%)\n", "total", all, caught, all ? 100.0 * caught / all : 0.0);
    if (done < injections) {
        fprintf(stderr, "FAIL: only %u of %u injections found a place\n", done, injections);
        failures++;
    }
    for (size_t i = 0; i < nsubjects; i++) {
        free(traces[i].recs);
        free(traces[i].groups);
        rvt_membuf_free(&bufs[i]);
    }
    free(traces);
    free(bufs);
    free(xlens);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
