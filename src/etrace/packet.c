/* te_inst packets: one description of the field layout of every format
 * (E-Trace 2.0 and 1.0) drives packing, unpacking and the CSV view, so the
 * three cannot disagree. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rvtrace/etrace.h"

enum field {
    F_FORMAT, F_SUBFORMAT, F_BRANCH, F_PRIVILEGE, F_TIME, F_CONTEXT, F_ECAUSE, F_INTERRUPT, F_THADDR,
    F_ADDRESS, F_TVAL, F_IENABLE, F_ENCODER_MODE, F_QUAL_STATUS, F_IOPTIONS, F_DENABLE, F_DLOSS,
    F_DOPTIONS, F_BRANCHES, F_BRANCH_MAP, F_NOTIFY, F_UPDISCON, F_IRREPORT, F_IRDEPTH, F_F0S,
    F_BRANCH_COUNT, F_BRANCH_FMT, F_INDEX, F_COUNT
};

static uint64_t *slot64(rvt_te_inst *p, enum field f) {
    switch (f) {
    case F_ADDRESS: return &p->address;
    case F_TVAL: return &p->tval;
    case F_CONTEXT: return &p->context;
    case F_TIME: return &p->time;
    default: return NULL;
    }
}

static uint64_t get(const rvt_te_inst *p, enum field f) {
    switch (f) {
    case F_FORMAT: return p->format;
    case F_SUBFORMAT: return p->subformat;
    case F_BRANCH: return p->branch;
    case F_PRIVILEGE: return p->privilege;
    case F_TIME: return p->time;
    case F_CONTEXT: return p->context;
    case F_ECAUSE: return p->ecause;
    case F_INTERRUPT: return p->interrupt;
    case F_THADDR: return p->thaddr;
    case F_ADDRESS: return p->address;
    case F_TVAL: return p->tval;
    case F_IENABLE: return p->ienable;
    case F_ENCODER_MODE: return p->encoder_mode;
    case F_QUAL_STATUS: return p->qual_status;
    case F_IOPTIONS: return p->ioptions;
    case F_DENABLE: return p->denable;
    case F_DLOSS: return p->dloss;
    case F_DOPTIONS: return p->doptions;
    case F_BRANCHES: return p->branches;
    case F_BRANCH_MAP: return p->branch_map;
    case F_NOTIFY: return p->notify;
    case F_UPDISCON: return p->updiscon;
    case F_IRREPORT: return p->irreport;
    case F_IRDEPTH: return p->irdepth;
    case F_F0S: return p->f0_subformat;
    case F_BRANCH_COUNT: return p->branch_count;
    case F_BRANCH_FMT: return p->branch_fmt;
    case F_INDEX: return p->index;
    default: return 0;
    }
}

static void set(rvt_te_inst *p, enum field f, uint64_t v) {
    uint64_t *s = slot64(p, f);
    if (s) {
        *s = v;
        return;
    }
    switch (f) {
    case F_FORMAT: p->format = (uint8_t)v; break;
    case F_SUBFORMAT: p->subformat = (uint8_t)v; break;
    case F_BRANCH: p->branch = (uint8_t)v; break;
    case F_PRIVILEGE: p->privilege = (uint8_t)v; break;
    case F_ECAUSE: p->ecause = (uint8_t)v; break;
    case F_INTERRUPT: p->interrupt = (uint8_t)v; break;
    case F_THADDR: p->thaddr = (uint8_t)v; break;
    case F_IENABLE: p->ienable = (uint8_t)v; break;
    case F_ENCODER_MODE: p->encoder_mode = (uint8_t)v; break;
    case F_QUAL_STATUS: p->qual_status = (uint8_t)v; break;
    case F_IOPTIONS: p->ioptions = (uint8_t)v; break;
    case F_DENABLE: p->denable = (uint8_t)v; break;
    case F_DLOSS: p->dloss = (uint8_t)v; break;
    case F_DOPTIONS: p->doptions = (uint8_t)v; break;
    case F_BRANCHES: p->branches = (uint8_t)v; break;
    case F_BRANCH_MAP: p->branch_map = (uint32_t)v; break;
    case F_NOTIFY: p->notify = (uint8_t)v; break;
    case F_UPDISCON: p->updiscon = (uint8_t)v; break;
    case F_IRREPORT: p->irreport = (uint8_t)v; break;
    case F_IRDEPTH: p->irdepth = (uint32_t)v; break;
    case F_F0S: p->f0_subformat = (uint8_t)v; break;
    case F_BRANCH_COUNT: p->branch_count = (uint32_t)v; break;
    case F_BRANCH_FMT: p->branch_fmt = (uint8_t)v; break;
    case F_INDEX: p->index = (uint32_t)v; break;
    default: break;
    }
}

/* 1, 3, 7, 15 or 31 bits: the smallest that holds n (packets are packed and
 * unpacked one after another, so this is inlined where they are) */
static inline unsigned branch_map_len(unsigned n) {
    if (n == 0 || n > 15)
        return 31;
    return (2u << (31 - __builtin_clz(n))) - 1;
}

unsigned rvt_te_branch_map_len(unsigned n) { return branch_map_len(n); }

typedef struct {
    const rvt_etrace_params *p;
    const rvt_etrace_options *o;
    rvt_te_inst *pkt;
    bool (*visit)(void *ctx, rvt_te_inst *pkt, enum field f, unsigned width);
    void *ctx;
} walker;

#define VISIT(f, w)                                 \
    do {                                            \
        if ((w) && !wk->visit(wk->ctx, pkt, (f), (w))) \
            return false;                           \
    } while (0)

/* Walks the fields of a packet in transmission order; later layout decisions
 * read fields the walk has already visited (so unpacking can use it). */
static inline __attribute__((always_inline)) bool walk(const walker *wk) {
    const rvt_etrace_params *p = wk->p;
    const rvt_etrace_options *o = wk->o;
    rvt_te_inst *pkt = wk->pkt;
    bool v1 = o && o->v1_layout;
    unsigned A = rvt_etrace_addr_width(p), D = rvt_etrace_irdepth_width(p);
    unsigned X = p->nocontext ? 0 : p->context_width, T = p->notime || v1 ? 0 : p->time_width;
    VISIT(F_FORMAT, 2);
    switch (pkt->format) {
    case 3:
        VISIT(F_SUBFORMAT, 2);
        if (pkt->subformat == 3) {
            VISIT(F_IENABLE, 1);
            VISIT(F_ENCODER_MODE, 1);
            VISIT(F_QUAL_STATUS, 2);
            if (o && o->rv_tracer_layout) {
                VISIT(F_IOPTIONS, 7);
                return true;
            }
            VISIT(F_IOPTIONS, 5);
            if (!v1) {
                VISIT(F_DENABLE, 1);
                VISIT(F_DLOSS, 1);
                VISIT(F_DOPTIONS, 4);
            }
            return true;
        }
        if (pkt->subformat == 2) {
            /* context: no branch bit (nothing is reported but the context);
             * 1.0 sends context_width_p bits even with nocontext_p, and no time */
            VISIT(F_PRIVILEGE, p->privilege_width);
            VISIT(F_TIME, T);
            VISIT(F_CONTEXT, v1 ? p->context_width : X);
            return true;
        }
        VISIT(F_BRANCH, 1);
        VISIT(F_PRIVILEGE, p->privilege_width);
        VISIT(F_TIME, T);
        VISIT(F_CONTEXT, X);
        if (pkt->subformat == 0) {
            VISIT(F_ADDRESS, A);
        } else if (pkt->subformat == 1) {
            VISIT(F_ECAUSE, p->ecause_width);
            VISIT(F_INTERRUPT, 1);
            if (v1) {
                if (!(o && o->implicit_except))
                    VISIT(F_ADDRESS, A);
                VISIT(F_TVAL, p->iaddress_width);
            } else {
                VISIT(F_THADDR, 1);
                if (!(o && o->implicit_except && pkt->thaddr))
                    VISIT(F_ADDRESS, A);
                if (!pkt->interrupt)
                    VISIT(F_TVAL, p->iaddress_width);
            }
        }
        return true;
    case 2:
        VISIT(F_ADDRESS, A);
        VISIT(F_NOTIFY, 1);
        VISIT(F_UPDISCON, 1);
        VISIT(F_IRREPORT, 1);
        VISIT(F_IRDEPTH, D);
        return true;
    case 1:
        VISIT(F_BRANCHES, 5);
        VISIT(F_BRANCH_MAP, branch_map_len(pkt->branches));
        if (pkt->branches == 0)
            return true;
        VISIT(F_ADDRESS, A);
        VISIT(F_NOTIFY, 1);
        VISIT(F_UPDISCON, 1);
        VISIT(F_IRREPORT, 1);
        VISIT(F_IRDEPTH, D);
        return true;
    default: /* format 0 */
        if (p->f0s_width)
            VISIT(F_F0S, p->f0s_width);
        else if (rvt_etrace_f0_implied_jtc(p, o) && pkt->f0_subformat != 1)
            pkt->f0_subformat = 1; /* (unpacking: the options say which) */
        if (pkt->f0_subformat == 0) {
            VISIT(F_BRANCH_COUNT, 32);
            VISIT(F_BRANCH_FMT, 2);
            if (pkt->branch_fmt == 0)
                return true;
            VISIT(F_ADDRESS, A);
            VISIT(F_NOTIFY, 1);
            VISIT(F_UPDISCON, 1);
        } else {
            VISIT(F_INDEX, p->cache_size);
            VISIT(F_BRANCHES, 5);
            if (pkt->branches)
                VISIT(F_BRANCH_MAP, branch_map_len(pkt->branches));
        }
        VISIT(F_IRREPORT, 1);
        VISIT(F_IRDEPTH, D);
        return true;
    }
}

/* ---------------------------------------------------------------- pack */

typedef struct {
    uint64_t w[9]; /* up to 512 payload bits, one spare word for spills */
    unsigned n;
} bitbuf;

static inline __attribute__((always_inline)) bool put_field(void *ctx, rvt_te_inst *pkt, enum field f, unsigned width) {
    bitbuf *b = ctx;
    uint64_t v = get(pkt, f);
    if (b->n + width > 512)
        return false;
    if (width < 64)
        v &= (1ull << width) - 1;
    unsigned word = b->n / 64, shift = b->n % 64;
    b->w[word] |= v << shift;
    if (shift && shift + width > 64)
        b->w[word + 1] |= v >> (64 - shift);
    b->n += width;
    return true;
}

static unsigned bit_at(const uint8_t *bits, unsigned i) { return (bits[i / 8] >> (i % 8)) & 1; }

int rvt_te_inst_pack(const rvt_etrace_params *p, const rvt_etrace_options *o, const rvt_te_inst *pkt,
                     uint8_t *out, size_t cap) {
    bitbuf b;
    memset(&b, 0, sizeof b);
    /* the walk only reads the packet when packing (put_field) */
    walker wk = {p, o, (rvt_te_inst *)pkt, put_field, &b};
    if (!walk(&wk) || b.n == 0)
        return RVT_E_RANGE;
    /* Sign compression: keep one copy of the run of top bits that equal the
     * MSB, then pad to a byte with copies of it. */
    unsigned top = b.n - 1;
    uint64_t msb = (b.w[top / 64] >> (top % 64)) & 1, fill = msb ? ~0ull : 0;
    unsigned keep = 1;
    for (int word = (int)(top / 64); word >= 0; word--) {
        uint64_t diff = b.w[word] ^ fill;
        if ((unsigned)word == top / 64 && top % 64 != 63)
            diff &= (1ull << (top % 64)) - 1; /* bits below the MSB */
        if (diff) {
            keep = (unsigned)word * 64 + (63 - (unsigned)__builtin_clzll(diff)) + 2;
            break;
        }
    }
    size_t bytes = (keep + 7) / 8;
    if (bytes > cap)
        return RVT_E_RANGE;
    /* Bits from `keep` up to the byte boundary become copies of the MSB. */
    for (unsigned i = keep, end; i < bytes * 8; i = end) { /* a word at a time */
        unsigned word = i / 64;
        end = bytes * 8 < (word + 1) * 64 ? (unsigned)bytes * 8 : (word + 1) * 64;
        uint64_t m = (end - i == 64 ? ~0ull : (1ull << (end - i)) - 1) << (i % 64);
        b.w[word] = msb ? b.w[word] | m : b.w[word] & ~m;
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if ((bytes + 7) / 8 * 8 <= cap) /* whole words: no call for a few bytes (out is scratch up to cap) */
        for (size_t i = 0; i < bytes; i += 8)
            memcpy(out + i, &b.w[i / 8], 8);
    else
        memcpy(out, b.w, bytes);
#else
    for (size_t i = 0; i < bytes; i++)
        out[i] = (uint8_t)(b.w[i / 8] >> (8 * (i % 8)));
#endif
    return (int)bytes;
}

/* -------------------------------------------------------------- unpack */

typedef struct {
    const uint8_t *data; /* the payload, followed by at least 16 zero bytes */
    unsigned nbits, pos;
    bool compact_address; /* rv_tracer: 8k+1 address bits, zero padding */
    unsigned irdepth_width;
} bitsrc;

/* rv_tracer's address field: 8k+1 bits, the largest that leaves room for
 * the fields after it (format 1 and 2: notify, updiscon, irreport, irdepth)
 * in the payload; sign-extended. */
static void get_compact_address(bitsrc *s, rvt_te_inst *pkt) {
    unsigned after = pkt->format == 1 || pkt->format == 2 ? 3 + s->irdepth_width : 0;
    unsigned room = s->nbits > s->pos + after ? s->nbits - s->pos - after : 0;
    unsigned width = room >= 9 ? ((room - 1) / 8) * 8 + 1 : room;
    if (width > 65)
        width = 65;
    uint64_t v = 0;
    for (unsigned i = 0; i < width && i < 64; i++)
        v |= (uint64_t)bit_at(s->data, s->pos + i) << i;
    if (width && width < 64 && bit_at(s->data, s->pos + width - 1))
        v |= ~0ull << width;
    s->pos += width;
    pkt->address = v;
}

static uint64_t load_le64(const uint8_t *b) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, b, sizeof v);
#else
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
#endif
    return v;
}

/* A field is read a word at a time; beyond the payload every bit is a copy of
 * its last one (the sign-based compression), and bits past 64 are dropped. */
static inline __attribute__((always_inline)) bool get_field(void *ctx, rvt_te_inst *pkt, enum field f, unsigned width) {
    bitsrc *s = ctx;
    if (f == F_ADDRESS && s->compact_address) {
        get_compact_address(s, pkt);
        return true;
    }
    unsigned want = width < 64 ? width : 64, pos = s->pos;
    unsigned left = pos < s->nbits ? s->nbits - pos : 0, got = want < left ? want : left;
    uint64_t v = 0;
    if (got) {
        const uint8_t *at = s->data + (pos >> 3);
        unsigned off = pos & 7;
        v = load_le64(at) >> off;
        if (off)
            v |= load_le64(at + 8) << (64 - off);
        if (got < 64)
            v &= (UINT64_C(1) << got) - 1;
    }
    if (got < want && bit_at(s->data, s->nbits - 1))
        v |= (want == 64 ? ~0ull : (1ull << want) - 1) & ~((1ull << got) - 1);
    s->pos += width;
    set(pkt, f, v);
    return true;
}

/* Bits [pos, pos + width) of a 128-bit value (width <= 64, pos + width <= 128). */
static inline uint64_t take_bits(const uint64_t w[2], unsigned pos, unsigned width) {
    uint64_t v = pos >= 64 ? w[1] >> (pos - 64) : pos ? w[0] >> pos | w[1] << (64 - pos) : w[0];
    return width < 64 ? v & ((UINT64_C(1) << width) - 1) : v;
}

static uint32_t load_le32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* `len` (1..16) bytes into w, little-endian, with loads of a word or half a
 * word that overlap where len is not a multiple (a byte at a time and a
 * library call each cost more than the rest of the packet). */
static inline void load_bytes(uint64_t w[2], const uint8_t *b, size_t len) {
    if (len >= 8) {
        w[0] = load_le64(b);
        if (len > 8)
            w[1] = load_le64(b + len - 8) >> (8 * (16 - len));
    } else if (len >= 4) {
        w[0] = load_le32(b) | (uint64_t)load_le32(b + len - 4) << (8 * (len - 4));
    } else {
        w[0] = b[0] | (len > 1 ? (uint64_t)b[1] << 8 : 0) | (len > 2 ? (uint64_t)b[2] << 16 : 0);
    }
}

/* Formats 1 and 2, nearly every packet of a trace, read from the payload's
 * first 128 bits at once, sign-filled as get_field fills them; false when
 * the packet is of another format or reaches past 128 bits. (The general
 * walk costs a call and a bounds check a field, a sixth of decoding.) */
static inline __attribute__((always_inline)) bool unpack_branch_packet(const rvt_etrace_params *p,
                                                                       const uint8_t *payload, size_t len,
                                                                       rvt_te_inst *pkt) {
    unsigned format = payload[0] & 3, A = rvt_etrace_addr_width(p), D = rvt_etrace_irdepth_width(p);
    if ((format != 1 && format != 2) || len > 16 || A > 64 || D > 64)
        return false;
    uint64_t w[2] = {0, 0};
    load_bytes(w, payload, len);
    unsigned nbits = (unsigned)len * 8, pos = 2;
    if (payload[len - 1] & 0x80) {
        if (nbits < 64)
            w[0] |= ~UINT64_C(0) << nbits;
        if (nbits <= 64)
            w[1] = ~UINT64_C(0);
        else if (nbits < 128)
            w[1] |= ~UINT64_C(0) << (nbits - 64);
    }
    if (format == 1) {
        unsigned branches = (unsigned)take_bits(w, pos, 5), map = branch_map_len(branches);
        pkt->branches = (uint8_t)branches;
        pkt->branch_map = (uint32_t)take_bits(w, pos + 5, map);
        pos += 5 + map;
        if (branches == 0) {
            pkt->format = 1;
            return true;
        }
    }
    if (pos + A + 3 + D > 128)
        return false;
    pkt->format = (uint8_t)format;
    pkt->address = take_bits(w, pos, A);
    pos += A;
    pkt->notify = (uint8_t)take_bits(w, pos, 1);
    pkt->updiscon = (uint8_t)take_bits(w, pos + 1, 1);
    pkt->irreport = (uint8_t)take_bits(w, pos + 2, 1);
    pkt->irdepth = (uint32_t)take_bits(w, pos + 3, D);
    return true;
}

/* Every field the general way (1..64 bytes of payload). */
static __attribute__((noinline)) void unpack_fields(const rvt_etrace_params *p, const rvt_etrace_options *o,
                                                    const uint8_t *payload, size_t len, rvt_te_inst *pkt) {
    bool rv_tracer = o && o->rv_tracer_layout;
    memset(pkt, 0, sizeof *pkt); /* (the fast path may have begun) */
    uint8_t padded[64 + 16] = {0}; /* (a field's last word may reach past the payload) */
    memcpy(padded, payload, len);
    bitsrc s = {padded, (unsigned)len * 8, 0, rv_tracer, rvt_etrace_irdepth_width(p)};
    walker wk = {p, o, pkt, get_field, &s};
    walk(&wk);
    if (rv_tracer && pkt->format == 3 && pkt->subformat == 3) {
        /* its option bits, MSB first: delta, full, implicit exception, sijump,
         * implicit return, prediction, jump target cache */
        unsigned r = pkt->ioptions;
        pkt->ioptions = (uint8_t)(((r >> 2) & 1 ? RVT_IOPT_IMPLICIT_RETURN : 0) |
                                  ((r >> 4) & 1 ? RVT_IOPT_IMPLICIT_EXCEPT : 0) |
                                  ((r >> 5) & 1 ? RVT_IOPT_FULL_ADDRESS : 0) |
                                  (r & 1 ? RVT_IOPT_JUMP_TARGET_CACHE : 0) |
                                  ((r >> 1) & 1 ? RVT_IOPT_BRANCH_PREDICTION : 0));
    }
}

/* (inline: rvt_te_raw_next reads every packet through it, nearly all of
 * them branch packets, which a call and the general walk would double) */
static inline __attribute__((always_inline)) int unpack(const rvt_etrace_params *p, const rvt_etrace_options *o,
                                                        const uint8_t *payload, size_t len, rvt_te_inst *pkt,
                                                        rvt_diag *diag) {
    memset(pkt, 0, sizeof *pkt);
    if (len == 0)
        return rvt_diag_set(diag, RVT_E_FORMAT, "empty te_inst payload");
    if (len > 64)
        return rvt_diag_set(diag, RVT_E_FORMAT, "te_inst payload of %zu bytes is longer than any packet", len);
    if ((o && o->rv_tracer_layout) || !unpack_branch_packet(p, payload, len, pkt))
        unpack_fields(p, o, payload, len, pkt);
    return RVT_OK;
}

int rvt_te_inst_unpack(const rvt_etrace_params *p, const rvt_etrace_options *o, const uint8_t *payload,
                       size_t len, rvt_te_inst *pkt, rvt_diag *diag) {
    return unpack(p, o, payload, len, pkt, diag);
}

/* ----------------------------------------------------------------- CSV */

const char *rvt_te_inst_csv_header(void) {
    return "format,subformat,address,branch,branches,branch_map,branch_count,branch_fmt,context,ecause,"
           "ienable,encoder_mode,interrupt,irreport,irdepth,notify,ioptions,privilege,qual_status,time,"
           "thaddr,tval,updiscon,denable,dloss,doptions";
}

typedef struct {
    bool present[F_COUNT];
} presence;

static bool mark(void *ctx, rvt_te_inst *pkt, enum field f, unsigned width) {
    (void)pkt;
    (void)width;
    ((presence *)ctx)->present[f] = true;
    return true;
}

void rvt_te_inst_csv_row(const rvt_etrace_params *p, const rvt_etrace_options *o, const rvt_te_inst *pkt,
                         char *buf, size_t cap) {
    presence pr;
    memset(&pr, 0, sizeof pr);
    rvt_te_inst copy = *pkt;
    walker wk = {p, o, &copy, mark, &pr};
    walk(&wk);
    /* The reference CSV leaves out the data-trace placeholders of support
     * packets and shows format 0's subformat in the subformat column. */
    pr.present[F_DENABLE] = pr.present[F_DLOSS] = pr.present[F_DOPTIONS] = false;
    if (pr.present[F_F0S])
        pr.present[F_SUBFORMAT] = true;
    static const enum field order[] = {F_FORMAT, F_SUBFORMAT, F_ADDRESS, F_BRANCH, F_BRANCHES, F_BRANCH_MAP,
                                       F_BRANCH_COUNT, F_BRANCH_FMT, F_CONTEXT, F_ECAUSE, F_IENABLE,
                                       F_ENCODER_MODE, F_INTERRUPT, F_IRREPORT, F_IRDEPTH, F_NOTIFY,
                                       F_IOPTIONS, F_PRIVILEGE, F_QUAL_STATUS, F_TIME, F_THADDR, F_TVAL,
                                       F_UPDISCON, F_DENABLE, F_DLOSS, F_DOPTIONS};
    size_t n = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        enum field f = order[i];
        const char *sep = i ? "," : "";
        int w;
        if (!pr.present[f])
            w = snprintf(buf + n, n < cap ? cap - n : 0, "%s_", sep);
        else if (f == F_ADDRESS || f == F_TVAL)
            w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%" PRIx64, sep, get(pkt, f));
        else if (f == F_SUBFORMAT && pkt->format == 0)
            w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%u", sep, pkt->f0_subformat);
        else
            w = snprintf(buf + n, n < cap ? cap - n : 0, "%s%" PRIu64, sep, get(pkt, f));
        if (w > 0)
            n += (size_t)w;
    }
}

/* ----------------------------------------------------------- transport */

int rvt_te_raw_write(FILE *f, const uint8_t *payload, size_t len) {
    uint8_t msg[32]; /* one write per packet: each stdio call takes the stream's lock */
    size_t n = rvt_te_raw_frame(payload, len, msg);
    if (!n)
        return RVT_E_RANGE;
    return fwrite(msg, 1, n, f) == n ? RVT_OK : RVT_E_IO;
}

int rvt_te_encap_write(rvt_te_encap_writer *w, const uint8_t *payload, size_t len, uint64_t time) {
    if (len == 0 || len > 31 || w->t.index_bytes > 2)
        return RVT_E_RANGE;
    static const uint8_t zeros[64];
    if (w->t.align_every && w->packets % w->t.align_every == 0) {
        if (fwrite(zeros, 1, RVT_TE_ALIGN_ZEROS, w->f) != RVT_TE_ALIGN_ZEROS)
            return RVT_E_IO;
        w->bytes += RVT_TE_ALIGN_ZEROS;
    }
    size_t frame = 1 + w->t.index_bytes + (w->t.timestamps ? 2u : 0u) + len;
    if (w->t.block_size) {
        if (frame > w->t.block_size)
            return RVT_E_RANGE;
        uint64_t room = w->t.block_size - w->bytes % w->t.block_size;
        for (uint64_t left = frame > room ? room : 0; left;) { /* the block's end: zeros */
            size_t n = left < sizeof zeros ? (size_t)left : sizeof zeros;
            if (fwrite(zeros, 1, n, w->f) != n)
                return RVT_E_IO;
            left -= n;
            w->bytes += n;
        }
    }
    w->packets++;
    w->bytes += frame;
    uint8_t head[5];
    size_t n = 0;
    head[n++] = (uint8_t)((w->t.timestamps ? 0x80 : 0) | RVT_TE_MSG_TYPE_INST << 5 | len);
    for (unsigned i = 0; i < w->t.index_bytes; i++)
        head[n++] = (uint8_t)(w->t.index >> (8 * i));
    if (w->t.timestamps) {
        head[n++] = (uint8_t)time;
        head[n++] = (uint8_t)(time >> 8);
    }
    if (fwrite(head, 1, n, w->f) != n || fwrite(payload, 1, len, w->f) != len)
        return RVT_E_IO;
    return RVT_OK;
}

/* A search from a later place finds no more than one from an earlier place
 * (a run of zeros it starts inside of is shorter): after one that found
 * none, the next ones go a byte on straight away, or a damaged stretch
 * would cost a search to the end for every byte of it. */
size_t rvt_te_raw_resync(rvt_te_raw_cursor *c) {
    size_t from = c->pos, run = 0;
    if (c->t && c->t->rv_tracer_records)
        return 0; /* records are whole: the damaged one was skipped */
    if (c->t && c->t->block_size) { /* the next block starts with a packet */
        uint64_t at = c->base + from, next = (at / c->t->block_size + 1) * c->t->block_size;
        c->pos = next - c->base < c->size ? (size_t)(next - c->base) : c->size;
        return c->pos - from;
    }
    if (!c->no_zeros_from || from + 1 < c->no_zeros_from) {
        for (size_t i = from; i < c->size; i++) {
            if (c->data[i] == 0) {
                run++;
            } else if (run >= RVT_TE_ALIGN_ZEROS) {
                c->pos = i;
                return i - from;
            } else {
                run = 0;
            }
        }
        c->no_zeros_from = from + 1;
    }
    c->pos = from < c->size ? from + 1 : c->size;
    return c->pos - from;
}

/* One rv_tracer record: reversed, it is header, time stamp and payload,
 * little-endian, then zeros. */
static int next_record(rvt_te_raw_cursor *c, const rvt_etrace_params *p, const rvt_etrace_options *o,
                       rvt_te_inst *pkt, size_t *offset, rvt_diag *diag) {
    size_t at = c->pos;
    if (at >= c->size)
        return 0;
    if (c->size - at < RVT_RV_TRACER_RECORD) {
        c->pos = c->size; /* a partial record at the end is dropped */
        return rvt_diag_set(diag, RVT_E_TRUNC, "byte %" PRIu64 " (record %" PRIu64 "): %zu bytes left, a record has %u",
                            c->base + at, c->index, c->size - at, RVT_RV_TRACER_RECORD);
    }
    uint8_t r[RVT_RV_TRACER_RECORD];
    for (unsigned i = 0; i < RVT_RV_TRACER_RECORD; i++)
        r[i] = c->data[at + RVT_RV_TRACER_RECORD - 1 - i];
    unsigned len = r[0] & 0x1f;
    c->pos = at + RVT_RV_TRACER_RECORD; /* a damaged record is skipped whole */
    c->index++;
    if (len == 0 || 9 + len > RVT_RV_TRACER_RECORD)
        return rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 " (record %" PRIu64 "): header 0x%02x gives %u payload "
                            "bytes (1..31)", c->base + at, c->index - 1, r[0], len);
    for (unsigned i = 9 + len; i < RVT_RV_TRACER_RECORD; i++)
        if (r[i])
            return rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 " (record %" PRIu64 "): bits above its %u payload "
                                "bytes are not zero", c->base + at, c->index - 1, len);
    c->src = 0;
    c->stamp = (unsigned)r[1] | (unsigned)r[2] << 8;
    rvt_etrace_options layout = *o;
    layout.rv_tracer_layout = true;
    int rc = rvt_te_inst_unpack(p, &layout, r + 9, len, pkt, diag);
    if (rc)
        return rc;
    if (offset)
        *offset = at;
    return 1;
}

int rvt_te_raw_next(rvt_te_raw_cursor *c, const rvt_etrace_params *p, const rvt_etrace_options *o,
                    rvt_te_inst *pkt, size_t *offset, rvt_diag *diag) {
    if (c->t && c->t->rv_tracer_records)
        return next_record(c, p, o, pkt, offset, diag);
    while (c->pos < c->size && c->data[c->pos] == 0)
        c->pos++; /* alignment padding */
    if (c->pos >= c->size)
        return 0;
    size_t at = c->pos;
    uint8_t h = c->data[at];
    unsigned len = h & 0x1f, type = (h >> 5) & 3;
    bool stamped = h & 0x80;
    unsigned extra = c->t ? c->t->index_bytes + (stamped ? 2u : 0u) : 0;
    if ((stamped && !c->t) || type != RVT_TE_MSG_TYPE_INST || len == 0)
        return rvt_diag_set(diag, RVT_E_FORMAT,
                            "byte %" PRIu64 " (packet %" PRIu64 "): header 0x%02x is not a te_inst header "
                            "(expected %s, msg_type 2, length 1..31)",
                            c->base + at, c->index, h, c->t ? "bit 7 = time stamp flag" : "bit 7 = 0");
    if (at + 1 + extra + len > c->size)
        return rvt_diag_set(diag, RVT_E_TRUNC,
                            "byte %" PRIu64 " (packet %" PRIu64 "): packet of %u payload bytes runs past the end "
                            "(byte %" PRIu64 ")", c->base + at, c->index, len, c->base + c->size);
    const uint8_t *q = c->data + at + 1;
    c->src = c->stamp = 0;
    for (unsigned i = 0; c->t && i < c->t->index_bytes; i++)
        c->src |= (unsigned)*q++ << (8 * i);
    if (stamped) {
        c->stamp = (unsigned)q[0] | (unsigned)q[1] << 8;
        q += 2;
    }
    int rc = unpack(p, o, q, len, pkt, diag);
    if (rc)
        return rc;
    c->pos = at + 1 + extra + len;
    c->index++;
    if (offset)
        *offset = at;
    return 1;
}
