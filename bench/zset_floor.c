/* zset_floor.c -- what the sorted-set core costs with no Python around it:
 * the memory floor under the Engine's ZREVRANK, ZINCRBY and ZCOUNT at 1M members.
 *
 * Build and run from the project root:
 *
 *     cc -O3 -DNDEBUG -Isrc/fastrank/structures bench/zset_floor.c src/fastrank/structures/zset.c -o /tmp/zset_floor -lm
 *     /tmp/zset_floor            # 1,000,000 members
 *     /tmp/zset_floor 100000     # another size
 *     /tmp/zset_floor 1000 4     # and a pointer chase up to 4 MB (default 256)
 *
 * It prints:
 *   1. the latency of one dependent load (a pointer chase over a random
 *      cycle of 64-byte lines) by working-set size: what a cache miss costs
 *      on this machine once the data outgrows the caches;
 *   2. for a zset of N members shaped like bench_scripting.py's board
 *      (9-digit ids, integer scores in [0, 1e6)), per operation, best of 5:
 *      fr_zset_rank_of (ZREVRANK; then the same ranks with each member's
 *      bytes read in op order, in cache as a caller's are, where the first
 *      row reads each from a random place in a 16 MB array: one more miss
 *      on the chain of every rank), fr_zset_incr by 1..100 (ZINCRBY: a move),
 *      and a ZCOUNT bound (how many score below x) one by one, as each
 *      structure counts best (the tree: fr_zset_count_in_range, one
 *      descent, what ZCOUNT runs; the skip list: the rank of the first
 *      member in range, fr_zset_first_in_range) and 16 at a time
 *      (fr_zset_count_below_batch: a batch call), the first member from a bound with its
 *      rank (fr_zset_first_in_range on both: where ZRANGEBYSCORE starts),
 *      the around-me window of a leaderboard
 *      (the member's rank, then the 11 members from 5 places above it, as
 *      each structure reads a window best: the tree gathers them from its
 *      leaves, the skip list followed links), and the bytes the set holds
 *      per member.
 *
 * The same file builds against an older zset.c (the skip list, from git
 * history) for side-by-side runs: bench/results/zset-bptree.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "zset.h"

/* Nanoseconds per load of a chase through `bytes` of memory. */
static double chase_ns(size_t bytes)
{
    size_t n = bytes / 64, i, p = 0;
    uint64_t *line = aligned_alloc(64, n * 64);
    size_t *order = malloc(n * sizeof *order);
    long k, steps = 5000000;
    double t;
    for (i = 0; i < n; i++)
        order[i] = i;
    for (i = n - 1; i > 0; i--) { /* a random cycle through every line */
        size_t j = rng() % (i + 1), tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (i = 0; i < n; i++)
        line[order[i] * 8] = order[(i + 1) % n] * 8;
    t = now();
    for (k = 0; k < steps; k++)
        p = line[p];
    t = now() - t;
    if (p == 1) /* keeps the chase from being optimised away */
        puts("");
    free(line);
    free(order);
    return t / (double)steps * 1e9;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000, ops = 200000, i, mb;
    size_t chase_max = argc > 2 ? (size_t)atol(argv[2]) : 256;
    char (*member)[16] = malloc(n * sizeof *member);
    size_t *len = malloc(n * sizeof *len), *pick = malloc(ops * sizeof *pick);
    double *amount = malloc(ops * sizeof *amount), *bound = malloc(ops * sizeof *bound);
    char (*given)[16] = malloc(ops * sizeof *given); /* op i's member, in op order */
    double best[7] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9}, t;
    uint64_t sink = 0;
    fr_zset *s = fr_zset_new();
    int rep;

    printf("dependent load, by working set:\n");
    for (mb = 1; mb <= chase_max; mb *= 2)
        printf("  %4zu MB  %6.1f ns\n", mb, chase_ns(mb << 20));

    for (i = 0; i < n; i++) {
        len[i] = (size_t)snprintf(member[i], sizeof member[i], "%llu",
                                  (unsigned long long)(100000000 + rng() % 900000000));
        fr_zset_add(s, member[i], len[i], (double)(rng() % 1000000), 0);
    }
    for (i = 0; i < ops; i++) {
        pick[i] = rng() % n;
        amount[i] = (double)(1 + rng() % 100);
        bound[i] = (double)(rng() % 1000000);
        memcpy(given[i], member[pick[i]], sizeof given[i]);
    }
    for (rep = 0; rep < 5; rep++) {
        t = now();
        for (i = 0; i < ops; i++)
            sink += fr_zset_rank_of(s, member[pick[i]], len[pick[i]]);
        t = now() - t;
        best[0] = t < best[0] ? t : best[0];

        t = now(); /* the same ranks, each member's bytes read in order (in cache, as a caller's are) */
        for (i = 0; i < ops; i++)
            sink += fr_zset_rank_of(s, given[i], len[pick[i]]);
        t = now() - t;
        best[6] = t < best[6] ? t : best[6];

        t = now();
        for (i = 0; i < ops; i++) {
            double score, old;
            fr_zset_ref ref;
            int added;
            fr_zset_incr(s, member[pick[i]], len[pick[i]], amount[i], &score, &ref, &old, &added);
        }
        t = now() - t;
        best[1] = t < best[1] ? t : best[1];

        t = now();
        for (i = 0; i < ops; i++) {
#ifdef FR_ZSET_LEAF_CAP /* the tree counts in one descent (what ZCOUNT runs) */
            fr_zset_range r = {-INFINITY, bound[i], 0, 1};
            sink += fr_zset_count_in_range(s, &r);
#else /* the skip list: the rank of the first member in range */
            fr_zset_range r = {bound[i], 1e300, 0, 0};
            uint64_t rank;
            if (fr_zset_first_in_range(s, &r, &rank))
                sink += rank;
#endif
        }
        t = now() - t;
        best[2] = t < best[2] ? t : best[2];

        t = now();
        for (i = 0; i < ops; i++) {
            fr_zset_range r = {bound[i], 1e300, 0, 0};
            uint64_t rank;
            if (fr_zset_first_in_range(s, &r, &rank))
                sink += rank;
        }
        t = now() - t;
        best[5] = t < best[5] ? t : best[5];

        t = now();
        for (i = 0; i + FR_ZSET_BATCH <= ops; i += FR_ZSET_BATCH) {
            uint64_t below[FR_ZSET_BATCH];
            fr_zset_count_below_batch(s, bound + i, 0, FR_ZSET_BATCH, below);
            sink += below[0];
        }
        t = now() - t;
        best[3] = t < best[3] ? t : best[3];

        t = now();
        for (i = 0; i < ops; i++) { /* around me: my rank, then 5 above to 5 below */
            uint64_t r = fr_zset_rank_of(s, member[pick[i]], len[pick[i]]);
#ifdef FR_ZSET_LEAF_CAP /* the tree: one descent, then read the leaves */
            fr_zset_ref w[11];
            sink += fr_zset_gather(s, r > 5 ? r - 5 : 1, 11, 0, w) + w[0];
#else /* the skip list: the node at the rank, then its links */
            fr_zset_ref x = fr_zset_at_rank(s, r > 5 ? r - 5 : 1);
            int k;
            for (k = 0; k < 10 && x; k++)
                x = fr_zset_next(s, x);
            sink += x;
#endif
        }
        t = now() - t;
        best[4] = t < best[4] ? t : best[4];
    }
    printf("zset of %zu members, ns per operation (best of 5 runs of %zu):\n", n, ops);
    printf("  rank of a member (ZREVRANK)        %7.0f\n", best[0] / (double)ops * 1e9);
    printf("  rank, the member's bytes in cache  %7.0f\n", best[6] / (double)ops * 1e9);
    printf("  incr by 1..100 (ZINCRBY, a move)   %7.0f\n", best[1] / (double)ops * 1e9);
    printf("  count below a bound, one by one    %7.0f\n", best[2] / (double)ops * 1e9);
    printf("  count below a bound, 16 a batch    %7.0f\n", best[3] / (double)ops * 1e9);
    printf("  first member from a bound, rank    %7.0f\n", best[5] / (double)ops * 1e9);
    printf("  around me (rank, then 11 members)  %7.0f\n", best[4] / (double)ops * 1e9);
    printf("  bytes per member (fr_zset_memory)  %7.1f\n", (double)fr_zset_memory(s) / (double)n);
    fr_zset_free(s);
    return sink == 42;
}
