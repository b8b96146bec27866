/* Call stacks from CTR's RAS emulation, read from C as a sampling profiler's
 * handler would (v0.1.4 CSRs, M-mode): the stack at the deepest point of a
 * call chain, a recursion deeper than the buffer, and an empty buffer once
 * every call has returned. main returns 0, or the number of the failed check.
 * Built -O2 -fno-optimize-sibling-calls with examples/start.S. */

#define CSR_MCTRCONTROL "0x381"
#define CSR_MCTRSTATUS "0x383"
#define CSR_MISELECT "0x350"
#define CSR_MIREG "0x351"
#define CSR_MIREG2 "0x352"
#define CSR_MIREG3 "0x353"

#define EN_M 1ul
#define CLR (1ul << 7)
#define RASEMU (1ul << 10)

#define WRITE_CSR(csr, v) __asm__ volatile("csrw " csr ", %0" ::"r"((unsigned long)(v)) : "memory")
#define READ_CSR(csr)                                                   \
    ({                                                                  \
        unsigned long v_;                                               \
        __asm__ volatile("csrr %0, " csr : "=r"(v_)::"memory");         \
        v_;                                                             \
    })

struct record {
    unsigned long source, target, data;
};

/* Stops recording (the entries stay) and reads the first n logical entries. */
static void __attribute__((noinline)) snapshot(struct record *out, unsigned n, unsigned long *wrptr) {
    WRITE_CSR(CSR_MCTRCONTROL, 0);
    *wrptr = READ_CSR(CSR_MCTRSTATUS) & 0xff;
    for (unsigned i = 0; i < n; i++) {
        WRITE_CSR(CSR_MISELECT, 0x200 + i);
        out[i].source = READ_CSR(CSR_MIREG);
        out[i].target = READ_CSR(CSR_MIREG2);
        out[i].data = READ_CSR(CSR_MIREG3);
    }
}

static struct record chain[4], deep[16];
static unsigned long chain_wrptr, deep_wrptr;
static volatile int sink;

static int __attribute__((noinline)) level3(int x) {
    snapshot(chain, 4, &chain_wrptr);
    return x + 3;
}
static int __attribute__((noinline)) level2(int x) { return level3(x * 2) + 1; }
static int __attribute__((noinline)) level1(int x) { return level2(x + 5) * 3; }

static int __attribute__((noinline)) recurse(int n) {
    if (n == 0) {
        snapshot(deep, 16, &deep_wrptr);
        return 0;
    }
    int r = recurse(n - 1) + n;
    sink = r;
    return r;
}

static int __attribute__((noinline)) plain(int n) {
    if (n == 0)
        return 0;
    int r = plain(n - 1) + n;
    sink = r;
    return r;
}

static int valid(const struct record *r) { return r->source & 1; }
static unsigned long type(const struct record *r) { return r->data & 15; }

int main(void) {
    /* 1-9: the call chain main -> level1 -> level2 -> level3 -> snapshot */
    WRITE_CSR(CSR_MCTRCONTROL, CLR);
    WRITE_CSR(CSR_MCTRCONTROL, EN_M | RASEMU);
    sink = level1(1);
    if (chain_wrptr != 4)
        return 1;
    if (chain[0].target != (unsigned long)&snapshot || chain[1].target != (unsigned long)&level3 ||
        chain[2].target != (unsigned long)&level2 || chain[3].target != (unsigned long)&level1)
        return 2;
    for (int i = 0; i < 4; i++) {
        if (!valid(&chain[i]))
            return 3;
        if (type(&chain[i]) != 9 && type(&chain[i]) != 8) /* direct or indirect call */
            return 4;
    }
    /* each call site lies in the caller: level3's call is inside level3 */
    if ((chain[0].source & ~1ul) < (unsigned long)&level3 || (chain[1].source & ~1ul) < (unsigned long)&level2)
        return 5;

    /* 10-19: recursion 20 deep in 16 entries keeps the 16 innermost calls */
    WRITE_CSR(CSR_MCTRCONTROL, CLR);
    WRITE_CSR(CSR_MCTRCONTROL, EN_M | RASEMU);
    sink = recurse(20);
    WRITE_CSR(CSR_MCTRCONTROL, 0);
    if (!valid(&deep[0]) || deep[0].target != (unsigned long)&snapshot)
        return 10;
    for (int i = 1; i < 16; i++)
        if (!valid(&deep[i]) || deep[i].target != (unsigned long)&recurse)
            return 11;
    if (deep_wrptr != (22 % 16)) /* 21 calls of recurse and one of snapshot */
        return 12;
    /* every call returned while recording: all popped */
    struct record after[16];
    unsigned long wrptr;
    WRITE_CSR(CSR_MCTRCONTROL, CLR);
    WRITE_CSR(CSR_MCTRCONTROL, EN_M | RASEMU);
    sink = plain(5);
    snapshot(after, 16, &wrptr); /* the one call left: this one */
    if (!valid(&after[0]) || after[0].target != (unsigned long)&snapshot)
        return 13;
    for (int i = 1; i < 16; i++)
        if (valid(&after[i]))
            return 14;
    if (wrptr != 1)
        return 15;
    return 0;
}
