/* zset_ab.c -- two builds of zset.c in one process, timed round by round in
 * alternation, so a loaded machine slows both alike: ZREVRANK
 * (fr_zset_rank_of), a ZCOUNT bound (fr_zset_first_in_range from a random
 * score) and ZINCRBY by 1..100 (fr_zset_incr, a move) at N members, 20,000
 * calls a round, each build a set of its own.
 *
 * Each side is this file compiled with -DSIDE=A_ (or B_) and linked with
 * one zset.c into an object that exports only the side's four functions;
 * then this file without SIDE is the driver.  From the project root, with
 * the older zset.c/zset.h in /tmp/zold:
 *
 *     side() { cc -O3 -DNDEBUG -c -I$2 -DSIDE=$1 bench/zset_ab.c -o /tmp/$1d.o &&
 *              cc -O3 -DNDEBUG -c -I$2 $2/zset.c -o /tmp/$1z.o &&
 *              ld -r /tmp/$1d.o /tmp/$1z.o -o /tmp/$1r.o &&
 *              objcopy -G $1build -G $1ranks -G $1counts -G $1incrs /tmp/$1r.o /tmp/$1.o; }
 *     side A_ /tmp/zold && side B_ src/fastrank/structures &&
 *         cc -O2 bench/zset_ab.c /tmp/A_.o /tmp/B_.o -o /tmp/zset_ab -lm
 *     /tmp/zset_ab 1000000 120      # members, rounds (at most 400)
 *
 * It prints, per side, the min / 25th percentile / median ns per call over
 * the rounds, and the per-round ratio B/A (25th, 50th, 75th percentile).
 * Both sides the same build measure the harness itself: about 1.00.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef SIDE
#include "zset.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define NAME(x) CAT(SIDE, x)

void *NAME(build)(size_t n, char (*member)[16], const size_t *len, const double *score)
{
    fr_zset *s = fr_zset_new();
    size_t i;
    for (i = 0; i < n; i++)
        fr_zset_add(s, member[i], len[i], score[i], 0);
    return s;
}

uint64_t NAME(ranks)(void *s, char (*member)[16], const size_t *len, const size_t *pick, size_t ops)
{
    uint64_t sink = 0;
    size_t i;
    for (i = 0; i < ops; i++)
        sink += fr_zset_rank_of((fr_zset *)s, member[pick[i]], len[pick[i]]);
    return sink;
}

uint64_t NAME(counts)(void *s, const double *bound, size_t ops)
{
    uint64_t sink = 0, rank;
    size_t i;
    for (i = 0; i < ops; i++) {
        fr_zset_range r = {bound[i], 1e300, 0, 0};
        if (fr_zset_first_in_range((fr_zset *)s, &r, &rank))
            sink += rank;
    }
    return sink;
}

void NAME(incrs)(void *s, char (*member)[16], const size_t *len, const size_t *pick,
                 const double *amount, size_t ops)
{
    size_t i;
    for (i = 0; i < ops; i++) {
        double score, old;
        fr_zset_ref ref;
        int added;
        fr_zset_incr((fr_zset *)s, member[pick[i]], len[pick[i]], amount[i], &score, &ref, &old, &added);
    }
}
#else
#include "bench_clock.h"

#define SIDE_API(P)                                                                              \
    void *P##build(size_t, char (*)[16], const size_t *, const double *);                       \
    uint64_t P##ranks(void *, char (*)[16], const size_t *, const size_t *, size_t);             \
    uint64_t P##counts(void *, const double *, size_t);                                          \
    void P##incrs(void *, char (*)[16], const size_t *, const size_t *, const double *, size_t);
SIDE_API(A_)
SIDE_API(B_)

#define MAX_ROUNDS 400

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void report(const char *what, double *a, double *b, size_t rounds, size_t ops)
{
    double ratio[MAX_ROUNDS];
    size_t r;
    for (r = 0; r < rounds; r++)
        ratio[r] = b[r] / a[r];
    qsort(a, rounds, sizeof *a, by_value);
    qsort(b, rounds, sizeof *b, by_value);
    qsort(ratio, rounds, sizeof *ratio, by_value);
    printf("%-6s A min %6.0f p25 %6.0f med %6.0f | B min %6.0f p25 %6.0f med %6.0f ns"
           " | B/A per round p25 %.3f med %.3f p75 %.3f\n",
           what, a[0] / ops * 1e9, a[rounds / 4] / ops * 1e9, a[rounds / 2] / ops * 1e9,
           b[0] / ops * 1e9, b[rounds / 4] / ops * 1e9, b[rounds / 2] / ops * 1e9, ratio[rounds / 4],
           ratio[rounds / 2], ratio[3 * rounds / 4]);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000, ops = 20000, i, r;
    size_t rounds = argc > 2 ? (size_t)atol(argv[2]) : 120;
    char (*member)[16] = malloc(n * sizeof *member);
    size_t *len = malloc(n * sizeof *len), *pick = malloc(ops * sizeof *pick);
    double *score = malloc(n * sizeof *score), *amount = malloc(ops * sizeof *amount);
    double *bound = malloc(ops * sizeof *bound);
    static double ra[MAX_ROUNDS], rb[MAX_ROUNDS], ia[MAX_ROUNDS], ib[MAX_ROUNDS];
    static double ca[MAX_ROUNDS], cb[MAX_ROUNDS];
    uint64_t sink = 0;
    void *a, *b;
    if (rounds < 4 || rounds > MAX_ROUNDS)
        rounds = rounds < 4 ? 4 : MAX_ROUNDS;
    for (i = 0; i < n; i++) { /* bench_scripting.py's board: 9-digit ids, scores in [0, 1e6) */
        len[i] = (size_t)snprintf(member[i], sizeof member[i], "%llu",
                                  (unsigned long long)(100000000 + rng() % 900000000));
        score[i] = (double)(rng() % 1000000);
    }
    a = A_build(n, member, len, score);
    b = B_build(n, member, len, score);
    for (r = 0; r < rounds; r++) {
        int b_first = (int)(r & 1);
        double t;
        for (i = 0; i < ops; i++) {
            pick[i] = rng() % n;
            amount[i] = (double)(1 + rng() % 100);
            bound[i] = (double)(rng() % 1000000);
        }
        if (b_first) {
            t = now(), sink += B_ranks(b, member, len, pick, ops), rb[r] = now() - t;
            t = now(), sink += A_ranks(a, member, len, pick, ops), ra[r] = now() - t;
            t = now(), sink += B_counts(b, bound, ops), cb[r] = now() - t;
            t = now(), sink += A_counts(a, bound, ops), ca[r] = now() - t;
            t = now(), B_incrs(b, member, len, pick, amount, ops), ib[r] = now() - t;
            t = now(), A_incrs(a, member, len, pick, amount, ops), ia[r] = now() - t;
        } else {
            t = now(), sink += A_ranks(a, member, len, pick, ops), ra[r] = now() - t;
            t = now(), sink += B_ranks(b, member, len, pick, ops), rb[r] = now() - t;
            t = now(), sink += A_counts(a, bound, ops), ca[r] = now() - t;
            t = now(), sink += B_counts(b, bound, ops), cb[r] = now() - t;
            t = now(), A_incrs(a, member, len, pick, amount, ops), ia[r] = now() - t;
            t = now(), B_incrs(b, member, len, pick, amount, ops), ib[r] = now() - t;
        }
    }
    printf("%zu members, %zu rounds of %zu calls, ns per call\n", n, rounds, ops);
    report("rank", ra, rb, rounds, ops);
    report("count", ca, cb, rounds, ops);
    report("incr", ia, ib, rounds, ops);
    return sink == 42;
}
#endif
