/* The vector unit's columns against SiFive's decoder: FILE.dqr holds, per
 * instruction, its class letter and the column dqr's own cycle-accurate
 * reader gave it for FILE.rcad (tests/e2e/ca_cycles/README.md), or "end 2"
 * where that reader came to the end of the file, "end 5" where its queue
 * was full; rvt_ca_next and rvt_ca_format must give the same, instruction
 * by instruction.
 *   ca_vector_check FILE.rcad FILE.dqr */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/cycles.h"

static rvt_ca_class class_of(char k) {
    switch (k) {
    case 'A':
        return RVT_CA_VARITH;
    case 'L':
        return RVT_CA_VLOAD;
    case 'T':
        return RVT_CA_VSTORE;
    case 'M':
        return RVT_CA_VAMO;
    case 'W':
        return RVT_CA_VAMO_WW;
    case 'C':
        return RVT_CA_VCONFIG;
    default:
        return RVT_CA_SCALAR;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: ca_vector_check FILE.rcad FILE.dqr\n");
        return 2;
    }
    char *bytes = NULL;
    size_t size = 0;
    rvt_diag d = {{0}};
    rvt_ca_reader *r = NULL;
    if (rvt_read_file(argv[1], &bytes, &size, &d) ||
        rvt_ca_reader_new(&r, (const uint8_t *)bytes, size, RVT_CA_VECTOR, argv[1], &d)) {
        fprintf(stderr, "ca_vector_check: %s\n", d.msg);
        return 1;
    }
    free(bytes);
    FILE *f = fopen(argv[2], "r");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    char line[256];
    unsigned n = 0, vector = 0;
    int fail = 0;
    bool ended = false;
    uint64_t previous = 0;
    while (!fail && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        n++;
        rvt_ca_note note;
        int rc = rvt_ca_next(r, class_of(line[0]), &note, &d);
        if (!strncmp(line + 2, "end ", 4)) {
            /* 2: dqr's reader came to the end of the file; 5: its queue was full */
            int expected = atoi(line + 6) == 2 ? RVT_E_TRUNC : RVT_E_FORMAT;
            if (rc != expected) {
                printf("line %u: dqr's reader ended (%s), rvtrace's gave %d: %s\n", n, line + 6, rc,
                       rc ? d.msg : "cycles");
                fail = 1;
            } else {
                printf("%s\n", d.msg);
            }
            ended = true;
            break;
        }
        if (rc) {
            printf("line %u: %s: %s\n", n, line, d.msg);
            fail = 1;
            break;
        }
        char text[160];
        rvt_ca_format(&note, previous, text, sizeof text);
        previous = note.cycle;
        vector += note.vector != 0;
        if (strcmp(text, line + 2) != 0) {
            printf("line %u (%c): dqr %s, rvtrace %s\n", n, line[0], line + 2, text);
            fail = 1;
        }
    }
    fclose(f);
    rvt_ca_reader_free(r);
    if (!fail && vector < 50 && !strstr(line, "end 5")) {
        printf("only %u vector instructions: the data does not exercise the vector unit\n", vector);
        fail = 1;
    }
    if (!fail)
        printf("ok %s: %u instructions (%u vector) as dqr's reader%s\n", argv[2], n, vector,
               ended ? ", and the end where it ends" : "");
    return fail;
}
