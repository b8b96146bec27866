# The Linux RISC-V Image header (the kernel's Documentation/arch/riscv/
# boot-image-header.rst): the payload becomes a flat binary that loaders
# place at RAM base + text_offset. Listed before start.S so it comes first.
    .section .text.init, "ax"
    .globl image_header
image_header:
    j       _start              # code0: over the header
    .word   0                   # code1
    .dword  0x200000            # text_offset (RV64's; this payload's on RV32 too)
    .dword  __image_end - image_header  # image_size
    .dword  0                   # flags: little-endian
    .word   2                   # version 0.2
    .word   0                   # res1
    .dword  0                   # res2
    .ascii  "RISCV\0\0\0"       # magic (deprecated)
    .ascii  "RSC\x05"           # magic2
    .word   0                   # res3
