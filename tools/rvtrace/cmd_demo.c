/* rvtrace demo: the whole pipeline on the bundled example program. */
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/ntrace.h"
#include "rvtrace/profile.h"

typedef struct {
    uint64_t *v;
    size_t n, cap;
} pc_list;

static int pc_push(pc_list *l, uint64_t pc) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1 << 16;
        uint64_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return RVT_E_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = pc;
    return 0;
}

/* A raw E-Trace stream in memory, as the reference flow writes it. */
typedef struct {
    rvt_membuf m;
    size_t packets;
} packet_buf;

static int keep_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)pkt;
    packet_buf *b = user;
    uint8_t header = (uint8_t)(RVT_TE_MSG_TYPE_INST << 5 | len);
    b->packets++;
    return rvt_membuf_append(&b->m, &header, 1) || rvt_membuf_append(&b->m, payload, len) ? RVT_E_NOMEM : 0;
}

typedef struct {
    rvt_etrace_encoder *compact, *plain;
    rvt_ntrace_encoder *nexus;
    pc_list executed;
} run_ctx;

/* What the encoders see, and the list of executed addresses to check the
 * decoder against (ecall/ebreak count as executed, like the encoder does). */
static int run_sink(void *user, const rvt_retire *recs, size_t n) {
    run_ctx *r = user;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *rec = &recs[i];
        if ((rec->ninsns || rvt_retire_is_env_trap(rec)) && pc_push(&r->executed, rec->iaddr))
            return RVT_E_NOMEM;
    }
    return rvt_etrace_encoder_push(r->compact, recs, n) | rvt_etrace_encoder_push(r->plain, recs, n) |
           rvt_ntrace_encoder_push(r->nexus, recs, n);
}

typedef struct {
    rvt_image *img;
    rvt_machine *machine;
    pc_list decoded;
} decode_ctx;

static bool demo_fetch(void *user, uint64_t addr, rvt_insn *out) {
    decode_ctx *c = user;
    return rvt_program_insn(c->img, c->machine, addr, out);
}

static bool demo_rom(void *user, uint64_t addr, void *buf, unsigned n) {
    return rvt_machine_read_rom(((decode_ctx *)user)->machine, addr, buf, n);
}

static int demo_pc(void *user, uint64_t pc) { return pc_push(&((decode_ctx *)user)->decoded, pc); }

/* ecall and ebreak count as executed although they trap. */
static int demo_trap(void *user, const rvt_trap_event *trap) {
    rvt_insn in;
    if (!trap->interrupt && demo_fetch(user, trap->at, &in) && in.cf == RVT_CF_TRAP)
        return demo_pc(user, trap->at);
    return 0;
}

static bool same_flow(const pc_list *a, const pc_list *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

static void default_example(char *buf, size_t cap) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    snprintf(buf, cap, "%s/examples/demo.elf", n > 0 ? dirname(exe) : ".");
}

/* The demo keeps the executed flow, both decoded flows and the traces in
 * memory (about 40 bytes an instruction): a program that never ends is
 * stopped here, at some 80 MB, and one may ask for up to 4 GB. */
#define DEMO_DEFAULT_MAX_INSNS 2000000u
#define DEMO_MAX_MAX_INSNS 100000000u

static void demo_usage(FILE *out) {
    fprintf(out, "usage: rvtrace demo [--report DIR] [--max-insns N] [PROGRAM.elf]\n\n"
                 "Run the bundled example (or PROGRAM) on the hart model, trace it with E-Trace in\n"
                 "its most compact mode and in plain branch trace, decode the compact trace with\n"
                 "the ELF, check that the decoded flow equals the executed one, and show a\n"
                 "listing, the trace figures and the hottest functions.\n\n"
                 "  --report DIR  also write DIR/index.html: the decoded trace's summary, hottest\n"
                 "                functions, flame graph and annotated listing (open it in a browser)\n"
                 "  --max-insns N stop the program after N retired instructions (default %u, at\n"
                 "                most %u): the demo holds the whole run in memory, about 40\n"
                 "                bytes an instruction, so a program that never ends is stopped\n"
                 "                there, said on standard error, and the demo exits 1\n\n"
                 "Example: rvtrace demo --report demo-report\n\n%s",
            DEMO_DEFAULT_MAX_INSNS, DEMO_MAX_MAX_INSNS, exit_status_help);
}

int cmd_demo(int argc, char **argv) {
    char example[4200];
    default_example(example, sizeof example);
    const char *program = example, *report_dir = NULL;
    uint64_t max_insns = DEMO_DEFAULT_MAX_INSNS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            demo_usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--report") && i + 1 < argc) {
            report_dir = argv[++i];
        } else if (!strcmp(argv[i], "--max-insns") && i + 1 < argc) {
            max_insns = option_number(argv[i], argv[i + 1], DEMO_MAX_MAX_INSNS);
            i++;
            if (max_insns == 0) {
                fprintf(stderr, "rvtrace demo: --max-insns must be at least 1\n");
                return 2;
            }
        } else if (argv[i][0] == '-') {
            return bad_option("rvtrace demo", argv[i], i + 1 == argc, demo_usage);
        } else if (program == example) {
            program = argv[i];
        } else {
            fprintf(stderr, "rvtrace demo: one program at a time: got '%s' and '%s'\n", program, argv[i]);
            return 2;
        }
    }
    rvt_diag d = {{0}};
    rvt_image *img = NULL;
    rvt_machine *m = NULL;
    run_ctx r = {0};
    packet_buf compact = {0}, plain = {0};
    rvt_membuf nexus = {0};
    decode_ctx dc = {0}, nc = {0};
    rvt_ntrace_decoder *ndec = NULL;
    rvt_profile *prof = NULL;
    rvt_etrace_decoder *dec = NULL;
    int status = 1;
    if (rvt_image_new(&img) || rvt_image_load_elf(img, program, 0, &d)) {
        fprintf(stderr, "rvtrace demo: %s\n(build it with 'make demo' or give a program)\n", d.msg);
        goto done;
    }
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.max_insns = max_insns;
    if (rvt_machine_new(&m, &cfg, img, &d)) {
        fprintf(stderr, "rvtrace demo: %s\n", d.msg);
        goto done;
    }
    /* Most compact: 4-bit itype with implicit return, rare resyncs, no
     * context; plain: 3-bit itype, every return reported. */
    rvt_etrace_params pc, pp;
    rvt_etrace_options oc, op;
    rvt_etrace_params_default(&pc);
    rvt_etrace_options_default(&oc);
    pc.iaddress_width = rvt_image_xlen(img);
    pc.itype_width = 4;
    pc.nocontext = true;
    oc.implicit_return = true;
    oc.resync_max = 16;
    pp = pc;
    pp.itype_width = 3;
    op = oc;
    op.implicit_return = false;
    /* N-Trace: history messages, an 8-deep return stack, repeated history. */
    rvt_ntrace_options no = {.call_stack = 8, .repeat = 2};
    if (rvt_etrace_encoder_new(&r.compact, &pc, &oc, keep_packet, &compact) ||
        rvt_etrace_encoder_new(&r.plain, &pp, &op, keep_packet, &plain) ||
        rvt_ntrace_encoder_new(&r.nexus, &no, rvt_image_xlen(img), rvt_membuf_append, &nexus))
        goto done;
    rvt_ref_filter *filter;
    if (rvt_ref_filter_new(&filter, run_sink, &r))
        goto done;
    rvt_machine_set_sink(m, rvt_ref_filter_sink, filter);
    printf("== 1. %s on the hart model (spike's machine: boot ROM, RAM, HTIF)\n", program);
    fflush(stdout);
    rvt_run_result res;
    rvt_machine_run(m, &res, &d);
    bool finished = res.reason == RVT_STOP_EXIT;
    if (res.reason == RVT_STOP_MAX_INSNS)
        fprintf(stderr, "rvtrace demo: %s did not end within %" PRIu64 " instructions (--max-insns); the demo goes "
                "on with what ran and exits 1\n", program, max_insns);
    else if (!finished)
        fprintf(stderr, "rvtrace demo: %s stopped without exiting%s%s\n", program, d.msg[0] ? ": " : "", d.msg);
    rvt_ref_filter_free(filter);
    rvt_etrace_encoder_finish(r.compact, NULL);
    rvt_etrace_encoder_finish(r.plain, NULL);
    rvt_ntrace_stats nst;
    rvt_ntrace_encoder_finish(r.nexus, &nst);
    printf("   exit code %d; %" PRIu64 " instructions retired until the host saw the exit, %zu of them\n"
           "   in the trace (as in spike's trace: the final spin loop is one instruction)\n\n",
           res.exit_code, res.instret, r.executed.n);

    printf("== 2. Encoding: E-Trace and N-Trace\n");
    printf("   compact (implicit return):  %zu packets, %zu bytes, %.3f bits/instruction\n", compact.packets,
           compact.m.len, (double)compact.m.len * 8 / (double)r.executed.n);
    printf("   plain branch trace:         %zu packets, %zu bytes, %.3f bits/instruction\n", plain.packets,
           plain.m.len, (double)plain.m.len * 8 / (double)r.executed.n);
    printf("   N-Trace (HTM, return stack, repeated history): %" PRIu64 " messages, %zu bytes, %.3f bits/instruction\n\n",
           nst.messages, nexus.len, (double)nexus.len * 8 / (double)r.executed.n);

    printf("== 3. Decoding the compact E-Trace and the N-Trace stream with the ELF\n");
    dc.img = img;
    dc.machine = m;
    if (rvt_etrace_decoder_new(&dec, &pc, &oc, rvt_image_xlen(img), demo_fetch, demo_pc, &dc))
        goto done;
    rvt_etrace_decoder_set_const_memory(dec, demo_rom, &dc);
    rvt_te_raw_cursor cur = {.data = compact.m.data, .size = compact.m.len};
    rvt_te_inst pkt;
    while (rvt_te_raw_next(&cur, &pc, &oc, &pkt, NULL, &d) == 1)
        if (rvt_etrace_decode(dec, &pkt, &d)) {
            printf("   decoding failed: %s\n", d.msg);
            goto done;
        }
    bool same = same_flow(&dc.decoded, &r.executed);
    printf("   E-Trace: %zu instructions decoded: %s the executed flow\n", dc.decoded.n,
           same ? "identical to" : "DIFFERENT from");
    nc.img = img;
    nc.machine = m;
    rvt_ntrace_decoder_options ndo = {.call_stack = no.call_stack, .src_id = -1};
    if (rvt_ntrace_decoder_new(&ndec, &ndo, rvt_image_xlen(img), demo_fetch, demo_pc, &nc))
        goto done;
    rvt_ntrace_decoder_set_trap_sink(ndec, demo_trap);
    rvt_nexus_reader nr;
    rvt_nexus_reader_init(&nr, NULL, nexus.data, nexus.len);
    rvt_nexus_msg msg;
    while (rvt_nexus_next(&nr, &msg, &d) == 1)
        if (rvt_ntrace_decode(ndec, &msg, &d)) {
            printf("   N-Trace decoding failed: %s\n", d.msg);
            goto done;
        }
    bool nsame = same_flow(&nc.decoded, &r.executed);
    printf("   N-Trace: %zu instructions decoded: %s the executed flow\n\n", nc.decoded.n,
           nsame ? "identical to" : "DIFFERENT from");

    printf("== 4. The decoded flow as a listing (from the program's entry)\n");
    rvt_disasm_ctx dis;
    rvt_disasm_init(&dis, rvt_image_xlen(img), 0);
    size_t first = 0;
    while (first < dc.decoded.n && dc.decoded.v[first] != rvt_image_entry(img))
        first++;
    for (size_t i = first, shown = 0; i < dc.decoded.n && shown < 14; i++, shown++) {
        uint64_t a = dc.decoded.v[i], off = 0;
        const rvt_insn *in = rvt_image_insn(img, a);
        char text[160] = "";
        if (in)
            rvt_disasm(&dis, in, NULL, a, text, sizeof text);
        for (char *t = text; *t; t++)
            if (*t == '\t')
                *t = ' ';
        const char *sym = rvt_image_symbolize(img, a, &off);
        char where[64];
        if (off)
            snprintf(where, sizeof where, "<%s+0x%" PRIx64 ">", sym ? sym : "?", off);
        else
            snprintf(where, sizeof where, "<%s>", sym ? sym : "?");
        const char *file;
        unsigned line;
        char src[128] = "";
        if (rvt_image_source_line(img, a, &file, &line)) {
            const char *base = strrchr(file, '/');
            snprintf(src, sizeof src, "%s:%u", base ? base + 1 : file, line);
        }
        printf("   %8" PRIx64 " %-26s %-34s %s\n", a, where, text, src);
    }
    printf("\n== 5. Hottest functions (instructions retired)\n");
    if (rvt_profile_new(&prof, img))
        goto done;
    for (size_t i = 0; i < dc.decoded.n; i++)
        if (rvt_profile_pc(prof, dc.decoded.v[i]))
            goto done;
    rvt_profile_entry top[5];
    size_t nfun = rvt_profile_functions(prof, top, 5);
    for (size_t k = 0; k < nfun && k < 5; k++)
        printf("   %-24s %8" PRIu64 "  %5.1f%%\n", strcmp(top[k].name, "?") ? top[k].name : "(boot ROM)",
               top[k].count, 100.0 * (double)top[k].count / (double)dc.decoded.n);
    printf("   (rvtrace decode --profile N, --folded FILE, --coverage FILE, --gmon, --callgrind, --lcov and\n"
           "   --report DIR give these for any trace)\n");
    status = same && nsame && finished && res.exit_code == 0 ? 0 : 1;
    if (report_dir) {
        rvt_report_info info = {program, "(in memory: the compact E-Trace above)", "E-Trace", compact.m.len,
                                compact.packets, 0};
        if (write_html_report("rvtrace demo", report_dir, prof, &info))
            status = 1;
        else
            printf("\n== Report: %s/index.html (open it in a web browser)\n", report_dir);
    }
    if (res.reason == RVT_STOP_MAX_INSNS) { /* last: it runs the machine on past what was decoded */
        fprintf(stderr, "rvtrace demo: why %s did not end:\n", program);
        report_spin(stderr, m, img, &res);
        report_machine(stderr, &cfg);
    }
done:
    rvt_etrace_decoder_free(dec);
    rvt_ntrace_decoder_free(ndec);
    rvt_profile_free(prof);
    free(dc.decoded.v);
    free(nc.decoded.v);
    rvt_membuf_free(&nexus);
    free(r.executed.v);
    rvt_membuf_free(&compact.m);
    rvt_membuf_free(&plain.m);
    rvt_machine_free(m);
    rvt_image_free(img);
    return status;
}
