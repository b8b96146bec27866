/* libFuzzer target: arbitrary bytes as a raw te_inst stream under several
 * parameter sets (both packet layouts); every packet either parses or the
 * stream ends with an error naming its byte offset; parsed packets re-pack. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/etrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (int variant = 0; variant < 4; variant++) {
        rvt_etrace_params p;
        rvt_etrace_options o;
        rvt_etrace_params_default(&p);
        rvt_etrace_options_default(&o);
        if (variant & 1) {
            p.iaddress_width = 32;
            p.notime = false;
            p.return_stack_size = 7;
            p.cache_size = 4;
            p.f0s_width = 1;
        }
        o.v1_layout = variant & 2;
        o.implicit_except = variant == 3;
        rvt_te_raw_cursor c = {.data = data, .size = size};
        rvt_te_inst pkt;
        rvt_diag diag;
        char row[1024];
        uint8_t again[64];
        while (rvt_te_raw_next(&c, &p, &o, &pkt, NULL, &diag) == 1) {
            rvt_te_inst_csv_row(&p, &o, &pkt, row, sizeof row);
            rvt_te_inst_pack(&p, &o, &pkt, again, sizeof again);
        }
    }
    return 0;
}
