/* rvtrace encode: a retirement stream in, trace packets out. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include "rvtrace/ntrace.h"

static void encode_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace encode --format etrace [--scf HW.scf] [--ucf ENC.ucf] INPUT -o OUT\n"
            "       rvtrace encode --format ntrace [--btm] [--call-stack N] [--repeat-history N] INPUT -o OUT.nex\n"
            "\n"
            "Encode a retirement stream with the E-Trace branch-trace algorithm and write\n"
            "the raw te_inst stream ([header][payload] per packet, as the reference flow).\n"
            "INPUT: the reference flow's encoder-input CSV, the corpus spike CSV, a spike\n"
            "commit log or .rvti (single-retire), plain or zstd-compressed.\n"
            "\n"
            "Options:\n"
            "  --scf FILE     static hardware configuration (discovery parameters; at most 1 MiB)\n"
            "  --ucf FILE     user configuration (run-time options)\n"
            "  --full-address, --resync-max N   override the .ucf settings\n"
            "  --v1           E-Trace 1.0 packet layout (default: the ratified 2.0 layout)\n"
            "  --filter-range LO:HI   trace only instructions in [LO, HI) (up to 4 ranges)\n"
            "  --filter-priv MASK     trace only privileges with their bit set (1 U, 2 S, 8 M)\n"
            "  --trigger-start ADDR, --trigger-stop ADDR   trace from the instruction at\n"
            "                 ADDR / up to and including the one at ADDR\n"
            "  --notify ADDR  report the instruction at ADDR with the notify bit (up to 4)\n"
            "  --triggers     honour the input's trigger column (trigger[2:0]: 1 trace-on,\n"
            "                 2 trace-off, 4 notify); tracing starts off\n"
            "  --filter-exception N, --filter-interrupt N   trace only the handlers of\n"
            "                 exception / interrupt cause N (repeatable), from the\n"
            "                 handler's first instruction to the next xRET\n"
            "  Halted and reset: an encoder-input CSV may have `halted` and `reset`\n"
            "  columns; such rows end the trace, which restarts with a sync.\n"
            "%s"
            "  --xlen 32|64   XLEN for classifying text inputs (default 64)\n"
            "  -o FILE        output file (required)\n"
            "  --stats        print the reference flow's Stat line for this run\n"
            "  --stats-label NAME   the Stat line's label (default: INPUT's name up to its\n"
            "                 first dot); `--stats NAME` is the old spelling (until 0.5)\n"
            "  -h, --help     show this help\n"
            "\n"
            "N-Trace (writes Nexus messages as raw MSEO bytes, the messages NexRv makes):\n"
            "INPUT: NexRv's pcseq file (its calls and returns are NexRv's: with implicit\n"
            "return it needs --nexrv), or any retirement stream above (traps become\n"
            "IndirectBranch(Hist) messages with B-TYPE 2/3 and the handler address).\n"
            "  --elf PROGRAM        with the E-Trace encoder-input CSV: the instruction bits\n"
            "                       and jump classes come from the program; with --icnt-bits\n"
            "                       and a multiple-retire .rvti: where the overflow falls\n"
            "                       inside a block\n"
            "%s"
            "  --stats              print the Stat line (bytes, messages, bits per instruction)\n"
            "\n"
            "Example: rvtrace encode --format etrace --scf hw64.scf --ucf encoder.ucf dhrystone.encoder_input.zst -o d.te\n"
            "         rvtrace encode --format ntrace --nexrv --call-stack 8 --repeat-history 2 dhrystone.pcseq.zst -o d.nex\n",
            transport_help, ntrace_option_help);
    fprintf(out, "\n%s", exit_status_help);
}

/* Stat line as NexRv prints it after a dump. */
void print_nexus_stat(uint64_t bytes, uint64_t messages, uint64_t errors, uint64_t insns) {
    printf("Stat: %llu bytes, %llu messages, %llu error messages, %.2f bytes/message, %llu instr, %.3f "
           "bits/instr\n",
           (unsigned long long)bytes, (unsigned long long)messages, (unsigned long long)errors,
           messages ? (double)bytes / (double)messages : 0.0, (unsigned long long)insns,
           insns ? (double)bytes * 8 / (double)insns : 0.0);
}

/* The E-Trace encoder input has neither instruction bits nor (with a 3-bit
 * itype) jumps marked: both come from the program, and code outside it
 * (spike's boot ROM) from the machine the hart model gives it. */
static int complete_from_program(rvt_image *img, rvt_machine *m, rvt_retire *recs, size_t n, const char *elf,
                                 rvt_diag *d) {
    for (size_t i = 0; i < n; i++) {
        rvt_retire *r = &recs[i];
        if (r->sideband)
            continue;
        uint64_t last = r->ninsns ? rvt_retire_last_iaddr(r) : r->iaddr;
        rvt_insn in;
        if (!rvt_program_insn(img, m, last, &in))
            return rvt_diag_set(d, RVT_E_FORMAT, "%s: no instruction at %#llx, which the input says retired", elf,
                                (unsigned long long)last);
        r->insn = in.raw;
        if (r->ninsns)
            r->itype = (uint8_t)(in.cf == RVT_CF_NONE ? RVT_ITYPE_NONE
                                                      : rvt_itype(&in, r->itype == RVT_ITYPE_BRANCH_TAKEN, 4, false));
    }
    return 0;
}

static int encode_ntrace(const char *input, const char *output, const rvt_ntrace_options *o, unsigned xlen,
                         bool stats, const char *elf) {
    rvt_diag d = {{0}};
    int status = 1, rc = 0;
    long n = 0;
    bool pcseq = false;
    rvt_image *img = NULL;
    rvt_machine *machine = NULL;
    rvt_pcseq_reader *pr = NULL;
    rvt_retire_reader *rr = NULL;
    FILE *out = NULL;
    enum { BATCH = 4096 };
    rvt_nexus_step *steps = malloc(BATCH * sizeof *steps);
    rvt_retire *recs = malloc(BATCH * sizeof *recs);
    if (!steps || !recs) {
        fprintf(stderr, "rvtrace encode: out of memory\n");
        goto done;
    }
    if (elf) {
        if (rvt_image_new(&img) || rvt_image_load_elf(img, elf, 0, &d))
            goto report;
        xlen = rvt_image_xlen(img);
        machine = program_machine(img);
    }
    rvt_zreader *z; /* opened once: a FIFO opened a second time waits for a second writer */
    if (rvt_zreader_open(&z, input, &d))
        goto report;
    if (rvt_pcseq_zreader_sniff(z, &pcseq, &d)) {
        rvt_zreader_close(z);
        goto report;
    }
    if (pcseq ? rvt_pcseq_reader_open_z(&pr, z, &d) : rvt_retire_reader_open_z(&rr, z, RVT_FMT_AUTO, xlen, &d))
        goto report;
    if (pcseq && !o->nexrv && (o->call_stack || o->call_counter)) {
        /* its C and R lines are NexRv's calls and returns, which the
         * specification's table would not all give */
        fprintf(stderr, "rvtrace encode: %s: a pcseq file classifies calls and returns by NexRv's rules: "
                        "with implicit return, add --nexrv (and decode with --nexrv)\n", input);
        goto done;
    }
    bool from_program = rr && rvt_retire_reader_format(rr) == RVT_FMT_ENCODER_INPUT;
    if (from_program && !img) {
        fprintf(stderr, "rvtrace encode: %s: the E-Trace encoder input has no instruction bits and a 3-bit itype; "
                        "give the program with --elf, or use the spike CSV, a spike log, .rvti or pcseq\n", input);
        goto done;
    }
    if (!(out = output_open("rvtrace encode", output, true)))
        goto done;
    rvt_ntrace_encoder *e;
    if (rvt_ntrace_encoder_new(&e, o, rr ? rvt_retire_reader_xlen(rr) : xlen, file_byte_sink, out)) {
        fprintf(stderr, "rvtrace encode: out of memory or bad option\n");
        goto done;
    }
    program_code code = {img, machine, false};
    if (img) /* a bounded I-CNT overflows inside multiple-retire blocks too */
        rvt_ntrace_encoder_set_code(e, program_code_fetch, &code);
    while (rc == 0 && (n = pr ? rvt_pcseq_read(pr, steps, BATCH, &d) : rvt_retire_reader_read(rr, recs, BATCH, &d)) > 0) {
        if (from_program && complete_from_program(img, machine, recs, (size_t)n, elf, &d)) {
            n = -1;
            break;
        }
        if (rr)
            rc = rvt_ntrace_encoder_push(e, recs, (size_t)n);
        for (long i = 0; pr && i < n && rc == 0; i++)
            rc = rvt_ntrace_encoder_step(e, &steps[i]);
    }
    rvt_ntrace_stats st;
    int frc = rvt_ntrace_encoder_finish(e, &st);
    if (n < 0)
        goto report;
    if (rc == RVT_E_UNSUPP && o->icnt_bits) {
        fprintf(stderr, "rvtrace encode: %s: a block of the multiple-retire input overflows the %u-bit I-CNT inside "
                        "it; give the program with --elf to place the overflow there\n", input, o->icnt_bits);
        goto done;
    }
    if (rc || frc) {
        fprintf(stderr, "rvtrace encode: %s: %s\n", output, rvt_strerror(rc ? rc : frc));
        goto done;
    }
    status = 0;
    if (stats)
        print_nexus_stat(st.bytes, st.messages, 0, st.insns);
    goto done;
report:
    fprintf(stderr, "rvtrace encode: %s\n", d.msg);
done:
    free(steps);
    free(recs);
    rvt_pcseq_reader_close(pr);
    rvt_retire_reader_close(rr);
    rvt_machine_free(machine);
    rvt_image_free(img);
    if (output_close("rvtrace encode", out, status == 0))
        status = 1;
    return status;
}

typedef struct {
    FILE *out;
    uint64_t bytes, payload, packets; /* bytes: everything the transport wrote */
    rvt_te_encap_writer *encap;       /* NULL: the reference flow's raw stream */
} raw_out;

static int write_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    raw_out *o = user;
    o->payload += len;
    o->packets++;
    long before = ftell(o->out);
    int rc = o->encap ? rvt_te_encap_write(o->encap, payload, len, pkt->time) : rvt_te_raw_write(o->out, payload, len);
    long after = ftell(o->out);
    o->bytes += before >= 0 && after >= before ? (uint64_t)(after - before) : 1 + len;
    return rc;
}

int cmd_encode(int argc, char **argv) {
    const char *scf = NULL, *ucf = NULL, *input = NULL, *output = NULL, *format = "etrace", *stats_label = NULL;
    const char *elf = NULL;
    bool v1 = false, full = false, want_stats = false;
    rvt_ntrace_options no = {0};
    transport_choice tc = {0};
    struct rvt_etrace_filter filter = {0};
    int resync = -1;
    unsigned xlen = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            encode_usage(stdout);
            return 0;
        } else if (parse_transport_option(argc, argv, &i, &tc)) {
            continue;
        } else if (!strcmp(a, "--scf") && i + 1 < argc) {
            scf = argv[++i];
        } else if (!strcmp(a, "--ucf") && i + 1 < argc) {
            ucf = argv[++i];
        } else if (!strcmp(a, "--elf") && i + 1 < argc) {
            elf = argv[++i];
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            output = argv[++i];
        } else if (!strcmp(a, "--stats-label") && i + 1 < argc) {
            stats_label = argv[++i];
        } else if (!strcmp(a, "--stats") && option_has_value(argc, argv, i) && strcmp(format, "ntrace") != 0 &&
                   access(argv[i + 1], F_OK) != 0) {
            deprecated_spelling("rvtrace encode", "--stats NAME", "--stats --stats-label NAME");
            stats_label = argv[++i];
            want_stats = true;
        } else if (!strcmp(a, "--stats")) {
            want_stats = true;
        } else if (parse_ntrace_option(argc, argv, &i, &no)) {
            continue;
        } else if (!strcmp(a, "--v1")) {
            v1 = true;
        } else if (!strcmp(a, "--full-address")) {
            full = true;
        } else if (!strcmp(a, "--filter-range") && i + 1 < argc && filter.nranges < 4) {
            char lo[32];
            const char *colon = strchr(argv[++i], ':');
            if (!colon || colon - argv[i] >= (ptrdiff_t)sizeof lo) {
                fprintf(stderr, "rvtrace encode: --filter-range wants LO:HI, got '%s'\n", argv[i]);
                return 2;
            }
            snprintf(lo, sizeof lo, "%.*s", (int)(colon - argv[i]), argv[i]);
            filter.lo[filter.nranges] = option_number(a, lo, UINT64_MAX);
            filter.hi[filter.nranges++] = option_number(a, colon + 1, UINT64_MAX);
        } else if (!strcmp(a, "--filter-priv") && i + 1 < argc) {
            filter.priv_mask = (unsigned)option_number(a, argv[++i], 0xff);
        } else if (!strcmp(a, "--trigger-start") && i + 1 < argc) {
            filter.use_start = true;
            filter.start_addr = option_number(a, argv[++i], UINT64_MAX);
        } else if (!strcmp(a, "--trigger-stop") && i + 1 < argc) {
            filter.use_stop = true;
            filter.stop_addr = option_number(a, argv[++i], UINT64_MAX);
        } else if (!strcmp(a, "--triggers")) {
            filter.triggers = true;
        } else if (!strcmp(a, "--notify") && i + 1 < argc && filter.nnotify < 4) {
            filter.notify[filter.nnotify++] = option_number(a, argv[++i], UINT64_MAX);
        } else if ((!strcmp(a, "--filter-exception") || !strcmp(a, "--filter-interrupt")) && i + 1 < argc) {
            uint64_t cause = option_number(a, argv[++i], 63);
            if (a[9] == 'e')
                filter.exception_mask |= 1ull << cause;
            else
                filter.interrupt_mask |= 1ull << cause;
        } else if (!strcmp(a, "--resync-max") && i + 1 < argc) {
            resync = (int)option_number(a, argv[++i], 27);
        } else if (!strcmp(a, "--xlen") && i + 1 < argc) {
            xlen = (unsigned)option_number(a, argv[++i], 64);
            if (xlen != 32 && xlen != 64) {
                fprintf(stderr, "rvtrace encode: --xlen takes 32 or 64\n");
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace encode", a, i + 1 == argc, encode_usage);
        } else if (!input) {
            input = a;
        } else {
            return usage_error("rvtrace encode", encode_usage, "one INPUT at a time: got '%s' and '%s'", input, a);
        }
    }
    if (!input || !output)
        return usage_error("rvtrace encode", encode_usage, !input ? "no INPUT given" : "no output given (-o OUT)");
    const char *inputs[] = {input, elf, scf, ucf};
    if (!outputs_not_inputs("rvtrace encode", inputs, sizeof inputs / sizeof *inputs, &output, 1))
        return 2;
    if (!strcmp(format, "ntrace")) {
        if (no.call_stack > RVT_NTRACE_MAX_CALL_STACK || no.src_bits > 12 || no.repeat > 3 || no.sync_max > 40 ||
            no.icnt_bits == 1 || no.icnt_bits > 32) {
            fprintf(stderr, "rvtrace encode: --call-stack is at most 32, --src-bits at most 12, --repeat-history 0-3, "
                            "--sync-max at most 40, --icnt-bits 2-32\n");
            return 2;
        }
        return encode_ntrace(input, output, &no, xlen, want_stats, elf);
    }
    if (strcmp(format, "etrace") != 0) {
        fprintf(stderr, "rvtrace encode: unknown --format %s (etrace or ntrace)\n", format);
        return 2;
    }
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag d = {{0}};
    if (tc.t.rv_tracer_records) {
        fprintf(stderr, "rvtrace encode: rv_tracer's records are read (decode, dump), not written\n");
        return 2;
    }
    if (rvt_etrace_load_config(scf, ucf, &p, &o, &d)) {
        fprintf(stderr, "rvtrace encode: %s\n", d.msg);
        return 1;
    }
    o.v1_layout = v1;
    o.filter = filter;
    if (full)
        o.full_address = true;
    if (resync >= 0)
        o.resync_max = (unsigned)resync;
    rvt_retire_reader *r;
    if (rvt_retire_reader_open(&r, input, RVT_FMT_AUTO, xlen, &d)) {
        fprintf(stderr, "rvtrace encode: %s\n", d.msg);
        return 1;
    }
    FILE *out = output_open("rvtrace encode", output, true);
    if (!out) {
        rvt_retire_reader_close(r);
        return 1;
    }
    rvt_etrace_encoder *e;
    int status = 1;
    rvt_te_encap_writer ew = {out, tc.t, 0, 0};
    raw_out ro = {out, 0, 0, 0, tc.enabled ? &ew : NULL};
    uint64_t rows = 0, retired = 0;
    rvt_retire *recs = malloc(4096 * sizeof *recs);
    int started = recs ? rvt_etrace_encoder_new(&e, &p, &o, write_packet, &ro) : RVT_E_NOMEM;
    if (started == RVT_E_ARG) {
        fprintf(stderr, "rvtrace encode: implicit return needs the 4-bit itype (itype_width_p=4 in the .scf)\n");
        goto done;
    } else if (started) {
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
    else if (rc == RVT_E_FORMAT)
        fprintf(stderr, "rvtrace encode: %s: a record with the reserved itype 7\n", input);
    else if (rc)
        fprintf(stderr, "rvtrace encode: %s: %s\n", output, rvt_strerror(rc));
    else
        status = 0;
    char input_name[256];
    if (!stats_label) { /* the reference flow labels a Stat line with the run's name (its configuration) */
        const char *base = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;
        snprintf(input_name, sizeof input_name, "%.*s", (int)strcspn(base, "."), base);
        stats_label = input_name;
    }
    if (status == 0 && want_stats) {
        double bits = (double)rows;
        printf("Stat: %s: %llu bytes (%llu payload + %llu headers), %llu packets, %llu instr (%llu retired), "
               "%.3f bits/instr (payload), %.3f bits/instr (with headers)\n",
               stats_label, (unsigned long long)ro.bytes, (unsigned long long)ro.payload,
               (unsigned long long)(ro.bytes - ro.payload), (unsigned long long)ro.packets, (unsigned long long)rows,
               (unsigned long long)retired, rows ? (double)ro.payload * 8 / bits : 0.0,
               rows ? (double)ro.bytes * 8 / bits : 0.0);
    }
done:
    free(recs);
    rvt_retire_reader_close(r);
    if (output_close("rvtrace encode", out, status == 0))
        status = 1;
    return status;
}
