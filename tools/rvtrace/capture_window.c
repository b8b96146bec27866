/* A capture read through a bounded window (capture_window.h). */
#include "capture_window.h"

#include <stdlib.h>
#include <string.h>

/* A te_inst packet, with an encapsulation's index and time stamp, is far
 * shorter; an rv_tracer record is 40 bytes. The window is refilled while
 * fewer than this many bytes are left in it, so a packet is never cut. */
#define PACKET_LOOKAHEAD 64

int capture_window_open(capture_window *w, const char *path, size_t cap, rvt_diag *d) {
    memset(w, 0, sizeof *w);
    w->cap = cap;
    w->data = malloc(cap);
    if (!w->data)
        return rvt_diag_set(d, RVT_E_NOMEM, "out of memory (a %zu-byte read window)", cap);
    int rc = rvt_zreader_open(&w->zr, path, d);
    if (rc) {
        free(w->data);
        w->data = NULL;
    }
    return rc;
}

int capture_window_slide(capture_window *w, size_t keep_from, rvt_diag *d) {
    if (keep_from > w->have)
        keep_from = w->have;
    memmove(w->data, w->data + keep_from, w->have - keep_from);
    w->have -= keep_from;
    w->base += keep_from;
    while (!w->eof && w->have < w->cap) {
        long n = rvt_zreader_read(w->zr, w->data + w->have, w->cap - w->have, d);
        if (n < 0)
            return (int)n;
        w->eof = n == 0;
        w->have += (size_t)n;
        w->total += (uint64_t)n;
    }
    return 0;
}

void capture_window_close(capture_window *w) {
    rvt_zreader_close(w->zr);
    free(w->data);
    memset(w, 0, sizeof *w);
}

/* The cursor looks at the window as it is now (its counts stay). */
static void point_cursor(const capture_window *w, rvt_te_raw_cursor *cur) {
    cur->data = w->data;
    cur->size = w->have;
    cur->pos = 0;
    cur->base = w->base;
    cur->no_zeros_from = 0;
}

int capture_window_next_packet(capture_window *w, rvt_te_raw_cursor *cur, const rvt_etrace_params *p,
                               const rvt_etrace_options *o, rvt_te_inst *pkt, uint64_t *file_offset, rvt_diag *d) {
    const bool records = cur->t && cur->t->rv_tracer_records;
    if (!cur->data)
        point_cursor(w, cur);
    for (;;) {
        if (!w->eof && cur->size - cur->pos < PACKET_LOOKAHEAD) {
            int rc = capture_window_slide(w, cur->pos, d);
            if (rc)
                return rc;
            point_cursor(w, cur);
            continue;
        }
        /* Alignment zeros are skipped here, where the window can be
         * refilled: the cursor would take zeros up to the window's end for
         * the end of the stream. */
        while (!records && cur->pos < cur->size && cur->data[cur->pos] == 0)
            cur->pos++;
        if (cur->pos < cur->size || w->eof)
            break;
    }
    size_t off = 0;
    int rc = rvt_te_raw_next(cur, p, o, pkt, &off, d);
    if (rc == 1)
        *file_offset = w->base + off;
    return rc;
}

static void find_marks_end(nexus_window *nw) {
    size_t end = nw->w.have;
    while (end && (nw->w.data[end - 1] & 3u) != 3u)
        end--;
    nw->marks_end = end;
}

int nexus_window_open(nexus_window *nw, const char *path, const rvt_nexus_config *cfg, size_t cap, rvt_diag *d) {
    memset(nw, 0, sizeof *nw);
    nw->cfg = *cfg;
    int rc = capture_window_open(&nw->w, path, cap, d);
    if (!rc)
        rc = capture_window_slide(&nw->w, 0, d);
    rvt_nexus_reader_init(&nw->r, &nw->cfg, nw->w.data, nw->w.have);
    find_marks_end(nw);
    return rc;
}

void nexus_window_close(nexus_window *nw) { capture_window_close(&nw->w); }

/* Drops what the reader has passed and reads on; the reader's counts stay. */
static int slide_reader(nexus_window *nw, rvt_diag *d) {
    uint64_t skipped = nw->r.skipped, idle = nw->r.idle;
    int rc = capture_window_slide(&nw->w, nw->r.pos, d);
    rvt_nexus_reader_init(&nw->r, &nw->cfg, nw->w.data, nw->w.have);
    nw->r.base = nw->w.base;
    nw->r.skipped = skipped;
    nw->r.idle = idle;
    find_marks_end(nw);
    nw->need_more = false;
    return rc;
}

int nexus_window_next(nexus_window *nw, rvt_nexus_msg *m, size_t *from, rvt_diag *d) {
    capture_window *w = &nw->w;
    rvt_nexus_reader *r = &nw->r;
    for (;;) {
        if (nw->in_damage) {
            /* on to the damaged message's end mark, as in a whole file */
            size_t at = r->pos;
            while (at < w->have && (w->data[at] & 3u) != 3u)
                at++;
            size_t resume = at < w->have ? at + 1 : w->have;
            nw->in_damage = at >= w->have && !w->eof; /* no end mark yet */
            *from = r->pos;
            r->skipped += resume - r->pos;
            r->pos = resume;
            if (resume > *from)
                return NEXUS_WINDOW_MORE_DAMAGE;
        }
        if (!w->eof && (nw->need_more || nw->in_damage || (r->pos >= nw->marks_end && w->have - r->pos < w->cap))) {
            if (slide_reader(nw, d)) {
                nw->read_failed = true;
                *from = r->pos;
                return NEXUS_WINDOW_DAMAGED;
            }
            continue;
        }
        size_t before = r->pos;
        int rc = rvt_nexus_next(r, m, d);
        *from = before;
        if (rc == 0 && !w->eof) {
            /* Idle bytes up to the window's end go with the next message:
             * read again after the slide, unless the window holds nothing
             * else. */
            nw->need_more = true;
            if (before > 0 || w->have < w->cap) {
                r->idle -= r->pos - before;
                r->pos = before;
                continue;
            }
            return NEXUS_WINDOW_IDLE;
        }
        if (rc < 0) {
            nw->read_failed = false;
            /* the damaged message's end mark is beyond the window */
            nw->in_damage = !w->eof && r->pos == w->have && (w->data[w->have - 1] & 3u) != 3u;
            return NEXUS_WINDOW_DAMAGED;
        }
        return rc;
    }
}
