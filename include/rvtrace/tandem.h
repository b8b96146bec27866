/* The tandem-verification trace protocol (Bluespec's Trace Protocol
 * Specification, draft 2018-11-20): a byte stream in which one hart reports
 * every architectural state change of each retired instruction or trap.
 * This module writes it (from the hart model's observations), reads it back
 * from chunks of any size, and verifies a trace against the hart model. */
#ifndef RVTRACE_TANDEM_H
#define RVTRACE_TANDEM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/common.h"
#include "rvtrace/hart.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Parameters agreed out of band (the stream does not carry them) ---- */

typedef struct rvt_tv_params {
    unsigned xlen; /* 32 or 64: GPR, CSR and pc fields */
    unsigned flen; /* 0 (no FPRs), 32 or 64: FPR fields */
    unsigned mlen; /* bits of a memory address (32, 34 or 64); fields take whole bytes */
} rvt_tv_params;

/* XLEN as given; FLEN 64 (our harts are RV..GC); MLEN 64 for RV64 and 34
 * for RV32 (the hart has S mode and Sv32). */
RVT_API void rvt_tv_params_default(rvt_tv_params *p, unsigned xlen);
/* RVT_E_ARG with a message when a value is not one the protocol allows. */
RVT_API int rvt_tv_params_check(const rvt_tv_params *p, rvt_diag *diag);

/* ---- Records ---- */

enum rvt_tv_opcode {
    RVT_TV_BEGIN = 1,    /* begin group */
    RVT_TV_END = 2,      /* end group */
    RVT_TV_INCR_PC = 3,  /* pc += length of the group's instruction */
    RVT_TV_REG = 4,      /* full register: 16-bit address, XLEN or FLEN value */
    RVT_TV_REG_ADD = 5,  /* incremental register: 16-bit address, 8-bit signed offset */
    RVT_TV_REG_OR = 6,   /* incremental register: 16-bit address, 8-bit OR mask */
    RVT_TV_STATE = 7,    /* additional state: 8-bit identifier, identifier's data */
    RVT_TV_MEM_REQ = 8,  /* memory request: address, {op, size}, store/AMO data */
    RVT_TV_MEM_RSP = 9,  /* memory response: {size, result}, load/AMO data */
    RVT_TV_RESET = 10,   /* hart reset */
    RVT_TV_INIT = 11,    /* state initialisation */
    RVT_TV_INSN16 = 16,  /* 16-bit instruction */
    RVT_TV_INSN32 = 17,  /* 32-bit instruction */
};

/* Additional-state identifiers (opcode 7). */
enum rvt_tv_state_id {
    RVT_TV_PRIV = 1,      /* 8 bits */
    RVT_TV_PADDR = 2,     /* physical data address, MLEN */
    RVT_TV_EADDR = 3,     /* effective data address, MLEN */
    RVT_TV_STDATA8 = 4,   /* store data of the instruction, 8/16/32/64 bits */
    RVT_TV_STDATA16 = 5,
    RVT_TV_STDATA32 = 6,
    RVT_TV_STDATA64 = 7,
    RVT_TV_MTIME = 8,     /* 64 bits */
    RVT_TV_PC_PADDR = 9,  /* physical address of the pc, MLEN */
    RVT_TV_PC = 10,       /* the new pc, XLEN */
};

/* Memory request operations. */
enum rvt_tv_memop {
    RVT_TV_LOAD = 0, RVT_TV_STORE = 1, RVT_TV_LR = 2, RVT_TV_SC = 3,
    RVT_TV_AMOSWAP = 4, RVT_TV_AMOADD = 5, RVT_TV_AMOXOR = 6, RVT_TV_AMOAND = 7,
    RVT_TV_AMOOR = 8, RVT_TV_AMOMIN = 9, RVT_TV_AMOMAX = 10, RVT_TV_AMOMINU = 11,
    RVT_TV_AMOMAXU = 12, RVT_TV_FETCH = 13,
};

/* Register addresses: the Debug specification's abstract register numbers. */
enum { RVT_TV_REG_GPR = 0x1000, RVT_TV_REG_FPR = 0x1020, RVT_TV_REG_END = 0x1040 };

typedef struct rvt_tv_record {
    uint64_t offset;  /* reader: byte offset of the opcode in the stream */
    uint8_t opcode;   /* enum rvt_tv_opcode */
    uint8_t id;       /* STATE: enum rvt_tv_state_id */
    uint8_t memop;    /* MEM_REQ: enum rvt_tv_memop; MEM_RSP: the request's (reader) */
    uint8_t size;     /* MEM_REQ, MEM_RSP: log2 of the access bytes (0..3) */
    uint8_t result;   /* MEM_RSP: 0 success, 1 failure */
    bool has_data;    /* MEM_REQ, MEM_RSP: data follows */
    uint16_t reg;     /* REG, REG_ADD, REG_OR */
    union {           /* one record is never both: records stay 32 bytes */
        uint32_t insn; /* INSN16, INSN32 */
        uint64_t addr; /* MEM_REQ */
    };
    uint64_t value;   /* REG: value; REG_ADD: offset (sign-extended); REG_OR: mask;
                       * STATE: data; MEM_REQ/MEM_RSP: data */
} rvt_tv_record;

#define RVT_TV_MAX_RECORD 20 /* bytes of the longest record */

/* Whether a memory request of `op` carries data (store, SC, AMOs), and
 * whether its response does (load, LR, AMOs, fetch). */
RVT_API bool rvt_tv_request_has_data(unsigned op);
RVT_API bool rvt_tv_response_has_data(unsigned op);

/* Encodes one record into `out` (any of whose bytes it may write); returns
 * its length, or 0 (with diag) when a field does not fit the record or the
 * parameters. */
RVT_API size_t rvt_tv_encode(const rvt_tv_params *p, const rvt_tv_record *r, uint8_t out[RVT_TV_MAX_RECORD],
                     rvt_diag *diag);

RVT_API const char *rvt_tv_opcode_name(unsigned opcode);
RVT_API const char *rvt_tv_state_name(unsigned id);
RVT_API const char *rvt_tv_memop_name(unsigned op);
/* Debug-spec name of a register address: "x5/t0", "f7/ft7", "mstatus",
 * "csr0x7c0"; into buf. */
RVT_API const char *rvt_tv_reg_name(unsigned reg, char *buf, size_t size);
/* Inverse for command-line use: "t0", "x5", "ft7", "f7", "mstatus", "0x300". -1 if unknown. */
RVT_API int rvt_tv_reg_lookup(const char *name);
/* One line describing a record (no offset, no newline). */
RVT_API void rvt_tv_format_record(const rvt_tv_params *p, const rvt_tv_record *r, char *buf, size_t size);

/* ---- Streaming reader: feed chunks, take records ---- */

typedef struct rvt_tv_reader rvt_tv_reader;
RVT_API int rvt_tv_reader_new(rvt_tv_reader **out, const rvt_tv_params *p, rvt_diag *diag);
RVT_API void rvt_tv_reader_free(rvt_tv_reader *r);
/* Hands the reader the next bytes of the stream; they must stay valid until
 * rvt_tv_reader_next has returned 0. */
RVT_API void rvt_tv_reader_feed(rvt_tv_reader *r, const uint8_t *data, size_t len);
/* 1: a record in *rec; 0: all fed bytes used (feed more, or finish); <0: the
 * stream is invalid at the byte offset diag names (the reader stays failed). */
RVT_API int rvt_tv_reader_next(rvt_tv_reader *r, rvt_tv_record *rec, rvt_diag *diag);
/* Up to `max` records into recs[], ending after the first begin or end
 * group record (so that a caller collecting groups sees each boundary as the
 * last record of a call): the count (0: all fed bytes used), or <0 as
 * rvt_tv_reader_next when the stream is invalid before any record was read. */
RVT_API long rvt_tv_reader_read(rvt_tv_reader *r, rvt_tv_record *recs, size_t max, rvt_diag *diag);
/* At the end of the stream: RVT_E_TRUNC when a record was cut short. */
RVT_API int rvt_tv_reader_finish(rvt_tv_reader *r, rvt_diag *diag);
RVT_API uint64_t rvt_tv_reader_offset(const rvt_tv_reader *r); /* bytes consumed */

/* ---- Writer fed by the hart model ---- */

/* Which kinds of records a (partial) trace carries; all by default. */
enum rvt_tv_fields {
    RVT_TV_F_GPR = 1u << 0,
    RVT_TV_F_FPR = 1u << 1,
    RVT_TV_F_CSR = 1u << 2,   /* CSR writes, trap CSRs included */
    RVT_TV_F_PC = 1u << 3,    /* opcode 3 / new pc */
    RVT_TV_F_INSN = 1u << 4,
    RVT_TV_F_PRIV = 1u << 5,
    RVT_TV_F_MEM = 1u << 6,   /* memory requests and responses */
    RVT_TV_F_ADDR = 1u << 7,  /* physical and effective data addresses, store data */
    RVT_TV_F_MTIME = 1u << 8,
    RVT_TV_F_INIT = 1u << 9,  /* reset and state-initialisation groups */
    RVT_TV_F_ALL = (1u << 10) - 1,
};
/* Parses a comma-separated list of field names ("gpr,csr,pc,insn"; "all";
 * a leading "-" removes: "all,-mem"). RVT_E_ARG with the bad name. */
RVT_API int rvt_tv_parse_fields(const char *list, unsigned *fields, rvt_diag *diag);
extern RVT_API const char *const rvt_tv_field_names; /* for --help */

typedef struct rvt_tv_writer_options {
    unsigned fields;     /* enum rvt_tv_fields; 0 = all */
    bool incremental;    /* use opcodes 5 and 6 where they fit */
    bool omit_end;       /* leave out an end group that a begin group follows */
} rvt_tv_writer_options;

typedef int (*rvt_tv_byte_sink)(void *user, const uint8_t *bytes, size_t len);

typedef struct rvt_tv_writer rvt_tv_writer;
RVT_API int rvt_tv_writer_new(rvt_tv_writer **out, const rvt_tv_params *p, const rvt_tv_writer_options *opt,
                      rvt_tv_byte_sink sink, void *user, rvt_diag *diag);
/* Appends one record (groups are the caller's business). */
RVT_API int rvt_tv_writer_put(rvt_tv_writer *w, const rvt_tv_record *r);
/* Attaches the writer to machine `m` (single hart): writes the reset group
 * and the state-initialisation groups of the loaded program image, then one
 * group per retired instruction and trap while the machine runs. */
RVT_API int rvt_tv_writer_attach(rvt_tv_writer *w, rvt_machine *m, rvt_image *img);
/* Flushes; returns the first error a write met (RVT_E_IO ...). */
RVT_API int rvt_tv_writer_finish(rvt_tv_writer *w);
RVT_API void rvt_tv_writer_free(rvt_tv_writer *w);
RVT_API uint64_t rvt_tv_writer_groups(const rvt_tv_writer *w);
RVT_API uint64_t rvt_tv_writer_bytes(const rvt_tv_writer *w);

/* ---- Verifier: a trace against the hart model ---- */

typedef struct rvt_tv_verify_options {
    unsigned max_errors;   /* stop after this many divergences; 0 = no limit */
    unsigned absent;       /* enum rvt_tv_fields the trace does not carry */
    uint16_t absent_regs[64]; /* single registers the trace does not carry */
    unsigned nabsent_regs;
    FILE *report;          /* where divergences are printed; NULL = none */
} rvt_tv_verify_options;

typedef struct rvt_tv_verify_result {
    uint64_t groups;       /* groups read */
    uint64_t steps;        /* instructions and traps compared */
    uint64_t divergences;
    /* The first divergence: group index and byte offset of its begin record,
     * step number (0-based), pc. Valid when divergences > 0. */
    uint64_t first_group, first_offset, first_step, first_pc;
    bool stopped;          /* --max-errors reached */
} rvt_tv_verify_result;

typedef struct rvt_tv_verifier rvt_tv_verifier;
/* `m` is the reference model with the program loaded; the verifier steps it. */
RVT_API int rvt_tv_verifier_new(rvt_tv_verifier **out, const rvt_tv_params *p, const rvt_tv_verify_options *opt,
                        rvt_machine *m, rvt_image *img, rvt_diag *diag);
/* Feeds trace bytes (copied); verification runs as groups complete, up to a
 * few pieces of 256 KiB behind, since a second thread reads ahead: results
 * and errors of the last pieces come with later feeds or with finish.
 * Returns 0, or <0 when the trace is unusable (diag names the byte offset). */
RVT_API int rvt_tv_verifier_feed(rvt_tv_verifier *v, const uint8_t *data, size_t len, rvt_diag *diag);
/* Ends the stream (the last group needs no end record). */
RVT_API int rvt_tv_verifier_finish(rvt_tv_verifier *v, rvt_diag *diag);
/* The whole stream (after anything fed) from `read`, which the reading
 * thread calls for the next bytes: their count, 0 at the end, or <0 (with
 * diag) when reading fails, which ends verification with that status. Ends
 * as rvt_tv_verifier_finish does, or early (returning 0) when the verifier
 * stops at --max-errors. Faster than feeding: reading and decompressing run
 * beside verification, and nothing is copied. */
typedef long (*rvt_tv_read_fn)(void *user, uint8_t *buf, size_t size, rvt_diag *diag);
RVT_API int rvt_tv_verifier_read_all(rvt_tv_verifier *v, rvt_tv_read_fn read, void *user, rvt_diag *diag);
RVT_API const rvt_tv_verify_result *rvt_tv_verifier_result(const rvt_tv_verifier *v);
RVT_API void rvt_tv_verifier_free(rvt_tv_verifier *v);

/* ---- spike's commit log as a tandem trace ---- */

/* Converts spike's `-l --log-commits` log of hart `hart` into the protocol:
 * one group per retired instruction (register writes, memory accesses, the
 * new pc from the next instruction) and per trap (xepc, xcause, xtval and the
 * new privilege, from spike's exception line and the handler's first line).
 * spike does not log the mstatus changes of traps and FP instructions, so a
 * converted trace lacks them (verify it with mstatus absent). */
RVT_API int rvt_tv_convert_spike_log(const char *log_path, const rvt_tv_params *p, unsigned hart,
                             rvt_tv_byte_sink sink, void *user, uint64_t *groups, rvt_diag *diag);

#ifdef __cplusplus
}
#endif
#endif
