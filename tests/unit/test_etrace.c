/* E-Trace: the worked examples of the spec's "Example code and packets"
 * chapter, resynchronisation, packet round trips for other parameter sets and
 * the v1.0 layout, and configuration-file errors. (The golden streams are
 * checked end to end by tests/e2e.) */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rvtrace/etrace.h"
#include "rvtrace/isa.h"

typedef struct {
    rvt_te_inst pkts[64];
    size_t n;
} collected;

static int collect(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)payload;
    (void)len;
    collected *c = user;
    if (c->n < 64)
        c->pkts[c->n++] = *pkt;
    return 0;
}

static rvt_retire insn(uint64_t addr, unsigned size, unsigned itype) {
    return (rvt_retire){.iaddr = addr, .ninsns = 1, .iretire = (uint16_t)(size / 2), .ilastsize = size == 4,
                        .itype = (uint8_t)itype, .priv = 3};
}

static void encode(const rvt_retire *recs, size_t n, const rvt_etrace_options *o, collected *c) {
    rvt_etrace_params p;
    rvt_etrace_params_default(&p);
    p.itype_width = 4;
    rvt_etrace_options def;
    rvt_etrace_options_default(&def);
    memset(c, 0, sizeof *c);
    rvt_etrace_encoder *e;
    assert_int_equal(rvt_etrace_encoder_new(&e, &p, o ? o : &def, collect, c), 0);
    assert_int_equal(rvt_etrace_encoder_push(e, recs, n), 0);
    assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
}

/* Example 1: a call through jal is inferable, no packet. */
static void test_example_jal(void **state) {
    (void)state;
    rvt_retire r[] = {insn(0x80001a80, 4, 0), insn(0x80001a84, 4, RVT_ITYPE_INFERABLE_CALL),
                      insn(0x80001178, 2, 0), insn(0x8000117a, 2, 0)};
    collected c;
    encode(r, 4, NULL, &c);
    /* support, sync at the first instruction, then only the end of trace:
     * the last instruction and the closing support packet. */
    assert_int_equal(c.n, 4);
    assert_int_equal(c.pkts[1].format, 3);
    assert_int_equal(c.pkts[1].address, 0x80001a80 >> 1);
    assert_int_equal(c.pkts[2].format, 2);
    assert_int_equal(c.pkts[2].address, (0x8000117a - 0x80001a80ull) >> 1 & ((1ull << 63) - 1));
    assert_int_equal(c.pkts[3].subformat, 3);
    assert_int_equal(c.pkts[3].ienable, 0);
    assert_int_equal(c.pkts[3].qual_status, 1); /* ended_rep */
}

/* Example 2: ret -> format 2 with the target address, updiscon = 0. */
static void test_example_ret(void **state) {
    (void)state;
    rvt_retire r[] = {insn(0x80001188, 2, 0), insn(0x8000118a, 2, RVT_ITYPE_RETURN), insn(0x80001a88, 4, 0),
                      insn(0x80001a8c, 4, 0), insn(0x80001a90, 4, 0)};
    collected c;
    encode(r, 5, NULL, &c);
    assert_int_equal(c.pkts[2].format, 2);
    assert_int_equal(c.pkts[2].address, (0x80001a88 - 0x80001188) >> 1);
    assert_int_equal(c.pkts[2].updiscon, c.pkts[2].notify); /* the flag is clear */
}

/* Example 3: a taken blez, then ret: format 1, one branch, map 0,
 * delta 0xab0 from 0x800010da. */
static void test_example_branch_ret(void **state) {
    (void)state;
    rvt_retire r[] = {insn(0x800010da, 2, 0), insn(0x800010dc, 4, RVT_ITYPE_BRANCH_TAKEN), insn(0x800010ec, 2, 0),
                      insn(0x800010ee, 2, 0), insn(0x800010f0, 2, 0), insn(0x800010f2, 2, 0),
                      insn(0x800010f4, 2, 0), insn(0x800010f6, 2, RVT_ITYPE_RETURN), insn(0x80001b8a, 4, 0),
                      insn(0x80001b8e, 4, 0)};
    collected c;
    encode(r, 10, NULL, &c);
    assert_int_equal(c.pkts[2].format, 1);
    assert_int_equal(c.pkts[2].branches, 1);
    assert_int_equal(c.pkts[2].branch_map, 0);
    assert_int_equal(c.pkts[2].address, 0xab0 >> 1);
}

/* Example 4: not taken, not taken, taken, then ret: branches 3, map 0x3,
 * delta 0x148 from 0x80001110. */
static void test_example_three_branches(void **state) {
    (void)state;
    rvt_retire r[] = {insn(0x80001110, 2, 0),
                      insn(0x80001112, 2, 0),
                      insn(0x80001114, 2, 0),
                      insn(0x80001116, 4, RVT_ITYPE_BRANCH_NOT_TAKEN),
                      insn(0x8000111a, 2, RVT_ITYPE_BRANCH_NOT_TAKEN),
                      insn(0x8000111c, 2, 0),
                      insn(0x8000111e, 4, RVT_ITYPE_BRANCH_TAKEN),
                      insn(0x8000115e, 2, 0),
                      insn(0x80001160, 2, 0),
                      insn(0x80001162, 2, 0),
                      insn(0x80001164, 2, 0),
                      insn(0x80001166, 2, 0),
                      insn(0x80001168, 2, RVT_ITYPE_RETURN),
                      insn(0x80001258, 4, 0),
                      insn(0x8000125c, 4, 0)};
    collected c;
    encode(r, 15, NULL, &c);
    assert_int_equal(c.pkts[2].format, 1);
    assert_int_equal(c.pkts[2].branches, 3);
    assert_int_equal(c.pkts[2].branch_map, 0x3);
    assert_int_equal(c.pkts[2].address, 0x148 >> 1);
}

/* Sequentially inferable jump (auipc t0 then jalr through t0): with the
 * option on no packet is needed for its target. */
static void test_sijump(void **state) {
    (void)state;
    rvt_retire r[] = {insn(0x80000000, 4, 0), insn(0x80000004, 4, 0), insn(0x80000008, 4, 0),
                      insn(0x8000000c, 4, RVT_ITYPE_UNINFERABLE_CALL), insn(0x80000100, 4, 0),
                      insn(0x80000104, 4, 0)};
    r[2].insn = 0x00000297; /* auipc t0,0x0 */
    r[3].insn = 0x0f8280e7; /* jalr ra,248(t0) -> 0x80000100 */
    rvt_etrace_options o;
    rvt_etrace_options_default(&o);
    collected c;
    encode(r, 6, &o, &c);
    size_t without = c.n;
    o.si_jump = true;
    encode(r, 6, &o, &c);
    assert_int_equal(c.n, without - 1);
}

/* Implicit exception: the trap packet leaves out the handler address when
 * thaddr is 1 (2.0), so it is shorter. */
static void test_implicit_exception_layout(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_params_default(&p);
    rvt_etrace_options o;
    rvt_etrace_options_default(&o);
    rvt_te_inst pkt = {.format = 3, .subformat = 1, .branch = 1, .privilege = 3, .ecause = 11, .thaddr = 1,
                       .address = 0x40000048, .tval = 0x1234};
    uint8_t a[64], b[64];
    int full = rvt_te_inst_pack(&p, &o, &pkt, a, sizeof a);
    o.implicit_except = true;
    int implicit = rvt_te_inst_pack(&p, &o, &pkt, b, sizeof b);
    assert_true(implicit > 0 && implicit < full);
    rvt_te_inst back;
    assert_int_equal(rvt_te_inst_unpack(&p, &o, b, (size_t)implicit, &back, NULL), 0);
    assert_int_equal(back.tval, 0x1234);
    assert_int_equal(back.address, 0);
}

/* Resynchronisation every 2^(resync_max+4) packets: with resync_max 0 a
 * sync follows 16 address packets (plus the one of the instruction that
 * reaches the limit). */
static void test_resync(void **state) {
    (void)state;
    rvt_retire r[80];
    size_t n = 0;
    uint64_t a = 0x80000000;
    for (int i = 0; i < 40; i++) { /* a return every other instruction: one packet each */
        r[n++] = insn(a, 2, 0);
        r[n++] = insn(a + 2, 2, RVT_ITYPE_RETURN);
        a += 0x100;
    }
    rvt_etrace_options o;
    rvt_etrace_options_default(&o);
    collected c;
    encode(r, n, &o, &c);
    unsigned syncs = 0, between = 0, max_between = 0;
    for (size_t i = 2; i < c.n; i++) {
        if (c.pkts[i].format == 3 && c.pkts[i].subformat == 0) {
            syncs++;
            if (between > max_between)
                max_between = between;
            between = 0;
        } else {
            between++;
        }
    }
    assert_true(syncs >= 2);
    assert_int_equal(max_between, 17);
}

/* rvt_te_raw_resync after damage: on to the first byte after a run of 32
 * zeros where one follows, else one byte on. After a search that found no
 * run, the later bytes step on without searching again (a long damaged
 * stretch cost a search to the end for each of its bytes: 14 s for 300 KB);
 * a cursor given other bytes (no_zeros_from back to 0) searches again. */
static void test_raw_resync(void **state) {
    (void)state;
    uint8_t buf[256];
    memset(buf, 0xa5, sizeof buf);
    rvt_te_raw_cursor c = {.data = buf, .size = 100};
    for (size_t k = 1; k <= 5; k++) {
        assert_int_equal(rvt_te_raw_resync(&c), 1);
        assert_int_equal(c.pos, k);
    }
    assert_int_equal(c.no_zeros_from, 1); /* (found none from byte 0 on) */
    memset(buf + 120, 0, 40); /* more bytes: zeros at 120..159 */
    c.size = sizeof buf;
    c.no_zeros_from = 0;
    assert_int_equal(rvt_te_raw_resync(&c), 160 - 5);
    assert_int_equal(c.pos, 160);
    c.pos = 130; /* inside the run: 30 zeros to its end are too few */
    assert_int_equal(rvt_te_raw_resync(&c), 1);
    assert_int_equal(c.pos, 131);
}

/* Pack/unpack round trip for random packets under other parameter sets and
 * the v1.0 layout (ET-106). */
static void test_round_trip(void **state) {
    (void)state;
    uint64_t x = 12345;
    for (int k = 0; k < 4000; k++) {
        rvt_etrace_params p;
        rvt_etrace_options o;
        rvt_etrace_params_default(&p);
        rvt_etrace_options_default(&o);
        p.iaddress_width = (k & 1) ? 32 : 64;
        p.notime = (k & 2) != 0;
        p.return_stack_size = (k & 4) ? 3 : 0;
        o.v1_layout = (k & 8) != 0;
        rvt_te_inst pkt = {0}, back;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pkt.format = (uint8_t)(1 + x % 3);
        pkt.subformat = (uint8_t)((x >> 2) % 4);
        unsigned w = rvt_etrace_addr_width(&p);
        pkt.address = (x >> 5) & ((1ull << w) - 1);
        pkt.branches = (uint8_t)((x >> 40) % 32);
        pkt.branch_map = (uint32_t)(x >> 17) & ((1u << (pkt.branches > 15 || !pkt.branches ? 31 : pkt.branches > 7 ? 15 : pkt.branches > 3 ? 7 : pkt.branches > 1 ? 3 : 1)) - 1);
        pkt.privilege = 3;
        pkt.ecause = (uint8_t)(x % 32);
        pkt.interrupt = (x >> 9) & 1;
        pkt.thaddr = (x >> 10) & 1;
        pkt.tval = p.iaddress_width == 32 ? (uint32_t)(x * 7) : x * 7;
        pkt.notify = (x >> 11) & 1;
        pkt.updiscon = (x >> 12) & 1;
        pkt.irreport = (x >> 13) & 1;
        pkt.irdepth = (uint32_t)((x >> 20) & ((1u << rvt_etrace_irdepth_width(&p)) - 1));
        pkt.ienable = 1;
        pkt.ioptions = (uint8_t)(x % 32);
        pkt.context = p.nocontext ? 0 : (uint32_t)(x >> 3);
        pkt.time = p.notime || o.v1_layout ? 0 : (x >> 30) & 1;
        uint8_t bytes[64];
        int len = rvt_te_inst_pack(&p, &o, &pkt, bytes, sizeof bytes);
        assert_true(len > 0);
        assert_int_equal(rvt_te_inst_unpack(&p, &o, bytes, (size_t)len, &back, NULL), 0);
        char a[1024], b[1024];
        rvt_te_inst_csv_row(&p, &o, &pkt, a, sizeof a);
        rvt_te_inst_csv_row(&p, &o, &back, b, sizeof b);
        if (strcmp(a, b) != 0)
            fail_msg("round trip %d:\n  %s\n  %s", k, a, b);
    }
}

/* Formats 1 and 2 as the spec lays them out, read bit by bit from random
 * payloads: every bit past the payload is a copy of its last one. */
static uint64_t bit_of(const uint8_t *b, size_t len, unsigned i) {
    unsigned at = i < len * 8 ? i : (unsigned)len * 8 - 1;
    return (b[at / 8] >> (at % 8)) & 1;
}

static uint64_t field_of(const uint8_t *b, size_t len, unsigned *pos, unsigned width) {
    uint64_t v = 0;
    for (unsigned i = 0; i < width && i < 64; i++)
        v |= bit_of(b, len, *pos + i) << i;
    *pos += width;
    return v;
}

static void test_unpack_branch_formats(void **state) {
    (void)state;
    uint64_t x = 99;
    for (int k = 0; k < 20000; k++) {
        rvt_etrace_params p;
        rvt_etrace_params_default(&p);
        static const unsigned widths[] = {32, 39, 48, 64};
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p.iaddress_width = widths[x % 4];
        p.iaddress_lsb = (x >> 2) & 1;
        p.return_stack_size = (unsigned)(x >> 3) % 5;
        p.call_counter_size = (unsigned)(x >> 6) % 3;
        uint8_t b[24];
        size_t len = 1 + (x >> 9) % 20;
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            b[i] = (uint8_t)(x >> 24);
        }
        b[0] = (uint8_t)((b[0] & ~3u) | (1 + (x & 1))); /* format 1 or 2 */
        if (len == 1 || (x >> 33) % 4 == 0)
            b[0] &= (uint8_t)~0x7cu; /* branches 0 (format 1): a full map */
        rvt_te_inst got;
        assert_int_equal(rvt_te_inst_unpack(&p, NULL, b, len, &got, NULL), 0);
        unsigned pos = 0, format = (unsigned)field_of(b, len, &pos, 2);
        assert_int_equal(got.format, format);
        bool address = true;
        if (format == 1) {
            unsigned branches = (unsigned)field_of(b, len, &pos, 5);
            unsigned map = branches == 0 || branches > 15 ? 31
                           : branches > 7                  ? 15
                           : branches > 3                  ? 7
                           : branches > 1                  ? 3
                                                           : 1; /* the spec's table */
            assert_int_equal(got.branches, branches);
            assert_int_equal(got.branch_map, field_of(b, len, &pos, map));
            address = branches != 0;
        }
        uint64_t want_address = 0, notify = 0, updiscon = 0, irreport = 0, irdepth = 0;
        if (address) {
            want_address = field_of(b, len, &pos, rvt_etrace_addr_width(&p));
            notify = field_of(b, len, &pos, 1);
            updiscon = field_of(b, len, &pos, 1);
            irreport = field_of(b, len, &pos, 1);
            irdepth = field_of(b, len, &pos, rvt_etrace_irdepth_width(&p));
        }
        if (got.address != want_address || got.notify != notify || got.updiscon != updiscon ||
            got.irreport != irreport || got.irdepth != irdepth)
            fail_msg("case %d (format %u, %zu bytes): address %" PRIx64 "/%" PRIx64 " flags %u%u%u/%u%u%u "
                     "irdepth %u/%u", k, format, len, got.address, want_address, got.notify, got.updiscon,
                     got.irreport, (unsigned)notify, (unsigned)updiscon, (unsigned)irreport, got.irdepth,
                     (unsigned)irdepth);
    }
}

static void test_config_errors(void **state) {
    (void)state;
    const char *path = "/tmp/rvtrace-test.scf";
    FILE *f = fopen(path, "w");
    fputs("# comment\n[Required Attributes]\niaddress_width_p=32\nbogus_p=1\n", f);
    fclose(f);
    rvt_etrace_params p;
    rvt_etrace_params_default(&p);
    rvt_diag d = {{0}};
    assert_int_not_equal(rvt_etrace_load_scf(path, &p, &d), 0);
    assert_non_null(strstr(d.msg, "line 4"));
    assert_non_null(strstr(d.msg, "bogus_p"));
    f = fopen(path, "w");
    fputs("[codec]\nfull-address = maybe\n", f);
    fclose(f);
    rvt_etrace_options o;
    rvt_etrace_options_default(&o);
    assert_int_not_equal(rvt_etrace_load_ucf(path, &o, &d), 0);
    assert_non_null(strstr(d.msg, "line 2"));
    unlink(path);
}

/* "Branch prediction mode": 00 predicts not taken and goes to 01 when that
 * fails; 01 predicts not taken, back to 00 on success, to 11 on failure; 11
 * predicts taken, to 10 on failure; 10 predicts taken, to 11 on success, to
 * 00 on failure; every entry starts at 01 after a sync. So the prediction
 * flips only after two failures in a row, and entries are indexed by
 * address bits size:1. */
static void test_branch_predictor(void **state) {
    (void)state;
    uint8_t t[4];
    rvt_bpred_reset(t, 2);
    for (int i = 0; i < 4; i++)
        assert_int_equal(t[i], 1);
    uint64_t a = 0x102; /* index (0x102 >> 1) & 3 = 1 */
    assert_false(rvt_bpred_predict(t, 2, 1, a));
    assert_false(rvt_bpred_update(t, 2, 1, a, true)); /* 01 fails -> 11 */
    assert_int_equal(t[1], 3);
    assert_true(rvt_bpred_predict(t, 2, 1, a));
    assert_false(rvt_bpred_update(t, 2, 1, a, false)); /* 11 fails -> 10, still predicts taken */
    assert_int_equal(t[1], 2);
    assert_true(rvt_bpred_predict(t, 2, 1, a));
    assert_true(rvt_bpred_update(t, 2, 1, a, true)); /* 10 succeeds -> 11 */
    assert_int_equal(t[1], 3);
    assert_false(rvt_bpred_update(t, 2, 1, a, false)); /* -> 10 */
    assert_false(rvt_bpred_update(t, 2, 1, a, false)); /* 10 fails -> 00: prediction flipped */
    assert_int_equal(t[1], 0);
    assert_true(rvt_bpred_update(t, 2, 1, a, false)); /* 00 succeeds, stays */
    assert_int_equal(t[1], 0);
    assert_false(rvt_bpred_update(t, 2, 1, a, true)); /* 00 fails -> 01 */
    assert_int_equal(t[1], 1);
    assert_true(rvt_bpred_update(t, 2, 1, a, false)); /* 01 succeeds -> 00 */
    assert_int_equal(t[1], 0);
    for (int i = 0; i < 4; i++)
        if (i != 1)
            assert_int_equal(t[i], 1); /* other entries untouched */
    /* Jump target cache slots: bits cache_size:1 of the target. */
    assert_int_equal(rvt_jtc_index(4, 1, 0x8000003e), 0xf);
    assert_int_equal(rvt_jtc_index(4, 1, 0x80000040), 0x0);
}

/* Multiple-retire blocks with the code at hand (as `rvtrace run` feeds the
 * encoder) give the same bytes as the same instructions one record each,
 * without the code: random streams of blocks, single instructions of every
 * type, traps, interrupts after blocks and privilege changes, pushed in
 * uneven pieces, under several option sets with frequent resynchronisation
 * (so that syncs fall due inside blocks). */
static bool fetch_nop(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    (void)addr;
    rvt_decode(0x00000013, 64, out); /* every instruction of the code is a 4-byte nop */
    return true;
}

typedef struct {
    uint8_t *bytes;
    size_t len, cap;
} byte_buf;

static int keep_bytes(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)pkt;
    byte_buf *b = user;
    if (b->len + len + 1 > b->cap) {
        b->cap = 2 * (b->len + len + 1);
        b->bytes = realloc(b->bytes, b->cap);
        assert_non_null(b->bytes);
    }
    b->bytes[b->len++] = (uint8_t)len; /* packet boundaries count too */
    memcpy(b->bytes + b->len, payload, len);
    b->len += len;
    return 0;
}

static uint64_t next_random(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Encodes recs[0..n) in pieces of random size; with `code`, blocks are
 * taken apart by fetching the code. */
static void encode_pieces(const rvt_etrace_params *p, const rvt_etrace_options *o, const rvt_retire *recs, size_t n,
                          bool code, uint64_t seed, byte_buf *out) {
    rvt_etrace_encoder *e;
    assert_int_equal(rvt_etrace_encoder_new(&e, p, o, keep_bytes, out), 0);
    if (code)
        rvt_etrace_encoder_set_code(e, fetch_nop, NULL);
    for (size_t at = 0; at < n;) {
        size_t len = 1 + next_random(&seed) % 300;
        if (len > n - at)
            len = n - at;
        assert_int_equal(rvt_etrace_encoder_push(e, recs + at, len), 0);
        at += len;
    }
    assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
}

static void test_blocks_equal_singles(void **state) {
    (void)state;
    static const uint8_t ends[] = {
        RVT_ITYPE_BRANCH_TAKEN,     RVT_ITYPE_BRANCH_NOT_TAKEN, RVT_ITYPE_BRANCH_TAKEN, RVT_ITYPE_BRANCH_NOT_TAKEN,
        RVT_ITYPE_INFERABLE_CALL,   RVT_ITYPE_UNINFERABLE_CALL, RVT_ITYPE_RETURN,       RVT_ITYPE_INFERABLE_TAIL,
        RVT_ITYPE_UNINFERABLE_TAIL, RVT_ITYPE_XRET,             RVT_ITYPE_NONE,         RVT_ITYPE_OTHER_INFERABLE,
    };
    enum { RECORDS = 6000, SETS = 5 };
    rvt_retire *blocks = calloc(RECORDS, sizeof *blocks), *singles = calloc(RECORDS * 8, sizeof *singles);
    assert_non_null(blocks);
    assert_non_null(singles);
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t x = 0x9e3779b97f4a7c15ull * seed, a = 0x80000000, calls[16];
        unsigned ncalls = 0, priv = 3;
        size_t nb = 0, ns = 0;
        while (nb < RECORDS) {
            unsigned roll = (unsigned)(next_random(&x) % 100);
            rvt_retire *b = &blocks[nb++];
            if (roll < 3) { /* a trap, then its handler */
                *b = (rvt_retire){.iaddr = a, .itype = roll ? RVT_ITYPE_EXCEPTION : RVT_ITYPE_INTERRUPT,
                                  .cause = roll ? 2 : (1ull << 63) | 7, .priv = (uint8_t)priv};
                singles[ns++] = *b;
                priv = roll == 2 ? 1 : 3;
                a = 0x80004000 + 4 * (next_random(&x) % 16);
                continue;
            }
            unsigned k = 1 + (unsigned)(next_random(&x) % 7), itype = ends[next_random(&x) % sizeof ends];
            if (roll < 6)
                priv = priv == 3 ? 1 : 3; /* a privilege change without a trap */
            uint64_t last = a + 4 * (k - 1);
            *b = (rvt_retire){.iaddr = a, .ninsns = k, .iretire = (uint16_t)(2 * k), .ilastsize = 1,
                              .itype = (uint8_t)itype, .insn = 0x00000013, .priv = (uint8_t)priv};
            for (unsigned i = 0; i + 1 < k; i++)
                singles[ns++] = (rvt_retire){.iaddr = a + 4 * i, .ninsns = 1, .iretire = 2, .ilastsize = 1,
                                             .insn = 0x00000013, .priv = (uint8_t)priv};
            singles[ns] = *b;
            singles[ns].iaddr = last;
            singles[ns].ninsns = 1;
            singles[ns++].iretire = 2;
            a = last + 4;
            if (itype == RVT_ITYPE_INFERABLE_CALL || itype == RVT_ITYPE_UNINFERABLE_CALL) {
                calls[ncalls++ % 16] = a;
                a = 0x80002000 + 4 * (next_random(&x) % 256);
            } else if (itype == RVT_ITYPE_RETURN) { /* mostly where the call stack says */
                a = ncalls && next_random(&x) % 8 ? calls[--ncalls % 16] : 0x80003000 + 4 * (next_random(&x) % 64);
            } else if (itype == RVT_ITYPE_BRANCH_TAKEN || (itype >= RVT_ITYPE_UNINFERABLE_CALL && itype != RVT_ITYPE_OTHER_INFERABLE)) {
                a = 0x80000000 + 4 * (next_random(&x) % 1024);
            }
        }
        for (unsigned set = 0; set < SETS; set++) {
            rvt_etrace_params p;
            rvt_etrace_options o;
            rvt_etrace_params_default(&p);
            rvt_etrace_options_default(&o);
            p.itype_width = 4;
            o.resync_max = 0; /* a sync every 16 packets */
            o.full_address = set == 1;
            o.implicit_return = set >= 2;
            p.return_stack_size = set == 2 || set == 4 ? 3 : 0;
            p.call_counter_size = set == 3 ? 3 : 0;
            if (set == 4) {
                p.bpred_size = p.cache_size = 4;
                p.f0s_width = 2;
                o.branch_prediction = o.jump_target_cache = true;
            }
            byte_buf from_blocks = {0}, from_singles = {0};
            encode_pieces(&p, &o, blocks, nb, true, seed, &from_blocks);
            encode_pieces(&p, &o, singles, ns, false, seed + 100, &from_singles);
            if (from_blocks.len != from_singles.len || memcmp(from_blocks.bytes, from_singles.bytes, from_blocks.len))
                fail_msg("seed %u, option set %u: %zu bytes from blocks, %zu from single records", (unsigned)seed, set,
                         from_blocks.len, from_singles.len);
            assert_true(from_blocks.len > 2000); /* many packets, syncs among them */
            free(from_blocks.bytes);
            free(from_singles.bytes);
        }
    }
    free(blocks);
    free(singles);
}

/* Implicit return with a return stack of two entries: five nested calls
 * fill it, each call after that drops the oldest entry (as the encoder's
 * does), so the two innermost returns need no address and the four after
 * them do; the decoder must follow the same stack. Code: function i at FN(i) calls function i + 1, the innermost
 * does nothing; each then loads ra (the decoder cannot know it) and
 * returns; the outermost returns to END. */
#define FN(i) (0x80001000u + 0x100u * (i))
#define END 0x80002000u
static uint32_t jal_ra(uint32_t offset) {
    return 0xefu | ((offset >> 20) & 1) << 31 | ((offset >> 1) & 0x3ff) << 21 | ((offset >> 11) & 1) << 20 |
           ((offset >> 12) & 0xff) << 12;
}

static bool fetch_calls(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    uint32_t raw = 0x00000013; /* nop, at END */
    if (addr >= FN(0) && addr < FN(6) && addr % 0x100 < 12) {
        unsigned at = addr % 0x100;
        raw = at == 0 ? (addr < FN(5) ? jal_ra(0x100) : 0x00000013) : at == 4 ? 0x00013083 /* ld ra,0(sp) */
                                                                             : 0x00008067; /* ret */
    } else if (addr != END && addr != END + 4) {
        return false;
    }
    rvt_decode(raw, 64, out);
    return true;
}

static int keep_pc(void *user, uint64_t pc) {
    uint64_t *pcs = user;
    if (pcs[0] < 31)
        pcs[++pcs[0]] = pc;
    return 0;
}

static void test_full_return_stack_drops_oldest(void **state) {
    (void)state;
    rvt_retire recs[32];
    size_t n = 0;
    for (unsigned i = 0; i < 5; i++)
        recs[n++] = insn(FN(i), 4, RVT_ITYPE_INFERABLE_CALL);
    recs[n++] = insn(FN(5), 4, RVT_ITYPE_NONE);
    for (unsigned i = 6; i-- > 0;) {
        recs[n++] = insn(FN(i) + 4, 4, RVT_ITYPE_NONE);
        recs[n++] = insn(FN(i) + 8, 4, RVT_ITYPE_RETURN);
    }
    recs[n++] = insn(END, 4, RVT_ITYPE_NONE);
    recs[n++] = insn(END + 4, 4, RVT_ITYPE_NONE);

    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_etrace_params_default(&p);
    rvt_etrace_options_default(&o);
    p.itype_width = 4;
    p.return_stack_size = 1; /* 2 entries */
    o.implicit_return = true;
    collected c = {0};
    rvt_etrace_encoder *e;
    assert_int_equal(rvt_etrace_encoder_new(&e, &p, &o, collect, &c), 0);
    assert_int_equal(rvt_etrace_encoder_push(e, recs, n), 0);
    assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
    /* support and sync; the targets of the four outer returns (to the three
     * outer functions and END, whose call is not in the trace); the end's
     * address; support */
    assert_int_equal(c.n, 8);
    for (size_t i = 2; i < 7; i++)
        assert_int_equal(c.pkts[i].format, 2);

    uint64_t pcs[32] = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_calls, keep_pc, pcs), 0);
    rvt_diag diag;
    for (size_t i = 0; i < c.n; i++)
        if (rvt_etrace_decode(d, &c.pkts[i], &diag) != 0)
            fail_msg("packet %zu: %s", i, diag.msg);
    rvt_etrace_decoder_free(d);
    assert_int_equal(pcs[0], n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(pcs[1 + i], recs[i].iaddr);
}

/* Implicit return at depths past 4096 calls: a function at REC calls
 * itself DEEP times (argument in a0), then each level loads ra (so that
 * the decoder cannot take it from the registers) and returns. With a
 * return stack of 2^13 entries the deepest 8192 returns go without an
 * address and the rest with one (the oldest entries dropped); with a call
 * counter of 14 bits every return but the outermost (whose call is not in
 * the trace) goes without one. Decoding must give back every address. */
#define REC 0x80004000u
#define DEEP 10000u
static bool fetch_recursion(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    static const uint32_t code[] = {
        0x00050663, /* beqz a0, REC + 12 */
        0xfff50513, /* addi a0, a0, -1 */
        0xff9ff0ef, /* jal ra, REC */
        0x00013083, /* ld ra, 0(sp) */
        0x00008067, /* ret */
    };
    if (addr >= REC && addr < REC + sizeof code && addr % 4 == 0)
        rvt_decode(code[(addr - REC) / 4], 64, out);
    else if (addr == END || addr == END + 4)
        rvt_decode(0x00000013, 64, out);
    else
        return false;
    return true;
}

typedef struct {
    const rvt_retire *expected;
    size_t n, at, wrong;
} pc_check;

static int check_pc(void *user, uint64_t pc) {
    pc_check *c = user;
    if (c->at >= c->n || c->expected[c->at].iaddr != pc)
        c->wrong++;
    c->at++;
    return 0;
}

typedef struct {
    rvt_te_inst *pkts;
    size_t n, cap;
} packet_list;

static int list_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)payload;
    (void)len;
    packet_list *l = user;
    if (l->n == l->cap)
        return -1;
    l->pkts[l->n++] = *pkt;
    return 0;
}

static void test_return_stack_deeper_than_4096(void **state) {
    (void)state;
    size_t cap = 5 * (DEEP + 1) + 2, n = 0;
    rvt_retire *recs = malloc(cap * sizeof *recs);
    assert_non_null(recs);
    for (unsigned level = 0; level < DEEP; level++) {
        recs[n++] = insn(REC, 4, RVT_ITYPE_BRANCH_NOT_TAKEN);
        recs[n++] = insn(REC + 4, 4, RVT_ITYPE_NONE);
        recs[n++] = insn(REC + 8, 4, RVT_ITYPE_INFERABLE_CALL);
    }
    recs[n++] = insn(REC, 4, RVT_ITYPE_BRANCH_TAKEN);
    for (unsigned level = 0; level <= DEEP; level++) {
        recs[n++] = insn(REC + 12, 4, RVT_ITYPE_NONE);
        recs[n++] = insn(REC + 16, 4, RVT_ITYPE_RETURN);
    }
    recs[n++] = insn(END, 4, RVT_ITYPE_NONE);
    recs[n++] = insn(END + 4, 4, RVT_ITYPE_NONE);

    for (unsigned counter = 0; counter < 2; counter++) {
        rvt_etrace_params p;
        rvt_etrace_options o;
        rvt_etrace_params_default(&p);
        rvt_etrace_options_default(&o);
        p.itype_width = 4;
        p.return_stack_size = counter ? 0 : 13;
        p.call_counter_size = counter ? 14 : 0;
        o.implicit_return = true;
        o.resync_max = 16; /* no sync (which empties the stack) on the way */
        packet_list l = {calloc(4096, sizeof *l.pkts), 0, 4096};
        assert_non_null(l.pkts);
        rvt_etrace_encoder *e;
        assert_int_equal(rvt_etrace_encoder_new(&e, &p, &o, list_packet, &l), 0);
        assert_int_equal(rvt_etrace_encoder_push(e, recs, n), 0);
        assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
        size_t addressed = 0;
        for (size_t i = 0; i < l.n; i++)
            addressed += l.pkts[i].format == 2 || (l.pkts[i].format == 1 && l.pkts[i].branches != 0);
        /* the returns sent with an address: those past the stack, or the
         * outermost; and the end's address */
        assert_int_equal(addressed, (counter ? 1 : DEEP + 1 - 8192) + 1);

        pc_check check = {recs, n, 0, 0};
        rvt_etrace_decoder *d;
        assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_recursion, check_pc, &check), 0);
        rvt_diag diag;
        for (size_t i = 0; i < l.n; i++)
            if (rvt_etrace_decode(d, &l.pkts[i], &diag) != 0)
                fail_msg("%s, packet %zu: %s", counter ? "counter" : "stack", i, diag.msg);
        rvt_etrace_decoder_free(d);
        if (check.at != n || check.wrong)
            fail_msg("%s: %zu of %zu instructions decoded, %zu wrong", counter ? "counter" : "stack", check.at, n,
                     check.wrong);
        free(l.pkts);
    }
    free(recs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_jal),
        cmocka_unit_test(test_example_ret),
        cmocka_unit_test(test_example_branch_ret),
        cmocka_unit_test(test_example_three_branches),
        cmocka_unit_test(test_sijump),
        cmocka_unit_test(test_implicit_exception_layout),
        cmocka_unit_test(test_resync),
        cmocka_unit_test(test_raw_resync),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_unpack_branch_formats),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_branch_predictor),
        cmocka_unit_test(test_blocks_equal_singles),
        cmocka_unit_test(test_full_return_stack_drops_oldest),
        cmocka_unit_test(test_return_stack_deeper_than_4096),
    };
    return cmocka_run_group_tests_name("etrace", tests, NULL, NULL);
}
