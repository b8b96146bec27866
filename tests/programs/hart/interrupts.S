/* Interrupts: machine timer and software interrupts from the CLINT, their
 * causes and priority, and a supervisor timer interrupt delegated to S. */
#include "test_macros.h"

#define CLINT 0x2000000
#define MTIMECMP (CLINT + 0x4000)
#define MTIME (CLINT + 0xbff8)

    .section .text.init, "ax"
    .globl _start
_start:
    la t0, m_handler
    csrw mtvec, t0
    /* The timer is pending from reset (mtimecmp = 0): push it far away. */
    li t0, MTIMECMP
    li t1, -1
    SREG t1, 0(t0)
#if __riscv_xlen == 32
    sw t1, 4(t0)
#endif
    csrr t2, mip
    andi t2, t2, 0x80
    CHECK_EQ(1, t2, 0)

    /* 2-3: machine timer interrupt once mtime passes mtimecmp */
    li t0, MTIME
    LREG t1, 0(t0)
    addi t1, t1, 100
    li t0, MTIMECMP
#if __riscv_xlen == 32
    sw zero, 4(t0)
#endif
    SREG t1, 0(t0)
    li t0, 0x80
    csrs mie, t0
    csrsi mstatus, 8
1:  la t1, seen_cause
    LREG t2, 0(t1)
    beqz t2, 1b
    li t3, (1 << (__riscv_xlen - 1)) | 7
    CHECK_EQ_REG(2, t2, t3)
    csrr t2, mstatus
    andi t2, t2, 8
    CHECK_EQ(3, t2, 8)           /* mret restored MIE */

    /* 4-5: software interrupt through msip, taken right after the write */
    la t1, seen_cause
    SREG zero, 0(t1)
    li t0, 8
    csrs mie, t0
    li t0, CLINT
    li t1, 1
    sw t1, 0(t0)
    csrr t5, mscratch           /* a CSR access is where pending interrupts are sampled */
    la t1, seen_cause
    LREG t2, 0(t1)
    li t3, (1 << (__riscv_xlen - 1)) | 3
    CHECK_EQ_REG(4, t2, t3)
    csrr t2, mip
    andi t2, t2, 8
    CHECK_EQ(5, t2, 0)

    /* 6: interrupts stay off while MIE = 0, even with WFI */
    csrci mstatus, 8
    la t1, seen_cause
    SREG zero, 0(t1)
    li t0, CLINT
    li t1, 1
    sw t1, 0(t0)
    wfi
    la t1, seen_cause
    LREG t2, 0(t1)
    CHECK_EQ(6, t2, 0)
    li t0, CLINT
    sw zero, 0(t0)

    /* 7: a supervisor timer interrupt delegated to S */
    li t0, 0x20
    csrs mideleg, t0
    csrs mie, t0
    la t0, s_handler
    csrw stvec, t0
    li t0, (3 << 11)
    csrc mstatus, t0
    li t0, (1 << 11)
    csrs mstatus, t0            /* MPP = S */
    la t0, s_code
    csrw mepc, t0
    mret
s_code:
    csrsi sstatus, 2            /* SIE */
    la t1, s_seen
    /* M raises STIP through mip: do it from an ecall */
    li a7, 1
    ecall
2:  LREG t2, 0(t1)
    beqz t2, 2b
    li t3, (1 << (__riscv_xlen - 1)) | 5
    li a0, 7
    bne t2, t3, s_fail
    li a0, 0
s_fail:
    li a7, 93
    ecall

    .align 2
s_handler:
    csrr t2, scause
    la t1, s_seen
    SREG t2, 0(t1)
    li a7, 2                    /* ask M to clear STIP */
    ecall
    sret

    .align 2
m_handler:
    csrr t3, mcause
    bltz t3, m_interrupt
    /* ecalls from S: a7 = 1 set STIP, 2 clear STIP, 93 exit with a0 */
    li t1, 93
    beq a7, t1, fail
    li t0, 0x20
    li t1, 1
    bne a7, t1, 3f
    csrs mip, t0
    j 4f
3:  csrc mip, t0
4:  csrr t4, mepc
    addi t4, t4, 4
    csrw mepc, t4
    mret
m_interrupt:
    la t1, seen_cause
    SREG t3, 0(t1)
    li t1, (1 << (__riscv_xlen - 1)) | 7
    bne t3, t1, 5f
    li t0, MTIMECMP             /* acknowledge the timer */
    li t1, -1
    SREG t1, 0(t0)
#if __riscv_xlen == 32
    sw t1, 4(t0)
#endif
    mret
5:  li t0, CLINT                /* acknowledge the software interrupt */
    sw zero, 0(t0)
    mret

    EXIT_ROUTINES

    .data
    .align 4
seen_cause: .dword 0
s_seen: .dword 0
    EXIT_CODE_SECTIONS
