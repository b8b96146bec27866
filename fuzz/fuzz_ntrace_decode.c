/* libFuzzer target: the N-Trace decoder on arbitrary MSEO bytes against a
 * fixed code image made of every instruction class the walks meet (linear,
 * 16-bit, conditional branches, calls, returns, direct and indirect jumps).
 * The first input byte picks the SRC width, call-stack depth and MSB extension. Whatever the
 * messages say, each ends with a path or an error, never a crash or an
 * endless walk; a walk may emit at most PC_LIMIT addresses per input. A
 * second decoder with a block sink and a third with a run sink give the
 * same addresses as the first one gives one by one. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_code.h"
#include "fuzz_flow.h"
#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t by_pc[PC_LIMIT], by_block[PC_LIMIT], by_run[PC_LIMIT];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fuzz_words[0])
        make_code();
    if (size < 1)
        return 0;
    rvt_ntrace_decoder_options o = {.call_stack = (data[0] >> 2) & 31,
                                    .call_counter = (data[0] & 0x80) != 0,
                                    .src_bits = (data[0] & 1) ? 4 : 0,
                                    .src_id = -1,
                                    .extend_addr_msb = (data[0] & 2) != 0,
                                    .nexrv = (data[0] & 4) != 0};
    rvt_nexus_config cfg = {.src_bits = o.src_bits};
    flow_list lists[3] = {{by_pc, 0, PC_LIMIT, false, fetch},
                          {by_block, 0, PC_LIMIT, false, fetch},
                          {by_run, 0, PC_LIMIT, false, fetch}};
    for (unsigned k = 0; k < 3; k++) {
        rvt_ntrace_decoder *d;
        if (rvt_ntrace_decoder_new(&d, &o, 64, fetch, flow_add_pc, &lists[k]))
            return 0;
        rvt_ntrace_decoder_set_trap_sink(d, flow_ignore_trap);
        if (k == 1) {
            rvt_ntrace_decoder_set_block_sink(d, flow_add_block);
            rvt_ntrace_decoder_set_walk_sink(d, flow_add_walk);
        }
        if (k == 2)
            rvt_ntrace_decoder_set_run_sink(d, flow_add_run);
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
    }
    flow_compare(&lists[0], &lists[1]);
    flow_compare(&lists[0], &lists[2]);
    return 0;
}
