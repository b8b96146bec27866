/* Unit tests of the isa module: field extraction, the E-Trace jump
 * classification rules row by row, every itype value, sequentially inferable
 * pairs and disassembly of encodings whose objdump text is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/isa.h"

/* Encoders written from the instruction formats of the unprivileged spec. */
static uint32_t enc_i(unsigned opc, unsigned f3, unsigned rd, unsigned rs1, int imm) {
    return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}
static uint32_t enc_jal(unsigned rd, int imm) {
    uint32_t u = (uint32_t)imm;
    return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 |
           ((u >> 12) & 0xff) << 12 | rd << 7 | 0x6f;
}
static uint32_t enc_jalr(unsigned rd, unsigned rs1, int imm) { return enc_i(0x67, 0, rd, rs1, imm); }
static uint32_t enc_branch(unsigned f3, unsigned rs1, unsigned rs2, int imm) {
    uint32_t u = (uint32_t)imm;
    return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
           ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}
static uint32_t c_jr(unsigned rs1) { return 0x8002 | rs1 << 7; }
static uint32_t c_jalr(unsigned rs1) { return 0x9002 | rs1 << 7; }
static uint32_t c_j(int imm) {
    uint32_t u = (uint32_t)imm;
    return 0xa001 | ((u >> 11) & 1) << 12 | ((u >> 4) & 1) << 11 | ((u >> 8) & 3) << 9 |
           ((u >> 10) & 1) << 8 | ((u >> 6) & 1) << 7 | ((u >> 7) & 1) << 6 | ((u >> 1) & 7) << 3 |
           ((u >> 5) & 1) << 2;
}
static uint32_t c_jal(int imm) { return c_j(imm) & ~0x8000u; } /* funct3 001 on RV32 */

static rvt_insn dec(uint32_t w, unsigned xlen) {
    rvt_insn in;
    rvt_decode(w, xlen, &in);
    return in;
}

static void test_lengths(void **state) {
    (void)state;
    assert_int_equal(rvt_insn_length(0x0001), 2);
    assert_int_equal(rvt_insn_length(0x0013), 4);
    assert_int_equal(rvt_insn_length(0x001f), 6);
    assert_int_equal(rvt_insn_length(0x003f), 8);
    assert_int_equal(rvt_insn_length(0x007f), 10);
    assert_int_equal(rvt_insn_length(0x107f), 12);
}

static void test_immediates(void **state) {
    (void)state;
    rvt_insn in = dec(enc_jal(1, -2048), 64);
    assert_int_equal(in.op, RVT_OP_JAL);
    assert_int_equal(in.imm, -2048);
    in = dec(enc_jal(0, 0xffffe), 64);
    assert_int_equal(in.imm, 0xffffe);
    in = dec(enc_branch(1, 5, 6, -4096), 32);
    assert_int_equal(in.op, RVT_OP_BNE);
    assert_int_equal(in.imm, -4096);
    assert_int_equal(in.rs1, 5);
    assert_int_equal(in.rs2, 6);
    in = dec(0xfff0a083, 64); /* lw ra,-1(ra) */
    assert_int_equal(in.op, RVT_OP_LW);
    assert_int_equal(in.imm, -1);
    in = dec(0xfe112e23, 64); /* sw ra,-4(sp) */
    assert_int_equal(in.op, RVT_OP_SW);
    assert_int_equal(in.imm, -4);
    assert_int_equal(in.rs2, 1);
    in = dec(0x800007b7, 64); /* lui a5,0x80000 sign-extends on RV64 */
    assert_int_equal(in.imm, (int64_t)INT32_MIN);
    in = dec(c_j(-2048), 32);
    assert_int_equal(in.cop, RVT_OP_C_J);
    assert_int_equal(in.imm, -2048);
    in = dec(c_j(1022), 64);
    assert_int_equal(in.imm, 1022);
    in = dec(0x1141, 64); /* c.addi sp,-16 */
    assert_int_equal(in.op, RVT_OP_ADDI);
    assert_int_equal(in.imm, -16);
    in = dec(0x7179, 64); /* c.addi16sp sp,-48 */
    assert_int_equal(in.cop, RVT_OP_C_ADDI16SP);
    assert_int_equal(in.imm, -48);
    in = dec(0xfa06, 64); /* c.sdsp ra,312(sp) */
    assert_int_equal(in.cop, RVT_OP_C_SDSP);
    assert_int_equal(in.imm, 304);
}

static void test_xlen_specific(void **state) {
    (void)state;
    assert_int_equal(dec(0x2081, 64).cop, RVT_OP_C_ADDIW);
    assert_int_equal(dec(0x2081, 32).cop, RVT_OP_C_JAL);
    assert_int_equal(dec(0x6108, 64).cop, RVT_OP_C_LD);
    assert_int_equal(dec(0x6108, 32).cop, RVT_OP_C_FLW);
    assert_int_equal(dec(0x0005b503, 32).op, RVT_OP_ILLEGAL); /* ld on RV32 */
    assert_int_equal(dec(0x0005b503, 64).op, RVT_OP_LD);
    assert_int_equal(dec(0x02051513, 32).op, RVT_OP_ILLEGAL); /* slli by 32 */
    assert_int_equal(dec(0x02051513, 64).op, RVT_OP_SLLI);
}

static void test_illegal(void **state) {
    (void)state;
    assert_int_equal(dec(0x0000, 64).op, RVT_OP_ILLEGAL);
    assert_int_equal(dec(0x0000, 64).cop, RVT_OP_C_UNIMP);
    assert_int_equal(dec(0xffffffff, 64).op, RVT_OP_ILLEGAL);
    assert_int_equal(dec(0x6001, 64).op, RVT_OP_ILLEGAL); /* c.lui with zero immediate */
    assert_int_equal(dec(0x8002, 64).op, RVT_OP_ILLEGAL); /* c.jr x0 */
    assert_int_equal(dec(0x00001067, 64).op, RVT_OP_ILLEGAL); /* jalr with funct3 1 */
}

struct jump_row {
    const char *what;
    uint32_t word;
    unsigned xlen;
    unsigned jclass;
    unsigned itype_etrace, itype_ntrace;
};

/* One row per line of the E-Trace "Jump classification" list. */
static void test_jump_classification(void **state) {
    (void)state;
    const struct jump_row rows[] = {
        {"jal x1", enc_jal(1, 16), 64, RVT_JUMP_CALL, 9, 9},
        {"jal x5", enc_jal(5, 16), 64, RVT_JUMP_CALL, 9, 9},
        {"jalr x1, rs (rs != x5)", enc_jalr(1, 10, 0), 64, RVT_JUMP_CALL, 8, 8},
        {"jalr x1, x1", enc_jalr(1, 1, 0), 64, RVT_JUMP_CALL, 8, 8},
        {"jalr x5, rs (rs != x1)", enc_jalr(5, 6, 0), 64, RVT_JUMP_CALL, 8, 8},
        {"c.jalr rs1 (rs1 != x5)", c_jalr(10), 64, RVT_JUMP_CALL, 8, 8},
        {"c.jal", c_jal(64), 32, RVT_JUMP_CALL, 9, 9},
        {"jal x0", enc_jal(0, -8), 64, RVT_JUMP_TAIL, 11, 15},
        {"c.j", c_j(-8), 64, RVT_JUMP_TAIL, 11, 15},
        {"jalr x0, rs (rs != x1, x5)", enc_jalr(0, 7, 4), 64, RVT_JUMP_TAIL, 10, 14},
        {"c.jr rs1 (rs1 != x1, x5)", c_jr(15), 64, RVT_JUMP_TAIL, 10, 14},
        {"jalr rd, x1 (rd not link)", enc_jalr(0, 1, 0), 64, RVT_JUMP_RETURN, 13, 13},
        {"jalr rd, x5 (rd not link)", enc_jalr(10, 5, 0), 64, RVT_JUMP_RETURN, 13, 13},
        {"c.jr x1", c_jr(1), 64, RVT_JUMP_RETURN, 13, 13},
        {"c.jr x5", c_jr(5), 64, RVT_JUMP_RETURN, 13, 13},
        {"jalr x1, x5", enc_jalr(1, 5, 0), 64, RVT_JUMP_SWAP, 12, 12},
        {"jalr x5, x1", enc_jalr(5, 1, 0), 64, RVT_JUMP_SWAP, 12, 12},
        {"c.jalr x5", c_jalr(5), 64, RVT_JUMP_SWAP, 12, 12},
        {"jal rd (rd not link, not x0)", enc_jal(10, 8), 64, RVT_JUMP_OTHER, 15, 15},
        {"jalr rd, rs (neither link, rd != x0)", enc_jalr(10, 11, 0), 64, RVT_JUMP_OTHER, 14, 14},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rvt_insn in = dec(rows[i].word, rows[i].xlen);
        if (in.jclass != rows[i].jclass || rvt_itype(&in, false, 4, false) != rows[i].itype_etrace ||
            rvt_itype(&in, false, 4, true) != rows[i].itype_ntrace)
            fail_msg("row '%s': class %u itype %u/%u", rows[i].what, in.jclass,
                     rvt_itype(&in, false, 4, false), rvt_itype(&in, false, 4, true));
        /* With a 3-bit itype only uninferable jumps are reported (6). */
        unsigned narrow = rvt_itype(&in, false, 3, false);
        assert_int_equal(narrow, in.cf == RVT_CF_JALR ? 6 : 0);
    }
}

static void test_every_itype(void **state) {
    (void)state;
    rvt_insn add = dec(0x00b50533, 64), ecall = dec(0x00000073, 64), ebreak = dec(0x9002, 64);
    rvt_insn mret = dec(0x30200073, 64), sret = dec(0x10200073, 64), uret = dec(0x00200073, 64);
    rvt_insn beq = dec(enc_branch(0, 1, 2, 8), 64);
    assert_int_equal(rvt_itype(&add, false, 4, false), 0);
    assert_int_equal(rvt_itype(&ecall, false, 4, false), 1);
    assert_int_equal(rvt_itype(&ebreak, false, 4, false), 1);
    assert_int_equal(rvt_itype_trap(false), 1);
    assert_int_equal(rvt_itype_trap(true), 2);
    assert_int_equal(rvt_itype(&mret, false, 4, false), 3);
    assert_int_equal(rvt_itype(&sret, false, 3, false), 3);
    assert_int_equal(rvt_itype(&uret, false, 3, false), 3);
    assert_int_equal(rvt_itype(&beq, false, 3, false), 4);
    assert_int_equal(rvt_itype(&beq, true, 3, false), 5);
    rvt_insn jalr = dec(enc_jalr(0, 7, 0), 64);
    assert_int_equal(rvt_itype(&jalr, false, 3, false), 6);
    /* 8..15 are covered row by row above; check the enum carries the spec numbers. */
    assert_int_equal(RVT_ITYPE_UNINFERABLE_CALL, 8);
    assert_int_equal(RVT_ITYPE_INFERABLE_CALL, 9);
    assert_int_equal(RVT_ITYPE_UNINFERABLE_TAIL, 10);
    assert_int_equal(RVT_ITYPE_INFERABLE_TAIL, 11);
    assert_int_equal(RVT_ITYPE_SWAP, 12);
    assert_int_equal(RVT_ITYPE_RETURN, 13);
    assert_int_equal(RVT_ITYPE_OTHER_UNINFERABLE, 14);
    assert_int_equal(RVT_ITYPE_OTHER_INFERABLE, 15);
}

static void test_seq_inferable(void **state) {
    (void)state;
    uint64_t t = 0;
    rvt_insn auipc = dec(0x00000297, 64);         /* auipc t0,0x0 */
    rvt_insn jr = dec(c_jr(5), 64);              /* c.jr t0 */
    rvt_insn jalr = dec(enc_jalr(1, 5, 40), 64); /* jalr ra,40(t0) */
    assert_true(rvt_seq_inferable_target(&auipc, 0x80000000, &jalr, 64, &t));
    assert_int_equal(t, 0x80000028);
    assert_true(rvt_seq_inferable_target(&auipc, 0x80000000, &jr, 64, &t));
    assert_int_equal(t, 0x80000000);
    rvt_insn lui = dec(0x800002b7, 32); /* lui t0,0x80000 */
    assert_true(rvt_seq_inferable_target(&lui, 0, &jalr, 32, &t));
    assert_int_equal(t, 0x80000028);
    rvt_insn clui = dec(0x72fd, 64); /* c.lui t0,0xfffff */
    assert_true(rvt_seq_inferable_target(&clui, 0, &jr, 64, &t));
    assert_int_equal(t, 0xfffffffffffff000ull);
    rvt_insn other = dec(enc_jalr(1, 6, 0), 64); /* through t1, not t0 */
    assert_false(rvt_seq_inferable_target(&auipc, 0, &other, 64, &t));
    rvt_insn add = dec(0x00b50533, 64);
    assert_false(rvt_seq_inferable_target(&add, 0, &jr, 64, &t));
}

static void check_text(uint32_t w, unsigned xlen, unsigned flags, uint64_t pc, const char *want) {
    rvt_disasm_ctx ctx;
    rvt_disasm_init(&ctx, xlen, flags);
    rvt_insn in = dec(w, xlen);
    uint8_t b[4] = {(uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
    char buf[128];
    rvt_disasm(&ctx, &in, b, pc, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* Expected strings are lines of the corpus objdump listings. */
static void test_disasm_text(void **state) {
    (void)state;
    check_text(0x00000297, 64, 0, 0x80000040, "auipc\tt0,0x0");
    check_text(0x8282, 64, 0, 0, "jr\tt0");
    check_text(0x9282, 64, RVT_DIS_NO_ALIASES, 0, "c.jalr\tt0");
    check_text(0x3a029073, 64, 0, 0, "csrw\tpmpcfg0,t0");
    check_text(0x0010029b, 64, 0, 0, "addw\tt0,zero,1");
    check_text(0x1282, 64, 0, 0, "sll\tt0,t0,0x20");
    check_text(0xfe029ce3, 64, 0, 0x800000d4, "bnez\tt0,800000cc");
    check_text(0x0080006f, 32, RVT_DIS_NO_ALIASES, 0x2001001c, "jal\tzero,20010024");
    check_text(0x00008067, 32, RVT_DIS_NO_ALIASES, 0, "jalr\tzero,0(ra)");
    check_text(0x04c6a72f, 64, 0, 0, "amoadd.w.aq\ta4,a2,(a3)");
    check_text(0x00301073, 64, 0, 0, "fscsr\tzero");
    check_text(0x0000, 64, 0, 0, "unimp");
    check_text(0x0000, 64, RVT_DIS_NO_ALIASES, 0, "c.unimp");
    check_text(0xffffffff, 64, 0, 0, ".2byte\t0xffff");
}

/* objdump carries a lui/auipc value into the next address computation. */
static void test_address_comment(void **state) {
    (void)state;
    rvt_disasm_ctx ctx;
    rvt_disasm_init(&ctx, 32, 0);
    char buf[128];
    rvt_insn lui = dec(0x200126b7, 32), lw = dec(0x9906a703, 32);
    rvt_disasm(&ctx, &lui, NULL, 0x20010038, buf, sizeof buf);
    assert_string_equal(buf, "lui\ta3,0x20012");
    rvt_disasm(&ctx, &lw, NULL, 0x2001003c, buf, sizeof buf);
    assert_string_equal(buf, "lw\ta4,-1648(a3) # 20011990");
    rvt_disasm(&ctx, &lw, NULL, 0x2001006c, buf, sizeof buf); /* consumed by the first use */
    assert_string_equal(buf, "lw\ta4,-1648(a3)");
}

/* A caller that keeps instruction texts (the trace listing) gets the same
 * lines as rvt_disasm: the comment from the register state apart. */
static void test_split_note(void **state) {
    (void)state;
    rvt_disasm_ctx whole, kept;
    rvt_disasm_init(&whole, 32, 0);
    rvt_disasm_init(&kept, 32, 0);
    whole.has_gp = kept.has_gp = true;
    whole.gp = kept.gp = 0x20011800;
    struct {
        uint32_t word;
        uint64_t pc;
        unsigned kind;
    } seq[] = {
        {0x200126b7, 0x20010038, RVT_DIS_SETS},      /* lui a3,0x20012 */
        {0x00b50533, 0x2001003a, RVT_DIS_STATELESS}, /* add a0,a0,a1 */
        {0x9906a703, 0x2001003c, RVT_DIS_USES},      /* lw a4,-1648(a3): its comment from the lui */
        {0x9906a703, 0x2001006c, RVT_DIS_USES},      /* the same, the value used up: no comment */
        {0x0080006f, 0x2001001c, RVT_DIS_STATELESS}, /* j: its target is in the text */
        {0x10002783, 0x20010070, RVT_DIS_USES},      /* lw a5,256(zero): a comment of its own */
        {0x00001317, 0x20010074, RVT_DIS_SETS},      /* auipc t1,0x1 */
        {0x010300e7, 0x20010078, RVT_DIS_USES},      /* jalr 16(t1): objdump's rules one after another */
        {0x010300e7, 0x20010078, RVT_DIS_USES},      /* the same with no value pending */
        {0x000180e7, 0x2001007c, RVT_DIS_USES},      /* jalr 0(gp): its own comment */
    };
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        rvt_insn in = dec(seq[i].word, 32);
        char want[128], text[128], note[64], line[200];
        rvt_disasm(&whole, &in, NULL, seq[i].pc, want, sizeof want);
        rvt_disasm_dep dep;
        rvt_disasm_ctx scratch = kept;
        rvt_disasm_split(&scratch, &in, NULL, seq[i].pc, text, sizeof text, &dep);
        assert_int_equal(dep.kind, seq[i].kind);
        note[0] = 0;
        if (dep.kind == RVT_DIS_SETS) { /* no comment, the value noted */
            rvt_disasm_ctx set = kept;
            rvt_disasm_set(&set, &dep);
            rvt_disasm_note(&kept, &in, seq[i].pc, note, sizeof note);
            assert_string_equal(note, "");
            assert_memory_equal(&set, &kept, sizeof set);
        } else if (dep.kind == RVT_DIS_USES && !kept.hi_valid[dep.reg]) { /* ctx stays */
            rvt_disasm_ctx before = kept;
            rvt_disasm_note(&kept, &in, seq[i].pc, note, sizeof note);
            assert_memory_equal(&before, &kept, sizeof kept);
        } else if (dep.kind != RVT_DIS_STATELESS) {
            rvt_disasm_note(&kept, &in, seq[i].pc, note, sizeof note);
        }
        snprintf(line, sizeof line, "%s%s", text, note);
        assert_string_equal(line, want);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_immediates),
        cmocka_unit_test(test_xlen_specific),
        cmocka_unit_test(test_illegal),
        cmocka_unit_test(test_jump_classification),
        cmocka_unit_test(test_every_itype),
        cmocka_unit_test(test_seq_inferable),
        cmocka_unit_test(test_disasm_text),
        cmocka_unit_test(test_address_comment),
        cmocka_unit_test(test_split_note),
    };
    return cmocka_run_group_tests_name("isa", tests, NULL, NULL);
}
