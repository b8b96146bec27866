/* The run cache of include/rvtrace/flow.h: direct mapped by start address
 * (the lookup is inline there; this is the rest). */

#include <stdatomic.h>

#include "rvtrace/common.h"
#include "rvtrace/flow.h"

uint64_t rvt_walk_id(void) {
    static atomic_uint_fast64_t last;
    return (uint64_t)atomic_fetch_add_explicit(&last, 1, memory_order_relaxed) + 1;
}

int rvt_run_cache_new(rvt_run_cache **out, rvt_code_fetch fetch, void *user, unsigned xlen,
                      rvt_insn_classifier classify) {
    /* (a short trace reads the slots of a few pages of code: clearing the
     * whole megabyte first cost it 256 page faults) */
    rvt_run_cache *c = rvt_pages_alloc(sizeof *c);
    if (!c)
        return RVT_E_NOMEM;
    c->fetch = fetch;
    c->user = user;
    c->mask = xlen == 32 ? 0xffffffffull : ~0ull;
    c->classify = classify;
    *out = c;
    return 0;
}

void rvt_run_cache_free(rvt_run_cache *c) { rvt_pages_free(c, sizeof *c); }

const rvt_run *rvt_run_fill(rvt_run_cache *c, uint64_t pc) {
    rvt_run *r = &c->slots[(pc >> 1) & (RVT_RUN_SLOTS - 1)];
    r->valid = true;
    r->start = r->end = pc;
    r->wide = 0;
    r->n = r->units = 0;
    r->has_end = false;
    rvt_insn in;
    while (r->n < RVT_RUN_MAX && c->fetch(c->user, r->end, &in) && rvt_insn_walkable(&in)) {
        unsigned cls = c->classify(&in);
        if (cls) {
            r->has_end = true;
            r->end_class = cls;
            r->end_insn = in;
            break;
        }
        if (in.len == 4)
            r->wide |= 1ull << r->n;
        r->n++;
        r->units += in.len / 2;
        r->end = (r->end + in.len) & c->mask;
    }
    return r;
}

uint64_t rvt_run_addr(const rvt_run_cache *c, const rvt_run *r, uint32_t i) {
    uint64_t a = r->start;
    for (uint32_t k = 0; k < i; k++)
        a += (r->wide >> k) & 1 ? 4 : 2;
    return a & c->mask;
}
