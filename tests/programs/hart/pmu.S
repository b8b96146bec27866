/* Hardware performance counters with Sscofpmf, checked against the
 * privileged specification and the event list of docs/pmu.md: instruction,
 * branch, jump, load/store/AMO and trap events, the mode filters, mcountinhibit,
 * counter access from lower modes, overflow with OF, scountovf and the local
 * counter overflow interrupt (taken in M, and in S when delegated), and CTR's
 * freeze on it (LCOFIFRZ, v0.1.4 CSRs). */
#include "test_macros.h"

#define EV_INSTRUCTIONS 2
#define EV_BRANCHES 0x8000001
#define EV_TAKEN 0x8000002
#define EV_JUMPS 0x8000003
#define EV_LOADS 0x8000004
#define EV_STORES 0x8000005
#define EV_AMOS 0x8000006
#define EV_EXCEPTIONS 0x8000007
#define LCOF_IRQ 13

#if __riscv_xlen == 64
#define SET_EVENT(n, ev, hi) li t0, ((hi) << 32) | (ev); csrw mhpmevent##n, t0
#define SET_COUNTER(n, value) li t0, value; csrw mhpmcounter##n, t0
#else
#define SET_EVENT(n, ev, hi) li t0, (hi); csrw mhpmevent##n##h, t0; li t0, (ev); csrw mhpmevent##n, t0
#define SET_COUNTER(n, value) li t0, ((value) >> 32); csrw mhpmcounter##n##h, t0; li t0, (value) & 0xffffffff; csrw mhpmcounter##n, t0
#endif
/* upper-word Sscofpmf bits */
#define OF_HI (1 << 31)
#define MINH_HI (1 << 30)
#define SINH_HI (1 << 29)
#define UINH_HI (1 << 28)


    .section .text.init, "ax"
    .globl _start
_start:
    la t0, m_handler
    csrw mtvec, t0

    /* ---- 1-4: instructions: two reads 100 instructions apart */
    SET_EVENT(3, EV_INSTRUCTIONS, 0)
    csrr s1, mhpmcounter3
    .rept 99
    nop
    .endr
    csrr s2, mhpmcounter3
    sub t2, s2, s1
    CHECK_EQ(1, t2, 100)        /* the first read and 99 nops */
    /* an event the model does not count selects none: reads 0, stops */
    SET_EVENT(4, 0x4, 0)        /* CACHE_MISSES: no caches here */
    csrr t2, mhpmevent4
    CHECK_EQ(2, t2, 0)
    /* mcountinhibit stops counter 3 */
    li t0, 1 << 3
    csrs mcountinhibit, t0
    csrr s1, mhpmcounter3
    nop
    nop
    csrr s2, mhpmcounter3
    CHECK_EQ_REG(3, s1, s2)
    csrc mcountinhibit, t0
    /* CY and IR stop mcycle and minstret (the instruction that sets them is
     * not counted, the one that clears them is, as in spike); a write
     * while stopped sets the value */
    li t0, 5
    csrs mcountinhibit, t0
    csrr s1, mcycle
    csrr s3, minstret
    nop
    nop
    csrr s2, mcycle
    csrr s4, minstret
    CHECK_EQ_REG(41, s1, s2)
    CHECK_EQ_REG(42, s3, s4)
    li t1, 1000
    csrw minstret, t1
    csrw mcycle, t1
    nop
    csrr s4, minstret
    CHECK_EQ(43, s4, 1000)
    csrc mcountinhibit, t0
    csrr s2, mcycle
    csrr s4, minstret
    CHECK_EQ(44, s2, 1001)      /* the csrc */
    CHECK_EQ(45, s4, 1002)      /* the csrc and the read of mcycle */
    /* writes set the value */
    SET_COUNTER(3, 1000)
    csrr t2, mhpmcounter3
    li t6, 1000
    sub t2, t2, t6
    li t6, 3
    li a0, 4
    bgeu t2, t6, fail           /* 1000 and the few instructions since */

    /* ---- 5-9: branches, taken branches, jumps, loads, stores, AMOs */
    SET_EVENT(3, EV_BRANCHES, 0)
    SET_EVENT(4, EV_TAKEN, 0)
    SET_EVENT(5, EV_JUMPS, 0)
    SET_EVENT(6, EV_LOADS, 0)
    SET_EVENT(7, EV_STORES, 0)
    SET_EVENT(8, EV_AMOS, 0)
    csrr s3, mhpmcounter3
    csrr s4, mhpmcounter4
    csrr s5, mhpmcounter5
    csrr s6, mhpmcounter6
    csrr s7, mhpmcounter7
    csrr s8, mhpmcounter8
    li t2, 10
    la t3, scratch
2:  lw t4, 0(t3)                /* 10 loads */
    sw t4, 4(t3)                /* 10 stores */
    amoadd.w t4, t2, (t3)       /* 10 AMOs */
    jal t5, 3f                  /* 10 jumps */
3:  addi t2, t2, -1
    bnez t2, 2b                 /* 10 branches, 9 taken */
    csrr t2, mhpmcounter3
    sub t2, t2, s3
    CHECK_EQ(5, t2, 10)
    csrr t2, mhpmcounter4
    sub t2, t2, s4
    CHECK_EQ(6, t2, 9)
    csrr t2, mhpmcounter5
    sub t2, t2, s5
    CHECK_EQ(7, t2, 10)
    csrr t2, mhpmcounter6
    sub t2, t2, s6
    CHECK_EQ(8, t2, 10)
    csrr t2, mhpmcounter7
    sub t2, t2, s7
    csrr t3, mhpmcounter8
    sub t3, t3, s8
    add t2, t2, t3
    CHECK_EQ(9, t2, 20)         /* stores and AMOs apart */

    /* ---- 10-14: mode filters; exceptions in the mode they come from */
    SET_EVENT(3, EV_INSTRUCTIONS, MINH_HI)  /* U only (S idle) */
    SET_EVENT(4, EV_INSTRUCTIONS, UINH_HI)  /* M (and S) only */
    SET_EVENT(5, EV_EXCEPTIONS, MINH_HI)
    SET_EVENT(6, EV_INSTRUCTIONS, 0)        /* everywhere */
    csrr s6, mhpmcounter6
    csrr s4, mhpmcounter4
    csrr s3, mhpmcounter3
    csrr s5, mhpmcounter5
    RUN_IN(0, u_ten)            /* 10 instructions in U, then an ecall */
    csrr t3, mhpmcounter3
    csrr t4, mhpmcounter4
    csrr s7, mhpmcounter6
    sub t3, t3, s3
    sub t4, t4, s4
    sub s7, s7, s6
    CHECK_EQ(10, t3, 10)
    /* the M instructions from the read of 4 to the read of 4, and the two
     * reads of 6 around them: all of them */
    add t5, t3, t4
    addi t5, t5, 2
    CHECK_EQ_REG(12, t5, s7)
    li t5, 20
    li a0, 13
    bltu t4, t5, fail           /* M counted: the mret path and the handler */
    csrr t2, mhpmcounter5
    sub t2, t2, s5
    CHECK_EQ(11, t2, 1)         /* the ecall, taken from U */
    /* from U, hpmcounter3 needs mcounteren and scounteren */
    RUN_IN(0, u_read_hpm)
    LAST_CAUSE(t2)
    CHECK_EQ(14, t2, 2)
    li t0, 1 << 3
    csrs mcounteren, t0
    csrs scounteren, t0
    RUN_IN(0, u_read_hpm)
    LAST_CAUSE(t2)
    CHECK_EQ(15, t2, 8)         /* read, then the ecall */

    /* ---- 20-29: overflow, OF, scountovf, LCOFI in M */
    SET_EVENT(3, EV_INSTRUCTIONS, 0)
    SET_EVENT(4, 0, 0)
    SET_EVENT(5, 0, 0)
    SET_EVENT(6, 0, 0)
    SET_EVENT(7, 0, 0)
    SET_EVENT(8, 0, 0)
    SET_COUNTER(3, -20)
    la t1, last_cause
    SREG zero, 0(t1)
    RESUME_AT(4f)
    li t0, 1 << LCOF_IRQ
    csrs mie, t0
    csrsi mstatus, 8
    .rept 40
    nop                         /* the counter wraps in here */
    .endr
4:  csrci mstatus, 8
    LAST_CAUSE(t2)
#if __riscv_xlen == 64
    CHECK_EQ(20, t2, (1 << 63) | LCOF_IRQ)
    csrr t2, mhpmevent3
    srli t2, t2, 63
#else
    CHECK_EQ(20, t2, (1 << 31) | LCOF_IRQ)
    csrr t2, mhpmevent3h
    srli t2, t2, 31
#endif
    CHECK_EQ(21, t2, 1)         /* OF set */
    csrr t2, 0xda0              /* scountovf */
    CHECK_EQ(22, t2, 1 << 3)
    csrr t2, mhpmcounter3
    li t6, 100
    li a0, 23
    bgeu t2, t6, fail           /* wrapped to a small value */
    /* OF stays set: a second wrap raises no interrupt; clear it and LCOFIP */
    SET_EVENT(3, EV_INSTRUCTIONS, 0)  /* OF written 0 */
    li t0, 1 << LCOF_IRQ
    csrc mip, t0
    csrr t2, mip
    and t2, t2, t0
    CHECK_EQ(24, t2, 0)

    /* ---- 30-39: LCOFI delegated to S; scountovf through mcounteren */
    li t0, 1 << LCOF_IRQ
    csrs mideleg, t0
    la t0, s_handler
    csrw stvec, t0
    SET_COUNTER(3, -30)
    RUN_IN(1, s_wait)           /* S enables sie.LCOFIE and SIE and waits */
    la t1, s_cause
    LREG t2, 0(t1)
#if __riscv_xlen == 64
    CHECK_EQ(30, t2, (1 << 63) | LCOF_IRQ)
#else
    CHECK_EQ(30, t2, (1 << 31) | LCOF_IRQ)
#endif
    la t1, s_ovf
    LREG t2, 0(t1)
    CHECK_EQ(31, t2, 1 << 3)    /* mcounteren bit 3 is set: S sees OF */
    li t0, 1 << 3
    csrc mcounteren, t0
    RUN_IN(1, s_read_ovf)
    CHECK_EQ(32, s9, 0)         /* hidden without it */
    li t0, 1 << LCOF_IRQ
    csrc mideleg, t0
    csrc mip, t0
    csrc mie, t0

    /* ---- 40-49: LCOFIFRZ freezes CTR and the LCOFI is not recorded */
    SET_EVENT(3, EV_INSTRUCTIONS, 0)
    SET_COUNTER(3, -30)
    li t0, (1 << 7) | (1 << 12) | 1     /* CLR, LCOFIFRZ, M */
    csrw 0x381, t0
    RESUME_AT(5f)
    li t0, 1 << LCOF_IRQ
    csrs mie, t0
    j 6f                        /* recorded */
6:  csrsi mstatus, 8
    .rept 40
    nop
    .endr
5:  csrci mstatus, 8
    csrr t2, 0x383              /* mctrstatus */
    CHECK_EQ(40, t2, (1 << 15) | 1)     /* FROZEN, only the jump recorded */
    csrw 0x381, zero
    li t0, 1 << LCOF_IRQ
    csrc mie, t0
    csrc mip, t0
    SET_EVENT(3, 0, 0)

    j pass

u_ten:
    .rept 10
    nop
    .endr
    ecall
u_read_hpm:
    csrr t2, hpmcounter3
    ecall

s_wait:
    li t0, 1 << LCOF_IRQ
    csrs sie, t0
    csrsi sstatus, 2
    .rept 60
    nop
    .endr
    ecall                       /* the interrupt came first: s_handler */
s_read_ovf:
    csrr s9, 0xda0
    ecall

    .align 2
s_handler:
    csrr t3, scause
    la t4, s_cause
    SREG t3, 0(t4)
    csrr t3, 0xda0
    la t4, s_ovf
    SREG t3, 0(t4)
    li t3, 1 << LCOF_IRQ
    csrc sip, t3
    csrci sstatus, 2
    ecall                       /* back to M */

    .align 2
m_handler:
    csrr t3, mcause
    la t4, last_cause
    SREG t3, 0(t4)
    li t4, 1 << LCOF_IRQ
    csrc mie, t4                /* an overflow interrupt is taken once */
    la t3, resume
    LREG t3, 0(t3)
    csrw mepc, t3
    li t3, 3 << 11
    csrs mstatus, t3            /* back to M */
    mret

    EXIT_ROUTINES

    .data
    .align 3
resume: .dword 0
last_cause: .dword 0
s_cause: .dword 0
s_ovf: .dword 0
scratch: .dword 0, 0

EXIT_CODE_SECTIONS
