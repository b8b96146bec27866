/* The N-Trace encoder and decoder on the specification's worked examples:
 * the I-CNT examples of BTM and HTM mode (code at 0x100 with branches to
 * 0x200 and 0x300), the address-compression example, illegal I-CNT values,
 * implicit return, repeated history and periodic sync. The code is built
 * from real encodings and read through the same fetch interface a program
 * image gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/ntrace.h"

/* ---- A small program: address -> instruction bits ---- */

typedef struct {
    uint64_t addr;
    uint32_t bits;
} code_word;

static const code_word *program;
static size_t program_len;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    for (size_t i = 0; i < program_len; i++)
        if (program[i].addr == addr) {
            rvt_decode(program[i].bits, 64, out);
            return true;
        }
    return false;
}

/* The spec's I-CNT example (N-Trace 1.0, "I-CNT Handling in BTM mode"). */
static const code_word icnt_example[] = {
    {0x100, 0x952e},     /* c.add a0,a1 */
    {0x102, 0x0eb50f63}, /* beq a0,a1,0x200 */
    {0x106, 0x00b50533}, /* add a0,a0,a1 */
    {0x10a, 0x1eb50b63}, /* beq a0,a1,0x300 */
    {0x10e, 0x952e},     /* c.add */
    {0x110, 0x00b50533}, /* add */
    {0x114, 0x9002},     /* c.ebreak */
    {0x200, 0x952e},     /* c.add */
    {0x202, 0x9002},     /* c.ebreak */
    {0x300, 0x00b50533}, /* add */
    {0x304, 0x9002},     /* c.ebreak */
};

static void use_program(const code_word *p, size_t n) {
    program = p;
    program_len = n;
}

/* ---- Encoding to a buffer and reading messages back ---- */

typedef struct {
    uint8_t bytes[4096];
    size_t len;
} stream;

static int keep(void *user, const uint8_t *b, size_t n) {
    stream *s = user;
    assert_true(s->len + n <= sizeof s->bytes);
    memcpy(s->bytes + s->len, b, n);
    s->len += n;
    return 0;
}

/* Encodes the executed addresses; a branch is taken when the next address is
 * not its fall-through. The flags come from the code, as a hart's would. */
static void encode(const rvt_ntrace_options *o, const uint64_t *pcs, size_t n, stream *s) {
    rvt_ntrace_encoder *e;
    s->len = 0;
    assert_int_equal(rvt_ntrace_encoder_new(&e, o, 64, keep, s), 0);
    for (size_t i = 0; i < n; i++) {
        rvt_insn in;
        assert_true(fetch(NULL, pcs[i], &in));
        rvt_nexus_step st = {pcs[i], rvt_nexus_classify_by(&in, o->nexrv)};
        if ((st.flags & RVT_NXI_BRANCH) && i + 1 < n && pcs[i + 1] != pcs[i] + in.len)
            st.flags |= RVT_NXI_TAKEN;
        assert_int_equal(rvt_ntrace_encoder_step(e, &st), 0);
    }
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
}

static size_t read_all(const stream *s, rvt_nexus_msg *out, size_t max) {
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, NULL, s->bytes, s->len);
    rvt_diag d;
    size_t n = 0;
    int rc;
    while ((rc = rvt_nexus_next(&r, &out[n], &d)) == 1)
        assert_true(++n < max);
    assert_int_equal(rc, 0);
    return n;
}

static void expect(const rvt_nexus_msg *m, unsigned tcode, rvt_nexus_field_id id, uint64_t value) {
    assert_int_equal(m->tcode, tcode);
    assert_true(rvt_nexus_has(m, id));
    assert_int_equal(rvt_nexus_get(m, id, 0), value);
}

/* ---- Decoding ---- */

typedef struct {
    uint64_t pcs[1024];
    size_t n;
} trail;

static int collect(void *user, uint64_t pc) {
    trail *t = user;
    assert_true(t->n < 1024);
    t->pcs[t->n++] = pc;
    return 0;
}

static int decode_with(const rvt_ntrace_decoder_options *o, const rvt_nexus_msg *m, size_t n, trail *t,
                       rvt_diag *d) {
    rvt_ntrace_decoder *dec;
    t->n = 0;
    assert_int_equal(rvt_ntrace_decoder_new(&dec, o, 64, fetch, collect, t), 0);
    int status = 0;
    for (size_t i = 0; i < n; i++) {
        int rc = rvt_ntrace_decode(dec, &m[i], d);
        if (rc && !status)
            status = rc;
    }
    rvt_ntrace_decoder_free(dec);
    return status;
}

static int decode_msgs(const rvt_nexus_msg *m, size_t n, unsigned call_stack, trail *t, rvt_diag *d) {
    rvt_ntrace_decoder_options o = {.call_stack = call_stack, .src_id = -1};
    return decode_with(&o, m, n, t, d);
}

static void roundtrip(const rvt_ntrace_options *o, const uint64_t *pcs, size_t n) {
    stream s;
    encode(o, pcs, n, &s);
    static rvt_nexus_msg m[512];
    size_t k = read_all(&s, m, 512);
    trail t;
    rvt_diag d = {{0}};
    rvt_ntrace_decoder_options dopt = {.call_stack = o->call_stack, .src_id = -1, .nexrv = o->nexrv};
    assert_int_equal(decode_with(&dopt, m, k, &t, &d), 0);
    assert_int_equal(t.n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(t.pcs[i], pcs[i]);
}

/* The three runs of the example; c.ebreak stops the code (not traced). */
static const uint64_t run_first_taken[] = {0x100, 0x102, 0x200};
static const uint64_t run_second_taken[] = {0x100, 0x102, 0x106, 0x10a, 0x300};
static const uint64_t run_none_taken[] = {0x100, 0x102, 0x106, 0x10a, 0x10e, 0x110};

static void test_btm_icnt_example(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_options o = {.btm = true};
    stream s;
    rvt_nexus_msg m[8];

    encode(&o, run_first_taken, 3, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_ICNT, 0);
    expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_FADDR, 0x100 >> 1);
    expect(&m[1], RVT_NX_DIRECT_BRANCH, RVT_NXF_ICNT, 3);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 0);

    encode(&o, run_second_taken, 5, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[1], RVT_NX_DIRECT_BRANCH, RVT_NXF_ICNT, 7);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 2);

    encode(&o, run_none_taken, 6, &s);
    assert_int_equal(read_all(&s, m, 8), 2);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 10);

    roundtrip(&o, run_first_taken, 3);
    roundtrip(&o, run_second_taken, 5);
    roundtrip(&o, run_none_taken, 6);
}

static void test_htm_icnt_example(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_options o = {0};
    stream s;
    rvt_nexus_msg m[8];
    static const struct {
        const uint64_t *pcs;
        size_t n;
        uint64_t icnt, hist;
    } cases[] = {{run_first_taken, 3, 4, 0x3}, {run_second_taken, 5, 9, 0x5}, {run_none_taken, 6, 10, 0x4}};
    for (size_t i = 0; i < 3; i++) {
        encode(&o, cases[i].pcs, cases[i].n, &s);
        assert_int_equal(read_all(&s, m, 8), 2);
        expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, cases[i].icnt);
        expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 1);
        expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_HIST, cases[i].hist);
        roundtrip(&o, cases[i].pcs, cases[i].n);
    }
}

static rvt_nexus_msg make_msg(unsigned tcode, unsigned n, const rvt_nexus_field_id *ids, const uint64_t *values) {
    rvt_nexus_msg m;
    memset(&m, 0, sizeof m);
    m.tcode = tcode;
    for (unsigned i = 0; i < n; i++)
        rvt_nexus_add_field(&m, ids[i], 0, 0, values[i]);
    return m;
}

/* I-CNT 4, 6 and 9 would end inside a 32-bit instruction of the example;
 * 1, 5 and 0 are legal (a trap after those instructions). */
static void test_illegal_icnt_reported(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    static const rvt_nexus_field_id sync_ids[] = {RVT_NXF_SYNC, RVT_NXF_ICNT, RVT_NXF_FADDR};
    static const uint64_t sync_vals[] = {1, 0, 0x80};
    static const rvt_nexus_field_id ib_ids[] = {RVT_NXF_BTYPE, RVT_NXF_ICNT, RVT_NXF_UADDR};
    static const uint64_t legal[] = {0, 1, 5}, illegal[] = {4, 6, 9};
    rvt_nexus_msg m[2];
    m[0] = make_msg(RVT_NX_PROG_TRACE_SYNC, 3, sync_ids, sync_vals);
    trail t;
    rvt_diag d = {{0}};
    for (int i = 0; i < 3; i++) {
        uint64_t vals[] = {2, legal[i], 0x1000 >> 1}; /* exception, handler 0x1100 */
        m[1] = make_msg(RVT_NX_INDIRECT_BRANCH, 3, ib_ids, vals);
        assert_int_equal(decode_msgs(m, 2, 0, &t, &d), 0);
        uint64_t vals2[] = {2, illegal[i], 0x1000 >> 1};
        m[1] = make_msg(RVT_NX_INDIRECT_BRANCH, 3, ib_ids, vals2);
        assert_int_equal(decode_msgs(m, 2, 0, &t, &d), RVT_E_FORMAT);
        assert_non_null(strstr(d.msg, "ends inside the instruction"));
    }
}

/* "Address Compression": 0x3FC04, then 0x3F368, then 0x3E100. */
static const code_word jumps[] = {
    {0x3fc04, 0x00078067}, /* jr a5 */
    {0x3f368, 0x00078067},
    {0x3e100, 0x00078067},
};

static void test_address_compression_example(void **state) {
    (void)state;
    use_program(jumps, 3);
    rvt_ntrace_options o = {.btm = true};
    static const uint64_t pcs[] = {0x3fc04, 0x3f368, 0x3e100};
    stream s;
    rvt_nexus_msg m[8];
    encode(&o, pcs, 3, &s);
    assert_int_equal(read_all(&s, m, 8), 4);
    expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_FADDR, 0x1fe02);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_UADDR, 0x7b6);
    expect(&m[2], RVT_NX_INDIRECT_BRANCH, RVT_NXF_UADDR, 0x934);
    roundtrip(&o, pcs, 3);
}

/* A call and its return: with a stack the return sends nothing; a return to
 * somewhere else is reported with its address. */
static const code_word calls[] = {
    {0x100, 0x100000ef}, /* jal ra,0x200 */
    {0x104, 0x952e},     /* c.add */
    {0x106, 0x0f80006f}, /* j 0x1fe */
    {0x1fe, 0x952e},
    {0x200, 0x00b50533}, /* add */
    {0x204, 0x8082},     /* ret */
};

static void test_implicit_return(void **state) {
    (void)state;
    use_program(calls, sizeof calls / sizeof calls[0]);
    static const uint64_t good[] = {0x100, 0x200, 0x204, 0x104, 0x106, 0x1fe};
    static const uint64_t bad[] = {0x100, 0x200, 0x204, 0x106, 0x1fe};
    rvt_ntrace_options with_stack = {.call_stack = 4}, without = {0};
    stream s;
    rvt_nexus_msg m[8];
    encode(&with_stack, good, 6, &s);
    assert_int_equal(read_all(&s, m, 8), 2); /* sync, correlation: the return is implicit */
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 9);
    roundtrip(&with_stack, good, 6);
    encode(&without, good, 6, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_ICNT, 5);
    roundtrip(&without, good, 6);
    encode(&with_stack, bad, 5, &s);
    assert_int_equal(read_all(&s, m, 8), 3); /* the wrong return is reported */
    roundtrip(&with_stack, bad, 5);
}

/* A loop branch taken 200 times: the history overflows again and again with
 * the same pattern; repeated history sends it once with HREPEAT. */
static const code_word loop[] = {
    {0x100, 0x00150513}, /* addi a0,a0,1 */
    {0x104, 0xfeb51ee3}, /* bne a0,a1,0x100 */
    {0x108, 0x9002},
};

static void test_repeated_history(void **state) {
    (void)state;
    use_program(loop, 3);
    enum { ITER = 201 };
    static uint64_t pcs[2 * ITER];
    for (int i = 0; i < ITER; i++) {
        pcs[2 * i] = 0x100;
        pcs[2 * i + 1] = 0x104;
    }
    rvt_ntrace_options plain = {0}, rpt = {.repeat = 2};
    stream s1, s2;
    static rvt_nexus_msg m[512];
    encode(&plain, pcs, 2 * ITER, &s1);
    size_t n1 = read_all(&s1, m, 512);
    encode(&rpt, pcs, 2 * ITER, &s2);
    size_t n2 = read_all(&s2, m, 512);
    bool found = false;
    for (size_t i = 0; i < n2; i++)
        if (m[i].tcode == RVT_NX_RESOURCE_FULL && rvt_nexus_get(&m[i], RVT_NXF_RCODE, 0) == 2) {
            found = true;
            assert_int_equal(rvt_nexus_get(&m[i], RVT_NXF_RDATA, 0), 0xffffffffu);
            assert_true(rvt_nexus_get(&m[i], RVT_NXF_HREPEAT, 0) >= 2);
        }
    assert_true(found);
    assert_true(n2 < n1);
    roundtrip(&plain, pcs, 2 * ITER);
    roundtrip(&rpt, pcs, 2 * ITER);
}

/* Periodic sync: after 2^(0+4)... messages the next branch message carries
 * SYNC 2 and a full address; decoding may start there. */
static void test_periodic_sync(void **state) {
    (void)state;
    use_program(jumps, 3);
    enum { N = 120 };
    static uint64_t pcs[N];
    for (int i = 0; i < N; i++)
        pcs[i] = jumps[i % 3].addr;
    rvt_ntrace_options o = {.btm = true, .sync_max = 1};
    stream s;
    static rvt_nexus_msg m[256];
    encode(&o, pcs, N, &s);
    size_t n = read_all(&s, m, 256);
    size_t first_sync = 0;
    for (size_t i = 1; i < n && !first_sync; i++)
        if (m[i].tcode == RVT_NX_INDIRECT_BRANCH_SYNC)
            first_sync = i;
    assert_int_equal(first_sync, 33); /* sync, then 32 messages */
    expect(&m[first_sync], RVT_NX_INDIRECT_BRANCH_SYNC, RVT_NXF_SYNC, 2);
    /* From the sync message on, the decoder needs nothing before it. */
    trail t;
    rvt_diag d = {{0}};
    assert_int_equal(decode_msgs(m + first_sync, n - first_sync, 0, &t, &d), 0);
    assert_true(t.n > 0);
    assert_int_equal(t.pcs[0], pcs[N - t.n]);
    roundtrip(&o, pcs, N);
}

/* MSB extension (N-Trace 1.0, "Sign-based Address Compression" vectors):
 * F-ADDR MDOs 3F x5,1F -> address 0xF_FFFF_FFFE; 3F x4,1F,3C -> the last
 * MDO's top bit extends: 0xFFFF_FFFE_3FFF_FFFE; 3F x6,00 -> 0x1F_FFFF_FFFE. */
static void test_msb_extension_vectors(void **state) {
    (void)state;
    static const struct {
        uint8_t mdo[12];
        unsigned n;
        uint64_t addr;
    } v[] = {{{0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x1f}, 6, 0xFFFFFFFFEull},
             {{0x3f, 0x3f, 0x3f, 0x3f, 0x1f, 0x3c}, 6, 0xFFFFFFFE3FFFFFFEull},
             {{0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x00}, 7, 0x1FFFFFFFFEull},
             /* 3F x10, 05: field 0x5FFF_FFFF_FFFF_FFFF, no extension (bit 5
              * of the last MDO is 0); illegal as an address, but read */
             {{0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x3f, 0x05}, 11, 0xBFFFFFFFFFFFFFFEull}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t bytes[16] = {0x24, 0x05}; /* ProgTraceSync, SYNC 1, I-CNT 0 */
        for (unsigned k = 0; k < v[i].n; k++)
            bytes[2 + k] = (uint8_t)(v[i].mdo[k] << 2 | (k + 1 == v[i].n ? 3 : 0));
        rvt_nexus_reader r;
        rvt_nexus_reader_init(&r, NULL, bytes, 2 + v[i].n);
        rvt_nexus_msg m;
        rvt_diag d;
        assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
        assert_int_equal(rvt_nexus_addr_field(rvt_nexus_find(&m, RVT_NXF_FADDR), true) << 1, v[i].addr);
    }
}

/* Without the extension 0xFFFF_FFFF_8000_31F4 goes out as F-ADDR
 * 0x7FFF_FFFF_C000_18FA in 11 MDOs; with it, the leading ones are dropped
 * and the decoder gets the same address back. */
static void test_msb_extension_encoder(void **state) {
    (void)state;
    static const code_word high[] = {{0xFFFFFFFF800031F4ull, 0x952e}};
    use_program(high, 1);
    static const uint64_t pcs[] = {0xFFFFFFFF800031F4ull};
    rvt_ntrace_options plain = {.btm = true}, ext = {.btm = true, .extend_addr_msb = true};
    stream s;
    rvt_nexus_msg m[4];
    encode(&plain, pcs, 1, &s);
    assert_int_equal(read_all(&s, m, 4), 2);
    const rvt_nexus_field *f = rvt_nexus_find(&m[0], RVT_NXF_FADDR);
    assert_int_equal(f->value, 0x7FFFFFFFC00018FAull);
    assert_int_equal(f->width, 66);
    encode(&ext, pcs, 1, &s);
    assert_int_equal(read_all(&s, m, 4), 2);
    f = rvt_nexus_find(&m[0], RVT_NXF_FADDR);
    assert_true(f->width <= 36);
    assert_int_equal(rvt_nexus_addr_field(f, true) << 1, pcs[0]);
}

/* "I-CNT Field Overflows" (4-bit counter): the not-taken branch at 0x102 is
 * history, so the overflow after 0x10C goes out as IndirectBranchHistSync
 * SYNC 4, I-CNT 8, HIST 0x2, F-ADDR 0x88 (0x110); the rest is I-CNT 6. In BTM
 * (no history) it is ResourceFull RCODE 0 with the count. */
static const code_word overflow_example[] = {
    {0x100, 0x952e},     /* c.add */
    {0x102, 0x0eb50f63}, /* beq a0,a1,0x200 */
    {0x106, 0x952e},     /* c.add */
    {0x108, 0x00b50533}, /* add */
    {0x10c, 0x00b50533}, {0x110, 0x00b50533}, {0x114, 0x00b50533}, {0x118, 0x00b50533},
    {0x11c, 0x9002}, /* c.ebreak */
};

static void test_icnt_overflow_example(void **state) {
    (void)state;
    use_program(overflow_example, sizeof overflow_example / sizeof overflow_example[0]);
    static const uint64_t pcs[] = {0x100, 0x102, 0x106, 0x108, 0x10c, 0x110, 0x114, 0x118};
    rvt_ntrace_options htm = {.icnt_bits = 4}, btm = {.btm = true, .icnt_bits = 4};
    stream s;
    rvt_nexus_msg m[8];
    encode(&htm, pcs, 8, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH_HIST_SYNC, RVT_NXF_SYNC, 4);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH_HIST_SYNC, RVT_NXF_ICNT, 8);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH_HIST_SYNC, RVT_NXF_HIST, 0x2);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH_HIST_SYNC, RVT_NXF_FADDR, 0x88);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 6);
    /* the vector's closing message: EVCODE 0, CDF 1 and HIST 0x1, though
     * no branch came after the sync (NexRv leaves HIST out) */
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 0);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 1);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_HIST, 0x1);
    roundtrip(&htm, pcs, 8);
    rvt_ntrace_options nexrv = htm;
    nexrv.nexrv = true;
    encode(&nexrv, pcs, 8, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 0);
    assert_false(rvt_nexus_has(&m[2], RVT_NXF_HIST));
    roundtrip(&nexrv, pcs, 8);
    encode(&btm, pcs, 8, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[1], RVT_NX_RESOURCE_FULL, RVT_NXF_RCODE, 0);
    expect(&m[1], RVT_NX_RESOURCE_FULL, RVT_NXF_RDATA, 8);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 6);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 0); /* BTM: I-CNT only */
    assert_false(rvt_nexus_has(&m[2], RVT_NXF_HIST));
    roundtrip(&btm, pcs, 8);
}

/* The specification's 4-bit itype table for jumps (x1 and x5 are links),
 * row by row, and where NexRv's rules differ. */
static void test_spec_itype_table(void **state) {
    (void)state;
    enum { CALL = RVT_NXI_CALL, RET = RVT_NXI_RETURN, IND = RVT_NXI_INDIRECT };
    static const struct {
        uint32_t bits;
        unsigned xlen;
        unsigned spec, nexrv; /* CALL, RETURN and INDIRECT of each */
        const char *what;
    } rows[] = {
        {0x000000ef, 64, CALL, CALL, "jal x1: 9"},
        {0x000002ef, 64, CALL, CALL, "jal x5: 9"},
        {0x0000006f, 64, 0, 0, "jal x0: 15"},
        {0x000001ef, 64, 0, CALL, "jal x3: 15 (NexRv: a call)"},
        {0x2001, 32, CALL, CALL, "c.jal: 9"},
        {0xa001, 64, 0, 0, "c.j: 15"},
        {0x000300e7, 64, IND | CALL, IND | CALL, "jalr x1,0(x6): 8"},
        {0x000280e7, 64, IND | CALL | RET, IND | CALL, "jalr x1,0(x5): 12"},
        {0x000082e7, 64, IND | CALL | RET, IND | CALL, "jalr x5,0(x1): 12"},
        {0x000080e7, 64, IND | CALL, IND | CALL, "jalr x1,0(x1): 8"},
        {0x00008067, 64, IND | RET, IND | RET, "jalr x0,0(x1): 13"},
        {0x00428067, 64, IND | RET, IND, "jalr x0,4(x5): 13 (NexRv: a jump)"},
        {0x003081e7, 64, IND | RET, IND | CALL, "jalr x3,3(x1): 13 (NexRv: a call)"},
        {0x000301e7, 64, IND, IND | CALL, "jalr x3,0(x6): 14 (NexRv: a call)"},
        {0x9282, 64, IND | CALL | RET, IND | CALL, "c.jalr x5: 12"},
        {0x9302, 64, IND | CALL, IND | CALL, "c.jalr x6: 8"},
        {0x9082, 64, IND | CALL, IND | CALL, "c.jalr x1: 8"},
        {0x8282, 64, IND | RET, IND, "c.jr x5: 13 (NexRv: a jump)"},
        {0x8082, 64, IND | RET, IND | RET, "c.jr x1: 13"},
        {0x8302, 64, IND, IND, "c.jr x6: 14"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rvt_insn in;
        rvt_decode(rows[i].bits, rows[i].xlen, &in);
        unsigned mask = CALL | RET | IND;
        print_message("%s\n", rows[i].what);
        assert_int_equal(rvt_nexus_classify_spec(&in) & mask, rows[i].spec);
        assert_int_equal(rvt_nexus_classify_by(&in, false) & mask, rows[i].spec);
        assert_int_equal(rvt_nexus_classify(&in) & mask, rows[i].nexrv);
        assert_int_equal(rvt_nexus_classify_by(&in, true) & mask, rows[i].nexrv);
    }
}

/* Co-routine swaps (itype 12: pop, then push, a message only when the pop
 * was wrong), a return through x5 (13) and a jump with a non-link rd (15
 * then 14: neither pushes nor pops). */
static const code_word swaps[] = {
    {0x100, 0x100000ef}, /* jal ra,0x200 (9: push 0x104) */
    {0x104, 0x000280e7}, /* jalr ra,0(t0) -> 0x204 (12: pops 0x204, pushes 0x108) */
    {0x108, 0x400002ef}, /* jal t0,0x508 (9: push 0x10c) */
    {0x10c, 0x304001ef}, /* jal gp,0x410 (15: no push) */
    {0x110, 0x952e},     /* c.add */
    {0x112, 0x9002},     /* c.ebreak */
    {0x200, 0x000082e7}, /* jalr t0,0(ra) -> 0x104 (12: pops 0x104, pushes 0x204) */
    {0x204, 0x8082},     /* c.jr ra -> 0x108 (13: pops 0x108) */
    {0x410, 0x00018067}, /* jalr x0,0(gp) -> 0x110 (14: a message) */
    {0x508, 0x00028067}, /* jalr x0,0(t0) -> 0x10c (13: pops 0x10c) */
};

static void test_call_stack_rules(void **state) {
    (void)state;
    use_program(swaps, sizeof swaps / sizeof swaps[0]);
    static const uint64_t pcs[] = {0x100, 0x200, 0x104, 0x204, 0x108, 0x508, 0x10c, 0x410, 0x110};
    const size_t n = sizeof pcs / sizeof pcs[0];
    rvt_ntrace_options spec = {.btm = true, .call_stack = 4}, nexrv = {.btm = true, .call_stack = 4, .nexrv = true};
    stream s;
    rvt_nexus_msg m[16];
    /* Every swap and return went where the stack said: only the jump
     * through gp (itype 14) sends its target. */
    encode(&spec, pcs, n, &s);
    assert_int_equal(read_all(&s, m, 16), 3);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_ICNT, 2 + 2 + 2 + 1 + 2 + 2 + 2 + 2);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_UADDR, (0x100 ^ 0x110) >> 1); /* against the sync's */
    roundtrip(&spec, pcs, n);
    /* NexRv: both swaps are indirect calls and the return through t0 an
     * indirect jump, each with its message; its stack still predicts c.jr */
    encode(&nexrv, pcs, n, &s);
    size_t k = read_all(&s, m, 16);
    assert_int_equal(k, 6);
    roundtrip(&nexrv, pcs, n);
    /* A decoder told the wrong rules loses the path */
    encode(&spec, pcs, n, &s);
    k = read_all(&s, m, 16);
    trail t;
    rvt_diag d = {{0}};
    rvt_ntrace_decoder_options wrong = {.call_stack = 4, .src_id = -1, .nexrv = true};
    assert_int_not_equal(decode_with(&wrong, m, k, &t, &d), 0);
}

/* Sequential jumps ("Sequential Jump Optimization"): `lui a5,0x1` then
 * `jalr a5` (a call) and `auipc t1,0` then `jr 12(t1)`: their targets follow
 * from the constants, so with the option on they send nothing; the decoder
 * computes them. Fed as retirement records, which carry instruction bits. */
static const code_word seq_code[] = {
    {0x100, 0x000017b7}, /* lui a5,0x1 */
    {0x104, 0x000780e7}, /* jalr a5 (call 0x1000) */
    {0x108, 0x952e},     /* c.add */
    {0x10a, 0x9002},
    {0x1000, 0x00000317}, /* auipc t1,0 */
    {0x1004, 0x00c30067}, /* jr 12(t1) -> 0x100c */
    {0x1008, 0x952e},
    {0x100c, 0x00008067}, /* ret */
};

static void encode_records(const rvt_ntrace_options *o, const uint64_t *pcs, size_t n, stream *s) {
    rvt_ntrace_encoder *e;
    s->len = 0;
    assert_int_equal(rvt_ntrace_encoder_new(&e, o, 64, keep, s), 0);
    for (size_t i = 0; i < n; i++) {
        rvt_insn in;
        assert_true(fetch(NULL, pcs[i], &in));
        uint32_t bits = 0;
        for (size_t k = 0; k < program_len; k++)
            if (program[k].addr == pcs[i])
                bits = program[k].bits;
        bool taken = i + 1 < n && pcs[i + 1] != pcs[i] + in.len;
        rvt_retire r = {.iaddr = pcs[i], .insn = bits, .ninsns = 1, .iretire = (uint16_t)(in.len / 2),
                        .ilastsize = in.len == 4, .itype = (uint8_t)rvt_itype(&in, taken, 4, true), .priv = 3};
        assert_int_equal(rvt_ntrace_encoder_push(e, &r, 1), 0);
    }
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
}

static void test_sequential_jumps(void **state) {
    (void)state;
    use_program(seq_code, sizeof seq_code / sizeof seq_code[0]);
    static const uint64_t pcs[] = {0x100, 0x104, 0x1000, 0x1004, 0x100c, 0x108};
    rvt_ntrace_options plain = {.call_stack = 4}, seq = {.call_stack = 4, .seq_jump = true};
    stream s;
    rvt_nexus_msg m[8];
    encode_records(&plain, pcs, 6, &s);
    assert_int_equal(read_all(&s, m, 8), 4); /* sync, two jumps, correlation; the return is implicit */
    encode_records(&seq, pcs, 6, &s);
    size_t n = read_all(&s, m, 8);
    assert_int_equal(n, 2); /* sync and correlation only */
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 2 + 2 + 2 + 2 + 2 + 1);
    rvt_ntrace_decoder_options o = {.call_stack = 4, .src_id = -1, .seq_jump = true};
    trail t;
    rvt_diag d = {{0}};
    assert_int_equal(decode_with(&o, m, n, &t, &d), 0);
    assert_int_equal(t.n, 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(t.pcs[i], pcs[i]);
}

/* A retirement record of one instruction of the current program. */
static rvt_retire record_at(uint64_t pc, unsigned priv, uint64_t context, bool taken) {
    rvt_insn in;
    assert_true(fetch(NULL, pc, &in));
    uint32_t bits = 0;
    for (size_t k = 0; k < program_len; k++)
        if (program[k].addr == pc)
            bits = program[k].bits;
    return (rvt_retire){.iaddr = pc, .insn = bits, .ninsns = 1, .iretire = (uint16_t)(in.len / 2),
                        .ilastsize = in.len == 4, .itype = (uint8_t)rvt_itype(&in, taken, 4, true),
                        .priv = (uint8_t)priv, .context = context};
}

static void expect_process(const rvt_nexus_msg *m, uint64_t process) {
    expect(m, RVT_NX_OWNERSHIP, RVT_NXF_PROCESS, process);
}

/* Ownership ("Ownership Message"): after every message with SYNC (FORMAT 10
 * with scontext), on a privilege change (FORMAT 00), on an scontext change
 * (FORMAT 10 with the new value), at trap entry; SYNC 4 too. */
static void test_ownership_messages(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_options o = {.btm = true, .ownership = true};
    stream s;
    s.len = 0;
    rvt_ntrace_encoder *e;
    assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
    rvt_retire recs[] = {
        record_at(0x100, 3, 0x1d, false), record_at(0x102, 3, 0x1d, false), /* M, scontext 0x1d */
        record_at(0x106, 1, 0x1d, false),                                    /* to S */
        record_at(0x10a, 1, 0x2a, false),                                    /* scontext 0x2a */
        record_at(0x10e, 1, 0x2a, false),
        {.iaddr = 0x200, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .priv = 1, .context = 0x2a},
        record_at(0x200, 1, 0x2a, false), /* the handler, still in S */
    };
    assert_int_equal(rvt_ntrace_encoder_push(e, recs, sizeof recs / sizeof recs[0]), 0);
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    rvt_nexus_msg m[16];
    size_t k = read_all(&s, m, 16);
    assert_int_equal(k, 7);
    expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_SYNC, 1);
    expect_process(&m[1], 0x1d << 5 | 3 << 2 | 2);
    expect_process(&m[2], 1 << 2);
    expect_process(&m[3], 0x2a << 5 | 1 << 2 | 2);
    expect(&m[4], RVT_NX_INDIRECT_BRANCH, RVT_NXF_BTYPE, 2);
    expect_process(&m[5], 1 << 2); /* trap entry, no change */
    expect(&m[6], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1);
    /* the decoder follows the context and privilege */
    trail t;
    rvt_diag d = {{0}};
    rvt_ntrace_decoder *dec;
    rvt_ntrace_decoder_options dopt = {.src_id = -1};
    t.n = 0;
    assert_int_equal(rvt_ntrace_decoder_new(&dec, &dopt, 64, fetch, collect, &t), 0);
    uint64_t context;
    unsigned priv;
    for (size_t i = 0; i < k; i++) {
        assert_int_equal(rvt_ntrace_decode(dec, &m[i], &d), 0);
        if (i == 2) {
            assert_true(rvt_ntrace_decoder_context(dec, &context, &priv));
            assert_int_equal(context, 0x1d);
            assert_int_equal(priv, 1);
        }
    }
    assert_true(rvt_ntrace_decoder_context(dec, &context, &priv));
    assert_int_equal(context, 0x2a);
    rvt_ntrace_decoder_free(dec);
    assert_int_equal(t.n, 6);

    /* the I-CNT overflow example: the SYNC 4 message is followed by one too */
    use_program(overflow_example, sizeof overflow_example / sizeof overflow_example[0]);
    static const uint64_t pcs[] = {0x100, 0x102, 0x106, 0x108, 0x10c, 0x110, 0x114, 0x118};
    rvt_ntrace_options of = {.icnt_bits = 4, .ownership = true};
    s.len = 0;
    assert_int_equal(rvt_ntrace_encoder_new(&e, &of, 64, keep, &s), 0);
    for (size_t i = 0; i < 8; i++) {
        rvt_retire r = record_at(pcs[i], 0, 7, pcs[i] == 0x102);
        assert_int_equal(rvt_ntrace_encoder_push(e, &r, 1), 0);
    }
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    k = read_all(&s, m, 16);
    assert_int_equal(k, 5);
    expect_process(&m[1], 7 << 5 | 0 << 2 | 2);
    expect(&m[2], RVT_NX_INDIRECT_BRANCH_HIST_SYNC, RVT_NXF_SYNC, 4);
    expect_process(&m[3], 7 << 5 | 0 << 2 | 2);
}

/* The PROCESS examples of "Ownership Message": 0x3B2 is FORMAT 10, PRV 00,
 * V 1 (VU) with scontext 0x1D; 0xC is FORMAT 00, PRV 11, V 0 (M), the
 * context kept. */
static void test_process_vectors(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_decoder *dec;
    rvt_ntrace_decoder_options o = {.src_id = -1};
    trail t;
    assert_int_equal(rvt_ntrace_decoder_new(&dec, &o, 64, fetch, collect, &t), 0);
    static const rvt_nexus_field_id ids[] = {RVT_NXF_PROCESS};
    uint64_t context;
    unsigned priv;
    assert_false(rvt_ntrace_decoder_context(dec, &context, &priv));
    rvt_diag d = {{0}};
    static const uint64_t vu[] = {0x3B2}, m_mode[] = {0xC};
    rvt_nexus_msg m = make_msg(RVT_NX_OWNERSHIP, 1, ids, vu);
    assert_int_equal(rvt_ntrace_decode(dec, &m, &d), 0);
    assert_true(rvt_ntrace_decoder_context(dec, &context, &priv));
    assert_int_equal(context, 0x1D);
    assert_int_equal(priv, 4); /* V 1, PRV 00 */
    m = make_msg(RVT_NX_OWNERSHIP, 1, ids, m_mode);
    assert_int_equal(rvt_ntrace_decode(dec, &m, &d), 0);
    assert_true(rvt_ntrace_decoder_context(dec, &context, &priv));
    assert_int_equal(context, 0x1D);
    assert_int_equal(priv, 3);
    rvt_ntrace_decoder_free(dec);
}

/* Decodes messages, requiring every one to decode cleanly, and compares
 * the flow with `pcs`. */
static void expect_flow(const rvt_nexus_msg *m, size_t k, unsigned call_stack, const uint64_t *pcs, size_t n) {
    trail t;
    rvt_diag d = {{0}};
    assert_int_equal(decode_msgs(m, k, call_stack, &t, &d), 0);
    assert_int_equal(t.n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(t.pcs[i], pcs[i]);
}

/* "Trace disabled while the hart runs": ProgTraceCorrelation EVCODE 4 with
 * the count (and in HTM the history, CDF 1), then on enabling a
 * ProgTraceSync with SYNC 5 (trace enabled again after a gap). */
static void test_trace_disabled_and_enabled(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_options o = {0};
    stream s;
    s.len = 0;
    rvt_ntrace_encoder *e;
    assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
    rvt_retire before_gap[] = {record_at(0x100, 3, 0, false), record_at(0x102, 3, 0, false),
                               record_at(0x106, 3, 0, false)};
    rvt_retire in_gap[] = {record_at(0x10a, 3, 0, false), record_at(0x10e, 3, 0, false)};
    rvt_retire after_gap = record_at(0x110, 3, 0, false);
    assert_int_equal(rvt_ntrace_encoder_push(e, before_gap, 3), 0);
    assert_int_equal(rvt_ntrace_encoder_enable(e, false), 0);
    assert_int_equal(rvt_ntrace_encoder_push(e, in_gap, 2), 0);
    assert_int_equal(rvt_ntrace_encoder_enable(e, true), 0);
    assert_int_equal(rvt_ntrace_encoder_push(e, &after_gap, 1), 0);
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    rvt_nexus_msg m[8];
    size_t k = read_all(&s, m, 8);
    assert_int_equal(k, 4);
    expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_SYNC, 1);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 4);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 1);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1 + 2 + 2);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_HIST, 0x2); /* the beq not taken */
    expect(&m[2], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_SYNC, 5);
    expect(&m[2], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_ICNT, 0);
    expect(&m[2], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_FADDR, 0x110 >> 1);
    expect(&m[3], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 0);
    expect(&m[3], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 2);
    static const uint64_t traced[] = {0x100, 0x102, 0x106, 0x110};
    expect_flow(m, k, 0, traced, 4);
}

/* Trace that starts disabled: ProgTraceCorrelation EVCODE 4 first; the
 * hart halting while it is: EVCODE 0 with I-CNT 0; then SYNC 5. */
static void test_trace_starts_disabled(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_options o = {.btm = true};
    stream s;
    s.len = 0;
    rvt_ntrace_encoder *e;
    assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
    assert_int_equal(rvt_ntrace_encoder_enable(e, false), 0);
    rvt_retire gap[] = {record_at(0x100, 3, 0, false), {.sideband = RVT_SIDEBAND_HALTED},
                        record_at(0x102, 3, 0, false)};
    assert_int_equal(rvt_ntrace_encoder_push(e, gap, 3), 0);
    assert_int_equal(rvt_ntrace_encoder_enable(e, true), 0);
    rvt_retire traced_recs[] = {record_at(0x10e, 3, 0, false), record_at(0x110, 3, 0, false)};
    assert_int_equal(rvt_ntrace_encoder_push(e, traced_recs, 2), 0);
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    rvt_nexus_msg m[8];
    size_t k = read_all(&s, m, 8);
    assert_int_equal(k, 4);
    expect(&m[0], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 4);
    expect(&m[0], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 0);
    expect(&m[0], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_CDF, 0); /* BTM */
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 0);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 0);
    expect(&m[2], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_SYNC, 5);
    expect(&m[2], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_FADDR, 0x10e >> 1);
    expect(&m[3], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1 + 2);
    static const uint64_t traced[] = {0x10e, 0x110};
    expect_flow(m, k, 0, traced, 2);
    /* ended while disabled: EVCODE 0, nothing counted */
    s.len = 0;
    assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
    assert_int_equal(rvt_ntrace_encoder_push(e, traced_recs, 1), 0);
    assert_int_equal(rvt_ntrace_encoder_enable(e, false), 0);
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    k = read_all(&s, m, 8);
    assert_int_equal(k, 3);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 4);
    expect(&m[1], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_EVCODE, 0);
    expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 0);
}

/* SYNC 0 (external trigger) and 6 (watchpoint event) mark a place: the
 * count locates it, the return-address stack is kept, so the return after
 * it is still implicit and the decoder still predicts it. */
static void test_marker_syncs(void **state) {
    (void)state;
    use_program(calls, sizeof calls / sizeof calls[0]);
    static const uint64_t pcs[] = {0x100, 0x200, 0x204, 0x104, 0x106, 0x1fe};
    for (unsigned code = 0; code <= 6; code += 6) {
        rvt_ntrace_options o = {.call_stack = 4};
        stream s;
        s.len = 0;
        rvt_ntrace_encoder *e;
        assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
        assert_int_equal(rvt_ntrace_encoder_mark(e, 5), RVT_E_ARG);
        for (size_t i = 0; i < 6; i++) {
            if (pcs[i] == 0x200)
                assert_int_equal(rvt_ntrace_encoder_mark(e, code), 0);
            rvt_retire r = record_at(pcs[i], 3, 0, false);
            assert_int_equal(rvt_ntrace_encoder_push(e, &r, 1), 0);
        }
        assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
        rvt_nexus_msg m[8];
        size_t k = read_all(&s, m, 8);
        assert_int_equal(k, 3); /* sync, marker, correlation: the return is still implicit */
        expect(&m[1], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_SYNC, code);
        expect(&m[1], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_ICNT, 2); /* the jal before it */
        expect(&m[1], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_FADDR, 0x200 >> 1);
        expect(&m[2], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 2 + 1 + 1 + 2 + 1);
        expect_flow(m, k, 4, pcs, 6);
    }
}

/* Time stamps ("Timestamp Reporting"): absolute in every message with
 * SYNC, relative to the last stamp in the others; the decoder takes the
 * absolute value and adds the relative ones. An addressed message has the
 * time of its event (the trap for a handler's). */
static void test_time_stamps(void **state) {
    (void)state;
    /* decoding, by hand: sync 0x100, +5, +7, a new sync 0x20 (not added) */
    static const struct {
        bool sync;
        uint64_t stamp, time;
    } vec[] = {{true, 0x100, 0x100}, {false, 5, 0x105}, {false, 7, 0x10c}, {true, 0x20, 0x20}, {false, 1, 0x21}};
    rvt_ntrace_clock clock = {0};
    uint64_t t;
    static const rvt_nexus_field_id rel_ids[] = {RVT_NXF_TSTAMP}, sync_ids[] = {RVT_NXF_SYNC, RVT_NXF_TSTAMP};
    uint64_t rel_only[] = {9};
    rvt_nexus_msg early = make_msg(RVT_NX_DIRECT_BRANCH, 1, rel_ids, rel_only);
    assert_false(rvt_ntrace_time(&clock, &early, &t)); /* relative, with nothing to add it to */
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        uint64_t values[] = {1, vec[i].stamp};
        rvt_nexus_msg m = vec[i].sync ? make_msg(RVT_NX_PROG_TRACE_SYNC, 2, sync_ids, values)
                                      : make_msg(RVT_NX_DIRECT_BRANCH, 1, rel_ids, values + 1);
        assert_true(rvt_ntrace_time(&clock, &m, &t));
        assert_int_equal(t, vec[i].time);
    }
    rvt_nexus_msg none = make_msg(RVT_NX_DIRECT_BRANCH, 0, NULL, NULL);
    assert_false(rvt_ntrace_time(&clock, &none, &t));

    /* encoding: BTM, the first branch taken to 0x200, which traps; the
     * handler at 0x300 */
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    rvt_ntrace_options o = {.btm = true, .timestamps = true};
    stream s;
    s.len = 0;
    rvt_ntrace_encoder *e;
    assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
    rvt_retire recs[] = {
        record_at(0x100, 3, 0, false), record_at(0x102, 3, 0, true), record_at(0x200, 3, 0, false),
        {.iaddr = 0x300, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .priv = 3},
        record_at(0x300, 3, 0, false),
    };
    static const uint64_t times[] = {1000, 1003, 1010, 1011, 1050};
    for (size_t i = 0; i < 5; i++)
        recs[i].time = times[i];
    assert_int_equal(rvt_ntrace_encoder_push(e, recs, 5), 0);
    assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    rvt_nexus_msg m[8];
    size_t k = read_all(&s, m, 8);
    assert_int_equal(k, 4);
    /* sync at the first record, the branch when it retired, the trap when
     * it was taken, the end at the last record */
    static const uint64_t want[] = {1000, 1003, 1011, 1050};
    static const unsigned tcodes[] = {RVT_NX_PROG_TRACE_SYNC, RVT_NX_DIRECT_BRANCH, RVT_NX_INDIRECT_BRANCH,
                                      RVT_NX_PROG_TRACE_CORRELATION};
    rvt_ntrace_clock c2 = {0};
    for (size_t i = 0; i < k; i++) {
        assert_int_equal(m[i].tcode, tcodes[i]);
        assert_true(rvt_ntrace_time(&c2, &m[i], &t));
        assert_int_equal(t, want[i]);
    }
    expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_TSTAMP, 1000);  /* absolute */
    expect(&m[1], RVT_NX_DIRECT_BRANCH, RVT_NXF_TSTAMP, 3);        /* relative */
    expect(&m[2], RVT_NX_INDIRECT_BRANCH, RVT_NXF_BTYPE, 2);
    expect(&m[2], RVT_NX_INDIRECT_BRANCH, RVT_NXF_TSTAMP, 1011 - 1003);
}

/* Implicit return mode 2: the stack holds the low bits of return
 * addresses, and a return is implicit when its target matches those. A
 * return to 0x1104 instead of 0x104 matches in 8 bits, not in 16 or in
 * full (mode 3). */
static const code_word far_return[] = {
    {0x100, 0x100000ef}, /* jal ra,0x200 */
    {0x104, 0x952e},     /* c.add */
    {0x106, 0x9002},     /* c.ebreak */
    {0x200, 0x00b50533}, /* add */
    {0x204, 0x8082},     /* ret (ra changed on the way: to 0x1104) */
    {0x1104, 0x952e},    /* c.add */
    {0x1106, 0x9002},    /* c.ebreak */
};

static void test_partial_return_addresses(void **state) {
    (void)state;
    use_program(calls, sizeof calls / sizeof calls[0]);
    static const uint64_t good[] = {0x100, 0x200, 0x204, 0x104, 0x106, 0x1fe};
    rvt_ntrace_options mode2 = {.call_stack = 4, .return_bits = 8};
    stream s;
    rvt_nexus_msg m[8];
    encode(&mode2, good, 6, &s);
    assert_int_equal(read_all(&s, m, 8), 2); /* the return matched: implicit */
    roundtrip(&mode2, good, 6);

    use_program(far_return, sizeof far_return / sizeof far_return[0]);
    static const uint64_t far[] = {0x100, 0x200, 0x204, 0x1104};
    encode(&mode2, far, 4, &s);
    assert_int_equal(read_all(&s, m, 8), 2); /* 0x1104 and 0x104 agree in 8 bits */
    rvt_ntrace_options wider = {.call_stack = 4, .return_bits = 16}, full = {.call_stack = 4};
    encode(&wider, far, 4, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_UADDR, (0x100 ^ 0x1104) >> 1); /* (no history: the short form) */
    roundtrip(&wider, far, 4);
    encode(&full, far, 4, &s);
    assert_int_equal(read_all(&s, m, 8), 3);
    rvt_ntrace_encoder *e;
    rvt_ntrace_options bad = {.return_bits = 1};
    assert_int_equal(rvt_ntrace_encoder_new(&e, &bad, 64, keep, &s), RVT_E_ARG);
}

/* "Error Message" and "SYNC 7": the encoder lost messages. Error (ETYPE 0,
 * queue overrun; ECODE bit 2 program trace lost) marks a gap and the
 * decoder waits for a full address; the sync after it (SYNC 7) restarts
 * the flow. A SYNC 7 with no Error before it is a gap of its own. */
static void test_error_and_overrun_gap(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    static const rvt_nexus_field_id sync_ids[] = {RVT_NXF_SYNC, RVT_NXF_ICNT, RVT_NXF_FADDR};
    static const rvt_nexus_field_id icnt_id[] = {RVT_NXF_ICNT}, err_ids[] = {RVT_NXF_ETYPE, RVT_NXF_ECODE};
    static const rvt_nexus_field_id corr_ids[] = {RVT_NXF_EVCODE, RVT_NXF_CDF, RVT_NXF_ICNT};
    static const uint64_t start[] = {1, 0, 0x100 >> 1}, taken[] = {3}, lost[] = {0, 1u << 2};
    static const uint64_t restart[] = {7, 0, 0x300 >> 1}, end[] = {0, 0, 2};
    rvt_nexus_msg with_error[] = {
        make_msg(RVT_NX_PROG_TRACE_SYNC, 3, sync_ids, start), make_msg(RVT_NX_DIRECT_BRANCH, 1, icnt_id, taken),
        make_msg(RVT_NX_ERROR, 2, err_ids, lost), make_msg(RVT_NX_PROG_TRACE_SYNC, 3, sync_ids, restart),
        make_msg(RVT_NX_PROG_TRACE_CORRELATION, 3, corr_ids, end),
    };
    static const uint64_t flow[] = {0x100, 0x102, 0x300};
    for (int error_first = 1; error_first >= 0; error_first--) {
        rvt_ntrace_decoder *dec;
        rvt_ntrace_decoder_options o = {.src_id = -1};
        trail t = {.n = 0};
        assert_int_equal(rvt_ntrace_decoder_new(&dec, &o, 64, fetch, collect, &t), 0);
        int failures = 0;
        for (size_t i = 0; i < 5; i++) {
            if (i == 2 && !error_first)
                continue;
            rvt_diag d = {{0}};
            int rc = rvt_ntrace_decode(dec, &with_error[i], &d);
            if (rc) {
                failures++;
                assert_int_equal(rc, RVT_E_FORMAT);
                assert_int_equal(i, error_first ? 2 : 3); /* the gap is where the encoder says so */
                assert_non_null(strstr(d.msg, error_first ? "lost messages (Error ETYPE 0, ECODE 0x4)" : "SYNC 7"));
            }
        }
        assert_int_equal(failures, 1);
        assert_int_equal(rvt_ntrace_decoder_error_messages(dec), (uint64_t)error_first);
        rvt_ntrace_decoder_free(dec);
        assert_int_equal(t.n, 3);
        for (size_t i = 0; i < 3; i++)
            assert_int_equal(t.pcs[i], flow[i]);
    }
    /* the message on the wire: ETYPE 0, ECODE 0b1100 (program trace and
     * ownership lost), TSTAMP 0x2a; ECODE is there even when 0; a vendor
     * ETYPE (8..15) reads the same */
    static const uint8_t bytes[] = {0x20, 0x00, 0x0d, 0xab, 0x20, 0x03, 0x20, 0x27};
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, NULL, bytes, sizeof bytes);
    rvt_nexus_msg m;
    rvt_diag d;
    static const uint64_t etype[] = {0, 0, 9}, ecode[] = {12, 0, 0};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(rvt_nexus_next(&r, &m, &d), 1);
        assert_int_equal(m.tcode, RVT_NX_ERROR);
        assert_string_equal(rvt_nexus_tcode_name(m.tcode), "Error");
        expect(&m, RVT_NX_ERROR, RVT_NXF_ETYPE, etype[i]);
        assert_int_equal(rvt_nexus_find(&m, RVT_NXF_ETYPE)->width, 4);
        expect(&m, RVT_NX_ERROR, RVT_NXF_ECODE, ecode[i]);
        assert_int_equal(rvt_nexus_has(&m, RVT_NXF_TSTAMP), i == 0);
    }
}

/* "Repeated history": any split of the history bits among ResourceFull
 * messages is the same history; an HREPEAT that would overflow goes out
 * as several RCODE 2 messages. The loop's taken branch ten times, then
 * not taken: {0x3 x10}, {0x3 x4}{0x3 x6}, {0x7 x5} and ten RCODE 1 {0x3}
 * decode alike. */
static void test_history_repeat_splits(void **state) {
    (void)state;
    use_program(loop, 3);
    static const rvt_nexus_field_id sync_ids[] = {RVT_NXF_SYNC, RVT_NXF_ICNT, RVT_NXF_FADDR};
    static const rvt_nexus_field_id rf_ids[] = {RVT_NXF_RCODE, RVT_NXF_RDATA, RVT_NXF_HREPEAT};
    static const rvt_nexus_field_id corr_ids[] = {RVT_NXF_EVCODE, RVT_NXF_CDF, RVT_NXF_ICNT, RVT_NXF_HIST};
    static const uint64_t start[] = {1, 0, 0x100 >> 1}, end[] = {0, 1, 44, 0x2};
    static const struct {
        unsigned n;
        uint64_t rcode, pattern, times;
    } splits[][10] = {
        {{1, 2, 0x3, 10}},
        {{2, 2, 0x3, 4}, {0, 2, 0x3, 6}},
        {{1, 2, 0x7, 5}},
        {{10, 1, 0x3, 0}, {0, 1, 0x3, 0}, {0, 1, 0x3, 0}, {0, 1, 0x3, 0}, {0, 1, 0x3, 0},
         {0, 1, 0x3, 0}, {0, 1, 0x3, 0}, {0, 1, 0x3, 0}, {0, 1, 0x3, 0}, {0, 1, 0x3, 0}},
    };
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
        rvt_nexus_msg m[12];
        size_t n = 0;
        m[n++] = make_msg(RVT_NX_PROG_TRACE_SYNC, 3, sync_ids, start);
        for (unsigned i = 0; i < splits[k][0].n; i++) {
            uint64_t v[] = {splits[k][i].rcode, splits[k][i].pattern, splits[k][i].times};
            m[n++] = make_msg(RVT_NX_RESOURCE_FULL, v[0] == 2 ? 3 : 2, rf_ids, v);
        }
        m[n++] = make_msg(RVT_NX_PROG_TRACE_CORRELATION, 4, corr_ids, end);
        trail t;
        rvt_diag d = {{0}};
        assert_int_equal(decode_msgs(m, n, 0, &t, &d), 0);
        assert_int_equal(t.n, 22);
        for (size_t i = 0; i < 22; i++)
            assert_int_equal(t.pcs[i], i % 2 ? 0x104 : 0x100);
    }
}

/* "Corner cases": an exception on the first traced instruction (the sync,
 * then B-TYPE 2 with I-CNT 0), an interrupt pending at the start (B-TYPE
 * 3), and an exception at the entry of a handler (back to back: the second
 * message B-TYPE 2 with I-CNT 0). */
static void test_trap_corner_cases(void **state) {
    (void)state;
    use_program(icnt_example, sizeof icnt_example / sizeof icnt_example[0]);
    static const struct {
        uint8_t first_trap, second_trap; /* itypes; second 0: none */
        unsigned btype1, btype2;
    } cases[] = {
        {RVT_ITYPE_EXCEPTION, 0, 2, 0},
        {RVT_ITYPE_INTERRUPT, 0, 3, 0},
        {RVT_ITYPE_EXCEPTION, RVT_ITYPE_EXCEPTION, 2, 2},
    };
    for (size_t c = 0; c < 3; c++) {
        rvt_ntrace_options o = {.btm = true};
        stream s;
        s.len = 0;
        rvt_ntrace_encoder *e;
        assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &s), 0);
        /* trapping at 0x100 before it retires; the handler 0x200, whose
         * first instruction traps again to 0x300 in the third case */
        rvt_retire recs[4];
        size_t n = 0;
        recs[n++] = (rvt_retire){.iaddr = 0x100, .itype = cases[c].first_trap, .priv = 3};
        if (cases[c].second_trap)
            recs[n++] = (rvt_retire){.iaddr = 0x200, .itype = cases[c].second_trap, .priv = 3};
        recs[n++] = record_at(cases[c].second_trap ? 0x300 : 0x200, 3, 0, false);
        assert_int_equal(rvt_ntrace_encoder_push(e, recs, n), 0);
        assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
        rvt_nexus_msg m[8];
        size_t k = read_all(&s, m, 8);
        assert_int_equal(k, cases[c].second_trap ? 4 : 3);
        expect(&m[0], RVT_NX_PROG_TRACE_SYNC, RVT_NXF_FADDR, 0x100 >> 1);
        expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_BTYPE, cases[c].btype1);
        expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_ICNT, 0);
        if (cases[c].second_trap) {
            expect(&m[2], RVT_NX_INDIRECT_BRANCH, RVT_NXF_BTYPE, cases[c].btype2);
            expect(&m[2], RVT_NX_INDIRECT_BRANCH, RVT_NXF_ICNT, 0);
            expect(&m[2], RVT_NX_INDIRECT_BRANCH, RVT_NXF_UADDR, (0x200 ^ 0x300) >> 1);
        }
        uint64_t last = cases[c].second_trap ? 0x300 : 0x200;
        expect_flow(m, k, 0, &last, 1);
    }
}

/* "I-CNT and HIST overflow at once": two ResourceFull messages. Two 16-bit
 * instructions, then a branch to itself, taken 30 times and then not: the
 * 31st fills the history register (stop bit at bit 31) as the count
 * reaches 64 (a 7-bit counter's overflow). The history goes first here
 * (the spec suggests I-CNT first, but a count sent before the history of
 * its branches could not be walked), the count, with the instruction after,
 * next. */
static const code_word spin[] = {
    {0x100, 0x952e},     /* c.add */
    {0x102, 0x952e},     /* c.add */
    {0x104, 0x00a50063}, /* beq a0,a0,0x104 */
    {0x108, 0x952e},     /* c.add */
    {0x10a, 0x952e},     /* c.add */
    {0x10c, 0x9002},     /* c.ebreak */
};

static void test_both_counters_full(void **state) {
    (void)state;
    use_program(spin, sizeof spin / sizeof spin[0]);
    uint64_t pcs[40];
    size_t n = 0;
    pcs[n++] = 0x100;
    pcs[n++] = 0x102;
    for (int i = 0; i < 31; i++)
        pcs[n++] = 0x104;
    pcs[n++] = 0x108;
    pcs[n++] = 0x10a;
    rvt_ntrace_options o = {.icnt_bits = 7};
    stream s;
    rvt_nexus_msg m[8];
    encode(&o, pcs, n, &s);
    size_t k = read_all(&s, m, 8);
    assert_int_equal(k, 4);
    expect(&m[1], RVT_NX_RESOURCE_FULL, RVT_NXF_RCODE, 1);
    expect(&m[1], RVT_NX_RESOURCE_FULL, RVT_NXF_RDATA, 0xfffffffeu);
    expect(&m[2], RVT_NX_RESOURCE_FULL, RVT_NXF_RCODE, 0);
    expect(&m[2], RVT_NX_RESOURCE_FULL, RVT_NXF_RDATA, 2 + 62 + 1);
    expect(&m[3], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1);
    roundtrip(&o, pcs, n);
}

/* itype 10 and 11 (jumps without linkage, as E-Trace and ratified N-Trace
 * name them) are taken like 14 and 15, and the reserved 7 a hart may give
 * a direct jump like any direct jump: the encoder classifies the
 * instruction's bits, so the three records give the same bytes. */
static void test_jump_itypes_without_linkage(void **state) {
    (void)state;
    use_program(swaps, sizeof swaps / sizeof swaps[0]);
    static const uint64_t pcs[] = {0x100, 0x200, 0x104, 0x204, 0x108, 0x508, 0x10c, 0x410, 0x110};
    const size_t n = sizeof pcs / sizeof pcs[0];
    stream out[3];
    unsigned tails = 0, sevens = 0;
    for (int variant = 0; variant < 3; variant++) {
        rvt_ntrace_options o = {.call_stack = 4};
        out[variant].len = 0;
        rvt_ntrace_encoder *e;
        assert_int_equal(rvt_ntrace_encoder_new(&e, &o, 64, keep, &out[variant]), 0);
        for (size_t i = 0; i < n; i++) {
            rvt_retire r = record_at(pcs[i], 3, 0, false);
            rvt_insn in;
            assert_true(fetch(NULL, pcs[i], &in));
            if (variant == 1) { /* E-Trace's classes: 10/11 for jumps without linkage */
                r.itype = (uint8_t)rvt_itype(&in, false, 4, false);
                tails += r.itype == RVT_ITYPE_UNINFERABLE_TAIL || r.itype == RVT_ITYPE_INFERABLE_TAIL;
            } else if (variant == 2 && r.itype == RVT_ITYPE_OTHER_INFERABLE) {
                r.itype = 7;
                sevens++;
            }
            assert_int_equal(rvt_ntrace_encoder_push(e, &r, 1), 0);
        }
        assert_int_equal(rvt_ntrace_encoder_finish(e, NULL), 0);
    }
    assert_int_equal(tails, 1); /* jalr x0,0(gp): 10 (jal gp has a non-zero rd: 15 in both) */
    assert_true(sevens >= 1);
    for (int variant = 1; variant < 3; variant++) {
        assert_int_equal(out[variant].len, out[0].len);
        assert_memory_equal(out[variant].bytes, out[0].bytes, out[0].len);
    }
    rvt_nexus_msg m[16];
    size_t k = read_all(&out[0], m, 16);
    expect_flow(m, k, 4, pcs, n);
}

/* "RepeatBranch": B-CNT counts how often the previous indirect-branch
 * message repeated with the same I-CNT, history and target; the decoder
 * replays it that many times. A loop through `c.jr a5` back to its start,
 * four times round. */
static const code_word jr_loop[] = {
    {0x100, 0x952e}, /* c.add */
    {0x102, 0x8782}, /* c.jr a5 -> 0x100 */
};

static void test_repeat_branch(void **state) {
    (void)state;
    use_program(jr_loop, sizeof jr_loop / sizeof jr_loop[0]);
    static const uint64_t pcs[] = {0x100, 0x102, 0x100, 0x102, 0x100, 0x102, 0x100, 0x102, 0x100};
    rvt_ntrace_options o = {.btm = true, .repeat = 1};
    stream s;
    rvt_nexus_msg m[8];
    encode(&o, pcs, 9, &s);
    size_t k = read_all(&s, m, 8);
    assert_int_equal(k, 4);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_ICNT, 2);
    expect(&m[1], RVT_NX_INDIRECT_BRANCH, RVT_NXF_UADDR, 0); /* 0x100 again */
    expect(&m[2], RVT_NX_REPEAT_BRANCH, RVT_NXF_BCNT, 3);
    expect(&m[3], RVT_NX_PROG_TRACE_CORRELATION, RVT_NXF_ICNT, 1);
    expect_flow(m, k, 0, pcs, 9);
    /* by hand, from the message definitions */
    static const rvt_nexus_field_id sync_ids[] = {RVT_NXF_SYNC, RVT_NXF_ICNT, RVT_NXF_FADDR};
    static const rvt_nexus_field_id ib_ids[] = {RVT_NXF_BTYPE, RVT_NXF_ICNT, RVT_NXF_UADDR};
    static const rvt_nexus_field_id bcnt_id[] = {RVT_NXF_BCNT};
    static const rvt_nexus_field_id corr_ids[] = {RVT_NXF_EVCODE, RVT_NXF_CDF, RVT_NXF_ICNT};
    static const uint64_t start[] = {1, 0, 0x80}, ib[] = {0, 2, 0}, times[] = {3}, end[] = {0, 0, 1};
    rvt_nexus_msg hand[] = {make_msg(RVT_NX_PROG_TRACE_SYNC, 3, sync_ids, start),
                            make_msg(RVT_NX_INDIRECT_BRANCH, 3, ib_ids, ib),
                            make_msg(RVT_NX_REPEAT_BRANCH, 1, bcnt_id, times),
                            make_msg(RVT_NX_PROG_TRACE_CORRELATION, 3, corr_ids, end)};
    expect_flow(hand, 4, 0, pcs, 9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_btm_icnt_example),
        cmocka_unit_test(test_htm_icnt_example),
        cmocka_unit_test(test_illegal_icnt_reported),
        cmocka_unit_test(test_address_compression_example),
        cmocka_unit_test(test_implicit_return),
        cmocka_unit_test(test_repeated_history),
        cmocka_unit_test(test_periodic_sync),
        cmocka_unit_test(test_msb_extension_vectors),
        cmocka_unit_test(test_msb_extension_encoder),
        cmocka_unit_test(test_icnt_overflow_example),
        cmocka_unit_test(test_sequential_jumps),
        cmocka_unit_test(test_spec_itype_table),
        cmocka_unit_test(test_call_stack_rules),
        cmocka_unit_test(test_ownership_messages),
        cmocka_unit_test(test_process_vectors),
        cmocka_unit_test(test_trace_disabled_and_enabled),
        cmocka_unit_test(test_trace_starts_disabled),
        cmocka_unit_test(test_marker_syncs),
        cmocka_unit_test(test_time_stamps),
        cmocka_unit_test(test_partial_return_addresses),
        cmocka_unit_test(test_error_and_overrun_gap),
        cmocka_unit_test(test_history_repeat_splits),
        cmocka_unit_test(test_trap_corner_cases),
        cmocka_unit_test(test_both_counters_full),
        cmocka_unit_test(test_jump_itypes_without_linkage),
        cmocka_unit_test(test_repeat_branch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
