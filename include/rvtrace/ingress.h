/* The retirement stream: what a hart tells a trace encoder about each retired
 * instruction (the E-Trace ingress port), produced by our hart model or read
 * from files made elsewhere, and consumed by every encoder. */
#ifndef RVTRACE_INGRESS_H
#define RVTRACE_INGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One ingress-port block. With the single-retire interface a block is one
 * instruction; the multiple-retire interface merges sequential instructions,
 * and the itype describes the last one.
 *
 * A trap is its own record: itype 1 (exception) or 2 (interrupt), ninsns 0,
 * iaddr = the address of the instruction that trapped (exception) or that
 * would have executed next (interrupt), cause = mcause/scause as written by
 * the trap, tval = xtval. ecall and ebreak are reported this way too: they do
 * not retire (minstret does not count them). */
typedef struct rvt_retire {
    uint64_t iaddr;     /* address of the first instruction of the block */
    uint64_t cause;     /* trap records: xcause value (interrupt flag in the MSB of XLEN) */
    uint64_t tval;      /* trap records: xtval value */
    uint64_t context;   /* scontext/mcontext (0 when not implemented) */
    uint64_t time;      /* mtime when the block retired */
    uint32_t insn;      /* bits of the last instruction of the block (or of the trapping one) */
    uint32_t ninsns;    /* instructions in the block, 0 for a trap record */
    uint16_t iretire;   /* halfwords retired in the block (E-Trace iretire) */
    uint8_t ilastsize;  /* last instruction size: 0 = 16-bit, 1 = 32-bit */
    uint8_t itype;      /* enum rvt_itype of the last instruction (4-bit classification) */
    uint8_t priv;       /* privilege the block retired in: 0 U, 1 S, 3 M */
    uint8_t ctype;      /* context type: 0 unreported */
    uint8_t sijump;     /* last instruction is a sequentially inferable jump */
    uint8_t hart;       /* hart index */
    uint8_t sideband;   /* RVT_SIDEBAND_* asserted: a record that retires nothing */
    uint8_t trigger;    /* RVT_TRIGGER_* pulsed as the block retired (E-Trace trigger[2:0]) */
} rvt_retire;

/* The ingress port's trigger[2:0] input, which Sdtrig triggers with trace
 * actions drive (action 2 trace-on, 3 trace-off, 4 trace-notify). */
enum { RVT_TRIGGER_ON = 1, RVT_TRIGGER_OFF = 2, RVT_TRIGGER_NOTIFY = 4 };

/* The ingress port's optional halted and reset inputs. A record with either
 * set marks cycles in which the hart was halted (debug mode) or in reset;
 * the encoder treats it as an unqualified instruction: it reports the last
 * instruction before, says tracing stopped, and restarts with a sync. */
enum { RVT_SIDEBAND_HALTED = 1, RVT_SIDEBAND_RESET = 2 };

/* Exception causes of ecall and ebreak (breakpoint, ecall from U, S, M):
 * their instruction counts as executed although it traps. */
static inline bool rvt_cause_is_env_call(uint64_t cause) {
    uint64_t code = cause & 0xff;
    return code == 3 || code == 8 || code == 9 || code == 11;
}

/* The address of the last instruction a record of one or more retired
 * instructions stands for (a block's, or the record's own). */
static inline uint64_t rvt_retire_last_iaddr(const rvt_retire *r) {
    return r->iaddr + 2u * r->iretire - (r->ilastsize ? 4u : 2u);
}

/* Record r stands for instruction `in` alone: its size and bits (the
 * address, count and class are the caller's). */
static inline void rvt_retire_take_insn(rvt_retire *r, const rvt_insn *in) {
    r->iretire = (uint16_t)(in->len / 2);
    r->ilastsize = in->len == 4;
    r->insn = in->raw;
}

/* A trap record of an ecall or ebreak. */
static inline bool rvt_retire_is_env_trap(const rvt_retire *r) {
    return r->ninsns == 0 && r->itype == 1 && rvt_cause_is_env_call(r->cause);
}

/* An exception raised before the instruction at iaddr was fetched: a fetch
 * access or page fault, or an execute-address breakpoint trigger. Such a
 * record carries no instruction bits (insn 0), which tells the trigger's
 * breakpoint apart from an ebreak. */
static inline bool rvt_retire_is_fetch_trap(const rvt_retire *r) {
    uint64_t code = r->cause & 0xff;
    return r->ninsns == 0 && r->itype == 1 && r->insn == 0 && (code == 1 || code == 12 || code == 3);
}

/* Receives records in batches; a non-zero return stops the producer. */
typedef int (*rvt_retire_sink)(void *user, const rvt_retire *recs, size_t n);

/* Multiple-retire interface: appends instruction record `r` to `block` and
 * returns true when it continues it (the block ended in a plain instruction
 * that falls through to `r`, same privilege and hart); false leaves `block`
 * unchanged and `r` must start a new block. */
RVT_API bool rvt_retire_merge(rvt_retire *block, const rvt_retire *r);

/* Whether `fetch` gives code that adds up to block r: its instructions but
 * the last, fetched one after another from its address, end where its last
 * begins (so that r can be taken apart into the records it stands for). */
RVT_API bool rvt_retire_block_fits_code(const rvt_retire *r, rvt_code_fetch fetch, void *user);

/* ---- The packed form: records on their way between threads ---- */

/* A record in 16 bytes rather than rvt_retire's 64. Handing records from
 * one core to another costs per byte (a run's records cross at a few GB/s
 * on some machines), and most records are blocks that fit a slot of two
 * words: their address (even) and a word of the fields in small ranges
 * (rvt_packed_word), their time and their hart's group (hart / 4) the
 * stream's. Any other record is long, four slots: {1 | sideband << 8,
 * iaddr}, {time, insn | ninsns << 32}, {rvt_packed_bits, cause}, {tval,
 * context}. A slot {3 | hart group << 8, time} is no record: it sets the
 * stream's state. The first word's low two bits tell the three apart.
 *
 * So a packed stream carries a state from record to record (all 0 before
 * its first slot, then what the last long record or state slot had).
 * Packing and unpacking keep it, each side its own copy, and the two sides
 * must see the same slots in the same order. */
typedef struct rvt_retire_packed {
    uint64_t iaddr; /* or a long record's or state slot's flag */
    uint64_t word;  /* rvt_packed_word, or a long record's iaddr, or a time */
} rvt_retire_packed;

typedef struct rvt_packed_state {
    uint64_t time;
    unsigned hart_group; /* the hart of a one-slot record, but its low two bits */
} rvt_packed_state;

enum { RVT_PACKED_MAX_SLOTS = 4 };

/* The word of a one-slot record: insn (bits 0-31), ninsns (32-41), 0 (42),
 * iretire (43-54), ilastsize (55), itype (56-59), priv (60-61), hart's
 * low two bits (62-63); ctype and sijump are 0. The fields must be in
 * range (rvt_packed_fits). (The top nine bits, which turn into bytes of
 * their own, are together: one table lookup.) */
#define RVT_PACKED_NINSNS_MAX 0x3ffu
#define RVT_PACKED_IRETIRE_MAX 0xfffu
static inline uint64_t rvt_packed_word(uint32_t insn, unsigned ninsns, unsigned iretire, unsigned ilastsize,
                                       unsigned itype, unsigned priv, unsigned hart) {
    return insn | (uint64_t)ninsns << 32 | (uint64_t)iretire << 43 | (uint64_t)ilastsize << 55 |
           (uint64_t)itype << 56 | (uint64_t)priv << 60 | (uint64_t)(hart & 3) << 62;
}
/* The fields of a one-slot record's word into r (the others left), in a
 * stream whose state is s. */
static inline void rvt_packed_word_to(uint64_t word, const rvt_packed_state *s, rvt_retire *r) {
    r->insn = (uint32_t)word;
    r->ninsns = (uint32_t)(word >> 32 & RVT_PACKED_NINSNS_MAX);
    r->iretire = (uint16_t)(word >> 43 & RVT_PACKED_IRETIRE_MAX);
    r->ilastsize = (uint8_t)(word >> 55 & 1);
    r->itype = (uint8_t)(word >> 56 & 0xf);
    r->priv = (uint8_t)(word >> 60 & 3);
    r->hart = (uint8_t)(s->hart_group << 2 | word >> 62);
}
/* Whether r goes in one slot in a stream whose state is s. */
static inline bool rvt_packed_fits(const rvt_retire *r, const rvt_packed_state *s) {
    return r->time == s->time && (unsigned)(r->hart >> 2) == s->hart_group && !(r->iaddr & 1) &&
           r->ninsns <= RVT_PACKED_NINSNS_MAX && r->iretire <= RVT_PACKED_IRETIRE_MAX && r->ilastsize < 2 &&
           r->itype < 16 && r->priv < 4 && !r->ctype && !r->sijump && !r->cause && !r->tval && !r->context &&
           !r->trigger &&
           !r->sideband;
}
/* The slot that sets a stream's state. */
static inline rvt_retire_packed rvt_packed_state_slot(const rvt_packed_state *s) {
    return (rvt_retire_packed){3 | (uint64_t)s->hart_group << 8, s->time};
}

/* The `bits` of a long record: iretire, ilastsize, itype, priv, ctype,
 * sijump and hart, a byte each from bit 16 on (iretire: bits 0-15). */
static inline uint64_t rvt_packed_bits(unsigned iretire, unsigned ilastsize, unsigned itype, unsigned priv,
                                       unsigned ctype, unsigned sijump, unsigned hart) {
    return (uint64_t)(iretire & 0xffff) | (uint64_t)(ilastsize & 0xff) << 16 | (uint64_t)(itype & 0xff) << 24 |
           (uint64_t)(priv & 0xff) << 32 | (uint64_t)(ctype & 0xff) << 40 | (uint64_t)(sijump & 0xff) << 48 |
           (uint64_t)(hart & 0xff) << 56;
}

/* The slots a packed record (or state slot) takes, its instruction count
 * (a state slot's: 0), and a record's last instruction's address (as
 * rvt_retire_last_iaddr). */
static inline bool rvt_packed_is_one_slot(const rvt_retire_packed *p) { return !(p->iaddr & 1); }
static inline bool rvt_packed_is_long(const rvt_retire_packed *p) { return (p->iaddr & 3) == 1; }
static inline size_t rvt_packed_slots(const rvt_retire_packed *p) {
    return rvt_packed_is_long(p) ? RVT_PACKED_MAX_SLOTS : 1;
}
static inline uint32_t rvt_packed_ninsns(const rvt_retire_packed *p) {
    if (rvt_packed_is_one_slot(p))
        return (uint32_t)(p->word >> 32 & RVT_PACKED_NINSNS_MAX);
    return rvt_packed_is_long(p) ? (uint32_t)(p[1].word >> 32) : 0;
}
static inline uint64_t rvt_packed_last_iaddr(const rvt_retire_packed *p) {
    if (rvt_packed_is_long(p))
        return p->word + 2u * (p[2].iaddr & 0xffff) - ((p[2].iaddr >> 16 & 0xff) ? 4u : 2u);
    return p->iaddr + 2u * (p->word >> 43 & RVT_PACKED_IRETIRE_MAX) - ((p->word >> 55 & 1) ? 4u : 2u);
}

/* The stream's state after record (or state slot) p, from the one before it. */
static inline void rvt_packed_follow(const rvt_retire_packed *p, rvt_packed_state *s) {
    if (rvt_packed_is_long(p)) {
        s->time = p[1].iaddr;
        s->hart_group = (unsigned)(p[2].iaddr >> 58);
    } else if (!rvt_packed_is_one_slot(p)) {
        s->time = p->word;
        s->hart_group = (unsigned)(p->iaddr >> 8);
    }
}

/* Packs r into out[0..RVT_PACKED_MAX_SLOTS): the slots used. */
RVT_API size_t rvt_retire_pack(const rvt_retire *r, rvt_retire_packed *out, rvt_packed_state *s);
/* Unpacks the whole records among in[0..n) into out[0..cap): the records
 * written; *used: the slots they took, state slots included (a record
 * whose last slots are not among the n is left for the next call). */
RVT_API size_t rvt_retire_unpack(const rvt_retire_packed *in, size_t n, rvt_retire *out, size_t cap, size_t *used,
                         rvt_packed_state *s);
/* Receives a packed stream in batches of whole records. */
typedef int (*rvt_packed_sink)(void *user, const rvt_retire_packed *slots, size_t n);
/* Passes the records of slots[0..n) on to `sink`, unpacked into `scratch`
 * (room for cap records) a piece at a time: the first error of sink, or 0.
 * `scratch` holds zeros when first given (calloc), and is left so. *s:
 * the stream's state before slots[0], and after the records passed on. */
RVT_API int rvt_retire_unpack_to(const rvt_retire_packed *slots, size_t n, rvt_retire *scratch, size_t cap,
                         rvt_retire_sink sink, void *user, rvt_packed_state *s);

/* ---- Handing the stream to another thread ---- */

/* Passes records on to `next` on a thread of its own, so that a consumer
 * that needs nothing from the producer's state (an encoder without code
 * fetches) runs beside it. The records cross packed, in a few fixed batches
 * (memory does not grow with the run); the producer waits only when all of
 * them are still queued. `next` sees the records in order, in batches of its
 * own size. Once `next` fails, the relay's sinks return its error and the
 * rest is dropped. */
typedef struct rvt_retire_relay rvt_retire_relay;
RVT_API int rvt_retire_relay_new(rvt_retire_relay **out, rvt_retire_sink next, void *next_user);
RVT_API int rvt_retire_relay_sink(void *relay, const rvt_retire *recs, size_t n); /* an rvt_retire_sink */
/* Room for the next *cap (at least RVT_PACKED_MAX_SLOTS) packed slots in
 * the relay's batch, for a producer that writes its records packed (a
 * stream from state 0; the relay's other sink keeps a stream of its own, so
 * a producer uses one sink or the other): slots written there are passed
 * on, whole records, with rvt_retire_relay_packed_sink, which takes no
 * others. Valid until the next call of either. */
RVT_API rvt_retire_packed *rvt_retire_relay_space(void *relay, size_t *cap);
RVT_API int rvt_retire_relay_packed_sink(void *relay, const rvt_retire_packed *slots, size_t n); /* an rvt_packed_sink */
/* Passes on what is queued, waits for the thread and frees the relay: the
 * first error of `next`, or 0. *s (if not NULL): the packed stream's
 * state after the last record passed on, for whatever takes the stream on
 * from there. */
RVT_API int rvt_retire_relay_finish(rvt_retire_relay *r, rvt_packed_state *s);

/* ---- The reference conversion of a spike run ---- */

/* Passes records on the way the reference flow converted spike's log into
 * its traces: an instruction that retires several times in a row at one
 * address (a one-instruction loop) is passed once, and the final row (the
 * store or loop the program was in when the host saw its exit code, or the
 * trap that gave control to the host) is left out. Put it between the hart
 * model and anything that must equal the reference traces. */
typedef struct rvt_ref_filter rvt_ref_filter;
RVT_API int rvt_ref_filter_new(rvt_ref_filter **out, rvt_retire_sink next, void *next_user);
RVT_API int rvt_ref_filter_sink(void *filter, const rvt_retire *recs, size_t n); /* an rvt_retire_sink */
RVT_API void rvt_ref_filter_free(rvt_ref_filter *f); /* drops the held final row */
/* With multiple-retire blocks the final row is the last instruction of the
 * last block: given the code, rvt_ref_filter_finish passes the rest of that
 * block on, then frees the filter (without, it is rvt_ref_filter_free). */
RVT_API void rvt_ref_filter_set_code(rvt_ref_filter *f, rvt_code_fetch fetch, void *user);
RVT_API int rvt_ref_filter_finish(rvt_ref_filter *f);

/* ---- Writers of the reference flow's per-row formats ---- */

enum rvt_row_format {
    RVT_ROWS_SPIKE_CSV, /* VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT */
    RVT_ROWS_PCS,       /* retired PC list: one lower-case hex address per line */
};

/* Turns retirement records into the rows of the corpus spike CSV (an
 * interrupt marks the row of the last retired instruction, and so does an
 * exception raised before its instruction was fetched, as spike logs it;
 * any other trapping instruction gets its own row) or into the PC
 * list derived from those rows (trapping instructions other than ecall and
 * ebreak, and rows marked with an interrupt, are left out; an instruction
 * whose row carries the next fetch's fault is listed: it retired). Rows are
 * of hart 0's records. */
typedef struct rvt_row_writer rvt_row_writer;
RVT_API int rvt_row_writer_new(rvt_row_writer **out, FILE *f, enum rvt_row_format format);
RVT_API int rvt_row_writer_sink(void *writer, const rvt_retire *recs, size_t n); /* an rvt_retire_sink */
/* Writes the last buffered row and frees the writer; returns RVT_E_IO when
 * any write failed. */
RVT_API int rvt_row_writer_finish(rvt_row_writer *w);

/* ---- .rvti: our compact binary retirement stream (docs/formats.md) ---- */

typedef struct rvt_rvti_writer rvt_rvti_writer;
/* `blocks` records that the stream holds multiple-retire blocks. */
RVT_API int rvt_rvti_writer_new(rvt_rvti_writer **out, FILE *f, unsigned xlen, bool blocks);
RVT_API int rvt_rvti_writer_sink(void *writer, const rvt_retire *recs, size_t n); /* an rvt_retire_sink */
RVT_API int rvt_rvti_writer_finish(rvt_rvti_writer *w); /* flushes and frees */

typedef struct rvt_rvti_reader rvt_rvti_reader;
/* Opens a .rvti file (plain or zstd-compressed). */
RVT_API int rvt_rvti_reader_open(rvt_rvti_reader **out, const char *path, rvt_diag *diag);
/* The same on a reader already open, which it takes (closed on failure). */
RVT_API int rvt_rvti_reader_open_z(rvt_rvti_reader **out, rvt_zreader *z, rvt_diag *diag);
RVT_API unsigned rvt_rvti_reader_xlen(const rvt_rvti_reader *r);
/* Reads up to `max` records; returns the count, 0 at the end, or a negative
 * status with `diag` naming the byte offset and what was expected. */
RVT_API long rvt_rvti_read(rvt_rvti_reader *r, rvt_retire *out, size_t max, rvt_diag *diag);
RVT_API void rvt_rvti_reader_close(rvt_rvti_reader *r);

/* ---- Reading retirement streams made elsewhere ---- */

enum rvt_retire_format {
    RVT_FMT_AUTO = 0,   /* detect from the first bytes */
    RVT_FMT_RVTI,       /* our .rvti */
    RVT_FMT_SPIKE_CSV,  /* the reference flow's CSV (VALID,ADDRESS,INSN,...) */
    RVT_FMT_SPIKE_LOG,  /* spike --log-commits (and -l) text */
    RVT_FMT_ENCODER_INPUT, /* the reference flow's E-Trace encoder input CSV (itype_0,cause,...) */
};

/* One reader for every format, plain or zstd-compressed. Records come out in
 * the single-retire form (one per instruction, traps as their own records)
 * except from a block .rvti. `xlen` (32/64) is needed to classify compressed
 * jumps in the text formats; .rvti carries its own. */
typedef struct rvt_retire_reader rvt_retire_reader;
RVT_API int rvt_retire_reader_open(rvt_retire_reader **out, const char *path, enum rvt_retire_format format,
                           unsigned xlen, rvt_diag *diag);
/* The same on a reader already open, which it takes (closed on failure):
 * the file is opened once, so a pipe or FIFO can be read. */
RVT_API int rvt_retire_reader_open_z(rvt_retire_reader **out, rvt_zreader *z, enum rvt_retire_format format,
                             unsigned xlen, rvt_diag *diag);
RVT_API unsigned rvt_retire_reader_xlen(const rvt_retire_reader *r);
RVT_API enum rvt_retire_format rvt_retire_reader_format(const rvt_retire_reader *r);
/* Returns the number of records (0 at the end) or a negative status with the
 * file, line or byte offset and the problem in `diag`. */
RVT_API long rvt_retire_reader_read(rvt_retire_reader *r, rvt_retire *out, size_t max, rvt_diag *diag);
RVT_API void rvt_retire_reader_close(rvt_retire_reader *r);

/* The text after "exception " on a spike log line ("trap_illegal_instruction,
 * epc 0x..." or "interrupt #7, epc 0x..."): the cause (interrupt flag in bit
 * XLEN-1) and epc. False when the line is not one spike writes. */
RVT_API bool rvt_spike_parse_exception(const char *text, unsigned xlen, uint64_t *cause, uint64_t *epc, bool *interrupt);

#ifdef __cplusplus
}
#endif
#endif
