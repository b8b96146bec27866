/* Reading ahead on a second thread: a ring of pieces, the worker reading
 * the next ones in stream order while the caller takes the records of the
 * oldest. */
#include "parse_ahead.h"

#include "in_place.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PIECE TV_PIECE_BYTES
/* Pieces in the ring: with more than two, either side may run ahead of the
 * other for a while, so that a piece slower to read or to verify than the
 * one before does not keep the other side waiting. */
#define NPIECES 3

struct piece {
    uint8_t bytes[PIECE];
    size_t nbytes;
    rvt_tv_record recs[TV_PIECE_RECORDS];
    size_t nrecs;
    size_t ngroups; /* taken by the group taker */
    void *prepared;
    int status;                    /* <0: the stream is invalid after recs */
    rvt_diag diag;
};

struct tv_parse_ahead {
    rvt_tv_reader *rd;
    tv_group_taker taker; /* take NULL: none */
    bool in_group;        /* where the reading thread is in the stream */
    rvt_tv_read_fn source; /* tv_parse_ahead_pull: pieces are read from it on the reading thread */
    void *source_user;
    bool source_ended;     /* it returned 0 or an error: the pieces after it are empty */
    struct piece *pieces[NPIECES];
    size_t taken;         /* pieces whose records the caller took (the caller's) */
    int status;           /* first error seen: no more feeding */

    /* Piece k of the stream is pieces[k % NPIECES]; the caller has asked for
     * `requested` pieces, the worker has read `done`. Hand-overs come every
     * few hundred microseconds, so each side first waits for the other by
     * spinning (yielding the CPU now and then: on a loaded machine the other
     * side may be waiting for this one) and sleeps on a condition only after
     * SPINS polls; the other side signals only a side that said it sleeps
     * (*_asleep, set under the lock before its last look). */
    bool threaded;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, read;
    atomic_size_t requested, done;
    atomic_bool quit, worker_asleep, caller_asleep;
};

#define SPINS 4000

/* The next records of the piece, or whole groups for the taker where it can
 * take them; false at the piece's end or an error. */
static bool read_on(tv_parse_ahead *pa, struct piece *pc) {
    struct in_place at;
    if (pa->taker.take && !pa->in_group && tv_reader_position(pa->rd, &at) && at.len >= IN_PLACE_MARGIN &&
        at.b[0] == RVT_TV_BEGIN) {
        size_t n = pa->taker.take(pa->taker.user, &at, pc->nrecs, pc->prepared);
        if (n) {
            tv_reader_move_to(pa->rd, &at);
            pc->ngroups += n;
            return true;
        }
    }
    long n = rvt_tv_reader_read(pa->rd, pc->recs + pc->nrecs, TV_PIECE_RECORDS - pc->nrecs, &pc->diag);
    if (n <= 0) {
        pc->status = (int)n;
        return false;
    }
    pc->nrecs += (size_t)n;
    /* A read ends at the first begin or end record. */
    unsigned last = pc->recs[pc->nrecs - 1].opcode;
    if (last <= RVT_TV_END)
        pa->in_group = last == RVT_TV_BEGIN;
    return true;
}

static void read_piece(tv_parse_ahead *pa, struct piece *pc) {
    pc->nrecs = pc->ngroups = 0;
    pc->status = 0;
    if (pa->source) {
        long n = pa->source_ended ? 0 : pa->source(pa->source_user, pc->bytes, PIECE, &pc->diag);
        pc->nbytes = n > 0 ? (size_t)n : 0;
        if (n <= 0) {
            pa->source_ended = true;
            pc->status = (int)n;
            return;
        }
    }
    rvt_tv_reader_feed(pa->rd, pc->bytes, pc->nbytes);
    if (pa->taker.start)
        pa->taker.start(pa->taker.user, pc->prepared);
    while (read_on(pa, pc))
        ;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Waits until ready(pa) holds: SPINS polls, then sleeping on `cond` with
 * *asleep set for the other side to see. */
static void wait_for(tv_parse_ahead *pa, bool (*ready)(tv_parse_ahead *), atomic_bool *asleep, pthread_cond_t *cond) {
    for (int i = 0; i < SPINS; i++) {
        if (ready(pa))
            return;
        relax();
        if (i % 1024 == 1023)
            sched_yield(); /* the other side may be waiting for this very CPU */
    }
    pthread_mutex_lock(&pa->lock);
    atomic_store(asleep, true);
    while (!ready(pa))
        pthread_cond_wait(cond, &pa->lock);
    atomic_store(asleep, false);
    pthread_mutex_unlock(&pa->lock);
}

/* Wakes the other side if it sleeps (after the change it waits for). */
static void wake_up(tv_parse_ahead *pa, atomic_bool *asleep, pthread_cond_t *cond) {
    if (!atomic_load(asleep))
        return;
    pthread_mutex_lock(&pa->lock);
    pthread_cond_signal(cond);
    pthread_mutex_unlock(&pa->lock);
}

static bool has_work(tv_parse_ahead *pa) {
    return atomic_load(&pa->done) != atomic_load(&pa->requested) || atomic_load(&pa->quit);
}
static bool all_read(tv_parse_ahead *pa) { return atomic_load(&pa->done) == atomic_load(&pa->requested); }
static bool oldest_read(tv_parse_ahead *pa) { return atomic_load(&pa->done) > pa->taken; }

static void *worker(void *arg) {
    tv_parse_ahead *pa = arg;
    for (;;) {
        wait_for(pa, has_work, &pa->worker_asleep, &pa->wake);
        if (atomic_load(&pa->quit))
            return NULL;
        size_t k = atomic_load(&pa->done);
        read_piece(pa, pa->pieces[k % NPIECES]);
        atomic_store(&pa->done, k + 1);
        wake_up(pa, &pa->caller_asleep, &pa->read);
    }
}

static void wait_all_read(tv_parse_ahead *pa) {
    if (pa->threaded)
        wait_for(pa, all_read, &pa->caller_asleep, &pa->read);
}

static bool ring_full(tv_parse_ahead *pa) { return atomic_load(&pa->requested) - pa->taken == NPIECES; }
static bool nothing_requested(tv_parse_ahead *pa) { return atomic_load(&pa->requested) == pa->taken; }
static struct piece *next_to_fill(tv_parse_ahead *pa) { return pa->pieces[atomic_load(&pa->requested) % NPIECES]; }

/* Asks for the piece next_to_fill gave (its bytes in place unless pulling). */
static void request_piece(tv_parse_ahead *pa) {
    size_t k = atomic_load(&pa->requested);
    if (!pa->threaded) {
        read_piece(pa, pa->pieces[k % NPIECES]);
        atomic_store(&pa->requested, k + 1);
        atomic_store(&pa->done, k + 1);
        return;
    }
    atomic_store(&pa->requested, k + 1);
    wake_up(pa, &pa->worker_asleep, &pa->wake);
}

static void free_pieces(tv_parse_ahead *pa) {
    for (int i = 0; i < NPIECES; i++)
        if (pa->pieces[i]) {
            free(pa->pieces[i]->prepared);
            free(pa->pieces[i]);
        }
}

int tv_parse_ahead_new(tv_parse_ahead **out, rvt_tv_reader *reader, const tv_group_taker *taker) {
    size_t prepared_size = taker ? taker->prepared_size : 0;
    tv_parse_ahead *pa = calloc(1, sizeof *pa);
    bool ok = pa != NULL;
    for (int i = 0; ok && i < NPIECES; i++) {
        struct piece *pc = pa->pieces[i] = malloc(sizeof *pc);
        ok = pc != NULL;
        if (ok) {
            pc->prepared = prepared_size ? malloc(prepared_size) : NULL;
            ok = !prepared_size || pc->prepared;
        }
    }
    if (!ok) {
        if (pa)
            free_pieces(pa);
        free(pa);
        rvt_tv_reader_free(reader);
        return RVT_E_NOMEM;
    }
    if (taker)
        pa->taker = *taker;
    pa->rd = reader;
    if (!pthread_mutex_init(&pa->lock, NULL)) {
        if (!pthread_cond_init(&pa->wake, NULL)) {
            if (!pthread_cond_init(&pa->read, NULL)) {
                if (!pthread_create(&pa->thread, NULL, worker, pa)) {
                    pa->threaded = true;
                    *out = pa;
                    return RVT_OK;
                }
                pthread_cond_destroy(&pa->read);
            }
            pthread_cond_destroy(&pa->wake);
        }
        pthread_mutex_destroy(&pa->lock);
    }
    *out = pa; /* no thread: reading happens in the caller's */
    return RVT_OK;
}

void tv_parse_ahead_free(tv_parse_ahead *pa) {
    if (!pa)
        return;
    if (pa->threaded) {
        wait_all_read(pa);
        atomic_store(&pa->quit, true);
        pthread_mutex_lock(&pa->lock);
        pthread_cond_signal(&pa->wake);
        pthread_mutex_unlock(&pa->lock);
        pthread_join(pa->thread, NULL);
        pthread_cond_destroy(&pa->read);
        pthread_cond_destroy(&pa->wake);
        pthread_mutex_destroy(&pa->lock);
    }
    rvt_tv_reader_free(pa->rd);
    free_pieces(pa);
    free(pa);
}

/* Waits for the oldest piece not yet taken and hands over its records, and
 * its error after them; the status. */
static int take_oldest(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag) {
    if (pa->threaded)
        wait_for(pa, oldest_read, &pa->caller_asleep, &pa->read);
    struct piece *pc = pa->pieces[pa->taken++ % NPIECES];
    int rc = pc->nrecs || pc->ngroups ? fn(user, pc->recs, pc->nrecs, pc->prepared, diag) : RVT_OK;
    if (!rc && pc->status < 0) {
        if (diag)
            *diag = pc->diag;
        rc = pc->status;
    }
    return rc ? (pa->status = rc) : RVT_OK;
}

int tv_parse_ahead_feed(tv_parse_ahead *pa, const uint8_t *data, size_t len, tv_records_fn fn, void *user,
                        rvt_diag *diag) {
    while (len && !pa->status) {
        if (ring_full(pa) && take_oldest(pa, fn, user, diag))
            break;
        struct piece *pc = next_to_fill(pa);
        size_t n = len < PIECE ? len : PIECE;
        memcpy(pc->bytes, data, n);
        pc->nbytes = n;
        data += n;
        len -= n;
        request_piece(pa);
    }
    return pa->status;
}

/* Hands over every piece asked for; the status. */
static int take_all(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag) {
    while (!pa->status && !nothing_requested(pa))
        take_oldest(pa, fn, user, diag);
    return pa->status;
}

/* The reader's checks at the end of the stream. */
static int end_of_stream(tv_parse_ahead *pa, rvt_diag *diag) {
    int rc = rvt_tv_reader_finish(pa->rd, diag);
    return rc ? (pa->status = rc) : RVT_OK;
}

int tv_parse_ahead_finish(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag) {
    int rc = take_all(pa, fn, user, diag);
    return rc ? rc : end_of_stream(pa, diag);
}

int tv_parse_ahead_pull(tv_parse_ahead *pa, rvt_tv_read_fn source, void *source_user, tv_records_fn fn, void *user,
                        bool (*stop)(void *user), rvt_diag *diag) {
    if (take_all(pa, fn, user, diag)) /* what was fed before */
        return pa->status;
    pa->source = source;
    pa->source_user = source_user;
    pa->source_ended = false;
    bool ended = false;
    while (!ring_full(pa))
        request_piece(pa);
    while (!ended) {
        struct piece *pc = pa->pieces[pa->taken % NPIECES];
        if (take_oldest(pa, fn, user, diag) || (stop && stop(user)))
            break;
        ended = pc->nbytes == 0 || pc->status < 0;
        if (!ended) /* its place in the ring takes the piece after those being read */
            request_piece(pa);
    }
    wait_all_read(pa);
    pa->source = NULL;
    /* Pieces read past the end or past a stop are dropped: empty, or not wanted. */
    pa->taken = atomic_load(&pa->requested);
    if (pa->status || !ended)
        return pa->status;
    return end_of_stream(pa, diag);
}
