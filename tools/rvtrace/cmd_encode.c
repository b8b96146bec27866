/* rvtrace encode: a retirement stream in, trace packets out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rvtrace/etrace.h"
#include "rvtrace/ingress.h"

static void encode_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace encode --format etrace [--scf HW.scf] [--ucf ENC.ucf] INPUT -o OUT\n"
            "\n"
            "Encode a retirement stream with the E-Trace branch-trace algorithm and write\n"
            "the raw te_inst stream ([header][payload] per packet, as the reference flow).\n"
            "INPUT: the reference flow's encoder-input CSV, the corpus spike CSV, a spike\n"
            "commit log or .rvti (single-retire), plain or zstd-compressed.\n"
            "\n"
            "Options:\n"
            "  --scf FILE     static hardware configuration (discovery parameters)\n"
            "  --ucf FILE     user configuration (run-time options)\n"
            "  --full-address, --resync-max N   override the .ucf settings\n"
            "  --v1           E-Trace 1.0 packet layout (default: the ratified 2.0 layout)\n"
            "  --xlen 32|64   XLEN for classifying text inputs (default 64)\n"
            "  -o FILE        output file (required)\n"
            "  --stats NAME   print the reference flow's Stat line for this run, labelled NAME\n"
            "  -h, --help     show this help\n"
            "\n"
            "Example: rvtrace encode --format etrace --scf hw64.scf --ucf encoder.ucf dhrystone.encoder_input.zst -o d.te\n");
}

typedef struct {
    FILE *out;
    uint64_t bytes, packets;
} raw_out;

static int write_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)pkt;
    raw_out *o = user;
    o->bytes += 1 + len;
    o->packets++;
    return rvt_te_raw_write(o->out, payload, len);
}

int cmd_encode(int argc, char **argv) {
    const char *scf = NULL, *ucf = NULL, *input = NULL, *output = NULL, *format = "etrace", *stats = NULL;
    bool v1 = false, full = false;
    int resync = -1;
    unsigned xlen = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            encode_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--scf") && i + 1 < argc) {
            scf = argv[++i];
        } else if (!strcmp(a, "--ucf") && i + 1 < argc) {
            ucf = argv[++i];
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            output = argv[++i];
        } else if (!strcmp(a, "--stats") && i + 1 < argc) {
            stats = argv[++i];
        } else if (!strcmp(a, "--v1")) {
            v1 = true;
        } else if (!strcmp(a, "--full-address")) {
            full = true;
        } else if (!strcmp(a, "--resync-max") && i + 1 < argc) {
            resync = atoi(argv[++i]);
        } else if (!strcmp(a, "--xlen") && i + 1 < argc) {
            xlen = (unsigned)atoi(argv[++i]);
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rvtrace encode: unknown option '%s'\n", a);
            return 2;
        } else if (!input) {
            input = a;
        } else {
            encode_usage(stderr);
            return 2;
        }
    }
    if (!input || !output) {
        encode_usage(stderr);
        return 2;
    }
    if (strcmp(format, "etrace") != 0) {
        fprintf(stderr, "rvtrace encode: --format %s is not supported yet (etrace only)\n", format);
        return 2;
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag d = {{0}};
    if (rvt_etrace_load_config(scf, ucf, &p, &o, &d)) {
        fprintf(stderr, "rvtrace encode: %s\n", d.msg);
        return 1;
    }
    o.v1_layout = v1;
    if (full)
        o.full_address = true;
    if (resync >= 0)
        o.resync_max = (unsigned)resync;
    rvt_retire_reader *r;
    if (rvt_retire_reader_open(&r, input, RVT_FMT_AUTO, xlen, &d)) {
        fprintf(stderr, "rvtrace encode: %s\n", d.msg);
        return 1;
    }
    FILE *out = fopen(output, "wb");
    if (!out) {
        fprintf(stderr, "rvtrace encode: %s: %s\n", output, strerror(errno));
        rvt_retire_reader_close(r);
        return 1;
    }
    rvt_etrace_encoder *e;
    int status = 1;
    raw_out ro = {out, 0, 0};
    uint64_t rows = 0, retired = 0;
    rvt_retire *recs = malloc(4096 * sizeof *recs);
    if (!recs || rvt_etrace_encoder_new(&e, &p, &o, write_packet, &ro)) {
        fprintf(stderr, "rvtrace encode: out of memory\n");
        goto done;
    }
    long n;
    while ((n = rvt_retire_reader_read(r, recs, 4096, &d)) > 0) {
        /* Rows of the instruction trace: every instruction and every trap
         * except an interrupt (marked on a row); retired ones are those that
         * completed, counting ecall/ebreak. */
        for (long i = 0; i < n; i++) {
            const rvt_retire *rec = &recs[i];
            bool interrupt = rec->itype == 2 && rec->ninsns == 0;
            bool env = rvt_cause_is_env_call(rec->cause);
            rows += rec->ninsns ? rec->ninsns : !interrupt;
            retired += rec->ninsns ? rec->ninsns : (!interrupt && env);
            if (interrupt && retired)
                retired--; /* the reference counts the interrupted row as not retired */
        }
        if (rvt_etrace_encoder_push(e, recs, (size_t)n))
            break;
    }
    uint64_t packets;
    int rc = rvt_etrace_encoder_finish(e, &packets);
    if (n < 0)
        fprintf(stderr, "rvtrace encode: %s\n", d.msg);
    else if (rc)
        fprintf(stderr, "rvtrace encode: %s: %s\n", output, rvt_strerror(rc));
    else
        status = 0;
    if (status == 0 && stats) {
        double bits = (double)rows;
        printf("Stat: %s: %llu bytes (%llu payload + %llu headers), %llu packets, %llu instr (%llu retired), "
               "%.3f bits/instr (payload), %.3f bits/instr (with headers)\n",
               stats, (unsigned long long)ro.bytes, (unsigned long long)(ro.bytes - ro.packets),
               (unsigned long long)ro.packets, (unsigned long long)ro.packets, (unsigned long long)rows,
               (unsigned long long)retired, rows ? (double)(ro.bytes - ro.packets) * 8 / bits : 0.0,
               rows ? (double)ro.bytes * 8 / bits : 0.0);
    }
done:
    free(recs);
    rvt_retire_reader_close(r);
    if (fclose(out) != 0)
        status = 1;
    return status;
}
