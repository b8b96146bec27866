/* A trap handler that cannot be fetched: mtvec points at an address with no
 * memory behind it, so every trap raises an instruction access fault at the
 * handler, for ever. The hart model must stop and say so. */
#include "test_macros.h"
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    li t0, 0x10000000 /* nothing is mapped there */
    csrw mtvec, t0
    ecall
    j pass
EXIT_ROUTINES
EXIT_CODE_SECTIONS
