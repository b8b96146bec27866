/* The hart model's units called directly, below the level of programs:
 * address translation (Sv39, Sv32), PMP matching, the WARL rules of the CSR
 * file, and the platform's device registers and device tree. Expected values
 * come from the privileged specification (page-table walk, PMP address
 * matching, CSR fields) and from the devices' datasheets as spike maps them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libfdt.h>

#include "machine.h"

enum { PTE_V = 1, PTE_R = 2, PTE_W = 4, PTE_X = 8, PTE_U = 16, PTE_G = 32, PTE_A = 64, PTE_D = 128 };
enum { PMP_R = 1, PMP_W = 2, PMP_X = 4, PMP_TOR = 0x08, PMP_NA4 = 0x10, PMP_NAPOT = 0x18, PMP_L = 0x80 };

#define RAM_BASE 0x80000000ull
#define ROOT 0x80100000ull /* page tables: root, then the next levels */
#define LEVEL1 0x80101000ull
#define LEVEL0 0x80102000ull

typedef struct {
    rvt_image *img;
    rvt_machine *m;
    hart *h;
    FILE *console;
} unit_machine;

/* A machine with 8 MiB of RAM at RAM_BASE and a 4-byte program; `board`:
 * the machine for supervisor software (PLIC, UART, test finisher, device
 * tree), whose UART receives `input` (may be NULL). */
static void machine_up_with(unit_machine *u, unsigned xlen, bool board, FILE *input) {
    static const uint8_t nop[4] = {0x13, 0, 0, 0};
    rvt_diag d = {0};
    assert_int_equal(rvt_image_new(&u->img), 0);
    assert_int_equal(rvt_image_load_raw(u->img, "nop", nop, sizeof nop, RAM_BASE, 0, xlen, &d), 0);
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.ram[0] = (rvt_mem_region){RAM_BASE, 0x800000};
    cfg.nram = 1;
    cfg.board = board;
    u->console = tmpfile();
    assert_non_null(u->console);
    cfg.console = u->console;
    cfg.console_input = input;
    assert_int_equal(rvt_machine_new(&u->m, &cfg, u->img, &d), 0);
    u->h = &u->m->harts[0];
}

static void machine_up(unit_machine *u, unsigned xlen, bool board) { machine_up_with(u, xlen, board, NULL); }

static void machine_down(unit_machine *u) {
    rvt_machine_free(u->m);
    rvt_image_free(u->img);
    fclose(u->console);
}

static void put(unit_machine *u, uint64_t pa, uint64_t v, unsigned len) {
    assert_true(rvt_machine_write_mem(u->m, pa, &v, len));
}

/* ------------------------------------------------------------ Sv39 */

/* VA 0x40203000 (VPN 1, 1, 3) through three levels to PA 0x80200000 with
 * `flags`; VA 0x40400000 (VPN 1, 2) as a 2 MiB leaf at `mega_ppn`. */
static void sv39_tables(unit_machine *u, uint64_t flags, uint64_t mega_ppn, uint64_t mega_flags) {
    put(u, ROOT + 1 * 8, (LEVEL1 >> 12) << 10 | PTE_V, 8);
    put(u, LEVEL1 + 1 * 8, (LEVEL0 >> 12) << 10 | PTE_V, 8);
    put(u, LEVEL0 + 3 * 8, (0x80200000ull >> 12) << 10 | flags, 8);
    put(u, LEVEL1 + 2 * 8, mega_ppn << 10 | mega_flags, 8);
    u->h->satp = 8ull << 60 | ROOT >> 12;
}

/* A translation by a walk of the tables as they are now (the TLB forgets). */
static bool walk(unit_machine *u, uint64_t va, enum access acc, uint64_t *pa) {
    forget_fetch_pages(u->h);
    u->h->exc_cause = u->h->exc_tval = ~0ull;
    return mmu_translate(u->h, va, acc, acc == ACC_FETCH ? 2 : 8, pa);
}

static void expect_fault(unit_machine *u, uint64_t va, enum access acc, uint64_t cause) {
    uint64_t pa;
    assert_false(walk(u, va, acc, &pa));
    assert_int_equal(u->h->exc_cause, cause);
    assert_int_equal(u->h->exc_tval, va);
}

static void test_sv39_walk(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    const uint64_t rwx = PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D;
    sv39_tables(&u, rwx, 0x80600, rwx);
    u.h->priv = PRV_S;
    uint64_t pa = 0;
    assert_true(walk(&u, 0x40203ab8, ACC_LOAD, &pa));
    assert_int_equal(pa, 0x80200ab8);
    assert_true(walk(&u, 0x40203ab8, ACC_STORE, &pa));
    assert_true(walk(&u, 0x40203ab8, ACC_FETCH, &pa));
    /* the 2 MiB leaf keeps VA bits 20..0 */
    assert_true(walk(&u, 0x404c5670, ACC_LOAD, &pa));
    assert_int_equal(pa, 0x806c5670);
    /* M-mode does not translate; MPRV makes its loads and stores use MPP */
    u.h->priv = PRV_M;
    assert_true(walk(&u, 0x40203ab8, ACC_LOAD, &pa));
    assert_int_equal(pa, 0x40203ab8);
    u.h->mstatus |= MSTATUS_MPRV | (uint64_t)PRV_S << 11;
    assert_true(walk(&u, 0x40203ab8, ACC_LOAD, &pa));
    assert_int_equal(pa, 0x80200ab8);
    assert_true(walk(&u, 0x40203ab8, ACC_FETCH, &pa)); /* fetches ignore MPRV */
    assert_int_equal(pa, 0x40203ab8);
    /* bits 63..39 must all equal bit 38 */
    u.h->priv = PRV_S;
    u.h->mstatus &= ~MSTATUS_MPRV;
    expect_fault(&u, 0x0000008040203000ull, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    expect_fault(&u, 0x40303000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT); /* an empty last-level entry */
    machine_down(&u);
}

static void test_sv39_accessed_dirty(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    u.h->priv = PRV_S;
    uint64_t pa;
    /* Svade: a leaf without A faults on any access, one without D on stores */
    sv39_tables(&u, PTE_V | PTE_R | PTE_W | PTE_X | PTE_D, 0x80600, PTE_V | PTE_R | PTE_W | PTE_A);
    expect_fault(&u, 0x40203000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    expect_fault(&u, 0x40203000, ACC_FETCH, CAUSE_FETCH_PAGE_FAULT);
    assert_true(walk(&u, 0x40400000, ACC_LOAD, &pa));
    expect_fault(&u, 0x40400000, ACC_STORE, CAUSE_STORE_PAGE_FAULT);
    machine_down(&u);
}

static void test_sv39_permissions(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    uint64_t pa;
    const uint64_t ad = PTE_V | PTE_A | PTE_D;
    /* a user page: U-mode uses it, S-mode loads only with SUM and never fetches */
    sv39_tables(&u, ad | PTE_R | PTE_W | PTE_X | PTE_U, 0x80600, ad | PTE_X);
    u.h->priv = PRV_U;
    assert_true(walk(&u, 0x40203000, ACC_STORE, &pa));
    u.h->priv = PRV_S;
    expect_fault(&u, 0x40203000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    u.h->mstatus |= MSTATUS_SUM;
    assert_true(walk(&u, 0x40203000, ACC_LOAD, &pa));
    expect_fault(&u, 0x40203000, ACC_FETCH, CAUSE_FETCH_PAGE_FAULT);
    /* a supervisor page is not U-mode's */
    u.h->priv = PRV_U;
    expect_fault(&u, 0x40400000, ACC_FETCH, CAUSE_FETCH_PAGE_FAULT);
    /* execute-only: loads only with MXR, stores never */
    u.h->priv = PRV_S;
    assert_true(walk(&u, 0x40400000, ACC_FETCH, &pa));
    expect_fault(&u, 0x40400000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    u.h->mstatus |= MSTATUS_MXR;
    assert_true(walk(&u, 0x40400000, ACC_LOAD, &pa));
    expect_fault(&u, 0x40400000, ACC_STORE, CAUSE_STORE_PAGE_FAULT);
    /* W without R is reserved */
    sv39_tables(&u, ad | PTE_W, 0x80600, ad | PTE_R);
    expect_fault(&u, 0x40203000, ACC_STORE, CAUSE_STORE_PAGE_FAULT);
    /* a superpage whose PPN is not aligned to its size */
    sv39_tables(&u, ad | PTE_R, 0x80601, ad | PTE_R);
    expect_fault(&u, 0x40400000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    /* reserved bits 63..54 set in a leaf */
    sv39_tables(&u, ad | PTE_R | 1ull << 60, 0x80600, ad | PTE_R);
    expect_fault(&u, 0x40203000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    /* a pointer at the last level, and A set in a pointer */
    sv39_tables(&u, PTE_V, 0x80600, ad | PTE_R);
    expect_fault(&u, 0x40203000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    put(&u, LEVEL1 + 1 * 8, (LEVEL0 >> 12) << 10 | PTE_V | PTE_A, 8);
    expect_fault(&u, 0x40203000, ACC_LOAD, CAUSE_LOAD_PAGE_FAULT);
    machine_down(&u);
}

static void test_sv39_pmp_on_walk(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    const uint64_t rwx = PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D;
    sv39_tables(&u, rwx, 0x80600, rwx);
    u.h->priv = PRV_S;
    /* S may reach only what lies below the root table: the walk's first
     * access is an access fault of the access's own kind */
    u.h->pmpaddr[0] = ROOT >> 2;
    u.h->pmpcfg[0] = PMP_TOR | PMP_R | PMP_W | PMP_X;
    pmp_changed(u.h); /* as a PMP CSR write does */
    expect_fault(&u, 0x40203000, ACC_STORE, CAUSE_STORE_ACCESS);
    expect_fault(&u, 0x40203000, ACC_FETCH, CAUSE_FETCH_ACCESS);
    /* tables reachable, the page not */
    u.h->pmpaddr[0] = 0x80200000 >> 2;
    pmp_changed(u.h); /* as a PMP CSR write does */
    expect_fault(&u, 0x40203000, ACC_LOAD, CAUSE_LOAD_ACCESS);
    machine_down(&u);
}

/* ------------------------------------------------------------ Sv32 */

static void test_sv32_walk(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 32, false);
    const uint64_t rwx = PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D;
    /* VA 0x40203000: VPN1 0x100, VPN0 0x203; VA 0x40400000: a 4 MiB leaf */
    put(&u, ROOT + 0x100 * 4, (LEVEL0 >> 12) << 10 | PTE_V, 4);
    put(&u, LEVEL0 + 0x203 * 4, (0x80200000ull >> 12) << 10 | rwx, 4);
    put(&u, ROOT + 0x101 * 4, 0x80400ull << 10 | rwx, 4);
    u.h->satp = 1ull << 31 | ROOT >> 12;
    u.h->priv = PRV_S;
    uint64_t pa = 0;
    u.h->exc_cause = 0;
    assert_true(mmu_translate(u.h, 0x40203ffc, ACC_STORE, 4, &pa));
    assert_int_equal(pa, 0x80200ffc);
    assert_true(mmu_translate(u.h, 0x407ffff0, ACC_LOAD, 4, &pa));
    assert_int_equal(pa, 0x807ffff0);
    /* clear D: stores fault; a misaligned 4 MiB leaf faults */
    put(&u, LEVEL0 + 0x203 * 4, (0x80200000ull >> 12) << 10 | (rwx & ~(uint64_t)PTE_D), 4);
    forget_fetch_pages(u.h);
    assert_false(mmu_translate(u.h, 0x40203000, ACC_STORE, 4, &pa));
    assert_int_equal(u.h->exc_cause, CAUSE_STORE_PAGE_FAULT);
    put(&u, ROOT + 0x101 * 4, 0x80401ull << 10 | rwx, 4);
    forget_fetch_pages(u.h);
    assert_false(mmu_translate(u.h, 0x40400000, ACC_LOAD, 4, &pa));
    assert_int_equal(u.h->exc_cause, CAUSE_LOAD_PAGE_FAULT);
    assert_int_equal(u.h->exc_tval, 0x40400000);
    machine_down(&u);
}

/* The TLB keeps a translation until the hart forgets (a trap, a serialising
 * instruction, sfence.vma): a page-table store alone does not change it, as
 * on hardware; each kind of access has its own; PMP is still checked per
 * access where it does not allow a whole page. */
static void test_tlb(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    const uint64_t ad = PTE_V | PTE_A | PTE_D;
    sv39_tables(&u, ad | PTE_R | PTE_W, 0x80600, ad | PTE_R);
    u.h->priv = PRV_S;
    uint64_t pa = 0;
    assert_true(walk(&u, 0x40203010, ACC_LOAD, &pa));
    put(&u, LEVEL0 + 3 * 8, (0x80300000ull >> 12) << 10 | ad | PTE_R | PTE_W, 8);
    assert_true(mmu_translate(u.h, 0x40203020, ACC_LOAD, 8, &pa));
    assert_int_equal(pa, 0x80200020); /* the translation it keeps */
    assert_true(mmu_translate(u.h, 0x40203020, ACC_STORE, 8, &pa));
    assert_int_equal(pa, 0x80300020); /* stores had none yet: a walk */
    forget_fetch_pages(u.h);
    assert_true(mmu_translate(u.h, 0x40203020, ACC_LOAD, 8, &pa));
    assert_int_equal(pa, 0x80300020);
    /* a load's translation does not serve a store */
    assert_true(mmu_translate(u.h, 0x40400000, ACC_LOAD, 8, &pa));
    assert_false(mmu_translate(u.h, 0x40400000, ACC_STORE, 8, &pa));
    assert_int_equal(u.h->exc_cause, CAUSE_STORE_PAGE_FAULT);
    /* PMP allows S only the first half of the page: a hit checks it */
    memset(u.h->pmpcfg, 0, sizeof u.h->pmpcfg);
    u.h->pmpaddr[0] = 0x80300800 >> 2;
    u.h->pmpcfg[0] = PMP_TOR | PMP_R | PMP_W | PMP_X;
    pmp_changed(u.h); /* as a PMP CSR write does */
    forget_fetch_pages(u.h);
    assert_true(mmu_translate(u.h, 0x40203000, ACC_LOAD, 8, &pa));
    assert_false(mmu_translate(u.h, 0x40203800, ACC_LOAD, 8, &pa));
    assert_int_equal(u.h->exc_cause, CAUSE_LOAD_ACCESS);
    assert_true(mmu_translate(u.h, 0x402037f8, ACC_LOAD, 8, &pa));
    machine_down(&u);
}

/* The host TLB: RAM pages by virtual page, filled after an access the
 * whole way went well, forgotten with the TLB's translations. */
static void test_host_tlb(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    const uint64_t ad = PTE_V | PTE_A | PTE_D;
    sv39_tables(&u, ad | PTE_R | PTE_W | PTE_X, 0x80600, ad | PTE_R);
    h->priv = PRV_S;
    forget_fetch_pages(h);
    host_tlb_allow(h, true, true); /* as a run starts */
    uint64_t pa = 0;
    assert_true(mmu_translate(h, 0x40203010, ACC_LOAD, 8, &pa));
    host_tlb_fill(h, ACC_LOAD, 0x40203010, pa);
    const struct host_page *e = host_page_at(h->htlb.load, 0x40203ff8, 8);
    assert_non_null(e);
    put(&u, 0x80200ff8, 0x1122334455667788ull, 8);
    uint64_t v = 0;
    memcpy(&v, host_address(e, 0x40203ff8), 8);
    assert_int_equal(v, 0x1122334455667788ull);
    /* misaligned accesses miss; what is aligned for its size hits */
    assert_null(host_page_at(h->htlb.load, 0x40203ffc, 8));
    assert_null(host_page_at(h->htlb.load, 0x40203ff9, 2));
    assert_non_null(host_page_at(h->htlb.load, 0x40203ffc, 4));
    assert_non_null(host_page_at(h->htlb.load, 0x40203ff9, 1));
    assert_null(host_page_at(h->htlb.load, 0x40204000, 8)); /* another page */
    assert_null(host_page_at(h->htlb.store, 0x40203010, 8)); /* stores fill their own */
    /* what ends the TLB's translations ends these */
    forget_fetch_pages(h);
    assert_null(host_page_at(h->htlb.load, 0x40203010, 8));
    /* a walk that puts another page in the TLB's place takes the host entry there */
    assert_true(mmu_translate(h, 0x40203010, ACC_LOAD, 8, &pa));
    host_tlb_fill(h, ACC_LOAD, 0x40203010, pa);
    assert_non_null(host_page_at(h->htlb.load, 0x40203010, 8));
    put(&u, LEVEL0 + 0x103 * 8, (0x80400000ull >> 12) << 10 | ad | PTE_R, 8); /* VA 0x40303000, same place */
    assert_true(mmu_translate(h, 0x40303000, ACC_LOAD, 8, &pa));
    assert_null(host_page_at(h->htlb.load, 0x40203010, 8));
    /* no entry where PMP allows only part of the page or where the run may
     * not fill; a store entry names where the platform's watched address is */
    h->pmpaddr[0] = 0x80200800 >> 2;
    h->pmpcfg[0] = PMP_TOR | PMP_R | PMP_W | PMP_X;
    pmp_changed(h);
    host_tlb_fill(h, ACC_LOAD, 0x40203010, 0x80200010);
    assert_null(host_page_at(h->htlb.load, 0x40203010, 8));
    h->pmpaddr[0] = 0x81000000 >> 2;
    pmp_changed(h);
    h->env.watched_store = 0x80200100;
    host_tlb_fill(h, ACC_STORE, 0x40203010, 0x80200010);
    e = host_page_at(h->htlb.store, 0x40203010, 8);
    assert_non_null(e);
    assert_int_equal(e->watch, 0x40203100);
    h->env.watched_store = 0;
    host_tlb_fill(h, ACC_STORE, 0x40203010, 0x80200010);
    assert_int_equal(host_page_at(h->htlb.store, 0x40203010, 8)->watch, 0);
    host_tlb_allow(h, true, false);
    host_tlb_fill(h, ACC_STORE, 0x40203010, 0x80200010);
    assert_null(host_page_at(h->htlb.store, 0x40203010, 8));
    /* a store entry shows whether its page has decoded code: one filled
     * while it had none goes when code appears there */
    host_tlb_allow(h, true, true);
    host_tlb_fill(h, ACC_STORE, 0x40203010, 0x80200010);
    e = host_page_at(h->htlb.store, 0x40203010, 8);
    assert_non_null(e);
    assert_null(*e->code);
    assert_non_null(phys_fetch(u.m, 0x80200010));
    assert_null(host_page_at(h->htlb.store, 0x40203010, 8));
    host_tlb_fill(h, ACC_STORE, 0x40203010, 0x80200010);
    e = host_page_at(h->htlb.store, 0x40203010, 8);
    assert_non_null(e);
    assert_non_null(*e->code);
    /* a run that may not take the store table finds it empty, the loads' kept */
    host_tlb_fill(h, ACC_LOAD, 0x40203010, 0x80200010);
    host_tlb_allow(h, true, false);
    for (unsigned i = 0; i < HOST_TLB_ENTRIES; i++)
        assert_true(h->htlb.store[i].tag == ~0ull);
    assert_non_null(host_page_at(h->htlb.load, 0x40203010, 8));
    host_tlb_allow(h, false, false);
    for (unsigned i = 0; i < HOST_TLB_ENTRIES; i++)
        assert_true(h->htlb.load[i].tag == ~0ull);
    machine_down(&u);
}

/* The code blocks' refill after a miss: the entry where the access would
 * go the whole way to RAM; NULL, with nothing taken, for what the general
 * path must do (a fault, a walk that would read a device, a misaligned
 * access, a table the run may not use). */
static void test_host_tlb_refill(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    const uint64_t ad = PTE_V | PTE_A | PTE_D;
    sv39_tables(&u, ad | PTE_R | PTE_W, 0x80600, ad | PTE_R);
    h->priv = PRV_S;
    forget_fetch_pages(h);
    host_tlb_allow(h, true, true);
    put(&u, 0x80200010, 0x0123456789abcdefull, 8);
    const struct host_page *e = host_tlb_refill(h, 0x40203010, 8, ACC_LOAD); /* a walk: the TLB is empty */
    assert_non_null(e);
    assert_ptr_equal(e, host_page_at(h->htlb.load, 0x40203010, 8));
    uint64_t v = 0;
    memcpy(&v, host_address(e, 0x40203010), 8);
    assert_int_equal(v, 0x0123456789abcdefull);
    assert_null(host_tlb_refill(h, 0x40203011, 8, ACC_LOAD)); /* misaligned */
    assert_null(host_tlb_refill(h, 0x40205000, 8, ACC_LOAD)); /* not mapped: the general path's page fault */
    assert_null(host_tlb_refill(h, 0x40400000, 8, ACC_STORE)); /* read-only megapage */
    assert_non_null(host_tlb_refill(h, 0x40203018, 8, ACC_STORE));
    assert_int_equal(h->priv, PRV_S);
    /* a next level outside RAM is not read: here the CLINT's page of
     * mtimecmp, which the general path's walk reads as a valid leaf */
    put(&u, LEVEL1 + 1 * 8, (0x2004000ull >> 12) << 10 | PTE_V, 8);
    const uint64_t leaf = (0x80200000ull >> 12) << 10 | ad | PTE_R;
    assert_true(phys_store(u.m, h, 0x2004000, &leaf, 8)); /* hart 0's mtimecmp: VA 0x40200000's entry */
    forget_fetch_pages(h);
    assert_null(host_tlb_refill(h, 0x40200010, 8, ACC_LOAD));
    uint64_t pa = 0;
    assert_true(mmu_translate(h, 0x40200010, ACC_LOAD, 8, &pa));
    assert_int_equal(pa, 0x80200010);
    /* translation off: the physical page */
    h->priv = PRV_M;
    forget_fetch_pages(h);
    assert_non_null(host_tlb_refill(h, 0x80200010, 4, ACC_LOAD));
    host_tlb_allow(h, true, false);
    assert_null(host_tlb_refill(h, 0x80200010, 4, ACC_STORE));
    machine_down(&u);
}

/* Decoded code follows every store into it, so that fence.i has nothing to
 * drop; a store gives its page alone a new id, which its code blocks no
 * longer hold under. */
static void test_code_follows_stores(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    put(&u, RAM_BASE + 0x1000, 0x00500093, 4); /* addi ra, zero, 5 */
    put(&u, RAM_BASE + 0x1ffe, 0x00600113, 4); /* addi sp, zero, 6: its second half on the next page */
    const rvt_insn *in = phys_fetch(u.m, RAM_BASE + 0x1000);
    assert_non_null(in);
    const struct code_page *page = code_page_of(u.m->regions[0].icache[1]);
    assert_true(page->pa == RAM_BASE + 0x1000);
    assert_true(in->op == RVT_OP_ADDI && in->imm == 5);
    assert_int_equal(phys_fetch(u.m, RAM_BASE + 0x1ffe)->imm, 6);
    put(&u, RAM_BASE + 0x5000, 0x00100093, 4); /* another page of code */
    assert_non_null(phys_fetch(u.m, RAM_BASE + 0x5000));
    const uint64_t other = code_page_of(u.m->regions[0].icache[5])->id;
    assert_true(other != page->id);
    uint64_t before = page->id;
    uint32_t insn = 0x00700093; /* addi ra, zero, 7 */
    assert_true(phys_store(u.m, u.h, RAM_BASE + 0x1000, &insn, 4));
    assert_true(page->id != before && page->id != other && page->id != CODE_PAGE_NO_ID);
    assert_int_equal(phys_fetch(u.m, RAM_BASE + 0x1000)->imm, 7);
    /* a store elsewhere leaves the page's blocks alone */
    before = page->id;
    uint64_t word = 0;
    assert_true(phys_store(u.m, u.h, RAM_BASE + 0x3000, &word, 8));
    assert_int_equal(page->id, before);
    /* one into the next page's first halfword drops the instruction that ends there */
    uint16_t half = 0x0080; /* the upper half of addi sp, zero, 8 */
    assert_true(phys_store(u.m, u.h, RAM_BASE + 0x2000, &half, 2));
    assert_true(page->id != before);
    assert_int_equal(code_page_of(u.m->regions[0].icache[5])->id, other);
    assert_int_equal(phys_fetch(u.m, RAM_BASE + 0x1ffe)->imm, 8);
    machine_down(&u);
}

/* The core on a bus of its own, with no platform: a hart reaches memory and
 * devices only through the bus it was given, and hands its ecall over to the
 * hook it was given. */
typedef struct {
    mem_region ram;
    uint64_t stored_at, stored, loaded_at;
    unsigned stores, loads, ecalls;
} toy_bus;

static mem_region *toy_region(void *ctx, uint64_t pa, unsigned len) {
    toy_bus *b = ctx;
    return pa - b->ram.base < b->ram.size && len <= b->ram.size - (pa - b->ram.base) ? &b->ram : NULL;
}

static mem_region *toy_region_of_host(void *ctx, const uint8_t *host, uint64_t *off) {
    toy_bus *b = ctx;
    if ((uintptr_t)(host - b->ram.data) >= b->ram.size)
        return NULL;
    *off = (uint64_t)(host - b->ram.data);
    return &b->ram;
}

static bool toy_load(void *ctx, uint64_t pa, void *out, unsigned len) {
    toy_bus *b = ctx;
    b->loads++;
    b->loaded_at = pa;
    uint64_t v = 7;
    memcpy(out, &v, len);
    return pa == 0x10000004;
}

static bool toy_store(void *ctx, uint64_t pa, const void *in, unsigned len) {
    toy_bus *b = ctx;
    b->stores++;
    b->stored_at = pa;
    b->stored = 0;
    memcpy(&b->stored, in, len);
    return pa == 0x10000000;
}

static void toy_refused(void *ctx) { (void)ctx; }
static bool toy_insn(void *ctx, uint64_t addr, rvt_insn *out) {
    (void)ctx, (void)addr, (void)out;
    return false;
}
static bool toy_translates(void *ctx, unsigned index, unsigned priv) {
    (void)ctx, (void)index, (void)priv;
    return false;
}

static toy_bus *toy_of(hart *h) { return h->m->bus.ctx; }
static void toy_ecall(hart *h) {
    toy_of(h)->ecalls++;
    h->pc += 4;
}

static void test_core_on_its_own_bus(void **state) {
    (void)state;
    static const uint32_t program[] = {
        0x00000417, /* auipc s0, 0 */
        0x100002b7, /* lui t0, 0x10000: a device */
        0x02a00313, /* li t1, 42 */
        0x0062a023, /* sw t1, 0(t0) */
        0x0042a383, /* lw t2, 4(t0) */
        0x00138393, /* addi t2, t2, 1 */
        0x10743023, /* sd t2, 256(s0): RAM */
        0x00000073, /* ecall: handed over */
    };
    toy_bus b = {.ram = {.base = RAM_BASE, .size = 0x2000}};
    b.ram.data = calloc(1, b.ram.size);
    b.ram.icache = calloc(b.ram.size >> 12, sizeof *b.ram.icache);
    assert_non_null(b.ram.data);
    assert_non_null(b.ram.icache);
    memcpy(b.ram.data, program, sizeof program);
    hart_machine m = {.bus = {&b, toy_region, toy_region_of_host, toy_load, toy_store}, .xlen = 64,
                      .pmp_regions = 0};
    hart h = {0};
    m.harts = &h;
    m.nharts = 1;
    const port_owner owner = {&b, toy_refused, toy_insn, toy_translates};
    assert_int_equal(port_init(&m.port, &owner), RVT_OK);
    assert_int_equal(hart_machine_init(&m), RVT_OK);
    assert_int_equal(mmu_attach(&h), RVT_OK);
    h.env = (hart_env){.ecall_privs = 1u << PRV_M, .ecall = toy_ecall, .watched_store = ~0ull};
    hart_reset(&h, &m, 0);
    h.pc = RAM_BASE;
    hart_step(&h, 100);
    assert_int_equal(b.ecalls, 1);
    assert_int_equal(h.pc, RAM_BASE + sizeof program);
    assert_int_equal(b.stores, 1);
    assert_int_equal(b.stored_at, 0x10000000);
    assert_int_equal(b.stored, 42);
    assert_int_equal(b.loads, 1);
    assert_int_equal(b.loaded_at, 0x10000004);
    uint64_t v = 0;
    memcpy(&v, b.ram.data + 256, 8);
    assert_int_equal(v, 8);
    assert_non_null(b.ram.icache[0]); /* the core's decoded code, in the region's word */
    assert_int_equal(m.instret_total, 7);
    mmu_free(&h);
    ctr_free(&h);
    hart_machine_free(&m);
    port_free(&m.port);
    free(b.ram.icache);
    free(b.ram.data);
}

/* With several harts, a store taken from the host TLB would not break
 * another hart's reservation: while one is held, stores go the whole way. */
static void test_host_tlb_reservations(void **state) {
    (void)state;
    static const uint32_t stores[4] = {0x00053023, 0x00053023, 0x00053023, 0x00053023}; /* sd zero, 0(a0) */
    rvt_diag d = {0};
    rvt_image *img;
    assert_int_equal(rvt_image_new(&img), 0);
    assert_int_equal(rvt_image_load_raw(img, "stores", stores, sizeof stores, RAM_BASE, 0, 64, &d), 0);
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.ram[0] = (rvt_mem_region){RAM_BASE, 0x100000};
    cfg.nram = 1;
    cfg.nharts = 2;
    rvt_machine *m;
    assert_int_equal(rvt_machine_new(&m, &cfg, img, &d), 0);
    hart *h = &m->harts[0], *other = &m->harts[1];
    const uint64_t at = RAM_BASE + 0x8010;
    h->pc = RAM_BASE;
    h->x[10] = at;
    hart_step(h, 1);
    assert_int_equal(h->pc, RAM_BASE + 4);
    assert_non_null(host_page_at(h->htlb.store, at, 8)); /* no reservation anywhere: filled */
    other->resv_valid = true;
    other->resv_addr = at;
    hart_step(h, 1);
    assert_int_equal(h->pc, RAM_BASE + 8);
    assert_false(other->resv_valid);
    other->resv_valid = true;
    other->resv_addr = at + 8; /* another granule: kept */
    hart_step(h, 1);
    assert_true(other->resv_valid);
    rvt_machine_free(m);
    rvt_image_free(img);
}

/* ------------------------------------------------------------ PMP */

static void test_pmp_matching(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    memset(h->pmpaddr, 0, sizeof h->pmpaddr);
    memset(h->pmpcfg, 0, sizeof h->pmpcfg);
    pmp_changed(h); /* as a PMP CSR write does */
    /* nothing matches: only M passes */
    assert_false(pmp_ok(h, RAM_BASE, 8, ACC_LOAD, PRV_S));
    assert_true(pmp_ok(h, RAM_BASE, 8, ACC_STORE, PRV_M));
    /* entry 0 NAPOT 4 KiB at RAM_BASE, read-only */
    h->pmpaddr[0] = RAM_BASE >> 2 | 0x1ff;
    h->pmpcfg[0] = PMP_NAPOT | PMP_R;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_true(pmp_ok(h, RAM_BASE + 0xff8, 8, ACC_LOAD, PRV_U));
    assert_false(pmp_ok(h, RAM_BASE + 0xff8, 8, ACC_STORE, PRV_S));
    assert_true(pmp_ok(h, RAM_BASE + 0xff8, 8, ACC_STORE, PRV_M)); /* not locked: M passes */
    assert_false(pmp_ok(h, RAM_BASE + 0xffc, 8, ACC_LOAD, PRV_S)); /* matches only half */
    h->pmpaddr[15] = RAM_BASE >> 2 | 0xfffff; /* a later entry over all of RAM changes nothing */
    h->pmpcfg[15] = PMP_NAPOT | PMP_R;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_false(pmp_ok(h, RAM_BASE + 0xffc, 8, ACC_LOAD, PRV_S));
    assert_true(pmp_ok(h, RAM_BASE + 0x1000, 8, ACC_LOAD, PRV_S));
    h->pmpcfg[15] = 0;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_false(pmp_ok(h, RAM_BASE + 0x1000, 4, ACC_LOAD, PRV_S));
    /* locked: M is held to it too */
    h->pmpcfg[0] |= PMP_L;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_false(pmp_ok(h, RAM_BASE, 4, ACC_STORE, PRV_M));
    assert_true(pmp_ok(h, RAM_BASE, 4, ACC_LOAD, PRV_M));
    /* entry 2 TOR from pmpaddr1 to pmpaddr2, execute only; entry 1 off */
    h->pmpaddr[1] = (RAM_BASE + 0x2000) >> 2;
    h->pmpaddr[2] = (RAM_BASE + 0x3000) >> 2;
    h->pmpcfg[2] = PMP_TOR | PMP_X;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_true(pmp_ok(h, RAM_BASE + 0x2000, 4, ACC_FETCH, PRV_U));
    assert_true(pmp_ok(h, RAM_BASE + 0x2ffc, 4, ACC_FETCH, PRV_U));
    assert_false(pmp_ok(h, RAM_BASE + 0x3000, 4, ACC_FETCH, PRV_U));
    assert_false(pmp_ok(h, RAM_BASE + 0x1ffc, 4, ACC_FETCH, PRV_U));
    assert_false(pmp_ok(h, RAM_BASE + 0x2000, 4, ACC_LOAD, PRV_U));
    /* the lowest-numbered entry that matches decides: NA4 with nothing
     * allowed in front of a NAPOT entry that allows everything */
    h->pmpaddr[3] = (RAM_BASE + 0x4000) >> 2;
    h->pmpcfg[3] = PMP_NA4;
    h->pmpaddr[4] = (RAM_BASE + 0x4000) >> 2 | 0x1ff;
    h->pmpcfg[4] = PMP_NAPOT | PMP_R | PMP_W | PMP_X;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_false(pmp_ok(h, RAM_BASE + 0x4000, 4, ACC_LOAD, PRV_S));
    assert_true(pmp_ok(h, RAM_BASE + 0x4004, 4, ACC_LOAD, PRV_S));
    /* a TOR entry whose base is not below its top matches nothing */
    h->pmpaddr[5] = (RAM_BASE + 0x4000) >> 2;
    h->pmpcfg[5] = PMP_TOR | PMP_R;
    pmp_changed(h); /* as a PMP CSR write does */
    assert_false(pmp_ok(h, RAM_BASE + 0x8000, 4, ACC_LOAD, PRV_S));
    machine_down(&u);
}

/* ------------------------------------------------------------ CSRs */

enum { MISA = 0x301, MEDELEG = 0x302, MIDELEG = 0x303, MTVEC = 0x305, MEPC = 0x341, MIP = 0x344, SIP = 0x144,
       SATP = 0x180, PMPCFG0 = 0x3a0, PMPADDR0 = 0x3b0, MSTATUS = 0x300 };

static uint64_t csr(hart *h, unsigned n) {
    uint64_t v = 0;
    assert_int_equal(csr_read(h, n, &v), 0);
    return v;
}

static void test_csr_warl(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    /* MPP = 2 (reserved) reads back as U */
    assert_int_equal(csr_write(h, MSTATUS, 2ull << 11), 0);
    assert_int_equal((csr(h, MSTATUS) >> 11) & 3, PRV_U);
    /* mtvec: mode 2 and 3 are reserved; bit 1 reads 0. mepc: bit 0 reads 0 */
    csr_write(h, MTVEC, 0x80000003);
    assert_int_equal(csr(h, MTVEC), 0x80000001);
    csr_write(h, MEPC, 0x80000007);
    assert_int_equal(csr(h, MEPC), 0x80000006);
    /* medeleg: never an ecall from M; mideleg: only S-level interrupts */
    csr_write(h, MEDELEG, ~0ull);
    assert_int_equal(csr(h, MEDELEG) & (1ull << CAUSE_MACHINE_ECALL), 0);
    assert_true(csr(h, MEDELEG) & (1ull << CAUSE_USER_ECALL));
    /* bit 0 (misaligned fetch) only while misa.C is clear: with C no fetch
     * is misaligned */
    assert_int_equal(csr(h, MEDELEG) & (1ull << CAUSE_MISALIGNED_FETCH), 0);
    uint64_t with_c = csr(h, MISA);
    csr_write(h, MISA, with_c & ~(1ull << ('C' - 'A')));
    csr_write(h, MEDELEG, ~0ull);
    assert_true(csr(h, MEDELEG) & (1ull << CAUSE_MISALIGNED_FETCH));
    csr_write(h, MISA, with_c);
    assert_true(csr(h, MEDELEG) & (1ull << CAUSE_MISALIGNED_FETCH));
    csr_write(h, MEDELEG, ~0ull);
    assert_int_equal(csr(h, MEDELEG) & (1ull << CAUSE_MISALIGNED_FETCH), 0);
    csr_write(h, MIDELEG, ~0ull);
    assert_int_equal(csr(h, MIDELEG),
                     (1ull << IRQ_S_SOFT) | (1ull << IRQ_S_TIMER) | (1ull << IRQ_S_EXT) | (1ull << IRQ_LCOF));
    /* misa: I stays, D goes with F */
    uint64_t misa = csr(h, MISA);
    csr_write(h, MISA, misa & ~(1ull << ('I' - 'A')) & ~(1ull << ('F' - 'A')));
    assert_true(csr(h, MISA) & (1ull << ('I' - 'A')));
    assert_int_equal(csr(h, MISA) & (1ull << ('D' - 'A')), 0);
    /* satp: a mode the hart does not have leaves it as it was */
    csr_write(h, SATP, 8ull << 60 | 0x80100);
    csr_write(h, SATP, 9ull << 60 | 0x80200);
    assert_int_equal(csr(h, SATP), 8ull << 60 | 0x80100);
    /* pmpcfg: W without R is reserved (W dropped); a locked entry keeps
     * its configuration, and pmpaddr below a locked TOR entry is locked */
    csr_write(h, PMPCFG0, 0x02 | (uint64_t)(PMP_TOR | PMP_L | PMP_R) << 8);
    assert_int_equal(csr(h, PMPCFG0) & 0xffff, (PMP_TOR | PMP_L | PMP_R) << 8);
    csr_write(h, PMPCFG0, 0);
    assert_int_equal(csr(h, PMPCFG0) & 0xff00, (PMP_TOR | PMP_L | PMP_R) << 8);
    uint64_t before = csr(h, PMPADDR0);
    csr_write(h, PMPADDR0, 0x1234);
    assert_int_equal(csr(h, PMPADDR0), before);
    csr_write(h, PMPADDR0 + 2, ~0ull);
    assert_int_equal(csr(h, PMPADDR0 + 2), (1ull << 54) - 1);
    machine_down(&u);
}

static void test_mip_lines(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    csr_write(h, MIDELEG, 1ull << IRQ_S_SOFT);
    /* the CLINT's timer line is up from reset (mtimecmp 0); software can
     * neither set nor clear it, and writes only mip's S-level bits */
    assert_true(csr(h, MIP) & (1ull << IRQ_M_TIMER));
    csr_write(h, MIP, 0);
    assert_true(csr(h, MIP) & (1ull << IRQ_M_TIMER));
    csr_write(h, MIP, ~0ull);
    assert_int_equal(csr(h, MIP) & ((1ull << IRQ_M_SOFT) | (1ull << IRQ_M_EXT)), 0);
    assert_true(csr(h, MIP) & (1ull << IRQ_S_EXT));
    /* a line and the software bit of the same interrupt read as their OR */
    csr_write(h, MIP, 0);
    hart_set_irq_line(h, IRQ_S_EXT, true);
    assert_true(csr(h, MIP) & (1ull << IRQ_S_EXT));
    csr_write(h, MIP, 1ull << IRQ_S_EXT);
    hart_set_irq_line(h, IRQ_S_EXT, false);
    assert_true(csr(h, MIP) & (1ull << IRQ_S_EXT));
    csr_write(h, MIP, 0);
    assert_int_equal(csr(h, MIP) & (1ull << IRQ_S_EXT), 0);
    /* sip shows and writes only what is delegated */
    csr_write(h, SIP, ~0ull);
    assert_int_equal(csr(h, SIP), 1ull << IRQ_S_SOFT);
    machine_down(&u);
}

/* csrrs and csrrc on mip (and their immediate forms) combine their operand
 * with SEIP's software-writable bit, not with the interrupt controller's
 * line that the read ORs into it: firmware setting STIP while the PLIC's
 * line is up must not leave SEIP set once the line drops. */
static void test_mip_read_modify_write(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    const uint64_t code = RAM_BASE + 0x1000, seip = 1ull << IRQ_S_EXT, stip = 1ull << IRQ_S_TIMER;
    put(&u, code, 0x3442a073, 4);     /* csrrs zero, mip, t0 */
    put(&u, code + 4, 0x3442b073, 4); /* csrrc zero, mip, t0 */
    put(&u, code + 8, 0x34417073, 4); /* csrrci zero, mip, 2 */
    put(&u, code + 12, 0x34431073, 4); /* csrrw zero, mip, t1 */
    csr_write(h, MIP, 0);
    h->pc = code;
    h->x[5] = stip;
    hart_set_irq_line(h, IRQ_S_EXT, true);
    hart_step(h, 1);
    assert_int_equal(h->pc, code + 4);
    assert_int_equal(csr(h, MIP) & (seip | stip), seip | stip);
    hart_set_irq_line(h, IRQ_S_EXT, false);
    assert_int_equal(csr(h, MIP) & (seip | stip), stip);
    /* a software SEIP stays through a clear of another bit, line or not */
    csr_write(h, MIP, seip | stip);
    hart_set_irq_line(h, IRQ_S_EXT, true);
    hart_step(h, 1);
    assert_int_equal(h->pc, code + 8);
    hart_set_irq_line(h, IRQ_S_EXT, false);
    assert_int_equal(csr(h, MIP) & (seip | stip), seip);
    hart_set_irq_line(h, IRQ_S_EXT, true);
    csr_write(h, MIP, 0);
    hart_step(h, 1);
    assert_int_equal(h->pc, code + 12);
    hart_set_irq_line(h, IRQ_S_EXT, false);
    assert_int_equal(csr(h, MIP) & seip, 0);
    /* csrrw writes its operand, whatever the line */
    h->x[6] = seip;
    hart_step(h, 1);
    assert_int_equal(csr(h, MIP) & seip, seip);
    machine_down(&u);
}

/* ------------------------------------------------------------ devices */

static bool dev_load(unit_machine *u, uint64_t pa, void *out, unsigned len) {
    device *d = machine_device_at(u->m, pa, len);
    return d && d->ops->load(d, pa - d->base, out, len);
}

static bool dev_store(unit_machine *u, uint64_t pa, uint64_t v, unsigned len) {
    device *d = machine_device_at(u->m, pa, len);
    return d && d->ops->store(d, pa - d->base, &v, len);
}

static void test_clint(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, false);
    hart *h = u.h;
    uint64_t v = 0;
    /* msip: one bit, 32 bits wide, one per hart */
    assert_true(dev_store(&u, CLINT_BASE, 0xff, 4));
    assert_true(dev_load(&u, CLINT_BASE, &v, 4));
    assert_int_equal(v, 1);
    assert_true(h->irq_lines & (1ull << IRQ_M_SOFT));
    assert_false(dev_store(&u, CLINT_BASE, 0, 8));
    assert_false(dev_load(&u, CLINT_BASE + 4, &v, 4)); /* hart 1: not there */
    assert_true(dev_store(&u, CLINT_BASE, 0, 4));
    assert_int_equal(h->irq_lines & (1ull << IRQ_M_SOFT), 0);
    /* mtimecmp in two halves; the timer line follows mtime >= mtimecmp */
    u.m->core.mtime = 1000;
    assert_true(dev_store(&u, CLINT_BASE + 0x4000, 1010, 4));
    assert_true(dev_store(&u, CLINT_BASE + 0x4004, 0, 4));
    v = 0;
    assert_true(dev_load(&u, CLINT_BASE + 0x4000, &v, 8));
    assert_int_equal(v, 1010);
    assert_int_equal(h->irq_lines & (1ull << IRQ_M_TIMER), 0);
    u.m->core.mtime = 1010;
    machine_time_moved(u.m);
    assert_true(h->irq_lines & (1ull << IRQ_M_TIMER));
    /* mtime is the machine's; a write of it moves the time */
    assert_true(dev_load(&u, CLINT_BASE + 0xbff8, &v, 8));
    assert_int_equal(v, 1010);
    assert_true(dev_store(&u, CLINT_BASE + 0xbff8, 5, 8));
    assert_int_equal(u.m->core.mtime, 5);
    assert_int_equal(h->irq_lines & (1ull << IRQ_M_TIMER), 0);
    /* the host's stores reach its registers (the tandem verifier's) */
    v = 3;
    assert_true(rvt_machine_write_mem(u.m, CLINT_BASE + 0x4000, &v, 8));
    assert_true(h->irq_lines & (1ull << IRQ_M_TIMER));
    /* a sleeping hart with the timer enabled wakes at mtimecmp */
    const device *clint = machine_device_at(u.m, CLINT_BASE, 4);
    uint64_t when = 0;
    h->mie = 0;
    assert_false(clint->ops->wake_time(clint, h, &when));
    h->mie = 1ull << IRQ_M_TIMER;
    assert_true(clint->ops->wake_time(clint, h, &when));
    assert_int_equal(when, 3);
    /* windows may not overlap */
    assert_int_equal(machine_add_device(u.m, clint_new(u.m, CLINT_BASE + 0x1000)), RVT_E_RANGE);
    machine_down(&u);
}

static void test_uart(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, true);
    uint8_t b = 0;
    assert_true(dev_store(&u, UART_BASE, 'h', 1));
    assert_true(dev_store(&u, UART_BASE, 'i', 1));
    assert_false(dev_store(&u, UART_BASE, 'x', 2)); /* byte registers only */
    assert_true(dev_load(&u, UART_BASE + 2, &b, 1));
    assert_int_equal(b, 0xc1); /* IIR: FIFOs on, no interrupt pending */
    assert_true(dev_load(&u, UART_BASE + 5, &b, 1));
    assert_int_equal(b, 0x60); /* LSR: transmitter empty */
    assert_true(dev_store(&u, UART_BASE + 1, 0x03, 1));
    assert_true(dev_load(&u, UART_BASE + 1, &b, 1));
    assert_int_equal(b, 0x03);
    assert_true(dev_store(&u, UART_BASE + 7, 0x5a, 1));
    assert_true(dev_load(&u, UART_BASE + 7, &b, 1));
    assert_int_equal(b, 0x5a);
    /* with DLAB set, offsets 0 and 1 are the divisor: nothing is sent */
    assert_true(dev_store(&u, UART_BASE + 3, 0x83, 1));
    assert_true(dev_store(&u, UART_BASE, 'x', 1));
    assert_true(dev_load(&u, UART_BASE + 1, &b, 1));
    assert_int_equal(b, 0);
    assert_true(dev_store(&u, UART_BASE + 3, 0x03, 1));
    assert_true(dev_store(&u, UART_BASE, '\n', 1));
    char text[8] = {0};
    rewind(u.console);
    assert_int_equal(fread(text, 1, sizeof text, u.console), 3);
    assert_string_equal(text, "hi\n");
    machine_down(&u);
}

static void test_plic(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, true);
    hart *h = u.h;
    device *plic = machine_device_at(u.m, PLIC_BASE, 4);
    assert_non_null(plic);
    uint32_t v = 0;
    const uint64_t m_enable = PLIC_BASE + 0x2000, s_enable = PLIC_BASE + 0x2080;
    const uint64_t m_claim = PLIC_BASE + 0x200004, s_threshold = PLIC_BASE + 0x201000, s_claim = PLIC_BASE + 0x201004;
    /* priorities have 4 bits; source 0 has none */
    assert_true(dev_store(&u, PLIC_BASE + 4 * 5, 0xff, 4));
    assert_true(dev_load(&u, PLIC_BASE + 4 * 5, &v, 4));
    assert_int_equal(v, 0xf);
    assert_false(dev_load(&u, PLIC_BASE + 4 * 5, &v, 2)); /* 32-bit registers only */
    /* a source's line: pending, but no context enables it yet */
    plic->ops->set_source(plic, 5, true);
    assert_true(dev_load(&u, PLIC_BASE + 0x1000, &v, 4));
    assert_int_equal(v, 1u << 5);
    assert_int_equal(h->irq_lines & ((1ull << IRQ_M_EXT) | (1ull << IRQ_S_EXT)), 0);
    /* the S context enables it: SEIP until the threshold reaches its priority */
    assert_true(dev_store(&u, s_enable, 1u << 5, 4));
    assert_true(h->irq_lines & (1ull << IRQ_S_EXT));
    assert_int_equal(h->irq_lines & (1ull << IRQ_M_EXT), 0);
    assert_true(dev_store(&u, s_threshold, 0xf, 4));
    assert_int_equal(h->irq_lines & (1ull << IRQ_S_EXT), 0);
    assert_true(dev_store(&u, s_threshold, 0, 4));
    /* a second source of higher priority is claimed first; equal ones by number */
    assert_true(dev_store(&u, PLIC_BASE + 4 * 3, 0xf, 4));
    assert_true(dev_store(&u, PLIC_BASE + 4 * 7, 0x2, 4));
    plic->ops->set_source(plic, 3, true);
    plic->ops->set_source(plic, 7, true);
    assert_true(dev_store(&u, s_enable, (1u << 3) | (1u << 5) | (1u << 7), 4));
    assert_true(dev_load(&u, s_claim, &v, 4));
    assert_int_equal(v, 3);
    assert_true(dev_load(&u, s_claim, &v, 4));
    assert_int_equal(v, 5);
    assert_true(dev_load(&u, s_claim, &v, 4));
    assert_int_equal(v, 7);
    assert_true(dev_load(&u, s_claim, &v, 4));
    assert_int_equal(v, 0); /* all claimed: none pending, the line is down */
    assert_int_equal(h->irq_lines & (1ull << IRQ_S_EXT), 0);
    assert_true(dev_load(&u, PLIC_BASE + 0x1000, &v, 4));
    assert_int_equal(v, 0);
    /* completion: a line still up makes the source pending again; a line
     * that went down leaves it idle; a completion the context does not
     * enable changes nothing */
    plic->ops->set_source(plic, 7, false);
    assert_true(dev_store(&u, s_claim, 7, 4));
    assert_true(dev_store(&u, m_claim, 5, 4));
    assert_int_equal(h->irq_lines & (1ull << IRQ_S_EXT), 0);
    assert_true(dev_store(&u, s_claim, 5, 4));
    assert_true(h->irq_lines & (1ull << IRQ_S_EXT));
    /* the M context sees the same sources through its own enables */
    assert_true(dev_store(&u, m_enable, 1u << 5, 4));
    assert_true(h->irq_lines & (1ull << IRQ_M_EXT));
    assert_true(dev_load(&u, m_claim, &v, 4));
    assert_int_equal(v, 5);
    assert_int_equal(h->irq_lines & ((1ull << IRQ_M_EXT) | (1ull << IRQ_S_EXT)), 0);
    /* a priority of 0 never interrupts */
    assert_true(dev_store(&u, m_claim, 5, 4));
    assert_true(dev_store(&u, PLIC_BASE + 4 * 5, 0, 4));
    assert_int_equal(h->irq_lines & ((1ull << IRQ_M_EXT) | (1ull << IRQ_S_EXT)), 0);
    /* reserved words (a context the harts do not have) read 0 and keep nothing */
    assert_true(dev_store(&u, PLIC_BASE + 0x200000 + 0x1000 * 2, 7, 4));
    assert_true(dev_load(&u, PLIC_BASE + 0x200000 + 0x1000 * 2, &v, 4));
    assert_int_equal(v, 0);
    machine_down(&u);
}

/* The UART's interrupts reach the PLIC's source 1; input arrives from a pipe. */
static void test_uart_interrupts(void **state) {
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    FILE *input = fdopen(fds[0], "rb");
    assert_non_null(input);
    unit_machine u;
    machine_up_with(&u, 64, true, input);
    device *uart = machine_device_at(u.m, UART_BASE, 1);
    uint8_t b = 0;
    uint32_t v = 0;
    assert_true(dev_store(&u, PLIC_BASE + 4 * UART_PLIC_SOURCE, 1, 4));
    assert_true(dev_store(&u, PLIC_BASE + 0x2080, 1u << UART_PLIC_SOURCE, 4));
    /* transmitter empty: raised by enabling it, cleared by reading IIR,
     * raised again by each byte sent */
    assert_int_equal(u.h->irq_lines & (1ull << IRQ_S_EXT), 0);
    assert_true(dev_store(&u, UART_BASE + 1, 0x02, 1));
    assert_true(u.h->irq_lines & (1ull << IRQ_S_EXT));
    assert_true(dev_load(&u, UART_BASE + 2, &b, 1));
    assert_int_equal(b, 0xc2);
    assert_int_equal(u.h->irq_lines & (1ull << IRQ_S_EXT), 0);
    assert_true(dev_load(&u, UART_BASE + 2, &b, 1));
    assert_int_equal(b, 0xc1);
    assert_true(dev_store(&u, UART_BASE, 'x', 1));
    assert_true(u.h->irq_lines & (1ull << IRQ_S_EXT));
    assert_true(dev_store(&u, UART_BASE + 1, 0x00, 1));
    assert_int_equal(u.h->irq_lines & (1ull << IRQ_S_EXT), 0);
    /* received data: nothing until the input has some */
    assert_true(dev_store(&u, UART_BASE + 1, 0x01, 1));
    assert_true(dev_load(&u, UART_BASE + 5, &b, 1));
    assert_int_equal(b & 1, 0);
    assert_int_equal(write(fds[1], "ok", 2), 2);
    assert_int_equal(uart->ops->input_fd(uart), fds[0]);
    uart->ops->read_input(uart);
    assert_true(u.h->irq_lines & (1ull << IRQ_S_EXT));
    assert_true(dev_load(&u, PLIC_BASE + 0x201004, &v, 4));
    assert_int_equal(v, UART_PLIC_SOURCE);
    assert_true(dev_load(&u, UART_BASE + 2, &b, 1));
    assert_int_equal(b, 0xc4);
    assert_true(dev_load(&u, UART_BASE + 5, &b, 1));
    assert_int_equal(b, 0x61);
    assert_true(dev_load(&u, UART_BASE, &b, 1));
    assert_int_equal(b, 'o');
    assert_true(dev_load(&u, UART_BASE, &b, 1));
    assert_int_equal(b, 'k');
    assert_true(dev_load(&u, UART_BASE + 2, &b, 1));
    assert_int_equal(b, 0xc1);
    assert_true(dev_store(&u, PLIC_BASE + 0x201004, UART_PLIC_SOURCE, 4));
    assert_int_equal(u.h->irq_lines & (1ull << IRQ_S_EXT), 0);
    /* the end of the input: nothing more is waited for */
    close(fds[1]);
    uart->ops->read_input(uart);
    assert_int_equal(uart->ops->input_fd(uart), -1);
    machine_down(&u);
    fclose(input);
}

static void test_finisher(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, true);
    uint32_t v = 1;
    assert_true(dev_load(&u, FINISHER_BASE, &v, 4));
    assert_int_equal(v, 0);
    assert_true(dev_store(&u, FINISHER_BASE, 0x1234, 4)); /* not a command */
    assert_false(u.m->core.stop);
    assert_true(dev_store(&u, FINISHER_BASE, 0x3333 | 42u << 16, 4));
    assert_true(u.m->core.stop);
    assert_int_equal(u.m->core.stop_reason, RVT_STOP_EXIT);
    assert_int_equal(u.m->exit_code, 42);
    u.m->core.stop = false;
    assert_true(dev_store(&u, FINISHER_BASE, 0x5555, 2)); /* OpenSBI's 16-bit store */
    assert_true(u.m->core.stop);
    assert_int_equal(u.m->exit_code, 0);
    machine_down(&u);
}

static void test_device_tree(void **state) {
    (void)state;
    unit_machine u;
    machine_up(&u, 64, true);
    static uint8_t tree[4096];
    int size = board_device_tree(u.m, tree, sizeof tree, RAM_BASE, 0x800000, 0, 0);
    assert_true(size > 0);
    assert_int_equal(fdt_check_header(tree), 0);
    static const char *const nodes[] = {"/soc/clint@2000000", "/soc/serial@10000000", "/soc/test@100000",
                                        "/soc/interrupt-controller@c000000",
                                        "/cpus/cpu@0/interrupt-controller", "/memory@80000000"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        assert_true(fdt_path_offset(tree, nodes[i]) >= 0);
    int len = 0;
    const fdt32_t *irqs = fdt_getprop(tree, fdt_path_offset(tree, "/soc/clint@2000000"), "interrupts-extended", &len);
    assert_non_null(irqs);
    assert_int_equal(len, 16);
    assert_int_equal(fdt32_to_cpu(irqs[1]), IRQ_M_SOFT);
    assert_int_equal(fdt32_to_cpu(irqs[3]), IRQ_M_TIMER);
    const fdt64_t *reg = fdt_getprop(tree, fdt_path_offset(tree, "/soc/serial@10000000"), "reg", &len);
    assert_int_equal(len, 16);
    assert_int_equal(fdt64_to_cpu(reg[0]), UART_BASE);
    assert_int_equal(fdt64_to_cpu(reg[1]), UART_SIZE);
    /* the UART's interrupt is the PLIC's source 1; the PLIC's contexts are
     * hart 0's M and S external interrupts */
    int uart = fdt_path_offset(tree, "/soc/serial@10000000"), plic = fdt_path_offset(tree, "/soc/interrupt-controller@c000000");
    const fdt32_t *parent = fdt_getprop(tree, uart, "interrupt-parent", &len);
    assert_non_null(parent);
    assert_int_equal(fdt_node_offset_by_phandle(tree, fdt32_to_cpu(*parent)), plic);
    const fdt32_t *source = fdt_getprop(tree, uart, "interrupts", &len);
    assert_int_equal(fdt32_to_cpu(*source), UART_PLIC_SOURCE);
    irqs = fdt_getprop(tree, plic, "interrupts-extended", &len);
    assert_int_equal(len, 16);
    assert_int_equal(fdt32_to_cpu(irqs[1]), IRQ_M_EXT);
    assert_int_equal(fdt32_to_cpu(irqs[3]), IRQ_S_EXT);
    assert_non_null(fdt_getprop(tree, plic, "interrupt-controller", &len));
    machine_down(&u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sv39_walk),       cmocka_unit_test(test_sv39_accessed_dirty),
        cmocka_unit_test(test_sv39_permissions), cmocka_unit_test(test_sv39_pmp_on_walk),
        cmocka_unit_test(test_sv32_walk),       cmocka_unit_test(test_tlb),
        cmocka_unit_test(test_host_tlb),
        cmocka_unit_test(test_host_tlb_refill),        cmocka_unit_test(test_code_follows_stores),
        cmocka_unit_test(test_host_tlb_reservations),
        cmocka_unit_test(test_core_on_its_own_bus),
        cmocka_unit_test(test_pmp_matching),
        cmocka_unit_test(test_csr_warl),        cmocka_unit_test(test_mip_lines),
        cmocka_unit_test(test_mip_read_modify_write),
        cmocka_unit_test(test_clint),           cmocka_unit_test(test_uart),
        cmocka_unit_test(test_plic),            cmocka_unit_test(test_uart_interrupts),
        cmocka_unit_test(test_finisher),        cmocka_unit_test(test_device_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
