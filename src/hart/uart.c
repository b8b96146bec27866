/* An ns16550a UART as the board machine's console: what the program
 * transmits goes to the machine's console file. Transmit only: the line is
 * always ready, nothing arrives, and no interrupt is ever pending. */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>

#include "hart_internal.h"

typedef struct uart {
    device dev;
    uint8_t lcr, ier, scr;
} uart;

static bool uart_load(device *d, uint64_t off, void *data, unsigned len) {
    const uart *u = (const uart *)d;
    if (len != 1)
        return false;
    uint8_t *b = data;
    bool dlab = (u->lcr & 0x80) != 0;
    switch (off) {
    case 1: *b = dlab ? 0 : u->ier; break;
    case 2: *b = 0xc1; break; /* IIR: FIFOs on, no interrupt pending */
    case 3: *b = u->lcr; break;
    case 5: *b = 0x60; break; /* LSR: transmitter empty, no data */
    case 6: *b = 0xb0; break; /* MSR: CTS, DSR, DCD */
    case 7: *b = u->scr; break;
    default: *b = 0; break;
    }
    return true;
}

static bool uart_store(device *d, uint64_t off, const void *data, unsigned len) {
    uart *u = (uart *)d;
    if (len != 1)
        return false;
    uint8_t b = *(const uint8_t *)data;
    bool dlab = (u->lcr & 0x80) != 0;
    if (off == 0 && !dlab) {
        FILE *console = d->m->console;
        fputc(b, console);
        if (b == '\n')
            fflush(console);
    } else if (off == 3) {
        u->lcr = b;
    } else if (off == 1 && !dlab) {
        u->ier = b;
    } else if (off == 7) {
        u->scr = b;
    }
    return true;
}

static int uart_describe(const device *d, void *fdt, int soc) {
    char name[32];
    snprintf(name, sizeof name, "serial@%llx", (unsigned long long)d->base);
    int node = fdt_add_subnode(fdt, soc, name);
    if (node < 0)
        return node;
    int rc = fdt_setprop_string(fdt, node, "compatible", "ns16550a");
    rc = rc ? rc : board_fdt_reg(fdt, node, d->base, d->size);
    return rc ? rc : fdt_setprop_u32(fdt, node, "clock-frequency", 3686400);
}

static void uart_free(device *d) { free(d); }

static const device_ops uart_ops = {
    .name = "ns16550a",
    .load = uart_load,
    .store = uart_store,
    .describe = uart_describe,
    .free = uart_free,
};

device *uart_new(rvt_machine *m, uint64_t base) {
    uart *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->dev = (device){&uart_ops, m, base, UART_SIZE};
    return &u->dev;
}
