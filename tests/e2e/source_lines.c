/* Source lines of an ELF file (rvt_image_source_line) against GNU objdump's
 * `objdump -dl` of it: every instruction objdump puts a "FILE:LINE" heading
 * in front of must resolve to that line of that file. objdump joins a
 * Windows-absolute name to the compilation directory as if it were relative
 * ("C:\dir/C:/src/x.c") and keeps backslashes; the names are compared with
 * "/" for "\", and a name of ours that starts with a drive letter may stand
 * for objdump's longer one that ends with it.
 * usage: source_lines ELF OBJDUMP_DL_OUTPUT
 * Prints the number of headed instructions checked; exit 1 on a difference
 * or when objdump headed none (the ELF would have no lines to check). */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/image.h"

static void slashes(char *s) {
    for (; *s; s++)
        if (*s == '\\')
            *s = '/';
}

static bool drive_rooted(const char *s) {
    return isalpha((unsigned char)s[0]) && s[1] == ':' && s[2] == '/';
}

/* objdump's name (already with "/") and ours name the same file. */
static bool same_file(const char *theirs, const char *ours) {
    if (!strcmp(theirs, ours))
        return true;
    size_t a = strlen(theirs), b = strlen(ours);
    return drive_rooted(ours) && a > b && theirs[a - b - 1] == '/' && !strcmp(theirs + a - b, ours);
}

/* "PATH:LINE" or "PATH:LINE (discriminator N)": the path and line, or false. */
static bool heading(char *s, unsigned *line) {
    char *d = strstr(s, " (discriminator ");
    if (d)
        *d = 0;
    char *colon = strrchr(s, ':');
    if (!colon || colon == s || !colon[1])
        return false;
    for (const char *c = colon + 1; *c; c++)
        if (!isdigit((unsigned char)*c))
            return false;
    *line = (unsigned)strtoul(colon + 1, NULL, 10);
    *colon = 0;
    return true;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: source_lines ELF OBJDUMP_DL_OUTPUT\n");
        return 2;
    }
    rvt_image *img;
    rvt_diag diag = {0};
    if (rvt_image_new(&img) || rvt_image_load_elf(img, argv[1], 0, &diag)) {
        fprintf(stderr, "source_lines: %s\n", diag.msg);
        return 1;
    }
    FILE *in = fopen(argv[2], "r");
    if (!in) {
        perror(argv[2]);
        return 1;
    }
    char *buf = NULL, want_file[4096] = "";
    size_t cap = 0;
    unsigned want_line = 0, checked = 0, bad = 0;
    bool pending = false; /* a heading waits for its first instruction */
    while (getline(&buf, &cap, in) > 0) {
        buf[strcspn(buf, "\r\n")] = 0;
        uint64_t addr;
        int used = 0;
        if (sscanf(buf, " %" SCNx64 ":%n", &addr, &used) == 1 && used && buf[used] == '\t') {
            if (!pending)
                continue;
            pending = false;
            checked++;
            const char *file = NULL;
            unsigned line = 0;
            if (!rvt_image_source_line(img, addr, &file, &line)) {
                if (bad++ < 10)
                    printf("%#" PRIx64 ": objdump has %s:%u, we have no line\n", addr, want_file, want_line);
            } else if (line != want_line || !same_file(want_file, file)) {
                if (bad++ < 10)
                    printf("%#" PRIx64 ": objdump has %s:%u, we have %s:%u\n", addr, want_file, want_line, file, line);
            }
            continue;
        }
        unsigned line;
        if (buf[0] && buf[0] != ' ' && !strstr(buf, "():") && heading(buf, &line) && strlen(buf) < sizeof want_file) {
            strcpy(want_file, buf);
            slashes(want_file);
            want_line = line;
            pending = true;
        }
    }
    free(buf);
    fclose(in);
    rvt_image_free(img);
    printf("%s: %u instructions with a line heading, %u differ\n", argv[1], checked, bad);
    return bad || !checked;
}
