/* Reading ahead: a second thread turns the next piece of a tandem trace into
 * records while the caller verifies the records of the piece before, so that
 * reading costs the verifier nothing but a copy. Records reach the caller in
 * stream order, and an invalid stream stops them where reading alone would:
 * the records before the bad one first, then its error. */
#ifndef RVTRACE_TANDEM_PARSE_AHEAD_H
#define RVTRACE_TANDEM_PARSE_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "rvtrace/tandem.h"

typedef struct tv_parse_ahead tv_parse_ahead;

/* Takes the records of one piece; returns 0 or an error status (which stops
 * the stream). */
typedef int (*tv_records_fn)(void *user, const rvt_tv_record *recs, size_t n, rvt_diag *diag);

/* Reads with `reader`, which the read-ahead owns from now on (and frees).
 * Without a thread to be had it reads in the caller's thread, same results. */
int tv_parse_ahead_new(tv_parse_ahead **out, rvt_tv_reader *reader);
void tv_parse_ahead_free(tv_parse_ahead *pa);

/* Copies `data` and starts reading it; hands `fn` the records of what was
 * fed before. */
int tv_parse_ahead_feed(tv_parse_ahead *pa, const uint8_t *data, size_t len, tv_records_fn fn, void *user,
                        rvt_diag *diag);
/* Hands `fn` the last records; RVT_E_TRUNC when the stream ends inside a record. */
int tv_parse_ahead_finish(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag);

#endif
