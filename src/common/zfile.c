/* Plain or zstd-compressed input files, read sequentially. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "rvtrace/common.h"

struct rvt_zreader {
    FILE *f;
    char *path;
    ZSTD_DStream *z;       /* NULL for plain files */
    unsigned char *in;
    size_t in_cap;
    ZSTD_inBuffer ib;
    unsigned long long consumed; /* file bytes consumed (compressed ones for zstd), for messages and progress */
    unsigned long long file_size; /* 0 when not a regular file */
    bool eof;
    bool in_frame; /* a zstd frame has begun and not ended */
    /* Bytes read again before the file: the first bytes of a plain file,
     * taken to look for the zstd magic (a pipe cannot be rewound), and what
     * a reader handed on gives back (rvt_zreader_unread). */
    unsigned char *back;
    size_t back_len, back_pos;
    bool back_uncounted; /* not yet in `consumed` (the magic's bytes) */
};

int rvt_zreader_unread(rvt_zreader *r, const void *bytes, size_t len) {
    if (!len)
        return RVT_OK;
    size_t left = r->back_len - r->back_pos;
    unsigned char *nb = malloc(len + left);
    if (!nb)
        return RVT_E_NOMEM;
    memcpy(nb, bytes, len);
    if (left)
        memcpy(nb + len, r->back + r->back_pos, left);
    free(r->back);
    r->back = nb;
    r->back_len = len + left;
    r->back_pos = 0;
    r->back_uncounted = false; /* (given back by a reader: it was counted when first read) */
    return RVT_OK;
}

const char *rvt_zreader_path(const rvt_zreader *r) { return r->path; }

int rvt_zreader_open(rvt_zreader **out, const char *path, rvt_diag *diag) {
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return rvt_diag_set(diag, RVT_E_IO, "%s: %s", path, strerror(errno));
    rvt_zreader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        fclose(f);
        return RVT_E_NOMEM;
    }
    r->f = f;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode))
        r->file_size = (unsigned long long)st.st_size;
    /* The magic stays in hand: fed to zstd, or read first as the file's own
     * bytes, never read again from the file (a pipe, a FIFO, /dev/stdin). */
    unsigned char magic[4];
    size_t n = fread(magic, 1, 4, f);
    if (n < 4 && ferror(f)) {
        int e = errno;
        rvt_zreader_close(r);
        return rvt_diag_set(diag, RVT_E_IO, "%s: %s", path, strerror(e));
    }
    if (n == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
        r->z = ZSTD_createDStream();
        r->in_cap = ZSTD_DStreamInSize();
        r->in = malloc(r->in_cap);
        if (!r->z || !r->in) {
            rvt_zreader_close(r);
            return RVT_E_NOMEM;
        }
        ZSTD_initDStream(r->z);
        memcpy(r->in, magic, n);
        r->ib = (ZSTD_inBuffer){r->in, n, 0};
    } else if (n) {
        if (!(r->back = malloc(n))) {
            rvt_zreader_close(r);
            return RVT_E_NOMEM;
        }
        memcpy(r->back, magic, n);
        r->back_len = n;
        r->back_uncounted = true;
    }
    *out = r;
    return RVT_OK;
}

static long read_file(rvt_zreader *r, void *buf, size_t n, rvt_diag *diag);

long rvt_zreader_read(rvt_zreader *r, void *buf, size_t n, rvt_diag *diag) {
    if (r->back_pos >= r->back_len || !n)
        return read_file(r, buf, n, diag);
    size_t k = r->back_len - r->back_pos < n ? r->back_len - r->back_pos : n;
    memcpy(buf, r->back + r->back_pos, k);
    r->back_pos += k;
    if (r->back_uncounted)
        r->consumed += k;
    if (r->back_pos < r->back_len)
        return (long)k;
    free(r->back);
    r->back = NULL;
    r->back_len = r->back_pos = 0;
    /* The rest from the file: readers take a short count for the end, as
     * fread gives it. (An error now is met again by the next read.) */
    long more = k < n ? read_file(r, (char *)buf + k, n - k, diag) : 0;
    return (long)k + (more > 0 ? more : 0);
}

static long read_file(rvt_zreader *r, void *buf, size_t n, rvt_diag *diag) {
    if (!r->z) {
        size_t got = fread(buf, 1, n, r->f);
        if (got == 0 && ferror(r->f))
            return rvt_diag_set(diag, RVT_E_IO, "%s: %s", r->path, strerror(errno));
        r->consumed += got;
        return (long)got;
    }
    ZSTD_outBuffer ob = {buf, n, 0};
    while (ob.pos == 0) {
        if (r->ib.pos == r->ib.size && !r->eof) {
            size_t got = fread(r->in, 1, r->in_cap, r->f);
            if (got == 0 && ferror(r->f))
                return rvt_diag_set(diag, RVT_E_IO, "%s: %s", r->path, strerror(errno));
            r->eof = got == 0;
            r->ib = (ZSTD_inBuffer){r->in, got, 0};
        }
        bool input_left = r->ib.pos < r->ib.size;
        if (!input_left && r->eof && !r->in_frame)
            break;
        /* Without input too: a frame's last output may still be held. */
        size_t before = r->ib.pos;
        size_t rc = ZSTD_decompressStream(r->z, &ob, &r->ib);
        r->consumed += r->ib.pos - before;
        if (ZSTD_isError(rc))
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: corrupt zstd data near compressed byte %llu: %s",
                                r->path, r->consumed, ZSTD_getErrorName(rc));
        r->in_frame = rc != 0; /* 0: a frame ended and all of it was output */
        if (ob.pos == 0 && !input_left && r->eof && r->in_frame)
            return rvt_diag_set(diag, RVT_E_TRUNC, "%s: the file ends inside a zstd frame (after compressed byte %llu)",
                                r->path, r->consumed);
    }
    return (long)ob.pos;
}

void rvt_zreader_position(const rvt_zreader *r, uint64_t *done, uint64_t *size) {
    *done = r->consumed;
    *size = r->file_size;
}

void rvt_zreader_close(rvt_zreader *r) {
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    ZSTD_freeDStream(r->z);
    free(r->in);
    free(r->back);
    free(r->path);
    free(r);
}

int rvt_read_file_max(const char *path, char **data, size_t *size, size_t max, const char *what, rvt_diag *diag) {
    rvt_zreader *r;
    int rc = rvt_zreader_open(&r, path, diag);
    if (rc)
        return rc;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (buf && cap - len < 4096) {
            char *nb = cap <= SIZE_MAX / 4 ? realloc(buf, cap * 2 + 1) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
            } else {
                buf = nb;
                cap *= 2;
            }
        }
        if (!buf) {
            rvt_zreader_close(r);
            return rvt_diag_set(diag, RVT_E_NOMEM, "%s: out of memory after reading %zu bytes of it", path, len);
        }
        long n = rvt_zreader_read(r, buf + len, cap - len, diag);
        if (n < 0) {
            free(buf);
            rvt_zreader_close(r);
            return (int)n;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (len > max) {
            free(buf);
            rvt_zreader_close(r);
            return rvt_diag_set(diag, RVT_E_RANGE, "%s: more than %zu bytes, too big for %s", path, max, what);
        }
    }
    rvt_zreader_close(r);
    buf[len] = 0;
    *data = buf;
    *size = len;
    return RVT_OK;
}

int rvt_read_file(const char *path, char **data, size_t *size, rvt_diag *diag) {
    return rvt_read_file_max(path, data, size, SIZE_MAX, "a file", diag);
}

struct rvt_line_reader {
    rvt_zreader *z;
    char *path;
    char buf[1 << 16];
    size_t len, pos;
    bool eof;
    uint64_t line;
};

static int fill_lines(rvt_line_reader *r, rvt_diag *diag) {
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    long n = rvt_zreader_read(r->z, r->buf + r->len, sizeof r->buf - 1 - r->len, diag);
    if (n < 0)
        return (int)n;
    if (n == 0)
        r->eof = true;
    r->len += (size_t)n;
    return 0;
}

int rvt_line_reader_open(rvt_line_reader **out, const char *path, rvt_diag *diag) {
    *out = NULL;
    rvt_zreader *z;
    int rc = rvt_zreader_open(&z, path, diag);
    return rc ? rc : rvt_line_reader_open_z(out, z, diag);
}

rvt_zreader *rvt_line_reader_detach(rvt_line_reader *r) {
    rvt_zreader *z = r->z;
    r->z = NULL;
    int rc = rvt_zreader_unread(z, r->buf + r->pos, r->len - r->pos);
    rvt_line_reader_close(r);
    if (rc) {
        rvt_zreader_close(z);
        return NULL;
    }
    return z;
}

int rvt_line_reader_open_z(rvt_line_reader **out, rvt_zreader *z, rvt_diag *diag) {
    *out = NULL;
    rvt_line_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(z->path))) {
        free(r);
        rvt_zreader_close(z);
        return RVT_E_NOMEM;
    }
    r->z = z;
    int rc = fill_lines(r, diag);
    if (rc) {
        rvt_line_reader_close(r);
        return rc;
    }
    *out = r;
    return RVT_OK;
}

const char *rvt_line_reader_peek(rvt_line_reader *r, size_t *len) {
    *len = r->len - r->pos;
    return r->buf + r->pos;
}

int rvt_line_next(rvt_line_reader *r, char **line, rvt_diag *diag) {
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        if (nl) {
            *nl = 0;
            *line = r->buf + r->pos;
            r->pos = (size_t)(nl - r->buf) + 1;
            r->line++;
            return 1;
        }
        if (r->eof) {
            if (r->pos < r->len) { /* last line without a newline */
                r->buf[r->len] = 0;
                *line = r->buf + r->pos;
                r->pos = r->len;
                r->line++;
                return 1;
            }
            return 0;
        }
        if (r->len - r->pos >= sizeof r->buf - 1)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %llu is longer than %zu bytes", r->path,
                                (unsigned long long)r->line + 1, sizeof r->buf - 1);
        int rc = fill_lines(r, diag);
        if (rc)
            return rc;
    }
}

uint64_t rvt_line_number(const rvt_line_reader *r) { return r->line; }
const char *rvt_line_reader_path(const rvt_line_reader *r) { return r->path; }

void rvt_line_reader_close(rvt_line_reader *r) {
    if (!r)
        return;
    rvt_zreader_close(r->z);
    free(r->path);
    free(r);
}

int rvt_membuf_append(void *membuf, const uint8_t *bytes, size_t len) {
    rvt_membuf *b = membuf;
    if (len > b->cap - b->len) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->len < len)
            cap *= 2;
        uint8_t *p = realloc(b->data, cap);
        if (!p)
            return RVT_E_NOMEM;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, bytes, len);
    b->len += len;
    return 0;
}

void rvt_membuf_free(rvt_membuf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
