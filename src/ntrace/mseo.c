/* Reading N-Trace messages out of an MSEO byte stream. */
#include <string.h>

#include "rvtrace/ntrace.h"

enum { MSEO_FIELD_END = 1, MSEO_MESSAGE_END = 3, IDLE_BYTE = 0xff };

static const char *const field_names[RVT_NXF_COUNT] = {
    [RVT_NXF_TCODE] = "TCODE", [RVT_NXF_SRC] = "SRC",         [RVT_NXF_SYNC] = "SYNC",
    [RVT_NXF_BTYPE] = "BTYPE", [RVT_NXF_ICNT] = "ICNT",       [RVT_NXF_FADDR] = "FADDR",
    [RVT_NXF_UADDR] = "UADDR", [RVT_NXF_HIST] = "HIST",       [RVT_NXF_RCODE] = "RCODE",
    [RVT_NXF_RDATA] = "RDATA", [RVT_NXF_HREPEAT] = "HREPEAT", [RVT_NXF_EVCODE] = "EVCODE",
    [RVT_NXF_CDF] = "CDF",     [RVT_NXF_ETYPE] = "ETYPE",     [RVT_NXF_ECODE] = "ECODE",
    [RVT_NXF_PROCESS] = "PROCESS", [RVT_NXF_BCNT] = "BCNT",   [RVT_NXF_TSTAMP] = "TSTAMP",
    [RVT_NXF_IDTAG] = "IDTAG", [RVT_NXF_DATA] = "DATA",       [RVT_NXF_ADDR] = "ADDR",
    [RVT_NXF_CKSRC] = "CKSRC", [RVT_NXF_CKDF] = "CKDF",       [RVT_NXF_CKDATA0] = "CKDATA0",
    [RVT_NXF_CKDATA1] = "CKDATA1",
};

const char *rvt_nexus_field_name(rvt_nexus_field_id id) {
    return (unsigned)id < RVT_NXF_COUNT ? field_names[id] : "?";
}

/* The fields after TCODE and SRC, in the order they are sent. Width 0 marks a
 * variable-length field. Fields that depend on an earlier value (HREPEAT after
 * RCODE 2, HIST after CDF 1) are added by layout_extra(). */
typedef struct field_spec {
    uint8_t id, width;
} field_spec;

typedef struct message_layout {
    unsigned tcode;
    const char *name;
    field_spec fields[6];
    unsigned nfields;
} message_layout;

#define FIX(id, w) {RVT_NXF_##id, w}
#define VAR(id) {RVT_NXF_##id, 0}
static const message_layout layouts[] = {
    {RVT_NX_OWNERSHIP, "Ownership", {VAR(PROCESS)}, 1},
    {RVT_NX_DIRECT_BRANCH, "DirectBranch", {VAR(ICNT)}, 1},
    {RVT_NX_INDIRECT_BRANCH, "IndirectBranch", {FIX(BTYPE, 2), VAR(ICNT), VAR(UADDR)}, 3},
    {RVT_NX_ERROR, "Error", {FIX(ETYPE, 4), VAR(ECODE)}, 2},
    {RVT_NX_PROG_TRACE_SYNC, "ProgTraceSync", {FIX(SYNC, 4), VAR(ICNT), VAR(FADDR)}, 3},
    {RVT_NX_DIRECT_BRANCH_SYNC, "DirectBranchSync", {FIX(SYNC, 4), VAR(ICNT), VAR(FADDR)}, 3},
    {RVT_NX_INDIRECT_BRANCH_SYNC, "IndirectBranchSync", {FIX(SYNC, 4), FIX(BTYPE, 2), VAR(ICNT), VAR(FADDR)}, 4},
    {RVT_NX_RESOURCE_FULL, "ResourceFull", {FIX(RCODE, 4), VAR(RDATA)}, 2},
    {RVT_NX_INDIRECT_BRANCH_HIST, "IndirectBranchHist", {FIX(BTYPE, 2), VAR(ICNT), VAR(UADDR), VAR(HIST)}, 4},
    {RVT_NX_INDIRECT_BRANCH_HIST_SYNC, "IndirectBranchHistSync",
     {FIX(SYNC, 4), FIX(BTYPE, 2), VAR(ICNT), VAR(FADDR), VAR(HIST)}, 5},
    {RVT_NX_REPEAT_BRANCH, "RepeatBranch", {VAR(BCNT)}, 1},
    {RVT_NX_PROG_TRACE_CORRELATION, "ProgTraceCorrelation", {FIX(EVCODE, 4), FIX(CDF, 2), VAR(ICNT)}, 3},
};
/* SiFive's messages that N-Trace does not have (as SiFive's decoder reads them). */
static const message_layout sifive_layouts[] = {
    {RVT_NX_DATA_ACQUISITION, "DataAcquisition", {VAR(IDTAG), VAR(DATA)}, 2},
    {RVT_NX_AUX_ACCESS_WRITE, "AuxAccessWrite", {VAR(ADDR), VAR(DATA)}, 2},
    {RVT_NX_ICT, "InCircuitTrace", {FIX(CKSRC, 4), FIX(CKDF, 2), VAR(CKDATA0)}, 3},
    {RVT_NX_ICT_SYNC, "InCircuitTraceSync", {FIX(CKSRC, 4), FIX(CKDF, 2), VAR(CKDATA0)}, 3},
};
#undef FIX
#undef VAR

/* Every message is looked up by its TCODE: a table, not a search (entries
 * in the order of the layouts above; the dump and decoder tests name every
 * message through it). */
static const message_layout *const ntrace_by_tcode[64] = {
    [RVT_NX_OWNERSHIP] = &layouts[0],
    [RVT_NX_DIRECT_BRANCH] = &layouts[1],
    [RVT_NX_INDIRECT_BRANCH] = &layouts[2],
    [RVT_NX_ERROR] = &layouts[3],
    [RVT_NX_PROG_TRACE_SYNC] = &layouts[4],
    [RVT_NX_DIRECT_BRANCH_SYNC] = &layouts[5],
    [RVT_NX_INDIRECT_BRANCH_SYNC] = &layouts[6],
    [RVT_NX_RESOURCE_FULL] = &layouts[7],
    [RVT_NX_INDIRECT_BRANCH_HIST] = &layouts[8],
    [RVT_NX_INDIRECT_BRANCH_HIST_SYNC] = &layouts[9],
    [RVT_NX_REPEAT_BRANCH] = &layouts[10],
    [RVT_NX_PROG_TRACE_CORRELATION] = &layouts[11],
};
static const message_layout *const sifive_by_tcode[64] = {
    [RVT_NX_DATA_ACQUISITION] = &sifive_layouts[0],
    [RVT_NX_AUX_ACCESS_WRITE] = &sifive_layouts[1],
    [RVT_NX_ICT] = &sifive_layouts[2],
    [RVT_NX_ICT_SYNC] = &sifive_layouts[3],
};

static const message_layout *layout_of(unsigned dialect, unsigned tcode) {
    if (tcode >= 64)
        return NULL;
    const message_layout *l = ntrace_by_tcode[tcode];
    return l || dialect != RVT_NEXUS_SIFIVE ? l : sifive_by_tcode[tcode];
}

const char *rvt_nexus_dialect_tcode_name(unsigned dialect, unsigned tcode) {
    const message_layout *l = layout_of(dialect, tcode);
    return l ? l->name : NULL;
}

const char *rvt_nexus_tcode_name(unsigned tcode) { return rvt_nexus_dialect_tcode_name(RVT_NEXUS_NTRACE, tcode); }

/* A mandatory variable field that exists only for some values of the fixed
 * fields before it: HREPEAT follows the history of a ResourceFull with RCODE 2,
 * HIST follows the I-CNT of a ProgTraceCorrelation with CDF 1, CKDATA1 the
 * CKDATA0 of an in-circuit trace message with CKDF 1. */
static int layout_extra(const rvt_nexus_msg *m) {
    if ((m->tcode == RVT_NX_ICT || m->tcode == RVT_NX_ICT_SYNC) && rvt_nexus_get(m, RVT_NXF_CKDF, 0) == 1)
        return RVT_NXF_CKDATA1;
    if (m->tcode == RVT_NX_RESOURCE_FULL && rvt_nexus_get(m, RVT_NXF_RCODE, 0) == 2)
        return RVT_NXF_HREPEAT;
    if (m->tcode == RVT_NX_PROG_TRACE_CORRELATION && rvt_nexus_get(m, RVT_NXF_CDF, 0) == 1)
        return RVT_NXF_HIST;
    return -1;
}

void rvt_nexus_reader_init(rvt_nexus_reader *r, const rvt_nexus_config *cfg, const void *data, size_t size) {
    memset(r, 0, sizeof *r);
    r->data = data;
    r->size = size;
    if (cfg)
        r->cfg = *cfg;
}

/* Bit position inside the message being parsed. */
typedef struct bit_cursor {
    const uint8_t *msg;
    size_t avail; /* bytes from the message start to the end of the stream */
    size_t byte;  /* current byte within the message */
    unsigned bit; /* next unused MDO bit of that byte, 0..6 */
} bit_cursor;

static unsigned mseo_of(const bit_cursor *c) { return c->msg[c->byte] & 3u; }
static unsigned mdo_of(const bit_cursor *c) { return c->msg[c->byte] >> 2; }

/* Adds a field to `m`: 0, or the error when `m` has no room for it. */
static int put_field(rvt_nexus_msg *m, unsigned id, unsigned width, size_t end_byte, uint64_t value, rvt_diag *d) {
    return rvt_nexus_add_field(m, (rvt_nexus_field_id)id, width, (unsigned)end_byte, value)
               ? 0
               : rvt_diag_set(d, RVT_E_FORMAT, "too many fields");
}

/* Fixed-length field: `width` bits from the current bit on; the bytes it ends
 * in the middle of must not carry an end mark. */
static __attribute__((noinline)) int read_fixed_slowly(bit_cursor *c, rvt_nexus_msg *m, unsigned id, unsigned width,
                                                      uint64_t base, rvt_diag *d) {
    uint64_t value = 0;
    unsigned got = 0;
    while (got < width) {
        if (c->bit == 6) {
            if (mseo_of(c) != 0)
                return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: message or field ends inside the fixed %s field",
                                    (unsigned long long)(base + c->byte), rvt_nexus_field_name(id));
            c->byte++;
            c->bit = 0;
            if (c->byte >= c->avail)
                return rvt_diag_set(d, RVT_E_TRUNC, "byte %llu: stream ends inside a message",
                                    (unsigned long long)(base + c->byte));
        }
        unsigned take = width - got < 6 - c->bit ? width - got : 6 - c->bit;
        value |= (uint64_t)((mdo_of(c) >> c->bit) & ((1u << take) - 1)) << got;
        got += take;
        c->bit += take;
    }
    if (c->bit == 6 && mseo_of(c) != 0)
        return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: end mark right after the fixed %s field",
                            (unsigned long long)(base + c->byte), rvt_nexus_field_name(id));
    return put_field(m, id, width, c->byte, value, d);
}

/* Most fixed fields lie in one byte (TCODE, SYNC, BTYPE, ...): taken here,
 * inline, where none of the checks of the whole way could fail. */
static inline __attribute__((always_inline)) int read_fixed(bit_cursor *c, rvt_nexus_msg *m, unsigned id,
                                                           unsigned width, uint64_t base, rvt_diag *d) {
    size_t byte = c->byte;
    unsigned bit = c->bit;
    if (bit == 6 && (c->msg[byte] & 3u) == 0 && byte + 1 < c->avail) {
        byte++;
        bit = 0;
    }
    unsigned bits = c->msg[byte]; /* (MDO and MSEO) */
    if (width && bit + width <= 6 && (bit + width < 6 || (bits & 3u) == 0) && m->nfields < RVT_NEXUS_MAX_FIELDS) {
        c->byte = byte;
        c->bit = bit + width;
        uint64_t value = (bits >> 2 >> bit) & ((1u << width) - 1);
        rvt_nexus_add_field(m, (rvt_nexus_field_id)id, width, (unsigned)byte, value);
        return 0;
    }
    return read_fixed_slowly(c, m, id, width, base, d);
}

enum { FAST_VAR_BYTES = 10 };

/* A variable field of `width` bits ends at byte `at` of the message (whose
 * MSEO is not 0): its MSEO, after the field is added to `m`. */
static inline __attribute__((always_inline)) int end_var(bit_cursor *c, rvt_nexus_msg *m, unsigned id, size_t at,
                                                        unsigned width, uint64_t value, uint64_t base, rvt_diag *d) {
    unsigned mseo = c->msg[at] & 3u;
    c->byte = at;
    c->bit = 6;
    if (mseo == 2)
        return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: MSEO value 2 is not defined", (unsigned long long)(base + at));
    int rc = put_field(m, id, width, at, value, d);
    return rc ? rc : (int)mseo;
}

/* read_var's way for a field that may run past the buffer or 64 bits:
 * every byte checked, from byte `at` with `used` bits of it taken. */
static __attribute__((noinline)) int read_var_slowly(bit_cursor *c, rvt_nexus_msg *m, unsigned id, size_t at,
                                                     unsigned used, uint64_t base, rvt_diag *d) {
    uint64_t value = 0;
    unsigned width = 0;
    for (;; at++, used = 0) {
        if (at >= c->avail) {
            c->byte = at;
            return rvt_diag_set(d, RVT_E_TRUNC, "byte %llu: stream ends inside the %s field", (unsigned long long)(base + at),
                                rvt_nexus_field_name(id));
        }
        unsigned byte = c->msg[at], bits = (byte >> 2) >> used, take = 6 - used;
        /* 64 bits of value, plus the high zero bits of the bytes that carry them */
        if (width + take > 64 && (width + take > 64 + 6 || (bits >> (64 - width)) != 0)) {
            c->byte = at;
            return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: %s field is wider than 64 bits",
                                (unsigned long long)(base + at), rvt_nexus_field_name(id));
        }
        if (width < 64)
            value |= (uint64_t)bits << width;
        width += take;
        unsigned mseo = byte & 3u;
        if (mseo == 0)
            continue;
        return end_var(c, m, id, at, width, value, base, d);
    }
}

/* Variable-length field: the rest of the current byte (or the next byte when
 * this one is full) up to and including the first byte with MSEO != 0.
 * Returns that byte's MSEO. */
static inline __attribute__((always_inline)) int read_var(bit_cursor *c, rvt_nexus_msg *m, unsigned id, uint64_t base,
                                                         rvt_diag *d) {
    size_t at = c->byte;
    unsigned used = c->bit; /* bits of the first byte that went to the field before */
    if (used == 6) {
        at++;
        used = 0;
    }
    /* Most fields end within a few bytes: where ten are in the buffer the
     * value has no more than 60 bits by then, and no byte needs the checks
     * of the slow way (about a tenth of reading a message's fields). */
    if (c->avail - at >= FAST_VAR_BYTES) {
        const uint8_t *bytes = c->msg + at;
        uint64_t value = 0;
        unsigned width = 0;
        for (unsigned k = 0, skip = used; k < FAST_VAR_BYTES; k++, skip = 0) {
            value |= (uint64_t)((bytes[k] >> 2) >> skip) << width;
            width += 6 - skip;
            if (bytes[k] & 3u)
                return end_var(c, m, id, at + k, width, value, base, d);
        }
    }
    return read_var_slowly(c, m, id, at, used, base, d);
}

/* Offset just past the next byte with MSEO = 3 at or after `from`. */
static size_t after_message_end(const rvt_nexus_reader *r, size_t from) {
    while (from < r->size && (r->data[from] & 3u) != MSEO_MESSAGE_END)
        from++;
    return from < r->size ? from + 1 : r->size;
}

/* A reserved or vendor-defined TCODE: its fields are unknown, but MSEO
 * still marks where it ends, so it is passed over whole (decoders that
 * follow the flow ignore it) and handed out with its TCODE alone. A
 * reserved MSEO 2 on the way is damage as anywhere else. */
static int skip_unknown(const rvt_nexus_reader *r, rvt_nexus_msg *m, rvt_diag *d) {
    for (size_t i = r->pos + 1; i < r->size; i++) {
        unsigned mseo = r->data[i] & 3u;
        if (mseo == 2)
            return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: reserved MSEO 2 in a message with TCODE %u",
                                (unsigned long long)(r->base + i), m->tcode);
        if (mseo == MSEO_MESSAGE_END) {
            m->length = i - r->pos + 1;
            return 1;
        }
    }
    return rvt_diag_set(d, RVT_E_TRUNC, "byte %llu: the message with TCODE %u is cut off by the end of the data",
                        (unsigned long long)(r->base + r->size), m->tcode);
}

static int parse_message(rvt_nexus_reader *r, rvt_nexus_msg *m, rvt_diag *d) {
    size_t start = r->pos;
    uint64_t at = r->base + start;
    bit_cursor c = {r->data + start, r->size - start, 0, 0};
    memset(m, 0, offsetof(rvt_nexus_msg, fields)); /* (present: no field yet) */
    m->offset = at;
    if (mseo_of(&c) != 0)
        return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: a message must start with MSEO 0, found %u", (unsigned long long)at,
                            mseo_of(&c));
    int rc = read_fixed(&c, m, RVT_NXF_TCODE, 6, at, d);
    if (rc)
        return rc;
    m->tcode = (unsigned)m->fields[0].value;
    const message_layout *l = layout_of(r->cfg.dialect, m->tcode);
    if (!l)
        return skip_unknown(r, m, d);
    if (r->cfg.src_bits && (rc = read_fixed(&c, m, RVT_NXF_SRC, r->cfg.src_bits, at, d)))
        return rc;
    int last_mseo = 0;
    for (unsigned i = 0; i < l->nfields; i++) {
        if (last_mseo == MSEO_MESSAGE_END)
            return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: %s ends before its %s field", (unsigned long long)(at + c.byte), l->name,
                                rvt_nexus_field_name(l->fields[i].id));
        if (l->fields[i].width)
            rc = read_fixed(&c, m, l->fields[i].id, l->fields[i].width, at, d);
        else
            rc = last_mseo = read_var(&c, m, l->fields[i].id, at, d);
        if (rc < 0)
            return rc;
    }
    int extra = layout_extra(m);
    if (extra >= 0) {
        if (last_mseo == MSEO_MESSAGE_END)
            return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: %s ends before its %s field", (unsigned long long)(at + c.byte), l->name,
                                rvt_nexus_field_name((rvt_nexus_field_id)extra));
        if ((last_mseo = read_var(&c, m, (unsigned)extra, at, d)) < 0)
            return last_mseo;
    }
    if (last_mseo != MSEO_MESSAGE_END) {
        if ((last_mseo = read_var(&c, m, RVT_NXF_TSTAMP, at, d)) < 0)
            return last_mseo;
        if (last_mseo != MSEO_MESSAGE_END)
            return rvt_diag_set(d, RVT_E_FORMAT, "byte %llu: %s has a field after its time stamp", (unsigned long long)(at + c.byte),
                                l->name);
    }
    m->length = c.byte + 1;
    return 1;
}

int rvt_nexus_next(rvt_nexus_reader *r, rvt_nexus_msg *m, rvt_diag *d) {
    while (r->pos < r->size &&
           (r->data[r->pos] == IDLE_BYTE || (r->data[r->pos] == 0 && r->cfg.dialect == RVT_NEXUS_SIFIVE))) {
        r->pos++;
        r->idle++;
    }
    if (r->pos >= r->size)
        return 0;
    int rc = parse_message(r, m, d);
    if (rc == 1) {
        r->pos += m->length;
        return 1;
    }
    size_t resume = after_message_end(r, r->pos);
    r->skipped += resume - r->pos;
    r->pos = resume;
    return rc;
}

uint64_t rvt_nexus_addr_field(const rvt_nexus_field *f, bool extend_msb) {
    if (!f)
        return 0;
    uint64_t v = f->value;
    if (extend_msb && f->width > 0 && f->width < 64 && ((v >> (f->width - 1)) & 1))
        v |= ~UINT64_C(0) << f->width;
    return v;
}

bool rvt_ntrace_time(rvt_ntrace_clock *c, const rvt_nexus_msg *m, uint64_t *time) {
    const rvt_nexus_field *stamp = rvt_nexus_find(m, RVT_NXF_TSTAMP);
    if (!stamp)
        return false;
    if (rvt_nexus_has(m, RVT_NXF_SYNC)) {
        c->time = stamp->value;
        c->valid = true;
    } else if (c->valid) {
        c->time += stamp->value;
    } else {
        return false;
    }
    *time = c->time;
    return true;
}
