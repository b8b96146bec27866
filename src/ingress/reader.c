/* Readers of retirement streams made elsewhere: the reference flow's CSV and
 * spike's commit log, plus .rvti through the same interface. Text lines are
 * classified with our decoder; a branch is taken when the next retired
 * instruction is not its fall-through. */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

struct rvt_retire_reader {
    enum rvt_retire_format format;
    unsigned xlen;
    char *path;
    rvt_rvti_reader *rvti;
    rvt_line_reader *lines;
    uint64_t line;
    /* The previous instruction's record is held back until the next address
     * tells whether a branch was taken. */
    rvt_retire held;
    bool have_held;
    rvt_retire queue[4]; /* records completed by the current line */
    unsigned nqueue;
    /* encoder input: column of each field, -1 when absent */
    int col_itype, col_cause, col_tval, col_priv, col_iaddr, col_context, col_time, col_ctype, col_sijump,
        col_iretire, col_ilastsize, col_halted, col_reset, col_trigger, ncols;
    /* spike log: the last instruction fetched (-l), for the trap that follows */
    uint64_t fetched_pc;
    uint32_t fetched_insn;
    bool trap_awaits_tval; /* the last queued trap may still get its tval line */
    unsigned priv;
    /* what release_held needs of an instruction word, by the word: decoding
     * every row again was a fifth of reading a spike CSV */
    struct held_class {
        uint32_t raw;
        bool valid, branch;
        uint8_t len, itype, itype_taken;
    } classes[1024];
};

static int next_line(rvt_retire_reader *r, char **line, rvt_diag *diag) {
    int rc = rvt_line_next(r->lines, line, diag);
    r->line = rvt_line_number(r->lines);
    return rc;
}

static int parse_encoder_input_header(rvt_retire_reader *r, char *line, rvt_diag *diag);

int rvt_retire_reader_open(rvt_retire_reader **out, const char *path, enum rvt_retire_format format,
                           unsigned xlen, rvt_diag *diag) {
    *out = NULL;
    rvt_zreader *z;
    int rc = rvt_zreader_open(&z, path, diag);
    return rc ? rc : rvt_retire_reader_open_z(out, z, format, xlen, diag);
}

static int open_named(rvt_retire_reader **out, rvt_zreader *z, enum rvt_retire_format format, unsigned xlen,
                      const char *path, rvt_diag *diag);

int rvt_retire_reader_open_z(rvt_retire_reader **out, rvt_zreader *z, enum rvt_retire_format format,
                             unsigned xlen, rvt_diag *diag) {
    *out = NULL;
    /* A name of its own: the messages of a failed open outlive the reader
     * and the file, which own theirs. */
    char *path = strdup(rvt_zreader_path(z));
    if (!path) {
        rvt_zreader_close(z);
        return RVT_E_NOMEM;
    }
    int rc = open_named(out, z, format, xlen, path, diag);
    free(path);
    return rc;
}

static int open_named(rvt_retire_reader **out, rvt_zreader *z, enum rvt_retire_format format, unsigned xlen,
                      const char *path, rvt_diag *diag) {
    rvt_retire_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        rvt_zreader_close(z);
        return RVT_E_NOMEM;
    }
    r->xlen = xlen == 32 ? 32 : 64;
    r->priv = 3;
    int rc = rvt_line_reader_open_z(&r->lines, z, diag);
    if (rc) {
        rvt_retire_reader_close(r);
        return rc;
    }
    size_t have;
    const char *head = rvt_line_reader_peek(r->lines, &have);
    if (format == RVT_FMT_AUTO) {
        if (have >= 4 && memcmp(head, "RVTI", 4) == 0)
            format = RVT_FMT_RVTI;
        else if (have >= 13 && memcmp(head, "VALID,ADDRESS", 13) == 0)
            format = RVT_FMT_SPIKE_CSV;
        else if (have >= 5 && memcmp(head, "core ", 5) == 0)
            format = RVT_FMT_SPIKE_LOG;
        else if (have >= 8 && memcmp(head, "itype_0,", 8) == 0)
            format = RVT_FMT_ENCODER_INPUT;
        else {
            rvt_retire_reader_close(r);
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "%s: unknown retirement format (expected .rvti, the reference CSV with its "
                                "VALID,ADDRESS,... header, or a spike commit log)",
                                path);
        }
    }
    r->format = format;
    if (format == RVT_FMT_RVTI) {
        rvt_zreader *rz = rvt_line_reader_detach(r->lines); /* (the bytes the sniff read, read again) */
        r->lines = NULL;
        rc = rz ? rvt_rvti_reader_open_z(&r->rvti, rz, diag) : RVT_E_NOMEM;
        if (rc) {
            rvt_retire_reader_close(r);
            return rc;
        }
        r->xlen = rvt_rvti_reader_xlen(r->rvti);
    } else if (format == RVT_FMT_ENCODER_INPUT) {
        char *line;
        rc = next_line(r, &line, diag);
        if (rc > 0)
            rc = parse_encoder_input_header(r, line, diag);
        if (rc <= 0) {
            rvt_retire_reader_close(r);
            return rc < 0 ? rc : rvt_diag_set(diag, RVT_E_FORMAT, "%s: empty encoder input", path);
        }
    } else if (format == RVT_FMT_SPIKE_CSV) {
        char *line;
        rc = next_line(r, &line, diag);
        if (rc <= 0 || strncmp(line, "VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT", 59) != 0) {
            rvt_retire_reader_close(r);
            return rc < 0 ? rc
                          : rvt_diag_set(diag, RVT_E_FORMAT,
                                         "%s: line 1: expected the header "
                                         "VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT",
                                         path);
        }
    }
    *out = r;
    return RVT_OK;
}

unsigned rvt_retire_reader_xlen(const rvt_retire_reader *r) { return r->xlen; }
enum rvt_retire_format rvt_retire_reader_format(const rvt_retire_reader *r) { return r->format; }

/* Completes the held instruction now that the next address is known. */
static void release_held(rvt_retire_reader *r, bool have_next, uint64_t next) {
    if (!r->have_held)
        return;
    uint32_t raw = r->held.insn;
    struct held_class *k = &r->classes[(raw * 0x9e3779b1u) >> 22];
    if (!k->valid || k->raw != raw) {
        rvt_insn in;
        rvt_decode(raw, r->xlen, &in);
        *k = (struct held_class){.raw = raw, .valid = true, .branch = in.cf == RVT_CF_BRANCH, .len = in.len,
                                 .itype = (uint8_t)rvt_itype(&in, false, 4, false),
                                 .itype_taken = (uint8_t)rvt_itype(&in, true, 4, false)};
    }
    bool taken = have_next && k->branch && next != r->held.iaddr + k->len;
    r->held.itype = taken ? k->itype_taken : k->itype;
    r->queue[r->nqueue++] = r->held;
    r->have_held = false;
}

static void hold_instruction(rvt_retire_reader *r, uint64_t pc, uint32_t insn, unsigned priv) {
    release_held(r, true, pc);
    unsigned len = rvt_insn_length((uint16_t)insn);
    r->held = (rvt_retire){.iaddr = pc, .insn = len == 2 ? insn & 0xffff : insn, .ninsns = 1,
                           .iretire = (uint16_t)(len / 2), .ilastsize = len == 4, .priv = (uint8_t)priv};
    r->have_held = true;
}

static void add_trap(rvt_retire_reader *r, uint64_t epc, uint32_t insn, uint64_t cause, uint64_t tval,
                     bool interrupt, unsigned priv) {
    release_held(r, true, epc);
    unsigned len = rvt_insn_length((uint16_t)insn);
    r->queue[r->nqueue++] = (rvt_retire){.iaddr = epc, .insn = insn, .cause = cause, .tval = tval,
                                         .ilastsize = len == 4, .priv = (uint8_t)priv,
                                         .itype = interrupt ? RVT_ITYPE_INTERRUPT : RVT_ITYPE_EXCEPTION};
}

/* Field parsers of our own: strtoull was half of the time spent reading a
 * spike CSV (locale, sign and whitespace handling, eight calls a line). A
 * number too wide for 64 bits is an error here, not a saturated value. */
#define X16 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
static const uint8_t hex_value[256] = {
    X16, X16, X16,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,         /* '0'..'9' */
    0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* 'A'..'F' */
    X16,
    0xff, 10, 11, 12, 13, 14, 15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* 'a'..'f' */
    X16, X16, X16, X16, X16, X16, X16, X16, X16,
};
#undef X16

static inline __attribute__((always_inline)) bool parse_hex(const char **p, uint64_t *v) {
    const unsigned char *s = (const unsigned char *)*p;
    if (s[0] == '0' && (s[1] | 0x20) == 'x')
        s += 2;
    if (hex_value[*s] > 15)
        return false;
    while (*s == '0')
        s++;
    const unsigned char *first = s;
    uint64_t x = 0;
    for (unsigned d; (d = hex_value[*s]) < 16; s++)
        x = x << 4 | d;
    if (s - first > 16)
        return false;
    *v = x;
    *p = (const char *)s;
    return true;
}

static bool parse_dec(const char **p, uint64_t *v) {
    const unsigned char *s = (const unsigned char *)*p;
    if ((unsigned)(*s - '0') >= 10u)
        return false;
    uint64_t x = 0;
    do {
        unsigned d = *s++ - '0';
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
    } while ((unsigned)(*s - '0') < 10u);
    *v = x;
    *p = (const char *)s;
    return true;
}

static int csv_line(rvt_retire_reader *r, char *line, rvt_diag *diag) {
    uint64_t f[8];
    const char *p = line;
    for (int i = 0; i < 8; i++) {
        if (!parse_hex(&p, &f[i]) || (i < 7 ? *p != ',' : (*p && *p != '\r')))
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "%s: line %" PRIu64 ": expected 8 comma-separated hex fields "
                                "(VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT), field %d is bad",
                                r->path, r->line, i + 1);
        p++;
    }
    if (!f[0])
        return 0; /* VALID = 0: no instruction on this row */
    if (f[2] > 0xffffffffu || f[3] > 3)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": INSN or PRIVILEGE out of range", r->path,
                            r->line);
    unsigned priv = (unsigned)f[3];
    if (f[4] && !f[7]) {
        add_trap(r, f[1], (uint32_t)f[2], f[5], f[6], false, priv);
    } else {
        hold_instruction(r, f[1], (uint32_t)f[2], priv);
        if (f[4] && f[7]) { /* the interrupt came after this instruction retired */
            release_held(r, false, 0);
            r->queue[r->nqueue++] = (rvt_retire){.cause = f[5], .tval = f[6], .priv = (uint8_t)priv,
                                                 .itype = RVT_ITYPE_INTERRUPT,
                                                 .iaddr = f[1] + (rvt_insn_length((uint16_t)f[2]))};
        }
    }
    return 0;
}

/* The reference flow's encoder input: one row per ingress-port block, the
 * ingress signals as columns named in the header (decimal except tval and
 * iaddr, which are hex). Rows are passed on as they are: a row with
 * iretire 0 and itype 1/2 is a trap record; one with iretire 0 and itype 0
 * retires nothing and is dropped. */
static int parse_encoder_input_header(rvt_retire_reader *r, char *line, rvt_diag *diag) {
    int *cols[] = {&r->col_itype, &r->col_cause, &r->col_tval, &r->col_priv, &r->col_iaddr, &r->col_context,
                   &r->col_time, &r->col_ctype, &r->col_sijump, &r->col_iretire, &r->col_ilastsize,
                   &r->col_halted, &r->col_reset, &r->col_trigger};
    static const char *const names[] = {"itype_0", "cause", "tval", "priv", "iaddr_0", "context", "time",
                                        "ctype", "sijump_0", "iretire_0", "ilastsize_0", "halted", "reset",
                                        "trigger"};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        *cols[i] = -1;
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(line, ",\r", &save); tok; tok = strtok_r(NULL, ",\r", &save), n++)
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
            if (!strcmp(tok, names[i]))
                *cols[i] = n;
    r->ncols = n;
    if (r->col_itype < 0 || r->col_iaddr < 0 || r->col_iretire < 0 || r->col_priv < 0)
        return rvt_diag_set(diag, RVT_E_FORMAT,
                            "%s: line 1: the header lacks itype_0, priv, iaddr_0 or iretire_0", r->path);
    return 1;
}

static int encoder_input_line(rvt_retire_reader *r, char *line, rvt_diag *diag) {
    uint64_t v[16] = {0};
    int n = 0;
    const char *p = line;
    while (n < 16) {
        bool hex = n == r->col_tval || n == r->col_iaddr;
        if (!(hex ? parse_hex(&p, &v[n]) : parse_dec(&p, &v[n])))
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": column %d is not a number", r->path,
                                r->line, n + 1);
        n++;
        if (*p != ',')
            break;
        p++;
    }
    if (n != r->ncols)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": %d columns, the header has %d", r->path,
                            r->line, n, r->ncols);
#define COL(c) ((c) >= 0 ? v[(c)] : 0)
    rvt_retire rec = {0};
    rec.itype = (uint8_t)COL(r->col_itype);
    rec.cause = COL(r->col_cause);
    rec.tval = COL(r->col_tval);
    rec.priv = (uint8_t)COL(r->col_priv);
    rec.iaddr = COL(r->col_iaddr);
    rec.context = COL(r->col_context);
    rec.time = COL(r->col_time);
    rec.ctype = (uint8_t)COL(r->col_ctype);
    rec.sijump = (uint8_t)COL(r->col_sijump);
    rec.ninsns = (uint32_t)COL(r->col_iretire);
    rec.ilastsize = (uint8_t)COL(r->col_ilastsize);
    rec.sideband = (uint8_t)((COL(r->col_halted) ? RVT_SIDEBAND_HALTED : 0) | (COL(r->col_reset) ? RVT_SIDEBAND_RESET : 0));
    uint64_t trigger = COL(r->col_trigger);
#undef COL
    if (rec.itype > 15 || rec.ninsns > 0xffff)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": itype or iretire out of range", r->path,
                            r->line);
    if (trigger > 7)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": trigger %" PRIu64 " (expected 0-7: bits "
                            "trace-on, trace-off, notify)", r->path, r->line, trigger);
    rec.trigger = (uint8_t)trigger;
    if (rec.itype == RVT_ITYPE_RESERVED)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": itype 7 is reserved (expected 0-6 or 8-15)",
                            r->path, r->line);
    if (rec.sideband) { /* the hart is halted or in reset: nothing retires */
        if (rec.ninsns || rec.itype)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "%s: line %" PRIu64 ": halted or reset with an instruction retiring (iretire %u, "
                                "itype %u); expected both 0",
                                r->path, r->line, (unsigned)rec.ninsns, (unsigned)rec.itype);
        r->queue[r->nqueue++] = (rvt_retire){.sideband = rec.sideband, .priv = rec.priv, .iaddr = rec.iaddr};
        return 0;
    }
    if (rec.ninsns == 0 && rec.itype == RVT_ITYPE_NONE)
        return 0; /* nothing retired and no trap: the row's other columns are undefined */
    rec.iretire = (uint16_t)(rec.ilastsize + 1); /* one instruction per row */
    /* Rows in the reference's convention become architectural records: an
     * interrupt row is an instruction that retired followed by the
     * interrupt; an ecall/ebreak row (retired, itype 1) is an exception
     * record. (The E-Trace encoder maps them back, see encoder.c.) */
    if (rec.itype == RVT_ITYPE_INTERRUPT && rec.ninsns == 0) {
        rvt_retire retired = rec;
        retired.itype = RVT_ITYPE_NONE;
        retired.ninsns = 1;
        retired.cause = retired.tval = 0;
        r->queue[r->nqueue++] = retired;
        rec.trigger = 0; /* (the instruction's) */
        rec.cause |= 1ull << (r->xlen - 1);
    } else if (rec.itype == RVT_ITYPE_EXCEPTION) {
        rec.ninsns = 0;
    }
    if (rec.ninsns == 0)
        rec.iretire = 0;
    r->queue[r->nqueue++] = rec;
    return 0;
}

static const struct {
    const char *name;
    unsigned cause;
} trap_names[] = {
    {"trap_instruction_address_misaligned", 0}, {"trap_instruction_access_fault", 1},
    {"trap_illegal_instruction", 2},            {"trap_breakpoint", 3},
    {"trap_load_address_misaligned", 4},        {"trap_load_access_fault", 5},
    {"trap_store_address_misaligned", 6},       {"trap_store_access_fault", 7},
    {"trap_user_ecall", 8},                     {"trap_supervisor_ecall", 9},
    {"trap_virtual_supervisor_ecall", 10},      {"trap_machine_ecall", 11},
    {"trap_instruction_page_fault", 12},        {"trap_load_page_fault", 13},
    {"trap_store_page_fault", 15},
};

bool rvt_spike_parse_exception(const char *p, unsigned xlen, uint64_t *cause, uint64_t *epc, bool *interrupt) {
    bool known = false;
    *interrupt = false;
    if (!strncmp(p, "interrupt #", 11)) {
        *cause = strtoull(p + 11, NULL, 10);
        *interrupt = known = true;
    } else if (!strncmp(p, "trap #", 6)) {
        *cause = strtoull(p + 6, NULL, 10);
        known = true;
    } else {
        for (size_t i = 0; i < sizeof trap_names / sizeof trap_names[0]; i++) {
            size_t n = strlen(trap_names[i].name);
            if (!strncmp(p, trap_names[i].name, n) && p[n] == ',') {
                *cause = trap_names[i].cause;
                known = true;
            }
        }
    }
    const char *e = strstr(p, "epc ");
    if (!known || !e || !(e += 4, parse_hex(&e, epc)))
        return false;
    if (*interrupt)
        *cause |= 1ull << (xlen - 1);
    return true;
}

static int log_line(rvt_retire_reader *r, char *line, rvt_diag *diag) {
    r->trap_awaits_tval = false;
    const char *p = strchr(line, ':');
    if (strncmp(line, "core", 4) != 0 || !p)
        return 0; /* program output or other messages interleaved with the log */
    p++;
    while (*p == ' ')
        p++;
    if (!strncmp(p, "exception ", 10)) {
        uint64_t cause = 0, epc = 0;
        bool interrupt = false;
        if (!rvt_spike_parse_exception(p + 10, r->xlen, &cause, &epc, &interrupt))
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": unrecognised exception line", r->path,
                                r->line);
        uint32_t insn = !interrupt && r->fetched_pc == epc ? r->fetched_insn : 0;
        add_trap(r, epc, insn, cause, 0, interrupt, r->priv);
        r->trap_awaits_tval = !interrupt; /* spike logs the tval on a line of its own */
        return 0;
    }
    if (!strncmp(p, "tval ", 5)) {
        p += 5;
        uint64_t tval;
        if (r->nqueue && r->queue[r->nqueue - 1].ninsns == 0 && parse_hex(&p, &tval))
            r->queue[r->nqueue - 1].tval = tval;
        return 0;
    }
    /* "PRIV 0xPC (0xINSN) ..." is a commit; "0xPC (0xINSN) disasm" a fetch (-l). */
    unsigned priv = r->priv;
    bool commit = false;
    if (isdigit((unsigned char)p[0]) && p[1] == ' ') {
        priv = (unsigned)(p[0] - '0');
        commit = true;
        p += 2;
    }
    uint64_t pc, insn;
    if (!parse_hex(&p, &pc))
        return 0;
    while (*p == ' ')
        p++;
    if (*p != '(' || (p++, !parse_hex(&p, &insn)) || *p != ')')
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": expected '(0xINSN)' after the address",
                            r->path, r->line);
    if (r->xlen == 32)
        pc = (uint32_t)pc;
    if (commit) {
        if (priv > 3)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": privilege %u", r->path, r->line, priv);
        r->priv = priv;
        hold_instruction(r, pc, (uint32_t)insn, priv);
    } else {
        r->fetched_pc = pc;
        r->fetched_insn = (uint32_t)insn;
    }
    return 0;
}

long rvt_retire_reader_read(rvt_retire_reader *r, rvt_retire *out, size_t max, rvt_diag *diag) {
    if (r->rvti)
        return rvt_rvti_read(r->rvti, out, max, diag);
    size_t n = 0;
    while (n < max) {
        if (r->nqueue > (r->trap_awaits_tval ? 1u : 0u)) {
            out[n++] = r->queue[0];
            memmove(r->queue, r->queue + 1, (r->nqueue - 1) * sizeof r->queue[0]);
            r->nqueue--;
            continue;
        }
        char *line;
        int rc = next_line(r, &line, diag);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            r->trap_awaits_tval = false;
            release_held(r, false, 0);
            if (!r->nqueue)
                break;
            continue;
        }
        if (!*line || *line == '\r')
            continue;
        rc = r->format == RVT_FMT_SPIKE_CSV       ? csv_line(r, line, diag)
             : r->format == RVT_FMT_ENCODER_INPUT ? encoder_input_line(r, line, diag)
                                                  : log_line(r, line, diag);
        if (rc)
            return rc;
    }
    return (long)n;
}

void rvt_retire_reader_close(rvt_retire_reader *r) {
    if (!r)
        return;
    rvt_rvti_reader_close(r->rvti);
    rvt_line_reader_close(r->lines);
    free(r->path);
    free(r);
}
