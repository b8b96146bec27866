/* libFuzzer target: arbitrary bytes as a SiFive cycle-accurate side file
 * (.rcad). The first byte picks the type (bit 0: vector) and where the
 * trace is said to start in the fuzz code image (the rest), for the walk
 * from the file's start address; the instructions then take their cycles
 * with classes drawn from the input until the file ends. Every call ends in
 * cycles or an error; the cycles never go back, a vector instruction starts
 * no earlier than it left the pipe and finishes after it started, and the
 * text fits dqr's column. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_code.h"
#include "rvtrace/cycles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* (checked in every build: the replay tests run the release one) */
static void check(bool ok) {
    if (!ok)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fuzz_words[0])
        make_code();
    if (size < 1)
        return 0;
    rvt_ca_type type = data[0] & 1 ? RVT_CA_VECTOR : RVT_CA_INSTRUCTION;
    uint64_t first = CODE_BASE + 4u * (data[0] >> 1);
    rvt_ca_reader *r;
    rvt_diag d;
    if (rvt_ca_reader_new(&r, data + 1, size - 1, type, "fuzz.rcad", &d)) {
        check(size - 1 < RVT_CA_RECORD_BYTES);
        return 0;
    }
    check(rvt_ca_trailing(r) == (size - 1) % RVT_CA_RECORD_BYTES);
    int rc = rvt_ca_align(r, first, fetch, NULL, &d);
    check(rc == 0 || rc == 1 || rc == RVT_E_TRUNC);
    uint64_t previous = 0;
    /* each instruction takes at least one pipe bit: the file's bits bound the loop */
    for (size_t i = 0; rc != RVT_E_TRUNC; i++) {
        rvt_ca_note note;
        rc = rvt_ca_next(r, (rvt_ca_class)(data[1 + i % (size - 1)] % 7), &note, &d);
        if (rc) {
            check(rc == RVT_E_TRUNC || rc == RVT_E_FORMAT || rc == RVT_E_NOMEM);
            check(strstr(d.msg, "fuzz.rcad: ") == d.msg);
            break;
        }
        check(note.pipe <= 1);
        check(note.cycle >= previous);
        if (note.vector) {
            check(note.vector & RVT_CA_HAS_VSTART);
            check(note.vstart >= note.cycle && note.vfinish > note.vstart);
        }
        char text[160];
        int n = rvt_ca_format(&note, previous, text, sizeof text);
        check(n > 0 && (size_t)n < sizeof text && strlen(text) == (size_t)n);
        previous = note.cycle;
    }
    rvt_ca_reader_free(r);
    return 0;
}
