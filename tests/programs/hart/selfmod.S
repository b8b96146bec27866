/* Code that rewrites itself inside the program's own executable segment:
 * `bump` (4-byte instructions) is called, then its first instruction is
 * replaced by two compressed ones (the block it starts gains an instruction
 * and changes shape), called again, then put back and called once more.
 * Then a loop rewrites its own first instruction each time round.
 * Whatever reads the program's code to take multiple-retire blocks apart
 * (the encoders behind `rvtrace run`) must see what the hart ran: the image
 * for the first calls, the rewritten code for the next ones. */
#include "test_macros.h"
#define CALLS 300
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    li a0, 0
    li s1, CALLS
1:  call bump                 /* a0 += 1 per call */
    addi s1, s1, -1
    bnez s1, 1b
    la t0, bump
    li t1, 0x00010509         /* c.addi a0, 2; c.nop */
    sw t1, 0(t0)
    fence.i
    li s1, CALLS
2:  call bump                 /* a0 += 2 per call */
    addi s1, s1, -1
    bnez s1, 2b
    la t0, bump
    li t1, 0x00150513         /* addi a0, a0, 1 again */
    sw t1, 0(t0)
    fence.i
    li s1, CALLS
3:  call bump
    addi s1, s1, -1
    bnez s1, 3b
    /* A loop that rewrites its first instruction behind it, in the same run
     * of straight code: the two forms by turns (a0 += 1, then 2). */
    la t0, 4f
    li t1, 0x00010509
    li t2, 0x00150513
    li s1, CALLS
    .align 2
    .option push
    .option norvc
4:  addi a0, a0, 1
    sw t1, 0(t0)
    fence.i
    mv t3, t1
    mv t1, t2
    mv t2, t3
    addi s1, s1, -1
    bnez s1, 4b
    .option pop
    mv s2, a0                 /* (the check's code goes in a0) */
    li t6, 4 * CALLS + CALLS / 2 * 3
    CHECK_EQ_REG(1, s2, t6)
    j pass

    .align 2                  /* (its first instruction is rewritten with one word store) */
    .option push
    .option norvc
bump:
    addi a0, a0, 1
    addi a1, a1, 1
    addi a2, a2, 1
    addi a3, a3, 1
    addi a4, a4, 1
    addi a5, a5, 1
    addi a6, a6, 1
    ret
    .option pop
EXIT_ROUTINES
EXIT_CODE_SECTIONS
