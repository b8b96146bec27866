/* The platform-level interrupt controller as SiFive's PLIC (riscv,plic0)
 * lays it out and spike configures it: 31 sources with 4-bit priorities, and
 * per hart two contexts, M (context 2i, the hart's MEIP line) and S (2i+1,
 * SEIP). Sources are level-triggered: a source is pending while its line is
 * high and it is not claimed; a claim takes the highest-priority pending
 * source the context enables (the lowest number among equals) until the
 * context completes it. A context's line is up while a pending source it
 * enables has a priority above its threshold.
 *
 * Registers: priority of source s at 4s; pending bits at 0x1000; the enable
 * bits of context c at 0x2000 + 0x80c; its threshold at 0x200000 + 0x1000c
 * and claim/complete 4 bytes after. All are 32 bits wide. */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

#define PLIC_SOURCES 32 /* source 0 is "none" */
#define PLIC_PRIORITY_MASK 0xfu
#define PLIC_CONTEXTS (2 * RVT_MAX_HARTS)

typedef struct plic {
    device dev;
    uint32_t priority[PLIC_SOURCES];
    uint32_t level;   /* the sources' lines */
    uint32_t claimed; /* claimed and not completed yet */
    struct plic_context {
        uint32_t enable, threshold;
    } context[PLIC_CONTEXTS];
    unsigned ncontexts;
} plic;

static uint32_t plic_pending(const plic *p) { return p->level & ~p->claimed & ~1u; }

/* The source a claim by context c takes now: 0 for none. */
static unsigned plic_best(const plic *p, unsigned c) {
    uint32_t ready = plic_pending(p) & p->context[c].enable;
    unsigned best = 0;
    uint32_t best_priority = p->context[c].threshold;
    for (unsigned s = 1; s < PLIC_SOURCES; s++)
        if ((ready >> s) & 1 && p->priority[s] > best_priority) {
            best = s;
            best_priority = p->priority[s];
        }
    return best;
}

/* Every context's line follows the sources. */
static void plic_update(plic *p) {
    rvt_machine *m = p->dev.m;
    for (unsigned c = 0; c < p->ncontexts; c++)
        machine_set_irq_line(m, &m->harts[c / 2], c & 1 ? IRQ_S_EXT : IRQ_M_EXT, plic_best(p, c) != 0);
}

static void plic_set_source(device *d, unsigned source, bool level) {
    plic *p = (plic *)d;
    if (source == 0 || source >= PLIC_SOURCES)
        return;
    uint32_t bit = 1u << source;
    uint32_t now = level ? p->level | bit : p->level & ~bit;
    if (now != p->level) {
        p->level = now;
        plic_update(p);
    }
}

/* The register at `off` (4-byte aligned): NULL for none; *kind tells the
 * claim/complete register apart. */
enum { REG_PLAIN, REG_PRIORITY, REG_PENDING, REG_THRESHOLD, REG_CLAIM };
static uint32_t *plic_register(plic *p, uint64_t off, int *kind, unsigned *context) {
    *kind = REG_PLAIN;
    if (off < 4 * PLIC_SOURCES) {
        *kind = REG_PRIORITY;
        return &p->priority[off / 4];
    }
    if (off == 0x1000) {
        *kind = REG_PENDING;
        return &p->level; /* (read as plic_pending) */
    }
    if (off >= 0x2000 && off < 0x200000) {
        unsigned c = (unsigned)((off - 0x2000) / 0x80);
        return c < p->ncontexts && (off - 0x2000) % 0x80 == 0 ? &p->context[c].enable : NULL;
    }
    if (off >= 0x200000) {
        unsigned c = (unsigned)((off - 0x200000) / 0x1000);
        uint64_t in = (off - 0x200000) % 0x1000;
        if (c >= p->ncontexts || in > 4)
            return NULL;
        *context = c;
        *kind = in == 0 ? REG_THRESHOLD : REG_CLAIM;
        return &p->context[c].threshold;
    }
    return NULL;
}

static bool plic_load(device *d, uint64_t off, void *data, unsigned len) {
    plic *p = (plic *)d;
    if (len != 4 || (off & 3))
        return false;
    int kind;
    unsigned c = 0;
    uint32_t *reg = plic_register(p, off, &kind, &c), v = 0;
    if (kind == REG_PENDING) {
        v = plic_pending(p);
    } else if (kind == REG_CLAIM) {
        v = plic_best(p, c);
        if (v) {
            p->claimed |= 1u << v;
            plic_update(p);
        }
    } else if (reg) {
        v = *reg;
    }
    memcpy(data, &v, 4); /* (reserved offsets read 0) */
    return true;
}

static bool plic_store(device *d, uint64_t off, const void *data, unsigned len) {
    plic *p = (plic *)d;
    if (len != 4 || (off & 3))
        return false;
    uint32_t v;
    memcpy(&v, data, 4);
    int kind;
    unsigned c = 0;
    uint32_t *reg = plic_register(p, off, &kind, &c);
    switch (kind) {
    case REG_PRIORITY:
        if (off)
            *reg = v & PLIC_PRIORITY_MASK;
        break;
    case REG_PENDING: break; /* read-only */
    case REG_THRESHOLD: *reg = v & PLIC_PRIORITY_MASK; break;
    case REG_CLAIM:
        /* completion of a source the context enables ends its claim */
        if (v < PLIC_SOURCES && (p->context[c].enable >> v) & 1)
            p->claimed &= ~(1u << v);
        break;
    default:
        if (reg)
            *reg = v & ~1u; /* enable bits: source 0 does not exist */
        break;
    }
    plic_update(p);
    return true;
}

static int plic_describe(const device *d, void *fdt, int soc) {
    const plic *p = (const plic *)d;
    static const char compatible[] = "riscv,plic0";
    int node = board_fdt_device(fdt, soc, d, "interrupt-controller", compatible, sizeof compatible);
    if (node < 0)
        return node;
    fdt32_t lines[2 * PLIC_CONTEXTS];
    for (unsigned c = 0; c < p->ncontexts; c++) {
        lines[2 * c] = cpu_to_fdt32(BOARD_INTC_PHANDLE(c / 2));
        lines[2 * c + 1] = cpu_to_fdt32(c & 1 ? IRQ_S_EXT : IRQ_M_EXT);
    }
    int rc = fdt_setprop_u32(fdt, node, "#address-cells", 0);
    rc = rc ? rc : fdt_setprop_u32(fdt, node, "#interrupt-cells", 1);
    rc = rc ? rc : fdt_setprop(fdt, node, "interrupt-controller", NULL, 0);
    rc = rc ? rc : fdt_setprop(fdt, node, "interrupts-extended", lines, (int)(8 * p->ncontexts));
    rc = rc ? rc : fdt_setprop_u32(fdt, node, "riscv,ndev", PLIC_SOURCES - 1);
    return rc ? rc : fdt_setprop_u32(fdt, node, "phandle", BOARD_PLIC_PHANDLE);
}

static const device_ops plic_ops = {
    .name = "plic",
    .load = plic_load,
    .store = plic_store,
    .set_source = plic_set_source,
    .describe = plic_describe,
};

device *plic_new(rvt_machine *m, uint64_t base) {
    plic *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->dev = (device){&plic_ops, m, base, PLIC_SIZE};
    p->ncontexts = 2 * m->nharts;
    return &p->dev;
}
