/* The cache events counted by the performance counters against spike's
 * cache simulator: for every run recorded in cache_spike.txt (spike's own
 * report, cache_spike_record.sh), the machine gets the same caches,
 * mhpmcounter3.. count every cache event of the caches it has (all
 * privileges, from reset, as --pmu-events programs them), and at the end of
 * the run each counter must equal spike's figure: read and write accesses
 * and misses of the data cache and the second level, reads and read misses
 * of the instruction cache. An event of a cache the machine lacks must be
 * refused.
 * Usage: cache_counters SHARED_DIR RECORDED */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/hart.h"
#include "rvtrace/image.h"

enum { FIELD_READS, FIELD_WRITES, FIELD_READ_MISSES, FIELD_WRITE_MISSES, FIELD_COUNT };
static const char *const field_names[FIELD_COUNT] = {"Read Accesses:", "Write Accesses:", "Read Misses:",
                                                     "Write Misses:"};

typedef struct recorded_run {
    char program[128];
    char options[3][64]; /* --ic=..., --dc=..., --l2=... as given */
    unsigned noptions;
    bool has[3];                 /* by enum rvt_pmu_cache_id */
    uint64_t want[3][FIELD_COUNT];
} recorded_run;

static int failures;

static int cache_of_name(const char *name) {
    return !strcmp(name, "D$") ? RVT_PMU_CACHE_L1D : !strcmp(name, "I$") ? RVT_PMU_CACHE_L1I
           : !strcmp(name, "L2$")                                           ? RVT_PMU_CACHE_LL
                                                                            : -1;
}

static void check_run(const char *shared, const recorded_run *r) {
    char path[512];
    snprintf(path, sizeof path, "%s/corpus/programs/%s", shared, r->program);
    rvt_diag d = {{0}};
    rvt_image *img;
    if (rvt_image_new(&img) || rvt_image_load_elf(img, path, 0, &d)) {
        fprintf(stderr, "FAIL: %s: %s\n", r->program, d.msg);
        failures++;
        return;
    }
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    FILE *null = fopen("/dev/null", "w");
    cfg.console = null;
    cfg.max_insns = 200000000;
    for (unsigned i = 0; i < r->noptions; i++) {
        const char *o = r->options[i];
        rvt_cache_geometry *g = !strncmp(o, "--ic=", 5) ? &cfg.icache : !strncmp(o, "--dc=", 5) ? &cfg.dcache : &cfg.l2;
        if (rvt_parse_cache_geometry(o + 5, g, &d)) {
            fprintf(stderr, "FAIL: %s: %s\n", r->program, d.msg);
            failures++;
        }
    }
    rvt_machine *m;
    if (rvt_machine_new(&m, &cfg, img, &d)) {
        fprintf(stderr, "FAIL: %s: %s\n", r->program, d.msg);
        failures++;
        fclose(null);
        rvt_image_free(img);
        return;
    }
    /* counter per (cache, field); 0: that event is not one the cache has */
    unsigned counter[3][FIELD_COUNT] = {{0}}, next = 3;
    for (unsigned c = 0; c < 3; c++)
        for (unsigned f = 0; f < FIELD_COUNT; f++) {
            unsigned op = f == FIELD_WRITES || f == FIELD_WRITE_MISSES, miss = f >= FIELD_READ_MISSES;
            if (c == RVT_PMU_CACHE_L1I && op)
                continue; /* no writes to the instruction cache */
            uint64_t code = RVT_PMU_CACHE_EVENT(c, op, miss);
            int rc = rvt_machine_hpm_program(m, 0, next, code, &d);
            if (r->has[c] && rc == 0) {
                counter[c][f] = next++;
            } else if (r->has[c] || rc != RVT_E_UNSUPP) {
                fprintf(stderr, "FAIL: %s: event %#" PRIx64 " %s (%d: %s)\n", r->program, code,
                        r->has[c] ? "refused" : "taken without its cache", rc, d.msg);
                failures++;
            }
        }
    rvt_run_result res;
    rvt_machine_run(m, &res, &d);
    if (res.reason != RVT_STOP_EXIT || res.exit_code != 0) {
        fprintf(stderr, "FAIL: %s: did not exit cleanly (reason %d, code %d)\n", r->program, res.reason, res.exit_code);
        failures++;
    }
    unsigned compared = 0;
    for (unsigned c = 0; c < 3; c++)
        for (unsigned f = 0; f < FIELD_COUNT; f++) {
            if (!counter[c][f])
                continue;
            uint64_t event, got = rvt_machine_hpm_counter(m, 0, counter[c][f], &event, false);
            compared++;
            if (got != r->want[c][f]) {
                fprintf(stderr, "FAIL: %s: mhpmcounter%u (%s) = %" PRIu64 ", spike's %s %s %" PRIu64 "\n", r->program,
                        counter[c][f], rvt_pmu_event_name(event), got,
                        c == RVT_PMU_CACHE_L1D ? "D$" : c == RVT_PMU_CACHE_L1I ? "I$" : "L2$", field_names[f],
                        r->want[c][f]);
                failures++;
            }
        }
    printf("%-28s %u counters compared\n", r->program, compared);
    rvt_machine_free(m);
    rvt_image_free(img);
    fclose(null);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cache_counters SHARED_DIR RECORDED\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) {
        fprintf(stderr, "cache_counters: cannot open %s\n", argv[2]);
        return 2;
    }
    char line[512];
    recorded_run r;
    bool open = false;
    unsigned runs = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "run ", 4)) {
            memset(&r, 0, sizeof r);
            char isa[32];
            int used = 0;
            if (sscanf(line, "run %127s %31s %n", r.program, isa, &used) < 2)
                break;
            for (char *tok = strtok(line + used, " \n"); tok && r.noptions < 3; tok = strtok(NULL, " \n"))
                snprintf(r.options[r.noptions++], sizeof r.options[0], "%s", tok);
            open = true;
        } else if (open && !strncmp(line, "end", 3)) {
            check_run(argv[1], &r);
            runs++;
            open = false;
        } else if (open) {
            char name[8];
            int used = 0;
            if (sscanf(line, "%7s %n", name, &used) != 1 || cache_of_name(name) < 0)
                continue;
            int c = cache_of_name(name);
            r.has[c] = true;
            for (unsigned k = 0; k < FIELD_COUNT; k++)
                if (!strncmp(line + used, field_names[k], strlen(field_names[k])))
                    r.want[c][k] = strtoull(line + used + strlen(field_names[k]), NULL, 10);
        }
    }
    fclose(f);
    if (runs < 10) {
        fprintf(stderr, "FAIL: only %u recorded runs in %s\n", runs, argv[2]);
        failures++;
    }
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
