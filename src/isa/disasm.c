/* Disassembly text in the syntax of GNU objdump 2.40 for RISC-V, including its
 * choice of pseudo-instructions (aliases), operand order and the "# address"
 * comments it derives from lui/auipc/gp-relative address arithmetic. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rvtrace/isa.h"

static const char *const gpr_names[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",  "a1",  "a2", "a3", "a4", "a5",
    "a6",   "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
static const char *const fpr_names[32] = {
    "ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",  "fs0",  "fs1", "fa0",
    "fa1", "fa2", "fa3",  "fa4",  "fa5", "fa6", "fa7",  "fs2",  "fs3",  "fs4", "fs5",
    "fs6", "fs7", "fs8",  "fs9",  "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};

const char *rvt_gpr_name(unsigned reg) { return gpr_names[reg & 31]; }
const char *rvt_fpr_name(unsigned reg) { return fpr_names[reg & 31]; }

void rvt_disasm_init(rvt_disasm_ctx *ctx, unsigned xlen, unsigned flags) {
    memset(ctx, 0, sizeof *ctx);
    ctx->xlen = xlen;
    ctx->flags = flags;
}

/* ------------------------------------------------------------ text output */

typedef struct {
    char *buf;
    size_t cap, len;
} sbuf;

static void sb_vprintf(sbuf *s, const char *fmt, va_list ap) {
    if (!s->buf) /* rvt_disasm_note: the text is not wanted */
        return;
    size_t room = s->len < s->cap ? s->cap - s->len : 0;
    int n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
    if (n > 0)
        s->len += (size_t)n;
}

static void sb_printf(sbuf *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(s, fmt, ap);
    va_end(ap);
}

typedef struct {
    rvt_disasm_ctx *ctx;
    sbuf out;
    uint64_t pc;
    bool to_print;     /* an address comment is pending */
    uint64_t print_addr;
    unsigned nargs;    /* operands written so far, for the separators */
    /* how the comment or ctx's register values depend on each other: the
     * registers an address was looked up through, and set by lui/auipc */
    unsigned uses, use_reg, sets, set_reg;
    bool mixed_uses; /* not all through one register */
} dis;

static void put_addr(dis *d, uint64_t addr) {
    if (!d->out.buf)
        return;
    if (d->ctx->xlen == 32)
        addr = (uint32_t)addr;
    if (d->ctx->print_addr) {
        char tmp[512];
        size_t n = d->ctx->print_addr(d->ctx->user, addr, tmp, sizeof tmp);
        (void)n;
        sb_printf(&d->out, "%s", tmp);
    } else {
        sb_printf(&d->out, "%" PRIx64, addr);
    }
}

/* objdump's rule for annotating an address formed from a register: a value
 * left by lui/auipc (consumed on use), else gp relative to __global_pointer$,
 * else absolute for tp and zero. */
static void maybe_address(dis *d, unsigned base, int64_t offset, bool wide) {
    rvt_disasm_ctx *c = d->ctx;
    d->mixed_uses |= d->uses++ && d->use_reg != base;
    d->use_reg = base;
    if (c->hi_valid[base]) {
        d->print_addr = (base ? c->hi_addr[base] : 0) + (uint64_t)offset;
        c->hi_valid[base] = false;
    } else if (base == 3 && c->has_gp) {
        d->print_addr = c->gp + (uint64_t)offset;
    } else if (base == 4 || base == 0) {
        d->print_addr = (uint64_t)offset;
    } else {
        return;
    }
    d->to_print = true;
    if (wide)
        d->print_addr = (uint64_t)(int64_t)(int32_t)d->print_addr;
    if (c->xlen == 32)
        d->print_addr = (uint32_t)d->print_addr;
}

static void sep(dis *d) { sb_printf(&d->out, d->nargs++ ? "," : "\t"); }
static void mnem(dis *d, const char *m) { sb_printf(&d->out, "%s", m); }
static void x(dis *d, unsigned r) { sep(d); sb_printf(&d->out, "%s", gpr_names[r]); }
static void f(dis *d, unsigned r) { sep(d); sb_printf(&d->out, "%s", fpr_names[r]); }
static void dec(dis *d, int64_t v) { sep(d); sb_printf(&d->out, "%d", (int)v); }
static void hex(dis *d, uint64_t v) { sep(d); sb_printf(&d->out, "0x%x", (unsigned)v); }
static void mem(dis *d, int64_t off, unsigned base) {
    sep(d);
    sb_printf(&d->out, "%d(%s)", (int)off, gpr_names[base]);
}
static void amo_addr(dis *d, unsigned base) { sep(d); sb_printf(&d->out, "(%s)", gpr_names[base]); }
static void target(dis *d, uint64_t addr) { sep(d); put_addr(d, addr); }
static void text(dis *d, const char *s) { sep(d); sb_printf(&d->out, "%s", s); }

/* Destination written by lui/auipc/c.lui: remember its value for the next
 * address computation through the same register. */
static void x_dest_upper(dis *d, const rvt_insn *in) {
    rvt_disasm_ctx *c = d->ctx;
    d->sets++;
    d->set_reg = in->rd;
    c->hi_valid[in->rd] = true;
    c->hi_addr[in->rd] = in->op == RVT_OP_AUIPC ? d->pc + (uint64_t)in->imm : (uint64_t)in->imm;
    x(d, in->rd);
}

static const char *const rm_names[8] = {"rne", "rtz", "rdn", "rup", "rmm", "unknown", "unknown", "dyn"};
static void rm(dis *d, const rvt_insn *in) {
    if (in->rm != 7)
        text(d, rm_names[in->rm]);
}

static void fence_set(dis *d, unsigned v) {
    char s[5];
    size_t n = 0;
    if (v & 8) s[n++] = 'i';
    if (v & 4) s[n++] = 'o';
    if (v & 2) s[n++] = 'r';
    if (v & 1) s[n++] = 'w';
    s[n] = 0;
    text(d, n ? s : "unknown");
}

/* ------------------------------------------------------- operand patterns */

static bool is_load(unsigned op) {
    return (op >= RVT_OP_LB && op <= RVT_OP_LWU) || op == RVT_OP_FLW || op == RVT_OP_FLD;
}
static bool is_store(unsigned op) {
    return (op >= RVT_OP_SB && op <= RVT_OP_SD) || op == RVT_OP_FSW || op == RVT_OP_FSD;
}
static bool fp_data(unsigned op) {
    return op == RVT_OP_FLW || op == RVT_OP_FLD || op == RVT_OP_FSW || op == RVT_OP_FSD;
}

/* Offset operand of a 32-bit load/addi/jalr ("o" then the "j" rule). */
static void offset_rules(dis *d, const rvt_insn *in, bool also_reg_rule) {
    maybe_address(d, in->rs1, in->imm, false);
    if (in->op == RVT_OP_JALR) {
        maybe_address(d, in->rs1, in->imm, false);
        if (also_reg_rule)
            maybe_address(d, in->rs1, in->imm, false);
    }
}

static const char *amo_suffix(const rvt_insn *in) {
    static const char *const s[4] = {"", ".rl", ".aq", ".aqrl"};
    return s[in->rm & 3];
}

static void fp3(dis *d, const rvt_insn *in, const char *m, bool with_rm) {
    mnem(d, m);
    f(d, in->rd);
    f(d, in->rs1);
    f(d, in->rs2);
    if (with_rm)
        rm(d, in);
}

/* The compressed form under its own name (objdump -M no-aliases). */
static bool compressed_raw(dis *d, const rvt_insn *in) {
    const char *m = rvt_op_name(in->cop);
    switch (in->cop) {
    case RVT_OP_C_UNIMP: mnem(d, m); return true;
    case RVT_OP_C_NOP: mnem(d, "c.addi"); x(d, 0); dec(d, in->imm); return true;
    case RVT_OP_C_ADDI4SPN: mnem(d, m); x(d, in->rd); x(d, 2); dec(d, in->imm); return true;
    case RVT_OP_C_FLD: case RVT_OP_C_FLW: case RVT_OP_C_FLDSP: case RVT_OP_C_FLWSP:
        mnem(d, m); f(d, in->rd); mem(d, in->imm, in->rs1); return true;
    case RVT_OP_C_LW: case RVT_OP_C_LD: case RVT_OP_C_LWSP: case RVT_OP_C_LDSP:
        mnem(d, m); x(d, in->rd); mem(d, in->imm, in->rs1); return true;
    case RVT_OP_C_FSD: case RVT_OP_C_FSW: case RVT_OP_C_FSDSP: case RVT_OP_C_FSWSP:
        mnem(d, m); f(d, in->rs2); mem(d, in->imm, in->rs1); return true;
    case RVT_OP_C_SW: case RVT_OP_C_SD: case RVT_OP_C_SWSP: case RVT_OP_C_SDSP:
        mnem(d, m); x(d, in->rs2); mem(d, in->imm, in->rs1); return true;
    case RVT_OP_C_ADDI:
        mnem(d, m); x(d, in->rd);
        if (in->rd) maybe_address(d, in->rd, in->imm, false);
        dec(d, in->imm); return true;
    case RVT_OP_C_ADDIW:
        mnem(d, m); x(d, in->rd);
        maybe_address(d, in->rd, in->imm, true);
        dec(d, in->imm); return true;
    case RVT_OP_C_LI: mnem(d, m); x(d, in->rd); dec(d, in->imm); return true;
    case RVT_OP_C_ADDI16SP: mnem(d, m); x(d, 2); dec(d, in->imm); return true;
    case RVT_OP_C_LUI:
        mnem(d, m); x_dest_upper(d, in); hex(d, ((uint64_t)in->imm >> 12) & 0xfffff); return true;
    case RVT_OP_C_SRLI: case RVT_OP_C_SRAI: case RVT_OP_C_SLLI:
        if (in->imm == 0) { /* the RV128 shift-by-64 encodings keep their own names */
            sb_printf(&d->out, "%s64", m); x(d, in->rd); return true;
        }
        mnem(d, m); x(d, in->rd); hex(d, (uint64_t)in->imm); return true;
    case RVT_OP_C_ANDI: mnem(d, m); x(d, in->rd); dec(d, in->imm); return true;
    case RVT_OP_C_SUB: case RVT_OP_C_XOR: case RVT_OP_C_OR: case RVT_OP_C_AND:
    case RVT_OP_C_SUBW: case RVT_OP_C_ADDW: case RVT_OP_C_ADD: case RVT_OP_C_MV:
        mnem(d, m); x(d, in->rd); x(d, in->rs2); return true;
    case RVT_OP_C_J: case RVT_OP_C_JAL:
        mnem(d, m); target(d, d->pc + (uint64_t)in->imm); return true;
    case RVT_OP_C_BEQZ: case RVT_OP_C_BNEZ:
        mnem(d, m); x(d, in->rs1); target(d, d->pc + (uint64_t)in->imm); return true;
    case RVT_OP_C_JR: case RVT_OP_C_JALR: mnem(d, m); x(d, in->rs1); return true;
    case RVT_OP_C_EBREAK: mnem(d, m); return true;
    default: return false;
    }
}

/* Compressed instructions under their pseudo-instruction names. */
static bool compressed_alias(dis *d, const rvt_insn *in) {
    switch (in->cop) {
    case RVT_OP_C_UNIMP: mnem(d, "unimp"); return true;
    case RVT_OP_C_NOP:
        if (in->imm) { mnem(d, "c.nop"); dec(d, in->imm); }
        else mnem(d, "nop");
        return true;
    case RVT_OP_C_ADDI4SPN: mnem(d, "add"); x(d, in->rd); x(d, 2); dec(d, in->imm); return true;
    case RVT_OP_C_ADDI:
        mnem(d, "add"); x(d, in->rd); x(d, in->rd);
        maybe_address(d, in->rd, in->imm, false);
        dec(d, in->imm); return true;
    case RVT_OP_C_ADDIW:
        if (!in->imm) { mnem(d, "sext.w"); x(d, in->rd); x(d, in->rd); return true; }
        mnem(d, "addw"); x(d, in->rd); x(d, in->rd);
        maybe_address(d, in->rd, in->imm, true);
        dec(d, in->imm);
        return true;
    case RVT_OP_C_LI:
        if (!in->rd) return false;
        mnem(d, "li"); x(d, in->rd); dec(d, in->imm); return true;
    case RVT_OP_C_ADDI16SP: mnem(d, "add"); x(d, 2); x(d, 2); dec(d, in->imm); return true;
    case RVT_OP_C_LUI:
        if (!in->rd) return false;
        mnem(d, "lui"); x_dest_upper(d, in); hex(d, ((uint64_t)in->imm >> 12) & 0xfffff); return true;
    case RVT_OP_C_SRLI: case RVT_OP_C_SRAI: case RVT_OP_C_SLLI:
        if (!in->rd || !in->imm) return false;
        mnem(d, in->cop == RVT_OP_C_SRLI ? "srl" : in->cop == RVT_OP_C_SRAI ? "sra" : "sll");
        x(d, in->rd); x(d, in->rd); hex(d, (uint64_t)in->imm); return true;
    case RVT_OP_C_ANDI: mnem(d, "and"); x(d, in->rd); x(d, in->rd); dec(d, in->imm); return true;
    case RVT_OP_C_SUB: case RVT_OP_C_XOR: case RVT_OP_C_OR: case RVT_OP_C_AND:
    case RVT_OP_C_SUBW: case RVT_OP_C_ADDW: case RVT_OP_C_ADD:
        if (!in->rd) return false;
        mnem(d, rvt_op_name(in->op)); x(d, in->rd); x(d, in->rd); x(d, in->rs2); return true;
    case RVT_OP_C_MV:
        if (!in->rd) return false;
        mnem(d, "mv"); x(d, in->rd); x(d, in->rs2); return true;
    case RVT_OP_C_J: mnem(d, "j"); target(d, d->pc + (uint64_t)in->imm); return true;
    case RVT_OP_C_JAL: mnem(d, "jal"); target(d, d->pc + (uint64_t)in->imm); return true;
    case RVT_OP_C_BEQZ: case RVT_OP_C_BNEZ:
        mnem(d, in->cop == RVT_OP_C_BEQZ ? "beqz" : "bnez");
        x(d, in->rs1); target(d, d->pc + (uint64_t)in->imm); return true;
    case RVT_OP_C_JR:
        if (in->rs1 == 1) { mnem(d, "ret"); return true; }
        mnem(d, "jr"); x(d, in->rs1); return true;
    case RVT_OP_C_JALR: mnem(d, "jalr"); x(d, in->rs1); return true;
    case RVT_OP_C_EBREAK: mnem(d, "ebreak"); return true;
    default:
        if (is_load(in->op) || is_store(in->op)) {
            mnem(d, rvt_op_name(in->op));
            if (fp_data(in->op)) f(d, is_load(in->op) ? in->rd : in->rs2);
            else x(d, is_load(in->op) ? in->rd : in->rs2);
            mem(d, in->imm, in->rs1);
            return true;
        }
        return false;
    }
}

static void csr_operand(dis *d, unsigned csr) {
    const char *name = rvt_csr_name(csr);
    if (name) text(d, name); else hex(d, csr);
}

static void csr_raw(dis *d, const rvt_insn *in) {
    if (in->raw == 0xc0001073) { /* csrrw zero,cycle,zero is the canonical "unimp" */
        mnem(d, "unimp");
        return;
    }
    mnem(d, rvt_op_name(in->op));
    x(d, in->rd);
    csr_operand(d, in->csr);
    if (in->op >= RVT_OP_CSRRWI) dec(d, in->rs1); else x(d, in->rs1);
}

static bool csr_alias(dis *d, const rvt_insn *in) {
    unsigned op = in->op, csr = in->csr;
    if (in->raw == 0xc0001073) {
        csr_raw(d, in);
        return true;
    }
    /* Counter and FP-CSR shorthands. */
    if (op == RVT_OP_CSRRS && in->rs1 == 0) {
        const char *m = NULL;
        switch (csr) {
        case 0x001: m = "frflags"; break;
        case 0x002: m = "frrm"; break;
        case 0x003: m = "frcsr"; break;
        case 0xc00: m = "rdcycle"; break;
        case 0xc01: m = "rdtime"; break;
        case 0xc02: m = "rdinstret"; break;
        case 0xc80: if (d->ctx->xlen == 32) m = "rdcycleh"; break;
        case 0xc81: if (d->ctx->xlen == 32) m = "rdtimeh"; break;
        case 0xc82: if (d->ctx->xlen == 32) m = "rdinstreth"; break;
        }
        if (m) { mnem(d, m); x(d, in->rd); return true; }
    }
    if (op == RVT_OP_CSRRW && csr >= 1 && csr <= 3) {
        mnem(d, csr == 1 ? "fsflags" : csr == 2 ? "fsrm" : "fscsr");
        if (in->rd) x(d, in->rd);
        x(d, in->rs1);
        return true;
    }
    if (op == RVT_OP_CSRRWI && (csr == 1 || csr == 2)) {
        mnem(d, csr == 1 ? "fsflagsi" : "fsrmi");
        x(d, in->rd);
        dec(d, in->rs1);
        return true;
    }
    if (op == RVT_OP_CSRRS && in->rs1 == 0) {
        mnem(d, "csrr"); x(d, in->rd); csr_operand(d, csr);
        return true;
    }
    bool imm = op >= RVT_OP_CSRRWI;
    if (in->rd != 0) {
        if (!imm)
            return false;
        /* The immediate forms print under the register mnemonics. */
        mnem(d, rvt_op_name(op - RVT_OP_CSRRWI + RVT_OP_CSRRW));
        x(d, in->rd);
        csr_operand(d, csr);
        dec(d, in->rs1);
        return true;
    }
    static const char *const short_names[3] = {"csrw", "csrs", "csrc"};
    mnem(d, short_names[imm ? op - RVT_OP_CSRRWI : op - RVT_OP_CSRRW]);
    csr_operand(d, csr);
    if (imm) dec(d, in->rs1); else x(d, in->rs1);
    return true;
}

/* 32-bit instructions under their pseudo-instruction names; false when the
 * canonical form is what objdump prints. */
static bool base_alias(dis *d, const rvt_insn *in) {
    unsigned rd = in->rd, rs1 = in->rs1, rs2 = in->rs2;
    int64_t imm = in->imm;
    switch (in->op) {
    case RVT_OP_JAL:
        if (rd == 0) { mnem(d, "j"); target(d, d->pc + (uint64_t)imm); return true; }
        if (rd == 1) { mnem(d, "jal"); target(d, d->pc + (uint64_t)imm); return true; }
        return false;
    case RVT_OP_JALR:
        if (rd == 0 && rs1 == 1 && imm == 0) { mnem(d, "ret"); return true; }
        if (rd == 0 || rd == 1) {
            mnem(d, rd == 0 ? "jr" : "jalr");
            if (imm == 0) {
                maybe_address(d, rs1, imm, false);
                x(d, rs1);
            } else {
                offset_rules(d, in, true);
                mem(d, imm, rs1);
            }
            return true;
        }
        if (imm == 0) {
            mnem(d, "jalr"); x(d, rd);
            maybe_address(d, rs1, imm, false);
            x(d, rs1);
            return true;
        }
        return false;
    case RVT_OP_BEQ: case RVT_OP_BNE:
        if (rs2 != 0) return false;
        mnem(d, in->op == RVT_OP_BEQ ? "beqz" : "bnez");
        x(d, rs1); target(d, d->pc + (uint64_t)imm); return true;
    case RVT_OP_BGE:
        if (rs1 == 0) { mnem(d, "blez"); x(d, rs2); target(d, d->pc + (uint64_t)imm); return true; }
        if (rs2 == 0) { mnem(d, "bgez"); x(d, rs1); target(d, d->pc + (uint64_t)imm); return true; }
        return false;
    case RVT_OP_BLT:
        if (rs2 == 0) { mnem(d, "bltz"); x(d, rs1); target(d, d->pc + (uint64_t)imm); return true; }
        if (rs1 == 0) { mnem(d, "bgtz"); x(d, rs2); target(d, d->pc + (uint64_t)imm); return true; }
        return false;
    case RVT_OP_ADDI:
        if (rd == 0 && rs1 == 0 && imm == 0) { mnem(d, "nop"); return true; }
        if (rs1 == 0) { mnem(d, "li"); x(d, rd); dec(d, imm); return true; }
        if (imm == 0) { mnem(d, "mv"); x(d, rd); x(d, rs1); return true; }
        mnem(d, "add"); x(d, rd); x(d, rs1);
        maybe_address(d, rs1, imm, false);
        dec(d, imm); return true;
    case RVT_OP_ADDIW:
        if (imm == 0) { mnem(d, "sext.w"); x(d, rd); x(d, rs1); return true; }
        mnem(d, "addw"); x(d, rd); x(d, rs1);
        if (rs1) maybe_address(d, rs1, imm, true);
        dec(d, imm); return true;
    case RVT_OP_XORI:
        if (imm == -1) { mnem(d, "not"); x(d, rd); x(d, rs1); return true; }
        mnem(d, "xor"); x(d, rd); x(d, rs1); dec(d, imm); return true;
    case RVT_OP_ANDI:
        if (imm == 255) { mnem(d, "zext.b"); x(d, rd); x(d, rs1); return true; }
        mnem(d, "and"); x(d, rd); x(d, rs1); dec(d, imm); return true;
    case RVT_OP_ORI: mnem(d, "or"); x(d, rd); x(d, rs1); dec(d, imm); return true;
    case RVT_OP_SLTIU:
        if (imm == 1) { mnem(d, "seqz"); x(d, rd); x(d, rs1); return true; }
        return false;
    case RVT_OP_SLLI: case RVT_OP_SRLI: case RVT_OP_SRAI:
    case RVT_OP_SLLIW: case RVT_OP_SRLIW: case RVT_OP_SRAIW: {
        static const char *const n[] = {"sll", "srl", "sra", "sllw", "srlw", "sraw"};
        unsigned k = in->op >= RVT_OP_SLLIW ? 3 + (in->op - RVT_OP_SLLIW) : in->op - RVT_OP_SLLI;
        mnem(d, n[k]); x(d, rd); x(d, rs1); hex(d, (uint64_t)imm); return true;
    }
    case RVT_OP_SUB:
        if (rs1 == 0) { mnem(d, "neg"); x(d, rd); x(d, rs2); return true; }
        return false;
    case RVT_OP_SUBW:
        if (rs1 == 0) { mnem(d, "negw"); x(d, rd); x(d, rs2); return true; }
        return false;
    case RVT_OP_SLT:
        if (rs2 == 0) { mnem(d, "sltz"); x(d, rd); x(d, rs1); return true; }
        if (rs1 == 0) { mnem(d, "sgtz"); x(d, rd); x(d, rs2); return true; }
        return false;
    case RVT_OP_SLTU:
        if (rs1 == 0) { mnem(d, "snez"); x(d, rd); x(d, rs2); return true; }
        return false;
    case RVT_OP_FENCE:
        if (in->rm == 0xff) { mnem(d, "fence"); return true; }
        return false;
    case RVT_OP_SFENCE_VMA:
        mnem(d, "sfence.vma");
        if (rs1 || rs2) x(d, rs1);
        if (rs2) x(d, rs2);
        return true;
    case RVT_OP_FSGNJ_S: case RVT_OP_FSGNJ_D: case RVT_OP_FSGNJN_S: case RVT_OP_FSGNJN_D:
    case RVT_OP_FSGNJX_S: case RVT_OP_FSGNJX_D: {
        if (rs1 != rs2) return false;
        bool dbl = in->op == RVT_OP_FSGNJ_D || in->op == RVT_OP_FSGNJN_D || in->op == RVT_OP_FSGNJX_D;
        const char *base = (in->op == RVT_OP_FSGNJ_S || in->op == RVT_OP_FSGNJ_D) ? "fmv"
                           : (in->op == RVT_OP_FSGNJN_S || in->op == RVT_OP_FSGNJN_D) ? "fneg" : "fabs";
        char m[16];
        snprintf(m, sizeof m, "%s.%s", base, dbl ? "d" : "s");
        mnem(d, m); f(d, rd); f(d, rs1); return true;
    }
    case RVT_OP_CSRRW: case RVT_OP_CSRRS: case RVT_OP_CSRRC:
    case RVT_OP_CSRRWI: case RVT_OP_CSRRSI: case RVT_OP_CSRRCI:
        return csr_alias(d, in);
    default:
        return false;
    }
}

static void base_raw(dis *d, const rvt_insn *in) {
    unsigned op = in->op, rd = in->rd, rs1 = in->rs1, rs2 = in->rs2;
    int64_t imm = in->imm;
    const char *m = rvt_op_name(op);
    switch (op) {
    case RVT_OP_LUI: case RVT_OP_AUIPC:
        mnem(d, m); x_dest_upper(d, in); hex(d, ((uint64_t)imm >> 12) & 0xfffff); return;
    case RVT_OP_JAL: mnem(d, m); x(d, rd); target(d, d->pc + (uint64_t)imm); return;
    case RVT_OP_JALR:
        mnem(d, m); x(d, rd);
        offset_rules(d, in, true);
        mem(d, imm, rs1); return;
    case RVT_OP_BEQ: case RVT_OP_BNE: case RVT_OP_BLT: case RVT_OP_BGE: case RVT_OP_BLTU: case RVT_OP_BGEU:
        mnem(d, m); x(d, rs1); x(d, rs2); target(d, d->pc + (uint64_t)imm); return;
    case RVT_OP_ADDI: case RVT_OP_ADDIW: case RVT_OP_SLTI: case RVT_OP_SLTIU:
    case RVT_OP_XORI: case RVT_OP_ORI: case RVT_OP_ANDI:
        mnem(d, m); x(d, rd); x(d, rs1);
        if (op == RVT_OP_ADDI && rs1) maybe_address(d, rs1, imm, false);
        if (op == RVT_OP_ADDIW && rs1 && d->ctx->xlen == 64) maybe_address(d, rs1, imm, true);
        dec(d, imm); return;
    case RVT_OP_SLLI: case RVT_OP_SRLI: case RVT_OP_SRAI:
    case RVT_OP_SLLIW: case RVT_OP_SRLIW: case RVT_OP_SRAIW:
        mnem(d, m); x(d, rd); x(d, rs1); hex(d, (uint64_t)imm); return;
    case RVT_OP_FENCE:
        mnem(d, m); fence_set(d, in->rm >> 4); fence_set(d, in->rm & 15); return;
    case RVT_OP_FENCE_TSO: case RVT_OP_FENCE_I: case RVT_OP_ECALL: case RVT_OP_EBREAK:
    case RVT_OP_URET: case RVT_OP_SRET: case RVT_OP_MRET: case RVT_OP_DRET: case RVT_OP_WFI:
    case RVT_OP_SCTRCLR:
        mnem(d, m); return;
    case RVT_OP_SFENCE_VMA:
        mnem(d, m); x(d, rs1); x(d, rs2); return;
    case RVT_OP_CSRRW: case RVT_OP_CSRRS: case RVT_OP_CSRRC:
    case RVT_OP_CSRRWI: case RVT_OP_CSRRSI: case RVT_OP_CSRRCI:
        csr_raw(d, in); return;
    case RVT_OP_LR_W: case RVT_OP_LR_D: {
        char n[24];
        snprintf(n, sizeof n, "%s%s", m, amo_suffix(in));
        mnem(d, n); x(d, rd); amo_addr(d, rs1); return;
    }
    case RVT_OP_FLW: case RVT_OP_FLD:
        mnem(d, m); f(d, rd); maybe_address(d, rs1, imm, false); mem(d, imm, rs1); return;
    case RVT_OP_FSW: case RVT_OP_FSD:
        mnem(d, m); f(d, rs2); maybe_address(d, rs1, imm, false); mem(d, imm, rs1); return;
    case RVT_OP_FMADD_S: case RVT_OP_FMSUB_S: case RVT_OP_FNMSUB_S: case RVT_OP_FNMADD_S:
    case RVT_OP_FMADD_D: case RVT_OP_FMSUB_D: case RVT_OP_FNMSUB_D: case RVT_OP_FNMADD_D:
        mnem(d, m); f(d, rd); f(d, rs1); f(d, rs2); f(d, in->rs3); rm(d, in); return;
    case RVT_OP_FADD_S: case RVT_OP_FSUB_S: case RVT_OP_FMUL_S: case RVT_OP_FDIV_S:
    case RVT_OP_FADD_D: case RVT_OP_FSUB_D: case RVT_OP_FMUL_D: case RVT_OP_FDIV_D:
        fp3(d, in, m, true); return;
    case RVT_OP_FSGNJ_S: case RVT_OP_FSGNJN_S: case RVT_OP_FSGNJX_S: case RVT_OP_FMIN_S: case RVT_OP_FMAX_S:
    case RVT_OP_FSGNJ_D: case RVT_OP_FSGNJN_D: case RVT_OP_FSGNJX_D: case RVT_OP_FMIN_D: case RVT_OP_FMAX_D:
        fp3(d, in, m, false); return;
    case RVT_OP_FSQRT_S: case RVT_OP_FSQRT_D: case RVT_OP_FCVT_S_D:
        mnem(d, m); f(d, rd); f(d, rs1); rm(d, in); return;
    case RVT_OP_FCVT_D_S:
        mnem(d, m); f(d, rd); f(d, rs1); return;
    case RVT_OP_FEQ_S: case RVT_OP_FLT_S: case RVT_OP_FLE_S:
    case RVT_OP_FEQ_D: case RVT_OP_FLT_D: case RVT_OP_FLE_D:
        mnem(d, m); x(d, rd); f(d, rs1); f(d, rs2); return;
    case RVT_OP_FCVT_W_S: case RVT_OP_FCVT_WU_S: case RVT_OP_FCVT_L_S: case RVT_OP_FCVT_LU_S:
    case RVT_OP_FCVT_W_D: case RVT_OP_FCVT_WU_D: case RVT_OP_FCVT_L_D: case RVT_OP_FCVT_LU_D:
        mnem(d, m); x(d, rd); f(d, rs1); rm(d, in); return;
    case RVT_OP_FMV_X_W: case RVT_OP_FMV_X_D: case RVT_OP_FCLASS_S: case RVT_OP_FCLASS_D:
        mnem(d, m); x(d, rd); f(d, rs1); return;
    case RVT_OP_FCVT_S_W: case RVT_OP_FCVT_S_WU: case RVT_OP_FCVT_S_L: case RVT_OP_FCVT_S_LU:
    case RVT_OP_FCVT_D_L: case RVT_OP_FCVT_D_LU:
        mnem(d, m); f(d, rd); x(d, rs1); rm(d, in); return;
    case RVT_OP_FCVT_D_W: case RVT_OP_FCVT_D_WU:
        mnem(d, m); f(d, rd); x(d, rs1); return;
    case RVT_OP_FMV_W_X: case RVT_OP_FMV_D_X:
        mnem(d, m); f(d, rd); x(d, rs1); return;
    default:
        break;
    }
    if (op >= RVT_OP_SC_W && op <= RVT_OP_AMOMAXU_D) {
        char n[24];
        snprintf(n, sizeof n, "%s%s", m, amo_suffix(in));
        mnem(d, n); x(d, rd); x(d, rs2); amo_addr(d, rs1); return;
    }
    if (is_load(op)) {
        mnem(d, m); x(d, rd); maybe_address(d, rs1, imm, false); mem(d, imm, rs1); return;
    }
    if (is_store(op)) {
        mnem(d, m); x(d, rs2); maybe_address(d, rs1, imm, false); mem(d, imm, rs1); return;
    }
    /* Register-register integer operations. */
    mnem(d, m); x(d, rd); x(d, rs1); x(d, rs2);
}

static void illegal(dis *d, const rvt_insn *in, const uint8_t *bytes) {
    if (in->len == 2) {
        sb_printf(&d->out, ".2byte\t0x%x", (unsigned)(in->raw & 0xffff));
    } else if (in->len == 4) {
        sb_printf(&d->out, ".4byte\t0x%x", (unsigned)in->raw);
    } else if (bytes && in->len == 8) {
        uint64_t v = 0;
        for (unsigned i = 8; i-- > 0;)
            v = v << 8 | bytes[i];
        sb_printf(&d->out, ".8byte\t0x%" PRIx64, v);
    } else if (bytes) {
        sb_printf(&d->out, ".byte\t");
        for (unsigned i = 0; i < in->len; i++)
            sb_printf(&d->out, "%s0x%02x", i ? ", " : "", bytes[i]);
    } else {
        sb_printf(&d->out, ".insn\t%u", in->len);
    }
}

/* Reserved encodings that objdump nevertheless prints as instructions: RV32
 * shifts by 32..63 and c.addi16sp with a zero immediate. */
static bool objdump_lenient(const rvt_insn *in, unsigned xlen, rvt_insn *out) {
    if (xlen == 32) {
        rvt_decode(in->raw, 64, out);
        if (out->op == RVT_OP_SLLI || out->op == RVT_OP_SRLI || out->op == RVT_OP_SRAI)
            return true;
    }
    if (in->len == 2 && (in->raw & 0xef83u) == 0x6101u) {
        rvt_decode(in->raw, xlen, out);
        out->cop = RVT_OP_C_ADDI16SP;
        out->op = RVT_OP_ADDI;
        out->rd = out->rs1 = 2;
        out->imm = 0;
        return true;
    }
    return false;
}

/* The instruction's text without its address comment into d->out. */
static void disasm_operands(dis *d, const rvt_insn *in, const uint8_t *bytes) {
    bool no_alias = d->ctx->flags & RVT_DIS_NO_ALIASES;
    /* Exact conversions ignore the rounding mode when executed, but objdump
     * only knows the encoding with rm = 0. */
    bool exact_cvt = in->op == RVT_OP_FCVT_D_S || in->op == RVT_OP_FCVT_D_W || in->op == RVT_OP_FCVT_D_WU;
    rvt_insn lenient;
    if (in->op == RVT_OP_ILLEGAL && in->len <= 4 && objdump_lenient(in, d->ctx->xlen, &lenient))
        in = &lenient;
    if ((in->op == RVT_OP_ILLEGAL && in->cop != RVT_OP_C_UNIMP) || (exact_cvt && in->rm != 0)) {
        illegal(d, in, bytes);
    } else if (in->cop != RVT_OP_ILLEGAL) {
        if (no_alias || !compressed_alias(d, in))
            compressed_raw(d, in);
    } else if (no_alias || !base_alias(d, in)) {
        base_raw(d, in);
    }
}

static size_t finish(dis *d, char *buf, size_t cap) {
    if (cap && d->out.len >= cap)
        buf[cap - 1] = 0;
    return d->out.len;
}

static void put_comment(dis *d) {
    if (d->to_print) {
        sb_printf(&d->out, " # ");
        put_addr(d, d->print_addr);
    }
}

size_t rvt_disasm(rvt_disasm_ctx *ctx, const rvt_insn *in, const uint8_t *bytes, uint64_t pc,
                  char *buf, size_t cap) {
    dis d = {.ctx = ctx, .out = {buf, cap, 0}, .pc = pc};
    if (cap)
        buf[0] = 0;
    disasm_operands(&d, in, bytes);
    put_comment(&d);
    return finish(&d, buf, cap);
}

size_t rvt_disasm_split(rvt_disasm_ctx *ctx, const rvt_insn *in, const uint8_t *bytes, uint64_t pc,
                        char *buf, size_t cap, rvt_disasm_dep *dep) {
    dis d = {.ctx = ctx, .out = {buf, cap, 0}, .pc = pc};
    if (cap)
        buf[0] = 0;
    disasm_operands(&d, in, bytes);
    *dep = (rvt_disasm_dep){RVT_DIS_STATELESS, 0, 0};
    if (d.sets == 1 && !d.uses)
        *dep = (rvt_disasm_dep){RVT_DIS_SETS, d.set_reg, ctx->hi_addr[d.set_reg]};
    else if (d.uses && !d.sets && !d.mixed_uses) /* (jalr looks more than once) */
        *dep = (rvt_disasm_dep){RVT_DIS_USES, d.use_reg, 0};
    else if (d.uses + d.sets)
        dep->kind = RVT_DIS_STATEFUL;
    if (dep->kind == RVT_DIS_STATELESS)
        put_comment(&d); /* an address known from the instruction alone */
    return finish(&d, buf, cap);
}

size_t rvt_disasm_note(rvt_disasm_ctx *ctx, const rvt_insn *in, uint64_t pc, char *buf, size_t cap) {
    dis d = {.ctx = ctx, .out = {NULL, 0, 0}, .pc = pc};
    if (cap)
        buf[0] = 0;
    disasm_operands(&d, in, NULL);
    d.out = (sbuf){buf, cap, 0};
    put_comment(&d);
    return finish(&d, buf, cap);
}
