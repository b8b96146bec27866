/* libFuzzer target: the N-Trace decoder on arbitrary MSEO bytes against a
 * fixed code image made of every instruction class the walks meet (linear,
 * 16-bit, conditional branches, calls, returns, direct and indirect jumps).
 * The first input byte picks the SRC width, call-stack depth and MSB extension. Whatever the
 * messages say, each ends with a path or an error, never a crash or an
 * endless walk; a walk may emit at most PC_LIMIT addresses per input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_code.h"
#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sink(void *user, uint64_t pc) {
    (void)pc;
    return ++*(unsigned long *)user > PC_LIMIT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fuzz_words[0])
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
