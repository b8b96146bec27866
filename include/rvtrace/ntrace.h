/* N-Trace (Nexus-based trace) messages and their MSEO transport.
 *
 * On the wire each byte carries six message data bits (MDO, bits 7:2) and two
 * message start/end bits (MSEO, bits 1:0): 0 inside a field, 1 on the last byte
 * of a variable-length field, 3 on the last byte of a message. Fields are
 * packed least significant bit first into the MDO slots; fixed-length fields
 * follow each other without gaps, and a variable-length field takes the rest
 * of the byte it starts in plus whole bytes up to the one with MSEO != 0. */
#ifndef RVTRACE_NTRACE_H
#define RVTRACE_NTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"
#include "rvtrace/image.h"
#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

enum rvt_nexus_tcode {
    RVT_NX_OWNERSHIP = 2,
    RVT_NX_DIRECT_BRANCH = 3,
    RVT_NX_INDIRECT_BRANCH = 4,
    RVT_NX_ERROR = 8,
    RVT_NX_PROG_TRACE_SYNC = 9,
    RVT_NX_DIRECT_BRANCH_SYNC = 11,
    RVT_NX_INDIRECT_BRANCH_SYNC = 12,
    RVT_NX_RESOURCE_FULL = 27,
    RVT_NX_INDIRECT_BRANCH_HIST = 28,
    RVT_NX_INDIRECT_BRANCH_HIST_SYNC = 29,
    RVT_NX_REPEAT_BRANCH = 30,
    RVT_NX_PROG_TRACE_CORRELATION = 33,
    /* SiFive's messages beyond N-Trace (RVT_NEXUS_SIFIVE) */
    RVT_NX_DATA_ACQUISITION = 7,
    RVT_NX_AUX_ACCESS_WRITE = 23,
    RVT_NX_ICT = 34,
    RVT_NX_ICT_SYNC = 35,
};

typedef enum rvt_nexus_field_id {
    RVT_NXF_TCODE,
    RVT_NXF_SRC,
    RVT_NXF_SYNC,
    RVT_NXF_BTYPE,
    RVT_NXF_ICNT,
    RVT_NXF_FADDR,
    RVT_NXF_UADDR,
    RVT_NXF_HIST,
    RVT_NXF_RCODE,
    RVT_NXF_RDATA,
    RVT_NXF_HREPEAT,
    RVT_NXF_EVCODE,
    RVT_NXF_CDF,
    RVT_NXF_ETYPE,
    RVT_NXF_ECODE,
    RVT_NXF_PROCESS,
    RVT_NXF_BCNT,
    RVT_NXF_TSTAMP,
    RVT_NXF_IDTAG,   /* DataAcquisition: which ITC register was written */
    RVT_NXF_DATA,    /* DataAcquisition, AuxAccessWrite: the value */
    RVT_NXF_ADDR,    /* AuxAccessWrite: the address written */
    RVT_NXF_CKSRC,   /* in-circuit trace: the event's reason */
    RVT_NXF_CKDF,    /* ... 1 when CKDATA1 follows */
    RVT_NXF_CKDATA0, /* ... the event address (U-ADDR form in 34, F-ADDR in 35) or a code */
    RVT_NXF_CKDATA1, /* ... extra data: code, trigger ID, cause, return destination */
    RVT_NXF_COUNT
} rvt_nexus_field_id;
_Static_assert(RVT_NXF_COUNT <= 32, "rvt_nexus_msg.present has a bit per field id");

/* Encoder-side parameters a reader must know: the width of the SRC field
 * (0 when a single hart is traced). Timestamps need no parameter: a TSTAMP is
 * recognised as a variable field after the message's last mandatory one. */
enum rvt_nexus_dialect {
    RVT_NEXUS_NTRACE = 0, /* RISC-V N-Trace 1.0 */
    /* SiFive Nexus as its trace encoders emit it (docs/formats.md): also
     * DataAcquisition (7), AuxAccessWrite (23) and in-circuit trace (34,
     * 35) messages, and 0x00 as fill between messages */
    RVT_NEXUS_SIFIVE = 1,
};

typedef struct rvt_nexus_config {
    unsigned src_bits;
    unsigned dialect; /* enum rvt_nexus_dialect */
} rvt_nexus_config;

typedef struct rvt_nexus_field {
    uint8_t id;        /* rvt_nexus_field_id */
    uint8_t width;     /* bits the field occupies on the wire */
    uint16_t end_byte; /* index, within the message, of the byte holding its last bit */
    uint64_t value;
} rvt_nexus_field;

#define RVT_NEXUS_MAX_FIELDS 12

typedef struct rvt_nexus_msg {
    uint64_t offset; /* of the first byte in the stream */
    size_t length;   /* bytes, including the one with MSEO = 3 */
    unsigned tcode;
    unsigned nfields;
    /* Bit i: a field with id i is in `fields`, the first at index at[i].
     * Decoders ask a message for a field several times each: without this
     * each question searched the fields (a twentieth of N-Trace decoding). */
    uint32_t present;
    uint8_t at[RVT_NXF_COUNT];
    rvt_nexus_field fields[RVT_NEXUS_MAX_FIELDS];
} rvt_nexus_msg;

/* Appends a field to `m` (whose header, with `present`, starts zeroed):
 * false when it holds RVT_NEXUS_MAX_FIELDS already. */
static inline bool rvt_nexus_add_field(rvt_nexus_msg *m, rvt_nexus_field_id id, unsigned width, unsigned end_byte,
                                       uint64_t value) {
    if (m->nfields == RVT_NEXUS_MAX_FIELDS)
        return false;
    if (!((m->present >> id) & 1)) {
        m->present |= UINT32_C(1) << id;
        m->at[id] = (uint8_t)m->nfields;
    }
    m->fields[m->nfields++] = (rvt_nexus_field){(uint8_t)id, (uint8_t)width, (uint16_t)end_byte, value};
    return true;
}

/* Field `id` of `m`, or NULL when the message has none. */
static inline const rvt_nexus_field *rvt_nexus_find(const rvt_nexus_msg *m, rvt_nexus_field_id id) {
    return (m->present >> id) & 1 ? &m->fields[m->at[id]] : NULL;
}
/* Value of field `id` in `m`, or `fallback` when the message has none. */
static inline uint64_t rvt_nexus_get(const rvt_nexus_msg *m, rvt_nexus_field_id id, uint64_t fallback) {
    const rvt_nexus_field *f = rvt_nexus_find(m, id);
    return f ? f->value : fallback;
}
static inline int rvt_nexus_has(const rvt_nexus_msg *m, rvt_nexus_field_id id) { return rvt_nexus_find(m, id) != NULL; }

/* Name as printed in dumps ("ICNT", "FADDR", ...). */
RVT_API const char *rvt_nexus_field_name(rvt_nexus_field_id id);
/* Message name ("IndirectBranchHist"), or NULL for a TCODE N-Trace does not
 * define; rvt_nexus_dialect_tcode_name also knows the dialect's own. */
RVT_API const char *rvt_nexus_tcode_name(unsigned tcode);
RVT_API const char *rvt_nexus_dialect_tcode_name(unsigned dialect, unsigned tcode);

/* Cursor over an MSEO byte stream held in memory. */
typedef struct rvt_nexus_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    rvt_nexus_config cfg;
    uint64_t base;    /* stream offset of data[0], added to every reported offset */
    uint64_t skipped; /* bytes dropped while resynchronising */
    uint64_t idle;    /* idle bytes (0xFF between messages) */
} rvt_nexus_reader;

RVT_API void rvt_nexus_reader_init(rvt_nexus_reader *r, const rvt_nexus_config *cfg, const void *data, size_t size);

/* Next message. Returns 1 with *m filled, 0 at the end of the stream, or
 * RVT_E_FORMAT with `d` naming the byte offset and the problem; the reader then
 * stands after the damaged message's end byte (the next byte with MSEO = 3), so
 * calling again resynchronises. A stream that starts in the middle of a message
 * is reported the same way. */
RVT_API int rvt_nexus_next(rvt_nexus_reader *r, rvt_nexus_msg *m, rvt_diag *d);

/* ---- What the encoder and the decoder know about an instruction ---- */

/* Control-flow facts of one retired instruction, as N-Trace needs them.
 * Two rule sets say which jumps push and pop the return-address stack of
 * the implicit-return optimisation; encoder and decoder must use the same:
 * - the specification's 4-bit itype table (the default): x1 and x5 are link
 *   registers; jal/c.jal with a link rd is a call; jalr with a link rd is a
 *   call, with a link rs1 (and not the same link rd) a return whatever its
 *   offset, with both (different) a co-routine swap, which pops then pushes;
 *   every other jump neither pushes nor pops;
 * - NexRv's (the reference encoder, whose golden streams need them; taken
 *   from objdump's alias mnemonics, as its pcseq files classify): jal and
 *   jalr with any rd other than x0, and ecall, push; only `ret` (jalr
 *   x0,0(ra)) pops; mret/sret, which NexRv's pcseq marks R, are indirect
 *   jumps in both. */
enum rvt_nexus_iflags {
    RVT_NXI_SIZE4 = 1u << 0,     /* 32-bit instruction (else 16-bit) */
    RVT_NXI_BRANCH = 1u << 1,    /* direct conditional branch */
    RVT_NXI_TAKEN = 1u << 2,     /* the branch was taken */
    RVT_NXI_INDIRECT = 1u << 3,  /* uninferable: the next address must be sent */
    RVT_NXI_CALL = 1u << 4,      /* pushes its return address (implicit return) */
    RVT_NXI_RETURN = 1u << 5,    /* pops it */
    RVT_NXI_JUMP = 1u << 6,      /* unconditional transfer (direct or indirect) */
    RVT_NXI_EXCEPTION = 1u << 7, /* trap record: nothing retired, B-TYPE 2 */
    RVT_NXI_INTERRUPT = 1u << 8, /* trap record: nothing retired, B-TYPE 3 */
};

/* Flags of a decoded instruction (without TAKEN, which only execution
 * knows): by NexRv's rules, by the specification's, by either. */
RVT_API unsigned rvt_nexus_classify(const rvt_insn *in);
RVT_API unsigned rvt_nexus_classify_spec(const rvt_insn *in);
RVT_API unsigned rvt_nexus_classify_by(const rvt_insn *in, bool nexrv);

/* One executed instruction of a pcseq file (NexRv's encoder input). */
typedef struct rvt_nexus_step {
    uint64_t addr;
    unsigned flags; /* rvt_nexus_iflags */
} rvt_nexus_step;

/* Reader of pcseq text (`0xADDR,<T>[N][I]<S>` per line, T one of L B J C R),
 * plain or zstd-compressed. */
typedef struct rvt_pcseq_reader rvt_pcseq_reader;
RVT_API int rvt_pcseq_reader_open(rvt_pcseq_reader **out, const char *path, rvt_diag *diag);
/* Returns the number of steps read (0 at the end) or RVT_E_FORMAT with the
 * file, line and the problem in diag. */
RVT_API long rvt_pcseq_read(rvt_pcseq_reader *r, rvt_nexus_step *out, size_t max, rvt_diag *diag);
RVT_API void rvt_pcseq_reader_close(rvt_pcseq_reader *r);
/* True when the first line of `text` looks like pcseq. */
RVT_API bool rvt_pcseq_sniff(const char *text, size_t len);
/* Whether the file at `path` (plain or zstd) starts like pcseq; 0 or an
 * error status with the file and the problem in diag. */
RVT_API int rvt_pcseq_file(const char *path, bool *is_pcseq, rvt_diag *diag);
/* Whether an open file starts like pcseq, its first bytes read and given
 * back (a pipe or FIFO is not opened twice); 0 or a negative status. */
RVT_API int rvt_pcseq_zreader_sniff(rvt_zreader *z, bool *is_pcseq, rvt_diag *diag);
/* rvt_pcseq_reader_open on a reader already open, which it takes (closed
 * on failure). */
RVT_API int rvt_pcseq_reader_open_z(rvt_pcseq_reader **out, rvt_zreader *z, rvt_diag *diag);

/* ---- Encoder ---- */

typedef struct rvt_ntrace_options {
    bool btm;             /* branch-trace messaging: DirectBranch per taken branch
                             (else history trace messaging, HIST bits) */
    unsigned call_stack;  /* implicit return: depth of the return-address stack
                             (0 = off, at most 32) */
    bool call_counter;    /* implicit return by a nested-call counter of that depth
                             instead of a stack (not robust; the spec's mode 1) */
    unsigned repeat;      /* bit 0: RepeatBranch for identical indirect-branch
                             messages; bit 1: repeated history (ResourceFull RCODE 2) */
    unsigned src_bits;    /* width of the SRC field (0 = none) */
    unsigned src_id;      /* value sent in it */
    unsigned sync_max;    /* periodic synchronisation (trTeInstSyncMode 1): after
                             2^(sync_max + 4) messages the next branch message is
                             sent as its *Sync form (SYNC 2, full address) and the
                             state restarts; 0 = off */
    bool timestamps;      /* trTsEnable: TSTAMP on every message (absolute in
                             synchronising messages, else relative), from the
                             records' time */
    bool ownership;       /* trTeContext: Ownership messages with the privilege
                             (and context) after each sync and on every change */
    bool extend_addr_msb; /* trTeInstExtendAddrMSB: F-ADDR/U-ADDR also drop leading
                             ones; a set top bit on the wire extends with ones */
    bool seq_jump;        /* trTeInstEnSequentialJump: an indirect jump through the
                             register that lui/c.lui/auipc set just before it, with
                             no message between them, sends nothing (needs the
                             instruction bits: not from pcseq) */
    unsigned icnt_bits;   /* width of the I-CNT counter, its MSB the overflow flag
                             (2..32; 0 = unbounded, as NexRv): when the flag sets,
                             IndirectBranchHistSync with SYNC 4 if history is
                             pending, else ResourceFull RCODE 0 */
    bool all_jumps;       /* trTeInstEnAllJumps: every direct jump is a taken branch
                             (a DirectBranch message in BTM, a history bit 1 in HTM) */
    unsigned return_bits; /* implicit return mode 2: the stack keeps the low
                             return_bits bits of each return address (2..63) and a
                             return whose target matches them sends nothing; 0: full
                             addresses (mode 3). The decoder keeps full addresses
                             and needs no option; a return that matched only in the
                             low bits misleads it, the risk mode 2 takes. */
    bool nexrv;           /* NexRv's rules where they depart from the specification
                             (its golden streams need them): its call-stack
                             classification (rvt_nexus_classify), and in HTM a
                             ProgTraceCorrelation with CDF 0 and no HIST when the
                             history is empty (the specification: CDF 1, HIST 0x1).
                             Steps (rvt_ntrace_encoder_step) carry their own flags. */
} rvt_ntrace_options;

#define RVT_NTRACE_MAX_CALL_STACK 32

typedef int (*rvt_nexus_byte_sink)(void *user, const uint8_t *bytes, size_t len);

typedef struct rvt_ntrace_stats {
    uint64_t bytes, messages, insns;
} rvt_ntrace_stats;

typedef struct rvt_ntrace_encoder rvt_ntrace_encoder;
/* `xlen` classifies the instruction bits of retirement records. */
RVT_API int rvt_ntrace_encoder_new(rvt_ntrace_encoder **out, const rvt_ntrace_options *o, unsigned xlen,
                           rvt_nexus_byte_sink sink, void *user);
/* One retired instruction, or a trap record (EXCEPTION/INTERRUPT flag, at the
 * address of the trapping instruction or of the next one to run). */
RVT_API int rvt_ntrace_encoder_step(rvt_ntrace_encoder *e, const rvt_nexus_step *s);
/* Retirement records (single-retire or blocks; traps as their own records),
 * with the 4-bit itype classification and the instruction bits (as the hart
 * model, .rvti, the spike CSV and spike logs give them). */
RVT_API int rvt_ntrace_encoder_push(rvt_ntrace_encoder *e, const rvt_retire *recs, size_t n);
/* The program's code (rvt_code_fetch from flow.h): with a bounded I-CNT
 * (icnt_bits), a block whose count overflows before its last instruction
 * goes in as its instructions' own records, as single-retire records would
 * have given them. Without the code such a block fails the push with
 * RVT_E_UNSUPP (the overflow message would have no place). */
RVT_API void rvt_ntrace_encoder_set_code(rvt_ntrace_encoder *e, rvt_code_fetch fetch, void *user);
/* Instruction trace off (a filter or trigger stops it while the hart
 * runs) or on again: off sends ProgTraceCorrelation EVCODE 4 with the
 * count so far (before any record: with none, "trace starts disabled"),
 * records pushed while off are not traced (a halt among them sends
 * ProgTraceCorrelation EVCODE 0 with I-CNT 0, as does the end), and the
 * first record after on starts with ProgTraceSync SYNC 5. */
RVT_API int rvt_ntrace_encoder_enable(rvt_ntrace_encoder *e, bool on);
/* A marker before the next record: ProgTraceSync with SYNC 0 (external
 * trace trigger) or 6 (watchpoint trace event), the count so far locating
 * it and the next record's address, the return-address stack kept. Any
 * other code is RVT_E_ARG; ignored while trace is off or not started. */
RVT_API int rvt_ntrace_encoder_mark(rvt_ntrace_encoder *e, unsigned sync);
/* Sends what is pending (ProgTraceCorrelation when instructions are
 * unreported), fills *stats when not NULL and frees the encoder. */
RVT_API int rvt_ntrace_encoder_finish(rvt_ntrace_encoder *e, rvt_ntrace_stats *stats);

/* ---- Decoder ---- */

typedef struct rvt_ntrace_decoder_options {
    unsigned call_stack; /* depth of the return-address stack (the encoder's, or 32) */
    bool call_counter;   /* the encoder used a call counter instead */
    unsigned src_bits;   /* as the encoder's */
    int src_id;          /* decode only this source; -1: every message */
    bool extend_addr_msb; /* as the encoder's */
    bool seq_jump;        /* as the encoder's */
    /* SiFive Nexus (RVT_NEXUS_SIFIVE): B-TYPE 1 is an exception, ResourceFull
     * RCODE 8/9 are runs of not-taken/taken branches, and an in-circuit
     * trace event's address goes to the PC sink (one line per event, as
     * SiFive's decoder lists them) */
    bool sifive;
    /* Only the flow of these processes (Ownership scontext values) is walked
     * and reported; for others, and before the first Ownership message, only
     * the addresses messages carry are followed. npids 0: every process. */
    const uint64_t *pids;
    unsigned npids;
    /* SiFive: addresses are sign-extended from this many bits (a settings
     * file's addrbits; 0: none) */
    unsigned addr_bits;
    /* The encoder sent every return's target (no implicit return: SiFive's
     * "NoOpt" instruction trace modes) */
    bool no_implicit_return;
    /* Another decoder of the same program whose cache of straight runs this
     * one shares (one decoder per trace source); it must outlive this one */
    const struct rvt_ntrace_decoder *share_runs_of;
    bool all_jumps; /* as the encoder's: direct jumps were reported as taken branches */
    /* The encoder classified calls and returns by NexRv's rules (its nexrv
     * option; SiFive's captures decode as SiFive's decoder did with them);
     * false: by the specification's table. A decoder sharing runs
     * (share_runs_of) must use the same rules as the one it shares with. */
    bool nexrv;
} rvt_ntrace_decoder_options;

/* ---- SiFive trace-tool settings files ---- */

/* `key = value` lines; '#' starts a comment line. A settings file is a few
 * dozen lines: one over RVT_SIFIVE_SETTINGS_MAX bytes, a line over
 * RVT_SIFIVE_SETTINGS_LINE_MAX or a NUL byte is not one. */
#define RVT_SIFIVE_SETTINGS_MAX (1u << 20)
#define RVT_SIFIVE_SETTINGS_LINE_MAX 4095u
#define RVT_SIFIVE_MAX_PIDS 16u
typedef struct rvt_sifive_settings {
    bool has_trace;          /* an rtd line came */
    unsigned xlen;           /* archsize (0: not given) */
    unsigned src_bits;       /* srcbits */
    unsigned addr_bits;      /* addrbits */
    uint64_t pids[RVT_SIFIVE_MAX_PIDS]; /* pids: the processes decoded */
    unsigned npids;
    bool tolerate_errors;    /* tolerateerrors = true */
    bool no_implicit_return; /* teinstruction = ...NoOpt */
} rvt_sifive_settings;
/* Called for each line naming a file (rtd, elf, image, map, vdso, kmempath)
 * in order, with the value as written; non-zero (diag set) stops. */
typedef int (*rvt_sifive_file_fn)(void *user, const char *key, const char *value, unsigned line, rvt_diag *diag);
/* Reads the settings text `text` (from the file `name`, for messages): the
 * decoding parameters into *s, the files to `file` (may be NULL). Errors
 * name the file and the line. No 'rtd' line is an error. */
RVT_API int rvt_sifive_settings_parse(const char *text, size_t len, const char *name, rvt_sifive_settings *s,
                              rvt_sifive_file_fn file, void *user, rvt_diag *diag);

/* Value of an F-ADDR or U-ADDR field as sent (address bits 63:1), with the
 * MSB extension applied when it is on: a field whose top wire bit is 1
 * stands for ones in every higher bit. */
RVT_API uint64_t rvt_nexus_addr_field(const rvt_nexus_field *f, bool extend_msb);

typedef struct rvt_ntrace_decoder rvt_ntrace_decoder;
RVT_API int rvt_ntrace_decoder_new(rvt_ntrace_decoder **out, const rvt_ntrace_decoder_options *o, unsigned xlen,
                           rvt_code_fetch fetch, rvt_pc_sink sink, void *user);
/* The most one message may make the decoder walk, in 16-bit units (I-CNT's
 * unit; an instruction is one or two): its count, its history bits and, for
 * a RepeatBranch or a repeated history, all its repeats together. The
 * specification's decoder limit for I-CNT is 22 bits, its top bit the
 * overflow marker, so a conforming encoder sends at most 2^21 units in one
 * count (31 history bits add at most 31 branches); 2^26 leaves 32 times
 * that for encoders with wider or unbounded counters (NexRv's, this
 * toolkit's by default) on long branch-free stretches, while a damaged
 * 32-bit count (up to 2^32 units, tens of GB of listing) is refused. A
 * count above it is refused before anything is walked; a walk that grows
 * past it (repeats, history) stops there. Either is RVT_E_FORMAT at the
 * message's offset, and the decoder waits for a full address. */
#define RVT_NTRACE_MAX_MESSAGE_UNITS (UINT64_C(1) << 26)

/* Processes one message. An inconsistency between the message and the code
 * (an I-CNT that ends inside an instruction, history bits with no branch to
 * take them, an uninferable jump before the count is used up, no code at an
 * address) returns RVT_E_FORMAT with the message offset and the address in
 * diag; the decoder then waits for the next message with a full address. */
RVT_API int rvt_ntrace_decode(rvt_ntrace_decoder *d, const rvt_nexus_msg *m, rvt_diag *diag);
/* Report the flow as runs of instructions to `block` instead of one address
 * at a time to the PC sink (same `user`). The decoder caches the straight
 * runs of the code it reads, so the code must not change while it decodes. */
RVT_API void rvt_ntrace_decoder_set_block_sink(rvt_ntrace_decoder *d, rvt_block_sink block);
/* With a block sink: the walks the decoder kept and hands out again go to
 * `walk` instead (same `user`); see rvt_walk_sink. */
RVT_API void rvt_ntrace_decoder_set_walk_sink(rvt_ntrace_decoder *d, rvt_walk_sink walk);
/* Report straight runs to `run` (the rest still one address at a time to
 * the PC sink; same `user`). */
RVT_API void rvt_ntrace_decoder_set_run_sink(rvt_ntrace_decoder *d, rvt_run_sink run);
/* Also report traps (B-TYPE 2 and 3), with the same `user`. */
RVT_API void rvt_ntrace_decoder_set_trap_sink(rvt_ntrace_decoder *d, rvt_trap_sink trap);
/* Forget the path (after damage in the byte stream). */
RVT_API void rvt_ntrace_decoder_resync(rvt_ntrace_decoder *d);
/* Give `to` the path state of `from` (where the flow is, the return stack,
 * the message a RepeatBranch repeats, the process), keeping its own options,
 * sinks and counters: decoding goes on in `to` as it would have in `from`. */
RVT_API void rvt_ntrace_decoder_copy_state(rvt_ntrace_decoder *to, const rvt_ntrace_decoder *from);
/* Whether the same messages would decode the same way in both: a decoder
 * started afresh at a synchronising message and one that came to it from
 * the start of the trace agree when the message reset everything (parallel
 * decoding checks this where it split the trace). */
RVT_API bool rvt_ntrace_decoder_same_state(const rvt_ntrace_decoder *a, const rvt_ntrace_decoder *b);
/* The address the flow continues at after the messages so far (NxtAddr in
 * SiFive's listings): RVT_NEXT_KNOWN with *addr, RVT_NEXT_NONE while the
 * decoder has no address, RVT_NEXT_PENDING when the flow ended on an
 * uninferable transfer whose target a later message brings. */
enum { RVT_NEXT_NONE = 0, RVT_NEXT_KNOWN = 1, RVT_NEXT_PENDING = 2 };
RVT_API int rvt_ntrace_decoder_next_addr(const rvt_ntrace_decoder *d, uint64_t *addr);
/* The address of the in-circuit trace event of the message just decoded
 * (SiFive); false when it was none or had no address to decompress. */
RVT_API bool rvt_ntrace_decoder_event_addr(const rvt_ntrace_decoder *d, uint64_t *addr);
/* The process (scontext of the last Ownership message) and privilege the
 * flow is in (PRV in bits 1:0, V in bit 2: 4 is VU, 5 VS); false before the
 * first Ownership message with a context. */
RVT_API bool rvt_ntrace_decoder_context(const rvt_ntrace_decoder *d, uint64_t *context, unsigned *priv);
/* Whether the flow of that process is walked (options.pids). */
RVT_API bool rvt_ntrace_decoder_traced(const rvt_ntrace_decoder *d);
/* Messages that needed a path before the first full address (a capture
 * that starts in the middle of the flow, or of a message): lost. */
RVT_API uint64_t rvt_ntrace_decoder_unplaced(const rvt_ntrace_decoder *d);
/* Error messages (TCODE 8) seen. */
RVT_API uint64_t rvt_ntrace_decoder_error_messages(const rvt_ntrace_decoder *d);
RVT_API void rvt_ntrace_decoder_free(rvt_ntrace_decoder *d);

/* Decoding on several threads (rvt_decode_pool): the items are
 * rvt_nexus_msg; segments start at a sync message with a full address that
 * resets the return stack. */
extern RVT_API const rvt_pool_codec rvt_ntrace_pool_codec;

/* ---- Time stamps ---- */

/* N-Trace 1.0 time: a message with a SYNC field carries the absolute time
 * (zero-extended), every other one the time since the last message with a
 * TSTAMP, added to it. One clock per trace source, zeroed to start. */
typedef struct rvt_ntrace_clock {
    uint64_t time;
    bool valid; /* an absolute time came */
} rvt_ntrace_clock;
/* The time of message `m`: false when it carries no TSTAMP, or a relative
 * one before any absolute time. */
RVT_API bool rvt_ntrace_time(rvt_ntrace_clock *c, const rvt_nexus_msg *m, uint64_t *time);

/* ---- SiFive's trace tools: time stamps and ITC print ---- */

/* Time stamps as SiFive's encoders send them: sync messages carry the full
 * time (40 bits; a wrap beyond them is carried), every other message the
 * time XORed into the last one (not added as N-Trace 1.0 says). One clock
 * per trace source. */
typedef struct rvt_sifive_clock {
    uint64_t time;
    bool valid;
} rvt_sifive_clock;
/* The time of message `m` (false when it carries none). */
RVT_API bool rvt_sifive_time(rvt_sifive_clock *c, const rvt_nexus_msg *m, uint64_t *time);

/* Text a program writes through the ITC stimulus registers (DataAcquisition
 * messages): channel 0 carries characters (1, 2 or 4 per write, IDTAG's low
 * bits saying which), a line ending at a newline or NUL; channel N > 0
 * selects the "no-load string" "N:format" of the image's .comment sections,
 * its arguments packed into the 32 data bits. Each line goes to `sink`. */
typedef int (*rvt_text_sink)(void *user, const char *line);
typedef struct rvt_itc_printer rvt_itc_printer;
RVT_API int rvt_itc_printer_new(rvt_itc_printer **out, rvt_image *img, rvt_text_sink sink, void *user);
RVT_API int rvt_itc_printer_message(rvt_itc_printer *p, const rvt_nexus_msg *m);
RVT_API int rvt_itc_printer_flush(rvt_itc_printer *p); /* a last line without its newline */
RVT_API void rvt_itc_printer_free(rvt_itc_printer *p);

#endif
