/* spike's host-target interface: the program and the host talk through two
 * words of RAM, the ELF's `tohost` and `fromhost`. Between quanta the host
 * takes one command from tohost (exit, a proxied write or exit syscall,
 * console output) and hands the answers back through fromhost, one at a
 * time as the program empties it. A store of the program's exit code to
 * tohost marks where the program ended (the hart's watched store). */
#include <stdio.h>

#include "machine.h"

void htif_attach(rvt_machine *m, rvt_image *img) {
    htif *t = &m->htif;
    t->has_tohost = rvt_image_symbol_addr(img, "tohost", &t->tohost);
    t->has_fromhost = rvt_image_symbol_addr(img, "fromhost", &t->fromhost);
}

/* The program's exit code reached tohost (bit 0 set, device and command 0):
 * where the program ends, as spike's trace does, whatever the hart runs
 * until the host sees it. CTR and the counters are kept as they are here. */
void htif_tohost_stored(hart *h) {
    rvt_machine *m = machine_of(h);
    uint64_t v = 0;
    if (!phys_load(m, m->htif.tohost, &v, 8) || !(v & 1) || (v >> 48) != 0)
        return; /* the last such store counts: RV32 writes the two halves one after the other */
    m->exit_seen = true;
    ctr_note_exit(h);
    pmu_note_exit(h);
}

static void fromhost_push(htif *t, uint64_t v) {
    if (t->queued < HTIF_QUEUE)
        t->queue[(t->head + t->queued++) % HTIF_QUEUE] = v;
}

static void htif_syscall(rvt_machine *m, uint64_t addr) {
    uint64_t mm[8];
    if (!phys_load(m, addr, mm, sizeof mm))
        return;
    int64_t ret;
    switch (mm[0]) {
    case 64: { /* write(fd, buf, len) */
        uint64_t fd = mm[1], buf = mm[2], len = mm[3];
        if (fd != 1 && fd != 2) {
            ret = -9; /* EBADF */
            break;
        }
        uint8_t chunk[4096];
        uint64_t done = 0;
        while (done < len) {
            unsigned n = (unsigned)((len - done) < sizeof chunk ? (len - done) : sizeof chunk);
            if (!phys_load(m, buf + done, chunk, n))
                break;
            fwrite(chunk, 1, n, m->console);
            done += n;
        }
        fflush(m->console);
        ret = (int64_t)done;
        break;
    }
    case 93: case 94: /* exit, exit_group: the program ends (rvt_machine_exited) */
        m->exit_seen = true;
        machine_power_off(m, (int)mm[1]);
        return;
    default:
        ret = -38; /* ENOSYS */
        break;
    }
    mm[0] = (uint64_t)ret;
    phys_store(m, NULL, addr, mm, 8);
    fromhost_push(&m->htif, 1); /* device 0, command 0, response 1 */
}

static void htif_command(rvt_machine *m, uint64_t tohost) {
    unsigned dev = (unsigned)(tohost >> 56), cmd = (unsigned)(tohost >> 48) & 0xff;
    uint64_t payload = tohost & ((1ull << 48) - 1);
    if (dev == 0 && cmd == 0) {
        if (payload & 1)
            machine_power_off(m, (int)(payload >> 1));
        else
            htif_syscall(m, payload);
    } else if (dev == 1 && cmd == 1) { /* console putchar */
        fputc((int)(payload & 0xff), m->console);
        fflush(m->console);
        fromhost_push(&m->htif, (tohost >> 48 << 48) | 0x100 | (payload & 0xff));
    }
}

bool htif_poll(rvt_machine *m) {
    const htif *t = &m->htif;
    uint64_t tohost = 0;
    if (t->has_tohost)
        phys_load(m, t->tohost, &tohost, 8);
    if (!tohost)
        return false;
    uint64_t zero = 0;
    phys_store(m, NULL, t->tohost, &zero, 8);
    htif_command(m, tohost);
    return true;
}

void htif_deliver(rvt_machine *m) {
    htif *t = &m->htif;
    if (!t->queued || !t->has_fromhost)
        return;
    uint64_t cur = 0;
    if (phys_load(m, t->fromhost, &cur, 8) && cur == 0) {
        uint64_t v = t->queue[t->head];
        t->head = (t->head + 1) % HTIF_QUEUE;
        t->queued--;
        phys_store(m, NULL, t->fromhost, &v, 8);
    }
}
