/* Virtual memory from S-mode: Sv39 on RV64, Sv32 on RV32. Page-table walks
 * through pointer and leaf entries, superpages, page faults with their
 * mtval, and Svade: the hardware never sets A or D, an access that needs
 * them raises a page fault (spike without Svadu). Then M-mode loads and
 * stores through the same tables with MPRV. */
#include "test_macros.h"

#if __riscv_xlen == 64
#define PTE_SIZE 8
#define SATP_MODE (8 << 60)
#define CODE_INDEX 2            /* VPN[2] of 0x80000000 */
#define DATA_INDEX 1            /* VPN[2] of 0x40000000 */
#else
#define PTE_SIZE 4
#define SATP_MODE (1 << 31)
#define CODE_INDEX 0x200        /* VPN[1] of 0x80000000 */
#define DATA_INDEX 0x100        /* VPN[1] of 0x40000000 */
#endif
#define PTE_V 0x01
#define PTE_R 0x02
#define PTE_W 0x04
#define PTE_X 0x08
#define PTE_A 0x40
#define PTE_D 0x80

    .section .text.init, "ax"
    .globl _start
_start:
    la t0, m_handler
    csrw mtvec, t0
    /* code: a superpage mapping 0x80000000 onto itself */
    la s0, root
    li t1, (0x80000000 >> 12) << 10
    ori t1, t1, PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D
    li t2, CODE_INDEX * PTE_SIZE
    add t2, t2, s0
    SREG t1, 0(t2)
    /* data: 0x40000000 -> data_page through pointer entries, A/D clear */
#if __riscv_xlen == 64
    la t0, level1
    srli t0, t0, 12
    slli t0, t0, 10
    ori t0, t0, PTE_V
    li t2, DATA_INDEX * PTE_SIZE
    add t2, t2, s0
    SREG t0, 0(t2)
    la s1, level1
#else
    mv s1, s0
    li t0, 0
#endif
    la t0, level0
    srli t0, t0, 12
    slli t0, t0, 10
    ori t0, t0, PTE_V
#if __riscv_xlen == 64
    SREG t0, 0(s1)
#else
    li t2, DATA_INDEX * PTE_SIZE
    add t2, t2, s0
    SREG t0, 0(t2)
#endif
    la t0, data_page
    srli t0, t0, 12
    slli t0, t0, 10
    ori t0, t0, PTE_V | PTE_R | PTE_W
    la s2, level0
    SREG t0, 0(s2)
    /* satp and a drop to S */
    la t0, root
    srli t0, t0, 12
    li t1, SATP_MODE
    or t0, t0, t1
    csrw satp, t0
    li t0, (3 << 11)
    csrc mstatus, t0
    li t0, (1 << 11)
    csrs mstatus, t0
    la t0, s_code
    csrw mepc, t0
    mret

s_code:
    .option push
    .option norvc /* the handler steps over 4-byte instructions */
    li s3, 0x40000000
    /* 1-2: Svade: the leaf's A bit is clear, so a load raises a load page
     * fault (13) with mtval = the address, and the hardware leaves A clear */
    addi s4, s3, 8
    LREG t1, 8(s3)
    la t0, last_cause
    LREG t1, 0(t0)
    CHECK_EQ(1, t1, 13)
    LREG t1, REGBYTES(t0)
    CHECK_EQ_REG(2, t1, s4)
    LREG t1, 0(s2)
    andi t1, t1, PTE_A | PTE_D
    CHECK_EQ(3, t1, 0)
    /* 4: software sets A: the load sees the data page */
    LREG t1, 0(s2)
    ori t1, t1, PTE_A
    SREG t1, 0(s2)
    sfence.vma
    LREG t1, 8(s3)
    la t2, data_page
    LREG t2, 8(t2)
    CHECK_EQ_REG(4, t1, t2)
    /* 5-6: D is clear: a store raises a store page fault (15) and does not
     * write; once software sets D it lands in the data page */
    la t0, last_cause
    SREG zero, 0(t0)
    li t1, 0x5a
    SREG t1, 16(s3)
    LREG t1, 0(t0)
    CHECK_EQ(5, t1, 15)
    LREG t1, 0(s2)
    ori t1, t1, PTE_D
    SREG t1, 0(s2)
    sfence.vma
    li t1, 0x5a
    SREG t1, 16(s3)
    la t2, data_page
    LREG t1, 16(t2)
    CHECK_EQ(6, t1, 0x5a)
    /* 7-8: an unmapped address: load page fault (13) with mtval = address */
    li s4, 0x50000010
    LREG t1, 0(s4)
    la t0, last_cause
    LREG t1, 0(t0)
    CHECK_EQ(7, t1, 13)
    LREG t1, REGBYTES(t0)
    CHECK_EQ_REG(8, t1, s4)
    /* 9: a store to a read-only page: store page fault (15) */
    la t0, level0
    LREG t1, 0(t0)
    andi t1, t1, ~PTE_W
    SREG t1, 0(t0)
    sfence.vma
    SREG zero, 0(s3)
    la t0, last_cause
    LREG t1, 0(t0)
    CHECK_EQ(9, t1, 15)
    li a7, 93
    li a0, 0
    ecall
    .option pop

    .align 2
m_handler:
    csrr t3, mcause
    csrr t4, mtval
    li t5, 9
    beq t3, t5, from_s_ecall
    la t5, last_cause
    SREG t3, 0(t5)
    SREG t4, REGBYTES(t5)
    csrr t4, mepc
    addi t4, t4, 4
    csrw mepc, t4
    mret
from_s_ecall:
    /* 10-11: M-mode loads and stores through S's page tables: MPRV with
     * MPP = S, as the ecall from S left it (W is given back to the data
     * page first: test 9 took it) */
    la t0, level0
    LREG t1, 0(t0)
    ori t1, t1, PTE_W
    SREG t1, 0(t0)
    sfence.vma
    li t0, 1 << 17
    csrs mstatus, t0
    li s3, 0x40000000
    LREG t1, 8(s3)
    li t2, 0x77
    SREG t2, 24(s3)
    li t0, 1 << 17
    csrc mstatus, t0
    la t2, data_page
    LREG t3, 8(t2)
    CHECK_EQ_REG(10, t1, t3)
    LREG t3, 24(t2)
    CHECK_EQ(11, t3, 0x77)
    j pass

    EXIT_ROUTINES

    .data
    .align 12
root: .space 4096
level1: .space 4096
level0: .space 4096
data_page:
    .dword 0x1111111111111111, 0x2222222222222222, 0, 0
    .align 12
last_cause: .dword 0, 0
    EXIT_CODE_SECTIONS
