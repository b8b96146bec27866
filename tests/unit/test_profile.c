/* Unit tests of the profile module: the run path (a run of sequential
 * instructions counted as a whole) and the walk path (a decoder's kept walk
 * handed out again, counted whole the next times) give every output byte
 * for byte as the address-at-a-time path does, and gmon.out has the layout gprof reads
 * (header, histogram records repeated past 16-bit bins, call arcs). The
 * outputs against the tools themselves: tests/e2e/profile_tools.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rvtrace/profile.h"

static rvt_image *load(const char *name) {
    char path[4096];
    const char *shared = getenv("RVT_SHARED");
    snprintf(path, sizeof path, "%s/corpus/programs/%s", shared ? shared : "../shared", name);
    rvt_image *img;
    rvt_diag d = {{0}};
    assert_int_equal(rvt_image_new(&img), 0);
    if (rvt_image_load_elf(img, path, 0, &d))
        fail_msg("%s", d.msg);
    return img;
}

/* A plausible flow through the program's code: straight on, direct jumps
 * and calls followed, returns to the matching call, branches taken about
 * one time in three (a fixed pseudo-random sequence), and a fresh start at
 * the entry where the target is unknown or the code jumps to itself. */
static size_t make_flow(rvt_image *img, uint64_t *pcs, size_t max) {
    uint64_t stack[256], pc = rvt_image_entry(img), coin = 0x9e3779b97f4a7c15u;
    size_t depth = 0, n = 0;
    while (n < max) {
        const rvt_insn *in = rvt_image_insn(img, pc);
        if (!in) {
            pc = rvt_image_entry(img);
            depth = 0;
            continue;
        }
        pcs[n++] = pc;
        uint64_t next = pc + in->len;
        if (in->cf == RVT_CF_JAL) {
            if (in->rd != 0 && depth < 256)
                stack[depth++] = next;
            next = pc + (uint64_t)in->imm;
        } else if (in->cf == RVT_CF_BRANCH) {
            coin ^= coin << 13, coin ^= coin >> 7, coin ^= coin << 17;
            if (coin % 3 == 0)
                next = pc + (uint64_t)in->imm;
        } else if (in->cf == RVT_CF_JALR || in->cf == RVT_CF_TRAP || in->cf == RVT_CF_XRET) {
            next = in->jclass == RVT_JUMP_RETURN && depth ? stack[--depth] : rvt_image_entry(img);
        }
        if (next == pc) { /* j . : the program's end */
            next = rvt_image_entry(img);
            depth = 0;
        }
        pc = next;
    }
    return n;
}

typedef int (*writer)(rvt_profile *, FILE *);

static char *written(rvt_profile *p, writer w, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(w(p, f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static int write_callgrind(rvt_profile *p, FILE *f) { return rvt_profile_write_callgrind(p, f, "test"); }
static int write_lcov(rvt_profile *p, FILE *f) { return rvt_profile_write_lcov(p, f, "test"); }
static int write_top(rvt_profile *p, FILE *f) { return rvt_profile_write_top(p, f, 1000); }
static int write_html(rvt_profile *p, FILE *f) {
    rvt_report_info info = {"program", "trace", "format", 1000, 10, 0};
    return rvt_profile_write_html(p, f, &info);
}

/* Walks as a decoder hands them out: blocks up to an indirect jump (where
 * a packet would be; with `over_jumps`, past it, so returns fall inside
 * walks), at most `max` of them; the same blocks get the same id, but
 * every fifth time a new one (as when a decoder forgets a walk). */
typedef struct {
    rvt_block *blocks;
    uint32_t n;
    uint64_t id, uses;
} known_walk;
enum { KNOWN_WALKS = 1 << 16 };

static uint64_t walk_id(known_walk *known, const rvt_block *b, uint32_t n, uint64_t *next_id) {
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ b[i].start ^ (uint64_t)b[i].n << 48) * 0x9e3779b97f4a7c15u;
    for (size_t k = h >> 48;; k = (k + 1) % KNOWN_WALKS) {
        known_walk *w = &known[k];
        if (!w->blocks) {
            assert_non_null(w->blocks = malloc(n * sizeof *b));
            memcpy(w->blocks, b, n * sizeof *b);
            w->n = n;
            w->id = ++*next_id;
        } else if (w->n != n || memcmp(w->blocks, b, n * sizeof *b)) {
            continue;
        }
        if (++w->uses % 5 == 0)
            w->id = ++*next_id;
        return w->id;
    }
}

static void feed_walks(rvt_profile *p, rvt_image *img, const uint64_t *pcs, size_t n, uint32_t max, bool over_jumps) {
    known_walk *known = calloc(KNOWN_WALKS, sizeof *known);
    rvt_block *walk = malloc(max * sizeof *walk);
    assert_non_null(known);
    assert_non_null(walk);
    uint64_t next_id = 0;
    uint32_t nw = 0;
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        while (k < n && k - i < RVT_RUN_MAX && pcs[k] == pcs[k - 1] + rvt_image_insn(img, pcs[k - 1])->len)
            k++;
        const rvt_insn *last = rvt_image_insn(img, pcs[k - 1]);
        walk[nw++] = (rvt_block){pcs[i], (uint32_t)(pcs[k - 1] + last->len - pcs[i]), (uint32_t)(k - i)};
        i = k;
        if (nw == max || i == n || (!over_jumps && last->cf == RVT_CF_JALR)) {
            assert_int_equal(rvt_profile_walk(p, walk_id(known, walk, nw, &next_id), walk, nw), 0);
            nw = 0;
        }
    }
    for (size_t k = 0; k < KNOWN_WALKS; k++)
        free(known[k].blocks);
    free(known);
    free(walk);
}

static void check_same_outputs(const char *program) {
    rvt_image *img = load(program);
    enum { FLOW = 300000 };
    uint64_t *pcs = malloc(FLOW * sizeof *pcs);
    assert_non_null(pcs);
    size_t n = make_flow(img, pcs, FLOW);
    rvt_profile *one, *runs, *walks, *long_walks, *walks_over_jumps;
    assert_int_equal(rvt_profile_new(&one, img), 0);
    assert_int_equal(rvt_profile_new(&runs, img), 0);
    assert_int_equal(rvt_profile_new(&walks, img), 0);
    assert_int_equal(rvt_profile_new(&long_walks, img), 0);
    assert_int_equal(rvt_profile_new(&walks_over_jumps, img), 0);
    feed_walks(walks, img, pcs, n, 12, false);
    feed_walks(long_walks, img, pcs, n, 64, false); /* (longer than the profile keeps) */
    feed_walks(walks_over_jumps, img, pcs, n, 9, true); /* (returns inside walks) */
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rvt_profile_pc(one, pcs[i]), 0);
    size_t calls = 0, multi = 0;
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        while (k < n && k - i < RVT_RUN_MAX && pcs[k] == pcs[k - 1] + rvt_image_insn(img, pcs[k - 1])->len)
            k++;
        assert_int_equal(rvt_profile_run(runs, pcs[i], (uint32_t)(k - i), 0), 0);
        calls++;
        multi += k - i > 1;
        i = k;
    }
    assert_true(multi > calls / 4); /* the flow has runs worth the name */
    assert_int_equal(rvt_profile_total(one), n);
    assert_int_equal(rvt_profile_total(runs), n);
    assert_int_equal(rvt_profile_total(walks), n);
    assert_int_equal(rvt_profile_total(walks_over_jumps), n);
    writer writers[] = {rvt_profile_write_folded, rvt_profile_write_coverage, write_top, write_callgrind,
                        write_lcov, rvt_profile_write_gmon, write_html};
    rvt_profile *others[] = {runs, walks, long_walks, walks_over_jumps};
    for (size_t w = 0; w < sizeof writers / sizeof writers[0]; w++) {
        size_t la, lb;
        char *a = written(one, writers[w], &la);
        assert_true(la > 0 || writers[w] == write_lcov); /* lcov: only with DWARF lines */
        for (size_t o = 0; o < sizeof others / sizeof others[0]; o++) {
            char *b = written(others[o], writers[w], &lb);
            assert_int_equal(la, lb);
            assert_memory_equal(a, b, la);
            free(b);
        }
        free(a);
    }
    rvt_profile_free(one);
    rvt_profile_free(runs);
    rvt_profile_free(walks);
    rvt_profile_free(long_walks);
    rvt_profile_free(walks_over_jumps);
    rvt_image_free(img);
    free(pcs);
}

static void test_runs_equal_addresses_rv64(void **state) {
    (void)state;
    check_same_outputs("coremark.riscv");
}

static void test_runs_equal_addresses_rv32(void **state) {
    (void)state;
    check_same_outputs("embench-sglib-combined.riscv"); /* DWARF lines: lcov has records */
}

static uint64_t le(const unsigned char *p, unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* One address run 70000 times and one call: two histogram records of the
 * same range (65535 + 4465 in the address's bin) and one arc. */
static void test_gmon_layout(void **state) {
    (void)state;
    rvt_image *img = load("embench-crc32.riscv"); /* RV32: 4-byte addresses */
    uint64_t entry = rvt_image_entry(img), call = 0;
    for (uint64_t a = entry; !call; a += rvt_image_insn(img, a)->len)
        if (rvt_image_insn(img, a)->jclass == RVT_JUMP_CALL)
            call = a;
    const rvt_insn *ci = rvt_image_insn(img, call);
    uint64_t target = call + (uint64_t)ci->imm;
    rvt_profile *p;
    assert_int_equal(rvt_profile_new(&p, img), 0);
    for (int i = 0; i < 70000; i++)
        assert_int_equal(rvt_profile_pc(p, entry), 0);
    assert_int_equal(rvt_profile_pc(p, call), 0);
    assert_int_equal(rvt_profile_pc(p, target), 0);
    size_t len;
    unsigned char *g = (unsigned char *)written(p, rvt_profile_write_gmon, &len);
    assert_memory_equal(g, "gmon", 4);
    assert_int_equal(le(g + 4, 4), 1);
    size_t at = 20, hist = 0, arcs = 0;
    uint64_t entry_samples = 0, low = 0, high = 0;
    while (at < len) {
        unsigned tag = g[at++];
        if (tag == 0) {
            uint64_t lo = le(g + at, 4), hi = le(g + at + 4, 4), bins = le(g + at + 8, 4);
            assert_int_equal(le(g + at + 12, 4), 1); /* rate: one sample is one instruction */
            assert_string_equal((const char *)g + at + 16, "instructions");
            assert_int_equal(bins, (hi - lo) / 2);
            if (hist) {
                assert_int_equal(lo, low);
                assert_int_equal(hi, high);
            }
            low = lo, high = hi;
            at += 32;
            entry_samples += le(g + at + (entry - lo), 2); /* bin (entry - lo) / 2, 2 bytes each */
            at += 2 * bins;
            hist++;
        } else {
            assert_int_equal(tag, 1);
            assert_int_equal(le(g + at, 4), call);
            assert_int_equal(le(g + at + 4, 4), target);
            assert_int_equal(le(g + at + 8, 4), 1);
            at += 12;
            arcs++;
        }
    }
    assert_int_equal(at, len);
    assert_int_equal(hist, 2);
    assert_int_equal(arcs, 1);
    assert_int_equal(entry_samples, 70000);
    assert_true(low <= entry && high >= target + 2);
    free(g);
    rvt_profile_free(p);
    rvt_image_free(img);
}

static uint64_t after(rvt_image *img, uint64_t pc) { return pc + rvt_image_insn(img, pc)->len; }

/* A walk first seen whose runs are new to the profile, with the run table
 * growing part way through it (at its 513th run): the runs counted before
 * the move are found again where they went. The walk comes twice (the
 * second time as kept), the same blocks go one by one to another profile,
 * and both write the same. (The runs of the walk's first blocks used to
 * keep their places in the freed table: a use after free.) */
static void test_walk_moves_run_table(void **state) {
    (void)state;
    rvt_image *img = load("coremark.riscv");
    enum { BEFORE = 509, WALK = 8, INSNS = 2 * BEFORE + 3 * WALK + 2 };
    uint64_t pcs[INSNS], at = rvt_image_entry(img);
    for (size_t i = 0; i < INSNS;) { /* instructions in address order (over what is not one) */
        const rvt_insn *in = rvt_image_insn(img, at);
        if (in)
            pcs[i++] = at;
        at += in ? in->len : 2;
    }
    rvt_block walk[WALK];
    for (size_t j = 0; j < WALK; j++) {
        uint64_t first = pcs[2 * BEFORE + 3 * j];
        walk[j] = (rvt_block){first, (uint32_t)(after(img, pcs[2 * BEFORE + 3 * j + 1]) - first), 2};
    }
    rvt_profile *as_walk, *as_blocks;
    assert_int_equal(rvt_profile_new(&as_walk, img), 0);
    assert_int_equal(rvt_profile_new(&as_blocks, img), 0);
    for (size_t k = 0; k < BEFORE; k++) { /* runs of two, all different */
        assert_int_equal(rvt_profile_block(as_walk, pcs[2 * k], after(img, pcs[2 * k + 1]), 2), 0);
        assert_int_equal(rvt_profile_block(as_blocks, pcs[2 * k], after(img, pcs[2 * k + 1]), 2), 0);
    }
    for (int pass = 0; pass < 2; pass++) {
        assert_int_equal(rvt_profile_walk(as_walk, 7, walk, WALK), 0);
        for (size_t j = 0; j < WALK; j++)
            assert_int_equal(rvt_profile_block(as_blocks, walk[j].start, rvt_block_end(&walk[j]), walk[j].n), 0);
    }
    assert_int_equal(rvt_profile_total(as_walk), 2 * BEFORE + 2 * 2 * WALK);
    writer writers[] = {rvt_profile_write_folded, rvt_profile_write_coverage, write_callgrind};
    for (size_t w = 0; w < sizeof writers / sizeof writers[0]; w++) {
        size_t la, lb;
        char *a = written(as_blocks, writers[w], &la), *b = written(as_walk, writers[w], &lb);
        assert_int_equal(la, lb);
        assert_memory_equal(a, b, la);
        free(a);
        free(b);
    }
    rvt_profile_free(as_walk);
    rvt_profile_free(as_blocks);
    rvt_image_free(img);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_equal_addresses_rv64),
        cmocka_unit_test(test_runs_equal_addresses_rv32),
        cmocka_unit_test(test_walk_moves_run_table),
        cmocka_unit_test(test_gmon_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
