/* rvtrace stats: packet, byte and bits-per-instruction figures of a trace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_window.h"
#include "commands.h"
#include "rvtrace/etrace.h"
#include "rvtrace/ingress.h"
#include "rvtrace/ntrace.h"

static void stats_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace stats --format etrace [--scf HW.scf] [--ucf ENC.ucf] [--v1] [--encap...]\n"
            "                     [--input RETIRE] TRACE\n"
            "       rvtrace stats --format ntrace|sifive [--src-bits N] [--input PCSEQ|RETIRE] TRACE.nex\n"
            "\n"
            "Count the packets of a raw E-Trace stream by format and its bytes (payload and\n"
            "headers). With --input, the retirement stream the trace was made from (any\n"
            "format rvtrace encode reads), also the instructions and bits per instruction.\n"
            "--v1: the E-Trace 1.0 packet layout; --encap...: a stream in the spec's example\n"
            "encapsulation or rv_tracer's records (see encode --help), counted whole.\n"
            "\n"
            "For N-Trace it prints NexRv's Stat line: bytes, messages, Error messages,\n"
            "bytes per message and, with --input (the pcseq file or retirement stream the\n"
            "trace was made from), instructions and bits per instruction.\n"
            "\n"
            "The trace is read through a 2 MiB window and the --input stream as it comes,\n"
            "so captures of any size are counted in bounded memory.\n"
            "\n"
            "Example: rvtrace stats --format etrace --input dhrystone.csv.zst dhrystone.te\n"
            "         rvtrace stats --format ntrace --input dhrystone.pcseq.zst dhrystone.nex\n");
    fprintf(out, "\n%s", exit_status_help);
}

/* Instructions in a pcseq file or a retirement stream. */
static int count_instructions(const char *input, uint64_t *insns, rvt_diag *d) {
    bool pcseq;
    rvt_zreader *z; /* opened once: a pipe or FIFO can be read only once */
    int rc = rvt_zreader_open(&z, input, d);
    if (rc)
        return rc;
    if ((rc = rvt_pcseq_zreader_sniff(z, &pcseq, d))) {
        rvt_zreader_close(z);
        return rc;
    }
    *insns = 0;
    long n;
    if (pcseq) {
        rvt_pcseq_reader *r;
        if ((rc = rvt_pcseq_reader_open_z(&r, z, d)))
            return rc;
        rvt_nexus_step steps[4096];
        while ((n = rvt_pcseq_read(r, steps, 4096, d)) > 0)
            *insns += (uint64_t)n;
        rvt_pcseq_reader_close(r);
        return n < 0 ? (int)n : 0;
    }
    rvt_retire_reader *r;
    if ((rc = rvt_retire_reader_open_z(&r, z, RVT_FMT_AUTO, 64, d)))
        return rc;
    rvt_retire recs[4096];
    while ((n = rvt_retire_reader_read(r, recs, 4096, d)) > 0)
        for (long i = 0; i < n; i++)
            *insns += recs[i].ninsns;
    rvt_retire_reader_close(r);
    return n < 0 ? (int)n : 0;
}

/* Captures are counted through a window of this size: memory stays there
 * however big the capture (a message longer than it is read as damaged). */
#define STATS_WINDOW ((size_t)2 << 20)

static int stats_ntrace(const char *trace, const char *input, unsigned src_bits, unsigned dialect) {
    rvt_diag d = {{0}};
    rvt_nexus_config cfg = {.src_bits = src_bits, .dialect = dialect};
    nexus_window nw;
    if (nexus_window_open(&nw, trace, &cfg, STATS_WINDOW, &d)) {
        fprintf(stderr, "rvtrace stats: %s\n", d.msg);
        nexus_window_close(&nw);
        return 1;
    }
    rvt_nexus_msg m;
    uint64_t messages = 0, errors = 0, damaged = 0;
    size_t from;
    int rc;
    while ((rc = nexus_window_next(&nw, &m, &from, &d)) != NEXUS_WINDOW_END) {
        if (rc == NEXUS_WINDOW_DAMAGED && nw.read_failed) {
            fprintf(stderr, "rvtrace stats: %s\n", d.msg);
            nexus_window_close(&nw);
            return 1;
        }
        if (rc == NEXUS_WINDOW_DAMAGED) {
            fprintf(stderr, "rvtrace stats: %s: %s\n", trace, d.msg);
            damaged++;
        } else if (rc == NEXUS_WINDOW_MESSAGE) {
            messages++;
            errors += m.tcode == RVT_NX_ERROR;
        }
    }
    uint64_t size = nw.w.total;
    nexus_window_close(&nw);
    uint64_t insns = 0;
    if (input && count_instructions(input, &insns, &d)) {
        fprintf(stderr, "rvtrace stats: %s\n", d.msg);
        return 1;
    }
    print_nexus_stat(size, messages, errors, insns);
    return damaged ? 1 : 0;
}

int cmd_stats(int argc, char **argv) {
    const char *scf = NULL, *ucf = NULL, *input = NULL, *trace = NULL, *format = "etrace";
    unsigned src_bits = 0;
    transport_choice tc = {0};
    bool v1 = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            stats_usage(stdout);
            return 0;
        } else if (parse_transport_option(argc, argv, &i, &tc)) {
            continue;
        } else if (!strcmp(a, "--v1")) {
            v1 = true;
        } else if (!strcmp(a, "--scf") && i + 1 < argc) {
            scf = argv[++i];
        } else if (!strcmp(a, "--ucf") && i + 1 < argc) {
            ucf = argv[++i];
        } else if (!strcmp(a, "--input") && i + 1 < argc) {
            input = argv[++i];
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strcmp(a, "--src-bits") && i + 1 < argc) {
            src_bits = (unsigned)option_number(a, argv[++i], 16);
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace stats", a, i + 1 == argc, stats_usage);
        } else if (!trace) {
            trace = a;
        } else {
            return usage_error("rvtrace stats", stats_usage, "one trace at a time: got '%s' and '%s'", trace, a);
        }
    }
    if (!trace)
        return usage_error("rvtrace stats", stats_usage, "no trace given");
    if (!strcmp(format, "ntrace") || !strcmp(format, "sifive"))
        return stats_ntrace(trace, input, src_bits, !strcmp(format, "sifive") ? RVT_NEXUS_SIFIVE : RVT_NEXUS_NTRACE);
    if (strcmp(format, "etrace") != 0)
        return usage_error("rvtrace stats", stats_usage, "unknown --format %s (etrace, ntrace or sifive)", format);
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag d = {{0}};
    capture_window w = {0};
    if (load_etrace_config(scf, ucf, &tc, &p, &o, &d) || capture_window_open(&w, trace, STATS_WINDOW, &d)) {
        fprintf(stderr, "rvtrace stats: %s\n", d.msg);
        return 1;
    }
    o.v1_layout = v1;
    unsigned long long by_format[4][4] = {{0}}, packets = 0;
    rvt_te_raw_cursor c = {.t = tc.enabled ? &tc.t : NULL};
    rvt_te_inst pkt;
    uint64_t off;
    int rc;
    while ((rc = capture_window_next_packet(&w, &c, &p, &o, &pkt, &off, &d)) == 1) {
        by_format[pkt.format & 3][pkt.format == 3 ? pkt.subformat & 3 : 0]++;
        packets++;
    }
    unsigned long long size = w.total;
    capture_window_close(&w);
    if (rc < 0) {
        fprintf(stderr, "rvtrace stats: %s: %s\n", trace, d.msg);
        return 1;
    }
    if (tc.enabled) /* (an encapsulation's headers are its own: only the whole is counted) */
        printf("%s: %llu bytes (encapsulated), %llu packets\n", trace, size, packets);
    else
        printf("%s: %llu bytes (%llu payload + %llu headers), %llu packets\n", trace, size, size - packets, packets,
               packets);
    printf("  format 0: %llu, format 1: %llu, format 2: %llu, format 3: %llu sync, %llu trap, %llu context, "
           "%llu support\n",
           by_format[0][0], by_format[1][0], by_format[2][0], by_format[3][0], by_format[3][1], by_format[3][2],
           by_format[3][3]);
    if (input) {
        rvt_retire_reader *r;
        if (rvt_retire_reader_open(&r, input, RVT_FMT_AUTO, 64, &d)) {
            fprintf(stderr, "rvtrace stats: %s\n", d.msg);
            return 1;
        }
        rvt_retire recs[4096];
        long n;
        unsigned long long insns = 0;
        while ((n = rvt_retire_reader_read(r, recs, 4096, &d)) > 0)
            for (long i = 0; i < n; i++)
                insns += recs[i].ninsns;
        rvt_retire_reader_close(r);
        if (n < 0) {
            fprintf(stderr, "rvtrace stats: %s\n", d.msg);
            return 1;
        }
        if (tc.enabled)
            printf("  %llu instructions retired: %.3f bits/instr (with the encapsulation)\n", insns,
                   insns ? (double)size * 8 / (double)insns : 0.0);
        else
            printf("  %llu instructions retired: %.3f bits/instr (payload), %.3f bits/instr (with headers)\n", insns,
                   insns ? (double)(size - packets) * 8 / (double)insns : 0.0,
                   insns ? (double)size * 8 / (double)insns : 0.0);
    }
    return 0;
}
