/* Row formats of the reference flow: the spike CSV of the corpus and the
 * retired-PC list derived from it. One row is held back so that an interrupt
 * can still be marked on it, as the reference conversion does. */
#include <inttypes.h>
#include <stdlib.h>

#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

typedef struct row {
    uint64_t addr, cause, tval;
    uint32_t insn;
    uint8_t priv;
    bool exception, interrupt, retired;
} row;

struct rvt_row_writer {
    FILE *f;
    enum rvt_row_format format;
    bool drop_last;
    row pending;
    bool have_pending;
};

int rvt_row_writer_new(rvt_row_writer **out, FILE *f, enum rvt_row_format format, bool drop_last) {
    rvt_row_writer *w = calloc(1, sizeof *w);
    if (!w)
        return RVT_E_NOMEM;
    w->f = f;
    w->format = format;
    w->drop_last = drop_last;
    if (format == RVT_ROWS_SPIKE_CSV)
        fputs("VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n", f);
    *out = w;
    return RVT_OK;
}

static bool counts_as_executed(const row *r) {
    if (r->interrupt)
        return false;
    if (!r->exception)
        return true;
    uint64_t code = r->cause & 0xff;
    return code == 3 || code == 8 || code == 9 || code == 11; /* ebreak, ecalls */
}

static void put_row(rvt_row_writer *w, const row *r) {
    if (w->format == RVT_ROWS_PCS) {
        if (counts_as_executed(r))
            fprintf(w->f, "%" PRIx64 "\n", r->addr);
        return;
    }
    fprintf(w->f, "1,%" PRIx64 ",%" PRIx32 ",%u,%d,%" PRIx64 ",%" PRIx64 ",%d\n", r->addr, r->insn,
            (unsigned)r->priv, r->exception || r->interrupt, r->cause, r->tval, r->interrupt);
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
        row next = {.addr = r->iaddr, .insn = r->insn, .priv = r->priv};
        if (r->ninsns == 0) { /* exception record */
            next.exception = true;
            next.cause = r->cause;
            next.tval = r->tval;
        } else {
            next.retired = true;
            if (w->have_pending && w->pending.retired && !w->pending.exception && !w->pending.interrupt &&
                w->pending.addr == r->iaddr)
                continue; /* one-instruction loop: a single row */
        }
        if (w->have_pending)
            put_row(w, &w->pending);
        w->pending = next;
        w->have_pending = true;
    }
    return ferror(w->f) ? RVT_E_IO : 0;
}

int rvt_row_writer_finish(rvt_row_writer *w) {
    if (!w)
        return RVT_OK;
    /* The reference conversion leaves out the final row of spike's log: the
     * store or loop the program was spinning in when the host saw the exit
     * code, or the trap that handed control to the host. */
    if (w->have_pending && !w->drop_last)
        put_row(w, &w->pending);
    int rc = (fflush(w->f) != 0 || ferror(w->f)) ? RVT_E_IO : RVT_OK;
    free(w);
    return rc;
}
