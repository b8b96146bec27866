/* Every pair of operations the interpreter's code blocks run with one
 * dispatch (exec.c: HART_PAIR_FIRST, then one of HART_PAIR_SECOND), each
 * pair at the start of a block of its own so that it is paired. The second
 * reads what the first wrote where it reads a register. Three rounds, each
 * with other operand values; every result is folded into a checksum (s2)
 * and the memory the stores write (s1's 64 bytes).
 *
 * The program checks nothing itself: test_hart.c runs it one instruction at
 * a time (execute(), which the ISA suites hold to spike) and in code blocks,
 * and compares every register and that memory. */
#include "test_macros.h"

/* The first operations: write x10, from x5 and x6 or memory at s1. */
.macro first_ADDI
    addi x10, x5, -1234
.endm
.macro first_ADD
    add x10, x5, x6
.endm
.macro first_SLLI
    slli x10, x5, 13
.endm
.macro first_SRLI
    srli x10, x5, 7
.endm
.macro first_OR
    or x10, x5, x6
.endm
.macro first_MUL
    mul x10, x5, x6
.endm
.macro first_ANDI
    andi x10, x5, 0x5a5
.endm
.macro first_XOR
    xor x10, x5, x6
.endm
.macro first_LUI
    lui x10, 0x8badf
.endm
.macro first_AND
    and x10, x5, x6
.endm
.macro first_SUB
    sub x10, x5, x6
.endm
.macro first_SLTU
    sltu x10, x5, x6
.endm
.macro first_SRAI
    srai x10, x5, 19
.endm
.macro first_XORI
    xori x10, x5, -99
.endm
.macro first_ADDW
    addw x10, x5, x6
.endm
.macro first_ADDIW
    addiw x10, x5, 1000
.endm
.macro first_LW
    lw x10, 4(s1)
.endm
.macro first_LD
    ld x10, 8(s1)
.endm
.macro first_LBU
    lbu x10, 13(s1)
.endm
.macro first_LH
    lh x10, 6(s1)
.endm
.macro first_LHU
    lhu x10, 22(s1)
.endm
.macro first_SW
    sw x6, 24(s1)
.endm
.macro first_SD
    sd x5, 32(s1)
.endm
.macro first_SB
    sb x5, 41(s1)
.endm

/* The second operations: read x10 and x7, write x11 or memory at s1. */
.macro second_ADDI
    addi x11, x10, 77
.endm
.macro second_ADD
    add x11, x10, x7
.endm
.macro second_SLLI
    slli x11, x10, 3
.endm
.macro second_SRLI
    srli x11, x10, 29
.endm
.macro second_OR
    or x11, x10, x7
.endm
.macro second_MUL
    mul x11, x10, x7
.endm
.macro second_ANDI
    andi x11, x10, -16
.endm
.macro second_XOR
    xor x11, x10, x7
.endm
.macro second_LUI
    lui x11, 0xfedcb
.endm
.macro second_AND
    and x11, x10, x7
.endm
.macro second_SUB
    sub x11, x10, x7
.endm
.macro second_SLTU
    sltu x11, x10, x7
.endm
.macro second_SRAI
    srai x11, x10, 5
.endm
.macro second_XORI
    xori x11, x10, 0x3c
.endm
.macro second_ADDW
    addw x11, x10, x7
.endm
.macro second_ADDIW
    addiw x11, x10, -2000
.endm
/* A branch: past an instruction that counts in x12 when not taken. */
.macro branch op
    \op x10, x7, 1f
    addi x12, x12, 1
1:
.endm
.macro second_BEQ
    branch beq
.endm
.macro second_BNE
    branch bne
.endm
.macro second_BLT
    branch blt
.endm
.macro second_BGE
    branch bge
.endm
.macro second_BLTU
    branch bltu
.endm
.macro second_BGEU
    branch bgeu
.endm
.macro second_LB
    lb x11, 43(s1)
.endm
.macro second_LH
    lh x11, 26(s1)
.endm
.macro second_LW
    lw x11, 28(s1)
.endm
.macro second_LD
    ld x11, 32(s1)
.endm
.macro second_LBU
    lbu x11, 41(s1)
.endm
.macro second_LHU
    lhu x11, 18(s1)
.endm
.macro second_LWU
    lwu x11, 36(s1)
.endm
.macro second_SB
    sb x10, 45(s1)
.endm
.macro second_SH
    sh x10, 50(s1)
.endm
.macro second_SW
    sw x10, 52(s1)
.endm
.macro second_SD
    sd x10, 56(s1)
.endm
.macro second_JAL
    jal x11, 1f
1:
.endm
/* (t3: the address after the jump, set before the block began) */
.macro second_JALR
    jalr x11, 0(t3)
.endm
/* The end of a block that does not end in a jump: an instruction no block
 * holds comes next. */
.macro second_END
    csrr x11, mscratch
.endm

.macro pair first, second
    la t3, 2f
    j 1f
1:
    first_\first
    second_\second
2:
    /* s2 = s2 * 33 ^ x10 + x11 */
    slli t4, s2, 5
    add s2, s2, t4
    xor s2, s2, x10
    add s2, s2, x11
.endm

#if __riscv_xlen == 64
#define FIRSTS ADDI, ADD, SLLI, SRLI, OR, MUL, ANDI, XOR, LUI, AND, SUB, SLTU, SRAI, XORI, ADDW, ADDIW, LW, LD, LBU, LH, LHU, SW, SD, SB
#define SECONDS ADDI, ADD, SLLI, SRLI, OR, MUL, ANDI, XOR, LUI, AND, SUB, SLTU, SRAI, XORI, ADDW, ADDIW, BEQ, BNE, BLT, BGE, BLTU, BGEU, LB, LH, LW, LD, LBU, LHU, LWU, SB, SH, SW, SD, JAL, JALR, END
#else
#define FIRSTS ADDI, ADD, SLLI, SRLI, OR, MUL, ANDI, XOR, LUI, AND, SUB, SLTU, SRAI, XORI, LW, LBU, LH, LHU, SW, SB
#define SECONDS ADDI, ADD, SLLI, SRLI, OR, MUL, ANDI, XOR, LUI, AND, SUB, SLTU, SRAI, XORI, BEQ, BNE, BLT, BGE, BLTU, BGEU, LB, LH, LW, LBU, LHU, SB, SH, SW, JAL, JALR, END
#endif

    .section .text.init, "ax", @progbits
    .globl _start
_start:
    la s1, signature
    li s2, 0
    li s3, 3       /* rounds */
#if __riscv_xlen == 64
    li x5, 0x0123456789abcdef
    li x6, -0x7edcba9876543211
#else
    li x5, 0x89abcdef
    li x6, -0x76543211
#endif
    li x7, -16
round:
    .irp f, FIRSTS
    .irp s, SECONDS
    pair \f, \s
    .endr
    .endr
    /* Other operands for the next round: x7 = x5, and in the last round
     * x6 = 0, so that x10 = x7 after some first operations (a branch on
     * equal taken). */
    mul x5, x5, x6
    addi x5, x5, 0x2b
    xor x6, x6, s2
    mv x7, x5
    addi s3, s3, -1
    li t5, 1
    bne s3, t5, 1f
    li x6, 0
1:
    bnez s3, round
    j pass
EXIT_ROUTINES

    .data
    .align 6
signature:
    .dword 0x8899aabbccddeeff, 0x0011223344556677, 0xfedcba9876543210, 0x7f6e5d4c3b2a1908
    .dword 0x80000000ffffffff, 0x1234567800000080, 0xdeadbeefcafef00d, 0x5555aaaa3333cccc
EXIT_CODE_SECTIONS
