/* RISC-V instruction decoding, control-flow classification and
 * objdump-compatible disassembly (RV32/RV64 IMAFDC, Zicsr, Zifencei and the
 * privileged instructions).
 *
 * The decoder turns raw bits into a struct rvt_insn once; everything else
 * (classification, disassembly, the hart model, the trace encoders and
 * decoders) reads that struct, so each fact about an encoding lives here. */
#ifndef RVTRACE_ISA_H
#define RVTRACE_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rvtrace/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(enum suffix, canonical mnemonic). Compressed forms have their own entries
 * (C_*) so that `-M no-aliases` can name them; rvt_insn.op always holds the
 * 32-bit operation the compressed form expands to. */
#define RVT_OPS(X)                                                                                 \
    X(ILLEGAL, "illegal") X(LUI, "lui") X(AUIPC, "auipc") X(JAL, "jal") X(JALR, "jalr")          \
    X(BEQ, "beq") X(BNE, "bne") X(BLT, "blt") X(BGE, "bge") X(BLTU, "bltu") X(BGEU, "bgeu")      \
    X(LB, "lb") X(LH, "lh") X(LW, "lw") X(LD, "ld") X(LBU, "lbu") X(LHU, "lhu") X(LWU, "lwu")   \
    X(SB, "sb") X(SH, "sh") X(SW, "sw") X(SD, "sd")                                              \
    X(ADDI, "addi") X(SLTI, "slti") X(SLTIU, "sltiu") X(XORI, "xori") X(ORI, "ori")              \
    X(ANDI, "andi") X(SLLI, "slli") X(SRLI, "srli") X(SRAI, "srai")                             \
    X(ADD, "add") X(SUB, "sub") X(SLL, "sll") X(SLT, "slt") X(SLTU, "sltu") X(XOR, "xor")        \
    X(SRL, "srl") X(SRA, "sra") X(OR, "or") X(AND, "and")                                        \
    X(ADDIW, "addiw") X(SLLIW, "slliw") X(SRLIW, "srliw") X(SRAIW, "sraiw")                      \
    X(ADDW, "addw") X(SUBW, "subw") X(SLLW, "sllw") X(SRLW, "srlw") X(SRAW, "sraw")              \
    X(FENCE, "fence") X(FENCE_TSO, "fence.tso") X(FENCE_I, "fence.i")                            \
    X(ECALL, "ecall") X(EBREAK, "ebreak") X(URET, "uret") X(SRET, "sret") X(MRET, "mret")        \
    X(DRET, "dret") X(WFI, "wfi") X(SFENCE_VMA, "sfence.vma") X(SCTRCLR, "sctrclr")             \
    X(CSRRW, "csrrw") X(CSRRS, "csrrs") X(CSRRC, "csrrc") X(CSRRWI, "csrrwi")                    \
    X(CSRRSI, "csrrsi") X(CSRRCI, "csrrci")                                                      \
    X(MUL, "mul") X(MULH, "mulh") X(MULHSU, "mulhsu") X(MULHU, "mulhu") X(DIV, "div")            \
    X(DIVU, "divu") X(REM, "rem") X(REMU, "remu") X(MULW, "mulw") X(DIVW, "divw")                \
    X(DIVUW, "divuw") X(REMW, "remw") X(REMUW, "remuw")                                          \
    X(LR_W, "lr.w") X(SC_W, "sc.w") X(AMOSWAP_W, "amoswap.w") X(AMOADD_W, "amoadd.w")           \
    X(AMOXOR_W, "amoxor.w") X(AMOAND_W, "amoand.w") X(AMOOR_W, "amoor.w")                        \
    X(AMOMIN_W, "amomin.w") X(AMOMAX_W, "amomax.w") X(AMOMINU_W, "amominu.w")                    \
    X(AMOMAXU_W, "amomaxu.w")                                                                    \
    X(LR_D, "lr.d") X(SC_D, "sc.d") X(AMOSWAP_D, "amoswap.d") X(AMOADD_D, "amoadd.d")           \
    X(AMOXOR_D, "amoxor.d") X(AMOAND_D, "amoand.d") X(AMOOR_D, "amoor.d")                        \
    X(AMOMIN_D, "amomin.d") X(AMOMAX_D, "amomax.d") X(AMOMINU_D, "amominu.d")                    \
    X(AMOMAXU_D, "amomaxu.d")                                                                    \
    X(FLW, "flw") X(FSW, "fsw") X(FMADD_S, "fmadd.s") X(FMSUB_S, "fmsub.s")                      \
    X(FNMSUB_S, "fnmsub.s") X(FNMADD_S, "fnmadd.s") X(FADD_S, "fadd.s") X(FSUB_S, "fsub.s")     \
    X(FMUL_S, "fmul.s") X(FDIV_S, "fdiv.s") X(FSQRT_S, "fsqrt.s") X(FSGNJ_S, "fsgnj.s")         \
    X(FSGNJN_S, "fsgnjn.s") X(FSGNJX_S, "fsgnjx.s") X(FMIN_S, "fmin.s") X(FMAX_S, "fmax.s")     \
    X(FCVT_W_S, "fcvt.w.s") X(FCVT_WU_S, "fcvt.wu.s") X(FMV_X_W, "fmv.x.w")                      \
    X(FEQ_S, "feq.s") X(FLT_S, "flt.s") X(FLE_S, "fle.s") X(FCLASS_S, "fclass.s")              \
    X(FCVT_S_W, "fcvt.s.w") X(FCVT_S_WU, "fcvt.s.wu") X(FMV_W_X, "fmv.w.x")                      \
    X(FCVT_L_S, "fcvt.l.s") X(FCVT_LU_S, "fcvt.lu.s") X(FCVT_S_L, "fcvt.s.l")                    \
    X(FCVT_S_LU, "fcvt.s.lu")                                                                    \
    X(FLD, "fld") X(FSD, "fsd") X(FMADD_D, "fmadd.d") X(FMSUB_D, "fmsub.d")                      \
    X(FNMSUB_D, "fnmsub.d") X(FNMADD_D, "fnmadd.d") X(FADD_D, "fadd.d") X(FSUB_D, "fsub.d")     \
    X(FMUL_D, "fmul.d") X(FDIV_D, "fdiv.d") X(FSQRT_D, "fsqrt.d") X(FSGNJ_D, "fsgnj.d")         \
    X(FSGNJN_D, "fsgnjn.d") X(FSGNJX_D, "fsgnjx.d") X(FMIN_D, "fmin.d") X(FMAX_D, "fmax.d")     \
    X(FCVT_S_D, "fcvt.s.d") X(FCVT_D_S, "fcvt.d.s") X(FEQ_D, "feq.d") X(FLT_D, "flt.d")         \
    X(FLE_D, "fle.d") X(FCLASS_D, "fclass.d") X(FCVT_W_D, "fcvt.w.d") X(FCVT_WU_D, "fcvt.wu.d") \
    X(FCVT_D_W, "fcvt.d.w") X(FCVT_D_WU, "fcvt.d.wu") X(FCVT_L_D, "fcvt.l.d")                    \
    X(FCVT_LU_D, "fcvt.lu.d") X(FMV_X_D, "fmv.x.d") X(FCVT_D_L, "fcvt.d.l")                      \
    X(FCVT_D_LU, "fcvt.d.lu") X(FMV_D_X, "fmv.d.x")                                              \
    X(C_UNIMP, "c.unimp") X(C_ADDI4SPN, "c.addi4spn") X(C_FLD, "c.fld") X(C_LW, "c.lw")         \
    X(C_FLW, "c.flw") X(C_LD, "c.ld") X(C_FSD, "c.fsd") X(C_SW, "c.sw") X(C_FSW, "c.fsw")       \
    X(C_SD, "c.sd") X(C_NOP, "c.nop") X(C_ADDI, "c.addi") X(C_JAL, "c.jal")                     \
    X(C_ADDIW, "c.addiw") X(C_LI, "c.li") X(C_ADDI16SP, "c.addi16sp") X(C_LUI, "c.lui")         \
    X(C_SRLI, "c.srli") X(C_SRAI, "c.srai") X(C_ANDI, "c.andi") X(C_SUB, "c.sub")               \
    X(C_XOR, "c.xor") X(C_OR, "c.or") X(C_AND, "c.and") X(C_SUBW, "c.subw") X(C_ADDW, "c.addw") \
    X(C_J, "c.j") X(C_BEQZ, "c.beqz") X(C_BNEZ, "c.bnez") X(C_SLLI, "c.slli")                   \
    X(C_FLDSP, "c.fldsp") X(C_LWSP, "c.lwsp") X(C_FLWSP, "c.flwsp") X(C_LDSP, "c.ldsp")         \
    X(C_JR, "c.jr") X(C_MV, "c.mv") X(C_EBREAK, "c.ebreak") X(C_JALR, "c.jalr")                 \
    X(C_ADD, "c.add") X(C_FSDSP, "c.fsdsp") X(C_SWSP, "c.swsp") X(C_FSWSP, "c.fswsp")           \
    X(C_SDSP, "c.sdsp")

enum rvt_op {
#define RVT_OP_ENUM(name, text) RVT_OP_##name,
    RVT_OPS(RVT_OP_ENUM)
#undef RVT_OP_ENUM
        RVT_OP_COUNT
};

/* What an instruction does to the flow of control. */
enum rvt_cf {
    RVT_CF_NONE = 0,   /* falls through to pc + len */
    RVT_CF_BRANCH,     /* conditional branch: pc + imm when taken */
    RVT_CF_JAL,        /* direct jump pc + imm (inferable) */
    RVT_CF_JALR,       /* indirect jump rs1 + imm (uninferable) */
    RVT_CF_TRAP,       /* ecall / ebreak / c.ebreak: always traps */
    RVT_CF_XRET,       /* uret / sret / mret / dret */
};

/* Calling-convention class of a jump (E-Trace "Jump classification"). */
enum rvt_jump_class {
    RVT_JUMP_NONE = 0, /* not a jump */
    RVT_JUMP_CALL,
    RVT_JUMP_TAIL,
    RVT_JUMP_RETURN,
    RVT_JUMP_SWAP,     /* co-routine swap */
    RVT_JUMP_OTHER,
};

/* Ingress-port itype values (E-Trace 1.0 table "itype"; N-Trace uses the same
 * numbers). Values 8..15 are the extended 4-bit classification. */
enum rvt_itype {
    RVT_ITYPE_NONE = 0,
    RVT_ITYPE_EXCEPTION = 1,
    RVT_ITYPE_INTERRUPT = 2,
    RVT_ITYPE_XRET = 3,
    RVT_ITYPE_BRANCH_NOT_TAKEN = 4,
    RVT_ITYPE_BRANCH_TAKEN = 5,
    RVT_ITYPE_UNINFERABLE_JUMP = 6, /* 3-bit itype only */
    RVT_ITYPE_RESERVED = 7,         /* in both widths: no record carries it */
    RVT_ITYPE_UNINFERABLE_CALL = 8,
    RVT_ITYPE_INFERABLE_CALL = 9,
    RVT_ITYPE_UNINFERABLE_TAIL = 10,
    RVT_ITYPE_INFERABLE_TAIL = 11,
    RVT_ITYPE_SWAP = 12,
    RVT_ITYPE_RETURN = 13,
    RVT_ITYPE_OTHER_UNINFERABLE = 14,
    RVT_ITYPE_OTHER_INFERABLE = 15,
};

typedef struct rvt_insn {
    uint32_t raw;   /* the instruction bits (16 significant bits when len == 2) */
    uint16_t op;    /* enum rvt_op of the (expanded) operation */
    uint16_t cop;   /* enum rvt_op of the compressed form, or RVT_OP_ILLEGAL */
    uint8_t len;    /* 2 or 4; longer encodings decode as illegal with their length */
    uint8_t rd, rs1, rs2, rs3;
    uint8_t rm;     /* FP rounding mode; AMO: bit1 = aq, bit0 = rl; fence: pred<<4|succ */
    uint8_t cf;     /* enum rvt_cf */
    uint8_t jclass; /* enum rvt_jump_class */
    uint16_t csr;   /* CSR number for Zicsr */
    int64_t imm;    /* sign-extended immediate (branch/jump offset, shift amount, U-imm<<12) */
} rvt_insn;

/* Length in bytes of the instruction whose low 16 bits are `low16`, following
 * the base ISA's length encoding (2, 4, 6, 8, 10..22). */
RVT_API unsigned rvt_insn_length(uint16_t low16);

/* Decode up to 32 instruction bits for XLEN 32 or 64. Always fills `out`
 * (op RVT_OP_ILLEGAL for encodings that are not valid on that XLEN) and returns
 * its length in bytes. Never fails or reads beyond `bits`. */
RVT_API unsigned rvt_decode(uint32_t bits, unsigned xlen, rvt_insn *out);

RVT_API const char *rvt_op_name(unsigned op);

/* Whether `in` is code a trace decoder can walk: a decoded instruction, or
 * one of an extension this decoder does not model whose major opcode never
 * transfers control (vector arithmetic, configuration, loads and stores;
 * the custom opcodes), so it runs on to the next. */
RVT_API bool rvt_insn_walkable(const rvt_insn *in);

/* Control-flow helpers derived from the decoded fields. */
static inline bool rvt_insn_is_branch(const rvt_insn *in) { return in->cf == RVT_CF_BRANCH; }
static inline bool rvt_insn_is_uninferable(const rvt_insn *in) {
    return in->cf == RVT_CF_JALR || in->cf == RVT_CF_TRAP || in->cf == RVT_CF_XRET;
}

/* itype of an instruction that retired without a trap. `taken` matters for
 * branches only. With `width` 3 every uninferable jump is itype 6 and
 * inferable jumps are 0; with width 4 the jump classes 8..15 are used.
 * E-Trace classifies jal x0 / c.j / jalr x0,rs as tail calls (10/11); N-Trace
 * says a hart cannot tell tail calls apart, so with `ntrace` set those come
 * out as other jumps (14/15), as in N-Trace's itype table. */
RVT_API unsigned rvt_itype(const rvt_insn *in, bool taken, unsigned width, bool ntrace);

/* itype of an instruction that took a trap (1 exception, 2 interrupt). */
static inline unsigned rvt_itype_trap(bool interrupt) {
    return interrupt ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION;
}

/* Sequentially inferable jump pairs (E-Trace): `prev` is lui, c.lui or auipc
 * writing the register that the jalr `jump` uses as rs1. Returns true and the
 * target when the pair qualifies. `prev_pc` is the address of `prev`. */
RVT_API bool rvt_seq_inferable_target(const rvt_insn *prev, uint64_t prev_pc, const rvt_insn *jump,
                              unsigned xlen, uint64_t *target);

/* Branch or direct jump target (pc + imm, truncated to XLEN). */
RVT_API uint64_t rvt_direct_target(const rvt_insn *in, uint64_t pc, unsigned xlen);

/* ---- Disassembly in objdump's syntax ---- */

enum {
    RVT_DIS_NO_ALIASES = 1u << 0, /* like objdump -M no-aliases */
};

/* Prints an address operand (branch target or "# address" comment) the way
 * the caller wants, e.g. "80000050 <j_target_0>". Writes at most `cap` bytes
 * including the terminating NUL and returns the length it wanted. */
typedef size_t (*rvt_addr_printer)(void *user, uint64_t addr, char *buf, size_t cap);

/* State of one disassembly pass. objdump follows lui/auipc into the next
 * load, store or addi through the same register to annotate the address;
 * the context keeps that register tracking between instructions. */
typedef struct rvt_disasm_ctx {
    unsigned xlen;
    unsigned flags;
    bool has_gp;
    uint64_t gp;              /* value of __global_pointer$ */
    uint64_t hi_addr[32];     /* pending lui/auipc value per register */
    bool hi_valid[32];
    rvt_addr_printer print_addr; /* NULL: plain hex */
    void *user;
} rvt_disasm_ctx;

RVT_API void rvt_disasm_init(rvt_disasm_ctx *ctx, unsigned xlen, unsigned flags);

/* Format one instruction (mnemonic, a tab, operands, optional " # addr") into
 * `buf`. `len` bytes of the instruction are in `bytes` (needed for encodings
 * longer than 32 bits). Returns the text length. */
RVT_API size_t rvt_disasm(rvt_disasm_ctx *ctx, const rvt_insn *in, const uint8_t *bytes, uint64_t pc,
                  char *buf, size_t cap);

/* For callers that keep the text of instructions they list again (a trace
 * listing repeats its loops): the address comment of a load, store, addi or
 * jalr follows the register values lui/auipc left in ctx, which change as
 * the listing goes on. rvt_disasm_split() formats like rvt_disasm() but,
 * when the comment depends on ctx or the instruction changes ctx (dep->kind
 * is not RVT_DIS_STATELESS), leaves it out; the text is then the same every
 * time. rvt_disasm_note() gives such an instruction's comment (" # ADDR",
 * or nothing) and changes ctx as rvt_disasm() would, without formatting the
 * rest. The two common kinds need no call: RVT_DIS_SETS (lui, auipc: no
 * comment, rvt_disasm_set() is the change) and RVT_DIS_USES (a comment from
 * the value pending in register `reg`, which it uses up; with none pending
 * the comment is the same every time and ctx stays as it is). */
typedef struct rvt_disasm_dep {
    enum { RVT_DIS_STATELESS, RVT_DIS_SETS, RVT_DIS_USES, RVT_DIS_STATEFUL } kind;
    unsigned reg;   /* SETS: the register given `value`; USES: the register looked at */
    uint64_t value; /* SETS */
} rvt_disasm_dep;

RVT_API size_t rvt_disasm_split(rvt_disasm_ctx *ctx, const rvt_insn *in, const uint8_t *bytes, uint64_t pc,
                        char *buf, size_t cap, rvt_disasm_dep *dep);
RVT_API size_t rvt_disasm_note(rvt_disasm_ctx *ctx, const rvt_insn *in, uint64_t pc, char *buf, size_t cap);

/* What a RVT_DIS_SETS instruction does to ctx. */
static inline void rvt_disasm_set(rvt_disasm_ctx *ctx, const rvt_disasm_dep *dep) {
    ctx->hi_valid[dep->reg] = true;
    ctx->hi_addr[dep->reg] = dep->value;
}

/* ABI register names as objdump prints them. */
RVT_API const char *rvt_gpr_name(unsigned reg);
RVT_API const char *rvt_fpr_name(unsigned reg);
/* Name of a CSR, or NULL when the number has none. */
RVT_API const char *rvt_csr_name(unsigned csr);
/* The privileged specification's name of a trap cause ("instruction page
 * fault", "machine timer interrupt"); a generic word for reserved codes. */
RVT_API const char *rvt_trap_cause_name(bool interrupt, uint64_t code);

#ifdef __cplusplus
}
#endif
#endif
