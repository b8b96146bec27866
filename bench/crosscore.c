/* crosscore [MB]: how fast one thread hands data to another, in GB/s, and
 * how fast a thread writes and reads the same data alone. One thread fills
 * 256 KiB chunks of an 8-chunk ring, the other reads every cache line of
 * each; the bench scripts print it beside their figures. On this project's
 * virtual machines the hand-over runs at about 30 GB/s at times and at
 * 2.4 GB/s at others (while the single thread's figure stays put), and
 * everything that runs on two threads (run --etrace/--ntrace, decode
 * --threads) is then slower. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CHUNK = 256 * 1024, CHUNKS = 8, LINE = 64 };

static unsigned char *ring;
static long total_chunks;
static _Atomic long filled, emptied; /* chunks written, and read */
static uint64_t read_sum;

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fill(long k) {
    uint64_t *w = (uint64_t *)(ring + (size_t)(k % CHUNKS) * CHUNK);
    for (size_t i = 0; i < CHUNK / sizeof *w; i++)
        w[i] = (uint64_t)k + i;
}

static uint64_t read_lines(long k) {
    const uint64_t *w = (const uint64_t *)(ring + (size_t)(k % CHUNKS) * CHUNK);
    uint64_t sum = 0;
    for (size_t i = 0; i < CHUNK / sizeof *w; i += LINE / sizeof *w)
        sum += w[i];
    return sum;
}

static void *reader(void *arg) {
    (void)arg;
    uint64_t sum = 0;
    for (long k = 0; k < total_chunks; k++) {
        while (atomic_load_explicit(&filled, memory_order_acquire) <= k)
            ;
        sum += read_lines(k);
        atomic_store_explicit(&emptied, k + 1, memory_order_release);
    }
    read_sum = sum;
    return NULL;
}

int main(int argc, char **argv) {
    long mb = argc > 1 ? atol(argv[1]) : 2048;
    if (argc > 2 || mb <= 0) {
        fprintf(stderr, "usage: crosscore [MB]  (data handed over, default 2048)\n");
        return 2;
    }
    total_chunks = mb * 4; /* 256 KiB each */
    ring = aligned_alloc(4096, (size_t)CHUNK * CHUNKS);
    if (!ring) {
        perror("crosscore");
        return 1;
    }
    memset(ring, 0, (size_t)CHUNK * CHUNKS);

    double t0 = seconds();
    uint64_t alone = 0;
    for (long k = 0; k < total_chunks; k++) {
        fill(k);
        alone += read_lines(k);
    }
    double one = seconds() - t0;

    pthread_t t;
    t0 = seconds();
    if (pthread_create(&t, NULL, reader, NULL)) {
        perror("crosscore: thread");
        return 1;
    }
    for (long k = 0; k < total_chunks; k++) {
        while (k - atomic_load_explicit(&emptied, memory_order_acquire) >= CHUNKS)
            ;
        fill(k);
        atomic_store_explicit(&filled, k + 1, memory_order_release);
    }
    pthread_join(t, NULL);
    double two = seconds() - t0;
    if (read_sum != alone) { /* (the reader saw every chunk as written) */
        fprintf(stderr, "crosscore: the reader read other data than was written\n");
        return 1;
    }
    double bytes = (double)total_chunks * CHUNK;
    printf("cross-core hand-over %.1f GB/s (one thread writing and reading: %.1f GB/s)\n", bytes / two / 1e9,
           bytes / one / 1e9);
    return 0;
}
