/* For the decoder fuzz targets: the flow a decoder gives through its block
 * sink or its run sink, opened up into addresses, must be the flow the same
 * decoder gives one address at a time. The block and run paths have code of
 * their own (straight runs passed whole, blocks joined, a reported address
 * held for the run after it, walks kept and replayed), so they are decoded
 * side by side and compared. */
#ifndef RVTRACE_FUZZ_FLOW_H
#define RVTRACE_FUZZ_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "rvtrace/flow.h"

typedef struct {
    uint64_t *pcs;
    size_t n, cap;
    bool full; /* the limit was reached: only the first `cap` count */
    rvt_code_fetch fetch;
} flow_list;

static int flow_add_pc(void *user, uint64_t pc) {
    flow_list *l = user;
    if (l->n == l->cap) {
        l->full = true;
        return 1;
    }
    l->pcs[l->n++] = pc;
    return 0;
}

/* A block is sequential code: each instruction's size gives the next. */
static int flow_add_block(void *user, uint64_t start, uint64_t end, uint32_t n) {
    flow_list *l = user;
    uint64_t pc = start;
    for (uint32_t i = 0; i < n; i++) {
        rvt_insn in;
        if (flow_add_pc(l, pc))
            return 1;
        if (i + 1 == n)
            break; /* (a lone reported address may be outside the code) */
        if (!l->fetch(NULL, pc, &in))
            abort(); /* a block over code the decoder could not have read */
        pc += in.len;
    }
    (void)end;
    return 0;
}

/* A kept walk: its blocks, which must be the ones its id came with before
 * (ids are not reused for other blocks), and as many instructions as it
 * says. */
static inline int flow_add_walk(void *user, uint64_t id, const rvt_block *blocks, uint32_t n, uint64_t insns) {
    enum { SEEN = 4096 };
    static struct {
        uint64_t id, hash;
    } seen[SEEN];
    uint64_t hash = n, count = 0;
    for (uint32_t i = 0; i < n; i++) {
        hash = (hash ^ blocks[i].start ^ (uint64_t)blocks[i].span << 32 ^ blocks[i].n) * 0x9e3779b97f4a7c15u;
        count += blocks[i].n;
    }
    if (id == 0 || count != insns || (seen[id % SEEN].id == id && seen[id % SEEN].hash != hash))
        abort();
    seen[id % SEEN].id = id;
    seen[id % SEEN].hash = hash;
    for (uint32_t i = 0; i < n; i++)
        if (flow_add_block(user, blocks[i].start, rvt_block_end(&blocks[i]), blocks[i].n))
            return 1;
    return 0;
}

/* A run: its sizes are its code's. */
static int flow_add_run(void *user, uint64_t start, uint32_t n, uint64_t wide) {
    flow_list *l = user;
    uint64_t pc = start;
    if (n == 0 || n > RVT_RUN_MAX)
        abort();
    for (uint32_t i = 0; i < n; i++) {
        rvt_insn in;
        if (flow_add_pc(l, pc))
            return 1;
        if (!l->fetch(NULL, pc, &in) || in.len != ((wide >> i) & 1 ? 4u : 2u))
            abort(); /* a run over code the decoder could not have read, or of other sizes */
        pc += in.len;
    }
    return 0;
}

static int flow_ignore_trap(void *user, const rvt_trap_event *trap) {
    (void)user;
    (void)trap;
    return 0;
}

/* Aborts where the two lists differ within what both hold. */
static void flow_compare(const flow_list *by_pc, const flow_list *by_block) {
    if (!by_pc->full && !by_block->full && by_pc->n != by_block->n)
        abort();
    size_t n = by_pc->n < by_block->n ? by_pc->n : by_block->n;
    for (size_t i = 0; i < n; i++)
        if (by_pc->pcs[i] != by_block->pcs[i])
            abort();
}

#endif
