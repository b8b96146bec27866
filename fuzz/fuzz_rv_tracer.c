/* libFuzzer target: arbitrary bytes as PULP rv_tracer records (40 bytes
 * each, its packet layout and parameters): every record parses or is
 * reported with its byte offset and skipped whole, and parsed packets show
 * in the CSV view and go through the E-Trace decoder against a small code
 * image without crashing. */
#include <stddef.h>
#include <stdint.h>

#include "rvtrace/etrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CODE_BASE 0x80000000u
#define PC_LIMIT (1u << 16)

/* addi, beq back, jal ra forward, ret, jalr a5, c.nop: repeating every 24 bytes */
static const uint32_t pattern[6] = {0x00150513u, 0xfeb50ee3u, 0x008000efu, 0x00008067u, 0x000780e7u, 0x00010001u};

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    (void)user;
    if (addr < CODE_BASE || addr >= CODE_BASE + 0x10000u || (addr & 1))
        return false;
    uint32_t w = pattern[((addr - CODE_BASE) / 4) % 6];
    rvt_decode((addr & 2) ? 0x0001u : w, 64, out);
    return true;
}

static int count_pc(void *user, uint64_t pc) {
    (void)pc;
    return ++*(unsigned long *)user > PC_LIMIT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const rvt_te_transport records = {.rv_tracer_records = true};
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_etrace_rv_tracer_config(&p, &o);
    unsigned long pcs = 0;
    rvt_etrace_decoder *d;
    if (rvt_etrace_decoder_new(&d, &p, &o, 64, fetch, count_pc, &pcs))
        return 0;
    rvt_te_raw_cursor c = {.data = data, .size = size, .t = &records};
    rvt_te_inst pkt;
    rvt_diag diag;
    char row[1024];
    for (int rc; (rc = rvt_te_raw_next(&c, &p, &o, &pkt, NULL, &diag)) != 0;) {
        if (rc < 0) {
            if (c.pos % RVT_RV_TRACER_RECORD && c.pos != size)
                __builtin_trap(); /* a damaged record is skipped whole, a partial one ends the stream */
            rvt_etrace_decoder_resync(d);
            continue;
        }
        rvt_te_inst_csv_row(&p, &o, &pkt, row, sizeof row);
        if (rvt_etrace_decode(d, &pkt, &diag) == RVT_E_IO)
            break;
    }
    rvt_etrace_decoder_free(d);
    return 0;
}
