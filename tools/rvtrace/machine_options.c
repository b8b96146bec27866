/* The machine a program runs on, as rvtrace run and rvtrace verify are told
 * it: one parser and one builder, so that a trace made by `run` is verified
 * on the very machine it ran on when `verify` is given the same options. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

const char *const machine_option_help =
    "  --sbi              PROGRAM is an S-mode payload: it starts in S-mode at its\n"
    "                     entry (a0 = hartid) and an SBI v3.0 environment in the\n"
    "                     host answers its ecalls (docs/sbi.md); exit code from SBI\n"
    "                     system reset; RAM 128 MiB at 0x80000000 unless -m says\n"
    "  --firmware FW.bin  M-mode firmware (OpenSBI's fw_jump.bin) at the start of RAM,\n"
    "                     entered from the boot ROM with a1 = the device tree; the\n"
    "                     program is its payload (OpenSBI: linked at 0x80200000)\n"
    "                     A payload may be a Linux RISC-V Image (flat binary with\n"
    "                     the Image header): loaded at the start of RAM plus its\n"
    "                     text_offset and entered there in S-mode, MMU off\n"
    "  --xlen 32|64       XLEN of a Linux Image payload (default 64; the header\n"
    "                     does not say)\n"
    "  --bootargs TEXT    /chosen/bootargs of the device tree (--sbi, --firmware)\n"
    "  --initrd FILE      an initial RAM disk near the top of RAM, in /chosen\n"
    "  -m SPEC            memory: BASE:SIZE[,BASE:SIZE...] or a size in MiB at\n"
    "                     0x80000000 (default 0x20010000:0x40000,0x80000000:0x400000)\n"
    "  -p N               number of harts (default 1)\n"
    "  --pmpregions N     PMP entries (default 16; 0 makes the PMP CSRs illegal)\n"
    "  --ctr VERSION      control transfer records: 0.1.4 (default), 1.0 or none\n"
    "  --ctr-depths MIN..MAX  the CTR depths the harts support (default 16..256)\n"
    "  --ic S:W:B, --dc S:W:B, --l2 S:W:B  instruction, data and second-level\n"
    "                     caches of S sets, W ways and B-byte blocks, as spike's\n"
    "                     (also --ic=S:W:B): their accesses and misses are the\n"
    "                     cache events of the counters (docs/pmu.md); `run` prints\n"
    "                     spike's report of them on standard error at the end\n";

void machine_options_init(machine_options *mo) {
    memset(mo, 0, sizeof *mo);
    rvt_machine_config_default(&mo->cfg);
    mo->payload_xlen = 64;
}

static bool ctr_depth_ok(unsigned d) { return d >= 16 && d <= 256 && !(d & (d - 1)); }

/* --ic, --dc, --l2: the geometry it sets, NULL for another option. */
static rvt_cache_geometry *cache_option(rvt_machine_config *cfg, const char *a, size_t len) {
    if (!strncmp(a, "--ic", len) && len == 4)
        return &cfg->icache;
    if (!strncmp(a, "--dc", len) && len == 4)
        return &cfg->dcache;
    if (!strncmp(a, "--l2", len) && len == 4)
        return &cfg->l2;
    return NULL;
}

static int cache_geometry_option(const char *tool, const char *option, const char *spec, rvt_cache_geometry *g) {
    rvt_diag diag = {{0}};
    if (rvt_parse_cache_geometry(spec, g, &diag)) {
        fprintf(stderr, "%s: %.4s: %s\n", tool, option, diag.msg);
        return -1;
    }
    return 1;
}

static int memory_option(const char *tool, const char *spec, machine_options *mo) {
    rvt_diag diag = {{0}};
    mo->memory_given = true;
    if (rvt_parse_mem_regions(spec, &mo->cfg, &diag)) {
        fprintf(stderr, "%s: %s\n", tool, diag.msg);
        return -1;
    }
    return 1;
}

int parse_machine_option(const char *tool, int argc, char **argv, int *i, machine_options *mo) {
    const char *a = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    rvt_machine_config *cfg = &mo->cfg;
    if (!strcmp(a, "--sbi")) {
        cfg->sbi = true;
        return 1;
    }
    if (!strncmp(a, "-m", 2) && a[2]) /* -m512, as spike takes it */
        return memory_option(tool, a + 2, mo);
    rvt_cache_geometry *geometry = cache_option(cfg, a, 4);
    if (geometry && a[4] == '=') /* --ic=S:W:B, as spike takes it */
        return cache_geometry_option(tool, a, a + 5, geometry);
    if (!val)
        return 0; /* (the options below take a value: the caller says it is missing) */
    if (!strcmp(a, "--firmware")) {
        mo->firmware_path = val;
    } else if (!strcmp(a, "--initrd")) {
        mo->initrd_path = val;
    } else if (!strcmp(a, "--bootargs")) {
        cfg->bootargs = val;
    } else if (!strcmp(a, "--xlen")) {
        if (strcmp(val, "32") && strcmp(val, "64")) {
            fprintf(stderr, "%s: --xlen is 32 or 64, not '%s'\n", tool, val);
            return -1;
        }
        mo->payload_xlen = (unsigned)atoi(val);
    } else if (!strcmp(a, "-m")) {
        int rc = memory_option(tool, val, mo);
        if (rc < 0)
            return rc;
    } else if (!strcmp(a, "-p")) {
        uint64_t n = option_number(a, val, 64);
        if (n == 0) {
            fprintf(stderr, "%s: -p takes 1..64\n", tool);
            return -1;
        }
        cfg->nharts = (unsigned)n;
    } else if (geometry && !a[4]) {
        if (cache_geometry_option(tool, a, val, geometry) < 0)
            return -1;
    } else if (!strcmp(a, "--pmpregions")) {
        cfg->pmp_regions = (unsigned)option_number(a, val, 64);
    } else if (!strcmp(a, "--ctr")) {
        if (!strcmp(val, "0.1.4"))
            cfg->ctr_version = RVT_CTR_0_1_4;
        else if (!strcmp(val, "1.0"))
            cfg->ctr_version = RVT_CTR_1_0;
        else if (!strcmp(val, "none"))
            cfg->ctr_version = RVT_CTR_NONE;
        else {
            fprintf(stderr, "%s: --ctr takes 0.1.4, 1.0 or none, got '%s'\n", tool, val);
            return -1;
        }
    } else if (!strcmp(a, "--ctr-depths")) {
        unsigned lo, hi;
        char tail;
        if (sscanf(val, "%u..%u%c", &lo, &hi, &tail) != 2) {
            fprintf(stderr, "%s: --ctr-depths takes MIN..MAX, e.g. 16..64, got '%s'\n", tool, val);
            return -1;
        }
        if (!ctr_depth_ok(lo) || !ctr_depth_ok(hi) || lo > hi) {
            fprintf(stderr, "%s: --ctr-depths takes MIN..MAX, powers of two in 16..256 with MIN <= MAX, got '%s'\n",
                    tool, val);
            return -1;
        }
        cfg->ctr_min_depth = lo, cfg->ctr_max_depth = hi;
    } else {
        return 0;
    }
    ++*i;
    return 1;
}

int machine_options_finish(const char *tool, machine_options *mo) {
    rvt_machine_config *cfg = &mo->cfg;
    if (cfg->sbi && mo->firmware_path) {
        fprintf(stderr, "%s: --sbi and --firmware are two ways to run a payload; choose one\n", tool);
        return -1;
    }
    if ((cfg->sbi || mo->firmware_path || mo->initrd_path || cfg->bootargs) && !mo->memory_given) {
        cfg->ram[0] = (rvt_mem_region){0x80000000u, 128u << 20}; /* room for an operating system */
        cfg->nram = 1;
    }
    return 0;
}

/* The program: an ELF file, or (as a payload of --sbi or --firmware) a
 * Linux RISC-V Image, loaded at the start of RAM plus its text_offset. A
 * program file (an ELF with its debugging information, or an Image) is read
 * whole: beyond this it is not one, as for an ELF from a pipe. */
#define PROGRAM_FILE_MAX ((size_t)1 << 30)

static int load_program(rvt_image *img, const char *program, const rvt_machine_config *cfg, unsigned xlen,
                        rvt_diag *diag) {
    char *data;
    size_t size;
    int rc = rvt_read_file_max(program, &data, &size, PROGRAM_FILE_MAX, "a program", diag);
    if (rc)
        return rc;
    rc = rvt_image_load_program(img, program, data, size, cfg->ram[0].base, cfg->sbi || cfg->firmware, xlen, diag);
    free(data);
    return rc;
}

int machine_options_load(const char *tool, machine_options *mo, const char *program, rvt_image **img) {
    rvt_diag diag = {{0}};
    rvt_machine_config *cfg = &mo->cfg;
    *img = NULL;
    /* Firmware and an initial RAM disk are copied into RAM: more than it
     * holds cannot be either (and /dev/zero would be read until memory ran out). */
    uint64_t ram_total = 0;
    for (unsigned i = 0; i < cfg->nram; i++)
        ram_total += cfg->ram[i].size;
    size_t ram_bound = ram_total < SIZE_MAX ? (size_t)ram_total : SIZE_MAX;
    if ((mo->firmware_path && rvt_read_file_max(mo->firmware_path, &mo->firmware, &cfg->firmware_size, ram_bound,
                                                "firmware (more than the RAM)", &diag)) ||
        (mo->initrd_path && rvt_read_file_max(mo->initrd_path, &mo->initrd, &cfg->initrd_size, ram_bound,
                                              "an initial RAM disk (more than the RAM)", &diag))) {
        fprintf(stderr, "%s: %s\n", tool, diag.msg);
        return -1;
    }
    cfg->firmware = mo->firmware;
    if (rvt_image_new(img) || load_program(*img, program, cfg, mo->payload_xlen, &diag)) {
        fprintf(stderr, "%s: %s\n", tool, diag.msg[0] ? diag.msg : "out of memory");
        return -1;
    }
    cfg->initrd = mo->initrd;
    cfg->board = mo->firmware_path || mo->initrd_path || cfg->bootargs;
    return 0;
}

int machine_options_build(const char *tool, machine_options *mo, const char *program, rvt_image *img,
                          rvt_machine **m) {
    rvt_diag diag = {{0}};
    if (!rvt_machine_new(m, &mo->cfg, img, &diag))
        return 0;
    /* The machine's messages about the firmware name no file: the one at
     * fault is the firmware (its size), or both (an overlap), never the
     * payload alone. */
    const char *fw = mo->firmware_path;
    if (fw && !strncmp(diag.msg, "the firmware", 12))
        fprintf(stderr, "%s: --firmware %s: %s\n", tool, fw, diag.msg);
    else if (fw && strstr(diag.msg, "firmware"))
        fprintf(stderr, "%s: %s with --firmware %s: %s\n", tool, program, fw, diag.msg);
    else
        fprintf(stderr, "%s: %s: %s\n", tool, program, diag.msg);
    return -1;
}

void machine_options_free(machine_options *mo) {
    free(mo->firmware);
    free(mo->initrd);
    mo->firmware = mo->initrd = NULL;
    mo->cfg.firmware = mo->cfg.initrd = NULL;
}
