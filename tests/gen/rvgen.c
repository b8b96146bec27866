/* rvgen: a deterministic random RISC-V program generator. A seed gives one
 * self-checking bare-metal program (GNU assembly on standard output) whose
 * control flow is what trace encoders and decoders find hard: nested,
 * recursive and tail calls through x1 and x5, co-routine swaps, jump tables,
 * function pointers, auipc/lui + jalr pairs, long straight runs and tight
 * loops, exceptions raised inside callees in M, S and U mode (with and
 * without Sv39/Sv32 translation, PMP and delegation to S), handlers that
 * call functions and return past the trapping instruction or elsewhere,
 * timer and software interrupts, WFI, and code written at run time followed
 * by fence.i.
 *
 * The program is built as a small tree of statements that is both printed
 * as assembly and executed here by an interpreter of the same statements, so
 * the generator knows every register's final value and the number of traps;
 * the program compares them and exits through tohost with 0 (all equal) or
 * the number of the first failing check. Interrupts come at points only the
 * run decides, so their handler keeps every register the checks read.
 *
 * docs/testing.md says how to reproduce a seed and what it covers. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic randomness (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned below(unsigned n) { return (unsigned)(rnd() % n); }
static bool chance(unsigned percent) { return below(100) < percent; }

/* ---- the program's shape ---- */

static unsigned xlen;   /* 32 or 64 */
static bool rvc;        /* C extension in -march */
static bool privileged; /* S and U segments, PMP, delegation */
static bool with_vm;    /* S segments with Sv39 / Sv32 */
static bool with_irq;   /* timer and software interrupts */
static uint64_t medeleg;

#define CLINT 0x2000000ull
#define MAGIC_SWITCH 1 /* a1 value that asks the ecall handler for M mode */
#define DATA_BYTES 256
#define UNMAPPED 0x40000000ull

/* Registers the checks read: values the interpreter tracks. */
static const unsigned value_regs[] = {8, 9, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
#define NVALUE (sizeof value_regs / sizeof value_regs[0])
enum { REG_A0 = 10, REG_A1 = 11, REG_S7 = 23, REG_S8 = 24, REG_S10 = 26, REG_S11 = 27 };

static const char *const reg_names[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
                                          "a1",   "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
                                          "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

typedef enum {
    ST_ALU_R, ST_ALU_I, ST_LUI, ST_LOAD, ST_STORE, ST_IF, ST_LOOP, ST_CALL, ST_REC, ST_CORO, ST_SWITCH,
    ST_TRAP, ST_SELFMOD, ST_ARM_TIMER, ST_SOFT_IRQ, ST_WFI, ST_SEGMENT
} stmt_kind;

typedef enum {
    CALL_X1, CALL_PTR, CALL_AUIPC, CALL_LUI, CALL_X5_JAL, CALL_X5_PTR, CALL_TABLE
} call_style;

typedef enum {
    TRAP_ECALL, TRAP_ILLEGAL, TRAP_BAD_JALR_ENCODING, TRAP_CSR_PRIV, TRAP_EBREAK, TRAP_MISALIGNED_LOAD,
    TRAP_MISALIGNED_STORE, TRAP_BAD_LOAD, TRAP_BAD_STORE, TRAP_PMP_LOAD, TRAP_PMP_STORE, TRAP_MISALIGNED_JUMP,
    TRAP_KINDS
} trap_kind;

typedef enum { PRIV_U = 0, PRIV_S = 1, PRIV_M = 3 } priv_level;

typedef struct stmt stmt;
typedef struct {
    stmt *v;
    unsigned n, cap;
} block;

struct stmt {
    stmt_kind kind;
    unsigned op, rd, rs1, rs2;
    int64_t imm;
    unsigned count;     /* loop passes, recursion depth, resumptions, cases */
    unsigned level;     /* loop nesting (its counter register) */
    unsigned fn;        /* callee */
    unsigned table[4];  /* CALL_TABLE targets */
    call_style style;
    trap_kind trap;
    bool redirect;      /* the handler resumes after `body` instead */
    priv_level priv;    /* ST_SEGMENT */
    bool vm;
    block body, other;  /* then / else, loop body, skipped code, segment */
    block *cases;       /* ST_SWITCH, ST_CORO (the code between resumptions) */
    unsigned label;
};

typedef enum { FN_NORMAL, FN_LEAF_X5, FN_RECURSIVE, FN_COROUTINE } fn_kind;

typedef struct {
    fn_kind kind;
    block body;     /* NORMAL, LEAF_X5; RECURSIVE: before the self-call */
    block after;    /* RECURSIVE: after it */
    block *segs;    /* COROUTINE: the code between yields */
    unsigned nsegs;
    int tail;       /* NORMAL: function tail-called at the end, or -1 */
} function;

#define MAX_FUNCS 24
static function funcs[MAX_FUNCS];
static unsigned nfuncs;
static unsigned next_label = 1;

static stmt *push(block *b) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->v = realloc(b->v, b->cap * sizeof *b->v);
        if (!b->v) {
            fprintf(stderr, "rvgen: out of memory\n");
            exit(2);
        }
    }
    stmt *s = &b->v[b->n++];
    memset(s, 0, sizeof *s);
    s->label = next_label++;
    return s;
}

/* ---- ALU semantics, shared by printing and interpreting ---- */

typedef struct {
    const char *name;
    bool imm, rv64_only, word;
} alu_op;

static const alu_op alu_ops[] = {
    {"add", 0, 0, 0},   {"sub", 0, 0, 0},    {"sll", 0, 0, 0},    {"slt", 0, 0, 0},    {"sltu", 0, 0, 0},
    {"xor", 0, 0, 0},   {"srl", 0, 0, 0},    {"sra", 0, 0, 0},    {"or", 0, 0, 0},     {"and", 0, 0, 0},
    {"mul", 0, 0, 0},   {"mulh", 0, 0, 0},   {"mulhsu", 0, 0, 0}, {"mulhu", 0, 0, 0},  {"div", 0, 0, 0},
    {"divu", 0, 0, 0},  {"rem", 0, 0, 0},    {"remu", 0, 0, 0},   {"addw", 0, 1, 1},   {"subw", 0, 1, 1},
    {"sllw", 0, 1, 1},  {"srlw", 0, 1, 1},   {"sraw", 0, 1, 1},   {"mulw", 0, 1, 1},   {"divw", 0, 1, 1},
    {"divuw", 0, 1, 1}, {"remw", 0, 1, 1},   {"remuw", 0, 1, 1},  {"addi", 1, 0, 0},   {"slti", 1, 0, 0},
    {"sltiu", 1, 0, 0}, {"xori", 1, 0, 0},   {"ori", 1, 0, 0},    {"andi", 1, 0, 0},   {"slli", 1, 0, 0},
    {"srli", 1, 0, 0},  {"srai", 1, 0, 0},   {"addiw", 1, 1, 1},  {"slliw", 1, 1, 1},  {"srliw", 1, 1, 1},
    {"sraiw", 1, 1, 1},
};
#define NALU (sizeof alu_ops / sizeof alu_ops[0])

static uint64_t sext32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)(uint32_t)v; }
static uint64_t to_xlen(uint64_t v) { return xlen == 32 ? (uint32_t)v : v; }

/* The operation on XLEN-bit operands (RV32 values are kept zero-extended);
 * RV64's word forms work on the low halves and sign-extend the result. */
static uint64_t alu(const alu_op *op, uint64_t a, uint64_t b) {
    char name[8];
    size_t len = strlen(op->name);
    snprintf(name, sizeof name, "%.*s", (int)(op->word ? len - 1 : len), op->name);
    if (op->imm) { /* addi, sltiu, srai...: the register form without its i */
        char *i = strrchr(name, 'i');
        memmove(i, i + 1, strlen(i));
    }
    if (xlen == 64 && !op->word) {
        int64_t sa = (int64_t)a, sb = (int64_t)b;
        unsigned sh = b & 63;
        if (!strcmp(name, "add")) return a + b;
        if (!strcmp(name, "sub")) return a - b;
        if (!strcmp(name, "sll")) return a << sh;
        if (!strcmp(name, "slt")) return sa < sb;
        if (!strcmp(name, "sltu")) return a < b;
        if (!strcmp(name, "xor")) return a ^ b;
        if (!strcmp(name, "srl")) return a >> sh;
        if (!strcmp(name, "sra")) return (uint64_t)(sa >> sh);
        if (!strcmp(name, "or")) return a | b;
        if (!strcmp(name, "and")) return a & b;
        if (!strcmp(name, "mul")) return a * b;
        if (!strcmp(name, "mulh")) return (uint64_t)(((__int128)sa * sb) >> 64);
        if (!strcmp(name, "mulhsu")) return (uint64_t)(((__int128)sa * (__int128)(unsigned __int128)b) >> 64);
        if (!strcmp(name, "mulhu")) return (uint64_t)(((unsigned __int128)a * b) >> 64);
        if (!strcmp(name, "div")) return b == 0 ? ~0ull : (sa == INT64_MIN && sb == -1) ? a : (uint64_t)(sa / sb);
        if (!strcmp(name, "divu")) return b == 0 ? ~0ull : a / b;
        if (!strcmp(name, "rem")) return b == 0 ? a : (sa == INT64_MIN && sb == -1) ? 0 : (uint64_t)(sa % sb);
        if (!strcmp(name, "remu")) return b == 0 ? a : a % b;
    } else {
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r;
        int32_t sa = (int32_t)ua, sb = (int32_t)ub;
        unsigned sh = ub & 31;
        if (!strcmp(name, "add")) r = ua + ub;
        else if (!strcmp(name, "sub")) r = ua - ub;
        else if (!strcmp(name, "sll")) r = ua << sh;
        else if (!strcmp(name, "slt")) r = sa < sb;
        else if (!strcmp(name, "sltu")) r = ua < ub;
        else if (!strcmp(name, "xor")) r = ua ^ ub;
        else if (!strcmp(name, "srl")) r = ua >> sh;
        else if (!strcmp(name, "sra")) r = (uint32_t)(sa >> sh);
        else if (!strcmp(name, "or")) r = ua | ub;
        else if (!strcmp(name, "and")) r = ua & ub;
        else if (!strcmp(name, "mul")) r = ua * ub;
        else if (!strcmp(name, "mulh")) r = (uint32_t)(((int64_t)sa * sb) >> 32);
        else if (!strcmp(name, "mulhsu")) r = (uint32_t)(((int64_t)sa * (int64_t)ub) >> 32);
        else if (!strcmp(name, "mulhu")) r = (uint32_t)(((uint64_t)ua * ub) >> 32);
        else if (!strcmp(name, "div")) r = ub == 0 ? ~0u : (sa == INT32_MIN && sb == -1) ? ua : (uint32_t)(sa / sb);
        else if (!strcmp(name, "divu")) r = ub == 0 ? ~0u : ua / ub;
        else if (!strcmp(name, "rem")) r = ub == 0 ? ua : (sa == INT32_MIN && sb == -1) ? 0 : (uint32_t)(sa % sb);
        else if (!strcmp(name, "remu")) r = ub == 0 ? ua : ua % ub;
        else goto unknown;
        return xlen == 32 ? r : sext32(r);
    }
unknown:
    fprintf(stderr, "rvgen: no semantics for %s\n", op->name);
    exit(2);
}

/* ---- the interpreter ---- */

typedef struct {
    uint64_t x[32];
    uint8_t data[DATA_BYTES];
    priv_level priv;
    bool vm;
    uint64_t traps, steps;
} machine;

static machine sim;
static uint8_t initial_data[DATA_BYTES];

static void set_reg(unsigned r, uint64_t v) {
    if (r)
        sim.x[r] = to_xlen(v);
}

static uint64_t load_data(unsigned off, unsigned size, bool is_signed) {
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
        v |= (uint64_t)sim.data[off + i] << (8 * i);
    if (is_signed && size < 8 && (v >> (8 * size - 1) & 1))
        v |= ~0ull << (8 * size);
    return to_xlen(v);
}

static void store_data(unsigned off, unsigned size, uint64_t v) {
    for (unsigned i = 0; i < size; i++)
        sim.data[off + i] = (uint8_t)(v >> (8 * i));
}

typedef struct {
    const char *name;
    unsigned size;
    bool is_signed, rv64_only;
} mem_op;

static const mem_op loads[] = {{"lb", 1, 1, 0}, {"lbu", 1, 0, 0}, {"lh", 2, 1, 0}, {"lhu", 2, 0, 0},
                               {"lw", 4, 1, 0}, {"lwu", 4, 0, 1}, {"ld", 8, 1, 1}};
static const mem_op stores[] = {{"sb", 1, 0, 0}, {"sh", 2, 0, 0}, {"sw", 4, 0, 0}, {"sd", 8, 0, 1}};

static const char *const branch_names[] = {"beq", "bne", "blt", "bge", "bltu", "bgeu"};

static bool branch_taken(unsigned cond, uint64_t a, uint64_t b) {
    int64_t sa = xlen == 32 ? (int32_t)a : (int64_t)a, sb = xlen == 32 ? (int32_t)b : (int64_t)b;
    switch (cond) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return sa < sb;
    case 3: return sa >= sb;
    case 4: return a < b;
    default: return a >= b;
    }
}

/* The cause a trap statement raises in the current mode, or -1 for none. */
static int trap_cause(trap_kind k) {
    switch (k) {
    case TRAP_ECALL: return sim.priv == PRIV_M ? 11 : sim.priv == PRIV_S ? 9 : 8;
    case TRAP_ILLEGAL: case TRAP_BAD_JALR_ENCODING: return 2;
    case TRAP_CSR_PRIV: return sim.priv == PRIV_M ? -1 : 2;
    case TRAP_EBREAK: return 3;
    case TRAP_MISALIGNED_LOAD: return 4;
    case TRAP_MISALIGNED_STORE: return 6;
    case TRAP_BAD_LOAD: return sim.vm ? 13 : 5;
    case TRAP_BAD_STORE: return sim.vm ? 15 : 7;
    case TRAP_PMP_LOAD: return sim.priv == PRIV_M ? -1 : 5;
    case TRAP_PMP_STORE: return sim.priv == PRIV_M ? -1 : 7;
    case TRAP_MISALIGNED_JUMP: return 0;
    default: return -1;
    }
}

/* What either handler does to the registers the checks read. */
static void take_trap(unsigned cause) {
    sim.traps++;
    set_reg(REG_S10, sim.x[REG_S10] + 1);
    set_reg(REG_S11, sim.x[REG_S11] * 31 + cause);
}

static void exec_block(const block *b);

static void exec_call(unsigned f);

static void exec_stmt(const stmt *s) {
    sim.steps++;
    switch (s->kind) {
    case ST_ALU_R:
        set_reg(s->rd, alu(&alu_ops[s->op], sim.x[s->rs1], sim.x[s->rs2]));
        break;
    case ST_ALU_I:
        set_reg(s->rd, alu(&alu_ops[s->op], sim.x[s->rs1], to_xlen((uint64_t)s->imm)));
        break;
    case ST_LUI:
        set_reg(s->rd, xlen == 32 ? (uint64_t)(uint32_t)(s->imm << 12) : (uint64_t)(int64_t)(int32_t)(s->imm << 12));
        break;
    case ST_LOAD:
        set_reg(s->rd, load_data((unsigned)s->imm, loads[s->op].size, loads[s->op].is_signed));
        break;
    case ST_STORE:
        store_data((unsigned)s->imm, stores[s->op].size, sim.x[s->rs1]);
        break;
    case ST_IF:
        exec_block(branch_taken(s->op, sim.x[s->rs1], sim.x[s->rs2]) ? &s->body : &s->other);
        break;
    case ST_LOOP:
        for (unsigned i = 0; i < s->count; i++)
            exec_block(&s->body);
        break;
    case ST_CALL:
        exec_call(s->style == CALL_TABLE ? s->table[sim.x[s->rs1] & 3] : s->fn);
        break;
    case ST_REC:
        set_reg(REG_A0, s->count);
        exec_call(s->fn);
        break;
    case ST_CORO:
        for (unsigned i = 0; i < s->count; i++) {
            exec_block(&funcs[s->fn].segs[i]);
            exec_block(&s->cases[i]);
        }
        break;
    case ST_SWITCH:
        exec_block(&s->cases[sim.x[s->rs1] & (s->count - 1)]);
        break;
    case ST_TRAP: {
        int cause = trap_cause(s->trap);
        if (cause >= 0)
            take_trap((unsigned)cause);
        if (cause < 0 || !s->redirect)
            exec_block(&s->body);
        break;
    }
    case ST_SELFMOD:
        set_reg(s->rd, sim.x[s->rd] + (uint64_t)s->imm);
        break;
    case ST_SEGMENT:
        sim.priv = s->priv;
        sim.vm = s->vm;
        exec_block(&s->body);
        take_trap(s->priv == PRIV_S ? 9 : 8); /* the ecall back to M */
        sim.priv = PRIV_M;
        sim.vm = false;
        break;
    case ST_ARM_TIMER: case ST_SOFT_IRQ: case ST_WFI:
        break;
    }
}

static void exec_block(const block *b) {
    for (unsigned i = 0; i < b->n; i++)
        exec_stmt(&b->v[i]);
}

static void exec_call(unsigned f) {
    const function *fn = &funcs[f];
    if (fn->kind == FN_RECURSIVE) {
        exec_block(&fn->body);
        if (sim.x[REG_A0]) {
            set_reg(REG_A0, sim.x[REG_A0] - 1);
            exec_call(f);
        }
        exec_block(&fn->after);
        return;
    }
    exec_block(&fn->body);
    if (fn->kind == FN_NORMAL && fn->tail >= 0)
        exec_call((unsigned)fn->tail);
}

/* ---- generation ---- */

typedef enum { CTX_MAIN, CTX_NORMAL, CTX_LEAF, CTX_REC } context;

typedef struct {
    context ctx;
    unsigned self;      /* the function being generated */
    unsigned loop_level;
    unsigned depth;     /* statement nesting */
    bool top_m;         /* main's M-mode code: CLINT, WFI, segments */
    bool in_loop_with_calls;
} gen_ctx;

static unsigned value_reg(void) { return value_regs[below(NVALUE)]; }

static int64_t imm12(void) { return (int64_t)below(4096) - 2048; }

static void gen_alu(block *b) {
    stmt *s;
    unsigned r = below(10);
    if (r == 0) {
        s = push(b);
        s->kind = ST_LUI;
        s->rd = value_reg();
        s->imm = below(1 << 20);
        return;
    }
    if (r == 1) {
        bool is_store = chance(50);
        const mem_op *ops = is_store ? stores : loads;
        unsigned n = is_store ? 4 : 7;
        unsigned op;
        do
            op = below(n);
        while (ops[op].rv64_only && xlen == 32);
        s = push(b);
        s->kind = is_store ? ST_STORE : ST_LOAD;
        s->op = op;
        s->imm = below(DATA_BYTES / ops[op].size) * ops[op].size;
        s->rd = s->rs1 = value_reg();
        return;
    }
    unsigned op;
    do
        op = below(NALU);
    while (alu_ops[op].rv64_only && xlen == 32);
    s = push(b);
    s->op = op;
    s->rd = value_reg();
    s->rs1 = value_reg();
    if (alu_ops[op].imm) {
        s->kind = ST_ALU_I;
        const char *n = alu_ops[op].name;
        bool shift = n[0] == 's' && (n[1] == 'l' || n[1] == 'r') && n[2] != 't';
        s->imm = shift ? below(alu_ops[op].word ? 32 : xlen) : imm12();
    } else {
        s->kind = ST_ALU_R;
        s->rs2 = value_reg();
    }
}

static void gen_straight(block *b, unsigned n) {
    for (unsigned i = 0; i < n; i++)
        gen_alu(b);
}

static bool trap_allowed(trap_kind k) {
    if (k == TRAP_MISALIGNED_JUMP)
        return !rvc; /* with C every even target is aligned */
    if (k == TRAP_PMP_LOAD || k == TRAP_PMP_STORE)
        return privileged;
    return true;
}

static void gen_block(block *b, gen_ctx *g, unsigned len);

static void gen_trap(block *b) {
    trap_kind k;
    do
        k = (trap_kind)below(TRAP_KINDS);
    while (!trap_allowed(k));
    stmt *s = push(b);
    s->kind = ST_TRAP;
    s->trap = k;
    s->rd = value_reg(); /* source of a faulting store */
    s->redirect = chance(25);
    block body = {0};
    gen_straight(&body, below(4));
    b->v[b->n - 1].body = body;
}

static unsigned pick_callee(const gen_ctx *g, fn_kind want) {
    unsigned first = g->ctx == CTX_MAIN ? 0 : g->self + 1;
    unsigned options[MAX_FUNCS], n = 0;
    for (unsigned f = first; f < nfuncs; f++)
        if (funcs[f].kind == want)
            options[n++] = f;
    return n ? options[below(n)] : ~0u;
}

static void gen_call(block *b, gen_ctx *g) {
    unsigned r = below(10);
    if (r < 2) {
        unsigned f = pick_callee(g, FN_LEAF_X5);
        if (f == ~0u)
            return;
        stmt *s = push(b);
        s->kind = ST_CALL;
        s->fn = f;
        s->style = chance(50) ? CALL_X5_JAL : CALL_X5_PTR;
        return;
    }
    if (r == 2) {
        unsigned f = pick_callee(g, FN_RECURSIVE);
        if (f == ~0u)
            return;
        stmt *s = push(b);
        s->kind = ST_REC;
        s->fn = f;
        s->count = below(g->in_loop_with_calls ? 3 : 7);
        return;
    }
    if (r == 3) {
        unsigned f = pick_callee(g, FN_COROUTINE);
        if (f == ~0u)
            return;
        stmt *s = push(b);
        s->kind = ST_CORO;
        s->fn = f;
        s->count = funcs[f].nsegs;
        s->cases = calloc(s->count, sizeof *s->cases);
        for (unsigned i = 0; i < s->count; i++)
            gen_straight(&s->cases[i], below(3));
        return;
    }
    unsigned f = pick_callee(g, FN_NORMAL);
    if (f == ~0u)
        return;
    stmt *s = push(b);
    s->kind = ST_CALL;
    s->fn = f;
    static const call_style styles[] = {CALL_X1, CALL_X1, CALL_PTR, CALL_AUIPC, CALL_LUI, CALL_TABLE};
    do
        s->style = styles[below(6)];
    while (s->style == CALL_LUI && xlen == 64); /* %hi of 0x8... sign-extends on RV64 */
    if (s->style == CALL_TABLE) {
        s->rs1 = value_reg();
        for (unsigned i = 0; i < 4; i++) {
            s->table[i] = pick_callee(g, FN_NORMAL);
        }
    }
}

static void gen_stmt(block *b, gen_ctx *g) {
    bool can_call = g->ctx == CTX_MAIN || g->ctx == CTX_NORMAL;
    unsigned r = below(100);
    if (r < 35) {
        gen_straight(b, 1 + below(chance(10) ? 120 : 8));
    } else if (r < 47 && g->depth < 3) {
        stmt *s = push(b);
        s->kind = ST_IF;
        s->op = below(6);
        s->rs1 = value_reg();
        s->rs2 = chance(20) ? 0 : value_reg();
        stmt copy = *s;
        g->depth++;
        gen_block(&copy.body, g, 1 + below(3));
        if (chance(60))
            gen_block(&copy.other, g, 1 + below(3));
        g->depth--;
        b->v[b->n - 1] = copy;
    } else if (r < 57 && g->depth < 3 && g->loop_level < 2 && g->ctx != CTX_LEAF && g->ctx != CTX_REC) {
        stmt *s = push(b);
        s->kind = ST_LOOP;
        s->level = g->loop_level;
        stmt copy = *s;
        g->loop_level++;
        g->depth++;
        bool outer = g->in_loop_with_calls;
        g->in_loop_with_calls = chance(40) && can_call;
        if (g->in_loop_with_calls) {
            gen_block(&copy.body, g, 1 + below(3));
            copy.count = 1 + below(4);
        } else {
            gen_ctx inner = *g;
            inner.ctx = CTX_LEAF; /* no calls in a long loop */
            gen_block(&copy.body, &inner, 1 + below(3));
            copy.count = 1 + below(outer ? 8 : 60);
        }
        g->in_loop_with_calls = outer;
        g->depth--;
        g->loop_level--;
        b->v[b->n - 1] = copy;
    } else if (r < 75 && can_call) {
        gen_call(b, g);
    } else if (r < 80 && g->depth < 3) {
        stmt *s = push(b);
        s->kind = ST_SWITCH;
        s->rs1 = value_reg();
        s->count = chance(50) ? 4 : 8;
        stmt copy = *s;
        copy.cases = calloc(copy.count, sizeof *copy.cases);
        g->depth++;
        for (unsigned i = 0; i < copy.count; i++)
            gen_block(&copy.cases[i], g, below(3));
        g->depth--;
        b->v[b->n - 1] = copy;
    } else if (r < 92) {
        gen_trap(b);
    } else if (r < 95 && can_call) {
        stmt *s = push(b);
        s->kind = ST_SELFMOD;
        s->rd = value_reg();
        s->imm = imm12();
    } else if (g->top_m && with_irq) {
        stmt *s = push(b);
        unsigned k = below(3);
        s->kind = k == 0 ? ST_ARM_TIMER : k == 1 ? ST_SOFT_IRQ : ST_WFI;
        s->imm = 1 + below(12);
    } else {
        gen_straight(b, 1 + below(4));
    }
}

static void gen_block(block *b, gen_ctx *g, unsigned len) {
    for (unsigned i = 0; i < len; i++)
        gen_stmt(b, g);
}

static void gen_functions(void) {
    nfuncs = 6 + below(MAX_FUNCS - 6);
    /* Callees have higher numbers: generated from the last down. */
    for (unsigned i = nfuncs; i-- > 0;) {
        function *fn = &funcs[i];
        memset(fn, 0, sizeof *fn);
        fn->tail = -1;
        unsigned r = below(10);
        fn->kind = r < 6 ? FN_NORMAL : r < 8 ? FN_LEAF_X5 : r < 9 ? FN_RECURSIVE : FN_COROUTINE;
        if (i == nfuncs - 1)
            fn->kind = FN_NORMAL;
        gen_ctx g = {.self = i};
        switch (fn->kind) {
        case FN_NORMAL:
            g.ctx = CTX_NORMAL;
            gen_block(&fn->body, &g, 1 + below(6));
            if (chance(25)) {
                unsigned t = pick_callee(&g, FN_NORMAL);
                fn->tail = t == ~0u ? -1 : (int)t;
            }
            break;
        case FN_LEAF_X5:
            g.ctx = CTX_LEAF;
            gen_block(&fn->body, &g, 1 + below(4));
            break;
        case FN_RECURSIVE:
            g.ctx = CTX_REC;
            gen_block(&fn->body, &g, 1 + below(3));
            gen_block(&fn->after, &g, 1 + below(3));
            break;
        case FN_COROUTINE:
            g.ctx = CTX_LEAF;
            fn->nsegs = 2 + below(4);
            fn->segs = calloc(fn->nsegs, sizeof *fn->segs);
            for (unsigned k = 0; k < fn->nsegs; k++)
                gen_block(&fn->segs[k], &g, 1 + below(2));
            break;
        }
    }
}

static block main_code;

static void gen_main(void) {
    gen_ctx g = {.ctx = CTX_MAIN, .top_m = true};
    unsigned segments = 2 + below(6);
    for (unsigned k = 0; k < segments; k++) {
        if (privileged && chance(50)) {
            stmt *s = push(&main_code);
            s->kind = ST_SEGMENT;
            unsigned r = below(3);
            s->priv = r == 0 ? PRIV_U : PRIV_S;
            s->vm = s->priv == PRIV_S && with_vm && chance(70);
            stmt copy = *s;
            gen_ctx inner = g;
            inner.top_m = false;
            gen_block(&copy.body, &inner, 2 + below(8));
            main_code.v[main_code.n - 1] = copy;
        } else {
            gen_block(&main_code, &g, 2 + below(8));
        }
    }
}

/* ---- printing ---- */

static const char *sreg(void) { return xlen == 64 ? "sd" : "sw"; }
static const char *lreg(void) { return xlen == 64 ? "ld" : "lw"; }
static unsigned regbytes(void) { return xlen / 8; }
static const char *word_dir(void) { return xlen == 64 ? ".dword" : ".word"; }

static void out(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

static void print_block(const block *b);

static const char *trap_comment[] = {"ecall", "illegal", "illegal jalr", "csr", "ebreak", "misaligned load",
                                     "misaligned store", "load fault", "store fault", "pmp load", "pmp store",
                                     "misaligned jump"};

static void print_call_insn(const stmt *s) {
    char target[16];
    snprintf(target, sizeof target, "f%u", s->fn);
    switch (s->style) {
    case CALL_X1: out("    call %s", target); break;
    case CALL_PTR: out("    la t1, %s\n    jalr t1", target); break;
    case CALL_AUIPC: out("L%u: auipc t1, %%pcrel_hi(%s)\n    jalr ra, %%pcrel_lo(L%u)(t1)", s->label, target, s->label); break;
    case CALL_LUI: out("    lui t1, %%hi(%s)\n    jalr ra, %%lo(%s)(t1)", target, target); break;
    case CALL_X5_JAL: out("    jal t0, %s", target); break;
    case CALL_X5_PTR: out("    la t1, %s\n    jalr t0, 0(t1)", target); break;
    case CALL_TABLE:
        out("    andi t1, %s, 3\n    slli t1, t1, %u\n    la t2, T%u\n    add t1, t1, t2\n    %s t1, 0(t1)\n    jalr ra, 0(t1)",
            reg_names[s->rs1], xlen == 64 ? 3 : 2, s->label, lreg());
        break;
    }
}

/* Tables and written code live in .data: collected while printing. */
static char *data_text;
static size_t data_len, data_cap;

static void data_out(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (data_len + (size_t)n + 2 > data_cap) {
        data_cap = (data_len + (size_t)n + 2) * 2;
        data_text = realloc(data_text, data_cap);
        if (!data_text)
            exit(2);
    }
    va_start(ap, fmt);
    vsnprintf(data_text + data_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    data_len += (size_t)n;
    data_text[data_len++] = '\n';
    data_text[data_len] = 0;
}

static void print_trap(const stmt *s) {
    if (s->redirect)
        out("    la a1, R%u", s->label);
    const char *r = reg_names[s->rd];
    switch (s->trap) {
    case TRAP_ECALL: out("    ecall"); break;
    case TRAP_ILLEGAL: out(rvc ? "    .2byte 0" : "    .4byte 0xc0001073 /* csrw cycle, zero */"); break;
    case TRAP_BAD_JALR_ENCODING: out("    .4byte 0x00001067 /* jalr, funct3 1 */"); break;
    case TRAP_CSR_PRIV: out("    csrr t1, mstatus"); break;
    case TRAP_EBREAK: out(rvc ? "    c.ebreak" : "    ebreak"); break;
    case TRAP_MISALIGNED_LOAD: out("    %s t2, %u(tp)", xlen == 64 ? "ld" : "lw", 1 + below(3)); break;
    case TRAP_MISALIGNED_STORE: out("    %s %s, %u(tp)", xlen == 64 ? "sd" : "sw", r, 1 + below(3)); break;
    case TRAP_BAD_LOAD: out("    li t1, %#llx\n    lw t2, 0(t1)", (unsigned long long)UNMAPPED); break;
    case TRAP_BAD_STORE: out("    li t1, %#llx\n    sw %s, 0(t1)", (unsigned long long)UNMAPPED, r); break;
    case TRAP_PMP_LOAD: out("    la t1, forbidden\n    lw t2, 0(t1)"); break;
    case TRAP_PMP_STORE: out("    la t1, forbidden\n    sw %s, 8(t1)", r); break;
    case TRAP_MISALIGNED_JUMP: out("    la t1, M%u\n    addi t1, t1, 2\n    jalr ra, 0(t1)\n    j N%u\nM%u: nop\n    nop\nN%u:", s->label, s->label, s->label, s->label); break;
    default: break;
    }
    out("    /* %s */", trap_comment[s->trap]);
    print_block(&s->body);
    if (s->redirect)
        out("R%u: li a1, 0", s->label);
}

static void print_selfmod(const stmt *s) {
    uint32_t addi = (uint32_t)(s->imm & 0xfff) << 20 | s->rd << 15 | s->rd << 7 | 0x13;
    out("    la t1, code%u\n    li t2, %#x\n    sw t2, 0(t1)\n    li t2, 0x00008067\n    sw t2, 4(t1)\n    fence.i\n    jalr ra, 0(t1)",
        s->label, addi);
    data_out("    .align 2\ncode%u: .word 0, 0", s->label);
}

static void print_arm(unsigned delta) {
    out("    li t1, %#llx\n    %s t2, 0(t1)\n    addi t2, t2, %u\n    li t1, %#llx", (unsigned long long)(CLINT + 0xbff8),
        lreg(), delta, (unsigned long long)(CLINT + 0x4000));
    if (xlen == 64)
        out("    sd t2, 0(t1)");
    else
        out("    sw t2, 0(t1)\n    sw zero, 4(t1)");
}

static void print_stmt(const stmt *s) {
    switch (s->kind) {
    case ST_ALU_R:
        out("    %s %s, %s, %s", alu_ops[s->op].name, reg_names[s->rd], reg_names[s->rs1], reg_names[s->rs2]);
        break;
    case ST_ALU_I:
        out("    %s %s, %s, %" PRId64, alu_ops[s->op].name, reg_names[s->rd], reg_names[s->rs1], s->imm);
        break;
    case ST_LUI:
        out("    lui %s, %" PRId64, reg_names[s->rd], s->imm);
        break;
    case ST_LOAD:
        out("    %s %s, %" PRId64 "(tp)", loads[s->op].name, reg_names[s->rd], s->imm);
        break;
    case ST_STORE:
        out("    %s %s, %" PRId64 "(tp)", stores[s->op].name, reg_names[s->rs1], s->imm);
        break;
    case ST_IF:
        /* branch to the else part when the condition fails */
        out("    %s %s, %s, E%u", branch_names[s->op ^ 1], reg_names[s->rs1], reg_names[s->rs2], s->label);
        print_block(&s->body);
        if (s->other.n) {
            out("    j F%u", s->label);
            out("E%u:", s->label);
            print_block(&s->other);
            out("F%u:", s->label);
        } else {
            out("E%u:", s->label);
        }
        break;
    case ST_LOOP: {
        const char *ctr = reg_names[s->level ? REG_S8 : REG_S7];
        out("    li %s, %u\nL%u:", ctr, s->count, s->label);
        print_block(&s->body);
        out("    addi %s, %s, -1\n    bnez %s, L%u", ctr, ctr, ctr, s->label);
        break;
    }
    case ST_CALL:
        print_call_insn(s);
        if (s->style == CALL_TABLE) {
            data_out("    .align 3\nT%u: %s f%u, f%u, f%u, f%u", s->label, word_dir(), s->table[0], s->table[1],
                     s->table[2], s->table[3]);
        }
        break;
    case ST_REC:
        out("    li a0, %u\n    call f%u", s->count, s->fn);
        break;
    case ST_CORO:
        out("    la t0, f%u", s->fn);
        for (unsigned i = 0; i < s->count; i++) {
            out("    jalr ra, 0(t0) /* resume */");
            print_block(&s->cases[i]);
        }
        break;
    case ST_SWITCH:
        out("    andi t1, %s, %u\n    slli t1, t1, %u\n    la t2, T%u\n    add t1, t1, t2\n    %s t1, 0(t1)\n    jr t1",
            reg_names[s->rs1], s->count - 1, xlen == 64 ? 3 : 2, s->label, lreg());
        data_out("    .align 3\nT%u:", s->label);
        for (unsigned i = 0; i < s->count; i++)
            data_out("    %s C%u_%u", word_dir(), s->label, i);
        for (unsigned i = 0; i < s->count; i++) {
            out("C%u_%u:", s->label, i);
            print_block(&s->cases[i]);
            out("    j D%u", s->label);
        }
        out("D%u:", s->label);
        break;
    case ST_TRAP:
        print_trap(s);
        break;
    case ST_SELFMOD:
        print_selfmod(s);
        break;
    case ST_ARM_TIMER:
        print_arm((unsigned)s->imm);
        break;
    case ST_SOFT_IRQ:
        out("    li t1, %#llx\n    li t2, 1\n    sw t2, 0(t1)", (unsigned long long)CLINT);
        break;
    case ST_WFI:
        /* with MIE clear the pending timer ends the wait; it is taken once
         * MIE is set again */
        out("    csrci mstatus, 8");
        print_arm((unsigned)s->imm);
        out("    wfi\n    csrsi mstatus, 8");
        break;
    case ST_SEGMENT:
        if (s->vm)
            out("    la t0, pt_root\n    srli t0, t0, 12\n    li t1, %s\n    or t0, t0, t1\n    csrw satp, t0",
                xlen == 64 ? "0x8000000000000000" : "0x80000000");
        else
            out("    csrw satp, zero");
        out("    sfence.vma\n    li t0, 0x1800\n    csrc mstatus, t0\n    li t0, %#x\n    csrs mstatus, t0",
            (s->priv << 11) | 0x80);
        out("    la t0, G%u\n    csrw mepc, t0\n    mret\nG%u: /* %s mode%s */", s->label, s->label,
            s->priv == PRIV_S ? "S" : "U", s->vm ? ", translated" : "");
        print_block(&s->body);
        out("    li a1, %d\n    ecall /* back to M */", MAGIC_SWITCH);
        break;
    }
}

static void print_block(const block *b) {
    for (unsigned i = 0; i < b->n; i++)
        print_stmt(&b->v[i]);
}

static void print_functions(void) {
    unsigned frame = 4 * regbytes();
    for (unsigned i = 0; i < nfuncs; i++) {
        const function *fn = &funcs[i];
        out("\n    .align %u\nf%u:", below(3) + 1, i);
        switch (fn->kind) {
        case FN_NORMAL:
        case FN_RECURSIVE:
            out("    addi sp, sp, -%u\n    %s ra, 0(sp)\n    %s s7, %u(sp)\n    %s s8, %u(sp)", frame, sreg(), sreg(),
                regbytes(), sreg(), 2 * regbytes());
            print_block(&fn->body);
            if (fn->kind == FN_RECURSIVE) {
                out("    beqz a0, B%u\n    addi a0, a0, -1\n    call f%u\nB%u:", i, i, i);
                print_block(&fn->after);
            }
            out("    %s ra, 0(sp)\n    %s s7, %u(sp)\n    %s s8, %u(sp)\n    addi sp, sp, %u", lreg(), lreg(),
                regbytes(), lreg(), 2 * regbytes(), frame);
            if (fn->tail >= 0)
                out(chance(50) ? "    tail f%d" : "    j f%d", fn->tail);
            else
                out("    ret");
            break;
        case FN_LEAF_X5:
            print_block(&fn->body);
            out("    jr t0");
            break;
        case FN_COROUTINE:
            for (unsigned k = 0; k < fn->nsegs; k++) {
                print_block(&fn->segs[k]);
                out("    jalr t0, 0(ra) /* yield */");
            }
            break;
        }
    }
}

static void print_handlers(void) {
    unsigned rb = regbytes();
    const char *const saved[] = {"t0", "t1", "t2", "ra", "t3", "t4", "t5", "t6"};
    /* Both handlers: keep the scratch registers, fold the cause into s11,
     * count the trap in s10, call functions, and resume after the trapping
     * instruction, at a1 when it holds an address, or in M for the ecall
     * that ends a segment. */
    for (int m = 1; m >= 0; m--) {
        const char *x = m ? "m" : "s";
        out("\n    .align 2\n%strap:\n    csrrw sp, %sscratch, sp\n    addi sp, sp, -%u", x, x, 8 * rb);
        for (unsigned i = 0; i < 8; i++)
            out("    %s %s, %u(sp)", sreg(), saved[i], i * rb);
        out("    csrr t0, %scause", x);
        if (m)
            out("    bltz t0, m_irq");
        out("    li t1, 31\n    mul s11, s11, t1\n    add s11, s11, t0\n    addi s10, s10, 1\n    call hfunc");
        out("    csrr t0, %sepc\n    beqz a1, %s_skip", x, x);
        if (m)
            out("    li t1, %d\n    beq a1, t1, m_switch", MAGIC_SWITCH);
        out("    mv t0, a1\n    li a1, 0\n    j %s_resume", x);
        if (m)
            out("m_switch:\n    li t1, 0x1800\n    csrs mstatus, t1\n    li a1, 0\n    addi t0, t0, 4\n    j m_resume");
        out("%s_skip:\n    lhu t1, 0(t0)\n    andi t1, t1, 3\n    li t2, 3\n    addi t0, t0, 2\n    bne t1, t2, %s_resume\n    addi t0, t0, 2",
            x, x);
        out("%s_resume:\n    csrw %sepc, t0", x, x);
        out("%s_return:", x);
        for (unsigned i = 0; i < 8; i++)
            out("    %s %s, %u(sp)", lreg(), saved[i], i * rb);
        out("    addi sp, sp, %u\n    csrrw sp, %sscratch, sp\n    %sret", 8 * rb, x, x);
    }
    out("m_irq:\n    slli t0, t0, 1\n    srli t0, t0, 1\n    li t1, 7\n    beq t0, t1, m_timer");
    out("    li t1, %#llx\n    sw zero, 0(t1)\n    j m_irq_done", (unsigned long long)CLINT);
    out("m_timer:\n    la t1, irq_budget\n    %s t2, 0(t1)\n    beqz t2, m_disarm\n    addi t2, t2, -1\n    %s t2, 0(t1)",
        lreg(), sreg());
    print_arm(3 + below(10));
    out("    j m_irq_done\nm_disarm:\n    li t1, %#llx\n    li t2, -1", (unsigned long long)(CLINT + 0x4000));
    if (xlen == 64)
        out("    sd t2, 0(t1)");
    else
        out("    sw t2, 4(t1)\n    sw t2, 0(t1)");
    out("m_irq_done:\n    la t1, irq_count\n    %s t2, 0(t1)\n    addi t2, t2, 1\n    %s t2, 0(t1)\n    call hfunc\n    j m_return",
        lreg(), sreg());
    /* functions the handlers call: scratch registers only */
    out("\nhfunc:\n    addi sp, sp, -16\n    %s ra, 0(sp)\n    xor t3, t3, t4\n    call hleaf\n    addi t5, t3, 1\n    %s ra, 0(sp)\n    addi sp, sp, 16\n    ret",
        sreg(), lreg());
    out("hleaf:\n    slli t6, t5, 1\n    ret");
}

static void print_checks(void) {
    unsigned n = 1;
    for (unsigned i = 0; i < NVALUE; i++, n++)
        out("    li t6, %#" PRIx64 "\n    li a0, %u\n    bne %s, t6, fail", sim.x[value_regs[i]], n,
            reg_names[value_regs[i]]);
    out("    li t6, %#" PRIx64 "\n    li a0, %u\n    bne s10, t6, fail", sim.x[REG_S10], n++);
    out("    li t6, %#" PRIx64 "\n    li a0, %u\n    bne s11, t6, fail", sim.x[REG_S11], n++);
    out("    li a0, 0\nfail:\n    slli a0, a0, 1\n    ori a0, a0, 1\n    la t0, tohost\n    %s a0, 0(t0)\n1:  j 1b",
        sreg());
}

static void print_program(uint64_t seed, const uint64_t *init) {
    /* the first line gives the build flags (tests/gen/gen_check.sh reads them) */
    out("/* rvgen: -march=rv%ugc -mabi=%s */", xlen, xlen == 64 ? "lp64d" : "ilp32d");
    out("/* seed %" PRIu64 ": RV%u%s%s%s%s, %u functions */", seed, xlen, rvc ? "C" : "",
        privileged ? ", S and U modes, PMP" : "", with_vm ? ", translation" : "", with_irq ? ", interrupts" : "",
        nfuncs);
    out("    .option norelax\n    .option %s", rvc ? "rvc" : "norvc");
    out("    .section .text.init, \"ax\"\n    .globl _start\n_start:");
    out("    la t0, mtrap\n    csrw mtvec, t0\n    la t0, strap\n    csrw stvec, t0");
    out("    la t0, mstack_top\n    csrw mscratch, t0\n    la t0, sstack_top\n    csrw sscratch, t0");
    out("    la sp, stack_top\n    la tp, gdata");
    if (!rvc) /* without C in misa a jump to a 2-byte boundary traps */
        out("    csrci misa, 4");
    /* the timer is pending from reset (mtimecmp = 0): disarm it first */
    out("    li t1, %#llx\n    li t2, -1", (unsigned long long)(CLINT + 0x4000));
    out(xlen == 64 ? "    sd t2, 0(t1)" : "    sw t2, 4(t1)\n    sw t2, 0(t1)");
    if (with_irq)
        out("    li t0, 0x88\n    csrw mie, t0\n    csrsi mstatus, 8");
    if (privileged) {
        out("    li t0, %#" PRIx64 "\n    csrw medeleg, t0", medeleg);
        /* below forbidden: all; forbidden's page: nothing; the rest: all */
        out("    la t0, forbidden\n    srli t0, t0, 2\n    csrw pmpaddr0, t0\n    addi t0, t0, 1024\n    csrw pmpaddr1, t0");
        out("    li t0, -1\n    csrw pmpaddr2, t0\n    li t0, 0x1f080f\n    csrw pmpcfg0, t0");
    }
    for (unsigned r = 1; r < 32; r++)
        if (init[r] != ~0ull)
            out("    li %s, %#" PRIx64, reg_names[r], init[r]);
    print_block(&main_code);
    print_checks();
    print_handlers();
    print_functions();
    out("\n    .section .tohost, \"aw\", @progbits\n    .align 6\n    .globl tohost\ntohost: .dword 0\n    .align 6\n    .globl fromhost\nfromhost: .dword 0");
    out("\n    .data\n    .align 12\npt_root:");
    if (xlen == 64)
        out("    .dword 0, 0, 0x200000cf /* 0x80000000: 1 GiB, RWX, A, D */\n    .fill 509, 8, 0");
    else
        out("    .fill 512, 4, 0\n    .word 0x200000cf /* 0x80000000: 4 MiB, RWX, A, D */\n    .fill 511, 4, 0");
    out("    .align 12\nforbidden: .fill 1024, 4, 0");
    out("    .align 3\nirq_budget: %s %u\nirq_count: %s 0", word_dir(), below(20), word_dir());
    out("    .align 3\ngdata:");
    for (unsigned i = 0; i < DATA_BYTES; i += 16) {
        printf("    .byte ");
        for (unsigned k = 0; k < 16; k++)
            printf("%u%s", initial_data[i + k], k == 15 ? "\n" : ", ");
    }
    fputs(data_text ? data_text : "", stdout);
    out("    .align 4\nstack: .fill 2048, 4, 0\nstack_top:\nmstack: .fill 256, 4, 0\nmstack_top:\nsstack: .fill 256, 4, 0\nsstack_top:");
}

static void usage(void) {
    fputs("usage: rvgen [--xlen 32|64] [--rvc|--no-rvc] SEED\n"
          "Prints a self-checking RISC-V test program (GNU assembly) made from SEED;\n"
          "the same seed always gives the same program. Without --xlen or --rvc\n"
          "the seed chooses them. Build it with examples/link.ld (docs/testing.md).\n",
          stderr);
}

int main(int argc, char **argv) {
    int force_xlen = 0, force_rvc = -1;
    const char *seed_text = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--xlen") && i + 1 < argc) {
            force_xlen = atoi(argv[++i]);
            if (force_xlen != 32 && force_xlen != 64) {
                fprintf(stderr, "rvgen: --xlen takes 32 or 64, not %s\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--rvc")) {
            force_rvc = 1;
        } else if (!strcmp(argv[i], "--no-rvc")) {
            force_rvc = 0;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage();
            return 0;
        } else if (!seed_text && argv[i][0] != '-') {
            seed_text = argv[i];
        } else {
            usage();
            return 2;
        }
    }
    if (!seed_text) {
        usage();
        return 2;
    }
    char *end;
    uint64_t seed = strtoull(seed_text, &end, 0);
    if (*end || !*seed_text) {
        fprintf(stderr, "rvgen: the seed must be a number, not '%s'\n", seed_text);
        return 2;
    }
    /* A program too long to run in a test is drawn again from the next
     * numbers of the same sequence, so a seed still names one program. */
    rng_state = seed;
    for (;;) {
        xlen = force_xlen ? (unsigned)force_xlen : chance(50) ? 64 : 32;
        rvc = force_rvc >= 0 ? force_rvc : chance(60);
        privileged = chance(70);
        with_vm = privileged && chance(60);
        with_irq = chance(60);
        medeleg = 0;
        static const unsigned delegable[] = {0, 2, 3, 4, 5, 6, 7, 13, 15};
        if (privileged)
            for (unsigned i = 0; i < sizeof delegable / sizeof delegable[0]; i++)
                if (chance(40))
                    medeleg |= 1ull << delegable[i];
        next_label = 1;
        memset(&main_code, 0, sizeof main_code);
        gen_functions();
        gen_main();

        uint64_t init[32];
        memset(&sim, 0, sizeof sim);
        for (unsigned r = 0; r < 32; r++)
            init[r] = ~0ull;
        for (unsigned i = 0; i < NVALUE; i++) {
            uint64_t v = chance(20) ? below(16) : to_xlen(rnd());
            init[value_regs[i]] = v;
            sim.x[value_regs[i]] = v;
        }
        init[REG_S10] = 0;
        init[REG_S11] = sim.x[REG_S11] = to_xlen(rnd());
        init[REG_A0] = init[REG_A1] = 0;
        for (unsigned i = 0; i < DATA_BYTES; i++)
            initial_data[i] = sim.data[i] = (uint8_t)rnd();
        sim.priv = PRIV_M;
        exec_block(&main_code);
        if (sim.steps < 200000)
            print_program(seed, init);
        else
            continue;
        return 0;
    }
}
