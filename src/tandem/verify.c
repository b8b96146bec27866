/* Tandem verifier: the spec's six steps with the hart model as reference.
 * Each group is applied to a shadow state, the non-deterministic inputs
 * (mtime, the hardware-driven interrupt-pending bits, whether an interrupt
 * is taken, counters the trace reports) are copied into the model, the model
 * steps once, and the comparison covers every element either side changed:
 * what the trace reports must equal the model's new value, and what the
 * model changed must be in the trace (BS-057). A divergence is reported and
 * the model re-synchronised from the shadow state (BS-056). */
#include "rvtrace/tandem.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/isa.h"
#include "in_place.h"
#include "parse_ahead.h"

#define MAX_GROUP_RECORDS 1024
#define MIP 0x344
/* mip bits driven by devices: MSIP, MTIP, SEIP, MEIP. */
#define MIP_INPUTS ((1ull << 3) | (1ull << 7) | (1ull << 9) | (1ull << 11))

/* A group: the element values it reports, its instruction, its memory
 * requests. scan_record fills it from the records alone (on the reading
 * thread for groups whole within a piece, see take_groups); finish_view
 * then resolves what needs the shadow state. Its arrays are slices of the
 * verifier's own (own_arrays) or of a piece's prepared area. */
struct group_view {
    /* What every group needs, packed together first (after mem: what only memory groups need) */
    struct element {
        uint64_t val;
        uint32_t elem;
        uint8_t form; /* the record that gave the value: RVT_TV_REG, or REG_ADD/REG_OR until resolved */
    } *el;
    const char *refused; /* why the group is invalid (the first problem in the stream); NULL: valid */
    uint32_t insn;
    uint32_t n, nmem;
    uint8_t insn_len, stdata_bytes;
    bool has_insn, has_reset, has_init, has_pc, incr_pc, interrupt;
    bool has_counter; /* some element is a counter (an input copied before the step) */
    bool has_input;   /* some element is mtime or mip, which the model takes from the trace */
    bool plain;       /* an instruction's group without memory, address, counter or input records:
                       * plainly_same may decide it (settle_view says) */
    bool one_access;  /* the same but for one memory request (and its response and addresses) */
    bool incremental; /* some value is still to be added to or or-ed into the shadow's */
    bool settled;     /* settle_view ran: elements unique, checks made, interrupt known */
    bool has_paddr, has_eaddr, has_stdata;
    bool has_address; /* any of the three (settle_view reads this one byte, not a wide load of three) */
    struct mem_pair {
        const rvt_tv_record *req, *rsp; /* a memory request, with its response or NULL */
    } *mem;
    uint64_t paddr, eaddr, stdata;
    /* The first request and its response, copied: the comparing thread
     * reads them with the view instead of following g->mem to records
     * another thread wrote (two cache misses on every load and store). */
    struct first_request {
        uint64_t addr, value, rsp_value;
        uint8_t memop, size;
        bool rsp_data;
    } first;
};
typedef struct group_view group_view;

/* Arrays that views take slices of: a group of n records needs n entries. */
#define VIEW_ARRAYS(cap)                                                                                              \
    struct element el[cap];                                                                                            \
    struct mem_pair mem[cap]

struct own_arrays {
    group_view view;
    VIEW_ARRAYS(MAX_GROUP_RECORDS);
};

/* What the reading thread prepares for a piece: the views of the groups it
 * took whole from the bytes (take_groups), in stream order, each to be taken
 * before the piece's record `at`; their memory records. Sized for groups of
 * 8 bytes and more on average (an instruction's group has 7 at least, most
 * have 15 to 40): where a piece of smaller ones fills it, the records of the
 * rest are collected instead. */
#define PREPARED_GROUPS (TV_PIECE_BYTES / 8)
#define PREPARED_RECORDS (TV_PIECE_BYTES / 4)
struct prepared {
    size_t n, next; /* summaries; the next one to take (the caller's) */
    size_t slots;   /* entries of the view arrays used */
    size_t nmem;    /* memrec used */
    struct summary {
        uint64_t offset; /* its begin record's */
        uint32_t at;     /* the piece's records before it */
        group_view view;
    } sum[PREPARED_GROUPS];
    rvt_tv_record memrec[PREPARED_RECORDS];
    VIEW_ARRAYS(PREPARED_RECORDS);
};

#define PLACE_VIEW(g, arrays, at)                                                                                      \
    ((g)->el = (arrays)->el + (at), (g)->mem = (arrays)->mem + (at))

struct rvt_tv_verifier {
    rvt_tv_params p;
    rvt_tv_verify_options opt;
    rvt_machine *m;
    rvt_image *img;
    tv_parse_ahead *reading; /* the reader, a piece ahead on a thread of its own */
    rvt_tv_verify_result res;
    rvt_disasm_ctx dis;
    bool absent[RVT_TV_REG_END]; /* single registers left out */
    bool skip[RVT_TV_REG_END];   /* absent_slow of each register address */
    bool skip_pc, skip_priv;
    bool whole;                  /* no element is absent: same_changes may decide */

    /* Shadow state: registers by address, pc, privilege, mtime. */
    uint64_t shadow[RVT_TV_REG_END];
    uint64_t sh_pc, sh_priv, sh_mtime;
    bool sh_mtime_known;
    bool inputs_changed; /* shadow mtime or mip changed since they were copied */

    /* The group being collected. */
    bool in_group;
    uint64_t group_offset;
    rvt_tv_record recs[MAX_GROUP_RECORDS];
    size_t nrecs;

    struct group_view *view;  /* the group being verified: own->view or a prepared one */
    struct own_arrays *own;   /* views of groups put together record by record */
    struct prepared *prepared; /* what the read-ahead thread prepared for the records being taken */

    /* The model's last step as the observer saw it. */
    const rvt_step *step; /* the machine's, or no_step */
    rvt_step no_step;     /* the model took none: only its pc */
    bool stepped;
    bool diverged;                                /* compare_step found a difference */
    uint32_t resync[MAX_GROUP_RECORDS + 256];     /* elements the model takes from the shadow */
    bool mem_used[MAX_GROUP_RECORDS];             /* compare_memory: the group's requests matched */
    size_t nresync;

    /* Running on (run_steps): the records being taken, and what the
     * observer found when it could not take up the next group. */
    bool running_on, took_up;
    const rvt_tv_record *batch;
    size_t batch_len, batch_next;
    rvt_diag *diag;
    struct complete {
        int what;                   /* enum collected; COLLECTING: none */
        const rvt_tv_record *body;  /* its records, in v->recs; NULL: a group the reading thread took */
        size_t nbody;
        const rvt_tv_record *last;  /* the record that completed it (a begin opens the next group) */
        group_view *view;           /* its view as the read-ahead thread prepared it; NULL: none */
    } pending; /* taken before the records being taken are left */
    int fatal;
};

static uint64_t xmask_of(const rvt_tv_params *p) { return p->xlen == 32 ? 0xffffffffull : ~0ull; }
static uint64_t xmask(const rvt_tv_verifier *v) { return xmask_of(&v->p); }

/* Views of one state element share a canonical address: a trace may report
 * fflags where the model lists fcsr, or sstatus for mstatus. */
static uint32_t canonical(uint32_t elem) {
    switch (elem) {
    case 0x001: case 0x002: return 0x003;
    case 0x100: return 0x300;
    case 0x104: return 0x304;
    case 0x144: return MIP;
    default: return elem;
    }
}

static bool is_counter(uint32_t elem) {
    return elem == 0xb00 || elem == 0xb02 || elem == 0xb80 || elem == 0xb82 || (elem >= 0xc00 && elem <= 0xc02) ||
           (elem >= 0xc80 && elem <= 0xc82);
}

static bool absent_slow(const rvt_tv_verifier *v, uint32_t elem) {
    unsigned a = v->opt.absent;
    if (elem >= RVT_TV_REG_GPR && elem < RVT_TV_REG_FPR)
        return (a & RVT_TV_F_GPR) || v->absent[elem];
    if (elem >= RVT_TV_REG_FPR && elem < RVT_TV_REG_END)
        return (a & RVT_TV_F_FPR) || v->absent[elem];
    if (elem < 0x1000)
        return (a & RVT_TV_F_CSR) || v->absent[canonical(elem)] || v->absent[elem];
    if (elem == RVT_ELEM_PC)
        return (a & RVT_TV_F_PC) != 0;
    if (elem == RVT_ELEM_PRIV)
        return (a & RVT_TV_F_PRIV) != 0;
    if (elem == RVT_ELEM_MTIME)
        return (a & RVT_TV_F_MTIME) != 0;
    return true;
}

/* absent_slow for every element, worked out once: asked several times a step. */
static bool absent(const rvt_tv_verifier *v, uint32_t elem) {
    if (elem < RVT_TV_REG_END)
        return v->skip[elem];
    return elem == RVT_ELEM_PC ? v->skip_pc : elem == RVT_ELEM_PRIV ? v->skip_priv : absent_slow(v, elem);
}

static inline void compare_step(rvt_tv_verifier *v, uint64_t model_pc);
static void take_up_next(rvt_tv_verifier *v);
static void start_prepared(const void *user, void *area);
static size_t take_groups(const void *user, struct in_place *at, size_t nrecs, void *area);

static void observe(void *user, const rvt_step *s) {
    rvt_tv_verifier *v = user;
    if (s->kind == RVT_STEP_HOST)
        return;
    v->step = s; /* the machine's, valid until it steps again */
    v->stepped = true;
    if (!v->running_on)
        return;
    compare_step(v, s->pc);
    if (v->diverged || v->res.stopped)
        rvt_machine_stop_run(v->m); /* resynchronised once the run has ended */
    else
        take_up_next(v);
}

static bool memop_is_read(unsigned op);

/* What a device returned to the model's load at `paddr`, as the group being
 * verified says: the response to its load (LR, AMO) of that address and
 * size. Without one, the model's device answers, and compare_memory reports
 * the load the trace lacks. */
static bool trace_device_load(void *user, uint64_t paddr, unsigned len, uint64_t *value) {
    const rvt_tv_verifier *v = user;
    const group_view *g = v->view;
    for (size_t i = 0; g && i < g->nmem; i++) {
        const rvt_tv_record *req = g->mem[i].req, *rsp = g->mem[i].rsp;
        bool reads = memop_is_read(req->memop) || (req->memop >= RVT_TV_AMOSWAP && req->memop <= RVT_TV_AMOMAXU);
        if (reads && req->addr == paddr && (1u << req->size) == len && rsp && rsp->has_data) {
            *value = rsp->value;
            return true;
        }
    }
    return false;
}

/* Shadow := model, for every element the model has. */
static void shadow_from_model(rvt_tv_verifier *v) {
    const uint32_t *elems;
    size_t n = rvt_machine_elements(v->m, &elems);
    for (size_t i = 0; i < n; i++) {
        uint64_t val;
        if (elems[i] < RVT_TV_REG_END && rvt_machine_get(v->m, elems[i], &val))
            v->shadow[elems[i]] = val;
    }
    rvt_machine_get(v->m, RVT_ELEM_PC, &v->sh_pc);
    rvt_machine_get(v->m, RVT_ELEM_PRIV, &v->sh_priv);
    rvt_machine_get(v->m, RVT_ELEM_MTIME, &v->sh_mtime);
}

int rvt_tv_verifier_new(rvt_tv_verifier **out, const rvt_tv_params *p, const rvt_tv_verify_options *opt,
                        rvt_machine *m, rvt_image *img, rvt_diag *diag) {
    rvt_tv_verifier *v = calloc(1, sizeof *v);
    if (!v)
        return RVT_E_NOMEM;
    v->p = *p;
    if (opt)
        v->opt = *opt;
    v->m = m;
    v->img = img;
    v->own = malloc(sizeof *v->own);
    if (v->own)
        PLACE_VIEW(&v->own->view, v->own, 0);
    v->view = v->own ? &v->own->view : NULL;
    rvt_tv_reader *rd = NULL;
    int rc = v->own ? rvt_tv_reader_new(&rd, p, diag) : RVT_E_NOMEM;
    if (!rc) { /* owns rd from here on; the taker reads only v->p and v->opt, set above */
        tv_group_taker taker = {start_prepared, take_groups, v, sizeof(struct prepared)};
        rc = tv_parse_ahead_new(&v->reading, rd, &taker);
    }
    if (!rc)
        rc = rvt_machine_observe(m, observe, v, diag);
    if (rc) {
        tv_parse_ahead_free(v->reading);
        free(v->own);
        free(v);
        return rc;
    }
    for (unsigned i = 0; i < v->opt.nabsent_regs; i++)
        if (v->opt.absent_regs[i] < RVT_TV_REG_END)
            v->absent[canonical(v->opt.absent_regs[i])] = v->absent[v->opt.absent_regs[i]] = true;
    for (uint32_t e = 0; e < RVT_TV_REG_END; e++)
        v->skip[e] = absent_slow(v, e);
    v->skip_pc = absent_slow(v, RVT_ELEM_PC);
    v->skip_priv = absent_slow(v, RVT_ELEM_PRIV);
    v->whole = !v->opt.absent && !v->opt.nabsent_regs;
    rvt_disasm_init(&v->dis, p->xlen, 0);
    /* The devices as the trace says: their loads' values, when it has them,
     * and their interrupt lines, when it reports mip (whose every change it
     * then carries: BS-057). */
    if (!(v->opt.absent & RVT_TV_F_MEM))
        rvt_machine_device_loads(m, trace_device_load, v);
    rvt_machine_hold_device_lines(m, !absent(v, MIP));
    shadow_from_model(v);
    *out = v;
    return RVT_OK;
}

void rvt_tv_verifier_free(rvt_tv_verifier *v) {
    if (!v)
        return;
    rvt_machine_observe(v->m, NULL, NULL, NULL);
    rvt_machine_device_loads(v->m, NULL, NULL);
    rvt_machine_hold_device_lines(v->m, false);
    tv_parse_ahead_free(v->reading);
    free(v->own);
    free(v);
}

const rvt_tv_verify_result *rvt_tv_verifier_result(const rvt_tv_verifier *v) { return &v->res; }

/* ------------------------------------------------------------- reports */

static void describe_elem(uint32_t elem, char *buf, size_t size) {
    if (elem < RVT_TV_REG_END)
        rvt_tv_reg_name(elem, buf, size);
    else
        snprintf(buf, size, "%s", elem == RVT_ELEM_PC ? "pc" : elem == RVT_ELEM_PRIV ? "privilege" : "mtime");
}

static bool reporting(const rvt_tv_verifier *v) { return !v->opt.max_errors || v->res.divergences <= v->opt.max_errors; }

/* Opens a divergence report for the current step; its detail lines follow. */
static void divergence(rvt_tv_verifier *v, bool *opened, uint64_t pc) {
    if (*opened)
        return;
    *opened = true;
    v->res.divergences++;
    if (v->res.divergences == 1) {
        v->res.first_group = v->res.groups - 1;
        v->res.first_offset = v->group_offset;
        v->res.first_step = v->res.steps - 1;
        v->res.first_pc = pc;
    }
    if (!v->opt.report || !reporting(v))
        return;
    char text[128] = "";
    if (v->step->len) {
        rvt_insn in;
        rvt_decode(v->step->insn, v->p.xlen, &in);
        uint8_t bytes[4] = {(uint8_t)v->step->insn, (uint8_t)(v->step->insn >> 8), (uint8_t)(v->step->insn >> 16),
                            (uint8_t)(v->step->insn >> 24)};
        rvt_disasm(&v->dis, &in, bytes, pc, text, sizeof text);
        for (char *t = text; *t; t++)
            if (*t == '\t')
                *t = ' ';
    } else {
        snprintf(text, sizeof text, "(no instruction)");
    }
    const char *sym = NULL;
    uint64_t off = 0;
    if (v->img)
        sym = rvt_image_symbolize(v->img, pc, &off);
    fprintf(v->opt.report,
            "divergence %" PRIu64 ": group %" PRIu64 " (byte %" PRIu64 "), instruction %" PRIu64 ", pc %#" PRIx64,
            v->res.divergences, v->res.groups - 1, v->group_offset, v->res.steps - 1, pc);
    if (sym)
        fprintf(v->opt.report, " <%s+%#" PRIx64 ">", sym, off);
    fprintf(v->opt.report, ": %s\n", text);
}

static void detail(rvt_tv_verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(rvt_tv_verifier *v, const char *fmt, ...) {
    if (!v->opt.report || !reporting(v))
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("    ", v->opt.report);
    vfprintf(v->opt.report, fmt, ap);
    fputc('\n', v->opt.report);
    va_end(ap);
}

/* ----------------------------------------------------------- a group */

static int group_error(rvt_tv_verifier *v, rvt_diag *diag, const char *what) {
    return v->fatal = rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 ": group %" PRIu64 ": %s", v->group_offset,
                                   v->res.groups - 1, what);
}

static uint64_t shadow_get(const rvt_tv_verifier *v, uint32_t elem) {
    if (elem < RVT_TV_REG_END)
        return v->shadow[elem];
    return elem == RVT_ELEM_PC ? v->sh_pc : elem == RVT_ELEM_PRIV ? v->sh_priv : v->sh_mtime;
}

static void shadow_set(rvt_tv_verifier *v, uint32_t elem, uint64_t val) {
    if (elem < RVT_TV_REG_END)
        v->shadow[elem] = val;
    else if (elem == RVT_ELEM_PC)
        v->sh_pc = val;
    else if (elem == RVT_ELEM_PRIV)
        v->sh_priv = val;
    else {
        v->sh_mtime = val;
        v->sh_mtime_known = true;
    }
    if (elem == RVT_ELEM_MTIME || elem == MIP)
        v->inputs_changed = true;
}

static void scan_start(group_view *g) {
    g->n = g->nmem = 0;
    g->has_insn = g->has_reset = g->has_init = g->has_pc = g->incr_pc = g->interrupt = g->has_counter = false;
    g->has_input = g->plain = g->one_access = false;
    g->incremental = g->settled = false;
    g->has_paddr = g->has_eaddr = g->has_stdata = g->has_address = false;
    g->refused = NULL;
}

/* Adds a group's next record to g (its arrays placed), without the shadow
 * state: what incremental records add is resolved by finish_view. A memory
 * record is kept by address: `kept`, a copy that stays where it is. */
static inline void scan_record(const rvt_tv_params *p, group_view *g, const rvt_tv_record *r,
                               const rvt_tv_record *kept) {
    if (g->refused)
        return;
    uint32_t elem = UINT32_MAX; /* none */
    uint64_t val = r->value;
    switch (r->opcode) {
    case RVT_TV_INCR_PC: g->incr_pc = true; break;
    case RVT_TV_RESET: g->has_reset = true; break;
    case RVT_TV_INIT: g->has_init = true; break;
    case RVT_TV_INSN16: case RVT_TV_INSN32:
        if (g->has_insn) {
            g->refused = "two instruction records in one group";
            return;
        }
        g->has_insn = true;
        g->insn = r->insn;
        g->insn_len = r->opcode == RVT_TV_INSN16 ? 2 : 4;
        break;
    case RVT_TV_REG:
        elem = r->reg;
        if (r->reg >= RVT_TV_REG_FPR) /* FLEN wide, whatever XLEN (RV32 has 64-bit FPRs) */
            val &= p->flen == 32 ? 0xffffffffull : ~0ull;
        else if (r->reg < RVT_TV_REG_GPR)
            val &= xmask_of(p);
        break;
    case RVT_TV_REG_ADD: case RVT_TV_REG_OR:
        elem = r->reg;
        g->incremental = true;
        break;
    case RVT_TV_STATE:
        switch (r->id) {
        case RVT_TV_PRIV:
            if (r->value == 2 || r->value > 3) {
                g->refused = "privilege mode 2 or above 3";
                return;
            }
            elem = RVT_ELEM_PRIV;
            break;
        case RVT_TV_PC:
            elem = RVT_ELEM_PC;
            val &= xmask_of(p);
            g->has_pc = true;
            break;
        case RVT_TV_MTIME: elem = RVT_ELEM_MTIME; break;
        case RVT_TV_PADDR: g->has_paddr = g->has_address = true, g->paddr = r->value; break;
        case RVT_TV_EADDR: g->has_eaddr = g->has_address = true, g->eaddr = r->value; break;
        case RVT_TV_PC_PADDR: break; /* our harts fetch from physical = virtual addresses or page tables the
                                      * pc comparison already covers */
        default:
            g->has_stdata = g->has_address = true;
            g->stdata = r->value;
            g->stdata_bytes = 1u << (r->id - RVT_TV_STDATA8);
            break;
        }
        break;
    case RVT_TV_MEM_REQ:
        if (!g->nmem)
            g->first = (struct first_request){.addr = r->addr, .value = r->value, .memop = r->memop,
                                              .size = r->size};
        g->mem[g->nmem++] = (struct mem_pair){kept, NULL};
        break;
    case RVT_TV_MEM_RSP:
        /* The reader takes a response only right after its request, which
         * a group's first record cannot be. */
        if (g->nmem)
            g->mem[g->nmem - 1].rsp = kept;
        if (g->nmem == 1) {
            g->first.rsp_data = r->has_data;
            g->first.rsp_value = r->value;
        }
        break;
    default:
        break;
    }
    if (elem != UINT32_MAX) {
        g->el[g->n].elem = elem;
        g->el[g->n].val = val;
        g->el[g->n++].form = r->opcode == RVT_TV_STATE ? RVT_TV_REG : r->opcode;
    }
}

/* What a view needs beyond its records once every value is whole: a second,
 * different value for one element refused (BS-037), then what scan_record
 * refused, then the checks of the whole group, so that the first offending
 * record in the stream is reported; and whether it is an interrupt. Needs
 * only the parameters and options, so the reading thread does it for the
 * groups it takes without incremental records. */
static inline __attribute__((always_inline)) void settle_view(const rvt_tv_params *p, unsigned absent_fields,
                                                             group_view *g) {
    /* The flags are read into locals first and written once at the end: a
     * wide load of several flags right after a byte store to one of them
     * cannot take the stored value from the store buffer (a stall that cost
     * more than the rest of this function). */
    const char *refused = g->refused;
    bool has_insn = g->has_insn, has_pc = g->has_pc, incr_pc = g->incr_pc;
    bool has_init = g->has_init, has_reset = g->has_reset;
    bool has_counter = g->has_counter, has_input = g->has_input;
    bool memory = g->nmem || g->has_address;
    size_t kept = 0;
    bool trap_cause_interrupt = false; /* an xcause with the interrupt bit */
    for (size_t i = 0; i < g->n; i++) {
        uint32_t e = g->el[i].elem;
        uint64_t val = g->el[i].val;
        size_t j = 0;
        while (j < kept && g->el[j].elem != e)
            j++;
        if (j < kept) {
            if (g->el[j].val != val) {
                g->refused = "two different values for one register in a group (BS-037)";
                g->settled = true;
                return;
            }
            continue;
        }
        g->el[kept].elem = e;
        g->el[kept++].val = val;
        if (e < RVT_TV_REG_GPR) { /* a CSR; most elements are registers and the pc */
            has_counter |= is_counter(e);
            has_input |= e == MIP;
            trap_cause_interrupt |= (e == 0x342 || e == 0x142) && (val >> (p->xlen - 1)) & 1;
        }
        has_input |= e == RVT_ELEM_MTIME;
    }
    g->n = (uint32_t)kept;
    if (!refused) {
        if (incr_pc && !has_insn)
            refused = "increment pc without an instruction record in the group (BS-042)";
        else if (incr_pc && has_pc)
            refused = "both increment pc and a new pc in one group";
        else if (has_init && (has_insn || has_reset))
            refused = "state initialisation together with an instruction or a reset (BS-043)";
    }
    /* A group without an instruction is a trap taken before one executed:
     * an interrupt when the model has one pending and enabled (what the
     * trace's xcause says, if it has one, is compared after the step). */
    bool interrupt = !has_insn && (!(absent_fields & RVT_TV_F_INSN) || trap_cause_interrupt);
    bool steps = has_insn && !interrupt && (has_pc || incr_pc) && !has_counter && !has_input;
    g->refused = refused;
    g->settled = true;
    g->has_counter = has_counter;
    g->has_input = has_input;
    g->interrupt = interrupt;
    g->plain = steps && !memory;
    g->one_access = steps && g->nmem == 1 && g->first.memop != RVT_TV_FETCH;
}

/* finish_view's part for views the reading thread did not settle (or
 * refused): incremental values from the shadow state, then settle_view. */
static __attribute__((noinline)) int settle_on_main(rvt_tv_verifier *v, group_view *g, rvt_diag *diag) {
    if (!g->settled) {
        for (size_t i = 0; g->incremental && i < g->n; i++) {
            if (g->el[i].form == RVT_TV_REG)
                continue;
            uint32_t e = g->el[i].elem;
            uint64_t base = v->shadow[e];
            uint64_t val = g->el[i].form == RVT_TV_REG_ADD ? base + g->el[i].val : base | g->el[i].val;
            bool fpr = e >= RVT_TV_REG_FPR;
            if (!fpr || v->p.flen != 64)
                val &= fpr ? 0xffffffffull : xmask(v);
            g->el[i].val = val;
            g->el[i].form = RVT_TV_REG;
        }
        settle_view(&v->p, v->opt.absent, g);
    }
    if (g->refused)
        return group_error(v, diag, g->refused);
    return RVT_OK;
}

/* The rest of a view for the group being verified: settle_on_main where
 * the reading thread has not settled it, and the new pc of an increment
 * record. */
static inline int finish_view(rvt_tv_verifier *v, group_view *g, rvt_diag *diag) {
    if (!g->settled || g->refused) {
        int rc = settle_on_main(v, g, diag);
        if (rc)
            return rc;
    }
    if (g->incr_pc) {
        g->el[g->n].elem = RVT_ELEM_PC; /* the increment record's own entry: it gave no element */
        g->el[g->n].val = (v->sh_pc + g->insn_len) & xmask(v);
        g->el[g->n++].form = RVT_TV_REG;
        g->has_pc = true;
        g->incr_pc = false;
    }
    return RVT_OK;
}

/* The view of a group from its records, in the verifier's own arrays. */
static int build_view(rvt_tv_verifier *v, const rvt_tv_record *recs, size_t nrecs, rvt_diag *diag) {
    v->view = &v->own->view;
    scan_start(v->view);
    for (size_t i = 0; i < nrecs; i++)
        scan_record(&v->p, v->view, &recs[i], &recs[i]);
    return finish_view(v, v->view, diag);
}

/* *to = *from a field at a time: *from was put together in registers, and a
 * whole-struct copy would reload it from the stack before its parts are
 * stored (a store-forwarding stall on every record). */
static inline const rvt_tv_record *keep_record(rvt_tv_record *to, const rvt_tv_record *from) {
    to->offset = from->offset;
    to->opcode = from->opcode;
    to->id = from->id;
    to->memop = from->memop;
    to->size = from->size;
    to->result = from->result;
    to->has_data = from->has_data;
    to->reg = from->reg;
    to->addr = from->addr;
    to->value = from->value;
    return to;
}

/* On the reading thread (see tv_group_taker), reading only the parameters. */
static void start_prepared(const void *user, void *area) {
    (void)user;
    struct prepared *pp = area;
    pp->n = pp->next = pp->slots = pp->nmem = 0;
}

/* On the reading thread: scans whole groups straight from the bytes at `at`
 * into views, as long as the next begins there, decode_in_place can read
 * its records and its end record closes it within MAX_GROUP_RECORDS; the
 * records of anything else are read as they come, and collected. */
static size_t take_groups(const void *user, struct in_place *at, size_t nrecs, void *area) {
    const rvt_tv_verifier *v = user;
    struct prepared *pp = area;
    const rvt_tv_params p = v->p;
    size_t taken = 0;
    while (at->len >= IN_PLACE_MARGIN && at->b[0] == RVT_TV_BEGIN && pp->n < PREPARED_GROUPS) {
        struct in_place in = *at;
        in.b++, in.len--, in.offset++, in.last_req_op = -1; /* the begin record */
        struct summary *sm = &pp->sum[pp->n];
        group_view *g = &sm->view;
        PLACE_VIEW(g, pp, pp->slots);
        scan_start(g);
        size_t nbody = 0, nmem = pp->nmem;
        for (;;) {
            rvt_tv_record r;
            if (in.len < IN_PLACE_MARGIN || !decode_in_place(&p, &in, &r) || r.opcode == RVT_TV_BEGIN ||
                (r.opcode != RVT_TV_END && (nbody == MAX_GROUP_RECORDS || pp->slots + nbody == PREPARED_RECORDS))) {
                pp->nmem = nmem; /* not whole here: the reader reads it */
                return taken;
            }
            if (r.opcode == RVT_TV_END)
                break;
            nbody++;
            const rvt_tv_record *kept = NULL;
            if (r.opcode == RVT_TV_MEM_REQ || r.opcode == RVT_TV_MEM_RSP)
                kept = keep_record(&pp->memrec[pp->nmem++], &r);
            scan_record(&p, g, &r, kept);
        }
        if (!g->incremental)
            settle_view(&p, v->opt.absent, g);
        sm->at = nrecs;
        sm->offset = at->offset;
        pp->slots += nbody;
        pp->n++;
        taken++;
        *at = in;
    }
    return taken;
}

/* Applies a group that is not an instruction (state initialisation, or
 * records outside any group) to shadow and model alike. */
static int apply_directly(rvt_tv_verifier *v, const group_view *g, rvt_diag *diag) {
    for (size_t i = 0; i < g->n; i++) {
        if (absent(v, g->el[i].elem))
            continue;
        shadow_set(v, g->el[i].elem, g->el[i].val);
        if (g->el[i].elem == RVT_ELEM_MTIME || is_counter(g->el[i].elem) || g->el[i].elem == MIP)
            continue; /* inputs: copied before the next step */
        rvt_machine_set(v->m, g->el[i].elem, g->el[i].val);
    }
    /* Memory the host or debugger wrote; a hart's requests outside groups
     * count as memory trace. */
    if (g->has_init ? (v->opt.absent & RVT_TV_F_INIT) != 0 : (v->opt.absent & RVT_TV_F_MEM) != 0)
        return RVT_OK;
    for (size_t i = 0; i < g->nmem; i++) {
        const rvt_tv_record *r = g->mem[i].req;
        if (!rvt_tv_request_has_data(r->memop))
            continue;
        if (!rvt_machine_write_mem(v->m, r->addr, &r->value, 1u << r->size))
            return v->fatal = rvt_diag_set(diag, RVT_E_RANGE,
                                           "byte %" PRIu64 ": memory write to %#" PRIx64 ", outside the model's memory",
                                           r->offset, r->addr);
    }
    return RVT_OK;
}

static bool group_reports(const group_view *g, uint32_t elem) {
    uint32_t c = canonical(elem);
    for (size_t i = 0; i < g->n; i++)
        if (canonical(g->el[i].elem) == c)
            return true;
    return false;
}

/* The value the step gave `elem`, when the step changed it: the model's
 * value without asking the model. */
static bool model_new_value(const rvt_tv_verifier *v, uint32_t elem, uint64_t *value) {
    for (size_t i = 0; i < v->step->nchanges; i++)
        if (v->step->changes[i].elem == elem) {
            *value = v->step->changes[i].value;
            return true;
        }
    return false;
}

static bool model_changed(const rvt_tv_verifier *v, uint32_t elem) {
    uint64_t value;
    return model_new_value(v, elem, &value);
}

/* Copies the non-deterministic inputs from the shadow state into the model. */
static void copy_inputs(rvt_tv_verifier *v, const group_view *g) {
    for (size_t i = 0; g->has_counter && i < g->n; i++)
        if (is_counter(g->el[i].elem))
            rvt_machine_set(v->m, g->el[i].elem, g->el[i].val);
    if (!v->inputs_changed)
        return;
    v->inputs_changed = false;
    if (v->sh_mtime_known && !absent(v, RVT_ELEM_MTIME)) {
        uint64_t now = 0;
        rvt_machine_get(v->m, RVT_ELEM_MTIME, &now);
        if (now != v->sh_mtime)
            rvt_machine_set(v->m, RVT_ELEM_MTIME, v->sh_mtime);
    }
    if (!absent(v, MIP)) {
        uint64_t mip = 0;
        rvt_machine_get(v->m, MIP, &mip);
        uint64_t want = (mip & ~MIP_INPUTS) | (v->shadow[MIP] & MIP_INPUTS);
        if (want != mip)
            rvt_machine_set(v->m, MIP, want);
    }
}

/* Whether a request's address is in effective terms: the group gives an
 * effective address and the request has that one (a spike log knows no
 * other). */
static bool request_effective(const group_view *g, uint64_t req_addr) {
    return g->has_eaddr && g->eaddr == req_addr;
}

/* A request is at an access's physical address, or, in effective terms, at
 * its effective address: like is compared with like. */
static bool request_at(const group_view *g, uint64_t req_addr, const rvt_mem_access *a) {
    return req_addr == a->paddr || (request_effective(g, req_addr) && a->vaddr == req_addr);
}

static bool memop_is_write(unsigned op) { return op == RVT_TV_STORE || op == RVT_TV_SC; }
static bool memop_is_read(unsigned op) { return op == RVT_TV_LOAD || op == RVT_TV_LR; }

/* Compares the memory side: every access the model made against the trace's
 * requests, and the other way round. Returns whether they agree; on
 * disagreement the model's memory is made the trace's. */
static bool compare_memory(rvt_tv_verifier *v, group_view *g, bool *opened, uint64_t pc) {
    if (!g->nmem && !v->step->naccesses)
        return true;
    bool ok = true;
    bool *used = v->mem_used; /* here, not in the view: another thread may have written that */
    memset(used, 0, g->nmem);
    for (size_t i = 0; i < v->step->naccesses; i++) {
        const rvt_mem_access *a = &v->step->accesses[i];
        uint64_t mask = a->len == 8 ? ~0ull : (1ull << (8 * a->len)) - 1;
        size_t j = 0;
        for (; j < g->nmem; j++) {
            const rvt_tv_record *r = g->mem[j].req;
            bool kind = a->kind == RVT_ACCESS_LOAD ? memop_is_read(r->memop)
                        : a->kind == RVT_ACCESS_STORE ? memop_is_write(r->memop)
                                                      : r->memop >= RVT_TV_AMOSWAP && r->memop <= RVT_TV_AMOMAXU;
            if (!used[j] && kind && request_at(g, r->addr, a))
                break;
        }
        const char *kname = a->kind == RVT_ACCESS_LOAD ? "load" : a->kind == RVT_ACCESS_STORE ? "store" : "AMO";
        if (j == g->nmem) {
            divergence(v, opened, pc);
            detail(v, "memory: the model's %u-byte %s at %#" PRIx64 " (data %#" PRIx64 ") is not in the trace", a->len,
                   kname, a->paddr, a->kind == RVT_ACCESS_AMO ? a->stored : a->data);
            if (a->kind != RVT_ACCESS_LOAD)
                rvt_machine_write_mem(v->m, a->paddr, &a->old, a->len);
            ok = false;
            continue;
        }
        used[j] = true;
        const rvt_tv_record *r = g->mem[j].req, *rsp = g->mem[j].rsp;
        if ((1u << r->size) != a->len) {
            divergence(v, opened, pc);
            detail(v, "memory: %s at %#" PRIx64 ": trace %u bytes, model %u", kname, a->paddr, 1u << r->size, a->len);
            ok = false;
        }
        if (a->kind == RVT_ACCESS_STORE && (r->value & mask) != a->data) {
            divergence(v, opened, pc);
            detail(v, "memory: store to %#" PRIx64 ": trace data %#" PRIx64 ", model %#" PRIx64, a->paddr, r->value,
                   a->data);
            ok = false;
        }
        if (a->kind == RVT_ACCESS_AMO && (r->value & mask) != a->operand) {
            divergence(v, opened, pc);
            detail(v, "memory: AMO at %#" PRIx64 ": trace operand %#" PRIx64 ", model %#" PRIx64, a->paddr, r->value,
                   a->operand);
            ok = false;
        }
        if (rsp && rsp->has_data && a->kind != RVT_ACCESS_STORE && (rsp->value & mask) != a->data) {
            divergence(v, opened, pc);
            detail(v, "memory: %s at %#" PRIx64 ": trace read %#" PRIx64 ", model memory holds %#" PRIx64, kname,
                   a->paddr, rsp->value, a->data);
            ok = false;
        }
        if (!ok && r->has_data && a->kind == RVT_ACCESS_STORE)
            rvt_machine_write_mem(v->m, a->paddr, &r->value, a->len);
    }
    for (size_t j = 0; j < g->nmem; j++) {
        const rvt_tv_record *r = g->mem[j].req;
        if (used[j] || r->memop == RVT_TV_FETCH)
            continue;
        divergence(v, opened, pc);
        detail(v, "memory: the trace's %s of %u bytes at %#" PRIx64 " was not made by the model",
               rvt_tv_memop_name(r->memop), 1u << r->size, r->addr);
        if (r->has_data && memop_is_write(r->memop) && !request_effective(g, r->addr))
            rvt_machine_write_mem(v->m, r->addr, &r->value, 1u << r->size); /* (physical addresses only) */
        ok = false;
    }
    return ok;
}

static void compare_addresses(rvt_tv_verifier *v, const group_view *g, bool *opened, uint64_t pc) {
    const rvt_mem_access *a = v->step->naccesses ? &v->step->accesses[0] : NULL;
    if (g->has_paddr && (!a || a->paddr != g->paddr)) {
        divergence(v, opened, pc);
        detail(v, "physical address: trace %#" PRIx64 ", model %s%#" PRIx64, g->paddr, a ? "" : "no access, ",
               a ? a->paddr : 0);
    }
    if (g->has_eaddr && (!a || a->vaddr != g->eaddr)) {
        divergence(v, opened, pc);
        detail(v, "effective address: trace %#" PRIx64 ", model %s%#" PRIx64, g->eaddr, a ? "" : "no access, ",
               a ? a->vaddr : 0);
    }
    if (g->has_stdata) {
        uint64_t data = !a ? 0 : a->kind == RVT_ACCESS_AMO ? a->stored : a->data;
        if (!a || a->kind == RVT_ACCESS_LOAD || g->stdata != data || g->stdata_bytes != a->len) {
            divergence(v, opened, pc);
            detail(v, "store data: trace %u bytes %#" PRIx64 ", model %s%#" PRIx64, g->stdata_bytes, g->stdata,
                   !a || a->kind == RVT_ACCESS_LOAD ? "no store, " : "", data);
        }
    }
}

/* Steps 1 and 2 for the group in v->view: the shadow state takes its values. */
static void apply_to_shadow(rvt_tv_verifier *v, const group_view *g) {
    v->res.steps++;
    for (size_t i = 0; i < g->n; i++) {
        uint32_t e = g->el[i].elem;
        if (v->whole && e < RVT_TV_REG_END && e != MIP)
            v->shadow[e] = g->el[i].val; /* nothing absent, no input: shadow_set's common case */
        else if (!absent(v, e))
            shadow_set(v, e, g->el[i].val);
    }
}

/* Whether the group reports exactly the elements the step changed, each
 * with the model's new value, in a trace with every element (the common
 * case, which the element-by-element comparison below would find clean). */
static inline bool same_changes(const rvt_tv_verifier *v, const group_view *g) {
    /* Inputs are not compared as values (and the model lists one only where
     * the group would have to, to be the same). */
    if (!v->whole || g->n != v->step->nchanges || g->has_counter || g->has_input)
        return false;
    /* Mostly both list the registers, then the pc: pairs first. */
    const rvt_elem_value *c = v->step->changes;
    size_t paired = 0;
    while (paired < g->n && g->el[paired].elem == c[paired].elem && g->el[paired].val == c[paired].value)
        paired++;
    for (size_t i = paired; i < g->n; i++) {
        uint64_t model;
        if (!model_new_value(v, g->el[i].elem, &model) || model != g->el[i].val)
            return false;
    }
    return true;
}

/* Whether compare_memory and compare_addresses would find the group's one
 * request (g->one_access) the same as the step's one access `a`. */
static inline bool access_plainly_same(const group_view *g, const rvt_mem_access *a) {
    const struct first_request *r = &g->first;
    uint64_t mask = a->len == 8 ? ~0ull : (1ull << (8 * a->len)) - 1;
    if (r->addr != a->paddr || (1u << r->size) != a->len)
        return false;
    switch (a->kind) {
    case RVT_ACCESS_LOAD:
        if (!memop_is_read(r->memop) || g->has_stdata)
            return false;
        break;
    case RVT_ACCESS_STORE:
        if (!memop_is_write(r->memop) || (r->value & mask) != a->data ||
            (g->has_stdata && (g->stdata != a->data || g->stdata_bytes != a->len)))
            return false;
        break;
    case RVT_ACCESS_AMO:
        if (r->memop < RVT_TV_AMOSWAP || r->memop > RVT_TV_AMOMAXU || (r->value & mask) != a->operand ||
            (g->has_stdata && (g->stdata != a->stored || g->stdata_bytes != a->len)))
            return false;
        break;
    default: return false;
    }
    if (r->rsp_data && a->kind != RVT_ACCESS_STORE && (r->rsp_value & mask) != a->data)
        return false;
    return (!g->has_paddr || g->paddr == a->paddr) && (!g->has_eaddr || g->eaddr == a->vaddr);
}

/* Whether compare_step would find the step clean without comparing element
 * by element: in a trace with every element, an instruction's group without
 * memory or address records, or with one request that matches the step's one
 * access, that reports exactly what the step changed (so most steps are
 * decided here, without compare_in_detail). */
static inline bool plainly_same(const rvt_tv_verifier *v, const group_view *g) {
    const rvt_step *s = v->step;
    if (s->len != g->insn_len || s->insn != g->insn)
        return false;
    if (g->plain ? s->naccesses != 0
                 : !g->one_access || s->naccesses != 1 || !access_plainly_same(g, &s->accesses[0]))
        return false;
    return same_changes(v, g);
}

/* compare_step for steps plainly_same does not decide. */
static __attribute__((noinline)) void compare_in_detail(rvt_tv_verifier *v, uint64_t model_pc) {
    group_view *g = v->view;
    if (!v->stepped) {
        v->no_step = (rvt_step){.pc = model_pc};
        v->step = &v->no_step;
    }
    bool opened = false;
    uint64_t pc = v->step->pc;
    v->nresync = 0;

    /* The instruction itself. */
    if (g->has_insn && !(v->opt.absent & RVT_TV_F_INSN)) {
        if (!v->step->len || v->step->insn != g->insn || v->step->len != g->insn_len) {
            divergence(v, &opened, pc);
            if (v->step->len)
                detail(v, "instruction: trace %0*" PRIx32 ", model %0*" PRIx32, (int)g->insn_len * 2, g->insn,
                       (int)v->step->len * 2, v->step->insn);
            else
                detail(v, "instruction: trace %0*" PRIx32 ", model took %s %#" PRIx64 " before one executed",
                       (int)g->insn_len * 2, g->insn, v->stepped ? "a trap, cause" : "no step,", v->step->cause);
        }
    }
    if (g->interrupt && v->step->kind != RVT_STEP_TRAP) {
        divergence(v, &opened, pc);
        detail(v, "trap: the trace takes one before an instruction; the model has no interrupt pending and "
                  "enabled, and executed the instruction");
    }

    /* Every element the trace reports, against the model. */
    bool same = same_changes(v, g);
    for (size_t i = 0; i < g->n && !same; i++) {
        uint32_t e = g->el[i].elem;
        if (absent(v, e) || e == RVT_ELEM_MTIME || is_counter(e))
            continue;
        uint64_t model = 0;
        bool has = model_new_value(v, e, &model) || rvt_machine_get(v->m, e, &model);
        if (e == MIP) /* the device-driven bits were copied in; compare the rest */
            model = (model & ~MIP_INPUTS) | (g->el[i].val & MIP_INPUTS);
        if (!has || model != g->el[i].val) {
            char name[32];
            describe_elem(e, name, sizeof name);
            divergence(v, &opened, pc);
            if (has)
                detail(v, "%s: trace %#" PRIx64 ", model %#" PRIx64 "%s", name, g->el[i].val, model,
                       model_changed(v, canonical(e)) || model_changed(v, e) ? "" : " (unchanged by the model)");
            else
                detail(v, "%s: trace %#" PRIx64 ", the model has no such register", name, g->el[i].val);
            if (has)
                v->resync[v->nresync++] = e;
        }
    }
    /* Every element the model changed, against the trace (BS-057). */
    for (size_t i = 0; i < v->step->nchanges && !same; i++) {
        uint32_t e = v->step->changes[i].elem;
        if (absent(v, e) || e == RVT_ELEM_MTIME || group_reports(g, e))
            continue;
        if (e == RVT_ELEM_PC && !g->has_pc)
            continue;
        char name[32];
        describe_elem(e, name, sizeof name);
        divergence(v, &opened, pc);
        detail(v, "%s: changed by the model to %#" PRIx64 ", not by the trace (stays %#" PRIx64 ")", name,
               v->step->changes[i].value, shadow_get(v, e));
        v->resync[v->nresync++] = e;
    }
    if (!(v->opt.absent & RVT_TV_F_MEM))
        compare_memory(v, g, &opened, pc);
    if (!(v->opt.absent & RVT_TV_F_ADDR))
        compare_addresses(v, g, &opened, pc);
    if (!g->has_pc && !absent(v, RVT_ELEM_PC)) {
        /* Without pc information the model's pc is taken as the shadow's
         * (never among the elements to resynchronise then). */
        rvt_machine_get(v->m, RVT_ELEM_PC, &v->sh_pc);
    }
    v->diverged = opened;
    if (opened && v->opt.max_errors && v->res.divergences >= v->opt.max_errors)
        v->res.stopped = true;
}

/* Step 4: the model's step (v->step; none when !v->stepped) against the
 * group in v->view. What the model must take from the trace to continue is
 * left in v->resync; v->diverged says whether anything differed. */
static inline void compare_step(rvt_tv_verifier *v, uint64_t model_pc) {
    if (v->stepped && plainly_same(v, v->view))
        v->nresync = 0, v->diverged = false;
    else
        compare_in_detail(v, model_pc);
}

/* Step 5: the model continues from the trace's state. */
static void resynchronise(rvt_tv_verifier *v) {
    for (size_t i = 0; i < v->nresync; i++)
        rvt_machine_set(v->m, v->resync[i], shadow_get(v, v->resync[i]));
    v->nresync = 0;
}

/* Whether the group is an SC that failed in the traced system: one without
 * its store (or, in a trace without memory records, reporting a non-zero
 * rd). An SC may fail for reasons the model cannot see (a reservation
 * yielded by scheduling, another agent's store), so the model's reservation
 * is dropped before such a step: which way an SC went is a trace's input. */
static bool sc_failed_in_trace(const rvt_tv_verifier *v, const group_view *g) {
    uint32_t insn = g->insn;
    if (!g->has_insn || g->insn_len != 4 || (insn & 0x7f) != 0x2f || (insn >> 27) != 3)
        return false; /* (not SC.W or SC.D: opcode AMO, funct5 00011) */
    if (!(v->opt.absent & RVT_TV_F_MEM)) {
        for (size_t i = 0; i < g->nmem; i++)
            if (g->mem[i].req->memop == RVT_TV_SC || g->mem[i].req->memop == RVT_TV_STORE)
                return false;
        return true;
    }
    uint32_t rd = RVT_TV_REG_GPR + ((insn >> 7) & 31);
    for (size_t i = 0; i < g->n; i++)
        if (g->el[i].elem == rd)
            return g->el[i].val != 0;
    return false;
}

/* Steps 3 to 5 for the group in v->view, whose values the shadow state has.
 * When it came with an end record, the model runs on: each following group
 * that needs nothing from the model but its step is taken up by the observer
 * (take_up_next) as the model gets to it. */
static int run_steps(rvt_tv_verifier *v, bool may_run_on) {
    for (;;) {
        group_view *g = v->view;
        copy_inputs(v, g);
        if (sc_failed_in_trace(v, g))
            rvt_machine_drop_reservation(v->m);
        v->stepped = v->took_up = false;
        uint64_t model_pc = 0;
        rvt_machine_get(v->m, RVT_ELEM_PC, &model_pc);
        bool run_on = v->running_on = may_run_on && !g->interrupt;
        if (run_on)
            rvt_machine_run_observed(v->m);
        else
            rvt_machine_step(v->m, g->interrupt);
        v->running_on = false;
        if (v->took_up && !v->stepped)
            continue; /* the run ended before the group taken up executed */
        if (!run_on || !v->stepped) /* a run's steps were compared as they came */
            compare_step(v, model_pc);
        resynchronise(v);
        return v->fatal;
    }
}

enum collected { COLLECTING, GROUP_COMPLETE, GROUP_COMPLETE_BEGIN_NEXT, OUTSIDE_GROUP };

static void open_group(rvt_tv_verifier *v, uint64_t begin_offset) {
    v->in_group = true;
    v->group_offset = begin_offset;
    v->res.groups++;
}

/* Adds a record to what is being collected: COLLECTING, or what is complete
 * (a group, closed by an end record or by the begin record `r` of the next,
 * which is left to open after it; or a record outside any group). <0 when
 * the stream is unusable. */
static int collect(rvt_tv_verifier *v, const rvt_tv_record *r, rvt_diag *diag) {
    if (r->opcode == RVT_TV_BEGIN) {
        if (v->in_group)
            return GROUP_COMPLETE_BEGIN_NEXT; /* a begin implies the end (BS-036) */
        open_group(v, r->offset);
        return COLLECTING;
    }
    if (r->opcode == RVT_TV_END) {
        if (!v->in_group)
            return v->fatal = rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 ": end group outside a group",
                                           r->offset);
        return GROUP_COMPLETE;
    }
    if (!v->in_group) {
        /* A change between groups: ordered only by the groups around it. */
        if (r->opcode == RVT_TV_INCR_PC || r->opcode == RVT_TV_INSN16 || r->opcode == RVT_TV_INSN32 ||
            r->opcode == RVT_TV_RESET || r->opcode == RVT_TV_INIT)
            return v->fatal = rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 ": %s record outside a group",
                                           r->offset, rvt_tv_opcode_name(r->opcode));
        v->recs[0] = *r;
        v->nrecs = 1;
        v->group_offset = r->offset;
        return OUTSIDE_GROUP;
    }
    if (v->nrecs == MAX_GROUP_RECORDS)
        return v->fatal = rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 ": group of more than %d records",
                                       v->group_offset, MAX_GROUP_RECORDS);
    /* A memory response outside a group's request pairs is kept with its request. */
    v->recs[v->nrecs++] = *r;
    return COLLECTING;
}

static bool records_have(const rvt_tv_record *recs, size_t n, unsigned opcode) {
    for (size_t i = 0; i < n; i++)
        if (recs[i].opcode == opcode)
            return true;
    return false;
}

/* Whether what next_complete found resets the hart or initialises state. */
static bool resets_or_initialises(const struct complete *c) {
    if (c->view)
        return c->view->has_reset || c->view->has_init;
    return records_have(c->body, c->nbody, RVT_TV_RESET) || records_have(c->body, c->nbody, RVT_TV_INIT);
}

/* Makes v->view the view of what next_complete found. */
static int view_of(rvt_tv_verifier *v, const struct complete *c, rvt_diag *diag) {
    if (!c->view)
        return build_view(v, c->body, c->nbody, diag);
    v->view = c->view;
    return finish_view(v, v->view, diag);
}

/* A group the reading thread took whole, if it comes next (between the
 * records being taken): opened and taken with its view. False, with nothing
 * taken, when the next is a record. */
static bool whole_group_next(rvt_tv_verifier *v, struct complete *c) {
    struct prepared *pp = v->prepared;
    if (!pp || pp->next == pp->n || pp->sum[pp->next].at != v->batch_next)
        return false;
    struct summary *sm = &pp->sum[pp->next++];
    c->view = &sm->view;
    c->body = c->last = NULL;
    c->nbody = 0;
    open_group(v, sm->offset);
    return true;
}

/* The next complete thing among the records being taken: a whole group
 * where it lies, or what collect completes record by record. False when the
 * records run out first (or the stream is unusable: c->what < 0). */
static bool next_complete(rvt_tv_verifier *v, struct complete *c, rvt_diag *diag) {
    c->what = COLLECTING;
    c->view = NULL;
    if (whole_group_next(v, c)) {
        c->what = GROUP_COMPLETE;
        return true;
    }
    while (v->batch_next < v->batch_len) {
        c->last = &v->batch[v->batch_next++];
        c->what = collect(v, c->last, diag);
        if (c->what != COLLECTING) {
            c->body = v->recs;
            c->nbody = v->nrecs;
            return c->what > 0;
        }
    }
    return false;
}

/* Verifies or applies what next_complete found (its records in v->recs, or
 * the view the reading thread prepared). The view keeps pointing into them:
 * only the next group's records overwrite v->recs, and a piece's records and
 * prepared views stay until all its groups are taken. */
static int process(rvt_tv_verifier *v, const struct complete *c, rvt_diag *diag) {
    int what = c->what;
    int rc = view_of(v, c, diag);
    group_view *g = v->view;
    v->nrecs = 0;
    if (what != OUTSIDE_GROUP)
        v->in_group = false;
    if (rc)
        return rc;
    if (what == OUTSIDE_GROUP || g->has_init)
        return apply_directly(v, g, diag);
    if (g->has_reset) {
        rvt_machine_reset_hart(v->m);
        shadow_from_model(v);
        return apply_directly(v, g, diag);
    }
    if (v->res.stopped)
        return RVT_OK;
    apply_to_shadow(v, g);
    return run_steps(v, what == GROUP_COMPLETE);
}

/* The observer, during a run, after the model's step for the group in
 * v->view: compares, and takes up the next group if the model can run on
 * into it; otherwise ends the run (what is complete waits in v->pending). */
static void take_up_next(rvt_tv_verifier *v) {
    struct complete c;
    if (next_complete(v, &c, v->diag)) {
        if (c.what != GROUP_COMPLETE || resets_or_initialises(&c)) {
            v->pending = c;
        } else {
            int rc = view_of(v, &c, v->diag);
            group_view *g = v->view;
            v->nrecs = 0;
            v->in_group = false;
            if (!rc) {
                apply_to_shadow(v, g);
                v->took_up = true;
                v->stepped = false;
                if (!g->interrupt && !g->has_counter && !v->inputs_changed && !sc_failed_in_trace(v, g))
                    return; /* else inputs for the model first: run_steps steps it */
            }
        }
    }
    rvt_machine_stop_run(v->m);
}

static int take_records(void *user, const rvt_tv_record *recs, size_t n, void *prepared, rvt_diag *diag) {
    rvt_tv_verifier *v = user;
    v->prepared = prepared;
    v->batch = recs;
    v->batch_len = n;
    v->batch_next = 0;
    v->diag = diag;
    for (;;) {
        if (v->res.stopped) /* at --max-errors: the groups after are not read (however the stream was cut) */
            return v->fatal;
        struct complete c = v->pending;
        v->pending.what = COLLECTING;
        if (c.what == COLLECTING && !next_complete(v, &c, diag))
            return c.what < 0 ? c.what : v->fatal;
        int rc = process(v, &c, diag);
        if (rc)
            return rc;
        if (c.what == GROUP_COMPLETE_BEGIN_NEXT)
            open_group(v, c.last->offset);
    }
}

int rvt_tv_verifier_feed(rvt_tv_verifier *v, const uint8_t *data, size_t len, rvt_diag *diag) {
    if (v->fatal)
        return v->fatal;
    int rc = tv_parse_ahead_feed(v->reading, data, len, take_records, v, diag);
    return rc ? (v->fatal = rc) : RVT_OK;
}

/* The end of the stream, after the reader's own checks. */
static int check_end(rvt_tv_verifier *v, rvt_diag *diag) {
    if (v->in_group)
        return v->fatal = rvt_diag_set(diag, RVT_E_TRUNC,
                                       "byte %" PRIu64 ": the trace ends inside group %" PRIu64
                                       " (no end group follows its records)",
                                       v->group_offset, v->res.groups - 1);
    return RVT_OK;
}

int rvt_tv_verifier_finish(rvt_tv_verifier *v, rvt_diag *diag) {
    if (v->fatal)
        return v->fatal;
    int rc = tv_parse_ahead_finish(v->reading, take_records, v, diag);
    return rc ? (v->fatal = rc) : check_end(v, diag);
}

static bool verifier_stopped(void *user) { return ((rvt_tv_verifier *)user)->res.stopped; }

int rvt_tv_verifier_read_all(rvt_tv_verifier *v, rvt_tv_read_fn read, void *user, rvt_diag *diag) {
    if (v->fatal)
        return v->fatal;
    int rc = tv_parse_ahead_pull(v->reading, read, user, take_records, v, verifier_stopped, diag);
    if (rc)
        return v->fatal = rc;
    return v->res.stopped ? RVT_OK : check_end(v, diag);
}
