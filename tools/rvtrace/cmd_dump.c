/* rvtrace dump: one line per packet of a trace, with its byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rvtrace/etrace.h"

static void dump_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace dump --format etrace [--scf HW.scf] [--ucf ENC.ucf] [--csv] TRACE\n"
            "\n"
            "Print the te_inst packets of a raw E-Trace stream (the reference flow's\n"
            ".te_inst_raw: [header][payload] per packet), one line per packet: its byte\n"
            "offset and every field, in the columns of the reference te_inst CSV ('_' for\n"
            "fields the packet does not have). TRACE may be zstd-compressed.\n"
            "\n"
            "Options:\n"
            "  --scf FILE   static hardware configuration (discovery parameters)\n"
            "  --ucf FILE   user configuration (run-time options)\n"
            "  --csv        exactly the reference te_inst CSV (no offset column)\n"
            "  --v1         E-Trace 1.0 packet layout (default: the ratified 2.0 layout)\n"
            "  -h, --help   show this help\n"
            "\n"
            "Example: rvtrace dump --format etrace --scf hw64.scf --ucf encoder.ucf --csv dhrystone.te_inst_raw\n");
}

int cmd_dump(int argc, char **argv) {
    const char *scf = NULL, *ucf = NULL, *trace = NULL, *format = "etrace";
    bool csv = false, v1 = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            dump_usage(stdout);
            return 0;
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
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "rvtrace dump: unknown option '%s'\n", a);
            return 2;
        } else if (!trace) {
            trace = a;
        } else {
            dump_usage(stderr);
            return 2;
        }
    }
    if (!trace) {
        dump_usage(stderr);
        return 2;
    }
    if (strcmp(format, "etrace") != 0) {
        fprintf(stderr, "rvtrace dump: --format %s is not supported yet (etrace only)\n", format);
        return 2;
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag d = {{0}};
    if (rvt_etrace_load_config(scf, ucf, &p, &o, &d)) {
        fprintf(stderr, "rvtrace dump: %s\n", d.msg);
        return 1;
    }
    o.v1_layout = v1;
    char *data;
    size_t size;
    if (rvt_read_file(trace, &data, &size, &d)) {
        fprintf(stderr, "rvtrace dump: %s\n", d.msg);
        return 1;
    }
    printf("%s%s\n", csv ? "" : "offset,", rvt_te_inst_csv_header());
    rvt_te_raw_cursor c = {(const uint8_t *)data, size, 0, 0};
    rvt_te_inst pkt;
    size_t off;
    int rc;
    char row[1024];
    while ((rc = rvt_te_raw_next(&c, &p, &o, &pkt, &off, &d)) == 1) {
        rvt_te_inst_csv_row(&p, &o, &pkt, row, sizeof row);
        if (csv)
            printf("%s\n", row);
        else
            printf("%zu,%s\n", off, row);
    }
    free(data);
    if (rc < 0) {
        fprintf(stderr, "rvtrace dump: %s: %s\n", trace, d.msg);
        return 1;
    }
    return fflush(stdout) ? 1 : 0;
}
