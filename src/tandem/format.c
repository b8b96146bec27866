/* The tandem trace's record layout: parameters, encoding, names, and the
 * streaming reader. Multi-byte fields are little-endian; the nibble pairs of
 * memory records put the first-listed field in the low bits (0x21 is a
 * 32-bit store request). */
#include "rvtrace/tandem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rvtrace/isa.h"
#include "in_place.h"

void rvt_tv_params_default(rvt_tv_params *p, unsigned xlen) {
    p->xlen = xlen;
    p->flen = 64;
    p->mlen = xlen == 64 ? 64 : 34;
}

int rvt_tv_params_check(const rvt_tv_params *p, rvt_diag *diag) {
    if (p->xlen != 32 && p->xlen != 64)
        return rvt_diag_set(diag, RVT_E_ARG, "XLEN must be 32 or 64 (is %u)", p->xlen);
    if (p->flen != 0 && p->flen != 32 && p->flen != 64)
        return rvt_diag_set(diag, RVT_E_ARG, "FLEN must be 0, 32 or 64 (is %u)", p->flen);
    if (p->mlen < 32 || p->mlen > 64)
        return rvt_diag_set(diag, RVT_E_ARG, "MLEN must be 32..64 bits (is %u)", p->mlen);
    return RVT_OK;
}

bool rvt_tv_request_has_data(unsigned op) { return tv_request_has_data(op); }
bool rvt_tv_response_has_data(unsigned op) { return tv_response_has_data(op); }

/* put_le for a field that ends at most 8 bytes before the end of a
 * RVT_TV_MAX_RECORD buffer: one word store; the bytes past the field are
 * scratch that the next field or nobody reads. */
static void put_field(uint8_t *out, uint64_t v, unsigned n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)n;
    memcpy(out, &v, 8);
#else
    for (unsigned i = 0; i < n; i++)
        out[i] = (uint8_t)(v >> (8 * i));
#endif
}

static uint64_t get_le(const uint8_t *in, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)in[i] << (8 * i);
    return v;
}

static bool fits(uint64_t v, unsigned bytes) { return bytes >= 8 || v >> (8 * bytes) == 0; }

size_t rvt_tv_encode(const rvt_tv_params *p, const rvt_tv_record *r, uint8_t out[RVT_TV_MAX_RECORD],
                     rvt_diag *diag) {
    size_t n = 0;
    out[n++] = r->opcode;
    switch (r->opcode) {
    case RVT_TV_BEGIN: case RVT_TV_END: case RVT_TV_INCR_PC: case RVT_TV_RESET: case RVT_TV_INIT:
        return n;
    case RVT_TV_REG: {
        unsigned w = reg_bytes(p, r->reg);
        if (!w || r->reg >= RVT_TV_REG_END || !fits(r->value, w)) {
            rvt_diag_set(diag, RVT_E_ARG, "register record: address %#x or value %#" PRIx64 " does not fit",
                         r->reg, r->value);
            return 0;
        }
        put_field(out + n, r->reg, 2);
        put_field(out + n + 2, r->value, w);
        return n + 2 + w;
    }
    case RVT_TV_REG_ADD: case RVT_TV_REG_OR:
        if (r->reg >= RVT_TV_REG_END || !reg_bytes(p, r->reg)) {
            rvt_diag_set(diag, RVT_E_ARG, "incremental register record: bad address %#x", r->reg);
            return 0;
        }
        put_field(out + n, r->reg, 2);
        out[n + 2] = (uint8_t)r->value;
        return n + 3;
    case RVT_TV_STATE: {
        unsigned w = state_bytes(p, r->id);
        if (!w || !fits(r->value, w)) {
            rvt_diag_set(diag, RVT_E_ARG, "additional state %u: unknown, or value %#" PRIx64 " too wide", r->id,
                         r->value);
            return 0;
        }
        out[n++] = r->id;
        put_field(out + n, r->value, w);
        return n + w;
    }
    case RVT_TV_MEM_REQ: {
        unsigned w = mlen_bytes(p);
        if (r->memop > RVT_TV_FETCH || r->size > 3 || !fits(r->addr, w) || !fits(r->value, 1u << r->size)) {
            rvt_diag_set(diag, RVT_E_ARG, "memory request: op %u, size %u or address/data out of range", r->memop,
                         r->size);
            return 0;
        }
        put_field(out + n, r->addr, w);
        n += w;
        out[n++] = (uint8_t)(r->memop | r->size << 4);
        if (rvt_tv_request_has_data(r->memop)) {
            put_field(out + n, r->value, 1u << r->size);
            n += 1u << r->size;
        }
        return n;
    }
    case RVT_TV_MEM_RSP:
        if (r->size > 3 || r->result > 1 || !fits(r->value, 1u << r->size)) {
            rvt_diag_set(diag, RVT_E_ARG, "memory response: size %u or result %u out of range", r->size, r->result);
            return 0;
        }
        out[n++] = (uint8_t)(r->size | r->result << 4);
        if (r->has_data) {
            put_field(out + n, r->value, 1u << r->size);
            n += 1u << r->size;
        }
        return n;
    case RVT_TV_INSN16:
        put_field(out + n, r->insn, 2);
        return n + 2;
    case RVT_TV_INSN32:
        put_field(out + n, r->insn, 4);
        return n + 4;
    default:
        rvt_diag_set(diag, RVT_E_ARG, "unknown opcode %u", r->opcode);
        return 0;
    }
}

/* ---------------------------------------------------------------- names */

const char *rvt_tv_opcode_name(unsigned opcode) {
    switch (opcode) {
    case RVT_TV_BEGIN: return "begin";
    case RVT_TV_END: return "end";
    case RVT_TV_INCR_PC: return "incr-pc";
    case RVT_TV_REG: return "reg";
    case RVT_TV_REG_ADD: return "reg-add";
    case RVT_TV_REG_OR: return "reg-or";
    case RVT_TV_STATE: return "state";
    case RVT_TV_MEM_REQ: return "mem-req";
    case RVT_TV_MEM_RSP: return "mem-rsp";
    case RVT_TV_RESET: return "reset";
    case RVT_TV_INIT: return "init";
    case RVT_TV_INSN16: return "insn16";
    case RVT_TV_INSN32: return "insn32";
    default: return "?";
    }
}

const char *rvt_tv_state_name(unsigned id) {
    static const char *const names[] = {"?", "priv", "paddr", "eaddr", "stdata8", "stdata16",
                                        "stdata32", "stdata64", "mtime", "pc-paddr", "pc"};
    return id < sizeof names / sizeof names[0] ? names[id] : "?";
}

const char *rvt_tv_memop_name(unsigned op) {
    static const char *const names[] = {"load", "store", "lr", "sc", "amoswap", "amoadd", "amoxor",
                                        "amoand", "amoor", "amomin", "amomax", "amominu", "amomaxu", "fetch"};
    return op < sizeof names / sizeof names[0] ? names[op] : "?";
}

const char *rvt_tv_reg_name(unsigned reg, char *buf, size_t size) {
    if (reg >= RVT_TV_REG_GPR && reg < RVT_TV_REG_GPR + 32)
        snprintf(buf, size, "x%u/%s", reg - RVT_TV_REG_GPR, rvt_gpr_name(reg - RVT_TV_REG_GPR));
    else if (reg >= RVT_TV_REG_FPR && reg < RVT_TV_REG_END)
        snprintf(buf, size, "f%u/%s", reg - RVT_TV_REG_FPR, rvt_fpr_name(reg - RVT_TV_REG_FPR));
    else if (reg < 0x1000 && rvt_csr_name(reg))
        snprintf(buf, size, "%s", rvt_csr_name(reg));
    else
        snprintf(buf, size, "reg%#x", reg);
    return buf;
}

int rvt_tv_reg_lookup(const char *name) {
    for (unsigned i = 0; i < 32; i++) {
        char xn[8], fn[8];
        snprintf(xn, sizeof xn, "x%u", i);
        snprintf(fn, sizeof fn, "f%u", i);
        if (!strcasecmp(name, xn) || !strcasecmp(name, rvt_gpr_name(i)))
            return RVT_TV_REG_GPR + (int)i;
        if (!strcasecmp(name, fn) || !strcasecmp(name, rvt_fpr_name(i)))
            return RVT_TV_REG_FPR + (int)i;
    }
    if (!strcasecmp(name, "fp") || !strcasecmp(name, "s0"))
        return RVT_TV_REG_GPR + 8;
    for (unsigned c = 0; c < 0x1000; c++)
        if (rvt_csr_name(c) && !strcasecmp(name, rvt_csr_name(c)))
            return (int)c;
    char *end;
    unsigned long v = strtoul(name, &end, 0);
    if (*name && !*end && v < RVT_TV_REG_END)
        return (int)v;
    return -1;
}

void rvt_tv_format_record(const rvt_tv_params *p, const rvt_tv_record *r, char *buf, size_t size) {
    char reg[32];
    const char *op = rvt_tv_opcode_name(r->opcode);
    switch (r->opcode) {
    case RVT_TV_REG:
        snprintf(buf, size, "%-8s %s = %#" PRIx64, op, rvt_tv_reg_name(r->reg, reg, sizeof reg), r->value);
        break;
    case RVT_TV_REG_ADD:
        snprintf(buf, size, "%-8s %s += %" PRId64, op, rvt_tv_reg_name(r->reg, reg, sizeof reg), (int64_t)r->value);
        break;
    case RVT_TV_REG_OR:
        snprintf(buf, size, "%-8s %s |= %#" PRIx64, op, rvt_tv_reg_name(r->reg, reg, sizeof reg), r->value);
        break;
    case RVT_TV_STATE:
        snprintf(buf, size, "%-8s %s = %#" PRIx64, op, rvt_tv_state_name(r->id), r->value);
        break;
    case RVT_TV_MEM_REQ:
        if (rvt_tv_request_has_data(r->memop))
            snprintf(buf, size, "%-8s %s %u bytes at %#" PRIx64 " data %#" PRIx64, op, rvt_tv_memop_name(r->memop),
                     1u << r->size, r->addr, r->value);
        else
            snprintf(buf, size, "%-8s %s %u bytes at %#" PRIx64, op, rvt_tv_memop_name(r->memop), 1u << r->size,
                     r->addr);
        break;
    case RVT_TV_MEM_RSP:
        if (r->has_data)
            snprintf(buf, size, "%-8s %s, %u bytes, data %#" PRIx64, op, r->result ? "failure" : "success",
                     1u << r->size, r->value);
        else
            snprintf(buf, size, "%-8s %s, %u bytes", op, r->result ? "failure" : "success", 1u << r->size);
        break;
    case RVT_TV_INSN16:
        snprintf(buf, size, "%-8s %04" PRIx32, op, r->insn);
        break;
    case RVT_TV_INSN32:
        snprintf(buf, size, "%-8s %08" PRIx32, op, r->insn);
        break;
    default:
        snprintf(buf, size, "%s", op);
        break;
    }
    (void)p;
}

/* -------------------------------------------------------- field lists */

static const struct {
    const char *name;
    unsigned bit;
} field_table[] = {
    {"gpr", RVT_TV_F_GPR}, {"fpr", RVT_TV_F_FPR}, {"csr", RVT_TV_F_CSR}, {"pc", RVT_TV_F_PC},
    {"insn", RVT_TV_F_INSN}, {"priv", RVT_TV_F_PRIV}, {"mem", RVT_TV_F_MEM}, {"addr", RVT_TV_F_ADDR},
    {"mtime", RVT_TV_F_MTIME}, {"init", RVT_TV_F_INIT}, {"all", RVT_TV_F_ALL},
};
const char *const rvt_tv_field_names = "gpr, fpr, csr, pc, insn, priv, mem, addr, mtime, init, all";

int rvt_tv_parse_fields(const char *list, unsigned *fields, rvt_diag *diag) {
    unsigned f = 0;
    const char *p = list;
    bool first = true;
    while (*p) {
        size_t len = strcspn(p, ",");
        bool remove = *p == '-';
        const char *name = p + remove;
        size_t nlen = len - remove;
        if (first && remove)
            f = RVT_TV_F_ALL; /* "-mem": everything but memory */
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof field_table / sizeof field_table[0]; i++)
            if (strlen(field_table[i].name) == nlen && !strncmp(name, field_table[i].name, nlen))
                bit = field_table[i].bit;
        if (!bit)
            return rvt_diag_set(diag, RVT_E_ARG, "unknown trace field '%.*s' (known: %s)", (int)nlen, name,
                                rvt_tv_field_names);
        f = remove ? f & ~bit : f | bit;
        first = false;
        p += len;
        if (*p == ',')
            p++;
    }
    *fields = f;
    return RVT_OK;
}

/* ---------------------------------------------------------- the reader */

struct rvt_tv_reader {
    rvt_tv_params p;
    const uint8_t *data; /* fed bytes not yet used */
    size_t len;
    uint8_t carry[RVT_TV_MAX_RECORD]; /* the start of a record the last chunk cut */
    size_t ncarry;
    uint64_t offset;     /* stream offset of carry[0] (or of data[0] when no carry) */
    int last_req_op;     /* op of the record before, when it was a memory request; else -1 */
    int failed;
};

int rvt_tv_reader_new(rvt_tv_reader **out, const rvt_tv_params *p, rvt_diag *diag) {
    int rc = rvt_tv_params_check(p, diag);
    if (rc)
        return rc;
    rvt_tv_reader *r = calloc(1, sizeof *r);
    if (!r)
        return RVT_E_NOMEM;
    r->p = *p;
    r->last_req_op = -1;
    *out = r;
    return RVT_OK;
}

void rvt_tv_reader_free(rvt_tv_reader *r) { free(r); }

void rvt_tv_reader_feed(rvt_tv_reader *r, const uint8_t *data, size_t len) {
    r->data = data;
    r->len = len;
}

uint64_t rvt_tv_reader_offset(const rvt_tv_reader *r) { return r->offset + r->ncarry; }

/* Length of the record starting at b[0..avail): >0 the length, 0 when more
 * bytes are needed to tell, <0 invalid (diag set). */
static long record_length(rvt_tv_reader *r, const uint8_t *b, size_t avail, uint64_t off, rvt_diag *diag) {
    const rvt_tv_params *p = &r->p;
    switch (b[0]) {
    case RVT_TV_BEGIN: case RVT_TV_END: case RVT_TV_INCR_PC: case RVT_TV_RESET: case RVT_TV_INIT:
        return 1;
    case RVT_TV_REG: {
        if (avail < 3)
            return 0;
        unsigned reg = (unsigned)get_le(b + 1, 2);
        unsigned w = reg < RVT_TV_REG_END ? reg_bytes(p, reg) : 0;
        if (!w)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "byte %" PRIu64 ": full register record names register %#x, which %s", off, reg,
                                reg >= RVT_TV_REG_END ? "is outside the Debug spec's register space"
                                                      : "has no width without FP registers (FLEN 0)");
        return 3 + (long)w;
    }
    case RVT_TV_REG_ADD: case RVT_TV_REG_OR: {
        if (avail < 3)
            return 0;
        unsigned reg = (unsigned)get_le(b + 1, 2);
        if (reg >= RVT_TV_REG_END || !reg_bytes(p, reg))
            return rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 ": incremental register record names register %#x",
                                off, reg);
        return 4;
    }
    case RVT_TV_STATE: {
        if (avail < 2)
            return 0;
        unsigned w = state_bytes(p, b[1]);
        if (!w)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "byte %" PRIu64 ": additional state identifier %u is not one of 1..10", off, b[1]);
        return 2 + (long)w;
    }
    case RVT_TV_MEM_REQ: {
        unsigned w = mlen_bytes(p);
        if (avail < 2 + w)
            return 0;
        unsigned opsize = b[1 + w], op = opsize & 15, size = opsize >> 4;
        if (op > RVT_TV_FETCH || size > 3)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "byte %" PRIu64 ": memory request with op %u and size code %u (ops are 0..13, sizes 0..3)",
                                off, op, size);
        return 2 + (long)w + (rvt_tv_request_has_data(op) ? 1l << size : 0);
    }
    case RVT_TV_MEM_RSP: {
        if (r->last_req_op < 0)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "byte %" PRIu64 ": memory response that does not follow a memory request", off);
        if (avail < 2)
            return 0;
        unsigned size = b[1] & 15, result = b[1] >> 4;
        if (size > 3 || result > 1)
            return rvt_diag_set(diag, RVT_E_FORMAT,
                                "byte %" PRIu64 ": memory response with size code %u and result %u (sizes 0..3, results 0..1)",
                                off, size, result);
        return 2 + (rvt_tv_response_has_data((unsigned)r->last_req_op) ? 1l << size : 0);
    }
    case RVT_TV_INSN16:
        return 3;
    case RVT_TV_INSN32:
        return 5;
    default:
        return rvt_diag_set(diag, RVT_E_FORMAT, "byte %" PRIu64 ": unknown opcode %u (0x%02x)", off, b[0], b[0]);
    }
}

static void parse_record(rvt_tv_reader *r, const uint8_t *b, uint64_t off, rvt_tv_record *rec) {
    const rvt_tv_params *p = &r->p;
    memset(rec, 0, sizeof *rec);
    rec->offset = off;
    rec->opcode = b[0];
    switch (b[0]) {
    case RVT_TV_REG:
        rec->reg = (uint16_t)get_le(b + 1, 2);
        rec->value = get_le(b + 3, reg_bytes(p, rec->reg));
        break;
    case RVT_TV_REG_ADD:
        rec->reg = (uint16_t)get_le(b + 1, 2);
        rec->value = (uint64_t)(int64_t)(int8_t)b[3];
        break;
    case RVT_TV_REG_OR:
        rec->reg = (uint16_t)get_le(b + 1, 2);
        rec->value = b[3];
        break;
    case RVT_TV_STATE:
        rec->id = b[1];
        rec->value = get_le(b + 2, state_bytes(p, b[1]));
        break;
    case RVT_TV_MEM_REQ: {
        unsigned w = mlen_bytes(p);
        rec->addr = get_le(b + 1, w);
        rec->memop = b[1 + w] & 15;
        rec->size = b[1 + w] >> 4;
        rec->has_data = rvt_tv_request_has_data(rec->memop);
        if (rec->has_data)
            rec->value = get_le(b + 2 + w, 1u << rec->size);
        break;
    }
    case RVT_TV_MEM_RSP:
        rec->memop = (uint8_t)r->last_req_op;
        rec->size = b[1] & 15;
        rec->result = b[1] >> 4;
        rec->has_data = rvt_tv_response_has_data(rec->memop);
        if (rec->has_data)
            rec->value = get_le(b + 2, 1u << rec->size);
        break;
    case RVT_TV_INSN16:
        rec->insn = (uint32_t)get_le(b + 1, 2);
        break;
    case RVT_TV_INSN32:
        rec->insn = (uint32_t)get_le(b + 1, 4);
        break;
    default:
        break;
    }
    r->last_req_op = b[0] == RVT_TV_MEM_REQ ? rec->memop : -1;
}

/* Decodes records in place into recs[0..max), up to and including the first
 * begin or end record, while decode_in_place can; returns how many and
 * whether that was a begin or end. */
static size_t read_in_place(rvt_tv_reader *r, rvt_tv_record *recs, size_t max, bool *group_edge) {
    size_t n = 0;
    *group_edge = false;
    if (r->ncarry)
        return 0;
    struct in_place at = {r->data, r->len, r->offset, r->last_req_op};
    const rvt_tv_params p = r->p;
    while (n < max && at.len >= IN_PLACE_MARGIN && decode_in_place(&p, &at, &recs[n]))
        if (recs[n++].opcode <= RVT_TV_END) {
            *group_edge = true;
            break;
        }
    tv_reader_move_to(r, &at);
    return n;
}

/* The next record byte by byte: one the last chunk cut, one too near the
 * end of the fed bytes for decode_in_place, or one it refused. */
static int next_careful(rvt_tv_reader *r, rvt_tv_record *rec, rvt_diag *diag) {
    if (r->ncarry) {
        /* Complete the record the previous chunk cut, a byte at a time until
         * its length is known. */
        for (;;) {
            long need = record_length(r, r->carry, r->ncarry, r->offset, diag);
            if (need < 0)
                return r->failed = (int)need;
            size_t want = need ? (size_t)need : r->ncarry + 1;
            while (r->ncarry < want && r->len) {
                r->carry[r->ncarry++] = *r->data++;
                r->len--;
            }
            if (r->ncarry < want)
                return 0;
            if (need) {
                parse_record(r, r->carry, r->offset, rec);
                r->offset += r->ncarry;
                r->ncarry = 0;
                return 1;
            }
        }
    }
    if (!r->len)
        return 0;
    long need = record_length(r, r->data, r->len, r->offset, diag);
    if (need < 0)
        return r->failed = (int)need;
    if (need == 0 || (size_t)need > r->len) {
        memcpy(r->carry, r->data, r->len);
        r->ncarry = r->len;
        r->data += r->len;
        r->len = 0;
        return 0;
    }
    parse_record(r, r->data, r->offset, rec);
    r->data += need;
    r->len -= (size_t)need;
    r->offset += (uint64_t)need;
    return 1;
}

bool tv_reader_position(const rvt_tv_reader *r, struct in_place *at) {
    if (r->ncarry || r->failed)
        return false;
    *at = (struct in_place){r->data, r->len, r->offset, r->last_req_op};
    return true;
}

void tv_reader_move_to(rvt_tv_reader *r, const struct in_place *at) {
    r->data = at->b;
    r->len = at->len;
    r->offset = at->offset;
    r->last_req_op = at->last_req_op;
}

int rvt_tv_reader_next(rvt_tv_reader *r, rvt_tv_record *rec, rvt_diag *diag) {
    if (r->failed)
        return r->failed;
    bool edge;
    if (read_in_place(r, rec, 1, &edge))
        return 1;
    return next_careful(r, rec, diag);
}

long rvt_tv_reader_read(rvt_tv_reader *r, rvt_tv_record *recs, size_t max, rvt_diag *diag) {
    size_t n = 0;
    while (n < max) {
        bool edge = false;
        if (!r->failed) {
            n += read_in_place(r, recs + n, max - n, &edge);
            if (edge || n == max)
                break;
        }
        /* Whatever the in-place decoding left: the careful path, a record at a time. */
        int rc = r->failed ? r->failed : next_careful(r, &recs[n], diag);
        if (rc < 0) {
            if (!n)
                return rc;
            /* The records before the error first: the failing record, still
             * unconsumed, fails again on the next call and sets diag then. */
            r->failed = 0;
            break;
        }
        if (rc == 0)
            break;
        if (recs[n++].opcode <= RVT_TV_END)
            break;
    }
    return (long)n;
}

int rvt_tv_reader_finish(rvt_tv_reader *r, rvt_diag *diag) {
    if (r->failed)
        return r->failed;
    if (r->ncarry)
        return r->failed = rvt_diag_set(diag, RVT_E_TRUNC,
                                        "byte %" PRIu64 ": the stream ends inside a %s record (%zu byte%s of it present)",
                                        r->offset, rvt_tv_opcode_name(r->carry[0]), r->ncarry,
                                        r->ncarry == 1 ? "" : "s");
    return RVT_OK;
}
