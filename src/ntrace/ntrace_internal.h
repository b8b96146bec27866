/* Pieces the N-Trace encoder and decoder share. */
#ifndef RVTRACE_NTRACE_INTERNAL_H
#define RVTRACE_NTRACE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "rvtrace/ntrace.h"

/* A direct jump by its RVT_NXI_* flags (an unconditional transfer the code
 * gives the target of): what trTeInstEnAllJumps reports as a taken branch. */
static inline bool nx_direct_jump(unsigned flags) {
    return (flags & (RVT_NXI_JUMP | RVT_NXI_INDIRECT)) == RVT_NXI_JUMP;
}

/* Return-address stack of the implicit-return optimisation. It behaves like
 * NexRv's: `depth` + 1 slots are written round-robin while a pop steps back
 * over `depth` of them, and the fill level saturates at `depth`. The decoder
 * must pop exactly what the encoder popped, so both use this one model. */
typedef struct nx_call_stack {
    uint64_t slot[RVT_NTRACE_MAX_CALL_STACK + 1];
    unsigned top, count, depth;
    bool counter; /* count only, every pop of a non-empty stack matches */
} nx_call_stack;

enum nx_pop_result { NX_POP_EMPTY, NX_POP_ADDR, NX_POP_ANY };

static inline void nx_stack_init(nx_call_stack *s, unsigned depth, bool counter) {
    s->top = s->count = 0;
    s->depth = depth > RVT_NTRACE_MAX_CALL_STACK ? RVT_NTRACE_MAX_CALL_STACK : depth;
    s->counter = counter;
    s->slot[0] = 0;
}

/* The slot the next push writes (with a depth and no counter). */
static inline unsigned nx_stack_next_slot(const nx_call_stack *s) { return s->top >= s->depth ? 0 : s->top + 1; }

static inline void nx_stack_push(nx_call_stack *s, uint64_t ret) {
    if (s->depth == 0)
        return;
    if (!s->counter) {
        s->top = nx_stack_next_slot(s);
        s->slot[s->top] = ret;
    }
    if (s->count < s->depth)
        s->count++;
}

/* Whether a pop would give a return address. */
static inline bool nx_stack_has_address(const nx_call_stack *s) { return s->count > 0 && !s->counter; }

static inline enum nx_pop_result nx_stack_pop(nx_call_stack *s, uint64_t *ret) {
    if (s->count == 0)
        return NX_POP_EMPTY;
    s->count--;
    if (s->counter)
        return NX_POP_ANY;
    *ret = s->slot[s->top];
    s->top = s->top == 0 ? s->depth - 1 : s->top - 1;
    return NX_POP_ADDR;
}

/* Whether two stacks give the same pops (slots beyond `count` do not matter). */
static inline bool nx_stack_same(const nx_call_stack *a, const nx_call_stack *b) {
    if (a->count != b->count || a->depth != b->depth || a->counter != b->counter)
        return false;
    unsigned ta = a->top, tb = b->top;
    for (unsigned i = 0; i < a->count && !a->counter; i++) {
        if (a->slot[ta] != b->slot[tb])
            return false;
        ta = ta == 0 ? a->depth - 1 : ta - 1;
        tb = tb == 0 ? b->depth - 1 : tb - 1;
    }
    return true;
}

#endif
