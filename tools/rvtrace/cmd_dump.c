/* rvtrace dump: one line per packet of a trace, with its byte offset. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_window.h"
#include "commands.h"
#include "rvtrace/etrace.h"
#include "rvtrace/ntrace.h"

static void dump_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace dump --format etrace [--scf HW.scf] [--ucf ENC.ucf] [--csv] TRACE\n"
            "       rvtrace dump --format ntrace|sifive [--src-bits N] TRACE.nex\n"
            "       rvtrace dump --format tandem [--xlen N --flen N --mlen N] TRACE.tv\n"
            "\n"
            "Tandem: one line per record: byte offset, opcode name and fields, registers\n"
            "by the Debug spec's names (x5/t0, f7/ft7, mstatus); records of a group are\n"
            "indented. A damaged stream ends with its byte offset and the problem.\n"
            "\n"
            "N-Trace: one line per byte of the MSEO stream, 0xBB MDO_MSEO in binary, and\n"
            "every field on the line of the byte where it ends (NexRv's -dump layout);\n"
            "messages are separated by blank lines. Damaged messages are reported with\n"
            "their byte offset and the dump resumes at the next message end.\n"
            "\n"
            "Print the te_inst packets of a raw E-Trace stream (the reference flow's\n"
            ".te_inst_raw: [header][payload] per packet), one line per packet: its byte\n"
            "offset and every field, in the columns of the reference te_inst CSV ('_' for\n"
            "fields the packet does not have). TRACE may be zstd-compressed, a pipe or a\n"
            "FIFO; it is read through a window of 1 MiB (E-Trace) or 2 MiB (Nexus), so a\n"
            "capture of any size is dumped in bounded memory.\n"
            "\n"
            "Options:\n"
            "  --scf FILE   static hardware configuration (discovery parameters)\n"
            "  --ucf FILE   user configuration (run-time options)\n"
            "  --csv        exactly the reference te_inst CSV (no offset column)\n"
            "  --v1         E-Trace 1.0 packet layout (default: the ratified 2.0 layout)\n"
            "  --src-bits N N-Trace: width of the SRC field (default 0: one hart, no SRC)\n"
            "  --encap...   E-Trace in the spec's example encapsulation (see encode --help)\n"
            "%s"
            "  -h, --help   show this help\n"
            "\n"
            "Example: rvtrace dump --format etrace --scf hw64.scf --ucf encoder.ucf --csv dhrystone.te_inst_raw\n",
            tandem_param_help);
    fprintf(out, "\n%s", exit_status_help);
}

/* E-Trace captures are read through a window of this size (packets are at
 * most a few dozen bytes). */
#define ETRACE_WINDOW ((size_t)1 << 20)

static void print_byte(uint8_t b) {
    char bits[10];
    for (int i = 0; i < 6; i++)
        bits[i] = (char)('0' + ((b >> (7 - i)) & 1));
    bits[6] = '_';
    bits[7] = (char)('0' + ((b >> 1) & 1));
    bits[8] = (char)('0' + (b & 1));
    bits[9] = 0;
    printf("0x%02X %s:", b, bits);
}

/* The window a Nexus capture is read through; a message longer than this is
 * read as far as it goes (and reported damaged). */
#define NEXUS_WINDOW ((size_t)2 << 20)

/* Prints the bytes data[from..to) of the window, idle or not. */
static void print_bytes(const uint8_t *data, size_t from, size_t to, bool idle) {
    for (size_t i = from; i < to; i++) {
        print_byte(data[i]);
        printf("%s\n", idle ? " IDLE" : "");
    }
}

/* Streams through the capture: memory stays at the window's size. */
static int dump_nexus(const char *trace, unsigned src_bits, unsigned dialect) {
    rvt_diag d = {{0}};
    rvt_nexus_config cfg = {.src_bits = src_bits, .dialect = dialect};
    nexus_window nw;
    if (nexus_window_open(&nw, trace, &cfg, NEXUS_WINDOW, &d)) {
        fprintf(stderr, "rvtrace dump: %s\n", d.msg);
        nexus_window_close(&nw);
        return 1;
    }
    rvt_nexus_msg m;
    unsigned long long count = 0, damaged = 0;
    bool group_open = false; /* the blank line before the next message's group is out already */
    char damage[sizeof d.msg]; /* what is wrong with a damaged message whose bytes are still being listed */
    int status = 0, rc;
    size_t from;
    while ((rc = nexus_window_next(&nw, &m, &from, &d)) != NEXUS_WINDOW_END) {
        const uint8_t *data = nw.w.data;
        if (rc == NEXUS_WINDOW_DAMAGED && nw.read_failed) {
            fprintf(stderr, "rvtrace dump: %s\n", d.msg);
            status = 1;
            break;
        }
        if (rc == NEXUS_WINDOW_MORE_DAMAGE) {
            print_bytes(data, from, nw.r.pos, false);
        } else {
            if ((count || damaged) && !group_open)
                putchar('\n'); /* blank line between messages */
            group_open = rc == NEXUS_WINDOW_IDLE;
            size_t first = rc == NEXUS_WINDOW_MESSAGE ? (size_t)(m.offset - nw.w.base) : nw.r.pos;
            print_bytes(data, from, first, rc != NEXUS_WINDOW_DAMAGED); /* idle bytes or a damaged message */
            if (rc == NEXUS_WINDOW_DAMAGED) {
                snprintf(damage, sizeof damage, "%s", d.msg);
                damaged++;
            }
        }
        if (rc == NEXUS_WINDOW_DAMAGED || rc == NEXUS_WINDOW_MORE_DAMAGE) {
            if (!nw.in_damage) { /* its last byte is listed */
                printf("ERROR: %s\n", damage);
                fprintf(stderr, "rvtrace dump: %s: %s\n", trace, damage);
            }
            continue;
        }
        if (rc == NEXUS_WINDOW_IDLE)
            continue;
        for (size_t i = 0; i < m.length; i++) {
            print_byte(data[m.offset - nw.w.base + i]);
            for (unsigned f = 0; f < m.nfields; f++) {
                const rvt_nexus_field *fl = &m.fields[f];
                if (fl->end_byte != i)
                    continue;
                const char *name = rvt_nexus_dialect_tcode_name(dialect, m.tcode);
                if (fl->id == RVT_NXF_TCODE)
                    printf(" TCODE[6]=%u (MSG #%llu) - %s", m.tcode, count,
                           name ? name : m.tcode >= 56 && m.tcode <= 62 ? "vendor-defined (fields unknown)"
                                                                         : "reserved (fields unknown)");
                else
                    printf(" %s[%u]=0x%llX", rvt_nexus_field_name((rvt_nexus_field_id)fl->id), fl->width,
                           (unsigned long long)fl->value);
            }
            putchar('\n');
        }
        count++;
    }
    uint64_t skipped = nw.r.skipped;
    nexus_window_close(&nw);
    if (fflush(stdout))
        return 1;
    if (damaged)
        fprintf(stderr, "rvtrace dump: %s: %llu damaged message(s), %llu bytes skipped\n", trace, damaged,
                (unsigned long long)skipped);
    return status || damaged ? 1 : 0;
}

static int dump_tandem(const char *trace, rvt_tv_params *p) {
    rvt_diag d = {{0}};
    finish_tandem_params(p, 64);
    rvt_tv_reader *rd = NULL;
    rvt_zreader *zr = NULL;
    uint8_t *buf = malloc(1 << 16);
    int status = 1, rc = 0;
    if (!buf || rvt_tv_reader_new(&rd, p, &d) || rvt_zreader_open(&zr, trace, &d)) {
        fprintf(stderr, "rvtrace dump: %s\n", d.msg[0] ? d.msg : "out of memory");
        goto out;
    }
    bool in_group = false;
    for (;;) {
        long n = rvt_zreader_read(zr, buf, 1 << 16, &d);
        if (n < 0)
            break;
        if (n == 0) {
            rc = rvt_tv_reader_finish(rd, &d);
            break;
        }
        rvt_tv_reader_feed(rd, buf, (size_t)n);
        rvt_tv_record r;
        while ((rc = rvt_tv_reader_next(rd, &r, &d)) == 1) {
            char text[160];
            rvt_tv_format_record(p, &r, text, sizeof text);
            if (r.opcode == RVT_TV_END)
                in_group = false;
            printf("%10llu  %s%s\n", (unsigned long long)r.offset, in_group ? "  " : "", text);
            if (r.opcode == RVT_TV_BEGIN)
                in_group = true;
        }
        if (rc < 0)
            break;
    }
    if (d.msg[0]) {
        printf("ERROR: %s\n", d.msg);
        fprintf(stderr, "rvtrace dump: %s: %s\n", trace, d.msg);
    } else {
        status = 0;
    }
out:
    rvt_zreader_close(zr);
    rvt_tv_reader_free(rd);
    free(buf);
    return status;
}

int cmd_dump(int argc, char **argv) {
    transport_choice tc = {0};
    const char *scf = NULL, *ucf = NULL, *trace = NULL, *format = "etrace";
    bool csv = false, v1 = false;
    unsigned long src_bits = 0;
    rvt_tv_params tvp = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            dump_usage(stdout);
            return 0;
        } else if (parse_transport_option(argc, argv, &i, &tc)) {
            continue;
        } else if (parse_tandem_param_option(argc, argv, &i, &tvp)) {
            continue;
        } else if (!strcmp(a, "--scf") && i + 1 < argc) {
            scf = argv[++i];
        } else if (!strcmp(a, "--ucf") && i + 1 < argc) {
            ucf = argv[++i];
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strcmp(a, "--csv")) {
            csv = true;
        } else if (!strcmp(a, "--v1")) {
            v1 = true;
        } else if (!strcmp(a, "--src-bits") && i + 1 < argc) {
            src_bits = option_number(a, argv[++i], 16);
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace dump", a, i + 1 == argc, dump_usage);
        } else if (!trace) {
            trace = a;
        } else {
            return usage_error("rvtrace dump", dump_usage, "one trace at a time: got '%s' and '%s'", trace, a);
        }
    }
    if (!trace)
        return usage_error("rvtrace dump", dump_usage, "no trace given");
    if (!strcmp(format, "ntrace") || !strcmp(format, "sifive"))
        return dump_nexus(trace, (unsigned)src_bits, !strcmp(format, "sifive") ? RVT_NEXUS_SIFIVE : RVT_NEXUS_NTRACE);
    if (!strcmp(format, "tandem"))
        return dump_tandem(trace, &tvp);
    if (strcmp(format, "etrace") != 0) {
        fprintf(stderr, "rvtrace dump: unknown --format '%s' (etrace, ntrace, sifive or tandem)\n", format);
        return 2;
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag d = {{0}};
    if (load_etrace_config(scf, ucf, &tc, &p, &o, &d)) {
        fprintf(stderr, "rvtrace dump: %s\n", d.msg);
        return 1;
    }
    o.v1_layout = v1;
    capture_window w;
    if (capture_window_open(&w, trace, ETRACE_WINDOW, &d)) {
        fprintf(stderr, "rvtrace dump: %s\n", d.msg);
        return 1;
    }
    printf("%s%s\n", csv ? "" : "offset,", rvt_te_inst_csv_header());
    rvt_te_raw_cursor c = {.t = tc.enabled ? &tc.t : NULL};
    rvt_te_inst pkt;
    uint64_t off;
    int rc;
    char row[1024];
    while ((rc = capture_window_next_packet(&w, &c, &p, &o, &pkt, &off, &d)) == 1) {
        rvt_te_inst_csv_row(&p, &o, &pkt, row, sizeof row);
        if (csv)
            printf("%s\n", row);
        else
            printf("%" PRIu64 ",%s\n", off, row);
    }
    capture_window_close(&w);
    if (rc < 0) {
        fprintf(stderr, "rvtrace dump: %s: %s\n", trace, d.msg);
        return 1;
    }
    return fflush(stdout) ? 1 : 0;
}
