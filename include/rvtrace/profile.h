/* Consumers of the instruction flow for performance work: a profile by
 * function, call stacks in the folded form flame-graph tools read, and
 * per-address coverage with symbols and source lines. Fed by any decoder's
 * PC or block sink (or by the hart model's retirement stream). */
#ifndef RVTRACE_PROFILE_H
#define RVTRACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/flow.h"
#include "rvtrace/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rvt_profile rvt_profile;

/* `img` names the code (symbols, lines, instruction kinds); it must outlive
 * the profile. */
RVT_API int rvt_profile_new(rvt_profile **out, rvt_image *img);
RVT_API void rvt_profile_free(rvt_profile *p);
/* Where the profile reads instructions (their size, and whether they call,
 * return or branch) when the decoder sees code outside the image too (a
 * boot ROM): the decoder's own fetch. Default: the image. */
RVT_API void rvt_profile_set_fetch(rvt_profile *p, rvt_code_fetch fetch, void *user);

/* One retired instruction; an rvt_pc_sink. Calls (jal/jalr writing a link
 * register) and returns (jalr x0 through a link register) move the call
 * stack; a transfer to another function that is neither (a tail call, a
 * trap) replaces the innermost frame. Returns RVT_E_NOMEM when memory runs out. */
RVT_API int rvt_profile_pc(void *profile, uint64_t pc);
/* `n` instructions run in sequence from `start`; an rvt_block_sink. A run
 * seen before costs one lookup whatever its length. */
RVT_API int rvt_profile_block(void *profile, uint64_t start, uint64_t end, uint32_t n);
/* A walk a decoder kept, handed out again (an rvt_walk_sink but for the
 * instruction count): the same as its blocks one by one, but a walk that
 * after its first block stays in one function, without calls or returns,
 * costs one lookup the next times. */
RVT_API int rvt_profile_walk(void *profile, uint64_t id, const rvt_block *blocks, uint32_t n);
/* The same as an rvt_run_sink (the sizes come from the image). */
RVT_API int rvt_profile_run(void *profile, uint64_t start, uint32_t n, uint64_t wide);

RVT_API uint64_t rvt_profile_total(const rvt_profile *p);

typedef struct rvt_profile_entry {
    const char *name; /* function symbol, or "?" outside every symbol */
    uint64_t count;   /* instructions retired in it */
    uint64_t calls;   /* calls (jal/jalr with a link register) into it from other functions */
    uint64_t self_calls; /* ... and from itself (recursion) */
} rvt_profile_entry;

/* Functions by retired instructions, most first: fills up to `max` entries
 * and returns how many functions ran. */
RVT_API size_t rvt_profile_functions(rvt_profile *p, rvt_profile_entry *out, size_t max);

/* The `n` hottest functions: instructions, share, calls (as gprof shows
 * them: "N", or "N+M" when M more came from the function itself). */
RVT_API int rvt_profile_write_top(rvt_profile *p, FILE *f, size_t n);
/* One line per call stack, outermost first: `main;foo;bar COUNT` (the
 * instructions retired with exactly that stack). */
RVT_API int rvt_profile_write_folded(rvt_profile *p, FILE *f);
/* One CSV row per executed address, in address order:
 * `address,count,symbol+offset,file:line`. */
RVT_API int rvt_profile_write_coverage(rvt_profile *p, FILE *f);

/* gprof's gmon.out: a histogram of retired instructions over the executed
 * part of each executable segment, one bin per 2 bytes, and one call-graph
 * arc per call site and target with its exact count; the histogram's unit
 * is "instructions" (beyond 256 x 65535 on one address, thousands of them
 * and so on, as its dimension says). Addresses as wide as the image's XLEN. */
RVT_API int rvt_profile_write_gmon(rvt_profile *p, FILE *f);
/* What gprof will not show of the gmon.out of this profile (see
 * rvt_image_gprof_text_end): the instructions it credits to no function
 * (those at and after the last function of the text: gprof gives that one
 * no samples) and the calls it drops (an arc whose call site or target lies
 * in no function of gprof's, i.e. at or after both the last function and the
 * end of .text). */
typedef struct rvt_gmon_losses {
    const char *function; /* gprof's last function of the text */
    uint64_t addr;        /* its address */
    uint64_t text_end;    /* the end of .text */
    uint64_t instructions;
    uint64_t calls;
} rvt_gmon_losses;
/* True when gprof will lose instructions or calls of this profile; `out`
 * says which. */
RVT_API bool rvt_profile_gmon_losses(rvt_profile *p, rvt_gmon_losses *out);
/* callgrind's profile format: per instruction and source line the events
 * Ir (instructions retired), Bc (conditional branches) and Bct (taken), and
 * per call site its calls with counts and inclusive Ir. `command` goes in
 * the cmd: line. */
RVT_API int rvt_profile_write_callgrind(rvt_profile *p, FILE *f, const char *command);
/* lcov's tracefile from the DWARF lines of every executable segment: FN and
 * FNDA (the times a function's entry ran), BRDA (each conditional branch
 * taken / not taken), DA (a line counts as often as its most executed
 * instruction; lines that never ran count 0). */
RVT_API int rvt_profile_write_lcov(rvt_profile *p, FILE *f, const char *test_name);
/* The same tracefile, but for an image without DWARF line information for
 * its code (see rvt_image_has_source_lines; lines that cover no instruction
 * count as none): an annotated disassembly of every function that ran
 * (symbol labels, address, bytes, instruction; one instruction a line) is
 * written to `listing`, and the tracefile gives coverage per instruction
 * against it, under the source name `listing_name` (the path genhtml will
 * read it from). `*listed` gets the number of instructions in the listing
 * (0, and `listing` untouched, when the code has lines: then this is
 * rvt_profile_write_lcov; also when `listing` is NULL). */
RVT_API int rvt_profile_write_lcov_listing(rvt_profile *p, FILE *f, const char *test_name, FILE *listing,
                                           const char *listing_name, uint64_t *listed);

/* What a report says beside the profile: where the trace came from and how
 * it decoded. */
typedef struct rvt_report_info {
    const char *program;   /* the ELF (or image) names */
    const char *trace;     /* the trace file */
    const char *format;    /* "E-Trace", "N-Trace", ... */
    uint64_t trace_bytes;  /* bytes of trace read */
    uint64_t packets;      /* packets or messages */
    uint64_t losses;       /* places where trace was lost */
} rvt_report_info;

/* One self-contained HTML page (no network, no external scripts): the
 * summary, the hottest functions, a flame graph of the call stacks (an
 * inline SVG; a small inline script zooms on click and searches), and the
 * hottest function's instructions with counts, disassembly and source
 * lines. */
RVT_API int rvt_profile_write_html(rvt_profile *p, FILE *f, const rvt_report_info *info);

#ifdef __cplusplus
}
#endif
#endif
