/* The hart model's platform: the machine around the harts (machine.c: RAM
 * and ROM regions, the device table and the scheduler; htif.c, sbi.c,
 * board.c, observe.c and the devices, each behind device.h). It builds the
 * harts of the core (hart_internal.h) and gives them the bus, the hooks and
 * the run's shared state (struct hart_machine, which it keeps as its
 * `core`); the core never includes this. */
#ifndef RVTRACE_HART_MACHINE_H
#define RVTRACE_HART_MACHINE_H

#include <stdio.h>

#include "device.h"
#include "hart_internal.h"
#include "trace_port.h"

#define RVT_MAX_HARTS 64
#define RVT_INTERLEAVE 5000        /* spike's INTERLEAVE: steps per hart per quantum */
#define RVT_INSNS_PER_RTC_TICK 100 /* spike: mtime advances once per 100 steps */

/* spike's host-target interface through the ELF's tohost and fromhost
 * words (htif.c): the answers waiting for fromhost to be emptied. */
#define HTIF_QUEUE 64
typedef struct htif {
    uint64_t tohost, fromhost;
    bool has_tohost, has_fromhost;
    uint64_t queue[HTIF_QUEUE];
    unsigned head, queued;
} htif;

typedef struct rvt_machine {
    /* The core's part: the bus and hooks the harts were given, the run's
     * state (mtime, stop, counts), the trace port, decoded code. */
    hart_machine core;
    rvt_machine_config cfg;
    rvt_image *img;
    unsigned xlen;
    mem_region regions[10];
    unsigned nregions;
    device *devices[RVT_MAX_DEVICES]; /* by window, none overlapping */
    unsigned ndevices;
    device *intc; /* the interrupt controller devices' lines go to; NULL: none */
    htif htif;
    hart *harts;
    unsigned nharts;
    FILE *console;

    /* Run state (the rest is the core's) */
    int exit_code;
    rvt_diag *diag;

    /* Observation of single steps (observe.c); NULL when nobody observes.
     * While someone does, core.observer is observe.c's hooks. */
    rvt_step_observer observer;
    void *observer_user;
    struct observe_state *obs;

    /* rvt_machine_set_progress: a coarse callback between rounds of the harts. */
    rvt_progress_fn progress_fn;
    void *progress_user;
    uint64_t progress_next;
    bool exit_seen; /* the program stored its exit code to tohost */

    /* The supervisor execution environment of --sbi (sbi.c); NULL without. */
    struct sbi_state *sbi;
    uint64_t dtb; /* the device tree in RAM, where a payload under --sbi is told it is */

    /* Devices as a trace says (rvt_machine_device_loads,
     * rvt_machine_hold_device_lines): what their loads return, and whether
     * their interrupt lines are left to the host. */
    rvt_device_load_fn device_load_fn;
    void *device_load_user;
    bool device_lines_held;
} rvt_machine;

/* The machine a hart of it is in. */
static inline rvt_machine *machine_of(const hart *h) {
    return (rvt_machine *)(void *)((char *)h->m - offsetof(rvt_machine, core));
}

/* Memory as the platform and the host reach it (machine.c): the region
 * that holds [pa, pa + len) (the bus's lookup); physical accesses through
 * the bus (`h`: the hart a store is made for, NULL for the host's own,
 * which the observer sees as the host's); decoded code, decoded now. */
mem_region *phys_region(rvt_machine *m, uint64_t pa, unsigned len);
bool phys_load(rvt_machine *m, uint64_t pa, void *out, unsigned len);
bool phys_store(rvt_machine *m, hart *h, uint64_t pa, const void *in, unsigned len);
const rvt_insn *phys_fetch(rvt_machine *m, uint64_t pa);

/* mtime moved, was set, or a timer was written: the devices' interrupt
 * lines and the SBI environment's timer follow. */
void machine_time_moved(rvt_machine *m);
/* The machine powers off: the run ends with `code` as the program's exit. */
void machine_power_off(rvt_machine *m, int code);

/* HTIF (htif.c): the addresses from the image; a command taken from tohost
 * (false: none was there); the next answer handed to fromhost; the watched
 * store of tohost (hart_env.store_watched). */
void htif_attach(rvt_machine *m, rvt_image *img);
bool htif_poll(rvt_machine *m);
void htif_deliver(rvt_machine *m);
void htif_tohost_stored(hart *h);

/* The machine for supervisor software (board.c): its device tree built
 * into `buf` (its size, or a negative libfdt error). */
int board_device_tree(rvt_machine *m, void *buf, size_t cap, uint64_t ram_base, uint64_t ram_size,
                      uint64_t initrd_start, uint64_t initrd_end);

/* Supervisor execution environment in the host (sbi.c). */
int sbi_attach(rvt_machine *m);
void sbi_free(rvt_machine *m);
void sbi_boot(rvt_machine *m, uint64_t entry, uint64_t dtb); /* the payload's start in S-mode */
void sbi_take_call(hart *h);                /* answers the ecall at h->pc (hart_env.ecall) */
void sbi_update_timer(rvt_machine *m);
bool sbi_hart_runs(hart *h);                /* HSM: whether the hart runs in this round */
bool sbi_hart_stopped(const hart *h);       /* HSM STOPPED: only hart_start wakes it */
bool sbi_timer(const hart *h, uint64_t *when); /* the hart's set_timer time, if any */
/* An exception from S or U: counted as a firmware event; misaligned loads
 * and stores are emulated (true: handled, the trap goes no further). */
bool sbi_exception(hart *h, uint64_t code, uint64_t tval, uint64_t epc);

/* Observation (observe.c): a memory access for the step being observed
 * (the host's own accesses too). */
void observe_access(rvt_machine *m, const rvt_mem_access *a);

#endif
