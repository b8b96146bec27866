/* The e2e harnesses' common start: a program's ELF loaded and the machine the
 * hart model gives it, its console discarded. */
#ifndef RVT_TESTS_PROGRAM_RUN_H
#define RVT_TESTS_PROGRAM_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/hart.h"
#include "rvtrace/image.h"

typedef struct {
    rvt_image *img;
    rvt_machine *m;
    FILE *console;
} program_run;

/* Prints the problem and returns non-zero when the program cannot run.
 * RVT_TEST_MAX_INSNS, when set, lowers max_insns: the sanitizer build runs
 * the corpus-wide round trips on each program's first instructions only
 * (the release build runs them whole). The machine has `pmp_regions` PMP
 * entries (spike's default is 16); with `sbi` the program is an S-mode
 * payload (rvtrace run --sbi). */
static inline int program_run_open_with(program_run *p, const char *path, uint64_t max_insns, unsigned pmp_regions,
                                        bool sbi) {
    const char *cap_text = getenv("RVT_TEST_MAX_INSNS");
    uint64_t cap = cap_text ? strtoull(cap_text, NULL, 10) : 0;
    if (cap && cap < max_insns)
        max_insns = cap;
    rvt_diag d = {{0}};
    p->m = NULL;
    p->console = NULL;
    if (rvt_image_new(&p->img) || rvt_image_load_elf(p->img, path, 0, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return 1;
    }
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.console = p->console = fopen("/dev/null", "w");
    cfg.max_insns = max_insns;
    cfg.pmp_regions = pmp_regions;
    cfg.sbi = sbi; /* an S-mode payload under the SBI environment (docs/sbi.md) */
    if (sbi) {
        cfg.ram[0] = (rvt_mem_region){0x80000000u, 128u << 20};
        cfg.nram = 1;
    }
    if (!p->console || rvt_machine_new(&p->m, &cfg, p->img, &d)) {
        fprintf(stderr, "%s: %s\n", path, p->console ? d.msg : "cannot open /dev/null");
        return 1;
    }
    return 0;
}

static inline int program_run_open_pmp(program_run *p, const char *path, uint64_t max_insns, unsigned pmp_regions) {
    return program_run_open_with(p, path, max_insns, pmp_regions, false);
}

static inline int program_run_open(program_run *p, const char *path, uint64_t max_insns) {
    return program_run_open_pmp(p, path, max_insns, 16);
}

/* The PMP entries a corpus program was traced with, from the options file
 * (tests/e2e/spike_trace_options.txt: NAME --pmpregions N); 16 otherwise. */
static inline unsigned program_pmp_regions(const char *options_file, const char *program) {
    const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;
    size_t plen = strcspn(base, ".");
    unsigned regions = 16;
    FILE *f = options_file ? fopen(options_file, "r") : NULL;
    if (!f)
        return regions;
    char line[512], name[128];
    while (fgets(line, sizeof line, f)) {
        unsigned n;
        if (line[0] != '#' && sscanf(line, "%127s --pmpregions %u", name, &n) == 2 && strlen(name) == plen &&
            !strncmp(name, base, plen))
            regions = n;
    }
    fclose(f);
    return regions;
}

static inline void program_run_close(program_run *p) {
    rvt_machine_free(p->m);
    rvt_image_free(p->img);
    if (p->console)
        fclose(p->console);
}

#endif
