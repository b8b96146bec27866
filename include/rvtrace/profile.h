/* Consumers of the instruction flow for performance work: a profile by
 * function, call stacks in the folded form flame-graph tools read, and
 * per-address coverage with symbols and source lines. Fed by any decoder's
 * PC or block sink (or by the hart model's retirement stream). */
#ifndef RVTRACE_PROFILE_H
#define RVTRACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rvt_profile rvt_profile;

/* `img` names the code (symbols, lines, instruction kinds); it must outlive
 * the profile. */
int rvt_profile_new(rvt_profile **out, rvt_image *img);
void rvt_profile_free(rvt_profile *p);

/* One retired instruction; an rvt_pc_sink. Calls (jal/jalr writing a link
 * register) and returns (jalr x0 through a link register) move the call
 * stack; a transfer to another function that is neither (a tail call, a
 * trap) replaces the innermost frame. Returns RVT_E_NOMEM when memory runs out. */
int rvt_profile_pc(void *profile, uint64_t pc);
/* `n` instructions run in sequence from `start`; an rvt_block_sink. */
int rvt_profile_block(void *profile, uint64_t start, uint64_t end, uint32_t n);

uint64_t rvt_profile_total(const rvt_profile *p);

typedef struct rvt_profile_entry {
    const char *name; /* function symbol, or "?" outside every symbol */
    uint64_t count;   /* instructions retired in it */
} rvt_profile_entry;

/* Functions by retired instructions, most first: fills up to `max` entries
 * and returns how many functions ran. */
size_t rvt_profile_functions(rvt_profile *p, rvt_profile_entry *out, size_t max);

/* The `n` hottest functions with counts and shares. */
int rvt_profile_write_top(rvt_profile *p, FILE *f, size_t n);
/* One line per call stack, outermost first: `main;foo;bar COUNT` (the
 * instructions retired with exactly that stack). */
int rvt_profile_write_folded(rvt_profile *p, FILE *f);
/* One CSV row per executed address, in address order:
 * `address,count,symbol+offset,file:line`. */
int rvt_profile_write_coverage(rvt_profile *p, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
