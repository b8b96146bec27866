/* SiFive's trace-tool settings files (`key = value` lines, as Freedom
 * Studio and the tracer write them) and the images they name: ELF files,
 * raw binaries (image = FILE:START-END), a process's executable mappings
 * (map = PID,MAPS: a /proc/PID/maps listing), the vDSO and the kernel's text
 * pages (kmempath: kmem.0xADDR files). Paths are relative to the settings
 * file; mapped files are found by their base name beside it, or under
 * --sysroot DIR by their full path. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = 0;
    return s;
}

/* `name` relative to the directory of `base` (absolute names stay); an
 * over-long result is cut, and then names no file. */
static void relative_to(char *out, size_t cap, const char *base, const char *name) {
    const char *slash = strrchr(base, '/');
    int n = name[0] == '/' || !slash ? snprintf(out, cap, "%s", name)
                                     : snprintf(out, cap, "%.*s/%s", (int)(slash - base), base, name);
    if (n < 0 || (size_t)n >= cap)
        out[0] = 0;
}

static bool exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The code files a settings file names are read whole: 1 GiB at most. */
#define NAMED_FILE_MAX ((size_t)1 << 30)

static int load_raw_file(rvt_image *img, const char *path, uint64_t addr, unsigned xlen, rvt_diag *diag) {
    char *data;
    size_t size;
    int rc = rvt_read_file_max(path, &data, &size, NAMED_FILE_MAX, "a file a settings file names", diag);
    if (rc)
        return rc;
    rc = size ? rvt_image_load_raw(img, path, data, size, addr, 0, xlen, diag) : RVT_OK;
    free(data);
    return rc;
}

/* An ELF file mapped at `start`: an executable keeps its own addresses, a
 * shared object (the vDSO, a library) moves by start - file offset. */
static int load_mapped_elf(rvt_image *img, const char *path, uint64_t start, uint64_t offset, rvt_diag *diag) {
    char *data;
    size_t size;
    int rc = rvt_read_file_max(path, &data, &size, NAMED_FILE_MAX, "a file a settings file names", diag);
    if (rc)
        return rc;
    uint16_t type = size >= 18 ? (uint16_t)((uint8_t)data[16] | (uint8_t)data[17] << 8) : 0;
    rc = rvt_image_load_elf_mem(img, path, data, size, type == 2 /* ET_EXEC */ ? 0 : start - offset, diag);
    free(data);
    return rc;
}

/* The executable mappings of a /proc/PID/maps listing. */
static int load_map(rvt_image *img, const char *settings, const char *maps, const char *vdso, const char *sysroot,
                    rvt_diag *diag) {
    FILE *f = fopen(maps, "r");
    if (!f)
        return rvt_diag_set(diag, RVT_E_IO, "%s: %s", maps, strerror(errno));
    char line[4096];
    unsigned lineno = 0;
    int rc = RVT_OK;
    char *loaded[64];
    unsigned nloaded = 0;
    while (rc == RVT_OK && fgets(line, sizeof line, f)) {
        lineno++;
        unsigned long long start, end, offset;
        char perms[8], dev[32], path[2048] = "";
        unsigned long inode;
        int n = sscanf(line, "%llx-%llx %7s %llx %31s %lu %2047[^\n]", &start, &end, perms, &offset, dev, &inode,
                       path);
        if (n < 6) {
            rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: not a maps line (START-END PERMS OFFSET DEV INODE PATH)",
                              maps, lineno);
            break;
        }
        char *p = trim(path);
        if (!strchr(perms, 'x') || !*p)
            continue;
        char file[4096];
        if (!strcmp(p, "[vdso]")) {
            if (!vdso)
                continue; /* its code is not at hand: the flow through it is lost */
            relative_to(file, sizeof file, settings, vdso);
        } else if (p[0] == '[') {
            continue;
        } else {
            const char *base = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
            relative_to(file, sizeof file, settings, base);
            if (sysroot && !exists(file) && snprintf(file, sizeof file, "%s%s", sysroot, p) >= (int)sizeof file)
                file[0] = 0;
        }
        bool seen = false;
        for (unsigned i = 0; i < nloaded; i++)
            seen |= !strcmp(loaded[i], file);
        if (seen)
            continue;
        if (!exists(file)) {
            fprintf(stderr, "rvtrace decode: %s:%u: %s is not at hand (beside the settings file%s); its code "
                            "cannot be followed\n", maps, lineno, p, sysroot ? " or under --sysroot" : "");
            continue;
        }
        rc = load_mapped_elf(img, file, start, offset, diag);
        if (nloaded < 64 && (loaded[nloaded] = strdup(file)) != NULL)
            nloaded++;
    }
    fclose(f);
    for (unsigned i = 0; i < nloaded; i++)
        free(loaded[i]);
    return rc;
}

/* Every kmem.0xADDR file of a directory: a page of kernel text at ADDR. */
static int load_kmem(rvt_image *img, const char *dir, unsigned xlen, rvt_diag *diag) {
    DIR *d = opendir(dir);
    if (!d)
        return rvt_diag_set(diag, RVT_E_IO, "kmempath %s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = RVT_OK;
    while (rc == RVT_OK && (e = readdir(d)) != NULL) {
        char *end;
        if (strncmp(e->d_name, "kmem.0x", 7) != 0)
            continue;
        uint64_t addr = strtoull(e->d_name + 5, &end, 16);
        if (*end)
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
            rc = load_raw_file(img, path, addr, xlen, diag);
    }
    closedir(d);
    return rc;
}

/* The number a `key = value` line of the settings gives, up to max. */
/* What the settings name, gathered as the lines come: ELF files load at
 * once, the rest once every line is read (they need the XLEN). */
typedef struct {
    const char *path; /* the settings file */
    rvt_image *img;
    char *trace;      /* sifive_settings.trace */
    size_t trace_cap;
    char raws[16][4096], map[4096], vdso[4096], kmem[4096];
    unsigned nraws;
} named_files;

static int settings_file(void *user, const char *key, const char *value, unsigned line, rvt_diag *diag) {
    named_files *n = user;
    if (!strcmp(key, "rtd")) {
        relative_to(n->trace, n->trace_cap, n->path, value);
    } else if (!strcmp(key, "elf")) {
        char elf[4096];
        relative_to(elf, sizeof elf, n->path, value);
        return rvt_image_load_elf(n->img, elf, 0, diag);
    } else if (!strcmp(key, "image")) {
        if (n->nraws == sizeof n->raws / sizeof n->raws[0])
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: more than %zu image lines", n->path, line,
                                sizeof n->raws / sizeof n->raws[0]);
        snprintf(n->raws[n->nraws++], sizeof n->raws[0], "%s", value);
    } else if (!strcmp(key, "map")) {
        const char *comma = strchr(value, ',');
        if (comma)
            comma += 1 + strspn(comma + 1, " \t");
        relative_to(n->map, sizeof n->map, n->path, comma ? comma : value);
    } else if (!strcmp(key, "vdso")) {
        snprintf(n->vdso, sizeof n->vdso, "%s", value);
    } else if (!strcmp(key, "kmempath")) {
        relative_to(n->kmem, sizeof n->kmem, n->path, value);
    }
    return RVT_OK;
}

int sifive_settings_load(const char *path, const char *sysroot, sifive_settings *s, rvt_image *img,
                         rvt_diag *diag) {
    char *text;
    size_t size;
    int rc = rvt_read_file_max(path, &text, &size, RVT_SIFIVE_SETTINGS_MAX, "settings file", diag);
    if (rc)
        return rc;
    named_files *n = calloc(1, sizeof *n); /* (some 90 KB of names) */
    if (!n) {
        free(text);
        return rvt_diag_set(diag, RVT_E_NOMEM, "out of memory");
    }
    n->path = path;
    n->img = img;
    n->trace = s->trace;
    n->trace_cap = sizeof s->trace;
    s->trace[0] = 0;
    rvt_sifive_settings parsed;
    rc = rvt_sifive_settings_parse(text, size, path, &parsed, settings_file, n, diag);
    free(text);
    s->xlen = parsed.xlen;
    s->src_bits = parsed.src_bits;
    s->addr_bits = parsed.addr_bits;
    memcpy(s->pids, parsed.pids, sizeof s->pids);
    s->npids = parsed.npids;
    s->tolerate_errors = parsed.tolerate_errors;
    s->no_implicit_return = parsed.no_implicit_return;
    unsigned xlen = s->xlen ? s->xlen : rvt_image_xlen(img) ? rvt_image_xlen(img) : 64;
    for (unsigned i = 0; rc == RVT_OK && i < n->nraws; i++) {
        /* FILE:START-END, the file's bytes at START */
        char *colon = strrchr(n->raws[i], ':');
        if (!colon) {
            rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: image = %s: expected FILE:START-END", path, n->raws[i]);
            break;
        }
        *colon = 0;
        char file[4096];
        relative_to(file, sizeof file, path, n->raws[i]);
        rc = load_raw_file(img, file, strtoull(colon + 1, NULL, 16), xlen, diag);
    }
    if (rc == RVT_OK && n->map[0])
        rc = load_map(img, path, n->map, n->vdso[0] ? n->vdso : NULL, sysroot, diag);
    if (rc == RVT_OK && n->kmem[0])
        rc = load_kmem(img, n->kmem, xlen, diag);
    free(n);
    return rc;
}
