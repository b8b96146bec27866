/* Memory as the core reaches it: physical loads and stores through the bus
 * (hart_bus: the platform's regions of RAM and ROM, and its devices), and
 * the decoded code the core keeps beside the regions' memory, per 4 KiB
 * page (mem_region.icache), which follows every store into it. */
#include <stdlib.h>

#include "hart_internal.h"

int hart_machine_init(hart_machine *m) {
    /* The pool fills from its start: on 2 MiB pages, one page fault for the
     * first 2 400 blocks rather than one per 4 KiB. */
    m->code_blocks = rvt_huge_alloc(CODE_BLOCK_POOL * sizeof *m->code_blocks);
    m->code_slots = rvt_pages_alloc(CODE_BLOCK_SLOTS * sizeof *m->code_slots);
    m->code_blocks_next = 1;
    return m->code_blocks && m->code_slots ? RVT_OK : RVT_E_NOMEM;
}

void hart_machine_free(hart_machine *m) {
    for (unsigned i = 0; i < m->ncode_chunks; i++)
        rvt_pages_free(m->code_chunks[i], CODE_PAGE_CHUNK * sizeof **m->code_chunks);
    free(m->code_chunks);
    m->code_chunks = NULL;
    m->ncode_chunks = 0;
    m->code_pages = NULL;
    free(m->decoded);
    m->decoded = NULL;
    if (m->code_blocks)
        rvt_huge_free(m->code_blocks, CODE_BLOCK_POOL * sizeof *m->code_blocks);
    if (m->code_slots)
        rvt_pages_free(m->code_slots, CODE_BLOCK_SLOTS * sizeof *m->code_slots);
    m->code_blocks = NULL;
    m->code_slots = NULL;
}

bool bus_load(hart_machine *m, uint64_t pa, void *out, unsigned len) {
    mem_region *r = bus_region(m, pa, len);
    if (r) {
        copy_small(out, r->data + (pa - r->base), len);
        return true;
    }
    return m->bus.device_load(m->bus.ctx, pa, out, len);
}

void code_drop(hart_machine *m, mem_region *r, uint64_t off, unsigned len) {
    /* A store may overwrite the second half of a 32-bit instruction. */
    uint64_t first = off >= 2 ? off - 2 : 0, last = off + len - 1;
    if (!r->icache[first >> 12] && !r->icache[last >> 12])
        return; /* (most stores: no decoded code on their pages) */
    bool flushed = false;
    for (uint64_t a = first & ~1ull; a <= last; a += 2) {
        rvt_insn *page = r->icache[a >> 12];
        if (page && page[(a & 0xfff) >> 1].len) {
            if (!flushed)
                port_code_barrier(&m->port);
            flushed = true;
            page[(a & 0xfff) >> 1].len = 0;
            code_page_of(page)->id = ++m->code_ids; /* the code blocks were decoded from what is gone */
        }
    }
}

bool bus_store(hart_machine *m, hart *h, uint64_t pa, const void *in, unsigned len) {
    mem_region *r = bus_region(m, pa, len);
    if (r) {
        if (r->rom)
            return false;
        code_drop(m, r, pa - r->base, len); /* (before the code changes) */
        copy_small(r->data + (pa - r->base), in, len);
        if (h && pa == h->env.watched_store)
            h->env.store_watched(h);
        for (unsigned i = 0; i < m->nharts; i++) /* a store breaks other harts' reservations */
            if (&m->harts[i] != h && m->harts[i].resv_valid && m->harts[i].resv_addr == (pa & ~7ull))
                m->harts[i].resv_valid = false;
        return true;
    }
    return m->bus.device_store(m->bus.ctx, pa, in, len);
}

/* A page decoded its first instruction since the last flush. */
static void list_decoded(hart_machine *m, struct code_page *page) {
    if (m->ndecoded == m->decoded_cap) {
        size_t cap = m->decoded_cap ? 2 * m->decoded_cap : 256;
        struct code_page **grown = realloc(m->decoded, cap * sizeof *grown);
        if (!grown) {
            m->decoded_overflow = true;
            return;
        }
        m->decoded = grown;
        m->decoded_cap = cap;
    }
    page->listed = true;
    m->decoded[m->ndecoded++] = page;
}

/* A decoded page, zeroed, from the machine's chunks (NULL: no memory). */
static struct code_page *new_code_page(hart_machine *m) {
    if (!m->ncode_chunks || m->code_chunk_used == CODE_PAGE_CHUNK) {
        struct code_page **grown = realloc(m->code_chunks, (m->ncode_chunks + 1) * sizeof *grown);
        if (!grown)
            return NULL;
        m->code_chunks = grown;
        struct code_page *chunk = rvt_pages_alloc(CODE_PAGE_CHUNK * sizeof *chunk);
        if (!chunk)
            return NULL;
        m->code_chunks[m->ncode_chunks++] = chunk;
        m->code_chunk_used = 0;
    }
    return &m->code_chunks[m->ncode_chunks - 1][m->code_chunk_used++];
}

const rvt_insn *bus_fetch(hart_machine *m, uint64_t pa) {
    if (pa & 1)
        return NULL;
    mem_region *r = bus_region(m, pa, 2);
    if (!r)
        return NULL;
    uint64_t off = pa - r->base;
    rvt_insn **page = &r->icache[off >> 12];
    if (!*page) {
        struct code_page *made = new_code_page(m);
        if (!made)
            return NULL;
        made->pa = pa & ~0xfffull;
        made->id = ++m->code_ids;
        made->next = m->code_pages;
        m->code_pages = made;
        *page = made->slot;
        host_tlb_code_appeared(m, r->data + (off & ~0xfffull));
    }
    rvt_insn *slot = &(*page)[(off & 0xfff) >> 1];
    if (slot->len == 0) {
        uint32_t w = (uint32_t)r->data[off] | (uint32_t)r->data[off + 1] << 8;
        if ((w & 3) == 3) {
            if (off + 4 > r->size)
                return NULL;
            w |= (uint32_t)r->data[off + 2] << 16 | (uint32_t)r->data[off + 3] << 24;
        }
        rvt_decode(w, m->xlen, slot);
        struct code_page *cp = code_page_of(*page);
        if (!cp->listed)
            list_decoded(m, cp);
        if (m->port.code_watched && !m->port.image_changed)
            port_watch_decoded(&m->port, pa, r->data + off, slot->len, r->rom);
    }
    return slot;
}

void code_flush(hart_machine *m) {
    /* Pages stay allocated: a running fetch loop may hold one. */
    for (size_t i = 0; i < m->ndecoded; i++) {
        struct code_page *p = m->decoded[i];
        memset(p->slot, 0, sizeof p->slot);
        p->listed = false;
        p->id = ++m->code_ids;
    }
    m->ndecoded = 0;
    if (!m->decoded_overflow)
        return;
    m->decoded_overflow = false;
    for (struct code_page *p = m->code_pages; p; p = p->next) {
        memset(p->slot, 0, sizeof p->slot);
        p->listed = false;
        p->id = ++m->code_ids;
    }
}
