/* The machine for supervisor software (`--sbi`, `--firmware`): beside RAM
 * and the CLINT, an ns16550a UART as the console, a SiFive test finisher for
 * power-off, and a device tree describing all of it (built with libfdt),
 * in the boot ROM at 0x1020 as spike places it and, for --sbi payloads, in
 * RAM below its top. */
#include <libfdt.h>
#include <stdio.h>
#include <string.h>

#include "hart_internal.h"

#define UART_BASE 0x10000000u
#define UART_SIZE 0x100u
#define FINISHER_BASE 0x100000u
#define FINISHER_SIZE 0x1000u
#define TIMEBASE_HZ 10000000u /* what the model's mtime stands for (spike's) */

/* ---- ns16550a: transmit only; the line is always ready, nothing arrives */

static bool uart_access(rvt_machine *m, uint64_t off, void *data, unsigned len, bool write) {
    if (len != 1)
        return false;
    uint8_t *b = data;
    bool dlab = (m->uart_lcr & 0x80) != 0;
    if (write) {
        if (off == 0 && !dlab) {
            fputc(*b, m->console);
            if (*b == '\n')
                fflush(m->console);
        } else if (off == 3) {
            m->uart_lcr = *b;
        } else if (off == 1 && !dlab) {
            m->uart_ier = *b;
        } else if (off == 7) {
            m->uart_scr = *b;
        }
        return true;
    }
    switch (off) {
    case 1: *b = dlab ? 0 : m->uart_ier; break;
    case 2: *b = 0xc1; break;  /* IIR: FIFOs on, no interrupt pending */
    case 3: *b = m->uart_lcr; break;
    case 5: *b = 0x60; break;  /* LSR: transmitter empty, no data */
    case 6: *b = 0xb0; break;  /* MSR: CTS, DSR, DCD */
    case 7: *b = m->uart_scr; break;
    default: *b = 0; break;
    }
    return true;
}

/* ---- SiFive test finisher: 0x5555 pass, 0x3333 | code << 16 fail, 0x7777 reset */

static bool finisher_access(rvt_machine *m, uint64_t off, void *data, unsigned len, bool write) {
    if (!write) {
        memset(data, 0, len);
        return true;
    }
    if (off != 0 || len < 2)
        return true;
    uint32_t v = 0; /* a 16-bit write (OpenSBI's) carries the status alone */
    memcpy(&v, data, len < 4 ? len : 4);
    unsigned status = v & 0xffff;
    if (status == 0x5555 || status == 0x3333 || status == 0x7777) {
        m->stop = true;
        m->stop_reason = RVT_STOP_EXIT;
        m->exit_code = status == 0x3333 ? (int)(v >> 16) : 0;
        if (status == 0x3333 && m->exit_code == 0)
            m->exit_code = 1;
    }
    return true;
}

/* A device access of the board machine; false when nothing is there. */
bool board_access(rvt_machine *m, uint64_t pa, void *data, unsigned len, bool write) {
    if (!m->cfg.board)
        return false;
    if (pa - UART_BASE < UART_SIZE)
        return uart_access(m, pa - UART_BASE, data, len, write);
    if (pa - FINISHER_BASE < FINISHER_SIZE)
        return finisher_access(m, pa - FINISHER_BASE, data, len, write);
    return false;
}

/* ---- the device tree */

static int reg64(void *fdt, int node, uint64_t base, uint64_t size) {
    fdt64_t cells[2] = {cpu_to_fdt64(base), cpu_to_fdt64(size)};
    return fdt_setprop(fdt, node, "reg", cells, sizeof cells);
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
        rc = rc ? rc : fdt_setprop_u32(fdt, intc, "phandle", i + 1);
        if (rc)
            return rc;
    }

    char name[40];
    snprintf(name, sizeof name, "memory@%llx", (unsigned long long)ram_base);
    if ((node = fdt_add_subnode(fdt, root, name)) < 0)
        return node;
    rc = fdt_setprop_string(fdt, node, "device_type", "memory");
    rc = rc ? rc : reg64(fdt, node, ram_base, ram_size);
    if (rc)
        return rc;

    if ((soc = fdt_add_subnode(fdt, root, "soc")) < 0)
        return soc;
    rc = fdt_setprop_u32(fdt, soc, "#address-cells", 2);
    rc = rc ? rc : fdt_setprop_u32(fdt, soc, "#size-cells", 2);
    rc = rc ? rc : fdt_setprop_string(fdt, soc, "compatible", "simple-bus");
    rc = rc ? rc : fdt_setprop(fdt, soc, "ranges", NULL, 0);
    if (rc || (node = fdt_add_subnode(fdt, soc, "clint@2000000")) < 0)
        return rc ? rc : node;
    fdt32_t irqs[4 * RVT_MAX_HARTS];
    for (unsigned i = 0; i < m->nharts; i++) { /* each hart's software and timer interrupt */
        irqs[4 * i] = irqs[4 * i + 2] = cpu_to_fdt32(i + 1);
        irqs[4 * i + 1] = cpu_to_fdt32(IRQ_M_SOFT);
        irqs[4 * i + 3] = cpu_to_fdt32(IRQ_M_TIMER);
    }
    rc = fdt_setprop_string(fdt, node, "compatible", "riscv,clint0");
    rc = rc ? rc : fdt_setprop(fdt, node, "interrupts-extended", irqs, 16 * m->nharts);
    rc = rc ? rc : reg64(fdt, node, 0x2000000, 0xc0000);
    if (rc || (node = fdt_add_subnode(fdt, soc, "serial@10000000")) < 0)
        return rc ? rc : node;
    rc = fdt_setprop_string(fdt, node, "compatible", "ns16550a");
    rc = rc ? rc : reg64(fdt, node, UART_BASE, UART_SIZE);
    rc = rc ? rc : fdt_setprop_u32(fdt, node, "clock-frequency", 3686400);
    if (rc || (node = fdt_add_subnode(fdt, soc, "test@100000")) < 0)
        return rc ? rc : node;
    static const char finisher[] = "sifive,test1\0sifive,test0\0syscon";
    rc = fdt_setprop(fdt, node, "compatible", finisher, sizeof finisher);
    rc = rc ? rc : reg64(fdt, node, FINISHER_BASE, FINISHER_SIZE);
    if (rc)
        return rc;
    if (m->has_tohost) {
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
