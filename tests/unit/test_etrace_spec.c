/* E-Trace against the specification's own text: packet layouts built bit by
 * bit from its tables (1.0 English original and ratified 2.0), the ingress
 * rules of the "Instruction Trace Interface" chapter and the decoder's
 * start-of-trace rule. Expected payloads are written out here from the
 * tables, not produced by our packer. */
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
#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

enum { MAX_PACKETS = 64 };

typedef struct {
    rvt_te_inst pkts[MAX_PACKETS];
    uint8_t payload[MAX_PACKETS][64];
    size_t len[MAX_PACKETS];
    size_t n;
} collected;

static int collect(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    collected *c = user;
    if (c->n < MAX_PACKETS) {
        c->pkts[c->n] = *pkt;
        memcpy(c->payload[c->n], payload, len);
        c->len[c->n] = len;
        c->n++;
    }
    return 0;
}

static rvt_retire insn(uint64_t addr, unsigned itype) {
    return (rvt_retire){.iaddr = addr, .ninsns = 1, .iretire = 2, .ilastsize = 1, .itype = (uint8_t)itype, .priv = 3};
}

static void spec_params(rvt_etrace_params *p) {
    rvt_etrace_params_default(p); /* P = 2, context 32 bits, no time, A = 63 */
    p->itype_width = 4;
}

static void encode_with(const rvt_etrace_params *p, const rvt_etrace_options *o, const rvt_retire *recs, size_t n,
                        collected *c) {
    memset(c, 0, sizeof *c);
    rvt_etrace_encoder *e;
    assert_int_equal(rvt_etrace_encoder_new(&e, p, o, collect, c), 0);
    assert_int_equal(rvt_etrace_encoder_push(e, recs, n), 0);
    assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
}

static void encode(const rvt_retire *recs, size_t n, collected *c) {
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    encode_with(&p, &o, recs, n, c);
}

static void assert_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len) {
    if (got_len != want_len || memcmp(got, want, want_len) != 0) {
        char g[200] = "", w[200] = "";
        for (size_t i = 0; i < got_len && i < 64; i++)
            snprintf(g + strlen(g), sizeof g - strlen(g), "%02x", got[i]);
        for (size_t i = 0; i < want_len; i++)
            snprintf(w + strlen(w), sizeof w - strlen(w), "%02x", want[i]);
        fail_msg("payload %s, the spec's table gives %s", g, w);
    }
}

/* Format 3 subformat 2 (2.0 payload chapter): format 2 bits = 11,
 * subformat 2 bits = 10, privilege P bits, time (none with notime_p),
 * context X bits; no branch bit. With privilege 3 and context 0x12345678:
 * 3 | 2 << 2 | 3 << 4 | 0x12345678 << 6 = 0x48d159e3b, 35 significant bits
 * and a zero MSB: 5 bytes. The 1.0 table (privilege, context_width_p bits)
 * gives the same bits here. With nocontext_p the 2.0 packet is 6 bits, 1.0
 * keeps the 32 context bits. */
static void test_context_packet_layout(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    rvt_te_inst pkt = {.format = 3, .subformat = 2, .privilege = 3, .context = 0x12345678, .branch = 1};
    static const uint8_t want[] = {0x3b, 0x9e, 0x15, 0x8d, 0x04};
    uint8_t out[64];
    for (int v1 = 0; v1 < 2; v1++) {
        o.v1_layout = v1;
        int n = rvt_te_inst_pack(&p, &o, &pkt, out, sizeof out);
        assert_true(n > 0);
        assert_bytes(out, (size_t)n, want, sizeof want);
        rvt_te_inst back;
        assert_int_equal(rvt_te_inst_unpack(&p, &o, out, (size_t)n, &back, NULL), 0);
        assert_int_equal(back.format, 3);
        assert_int_equal(back.subformat, 2);
        assert_int_equal(back.privilege, 3);
        assert_int_equal(back.context, 0x12345678);
    }
    p.nocontext = true;
    o.v1_layout = false;
    int n = rvt_te_inst_pack(&p, &o, &pkt, out, sizeof out);
    static const uint8_t bare[] = {0xfb}; /* 11 10 11 from the LSB, the MSB (1) repeated */
    assert_bytes(out, (size_t)n, bare, sizeof bare);
    o.v1_layout = true;
    n = rvt_te_inst_pack(&p, &o, &pkt, out, sizeof out);
    assert_bytes(out, (size_t)n, want, sizeof want);
}

/* ctype 1 (report imprecisely): the new context goes in a format 3
 * subformat 2 packet, without an address, in the first step that sends
 * nothing else (step 9 of the algorithm, cci). */
static void test_context_imprecise(void **state) {
    (void)state;
    rvt_retire r[6];
    for (unsigned i = 0; i < 6; i++)
        r[i] = insn(0x80000000 + 4 * i, RVT_ITYPE_NONE);
    for (unsigned i = 3; i < 6; i++)
        r[i].context = 0x12345678;
    r[3].ctype = 1;
    collected c;
    encode(r, 6, &c);
    /* support, sync, context, the last address, support */
    assert_int_equal(c.n, 5);
    assert_int_equal(c.pkts[1].format, 3);
    assert_int_equal(c.pkts[1].subformat, 0);
    assert_int_equal(c.pkts[1].context, 0);
    assert_int_equal(c.pkts[2].format, 3);
    assert_int_equal(c.pkts[2].subformat, 2);
    static const uint8_t want[] = {0x3b, 0x9e, 0x15, 0x8d, 0x04};
    assert_bytes(c.payload[2], c.len[2], want, sizeof want);
    assert_int_equal(c.pkts[3].format, 2);

    /* The change at the target of a return: that step sends the target's
     * address, so the context waits for the next step. */
    r[2].itype = RVT_ITYPE_RETURN;
    encode(r, 6, &c);
    assert_int_equal(c.n, 6);
    assert_int_equal(c.pkts[2].format, 2);
    assert_int_equal(c.pkts[2].address, 12 >> 1); /* from the sync's address */
    assert_int_equal(c.pkts[3].format, 3);
    assert_int_equal(c.pkts[3].subformat, 2);
    assert_int_equal(c.pkts[3].context, 0x12345678);

    /* ctype 0: never reported */
    r[2].itype = RVT_ITYPE_NONE;
    r[3].ctype = 0;
    encode(r, 6, &c);
    assert_int_equal(c.n, 4);
    for (size_t i = 0; i < c.n; i++)
        assert_false(c.pkts[i].format == 3 && c.pkts[i].subformat == 2);
}

/* ctype 2 (report precisely): as a privilege change, the branches not yet
 * reported go first (format 1 for the instruction before), then a sync at
 * the first instruction of the new context, with that context. */
static void test_context_precise(void **state) {
    (void)state;
    rvt_retire r[6];
    for (unsigned i = 0; i < 6; i++)
        r[i] = insn(0x80000000 + 4 * i, RVT_ITYPE_NONE);
    r[1].itype = RVT_ITYPE_BRANCH_NOT_TAKEN;
    for (unsigned i = 3; i < 6; i++)
        r[i].context = 0xabc;
    r[3].ctype = 2;
    collected c;
    encode(r, 6, &c);
    assert_int_equal(c.n, 6);
    assert_int_equal(c.pkts[2].format, 1);
    assert_int_equal(c.pkts[2].branches, 1);
    assert_int_equal(c.pkts[2].branch_map, 1); /* not taken */
    assert_int_equal(c.pkts[2].address, 8 >> 1); /* the last instruction before the change */
    assert_int_equal(c.pkts[3].format, 3);
    assert_int_equal(c.pkts[3].subformat, 0);
    assert_int_equal(c.pkts[3].context, 0xabc);
    assert_int_equal(c.pkts[3].address, 0x8000000c >> 1);
}

/* iretire 0 with itype 0: the block's other signals are undefined and must
 * be ignored, whatever they hold. */
static void test_empty_blocks_ignored(void **state) {
    (void)state;
    rvt_retire r[5] = {insn(0x80000000, 0), insn(0x80000004, RVT_ITYPE_BRANCH_TAKEN), insn(0x80000040, 0),
                       insn(0x80000044, RVT_ITYPE_RETURN), insn(0x80000100, 0)};
    collected plain, with;
    encode(r, 5, &plain);
    rvt_retire junk = {.iaddr = 0xdead0000, .cause = 5, .tval = 7, .context = 9, .ctype = 2, .priv = 1};
    rvt_retire mixed[10];
    size_t n = 0;
    for (unsigned i = 0; i < 5; i++) {
        mixed[n++] = junk;
        mixed[n++] = r[i];
    }
    encode(mixed, n, &with);
    assert_int_equal(with.n, plain.n);
    for (size_t i = 0; i < plain.n; i++)
        assert_bytes(with.payload[i], with.len[i], plain.payload[i], plain.len[i]);

    /* The reference flow's encoder input: such a row is dropped. */
    char path[] = "/tmp/rvt_etrace_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("itype_0,cause,tval,priv,iaddr_0,context,ctype,iretire_0,ilastsize_0\n"
          "0,0,0,3,80000000,0,0,1,1\n"
          "0,5,77,1,dead0000,9,2,0,1\n"
          "0,0,0,3,80000004,0,0,1,1\n",
          f);
    fclose(f);
    rvt_retire_reader *rd;
    rvt_diag diag;
    assert_int_equal(rvt_retire_reader_open(&rd, path, RVT_FMT_ENCODER_INPUT, 64, &diag), 0);
    rvt_retire out[8];
    long got = 0, k;
    while ((k = rvt_retire_reader_read(rd, out + got, 8 - (size_t)got, &diag)) > 0)
        got += k;
    assert_int_equal(k, 0);
    rvt_retire_reader_close(rd);
    unlink(path);
    assert_int_equal(got, 2);
    assert_int_equal(out[0].iaddr, 0x80000000);
    assert_int_equal(out[1].iaddr, 0x80000004);
}

/* Code for the decoder: nops from 0x80000000, an ecall at 0x80000004, and
 * a handler of nops at HANDLER. */
#define HANDLER 0x80000100u
static bool fetch_code(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr == 0x80000004)
        rvt_decode(0x00000073, 64, out); /* ecall */
    else if ((addr >= 0x80000000 && addr < 0x80000040) || (addr >= HANDLER && addr < HANDLER + 0x40))
        rvt_decode(0x00000013, 64, out); /* nop */
    else
        return false;
    return addr % 4 == 0;
}

typedef struct {
    uint64_t pc[32];
    size_t n;
} pc_list;

static int keep_pc(void *user, uint64_t pc) {
    pc_list *l = user;
    if (l->n < 32)
        l->pc[l->n++] = pc;
    return 0;
}

/* The decoder's start (decoder chapter): a format 0, 1 or 2 packet before
 * the first format 3 is reported ("expecting trace to start with format
 * 3"); after a loss the caller was told of (resync), the packets up to the
 * next sync are skipped without another report. */
static void test_trace_starts_with_sync(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_code, keep_pc, &l), 0);
    rvt_te_inst f2 = {.format = 2, .address = 4}, sync = {.format = 3, .subformat = 0, .branch = 1, .privilege = 3,
                                                        .address = 0x80000008 >> 1};
    rvt_diag diag;
    memset(&diag, 0, sizeof diag);
    assert_int_not_equal(rvt_etrace_decode(d, &f2, &diag), 0);
    assert_non_null(strstr(diag.msg, "expecting trace to start with format 3"));
    rvt_etrace_decoder_resync(d);
    assert_int_equal(rvt_etrace_decode(d, &f2, &diag), 0); /* skipped: the loss was reported */
    assert_int_equal(l.n, 0);
    assert_int_equal(rvt_etrace_decode(d, &sync, &diag), 0);
    assert_int_equal(rvt_etrace_decode(d, &f2, &diag), 0);
    assert_int_equal(l.n, 3);
    assert_int_equal(l.pc[0], 0x80000008);
    assert_int_equal(l.pc[2], 0x80000010);
    /* a support packet that ends the trace: the next must be a sync again */
    rvt_te_inst ended = {.format = 3, .subformat = 3, .ienable = 1, .qual_status = 1};
    assert_int_equal(rvt_etrace_decode(d, &ended, &diag), 0);
    assert_int_not_equal(rvt_etrace_decode(d, &f2, &diag), 0);
    assert_non_null(strstr(diag.msg, "expecting trace to start with format 3"));
    rvt_etrace_decoder_free(d);
}

/* 1.0 layout in implicit-exception mode (1.0 payload table, F3 SF1): format
 * 11, subformat 01, branch, privilege, context (X), ecause (E), interrupt,
 * then tvalepc straight away (no address). For the ecall at 0x80000004
 * (cause 11, tval 0), in M (3), context 0: 3 | 1 << 2 | 1 << 4 | 3 << 5 |
 * 11 << 39; the MSB is 0, bit 42 the highest one: 44 bits, 6 bytes. The
 * decoder takes the handler from the trap vector. */
static void test_v1_implicit_exception(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    o.v1_layout = true;
    o.implicit_except = true;
    rvt_retire r[5] = {insn(0x80000000, 0), insn(0x80000004, 0), insn(HANDLER, 0), insn(HANDLER + 4, 0),
                       insn(HANDLER + 8, 0)};
    r[1] = (rvt_retire){.iaddr = 0x80000004, .itype = RVT_ITYPE_EXCEPTION, .cause = 11, .insn = 0x00000073,
                        .priv = 3, .ilastsize = 1};
    collected c;
    encode_with(&p, &o, r, 5, &c);
    size_t trap = 0;
    for (size_t i = 0; i < c.n; i++)
        if (c.pkts[i].format == 3 && c.pkts[i].subformat == 1)
            trap = i;
    assert_true(trap > 0);
    static const uint8_t want[] = {0x77, 0x00, 0x00, 0x00, 0x80, 0x05};
    assert_bytes(c.payload[trap], c.len[trap], want, sizeof want);

    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_code, keep_pc, &l), 0);
    rvt_etrace_decoder_set_tvec(d, HANDLER);
    rvt_diag diag;
    for (size_t i = 0; i < c.n; i++) {
        rvt_te_inst back;
        assert_int_equal(rvt_te_inst_unpack(&p, &o, c.payload[i], c.len[i], &back, &diag), 0);
        if (rvt_etrace_decode(d, &back, &diag) != 0)
            fail_msg("packet %zu: %s", i, diag.msg);
    }
    rvt_etrace_decoder_free(d);
    static const uint64_t ran[] = {0x80000000, 0x80000004, HANDLER, HANDLER + 4, HANDLER + 8};
    assert_int_equal(l.n, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(l.pc[i], ran[i]);
}

/* Table 3.8 of the 1.0 ingress chapter (example 1, nine instructions in
 * four blocks): {iretire 7, iaddr 0x1000, itype 8} = divuw, add, or,
 * c.jalr; {3, 0x0940, 4} = addi, c.beqz; {1, 0x0946, 5} = c.bnez;
 * {4, 0x0988, 0} = lbu, csrrw. iretire counts halfwords, the last
 * instruction is at iaddr + 2 iretire - size. The blocks give the packets
 * the nine single retirements give, and decode to the table's nine PCs. */
static const struct {
    uint64_t addr;
    uint32_t bits;
} table38_code[] = {
    {0x1000, 0x02c5d53b}, /* divuw a0, a1, a2 */
    {0x1004, 0x00b50533}, /* add a0, a0, a1 */
    {0x1008, 0x00736333}, /* or t1, t1, t2 */
    {0x100c, 0x9302},     /* c.jalr t1 */
    {0x0940, 0x00150513}, /* addi a0, a0, 1 */
    {0x0944, 0xc401},     /* c.beqz s0, +8 */
    {0x0946, 0xe029},     /* c.bnez s0, 0x988 */
    {0x0988, 0x0005c503}, /* lbu a0, 0(a1) */
    {0x098c, 0x34051073}, /* csrw mscratch, a0 */
};

static bool fetch_table38(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    for (size_t i = 0; i < sizeof table38_code / sizeof table38_code[0]; i++)
        if (table38_code[i].addr == addr) {
            rvt_decode(table38_code[i].bits, 64, out);
            return true;
        }
    return false;
}

static void test_table_3_8_blocks(void **state) {
    (void)state;
    rvt_retire blocks[4] = {
        {.iaddr = 0x1000, .ninsns = 4, .iretire = 7, .ilastsize = 0, .itype = RVT_ITYPE_UNINFERABLE_CALL, .priv = 3},
        {.iaddr = 0x0940, .ninsns = 2, .iretire = 3, .ilastsize = 0, .itype = RVT_ITYPE_BRANCH_NOT_TAKEN, .priv = 3},
        {.iaddr = 0x0946, .ninsns = 1, .iretire = 1, .ilastsize = 0, .itype = RVT_ITYPE_BRANCH_TAKEN, .priv = 3},
        {.iaddr = 0x0988, .ninsns = 2, .iretire = 4, .ilastsize = 1, .itype = RVT_ITYPE_NONE, .priv = 3},
    };
    static const uint64_t last[4] = {0x100c, 0x0944, 0x0946, 0x098c};
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(rvt_retire_last_iaddr(&blocks[i]), last[i]);
    static const unsigned single_itype[9] = {0, 0, 0, RVT_ITYPE_UNINFERABLE_CALL, 0, RVT_ITYPE_BRANCH_NOT_TAKEN,
                                             RVT_ITYPE_BRANCH_TAKEN, 0, 0};
    rvt_retire singles[9];
    for (unsigned i = 0; i < 9; i++) {
        rvt_insn in;
        assert_true(fetch_table38(NULL, table38_code[i].addr, &in));
        assert_int_not_equal(in.op, RVT_OP_ILLEGAL);
        singles[i] = (rvt_retire){.iaddr = table38_code[i].addr, .ninsns = 1, .iretire = (uint16_t)(in.len / 2),
                                  .ilastsize = in.len == 4, .itype = (uint8_t)single_itype[i], .priv = 3,
                                  .insn = in.raw};
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    collected one, many;
    encode_with(&p, &o, singles, 9, &one);
    for (int with_code = 0; with_code < 2; with_code++) {
        memset(&many, 0, sizeof many);
        rvt_etrace_encoder *e;
        assert_int_equal(rvt_etrace_encoder_new(&e, &p, &o, collect, &many), 0);
        if (with_code)
            rvt_etrace_encoder_set_code(e, fetch_table38, NULL);
        assert_int_equal(rvt_etrace_encoder_push(e, blocks, 4), 0);
        assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
        assert_int_equal(many.n, one.n);
        for (size_t i = 0; i < one.n; i++)
            assert_bytes(many.payload[i], many.len[i], one.payload[i], one.len[i]);
    }
    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_table38, keep_pc, &l), 0);
    rvt_diag diag;
    for (size_t i = 0; i < one.n; i++)
        if (rvt_etrace_decode(d, &one.pkts[i], &diag) != 0)
            fail_msg("packet %zu: %s", i, diag.msg);
    rvt_etrace_decoder_free(d);
    assert_int_equal(l.n, 9);
    for (size_t i = 0; i < 9; i++)
        assert_int_equal(l.pc[i], table38_code[i].addr);
}

/* Example 5 of the 1.0 "Example code and packets" chapter: beqz at
 * 0x8000121e taken, two jal calls, ret to 0x80001110 whose beqz is not
 * taken: format 1, branches 2, branch_map 0x2, address delta
 * 0xfffffffffffffef4 from 0x8000121c, updiscon equal to notify (the
 * address MSB, 1). Fields: 01, 00010, 010 (L(2) = 3), the 63-bit address
 * 0x7fffffffffffff7a (delta >> 1), notify 1, updiscon 1, irreport 1 (no
 * irdepth): bit 17 is the highest 0, so 19 bits and the MSB fill: 09 e9 fd. */
static void test_example_5(void **state) {
    (void)state;
    static const struct {
        uint32_t addr;
        unsigned size, itype;
    } ran[] = {
        {0x8000121c, 2, 0}, {0x8000121e, 2, RVT_ITYPE_BRANCH_TAKEN}, {0x8000124a, 2, 0}, {0x8000124c, 2, 0},
        {0x8000124e, 4, 0}, {0x80001252, 2, 0}, {0x80001254, 4, RVT_ITYPE_INFERABLE_CALL}, {0x80001100, 2, 0},
        {0x80001102, 2, 0}, {0x80001104, 2, 0}, {0x80001106, 2, 0}, {0x80001108, 2, 0}, {0x8000110a, 2, 0},
        {0x8000110c, 4, RVT_ITYPE_INFERABLE_CALL}, {0x800010f8, 2, 0}, {0x800010fa, 4, 0},
        {0x800010fe, 2, RVT_ITYPE_RETURN}, {0x80001110, 2, RVT_ITYPE_BRANCH_NOT_TAKEN}, {0x80001112, 2, 0},
    };
    enum { N = sizeof ran / sizeof ran[0] };
    rvt_retire r[N];
    for (unsigned i = 0; i < N; i++)
        r[i] = (rvt_retire){.iaddr = ran[i].addr, .ninsns = 1, .iretire = (uint16_t)(ran[i].size / 2),
                            .ilastsize = ran[i].size == 4, .itype = (uint8_t)ran[i].itype, .priv = 3};
    collected c;
    encode(r, N, &c);
    assert_int_equal(c.pkts[1].format, 3);
    assert_int_equal(c.pkts[1].address, 0x8000121c >> 1);
    assert_int_equal(c.pkts[2].format, 1);
    assert_int_equal(c.pkts[2].branches, 2);
    assert_int_equal(c.pkts[2].branch_map, 0x2);
    assert_int_equal(c.pkts[2].address, 0x7fffffffffffff7aull);
    assert_int_equal(c.pkts[2].updiscon, 1);
    assert_int_equal(c.pkts[2].notify, 1);
    static const uint8_t want[] = {0x09, 0xe9, 0xfd};
    assert_bytes(c.payload[2], c.len[2], want, sizeof want);
}

/* itype 7 is reserved in both widths: a record with it is refused (the
 * encoder's push fails; the reference flow's input names the line). */
static void test_itype_7_refused(void **state) {
    (void)state;
    rvt_retire r[3] = {insn(0x80000000, 0), insn(0x80000004, 7), insn(0x80000008, 0)};
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    collected c = {0};
    rvt_etrace_encoder *e;
    assert_int_equal(rvt_etrace_encoder_new(&e, &p, &o, collect, &c), 0);
    int rc = rvt_etrace_encoder_push(e, r, 3);
    int end = rvt_etrace_encoder_finish(e, NULL);
    assert_true(rc == RVT_E_FORMAT || end == RVT_E_FORMAT);

    char path[] = "/tmp/rvt_etrace_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("itype_0,priv,iaddr_0,iretire_0,ilastsize_0\n0,3,80000000,1,1\n7,3,80000004,1,1\n", f);
    fclose(f);
    rvt_retire_reader *rd;
    rvt_diag diag;
    assert_int_equal(rvt_retire_reader_open(&rd, path, RVT_FMT_ENCODER_INPUT, 64, &diag), 0);
    rvt_retire out[8];
    long k, got = 0;
    while ((k = rvt_retire_reader_read(rd, out, 8, &diag)) > 0)
        got += k;
    rvt_retire_reader_close(rd);
    unlink(path);
    assert_true(k < 0);
    assert_true(got <= 1);
    assert_non_null(strstr(diag.msg, "line 3"));
    assert_non_null(strstr(diag.msg, "reserved"));
}

/* Implicit return needs the full jump classification (4-bit itype): an
 * encoder with a 3-bit itype and implicit return is refused. */
static void test_implicit_return_needs_4_bit_itype(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    o.implicit_return = true;
    p.itype_width = 3;
    rvt_etrace_encoder *e = NULL;
    assert_int_equal(rvt_etrace_encoder_new(&e, &p, &o, collect, NULL), RVT_E_ARG);
    p.itype_width = 4;
    assert_int_equal(rvt_etrace_encoder_new(&e, &p, &o, NULL, NULL), 0);
    assert_int_equal(rvt_etrace_encoder_finish(e, NULL), 0);
}

/* cause and tval are looked at only for itype 1 and 2: values on other
 * records change nothing. */
static void test_cause_ignored_elsewhere(void **state) {
    (void)state;
    rvt_retire r[6] = {insn(0x80000000, 0), insn(0x80000004, RVT_ITYPE_BRANCH_TAKEN), insn(0x80000020, 0),
                       insn(0x80000024, RVT_ITYPE_RETURN), insn(0x80000100, RVT_ITYPE_XRET), insn(0x80000200, 0)};
    collected plain, noisy;
    encode(r, 6, &plain);
    for (unsigned i = 0; i < 6; i++) {
        r[i].cause = 0x8000000000000007ull + i;
        r[i].tval = 0x1234 * (i + 1);
    }
    encode(r, 6, &noisy);
    assert_int_equal(noisy.n, plain.n);
    for (size_t i = 0; i < plain.n; i++)
        assert_bytes(noisy.payload[i], noisy.len[i], plain.payload[i], plain.len[i]);
}

/* Sizes are log2 of the entry count, 0 meaning "not implemented": an option
 * whose table has size 0 changes no packet; a predictor of size s has 2^s
 * entries indexed by address bits s+lsb-1..lsb. */
static void test_sizes_are_log2(void **state) {
    (void)state;
    rvt_retire r[40];
    size_t n = 0;
    for (unsigned i = 0; i < 12; i++) { /* a loop: a taken branch back, then a return */
        r[n++] = insn(0x80000000, 0);
        r[n++] = insn(0x80000004, i < 11 ? RVT_ITYPE_BRANCH_TAKEN : RVT_ITYPE_BRANCH_NOT_TAKEN);
    }
    r[n++] = insn(0x80000008, RVT_ITYPE_RETURN);
    r[n++] = insn(0x80000100, 0);
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    collected off, on;
    encode_with(&p, &o, r, n, &off);
    o.branch_prediction = o.jump_target_cache = true; /* with bpred_size, cache_size 0 */
    encode_with(&p, &o, r, n, &on);
    assert_int_equal(on.n, off.n);
    for (size_t i = 0; i < off.n; i++)
        if (off.pkts[i].format != 3) /* (the support packet announces the options) */
            assert_bytes(on.payload[i], on.len[i], off.payload[i], off.len[i]);
    assert_int_equal(rvt_etrace_irdepth_width(&p), 0);

    uint8_t table[8];
    rvt_bpred_reset(table, 3);
    for (unsigned i = 0; i < 8; i++)
        assert_int_equal(table[i], 1);
    uint64_t a = 0x80000010;
    rvt_bpred_update(table, 3, 1, a, true);
    rvt_bpred_update(table, 3, 1, a, true);
    assert_true(rvt_bpred_predict(table, 3, 1, a));
    assert_true(rvt_bpred_predict(table, 3, 1, a + (8u << 1)));   /* the same entry */
    assert_false(rvt_bpred_predict(table, 3, 1, a + (1u << 1)));  /* the next one */
    assert_int_equal(rvt_jtc_index(3, 1, a), rvt_jtc_index(3, 1, a + 16));
    assert_int_not_equal(rvt_jtc_index(3, 1, a), rvt_jtc_index(3, 1, a + 2));
}

/* A parameter the .scf leaves out keeps its default, the same one the
 * decoder starts from. */
static void test_parameter_defaults(void **state) {
    (void)state;
    char path[] = "/tmp/rvt_etrace_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[Required Attributes]\nbpred_size_p=4\n", f);
    fclose(f);
    rvt_etrace_params got, want;
    rvt_etrace_options o;
    rvt_diag diag;
    assert_int_equal(rvt_etrace_load_config(path, NULL, &got, &o, &diag), 0);
    unlink(path);
    rvt_etrace_params_default(&want);
    want.bpred_size = 4;
    assert_memory_equal(&got, &want, sizeof want);
}

/* Code for the looplabel cases: 0x80000000 nop, 0x80000004 (looplabel)
 * nop, 0x80000008 jr t0 (back to looplabel). */
static bool fetch_loop(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr == 0x80000000 || addr == 0x80000004)
        rvt_decode(0x00000013, 64, out);
    else if (addr == 0x80000008)
        rvt_decode(0x00028067, 64, out); /* jalr x0, 0(t0) */
    else
        return false;
    return true;
}

/* qual_status at the end of qualification (support packet, decoder
 * chapter): ended_rep, the last packet's address is the last instruction
 * (looplabel's first execution); ended_upd (11), the packet was sent for
 * an uninferable jump anyway, so the trace ends at the next occurrence
 * (looplabel after the jump). trace_lost: the decoder waits for a sync and
 * goes on from its address, not from where the lost packets would have
 * led. */
static void test_qual_status_in_decoder(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    rvt_te_inst sync = {.format = 3, .subformat = 0, .branch = 1, .privilege = 3, .address = 0x80000000 >> 1};
    /* looplabel, no flags: notify = updiscon = irreport = the address MSB (0) */
    rvt_te_inst label = {.format = 2, .address = 4 >> 1};
    rvt_diag diag;
    for (unsigned status = 1; status <= 3; status += 2) {
        pc_list l = {0};
        rvt_etrace_decoder *d;
        assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_loop, keep_pc, &l), 0);
        rvt_te_inst end = {.format = 3, .subformat = 3, .ienable = 1, .qual_status = (uint8_t)status};
        assert_int_equal(rvt_etrace_decode(d, &sync, &diag), 0);
        assert_int_equal(rvt_etrace_decode(d, &label, &diag), 0);
        assert_int_equal(rvt_etrace_decode(d, &end, &diag), 0);
        rvt_etrace_decoder_free(d);
        if (status == 1) {
            assert_int_equal(l.n, 2);
        } else {
            assert_int_equal(l.n, 4);
            assert_int_equal(l.pc[2], 0x80000008);
            assert_int_equal(l.pc[3], 0x80000004);
        }
    }
    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_loop, keep_pc, &l), 0);
    rvt_te_inst lost = {.format = 3, .subformat = 3, .ienable = 1, .qual_status = 2};
    rvt_te_inst resumed = {.format = 3, .subformat = 0, .branch = 1, .privilege = 3, .address = 0x80000008 >> 1};
    assert_int_equal(rvt_etrace_decode(d, &sync, &diag), 0);
    assert_int_equal(rvt_etrace_decode(d, &lost, &diag), 0);
    assert_int_not_equal(rvt_etrace_decode(d, &label, &diag), 0); /* not a sync */
    rvt_etrace_decoder_resync(d);
    assert_int_equal(rvt_etrace_decode(d, &resumed, &diag), 0);
    rvt_etrace_decoder_free(d);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.pc[0], 0x80000000);
    assert_int_equal(l.pc[1], 0x80000008);
}

/* Code for the jump target cache: 0x80000000 jr t0, to A or B, each of
 * which jumps back (j 0x80000000). */
#define JTC_A 0x80000100u
#define JTC_B 0x800f0004u
/* jal x0 with byte offset `off` (imm[20|10:1|11|19:12]). */
static uint32_t jal_x0(int32_t off) {
    uint32_t u = (uint32_t)off;
    return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xff) << 12 |
           0x6f;
}

static bool fetch_two_targets(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr == 0x80000000)
        rvt_decode(0x00028067, 64, out); /* jalr x0, 0(t0) */
    else if (addr == JTC_A || addr == JTC_B)
        rvt_decode(jal_x0((int32_t)(0x80000000 - addr)), 64, out);
    else
        return false;
    return true;
}

/* Only the jump target cache in use and f0s_width_p 0: format 0 has no
 * subformat field and is subformat 1 (implied by the options). The table's
 * F0 SF1 without a map: format 00, index (C bits), branches 00000,
 * irreport, irdepth (D = 0 here). For B (index (B >> 1) & 3 = 2): bits
 * 00 10 00000 0, 0x08. Decoding gives back every address. */
static void test_jtc_without_subformat(void **state) {
    (void)state;
    rvt_retire r[16];
    size_t n = 0;
    for (unsigned i = 0; i < 5; i++) {
        r[n++] = insn(0x80000000, RVT_ITYPE_UNINFERABLE_TAIL);
        r[n++] = insn(i % 2 ? JTC_B : JTC_A, RVT_ITYPE_INFERABLE_TAIL);
    }
    r[n++] = insn(0x80000000, RVT_ITYPE_NONE);
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    p.cache_size = 2;
    p.f0s_width = 0;
    rvt_etrace_options_default(&o);
    o.jump_target_cache = true;
    collected c;
    encode_with(&p, &o, r, n, &c);
    size_t cached = 0;
    for (size_t i = 0; i < c.n; i++) {
        if (c.pkts[i].format != 0)
            continue;
        cached++;
        assert_int_equal(c.pkts[i].f0_subformat, 1);
        rvt_te_inst back;
        assert_int_equal(rvt_te_inst_unpack(&p, &o, c.payload[i], c.len[i], &back, NULL), 0);
        assert_int_equal(back.format, 0);
        assert_int_equal(back.f0_subformat, 1);
        assert_int_equal(back.index, c.pkts[i].index);
        if (c.pkts[i].index == 2) {
            static const uint8_t want[] = {0x08};
            assert_bytes(c.payload[i], c.len[i], want, sizeof want);
        }
    }
    assert_true(cached >= 2); /* the third jump on goes by index */

    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_two_targets, keep_pc, &l), 0);
    rvt_diag diag;
    for (size_t i = 0; i < c.n; i++) {
        rvt_te_inst back;
        assert_int_equal(rvt_te_inst_unpack(&p, &o, c.payload[i], c.len[i], &back, &diag), 0);
        if (rvt_etrace_decode(d, &back, &diag) != 0)
            fail_msg("packet %zu: %s", i, diag.msg);
    }
    rvt_etrace_decoder_free(d);
    assert_int_equal(l.n, n);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(l.pc[i], r[i].iaddr);

    /* with the predictor on as well, format 0 counts branches: no cache */
    p.bpred_size = 2;
    o.branch_prediction = true;
    encode_with(&p, &o, r, n, &c);
    for (size_t i = 0; i < c.n; i++)
        assert_false(c.pkts[i].format == 0 && c.pkts[i].f0_subformat == 1);
}

/* A recursive function for the depth before a trap: 0x80000000 calls REC
 * with a0 = 2; REC: beqz a0, +12; addi a0, a0, -1; jal ra, REC; nop; ret.
 * The handler is at HANDLER2. */
#define REC 0x80001000u
#define HANDLER2 0x80002000u
static bool fetch_recursive(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    static const uint32_t rec[] = {0x00050663, 0xfff50513, 0xff9ff0ef, 0x00000013, 0x00008067};
    if (addr == 0x80000000)
        rvt_decode(jal_x0(REC - 0x80000000) | 1u << 7, 64, out); /* jal ra, REC */
    else if (addr >= REC && addr < REC + sizeof rec && addr % 4 == 0)
        rvt_decode(rec[(addr - REC) / 4], 64, out);
    else if (addr >= HANDLER2 && addr < HANDLER2 + 16)
        rvt_decode(0x00000013, 64, out);
    else
        return false;
    return true;
}

/* The last instruction before a trap follows a return the stack predicted,
 * in a recursion: the nop at REC + 12, which ran at depth 3 (reached by the
 * taken branch) and again at depth 2 (the return's target), where the ret
 * after it faults. The packet reporting it must carry the depth (irreport
 * unlike updiscon, irdepth 2: the 1.0 payload chapter's first case), or the
 * decoder stops at the first occurrence, as the branches run out there. */
static void test_depth_before_trap(void **state) {
    (void)state;
    static const struct {
        uint32_t addr;
        unsigned itype;
    } ran[] = {
        {0x80000000, RVT_ITYPE_INFERABLE_CALL}, {REC, RVT_ITYPE_BRANCH_NOT_TAKEN}, {REC + 4, 0},
        {REC + 8, RVT_ITYPE_INFERABLE_CALL},    {REC, RVT_ITYPE_BRANCH_NOT_TAKEN}, {REC + 4, 0},
        {REC + 8, RVT_ITYPE_INFERABLE_CALL},    {REC, RVT_ITYPE_BRANCH_TAKEN},     {REC + 12, 0},
        {REC + 16, RVT_ITYPE_RETURN},           {REC + 12, 0},                     {HANDLER2, 0},
        {HANDLER2 + 4, 0},                      {HANDLER2 + 8, 0},
    };
    enum { N = sizeof ran / sizeof ran[0] };
    rvt_retire r[N + 1];
    size_t n = 0;
    for (unsigned i = 0; i < N; i++) {
        if (ran[i].addr == HANDLER2) /* the ret at REC + 16 cannot be fetched */
            r[n++] = (rvt_retire){.iaddr = REC + 16, .itype = RVT_ITYPE_EXCEPTION, .cause = 1, .priv = 3};
        r[n++] = insn(ran[i].addr, ran[i].itype);
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    p.return_stack_size = 2; /* 4 entries: irdepth of 2 + 1 bits */
    rvt_etrace_options_default(&o);
    o.implicit_return = true;
    collected c;
    encode_with(&p, &o, r, n, &c);
    size_t trap = 0;
    for (size_t i = 0; i < c.n; i++)
        if (c.pkts[i].format == 3 && c.pkts[i].subformat == 1)
            trap = i;
    assert_true(trap > 1);
    const rvt_te_inst *before = &c.pkts[trap - 1];
    assert_true(before->format == 1 || before->format == 2);
    assert_int_equal(before->address, (REC + 12 - 0x80000000) >> 1); /* from the sync's address */
    assert_int_not_equal(before->irreport, before->updiscon);
    assert_int_equal(before->irdepth, 2);

    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, &p, &o, 64, fetch_recursive, keep_pc, &l), 0);
    rvt_diag diag;
    for (size_t i = 0; i < c.n; i++) {
        rvt_te_inst back;
        assert_int_equal(rvt_te_inst_unpack(&p, &o, c.payload[i], c.len[i], &back, &diag), 0);
        if (rvt_etrace_decode(d, &back, &diag) != 0)
            fail_msg("packet %zu: %s", i, diag.msg);
    }
    rvt_etrace_decoder_free(d);
    assert_int_equal(l.n, N);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(l.pc[i], ran[i].addr);
}

/* Discovery in the example register map (1.0 parameters chapter, ET-217
 * and ET-218), for the reference flow's call-stack configuration: each
 * field put where the map says, with the (p - 1) mappings of the attribute
 * tables. */
static void test_discovery_registers(void **state) {
    (void)state;
    const char *shared = getenv("RVT_SHARED");
    char path[4096];
    snprintf(path, sizeof path, "%s/golden/etrace/itype4_call_stack/hw64.scf", shared ? shared : "../shared");
    rvt_etrace_params p;
    rvt_diag diag;
    rvt_etrace_params_default(&p);
    if (rvt_etrace_load_scf(path, &p, &diag) != 0)
        fail_msg("%s", diag.msg);
    uint64_t info[2];
    assert_int_equal(rvt_etrace_discovery_pack(&p, info, &diag), 0);
    uint64_t want0 = 0ull << 8            /* arch 0 */
                     | 7ull << 23         /* comparators: 8 */
                     | (2ull - 1) << 26   /* ctype_width_p 2 */
                     | (32ull - 1) << 31  /* context_width_p 32 */
                     | 6ull << 36         /* ecause_choice */
                     | (5ull - 1) << 39   /* ecause_width_p 5 */
                     | 3ull << 43         /* filters: 4 */
                     | 1ull << 48         /* filter_excint */
                     | 1ull << 52         /* filter_privilege */
                     | (1ull - 1) << 57;  /* iaddress_lsb_p 1 */
    uint64_t want1 = (64ull - 1)          /* iaddress_width_p 64 */
                     | (1ull - 1) << 7    /* ilastsize_width_p 1 */
                     | (4ull - 1) << 14   /* itype_width_p 4 */
                     | (3ull - 1) << 21   /* iretire_width_p 3 */
                     | 0ull << 28         /* nocontext_p 0 */
                     | (2ull - 1) << 29   /* privilege_width_p 2 */
                     | (1ull - 1) << 31   /* retires_p 1 */
                     | (1ull - 1) << 39   /* taken_branches_p 1 */
                     | (1ull - 1) << 43;  /* impdef_width_p 1 */
    assert_int_equal(info[0], want0);
    assert_int_equal(info[1], want1);
    rvt_etrace_params back = p;
    assert_int_equal(rvt_etrace_discovery_unpack(info, &back, &diag), 0);
    assert_memory_equal(&back, &p, sizeof p);

    /* a stack and a counter, sijump, no context */
    p.return_stack_size = 9;
    p.call_counter_size = 5;
    p.sijump = p.nocontext = true;
    p.bpred_size = 10;
    assert_int_equal(rvt_etrace_discovery_pack(&p, info, &diag), 0);
    assert_int_equal(info[1] >> 34 & 15, 9);
    assert_int_equal(info[0] >> 20 & 7, 5);
    assert_int_equal(info[1] >> 38 & 1, 1);
    assert_int_equal(info[1] >> 28 & 1, 1);
    assert_int_equal(info[0] >> 12 & 15, 10);
    back = p;
    assert_int_equal(rvt_etrace_discovery_unpack(info, &back, &diag), 0);
    assert_memory_equal(&back, &p, sizeof p);

    /* what the fields cannot hold */
    p.ecause_width = 17; /* 4 bits of ecause_width_p - 1 */
    assert_int_not_equal(rvt_etrace_discovery_pack(&p, info, &diag), 0);
    assert_non_null(strstr(diag.msg, "ecause_width"));
    p.ecause_width = 5;
    p.context_width = 0;
    assert_int_not_equal(rvt_etrace_discovery_pack(&p, info, &diag), 0);
    assert_non_null(strstr(diag.msg, "context_width"));
    uint64_t odd[2] = {1, 0}; /* version 1 */
    assert_int_not_equal(rvt_etrace_discovery_unpack(odd, &back, &diag), 0);
    uint64_t high[2] = {0, 1ull << 50};
    assert_int_not_equal(rvt_etrace_discovery_unpack(high, &back, &diag), 0);
}

/* The attribute defaults (required and other recommended tables) as
 * parameters: 1.0, and the 2.0 changes (nocontext 1, notime 1, time_width
 * 0, privilege_width 1, ctype_width 0, itype_width 3, iretire_width 1). */
static void test_discovery_defaults(void **state) {
    (void)state;
    rvt_etrace_params p;
    rvt_etrace_params_spec_default(&p, false);
    assert_int_equal(p.arch, 0);
    assert_int_equal(p.bpred_size + p.cache_size + p.call_counter_size + p.return_stack_size + p.f0s_width, 0);
    assert_int_equal(p.context_width, 1);
    assert_int_equal(p.ecause_width, 4);
    assert_int_equal(p.iaddress_lsb, 1);
    assert_int_equal(p.iaddress_width, 32);
    assert_false(p.nocontext);
    assert_false(p.sijump);
    assert_int_equal(p.privilege_width, 3);
    assert_int_equal(p.ctype_width, 2);
    assert_int_equal(p.ilastsize_width, 1);
    assert_int_equal(p.itype_width, 4); /* ?A-6 */
    assert_int_equal(p.iretire_width, 3);
    assert_int_equal(p.retires, 1);
    assert_int_equal(p.taken_branches, 1);
    assert_int_equal(p.impdef_width, 1);
    rvt_etrace_params_spec_default(&p, true);
    assert_true(p.nocontext);
    assert_true(p.notime);
    assert_int_equal(p.time_width, 1);
    assert_int_equal(p.privilege_width, 2);
    assert_int_equal(p.ctype_width, 1);
    assert_int_equal(p.itype_width, 4);
    assert_int_equal(p.iretire_width, 2);
    assert_int_equal(p.iaddress_width, 32);
}

/* Code of nops at 0x80000000 and at 0x80000100. */
static bool fetch_two_places(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if ((addr >= 0x80000000 && addr < 0x80000020) || (addr >= 0x80000100 && addr < 0x80000120)) {
        rvt_decode(0x00000013, 64, out);
        return true;
    }
    return false;
}

static void decode_and_compare(const rvt_etrace_params *p, const rvt_etrace_options *o, const collected *c,
                               rvt_code_fetch fetch, const rvt_retire *r, size_t n) {
    pc_list l = {0};
    rvt_etrace_decoder *d;
    assert_int_equal(rvt_etrace_decoder_new(&d, p, o, 64, fetch, keep_pc, &l), 0);
    rvt_diag diag;
    for (size_t i = 0; i < c->n; i++) {
        rvt_te_inst back;
        assert_int_equal(rvt_te_inst_unpack(p, o, c->payload[i], c->len[i], &back, &diag), 0);
        if (rvt_etrace_decode(d, &back, &diag) != 0)
            fail_msg("packet %zu: %s", i, diag.msg);
    }
    rvt_etrace_decoder_free(d);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].ninsns) {
            assert_true(k < l.n);
            assert_int_equal(l.pc[k++], r[i].iaddr);
        }
    assert_int_equal(l.n, k);
}

/* ctype 3 (an asynchronous discontinuity, a change of hart say): treated as
 * an exception would be, the last instruction of the old context and the
 * first of the new one are both reported, the first with a sync carrying
 * the new context (2.0's algorithm: ppccd). The decoder starts afresh there
 * rather than looking for a way from the old context's code. */
static void test_context_discontinuity(void **state) {
    (void)state;
    rvt_retire r[8];
    for (unsigned i = 0; i < 4; i++)
        r[i] = insn(0x80000000 + 4 * i, RVT_ITYPE_NONE);
    for (unsigned i = 4; i < 8; i++) {
        r[i] = insn(0x80000100 + 4 * (i - 4), RVT_ITYPE_NONE);
        r[i].context = 0x77;
    }
    r[4].ctype = 3;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    collected c;
    encode_with(&p, &o, r, 8, &c);
    /* support, sync, the old context's last, sync in the new one, the end */
    assert_int_equal(c.n, 6);
    assert_int_equal(c.pkts[2].format, 2);
    assert_int_equal(c.pkts[2].address, 12 >> 1);
    assert_int_equal(c.pkts[3].format, 3);
    assert_int_equal(c.pkts[3].subformat, 0);
    assert_int_equal(c.pkts[3].address, 0x80000100 >> 1);
    assert_int_equal(c.pkts[3].context, 0x77);
    decode_and_compare(&p, &o, &c, fetch_two_places, r, 8);

    /* ctype 2 on the way: the decoder walks to the sync */
    for (unsigned i = 4; i < 8; i++)
        r[i].iaddr = 0x80000000 + 4 * i;
    r[4].ctype = 2;
    encode_with(&p, &o, r, 8, &c);
    assert_int_equal(c.n, 5); /* support, sync, sync with the context, the end */
    decode_and_compare(&p, &o, &c, fetch_two_places, r, 8);
}

/* trigger[2:0] (1.0 ingress chapter): a pulse on bit 0 starts tracing, on
 * bit 1 stops it after the instruction, on bit 2 asks for the block's last
 * instruction to be reported (notify = !address MSB). One window by
 * triggers gives the packets the start and stop addresses give. */
static void test_trigger_input(void **state) {
    (void)state;
    rvt_retire r[10];
    for (unsigned i = 0; i < 10; i++)
        r[i] = insn(0x80000000 + 4 * i, RVT_ITYPE_NONE);
    r[2].trigger = RVT_TRIGGER_ON;
    r[5].trigger = RVT_TRIGGER_OFF;
    r[7].trigger = RVT_TRIGGER_ON;
    r[8].trigger = RVT_TRIGGER_NOTIFY;
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    o.filter.triggers = true;
    collected c;
    encode_with(&p, &o, r, 10, &c);
    assert_int_equal(c.n, 8);
    assert_int_equal(c.pkts[1].format, 3);
    assert_int_equal(c.pkts[1].address, 0x80000008 >> 1);
    assert_int_equal(c.pkts[2].format, 2); /* the last traced before trace-off */
    assert_int_equal(c.pkts[2].address, 12 >> 1);
    assert_int_equal(c.pkts[3].subformat, 3);
    assert_int_equal(c.pkts[3].qual_status, 1); /* ended_rep */
    assert_int_equal(c.pkts[4].format, 3);
    assert_int_equal(c.pkts[4].subformat, 0);
    assert_int_equal(c.pkts[4].address, 0x8000001c >> 1);
    assert_int_equal(c.pkts[5].format, 2);
    assert_int_equal(c.pkts[5].address, 4 >> 1);
    assert_int_not_equal(c.pkts[5].notify, 0); /* the address MSB is 0 */
    assert_int_equal(c.pkts[6].format, 2);
    assert_int_equal(c.pkts[6].notify, 0);

    /* the same window by addresses */
    for (unsigned i = 0; i < 10; i++)
        r[i].trigger = 0;
    r[2].trigger = RVT_TRIGGER_ON;
    r[5].trigger = RVT_TRIGGER_OFF;
    collected by_addr;
    encode_with(&p, &o, r, 7, &c);
    o.filter.triggers = false;
    o.filter.use_start = o.filter.use_stop = true;
    o.filter.start_addr = r[2].iaddr;
    o.filter.stop_addr = r[5].iaddr;
    encode_with(&p, &o, r, 7, &by_addr);
    assert_int_equal(c.n, by_addr.n);
    for (size_t i = 0; i < c.n; i++)
        assert_bytes(c.payload[i], c.len[i], by_addr.payload[i], by_addr.len[i]);

    /* the encoder input's trigger column; a value past the three bits is refused */
    char path[] = "/tmp/rvt_etrace_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("itype_0,priv,iaddr_0,iretire_0,ilastsize_0,trigger\n0,3,80000000,1,1,4\n0,3,80000004,1,1,9\n", f);
    fclose(f);
    rvt_retire_reader *rd;
    rvt_diag diag;
    assert_int_equal(rvt_retire_reader_open(&rd, path, RVT_FMT_ENCODER_INPUT, 64, &diag), 0);
    rvt_retire out[4];
    long k = rvt_retire_reader_read(rd, out, 1, &diag);
    assert_int_equal(k, 1);
    assert_int_equal(out[0].trigger, RVT_TRIGGER_NOTIFY);
    while ((k = rvt_retire_reader_read(rd, out, 4, &diag)) > 0)
        ;
    rvt_retire_reader_close(rd);
    unlink(path);
    assert_true(k < 0);
    assert_non_null(strstr(diag.msg, "line 3"));

    /* records with triggers keep them through the packed form */
    rvt_retire_packed slots[RVT_PACKED_MAX_SLOTS];
    rvt_packed_state ps = {0}, us = {0};
    rvt_retire one = insn(0x80000000, 0), back;
    one.trigger = RVT_TRIGGER_OFF | RVT_TRIGGER_NOTIFY;
    size_t used = rvt_retire_pack(&one, slots, &ps);
    size_t consumed = 0;
    assert_int_equal(rvt_retire_unpack(slots, used, &back, 1, &consumed, &us), 1);
    assert_int_equal(back.trigger, RVT_TRIGGER_OFF | RVT_TRIGGER_NOTIFY);
    assert_int_equal(back.iaddr, 0x80000000);
}

/* Memory in blocks (1.0 payload chapter, the alternative to zero runs):
 * packets never span a block boundary, zeros fill each block's end, every
 * block starts with a packet, and a reader realigns at the next block
 * after damage. */
static void test_memory_blocks(void **state) {
    (void)state;
    enum { BLOCK = 40 };
    rvt_retire r[200];
    size_t n = 0;
    for (unsigned i = 0; i < 100; i++) { /* a packet per return, addresses of varying length */
        r[n++] = insn(0x80000000 + 0x1234u * i * i, 0);
        r[n++] = insn(0x80000004 + 0x1234u * i * i, RVT_ITYPE_RETURN);
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    spec_params(&p);
    rvt_etrace_options_default(&o);
    static collected c;
    encode_with(&p, &o, r, n, &c);
    assert_true(c.n > 50);
    FILE *f = tmpfile();
    assert_non_null(f);
    rvt_te_transport t = {.index_bytes = 1, .timestamps = true, .block_size = BLOCK};
    rvt_te_encap_writer w = {f, t, 0, 0};
    for (size_t i = 0; i < c.n; i++)
        assert_int_equal(rvt_te_encap_write(&w, c.payload[i], c.len[i], i), 0);
    long size = ftell(f);
    assert_true(size > 3 * BLOCK);
    uint8_t *data = calloc((size_t)size + 64, 1);
    rewind(f);
    assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
    fclose(f);

    rvt_te_raw_cursor cur = {.data = data, .size = (size_t)size, .t = &t};
    rvt_te_inst pkt;
    size_t at, i = 0;
    unsigned block_starts = 0;
    rvt_diag diag;
    int rc;
    while ((rc = rvt_te_raw_next(&cur, &p, &o, &pkt, &at, &diag)) == 1) {
        assert_true(i < c.n);
        size_t end = cur.pos; /* one past the frame */
        assert_int_equal(at / BLOCK, (end - 1) / BLOCK); /* within one block */
        block_starts += at % BLOCK == 0;
        assert_int_equal(pkt.format, c.pkts[i].format);
        assert_int_equal(pkt.address, c.pkts[i].address);
        i++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(i, c.n);
    assert_int_equal(block_starts, ((size_t)size + BLOCK - 1) / BLOCK);
    for (long b = BLOCK; b < size; b += BLOCK)
        assert_int_not_equal(data[b], 0); /* a header at every block start */

    /* damage the header at the start of block 1: the reader goes on at block 2 */
    data[BLOCK] = 0x7f;
    rvt_te_raw_cursor dam = {.data = data, .size = (size_t)size, .t = &t};
    size_t first_after = 0;
    bool seen_error = false;
    while ((rc = rvt_te_raw_next(&dam, &p, &o, &pkt, &at, &diag)) != 0) {
        if (rc < 0) {
            seen_error = true;
            rvt_te_raw_resync(&dam);
            assert_int_equal(dam.pos, 2 * BLOCK);
            continue;
        }
        if (seen_error && !first_after)
            first_after = at;
    }
    assert_true(seen_error);
    assert_int_equal(first_after, 2 * BLOCK);
    free(data);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_context_packet_layout),
        cmocka_unit_test(test_context_imprecise),
        cmocka_unit_test(test_context_precise),
        cmocka_unit_test(test_empty_blocks_ignored),
        cmocka_unit_test(test_trace_starts_with_sync),
        cmocka_unit_test(test_v1_implicit_exception),
        cmocka_unit_test(test_table_3_8_blocks),
        cmocka_unit_test(test_example_5),
        cmocka_unit_test(test_itype_7_refused),
        cmocka_unit_test(test_implicit_return_needs_4_bit_itype),
        cmocka_unit_test(test_cause_ignored_elsewhere),
        cmocka_unit_test(test_sizes_are_log2),
        cmocka_unit_test(test_parameter_defaults),
        cmocka_unit_test(test_qual_status_in_decoder),
        cmocka_unit_test(test_jtc_without_subformat),
        cmocka_unit_test(test_depth_before_trap),
        cmocka_unit_test(test_discovery_registers),
        cmocka_unit_test(test_discovery_defaults),
        cmocka_unit_test(test_context_discontinuity),
        cmocka_unit_test(test_trigger_input),
        cmocka_unit_test(test_memory_blocks),
    };
    return cmocka_run_group_tests_name("etrace_spec", tests, NULL, NULL);
}
