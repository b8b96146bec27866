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

/* Receives each trap a trace reports, in order with the PCs: `at` is the
 * address of the instruction that took the exception (it did not retire) or,
 * for an interrupt, of the instruction that would have run next; `handler`
 * is where execution went on. A non-zero return stops the decoder. */
typedef int (*rvt_trap_sink)(void *user, bool interrupt, uint64_t at, uint64_t handler);

#ifdef __cplusplus
}
#endif
#endif
