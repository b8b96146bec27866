/* Damage N-Trace streams (flip, drop and insert bytes at random places) and
 * decode them with the program: nothing may crash, damage must be reported
 * whenever the decoded path differs from the clean one, and decoding must
 * recover at a later synchronising message. Two kinds of stream per program:
 * NexRv's golden one (tst4), which synchronises only at its start, so damage
 * ends the decode; and ours from the corpus spike trace with periodic sync
 * (every 32 messages), where the tail of the path must come back. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/ntrace.h"

typedef struct {
    rvt_image *img;
    rvt_machine *m; /* the boot ROM the spike traces start in */
    uint64_t *pcs;
    size_t n, cap;
    size_t limit; /* a damaged count may walk an endless loop: stop there */
} ctx;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    ctx *c = user;
    return rvt_program_insn(c->img, c->m, addr, out);
}

static int sink(void *user, uint64_t pc) {
    ctx *c = user;
    if (c->limit && c->n >= c->limit)
        return 1;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1 << 16;
        uint64_t *p = realloc(c->pcs, c->cap * sizeof *c->pcs);
        if (!p)
            return 1;
        c->pcs = p;
    }
    c->pcs[c->n++] = pc;
    return 0;
}

/* Decodes `data` (made by NexRv's call-stack rules or the spec's); returns
 * the number of places where trace was lost or that were warned about. */
static unsigned decode(ctx *c, const uint8_t *data, size_t size, bool nexrv) {
    rvt_ntrace_decoder_options o = {.call_stack = 8, .src_id = -1, .nexrv = nexrv};
    rvt_ntrace_decoder *d;
    c->n = 0;
    if (rvt_ntrace_decoder_new(&d, &o, rvt_image_xlen(c->img), fetch, sink, c))
        return 1000;
    rvt_nexus_config cfg = {.src_bits = 0};
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, &cfg, data, size);
    rvt_nexus_msg m;
    rvt_diag diag;
    unsigned damage = 0;
    int rc;
    while ((rc = rvt_nexus_next(&r, &m, &diag)) != 0) {
        if (rc < 0) {
            damage++;
            rvt_ntrace_decoder_resync(d);
        } else if (!rvt_nexus_tcode_name(m.tcode)) {
            damage++; /* a reserved TCODE: skipped, with the warning decode gives (it may be damage) */
        } else if ((rc = rvt_ntrace_decode(d, &m, &diag)) == RVT_E_IO) {
            damage++;
            break;
        } else if (rc) {
            damage++;
        }
    }
    rvt_ntrace_decoder_free(d);
    return damage;
}

/* Our stream of the corpus spike trace, with periodic synchronisation. */
static int encode_synced(const char *csv, unsigned xlen, rvt_membuf *out, rvt_diag *diag) {
    rvt_retire_reader *r;
    int rc = rvt_retire_reader_open(&r, csv, RVT_FMT_AUTO, xlen, diag);
    if (rc)
        return rc;
    rvt_ntrace_options o = {.call_stack = 8, .repeat = 2, .sync_max = 1};
    rvt_ntrace_encoder *e;
    if ((rc = rvt_ntrace_encoder_new(&e, &o, xlen, rvt_membuf_append, out))) {
        rvt_retire_reader_close(r);
        return rc;
    }
    static rvt_retire recs[4096];
    long n;
    while ((n = rvt_retire_reader_read(r, recs, 4096, diag)) > 0 && !(rc = rvt_ntrace_encoder_push(e, recs, (size_t)n)))
        ;
    rvt_retire_reader_close(r);
    int frc = rvt_ntrace_encoder_finish(e, NULL);
    return n < 0 ? (int)n : rc ? rc : frc;
}

static uint64_t x = 0x9e3779b97f4a7c15ull;

/* Returns 1 when the check fails. */
static int damage_runs(ctx *c, const char *label, const uint8_t *data, size_t size, bool nexrv,
                       bool expect_recovery) {
    c->limit = 0;
    if (decode(c, data, size, nexrv) != 0)
        return 1; /* the clean stream must decode cleanly */
    size_t clean_n = c->n;
    c->limit = 2 * clean_n + 4096;
    uint64_t *clean = malloc(clean_n * sizeof *clean);
    uint8_t *buf = malloc(size + 16);
    if (!clean || !buf || size < 256)
        return 1;
    memcpy(clean, c->pcs, clean_n * sizeof *clean);
    unsigned runs = 30, reported = 0, changed = 0;
    double recovered = 0, decoded = 0;
    for (unsigned run = 0; run < runs; run++) {
        memcpy(buf, data, size);
        size_t n = size;
        for (int k = 0; k < 3; k++) { /* three damages per run */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* in the first 70% of the stream, so that the last quarter of
             * the path lies after the damage */
            size_t at = 64 + (size_t)(x % (n * 7 / 10 - 64));
            switch ((x >> 40) % 3) {
            case 0: buf[at] ^= (uint8_t)(1u << ((x >> 50) % 8)); break;
            case 1: memmove(buf + at, buf + at + 1, n - at - 1), n--; break;
            default: memmove(buf + at + 1, buf + at, n - at), buf[at] = (uint8_t)(x >> 56), n++; break;
            }
        }
        unsigned damage = decode(c, buf, n, nexrv);
        decoded += (double)c->n;
        bool differs = c->n != clean_n || memcmp(c->pcs, clean, clean_n * sizeof *clean) != 0;
        changed += differs;
        reported += differs && damage > 0;
        /* Share of the clean path's last quarter found again at the end of
         * the damaged decode (aligned from the end). */
        size_t want = clean_n / 4, match = 0;
        for (size_t i = 0; i < want && i < c->n; i++)
            match += c->pcs[c->n - 1 - i] == clean[clean_n - 1 - i];
        recovered += want ? (double)match / (double)want : 0;
    }
    printf("%s: %u damaged runs changed the path, %u of them reported; %.0f of %zu instructions decoded on "
           "average, %.1f%% of the last quarter recovered\n",
           label, changed, reported, decoded / runs, clean_n, 100.0 * recovered / runs);
    free(clean);
    free(buf);
    /* A silent wrong path would be a failure; so would no recovery where a
     * sync follows the damage. */
    return reported < changed * 9 / 10 || (expect_recovery && recovered / runs < 0.8);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: ntrace_decode_corruption SHARED_DIR\n");
        return 2;
    }
    static const char *const programs[] = {"dhrystone", "embench-crc32", "median"};
    int failures = 0;
    for (size_t k = 0; k < sizeof programs / sizeof programs[0]; k++) {
        char path[4096], label[256];
        ctx c = {0};
        rvt_diag diag = {{0}};
        snprintf(path, sizeof path, "%s/corpus/programs/%s.riscv", argv[1], programs[k]);
        if (rvt_image_new(&c.img) || rvt_image_load_elf(c.img, path, 0, &diag)) {
            fprintf(stderr, "%s\n", diag.msg);
            return 1;
        }
        rvt_machine_config cfg;
        rvt_machine_config_default(&cfg);
        if (rvt_machine_new(&c.m, &cfg, c.img, &diag)) {
            fprintf(stderr, "%s\n", diag.msg);
            return 1;
        }
        char *raw;
        size_t size;
        snprintf(path, sizeof path, "%s/golden/ntrace/tst4/%s.nex", argv[1], programs[k]);
        if (rvt_read_file(path, &raw, &size, &diag)) {
            fprintf(stderr, "%s\n", diag.msg);
            return 1;
        }
        snprintf(label, sizeof label, "%s golden tst4", programs[k]);
        failures += damage_runs(&c, label, (const uint8_t *)raw, size, true, false);
        free(raw);
        rvt_membuf ours = {0};
        snprintf(path, sizeof path, "%s/corpus/spike/%s.csv.zst", argv[1], programs[k]);
        if (encode_synced(path, rvt_image_xlen(c.img), &ours, &diag)) {
            fprintf(stderr, "%s: %s\n", path, diag.msg);
            return 1;
        }
        snprintf(label, sizeof label, "%s periodic sync", programs[k]);
        failures += damage_runs(&c, label, ours.data, ours.len, false, true);
        rvt_membuf_free(&ours);
        free(c.pcs);
        rvt_machine_free(c.m);
        rvt_image_free(c.img);
    }
    return failures ? 1 : 0;
}
