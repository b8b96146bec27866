/* The platform's device interface. The machine keeps a table of memory-mapped
 * devices beside its RAM and ROM regions; a physical access that no memory
 * region holds goes to the device whose window holds it, as an offset into
 * that window. A device drives interrupt lines of the harts
 * (machine_set_irq_line) from its own state, whenever that state or mtime
 * changes. A new device is a file with its operations and a constructor, and
 * one line where the machine is built (machine.c). A device is one
 * allocation, which the machine frees. */
#ifndef RVTRACE_HART_DEVICE_H
#define RVTRACE_HART_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

struct rvt_machine;
struct hart;
typedef struct device device;

typedef struct device_ops {
    const char *name;
    /* false: nothing answers at that offset and width (an access fault) */
    bool (*load)(device *d, uint64_t off, void *data, unsigned len);
    bool (*store)(device *d, uint64_t off, const void *data, unsigned len);
    /* mtime moved, or the device's state was set from outside: its interrupt
     * lines follow. NULL: it has no lines that depend on time. */
    void (*tick)(device *d);
    /* Whether the device will raise a line that wakes `h` from WFI as its
     * mie stands, and at which mtime (*when), for an idle machine to skip
     * ahead to. NULL: it never does. */
    bool (*wake_time)(const device *d, const struct hart *h, uint64_t *when);
    /* An interrupt controller's input: source `source` drives its line to
     * `level` (machine_set_source). NULL: the device is not one. */
    void (*set_source)(device *d, unsigned source, bool level);
    /* The host's input the device waits for (its file descriptor, or -1):
     * an idle machine waits on it rather than skipping time ahead. NULL: none. */
    int (*input_fd)(const device *d);
    /* Its input is ready: it reads what is there. */
    void (*read_input)(device *d);
    /* Adds its node under the device tree's `soc` node: 0, or a libfdt error. */
    int (*describe)(const device *d, void *fdt, int soc);
    /* Its registers are plain state: the host may store into them (the
     * tandem verifier sets what a trace says a load returned) with no side
     * effect a program could see, as it stores into RAM. */
    bool host_may_store;
} device_ops;

struct device {
    const device_ops *ops;
    struct rvt_machine *m;
    uint64_t base, size;
};

#define RVT_MAX_DEVICES 8

/* Adds a device to the machine's table (which owns it from then on, also on
 * failure): RVT_E_RANGE when its window overlaps another's or the table is
 * full, RVT_E_NOMEM for a NULL device (its constructor failed). */
int machine_add_device(struct rvt_machine *m, device *d);
/* The device whose window holds [pa, pa + len), or NULL. */
device *machine_device_at(struct rvt_machine *m, uint64_t pa, unsigned len);
/* mtime moved (or was set): every device brings its lines up to date. */
void machine_tick_devices(struct rvt_machine *m);
/* A device's interrupt line into the machine's interrupt controller (the
 * PLIC's source `source`); nothing when the machine has none. */
void machine_set_source(struct rvt_machine *m, unsigned source, bool level);
/* A device drives hart h's interrupt line `irq` (a bit of mip) to `level`
 * (hart_set_irq_line), unless the host holds the lines
 * (rvt_machine_hold_device_lines). */
void machine_set_irq_line(struct rvt_machine *m, struct hart *h, unsigned irq, bool level);

/* For describe: the node `kind`@base under `soc`, with its `compatible`
 * (`len` bytes: a list of strings) and its window as `reg`: the node's
 * offset, or a negative libfdt error; the phandle of hart i's interrupt
 * controller, which interrupts-extended properties name. */
int board_fdt_device(void *fdt, int soc, const device *d, const char *kind, const char *compatible, int len);
#define BOARD_INTC_PHANDLE(i) ((i) + 1u)
#define BOARD_PLIC_PHANDLE 0x100u /* (above every hart's) */

/* The devices (one file each). */
#define TIMEBASE_HZ 10000000u /* what the model's mtime stands for (spike's) */
#define CLINT_BASE 0x2000000u
#define CLINT_SIZE 0xc0000u
#define PLIC_BASE 0xc000000u
#define PLIC_SIZE 0x1000000u
#define UART_BASE 0x10000000u
#define UART_PLIC_SOURCE 1u
#define UART_SIZE 0x100u
#define FINISHER_BASE 0x100000u
#define FINISHER_SIZE 0x1000u
/* SiFive's CLINT: msip, mtimecmp per hart and mtime (the machine's). */
device *clint_new(struct rvt_machine *m, uint64_t base);
/* The platform-level interrupt controller: the machine's interrupt
 * controller once added (machine_set_source). */
device *plic_new(struct rvt_machine *m, uint64_t base);
/* An ns16550a as the console: it transmits to the machine's console file,
 * receives from its console input (when given), and interrupts through
 * the interrupt controller's source `source`. */
device *uart_new(struct rvt_machine *m, uint64_t base, unsigned source);
/* SiFive's test finisher: power-off with an exit status. */
device *finisher_new(struct rvt_machine *m, uint64_t base);

#endif
