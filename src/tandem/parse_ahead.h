/* Reading ahead: a second thread turns the next piece of a tandem trace into
 * records (reading the piece itself when pulling, and preparing what the
 * caller asks of each piece) while the caller verifies the records of the
 * piece before. Records reach the caller in stream order, and an invalid
 * stream stops them where reading alone would: the records before the bad
 * one first, then its error. */
#ifndef RVTRACE_TANDEM_PARSE_AHEAD_H
#define RVTRACE_TANDEM_PARSE_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rvtrace/tandem.h"

typedef struct tv_parse_ahead tv_parse_ahead;

/* Bytes read at a time, and so the most records of a piece (a record is a
 * byte at least; one more completes a record the piece before cut). Large
 * pieces make hand-overs rare; what a piece turns into streams through the
 * caches either way (coremark: 256 KiB verified 10 % faster than 64 KiB). */
#define TV_PIECE_BYTES (256 * 1024)
#define TV_PIECE_RECORDS (TV_PIECE_BYTES + 1)

struct in_place;

/* Work on the reading thread beside the caller (so it may read only what no
 * thread changes): `start` readies a piece's prepared area (of the size
 * given to tv_parse_ahead_new, one per piece, handed over with the piece's
 * records); `take` is offered the stream wherever a group begins outside any
 * group with decode_in_place possible there. It may take whole groups from
 * the bytes themselves, advancing `at` past them, and leave what it made of
 * them in `prepared`, to be taken before record `nrecs` of the piece (so
 * the records of those groups never exist); it returns how many it took. */
typedef struct tv_group_taker {
    void (*start)(const void *user, void *prepared);
    size_t (*take)(const void *user, struct in_place *at, size_t nrecs, void *prepared);
    const void *user;
    size_t prepared_size;
} tv_group_taker;

/* Takes the records of one piece and what was prepared beside them; returns
 * 0 or an error status (which stops the stream). */
typedef int (*tv_records_fn)(void *user, const rvt_tv_record *recs, size_t n, void *prepared, rvt_diag *diag);

/* Reads with `reader`, which the read-ahead owns from now on (and frees);
 * `taker` (NULL: none) is copied. Without a thread to be had it reads in the
 * caller's thread, same results. */
int tv_parse_ahead_new(tv_parse_ahead **out, rvt_tv_reader *reader, const tv_group_taker *taker);
void tv_parse_ahead_free(tv_parse_ahead *pa);

/* Copies `data` and starts reading it; hands `fn` the records of what was
 * fed before. */
int tv_parse_ahead_feed(tv_parse_ahead *pa, const uint8_t *data, size_t len, tv_records_fn fn, void *user,
                        rvt_diag *diag);
/* Reads pieces from `source` on the reading thread until it returns 0 (the
 * end: then as tv_parse_ahead_finish) or an error status (<0, returned),
 * handing `fn` the records of each while the next is read; stops early,
 * returning 0 without the end's checks, once `stop` (NULL: never) says so
 * after a piece. Whatever was fed before comes first. */
int tv_parse_ahead_pull(tv_parse_ahead *pa, rvt_tv_read_fn source, void *source_user, tv_records_fn fn, void *user,
                        bool (*stop)(void *user), rvt_diag *diag);

/* Hands `fn` the last records; RVT_E_TRUNC when the stream ends inside a record. */
int tv_parse_ahead_finish(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag);

#endif
