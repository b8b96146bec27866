/* Instruction decoding for RV32/RV64 IMAFDC, Zicsr, Zifencei and the
 * privileged instructions, written from the unprivileged and privileged ISA
 * manuals. Compressed instructions are expanded to the operation they stand
 * for (op) while remembering their own identity (cop). */
#include "rvtrace/isa.h"

#include <string.h>

static const char *const op_names[RVT_OP_COUNT] = {
#define RVT_OP_NAME(name, text) text,
    RVT_OPS(RVT_OP_NAME)
#undef RVT_OP_NAME
};

const char *rvt_op_name(unsigned op) { return op < RVT_OP_COUNT ? op_names[op] : "illegal"; }

unsigned rvt_insn_length(uint16_t low16) {
    if ((low16 & 0x3) != 0x3)
        return 2;
    if ((low16 & 0x1f) != 0x1f)
        return 4;
    if ((low16 & 0x3f) == 0x1f)
        return 6;
    if ((low16 & 0x7f) == 0x3f)
        return 8;
    /* 80..176-bit encodings carry their size in bits 14:12; all-ones there is
     * reserved for >= 192 bits, which we treat as a 2-byte unit. */
    if ((low16 & 0x707f) != 0x707f)
        return 10 + ((low16 >> 11) & 0xe);
    return 2;
}

static inline uint32_t bits(uint32_t v, unsigned hi, unsigned lo) {
    return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}
static inline uint32_t bit(uint32_t v, unsigned pos) { return (v >> pos) & 1u; }
static inline int64_t sext(uint64_t v, unsigned width) {
    uint64_t m = 1ull << (width - 1);
    v &= (width == 64) ? ~0ull : ((1ull << width) - 1);
    return (int64_t)((v ^ m) - m);
}

static void set(rvt_insn *o, unsigned op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm) {
    o->op = (uint16_t)op;
    o->rd = (uint8_t)rd;
    o->rs1 = (uint8_t)rs1;
    o->rs2 = (uint8_t)rs2;
    o->imm = imm;
}

/* ---------------------------------------------------------------- 32-bit */

static int64_t imm_i(uint32_t r) { return (int32_t)r >> 20; }
static int64_t imm_s(uint32_t r) { return ((int32_t)r >> 25) * 32 + (int64_t)bits(r, 11, 7); }
static int64_t imm_b(uint32_t r) {
    uint32_t v = (bit(r, 31) << 12) | (bit(r, 7) << 11) | (bits(r, 30, 25) << 5) | (bits(r, 11, 8) << 1);
    return sext(v, 13);
}
static int64_t imm_u(uint32_t r) { return (int32_t)(r & 0xfffff000u); }
static int64_t imm_j(uint32_t r) {
    uint32_t v = (bit(r, 31) << 20) | (bits(r, 19, 12) << 12) | (bit(r, 20) << 11) | (bits(r, 30, 21) << 1);
    return sext(v, 21);
}

static unsigned decode_op_fp(uint32_t r, unsigned xlen, rvt_insn *o) {
    unsigned f7 = bits(r, 31, 25), f3 = bits(r, 14, 12), rs2 = bits(r, 24, 20);
    bool rv64 = xlen == 64;
    o->rm = (uint8_t)f3;
    switch (f7) {
    case 0x00: return RVT_OP_FADD_S;
    case 0x04: return RVT_OP_FSUB_S;
    case 0x08: return RVT_OP_FMUL_S;
    case 0x0c: return RVT_OP_FDIV_S;
    case 0x01: return RVT_OP_FADD_D;
    case 0x05: return RVT_OP_FSUB_D;
    case 0x09: return RVT_OP_FMUL_D;
    case 0x0d: return RVT_OP_FDIV_D;
    case 0x2c: return rs2 == 0 ? RVT_OP_FSQRT_S : RVT_OP_ILLEGAL;
    case 0x2d: return rs2 == 0 ? RVT_OP_FSQRT_D : RVT_OP_ILLEGAL;
    case 0x10: return f3 == 0 ? RVT_OP_FSGNJ_S : f3 == 1 ? RVT_OP_FSGNJN_S : f3 == 2 ? RVT_OP_FSGNJX_S : RVT_OP_ILLEGAL;
    case 0x11: return f3 == 0 ? RVT_OP_FSGNJ_D : f3 == 1 ? RVT_OP_FSGNJN_D : f3 == 2 ? RVT_OP_FSGNJX_D : RVT_OP_ILLEGAL;
    case 0x14: return f3 == 0 ? RVT_OP_FMIN_S : f3 == 1 ? RVT_OP_FMAX_S : RVT_OP_ILLEGAL;
    case 0x15: return f3 == 0 ? RVT_OP_FMIN_D : f3 == 1 ? RVT_OP_FMAX_D : RVT_OP_ILLEGAL;
    case 0x20: return rs2 == 1 ? RVT_OP_FCVT_S_D : RVT_OP_ILLEGAL;
    case 0x21: return rs2 == 0 ? RVT_OP_FCVT_D_S : RVT_OP_ILLEGAL;
    case 0x50: return f3 == 2 ? RVT_OP_FEQ_S : f3 == 1 ? RVT_OP_FLT_S : f3 == 0 ? RVT_OP_FLE_S : RVT_OP_ILLEGAL;
    case 0x51: return f3 == 2 ? RVT_OP_FEQ_D : f3 == 1 ? RVT_OP_FLT_D : f3 == 0 ? RVT_OP_FLE_D : RVT_OP_ILLEGAL;
    case 0x60:
        switch (rs2) {
        case 0: return RVT_OP_FCVT_W_S;
        case 1: return RVT_OP_FCVT_WU_S;
        case 2: return rv64 ? RVT_OP_FCVT_L_S : RVT_OP_ILLEGAL;
        case 3: return rv64 ? RVT_OP_FCVT_LU_S : RVT_OP_ILLEGAL;
        default: return RVT_OP_ILLEGAL;
        }
    case 0x61:
        switch (rs2) {
        case 0: return RVT_OP_FCVT_W_D;
        case 1: return RVT_OP_FCVT_WU_D;
        case 2: return rv64 ? RVT_OP_FCVT_L_D : RVT_OP_ILLEGAL;
        case 3: return rv64 ? RVT_OP_FCVT_LU_D : RVT_OP_ILLEGAL;
        default: return RVT_OP_ILLEGAL;
        }
    case 0x68:
        switch (rs2) {
        case 0: return RVT_OP_FCVT_S_W;
        case 1: return RVT_OP_FCVT_S_WU;
        case 2: return rv64 ? RVT_OP_FCVT_S_L : RVT_OP_ILLEGAL;
        case 3: return rv64 ? RVT_OP_FCVT_S_LU : RVT_OP_ILLEGAL;
        default: return RVT_OP_ILLEGAL;
        }
    case 0x69:
        switch (rs2) {
        case 0: return RVT_OP_FCVT_D_W;
        case 1: return RVT_OP_FCVT_D_WU;
        case 2: return rv64 ? RVT_OP_FCVT_D_L : RVT_OP_ILLEGAL;
        case 3: return rv64 ? RVT_OP_FCVT_D_LU : RVT_OP_ILLEGAL;
        default: return RVT_OP_ILLEGAL;
        }
    case 0x70:
        if (rs2 != 0)
            return RVT_OP_ILLEGAL;
        return f3 == 0 ? RVT_OP_FMV_X_W : f3 == 1 ? RVT_OP_FCLASS_S : RVT_OP_ILLEGAL;
    case 0x71:
        if (rs2 != 0)
            return RVT_OP_ILLEGAL;
        return (f3 == 0 && rv64) ? RVT_OP_FMV_X_D : f3 == 1 ? RVT_OP_FCLASS_D : RVT_OP_ILLEGAL;
    case 0x78: return (rs2 == 0 && f3 == 0) ? RVT_OP_FMV_W_X : RVT_OP_ILLEGAL;
    case 0x79: return (rs2 == 0 && f3 == 0 && rv64) ? RVT_OP_FMV_D_X : RVT_OP_ILLEGAL;
    default: return RVT_OP_ILLEGAL;
    }
}

static unsigned decode_amo(uint32_t r, unsigned xlen, rvt_insn *o) {
    unsigned f3 = bits(r, 14, 12), f5 = bits(r, 31, 27);
    bool d = f3 == 3;
    if (f3 != 2 && !(d && xlen == 64))
        return RVT_OP_ILLEGAL;
    o->rm = (uint8_t)bits(r, 26, 25);
    static const struct {
        unsigned f5, w, dw;
    } amos[] = {
        {0x02, RVT_OP_LR_W, RVT_OP_LR_D},           {0x03, RVT_OP_SC_W, RVT_OP_SC_D},
        {0x01, RVT_OP_AMOSWAP_W, RVT_OP_AMOSWAP_D}, {0x00, RVT_OP_AMOADD_W, RVT_OP_AMOADD_D},
        {0x04, RVT_OP_AMOXOR_W, RVT_OP_AMOXOR_D},   {0x0c, RVT_OP_AMOAND_W, RVT_OP_AMOAND_D},
        {0x08, RVT_OP_AMOOR_W, RVT_OP_AMOOR_D},     {0x10, RVT_OP_AMOMIN_W, RVT_OP_AMOMIN_D},
        {0x14, RVT_OP_AMOMAX_W, RVT_OP_AMOMAX_D},   {0x18, RVT_OP_AMOMINU_W, RVT_OP_AMOMINU_D},
        {0x1c, RVT_OP_AMOMAXU_W, RVT_OP_AMOMAXU_D},
    };
    for (size_t i = 0; i < sizeof amos / sizeof amos[0]; i++) {
        if (amos[i].f5 != f5)
            continue;
        if (f5 == 0x02 && bits(r, 24, 20) != 0)
            return RVT_OP_ILLEGAL;
        return d ? amos[i].dw : amos[i].w;
    }
    return RVT_OP_ILLEGAL;
}

static unsigned decode_system(uint32_t r, rvt_insn *o) {
    unsigned f3 = bits(r, 14, 12);
    o->csr = (uint16_t)bits(r, 31, 20);
    switch (f3) {
    case 1: return RVT_OP_CSRRW;
    case 2: return RVT_OP_CSRRS;
    case 3: return RVT_OP_CSRRC;
    case 5: return RVT_OP_CSRRWI;
    case 6: return RVT_OP_CSRRSI;
    case 7: return RVT_OP_CSRRCI;
    case 0: break;
    default: return RVT_OP_ILLEGAL;
    }
    o->csr = 0;
    switch (r) {
    case 0x00000073: return RVT_OP_ECALL;
    case 0x00100073: return RVT_OP_EBREAK;
    case 0x00200073: return RVT_OP_URET;
    case 0x10200073: return RVT_OP_SRET;
    case 0x30200073: return RVT_OP_MRET;
    case 0x7b200073: return RVT_OP_DRET;
    case 0x10500073: return RVT_OP_WFI;
    case 0x10400073: return RVT_OP_SCTRCLR; /* Smctr/Ssctr 1.0 */
    default: break;
    }
    if (bits(r, 31, 25) == 0x09 && bits(r, 11, 7) == 0)
        return RVT_OP_SFENCE_VMA;
    return RVT_OP_ILLEGAL;
}

static void decode32(uint32_t r, unsigned xlen, rvt_insn *o) {
    unsigned opc = bits(r, 6, 0), rd = bits(r, 11, 7), rs1 = bits(r, 19, 15), rs2 = bits(r, 24, 20);
    unsigned f3 = bits(r, 14, 12), f7 = bits(r, 31, 25);
    bool rv64 = xlen == 64;
    unsigned op = RVT_OP_ILLEGAL;
    int64_t imm = 0;

    switch (opc) {
    case 0x37: op = RVT_OP_LUI; imm = imm_u(r); break;
    case 0x17: op = RVT_OP_AUIPC; imm = imm_u(r); break;
    case 0x6f: op = RVT_OP_JAL; imm = imm_j(r); break;
    case 0x67: if (f3 == 0) { op = RVT_OP_JALR; imm = imm_i(r); } break;
    case 0x63: {
        static const unsigned br[8] = {RVT_OP_BEQ, RVT_OP_BNE, RVT_OP_ILLEGAL, RVT_OP_ILLEGAL,
                                       RVT_OP_BLT, RVT_OP_BGE, RVT_OP_BLTU, RVT_OP_BGEU};
        op = br[f3];
        imm = imm_b(r);
        break;
    }
    case 0x03: {
        static const unsigned ld[8] = {RVT_OP_LB, RVT_OP_LH, RVT_OP_LW, RVT_OP_LD,
                                       RVT_OP_LBU, RVT_OP_LHU, RVT_OP_LWU, RVT_OP_ILLEGAL};
        op = ld[f3];
        if (!rv64 && (op == RVT_OP_LD || op == RVT_OP_LWU))
            op = RVT_OP_ILLEGAL;
        imm = imm_i(r);
        break;
    }
    case 0x23: {
        static const unsigned st[8] = {RVT_OP_SB, RVT_OP_SH, RVT_OP_SW, RVT_OP_SD, 0, 0, 0, 0};
        op = st[f3];
        if (!rv64 && op == RVT_OP_SD)
            op = RVT_OP_ILLEGAL;
        imm = imm_s(r);
        break;
    }
    case 0x13: {
        imm = imm_i(r);
        unsigned shhi = rv64 ? bits(r, 31, 26) : f7; /* bits above the shift amount */
        unsigned shamt = rv64 ? bits(r, 25, 20) : bits(r, 24, 20);
        switch (f3) {
        case 0: op = RVT_OP_ADDI; break;
        case 2: op = RVT_OP_SLTI; break;
        case 3: op = RVT_OP_SLTIU; break;
        case 4: op = RVT_OP_XORI; break;
        case 6: op = RVT_OP_ORI; break;
        case 7: op = RVT_OP_ANDI; break;
        case 1:
            if (shhi == 0) { op = RVT_OP_SLLI; imm = shamt; }
            break;
        case 5:
            if (shhi == 0) { op = RVT_OP_SRLI; imm = shamt; }
            else if (shhi == (rv64 ? 0x10u : 0x20u)) { op = RVT_OP_SRAI; imm = shamt; }
            break;
        }
        break;
    }
    case 0x33: {
        static const unsigned base[8] = {RVT_OP_ADD, RVT_OP_SLL, RVT_OP_SLT, RVT_OP_SLTU,
                                         RVT_OP_XOR, RVT_OP_SRL, RVT_OP_OR, RVT_OP_AND};
        static const unsigned mext[8] = {RVT_OP_MUL, RVT_OP_MULH, RVT_OP_MULHSU, RVT_OP_MULHU,
                                         RVT_OP_DIV, RVT_OP_DIVU, RVT_OP_REM, RVT_OP_REMU};
        if (f7 == 0) op = base[f3];
        else if (f7 == 1) op = mext[f3];
        else if (f7 == 0x20 && f3 == 0) op = RVT_OP_SUB;
        else if (f7 == 0x20 && f3 == 5) op = RVT_OP_SRA;
        break;
    }
    case 0x1b:
        if (!rv64)
            break;
        imm = imm_i(r);
        if (f3 == 0) op = RVT_OP_ADDIW;
        else if (f3 == 1 && f7 == 0) { op = RVT_OP_SLLIW; imm = rs2; }
        else if (f3 == 5 && f7 == 0) { op = RVT_OP_SRLIW; imm = rs2; }
        else if (f3 == 5 && f7 == 0x20) { op = RVT_OP_SRAIW; imm = rs2; }
        break;
    case 0x3b:
        if (!rv64)
            break;
        if (f7 == 0) {
            op = f3 == 0 ? RVT_OP_ADDW : f3 == 1 ? RVT_OP_SLLW : f3 == 5 ? RVT_OP_SRLW : RVT_OP_ILLEGAL;
        } else if (f7 == 0x20) {
            op = f3 == 0 ? RVT_OP_SUBW : f3 == 5 ? RVT_OP_SRAW : RVT_OP_ILLEGAL;
        } else if (f7 == 1) {
            static const unsigned mw[8] = {RVT_OP_MULW, 0, 0, 0, RVT_OP_DIVW, RVT_OP_DIVUW, RVT_OP_REMW, RVT_OP_REMUW};
            op = mw[f3];
        }
        break;
    case 0x0f:
        /* rd, rs1 and the fm field are reserved and must be zero, except for
         * the one fence.tso encoding. */
        if (f3 == 0 && rd == 0 && rs1 == 0) {
            o->rm = (uint8_t)bits(r, 27, 20);
            if (bits(r, 31, 28) == 0)
                op = RVT_OP_FENCE;
            else if (r == 0x8330000fu)
                op = RVT_OP_FENCE_TSO;
        } else if (f3 == 1 && rd == 0 && rs1 == 0 && bits(r, 31, 20) == 0) {
            op = RVT_OP_FENCE_I;
        }
        break;
    case 0x73: op = decode_system(r, o); break;
    case 0x2f: op = decode_amo(r, xlen, o); break;
    case 0x07:
        imm = imm_i(r);
        op = f3 == 2 ? RVT_OP_FLW : f3 == 3 ? RVT_OP_FLD : RVT_OP_ILLEGAL;
        break;
    case 0x27:
        imm = imm_s(r);
        op = f3 == 2 ? RVT_OP_FSW : f3 == 3 ? RVT_OP_FSD : RVT_OP_ILLEGAL;
        break;
    case 0x43: case 0x47: case 0x4b: case 0x4f: {
        unsigned fmt = bits(r, 26, 25);
        static const unsigned fs[4] = {RVT_OP_FMADD_S, RVT_OP_FMSUB_S, RVT_OP_FNMSUB_S, RVT_OP_FNMADD_S};
        static const unsigned fd[4] = {RVT_OP_FMADD_D, RVT_OP_FMSUB_D, RVT_OP_FNMSUB_D, RVT_OP_FNMADD_D};
        unsigned k = (opc >> 2) & 3;
        op = fmt == 0 ? fs[k] : fmt == 1 ? fd[k] : RVT_OP_ILLEGAL;
        o->rs3 = (uint8_t)bits(r, 31, 27);
        o->rm = (uint8_t)f3;
        break;
    }
    case 0x53: op = decode_op_fp(r, xlen, o); break;
    default: break;
    }
    set(o, op, rd, rs1, rs2, imm);
}

/* ---------------------------------------------------------------- 16-bit */

static void decode16(uint32_t r, unsigned xlen, rvt_insn *o) {
    unsigned quadrant = r & 3, f3 = bits(r, 15, 13);
    unsigned rdp = bits(r, 4, 2) + 8, rs1p = bits(r, 9, 7) + 8;
    unsigned rd = bits(r, 11, 7), rs2 = bits(r, 6, 2);
    bool rv64 = xlen == 64;
    int64_t ci = sext((bit(r, 12) << 5) | bits(r, 6, 2), 6);
    unsigned uimm_w = (bits(r, 12, 10) << 3) | (bit(r, 6) << 2) | (bit(r, 5) << 6); /* c.lw/c.sw */
    unsigned uimm_d = (bits(r, 12, 10) << 3) | (bits(r, 6, 5) << 6);                /* c.ld/c.sd */
    unsigned cop = RVT_OP_ILLEGAL, op = RVT_OP_ILLEGAL;
    unsigned xd = 0, xs1 = 0, xs2 = 0;
    int64_t imm = 0;

    if (quadrant == 0) {
        switch (f3) {
        case 0: {
            unsigned nz = (bits(r, 12, 11) << 4) | (bits(r, 10, 7) << 6) | (bit(r, 6) << 2) | (bit(r, 5) << 3);
            if (r == 0) {
                cop = RVT_OP_C_UNIMP; /* defined illegal instruction: op stays ILLEGAL */
            } else if (nz) {
                cop = RVT_OP_C_ADDI4SPN; op = RVT_OP_ADDI; xd = rdp; xs1 = 2; imm = nz;
            }
            break;
        }
        case 1: cop = RVT_OP_C_FLD; op = RVT_OP_FLD; xd = rdp; xs1 = rs1p; imm = uimm_d; break;
        case 2: cop = RVT_OP_C_LW; op = RVT_OP_LW; xd = rdp; xs1 = rs1p; imm = uimm_w; break;
        case 3:
            if (rv64) { cop = RVT_OP_C_LD; op = RVT_OP_LD; xd = rdp; xs1 = rs1p; imm = uimm_d; }
            else { cop = RVT_OP_C_FLW; op = RVT_OP_FLW; xd = rdp; xs1 = rs1p; imm = uimm_w; }
            break;
        case 5: cop = RVT_OP_C_FSD; op = RVT_OP_FSD; xs1 = rs1p; xs2 = rdp; imm = uimm_d; break;
        case 6: cop = RVT_OP_C_SW; op = RVT_OP_SW; xs1 = rs1p; xs2 = rdp; imm = uimm_w; break;
        case 7:
            if (rv64) { cop = RVT_OP_C_SD; op = RVT_OP_SD; xs1 = rs1p; xs2 = rdp; imm = uimm_d; }
            else { cop = RVT_OP_C_FSW; op = RVT_OP_FSW; xs1 = rs1p; xs2 = rdp; imm = uimm_w; }
            break;
        default: break;
        }
    } else if (quadrant == 1) {
        switch (f3) {
        case 0:
            cop = rd == 0 ? RVT_OP_C_NOP : RVT_OP_C_ADDI;
            op = RVT_OP_ADDI; xd = xs1 = rd; imm = ci;
            break;
        case 1:
            if (!rv64) {
                goto cj;
            } else if (rd != 0) {
                cop = RVT_OP_C_ADDIW; op = RVT_OP_ADDIW; xd = xs1 = rd; imm = ci;
            }
            break;
        case 2: cop = RVT_OP_C_LI; op = RVT_OP_ADDI; xd = rd; xs1 = 0; imm = ci; break;
        case 3:
            if (rd == 2) {
                int64_t v = sext((bit(r, 12) << 9) | (bit(r, 6) << 4) | (bit(r, 5) << 6) |
                                     (bits(r, 4, 3) << 7) | (bit(r, 2) << 5), 10);
                if (v) { cop = RVT_OP_C_ADDI16SP; op = RVT_OP_ADDI; xd = xs1 = 2; imm = v; }
            } else if (ci != 0) {
                cop = RVT_OP_C_LUI; op = RVT_OP_LUI; xd = rd; imm = ci * 4096;
            }
            break;
        case 4: {
            unsigned sub = bits(r, 11, 10);
            unsigned shamt = (bit(r, 12) << 5) | bits(r, 6, 2);
            xd = xs1 = rs1p;
            if (sub == 0 || sub == 1) {
                if (rv64 || !bit(r, 12)) {
                    cop = sub == 0 ? RVT_OP_C_SRLI : RVT_OP_C_SRAI;
                    op = sub == 0 ? RVT_OP_SRLI : RVT_OP_SRAI;
                    imm = shamt;
                }
            } else if (sub == 2) {
                cop = RVT_OP_C_ANDI; op = RVT_OP_ANDI; imm = ci;
            } else {
                static const unsigned c32[4] = {RVT_OP_C_SUB, RVT_OP_C_XOR, RVT_OP_C_OR, RVT_OP_C_AND};
                static const unsigned o32[4] = {RVT_OP_SUB, RVT_OP_XOR, RVT_OP_OR, RVT_OP_AND};
                unsigned k = bits(r, 6, 5);
                xs2 = rdp;
                if (!bit(r, 12)) { cop = c32[k]; op = o32[k]; }
                else if (rv64 && k == 0) { cop = RVT_OP_C_SUBW; op = RVT_OP_SUBW; }
                else if (rv64 && k == 1) { cop = RVT_OP_C_ADDW; op = RVT_OP_ADDW; }
            }
            break;
        }
        case 5:
        cj: {
            int64_t v = sext((bit(r, 12) << 11) | (bit(r, 11) << 4) | (bits(r, 10, 9) << 8) |
                                 (bit(r, 8) << 10) | (bit(r, 7) << 6) | (bit(r, 6) << 7) |
                                 (bits(r, 5, 3) << 1) | (bit(r, 2) << 5), 12);
            if (f3 == 1) { cop = RVT_OP_C_JAL; xd = 1; }
            else { cop = RVT_OP_C_J; xd = 0; }
            op = RVT_OP_JAL; imm = v;
            break;
        }
        case 6: case 7: {
            int64_t v = sext((bit(r, 12) << 8) | (bits(r, 11, 10) << 3) | (bits(r, 6, 5) << 6) |
                                 (bits(r, 4, 3) << 1) | (bit(r, 2) << 5), 9);
            cop = f3 == 6 ? RVT_OP_C_BEQZ : RVT_OP_C_BNEZ;
            op = f3 == 6 ? RVT_OP_BEQ : RVT_OP_BNE;
            xs1 = rs1p; xs2 = 0; imm = v;
            break;
        }
        }
    } else if (quadrant == 2) {
        unsigned lwsp = (bit(r, 12) << 5) | (bits(r, 6, 4) << 2) | (bits(r, 3, 2) << 6);
        unsigned ldsp = (bit(r, 12) << 5) | (bits(r, 6, 5) << 3) | (bits(r, 4, 2) << 6);
        unsigned swsp = (bits(r, 12, 9) << 2) | (bits(r, 8, 7) << 6);
        unsigned sdsp = (bits(r, 12, 10) << 3) | (bits(r, 9, 7) << 6);
        switch (f3) {
        case 0:
            if (rv64 || !bit(r, 12)) {
                cop = RVT_OP_C_SLLI; op = RVT_OP_SLLI; xd = xs1 = rd; imm = (bit(r, 12) << 5) | bits(r, 6, 2);
            }
            break;
        case 1: cop = RVT_OP_C_FLDSP; op = RVT_OP_FLD; xd = rd; xs1 = 2; imm = ldsp; break;
        case 2:
            if (rd) { cop = RVT_OP_C_LWSP; op = RVT_OP_LW; xd = rd; xs1 = 2; imm = lwsp; }
            break;
        case 3:
            if (!rv64) { cop = RVT_OP_C_FLWSP; op = RVT_OP_FLW; xd = rd; xs1 = 2; imm = lwsp; }
            else if (rd) { cop = RVT_OP_C_LDSP; op = RVT_OP_LD; xd = rd; xs1 = 2; imm = ldsp; }
            break;
        case 4:
            if (!bit(r, 12)) {
                if (rs2 == 0) {
                    if (rd) { cop = RVT_OP_C_JR; op = RVT_OP_JALR; xd = 0; xs1 = rd; }
                } else {
                    cop = RVT_OP_C_MV; op = RVT_OP_ADD; xd = rd; xs1 = 0; xs2 = rs2;
                }
            } else if (rd == 0 && rs2 == 0) {
                cop = RVT_OP_C_EBREAK; op = RVT_OP_EBREAK;
            } else if (rs2 == 0) {
                cop = RVT_OP_C_JALR; op = RVT_OP_JALR; xd = 1; xs1 = rd;
            } else {
                cop = RVT_OP_C_ADD; op = RVT_OP_ADD; xd = xs1 = rd; xs2 = rs2;
            }
            break;
        case 5: cop = RVT_OP_C_FSDSP; op = RVT_OP_FSD; xs1 = 2; xs2 = rs2; imm = sdsp; break;
        case 6: cop = RVT_OP_C_SWSP; op = RVT_OP_SW; xs1 = 2; xs2 = rs2; imm = swsp; break;
        case 7:
            if (rv64) { cop = RVT_OP_C_SDSP; op = RVT_OP_SD; xs1 = 2; xs2 = rs2; imm = sdsp; }
            else { cop = RVT_OP_C_FSWSP; op = RVT_OP_FSW; xs1 = 2; xs2 = rs2; imm = swsp; }
            break;
        }
    }
    if (op == RVT_OP_ILLEGAL && cop != RVT_OP_C_UNIMP)
        cop = RVT_OP_ILLEGAL;
    o->cop = (uint16_t)cop;
    set(o, op, xd, xs1, xs2, imm);
}

/* ---------------------------------------------------------- classification */

static bool is_link(unsigned r) { return r == 1 || r == 5; }

static void classify(rvt_insn *o) {
    o->cf = RVT_CF_NONE;
    o->jclass = RVT_JUMP_NONE;
    switch (o->op) {
    case RVT_OP_BEQ: case RVT_OP_BNE: case RVT_OP_BLT:
    case RVT_OP_BGE: case RVT_OP_BLTU: case RVT_OP_BGEU:
        o->cf = RVT_CF_BRANCH;
        break;
    case RVT_OP_JAL:
        o->cf = RVT_CF_JAL;
        o->jclass = is_link(o->rd) ? RVT_JUMP_CALL : o->rd == 0 ? RVT_JUMP_TAIL : RVT_JUMP_OTHER;
        break;
    case RVT_OP_JALR:
        o->cf = RVT_CF_JALR;
        if (is_link(o->rd) && is_link(o->rs1) && o->rd != o->rs1)
            o->jclass = RVT_JUMP_SWAP;
        else if (is_link(o->rd))
            o->jclass = RVT_JUMP_CALL;
        else if (is_link(o->rs1))
            o->jclass = RVT_JUMP_RETURN;
        else
            o->jclass = o->rd == 0 ? RVT_JUMP_TAIL : RVT_JUMP_OTHER;
        break;
    case RVT_OP_ECALL: case RVT_OP_EBREAK:
        o->cf = RVT_CF_TRAP;
        break;
    case RVT_OP_URET: case RVT_OP_SRET: case RVT_OP_MRET: case RVT_OP_DRET:
        o->cf = RVT_CF_XRET;
        break;
    default:
        break;
    }
}

unsigned rvt_decode(uint32_t raw, unsigned xlen, rvt_insn *out) {
    memset(out, 0, sizeof *out);
    unsigned len = rvt_insn_length((uint16_t)raw);
    out->len = (uint8_t)len;
    if (len == 2) {
        out->raw = raw & 0xffff;
        decode16(out->raw, xlen, out);
    } else {
        out->raw = raw;
        if (len == 4)
            decode32(raw, xlen, out);
    }
    classify(out);
    return len;
}

unsigned rvt_itype(const rvt_insn *in, bool taken, unsigned width, bool ntrace) {
    switch (in->cf) {
    case RVT_CF_BRANCH: return taken ? RVT_ITYPE_BRANCH_TAKEN : RVT_ITYPE_BRANCH_NOT_TAKEN;
    case RVT_CF_TRAP: return RVT_ITYPE_EXCEPTION;
    case RVT_CF_XRET: return RVT_ITYPE_XRET;
    case RVT_CF_JAL:
    case RVT_CF_JALR: {
        bool inferable = in->cf == RVT_CF_JAL;
        if (width < 4)
            return inferable ? RVT_ITYPE_NONE : RVT_ITYPE_UNINFERABLE_JUMP;
        switch (in->jclass) {
        case RVT_JUMP_CALL: return inferable ? RVT_ITYPE_INFERABLE_CALL : RVT_ITYPE_UNINFERABLE_CALL;
        case RVT_JUMP_RETURN: return RVT_ITYPE_RETURN;
        case RVT_JUMP_SWAP: return RVT_ITYPE_SWAP;
        case RVT_JUMP_TAIL:
            if (!ntrace)
                return inferable ? RVT_ITYPE_INFERABLE_TAIL : RVT_ITYPE_UNINFERABLE_TAIL;
            /* fall through */
        default: return inferable ? RVT_ITYPE_OTHER_INFERABLE : RVT_ITYPE_OTHER_UNINFERABLE;
        }
    }
    default: return RVT_ITYPE_NONE;
    }
}

static uint64_t to_xlen(uint64_t v, unsigned xlen) { return xlen == 32 ? (uint32_t)v : v; }

uint64_t rvt_direct_target(const rvt_insn *in, uint64_t pc, unsigned xlen) {
    return to_xlen(pc + (uint64_t)in->imm, xlen);
}

bool rvt_seq_inferable_target(const rvt_insn *prev, uint64_t prev_pc, const rvt_insn *jump,
                              unsigned xlen, uint64_t *target) {
    if (jump->op != RVT_OP_JALR || prev->rd == 0 || prev->rd != jump->rs1)
        return false;
    uint64_t base;
    if (prev->op == RVT_OP_LUI)
        base = (uint64_t)prev->imm;
    else if (prev->op == RVT_OP_AUIPC)
        base = prev_pc + (uint64_t)prev->imm;
    else
        return false;
    *target = to_xlen((base + (uint64_t)jump->imm) & ~1ull, xlen);
    return true;
}

bool rvt_insn_walkable(const rvt_insn *in) {
    if (in->op != RVT_OP_ILLEGAL)
        return true;
    if (in->len != 4)
        return false;
    unsigned opcode = in->raw & 0x7f, width = (in->raw >> 12) & 7;
    switch (opcode) {
    case 0x57:                       /* OP-V */
    case 0x0b: case 0x2b: case 0x5b: case 0x7b: /* custom-0..3 */
        return true;
    case 0x07: case 0x27:            /* vector loads and stores: widths 8, 16, 32, 64 */
        return width == 0 || width >= 5;
    default:
        return false;
    }
}
