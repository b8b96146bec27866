/* A decoder's output kept in order: runs, single addresses, traps and
 * notes, replayed later into the consumers. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"

enum entry_kind { ENTRY_PC, ENTRY_RUN, ENTRY_BLOCK, ENTRY_TRAP, ENTRY_NOTE };

/* One entry: a run (start, wide, n), a block (start, its end in wide, n),
 * an address (start), or the index of a trap or note kept beside the
 * entries (start). */
typedef struct log_entry {
    uint64_t start, wide;
    uint32_t n, kind;
} log_entry;

struct rvt_flow_log {
    log_entry *entries;
    size_t n, cap;
    rvt_trap_event *traps;
    size_t ntraps, traps_cap;
    char *notes; /* NUL-terminated texts one after the other */
    size_t notes_len, notes_cap;
    uint64_t run_end; /* the address after the last entry when it is a run */
    atomic_bool stopped; /* (set from another thread: rvt_flow_log_stop) */
};

int rvt_flow_log_new(rvt_flow_log **out) {
    *out = calloc(1, sizeof **out);
    return *out ? RVT_OK : RVT_E_NOMEM;
}

void rvt_flow_log_free(rvt_flow_log *l) {
    if (!l)
        return;
    free(l->entries);
    free(l->traps);
    free(l->notes);
    free(l);
}

void rvt_flow_log_clear(rvt_flow_log *l) { l->n = l->ntraps = l->notes_len = 0; }

/* Room for `more` items of `size` bytes in *buf holding *n of *cap. */
static bool reserve(void **buf, size_t *cap, size_t n, size_t more, size_t size) {
    if (n + more <= *cap)
        return true;
    size_t want = *cap ? *cap : 4096 / size;
    while (want < n + more)
        want *= 2;
    void *p = realloc(*buf, want * size);
    if (!p)
        return false;
    *buf = p;
    *cap = want;
    return true;
}

void rvt_flow_log_stop(rvt_flow_log *l) { atomic_store_explicit(&l->stopped, true, memory_order_relaxed); }

static int append(rvt_flow_log *l, uint64_t start, uint64_t wide, uint32_t n, enum entry_kind kind) {
    if (atomic_load_explicit(&l->stopped, memory_order_relaxed))
        return RVT_E_RANGE;
    if (l->n == l->cap) {
        if (l->n >= RVT_FLOW_LOG_MAX)
            return RVT_E_RANGE;
        if (!reserve((void **)&l->entries, &l->cap, l->n, 1, sizeof *l->entries))
            return RVT_E_NOMEM;
    }
    l->entries[l->n++] = (log_entry){start, wide, n, kind};
    return RVT_OK;
}

int rvt_flow_log_pc(void *log, uint64_t pc) { return append(log, pc, 0, 1, ENTRY_PC); }

/* A run that goes on where the last one ended joins it (up to the 64
 * instructions a run holds): half as many entries to hand on. */
int rvt_flow_log_run(void *log, uint64_t start, uint32_t n, uint64_t wide) {
    rvt_flow_log *l = log;
    if (n == 0)
        return RVT_OK;
    if (n < 64)
        wide &= (UINT64_C(1) << n) - 1;
    uint64_t end = start + 2 * rvt_run_units(n, wide);
    log_entry *last = l->n ? &l->entries[l->n - 1] : NULL;
    if (last && last->kind == ENTRY_RUN && l->run_end == start && last->n + n <= RVT_RUN_MAX) {
        last->wide |= wide << last->n;
        last->n += n;
        l->run_end = end;
        return RVT_OK;
    }
    l->run_end = end;
    return append(l, start, wide, n, ENTRY_RUN);
}

int rvt_flow_log_block(void *log, uint64_t start, uint64_t end, uint32_t n) {
    return append(log, start, end, n, ENTRY_BLOCK);
}

int rvt_flow_log_trap(void *log, const rvt_trap_event *trap) {
    rvt_flow_log *l = log;
    if (!reserve((void **)&l->traps, &l->traps_cap, l->ntraps, 1, sizeof *l->traps))
        return RVT_E_NOMEM;
    l->traps[l->ntraps] = *trap;
    return append(l, l->ntraps++, 0, 0, ENTRY_TRAP);
}

int rvt_flow_log_note(rvt_flow_log *l, const char *text) {
    size_t len = strlen(text) + 1;
    if (!reserve((void **)&l->notes, &l->notes_cap, l->notes_len, len, 1))
        return RVT_E_NOMEM;
    memcpy(l->notes + l->notes_len, text, len);
    int rc = append(l, l->notes_len, 0, 0, ENTRY_NOTE);
    l->notes_len += len;
    return rc;
}

int rvt_flow_log_replay(const rvt_flow_log *l, const rvt_flow_sinks *to, void *user) {
    for (size_t i = 0; i < l->n; i++) {
        const log_entry *e = &l->entries[i];
        int rc;
        switch (e->kind) {
        case ENTRY_RUN:
            rc = to->run(user, e->start, e->n, e->wide);
            break;
        case ENTRY_PC:
            rc = to->pc(user, e->start);
            break;
        case ENTRY_BLOCK:
            rc = to->block(user, e->start, e->wide, e->n);
            break;
        case ENTRY_TRAP:
            rc = to->trap ? to->trap(user, &l->traps[e->start]) : 0;
            break;
        default:
            rc = to->note ? to->note(user, l->notes + e->start) : 0;
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}
