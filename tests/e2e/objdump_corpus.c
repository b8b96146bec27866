/* Every corpus program, both alias modes: our listing must equal the
 * reference objdump listing line for line from "Disassembly of section" on. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/image.h"

static const char *from_disassembly(const char *s) {
    const char *p = strstr(s, "Disassembly of section");
    return p ? p : s;
}

/* Prints the first differing line; returns the number of differing lines. */
static long compare(const char *name, const char *want, const char *got) {
    long line = 1, diffs = 0;
    while (*want || *got) {
        const char *we = strchr(want, '\n'), *ge = strchr(got, '\n');
        size_t wl = we ? (size_t)(we - want) : strlen(want), gl = ge ? (size_t)(ge - got) : strlen(got);
        if (wl != gl || memcmp(want, got, wl) != 0) {
            if (diffs++ == 0)
                fprintf(stderr, "%s: line %ld differs\n  objdump: %.*s\n  rvtrace: %.*s\n", name, line,
                        (int)wl, want, (int)gl, got);
        }
        want += wl + (we ? 1 : 0);
        got += gl + (ge ? 1 : 0);
        line++;
    }
    return diffs;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: objdump_corpus CORPUS_DIR\n");
        return 2;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/programs", argv[1]);
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    int checked = 0, failed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 7 || strcmp(e->d_name + n - 6, ".riscv") != 0)
            continue;
        char prog[4400], ref[4500];
        snprintf(prog, sizeof prog, "%s/%s", dir, e->d_name);
        for (int mode = 0; mode < 2; mode++) {
            snprintf(ref, sizeof ref, "%s/objdump/%.*s.%s.txt.zst", argv[1], (int)(n - 6), e->d_name,
                     mode ? "no-aliases" : "aliases");
            char *want;
            size_t wsize;
            rvt_diag diag = {{0}};
            if (rvt_read_file(ref, &want, &wsize, &diag)) {
                fprintf(stderr, "%s\n", diag.msg);
                failed++;
                continue;
            }
            rvt_image *img;
            char *got = NULL;
            size_t gsize = 0;
            FILE *mem = open_memstream(&got, &gsize);
            if (rvt_image_new(&img) || rvt_image_load_elf(img, prog, 0, &diag) ||
                rvt_image_write_objdump(img, 0, mode ? RVT_DIS_NO_ALIASES : 0, mem)) {
                fprintf(stderr, "%s: %s\n", prog, diag.msg);
                failed++;
            }
            fclose(mem);
            long diffs = compare(ref, from_disassembly(want), from_disassembly(got ? got : ""));
            if (diffs) {
                fprintf(stderr, "%s (%s): %ld lines differ\n", e->d_name, mode ? "no-aliases" : "aliases", diffs);
                failed++;
            }
            checked++;
            rvt_image_free(img);
            free(got);
            free(want);
        }
    }
    closedir(d);
    printf("objdump corpus: %d listings compared, %d differ\n", checked, failed);
    return failed || checked == 0 ? 1 : 0;
}
