/* Control Transfer Records, checked against Smctr/Ssctr: the v0.1.4 draft,
 * or ratified 1.0 when built with -DCTR_V10. Discovery, every transfer type
 * and filter bit, the privilege-transition table, depth, WRPTR and WRAP, RAS
 * emulation, freeze, cycle counting, access control and illegal accesses.
 * The machine: depths 16..256, every optional field, no H extension. */
#include "test_macros.h"

#ifdef CTR_V10
#define CTRCTL 0x34e
#define SCTRCTL 0x14e
#define STATUS 0x14f
#define SCTRSTATUS 0x14f
#define ISEL 0x150
#define IREG 0x151
#define IREG2 0x152
#define IREG3 0x153
#define IREG4 0x155
#define EN_M (1 << 2)
#define EN_S (1 << 1)
#define EN_U (1 << 0)
#define RASEMU (1 << 7)
#define STE (1 << 8)
#define MTE (1 << 9)
#define FROZEN (1 << 31)
#define STATEEN_CTR_HI (1 << (54 - 32))
#define VSCTRCTL 0x24e
#else
#define CTRCTL 0x381
#define CTRCTLH 0x382
#define SCTRCTL 0x181
#define STATUS 0x383
#define SCTRSTATUS 0x183
#define ISEL 0x350
#define IREG 0x351
#define IREG2 0x352
#define IREG3 0x353
#define IREG4 0x355
#define EN_M (1 << 0)
#define EN_S (1 << 1)
#define EN_U (1 << 2)
#define CLR (1 << 7)
#define MTE (1 << 8)
#define STE (1 << 9)
#define RASEMU (1 << 10)
#define DEPTH_SHIFT 16
#define ETEN_HI (1 << (38 - 32))
#define WRAP (1 << 14)
#define FROZEN (1 << 15)
#define STATEEN_CTR_HI (1 << (55 - 32))
#define VSCTRCTL 0x281
#endif
#define BPFRZ (1 << 11)
#define MSTATEEN0 0x30c
#define SISEL 0x150
#define SIREG 0x151
#define STATEEN_CSRIND_HI (1 << (60 - 32))
/* filter bits, as offsets into the upper word */
#define EXCINH_HI (1 << 1)
#define INTRINH_HI (1 << 2)
#define TRETINH_HI (1 << 3)
#define NTBREN_HI (1 << 4)
#define TKBRINH_HI (1 << 5)
#define TYPEINH_HI(t) (1 << ((t) - 8 + 8)) /* INDCALLINH (type 8) is bit 40 */

#if __riscv_xlen == 64
#define SETCTL(lo, hi) li t0, ((hi) << 32) | (lo); csrw CTRCTL, t0
#define HAS_HIGH_FIELDS 1
#define STATEEN_SET(hi) li t0, (hi) << 32; csrs MSTATEEN0, t0
#define STATEEN_CLEAR(hi) li t0, (hi) << 32; csrc MSTATEEN0, t0
#else
#define STATEEN_SET(hi) li t0, (hi); csrs 0x31c, t0
#define STATEEN_CLEAR(hi) li t0, (hi); csrc 0x31c, t0
#ifdef CTR_V10
#define SETCTL(lo, hi) li t0, (lo); csrw CTRCTL, t0 /* RV32 cannot reach bits 63:32 */
#define HAS_HIGH_FIELDS 0
#else
#define SETCTL(lo, hi) li t0, (hi); csrw CTRCTLH, t0; li t0, (lo); csrw CTRCTL, t0
#define HAS_HIGH_FIELDS 1
#endif
#endif

/* Recording off, every entry and the status cleared, depth unchanged. */
#ifdef CTR_V10
#define CTR_CLEAR csrw CTRCTL, zero; .word 0x10400073 /* sctrclr */; csrw STATUS, zero
#else
#define CTR_CLEAR SETCTL(CLR, 0)
#endif
#define CTR_OFF csrw CTRCTL, zero

#define READ_ENTRY(k, src, tgt, data) \
    li t0, 0x200 + (k);               \
    csrw ISEL, t0;                    \
    csrr src, IREG;                   \
    csrr tgt, IREG2;                  \
    csrr data, IREG3
#define WRPTR(reg) csrr reg, STATUS; andi reg, reg, 0xff

/* Traps go to m_handler, which keeps mcause and resumes in M at the address
 * in `resume` (test_macros.h): straight-line code and one mret, so the
 * records a trap adds are known (the trap and the mret). */
/* Reading `csr` must raise an illegal-instruction exception. */
#define EXPECT_ILLEGAL_READ(n, csr) \
    RESUME_AT(1f);              \
    la t1, last_cause;          \
    SREG zero, 0(t1);           \
    csrr t2, csr;               \
1:  LAST_CAUSE(t2);             \
    CHECK_EQ(n, t2, 2)

    .section .text.init, "ax"
    .globl _start
_start:
    la t0, m_handler
    csrw mtvec, t0
    la sp, stack_top

    /* ---- 1-9: discovery (DEPTH range, implemented fields) */
#ifdef CTR_V10
    csrw 0x15f, zero            /* sctrdepth */
    csrr t2, 0x15f
    CHECK_EQ(1, t2, 0)          /* 16 entries */
    li t0, 7                    /* reserved encoding: unchanged */
    csrw 0x15f, t0
    csrr t2, 0x15f
    CHECK_EQ(2, t2, 0)
    li t0, 4
    csrw 0x15f, t0
    csrr t2, 0x15f
    CHECK_EQ(3, t2, 4)          /* 256 entries */
    csrw 0x15f, zero
#else
    SETCTL(0, 0)
    csrr t2, CTRCTL
    CHECK_EQ(1, t2, 0)          /* DEPTH 0000: 16 entries, the minimum */
    SETCTL(15 << DEPTH_SHIFT, 0)
    csrr t2, CTRCTL
    CHECK_EQ(2, t2, 15 << DEPTH_SHIFT) /* 1111: 256 entries */
    SETCTL(2 << DEPTH_SHIFT, 0)        /* 0010 encodes no depth: unchanged */
    csrr t2, CTRCTL
    CHECK_EQ(3, t2, 15 << DEPTH_SHIFT)
    SETCTL(0, 0)
#endif
    /* every field written as 1 reads back as implemented; CLR reads 0 */
    li t0, -1
    csrw CTRCTL, t0
    csrr t2, CTRCTL
#if __riscv_xlen == 64
#ifdef CTR_V10
    CHECK_EQ(4, t2, 0x0000ff3e00001b87)
#else
    CHECK_EQ(4, t2, 0x0000ff7e000f1f07)
#endif
#else
#ifdef CTR_V10
    CHECK_EQ(4, t2, 0x00001b87)
#else
    CHECK_EQ(4, t2, 0x000f1f07)
    li t0, -1
    csrw CTRCTLH, t0
    csrr t2, CTRCTLH
    CHECK_EQ(5, t2, 0x0000ff7e)
#endif
#endif
    CTR_OFF
    CTR_CLEAR
    /* entry 0: every writable field; MISP is not implemented */
    READ_ENTRY(0, t2, t3, t4)
    li t0, -1
    csrw IREG, t0
    csrw IREG2, t0
    csrw IREG3, t0
    csrw IREG4, t0
    csrr t2, IREG
    CHECK_EQ(6, t2, -1)
    csrr t2, IREG2
    CHECK_EQ(7, t2, -2)
    csrr t2, IREG3
    CHECK_EQ(8, t2, 0xffff800f)
    csrr t2, IREG4
    CHECK_EQ(9, t2, 0)
    CTR_CLEAR

    /* ---- 10-29: one transfer of each type, default filters */
    SETCTL(EN_M, 0)
call_site:
    jal ra, do_transfers
after_call:
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(10, t2, 10)
    READ_ENTRY(9, t2, t3, t4)   /* the oldest: the call */
    la t5, call_site
    ori t5, t5, 1
    CHECK_EQ_REG(11, t2, t5)
    la t5, do_transfers
    CHECK_EQ_REG(12, t3, t5)
    andi t4, t4, 15
    CHECK_EQ(13, t4, 9)
    READ_ENTRY(8, t2, t3, t4)   /* the taken branch */
    la t5, dt_taken
    ori t5, t5, 1
    CHECK_EQ_REG(14, t2, t5)
    andi t4, t4, 15
    CHECK_EQ(15, t4, 5)
    /* types youngest first: return, swap, return, indirect call, other
     * direct, other indirect, indirect jump, direct jump */
    la s1, expected_types
    li s2, 0
2:  li t0, 0x200
    add t0, t0, s2
    csrw ISEL, t0
    csrr t4, IREG3
    andi t4, t4, 15
    add t1, s1, s2
    lbu t5, 0(t1)
    li a0, 16
    bne t4, t5, fail
    addi s2, s2, 1
    li t1, 8
    bne s2, t1, 2b
    READ_ENTRY(0, t2, t3, t4)   /* the final return goes back to the call site */
    la t5, after_call
    CHECK_EQ_REG(17, t3, t5)
    READ_ENTRY(10, t2, t3, t4)  /* beyond the records: never written */
    CHECK_EQ(18, t2, 0)
    READ_ENTRY(16, t2, t3, t4)  /* beyond the depth: reads 0 */
    CHECK_EQ(19, t2, 0)
    li t0, 1
    csrw IREG, t0               /* and ignores writes */
    csrr t2, IREG
    CHECK_EQ(20, t2, 0)

#if HAS_HIGH_FIELDS
    /* ---- 30-49: each filter bit; the sequence has one transfer of each
     * type but two returns, and its not-taken branch needs NTBREN */
    la s1, filter_table
3:  LREG s2, 0(s1)              /* upper-word filter bit, 0 ends */
    beqz s2, 4f
    LREG s3, REGBYTES(s1)       /* records expected */
    CTR_CLEAR
#if __riscv_xlen == 64
    slli t0, s2, 32
    ori t0, t0, EN_M
    csrw CTRCTL, t0
#else
    csrw CTRCTLH, s2
    li t0, EN_M
    csrw CTRCTL, t0
#endif
    jal ra, do_transfers
    CTR_OFF
    WRPTR(t2)
    LREG a0, 2*REGBYTES(s1)     /* check number */
    bne t2, s3, fail
    addi s1, s1, 3*REGBYTES
    j 3b
4:
    /* traps and trap returns: EXCINH, TRETINH */
    CTR_CLEAR
    SETCTL(EN_M, EXCINH_HI)
    RESUME_AT(5f)
    ecall
5:  CTR_OFF
    WRPTR(t2)
    CHECK_EQ(40, t2, 1)         /* the mret only */
    READ_ENTRY(0, t2, t3, t4)
    andi t4, t4, 15
    CHECK_EQ(41, t4, 3)
    CTR_CLEAR
    SETCTL(EN_M, TRETINH_HI)
    RESUME_AT(5f)
    ecall
5:  CTR_OFF
    WRPTR(t2)
    CHECK_EQ(42, t2, 1)         /* the ecall only */
    READ_ENTRY(0, t2, t3, t4)
    andi t4, t4, 15
    CHECK_EQ(43, t4, 1)
    la t5, m_handler
    CHECK_EQ_REG(44, t3, t5)
    /* INTRINH: a machine software interrupt */
    CTR_CLEAR
    SETCTL(EN_M, INTRINH_HI)
    call take_msi
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(45, t2, 3)         /* call, mret, return: no interrupt */
    CTR_CLEAR
    SETCTL(EN_M, 0)
    call take_msi
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(46, t2, 4)
    READ_ENTRY(2, t2, t3, t4)
    andi t4, t4, 15
    CHECK_EQ(47, t4, 2)
#endif

    /* ---- 50-69: privilege transitions (U and M; S stays disabled) */
    /* trap from a disabled mode (U) into an enabled one (M): source 0 */
    /* records: mret M->U, trap U->M, the handler's mret M->M */
    CTR_CLEAR
    SETCTL(EN_M, 0)
    RUN_IN(0, u_ecall)
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(50, t2, 3)
    READ_ENTRY(1, t2, t3, t4)
    CHECK_EQ(51, t2, 1)         /* V, PC 0 */
    la t5, m_handler
    CHECK_EQ_REG(52, t3, t5)
    andi t4, t4, 15
    CHECK_EQ(53, t4, 1)
    /* return from an enabled mode (M) into a disabled one (U): target 0 */
    READ_ENTRY(2, t2, t3, t4)
    andi t2, t2, 1
    CHECK_EQ(54, t2, 1)
    CHECK_EQ(55, t3, 0)
    andi t4, t4, 15
    CHECK_EQ(56, t4, 3)
    /* external trap (U enabled -> M disabled): not recorded by default */
    CTR_CLEAR
    SETCTL(EN_U, 0)
    RUN_IN(0, u_branch_ecall)   /* mret M->U: not recorded (from a disabled mode) */
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(57, t2, 1)         /* the branch in U only */
    READ_ENTRY(0, t2, t3, t4)
    andi t4, t4, 15
    CHECK_EQ(58, t4, 5)
    /* ... and recorded with the target mode's opt-in, target 0 */
    CTR_CLEAR
#ifdef CTR_V10
    SETCTL(EN_U | MTE | STE, 0) /* U -> M needs S's opt-in too */
#else
    SETCTL(EN_U | MTE, ETEN_HI)
#endif
    RUN_IN(0, u_branch_ecall)
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(59, t2, 2)
    READ_ENTRY(0, t2, t3, t4)
    la t5, u_ecall_insn
    ori t5, t5, 1
    CHECK_EQ_REG(60, t2, t5)
    CHECK_EQ(61, t3, 0)
    andi t4, t4, 15
    CHECK_EQ(62, t4, 1)
    /* the opt-in of the target mode alone is not enough */
    CTR_CLEAR
#ifdef CTR_V10
    SETCTL(EN_U | MTE, 0)
#else
    SETCTL(EN_U | MTE, 0)       /* no ETEN */
#endif
    RUN_IN(0, u_branch_ecall)
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(63, t2, 1)
    /* disabled -> disabled: nothing; S enabled only, U and M not */
    CTR_CLEAR
    SETCTL(EN_S, 0)
    RUN_IN(0, u_branch_ecall)
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(64, t2, 0)
    /* S enabled: a branch in S is recorded, its trap to M is external */
    CTR_CLEAR
    SETCTL(EN_S, 0)
    RUN_IN(1, u_branch_ecall)
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(65, t2, 1)

    /* ---- 70-79: depth, WRPTR and WRAP */
    CTR_CLEAR
    SETCTL(EN_M, 0)
    .option push
    .option norvc
wrap_first:
    .rept 17
    j 6f
6:
    .endr
    .option pop
    CTR_OFF
    csrr t2, STATUS
#ifdef CTR_V10
    CHECK_EQ(70, t2, 1)
#else
    CHECK_EQ(70, t2, WRAP | 1)  /* 17 records in 16 entries: wrapped once */
#endif
    READ_ENTRY(15, t2, t3, t4)  /* the oldest left is the second jump */
    la t5, wrap_first + 5
    CHECK_EQ_REG(76, t2, t5)
    READ_ENTRY(0, t2, t3, t4)
    la t5, wrap_first + 65
    CHECK_EQ_REG(77, t2, t5)
#ifndef CTR_V10
    /* DEPTH 32 with CLR: everything zero, 32 entries addressable */
    SETCTL(CLR | (1 << DEPTH_SHIFT), 0)
    csrr t2, STATUS
    CHECK_EQ(71, t2, 0)
    READ_ENTRY(15, t2, t3, t4)
    CHECK_EQ(72, t2, 0)
    li t0, 0x200 + 31
    csrw ISEL, t0
    li t0, 0x41
    csrw IREG, t0
    csrr t2, IREG
    CHECK_EQ(73, t2, 0x41)
    li t0, 0x200 + 32
    csrw ISEL, t0
    csrr t2, IREG
    CHECK_EQ(74, t2, 0)
    /* WRPTR bits above depth - 1 read 0 */
    li t0, 0xff
    csrw STATUS, t0
    WRPTR(t2)
    CHECK_EQ(75, t2, 31)
    SETCTL(CLR, 0)              /* back to 16 entries */
#endif

    /* ---- 80-89: RAS emulation */
    CTR_CLEAR
    SETCTL(EN_M | RASEMU, 0)
    jal ra, ras_outer           /* ras_inner keeps what it saw */
    CTR_OFF
    la s1, ras_seen
    LREG t2, 0(s1)
    CHECK_EQ(80, t2, 3)         /* three calls on the stack */
    LREG t2, REGBYTES(s1)
    la t5, ras_inner_call
    ori t5, t5, 1
    CHECK_EQ_REG(81, t2, t5)    /* entry 0: the inner call */
    LREG t2, 2*REGBYTES(s1)
    la t5, ras_outer_call
    ori t5, t5, 1
    CHECK_EQ_REG(82, t2, t5)    /* entry 1: the outer call */
    /* the whole of do_transfers pushes and pops back to empty */
    CTR_CLEAR
    SETCTL(EN_M | RASEMU, 0)
    jal ra, do_transfers
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(83, t2, 0)
    READ_ENTRY(15, t2, t3, t4)  /* the popped call went to the bottom, invalid */
    andi t2, t2, 1
    CHECK_EQ(84, t2, 0)
#ifndef CTR_V10
    /* a pop at WRPTR 0 wraps to depth - 1 and clears WRAP */
    li t0, WRAP
    csrw STATUS, t0
    SETCTL(EN_M | RASEMU, 0)
    la a1, 8f
    jalr zero, 0(a1)            /* a jump: inhibited under RAS emulation */
8:  la ra, 9f
    ret                         /* pop */
9:  CTR_OFF
    csrr t2, STATUS
    CHECK_EQ(85, t2, 15)
#endif

    /* A return under RAS emulation adds the popped call's cycle count to
     * the running count (CTR-084): the next call's CC is then the cycles
     * since the call below it, as if the popped one had not happened. The
     * link register is t0 (x5), so the macros stay out of the sequence. */
    CTR_CLEAR
    SETCTL(EN_M | RASEMU, 0)
ras_cc_p0:
    jal t0, 1f                  /* call P0: CCV 0 (first record) */
1:  .rept 5
    nop
    .endr
    jal t0, ras_cc_callee       /* call P1, popped again */
    .rept 3
    nop
    .endr
ras_cc_p2:
    jal t0, 2f                  /* call P2: 5 + 1 + 7 + 1 + 3 + 1 = 18 cycles after P0 */
2:  CTR_OFF
    WRPTR(t2)
    CHECK_EQ(86, t2, 2)
    READ_ENTRY(0, t2, t3, t4)
    la t5, ras_cc_p2
    ori t5, t5, 1
    CHECK_EQ_REG(87, t2, t5)
    srli t4, t4, 15
    CHECK_EQ(88, t4, (18 << 1) | 1)
    READ_ENTRY(1, t2, t3, t4)
    la t5, ras_cc_p0
    ori t5, t5, 1
    CHECK_EQ_REG(89, t2, t5)

    /* ---- 90-99: freeze */
    CTR_CLEAR
    SETCTL(EN_M | BPFRZ, 0)
    j 10f
10: RESUME_AT(11f)
    ebreak                      /* freezes; neither it nor the mret is recorded */
11: csrr t2, STATUS
    CHECK_EQ(90, t2, FROZEN | 1)
    j 12f
12: WRPTR(t2)
    CHECK_EQ(91, t2, 1)         /* frozen: the jump was not recorded */
    li t0, 1
    csrw STATUS, t0             /* unfreeze */
    j 13f
13: CTR_OFF
    csrr t2, STATUS
    CHECK_EQ(92, t2, 2)
    /* software freeze */
    CTR_CLEAR
    li t0, FROZEN
    csrw STATUS, t0
    SETCTL(EN_M, 0)
    j 14f
14: CTR_OFF
    csrr t2, STATUS
    CHECK_EQ(93, t2, FROZEN)
    /* c.ebreak and an Sdtrig execute breakpoint (cause 3 both) freeze as
     * ebreak does (CTR-087) */
    CTR_CLEAR
    SETCTL(EN_M | BPFRZ, 0)
    j 15f
15: RESUME_AT(16f)
    c.ebreak
16: csrr t2, STATUS
    CHECK_EQ(94, t2, FROZEN | 1)
    LAST_CAUSE(t2)
    CHECK_EQ(95, t2, 3)
    CTR_CLEAR
    SETCTL(EN_M | BPFRZ, 0)
    la t1, 18f
    csrw 0x7a0, zero            /* tselect 0: an mcontrol6 execute match on 18f */
    li t0, 6 << (__riscv_xlen - 4)
    csrw 0x7a1, t0
    csrw 0x7a2, t1
    li t0, (6 << (__riscv_xlen - 4)) | 64 | 4 /* M, execute */
    csrw 0x7a1, t0
    csrsi mstatus, 8            /* M-mode breakpoints need MIE (no interrupt is enabled in mie) */
    j 17f
17: RESUME_AT(19f)
18: nop                         /* the breakpoint: not executed */
19: csrci mstatus, 8
    li t0, 6 << (__riscv_xlen - 4)
    csrw 0x7a1, t0              /* disarmed */
    csrr t2, STATUS
    CHECK_EQ(96, t2, FROZEN | 1) /* the jump before it only */
    LAST_CAUSE(t2)
    CHECK_EQ(97, t2, 3)
    CTR_CLEAR

    /* ---- 100-109: cycle counting */
    CTR_CLEAR
    SETCTL(EN_M, 0)
    j 15f                       /* first record after the write: CCV = 0 */
15: .rept 4096
    nop
    .endr
    j 17f                       /* 4096 + 1 cycles: CCE 1, CCM 1 */
17: .rept 10000
    nop
    .endr
    j 19f                       /* 10001 cycles: CCE 2, CCM 5000 & 0xfff */
19: CTR_OFF
    READ_ENTRY(2, t2, t3, t4)
    srli t4, t4, 15
    andi t4, t4, 1
    CHECK_EQ(100, t4, 0)
    READ_ENTRY(1, t2, t3, t4)
    srli t4, t4, 15
    CHECK_EQ(101, t4, (0x1001 << 1) | 1)
    READ_ENTRY(0, t2, t3, t4)
    srli t4, t4, 15
    CHECK_EQ(102, t4, (0x2388 << 1) | 1)
#ifdef CTR_SATURATION
    /* CC saturates at CCE 15, CCM 0xfff (CTR-072): 135,000 rounds of 1,002
     * instructions, past 2^27 cycles, where a 27-bit counter would wrap
     * (the loop's branch must reach back: a longer body would make it a jump).
     * That is 135 million instructions, so one build of this file does it
     * (test ctr_saturation); the encoding is the same in all four. Taken
     * branches are inhibited: the loop's branch is not recorded. */
    CTR_CLEAR
    SETCTL(EN_M, TKBRINH_HI)
    j 20f                       /* CCV 0 */
20: li t1, 135000
21: .rept 1000
    nop
    .endr
    addi t1, t1, -1
    bnez t1, 21b
    j 22f
22: CTR_OFF
    WRPTR(t2)
    CHECK_EQ(103, t2, 2)
    READ_ENTRY(0, t2, t3, t4)
    srli t4, t4, 15
    CHECK_EQ(104, t4, (0xffff << 1) | 1)
#endif
    /* The entries' undefined bits: ctrdata's bits 14:4 and 63:32 are WPRI,
     * read-only 0 (CTR-032); MISP is read-only 0 without a predictor. */
    CTR_CLEAR
    li t0, 0x200
    csrw ISEL, t0
    li t1, -1
    csrw IREG3, t1
    csrr t2, IREG3
    CHECK_EQ(105, t2, 0xffff800f)
    csrw IREG2, t1
    csrr t2, IREG2
    CHECK_EQ(106, t2, -2)
    csrw IREG, t1
    csrr t2, IREG
    CHECK_EQ(107, t2, -1)
    CTR_CLEAR

    /* ---- 110-129: access control and illegal accesses */
    EXPECT_ILLEGAL_READ(110, VSCTRCTL)   /* no H extension */
#ifdef CTR_V10
    EXPECT_ILLEGAL_READ(111, 0x381)      /* the draft's CSRs are absent */
    li t0, 0x200
    csrw 0x350, t0
    EXPECT_ILLEGAL_READ(112, 0x351)      /* entries are behind siselect only */
#else
#if __riscv_xlen == 64
    EXPECT_ILLEGAL_READ(111, CTRCTLH)    /* RV32 only */
#endif
    EXPECT_ILLEGAL_READ(112, 0x15f)      /* 1.0's sctrdepth is absent */
#endif
    li t0, 0x100
    csrw ISEL, t0
    EXPECT_ILLEGAL_READ(113, IREG)       /* nothing behind this select */
    /* below M: mstateen0 bits 60 (indirect access) and CTR */
    RUN_IN(1, s_read_ctl)
    LAST_CAUSE(t2)
    CHECK_EQ(114, t2, 2)        /* CTR bit clear: illegal from S */
    STATEEN_SET(STATEEN_CTR_HI)
    SETCTL(EN_M | EN_S | MTE, 0)
    RUN_IN(1, s_read_ctl)
    LAST_CAUSE(t2)
    CHECK_EQ(115, t2, 9)        /* read, then the ecall */
    CHECK_EQ(116, s4, EN_S)     /* M and MTE hidden from S */
    CTR_OFF
    CTR_CLEAR
    li t0, 0x200
    csrw SISEL, t0
    RUN_IN(1, s_read_entry)
    LAST_CAUSE(t2)
    CHECK_EQ(117, t2, 2)        /* siselect needs bit 60 */
    STATEEN_SET(STATEEN_CSRIND_HI)
    RUN_IN(1, s_read_entry)
    LAST_CAUSE(t2)
    CHECK_EQ(118, t2, 9)
    STATEEN_CLEAR(STATEEN_CTR_HI)
    RUN_IN(1, s_read_entry)
    LAST_CAUSE(t2)
    CHECK_EQ(119, t2, 2)        /* the entries need the CTR bit too */
    RUN_IN(0, u_read_ctl)
    LAST_CAUSE(t2)
    CHECK_EQ(120, t2, 2)        /* never from U */
#ifdef CTR_V10
    STATEEN_SET(STATEEN_CTR_HI)
    RUN_IN(0, u_sctrclr)
    LAST_CAUSE(t2)
    CHECK_EQ(121, t2, 2)        /* sctrclr is illegal in U */
    RUN_IN(1, s_sctrclr)
    LAST_CAUSE(t2)
    CHECK_EQ(122, t2, 9)        /* and fine in S */
#endif

    /* ---- 130-139: with mstateen0.CTR clear, transfers below M are still
     * recorded: the entries and WRPTR move (CTR-043) */
    STATEEN_CLEAR(STATEEN_CTR_HI)
    CTR_CLEAR
    SETCTL(EN_S, 0)
    RUN_IN(1, u_branch_ecall)   /* in S: the branch; mret and the ecall are not recorded */
    CTR_OFF
    WRPTR(t2)
    CHECK_EQ(130, t2, 1)
    READ_ENTRY(0, t2, t3, t4)
    la t5, u_branch
    ori t5, t5, 1
    CHECK_EQ_REG(131, t2, t5)
    andi t4, t4, 15
    CHECK_EQ(132, t4, 5)        /* taken branch */
    RUN_IN(1, s_read_ctl)
    LAST_CAUSE(t2)
    CHECK_EQ(133, t2, 2)        /* while S still cannot reach the CSRs */
    /* sctrstatus is S's read-write view of the status (CTR-022) */
    STATEEN_SET(STATEEN_CTR_HI)
    RUN_IN(1, s_status)         /* reads it, then writes WRPTR 5 */
    LAST_CAUSE(t2)
    CHECK_EQ(134, t2, 9)
    CHECK_EQ(135, s4, 1)        /* as M read it above */
    csrr t2, STATUS
    CHECK_EQ(136, t2, 5)
    STATEEN_CLEAR(STATEEN_CTR_HI)

    j pass

/* One transfer of each type but two returns; entered by a call. */
do_transfers:
    mv s11, ra
    li t2, 1
    beqz t2, 1f                 /* not taken (4) */
dt_taken:
    bnez t2, 2f                 /* taken (5) */
1:  nop
2:  j 3f                        /* direct jump (11) */
3:  la a1, 4f
    jr a1                       /* indirect jump (10) */
4:  la a1, 5f
    jalr t1, 0(a1)              /* other indirect jump with linkage (14) */
5:  jal t1, 6f                  /* other direct jump with linkage (15) */
6:  la a1, leaf
    jalr ra, 0(a1)              /* indirect call (8); leaf returns (13) */
    la t0, 7f
    jalr ra, 0(t0)              /* co-routine swap (12): rd x1, rs1 x5 */
7:  mv ra, s11
    ret                         /* return (13) */
leaf:
    ret

/* A machine software interrupt through the CLINT, taken in M. */
take_msi:
    mv s11, ra
    RESUME_AT(1f)
    li t0, 8
    csrs mie, t0
    li t1, 0x2000000
    li t0, 1
    sw t0, 0(t1)
    csrsi mstatus, 8            /* the interrupt is taken here */
1:  csrci mstatus, 8
    li t0, 8
    csrc mie, t0
    mv ra, s11
    ret

ras_outer:
    mv s10, ra
ras_outer_call:
    jal ra, ras_inner
    mv ra, s10
    ret
ras_inner:
    mv s9, ra
    la a1, 1f
ras_inner_call:
    jalr ra, 0(a1)              /* a call (8) ... */
1:  CTR_OFF                     /* ... that does not return: look */
    la s1, ras_seen
    WRPTR(t2)
    SREG t2, 0(s1)
    READ_ENTRY(0, t2, t3, t4)
    SREG t2, REGBYTES(s1)
    READ_ENTRY(1, t2, t3, t4)
    SREG t2, 2*REGBYTES(s1)
    mv ra, s9
    ret

/* Code for lower modes; each ends in a trap that resumes in M. */
u_ecall:
    ecall
u_branch_ecall:
    li t2, 1
u_branch:
    bnez t2, 1f
1:
u_ecall_insn:
    ecall
s_read_ctl:
    csrr s4, SCTRCTL
    ecall
s_read_entry:
    csrr s4, SISEL
    csrr s4, SIREG
    ecall
u_read_ctl:
    csrr s4, SCTRSTATUS
    ecall
s_status:
    csrr s4, SCTRSTATUS
    li t0, 5
    csrw SCTRSTATUS, t0
    ecall
#ifdef CTR_V10
u_sctrclr:
s_sctrclr:
    .word 0x10400073
    ecall
#endif

    .align 2
ras_cc_callee:                  /* seven instructions and the return */
    .rept 7
    nop
    .endr
    jr t0

    .align 2
m_handler:
    csrr t3, mcause
    la t4, last_cause
    SREG t3, 0(t4)
    li t3, 0x2000000
    sw zero, 0(t3)              /* the software interrupt, if it was one */
    la t3, resume
    LREG t3, 0(t3)
    csrw mepc, t3
    li t3, 3 << 11
    csrs mstatus, t3            /* back to M */
run_in_mret:
    mret

    EXIT_ROUTINES

    .section .rodata
expected_types:
    .byte 13, 12, 13, 8, 15, 14, 10, 11
    .align 3
#if HAS_HIGH_FIELDS
/* upper-word filter bit, records of do_transfers (10 by default), check */
filter_table:
#if __riscv_xlen == 64
#define ENTRY3(a, b, c) .dword a, b, c
#else
#define ENTRY3(a, b, c) .word a, b, c
#endif
    ENTRY3(NTBREN_HI, 11, 30)
    ENTRY3(TKBRINH_HI, 9, 31)
    ENTRY3(TYPEINH_HI(8), 9, 32)
    ENTRY3(TYPEINH_HI(9), 9, 33)
    ENTRY3(TYPEINH_HI(10), 9, 34)
    ENTRY3(TYPEINH_HI(11), 9, 35)
    ENTRY3(TYPEINH_HI(12), 9, 36)
    ENTRY3(TYPEINH_HI(13), 8, 37)
    ENTRY3(TYPEINH_HI(14), 9, 38)
    ENTRY3(TYPEINH_HI(15), 9, 39)
    ENTRY3(0, 0, 0)
#endif

    .data
    .align 3
resume: .dword 0
last_cause: .dword 0
ras_seen: .dword 0, 0, 0

    .bss
    .align 4
    .space 1024
stack_top:

EXIT_CODE_SECTIONS
