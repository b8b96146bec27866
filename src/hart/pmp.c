/* Physical memory protection as spike implements it by default: up to 64
 * entries (16 unless --pmpregions says otherwise), 4-byte granularity, no
 * Smepmp (mseccfg does not exist, so MML, MMWP and RLB are all 0). An
 * access is checked against the first entry that matches any of its 4-byte
 * granules: it must match all of them, and that entry's R/W/X bits decide,
 * except that M-mode passes entries that are not locked. An access that no
 * entry matches is allowed in M-mode only. */
#include "hart_internal.h"

enum { PMP_R = 1, PMP_W = 2, PMP_X = 4, PMP_A = 0x18, PMP_L = 0x80 };
enum { A_OFF = 0, A_TOR = 0x08, A_NA4 = 0x10, A_NAPOT = 0x18 };

/* The inclusive byte range entry i covers; false when it covers nothing. */
static bool entry_range(const hart *h, unsigned i, uint64_t *lo, uint64_t *hi) {
    uint8_t cfg = h->pmpcfg[i];
    uint64_t top = h->pmpaddr[i] << 2;
    switch (cfg & PMP_A) {
    case A_TOR: {
        uint64_t base = i ? h->pmpaddr[i - 1] << 2 : 0;
        if (base >= top)
            return false;
        *lo = base;
        *hi = top - 1;
        return true;
    }
    case A_NA4:
    case A_NAPOT: {
        /* NAPOT: the trailing ones of pmpaddr, plus one, give log2(size) - 3. */
        uint64_t ones = (h->pmpaddr[i] << 1) | ((cfg & PMP_A) == A_NAPOT);
        uint64_t low = ((ones & ~(ones + 1)) << 2) | 3; /* offset bits within the region */
        *lo = top & ~low;
        *hi = *lo | low;
        return true;
    }
    default:
        return false;
    }
}

void pmp_changed(hart *h) {
    h->pmp_gen++;
    h->translation_changed = true; /* a TLB entry knows whether PMP allows its page */
    h->pmp_nranges = 0;
    /* (without PMP every access is allowed) */
    const struct pmp_span none = {~0ull, 0}, all = {0, ~0ull};
    for (unsigned acc = 0; acc < 3; acc++)
        for (unsigned mode = 0; mode < 4; mode++)
            h->pmp_allowed[acc][mode] = h->m->pmp_regions ? none : all;
    for (unsigned i = 0; i < h->m->pmp_regions; i++) {
        struct pmp_range *e = &h->pmp_ranges[h->pmp_nranges];
        if (entry_range(h, i, &e->lo, &e->hi)) {
            e->cfg = h->pmpcfg[i];
            h->pmp_nranges++;
        }
    }
}

bool pmp_decide(hart *h, uint64_t pa, uint64_t len, enum access acc, unsigned mode) {
    if (h->m->pmp_regions == 0)
        return true;
    uint64_t first = pa & ~3ull, last = (pa + len - 1) | 3;
    struct pmp_span *known = &h->pmp_allowed[acc][mode];
    /* The entries before the one that decides lie wholly below or above the
     * access: between the nearest of them the same entry decides. */
    uint64_t lo = 0, hi = ~0ull;
    for (unsigned i = 0; i < h->pmp_nranges; i++) {
        const struct pmp_range *e = &h->pmp_ranges[i];
        if (e->hi < first) {
            lo = e->hi + 1 > lo ? e->hi + 1 : lo;
            continue;
        }
        if (e->lo > last) {
            hi = e->lo - 1 < hi ? e->lo - 1 : hi;
            continue;
        }
        if (e->lo > first || e->hi < last)
            return false; /* the entry matches only part of the access */
        uint8_t cfg = e->cfg;
        uint8_t need = acc == ACC_FETCH ? PMP_X : acc == ACC_LOAD ? PMP_R : PMP_W;
        if ((mode == PRV_M && !(cfg & PMP_L)) || (cfg & need)) {
            *known = (struct pmp_span){lo > e->lo ? lo : e->lo, hi < e->hi ? hi : e->hi};
            return true;
        }
        return false;
    }
    if (mode != PRV_M)
        return false;
    *known = (struct pmp_span){lo, hi}; /* no entry there */
    return true;
}

/* pmpaddr i cannot be written while entry i is locked, nor while entry i+1
 * is a locked TOR entry (whose base it is). */
bool pmp_addr_locked(const hart *h, unsigned i) {
    if (h->pmpcfg[i] & PMP_L)
        return true;
    return i + 1 < h->m->pmp_regions && (h->pmpcfg[i + 1] & PMP_L) && (h->pmpcfg[i + 1] & PMP_A) == A_TOR;
}
