/* The bundled example: a little of what real programs do (calls, loops,
 * recursion, table lookups, indirect calls) so that every kind of control
 * transfer shows up in its trace. */
#include <stdint.h>

#define N 64

static uint32_t data[N];

static uint32_t next_random(uint32_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

static void insertion_sort(uint32_t *v, int n) {
    for (int i = 1; i < n; i++) {
        uint32_t key = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > key) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = key;
    }
}

static uint32_t crc32_update(uint32_t crc, uint8_t byte) {
    crc ^= byte;
    for (int k = 0; k < 8; k++)
        crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    return crc;
}

static uint32_t checksum(const uint32_t *v, int n) {
    uint32_t crc = 0xffffffffu;
    for (int i = 0; i < n; i++)
        for (int b = 0; b < 4; b++)
            crc = crc32_update(crc, (uint8_t)(v[i] >> (8 * b)));
    return ~crc;
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static uint32_t square(uint32_t x) { return x * x; }
static uint32_t twice(uint32_t x) { return x + x; }
static uint32_t (*const ops[2])(uint32_t) = {square, twice};

int main(void) {
    uint32_t state = 2463534242u;
    for (int i = 0; i < N; i++)
        data[i] = next_random(&state) % 1000u;
    insertion_sort(data, N);
    for (int i = 1; i < N; i++)
        if (data[i - 1] > data[i])
            return 1;
    uint32_t acc = checksum(data, N);
    for (int i = 0; i < 16; i++)
        acc += ops[i & 1]((uint32_t)i);
    acc += (uint32_t)fib(12);
    return acc == 0 ? 2 : 0;
}
