/* libFuzzer target: decode and disassemble arbitrary bytes as an instruction
 * stream for RV32 and RV64, both alias modes. Must never crash or read out
 * of bounds, whatever the bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rvtrace/isa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char text[256];
    for (unsigned xlen = 32; xlen <= 64; xlen += 32) {
        for (unsigned flags = 0; flags <= RVT_DIS_NO_ALIASES; flags++) {
            rvt_disasm_ctx ctx;
            rvt_disasm_init(&ctx, xlen, flags);
            size_t off = 0;
            while (off + 2 <= size) {
                uint8_t b[24] = {0};
                size_t n = size - off < sizeof b ? size - off : sizeof b;
                memcpy(b, data + off, n);
                uint32_t w = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
                rvt_insn in;
                unsigned len = rvt_decode(w, xlen, &in);
                rvt_disasm(&ctx, &in, b, 0x80000000u + off, text, sizeof text);
                rvt_itype(&in, true, 4, false);
                off += len;
            }
        }
    }
    return 0;
}
