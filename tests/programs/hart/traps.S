/* Exceptions, delegation and privilege changes, checked against the
 * privileged specification: xcause, xepc, xtval, xstatus updates. */
#include "test_macros.h"

    .section .text.init, "ax"
    .globl _start
_start:
    la t0, m_handler
    csrw mtvec, t0
    la sp, stack_top

    /* 1-3: ecall from M: cause 11, mepc = the ecall, mtval = 0 */
    la s1, 1f
1:  ecall
    la t1, last_cause
    LREG t2, 0(t1)
    CHECK_EQ(1, t2, 11)
    LREG t2, REGBYTES(t1)
    CHECK_EQ_REG(2, t2, s1)
    LREG t2, 2*REGBYTES(t1)
    CHECK_EQ(3, t2, 0)

    /* 4-5: illegal instruction: mtval holds the instruction bits */
    .option push
    .option norvc
    .word 0x00001067            /* jalr with funct3 = 1 */
    .option pop
    la t1, last_cause
    LREG t2, 0(t1)
    CHECK_EQ(4, t2, 2)
    LREG t2, 2*REGBYTES(t1)
    CHECK_EQ(5, t2, 0x00001067)

    /* 6-7: misaligned load: cause 4, mtval = the address */
    la s1, data
    addi s1, s1, 1
    lw t2, 0(s1)
    la t1, last_cause
    LREG t2, 0(t1)
    CHECK_EQ(6, t2, 4)
    LREG t2, 2*REGBYTES(t1)
    CHECK_EQ_REG(7, t2, s1)

    /* 8-9: ebreak: cause 3, mtval = pc */
    la s1, 2f
2:  ebreak
    la t1, last_cause
    LREG t2, 0(t1)
    CHECK_EQ(8, t2, 3)
    LREG t2, 2*REGBYTES(t1)
    CHECK_EQ_REG(9, t2, s1)

    /* 10: store access fault outside memory: cause 7 */
    li s1, 0x10000000
    sw zero, 0(s1)
    la t1, last_cause
    LREG t2, 0(t1)
    CHECK_EQ(10, t2, 7)

    /* 15-16: a store into the boot ROM, right after a load from it: a
     * store access fault, and the ROM keeps its word */
    la t1, last_cause
    SREG zero, 0(t1)
    li s1, 0x1000
    lw s4, 0(s1)
    sw zero, 0(s1)
    la t1, last_cause
    LREG t2, 0(t1)
    CHECK_EQ(15, t2, 7)
    lw t2, 0(s1)
    CHECK_EQ_REG(16, t2, s4)

    /* 11-14: delegate user ecalls to S; go to U through S */
    li t0, (1 << 8)
    csrw medeleg, t0
    la t0, s_handler
    csrw stvec, t0
    li t0, (3 << 11)
    csrc mstatus, t0
    li t0, (1 << 11)            /* MPP = S */
    csrs mstatus, t0
    la t0, s_code
    csrw mepc, t0
    mret
s_code:
    csrr t2, sstatus            /* readable from S */
    li t0, (1 << 8)
    csrc sstatus, t0            /* SPP = U */
    la t0, u_code
    csrw sepc, t0
    sret
u_code:
    la s1, 3f
3:  ecall                       /* delegated: goes to s_handler */
    /* back in U: s_handler checked scause = 8 and sepc */
    csrr t2, mstatus            /* 12: illegal from U, not delegated: M handler */
    la t1, last_cause
    LREG t2, 0(t1)
    li a0, 12
    li t6, 2
    bne t2, t6, fail_from_u
    ecall                       /* U ecall again: S handler sees cause 8, returns */
    li a0, 0
    j exit_from_u

    .align 2
s_handler:
    li t1, 93
    beq a7, t1, s_exit
    csrr t2, scause
    li a0, 11
    li t6, 8
    bne t2, t6, fail_from_s
    csrr t2, sepc
    addi t2, t2, 4
    csrw sepc, t2
    sret
fail_from_s:
fail_from_u:
exit_from_u:
    /* Leave U (and then S) through ecalls with a7 = 93 and s2 = result. */
    mv s2, a0
    li a7, 93
    ecall
s_exit:
    ecall                       /* from S: cause 9, not delegated */

    .align 2
m_handler:
    csrr t3, mcause
    csrr t4, mepc
    csrr t5, mtval
    la t1, last_cause
    SREG t3, 0(t1)
    SREG t4, REGBYTES(t1)
    SREG t5, 2*REGBYTES(t1)
    /* ecall from U or S with a7 = 93: finish the test with s2 */
    li t1, 8
    beq t3, t1, from_lower
    li t1, 9
    beq t3, t1, from_lower
    /* advance mepc past the trapping instruction (2 or 4 bytes) */
    lhu t1, 0(t4)
    andi t1, t1, 3
    li t2, 3
    addi t4, t4, 2
    bne t1, t2, 4f
    addi t4, t4, 2
4:  csrw mepc, t4
    mret
from_lower:
    li t1, 93
    bne a7, t1, 5f
    /* 13-14: the exit ecall came from S: mcause 9, MPP = S */
    mv a0, s2
    bnez a0, fail
    li a0, 13
    li t1, 9
    bne t3, t1, fail
    csrr t1, mstatus
    srli t1, t1, 11
    andi t1, t1, 3
    li a0, 14
    li t2, 1
    bne t1, t2, fail
    j pass
5:  addi t4, t4, 4
    csrw mepc, t4
    mret

    EXIT_ROUTINES

    .data
    .align 4
data: .dword 0x1122334455667788
last_cause: .dword 0, 0, 0
    .align 4
stack: .space 256
stack_top:
    EXIT_CODE_SECTIONS
