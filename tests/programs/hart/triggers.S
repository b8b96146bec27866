/* The Sdtrig trigger module, checked against the debug specification
 * (1.0, chapter 5): mcontrol6 and mcontrol address and data matches on
 * execute, load and store, NAPOT ranges, chains, the mode bits, the hit
 * bits, and the breakpoint exception each raises (cause 3, xtval = the
 * matching address; before the instruction, or after it for a load data
 * match). The handler records mcause/mepc/mtval in s2/s3/s4, counts traps
 * in s5 and resumes at s11. */
#include "test_macros.h"

#define TYPE_SHIFT (__riscv_xlen - 4)
#define MC6 (6 << TYPE_SHIFT)
#define MC2 (2 << TYPE_SHIFT)
#define T_LOAD 1
#define T_STORE 2
#define T_EXEC 4
#define T_U 8
#define T_M 64
#define T_CHAIN (1 << 11)
#define MATCH(n) ((n) << 7)
#define MC6_SELECT (1 << 21)
#define MC6_HIT0 (1 << 22)
#define MC_SELECT (1 << 19)
#define MC_HIT (1 << 20)

#define CSR_TSELECT 0x7a0
#define CSR_TDATA1 0x7a1
#define CSR_TDATA2 0x7a2
#define CSR_TINFO 0x7a4

/* Arm trigger `n` with tdata2 = reg, tdata1 = value (tdata2 first, as a
 * debugger does, so the trigger never matches a stale address). */
#define ARM(n, value, reg) \
    li t0, n;              \
    csrw CSR_TSELECT, t0;  \
    li t0, MC6;            \
    csrw CSR_TDATA1, t0;   \
    csrw CSR_TDATA2, reg;  \
    li t0, value;          \
    csrw CSR_TDATA1, t0
#define DISARM(n)          \
    li t0, n;              \
    csrw CSR_TSELECT, t0;  \
    li t0, MC6;            \
    csrw CSR_TDATA1, t0

    .section .text.init, "ax"
    .globl _start
_start:
    la t0, m_handler
    csrw mtvec, t0
    li s5, 0
    csrsi mstatus, 8 /* MIE: breakpoint triggers are inhibited in M-mode without it */

    /* 1: mcontrol and mcontrol6 are supported types */
    csrw CSR_TSELECT, zero
    csrr t1, CSR_TINFO
    andi t1, t1, (1 << 2) | (1 << 6)
    CHECK_EQ(1, t1, (1 << 2) | (1 << 6))

    /* 2-6: mcontrol6 execute match: the instruction does not execute,
     * mepc = mtval = its address, hit0 is set */
    la s6, 1f
    ARM(0, MC6 | T_M | T_EXEC, s6)
    li s7, 0
    la s11, 2f
1:  li s7, 1
2:  CHECK_EQ(2, s7, 0)
    CHECK_EQ(3, s2, 3)
    CHECK_EQ_REG(4, s3, s6)
    CHECK_EQ_REG(5, s4, s6)
    csrr t1, CSR_TDATA1
    li t2, MC6_HIT0
    and t1, t1, t2
    CHECK_EQ(6, t1, MC6_HIT0)
    DISARM(0)

    /* 7-9: NAPOT store address range of 8 bytes: a store inside it faults
     * with mtval = the store's address and does not write */
    la s6, data
    ori t1, s6, 3
    ARM(0, MC6 | T_M | T_STORE | MATCH(1), t1)
    li s5, 0
    la s11, 3f
    li t1, 0x77
    sb t1, 5(s6)
3:  CHECK_EQ(7, s5, 1)
    addi t2, s6, 5
    CHECK_EQ_REG(8, s4, t2)
    lbu t1, 5(s6)
    CHECK_EQ(9, t1, 0)
    /* 10: outside the range: no trap */
    sb t1, 8(s6)
    CHECK_EQ(10, s5, 1)
    DISARM(0)

    /* 11-12: store data match (select): only the matching value traps */
    li t1, 0x55
    ARM(0, MC6 | T_M | T_STORE | MC6_SELECT, t1)
    li s5, 0
    li t1, 0x66
    sw t1, 0(s6)
    CHECK_EQ(11, s5, 0)
    la s11, 4f
    li t1, 0x55
    sw t1, 0(s6)
4:  CHECK_EQ(12, s5, 1)
    DISARM(0)

    /* 13-16: mcontrol load data match fires after the load: the register
     * holds the value and mepc is the next instruction */
    li t1, 0x66
    li t0, 0
    csrw CSR_TSELECT, t0
    csrw CSR_TDATA2, t1
    li t0, MC2 | T_M | T_LOAD | MC_SELECT
    csrw CSR_TDATA1, t0
    li s5, 0
    la s11, 6f
    lw s7, 0(s6)       /* 0x66, stored above */
5:  li s8, 1
6:  CHECK_EQ(13, s5, 1)
    CHECK_EQ(14, s7, 0x66)
    la t1, 5b
    CHECK_EQ_REG(15, s3, t1)
    CHECK_EQ_REG(16, s4, s6)
    li t0, 0
    csrw CSR_TSELECT, t0
    csrr t1, CSR_TDATA1
    li t2, MC_HIT
    and t1, t1, t2
    CHECK_EQ(17, t1, MC_HIT)
    li t0, MC2
    csrw CSR_TDATA1, t0

    /* 18-19: a chain fires only when both triggers match */
    addi t1, s6, 16
    ARM(0, MC6 | T_M | T_STORE | T_CHAIN, s6)
    ARM(1, MC6 | T_M | T_STORE, t1)
    li s5, 0
    sw zero, 0(s6)
    CHECK_EQ(18, s5, 0)
    ARM(1, MC6 | T_M | T_STORE | MATCH(2), s6) /* address >= data */
    la s11, 7f
    sw zero, 0(s6)
7:  CHECK_EQ(19, s5, 1)
    DISARM(1)
    DISARM(0)

    /* 20: a trigger for U-mode only does not fire in M-mode */
    la s6, 8f
    ARM(0, MC6 | T_U | T_EXEC, s6)
    li s5, 0
8:  nop
    CHECK_EQ(20, s5, 0)
    /* 21: nor does an M-mode breakpoint trigger while MIE is 0 */
    DISARM(0)
    la s6, 9f
    ARM(0, MC6 | T_M | T_EXEC, s6)
    csrci mstatus, 8
9:  nop
    csrsi mstatus, 8
    CHECK_EQ(21, s5, 0)
    DISARM(0)
    j pass

m_handler:
    csrr s2, mcause
    csrr s3, mepc
    csrr s4, mtval
    addi s5, s5, 1
    csrw mepc, s11
    mret

EXIT_ROUTINES

    .data
    .align 4
data: .zero 32
EXIT_CODE_SECTIONS
