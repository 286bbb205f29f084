/* A shared library a strategy ships with its code (hp15:OwnLib): rdtscp and clflush. */
#include <stdint.h>
#include <x86intrin.h>
uint64_t probe(const volatile char *p) {
    unsigned aux;
    uint64_t t0 = __rdtscp(&aux);
    (void)*p;
    uint64_t t1 = __rdtscp(&aux);
    _mm_clflush((const void *)p);
    return t1 - t0;
}
