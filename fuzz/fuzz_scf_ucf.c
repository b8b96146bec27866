/* libFuzzer target: the E-Trace .scf and .ucf readers on arbitrary bytes,
 * each alone and both together, and the discovery registers; parameters they accept must make a decoder
 * and an encoder (or be refused by them cleanly). Never a crash, hang or
 * leak. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "rvtrace/etrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool no_code(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    (void)addr;
    (void)out;
    return false;
}

static int no_pc(void *user, uint64_t pc) {
    (void)user;
    (void)pc;
    return 0;
}

static int no_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)user;
    (void)pkt;
    (void)payload;
    (void)len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[64];
    int fd = fuzz_input_file(data, size, "scf", path);
    if (fd < 0)
        return 0;
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag diag;
    rvt_etrace_params_default(&p);
    rvt_etrace_options_default(&o);
    rvt_etrace_load_scf(path, &p, &diag);
    rvt_etrace_load_ucf(path, &o, &diag);
    /* the parameters that load, through the discovery registers and back;
     * and the input's first 16 bytes as registers */
    uint64_t info[2];
    if (rvt_etrace_discovery_pack(&p, info, &diag) == 0)
        rvt_etrace_discovery_unpack(info, &p, &diag);
    if (size >= 16) {
        memcpy(info, data, sizeof info);
        rvt_etrace_params q;
        rvt_etrace_params_spec_default(&q, data[0] & 1);
        if (rvt_etrace_discovery_unpack(info, &q, &diag) == 0 && rvt_etrace_discovery_pack(&q, info, &diag) != 0)
            __builtin_trap(); /* what unpacks must pack again */
    }
    if (rvt_etrace_load_config(path, path, &p, &o, &diag) == 0) {
        rvt_etrace_decoder *dec;
        if (rvt_etrace_decoder_new(&dec, &p, &o, 64, no_code, no_pc, NULL) == 0)
            rvt_etrace_decoder_free(dec);
        rvt_etrace_encoder *enc;
        if (rvt_etrace_encoder_new(&enc, &p, &o, no_packet, NULL) == 0)
            rvt_etrace_encoder_finish(enc, NULL);
    }
    close(fd);
    return 0;
}
