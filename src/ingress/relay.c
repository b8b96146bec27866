/* A retirement stream handed from the producer's thread to a consumer's. */
#define _GNU_SOURCE /* sched_getcpu, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rvtrace/ingress.h"

/* Batches of 16384 packed slots (256 KiB): few hand-overs (each may wake
 * the consumer); eight let the producer run ahead over a consumer's slow
 * stretch (a burst of packets) without waiting. 2048 and 8192 records of
 * 64 bytes measured within noise of 4096 on run --ntrace. The consumer
 * unpacks a batch RELAY_CHUNK records at a time into memory of its own,
 * which stays in its first-level cache. */
enum { RELAY_BATCH = 16384, RELAY_BATCHES = 8, RELAY_CHUNK = 256 };
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

/* Left to itself, Linux often wakes the consumer on the producer's
 * processor (the one that woke it, or where its timer fired) even with
 * another one idle: the two then take turns instead of running side by
 * side. On a 2-processor machine most `run --etrace` and `--ntrace` runs of
 * most corpus programs went that way: 10-70 involuntary context switches
 * of the hart's thread against 2-10, and the run up to 25 % longer. So the
 * consumer keeps off the processor the producer last handed a batch over
 * from, among those the process may use (a taskset choice stands; with one
 * processor, or more than a cpu_set_t holds, nothing changes). The producer
 * itself stays free: it is the caller's thread. */
struct placement {
    bool on;           /* the consumer may be placed */
    cpu_set_t allowed; /* the process's processors when the relay began */
    int avoided;       /* the processor the consumer keeps off (-1: none yet) */
};

static void placement_init(struct placement *p) {
    p->avoided = -1;
    p->on = sched_getaffinity(0, sizeof p->allowed, &p->allowed) == 0 && CPU_COUNT(&p->allowed) >= 2;
}

/* The consumer (the calling thread) keeps off processor `cpu`. */
static void keep_off(struct placement *p, int cpu) {
    if (!p->on || cpu < 0 || cpu == p->avoided || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &p->allowed))
        return;
    cpu_set_t others = p->allowed;
    CPU_CLR(cpu, &others);
    if (pthread_setaffinity_np(pthread_self(), sizeof others, &others) == 0)
        p->avoided = cpu;
}

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
    size_t filling;      /* slots filled in it */
    size_t len[RELAY_BATCHES]; /* slots, whole records */
    rvt_packed_state pack_state;   /* the packed stream's, as rvt_retire_relay_sink packs it */
    rvt_packed_state unpack_state; /* and as the consumer unpacks it */
    int producer_cpu; /* where the producer last handed over from (-1: unknown) */
    struct placement place; /* the consumer's */
    /* on huge pages (2 MiB: one page fault rather than 512 in a short run) */
    rvt_retire_packed (*batch)[RELAY_BATCH];
    rvt_retire chunk[RELAY_CHUNK]; /* the consumer's */
};

static void *consume(void *arg) {
    rvt_retire_relay *r = arg;
    int rc = 0;
    pthread_mutex_lock(&r->lock);
    int producer_cpu = r->producer_cpu;
    pthread_mutex_unlock(&r->lock);
    keep_off(&r->place, producer_cpu);
    /* The ring's 2 MiB are cleared here, not in the producer's first
     * records: 0.3-0.5 ms of a short run's hart thread. That is a gain only
     * where the producer starts some time after rvt_retire_relay_new. */
    rvt_huge_populate(r->batch, RELAY_BATCHES * sizeof *r->batch);
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
        producer_cpu = r->producer_cpu;
        pthread_mutex_unlock(&r->lock);
        keep_off(&r->place, producer_cpu);
        if (!rc)
            rc = rvt_retire_unpack_to(r->batch[b], r->len[b], r->chunk, RELAY_CHUNK, r->next, r->next_user,
                                      &r->unpack_state);
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
    r->producer_cpu = sched_getcpu(); /* (the creator, most likely the producer) */
    placement_init(&r->place);
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
    int cpu = sched_getcpu();
    pthread_mutex_lock(&r->lock);
    r->producer_cpu = cpu;
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

/* After slots were added to the producer's batch: one with no room for
 * the longest record is handed over. */
static int filled(rvt_retire_relay *r) {
    return r->filling > RELAY_BATCH - RVT_PACKED_MAX_SLOTS ? hand_over(r) : RVT_OK;
}

int rvt_retire_relay_sink(void *relay, const rvt_retire *recs, size_t n) {
    rvt_retire_relay *r = relay;
    for (size_t i = 0; i < n; i++) {
        r->filling += rvt_retire_pack(&recs[i], r->batch[r->filling_at] + r->filling, &r->pack_state);
        int rc = filled(r);
        if (rc)
            return rc;
    }
    return RVT_OK;
}

rvt_retire_packed *rvt_retire_relay_space(void *relay, size_t *cap) {
    rvt_retire_relay *r = relay;
    *cap = RELAY_BATCH - r->filling;
    return r->batch[r->filling_at] + r->filling;
}

int rvt_retire_relay_packed_sink(void *relay, const rvt_retire_packed *slots, size_t n) {
    rvt_retire_relay *r = relay;
    if (slots != r->batch[r->filling_at] + r->filling || n > RELAY_BATCH - r->filling)
        return RVT_E_ARG; /* not written in rvt_retire_relay_space's room */
    r->filling += n;
    return filled(r);
}

int rvt_retire_relay_finish(rvt_retire_relay *r, rvt_packed_state *s) {
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
    if (s)
        *s = r->unpack_state;
    pthread_cond_destroy(&r->filled);
    pthread_cond_destroy(&r->emptied);
    pthread_mutex_destroy(&r->lock);
    rvt_huge_free(r->batch, RELAY_BATCHES * sizeof *r->batch);
    free(r);
    return rc;
}
