/* libFuzzer target: the E-Trace decoder on arbitrary packets against a fixed
 * pseudo-random code image (every instruction class appears), with and
 * without implicit return (with a return stack, a call counter or neither),
 * branch prediction and the jump target cache.
 * Whatever the packets say, decoding ends each packet with a path or an
 * error, never a crash or an endless walk; and a second decoder with a block
 * sink and a third with a run sink give the same addresses as the first one
 * gives one by one. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_flow.h"
#include "rvtrace/etrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CODE_BASE 0x80000000u
#define CODE_HALFWORDS 4096u

static uint16_t code[CODE_HALFWORDS + 1];

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr < CODE_BASE || addr >= CODE_BASE + 2u * CODE_HALFWORDS || (addr & 1))
        return false;
    size_t i = (addr - CODE_BASE) / 2;
    rvt_decode((uint32_t)code[i] | (uint32_t)code[i + 1] << 16, 64, out);
    return true;
}

/* Packets may legitimately ask for walks of millions of instructions (a
 * branch count of 2^32); one input stops after PC_LIMIT addresses. */
#define PC_LIMIT (1ul << 16)

static uint64_t by_pc[PC_LIMIT], by_block[PC_LIMIT], by_run[PC_LIMIT];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!code[0]) { /* deterministic pseudo-random code, made once */
        uint32_t x = 2463534242u;
        for (size_t i = 0; i <= CODE_HALFWORDS; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            code[i] = (uint16_t)x | 1;
        }
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_etrace_params_default(&p);
    rvt_etrace_options_default(&o);
    o.implicit_return = size && (data[0] & 1);
    /* implicit return with a return stack of two entries or a call counter
     * of two bits: small, so that inputs fill them */
    if (size && (data[0] & 4))
        p.return_stack_size = 1;
    else if (size && (data[0] & 8))
        p.call_counter_size = 2;
    if (size && (data[0] & 2)) { /* branch prediction and jump target cache (format 0) */
        p.bpred_size = 4;
        p.cache_size = 3;
        p.f0s_width = 1;
        o.branch_prediction = o.jump_target_cache = true;
    }
    flow_list lists[3] = {{by_pc, 0, PC_LIMIT, false, fetch},
                          {by_block, 0, PC_LIMIT, false, fetch},
                          {by_run, 0, PC_LIMIT, false, fetch}};
    rvt_etrace_decoder *decs[3];
    for (unsigned k = 0; k < 3; k++) {
        if (rvt_etrace_decoder_new(&decs[k], &p, &o, 64, fetch, flow_add_pc, &lists[k])) {
            while (k--)
                rvt_etrace_decoder_free(decs[k]);
            return 0;
        }
        rvt_etrace_decoder_set_trap_sink(decs[k], flow_ignore_trap);
    }
    rvt_etrace_decoder_set_block_sink(decs[1], flow_add_block);
    rvt_etrace_decoder_set_walk_sink(decs[1], flow_add_walk);
    rvt_etrace_decoder_set_run_sink(decs[2], flow_add_run);
    for (unsigned k = 0; k < 3; k++) {
        rvt_etrace_decoder *d = decs[k];
        rvt_te_raw_cursor c = {.data = data, .size = size};
        rvt_te_inst pkt;
        rvt_diag diag;
        for (;;) {
            int rc = rvt_te_raw_next(&c, &p, &o, &pkt, NULL, &diag);
            if (rc == 0)
                break;
            if (rc < 0) {
                rvt_te_raw_resync(&c);
                rvt_etrace_decoder_resync(d);
                continue;
            }
            rc = rvt_etrace_decode(d, &pkt, &diag);
            if (rc == RVT_E_IO)
                break; /* the PC limit */
            if (rc)
                rvt_etrace_decoder_resync(d);
        }
        rvt_etrace_decoder_ambiguous_ends(d, true, NULL, NULL);
        rvt_etrace_decoder_free(d);
    }
    flow_compare(&lists[0], &lists[1]);
    flow_compare(&lists[0], &lists[2]);
    return 0;
}
