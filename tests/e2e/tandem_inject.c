/* One fault in a tandem trace, for the tests of rvtrace verify: copies the
 * trace to standard output with one record changed, in one pass (the trace
 * may come through a pipe: a long run's trace need not be kept on disk).
 *
 * usage: tandem_inject [--xlen N] --after GROUP --gpr|--load-in BASE:SIZE TRACE
 *   --gpr               the first full value of x1..x31 (opcode 4) in a group
 *                       from GROUP on (0-based, counting begin records): its
 *                       lowest bit flipped
 *   --load-in BASE:SIZE the first load (or LR) response with data whose
 *                       request lies in [BASE, BASE + SIZE), from GROUP on:
 *                       its lowest bit flipped (a device's answer, for a
 *                       device's window)
 * TRACE may be zstd-compressed; "-" reads standard input. On standard error:
 *   tandem_inject: group G (byte B): WHAT OLD -> NEW
 * with B the byte offset of the group's begin record. Exit status 1 when no
 * record fits (the copy is then unchanged) or the trace is unreadable. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/tandem.h"

#define CHUNK (1u << 20) /* records are at most 20 bytes: one cuts at most two chunks */

typedef struct chunk {
    uint8_t *bytes;
    size_t len;
    uint64_t start; /* its first byte's offset in the stream */
} chunk;

typedef struct target {
    bool gpr;                  /* else a load response in [base, base + size) */
    uint64_t base, size;
    uint64_t after;            /* the first group index that may take the fault */
} target;

static int usage(void) {
    fprintf(stderr, "usage: tandem_inject [--xlen N] --after GROUP --gpr|--load-in BASE:SIZE TRACE\n");
    return 2;
}

/* Writes `bytes` over the stream's [offset, offset + n), which lies in the
 * previous chunk and the current one. */
static void patch(chunk *prev, chunk *cur, uint64_t offset, const uint8_t *bytes, size_t n) {
    for (size_t k = 0; k < n; k++) {
        uint64_t at = offset + k;
        if (at >= cur->start)
            cur->bytes[at - cur->start] = bytes[k];
        else
            prev->bytes[at - prev->start] = bytes[k];
    }
}

/* The stream's byte at `offset` (in the previous chunk or the current one). */
static uint8_t stream_byte(const chunk *prev, const chunk *cur, uint64_t offset) {
    return offset >= cur->start ? cur->bytes[offset - cur->start] : prev->bytes[offset - prev->start];
}

/* The record changed in place: its re-encoding must be as long as the
 * original's, and the original's must be the bytes in the stream (else the
 * patch would not be the change described). */
static bool rewrite(const rvt_tv_params *p, chunk *prev, chunk *cur, const rvt_tv_record *old,
                    const rvt_tv_record *new_rec) {
    uint8_t was[RVT_TV_MAX_RECORD], now[RVT_TV_MAX_RECORD];
    size_t n_was = rvt_tv_encode(p, old, was, NULL), n_now = rvt_tv_encode(p, new_rec, now, NULL);
    if (!n_was || n_was != n_now)
        return false;
    for (size_t k = 0; k < n_was; k++)
        if (stream_byte(prev, cur, old->offset + k) != was[k])
            return false;
    patch(prev, cur, old->offset, now, n_now);
    return true;
}

static bool write_chunk(const chunk *c) { return !c->len || fwrite(c->bytes, 1, c->len, stdout) == c->len; }

int main(int argc, char **argv) {
    target t = {0};
    bool have_kind = false, have_after = false;
    unsigned xlen = 64;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--gpr")) {
            t.gpr = have_kind = true;
        } else if (!strcmp(a, "--load-in") && val) {
            char *end;
            t.base = strtoull(val, &end, 0);
            if (*end != ':')
                return usage();
            t.size = strtoull(end + 1, &end, 0);
            if (*end || !t.size)
                return usage();
            have_kind = true, i++;
        } else if (!strcmp(a, "--after") && val) {
            t.after = strtoull(val, NULL, 0), have_after = true, i++;
        } else if (!strcmp(a, "--xlen") && val) {
            xlen = (unsigned)atoi(val), i++;
        } else if (!path && (a[0] != '-' || !strcmp(a, "-"))) {
            path = a;
        } else {
            return usage();
        }
    }
    if (!have_kind || !have_after || !path)
        return usage();
    rvt_tv_params p;
    rvt_tv_params_default(&p, xlen);
    rvt_diag d = {{0}};
    rvt_zreader *in = NULL;
    rvt_tv_reader *rd = NULL;
    if (rvt_zreader_open(&in, strcmp(path, "-") ? path : "/dev/stdin", &d) || rvt_tv_reader_new(&rd, &p, &d)) {
        fprintf(stderr, "tandem_inject: %s\n", d.msg);
        return 1;
    }
    chunk a = {malloc(CHUNK), 0, 0}, b = {malloc(CHUNK), 0, 0};
    chunk *prev = &a, *cur = &b;
    if (!a.bytes || !b.bytes) {
        fprintf(stderr, "tandem_inject: out of memory\n");
        return 1;
    }
    uint64_t begins = 0, group_offset = 0, streamed = 0;
    uint64_t request_addr = 0; /* of the last memory request */
    bool in_group = false, done = false, failed = false;
    for (;;) {
        long n = rvt_zreader_read(in, cur->bytes, CHUNK, &d);
        if (n < 0) {
            fprintf(stderr, "tandem_inject: %s\n", d.msg);
            failed = true;
            break;
        }
        if (n == 0)
            break;
        cur->len = (size_t)n;
        cur->start = streamed;
        streamed += (uint64_t)n;
        rvt_tv_reader_feed(rd, cur->bytes, cur->len);
        rvt_tv_record r;
        int rc;
        while ((rc = rvt_tv_reader_next(rd, &r, &d)) == 1) {
            if (r.opcode == RVT_TV_BEGIN) {
                begins++;
                group_offset = r.offset;
                in_group = true;
                continue;
            }
            if (r.opcode == RVT_TV_END) {
                in_group = false;
                continue;
            }
            if (r.opcode == RVT_TV_MEM_REQ)
                request_addr = r.addr;
            if (done || !in_group || begins - 1 < t.after)
                continue;
            bool fits = t.gpr ? r.opcode == RVT_TV_REG && r.reg > RVT_TV_REG_GPR && r.reg < RVT_TV_REG_FPR
                              : r.opcode == RVT_TV_MEM_RSP && r.has_data &&
                                    (r.memop == RVT_TV_LOAD || r.memop == RVT_TV_LR) &&
                                    request_addr - t.base < t.size;
            if (!fits)
                continue;
            rvt_tv_record changed = r;
            changed.value ^= 1;
            if (!rewrite(&p, prev, cur, &r, &changed)) {
                fprintf(stderr, "tandem_inject: byte %" PRIu64 ": the record does not re-encode as it stands\n",
                        r.offset);
                failed = true;
                break;
            }
            char name[32];
            if (t.gpr)
                rvt_tv_reg_name(r.reg, name, sizeof name);
            else
                snprintf(name, sizeof name, "load of %u bytes at %#" PRIx64, 1u << r.size, request_addr);
            fprintf(stderr, "tandem_inject: group %" PRIu64 " (byte %" PRIu64 "): %s %#" PRIx64 " -> %#" PRIx64 "\n",
                    begins - 1, group_offset, name, r.value, changed.value);
            done = true;
        }
        if (rc < 0) {
            fprintf(stderr, "tandem_inject: %s\n", d.msg);
            failed = true;
        }
        if (failed || !write_chunk(prev))
            break;
        chunk *spare = prev;
        prev = cur;
        cur = spare;
        cur->len = 0;
    }
    if (!failed && (!write_chunk(prev) || fflush(stdout) != 0)) {
        fprintf(stderr, "tandem_inject: writing the copy failed\n");
        failed = true;
    }
    if (!failed && rvt_tv_reader_finish(rd, &d)) {
        fprintf(stderr, "tandem_inject: %s\n", d.msg);
        failed = true;
    }
    if (!failed && !done)
        fprintf(stderr, "tandem_inject: no record to change from group %" PRIu64 " on\n", t.after);
    rvt_tv_reader_free(rd);
    rvt_zreader_close(in);
    free(a.bytes);
    free(b.bytes);
    return failed || !done ? 1 : 0;
}
