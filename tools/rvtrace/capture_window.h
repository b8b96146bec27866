/* A capture read through a window of bounded size, for the commands that
 * walk it from start to end once (dump, stats): memory stays at the
 * window's size however big the capture is, and a pipe works as a file. */
#ifndef RVTRACE_TOOL_CAPTURE_WINDOW_H
#define RVTRACE_TOOL_CAPTURE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rvtrace/common.h"
#include "rvtrace/etrace.h"
#include "rvtrace/ntrace.h"

typedef struct capture_window {
    rvt_zreader *zr;
    uint8_t *data;   /* data[0..have) is the capture from file offset base on */
    size_t have, cap;
    uint64_t base;
    uint64_t total;  /* bytes read so far (the capture's size once eof) */
    bool eof;
} capture_window;

/* Opens `path` (zstd or not) with a window of `cap` bytes; an error (the
 * file, or memory, in words) in `d`. */
int capture_window_open(capture_window *w, const char *path, size_t cap, rvt_diag *d);
/* Drops data[0..keep_from) and reads on until the window is full or the
 * capture ends. */
int capture_window_slide(capture_window *w, size_t keep_from, rvt_diag *d);
void capture_window_close(capture_window *w);

/* E-Trace: the next packet as rvt_te_raw_next gives it from a whole file
 * (`cur` zeroed apart from its transport before the first call), with
 * *file_offset its offset in the capture. Returns 1, 0 at the end, or a
 * negative status with `d` set (a read error included). */
int capture_window_next_packet(capture_window *w, rvt_te_raw_cursor *cur, const rvt_etrace_params *p,
                               const rvt_etrace_options *o, rvt_te_inst *pkt, uint64_t *file_offset, rvt_diag *d);

/* Nexus (N-Trace, SiFive): messages as rvt_nexus_next gives them from a
 * whole file. A message is whole in the window once an end mark (MSEO 3)
 * follows its start; a damaged stretch longer than the window is skipped
 * to its end mark as in a whole file. */
typedef struct nexus_window {
    capture_window w;
    rvt_nexus_config cfg;
    rvt_nexus_reader r;
    size_t marks_end;  /* just past the window's last end mark */
    bool need_more;    /* idle bytes to the window's end: slide before reading on */
    bool in_damage;    /* a damaged message goes on past the window's end */
    bool read_failed;  /* the last NEXUS_WINDOW_DAMAGED was a read error */
} nexus_window;

enum {
    NEXUS_WINDOW_END = 0,
    NEXUS_WINDOW_MESSAGE = 1, /* *m, its bytes at window.data + (m->offset - window.base) */
    NEXUS_WINDOW_IDLE = 2,    /* the window held idle bytes only: [*from, r.pos) */
    NEXUS_WINDOW_MORE_DAMAGE = 3, /* more bytes of the damaged message before: [*from, r.pos) */
    NEXUS_WINDOW_DAMAGED = -1 /* `d` says what; bytes [*from, r.pos) were skipped */
};
int nexus_window_open(nexus_window *nw, const char *path, const rvt_nexus_config *cfg, size_t cap, rvt_diag *d);
/* *from: where the bytes before the message (idle) or the damage start in
 * the window. */
int nexus_window_next(nexus_window *nw, rvt_nexus_msg *m, size_t *from, rvt_diag *d);
void nexus_window_close(nexus_window *nw);

#endif
