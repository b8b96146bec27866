/* Unit tests of the kept blocks of walks (include/rvtrace/flow.h): blocks
 * that continue each other are joined, a block whose span does not fit is
 * refused rather than kept wrong, and the ring says a walk's blocks are gone
 * exactly when later walks have written over them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_join_and_refuse),
        cmocka_unit_test(ring_knows_what_is_overwritten),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
