/* SiFive cycle-accurate trace: the side file (.rcad) a CA Scalar or CA
 * Vector trace encoder writes beside the instruction trace, and the cycle
 * annotation of each retired instruction that pairs with it.
 *
 * The file is a run of 128-byte records of 32 little-endian 32-bit words.
 * Bits 29..0 of each word are cycle data, oldest in bit 29; the top two
 * bits of words 1..31 carry the address of the instruction the trace
 * starts with, two bits a word from the least significant (only the first
 * record's is used). A scalar ("instruction") file has two bits per cycle,
 * 15 cycles a word and 480 a record: the first of each pair is set when an
 * instruction left scalar pipe 0 in that cycle, the second pipe 1. A vector
 * file has six bits per cycle, 5 cycles a word and 160 a record: pipe 0
 * (0x20), pipe 1 (0x10), a vector instruction started in the vector unit
 * (0x08), and one finished arithmetic (0x04), a store (0x02) or a load
 * (0x01). The first record's first cycle is pipe 0 whatever its bit says:
 * it is the instruction at the start address. A trailing part of a record
 * is not read. (docs/formats.md has the details and the printed form.) */
#ifndef RVTRACE_CYCLES_H
#define RVTRACE_CYCLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rvtrace/common.h"
#include "rvtrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RVT_CA_RECORD_BYTES 128

typedef enum rvt_ca_type {
    RVT_CA_INSTRUCTION = 1, /* CA Scalar: the pipe each instruction left */
    RVT_CA_VECTOR = 2,      /* CA Vector: also the vector unit's start and finish */
} rvt_ca_type;

/* What an instruction waits for in a vector file, by its opcode as SiFive's
 * decoder sorts them (major opcodes LOAD-FP, STORE-FP and AMO with a vector
 * width, OP-V); compressed and other instructions are RVT_CA_SCALAR. */
typedef enum rvt_ca_class {
    RVT_CA_SCALAR = 0,
    RVT_CA_VARITH,   /* start, then an arithmetic finish */
    RVT_CA_VLOAD,    /* start, then a load finish */
    RVT_CA_VSTORE,   /* start, then a store finish */
    RVT_CA_VAMO,     /* start, then a load finish */
    RVT_CA_VAMO_WW,  /* start, a load finish, then a store finish (wd set) */
    RVT_CA_VCONFIG,  /* vset{i}vl{i}: the scalar pipe only */
} rvt_ca_class;

RVT_API rvt_ca_class rvt_ca_classify(const rvt_insn *in);

/* rvt_ca_note.vector: which vector cycles the note has */
enum {
    RVT_CA_HAS_VSTART = 1,
    RVT_CA_HAS_VARITH = 2,
    RVT_CA_HAS_VLOAD = 4,
    RVT_CA_HAS_VSTORE = 8,
};

/* One instruction's cycles, counted from the start of the CA trace. */
typedef struct rvt_ca_note {
    uint64_t cycle;   /* it left the scalar pipe */
    unsigned pipe;    /* 0 or 1 */
    unsigned vector;  /* RVT_CA_HAS_*: 0 for a scalar instruction */
    uint64_t vstart;  /* it started in the vector unit */
    uint64_t vfinish; /* it finished there (an AMO with wd: its store) */
    /* SiFive's decoder's queue statistics, counted as it counts them (in
     * 8 bits): vector instructions waiting to start when this one left the
     * scalar pipe, and arithmetic, loads and stores in flight as it started */
    uint8_t queued, arith, loads, stores;
} rvt_ca_note;

typedef struct rvt_ca_reader rvt_ca_reader;

/* Reads `len` bytes of a .rcad file (`name` for the messages; the bytes
 * are copied). Fewer than one record is RVT_E_TRUNC. */
RVT_API int rvt_ca_reader_new(rvt_ca_reader **out, const uint8_t *data, size_t len, rvt_ca_type type,
                              const char *name, rvt_diag *diag);
RVT_API void rvt_ca_reader_free(rvt_ca_reader *r);
/* The address of the instruction the file starts with. */
RVT_API uint64_t rvt_ca_start(const rvt_ca_reader *r);
/* Bytes at the end that are not a whole record (not read). */
RVT_API size_t rvt_ca_trailing(const rvt_ca_reader *r);

/* The cycles of the next retired instruction (of class `cls`). RVT_E_TRUNC
 * when the file ends first (the CA buffer filled), RVT_E_FORMAT when the
 * vector cycles cannot be paired with instructions (more than SiFive's
 * decoder holds wait for one that never comes); `diag` gives the byte. */
RVT_API int rvt_ca_next(rvt_ca_reader *r, rvt_ca_class cls, rvt_ca_note *note, rvt_diag *diag);
/* Back to the file's first instruction. */
RVT_API void rvt_ca_rewind(rvt_ca_reader *r);

/* Pairs the file with an instruction trace that starts (at a sync that
 * enables trace or leaves debug mode) at `first`: walks the program from
 * the file's start address, taking one instruction's cycles a step, as
 * SiFive's decoder does, for at most 30 instructions whose next address the
 * code alone tells (a direct jump, a branch to its own fall-through, a
 * return to the one call seen on the way). 1: the file is now at `first`;
 * 0: it is not reached that way (the file is back at its start: the trace
 * may reach the start address within 16 instructions); RVT_E_TRUNC as
 * rvt_ca_next. */
RVT_API int rvt_ca_align(rvt_ca_reader *r, uint64_t first, bool (*code)(void *user, uint64_t addr, rvt_insn *in),
                         void *user, rvt_diag *diag);

/* dqr's text for a note: `t:CYCLE [PIPE:DELTA]`, for a vector instruction
 * `[PIPE:DELTA(QUEUED)-START(nA,nL,nS)-FINISHx]` with the start and finish
 * counted from `previous` (the cycle of the instruction before; the finish
 * one less, as dqr prints it), the delta from `previous`. Returns the
 * length (snprintf's). */
RVT_API int rvt_ca_format(const rvt_ca_note *note, uint64_t previous, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
