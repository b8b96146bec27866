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

/* Programs whose M-mode trap handler keeps mcause in `last_cause` and goes
 * on in M at the address stored in `resume` (both data words of theirs). */
#define RESUME_AT(label) la t0, label; la t1, resume; SREG t0, 0(t1)
#define LAST_CAUSE(reg) la t1, last_cause; LREG reg, 0(t1)
/* Runs the code at `label` in privilege `mode` (an MPP value); it ends in
 * a trap, after which execution goes on in M at the local label 1. */
#define RUN_IN(mode, label)          \
    RESUME_AT(1f);                   \
    li t0, 3 << 11;                  \
    csrc mstatus, t0;                \
    li t0, (mode) << 11;             \
    csrs mstatus, t0;                \
    la t0, label;                    \
    csrw mepc, t0;                   \
    mret;                            \
1:
