/* A program that talks to the host through HTIF's syscall proxy, as the
 * riscv-tests' benchmarks do for printf: a write(1, "hi\n", 3), whose answer
 * it waits for in fromhost, then its end through the exit call (93, code 0).
 * The host answers between quanta of a run and between single steps alike. */
#include "test_macros.h"
#if __riscv_xlen == 64
#define PUT64(reg, off, base) sd reg, off(base)
#else
#define PUT64(reg, off, base) sw reg, off(base); sw zero, (off) + 4(base)
#endif
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    la a1, magic
    li t1, 64 /* write */
    PUT64(t1, 0, a1)
    li t1, 1 /* stdout */
    PUT64(t1, 8, a1)
    la t1, message
    PUT64(t1, 16, a1)
    li t1, 3
    PUT64(t1, 24, a1)
    call proxy
    LREG t0, 0(a1) /* the call's result: the bytes written */
    CHECK_EQ(1, t0, 3)
    li t1, 93 /* exit(0) */
    PUT64(t1, 0, a1)
    PUT64(zero, 8, a1)
    call proxy
    li a0, 2 /* (the host powered the machine off before this) */
    j fail

/* The call in magic goes to the host; its answer comes to fromhost. */
proxy:
    la t0, tohost
    PUT64(a1, 0, t0)
    la t2, fromhost
1:  LREG t3, 0(t2)
    beqz t3, 1b
    PUT64(zero, 0, t2)
    ret
EXIT_ROUTINES

    .data
    .align 6
magic: .space 64
message: .ascii "hi\n"
EXIT_CODE_SECTIONS
