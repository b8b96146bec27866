/* Writes a SiFive cycle-accurate side file (.rcad) for tests: RECORDS
 * records of the layout in docs/formats.md whose start address is START,
 * with pseudo-random cycle bits (the same for the same SEED). A scalar
 * ("instruction") file sets each pipe bit with PERCENT % chance; a vector
 * file sets pipe 0 with PERCENT % and pipe 1 with PERCENT/2 % a cycle, and
 * with VPERCENT (default 0: the captures run no vector code) a vector start
 * with VPERCENT % and each kind of finish with VPERCENT/3 %.
 *
 *   rcad_gen instruction|vector START RECORDS SEED PERCENT OUT [VPERCENT] */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static unsigned next_percent(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)(state % 100);
}

int main(int argc, char **argv) {
    if ((argc != 7 && argc != 8) || (strcmp(argv[1], "instruction") != 0 && strcmp(argv[1], "vector") != 0)) {
        fprintf(stderr, "usage: rcad_gen instruction|vector START RECORDS SEED PERCENT OUT [VPERCENT]\n");
        return 2;
    }
    int vector = !strcmp(argv[1], "vector");
    uint64_t start = strtoull(argv[2], NULL, 16);
    unsigned long records = strtoul(argv[3], NULL, 0);
    state = strtoull(argv[4], NULL, 0) * 0x9e3779b97f4a7c15ull + 1;
    unsigned percent = (unsigned)strtoul(argv[5], NULL, 0);
    unsigned vpercent = argc == 8 ? (unsigned)strtoul(argv[7], NULL, 0) : 0;
    FILE *f = fopen(argv[6], "wb");
    if (!f) {
        fprintf(stderr, "rcad_gen: %s: %s\n", argv[6], strerror(errno));
        return 1;
    }
    for (unsigned long r = 0; r < records; r++) {
        for (unsigned w = 0; w < 32; w++) {
            uint32_t data = 0;
            if (vector) {
                for (unsigned cycle = 0; cycle < 5; cycle++) {
                    uint32_t flags = (next_percent() < percent ? 0x20u : 0) | (next_percent() < percent / 2 ? 0x10u : 0);
                    if (vpercent) {
                        flags |= next_percent() < vpercent ? 0x08u : 0;
                        for (uint32_t finish = 0x04; finish; finish >>= 1)
                            flags |= next_percent() < vpercent / 3 ? finish : 0;
                    }
                    data |= flags << (6 * (4 - cycle));
                }
            } else {
                for (unsigned bit = 0; bit < 30; bit++)
                    if (next_percent() < percent)
                        data |= 1u << bit;
            }
            /* word 0's top bits: 3, as SiFive's encoders mark a record's start */
            uint32_t top = w ? (uint32_t)(start >> (2 * (w - 1))) & 3 : 3;
            uint32_t word = data | top << 30;
            unsigned char b[4] = {(unsigned char)word, (unsigned char)(word >> 8), (unsigned char)(word >> 16),
                                  (unsigned char)(word >> 24)};
            if (fwrite(b, 1, 4, f) != 4) {
                fprintf(stderr, "rcad_gen: %s: write failed\n", argv[6]);
                fclose(f);
                return 1;
            }
        }
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "rcad_gen: %s: write failed\n", argv[6]);
        return 1;
    }
    return 0;
}
