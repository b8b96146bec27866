/* The tandem trace protocol against the specification's own examples
 * (Appendix C: rv64gc, XLEN = FLEN = MLEN = 64) and its stated layout rules.
 * Where the appendix's hex dumps write a decimal number as if it were hex
 * (the pc identifier 10 as "10", register x10 as "10 10"; CHECKLIST ?C-1),
 * and where C.5 gives a 32-bit instruction the 16-bit opcode (?C-2), the
 * vectors below follow the tables' text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/tandem.h"

typedef struct sink {
    uint8_t bytes[512];
    size_t len;
} sink;

static int to_sink(void *user, const uint8_t *b, size_t n) {
    sink *s = user;
    if (s->len + n > sizeof s->bytes)
        return RVT_E_RANGE;
    memcpy(s->bytes + s->len, b, n);
    s->len += n;
    return 0;
}

static rvt_tv_params rv64(void) {
    rvt_tv_params p;
    rvt_tv_params_default(&p, 64);
    return p;
}

#define REC(...) ((rvt_tv_record){__VA_ARGS__})
#define BEGIN REC(.opcode = RVT_TV_BEGIN)
#define END REC(.opcode = RVT_TV_END)
#define INCR REC(.opcode = RVT_TV_INCR_PC)
#define INSN32(x) REC(.opcode = RVT_TV_INSN32, .insn = (x))
#define INSN16(x) REC(.opcode = RVT_TV_INSN16, .insn = (x))
#define REG(r, v) REC(.opcode = RVT_TV_REG, .reg = (r), .value = (v))
#define STATE(i, v) REC(.opcode = RVT_TV_STATE, .id = (i), .value = (v))

/* Writes `recs`, checks the bytes, reads them back one byte per chunk and
 * checks every record. */
static void check_example(const rvt_tv_record *recs, size_t n, const uint8_t *want, size_t want_len) {
    rvt_tv_params p = rv64();
    sink s = {0};
    rvt_tv_writer *w;
    assert_int_equal(rvt_tv_writer_new(&w, &p, NULL, to_sink, &s, NULL), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rvt_tv_writer_put(w, &recs[i]), 0);
    assert_int_equal(rvt_tv_writer_finish(w), 0);
    rvt_tv_writer_free(w);
    assert_int_equal(s.len, want_len);
    assert_memory_equal(s.bytes, want, want_len);

    rvt_tv_reader *r;
    assert_int_equal(rvt_tv_reader_new(&r, &p, NULL), 0);
    size_t got = 0;
    rvt_tv_record rec;
    for (size_t i = 0; i < want_len; i++) {
        rvt_tv_reader_feed(r, &want[i], 1);
        int rc;
        while ((rc = rvt_tv_reader_next(r, &rec, NULL)) == 1) {
            assert_true(got < n);
            const rvt_tv_record *e = &recs[got++];
            assert_int_equal(rec.opcode, e->opcode);
            assert_int_equal(rec.reg, e->reg);
            assert_int_equal(rec.id, e->id);
            assert_int_equal(rec.insn, e->insn);
            assert_true(rec.value == e->value);
        }
        assert_int_equal(rc, 0);
    }
    assert_int_equal(rvt_tv_reader_finish(r, NULL), 0);
    assert_int_equal(got, n);
    rvt_tv_reader_free(r);
}

#define CHECK(recs, ...)                                                                                   \
    do {                                                                                                   \
        static const uint8_t want[] = {__VA_ARGS__};                                                       \
        check_example(recs, sizeof recs / sizeof recs[0], want, sizeof want);                              \
    } while (0)

static void c1_add(void **state) { /* BS-070 */
    (void)state;
    rvt_tv_record r[] = {BEGIN, INCR, INSN32(0x006281b3), REG(0x1003, 0x1234), END};
    CHECK(r, 0x01, 0x03, 0x11, 0xb3, 0x81, 0x62, 0x00, 0x04, 0x03, 0x10, 0x34, 0x12, 0, 0, 0, 0, 0, 0, 0x02);
}

static void c2_jr(void **state) { /* BS-071 */
    (void)state;
    rvt_tv_record r[] = {BEGIN, STATE(RVT_TV_PC, 0xc000100), INSN32(0x10010067), END};
    CHECK(r, 0x01, 0x07, 0x0a, 0x00, 0x01, 0x00, 0x0c, 0, 0, 0, 0, 0x11, 0x67, 0x00, 0x01, 0x10, 0x02);
}

static void c3_fadd(void **state) { /* BS-072: full FLEN register, OR update of fcsr */
    (void)state;
    rvt_tv_record r[] = {BEGIN, INCR, INSN32(0x0116f3d3), REG(0x1027, 0xffffffff66fef4f9ull),
                         REC(.opcode = RVT_TV_REG_OR, .reg = 0x003, .value = 1), END};
    CHECK(r, 0x01, 0x03, 0x11, 0xd3, 0xf3, 0x16, 0x01, 0x04, 0x27, 0x10, 0xf9, 0xf4, 0xfe, 0x66, 0xff, 0xff, 0xff,
          0xff, 0x06, 0x03, 0x00, 0x01, 0x02);
}

static void c4_c_sub(void **state) { /* BS-073 */
    (void)state;
    rvt_tv_record r[] = {BEGIN, INCR, INSN16(0x8d0d), REG(0x100a, 0xffffffff12345678ull), END};
    CHECK(r, 0x01, 0x03, 0x10, 0x0d, 0x8d, 0x04, 0x0a, 0x10, 0x78, 0x56, 0x34, 0x12, 0xff, 0xff, 0xff, 0xff, 0x02);
}

static void c5_lw(void **state) { /* BS-074 */
    (void)state;
    rvt_tv_record r[] = {BEGIN, INCR, INSN32(0x0082a203), REG(0x1004, 0x55aa55aa55aa55aaull),
                         STATE(RVT_TV_PADDR, 0x1000008), END};
    CHECK(r, 0x01, 0x03, 0x11, 0x03, 0xa2, 0x82, 0x00, 0x04, 0x04, 0x10, 0xaa, 0x55, 0xaa, 0x55, 0xaa, 0x55, 0xaa,
          0x55, 0x07, 0x02, 0x08, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0x02);
}

static void c6_csrrc(void **state) { /* BS-075 */
    (void)state;
    rvt_tv_record r[] = {BEGIN, INCR, INSN32(0x3045b4f3), REG(0x1009, 0x888), REG(0x304, 0x880), END};
    CHECK(r, 0x01, 0x03, 0x11, 0xf3, 0xb4, 0x45, 0x30, 0x04, 0x09, 0x10, 0x88, 0x08, 0, 0, 0, 0, 0, 0, 0x04, 0x04,
          0x03, 0x80, 0x08, 0, 0, 0, 0, 0, 0, 0x02);
}

static void c7_illegal(void **state) { /* BS-076 */
    (void)state;
    rvt_tv_record r[] = {BEGIN,          STATE(RVT_TV_PC, 0x10000), INSN32(0), REG(0x341, 0x81234), REG(0x342, 2),
                         REG(0x300, 0xa000018b0ull), REG(0x343, 0), STATE(RVT_TV_PRIV, 3), END};
    CHECK(r, 0x01, 0x07, 0x0a, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0x11, 0, 0, 0, 0, 0x04, 0x41, 0x03, 0x34, 0x12,
          0x08, 0, 0, 0, 0, 0, 0x04, 0x42, 0x03, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x04, 0x00, 0x03, 0xb0, 0x18, 0x00, 0x00,
          0x0a, 0, 0, 0, 0x04, 0x43, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x01, 0x03, 0x02);
}

static void c8_interrupt(void **state) { /* BS-077 */
    (void)state;
    rvt_tv_record r[] = {BEGIN,         STATE(RVT_TV_PC, 0x10000), REG(0x341, 0x81256), REG(0x342, 0x8000000000000003ull),
                         REG(0x300, 0xa000018b0ull), REG(0x343, 0), STATE(RVT_TV_PRIV, 3), END};
    CHECK(r, 0x01, 0x07, 0x0a, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0x04, 0x41, 0x03, 0x56, 0x12, 0x08, 0, 0, 0, 0, 0,
          0x04, 0x42, 0x03, 0x03, 0, 0, 0, 0, 0, 0, 0x80, 0x04, 0x00, 0x03, 0xb0, 0x18, 0x00, 0x00, 0x0a, 0, 0, 0,
          0x04, 0x43, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x01, 0x03, 0x02);
}

/* BS-026, BS-017, BS-018: op in the low nibble, size in the high one; data
 * follows a store request and a load response. */
static void memory_records(void **state) {
    (void)state;
    rvt_tv_params p = rv64();
    uint8_t b[RVT_TV_MAX_RECORD];
    rvt_tv_record st = REC(.opcode = RVT_TV_MEM_REQ, .memop = RVT_TV_STORE, .size = 2, .addr = 0x80001000,
                           .value = 0xdeadbeef);
    size_t n = rvt_tv_encode(&p, &st, b, NULL);
    static const uint8_t want_st[] = {0x08, 0x00, 0x10, 0x00, 0x80, 0, 0, 0, 0, 0x21, 0xef, 0xbe, 0xad, 0xde};
    assert_int_equal(n, sizeof want_st);
    assert_memory_equal(b, want_st, n);
    rvt_tv_record ld = REC(.opcode = RVT_TV_MEM_REQ, .memop = RVT_TV_LOAD, .size = 3, .addr = 0x1018);
    assert_int_equal(rvt_tv_encode(&p, &ld, b, NULL), 10); /* no data */
    assert_int_equal(b[9], 0x30);
    rvt_tv_record rsp = REC(.opcode = RVT_TV_MEM_RSP, .size = 0, .result = 1, .has_data = true, .value = 0x7f);
    assert_int_equal(rvt_tv_encode(&p, &rsp, b, NULL), 3); /* 16-bit payload */
    assert_int_equal(b[1], 0x10);
    assert_int_equal(b[2], 0x7f);
}

/* BS-019: hart reset is opcode 10 with no payload, here in a group of its
 * own. */
static void reset_record(void **state) {
    (void)state;
    static const rvt_tv_record recs[] = {BEGIN, REC(.opcode = RVT_TV_RESET), END};
    CHECK(recs, 0x01, 0x0a, 0x02);
}

/* BS-006: MLEN 34 takes 5 bytes; RV32 registers 4. */
static void rv32_widths(void **state) {
    (void)state;
    rvt_tv_params p;
    rvt_tv_params_default(&p, 32);
    assert_int_equal(p.mlen, 34);
    uint8_t b[RVT_TV_MAX_RECORD];
    rvt_tv_record pa = STATE(RVT_TV_PADDR, 0x380000000ull);
    assert_int_equal(rvt_tv_encode(&p, &pa, b, NULL), 7);
    assert_int_equal(b[6], 0x03);
    rvt_tv_record x = REG(0x1001, 0x80000000u);
    assert_int_equal(rvt_tv_encode(&p, &x, b, NULL), 7);
    rvt_tv_record too_wide = REG(0x1001, 0x100000000ull);
    assert_int_equal(rvt_tv_encode(&p, &too_wide, b, NULL), 0);
    rvt_tv_record pc = STATE(RVT_TV_PC, 0x80000000u);
    assert_int_equal(rvt_tv_encode(&p, &pc, b, NULL), 6);
}

/* Incremental forms: signed offset, OR mask. */
static void incremental_decode(void **state) {
    (void)state;
    rvt_tv_params p = rv64();
    static const uint8_t bytes[] = {0x05, 0x02, 0x10, 0xfc, 0x06, 0x01, 0x00, 0x1f};
    rvt_tv_reader *r;
    assert_int_equal(rvt_tv_reader_new(&r, &p, NULL), 0);
    rvt_tv_reader_feed(r, bytes, sizeof bytes);
    rvt_tv_record rec;
    assert_int_equal(rvt_tv_reader_next(r, &rec, NULL), 1);
    assert_int_equal(rec.opcode, RVT_TV_REG_ADD);
    assert_int_equal(rec.reg, 0x1002);
    assert_true((int64_t)rec.value == -4);
    assert_int_equal(rvt_tv_reader_next(r, &rec, NULL), 1);
    assert_int_equal(rec.opcode, RVT_TV_REG_OR);
    assert_int_equal(rec.reg, 0x001);
    assert_true(rec.value == 0x1f);
    assert_int_equal(rvt_tv_reader_next(r, &rec, NULL), 0);
    rvt_tv_reader_free(r);
}

/* rvt_tv_reader_read: whole records decoded in place, each read ending after
 * a begin or end record, the records before an invalid one handed over first
 * and the error on the next read. 40 bytes: the in-place path needs 28. */
static void group_reads(void **state) {
    (void)state;
    rvt_tv_params p = rv64();
    static const uint8_t bytes[] = {
        0x01,                                                 /* begin */
        0x03,                                                 /* incr-pc */
        0x11, 0x13, 0x05, 0x10, 0x00,                         /* insn32 addi x10, x0, 1 */
        0x04, 0x0a, 0x10, 0x01, 0, 0, 0, 0, 0, 0, 0,          /* reg x10 = 1 */
        0x02,                                                 /* end */
        0x01,                                                 /* begin */
        0x08, 0x00, 0x10, 0, 0x80, 0, 0, 0, 0, 0x31, 0x2a, 0, 0, 0, 0, 0, 0, 0, /* store 8 bytes 0x2a */
        0x09, 0x33,                                           /* response: size 3, result 3 (invalid) */
    };
    rvt_tv_reader *r;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_tv_reader_new(&r, &p, NULL), 0);
    rvt_tv_reader_feed(r, bytes, sizeof bytes);
    rvt_tv_record recs[8];
    assert_int_equal(rvt_tv_reader_read(r, recs, 8, &d), 1); /* begin */
    assert_int_equal(rvt_tv_reader_read(r, recs, 8, &d), 4); /* incr-pc, insn, reg, end */
    assert_int_equal(recs[1].opcode, RVT_TV_INSN32);
    assert_int_equal(recs[1].insn, 0x00100513);
    assert_int_equal(recs[2].reg, 0x100a);
    assert_true(recs[2].value == 1);
    assert_int_equal(recs[3].opcode, RVT_TV_END);
    assert_true(recs[3].offset == 18);
    assert_int_equal(rvt_tv_reader_read(r, recs, 8, &d), 1); /* begin */
    assert_int_equal(rvt_tv_reader_read(r, recs, 8, &d), 1); /* the request, then the bad response */
    assert_int_equal(recs[0].opcode, RVT_TV_MEM_REQ);
    assert_true(recs[0].addr == 0x80001000 && recs[0].value == 0x2a && recs[0].size == 3);
    assert_int_equal(rvt_tv_reader_read(r, recs, 8, &d), RVT_E_FORMAT);
    assert_non_null(strstr(d.msg, "byte 38: memory response with size code 3 and result 3"));
    rvt_tv_reader_free(r);
}

static void expect_error(const uint8_t *bytes, size_t n, int status, const char *text) {
    rvt_tv_params p = rv64();
    rvt_tv_reader *r;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_tv_reader_new(&r, &p, NULL), 0);
    rvt_tv_reader_feed(r, bytes, n);
    rvt_tv_record rec;
    int rc;
    while ((rc = rvt_tv_reader_next(r, &rec, &d)) == 1)
        ;
    if (rc == 0)
        rc = rvt_tv_reader_finish(r, &d);
    assert_int_equal(rc, status);
    assert_non_null(strstr(d.msg, text));
    rvt_tv_reader_free(r);
}

/* BS-022 and the reader's errors: each names the byte offset. */
static void reader_errors(void **state) {
    (void)state;
    static const uint8_t unknown[] = {0x01, 0x03, 0x0c};
    expect_error(unknown, sizeof unknown, RVT_E_FORMAT, "byte 2: unknown opcode 12");
    static const uint8_t bad_id[] = {0x01, 0x07, 0x0b, 0x00};
    expect_error(bad_id, sizeof bad_id, RVT_E_FORMAT, "byte 1: additional state identifier 11");
    static const uint8_t orphan[] = {0x01, 0x09, 0x00};
    expect_error(orphan, sizeof orphan, RVT_E_FORMAT, "byte 1: memory response that does not follow");
    static const uint8_t bad_size[] = {0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0x40};
    expect_error(bad_size, sizeof bad_size, RVT_E_FORMAT, "byte 0: memory request with op 0 and size code 4");
    static const uint8_t cut[] = {0x01, 0x04, 0x03, 0x10, 0x34};
    expect_error(cut, sizeof cut, RVT_E_TRUNC, "byte 1: the stream ends inside a reg record");
    static const uint8_t beyond[] = {0x04, 0x40, 0x10};
    expect_error(beyond, sizeof beyond, RVT_E_FORMAT, "register 0x1040");
}

static void register_names(void **state) {
    (void)state;
    char buf[32];
    assert_string_equal(rvt_tv_reg_name(0x1005, buf, sizeof buf), "x5/t0");
    assert_string_equal(rvt_tv_reg_name(0x1027, buf, sizeof buf), "f7/ft7");
    assert_string_equal(rvt_tv_reg_name(0x300, buf, sizeof buf), "mstatus");
    assert_int_equal(rvt_tv_reg_lookup("t0"), 0x1005);
    assert_int_equal(rvt_tv_reg_lookup("ft7"), 0x1027);
    assert_int_equal(rvt_tv_reg_lookup("mstatus"), 0x300);
    assert_int_equal(rvt_tv_reg_lookup("bogus"), -1);
    unsigned f;
    assert_int_equal(rvt_tv_parse_fields("all,-mem", &f, NULL), 0);
    assert_int_equal(f, RVT_TV_F_ALL & ~RVT_TV_F_MEM);
    assert_int_equal(rvt_tv_parse_fields("gpr,nope", &f, NULL), RVT_E_ARG);
}

/* An end group is implied by the next begin when asked (BS-036). */
static void omitted_end(void **state) {
    (void)state;
    rvt_tv_params p = rv64();
    sink s = {0};
    rvt_tv_writer *w;
    rvt_tv_writer_options o = {.omit_end = true};
    assert_int_equal(rvt_tv_writer_new(&w, &p, &o, to_sink, &s, NULL), 0);
    rvt_tv_record recs[] = {BEGIN, INCR, INSN16(0x0001), END, BEGIN, INCR, INSN16(0x0001), END};
    for (size_t i = 0; i < 8; i++)
        rvt_tv_writer_put(w, &recs[i]);
    assert_int_equal(rvt_tv_writer_finish(w), 0);
    rvt_tv_writer_free(w);
    static const uint8_t want[] = {0x01, 0x03, 0x10, 0x01, 0x00, 0x01, 0x03, 0x10, 0x01, 0x00, 0x02};
    assert_int_equal(s.len, sizeof want);
    assert_memory_equal(s.bytes, want, sizeof want);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c1_add),          cmocka_unit_test(c2_jr),           cmocka_unit_test(c3_fadd),
        cmocka_unit_test(c4_c_sub),        cmocka_unit_test(c5_lw),           cmocka_unit_test(c6_csrrc),
        cmocka_unit_test(c7_illegal),      cmocka_unit_test(c8_interrupt),    cmocka_unit_test(memory_records),
        cmocka_unit_test(rv32_widths),     cmocka_unit_test(incremental_decode), cmocka_unit_test(reader_errors),
        cmocka_unit_test(group_reads),     cmocka_unit_test(reset_record),
        cmocka_unit_test(register_names),  cmocka_unit_test(omitted_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
