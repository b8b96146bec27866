/* The hart model's core: the hart's state and what works on it (the
 * interpreter, CSRs, FP, PMP, triggers, CTR, the counters, address
 * translation, decoded code), shared by the core's files. The core reaches
 * the machine it is in only through what the platform gives it when it
 * builds the harts (struct hart_machine: the bus to memory and devices, the
 * hooks of hart_env and hart_observer, the run's shared state): nothing here
 * includes or names the platform (machine.h), which includes this. The core
 * writes its records into the trace port (trace_port.h). */
#ifndef RVTRACE_HART_INTERNAL_H
#define RVTRACE_HART_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace_port.h"
#include "rvtrace/hart.h"

#define RVT_STUCK_TRAPS 1000       /* traps in a row without a retired instruction: no progress */

#define PRV_U 0u
#define PRV_S 1u
#define PRV_M 3u

/* Exception causes (privileged spec). */
enum {
    CAUSE_MISALIGNED_FETCH = 0, CAUSE_FETCH_ACCESS = 1, CAUSE_ILLEGAL_INSTRUCTION = 2,
    CAUSE_BREAKPOINT = 3, CAUSE_MISALIGNED_LOAD = 4, CAUSE_LOAD_ACCESS = 5,
    CAUSE_MISALIGNED_STORE = 6, CAUSE_STORE_ACCESS = 7, CAUSE_USER_ECALL = 8,
    CAUSE_SUPERVISOR_ECALL = 9, CAUSE_MACHINE_ECALL = 11, CAUSE_FETCH_PAGE_FAULT = 12,
    CAUSE_LOAD_PAGE_FAULT = 13, CAUSE_STORE_PAGE_FAULT = 15,
};

/* Interrupt numbers (bit positions in mip/mie). */
enum { IRQ_S_SOFT = 1, IRQ_M_SOFT = 3, IRQ_S_TIMER = 5, IRQ_M_TIMER = 7, IRQ_S_EXT = 9, IRQ_M_EXT = 11,
       IRQ_LCOF = 13 /* Sscofpmf local counter overflow */ };

#define MSTATUS_SIE (1ull << 1)
#define MSTATUS_MIE (1ull << 3)
#define MSTATUS_SPIE (1ull << 5)
#define MSTATUS_UBE (1ull << 6)
#define MSTATUS_MPIE (1ull << 7)
#define MSTATUS_SPP (1ull << 8)
#define MSTATUS_MPP (3ull << 11)
#define MSTATUS_FS (3ull << 13)
#define MSTATUS_XS (3ull << 15)
#define MSTATUS_MPRV (1ull << 17)
#define MSTATUS_SUM (1ull << 18)
#define MSTATUS_MXR (1ull << 19)
#define MSTATUS_TVM (1ull << 20)
#define MSTATUS_TW (1ull << 21)
#define MSTATUS_TSR (1ull << 22)

enum access { ACC_FETCH, ACC_LOAD, ACC_STORE };

/* Events the performance counters count (pmu.c, docs/pmu.md). */
#define PMU_COUNTERS 29 /* mhpmcounter3..31 */
enum pmu_event {
    PMU_EV_NONE, PMU_EV_INSTRUCTIONS, PMU_EV_TRANSFERS, PMU_EV_BRANCHES, PMU_EV_TAKEN, PMU_EV_JUMPS,
    PMU_EV_LOADS, PMU_EV_STORES, PMU_EV_AMOS, PMU_EV_EXCEPTIONS, PMU_EV_INTERRUPTS,
    /* cache events (cache.c): PMU_EV_CACHE + cache * 4 + op * 2 + result,
     * as the SBI numbers cache, op (read, write) and result (access, miss) */
    PMU_EV_CACHE, PMU_EV_COUNT = PMU_EV_CACHE + 12
};

#define RVT_TRIGGERS 4 /* spike's default trigger count */
typedef struct trigger {
    uint64_t tdata1; /* legalised, as software reads it */
    uint64_t tdata2;
} trigger;

/* Results of executing one instruction. */
enum exec_status {
    EXEC_OK = 0,      /* retired, continue */
    EXEC_SERIALIZE,   /* retired; re-check interrupts before the next one (spike: serialize) */
    EXEC_WFI,         /* retired; the quantum ends */
    EXEC_TRAP,        /* did not retire; h->exc_cause/exc_tval hold the exception */
    EXEC_INTERRUPT,   /* did not execute: an interrupt is taken first (spike samples
                       * interrupts before a CSR instruction as well as after it) */
    EXEC_HANDOVER,    /* an ecall the hart's environment answers (hart_env.ecall): as a
                       * trap taken and returned from at once, the ecall does not retire */
};

/* A memory of the platform's (RAM, or the boot ROM) as the bus hands it to
 * the core (hart_bus.region): the platform allocates it and `icache`, one
 * word per 4 KiB page, which is the core's: it keeps the page's decoded
 * code there (mem.c), and frees that (hart_machine_free). */
typedef struct mem_region {
    uint64_t base, size;
    uint8_t *data;
    rvt_insn **icache;    /* per 4 KiB page: NULL, or one decoded slot per halfword
                           * (len 0 = not decoded yet); allocated on first fetch */
    bool rom;
} mem_region;

/* A decoded page: what mem_region.icache points at is its `slot`. The rest
 * is reached from the slots (code_page_of), so that the interpreter, which
 * holds the slots' address, needs no more registers for it. */
struct code_page {
    uint64_t pa; /* the physical page it decodes */
    /* Whenever decoded code here is dropped, a number no page had before
     * (hart_machine.code_ids): code blocks made from the page hold while it
     * is the one they were made under, which also says they were made from
     * this page (a virtual pc may be code of several). */
    uint64_t id;
    struct code_page *next; /* the one allocated before it (hart_machine.code_pages) */
    bool listed;            /* in the list of decoded pages (hart_machine.decoded) */
    rvt_insn slot[2048];
};
#define CODE_PAGE_NO_ID (~0ull) /* no page's: the run loop's empty page */
#define CODE_PAGE_CHUNK 127u   /* decoded pages per chunk: a little under 8 MiB */
static inline struct code_page *code_page_of(const rvt_insn *slots) {
    return (struct code_page *)(uintptr_t)((const char *)slots - offsetof(struct code_page, slot));
}

struct hart_machine;
struct hart;

/* What the platform tells the core when it builds a hart, so that the core
 * never reads the platform's configuration: who answers ecalls and
 * exceptions in place of the hart's own trap handlers, whether WFI sleeps,
 * and the one address whose stores the platform watches. */
typedef struct hart_env {
    /* Privileges (bit p) whose ecall `ecall` answers (EXEC_HANDOVER). */
    uint8_t ecall_privs;
    void (*ecall)(struct hart *h);
    /* An exception from S or U before it is taken; true: handled there, as
     * firmware would, and the trap goes no further. NULL: none. */
    bool (*exception)(struct hart *h, uint64_t code, uint64_t tval, uint64_t epc);
    /* WFI sleeps until an interrupt the hart enables is pending; else it
     * only ends the quantum, as spike's does. */
    bool wfi_sleeps;
    /* A store of the hart to this physical address calls store_watched
     * after it; ~0: none (no access reaches it). */
    uint64_t watched_store;
    void (*store_watched)(struct hart *h);
} hart_env;

/* The bus: how the core reaches the machine's memory and devices (spike's
 * simif_t), given by the platform when it builds the machine. Memory is
 * looked up as the region that holds an access (its host address, whether
 * it is ROM, and its decoded code, the per-page flags that the host TLB
 * keeps and its fast path tests once); an access no region holds goes to
 * the platform's devices. Only the slow paths call it: a host TLB hit is
 * a host address. */
typedef struct hart_bus {
    void *ctx; /* the platform's, passed to every call */
    /* The RAM or ROM region that holds [pa, pa + len), or NULL. */
    mem_region *(*region)(void *ctx, uint64_t pa, unsigned len);
    /* The region whose memory `host` is in, and its offset there (*off). */
    mem_region *(*region_of_host)(void *ctx, const uint8_t *host, uint64_t *off);
    /* An access that no region holds: a device's register, or nothing
     * (false: an access fault). */
    bool (*device_load)(void *ctx, uint64_t pa, void *out, unsigned len);
    bool (*device_store)(void *ctx, uint64_t pa, const void *in, unsigned len);
} hart_bus;

/* Observation of single steps (the platform's observe.c, for tandem
 * verification): the core reports each step and each memory access. */
typedef struct hart_observer {
    void (*step)(struct hart *h, int kind, uint64_t pc, unsigned priv, uint64_t cause, uint64_t tval);
    void (*access)(struct hart *h, const rvt_mem_access *a);
} hart_observer;

/* RAM pages that loads and stores reached before, by virtual page, so that
 * a hit is a host address with no translation, PMP check or region lookup:
 * the fast path of code under translation and of several harts. An entry
 * is filled after an access the whole way succeeded (host_tlb_fill) and
 * holds what that way found: the translation (for this run's privilege and
 * satp), that PMP allows the whole page, that it is RAM (and for a store,
 * not ROM, and where the platform's watched address is). The tables are
 * emptied wherever the TLB's translations end (forget_fetch_pages), and
 * where a run may not use them (host_tlb_allow). Whether decoded code is on
 * a store's page is looked at on each store (`code`), as code may be
 * decoded there after the entry was made. */
#define HOST_TLB_ENTRIES 256
#define HOST_TLB_FILLED 32
struct host_page {
    uint64_t tag;    /* the virtual page; ~0: none (its low bits never match an address's) */
    uint64_t addend; /* host address - virtual address */
    /* The page's decoded code (mem_region.icache), or, where the page had
     * none when the entry was filled, a NULL of its own that stays in the
     * cache (host_tlb_code_appeared drops such entries when code appears) */
    rvt_insn *const *code;
    /* Stores: the virtual address of the platform's watched address
     * (tohost) if it is on this page, else 0 (where a store, should one
     * match, merely goes the whole way) */
    uint64_t watch;
};
struct host_tlb {
    struct host_page load[HOST_TLB_ENTRIES], store[HOST_TLB_ENTRIES];
};
typedef struct hart {
    uint64_t x[32];
    uint64_t f[32];
    uint64_t pc;
    unsigned priv;
    unsigned xlen;
    unsigned id;
    struct hart_machine *m; /* the machine as the core sees it */
    hart_env env;

    /* CSRs */
    uint64_t mstatus, misa, medeleg, mideleg, mie, mip, mtvec, mscratch, mepc, mcause, mtval;
    /* mip holds the bits software writes (and the platform's environment,
     * as firmware would); irq_lines the interrupt lines the platform drives,
     * which software reads in mip but cannot write (hart_mip). */
    uint64_t irq_lines;
    uint64_t mcounteren, mcountinhibit, menvcfg, senvcfg;
    uint64_t stvec, sscratch, sepc, scause, stval, satp, scounteren;
    uint64_t minstret; /* retired instructions; mcycle reads the same count, as in spike */
    /* software writes shift the counters: mcycle reads minstret + its
     * offset; while mcountinhibit stops it (CY, IR), the offset holds its
     * value (pmu_fixed) */
    uint64_t mcycle_offset, minstret_offset;
    uint32_t fflags, frm;
    uint64_t pmpaddr[64];
    uint8_t pmpcfg[64];
    uint64_t pmp_gen;          /* bumped by every PMP CSR write */
    uint64_t csr_writes;       /* bumped by every csr_write: the observer compares
                                * what only CSR writes change (misa, PMP, trigger
                                * settings) when it moved */
    uint64_t fp_writes;        /* bumped by fp_dirty: likewise for the FP registers */
    /* The entries that match something, in order, with their byte ranges:
     * worked out at every PMP change (pmp_changed), as every access and
     * page-table read checks them */
    struct pmp_range {
        uint64_t lo, hi; /* inclusive */
        uint8_t cfg;
    } pmp_ranges[64];
    unsigned pmp_nranges;
    /* By kind of access and privilege: a byte range in which PMP allows
     * every access, found by pmp_ok around an access it allowed (between
     * the entries before the one that decided), so that the next accesses
     * there (page-table reads, TLB fills) skip the entries; emptied (lo >
     * hi) at every PMP change. */
    struct pmp_span {
        uint64_t lo, hi; /* inclusive */
    } pmp_allowed[3][4];

    uint64_t tselect;
    trigger trig[RVT_TRIGGERS];
    bool trig_armed;           /* some trigger matches execute, load or store */
    bool trig_pending;         /* a match that fires before the next instruction */
    uint64_t trig_pending_tval;

    /* LR/SC reservation */
    bool resv_valid;
    uint64_t resv_addr;

    /* The pending exception of an instruction that returned EXEC_TRAP. */
    uint64_t exc_cause, exc_tval;
    /* Bits of the instruction being executed (0 while fetching: an
     * exception raised before the instruction was fetched has none). */
    uint32_t cur_insn;
    uint8_t cur_len;
    bool misa_restricted;      /* misa has an extension of RV64GC switched off */
    /* fence.i: the run ends, interrupts are not sampled for it. Decoded code
     * needs no flush: every store into it drops what it overwrites
     * (code_drop), so decoded code never differs from memory. */
    bool fence_i_pending;
    bool asleep;               /* in WFI until (mip & mie) != 0 (hart_env.wfi_sleeps) */
    uint64_t traps_in_a_row;   /* traps since the last retired instruction */
    uint64_t last_trap_cause, last_trap_pc;
    bool trapped;              /* last_trap_* are valid */
    /* misa.C clear: jump targets must be 4-byte aligned (spike's IALIGN). */
    uint64_t ialign_mask;

    /* Multiple-retire interface: the block of sequential instructions being
     * accumulated (n = 0 when none). */
    struct retire_block {
        uint64_t pc;
        uint32_t n, hw;
        uint32_t insn; /* bits and size of the block's last instruction */
        uint8_t len;
        uint8_t priv;  /* the privilege the block executed in */
    } blk;

    /* Single steps for tandem verification: a CSR instruction executes
     * even with an interrupt pending (the trace says when one is taken). */
    bool interrupts_held;
    bool observe_in_loop; /* this run of instructions is observed one by one from run_inner */

    /* The decoded page the last fetch came from, kept between runs of
     * instructions until a trap, sfence.vma or what sets
     * translation_changed (the only ways privilege, translation, misa or
     * PMP change); NULL: none. */
    const rvt_insn *fetch_page;
    uint64_t fetch_page_base; /* its virtual address */
    uint64_t fetch_pa; /* the physical address the last fetch translated to */
    /* Decoded pages fetched from before, under the same condition, by page
     * number: code that calls between more than two pages (a loop and the
     * library functions it calls) finds them without a fetch and PMP check. */
    struct known_page {
        const rvt_insn *page; /* NULL: none */
        uint64_t base; /* its virtual address */
    } fetch_pages[8];
    /* Translations of virtual pages (mmu.c), per kind of access; they hold
     * while tlb_gen does, which moves on wherever fetch pages are forgotten
     * and on sfence.vma. NULL until the machine gives the hart one. */
    struct tlb *tlb;
    uint64_t tlb_gen;
    /* The RAM pages loads and stores reached, by virtual page. (In the
     * hart: the interpreter's handlers reach it with no pointer to load.) */
    struct host_tlb htlb;
    /* This run fills and takes the load table, the store table */
    bool htlb_loads, htlb_stores;
    /* The entries filled since the tables were last emptied (load entry i:
     * i, store entry i: HOST_TLB_ENTRIES + i), so that emptying them, at
     * every trap, touches those alone; more than HOST_TLB_FILLED: all. */
    uint16_t htlb_filled[HOST_TLB_FILLED];
    unsigned htlb_nfilled;
    bool sfence_pending; /* sfence.vma: the run ends, interrupts are not sampled for it */
    /* An instruction of this run changed what translations and decoded
     * pages depend on, where spike flushes its TLB: a write of satp, PMP or
     * misa, of mstatus's MPP, MPRV, SUM or MXR, or xRET's change of
     * privilege (traps forget them as they are taken). The run's end then
     * forgets them; other serialising instructions keep them. */
    bool translation_changed;

    /* Control transfer records (ctr.c); NULL when the machine has none.
     * ctr_armed: some mode is enabled and CTR is not frozen, so a transfer
     * may be recorded; the interpreter checks ctr_modes for the privilege an
     * instruction ran in (and ctr_armed for trap returns, which change it). */
    struct ctr_state *ctr;
    bool ctr_armed;
    uint8_t ctr_modes; /* bit p: privilege p records now (0 while frozen) */

    /* Performance counters (pmu.c): mhpmevent3..31, and per counter its
     * value and event total at the last configuration change; the event
     * totals per privilege, kept while hpm_counting. */
    uint64_t hpm_event[PMU_COUNTERS];
    uint8_t hpm_ev[PMU_COUNTERS]; /* pmu_event_of each one's event code, kept with it */
    uint64_t hpm_base[PMU_COUNTERS], hpm_snap[PMU_COUNTERS];
    uint64_t hpm_gen; /* moved on whenever a counter starts afresh (rebase) */
    uint64_t ev[4][PMU_EV_COUNT];
    bool hpm_counting;
    uint64_t hpm_until_check; /* instructions that may run before an overflow check */
    /* every counter (by CSR offset: mcycle 0, minstret 2, 3..31) when the
     * program stored its exit code */
    uint64_t hpm_exit[32];
    bool hpm_exit_valid;
    uint64_t hpm_exit_gen; /* hpm_gen when hpm_exit was taken */
} hart;

void host_tlb_clear(struct hart *h);
/* Whether the run that starts may fill and take the tables (what it may
 * not use is emptied: it stays so while not filled). */
void host_tlb_allow(struct hart *h, bool loads, bool stores);
void host_tlb_fill(struct hart *h, enum access acc, uint64_t va, uint64_t pa);
/* The RAM page at `host` got its first decoded code: the harts' store
 * entries for it, filled while it had none, go. */
void host_tlb_code_appeared(struct hart_machine *m, const uint8_t *host);
/* For the code blocks' handlers, after a miss: the entry for an aligned
 * access at `va` (masked to XLEN), filled where the access translates (its
 * page tables in RAM) to a RAM page it may reach; else NULL (the general
 * path does the access the whole way). Nothing architectural changes
 * either way: page faults and access faults are the general path's. */
struct host_page *host_tlb_refill(struct hart *h, uint64_t va, unsigned nbytes, enum access acc);

/* The entry of `table` for an aligned access of `nbytes` at `va`, or NULL
 * (none, or misaligned: the tag compare takes the address's low bits that
 * alignment wants clear, and a tag's are clear). */
static inline struct host_page *host_page_at(struct host_page *table, uint64_t va, unsigned nbytes) {
    struct host_page *e = &table[(va >> 12) % HOST_TLB_ENTRIES];
    return e->tag == (va & (~0xfffull | (nbytes - 1))) ? e : NULL;
}
/* A store at `va` through `e` may overwrite decoded code: its page has some,
 * or it is in the page's first halfword, where an instruction of the page
 * before may end. */
static inline bool host_store_meets_code(const struct host_page *e, uint64_t va) {
    return *e->code != NULL || !(va & 0xffe);
}
static inline uint8_t *host_address(const struct host_page *e, uint64_t va) {
    return (uint8_t *)(uintptr_t)(va + e->addend);
}

/* The entry of fetch_pages that page number of `pc` goes in. */
static inline struct known_page *known_page_slot(hart *h, uint64_t pc) { return &h->fetch_pages[(pc >> 12) & 7]; }

/* The known decoded page that holds `pc`, or NULL. */
static inline const struct known_page *known_page_at(hart *h, uint64_t pc) {
    const struct known_page *k = known_page_slot(h, pc);
    return k->page && k->base == (pc & ~0xfffull) ? k : NULL;
}

/* Whatever changed may change what fetches see, and how addresses are
 * translated: no decoded page and no translation is kept. */
static inline void forget_fetch_pages(hart *h) {
    h->fetch_page = NULL;
    memset(h->fetch_pages, 0, sizeof h->fetch_pages);
    h->tlb_gen++;
    h->translation_changed = false;
    host_tlb_clear(h);
}

/* A code block: integer code from `pc` up to and with its first jump (or up
 * to CODE_BLOCK_MAX instructions, an instruction the block cannot hold, or
 * the end of its 4 KiB page), conditional branches included: a branch taken
 * leaves the block there. Decoded from the page's slots into compact
 * operations for the interpreter's threaded loop (run_loop.h). Blocks hold
 * as long as their page's id does, which every change of decoded code
 * there moves on (a store into a kernel's data must not cost the blocks of
 * all its code).
 *
 * A direct-mapped table keyed by pc names each block's place in a pool.
 * The table is small (2 bytes a slot) so that it can cover 512 KiB of code
 * without two blocks of a loop sharing a slot: with the blocks themselves
 * as its slots (4096 of them, 3.4 MiB) code over 8 KiB made blocks again
 * and again (embench-nsichneu, 20 KiB of code: 43 636 blocks made for
 * 1 375 distinct ones, 28 % of the run), and a Linux boot made 812 000
 * blocks with 64 Ki slots and 8 Ki blocks, 247 000 with these. The pool
 * fills in the order blocks are made, so a program touches only as much of
 * it as it uses; once full, blocks are taken back in the same order. */
#define CODE_BLOCK_MAX 32
#define CODE_BLOCK_SLOTS 262144u
#define CODE_BLOCK_POOL 32768u /* entry 0 never holds: the empty slots' */
#define CODE_OP_END RVT_OP_COUNT     /* the operation after a block's last */
#define CODE_OP_NOP (RVT_OP_COUNT + 1) /* a register operation that writes x0 */
#define CODE_OP_PAIRS (RVT_OP_COUNT + 2) /* the first pair handler's (exec.c: CODE_OP_PAIR) */
struct code_op {
    /* The handler in the loop variant that made the block (direct
     * threading: the jump to the next handler is one indirect jump, with no
     * table to index; see struct code_block's dispatch). */
    const void *go;
    int32_t imm;
    uint32_t raw; /* its bits, for the record a branch writes (no trip to the decoded page) */
    /* A branch's, and the operation after a block's last's: the pool entry
     * of the block the run went on to from here the last time it did (0:
     * none yet), if on the same page: run_loop.h goes there without the
     * look-up when that block still holds (its pc, page and variant). */
    uint16_t next;
    uint8_t rd, rs1, rs2;
    uint8_t at; /* halfwords from the block's pc */
    uint8_t index; /* in the block's ops: instructions before it (no pointer division on the way out) */
};
_Static_assert(sizeof(struct code_op) == 24, "a code operation stays 24 bytes");
/* What the run loop reads of a block to enter it (its pc, page id, variant
 * and count) lies in the cache line of its first operation: the pool is
 * 64-byte aligned and a block a whole number of lines. */
struct code_block {
    uint64_t pc; /* the first instruction */
    /* The decoded page it was made from (NULL: never made): under
     * translation the same pc may be code of another physical page
     * (another address space): that page's id then */
    uint64_t page_id;
    /* The handler table of the loop variant whose handlers the ops' `go`
     * are: a block holds only for that variant (another one makes it again). */
    const void *const *dispatch;
    uint32_t n;         /* instructions (0: the first is not one a block holds) */
    uint32_t last_raw;  /* the last one's bits */
    uint32_t slot;      /* its slot in m->code_slots */
    bool ends_in_jump;  /* the last is a jump */
    uint8_t jump_itype; /* and its itype */
    uint8_t end_at;     /* halfwords from pc to the address after the last (code_block_end) */
    uint8_t last_at;    /* and to the last */
    struct code_op ops[CODE_BLOCK_MAX + 1];
    /* By operation, for its branches and the jump that ends it: the
     * record it writes when the record block began where the block did or
     * right after the branch before it (`from`): its packed word
     * (rvt_packed_word, which a code block's records always fit) without
     * the owner (port_owner_word) and, for a branch, with the itype of
     * one not taken. Sequential code from one address to a branch or jump
     * is always the same instructions, so wherever the record block began
     * at `from`, the rest of its record is this. (`unused` keeps the
     * records as far apart as the operations.) */
    struct static_record {
        uint64_t from, word, unused;
    } records[CODE_BLOCK_MAX];
};
_Static_assert(sizeof(struct static_record) == sizeof(struct code_op), "records[k] lies at a fixed distance from ops[k]");
_Static_assert(offsetof(struct code_block, ops) + sizeof(struct code_op) == 64 && sizeof(struct code_block) % 64 == 0,
               "a block's header and first operation share a cache line");
static inline uint64_t code_block_end(const struct code_block *cb) { return cb->pc + 2u * cb->end_at; }

/* The static record of a block's operation (records[op->index]), found
 * from the operation alone: no index to load and scale. */
static inline const struct static_record *static_record_of(const struct code_op *op) {
    return (const struct static_record *)((const char *)op +
                                          (offsetof(struct code_block, records) - offsetof(struct code_block, ops)));
}

/* The machine as its harts see it: what the platform gives the core when
 * it builds the machine (hart_machine_init, then the fields marked
 * "given"), the run's state the platform and the harts share, and what the
 * harts share among themselves (records, decoded code). The platform keeps
 * it in its machine (machine.h). */
typedef struct hart_machine {
    /* Given: the bus, the public handle (for the sampler's callback), and
     * what the machine's configuration decides for the core. */
    hart_bus bus;
    struct rvt_machine *self;
    unsigned xlen;
    unsigned pmp_regions; /* PMP entries (0: none) */
    bool merge_blocks;    /* records are blocks of instructions (rvt_machine_config) */
    struct hart *harts;   /* (a store of one breaks another's reservation) */
    unsigned nharts;

    /* The machine's timebase: the CLINT shows it, CSR time reads it, the
     * platform's scheduler moves it. */
    uint64_t mtime;
    /* Run state: the run stops (set by the harts, the devices, the sink)
     * and why; instructions retired and traps taken by all harts, and the
     * limit (0: none) on the two together. */
    bool stop;
    int stop_reason;
    uint64_t instret_total, traps;
    uint64_t max_insns;
    /* rvt_machine_sample_every: fn runs when instret_total reaches next. */
    rvt_sample_fn sample_fn;
    void *sample_user;
    uint64_t sample_period, sample_next;

    /* Observation (the platform's hooks); NULL when nobody observes. */
    const hart_observer *observer;
    /* rvt_machine_run_observed: runs go on past one instruction, observed
     * from inside the interpreter's loop (observe_in_loop, per run). */
    bool observe_runs;

    trace_port port; /* where the harts' records go (trace_port.c) */

    /* The cache model (cache.c); NULL without caches, and then nothing
     * looks at it per instruction or access. */
    struct cache_model *caches;

    /* Decoded code (mem.c): every page allocated (a list through
     * code_page.next), and code blocks (exec.c). */
    struct code_page *code_pages;
    uint16_t *code_slots;           /* CODE_BLOCK_SLOTS: an entry of code_blocks, 0 for none */
    struct code_block *code_blocks; /* CODE_BLOCK_POOL */
    uint32_t code_blocks_next;      /* the pool entry the next new block takes */
    uint64_t code_ids;              /* the last code_page.id given */
    /* Decoded pages come from chunks of CODE_PAGE_CHUNK pages, memory the
     * system gives zeroed and faults in as it is used, taken in order and
     * kept until the machine goes: a page of slots is 16 times the code it
     * decodes, and calloc cleared (faulted in) all of each one (a Linux
     * boot: 22 000 page faults; on huge pages, more system time). */
    struct code_page **code_chunks;
    unsigned ncode_chunks, code_chunk_used; /* pages taken of the last chunk */
    /* The pages that decoded an instruction since code was last flushed
     * (code_flush clears those alone: a kernel that runs fence.i often has
     * decoded few pages in between); when it could not grow, every page is
     * cleared. */
    struct code_page **decoded;
    size_t ndecoded, decoded_cap;
    bool decoded_overflow;
} hart_machine;

/* The core's part of building and freeing a machine (mem.c): the code-block
 * pool (RVT_E_NOMEM); the decoded pages and the pool. */
int hart_machine_init(hart_machine *m);
void hart_machine_free(hart_machine *m);

/* Interpreter (exec.c) */
void hart_reset(hart *h, hart_machine *m, unsigned id);
/* Runs up to `n` steps of spike's processor_t::step; returns early (ending
 * the quantum) on a trap or WFI. */
void hart_step(hart *h, uint64_t n);
/* hart_step, sampling interrupts before the first instruction only when
 * `sample_first` is set. */
void hart_step_from(hart *h, uint64_t n, bool sample_first);
void hart_take_trap(hart *h, uint64_t cause, uint64_t tval, uint64_t epc);
/* The trap record and the trap's counter event (hart_take_trap, and the
 * SBI calls that --sbi answers without a trap taken). */
void hart_report_trap(hart *h, uint64_t cause, uint64_t tval, uint64_t epc);

/* CSR file (csr.c): 0 on success, -1 for an illegal access. */
int csr_read(hart *h, unsigned csr, uint64_t *val);
int csr_write(hart *h, unsigned csr, uint64_t val);
/* What csrrs/csrrc and their immediate forms combine their operand with,
 * given the value csr_read gave (`read`). */
uint64_t csr_rmw_base(const hart *h, unsigned csr, uint64_t read);
bool csr_access_ok(const hart *h, unsigned csr, bool write);
uint64_t hart_mstatus_read(const hart *h);

/* Observation, while m->observer is set: a step, a memory access. */
static inline void observe_step(hart *h, int kind, uint64_t pc, unsigned priv, uint64_t cause, uint64_t tval) {
    h->m->observer->step(h, kind, pc, priv, cause, tval);
}
static inline void hart_observe_access(hart *h, const rvt_mem_access *a) { h->m->observer->access(h, a); }
static inline void note_access(hart *h, int kind, uint64_t va, uint64_t pa, unsigned len, uint64_t data,
                               uint64_t old) {
    rvt_mem_access a = {.vaddr = va, .paddr = pa, .data = data, .old = old, .kind = (uint8_t)kind,
                        .len = (uint8_t)len};
    hart_observe_access(h, &a);
}

/* Control transfer records (ctr.c). The CSR functions return CTR_NOT_MINE
 * for a CSR that is not CTR's (or when the hart has no CTR), else 0 or -1
 * (illegal) as csr_read/csr_write do. */
typedef struct ctr_state ctr_state;
#define CTR_NOT_MINE 1
int ctr_attach(hart *h, const rvt_machine_config *cfg);
void ctr_reset(hart *h);
void ctr_free(hart *h);
bool ctr_depth_valid(unsigned depth);
int ctr_csr_read(hart *h, unsigned csr, uint64_t *val);
int ctr_csr_write(hart *h, unsigned csr, uint64_t val);
/* Recording, called only while h->ctr_armed: after a retired instruction
 * with a control transfer (ctr_transfer in ctr_internal.h, which leaves
 * trap returns and RAS emulation to ctr_transfer_slow), and after a trap
 * was taken. */
void ctr_transfer_slow(hart *h, const rvt_insn *in, uint64_t pc, unsigned from);
void ctr_trap(hart *h, bool interrupt, uint64_t code, uint64_t epc, unsigned from);
/* SCTRCLR; false when it is illegal here. */
bool ctr_sctrclr(hart *h);
/* Re-evaluates CTR's activity for the current privilege (after a debugger
 * write, which runs at M whatever the hart's mode). */
void ctr_sync(hart *h);
/* Keeps the entries as they are when the program stores its exit code. */
void ctr_note_exit(hart *h);
/* rvt_machine_ctr_enable, rvt_machine_ctr_read(_at_exit) for the hart. */
int ctr_enable(hart *h, unsigned modes, unsigned depth, rvt_diag *diag);
size_t ctr_read(const hart *h, rvt_ctr_record *out, size_t cap, bool at_exit);

/* mip as software reads it. */
static inline uint64_t hart_mip(const hart *h) { return h->mip | h->irq_lines; }
/* The platform drives interrupt line `irq` (a bit of mip) to `level`: the
 * one way interrupt lines come into the core. */
static inline void hart_set_irq_line(hart *h, unsigned irq, bool level) {
    uint64_t bit = 1ull << irq;
    h->irq_lines = level ? h->irq_lines | bit : h->irq_lines & ~bit;
}
/* The bits of mip only the platform's lines drive (software cannot write them). */
#define MIP_LINES ((1ull << IRQ_M_SOFT) | (1ull << IRQ_M_TIMER) | (1ull << IRQ_M_EXT))

/* Whether a conditional branch that retired was taken: its operands are
 * unchanged, and its target may be the next instruction anyway. */
static inline bool branch_taken(const hart *h, const rvt_insn *in) {
    uint64_t a = h->x[in->rs1], b = h->x[in->rs2];
    if (h->xlen == 32) {
        a = (uint64_t)(int64_t)(int32_t)a;
        b = (uint64_t)(int64_t)(int32_t)b;
    }
    switch (in->op) {
    case RVT_OP_BEQ: return a == b;
    case RVT_OP_BNE: return a != b;
    case RVT_OP_BLT: return (int64_t)a < (int64_t)b;
    case RVT_OP_BGE: return (int64_t)a >= (int64_t)b;
    case RVT_OP_BLTU: return (h->xlen == 32 ? (uint32_t)a < (uint32_t)b : a < b);
    case RVT_OP_BGEU: return (h->xlen == 32 ? (uint32_t)a >= (uint32_t)b : a >= b);
    default: return false;
    }
}

/* Whether a retired conditional branch went to its target (which may be
 * the next instruction). */
static inline bool branch_went(const hart *h, const rvt_insn *in, uint64_t pc) {
    return h->pc != pc + in->len || (in->imm == in->len && branch_taken(h, in));
}

/* The event other than instructions and transfers an operation counts as
 * (loads, stores, AMOs), or PMU_EV_NONE (pmu.c). */
extern const uint8_t pmu_op_event[RVT_OP_COUNT];

/* Adds a retired instruction to the event totals of its privilege. */
static inline void pmu_count(hart *h, const rvt_insn *in, uint64_t pc, unsigned priv) {
    uint64_t *ev = h->ev[priv];
    ev[PMU_EV_INSTRUCTIONS]++;
    ev[pmu_op_event[in->op]]++; /* PMU_EV_NONE is a slot nobody reads */
    if (in->cf == RVT_CF_BRANCH) {
        ev[PMU_EV_TRANSFERS]++;
        ev[PMU_EV_BRANCHES]++;
        ev[PMU_EV_TAKEN] += branch_went(h, in, pc);
    } else if (in->cf == RVT_CF_JAL || in->cf == RVT_CF_JALR) {
        ev[PMU_EV_TRANSFERS]++;
        ev[PMU_EV_JUMPS]++;
    }
}

/* Performance counters (pmu.c); counter index i is mhpmcounter(i + 3).
 * `half`: 0 the whole value, 1 the low 32 bits, 2 the high ones (RV32). */
unsigned pmu_event_of(const struct hart *h, uint64_t code);
uint64_t pmu_counter(const hart *h, unsigned i);
void pmu_write_counter(hart *h, unsigned i, uint64_t val, int half);
void pmu_write_event(hart *h, unsigned i, uint64_t val, int half);
void pmu_write_inhibit(hart *h, uint64_t val);
/* mcycle (0) or minstret (2) as it reads now; setting it so that it reads
 * v now, or after the instruction writing it retires */
uint64_t pmu_fixed(const hart *h, unsigned c);
void pmu_set_fixed(hart *h, unsigned c, uint64_t v, bool retiring);
uint64_t pmu_overflow_bits(const hart *h); /* OF of counter i at bit i + 3 */
bool pmu_check_overflow(hart *h); /* true: it raised the overflow interrupt */
void pmu_reset(hart *h);
void pmu_note_exit(hart *h); /* keeps every counter as it is now */
/* rvt_machine_hpm_counter, rvt_machine_hpm_program for the hart (NULL: no
 * such hart). */
uint64_t pmu_read(const hart *h, unsigned counter, uint64_t *event, bool at_exit);
int pmu_program(hart *h, unsigned counter, uint64_t code, rvt_diag *diag);

/* Performs the misaligned load or store being executed (h->cur_insn) byte
 * by byte and moves past it; a fault on the way is taken as a trap. False
 * for instructions firmware does not emulate (AMOs, LR/SC). */
bool hart_emulate_misaligned(hart *h, uint64_t va, uint64_t epc);

/* Trigger module (trigger.c). */
enum { TRIG_NONE, TRIG_BEFORE, TRIG_AFTER };
void trigger_reset(hart *h);
uint64_t trigger_tinfo(void);
void trigger_write_tdata1(hart *h, uint64_t val);
/* Checks an access against the armed triggers: TRIG_BEFORE sets exc_* to the
 * breakpoint exception the access must raise instead of happening;
 * TRIG_AFTER leaves a breakpoint pending for the next instruction. */
int trigger_check(hart *h, enum access op, uint64_t addr, unsigned len, bool have_data, uint64_t data);

/* Address translation (mmu.c): the physical address of a `len`-byte access
 * at `va`, translated with the effective privilege (MPRV's MPP for loads and
 * stores) and checked against PMP; false with exc_cause/exc_tval set to the
 * page or access fault. */
bool mmu_translate(hart *h, uint64_t va, enum access acc, unsigned len, uint64_t *pa);
/* The hart's TLB: allocated once (RVT_E_NOMEM), kept through resets. */
int mmu_attach(hart *h);
void mmu_free(hart *h);

/* Physical memory protection (pmp.c). `mode` is the effective privilege
 * of the access (MPRV's MPP for loads and stores). pmp_decide goes through
 * the entries; pmp_ok first looks whether the access lies where an
 * access of its kind and privilege was allowed before (pmp_allowed). */
bool pmp_decide(hart *h, uint64_t pa, uint64_t len, enum access acc, unsigned mode);
static inline bool pmp_ok(hart *h, uint64_t pa, uint64_t len, enum access acc, unsigned mode) {
    const struct pmp_span *known = &h->pmp_allowed[acc][mode];
    return ((pa & ~3ull) >= known->lo && ((pa + len - 1) | 3) <= known->hi) || pmp_decide(h, pa, len, acc, mode);
}
bool pmp_addr_locked(const hart *h, unsigned i);
/* A PMP CSR was written. */
void pmp_changed(hart *h);

/* FPU (fp.c): executes an F/D instruction; EXEC_* status. */
int fp_exec(hart *h, const rvt_insn *in);
static inline bool fp_enabled(const hart *h) { return (h->mstatus & MSTATUS_FS) != 0; }
/* Every write of an FP register comes here (fp_writes tells the observer to
 * compare the FP registers). */
static inline void fp_dirty(hart *h) {
    h->mstatus |= MSTATUS_FS;
    h->fp_writes++;
}

/* Memory, through the bus (mem.c): physical accesses (false on an access
 * fault), what decoded code a store drops, decoded code. A store of a hart
 * (`h`; NULL: the host's) breaks the other harts' reservations on its
 * granule and, at the address hart_env watches, calls store_watched. */
static inline mem_region *bus_region(hart_machine *m, uint64_t pa, unsigned len) {
    return m->bus.region(m->bus.ctx, pa, len);
}
static inline mem_region *bus_region_of_host(hart_machine *m, const uint8_t *host, uint64_t *off) {
    return m->bus.region_of_host(m->bus.ctx, host, off);
}
/* The cache model (cache.c), while m->caches: a fetch of the instruction at
 * the pc, a load or store at physical address pa. */
int cache_model_new(hart_machine *m, const rvt_machine_config *cfg, rvt_diag *diag);
void cache_model_free(hart_machine *m);
bool cache_has(const hart_machine *m, unsigned cache);
void cache_fetch(struct hart *h);
void cache_data(struct hart *h, uint64_t pa, unsigned len, bool store);
bool cache_stats(const hart_machine *m, unsigned cache, rvt_cache_stats *out);
bool bus_load(hart_machine *m, uint64_t pa, void *out, unsigned len);
bool bus_store(hart_machine *m, hart *h, uint64_t pa, const void *in, unsigned len);
/* The decoded instruction at `pa` (decoded now if it was not), or NULL
 * where no region holds it. */
const rvt_insn *bus_fetch(hart_machine *m, uint64_t pa);
/* Drops decoded instructions that a store of `len` bytes at `off` of r
 * overwrites (before it does). */
void code_drop(hart_machine *m, mem_region *r, uint64_t off, unsigned len);
/* Drops every decoded instruction (the code watch, a debugger's write of
 * misa, satp or PMP). */
void code_flush(hart_machine *m);
/* The block in pc's slot: the one at pc if it holds (run_loop.h's
 * BLOCK_HOLDS), else another or the pool's entry 0, which never holds. */
static inline const struct code_block *code_block_at(const hart_machine *m, uint64_t pc);
/* Decodes the code block at `pc` from `page` (the decoded page at virtual
 * `page_base` that fetches at pc come from, of which
 * the first `limit` bytes may hold instructions) into pc's slot, its
 * operations pointing at the handlers in `dispatch` (by operation). */
const struct code_block *code_block_make(hart_machine *m, const rvt_insn *page, uint64_t page_base,
                                         uint64_t limit, uint64_t pc, const void *const *dispatch);

/* Emits the block a hart is accumulating, if any (exec.c). */
void hart_flush_block(hart *h);
/* The state a hart's records have now: mtime, and the hart's group. */
static inline rvt_packed_state hart_record_state(const hart *h) {
    return (rvt_packed_state){h->m->mtime, h->id >> 2};
}
/* Code blocks write their records without looking at the stream's state
 * (run_loop.h): the interpreter's loop sets it to its hart's on the way in
 * and wherever mtime or the state may have changed since. */
static inline void machine_sync_record_state(hart *h) { port_set_state(&h->m->port, hart_record_state(h)); }

/* satp.MODE: 0 when addresses are not translated (Bare). */
static inline unsigned satp_mode(const hart *h) {
    return h->xlen == 64 ? (unsigned)(h->satp >> 60) : (unsigned)(h->satp >> 31);
}

static inline uint32_t code_slot_of(uint64_t pc) { return (pc >> 1) & (CODE_BLOCK_SLOTS - 1); }

static inline const struct code_block *code_block_at(const hart_machine *m, uint64_t pc) {
    return &m->code_blocks[m->code_slots[code_slot_of(pc)]];
}

static inline uint64_t sext_xlen(const hart *h, uint64_t v) {
    return h->xlen == 32 ? (uint64_t)(int64_t)(int32_t)v : v;
}
/* The privilege loads and stores use: MPP while MPRV is set, else the hart's. */
static inline unsigned data_priv(const hart *h) {
    return (h->mstatus & MSTATUS_MPRV) ? (unsigned)((h->mstatus & MSTATUS_MPP) >> 11) : h->priv;
}
static inline uint64_t mask_xlen(const hart *h, uint64_t v) { return h->xlen == 32 ? (uint32_t)v : v; }

/* memcpy of an access's 1, 2, 4 or 8 bytes with constant sizes, so that it
 * compiles to one load and store instead of a library call. */
static inline __attribute__((always_inline)) void copy_small(void *dst, const void *src, unsigned len) {
    switch (len) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, len); break;
    }
}

#endif
