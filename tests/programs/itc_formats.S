/* No-load strings as SiFive's toolchain keeps them in .comment ("CHANNEL:
 * format"): an ITC write to that channel carries only the arguments,
 * packed into 32 bits (1 x 32, 2 x 16, 3 x 11/11/10, 4 x 8). itc_nls
 * feeds the printer such writes. */
    .section .text.init, "ax", @progbits
    .globl _start
_start:
    j _start
    .section .comment, "MS", @progbits, 1
    .string "1:int 8: %d %d %d %d"
    .string "2:int 11: %d %i %d"
    .string "3:int 16: %d %d"
    .string "4:uns 8: %u %u %x %c"
    .string "5:mixed 16: %d, %u"
    .string "6:int 32: %d"
