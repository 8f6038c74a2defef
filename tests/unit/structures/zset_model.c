/* zset_model.c -- model-based random test of the sorted set's C core.
 *
 * Built by test_zset_model.py with tiny nodes (-DFR_ZSET_LEAF_CAP=4
 * -DFR_ZSET_INNER_CAP=4) under AddressSanitizer and UBSan, so that splits,
 * merges, borrows and root changes happen on almost every step.  A plain
 * array of (member, score, present) is the model; after every operation
 * the tree's answers are compared with the model's sorted order and
 * fr_zset_check verifies every invariant (counts, order, fill, parent
 * links, separators, index, arena).
 *
 * usage: zset_model SEED STEPS UNIVERSE
 */
#include "zset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXU 2000

static char *mem[MAXU];
static size_t mlen[MAXU];
static double score[MAXU];
static int present[MAXU];
static int universe;
static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int cmp_bytes(const char *a, size_t la, const char *b, size_t lb)
{
    size_t n = la < lb ? la : lb;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return (la > lb) - (la < lb);
}

static int cmp_idx(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    if (score[a] != score[b])
        return score[a] < score[b] ? -1 : 1;
    return cmp_bytes(mem[a], mlen[a], mem[b], mlen[b]);
}

static int order[MAXU];
static int norder;

static void model_sort(void)
{
    int i;
    norder = 0;
    for (i = 0; i < universe; i++)
        if (present[i])
            order[norder++] = i;
    qsort(order, (size_t)norder, sizeof order[0], cmp_idx);
}

static int idx_of(const fr_zset *s, fr_zset_ref r)
{
    size_t len;
    const char *m = fr_zset_member(s, r, &len);
    int i;
    for (i = 0; i < universe; i++)
        if (mlen[i] == len && (len == 0 || memcmp(mem[i], m, len) == 0))
            return i;
    return -1;
}

#define FAIL(...)                                                              \
    do {                                                                       \
        fprintf(stderr, "step %ld: ", step);                                   \
        fprintf(stderr, __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                 \
        exit(1);                                                               \
    } while (0)

static long step;
static long shrinks;
static long pooled_steps; /* steps that ended with tree nodes in the pool */

static void verify(const fr_zset *s)
{
    char err[256];
    int k;
    fr_zset_ref refs[MAXU];
    size_t got;
    if (fr_zset_check(s, err, sizeof err))
        FAIL("check: %s", err);
    model_sort();
    if ((int)fr_zset_len(s) != norder)
        FAIL("length %llu, model %d", (unsigned long long)fr_zset_len(s), norder);
    got = fr_zset_gather(s, 1, MAXU, 0, refs);
    if ((int)got != norder)
        FAIL("gather %zu of %d", got, norder);
    for (k = 0; k < norder; k++) {
        if (idx_of(s, refs[k]) != order[k])
            FAIL("rank %d: member differs", k + 1);
        if (fr_zset_score(s, refs[k]) != score[order[k]])
            FAIL("rank %d: score differs", k + 1);
        if (fr_zset_rank(s, refs[k]) != (uint64_t)k + 1)
            FAIL("rank of %d", k + 1);
        if (fr_zset_next(s, refs[k]) != (k + 1 < norder ? refs[k + 1] : FR_ZSET_NIL))
            FAIL("next at %d", k + 1);
        if (fr_zset_prev(s, refs[k]) != (k > 0 ? refs[k - 1] : FR_ZSET_NIL))
            FAIL("prev at %d", k + 1);
        { /* gather from a member, both ways */
            fr_zset_ref w[3];
            int rev = k & 1, e;
            int want = rev ? (k + 1 < 3 ? k + 1 : 3) : (norder - k < 3 ? norder - k : 3);
            if ((int)fr_zset_gather_from(s, refs[k], 3, rev, w) != want)
                FAIL("gather_from at %d: count", k + 1);
            for (e = 0; e < want; e++)
                if (w[e] != refs[rev ? k - e : k + e])
                    FAIL("gather_from at %d: member %d", k + 1, e);
        }
    }
    if (norder) {
        got = fr_zset_gather(s, (uint64_t)norder, MAXU, 1, refs);
        if ((int)got != norder || idx_of(s, refs[0]) != order[norder - 1] || idx_of(s, refs[got - 1]) != order[0])
            FAIL("reverse gather");
    }
}

static void check_ranges(const fr_zset *s)
{
    double a = (double)(rnd() % 24) - 2, b = (double)(rnd() % 24) - 2;
    fr_zset_range r = {a, b, (int)(rnd() & 1), (int)(rnd() & 1)};
    int k, first = -1, last = -1;
    uint64_t rank = 0, below[2];
    fr_zset_ref x;
    for (k = 0; k < norder; k++) {
        double v = score[order[k]];
        int in = (r.minex ? v > a : v >= a) && (r.maxex ? v < b : v <= b);
        if (in && first < 0)
            first = k;
        if (in)
            last = k;
    }
    x = fr_zset_first_in_range(s, &r, &rank);
    if ((first < 0) != (x == FR_ZSET_NIL) || (x && (idx_of(s, x) != order[first] || rank != (uint64_t)first + 1)))
        FAIL("first_in_range [%g %g]", a, b);
    x = fr_zset_last_in_range(s, &r, &rank);
    if ((last < 0) != (x == FR_ZSET_NIL) || (x && (idx_of(s, x) != order[last] || rank != (uint64_t)last + 1)))
        FAIL("last_in_range [%g %g]", a, b);
    {
        double xs[2] = {a, b};
        uint64_t want[2] = {0, 0};
        int inc = (int)(rnd() & 1), j;
        fr_zset_count_below_batch(s, xs, inc, 2, below);
        for (j = 0; j < 2; j++)
            for (k = 0; k < norder; k++)
                want[j] += inc ? score[order[k]] <= xs[j] : score[order[k]] < xs[j];
        if (below[0] != want[0] || below[1] != want[1])
            FAIL("count_below");
    }
}

/* Lex ranges on a one-score set: compared against the model order. */
static void check_lex(const fr_zset *s)
{
    int i = (int)(rnd() % (unsigned)universe), j = (int)(rnd() % (unsigned)universe), k, first = -1, last = -1;
    fr_zset_lexrange r = {mem[i], mlen[i], mem[j], mlen[j], (int)(rnd() & 1), (int)(rnd() & 1), 0, 0};
    uint64_t rank = 0;
    fr_zset_ref x;
    if (!fr_zset_one_score(s))
        return;
    r.mininf = rnd() % 8 == 0;
    r.maxinf = rnd() % 8 == 0;
    for (k = 0; k < norder; k++) {
        int c1 = cmp_bytes(mem[order[k]], mlen[order[k]], r.min, r.minlen);
        int c2 = cmp_bytes(mem[order[k]], mlen[order[k]], r.max, r.maxlen);
        int in = (r.mininf || (r.minex ? c1 > 0 : c1 >= 0)) && (r.maxinf || (r.maxex ? c2 < 0 : c2 <= 0));
        if (in && first < 0)
            first = k;
        if (in)
            last = k;
    }
    x = fr_zset_first_in_lex(s, &r, &rank);
    if ((first < 0) != (x == FR_ZSET_NIL) || (x && (idx_of(s, x) != order[first] || rank != (uint64_t)first + 1)))
        FAIL("first_in_lex");
    x = fr_zset_last_in_lex(s, &r, &rank);
    if ((last < 0) != (x == FR_ZSET_NIL) || (x && (idx_of(s, x) != order[last] || rank != (uint64_t)last + 1)))
        FAIL("last_in_lex");
    if (fr_zset_count_in_lex(s, &r) != (uint64_t)(first < 0 ? 0 : last - first + 1))
        FAIL("count_in_lex");
}

int main(int argc, char **argv)
{
    long steps = argc > 2 ? atol(argv[2]) : 20000;
    int i, one_score = 0;
    fr_zset *s;
    rng_state = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    universe = argc > 3 ? atoi(argv[3]) : 300;
    if (universe < 2 || universe > MAXU)
        return 2;
    for (i = 0; i < universe; i++) {
        char buf[400];
        int n;
        if (i % 97 == 5) { /* a long member, stored out of line */
            memset(buf, 'a' + i % 26, 300);
            n = 300 + snprintf(buf + 300, 50, "%d", i);
        } else {
            n = snprintf(buf, sizeof buf, i % 3 ? "m%d" : "mem:%05d", (int)(rnd() % 100000));
            buf[n++] = (char)('A' + i % 50); /* unique */
            n += snprintf(buf + n, 16, "%d", i);
        }
        mem[i] = (char *)malloc((size_t)n);
        memcpy(mem[i], buf, (size_t)n);
        mlen[i] = (size_t)n;
    }
    s = fr_zset_new();
    for (step = 0; step < steps; step++) {
        int op = (int)(rnd() % 100);
        int m = (int)(rnd() % (unsigned)universe);
        double sc = one_score ? 7.0 : (double)(rnd() % 20);
        if (step % 3000 == 0)
            one_score = !one_score && (rnd() & 1);
        if (op < 35) {
            int flags = rnd() % 10 == 0 ? FR_ZSET_NX : 0;
            int rc = fr_zset_add(s, mem[m], mlen[m], sc, flags);
            int want = !present[m] ? 1 : (flags & FR_ZSET_NX) || score[m] == sc ? 0 : 2;
            if (rc != want)
                FAIL("add returned %d, want %d", rc, want);
            if (want) {
                present[m] = 1;
                score[m] = sc;
            }
        } else if (op < 55) {
            double d = one_score ? 0.0 : (double)((int)(rnd() % 9) - 4), ns;
            fr_zset_ref ref;
            double old;
            int added;
            if (fr_zset_incr(s, mem[m], mlen[m], d, &ns, &ref, &old, &added))
                FAIL("incr failed");
            score[m] = (present[m] ? score[m] : 0.0) + d;
            present[m] = 1;
            if (ns != score[m])
                FAIL("incr result");
        } else if (op < 72) {
            int rc = fr_zset_delete(s, mem[m], mlen[m]);
            if (rc != present[m])
                FAIL("delete returned %d", rc);
            present[m] = 0;
        } else if (op < 78) {
            fr_zset_ref x = fr_zset_find(s, mem[m], mlen[m]);
            if ((x != FR_ZSET_NIL) != present[m])
                FAIL("find");
            if (x) {
                uint64_t ranks[2], want;
                fr_zset_prefetch_move(s, x); /* a hint: reads only the leaf's lines */
                model_sort();
                if (fr_zset_set_score_ranked(s, x, sc, ranks))
                    FAIL("set_score failed");
                for (want = 0; order[want] != m; want++)
                    ;
                if (ranks[0] != want + 1)
                    FAIL("ranks[0] %llu, want %llu", (unsigned long long)ranks[0], (unsigned long long)want + 1);
                score[m] = sc;
                model_sort();
                for (want = 0; order[want] != m; want++)
                    ;
                if (ranks[1] != want + 1 || fr_zset_rank(s, x) != want + 1)
                    FAIL("ranks[1]");
            }
        } else if (op < 81) {
            model_sort();
            if (norder) {
                uint64_t a = 1 + rnd() % (uint64_t)norder, b = a + rnd() % 6, k;
                if (b > (uint64_t)norder)
                    b = (uint64_t)norder;
                for (k = a; k <= b; k++)
                    present[order[k - 1]] = 0;
                if (fr_zset_delete_range_by_rank(s, a, b) != b - a + 1)
                    FAIL("delete_range_by_rank");
            }
        } else if (op < 84) {
            double a = (double)(rnd() % 22), b = a + (double)(rnd() % 3);
            fr_zset_range r = {a, b, (int)(rnd() & 1), (int)(rnd() & 1)};
            uint64_t want = 0;
            for (i = 0; i < universe; i++) {
                double v = score[i];
                if (present[i] && (r.minex ? v > a : v >= a) && (r.maxex ? v < b : v <= b)) {
                    present[i] = 0;
                    want++;
                }
            }
            if (fr_zset_delete_range_by_score(s, &r) != want)
                FAIL("delete_range_by_score");
        } else if (op < 86 && fr_zset_one_score(s)) {
            int j = (int)(rnd() % (unsigned)universe);
            fr_zset_lexrange r = {mem[m], mlen[m], mem[j], mlen[j], (int)(rnd() & 1), (int)(rnd() & 1), 0, 0};
            uint64_t want = 0;
            for (i = 0; i < universe; i++) {
                int c1 = cmp_bytes(mem[i], mlen[i], r.min, r.minlen);
                int c2 = cmp_bytes(mem[i], mlen[i], r.max, r.maxlen);
                if (present[i] && (r.minex ? c1 > 0 : c1 >= 0) && (r.maxex ? c2 < 0 : c2 <= 0)) {
                    present[i] = 0;
                    want++;
                }
            }
            if (fr_zset_delete_range_by_lex(s, &r) != want)
                FAIL("delete_range_by_lex");
        } else if (op < 88) { /* bulk load of a few pairs */
            int k, n = 1 + (int)(rnd() % 40);
            uint64_t added = 0, want = 0;
            if (fr_zset_bulk_begin(s, (uint64_t)n))
                FAIL("bulk_begin");
            for (k = 0; k < n; k++) {
                int q = (int)(rnd() % (unsigned)universe);
                double v = one_score ? 7.0 : (double)(rnd() % 20);
                if (!present[q])
                    want++;
                if (fr_zset_bulk_put(s, mem[q], mlen[q], v, &added))
                    FAIL("bulk_put");
                present[q] = 1;
                score[q] = v;
            }
            fr_zset_bulk_end(s);
            if (added != want)
                FAIL("bulk added %llu, want %llu", (unsigned long long)added, (unsigned long long)want);
        } else if (op < 89) { /* copy, continue on the copy */
            fr_zset *c = fr_zset_copy(s);
            if (!c)
                FAIL("copy");
            fr_zset_free(s);
            s = c;
        } else if (op < 90) {
            int rc;
            model_sort();
            if (norder > 8 && rnd() % 2 == 0) { /* lose most members, then compact */
                uint64_t b = (uint64_t)norder * 7 / 8, k;
                for (k = 1; k <= b; k++)
                    present[order[k - 1]] = 0;
                if (fr_zset_delete_range_by_rank(s, 1, b) != b)
                    FAIL("delete_range_by_rank before shrink");
            }
            rc = fr_zset_shrink(s);
            if (rc < 0)
                FAIL("shrink");
            shrinks += rc;
        } else if (op < 91 && rnd() % 4 == 0) {
            if (fr_zset_clear(s))
                FAIL("clear");
            for (i = 0; i < universe; i++)
                present[i] = 0;
        } else {
            model_sort();
            if (norder) {
                uint64_t k = 1 + rnd() % (uint64_t)norder;
                if (idx_of(s, fr_zset_at_rank(s, k)) != order[k - 1])
                    FAIL("at_rank");
            }
            if (fr_zset_at_rank(s, (uint64_t)norder + 1) != FR_ZSET_NIL || fr_zset_at_rank(s, 0) != FR_ZSET_NIL)
                FAIL("at_rank out of range");
        }
        verify(s);
        check_ranges(s);
        check_lex(s);
        pooled_steps += s->pool.nchunks > 0;
    }
    printf("ok %ld steps, %llu members, memory %zu, %ld compactions, %ld steps pooled\n", steps,
           (unsigned long long)fr_zset_len(s), fr_zset_memory(s), shrinks, pooled_steps);
    fr_zset_free(s);
    for (i = 0; i < universe; i++)
        free(mem[i]);
    return 0;
}
