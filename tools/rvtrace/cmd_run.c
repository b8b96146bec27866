/* rvtrace run: execute a program on the hart model and write its
 * retirement stream in the requested formats. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "commands.h"
#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"
#include "rvtrace/isa.h"

static void run_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace run [OPTIONS] PROGRAM.elf\n"
            "\n"
            "Run a bare-metal RISC-V program on the hart model: the machine spike gives it\n"
            "(boot ROM at 0x1000, RAM, CLINT, HTIF console and exit through tohost). The\n"
            "program's console output goes to standard output and rvtrace exits with the\n"
            "program's exit code when that is 0 or 4..255 other than 124, 130 and 143;\n"
            "any other code (1, 2, 3, which mean error, usage and trace lost, 124, 130,\n"
            "143, which mean a time-out and a signal, one past 255, a negative one) is\n"
            "reported on standard error and the exit is 1. A run that does not end stops\n"
            "with the hart's pc and its last trap: exit 124 at --max-insns, exit 1 when a\n"
            "hart takes 1000 traps in a row without retiring an instruction (a trap\n"
            "handler that cannot run). At --max-insns the machine then runs on 64 Ki\n"
            "instructions, writing nothing, to say whether hart 0 is in a loop (where,\n"
            "and whether a pass leaves its registers unchanged) or was about to end,\n"
            "and the machine's options are spelled out. The outputs are written whole\n"
            "or not at all.\n"
            "The program file is at most 1 GiB; --firmware and --initrd at most the RAM.\n"
            "The model and where it can differ from spike: docs/hart.md.\n"
            "\n"
            "The machine (rvtrace verify takes the same options, to check a --tandem trace\n"
            "of the run on the machine it ran on):\n"
            "%s"
            "\n"
            "Options:\n"
            "  --spike-csv FILE   write the retired instructions as the corpus spike CSV\n"
            "  --pcs FILE         write the retired-PC list (one hex address per line)\n"
            "  --rows-hart N      the hart --spike-csv and --pcs list (default 0)\n"
            "  --retire FILE      write the retirement stream as .rvti (docs/formats.md)\n"
            "  --etrace FILE      encode the run with E-Trace, write the raw te_inst stream\n"
            "  --scf FILE, --ucf FILE   E-Trace hardware configuration and options\n"
            "                     (default: RV XLEN addresses, 4-bit itype, delta address)\n"
            "  --v1               E-Trace 1.0 packet layout (default: the ratified 2.0\n"
            "                     layout), as encode, decode and dump take it\n"
            "  --ntrace FILE      encode the run with N-Trace, write the Nexus messages as MSEO\n"
            "                     bytes; with the N-Trace encoder options of encode --help\n"
            "                     (--btm, --call-stack N, --repeat-history N, ...)\n"
            "                     With -p N, each hart is a trace source of its own:\n"
            "                     E-Trace in the example encapsulation with the hart as\n"
            "                     its 1-byte source index (decode --encap\n"
            "                     --encap-index-bytes 1), N-Trace with the hart in SRC\n"
            "                     (--src-bits wide enough unless given)\n"
            "                     The encoders and --spike-csv/--pcs/--retire writers run\n"
            "                     on a second thread beside the hart\n"
            "  --blocks           .rvti with the multiple-retire interface: one record per\n"
            "                     run of sequential instructions (cannot be combined with\n"
            "                     --spike-csv or --pcs, which need one row per instruction)\n"
            "  --tandem FILE      write the tandem-verification trace (docs/formats.md):\n"
            "                     a reset group, the program image as state-initialisation\n"
            "                     groups, then one group per instruction and trap\n"
            "  --tandem-fields LIST  a partial trace: only these kinds of records, from\n"
            "                     gpr, fpr, csr, pc, insn, priv, mem, addr, mtime, init\n"
            "                     (\"all,-mem\": everything but memory requests)\n"
            "  --tandem-incremental  use the incremental register forms where they fit\n"
            "  --tandem-omit-end  leave out end-group records a begin group implies\n"
            "  --flen N, --mlen N the tandem trace's FLEN and MLEN (default 64, and MLEN\n"
            "                     34 for RV32 programs)\n"
            "  --dump-dtb FILE    write the machine's device tree (.dtb; --sbi, --firmware)\n"
            "                     and stop without running\n"
            "  --console-input FILE  what the UART receives (--sbi, --firmware): standard\n"
            "                     input by default (a terminal is read key by key, without\n"
            "                     echo; Ctrl-C still ends rvtrace), a file or FIFO, or none\n"
            "  --ctr-enable MODES switch CTR recording on at reset for the modes among M,\n"
            "                     S and U (e.g. MSU), as a profiler would; default filters\n"
            "  --ctr-depth N      with --ctr-enable: the buffer depth (default the smallest)\n"
            "  --ctr-dump FILE    write the CTR entries at the end of the run as CSV:\n"
            "                     entry,source,target,type,misp,cycles (entry 0 youngest)\n"
            "  --sample-branches PERIOD  every PERIOD retired instructions, write the\n"
            "                     branch stack (CTR, youngest first) as `perf script -F\n"
            "                     ip,brstack` lines to the -o FILE; needs CTR recording on\n"
            "                     (--ctr-enable, or the program's own set-up)\n"
            "  --sample-symbols   samples as `perf script -F ip,brstacksym` instead\n"
            "  -o FILE            where --sample-branches writes\n"
            "  --pmu-events LIST  program mhpmcounter3.. at reset to count these events\n"
            "                     (cycles, instructions, branches, ref-cycles,\n"
            "                     cond-branches, taken-branches, jumps, loads, stores,\n"
            "                     amos, exceptions, interrupts; with --dc, --ic, --l2 the\n"
            "                     cache events L1-dcache-loads, L1-dcache-load-misses,\n"
            "                     L1-dcache-stores, L1-dcache-store-misses,\n"
            "                     L1-icache-loads, L1-icache-load-misses, LLC-loads,\n"
            "                     LLC-load-misses, LLC-stores, LLC-store-misses;\n"
            "                     docs/pmu.md), as perf stat\n"
            "  --pmu-report FILE  the counters when the program stored its exit code, as\n"
            "                     CSV counter,event,value (mcycle, minstret and every\n"
            "                     programmed mhpmcounter); '-': a perf stat summary on\n"
            "                     standard error\n"
            "  --max-insns N      stop after N retired instructions (default 10000000000)\n"
            "  -q, --quiet        no progress line (shown on a terminal for runs over a second)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Example: rvtrace run --spike-csv dhrystone.csv dhrystone.riscv\n",
            machine_option_help);
    fprintf(out, "\n%s", exit_status_help);
}

/* The .rvti gets the run as it happened; the row formats and the encoders get
 * it through the reference filter, so they equal the reference traces.
 * The .rvti writer, the filter and everything behind it run on a second
 * thread, fed through a relay (on the hart's, records would be packed only
 * to be unpacked there). An encoder there that takes blocks apart (E-Trace; N-Trace with a
 * bounded I-CNT) reads the code of the program's image
 * (decoded beforehand, read-only while the hart runs); the first block the
 * image does not hold would need the hart's memory, which only the hart's
 * thread may read, so the relay is then drained and closed and the rest
 * goes straight from the hart. */
enum { RUN_UNPACKED = 256, RUN_MAX_SOURCES = 16 };
struct fanout;
/* One hart's way to the encoders: its own reference filter and encoders, as
 * a trace source of its own (E-Trace: the encapsulation's source index;
 * N-Trace: SRC), all writing into the same files. */
struct hart_lane {
    struct fanout *f;
    unsigned hart;
    rvt_ref_filter *filter;
    rvt_etrace_encoder *etrace;
    rvt_ntrace_encoder *ntrace;
    byte_file *te;  /* where etrace writes */
    bool te_index;  /* with the hart as a 1-byte source index */
};
struct fanout {
    rvt_rvti_writer *rvti;
    rvt_row_writer *csv, *pcs;
    unsigned rows_hart; /* the hart the row formats list */
    struct hart_lane lanes[RUN_MAX_SOURCES];
    unsigned nlanes;
    rvt_retire_relay *relay;
    int relay_error; /* the relay's, once closed early */
    bool reads_code; /* an encoder behind the relay reads the image's code */
    rvt_machine *m;
    program_code *fetch; /* what the encoders read the code from */
    rvt_retire unpacked[RUN_UNPACKED]; /* records unpacked on the hart's thread */
    rvt_packed_state unpacked_state;   /* the packed stream's, as unpacked there */
};

static int run_reference_sink(void *user, const rvt_retire *recs, size_t n) {
    struct hart_lane *l = user;
    struct fanout *f = l->f;
    int rc = 0;
    if ((f->csv || f->pcs) && l->hart == f->rows_hart) {
        /* the row writers list hart 0's records: another hart's pass as such */
        for (size_t i = 0; i < n;) {
            rvt_retire as0[RUN_UNPACKED];
            size_t k = n - i < RUN_UNPACKED ? n - i : RUN_UNPACKED;
            const rvt_retire *rows = recs + i;
            if (l->hart) {
                memcpy(as0, recs + i, k * sizeof *as0);
                for (size_t j = 0; j < k; j++)
                    as0[j].hart = 0;
                rows = as0;
            }
            if (f->csv)
                rc |= rvt_row_writer_sink(f->csv, rows, k);
            if (f->pcs)
                rc |= rvt_row_writer_sink(f->pcs, rows, k);
            i += k;
        }
    }
    if (l->etrace)
        rc |= rvt_etrace_encoder_push(l->etrace, recs, n);
    if (l->ntrace)
        rc |= rvt_ntrace_encoder_push(l->ntrace, recs, n);
    return rc;
}

/* The hart writes its records straight into the relay's batches. */
static rvt_retire_packed *run_record_space(void *user, size_t *cap) {
    struct fanout *f = user;
    return f->relay ? rvt_retire_relay_space(f->relay, cap) : NULL;
}

static int write_te_packet(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len) {
    (void)pkt;
    struct hart_lane *l = user;
    if (!l->te_index) {
        size_t n = rvt_te_raw_frame(payload, len, byte_file_room(l->te, 32));
        return n ? byte_file_wrote(l->te, n) : RVT_E_RANGE;
    }
    /* the example encapsulation: header, the source index (the hart), payload */
    if (len == 0 || len > 31)
        return RVT_E_RANGE;
    uint8_t *at = byte_file_room(l->te, 33);
    at[0] = (uint8_t)(RVT_TE_MSG_TYPE_INST << 5 | len);
    at[1] = (uint8_t)l->hart;
    memcpy(at + 2, payload, len);
    return byte_file_wrote(l->te, len + 2);
}

/* The records, in order: as they are to the .rvti writer, through the
 * reference filter to the rest. On the relay's thread, or on the hart's
 * without a relay. */
static int run_stream_sink(void *user, const rvt_retire *recs, size_t n) {
    struct fanout *f = user;
    int rc = 0;
    if (f->rvti)
        rc |= rvt_rvti_writer_sink(f->rvti, recs, n);
    if (f->nlanes == 1)
        return rc | (f->lanes[0].filter ? rvt_ref_filter_sink(f->lanes[0].filter, recs, n) : 0);
    for (size_t i = 0; i < n;) { /* each hart's records to its own lane, in runs */
        size_t j = i + 1;
        while (j < n && recs[j].hart == recs[i].hart)
            j++;
        struct hart_lane *l = recs[i].hart < f->nlanes ? &f->lanes[recs[i].hart] : NULL;
        if (l && l->filter)
            rc |= rvt_ref_filter_sink(l->filter, recs + i, j - i);
        i = j;
    }
    return rc;
}

/* Records unpacked and passed on here, on the hart's thread: where the
 * program wrote over its own code, the encoders read the machine's memory,
 * which holds the code they ran (the relay, which read the image, is done). */
static int run_here(struct fanout *f, const rvt_retire_packed *slots, size_t n) {
    if (f->reads_code && rvt_machine_changed_code(f->m))
        f->fetch->memory_first = true;
    return rvt_retire_unpack_to(slots, n, f->unpacked, RUN_UNPACKED, run_stream_sink, f, &f->unpacked_state);
}

/* The hart's records, packed: through the relay, or unpacked here. */
static int run_fanout_sink(void *user, const rvt_retire_packed *slots, size_t n) {
    struct fanout *f = user;
    if (!f->relay)
        return run_here(f, slots, n);
    size_t k = f->reads_code ? rvt_machine_image_code_prefix(f->m, slots, n) : n;
    int rc = rvt_retire_relay_packed_sink(f->relay, slots, k);
    if (k == n)
        return rc;
    /* the rest lies in the relay's memory, which closing frees */
    rvt_retire_packed *rest = malloc((n - k) * sizeof *slots);
    if (!rest)
        return rc | RVT_E_NOMEM;
    memcpy(rest, slots + k, (n - k) * sizeof *slots);
    f->relay_error = rvt_retire_relay_finish(f->relay, &f->unpacked_state); /* (the stream goes on here) */
    f->relay = NULL;
    rc |= f->relay_error | run_here(f, rest, n - k);
    free(rest);
    return rc;
}

/* --sample-branches: one line per sample, as `perf script -F ip,brstack`
 * (or brstacksym) prints an LBR sample: the ip, then FROM/TO/P/-/-/CYCLES
 * per entry, youngest first (P: predicted, as no misprediction is known). */
struct sampler {
    FILE *out;
    const rvt_image *img;
    bool symbols;
    rvt_ctr_record recs[256];
    uint64_t samples;
};

static void print_branch_address(FILE *out, const rvt_image *img, bool symbols, uint64_t addr) {
    uint64_t off;
    const char *sym = symbols ? rvt_image_symbolize(img, addr, &off) : NULL;
    if (sym)
        fprintf(out, "%s+0x%" PRIx64, sym, off);
    else
        fprintf(out, "0x%" PRIx64, addr);
}

static void write_branch_sample(void *user, rvt_machine *m, uint64_t instret) {
    (void)instret;
    struct sampler *s = user;
    size_t n = rvt_machine_ctr_read(m, 0, s->recs, 256);
    fprintf(s->out, "%16" PRIx64, rvt_machine_pc(m, 0));
    for (size_t i = 0; i < n; i++) {
        fputc(' ', s->out);
        print_branch_address(s->out, s->img, s->symbols, s->recs[i].source);
        fputc('/', s->out);
        print_branch_address(s->out, s->img, s->symbols, s->recs[i].target);
        fprintf(s->out, "/%c/-/-/%" PRIu64, s->recs[i].misp ? 'M' : 'P', s->recs[i].ccv ? s->recs[i].cycles : 0);
    }
    fputc('\n', s->out);
    s->samples++;
}

static int write_ctr_dump(const char *path, rvt_machine *m) {
    FILE *f = output_open("rvtrace run", path, false);
    if (!f)
        return -1;
    static rvt_ctr_record recs[256];
    size_t n = rvt_machine_ctr_read_at_exit(m, 0, recs, 256);
    fprintf(f, "entry,source,target,type,misp,cycles\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%u,%" PRIx64 ",%" PRIx64 ",%u,%d,", recs[i].entry, recs[i].source, recs[i].target, recs[i].type,
                recs[i].misp);
        if (recs[i].ccv)
            fprintf(f, "%" PRIu64, recs[i].cycles);
        fputc('\n', f);
    }
    return output_close("rvtrace run", f, true);
}

/* The caches' counts at the end of the run, as spike's cache simulator
 * reports them when spike ends (second level first, then data, then
 * instruction; the miss rate as spike computes it, in single precision).
 * The instruction cache's bytes read are the fetched instructions' bytes. */
static void print_cache_report(rvt_machine *m) {
    static const struct { unsigned id; const char *name; } order[] = {
        {RVT_PMU_CACHE_LL, "L2$"}, {RVT_PMU_CACHE_L1D, "D$"}, {RVT_PMU_CACHE_L1I, "I$"}};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        rvt_cache_stats s;
        if (!rvt_machine_cache_stats(m, order[i].id, &s))
            continue;
        const char *n = order[i].name;
        float rate = 100.0f * (float)(s.read_misses + s.write_misses) / (float)(s.read_accesses + s.write_accesses);
        fprintf(stderr,
                "%s Bytes Read:            %" PRIu64 "\n%s Bytes Written:         %" PRIu64
                "\n%s Read Accesses:         %" PRIu64 "\n%s Write Accesses:        %" PRIu64
                "\n%s Read Misses:           %" PRIu64 "\n%s Write Misses:          %" PRIu64
                "\n%s Writebacks:            %" PRIu64 "\n%s Miss Rate:             %.3f%%\n",
                n, s.bytes_read, n, s.bytes_written, n, s.read_accesses, n, s.write_accesses, n, s.read_misses, n,
                s.write_misses, n, s.writebacks, n, (double)rate);
    }
}

/* --pmu-report: the counters of hart 0 at the exit store. */
static int write_pmu_report(const char *path, rvt_machine *m, const char *program) {
    bool summary = !strcmp(path, "-");
    FILE *f = summary ? stderr : output_open("rvtrace run", path, false);
    if (!f)
        return -1;
    if (summary)
        fprintf(f, "\n Performance counter stats for '%s':\n\n", program);
    else
        fprintf(f, "counter,event,value\n");
    for (unsigned c = 0; c < 32; c++) {
        uint64_t event = 0;
        uint64_t v = rvt_machine_hpm_counter(m, 0, c, &event, true);
        if (c == 1 || (c >= 3 && !event))
            continue;
        const char *name = c == 0 ? "cycles" : c == 2 ? "instructions" : rvt_pmu_event_name(event);
        char counter[24];
        snprintf(counter, sizeof counter, c == 0 ? "mcycle" : c == 2 ? "minstret" : "mhpmcounter%u", c);
        if (summary) {
            char digits[32], grouped[48];
            int n = snprintf(digits, sizeof digits, "%" PRIu64, v), k = 0;
            for (int i = 0; i < n; i++) {
                grouped[k++] = digits[i];
                if ((n - 1 - i) % 3 == 0 && i != n - 1)
                    grouped[k++] = ',';
            }
            grouped[k] = 0;
            fprintf(f, "  %20s      %-16s (%s)\n", grouped, name, counter);
        } else {
            fprintf(f, "%s,%s,%" PRIu64 "\n", counter, name, v);
        }
    }
    if (summary) {
        fputc('\n', f);
        return 0;
    }
    return output_close("rvtrace run", f, true);
}

/* "M", "SU", ...: a mask of 1 << privilege. */
static int parse_ctr_modes(const char *s, unsigned *modes) {
    *modes = 0;
    for (; *s; s++) {
        switch (*s) {
        case 'M': case 'm': *modes |= 1u << 3; break;
        case 'S': case 's': *modes |= 1u << 1; break;
        case 'U': case 'u': *modes |= 1u << 0; break;
        default: return -1;
        }
    }
    return *modes ? 0 : -1;
}

/* Where a run that did not exit stopped: the hart's pc and its last trap. */
static void report_where(const rvt_run_result *res, unsigned xlen) {
    fprintf(stderr, "  hart %u at pc %#" PRIx64, res->hart, res->pc);
    if (res->had_trap) {
        uint64_t msb = 1ull << (xlen - 1);
        bool interrupt = (res->last_trap_cause & msb) != 0;
        uint64_t code = res->last_trap_cause & ~msb;
        fprintf(stderr, "; last trap: %s (cause %" PRIu64 "%s) at pc %#" PRIx64,
                rvt_trap_cause_name(interrupt, code), code, interrupt ? ", interrupt" : "", res->last_trap_pc);
    } else {
        fprintf(stderr, "; no trap taken");
    }
    fputc('\n', stderr);
}

typedef struct run_progress {
    progress pr;
    uint64_t limit; /* --max-insns, when given */
} run_progress;

static void show_run_progress(void *user, uint64_t instret) {
    run_progress *rp = user;
    progress_update(&rp->pr, instret, rp->limit);
}

/* The console input, when it is a terminal, is read key by key without echo
 * (the guest's tty echoes); its settings come back at the end of the run,
 * also when a signal ends it. */
static struct termios terminal_saved;
static int terminal_fd = -1;

static void terminal_restore(void) {
    if (terminal_fd >= 0)
        tcsetattr(terminal_fd, TCSANOW, &terminal_saved);
    terminal_fd = -1;
}

/* The handlers the signals had before (the outputs' clean-up, output.c),
 * which run after the terminal is restored. */
static const int terminal_signals[3] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction terminal_before[3];

static void terminal_restore_and_die(int sig) {
    terminal_restore(); /* (tcsetattr is async-signal-safe) */
    for (unsigned i = 0; i < 3; i++)
        if (terminal_signals[i] == sig)
            sigaction(sig, &terminal_before[i], NULL);
    raise(sig);
}

/* true: the input is a terminal, now raw */
static bool terminal_raw(int fd) {
    struct termios t;
    if (!isatty(fd) || tcgetattr(fd, &t) != 0)
        return false;
    terminal_saved = t;
    terminal_fd = fd;
    t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
    t.c_iflag &= ~(tcflag_t)(ICRNL | IXON);
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    struct sigaction restore = {0};
    restore.sa_handler = terminal_restore_and_die;
    sigemptyset(&restore.sa_mask);
    for (unsigned i = 0; i < 3; i++)
        sigaction(terminal_signals[i], &restore, &terminal_before[i]);
    if (tcsetattr(fd, TCSANOW, &t) != 0)
        terminal_fd = -1;
    return terminal_fd >= 0;
}

/* --pmu-events checked before anything runs: a bad name is a usage error. */
static bool pmu_events_ok(const char *events) {
    char list[512];
    if (strlen(events) >= sizeof list) {
        fprintf(stderr, "rvtrace run: --pmu-events: the list is longer than %zu characters\n", sizeof list - 1);
        return false;
    }
    snprintf(list, sizeof list, "%s", events);
    unsigned count = 0;
    for (char *name = strtok(list, ","); name; name = strtok(NULL, ","), count++) {
        uint64_t code;
        if (!rvt_pmu_event_code(name, &code)) {
            fprintf(stderr, "rvtrace run: --pmu-events: unknown event '%s' (docs/pmu.md lists them)\n", name);
            return false;
        }
    }
    if (count == 0 || count > 29) {
        fprintf(stderr, "rvtrace run: --pmu-events: 1 to 29 events, got %u in '%s'\n", count, events);
        return false;
    }
    return true;
}

/* The program's exit code as rvtrace's: only where it cannot be read as one
 * of rvtrace's own statuses (output.h) or a shell's time-out and signals. */
static int program_status(const char *program, int code, uint64_t instret) {
    if (code == 0)
        return 0;
    fprintf(stderr, "rvtrace run: %s exited with code %d after %" PRIu64 " instructions\n", program, code, instret);
    if (code < 0 || code > 255 || code <= EXIT_LOST || code == 124 || code == 130 || code == 143) {
        fprintf(stderr, "rvtrace run: (exit status 1: %d is not a status rvtrace passes on)\n", code);
        return 1;
    }
    return code;
}

/* --dump-dtb: the device tree the machine gives its software, from the boot
 * ROM (0x1020, where spike's reset stub points a1), as a .dtb file. */
static int dump_device_tree(rvt_machine *m, const char *path) {
    uint8_t header[8], tree[0x1000 - 0x20];
    uint32_t size = 0;
    if (rvt_machine_read_rom(m, 0x1020, header, sizeof header))
        size = (uint32_t)header[4] << 24 | (uint32_t)header[5] << 16 | (uint32_t)header[6] << 8 | header[7];
    if (size < sizeof header || size > sizeof tree || !rvt_machine_read_rom(m, 0x1020, tree, size) ||
        memcmp(header, "\xd0\x0d\xfe\xed", 4)) {
        fprintf(stderr, "rvtrace run: --dump-dtb: this machine has no device tree (it is made for --sbi, "
                        "--firmware, --initrd or --bootargs)\n");
        return 1;
    }
    FILE *f = output_open("rvtrace run", path, true);
    if (!f)
        return 1;
    fwrite(tree, 1, size, f);
    return output_close("rvtrace run", f, true);
}

int cmd_run(int argc, char **argv) {
    machine_options mo;
    machine_options_init(&mo);
    rvt_machine_config *const cfg = &mo.cfg;
    cfg->max_insns = 10000000000ull;
    const char *program = NULL, *csv_path = NULL, *pcs_path = NULL, *rvti_path = NULL;
    bool etrace_v1 = false;
    const char *etrace_path = NULL, *scf = NULL, *ucf = NULL, *tandem_path = NULL, *ntrace_path = NULL;
    rvt_ntrace_options nopt = {0};
    rvt_diag diag = {{0}};
    rvt_tv_params tvp = {0};
    rvt_tv_writer_options tvo = {0};
    const char *ctr_dump = NULL, *sample_path = NULL, *pmu_events = NULL, *pmu_report = NULL;
    unsigned ctr_modes = 0, ctr_depth = 0, rows_hart = 0;
    uint64_t sample_period = 0;
    bool sample_symbols = false, quiet = false, max_given = false;
    const char *console_input_path = "-";
    FILE *console_input = NULL;
    const char *dtb_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int taken;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            run_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--spike-csv") && val) {
            csv_path = val, i++;
        } else if (!strcmp(a, "--pcs") && val) {
            pcs_path = val, i++;
        } else if (!strcmp(a, "--rows-hart") && val) {
            rows_hart = (unsigned)option_number(a, val, RUN_MAX_SOURCES - 1), i++;
        } else if (!strcmp(a, "--retire") && val) {
            rvti_path = val, i++;
        } else if (!strcmp(a, "--etrace") && val) {
            etrace_path = val, i++;
        } else if (!strcmp(a, "--ntrace") && val) {
            ntrace_path = val, i++;
        } else if (parse_ntrace_option(argc, argv, &i, &nopt)) {
            continue;
        } else if (!strcmp(a, "--scf") && val) {
            scf = val, i++;
        } else if (!strcmp(a, "--ucf") && val) {
            ucf = val, i++;
        } else if (!strcmp(a, "--v1")) {
            etrace_v1 = true;
        } else if (!strcmp(a, "--tandem") && val) {
            tandem_path = val, i++;
        } else if (!strcmp(a, "--tandem-fields") && val) {
            if (rvt_tv_parse_fields(val, &tvo.fields, &diag) || !tvo.fields) {
                fprintf(stderr, "rvtrace run: --tandem-fields: %s\n", diag.msg[0] ? diag.msg : "no fields left");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--tandem-incremental")) {
            tvo.incremental = true;
        } else if (!strcmp(a, "--tandem-omit-end")) {
            tvo.omit_end = true;
        } else if ((!strcmp(a, "--flen") || !strcmp(a, "--mlen")) && parse_tandem_param_option(argc, argv, &i, &tvp)) {
            continue;
        } else if (!strcmp(a, "--dump-dtb") && val) {
            dtb_path = val, i++;
        } else if (!strcmp(a, "--console-input") && val) {
            console_input_path = val, i++;
        } else if (!strcmp(a, "--blocks")) {
            cfg->merge_blocks = true;
        } else if (!strcmp(a, "--ctr-enable") && val) {
            if (parse_ctr_modes(val, &ctr_modes)) {
                fprintf(stderr, "rvtrace run: --ctr-enable takes modes among M, S and U, got '%s'\n", val);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--ctr-depth") && val) {
            ctr_depth = (unsigned)option_number(a, val, 256), i++;
        } else if (!strcmp(a, "--ctr-dump") && val) {
            ctr_dump = val, i++;
        } else if (!strcmp(a, "--sample-branches") && val) {
            if ((sample_period = option_number(a, val, UINT64_MAX)) == 0) {
                fprintf(stderr, "rvtrace run: --sample-branches needs a period of at least 1\n");
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--sample-symbols")) {
            sample_symbols = true;
        } else if (!strcmp(a, "-o") && val) {
            sample_path = val, i++;
        } else if (!strcmp(a, "--pmu-events") && val) {
            pmu_events = val, i++;
        } else if (!strcmp(a, "--pmu-report") && val) {
            pmu_report = val, i++;
        } else if (!strcmp(a, "--max-insns") && val) {
            cfg->max_insns = option_number(a, val, UINT64_MAX), i++;
            max_given = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = true;
        } else if ((taken = parse_machine_option("rvtrace run", argc, argv, &i, &mo)) != 0) {
            if (taken < 0)
                return 2;
        } else if (a[0] == '-') {
            return bad_option("rvtrace run", a, i + 1 == argc, run_usage);
        } else if (!program) {
            program = a;
        } else {
            return usage_error("rvtrace run", run_usage, "only one program can be run, got '%s' and '%s'", program, a);
        }
    }
    if (!program)
        return usage_error("rvtrace run", run_usage, "no program given");
    if (machine_options_finish("rvtrace run", &mo))
        return 2;
    if (cfg->nharts > RUN_MAX_SOURCES && (etrace_path || ntrace_path || csv_path || pcs_path))
        return usage_error("rvtrace run", run_usage, "the traces and row formats take at most %d harts",
                           RUN_MAX_SOURCES);
    if (rows_hart >= cfg->nharts)
        return usage_error("rvtrace run", run_usage, "--rows-hart %u: the machine has %u hart%s", rows_hart,
                           cfg->nharts, cfg->nharts == 1 ? "" : "s");
    if (sample_period && !sample_path) {
        fprintf(stderr, "rvtrace run: --sample-branches needs -o FILE for the samples\n");
        return 2;
    }
    if (sample_path && !sample_period) {
        fprintf(stderr, "rvtrace run: -o names the --sample-branches output; give a period too\n");
        return 2;
    }
    if ((ctr_modes || ctr_depth || ctr_dump || sample_period) && cfg->ctr_version == RVT_CTR_NONE) {
        fprintf(stderr, "rvtrace run: the CTR options need --ctr 0.1.4 or 1.0\n");
        return 2;
    }
    if (ctr_depth && !ctr_modes) {
        fprintf(stderr, "rvtrace run: --ctr-depth goes with --ctr-enable\n");
        return 2;
    }
    if (pmu_events && !pmu_events_ok(pmu_events))
        return 2;
    const char *inputs[] = {program, mo.firmware_path, mo.initrd_path, scf, ucf,
                            strcmp(console_input_path, "-") && strcmp(console_input_path, "none") ? console_input_path
                                                                                                   : NULL};
    const char *outs[] = {dtb_path, csv_path, pcs_path, rvti_path, etrace_path, tandem_path, ntrace_path, ctr_dump, sample_path,
                          pmu_report && strcmp(pmu_report, "-") ? pmu_report : NULL};
    if (!outputs_not_inputs("rvtrace run", inputs, sizeof inputs / sizeof *inputs, outs, sizeof outs / sizeof *outs))
        return 2;
    if (cfg->merge_blocks && (csv_path || pcs_path || etrace_path)) {
        fprintf(stderr, "rvtrace run: --blocks cannot be combined with --spike-csv, --pcs or --etrace\n");
        return 2;
    }
    rvt_etrace_params ep = {0};
    rvt_etrace_options eo = {0};
    if (etrace_path && rvt_etrace_load_config(scf, ucf, &ep, &eo, &diag)) {
        fprintf(stderr, "rvtrace run: %s\n", diag.msg);
        return 1;
    }
    eo.v1_layout = etrace_v1;
    /* Encoders alone take multiple-retire blocks and write what the
     * single-retire records give (checked for every corpus program; a block
     * record's instructions retired at one time; the encoders read the code
     * to take apart a block whose inner instructions matter). */
    cfg->merge_blocks |= (etrace_path || ntrace_path) && !csv_path && !pcs_path && !rvti_path;
    rvt_image *img = NULL;
    rvt_machine *m = NULL;
    FILE *csv = NULL, *pcs = NULL, *rvti = NULL, *tv = NULL;
    byte_file *te = NULL, *nex = NULL;
    rvt_tv_writer *tv_w = NULL;
    struct sampler sampler = {0};
    rvt_row_writer *csv_w = NULL, *pcs_w = NULL;
    rvt_rvti_writer *rvti_w = NULL;
    int status = 1;
    bool complete = false; /* the run's outputs are whole: put under their names */
    /* The relay's thread starts now, to fault in the relay's memory while
     * this one loads the program (its records come once the hart runs). */
    struct fanout fan = {0};
    if ((csv_path || pcs_path || rvti_path || etrace_path || ntrace_path) &&
        rvt_retire_relay_new(&fan.relay, run_stream_sink, &fan)) {
        fprintf(stderr, "rvtrace run: out of memory\n");
        return 1;
    }
    if (machine_options_load("rvtrace run", &mo, program, &img))
        goto out;
    if ((cfg->board || cfg->sbi) && strcmp(console_input_path, "none")) {
        if (!strcmp(console_input_path, "-")) {
            cfg->console_input = stdin;
        } else if (!(console_input = fopen(console_input_path, "rb"))) {
            fprintf(stderr, "rvtrace run: --console-input %s: %s\n", console_input_path, strerror(errno));
            goto out;
        } else {
            cfg->console_input = console_input;
        }
    }
    if (machine_options_build("rvtrace run", &mo, program, img, &m))
        goto out;
    if (dtb_path) {
        status = dump_device_tree(m, dtb_path);
        goto out;
    }
    if (ctr_modes && rvt_machine_ctr_enable(m, 0, ctr_modes, ctr_depth, &diag)) {
        fprintf(stderr, "rvtrace run: --ctr-enable: %s\n", diag.msg);
        goto out;
    }
    if (pmu_events) { /* counters 3, 4, ... in the order given */
        char list[512];
        snprintf(list, sizeof list, "%s", pmu_events);
        unsigned counter = 3;
        for (char *name = strtok(list, ","); name; name = strtok(NULL, ","), counter++) {
            uint64_t code;
            if (!rvt_pmu_event_code(name, &code) || rvt_machine_hpm_program(m, 0, counter, code, &diag)) {
                fprintf(stderr, "rvtrace run: --pmu-events: %s\n", diag.msg);
                status = 2; /* the options ask for what the machine they give cannot count */
                goto out;
            }
        }
    }
    if (sample_period) {
        if (!(sampler.out = output_open("rvtrace run", sample_path, false)))
            goto out;
        sampler.img = img;
        sampler.symbols = sample_symbols;
        fprintf(sampler.out, "# period %" PRIu64 " instructions; ip then FROM/TO/P/-/-/CYCLES, youngest first\n",
                sample_period);
        rvt_machine_sample_every(m, sample_period, write_branch_sample, &sampler);
    }
    if ((csv_path && !(csv = output_open("rvtrace run", csv_path, false))) ||
        (pcs_path && !(pcs = output_open("rvtrace run", pcs_path, false))) ||
        (rvti_path && !(rvti = output_open("rvtrace run", rvti_path, true))))
        goto out;
    if ((csv && rvt_row_writer_new(&csv_w, csv, RVT_ROWS_SPIKE_CSV)) || (pcs && rvt_row_writer_new(&pcs_w, pcs, RVT_ROWS_PCS)) ||
        (rvti && rvt_rvti_writer_new(&rvti_w, rvti, rvt_image_xlen(img), cfg->merge_blocks))) {
        fprintf(stderr, "rvtrace run: out of memory\n");
        goto out;
    }
    fan.nlanes = cfg->nharts;
    for (unsigned h = 0; h < fan.nlanes; h++)
        fan.lanes[h] = (struct hart_lane){.f = &fan, .hart = h, .te_index = fan.nlanes > 1};
    if (etrace_path) {
        if (!scf) { /* the program's XLEN and the full jump classification */
            ep.iaddress_width = rvt_image_xlen(img);
            ep.itype_width = 4;
        }
        if (!(te = byte_file_open("rvtrace run", etrace_path)))
            goto out;
        for (unsigned h = 0; h < fan.nlanes; h++) {
            fan.lanes[h].te = te;
            if (rvt_etrace_encoder_new(&fan.lanes[h].etrace, &ep, &eo, write_te_packet, &fan.lanes[h])) {
                fprintf(stderr, "rvtrace run: %s: cannot start the E-Trace encoder%s\n", etrace_path,
                        eo.implicit_return && ep.itype_width < 4 ? " (implicit return needs itype_width_p=4)" : "");
                goto out;
            }
        }
    }
    if (tandem_path) {
        finish_tandem_params(&tvp, rvt_image_xlen(img));
        if (tvp.xlen != rvt_image_xlen(img)) {
            fprintf(stderr, "rvtrace run: the tandem trace's XLEN is the program's (%u)\n", rvt_image_xlen(img));
            goto out;
        }
        if (!(tv = output_open("rvtrace run", tandem_path, true)))
            goto out;
        int rc = rvt_tv_writer_new(&tv_w, &tvp, &tvo, file_byte_sink, tv, &diag);
        if (!rc)
            rc = rvt_tv_writer_attach(tv_w, m, img);
        if (rc) {
            fprintf(stderr, "rvtrace run: --tandem: %s\n", diag.msg[0] ? diag.msg : rvt_strerror(rc));
            goto out;
        }
    }
    if (ntrace_path && !(nex = byte_file_open("rvtrace run", ntrace_path)))
        goto out;
    if (nex && fan.nlanes > 1 && !nopt.src_bits) /* each hart a source: SRC just wide enough */
        while ((1u << nopt.src_bits) < fan.nlanes)
            nopt.src_bits++;
    for (unsigned h = 0; nex && h < fan.nlanes; h++) {
        rvt_ntrace_options o = nopt;
        o.src_id = fan.nlanes > 1 ? h : nopt.src_id;
        if (rvt_ntrace_encoder_new(&fan.lanes[h].ntrace, &o, rvt_image_xlen(img), byte_file_sink, nex)) {
            fprintf(stderr, "rvtrace run: %s: cannot start the N-Trace encoder\n", ntrace_path);
            goto out;
        }
    }
    fan.rvti = rvti_w;
    fan.csv = csv_w;
    fan.pcs = pcs_w;
    fan.rows_hart = rows_hart;
    fan.m = m;
    fan.reads_code = etrace_path || (nex && nopt.icnt_bits);
    for (unsigned h = 0; h < fan.nlanes; h++)
        if ((csv_w || pcs_w || etrace_path || nex) &&
            rvt_ref_filter_new(&fan.lanes[h].filter, run_reference_sink, &fan.lanes[h])) {
            fprintf(stderr, "rvtrace run: out of memory\n");
            goto out;
        }
    /* The code-visibility protocol (src/hart/trace_port.c): the encoders
     * behind the relay read the image's code while the hart runs only it. */
    bool watched = false;
    if (fan.reads_code) {
        rvt_segment_info segs[64];
        size_t nsegs = rvt_image_segments(img, segs, sizeof segs / sizeof segs[0]);
        watched = nsegs <= sizeof segs / sizeof segs[0] && rvt_machine_watch_code(m, segs, nsegs) == RVT_OK;
    }
    /* The image decodes its code as the encoders ask for it, on the relay's
     * thread: nothing on the hart's thread reads decoded image code during
     * the run (the hart has its own decoded pages), and a relay closed early
     * is joined before its filter goes on here. Decoding it all beforehand
     * cost the hart's thread 0.3 ms per run. */
    if (fan.reads_code && !watched) { /* (the encoders' code cannot be watched: all on this thread) */
        rvt_retire_relay_finish(fan.relay, NULL);
        fan.relay = NULL;
    }
    program_code code = {img, m, false}; /* the code the hart runs */
    fan.fetch = &code;
    for (unsigned h = 0; h < fan.nlanes; h++) {
        struct hart_lane *l = &fan.lanes[h];
        if (l->filter)
            rvt_ref_filter_set_code(l->filter, program_code_fetch, &code);
        if (l->etrace)
            rvt_etrace_encoder_set_code(l->etrace, program_code_fetch, &code);
        if (l->ntrace && nopt.icnt_bits)
            rvt_ntrace_encoder_set_code(l->ntrace, program_code_fetch, &code);
    }
    if (csv_w || pcs_w || rvti_w || etrace_path || nex)
        rvt_machine_set_packed_sink(m, run_fanout_sink, run_record_space, &fan);
    run_progress rp = {{0}, max_given ? cfg->max_insns : 0};
    /* A terminal as the console input is made raw last, once the outputs
     * set their clean-up on signals (which runs after the terminal's), and
     * the guest's console owns it: no progress line across it. */
    if (cfg->console_input && terminal_raw(fileno(cfg->console_input)))
        quiet = true;
    progress_start(&rp.pr, "rvtrace run", "instructions", quiet);
    if (rp.pr.on)
        rvt_machine_set_progress(m, show_run_progress, &rp);
    rvt_run_result res;
    rvt_machine_run(m, &res, &diag);
    progress_end(&rp.pr);
    /* The filter finishes on this thread, once the relay's is done with it. */
    int frc = fan.relay ? rvt_retire_relay_finish(fan.relay, NULL) : fan.relay_error;
    fan.relay = NULL;
    for (unsigned h = 0; h < fan.nlanes; h++) {
        if (fan.lanes[h].filter)
            frc |= rvt_ref_filter_finish(fan.lanes[h].filter);
        fan.lanes[h].filter = NULL;
    }
    int wrc = frc | rvt_row_writer_finish(csv_w) | rvt_row_writer_finish(pcs_w) | rvt_rvti_writer_finish(rvti_w);
    if (tv_w)
        wrc |= rvt_tv_writer_finish(tv_w);
    for (unsigned h = 0; h < fan.nlanes; h++) {
        if (fan.lanes[h].etrace)
            wrc |= rvt_etrace_encoder_finish(fan.lanes[h].etrace, NULL);
        if (fan.lanes[h].ntrace)
            wrc |= rvt_ntrace_encoder_finish(fan.lanes[h].ntrace, NULL);
        fan.lanes[h].etrace = NULL;
        fan.lanes[h].ntrace = NULL;
    }
    csv_w = pcs_w = NULL;
    rvti_w = NULL;
    if (wrc) {
        fprintf(stderr, "rvtrace run: writing the trace failed\n");
        goto out;
    }
    if ((ctr_dump && write_ctr_dump(ctr_dump, m)) || (pmu_report && write_pmu_report(pmu_report, m, program)))
        goto out;
    print_cache_report(m);
    complete = true; /* (whatever the program's fate: what it did is all written) */
    switch (res.reason) {
    case RVT_STOP_EXIT:
        status = program_status(program, res.exit_code, res.instret);
        break;
    case RVT_STOP_MAX_INSNS:
        fprintf(stderr,
                "rvtrace run: %s did not terminate within %" PRIu64 " instructions "
                "(raise the limit with --max-insns)\n",
                program, res.instret);
        report_where(&res, rvt_image_xlen(img));
        report_spin(stderr, m, img, &res);
        report_machine(stderr, cfg);
        status = 124;
        break;
    case RVT_STOP_NO_PROGRESS:
        fprintf(stderr, "rvtrace run: %s makes no progress: hart %u took trap after trap without retiring an "
                        "instruction\n", program, res.hart);
        report_where(&res, rvt_image_xlen(img));
        status = 1;
        break;
    case RVT_STOP_ASLEEP:
        fprintf(stderr, "rvtrace run: %s sleeps for ever: every hart is stopped or suspended (SBI HSM) and no "
                        "interrupt or timer can wake one\n", program);
        report_where(&res, rvt_image_xlen(img));
        status = 1;
        break;
    default:
        fprintf(stderr, "rvtrace run: %s: stopped: %s\n", program, diag.msg[0] ? diag.msg : "writer error");
        status = 1;
        break;
    }
out:
    rvt_retire_relay_finish(fan.relay, NULL); /* (a run that did not start: nothing queued) */
    rvt_row_writer_finish(csv_w);
    rvt_row_writer_finish(pcs_w);
    rvt_rvti_writer_finish(rvti_w);
    for (unsigned h = 0; h < fan.nlanes; h++) {
        if (fan.lanes[h].etrace)
            rvt_etrace_encoder_finish(fan.lanes[h].etrace, NULL);
        if (fan.lanes[h].ntrace)
            rvt_ntrace_encoder_finish(fan.lanes[h].ntrace, NULL);
        if (fan.lanes[h].filter)
            rvt_ref_filter_finish(fan.lanes[h].filter);
    }
    rvt_tv_writer_free(tv_w);
    int wstatus = byte_file_close("rvtrace run", te, complete) | byte_file_close("rvtrace run", nex, complete);
    wstatus |= output_close("rvtrace run", sampler.out, complete) | output_close("rvtrace run", tv, complete);
    wstatus |= output_close("rvtrace run", rvti, complete) | output_close("rvtrace run", csv, complete);
    wstatus |= output_close("rvtrace run", pcs, complete);
    if (wstatus)
        status = 1;
    rvt_machine_free(m);
    rvt_image_free(img);
    machine_options_free(&mo);
    if (console_input)
        fclose(console_input);
    terminal_restore();
    return status;
}
