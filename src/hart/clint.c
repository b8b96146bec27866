/* SiFive's core-local interruptor as spike maps it: msip per hart at 0,
 * mtimecmp per hart at 0x4000, mtime at 0xbff8. It drives each hart's
 * machine software and timer interrupt lines; mtime is the machine's
 * timebase (hart_machine.mtime), which the scheduler moves on. */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

typedef struct clint {
    device dev;
    uint64_t mtimecmp[RVT_MAX_HARTS];
    uint32_t msip[RVT_MAX_HARTS];
} clint;

/* The register that holds `off`: its place, its offset and width in the
 * window; NULL when none does. */
static void *clint_register(clint *c, uint64_t off, uint64_t *reg_off, unsigned *width) {
    rvt_machine *m = c->dev.m;
    if (off < 0x4000) {
        unsigned i = (unsigned)(off / 4);
        *reg_off = i * 4u;
        *width = 4;
        return i < m->nharts ? &c->msip[i] : NULL;
    }
    if (off < 0xbff8) {
        unsigned i = (unsigned)((off - 0x4000) / 8);
        *reg_off = 0x4000 + i * 8u;
        *width = 8;
        return i < m->nharts ? &c->mtimecmp[i] : NULL;
    }
    if (off < 0xc000) {
        *reg_off = 0xbff8;
        *width = 8;
        return &m->core.mtime;
    }
    return NULL;
}

static bool clint_access(device *d, uint64_t off, void *data, unsigned len, bool write) {
    clint *c = (clint *)d;
    uint64_t reg_off;
    unsigned width;
    void *reg = clint_register(c, off, &reg_off, &width);
    if (!reg || off - reg_off + len > width)
        return false;
    uint64_t v = 0;
    memcpy(&v, reg, width); /* (little-endian host: the low bytes of v) */
    if (!write) {
        memcpy(data, (uint8_t *)&v + (off - reg_off), len);
        return true;
    }
    memcpy((uint8_t *)&v + (off - reg_off), data, len);
    if (width == 4)
        v &= 1; /* msip: one bit */
    memcpy(reg, &v, width);
    /* A write of mtime moves the machine's time, which more than the CLINT
     * depends on (the SBI environment's timer); the others change only its
     * own lines, which that brings up to date too. */
    machine_time_moved(d->m);
    return true;
}

static bool clint_load(device *d, uint64_t off, void *data, unsigned len) {
    return clint_access(d, off, data, len, false);
}

static bool clint_store(device *d, uint64_t off, const void *data, unsigned len) {
    return clint_access(d, off, (void *)data, len, true);
}

static void clint_tick(device *d) {
    clint *c = (clint *)d;
    rvt_machine *m = d->m;
    for (unsigned i = 0; i < m->nharts; i++) {
        machine_set_irq_line(m, &m->harts[i], IRQ_M_TIMER, m->core.mtime >= c->mtimecmp[i]);
        machine_set_irq_line(m, &m->harts[i], IRQ_M_SOFT, c->msip[i] & 1);
    }
}

static bool clint_wake_time(const device *d, const hart *h, uint64_t *when) {
    if (!((h->mie >> IRQ_M_TIMER) & 1))
        return false;
    *when = ((const clint *)d)->mtimecmp[h->id];
    return true;
}

/* Each hart's machine software and timer interrupt. */
static int clint_describe(const device *d, void *fdt, int soc) {
    static const char compatible[] = "riscv,clint0";
    int node = board_fdt_device(fdt, soc, d, "clint", compatible, sizeof compatible);
    if (node < 0)
        return node;
    unsigned nharts = d->m->nharts;
    fdt32_t irqs[4 * RVT_MAX_HARTS];
    for (unsigned i = 0; i < nharts; i++) {
        irqs[4 * i] = irqs[4 * i + 2] = cpu_to_fdt32(BOARD_INTC_PHANDLE(i));
        irqs[4 * i + 1] = cpu_to_fdt32(IRQ_M_SOFT);
        irqs[4 * i + 3] = cpu_to_fdt32(IRQ_M_TIMER);
    }
    return fdt_setprop(fdt, node, "interrupts-extended", irqs, (int)(16 * nharts));
}

static const device_ops clint_ops = {
    .name = "clint",
    .load = clint_load,
    .store = clint_store,
    .tick = clint_tick,
    .wake_time = clint_wake_time,
    .describe = clint_describe,
    .host_may_store = true,
};

device *clint_new(rvt_machine *m, uint64_t base) {
    clint *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->dev = (device){&clint_ops, m, base, CLINT_SIZE};
    return &c->dev;
}
