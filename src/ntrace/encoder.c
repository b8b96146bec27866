/* N-Trace encoder: retired instructions in, Nexus messages in MSEO bytes out.
 *
 * The message decisions are those of the N-Trace reference encoder (NexRv),
 * so that our streams equal its byte for byte: a message that needs the next
 * address (indirect transfer, taken branch in BTM, full history register) is
 * decided when an instruction retires and sent when the next one retires;
 * history lives in a 32-bit register whose stop bit reaching bit 31 makes a
 * ResourceFull; the stream opens with ProgTraceSync and closes with
 * ProgTraceCorrelation. Traps, which NexRv does not model, become
 * IndirectBranch(Hist) messages with B-TYPE 2 (exception) or 3 (interrupt)
 * whose address is the handler's. */
#include <stdlib.h>
#include <string.h>

#include "ntrace_internal.h"

/* The history register's stop bit may reach bit 31 before it is sent. */
#define HIST_FULL_BIT 31
/* Pending-message marker (not a TCODE) for an I-CNT overflow. */
#define PENDING_ICNT_OVERFLOW 0x100u
#define MAX_MSG 48
#define KEPT_MESSAGES 64

typedef struct nx_builder {
    uint8_t b[2 * MAX_MSG]; /* room for a held-back message and the new one */
    size_t n;               /* bytes started */
    unsigned used;          /* MDO bits used in the last byte (6 = full) */
    size_t start;           /* first byte of the message being built */
} nx_builder;

#define DECODED_SLOT_BITS 12
#define DECODED_SLOTS (1u << DECODED_SLOT_BITS)

struct rvt_ntrace_encoder {
    rvt_ntrace_options o;
    unsigned xlen;
    /* The last instructions of blocks, decoded and classified, by their
     * bits: most programs end their blocks with a few hundred different
     * ones, a large state machine (embench-nsichneu) with thousands: with
     * 1024 slots, decoding again took 9 % of the encoder's thread there,
     * with 4096 a third of that. */
    struct decoded {
        bool filled;
        unsigned flags;
        rvt_insn in;
    } decoded[DECODED_SLOTS];
    rvt_nexus_byte_sink sink;
    void *user;
    int status;
    rvt_code_fetch fetch; /* rvt_ntrace_encoder_set_code */
    void *fetch_user;

    bool started;
    unsigned start_sync;    /* SYNC code of the next start: 1 (reset), 3 (after debug mode),
                               5 (trace enabled again) */
    bool disabled;          /* rvt_ntrace_encoder_enable(false): records are not traced */
    unsigned evcode;        /* of the next ProgTraceCorrelation: 0 (debug mode), 4 (disabled) */
    unsigned marker;        /* rvt_ntrace_encoder_mark: its SYNC code + 1, 0 = none */
    unsigned pending;       /* TCODE to send when the next instruction retires, 0 = none */
    unsigned pending_btype;
    uint64_t pending_time;  /* when the pending message's event happened */
    uint64_t icnt, hist, last_addr;
    uint64_t since_sync;    /* messages since the last synchronising one */
    uint64_t last_time;     /* last timestamp sent */
    unsigned priv;          /* privilege and context last reported by Ownership */
    uint64_t context;
    bool owned;
    bool stopped_disabled;  /* a halt while disabled was reported */
    bool correlated;        /* a ProgTraceCorrelation went out (since this was cleared) */
    bool ownership_due;     /* a trap or trap return: Ownership before the next instruction */
    uint64_t last_iaddr;    /* address of the last instruction or trap record (for the closing message) */

    /* Repetition detection. */
    uint64_t bcnt;          /* repeats counted and not yet sent */
    uint64_t prev_icnt, prev_hist;
    unsigned prev_btype;
    unsigned rep_bits;      /* 0, or the length of the repeating history pattern (31, 30, 28) */
    unsigned rep_shift;     /* 31 - rep_bits */
    uint64_t rep_prev;      /* the pattern with its stop bit */

    nx_call_stack stack;
    uint64_t return_mask;   /* the return-address bits the stack keeps (all, or return_bits) */
    uint64_t check_ret;     /* return address to compare with the next instruction; odd = none */

    /* Indirect-branch messages that went out on their own (see keepable),
     * by a hash of what they carry, with their bytes: code that goes round
     * a loop sends the same few each time (embench-crc32: a return to each
     * of four callers), put together once. */
    struct kept_message {
        struct message_key {
            unsigned tcode_btype;       /* 0: none kept here */
            uint64_t icnt, xaddr, hist; /* hist 0 in an IndirectBranch */
        } key;
        size_t len;
        uint8_t b[MAX_MSG];
    } kept[KEPT_MESSAGES];

    /* Sequential jumps: the previous instruction, when it was a single
     * retired one and no message went out since. */
    bool prev_ok;
    rvt_insn prev_insn;
    uint64_t prev_addr;

    rvt_ntrace_stats stats;
};

static void put_fixed(nx_builder *m, unsigned width, uint64_t v) {
    while (width) {
        if (m->n == m->start || m->used == 6) {
            m->b[m->n++] = 0;
            m->used = 0;
        }
        unsigned k = 6 - m->used < width ? 6 - m->used : width;
        m->b[m->n - 1] |= (uint8_t)((v & ((1u << k) - 1)) << (2 + m->used));
        m->used += k;
        v >>= k;
        width -= k;
    }
}

/* A variable field fills the rest of its first byte and as many bytes as its
 * significant bits need; it ends on a byte with MSEO = 01. */
static void put_var(nx_builder *m, uint64_t v) {
    if (m->n == m->start || m->used == 6) {
        m->b[m->n++] = 0;
        m->used = 0;
    }
    unsigned k = 6 - m->used;
    m->b[m->n - 1] |= (uint8_t)((v & ((1u << k) - 1)) << (2 + m->used));
    v = k < 64 ? v >> k : 0;
    m->used = 6;
    while (v) {
        m->b[m->n++] = (uint8_t)((v & 0x3f) << 2);
        v >>= 6;
    }
    m->b[m->n - 1] |= 1;
}

/* An F-ADDR or U-ADDR field (address bits 63:1 of an XLEN-bit address).
 * With the MSB extension, MDOs stop as soon as the bits above them all
 * equal the top bit sent; a value whose top sent bit is 1 but whose higher
 * bits are 0 gets one more (zero) MDO. */
static void put_addr(rvt_ntrace_encoder *e, nx_builder *m, uint64_t v) {
    if (!e->o.extend_addr_msb) {
        put_var(m, v);
        return;
    }
    unsigned w = e->xlen - 1; /* significant bits of the field */
    v &= (UINT64_C(1) << w) - 1;
    if (m->n == m->start || m->used == 6) {
        m->b[m->n++] = 0;
        m->used = 0;
    }
    unsigned p = 0; /* bits sent */
    for (;;) {
        unsigned k = 6 - m->used;
        m->b[m->n - 1] |= (uint8_t)(((v >> p) & ((1u << k) - 1)) << (2 + m->used));
        m->used = 6;
        p += k;
        if (p >= w)
            break;
        uint64_t rest = v >> p, ones = (UINT64_C(1) << (w - p)) - 1;
        bool top = (v >> (p - 1)) & 1;
        if ((!top && rest == 0) || (top && rest == ones))
            break;
        m->b[m->n++] = 0;
        m->used = 0;
    }
    m->b[m->n - 1] |= 1;
}

static void begin(rvt_ntrace_encoder *e, nx_builder *m, unsigned tcode) {
    m->start = m->n;
    m->used = 0;
    put_fixed(m, 6, tcode);
    if (e->o.src_bits)
        put_fixed(m, e->o.src_bits, e->o.src_id);
}

/* `sync`: the message carries a full address, so its time stamp is absolute. */
static void end_stamped(rvt_ntrace_encoder *e, nx_builder *m, bool sync, uint64_t time) {
    if (e->o.timestamps) {
        put_var(m, sync ? time : time - e->last_time);
        e->last_time = time;
    }
    m->b[m->n - 1] |= 3;
    e->stats.messages++;
    e->since_sync++;
}

static void end(rvt_ntrace_encoder *e, nx_builder *m) { end_stamped(e, m, false, e->pending_time); }

static void send_bytes(rvt_ntrace_encoder *e, const uint8_t *b, size_t n) {
    if (!n || e->status)
        return;
    e->stats.bytes += n;
    if (e->sink(e->user, b, n) != 0)
        e->status = RVT_E_IO;
}

static void flush_bytes(rvt_ntrace_encoder *e, nx_builder *m) { send_bytes(e, m->b, m->n); }

int rvt_ntrace_encoder_new(rvt_ntrace_encoder **out, const rvt_ntrace_options *o, unsigned xlen,
                           rvt_nexus_byte_sink sink, void *user) {
    if (!out || !o || !sink || o->call_stack > RVT_NTRACE_MAX_CALL_STACK || o->src_bits > 12 || o->icnt_bits == 1 ||
        o->icnt_bits > 32 || (o->return_bits && (o->return_bits < 2 || o->return_bits > 63)))
        return RVT_E_ARG;
    rvt_ntrace_encoder *e = calloc(1, sizeof *e);
    if (!e)
        return RVT_E_NOMEM;
    e->o = *o;
    e->xlen = xlen ? xlen : 64;
    e->sink = sink;
    e->user = user;
    e->hist = 1;
    e->check_ret = 1;
    e->return_mask = o->return_bits ? (UINT64_C(1) << o->return_bits) - 1 : ~UINT64_C(0);
    nx_stack_init(&e->stack, o->call_stack, o->call_counter);
    *out = e;
    return 0;
}

/* Would two consecutive full history registers repeat with a period of 30 or
 * 28 bits instead of 31? Returns that period or 0. Bits are compared from the
 * oldest (just below the stop bit) on, as the history was recorded. */
static unsigned shorter_period(uint64_t prev, uint64_t hist) {
    if ((prev & 7) == ((prev >> 28) & 7) && (prev & 0x0FFFFFF8u) == ((hist >> 3) & 0x0FFFFFF8u))
        return 28;
    if ((prev & 1) == ((prev >> 30) & 1) && (prev & 0x3FFFFFFEu) == ((hist >> 1) & 0x3FFFFFFEu))
        return 30;
    return 0;
}

static uint64_t low_bits(uint64_t v, unsigned n) { return n >= 64 ? v : v & ((UINT64_C(1) << n) - 1); }

static bool sync_due(const rvt_ntrace_encoder *e) {
    return e->o.sync_max && e->since_sync >= (UINT64_C(1) << (e->o.sync_max + 4));
}

/* Decides whether the pending message repeats the previous one (then it is
 * only counted) and sends the held-back repeat when it does not. */
static void send_repeat_branch(rvt_ntrace_encoder *e, nx_builder *m) {
    begin(e, m, RVT_NX_REPEAT_BRANCH);
    put_var(m, e->bcnt);
    end(e, m);
    e->bcnt = 0;
}

/* The held-back history pattern: once (RCODE 1) or with its count (RCODE 2). */
static void send_history_pattern(rvt_ntrace_encoder *e, nx_builder *m) {
    begin(e, m, RVT_NX_RESOURCE_FULL);
    put_fixed(m, 4, e->bcnt > 1 ? 2 : 1);
    put_var(m, e->rep_prev);
    if (e->bcnt > 1)
        put_var(m, e->bcnt);
    end(e, m);
}

/* With both kinds of repetition on (NexRv never runs so), one count serves
 * both; a RepeatBranch count is sent before a history pattern starts, and
 * messages are not counted as repeats while a pattern is. */
static void handle_repeats(rvt_ntrace_encoder *e, nx_builder *m, uint64_t addr) {
    bool repeat_now = false;
    if ((e->o.repeat & 2) && e->pending == RVT_NX_RESOURCE_FULL) {
        if (e->rep_bits == 0) {
            if (e->bcnt > 0)
                send_repeat_branch(e, m);
            e->rep_bits = 31;
            e->rep_shift = 0;
            e->rep_prev = e->hist;
            e->bcnt = 0;
            e->hist = 1;
            repeat_now = true;
        } else if ((e->hist >> e->rep_shift) == e->rep_prev) {
            e->hist = (UINT64_C(1) << e->rep_shift) | low_bits(e->hist, e->rep_shift);
            repeat_now = true;
        } else if (e->bcnt == 1) {
            unsigned period = shorter_period(e->rep_prev, e->hist);
            if (period) {
                e->rep_bits = period;
                e->rep_shift = 31 - period;
                e->rep_prev >>= e->rep_shift;
                e->hist = (UINT64_C(1) << (2 * e->rep_shift)) | low_bits(e->hist, 2 * e->rep_shift);
                repeat_now = true;
            }
        }
    } else if ((e->o.repeat & 1) && e->rep_bits == 0 && !sync_due(e) &&
               (e->pending == RVT_NX_INDIRECT_BRANCH || e->pending == RVT_NX_INDIRECT_BRANCH_HIST) &&
               e->prev_hist == e->hist &&
               e->last_addr == addr && e->prev_icnt == e->icnt && e->prev_btype == e->pending_btype) {
        e->icnt = 0;
        e->hist = 1;
        repeat_now = true;
    }
    if (repeat_now) {
        e->bcnt++;
        e->pending = 0;
        return;
    }
    if (e->bcnt > 0 && e->rep_bits != 0) {
        send_history_pattern(e, m);
        if (e->pending == RVT_NX_RESOURCE_FULL) {
            /* This register starts the next comparison. */
            e->rep_bits = 31;
            e->rep_shift = 0;
            e->rep_prev = e->hist;
            e->bcnt = 1;
            e->pending = 0;
            e->hist = 1;
        } else {
            e->bcnt = 0;
            e->rep_bits = 0;
        }
    } else if (e->bcnt > 0) {
        send_repeat_branch(e, m);
    }
}

/* The synchronising form of a branch message, when a periodic sync is due. */
static unsigned sync_form(unsigned tcode) {
    switch (tcode) {
    case RVT_NX_DIRECT_BRANCH: return RVT_NX_DIRECT_BRANCH_SYNC;
    case RVT_NX_INDIRECT_BRANCH: return RVT_NX_INDIRECT_BRANCH_SYNC;
    case RVT_NX_INDIRECT_BRANCH_HIST: return RVT_NX_INDIRECT_BRANCH_HIST_SYNC;
    default: return 0;
    }
}

/* State a synchronising message restarts (besides I-CNT and HIST, which it
 * carries): the return-address stack and the address reference. */
static void restart_state(rvt_ntrace_encoder *e, uint64_t addr) {
    nx_stack_init(&e->stack, e->o.call_stack, e->o.call_counter);
    e->check_ret = 1;
    e->last_addr = addr;
    e->since_sync = 0;
    e->prev_hist = 0; /* nothing repeats across a sync */
    e->owned = false;
}

/* Whether the pending message is an indirect branch's that goes out on its
 * own: nothing held back for repeats, no sync due, no time stamp. */
static bool keepable(const rvt_ntrace_encoder *e) {
    return (e->pending == RVT_NX_INDIRECT_BRANCH || e->pending == RVT_NX_INDIRECT_BRANCH_HIST) && !e->o.repeat &&
           !e->bcnt && !e->rep_bits && !e->o.timestamps && !sync_due(e);
}

/* What a keepable message carries, which makes its bytes. */
static struct message_key message_key(const rvt_ntrace_encoder *e, uint64_t addr) {
    bool hist = e->pending == RVT_NX_INDIRECT_BRANCH_HIST && e->hist != 1;
    return (struct message_key){
        .tcode_btype = (hist ? RVT_NX_INDIRECT_BRANCH_HIST : RVT_NX_INDIRECT_BRANCH) | e->pending_btype << 8,
        .icnt = e->icnt,
        .xaddr = (e->last_addr ^ addr) >> 1,
        .hist = hist ? e->hist : 0,
    };
}

/* The slot a message that carries `key` is kept in. */
static struct kept_message *kept_slot(rvt_ntrace_encoder *e, const struct message_key *key) {
    const uint64_t mix = 0x9e3779b97f4a7c15ull;
    uint64_t h = (key->xaddr ^ (key->icnt + key->tcode_btype) * mix ^ key->hist) * mix;
    return &e->kept[h >> 58];
}
_Static_assert(KEPT_MESSAGES == 64, "kept_slot takes six bits of the hash");

static bool kept_holds(const struct kept_message *km, const struct message_key *key) {
    return km->key.tcode_btype == key->tcode_btype && km->key.icnt == key->icnt && km->key.xaddr == key->xaddr &&
           km->key.hist == key->hist;
}

/* An IndirectBranch(Hist) message to `addr` went out: what a repeat of it
 * is compared with, and the count and address it carried. */
static void indirect_branch_sent(rvt_ntrace_encoder *e, uint64_t addr) {
    e->prev_hist = e->hist;
    e->prev_icnt = e->icnt;
    e->prev_btype = e->pending_btype;
    e->icnt = 0;
    e->last_addr = addr;
}

/* A kept message goes out again, with what send_pending does for it
 * (end_stamped without a time stamp, and keepable leaves no repeat). */
static void send_kept(rvt_ntrace_encoder *e, const struct kept_message *km, uint64_t addr) {
    indirect_branch_sent(e, addr);
    e->stats.messages++;
    e->since_sync++;
    send_bytes(e, km->b, km->len);
    e->pending = 0;
    e->hist = 1;
}

static void send_pending(rvt_ntrace_encoder *e, uint64_t addr) {
    const bool keep = keepable(e);
    struct message_key key;
    if (keep) {
        key = message_key(e, addr);
        const struct kept_message *km = kept_slot(e, &key);
        if (kept_holds(km, &key)) {
            send_kept(e, km, addr);
            return;
        }
    }
    nx_builder m;
    m.n = m.start = 0;
    m.used = 0;
    if (!e->o.btm || e->o.repeat)
        handle_repeats(e, &m, addr); /* (in BTM only RepeatBranch: no history to repeat) */
    if (e->pending == RVT_NX_INDIRECT_BRANCH_HIST && e->hist == 1)
        e->pending = RVT_NX_INDIRECT_BRANCH; /* nothing to add: the shorter message */
    if (e->bcnt == 0)
        e->prev_hist = 0; /* only a message that may repeat sets it */
    if (sync_due(e) && sync_form(e->pending))
        e->pending = sync_form(e->pending);
    unsigned sync_code = 2; /* periodic */
    if (e->pending == PENDING_ICNT_OVERFLOW) {
        /* With history pending, a sync message (SYNC 4, state kept) carries
         * count, history and the next address; else ResourceFull RCODE 0. */
        e->pending = !e->o.btm && e->hist > 1 ? RVT_NX_INDIRECT_BRANCH_HIST_SYNC : RVT_NX_RESOURCE_FULL;
        sync_code = 4;
        e->pending_btype = 0;
    }
    if (e->pending)
        begin(e, &m, e->pending);
    bool sync = false;
    switch (e->pending) {
    case RVT_NX_PROG_TRACE_SYNC:
        put_fixed(&m, 4, e->start_sync ? e->start_sync : 1); /* exit from reset, debug mode or a trace gap */
        put_var(&m, e->icnt);
        put_addr(e, &m, addr >> 1);
        e->icnt = 0;
        e->last_addr = addr;
        sync = true;
        break;
    case RVT_NX_INDIRECT_BRANCH:
    case RVT_NX_INDIRECT_BRANCH_HIST:
        put_fixed(&m, 2, e->pending_btype);
        put_var(&m, e->icnt);
        put_addr(e, &m, (e->last_addr ^ addr) >> 1);
        if (e->pending == RVT_NX_INDIRECT_BRANCH_HIST)
            put_var(&m, e->hist);
        indirect_branch_sent(e, addr);
        break;
    case RVT_NX_DIRECT_BRANCH:
        put_var(&m, e->icnt);
        e->icnt = 0;
        break;
    case RVT_NX_DIRECT_BRANCH_SYNC:
    case RVT_NX_INDIRECT_BRANCH_SYNC:
    case RVT_NX_INDIRECT_BRANCH_HIST_SYNC:
        put_fixed(&m, 4, sync_code);
        if (e->pending != RVT_NX_DIRECT_BRANCH_SYNC)
            put_fixed(&m, 2, e->pending_btype);
        put_var(&m, e->icnt);
        put_addr(e, &m, addr >> 1);
        if (e->pending == RVT_NX_INDIRECT_BRANCH_HIST_SYNC)
            put_var(&m, e->hist);
        e->icnt = 0;
        sync = true;
        break;
    case RVT_NX_RESOURCE_FULL:
        if (sync_code == 4) {
            put_fixed(&m, 4, 0); /* RCODE 0: I-CNT overflow, the count restarts */
            put_var(&m, e->icnt);
            e->icnt = 0;
            break;
        }
        e->prev_hist = e->hist;
        e->prev_icnt = e->icnt;
        put_fixed(&m, 4, 1); /* RCODE 1: history full; I-CNT goes on counting */
        put_var(&m, e->hist);
        break;
    case RVT_NX_PROG_TRACE_CORRELATION:
    {
        /* In HTM the specification sends HIST even when it is empty (0x1);
         * NexRv only when it holds a branch */
        bool with_hist = e->o.nexrv ? e->hist > 1 : !e->o.btm;
        put_fixed(&m, 4, e->evcode); /* 0: entry into debug mode (trace ends); 4: trace disabled */
        e->correlated = true;
        put_fixed(&m, 2, with_hist); /* CDF 1: a HIST field follows */
        put_var(&m, e->icnt);
        if (with_hist)
            put_var(&m, e->hist);
        e->icnt = 0;
        break;
    }
    default:
        break;
    }
    if (e->pending)
        end_stamped(e, &m, sync, e->pending_time);
    if (sync && sync_code == 4) { /* SYNC 4 keeps the encoder's state */
        e->last_addr = addr;
        e->since_sync = 0;
        e->prev_hist = 0;
        e->owned = false; /* (but every message with SYNC is followed by Ownership) */
    } else if (sync) {
        restart_state(e, addr);
    }
    if (keep && m.n <= MAX_MSG) { /* (the message alone) */
        struct kept_message *km = kept_slot(e, &key);
        km->key = key;
        km->len = m.n;
        memcpy(km->b, m.b, m.n);
    }
    flush_bytes(e, &m);
    e->pending = 0;
    if (e->rep_bits == 0)
        e->hist = 1;
}

/* A sync that no branch message carries: what is held back goes out
 * (repeats, then the history as ResourceFull) and ProgTraceSync gives the
 * count so far and the next address. `code`: 2 for a periodic sync that
 * fell due, 0 (trigger) or 6 (watchpoint) for a marker, which keeps the
 * return-address stack. */
static void send_sync_code(rvt_ntrace_encoder *e, uint64_t addr, unsigned code, uint64_t time) {
    nx_builder m;
    m.n = m.start = 0;
    m.used = 0;
    if (e->bcnt > 0 && e->rep_bits != 0)
        send_history_pattern(e, &m);
    else if (e->bcnt > 0)
        send_repeat_branch(e, &m);
    e->bcnt = 0;
    e->rep_bits = 0;
    if (e->hist > 1) {
        begin(e, &m, RVT_NX_RESOURCE_FULL);
        put_fixed(&m, 4, 1);
        put_var(&m, e->hist);
        end(e, &m);
        e->hist = 1;
    }
    begin(e, &m, RVT_NX_PROG_TRACE_SYNC);
    put_fixed(&m, 4, code);
    put_var(&m, e->icnt);
    put_addr(e, &m, addr >> 1);
    end_stamped(e, &m, true, time);
    e->icnt = 0;
    if (code == 0 || code == 6) { /* a marker: the state goes on */
        e->last_addr = addr;
        e->since_sync = 0;
        e->prev_hist = 0;
        e->owned = false;
    } else {
        restart_state(e, addr);
    }
    flush_bytes(e, &m);
}

static void send_sync(rvt_ntrace_encoder *e, uint64_t addr) { send_sync_code(e, addr, 2, e->pending_time); }

/* Ownership (trTeContext): PROCESS = {CONTEXT, V = 0, PRV, FORMAT}, FORMAT 2
 * (privilege and scontext) after a sync and when the context changed, 0
 * (privilege only) at a privilege change, trap entry or trap return. There
 * is no hcontext (FORMAT 3): the hart has no H extension. */
static void send_ownership(rvt_ntrace_encoder *e, unsigned priv, uint64_t context, uint64_t time) {
    nx_builder m;
    m.n = m.start = 0;
    m.used = 0;
    begin(e, &m, RVT_NX_OWNERSHIP);
    bool with_context = !e->owned || context != e->context;
    put_var(&m, with_context ? context << 5 | (uint64_t)(priv & 3) << 2 | 2 : (uint64_t)(priv & 3) << 2);
    end_stamped(e, &m, false, time);
    flush_bytes(e, &m);
    e->priv = priv;
    e->context = context;
    e->owned = true;
    e->ownership_due = false;
}

/* The part of a record's handling that happens before its own effect: the
 * implicit-return check and the message decided by the previous record. */
static void before(rvt_ntrace_encoder *e, uint64_t addr, bool closing, const rvt_retire *rec) {
    if (!e->started) {
        e->started = true;
        e->pending = RVT_NX_PROG_TRACE_SYNC;
        e->pending_time = rec ? rec->time : 0;
    }
    if (!(e->check_ret & 1)) {
        if (e->o.call_counter || e->check_ret == (addr & e->return_mask))
            e->pending = 0; /* the return went where the stack said: nothing to send */
        e->check_ret = 1;
    }
    if (closing && (e->icnt > 0 || e->rep_bits != 0)) {
        if (!e->pending)
            e->pending = RVT_NX_PROG_TRACE_CORRELATION;
        if (e->bcnt > 0)
            e->prev_hist = 0; /* the held-back repeat must go out now */
    }
    if (e->pending) {
        /* A due sync rides on a branch message; when the message that finds
         * it due is another kind (a full history register, say), it goes
         * out on its own. */
        bool due = sync_due(e);
        send_pending(e, addr);
        if (!closing && due && sync_due(e))
            send_sync(e, addr);
    }
    if (e->marker && !closing) {
        send_sync_code(e, addr, e->marker - 1, rec ? rec->time : e->pending_time);
        e->marker = 0;
    }
    if (e->o.ownership && rec && rec->ninsns && !closing &&
        (!e->owned || e->ownership_due || rec->priv != e->priv || (rec->context != e->context)))
        send_ownership(e, rec->priv, rec->context, rec->time);
}

/* trTeInstEnAllJumps: a direct jump is reported as a taken branch. */
static inline unsigned as_reported(const rvt_ntrace_encoder *e, unsigned flags) {
    if (e->o.all_jumps && nx_direct_jump(flags))
        flags |= RVT_NXI_BRANCH | RVT_NXI_TAKEN;
    return flags;
}

/* The messages that end the trace (at its end, or a halt or reset): a full
 * history register may only have joined a repeat count in the first, then
 * the closing message is still due. */
static void close_trace(rvt_ntrace_encoder *e) {
    before(e, e->last_iaddr, true, NULL);
    if (!e->status && (e->icnt > 0 || e->rep_bits != 0))
        before(e, e->last_iaddr, true, NULL);
}

/* A branch retired: its history bit (HTM), or the message a taken one
 * decides (BTM). */
static inline __attribute__((always_inline)) void note_branch(rvt_ntrace_encoder *e, bool taken) {
    if (!e->o.btm) {
        e->hist = (e->hist << 1) | taken;
        if (e->hist & (UINT64_C(1) << HIST_FULL_BIT))
            e->pending = RVT_NX_RESOURCE_FULL;
    } else if (taken) {
        e->pending = RVT_NX_DIRECT_BRANCH;
    }
}

/* With a bounded I-CNT, its overflow decides a message when no other did. */
static inline __attribute__((always_inline)) void note_icnt(rvt_ntrace_encoder *e) {
    if (e->o.icnt_bits && !e->pending && (e->icnt >> (e->o.icnt_bits - 1)) != 0)
        e->pending = PENDING_ICNT_OVERFLOW;
}

static void after(rvt_ntrace_encoder *e, uint64_t last_insn_addr, unsigned flags, unsigned units) {
    if (flags & (RVT_NXI_EXCEPTION | RVT_NXI_INTERRUPT)) {
        e->pending = e->o.btm ? RVT_NX_INDIRECT_BRANCH : RVT_NX_INDIRECT_BRANCH_HIST;
        e->pending_btype = (flags & RVT_NXI_INTERRUPT) ? 3 : 2;
        return;
    }
    e->icnt += units;
    e->stats.insns++;
    if (flags & RVT_NXI_BRANCH) {
        note_branch(e, flags & RVT_NXI_TAKEN);
    } else if (flags & RVT_NXI_INDIRECT) {
        if ((e->o.call_stack || e->o.call_counter) && (flags & RVT_NXI_RETURN)) {
            uint64_t ret = 1;
            switch (nx_stack_pop(&e->stack, &ret)) {
            case NX_POP_EMPTY: ret = 1; break;
            case NX_POP_ANY: ret = 0; break;
            case NX_POP_ADDR: break;
            }
            e->check_ret = ret;
        }
        e->pending = e->o.btm ? RVT_NX_INDIRECT_BRANCH : RVT_NX_INDIRECT_BRANCH_HIST;
        e->pending_btype = 0;
    }
    if ((flags & RVT_NXI_CALL) && (e->o.call_stack || e->o.call_counter))
        nx_stack_push(&e->stack, (last_insn_addr + ((flags & RVT_NXI_SIZE4) ? 4 : 2)) & e->return_mask);
    note_icnt(e);
}

/* ProgTraceCorrelation with nothing counted: trace starts disabled
 * (EVCODE 4), the hart halts while it is (EVCODE 0). */
static void send_empty_correlation(rvt_ntrace_encoder *e, unsigned evcode, uint64_t time) {
    nx_builder m;
    m.n = m.start = 0;
    m.used = 0;
    bool with_hist = !e->o.nexrv && !e->o.btm;
    begin(e, &m, RVT_NX_PROG_TRACE_CORRELATION);
    put_fixed(&m, 4, evcode);
    put_fixed(&m, 2, with_hist);
    put_var(&m, 0);
    if (with_hist)
        put_var(&m, 1);
    end_stamped(e, &m, false, time);
    flush_bytes(e, &m);
}

int rvt_ntrace_encoder_enable(rvt_ntrace_encoder *e, bool on) {
    if (e->status || on == !e->disabled)
        return e->status;
    if (on) {
        e->disabled = false;
        e->stopped_disabled = false;
        e->start_sync = 5;
        return e->status;
    }
    if (e->started) {
        /* as at a halt: the correlation's count covers a branch whose
         * message waited for the next instruction */
        if (e->pending != PENDING_ICNT_OVERFLOW && e->pending != RVT_NX_RESOURCE_FULL)
            e->pending = 0;
        e->check_ret = 1;
        e->evcode = 4;
        e->correlated = false;
        close_trace(e);
        e->evcode = 0;
        if (!e->correlated) /* (nothing counted since the last message: the event still goes out) */
            send_empty_correlation(e, 4, e->pending_time);
    } else {
        send_empty_correlation(e, 4, e->pending_time); /* trace starts disabled */
    }
    e->started = false;
    e->disabled = true;
    e->marker = 0;
    return e->status;
}

int rvt_ntrace_encoder_mark(rvt_ntrace_encoder *e, unsigned sync) {
    if (sync != 0 && sync != 6)
        return RVT_E_ARG;
    if (e->started && !e->disabled)
        e->marker = sync + 1;
    return e->status;
}

int rvt_ntrace_encoder_step(rvt_ntrace_encoder *e, const rvt_nexus_step *s) {
    if (e->status || (!e->started && e->disabled))
        return e->status;
    before(e, s->addr, false, NULL);
    after(e, s->addr, as_reported(e, s->flags), (s->flags & RVT_NXI_SIZE4) ? 2 : 1);
    e->last_iaddr = s->addr;
    return e->status;
}

/* The last instruction of a record, decoded and classified (RVT_NXI_*),
 * from the cache by its bits. */
static inline const struct decoded *classified(rvt_ntrace_encoder *e, uint32_t insn) {
    /* (a multiplicative hash: branches differ mostly in their top bits) */
    struct decoded *d = &e->decoded[(uint32_t)(insn * 0x9e3779b1u) >> (32 - DECODED_SLOT_BITS)];
    if (!d->filled || d->in.raw != insn) {
        rvt_decode(insn, e->xlen, &d->in);
        d->flags = rvt_nexus_classify_by(&d->in, e->o.nexrv);
        d->filled = true;
    }
    return d;
}

void rvt_ntrace_encoder_set_code(rvt_ntrace_encoder *e, rvt_code_fetch fetch, void *user) {
    e->fetch = fetch;
    e->fetch_user = user;
}

/* Whether a bounded I-CNT may overflow inside block r, before its last
 * instruction (where one instruction at a time would send the overflow
 * message). */
static inline bool overflows_inside(const rvt_ntrace_encoder *e, const rvt_retire *r) {
    return e->o.icnt_bits && r->ninsns > 1 &&
           ((e->icnt + r->iretire - (r->ilastsize ? 2u : 1u)) >> (e->o.icnt_bits - 1)) != 0;
}

/* What rvt_ntrace_encoder_push does with records while no message waits
 * and none is decided: blocks that end in a branch or a direct jump (the
 * instruction count, history, call stack; after() for them). It stops after
 * the record that decides a message (a full history, a taken branch in BTM,
 * an I-CNT overflow) and before one it does not take (a trap, an indirect
 * jump, a sideband record); with ownership messages or sequential jumps it
 * takes none. Returns where it stopped. */
static size_t push_quiet_records(rvt_ntrace_encoder *e, const rvt_retire *recs, size_t i, size_t n) {
    size_t from = i;
    for (; i < n && !e->pending; i++) {
        const rvt_retire *r = &recs[i];
        if (r->sideband || r->ninsns == 0 || overflows_inside(e, r))
            break;
        unsigned flags = r->ilastsize ? RVT_NXI_SIZE4 : 0;
        if (r->itype == RVT_ITYPE_BRANCH_TAKEN || r->itype == RVT_ITYPE_BRANCH_NOT_TAKEN) {
            /* (what rvt_nexus_classify gives a conditional branch, without
             * the look-up of its bits: in a large state machine, thousands
             * of branches miss the cache's lines) */
            flags |= RVT_NXI_BRANCH;
        } else if (r->itype != RVT_ITYPE_NONE) {
            flags = as_reported(e, classified(e, r->insn)->flags);
            if (flags & (RVT_NXI_INDIRECT | RVT_NXI_EXCEPTION | RVT_NXI_INTERRUPT))
                break;
        }
        e->icnt += r->iretire;
        e->stats.insns += r->ninsns;
        if (flags & RVT_NXI_BRANCH)
            note_branch(e, r->itype == RVT_ITYPE_BRANCH_TAKEN || (flags & RVT_NXI_TAKEN));
        if ((flags & RVT_NXI_CALL) && (e->o.call_stack || e->o.call_counter))
            nx_stack_push(&e->stack, (rvt_retire_last_iaddr(r) + ((flags & RVT_NXI_SIZE4) ? 4 : 2)) & e->return_mask);
        note_icnt(e);
    }
    /* (prev_ok and prev_insn are left as they are: only sequential jumps,
     * which never come this way, read them) */
    if (i > from) {
        e->pending_time = recs[i - 1].time;
        e->last_iaddr = rvt_retire_last_iaddr(&recs[i - 1]);
    }
    return i;
}

/* Block r as its instructions' own records; false, with nothing pushed,
 * when the code does not add up to the block. */
static bool push_block_singly(rvt_ntrace_encoder *e, const rvt_retire *r) {
    if (!rvt_retire_block_fits_code(r, e->fetch, e->fetch_user))
        return false;
    uint64_t a = r->iaddr;
    rvt_insn in;
    rvt_retire one = *r;
    one.ninsns = 1;
    one.itype = RVT_ITYPE_NONE;
    one.sijump = 0;
    for (uint32_t k = 0; k + 1 < r->ninsns && !e->status; k++) {
        e->fetch(e->fetch_user, a, &in);
        one.iaddr = a;
        rvt_retire_take_insn(&one, &in);
        rvt_ntrace_encoder_push(e, &one, 1);
        a += in.len;
    }
    one = *r;
    one.iaddr = rvt_retire_last_iaddr(r);
    one.ninsns = 1;
    one.iretire = (uint16_t)(r->ilastsize + 1);
    rvt_ntrace_encoder_push(e, &one, 1);
    return true;
}

int rvt_ntrace_encoder_push(rvt_ntrace_encoder *e, const rvt_retire *recs, size_t n) {
    const bool quiet_options = !e->o.ownership && !e->o.seq_jump; /* (see push_quiet_records) */
    for (size_t i = 0; i < n && !e->status; i++) {
        /* The record push_quiet_records stops at goes the general way. */
        if (quiet_options && e->started && !e->pending && (e->check_ret & 1) && !e->marker &&
            (i = push_quiet_records(e, recs, i, n)) == n)
            break;
        const rvt_retire *r = &recs[i];
        if (!e->started && e->disabled) {
            /* Not traced; a halt in the gap still ends the trace with
             * EVCODE 0 and no instructions (there is no address). */
            if (r->sideband && !e->stopped_disabled) {
                send_empty_correlation(e, 0, r->time);
                e->stopped_disabled = true;
            } else if (!r->sideband) {
                e->stopped_disabled = false;
            }
            continue;
        }
        if (r->sideband) {
            /* Halted or in reset: the trace ends as at the end of the run
             * (ProgTraceCorrelation, EVCODE 0) and restarts with SYNC 3 after
             * debug mode, SYNC 1 after reset. */
            if (e->started && !e->status) {
                /* The target of a branch message that waits for the next
                 * instruction is where the hart resumes, which the sync
                 * after it gives: the correlation's count covers the branch. */
                if (e->pending != PENDING_ICNT_OVERFLOW && e->pending != RVT_NX_RESOURCE_FULL)
                    e->pending = 0;
                e->check_ret = 1;
                close_trace(e);
            }
            e->started = false;
            e->start_sync = (r->sideband & RVT_SIDEBAND_RESET) ? 1 : 3;
            continue;
        }
        if (overflows_inside(e, r)) {
            /* without the code (or with code that does not add up to the
             * block) the overflow has no place: an error, not a guess */
            if (!e->fetch || !push_block_singly(e, r))
                e->status = RVT_E_UNSUPP;
            continue;
        }
        uint64_t messages = e->stats.messages;
        /* (before() does nothing for most records: no message waits) */
        if (!e->started || !(e->check_ret & 1) || e->pending || e->o.ownership || e->marker)
            before(e, r->iaddr, false, r);
        bool quiet = messages == e->stats.messages; /* this record starts no new message */
        e->pending_time = r->time;
        if (e->o.ownership && (r->ninsns == 0 || r->itype == RVT_ITYPE_XRET))
            e->ownership_due = true; /* trap entry or return */
        if (r->ninsns == 0) {
            after(e, r->iaddr, r->itype == RVT_ITYPE_INTERRUPT ? RVT_NXI_INTERRUPT : RVT_NXI_EXCEPTION, 0);
            e->prev_ok = false;
        } else {
            /* Most records are plain instructions (itype 0 in the 4-bit
             * classification every reader gives): no need to decode those,
             * unless a sequential jump may follow. */
            unsigned flags = r->ilastsize ? RVT_NXI_SIZE4 : 0;
            const rvt_insn *in = NULL;
            bool decoded = r->itype != RVT_ITYPE_NONE || e->o.seq_jump;
            if (decoded) {
                const struct decoded *d = classified(e, r->insn);
                in = &d->in;
                flags = as_reported(e, d->flags); /* (before a sequential jump loses INDIRECT below) */
            }
            uint64_t target;
            if (e->o.seq_jump && (flags & RVT_NXI_INDIRECT) && e->prev_ok && r->ninsns == 1 && quiet &&
                rvt_seq_inferable_target(&e->prev_insn, e->prev_addr, in, e->xlen, &target))
                flags &= ~(unsigned)(RVT_NXI_INDIRECT | RVT_NXI_RETURN); /* the decoder computes the target */
            e->prev_ok = decoded && r->ninsns == 1;
            if (e->prev_ok) {
                e->prev_insn = *in;
                e->prev_addr = r->iaddr;
            }
            if (r->itype == RVT_ITYPE_BRANCH_TAKEN)
                flags |= RVT_NXI_TAKEN;
            after(e, rvt_retire_last_iaddr(r), flags, r->iretire);
            e->stats.insns += r->ninsns - 1;
        }
        e->last_iaddr = r->ninsns ? rvt_retire_last_iaddr(r) : r->iaddr;
    }
    return e->status;
}

int rvt_ntrace_encoder_finish(rvt_ntrace_encoder *e, rvt_ntrace_stats *stats) {
    if (!e)
        return RVT_E_ARG;
    if (e->started && !e->status)
        close_trace(e);
    else if (e->disabled && !e->stopped_disabled && !e->status)
        send_empty_correlation(e, 0, e->pending_time);
    int status = e->status;
    if (stats)
        *stats = e->stats;
    free(e);
    return status;
}
