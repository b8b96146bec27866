/* SiFive's trace-tool settings files: `key = value` lines, as Freedom
 * Studio and the tracer write them. Only the text is read here; the files
 * the settings name are the caller's to open (rvt_sifive_settings_parse). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ntrace.h"

/* Strips blanks (and a CR) at both ends, in place. */
static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* A number as the settings write them (decimal or 0x hex), up to `max`. */
static int number(const char *name, unsigned line, const char *key, const char *value, unsigned max, unsigned *out,
                  rvt_diag *diag) {
    char *end;
    errno = 0;
    unsigned long long v = value[0] >= '0' && value[0] <= '9' ? strtoull(value, &end, 0) : 0;
    if (value[0] < '0' || value[0] > '9' || errno || *end || v > max)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: %s takes a number up to %u, not '%.64s'", name, line, key,
                            max, value);
    *out = (unsigned)v;
    return RVT_OK;
}

/* The process ids of a `pids` line, separated by commas or blanks. */
static int pids(const char *name, unsigned line, char *value, rvt_sifive_settings *s, rvt_diag *diag) {
    for (char *p = value; *p;) {
        if (*p < '0' || *p > '9')
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: pids: expected a number at '%.32s'", name, line, p);
        if (s->npids == RVT_SIFIVE_MAX_PIDS)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: pids: more than %u processes", name, line,
                                RVT_SIFIVE_MAX_PIDS);
        char *end;
        errno = 0;
        uint64_t v = strtoull(p, &end, 0);
        if (errno)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: pids: '%.32s' is too big", name, line, p);
        s->pids[s->npids++] = v;
        p = end + strspn(end, ", \t");
        if (p == end && *p)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: pids: expected ',' after a number at '%.32s'", name,
                                line, p);
    }
    return RVT_OK;
}

/* The keys that name a file: handed to the caller. */
static bool names_a_file(const char *key) {
    static const char *const keys[] = {"rtd", "elf", "image", "map", "vdso", "kmempath"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

static int parse_line(const char *name, unsigned line, char *l, rvt_sifive_settings *s, rvt_sifive_file_fn file,
                      void *user, rvt_diag *diag) {
    l = trim(l);
    if (!*l || *l == '#')
        return RVT_OK;
    char *eq = strchr(l, '=');
    if (!eq)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: expected 'key = value'", name, line);
    *eq = 0;
    char *key = trim(l), *value = trim(eq + 1);
    if (names_a_file(key)) {
        if (!strcmp(key, "rtd"))
            s->has_trace = true;
        return file ? file(user, key, value, line, diag) : RVT_OK;
    }
    if (!strcmp(key, "archsize")) {
        int rc = number(name, line, key, value, 64, &s->xlen, diag);
        if (rc == RVT_OK && s->xlen != 32 && s->xlen != 64)
            rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: archsize is 32 or 64, not %u", name, line, s->xlen);
        return rc;
    }
    if (!strcmp(key, "addrbits"))
        return number(name, line, key, value, 64, &s->addr_bits, diag);
    if (!strcmp(key, "srcbits"))
        return number(name, line, key, value, 16, &s->src_bits, diag);
    if (!strcmp(key, "pids"))
        return pids(name, line, value, s, diag);
    if (!strcmp(key, "teinstruction"))
        s->no_implicit_return = strstr(value, "NoOpt") != NULL; /* e.g. teInstHTMSyncNoOpt */
    else if (!strcmp(key, "tolerateerrors"))
        s->tolerate_errors = !strcmp(value, "true") || !strcmp(value, "1");
    /* other keys (isa, clockfreq, cmdLine, ...) describe the system, not the decoding */
    return RVT_OK;
}

int rvt_sifive_settings_parse(const char *text, size_t len, const char *name, rvt_sifive_settings *s,
                              rvt_sifive_file_fn file, void *user, rvt_diag *diag) {
    memset(s, 0, sizeof *s);
    if (len > RVT_SIFIVE_SETTINGS_MAX)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: more than %u bytes: not a settings file", name,
                            RVT_SIFIVE_SETTINGS_MAX);
    char buf[RVT_SIFIVE_SETTINGS_LINE_MAX + 1];
    unsigned line = 0;
    for (size_t at = 0; at < len;) {
        line++;
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        if (n > RVT_SIFIVE_SETTINGS_LINE_MAX)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: a line of more than %u bytes: not a settings file", name,
                                line, RVT_SIFIVE_SETTINGS_LINE_MAX);
        if (memchr(text + at, 0, n))
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s:%u: a NUL byte: not a settings file (text)", name, line);
        memcpy(buf, text + at, n);
        buf[n] = 0;
        int rc = parse_line(name, line, buf, s, file, user, diag);
        if (rc)
            return rc;
        at += n + (nl != NULL);
    }
    if (!s->has_trace)
        return rvt_diag_set(diag, RVT_E_FORMAT, "%s: no 'rtd = CAPTURE' line", name);
    return RVT_OK;
}
