/* A retirement stream handed from the producer's thread to a consumer's. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rvtrace/ingress.h"

/* Batches of 4096 records (256 KiB): few hand-overs (each may wake the
 * consumer); eight let the producer run ahead over a consumer's slow
 * stretch (a burst of packets) without waiting. 2048 and 8192 measured
 * within noise of this on run --ntrace. */
enum { RELAY_BATCH = 4096, RELAY_BATCHES = 8 };
/* Waking a sleeping thread costs the waker a system call and, on a virtual
 * machine, an interrupt between processors, and the hart (the producer) is
 * usually the slower side. So a consumer that runs dry looks again after
 * RELAY_POLL_NS on its own (in practice 60-90 us later, while the hart
 * fills a batch in 30-50 us; the hart model never waits for input, so
 * nothing but a full ring stops it for long). The producer wakes it only
 * when RELAY_WAKE_AT batches wait, as it did before the consumer polled:
 * where its timer fires late (a virtual processor the host runs late) the
 * rest of the ring still covers the wake. A producer that finds all
 * batches queued sleeps until RELAY_WAKE_AT are free, not just one, not to
 * be woken for every batch. */
enum { RELAY_WAKE_AT = RELAY_BATCHES / 2, RELAY_POLL_NS = 20000 };

struct rvt_retire_relay {
    rvt_retire_sink next;
    void *next_user;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t filled, emptied;
    /* Batches are filled in order: `queued` of them are full, from the one
     * at `first`; the producer fills the one after them. */
    unsigned first, queued;
    bool closing;
    int error; /* the first error of `next` (under the lock) */
    unsigned filling_at; /* the producer's batch (its own: first + queued) */
    size_t filling;      /* records in it */
    size_t len[RELAY_BATCHES];
    /* on huge pages (2 MiB: one page fault rather than 512 in a short run) */
    rvt_retire (*batch)[RELAY_BATCH];
};

static void *consume(void *arg) {
    rvt_retire_relay *r = arg;
    int rc = 0;
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (!r->queued && !r->closing) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += RELAY_POLL_NS;
            if (until.tv_nsec >= 1000000000) {
                until.tv_nsec -= 1000000000;
                until.tv_sec++;
            }
            pthread_cond_timedwait(&r->filled, &r->lock, &until);
        }
        if (!r->queued)
            break;
        unsigned b = r->first;
        pthread_mutex_unlock(&r->lock);
        if (!rc)
            rc = r->next(r->next_user, r->batch[b], r->len[b]);
        pthread_mutex_lock(&r->lock);
        if (rc && !r->error)
            r->error = rc;
        r->first = (r->first + 1) % RELAY_BATCHES;
        if (--r->queued <= RELAY_BATCHES - RELAY_WAKE_AT)
            pthread_cond_signal(&r->emptied);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

int rvt_retire_relay_new(rvt_retire_relay **out, rvt_retire_sink next, void *next_user) {
    rvt_retire_relay *r = calloc(1, sizeof *r);
    if (!r || !(r->batch = rvt_huge_alloc(RELAY_BATCHES * sizeof *r->batch))) {
        free(r);
        return RVT_E_NOMEM;
    }
    r->next = next;
    r->next_user = next_user;
    pthread_mutex_init(&r->lock, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC); /* (the consumer's timed waits) */
    pthread_cond_init(&r->filled, &monotonic);
    pthread_condattr_destroy(&monotonic);
    pthread_cond_init(&r->emptied, NULL);
    if (pthread_create(&r->thread, NULL, consume, r)) {
        pthread_cond_destroy(&r->filled);
        pthread_cond_destroy(&r->emptied);
        pthread_mutex_destroy(&r->lock);
        rvt_huge_free(r->batch, RELAY_BATCHES * sizeof *r->batch);
        free(r);
        return RVT_E_NOMEM;
    }
    *out = r;
    return RVT_OK;
}

/* The producer's batch joins the queue; returns the consumer's error. */
static int hand_over(rvt_retire_relay *r) {
    pthread_mutex_lock(&r->lock);
    r->len[r->filling_at] = r->filling;
    if (++r->queued >= RELAY_WAKE_AT)
        pthread_cond_signal(&r->filled);
    if (r->queued == RELAY_BATCHES)
        while (r->queued > RELAY_BATCHES - RELAY_WAKE_AT)
            pthread_cond_wait(&r->emptied, &r->lock);
    int rc = r->error;
    pthread_mutex_unlock(&r->lock);
    r->filling_at = (r->filling_at + 1) % RELAY_BATCHES;
    r->filling = 0;
    return rc;
}

int rvt_retire_relay_sink(void *relay, const rvt_retire *recs, size_t n) {
    rvt_retire_relay *r = relay;
    while (n) {
        rvt_retire *to = r->batch[r->filling_at] + r->filling;
        size_t k = RELAY_BATCH - r->filling < n ? RELAY_BATCH - r->filling : n;
        if (recs != to) /* else written in place (rvt_retire_relay_space) */
            memcpy(to, recs, k * sizeof *recs);
        r->filling += k;
        recs += k;
        n -= k;
        if (r->filling == RELAY_BATCH) {
            int rc = hand_over(r);
            if (rc)
                return rc;
        }
    }
    return RVT_OK;
}

rvt_retire *rvt_retire_relay_space(void *relay, size_t *cap) {
    rvt_retire_relay *r = relay;
    *cap = RELAY_BATCH - r->filling;
    return r->batch[r->filling_at] + r->filling;
}

int rvt_retire_relay_finish(rvt_retire_relay *r) {
    if (!r)
        return RVT_OK;
    if (r->filling)
        hand_over(r);
    pthread_mutex_lock(&r->lock);
    r->closing = true;
    pthread_cond_signal(&r->filled);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    int rc = r->error;
    pthread_cond_destroy(&r->filled);
    pthread_cond_destroy(&r->emptied);
    pthread_mutex_destroy(&r->lock);
    rvt_huge_free(r->batch, RELAY_BATCHES * sizeof *r->batch);
    free(r);
    return rc;
}
