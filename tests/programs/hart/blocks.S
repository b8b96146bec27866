/* More code than the interpreter keeps code blocks for: 20 000 blocks of an
 * add and a jump (160 KiB), run three times. Past 8 191 blocks the pool
 * takes back its oldest entries, and past 128 KiB two blocks share a slot of
 * the table that finds them; every block must still run its own code. */
#include "test_macros.h"
#define BLOCKS 20000
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    li t1, 0
    li t2, 3
    .option push
    .option norvc /* 8 bytes a block */
again:
    .rept BLOCKS
    addi t1, t1, 1
    j 1f
1:
    .endr
    addi t2, t2, -1
    bnez t2, again
    .option pop
    li t6, 3 * BLOCKS
    CHECK_EQ_REG(1, t1, t6)
    j pass
EXIT_ROUTINES
EXIT_CODE_SECTIONS
