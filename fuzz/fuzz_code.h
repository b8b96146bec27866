/* The code image the N-Trace fuzz targets walk: every instruction class the
 * walks meet (linear, 16-bit, conditional branches, calls, returns, direct
 * and indirect jumps) at pseudo-random places, the same for every input. */
#ifndef RVTRACE_FUZZ_CODE_H
#define RVTRACE_FUZZ_CODE_H

#include <stdbool.h>
#include <stdint.h>

#include "rvtrace/isa.h"

#define CODE_BASE 0x80000000u
#define CODE_WORDS 2048u
#define PC_LIMIT (1u << 16)

static uint32_t fuzz_words[CODE_WORDS];

static uint32_t next_random(uint32_t *x) {
    *x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
    return *x;
}

static uint32_t jal_to(unsigned rd, uint32_t o) {
    return 0x6fu | rd << 7 | ((o >> 20) & 1) << 31 | ((o >> 1) & 0x3ff) << 21 | ((o >> 11) & 1) << 20 |
           ((o >> 12) & 0xff) << 12;
}

/* Word i holds one instruction (a 16-bit one in its low half). */
static void make_code(void) {
    uint32_t x = 2463534242u;
    for (unsigned i = 0; i < CODE_WORDS; i++) {
        uint32_t r = next_random(&x) % 100;
        int32_t off = (int32_t)(next_random(&x) % 64) * 4 - 128;
        uint32_t o = (uint32_t)off;
        if (r < 60)
            fuzz_words[i] = 0x00150513u; /* addi a0,a0,1 */
        else if (r < 70)
            fuzz_words[i] = 0x00000001u; /* c.nop (16-bit, then a 16-bit illegal half) */
        else if (r < 82) /* beq a0,a1,off */
            fuzz_words[i] = 0x00b50063u | ((o >> 12) & 1) << 31 | ((o >> 5) & 0x3f) << 25 | ((o >> 1) & 0xf) << 8 |
                      ((o >> 11) & 1) << 7;
        else if (r < 88)
            fuzz_words[i] = jal_to(1, o); /* jal ra,off: a call */
        else if (r < 93)
            fuzz_words[i] = 0x00008067u; /* ret */
        else if (r < 97)
            fuzz_words[i] = 0x000780e7u; /* jalr a5 */
        else
            fuzz_words[i] = jal_to(0, o); /* j off */
    }
}

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr < CODE_BASE || addr >= CODE_BASE + 4u * CODE_WORDS || (addr & 1))
        return false;
    uint32_t w = fuzz_words[(addr - CODE_BASE) / 4];
    if (addr & 2)
        w = 0x0001; /* the upper half of a c.nop word: another c.nop */
    rvt_decode(w, 64, out);
    return true;
}

#endif
