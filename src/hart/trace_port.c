/* The trace port (trace_port.h): the batches of packed records and their
 * sinks, and the run pipeline's code-visibility protocol.
 *
 * The protocol. Whoever reads the code of records (the reference filter and
 * the encoders take blocks apart) must read the code the records ran. The
 * image holds it, and can be read on any thread, as long as the harts run
 * only the image's executable code and the boot ROM: a consumer on another
 * thread (a relay) may then work on the records while the harts run on.
 * - rvt_machine_watch_code (port_watch_code): from now on the port notes, as
 *   instructions are decoded (port_watch_decoded, from the core's decoder),
 *   whether a hart left the watched code (left_code) and whether code inside
 *   it differs from the image's (image_changed). Decoded pages are flushed,
 *   so every instruction is looked at; a fetch through translation leaves it.
 * - rvt_machine_image_code_prefix (port_image_code_prefix): how many
 *   records of a batch, from the first, ran code the image or the ROM holds. Those may go to the other
 *   thread; from the first that did not, the consumer finishes the other
 *   thread and reads the rest on the hart's thread, where the machine's
 *   memory holds what the records ran.
 * - Code changes under records: a store that changes decoded code passes
 *   the records written so far on first (port_code_barrier, from the core's
 *   code_drop), so that they are read while their code is still in memory;
 *   once image_changed is set, the image is no longer the code and readers
 *   on the hart's thread read the machine's memory first.
 * `rvtrace run` only calls the public functions (machine_api.c), which are
 * these.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_port.h"

int port_init(trace_port *p, const port_owner *owner) {
    p->owner = *owner;
    p->unpacked = calloc(RVT_UNPACKED, sizeof *p->unpacked);
    p->own_buf = calloc(RVT_OWN_RECORDS, sizeof *p->own_buf);
    if (!p->unpacked || !p->own_buf)
        return RVT_E_NOMEM;
    port_take_space(p); /* (no space yet: its own buffer) */
    return RVT_OK;
}

void port_free(trace_port *p) {
    free(p->own_buf);
    free(p->unpacked);
}

void port_flush(trace_port *p) {
    size_t n = (size_t)(p->buf_next - p->buf);
    if (n && p->sink && p->sink(p->sink_user, p->buf, n) != 0)
        p->owner.refused(p->owner.ctx);
    port_take_space(p);
}

void port_take_space(trace_port *p) {
    size_t cap = 0;
    rvt_retire_packed *space = p->space ? p->space(p->space_user, &cap) : NULL;
    bool given = space && cap >= RVT_PACKED_MAX_SLOTS;
    p->buf = p->buf_next = given ? space : p->own_buf;
    p->buf_end = p->buf + (given ? cap : RVT_OWN_RECORDS) - (RVT_PACKED_MAX_SLOTS - 1);
    p->buf_state = p->record_state;
}

__attribute__((noinline, cold)) void port_write_long(trace_port *p, const rvt_retire *r) {
    p->buf_next += rvt_retire_pack(r, p->buf_next, &p->record_state);
}

__attribute__((noinline, cold)) void port_write_long_word(trace_port *p, unsigned hart_id, uint64_t iaddr,
                                                          uint64_t word, uint64_t time) {
    rvt_retire r = {0};
    rvt_packed_word_to(word, &(rvt_packed_state){time, hart_id >> 2}, &r);
    r.iaddr = iaddr;
    r.time = time;
    port_write_long(p, &r);
}

/* The sink of rvt_machine_set_sink's records. */
static int unpack_to_sink(void *user, const rvt_retire_packed *slots, size_t n) {
    trace_port *p = user;
    return rvt_retire_unpack_to(slots, n, p->unpacked, RVT_UNPACKED, p->retire_sink, p->retire_user,
                                &p->unpacked_state);
}

void port_set_retire_sink(trace_port *p, rvt_retire_sink sink, void *user) {
    port_set_sink(p, sink ? unpack_to_sink : NULL, NULL, p);
    p->retire_sink = sink;
    p->retire_user = user;
}

void port_set_sink(trace_port *p, rvt_packed_sink sink, rvt_packed_space space, void *user) {
    port_flush(p); /* (the records so far go where they were going) */
    p->sink = sink;
    p->sink_user = user;
    p->space = space;
    p->space_user = user;
    p->record_state = p->unpacked_state = (rvt_packed_state){0, 0}; /* a new stream */
    port_take_space(p);
}

/* ------------------------------------------------- code visibility */

/* The records written so far passed on before code changes, for whatever
 * reads their code to take blocks apart to read it while it is what they
 * ran. Their readers hold the last back until the next comes (the reference
 * filter, to see whether it repeats; the E-Trace encoder, to see whether an
 * interrupt takes its last instruction back), so a last record of several
 * instructions goes as one record per instruction, which need no code
 * (read here at the record's addresses, which are physical where its
 * privilege fetches without translation; else it goes as it is). */
void port_code_barrier(trace_port *port) {
    rvt_retire_packed *last = NULL;
    rvt_packed_state state = port->buf_state, before_last = state;
    for (rvt_retire_packed *p = port->buf; p < port->buf_next; p += rvt_packed_slots(p)) {
        if (rvt_packed_is_one_slot(p) || rvt_packed_is_long(p)) { /* (not a state slot) */
            last = p;
            before_last = state;
        }
        rvt_packed_follow(p, &state);
    }
    rvt_retire block = {0};
    size_t used = 0;
    rvt_packed_state at_last = before_last;
    const port_owner *o = &port->owner;
    if (!last || rvt_packed_ninsns(last) < 2 ||
        rvt_retire_unpack(last, (size_t)(port->buf_next - last), &block, 1, &used, &at_last) != 1 ||
        o->translates(o->ctx, block.hart, block.priv) || !rvt_retire_block_fits_code(&block, o->memory_insn, o->ctx)) {
        port_flush(port);
        return;
    }
    port->buf_next = last;
    port->record_state = before_last; /* (what the sink will have seen) */
    port_flush(port);
    rvt_retire one = block;
    one.ninsns = 1;
    one.itype = RVT_ITYPE_NONE;
    one.sijump = 0;
    rvt_insn in;
    for (uint32_t k = 0; k + 1 < block.ninsns; k++) {
        o->memory_insn(o->ctx, one.iaddr, &in);
        rvt_retire_take_insn(&one, &in);
        port_emit(port, &one);
        one.iaddr += in.len;
    }
    block.iaddr = rvt_retire_last_iaddr(&block);
    block.ninsns = 1;
    block.iretire = (uint16_t)(block.ilastsize + 1);
    port_emit(port, &block);
    port_set_state(port, state); /* (the running hart's, as it was) */
    port_flush(port);
}

int port_watch_code(trace_port *p, const rvt_segment_info *segs, size_t n) {
    size_t nexec = 0;
    for (size_t i = 0; i < n; i++)
        nexec += segs[i].exec && segs[i].memsz;
    if (nexec > RVT_CODE_WATCH)
        return RVT_E_RANGE;
    p->ncode_watch = p->code_at = 0;
    for (size_t i = 0; i < n; i++)
        if (segs[i].exec && segs[i].memsz)
            p->code_watch[p->ncode_watch++] = (struct code_range){segs[i].vaddr, segs[i].memsz};
    /* (every instruction is looked at as it is decoded: the owner flushes
     * what is decoded already, which is decoded again) */
    p->code_watched = true;
    p->left_code = p->image_changed = false;
    return 0;
}

bool port_left_code(const trace_port *p) { return !p->code_watched || p->left_code; }
bool port_changed_code(const trace_port *p) { return !p->code_watched || p->image_changed; }

/* An instruction of `len` bytes decoded at `pa`, with the code watched
 * (addresses are physical: fetches through translation leave the watched
 * code of themselves). Inside the watched ranges it must be the image's:
 * code the program wrote over its own is code outside them too, and the
 * records before it (which ran the image's) are passed on first. */
void port_watch_decoded(trace_port *p, uint64_t pa, const uint8_t *bytes, unsigned len, bool rom) {
    if (rom)
        return;
    for (unsigned i = 0; i < p->ncode_watch; i++)
        if (pa - p->code_watch[i].base < p->code_watch[i].size &&
            pa + len - 1 - p->code_watch[i].base < p->code_watch[i].size) {
            uint8_t image[4];
            if (p->img && rvt_image_read(p->img, pa, image, len) == len && !memcmp(image, bytes, len))
                return;
            port_flush(p);
            p->image_changed = true;
            break;
        }
    p->left_code = true;
}


static bool range_holds(const struct code_range *r, uint64_t first, uint64_t last) {
    return first - r->base < r->size && last - r->base < r->size;
}

/* Whether the boot ROM holds the instruction's first two bytes at `a`. */
static bool rom_holds(const trace_port *p, uint64_t a) {
    return a - p->rom_base < p->rom_size && p->rom_size - (a - p->rom_base) >= 2;
}

/* Whether the image's watched code or the boot ROM (which no hart can
 * write) holds the block from `first` to `last` (its last instruction). */
static bool image_holds(trace_port *p, uint64_t first, uint64_t last) {
    if (p->code_at < p->ncode_watch && range_holds(&p->code_watch[p->code_at], first, last))
        return true;
    for (unsigned i = 0; i < p->ncode_watch; i++)
        if (range_holds(&p->code_watch[i], first, last)) {
            p->code_at = i;
            return true;
        }
    return rom_holds(p, first) && rom_holds(p, last);
}

size_t port_image_code_prefix(trace_port *p, const rvt_retire_packed *slots, size_t n) {
    if (!port_left_code(p))
        return n; /* every instruction so far was the image's (or the ROM's) */
    if (port_changed_code(p))
        return 0; /* (the records before the change were passed on before it) */
    /* the range the last block was in, in a local: a block inside it costs
     * two comparisons */
    struct code_range last = p->code_at < p->ncode_watch ? p->code_watch[p->code_at] : (struct code_range){0, 0};
    for (size_t k = 0; k < n; k += rvt_packed_slots(&slots[k])) {
        const rvt_retire_packed *r = &slots[k];
        /* only a block's inner instructions are fetched: records of fewer
         * than two instructions need no code */
        if (rvt_packed_ninsns(r) < 2 || range_holds(&last, r->iaddr, rvt_packed_last_iaddr(r)))
            continue;
        if (!image_holds(p, r->iaddr, rvt_packed_last_iaddr(r)))
            return k;
        last = p->code_watch[p->code_at];
    }
    return n;
}
