/* Row formats of the reference flow: the spike CSV of the corpus and the
 * retired-PC list derived from it. One row is held back so that an interrupt
 * can still be marked on it, as the reference conversion does. Also the
 * record filter that reproduces that conversion of a spike run. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

typedef struct row {
    uint64_t addr, cause, tval;
    uint32_t insn;
    uint8_t priv;
    bool exception, interrupt, retired;
    bool fetch_trap; /* the exception is the next fetch's: this instruction retired */
} row;

/* Rows are formatted by hand into a buffer of the writer's own: the files
 * run to gigabytes, and fprintf took 90 % of `run --pcs` (700 instructions
 * a row). */
enum { ROW_BUFFER = 1 << 16, ROW_MAX = 96 /* a CSV row, and room for whole-word stores */ };

struct rvt_row_writer {
    FILE *f;
    enum rvt_row_format format;
    row pending;
    bool have_pending;
    bool failed; /* a write failed: later rows are dropped */
    size_t len;
    char buf[ROW_BUFFER];
};

int rvt_row_writer_new(rvt_row_writer **out, FILE *f, enum rvt_row_format format) {
    rvt_row_writer *w = malloc(sizeof *w);
    if (!w)
        return RVT_E_NOMEM;
    memset(w, 0, offsetof(rvt_row_writer, buf));
    w->f = f;
    w->format = format;
    if (format == RVT_ROWS_SPIKE_CSV)
        fputs("VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n", f);
    *out = w;
    return RVT_OK;
}

static void write_out(rvt_row_writer *w) {
    if (w->len && !w->failed && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->failed = true;
    w->len = 0;
}

static bool counts_as_executed(const row *r) {
    if (r->fetch_trap && !r->interrupt)
        return true; /* (the CSV marks a fetch fault on the row before it, as spike logs it) */
    if (r->interrupt)
        return false;
    if (!r->exception)
        return true;
    return rvt_cause_is_env_call(r->cause);
}

/* `v` in hex and the character after it. */
static inline char *put_hex(char *at, uint64_t v, char after) {
    at += rvt_format_hex(at, v);
    *at = after;
    return at + 1;
}

static void put_row(rvt_row_writer *w, const row *r) {
    if (w->len > ROW_BUFFER - ROW_MAX)
        write_out(w);
    char *at = w->buf + w->len;
    if (w->format == RVT_ROWS_PCS) {
        if (counts_as_executed(r))
            at = put_hex(at, r->addr, '\n');
    } else { /* 1,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT */
        *at++ = '1';
        *at++ = ',';
        at = put_hex(at, r->addr, ',');
        at = put_hex(at, r->insn, ',');
        if (r->priv < 10) /* decimal */
            *at++ = (char)('0' + r->priv);
        else
            at += snprintf(at, 4, "%u", (unsigned)r->priv);
        *at++ = ',';
        *at++ = r->exception || r->interrupt ? '1' : '0';
        *at++ = ',';
        at = put_hex(at, r->cause, ',');
        at = put_hex(at, r->tval, ',');
        *at++ = r->interrupt ? '1' : '0';
        *at++ = '\n';
    }
    w->len = (size_t)(at - w->buf);
}

int rvt_row_writer_sink(void *writer, const rvt_retire *recs, size_t n) {
    rvt_row_writer *w = writer;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *r = &recs[i];
        if (r->hart != 0)
            continue; /* the row formats describe one hart: hart 0, like spike's log of core 0 */
        if (r->itype == RVT_ITYPE_INTERRUPT) {
            if (w->have_pending) {
                w->pending.interrupt = true;
                w->pending.cause = r->cause;
            }
            continue;
        }
        if (rvt_retire_is_fetch_trap(r) && w->have_pending && w->pending.retired && !w->pending.exception &&
            !w->pending.interrupt) {
            w->pending.exception = true;
            w->pending.fetch_trap = true;
            w->pending.cause = r->cause;
            w->pending.tval = r->tval;
            continue;
        }
        row next = {.addr = r->iaddr, .insn = r->insn, .priv = r->priv};
        if (r->ninsns == 0) { /* exception record */
            next.exception = true;
            next.cause = r->cause;
            next.tval = r->tval;
        } else {
            next.retired = true;
        }
        if (w->have_pending)
            put_row(w, &w->pending);
        w->pending = next;
        w->have_pending = true;
    }
    return w->failed || ferror(w->f) ? RVT_E_IO : 0;
}

int rvt_row_writer_finish(rvt_row_writer *w) {
    if (!w)
        return RVT_OK;
    if (w->have_pending)
        put_row(w, &w->pending);
    write_out(w);
    int rc = (w->failed || fflush(w->f) != 0 || ferror(w->f)) ? RVT_E_IO : RVT_OK;
    free(w);
    return rc;
}

/* ------------------------------------------------------- reference filter */

struct rvt_ref_filter {
    rvt_retire_sink next;
    void *user;
    rvt_retire held[2]; /* the last row's record and the interrupt that marks it, not passed on yet */
    unsigned nheld;
    rvt_code_fetch fetch; /* the code, to cut the final row off a final block */
    void *fetch_user;
};

void rvt_ref_filter_set_code(rvt_ref_filter *f, rvt_code_fetch fetch, void *user) {
    f->fetch = fetch;
    f->fetch_user = user;
}

int rvt_ref_filter_new(rvt_ref_filter **out, rvt_retire_sink next, void *next_user) {
    rvt_ref_filter *f = calloc(1, sizeof *f);
    if (!f)
        return RVT_E_NOMEM;
    f->next = next;
    f->user = next_user;
    *out = f;
    return RVT_OK;
}

/* Whether r repeats the instruction the held row ended with: a
 * one-instruction loop is one row (a block repeating is a longer loop). */
static bool repeats_row(const rvt_retire *held, const rvt_retire *r) {
    if (r->ninsns != 1 || !held->ninsns || held->hart != r->hart)
        return false; /* (most records: a block, or after a trap) */
    return (held->ninsns > 1 ? rvt_retire_last_iaddr(held) : held->iaddr) == r->iaddr;
}

/* Passes on what f holds, then recs[0..n) (which came after it). */
static int pass_on(rvt_ref_filter *f, const rvt_retire *recs, size_t n) {
    int rc = 0;
    if (f->nheld)
        rc = f->next(f->user, f->held, f->nheld);
    f->nheld = 0;
    return !rc && n ? f->next(f->user, recs, n) : rc;
}

/* Records are passed on straight from recs, a run at a time (copying each
 * would cost as much as the encoders behind): recs[from..) up to the row
 * held last, which waits for what follows it. That row is recs[at], or
 * f->held[0] while at < 0. */
int rvt_ref_filter_sink(void *filter, const rvt_retire *recs, size_t n) {
    rvt_ref_filter *f = filter;
    size_t from = 0;
    long at = -1;
    bool have_row = f->nheld != 0, marked = f->nheld == 2;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *r = &recs[i];
        bool repeat = have_row && !marked && repeats_row(at >= 0 ? &recs[at] : &f->held[0], r);
        if (r->ninsns && !repeat) {
            /* A row. Most records are rows, blocks or single instructions
             * that do not repeat the row before: the rest of their run in a
             * loop of its own (a branch right after a branch makes a record
             * of one instruction, half of them in a state machine). */
            const rvt_retire *end = recs + n, *b = r + 1;
            while (b < end && (b->ninsns > 1 || (b->ninsns == 1 && !repeats_row(b - 1, b))))
                b++;
            i = (size_t)(b - recs) - 1;
            at = (long)i;
            have_row = true;
            marked = false;
            continue;
        }
        if (r->itype == RVT_ITYPE_INTERRUPT && r->ninsns == 0 && have_row && !marked) {
            marked = true; /* the interrupt marks the held row */
            continue;
        }
        if (repeat) {
            /* r is left out: what came before the held row is passed on,
             * the row is kept aside (nothing between it and r) */
            if (at >= 0) {
                int rc = pass_on(f, recs + from, (size_t)at - from);
                if (rc)
                    return rc;
                f->held[0] = recs[at];
                f->nheld = 1;
                at = -1;
            }
            from = i + 1;
            continue;
        }
        at = (long)i;
        have_row = true;
        marked = false;
    }
    if (at < 0) {
        if (from < n) /* only the interrupt marking the row held since before */
            f->held[f->nheld++] = recs[from];
        return 0;
    }
    int rc = pass_on(f, recs + from, (size_t)at - from);
    f->nheld = (unsigned)(n - (size_t)at); /* the row, and the interrupt marking it */
    memcpy(f->held, recs + at, f->nheld * sizeof *recs);
    return rc;
}

void rvt_ref_filter_free(rvt_ref_filter *f) { free(f); }

int rvt_ref_filter_finish(rvt_ref_filter *f) {
    int rc = 0;
    if (f->nheld == 1 && f->held[0].ninsns > 1 && f->fetch) {
        /* the final row is the block's last instruction: the rest retired */
        rvt_retire b = f->held[0];
        rvt_insn in;
        uint64_t a = b.iaddr;
        uint32_t k = 0;
        for (; k + 2 < b.ninsns && f->fetch(f->fetch_user, a, &in); k++)
            a += in.len;
        if (k + 2 == b.ninsns && f->fetch(f->fetch_user, a, &in)) {
            b.ninsns--;
            b.iretire = (uint16_t)(b.iretire - (b.ilastsize + 1));
            b.ilastsize = in.len == 4;
            b.insn = in.raw;
            b.itype = RVT_ITYPE_NONE;
            b.sijump = 0;
            rc = f->next(f->user, &b, 1);
        }
    }
    free(f);
    return rc;
}
