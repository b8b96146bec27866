/* Address translation (Sv32, Sv39) as the privileged specification gives
 * it and spike implements it: Svade (A and D are never set by the hardware:
 * an access that needs them raises a page fault), no Svpbmt, Svnapot or
 * ASIDs; every page-table access and the final address are checked against
 * PMP. */
#include <stdlib.h>

#include "hart_internal.h"

/* A TLB as hardware has one: translations of 4 KiB virtual pages (a
 * superpage is kept page by page), filled by successful walks and kept until
 * spike flushes its own: a trap or xRET (any change of privilege), a write
 * of satp or PMP, a change of mstatus's MPP, MPRV, SUM or MXR, or
 * sfence.vma (translation_changed, forget_fetch_pages). A store into a page table is not
 * watched, as hardware does not: software orders it with sfence.vma. An
 * entry knows whether PMP allows its whole page, so that a hit needs no
 * PMP check. Direct-mapped, one table per kind of access, as spike's. */
#define TLB_ENTRIES 256
_Static_assert(TLB_ENTRIES == HOST_TLB_ENTRIES, "a host TLB entry lies where its translation's TLB entry does");
struct tlb {
    struct tlb_entry {
        uint64_t gen;     /* the hart's tlb_gen when filled (0: never) */
        uint64_t vpn;     /* va >> 12 */
        uint64_t pa_page; /* the page's physical address */
        bool pmp_whole;   /* PMP allows the access anywhere in the page */
    } e[3][TLB_ENTRIES];
};

int mmu_attach(hart *h) {
    if (!h->tlb && !(h->tlb = calloc(1, sizeof *h->tlb)))
        return RVT_E_NOMEM;
    return RVT_OK;
}

void mmu_free(hart *h) {
    free(h->tlb);
    h->tlb = NULL;
}

void host_tlb_clear(hart *h) {
    if (h->htlb_nfilled <= HOST_TLB_FILLED) {
        for (unsigned i = 0; i < h->htlb_nfilled; i++) {
            unsigned k = h->htlb_filled[i];
            (k < HOST_TLB_ENTRIES ? h->htlb.load : h->htlb.store)[k % HOST_TLB_ENTRIES].tag = ~0ull;
        }
    } else {
        for (unsigned i = 0; i < HOST_TLB_ENTRIES; i++)
            h->htlb.load[i].tag = h->htlb.store[i].tag = ~0ull;
    }
    h->htlb_nfilled = 0;
}

/* The host TLB's table for loads or for stores. */
static struct host_page *host_table(hart *h, enum access acc) {
    return acc == ACC_STORE ? h->htlb.store : h->htlb.load;
}

/* The TLB's entry where `va` goes (NULL: the hart has no TLB), and whether
 * it holds va's translation now. */
static struct tlb_entry *tlb_slot(hart *h, uint64_t va, enum access acc) {
    return h->tlb ? &h->tlb->e[acc][(va >> 12) % TLB_ENTRIES] : NULL;
}
static bool tlb_holds(const hart *h, const struct tlb_entry *e, uint64_t va) {
    return e && e->gen == h->tlb_gen && e->vpn == va >> 12;
}

void host_tlb_allow(hart *h, bool loads, bool stores) {
    for (unsigned i = 0; !loads && h->htlb_loads && i < HOST_TLB_ENTRIES; i++)
        h->htlb.load[i].tag = ~0ull;
    for (unsigned i = 0; !stores && h->htlb_stores && i < HOST_TLB_ENTRIES; i++)
        h->htlb.store[i].tag = ~0ull;
    h->htlb_loads = loads;
    h->htlb_stores = stores;
}

void host_tlb_fill(hart *h, enum access acc, uint64_t va, uint64_t pa) {
    if (!(acc == ACC_STORE ? h->htlb_stores : h->htlb_loads))
        return;
    uint64_t page = pa & ~0xfffull;
    mem_region *r = bus_region(h->m, page, 4096);
    if (!r || !pmp_ok(h, page, 4096, acc, data_priv(h)))
        return;
    if (acc == ACC_STORE && r->rom)
        return;
    unsigned k = (acc == ACC_STORE ? HOST_TLB_ENTRIES : 0) + (unsigned)((va >> 12) % HOST_TLB_ENTRIES);
    if (h->htlb_nfilled < HOST_TLB_FILLED)
        h->htlb_filled[h->htlb_nfilled] = (uint16_t)k;
    if (h->htlb_nfilled <= HOST_TLB_FILLED)
        h->htlb_nfilled++;
    struct host_page *e = &host_table(h, acc)[k % HOST_TLB_ENTRIES];
    e->tag = va & ~0xfffull;
    e->addend = (uint64_t)(uintptr_t)(r->data + (page - r->base)) - (va & ~0xfffull);
    static rvt_insn *const no_code = NULL;
    e->code = r->icache[(page - r->base) >> 12] ? &r->icache[(page - r->base) >> 12] : &no_code;
    e->watch = (h->env.watched_store & ~0xfffull) == page ? (va & ~0xfffull) | (h->env.watched_store & 0xfff) : 0;
}

void host_tlb_code_appeared(hart_machine *m, const uint8_t *host) {
    for (unsigned i = 0; i < m->nharts; i++) {
        struct host_page *store = m->harts[i].htlb.store;
        for (unsigned k = 0; k < HOST_TLB_ENTRIES; k++)
            if (store[k].tag != ~0ull && store[k].tag + store[k].addend == (uint64_t)(uintptr_t)host)
                store[k].tag = ~0ull;
    }
}

static bool translate(hart *h, uint64_t va, enum access acc, unsigned len, uint64_t *pa, bool ram_walk_only);

struct host_page *host_tlb_refill(hart *h, uint64_t va, unsigned nbytes, enum access acc) {
    if ((va & (nbytes - 1)) || !(acc == ACC_STORE ? h->htlb_stores : h->htlb_loads))
        return NULL;
    /* (PMP is the fill's: over the whole page) */
    uint64_t pa;
    const struct tlb_entry *hit = tlb_slot(h, va, acc);
    if (data_priv(h) == PRV_M || satp_mode(h) == 0)
        pa = va;
    else if (tlb_holds(h, hit, va))
        pa = hit->pa_page | (va & 0xfff);
    else if (!translate(h, va, acc, nbytes, &pa, true))
        return NULL;
    host_tlb_fill(h, acc, va, pa);
    return host_page_at(host_table(h, acc), va, nbytes);
}

bool mmu_translate(hart *h, uint64_t va, enum access acc, unsigned len, uint64_t *pa) {
    return translate(h, va, acc, len, pa, false);
}

/* ram_walk_only: a page-table entry outside RAM is not read (a device's
 * read may have effects) but fails the translation as an access fault.
 * One copy per XLEN (translate), in which the walk's sizes are constants. */
static inline __attribute__((always_inline)) bool translate_xlen(hart *h, uint64_t va, enum access acc, unsigned len,
                                                                 uint64_t *pa, bool ram_walk_only, const bool rv64) {
    unsigned prv = acc == ACC_FETCH ? h->priv : data_priv(h);
    unsigned mode = rv64 ? (unsigned)(h->satp >> 60) : (unsigned)(h->satp >> 31);
    if (prv == PRV_M || mode == 0) {
        *pa = mask_xlen(h, va);
        goto check_pmp;
    }
    struct tlb_entry *hit = tlb_slot(h, va, acc);
    if (tlb_holds(h, hit, va)) {
        *pa = hit->pa_page | (va & 0xfff);
        if (hit->pmp_whole)
            return true;
        goto check_pmp;
    }
    unsigned levels, ptesize, vpnbits;
    uint64_t ppn_root;
    if (rv64) {
        if (mode != 8)
            goto fault;
        levels = 3, ptesize = 8, vpnbits = 9;
        /* Sv39: bits 63..39 must equal bit 38. */
        if ((uint64_t)((int64_t)(va << 25) >> 25) != va)
            goto fault;
        ppn_root = h->satp & ((1ull << 44) - 1);
    } else {
        levels = 2, ptesize = 4, vpnbits = 10;
        va = (uint32_t)va;
        ppn_root = h->satp & ((1ull << 22) - 1);
    }
    uint64_t a = ppn_root << 12;
    const mem_region *table = NULL; /* the RAM region of the last page-table entry read */
    for (int i = (int)levels - 1; i >= 0; i--) {
        uint64_t vpn = (va >> (12 + (unsigned)i * vpnbits)) & ((1ull << vpnbits) - 1);
        uint64_t pte_addr = a + vpn * ptesize;
        uint64_t pte = 0;
        if (!pmp_ok(h, pte_addr, ptesize, ACC_LOAD, PRV_S))
            goto access_fault;
        if (!table || pte_addr - table->base > table->size - ptesize)
            table = bus_region(h->m, pte_addr, ptesize);
        if (table) /* (as bus_load reads RAM) */
            memcpy(&pte, table->data + (pte_addr - table->base), ptesize == 8 ? 8 : 4);
        else if (ram_walk_only || !bus_load(h->m, pte_addr, &pte, ptesize))
            goto access_fault;
        if (ptesize == 4)
            pte = (uint32_t)pte;
        bool v = pte & 1, r = pte & 2, w = pte & 4, x = pte & 8, u = pte & 16;
        if (rv64 && (pte >> 54) != 0) /* reserved bits, no Svpbmt/Svnapot */
            goto fault;
        uint64_t ppn = rv64 ? (pte >> 10) & ((1ull << 44) - 1) : (pte >> 10) & ((1ull << 22) - 1);
        if (v && !r && !w && !x) { /* pointer to the next level: D, A and U are reserved there */
            if (i == 0 || (pte & 0xd0))
                goto fault;
            a = ppn << 12;
            continue;
        }
        if (!v || (!r && w))
            goto fault;
        /* Leaf: permission checks. */
        if (prv == PRV_U && !u)
            goto fault;
        if (prv == PRV_S && u && (acc == ACC_FETCH || !(h->mstatus & MSTATUS_SUM)))
            goto fault;
        if (acc == ACC_FETCH && !x)
            goto fault;
        if (acc == ACC_LOAD && !r && !(x && (h->mstatus & MSTATUS_MXR)))
            goto fault;
        if (acc == ACC_STORE && !w)
            goto fault;
        if (i > 0 && (ppn & ((1ull << ((unsigned)i * vpnbits)) - 1)) != 0) /* misaligned superpage */
            goto fault;
        /* Svade, as spike without Svadu: the hardware never sets A or D; an
         * access that would need to raises a page fault. */
        uint64_t need = 0x40 | (acc == ACC_STORE ? 0x80 : 0);
        if ((pte & need) != need)
            goto fault;
        uint64_t offset_mask = (1ull << (12 + (unsigned)i * vpnbits)) - 1;
        *pa = ((ppn << 12) & ~offset_mask) | (va & offset_mask);
        if (hit) {
            uint64_t page = *pa & ~0xfffull;
            *hit = (struct tlb_entry){h->tlb_gen, va >> 12, page, pmp_ok(h, page, 4096, acc, prv)};
            /* The host TLB holds no translation this TLB has let go of:
             * what its entry in the same place had goes with it. */
            if (acc != ACC_FETCH)
                host_table(h, acc)[(va >> 12) % HOST_TLB_ENTRIES].tag = ~0ull;
        }
        goto check_pmp;
    }
fault:
    h->exc_cause = acc == ACC_FETCH ? CAUSE_FETCH_PAGE_FAULT
                   : acc == ACC_LOAD ? CAUSE_LOAD_PAGE_FAULT : CAUSE_STORE_PAGE_FAULT;
    h->exc_tval = va;
    return false;
check_pmp:
    if (pmp_ok(h, *pa, len, acc, prv))
        return true;
access_fault:
    h->exc_cause = acc == ACC_FETCH ? CAUSE_FETCH_ACCESS : acc == ACC_LOAD ? CAUSE_LOAD_ACCESS : CAUSE_STORE_ACCESS;
    h->exc_tval = va;
    return false;
}

static bool translate(hart *h, uint64_t va, enum access acc, unsigned len, uint64_t *pa, bool ram_walk_only) {
    return h->xlen == 64 ? translate_xlen(h, va, acc, len, pa, ram_walk_only, true)
                         : translate_xlen(h, va, acc, len, pa, ram_walk_only, false);
}

