/* Decode an E-Trace capture (the reference flow's raw te_inst stream) with
 * the program it traced, and print how many instructions retired in each
 * function, most first.
 *
 *   decode_profile HW.scf ENCODER.ucf PROGRAM.elf TRACE
 *
 * The decoder reads the code through a callback: here the ELF image, and
 * for addresses outside it (spike's boot ROM, where a trace from reset
 * starts) the memory of a hart model built for the program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rvtrace/rvtrace.h>

typedef struct {
    const char *name; /* the image's string: one pointer per symbol */
    uint64_t count;
} function_count;

typedef struct {
    rvt_image *img;
    rvt_machine *machine;
    function_count *funcs;
    size_t nfuncs, cap;
    uint64_t total;
} profile;

static bool fetch_code(void *user, uint64_t addr, rvt_insn *out) {
    profile *p = user;
    return rvt_program_insn(p->img, p->machine, addr, out);
}

static bool read_rom(void *user, uint64_t addr, void *buf, unsigned n) {
    return rvt_machine_read_rom(((profile *)user)->machine, addr, buf, n);
}

/* Called for every retired instruction, in order. */
static int count_pc(void *user, uint64_t pc) {
    profile *p = user;
    uint64_t offset;
    const char *name = rvt_image_symbolize(p->img, pc, &offset);
    if (!name)
        name = "?"; /* outside the program's code (a boot ROM), as rvtrace decode --profile says */
    p->total++;
    /* The last function found is the likeliest one again. */
    for (size_t i = p->nfuncs; i-- > 0;)
        if (p->funcs[i].name == name) {
            p->funcs[i].count++;
            return 0;
        }
    if (p->nfuncs == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        function_count *grown = realloc(p->funcs, cap * sizeof *grown);
        if (!grown)
            return 1; /* stops the decoder */
        p->funcs = grown;
        p->cap = cap;
    }
    p->funcs[p->nfuncs++] = (function_count){name, 1};
    return 0;
}

static int most_first(const void *a, const void *b) {
    const function_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s HW.scf ENCODER.ucf PROGRAM.elf TRACE\n", argv[0]);
        return 2;
    }
    if (rvt_version() >> 16 != RVT_VERSION_MAJOR) {
        fprintf(stderr, "built for librvtrace %s, running with %s\n", RVT_VERSION_STRING, rvt_version_string());
        return 1;
    }
    rvt_diag diag = {{0}};
    rvt_etrace_params params;
    rvt_etrace_options options;
    profile prof = {0};
    rvt_etrace_decoder *dec = NULL;
    char *trace = NULL;
    size_t trace_size = 0;
    int status = 1, rc;
    if ((rc = rvt_etrace_load_config(argv[1], argv[2], &params, &options, &diag)) ||
        (rc = rvt_image_new(&prof.img)) || (rc = rvt_image_load_elf(prof.img, argv[3], 0, &diag)) ||
        (rc = rvt_read_file(argv[4], &trace, &trace_size, &diag)))
        goto fail;
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    if ((rc = rvt_machine_new(&prof.machine, &cfg, prof.img, &diag)) ||
        (rc = rvt_etrace_decoder_new(&dec, &params, &options, rvt_image_xlen(prof.img), fetch_code, count_pc,
                                     &prof)))
        goto fail;
    rvt_etrace_decoder_set_const_memory(dec, read_rom, &prof);

    /* One packet at a time from the stream in memory. */
    rvt_te_raw_cursor cursor = {.data = (const uint8_t *)trace, .size = trace_size};
    rvt_te_inst packet;
    while ((rc = rvt_te_raw_next(&cursor, &params, &options, &packet, NULL, &diag)) == 1)
        if ((rc = rvt_etrace_decode(dec, &packet, &diag)))
            goto fail;
    if (rc < 0)
        goto fail;

    qsort(prof.funcs, prof.nfuncs, sizeof *prof.funcs, most_first);
    printf("%" PRIu64 " instructions in %zu functions\n", prof.total, prof.nfuncs);
    for (size_t i = 0; i < prof.nfuncs; i++)
        printf("%12" PRIu64 "  %s\n", prof.funcs[i].count, prof.funcs[i].name);
    status = 0;
fail:
    if (status)
        fprintf(stderr, "decode_profile: %s%s%s\n", rvt_strerror(rc), diag.msg[0] ? ": " : "", diag.msg);
    rvt_etrace_decoder_free(dec);
    rvt_machine_free(prof.machine);
    rvt_image_free(prof.img);
    free(prof.funcs);
    free(trace);
    return status;
}
