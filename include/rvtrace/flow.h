/* The instruction-flow interface: what every trace decoder (E-Trace, N-Trace)
 * needs from the program image and what it hands to its consumer. */
#ifndef RVTRACE_FLOW_H
#define RVTRACE_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "rvtrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a decoder reads the program: the decoded instruction at `addr`, or
 * false when there is none. */
typedef bool (*rvt_code_fetch)(void *user, uint64_t addr, rvt_insn *out);

/* Receives each retired instruction address in order; a non-zero return
 * stops the decoder, which then returns RVT_E_IO. */
typedef int (*rvt_pc_sink)(void *user, uint64_t pc);

/* Receives the retired instructions as runs executed one after the other:
 * `n` instructions from `start` up to (not including) `end`. A consumer that
 * only counts or profiles never looks at single addresses. */
typedef int (*rvt_block_sink)(void *user, uint64_t start, uint64_t end, uint32_t n);
/* A run of `n` (<= 64) sequential instructions from `start`, bit i of
 * `wide` set when instruction i is 32-bit: every address without a call
 * per instruction. */
typedef int (*rvt_run_sink)(void *user, uint64_t start, uint32_t n, uint64_t wide);

/* A trap the trace reports. `at` is the address of the instruction that
 * took the exception (ecall and ebreak included) or, for an interrupt, of
 * the instruction that would have run next; `handler` is where execution
 * went on. E-Trace sends the cause (and for some exceptions tval); N-Trace
 * only tells exceptions from interrupts. */
typedef struct rvt_trap_event {
    bool interrupt;
    bool has_cause, has_tval;
    uint64_t cause; /* exception or interrupt code, without the interrupt flag */
    uint64_t tval;
    uint64_t at, handler;
    /* the packets could not say after which of several occurrences of the
     * last instruction before it the trap came (E-Trace implicit return,
     * rvt_etrace_decoder_ambiguous_traps): `at` is the first one's successor */
    bool unplaced;
} rvt_trap_event;

/* Receives each trap in order with the PCs; a non-zero return stops the
 * decoder. */
typedef int (*rvt_trap_sink)(void *user, const rvt_trap_event *trap);

/* ---- Straight-line code, read once ----
 *
 * Decoders walk code one instruction at a time only where something is
 * decided (a branch, a jump, the end of a count); in between they pass runs
 * of linear instructions. A run cache remembers, per start address, how many
 * linear instructions follow, their sizes and the instruction that ends the
 * run. The code must not change while the cache is in use. */

#define RVT_RUN_MAX 64 /* instructions in one run at most */

/* 0 for an instruction a walk simply passes, else a decoder-defined class. */
typedef unsigned (*rvt_insn_classifier)(const rvt_insn *in);

/* One cache line: a decoder looks a run up for every few instructions it
 * passes, and the cache holds thousands of them. */
typedef struct rvt_run {
    _Alignas(64) uint64_t start; /* first linear instruction */
    uint64_t end;                /* the address after the last */
    uint64_t wide;               /* bit i: linear instruction i is 32-bit */
    uint8_t n, units;            /* linear instructions (RVT_RUN_MAX at most), their 16-bit units */
    bool has_end;                /* the instruction at `end` is known and not linear: */
    bool valid;
    uint16_t end_class;
    rvt_insn end_insn;
} rvt_run;

/* The last linear instruction of `r` (its start when it has none); `mask`
 * the XLEN address mask. */
static inline uint64_t rvt_run_last(const rvt_run *r, uint64_t mask) {
    return r->n ? (r->end - ((r->wide >> (r->n - 1)) & 1 ? 4 : 2)) & mask : r->start;
}

/* 16-bit units of a run of `n` instructions with sizes `wide` (bit i set:
 * instruction i is 32-bit): its end is start + 2 * units. */
static inline uint64_t rvt_run_units(uint32_t n, uint64_t wide) {
    uint64_t w = n < 64 ? wide & ((UINT64_C(1) << n) - 1) : wide;
    w -= (w >> 1) & 0x5555555555555555u; /* popcount without the library call of a generic x86-64 build */
    w = (w & 0x3333333333333333u) + ((w >> 2) & 0x3333333333333333u);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return n + ((w * 0x0101010101010101u) >> 56);
}

typedef struct rvt_run_cache rvt_run_cache;
int rvt_run_cache_new(rvt_run_cache **out, rvt_code_fetch fetch, void *user, unsigned xlen,
                      rvt_insn_classifier classify);
void rvt_run_cache_free(rvt_run_cache *c);
/* The run starting at `pc` (n = 0 when the instruction there is not linear,
 * or cannot be fetched: has_end false then). */
const rvt_run *rvt_run_at(rvt_run_cache *c, uint64_t pc);
/* Address of linear instruction `i` of `r` (i <= n). */
uint64_t rvt_run_addr(const rvt_run_cache *c, const rvt_run *r, uint32_t i);

/* ---- A decoder's output, kept to be handed on later ----
 *
 * Parallel decoding runs decoders on parts of a trace at once; each writes
 * what it finds into a log, and the logs are replayed into the real
 * consumers in trace order, so that they see exactly what one decoder
 * would have given them. */

typedef struct rvt_flow_log rvt_flow_log;
int rvt_flow_log_new(rvt_flow_log **out);
void rvt_flow_log_free(rvt_flow_log *l);
/* Forget the entries (the memory stays for the next use). */
void rvt_flow_log_clear(rvt_flow_log *l);
/* Sinks that append to the log given as `user`; they return RVT_E_NOMEM
 * when memory runs out. A run that continues the run logged just before it
 * joins that one while both fit in RVT_RUN_MAX instructions (consumers take
 * any cut of a sequence into runs alike). */
int rvt_flow_log_pc(void *log, uint64_t pc);
int rvt_flow_log_run(void *log, uint64_t start, uint32_t n, uint64_t wide);
int rvt_flow_log_trap(void *log, const rvt_trap_event *trap);
/* A note in the flow (where the decoder lost the path, and why). */
int rvt_flow_log_note(rvt_flow_log *l, const char *text);

/* Where a log is replayed; each receives `user`. */
typedef struct rvt_flow_sinks {
    rvt_pc_sink pc;
    rvt_run_sink run;
    rvt_trap_sink trap;
    int (*note)(void *user, const char *text);
} rvt_flow_sinks;
/* Hands the entries on in the order they came; stops at the first sink that
 * returns non-zero and returns that value. */
int rvt_flow_log_replay(const rvt_flow_log *l, const rvt_flow_sinks *to, void *user);

#ifdef __cplusplus
}
#endif
#endif
