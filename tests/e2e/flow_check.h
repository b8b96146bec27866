/* The round-trip harnesses' comparison of a decoded instruction flow with the
 * executed one: by count and a running hash, so runs of any length need no
 * memory, and for runs short enough to keep (generated programs, most of the
 * corpus) also address by address, so a failure names the first instruction
 * where the two part. */
#ifndef RVT_TESTS_FLOW_CHECK_H
#define RVT_TESTS_FLOW_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FLOW_KEEP_MAX (4u << 20) /* addresses kept for the first-difference report */

typedef struct {
    uint64_t n, hash;
    uint64_t *pcs; /* the executed flow, while it has at most FLOW_KEEP_MAX addresses */
    bool kept;
} flow_executed;

typedef struct {
    const flow_executed *ref;
    uint64_t n, hash;
    uint64_t first_diff; /* index of the first address that differs, when differs */
    uint64_t want, got;
    bool differs;
} flow_decoded;

static inline uint64_t flow_mix(uint64_t hash, uint64_t pc) { return (hash ^ pc) * 0x100000001b3ull; }

static inline void flow_executed_init(flow_executed *f) {
    f->n = f->hash = 0;
    f->pcs = malloc(sizeof *f->pcs * 65536);
    f->kept = f->pcs != NULL;
}

static inline void flow_executed_add(flow_executed *f, uint64_t pc) {
    if (f->kept && f->n >= 65536 && !(f->n & (f->n - 1))) { /* grow at powers of two */
        uint64_t *more = f->n < FLOW_KEEP_MAX ? realloc(f->pcs, sizeof *f->pcs * f->n * 2) : NULL;
        if (!more) {
            free(f->pcs);
            f->pcs = NULL;
            f->kept = false;
        } else {
            f->pcs = more;
        }
    }
    if (f->kept)
        f->pcs[f->n] = pc;
    f->n++;
    f->hash = flow_mix(f->hash, pc);
}

static inline void flow_executed_free(flow_executed *f) {
    free(f->pcs);
    f->pcs = NULL;
}

static inline void flow_decoded_init(flow_decoded *d, const flow_executed *ref) {
    *d = (flow_decoded){.ref = ref};
}

static inline void flow_decoded_add(flow_decoded *d, uint64_t pc) {
    if (!d->differs && d->ref->kept) {
        if (d->n >= d->ref->n || d->ref->pcs[d->n] != pc) {
            d->differs = true;
            d->first_diff = d->n;
            d->got = pc;
            d->want = d->n < d->ref->n ? d->ref->pcs[d->n] : 0;
        }
    }
    d->n++;
    d->hash = flow_mix(d->hash, pc);
}

static inline bool flow_same(const flow_decoded *d) { return d->n == d->ref->n && d->hash == d->ref->hash; }

/* The executed instruction just before the flows part (`or_end`: or before
 * the decoded flow stops short); false when not known. */
static inline bool flow_before_parting(const flow_decoded *d, bool or_end, uint64_t *pc) {
    uint64_t at = d->differs ? d->first_diff : or_end ? d->n : 0;
    if (!d->ref->kept || at == 0 || at > d->ref->n)
        return false;
    *pc = d->ref->pcs[at - 1];
    return true;
}

/* Where the flows part, for a failure message ("" when not known). */
static inline const char *flow_where(const flow_decoded *d, char *buf, size_t size) {
    if (!d->ref->kept)
        return "";
    if (d->differs && d->first_diff < d->ref->n)
        snprintf(buf, size, "; instruction %" PRIu64 " decoded at %#" PRIx64 ", executed at %#" PRIx64
                 " (the one before: %#" PRIx64 ")", d->first_diff, d->got, d->want,
                 d->first_diff ? d->ref->pcs[d->first_diff - 1] : 0);
    else if (d->differs)
        snprintf(buf, size, "; decoded past the end of the run, at %#" PRIx64, d->got);
    else if (d->n < d->ref->n)
        snprintf(buf, size, "; decoded flow ends before instruction %" PRIu64 " at %#" PRIx64, d->n,
                 d->ref->pcs[d->n]);
    else
        return "";
    return buf;
}

#endif
