/* rvtrace decode: trace packets plus the program in, instruction flow out. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "rvtrace/cycles.h"
#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/ntrace.h"
#include "rvtrace/profile.h"

enum { DECODE_LOST = 3 }; /* exit status: trace was lost somewhere, the rest decoded */
enum { DECODE_WARM_UP = 65536 }; /* --threads: items decoded in order before the first segment */

static void decode_usage(FILE *out) {
    fprintf(out,
            "usage: rvtrace decode --format etrace [--scf HW.scf] [--ucf ENC.ucf] --elf PROGRAM.elf[@BASE]...\n"
            "                      TRACE --pcs OUT\n"
            "       rvtrace decode --format ntrace --elf PROGRAM.elf[@BASE]... TRACE.nex --pcs OUT\n"
            "       rvtrace decode --format sifive [--src-bits N] [--source N] --elf ELF [--image FILE@ADDR]...\n"
            "                      CAPTURE.rtd --pcs OUT [--messages FILE] [--itc-print FILE]\n"
            "       rvtrace decode --format sifive --settings FILE.settings [--sysroot DIR] --pcs OUT ...\n"
            "\n"
            "Rebuild the retired instructions from a raw E-Trace stream (te_inst packets)\n"
            "or an N-Trace stream (Nexus messages in MSEO bytes) and the program.\n"
            "Code outside the ELF files is read from the machine the hart model gives a\n"
            "program (spike's boot ROM at 0x1000), so traces that start at reset decode.\n"
            "\n"
            "Options:\n"
            "  --elf FILE[@BASE]  program image, optionally loaded at an offset (repeatable)\n"
            "  --kernel IMAGE[@PHYS]  a Linux RISC-V Image (the flat binary, no symbols) at\n"
            "                     its virtual address, with --kallsyms FILE: the kernel's\n"
            "                     /proc/kallsyms (its _start places the Image; its code\n"
            "                     symbols name the kernel's functions); @PHYS: also where\n"
            "                     it ran before the MMU was on (OpenSBI: 0x80200000)\n"
            "  --image FILE@ADDR  a raw binary (code) at ADDR (repeatable); --xlen 32|64 when\n"
            "                     no ELF says (default 64)\n"
            "  --settings FILE    SiFive settings file: capture (rtd), elf, image, srcbits, pids,\n"
            "                     map (/proc/PID/maps: executables at their addresses), vdso,\n"
            "                     kmempath (kernel pages kmem.0xADDR); paths relative to it\n"
            "  --sysroot DIR      where mapped files are, by their full path, when they are\n"
            "                     not beside the settings file\n"
            "  --messages FILE    N-Trace/SiFive: one line per message: number, time (Tics: an\n"
            "                     N-Trace TSTAMP is absolute in a sync, else added to the last),\n"
            "                     the address the flow continues at (NxtAddr), TCODE, fields\n"
            "  --itc-print FILE   SiFive: the text the program printed through ITC channel 0\n"
            "                     and the no-load strings of its .comment section\n"
            "  --pcs FILE         write one lower-case hex address per retired instruction\n"
            "                     to FILE ('-': standard output), as rvtrace run --pcs does\n"
            "  --listing FILE     write each retired instruction with its symbol, disassembly\n"
            "                     and source line to FILE ('-': standard output)\n"
            "  --profile N        the N functions with most retired instructions (to standard\n"
            "                     output, or standard error when the PCs go there)\n"
            "  --folded FILE      call stacks with instruction counts, flame-graph input\n"
            "                     (`main;foo;bar COUNT` per line)\n"
            "  --coverage FILE    CSV: address,count,symbol+offset,file:line per executed address\n"
            "  --gmon FILE        gprof's gmon.out (instruction histogram, call arcs with counts):\n"
            "                     riscv64-linux-gnu-gprof PROGRAM.elf FILE (a warning names what\n"
            "                     gprof itself will drop: its last function of the text)\n"
            "  --callgrind FILE   callgrind profile (Ir, branches, calls with inclusive cost) for\n"
            "                     callgrind_annotate and KCachegrind\n"
            "  --lcov FILE        lcov tracefile (functions, lines, branches) for genhtml; a program\n"
            "                     without -g: per instruction of a disassembly written as FILE.dis\n"
            "  --report DIR       DIR/index.html: summary, hottest functions, flame graph and the\n"
            "                     hottest function's listing in one self-contained page\n"
            "  --traps FILE       one line per trap: at,xcause,interrupt,tval,handler (hex;\n"
            "                     '-' where the trace does not say: N-Trace has no causes)\n"
            "  --tvec ADDR        trap vector (mtvec), for traces made in implicit-exception mode\n"
            "  --stvec ADDR       S-mode trap vector, when traps are delegated to S in such traces\n"
            "  -o FILE            where --profile's table goes (default: standard output);\n"
            "                     also the old spelling, until 0.5 and with a warning, of\n"
            "                     --pcs FILE (--pcs -o FILE; --pcs alone: standard output)\n"
            "  --strict           stop at the first place where trace was lost\n"
            "  --threads N        decode on N threads (1-256), the trace cut at its syncs (the\n"
            "                     output is the same; N-Trace: not with --messages, --itc-print\n"
            "                     or several sources); it pays on long captures (hundreds of\n"
            "                     millions of instructions): the first 65536 packets or\n"
            "                     messages decode on the reading thread, so a short capture\n"
            "                     takes what it takes on one\n"
            "  --segment N        with --threads: packets or messages in a segment before it\n"
            "                     ends at a sync that resets the decoder (default 16384);\n"
            "                     given, segments start at the first one\n"
            "  --stats            print a Stat line: bytes, packets or messages, instructions,\n"
            "                     losses, and with --threads the segments\n"
            "  -q, --quiet        no progress line (shown on a terminal for decodes over a second)\n"
            "  --scf, --ucf       the encoder's hardware configuration and options (E-Trace;\n"
            "                     at most 1 MiB each)\n"
            "  --encap...         E-Trace in the spec's example encapsulation (see encode --help)\n"
            "  --call-stack N     N-Trace: depth of the encoder's return-address stack (default 32)\n"
            "  --call-counter N   N-Trace: the encoder counted calls (its --call-counter N); the\n"
            "                     decoder follows whatever N was\n"
            "  --src-bits N       N-Trace: width of the SRC field; --source N (or --src-id) keeps\n"
            "                     one source, else each source is decoded on its own\n"
            "  --source N         E-Trace with --encap-index-bytes: only the packets of source\n"
            "                     index N (run -p N: one per hart)\n"
            "  --extend-addr-msb  N-Trace: addresses were sent with MSB extension\n"
            "  --v1               E-Trace 1.0 packet layout (default: the ratified 2.0 layout),\n"
            "                     as encode --v1 and dump --v1 take it\n"
            "  --seq-jump         N-Trace: the encoder left out sequential jumps\n"
            "  --all-jumps        N-Trace, SiFive: direct jumps were reported as taken branches\n"
            "                     (trTeInstEnAllJumps; a DirectBranch may end at a jal)\n"
            "  --cycles FILE.rcad SiFive: a cycle-accurate trace's side file; --listing then starts\n"
            "                     each line with the instruction's cycles as SiFive's dqr prints\n"
            "                     them: t:CYCLE [PIPE:DELTA], for vector instructions also the\n"
            "                     vector unit's (docs/formats.md)\n"
            "  --catype TYPE      the --cycles file's type: instruction (CA Scalar) or vector\n"
            "  --nexrv            N-Trace: the encoder pushed and popped its return stack by\n"
            "                     NexRv's rules (encode --nexrv; default: the spec's itype table;\n"
            "                     SiFive captures always decode by NexRv's)\n"
            "  --no-implicit-return  every return's target is in the trace (SiFive NoOpt modes;\n"
            "                     a settings file's teinstruction says so)\n"
            "  -h, --help         show this help\n"
            "\n"
            "The trace is read in pieces, so captures of any size decode in bounded memory.\n"
            "Runs of over 32 zero bytes are fill: skipped and reported with their byte range,\n"
            "a loss between two pieces of trace; a capture of nothing but zeros is 'no trace\n"
            "found' (exit 3); 256 MiB of zeros end the decode (docs/formats.md). One N-Trace\n"
            "or SiFive message may account for at most 2^26 16-bit units (its count, history\n"
            "and repeats): one beyond is damage, a loss at its offset. The settings file is at\n"
            "most 1 MiB; --image files and those a settings file names at most 1 GiB each.\n"
            "Exit status: 0 decoded cleanly; 3 trace was lost somewhere (reported on standard\n"
            "error; decoding resumed at the next synchronisation and every output was written);\n"
            "1 an input or output failed (no output is left under its name); 2 a usage error\n"
            "(an output naming an input too).\n"
            "\n"
            "Example: rvtrace decode --format etrace --scf hw64.scf --ucf encoder.ucf --elf dhrystone.riscv\n"
            "         dhrystone.te_inst_raw --pcs dhrystone.pcs\n");
}

typedef struct {
    rvt_image *img;
    rvt_machine *machine;
    unsigned xlen;
    FILE *out;
    bool listing;
    rvt_disasm_ctx dis;
    /* The corpus PC-list rule (corpus README): the instruction an interrupt
     * is marked on is left out, ecall and ebreak are listed although they
     * trap. With traps reported apart, the last PC waits for the next event. */
    bool hold, held;
    uint64_t held_pc;
    /* With `hold`, the profile takes the flow one run late, so that the held
     * instruction can still be taken back: prof_n instructions from
     * prof_start (prof_end: the address after them, 0 when not known). */
    uint64_t prof_start, prof_end;
    uint32_t prof_n;
    bool sifive;        /* SiFive's lists leave out an ecall or ebreak that traps */
    uint64_t listed;    /* instructions reported so far (where a loss falls) */
    char pcs_buf[1 << 16]; /* the PC list or listing on its way to `out` */
    size_t pcs_len;
    struct listing_line *lines; /* --listing: the text of recently listed addresses */
    struct listing_run *runs;   /* --listing: and of recently listed runs */
    bool write_pcs;     /* --pcs or --listing */
    rvt_run_cache *pc_runs; /* --pcs without --listing: instruction sizes for whole blocks (list_block) */
    rvt_profile *prof;  /* --profile, --folded, --coverage, --gmon, --callgrind, --lcov, --report */
    FILE *traps;        /* --traps */
    uint64_t losses;    /* places where trace was lost */
    bool strict;        /* stop at the first loss */
    uint64_t packets;   /* packets or messages read */
    uint64_t bytes;     /* trace bytes read (after decompression) */
    progress pr;
    rvt_zreader *zr;
    const char *trace; /* its file name, for the reports */
    unsigned threads;  /* --threads */
    uint64_t min_segment; /* --segment */
    uint64_t segments, segments_chained, segments_again; /* (rvt_decode_pool_counts) */
    /* --cycles: the cycle-accurate side file, paired with the flow as
     * SiFive's decoder pairs it (see ca_column) */
    rvt_ca_reader *ca;
    const char *ca_file;
    enum { CA_WAIT_SYNC, CA_ARMED, CA_WINDOW, CA_ON, CA_ENDED } ca_phase;
    uint64_t ca_first;     /* CA_ARMED: where the sync starts the flow */
    uint64_t ca_sync_msg;  /* its message number and byte */
    uint64_t ca_sync_byte;
    unsigned ca_left;      /* CA_WINDOW: instructions left to reach the file's start address */
    uint64_t ca_last;      /* the cycle of the instruction before */
    uint64_t ca_noted;     /* instructions with cycles */
} decode_ctx;

/* More trace came in: the progress line follows the file position. */
static void note_read(decode_ctx *c, long n) {
    uint64_t done, size;
    c->bytes += (uint64_t)n;
    rvt_zreader_position(c->zr, &done, &size);
    progress_update(&c->pr, done, size);
}

static bool fetch_code(void *user, uint64_t addr, rvt_insn *out) {
    decode_ctx *c = user;
    return rvt_program_insn(c->img, c->machine, addr, out);
}

/* The boot ROM is the only memory known not to change. */
static bool read_rom(void *user, uint64_t addr, void *buf, unsigned n) {
    decode_ctx *c = user;
    return c->machine && rvt_machine_read_rom(c->machine, addr, buf, n);
}

static int print_pc(decode_ctx *c, uint64_t pc);
static int flush_pcs(decode_ctx *c);

static int profile_flush(decode_ctx *c) {
    int rc = c->prof && c->prof_n ? rvt_profile_run(c->prof, c->prof_start, c->prof_n, 0) : 0;
    c->prof_n = 0;
    return rc;
}

/* n instructions from start (end: the address after them, 0 when not
 * known) for the profile; joined to the waiting run when they follow it. */
static int profile_defer(decode_ctx *c, uint64_t start, uint32_t n, uint64_t end) {
    if (!c->prof)
        return 0;
    if (c->prof_n && c->prof_end == start && c->prof_n + n >= c->prof_n) {
        c->prof_n += n;
        c->prof_end = end;
        return 0;
    }
    /* The waiting run goes out last, a tail call: this runs once a block. */
    uint64_t waiting = c->prof_start;
    uint32_t waiting_n = c->prof_n;
    c->prof_start = start;
    c->prof_n = n;
    c->prof_end = end;
    return waiting_n ? rvt_profile_run(c->prof, waiting, waiting_n, 0) : 0;
}

static int write_pc(void *user, uint64_t pc) {
    decode_ctx *c = user;
    if (!c->hold)
        return print_pc(c, pc);
    int rc = c->held ? print_pc(c, c->held_pc) : 0;
    c->held = true;
    c->held_pc = pc;
    return rc || profile_defer(c, pc, 1, 0);
}

static int flush_held(decode_ctx *c) {
    int rc = c->held ? print_pc(c, c->held_pc) : 0;
    c->held = false;
    return rc;
}


/* A trap in the listing and the --traps file: `at,xcause,interrupt,tval,
 * handler` (hex; the cause with the interrupt flag in the MSB as xcause has
 * it; '-' for what the trace does not say). */
static int note_trap(decode_ctx *c, const rvt_trap_event *t) {
    char cause[24] = "-", tval[24] = "-";
    if (t->has_cause)
        snprintf(cause, sizeof cause, "%" PRIx64, t->cause | (t->interrupt ? UINT64_C(1) << (c->xlen - 1) : 0));
    if (t->has_tval)
        snprintf(tval, sizeof tval, "%" PRIx64, t->tval);
    if (c->traps && fprintf(c->traps, "%" PRIx64 ",%s,%d,%s,%" PRIx64 "\n", t->at, cause, t->interrupt, tval,
                            t->handler) < 0)
        return 1;
    if (c->listing) {
        char what[64];
        if (t->has_cause)
            snprintf(what, sizeof what, "%s %" PRIu64, t->interrupt ? "interrupt" : "exception", t->cause);
        else
            snprintf(what, sizeof what, "%s", t->interrupt ? "interrupt" : "exception");
        return flush_pcs(c) || fprintf(c->out, "%16s -- %s at %" PRIx64 "%s%s, handler %" PRIx64 "\n", "", what, t->at,
                       t->has_tval ? ", tval " : "", t->has_tval ? tval : "", t->handler) < 0;
    }
    return 0;
}

/* E-Trace lists ecall and ebreak as retired and leaves out the instruction
 * an interrupt is marked on, as the PC list wants: traps are only noted. */
static int etrace_trap(void *user, const rvt_trap_event *t) { return note_trap(user, t); }

/* N-Trace reports every instruction that retired: the PC-list rule is
 * applied here (see decode_ctx.hold). */
static int ntrace_trap(void *user, const rvt_trap_event *t) {
    decode_ctx *c = user;
    if (t->interrupt) {
        if (c->held && c->prof_n) { /* the held instruction is the waiting run's last */
            c->prof_n--;
            c->prof_end = 0;
        }
        c->held = false;
        return note_trap(c, t);
    }
    rvt_insn in;
    int rc = flush_held(c);
    if (!rc && !c->sifive && fetch_code(c, t->at, &in) && in.cf == RVT_CF_TRAP)
        rc = print_pc(c, t->at) || profile_defer(c, t->at, 1, 0);
    return rc ? rc : note_trap(c, t);
}

/* `pc` in lower-case hex without leading zeros, and a newline, at `out`
 * (which has 24 bytes of room); returns the bytes of the line (17 at most). */
static inline __attribute__((always_inline)) size_t format_hex_line(char *out, uint64_t pc) {
    unsigned n = rvt_format_hex(out, pc);
    out[n] = '\n';
    return n + 1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A byte's two hex digits, the first at the lower address: two loads from
 * half a KiB make a line's last four digits (arithmetic took 15 operations). */
#define HEX_DIGIT(v) ((v) < 10 ? '0' + (v) : 'a' - 10 + (v))
#define HEX_PAIR(b) (uint16_t)(HEX_DIGIT((b) >> 4) | HEX_DIGIT((b) & 15) << 8)
#define HEX_PAIRS4(b) HEX_PAIR(b), HEX_PAIR(b + 1), HEX_PAIR(b + 2), HEX_PAIR(b + 3)
#define HEX_PAIRS16(b) HEX_PAIRS4(b), HEX_PAIRS4(b + 4), HEX_PAIRS4(b + 8), HEX_PAIRS4(b + 12)
#define HEX_PAIRS64(b) HEX_PAIRS16(b), HEX_PAIRS16(b + 16), HEX_PAIRS16(b + 32), HEX_PAIRS16(b + 48)
static const uint16_t hex_pairs[256] = {HEX_PAIRS64(0), HEX_PAIRS64(64), HEX_PAIRS64(128), HEX_PAIRS64(192)};

/* The four hex digits of `v`, the first at the lowest address. */
static uint32_t hex_digits4(uint32_t v) { return hex_pairs[(v >> 8) & 0xff] | (uint32_t)hex_pairs[v & 0xff] << 16; }
#endif

/* The lines of `k` instructions from *pc (bit i of `wide`: instruction i is
 * 32-bit) at `out`, which has 18 * k + 6 bytes of room; returns the end,
 * with *pc the address after them, *last the last one's address and *line
 * where its line starts. Between 64 KiB boundaries the lines share all but
 * their last four digits: only those are formatted (addresses of 5 to 8
 * digits, on little-endian hosts; others line by line). */
static char *format_hex_lines(char *out, uint64_t *pc, uint64_t wide, uint32_t k, uint64_t mask, uint64_t *last,
                              char **line) {
    /* locals only: the byte stores could alias anything in memory */
    uint64_t a = *pc, at = *last;
    char *start = *line;
    for (uint32_t i = 0; i < k;) {
        start = out;
        at = a;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (a >= 0x10000 && a <= 0xffffffffu) {
            unsigned n = (67 - (unsigned)__builtin_clzll(a)) / 4, shift = 8 * (n - 4);
            uint64_t top = a >> 16;
            uint64_t prefix = rvt_hex_skip_digits(rvt_hex_digits8((uint32_t)a), 8 - n) & ((UINT64_C(1) << shift) - 1);
            do {
                uint64_t word = prefix | (uint64_t)hex_digits4((uint32_t)a) << shift;
                start = out;
                at = a;
                memcpy(out, &word, 8);
                out[n] = '\n';
                out += n + 1;
                a += 2 + 2 * ((wide >> i) & 1); /* (masked below: leaving 32 bits ends the stretch) */
            } while (++i < k && a >> 16 == top);
            a &= mask;
            continue;
        }
#endif
        out += format_hex_line(out, a);
        a = (a + ((wide >> i) & 1 ? 4 : 2)) & mask;
        i++;
    }
    *pc = a;
    *last = at;
    *line = start;
    return out;
}

static int flush_pcs(decode_ctx *c) {
    size_t n = c->pcs_len;
    c->pcs_len = 0;
    return n && fwrite(c->pcs_buf, 1, n, c->out) != n;
}

static int output_pc(decode_ctx *c, uint64_t pc);

/* A listing repeats the lines of its loops, and a line depends on its
 * address (the code is the program's) but for the address comment of an
 * instruction that uses what a lui or auipc left in a register (see
 * rvt_disasm_split): the line of the last address of each slot is kept, a
 * bounded cache in front of the disassembler and the symbol and line
 * tables. Of the lines that depend on those registers, a lui or auipc only
 * sets one, and a load, store or addi through a register with no value
 * pending has a comment of its own (kept as a second text); only the rest
 * ask the disassembler, per instruction. */
#define LISTING_LINES 65536u
#define LISTING_LINE_MAX 1100 /* address, <symbol+offset> (300), disassembly (400), file:line (300) */
struct listing_line {
    uint64_t pc;
    char *text;     /* the line with its newline, not terminated; then the second text */
    unsigned len;   /* bytes of the line */
    unsigned note;  /* where the comment goes (0: the line does not depend on ctx) */
    unsigned alone; /* RVT_DIS_USES: bytes of the line as it is with no value pending (0: the line) */
    rvt_disasm_dep dep;
    rvt_insn in; /* for the comment */
    /* RVT_DIS_USES: the line as it was last listed with value `noted_from` pending */
    char *noted;
    unsigned noted_len;
    uint64_t noted_from;
};

/* Addresses in the listing's disassembly as objdump shows them: `ADDR <sym+0xOFF>`. */
static size_t listing_address(void *user, uint64_t addr, char *buf, size_t cap) {
    const decode_ctx *c = user;
    uint64_t off = 0;
    const char *sym = rvt_image_symbolize(c->img, addr, &off);
    int n = !sym ? snprintf(buf, cap, "%" PRIx64, addr)
            : off ? snprintf(buf, cap, "%" PRIx64 " <%s+0x%" PRIx64 ">", addr, sym, off)
                  : snprintf(buf, cap, "%" PRIx64 " <%s>", addr, sym);
    return n < 0 ? 0 : (size_t)n;
}

/* The listing line of `pc` at `out` without a comment that depends on
 * the disassembler's state (*note: where it goes, else 0); returns its length. */
static unsigned format_listing_line(decode_ctx *c, uint64_t pc, char out[LISTING_LINE_MAX], rvt_insn *in,
                                    unsigned *note, rvt_disasm_dep *dep) {
    char text[400] = "?";
    *dep = (rvt_disasm_dep){RVT_DIS_STATELESS, 0, 0};
    if (fetch_code(c, pc, in)) {
        rvt_disasm_ctx scratch = c->dis; /* the state changes as the line is listed, not here */
        rvt_disasm_split(&scratch, in, NULL, pc, text, sizeof text, dep);
    }
    uint64_t off = 0;
    const char *sym = rvt_image_symbolize(c->img, pc, &off);
    const char *file;
    unsigned line;
    char where[300] = "", src[300] = "";
    if (sym)
        snprintf(where, sizeof where, off ? "<%s+0x%" PRIx64 ">" : "<%s>", sym, off);
    if (rvt_image_source_line(c->img, pc, &file, &line))
        snprintf(src, sizeof src, "\t%s:%u", file, line);
    int head = snprintf(out, LISTING_LINE_MAX, "%16" PRIx64 " %-28s %s", pc, where, text);
    int n = head + snprintf(out + head, LISTING_LINE_MAX - (unsigned)head, "%s\n", src);
    *note = dep->kind != RVT_DIS_STATELESS ? (unsigned)head : 0;
    if (n >= LISTING_LINE_MAX) { /* cut short: the line still ends */
        n = LISTING_LINE_MAX;
        out[n - 1] = '\n';
    }
    return (unsigned)n;
}

/* `l`'s line at `out` with `comment` (`extra` bytes) in its place. */
static size_t put_noted_line(char *out, const struct listing_line *l, const char *comment, size_t extra) {
    memcpy(out, l->text, l->note);
    memcpy(out + l->note, comment, extra);
    memcpy(out + l->note + extra, l->text + l->note, l->len - l->note);
    return l->len + extra;
}

/* The cache slot of `pc` filled with its line. */
static struct listing_line *listing_line_of(decode_ctx *c, uint64_t pc) {
    struct listing_line *l = &c->lines[(pc >> 1) & (LISTING_LINES - 1)];
    if (l->text && l->pc == pc)
        return l;
    char text[3 * LISTING_LINE_MAX]; /* the line, then the line with a comment */
    struct listing_line made = {.pc = pc, .text = text};
    made.len = format_listing_line(c, pc, text, &made.in, &made.note, &made.dep);
    if (made.dep.kind == RVT_DIS_USES) {
        rvt_disasm_ctx alone = c->dis;
        alone.hi_valid[made.dep.reg] = false;
        char comment[LISTING_LINE_MAX];
        size_t extra = rvt_disasm_note(&alone, &made.in, pc, comment, sizeof comment);
        if (extra >= sizeof comment)
            made.dep.kind = RVT_DIS_STATEFUL; /* (cut short: worked out each time, as before) */
        else if (extra)
            made.alone = (unsigned)put_noted_line(text + made.len, &made, comment, extra);
    }
    char *keep = realloc(l->text, made.len + made.alone);
    if (!keep)
        return NULL;
    memcpy(keep, text, made.len + made.alone);
    made.text = keep;
    free(l->noted);
    *l = made;
    return l;
}

static int print_pc(decode_ctx *c, uint64_t pc) {
    c->listed++;
    if (c->prof && !c->hold && rvt_profile_pc(c->prof, pc)) /* with hold, profile_defer counts */
        return 1;
    return output_pc(c, pc);
}

/* dqr pads its cycle column to this width */
#define CA_COLUMN 14

/* --cycles: the cycle column of the instruction at `pc`, as SiFive's
 * decoder pairs the file with the flow: nothing until a sync that enables
 * trace or leaves debug mode (ntrace_ca_sync); at the first instruction
 * there the file is walked from its start address to it (rvt_ca_align),
 * or, when that cannot reach it, the flow must reach the start address
 * within 16 instructions; from then on each instruction takes the next
 * cycles. Where the file ends (the CA buffer filled first) the rest has
 * none, which is noted. */
static int ca_column(decode_ctx *c, uint64_t pc) {
    char text[160] = "";
    rvt_diag d = {{0}};
    rvt_insn in;
    if (c->ca_phase == CA_ARMED && pc == c->ca_first) {
        int rc = rvt_ca_align(c->ca, pc, fetch_code, c, &d);
        if (rc < 0 && rc != RVT_E_TRUNC) {
            fprintf(stderr, "rvtrace decode: %s\n", d.msg);
            return 1;
        }
        c->ca_phase = rc == 1 ? CA_ON : CA_WINDOW;
        c->ca_left = 16;
        if (rc == RVT_E_TRUNC) {
            fprintf(stderr, "rvtrace decode: %s (walking from its start address %#" PRIx64 " to %#" PRIx64 ")\n", d.msg,
                    rvt_ca_start(c->ca), pc);
            c->ca_phase = CA_ENDED;
        }
    }
    if (c->ca_phase == CA_WINDOW) {
        if (pc == rvt_ca_start(c->ca)) {
            c->ca_phase = CA_ON;
        } else if (--c->ca_left == 0) {
            fprintf(stderr, "rvtrace decode: %s: does not pair with the trace: its start address %#" PRIx64 " (record 0, "
                            "byte 0) is not reached walking 30 instructions from %#" PRIx64 ", where message %" PRIu64
                            " (byte %" PRIu64 ") starts the trace, nor among the 16 instructions traced from there\n",
                    c->ca_file, rvt_ca_start(c->ca), c->ca_first, c->ca_sync_msg, c->ca_sync_byte);
            return 1;
        }
    }
    if (c->ca_phase == CA_ON) {
        rvt_ca_note note;
        rvt_ca_class cls = fetch_code(c, pc, &in) ? rvt_ca_classify(&in) : RVT_CA_SCALAR;
        int rc = rvt_ca_next(c->ca, cls, &note, &d);
        if (rc == RVT_E_TRUNC) {
            fprintf(stderr, "rvtrace decode: %s: the %" PRIu64 " instructions from %#" PRIx64 " on have no cycles\n",
                    d.msg, c->ca_noted ? c->ca_noted + 1 : 1, pc);
            c->ca_phase = CA_ENDED;
        } else if (rc) {
            fprintf(stderr, "rvtrace decode: %s (at the instruction at %#" PRIx64 ")\n", d.msg, pc);
            return 1;
        } else {
            rvt_ca_format(&note, c->ca_last, text, sizeof text - 1);
            c->ca_last = note.cycle;
            c->ca_noted++;
        }
    }
    size_t len = strlen(text);
    if (c->pcs_len > sizeof c->pcs_buf - sizeof text - CA_COLUMN && flush_pcs(c))
        return 1;
    char *out = c->pcs_buf + c->pcs_len;
    memcpy(out, text, len);
    out[len++] = ' ';
    while (len < CA_COLUMN)
        out[len++] = ' ';
    c->pcs_len += len;
    return 0;
}

/* The PC list or listing line of one instruction (counted elsewhere). */
static int output_pc(decode_ctx *c, uint64_t pc) {
    if (!c->write_pcs)
        return 0;
    if (!c->listing) { /* the PC list can run to gigabytes: no stdio per line */
        if (c->pcs_len > sizeof c->pcs_buf - 24 && flush_pcs(c))
            return 1;
        c->pcs_len += format_hex_line(c->pcs_buf + c->pcs_len, pc);
        return 0;
    }
    if (c->ca && ca_column(c, pc))
        return 1;
    struct listing_line *l = listing_line_of(c, pc);
    if (!l)
        return 1;
    const char *text = l->text;
    size_t len = l->len;
    const unsigned reg = l->dep.reg;
    switch (l->dep.kind) {
    case RVT_DIS_STATELESS:
        break;
    case RVT_DIS_SETS:
        rvt_disasm_set(&c->dis, &l->dep);
        break;
    case RVT_DIS_USES:
        if (!c->dis.hi_valid[reg]) {
            if (l->alone) {
                text += l->len;
                len = l->alone;
            }
            break;
        }
        if (l->noted && l->noted_from == c->dis.hi_addr[reg]) { /* (a loop's) */
            c->dis.hi_valid[reg] = false;
            text = l->noted;
            len = l->noted_len;
            break;
        }
        /* fall through */
    default: {
        char comment[LISTING_LINE_MAX];
        const uint64_t from = c->dis.hi_addr[reg];
        size_t extra = rvt_disasm_note(&c->dis, &l->in, pc, comment, sizeof comment);
        if (c->pcs_len > sizeof c->pcs_buf - l->len - extra && flush_pcs(c))
            return 1;
        char *out = c->pcs_buf + c->pcs_len;
        c->pcs_len += len = put_noted_line(out, l, comment, extra);
        if (l->dep.kind == RVT_DIS_USES) {
            char *keep = realloc(l->noted, len);
            if (!keep)
                return 1;
            memcpy(keep, out, len);
            l->noted = keep;
            l->noted_len = (unsigned)len;
            l->noted_from = from;
        }
        return 0;
    }
    }
    if (c->pcs_len > sizeof c->pcs_buf - len && flush_pcs(c))
        return 1;
    memcpy(c->pcs_buf + c->pcs_len, text, len);
    c->pcs_len += len;
    return 0;
}

static uint64_t address_mask(const decode_ctx *c) { return c->xlen == 32 ? 0xffffffffu : ~0ull; }

/* The address after instruction i of a run at `pc` (sizes: the bits of `wide`). */
static uint64_t run_next(const decode_ctx *c, uint64_t pc, uint64_t wide, uint32_t i) {
    return (pc + ((wide >> i) & 1 ? 4 : 2)) & address_mask(c);
}

/* A straight run listed again (a loop's body, a function's straight
 * stretches) is one copy of its lines, where none of them depends on a
 * value pending as it starts (most do not: objdump's values live from a
 * lui or auipc to the next load, store or addi through its register). */
#define LISTING_RUNS 16384u
#define LISTING_RUN_TEXT 16384u /* longer ones go line by line */
#define LISTING_RUN_SETS 4
struct listing_run {
    uint64_t start;
    uint32_t n;     /* instructions (0: a free slot) */
    bool whole;     /* the text and the rest below hold (else: line by line) */
    uint32_t needs; /* registers with no value pending as the run starts, for the text to hold */
    unsigned nsets;
    rvt_disasm_dep sets[LISTING_RUN_SETS]; /* the values its lui and auipc leave, in order */
    char *text;
    size_t len;
};

/* Fills run slot r with the run of n instructions from `start`. */
static int make_listing_run(decode_ctx *c, struct listing_run *r, uint64_t start, uint32_t n, uint64_t wide) {
    char text[LISTING_RUN_TEXT];
    size_t len = 0;
    uint32_t set = 0; /* registers set earlier in the run */
    *r = (struct listing_run){.start = start, .n = n, .whole = true, .text = r->text};
    uint64_t pc = start;
    for (uint32_t i = 0; i < n && r->whole; pc = run_next(c, pc, wide, i), i++) {
        const struct listing_line *l = listing_line_of(c, pc);
        if (!l)
            return 1;
        const char *line = l->text;
        size_t bytes = l->len;
        switch (l->dep.kind) {
        case RVT_DIS_STATELESS:
            break;
        case RVT_DIS_SETS:
            set |= 1u << l->dep.reg;
            r->whole = r->nsets < LISTING_RUN_SETS;
            if (r->whole)
                r->sets[r->nsets++] = l->dep;
            break;
        case RVT_DIS_USES:
            r->whole = !(set >> l->dep.reg & 1);
            r->needs |= 1u << l->dep.reg;
            if (l->alone) {
                line += l->len;
                bytes = l->alone;
            }
            break;
        default:
            r->whole = false;
        }
        if (len + bytes > sizeof text)
            r->whole = false;
        else
            memcpy(text + len, line, bytes);
        len += bytes;
    }
    if (!r->whole)
        return 0;
    char *keep = realloc(r->text, len);
    if (!keep)
        return 1;
    memcpy(keep, text, len);
    r->text = keep;
    r->len = len;
    return 0;
}

/* The listing of n instructions from `start` (sizes: the bits of `wide`). */
static int list_run(decode_ctx *c, uint64_t start, uint32_t n, uint64_t wide) {
    if (!n)
        return 0;
    if (c->ca) { /* a column per instruction */
        uint64_t pc = start;
        for (uint32_t i = 0; i < n; pc = run_next(c, pc, wide, i), i++)
            if (output_pc(c, pc))
                return 1;
        return 0;
    }
    struct listing_run *r = &c->runs[((start >> 1) ^ (uint64_t)n * 0x9e3779b1u) & (LISTING_RUNS - 1)];
    if ((r->start != start || r->n != n) && make_listing_run(c, r, start, n, wide))
        return 1;
    bool whole = r->whole;
    for (uint32_t m = r->needs; m && whole; m &= m - 1)
        whole = !c->dis.hi_valid[__builtin_ctz(m)];
    if (whole) {
        if (c->pcs_len > sizeof c->pcs_buf - r->len && flush_pcs(c))
            return 1;
        memcpy(c->pcs_buf + c->pcs_len, r->text, r->len);
        c->pcs_len += r->len;
        for (unsigned k = 0; k < r->nsets; k++)
            rvt_disasm_set(&c->dis, &r->sets[k]);
        return 0;
    }
    uint64_t pc = start;
    for (uint32_t i = 0; i < n; pc = run_next(c, pc, wide, i), i++)
        if (output_pc(c, pc))
            return 1;
    return 0;
}

/* A straight run. N-Trace (`hold`): every address but the last goes out
 * now, the last waits like any held one, and the profile gets the run with
 * the held one, one run late. E-Trace: all of it now. */
static int write_run(void *user, uint64_t start, uint32_t n, uint64_t wide) {
    decode_ctx *c = user;
    if (n == 0 || flush_held(c))
        return n ? 1 : 0;
    uint64_t mask = address_mask(c), units = rvt_run_units(n, wide);
    if (c->hold ? profile_defer(c, start, n, (start + 2 * units) & mask)
                : c->prof && rvt_profile_run(c->prof, start, n, wide))
        return 1;
    uint32_t now = c->hold ? n - 1 : n; /* what goes out now */
    c->listed += now;
    uint64_t pc = start;
    if (c->listing) { /* (the plain PC list takes blocks: list_block) */
        if (list_run(c, start, now, wide))
            return 1;
        pc = (start + 2 * rvt_run_units(now, wide)) & mask;
    } else if (c->hold) { /* the held last instruction only */
        pc = (start + 2 * units - ((wide >> (n - 1)) & 1 ? 4 : 2)) & mask;
    }
    if (c->hold) {
        c->held = true;
        c->held_pc = pc;
    }
    return 0;
}

/* E-Trace into the profile alone: whole runs, no address on its own. */
static int profile_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    decode_ctx *c = user;
    c->listed += n;
    return rvt_profile_block(c->prof, start, end, n);
}

static int profile_walk(void *user, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns) {
    decode_ctx *c = user;
    c->listed += insns;
    return rvt_profile_walk(c->prof, id, blocks, n);
}

static unsigned nothing_ends_a_run(const rvt_insn *in) {
    (void)in;
    return 0;
}

/* The PC list of a block of n instructions from `start`, sizes a run of up
 * to RVT_RUN_MAX at a time from c->pc_runs (a block sink lets the decoders'
 * kept walks serve the PC list too). With `hold_last` the last one is held
 * (decode_ctx.hold) instead of written. */
static int list_block(decode_ctx *c, uint64_t start, uint32_t n, bool hold_last) {
    const uint64_t mask = address_mask(c);
    uint64_t pc = start, last = start;
    while (n) {
        if (c->pcs_len > sizeof c->pcs_buf - 18 * (RVT_RUN_MAX + 1) - 6 && flush_pcs(c))
            return 1;
        const rvt_run *r = rvt_run_at(c->pc_runs, pc);
        uint32_t k = r->n < n ? r->n : n;
        char *line = NULL, *out = format_hex_lines(c->pcs_buf + c->pcs_len, &pc, r->wide, k, mask, &last, &line);
        n -= k;
        if (n && k < RVT_RUN_MAX) { /* code a walk does not pass (the decoders' size rule: 2 unknown) */
            rvt_insn in;
            line = out;
            last = pc;
            out += format_hex_line(out, pc);
            pc = (pc + (fetch_code(c, pc, &in) ? in.len : 2)) & mask;
            n--;
        }
        if (!n && hold_last) { /* the last line goes back: its address waits */
            c->held = true;
            c->held_pc = last;
            out = line;
        }
        c->pcs_len = (size_t)(out - c->pcs_buf);
    }
    return 0;
}

/* E-Trace into the PC list (and the profile): whole blocks. */
static int etrace_pcs_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    decode_ctx *c = user;
    if (c->prof && rvt_profile_block(c->prof, start, end, n))
        return 1;
    c->listed += n;
    return list_block(c, start, n, false);
}

/* N-Trace into the PC list (and the profile): as write_run, a block at a
 * time; the last instruction is held. */
static int ntrace_pcs_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    decode_ctx *c = user;
    if (n == 0)
        return 0;
    if (flush_held(c) || profile_defer(c, start, n, end))
        return 1;
    c->listed += n - 1;
    return list_block(c, start, n, true);
}

/* N-Trace into the profile alone: whole blocks. As write_run, without the
 * addresses: the last instruction is held (an interrupt marked on it takes
 * it back), the profile gets the block one block late. */
static int ntrace_profile_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    decode_ctx *c = user;
    if (n == 0)
        return 0;
    c->listed += n - !c->held; /* (flush_held, with no address to write) */
    c->held = true;
    return profile_defer(c, start, n, end);
}

/* A kept walk, as its blocks one by one to ntrace_profile_block: the last
 * waits (it may be taken back), the one waiting before goes on its own. */
static int ntrace_profile_walk(void *user, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns) {
    decode_ctx *c = user;
    if (n == 0)
        return 0;
    c->listed += insns - !c->held;
    c->held = true;
    if (!c->prof)
        return 0;
    if (profile_flush(c) || (n > 1 && rvt_profile_walk(c->prof, id, blocks, n - 1)))
        return 1;
    return profile_defer(c, blocks[n - 1].start, blocks[n - 1].n, rvt_block_end(&blocks[n - 1]));
}

/* What N-Trace decoding writes beside the flow: the message listing
 * (--messages) and, for SiFive captures, the ITC text (--itc-print). */
typedef struct {
    FILE *messages, *itc;
    rvt_itc_printer *printer;
    unsigned dialect, src_bits;
    uint64_t count;                 /* messages read, numbered from 1 */
    rvt_sifive_clock clock[16];     /* per trace source */
    rvt_ntrace_clock ntrace_clock[16];
    uint64_t addressed[16];         /* per source: NxtAddr after its last message with an address */
} nexus_side;

static int write_itc_line(void *user, const char *line) { return fprintf(user, "%s\n", line) < 0; }

/* One listing line: the message number, the time, where the flow goes next
 * (for an in-circuit trace event: the event's address), and the fields. */
static int list_message(nexus_side *s, const rvt_nexus_msg *m, const rvt_ntrace_decoder *dec) {
    FILE *f = s->messages;
    unsigned src = (unsigned)rvt_nexus_get(m, RVT_NXF_SRC, 0);
    if (s->src_bits && fprintf(f, "[%u] ", src) < 0)
        return 1;
    fprintf(f, "Msg # %" PRIu64 ", ", s->count);
    uint64_t t, addr = 0;
    if (s->dialect == RVT_NEXUS_SIFIVE ? rvt_sifive_time(&s->clock[src & 15], m, &t)
                                       : rvt_ntrace_time(&s->ntrace_clock[src & 15], m, &t))
        fprintf(f, "Tics: %" PRIu64 ", ", t);
    else if (rvt_nexus_has(m, RVT_NXF_TSTAMP)) /* (relative, before any absolute time) */
        fprintf(f, "TSTAMP: %" PRIu64 ", ", rvt_nexus_get(m, RVT_NXF_TSTAMP, 0));
    char where[32];
    if (m->tcode == RVT_NX_ICT || m->tcode == RVT_NX_ICT_SYNC) {
        if (!dec || !rvt_ntrace_decoder_event_addr(dec, &addr))
            addr = 0;
        snprintf(where, sizeof where, "Address: %08" PRIx64, addr);
    } else {
        int known = dec ? rvt_ntrace_decoder_next_addr(dec, &addr) : RVT_NEXT_NONE;
        if (known != RVT_NEXT_KNOWN)
            addr = 0;
        if (rvt_nexus_has(m, RVT_NXF_FADDR) || rvt_nexus_has(m, RVT_NXF_UADDR))
            s->addressed[src & 15] = addr;
        /* SiFive's tools show where a correlation stops as the last address
         * sent plus its I-CNT, straight on, whatever the code did */
        if (s->dialect == RVT_NEXUS_SIFIVE && m->tcode == RVT_NX_PROG_TRACE_CORRELATION && known != RVT_NEXT_NONE &&
            rvt_ntrace_decoder_traced(dec)) {
            addr = s->addressed[src & 15] + 2 * rvt_nexus_get(m, RVT_NXF_ICNT, 0);
            known = RVT_NEXT_KNOWN;
        }
        if (known == RVT_NEXT_PENDING) /* the flow ended on a jump whose target is still to come */
            snprintf(where, sizeof where, "NxtAddr: <unknown>");
        else
            snprintf(where, sizeof where, "NxtAddr: %08" PRIx64, addr);
    }
    fprintf(f, "%s, ", where);
    const char *name = rvt_nexus_dialect_tcode_name(s->dialect, m->tcode);
    fprintf(f, "TCode: %s (%u)", name ? name : "?", m->tcode);
    for (unsigned i = 0; i < m->nfields; i++) {
        unsigned id = m->fields[i].id;
        if (id != RVT_NXF_TCODE && id != RVT_NXF_SRC && id != RVT_NXF_TSTAMP)
            fprintf(f, " %s: %#" PRIx64, rvt_nexus_field_name((rvt_nexus_field_id)id), m->fields[i].value);
    }
    return fputc('\n', f) == EOF;
}

/* The path was lost (the decoder says why): reported with where it was,
 * decoding resumes at the next sync unless --strict; true to stop. */
static bool path_lost(decode_ctx *c, const char *why) {
    fprintf(stderr, "rvtrace decode: %s: trace lost after %" PRIu64 " instructions: %s%s\n", c->trace,
            c->listed + c->held, why, c->strict ? "" : "; resuming at the next sync");
    c->losses++;
    return c->strict;
}

/* Bytes of the stream could not be read as messages (the reader says why). */
static bool damaged_stream(decode_ctx *c, const char *why) {
    fprintf(stderr, "rvtrace decode: %s: trace lost after %" PRIu64 " instructions: %s\n", c->trace,
            c->listed + c->held, why);
    c->losses++;
    return c->strict;
}

enum { POOL_STOP = 2 }; /* what the pool's callbacks return to stop at --strict (sinks fail with 1) */
static int pool_lost(void *user, const char *why) { return path_lost(user, why) ? POOL_STOP : 0; }
static int pool_damaged(void *user, const char *why) { return damaged_stream(user, why) ? POOL_STOP : 0; }

/* A damaged or filled stretch (`why`) of a stream decoded with `pool`, whose
 * workers hear of it in order with the flow before it and start afresh, or
 * decoded here, where it is reported now: stop (the pool failed, *status
 * set; or --strict), the caller's decoders resynchronise, or go on. */
enum damage_next { DAMAGE_GO_ON, DAMAGE_RESYNC, DAMAGE_STOP };
static enum damage_next take_damage(decode_ctx *c, rvt_decode_pool *pool, const char *why, int *status) {
    if (!pool)
        return damaged_stream(c, why) ? DAMAGE_STOP : DAMAGE_RESYNC;
    int rc = rvt_decode_pool_damage(pool, why);
    if (rc == 0)
        return DAMAGE_GO_ON;
    *status = rc != POOL_STOP;
    return DAMAGE_STOP;
}

/* The capture's next bytes after data[0..have), up to `cap`: false after
 * a read error (reported). */
static bool read_more(decode_ctx *c, rvt_zreader *zr, uint8_t *data, size_t *have, size_t cap, bool *eof) {
    rvt_diag d;
    long n = rvt_zreader_read(zr, data + *have, cap - *have, &d);
    if (n < 0) {
        fprintf(stderr, "rvtrace decode: %s\n", d.msg);
        return false;
    }
    *eof = n == 0;
    *have += (size_t)n;
    note_read(c, n);
    return true;
}

/* With --threads: where the next packet or message is read (the pool keeps
 * it there); NULL, reported, when memory ran out. */
static void *pool_room(rvt_decode_pool *pool) {
    void *room = rvt_decode_pool_room(pool);
    if (!room)
        fprintf(stderr, "rvtrace decode: out of memory\n");
    return room;
}

/* With --threads: a pool that decodes segments of the trace at once and
 * hands their flow to what `dec` would have given it to. */
static int start_pool(decode_ctx *c, rvt_decode_pool **pool, const rvt_pool_codec *codec, void *dec,
                      rvt_block_sink block, rvt_walk_sink walk, rvt_trap_sink trap) {
    /* Threads pay from a few hundred thousand packets or messages on (on two
     * cores, a trace of 60 K took twice as long on two threads as on one);
     * an explicit --segment splits from the first item. */
    rvt_decode_pool_config pc = {.threads = c->threads - 1, .codec = codec, .decoder = dec,
                                 .sinks = {write_pc, write_run, block, trap, pool_lost, walk}, .user = c,
                                 .damaged = pool_damaged, .min_segment = c->min_segment,
                                 .warm_up = c->min_segment ? 0 : DECODE_WARM_UP};
    if (rvt_image_decode_all(c->img) || rvt_decode_pool_new(pool, &pc)) {
        fprintf(stderr, "rvtrace decode: out of memory\n");
        return 1;
    }
    return 0;
}

/* Zero bytes where packets should be: what a capture buffer holds where
 * nothing was written. A run longer than this ends the decode (the rest is
 * not read), or /dev/zero would be read for ever. */
#define FILL_LIMIT ((uint64_t)256 << 20)
/* Shorter runs are padding the formats allow (E-Trace's alignment run) and
 * go unreported. */
#define FILL_PADDING RVT_TE_ALIGN_ZEROS

/* A run of `len` zero bytes from file offset `at` has ended (with the
 * capture when `at_end`). Fill before the first packet or after the last
 * one loses nothing and is only noted; fill between two pieces of trace
 * stands where trace was, and so does a capture of nothing but fill: true
 * with the text of the loss in `why` (the caller counts it and resyncs).
 * Fill that follows damage with no packet between belongs to the same
 * lost stretch (already counted): noted. *stop: the rest is not read. */
static bool fill_loss(decode_ctx *c, uint64_t at, uint64_t len, bool at_end, bool damaged, bool *stop, char *why,
                      size_t cap) {
    uint64_t last = at + len - 1;
    if (len >= FILL_LIMIT) {
        *stop = true;
        if (!c->packets)
            snprintf(why, cap, "no trace found: the first %" PRIu64 " bytes are zero (fill); the rest is not read",
                     len);
        else
            snprintf(why, cap, "bytes %" PRIu64 "..%" PRIu64 " are zero (fill, no trace), so may be all that "
                     "follows: the rest is not read", at, last);
        return true;
    }
    if (!c->packets && at_end) {
        snprintf(why, cap, "no trace found: all %" PRIu64 " bytes are zero (fill)", len);
        return true;
    }
    if (at_end || !c->packets || damaged) {
        fprintf(stderr, "rvtrace decode: %s: bytes %" PRIu64 "..%" PRIu64 ": %" PRIu64 " zero bytes of fill%s, "
                "skipped\n", c->trace, at, last, len,
                damaged ? " after the damage" : at_end ? " after the trace" : " before the trace");
        return false;
    }
    snprintf(why, cap, "bytes %" PRIu64 "..%" PRIu64 ": %" PRIu64 " zero bytes (fill, no trace) skipped; decoding "
             "resumes after them", at, last, len);
    return true;
}

/* E-Trace: the capture is read in 1 MiB pieces; a packet cut at the end of a
 * piece waits for the next one (offsets in messages are from the file
 * start). A damaged packet header is reported, the reader looks for the next
 * byte that parses as a packet and the decoder waits for a sync; so does a
 * packet the decoder cannot follow. Bytes skipped on the way to the next
 * good packet are one loss, however many of them failed to parse. A run of
 * zero bytes (zero records) longer than the encapsulation's alignment run
 * is fill: skipped and reported with its range, and a loss when trace
 * follows it. Returns 1 when decoding could not go on (I/O, memory), else 0. */
static int decode_etrace(rvt_zreader *zr, const rvt_etrace_params *p, const rvt_etrace_options *o,
                         const rvt_te_transport *transport, int source, rvt_etrace_decoder *dec, decode_ctx *c) {
    rvt_decode_pool *pool = NULL;
    if (c->threads > 1 &&
        start_pool(c, &pool, &rvt_etrace_pool_codec, dec, c->pc_runs ? etrace_pcs_block : profile_block,
                   c->pc_runs ? NULL : profile_walk, etrace_trap))
        return 1;
    const size_t chunk = 1 << 20;
    uint8_t *data = malloc(chunk + 64);
    int status = data ? 0 : 1;
    size_t have = 0, base = 0;
    bool eof = false;
    rvt_te_raw_cursor cur = {.data = data, .size = 0, .t = transport};
    /* rv_tracer writes whole records: fill is a record of zeros; the
     * encapsulation's own alignment runs are RVT_TE_ALIGN_ZEROS long. */
    const bool records = transport && transport->rv_tracer_records;
    const size_t unit = records ? RVT_RV_TRACER_RECORD : 1;
    const uint64_t padding = records ? 0 : FILL_PADDING;
    uint64_t fill_at = 0, fill_len = 0;
    bool damaged = false, stop = false;
    long first_src = -1; /* the source index of the first packet (without --source) */
    rvt_diag d = {{0}};
    if (!data)
        fprintf(stderr, "rvtrace decode: out of memory (a 1 MiB read buffer)\n");
    while (data && !stop) {
        if (!eof && have - cur.pos < 64) {
            memmove(data, data + cur.pos, have - cur.pos);
            base += cur.pos;
            have -= cur.pos;
            cur.pos = 0;
            if (!read_more(c, zr, data, &have, chunk + 64, &eof)) {
                status = 1;
                break;
            }
            cur.data = data;
            cur.size = have;
            cur.base = base;
            cur.no_zeros_from = 0;
        }
        while (cur.size - cur.pos >= unit && fill_len < FILL_LIMIT) {
            size_t k = 0;
            while (k < unit && data[cur.pos + k] == 0)
                k++;
            if (k < unit)
                break;
            if (!fill_len)
                fill_at = base + cur.pos;
            fill_len += unit;
            cur.pos += unit;
        }
        bool at_end = eof && cur.pos >= cur.size;
        if (fill_len < FILL_LIMIT && !at_end && !eof && cur.size - cur.pos < 64)
            continue; /* the run may go on in the next piece */
        if (fill_len > padding) {
            char why[200];
            if (fill_loss(c, fill_at, fill_len, at_end, damaged, &stop, why, sizeof why)) {
                enum damage_next next = take_damage(c, pool, why, &status);
                if (next == DAMAGE_STOP)
                    break;
                if (next == DAMAGE_RESYNC)
                    rvt_etrace_decoder_resync(dec);
            }
        }
        fill_len = 0;
        if (stop)
            break;
        rvt_etrace_item own, *it = pool ? pool_room(pool) : &own;
        if (!it) {
            status = 1;
            break;
        }
        size_t off;
        int rc = rvt_te_raw_next(&cur, p, o, &it->pkt, &off, &d);
        if (rc == 0)
            break;
        if (rc < 0) {
            rvt_te_raw_resync(&cur);
            if (damaged) /* the same damaged stretch: reported once */
                continue;
            damaged = true;
            enum damage_next next = take_damage(c, pool, d.msg, &status);
            if (next == DAMAGE_STOP)
                break;
            if (next == DAMAGE_RESYNC)
                rvt_etrace_decoder_resync(dec);
            continue;
        }
        damaged = false;
        ++c->packets;
        if (source >= 0 && cur.src != (unsigned)source)
            continue; /* another source's packet (the encapsulation's index) */
        if (source < 0 && transport && transport->index_bytes) {
            /* one decoder follows one source: the harts of run -p N mixed would be nonsense */
            if (first_src < 0) {
                first_src = (long)cur.src;
            } else if (cur.src != (unsigned long)first_src) {
                fprintf(stderr, "rvtrace decode: %s: byte %" PRIu64 ": packets of source index %ld and %u: decode "
                        "one source at a time (--source N)\n", c->trace, (uint64_t)(base + off), first_src, cur.src);
                status = 1;
                break;
            }
        }
        it->offset = base + off;
        it->index = c->packets;
        if (pool) {
            if ((rc = rvt_decode_pool_item(pool, it)) != 0) {
                status = rc != POOL_STOP;
                break;
            }
            continue;
        }
        rc = rvt_etrace_decode_item(dec, it, &d);
        if (rc == RVT_E_IO) {
            status = 1;
            break;
        }
        if (rc && path_lost(c, d.msg))
            break;
    }
    if (pool && !status) {
        int rc = rvt_decode_pool_finish(pool);
        status = rc && rc != POOL_STOP;
    }
    if (pool)
        rvt_decode_pool_counts(pool, &c->segments, &c->segments_chained, &c->segments_again);
    rvt_decode_pool_free(pool);
    free(data);
    return status;
}

/* --cycles: SiFive's decoder pairs the cycle file with the flow from the
 * first sync that enables trace (reason 5) or leaves debug mode (3), or an
 * in-circuit trace control event that does (CKDATA1 2 or 4): its address
 * is where the flow and the file meet. */
static void ca_sync(decode_ctx *c, const rvt_nexus_msg *m, uint64_t number) {
    uint64_t addr;
    switch (m->tcode) {
    case RVT_NX_PROG_TRACE_SYNC:
    case RVT_NX_DIRECT_BRANCH_SYNC:
    case RVT_NX_INDIRECT_BRANCH_SYNC:
    case RVT_NX_INDIRECT_BRANCH_HIST_SYNC: {
        uint64_t reason = rvt_nexus_get(m, RVT_NXF_SYNC, 0);
        if ((reason != 3 && reason != 5) || !rvt_nexus_has(m, RVT_NXF_FADDR))
            return;
        addr = rvt_nexus_get(m, RVT_NXF_FADDR, 0) << 1;
        break;
    }
    case RVT_NX_ICT_SYNC: {
        uint64_t control = rvt_nexus_get(m, RVT_NXF_CKDATA1, 0);
        if (rvt_nexus_get(m, RVT_NXF_CKSRC, 1) != 0 || rvt_nexus_get(m, RVT_NXF_CKDF, 0) != 1 ||
            (control != 2 && control != 4))
            return;
        addr = rvt_nexus_get(m, RVT_NXF_CKDATA0, 0) << 1;
        break;
    }
    default:
        return;
    }
    c->ca_phase = CA_ARMED;
    c->ca_first = addr & address_mask(c);
    c->ca_sync_msg = number;
    c->ca_sync_byte = m->offset;
}

/* Bytes are read in 1 MiB pieces; a message cut at the end of a piece
 * waits for the next one. Damage is reported (and counted in c->losses)
 * and decoding resumes at the next message with a full address; messages
 * that fail to parse one after another are one damaged stretch, one loss,
 * as E-Trace's packets are. Several
 * trace sources (SRC) get a decoder each, unless --src-id keeps one.
 * Returns 1 when decoding could not go on (I/O, memory), else 0. */
static int decode_ntrace(rvt_zreader *zr, const char *trace, const rvt_ntrace_decoder_options *opt, decode_ctx *c,
                         nexus_side *side) {
    enum { MAX_SOURCES = 16 };
    rvt_ntrace_decoder *decs[MAX_SOURCES] = {0};
    unsigned nsources = opt->src_bits && opt->src_id < 0 ? (opt->src_bits >= 4 ? 16u : 1u << opt->src_bits) : 1;
    for (unsigned i = 0; i < nsources; i++) {
        rvt_ntrace_decoder_options o = *opt;
        if (nsources > 1)
            o.src_id = (int)i;
        o.share_runs_of = i ? decs[0] : NULL; /* one program: one cache of its straight runs */
        if (rvt_ntrace_decoder_new(&decs[i], &o, c->xlen, fetch_code, write_pc, c)) {
            for (unsigned k = i; k-- > 0;)
                rvt_ntrace_decoder_free(decs[k]);
            return 1;
        }
        rvt_ntrace_decoder_set_trap_sink(decs[i], ntrace_trap);
        rvt_ntrace_decoder_set_run_sink(decs[i], write_run);
        if (c->pc_runs) {
            rvt_ntrace_decoder_set_block_sink(decs[i], ntrace_pcs_block);
        } else if (c->prof && !c->write_pcs) {
            rvt_ntrace_decoder_set_block_sink(decs[i], ntrace_profile_block);
            rvt_ntrace_decoder_set_walk_sink(decs[i], ntrace_profile_walk);
        }
    }
    c->hold = true;
    /* Threads where the flow alone is written: the message listing and the
     * ITC text follow the decoder message by message. */
    rvt_decode_pool *pool = NULL;
    if (c->threads > 1 && nsources == 1 && !side->messages && !side->printer) {
        if (start_pool(c, &pool, &rvt_ntrace_pool_codec, decs[0], c->pc_runs ? ntrace_pcs_block : ntrace_profile_block,
                       c->pc_runs ? NULL : ntrace_profile_walk, ntrace_trap)) {
            for (unsigned k = nsources; k-- > 0;)
                rvt_ntrace_decoder_free(decs[k]);
            return 1;
        }
    }
    const size_t chunk = 1 << 20;
    uint8_t *data = malloc(2 * chunk);
    int status = 0;
    if (!data)
        status = 1;
    rvt_nexus_config cfg = {opt->src_bits, opt->sifive ? RVT_NEXUS_SIFIVE : RVT_NEXUS_NTRACE};
    side->dialect = cfg.dialect;
    side->src_bits = opt->src_bits;
    rvt_nexus_reader rd;
    uint64_t unknown_messages = 0, first_unknown = 0;
    rvt_nexus_reader_init(&rd, &cfg, data, 0);
    size_t have = 0;
    uint64_t base = 0;
    bool eof = false;
    rvt_diag d = {{0}};
    /* Just past the last byte read with MSEO = 3 (0: none). A message ends at
     * the first such byte after its start, so the one at rd.pos is whole when
     * it starts before this: no scan per message. */
    size_t marks_end = 0;
    uint64_t fill_at = 0, fill_len = 0;
    bool damaged = false, stop = false;
    if (!data)
        fprintf(stderr, "rvtrace decode: out of memory (a 2 MiB read buffer)\n");
    while (data) {
        /* Keep at least one whole message ahead of the reader. */
        if (rd.pos >= marks_end && !eof && have - rd.pos < 2 * chunk) {
            memmove(data, data + rd.pos, have - rd.pos);
            base += rd.pos;
            have -= rd.pos;
            if (!read_more(c, zr, data, &have, 2 * chunk, &eof)) {
                status = 1;
                break;
            }
            for (marks_end = have; marks_end && (data[marks_end - 1] & 3) != 3;)
                marks_end--;
            size_t skipped = rd.skipped, idle = rd.idle;
            rvt_nexus_reader_init(&rd, &cfg, data, have);
            rd.base = base;
            rd.skipped = skipped;
            rd.idle = idle;
            continue;
        }
        /* No message starts with a zero byte (TCODE 0 is none; SiFive's
         * tools pad with zeros): a run of them where a message should start
         * is fill. Idle bytes before it are read here too, or the reader
         * would take the zeros after them as more idle, unreported. */
        while (rd.pos < rd.size && fill_len < FILL_LIMIT) {
            if (data[rd.pos] == 0) {
                if (!fill_len++)
                    fill_at = base + rd.pos;
            } else if (data[rd.pos] == 0xFF && !fill_len) {
                rd.idle++;
            } else {
                break;
            }
            rd.pos++;
        }
        bool at_end = eof && rd.pos >= rd.size;
        if (fill_len && fill_len < FILL_LIMIT && !at_end && rd.pos >= rd.size)
            continue; /* the run may go on in the next piece */
        if (fill_len > FILL_PADDING) {
            char why[200];
            if (fill_loss(c, fill_at, fill_len, at_end, damaged, &stop, why, sizeof why)) {
                enum damage_next next = take_damage(c, pool, why, &status);
                if (next == DAMAGE_STOP)
                    break;
                for (unsigned i = 0; next == DAMAGE_RESYNC && i < nsources; i++)
                    rvt_ntrace_decoder_resync(decs[i]);
            }
        }
        fill_len = 0;
        if (stop)
            break;
        rvt_nexus_msg own, *m = pool ? pool_room(pool) : &own;
        if (!m) {
            status = 1;
            break;
        }
        int rc = rvt_nexus_next(&rd, m, &d);
        if (rc == 0 && !eof)
            continue; /* idle to the end of this piece, not of the capture */
        if (rc == 0)
            break;
        if (rc < 0) {
            if (damaged) /* the same damaged stretch: one loss, however many messages in it failed */
                continue;
            damaged = true;
            enum damage_next next = take_damage(c, pool, d.msg, &status);
            if (next == DAMAGE_STOP)
                break;
            for (unsigned i = 0; next == DAMAGE_RESYNC && i < nsources; i++)
                rvt_ntrace_decoder_resync(decs[i]);
            continue;
        }
        damaged = false;
        side->count++;
        c->packets++;
        if (!rvt_nexus_dialect_tcode_name(rd.cfg.dialect, m->tcode) && unknown_messages++ == 0)
            first_unknown = m->offset;
        if (pool) {
            if ((rc = rvt_decode_pool_item(pool, m)) != 0) {
                status = rc != POOL_STOP;
                break;
            }
            continue;
        }
        unsigned src = (unsigned)rvt_nexus_get(m, RVT_NXF_SRC, 0);
        rvt_ntrace_decoder *dec = nsources > 1 ? decs[src % nsources] : decs[0];
        bool mine = opt->src_id < 0 || src == (unsigned)opt->src_id || !opt->src_bits;
        if (c->ca && c->ca_phase == CA_WAIT_SYNC && mine)
            ca_sync(c, m, side->count);
        rc = rvt_ntrace_decode(dec, m, &d);
        if (rc == RVT_E_IO) {
            status = 1;
            break;
        }
        if (rc && path_lost(c, d.msg))
            break;
        if (side->messages && list_message(side, m, mine ? dec : NULL)) {
            status = 1;
            break;
        }
        if (side->printer && mine && rvt_itc_printer_message(side->printer, m)) {
            status = 1;
            break;
        }
    }
    if (pool && !status) {
        int rc = rvt_decode_pool_finish(pool);
        status = rc && rc != POOL_STOP;
    }
    if (flush_held(c) || profile_flush(c) || (side->printer && rvt_itc_printer_flush(side->printer)))
        status = 1;
    for (unsigned i = 0; i < nsources; i++) {
        uint64_t unplaced = rvt_ntrace_decoder_unplaced(decs[i]);
        if (unplaced && !(c->strict && c->losses)) { /* --strict stopped: the rest was never read */
            fprintf(stderr, "rvtrace decode: %s: trace lost: %" PRIu64 " message%s%s before the first one with a "
                            "full address (the capture starts in the middle of the flow)\n", trace, unplaced,
                    unplaced == 1 ? "" : "s", nsources > 1 ? " of a source" : "");
            c->losses++;
        }
    }
    if (rd.skipped)
        fprintf(stderr, "rvtrace decode: %s: %" PRIu64 " bytes skipped to find messages again\n", trace,
                (uint64_t)rd.skipped);
    if (unknown_messages) /* (N-Trace: not part of the flow, but a sign of damage; dump shows them) */
        fprintf(stderr, "rvtrace decode: %s: warning: %" PRIu64 " message%s with a reserved or vendor-defined TCODE "
                        "ignored, the first at byte %" PRIu64 " (rvtrace dump lists them)\n", trace, unknown_messages,
                unknown_messages == 1 ? "" : "s", first_unknown);
    free(data);
    if (pool)
        rvt_decode_pool_counts(pool, &c->segments, &c->segments_chained, &c->segments_again);
    rvt_decode_pool_free(pool);
    for (unsigned i = nsources; i-- > 0;) /* decs[0] owns the shared run cache */
        rvt_ntrace_decoder_free(decs[i]);
    return status;
}

/* The program's files (FILE or FILE@ADDR) against the outputs. */
static bool outputs_not_programs(const char *const *elfs, int nelf, const char *const *raws, int nraw,
                                 const char *const *outs, size_t nouts) {
    for (int k = 0; k < nelf + nraw; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s", k < nelf ? elfs[k] : raws[k - nelf]);
        char *at = strrchr(path, '@');
        struct stat st;
        if (at && stat(path, &st) != 0)
            *at = 0;
        const char *in = path;
        if (!outputs_not_inputs("rvtrace decode", &in, 1, outs, nouts))
            return false;
    }
    return true;
}

static int write_report(const char *path, rvt_profile *p, int (*writer)(rvt_profile *, FILE *));
static int write_lcov_plain(rvt_profile *p, FILE *f) { return rvt_profile_write_lcov(p, f, "rvtrace"); }

static int write_report(const char *path, rvt_profile *p, int (*writer)(rvt_profile *, FILE *)) {
    FILE *f = output_open("rvtrace decode", path, false);
    if (!f)
        return 1;
    int rc = writer(p, f);
    if (rc)
        fprintf(stderr, "rvtrace decode: %s: write failed\n", path);
    return output_close("rvtrace decode", f, !rc) | (rc != 0);
}

/* The lcov tracefile; for a program without DWARF lines for its code, also
 * the annotated disassembly it refers to, written beside it as PATH.dis
 * (under its absolute name, which genhtml reads; dropped when not needed). */
static int write_lcov(const char *path, rvt_profile *p, rvt_image *img, const char *program) {
    /* standard output and devices have no "beside" */
    if (!strcmp(path, "-") || !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6)) {
        if (!rvt_image_has_source_lines(img)) {
            fprintf(stderr, "rvtrace decode: --lcov %s: %s has no DWARF line information, so the tracefile refers "
                            "to an annotated disassembly written beside it; give --lcov the name of a file\n", path,
                    program);
            return 1;
        }
        return write_report(path, p, write_lcov_plain);
    }
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) {
        fprintf(stderr, "rvtrace decode: the current directory: %s\n", strerror(errno));
        return 1;
    }
    size_t len = strlen(cwd) + strlen(path) + sizeof "/.dis";
    char *listing_path = malloc(len);
    if (!listing_path)
        return 1;
    snprintf(listing_path, len, "%s%s%s.dis", cwd, cwd[0] ? "/" : "", path);
    FILE *f = output_open("rvtrace decode", path, false);
    FILE *l = f ? output_open("rvtrace decode", listing_path, false) : NULL;
    uint64_t listed = 0;
    int rc = l ? rvt_profile_write_lcov_listing(p, f, "rvtrace", l, listing_path, &listed) : 1;
    if (l && rc)
        fprintf(stderr, "rvtrace decode: %s: write failed\n", path);
    int status = (f ? output_close("rvtrace decode", f, !rc && l) : 1) |
                 (l ? output_close("rvtrace decode", l, !rc && listed) : 1) | (rc != 0);
    if (!status && listed)
        fprintf(stderr, "rvtrace decode: %s: warning: %s has no DWARF line information for its code (built "
                        "without -g?): coverage is per instruction, against the annotated disassembly %s (%" PRIu64
                        " instructions of the functions that ran)\n", path, program, listing_path, listed);
    free(listing_path);
    return status;
}

/* gprof's own reading of the program loses some of the profile: say what. */
static void warn_gmon(const char *path, rvt_profile *p) {
    rvt_gmon_losses l;
    if (!rvt_profile_gmon_losses(p, &l))
        return;
    uint64_t total = rvt_profile_total(p);
    fprintf(stderr, "rvtrace decode: %s: warning: gprof will not show all of it: it credits no instructions to the "
                    "last function of the program text, %s at %#" PRIx64 ", or after it (%" PRIu64 " instructions, "
                    "%.1f %%)", path, l.function, l.addr, l.instructions,
            total ? 100.0 * (double)l.instructions / (double)total : 0.0);
    if (l.calls)
        fprintf(stderr, ", and, as that function starts at or after the end of .text (%#" PRIx64 "), where gprof ends it, "
                        "it drops the %" PRIu64 " calls made from or to there", l.text_end, l.calls);
    fprintf(stderr, "; --profile and --callgrind have them\n");
}

/* callgrind's cmd: line is the command that made the profile. */
static int write_callgrind(const char *path, rvt_profile *p, int argc, char **argv) {
    size_t len = sizeof "rvtrace";
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *command = malloc(len);
    if (!command)
        return 1;
    strcpy(command, "rvtrace");
    for (int i = 0; i < argc; i++) {
        strcat(command, " ");
        strcat(command, argv[i]);
    }
    FILE *f = output_open("rvtrace decode", path, false);
    int rc = f ? rvt_profile_write_callgrind(p, f, command) : 1;
    if (f && rc)
        fprintf(stderr, "rvtrace decode: %s: write failed\n", path);
    free(command);
    return f ? output_close("rvtrace decode", f, !rc) | (rc != 0) : 1;
}

/* After a decode that lost much of its trace: whether the trace's first
 * 64 KiB read as each format without an error, to say which one it may be in
 * (the wrong --format), or, when it reads as the one given, that the code
 * may be the wrong program's. Only a file can be read again (not a pipe). */
enum { HINT_BYTES = 64 << 10, HINT_UNITS = 8 };

static uint64_t clean_units(const uint8_t *b, size_t n, const char *format, const rvt_etrace_params *p,
                            const rvt_etrace_options *o, const rvt_te_transport *t, unsigned src_bits) {
    rvt_diag d = {{0}};
    uint64_t units = 0;
    if (!strcmp(format, "etrace")) {
        rvt_te_raw_cursor c = {.data = b, .size = n, .t = t};
        rvt_te_inst pkt;
        int rc;
        while ((rc = rvt_te_raw_next(&c, p, o, &pkt, NULL, &d)) == 1)
            units++;
        return rc < 0 && c.pos + 64 < n ? 0 : units; /* (a packet cut by the 64 KiB is no error) */
    }
    rvt_nexus_config cfg = {.src_bits = src_bits, .dialect = !strcmp(format, "sifive") ? RVT_NEXUS_SIFIVE : 0};
    rvt_nexus_reader r;
    rvt_nexus_reader_init(&r, &cfg, b, n);
    rvt_nexus_msg m;
    int rc;
    while ((rc = rvt_nexus_next(&r, &m, &d)) > 0)
        units++;
    return rc < 0 && m.offset + 64 < n ? 0 : units;
}

static void hint_lost_trace(const char *trace, const char *format, const rvt_etrace_params *p,
                            const rvt_etrace_options *o, const rvt_te_transport *t, unsigned src_bits,
                            const char *elfs) {
    struct stat st;
    rvt_zreader *z = NULL;
    rvt_diag d = {{0}};
    uint8_t *b = malloc(HINT_BYTES);
    if (!b || stat(trace, &st) || !S_ISREG(st.st_mode) || rvt_zreader_open(&z, trace, &d)) {
        free(b);
        return;
    }
    long n = rvt_zreader_read(z, b, HINT_BYTES, &d);
    rvt_zreader_close(z);
    if (n > 0) {
        static const char *const formats[] = {"etrace", "ntrace", "sifive"};
        char others[160] = "";
        size_t at = 0;
        bool as_given = clean_units(b, (size_t)n, format, p, o, t, src_bits) >= HINT_UNITS;
        for (size_t k = 0; k < 3 && !as_given; k++) {
            uint64_t units = strcmp(formats[k], format) ? clean_units(b, (size_t)n, formats[k], p, o, t, src_bits) : 0;
            if (units >= HINT_UNITS && at < sizeof others)
                at += (size_t)snprintf(others + at, sizeof others - at, "%s--format %s (%" PRIu64 " %s)",
                                       at ? ", " : "", formats[k], units, k ? "messages" : "packets");
        }
        if (as_given)
            fprintf(stderr, "rvtrace decode: hint: %s reads as %s without an error, but much of it does not follow "
                            "the code of %s: is that the program that ran (and at its addresses)?\n",
                    trace, format, elfs);
        else if (at)
            fprintf(stderr, "rvtrace decode: hint: %s is not read as %s; its first %ld bytes read without an error "
                            "as %s\n", trace, format, n, others);
    }
    free(b);
}

int cmd_decode(int argc, char **argv) {
    const char *scf = NULL, *ucf = NULL, *trace = NULL, *output = NULL, *format = "etrace";
    bool v1 = false; /* E-Trace 1.0 packet layout */
    const char *elfs[16];
    int nelf = 0;
    bool pcs = false, listing = false;
    const char *old_flag = NULL, *old_output = NULL; /* `--pcs [-o FILE]`, the old spelling of --pcs FILE */
    const char *folded = NULL, *coverage = NULL, *traps = NULL, *messages = NULL, *itc_print = NULL;
    const char *gmon = NULL, *callgrind = NULL, *lcov = NULL, *report_dir = NULL;
    const char *cycles = NULL, *catype = NULL;
    bool strict = false, quiet = false, stats = false;
    unsigned threads = 1;
    decode_ctx c = {0};
    rvt_image *rom_img = NULL; /* the boot ROM's machine's, when the image does not fit the default one */
    const char *settings_path = NULL, *sysroot = NULL, *raws[16], *kernel = NULL, *kallsyms = NULL;
    int nraw = 0;
    unsigned raw_xlen = 0;
    sifive_settings settings = {0};
    long profile_top = -1;
    uint64_t tvec = 0, stvec = 0;
    bool has_stvec = false;
    rvt_ntrace_decoder_options nopt = {.src_id = -1};
    transport_choice tc = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            decode_usage(stdout);
            return 0;
        } else if (parse_transport_option(argc, argv, &i, &tc)) {
            continue;
        } else if (!strcmp(a, "--v1")) {
            v1 = true;
        } else if (!strcmp(a, "--scf") && i + 1 < argc) {
            scf = argv[++i];
        } else if (!strcmp(a, "--ucf") && i + 1 < argc) {
            ucf = argv[++i];
        } else if (!strcmp(a, "--elf") && i + 1 < argc && nelf < 16) {
            elfs[nelf++] = argv[++i];
        } else if (!strcmp(a, "--format") && i + 1 < argc) {
            format = argv[++i];
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            old_output = argv[++i];
        } else if (!strcmp(a, "--pcs") || !strcmp(a, "--listing")) {
            *(a[2] == 'p' ? &pcs : &listing) = true;
            if (option_has_value(argc, argv, i))
                output = argv[++i];
            else
                old_flag = a;
        } else if (!strcmp(a, "--profile") && i + 1 < argc) {
            profile_top = (long)option_number(a, argv[++i], LONG_MAX);
        } else if (!strcmp(a, "--folded") && i + 1 < argc) {
            folded = argv[++i];
        } else if (!strcmp(a, "--coverage") && i + 1 < argc) {
            coverage = argv[++i];
        } else if (!strcmp(a, "--gmon") && i + 1 < argc) {
            gmon = argv[++i];
        } else if (!strcmp(a, "--callgrind") && i + 1 < argc) {
            callgrind = argv[++i];
        } else if (!strcmp(a, "--lcov") && i + 1 < argc) {
            lcov = argv[++i];
        } else if (!strcmp(a, "--report") && i + 1 < argc) {
            report_dir = argv[++i];
        } else if (!strcmp(a, "--strict")) {
            strict = true;
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            if ((threads = (unsigned)option_number(a, argv[++i], 256)) == 0) {
                fprintf(stderr, "rvtrace decode: --threads takes 1 to 256\n");
                return 2;
            }
        } else if (!strcmp(a, "--segment") && i + 1 < argc) {
            c.min_segment = option_number(a, argv[++i], UINT64_MAX);
        } else if (!strcmp(a, "--stats")) {
            stats = true;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = true;
        } else if (!strcmp(a, "--traps") && i + 1 < argc) {
            traps = argv[++i];
        } else if (!strcmp(a, "--call-stack") && i + 1 < argc) {
            nopt.call_stack = (unsigned)option_number(a, argv[++i], RVT_NTRACE_MAX_CALL_STACK);
        } else if (!strcmp(a, "--call-counter") && i + 1 < argc) {
            option_number(a, argv[++i], RVT_NTRACE_MAX_CALL_STACK);
            nopt.call_counter = true;
        } else if (!strcmp(a, "--src-bits") && i + 1 < argc) {
            nopt.src_bits = (unsigned)option_number(a, argv[++i], 16);
        } else if (!strcmp(a, "--extend-addr-msb")) {
            nopt.extend_addr_msb = true;
        } else if (!strcmp(a, "--no-implicit-return")) {
            nopt.no_implicit_return = true;
        } else if (!strcmp(a, "--seq-jump")) {
            nopt.seq_jump = true;
        } else if (!strcmp(a, "--all-jumps")) {
            nopt.all_jumps = true;
        } else if (!strcmp(a, "--nexrv")) {
            nopt.nexrv = true;
        } else if (!strcmp(a, "--cycles") && i + 1 < argc) {
            cycles = argv[++i];
        } else if (!strcmp(a, "--catype") && i + 1 < argc) {
            catype = argv[++i];
        } else if (!strcmp(a, "--settings") && i + 1 < argc) {
            settings_path = argv[++i];
        } else if (!strcmp(a, "--sysroot") && i + 1 < argc) {
            sysroot = argv[++i];
        } else if (!strcmp(a, "--image") && i + 1 < argc && nraw < 16) {
            raws[nraw++] = argv[++i];
        } else if (!strcmp(a, "--kernel") && i + 1 < argc) {
            kernel = argv[++i];
        } else if (!strcmp(a, "--kallsyms") && i + 1 < argc) {
            kallsyms = argv[++i];
        } else if (!strcmp(a, "--xlen") && i + 1 < argc) {
            raw_xlen = (unsigned)option_number(a, argv[++i], 64);
        } else if (!strcmp(a, "--messages") && i + 1 < argc) {
            messages = argv[++i];
        } else if (!strcmp(a, "--itc-print") && i + 1 < argc) {
            itc_print = argv[++i];
        } else if ((!strcmp(a, "--src-id") || !strcmp(a, "--source")) && i + 1 < argc) {
            nopt.src_id = (int)option_number(a, argv[++i], 0xffff);
        } else if (!strcmp(a, "--tvec") && i + 1 < argc) {
            tvec = option_number(a, argv[++i], UINT64_MAX);
        } else if (!strcmp(a, "--stvec") && i + 1 < argc) {
            stvec = option_number(a, argv[++i], UINT64_MAX);
            has_stvec = true;
        } else if (a[0] == '-' && a[1]) {
            return bad_option("rvtrace decode", a, i + 1 == argc, decode_usage);
        } else if (!trace) {
            trace = a;
        } else {
            return usage_error("rvtrace decode", decode_usage, "one trace at a time: got '%s' and '%s'", trace, a);
        }
    }
    if (output && old_output)
        return usage_error("rvtrace decode", decode_usage, "the output is given twice: %s, and -o %s", output,
                           old_output);
    if (old_flag) {
        char was[32], now[32];
        snprintf(was, sizeof was, old_output ? "%s -o FILE" : "%s", old_flag);
        snprintf(now, sizeof now, old_output ? "%s FILE" : "%s -", old_flag);
        deprecated_spelling("rvtrace decode", was, now);
    }
    if (old_output)
        output = old_output;
    if (!trace && !settings_path && output && access(output, F_OK) == 0)
        return usage_error("rvtrace decode", decode_usage, "no trace given: %s takes the output file now, and took %s "
                           "(was it the trace? give %s OUT %s)", pcs ? "--pcs" : "--listing", output,
                           pcs ? "--pcs" : "--listing", output);
    if (!kernel != !kallsyms)
        return usage_error("rvtrace decode", decode_usage, "--kernel and --kallsyms go together");
    if ((!trace || (!nelf && !nraw && !kernel)) && !settings_path)
        return usage_error("rvtrace decode", decode_usage,
                           !trace ? "no trace given" : "no program given: --elf PROGRAM.elf (or --image, or --settings)");
    bool sifive = !strcmp(format, "sifive");
    bool ntrace = sifive || !strcmp(format, "ntrace");
    nopt.sifive = sifive;
    if (sifive) /* (SiFive's decoder follows NexRv's classification, and its captures decode so) */
        nopt.nexrv = true;
    bool profiling = profile_top >= 0 || folded || coverage || gmon || callgrind || lcov || report_dir;
    bool side_output = ntrace && (messages || itc_print);
    if ((!ntrace && strcmp(format, "etrace") != 0) || (pcs && listing) ||
        (!pcs && !listing && !profiling && !side_output && !traps)) {
        return usage_error("rvtrace decode", decode_usage,
                           "give --format etrace, ntrace or sifive, and --pcs or --listing and/or --profile, --folded, "
                           "--coverage, --gmon, --callgrind, --lcov, --report, --traps, --messages, --itc-print");
    }
    if ((cycles || catype) && (!sifive || !listing || !cycles || !catype ||
                               (strcmp(catype, "instruction") != 0 && strcmp(catype, "vector") != 0)))
        return usage_error("rvtrace decode", decode_usage,
                           "--cycles FILE.rcad goes with --catype instruction or vector, --format sifive and --listing");
    if (cycles && threads > 1)
        return usage_error("rvtrace decode", decode_usage, "--cycles pairs the file with the flow in order: not with "
                           "--threads");
    rvt_etrace_params p;
    rvt_etrace_options o;
    rvt_diag d = {{0}};
    char elfs_text[1024] = ""; /* the program's files, for the report */
    int status = 1;
    rvt_etrace_decoder *dec = NULL;
    if (load_etrace_config(scf, ucf, &tc, &p, &o, &d) || rvt_image_new(&c.img)) {
        fprintf(stderr, "rvtrace decode: %s\n", d.msg);
        goto done;
    }
    o.v1_layout = v1;
    if (settings_path) {
        if (sifive_settings_load(settings_path, sysroot, &settings, c.img, &d)) {
            fprintf(stderr, "rvtrace decode: %s\n", d.msg);
            goto done;
        }
        if (!trace)
            trace = settings.trace;
        nopt.src_bits = settings.src_bits;
        nopt.pids = settings.pids;
        nopt.npids = settings.npids;
        nopt.addr_bits = settings.addr_bits;
        nopt.no_implicit_return = settings.no_implicit_return;
        if (!raw_xlen)
            raw_xlen = settings.xlen;
    }
    /* (after the settings file, which may give the width) */
    if (nopt.src_id >= 0 && nopt.src_bits && nopt.src_bits < 16 && (unsigned)nopt.src_id >> nopt.src_bits) {
        fprintf(stderr, "rvtrace decode: --source %d does not fit the %u-bit SRC field (0 to %u)\n", nopt.src_id,
                nopt.src_bits, (1u << nopt.src_bits) - 1);
        status = 2;
        goto done;
    }
    for (int k = 0; k < nelf; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s", elfs[k]);
        uint64_t base = 0;
        char *at = strrchr(path, '@');
        if (at) {
            *at = 0;
            base = strtoull(at + 1, NULL, 0);
        }
        if (rvt_image_load_elf(c.img, path, base, &d)) {
            fprintf(stderr, "rvtrace decode: %s\n", d.msg);
            goto done;
        }
    }
    if (kernel && load_linux_kernel(c.img, kernel, kallsyms, &d))
        goto done;
    for (int k = 0; k < nraw; k++) { /* FILE@ADDR: a raw binary */
        char path[4096];
        snprintf(path, sizeof path, "%s", raws[k]);
        char *at = strrchr(path, '@');
        char *bytes = NULL;
        size_t size = 0;
        unsigned xlen = raw_xlen ? raw_xlen : rvt_image_xlen(c.img) ? rvt_image_xlen(c.img) : 64;
        if (!at) {
            fprintf(stderr, "rvtrace decode: --image %s: expected FILE@ADDR\n", raws[k]);
            goto done;
        }
        *at = 0;
        if (rvt_read_file_max(path, &bytes, &size, (size_t)1 << 30, "an --image (1 GiB at most)", &d) ||
            rvt_image_load_raw(c.img, path, bytes, size, strtoull(at + 1, NULL, 0), 0, xlen, &d)) {
            fprintf(stderr, "rvtrace decode: %s\n", d.msg);
            free(bytes);
            goto done;
        }
        free(bytes);
    }
    if (!rvt_image_xlen(c.img)) {
        fprintf(stderr, "rvtrace decode: no program image (--elf, --image or the settings file's)\n");
        goto done;
    }
    c.xlen = rvt_image_xlen(c.img);
    c.sifive = sifive;
    for (int k = 0; k < nelf + nraw; k++)
        snprintf(elfs_text + strlen(elfs_text), sizeof elfs_text - strlen(elfs_text), "%s%s", k ? " " : "",
                 k < nelf ? elfs[k] : raws[k - nelf]);
    if (!elfs_text[0] && settings_path)
        snprintf(elfs_text, sizeof elfs_text, "%s", settings_path);

    if (cycles && nopt.src_bits && nopt.src_id < 0) {
        fprintf(stderr, "rvtrace decode: --cycles: a cycle-accurate trace is one hart's: give --source N\n");
        status = 2;
        goto done;
    }
    if (cycles) {
        char *bytes = NULL;
        size_t size = 0;
        int rc = rvt_read_file_max(cycles, &bytes, &size, (size_t)1 << 30, "a --cycles file (1 GiB at most)", &d);
        if (!rc)
            rc = rvt_ca_reader_new(&c.ca, (const uint8_t *)bytes, size,
                                   !strcmp(catype, "vector") ? RVT_CA_VECTOR : RVT_CA_INSTRUCTION, cycles, &d);
        free(bytes);
        if (rc) {
            fprintf(stderr, "rvtrace decode: %s\n", d.msg);
            goto done;
        }
        if (rvt_ca_trailing(c.ca))
            fprintf(stderr, "rvtrace decode: %s: its last %zu bytes (from byte %zu) are not a whole 128-byte record: "
                            "not read\n", cycles, rvt_ca_trailing(c.ca), size - rvt_ca_trailing(c.ca));
        c.ca_file = cycles;
    }
    c.listing = listing;
    c.write_pcs = pcs || listing;
    if ((profiling && rvt_profile_new(&c.prof, c.img)) ||
        (listing && (!(c.lines = calloc(LISTING_LINES, sizeof *c.lines)) ||
                     !(c.runs = calloc(LISTING_RUNS, sizeof *c.runs)))) ||
        (pcs && !listing && rvt_run_cache_new(&c.pc_runs, fetch_code, &c, c.xlen, nothing_ends_a_run))) {
        fprintf(stderr, "rvtrace decode: out of memory\n");
        goto done;
    }
    rvt_disasm_init(&c.dis, c.xlen, 0);
    c.dis.print_addr = listing_address;
    c.dis.user = &c;
    c.machine = sifive ? NULL : program_machine_rom(c.img, &rom_img); /* spike's boot ROM: for traces made on the hart model */
    if (c.prof)
        rvt_profile_set_fetch(c.prof, fetch_code, &c);
    rvt_zreader *zr = NULL;
    if (rvt_zreader_open(&zr, trace, &d)) {
        fprintf(stderr, "rvtrace decode: %s\n", d.msg);
        goto done;
    }
    c.zr = zr;
    c.strict = strict;
    c.trace = trace;
    c.threads = threads;
    progress_start(&c.pr, "rvtrace decode", "B", quiet);
    const char *inputs[] = {trace, scf, ucf, settings_path, kallsyms, cycles};
    const char *outs[] = {output, traps, messages, itc_print, folded, coverage, gmon, callgrind, lcov};
    if (!outputs_not_inputs("rvtrace decode", inputs, sizeof inputs / sizeof *inputs, outs, sizeof outs / sizeof *outs) ||
        !outputs_not_programs(elfs, nelf, raws, nraw, outs, sizeof outs / sizeof *outs) ||
        (kernel && !outputs_not_programs(NULL, 0, &kernel, 1, outs, sizeof outs / sizeof *outs))) {
        rvt_zreader_close(zr);
        c.zr = NULL;
        status = 2;
        goto done;
    }
    c.out = output_open("rvtrace decode", output, false); /* (decode_ctx.write_pcs says whether it is written) */
    if (!c.out)
        goto done;
    if (traps && !(c.traps = output_open("rvtrace decode", traps, false)))
        goto done;
    if (ntrace) {
        nexus_side side = {0};
        if ((messages && !(side.messages = output_open("rvtrace decode", messages, false))) ||
            (itc_print && !(side.itc = output_open("rvtrace decode", itc_print, false)))) {
            status = 1;
        } else if (itc_print && rvt_itc_printer_new(&side.printer, c.img, write_itc_line, side.itc)) {
            fprintf(stderr, "rvtrace decode: out of memory\n");
        } else {
            status = decode_ntrace(zr, trace, &nopt, &c, &side);
        }
        rvt_itc_printer_free(side.printer);
        if (output_close("rvtrace decode", side.messages, status == 0) |
            output_close("rvtrace decode", side.itc, status == 0))
            status = 1;
        rvt_zreader_close(zr);
        c.zr = NULL;
        goto done;
    }
    if (rvt_etrace_decoder_new(&dec, &p, &o, c.xlen, fetch_code, write_pc, &c))
        goto done;
    rvt_etrace_decoder_set_const_memory(dec, read_rom, &c);
    rvt_etrace_decoder_set_trap_sink(dec, etrace_trap);
    if (c.pc_runs) {
        rvt_etrace_decoder_set_block_sink(dec, etrace_pcs_block);
    } else if (c.prof && !c.write_pcs) {
        rvt_etrace_decoder_set_block_sink(dec, profile_block);
        rvt_etrace_decoder_set_walk_sink(dec, profile_walk);
    } else {
        rvt_etrace_decoder_set_run_sink(dec, write_run);
    }
    rvt_etrace_decoder_set_tvec(dec, tvec);
    if (has_stvec)
        rvt_etrace_decoder_set_stvec(dec, stvec);
    if (decode_etrace(zr, &p, &o, tc.enabled ? &tc.t : NULL, nopt.src_id, dec, &c)) {
        rvt_zreader_close(zr);
        c.zr = NULL;
        goto done;
    }
    rvt_zreader_close(zr);
    c.zr = NULL;
    uint64_t loop_at, loop_len;
    uint64_t ambiguous = rvt_etrace_decoder_ambiguous_ends(dec, true, &loop_at, &loop_len);
    if (ambiguous)
        fprintf(stderr,
                "rvtrace decode: %s: warning: the trace ends in a loop that no packet counts (%" PRIu64
                " instructions through %#" PRIx64 "): it stopped in one of its passes and cannot say which; "
                "listed up to the first (%" PRIu64 " such end%s)\n",
                trace, loop_len, loop_at, ambiguous, ambiguous == 1 ? "" : "s");
    uint64_t trap_at, unplaced = rvt_etrace_decoder_ambiguous_traps(dec, &trap_at);
    if (unplaced)
        fprintf(stderr,
                "rvtrace decode: %s: warning: %" PRIu64 " trap%s the packets cannot place (the address before it, "
                "first %#" PRIx64 ", recurs with no packet between; implicit return cannot tell the occurrences "
                "apart): listed after the first occurrence\n",
                trace, unplaced, unplaced == 1 ? "" : "s", trap_at);
    status = 0;
done:
    progress_end(&c.pr);
    if (stats) {
        fprintf(stderr, "Stat: %" PRIu64 " bytes, %" PRIu64 " %s, %" PRIu64 " instructions, %" PRIu64 " losses",
                c.bytes, c.packets, ntrace ? "messages" : "packets", c.listed, c.losses);
        if (c.segments || c.segments_chained || c.segments_again)
            fprintf(stderr,
                    ", %" PRIu64 " segments on %u threads, %" PRIu64 " more there in order, %" PRIu64
                    " decoded again in order",
                    c.segments, threads, c.segments_chained, c.segments_again);
        fputc('\n', stderr);
    }
    if (c.losses)
        fprintf(stderr, "rvtrace decode: %s: %" PRIu64 " place%s where trace was lost%s\n", trace, c.losses,
                c.losses == 1 ? "" : "s", c.strict ? " (--strict: stopped at the first)" : "");
    if (c.losses && (c.listed == 0 || (c.losses >= 16 && c.losses * 32 > c.packets)) && !settings_path)
        hint_lost_trace(trace, format, &p, &o, tc.enabled ? &tc.t : NULL, ntrace ? nopt.src_bits : 0,
                        elfs_text[0] ? elfs_text : "the program");
    if (status == 0 && c.ca && (c.ca_phase == CA_WAIT_SYNC || c.ca_phase == CA_ARMED))
        fprintf(stderr, "rvtrace decode: %s: warning: no instruction has cycles: %s\n", cycles,
                c.ca_phase == CA_ARMED ? "the flow never came to where the sync that starts the trace says"
                                       : "the trace has no sync that enables trace or leaves debug mode");
    else if (status == 0 && c.ca && c.ca_phase == CA_WINDOW)
        fprintf(stderr, "rvtrace decode: %s: warning: no instruction has cycles: the trace ended before it reached "
                        "the file's start address %#" PRIx64 "\n", cycles, rvt_ca_start(c.ca));
    rvt_ca_reader_free(c.ca);
    if (status == 0 && c.bytes == 0) /* (a capture that failed, likelier than one of nothing) */
        fprintf(stderr, "rvtrace decode: %s: warning: the trace is empty: nothing to decode\n", trace);
    rvt_etrace_decoder_free(dec);
    rvt_run_cache_free(c.pc_runs);
    if (c.out && status == 0 && flush_pcs(&c)) {
        fprintf(stderr, "rvtrace decode: %s: write failed: %s\n", output_name(c.out), strerror(errno));
        status = 1;
    }
    if (c.prof && status == 0) {
        FILE *top = c.write_pcs && c.out == stdout ? stderr : c.out && c.out != stdout && !c.write_pcs ? c.out : stdout;
        if (profile_top >= 0 && rvt_profile_write_top(c.prof, top, (size_t)profile_top))
            status = 1;
        if (folded && write_report(folded, c.prof, rvt_profile_write_folded))
            status = 1;
        if (coverage && write_report(coverage, c.prof, rvt_profile_write_coverage))
            status = 1;
        if (gmon && write_report(gmon, c.prof, rvt_profile_write_gmon))
            status = 1;
        else if (gmon)
            warn_gmon(gmon, c.prof);
        if (callgrind && write_callgrind(callgrind, c.prof, argc, argv))
            status = 1;
        if (lcov && write_lcov(lcov, c.prof, c.img, elfs_text[0] ? elfs_text : "the program"))
            status = 1;
        if (report_dir) {
            rvt_report_info info = {elfs_text, trace, sifive ? "SiFive Nexus" : ntrace ? "N-Trace" : "E-Trace",
                                    c.bytes, c.packets, c.losses};
            if (write_html_report("rvtrace decode", report_dir, c.prof, &info))
                status = 1;
            else if (!rvt_image_has_source_lines(c.img))
                fprintf(stderr, "rvtrace decode: %s: warning: %s has no DWARF line information (built without -g?): "
                                "the report's listing has no source lines\n", report_dir, info.program);
        }
    }
    rvt_profile_free(c.prof);
    for (size_t i = 0; c.lines && i < LISTING_LINES; i++) {
        free(c.lines[i].text);
        free(c.lines[i].noted);
    }
    free(c.lines);
    for (size_t i = 0; c.runs && i < LISTING_RUNS; i++)
        free(c.runs[i].text);
    free(c.runs);
    if (output_close("rvtrace decode", c.out, status == 0) | output_close("rvtrace decode", c.traps, status == 0))
        status = 1;
    rvt_machine_free(c.machine);
    rvt_image_free(rom_img);
    rvt_image_free(c.img);
    return status ? status : c.losses ? DECODE_LOST : 0;
}
