#include <stdint.h>
volatile uint32_t *const tohost = (uint32_t *)0x80001000;
static int table[64];
const char msg[] = "hello";
struct node { struct node *next; int v; };
static struct node nodes[8];
double fsum(double a, float b) { return a * 2.5 + b; }
static int __attribute__((noinline)) fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int sw(int x) { switch (x) { case 0: return 3; case 1: return table[2]; case 2: return fib(x); case 3: return msg[1]; case 4: return 9; case 5: return x*x; default: return -1; } }
long long mix(long long a, long long b) { return a / (b | 1) + a % 7 + (a >> 3); }
int main(void) {
  int s = 0;
  for (int i = 0; i < 64; i++) table[i] = i * 3;
  for (int i = 0; i < 8; i++) { nodes[i].next = &nodes[(i + 1) % 8]; nodes[i].v = i; }
  struct node *p = nodes; for (int i = 0; i < 20; i++) { s += p->v; p = p->next; }
  s += sw(s & 7) + fib(10) + (int)fsum(1.0, 2.0f) + (int)mix(s, 5);
  __atomic_fetch_add(&table[0], 1, __ATOMIC_SEQ_CST);
  return s;
}
void _start(void) { *tohost = (uint32_t)main(); for (;;) ; }
