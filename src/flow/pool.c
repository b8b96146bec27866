/* Decoding on several threads: segments cut at synchronising packets or
 * messages, decoded at once into flow logs, handed on in trace order. What
 * is codec-specific (the decoder, its state, where it may restart) comes
 * through rvt_pool_codec. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"

enum {
    RING = 8,                  /* segments on their way at most (bounds the memory) */
    GIVE_UP = 4,
    PROBE = 16,
    MAX_WORKERS = 64,
    /* items: a few million instructions of work, and time for a worker's log
     * to refer back to the walks it logged before (rvt_flow_log_walk) */
    DEFAULT_MIN_SEGMENT = 16384,
    /* After this many times the least segment without a sync to end at, the
     * segment ends anyway and the next one is chained to it (what a segment
     * holds stays bounded, the consumers get their flow a segment behind) */
    LONG_SEGMENT_FACTOR = 8,
    PREFETCH_AHEAD = 1024, /* bytes */
};

/* SEG_IN_ORDER: closed, for the pool's own decoder only. */
typedef enum { SEG_FREE, SEG_FILLING, SEG_QUEUED, SEG_WORKING, SEG_DONE, SEG_IN_ORDER } seg_state;

/* Each segment on cache lines of its own (and the pair the hardware
 * fetches together): the reading thread writes the filling one's count
 * with every item while a worker reads the one before it. */
#define SEGMENT_ALIGN 128

typedef struct segment {
    _Alignas(SEGMENT_ALIGN) struct rvt_decode_pool *pool;
    unsigned char *items; /* n packets or messages, each as stored_size says */
    size_t n, used, cap;  /* items; bytes of `items` used and allocated */
    seg_state state;
    /* How the segment starts: `fresh` (the trace's first items: decoded
     * from nothing, all of its output kept), `at_sync` (its first item is
     * also the previous segment's last: decoded afresh from the state that
     * item leaves), or neither. */
    bool fresh, at_sync;
    /* Not decodable afresh, but without damage: a worker decodes it in order
     * from where the segment before left the decoder, once that is known
     * (the segment before done and kept for sure, or handed on). A trace
     * without restarting syncs is decoded one segment ahead of the
     * consumers this way instead of all on the reading thread. */
    bool chained;
    char *damage; /* the reader's report of damaged bytes before the first item */
    rvt_flow_log *log;
    void *dec;   /* the worker's decoder, in the state after the last item */
    void *start; /* its state after the first item (at_sync) */
    int status; /* the worker's: 0, else the segment is decoded in order (RVT_E_NOMEM, a full log) */
} segment;

typedef struct worker {
    struct rvt_decode_pool *pool;
    pthread_t thread;
    /* owns the worker's cache of straight runs, and is what its segments'
     * decoders are made like: the configured decoder as it was before the
     * first item (that one changes as the main thread decodes) */
    void *model;
} worker;

struct rvt_decode_pool {
    rvt_decode_pool_config cfg;
    const rvt_pool_codec *codec;
    segment ring[RING];
    uint64_t merged;  /* segments handed on (the oldest on its way is merged % RING) */
    uint64_t filling; /* the segment taking items */
    worker workers[MAX_WORKERS];
    unsigned nworkers;
    worker helper; /* the calling thread's, when it decodes a segment itself */
    pthread_mutex_t mu;
    pthread_cond_t queued, done;
    bool quit;
    uint64_t parallel, again, chained;
    /* Segments decoded again in order one after the other (the syncs of this
     * trace keep state, as E-Trace's without counter or stack do): beyond
     * GIVE_UP the workers only try every PROBE-th segment, the rest goes
     * straight to the in-order decoder instead of being decoded twice. */
    unsigned again_in_a_row;
    uint64_t closed;
    uint64_t warm_up; /* items still to decode in order before the first segment */
    /* Logs of segments handed on, for the next ones a worker takes (last
     * in, first out: its pages are in memory already). A trace read faster
     * than it decodes fills the ring, but only the segments being decoded
     * or waiting to be handed on need a log. */
    rvt_flow_log *spare_logs[RING];
    unsigned nspare_logs;
    int failed; /* a sink or callback stopped decoding: what it returned */
};

static segment *seg_at(rvt_decode_pool *p, uint64_t i) { return &p->ring[i % RING]; }

/* The bytes an item takes in a segment: what the decoder reads of it (a
 * message's fields in use, not the room for all), 8-byte aligned. The
 * reading thread copies the items in and a worker reads them from another
 * core, so this is the traffic between the two: N-Trace messages are 216
 * bytes as structs and mostly under 100 in use. */
static size_t aligned8(size_t n) { return (n + 7) & ~(size_t)7; }
static size_t stored_size(const rvt_pool_codec *codec, const void *item) {
    return aligned8(codec->item_bytes ? codec->item_bytes(item) : codec->item_size);
}

/* The item after `item` in its segment. */
static const unsigned char *item_after(const rvt_pool_codec *codec, const unsigned char *item) {
    return item + stored_size(codec, item);
}

/* A worker's part: the segment's items into its log, afresh or (chained)
 * from the decoder take_queued made. */
static int decode_segment(segment *s, const worker *w) {
    const rvt_pool_codec *codec = s->pool->codec;
    rvt_diag diag;
    size_t i = 0;
    const unsigned char *item = s->items;
    if (s->status)
        return s->status;
    rvt_flow_log_clear(s->log);
    if (!s->chained && codec->like(&s->dec, w->model, w->model, s->log))
        return RVT_E_NOMEM;
    if (s->at_sync) { /* its first item ended the segment before */
        if (!s->chained) { /* (whose decoder lists what the item ends) */
            codec->decode(s->dec, item, &diag);
            if (codec->like(&s->start, w->model, w->model, s->log))
                return RVT_E_NOMEM;
            codec->copy_state(s->start, s->dec);
            rvt_flow_log_clear(s->log);
        }
        i = 1;
        item = item_after(codec, item);
    }
    /* Only the log can refuse: memory ran out, or it is full (the segment
     * is then decoded in order, straight into the consumers). */
    for (const size_t n = s->n; i < n; i++, item = item_after(codec, item)) {
        int rc = codec->decode(s->dec, item, &diag);
        if (rc == RVT_E_IO || (rc && rvt_flow_log_note(s->log, diag.msg)))
            return RVT_E_RANGE;
    }
    return 0;
}

/* With the lock held: the state chained segment `i` starts from, or NULL
 * while it is not known. A segment before it that is done, decoded without
 * error and kept whatever the decoder before it did (fresh or chained
 * itself) ends in it; once that one is handed on, the pool's decoder is in
 * it (and stays so until this segment is handed on). */
static const void *chain_source(rvt_decode_pool *p, uint64_t i) {
    if (i == p->merged)
        return p->cfg.decoder;
    const segment *before = seg_at(p, i - 1);
    if (before->state == SEG_DONE && before->status == 0 && !before->damage && (before->fresh || before->chained))
        return before->dec;
    return NULL;
}

/* With the lock held: the oldest segment a worker can decode now, or NULL;
 * `w` takes it. Its log, and a chained segment's decoder (from the state it
 * starts from, while the lock keeps that still), are made here. */
static segment *take_queued(rvt_decode_pool *p, const worker *w) {
    for (uint64_t i = p->merged; i < p->filling; i++) {
        segment *s = seg_at(p, i);
        if (s->state != SEG_QUEUED)
            continue;
        const void *from = NULL;
        if (s->chained && !(from = chain_source(p, i)))
            continue;
        if (!s->log && p->nspare_logs)
            s->log = p->spare_logs[--p->nspare_logs];
        if (!s->log && rvt_flow_log_new(&s->log))
            s->status = RVT_E_NOMEM;
        else if (from && p->codec->like(&s->dec, w->model, w->model, s->log))
            s->status = RVT_E_NOMEM;
        else if (from)
            p->codec->copy_state(s->dec, from);
        s->state = SEG_WORKING;
        return s;
    }
    return NULL;
}

/* With the lock held (released while it works): `w` decodes `s`. */
static void work_on(rvt_decode_pool *p, segment *s, const worker *w) {
    pthread_mutex_unlock(&p->mu);
    int status = decode_segment(s, w);
    pthread_mutex_lock(&p->mu);
    s->status = status;
    s->state = SEG_DONE;
    pthread_cond_broadcast(&p->done);
    pthread_cond_broadcast(&p->queued); /* a chained segment after it may start */
}

static void *worker_main(void *arg) {
    worker *w = arg;
    rvt_decode_pool *p = w->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        segment *s = take_queued(p, w);
        if (s)
            work_on(p, s, w);
        else if (p->quit)
            break;
        else
            pthread_cond_wait(&p->queued, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* With the lock held (or no worker left). */
static void seg_reset(segment *s) {
    s->pool->codec->free(s->dec);
    s->pool->codec->free(s->start);
    s->dec = s->start = NULL;
    free(s->damage);
    s->damage = NULL;
    s->n = s->used = 0;
    s->fresh = s->at_sync = s->chained = false;
    s->status = 0;
    if (s->log) {
        rvt_flow_log_clear(s->log);
        s->pool->spare_logs[s->pool->nspare_logs++] = s->log; /* (at most RING logs exist) */
        s->log = NULL;
    }
    s->state = SEG_FREE;
}

/* An item in the pool's decoder, straight into the sinks. */
static int decode_now(rvt_decode_pool *p, const void *item) {
    rvt_diag diag;
    int rc = p->codec->decode(p->cfg.decoder, item, &diag);
    if (rc == RVT_E_IO)
        return RVT_E_IO;
    return rc && p->cfg.sinks.note ? p->cfg.sinks.note(p->cfg.user, diag.msg) : 0;
}

/* The segment's items in order in the pool's decoder (skipping the first
 * when the previous segment decoded it already). */
static int decode_in_order(rvt_decode_pool *p, segment *s) {
    const unsigned char *item = s->items;
    for (size_t i = 0; i < s->n; i++, item = item_after(p->codec, item)) {
        int rc = i || !s->at_sync ? decode_now(p, item) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

/* Damage before the next item, as the pool's decoder meets it in order. */
static int damage_in_order(rvt_decode_pool *p, const char *text) {
    int rc = p->cfg.damaged ? p->cfg.damaged(p->cfg.user, text) : 0;
    p->codec->resync(p->cfg.decoder);
    return rc;
}

/* Hands the oldest segment on (waiting for its worker). */
static int merge_oldest(rvt_decode_pool *p) {
    segment *s = seg_at(p, p->merged);
    pthread_mutex_lock(&p->mu);
    /* Rather than wait, this thread decodes what no worker has taken yet:
     * --threads N decodes on N threads, the reading one included. */
    while (s->state == SEG_QUEUED || s->state == SEG_WORKING) {
        segment *q = take_queued(p, &p->helper);
        if (q)
            work_on(p, q, &p->helper);
        else
            pthread_cond_wait(&p->done, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    int rc = s->damage ? damage_in_order(p, s->damage) : 0;
    bool keep = s->state == SEG_DONE && s->status == 0 &&
                (s->fresh || s->chained || p->codec->same_state(p->cfg.decoder, s->start));
    if (!rc && keep) {
        rc = rvt_flow_log_replay(s->log, &p->cfg.sinks, p->cfg.user);
        p->codec->copy_state(p->cfg.decoder, s->dec);
        p->codec->add_counts(p->cfg.decoder, s->dec);
        if (s->chained) {
            p->chained++;
        } else {
            p->parallel++;
            p->again_in_a_row = 0;
        }
    } else if (!rc) {
        rc = decode_in_order(p, s);
        p->again++;
        if (s->state == SEG_DONE)
            p->again_in_a_row++;
    }
    pthread_mutex_lock(&p->mu);
    seg_reset(s);
    p->merged++;
    pthread_cond_broadcast(&p->queued); /* the next one, if chained, may start from the pool's decoder */
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static bool finished(rvt_decode_pool *p, uint64_t i) {
    pthread_mutex_lock(&p->mu);
    seg_state state = seg_at(p, i)->state;
    pthread_mutex_unlock(&p->mu);
    return state == SEG_DONE || state == SEG_IN_ORDER;
}

/* Closes the filling segment (queues it for a worker when it can start
 * afresh) and opens the next one, making room in the ring. */
static int next_segment(rvt_decode_pool *p, bool at_sync) {
    segment *s = seg_at(p, p->filling);
    bool worth_trying = p->again_in_a_row < GIVE_UP || ++p->closed % PROBE == 0;
    pthread_mutex_lock(&p->mu);
    s->chained = !s->fresh && !(s->at_sync && worth_trying) && !s->damage;
    s->state = s->fresh || (s->at_sync && worth_trying) || s->chained ? SEG_QUEUED : SEG_IN_ORDER;
    p->filling++;
    pthread_cond_signal(&p->queued);
    pthread_mutex_unlock(&p->mu);
    int rc = 0;
    while (!rc && p->filling - p->merged >= RING)
        rc = merge_oldest(p);
    /* Hand on what is finished already, so that output flows early. */
    while (!rc && p->merged < p->filling && finished(p, p->merged))
        rc = merge_oldest(p);
    s = seg_at(p, p->filling);
    s->state = SEG_FILLING;
    s->at_sync = at_sync;
    return rc;
}

/* Room for `size` more bytes in `s`. */
static int make_room(segment *s, size_t size) {
    if (s->cap - s->used >= size)
        return 0;
    size_t cap = s->cap ? 2 * s->cap : 256 * s->pool->codec->item_size;
    while (cap - s->used < size)
        cap *= 2;
    unsigned char *items = realloc(s->items, cap);
    if (!items)
        return RVT_E_NOMEM;
    s->items = items;
    s->cap = cap;
    return 0;
}

static int append(segment *s, const void *item) {
    const rvt_pool_codec *codec = s->pool->codec;
    size_t size = stored_size(codec, item);
    /* (an item in place was read into rvt_decode_pool_room's room) */
    if (!s->items || item != s->items + s->used) {
        if (make_room(s, size))
            return RVT_E_NOMEM;
        memcpy(s->items + s->used, item, size < codec->item_size ? size : codec->item_size);
    }
    s->used += size;
    s->n++;
    /* A worker on the other core read these bytes last, and a store into a
     * line it holds waits for the line (where cores hand data over slowly
     * that was an eighth of the reading thread's time): ask for the lines
     * a few items ahead. */
    if (s->cap - s->used > PREFETCH_AHEAD)
        __builtin_prefetch(s->items + s->used + PREFETCH_AHEAD, 1);
    return 0;
}

void *rvt_decode_pool_room(rvt_decode_pool *p) {
    segment *s = seg_at(p, p->filling);
    return make_room(s, aligned8(p->codec->item_size)) ? NULL : s->items + s->used;
}

int rvt_decode_pool_item(rvt_decode_pool *p, const void *item) {
    if (p->failed)
        return p->failed;
    if (p->warm_up) {
        /* The first segment goes on from where the pool's decoder is then. */
        if (--p->warm_up == 0)
            seg_at(p, p->filling)->fresh = false;
        return p->failed = decode_now(p, item);
    }
    segment *s = seg_at(p, p->filling);
    int rc = 0;
    /* A segment that did not start at a sync (cut for length, or after
     * damage) ends at the first one: a sync is where work can go apart. */
    bool may_end = s->n >= p->cfg.min_segment || (s->n && !s->fresh && !s->at_sync);
    if (may_end && p->codec->restarts(item)) {
        rc = append(s, item); /* the last item of this segment, the first of the next */
        if (!rc)
            rc = next_segment(p, true);
        s = seg_at(p, p->filling);
    } else if (s->n >= LONG_SEGMENT_FACTOR * p->cfg.min_segment) { /* no sync for long: chained */
        rc = next_segment(p, false);
        s = seg_at(p, p->filling);
    }
    if (!rc)
        rc = append(s, item);
    return p->failed = rc;
}

int rvt_decode_pool_damage(rvt_decode_pool *p, const char *text) {
    if (p->failed)
        return p->failed;
    if (p->warm_up)
        return p->failed = damage_in_order(p, text);
    int rc = seg_at(p, p->filling)->n || seg_at(p, p->filling)->damage ? next_segment(p, false) : 0;
    segment *s = seg_at(p, p->filling);
    if (!rc && !(s->damage = strdup(text)))
        rc = RVT_E_NOMEM;
    return p->failed = rc;
}

int rvt_decode_pool_finish(rvt_decode_pool *p) {
    if (p->failed)
        return p->failed;
    int rc = seg_at(p, p->filling)->n || seg_at(p, p->filling)->damage ? next_segment(p, false) : 0;
    while (!rc && p->merged < p->filling)
        rc = merge_oldest(p);
    return p->failed = rc;
}

void rvt_decode_pool_counts(const rvt_decode_pool *p, uint64_t *parallel, uint64_t *chained, uint64_t *again) {
    *parallel = p->parallel;
    *chained = p->chained;
    *again = p->again;
}

int rvt_decode_pool_new(rvt_decode_pool **out, const rvt_decode_pool_config *cfg) {
    if (!cfg || !cfg->codec || !cfg->decoder || cfg->threads == 0 || !cfg->sinks.pc || !cfg->sinks.run)
        return RVT_E_ARG;
    rvt_decode_pool *p = aligned_alloc(SEGMENT_ALIGN, sizeof *p); /* (a multiple of its alignment) */
    if (!p)
        return RVT_E_NOMEM;
    memset(p, 0, sizeof *p);
    p->cfg = *cfg;
    p->codec = cfg->codec;
    if (!p->cfg.min_segment)
        p->cfg.min_segment = DEFAULT_MIN_SEGMENT;
    for (unsigned i = 0; i < RING; i++)
        p->ring[i].pool = p;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->queued, NULL);
    pthread_cond_init(&p->done, NULL);
    seg_at(p, 0)->state = SEG_FILLING;
    seg_at(p, 0)->fresh = true;
    p->warm_up = cfg->warm_up;
    p->helper.pool = p;
    if (p->codec->like(&p->helper.model, cfg->decoder, NULL, NULL)) {
        rvt_decode_pool_free(p);
        return RVT_E_NOMEM;
    }
    unsigned want = cfg->threads < MAX_WORKERS ? cfg->threads : MAX_WORKERS;
    for (unsigned i = 0; i < want; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        if (p->codec->like(&w->model, cfg->decoder, NULL, NULL))
            break;
        if (pthread_create(&w->thread, NULL, worker_main, w)) {
            p->codec->free(w->model);
            break;
        }
        p->nworkers++;
    }
    if (p->nworkers == 0) {
        rvt_decode_pool_free(p);
        return RVT_E_NOMEM;
    }
    *out = p;
    return RVT_OK;
}

void rvt_decode_pool_free(rvt_decode_pool *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    /* (after a failure) nothing more is handed on: the workers stop too,
     * at their decoders' next entry rather than at their segments' ends */
    for (uint64_t i = p->merged; i < p->filling; i++) {
        segment *s = seg_at(p, i);
        if (s->state == SEG_QUEUED)
            s->state = SEG_IN_ORDER;
        else if (s->state == SEG_WORKING)
            rvt_flow_log_stop(s->log);
    }
    pthread_cond_broadcast(&p->queued);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nworkers; i++) {
        pthread_join(p->workers[i].thread, NULL);
        p->codec->free(p->workers[i].model);
    }
    p->codec->free(p->helper.model);
    for (unsigned i = 0; i < RING; i++) {
        seg_reset(&p->ring[i]);
        free(p->ring[i].items);
    }
    for (unsigned i = 0; i < p->nspare_logs; i++)
        rvt_flow_log_free(p->spare_logs[i]);
    pthread_cond_destroy(&p->queued);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
