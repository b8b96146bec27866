/* .rvti: a compact binary retirement stream. One tag byte per record; the
 * address is only written when it is not the fall-through of the previous
 * record, privilege/hart only when they change, and the instruction bits
 * only when they differ from the last record at the same address (writer and
 * reader keep the same direct-mapped table). See docs/formats.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

#define TAG_ITYPE 0x0f
#define TAG_INSN 0x10 /* instruction bits follow (else: as last time at this address) */
#define TAG_STATE 0x20
#define TAG_TRAP 0x40
#define TAG_ADDR 0x80
#define RVTI_VERSION 1
#define RVTI_FLAG_BLOCKS 1
#define INSN_TABLE_BITS 16

typedef struct {
    uint64_t addr;
    uint32_t insn;
} insn_entry;

/* True when `insn` at `addr` is already known to the other side. */
static bool insn_known(insn_entry *table, uint64_t addr, uint32_t insn) {
    insn_entry *e = &table[(addr >> 1) & ((1u << INSN_TABLE_BITS) - 1)];
    if (e->addr == addr && e->insn == insn)
        return true;
    e->addr = addr;
    e->insn = insn;
    return false;
}

struct rvt_rvti_writer {
    FILE *f;
    bool blocks;
    uint8_t buf[1 << 16];
    size_t len;
    uint64_t expect;  /* fall-through address after the previous record */
    unsigned state;   /* priv | hart << 2 of the previous record */
    bool io_error;
    insn_entry table[1u << INSN_TABLE_BITS];
};

static void put_byte(rvt_rvti_writer *w, uint8_t b) { w->buf[w->len++] = b; }
static void put_uleb(rvt_rvti_writer *w, uint64_t v) {
    while (v >= 0x80) {
        w->buf[w->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    w->buf[w->len++] = (uint8_t)v;
}

static void drain(rvt_rvti_writer *w) {
    if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->io_error = true;
    w->len = 0;
}

int rvt_rvti_writer_new(rvt_rvti_writer **out, FILE *f, unsigned xlen, bool blocks) {
    rvt_rvti_writer *w = calloc(1, sizeof *w);
    if (!w)
        return RVT_E_NOMEM;
    w->f = f;
    w->blocks = blocks;
    w->state = 3; /* machine mode, hart 0: the reset state */
    const uint8_t header[8] = {'R', 'V', 'T', 'I', RVTI_VERSION, (uint8_t)xlen, blocks ? RVTI_FLAG_BLOCKS : 0, 0};
    memcpy(w->buf, header, 8);
    w->len = 8;
    *out = w;
    return RVT_OK;
}

int rvt_rvti_writer_sink(void *writer, const rvt_retire *recs, size_t n) {
    rvt_rvti_writer *w = writer;
    for (size_t i = 0; i < n; i++) {
        const rvt_retire *r = &recs[i];
        if (w->len > sizeof w->buf - 64)
            drain(w);
        bool trap = r->ninsns == 0;
        unsigned state = (r->priv & 3u) | ((unsigned)r->hart << 2);
        uint8_t tag = (uint8_t)(r->itype & TAG_ITYPE);
        if (!insn_known(w->table, r->iaddr, r->insn))
            tag |= TAG_INSN;
        if (state != w->state)
            tag |= TAG_STATE;
        if (trap)
            tag |= TAG_TRAP;
        if (r->iaddr != w->expect)
            tag |= TAG_ADDR;
        put_byte(w, tag);
        if (tag & TAG_STATE)
            put_byte(w, (uint8_t)state);
        if (tag & TAG_ADDR) {
            int64_t d = (int64_t)(r->iaddr - w->expect);
            put_uleb(w, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
        }
        if (trap) {
            put_uleb(w, r->cause);
            put_uleb(w, r->tval);
            w->expect = r->iaddr; /* the handler's address follows explicitly */
        } else {
            if (w->blocks) {
                put_uleb(w, r->ninsns);
                put_uleb(w, r->iretire);
            }
            w->expect = r->iaddr + 2u * r->iretire;
        }
        if (tag & TAG_INSN)
            put_uleb(w, r->insn);
        w->state = state;
    }
    return w->io_error ? RVT_E_IO : 0;
}

int rvt_rvti_writer_finish(rvt_rvti_writer *w) {
    if (!w)
        return RVT_OK;
    drain(w);
    int rc = (w->io_error || fflush(w->f) != 0) ? RVT_E_IO : RVT_OK;
    free(w);
    return rc;
}

bool rvt_retire_merge(rvt_retire *block, const rvt_retire *r) {
    if (!block->ninsns || !r->ninsns || block->itype != RVT_ITYPE_NONE || block->priv != r->priv ||
        block->hart != r->hart || block->iaddr + 2u * block->iretire != r->iaddr ||
        block->iretire + r->iretire > 0xff00)
        return false;
    block->ninsns += r->ninsns;
    block->iretire = (uint16_t)(block->iretire + r->iretire);
    block->ilastsize = r->ilastsize;
    block->itype = r->itype;
    block->insn = r->insn;
    block->time = r->time;
    return true;
}

bool rvt_retire_block_fits_code(const rvt_retire *r, rvt_code_fetch fetch, void *user) {
    uint64_t last = rvt_retire_last_iaddr(r), a = r->iaddr;
    rvt_insn in;
    for (uint32_t k = 0; k + 1 < r->ninsns; k++) {
        if (a >= last || !fetch(user, a, &in))
            return false;
        a += in.len;
    }
    return a == last;
}

/* ------------------------------------------------------------- reader */

struct rvt_rvti_reader {
    rvt_zreader *z;
    char *path;
    uint8_t buf[1 << 16];
    size_t len, pos;
    uint64_t offset; /* file offset of buf[0] */
    bool eof;
    unsigned xlen;
    bool blocks;
    uint64_t expect;
    unsigned state;
    insn_entry table[1u << INSN_TABLE_BITS];
};

static int fill(rvt_rvti_reader *r, rvt_diag *diag) {
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->offset += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    while (!r->eof && r->len < sizeof r->buf) {
        long n = rvt_zreader_read(r->z, r->buf + r->len, sizeof r->buf - r->len, diag);
        if (n < 0)
            return (int)n;
        if (n == 0)
            r->eof = true;
        r->len += (size_t)n;
    }
    return RVT_OK;
}

int rvt_rvti_reader_open(rvt_rvti_reader **out, const char *path, rvt_diag *diag) {
    *out = NULL;
    rvt_zreader *z;
    int rc = rvt_zreader_open(&z, path, diag);
    return rc ? rc : rvt_rvti_reader_open_z(out, z, diag);
}

int rvt_rvti_reader_open_z(rvt_rvti_reader **out, rvt_zreader *z, rvt_diag *diag) {
    *out = NULL;
    const char *path = rvt_zreader_path(z);
    rvt_rvti_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        rvt_zreader_close(z);
        return RVT_E_NOMEM;
    }
    r->z = z;
    int rc = fill(r, diag);
    if (rc == 0 && (r->len < 8 || memcmp(r->buf, "RVTI", 4) != 0))
        rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: not an .rvti file (expected the 'RVTI' header at byte 0)", path);
    if (rc == 0 && r->buf[4] != RVTI_VERSION)
        rc = rvt_diag_set(diag, RVT_E_UNSUPP, "%s: .rvti version %u is not supported (expected %u)", path,
                          r->buf[4], RVTI_VERSION);
    if (rc == 0 && r->buf[5] != 32 && r->buf[5] != 64)
        rc = rvt_diag_set(diag, RVT_E_FORMAT, "%s: byte 5: XLEN %u is neither 32 nor 64", path, r->buf[5]);
    if (rc) {
        rvt_rvti_reader_close(r);
        return rc;
    }
    r->xlen = r->buf[5];
    r->blocks = r->buf[6] & RVTI_FLAG_BLOCKS;
    r->pos = 8;
    r->state = 3;
    *out = r;
    return RVT_OK;
}

unsigned rvt_rvti_reader_xlen(const rvt_rvti_reader *r) { return r->xlen; }

static bool get_byte(rvt_rvti_reader *r, uint8_t *b) {
    if (r->pos >= r->len)
        return false;
    *b = r->buf[r->pos++];
    return true;
}

static bool get_uleb(rvt_rvti_reader *r, uint64_t *v) {
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t b;
        if (!get_byte(r, &b))
            return false;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false; /* more than 10 bytes: not a valid number */
}

long rvt_rvti_read(rvt_rvti_reader *r, rvt_retire *out, size_t max, rvt_diag *diag) {
    size_t n = 0;
    while (n < max) {
        if (r->len - r->pos < 64 && !r->eof) {
            int rc = fill(r, diag);
            if (rc)
                return rc;
        }
        if (r->pos >= r->len)
            break;
        size_t start = r->pos;
        uint64_t rec_offset = r->offset + start;
        rvt_retire *o = &out[n];
        memset(o, 0, sizeof *o);
        uint8_t tag = 0, state = (uint8_t)r->state;
        uint64_t delta = 0, cause = 0, tval = 0, insn = 0, ninsns = 1, iretire = 1;
        bool ok = get_byte(r, &tag);
        if (ok && (tag & TAG_STATE))
            ok = get_byte(r, &state);
        if (ok && (tag & TAG_ADDR))
            ok = get_uleb(r, &delta);
        bool trap = tag & TAG_TRAP;
        if (ok && trap)
            ok = get_uleb(r, &cause) && get_uleb(r, &tval);
        else if (ok && r->blocks)
            ok = get_uleb(r, &ninsns) && get_uleb(r, &iretire);
        if (ok && (tag & TAG_INSN))
            ok = get_uleb(r, &insn);
        if (!ok)
            return rvt_diag_set(diag, r->eof && r->pos >= r->len ? RVT_E_TRUNC : RVT_E_FORMAT,
                                "%s: byte %" PRIu64 ": record truncated or malformed (tag 0x%02x)", r->path,
                                rec_offset, tag);
        if ((!trap && (ninsns == 0 || iretire == 0 || iretire > 0xffff)) || insn > 0xffffffffu)
            return rvt_diag_set(diag, RVT_E_FORMAT, "%s: byte %" PRIu64 ": empty or oversized block", r->path,
                                rec_offset);
        int64_t d = (int64_t)(delta >> 1) ^ -(int64_t)(delta & 1);
        o->iaddr = r->expect + (uint64_t)d;
        if (r->xlen == 32)
            o->iaddr = (uint32_t)o->iaddr;
        insn_entry *e = &r->table[(o->iaddr >> 1) & ((1u << INSN_TABLE_BITS) - 1)];
        if (tag & TAG_INSN) {
            e->addr = o->iaddr;
            e->insn = (uint32_t)insn;
        } else if (e->addr != o->iaddr) {
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "%s: byte %" PRIu64 ": record refers to instruction bits never sent for %#" PRIx64,
                                r->path, rec_offset, o->iaddr);
        }
        o->insn = e->insn;
        unsigned last = rvt_insn_length((uint16_t)o->insn) == 2 ? 2 : 4;
        if (!r->blocks && !trap)
            iretire = last / 2;
        o->itype = tag & TAG_ITYPE;
        o->ilastsize = last == 4;
        o->priv = state & 3;
        o->hart = state >> 2;
        if (trap) {
            o->cause = cause;
            o->tval = tval;
            r->expect = o->iaddr;
        } else {
            o->ninsns = (uint32_t)ninsns;
            o->iretire = (uint16_t)iretire;
            r->expect = o->iaddr + 2u * iretire;
        }
        r->state = state;
        n++;
    }
    return (long)n;
}

void rvt_rvti_reader_close(rvt_rvti_reader *r) {
    if (!r)
        return;
    rvt_zreader_close(r->z);
    free(r->path);
    free(r);
}
