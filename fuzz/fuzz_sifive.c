/* libFuzzer target: arbitrary bytes as a SiFive Nexus capture, read in the
 * SiFive dialect and decoded with the SiFive profile against the fuzz code
 * image, with the time stamps and ITC print that listings use. The first
 * input byte picks the SRC width, the process filter, address sign
 * extension and implicit return. Every message ends in a path or a reported
 * loss, never a crash or an endless walk. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_code.h"
#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_pc(void *user, uint64_t pc) {
    (void)pc;
    return ++*(unsigned long *)user > PC_LIMIT;
}

static int count_line(void *user, const char *line) {
    (void)line;
    ++*(unsigned long *)user;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fuzz_words[0])
        make_code();
    if (size < 1)
        return 0;
    static const uint64_t pids[2] = {0, 738};
    rvt_ntrace_decoder_options o = {.src_bits = data[0] & 3,
                                    .src_id = (data[0] & 4) ? 1 : -1,
                                    .sifive = true,
                                    .nexrv = true,
                                    .pids = pids,
                                    .npids = (data[0] & 8) ? 2 : 0,
                                    .addr_bits = (data[0] & 16) ? 48 : 0,
                                    .no_implicit_return = (data[0] & 32) != 0};
    rvt_nexus_config cfg = {.src_bits = o.src_bits, .dialect = RVT_NEXUS_SIFIVE};
    unsigned long pcs = 0, lines = 0;
    rvt_ntrace_decoder *d;
    rvt_itc_printer *itc;
    if (rvt_ntrace_decoder_new(&d, &o, 64, fetch, count_pc, &pcs))
        return 0;
    if (rvt_itc_printer_new(&itc, NULL, count_line, &lines)) {
        rvt_ntrace_decoder_free(d);
        return 0;
    }
    rvt_sifive_clock clock = {0};
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
        uint64_t t, addr, context;
        unsigned priv;
        rvt_sifive_time(&clock, &m, &t);
        rvt_itc_printer_message(itc, &m);
        if (rvt_ntrace_decode(d, &m, &diag) == RVT_E_IO)
            break; /* the PC limit */
        rvt_ntrace_decoder_next_addr(d, &addr);
        rvt_ntrace_decoder_event_addr(d, &addr);
        rvt_ntrace_decoder_context(d, &context, &priv);
    }
    rvt_itc_printer_flush(itc);
    rvt_itc_printer_free(itc);
    rvt_ntrace_decoder_free(d);
    return 0;
}
