/* Unit tests of include/rvtrace/flow.h: the kept blocks of walks (blocks
 * that continue each other are joined, a block whose span does not fit is
 * refused rather than kept wrong, and the ring says a walk's blocks are gone
 * exactly when later walks have written over them); a flow log refuses
 * entries once full; and the decoding pool, with a codec of its own here,
 * gives what one decoder gives even where an item's output overflows a log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/flow.h"

static void blocks_join_and_refuse(void **state) {
    (void)state;
    rvt_block list[3];
    uint32_t n = 0;
    assert_true(rvt_block_keep(list, &n, 3, 0x1000, 0x1010, 4));
    assert_true(rvt_block_keep(list, &n, 3, 0x1010, 0x1016, 2)); /* continues it: joined */
    assert_int_equal(n, 1);
    assert_int_equal(list[0].start, 0x1000);
    assert_int_equal(rvt_block_end(&list[0]), 0x1016);
    assert_int_equal(list[0].n, 6);
    assert_true(rvt_block_keep(list, &n, 3, 0x2000, 0x2004, 1));
    assert_true(rvt_block_keep(list, &n, 3, 0x80000000, 0x80000008, 2));
    assert_int_equal(n, 3);
    assert_false(rvt_block_keep(list, &n, 3, 0x3000, 0x3004, 1)); /* full */
    assert_true(rvt_block_keep(list, &n, 3, 0x80000008, 0x8000000a, 1)); /* full, but joins */
    assert_int_equal(list[2].n, 3);

    /* RV32 code running over the top of the address space: its end wraps to
     * a low address, a span no 32 bits hold */
    n = 0;
    assert_false(rvt_block_keep(list, &n, 3, 0xfffffffc, 0x2, 2));
    assert_int_equal(n, 0);
    assert_true(rvt_block_keep(list, &n, 3, 0x100, 0x104, 1));
    assert_false(rvt_block_keep(list, &n, 3, 0x104, 0x104 + (UINT64_C(1) << 32), 1)); /* the joined span would not fit */
    assert_int_equal(rvt_block_end(&list[0]), 0x104);
}

/* A walk of `count` blocks written at the ring's next place; its position. */
static uint64_t write_walk(rvt_block_ring *r, uint32_t max, uint32_t count, uint64_t base) {
    uint64_t at = rvt_block_ring_open(r, max);
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        assert_true(rvt_block_keep(rvt_block_ring_at(r, at), &n, max, base + 16 * i, base + 16 * i + 4, 2));
    rvt_block_ring_close(r, at, n);
    return at;
}

static void ring_knows_what_is_overwritten(void **state) {
    (void)state;
    rvt_block_ring *r = calloc(1, sizeof *r);
    assert_non_null(r);
    uint64_t first = write_walk(r, 32, 5, 0x1000);
    assert_int_equal(first, 0);
    assert_true(rvt_block_ring_holds(r, first));
    /* Walks up to the ring's end: the one that would not fit in what is
     * left starts over at its beginning, in one piece. */
    uint64_t at = first;
    while (r->head % RVT_BLOCK_RING + 32 <= RVT_BLOCK_RING)
        at = write_walk(r, 32, 20, 0x2000);
    assert_true(rvt_block_ring_holds(r, first));
    assert_true(rvt_block_ring_holds(r, at));
    uint64_t wrapped = write_walk(r, 32, 3, 0x3000);
    assert_int_equal(wrapped % RVT_BLOCK_RING, 0);
    assert_int_equal(wrapped, RVT_BLOCK_RING);
    /* The wrapped walk wrote over the first one's blocks, not the last's. */
    assert_false(rvt_block_ring_holds(r, first));
    assert_true(rvt_block_ring_holds(r, at));
    assert_true(rvt_block_ring_holds(r, wrapped));
    const rvt_block *b = rvt_block_ring_at(r, wrapped);
    assert_int_equal(b[2].start, 0x3020);
    assert_int_equal(rvt_block_end(&b[2]), 0x3024);
    /* A walk given up on (too many blocks) still moves the head past what
     * it wrote, so a walk it overwrote is known to be gone. */
    uint64_t next = rvt_block_ring_open(r, 4);
    uint32_t n = 0;
    for (uint32_t i = 0; i < 4; i++)
        assert_true(rvt_block_keep(rvt_block_ring_at(r, next), &n, 4, 0x4000 + 16 * i, 0x4004 + 16 * i, 1));
    assert_false(rvt_block_keep(rvt_block_ring_at(r, next), &n, 4, 0x5000, 0x5004, 1));
    rvt_block_ring_close(r, next, n);
    assert_int_equal(r->head, wrapped + 3 + 4);
    free(r);
}

static void log_refuses_when_full(void **state) {
    (void)state;
    rvt_flow_log *log;
    assert_int_equal(rvt_flow_log_new(&log), RVT_OK);
    uint64_t pc = 0x1000;
    size_t kept = 0;
    int rc;
    /* single addresses never join: one entry (three words) each */
    while ((rc = rvt_flow_log_pc(log, pc)) == RVT_OK && kept < 2 * (size_t)RVT_FLOW_LOG_MAX)
        kept++, pc += 4;
    assert_int_equal(rc, RVT_E_RANGE);
    assert_true(3 * kept >= RVT_FLOW_LOG_MAX && 3 * kept < 2 * (size_t)RVT_FLOW_LOG_MAX + 3);
    rvt_flow_log_clear(log); /* empty again: takes entries */
    assert_int_equal(rvt_flow_log_run(log, 0x2000, 2, 3), RVT_OK);
    for (size_t i = 1; i < kept; i++)
        assert_int_equal(rvt_flow_log_pc(log, 0x3000 + 4 * i), RVT_OK);
    assert_int_equal(rvt_flow_log_run(log, 0x5000, 1, 1), RVT_E_RANGE);
    /* blocks near each other: a word each */
    rvt_flow_log_clear(log);
    size_t blocks = 0;
    while ((rc = rvt_flow_log_block(log, 0x1000 + 16 * blocks, 0x1008 + 16 * blocks, 3)) == RVT_OK &&
           blocks < 2 * (size_t)RVT_FLOW_LOG_MAX)
        blocks++;
    assert_int_equal(rc, RVT_E_RANGE);
    assert_true(blocks >= RVT_FLOW_LOG_MAX && blocks < 2 * (size_t)RVT_FLOW_LOG_MAX);
    rvt_flow_log_free(log);
}

/* A codec of the test's own: an item is a count of instructions, 4 bytes
 * apart, from where the last item left off, or from `at` when it restarts
 * the flow; after resync the path is lost until the next restart. An item
 * that does not restart is read without its `at` (toy_item_bytes): the
 * pool keeps items of different sizes. */
typedef struct {
    uint32_t count;
    bool restart;
    uint64_t at;
} toy_item;

typedef struct {
    uint64_t next; /* 0: the path is lost */
    rvt_pc_sink pc;
    void *user;
} toy_decoder;

static bool toy_restarts(const void *item) { return ((const toy_item *)item)->restart; }

static int toy_like(void **out, const void *model, const void *share_runs_of, rvt_flow_log *log) {
    (void)share_runs_of;
    toy_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return RVT_E_NOMEM;
    d->pc = log ? rvt_flow_log_pc : ((const toy_decoder *)model)->pc;
    d->user = log ? (void *)log : NULL;
    *out = d;
    return RVT_OK;
}

static int toy_decode(void *dec, const void *item, rvt_diag *diag) {
    toy_decoder *d = dec;
    const toy_item *it = item;
    if (it->restart)
        d->next = it->at;
    if (!d->next) {
        snprintf(diag->msg, sizeof diag->msg, "lost before %u instructions", it->count);
        return 1;
    }
    for (uint32_t i = 0; i < it->count; i++, d->next += 4)
        if (d->user && d->pc(d->user, d->next))
            return RVT_E_IO;
    return RVT_OK;
}

static void toy_resync(void *dec) { ((toy_decoder *)dec)->next = 0; }
static void toy_copy_state(void *to, const void *from) { ((toy_decoder *)to)->next = ((const toy_decoder *)from)->next; }
static bool toy_same_state(const void *a, const void *b) {
    return ((const toy_decoder *)a)->next == ((const toy_decoder *)b)->next;
}
static void toy_add_counts(void *to, const void *from) { (void)to, (void)from; }

static size_t toy_item_bytes(const void *item) {
    return ((const toy_item *)item)->restart ? sizeof(toy_item) : offsetof(toy_item, at);
}

static const rvt_pool_codec toy_codec = {sizeof(toy_item), toy_restarts,   toy_like,       toy_decode, toy_resync,
                                         toy_copy_state,   toy_same_state, toy_add_counts, free,       toy_item_bytes};

/* What the consumers get, one value per address and two per note. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
} flow_record;

static int record(flow_record *r, uint64_t v) {
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->v = realloc(r->v, r->cap * sizeof *r->v);
        assert_non_null(r->v);
    }
    r->v[r->n++] = v;
    return 0;
}

static int record_pc(void *user, uint64_t pc) { return record(user, pc); }
static int record_run(void *user, uint64_t start, uint32_t n, uint64_t wide) {
    for (uint32_t i = 0; i < n; i++, start += (wide >> i) & 1 ? 4 : 2)
        record(user, start);
    return 0;
}
static int record_note(void *user, const char *text) { return record(user, 1) | record(user, strlen(text)); }

/* Every kind of entry comes back as it went in, in order: blocks (one of
 * more than 4 GiB, one of 2^32 - 1 instructions), runs (the second joining
 * the first), an address, a trap and a note. */
static int record_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    return record(user, 0xb) | record(user, start) | record(user, end) | record(user, n);
}
static int record_run_as_is(void *user, uint64_t start, uint32_t n, uint64_t wide) {
    return record(user, 0x7) | record(user, start) | record(user, n) | record(user, wide);
}
static int record_trap(void *user, const rvt_trap_event *trap) {
    return record(user, 0x77) | record(user, trap->cause) | record(user, trap->at);
}

static void log_replays_every_kind_in_order(void **state) {
    (void)state;
    rvt_flow_log *log;
    assert_int_equal(rvt_flow_log_new(&log), RVT_OK);
    rvt_trap_event trap = {.has_cause = true, .cause = 8, .at = 0x4444};
    assert_int_equal(rvt_flow_log_block(log, 0x80000000, 0x80000010, 5), RVT_OK);
    assert_int_equal(rvt_flow_log_block(log, 0x1000, 0x1000 + (UINT64_C(1) << 33), 7), RVT_OK);
    assert_int_equal(rvt_flow_log_block(log, 0x2000, 0x2008, UINT32_MAX), RVT_OK);
    assert_int_equal(rvt_flow_log_run(log, 0x3000, 2, 1), RVT_OK);          /* 4 + 2 bytes */
    assert_int_equal(rvt_flow_log_run(log, 0x3006, 3, 0x6), RVT_OK);        /* joins: 2 + 4 + 4 */
    assert_int_equal(rvt_flow_log_pc(log, 0xfffffffffffffffe), RVT_OK);
    assert_int_equal(rvt_flow_log_trap(log, &trap), RVT_OK);
    assert_int_equal(rvt_flow_log_note(log, "lost"), RVT_OK);
    assert_int_equal(rvt_flow_log_block(log, 0x5000, 0x5004, 1), RVT_OK);
    /* the widest and longest blocks one word holds, and one past each */
    assert_int_equal(rvt_flow_log_block(log, 0x100000100, 0x100000200, 9), RVT_OK); /* new high bits */
    assert_int_equal(rvt_flow_log_block(log, 0x100000400, 0x100000400 + 0x1fffe, 0x7fff), RVT_OK);
    assert_int_equal(rvt_flow_log_block(log, 0x100000400, 0x100000400 + 0x20000, 0x7fff), RVT_OK);
    assert_int_equal(rvt_flow_log_block(log, 0x1fffffff0, 0x1fffffff4, 0x8000), RVT_OK);
    assert_int_equal(rvt_flow_log_block(log, 0x1fffffffc, 0x200000000, 2), RVT_OK); /* ends past them */
    assert_int_equal(rvt_flow_log_block(log, 0x5000, 0x5003, 1), RVT_OK);            /* (odd) */
    flow_record got = {0};
    rvt_flow_sinks sinks = {record_pc, record_run_as_is, record_block, record_trap, record_note, NULL};
    assert_int_equal(rvt_flow_log_replay(log, &sinks, &got), RVT_OK);
    const uint64_t want[] = {0xb, 0x80000000, 0x80000010, 5,
                             0xb, 0x1000, 0x1000 + (UINT64_C(1) << 33), 7,
                             0xb, 0x2000, 0x2008, UINT32_MAX,
                             0x7, 0x3000, 5, 0x1 | 0x6 << 2,
                             0xfffffffffffffffe,
                             0x77, 8, 0x4444,
                             1, 4,
                             0xb, 0x5000, 0x5004, 1,
                             0xb, 0x100000100, 0x100000200, 9,
                             0xb, 0x100000400, 0x100000400 + 0x1fffe, 0x7fff,
                             0xb, 0x100000400, 0x100000400 + 0x20000, 0x7fff,
                             0xb, 0x1fffffff0, 0x1fffffff4, 0x8000,
                             0xb, 0x1fffffffc, 0x200000000, 2,
                             0xb, 0x5000, 0x5003, 1};
    assert_int_equal(got.n, sizeof want / sizeof want[0]);
    assert_memory_equal(got.v, want, sizeof want);
    free(got.v);
    rvt_flow_log_free(log);
}

/* A walk comes back under its id with its blocks, in order with the rest:
 * its blocks kept the first time, referred to when its id comes again in
 * the same log (the blocks: two with other high address bits than the
 * blocks around them, one too long for a word; the block after the walk
 * takes its high bits from the one before it); one of more than
 * RVT_FLOW_LOG_WALK_MAX blocks comes as its blocks. Without a walk sink
 * every walk comes block by block; after a clear, the same id is kept
 * again. */
static int record_walk(void *user, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns) {
    int rc = record(user, 0x3a1c) | record(user, id) | record(user, n) | record(user, insns);
    for (uint32_t i = 0; i < n; i++)
        rc |= record_block(user, blocks[i].start, rvt_block_end(&blocks[i]), blocks[i].n);
    return rc;
}

static void log_replays_walks(void **state) {
    (void)state;
    const rvt_block walk[] = {{0x80000100, 8, 3},
                              {0x180000200, 0x40000, 9}, /* new high bits, wider than a word */
                              {0x80000020, 4, 1}};
    enum { LONG = RVT_FLOW_LOG_WALK_MAX + 1 };
    rvt_block long_walk[LONG];
    for (unsigned i = 0; i < LONG; i++)
        long_walk[i] = (rvt_block){0x1000 + 0x100 * i, 6, 2};
    rvt_flow_log *log;
    assert_int_equal(rvt_flow_log_new(&log), RVT_OK);
    for (int with_walk_sink = 1; with_walk_sink >= 0; with_walk_sink--) {
        for (int pass = 0; pass < 2; pass++) { /* (the second after a clear) */
            rvt_flow_log_clear(log);
            assert_int_equal(rvt_flow_log_block(log, 0x280000000, 0x280000010, 5), RVT_OK);
            assert_int_equal(rvt_flow_log_walk(log, 42, walk, 3, 13), RVT_OK);
            assert_int_equal(rvt_flow_log_block(log, 0x280000030, 0x280000034, 1), RVT_OK);
            assert_int_equal(rvt_flow_log_walk(log, 42, walk, 3, 13), RVT_OK);           /* by reference */
            assert_int_equal(rvt_flow_log_walk(log, 43, long_walk, LONG, 2 * LONG), RVT_OK);
            assert_int_equal(rvt_flow_log_pc(log, 0x5000), RVT_OK);
            flow_record got = {0}, want = {0};
            rvt_flow_sinks sinks = {record_pc, record_run_as_is, record_block, record_trap, record_note,
                                    with_walk_sink ? record_walk : NULL};
            assert_int_equal(rvt_flow_log_replay(log, &sinks, &got), RVT_OK);
            record_block(&want, 0x280000000, 0x280000010, 5);
            for (int k = 0; k < 2; k++) {
                if (with_walk_sink) {
                    record(&want, 0x3a1c), record(&want, 42), record(&want, 3), record(&want, 13);
                }
                for (unsigned i = 0; i < 3; i++)
                    record_block(&want, walk[i].start, rvt_block_end(&walk[i]), walk[i].n);
                if (k == 0)
                    record_block(&want, 0x280000030, 0x280000034, 1);
            }
            for (unsigned i = 0; i < LONG; i++)
                record_block(&want, long_walk[i].start, rvt_block_end(&long_walk[i]), long_walk[i].n);
            record(&want, 0x5000);
            assert_int_equal(got.n, want.n);
            assert_memory_equal(got.v, want.v, want.n * sizeof *want.v);
            free(got.v);
            free(want.v);
        }
    }
    rvt_flow_log_free(log);
}

static void pool_decodes_an_overflowing_segment_in_order(void **state) {
    (void)state;
    /* a sync every third item (each segment three items, all decodable
     * apart) and one item whose instructions overflow a log */
    toy_item items[60];
    for (unsigned i = 0; i < 60; i++)
        items[i] = (toy_item){5 + i % 7, i % 3 == 0, 0x10000000ull * (i / 3 + 1)};
    items[31].count = RVT_FLOW_LOG_MAX + RVT_FLOW_LOG_MAX / 2 + 1;
    flow_record one = {0}, pooled = {0};
    toy_decoder in_order = {.pc = record_pc, .user = &one};
    rvt_diag diag;
    for (unsigned i = 0; i < 60; i++)
        assert_int_equal(toy_decode(&in_order, &items[i], &diag), RVT_OK);

    toy_decoder model = {.pc = record_pc, .user = &pooled};
    rvt_decode_pool_config cfg = {.threads = 2,
                                  .codec = &toy_codec,
                                  .decoder = &model,
                                  .sinks = {record_pc, record_run, NULL, NULL, record_note, NULL},
                                  .user = &pooled,
                                  .min_segment = 2};
    rvt_decode_pool *pool;
    assert_int_equal(rvt_decode_pool_new(&pool, &cfg), RVT_OK);
    for (unsigned i = 0; i < 60; i++)
        assert_int_equal(rvt_decode_pool_item(pool, &items[i]), 0);
    assert_int_equal(rvt_decode_pool_finish(pool), 0);
    uint64_t parallel, chained, again;
    rvt_decode_pool_counts(pool, &parallel, &chained, &again);
    rvt_decode_pool_free(pool);
    assert_int_equal(parallel, 19);
    assert_int_equal(again, 1); /* the segment with the overflowing item */
    assert_int_equal(pooled.n, one.n);
    assert_memory_equal(pooled.v, one.v, one.n * sizeof *one.v);
    free(one.v);
    free(pooled.v);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_join_and_refuse),
        cmocka_unit_test(ring_knows_what_is_overwritten),
        cmocka_unit_test(log_refuses_when_full),
        cmocka_unit_test(log_replays_every_kind_in_order),
        cmocka_unit_test(log_replays_walks),
        cmocka_unit_test(pool_decodes_an_overflowing_segment_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
