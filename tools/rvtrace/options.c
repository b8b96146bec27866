/* Command-line options more than one subcommand takes. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

bool parse_number(const char *text, uint64_t max, uint64_t *out) {
    if (text[0] < '0' || text[0] > '9') /* (strtoull would take spaces and a sign) */
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

uint64_t option_number(const char *opt, const char *text, uint64_t max) {
    uint64_t v;
    if (!parse_number(text, max, &v)) {
        if (max == UINT64_MAX)
            fprintf(stderr, "rvtrace: %s takes a number (decimal or 0x hex), not '%s'\n", opt, text);
        else
            fprintf(stderr, "rvtrace: %s takes a number from 0 to %" PRIu64 " (decimal or 0x hex), not '%s'\n", opt,
                    max, text);
        exit(2);
    }
    return v;
}

bool parse_transport_option(int argc, char **argv, int *i, transport_choice *tc) {
    const char *a = argv[*i];
    if (!strcmp(a, "--encap") && *i + 1 < argc && !strcmp(argv[*i + 1], "rv-tracer")) {
        tc->enabled = tc->t.rv_tracer_records = true;
        ++*i;
    } else if (!strcmp(a, "--encap")) {
        tc->enabled = true;
    } else if (!strcmp(a, "--encap-timestamps")) {
        tc->enabled = tc->t.timestamps = true;
    } else if (!strcmp(a, "--encap-index-bytes") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.index_bytes = (unsigned)option_number(a, argv[++*i], 2);
    } else if (!strcmp(a, "--encap-index") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.index = (unsigned)option_number(a, argv[++*i], 0xffff);
    } else if (!strcmp(a, "--encap-blocks") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.block_size = (unsigned)option_number(a, argv[++*i], UINT32_MAX);
        if (tc->t.block_size < 36) {
            fprintf(stderr, "rvtrace: --encap-blocks takes a block size of at least 36 bytes (the longest packet)\n");
            exit(2);
        }
    } else if (!strcmp(a, "--encap-align") && *i + 1 < argc) {
        tc->enabled = true;
        tc->t.align_every = (unsigned)option_number(a, argv[++*i], UINT32_MAX);
    } else {
        return false;
    }
    return true;
}

int load_etrace_config(const char *scf, const char *ucf, const transport_choice *tc, rvt_etrace_params *p,
                       rvt_etrace_options *o, rvt_diag *diag) {
    if (tc->t.rv_tracer_records && !scf && !ucf) {
        rvt_etrace_rv_tracer_config(p, o);
        return RVT_OK;
    }
    return rvt_etrace_load_config(scf, ucf, p, o, diag);
}

const char *const transport_help =
    "  --encap              the spec's example encapsulation instead of the reference\n"
    "                       flow's raw stream: --encap-index-bytes N (0-2) and\n"
    "                       --encap-index V for a source index, --encap-timestamps for\n"
    "                       a 2-byte time stamp per packet, --encap-align N for 32 zero\n"
    "                       bytes before every Nth packet (a reader realigns on them),\n"
    "                       --encap-blocks M for memory in M-byte blocks that each start\n"
    "                       with a packet (zeros fill a block's end)\n"
    "  --encap rv-tracer    PULP rv_tracer's 40-byte records and packet layout, with\n"
    "                       its parameters (XLEN 64, byte addresses, delta mode)\n";

rvt_machine *program_machine(rvt_image *img) {
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    rvt_machine *m;
    rvt_diag d = {{0}};
    return rvt_machine_new(&m, &cfg, img, &d) ? NULL : m;
}

/* A Linux kernel mapped at its virtual addresses does not fit the default
 * machine's RAM, yet its traces start in the same boot ROM: that machine is
 * then built around one placeholder word in RAM, kept in *own. */
rvt_machine *program_machine_rom(rvt_image *img, rvt_image **own) {
    *own = NULL;
    rvt_machine *m = program_machine(img);
    if (m || !rvt_image_xlen(img))
        return m;
    static const uint8_t word[4] = {0};
    rvt_diag d = {{0}};
    if (rvt_image_new(own) ||
        rvt_image_load_raw(*own, "(boot ROM)", word, sizeof word, 0x80000000u, 0, rvt_image_xlen(img), &d) ||
        !(m = program_machine(*own))) {
        rvt_image_free(*own);
        *own = NULL;
    }
    return m;
}

bool program_code_fetch(void *user, uint64_t addr, rvt_insn *out) {
    const program_code *c = user;
    return rvt_program_insn(c->memory_first ? NULL : c->img, c->m, addr, out);
}

/* Tandem parameters: 0 leaves a value to rvt_tv_params_default. */
bool parse_tandem_param_option(int argc, char **argv, int *i, rvt_tv_params *p) {
    const char *a = argv[*i];
    if (*i + 1 >= argc)
        return false;
    unsigned *slot = !strcmp(a, "--xlen") ? &p->xlen : !strcmp(a, "--flen") ? &p->flen
                     : !strcmp(a, "--mlen") ? &p->mlen : NULL;
    if (!slot)
        return false;
    const char *text = argv[++*i];
    *slot = (unsigned)option_number(a, text, slot == &p->xlen ? 64 : 128);
    /* The tandem format's own bounds (rvt_tv_params_check), as a usage
     * error here rather than a failure once the run has begun. */
    bool ok = slot == &p->xlen ? *slot == 32 || *slot == 64
              : slot == &p->flen ? *slot == 0 || *slot == 32 || *slot == 64
                                 : *slot >= 32 && *slot <= 64;
    if (!ok) {
        fprintf(stderr, "rvtrace: %s takes %s, not '%s'\n", a,
                slot == &p->xlen ? "32 or 64" : slot == &p->flen ? "0, 32 or 64" : "32 to 64", text);
        exit(EXIT_USAGE);
    }
    if (slot == &p->flen && *slot == 0)
        *slot = FLEN_NONE;
    return true;
}

void finish_tandem_params(rvt_tv_params *p, unsigned xlen_default) {
    rvt_tv_params d;
    rvt_tv_params_default(&d, p->xlen ? p->xlen : xlen_default);
    p->xlen = d.xlen;
    p->flen = p->flen == FLEN_NONE ? 0 : p->flen ? p->flen : d.flen;
    if (!p->mlen)
        p->mlen = d.mlen;
}

const char *const tandem_param_help =
    "  --xlen N, --flen N, --mlen N   the trace's parameters, agreed out of band\n"
    "                       (default: the program's XLEN, FLEN 64, MLEN 64 on RV64\n"
    "                       and 34 on RV32; --flen 0 for a hart without F)\n";

int file_byte_sink(void *user, const uint8_t *bytes, size_t len) {
    return fwrite(bytes, 1, len, user) == len ? 0 : RVT_E_IO;
}

byte_file *byte_file_open(const char *tool, const char *path) {
    byte_file *b = malloc(sizeof *b);
    if (!b) {
        fprintf(stderr, "%s: out of memory\n", tool);
        return NULL;
    }
    b->n = 0;
    b->failed = false;
    if (!(b->f = output_open(tool, path, true))) {
        free(b);
        return NULL;
    }
    return b;
}

void byte_file_drain(byte_file *b) {
    if (b->n && fwrite(b->buf, 1, b->n, b->f) != b->n)
        b->failed = true;
    b->n = 0;
}

int byte_file_sink(void *user, const uint8_t *bytes, size_t len) {
    byte_file *b = user;
    if (len > sizeof b->buf) {
        byte_file_drain(b);
        if (file_byte_sink(b->f, bytes, len)) {
            b->failed = true;
            return RVT_E_IO;
        }
        return RVT_OK;
    }
    uint8_t *to = byte_file_room(b, len);
    if (len <= 32) /* (a message) */
        rvt_copy_small(to, bytes, len);
    else
        memcpy(to, bytes, len);
    return byte_file_wrote(b, len);
}

int byte_file_close(const char *tool, byte_file *b, bool keep) {
    if (!b)
        return 0;
    if (keep)
        byte_file_drain(b);
    if (b->failed && keep) /* (the stream's own error flag may not be set: a short fwrite) */
        fprintf(stderr, "%s: %s: write failed\n", tool, output_name(b->f));
    int status = output_close(tool, b->f, keep && !b->failed) | (keep && b->failed);
    free(b);
    return status;
}

bool parse_ntrace_option(int argc, char **argv, int *i, rvt_ntrace_options *no) {
    const char *a = argv[*i];
    bool value = *i + 1 < argc;
    if (!strcmp(a, "--btm")) {
        no->btm = true;
    } else if (!strcmp(a, "--call-stack") && value) {
        no->call_stack = (unsigned)option_number(a, argv[++*i], RVT_NTRACE_MAX_CALL_STACK);
    } else if (!strcmp(a, "--call-counter") && value) {
        no->call_stack = (unsigned)option_number(a, argv[++*i], RVT_NTRACE_MAX_CALL_STACK);
        no->call_counter = true;
    } else if (!strcmp(a, "--repeat-history") && value) {
        no->repeat = (unsigned)option_number(a, argv[++*i], 3);
    } else if (!strcmp(a, "--src-bits") && value) {
        no->src_bits = (unsigned)option_number(a, argv[++*i], 12);
    } else if (!strcmp(a, "--sync-max") && value) {
        no->sync_max = (unsigned)option_number(a, argv[++*i], 40);
    } else if (!strcmp(a, "--timestamps")) {
        no->timestamps = true;
    } else if (!strcmp(a, "--seq-jump")) {
        no->seq_jump = true;
    } else if (!strcmp(a, "--all-jumps")) {
        no->all_jumps = true;
    } else if (!strcmp(a, "--return-bits") && value) {
        no->return_bits = (unsigned)option_number(a, argv[++*i], 63);
        if (no->return_bits == 1) {
            fprintf(stderr, "rvtrace: --return-bits takes 2 to 63 (0: full addresses), not 1\n");
            exit(2);
        }
    } else if (!strcmp(a, "--nexrv")) {
        no->nexrv = true;
    } else if (!strcmp(a, "--icnt-bits") && value) {
        no->icnt_bits = (unsigned)option_number(a, argv[++*i], 32);
        if (no->icnt_bits == 1) {
            fprintf(stderr, "rvtrace: --icnt-bits takes 0 (the default) or 2 to 32, not 1\n");
            exit(2);
        }
    } else if (!strcmp(a, "--extend-addr-msb")) {
        no->extend_addr_msb = true;
    } else if (!strcmp(a, "--ownership")) {
        no->ownership = true;
    } else if (!strcmp(a, "--src-id") && value) {
        no->src_id = (unsigned)option_number(a, argv[++*i], 0xfff);
    } else {
        return false;
    }
    return true;
}

const char *const ntrace_option_help =
    "  --btm                branch-trace messages (default: history trace, HTM)\n"
    "  --call-stack N       implicit return with an N-deep return-address stack (0-32)\n"
    "  --call-counter N     implicit return with a nested-call counter saturating at N\n"
    "                       (0-32)\n"
    "  --repeat-history N   0 none, 1 RepeatBranch, 2 repeated history (ResourceFull\n"
    "                       RCODE 2), 3 both\n"
    "  --src-bits N --src-id ID   send a SRC field (several harts in one stream)\n"
    "  --sync-max N         periodic sync: every 2^(N+4) messages the next branch\n"
    "                       message goes out in its *Sync form (full address)\n"
    "  --timestamps         TSTAMP field on every message (from the records' time)\n"
    "  --ownership          Ownership messages with privilege and context\n"
    "  --extend-addr-msb    F-ADDR/U-ADDR with MSB extension (leading ones dropped too)\n"
    "  --seq-jump           sequential jump optimisation (not from pcseq, which has no\n"
    "                       instruction bits)\n"
    "  --all-jumps          every direct jump reported as a taken branch (trTeInstEn-\n"
    "                       AllJumps: a DirectBranch message in BTM, a history bit in HTM)\n"
    "  --return-bits N      implicit return mode 2: the stack compares only the low N\n"
    "                       bits of return addresses (2-63; default: full addresses)\n"
    "  --nexrv              NexRv's rules where they depart from the specification:\n"
    "                       any jal/jalr with rd != x0 pushes, only jalr x0,0(ra) pops\n"
    "                       (default: the spec's itype table, links x1/x5), and an HTM\n"
    "                       ProgTraceCorrelation without HIST when it is empty; decode\n"
    "                       such a stream with --nexrv (pcseq input needs it)\n"
    "  --icnt-bits N        N-bit I-CNT counter (MSB = overflow): overflow messages\n"
    "                       (SYNC 4 or ResourceFull RCODE 0); default unbounded\n";

/* Whether the help text shows `opt` taking a value ("  --traps FILE"): the
 * help is what every option is documented in, so it is asked rather than a
 * second list kept beside each parser. */
static bool help_shows_value(const char *help, const char *opt) {
    size_t n = strlen(opt);
    for (const char *p = strstr(help, opt); p; p = strstr(p + 1, opt)) {
        bool starts = p == help || p[-1] == ' ' || p[-1] == ',' || p[-1] == '[';
        if (starts && p[n] == ' ' && p[n + 1] && p[n + 1] != ' ' && p[n + 1] != '-')
            return true;
    }
    return false;
}

/* The help text `usage` writes, in memory (NULL when that fails). */
static char *help_text(void (*usage)(FILE *)) {
    char *help = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&help, &len);
    if (!mem)
        return NULL;
    usage(mem);
    if (fclose(mem)) {
        free(help);
        return NULL;
    }
    return help;
}

/* After a usage error's message: the synopsis (the help's lines up to its
 * first empty one) and where the rest is. */
static void usage_hint(const char *tool, const char *help) {
    if (help) {
        const char *end = strstr(help, "\n\n");
        fprintf(stderr, "%.*s\n", (int)(end ? end - help : (ptrdiff_t)strlen(help)), help);
    }
    fprintf(stderr, "see %s --help\n", tool);
}

int usage_error(const char *tool, void (*usage)(FILE *), const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", tool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    char *help = help_text(usage);
    usage_hint(tool, help);
    free(help);
    return EXIT_USAGE;
}

void deprecated_spelling(const char *tool, const char *old, const char *now) {
    fprintf(stderr, "%s: warning: '%s' is the old spelling, accepted until rvtrace 0.5: use '%s'\n", tool, old, now);
}

bool option_has_value(int argc, char **argv, int i) {
    return i + 1 < argc && (argv[i + 1][0] != '-' || !strcmp(argv[i + 1], "-"));
}

int bad_option(const char *tool, const char *opt, bool last, void (*usage)(FILE *)) {
    char *help = help_text(usage);
    if (last && help && help_shows_value(help, opt))
        fprintf(stderr, "%s: option %s needs a value\n", tool, opt);
    else
        fprintf(stderr, "%s: unknown option '%s'\n", tool, opt);
    usage_hint(tool, help);
    free(help);
    return EXIT_USAGE;
}
