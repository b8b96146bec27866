/* Profile, folded call stacks and coverage from the instruction flow.
 *
 * Every executed address gets one slot in a hash table (its count, symbol,
 * length and whether it calls or returns), filled the first time it is
 * seen, so each retired instruction costs one lookup. Call stacks are a
 * tree of (caller node, function) nodes; the current node moves only at
 * calls, returns and transfers between functions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

const char rvt_profile_unknown[] = "?";


static size_t hash64(uint64_t v) {
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    return (size_t)v;
}

int rvt_profile_new(rvt_profile **out, rvt_image *img) {
    rvt_profile *p = calloc(1, sizeof *p);
    if (!p)
        return RVT_E_NOMEM;
    p->img = img;
    p->cap = 1024;
    p->children_cap = 256;
    p->frames_cap = 64;
    p->slots = calloc(p->cap, sizeof *p->slots);
    p->children = calloc(p->children_cap, sizeof *p->children);
    p->frames = calloc(p->frames_cap, sizeof *p->frames);
    if (!p->slots || !p->children || !p->frames) {
        rvt_profile_free(p);
        return RVT_E_NOMEM;
    }
    p->frames[0] = (frame){0, NULL, 0}; /* the root, above the outermost function */
    p->nframes = 1;
    *out = p;
    return 0;
}

void rvt_profile_set_fetch(rvt_profile *p, rvt_code_fetch fetch, void *user) {
    p->fetch = fetch;
    p->fetch_user = user;
}

void rvt_profile_free(rvt_profile *p) {
    if (!p)
        return;
    free(p->slots);
    free(p->children);
    free(p->frames);
    free(p->arcs);
    free(p->arc_index);
    free(p->open);
    free(p->runs);
    rvt_pages_free(p->walks, sizeof *p->walks << WALK_SLOT_BITS);
    rvt_pages_free(p->walk_runs, sizeof *p->walk_runs << WALK_SLOT_BITS);
    rvt_pages_free(p->walk_plans, sizeof *p->walk_plans << WALK_SLOT_BITS);
    free(p->walk_next);
    free(p);
}

uint64_t rvt_profile_total(const rvt_profile *p) { return p->total; }

static bool grow_slots(rvt_profile *p) {
    size_t cap = p->cap * 2;
    addr_slot *s = calloc(cap, sizeof *s);
    if (!s)
        return false;
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->slots[i].used)
            continue;
        size_t k = hash64(p->slots[i].addr) & (cap - 1);
        while (s[k].used)
            k = (k + 1) & (cap - 1);
        s[k] = p->slots[i];
    }
    free(p->slots);
    p->slots = s;
    p->cap = cap;
    return true;
}

static addr_slot *lookup(const rvt_profile *p, uint64_t addr) {
    for (size_t k = hash64(addr) & (p->cap - 1); p->slots[k].used; k = (k + 1) & (p->cap - 1))
        if (p->slots[k].addr == addr)
            return &p->slots[k];
    return NULL;
}

const addr_slot *rvt_profile_find(const rvt_profile *p, uint64_t addr) { return lookup(p, addr); }

static addr_slot *slot_for(rvt_profile *p, uint64_t addr) {
    size_t k = hash64(addr) & (p->cap - 1);
    while (p->slots[k].used) {
        if (p->slots[k].addr == addr)
            return &p->slots[k];
        k = (k + 1) & (p->cap - 1);
    }
    if (2 * (p->used + 1) > p->cap) {
        if (!grow_slots(p))
            return NULL;
        return slot_for(p, addr);
    }
    addr_slot *s = &p->slots[k];
    uint64_t off;
    const char *sym = rvt_image_symbolize(p->img, addr, &off);
    rvt_insn fetched;
    const rvt_insn *in = p->fetch ? (p->fetch(p->fetch_user, addr, &fetched) ? &fetched : NULL)
                                  : rvt_image_insn(p->img, addr);
    *s = (addr_slot){addr, 0, 0, sym ? sym : rvt_profile_unknown, KIND_PLAIN, in ? in->len : 2, true};
    if (in && in->jclass == RVT_JUMP_CALL)
        s->kind = KIND_CALL;
    else if (in && in->jclass == RVT_JUMP_RETURN)
        s->kind = KIND_RETURN;
    else if (in && in->cf == RVT_CF_BRANCH)
        s->kind = KIND_BRANCH;
    p->used++;
    return s;
}

static size_t child_hash(uint32_t parent, const char *sym) {
    return hash64((uint64_t)parent * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)sym);
}

static bool grow_children(rvt_profile *p) {
    size_t cap = p->children_cap * 2;
    uint32_t *c = calloc(cap, sizeof *c);
    if (!c)
        return false;
    for (size_t i = 0; i < p->children_cap; i++) {
        uint32_t f = p->children[i];
        if (!f)
            continue;
        size_t k = child_hash(p->frames[f - 1].parent, p->frames[f - 1].sym) & (cap - 1);
        while (c[k])
            k = (k + 1) & (cap - 1);
        c[k] = f;
    }
    free(p->children);
    p->children = c;
    p->children_cap = cap;
    return true;
}

/* The frame for `sym` called from frame `parent`, made on first use;
 * UINT32_MAX when memory runs out. */
static uint32_t child(rvt_profile *p, uint32_t parent, const char *sym) {
    size_t k = child_hash(parent, sym) & (p->children_cap - 1);
    for (uint32_t f; (f = p->children[k]) != 0; k = (k + 1) & (p->children_cap - 1))
        if (p->frames[f - 1].parent == parent && p->frames[f - 1].sym == sym)
            return f - 1;
    if (2 * (p->nframes + 1) > p->children_cap) {
        if (!grow_children(p))
            return UINT32_MAX;
        return child(p, parent, sym);
    }
    if (p->nframes == p->frames_cap) {
        frame *f = realloc(p->frames, 2 * p->frames_cap * sizeof *f);
        if (!f)
            return UINT32_MAX;
        p->frames = f;
        p->frames_cap *= 2;
    }
    p->frames[p->nframes] = (frame){parent, sym, 0};
    p->children[k] = (uint32_t)++p->nframes;
    return (uint32_t)(p->nframes - 1);
}

static size_t arc_hash(uint64_t site, uint64_t target) { return hash64(site * 0x9e3779b97f4a7c15ull ^ target); }

static bool grow_arc_index(rvt_profile *p) {
    size_t cap = p->arc_index_cap ? 2 * p->arc_index_cap : 256;
    uint32_t *x = calloc(cap, sizeof *x);
    if (!x)
        return false;
    for (size_t i = 0; i < p->narcs; i++) {
        size_t k = arc_hash(p->arcs[i].site, p->arcs[i].target) & (cap - 1);
        while (x[k])
            k = (k + 1) & (cap - 1);
        x[k] = (uint32_t)i + 1;
    }
    free(p->arc_index);
    p->arc_index = x;
    p->arc_index_cap = cap;
    return true;
}

/* The arc for calls from `site` to `target`, made on first use;
 * UINT32_MAX when memory runs out. */
static uint32_t arc_for(rvt_profile *p, uint64_t site, uint64_t target) {
    if (2 * (p->narcs + 1) > p->arc_index_cap && !grow_arc_index(p))
        return UINT32_MAX;
    size_t k = arc_hash(site, target) & (p->arc_index_cap - 1);
    for (uint32_t a; (a = p->arc_index[k]) != 0; k = (k + 1) & (p->arc_index_cap - 1))
        if (p->arcs[a - 1].site == site && p->arcs[a - 1].target == target)
            return a - 1;
    if (p->narcs == p->arcs_cap) {
        size_t cap = p->arcs_cap ? 2 * p->arcs_cap : 64;
        call_arc *a = realloc(p->arcs, cap * sizeof *a);
        if (!a)
            return UINT32_MAX;
        p->arcs = a;
        p->arcs_cap = cap;
    }
    p->arcs[p->narcs] = (call_arc){site, target, 0, 0};
    p->arc_index[k] = (uint32_t)++p->narcs;
    return (uint32_t)(p->narcs - 1);
}

/* Code that calls without returning (a kernel's context switches, longjmp)
 * must not make the open stack grow with the trace: deeper calls are only
 * counted. */
enum { MAX_OPEN_CALLS = 1 << 16 };

/* A call along arc `a` whose callee starts after `start` instructions. */
static bool open_arc(rvt_profile *p, uint32_t a, uint64_t start) {
    p->arcs[a].count++;
    if (p->nopen == MAX_OPEN_CALLS) {
        p->open_dropped++;
        return true;
    }
    if (p->nopen == p->open_cap) {
        size_t cap = p->open_cap ? 2 * p->open_cap : 64;
        open_call *o = realloc(p->open, cap * sizeof *o);
        if (!o)
            return false;
        p->open = o;
        p->open_cap = cap;
    }
    p->open[p->nopen++] = (open_call){a, start};
    return true;
}

static bool enter_call(rvt_profile *p, uint64_t site, uint64_t target) {
    uint32_t a = arc_for(p, site, target);
    return a != UINT32_MAX && open_arc(p, a, p->total - 1);
}

/* The innermost open call returned after `end` instructions in all. */
static void close_innermost(rvt_profile *p, uint64_t end) {
    const open_call *o = &p->open[--p->nopen];
    p->arcs[o->arc].inclusive += end - o->start;
}

/* A return, the callee's last instruction the `end`th. */
static void leave_call_at(rvt_profile *p, uint64_t end) {
    if (p->open_dropped)
        p->open_dropped--;
    else if (p->nopen)
        close_innermost(p, end);
}

static void leave_call(rvt_profile *p) {
    leave_call_at(p, p->total - 1); /* the instruction after the return is not the callee's */
}

void rvt_profile_close_calls(rvt_profile *p) {
    p->open_dropped = 0;
    while (p->nopen)
        close_innermost(p, p->total);
}

/* The move from the previous instruction to `pc` (in function `sym`):
 * calls, returns and taken branches, and the call-stack node `pc` runs in,
 * which gets one instruction. p->total already counts `pc`. */
/* The address of a run's last instruction. */
static inline uint64_t run_last(const run_slot *r) { return r->after - r->last_len; }

static inline __attribute__((always_inline)) bool step_to(rvt_profile *p, uint64_t pc, const char *sym) {
    uint32_t cur = p->cur;
    if (p->have_prev) {
        run_slot *run = p->prev_run;
        unsigned prev_kind = run ? run->last_kind : p->prev_kind;
        uint64_t prev_after = run ? run->after : p->prev_addr + p->prev_len;
        bool transfer = pc != prev_after;
        if (prev_kind == KIND_CALL && transfer) {
            if (!enter_call(p, run ? run_last(run) : p->prev_addr, pc))
                return false;
            cur = child(p, cur, sym);
        } else if (prev_kind == KIND_RETURN) {
            leave_call(p);
            if (cur != 0 && p->frames[cur].parent != 0)
                cur = p->frames[cur].parent;
        } else if (prev_kind == KIND_BRANCH && transfer) {
            if (run) /* the address is settled with the run's passes */
                run->taken++;
            else
                lookup(p, p->prev_addr)->taken++;
        }
    }
    if (cur != UINT32_MAX && (cur == 0 || p->frames[cur].sym != sym))
        cur = child(p, cur == 0 ? 0 : p->frames[cur].parent, sym);
    if (cur == UINT32_MAX)
        return false;
    p->frames[cur].self++;
    p->cur = cur;
    p->have_prev = true;
    return true;
}

static const addr_slot *add(rvt_profile *p, uint64_t pc) {
    addr_slot *s = slot_for(p, pc);
    if (!s)
        return NULL;
    s->count++;
    p->total++;
    if (!step_to(p, pc, s->sym))
        return NULL;
    p->prev_kind = s->kind;
    p->prev_len = s->len;
    p->prev_addr = pc;
    p->prev_run = NULL;
    return s;
}

int rvt_profile_pc(void *profile, uint64_t pc) { return add(profile, pc) ? 0 : RVT_E_NOMEM; }

/* ---- Runs of sequential instructions ----
 * A run the decoder reports again and again costs one lookup: its passes
 * are counted on the run and spread over its addresses only when somebody
 * reads the counts (settle). Runs inside one function with no return before
 * their last instruction leave the call stack alone after their first
 * instruction; the others go instruction by instruction. */

/* One multiply, the slot from its top bits (`cap` a power of two): every
 * block the decoder hands on is looked up. */
static size_t run_slot_index(uint64_t start, uint32_t n, size_t cap) {
    uint64_t h = (start ^ (uint64_t)n << 40) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> (64 - __builtin_ctzll(cap)));
}

/* Whether r (NULL: none) is the run of n instructions from start. */
static inline bool run_is(const run_slot *r, uint64_t start, uint32_t n) { return r && r->start == start && r->n == n; }

static size_t recent_run_index(uint64_t start, uint32_t n) {
    return (size_t)((start >> 1) ^ (uint64_t)n << 5) & (RECENT_RUNS - 1);
}

/* The two slots a walk may have. */
static walk_slot *walk_set(rvt_profile *p, uint64_t id) {
    return &p->walks[((id * 0x9e3779b97f4a7c15ull) >> (64 - WALK_SLOT_BITS)) & ~(size_t)1];
}

static void spread_walk(rvt_profile *p, walk_slot *w) {
    if (!w->pending)
        return;
    const walk_runs *r = &p->walk_runs[w - p->walks];
    for (uint32_t i = 1; i < w->nruns; i++)
        p->runs[r->runs[i]].pending += w->pending;
    for (uint64_t t = r->taken; t; t &= t - 1)
        p->runs[r->runs[__builtin_ctzll(t)]].taken += w->pending;
    w->pending = 0;
}

static void spread_walks(rvt_profile *p) {
    for (size_t i = 0; p->walks && i < (size_t)1 << WALK_SLOT_BITS; i++)
        spread_walk(p, &p->walks[i]);
}

static bool grow_runs(rvt_profile *p) {
    if (p->walks) { /* (they name runs by their place in the table) */
        spread_walks(p);
        memset(p->walks, 0, sizeof *p->walks << WALK_SLOT_BITS); /* (walk_runs: written with a walk) */
    }
    size_t cap = p->runs_cap ? 2 * p->runs_cap : 1024;
    run_slot *r = aligned_alloc(_Alignof(run_slot), cap * sizeof *r);
    if (!r)
        return false;
    memset(r, 0, cap * sizeof *r);
    for (size_t i = 0; i < p->runs_cap; i++) {
        if (!p->runs[i].used)
            continue;
        size_t k = run_slot_index(p->runs[i].start, p->runs[i].n, cap);
        while (r[k].used)
            k = (k + 1) & (cap - 1);
        r[k] = p->runs[i];
    }
    for (size_t i = 0; i < cap; i++)
        r[i].next = NULL; /* they point into the old table */
    if (p->prev_run) { /* its last instruction, which the next step reads */
        p->prev_kind = p->prev_run->last_kind;
        p->prev_len = p->prev_run->last_len;
        p->prev_addr = run_last(p->prev_run);
    }
    free(p->runs);
    p->runs = r;
    p->runs_cap = cap;
    p->prev_run = NULL; /* moved: the next taken branch is counted on its address */
    memset(p->recent_runs, 0, sizeof p->recent_runs);
    return true;
}

static run_slot *run_for(rvt_profile *p, uint64_t start, uint32_t n) {
    size_t k = 0;
    if (p->runs_cap) {
        k = run_slot_index(start, n, p->runs_cap);
        for (; p->runs[k].used; k = (k + 1) & (p->runs_cap - 1))
            if (run_is(&p->runs[k], start, n))
                return p->recent_runs[recent_run_index(start, n)] = &p->runs[k];
    }
    /* a new run: the table grows first when it would be more than half full */
    if (2 * (p->runs_used + 1) > p->runs_cap) {
        if (!grow_runs(p))
            return NULL;
        k = run_slot_index(start, n, p->runs_cap);
        while (p->runs[k].used)
            k = (k + 1) & (p->runs_cap - 1);
    }
    run_slot r = {.start = start, .n = n, .simple = true, .used = true};
    uint64_t pc = start;
    for (uint32_t i = 0; i < n; i++) {
        const addr_slot *s = slot_for(p, pc); /* every address gets its slot now */
        if (!s)
            return NULL;
        if (i == 0)
            r.sym = s->sym;
        if (s->sym != r.sym || (i + 1 < n && s->kind == KIND_RETURN))
            r.simple = false;
        r.last_kind = s->kind;
        r.last_len = s->len;
        pc += s->len;
        r.after = pc;
    }
    p->runs[k] = r;
    p->runs_used++;
    return p->recent_runs[recent_run_index(start, n)] = &p->runs[k];
}

/* Every run add_run does not take straight away. */
static __attribute__((noinline)) int add_run_slowly(rvt_profile *p, uint64_t start, uint32_t n) {
    if (n == 0)
        return 0;
    run_slot *prev = p->prev_run, *r = prev ? prev->next : NULL;
    if (!run_is(r, start, n)) {
        if (!(r = run_for(p, start, n)))
            return RVT_E_NOMEM;
        if (p->prev_run) /* (the table did not move) */
            p->prev_run->next = r;
    }
    if (!r->simple) {
        for (uint64_t pc = start; n-- > 0;) {
            const addr_slot *s = add(p, pc);
            if (!s)
                return RVT_E_NOMEM;
            pc += s->len;
        }
        return 0;
    }
    r->pending++;
    p->total++;
    if (!step_to(p, start, r->sym))
        return RVT_E_NOMEM;
    p->total += n - 1;
    p->frames[p->cur].self += n - 1;
    p->prev_run = r;
    return 0;
}

/* Most runs follow the run that followed the previous one last time, or
 * one found lately, in the same function, after a branch or in sequence:
 * what step_to would do then is only to count a taken branch, and the
 * lookup is a pointer or two. */
static inline __attribute__((always_inline)) int add_run(rvt_profile *p, uint64_t start, uint32_t n) {
    run_slot *prev = p->prev_run, *r;
    uint32_t cur = p->cur;
    if (prev && cur != 0 && (prev->last_kind == KIND_PLAIN || prev->last_kind == KIND_BRANCH)) {
        r = prev->next;
        if (!run_is(r, start, n)) {
            r = p->recent_runs[recent_run_index(start, n)];
            if (!run_is(r, start, n))
                return add_run_slowly(p, start, n);
            prev->next = r;
        }
        if (r->simple && p->frames[cur].sym == r->sym) {
            prev->taken += prev->last_kind == KIND_BRANCH && start != prev->after;
            r->pending++;
            p->total += n;
            p->frames[cur].self += n;
            p->prev_run = r;
            return 0;
        }
    }
    return add_run_slowly(p, start, n);
}

void rvt_profile_settle(rvt_profile *p) {
    spread_walks(p);
    for (size_t i = 0; i < p->runs_cap; i++) {
        run_slot *r = &p->runs[i];
        if (!r->used || (!r->pending && !r->taken))
            continue;
        uint64_t pc = r->start;
        for (uint32_t k = 0; k < r->n; k++) {
            addr_slot *s = lookup(p, pc);
            s->count += r->pending;
            pc += s->len;
        }
        r->pending = 0;
        lookup(p, run_last(r))->taken += r->taken;
        r->taken = 0;
    }
}

int rvt_profile_block(void *profile, uint64_t start, uint64_t end, uint32_t n) {
    (void)end;
    return add_run(profile, start, n);
}

/* The blocks after the first counted one by one, and the walk kept. `first`:
 * the run of the first block (NULL: not known). */
static __attribute__((noinline)) int add_walk(rvt_profile *p, uint64_t id, const rvt_block *b, uint32_t n,
                                              run_slot *first) {
    run_slot *runs[WALK_RUNS];
    const run_slot *table = p->runs;
    runs[0] = first;
    for (uint32_t i = 1; i < n; i++) {
        if (add_run(p, b[i].start, b[i].n))
            return RVT_E_NOMEM;
        if (i < WALK_RUNS)
            runs[i] = run_is(p->prev_run, b[i].start, b[i].n) ? p->prev_run : NULL;
    }
    if (n > WALK_RUNS)
        return 0; /* (counted all the same) */
    if (!p->walks) { /* (all, or none: the walks' runs and plans are read wherever walks are) */
        walk_slot *walks = rvt_pages_alloc(sizeof *p->walks << WALK_SLOT_BITS);
        walk_runs *runs_of = rvt_pages_alloc(sizeof *p->walk_runs << WALK_SLOT_BITS);
        walk_plan *plans = rvt_pages_alloc(sizeof *p->walk_plans << WALK_SLOT_BITS);
        uint32_t *next = calloc((size_t)1 << (WALK_SLOT_BITS - 1), sizeof *next);
        if (!walks || !runs_of || !plans || !next) {
            rvt_pages_free(walks, sizeof *p->walks << WALK_SLOT_BITS);
            rvt_pages_free(runs_of, sizeof *p->walk_runs << WALK_SLOT_BITS);
            rvt_pages_free(plans, sizeof *p->walk_plans << WALK_SLOT_BITS);
            free(next);
            return RVT_E_NOMEM;
        }
        p->walks = walks;
        p->walk_runs = runs_of;
        p->walk_plans = plans;
        p->walk_next = next;
    }
    /* The runs not found on the way; a table that grew moved them all. */
    for (uint32_t i = 0; i < n;) {
        if (!runs[i] && !(runs[i] = run_for(p, b[i].start, b[i].n)))
            return RVT_E_NOMEM;
        if (p->runs != table) { /* all again */
            table = p->runs;
            memset(runs, 0, n * sizeof *runs);
            i = 0;
        } else {
            i++;
        }
    }
    walk_slot *set = walk_set(p, id), *w = &set[set[0].fresh];
    walk_runs *wr = &p->walk_runs[w - p->walks];
    spread_walk(p, w); /* (the walk that had the slot) */
    *w = (walk_slot){.id = id, .first = (uint32_t)(runs[0] - p->runs), .last = (uint32_t)(runs[n - 1] - p->runs),
                     .nruns = (uint8_t)n, .whole = true, .fresh = true};
    set[w == set].fresh = false;
    uint64_t rest = 0;
    bool plannable = true;
    wr->taken = wr->moved = 0;
    for (uint32_t i = 0; i < n; i++) {
        const run_slot *r = runs[i];
        wr->runs[i] = (uint32_t)(r - p->runs);
        w->whole &= r->simple && r->sym == runs[0]->sym;
        if (i + 1 < n) {
            w->whole &= r->last_kind == KIND_PLAIN || r->last_kind == KIND_BRANCH;
            if (b[i + 1].start != r->after) {
                wr->moved |= 1ull << i;
                if (r->last_kind == KIND_BRANCH)
                    wr->taken |= 1ull << i;
            }
        }
        if (i) {
            rest += b[i].n;
            plannable &= r->simple;
        }
    }
    w->whole &= rest <= UINT32_MAX;
    w->rest = (uint32_t)rest;
    w->plan = !w->whole && plannable && rest <= UINT32_MAX ? WALK_PLANNABLE : WALK_NO_PLAN;
    return 0;
}

/* Walk `w`'s plan from call-stack node `from`, worked out as step_to and
 * add_run would go through its runs after the first: 0, 1 when it takes
 * more steps than a plan holds, or RVT_E_NOMEM. */
static int make_plan(rvt_profile *p, const walk_slot *w, const walk_runs *wr, walk_plan *plan, uint32_t from) {
    plan->from = from;
    plan->ncalls = plan->nnodes = 0;
    uint32_t cur = from, at = 0;
    for (uint32_t i = 1; i < w->nruns; i++) {
        const run_slot *prev = &p->runs[wr->runs[i - 1]], *r = &p->runs[wr->runs[i]];
        bool call = prev->last_kind == KIND_CALL && ((wr->moved >> (i - 1)) & 1);
        if (call || prev->last_kind == KIND_RETURN) {
            if (plan->ncalls == WALK_PLAN_STEPS)
                return 1;
            uint32_t arc = WALK_RETURN;
            if (call) {
                if ((arc = arc_for(p, run_last(prev), r->start)) == UINT32_MAX)
                    return RVT_E_NOMEM;
                cur = child(p, cur, r->sym);
            } else if (cur != 0 && p->frames[cur].parent != 0) {
                cur = p->frames[cur].parent;
            }
            plan->calls[plan->ncalls].arc = arc;
            plan->calls[plan->ncalls++].at = at;
        }
        if (cur != UINT32_MAX && (cur == 0 || p->frames[cur].sym != r->sym))
            cur = child(p, cur == 0 ? 0 : p->frames[cur].parent, r->sym);
        if (cur == UINT32_MAX)
            return RVT_E_NOMEM;
        uint8_t k = 0;
        while (k < plan->nnodes && plan->nodes[k].node != cur)
            k++;
        if (k == plan->nnodes) {
            if (k == WALK_PLAN_STEPS)
                return 1;
            plan->nodes[k].node = cur;
            plan->nodes[k].insns = 0;
            plan->nnodes++;
        }
        plan->nodes[k].insns += r->n;
        at += r->n;
    }
    plan->to = cur;
    return 0;
}

/* A planned walk after its first block: what going block by block would
 * have done to the call stack, the arcs and the nodes, its passes counted
 * on it. */
static int follow_plan(rvt_profile *p, walk_slot *w, const walk_plan *plan) {
    uint64_t start = p->total;
    for (uint8_t k = 0; k < plan->ncalls; k++) {
        if (plan->calls[k].arc == WALK_RETURN)
            leave_call_at(p, start + plan->calls[k].at);
        else if (!open_arc(p, plan->calls[k].arc, start + plan->calls[k].at))
            return RVT_E_NOMEM;
    }
    for (uint8_t k = 0; k < plan->nnodes; k++)
        p->frames[plan->nodes[k].node].self += plan->nodes[k].insns;
    w->pending++;
    p->total = start + w->rest;
    p->cur = plan->to;
    p->prev_run = &p->runs[w->last];
    return 0;
}

int rvt_profile_walk(void *profile, uint64_t id, const rvt_block *blocks, uint32_t n) {
    rvt_profile *p = profile;
    walk_slot *set = p->walks ? walk_set(p, id) : NULL, *w = NULL;
    if (set) { /* (the walk likely after this one: its set asked for now, a trip to memory) */
        uint32_t at = (uint32_t)((set - p->walks) / 2);
        if (p->walk_last)
            p->walk_next[p->walk_last - 1] = at;
        p->walk_last = at + 1;
        __builtin_prefetch(&p->walks[2 * (size_t)p->walk_next[at]]);
    }
    if (set && (set[0].id == id || set[1].id == id)) {
        w = &set[set[1].id == id];
        w->fresh = true;
        set[w == set].fresh = false;
    }
    if (w && (w->whole || w->plan != WALK_NO_PLAN)) {
        /* (the blocks themselves are not read: memory the decoder wrote long ago) */
        const run_slot *first = &p->runs[w->first];
        if (add_run(p, first->start, first->n))
            return RVT_E_NOMEM;
        if (w->id == id) { /* (the run table did not move: the walk's runs were in it) */
            if (w->whole) { /* the first block left the call stack in the walk's function */
                w->pending++;
                p->total += w->rest;
                p->frames[p->cur].self += w->rest;
                p->prev_run = &p->runs[w->last];
                return 0;
            }
            walk_plan *plan = &p->walk_plans[w - p->walks];
            if (w->plan != WALK_PLANNED || plan->from != p->cur) {
                int rc = make_plan(p, w, &p->walk_runs[w - p->walks], plan, p->cur);
                if (rc < 0)
                    return rc;
                w->plan = rc == 0 ? WALK_PLANNED : WALK_NO_PLAN;
            }
            if (w->plan == WALK_PLANNED)
                return follow_plan(p, w, plan);
        }
    } else if (n == 0 || add_run(p, blocks[0].start, blocks[0].n)) {
        return n ? RVT_E_NOMEM : 0;
    }
    if (w) { /* the rest block by block (known to go so, or the run table moved) */
        for (uint32_t i = 1; i < n; i++)
            if (add_run(p, blocks[i].start, blocks[i].n))
                return RVT_E_NOMEM;
        return 0;
    }
    return n > 1 ? add_walk(p, id, blocks, n, run_is(p->prev_run, blocks[0].start, blocks[0].n) ? p->prev_run : NULL)
                 : 0;
}

int rvt_profile_run(void *profile, uint64_t start, uint32_t n, uint64_t wide) {
    (void)wide; /* the run's slot knows the sizes */
    return add_run(profile, start, n);
}

static int by_sym(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const rvt_profile_entry *)a)->name, y = (uintptr_t)((const rvt_profile_entry *)b)->name;
    return x < y ? -1 : x > y;
}

/* Most instructions first; ties in name order, so that reports do not
 * depend on where symbols were loaded. */
static int by_count(const void *a, const void *b) {
    const rvt_profile_entry *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->name, y->name);
}

size_t rvt_profile_functions(rvt_profile *p, rvt_profile_entry *out, size_t max) {
    rvt_profile_settle(p);
    rvt_profile_entry *all = malloc((p->used + 1) * sizeof *all);
    if (!all)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < p->cap; i++)
        if (p->slots[i].used)
            all[n++] = (rvt_profile_entry){p->slots[i].sym, p->slots[i].count, 0, 0};
    qsort(all, n, sizeof *all, by_sym);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && all[m - 1].name == all[i].name)
            all[m - 1].count += all[i].count;
        else
            all[m++] = all[i];
    }
    for (size_t i = 0; i < p->narcs; i++) {
        const addr_slot *callee = lookup(p, p->arcs[i].target), *caller = lookup(p, p->arcs[i].site);
        rvt_profile_entry key = {callee ? callee->sym : NULL, 0, 0, 0};
        rvt_profile_entry *e = callee ? bsearch(&key, all, m, sizeof *all, by_sym) : NULL;
        if (e && caller && caller->sym == callee->sym)
            e->self_calls += p->arcs[i].count;
        else if (e)
            e->calls += p->arcs[i].count;
    }
    qsort(all, m, sizeof *all, by_count);
    memcpy(out, all, (m < max ? m : max) * sizeof *out);
    free(all);
    return m;
}

void rvt_profile_format_calls(const rvt_profile_entry *e, char *buf, size_t cap) {
    if (e->self_calls)
        snprintf(buf, cap, "%" PRIu64 "+%" PRIu64, e->calls, e->self_calls);
    else
        snprintf(buf, cap, "%" PRIu64, e->calls);
}

int rvt_profile_write_top(rvt_profile *p, FILE *f, size_t n) {
    rvt_profile_entry *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return RVT_E_NOMEM;
    size_t total = rvt_profile_functions(p, e, n);
    int rc = fprintf(f, "%" PRIu64 " instructions in %zu functions (columns: instructions, share, calls, function)\n", p->total, total) < 0;
    for (size_t i = 0; i < n && i < total && !rc; i++) {
        char calls[48];
        rvt_profile_format_calls(&e[i], calls, sizeof calls);
        rc = fprintf(f, "%12" PRIu64 " %6.2f%% %12s  %s\n", e[i].count,
                     p->total ? 100.0 * (double)e[i].count / (double)p->total : 0.0, calls, e[i].name) < 0;
    }
    free(e);
    return rc ? RVT_E_IO : 0;
}

int rvt_profile_write_folded(rvt_profile *p, FILE *f) {
    enum { MAX_DEPTH = 1024 };
    const char *path[MAX_DEPTH];
    for (size_t i = 1; i < p->nframes; i++) {
        if (!p->frames[i].self)
            continue;
        size_t depth = 0;
        for (uint32_t k = (uint32_t)i; k != 0 && depth < MAX_DEPTH; k = p->frames[k].parent)
            path[depth++] = p->frames[k].sym;
        while (depth-- > 0)
            if (fprintf(f, "%s%s", path[depth], depth ? ";" : "") < 0)
                return RVT_E_IO;
        if (fprintf(f, " %" PRIu64 "\n", p->frames[i].self) < 0)
            return RVT_E_IO;
    }
    return 0;
}

static int by_addr(const void *a, const void *b) {
    uint64_t x = (*(const addr_slot *const *)a)->addr, y = (*(const addr_slot *const *)b)->addr;
    return x < y ? -1 : x > y;
}

const addr_slot **rvt_profile_sorted_slots(rvt_profile *p, size_t *count) {
    rvt_profile_settle(p);
    const addr_slot **v = malloc((p->used + 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < p->cap; i++)
        if (p->slots[i].used)
            v[n++] = &p->slots[i];
    qsort(v, n, sizeof *v, by_addr);
    *count = n;
    return v;
}

int rvt_profile_write_coverage(rvt_profile *p, FILE *f) {
    size_t n;
    const addr_slot **v = rvt_profile_sorted_slots(p, &n);
    if (!v)
        return RVT_E_NOMEM;
    int rc = fprintf(f, "address,count,symbol,source\n") < 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t off = 0;
        const char *sym = rvt_image_symbolize(p->img, v[i]->addr, &off);
        const char *file;
        unsigned line;
        char src[512] = "";
        if (rvt_image_source_line(p->img, v[i]->addr, &file, &line))
            snprintf(src, sizeof src, "%s:%u", file, line);
        rc = fprintf(f, "%" PRIx64 ",%" PRIu64 ",%s+0x%" PRIx64 ",%s\n", v[i]->addr, v[i]->count, sym ? sym : "?",
                     off, src) < 0;
    }
    free(v);
    return rc ? RVT_E_IO : 0;
}
