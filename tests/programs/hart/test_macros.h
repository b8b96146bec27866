/* Conventions of the hart-model test programs: each check that fails exits
 * with its own number (a0 = check number), all passing exits with 0. Exit is
 * spike's HTIF protocol: tohost = (code << 1) | 1. */
#if __riscv_xlen == 64
#define LREG ld
#define SREG sd
#define REGBYTES 8
#else
#define LREG lw
#define SREG sw
#define REGBYTES 4
#endif

#define CHECK_EQ(n, reg, value) \
    li t6, value;               \
    li a0, n;                   \
    bne reg, t6, fail

#define CHECK_EQ_REG(n, a, b) \
    li a0, n;                 \
    bne a, b, fail

#define EXIT_CODE_SECTIONS                 \
    .section .tohost, "aw", @progbits;     \
    .align 6;                              \
    .globl tohost;                         \
tohost: .dword 0;                          \
    .align 6;                              \
    .globl fromhost;                       \
fromhost: .dword 0;

/* Exit with a0 as the code. */
#define EXIT_ROUTINES          \
pass:                          \
    li a0, 0;                  \
fail:                          \
    slli a0, a0, 1;            \
    ori a0, a0, 1;             \
    la t0, tohost;             \
    SREG a0, 0(t0);            \
1:  j 1b;
