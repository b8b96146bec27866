/* libFuzzer target: arbitrary bytes as a te_inst stream under several
 * parameter sets (both packet layouts), in the reference flow's raw
 * transport and in the example encapsulation (source index and time stamps);
 * every packet either parses or the stream ends with an error naming its
 * byte offset, after which resynchronisation always moves forward; parsed
 * packets re-pack. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/etrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const rvt_te_transport encap = {.index_bytes = 1, .timestamps = true};
    for (int variant = 0; variant < 8; variant++) {
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
        o.implicit_except = (variant & 3) == 3;
        rvt_te_raw_cursor c = {.data = data, .size = size, .t = (variant & 4) ? &encap : NULL};
        rvt_te_inst pkt;
        rvt_diag diag;
        char row[1024];
        uint8_t again[64];
        for (int rc; (rc = rvt_te_raw_next(&c, &p, &o, &pkt, NULL, &diag)) != 0;) {
            if (rc < 0) {
                size_t before = c.pos;
                if (rvt_te_raw_resync(&c) == 0 || c.pos <= before)
                    __builtin_trap(); /* resynchronisation must make progress */
                continue;
            }
            rvt_te_inst_csv_row(&p, &o, &pkt, row, sizeof row);
            rvt_te_inst_pack(&p, &o, &pkt, again, sizeof again);
        }
    }
    return 0;
}
