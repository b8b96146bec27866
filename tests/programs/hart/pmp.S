/* Physical memory protection, checked against the privileged specification
 * (3.7): OFF/TOR/NA4/NAPOT matching, priority by entry number, an access
 * that matches an entry only partly fails, S/U accesses that match no entry
 * fail once entries exist, M-mode passes unlocked entries but not locked
 * ones, MPRV makes M-mode loads and stores use MPP's permissions, locked
 * entries (and the base of a locked TOR entry) ignore writes, and R = 0,
 * W = 1 is not kept, and code fetched before a change of entries is
 * fetched again under the new ones. The handler records mcause/mepc/mtval in s2/s3/s4,
 * counts traps in s5 and resumes in M-mode at s11. */
#include "test_macros.h"

#define CFG_R 0x01
#define CFG_W 0x02
#define CFG_X 0x04
#define CFG_TOR 0x08
#define CFG_NA4 0x10
#define CFG_NAPOT 0x18
#define CFG_L 0x80
#define MSTATUS_MPP (3 << 11)
#define MPP_S (1 << 11)
#define MSTATUS_MPRV (1 << 17)

/* Entries 0-3 are in pmpcfg0 on both XLENs; 4-7 in pmpcfg0 (RV64) or
 * pmpcfg1 (RV32). */
#if __riscv_xlen == 64
#define CFG_HI pmpcfg0
#define HI_SHIFT(i) ((i) * 8)
#else
#define CFG_HI pmpcfg1
#define HI_SHIFT(i) (((i) - 4) * 8)
#endif

#define MPRV_S              \
    li t0, MSTATUS_MPP;     \
    csrc mstatus, t0;       \
    li t0, MPP_S | MSTATUS_MPRV; \
    csrs mstatus, t0
#define MPRV_OFF            \
    li t0, MSTATUS_MPRV;    \
    csrc mstatus, t0
/* Run s_code in S-mode; its ecall (or fault) comes back to `resume`. */
#define RUN_S_CODE(resume)  \
    la s11, resume;         \
    csrw mepc, s6;          \
    li t0, MSTATUS_MPP;     \
    csrc mstatus, t0;       \
    li t0, MPP_S;           \
    csrs mstatus, t0;       \
    mret

    .section .text.init, "ax"
    .globl _start
_start:
    .option norvc
    la t0, m_handler
    csrw mtvec, t0
    li s5, 0
    li t0, 1 << 13 /* FS: fld serves as an 8-byte load on RV32 too */
    csrs mstatus, t0
    /* Start from every entry off (an implementation may open entry 0 at
     * reset for software that does not know PMP, as spike does). */
    csrw pmpcfg0, zero
#if __riscv_xlen == 32
    csrw pmpcfg1, zero
#endif

    /* 1-3: S-mode fetch with entries implemented but none matching:
     * instruction access fault at the target */
    la s6, s_code
    RUN_S_CODE(1f)
1:  CHECK_EQ(1, s2, 1)
    CHECK_EQ_REG(2, s3, s6)
    CHECK_EQ_REG(3, s4, s6)

    /* 4-5: entry 7 opens everything (NAPOT over the whole address space):
     * S-mode code runs and returns with an ecall */
    li t0, -1
    csrw pmpaddr7, t0
    li t0, (CFG_NAPOT | CFG_R | CFG_W | CFG_X) << HI_SHIFT(7)
    csrs CFG_HI, t0
    li s7, 0
    RUN_S_CODE(2f)
2:  CHECK_EQ(4, s2, 9)
    CHECK_EQ(5, s7, 0x55)

    /* Entry 0: NA4 at data_a + 4, no permissions. Entry 1: NAPOT 8 bytes at
     * data_b, read-only. Entries 2-3: TOR [data_c, data_c + 16), RW. */
    la s8, data_a
    addi t0, s8, 4
    srli t0, t0, 2
    csrw pmpaddr0, t0
    la s9, data_b
    srli t0, s9, 2 /* 8-byte NAPOT: pmpaddr = base / 4 with its low bit 0 */
    csrw pmpaddr1, t0
    la s10, data_c
    srli t0, s10, 2
    csrw pmpaddr2, t0
    addi t0, s10, 16
    srli t0, t0, 2
    csrw pmpaddr3, t0
    li t0, CFG_NA4 | (CFG_NAPOT | CFG_R) << 8 | (CFG_TOR | CFG_R | CFG_W) << 24
    csrs pmpcfg0, t0

    /* 6-8: with MPRV and MPP = S, an M-mode load from entry 0 faults
     * (load access fault, mtval = the address) */
    li s5, 0
    la s11, 3f
    MPRV_S
    lw t1, 4(s8)
3:  MPRV_OFF
    CHECK_EQ(6, s5, 1)
    CHECK_EQ(7, s2, 5)
    addi t1, s8, 4
    CHECK_EQ_REG(8, s4, t1)
    /* 9-10: an 8-byte load that entry 0 matches only in part fails too,
     * although entry 7 would allow all of it */
    la s11, 4f
    MPRV_S
    fld ft0, 0(s8)
4:  MPRV_OFF
    CHECK_EQ(9, s5, 2)
    CHECK_EQ_REG(10, s4, s8)
    /* 11: without MPRV, M-mode passes the unlocked entry */
    lw t1, 4(s8)
    CHECK_EQ(11, s5, 2)

    /* 12-14: entry 1 is read-only for S: the load works, the store faults
     * with a store access fault and does not write */
    MPRV_S
    lw t1, 0(s9)
    MPRV_OFF
    CHECK_EQ(12, s5, 2)
    la s11, 5f
    li t2, 0x77
    MPRV_S
    sw t2, 0(s9)
5:  MPRV_OFF
    CHECK_EQ(13, s2, 7)
    lw t1, 0(s9)
    CHECK_EQ(14, t1, 0)

    /* 15-16: TOR range: RW inside, and the entry after it decides outside */
    li s5, 0
    li t2, 0x66
    MPRV_S
    sw t2, 8(s10)
    lw t1, 8(s10)
    sw t2, 16(s10)
    MPRV_OFF
    CHECK_EQ(15, s5, 0)
    CHECK_EQ(16, t1, 0x66)

    /* 17: R = 0, W = 1 is reserved: W is not kept */
    li t0, (CFG_NAPOT | CFG_W) << HI_SHIFT(4)
    csrs CFG_HI, t0
    csrr t1, CFG_HI
    srli t1, t1, HI_SHIFT(4)
    andi t1, t1, 0xff
    CHECK_EQ(17, t1, CFG_NAPOT)
    li t0, 0xff << HI_SHIFT(4)
    csrc CFG_HI, t0

    /* 18-19: a locked TOR entry (6) binds M-mode too: the store faults, the
     * load passes */
    la s8, data_d
    srli t0, s8, 2
    csrw pmpaddr5, t0
    addi t0, s8, 8
    srli t0, t0, 2
    csrw pmpaddr6, t0
    li t0, (CFG_L | CFG_TOR | CFG_R) << HI_SHIFT(6)
    csrs CFG_HI, t0
    li s5, 0
    la s11, 6f
    sw zero, 0(s8)
6:  CHECK_EQ(18, s2, 7)
    lw t1, 0(s8)
    CHECK_EQ(19, s5, 1)
    /* 20-22: locked: pmpaddr6 and (as the locked TOR entry's base)
     * pmpaddr5 ignore writes, and so does entry 6's configuration */
    csrw pmpaddr6, zero
    csrr t1, pmpaddr6
    addi t0, s8, 8
    srli t0, t0, 2
    CHECK_EQ_REG(20, t1, t0)
    csrw pmpaddr5, zero
    csrr t1, pmpaddr5
    srli t0, s8, 2
    CHECK_EQ_REG(21, t1, t0)
    li t0, 0xff << HI_SHIFT(6)
    csrc CFG_HI, t0
    csrr t1, CFG_HI
    srli t1, t1, HI_SHIFT(6)
    andi t1, t1, 0xff
    CHECK_EQ(22, t1, CFG_L | CFG_TOR | CFG_R)

    /* 23-25: S-mode code that ran before faults once entry 7 is gone:
     * what was fetched under the old entries does not outlive them */
    li t0, 0xff << HI_SHIFT(7)
    csrc CFG_HI, t0
    li s5, 0
    RUN_S_CODE(7f)
7:  CHECK_EQ(23, s2, 1)
    CHECK_EQ_REG(24, s3, s6)
    CHECK_EQ(25, s5, 1)
    j pass

s_code:
    li s7, 0x55
    ecall

m_handler:
    csrr s2, mcause
    csrr s3, mepc
    csrr s4, mtval
    addi s5, s5, 1
    li t6, MSTATUS_MPP
    csrs mstatus, t6 /* back to M-mode */
    csrw mepc, s11
    mret

EXIT_ROUTINES

    .data
    .align 4
data_a: .dword 0, 0
data_b: .dword 0, 0
data_c: .dword 0, 0, 0, 0
data_d: .dword 0, 0
EXIT_CODE_SECTIONS
