/* rvtrace verify: a tandem-verification trace against the hart model. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rvtrace/tandem.h"

static void verify_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace verify --elf PROGRAM [OPTIONS] TRACE.tv\n"
            "\n"
            "Check a device's tandem-verification trace (docs/formats.md) against the hart\n"
            "model running PROGRAM, group by group: each group is applied to a shadow\n"
            "state, the model executes one instruction (taking an interrupt where the trace\n"
            "takes one, with mtime and the device-driven mip bits copied from the trace),\n"
            "and every element either side changed is compared. A divergence names the\n"
            "group and its byte offset, the instruction count, pc and disassembly, and each\n"
            "element with the trace's and the model's value; the model then continues\n"
            "from the trace's state.\n"
            "\n"
            "Exit status: 0 no divergence, 1 divergences or an unusable trace (the byte\n"
            "offset is named; a trace without one instruction or trap is unusable), 2 a\n"
            "usage error.\n"
            "\n"
            "Options:\n"
            "  --elf FILE         the program the device ran (required)\n"
            "  --partial LIST     elements the trace does not carry, left out of comparison\n"
            "                     and re-synchronisation: kinds (gpr, fpr, csr, pc, insn,\n"
            "                     priv, mem, addr, mtime) or single registers (mstatus, t0)\n"
            "  --max-errors N     stop after N divergences (default 20; 0: no limit)\n"
            "  -q, --quiet        print only the summary\n"
            "%s"
            "  -m SPEC, --pmpregions N   the machine, as for rvtrace run\n"
            "  -h, --help         show this help\n"
            "\n"
            "Example: rvtrace run --tandem dhry.tv dhrystone.riscv &&\n"
            "         rvtrace verify --elf dhrystone.riscv dhry.tv\n",
            tandem_param_help);
}

/* --partial: kinds of records and single registers. */
static int parse_partial(const char *list, rvt_tv_verify_options *o) {
    char *copy = strdup(list);
    if (!copy)
        return -1;
    int rc = 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        unsigned kinds;
        rvt_diag d;
        if (rvt_tv_parse_fields(tok, &kinds, &d) == 0) {
            o->absent |= kinds;
            continue;
        }
        int reg = rvt_tv_reg_lookup(tok);
        if (reg < 0 || o->nabsent_regs == sizeof o->absent_regs / sizeof o->absent_regs[0]) {
            fprintf(stderr, "rvtrace verify: --partial: '%s' is neither a kind of record (%s) nor a register\n", tok,
                    rvt_tv_field_names);
            rc = -1;
            break;
        }
        o->absent_regs[o->nabsent_regs++] = (uint16_t)reg;
    }
    free(copy);
    return rc;
}

/* The trace file (zstd or not) as the verifier's reading thread asks for it. */
static long read_trace(void *zr, uint8_t *buf, size_t size, rvt_diag *diag) {
    return rvt_zreader_read(zr, buf, size, diag);
}

int cmd_verify(int argc, char **argv) {
    const char *elf = NULL, *trace = NULL;
    rvt_tv_params p = {0};
    rvt_tv_verify_options opt = {.max_errors = 20, .report = stdout};
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    rvt_diag diag = {{0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            verify_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--elf") && val) {
            elf = val, i++;
        } else if (!strcmp(a, "--partial") && val) {
            if (parse_partial(val, &opt))
                return 2;
            i++;
        } else if (!strcmp(a, "--max-errors") && val) {
            char *end;
            opt.max_errors = (unsigned)strtoul(val, &end, 10);
            if (*end || !*val) {
                fprintf(stderr, "rvtrace verify: --max-errors needs a number\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            opt.report = NULL;
        } else if (parse_tandem_param_option(argc, argv, &i, &p)) {
            continue;
        } else if (!strcmp(a, "-m") && val) {
            if (rvt_parse_mem_regions(val, &cfg, &diag)) {
                fprintf(stderr, "rvtrace verify: %s\n", diag.msg);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--pmpregions") && val) {
            cfg.pmp_regions = (unsigned)strtoul(val, NULL, 0), i++;
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace verify", a, i + 1 == argc, verify_usage);
        } else if (!trace) {
            trace = a;
        } else {
            verify_usage(stderr);
            return 2;
        }
    }
    if (!elf || !trace) {
        verify_usage(stderr);
        return 2;
    }
    int status = 1;
    rvt_image *img = NULL;
    rvt_machine *m = NULL;
    rvt_tv_verifier *v = NULL;
    rvt_zreader *zr = NULL;
    if (rvt_image_new(&img) || rvt_image_load_elf(img, elf, 0, &diag) || rvt_machine_new(&m, &cfg, img, &diag)) {
        fprintf(stderr, "rvtrace verify: %s: %s\n", elf, diag.msg);
        goto out;
    }
    finish_tandem_params(&p, rvt_image_xlen(img));
    if (rvt_tv_verifier_new(&v, &p, &opt, m, img, &diag) || rvt_zreader_open(&zr, trace, &diag)) {
        fprintf(stderr, "rvtrace verify: %s\n", diag.msg);
        goto out;
    }
    if (rvt_tv_verifier_read_all(v, read_trace, zr, &diag)) {
        const rvt_tv_verify_result *r = rvt_tv_verifier_result(v);
        size_t tl = strlen(trace);
        bool named = !strncmp(diag.msg, trace, tl) && diag.msg[tl] == ':'; /* reading errors name the file */
        fprintf(stderr, "rvtrace verify: %s%s%s (after %" PRIu64 " groups, %" PRIu64 " divergences)\n",
                named ? "" : trace, named ? "" : ": ", diag.msg, r->groups, r->divergences);
        goto out;
    }
    const rvt_tv_verify_result *r = rvt_tv_verifier_result(v);
    if (r->steps == 0) { /* (an empty file, or a reset alone: "no divergence" would claim a check made) */
        fprintf(stderr, "rvtrace verify: %s: no instruction or trap to verify (%" PRIu64 " groups)\n", trace,
                r->groups);
        goto out;
    }
    if (r->divergences) {
        printf("%s: %" PRIu64 " divergence%s in %" PRIu64 " instructions and traps (%" PRIu64
               " groups)%s; the first at group %" PRIu64 " (byte %" PRIu64 "), instruction %" PRIu64 ", pc %#" PRIx64
               "\n",
               trace, r->divergences, r->divergences == 1 ? "" : "s", r->steps, r->groups,
               r->stopped ? ", stopped at --max-errors" : "", r->first_group, r->first_offset, r->first_step,
               r->first_pc);
        status = 1;
    } else {
        printf("%s: no divergence in %" PRIu64 " instructions and traps (%" PRIu64 " groups)\n", trace, r->steps,
               r->groups);
        status = 0;
    }
out:
    rvt_zreader_close(zr);
    rvt_tv_verifier_free(v);
    rvt_machine_free(m);
    rvt_image_free(img);
    return status;
}
