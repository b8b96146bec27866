/* SiFive's test finisher, which firmware powers the machine off through:
 * 0x5555 pass, 0x3333 | code << 16 fail with code, 0x7777 reset (taken as
 * power-off, as spike does). Reads return 0. */
#include <libfdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

static bool finisher_load(device *d, uint64_t off, void *data, unsigned len) {
    (void)d, (void)off;
    memset(data, 0, len);
    return true;
}

static bool finisher_store(device *d, uint64_t off, const void *data, unsigned len) {
    if (off != 0 || len < 2)
        return true;
    uint32_t v = 0; /* a 16-bit write (OpenSBI's) carries the status alone */
    memcpy(&v, data, len < 4 ? len : 4);
    unsigned status = v & 0xffff;
    if (status == 0x5555 || status == 0x7777)
        machine_power_off(d->m, 0);
    else if (status == 0x3333)
        machine_power_off(d->m, (v >> 16) ? (int)(v >> 16) : 1);
    return true;
}

static int finisher_describe(const device *d, void *fdt, int soc) {
    static const char compatible[] = "sifive,test1\0sifive,test0\0syscon";
    int node = board_fdt_device(fdt, soc, d, "test", compatible, sizeof compatible);
    return node < 0 ? node : 0;
}

static const device_ops finisher_ops = {
    .name = "test-finisher",
    .load = finisher_load,
    .store = finisher_store,
    .describe = finisher_describe,
};

device *finisher_new(rvt_machine *m, uint64_t base) {
    device *d = calloc(1, sizeof *d);
    if (d)
        *d = (device){&finisher_ops, m, base, FINISHER_SIZE};
    return d;
}
