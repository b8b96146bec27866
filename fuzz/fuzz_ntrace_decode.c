/* libFuzzer target: the N-Trace decoder on arbitrary MSEO bytes against a
 * fixed code image made of every instruction class the walks meet (linear,
 * 16-bit, conditional branches, calls, returns, direct and indirect jumps).
 * The first input byte picks the SRC width, call-stack depth and MSB extension. Whatever the
 * messages say, each ends with a path or an error, never a crash or an
 * endless walk; a walk may emit at most PC_LIMIT addresses per input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CODE_BASE 0x80000000u
#define CODE_WORDS 2048u
#define PC_LIMIT (1u << 20)

static uint32_t code[CODE_WORDS];

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
            code[i] = 0x00150513u; /* addi a0,a0,1 */
        else if (r < 70)
            code[i] = 0x00000001u; /* c.nop (16-bit, then a 16-bit illegal half) */
        else if (r < 82) /* beq a0,a1,off */
            code[i] = 0x00b50063u | ((o >> 12) & 1) << 31 | ((o >> 5) & 0x3f) << 25 | ((o >> 1) & 0xf) << 8 |
                      ((o >> 11) & 1) << 7;
        else if (r < 88)
            code[i] = jal_to(1, o); /* jal ra,off: a call */
        else if (r < 93)
            code[i] = 0x00008067u; /* ret */
        else if (r < 97)
            code[i] = 0x000780e7u; /* jalr a5 */
        else
            code[i] = jal_to(0, o); /* j off */
    }
}

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr < CODE_BASE || addr >= CODE_BASE + 4u * CODE_WORDS || (addr & 1))
        return false;
    uint32_t w = code[(addr - CODE_BASE) / 4];
    if (addr & 2)
        w = 0x0001; /* the upper half of a c.nop word: another c.nop */
    rvt_decode(w, 64, out);
    return true;
}

static int sink(void *user, uint64_t pc) {
    (void)pc;
    return ++*(unsigned long *)user > PC_LIMIT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!code[0])
        make_code();
    if (size < 1)
        return 0;
    rvt_ntrace_decoder_options o = {.call_stack = (data[0] >> 2) & 31,
                                    .call_counter = (data[0] & 0x80) != 0,
                                    .src_bits = (data[0] & 1) ? 4 : 0,
                                    .src_id = -1,
                                    .extend_addr_msb = (data[0] & 2) != 0};
    rvt_nexus_config cfg = {.src_bits = o.src_bits};
    unsigned long pcs = 0;
    rvt_ntrace_decoder *d;
    if (rvt_ntrace_decoder_new(&d, &o, 64, fetch, sink, &pcs))
        return 0;
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, &cfg, data + 1, size - 1);
    rvt_nexus_msg m;
    rvt_diag diag;
    int rc;
    while ((rc = rvt_nexus_next(&r, &m, &diag)) != 0) {
        if (rc < 0) {
            rvt_ntrace_decoder_resync(d);
            continue;
        }
        if (rvt_ntrace_decode(d, &m, &diag) == RVT_E_IO)
            break; /* the PC limit */
    }
    rvt_ntrace_decoder_free(d);
    return 0;
}
