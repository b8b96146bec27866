/* Subcommands of the rvtrace program. Each returns the process exit code. */
#ifndef RVTRACE_TOOL_COMMANDS_H
#define RVTRACE_TOOL_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#include "rvtrace/etrace.h"
#include "rvtrace/hart.h"
#include "rvtrace/image.h"
#include "rvtrace/ntrace.h"
#include "rvtrace/profile.h"
#include "rvtrace/tandem.h"

#include "output.h"

int cmd_disasm(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_verify(int argc, char **argv);

/* --xlen, --flen, --mlen of the tandem trace; finish_tandem_params fills in
 * the defaults for the ones not given. */
#define FLEN_NONE 1u /* --flen 0 given (0 in the struct means "not given") */
bool parse_tandem_param_option(int argc, char **argv, int *i, rvt_tv_params *p);
void finish_tandem_params(rvt_tv_params *p, unsigned xlen_default);
extern const char *const tandem_param_help;
/* An rvt_tv_byte_sink writing to a FILE *. */
int file_byte_sink(void *user, const uint8_t *bytes, size_t len);

/* A FILE * written 64 KiB at a time: an encoder's packets are a few bytes
 * each, and an fwrite per packet (the stream's lock, its buffer logic) cost
 * more than making the packet. byte_file_sink is a byte sink (user: the
 * byte_file); byte_file_drain writes out what the buffer holds;
 * byte_file_close (keep) writes what is left and puts the file under its
 * name, 1 with a message when any write failed; !keep drops it. */
typedef struct byte_file {
    FILE *f;
    size_t n;
    bool failed;
    uint8_t buf[1 << 16];
} byte_file;
byte_file *byte_file_open(const char *tool, const char *path);
int byte_file_sink(void *user, const uint8_t *bytes, size_t len);
int byte_file_close(const char *tool, byte_file *b, bool keep);
void byte_file_drain(byte_file *b);
/* Room for up to `len` (<= the buffer's size) more bytes, at the end of the
 * buffer (written out first when full); byte_file_wrote says how many went
 * there and returns RVT_E_IO once any write failed. */
static inline uint8_t *byte_file_room(byte_file *b, size_t len) {
    if (b->n + len > sizeof b->buf)
        byte_file_drain(b);
    return b->buf + b->n;
}
static inline int byte_file_wrote(byte_file *b, size_t len) {
    b->n += len;
    return b->failed ? RVT_E_IO : RVT_OK;
}

/* `text` as a number from 0 to max: decimal, or hex after 0x, nothing else. */
bool parse_number(const char *text, uint64_t max, uint64_t *out);
/* The value of option `opt`, `text`, as parse_number takes it; anything
 * else is a usage error: a message naming the option and exit status 2. */
uint64_t option_number(const char *opt, const char *text, uint64_t max);

/* An option argv[i] no parser took: "needs a value" when it is the last
 * argument and `usage` shows it with one, else unknown. Returns 2. */
int bad_option(const char *tool, const char *opt, bool last, void (*usage)(FILE *));
/* An option given in a spelling one vocabulary across the subcommands
 * replaced: it still works, and a warning on standard error says the new one. */
void deprecated_spelling(const char *tool, const char *old, const char *now);
/* Whether argv[i] is followed by a value rather than another option ("-",
 * standard input or output, counts as a value). */
bool option_has_value(int argc, char **argv, int i);
/* A usage error: "TOOL: message", the synopsis of `usage`'s help and "see
 * TOOL --help" on standard error; returns the usage exit status (2). */
int usage_error(const char *tool, void (*usage)(FILE *), const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The machine options rvtrace run and rvtrace verify share
 * (machine_options.c): the parsed options, then the files they name. */
typedef struct machine_options {
    rvt_machine_config cfg;
    const char *firmware_path, *initrd_path;
    unsigned payload_xlen; /* --xlen: of a Linux Image payload */
    bool memory_given;     /* -m: else a payload's machine gets 128 MiB */
    char *firmware, *initrd; /* the files' contents, once loaded */
} machine_options;
void machine_options_init(machine_options *mo);
/* Takes argv[*i] (and its value, *i moving on to it) when it is a machine
 * option: 1; 0 when it is not one (or lacks its value); -1 after a message
 * for a bad value (a usage error). */
int parse_machine_option(const char *tool, int argc, char **argv, int *i, machine_options *mo);
/* After the last option: -1 after a message for options that do not go
 * together; else the RAM a payload's machine gets unless -m said. */
int machine_options_finish(const char *tool, machine_options *mo);
/* Reads the firmware and the initial RAM disk, and the program (an ELF
 * file, or a Linux Image as a payload) into a new image (*img, which the
 * caller frees also on failure): 0, or -1 after a message. */
int machine_options_load(const char *tool, machine_options *mo, const char *program, rvt_image **img);
/* The machine for the loaded program (mo->cfg as the caller left it): 0,
 * or -1 after a message naming the file at fault. */
int machine_options_build(const char *tool, machine_options *mo, const char *program, rvt_image *img,
                          rvt_machine **m);
void machine_options_free(machine_options *mo);
extern const char *const machine_option_help;

/* E-Trace transport: the reference flow's raw stream unless --encap... */
typedef struct transport_choice {
    bool enabled;
    rvt_te_transport t;
} transport_choice;
/* Takes argv[*i] (and its value) when it is a transport option. */
bool parse_transport_option(int argc, char **argv, int *i, transport_choice *tc);
extern const char *const transport_help;
/* The N-Trace encoder's options (--btm, --call-stack N, ...): takes argv[*i]
 * (and its value) when it is one. */
bool parse_ntrace_option(int argc, char **argv, int *i, rvt_ntrace_options *no);
extern const char *const ntrace_option_help;
/* The E-Trace parameters and options: from --scf/--ucf, else rv_tracer's
 * own for its records (--encap rv-tracer), else the defaults. */
int load_etrace_config(const char *scf, const char *ucf, const transport_choice *tc, rvt_etrace_params *p,
                       rvt_etrace_options *o, rvt_diag *diag);

/* The machine the hart model gives a program, read for code outside its ELF
 * files (spike's boot ROM); NULL when the program does not fit spike's
 * layout, and its ELF alone is the code then. */
rvt_machine *program_machine(rvt_image *img);
rvt_machine *program_machine_rom(rvt_image *img, rvt_image **own);
/* decode --kernel IMAGE[@PHYS] --kallsyms FILE (linux_kernel.c): the Image at
 * the address of kallsyms' _start with its code symbols, and at PHYS. */
int load_linux_kernel(rvt_image *img, const char *image_arg, const char *kallsyms_path, rvt_diag *d);

/* A program's code, from its image and else from the machine (either may be
 * NULL), for whatever takes an rvt_code_fetch: program_code_fetch. */
typedef struct program_code {
    rvt_image *img;
    rvt_machine *m;
    /* the machine's memory before the image: the program wrote over its own
     * code (rvt_machine_changed_code), and the reader is on the hart's thread */
    bool memory_first;
} program_code;
bool program_code_fetch(void *user, uint64_t addr, rvt_insn *out);

/* A SiFive settings file (sifive_settings.c): the capture, the decoding
 * parameters, and the images it names, loaded into `img`. */
#define SIFIVE_MAX_PIDS RVT_SIFIVE_MAX_PIDS
typedef struct sifive_settings {
    char trace[4096];
    unsigned xlen, src_bits, addr_bits;
    uint64_t pids[SIFIVE_MAX_PIDS];
    unsigned npids;
    bool tolerate_errors;
    bool no_implicit_return; /* teinstruction = ...NoOpt */
} sifive_settings;
int sifive_settings_load(const char *path, const char *sysroot, sifive_settings *s, rvt_image *img, rvt_diag *diag);

/* Progress on standard error (progress.c): shown only on a terminal, not
 * with --quiet, and only once the work has taken a second. `unit` is "B"
 * for bytes (binary multiples) or a word such as "instructions". */
typedef struct progress {
    bool on, shown;
    const char *what, *unit;
    double start, last;
    double delay; /* seconds before the line first shows */
} progress;
void progress_start(progress *pr, const char *what, const char *unit, bool quiet);
/* `total` 0: unknown (no percentage or time left). Cheap enough to call per
 * megabyte or per million instructions. */
void progress_update(progress *pr, uint64_t done, uint64_t total);
void progress_end(progress *pr); /* clears the line */

/* A run stopped at its instruction limit (spin.c): report_spin runs the
 * machine on past the stop, with every sink, observer and progress display
 * detached first (nothing written changes; the machine is used up after it),
 * and says whether hart 0 repeats a loop, where, and whether it is stuck in
 * it; report_machine spells out the machine's options. */
void report_spin(FILE *f, rvt_machine *m, const rvt_image *img, const rvt_run_result *stopped);
void report_machine(FILE *f, const rvt_machine_config *cfg);

/* --report DIR: DIR (made when missing)/index.html; messages start with `tool`. */
int write_html_report(const char *tool, const char *dir, rvt_profile *p, const rvt_report_info *info);

/* NexRv's Stat line: bytes, messages, error messages, bytes/message, instr, bits/instr. */
void print_nexus_stat(uint64_t bytes, uint64_t messages, uint64_t errors, uint64_t insns);

#endif
