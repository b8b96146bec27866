/* Exceptions raised inside called functions (ecall, illegal instruction,
 * misaligned load) at several call depths, taken by a handler that itself
 * calls functions and returns to mepc + 4: the shape of code that trace
 * decoders with implicit return must follow across traps (the return
 * address stack must survive the handler). Checks its own counts. */
#include "test_macros.h"

    .section .text.init, "ax"
    .option norvc /* the handler steps over 4-byte instructions */
    .option norelax /* and the linker must not turn calls into c.jal */
    .globl _start
_start:
    la t0, handler
    csrw mtvec, t0
    la sp, stack_top
    li s0, 20          /* iterations */
    li s1, 0           /* traps taken */
    li s2, 0           /* leaf calls made */
1:  call outer
    addi s0, s0, -1
    bnez s0, 1b
    CHECK_EQ(1, s1, 60)
    CHECK_EQ(2, s2, 200)
    j pass

outer:                 /* outer -> middle -> leaf, a trap at each depth */
    addi sp, sp, -16
    SREG ra, 0(sp)
    call leaf
    ecall
    call middle
    call leaf
    LREG ra, 0(sp)
    addi sp, sp, 16
    ret

middle:
    addi sp, sp, -16
    SREG ra, 0(sp)
    call leaf
    .word 0x00001067   /* illegal instruction (jalr with funct3 = 1) */
    call inner
    LREG ra, 0(sp)
    addi sp, sp, 16
    ret

inner:
    addi sp, sp, -16
    SREG ra, 0(sp)
    la t1, data
    lw t2, 1(t1)       /* misaligned load */
    call leaf
    LREG ra, 0(sp)
    addi sp, sp, 16
    ret

leaf:
    addi s2, s2, 1
    ret

    .align 2
handler:               /* saves ra, calls functions, returns to mepc + 4 */
    addi sp, sp, -16
    SREG ra, 0(sp)
    addi s1, s1, 1
    call leaf
    call leaf
    csrr t0, mepc
    addi t0, t0, 4
    csrw mepc, t0
    LREG ra, 0(sp)
    addi sp, sp, 16
    mret

EXIT_ROUTINES

    .data
    .align 3
data: .dword 0, 0
    .align 4
stack: .space 1024
stack_top:
EXIT_CODE_SECTIONS
