/* Hart model checks written from the privileged and unprivileged specs. The
 * programs in tests/programs/hart/ check their own results (exit code = the
 * first failing check); this test runs them on RV64 and RV32 and checks the
 * retirement records the model reports, plus the row-format conventions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/hart.h"

typedef struct {
    size_t retired, traps, interrupts;
    uint64_t causes[64];
    size_t ncauses;
} tally;

static int count_sink(void *user, const rvt_retire *recs, size_t n) {
    tally *t = user;
    for (size_t i = 0; i < n; i++) {
        if (recs[i].ninsns) {
            t->retired += recs[i].ninsns;
        } else {
            t->traps++;
            t->interrupts += recs[i].itype == RVT_ITYPE_INTERRUPT;
            if (t->ncauses < 64)
                t->causes[t->ncauses++] = recs[i].cause;
        }
    }
    return 0;
}

/* How the machine hands out what retired: a record per instruction, blocks
 * of sequential instructions, or nothing (the interpreter then runs code
 * blocks, which no per-instruction sink would exercise). */
enum sink_mode { PER_INSTRUCTION, BLOCKS, NO_SINK };

/* A machine for one of the test programs, its console output dropped. */
typedef struct {
    rvt_image *img;
    rvt_machine *m;
    FILE *null;
} test_machine;

static void open_machine(test_machine *t, const char *name, rvt_machine_config *cfg) {
    const char *dir = getenv("RVT_HART_PROGRAMS");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", name);
    rvt_diag d = {{0}};
    assert_int_equal(rvt_image_new(&t->img), 0);
    if (rvt_image_load_elf(t->img, path, 0, &d))
        fail_msg("%s", d.msg);
    cfg->max_insns = 5000000;
    t->null = fopen("/dev/null", "w");
    cfg->console = t->null;
    if (rvt_machine_new(&t->m, cfg, t->img, &d))
        fail_msg("%s", d.msg);
}

static void close_machine(test_machine *t) {
    rvt_machine_free(t->m);
    rvt_image_free(t->img);
    fclose(t->null);
}

static void run_until_stop_mode(const char *name, unsigned ctr_version, enum sink_mode mode, tally *t,
                                rvt_run_result *res) {
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.ctr_version = ctr_version;
    cfg.merge_blocks = mode == BLOCKS;
    test_machine tm;
    open_machine(&tm, name, &cfg);
    memset(t, 0, sizeof *t);
    if (mode != NO_SINK)
        rvt_machine_set_sink(tm.m, count_sink, t);
    rvt_diag d = {{0}};
    rvt_machine_run(tm.m, res, &d);
    close_machine(&tm);
}

static void run_until_stop_ctr(const char *name, unsigned ctr_version, tally *t, rvt_run_result *res) {
    run_until_stop_mode(name, ctr_version, PER_INSTRUCTION, t, res);
}

static void run_until_stop(const char *name, tally *t, rvt_run_result *res) {
    run_until_stop_ctr(name, RVT_CTR_0_1_4, t, res);
}

static int run_program(const char *name, tally *t, rvt_run_result *res) {
    run_until_stop(name, t, res);
    assert_int_equal(res->reason, RVT_STOP_EXIT);
    return res->exit_code;
}

/* The program passes whichever way the machine hands out what retired. */
static void expect_pass(const char *name) {
    static const char *const how[] = {"with a record per instruction", "with block records", "without records"};
    for (enum sink_mode mode = PER_INSTRUCTION; mode <= NO_SINK; mode++) {
        tally t;
        rvt_run_result res;
        run_until_stop_mode(name, RVT_CTR_0_1_4, mode, &t, &res);
        if (res.reason != RVT_STOP_EXIT || res.exit_code != 0)
            fail_msg("%s %s: check %d failed (stop reason %d)", name, how[mode], res.exit_code, (int)res.reason);
        if (mode != NO_SINK)
            assert_int_equal(t.retired, res.instret);
    }
}

/* Control transfer records: the same checks for the v0.1.4 draft and for
 * ratified 1.0 (programs/hart/ctr.S). */
static void test_ctr(void **state) {
    (void)state;
    static const struct { const char *name; unsigned version; } programs[] = {
        {"ctr64.elf", RVT_CTR_0_1_4}, {"ctr32.elf", RVT_CTR_0_1_4},
        {"ctr10_64.elf", RVT_CTR_1_0}, {"ctr10_32.elf", RVT_CTR_1_0},
        {"ctr_calls64.elf", RVT_CTR_0_1_4}, {"ctr_calls32.elf", RVT_CTR_0_1_4}, /* C, call stacks */
    };
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        tally t;
        rvt_run_result res;
        run_until_stop_ctr(programs[i].name, programs[i].version, &t, &res);
        assert_int_equal(res.reason, RVT_STOP_EXIT);
        if (res.exit_code != 0)
            fail_msg("%s: check %d failed", programs[i].name, res.exit_code);
    }
    /* a draft program on a 1.0 hart fails at once: its CSRs are absent */
    tally t;
    rvt_run_result res;
    run_until_stop_ctr("ctr64.elf", RVT_CTR_1_0, &t, &res);
    assert_false(res.reason == RVT_STOP_EXIT && res.exit_code == 0);
}

/* Performance counters with Sscofpmf (programs/hart/pmu.S). */
static void test_pmu(void **state) {
    (void)state;
    expect_pass("pmu64.elf");
    expect_pass("pmu32.elf");
}

/* The spec's cycle-count test vectors (CCE, CCM -> cycles). */
static void test_ctr_cycle_encoding(void **state) {
    (void)state;
    assert_int_equal(rvt_ctr_cycles(0x0abc), 2748);
    assert_int_equal(rvt_ctr_cycles(0x1000), 4096);
    assert_int_equal(rvt_ctr_cycles(0x1fff), 8191);
    assert_int_equal(rvt_ctr_cycles(0x2000), 8192);
    assert_int_equal(rvt_ctr_cycles(0x3001) - rvt_ctr_cycles(0x3000), 4); /* CCE 3: steps of 4 */
    assert_int_equal(rvt_ctr_cycles(0xffff), 134201344);                 /* the saturated value */
}

static bool has_cause(const tally *t, uint64_t cause) {
    for (size_t i = 0; i < t->ncauses; i++)
        if (t->causes[i] == cause)
            return true;
    return false;
}

static void test_traps(void **state) {
    (void)state;
    tally t;
    rvt_run_result res;
    assert_int_equal(run_program("traps64.elf", &t, &res), 0);
    /* Every exception the program provokes is reported as a trap record. */
    const uint64_t causes[] = {11, 2, 4, 3, 7, 8, 9};
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++)
        if (!has_cause(&t, causes[i]))
            fail_msg("no trap record with cause %llu", (unsigned long long)causes[i]);
    assert_int_equal(t.interrupts, 0);
    expect_pass("traps64.elf");
    expect_pass("traps32.elf");
    /* exceptions inside callees, a handler that calls and returns to mepc + 4 */
    expect_pass("callee_traps64.elf");
    expect_pass("callee_traps32.elf");
}

static void test_interrupts(void **state) {
    (void)state;
    tally t;
    rvt_run_result res;
    assert_int_equal(run_program("interrupts64.elf", &t, &res), 0);
    assert_true(t.interrupts >= 3); /* machine timer, machine software, supervisor timer */
    assert_true(has_cause(&t, (1ull << 63) | 7));
    assert_true(has_cause(&t, (1ull << 63) | 3));
    assert_true(has_cause(&t, (1ull << 63) | 5));
    assert_int_equal(run_program("interrupts32.elf", &t, &res), 0);
    assert_true(has_cause(&t, (1ull << 31) | 7)); /* the interrupt bit is the MSB of XLEN */
}

static void test_virtual_memory(void **state) {
    (void)state;
    expect_pass("vm64.elf"); /* Sv39 */
    expect_pass("vm32.elf"); /* Sv32 */
}

/* rvt_machine_watch_code: whether a run left the code it was given (and the
 * boot ROM, which every run starts in). */
static bool leaves_code(const char *name, bool watch_image) {
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    test_machine tm;
    open_machine(&tm, name, &cfg);
    rvt_machine *m = tm.m;
    assert_true(rvt_machine_left_code(m)); /* nothing watched yet */
    rvt_segment_info segs[17] = {{0}};
    for (unsigned i = 0; i < 17; i++)
        segs[i] = (rvt_segment_info){.vaddr = 0x80000000u + 0x1000u * i, .memsz = 0x1000, .exec = true};
    assert_int_equal(rvt_machine_watch_code(m, segs, 17), RVT_E_RANGE); /* more than it holds */
    assert_true(rvt_machine_left_code(m));
    size_t n = watch_image ? rvt_image_segments(tm.img, segs, 16) : 0;
    assert_true(n <= 16);
    assert_int_equal(rvt_machine_watch_code(m, segs, n), 0);
    assert_false(rvt_machine_left_code(m));
    rvt_run_result res;
    rvt_diag d = {{0}};
    rvt_machine_run(m, &res, &d);
    assert_int_equal(res.reason, RVT_STOP_EXIT);
    bool left = rvt_machine_left_code(m);
    close_machine(&tm);
    return left;
}

static void test_code_watch(void **state) {
    (void)state;
    /* all of the programs' code is in their images, none in the ROM alone */
    assert_false(leaves_code("traps64.elf", true));
    assert_false(leaves_code("traps32.elf", true));
    assert_true(leaves_code("traps64.elf", false));
}

/* More code blocks than the interpreter keeps, some sharing a slot. */
static void test_code_blocks(void **state) {
    (void)state;
    expect_pass("blocks64.elf");
    expect_pass("blocks32.elf");
}

/* What a run of one of the programs leaves: its stop, every register and
 * 64 bytes of memory at the address in s1. */
struct final_state {
    rvt_run_result res;
    uint64_t x[32];
    uint8_t memory[64];
};

static void run_to_final_state(const char *name, unsigned xlen, enum sink_mode mode, struct final_state *f) {
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.merge_blocks = mode == BLOCKS;
    test_machine tm;
    open_machine(&tm, name, &cfg);
    tally t;
    memset(&t, 0, sizeof t);
    if (mode != NO_SINK)
        rvt_machine_set_sink(tm.m, count_sink, &t);
    rvt_diag d = {{0}};
    rvt_machine_run(tm.m, &f->res, &d);
    for (unsigned r = 0; r < 32; r++)
        f->x[r] = rvt_machine_reg(tm.m, 0, r);
    uint64_t s1 = xlen == 32 ? (uint32_t)f->x[9] : f->x[9];
    assert_true(rvt_machine_read_mem(tm.m, s1, f->memory, sizeof f->memory));
    close_machine(&tm);
}

/* The pairs of operations code blocks run with one dispatch compute what
 * the same instructions do one at a time (programs/hart/pairs.S): the same
 * registers and memory with records per instruction (no code blocks), with
 * block records and without records (code blocks, and so the pairs). */
static void test_operation_pairs(void **state) {
    (void)state;
    static const struct { const char *name; unsigned xlen; } programs[] = {{"pairs64.elf", 64}, {"pairs32.elf", 32}};
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        struct final_state one_at_a_time, blocks;
        run_to_final_state(programs[i].name, programs[i].xlen, PER_INSTRUCTION, &one_at_a_time);
        assert_int_equal(one_at_a_time.res.reason, RVT_STOP_EXIT);
        assert_int_equal(one_at_a_time.res.exit_code, 0);
        for (enum sink_mode mode = BLOCKS; mode <= NO_SINK; mode++) {
            run_to_final_state(programs[i].name, programs[i].xlen, mode, &blocks);
            assert_int_equal(blocks.res.reason, RVT_STOP_EXIT);
            assert_int_equal(blocks.res.instret, one_at_a_time.res.instret);
            for (unsigned r = 0; r < 32; r++)
                if (blocks.x[r] != one_at_a_time.x[r])
                    fail_msg("%s, mode %d: x%u is %#llx, one instruction at a time %#llx", programs[i].name, (int)mode, r,
                             (unsigned long long)blocks.x[r], (unsigned long long)one_at_a_time.x[r]);
            assert_memory_equal(blocks.memory, one_at_a_time.memory, sizeof blocks.memory);
        }
    }
}

/* A packed sink that checks every record it is given against the code
 * (its last instruction's bits; a branch or jump there has its itype, any
 * other instruction none) and counts their instructions, but asks the run to stop after the
 * first batch. */
struct stop_check {
    rvt_machine *m;
    unsigned xlen;
    size_t retired, wrong;
    rvt_packed_state stream;
};

static int check_then_stop_packed(void *user, const rvt_retire_packed *slots, size_t n) {
    struct stop_check *c = user;
    for (size_t k = 0; k < n; k += rvt_packed_slots(&slots[k])) {
        uint32_t ninsns = rvt_packed_ninsns(&slots[k]);
        rvt_retire r;
        size_t used;
        if (!rvt_retire_unpack(&slots[k], rvt_packed_slots(&slots[k]), &r, 1, &used, &c->stream))
            continue; /* a state slot */
        assert_int_equal(r.ninsns, ninsns);
        if (!ninsns)
            continue;
        c->retired += ninsns;
        uint8_t b[4] = {0};
        rvt_machine_read_mem(c->m, rvt_retire_last_iaddr(&r), b, r.ilastsize ? 4 : 2);
        uint32_t bits = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        rvt_insn in;
        rvt_decode(bits, c->xlen, &in);
        bool branch_itype = r.itype == RVT_ITYPE_BRANCH_TAKEN || r.itype == RVT_ITYPE_BRANCH_NOT_TAKEN;
        bool transfer = in.cf == RVT_CF_BRANCH || in.cf == RVT_CF_JAL || in.cf == RVT_CF_JALR;
        if (bits != r.insn || (in.cf == RVT_CF_BRANCH) != branch_itype ||
            (in.cf == RVT_CF_NONE && r.itype != RVT_ITYPE_NONE) || (transfer && r.itype == RVT_ITYPE_NONE))
            c->wrong++;
    }
    return 1;
}

/* A sink that asks to stop, given its first full batch of block records
 * (from inside a code block, on these programs): the run stops there, and
 * every instruction it retired is in exactly one record, each whole, the
 * one being written as the batch went included. */
static void test_sink_stops_blocks(void **state) {
    (void)state;
    static const struct { const char *name; unsigned xlen; } programs[] = {{"blocks64.elf", 64}, {"blocks32.elf", 32}};
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        rvt_machine_config cfg;
        rvt_machine_config_default(&cfg);
        cfg.merge_blocks = true;
        test_machine tm;
        open_machine(&tm, programs[i].name, &cfg);
        struct stop_check c = {tm.m, programs[i].xlen, 0, 0, {0, 0}};
        rvt_machine_set_packed_sink(tm.m, check_then_stop_packed, NULL, &c);
        rvt_run_result res;
        rvt_diag d = {{0}};
        rvt_machine_run(tm.m, &res, &d);
        close_machine(&tm);
        assert_int_equal(res.reason, RVT_STOP_SINK);
        tally whole;
        rvt_run_result all;
        run_until_stop_mode(programs[i].name, RVT_CTR_0_1_4, BLOCKS, &whole, &all);
        assert_true(res.instret < all.instret);
        assert_int_equal(c.retired, res.instret);
        assert_int_equal(c.wrong, 0);
    }
}

/* The CLINT's mtime written by the program reads back through the time CSR. */
static void test_mtime_write(void **state) {
    (void)state;
    expect_pass("mtime64.elf");
}

static void test_atomics(void **state) {
    (void)state;
    expect_pass("amo64.elf");
    expect_pass("amo32.elf");
}

static void test_triggers(void **state) {
    (void)state;
    expect_pass("triggers64.elf");
    expect_pass("triggers32.elf");
}

static void test_pmp(void **state) {
    (void)state;
    expect_pass("pmp64.elf");
    expect_pass("pmp32.elf");
}

static void test_floating_point(void **state) {
    (void)state;
    expect_pass("fp64.elf");
}

/* A handler that cannot be fetched: the run stops with the hart's pc and
 * its last trap instead of spinning until the instruction limit. */
static void test_no_progress(void **state) {
    (void)state;
    tally t;
    rvt_run_result res;
    run_until_stop("stuck64.elf", &t, &res);
    assert_int_equal(res.reason, RVT_STOP_NO_PROGRESS);
    assert_int_equal(res.hart, 0);
    assert_true(res.had_trap);
    assert_int_equal(res.last_trap_cause, 1); /* instruction access fault */
    assert_int_equal(res.last_trap_pc, 0x10000000);
    assert_int_equal(res.pc, 0x10000000);
    assert_true(res.traps < 2000); /* stopped long before --max-insns */
}

/* The rows of recs, handed to the reference filter `batch` records at a time. */
static char *rows_in_batches(const rvt_retire *recs, size_t n, enum rvt_row_format fmt, size_t batch) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    rvt_row_writer *w;
    rvt_ref_filter *filter;
    assert_int_equal(rvt_row_writer_new(&w, f, fmt), 0);
    assert_int_equal(rvt_ref_filter_new(&filter, rvt_row_writer_sink, w), 0);
    for (size_t i = 0; i < n; i += batch)
        assert_int_equal(rvt_ref_filter_sink(filter, recs + i, n - i < batch ? n - i : batch), 0);
    rvt_ref_filter_free(filter);
    assert_int_equal(rvt_row_writer_finish(w), 0);
    fclose(f);
    return buf;
}

static char *rows_of(const rvt_retire *recs, size_t n, enum rvt_row_format fmt) {
    return rows_in_batches(recs, n, fmt, n);
}

/* The conventions of the corpus CSV, on records made up for the purpose. */
static void test_row_conventions(void **state) {
    (void)state;
    rvt_retire recs[] = {
        {.iaddr = 0x100, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x104, .insn = 0x6f, .ninsns = 1, .priv = 3}, /* j . twice: one row */
        {.iaddr = 0x104, .insn = 0x6f, .ninsns = 1, .priv = 3},
        {.iaddr = 0x108, .itype = RVT_ITYPE_INTERRUPT, .cause = (1ull << 63) | 7, .priv = 3},
        {.iaddr = 0x200, .insn = 0x0, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .cause = 2, .priv = 3},
        {.iaddr = 0x300, .insn = 0x73, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .cause = 11, .priv = 3},
        {.iaddr = 0x400, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x404, .insn = 0x13, .ninsns = 1, .priv = 3}, /* the final row is left out */
    };
    char *csv = rows_of(recs, sizeof recs / sizeof recs[0], RVT_ROWS_SPIKE_CSV);
    assert_string_equal(csv,
                        "VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n"
                        "1,100,13,3,0,0,0,0\n"
                        "1,104,6f,3,1,8000000000000007,0,1\n"
                        "1,200,0,3,1,2,0,0\n"
                        "1,300,73,3,1,b,0,0\n"
                        "1,400,13,3,0,0,0,0\n");
    free(csv);
    char *pcs = rows_of(recs, sizeof recs / sizeof recs[0], RVT_ROWS_PCS);
    /* Interrupted rows and trapped non-ecall instructions are not executed. */
    assert_string_equal(pcs, "100\n300\n400\n");
    free(pcs);
}

/* The filter passes records on in runs straight from the batches it is
 * given, holding back the last row: wherever the batches end (inside a
 * one-instruction loop, between a row and the interrupt that marks it), the
 * rows are those of the whole stream at once. */
static void test_row_conventions_in_batches(void **state) {
    (void)state;
    rvt_retire recs[] = {
        {.iaddr = 0x100, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x104, .insn = 0x6f, .ninsns = 1, .priv = 3}, /* j . three times: one row */
        {.iaddr = 0x104, .insn = 0x6f, .ninsns = 1, .priv = 3},
        {.iaddr = 0x104, .insn = 0x6f, .ninsns = 1, .priv = 3},
        {.iaddr = 0x108, .itype = RVT_ITYPE_INTERRUPT, .cause = (1ull << 63) | 7, .priv = 3},
        {.iaddr = 0x200, .insn = 0x0, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .cause = 2, .priv = 3},
        {.iaddr = 0x300, .insn = 0x13, .ninsns = 3, .iretire = 6, .ilastsize = 1, .priv = 3}, /* a block: one row */
        {.iaddr = 0x308, .insn = 0x13, .ninsns = 1, .priv = 3}, /* repeats its last instruction */
        {.iaddr = 0x308, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x30c, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x310, .insn = 0x6f, .ninsns = 1, .priv = 3},
        {.iaddr = 0x310, .insn = 0x6f, .ninsns = 1, .priv = 3},
        {.iaddr = 0x314, .itype = RVT_ITYPE_INTERRUPT, .cause = (1ull << 63) | 7, .priv = 3},
        {.iaddr = 0x400, .insn = 0x13, .ninsns = 1, .priv = 3}, /* the final row is left out */
    };
    size_t n = sizeof recs / sizeof recs[0];
    const char *want = "VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n"
                       "1,100,13,3,0,0,0,0\n"
                       "1,104,6f,3,1,8000000000000007,0,1\n"
                       "1,200,0,3,1,2,0,0\n"
                       "1,300,13,3,0,0,0,0\n"
                       "1,30c,13,3,0,0,0,0\n"
                       "1,310,6f,3,1,8000000000000007,0,1\n";
    for (size_t batch = 1; batch <= n; batch++) {
        char *csv = rows_in_batches(recs, n, RVT_ROWS_SPIKE_CSV, batch);
        assert_string_equal(csv, want);
        free(csv);
    }
}

/* spike logs no row for an instruction it could not fetch: a fetch fault or
 * an execute trigger marks the row of the jump that went there; an ebreak
 * (which was fetched: it has bits) keeps a row of its own. */
static void test_fetch_faults_fold(void **state) {
    (void)state;
    rvt_retire recs[] = {
        {.iaddr = 0x100, .insn = 0x30200073, .ninsns = 1, .priv = 3, .itype = RVT_ITYPE_XRET}, /* mret */
        {.iaddr = 0x2a14, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .cause = 12, .tval = 0x2a14, .priv = 0},
        {.iaddr = 0x200, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x204, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .cause = 3, .tval = 0x204, .priv = 3},
        {.iaddr = 0x300, .insn = 0x100073, .ninsns = 0, .itype = RVT_ITYPE_EXCEPTION, .cause = 3, .tval = 0x300,
         .ilastsize = 1, .priv = 3}, /* ebreak */
        {.iaddr = 0x400, .insn = 0x13, .ninsns = 1, .priv = 3},
        {.iaddr = 0x404, .insn = 0x13, .ninsns = 1, .priv = 3}, /* the final row is left out */
    };
    char *csv = rows_of(recs, sizeof recs / sizeof recs[0], RVT_ROWS_SPIKE_CSV);
    assert_string_equal(csv,
                        "VALID,ADDRESS,INSN,PRIVILEGE,EXCEPTION,ECAUSE,TVAL,INTERRUPT\n"
                        "1,100,30200073,3,1,c,2a14,0\n"
                        "1,200,13,3,1,3,204,0\n"
                        "1,300,100073,3,1,3,300,0\n"
                        "1,400,13,3,0,0,0,0\n");
    free(csv);
}

/* A program that waits for the host's answer to a proxied system call, and
 * ends through one, goes on and ends when stepped as when run: the host
 * answers HTIF between single steps too. */
static void test_step_serves_htif(void **state) {
    (void)state;
    for (unsigned xlen = 64; xlen >= 32; xlen -= 32) {
        char name[32];
        snprintf(name, sizeof name, "syscall%u.elf", xlen);
        rvt_machine_config cfg;
        rvt_machine_config_default(&cfg);
        test_machine tm;
        open_machine(&tm, name, &cfg);
        FILE *console = tmpfile();
        assert_non_null(console);
        rvt_machine_free(tm.m); /* (again, with a console to read) */
        cfg.console = console;
        rvt_diag d = {{0}};
        assert_int_equal(rvt_machine_new(&tm.m, &cfg, tm.img, &d), 0);
        unsigned steps = 0;
        while (!rvt_machine_exited(tm.m) && steps < 10000) {
            rvt_machine_step(tm.m, false);
            steps++;
        }
        assert_true(rvt_machine_exited(tm.m));
        char out[8] = {0};
        rewind(console);
        assert_int_equal(fread(out, 1, sizeof out, console), 3);
        assert_string_equal(out, "hi\n");
        fclose(console);
        close_machine(&tm);
        /* the same program run */
        rvt_run_result res;
        tally t;
        assert_int_equal(run_program(name, &t, &res), 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traps),
        cmocka_unit_test(test_interrupts),
        cmocka_unit_test(test_virtual_memory),
        cmocka_unit_test(test_code_watch),
        cmocka_unit_test(test_code_blocks),
        cmocka_unit_test(test_sink_stops_blocks),
        cmocka_unit_test(test_operation_pairs),
        cmocka_unit_test(test_mtime_write),
        cmocka_unit_test(test_atomics),
        cmocka_unit_test(test_floating_point),
        cmocka_unit_test(test_triggers),
        cmocka_unit_test(test_pmp),
        cmocka_unit_test(test_ctr),
        cmocka_unit_test(test_ctr_cycle_encoding),
        cmocka_unit_test(test_pmu),
        cmocka_unit_test(test_row_conventions),
        cmocka_unit_test(test_row_conventions_in_batches),
        cmocka_unit_test(test_fetch_faults_fold),
        cmocka_unit_test(test_no_progress),
        cmocka_unit_test(test_step_serves_htif),
    };
    return cmocka_run_group_tests_name("hart", tests, NULL, NULL);
}
