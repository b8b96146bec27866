/* The cache model: instruction and data caches shared by the harts and a
 * second level behind both, behaving as spike's cache simulator does
 * (--ic, --dc, --l2), so that the counts are the ones spike prints.
 *
 * What that takes, from spike's behaviour: a line is looked up by the
 * address an access starts at, whatever its length; a miss allocates
 * (stores too: write-allocate, write-back) into a way chosen by a 32-bit
 * Galois LFSR (taps 0xd0000001, from 1, one per cache) modulo the ways,
 * whether or not a way is free; a dirty victim is written back to the next
 * level as a write of the whole line, then the line is read from it. A
 * cache of one set and more than four ways keeps its lines ordered by line
 * address, takes the LFSR's choice as a rank in that order, and draws only
 * when it is full. The accesses are an instruction's fetch (one per
 * instruction that is fetched, at its physical address; a CSR instruction
 * twice, as spike runs it a first time only to serialise, fetching it again
 * for the real execution), and each load and
 * store the instruction makes (an AMO a load and a store; a failing SC
 * none), devices included; page-table walks and the host's own reads and
 * writes of memory are not. */
#include <stdlib.h>

#include "hart_internal.h"

#define LINE_VALID (1ull << 63)
#define LINE_DIRTY (1ull << 62)
#define LINE_NUMBER (~(LINE_VALID | LINE_DIRTY))

typedef struct cache {
    unsigned sets, ways, block, shift;
    bool ordered;    /* one set of more than four ways: lines kept by address */
    unsigned used;   /* lines in use, when ordered */
    uint64_t *lines; /* sets * ways: line number | VALID | DIRTY */
    uint32_t lfsr;
    unsigned id; /* enum rvt_pmu_cache_id */
    struct cache *next;
    rvt_cache_stats st;
} cache;

struct cache_model {
    cache c[3]; /* by enum rvt_pmu_cache_id */
};

static uint32_t lfsr_next(cache *c) {
    c->lfsr = (c->lfsr >> 1) ^ ((0u - (c->lfsr & 1)) & 0xd0000001u);
    return c->lfsr;
}

/* The first ordered line not below `line`. */
static unsigned ordered_rank(const cache *c, uint64_t line) {
    unsigned lo = 0, hi = c->used;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if ((c->lines[mid] & LINE_NUMBER) < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t *lookup(cache *c, uint64_t line) {
    if (c->ordered) {
        unsigned k = ordered_rank(c, line);
        return k < c->used && (c->lines[k] & LINE_NUMBER) == line ? &c->lines[k] : NULL;
    }
    uint64_t *set = &c->lines[(line & (c->sets - 1)) * c->ways];
    for (unsigned i = 0; i < c->ways; i++)
        if ((set[i] & ~LINE_DIRTY) == (line | LINE_VALID))
            return &set[i];
    return NULL;
}

/* Puts `line` in, returns what it replaced (0: nothing). */
static uint64_t replace(cache *c, uint64_t line) {
    if (!c->ordered) {
        uint64_t *slot = &c->lines[(line & (c->sets - 1)) * c->ways + lfsr_next(c) % c->ways];
        uint64_t victim = *slot;
        *slot = line | LINE_VALID;
        return victim;
    }
    uint64_t victim = 0;
    if (c->used == c->ways) {
        unsigned k = lfsr_next(c) % c->ways;
        victim = c->lines[k];
        memmove(&c->lines[k], &c->lines[k + 1], (c->used - k - 1) * sizeof *c->lines);
        c->used--;
    }
    unsigned k = ordered_rank(c, line);
    memmove(&c->lines[k + 1], &c->lines[k], (c->used - k) * sizeof *c->lines);
    c->lines[k] = line | LINE_VALID;
    c->used++;
    return victim;
}

static void access_line(cache *c, hart *h, uint64_t addr, unsigned bytes, bool store) {
    uint64_t *ev = &h->ev[h->priv][PMU_EV_CACHE + c->id * 4 + (store ? 2 : 0)];
    ev[0]++;
    if (store) {
        c->st.write_accesses++;
        c->st.bytes_written += bytes;
    } else {
        c->st.read_accesses++;
        c->st.bytes_read += bytes;
    }
    uint64_t line = addr >> c->shift, *hit = lookup(c, line);
    if (hit) {
        if (store)
            *hit |= LINE_DIRTY;
        return;
    }
    ev[1]++;
    if (store)
        c->st.write_misses++;
    else
        c->st.read_misses++;
    uint64_t victim = replace(c, line);
    if ((victim & (LINE_VALID | LINE_DIRTY)) == (LINE_VALID | LINE_DIRTY)) {
        if (c->next)
            access_line(c->next, h, (victim & LINE_NUMBER) << c->shift, c->block, true);
        c->st.writebacks++;
    }
    if (c->next)
        access_line(c->next, h, addr & ~(uint64_t)(c->block - 1), c->block, false);
    if (store)
        *lookup(c, line) |= LINE_DIRTY;
}

void cache_fetch(hart *h) {
    cache *c = &h->m->caches->c[RVT_PMU_CACHE_L1I];
    uint64_t pa;
    const rvt_insn *in;
    /* (a fetch that faults is not an access: the run reports the fault) */
    if (!c->lines || !mmu_translate(h, h->pc, ACC_FETCH, 2, &pa) || !(in = bus_fetch(h->m, pa)))
        return;
    unsigned len = in->len ? in->len : 2;
    access_line(c, h, pa, len, false);
    switch (in->op) {
    case RVT_OP_CSRRW: case RVT_OP_CSRRS: case RVT_OP_CSRRC: case RVT_OP_CSRRWI: case RVT_OP_CSRRSI: case RVT_OP_CSRRCI:
        access_line(c, h, pa, len, false);
        break;
    default:
        break;
    }
}

void cache_data(hart *h, uint64_t pa, unsigned len, bool store) {
    cache *c = &h->m->caches->c[RVT_PMU_CACHE_L1D];
    if (c->lines)
        access_line(c, h, pa, len, store);
}

bool cache_has(const hart_machine *m, unsigned id) { return m->caches && id < 3 && m->caches->c[id].lines; }

static int geometry_check(const rvt_cache_geometry *g, const char *name, rvt_diag *diag) {
    if (!g->sets)
        return RVT_OK;
    if ((g->sets & (g->sets - 1)) || !g->ways || g->ways > 4096 || g->block < 8 || (g->block & (g->block - 1)) ||
        g->sets > (1u << 20) || g->block > (1u << 20) || (uint64_t)g->sets * g->ways > (1u << 24))
        return rvt_diag_set(diag, RVT_E_ARG,
                            "%s cache %u:%u:%u: sets a power of two up to 2^20, 1..4096 ways, at most 2^24 lines, "
                            "a block a power of two of 8 bytes to 1 MiB",
                            name, g->sets, g->ways, g->block);
    return RVT_OK;
}

int cache_model_new(hart_machine *m, const rvt_machine_config *cfg, rvt_diag *diag) {
    const rvt_cache_geometry *g[3] = {&cfg->dcache, &cfg->icache, &cfg->l2};
    static const char *const names[3] = {"data", "instruction", "second-level"};
    int rc;
    bool any = false;
    for (unsigned i = 0; i < 3; i++) {
        if ((rc = geometry_check(g[i], names[i], diag)) != RVT_OK)
            return rc;
        any |= g[i]->sets != 0;
    }
    if (!any)
        return RVT_OK;
    struct cache_model *cm = calloc(1, sizeof *cm);
    if (!cm)
        return RVT_E_NOMEM;
    m->caches = cm;
    for (unsigned i = 0; i < 3; i++) {
        cache *c = &cm->c[i];
        if (!g[i]->sets)
            continue;
        c->sets = g[i]->sets;
        c->ways = g[i]->ways;
        c->block = g[i]->block;
        while ((1u << c->shift) < c->block)
            c->shift++;
        c->ordered = c->sets == 1 && c->ways > 4;
        c->lfsr = 1;
        c->id = i;
        if (!(c->lines = calloc((size_t)c->sets * c->ways, sizeof *c->lines)))
            return RVT_E_NOMEM;
    }
    if (cm->c[RVT_PMU_CACHE_LL].lines) {
        cm->c[RVT_PMU_CACHE_L1D].next = &cm->c[RVT_PMU_CACHE_LL];
        cm->c[RVT_PMU_CACHE_L1I].next = &cm->c[RVT_PMU_CACHE_LL];
    }
    return RVT_OK;
}

void cache_model_free(hart_machine *m) {
    if (!m->caches)
        return;
    for (unsigned i = 0; i < 3; i++)
        free(m->caches->c[i].lines);
    free(m->caches);
    m->caches = NULL;
}

bool cache_stats(const hart_machine *m, unsigned id, rvt_cache_stats *out) {
    if (!cache_has(m, id))
        return false;
    *out = m->caches->c[id].st;
    return true;
}

int rvt_parse_cache_geometry(const char *spec, rvt_cache_geometry *g, rvt_diag *diag) {
    unsigned long v[3];
    const char *p = spec;
    for (int i = 0; i < 3; i++) {
        char *end;
        if (*p < '0' || *p > '9')
            goto bad;
        v[i] = strtoul(p, &end, 10);
        if (v[i] > (1ul << 20) || *end != (i < 2 ? ':' : '\0'))
            goto bad;
        p = end + 1;
    }
    rvt_cache_geometry parsed = {(unsigned)v[0], (unsigned)v[1], (unsigned)v[2]};
    if (!parsed.sets)
        goto bad;
    int rc = geometry_check(&parsed, "the", diag);
    if (rc == RVT_OK)
        *g = parsed;
    return rc;
bad:
    return rvt_diag_set(diag, RVT_E_ARG, "'%s' is not a cache geometry SETS:WAYS:BLOCKSIZE", spec);
}
