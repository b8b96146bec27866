/* The machine for supervisor software (`--sbi`, `--firmware`): beside RAM
 * and the CLINT, an ns16550a UART as the console, a SiFive test finisher for
 * power-off, and a device tree describing all of it (built with libfdt),
 * in the boot ROM at 0x1020 as spike places it and, for --sbi payloads, in
 * RAM below its top. */
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "machine.h"

/* ---- the device tree */

static int fdt_reg(void *fdt, int node, uint64_t base, uint64_t size) {
    fdt64_t cells[2] = {cpu_to_fdt64(base), cpu_to_fdt64(size)};
    return fdt_setprop(fdt, node, "reg", cells, sizeof cells);
}

int board_fdt_device(void *fdt, int soc, const device *d, const char *kind, const char *compatible, int len) {
    char name[64];
    snprintf(name, sizeof name, "%s@%llx", kind, (unsigned long long)d->base);
    int node = fdt_add_subnode(fdt, soc, name);
    if (node < 0)
        return node;
    int rc = fdt_setprop(fdt, node, "compatible", compatible, len);
    rc = rc ? rc : fdt_reg(fdt, node, d->base, d->size);
    return rc ? rc : node;
}

/* The ISA string of the hart: what misa says, and the extensions beyond. */
static void isa_string(const rvt_machine *m, char *out, size_t cap) {
    snprintf(out, cap, "rv%uimafdc_zicsr_zifencei_zicntr_zihpm_sscofpmf%s", m->xlen,
             m->cfg.ctr_version == RVT_CTR_NONE ? "" : "_smcsrind_sscsrind_smstateen_smctr_ssctr");
}

/* The events of docs/pmu.md for OpenSBI and Linux: event_idx -> the
 * mhpmevent value, and which counters (all of 3..31) count them. */
static int pmu_node(void *fdt, int parent) {
    int node = fdt_add_subnode(fdt, parent, "pmu");
    if (node < 0)
        return node;
    static const uint32_t general[][2] = {{0x1, 0x1}, {0x2, 0x2}, {0x5, 0x5}, {0xa, 0xa}};
    fdt32_t map[4 * 3], counters[4 * 3];
    for (unsigned i = 0; i < 4; i++) {
        map[3 * i] = cpu_to_fdt32(general[i][0]);     /* event_idx */
        map[3 * i + 1] = cpu_to_fdt32(0);             /* mhpmevent, high */
        map[3 * i + 2] = cpu_to_fdt32(general[i][1]); /* mhpmevent, low */
        counters[3 * i] = cpu_to_fdt32(general[i][0]);
        counters[3 * i + 1] = cpu_to_fdt32(general[i][0]);
        counters[3 * i + 2] = cpu_to_fdt32(0xfffffff8); /* mhpmcounter3..31 */
    }
    /* raw events: selector 0 under mask 0 (any value), on any counter */
    fdt32_t raw[5] = {cpu_to_fdt32(0), cpu_to_fdt32(0), cpu_to_fdt32(0), cpu_to_fdt32(0),
                      cpu_to_fdt32(0xfffffff8)};
    int rc = fdt_setprop_string(fdt, node, "compatible", "riscv,pmu");
    rc = rc ? rc : fdt_setprop(fdt, node, "riscv,event-to-mhpmevent", map, sizeof map);
    rc = rc ? rc : fdt_setprop(fdt, node, "riscv,event-to-mhpmcounters", counters, sizeof counters);
    rc = rc ? rc : fdt_setprop(fdt, node, "riscv,raw-event-to-mhpmcounters", raw, sizeof raw);
    return rc;
}

int board_device_tree(rvt_machine *m, void *buf, size_t cap, uint64_t ram_base, uint64_t ram_size,
                      uint64_t initrd_start, uint64_t initrd_end) {
    int rc = fdt_create_empty_tree(buf, (int)cap);
    if (rc)
        return rc;
    void *fdt = buf;
    int root = 0, node, cpus, cpu, intc, soc;
    rc = fdt_setprop_u32(fdt, root, "#address-cells", 2);
    rc = rc ? rc : fdt_setprop_u32(fdt, root, "#size-cells", 2);
    rc = rc ? rc : fdt_setprop_string(fdt, root, "compatible", "rvtrace,hart-model");
    rc = rc ? rc : fdt_setprop_string(fdt, root, "model", "rvtrace hart model");
    if (rc)
        return rc;

    if ((node = fdt_add_subnode(fdt, root, "chosen")) < 0)
        return node;
    rc = fdt_setprop_string(fdt, node, "stdout-path", "/soc/serial@10000000");
    if (!rc && m->cfg.bootargs)
        rc = fdt_setprop_string(fdt, node, "bootargs", m->cfg.bootargs);
    if (!rc && initrd_end > initrd_start) {
        rc = fdt_setprop_u64(fdt, node, "linux,initrd-start", initrd_start);
        rc = rc ? rc : fdt_setprop_u64(fdt, node, "linux,initrd-end", initrd_end);
    }
    if (rc)
        return rc;

    if ((cpus = fdt_add_subnode(fdt, root, "cpus")) < 0)
        return cpus;
    rc = fdt_setprop_u32(fdt, cpus, "#address-cells", 1);
    rc = rc ? rc : fdt_setprop_u32(fdt, cpus, "#size-cells", 0);
    rc = rc ? rc : fdt_setprop_u32(fdt, cpus, "timebase-frequency", TIMEBASE_HZ);
    if (rc)
        return rc;
    char isa[160];
    isa_string(m, isa, sizeof isa);
    /* fdt_add_subnode puts a node first among its siblings: cpu@0 ends first */
    for (unsigned i = m->nharts; i-- > 0;) {
        char name[16];
        snprintf(name, sizeof name, "cpu@%u", i);
        if ((cpu = fdt_add_subnode(fdt, cpus, name)) < 0)
            return cpu;
        rc = fdt_setprop_string(fdt, cpu, "device_type", "cpu");
        rc = rc ? rc : fdt_setprop_u32(fdt, cpu, "reg", i);
        rc = rc ? rc : fdt_setprop_string(fdt, cpu, "status", "okay");
        rc = rc ? rc : fdt_setprop_string(fdt, cpu, "compatible", "riscv");
        rc = rc ? rc : fdt_setprop_string(fdt, cpu, "riscv,isa", isa);
        rc = rc ? rc : fdt_setprop_string(fdt, cpu, "mmu-type", m->xlen == 64 ? "riscv,sv39" : "riscv,sv32");
        if (rc || (intc = fdt_add_subnode(fdt, cpu, "interrupt-controller")) < 0)
            return rc ? rc : intc;
        rc = fdt_setprop_u32(fdt, intc, "#interrupt-cells", 1);
        rc = rc ? rc : fdt_setprop(fdt, intc, "interrupt-controller", NULL, 0);
        rc = rc ? rc : fdt_setprop_string(fdt, intc, "compatible", "riscv,cpu-intc");
        rc = rc ? rc : fdt_setprop_u32(fdt, intc, "phandle", BOARD_INTC_PHANDLE(i));
        if (rc)
            return rc;
    }

    char name[40];
    snprintf(name, sizeof name, "memory@%llx", (unsigned long long)ram_base);
    if ((node = fdt_add_subnode(fdt, root, name)) < 0)
        return node;
    rc = fdt_setprop_string(fdt, node, "device_type", "memory");
    rc = rc ? rc : fdt_reg(fdt, node, ram_base, ram_size);
    if (rc)
        return rc;

    if ((soc = fdt_add_subnode(fdt, root, "soc")) < 0)
        return soc;
    rc = fdt_setprop_u32(fdt, soc, "#address-cells", 2);
    rc = rc ? rc : fdt_setprop_u32(fdt, soc, "#size-cells", 2);
    rc = rc ? rc : fdt_setprop_string(fdt, soc, "compatible", "simple-bus");
    rc = rc ? rc : fdt_setprop(fdt, soc, "ranges", NULL, 0);
    for (unsigned i = 0; i < m->ndevices && !rc; i++)
        rc = m->devices[i]->ops->describe(m->devices[i], fdt, soc);
    if (rc)
        return rc;
    if (m->htif.has_tohost) {
        if ((node = fdt_add_subnode(fdt, soc, "htif")) < 0)
            return node;
        rc = fdt_setprop_string(fdt, node, "compatible", "ucb,htif0");
        if (rc)
            return rc;
    }
    rc = pmu_node(fdt, soc);
    rc = rc ? rc : fdt_pack(fdt);
    return rc ? rc : (int)fdt_totalsize(fdt);
}
