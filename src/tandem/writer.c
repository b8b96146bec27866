/* Tandem trace writer: records into a byte sink, and the groups the hart
 * model's steps become (one per retired instruction or trap, host and timer
 * changes between them). */
#include "rvtrace/tandem.h"

#include <stdlib.h>
#include <string.h>

#include "rvtrace/isa.h"
#include "in_place.h"

#define OUT_BUF (64 * 1024)
/* Room kept past every record: the emitters store whole 8-byte words. */
#define OUT_SLACK 8

struct rvt_tv_writer {
    rvt_tv_params p;
    rvt_tv_writer_options opt;
    rvt_tv_byte_sink sink;
    void *user;
    uint8_t buf[OUT_BUF + OUT_SLACK];
    size_t nbuf;
    int error;
    uint64_t groups, flushed; /* bytes handed to the sink before buf's */
    bool end_pending;      /* an end group held back to see whether a begin follows */
    rvt_machine *m;
    /* Register values as the trace last gave them, for the incremental forms. */
    uint64_t last[RVT_TV_REG_END];
    bool known[RVT_TV_REG_END];
};

int rvt_tv_writer_new(rvt_tv_writer **out, const rvt_tv_params *p, const rvt_tv_writer_options *opt,
                      rvt_tv_byte_sink sink, void *user, rvt_diag *diag) {
    int rc = rvt_tv_params_check(p, diag);
    if (rc)
        return rc;
    rvt_tv_writer *w = calloc(1, sizeof *w);
    if (!w)
        return RVT_E_NOMEM;
    w->p = *p;
    if (opt)
        w->opt = *opt;
    if (!w->opt.fields)
        w->opt.fields = RVT_TV_F_ALL;
    w->sink = sink;
    w->user = user;
    *out = w;
    return RVT_OK;
}

static void flush(rvt_tv_writer *w) {
    if (w->nbuf && !w->error)
        w->error = w->sink(w->user, w->buf, w->nbuf);
    w->flushed += w->nbuf;
    w->nbuf = 0;
}

/* Where the next record goes: room for the longest one (and the slack of
 * the word stores) is always there. */
static inline uint8_t *room(rvt_tv_writer *w) {
    if (w->nbuf + RVT_TV_MAX_RECORD > OUT_BUF)
        flush(w);
    return w->buf + w->nbuf;
}

static void put_raw(rvt_tv_writer *w, const rvt_tv_record *r) {
    /* Encoded in place: the buffer always has room for the longest record. */
    size_t n = rvt_tv_encode(&w->p, r, room(w), NULL);
    if (!n) {
        if (!w->error)
            w->error = RVT_E_ARG;
        return;
    }
    w->nbuf += n;
}

/* The records every step writes, encoded here as rvt_tv_encode would (the
 * tandem tests compare the bytes): a call through the record structure
 * and the encoder's checks per record cost the writer a third of its time.
 * A value wider than its field goes to rvt_tv_encode, which refuses it. */
static inline void put_field_word(uint8_t *out, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, &v, 8); /* the bytes past the field are the slack, or the next record's */
#else
    for (unsigned i = 0; i < 8; i++)
        out[i] = (uint8_t)(v >> (8 * i));
#endif
}

static inline bool fits_bytes(uint64_t v, unsigned bytes) { return bytes >= 8 || v >> (8 * bytes) == 0; }

static inline void put_opcode(rvt_tv_writer *w, unsigned opcode) {
    room(w)[0] = (uint8_t)opcode;
    w->nbuf++;
}

static inline void put_full_register(rvt_tv_writer *w, unsigned reg, uint64_t value, unsigned bytes) {
    uint8_t *o = room(w);
    o[0] = RVT_TV_REG;
    o[1] = (uint8_t)reg;
    o[2] = (uint8_t)(reg >> 8);
    put_field_word(o + 3, value);
    w->nbuf += 3 + bytes;
}

static void put_state(rvt_tv_writer *w, unsigned id, uint64_t value) {
    unsigned bytes = state_bytes(&w->p, id);
    if (!bytes || !fits_bytes(value, bytes)) {
        put_raw(w, &(rvt_tv_record){.opcode = RVT_TV_STATE, .id = (uint8_t)id, .value = value});
        return;
    }
    uint8_t *o = room(w);
    o[0] = RVT_TV_STATE;
    o[1] = (uint8_t)id;
    put_field_word(o + 2, value);
    w->nbuf += 2 + bytes;
}

/* A memory request and its response. */
static void put_request(rvt_tv_writer *w, const rvt_tv_record *req, const rvt_tv_record *rsp) {
    unsigned abytes = mlen_bytes(&w->p), dbytes = 1u << req->size;
    bool req_data = tv_request_has_data(req->memop);
    if (!fits_bytes(req->addr, abytes) || (req_data && !fits_bytes(req->value, dbytes)) ||
        (rsp->has_data && !fits_bytes(rsp->value, dbytes))) {
        put_raw(w, req);
        put_raw(w, rsp);
        return;
    }
    uint8_t *o = room(w);
    size_t n = 0;
    o[n++] = RVT_TV_MEM_REQ;
    put_field_word(o + n, req->addr);
    n += abytes;
    o[n++] = (uint8_t)(req->memop | req->size << 4);
    if (req_data) {
        put_field_word(o + n, req->value);
        n += dbytes;
    }
    w->nbuf += n;
    o = room(w);
    n = 0;
    o[n++] = RVT_TV_MEM_RSP;
    o[n++] = (uint8_t)(rsp->size | rsp->result << 4);
    if (rsp->has_data) {
        put_field_word(o + n, rsp->value);
        n += dbytes;
    }
    w->nbuf += n;
}

int rvt_tv_writer_put(rvt_tv_writer *w, const rvt_tv_record *r) {
    if (w->end_pending) {
        w->end_pending = false;
        if (r->opcode != RVT_TV_BEGIN || !w->opt.omit_end)
            put_raw(w, &(rvt_tv_record){.opcode = RVT_TV_END});
    }
    if (r->opcode == RVT_TV_END) {
        w->end_pending = true;
        return w->error;
    }
    if (r->opcode == RVT_TV_BEGIN)
        w->groups++;
    put_raw(w, r);
    return w->error;
}

int rvt_tv_writer_finish(rvt_tv_writer *w) {
    if (w->end_pending) {
        w->end_pending = false;
        put_raw(w, &(rvt_tv_record){.opcode = RVT_TV_END});
    }
    flush(w);
    return w->error;
}

void rvt_tv_writer_free(rvt_tv_writer *w) {
    if (w && w->m)
        rvt_machine_observe(w->m, NULL, NULL, NULL);
    free(w);
}

uint64_t rvt_tv_writer_groups(const rvt_tv_writer *w) { return w->groups; }
uint64_t rvt_tv_writer_bytes(const rvt_tv_writer *w) { return w->flushed + w->nbuf; }

static bool want(const rvt_tv_writer *w, unsigned field) { return (w->opt.fields & field) != 0; }

static unsigned log2_bytes(unsigned len) { return len == 1 ? 0 : len == 2 ? 1 : len == 4 ? 2 : 3; }

/* A register change, in an incremental form when asked and one fits. */
static inline __attribute__((always_inline)) void put_register(rvt_tv_writer *w, unsigned reg, uint64_t value) {
    bool fpr = reg >= RVT_TV_REG_FPR && reg < RVT_TV_REG_END;
    if (!want(w, reg >= RVT_TV_REG_GPR ? (fpr ? RVT_TV_F_FPR : RVT_TV_F_GPR) : RVT_TV_F_CSR))
        return;
    unsigned width = fpr ? w->p.flen : w->p.xlen;
    if (!width)
        return;
    if (width < 64)
        value &= (1ull << width) - 1;
    rvt_tv_record r = {.opcode = RVT_TV_REG, .reg = (uint16_t)reg, .value = value};
    if (w->opt.incremental && w->known[reg]) {
        uint64_t old = w->last[reg], mask = width < 64 ? (1ull << width) - 1 : ~0ull;
        int64_t diff = (int64_t)(value - old);
        uint64_t added = (value - old) & mask;
        if ((value & ~old) < 256 && (old | value) == value && value != old) {
            r.opcode = RVT_TV_REG_OR;
            r.value = value & ~old;
        } else if (added == ((uint64_t)(int64_t)(int8_t)diff & mask) && value != old) {
            r.opcode = RVT_TV_REG_ADD;
            r.value = (uint64_t)(int8_t)diff;
        }
    }
    w->last[reg] = value;
    w->known[reg] = true;
    if (r.opcode == RVT_TV_REG && reg < RVT_TV_REG_END)
        put_full_register(w, reg, value, width / 8);
    else
        put_raw(w, &r);
}

static unsigned amo_memop(const rvt_insn *in) {
    switch (in->op) {
    case RVT_OP_AMOSWAP_W: case RVT_OP_AMOSWAP_D: return RVT_TV_AMOSWAP;
    case RVT_OP_AMOADD_W: case RVT_OP_AMOADD_D: return RVT_TV_AMOADD;
    case RVT_OP_AMOXOR_W: case RVT_OP_AMOXOR_D: return RVT_TV_AMOXOR;
    case RVT_OP_AMOAND_W: case RVT_OP_AMOAND_D: return RVT_TV_AMOAND;
    case RVT_OP_AMOOR_W: case RVT_OP_AMOOR_D: return RVT_TV_AMOOR;
    case RVT_OP_AMOMIN_W: case RVT_OP_AMOMIN_D: return RVT_TV_AMOMIN;
    case RVT_OP_AMOMAX_W: case RVT_OP_AMOMAX_D: return RVT_TV_AMOMAX;
    case RVT_OP_AMOMINU_W: case RVT_OP_AMOMINU_D: return RVT_TV_AMOMINU;
    default: return RVT_TV_AMOMAXU;
    }
}

static void put_accesses(rvt_tv_writer *w, const rvt_step *s) {
    if (!s->naccesses)
        return;
    rvt_insn in = {.op = RVT_OP_ILLEGAL};
    if (s->len == 4 && (s->insn & 0x7f) == 0x2f) /* LR, SC and AMOs: the rest need no decoding */
        rvt_decode(s->insn, w->p.xlen, &in);
    bool lr = in.op == RVT_OP_LR_W || in.op == RVT_OP_LR_D, sc = in.op == RVT_OP_SC_W || in.op == RVT_OP_SC_D;
    for (size_t i = 0; i < s->naccesses; i++) {
        const rvt_mem_access *a = &s->accesses[i];
        uint8_t size = (uint8_t)log2_bytes(a->len);
        if (want(w, RVT_TV_F_MEM)) {
            rvt_tv_record req = {.opcode = RVT_TV_MEM_REQ, .addr = a->paddr, .size = size};
            rvt_tv_record rsp = {.opcode = RVT_TV_MEM_RSP, .size = size};
            if (a->kind == RVT_ACCESS_LOAD) {
                req.memop = lr ? RVT_TV_LR : RVT_TV_LOAD;
                rsp.has_data = true;
                rsp.value = a->data;
            } else if (a->kind == RVT_ACCESS_STORE) {
                req.memop = sc ? RVT_TV_SC : RVT_TV_STORE;
                req.value = a->data;
            } else {
                req.memop = (uint8_t)amo_memop(&in);
                req.value = a->operand;
                rsp.has_data = true;
                rsp.value = a->data;
            }
            put_request(w, &req, &rsp);
        }
        if (want(w, RVT_TV_F_ADDR) && i == 0) {
            put_state(w, RVT_TV_PADDR, a->paddr);
            if (a->vaddr != a->paddr)
                put_state(w, RVT_TV_EADDR, a->vaddr);
            if (a->kind != RVT_ACCESS_LOAD)
                put_state(w, RVT_TV_STDATA8 + size, a->kind == RVT_ACCESS_AMO ? a->stored : a->data);
        }
    }
}

static bool is_trap_csr(unsigned reg, bool smode) {
    unsigned base = smode ? 0x100 : 0x300;
    return reg == base || reg == base + 0x41 || reg == base + 0x42 || reg == base + 0x43;
}

static inline __attribute__((always_inline)) void put_changes(rvt_tv_writer *w, const rvt_step *s, bool trap) {
    bool smode = false;
    uint64_t priv = s->priv;
    for (size_t i = 0; i < s->nchanges; i++)
        if (s->changes[i].elem == RVT_ELEM_PRIV)
            priv = s->changes[i].value;
    smode = trap && priv == 1;
    for (size_t i = 0; i < s->nchanges; i++) {
        const rvt_elem_value *c = &s->changes[i];
        if (c->elem < RVT_TV_REG_END) {
            /* The trap CSRs follow below, all four, in the handler's mode. */
            if (trap && (is_trap_csr(c->elem, smode) || (smode && c->elem == 0x300)))
                continue;
            put_register(w, c->elem, c->value);
        } else if (c->elem == RVT_ELEM_MTIME && want(w, RVT_TV_F_MTIME)) {
            put_state(w, RVT_TV_MTIME, c->value);
        }
    }
    if (trap) {
        /* BS-047: a trap reports xepc, xcause, xstatus and xtval (written on
         * every trap, changed or not) and the new privilege. */
        unsigned base = smode ? 0x100 : 0x300;
        static const unsigned order[] = {0x41, 0x42, 0x00, 0x43};
        for (unsigned k = 0; k < 4; k++) {
            uint64_t v = 0;
            if (rvt_machine_get(w->m, base + order[k], &v))
                put_register(w, base + order[k], v);
        }
        if (want(w, RVT_TV_F_PRIV))
            put_state(w, RVT_TV_PRIV, priv);
    } else if (priv != s->priv && want(w, RVT_TV_F_PRIV)) {
        put_state(w, RVT_TV_PRIV, priv);
    }
}

static void observe(void *user, const rvt_step *s) {
    rvt_tv_writer *w = user;
    if (s->kind == RVT_STEP_HOST) {
        bool any_init = false;
        for (size_t i = 0; i < s->naccesses && want(w, RVT_TV_F_INIT); i++) {
            const rvt_mem_access *a = &s->accesses[i];
            if (a->kind != RVT_ACCESS_HOST)
                continue;
            if (!any_init) {
                rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_BEGIN});
                rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_INIT});
                any_init = true;
            }
            rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_MEM_REQ, .memop = RVT_TV_STORE,
                                                   .size = (uint8_t)log2_bytes(a->len), .addr = a->paddr,
                                                   .value = a->data});
        }
        if (any_init)
            rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_END});
        /* Timer and interrupt-pending changes happen between groups. */
        if (w->end_pending) {
            w->end_pending = false;
            put_raw(w, &(rvt_tv_record){.opcode = RVT_TV_END});
        }
        put_changes(w, s, false);
        return;
    }
    bool trap = s->kind == RVT_STEP_TRAP;
    /* rvt_tv_writer_put's begin record (the end before it held back) */
    if (w->end_pending) {
        w->end_pending = false;
        if (!w->opt.omit_end)
            put_opcode(w, RVT_TV_END);
    }
    w->groups++;
    put_opcode(w, RVT_TV_BEGIN);
    if (want(w, RVT_TV_F_PC)) {
        uint64_t npc = 0;
        for (size_t i = 0; i < s->nchanges; i++)
            if (s->changes[i].elem == RVT_ELEM_PC)
                npc = s->changes[i].value;
        if (!trap && npc == ((s->pc + s->len) & (w->p.xlen == 32 ? 0xffffffffull : ~0ull)) && want(w, RVT_TV_F_INSN))
            put_opcode(w, RVT_TV_INCR_PC);
        else
            put_state(w, RVT_TV_PC, npc);
    }
    if (s->len && want(w, RVT_TV_F_INSN)) {
        uint8_t *o = room(w);
        o[0] = s->len == 2 ? RVT_TV_INSN16 : RVT_TV_INSN32;
        put_field_word(o + 1, s->insn);
        w->nbuf += s->len == 2 ? 3 : 5;
    }
    put_changes(w, s, trap);
    if (!trap)
        put_accesses(w, s);
    w->end_pending = true; /* rvt_tv_writer_put's end record */
}

int rvt_tv_writer_attach(rvt_tv_writer *w, rvt_machine *m, rvt_image *img) {
    rvt_diag diag;
    int rc = rvt_machine_observe(m, observe, w, &diag);
    if (rc)
        return rc;
    w->m = m;
    const uint32_t *elems;
    size_t n = rvt_machine_elements(m, &elems);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        if (elems[i] < RVT_TV_REG_END && rvt_machine_get(m, elems[i], &v)) {
            w->last[elems[i]] = v;
            w->known[elems[i]] = true;
        }
    }
    if (!want(w, RVT_TV_F_INIT))
        return w->error;
    rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_BEGIN});
    rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_RESET});
    rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_END});
    /* The loaded image, as the debug module would write it: its non-zero
     * 8-byte words (memory starts zeroed), one group per 2 KiB. */
    rvt_segment_info segs[64];
    size_t nseg = rvt_image_segments(img, segs, 64);
    for (size_t si = 0; si < nseg && si < 64; si++) {
        uint64_t start = segs[si].vaddr & ~7ull, end = segs[si].vaddr + segs[si].memsz;
        for (uint64_t page = start; page < end; page += 2048) {
            bool open = false;
            for (uint64_t addr = page; addr < end && addr < page + 2048; addr += 8) {
                uint64_t v = 0;
                rvt_image_read(img, addr, &v, 8);
                if (!v)
                    continue;
                if (!open) {
                    rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_BEGIN});
                    rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_INIT});
                    open = true;
                }
                rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_MEM_REQ, .memop = RVT_TV_STORE, .size = 3,
                                                       .addr = addr, .value = v});
            }
            if (open)
                rvt_tv_writer_put(w, &(rvt_tv_record){.opcode = RVT_TV_END});
        }
    }
    return w->error;
}
