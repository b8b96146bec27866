/* A small freestanding program for the source-line test: a few functions,
 * an inlined helper and a loop, built with each DWARF version. */
static inline unsigned mix(unsigned h, unsigned v) {
    h ^= v;
    return h * 16777619u;
}

__attribute__((noinline)) unsigned hash(const unsigned char *p, unsigned n) {
    unsigned h = 2166136261u;
    for (unsigned i = 0; i < n; i++)
        h = mix(h, p[i]);
    return h;
}

__attribute__((noinline)) int count_bits(unsigned v) {
    int n = 0;
    while (v) {
        v &= v - 1;
        n++;
    }
    return n;
}

volatile unsigned sink;

void _start(void) {
    static const unsigned char text[] = "source lines";
    sink = hash(text, sizeof text - 1) + (unsigned)count_bits(sink);
    for (;;)
        ;
}
