/* rvtrace convert: between retirement-stream formats. */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"

static void convert_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace convert [OPTIONS] INPUT OUTPUT\n"
            "\n"
            "Convert a retirement stream between formats. INPUT may be .rvti, the reference\n"
            "flow's CSV or a spike commit log (--log-commits, optionally with -l), plain or\n"
            "zstd-compressed; its format is detected. The OUTPUT format follows its name:\n"
            "*.rvti, *.csv (reference CSV), *.tv (tandem-verification trace, from a spike\n"
            "commit log only) or anything else for a retired-PC list.\n"
            "\n"
            "A spike log converted to .tv has one group per instruction and trap with the\n"
            "register writes, memory accesses, new pc and privilege spike logged. spike\n"
            "does not log how traps and FP instructions change mstatus, so verify such a\n"
            "trace with --tandem-fields -mstatus. Under translation (satp, or MPRV in M\n"
            "mode) spike logs effective addresses: they are given as such, and rvtrace\n"
            "verify compares them with the model's effective addresses.\n"
            "\n"
            "Options:\n"
            "  --xlen 32|64   XLEN of the program, to classify compressed jumps in text\n"
            "                 inputs (default: from --elf, else 64)\n"
            "  --elf FILE     the program, needed to expand a block .rvti into instructions\n"
            "  --blocks       write a multiple-retire .rvti (sequential instructions merged)\n"
            "  --hart N       the spike hart a .tv output follows (default 0)\n"
            "  --flen N, --mlen N  the .tv output's FLEN and MLEN (default 64; MLEN 34 for RV32)\n"
            "  -h, --help     show this help\n"
            "\n"
            "Example: rvtrace convert dhrystone.csv.zst dhrystone.rvti\n");
    fprintf(out, "\n%s", exit_status_help);
}

typedef struct {
    rvt_row_writer *rows;
    rvt_rvti_writer *rvti;
    bool merge;
    rvt_retire block; /* block being merged (block.ninsns = 0: none) */
} conv_out;

static int conv_put(conv_out *o, const rvt_retire *r) {
    if (o->rows)
        return rvt_row_writer_sink(o->rows, r, 1);
    if (!o->merge)
        return rvt_rvti_writer_sink(o->rvti, r, 1);
    rvt_retire *b = &o->block;
    if (rvt_retire_merge(b, r))
        return 0;
    int rc = b->ninsns ? rvt_rvti_writer_sink(o->rvti, b, 1) : 0;
    b->ninsns = 0;
    if (r->ninsns)
        *b = *r;
    else
        rc |= rvt_rvti_writer_sink(o->rvti, r, 1);
    return rc;
}

/* Splits a block record into single instructions, reading the code from the
 * machine the program was loaded into (RAM image plus spike's boot ROM). */
static int expand_block(conv_out *o, rvt_machine *m, unsigned xlen, const rvt_retire *r, rvt_diag *diag) {
    uint64_t pc = r->iaddr;
    for (uint32_t i = 0; i < r->ninsns; i++) {
        uint8_t b[4] = {0};
        rvt_insn decoded, *in = &decoded;
        if (!m || !rvt_machine_read_mem(m, pc, b, 2) ||
            (rvt_insn_length((uint16_t)(b[0] | b[1] << 8)) == 4 && !rvt_machine_read_mem(m, pc + 2, b + 2, 2)))
            return rvt_diag_set(diag, RVT_E_RANGE,
                                "block at %#llx: no program code at %#llx (give the program with --elf)",
                                (unsigned long long)r->iaddr, (unsigned long long)pc);
        rvt_decode((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24, xlen, in);
        rvt_retire one = *r;
        one.iaddr = pc;
        one.ninsns = 1;
        rvt_retire_take_insn(&one, in);
        one.itype = i + 1 == r->ninsns ? r->itype : RVT_ITYPE_NONE;
        int rc = conv_put(o, &one);
        if (rc)
            return rc;
        pc += in->len;
    }
    return 0;
}

/* A spike commit log to a tandem trace, written to a temporary file that
 * replaces OUTPUT only when the conversion succeeded. An OUTPUT that is not
 * a regular file (a device such as /dev/null, a pipe) is written straight:
 * renaming onto it would put a file where the device was. */
static int convert_to_tandem(const char *in_path, const char *out_path, unsigned xlen, rvt_tv_params *p,
                             unsigned hart) {
    rvt_diag diag = {{0}};
    p->xlen = xlen;
    finish_tandem_params(p, 64);
    FILE *out = output_open("rvtrace convert", out_path, true);
    if (!out)
        return 1;
    uint64_t groups = 0;
    int rc = rvt_tv_convert_spike_log(in_path, p, hart, file_byte_sink, out, &groups, &diag);
    if (!rc && !groups) /* (a trace of a reset alone: nothing in the input was a spike commit) */
        rc = rvt_diag_set(&diag, RVT_E_FORMAT, "%s: no instructions: not a spike commit log (spike -l "
                          "--log-commits)", in_path);
    if (rc)
        fprintf(stderr, "rvtrace convert: %s\n", diag.msg);
    if (output_close("rvtrace convert", out, rc == 0) || rc)
        return 1;
    fprintf(stderr, "rvtrace convert: %s: %llu groups\n", out_path, (unsigned long long)groups);
    return 0;
}

int cmd_convert(int argc, char **argv) {
    const char *in_path = NULL, *out_path = NULL, *elf = NULL;
    unsigned xlen = 0;
    bool blocks = false;
    rvt_tv_params tvp = {0};
    unsigned hart = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            convert_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--xlen") && i + 1 < argc) {
            xlen = (unsigned)option_number(a, argv[++i], 64);
            if (xlen != 32 && xlen != 64) {
                fprintf(stderr, "rvtrace convert: --xlen takes 32 or 64\n");
                return 2;
            }
        } else if (!strcmp(a, "--elf") && i + 1 < argc) {
            elf = argv[++i];
        } else if (!strcmp(a, "--blocks")) {
            blocks = true;
        } else if (!strcmp(a, "--hart") && i + 1 < argc) {
            hart = (unsigned)option_number(a, argv[++i], 255);
        } else if ((!strcmp(a, "--flen") || !strcmp(a, "--mlen")) && parse_tandem_param_option(argc, argv, &i, &tvp)) {
            continue;
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace convert", a, i + 1 == argc, convert_usage);
        } else if (!in_path) {
            in_path = a;
        } else if (!out_path) {
            out_path = a;
        } else {
            return usage_error("rvtrace convert", convert_usage, "one INPUT and one OUTPUT: '%s' is a third", a);
        }
    }
    if (!in_path || !out_path)
        return usage_error("rvtrace convert", convert_usage, in_path ? "no OUTPUT given" : "no INPUT and OUTPUT given");
    const char *inputs[] = {in_path, elf};
    if (!outputs_not_inputs("rvtrace convert", inputs, sizeof inputs / sizeof *inputs, &out_path, 1))
        return 2;
    rvt_diag diag = {{0}};
    size_t out_len = strlen(out_path);
    if (out_len > 3 && !strcmp(out_path + out_len - 3, ".tv"))
        return convert_to_tandem(in_path, out_path, xlen, &tvp, hart);
    rvt_image *img = NULL;
    rvt_machine *machine = NULL;
    int status = 1;
    rvt_retire_reader *rd = NULL;
    FILE *out = NULL;
    conv_out o = {0};
    rvt_retire *recs = malloc(4096 * sizeof *recs);
    if (!recs)
        return 1;
    if (elf) {
        if (rvt_image_new(&img) || rvt_image_load_elf(img, elf, 0, &diag)) {
            fprintf(stderr, "rvtrace convert: %s\n", diag.msg);
            goto done;
        }
        if (!xlen)
            xlen = rvt_image_xlen(img);
        rvt_machine_config cfg;
        rvt_machine_config_default(&cfg);
        if (rvt_machine_new(&machine, &cfg, img, &diag)) {
            fprintf(stderr, "rvtrace convert: %s: %s\n", elf, diag.msg);
            goto done;
        }
    }
    if (rvt_retire_reader_open(&rd, in_path, RVT_FMT_AUTO, xlen ? xlen : 64, &diag)) {
        fprintf(stderr, "rvtrace convert: %s\n", diag.msg);
        goto done;
    }
    size_t olen = strlen(out_path);
    bool to_rvti = olen > 5 && !strcmp(out_path + olen - 5, ".rvti");
    bool to_csv = olen > 4 && !strcmp(out_path + olen - 4, ".csv");
    if (!(out = output_open("rvtrace convert", out_path, true)))
        goto done;
    if (to_rvti) {
        o.merge = blocks;
        if (rvt_rvti_writer_new(&o.rvti, out, rvt_retire_reader_xlen(rd), blocks))
            goto done;
    } else if (rvt_row_writer_new(&o.rows, out, to_csv ? RVT_ROWS_SPIKE_CSV : RVT_ROWS_PCS)) {
        goto done;
    }
    for (;;) {
        long n = rvt_retire_reader_read(rd, recs, 4096, &diag);
        if (n < 0) {
            fprintf(stderr, "rvtrace convert: %s\n", diag.msg);
            goto done;
        }
        if (n == 0)
            break;
        for (long i = 0; i < n; i++) {
            int rc = (recs[i].ninsns > 1 && !to_rvti) ? expand_block(&o, machine, rvt_retire_reader_xlen(rd), &recs[i], &diag) : conv_put(&o, &recs[i]);
            if (rc) {
                fprintf(stderr, "rvtrace convert: %s\n", diag.msg[0] ? diag.msg : rvt_strerror(rc));
                goto done;
            }
        }
    }
    if (o.merge && o.block.ninsns && rvt_rvti_writer_sink(o.rvti, &o.block, 1))
        goto done;
    status = 0;
done:
    if (rvt_row_writer_finish(o.rows) || rvt_rvti_writer_finish(o.rvti))
        status = 1;
    if (output_close("rvtrace convert", out, status == 0))
        status = 1;
    rvt_retire_reader_close(rd);
    rvt_machine_free(machine);
    rvt_image_free(img);
    free(recs);
    return status;
}
