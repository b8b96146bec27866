/* A trace listing (`rvtrace decode --listing`) against the reference objdump
 * listing of its program: every instruction line's symbol+offset and
 * disassembly must be objdump's for that address. The address comments
 * (" # ADDR") are left out of the comparison: objdump's follow the order of
 * the code, a trace listing's the order of execution.
 * usage: listing_check OBJDUMP.txt[.zst] LISTING */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/image.h"

typedef struct {
    uint64_t addr;
    char *text;  /* without its comment */
    char *where; /* "<sym>" or "<sym+0xOFF>" */
} ref_line;

static int by_addr(const void *a, const void *b) {
    const ref_line *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static char *copy(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) {
        perror("listing_check");
        exit(1);
    }
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

/* The instruction text without objdump's comment and trailing blanks. */
static size_t text_length(const char *s, size_t n) {
    const char *hash = memmem(s, n, " #", 2);
    if (hash)
        n = (size_t)(hash - s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n;
}

static ref_line *read_objdump(char *text, size_t *count) {
    size_t cap = 1024, n = 0;
    ref_line *lines = malloc(cap * sizeof *lines);
    char sym[512] = "";
    uint64_t base = 0;
    if (!lines) {
        perror("listing_check");
        exit(1);
    }
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        uint64_t addr;
        int used = 0;
        char name[512];
        if (sscanf(line, "%" SCNx64 " <%511[^>]>:%n", &addr, name, &used) == 2 && used) {
            snprintf(sym, sizeof sym, "%s", name);
            base = addr;
            continue;
        }
        /* "    ADDR:\tBYTES\tTEXT": continuation lines of long encodings have no text */
        char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
        if (!tab2 || sscanf(line, " %" SCNx64 ":", &addr) != 1 || !sym[0])
            continue;
        if (n == cap) {
            ref_line *more = realloc(lines, (cap *= 2) * sizeof *lines);
            if (!more) {
                perror("listing_check");
                exit(1);
            }
            lines = more;
        }
        char where[600];
        if (addr == base)
            snprintf(where, sizeof where, "<%s>", sym);
        else
            snprintf(where, sizeof where, "<%s+0x%" PRIx64 ">", sym, addr - base);
        lines[n++] = (ref_line){addr, copy(tab2 + 1, text_length(tab2 + 1, strlen(tab2 + 1))),
                                copy(where, strlen(where))};
    }
    qsort(lines, n, sizeof *lines, by_addr);
    *count = n;
    return lines;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: listing_check OBJDUMP.txt[.zst] LISTING\n");
        return 2;
    }
    char *objdump, *listing;
    size_t osize, lsize, nref;
    rvt_diag diag = {{0}};
    if (rvt_read_file(argv[1], &objdump, &osize, &diag) || rvt_read_file(argv[2], &listing, &lsize, &diag)) {
        fprintf(stderr, "listing_check: %s\n", diag.msg);
        return 1;
    }
    ref_line *ref = read_objdump(objdump, &nref);
    unsigned long checked = 0, elsewhere = 0, traps = 0, failed = 0, lineno = 0;
    for (char *line = strtok(listing, "\n"); line; line = strtok(NULL, "\n")) {
        lineno++;
        /* "%16x %-28s TEXT[\tFILE:LINE]", or a trap: 16 blanks, " -- " */
        if (strncmp(line + strspn(line, " "), "-- ", 3) == 0) {
            traps++;
            continue;
        }
        uint64_t addr;
        int used = 0;
        if (strlen(line) < 47 || sscanf(line, " %" SCNx64 "%n", &addr, &used) != 1 || used != 16) {
            fprintf(stderr, "%s:%lu: not a listing line: %s\n", argv[2], lineno, line);
            failed++;
            break;
        }
        ref_line key = {.addr = addr}, *want = bsearch(&key, ref, nref, sizeof *ref, by_addr);
        if (!want) { /* code outside the program (the boot ROM) */
            elsewhere++;
            continue;
        }
        const char *where = line + 17, *end = where[0] == '<' ? strstr(where, "> ") : where;
        size_t wl = where[0] == '<' && end ? (size_t)(end + 1 - where) : 0;
        const char *text = where + (wl > 28 ? wl : 28) + 1;
        size_t tl = strlen(want->text);
        bool same_text = strncmp(text, want->text, tl) == 0 &&
                         (text[tl] == 0 || text[tl] == '\t' || strncmp(text + tl, " #", 2) == 0);
        if (wl != strlen(want->where) || strncmp(where, want->where, wl) != 0 || !same_text) {
            if (failed++ < 5)
                fprintf(stderr, "%s:%lu differs\n  objdump: %" PRIx64 " %s %s\n  listing: %s\n", argv[2], lineno,
                        addr, want->where, want->text, line);
        } else {
            checked++;
        }
    }
    printf("listing_check: %lu lines as objdump, %lu outside the program, %lu traps, %lu differ\n", checked,
           elsewhere, traps, failed);
    for (size_t i = 0; i < nref; i++) {
        free(ref[i].text);
        free(ref[i].where);
    }
    free(ref);
    free(objdump);
    free(listing);
    return failed || !checked;
}
