# Privileged, atomic and floating-point instructions in one place, so the
# disassembler and (later) the hart model see every class of encoding.
    .section .text.init, "ax"
    .globl _start
_start:
    la      t0, trap_handler
    csrw    mtvec, t0
    csrr    a0, mhartid
    csrs    mstatus, t1
    csrci   mstatus, 8
    csrrwi  a1, mscratch, 5
    li      t0, 0x2000
    csrs    mstatus, t0
    fscsr   zero
    frrm    a2
    fsrmi   a3, 1
    la      a4, data
    lr.w    a5, (a4)
    sc.w.rl a6, a5, (a4)
    amoswap.w.aqrl a7, a6, (a4)
    amomaxu.w t1, t2, (a4)
    fld     fa0, 8(a4)
    fmadd.d fa1, fa0, fa0, fa0, rtz
    fcvt.w.d t3, fa1, rup
    fsgnjn.d fa2, fa1, fa1
    fence   rw, w
    fence.i
    sfence.vma a0
    wfi
    ecall
    ebreak
    c.ebreak
    mret
trap_handler:
    csrr    t0, mepc
    addi    t0, t0, 4
    csrw    mepc, t0
    sret
    .data
    .align 3
data:
    .dword 0x1122334455667788, 0x400921fb54442d18
