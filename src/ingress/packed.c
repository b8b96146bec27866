/* The packed form of retirement records (rvt_retire_packed). */
#include <stddef.h>

#include "rvtrace/ingress.h"

size_t rvt_retire_pack(const rvt_retire *r, rvt_retire_packed *out, rvt_packed_state *s) {
    if (rvt_packed_fits(r, s)) {
        out[0] = (rvt_retire_packed){
            r->iaddr, rvt_packed_word(r->insn, r->ninsns, r->iretire, r->ilastsize, r->itype, r->priv, r->hart)};
        return 1;
    }
    s->time = r->time;
    s->hart_group = r->hart >> 2u;
    out[0] = (rvt_retire_packed){1 | (uint64_t)r->sideband << 8 | (uint64_t)r->trigger << 16, r->iaddr};
    out[1] = (rvt_retire_packed){r->time, r->insn | (uint64_t)r->ninsns << 32};
    out[2] = (rvt_retire_packed){
        rvt_packed_bits(r->iretire, r->ilastsize, r->itype, r->priv, r->ctype, r->sijump, r->hart), r->cause};
    out[3] = (rvt_retire_packed){r->tval, r->context};
    return RVT_PACKED_MAX_SLOTS;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* On a little-endian host rvt_retire is eight words: iaddr, cause, tval,
 * context, time, insn | ninsns << 32, the bits (rvt_packed_bits) and the
 * sideband: records are unpacked a word at a time, and into a record
 * whose other words hold zeros already, a one-slot record needs only its
 * iaddr, its time, and the two words its packed word turns into. */
_Static_assert(sizeof(rvt_retire) == 64 && offsetof(rvt_retire, cause) == 8 && offsetof(rvt_retire, tval) == 16 &&
                   offsetof(rvt_retire, context) == 24 && offsetof(rvt_retire, time) == 32 &&
                   offsetof(rvt_retire, insn) == 40 && offsetof(rvt_retire, ninsns) == 44 &&
                   offsetof(rvt_retire, iretire) == 48 && offsetof(rvt_retire, ilastsize) == 50 &&
                   offsetof(rvt_retire, itype) == 51 && offsetof(rvt_retire, priv) == 52 &&
                   offsetof(rvt_retire, ctype) == 53 && offsetof(rvt_retire, sijump) == 54 &&
                   offsetof(rvt_retire, hart) == 55 && offsetof(rvt_retire, sideband) == 56 &&
                   offsetof(rvt_retire, trigger) == 57,
               "records are unpacked as words");
typedef uint64_t __attribute__((may_alias)) record_word;

/* The bits (as rvt_packed_bits) of a one-slot record's ilastsize, itype,
 * priv and hart, by its word's top nine bits. */
#define TOP(i)                                                                                                         \
    ((uint64_t)((i) & 1) << 16 | (uint64_t)((i) >> 1 & 0xf) << 24 | (uint64_t)((i) >> 5 & 3) << 32 |                 \
     (uint64_t)((i) >> 7) << 56)
#define TOP4(i) TOP(i), TOP((i) + 1), TOP((i) + 2), TOP((i) + 3)
#define TOP32(i) TOP4(i), TOP4((i) + 4), TOP4((i) + 8), TOP4((i) + 12), TOP4((i) + 16), TOP4((i) + 20), \
                 TOP4((i) + 24), TOP4((i) + 28)
static const uint64_t top_bits[512] = {TOP32(0),   TOP32(32),  TOP32(64),  TOP32(96),  TOP32(128), TOP32(160),
                                       TOP32(192), TOP32(224), TOP32(256), TOP32(288), TOP32(320), TOP32(352),
                                       TOP32(384), TOP32(416), TOP32(448), TOP32(480)};
#undef TOP32
#undef TOP4
#undef TOP

/* The stream's state for unpack_short: its time, and its hart group as
 * bits of the record's word 6. */
struct short_state {
    uint64_t time, group_bits;
};
static inline struct short_state short_state(const rvt_packed_state *s) {
    return (struct short_state){s->time, (uint64_t)(s->hart_group << 2) << 56};
}

static inline void unpack_short(const rvt_retire_packed *p, struct short_state st, rvt_retire *r, bool clean) {
    record_word *w = (record_word *)r;
    uint64_t x = p->word;
    if (!clean)
        w[1] = w[2] = w[3] = w[7] = 0;
    w[0] = p->iaddr;
    w[4] = st.time;
    w[5] = x & ((1ull << 42) - 1); /* insn and ninsns */
    w[6] = (top_bits[x >> 55] | st.group_bits) | (x >> 43 & RVT_PACKED_IRETIRE_MAX);
}

static inline void unpack_long(const rvt_retire_packed *p, rvt_retire *r) {
    record_word *w = (record_word *)r;
    w[0] = p[0].word;
    w[7] = p[0].iaddr >> 8 & 0xffff; /* sideband and trigger */
    w[4] = p[1].iaddr;
    w[5] = p[1].word;
    w[6] = p[2].iaddr;
    w[1] = p[2].word;
    w[2] = p[3].iaddr;
    w[3] = p[3].word;
}

/* Puts back the zeros of a clean scratch (see unpack_short). */
static void clean_records(rvt_retire *r, size_t k) {
    for (size_t i = 0; i < k; i++) {
        record_word *w = (record_word *)&r[i];
        w[1] = w[2] = w[3] = w[7] = 0;
    }
}
#else
struct short_state {
    rvt_packed_state s;
};
static inline struct short_state short_state(const rvt_packed_state *s) { return (struct short_state){*s}; }

static inline void unpack_short(const rvt_retire_packed *p, struct short_state st, rvt_retire *r, bool clean) {
    (void)clean;
    *r = (rvt_retire){.iaddr = p->iaddr, .time = st.s.time};
    rvt_packed_word_to(p->word, &st.s, r);
}

static inline void unpack_long(const rvt_retire_packed *p, rvt_retire *r) {
    uint64_t bits = p[2].iaddr;
    *r = (rvt_retire){.iaddr = p[0].word,
                      .sideband = (uint8_t)(p[0].iaddr >> 8),
                      .trigger = (uint8_t)(p[0].iaddr >> 16),
                      .time = p[1].iaddr,
                      .insn = (uint32_t)p[1].word,
                      .ninsns = (uint32_t)(p[1].word >> 32),
                      .cause = p[2].word,
                      .tval = p[3].iaddr,
                      .context = p[3].word,
                      .iretire = (uint16_t)bits,
                      .ilastsize = (uint8_t)(bits >> 16),
                      .itype = (uint8_t)(bits >> 24),
                      .priv = (uint8_t)(bits >> 32),
                      .ctype = (uint8_t)(bits >> 40),
                      .sijump = (uint8_t)(bits >> 48),
                      .hart = (uint8_t)(bits >> 56)};
}

static void clean_records(rvt_retire *r, size_t k) { (void)r, (void)k; }
#endif

/* rvt_retire_unpack, into `out` whose records are clean (`clean`: all but
 * the words a one-slot record fills hold zeros); *more: long records among
 * those written. */
static inline size_t unpack(const rvt_retire_packed *in, size_t n, rvt_retire *out, size_t cap, size_t *used,
                            bool clean, size_t *more, rvt_packed_state *s) {
    size_t i = 0, k = 0, longs = 0;
    struct short_state st = short_state(s);
    while (k < cap && i < n) {
        /* Records of one slot, the most, as far as both ends allow: one
         * bound to check for each. Behind a relay the slots were just
         * written on another core: this is their first read on ours. */
        size_t ones = cap - k < n - i ? cap - k : n - i;
        const rvt_retire_packed *p = in + i, *const stop = p + ones;
        rvt_retire *o = out + k;
        for (; p < stop && rvt_packed_is_one_slot(p); p++, o++) {
            __builtin_prefetch((const void *)((uintptr_t)p + 512));
            unpack_short(p, st, o, clean);
        }
        i = (size_t)(p - in);
        k = (size_t)(o - out);
        if (p == stop)
            continue;
        if (rvt_packed_is_long(p)) {
            if (i + RVT_PACKED_MAX_SLOTS > n)
                break;
            unpack_long(p, o);
            k++;
            longs++;
        }
        rvt_packed_follow(p, s);
        st = short_state(s);
        i += rvt_packed_slots(p);
    }
    *used = i;
    *more = longs;
    return k;
}

size_t rvt_retire_unpack(const rvt_retire_packed *in, size_t n, rvt_retire *out, size_t cap, size_t *used,
                         rvt_packed_state *s) {
    size_t more;
    return unpack(in, n, out, cap, used, false, &more, s);
}

int rvt_retire_unpack_to(const rvt_retire_packed *slots, size_t n, rvt_retire *scratch, size_t cap,
                         rvt_retire_sink sink, void *user, rvt_packed_state *s) {
    int rc = 0;
    while (n && !rc) {
        size_t used, more, k = unpack(slots, n, scratch, cap, &used, true, &more, s);
        if (!used)
            return RVT_E_TRUNC; /* a long record's first slot without the rest, at the end */
        if (k)
            rc = sink(user, scratch, k);
        if (more)
            clean_records(scratch, k);
        slots += used;
        n -= used;
    }
    return rc;
}
