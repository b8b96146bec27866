/* Reading ahead on a second thread: two pieces alternate, one being read by
 * the worker while the caller takes the records of the other. */
#include "parse_ahead.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* TV_PIECE_BYTES, the bytes handed to the worker at a time: small enough
 * that the two pieces' records stay in the caches, large enough that
 * hand-overs are rare. */
#define PIECE TV_PIECE_BYTES

struct piece {
    uint8_t bytes[PIECE];
    size_t nbytes;
    rvt_tv_record recs[TV_PIECE_RECORDS];
    size_t nrecs;
    void *prepared;
    int status;                    /* <0: the stream is invalid after recs */
    rvt_diag diag;
};

struct tv_parse_ahead {
    rvt_tv_reader *rd;
    tv_prepare_fn prepare;
    const void *prepare_user;
    rvt_tv_read_fn source; /* tv_parse_ahead_pull: pieces are read from it on the reading thread */
    void *source_user;
    struct piece *pieces[2];
    int filling;          /* the piece the next bytes go to */
    struct piece *unread; /* read by the worker, records not yet taken; NULL: none */
    int status;           /* first error seen: no more feeding */

    /* Hand-overs come every few tens of microseconds, so each side first
     * waits for the other by spinning (yielding the CPU now and then: on a
     * loaded machine the other side may be waiting for this one) and sleeps
     * on a condition only after SPINS polls; the other side signals only a
     * side that said it sleeps (*_asleep, set under the lock before its last
     * look). */
    bool threaded;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    _Atomic(struct piece *) work; /* the piece the worker reads; NULL: idle */
    atomic_bool quit, worker_asleep, caller_asleep;
};

#define SPINS 4000

static void read_piece(tv_parse_ahead *pa, struct piece *pc) {
    pc->nrecs = 0;
    pc->status = 0;
    if (pa->source) {
        long n = pa->source(pa->source_user, pc->bytes, PIECE, &pc->diag);
        pc->nbytes = n > 0 ? (size_t)n : 0;
        if (n <= 0) {
            pc->status = (int)n;
            return;
        }
    }
    rvt_tv_reader_feed(pa->rd, pc->bytes, pc->nbytes);
    for (;;) {
        long n = rvt_tv_reader_read(pa->rd, pc->recs + pc->nrecs, TV_PIECE_RECORDS - pc->nrecs, &pc->diag);
        if (n <= 0) {
            pc->status = (int)n;
            break;
        }
        pc->nrecs += (size_t)n;
    }
    if (pa->prepare)
        pa->prepare(pa->prepare_user, pc->recs, pc->nrecs, pc->prepared);
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

static bool has_work(tv_parse_ahead *pa) { return atomic_load(&pa->work) || atomic_load(&pa->quit); }
static bool is_idle(tv_parse_ahead *pa) { return !atomic_load(&pa->work); }

static void *worker(void *arg) {
    tv_parse_ahead *pa = arg;
    for (;;) {
        wait_for(pa, has_work, &pa->worker_asleep, &pa->wake);
        if (atomic_load(&pa->quit))
            return NULL;
        read_piece(pa, atomic_load(&pa->work));
        atomic_store(&pa->work, NULL);
        wake_up(pa, &pa->caller_asleep, &pa->done);
    }
}

static void wait_idle(tv_parse_ahead *pa) {
    if (pa->threaded)
        wait_for(pa, is_idle, &pa->caller_asleep, &pa->done);
}

static void start_reading(tv_parse_ahead *pa, struct piece *pc) {
    if (!pa->threaded) {
        read_piece(pa, pc);
        return;
    }
    atomic_store(&pa->work, pc);
    wake_up(pa, &pa->worker_asleep, &pa->wake);
}

static void free_pieces(tv_parse_ahead *pa) {
    for (int i = 0; i < 2; i++)
        if (pa->pieces[i]) {
            free(pa->pieces[i]->prepared);
            free(pa->pieces[i]);
        }
}

int tv_parse_ahead_new(tv_parse_ahead **out, rvt_tv_reader *reader, tv_prepare_fn prepare, const void *prepare_user,
                       size_t prepared_size) {
    tv_parse_ahead *pa = calloc(1, sizeof *pa);
    bool ok = pa != NULL;
    for (int i = 0; ok && i < 2; i++) {
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
    pa->prepare = prepare;
    pa->prepare_user = prepare_user;
    pa->rd = reader;
    if (!pthread_mutex_init(&pa->lock, NULL)) {
        if (!pthread_cond_init(&pa->wake, NULL)) {
            if (!pthread_cond_init(&pa->done, NULL)) {
                if (!pthread_create(&pa->thread, NULL, worker, pa)) {
                    pa->threaded = true;
                    *out = pa;
                    return RVT_OK;
                }
                pthread_cond_destroy(&pa->done);
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
        wait_idle(pa);
        atomic_store(&pa->quit, true);
        pthread_mutex_lock(&pa->lock);
        pthread_cond_signal(&pa->wake);
        pthread_mutex_unlock(&pa->lock);
        pthread_join(pa->thread, NULL);
        pthread_cond_destroy(&pa->done);
        pthread_cond_destroy(&pa->wake);
        pthread_mutex_destroy(&pa->lock);
    }
    rvt_tv_reader_free(pa->rd);
    free_pieces(pa);
    free(pa);
}

/* Hands over the records of the piece read last, and its error after them. */
static int take_unread(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag) {
    struct piece *pc = pa->unread;
    pa->unread = NULL;
    if (!pc)
        return RVT_OK;
    int rc = pc->nrecs ? fn(user, pc->recs, pc->nrecs, pc->prepared, diag) : RVT_OK;
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
        struct piece *pc = pa->pieces[pa->filling];
        size_t n = len < PIECE ? len : PIECE;
        memcpy(pc->bytes, data, n);
        pc->nbytes = n;
        data += n;
        len -= n;
        wait_idle(pa); /* the piece before is read */
        struct piece *before = pa->unread;
        if (before && before->status < 0) {
            /* reading stops at an error: nothing after it is read */
            take_unread(pa, fn, user, diag);
            break;
        }
        start_reading(pa, pc);
        pa->filling ^= 1;
        pa->unread = before;
        take_unread(pa, fn, user, diag);
        pa->unread = pc;
    }
    return pa->status;
}

/* Waits for the worker and hands over what it read last; the status. */
static int take_read(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag) {
    if (pa->status)
        return pa->status;
    wait_idle(pa);
    return take_unread(pa, fn, user, diag);
}

/* The reader's checks at the end of the stream. */
static int end_of_stream(tv_parse_ahead *pa, rvt_diag *diag) {
    int rc = rvt_tv_reader_finish(pa->rd, diag);
    return rc ? (pa->status = rc) : RVT_OK;
}

int tv_parse_ahead_finish(tv_parse_ahead *pa, tv_records_fn fn, void *user, rvt_diag *diag) {
    int rc = take_read(pa, fn, user, diag);
    return rc ? rc : end_of_stream(pa, diag);
}

int tv_parse_ahead_pull(tv_parse_ahead *pa, rvt_tv_read_fn source, void *source_user, tv_records_fn fn, void *user,
                        bool (*stop)(void *user), rvt_diag *diag) {
    if (take_read(pa, fn, user, diag)) /* what was fed before */
        return pa->status;
    pa->source = source;
    pa->source_user = source_user;
    struct piece *pc = pa->pieces[pa->filling];
    start_reading(pa, pc);
    bool ended = false;
    while (!ended) {
        wait_idle(pa);
        struct piece *done = pc;
        ended = done->nbytes == 0 || done->status < 0;
        if (!ended) { /* the next piece is read while this one's records are taken */
            pa->filling ^= 1;
            pc = pa->pieces[pa->filling];
            start_reading(pa, pc);
        }
        pa->unread = done;
        if (take_unread(pa, fn, user, diag) || (stop && stop(user)))
            break;
    }
    wait_idle(pa);
    pa->source = NULL;
    if (pa->status || !ended)
        return pa->status;
    return end_of_stream(pa, diag);
}
