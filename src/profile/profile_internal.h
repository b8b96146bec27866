/* What the profile keeps, shared by its counting core (profile.c) and the
 * writers of other tools' formats (formats.c, report.c). */
#ifndef RVTRACE_PROFILE_INTERNAL_H
#define RVTRACE_PROFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rvtrace/profile.h"

enum { KIND_PLAIN, KIND_CALL, KIND_RETURN, KIND_BRANCH };

/* One executed address. */
typedef struct addr_slot {
    uint64_t addr;
    uint64_t count;
    uint64_t taken; /* conditional branches: how often the next instruction was the target */
    const char *sym;
    uint8_t kind, len;
    bool used;
} addr_slot;

/* A node of the call-stack tree: `sym` entered from node `parent`. */
typedef struct frame {
    uint32_t parent;
    const char *sym;
    uint64_t self;
} frame;

/* Calls from one call site to one target. */
typedef struct call_arc {
    uint64_t site, target;
    uint64_t count;
    uint64_t inclusive; /* instructions retired inside the calls, callee and below, up to its return */
} call_arc;

/* A run of `n` sequential instructions from `start`, counted as a whole
 * (one cache line: every run the decoder hands on is looked up). */
typedef struct run_slot {
    _Alignas(64) uint64_t start;
    uint64_t pending;    /* passes not yet added to its addresses' counts */
    uint64_t taken;      /* of them, passes its last instruction (a branch) was taken: not yet added */
    uint64_t after;      /* the address after its last instruction (of kind last_kind, last_len bytes) */
    const char *sym;
    struct run_slot *next; /* the run that followed it last time (loops repeat theirs): no lookup */
    uint32_t n;
    uint8_t last_kind, last_len;
    bool simple;         /* one function, no return before the last instruction */
    bool used;
} run_slot;

enum { RECENT_RUNS = 4096 };

/* A walk handed out again (rvt_profile_walk). When its blocks after the
 * first stay in the function of the first, without calls or returns (it is
 * `whole`), the call stack is left as the first block leaves it: its passes
 * are counted on it, and added to its runs (all but the first, counted on
 * its own) and to the branches taken between them when somebody reads the
 * counts, the run table moves or another walk takes the slot. A walk whose
 * runs are all simple but that calls or returns or changes function gets a
 * plan (walk_plan) for the call-stack node its first block leaves: the
 * calls and returns on the way, at which instruction, what each node
 * retires and where the walk ends; its passes are counted as a whole
 * walk's. The others go block by block, without finding that out again. */
enum { WALK_RUNS = 48, WALK_SLOT_BITS = 13 }; /* two ways a set, a set a cache line */
/* What a pass reads; the rest lies apart. */
typedef struct walk_slot {
    _Alignas(32) uint64_t id;
    uint64_t pending; /* passes not yet added to its runs */
    uint32_t rest;    /* instructions after the first block */
    uint32_t first, last; /* the first and last blocks' places in the run table (the blocks are not read again) */
    uint8_t nruns;    /* 0: none */
    bool whole;
    bool fresh;       /* found since the other way of its set was (the other goes first) */
    uint8_t plan;     /* WALK_* */
} walk_slot;
enum { WALK_NO_PLAN, WALK_PLANNABLE, WALK_PLANNED };
typedef struct walk_runs {
    uint64_t taken; /* bit i: run i ends in a branch taken to run i + 1 */
    uint64_t moved; /* bit i: run i + 1 does not start where run i ends */
    uint32_t runs[WALK_RUNS]; /* places in the run table */
} walk_runs;
/* What a planned walk does after its first block, from call-stack node
 * `from`: calls (an arc) and returns (WALK_RETURN), each at `at`
 * instructions after that block, and instructions retired per node. */
enum { WALK_PLAN_STEPS = 6, WALK_RETURN = UINT32_MAX };
typedef struct walk_plan {
    uint32_t from, to; /* the node after the first block, and after the last */
    uint8_t ncalls, nnodes;
    struct {
        uint32_t arc, at;
    } calls[WALK_PLAN_STEPS];
    struct {
        uint32_t node, insns;
    } nodes[WALK_PLAN_STEPS];
} walk_plan;

typedef struct open_call {
    uint32_t arc;
    uint64_t start; /* instructions retired before the callee's first one */
} open_call;

struct rvt_profile {
    rvt_image *img;
    rvt_code_fetch fetch; /* NULL: the image's code */
    void *fetch_user;
    addr_slot *slots;
    size_t cap, used;
    frame *frames;
    size_t nframes, frames_cap;
    uint32_t *children; /* (parent, symbol) -> frame index + 1 */
    size_t children_cap;
    uint32_t cur;
    call_arc *arcs;
    size_t narcs, arcs_cap;
    uint32_t *arc_index; /* (site, target) -> arc index + 1 */
    size_t arc_index_cap;
    run_slot *runs;
    size_t runs_cap, runs_used;
    /* The run last found for a (start, length), by a cheap index of the two
     * (NULL: none since the table last moved): a run that did not follow its
     * predecessor last time is found without the table's probe. */
    run_slot *recent_runs[RECENT_RUNS];
    walk_slot *walks; /* 2^WALK_SLOT_BITS of them, from the first walk on */
    walk_runs *walk_runs; /* (the same places) */
    walk_plan *walk_plans; /* (the same places) */
    /* Of each set of walks, the set the walk after it was in last time (the
     * decoders' walks come in the order their loops send them), and the
     * set of the last walk, + 1 (0: none) */
    uint32_t *walk_next, walk_last;
    open_call *open; /* calls not yet returned from, innermost last */
    size_t nopen, open_cap;
    uint64_t open_dropped; /* calls deeper than the open stack holds (their returns are skipped too) */
    run_slot *prev_run; /* the run the previous instruction ended, when counted as one */
    bool have_prev;
    /* The previous instruction, where prev_run is NULL (else that run's last
     * one: a run counted whole does not write them out) */
    uint8_t prev_kind, prev_len;
    uint64_t prev_addr;
    uint64_t total;
};

extern const char rvt_profile_unknown[]; /* the symbol of code outside every symbol */

/* The executed addresses in address order (NULL when memory runs out);
 * the caller frees the array. */
const addr_slot **rvt_profile_sorted_slots(rvt_profile *p, size_t *n);
/* Spread the passes counted on runs over their addresses; every reader of
 * per-address counts calls it first. */
void rvt_profile_settle(rvt_profile *p);
/* The slot of an executed address, or NULL. */
const addr_slot *rvt_profile_find(const rvt_profile *p, uint64_t addr);
/* Charge the calls still open (the trace ended inside them) with what ran
 * up to the end; writers call it before they read inclusive costs. */
void rvt_profile_close_calls(rvt_profile *p);
/* An entry's calls as gprof shows them: "N", or "N+M" with M recursive. */
void rvt_profile_format_calls(const rvt_profile_entry *e, char *buf, size_t cap);

#endif
