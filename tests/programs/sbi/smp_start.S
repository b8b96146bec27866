# Where harts started through SBI HSM (hart_start, or a non-retentive
# suspend's resume address) enter: a0 = hartid, a1 = the opaque value,
# which the suite makes the top of the hart's own stack.
    .section .text
    .globl secondary_entry
secondary_entry:
    mv      sp, a1
    call    secondary_main
1:  j       1b                  # secondary_main ends with hart_stop
    .globl resume_entry
resume_entry:
    mv      sp, a1
    call    resume_main
2:  j       2b
