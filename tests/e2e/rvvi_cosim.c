/* A testbench in C for the RVVI-API: it plays a device whose retirements
 * come from spike's commit log (converted to the tandem protocol) or from a
 * tandem trace, and checks the reference through the API as an HDL
 * testbench would: per event the DUT's register writes, rvviDutRetire or
 * rvviDutTrap, rvviRefEventStep, and the compares. A clean run must have no
 * mismatch; each injected fault must be reported at its own event, first.
 *
 * usage: rvvi_cosim ELF (--spike-log LOG | --tandem TRACE) [--options FILE] [--faults N] [--seed S]
 *                   [--max-events N] [--dump-events FILE --dump-count N]
 * --max-events the first N events only (sanitizer builds)
 * --options    spike's machine options per program (spike_trace_options.txt)
 * --faults N   per kind (gpr: a wrong register value; pc: a wrong pc;
 *              insn: wrong instruction bits; csr: a wrong CSR value; trap: a
 *              trap reported as a retirement), N events of the kind at
 *              random, each played from a fresh reference up to it
 * --dump-events writes the first N events as lines for the Verilator
 *              testbench, in hex: first "tohost fromhost spike_log", then
 *              per event "trap pc insn nwrites {reg value}..." (trap 0 or 1),
 *              and "2 address value size" for a write by the device's host */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/common.h"
#include "rvtrace/image.h"
#include "rvtrace/rvvi.h"
#include "rvtrace/tandem.h"

typedef struct write {
    uint16_t reg; /* tandem register address: CSR, 0x1000 + x, 0x1020 + f */
    uint64_t value;
} write;

/* What the device's platform did outside the hart before an event: a write
 * to memory (spike's host answering a system call; size 1..8), or the
 * interrupt lines it drives, as mip shows them (size 0). */
typedef struct host_write {
    uint64_t addr, value;
    unsigned size;
} host_write;

enum { CSR_MIP = 0x344 };

typedef struct event {
    bool trap, interrupt;
    bool volatile_read; /* what it read the reference takes from the device: a fault there is not one */
    uint64_t pc;
    uint32_t insn;
    size_t first_write, nwrites;
    size_t first_host, nhost;
} event;

typedef struct stream {
    event *ev;
    size_t n, cap;
    write *w;
    size_t nw, capw;
    host_write *h;
    size_t nh, caph;
} stream;

typedef struct buffer {
    uint8_t *data;
    size_t len, cap;
} buffer;

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    if (!q) {
        fprintf(stderr, "rvvi_cosim: out of memory\n");
        exit(2);
    }
    *cap = c;
    return q;
}

static int to_buffer(void *user, const uint8_t *bytes, size_t len) {
    buffer *b = user;
    b->data = grow(b->data, &b->cap, b->len + len, 1);
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
    return 0;
}

enum { CSR_MEPC = 0x341, CSR_MCAUSE = 0x342, CSR_SEPC = 0x141, CSR_SCAUSE = 0x142 };

static const char *program;
static uint64_t tohost, fromhost;
static bool has_tohost, has_fromhost;

static bool in_host_window(uint64_t addr) {
    return (has_tohost && addr - tohost < 8) || (has_fromhost && addr - fromhost < 8);
}

/* Free-running counters: their value is the DUT's. */
static const char *const counters[] = {"cycle", "time", "instret", "mcycle", "minstret",
                                       "cycleh", "timeh", "instreth", "mcycleh", "minstreth"};

static bool counter_csr(unsigned csr) {
    char name[32];
    rvt_tv_reg_name(csr, name, sizeof name);
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
        if (!strcmp(name, counters[i]))
            return true;
    return false;
}

static bool counter_read(uint32_t insn, unsigned len) {
    unsigned f3 = (insn >> 12) & 7;
    if (len != 4 || (insn & 0x7f) != 0x73 || f3 == 0 || f3 == 4)
        return false;
    return counter_csr(insn >> 20);
}

/* Groups into events: an instruction group is a retirement, or a trap when
 * it writes xepc with its own pc and xcause; a group without an instruction
 * that writes xcause is a trap before one (an interrupt, a fetch fault, a
 * breakpoint). Reset and initialisation
 * groups only give the pc. */
static int parse(const buffer *b, unsigned xlen, uint64_t reset_pc, stream *s) {
    rvt_tv_params p;
    rvt_tv_params_default(&p, xlen);
    rvt_tv_reader *r = NULL;
    rvt_diag d = {0};
    if (rvt_tv_reader_new(&r, &p, &d) != RVT_OK)
        return -1;
    rvt_tv_reader_feed(r, b->data, b->len);
    uint64_t pc = reset_pc;
    bool volatile_read = false;
    bool in_group = false, has_insn = false, has_pc = false, incr = false, setup = false;
    uint32_t insn = 0;
    unsigned len = 0;
    uint64_t new_pc = 0;
    size_t first = 0, first_host = 0;
    rvt_tv_record rec;
    int rc;
    bool more = true;
    while (more) {
        rc = rvt_tv_reader_next(r, &rec, &d);
        if (rc < 0) {
            fprintf(stderr, "rvvi_cosim: trace: %s\n", d.msg);
            rvt_tv_reader_free(r);
            return -1;
        }
        more = rc > 0;
        bool closes = !more || rec.opcode == RVT_TV_BEGIN || rec.opcode == RVT_TV_END;
        if (closes && in_group) {
            bool xepc_here = false, cause = false, irq = false;
            for (size_t i = first; i < s->nw; i++) {
                uint16_t g = s->w[i].reg;
                if ((g == CSR_MEPC || g == CSR_SEPC) && s->w[i].value == pc)
                    xepc_here = true;
                if (g == CSR_MCAUSE || g == CSR_SCAUSE) {
                    cause = true;
                    irq = s->w[i].value >> (xlen - 1) & 1;
                }
            }
            if (!setup && (has_insn || cause)) {
                s->ev = grow(s->ev, &s->cap, s->n + 1, sizeof *s->ev);
                s->ev[s->n++] = (event){.volatile_read = volatile_read || counter_read(insn, len),.trap = !has_insn || (xepc_here && cause), .interrupt = !has_insn && irq,
                                        .pc = pc, .insn = insn, .first_write = first, .nwrites = s->nw - first,
                                        .first_host = first_host, .nhost = s->nh - first_host};
                first_host = s->nh;
            } else {
                s->nw = first; /* nothing the DUT reports */
            }
            if (has_pc)
                pc = new_pc;
            else if (incr)
                pc += len;
            in_group = false;
        }
        if (!more)
            break;
        switch (rec.opcode) {
        case RVT_TV_BEGIN:
            in_group = true;
            has_insn = has_pc = incr = setup = volatile_read = false;
            first = s->nw;
            break;
        case RVT_TV_RESET: case RVT_TV_INIT: setup = true; break;
        case RVT_TV_INSN16: case RVT_TV_INSN32:
            has_insn = true;
            insn = rec.insn;
            len = rec.opcode == RVT_TV_INSN16 ? 2 : 4;
            break;
        case RVT_TV_INCR_PC: incr = true; break;
        case RVT_TV_STATE:
            if (rec.id == RVT_TV_PC) {
                has_pc = true;
                new_pc = rec.value;
            }
            break;
        case RVT_TV_MEM_REQ:
            if (!rvt_tv_request_has_data(rec.memop) || rec.memop >= RVT_TV_AMOSWAP)
                volatile_read |= in_host_window(rec.addr);
            if (in_group && setup && rvt_tv_request_has_data(rec.memop)) {
                s->h = grow(s->h, &s->caph, s->nh + 1, sizeof *s->h);
                s->h[s->nh++] = (host_write){rec.addr, rec.value, 1u << rec.size};
            }
            break;
        case RVT_TV_REG:
            if (rec.reg == CSR_MIP) {
                s->h = grow(s->h, &s->caph, s->nh + 1, sizeof *s->h);
                s->h[s->nh++] = (host_write){CSR_MIP, rec.value, 0};
            }
            if (in_group && rec.reg < RVT_TV_REG_END) {
                s->w = grow(s->w, &s->capw, s->nw + 1, sizeof *s->w);
                s->w[s->nw++] = (write){rec.reg, rec.value};
            }
            break;
        default: break;
        }
    }
    rc = rvt_tv_reader_finish(r, &d);
    rvt_tv_reader_free(r);
    if (rc != RVT_OK) {
        fprintf(stderr, "rvvi_cosim: trace: %s\n", d.msg);
        return -1;
    }
    return 0;
}

enum fault_kind { FAULT_NONE, FAULT_GPR, FAULT_PC, FAULT_INSN, FAULT_CSR, FAULT_TRAP, NKINDS };
static const char *const kind_names[] = {"none", "gpr", "pc", "insn", "csr", "trap"};

static bool gpr_write(const write *w) { return w->reg > RVT_TV_REG_GPR && w->reg < RVT_TV_REG_FPR; }
static bool spike_log;
/* A CSR write the testbench has the reference compare (set_up). */
static bool csr_write(const write *w) {
    return w->reg < RVT_TV_REG_GPR && !(spike_log && (w->reg == 0x300 || w->reg == 0x100)) && !counter_csr(w->reg);
}

static bool fault_fits(const stream *s, size_t i, int kind) {
    const event *e = &s->ev[i];
    if (e->volatile_read && kind == FAULT_GPR)
        return false;
    for (size_t k = 0; k < e->nwrites; k++) {
        const write *w = &s->w[e->first_write + k];
        if ((kind == FAULT_GPR && gpr_write(w)) || (kind == FAULT_CSR && csr_write(w)))
            return true;
    }
    if (kind == FAULT_PC || kind == FAULT_INSN)
        return !e->trap;
    if (kind == FAULT_TRAP)
        return e->trap && !e->interrupt;
    return false;
}

static long pmp_regions = -1;

/* The machine options spike ran the program with (spike_trace_options.txt:
 * "NAME OPTION..."): --pmpregions N is the one there is. */
static int read_options(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "rvvi_cosim: cannot read %s\n", path);
        return -1;
    }
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    size_t blen = strcspn(base, ".");
    char line[512];
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\n")] = 0;
        char *name = strtok(line, " \t");
        if (!name || strlen(name) != blen || strncmp(name, base, blen) != 0)
            continue;
        for (char *opt = strtok(NULL, " \t"); opt; opt = strtok(NULL, " \t")) {
            char *arg = strtok(NULL, " \t");
            if (!strcmp(opt, "--pmpregions") && arg) {
                pmp_regions = strtol(arg, NULL, 0);
            } else {
                fprintf(stderr, "rvvi_cosim: %s: option %s is not one this testbench sets\n", path, opt);
                rc = -1;
            }
        }
    }
    fclose(f);
    return rc;
}
/* A testbench's set-up: what its DUT's platform has that the reference
 * must not model on its own. */
static bool set_up(void) {
    if (pmp_regions >= 0 && !rvviRefConfigSetInt(RVT_RVVI_CONFIG_PMP_REGIONS, (uint64_t)pmp_regions)) {
        fprintf(stderr, "rvvi_cosim: %s\n", rvviErrorGet());
        return false;
    }
    if (!rvviRefInit(program)) {
        fprintf(stderr, "rvvi_cosim: rvviRefInit: %s\n", rvviErrorGet());
        return false;
    }
    /* The host answers HTIF in the DUT's world: what the program loads from
     * tohost and fromhost is the DUT's. */
    if (has_tohost)
        rvviRefMemorySetVolatile(tohost, tohost + 7);
    if (has_fromhost)
        rvviRefMemorySetVolatile(fromhost, fromhost + 7);
    /* The device's CLINT (spike's, at 0x2000000) keeps its own time. */
    rvviRefMemorySetVolatile(0x2000000, 0x200ffff);
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        uint32_t c = rvviRefCsrIndex(0, counters[i]);
        if (c != (uint32_t)RVVI_INVALID_INDEX)
            rvviRefCsrSetVolatile(0, c);
    }
    if (spike_log) {
        /* spike logs no mstatus change of a trap, an xRET or an FP
         * instruction: its logged value goes stale. */
        rvviRefCsrCompareEnable(0, 0x300, RVVI_FALSE);
        rvviRefCsrCompareEnable(0, 0x100, RVVI_FALSE);
    }
    return true;
}

/* The interrupt lines a platform drives: mip's bits, the nets' names. */
static const struct {
    const char *net;
    unsigned bit;
} lines[] = {{"MSWInterrupt", 3}, {"MTimerInterrupt", 7}, {"SExternalInterrupt", 9}, {"MExternalInterrupt", 11}};

/* Plays events [0, upto) with `fault` at event `at`; returns the index of
 * the first event with a mismatch (or a failed step), or SIZE_MAX. */
static size_t play(const stream *s, size_t upto, int fault, size_t at) {
    if (!set_up())
        return 0;
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < upto && bad == SIZE_MAX; i++) {
        const event *e = &s->ev[i];
        for (size_t k = 0; k < e->nhost; k++) {
            const host_write *h = &s->h[e->first_host + k];
            if (h->size)
                rvviRefMemoryWrite(0, h->addr, h->value, h->size);
            else {
                for (size_t n = 0; n < sizeof lines / sizeof lines[0]; n++)
                    rvviRefNetSet(rvviRefNetIndexGet(lines[n].net), h->value >> lines[n].bit & 1, i);
                rvviDutCsrSet(0, CSR_MIP, h->value);
            }
        }
        bool faulted = false;
        for (size_t k = 0; k < e->nwrites; k++) {
            const write *w = &s->w[e->first_write + k];
            uint64_t v = w->value;
            if (i == at && !faulted && ((fault == FAULT_GPR && gpr_write(w)) || (fault == FAULT_CSR && csr_write(w)))) {
                v ^= 1;
                faulted = true;
            }
            if (w->reg < RVT_TV_REG_GPR)
                rvviDutCsrSet(0, w->reg, v);
            else if (w->reg < RVT_TV_REG_FPR)
                rvviDutGprSet(0, w->reg - RVT_TV_REG_GPR, v);
            else
                rvviDutFprSet(0, w->reg - RVT_TV_REG_FPR, v);
        }
        uint64_t pc = e->pc + (i == at && fault == FAULT_PC ? 4 : 0);
        uint64_t insn = e->insn ^ (i == at && fault == FAULT_INSN ? 1u << 2 : 0);
        if (e->trap && !(i == at && fault == FAULT_TRAP))
            rvviDutTrap(0, pc, insn);
        else
            rvviDutRetire(0, pc, insn, RVVI_FALSE);
        bool ok = rvviRefEventStep(0);
        ok &= rvviRefPcCompare(0);
        ok &= rvviRefInsBinCompare(0);
        ok &= rvviRefGprsCompareWritten(0, RVVI_TRUE);
        ok &= rvviRefGprsCompare(0);
        ok &= rvviRefFprsCompare(0);
        ok &= rvviRefCsrsCompare(0);
        if (!ok)
            bad = i;
    }
    return bad;
}

static uint64_t rng_state;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The reference and the events, given back (LeakSanitizer checks the
 * sanitizer build's runs, --dump-events ones too). */
static void finish(stream *s) {
    rvviRefShutdown();
    free(s->ev);
    free(s->w);
    free(s->h);
}

static int dump_events(const stream *s, const char *path, size_t count) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "rvvi_cosim: cannot write %s\n", path);
        return 2;
    }
    if (count > s->n)
        count = s->n;
    fprintf(f, "%" PRIx64 " %" PRIx64 " %d\n", has_tohost ? tohost : 0, has_fromhost ? fromhost : 0, spike_log ? 1 : 0);
    for (size_t i = 0; i < count; i++) {
        const event *e = &s->ev[i];
        for (size_t k = 0; k < e->nhost; k++)
            fprintf(f, "2 %" PRIx64 " %" PRIx64 " %x\n", s->h[e->first_host + k].addr, s->h[e->first_host + k].value,
                    s->h[e->first_host + k].size);
        fprintf(f, "%d %" PRIx64 " %" PRIx32 " %zx", e->trap ? 1 : 0, e->pc, e->insn, e->nwrites);
        for (size_t k = 0; k < e->nwrites; k++)
            fprintf(f, " %x %" PRIx64, s->w[e->first_write + k].reg, s->w[e->first_write + k].value);
        fputc('\n', f);
    }
    return fclose(f) == 0 ? 0 : 2;
}

int main(int argc, char **argv) {
    const char *log = NULL, *trace = NULL, *dump = NULL, *options = NULL;
    unsigned faults = 0;
    size_t dump_count = 0, max_events = 0;
    rng_state = 0x9e3779b97f4a7c15ull;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spike-log") && i + 1 < argc)
            log = argv[++i];
        else if (!strcmp(argv[i], "--tandem") && i + 1 < argc)
            trace = argv[++i];
        else if (!strcmp(argv[i], "--options") && i + 1 < argc)
            options = argv[++i];
        else if (!strcmp(argv[i], "--max-events") && i + 1 < argc)
            max_events = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--faults") && i + 1 < argc)
            faults = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng_state ^= strtoull(argv[++i], NULL, 0) | 1;
        else if (!strcmp(argv[i], "--dump-events") && i + 1 < argc)
            dump = argv[++i];
        else if (!strcmp(argv[i], "--dump-count") && i + 1 < argc)
            dump_count = strtoul(argv[++i], NULL, 0);
        else if (argv[i][0] != '-' && !program)
            program = argv[i];
        else {
            fprintf(stderr, "usage: rvvi_cosim ELF (--spike-log LOG | --tandem TRACE) [--options FILE] [--faults N] [--seed S]\n"
                            "                  [--max-events N]\n"
                            "                  [--dump-events FILE --dump-count N]\n");
            return 2;
        }
    }
    if (!program || !!log == !!trace) {
        fprintf(stderr, "rvvi_cosim: an ELF and one of --spike-log, --tandem\n");
        return 2;
    }
    if (options && read_options(options) != 0)
        return 2;
    if (!rvviVersionCheck(RVVI_API_VERSION)) {
        fprintf(stderr, "rvvi_cosim: %s\n", rvviErrorGet());
        return 1;
    }
    rvt_image *img = NULL;
    rvt_diag d = {0};
    if (rvt_image_new(&img) != RVT_OK || rvt_image_load_elf(img, program, 0, &d) != RVT_OK) {
        fprintf(stderr, "rvvi_cosim: %s: %s\n", program, d.msg);
        return 2;
    }
    unsigned xlen = rvt_image_xlen(img);
    has_tohost = rvt_image_symbol_addr(img, "tohost", &tohost);
    has_fromhost = rvt_image_symbol_addr(img, "fromhost", &fromhost);
    rvt_image_free(img);

    buffer b = {0};
    spike_log = log != NULL;
    if (log) {
        rvt_tv_params p;
        rvt_tv_params_default(&p, xlen);
        uint64_t groups = 0;
        if (rvt_tv_convert_spike_log(log, &p, 0, to_buffer, &b, &groups, &d) != RVT_OK) {
            fprintf(stderr, "rvvi_cosim: %s: %s\n", log, d.msg);
            return 2;
        }
    } else {
        rvt_zreader *z = NULL;
        if (rvt_zreader_open(&z, trace, &d) != RVT_OK) {
            fprintf(stderr, "rvvi_cosim: %s: %s\n", trace, d.msg);
            return 2;
        }
        uint8_t chunk[65536];
        long got;
        while ((got = rvt_zreader_read(z, chunk, sizeof chunk, &d)) > 0)
            to_buffer(&b, chunk, (size_t)got);
        rvt_zreader_close(z);
        if (got < 0) {
            fprintf(stderr, "rvvi_cosim: %s: %s\n", trace, d.msg);
            return 2;
        }
    }
    /* Both sources give each instruction's new pc, not the first one: the
     * device starts at its reset vector, which is spike's boot ROM, as the
     * reference's is. */
    if (!set_up())
        return 2;
    uint64_t reset_pc = rvviRefPcGet(0);
    stream s = {0};
    if (parse(&b, xlen, reset_pc, &s) != 0)
        return 2;
    free(b.data);
    if (!s.n) {
        fprintf(stderr, "rvvi_cosim: no events in the trace\n");
        return 1;
    }
    if (max_events && s.n > max_events)
        s.n = max_events;
    if (dump) {
        int rc = dump_events(&s, dump, dump_count);
        finish(&s);
        return rc;
    }

    size_t traps = 0;
    for (size_t i = 0; i < s.n; i++)
        traps += s.ev[i].trap;
    rvviRefConfigSetString(RVT_RVVI_CONFIG_REPORT, "-");
    size_t bad = play(&s, s.n, FAULT_NONE, SIZE_MAX);
    printf("%s: %zu events (%zu traps), retires %" PRIu64 ", traps %" PRIu64 ", pc comparisons %" PRIu64
           ", mismatches %" PRIu64 "\n",
           program, s.n, traps, rvviRefMetricGet(RVVI_METRIC_RETIRES), rvviRefMetricGet(RVVI_METRIC_TRAPS),
           rvviRefMetricGet(RVVI_METRIC_COMPARISONS_PC), rvviRefMetricGet(RVVI_METRIC_MISMATCHES));
    int status = 0;
    if (bad != SIZE_MAX) {
        fprintf(stderr, "FAIL %s: clean run: mismatch at event %zu (pc %#" PRIx64 ")\n", program, bad, s.ev[bad].pc);
        status = 1;
    }
    unsigned injected = 0, caught = 0;
    for (int kind = FAULT_GPR; kind < NKINDS && status == 0; kind++) {
        size_t eligible = 0;
        for (size_t i = 0; i < s.n; i++)
            eligible += fault_fits(&s, i, kind);
        for (unsigned f = 0; f < faults && eligible; f++) {
            size_t pick = next_random() % eligible, at = 0;
            for (size_t i = 0; i < s.n; i++)
                if (fault_fits(&s, i, kind) && pick-- == 0) {
                    at = i;
                    break;
                }
            rvviRefConfigSetString(RVT_RVVI_CONFIG_REPORT, "");
            size_t got = play(&s, at + 1, kind, at);
            injected++;
            if (got == at) {
                caught++;
            } else {
                fprintf(stderr, "FAIL %s: %s fault at event %zu (pc %#" PRIx64 ") reported at %s\n", program,
                        kind_names[kind], at, s.ev[at].pc, got == SIZE_MAX ? "no event" : "another event");
                status = 1;
            }
        }
    }
    if (faults)
        printf("%s: faults injected %u, each reported at its event: %u\n", program, injected, caught);
    finish(&s);
    return status;
}
