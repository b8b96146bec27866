/* Inside the tandem module: record widths, and decoding records where they
 * lie in the fed bytes, shared by the reader (format.c) and the verifier's
 * reading thread, which turns whole groups straight into views. */
#ifndef RVTRACE_TANDEM_IN_PLACE_H
#define RVTRACE_TANDEM_IN_PLACE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rvtrace/tandem.h"

static inline unsigned mlen_bytes(const rvt_tv_params *p) { return (p->mlen + 7) / 8; }

static inline bool tv_request_has_data(unsigned op) {
    return op == RVT_TV_STORE || op == RVT_TV_SC || (op >= 4 && op <= 12);
}
static inline bool tv_response_has_data(unsigned op) {
    return op == RVT_TV_LOAD || op == RVT_TV_LR || op == RVT_TV_FETCH || (op >= 4 && op <= 12);
}

/* Bytes of a register's value: FPRs are FLEN wide, the rest XLEN; 0 for an
 * address the parameters give no width (an FPR without F). */
static inline unsigned reg_bytes(const rvt_tv_params *p, unsigned reg) {
    if (reg >= RVT_TV_REG_FPR && reg < RVT_TV_REG_END)
        return p->flen / 8;
    return p->xlen / 8;
}

/* Bytes of an additional-state identifier's data; 0 for an unknown one. */
static inline unsigned state_bytes(const rvt_tv_params *p, unsigned id) {
    switch (id) {
    case RVT_TV_PRIV: case RVT_TV_STDATA8: return 1;
    case RVT_TV_STDATA16: return 2;
    case RVT_TV_STDATA32: return 4;
    case RVT_TV_STDATA64: case RVT_TV_MTIME: return 8;
    case RVT_TV_PADDR: case RVT_TV_EADDR: case RVT_TV_PC_PADDR: return mlen_bytes(p);
    case RVT_TV_PC: return p->xlen / 8;
    default: return 0;
    }
}

/* Bytes that must follow a record's opcode for decode_in_place: the longest
 * record and the 8-byte loads of its last field. */
#define IN_PLACE_MARGIN (RVT_TV_MAX_RECORD + 8)

/* n (1..8) little-endian bytes at b, with 8 bytes readable there. */
static inline uint64_t load_field(const uint8_t *b, unsigned n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, b, 8);
    return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
#else
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
#endif
}

/* Where decode_in_place is in the stream: kept in locals by its callers so
 * that the records' byte stores cannot make the compiler reload them. */
struct in_place {
    const uint8_t *b;
    size_t len;
    uint64_t offset;
    int last_req_op;
};

/* The common case of the reader, fused: a record wholly inside the fed
 * bytes with IN_PLACE_MARGIN bytes readable, decoded with whole-word loads.
 * Returns false for anything unusual (an invalid field, a response without
 * request), which the careful path then reports. */
static inline bool decode_in_place(const rvt_tv_params *p, struct in_place *at, rvt_tv_record *rec) {
    const uint8_t *b = at->b;
    size_t len;
    *rec = (rvt_tv_record){.offset = at->offset, .opcode = b[0]};
    switch (b[0]) {
    case RVT_TV_BEGIN: case RVT_TV_END: case RVT_TV_INCR_PC: case RVT_TV_RESET: case RVT_TV_INIT:
        len = 1;
        break;
    case RVT_TV_REG: {
        unsigned reg = (unsigned)load_field(b + 1, 2);
        if (reg >= RVT_TV_REG_END)
            return false;
        unsigned w = reg_bytes(p, reg);
        if (!w)
            return false;
        rec->reg = (uint16_t)reg;
        rec->value = load_field(b + 3, w);
        len = 3 + w;
        break;
    }
    case RVT_TV_REG_ADD: case RVT_TV_REG_OR: {
        unsigned reg = (unsigned)load_field(b + 1, 2);
        if (reg >= RVT_TV_REG_END || !reg_bytes(p, reg))
            return false;
        rec->reg = (uint16_t)reg;
        rec->value = b[0] == RVT_TV_REG_ADD ? (uint64_t)(int64_t)(int8_t)b[3] : b[3];
        len = 4;
        break;
    }
    case RVT_TV_STATE: {
        unsigned w = state_bytes(p, b[1]);
        if (!w)
            return false;
        rec->id = b[1];
        rec->value = load_field(b + 2, w);
        len = 2 + w;
        break;
    }
    case RVT_TV_MEM_REQ: {
        unsigned w = mlen_bytes(p), op = b[1 + w] & 15, size = b[1 + w] >> 4;
        if (op > RVT_TV_FETCH || size > 3)
            return false;
        rec->addr = load_field(b + 1, w);
        rec->memop = (uint8_t)op;
        rec->size = (uint8_t)size;
        rec->has_data = tv_request_has_data(op);
        len = 2 + w;
        if (rec->has_data) {
            rec->value = load_field(b + len, 1u << size);
            len += 1u << size;
        }
        break;
    }
    case RVT_TV_MEM_RSP: {
        unsigned size = b[1] & 15, result = b[1] >> 4;
        if (at->last_req_op < 0 || size > 3 || result > 1)
            return false;
        rec->memop = (uint8_t)at->last_req_op;
        rec->size = (uint8_t)size;
        rec->result = (uint8_t)result;
        rec->has_data = tv_response_has_data(rec->memop);
        len = 2;
        if (rec->has_data) {
            rec->value = load_field(b + 2, 1u << size);
            len += 1u << size;
        }
        break;
    }
    case RVT_TV_INSN16:
        rec->insn = (uint32_t)load_field(b + 1, 2);
        len = 3;
        break;
    case RVT_TV_INSN32:
        rec->insn = (uint32_t)load_field(b + 1, 4);
        len = 5;
        break;
    default:
        return false;
    }
    at->last_req_op = b[0] == RVT_TV_MEM_REQ ? rec->memop : -1;
    at->b += len;
    at->len -= len;
    at->offset += len;
    return true;
}

/* Where the reader stands, when decode_in_place may go on from there (no
 * record cut by the chunk before, no failure); false otherwise. */
bool tv_reader_position(const rvt_tv_reader *r, struct in_place *at);
/* Moves the reader to `at`, which decode_in_place reached from its position. */
void tv_reader_move_to(rvt_tv_reader *r, const struct in_place *at);

#endif
