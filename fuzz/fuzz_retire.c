/* libFuzzer target: the retirement-stream readers (.rvti, reference CSV,
 * spike log, each plain or zstd) on arbitrary bytes. They must end with
 * records or a clear error, never crash, hang or leak. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "rvtrace/ingress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[64];
    int fd = fuzz_input_file(data, size, "retire", path);
    if (fd < 0)
        return 0;
    static const enum rvt_retire_format formats[] = {RVT_FMT_AUTO, RVT_FMT_SPIKE_CSV, RVT_FMT_SPIKE_LOG};
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
        rvt_retire_reader *r;
        rvt_diag diag;
        if (rvt_retire_reader_open(&r, path, formats[k], k ? 32 : 64, &diag) == 0) {
            rvt_retire recs[64];
            while (rvt_retire_reader_read(r, recs, 64, &diag) > 0)
                ;
            rvt_retire_reader_close(r);
        }
    }
    close(fd);
    return 0;
}
