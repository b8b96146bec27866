/* spike's commit log as a tandem trace. A commit line lists what the
 * instruction wrote ("x5 0x...", "f7 0x...", "c773_mtvec 0x...", "mem ADDR"
 * for a load, "mem ADDR DATA" for a store); the next line's pc is the new
 * pc; exception lines give the trap's cause, epc and (on a line of its own)
 * tval, and the handler's first commit the new pc and privilege. */
#include "rvtrace/tandem.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/ingress.h"
#include "rvtrace/isa.h"

#define MAX_WRITES 16
#define PAGE_BITS 12

/* Memory as the log shows it: bytes the program stored or loaded. */
typedef struct mem_page {
    uint64_t base;
    uint8_t data[1u << PAGE_BITS];
    uint8_t known[(1u << PAGE_BITS) / 8];
    struct mem_page *next;
} mem_page;
#define MEM_BUCKETS 1024

typedef struct pending {
    bool valid, trap, interrupt;
    uint64_t pc;
    uint32_t insn;
    unsigned len;        /* 0: no instruction (interrupt, fetch fault) */
    unsigned priv;
    uint64_t cause, tval;
    uint16_t reg[MAX_WRITES];
    uint64_t val[MAX_WRITES];
    unsigned nregs;
    uint64_t mem_addr[4], mem_data[4];
    unsigned mem_bytes[4]; /* 0: a load */
    unsigned nmem;
} pending;

typedef struct converter {
    rvt_tv_params p;
    rvt_tv_writer *w;
    pending cur;
    uint64_t x[32];      /* integer registers as logged, for AMO operands */
    uint64_t fetched_pc; /* the last execution line (-l): the instruction a trap names */
    uint32_t fetched_insn;
    bool fetched;
    uint64_t groups;
    const char *path;
    uint64_t line;
    mem_page *pages[MEM_BUCKETS];
    /* What decides whether a load or store is translated, as far as the log
     * shows it: satp and mstatus as written, MPP and MPRV as traps and
     * returns change them (spike does not log that). */
    uint64_t satp;
    unsigned mpp, spp;
    bool mprv;
} converter;

static mem_page *page_of(converter *c, uint64_t addr, bool create) {
    uint64_t base = addr >> PAGE_BITS << PAGE_BITS;
    mem_page **slot = &c->pages[(base >> PAGE_BITS) % MEM_BUCKETS];
    for (mem_page *p = *slot; p; p = p->next)
        if (p->base == base)
            return p;
    if (!create)
        return NULL;
    mem_page *p = calloc(1, sizeof *p);
    if (p) {
        p->base = base;
        p->next = *slot;
        *slot = p;
    }
    return p;
}

static void mem_note(converter *c, uint64_t addr, uint64_t value, unsigned bytes) {
    for (unsigned i = 0; i < bytes; i++) {
        mem_page *p = page_of(c, addr + i, true);
        if (!p)
            return;
        unsigned off = (unsigned)((addr + i) & ((1u << PAGE_BITS) - 1));
        p->data[off] = (uint8_t)(value >> (8 * i));
        p->known[off / 8] |= (uint8_t)(1u << (off % 8));
    }
}

/* Whether memory is known to hold `value` at addr. */
static bool mem_holds(converter *c, uint64_t addr, uint64_t value, unsigned bytes) {
    for (unsigned i = 0; i < bytes; i++) {
        mem_page *p = page_of(c, addr + i, false);
        unsigned off = (unsigned)((addr + i) & ((1u << PAGE_BITS) - 1));
        if (!p || !(p->known[off / 8] & (1u << (off % 8))) || p->data[off] != (uint8_t)(value >> (8 * i)))
            return false;
    }
    return true;
}

static void mem_free(converter *c) {
    for (unsigned i = 0; i < MEM_BUCKETS; i++)
        while (c->pages[i]) {
            mem_page *n = c->pages[i]->next;
            free(c->pages[i]);
            c->pages[i] = n;
        }
}

static bool hex_token(const char **s, uint64_t *v, unsigned *digits) {
    const char *p = *s;
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !isxdigit((unsigned char)p[2]))
        return false;
    p += 2;
    const char *start = p;
    while (isxdigit((unsigned char)*p))
        p++;
    if (digits)
        *digits = (unsigned)(p - start);
    *v = strtoull(start, NULL, 16);
    *s = p;
    return true;
}

static void skip_spaces(const char **s) {
    while (**s == ' ' || **s == '\t')
        (*s)++;
}

static uint64_t xmask(const converter *c) { return c->p.xlen == 32 ? 0xffffffffull : ~0ull; }

static unsigned load_bytes(const rvt_insn *in) {
    switch (in->op) {
    case RVT_OP_LB: case RVT_OP_LBU: return 1;
    case RVT_OP_LH: case RVT_OP_LHU: return 2;
    case RVT_OP_LW: case RVT_OP_LWU: case RVT_OP_FLW: case RVT_OP_LR_W: return 4;
    default: return 8; /* ld, fld, lr.d */
    }
}

static bool is_amo(const rvt_insn *in) {
    return (in->op >= RVT_OP_AMOSWAP_W && in->op <= RVT_OP_AMOMAXU_W) ||
           (in->op >= RVT_OP_AMOSWAP_D && in->op <= RVT_OP_AMOMAXU_D);
}

static unsigned amo_op(const rvt_insn *in) {
    unsigned base = in->op >= RVT_OP_AMOSWAP_D ? RVT_OP_AMOSWAP_D : RVT_OP_AMOSWAP_W;
    return RVT_TV_AMOSWAP + (in->op - base);
}

static unsigned log2u(unsigned bytes) { return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3; }

static void put(converter *c, rvt_tv_record r) { rvt_tv_writer_put(c->w, &r); }

/* Whether the group's loads and stores go through the page tables: spike
 * logs their effective addresses, which are then not physical ones. */
static bool translated(const converter *c, const pending *g) {
    unsigned priv = g->priv == 3 && c->mprv ? c->mpp : g->priv;
    uint64_t mode = c->p.xlen == 32 ? c->satp >> 31 : c->satp >> 60;
    return priv != 3 && mode != 0;
}

/* The group's effect on what `translated` reads: its CSR writes, then its
 * trap or return. */
static void follow_translation(converter *c, const pending *g, const rvt_insn *in, unsigned next_priv) {
    bool mstatus_logged = false; /* (spike logs it for returns, not for traps) */
    for (unsigned i = 0; i < g->nregs; i++) {
        if (g->reg[i] == 0x180) {
            c->satp = g->val[i];
        } else if (g->reg[i] == 0x300) {
            c->mpp = (unsigned)(g->val[i] >> 11) & 3;
            c->mprv = (g->val[i] >> 17) & 1;
            c->spp = (unsigned)(g->val[i] >> 8) & 1;
            mstatus_logged = true;
        } else if (g->reg[i] == 0x100) {
            c->spp = (unsigned)(g->val[i] >> 8) & 1;
            mstatus_logged = true;
        }
    }
    if (g->trap) {
        if (next_priv == 3)
            c->mpp = g->priv;
        else if (next_priv == 1)
            c->spp = g->priv;
    } else if (mstatus_logged) {
        return;
    } else if (in->op == RVT_OP_MRET) {
        if (c->mpp != 3)
            c->mprv = false;
        c->mpp = 0; /* the least privileged mode: the hart has U */
    } else if (in->op == RVT_OP_SRET) {
        c->mprv = false;
        c->spp = 0;
    }
}

/* The privilege after the pending group, when the log does not say: an
 * xRET whose first instruction at the return address trapped on fetch has
 * no commit line of its own after it. */
static unsigned priv_after(const converter *c, const pending *g) {
    if (!g->valid || g->trap || !g->len)
        return g->priv;
    rvt_insn in;
    rvt_decode(g->insn, c->p.xlen, &in);
    return in.op == RVT_OP_MRET ? c->mpp : in.op == RVT_OP_SRET ? c->spp : g->priv;
}

/* spike does not log what its host (HTIF) writes to memory, nor load data,
 * but a load's destination register shows what memory held. Where that is
 * not what the log's own stores and loads left there, something outside the
 * hart wrote it: a state-initialisation group says so before the load, as
 * the protocol has it for changes made outside the processor. */
static void note_loaded_memory(converter *c, const pending *g, const rvt_insn *in) {
    if (g->nmem != 1 || g->mem_bytes[0] || g->nregs != 1)
        return;
    unsigned bytes = is_amo(in) ? (in->op >= RVT_OP_AMOSWAP_D ? 8 : 4) : load_bytes(in);
    uint64_t addr = g->mem_addr[0], value = g->val[0];
    if (bytes < 8)
        value &= (1ull << (8 * bytes)) - 1;
    if (mem_holds(c, addr, value, bytes))
        return;
    put(c, (rvt_tv_record){.opcode = RVT_TV_BEGIN});
    put(c, (rvt_tv_record){.opcode = RVT_TV_INIT});
    put(c, (rvt_tv_record){.opcode = RVT_TV_MEM_REQ, .memop = RVT_TV_STORE, .size = (uint8_t)log2u(bytes),
                           .addr = addr, .value = value});
    put(c, (rvt_tv_record){.opcode = RVT_TV_END});
    mem_note(c, addr, value, bytes);
}

/* Writes the pending group; `next_pc`/`next_priv` come from the line after
 * it (have_next false at the end of the log). */
static void emit(converter *c, bool have_next, uint64_t next_pc, unsigned next_priv) {
    pending *g = &c->cur;
    if (!g->valid)
        return;
    g->valid = false;
    rvt_insn in;
    rvt_decode(g->insn, c->p.xlen, &in);
    /* A translated access's address is effective: it is given as such, and
     * nothing is said of the physical memory behind it. */
    bool virt = !g->trap && g->nmem && translated(c, g);
    if (!g->trap && !virt)
        note_loaded_memory(c, g, &in);
    c->groups++;
    put(c, (rvt_tv_record){.opcode = RVT_TV_BEGIN});
    if (have_next) {
        if (!g->trap && g->len && next_pc == ((g->pc + g->len) & xmask(c)))
            put(c, (rvt_tv_record){.opcode = RVT_TV_INCR_PC});
        else
            put(c, (rvt_tv_record){.opcode = RVT_TV_STATE, .id = RVT_TV_PC, .value = next_pc});
    }
    if (g->len)
        put(c, (rvt_tv_record){.opcode = g->len == 2 ? RVT_TV_INSN16 : RVT_TV_INSN32, .insn = g->insn});
    if (g->trap) {
        /* At the end of the log the handler is unknown; a trap from M mode
         * stays in M mode. */
        if (!have_next && g->priv == 3) {
            have_next = true;
            next_priv = 3;
        }
        if (have_next) {
            unsigned base = next_priv == 1 ? 0x100 : 0x300;
            put(c, (rvt_tv_record){.opcode = RVT_TV_REG, .reg = (uint16_t)(base + 0x41), .value = g->pc});
            put(c, (rvt_tv_record){.opcode = RVT_TV_REG, .reg = (uint16_t)(base + 0x42), .value = g->cause});
            put(c, (rvt_tv_record){.opcode = RVT_TV_REG, .reg = (uint16_t)(base + 0x43), .value = g->tval});
            put(c, (rvt_tv_record){.opcode = RVT_TV_STATE, .id = RVT_TV_PRIV, .value = next_priv});
        }
    } else {
        for (unsigned i = 0; i < g->nregs; i++) {
            uint64_t v = g->val[i];
            if (g->reg[i] < RVT_TV_REG_FPR)
                v &= xmask(c);
            put(c, (rvt_tv_record){.opcode = RVT_TV_REG, .reg = g->reg[i], .value = v});
        }
        if (is_amo(&in)) {
            /* spike logs the AMO's read and write; the bus sees one request. */
            unsigned bytes = in.op >= RVT_OP_AMOSWAP_D ? 8 : 4;
            uint64_t operand = c->x[in.rs2] & (bytes == 8 ? ~0ull : 0xffffffffull);
            if (g->nmem)
                put(c, (rvt_tv_record){.opcode = RVT_TV_MEM_REQ, .memop = (uint8_t)amo_op(&in),
                                       .size = (uint8_t)log2u(bytes), .addr = g->mem_addr[0], .value = operand});
            for (unsigned i = 0; i < g->nmem && !virt; i++)
                if (g->mem_bytes[i])
                    mem_note(c, g->mem_addr[i], g->mem_data[i], g->mem_bytes[i]);
        } else {
            bool lr = in.op == RVT_OP_LR_W || in.op == RVT_OP_LR_D, sc = in.op == RVT_OP_SC_W || in.op == RVT_OP_SC_D;
            for (unsigned i = 0; i < g->nmem; i++) {
                bool store = g->mem_bytes[i] != 0;
                unsigned bytes = store ? g->mem_bytes[i] : load_bytes(&in);
                put(c, (rvt_tv_record){.opcode = RVT_TV_MEM_REQ,
                                       .memop = store ? (sc ? RVT_TV_SC : RVT_TV_STORE) : (lr ? RVT_TV_LR : RVT_TV_LOAD),
                                       .size = (uint8_t)log2u(bytes), .addr = g->mem_addr[i],
                                       .value = store ? g->mem_data[i] : 0});
                if (store && !virt)
                    mem_note(c, g->mem_addr[i], g->mem_data[i], bytes);
            }
        }
        if (virt)
            put(c, (rvt_tv_record){.opcode = RVT_TV_STATE, .id = RVT_TV_EADDR, .value = g->mem_addr[0]});
        if (have_next && next_priv != g->priv)
            put(c, (rvt_tv_record){.opcode = RVT_TV_STATE, .id = RVT_TV_PRIV, .value = next_priv});
        for (unsigned i = 0; i < g->nregs; i++)
            if (g->reg[i] > RVT_TV_REG_GPR && g->reg[i] < RVT_TV_REG_FPR)
                c->x[g->reg[i] - RVT_TV_REG_GPR] = g->val[i];
    }
    put(c, (rvt_tv_record){.opcode = RVT_TV_END});
    follow_translation(c, g, &in, have_next ? next_priv : g->priv);
}

static int bad(converter *c, rvt_diag *diag, const char *what) {
    return rvt_diag_set(diag, RVT_E_FORMAT, "%s: line %" PRIu64 ": %s", c->path, c->line, what);
}

/* The fields after "(0xINSN)" on a commit line. */
static int parse_writes(converter *c, const char *p, rvt_diag *diag) {
    pending *g = &c->cur;
    for (;;) {
        skip_spaces(&p);
        if (!*p || *p == '\r')
            return 0;
        uint64_t v;
        unsigned digits;
        if (!strncmp(p, "mem ", 4)) {
            p += 4;
            skip_spaces(&p);
            uint64_t addr;
            if (!hex_token(&p, &addr, NULL))
                return bad(c, diag, "expected an address after 'mem'");
            if (g->nmem == 4)
                return bad(c, diag, "more than four memory accesses on one line");
            const char *q = p;
            skip_spaces(&q);
            unsigned bytes = 0;
            uint64_t data = 0;
            if (hex_token(&q, &data, &digits)) {
                bytes = (digits + 1) / 2;
                if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8)
                    return bad(c, diag, "store data of an odd width");
                p = q;
            }
            g->mem_addr[g->nmem] = addr;
            g->mem_data[g->nmem] = data;
            g->mem_bytes[g->nmem++] = bytes;
            continue;
        }
        unsigned reg;
        if ((p[0] == 'x' || p[0] == 'f') && isdigit((unsigned char)p[1])) {
            unsigned n = (unsigned)strtoul(p + 1, NULL, 10);
            if (n > 31)
                return bad(c, diag, "register number above 31");
            reg = (p[0] == 'x' ? RVT_TV_REG_GPR : RVT_TV_REG_FPR) + n;
        } else if (p[0] == 'c' && isdigit((unsigned char)p[1])) {
            unsigned n = (unsigned)strtoul(p + 1, NULL, 10);
            if (n > 0xfff)
                return bad(c, diag, "CSR number above 4095");
            reg = n;
        } else {
            return bad(c, diag, "unrecognised field in a commit line (expected xN, fN, cN_name or mem)");
        }
        while (*p && *p != ' ')
            p++;
        skip_spaces(&p);
        if (!hex_token(&p, &v, NULL))
            return bad(c, diag, "expected a hexadecimal value after a register");
        if (g->nregs == MAX_WRITES)
            return bad(c, diag, "more than 16 register writes on one line");
        g->reg[g->nregs] = (uint16_t)reg;
        g->val[g->nregs++] = v;
    }
}

static int take_line(converter *c, const char *line, unsigned hart, rvt_diag *diag) {
    if (strncmp(line, "core", 4) != 0)
        return 0; /* program output between log lines */
    const char *p = line + 4;
    skip_spaces(&p);
    if (!isdigit((unsigned char)*p))
        return 0;
    unsigned core = (unsigned)strtoul(p, (char **)&p, 10);
    if (*p != ':')
        return 0;
    p++;
    if (core != hart)
        return 0;
    skip_spaces(&p);
    if (!strncmp(p, "exception ", 10)) {
        uint64_t cause, epc;
        bool interrupt;
        if (!rvt_spike_parse_exception(p + 10, c->p.xlen, &cause, &epc, &interrupt))
            return bad(c, diag, "unrecognised exception line");
        epc &= xmask(c);
        unsigned priv = priv_after(c, &c->cur);
        emit(c, true, epc, priv);
        memset(&c->cur, 0, sizeof c->cur);
        c->cur.valid = c->cur.trap = true;
        c->cur.interrupt = interrupt;
        c->cur.pc = epc;
        c->cur.priv = priv;
        c->cur.cause = cause;
        if (!interrupt && c->fetched && c->fetched_pc == epc) {
            c->cur.insn = c->fetched_insn;
            c->cur.len = (c->fetched_insn & 3) == 3 ? 4 : 2;
        }
        return 0;
    }
    if (!strncmp(p, "tval ", 5)) {
        p += 5;
        uint64_t tval;
        if (!c->cur.valid || !c->cur.trap || !hex_token(&p, &tval, NULL))
            return bad(c, diag, "a tval line that follows no exception");
        c->cur.tval = tval & xmask(c);
        return 0;
    }
    if (*p == '>')
        return 0; /* ">>>>  symbol" */
    unsigned priv = 0;
    bool commit = false;
    if (isdigit((unsigned char)p[0]) && p[1] == ' ') {
        priv = (unsigned)(p[0] - '0');
        commit = true;
        p += 2;
        skip_spaces(&p);
    }
    uint64_t pc, insn;
    unsigned digits;
    if (!hex_token(&p, &pc, NULL))
        return 0;
    skip_spaces(&p);
    if (*p != '(' || (p++, !hex_token(&p, &insn, &digits)) || *p != ')')
        return bad(c, diag, "expected '(0xINSN)' after the address");
    p++;
    pc &= xmask(c);
    if (!commit) {
        c->fetched = true;
        c->fetched_pc = pc;
        c->fetched_insn = (uint32_t)insn;
        return 0;
    }
    if (priv > 3 || priv == 2)
        return bad(c, diag, "privilege is not 0, 1 or 3");
    emit(c, true, pc, priv);
    memset(&c->cur, 0, sizeof c->cur);
    c->cur.valid = true;
    c->cur.pc = pc;
    c->cur.insn = (uint32_t)insn;
    c->cur.len = (insn & 3) == 3 ? 4 : 2;
    c->cur.priv = priv;
    c->fetched = false;
    return parse_writes(c, p, diag);
}

int rvt_tv_convert_spike_log(const char *log_path, const rvt_tv_params *p, unsigned hart, rvt_tv_byte_sink sink,
                             void *user, uint64_t *groups, rvt_diag *diag) {
    converter *c = calloc(1, sizeof *c);
    if (!c)
        return RVT_E_NOMEM;
    c->p = *p;
    c->path = log_path;
    c->cur.priv = 3;
    rvt_line_reader *lr = NULL;
    rvt_tv_writer_options opt = {.fields = RVT_TV_F_ALL};
    int rc = rvt_tv_writer_new(&c->w, p, &opt, sink, user, diag);
    if (!rc)
        rc = rvt_line_reader_open(&lr, log_path, diag);
    if (!rc) {
        put(c, (rvt_tv_record){.opcode = RVT_TV_BEGIN});
        put(c, (rvt_tv_record){.opcode = RVT_TV_RESET});
        put(c, (rvt_tv_record){.opcode = RVT_TV_END});
        char *line;
        while ((rc = rvt_line_next(lr, &line, diag)) == 1) {
            c->line = rvt_line_number(lr);
            if ((rc = take_line(c, line, hart, diag)) != 0)
                break;
        }
        if (rc == 0) {
            emit(c, false, 0, 0);
            rc = rvt_tv_writer_finish(c->w);
            if (rc)
                rvt_diag_set(diag, rc, "writing the tandem trace: %s", rvt_strerror(rc));
        }
    }
    if (groups)
        *groups = c->groups;
    rvt_line_reader_close(lr);
    rvt_tv_writer_free(c->w);
    mem_free(c);
    free(c);
    return rc;
}
