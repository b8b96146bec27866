/* A decoder's output kept in order: runs, single addresses, traps and
 * notes, replayed later into the consumers. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"

enum entry_kind { ENTRY_PC, ENTRY_RUN, ENTRY_BLOCK, ENTRY_TRAP, ENTRY_NOTE, ENTRY_WALK };

/* The entries are 64-bit words. A log is written on one core and replayed
 * on another, so its size is traffic between them, and a decoder logs a
 * block every few instructions: a block whose start has the high 32 bits
 * of the last address logged, that spans under 64 K halfwords and counts
 * under 32 K instructions is one word (bit 63 clear):
 *   start's low 32 bits | (end - start) / 2 << 32 | n << 48.
 * Every other entry is three words: bit 63 set, the kind at bit 32 and n,
 * then start (a trap's or note's index for those) and wide (a run's sizes,
 * a block's end). A walk is three words: its block count and where its
 * blocks are in the log's walk blocks (WALK_AT_SHIFT up), its id, its
 * instructions. Its blocks are stored once per log, as they came, and the
 * walk's later passes refer to them again: the replay hands them to the
 * walk sink where they lie, and a consumer that knows the id from before
 * does not read them at all.
 * (Where cores hand data over slowly, 2.4 GB/s on some virtual machines at
 * times, the traffic costs the decoding threads more than their work:
 * docs/ARCHITECTURE.md.) */
#define LONG_ENTRY (UINT64_C(1) << 63)
enum { LONG_WORDS = 3 };
/* A walk's first word: where its blocks are in walk_blocks from this bit up
 * to bit 62 (the log keeps at most RVT_FLOW_LOG_MAX / 2 of them). */
enum { WALK_AT_SHIFT = 35 };
#define WALK_AT_MASK ((UINT64_C(1) << (63 - WALK_AT_SHIFT)) - 1)
_Static_assert(RVT_FLOW_LOG_MAX / 2 <= WALK_AT_MASK, "a walk's blocks are found through its first word");

/* Whether an entry's start is an address (else an index into traps or
 * notes, or a walk's id). */
static bool starts_at_address(enum entry_kind kind) { return kind <= ENTRY_BLOCK; }

/* The walks whose blocks the log keeps, by id: direct mapped, a slot 16
 * bytes. A slot holds one of the log's walks while its `clears` is the
 * log's (a clear does not touch the 64 KiB: short segments clear often). */
enum { LOGGED_WALK_BITS = 12 };
struct logged_walk {
    uint64_t id;
    uint32_t at;     /* where its blocks are in walk_blocks */
    uint32_t clears; /* the log's count of clears when it was kept */
};

struct rvt_flow_log {
    uint64_t *words;
    size_t n, cap; /* words */
    uint32_t high;   /* the high 32 bits of the last address logged */
    size_t last_run; /* the word where the last entry starts, when it is a run; else SIZE_MAX */
    rvt_trap_event *traps;
    size_t ntraps, traps_cap;
    char *notes; /* NUL-terminated texts one after the other */
    size_t notes_len, notes_cap;
    uint64_t run_end; /* the address after the last entry when it is a run */
    struct logged_walk *walks; /* (allocated with the first walk) */
    rvt_block *walk_blocks;    /* the blocks of the walks kept, one walk after the other */
    size_t nwalk_blocks, walk_blocks_cap;
    uint32_t clears;           /* (from 1: a zeroed slot holds nothing) */
    atomic_bool stopped; /* (set from another thread: rvt_flow_log_stop) */
};

int rvt_flow_log_new(rvt_flow_log **out) {
    *out = calloc(1, sizeof **out);
    if (*out) {
        (*out)->last_run = SIZE_MAX;
        (*out)->clears = 1;
    }
    return *out ? RVT_OK : RVT_E_NOMEM;
}

void rvt_flow_log_free(rvt_flow_log *l) {
    if (!l)
        return;
    free(l->words);
    free(l->traps);
    free(l->notes);
    free(l->walks);
    free(l->walk_blocks);
    free(l);
}

void rvt_flow_log_clear(rvt_flow_log *l) {
    if (++l->clears == 0) { /* (wrapped: the slots' counts could match again) */
        if (l->walks)
            memset(l->walks, 0, sizeof *l->walks << LOGGED_WALK_BITS);
        l->clears = 1;
    }
    l->n = l->ntraps = l->notes_len = l->nwalk_blocks = 0;
    l->high = 0;
    l->last_run = SIZE_MAX;
}

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

/* Room for `words` more words, unless the log is stopped or full. */
static int room(rvt_flow_log *l, size_t words) {
    if (atomic_load_explicit(&l->stopped, memory_order_relaxed))
        return RVT_E_RANGE;
    if (l->n + words > l->cap) {
        if (l->n >= RVT_FLOW_LOG_MAX)
            return RVT_E_RANGE;
        if (!reserve((void **)&l->words, &l->cap, l->n, words, sizeof *l->words))
            return RVT_E_NOMEM;
    }
    return RVT_OK;
}

/* An entry in three words; an address (not an index) becomes the one that
 * one-word blocks take their high bits from. */
static int append(rvt_flow_log *l, uint64_t start, uint64_t wide, uint32_t n, enum entry_kind kind) {
    int rc = room(l, LONG_WORDS);
    if (rc)
        return rc;
    if (starts_at_address(kind))
        l->high = (uint32_t)(start >> 32);
    l->last_run = kind == ENTRY_RUN ? l->n : SIZE_MAX;
    uint64_t *w = l->words + l->n;
    w[0] = LONG_ENTRY | (uint64_t)kind << 32 | n;
    w[1] = start;
    w[2] = wide;
    l->n += LONG_WORDS;
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
    uint64_t *last = l->last_run != SIZE_MAX ? l->words + l->last_run : NULL;
    uint32_t last_n = last ? (uint32_t)last[0] : 0;
    if (last && l->run_end == start && last_n + n <= RVT_RUN_MAX) {
        last[2] |= wide << last_n;
        last[0] += n;
        l->run_end = end;
        return RVT_OK;
    }
    l->run_end = end;
    return append(l, start, wide, n, ENTRY_RUN);
}

/* Whether a block is logged as one word (see LONG_ENTRY). */
static inline bool fits_one_word(const rvt_flow_log *l, uint64_t start, uint64_t span, uint32_t n) {
    return (start >> 32) == l->high && span < 0x20000 && !(span & 1) && n < 0x8000;
}

static int __attribute__((noinline)) log_block_slowly(rvt_flow_log *l, uint64_t start, uint64_t end, uint32_t n) {
    if (!fits_one_word(l, start, end - start, n))
        return append(l, start, end, n, ENTRY_BLOCK);
    int rc = room(l, 1);
    return rc ? rc : rvt_flow_log_block(l, start, end, n);
}

/* Called for every few instructions a worker decodes: the common case
 * (one word, room for it) saves no registers and calls nothing. */
int rvt_flow_log_block(void *log, uint64_t start, uint64_t end, uint32_t n) {
    rvt_flow_log *l = log;
    uint64_t span = end - start;
    if (__builtin_expect(fits_one_word(l, start, span, n) && l->n < l->cap &&
                             !atomic_load_explicit(&l->stopped, memory_order_relaxed),
                         1)) {
        l->last_run = SIZE_MAX;
        l->words[l->n++] = (uint32_t)start | span << 31 | (uint64_t)n << 48; /* (span is even) */
        return RVT_OK;
    }
    return log_block_slowly(l, start, end, n);
}

/* blocks[0..n) as blocks. */
static int log_blocks(rvt_flow_log *l, const rvt_block *blocks, uint32_t n) {
    int rc = RVT_OK;
    for (uint32_t i = 0; i < n && !rc; i++)
        rc = rvt_flow_log_block(l, blocks[i].start, rvt_block_end(&blocks[i]), blocks[i].n);
    return rc;
}

int rvt_flow_log_walk(void *log, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns) {
    rvt_flow_log *l = log;
    if (n == 0 || n > RVT_FLOW_LOG_WALK_MAX)
        return log_blocks(l, blocks, n);
    if (!l->walks && !(l->walks = calloc((size_t)1 << LOGGED_WALK_BITS, sizeof *l->walks)))
        return RVT_E_NOMEM;
    int rc = room(l, LONG_WORDS);
    if (rc)
        return rc;
    struct logged_walk *w = &l->walks[(id * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - LOGGED_WALK_BITS)];
    if (w->id != id || w->clears != l->clears) {
        /* (a block is two words: the blocks count towards the log's size) */
        if (l->nwalk_blocks + n > RVT_FLOW_LOG_MAX / 2)
            return RVT_E_RANGE;
        if (!reserve((void **)&l->walk_blocks, &l->walk_blocks_cap, l->nwalk_blocks, n, sizeof *l->walk_blocks))
            return RVT_E_NOMEM;
        memcpy(l->walk_blocks + l->nwalk_blocks, blocks, n * sizeof *blocks);
        *w = (struct logged_walk){id, (uint32_t)l->nwalk_blocks, l->clears};
        l->nwalk_blocks += n;
    }
    uint64_t *at = l->words + l->n;
    at[0] = LONG_ENTRY | (uint64_t)w->at << WALK_AT_SHIFT | (uint64_t)ENTRY_WALK << 32 | n;
    at[1] = id;
    at[2] = insns;
    l->n += LONG_WORDS;
    l->last_run = SIZE_MAX;
    return RVT_OK;
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

/* The block logged at words[*i] (one word, or a three-word block entry),
 * and *i past it; *high as replaying keeps it. */
static rvt_block logged_block(const uint64_t *words, size_t *i, uint64_t *high) {
    const uint64_t *w = words + *i;
    if (!(w[0] & LONG_ENTRY)) {
        *i += 1;
        return (rvt_block){*high | (uint32_t)w[0], (uint32_t)(2 * ((w[0] >> 32) & 0xffff)), (uint32_t)(w[0] >> 48)};
    }
    *high = w[1] & ~UINT64_C(0xffffffff);
    *i += LONG_WORDS;
    return (rvt_block){w[1], (uint32_t)(w[2] - w[1]), (uint32_t)w[0]};
}

/* The walk whose entry is `w`, to the walk sink, else block by block. */
static int replay_walk(const rvt_flow_log *l, const uint64_t *w, const rvt_flow_sinks *to, void *user) {
    uint32_t n = (uint8_t)w[0];
    const rvt_block *blocks = l->walk_blocks + (w[0] >> WALK_AT_SHIFT & WALK_AT_MASK);
    if (to->walk)
        return to->walk(user, w[1], blocks, n, w[2]);
    for (uint32_t k = 0; k < n; k++) {
        int rc = to->block(user, blocks[k].start, rvt_block_end(&blocks[k]), blocks[k].n);
        if (rc)
            return rc;
    }
    return 0;
}

int rvt_flow_log_replay(const rvt_flow_log *l, const rvt_flow_sinks *to, void *user) {
    uint64_t high = 0;
    for (size_t i = 0; i < l->n;) {
        const uint64_t *w = l->words + i;
        enum entry_kind kind = (enum entry_kind)((w[0] >> 32) & 7);
        int rc;
        if (!(w[0] & LONG_ENTRY)) {
            rvt_block b = logged_block(l->words, &i, &high);
            rc = to->block(user, b.start, rvt_block_end(&b), b.n);
        } else if (kind == ENTRY_WALK) {
            rc = replay_walk(l, w, to, user);
            i += LONG_WORDS;
        } else {
            uint32_t n = (uint32_t)w[0];
            uint64_t start = w[1], wide = w[2];
            if (starts_at_address(kind))
                high = start & ~UINT64_C(0xffffffff);
            switch (kind) {
            case ENTRY_RUN:
                rc = to->run(user, start, n, wide);
                break;
            case ENTRY_PC:
                rc = to->pc(user, start);
                break;
            case ENTRY_BLOCK:
                rc = to->block(user, start, wide, n);
                break;
            case ENTRY_TRAP:
                rc = to->trap ? to->trap(user, &l->traps[start]) : 0;
                break;
            default:
                rc = to->note ? to->note(user, l->notes + start) : 0;
                break;
            }
            i += LONG_WORDS;
        }
        if (rc)
            return rc;
    }
    return 0;
}
