/* A supervisor-mode benchmark for the hart model: a sieve of Eratosthenes
 * over 2 MiB and a pointer chase over a shuffled list of 4 MiB (more pages
 * than a TLB of 256 entries holds), with a timer interrupt every 100 us of
 * mtime taken by its own handler. Built three ways (bench/CMakeLists.txt):
 * S-mode with translation off (BENCH_PAGED 0), S-mode under Sv39 with 4 KiB
 * pages identity-mapped (BENCH_PAGED 1), and the same work in U-mode
 * (BENCH_USER 1). An --sbi payload: it prints its checksum and the number
 * of timer interrupts, then shuts down through SBI. */
#include <stdint.h>

#ifndef BENCH_PAGED
#define BENCH_PAGED 0
#endif
#ifndef BENCH_USER
#define BENCH_USER 0
#endif

struct sbiret {
    long error, value;
};

static struct sbiret ecall(long eid, long fid, long a0, long a1, long a2) {
    register long r0 __asm__("a0") = a0, r1 __asm__("a1") = a1, r2 __asm__("a2") = a2;
    register long r6 __asm__("a6") = fid, r7 __asm__("a7") = eid;
    __asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
    return (struct sbiret){r0, r1};
}

static void print(const char *s) {
    unsigned long n = 0;
    while (s[n])
        n++;
    ecall(0x4442434e, 0, (long)n, (long)(uintptr_t)s, 0); /* DBCN write */
}

/* (DBCN takes a physical address: the digits go in a buffer of the
 * identity-mapped view, not on a stack that may be the U-mode view's) */
static void print_number(unsigned long v) {
    static char buf[24];
    int i = 23;
    buf[i] = 0;
    do
        buf[--i] = (char)('0' + v % 10);
    while (v /= 10);
    print(buf + i);
}

#define TIMER_PERIOD 1000 /* mtime ticks (10 MHz): 100 us */
static volatile unsigned long ticks;

static unsigned long rdtime(void) {
    unsigned long t;
    __asm__ volatile("rdtime %0" : "=r"(t));
    return t;
}

static void arm_timer(void) { ecall(0x54494d45, 0, (long)(rdtime() + TIMER_PERIOD), 0, 0); }

/* ---- the work */

#define SIEVE_BYTES (2u << 20)
#define NODES (1u << 16)
#define NODE_BYTES 64 /* a node a cache line: the list covers 4 MiB */
static uint8_t sieve[SIEVE_BYTES];
static struct node {
    struct node *next;
    unsigned long value;
    uint8_t pad[NODE_BYTES - 16];
} nodes[NODES];

static unsigned long work(void) {
    unsigned long primes = 0;
    for (unsigned round = 0; round < 2; round++) {
        for (unsigned i = 0; i < SIEVE_BYTES; i++)
            sieve[i] = 1;
        for (unsigned i = 2; i < SIEVE_BYTES; i++) {
            if (!sieve[i])
                continue;
            primes++;
            for (unsigned j = 2 * i; j < SIEVE_BYTES; j += i)
                sieve[j] = 0;
        }
    }
    /* a list through the nodes in an order a linear congruential step
     * scatters over every page (NODES is a power of two: the step with an
     * odd increment visits each once) */
    unsigned long at = 0;
    for (unsigned i = 0; i < NODES; i++) {
        unsigned long next = (at * 1103515245u + 12345u) % NODES;
        nodes[at].next = &nodes[next];
        nodes[at].value = i;
        at = next;
    }
    unsigned long sum = 0;
    struct node *n = &nodes[0];
    for (unsigned i = 0; i < 8 * NODES; i++) {
        sum += n->value;
        n = n->next;
    }
    return primes * 1000003u + sum;
}

/* ---- traps: the timer, and (U-mode) the ecall that ends the work */

static unsigned long result;
static void finish(void);

void bench_trap(unsigned long cause, unsigned long epc_next) {
    if ((long)cause < 0 && (cause << 1) == 5 << 1) { /* supervisor timer */
        ticks++;
        arm_timer();
        return;
    }
    if (cause == 8) { /* ecall from U: the work is done, its result in a0 */
        result = epc_next;
        finish();
    }
    print("paged: unexpected trap ");
    print_number(cause);
    print("\n");
    ecall(0x53525354, 0, 0, 1, 0); /* SRST: shutdown, system failure */
}

/* The handler saves what C may clobber (the work runs on, interrupted
 * anywhere), calls bench_trap(scause, a0 of the trapped code) and returns. */
__asm__(".align 2\n"
        "trap_entry:\n"
        "  addi sp, sp, -144\n"
        "  sd ra, 0(sp)\n  sd t0, 8(sp)\n  sd t1, 16(sp)\n  sd t2, 24(sp)\n"
        "  sd a0, 32(sp)\n  sd a1, 40(sp)\n  sd a2, 48(sp)\n  sd a3, 56(sp)\n"
        "  sd a4, 64(sp)\n  sd a5, 72(sp)\n  sd a6, 80(sp)\n  sd a7, 88(sp)\n"
        "  sd t3, 96(sp)\n  sd t4, 104(sp)\n  sd t5, 112(sp)\n  sd t6, 120(sp)\n"
        "  ld a1, 32(sp)\n" /* the trapped code's a0 */
        "  csrr a0, scause\n"
        "  call bench_trap\n"
        "  ld ra, 0(sp)\n  ld t0, 8(sp)\n  ld t1, 16(sp)\n  ld t2, 24(sp)\n"
        "  ld a0, 32(sp)\n  ld a1, 40(sp)\n  ld a2, 48(sp)\n  ld a3, 56(sp)\n"
        "  ld a4, 64(sp)\n  ld a5, 72(sp)\n  ld a6, 80(sp)\n  ld a7, 88(sp)\n"
        "  ld t3, 96(sp)\n  ld t4, 104(sp)\n  ld t5, 112(sp)\n  ld t6, 120(sp)\n"
        "  addi sp, sp, 144\n"
        "  sret\n");
extern char trap_entry[];

/* ---- Sv39: the first 16 MiB of RAM (0x80000000) with 4 KiB pages,
 * identity-mapped for S-mode and, for U-mode, again at USER_ALIAS with the U
 * bit: the work runs there (the code is position-independent enough: every
 * address it forms is pc-relative), the trap handler at the S-mode view,
 * reaching the user's stack with SUM. */

#define RAM_BASE 0x80000000u
#define MAPPED (16u << 20)
#define USER_ALIAS 0x40000000u
#define PTE_LEAF 0xcf /* D A X W R V */
#define PTE_USER 0x10
static uint64_t root[512] __attribute__((aligned(4096)));
static uint64_t level1[2][512] __attribute__((aligned(4096)));
static uint64_t level0[2][MAPPED >> 21][512] __attribute__((aligned(4096)));

static void map_at(unsigned view, uint64_t va, uint64_t flags) {
    root[va >> 30] = ((uint64_t)(uintptr_t)level1[view] >> 12) << 10 | 1;
    for (unsigned t = 0; t < (MAPPED >> 21); t++) {
        level1[view][((va >> 21) + t) & 511] = ((uint64_t)(uintptr_t)level0[view][t] >> 12) << 10 | 1;
        for (unsigned p = 0; p < 512; p++)
            level0[view][t][p] = ((RAM_BASE >> 12) + t * 512u + p) << 10 | flags;
    }
}

static void map_memory(void) {
    map_at(0, RAM_BASE, PTE_LEAF);
    if (BENCH_USER)
        map_at(1, USER_ALIAS, PTE_LEAF | PTE_USER);
    __asm__ volatile("csrw satp, %0\n sfence.vma" : : "r"(8ull << 60 | (uint64_t)(uintptr_t)root >> 12) : "memory");
}

static uintptr_t user_view(const void *p) { return (uintptr_t)p - RAM_BASE + USER_ALIAS; }

static void finish(void) {
    print("paged: result ");
    print_number(result);
    print(", timer interrupts ");
    print_number(ticks);
    print("\n");
    ecall(0x53525354, 0, 0, 0, 0); /* SRST: shutdown */
}

/* U-mode: the work, then an ecall with its result in a0. */
static void user_main(void) {
    register unsigned long a0 __asm__("a0") = work();
    __asm__ volatile("ecall" : : "r"(a0));
    for (;;)
        ;
}

static uint8_t user_stack[16384] __attribute__((aligned(16)));

int main(void) {
    __asm__ volatile("csrw stvec, %0" : : "r"(trap_entry));
    if (BENCH_PAGED || BENCH_USER)
        map_memory();
    __asm__ volatile("csrs sie, %0" : : "r"(1ul << 5)); /* STIE */
    __asm__ volatile("csrs sstatus, %0" : : "r"(1ul << 1)); /* SIE */
    arm_timer();
    if (BENCH_USER) {
        /* sret to user_main's U-mode view (SPP 0) with its own stack there;
         * SUM lets the handler use that stack */
        __asm__ volatile("csrs sstatus, %0\n"
                         "csrc sstatus, %1\n"
                         "csrw sepc, %2\n"
                         "mv sp, %3\n"
                         "sret"
                         :
                         : "r"(1ul << 18), "r"(1ul << 8), "r"(user_view((const void *)user_main)),
                           "r"(user_view(user_stack + sizeof user_stack))
                         : "memory");
    }
    result = work();
    finish();
    return 0;
}
