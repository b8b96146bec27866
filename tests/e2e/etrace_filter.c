/* E-Trace filtering on the hart model's runs of corpus programs: with an
 * address range, a privilege mask, a start/stop trigger pair and a notify
 * address, and trap handlers selected by cause, the decoded addresses must
 * be exactly the executed instructions that meet the filter (computed here
 * from the run, independently of the encoder), and every notify address must
 * come back as a notify packet. Halted and reset sideband records inserted
 * into the run must each end the trace with a support packet, and the
 * decoded flow must still be the whole run. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"

#include "program_run.h"
#include "raw_packets.h"

#define VARIANTS 5

typedef struct {
    uint64_t *v;
    size_t n, cap;
} pcs;

static int push(pcs *l, uint64_t pc) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1 << 16;
        uint64_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return 1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = pc;
    return 0;
}

typedef struct {
    rvt_etrace_encoder *enc;
    rvt_retire *recs;
    size_t n, cap;
} run_ctx;

static int keep_records(void *user, const rvt_retire *recs, size_t n) {
    run_ctx *r = user;
    if (r->n + n > r->cap) {
        size_t cap = (r->cap + n) * 2;
        rvt_retire *p = realloc(r->recs, cap * sizeof *p);
        if (!p)
            return 1;
        r->recs = p;
        r->cap = cap;
    }
    memcpy(r->recs + r->n, recs, n * sizeof *recs);
    r->n += n;
    return 0;
}

typedef struct {
    rvt_image *img;
    rvt_machine *m;
    pcs got;
} dec_ctx;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    dec_ctx *c = user;
    return rvt_program_insn(c->img, c->m, addr, out);
}

static int sink(void *user, uint64_t pc) { return push(&((dec_ctx *)user)->got, pc); }

/* The filter as the spec describes it, applied to the executed records. */
static void expected(const rvt_retire *recs, size_t n, const struct rvt_etrace_filter *f, pcs *want) {
    bool latch = !f->use_start, handler = false;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *r = &recs[i];
        if (r->sideband)
            continue;
        if (f->use_start && r->iaddr == f->start_addr)
            latch = true;
        bool ok = latch;
        if (f->nranges)
            ok &= r->iaddr >= f->lo[0] && r->iaddr < f->hi[0];
        if (f->priv_mask)
            ok &= (f->priv_mask >> (r->priv & 3)) & 1;
        if (f->use_stop && r->iaddr == f->stop_addr)
            latch = false;
        if (f->exception_mask || f->interrupt_mask) {
            ok &= handler;
            bool interrupt = r->itype == RVT_ITYPE_INTERRUPT;
            uint64_t code = r->cause & 0xff;
            if (r->ninsns == 0 && (((interrupt ? f->interrupt_mask : f->exception_mask) >> code) & 1))
                handler = true;
            else if (r->ninsns && r->itype == RVT_ITYPE_XRET)
                handler = false;
        }
        bool interrupted = i + 1 < n && recs[i + 1].ninsns == 0 && recs[i + 1].itype == RVT_ITYPE_INTERRUPT;
        if (ok && ((r->ninsns && !interrupted) || rvt_retire_is_env_trap(r)))
            push(want, r->iaddr);
    }
}

int main(int argc, char **argv) {
    int failures = 0, checked = 0;
    for (int k = 1; k < argc; k++) {
        program_run pr;
        if (program_run_open(&pr, argv[k], 2000000))
            return 1;
        rvt_image *img = pr.img;
        rvt_machine *m = pr.m;
        rvt_diag d = {{0}};
        uint64_t main_addr;
        bool has_main = rvt_image_symbol_addr(img, "main", &main_addr);
        /* As the round trip: the reference conversion folds a
         * one-instruction loop, which no branch trace can count. */
        run_ctx r = {0};
        rvt_ref_filter *rf;
        if (rvt_ref_filter_new(&rf, keep_records, &r))
            return 1;
        rvt_machine_set_sink(m, rvt_ref_filter_sink, rf);
        rvt_run_result res;
        rvt_machine_run(m, &res, &d);
        rvt_ref_filter_free(rf);
        /* The run again with a halted record every 997 records and a reset
         * record every 1999, each between two instructions. */
        run_ctx sb = {0};
        size_t markers = 0;
        for (size_t i = 0; i < r.n; i++) {
            if (i > 0 && r.recs[i].ninsns && r.recs[i - 1].ninsns && (i % 997 == 0 || i % 1999 == 0)) {
                rvt_retire mark = {.sideband = i % 997 == 0 ? RVT_SIDEBAND_HALTED : RVT_SIDEBAND_RESET};
                keep_records(&sb, &mark, 1);
                markers++;
            }
            keep_records(&sb, &r.recs[i], 1);
        }
        for (int variant = 0; variant < VARIANTS; variant++) {
            if (variant <= 2 && !has_main)
                continue; /* (these filters are placed around main) */
            const rvt_retire *recs = variant == 3 ? sb.recs : r.recs;
            size_t nrecs = variant == 3 ? sb.n : r.n;
            rvt_etrace_params p;
            rvt_etrace_options o;
            rvt_etrace_params_default(&p);
            rvt_etrace_options_default(&o);
            p.iaddress_width = rvt_image_xlen(img);
            struct rvt_etrace_filter *f = &o.filter;
            if (variant == 0) { /* main's first 512 bytes */
                f->nranges = 1;
                f->lo[0] = main_addr;
                f->hi[0] = main_addr + 0x200;
            } else if (variant == 1) { /* from main's entry, machine mode only, notify main's 2nd instruction */
                f->use_start = true;
                f->start_addr = main_addr;
                f->priv_mask = 1u << 3;
                f->nnotify = 1;
                const rvt_insn *a = rvt_image_insn(img, main_addr);
                f->notify[0] = main_addr + (a ? a->len : 4);
            } else if (variant == 2) { /* between main's entry and its third instruction, every time */
                f->use_start = f->use_stop = true;
                f->start_addr = main_addr;
                const rvt_insn *a = rvt_image_insn(img, main_addr);
                const rvt_insn *b = a ? rvt_image_insn(img, main_addr + a->len) : NULL;
                f->stop_addr = main_addr + (a ? a->len : 4) + (b ? b->len : 4);
            } else if (variant == 4) { /* handlers of ecall from M and U, illegal instruction, timer interrupt */
                f->exception_mask = 1u << 11 | 1u << 8 | 1u << 2;
                f->interrupt_mask = 1u << 7;
            }
            rvt_membuf tb = {0};
            rvt_etrace_encoder *enc;
            if (rvt_etrace_encoder_new(&enc, &p, &o, keep_raw_packet, &tb) || rvt_etrace_encoder_push(enc, recs, nrecs) ||
                rvt_etrace_encoder_finish(enc, NULL)) {
                fprintf(stderr, "%s: encoding failed\n", argv[k]);
                return 1;
            }
            pcs want = {0};
            expected(recs, nrecs, f, &want);
            dec_ctx dc = {img, m, {0}};
            rvt_etrace_decoder *dec;
            rvt_etrace_decoder_new(&dec, &p, &o, rvt_image_xlen(img), fetch, sink, &dc);
            rvt_te_raw_cursor cur = {.data = tb.data, .size = tb.len};
            rvt_te_inst pkt;
            int rc = 0;
            size_t notifies = 0, ended = 0;
            while (!rc && rvt_te_raw_next(&cur, &p, &o, &pkt, NULL, &d) == 1) {
                ended += pkt.format == 3 && pkt.subformat == 3 && pkt.qual_status == 1 && pkt.ienable;
                unsigned msb = (unsigned)(pkt.address >> (rvt_etrace_addr_width(&p) - 1)) & 1;
                notifies += (pkt.format == 1 || pkt.format == 2) && pkt.notify != msb;
                rc = rvt_etrace_decode(dec, &pkt, &d);
            }
            rvt_etrace_decoder_free(dec);
            bool same = want.n == dc.got.n && (want.n == 0 || memcmp(want.v, dc.got.v, want.n * sizeof *want.v) == 0);
            size_t main_runs = 0;
            for (size_t i = 0; i < want.n; i++)
                main_runs += want.v[i] == f->notify[0] && f->nnotify;
            checked += want.n > 0;
            if (rc || !same || (variant == 1 && notifies != main_runs) || (variant == 3 && ended != markers)) {
                failures++;
                printf("%s filter %d: %zu decoded vs %zu expected, %zu notify packets for %zu runs of main, "
                       "%zu ends of trace for %zu halt/reset records %s\n",
                       argv[k], variant, dc.got.n, want.n, notifies, main_runs, ended, markers, rc ? d.msg : "");
                size_t i = 0;
                while (i < want.n && i < dc.got.n && want.v[i] == dc.got.v[i])
                    i++;
                printf("  first difference at entry %zu: decoded %#" PRIx64 ", expected %#" PRIx64 "\n", i,
                       i < dc.got.n ? dc.got.v[i] : 0, i < want.n ? want.v[i] : 0);
            }
            free(want.v);
            free(dc.got.v);
            rvt_membuf_free(&tb);
        }
        free(r.recs);
        free(sb.recs);
        program_run_close(&pr);
    }
    printf("etrace filtering: %d programs x %d filters, %d runs traced something, %d failures\n", argc - 1,
           VARIANTS, checked, failures);
    return failures || checked == 0 ? 1 : 0;
}
