/* E-Trace (Efficient Trace for RISC-V): discovery parameters, run-time
 * options, te_inst packets, their bit-level codec with sign compression, and
 * the raw transport of the reference flow ([header][payload] per packet). */
#ifndef RVTRACE_ETRACE_H
#define RVTRACE_ETRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"
#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Static hardware configuration: the discovery attributes (*_p names of the
 * reference flow's .scf files). */
typedef struct rvt_etrace_params {
    unsigned arch;
    unsigned bpred_size, cache_size, call_counter_size, return_stack_size;
    unsigned context_width, time_width, ecause_width, f0s_width;
    unsigned iaddress_lsb, iaddress_width, privilege_width;
    unsigned ctype_width, ilastsize_width, itype_width, iretire_width, retires, taken_branches, impdef_width;
    bool nocontext, notime, sijump;
} rvt_etrace_params;

/* Run-time options (the reference flow's .ucf [codec] section). */
typedef struct rvt_etrace_options {
    bool full_address, implicit_except, si_jump, implicit_return, branch_prediction, jump_target_cache;
    bool cycle_accurate;
    unsigned resync_max;   /* a resynchronisation every 2^(resync_max+4) packets */
    bool v1_layout;        /* E-Trace 1.0 packet layout instead of the ratified 2.0 one */
    /* PULP rv_tracer's packets (docs/formats.md): the support packet has
     * 7 ioptions bits (delta, full, implicit exception, sijump, implicit
     * return, prediction, jump target cache from the MSB) and no data-trace
     * fields; an address field has 8k+1 bits (k = 1..8), the fields after it
     * follow directly and zero bits pad the payload, so k follows from the
     * payload's length; the address is sign-extended */
    bool rv_tracer_layout;
    /* Filtering (the spec's informative chapter): an instruction is traced
     * when it lies in one of the address ranges (none: everywhere), runs at
     * a privilege in priv_mask (0: any), and the start/stop trigger latch is
     * on (set by the instruction at start_addr, cleared after the one at
     * stop_addr). Leaving the qualified instructions reports the last one
     * and sends a support packet (qual_status ended_rep); coming back starts
     * with a sync. Instructions at a notify address are reported with the
     * notify bit (trigger[2]). */
    struct rvt_etrace_filter {
        unsigned nranges;
        uint64_t lo[4], hi[4]; /* [lo, hi) */
        unsigned priv_mask;
        bool use_start, use_stop;
        uint64_t start_addr, stop_addr;
        unsigned nnotify;
        uint64_t notify[4];
        /* Trap handlers only: when either mask is non-zero, tracing starts
         * with the first instruction of a handler entered for a selected
         * exception (bit = cause) or interrupt (bit = cause without the
         * interrupt flag), and ends with the next exception return. */
        uint64_t exception_mask, interrupt_mask;
        /* The trigger[2:0] input (rvt_retire.trigger) is wired: tracing
         * starts off, trace-on (bit 0) sets the latch from its block on,
         * trace-off (bit 1) clears it after its block, notify (bit 2)
         * reports the block's last instruction with the notify bit. */
        bool triggers;
    } filter;
} rvt_etrace_options;

RVT_API void rvt_etrace_params_default(rvt_etrace_params *p);
RVT_API void rvt_etrace_options_default(rvt_etrace_options *o);

/* Read a .scf or .ucf file: `name=value` lines, '#' and ';' comments,
 * [section] headings. Unknown names are errors (with the line number) unless
 * they belong to sections the encoder does not use. */
RVT_API int rvt_etrace_load_scf(const char *path, rvt_etrace_params *p, rvt_diag *diag);
RVT_API int rvt_etrace_load_ucf(const char *path, rvt_etrace_options *o, rvt_diag *diag);
/* Defaults, then the .scf and .ucf when given (either may be NULL). */
/* PULP rv_tracer's parameters (its te_pkg): XLEN 64, byte addresses,
 * 2-bit privilege, 64-bit ecause, no time, context, implicit return or
 * irdepth; rv_tracer_layout. */
RVT_API void rvt_etrace_rv_tracer_config(rvt_etrace_params *p, rvt_etrace_options *o);

/* The .scf and .ucf files are a few dozen lines; one over this size is
 * not one (and /dev/zero would otherwise be read until memory ran out). */
#define RVT_CONFIG_FILE_MAX ((size_t)1 << 20)
RVT_API int rvt_etrace_load_config(const char *scf, const char *ucf, rvt_etrace_params *p, rvt_etrace_options *o,
                           rvt_diag *diag);

/* Discovery: the attributes a decoder reads from the encoder, packed as in
 * the 1.0 text's example register map: discovery_info_0 and _1, 64 bits
 * each (the map gives the second the offset 'h4, which would overlap the
 * first; 'h8 is meant, ?A-7), most attributes as parameter - 1. The filter
 * fields describe this encoder's filters. Packing fails (with the
 * attribute's name) when a parameter does not fit its field; unpacking
 * fails on another map version or bits outside the fields, and keeps
 * notime and time_width, which the 1.0 map lacks. */
RVT_API int rvt_etrace_discovery_pack(const rvt_etrace_params *p, uint64_t info[2], rvt_diag *diag);
RVT_API int rvt_etrace_discovery_unpack(const uint64_t info[2], rvt_etrace_params *p, rvt_diag *diag);
/* The parameters of an encoder that makes none discoverable: the default
 * attributes of the 1.0 tables, or of the 2.0 ones (v2). (The reference
 * flow's own defaults, rvt_etrace_params_default, are other values.) */
RVT_API void rvt_etrace_params_spec_default(rvt_etrace_params *p, bool v2);

/* Field widths that follow from the parameters. */
static inline unsigned rvt_etrace_addr_width(const rvt_etrace_params *p) {
    return p->iaddress_width - p->iaddress_lsb;
}
static inline unsigned rvt_etrace_irdepth_width(const rvt_etrace_params *p) {
    return p->return_stack_size + (p->return_stack_size > 0) + p->call_counter_size;
}
/* The most calls implicit return keeps track of: the return stack's
 * entries, or the largest count the call counter holds (irdepth carries
 * either); 0 with neither. Encoder and decoder must agree on it, or a
 * return deeper than one of them holds is predicted on one side only. */
static inline unsigned rvt_etrace_return_depth(const rvt_etrace_params *p) {
    unsigned stack = p->return_stack_size < 16 ? p->return_stack_size : 16;
    unsigned counter = p->call_counter_size < 16 ? p->call_counter_size : 16;
    return stack ? 1u << stack : counter ? (1u << counter) - 1 : 0;
}
/* The size of a ring that holds `depth` calls: a power of two, so that an
 * index wraps with a mask. */
static inline unsigned rvt_etrace_return_ring(unsigned depth) {
    unsigned size = 1;
    while (size < depth)
        size <<= 1;
    return size;
}

/* Format 0 with no subformat field (f0s_width_p 0): only one of its two
 * extensions can be in use, and the options say which. This is the jump
 * target cache when it is on and the predictor is not. */
static inline bool rvt_etrace_f0_implied_jtc(const rvt_etrace_params *p, const rvt_etrace_options *o) {
    return o && p->f0s_width == 0 && p->cache_size && o->jump_target_cache &&
           !(o->branch_prediction && p->bpred_size);
}

/* ioptions bits as the reference flow packs them. */
enum {
    RVT_IOPT_IMPLICIT_RETURN = 1,
    RVT_IOPT_IMPLICIT_EXCEPT = 2,
    RVT_IOPT_FULL_ADDRESS = 4,
    RVT_IOPT_JUMP_TARGET_CACHE = 8,
    RVT_IOPT_BRANCH_PREDICTION = 16,
};
RVT_API unsigned rvt_etrace_ioptions(const rvt_etrace_options *o);

/* One te_inst packet. Which fields exist follows from format/subformat (and
 * branches/interrupt); the others are ignored. */
typedef struct rvt_te_inst {
    uint8_t format, subformat;
    uint64_t address;         /* as transmitted: shifted by iaddress_lsb, delta or full */
    uint64_t tval, context, time;
    uint32_t branch_map;
    uint8_t branches;         /* format 1; 0 = 31 branches and no address */
    uint8_t branch, privilege, ecause, interrupt, thaddr;
    uint8_t notify, updiscon, irreport; /* transmitted values */
    uint32_t irdepth;
    uint8_t ienable, encoder_mode, qual_status, ioptions, denable, dloss, doptions;
    /* format 0 */
    uint8_t f0_subformat;
    uint32_t branch_count;
    uint8_t branch_fmt;
    uint32_t index;
} rvt_te_inst;

/* Payload bytes of a packet: fields LSB first, then the run of top bits equal
 * to the MSB cut back to one, padded with copies of the MSB. Returns the
 * byte count (<= cap) or a negative status; out[count..cap) may be written. */
RVT_API int rvt_te_inst_pack(const rvt_etrace_params *p, const rvt_etrace_options *o, const rvt_te_inst *pkt,
                     uint8_t *out, size_t cap);

/* Decodes a payload (bits beyond the payload repeat its last bit). */
RVT_API int rvt_te_inst_unpack(const rvt_etrace_params *p, const rvt_etrace_options *o, const uint8_t *payload,
                       size_t len, rvt_te_inst *pkt, rvt_diag *diag);

/* The reference flow's te_inst CSV: header line and one row per packet
 * ('_' for absent fields). */
RVT_API const char *rvt_te_inst_csv_header(void);
RVT_API void rvt_te_inst_csv_row(const rvt_etrace_params *p, const rvt_etrace_options *o, const rvt_te_inst *pkt,
                         char *buf, size_t cap);

/* Transport. The reference flow writes each packet as a header byte
 * (bit 7 = 0, bits 6:5 = msg_type 2 for te_inst, bits 4:0 = payload length)
 * and the payload. That is the spec's example encapsulation with no source
 * index and no time stamp; the encapsulation can also carry those (header
 * bit 7 flags a 2-byte time stamp after the index), and runs of zero bytes,
 * which no packet can contain 32 of, let a reader find packet starts again
 * after damage. */
#define RVT_TE_MSG_TYPE_INST 2u
#define RVT_TE_ALIGN_ZEROS 32u

typedef struct rvt_te_transport {
    unsigned index_bytes; /* source index after the header: 0 (reference flow), 1 or 2 */
    unsigned index;       /* the index value written */
    bool timestamps;      /* a 2-byte time stamp (low 16 bits of the time) on every packet */
    unsigned align_every; /* 32 zero bytes before every Nth packet; 0 = never */
    /* Memory in blocks of this many bytes (0: none): a packet never spans
     * a block boundary, zero bytes fill the rest of a block, so every block
     * starts with a packet and a reader realigns at the next block after
     * damage. At least the longest frame (36 bytes). */
    unsigned block_size;
    /* PULP rv_tracer's records instead: 40 bytes each, one big-endian
     * 320-bit word: header byte (bits 4:0 payload length, 6:5 flow, bit 7 a
     * time stamp is present), a 64-bit time stamp, the payload (read with
     * rv_tracer_layout), zero bits above it */
    bool rv_tracer_records;
} rvt_te_transport;

#define RVT_RV_TRACER_RECORD 40u

/* The reference flow's raw packet: written to f, or framed in `out` (the
 * frame's length returned, 0 when len is not 1..31). */
RVT_API int rvt_te_raw_write(FILE *f, const uint8_t *payload, size_t len);
static inline size_t rvt_te_raw_frame(const uint8_t *payload, size_t len, uint8_t out[32]) {
    if (len == 0 || len > 31)
        return 0;
    out[0] = (uint8_t)(RVT_TE_MSG_TYPE_INST << 5 | len);
    rvt_copy_small(out + 1, payload, len);
    return len + 1;
}

/* Writer of the example encapsulation; counts packets for the alignment runs. */
typedef struct rvt_te_encap_writer {
    FILE *f;
    rvt_te_transport t;
    uint64_t packets;
    uint64_t bytes; /* written so far (where the blocks are) */
} rvt_te_encap_writer;
RVT_API int rvt_te_encap_write(rvt_te_encap_writer *w, const uint8_t *payload, size_t len, uint64_t time);

/* Sequential reader of a stream held in memory. Zero bytes between packets
 * are alignment padding. Returns 1 with the next packet, 0 at the end, or a
 * negative status with the byte offset in diag. */
typedef struct rvt_te_raw_cursor {
    const uint8_t *data;
    size_t size, pos;
    uint64_t index;                 /* packets read so far */
    const rvt_te_transport *t;      /* NULL: the reference flow's raw stream */
    unsigned src, stamp;            /* index and time stamp of the last packet */
    /* (rvt_te_raw_resync's) 1 + where a search for zeros last found none up
     * to the end: later searches from there on need not look again; 0: not
     * known. Whoever changes data or size sets it to 0. */
    size_t no_zeros_from;
    /* Where data[0] is in the file, added to the offsets in messages: a
     * reader that holds a window of a big capture must still name the byte
     * `dump` names. */
    uint64_t base;
} rvt_te_raw_cursor;
/* After damage: skip to the first byte after the next run of at least 32
 * zero bytes when there is one, else one byte on; with blocks (block_size),
 * to the next block. Returns the bytes skipped. */
RVT_API size_t rvt_te_raw_resync(rvt_te_raw_cursor *c);
RVT_API int rvt_te_raw_next(rvt_te_raw_cursor *c, const rvt_etrace_params *p, const rvt_etrace_options *o,
                    rvt_te_inst *pkt, size_t *offset, rvt_diag *diag);

/* Bits of the branch_map field for `branches` branches (0 = a full map of 31). */
RVT_API unsigned rvt_te_branch_map_len(unsigned branches);

/* ---- Branch predictor and jump target cache (kept in step by both sides) ---- */

/* The spec's predictor: 2^size 2-bit states indexed by address bits
 * size+lsb-1..lsb; the state's MSB is the prediction, its LSB the last
 * outcome, and a prediction flips after two failures. */
RVT_API void rvt_bpred_reset(uint8_t *table, unsigned size); /* every entry to 01 */
RVT_API bool rvt_bpred_predict(const uint8_t *table, unsigned size, unsigned lsb, uint64_t addr);
/* Records the outcome of the branch at `addr`; returns whether it was predicted. */
RVT_API bool rvt_bpred_update(uint8_t *table, unsigned size, unsigned lsb, uint64_t addr, bool taken);
/* Direct-mapped jump target cache slot of `target` (address bits size+lsb-1..lsb). */
static inline unsigned rvt_jtc_index(unsigned size, unsigned lsb, uint64_t target) {
    return (unsigned)(target >> lsb) & ((1u << size) - 1);
}

/* ---- Encoder ---- */

/* Receives each packet as emitted, with its packed payload. */
typedef int (*rvt_te_packet_sink)(void *user, const rvt_te_inst *pkt, const uint8_t *payload, size_t len);

typedef struct rvt_etrace_encoder rvt_etrace_encoder;
/* Starts tracing: emits the opening support packet. */
RVT_API int rvt_etrace_encoder_new(rvt_etrace_encoder **out, const rvt_etrace_params *p, const rvt_etrace_options *o,
                           rvt_te_packet_sink sink, void *user);
/* Feeds retirement records: single-retire (one instruction each; traps as
 * records with ninsns 0 and itype 1/2) or multiple-retire blocks (which end
 * at their first control transfer). A block goes in as its first and last
 * instructions, the ones between being plain, except where they can matter
 * and the encoder has the code (rvt_etrace_encoder_set_code): then the
 * packets are those of the single-retire records. */
RVT_API int rvt_etrace_encoder_push(rvt_etrace_encoder *e, const rvt_retire *recs, size_t n);
/* The program's code, to take blocks apart (rvt_code_fetch from flow.h). */
RVT_API void rvt_etrace_encoder_set_code(rvt_etrace_encoder *e, rvt_code_fetch fetch, void *user);
/* Reports the last instruction, closes with a support packet (trace ended)
 * and frees the encoder; *packets gets the packet count. */
RVT_API int rvt_etrace_encoder_finish(rvt_etrace_encoder *e, uint64_t *packets);

/* ---- Decoder ---- */


typedef struct rvt_etrace_decoder rvt_etrace_decoder;
RVT_API int rvt_etrace_decoder_new(rvt_etrace_decoder **out, const rvt_etrace_params *p, const rvt_etrace_options *o,
                           unsigned xlen, rvt_code_fetch fetch, rvt_pc_sink sink, void *user);
/* Processes one packet; on an inconsistency between packets and code
 * returns a negative status with the packet index and address in diag. */
RVT_API int rvt_etrace_decode(rvt_etrace_decoder *d, const rvt_te_inst *pkt, rvt_diag *diag);
/* Memory whose contents cannot change while the program runs (a boot ROM,
 * say): lets the decoder follow register values through loads from it. */
typedef bool (*rvt_const_read)(void *user, uint64_t addr, void *buf, unsigned n);
/* The trap vectors (mtvec and stvec values) for implicit-exception mode,
 * where trap packets leave out the handler address: the packet's privilege
 * says which one the trap took (S: stvec, once set; otherwise mtvec). */
RVT_API void rvt_etrace_decoder_set_tvec(rvt_etrace_decoder *d, uint64_t tvec);
RVT_API void rvt_etrace_decoder_set_stvec(rvt_etrace_decoder *d, uint64_t stvec);
/* Report the flow as runs of instructions to `block` instead of one address
 * at a time (same `user`). */
RVT_API void rvt_etrace_decoder_set_block_sink(rvt_etrace_decoder *d, rvt_block_sink block);
/* With a block sink: the walks the decoder kept and hands out again go to
 * `walk` instead (same `user`); see rvt_walk_sink. */
RVT_API void rvt_etrace_decoder_set_walk_sink(rvt_etrace_decoder *d, rvt_walk_sink walk);
/* Report straight runs to `run` (the rest still one address at a time to
 * the PC sink; same `user`); ignored with a block sink. */
RVT_API void rvt_etrace_decoder_set_run_sink(rvt_etrace_decoder *d, rvt_run_sink run);
/* Report traps (format 3 subformat 1: cause, tval, where, handler) to `trap`
 * (same `user`), in order with the instructions. */
RVT_API void rvt_etrace_decoder_set_trap_sink(rvt_etrace_decoder *d, rvt_trap_sink trap);
/* After an error: forget the path and wait for the next synchronisation
 * packet (format 3 subformat 0 or 1). */
RVT_API void rvt_etrace_decoder_resync(rvt_etrace_decoder *d);
RVT_API void rvt_etrace_decoder_set_const_memory(rvt_etrace_decoder *d, rvt_const_read read, void *user);
/* Where the trace ended (a support packet saying so, or the caller's end of
 * input, with `at_end`): when the last packet's address was passed in a loop
 * that the packets do not count (no branch and no reported jump in it, like
 * `j .` or co-routine swaps that implicit return predicts), the trace cannot
 * say in which iteration it stopped. The decoder lists up to the first
 * occurrence; this returns how many such ends it met, the address and the
 * loop's length of the last one. */
RVT_API uint64_t rvt_etrace_decoder_ambiguous_ends(rvt_etrace_decoder *d, bool at_end, uint64_t *addr, uint64_t *loop_len);
/* Traps whose last retired instruction the packets cannot place: its address
 * recurs with no branch or reported jump between (the same call made twice
 * before a trap at its return, in implicit-return mode). The decoder keeps
 * the first occurrence, as the specification's decoder does, except when a
 * 1.0 trap packet gives the EPC (illegal instruction). Returns how many
 * there were and the address of the first. */
RVT_API uint64_t rvt_etrace_decoder_ambiguous_traps(const rvt_etrace_decoder *d, uint64_t *addr);
RVT_API void rvt_etrace_decoder_free(rvt_etrace_decoder *d);

/* A packet of a capture: its number (from 1) and the byte offset where it
 * starts, which messages about it give. */
typedef struct rvt_etrace_item {
    rvt_te_inst pkt;
    uint64_t offset, index;
} rvt_etrace_item;
/* rvt_etrace_decode for a packet of a capture: a loss names the packet and
 * its byte offset, and the decoder then waits for the next sync. */
RVT_API int rvt_etrace_decode_item(rvt_etrace_decoder *d, const rvt_etrace_item *it, rvt_diag *diag);
/* Give `to` the path state of `from` (where the flow is, branch outcomes
 * still due, the return stack, register values, predictor and jump target
 * cache, options changed by support packets), keeping its own configuration,
 * sinks and counters: decoding goes on in `to` as it would have in `from`. */
RVT_API void rvt_etrace_decoder_copy_state(rvt_etrace_decoder *to, const rvt_etrace_decoder *from);
/* Whether the same packets would decode the same way in both (a decoder
 * started afresh at a sync packet and one that came to it from the start). */
RVT_API bool rvt_etrace_decoder_same_state(const rvt_etrace_decoder *a, const rvt_etrace_decoder *b);
/* Decoding on several threads (rvt_decode_pool): the items are
 * rvt_etrace_item; segments start at sync packets (format 3 subformat 0),
 * which restart the predictor, the jump target cache and (with a call
 * counter or return stack, or without implicit return) the call stack and
 * the register values. Without counter and stack, where implicit return
 * keeps the call stack across syncs, segments mostly decode in order. */
extern RVT_API const rvt_pool_codec rvt_etrace_pool_codec;

#ifdef __cplusplus
}
#endif
#endif
