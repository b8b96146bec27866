/* The N-Trace MSEO reader on the spec's own message example (N-Trace 1.0,
 * "N-Trace Message Example"), on hand-assembled messages with a SRC field and
 * a time stamp, and on damaged input that must be reported and skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/ntrace.h"

static void expect_field(const rvt_nexus_msg *m, rvt_nexus_field_id id, unsigned width, uint64_t value) {
    const rvt_nexus_field *f = rvt_nexus_find(m, id);
    if (!f)
        fail_msg("field %s missing", rvt_nexus_field_name(id));
    assert_int_equal(f->width, width);
    assert_int_equal(f->value, value);
}

static void test_spec_example(void **state) {
    (void)state;
    /* idle, IndirectBranchHist with B-TYPE 0, I-CNT 0x7D, U-ADDR 0x7, HIST 0xFFE, idle */
    static const uint8_t bytes[] = {0xff, 0x70, 0xd0, 0x1d, 0x1d, 0xf8, 0xff, 0xff};
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, NULL, bytes, sizeof bytes);
    rvt_nexus_msg m;
    rvt_diag d;
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
    assert_int_equal(m.offset, 1);
    assert_int_equal(m.length, 6);
    assert_int_equal(m.tcode, RVT_NX_INDIRECT_BRANCH_HIST);
    assert_string_equal(rvt_nexus_tcode_name(m.tcode), "IndirectBranchHist");
    assert_int_equal(m.nfields, 5);
    expect_field(&m, RVT_NXF_BTYPE, 2, 0);
    expect_field(&m, RVT_NXF_ICNT, 10, 0x7d);
    expect_field(&m, RVT_NXF_UADDR, 6, 0x7);
    expect_field(&m, RVT_NXF_HIST, 12, 0xffe);
    assert_false(rvt_nexus_has(&m, RVT_NXF_TSTAMP));
    /* fields are printed on the byte where they end */
    assert_int_equal(m.fields[1].end_byte, 1);
    assert_int_equal(m.fields[2].end_byte, 2);
    assert_int_equal(m.fields[4].end_byte, 5);
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 0);
    assert_int_equal(r.idle, 2);
}

static void test_src_and_timestamp(void **state) {
    (void)state;
    /* DirectBranch from source 2 (2-bit SRC), I-CNT 5, then TSTAMP 0x3F;
     * then ResourceFull with SRC 0, RCODE 2 (history 0x1, HREPEAT 3). */
    static const uint8_t bytes[] = {0x0c, (uint8_t)((((5u << 2) | 2u) << 2) | 1u), 0xff,
                                    0x6c, (uint8_t)(((2u << 2) | 0u) << 2), 0x05, 0x0f};
    rvt_nexus_config cfg = {.src_bits = 2};
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, &cfg, bytes, sizeof bytes);
    rvt_nexus_msg m;
    rvt_diag d;
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
    assert_int_equal(m.tcode, RVT_NX_DIRECT_BRANCH);
    expect_field(&m, RVT_NXF_SRC, 2, 2);
    expect_field(&m, RVT_NXF_ICNT, 4, 5);
    expect_field(&m, RVT_NXF_TSTAMP, 6, 0x3f);
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
    assert_int_equal(m.tcode, RVT_NX_RESOURCE_FULL);
    expect_field(&m, RVT_NXF_SRC, 2, 0);
    expect_field(&m, RVT_NXF_RCODE, 4, 2);
    expect_field(&m, RVT_NXF_RDATA, 6, 0x1); /* SRC and RCODE fill a byte: RDATA starts on the next */
    expect_field(&m, RVT_NXF_HREPEAT, 6, 3);
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 0);
}

static void test_damage_reported_and_skipped(void **state) {
    (void)state;
    static const uint8_t bytes[] = {
        0x10, 0x13,             /* IndirectBranch that ends after I-CNT: U-ADDR missing */
        0xf8, 0x02, 0x03,       /* TCODE 62 with a reserved MSEO 2 */
        0x0c, 0x9b,             /* DirectBranch I-CNT 0x26: must still be read */
        0x0c, 0x18,             /* DirectBranch cut off by the end of the capture */
    };
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, NULL, bytes, sizeof bytes);
    rvt_nexus_msg m;
    rvt_diag d;
    assert_int_equal(rvt_nexus_next(&r, &m, &d), RVT_E_FORMAT);
    assert_non_null(strstr(d.msg, "byte 1"));
    assert_non_null(strstr(d.msg, "UADDR"));
    assert_int_equal(rvt_nexus_next(&r, &m, &d), RVT_E_FORMAT);
    assert_non_null(strstr(d.msg, "byte 3: reserved MSEO 2"));
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
    assert_int_equal(m.offset, 5);
    expect_field(&m, RVT_NXF_ICNT, 6, 0x26);
    assert_int_equal(rvt_nexus_next(&r, &m, &d), RVT_E_TRUNC);
    assert_non_null(strstr(d.msg, "byte 9"));
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 0);
    assert_int_equal(r.skipped, 7);
}

/* TCODE 56..62 are vendor-defined, the others N-Trace does not name are
 * reserved: their fields are unknown, but MSEO 11 ends them, so a reader
 * passes over them whole and flow decoding ignores them (they are not
 * errors). Each is handed out with its TCODE and length. */
static void test_reserved_and_vendor_tcodes(void **state) {
    (void)state;
    static const uint8_t bytes[] = {
        0xf8, 0x03,             /* TCODE 62 (vendor), one more byte */
        0x0c, 0x9b,             /* DirectBranch I-CNT 0x26 */
        0x04, 0x01, 0x55, 0xfb, /* TCODE 1 (reserved), a field end, then its end */
        0xff,                   /* idle */
        0xe0, 0x03,             /* TCODE 56 (vendor) */
        0xf4,                   /* TCODE 61 cut off by the end of the capture */
    };
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, NULL, bytes, sizeof bytes);
    rvt_nexus_msg m;
    rvt_diag d;
    static const struct {
        unsigned tcode;
        uint64_t offset;
        size_t length;
    } want[] = {{62, 0, 2}, {RVT_NX_DIRECT_BRANCH, 2, 2}, {1, 4, 4}, {56, 9, 2}};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
        assert_int_equal(m.tcode, want[i].tcode);
        assert_int_equal(m.offset, want[i].offset);
        assert_int_equal(m.length, want[i].length);
        if (want[i].tcode != RVT_NX_DIRECT_BRANCH) {
            assert_null(rvt_nexus_tcode_name(m.tcode));
            assert_int_equal(m.nfields, 1);
        }
    }
    assert_int_equal(rvt_nexus_next(&r, &m, &d), RVT_E_TRUNC);
    assert_non_null(strstr(d.msg, "TCODE 61"));
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 0);
    assert_int_equal(r.skipped, 1);
}

static void test_overlong_field(void **state) {
    (void)state;
    /* a DirectBranch whose I-CNT runs over 12 zero bytes: damage, not a value */
    uint8_t bytes[16] = {0x0c};
    bytes[15] = 0x07;
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, NULL, bytes, sizeof bytes);
    rvt_nexus_msg m;
    rvt_diag d;
    assert_int_equal(rvt_nexus_next(&r, &m, &d), RVT_E_FORMAT);
    assert_non_null(strstr(d.msg, "ICNT field is wider than 64 bits"));
    assert_int_equal(rvt_nexus_next(&r, &m, &d), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_src_and_timestamp),
        cmocka_unit_test(test_damage_reported_and_skipped),
        cmocka_unit_test(test_reserved_and_vendor_tcodes),
        cmocka_unit_test(test_overlong_field),
    };
    return cmocka_run_group_tests_name("ntrace", tests, NULL, NULL);
}
