/* Damage golden E-Trace streams (flip, drop and insert bytes at random
 * places), decode them, and check that nothing crashes, that damage is
 * reported whenever the decoded path differs from the clean one, and that
 * decoding recovers at later sync packets. Prints the recovered share. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/etrace.h"
#include "rvtrace/image.h"

typedef struct {
    rvt_image *img;
    uint64_t *pcs;
    size_t n, cap;
} ctx;

static bool fetch(void *user, uint64_t addr, rvt_insn *out) {
    const rvt_insn *in = rvt_image_insn(((ctx *)user)->img, addr);
    if (!in)
        return false;
    *out = *in;
    return true;
}

static int sink(void *user, uint64_t pc) {
    ctx *c = user;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1 << 16;
        c->pcs = realloc(c->pcs, c->cap * sizeof *c->pcs);
    }
    c->pcs[c->n++] = pc;
    return 0;
}

/* Decodes `data`; returns the number of places where trace was lost. */
static unsigned decode(ctx *c, const rvt_etrace_params *p, const rvt_etrace_options *o, const uint8_t *data,
                       size_t size) {
    rvt_etrace_decoder *d;
    c->n = 0;
    if (rvt_etrace_decoder_new(&d, p, o, rvt_image_xlen(c->img), fetch, sink, c))
        return 1000;
    rvt_te_raw_cursor cur = {.data = data, .size = size};
    rvt_te_inst pkt;
    rvt_diag diag;
    unsigned damage = 0;
    for (;;) {
        int rc = rvt_te_raw_next(&cur, p, o, &pkt, NULL, &diag);
        if (rc == 0)
            break;
        if (rc < 0) {
            damage++;
            cur.pos++;
            rvt_etrace_decoder_resync(d);
        } else if (rvt_etrace_decode(d, &pkt, &diag)) {
            damage++;
            rvt_etrace_decoder_resync(d);
        }
    }
    rvt_etrace_decoder_free(d);
    return damage;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: etrace_corruption SHARED_DIR\n");
        return 2;
    }
    static const char *const programs[] = {"dhrystone", "embench-crc32", "median"};
    int failures = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t k = 0; k < sizeof programs / sizeof programs[0]; k++) {
        char path[4096];
        ctx c = {0};
        rvt_diag diag = {{0}};
        snprintf(path, sizeof path, "%s/corpus/programs/%s.riscv", argv[1], programs[k]);
        if (rvt_image_new(&c.img) || rvt_image_load_elf(c.img, path, 0, &diag)) {
            fprintf(stderr, "%s\n", diag.msg);
            return 1;
        }
        rvt_etrace_params p;
        rvt_etrace_options o;
        rvt_etrace_params_default(&p);
        rvt_etrace_options_default(&o);
        snprintf(path, sizeof path, "%s/golden/etrace/itype3_basic/%s", argv[1],
                 rvt_image_xlen(c.img) == 32 ? "hw32.scf" : "hw64.scf");
        rvt_etrace_load_scf(path, &p, &diag);
        char *raw;
        size_t size;
        snprintf(path, sizeof path, "%s/golden/etrace/itype3_basic/%s.te_inst_raw", argv[1], programs[k]);
        if (rvt_read_file(path, &raw, &size, &diag)) {
            fprintf(stderr, "%s\n", diag.msg);
            return 1;
        }
        /* The clean decode, minus the boot ROM which is not in the ELF. */
        decode(&c, &p, &o, (const uint8_t *)raw, size);
        size_t clean_n = c.n;
        uint64_t *clean = malloc(clean_n * sizeof *clean);
        memcpy(clean, c.pcs, clean_n * sizeof *clean);
        unsigned runs = 30, reported = 0, changed = 0;
        double recovered = 0;
        uint8_t *buf = malloc(size + 16);
        for (unsigned run = 0; run < runs; run++) {
            memcpy(buf, raw, size);
            size_t n = size;
            for (int m = 0; m < 3; m++) { /* three damages per run */
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                size_t at = 64 + (size_t)(x % (n - 128));
                switch ((x >> 40) % 3) {
                case 0: buf[at] ^= (uint8_t)(1u << ((x >> 50) % 8)); break;
                case 1: memmove(buf + at, buf + at + 1, n - at - 1), n--; break;
                default: memmove(buf + at + 1, buf + at, n - at), buf[at] = (uint8_t)(x >> 56), n++; break;
                }
            }
            unsigned damage = decode(&c, &p, &o, buf, n);
            bool differs = c.n != clean_n || memcmp(c.pcs, clean, clean_n * sizeof *clean) != 0;
            changed += differs;
            reported += differs && damage > 0;
            /* Share of the clean path found again in the damaged decode's
             * last half (after recovery). */
            size_t tail = c.n / 2, match = 0;
            for (size_t i = tail, j = clean_n - (c.n - tail); i < c.n && j < clean_n; i++, j++)
                match += c.pcs[i] == clean[j];
            recovered += c.n > tail ? (double)match / (double)(c.n - tail) : 0;
        }
        printf("%s: %u damaged runs changed the path, %u of them reported; %.1f%% of the tail recovered exactly\n",
               programs[k], changed, reported, 100.0 * recovered / runs);
        /* A silent wrong path would be a failure; so would no recovery. */
        if (reported < changed * 9 / 10 || recovered / runs < 0.5)
            failures++;
        free(buf);
        free(clean);
        free(raw);
        free(c.pcs);
        rvt_image_free(c.img);
    }
    return failures ? 1 : 0;
}
