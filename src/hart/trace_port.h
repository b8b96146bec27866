/* The hart model's trace port: where the harts' retirement records go.
 * Records are written packed (rvt_retire_packed) into a batch, the sink's
 * own space when it gives one (a relay's), else the port's buffer, and the
 * sink gets each full batch. The port also keeps the code watch of the run
 * pipeline's code-visibility protocol (trace_port.c, docs/ARCHITECTURE.md):
 * which code the records so far ran. It reaches nothing of the core or the
 * platform: what it needs of the machine (reading its memory, telling it
 * that the sink refused records) it asks of its owner (port_owner). */
#ifndef RVTRACE_HART_TRACE_PORT_H
#define RVTRACE_HART_TRACE_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "rvtrace/hart.h"

enum { RVT_OWN_RECORDS = 8192, RVT_UNPACKED = 256, RVT_CODE_WATCH = 16 };

/* What the port asks of its owner (the machine), given at port_init. */
typedef struct port_owner {
    void *ctx;
    /* The sink refused a batch: the run stops. */
    void (*refused)(void *ctx);
    /* The instruction at physical `addr` as memory holds it now (an
     * rvt_code_fetch with ctx as its user). */
    bool (*memory_insn)(void *ctx, uint64_t addr, rvt_insn *out);
    /* Whether hart `hart`'s records in privilege `priv` carry virtual
     * addresses now (its code is then not read at them). */
    bool (*translates)(void *ctx, unsigned hart, unsigned priv);
} port_owner;

typedef struct trace_port {
    /* Records are written packed; `sink` gets them so, or is the port's
     * own that unpacks them for `retire_sink`. */
    rvt_packed_sink sink;
    void *sink_user;
    rvt_retire_sink retire_sink;
    void *retire_user;
    rvt_retire *unpacked;            /* RVT_UNPACKED records, for retire_sink */
    rvt_packed_state unpacked_state; /* the packed stream's, as unpacked for retire_sink */
    rvt_retire_packed *buf, *own_buf; /* buf: own_buf or the space's */
    /* The next record's place in buf, and where it ends but for the slots
     * of one record less one: at buf_end the longest record still fits. */
    rvt_retire_packed *buf_next, *buf_end;
    /* The packed stream's state after the records written, and before
     * buf's first (rvt_retire_packed: a record that keeps it takes one
     * slot). */
    rvt_packed_state record_state, buf_state;
    rvt_packed_space space;
    void *space_user;
    port_owner owner;

    /* rvt_machine_watch_code: the ranges, and whether a hart executed an
     * instruction outside them and the boot ROM since they were given, and
     * whether one executed code inside them that is not the image's. */
    struct code_range {
        uint64_t base, size;
    } code_watch[RVT_CODE_WATCH];
    unsigned ncode_watch;
    bool code_watched, left_code, image_changed;
    unsigned code_at; /* the range the last record checked was in (port_image_code_prefix) */
    /* The program's image, which watched code must be; the boot ROM, which
     * no hart can write. */
    const rvt_image *img;
    uint64_t rom_base, rom_size;
} trace_port;

/* Allocates the port's buffers (RVT_E_NOMEM) and takes its own as the batch. */
int port_init(trace_port *p, const port_owner *owner);
void port_free(trace_port *p);
/* rvt_machine_set_packed_sink, rvt_machine_set_sink: where records go
 * from now on (a new stream). */
void port_set_sink(trace_port *p, rvt_packed_sink sink, rvt_packed_space space, void *user);
void port_set_retire_sink(trace_port *p, rvt_retire_sink sink, void *user);
/* The batch goes to the sink, and the next one is taken. */
void port_flush(trace_port *p);
/* Where the next records go: the space's, else the own buffer. */
void port_take_space(trace_port *p);

/* Room for one more record (of one or two slots): a full batch goes to the
 * sink first. The interpreter's loop makes room before it works out a
 * record's fields, so that none of them lives across the call. */
static inline void port_make_room(trace_port *p) {
    if (__builtin_expect(p->buf_next >= p->buf_end, 0))
        port_flush(p);
}

static inline void port_emit(trace_port *p, const rvt_retire *r) {
    port_make_room(p);
    p->buf_next += rvt_retire_pack(r, p->buf_next, &p->record_state);
}

/* The packed stream's state made `to`, by a state slot where it is not. */
static inline void port_set_state(trace_port *p, rvt_packed_state to) {
    if (p->record_state.time != to.time || p->record_state.hart_group != to.hart_group) {
        port_make_room(p);
        p->record_state = to;
        *p->buf_next++ = rvt_packed_state_slot(&to);
    }
}

/* The run pipeline's code-visibility protocol (trace_port.c). */
/* Passes the records written so far on before code that records may have
 * run changes; the machine's memory still holds it. */
void port_code_barrier(trace_port *p);
/* An instruction of `len` bytes (`bytes` in memory, `rom`: the boot ROM's)
 * was decoded at physical `pa`, while the code is watched (code_watched
 * and not image_changed). */
void port_watch_decoded(trace_port *p, uint64_t pa, const uint8_t *bytes, unsigned len, bool rom);
/* rvt_machine_watch_code (the owner flushes decoded code too), _left_code,
 * _changed_code, _image_code_prefix. */
int port_watch_code(trace_port *p, const rvt_segment_info *segs, size_t n);
bool port_left_code(const trace_port *p);
bool port_changed_code(const trace_port *p);
size_t port_image_code_prefix(trace_port *p, const rvt_retire_packed *slots, size_t n);

/* The hot writers, for the interpreter. Records are written packed: a
 * block's is two words, each a store of its own (a record put together on
 * the stack first would be copied with wide loads of its fresh narrow
 * stores, no forwarding). Each needs room made first. */

/* The part of a record's packed word that stays for a run of blocks: the
 * privilege and the hart (its group is the stream's). */
static inline uint64_t port_owner_word(unsigned priv, unsigned hart_id) {
    return rvt_packed_word(0, 0, 0, 0, 0, priv & 3, hart_id);
}

/* A record that takes the long form (trace_port.c: cold, out of line). */
void port_write_long(trace_port *p, const rvt_retire *r);
/* Hart `hart_id`'s record of packed word `word` (owner included) from
 * `iaddr`, retired at `time`, in the long form. */
void port_write_long_word(trace_port *p, unsigned hart_id, uint64_t iaddr, uint64_t word, uint64_t time);

/* One slot, where the stream's state is the record's. */
static inline __attribute__((always_inline)) void port_put_word(trace_port *p, uint64_t iaddr, uint64_t word) {
    rvt_retire_packed *r = p->buf_next++;
    /* The batch is usually a relay's, last read on the consumer's core:
     * asking for the line 512 bytes ahead, for writing, hides most of
     * taking it back (N-Trace on coremark, where the hart's thread is the
     * slower one: 6 % with a prefetch for reading, 7 % more for writing).
     * x86's PREFETCHW, which GCC uses only when told the CPU has it, runs as
     * a no-op where it does not; a prefetch never faults. */
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)((uintptr_t)r + 512)));
#else
    __builtin_prefetch((const void *)((uintptr_t)r + 512), 1);
#endif
    r->iaddr = iaddr;
    r->word = word;
}

/* One slot where the stream's state is the record's, else long. */
static inline __attribute__((always_inline)) void port_write_word(trace_port *p, unsigned hart_id, uint64_t iaddr,
                                                                  uint64_t word, uint64_t time) {
    if (__builtin_expect(time != p->record_state.time || (hart_id >> 2) != p->record_state.hart_group, 0))
        port_write_long_word(p, hart_id, iaddr, word, time);
    else
        port_put_word(p, iaddr, word);
}

/* The record of hart `hart_id`'s block of `n` instructions from `pc`, `hw`
 * halfwords, whose last has bits `insn` (which tell its size), retired at
 * `time`. (A record block ends before 0xff00 halfwords: `hw` fits
 * rvt_retire's field.) */
static inline __attribute__((always_inline)) void port_write_block(trace_port *p, unsigned hart_id, uint64_t pc,
                                                                   uint32_t n, uint32_t insn, uint64_t hw,
                                                                   unsigned itype, uint64_t owner, uint64_t time) {
    unsigned ilastsize = (insn & 3) == 3;
    if (__builtin_expect(hw <= RVT_PACKED_IRETIRE_MAX && n <= RVT_PACKED_NINSNS_MAX, 1)) {
        port_write_word(p, hart_id, pc, rvt_packed_word(insn, n, (unsigned)hw, ilastsize, itype, 0, 0) | owner, time);
        return;
    }
    rvt_retire r = {0};
    rvt_packed_word_to(owner, &(rvt_packed_state){time, hart_id >> 2}, &r);
    r.iaddr = pc;
    r.time = time;
    r.insn = insn;
    r.ninsns = n;
    r.iretire = (uint16_t)hw;
    r.ilastsize = (uint8_t)ilastsize;
    r.itype = (uint8_t)itype;
    port_write_long(p, &r);
}

#endif
