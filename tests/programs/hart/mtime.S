/* The program writes mtime (the CLINT's) in the middle of straight-line
 * code, over and over: the instructions before the store retired at the old
 * time and the store and those after it at the new one, which block records
 * (one time each) must keep apart. Checks that the time CSR reads back what
 * was written. */
#include "test_macros.h"
#define CLINT_MTIME 0x200bff8
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    li s0, CLINT_MTIME
    li s1, 300
    li s2, 0
1:
    addi s2, s2, 1
    addi t0, s2, 3
    xor t1, t0, s2
    slli t2, s2, 8
    sd t2, 0(s0)
    csrr t3, time
    addi t1, t1, 1
    CHECK_EQ_REG(1, t2, t3)
    addi s1, s1, -1
    bnez s1, 1b
    j pass
EXIT_ROUTINES
EXIT_CODE_SECTIONS
