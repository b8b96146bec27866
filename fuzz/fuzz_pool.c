/* libFuzzer target: decoding on several threads (rvt_decode_pool) gives the
 * consumers exactly what one decoder gives, in the same order: addresses,
 * the messages where the path was lost and the damage the reader met.
 * First byte: the codec (N-Trace or E-Trace), the least segment (1-8
 * items, so that segments end at nearly every sync), a block sink or runs;
 * second byte: items decoded in order before the first segment (0-15) and
 * the codec's options (return stack, call counter, implicit return, branch
 * prediction and jump target cache). The rest: an MSEO stream or te_inst
 * packets, decoded against the generated code of the N-Trace targets, once
 * in order by one decoder and once through a pool of two workers. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_code.h"
#include "fuzz_flow.h"
#include "rvtrace/etrace.h"
#include "rvtrace/ntrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the path was lost, and damage, go into the list among the
 * addresses as a marker and a hash of the text (no address is odd). */
enum { LOST_MARK = 1, DAMAGE_MARK = 3 };

static int mark(flow_list *l, uint64_t kind, const char *text) {
    uint64_t h = 1469598103934665603ull;
    for (const char *s = text; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return flow_add_pc(l, kind) || flow_add_pc(l, h | 1);
}

static int note_lost(void *user, const char *text) { return mark(user, LOST_MARK, text); }
static int note_damage(void *user, const char *text) { return mark(user, DAMAGE_MARK, text); }

typedef struct {
    bool etrace;
    rvt_etrace_params ep;
    rvt_etrace_options eo;
    rvt_ntrace_decoder_options no;
    rvt_nexus_config ncfg;
    bool blocks;
} setup;

static void *new_decoder(const setup *s, flow_list *l) {
    if (s->etrace) {
        rvt_etrace_decoder *d;
        if (rvt_etrace_decoder_new(&d, &s->ep, &s->eo, 64, fetch, flow_add_pc, l))
            return NULL;
        rvt_etrace_decoder_set_trap_sink(d, flow_ignore_trap);
        rvt_etrace_decoder_set_run_sink(d, flow_add_run);
        if (s->blocks) {
            rvt_etrace_decoder_set_block_sink(d, flow_add_block);
            rvt_etrace_decoder_set_walk_sink(d, flow_add_walk); /* (the workers log walks) */
        }
        return d;
    }
    rvt_ntrace_decoder *d;
    if (rvt_ntrace_decoder_new(&d, &s->no, 64, fetch, flow_add_pc, l))
        return NULL;
    rvt_ntrace_decoder_set_trap_sink(d, flow_ignore_trap);
    rvt_ntrace_decoder_set_run_sink(d, flow_add_run);
    if (s->blocks) {
        rvt_ntrace_decoder_set_block_sink(d, flow_add_block);
        rvt_ntrace_decoder_set_walk_sink(d, flow_add_walk);
    }
    return d;
}

static void free_decoder(const setup *s, void *d) {
    if (s->etrace)
        rvt_etrace_decoder_free(d);
    else
        rvt_ntrace_decoder_free(d);
}

/* The input's items in order: into the pool when there is one, else into
 * `dec` as `decode` does without threads (a loss is noted and the decoder
 * waits for a sync; damage is noted and the decoder forgets the path). */
static void feed(const setup *s, const uint8_t *data, size_t size, void *dec, flow_list *l, rvt_decode_pool *pool) {
    rvt_diag diag;
    rvt_te_raw_cursor cur = {.data = data, .size = size};
    rvt_nexus_reader rd;
    rvt_nexus_reader_init(&rd, &s->ncfg, data, size);
    uint64_t packets = 0;
    for (;;) {
        rvt_etrace_item own_it = {0}, *it = &own_it;
        rvt_nexus_msg own_m, *m = &own_m;
        void *room = pool ? rvt_decode_pool_room(pool) : NULL; /* (read where the pool keeps it) */
        if (pool && !room)
            return;
        if (room && s->etrace)
            it = room;
        else if (room)
            m = room;
        size_t off = 0;
        int rc = s->etrace ? rvt_te_raw_next(&cur, &s->ep, &s->eo, &it->pkt, &off, &diag)
                           : rvt_nexus_next(&rd, m, &diag);
        if (rc == 0)
            break;
        if (rc < 0) {
            if (s->etrace)
                rvt_te_raw_resync(&cur);
            if (pool) {
                if (rvt_decode_pool_damage(pool, diag.msg))
                    return;
                continue;
            }
            if (note_damage(l, diag.msg))
                return;
            if (s->etrace)
                rvt_etrace_decoder_resync(dec);
            else
                rvt_ntrace_decoder_resync(dec);
            continue;
        }
        it->offset = off;
        it->index = ++packets; /* (set on every item: one read into the pool's room keeps what was there) */
        const void *item = s->etrace ? (const void *)it : (const void *)m;
        if (pool) {
            if (rvt_decode_pool_item(pool, item))
                return;
            continue;
        }
        rc = s->etrace ? rvt_etrace_decode_item(dec, it, &diag) : rvt_ntrace_decode(dec, m, &diag);
        if (rc == RVT_E_IO || (rc && note_lost(l, diag.msg)))
            return;
    }
    if (pool)
        rvt_decode_pool_finish(pool);
}

/* (fewer than the other targets allow: each input also starts two threads) */
#define POOL_PC_LIMIT (1u << 16)
static uint64_t in_order[POOL_PC_LIMIT], by_pool[POOL_PC_LIMIT];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!fuzz_words[0])
        make_code();
    if (size < 2)
        return 0;
    setup s = {.etrace = data[0] & 1, .blocks = (data[0] & 0x10) != 0};
    rvt_etrace_params_default(&s.ep);
    rvt_etrace_options_default(&s.eo);
    s.eo.implicit_return = data[1] & 0x10;
    if (data[1] & 0x20) { /* branch prediction and jump target cache (format 0) */
        s.ep.bpred_size = 4;
        s.ep.cache_size = 3;
        s.ep.f0s_width = 1;
        s.eo.branch_prediction = s.eo.jump_target_cache = true;
    }
    s.no = (rvt_ntrace_decoder_options){.call_stack = (data[1] & 0x10) ? 4 : 0,
                                        .call_counter = (data[1] & 0x20) != 0,
                                        .src_id = -1,
                                        .extend_addr_msb = (data[1] & 0x40) != 0};
    flow_list lists[2] = {{in_order, 0, POOL_PC_LIMIT, false, fetch}, {by_pool, 0, POOL_PC_LIMIT, false, fetch}};
    void *dec = new_decoder(&s, &lists[0]);
    if (!dec)
        return 0;
    feed(&s, data + 2, size - 2, dec, &lists[0], NULL);
    free_decoder(&s, dec);

    if (!(dec = new_decoder(&s, &lists[1])))
        return 0;
    rvt_decode_pool_config cfg = {.threads = 2,
                                  .codec = s.etrace ? &rvt_etrace_pool_codec : &rvt_ntrace_pool_codec,
                                  .decoder = dec,
                                  .sinks = {flow_add_pc, flow_add_run, s.blocks ? flow_add_block : NULL,
                                            flow_ignore_trap, note_lost, s.blocks ? flow_add_walk : NULL},
                                  .user = &lists[1],
                                  .damaged = note_damage,
                                  .min_segment = 1u + ((data[0] >> 1) & 7),
                                  .warm_up = data[1] & 15};
    rvt_decode_pool *pool;
    if (rvt_decode_pool_new(&pool, &cfg) == 0) {
        feed(&s, data + 2, size - 2, dec, &lists[1], pool);
        rvt_decode_pool_free(pool);
        flow_compare(&lists[0], &lists[1]);
    }
    free_decoder(&s, dec);
    return 0;
}
