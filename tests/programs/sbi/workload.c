/* An S-mode workload for checking counts against a trace: loops, calls and
 * returns, loads and stores, SBI calls (debug console, timer) and a
 * supervisor timer interrupt taken by its own handler. Returns 0. */
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

static void print(const char *s) {
    unsigned long n = 0;
    while (s[n])
        n++;
    ecall(0x4442434e, 0, (long)n, (long)(uintptr_t)s, 0);
}

static volatile int ticks;

/* The supervisor trap handler: a timer interrupt pushes the timer away. */
void __attribute__((interrupt("supervisor"), aligned(4))) s_trap(void) {
    ticks++;
    ecall(0x54494d45, 0, -1, -1, 0); /* set_timer: never */
}

static unsigned __attribute__((noinline)) fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int data[256];

int main(void) {
    print("workload: start\n");
    __asm__ volatile("csrw stvec, %0" ::"r"(&s_trap));
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
    unsigned f = fib(15);
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
