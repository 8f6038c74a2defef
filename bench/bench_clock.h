/* bench_clock.h -- what the C benchmarks share: a monotonic clock in
 * seconds and the splitmix64 generator (seeded 1, so every program and
 * build draws the same sequence).  Header only: each program is one file
 * compiled on its own (see the recipes at the top of zset_floor.c and
 * zset_ab.c). */
#ifndef FR_BENCH_CLOCK_H
#define FR_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng_state = 1;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
