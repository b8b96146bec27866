/* Damage golden N-Trace streams (flip bits, drop or insert bytes, start in the
 * middle of a message) and read them back: the reader must never crash, must
 * report damage that breaks the MSEO framing, and every message that starts
 * after the first message end following the damage must be exactly the
 * message found at that place in the clean stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ntrace.h"

typedef struct {
    rvt_nexus_msg *msgs;
    size_t n, cap;
    unsigned errors;
} parsed;

static void parse(const uint8_t *data, size_t size, parsed *out) {
    rvt_nexus_config cfg = {.src_bits = 0};
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, &cfg, data, size);
    rvt_nexus_msg m;
    rvt_diag d;
    int rc;
    out->n = 0;
    out->errors = 0;
    while ((rc = rvt_nexus_next(&r, &m, &d)) != 0) {
        if (rc < 0) {
            out->errors++;
            continue;
        }
        if (out->n == out->cap) {
            out->cap = out->cap ? out->cap * 2 : 1024;
            out->msgs = realloc(out->msgs, out->cap * sizeof *out->msgs);
            if (!out->msgs)
                abort();
        }
        out->msgs[out->n++] = m;
    }
}

static bool same_message(const rvt_nexus_msg *a, const rvt_nexus_msg *b, long shift) {
    if ((long)a->offset != (long)b->offset + shift || a->length != b->length || a->tcode != b->tcode ||
        a->nfields != b->nfields)
        return false;
    for (unsigned i = 0; i < a->nfields; i++)
        if (a->fields[i].id != b->fields[i].id || a->fields[i].width != b->fields[i].width ||
            a->fields[i].end_byte != b->fields[i].end_byte || a->fields[i].value != b->fields[i].value)
            return false;
    return true;
}

/* Every clean message that starts after `damage_end` (clean offsets) must be
 * found, moved by `shift` bytes (inserted minus dropped), in the damaged parse:
 * the damage can cost at most the message it hits and, when it removes an end
 * mark, the one after. */
static int check(const char *name, const char *what, size_t damage_end, long shift, const parsed *clean,
                 const parsed *damaged) {
    size_t di = 0;
    for (size_t ci = 0; ci < clean->n; ci++) {
        if (clean->msgs[ci].offset <= damage_end)
            continue;
        while (di < damaged->n && (long)damaged->msgs[di].offset < (long)clean->msgs[ci].offset + shift)
            di++;
        if (di == damaged->n || !same_message(&damaged->msgs[di], &clean->msgs[ci], shift)) {
            printf("%s: after %s ending at byte %zu, the message at %llu was not recovered\n", name, what,
                   damage_end, (unsigned long long)clean->msgs[ci].offset);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    int failures = 0;
    unsigned runs = 0, reported = 0;
    srand(12345);
    for (int a = 1; a < argc; a++) {
        char *raw;
        size_t size;
        rvt_diag diag;
        if (rvt_read_file(argv[a], &raw, &size, &diag)) {
            printf("%s\n", diag.msg);
            return 1;
        }
        const uint8_t *data = (const uint8_t *)raw;
        parsed clean = {0}, damaged = {0};
        parse(data, size, &clean);
        if (clean.errors || clean.n == 0) {
            printf("%s: clean stream does not parse (%u errors)\n", argv[a], clean.errors);
            return 1;
        }
        uint8_t *work = malloc(size + 16);
        for (int trial = 0; trial < 16 && size > 32; trial++) {
            size_t at = (size_t)rand() % (size - 16);
            int kind = trial % 4;
            size_t n = size;
            long shift = 0;
            size_t end = at + 1;
            const char *what;
            if (kind == 0) { /* flip the MSEO bits of one byte */
                memcpy(work, data, size);
                work[at] ^= (uint8_t)(1 + rand() % 3);
                what = "MSEO flip";
            } else if (kind == 1) { /* drop four bytes */
                memcpy(work, data, at);
                memcpy(work + at, data + at + 4, size - at - 4);
                n = size - 4, shift = -4, end = at + 4;
                what = "drop";
            } else if (kind == 2) { /* insert three bytes of noise */
                memcpy(work, data, at);
                for (int i = 0; i < 3; i++)
                    work[at + (size_t)i] = (uint8_t)rand();
                memcpy(work + at + 3, data + at, size - at);
                n = size + 3, shift = 3, end = at;
                what = "insert";
            } else { /* the capture starts in the middle */
                memcpy(work, data + at, size - at);
                n = size - at, shift = -(long)at, end = at;
                what = "start mid-stream";
            }
            parse(work, n, &damaged);
            runs++;
            if (damaged.errors)
                reported++;
            failures += check(argv[a], what, end, shift, &clean, &damaged);
        }
        free(work);
        free(clean.msgs);
        free(damaged.msgs);
        free(raw);
    }
    printf("ntrace corruption: %u damaged streams, %u with damage reported, %d not recovered\n", runs, reported,
           failures);
    return failures != 0 || runs == 0;
}
