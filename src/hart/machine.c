/* The machine around the harts, as spike builds it for a bare-metal program:
 * boot ROM with the reset stub at 0x1000, RAM regions, the devices' table
 * (the CLINT; for supervisor software a UART and a test finisher), and the
 * HTIF host interface (htif.c), with spike's scheduling (5000-step quanta
 * per hart, host polling between them). The harts reach its memory and
 * devices through the bus it gives them (machine_bus). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include "machine.h"

#define BOOT_ROM_BASE 0x1000u
#define BOOT_ROM_SIZE 0x1000u

void rvt_machine_config_default(rvt_machine_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->nharts = 1;
    /* The layout the reference traces were made with. */
    cfg->ram[0] = (rvt_mem_region){0x20010000u, 0x40000u};
    cfg->ram[1] = (rvt_mem_region){0x80000000u, 0x400000u};
    cfg->nram = 2;
    cfg->pmp_regions = 16;
    cfg->max_insns = 0;
    cfg->ctr_version = RVT_CTR_0_1_4;
    cfg->ctr_min_depth = 16;
    cfg->ctr_max_depth = 256;
}

bool rvt_machine_exited(const rvt_machine *m) { return m->exit_seen; }

bool rvt_machine_cache_stats(const rvt_machine *m, unsigned cache, rvt_cache_stats *out) {
    return m && out && cache_stats(&m->core, cache, out);
}

void rvt_machine_set_max_insns(rvt_machine *m, uint64_t max_insns) {
    m->core.max_insns = max_insns;
    if (m->core.stop && m->core.stop_reason == RVT_STOP_MAX_INSNS)
        m->core.stop = false;
}

enum { PROGRESS_PERIOD = 1 << 24 };

void rvt_machine_set_progress(rvt_machine *m, rvt_progress_fn fn, void *user) {
    m->progress_fn = fn;
    m->progress_user = user;
    m->progress_next = m->core.instret_total + PROGRESS_PERIOD;
}

void rvt_machine_sample_every(rvt_machine *m, uint64_t period, rvt_sample_fn fn, void *user) {
    m->core.sample_fn = period ? fn : NULL;
    m->core.sample_user = user;
    m->core.sample_period = period;
    m->core.sample_next = m->core.instret_total + period;
}

int rvt_parse_mem_regions(const char *spec, rvt_machine_config *cfg, rvt_diag *diag) {
    cfg->nram = 0;
    const char *p = spec;
    if (!strchr(spec, ':')) {
        char *end;
        errno = 0;
        unsigned long long mib = strtoull(spec, &end, 0);
        if (errno || *end || mib == 0 || mib > (1ull << 20))
            return rvt_diag_set(diag, RVT_E_ARG, "-m %s: expected a size in MiB or BASE:SIZE,...", spec);
        cfg->ram[0] = (rvt_mem_region){0x80000000u, mib << 20};
        cfg->nram = 1;
        return RVT_OK;
    }
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long base = strtoull(p, &end, 0);
        if (errno || *end != ':')
            return rvt_diag_set(diag, RVT_E_ARG, "-m %s: expected BASE:SIZE at '%s'", spec, p);
        p = end + 1;
        unsigned long long size = strtoull(p, &end, 0);
        if (errno || (*end && *end != ',') || size == 0 || base + size < base)
            return rvt_diag_set(diag, RVT_E_ARG, "-m %s: bad size at '%s'", spec, p);
        if (cfg->nram == sizeof cfg->ram / sizeof cfg->ram[0])
            return rvt_diag_set(diag, RVT_E_ARG, "-m %s: too many regions", spec);
        if ((base & 0xfff) || (size & 0xfff))
            return rvt_diag_set(diag, RVT_E_ARG, "-m %s: regions must be 4 KiB aligned", spec);
        cfg->ram[cfg->nram++] = (rvt_mem_region){base, size};
        p = *end ? end + 1 : end;
    }
    return RVT_OK;
}

/* ------------------------------------------------------------- memory */

mem_region *phys_region(rvt_machine *m, uint64_t pa, unsigned len) {
    for (unsigned i = 0; i < m->nregions; i++) {
        mem_region *r = &m->regions[i];
        if (pa - r->base < r->size && len <= r->size - (pa - r->base))
            return r;
    }
    return NULL;
}

void machine_time_moved(rvt_machine *m) {
    machine_tick_devices(m);
    if (m->sbi)
        sbi_update_timer(m);
}

void machine_power_off(rvt_machine *m, int code) {
    m->core.stop = true;
    m->core.stop_reason = RVT_STOP_EXIT;
    m->exit_code = code;
}

/* ------------------------------------------------------------ devices */

int machine_add_device(rvt_machine *m, device *d) {
    if (!d)
        return RVT_E_NOMEM;
    bool overlaps = m->ndevices == RVT_MAX_DEVICES;
    for (unsigned i = 0; i < m->ndevices && !overlaps; i++)
        overlaps = d->base < m->devices[i]->base + m->devices[i]->size && m->devices[i]->base < d->base + d->size;
    if (overlaps) {
        free(d);
        return RVT_E_RANGE;
    }
    m->devices[m->ndevices++] = d;
    return RVT_OK;
}

device *machine_device_at(rvt_machine *m, uint64_t pa, unsigned len) {
    for (unsigned i = 0; i < m->ndevices; i++) {
        device *d = m->devices[i];
        if (pa - d->base < d->size && len <= d->size - (pa - d->base))
            return d;
    }
    return NULL;
}

void machine_set_source(rvt_machine *m, unsigned source, bool level) {
    if (m->intc)
        m->intc->ops->set_source(m->intc, source, level);
}

void machine_set_irq_line(rvt_machine *m, hart *h, unsigned irq, bool level) {
    if (!m->device_lines_held) /* (else the host sets them, as its trace says) */
        hart_set_irq_line(h, irq, level);
}

void machine_tick_devices(rvt_machine *m) {
    for (unsigned i = 0; i < m->ndevices; i++)
        if (m->devices[i]->ops->tick)
            m->devices[i]->ops->tick(m->devices[i]);
}

/* The bus's device calls: an access no region holds. A device's load
 * returns what the trace says where the host follows one
 * (rvt_machine_device_loads; the device still sees the access). */
static bool bus_device_load(void *ctx, uint64_t pa, void *out, unsigned len) {
    rvt_machine *m = ctx;
    device *d = machine_device_at(m, pa, len);
    if (!d || !d->ops->load(d, pa - d->base, out, len))
        return false;
    uint64_t traced;
    if (m->device_load_fn && m->device_load_fn(m->device_load_user, pa, len, &traced))
        memcpy(out, &traced, len); /* (the host is little-endian, as the harts) */
    return true;
}

static bool bus_device_store(void *ctx, uint64_t pa, const void *in, unsigned len) {
    device *d = machine_device_at(ctx, pa, len);
    return d && d->ops->store(d, pa - d->base, in, len);
}

static mem_region *bus_region_at(void *ctx, uint64_t pa, unsigned len) { return phys_region(ctx, pa, len); }

static mem_region *bus_host_region(void *ctx, const uint8_t *host, uint64_t *off) {
    rvt_machine *m = ctx;
    for (unsigned i = 0; i < m->nregions; i++) {
        mem_region *r = &m->regions[i];
        if ((uintptr_t)(host - r->data) < r->size) {
            *off = (uint64_t)(host - r->data);
            return r;
        }
    }
    return NULL;
}

static const hart_bus machine_bus = {
    .region = bus_region_at,
    .region_of_host = bus_host_region,
    .device_load = bus_device_load,
    .device_store = bus_device_store,
};

bool phys_load(rvt_machine *m, uint64_t pa, void *out, unsigned len) { return bus_load(&m->core, pa, out, len); }

const rvt_insn *phys_fetch(rvt_machine *m, uint64_t pa) { return bus_fetch(&m->core, pa); }

bool phys_store(rvt_machine *m, hart *h, uint64_t pa, const void *in, unsigned len) {
    mem_region *r;
    if (!h && m->observer && (r = phys_region(m, pa, len)) && !r->rom) {
        uint64_t data = 0, old = 0;
        memcpy(&data, in, len);
        memcpy(&old, r->data + (pa - r->base), len);
        rvt_mem_access a = {.vaddr = pa, .paddr = pa, .data = data, .old = old, .kind = RVT_ACCESS_HOST,
                            .len = (uint8_t)len};
        observe_access(m, &a);
    }
    return bus_store(&m->core, h, pa, in, len);
}

void rvt_machine_device_loads(rvt_machine *m, rvt_device_load_fn fn, void *user) {
    m->device_load_fn = fn;
    m->device_load_user = user;
}

void rvt_machine_hold_device_lines(rvt_machine *m, bool held) {
    m->device_lines_held = held;
    if (!held)
        machine_time_moved(m); /* the CLINT's lines follow its state again (the others' at their next change) */
}

/* ------------------------------------------------------------ machine */

static const uint32_t reset_stub[5] = {
    0x00000297, /* auipc t0, 0 */
    0x02028593, /* addi  a1, t0, 32   (device tree) */
    0xf1402573, /* csrr  a0, mhartid */
    0,          /* ld/lw t0, 24(t0)   (start address) */
    0x00028067, /* jr    t0 */
};

/* The machine for supervisor software: the firmware at the start of the
 * first RAM region (where the boot ROM then jumps), the initial RAM disk and
 * the device tree near its top (*dtb), and the device tree in the ROM at
 * 0x1020, where spike's boot stub points a1. */
static int board_setup(rvt_machine *m, mem_region *rom, const rvt_segment_info *segs, size_t nsegs, uint64_t *dtb,
                       rvt_diag *diag) {
    const rvt_machine_config *cfg = &m->cfg;
    mem_region *ram = &m->regions[0];
    if (m->nregions < 2 || ram->size < 0x100000)
        return rvt_diag_set(diag, RVT_E_ARG, "the machine for supervisor software needs RAM (-m)");
    if (cfg->firmware) {
        if (cfg->firmware_size > ram->size / 2)
            return rvt_diag_set(diag, RVT_E_RANGE, "the firmware (%zu bytes) does not fit the RAM", cfg->firmware_size);
        for (size_t i = 0; i < nsegs; i++)
            if (segs[i].vaddr < ram->base + cfg->firmware_size && segs[i].vaddr + segs[i].memsz > ram->base)
                return rvt_diag_set(diag, RVT_E_RANGE,
                                    "the program at %#" PRIx64 " overlaps the firmware at %#" PRIx64
                                    " (%zu bytes): link it higher", segs[i].vaddr, ram->base, cfg->firmware_size);
        memcpy(ram->data, cfg->firmware, cfg->firmware_size);
        memcpy(rom->data + 0x18, &ram->base, 8);
    }
    uint64_t top = ram->base + ram->size;
    uint64_t dtb_at = (top - 0x10000) & ~0xfffull, initrd_start = 0, initrd_end = 0;
    if (cfg->initrd_size) {
        if (cfg->initrd_size > ram->size / 2)
            return rvt_diag_set(diag, RVT_E_RANGE, "the initial RAM disk (%zu bytes) does not fit the RAM",
                                cfg->initrd_size);
        initrd_start = (dtb_at - cfg->initrd_size) & ~0xfffull;
        initrd_end = initrd_start + cfg->initrd_size;
        memcpy(ram->data + (initrd_start - ram->base), cfg->initrd, cfg->initrd_size);
    }
    uint8_t tree[BOOT_ROM_SIZE - 0x20];
    int size = board_device_tree(m, tree, sizeof tree, ram->base, ram->size, initrd_start, initrd_end);
    if (size < 0)
        return rvt_diag_set(diag, RVT_E_RANGE, "cannot build the device tree (libfdt error %d)", size);
    memcpy(rom->data + 0x20, tree, (size_t)size);
    memcpy(ram->data + (dtb_at - ram->base), tree, (size_t)size);
    *dtb = dtb_at;
    return RVT_OK;
}

/* The trace port's sink refused records: the run stops. */
static void sink_refused(void *owner) {
    rvt_machine *m = owner;
    if (!m->core.stop) {
        m->core.stop = true;
        m->core.stop_reason = RVT_STOP_SINK;
    }
}

/* The code at addr as the machine's memory holds it now (an rvt_code_fetch). */
static bool memory_insn(void *m, uint64_t addr, rvt_insn *out) { return rvt_program_insn(NULL, m, addr, out); }

/* Whether hart `index`'s records in privilege `priv` carry virtual addresses. */
static bool records_translate(void *owner, unsigned index, unsigned priv) {
    const rvt_machine *m = owner;
    return priv != PRV_M && index < m->nharts && satp_mode(&m->harts[index]) != 0;
}

int rvt_machine_new(rvt_machine **out, const rvt_machine_config *cfg, rvt_image *img, rvt_diag *diag) {
    *out = NULL;
    if (cfg->nharts == 0 || cfg->nharts > RVT_MAX_HARTS)
        return rvt_diag_set(diag, RVT_E_ARG, "the number of harts must be 1..%d", RVT_MAX_HARTS);
    if (!rvt_image_xlen(img))
        return rvt_diag_set(diag, RVT_E_ARG, "no program loaded");
    if (cfg->ctr_version > RVT_CTR_1_0)
        return rvt_diag_set(diag, RVT_E_ARG, "unknown CTR version %u", cfg->ctr_version);
    if (cfg->ctr_version != RVT_CTR_NONE) {
        unsigned lo = cfg->ctr_min_depth ? cfg->ctr_min_depth : 16, hi = cfg->ctr_max_depth ? cfg->ctr_max_depth : 256;
        if (!ctr_depth_valid(lo) || !ctr_depth_valid(hi) || lo > hi)
            return rvt_diag_set(diag, RVT_E_ARG, "CTR depths %u..%u: each must be a power of two in 16..256", lo, hi);
    }
    rvt_machine *m = calloc(1, sizeof *m);
    if (!m)
        return RVT_E_NOMEM;
    m->cfg = *cfg;
    m->img = img;
    m->xlen = rvt_image_xlen(img);
    m->console = cfg->console ? cfg->console : stdout;
    m->nharts = cfg->nharts;
    m->harts = calloc(m->nharts, sizeof *m->harts);
    /* What the harts are given of the machine (hart_machine). */
    hart_machine *core = &m->core;
    core->bus = machine_bus;
    core->bus.ctx = m;
    core->self = m;
    core->xlen = m->xlen;
    core->pmp_regions = cfg->pmp_regions;
    core->merge_blocks = cfg->merge_blocks;
    core->harts = m->harts;
    core->nharts = m->nharts;
    core->max_insns = cfg->max_insns;
    const port_owner owner = {m, sink_refused, memory_insn, records_translate};
    int rc = RVT_E_NOMEM;
    if (port_init(&core->port, &owner) != RVT_OK || !m->harts || hart_machine_init(core) != RVT_OK)
        goto fail;
    core->port.img = img;
    if ((rc = cache_model_new(core, cfg, diag)) != RVT_OK)
        goto fail;
    for (unsigned i = 0; i < cfg->nram; i++) {
        mem_region *r = &m->regions[m->nregions++];
        r->base = cfg->ram[i].base;
        r->size = cfg->ram[i].size;
        r->data = calloc(1, (size_t)r->size);
        r->icache = calloc((size_t)(r->size >> 12), sizeof *r->icache);
        if (!r->data || !r->icache)
            goto fail;
    }
    mem_region *rom = &m->regions[m->nregions++];
    rom->base = BOOT_ROM_BASE;
    rom->size = BOOT_ROM_SIZE;
    rom->rom = true;
    rom->data = calloc(1, BOOT_ROM_SIZE);
    rom->icache = calloc(BOOT_ROM_SIZE >> 12, sizeof *rom->icache);
    if (!rom->data || !rom->icache)
        goto fail;
    core->port.rom_base = BOOT_ROM_BASE;
    core->port.rom_size = BOOT_ROM_SIZE;
    uint32_t stub[5];
    memcpy(stub, reset_stub, sizeof stub);
    stub[3] = m->xlen == 64 ? 0x0182b283 : 0x0182a283;
    memcpy(rom->data, stub, sizeof stub);
    uint64_t entry = rvt_image_entry(img);
    memcpy(rom->data + 0x18, &entry, 8);

    /* Copy the program's loadable segments into RAM. */
    rvt_segment_info segs[64];
    size_t nsegs = rvt_image_segments(img, segs, 64);
    for (size_t i = 0; i < nsegs && i < 64; i++) {
        mem_region *r = phys_region(m, segs[i].vaddr, (unsigned)0);
        if (!r || segs[i].memsz > r->size - (segs[i].vaddr - r->base) || r->rom) {
            rc = rvt_diag_set(diag, RVT_E_RANGE,
                              "program segment at %#" PRIx64 " (%#" PRIx64 " bytes) is outside the "
                              "machine's memory; give the layout with -m BASE:SIZE,...",
                              segs[i].vaddr, segs[i].memsz);
            goto fail;
        }
        rvt_image_read(img, segs[i].vaddr, r->data + (segs[i].vaddr - r->base), (size_t)segs[i].memsz);
    }
    htif_attach(m, img);
    uint64_t dtb = 0;
    m->cfg.board = cfg->board || cfg->sbi || cfg->firmware;
    /* The devices, in the order the device tree lists them. */
    if ((rc = machine_add_device(m, clint_new(m, CLINT_BASE))) != RVT_OK)
        goto fail;
    if (m->cfg.board) {
        if ((rc = machine_add_device(m, plic_new(m, PLIC_BASE))) != RVT_OK)
            goto fail;
        m->intc = m->devices[m->ndevices - 1];
        if ((rc = machine_add_device(m, uart_new(m, UART_BASE, UART_PLIC_SOURCE))) != RVT_OK ||
            (rc = machine_add_device(m, finisher_new(m, FINISHER_BASE))) != RVT_OK)
            goto fail;
    }
    if (m->cfg.board && (rc = board_setup(m, rom, segs, nsegs < 64 ? nsegs : 64, &dtb, diag)) != RVT_OK)
        goto fail;
    hart_env env = {.wfi_sleeps = m->cfg.board, .watched_store = ~0ull};
    if (m->htif.has_tohost) {
        env.watched_store = m->htif.tohost;
        env.store_watched = htif_tohost_stored;
    }
    if (cfg->sbi) {
        env.ecall_privs = 1u << PRV_S;
        env.ecall = sbi_take_call;
        env.exception = sbi_exception;
    }
    for (unsigned i = 0; i < m->nharts; i++) {
        if ((rc = ctr_attach(&m->harts[i], cfg)) != RVT_OK || (rc = mmu_attach(&m->harts[i])) != RVT_OK)
            goto fail;
        m->harts[i].env = env;
        hart_reset(&m->harts[i], core, i);
    }
    if (cfg->sbi) {
        if ((rc = sbi_attach(m)) != RVT_OK)
            goto fail;
        m->dtb = dtb;
        sbi_boot(m, rvt_image_entry(img), dtb);
    }
    machine_time_moved(m); /* mtimecmp is 0 at reset: the timer interrupt is pending */
    *out = m;
    return RVT_OK;
fail:
    rvt_machine_free(m);
    return rc;
}

void rvt_machine_free(rvt_machine *m) {
    if (!m)
        return;
    for (unsigned i = 0; i < m->nregions; i++) {
        free(m->regions[i].data);
        free(m->regions[i].icache);
    }
    hart_machine_free(&m->core); /* (the decoded pages) */
    cache_model_free(&m->core);
    free(m->obs);
    sbi_free(m);
    for (unsigned i = 0; i < m->ndevices; i++)
        free(m->devices[i]);
    for (unsigned i = 0; m->harts && i < m->nharts; i++) {
        ctr_free(&m->harts[i]);
        mmu_free(&m->harts[i]);
    }
    free(m->harts);
    port_free(&m->core.port);
    free(m);
}

/* Whether a hart runs in this round: not while it sleeps in WFI (board
 * machine) or, under --sbi, while HSM has it stopped or suspended. */
static bool hart_runs(hart *h) {
    if (h->asleep) {
        if (!(hart_mip(h) & h->mie))
            return false;
        h->asleep = false;
    }
    return !machine_of(h)->sbi || sbi_hart_runs(h);
}

/* While every hart waits for an interrupt, the devices that wait for the
 * host's input (the console) get it: for up to `ticks` of mtime (at most
 * IDLE_WAIT_MS of real time at a go, so that a machine waiting for a far
 * timer stays responsive; UINT64_MAX with no timer: until input comes).
 * True when input came. */
enum { IDLE_WAIT_MS = 50, MTIME_TICKS_PER_MS = TIMEBASE_HZ / 1000 };
static bool wait_for_input(rvt_machine *m, uint64_t ticks) {
    struct pollfd fds[RVT_MAX_DEVICES];
    device *waiting[RVT_MAX_DEVICES];
    nfds_t n = 0;
    for (unsigned k = 0; k < m->ndevices; k++) {
        device *d = m->devices[k];
        int fd = d->ops->input_fd ? d->ops->input_fd(d) : -1;
        if (fd >= 0) {
            fds[n] = (struct pollfd){fd, POLLIN, 0};
            waiting[n++] = d;
        }
    }
    if (!n)
        return false;
    int timeout = ticks == UINT64_MAX ? -1
                  : ticks / MTIME_TICKS_PER_MS < IDLE_WAIT_MS ? (int)(ticks / MTIME_TICKS_PER_MS)
                                                                : IDLE_WAIT_MS;
    if (poll(fds, n, timeout) <= 0)
        return false;
    bool came = false;
    for (nfds_t i = 0; i < n; i++)
        if (fds[i].revents) {
            waiting[i]->ops->read_input(waiting[i]);
            came = true;
        }
    return came;
}

/* No hart ran in a whole round: the time moves on to the earliest timer a
 * sleeping hart enables. Every hart stopped through HSM ends the run as an
 * exit; false when no hart can ever wake again. */
static bool machine_idle(rvt_machine *m) {
    bool all_stopped = m->sbi != NULL, any_timer = false;
    uint64_t next = UINT64_MAX, when;
    for (unsigned i = 0; i < m->nharts; i++) {
        const hart *h = &m->harts[i];
        if (m->sbi && sbi_hart_stopped(h))
            continue;
        all_stopped = false;
        for (unsigned k = 0; k < m->ndevices; k++) {
            const device *d = m->devices[k];
            if (d->ops->wake_time && d->ops->wake_time(d, h, &when)) {
                any_timer = true;
                next = when < next ? when : next;
            }
        }
        if (m->sbi && (h->mie >> IRQ_S_TIMER) & 1 && sbi_timer(h, &when)) {
            any_timer = true;
            next = when < next ? when : next;
        }
    }
    if (all_stopped) {
        m->core.stop = true;
        m->core.stop_reason = RVT_STOP_EXIT;
        m->exit_code = 0;
        return true;
    }
    if (any_timer && next <= m->core.mtime) /* a timer that is already due woke nobody */
        return false;
    if (wait_for_input(m, any_timer ? next - m->core.mtime : UINT64_MAX))
        return true;
    if (!any_timer)
        return false;
    m->core.mtime = next;
    machine_time_moved(m);
    return true;
}

int rvt_machine_run(rvt_machine *m, rvt_run_result *res, rvt_diag *diag) {
    m->diag = diag;
    unsigned cur = 0, last = 0;
    bool any_ran = false; /* in this round of the harts */
    /* spike's host loop: between quanta the host answers tohost commands and
     * delivers fromhost responses; one command per loop iteration. */
    while (!m->core.stop) {
        if (!htif_poll(m)) {
            if (hart_runs(&m->harts[cur])) {
                last = cur;
                any_ran = true;
                hart_step(&m->harts[cur], RVT_INTERLEAVE);
                m->harts[cur].resv_valid = false; /* spike yields the reservation at the quantum end */
            }
            if (++cur == m->nharts) {
                cur = 0;
                /* A block record stands for instructions that retired at
                 * one time: none goes on past a change of mtime. */
                for (unsigned i = 0; i < m->nharts; i++)
                    hart_flush_block(&m->harts[i]);
                if (!any_ran && !machine_idle(m)) {
                    m->core.stop = true;
                    m->core.stop_reason = RVT_STOP_ASLEEP;
                    break;
                }
                any_ran = false;
                m->core.mtime += RVT_INTERLEAVE / RVT_INSNS_PER_RTC_TICK;
                machine_time_moved(m);
                if (m->progress_fn && m->core.instret_total >= m->progress_next) {
                    m->progress_next = m->core.instret_total + PROGRESS_PERIOD;
                    m->progress_fn(m->progress_user, m->core.instret_total);
                }
            }
        }
        if (!m->core.stop)
            htif_deliver(m);
        if (m->observer)
            observe_step(&m->harts[0], RVT_STEP_HOST, m->harts[0].pc, m->harts[0].priv, 0, 0);
    }
    for (unsigned i = 0; i < m->nharts; i++)
        hart_flush_block(&m->harts[i]);
    port_flush(&m->core.port);
    res->reason = m->core.stop_reason;
    res->exit_code = m->exit_code;
    res->instret = m->core.instret_total;
    res->traps = m->core.traps;
    const hart *h = &m->harts[last];
    res->hart = last;
    res->pc = h->pc;
    res->had_trap = h->trapped;
    res->last_trap_cause = h->last_trap_cause;
    res->last_trap_pc = h->last_trap_pc;
    return RVT_OK;
}

uint64_t rvt_machine_reg(const rvt_machine *m, unsigned index, unsigned reg) {
    return index < m->nharts && reg < 32 ? m->harts[index].x[reg] : 0;
}

uint64_t rvt_machine_pc(const rvt_machine *m, unsigned index) { return index < m->nharts ? m->harts[index].pc : 0; }

uint64_t rvt_machine_csr(rvt_machine *m, unsigned index, unsigned csr) {
    uint64_t v = 0;
    if (index < m->nharts && csr_read(&m->harts[index], csr, &v) != 0)
        v = 0;
    return v;
}

bool rvt_machine_read_mem(rvt_machine *m, uint64_t paddr, void *buf, size_t n) {
    mem_region *r = phys_region(m, paddr, (unsigned)n);
    if (!r)
        return false;
    memcpy(buf, r->data + (paddr - r->base), n);
    return true;
}

bool rvt_program_insn(rvt_image *img, rvt_machine *m, uint64_t addr, rvt_insn *out) {
    const rvt_insn *in = img ? rvt_image_insn(img, addr) : NULL;
    if (in) {
        *out = *in;
        return true;
    }
    uint8_t b[4] = {0};
    if (!m || !rvt_machine_read_mem(m, addr, b, 2))
        return false;
    if (rvt_insn_length((uint16_t)(b[0] | b[1] << 8)) == 4 && !rvt_machine_read_mem(m, addr + 2, b + 2, 2))
        return false;
    rvt_decode((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24, m->xlen, out);
    return true;
}

bool rvt_machine_write_mem(rvt_machine *m, uint64_t paddr, const void *buf, size_t n) {
    mem_region *r = phys_region(m, paddr, (unsigned)n);
    if (r) {
        code_drop(&m->core, r, paddr - r->base, (unsigned)n); /* (before the code changes) */
        memcpy(r->data + (paddr - r->base), buf, n);
        return true;
    }
    device *d = n <= 8 ? machine_device_at(m, paddr, (unsigned)n) : NULL;
    return d && d->ops->host_may_store && d->ops->store(d, paddr - d->base, buf, (unsigned)n);
}

bool rvt_machine_read_rom(rvt_machine *m, uint64_t addr, void *buf, unsigned n) {
    mem_region *r = phys_region(m, addr, n);
    if (!r || !r->rom)
        return false;
    memcpy(buf, r->data + (addr - r->base), n);
    return true;
}
