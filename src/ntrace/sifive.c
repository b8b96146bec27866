/* What SiFive's trace tools make of a capture beyond the program flow:
 * time stamps (full in sync messages, XORed into the last full time in the
 * others) and the text a program prints through ITC stimulus registers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ntrace.h"

/* ---------------------------------------------------------- time stamps */

#define TSTAMP_BITS 40 /* SiFive's decoder default: wraps beyond are carried */

static bool carries_full_time(unsigned tcode) {
    switch (tcode) {
    case RVT_NX_PROG_TRACE_SYNC: case RVT_NX_DIRECT_BRANCH_SYNC: case RVT_NX_INDIRECT_BRANCH_SYNC:
    case RVT_NX_INDIRECT_BRANCH_HIST_SYNC: case RVT_NX_ICT_SYNC:
        return true;
    default:
        return false;
    }
}

bool rvt_sifive_time(rvt_sifive_clock *c, const rvt_nexus_msg *m, uint64_t *time) {
    const rvt_nexus_field *f = rvt_nexus_find(m, RVT_NXF_TSTAMP);
    if (!f)
        return false;
    uint64_t ts = f->value;
    if (carries_full_time(m->tcode) || !c->valid) {
        const uint64_t low = (UINT64_C(1) << TSTAMP_BITS) - 1;
        uint64_t t = c->valid ? (c->time & ~low) | (ts & low) : ts;
        if (c->valid && t < c->time)
            t += UINT64_C(1) << TSTAMP_BITS;
        c->time = ts >> TSTAMP_BITS ? ts : t;
    } else {
        c->time ^= ts;
    }
    c->valid = true;
    *time = c->time;
    return true;
}

/* ------------------------------------------------------------------ ITC */

#define MAX_LINE 4096
#define MAX_FORMATS 256

struct rvt_itc_printer {
    rvt_text_sink sink;
    void *user;
    char line[MAX_LINE];
    size_t len;
    const char *format[MAX_FORMATS]; /* no-load strings by channel; NULL: none */
    char *strings;                   /* copy of the .comment sections they point into */
};

/* "N:format" strings among the NUL-separated ones of a .comment section. */
static void collect_formats(rvt_itc_printer *p, const char *s, size_t size) {
    for (size_t i = 0; i < size;) {
        const char *str = s + i;
        size_t n = strnlen(str, size - i);
        char *end;
        unsigned long ch = strtoul(str, &end, 10);
        if (end != str && *end == ':' && ch > 0 && ch < MAX_FORMATS && !p->format[ch])
            p->format[ch] = end + 1;
        i += n + 1;
    }
}

int rvt_itc_printer_new(rvt_itc_printer **out, rvt_image *img, rvt_text_sink sink, void *user) {
    rvt_itc_printer *p = calloc(1, sizeof *p);
    if (!p)
        return RVT_E_NOMEM;
    p->sink = sink;
    p->user = user;
    size_t total = 0;
    for (unsigned i = 0; img && i < rvt_image_file_count(img); i++) {
        const void *data;
        size_t size;
        if (rvt_image_section(img, i, ".comment", &data, &size))
            total += size + 1;
    }
    if (total) {
        if (!(p->strings = malloc(total))) {
            free(p);
            return RVT_E_NOMEM;
        }
        size_t at = 0;
        for (unsigned i = 0; i < rvt_image_file_count(img); i++) {
            const void *data;
            size_t size;
            if (!rvt_image_section(img, i, ".comment", &data, &size))
                continue;
            memcpy(p->strings + at, data, size);
            p->strings[at + size] = 0;
            collect_formats(p, p->strings + at, size);
            at += size + 1;
        }
    }
    *out = p;
    return RVT_OK;
}

void rvt_itc_printer_free(rvt_itc_printer *p) {
    if (p)
        free(p->strings);
    free(p);
}

static int end_line(rvt_itc_printer *p) {
    p->line[p->len] = 0;
    p->len = 0;
    return p->sink(p->user, p->line);
}

static int put_char(rvt_itc_printer *p, char c) {
    if (c == '\n' || c == 0)
        return end_line(p);
    if (p->len == MAX_LINE - 1 && end_line(p))
        return RVT_E_IO;
    p->line[p->len++] = c;
    return 0;
}

static int put_text(rvt_itc_printer *p, const char *s) {
    for (; *s; s++)
        if (put_char(p, *s))
            return RVT_E_IO;
    return 0;
}

/* One printf conversion of a no-load string, with its argument, a field
 * `width` bits wide: a signed conversion reads the field as two's
 * complement of that width (an 8-bit 0xff is -1), as SiFive's decoder does. */
static void format_one(char *out, size_t cap, const char *spec, size_t spec_len, char conv, uint32_t arg,
                       unsigned width) {
    char f[32];
    size_t n = 0;
    f[n++] = '%';
    for (size_t i = 1; i < spec_len && n < sizeof f - 3; i++)
        if (!strchr("hlLqjzt", spec[i])) /* the argument is what the message carries */
            f[n++] = spec[i];
    f[n++] = conv;
    f[n] = 0;
    switch (conv) {
    case 'd': case 'i': {
        uint32_t sign = width >= 32 ? 0 : 1u << (width - 1);
        snprintf(out, cap, f, sign ? (int)(int32_t)((arg ^ sign) - sign) : (int)(int32_t)arg);
        break;
    }
    case 'c': snprintf(out, cap, f, (int)(arg & 0xff)); break;
    case 'u': case 'x': case 'X': case 'o': snprintf(out, cap, f, (unsigned)arg); break;
    default: snprintf(out, cap, "%.*s", (int)spec_len + 1, spec); break; /* %s, %f, %p: not from 32 bits */
    }
}

/* A no-load string: the format, its arguments packed into 32 bits most
 * significant first (1 x 32, 2 x 16, 3 x 11/11/10, 4 x 8 bits). */
static int print_nls(rvt_itc_printer *p, const char *fmt, uint32_t data) {
    unsigned nargs = 0;
    for (const char *c = fmt; *c; c++)
        if (*c == '%') {
            if (c[1] == '%')
                c++;
            else
                nargs++;
        }
    static const unsigned widths[5][4] = {{0}, {32}, {16, 16}, {11, 11, 10}, {8, 8, 8, 8}};
    uint32_t args[4] = {0};
    if (nargs > 4)
        nargs = 4;
    unsigned shift = 32;
    for (unsigned i = 0; i < nargs; i++) {
        unsigned w = widths[nargs][i];
        shift -= w;
        args[i] = w == 32 ? data : (data >> shift) & ((1u << w) - 1);
    }
    unsigned next = 0;
    for (const char *c = fmt; *c; c++) {
        if (*c != '%') {
            if (put_char(p, *c))
                return RVT_E_IO;
            continue;
        }
        if (c[1] == '%') {
            c++;
            if (put_char(p, '%'))
                return RVT_E_IO;
            continue;
        }
        const char *spec = c++;
        while (*c && strchr("-+ #0123456789.hlLqjzt", *c))
            c++;
        if (!*c)
            break;
        char piece[64];
        format_one(piece, sizeof piece, spec, (size_t)(c - spec), *c, next < 4 ? args[next] : 0,
                   next < 4 && nargs ? widths[nargs][next] : 32);
        next++;
        if (put_text(p, piece))
            return RVT_E_IO;
    }
    return end_line(p);
}

int rvt_itc_printer_message(rvt_itc_printer *p, const rvt_nexus_msg *m) {
    if (m->tcode != RVT_NX_DATA_ACQUISITION)
        return 0;
    uint64_t tag = rvt_nexus_get(m, RVT_NXF_IDTAG, 0), data = rvt_nexus_get(m, RVT_NXF_DATA, 0);
    unsigned channel = (unsigned)(tag >> 2), bytes = 4 - (unsigned)(tag & 3);
    if (channel == 0) {
        for (unsigned i = 0; i < bytes; i++)
            if (put_char(p, (char)(data >> (8 * i))))
                return RVT_E_IO;
        return 0;
    }
    if (channel < MAX_FORMATS && p->format[channel])
        return print_nls(p, p->format[channel], (uint32_t)data);
    return 0; /* another channel, or a string the image does not have */
}

int rvt_itc_printer_flush(rvt_itc_printer *p) { return p->len ? end_line(p) : 0; }
