/* SiFive cycle-accurate side files (.rcad): see include/rvtrace/cycles.h. */
#include "rvtrace/cycles.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define WORDS 32
#define DATA_MASK 0x3fffffffu
#define SCALAR_BITS (30 * WORDS)       /* two a cycle */
#define SCALAR_CYCLES (SCALAR_BITS / 2) /* 480 a record */
#define VECTOR_CYCLES (5 * WORDS)       /* 160 a record */

enum { V0 = 0x20, V1 = 0x10, VSTART = 0x08, VARITH = 0x04, VSTORE = 0x02, VLOAD = 0x01 };

/* SiFive's decoder keeps the vector file's cycles in a ring of 512 and
 * gives up when fewer than five places are free after dropping the taken
 * ones: more cycles with flags still waiting mean the file and the trace
 * do not pair (and memory stays bounded here too). */
#define VECTOR_WAITING_MAX 506

typedef struct {
    uint64_t cycle;
    uint8_t flags;
    uint8_t queued, arith, loads, stores; /* dqr's in-flight counts, kept on the cycle */
    size_t offset;                        /* of its word in the file */
} vcycle;

struct rvt_ca_reader {
    uint8_t *data;
    size_t records;
    size_t trailing;
    rvt_ca_type type;
    char name[256];
    uint64_t start;
    /* where the next cycle data is read: record, and bit (scalar) or word (vector) */
    size_t record;
    unsigned pos;
    /* vector: the cycles read and not all taken, from `head` */
    vcycle *q;
    size_t head, n, cap, waiting;
    size_t pipes; /* no pipe flag waits before this place (they are taken in order) */
};

static uint32_t word_at(const rvt_ca_reader *r, size_t record, unsigned w) {
    const uint8_t *p = r->data + record * RVT_CA_RECORD_BYTES + 4 * w;
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    v &= DATA_MASK;
    if (record == 0 && w == 0)
        v |= 1u << 29; /* the start address's instruction, on pipe 0 */
    return v;
}

rvt_ca_class rvt_ca_classify(const rvt_insn *in) {
    if (in->len != 4)
        return RVT_CA_SCALAR;
    uint32_t raw = in->raw, width = (raw >> 12) & 7;
    bool vector_width = width == 0 || width >= 5; /* 1..4 are the scalar FP widths and AMO.W/D */
    switch (raw & 0x7f) {
    case 0x07:
        return vector_width ? RVT_CA_VLOAD : RVT_CA_SCALAR;
    case 0x27:
        return vector_width ? RVT_CA_VSTORE : RVT_CA_SCALAR;
    case 0x2f:
        if (!vector_width)
            return RVT_CA_SCALAR;
        return (raw >> 26) & 1 ? RVT_CA_VAMO_WW : RVT_CA_VAMO;
    case 0x57:
        return width == 7 ? RVT_CA_VCONFIG : RVT_CA_VARITH;
    default:
        return RVT_CA_SCALAR;
    }
}

int rvt_ca_reader_new(rvt_ca_reader **out, const uint8_t *data, size_t len, rvt_ca_type type, const char *name,
                      rvt_diag *diag) {
    *out = NULL;
    if (type != RVT_CA_INSTRUCTION && type != RVT_CA_VECTOR)
        return rvt_diag_set(diag, RVT_E_ARG, "%s: unknown cycle-accurate trace type %d", name, (int)type);
    if (len < RVT_CA_RECORD_BYTES)
        return rvt_diag_set(diag, RVT_E_TRUNC, "%s: %zu bytes: a cycle-accurate trace is 128-byte records, and its "
                            "first one holds the start address", name, len);
    rvt_ca_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->data = malloc(len))) {
        free(r);
        return rvt_diag_set(diag, RVT_E_NOMEM, "%s: out of memory for %zu bytes", name, len);
    }
    memcpy(r->data, data, len);
    r->records = len / RVT_CA_RECORD_BYTES;
    r->trailing = len % RVT_CA_RECORD_BYTES;
    r->type = type;
    snprintf(r->name, sizeof r->name, "%s", name);
    for (unsigned w = 1; w < WORDS; w++) {
        const uint8_t *p = r->data + 4 * w;
        r->start |= (uint64_t)(p[3] >> 6) << (2 * (w - 1));
    }
    *out = r;
    return RVT_OK;
}

void rvt_ca_reader_free(rvt_ca_reader *r) {
    if (!r)
        return;
    free(r->q);
    free(r->data);
    free(r);
}

uint64_t rvt_ca_start(const rvt_ca_reader *r) { return r->start; }
size_t rvt_ca_trailing(const rvt_ca_reader *r) { return r->trailing; }

void rvt_ca_rewind(rvt_ca_reader *r) {
    r->record = 0;
    r->pos = 0;
    r->head = r->n = r->waiting = r->pipes = 0;
}

static int ended(const rvt_ca_reader *r, const char *what, rvt_diag *diag) {
    return rvt_diag_set(diag, RVT_E_TRUNC, "%s: the cycles end at byte %zu (%zu whole records) before %s", r->name,
                        r->records * RVT_CA_RECORD_BYTES, r->records, what);
}

/* Scalar: the next set bit is the next instruction. */
static int next_scalar(rvt_ca_reader *r, rvt_ca_note *note, rvt_diag *diag) {
    for (; r->record < r->records; r->record++, r->pos = 0) {
        while (r->pos < SCALAR_BITS) {
            unsigned w = r->pos / 30, bit = 29 - r->pos % 30;
            uint32_t v = word_at(r, r->record, w) & ((2u << bit) - 1); /* this bit and younger */
            if (!v) {
                r->pos = (w + 1) * 30;
                continue;
            }
            unsigned found = 31 - (unsigned)__builtin_clz(v);
            unsigned at = w * 30 + (29 - found);
            *note = (rvt_ca_note){.cycle = (uint64_t)r->record * SCALAR_CYCLES + at / 2, .pipe = at & 1};
            r->pos = at + 1;
            return RVT_OK;
        }
    }
    return ended(r, "the next instruction's", diag);
}

/* Vector: the next word with any flag, its five cycles onto the queue. */
static int feed(rvt_ca_reader *r, const char *what, rvt_diag *diag) {
    for (; r->record < r->records; r->record++, r->pos = 0) {
        while (r->pos < WORDS) {
            unsigned w = r->pos++;
            uint32_t v = word_at(r, r->record, w);
            if (!v)
                continue;
            size_t offset = r->record * RVT_CA_RECORD_BYTES + 4 * w;
            if (r->waiting > VECTOR_WAITING_MAX)
                return rvt_diag_set(diag, RVT_E_FORMAT, "%s: byte %zu: more than %d cycles wait with vector flags "
                                    "no instruction took (the first at byte %zu): the file does not pair with the "
                                    "trace", r->name, offset, VECTOR_WAITING_MAX, r->q[r->head].offset);
            if (r->n + 5 > r->cap) {
                size_t cap = r->cap ? 2 * r->cap : 64;
                vcycle *q = realloc(r->q, cap * sizeof *q);
                if (!q)
                    return rvt_diag_set(diag, RVT_E_NOMEM, "%s: out of memory", r->name);
                r->q = q;
                r->cap = cap;
            }
            uint64_t cycle = (uint64_t)r->record * VECTOR_CYCLES + 5u * w;
            for (unsigned i = 0; i < 5; i++) {
                uint8_t flags = (uint8_t)((v >> (6 * (4 - i))) & 0x3f);
                if (flags) {
                    r->q[r->n++] = (vcycle){.cycle = cycle + i, .flags = flags, .offset = offset};
                    r->waiting++;
                }
            }
            return RVT_OK;
        }
    }
    return ended(r, what, diag);
}

static void take(rvt_ca_reader *r, size_t i, uint8_t flag) {
    r->q[i].flags &= (uint8_t)~flag;
    if (!r->q[i].flags)
        r->waiting--;
}

/* The pipe of the next instruction: the oldest pipe flag waiting, pipe 0
 * before pipe 1 in a cycle; *at: its place. */
static int vector_pipe(rvt_ca_reader *r, rvt_ca_note *note, size_t *at, rvt_diag *diag) {
    for (size_t i = r->pipes > r->head ? r->pipes : r->head;; i++) {
        r->pipes = i;
        if (i == r->n) {
            int rc = feed(r, "the next instruction's", diag);
            if (rc)
                return rc;
        }
        uint8_t f = r->q[i].flags;
        if (f & (V0 | V1)) {
            uint8_t flag = f & V0 ? V0 : V1;
            take(r, i, flag);
            *note = (rvt_ca_note){.cycle = r->q[i].cycle, .pipe = flag == V0 ? 0 : 1};
            *at = i;
            return RVT_OK;
        }
    }
}

static uint8_t *counter(vcycle *c, uint8_t flag) {
    switch (flag) {
    case VSTART:
        return &c->queued;
    case VARITH:
        return &c->arith;
    case VSTORE:
        return &c->stores;
    default:
        return &c->loads;
    }
}

/* The first cycle with `flag` from *at on; every cycle passed counts one
 * more of its kind in flight (SiFive's decoder's statistics: the counts
 * of the cycle the search starts at, this one included). *at: after it. */
static int vector_find(rvt_ca_reader *r, size_t *at, uint8_t flag, uint64_t *cycle, vcycle *counts,
                       rvt_diag *diag) {
    const char *what = flag == VSTART ? "a vector instruction's start" : "a vector instruction's finish";
    size_t i = *at;
    if (i == r->n) {
        int rc = feed(r, what, diag);
        if (rc)
            return rc;
    }
    *counts = r->q[i];
    for (;; i++) {
        if (i == r->n) {
            int rc = feed(r, what, diag);
            if (rc)
                return rc;
        }
        ++*counter(&r->q[i], flag);
        if (r->q[i].flags & flag) {
            take(r, i, flag);
            *cycle = r->q[i].cycle;
            ++*counter(counts, flag);
            *at = i + 1;
            return RVT_OK;
        }
    }
}

static int next_vector(rvt_ca_reader *r, rvt_ca_class cls, rvt_ca_note *note, rvt_diag *diag) {
    if (r->head > r->cap / 2) { /* drop what was taken (here: no place in the queue is held) */
        memmove(r->q, r->q + r->head, (r->n - r->head) * sizeof *r->q);
        r->n -= r->head;
        r->pipes = r->pipes > r->head ? r->pipes - r->head : 0;
        r->head = 0;
    }
    size_t at;
    int rc = vector_pipe(r, note, &at, diag);
    uint8_t finish = 0;
    switch (cls) {
    case RVT_CA_VARITH:
        finish = VARITH;
        break;
    case RVT_CA_VSTORE:
        finish = VSTORE;
        break;
    case RVT_CA_VLOAD:
    case RVT_CA_VAMO:
    case RVT_CA_VAMO_WW:
        finish = VLOAD;
        break;
    default:
        break;
    }
    vcycle counts;
    if (!rc && finish) {
        rc = vector_find(r, &at, VSTART, &note->vstart, &counts, diag);
        note->queued = counts.queued;
    }
    if (!rc && finish) {
        rc = vector_find(r, &at, finish, &note->vfinish, &counts, diag);
        note->arith = counts.arith;
        note->loads = counts.loads;
        note->stores = counts.stores;
        note->vector = RVT_CA_HAS_VSTART | (finish == VARITH ? RVT_CA_HAS_VARITH
                                            : finish == VSTORE ? RVT_CA_HAS_VSTORE : RVT_CA_HAS_VLOAD);
    }
    if (!rc && cls == RVT_CA_VAMO_WW) {
        rc = vector_find(r, &at, VSTORE, &note->vfinish, &counts, diag);
        note->vector |= RVT_CA_HAS_VSTORE;
    }
    while (r->head < r->n && !r->q[r->head].flags)
        r->head++;
    return rc;
}

int rvt_ca_next(rvt_ca_reader *r, rvt_ca_class cls, rvt_ca_note *note, rvt_diag *diag) {
    return r->type == RVT_CA_INSTRUCTION ? next_scalar(r, note, diag) : next_vector(r, cls, note, diag);
}

static bool links(unsigned reg) { return reg == 1 || reg == 5; }

int rvt_ca_align(rvt_ca_reader *r, uint64_t first, bool (*code)(void *user, uint64_t addr, rvt_insn *in),
                 void *user, rvt_diag *diag) {
    uint64_t addr = r->start, saved = 0;
    bool have_saved = false;
    for (unsigned step = 0; step < 30 && addr != first; step++) {
        rvt_insn in;
        if (!code(user, addr, &in))
            break;
        uint64_t next = addr + in.len;
        bool known = true;
        switch (in.cf) {
        case RVT_CF_JAL:
            if (links(in.rd)) {
                saved = next;
                have_saved = true;
            }
            next = addr + (uint64_t)in.imm;
            break;
        case RVT_CF_JALR:
            /* a return to the call seen on the way; anything else the code
             * does not tell (a call through a register pushes its return) */
            if (links(in.rs1) && (!links(in.rd) || in.rd != in.rs1)) {
                known = have_saved;
                next = saved;
                have_saved = false;
            } else {
                known = false;
                if (links(in.rd)) {
                    saved = next;
                    have_saved = true;
                }
            }
            break;
        case RVT_CF_BRANCH:
            known = in.imm == in.len; /* either way the same place */
            break;
        case RVT_CF_TRAP:
        case RVT_CF_XRET:
            known = false;
            break;
        default:
            break;
        }
        if (!known)
            break;
        rvt_ca_note note;
        int rc = rvt_ca_next(r, RVT_CA_SCALAR, &note, diag);
        if (rc)
            return rc;
        addr = next;
    }
    if (addr == first)
        return 1;
    rvt_ca_rewind(r);
    return 0;
}

/* snprintf at the end of what `buf` holds (*n: its length so far, which
 * may pass `cap`: the length the text would have). */
static void append(char *buf, size_t cap, int *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t cap, int *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t at = *n >= 0 && (size_t)*n < cap ? (size_t)*n : cap;
    int k = vsnprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, fmt, ap);
    va_end(ap);
    *n += k > 0 ? k : 0;
}

int rvt_ca_format(const rvt_ca_note *note, uint64_t previous, char *buf, size_t cap) {
    int n = 0;
    if (cap)
        buf[0] = 0;
    append(buf, cap, &n, "t:%" PRIu64 " [%u:%" PRIu64, note->cycle, note->pipe, note->cycle - previous);
    if (note->vector & RVT_CA_HAS_VSTART)
        append(buf, cap, &n, "(%u)-%" PRIu64 "(%uA,%uL,%uS)", note->queued, note->vstart - previous, note->arith,
               note->loads, note->stores);
    static const struct {
        unsigned has;
        char letter;
    } finishes[] = {{RVT_CA_HAS_VARITH, 'A'}, {RVT_CA_HAS_VLOAD, 'L'}, {RVT_CA_HAS_VSTORE, 'S'}};
    for (unsigned k = 0; k < 3; k++)
        if (note->vector & finishes[k].has)
            append(buf, cap, &n, "-%" PRIu64 "%c", note->vfinish - previous - 1, finishes[k].letter);
    append(buf, cap, &n, "]");
    return n;
}
