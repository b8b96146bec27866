/* The instruction-flow interface: what every trace decoder (E-Trace, N-Trace)
 * needs from the program image and what it hands to its consumer. */
#ifndef RVTRACE_FLOW_H
#define RVTRACE_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "rvtrace/common.h"
#include "rvtrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a decoder reads the program: the decoded instruction at `addr`, or
 * false when there is none. */
typedef bool (*rvt_code_fetch)(void *user, uint64_t addr, rvt_insn *out);

/* Receives each retired instruction address in order; a non-zero return
 * stops the decoder, which then returns RVT_E_IO. */
typedef int (*rvt_pc_sink)(void *user, uint64_t pc);

/* Receives the retired instructions as runs executed one after the other:
 * `n` instructions from `start` up to (not including) `end`. A consumer that
 * only counts or profiles never looks at single addresses. */
typedef int (*rvt_block_sink)(void *user, uint64_t start, uint64_t end, uint32_t n);
/* A run of `n` (<= 64) sequential instructions from `start`, bit i of
 * `wide` set when instruction i is 32-bit: every address without a call
 * per instruction. */
typedef int (*rvt_run_sink)(void *user, uint64_t start, uint32_t n, uint64_t wide);

/* A trap the trace reports. `at` is the address of the instruction that
 * took the exception (ecall and ebreak included) or, for an interrupt, of
 * the instruction that would have run next; `handler` is where execution
 * went on. E-Trace sends the cause (and for some exceptions tval); N-Trace
 * only tells exceptions from interrupts. */
typedef struct rvt_trap_event {
    bool interrupt;
    bool has_cause, has_tval;
    uint64_t cause; /* exception or interrupt code, without the interrupt flag */
    uint64_t tval;
    uint64_t at, handler;
    /* the packets could not say after which of several occurrences of the
     * last instruction before it the trap came (E-Trace implicit return,
     * rvt_etrace_decoder_ambiguous_traps): `at` is the first one's successor */
    bool unplaced;
} rvt_trap_event;

/* Receives each trap in order with the PCs; a non-zero return stops the
 * decoder. */
typedef int (*rvt_trap_sink)(void *user, const rvt_trap_event *trap);

/* ---- Straight-line code, read once ----
 *
 * Decoders walk code one instruction at a time only where something is
 * decided (a branch, a jump, the end of a count); in between they pass runs
 * of linear instructions. A run cache remembers, per start address, how many
 * linear instructions follow, their sizes and the instruction that ends the
 * run. The code must not change while the cache is in use. */

#define RVT_RUN_MAX 64 /* instructions in one run at most */

/* 0 for an instruction a walk simply passes, else a decoder-defined class. */
typedef unsigned (*rvt_insn_classifier)(const rvt_insn *in);

/* One cache line: a decoder looks a run up for every few instructions it
 * passes, and the cache holds thousands of them. */
typedef struct rvt_run {
    _Alignas(64) uint64_t start; /* first linear instruction */
    uint64_t end;                /* the address after the last */
    uint64_t wide;               /* bit i: linear instruction i is 32-bit */
    uint8_t n, units;            /* linear instructions (RVT_RUN_MAX at most), their 16-bit units */
    bool has_end;                /* the instruction at `end` is known and not linear: */
    bool valid;
    uint16_t end_class;
    rvt_insn end_insn;
} rvt_run;

/* The last linear instruction of `r` (its start when it has none); `mask`
 * the XLEN address mask. */
static inline uint64_t rvt_run_last(const rvt_run *r, uint64_t mask) {
    return r->n ? (r->end - ((r->wide >> (r->n - 1)) & 1 ? 4 : 2)) & mask : r->start;
}

/* 16-bit units of a run of `n` instructions with sizes `wide` (bit i set:
 * instruction i is 32-bit): its end is start + 2 * units. */
static inline uint64_t rvt_run_units(uint32_t n, uint64_t wide) {
    uint64_t w = n < 64 ? wide & ((UINT64_C(1) << n) - 1) : wide;
    w -= (w >> 1) & 0x5555555555555555u; /* popcount without the library call of a generic x86-64 build */
    w = (w & 0x3333333333333333u) + ((w >> 2) & 0x3333333333333333u);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return n + ((w * 0x0101010101010101u) >> 56);
}

/* Direct mapped by start address. The layout is here only so that the
 * common case, a run looked up before, is inlined into the decoders' walks;
 * use the functions. */
#define RVT_RUN_SLOTS 16384u /* 1 MiB: a decoder touches few of them, each fault costs more than a miss */
typedef struct rvt_run_cache {
    rvt_code_fetch fetch;
    void *user;
    uint64_t mask; /* XLEN address mask */
    rvt_insn_classifier classify;
    rvt_run slots[RVT_RUN_SLOTS];
} rvt_run_cache;

RVT_API int rvt_run_cache_new(rvt_run_cache **out, rvt_code_fetch fetch, void *user, unsigned xlen,
                      rvt_insn_classifier classify);
RVT_API void rvt_run_cache_free(rvt_run_cache *c);
/* Reads the run at `pc` into its slot (rvt_run_at's miss). */
RVT_API const rvt_run *rvt_run_fill(rvt_run_cache *c, uint64_t pc);
/* The run starting at `pc` (n = 0 when the instruction there is not linear,
 * or cannot be fetched: has_end false then). */
static inline const rvt_run *rvt_run_at(rvt_run_cache *c, uint64_t pc) {
    const rvt_run *r = &c->slots[(pc >> 1) & (RVT_RUN_SLOTS - 1)];
    return r->valid && r->start == pc ? r : rvt_run_fill(c, pc);
}
/* Address of linear instruction `i` of `r` (i <= n). */
RVT_API uint64_t rvt_run_addr(const rvt_run_cache *c, const rvt_run *r, uint32_t i);

/* ---- Blocks a walk gave ----
 * Decoders keep them to hand them out again when the same walk is due
 * (walk_memo in each decoder). A block that continues the last one kept is
 * joined to it, as the decoders join blocks on their way out. */
typedef struct rvt_block {
    uint64_t start;
    uint32_t span, n; /* span: its end less its start */
} rvt_block;

static inline uint64_t rvt_block_end(const rvt_block *b) { return b->start + b->span; }

/* A walk a decoder kept, handed out again: its `n` blocks, `insns`
 * instructions in all. An `id` comes with the same blocks every time
 * (rvt_walk_id gives them out; the same blocks may come again with another
 * id), so a consumer may keep what it made of them the first time. A
 * decoder given a walk sink sends those walks to it, and all the rest of
 * the flow to its block sink. */
typedef int (*rvt_walk_sink)(void *user, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns);
/* A walk id not given out before in this process (never 0; any thread). */
RVT_API uint64_t rvt_walk_id(void);

/* Adds a block to `list` (`*count` of at most `max` kept); false when it
 * is full, or the block's span does not fit (an address space that wraps
 * round within it). */
static inline bool rvt_block_keep(rvt_block *list, uint32_t *count, uint32_t max, uint64_t start, uint64_t end,
                                  uint32_t n) {
    rvt_block *last = *count ? &list[*count - 1] : NULL;
    if (last && rvt_block_end(last) == start && n <= UINT32_MAX - last->n) {
        if (end - last->start > UINT32_MAX)
            return false;
        last->span = (uint32_t)(end - last->start);
        last->n += n;
        return true;
    }
    if (*count == max || end - start > UINT32_MAX)
        return false;
    list[(*count)++] = (rvt_block){start, (uint32_t)(end - start), n};
    return true;
}

/* Blocks of many kept walks in one ring: a walk's blocks are written one
 * after the other from the head and stay until the ring comes round to
 * them. A decoder finds a walk through a small slot that says where its
 * blocks start, so the slots of short walks reserve no room for long ones
 * (walks vary from 1 to dozens of blocks). Positions count up from 0 and
 * are taken modulo the ring's size. */
#define RVT_BLOCK_RING 262144u /* 4 MiB */
typedef struct rvt_block_ring {
    uint64_t head; /* the position after the last block written */
    rvt_block blocks[RVT_BLOCK_RING];
} rvt_block_ring;

/* Where the next walk of at most `max` blocks goes (its blocks in one piece). */
static inline uint64_t rvt_block_ring_open(const rvt_block_ring *r, uint32_t max) {
    uint64_t at = r->head, offset = at % RVT_BLOCK_RING;
    return offset + max > RVT_BLOCK_RING ? at + (RVT_BLOCK_RING - offset) : at;
}

static inline rvt_block *rvt_block_ring_at(rvt_block_ring *r, uint64_t at) { return &r->blocks[at % RVT_BLOCK_RING]; }

/* The walk opened at `at` wrote `n` blocks, kept or not. */
static inline void rvt_block_ring_close(rvt_block_ring *r, uint64_t at, uint32_t n) { r->head = at + n; }

/* Whether the blocks of the walk at `at` are still there: nothing has been
 * written a whole ring after them. */
static inline bool rvt_block_ring_holds(const rvt_block_ring *r, uint64_t at) { return r->head <= at + RVT_BLOCK_RING; }

/* A kept walk of `n` blocks at `at`, once walked: its last block, which the
 * decoder holds back (n > 0), and, where `insns` is given (a walk sink's),
 * the instructions in the others. */
static inline void rvt_block_ring_walk_end(rvt_block_ring *r, uint64_t at, uint32_t n, rvt_block *last,
                                           uint64_t *insns) {
    const rvt_block *blocks = rvt_block_ring_at(r, at);
    if (n)
        *last = blocks[n - 1];
    if (insns) {
        *insns = 0;
        for (uint32_t i = 0; i + 1 < n; i++)
            *insns += blocks[i].n;
    }
}

/* ---- A decoder's output, kept to be handed on later ----
 *
 * Parallel decoding runs decoders on parts of a trace at once; each writes
 * what it finds into a log, and the logs are replayed into the real
 * consumers in trace order, so that they see exactly what one decoder
 * would have given them. */

typedef struct rvt_flow_log rvt_flow_log;
RVT_API int rvt_flow_log_new(rvt_flow_log **out);
RVT_API void rvt_flow_log_free(rvt_flow_log *l);
/* Forget the entries (the memory stays for the next use). */
RVT_API void rvt_flow_log_clear(rvt_flow_log *l);
/* A log refuses more once it holds this many 8-byte words (it holds fewer
 * than twice as many): one packet or message can send a decoder through
 * billions of instructions, which consumers take as they come but a log
 * would have to keep. A block takes one word where its start is near the
 * address logged before it, every other entry three. */
#define RVT_FLOW_LOG_MAX (UINT32_C(3) << 20)
/* Sinks that append to the log given as `user`; they return RVT_E_NOMEM
 * when memory runs out and RVT_E_RANGE once the log is full (a run that
 * joins the last one still fits). A run that continues the run logged just before it
 * joins that one while both fit in RVT_RUN_MAX instructions (consumers take
 * any cut of a sequence into runs alike). */
RVT_API int rvt_flow_log_pc(void *log, uint64_t pc);
RVT_API int rvt_flow_log_run(void *log, uint64_t start, uint32_t n, uint64_t wide);
RVT_API int rvt_flow_log_block(void *log, uint64_t start, uint64_t end, uint32_t n);
RVT_API int rvt_flow_log_trap(void *log, const rvt_trap_event *trap);
/* A walk sink (rvt_walk_sink). A walk's blocks are kept the first time
 * its id comes in a log, and every pass is three words that refer to them
 * (the blocks are the same): a pass over a kept walk costs the decoder and
 * the replay three words instead of a word a block, and the replay hands
 * the kept blocks to the walk sink without copying them. A walk of more
 * than RVT_FLOW_LOG_WALK_MAX blocks goes in as its blocks. */
#define RVT_FLOW_LOG_WALK_MAX 64u
RVT_API int rvt_flow_log_walk(void *log, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns);
/* From any thread: the log refuses every entry from now on (the decoder
 * writing into it stops at its next one). */
RVT_API void rvt_flow_log_stop(rvt_flow_log *l);
/* A note in the flow (where the decoder lost the path, and why). */
RVT_API int rvt_flow_log_note(rvt_flow_log *l, const char *text);

/* Where a log is replayed; each receives `user`. */
typedef struct rvt_flow_sinks {
    rvt_pc_sink pc;
    rvt_run_sink run;
    rvt_block_sink block; /* (needed only where blocks were logged) */
    rvt_trap_sink trap;
    int (*note)(void *user, const char *text);
    rvt_walk_sink walk; /* (NULL: logged walks go to `block` block by block) */
} rvt_flow_sinks;
/* Hands the entries on in the order they came; stops at the first sink that
 * returns non-zero and returns that value. */
RVT_API int rvt_flow_log_replay(const rvt_flow_log *l, const rvt_flow_sinks *to, void *user);

/* ---- Decoding on several threads ----
 *
 * The trace's packets or messages ("items") are cut into segments at items
 * that synchronise; worker threads decode the segments at once, each with a
 * decoder of its own that starts afresh at the segment's sync, and the pool
 * hands their output to the consumers in trace order. Where a segment
 * starts, the decoder that came from the start of the trace must be in the
 * same state as the fresh one (`same_state`); where it is not (the sync kept
 * a return stack, the path was lost just there) the segment is decoded
 * again in order, as is one whose output overflows its log
 * (RVT_FLOW_LOG_MAX: memory stays bounded whatever an item asks for). The
 * consumers therefore see exactly what one decoder gives. A codec says how
 * its decoders do each part: */
typedef struct rvt_pool_codec {
    size_t item_size; /* bytes of one item, copied as they are */
    /* Whether a decoder started afresh with `item` can be where the one that
     * came from the start is (the pool then checks it with same_state). */
    bool (*restarts)(const void *item);
    /* A new decoder with the options, code and trap vectors of `model` and
     * none of its path state, sharing the run cache of `share_runs_of` (NULL:
     * its own) and, with a block sink, the walks it keeps (so it must be
     * used on the thread that uses `share_runs_of`), its flow going into
     * `log` (NULL: none) in the same form as `model` gives it (blocks where
     * `model` has a block sink, else runs and single addresses). */
    int (*like)(void **out, const void *model, const void *share_runs_of, rvt_flow_log *log);
    /* Decodes one item: 0; RVT_E_IO when a sink refused; else the path was
     * lost (`diag` says why) and the decoder waits for the next sync. */
    int (*decode)(void *dec, const void *item, rvt_diag *diag);
    void (*resync)(void *dec); /* forget the path (damage in the bytes) */
    /* Everything later items depend on, from one decoder to another. */
    void (*copy_state)(void *to, const void *from);
    bool (*same_state)(const void *a, const void *b);
    /* A kept segment's counters (losses, warnings) added to the decoder's. */
    void (*add_counts)(void *to, const void *from);
    void (*free)(void *dec);
    /* The bytes at the start of `item` that `decode` reads (at most
     * item_size), or NULL: all of them. Segments keep only those. */
    size_t (*item_bytes)(const void *item);
} rvt_pool_codec;

typedef struct rvt_decode_pool rvt_decode_pool;
typedef struct rvt_decode_pool_config {
    unsigned threads; /* worker threads (>= 1) */
    const rvt_pool_codec *codec;
    /* The decoder that decodes in order (segments that cannot be decoded
     * apart); it ends in the state after the last item. Its code fetch must
     * be safe to call from several threads (rvt_image_decode_all), and its
     * options and trap vectors set before the pool is made. */
    void *decoder;
    /* The decoder's own sinks and their `user` (pc and run required, block
     * where the decoder has a block sink): the workers' output goes there too. `note` is called in order where the
     * path was lost, with the decoder's message, `damaged` with the stream
     * reader's (rvt_decode_pool_damage). Non-zero from any of them stops
     * decoding and is returned by the call that was under way. */
    rvt_flow_sinks sinks;
    void *user;
    int (*damaged)(void *user, const char *text);
    uint64_t min_segment; /* items in a segment before it may end at a sync (0: a default) */
    /* Items the pool's decoder decodes in order on the calling thread, into
     * the sinks, before the first segment: a trace no longer than that
     * costs what it costs without threads (no copies of the items, no logs,
     * no worker learning the walks again). */
    uint64_t warm_up;
} rvt_decode_pool_config;

RVT_API int rvt_decode_pool_new(rvt_decode_pool **out, const rvt_decode_pool_config *cfg);
/* The next item of the trace. Returns 0, or what stopped decoding: a
 * sink's or callback's non-zero value, RVT_E_NOMEM. */
RVT_API int rvt_decode_pool_item(rvt_decode_pool *p, const void *item);
/* Room for the next item (item_size bytes) where the segment keeps it, or
 * NULL when memory ran out: an item read into it and handed to
 * rvt_decode_pool_item next is not copied. (A copy of what was just written
 * field by field waits for those stores to land, and they wait for lines a
 * worker on the other core read last.) */
RVT_API void *rvt_decode_pool_room(rvt_decode_pool *p);
/* The bytes before the next item were damaged (`text` says how): every
 * decoder forgets the path there. */
RVT_API int rvt_decode_pool_damage(rvt_decode_pool *p, const char *text);
/* Decodes what is left and hands it on; returns like rvt_decode_pool_item. */
RVT_API int rvt_decode_pool_finish(rvt_decode_pool *p);
/* Segments decoded afresh on the workers and kept, those decoded there in
 * order after the one before (no restarting sync between them), and those
 * decoded again in order on the calling thread (for tests and benchmarks). */
RVT_API void rvt_decode_pool_counts(const rvt_decode_pool *p, uint64_t *parallel, uint64_t *chained, uint64_t *again);
RVT_API void rvt_decode_pool_free(rvt_decode_pool *p);

#ifdef __cplusplus
}
#endif
#endif
