/* libFuzzer target: arbitrary bytes as an N-Trace MSEO stream, with and without
 * a SRC field. The reader must always make progress, stay inside the buffer and
 * return messages whose fields fit in 64 bits. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (unsigned src_bits = 0; src_bits <= 3; src_bits += 3) {
        rvt_nexus_config cfg = {.src_bits = src_bits};
        rvt_nexus_reader r;
        rvt_nexus_reader_init(&r, &cfg, data, size);
        rvt_nexus_msg m;
        rvt_diag d;
        for (;;) {
            size_t before = r.pos;
            int rc = rvt_nexus_next(&r, &m, &d);
            if (rc == 0)
                break;
            if (r.pos <= before || r.pos > size)
                abort();
            if (rc == 1) {
                if (m.offset + m.length != r.pos || !rvt_nexus_tcode_name(m.tcode))
                    abort();
                for (unsigned i = 0; i < m.nfields; i++)
                    if (m.fields[i].width == 0 || m.fields[i].width > 70 || m.fields[i].end_byte >= m.length)
                        abort();
            }
        }
    }
    return 0;
}
