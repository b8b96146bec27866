/* LR/SC and AMOs: results, sign extension of word forms, reservations. */
#include "test_macros.h"

    .section .text.init, "ax"
    .globl _start
_start:
    la s0, word
    /* 1-3: lr/sc succeeds on the reserved address */
    lr.w t0, (s0)
    CHECK_EQ(1, t0, -2)
    li t1, 5
    sc.w t2, t1, (s0)
    CHECK_EQ(2, t2, 0)
    lw t0, 0(s0)
    CHECK_EQ(3, t0, 5)
    /* 4-5: a second sc without a reservation fails and stores nothing */
    li t1, 9
    sc.w t2, t1, (s0)
    CHECK_EQ(4, t2, 1)
    lw t0, 0(s0)
    CHECK_EQ(5, t0, 5)
    /* 6-7: amoadd returns the old value */
    li t1, 10
    amoadd.w t0, t1, (s0)
    CHECK_EQ(6, t0, 5)
    lw t0, 0(s0)
    CHECK_EQ(7, t0, 15)
    /* 8-9: signed vs unsigned max on a negative word */
    li t1, -1
    sw t1, 0(s0)
    li t1, 3
    amomax.w t0, t1, (s0)
    lw t0, 0(s0)
    CHECK_EQ(8, t0, 3)
    li t1, -1
    amomaxu.w t0, t1, (s0)
    lw t0, 0(s0)
    CHECK_EQ(9, t0, -1)
    /* 10: amoswap, amoand, amoor, amoxor, amomin, amominu */
    li t1, 0x0f0
    amoswap.w t0, t1, (s0)
    li t1, 0x0ff
    amoand.w t0, t1, (s0)
    li t1, 0x100
    amoor.w t0, t1, (s0)
    li t1, 0x011
    amoxor.w t0, t1, (s0)
    lw t0, 0(s0)
    CHECK_EQ(10, t0, 0x1e1)
    li t1, -7
    amomin.w t0, t1, (s0)
    lw t0, 0(s0)
    CHECK_EQ(11, t0, -7)
    li t1, 2
    amominu.w t0, t1, (s0)
    lw t0, 0(s0)
    CHECK_EQ(12, t0, 2)
#if __riscv_xlen == 64
    /* 13-14: doubleword forms */
    la s1, dword
    li t1, 1
    amoadd.d t0, t1, (s1)
    li t2, 0x7fffffffffffffff
    CHECK_EQ_REG(13, t0, t2)
    ld t0, 0(s1)
    li t2, 0x8000000000000000
    CHECK_EQ_REG(14, t0, t2)
    lr.d t0, (s1)
    sc.d t3, zero, (s1)
    CHECK_EQ(15, t3, 0)
#endif
    /* 16: misaligned AMO: store/AMO address misaligned (cause 6) */
    la t0, handler
    csrw mtvec, t0
    addi t1, s0, 2
    amoadd.w t0, t1, (t1)
    CHECK_EQ(16, s11, 6)
    j pass

    .align 2
handler:
    csrr s11, mcause
    csrr t4, mepc
    addi t4, t4, 4
    csrw mepc, t4
    mret

    EXIT_ROUTINES

    .data
    .align 3
word: .word -2, 0
dword: .dword 0x7fffffffffffffff
    EXIT_CODE_SECTIONS
