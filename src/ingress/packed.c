/* The packed form of retirement records (rvt_retire_packed). */
#include <stddef.h>
#include <string.h>

#include "rvtrace/ingress.h"

size_t rvt_retire_pack(const rvt_retire *r, rvt_retire_packed *out) {
    bool more = r->cause || r->tval || r->context || r->sideband || (r->ctype & 0x80);
    out[0] = (rvt_retire_packed){
        .iaddr = r->iaddr,
        .time = r->time,
        .insn_ninsns = r->insn | (uint64_t)r->ninsns << 32,
        .bits = rvt_packed_bits(r->iretire, r->ilastsize, r->itype, r->priv, more ? 0 : r->ctype, r->sijump, r->hart) |
                (more ? RVT_PACKED_MORE : 0),
    };
    if (!more)
        return 1;
    out[1] = (rvt_retire_packed){r->cause, r->tval, r->context, r->sideband | (uint64_t)r->ctype << 8};
    return 2;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* On a little-endian host a packed record's words are rvt_retire's words 0,
 * 4, 5 and 6, and its second slot's 1, 2, 3 and (but for ctype) 7: records
 * are unpacked a word at a time, and into a record whose other words hold
 * zeros already, a one-slot record needs only its own four. */
_Static_assert(sizeof(rvt_retire) == 64 && offsetof(rvt_retire, cause) == 8 && offsetof(rvt_retire, tval) == 16 &&
                   offsetof(rvt_retire, context) == 24 && offsetof(rvt_retire, time) == 32 &&
                   offsetof(rvt_retire, insn) == 40 && offsetof(rvt_retire, ninsns) == 44 &&
                   offsetof(rvt_retire, iretire) == 48 && offsetof(rvt_retire, ilastsize) == 50 &&
                   offsetof(rvt_retire, itype) == 51 && offsetof(rvt_retire, priv) == 52 &&
                   offsetof(rvt_retire, ctype) == 53 && offsetof(rvt_retire, sijump) == 54 &&
                   offsetof(rvt_retire, hart) == 55 && offsetof(rvt_retire, sideband) == 56,
               "records are unpacked as words");
typedef uint64_t __attribute__((may_alias)) record_word;

static inline void unpack_one(const rvt_retire_packed *p, const rvt_retire_packed *more, rvt_retire *r, bool clean) {
    record_word *w = (record_word *)r;
    uint64_t bits = p->bits;
    if (more) {
        w[1] = more->iaddr;
        w[2] = more->time;
        w[3] = more->insn_ninsns;
        w[7] = more->bits & 0xff;
        bits = (bits & ~(0xffull << 40)) | (more->bits >> 8 & 0xff) << 40;
    } else if (!clean) {
        w[1] = w[2] = w[3] = w[7] = 0;
    }
    w[0] = p->iaddr;
    memcpy(&w[4], &p->time, 16); /* time and insn_ninsns: one move of two words */
    w[6] = bits;
}

/* Puts back the zeros of a clean scratch (see unpack_one). */
static void clean_records(rvt_retire *r, size_t k) {
    for (size_t i = 0; i < k; i++) {
        record_word *w = (record_word *)&r[i];
        w[1] = w[2] = w[3] = w[7] = 0;
    }
}
#else
static inline void unpack_one(const rvt_retire_packed *p, const rvt_retire_packed *more, rvt_retire *r, bool clean) {
    (void)clean;
    uint64_t bits = p->bits;
    *r = (rvt_retire){.iaddr = p->iaddr, .time = p->time};
    if (more) {
        r->cause = more->iaddr;
        r->tval = more->time;
        r->context = more->insn_ninsns;
        r->sideband = (uint8_t)more->bits;
        bits = (bits & ~(0xffull << 40)) | (more->bits >> 8 & 0xff) << 40;
    }
    r->insn = (uint32_t)p->insn_ninsns;
    r->ninsns = (uint32_t)(p->insn_ninsns >> 32);
    r->iretire = (uint16_t)bits;
    r->ilastsize = (uint8_t)(bits >> 16);
    r->itype = (uint8_t)(bits >> 24);
    r->priv = (uint8_t)(bits >> 32);
    r->ctype = (uint8_t)(bits >> 40);
    r->sijump = (uint8_t)(bits >> 48);
    r->hart = (uint8_t)(bits >> 56);
}

static void clean_records(rvt_retire *r, size_t k) { (void)r, (void)k; }
#endif

/* rvt_retire_unpack, into `out` whose records are clean (`clean`: all but
 * the words a one-slot record fills hold zeros); *more: records of two
 * slots among those written. */
static inline size_t unpack(const rvt_retire_packed *in, size_t n, rvt_retire *out, size_t cap, size_t *used,
                            bool clean, size_t *more) {
    size_t i = 0, k = 0, two = 0;
    while (k < cap && i < n) {
        /* Records of one slot, the most, as far as both ends allow: one
         * bound to check for each. Behind a relay the slots were just
         * written on another core: this is their first read on ours. */
        size_t ones = cap - k < n - i ? cap - k : n - i;
        const rvt_retire_packed *p = in + i, *const stop = p + ones;
        rvt_retire *o = out + k;
        for (; p < stop && !(p->bits & RVT_PACKED_MORE); p++, o++) {
            __builtin_prefetch((const void *)((uintptr_t)p + 512));
            unpack_one(p, NULL, o, clean);
        }
        i = (size_t)(p - in);
        k = (size_t)(o - out);
        if (p == stop)
            continue;
        if (i + 2 > n)
            break;
        unpack_one(&in[i], &in[i + 1], &out[k], clean);
        i += 2;
        k++;
        two++;
    }
    *used = i;
    *more = two;
    return k;
}

size_t rvt_retire_unpack(const rvt_retire_packed *in, size_t n, rvt_retire *out, size_t cap, size_t *used) {
    size_t more;
    return unpack(in, n, out, cap, used, false, &more);
}

int rvt_retire_unpack_to(const rvt_retire_packed *slots, size_t n, rvt_retire *scratch, size_t cap,
                         rvt_retire_sink sink, void *user) {
    int rc = 0;
    while (n && !rc) {
        size_t used, more, k = unpack(slots, n, scratch, cap, &used, true, &more);
        if (!used)
            return RVT_E_TRUNC; /* a first slot that announces a second, at the end */
        rc = sink(user, scratch, k);
        if (more)
            clean_records(scratch, k);
        slots += used;
        n -= used;
    }
    return rc;
}
