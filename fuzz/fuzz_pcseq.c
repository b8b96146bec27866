/* libFuzzer target: the NexRv pcseq reader (plain or zstd) on arbitrary
 * bytes, and its sniffer. It must end with steps or an error naming the
 * line, never crash, hang or leak. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rvt_pcseq_sniff((const char *)data, size);
    char path[64];
    int fd = fuzz_input_file(data, size, "pcseq", path);
    if (fd < 0)
        return 0;
    rvt_diag diag;
    bool is_pcseq;
    rvt_pcseq_file(path, &is_pcseq, &diag);
    rvt_pcseq_reader *r;
    if (rvt_pcseq_reader_open(&r, path, &diag) == 0) {
        rvt_nexus_step steps[64];
        long n;
        while ((n = rvt_pcseq_read(r, steps, 64, &diag)) > 0)
            for (long i = 0; i < n; i++)
                if (steps[i].flags & ~0xffu)
                    __builtin_trap(); /* (flags are the RVT_NXI_ bits) */
        rvt_pcseq_reader_close(r);
    }
    close(fd);
    return 0;
}
