/* The trace port (trace_port.h): the batches of packed records and their
 * sinks, and the run pipeline's code-visibility protocol.
 *
 * The protocol. Whoever reads the code of records (the reference filter and
 * the encoders take blocks apart) must read the code the records ran. The
 * image holds it, and can be read on any thread, as long as the harts run
 * only the image's executable code and the boot ROM: a consumer on another
 * thread (a relay) may then work on the records while the harts run on.
 * - rvt_machine_watch_code: from now on the port notes, as instructions are
 *   decoded, whether a hart left the watched code (left_code) and whether
 *   code inside it differs from the image's (image_changed). Decoded pages
 *   are flushed, so every instruction is looked at.
 * - rvt_machine_image_code_prefix: how many records of a batch, from the
 *   first, ran code the image or the ROM holds. Those may go to the other
 *   thread; from the first that did not, the consumer finishes the other
 *   thread and reads the rest on the hart's thread, where the machine's
 *   memory holds what the records ran.
 * - Code changes under records: a store that changes decoded code passes
 *   the records written so far on first (port_code_barrier), so that they
 *   are read while their code is still in memory; once image_changed is
 *   set, the image is no longer the code and readers on the hart's thread
 *   read the machine's memory first.
 */
#include <stdlib.h>

#include "hart_internal.h"

int port_init(trace_port *p, void (*refused)(void *owner), void *owner) {
    p->refused = refused;
    p->owner = owner;
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
        p->refused(p->owner);
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

void rvt_machine_set_sink(rvt_machine *m, rvt_retire_sink sink, void *user) {
    rvt_machine_set_packed_sink(m, sink ? unpack_to_sink : NULL, NULL, &m->port);
    m->port.retire_sink = sink;
    m->port.retire_user = user;
}

void rvt_machine_set_packed_sink(rvt_machine *m, rvt_packed_sink sink, rvt_packed_space space, void *user) {
    trace_port *p = &m->port;
    port_flush(p); /* (the records so far go where they were going) */
    p->sink = sink;
    p->sink_user = user;
    p->space = space;
    p->space_user = user;
    p->record_state = p->unpacked_state = (rvt_packed_state){0, 0}; /* a new stream */
    port_take_space(p);
}

/* ------------------------------------------------- code visibility */

/* The code at addr as the machine's memory holds it now (an rvt_code_fetch). */
static bool memory_insn(void *m, uint64_t addr, rvt_insn *out) { return rvt_program_insn(NULL, m, addr, out); }

/* The records written so far passed on before code changes, for whatever
 * reads their code to take blocks apart to read it while it is what they
 * ran. Their readers hold the last back until the next comes (the reference
 * filter, to see whether it repeats; the E-Trace encoder, to see whether an
 * interrupt takes its last instruction back), so a last record of several
 * instructions goes as one record per instruction, which need no code
 * (read here at the record's addresses, which are physical where its
 * privilege fetches without translation; else it goes as it is). */
void port_code_barrier(rvt_machine *m) {
    rvt_retire_packed *last = NULL;
    rvt_packed_state state = m->port.buf_state, before_last = state;
    for (rvt_retire_packed *p = m->port.buf; p < m->port.buf_next; p += rvt_packed_slots(p)) {
        if (rvt_packed_is_one_slot(p) || rvt_packed_is_long(p)) { /* (not a state slot) */
            last = p;
            before_last = state;
        }
        rvt_packed_follow(p, &state);
    }
    rvt_retire block = {0};
    size_t used = 0;
    rvt_packed_state at_last = before_last;
    if (!last || rvt_packed_ninsns(last) < 2 ||
        rvt_retire_unpack(last, (size_t)(m->port.buf_next - last), &block, 1, &used, &at_last) != 1 ||
        (block.priv != PRV_M && block.hart < m->nharts && satp_mode(&m->harts[block.hart]) != 0) ||
        !rvt_retire_block_fits_code(&block, memory_insn, m)) {
        port_flush(&m->port);
        return;
    }
    m->port.buf_next = last;
    m->port.record_state = before_last; /* (what the sink will have seen) */
    port_flush(&m->port);
    rvt_retire one = block;
    one.ninsns = 1;
    one.itype = RVT_ITYPE_NONE;
    one.sijump = 0;
    rvt_insn in;
    for (uint32_t k = 0; k + 1 < block.ninsns; k++) {
        memory_insn(m, one.iaddr, &in);
        rvt_retire_take_insn(&one, &in);
        port_emit(&m->port, &one);
        one.iaddr += in.len;
    }
    block.iaddr = rvt_retire_last_iaddr(&block);
    block.ninsns = 1;
    block.iretire = (uint16_t)(block.ilastsize + 1);
    port_emit(&m->port, &block);
    port_set_state(&m->port, state); /* (the running hart's, as it was) */
    port_flush(&m->port);
}

int rvt_machine_watch_code(rvt_machine *m, const rvt_segment_info *segs, size_t n) {
    size_t nexec = 0;
    for (size_t i = 0; i < n; i++)
        nexec += segs[i].exec && segs[i].memsz;
    if (nexec > RVT_CODE_WATCH)
        return RVT_E_RANGE;
    m->port.ncode_watch = m->port.code_at = 0;
    for (size_t i = 0; i < n; i++)
        if (segs[i].exec && segs[i].memsz)
            m->port.code_watch[m->port.ncode_watch++] = (struct code_range){segs[i].vaddr, segs[i].memsz};
    /* Every instruction is looked at as it is decoded: what is decoded
     * already is decoded again. */
    machine_flush_icache(m);
    m->port.code_watched = true;
    m->port.left_code = m->port.image_changed = false;
    return 0;
}

bool rvt_machine_left_code(const rvt_machine *m) { return !m->port.code_watched || m->port.left_code; }
bool rvt_machine_changed_code(const rvt_machine *m) { return !m->port.code_watched || m->port.image_changed; }

/* An instruction of `len` bytes decoded at `pa` of region r, with
 * rvt_machine_watch_code on (addresses are physical: fetches through
 * translation leave the watched code of themselves). Inside the watched
 * ranges it must be the image's: code the program wrote over its own is
 * code outside them too, and the records before it (which ran the image's)
 * are passed on first. */
void port_watch_decoded(rvt_machine *m, const mem_region *r, uint64_t pa, unsigned len) {
    if (r->rom)
        return;
    for (unsigned i = 0; i < m->port.ncode_watch; i++)
        if (pa - m->port.code_watch[i].base < m->port.code_watch[i].size &&
            pa + len - 1 - m->port.code_watch[i].base < m->port.code_watch[i].size) {
            uint8_t image[4];
            if (m->img && rvt_image_read(m->img, pa, image, len) == len && !memcmp(image, r->data + (pa - r->base), len))
                return;
            port_flush(&m->port);
            m->port.image_changed = true;
            break;
        }
    m->port.left_code = true;
}


static bool range_holds(const struct code_range *r, uint64_t first, uint64_t last) {
    return first - r->base < r->size && last - r->base < r->size;
}

/* Whether the image's watched code or the boot ROM (which no hart can
 * write) holds the block from `first` to `last` (its last instruction). */
static bool image_holds(rvt_machine *m, uint64_t first, uint64_t last) {
    trace_port *p = &m->port;
    if (p->code_at < p->ncode_watch && range_holds(&p->code_watch[p->code_at], first, last))
        return true;
    for (unsigned i = 0; i < p->ncode_watch; i++)
        if (range_holds(&p->code_watch[i], first, last)) {
            p->code_at = i;
            return true;
        }
    uint8_t b[2];
    return rvt_machine_read_rom(m, first, b, 2) && rvt_machine_read_rom(m, last, b, 2);
}

size_t rvt_machine_image_code_prefix(rvt_machine *m, const rvt_retire_packed *slots, size_t n) {
    trace_port *p = &m->port;
    if (!rvt_machine_left_code(m))
        return n; /* every instruction so far was the image's (or the ROM's) */
    if (rvt_machine_changed_code(m))
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
        if (!image_holds(m, r->iaddr, rvt_packed_last_iaddr(r)))
            return k;
        last = p->code_watch[p->code_at];
    }
    return n;
}
