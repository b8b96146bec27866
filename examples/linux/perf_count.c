/* Counts, through the kernel's perf events (perf_event_open), the user-mode
 * instructions and cycles of a loop whose length is known, run for two
 * lengths. Built static with Debian's riscv64 cross compiler and run by the
 * initramfs's init (examples/linux): the kernel's SBI PMU driver programs the
 * machine's counters, so what this prints is what the hart model's counters
 * gave the kernel.
 *
 * Each counter is read around the same code: enabled, the loop, disabled.
 * The difference between the two lengths' counts is the loop's own work,
 * whatever the ioctl calls around it cost: exactly 3 instructions an
 * iteration. The loop is marked by the symbols perf_loop_start and
 * perf_loop_end so that a trace of the run can be counted over it too. */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* n iterations of three instructions; a0 in, a0 out (0). */
void perf_loop(uint64_t n);
__asm__(".text\n"
        ".globl perf_loop\n"
        ".type perf_loop, @function\n"
        "perf_loop:\n"
        ".globl perf_loop_start\n"
        "perf_loop_start:\n"
        "    addi a0, a0, -1\n"
        "    add t0, t0, a0\n"
        "    bnez a0, perf_loop_start\n"
        ".globl perf_loop_end\n"
        "perf_loop_end:\n"
        "    ret\n"
        ".size perf_loop, . - perf_loop\n");

static int open_counter(uint64_t config) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_HARDWARE;
    attr.config = config;
    attr.disabled = 1;
    attr.exclude_kernel = 1; /* user mode only: the loop, not the system calls */
    attr.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* The count of `fd` over perf_loop(n), or -1. */
static int64_t measure(int fd, uint64_t n) {
    uint64_t count;
    if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
        return -1;
    perf_loop(n);
    if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) || read(fd, &count, sizeof count) != (ssize_t)sizeof count)
        return -1;
    return (int64_t)count;
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000;
    int insns = open_counter(PERF_COUNT_HW_INSTRUCTIONS), cycles = open_counter(PERF_COUNT_HW_CPU_CYCLES);
    if (insns < 0 || cycles < 0) {
        perror("perf_count: perf_event_open");
        return 1;
    }
    int64_t i1 = measure(insns, n), i2 = measure(insns, 2 * n);
    int64_t c1 = measure(cycles, n), c2 = measure(cycles, 2 * n);
    if (i1 < 0 || i2 < 0 || c1 < 0 || c2 < 0) {
        perror("perf_count: reading a counter");
        return 1;
    }
    printf("=== perf: loop of %llu: instructions %lld, of %llu: %lld; difference %lld (3 an iteration: %llu)\n",
           (unsigned long long)n, (long long)i1, (unsigned long long)(2 * n), (long long)i2, (long long)(i2 - i1),
           (unsigned long long)(3 * n));
    printf("=== perf: loop of %llu: cycles %lld, of %llu: %lld; difference %lld\n", (unsigned long long)n,
           (long long)c1, (unsigned long long)(2 * n), (long long)c2, (long long)(c2 - c1));
    return 0;
}
