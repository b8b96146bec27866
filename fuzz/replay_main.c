/* Runs a fuzz target's entry point over files, without libFuzzer, so the seed
 * corpus and every crash the fuzzers found stay checked by ctest (and under
 * the sanitizers in the sanitizer build). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rvtrace/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    int done = 0;
    for (int i = 1; i < argc; i++) {
        char *data;
        size_t size;
        rvt_diag d = {{0}};
        if (rvt_read_file(argv[i], &data, &size, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        LLVMFuzzerTestOneInput((const uint8_t *)data, size);
        free(data);
        done++;
    }
    printf("replayed %d inputs\n", done);
    return done ? 0 : 1;
}
