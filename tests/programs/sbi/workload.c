/* An S-mode workload for checking counts against a trace: loops, calls and
 * returns, loads and stores, SBI calls (debug console, timer) and a
 * supervisor timer interrupt taken by its own handler. Through the SBI PMU
 * it counts its own sorting and recursion in S-mode and prints the counts,
 * so that two SBI implementations can be compared. Returns 0. */
#include <stdint.h>

struct sbiret {
    long error;
    long value;
};

static struct sbiret ecall(long eid, long fid, long a0, long a1, long a2) {
    register long r0 __asm__("a0") = a0, r1 __asm__("a1") = a1, r2 __asm__("a2") = a2;
    register long r6 __asm__("a6") = fid, r7 __asm__("a7") = eid;
    __asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r2), "r"(r6), "r"(r7) : "memory");
    return (struct sbiret){r0, r1};
}

static int has_dbcn;

static void print(const char *s) {
    unsigned long n = 0;
    while (s[n])
        n++;
    if (has_dbcn)
        ecall(0x4442434e, 0, (long)n, (long)(uintptr_t)s, 0);
    else
        for (unsigned long i = 0; i < n; i++)
            ecall(0x01, 0, s[i], 0, 0); /* legacy console_putchar */
}

static void print_number(unsigned long v) {
    char buf[24];
    int i = 23;
    buf[i] = 0;
    do
        buf[--i] = (char)('0' + v % 10);
    while (v /= 10);
    print(buf + i);
}

#define EXT_PMU 0x504d55

/* One counter of the PMU's highest hardware ones (others may be taken by
 * whoever else counts), counting `event` in S-mode only; -1 when there is
 * no PMU or no counter for it. */
static long counter;
static unsigned counter_csr;

static long configure(long event) {
    if (!ecall(0x10, 3, EXT_PMU, 0, 0).value)
        return -1;
    long n = ecall(EXT_PMU, 0, 0, 0, 0).value, top = -1;
    for (long i = 0; i < n; i++) {
        struct sbiret r = ecall(EXT_PMU, 1, i, 0, 0);
        if (r.error == 0 && !((unsigned long)r.value >> (__riscv_xlen - 1)))
            top = i;
    }
    register long a0 __asm__("a0") = top - 3, a1 __asm__("a1") = 0xf;
    register long a2 __asm__("a2") = 2 | (1 << 5) | (1 << 7); /* CLEAR_VALUE, SET_UINH, SET_MINH */
    register long a3 __asm__("a3") = event, a4 __asm__("a4") = 0, a5 __asm__("a5") = 0;
    register long a6 __asm__("a6") = 2, a7 __asm__("a7") = EXT_PMU;
    __asm__ volatile("ecall" : "+r"(a0), "+r"(a1) : "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a6), "r"(a7) : "memory");
    long error = a0, idx = a1; /* before another call reuses the registers */
    if (error != 0)
        return -1;
    counter_csr = (unsigned)(ecall(EXT_PMU, 1, idx, 0, 0).value & 0xfff);
    return idx;
}

static unsigned long read_counter(void) {
    unsigned long v = 0;
    /* hpmcounterN by number: the CSR must be an immediate */
#define READ(n) case n: __asm__ volatile("csrr %0, " #n : "=r"(v)); break;
    switch (counter_csr) {
        READ(0xc00) READ(0xc02) READ(0xc03) READ(0xc04) READ(0xc05) READ(0xc06) READ(0xc07) READ(0xc08)
        READ(0xc09) READ(0xc0a) READ(0xc0b) READ(0xc0c) READ(0xc0d) READ(0xc0e) READ(0xc0f) READ(0xc10)
        READ(0xc11) READ(0xc12) READ(0xc13) READ(0xc14) READ(0xc15) READ(0xc16) READ(0xc17) READ(0xc18)
        READ(0xc19) READ(0xc1a) READ(0xc1b) READ(0xc1c) READ(0xc1d) READ(0xc1e) READ(0xc1f)
    default: break;
    }
#undef READ
    return v;
}

static volatile int ticks;

/* The supervisor trap handler: a timer interrupt pushes the timer away. */
void __attribute__((interrupt("supervisor"), aligned(4))) s_trap(void) {
    ticks++;
    ecall(0x54494d45, 0, -1, -1, 0); /* set_timer: never */
}

static unsigned __attribute__((noinline)) fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int data[256];

/* The work that is counted: the same instructions every time. */
static unsigned __attribute__((noinline)) compute(void) {
    unsigned seed = 1;
    for (int i = 0; i < 256; i++)
        data[i] = (int)(seed = seed * 1103515245u + 12345u) >> 8;
    for (int i = 1; i < 256; i++) { /* insertion sort */
        int v = data[i], j = i - 1;
        while (j >= 0 && data[j] > v) {
            data[j + 1] = data[j];
            j--;
        }
        data[j + 1] = v;
    }
    return fib(15);
}

/* compute() counted by a counter of `event`: started and stopped by
 * single-counter calls, so that nothing else differs between two SBI
 * implementations. */
static unsigned long counted(long event, const char *name) {
    counter = configure(event);
    if (counter < 0)
        return 0;
    ecall(EXT_PMU, 3, counter, 1, 0);
    compute();
    ecall(EXT_PMU, 4, counter, 1, 1); /* stop and reset */
    unsigned long v = read_counter();
    print("workload: S-mode ");
    print(name);
    print(" ");
    print_number(v);
    print("\n");
    return v;
}

int main(void) {
    has_dbcn = ecall(0x10, 3, 0x4442434e, 0, 0).value != 0;
    print("workload: start\n");
    __asm__ volatile("csrw stvec, %0" ::"r"(&s_trap));
    unsigned f = compute();
    counted(0x2, "instructions");        /* INSTRUCTIONS */
    counted(0x5, "branch instructions"); /* BRANCH_INSTRUCTIONS */
    /* a timer interrupt, delegated to S */
    unsigned long now;
    __asm__ volatile("rdtime %0" : "=r"(now));
    ecall(0x54494d45, 0, (long)(now + 100), 0, 0);
    __asm__ volatile("csrs sie, %0" ::"r"(1ul << 5));
    __asm__ volatile("csrsi sstatus, 2");
    while (!ticks) /* the interrupt comes after a wfi, not a branch */
        __asm__ volatile("wfi");
    __asm__ volatile("csrci sstatus, 2");
    for (int i = 1; i < 256; i++)
        if (data[i - 1] > data[i])
            return 1;
    print(f == 610 ? "workload: done\n" : "workload: wrong\n");
    return f == 610 ? 0 : 2;
}
