/* Throughput of the two lookups every decoder and the hart model do per
 * instruction: raw decode, and the cached address -> instruction lookup. */
#include "bench_util.h"
#include <stdio.h>
#include <stdlib.h>

#include "rvtrace/image.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_image PROGRAM.elf...\n");
        return 2;
    }
    for (int k = 1; k < argc; k++) {
        rvt_image *img;
        rvt_diag d = {{0}};
        if (rvt_image_new(&img) || rvt_image_load_elf(img, argv[k], 0, &d)) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        /* Collect the instruction addresses of all executable code linearly. */
        rvt_segment_info segs[64];
        size_t nsegs = rvt_image_segments(img, segs, 64);
        size_t cap = 1 << 20, n = 0;
        uint64_t *addrs = malloc(cap * sizeof *addrs);
        const rvt_insn *in;
        for (size_t s = 0; s < nsegs && s < 64; s++)
            for (uint64_t a = segs[s].vaddr; segs[s].exec && n < cap && a < segs[s].vaddr + segs[s].memsz &&
                                             (in = rvt_image_insn(img, a)) != NULL;
                 a += in->len)
                addrs[n++] = a;
        if (n == 0) {
            fprintf(stderr, "%s: no executable code\n", argv[k]);
            return 1;
        }
        /* A pseudo-random visiting order defeats the one-segment hint less
         * than it defeats the CPU caches, like a real trace would. */
        uint64_t *order = malloc(n * sizeof *order);
        uint64_t x = 88172645463325252ull;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            order[i] = addrs[x % n];
        }
        const size_t rounds = 200000000 / n + 1;
        unsigned long long sink = 0;
        double t0 = bench_now();
        for (size_t r = 0; r < rounds; r++)
            for (size_t i = 0; i < n; i++)
                sink += rvt_image_insn(img, addrs[i])->op;
        double t1 = bench_now();
        for (size_t r = 0; r < rounds; r++)
            for (size_t i = 0; i < n; i++)
                sink += rvt_image_insn(img, order[i])->op;
        double t2 = bench_now();
        rvt_insn tmp;
        for (size_t r = 0; r < rounds / 4 + 1; r++)
            for (size_t i = 0; i < n; i++)
                sink += rvt_decode((uint32_t)(addrs[i] * 2654435761u), 64, &tmp);
        double t3 = bench_now();
        double total = (double)rounds * (double)n;
        printf("%s: %zu instructions\n", argv[k], n);
        printf("  cached lookup, sequential: %8.1f M lookups/s\n", total / (t1 - t0) / 1e6);
        printf("  cached lookup, scattered:  %8.1f M lookups/s\n", total / (t2 - t1) / 1e6);
        printf("  raw decode:                %8.1f M decodes/s\n", (double)(rounds / 4 + 1) * (double)n / (t3 - t2) / 1e6);
        if (sink == 42)
            puts("");
        free(order);
        free(addrs);
        rvt_image_free(img);
    }
    return 0;
}
