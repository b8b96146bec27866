# S-mode start-up for SBI payloads: stack, zeroed .bss, main(), then SBI
# system reset: shutdown, with "system failure" when main returned non-zero.
    .section .text.init, "ax"
    .globl _start
_start:
    la      sp, __stack_top
    la      t0, __bss_start
    la      t1, __bss_end
1:  bgeu    t0, t1, 2f
    sw      zero, 0(t0)
    addi    t0, t0, 4
    j       1b
2:  call    main
    snez    a1, a0              # reason: 0 none, 1 system failure
    li      a0, 0               # type: shutdown
    li      a6, 0
    li      a7, 0x53525354      # SRST
    ecall
3:  j       3b
