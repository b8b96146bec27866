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
            "Check a tandem-verification trace (docs/formats.md) against the hart model\n"
            "running PROGRAM on the machine the options describe (those of rvtrace run:\n"
            "give the options the trace's run had), group by group: each group is\n"
            "applied to a shadow state, the model executes one instruction, and every\n"
            "element either side changed is compared. What the traced system's devices\n"
            "did comes from the trace: the values of loads from devices (CLINT, PLIC,\n"
            "UART, ...), mtime, the interrupt-pending bits the devices drive and where\n"
            "an interrupt is taken; the model's devices only see the accesses. A\n"
            "divergence names the group and its byte offset, the instruction count, pc\n"
            "and disassembly, and each element with the trace's and the model's value;\n"
            "the model then continues from the trace's state.\n"
            "\n"
            "A trace is one hart's stream (the format carries no hart id): the machine\n"
            "has one hart, and -p takes 1 only.\n"
            "\n"
            "Exit status: 0 no divergence, 1 divergences or an unusable trace (the byte\n"
            "offset is named; a trace without one instruction or trap is unusable), 2 a\n"
            "usage error.\n"
            "\n"
            "Options:\n"
            "  --elf FILE, --program FILE  the program the trace's run ran (required): an\n"
            "                     ELF file, or a Linux Image as the payload of --sbi or\n"
            "                     --firmware, as rvtrace run takes it (--xlen: the\n"
            "                     trace's XLEN and the Image's)\n"
            "  --tandem-fields LIST  what the trace carries, as run --tandem-fields writes\n"
            "                     it: kinds (gpr, fpr, csr, pc, insn, priv, mem, addr, mtime),\n"
            "                     with -KIND or -REG (a single register: -mstatus, -t0) for\n"
            "                     what it leaves out (\"all,-mem,-mstatus\"); what it does not\n"
            "                     carry is left out of comparison and re-synchronisation.\n"
            "                     --partial mem,mstatus is the old spelling (until 0.5)\n"
            "  --max-errors N     stop after N divergences (default 20; 0: no limit)\n"
            "  -q, --quiet        print only the summary\n"
            "%s"
            "  -h, --help         show this help\n"
            "\n"
            "The machine, as for rvtrace run:\n"
            "%s"
            "\n"
            "Examples: rvtrace run --tandem dhry.tv dhrystone.riscv &&\n"
            "          rvtrace verify --elf dhrystone.riscv dhry.tv\n"
            "  A Linux boot's first 50 M instructions (docs/linux.md):\n"
            "          rvtrace run --firmware fw_jump.bin --initrd initramfs.cpio -m 512 \\\n"
            "            --bootargs \"console=ttyS0 rdinit=/init\" --console-input none \\\n"
            "            --max-insns 50000000 --tandem boot.tv Image\n"
            "          rvtrace verify --firmware fw_jump.bin --initrd initramfs.cpio -m 512 \\\n"
            "            --bootargs \"console=ttyS0 rdinit=/init\" --program Image boot.tv\n",
            tandem_param_help, machine_option_help);
}

/* What the trace carries, as `run --tandem-fields` writes it: kinds of
 * records ("all,-mem"), and here also single registers left out ("-mstatus").
 * `--partial LIST`, the old spelling, names only what is left out. */
static int parse_trace_fields(const char *option, const char *list, bool left_out, rvt_tv_verify_options *o) {
    char *copy = strdup(list);
    if (!copy)
        return -1;
    unsigned carried = left_out ? RVT_TV_F_ALL : 0;
    int rc = 0;
    bool first = true;
    for (char *tok = strtok(copy, ","); tok && !rc; tok = strtok(NULL, ","), first = false) {
        bool remove = left_out || tok[0] == '-';
        const char *name = tok + (tok[0] == '-');
        if (first && remove)
            carried = RVT_TV_F_ALL; /* "-mem": everything but memory, as run takes it */
        unsigned kinds;
        rvt_diag d;
        int reg;
        if (rvt_tv_parse_fields(name, &kinds, &d) == 0) {
            carried = remove ? carried & ~kinds : carried | kinds;
        } else if (remove && (reg = rvt_tv_reg_lookup(name)) >= 0 &&
                   o->nabsent_regs < sizeof o->absent_regs / sizeof o->absent_regs[0]) {
            o->absent_regs[o->nabsent_regs++] = (uint16_t)reg;
        } else {
            fprintf(stderr, "rvtrace verify: %s: '%s' is neither a kind of record (%s) nor a register left out "
                            "(-REG)\n", option, tok, rvt_tv_field_names);
            rc = -1;
        }
    }
    o->absent = RVT_TV_F_ALL & ~carried;
    free(copy);
    return rc;
}

/* The trace file (zstd or not) as the verifier's reading thread asks for it. */
static long read_trace(void *zr, uint8_t *buf, size_t size, rvt_diag *diag) {
    return rvt_zreader_read(zr, buf, size, diag);
}

int cmd_verify(int argc, char **argv) {
    const char *program = NULL, *trace = NULL;
    rvt_tv_params p = {0};
    rvt_tv_verify_options opt = {.max_errors = 20, .report = stdout};
    machine_options mo;
    machine_options_init(&mo);
    rvt_diag diag = {{0}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int taken;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            verify_usage(stdout);
            return 0;
        } else if ((!strcmp(a, "--elf") || !strcmp(a, "--program")) && val) {
            program = val, i++;
        } else if ((!strcmp(a, "--tandem-fields") || !strcmp(a, "--partial")) && val) {
            bool old = a[2] == 'p';
            if (old)
                deprecated_spelling("rvtrace verify", "--partial LIST", "--tandem-fields all,-KIND,-REG...");
            if (parse_trace_fields(a, val, old, &opt))
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
        } else if ((taken = parse_machine_option("rvtrace verify", argc, argv, &i, &mo)) != 0) {
            if (taken < 0)
                return 2;
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace verify", a, i + 1 == argc, verify_usage);
        } else if (!trace) {
            trace = a;
        } else {
            return usage_error("rvtrace verify", verify_usage, "one trace at a time: got '%s' and '%s'", trace, a);
        }
    }
    if (!program || !trace)
        return usage_error("rvtrace verify", verify_usage, !program ? "no program given (--elf PROGRAM)" : "no trace given");
    if (p.xlen) /* one --xlen here: a Linux Image's XLEN is its trace's */
        mo.payload_xlen = p.xlen;
    if (mo.cfg.nharts != 1) {
        fprintf(stderr, "rvtrace verify: -p %u: a tandem trace is one hart's stream (the format carries no hart "
                        "id), so the machine has one hart; verify takes -p 1 only\n", mo.cfg.nharts);
        return 2;
    }
    if (machine_options_finish("rvtrace verify", &mo))
        return 2;
    int status = 1;
    rvt_image *img = NULL;
    rvt_machine *m = NULL;
    rvt_tv_verifier *v = NULL;
    rvt_zreader *zr = NULL;
    /* What the program sends to the console is not the verifier's to show. */
    FILE *console = fopen("/dev/null", "w");
    if (!console) {
        fprintf(stderr, "rvtrace verify: /dev/null: %s\n", strerror(errno));
        return 1;
    }
    mo.cfg.console = console;
    if (machine_options_load("rvtrace verify", &mo, program, &img) ||
        machine_options_build("rvtrace verify", &mo, program, img, &m))
        goto out;
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
    machine_options_free(&mo);
    fclose(console);
    return status;
}
