/* The machine around the harts, as spike builds it for a bare-metal program:
 * boot ROM with the reset stub at 0x1000, RAM regions, the devices' table
 * (the CLINT; for supervisor software a UART and a test finisher), and the
 * HTIF host interface (htif.c), with spike's scheduling (5000-step quanta
 * per hart, host polling between them). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include "hart_internal.h"

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

enum { PROGRESS_PERIOD = 1 << 24 };

void rvt_machine_set_progress(rvt_machine *m, rvt_progress_fn fn, void *user) {
    m->progress_fn = fn;
    m->progress_user = user;
    m->progress_next = m->instret_total + PROGRESS_PERIOD;
}

void rvt_machine_sample_every(rvt_machine *m, uint64_t period, rvt_sample_fn fn, void *user) {
    m->sample_fn = period ? fn : NULL;
    m->sample_user = user;
    m->sample_period = period;
    m->sample_next = m->instret_total + period;
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
    m->stop = true;
    m->stop_reason = RVT_STOP_EXIT;
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

void machine_tick_devices(rvt_machine *m) {
    for (unsigned i = 0; i < m->ndevices; i++)
        if (m->devices[i]->ops->tick)
            m->devices[i]->ops->tick(m->devices[i]);
}

bool phys_load(rvt_machine *m, uint64_t pa, void *out, unsigned len) {
    mem_region *r = phys_region(m, pa, len);
    if (r) {
        copy_small(out, r->data + (pa - r->base), len);
        return true;
    }
    device *d = machine_device_at(m, pa, len);
    if (!d || !d->ops->load(d, pa - d->base, out, len))
        return false;
    uint64_t traced;
    if (m->device_load_fn && m->device_load_fn(m->device_load_user, pa, len, &traced))
        memcpy(out, &traced, len); /* (the host is little-endian, as the harts) */
    return true;
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

void region_invalidate_code(rvt_machine *m, mem_region *r, uint64_t off, unsigned len) {
    /* A store may overwrite the second half of a 32-bit instruction. */
    uint64_t first = off >= 2 ? off - 2 : 0, last = off + len - 1;
    if (!r->icache[first >> 12] && !r->icache[last >> 12])
        return; /* (most stores: no decoded code on their pages) */
    bool flushed = false;
    for (uint64_t a = first & ~1ull; a <= last; a += 2) {
        rvt_insn *page = r->icache[a >> 12];
        if (page && page[(a & 0xfff) >> 1].len) {
            if (!flushed)
                port_code_barrier(m);
            flushed = true;
            page[(a & 0xfff) >> 1].len = 0;
            code_page_of(page)->id = ++m->code_ids; /* the code blocks were decoded from what is gone */
        }
    }
}

mem_region *region_of_host(rvt_machine *m, const uint8_t *host, uint64_t *off) {
    for (unsigned i = 0; i < m->nregions; i++) {
        mem_region *r = &m->regions[i];
        if ((uintptr_t)(host - r->data) < r->size) {
            *off = (uint64_t)(host - r->data);
            return r;
        }
    }
    return NULL;
}

bool phys_store(rvt_machine *m, hart *h, uint64_t pa, const void *in, unsigned len) {
    mem_region *r = phys_region(m, pa, len);
    if (r) {
        if (r->rom)
            return false;
        if (!h && m->observer) {
            uint64_t data = 0, old = 0;
            memcpy(&data, in, len);
            memcpy(&old, r->data + (pa - r->base), len);
            rvt_mem_access a = {.vaddr = pa, .paddr = pa, .data = data, .old = old, .kind = RVT_ACCESS_HOST,
                                .len = (uint8_t)len};
            observe_access(m, &a);
        }
        region_invalidate_code(m, r, pa - r->base, len); /* (before the code changes) */
        copy_small(r->data + (pa - r->base), in, len);
        if (h && pa == h->env.watched_store)
            h->env.store_watched(h);
        for (unsigned i = 0; i < m->nharts; i++) /* a store breaks other harts' reservations */
            if (&m->harts[i] != h && m->harts[i].resv_valid && m->harts[i].resv_addr == (pa & ~7ull))
                m->harts[i].resv_valid = false;
        return true;
    }
    device *d = machine_device_at(m, pa, len);
    return d && d->ops->store(d, pa - d->base, in, len);
}

/* A page of region r decoded its first instruction since the last flush. */
static void list_decoded(rvt_machine *m, mem_region *r, uint64_t page) {
    if (m->ndecoded == m->decoded_cap) {
        size_t cap = m->decoded_cap ? 2 * m->decoded_cap : 256;
        struct decoded_page *grown = realloc(m->decoded, cap * sizeof *grown);
        if (!grown) {
            m->decoded_overflow = true;
            return;
        }
        m->decoded = grown;
        m->decoded_cap = cap;
    }
    r->listed[page] = 1;
    m->decoded[m->ndecoded++] = (struct decoded_page){r, page};
}

/* A decoded page, zeroed, from the machine's chunks (NULL: no memory). */
static struct code_page *new_code_page(rvt_machine *m) {
    if (!m->ncode_chunks || m->code_chunk_used == CODE_PAGE_CHUNK) {
        struct code_page **grown = realloc(m->code_chunks, (m->ncode_chunks + 1) * sizeof *grown);
        if (!grown)
            return NULL;
        m->code_chunks = grown;
        struct code_page *chunk = rvt_pages_alloc(CODE_PAGE_CHUNK * sizeof *chunk);
        if (!chunk)
            return NULL;
        m->code_chunks[m->ncode_chunks++] = chunk;
        m->code_chunk_used = 0;
    }
    return &m->code_chunks[m->ncode_chunks - 1][m->code_chunk_used++];
}

const rvt_insn *phys_fetch(rvt_machine *m, uint64_t pa) {
    if (pa & 1)
        return NULL;
    mem_region *r = phys_region(m, pa, 2);
    if (!r)
        return NULL;
    uint64_t off = pa - r->base;
    rvt_insn **page = &r->icache[off >> 12];
    if (!*page) {
        struct code_page *made = new_code_page(m);
        if (!made)
            return NULL;
        made->pa = pa & ~0xfffull;
        made->id = ++m->code_ids;
        *page = made->slot;
        host_tlb_code_appeared(m, r->data + (off & ~0xfffull));
    }
    rvt_insn *slot = &(*page)[(off & 0xfff) >> 1];
    if (slot->len == 0) {
        uint32_t w = (uint32_t)r->data[off] | (uint32_t)r->data[off + 1] << 8;
        if ((w & 3) == 3) {
            if (off + 4 > r->size)
                return NULL;
            w |= (uint32_t)r->data[off + 2] << 16 | (uint32_t)r->data[off + 3] << 24;
        }
        rvt_decode(w, m->xlen, slot);
        if (!r->listed[off >> 12])
            list_decoded(m, r, off >> 12);
        if (m->port.code_watched && !m->port.image_changed)
            port_watch_decoded(m, r, pa, slot->len);
    }
    return slot;
}

void machine_flush_icache(rvt_machine *m) {
    /* Pages stay allocated: a running fetch loop may hold one. */
    for (size_t i = 0; i < m->ndecoded; i++) {
        const struct decoded_page *d = &m->decoded[i];
        memset(d->r->icache[d->page], 0, 2048 * sizeof(rvt_insn));
        d->r->listed[d->page] = 0;
        code_page_of(d->r->icache[d->page])->id = ++m->code_ids;
    }
    m->ndecoded = 0;
    if (!m->decoded_overflow)
        return;
    m->decoded_overflow = false;
    for (unsigned i = 0; i < m->nregions; i++) {
        mem_region *r = &m->regions[i];
        for (uint64_t p = 0; p < r->size >> 12; p++) {
            if (r->icache[p]) {
                memset(r->icache[p], 0, 2048 * sizeof(rvt_insn));
                code_page_of(r->icache[p])->id = ++m->code_ids;
            }
            r->listed[p] = 0;
        }
    }
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
    if (!m->stop) {
        m->stop = true;
        m->stop_reason = RVT_STOP_SINK;
    }
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
    m->max_insns = cfg->max_insns;
    m->nharts = cfg->nharts;
    m->harts = calloc(m->nharts, sizeof *m->harts);
    /* The pool fills from its start: on 2 MiB pages, one page fault for the
     * first 2 400 blocks rather than one per 4 KiB. */
    m->code_blocks = rvt_huge_alloc(CODE_BLOCK_POOL * sizeof *m->code_blocks);
    m->code_slots = rvt_pages_alloc(CODE_BLOCK_SLOTS * sizeof *m->code_slots);
    m->code_blocks_next = 1;
    int rc = RVT_E_NOMEM;
    if (port_init(&m->port, sink_refused, m) != RVT_OK || !m->harts || !m->code_blocks || !m->code_slots)
        goto fail;
    for (unsigned i = 0; i < cfg->nram; i++) {
        mem_region *r = &m->regions[m->nregions++];
        r->base = cfg->ram[i].base;
        r->size = cfg->ram[i].size;
        r->data = calloc(1, (size_t)r->size);
        r->icache = calloc((size_t)(r->size >> 12), sizeof *r->icache);
        r->listed = calloc((size_t)(r->size >> 12), 1);
        if (!r->data || !r->icache || !r->listed)
            goto fail;
    }
    mem_region *rom = &m->regions[m->nregions++];
    rom->base = BOOT_ROM_BASE;
    rom->size = BOOT_ROM_SIZE;
    rom->rom = true;
    rom->data = calloc(1, BOOT_ROM_SIZE);
    rom->icache = calloc(BOOT_ROM_SIZE >> 12, sizeof *rom->icache);
    rom->listed = calloc(BOOT_ROM_SIZE >> 12, 1);
    if (!rom->data || !rom->icache || !rom->listed)
        goto fail;
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
        hart_reset(&m->harts[i], m, i);
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
        free(m->regions[i].listed);
    }
    free(m->obs);
    free(m->decoded);
    sbi_free(m);
    for (unsigned i = 0; i < m->ndevices; i++)
        free(m->devices[i]);
    for (unsigned i = 0; m->harts && i < m->nharts; i++) {
        ctr_free(&m->harts[i]);
        mmu_free(&m->harts[i]);
    }
    free(m->harts);
    for (unsigned i = 0; i < m->ncode_chunks; i++)
        rvt_pages_free(m->code_chunks[i], CODE_PAGE_CHUNK * sizeof **m->code_chunks);
    free(m->code_chunks);
    rvt_huge_free(m->code_blocks, CODE_BLOCK_POOL * sizeof *m->code_blocks);
    rvt_pages_free(m->code_slots, CODE_BLOCK_SLOTS * sizeof *m->code_slots);
    port_free(&m->port);
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
    return !h->m->sbi || sbi_hart_runs(h);
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
        m->stop = true;
        m->stop_reason = RVT_STOP_EXIT;
        m->exit_code = 0;
        return true;
    }
    if (any_timer && next <= m->mtime) /* a timer that is already due woke nobody */
        return false;
    if (wait_for_input(m, any_timer ? next - m->mtime : UINT64_MAX))
        return true;
    if (!any_timer)
        return false;
    m->mtime = next;
    machine_time_moved(m);
    return true;
}

int rvt_machine_run(rvt_machine *m, rvt_run_result *res, rvt_diag *diag) {
    m->diag = diag;
    unsigned cur = 0, last = 0;
    bool any_ran = false; /* in this round of the harts */
    /* spike's host loop: between quanta the host answers tohost commands and
     * delivers fromhost responses; one command per loop iteration. */
    while (!m->stop) {
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
                    m->stop = true;
                    m->stop_reason = RVT_STOP_ASLEEP;
                    break;
                }
                any_ran = false;
                m->mtime += RVT_INTERLEAVE / RVT_INSNS_PER_RTC_TICK;
                machine_time_moved(m);
                if (m->progress_fn && m->instret_total >= m->progress_next) {
                    m->progress_next = m->instret_total + PROGRESS_PERIOD;
                    m->progress_fn(m->progress_user, m->instret_total);
                }
            }
        }
        if (!m->stop)
            htif_deliver(m);
        if (m->observer)
            observe_step(&m->harts[0], RVT_STEP_HOST, m->harts[0].pc, m->harts[0].priv, 0, 0);
    }
    for (unsigned i = 0; i < m->nharts; i++)
        hart_flush_block(&m->harts[i]);
    port_flush(&m->port);
    res->reason = m->stop_reason;
    res->exit_code = m->exit_code;
    res->instret = m->instret_total;
    res->traps = m->traps;
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
        region_invalidate_code(m, r, paddr - r->base, (unsigned)n); /* (before the code changes) */
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
