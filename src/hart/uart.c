/* An ns16550a UART as the board machine's console. What the program
 * transmits goes to the machine's console file at once, so the transmitter
 * is always empty; what arrives on the console input (a file descriptor of
 * the host: a terminal, a pipe or a file) is queued for the receiver. The
 * interrupts the Linux driver uses are there: received data (IER bit 0) and
 * transmitter empty (IER bit 1, raised when enabled and after every
 * transmitted byte, cleared by reading IIR that reports it), on the
 * interrupt controller's source given at construction. */
#include <errno.h>
#include <libfdt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "machine.h"

enum { IER_RX = 1, IER_THRE = 2, LCR_DLAB = 0x80, LSR_DR = 1, LSR_IDLE = 0x60 /* THRE and TEMT */ };
enum { IIR_NONE = 0xc1, IIR_THRE = 0xc2, IIR_RX = 0xc4 }; /* FIFOs on (bits 7-6) */
#define UART_RX_QUEUE 256
#define UART_POLL_TICKS 64 /* rounds of the harts between looks at the input */

typedef struct uart {
    device dev;
    unsigned source;
    uint8_t ier, lcr, mcr, scr, dll, dlm;
    bool thre; /* a transmitter-empty interrupt is owed */
    uint8_t rx[UART_RX_QUEUE];
    unsigned rx_head, rx_len;
    int in_fd; /* -1: no input, or it ended */
    unsigned ticks;
} uart;

static uint8_t uart_iir(const uart *u) {
    if ((u->ier & IER_RX) && u->rx_len)
        return IIR_RX;
    if ((u->ier & IER_THRE) && u->thre)
        return IIR_THRE;
    return IIR_NONE;
}

static void uart_update_line(uart *u) { machine_set_source(u->dev.m, u->source, uart_iir(u) != IIR_NONE); }

/* Takes what the input has ready into the queue, without waiting. */
static void uart_read_input(uart *u) {
    if (u->in_fd < 0 || u->rx_len == UART_RX_QUEUE)
        return;
    struct pollfd pfd = {u->in_fd, POLLIN, 0};
    if (poll(&pfd, 1, 0) <= 0 || !(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
        return;
    uint8_t buf[UART_RX_QUEUE];
    ssize_t n = read(u->in_fd, buf, UART_RX_QUEUE - u->rx_len);
    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EINTR))
            u->in_fd = -1; /* the end of the input (or an error): nothing more arrives */
        return;
    }
    for (ssize_t i = 0; i < n; i++)
        u->rx[(u->rx_head + u->rx_len++) % UART_RX_QUEUE] = buf[i];
    uart_update_line(u);
}

static bool uart_load(device *d, uint64_t off, void *data, unsigned len) {
    uart *u = (uart *)d;
    if (len != 1)
        return false;
    uint8_t *b = data;
    bool dlab = (u->lcr & LCR_DLAB) != 0;
    switch (off) {
    case 0:
        if (dlab) {
            *b = u->dll;
        } else if (u->rx_len) {
            *b = u->rx[u->rx_head];
            u->rx_head = (u->rx_head + 1) % UART_RX_QUEUE;
            u->rx_len--;
        } else {
            *b = 0;
        }
        break;
    case 1: *b = dlab ? u->dlm : u->ier; break;
    case 2:
        *b = uart_iir(u);
        if (*b == IIR_THRE)
            u->thre = false; /* reading IIR that reports it clears it */
        break;
    case 3: *b = u->lcr; break;
    case 4: *b = u->mcr; break;
    case 5: *b = LSR_IDLE | (u->rx_len ? LSR_DR : 0); break;
    case 6: *b = 0xb0; break; /* MSR: CTS, DSR, DCD */
    case 7: *b = u->scr; break;
    default: *b = 0; break;
    }
    uart_update_line(u);
    return true;
}

static bool uart_store(device *d, uint64_t off, const void *data, unsigned len) {
    uart *u = (uart *)d;
    if (len != 1)
        return false;
    uint8_t b = *(const uint8_t *)data;
    bool dlab = (u->lcr & LCR_DLAB) != 0;
    switch (off) {
    case 0:
        if (dlab) {
            u->dll = b;
        } else {
            FILE *console = d->m->console;
            fputc(b, console);
            if (b == '\n')
                fflush(console);
            u->thre = true; /* sent at once: the holding register is empty again */
        }
        break;
    case 1:
        if (dlab) {
            u->dlm = b;
        } else {
            /* enabling the interrupt while the transmitter is empty raises it */
            u->thre = u->thre || (b & IER_THRE);
            u->ier = b & 0x0f;
        }
        break;
    case 3: u->lcr = b; break;
    case 4: u->mcr = b & 0x1f; break;
    case 7: u->scr = b; break;
    default: break; /* FCR: the FIFOs are always on */
    }
    uart_update_line(u);
    return true;
}

static void uart_read_ready(device *d) { uart_read_input((uart *)d); }

static void uart_tick(device *d) {
    uart *u = (uart *)d;
    if (u->in_fd >= 0 && ++u->ticks % UART_POLL_TICKS == 0)
        uart_read_input(u);
}

static int uart_input_fd(const device *d) {
    const uart *u = (const uart *)d;
    return u->rx_len < UART_RX_QUEUE ? u->in_fd : -1;
}

static int uart_describe(const device *d, void *fdt, int soc) {
    const uart *u = (const uart *)d;
    static const char compatible[] = "ns16550a";
    int node = board_fdt_device(fdt, soc, d, "serial", compatible, sizeof compatible);
    if (node < 0)
        return node;
    int rc = fdt_setprop_u32(fdt, node, "clock-frequency", 3686400);
    rc = rc ? rc : fdt_setprop_u32(fdt, node, "interrupt-parent", BOARD_PLIC_PHANDLE);
    return rc ? rc : fdt_setprop_u32(fdt, node, "interrupts", u->source);
}

static const device_ops uart_ops = {
    .name = "ns16550a",
    .load = uart_load,
    .store = uart_store,
    .tick = uart_tick,
    .input_fd = uart_input_fd,
    .read_input = uart_read_ready,
    .describe = uart_describe,
};

device *uart_new(rvt_machine *m, uint64_t base, unsigned source) {
    uart *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->dev = (device){&uart_ops, m, base, UART_SIZE};
    u->source = source;
    u->in_fd = m->cfg.console_input ? fileno(m->cfg.console_input) : -1;
    return &u->dev;
}
