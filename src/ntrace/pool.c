/* N-Trace decoding on several threads: segments cut at synchronising
 * messages, decoded at once into flow logs, handed on in trace order. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ntrace_internal.h"
#include "rvtrace/common.h"

enum {
    RING = 8,                  /* segments on their way at most (bounds the memory) */
    MAX_WORKERS = 64,
    DEFAULT_MIN_SEGMENT = 2048, /* messages: a few hundred thousand instructions of work */
    /* messages without a sync to end at: the segment ends anyway and the
     * next one is decoded in order (what a segment holds stays bounded) */
    LONG_SEGMENT = 1 << 16,
};

/* SEG_IN_ORDER: closed, for the pool's own decoder only. */
typedef enum { SEG_FREE, SEG_FILLING, SEG_QUEUED, SEG_WORKING, SEG_DONE, SEG_IN_ORDER } seg_state;

typedef struct segment {
    struct rvt_ntrace_pool *pool;
    rvt_nexus_msg *msgs;
    size_t n, cap;
    seg_state state;
    /* How the segment starts: `fresh` (the trace's first messages: decoded
     * from nothing, all of its output kept), `at_sync` (its first message is
     * also the previous segment's last: decoded afresh from the state that
     * message leaves), or neither (decoded in order only). */
    bool fresh, at_sync;
    char *damage; /* the reader's report of damaged bytes before the first message */
    rvt_flow_log *log;
    rvt_ntrace_decoder *dec;   /* the worker's decoder, in the state after the last message */
    rvt_ntrace_decoder *start; /* its state after the first message (at_sync) */
    int status;                /* the worker's: 0, or RVT_E_NOMEM */
} segment;

typedef struct worker {
    struct rvt_ntrace_pool *pool;
    pthread_t thread;
    rvt_ntrace_decoder *runs; /* owns the worker's cache of straight runs */
} worker;

struct rvt_ntrace_pool {
    rvt_ntrace_pool_config cfg;
    rvt_flow_sinks sinks;
    void *user;
    segment ring[RING];
    uint64_t merged;  /* segments handed on (the oldest on its way is merged % RING) */
    uint64_t filling; /* the segment taking messages */
    worker workers[MAX_WORKERS];
    unsigned nworkers;
    pthread_mutex_t mu;
    pthread_cond_t queued, done;
    bool quit;
    uint64_t unplaced, parallel, again;
    int failed; /* a sink or callback stopped decoding: what it returned */
};

static segment *seg_at(rvt_ntrace_pool *p, uint64_t i) { return &p->ring[i % RING]; }

static bool seg_fetch(void *user, uint64_t addr, rvt_insn *out) {
    segment *s = user;
    return nx_decoder_fetch(s->pool->cfg.decoder, addr, out);
}
static int seg_pc(void *user, uint64_t pc) { return rvt_flow_log_pc(((segment *)user)->log, pc); }
static int seg_run(void *user, uint64_t start, uint32_t n, uint64_t wide) {
    return rvt_flow_log_run(((segment *)user)->log, start, n, wide);
}
static int seg_trap(void *user, const rvt_trap_event *t) { return rvt_flow_log_trap(((segment *)user)->log, t); }

static rvt_ntrace_decoder *seg_decoder(segment *s, const worker *w) {
    rvt_ntrace_decoder *d;
    if (nx_decoder_like(&d, s->pool->cfg.decoder, w->runs, seg_fetch, seg_pc, s))
        return NULL;
    rvt_ntrace_decoder_set_run_sink(d, seg_run);
    rvt_ntrace_decoder_set_trap_sink(d, seg_trap);
    return d;
}

/* A worker's part: the segment's messages afresh into its log. */
static int decode_segment(segment *s, const worker *w) {
    if (!s->log && rvt_flow_log_new(&s->log))
        return RVT_E_NOMEM;
    rvt_flow_log_clear(s->log);
    s->dec = seg_decoder(s, w);
    if (!s->dec)
        return RVT_E_NOMEM;
    rvt_diag diag;
    size_t i = 0;
    if (s->at_sync) { /* the previous segment's decoder lists what this message ends */
        rvt_ntrace_decode(s->dec, &s->msgs[0], &diag);
        s->start = seg_decoder(s, w);
        if (!s->start)
            return RVT_E_NOMEM;
        rvt_ntrace_decoder_copy_state(s->start, s->dec);
        rvt_flow_log_clear(s->log);
        i = 1;
    }
    for (; i < s->n; i++) {
        int rc = rvt_ntrace_decode(s->dec, &s->msgs[i], &diag);
        if (rc == RVT_E_IO) /* only the log can refuse */
            return RVT_E_NOMEM;
        if (rc && rvt_flow_log_note(s->log, diag.msg))
            return RVT_E_NOMEM;
    }
    return 0;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    rvt_ntrace_pool *p = w->pool;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        segment *s = NULL;
        for (uint64_t i = p->merged; i < p->filling && !s; i++)
            if (seg_at(p, i)->state == SEG_QUEUED)
                s = seg_at(p, i);
        if (!s && p->quit)
            break;
        if (!s) {
            pthread_cond_wait(&p->queued, &p->mu);
            continue;
        }
        s->state = SEG_WORKING;
        pthread_mutex_unlock(&p->mu);
        int status = decode_segment(s, w);
        pthread_mutex_lock(&p->mu);
        s->status = status;
        s->state = SEG_DONE;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void seg_reset(segment *s) {
    rvt_ntrace_decoder_free(s->dec);
    rvt_ntrace_decoder_free(s->start);
    s->dec = s->start = NULL;
    free(s->damage);
    s->damage = NULL;
    s->n = 0;
    s->fresh = s->at_sync = false;
    s->status = 0;
    if (s->log)
        rvt_flow_log_clear(s->log);
    s->state = SEG_FREE;
}

/* The segment's messages in order in the pool's decoder (skipping the first
 * when the previous segment decoded it already). */
static int decode_in_order(rvt_ntrace_pool *p, segment *s) {
    rvt_diag diag;
    for (size_t i = s->at_sync ? 1 : 0; i < s->n; i++) {
        int rc = rvt_ntrace_decode(p->cfg.decoder, &s->msgs[i], &diag);
        if (rc == RVT_E_IO)
            return RVT_E_IO;
        if (rc && p->cfg.lost && (rc = p->cfg.lost(p->user, diag.msg)) != 0)
            return rc;
    }
    return 0;
}

/* Hands the oldest segment on (waiting for its worker). */
static int merge_oldest(rvt_ntrace_pool *p) {
    segment *s = seg_at(p, p->merged);
    pthread_mutex_lock(&p->mu);
    while (s->state == SEG_QUEUED || s->state == SEG_WORKING)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    int rc = 0;
    if (s->damage) {
        rc = p->cfg.damaged ? p->cfg.damaged(p->user, s->damage) : 0;
        rvt_ntrace_decoder_resync(p->cfg.decoder);
    }
    bool keep = s->state == SEG_DONE && s->status == 0 &&
                (s->fresh || rvt_ntrace_decoder_same_state(p->cfg.decoder, s->start));
    if (!rc && keep) {
        rc = rvt_flow_log_replay(s->log, &p->sinks, p->user);
        rvt_ntrace_decoder_copy_state(p->cfg.decoder, s->dec);
        p->unplaced += rvt_ntrace_decoder_unplaced(s->dec);
        p->parallel++;
    } else if (!rc) {
        rc = decode_in_order(p, s);
        p->again++;
    }
    pthread_mutex_lock(&p->mu);
    seg_reset(s);
    p->merged++;
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static bool finished(rvt_ntrace_pool *p, uint64_t i) {
    pthread_mutex_lock(&p->mu);
    seg_state state = seg_at(p, i)->state;
    pthread_mutex_unlock(&p->mu);
    return state == SEG_DONE || state == SEG_IN_ORDER;
}

/* Closes the filling segment (queues it for a worker when it can start
 * afresh) and opens the next one, making room in the ring. */
static int next_segment(rvt_ntrace_pool *p, bool at_sync) {
    segment *s = seg_at(p, p->filling);
    pthread_mutex_lock(&p->mu);
    s->state = s->fresh || s->at_sync ? SEG_QUEUED : SEG_IN_ORDER;
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

static int append(segment *s, const rvt_nexus_msg *m) {
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        rvt_nexus_msg *msgs = realloc(s->msgs, cap * sizeof *msgs);
        if (!msgs)
            return RVT_E_NOMEM;
        s->msgs = msgs;
        s->cap = cap;
    }
    s->msgs[s->n++] = *m;
    return 0;
}

/* A message after which a fresh decoder is where the one that came from the
 * start is: a full address that resets the return stack (SYNC 0, 4 and 6
 * keep it). */
static bool restarts_path(const rvt_nexus_msg *m) {
    if (m->tcode != RVT_NX_PROG_TRACE_SYNC && m->tcode != RVT_NX_DIRECT_BRANCH_SYNC &&
        m->tcode != RVT_NX_INDIRECT_BRANCH_SYNC && m->tcode != RVT_NX_INDIRECT_BRANCH_HIST_SYNC)
        return false;
    uint64_t sync = rvt_nexus_get(m, RVT_NXF_SYNC, 1);
    return rvt_nexus_has(m, RVT_NXF_FADDR) && sync != 0 && sync != 4 && sync != 6;
}

int rvt_ntrace_pool_message(rvt_ntrace_pool *p, const rvt_nexus_msg *m) {
    if (p->failed)
        return p->failed;
    segment *s = seg_at(p, p->filling);
    int rc = 0;
    if (s->n >= p->cfg.min_segment && restarts_path(m)) {
        rc = append(s, m); /* the last message of this segment, the first of the next */
        if (!rc)
            rc = next_segment(p, true);
        s = seg_at(p, p->filling);
    } else if (s->n >= LONG_SEGMENT && s->n >= 8 * p->cfg.min_segment) { /* no sync for long: on in order */
        rc = next_segment(p, false);
        s = seg_at(p, p->filling);
    }
    if (!rc)
        rc = append(s, m);
    return p->failed = rc;
}

int rvt_ntrace_pool_damage(rvt_ntrace_pool *p, const char *text) {
    if (p->failed)
        return p->failed;
    int rc = seg_at(p, p->filling)->n || seg_at(p, p->filling)->damage ? next_segment(p, false) : 0;
    segment *s = seg_at(p, p->filling);
    if (!rc && !(s->damage = strdup(text)))
        rc = RVT_E_NOMEM;
    return p->failed = rc;
}

int rvt_ntrace_pool_finish(rvt_ntrace_pool *p) {
    if (p->failed)
        return p->failed;
    int rc = seg_at(p, p->filling)->n || seg_at(p, p->filling)->damage ? next_segment(p, false) : 0;
    while (!rc && p->merged < p->filling)
        rc = merge_oldest(p);
    return p->failed = rc;
}

uint64_t rvt_ntrace_pool_unplaced(const rvt_ntrace_pool *p) {
    return p->unplaced + rvt_ntrace_decoder_unplaced(p->cfg.decoder);
}

void rvt_ntrace_pool_counts(const rvt_ntrace_pool *p, uint64_t *parallel, uint64_t *again) {
    *parallel = p->parallel;
    *again = p->again;
}

int rvt_ntrace_pool_new(rvt_ntrace_pool **out, const rvt_ntrace_pool_config *cfg) {
    if (!cfg || !cfg->decoder || cfg->threads == 0)
        return RVT_E_ARG;
    rvt_ntrace_pool *p = calloc(1, sizeof *p);
    if (!p)
        return RVT_E_NOMEM;
    p->cfg = *cfg;
    if (!p->cfg.min_segment)
        p->cfg.min_segment = DEFAULT_MIN_SEGMENT;
    p->sinks.note = cfg->lost; /* a worker's notes are the losses its decoder reported */
    if (nx_decoder_sinks(cfg->decoder, &p->sinks, &p->user)) {
        free(p);
        return RVT_E_ARG;
    }
    for (unsigned i = 0; i < RING; i++)
        p->ring[i].pool = p;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->queued, NULL);
    pthread_cond_init(&p->done, NULL);
    seg_at(p, 0)->state = SEG_FILLING;
    seg_at(p, 0)->fresh = true;
    unsigned want = cfg->threads < MAX_WORKERS ? cfg->threads : MAX_WORKERS;
    for (unsigned i = 0; i < want; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        if (nx_decoder_like(&w->runs, cfg->decoder, NULL, NULL, NULL, NULL) ||
            pthread_create(&w->thread, NULL, worker_main, w)) {
            rvt_ntrace_decoder_free(w->runs);
            break;
        }
        p->nworkers++;
    }
    if (p->nworkers == 0) {
        rvt_ntrace_pool_free(p);
        return RVT_E_NOMEM;
    }
    *out = p;
    return RVT_OK;
}

void rvt_ntrace_pool_free(rvt_ntrace_pool *p) {
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    for (uint64_t i = p->merged; i < p->filling; i++) /* (after a failure) nothing more is handed on */
        if (seg_at(p, i)->state == SEG_QUEUED)
            seg_at(p, i)->state = SEG_IN_ORDER;
    pthread_cond_broadcast(&p->queued);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nworkers; i++) {
        pthread_join(p->workers[i].thread, NULL);
        rvt_ntrace_decoder_free(p->workers[i].runs);
    }
    for (unsigned i = 0; i < RING; i++) {
        seg_reset(&p->ring[i]);
        free(p->ring[i].msgs);
        rvt_flow_log_free(p->ring[i].log);
    }
    pthread_cond_destroy(&p->queued);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
