/* Unit tests of the cycle-accurate side-file reader (rvtrace/cycles.h) on
 * records built here from the layout in docs/formats.md: where the start
 * address and each cycle's bits are, the vector queue's order, the walk to
 * the trace's first instruction, the sorting of vector opcodes, the text,
 * and the errors with their bytes. (tests/e2e/ca_cycles.sh checks all of
 * it against SiFive's dqr.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/cycles.h"

/* A record: data words (30 bits each) and the start address in the top bits. */
static void put_record(uint8_t *out, const uint32_t data[32], uint64_t start) {
    for (unsigned w = 0; w < 32; w++) {
        uint32_t top = w ? (uint32_t)(start >> (2 * (w - 1))) & 3 : 3;
        uint32_t v = (data[w] & 0x3fffffffu) | top << 30;
        out[4 * w] = (uint8_t)v;
        out[4 * w + 1] = (uint8_t)(v >> 8);
        out[4 * w + 2] = (uint8_t)(v >> 16);
        out[4 * w + 3] = (uint8_t)(v >> 24);
    }
}

static void test_scalar_layout(void **state) {
    (void)state;
    uint8_t file[2 * RVT_CA_RECORD_BYTES];
    uint32_t a[32] = {0}, b[32] = {0};
    a[0] = 1u << 28;            /* cycle 0, pipe 1 (the first bit, pipe 0, is set by the format) */
    a[1] = 1u << 29 | 1u << 26; /* cycle 15 pipe 0, cycle 16 pipe 1 */
    a[31] = 1u << 0;            /* cycle 31 * 15 + 14 = 479, pipe 1 */
    b[2] = 1u << 27;            /* record 1: cycle 480 + 30 + 1, pipe 0 */
    put_record(file, a, 0x123456789abcull);
    put_record(file + RVT_CA_RECORD_BYTES, b, 0);
    rvt_ca_reader *r;
    rvt_diag d;
    assert_int_equal(rvt_ca_reader_new(&r, file, sizeof file, RVT_CA_INSTRUCTION, "t.rcad", &d), 0);
    assert_int_equal(rvt_ca_start(r), 0x123456789abcull);
    assert_int_equal(rvt_ca_trailing(r), 0);
    static const struct {
        uint64_t cycle;
        unsigned pipe;
    } want[] = {{0, 0}, {0, 1}, {15, 0}, {16, 1}, {479, 1}, {511, 0}};
    rvt_ca_note n;
    for (unsigned k = 0; k < sizeof want / sizeof *want; k++) {
        assert_int_equal(rvt_ca_next(r, RVT_CA_VARITH, &n, &d), 0); /* (the class does not matter here) */
        assert_int_equal(n.cycle, want[k].cycle);
        assert_int_equal(n.pipe, want[k].pipe);
        assert_int_equal(n.vector, 0);
    }
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), RVT_E_TRUNC);
    assert_non_null(strstr(d.msg, "t.rcad: the cycles end at byte 256 (2 whole records)"));
    rvt_ca_rewind(r);
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), 0);
    assert_int_equal(n.cycle, 0);
    rvt_ca_reader_free(r);
}

/* Vector cycles: six bits each, five a word, oldest in bits 29..24. */
static uint32_t vword(uint8_t c0, uint8_t c1, uint8_t c2, uint8_t c3, uint8_t c4) {
    return (uint32_t)c0 << 24 | (uint32_t)c1 << 18 | (uint32_t)c2 << 12 | (uint32_t)c3 << 6 | c4;
}

static void test_vector_queue(void **state) {
    (void)state;
    enum { V0 = 0x20, V1 = 0x10, START = 8, ARITH = 4, STORE = 2, LOAD = 1 };
    uint8_t file[RVT_CA_RECORD_BYTES];
    uint32_t a[32] = {0};
    /* cycle 0: (pipe 0 by the format) and pipe 1; cycle 2: start; cycle 3:
     * pipe 0; word 3 (cycle 15): start, cycle 17: arithmetic done, cycle 19:
     * load done and pipe 1 */
    a[0] = vword(V1, 0, START, V0, 0);
    a[3] = vword(START, 0, ARITH, 0, LOAD | V1);
    put_record(file, a, 0x80000000);
    rvt_ca_reader *r;
    rvt_diag d;
    assert_int_equal(rvt_ca_reader_new(&r, file, sizeof file, RVT_CA_VECTOR, "v.rcad", &d), 0);
    rvt_ca_note n;
    char text[160];
    /* a scalar instruction: cycle 0, pipe 0 */
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), 0);
    assert_int_equal(n.cycle, 0);
    assert_int_equal(n.pipe, 0);
    /* a vector add: pipe 1 at 0, started at 2, finished at 17 */
    assert_int_equal(rvt_ca_next(r, RVT_CA_VARITH, &n, &d), 0);
    assert_int_equal(n.cycle, 0);
    assert_int_equal(n.pipe, 1);
    assert_int_equal(n.vector, RVT_CA_HAS_VSTART | RVT_CA_HAS_VARITH);
    assert_int_equal(n.vstart, 2);
    assert_int_equal(n.vfinish, 17);
    assert_int_equal(n.queued, 1);
    assert_int_equal(n.arith, 1);
    rvt_ca_format(&n, 0, text, sizeof text);
    assert_string_equal(text, "t:0 [1:0(1)-2(1A,0L,0S)-16A]");
    /* a vector load: pipe 0 at 3, the start at 15 (the one at 2 is taken),
     * the load at 19 */
    assert_int_equal(rvt_ca_next(r, RVT_CA_VLOAD, &n, &d), 0);
    assert_int_equal(n.cycle, 3);
    assert_int_equal(n.vstart, 15);
    assert_int_equal(n.vfinish, 19);
    /* the add was still in the vector unit (it finished at 17): one
     * arithmetic in flight, counted on the cycle after the load's start */
    assert_int_equal(n.arith, 1);
    rvt_ca_format(&n, 0, text, sizeof text);
    assert_string_equal(text, "t:3 [0:3(1)-15(1A,1L,0S)-18L]");
    /* the pipe 1 flag at 19 is still there */
    assert_int_equal(rvt_ca_next(r, RVT_CA_VCONFIG, &n, &d), 0);
    assert_int_equal(n.cycle, 19);
    assert_int_equal(n.pipe, 1);
    assert_int_equal(n.vector, 0);
    /* a store now waits for a start that never comes */
    assert_int_equal(rvt_ca_next(r, RVT_CA_VSTORE, &n, &d), RVT_E_TRUNC);
    assert_non_null(strstr(d.msg, "before the next instruction's"));
    rvt_ca_reader_free(r);
}

static void test_classify(void **state) {
    (void)state;
    static const struct {
        uint32_t raw;
        unsigned len;
        rvt_ca_class cls;
    } cases[] = {
        {0x0000a007 | 2u << 12, 4, RVT_CA_SCALAR},  /* flw: LOAD-FP, width 2 */
        {0x00000007 | 6u << 12, 4, RVT_CA_VLOAD},   /* vle32: width 6 */
        {0x00000007 | 0u << 12, 4, RVT_CA_VLOAD},   /* vle8: width 0 */
        {0x00000027 | 3u << 12, 4, RVT_CA_SCALAR},  /* fsd */
        {0x00000027 | 5u << 12, 4, RVT_CA_VSTORE},  /* vse16 */
        {0x0000002f | 2u << 12, 4, RVT_CA_SCALAR},  /* amoadd.w */
        {0x0000002f | 6u << 12, 4, RVT_CA_VAMO},    /* vector AMO, wd clear */
        {0x0400002f | 7u << 12, 4, RVT_CA_VAMO_WW}, /* vector AMO, wd (bit 26) set */
        {0x00000057 | 0u << 12, 4, RVT_CA_VARITH},  /* OPIVV */
        {0x00000057 | 5u << 12, 4, RVT_CA_VARITH},  /* OPFVF */
        {0x00000057 | 7u << 12, 4, RVT_CA_VCONFIG}, /* vsetvli */
        {0x00000033, 4, RVT_CA_SCALAR},             /* add */
        {0x0057, 2, RVT_CA_SCALAR},                 /* compressed: never vector */
    };
    for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
        rvt_insn in;
        rvt_decode(cases[k].raw, 64, &in);
        in.raw = cases[k].raw;
        in.len = (uint8_t)cases[k].len;
        assert_int_equal(rvt_ca_classify(&in), cases[k].cls);
    }
}

/* A little program for the walk: 0x100 addi; 0x104 jal ra,0x200;
 * 0x200 addi; 0x204 ret; 0x108 beq to 0x10c (its own fall-through); 0x10c
 * addi; 0x110 bne elsewhere. */
static bool code(void *user, uint64_t addr, rvt_insn *in) {
    (void)user;
    uint32_t bits;
    switch (addr) {
    case 0x100: case 0x200: case 0x10c: bits = 0x00000013; break;
    case 0x104: bits = 0x0fc000ef; break; /* jal ra, +0xfc */
    case 0x204: bits = 0x00008067; break; /* jalr x0, 0(ra) */
    case 0x108: bits = 0x00000263; break; /* beq x0, x0, +4 */
    case 0x110: bits = 0x00101863; break; /* bne x0, x1, +16 */
    default: return false;
    }
    rvt_decode(bits, 64, in);
    return true;
}

static void test_align(void **state) {
    (void)state;
    uint8_t file[RVT_CA_RECORD_BYTES];
    uint32_t a[32] = {0};
    a[0] = 0x3fffffff; /* an instruction on each pipe each cycle */
    put_record(file, a, 0x100);
    rvt_ca_reader *r;
    rvt_diag d;
    rvt_ca_note n;
    assert_int_equal(rvt_ca_reader_new(&r, file, sizeof file, RVT_CA_INSTRUCTION, "w.rcad", &d), 0);
    /* 0x100 0x104 0x200 0x204 0x108 to 0x10c: five instructions taken */
    assert_int_equal(rvt_ca_align(r, 0x10c, code, NULL, &d), 1);
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), 0);
    assert_int_equal(n.cycle, 2);
    assert_int_equal(n.pipe, 1);
    /* the bne does not say where it goes: not reached, back at the start */
    assert_int_equal(rvt_ca_align(r, 0x300, code, NULL, &d), 0);
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), 0);
    assert_int_equal(n.cycle, 0);
    assert_int_equal(n.pipe, 0);
    rvt_ca_rewind(r);
    assert_int_equal(rvt_ca_align(r, 0x100, code, NULL, &d), 1); /* already there: nothing taken */
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), 0);
    assert_int_equal(n.cycle, 0);
    assert_int_equal(n.pipe, 0);
    rvt_ca_reader_free(r);
}

static void test_errors(void **state) {
    (void)state;
    uint8_t file[RVT_CA_RECORD_BYTES + 7] = {0};
    rvt_ca_reader *r;
    rvt_diag d;
    assert_int_equal(rvt_ca_reader_new(&r, file, 127, RVT_CA_INSTRUCTION, "s.rcad", &d), RVT_E_TRUNC);
    assert_null(r);
    assert_non_null(strstr(d.msg, "s.rcad: 127 bytes"));
    assert_int_equal(rvt_ca_reader_new(&r, file, sizeof file, (rvt_ca_type)0, "s.rcad", &d), RVT_E_ARG);
    assert_int_equal(rvt_ca_reader_new(&r, file, sizeof file, RVT_CA_VECTOR, "s.rcad", &d), 0);
    assert_int_equal(rvt_ca_trailing(r), 7);
    rvt_ca_note n;
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), 0); /* the start address's, always there */
    assert_int_equal(rvt_ca_next(r, RVT_CA_SCALAR, &n, &d), RVT_E_TRUNC);
    assert_non_null(strstr(d.msg, "byte 128 (1 whole records)"));
    rvt_ca_reader_free(r);
    rvt_ca_reader_free(NULL);
}

static void test_format_cut(void **state) {
    (void)state;
    rvt_ca_note n = {.cycle = 123456, .pipe = 1, .vector = RVT_CA_HAS_VSTART | RVT_CA_HAS_VLOAD | RVT_CA_HAS_VSTORE,
                     .vstart = 123500, .vfinish = 123600, .queued = 3, .arith = 1, .loads = 2, .stores = 4};
    char full[160], cut[10];
    int len = rvt_ca_format(&n, 123450, full, sizeof full);
    assert_string_equal(full, "t:123456 [1:6(3)-50(1A,2L,4S)-149L-149S]");
    assert_int_equal(len, (int)strlen(full));
    assert_int_equal(rvt_ca_format(&n, 123450, cut, sizeof cut), len);
    assert_string_equal(cut, "t:123456 "); /* cut short, still a string */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalar_layout), cmocka_unit_test(test_vector_queue), cmocka_unit_test(test_classify),
        cmocka_unit_test(test_align),         cmocka_unit_test(test_errors),       cmocka_unit_test(test_format_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
