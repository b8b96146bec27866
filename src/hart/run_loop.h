/* The hart's interpreter loop, a template: exec.c defines RUN_NAME, RUN_XLEN,
 * RUN_EMIT, RUN_BLOCKS and RUN_COUNT and includes this file once for each
 * variant. It is a file rather than an inline function because its threaded
 * dispatch keeps label addresses in a static table, and GCC never copies a
 * function that does that. */

/* Runs instructions until `limit` retired, a serializing instruction, WFI or
 * an exception.
 *
 * Where nothing is wanted per instruction (no per-instruction records, no
 * counters counting, CTR not recording, loads and stores to plain RAM), code
 * runs a code block at a time (struct code_block, hart_internal.h): integer
 * code up to its first jump, branches included, decoded once into compact
 * operations that are dispatched threaded, each handler ending in the jump
 * to the next one's, with no fetch, limit or control-flow check between
 * them; a taken branch leaves the block. A handler that meets anything out of its way (memory that is not
 * plain RAM or holds decoded code, tohost, a misaligned target) leaves its
 * instruction to the general path, which runs one instruction at a time as
 * execute() does everything else. */
static int RUN_NAME(hart *h, uint64_t limit, uint64_t *retired) {
    const unsigned XLEN = RUN_XLEN;
    const bool EMIT = RUN_EMIT, BLOCKS = RUN_BLOCKS, COUNT = RUN_COUNT;
    hart_machine *m = h->m;
    const bool THREADED = !COUNT && (BLOCKS || !EMIT);
    /* Decoded pages are shared with the physical memory they came from: they
     * serve fetches while every extension is on, through translation too
     * (a page is taken by its virtual address: what could change where it
     * points ends the run and forgets it). Under translation the next virtual
     * page need not follow in physical memory, so an instruction in a page's
     * last halfword goes the general way, which fetches its halves apart. */
    const bool cache_pages = !h->misa_restricted;
    const uint64_t page_limit = h->priv != PRV_M && satp_mode(h) != 0 ? 4094 : 4096;
    /* The decoded page the last fetch came from (none: an impossible base). */
    static const struct code_page no_code_page = {.id = CODE_PAGE_NO_ID};
    const rvt_insn *const no_page = no_code_page.slot;
    const rvt_insn *page = cache_pages && h->fetch_page ? h->fetch_page : no_page;
    uint64_t page_base = page != no_page ? h->fetch_page_base : 1;
    /* The decoded page before it: code that goes between two pages keeps
     * both at hand. What made a page usable holds for the whole run. */
    const rvt_insn *alt_page = no_page;
    uint64_t alt_page_base = 1;
    uint64_t done = 0;
    int st = EXEC_OK;
    /* The block being accumulated, in locals: the hart's fields are memory
     * that every instruction's register writes might alias. A block is
     * sequential code in one privilege (whatever changes the privilege
     * ends it), so its start, the count of instructions retired when it
     * started and the last instruction retired tell the rest: only the
     * last is noted per instruction. The hart's block is brought up to date
     * on the way out (traps flush it after the loop). */
    struct retire_block blk = h->blk;
    uint64_t blk_pc = blk.n ? blk.pc : h->pc;
    unsigned blk_priv = blk.n ? blk.priv : h->priv;
    uint64_t blk_base = 0 - (uint64_t)blk.n; /* done - blk_base: instructions in the block */
    uint64_t last_pc = 0;
    uint32_t last_raw = 0; /* 0: none retired in this run */
    if (BLOCKS)
        machine_sync_record_state(h);
    /* The pc and minstret in locals for the same reason; h->minstret is
     * brought up to date before whatever reads it. */
    uint64_t pc = h->pc;
    const uint64_t instret_before = h->minstret;
    uint64_t *const x = h->x;
    /* What the code blocks' handlers take as fixed: it changes only through
     * instructions that end the run (CSR writes) or that go the general way
     * (xret, after which CTR's mode is looked at again; loads and stores
     * outside the last region, after which the region is taken again). */
    const uint64_t ialign_mask = h->ialign_mask;
    /* The handlers' loads and stores take RAM pages from the host TLB
     * (empty where this run may not use it). Observed code, and CTR
     * recording, go one instruction at a time. */
    const bool observed = m->observer != NULL;
#define BLOCKS_HERE() (h->htlb_loads && !observed && !((h->ctr_modes >> h->priv) & 1))
    bool blocks_here = BLOCKS_HERE();
    const rvt_insn *in;
    const struct code_block *cb = NULL;
    /* Whole blocks only, and none that could take the record block past
     * its limit where one instruction at a time would have cut it (which
     * no block can right after a record: next_block). */
#define BLOCK_FITS_QUANTUM(cb) ((cb)->n && (cb)->n <= limit - done)
#define BLOCK_FITS(cb) (BLOCK_FITS_QUANTUM(cb) && (!BLOCKS || ((code_block_end(cb) - blk_pc) >> 1) <= 0xff00))
    /* The block in cb's slot is the one at pc, the code it was decoded from
     * has not changed since, and its operations carry this variant's handlers. */
#define BLOCK_HOLDS(cb, pc) ((cb)->pc == (pc) && (cb)->page_id == code_page_of(page)->id && (cb)->dispatch == dispatch)
    /* The record block ends with an instruction (bits `raw`, `itype`)
     * before `next`, `retired` instructions into the run; the next
     * one starts at `to`. (No struct for the block: only the way out needs
     * one, and keeping it up to date here kept it on the stack.) */
    uint64_t blk_owner = port_owner_word(blk_priv, h->id);
#define CLOSE_RECORD_BLOCK_AT(time, next, raw, itype, retired, to)                                                    \
    do {                                                                                                               \
        /* (the next block first: the record's stores may alias what it reads) */                                      \
        const uint64_t closed_pc_ = blk_pc, closed_base_ = blk_base;                                                   \
        blk_pc = (to);                                                                                                 \
        blk_base = (retired);                                                                                          \
        port_write_block(&m->port, h->id, closed_pc_, (uint32_t)(blk_base - closed_base_), (raw), ((next) - closed_pc_) >> 1,   \
                          (itype), blk_owner, (time));                                                                 \
    } while (0)
#define CLOSE_RECORD_BLOCK(next, raw, itype, retired, to) CLOSE_RECORD_BLOCK_AT(m->mtime, next, raw, itype, retired, to)
    const struct code_op *op = NULL;
    uint64_t target = 0; /* where a block's last jump or branch went */
    /* The operation whose `next` names the block the run goes on to from
     * where the last block left (its taken branch, or the operation after
     * its last) */
    const struct code_op *left_at = NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init" /* the handlers over the default */
    static const void *const dispatch[CODE_OP_TABLE_SIZE] = {
        [0 ... CODE_OP_TABLE_SIZE - 1] = &&op_leave,
#define PAIR_ENTRY(first, kind, second) [CODE_OP_PAIR(PAIR_FIRST_##first, PAIR_SECOND_##second)] = &&op_##first##_##second,
#define PAIR_ENTRIES(first, kind) HART_PAIR_SECOND(PAIR_ENTRY, first, kind)
        HART_PAIR_FIRST(PAIR_ENTRIES)
#undef PAIR_ENTRIES
#undef PAIR_ENTRY
#define HANDLER_ENTRY(name, ...) [RVT_OP_##name] = &&op_##name,
        HART_ALU(HANDLER_ENTRY) HART_BRANCHES(HANDLER_ENTRY) HART_LOADS(HANDLER_ENTRY) HART_STORES(HANDLER_ENTRY)
#undef HANDLER_ENTRY
        [RVT_OP_JAL] = &&op_JAL, [RVT_OP_JALR] = &&op_JALR, [CODE_OP_END] = &&op_END, [CODE_OP_NOP] = &&op_nop,
    };
#pragma GCC diagnostic pop

    /* The decoded page at `base` becomes the one at hand, the one before it
     * the alternative. */
#define TAKE_PAGE(p, base)                                                                                             \
    do {                                                                                                               \
        if (page != no_page) {                                                                                         \
            alt_page = page;                                                                                           \
            alt_page_base = page_base;                                                                                 \
        }                                                                                                              \
        page = (p);                                                                                                    \
        page_base = (base);                                                                                            \
    } while (0)
    /* The page before becomes the one at hand, and this one the page before. */
#define BACK_TO_PAGE_BEFORE()                                                                                          \
    do {                                                                                                               \
        const rvt_insn *p_ = page;                                                                                     \
        uint64_t b_ = page_base;                                                                                       \
        page = alt_page;                                                                                               \
        page_base = alt_page_base;                                                                                     \
        alt_page = p_;                                                                                                 \
        alt_page_base = b_;                                                                                            \
    } while (0)

next_insn:
    if (done >= limit)
        goto out;
    {
        uint64_t off = pc - page_base;
        if (off >= 4096 && alt_page != no_page && pc - alt_page_base < 4096) {
            BACK_TO_PAGE_BEFORE();
            off = pc - page_base;
        }
        if (THREADED && off < 4096 && blocks_here && page != no_page) {
            /* A block of this page decoded since the last change of code
             * holds without looking at the page's slots again. */
            cb = code_block_at(m, pc);
            if (BLOCK_HOLDS(cb, pc) ||
                (page[off >> 1].len && (cb = code_block_make(m, page, page_base, page_limit, pc, dispatch))))
                if (BLOCK_FITS(cb)) {
                    op = cb->ops;
                    goto *op->go;
                }
        }
        if (__builtin_expect(off < page_limit && page[off >> 1].len, 1)) {
            in = &page[off >> 1];
        } else {
            const struct known_page *known = cache_pages ? known_page_at(h, pc) : NULL;
            if (known && known->page[(pc & 0xfff) >> 1].len && (pc & 0xfff) < page_limit) {
                TAKE_PAGE(known->page, known->base);
                goto next_insn;
            }
            h->pc = pc;
            in = fetch(h);
            if (in && cache_pages) {
                /* Remember the decoded page for the following fetches. */
                const uint64_t pa = h->fetch_pa;
                mem_region *r = bus_region(m, pa, 2);
                rvt_insn *p = r ? r->icache[(pa - r->base) >> 12] : NULL;
                if (p && pmp_ok(h, pa & ~0xfffull, 4096, ACC_FETCH, h->priv)) {
                    TAKE_PAGE(p, pc & ~0xfffull);
                    *known_page_slot(h, pc) = (struct known_page){p, page_base};
                    /* Its blocks, now that the page is at hand (its slot
                     * at pc is decoded and within the limit: no second
                     * trip here). */
                    if (THREADED && in && (pc & 0xfff) < page_limit)
                        goto next_insn;
                }
            }
            if (__builtin_expect(!in, 0)) {
                st = EXEC_TRAP;
                goto out;
            }
        }
    }
general: {
    if (__builtin_expect(in->op == RVT_OP_ILLEGAL, 0)) {
        h->cur_insn = in->raw;
        h->cur_len = in->len;
        st = illegal(h, in);
        goto out;
    }
    unsigned priv = h->priv;
    uint64_t next;
    const uint64_t time_before = m->mtime;
    if (BLOCKS && done != blk_base && may_write_code(h, in)) {
        /* The record block so far goes before the store, which may change
         * its code (its record is then passed on before the code changes). */
        uint32_t prev_raw = last_raw ? last_raw : blk.insn;
        port_make_room(&m->port);
        CLOSE_RECORD_BLOCK(pc, prev_raw, RVT_ITYPE_NONE, done, pc);
    }
    st = execute(h, in, pc, instret_before + done, &next, XLEN);
    x[0] = 0;
    if (__builtin_expect(st >= EXEC_TRAP, 0)) {
        h->cur_insn = in->raw;
        h->cur_len = in->len;
        pc = next;
        goto out;
    }
    if (BLOCKS && __builtin_expect(m->mtime != time_before, 0)) {
        /* The instruction wrote mtime (the CLINT's): those before it in the
         * record block retired at the time before (a block has one time). */
        if (done != blk_base) {
            uint32_t prev_raw = last_raw ? last_raw : blk.insn;
            port_make_room(&m->port);
            CLOSE_RECORD_BLOCK_AT(time_before, pc, prev_raw, RVT_ITYPE_NONE, done, pc);
        }
        machine_sync_record_state(h);
    }
    done++;
    if (in->cf != RVT_CF_NONE &&
        (((h->ctr_modes >> priv) & 1) || (in->cf == RVT_CF_XRET && h->ctr_armed))) {
        h->pc = next;
        h->minstret = instret_before + done;
        ctr_transfer(h, in, pc, priv);
    }
    if (COUNT) {
        h->pc = next;
        h->minstret = instret_before + done;
        pmu_count(h, in, pc, priv);
    }
    if (BLOCKS) {
        /* Multiple-retire interface: a block ends with its first
         * control transfer. */
        last_pc = pc;
        last_raw = in->raw;
        if (in->cf != RVT_CF_NONE || ((pc + in->len - blk_pc) >> 1) > 0xff00) {
            bool taken = in->cf == RVT_CF_BRANCH && next != pc + in->len;
            port_make_room(&m->port);
            CLOSE_RECORD_BLOCK(pc + in->len, in->raw,
                               in->cf == RVT_CF_NONE ? RVT_ITYPE_NONE : rvt_itype(in, taken, 4, false), done, next);
            blk_priv = h->priv;
            blk_owner = port_owner_word(blk_priv, h->id);
            if (m->stop) {
                pc = next;
                goto out;
            }
        }
    } else if (EMIT) {
        if (m->observer) {
            h->cur_insn = in->raw;
            h->cur_len = in->len;
            h->pc = next;
            h->minstret = instret_before + done;
            if (h->observe_in_loop)
                observe_step(h, RVT_STEP_RETIRED, pc, priv, 0, 0);
        }
        if (m->port.sink)
            emit_retired(h, in, pc, next, priv);
        if (m->stop) {
            pc = next;
            goto out;
        }
    }
    pc = next;
    if (__builtin_expect(st != EXEC_OK, 0))
        goto out;
    blocks_here = BLOCKS_HERE();
    goto next_insn;
}

    /* The code blocks' handlers. The pc of an operation: cb->pc + 2 * op->at. */
#define NEXT_OP()                                                                                                      \
    do {                                                                                                               \
        op++;                                                                                                          \
        goto *op->go;                                                                                                  \
    } while (0)
    /* The operations' work, as their handlers and the pairs' do it. */
#define ALU_STEP(name) (x[op->rd] = alu_value_##name(x[op->rs1], x[op->rs2], op->imm, cb->pc + 2u * op->at, XLEN))
    /* Loads and stores the host TLB does not hold, misaligned ones, and
     * stores that could change decoded code (on a page with some, or in a
     * page's first halfword, where an instruction of the page before may
     * end), or to the platform's watched address (tohost), go the general
     * way. The host TLB never holds the boot ROM for stores. */
#define LOAD_STEP(name)                                                                                                \
    do {                                                                                                               \
        const unsigned nbytes_ = LOAD_BYTES_##name;                                                                    \
        uint64_t va = MASKX(x[op->rs1] + (uint64_t)(int64_t)op->imm);                                                  \
        const struct host_page *e_ = host_page_at(h->htlb.load, va, nbytes_);                                          \
        if (__builtin_expect(!e_, 0) && !(e_ = host_tlb_refill(h, va, nbytes_, ACC_LOAD)))                             \
            goto op_leave;                                                                                             \
        uint64_t v = 0;                                                                                                \
        copy_small(&v, host_address(e_, va), nbytes_);                                                                \
        x[op->rd] = SEXTX(load_extend_##name(v));                                                                      \
        x[0] = 0;                                                                                                      \
    } while (0)
#define STORE_STEP(name)                                                                                               \
    do {                                                                                                               \
        const unsigned nbytes_ = STORE_BYTES_##name;                                                                   \
        uint64_t va = MASKX(x[op->rs1] + (uint64_t)(int64_t)op->imm);                                                  \
        const struct host_page *e_ = host_page_at(h->htlb.store, va, nbytes_);                                         \
        if (__builtin_expect(!e_, 0) && !(e_ = host_tlb_refill(h, va, nbytes_, ACC_STORE)))                            \
            goto op_leave;                                                                                             \
        if (host_store_meets_code(e_, va) || va == e_->watch)                                                          \
            goto op_leave;                                                                                             \
        copy_small(host_address(e_, va), &x[op->rs2], nbytes_);                                                        \
    } while (0)
#define STEP_HANDLER(name, ...)                                                                                        \
    op_##name : STEP_KIND(name);                                                                                       \
    NEXT_OP();
#define STEP_KIND ALU_STEP /* (never x0: that is op_nop) */
    HART_ALU(STEP_HANDLER)
#undef STEP_KIND
#define STEP_KIND LOAD_STEP
    HART_LOADS(STEP_HANDLER)
#undef STEP_KIND
#define STEP_KIND STORE_STEP
    HART_STORES(STEP_HANDLER)
#undef STEP_KIND
#undef STEP_HANDLER
op_nop:
    NEXT_OP();
    /* A pair: the first operation, then straight on to the second's handler. */
#define PAIR_HANDLER(first, kind, second)                                                                              \
    op_##first##_##second : kind##_STEP(first);                                                                        \
    op++;                                                                                                              \
    goto op_##second;
#define PAIR_HANDLERS(first, kind) HART_PAIR_SECOND(PAIR_HANDLER, first, kind)
    HART_PAIR_FIRST(PAIR_HANDLERS)
#undef PAIR_HANDLERS
#undef PAIR_HANDLER
#undef ALU_STEP
#undef LOAD_STEP
#undef STORE_STEP
    /* The record of a code block's branch or jump, whose static record is
     * `sr` (`itype_add` added to its itype), closing the record block before
     * `next` with an instruction of bits `raw` and `itype`,
     * `retired` instructions in, on to `to`. The static record is copied
     * where the record block began at its `from`, else the record is worked
     * out. Inside a code block only the sink, given a full batch, can ask
     * the run to stop, so that is looked at only then (the record is
     * written first). */
#define CODE_BLOCK_RECORD(sr, itype_add, next, raw, itype, retired, to)                                                \
    do {                                                                                                               \
        if (__builtin_expect(m->port.buf_next >= m->port.buf_end, 0)) {                                                          \
            port_flush(&m->port);                                                                                  \
            if (m->stop) {                                                                                             \
                CLOSE_RECORD_BLOCK(next, raw, itype, retired, to);                                                     \
                done = (retired);                                                                                      \
                pc = (to);                                                                                             \
                goto out;                                                                                              \
            }                                                                                                          \
        }                                                                                                              \
        if (__builtin_expect(blk_pc == (sr)->from, 1)) {                                                               \
            write_record_word_now(m, h, blk_pc, (sr)->word + (itype_add) + blk_owner);                                 \
            blk_pc = (to);                                                                                             \
            blk_base = (retired);                                                                                      \
        } else {                                                                                                       \
            CLOSE_RECORD_BLOCK(next, raw, itype, retired, to);                                                         \
        }                                                                                                              \
    } while (0)
    /* With block records, a branch ends the record block: its record is
     * written where it retires, taken or not (`to`: where it went). The
     * record block is empty after it, so last_pc and last_raw (what the way
     * out needs of a block left open) wait for the next instruction. (The
     * count retired and where it went are worked out where they are used:
     * in locals, GCC worked them out before the room check and kept them on
     * the stack across its flush.) */
#define BRANCH_RECORD(to, itype)                                                                                       \
    CODE_BLOCK_RECORD(static_record_of(op), rvt_packed_word(0, 0, 0, 0, (itype) - RVT_ITYPE_BRANCH_NOT_TAKEN, 0, 0),  \
                      cb->pc + 2u * op[1].at, op->raw, (itype), done + (uint32_t)op->index + 1, to)
#define BRANCH_HANDLER(name, cond)                                                                                     \
    op_##name : {                                                                                                      \
        uint64_t a = x[op->rs1], b = x[op->rs2];                                                                       \
        if (!(cond)) {                                                                                                 \
            if (BLOCKS)                                                                                                \
                BRANCH_RECORD(MASKX(cb->pc + 2u * op[1].at), RVT_ITYPE_BRANCH_NOT_TAKEN);                              \
            NEXT_OP();                                                                                                 \
        }                                                                                                              \
        target = cb->pc + 2u * op->at + (uint64_t)(int64_t)op->imm;                                                    \
        if (target & ialign_mask)                                                                                      \
            goto op_leave;                                                                                             \
        target = MASKX(target);                                                                                        \
        if (BLOCKS) /* (a branch to the next instruction counts as not taken) */                                       \
            BRANCH_RECORD(target,                                                                                      \
                          target != cb->pc + 2u * op[1].at ? RVT_ITYPE_BRANCH_TAKEN : RVT_ITYPE_BRANCH_NOT_TAKEN);     \
        done += (uint32_t)op->index + 1; /* out of the block here */                                                   \
        pc = target;                                                                                                   \
        left_at = op;                                                                                                  \
        goto next_block;                                                                                               \
    }
    HART_BRANCHES(BRANCH_HANDLER)
#undef BRANCH_HANDLER
#undef BRANCH_RECORD
op_JAL:
    target = cb->pc + 2u * op->at + (uint64_t)(int64_t)op->imm;
    if (target & ialign_mask)
        goto op_leave;
    goto jumped;
op_JALR:
    target = (x[op->rs1] + (uint64_t)(int64_t)op->imm) & ~1ull;
    if (target & ialign_mask)
        goto op_leave;
jumped:
    target = MASKX(target);
    x[op->rd] = SEXTX(code_block_end(cb));
    x[0] = 0;
    left_at = op + 1;
    goto block_done;

    /* The whole block retired: on to `target`, or on in sequence. */
op_END:
    target = MASKX(code_block_end(cb));
    left_at = op;
block_done:
    done += cb->n;
    if (BLOCKS) {
        if (!cb->ends_in_jump) { /* the record block goes on: the whole check */
            last_pc = cb->pc + 2u * cb->last_at;
            last_raw = cb->last_raw;
            pc = target;
            goto next_insn;
        }
        /* (op is the jump, the block's last operation: the record block
         * closes with it, so last_pc and last_raw are not needed) */
        CODE_BLOCK_RECORD(static_record_of(op), 0, code_block_end(cb), cb->last_raw, cb->jump_itype, done, target);
    }
    pc = target;
next_block: /* (with block records, right after one) */
    /* The next block straight away, if there is one, on a page at hand:
     * this one, the one before or a known one (code spread over pages
     * jumps between them all the time). On this page, the block the run
     * went on to from here before holds if its pc, page id (this block's:
     * nothing changed the page's code while this one ran) and variant do,
     * with no look-up; else the one the look-up finds is remembered. */
    if (pc - page_base < 4096) {
        uint16_t *next_ = (uint16_t *)&left_at->next;
        const struct code_block *nb = &m->code_blocks[*next_];
        if (__builtin_expect(nb->pc != pc || nb->page_id != cb->page_id || nb->dispatch != dispatch, 0)) {
            const uint16_t entry_ = m->code_slots[code_slot_of(pc)];
            nb = &m->code_blocks[entry_];
            if (!BLOCK_HOLDS(nb, pc))
                goto next_insn;
            *next_ = entry_;
        }
        if (BLOCK_FITS_QUANTUM(nb)) {
            cb = nb;
            op = cb->ops;
            goto *op->go;
        }
        goto next_insn;
    }
    {
        const struct known_page *known;
        if (alt_page != no_page && pc - alt_page_base < 4096)
            BACK_TO_PAGE_BEFORE();
        else if (cache_pages && (known = known_page_at(h, pc)))
            TAKE_PAGE(known->page, known->base);
        else
            goto next_insn;
    }
    cb = code_block_at(m, pc);
    if (BLOCK_HOLDS(cb, pc) && BLOCK_FITS_QUANTUM(cb)) {
        op = cb->ops;
        goto *op->go;
    }
    goto next_insn;

    /* The operation `op` goes the general way: what came before it retired. */
op_leave : {
    uint32_t k = (uint32_t)op->index;
    pc = cb->pc + 2u * op->at;
    if (k) {
        done += k;
        if (BLOCKS) {
            last_pc = cb->pc + 2u * op[-1].at;
            last_raw = page[(last_pc - page_base) >> 1].raw;
        }
    }
    in = &page[(pc - page_base) >> 1];
    goto general;
}
#undef NEXT_OP
#undef TAKE_PAGE
#undef BACK_TO_PAGE_BEFORE
#undef BLOCK_FITS
#undef BLOCK_FITS_QUANTUM
#undef BLOCK_HOLDS
#undef BLOCKS_HERE
#undef CLOSE_RECORD_BLOCK
#undef CODE_BLOCK_RECORD
#undef CLOSE_RECORD_BLOCK_AT

out:
    h->pc = pc;
    h->minstret = instret_before + done;
    if (BLOCKS) {
        uint32_t n = (uint32_t)(done - blk_base);
        if (!n)
            blk.n = blk.hw = 0;
        else if (last_raw) /* else the block from before, with nothing added */
            blk = (struct retire_block){blk_pc, n, (uint32_t)((last_pc + retired_length(last_raw) - blk_pc) >> 1),
                                        last_raw, retired_length(last_raw), (uint8_t)blk_priv};
        h->blk = blk;
    }
    *retired = done;
    if (st == EXEC_OK ||
        ((st == EXEC_SERIALIZE || st == EXEC_WFI) && !h->translation_changed && !h->sfence_pending)) {
        if (page != no_page) {
            h->fetch_page = page;
            h->fetch_page_base = page_base;
        }
    } else {
        forget_fetch_pages(h);
    }
    return st;
}

#undef RUN_NAME
#undef RUN_XLEN
#undef RUN_EMIT
#undef RUN_BLOCKS
#undef RUN_COUNT
