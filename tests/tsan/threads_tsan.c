/* threads_tsan.c -- the C parts that run on several threads at once, driven
 * from plain pthreads and built with -fsanitize=thread (test_tsan.py):
 *
 *   - CountMinSketch's two-phase blocks (fr_cms_par_*) on 2 and 3 threads;
 *   - Top-K's two-thread pipe (fr_topk_pipe_*): a producer thread and the
 *     consuming caller;
 *   - HyperLogLog's fr_hll_int_max on disjoint parts of one array at once
 *     (what the thread pool does), including the lazily set CPU-feature
 *     and AVX2-switch flags every call reads.
 *
 * Each threaded result must equal the one-thread result byte for byte;
 * ThreadSanitizer reports any data race on stderr.  Exit status 0 = equal. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cms.h"
#include "hll.h"
#include "topk.h"

static uint64_t state = 88172645463325252ULL;

static uint64_t next_random(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

typedef struct {
    fr_cms_par *par;
    int role;
} cms_role;

static void *cms_helper(void *arg)
{
    cms_role *r = arg;
    fr_cms_par_run(r->par, r->role);
    return NULL;
}

static int check_cms(const int64_t *v, size_t n, int threads)
{
    const size_t width = 4096, depth = 5;
    fr_cms one, many;
    uint32_t *out_one = malloc(n * sizeof *out_one), *out_many = malloc(n * sizeof *out_many);
    pthread_t tid[4];
    cms_role roles[4];
    int same;
    fr_cms_init(&one, width, depth);
    fr_cms_init(&many, width, depth);
    fr_cms_incrby_ints(&one, v, 0, n, NULL, 3, out_one);
    fr_cms_par *par = fr_cms_par_new(&many, v, 0, n, NULL, 3, out_many, (size_t)threads, 4096);
    if (par == NULL) {
        fprintf(stderr, "fr_cms_par_new gave NULL\n");
        return 0;
    }
    for (int r = 1; r < threads; r++) {
        roles[r].par = par;
        roles[r].role = r;
        pthread_create(&tid[r], NULL, cms_helper, &roles[r]);
    }
    fr_cms_par_run(par, 0);
    for (int r = 1; r < threads; r++) pthread_join(tid[r], NULL);
    fr_cms_par_free(par);
    fr_cms_add_count(&many, n, NULL, 3);
    same = one.count == many.count && memcmp(one.cells, many.cells, width * depth * 4) == 0 &&
           memcmp(out_one, out_many, n * 4) == 0;
    printf("cms, %d threads: %s\n", threads, same ? "same" : "DIFFERENT");
    fr_cms_release(&one);
    fr_cms_release(&many);
    free(out_one);
    free(out_many);
    return same;
}

static void *topk_producer(void *pipe)
{
    fr_topk_pipe_produce(pipe);
    return NULL;
}

static int check_topk(const int64_t *v, size_t n)
{
    fr_topk one, two;
    pthread_t tid;
    int rc, same;
    fr_topk_init(&one, 10, 8, 7, 0.9, 1);
    fr_topk_init(&two, 10, 8, 7, 0.9, 1);
    fr_topk_add_ints(&one, v, 0, n, NULL, 1);
    fr_topk_pipe *pipe = fr_topk_pipe_new(&two, v, 0, NULL, NULL, n);
    if (pipe == NULL) {
        fprintf(stderr, "fr_topk_pipe_new gave NULL\n");
        return 0;
    }
    pthread_create(&tid, NULL, topk_producer, pipe);
    fr_topk_pipe_wait_started(pipe);
    rc = fr_topk_pipe_consume(pipe);
    pthread_join(tid, NULL);
    fr_topk_pipe_free(pipe);
    same = rc == 0 && memcmp(one.buckets, two.buckets, sizeof(fr_topk_bucket) * 8 * 7) == 0 &&
           memcmp(one.rng, two.rng, sizeof one.rng) == 0;
    for (uint32_t i = 0; same && i < one.k; i++)
        same = one.heap[i].count == two.heap[i].count && one.heap[i].len == two.heap[i].len &&
               (one.heap[i].len == 0 || memcmp(one.heap[i].item, two.heap[i].item, one.heap[i].len) == 0);
    printf("topk, producer + consumer: %s\n", same ? "same" : "DIFFERENT");
    fr_topk_release(&one);
    fr_topk_release(&two);
    return same;
}

typedef struct {
    const uint64_t *vals;
    size_t n;
    uint8_t max[16384];
} hll_part;

static void *hll_part_run(void *arg)
{
    hll_part *p = arg;
    fr_hll_int_max(p->max, p->vals, 0, p->n);
    return NULL;
}

static int check_hll(const uint64_t *u, size_t n)
{
    static hll_part whole, part[2];
    pthread_t tid;
    int same = 1;
    whole.vals = u;
    whole.n = n;
    part[0].vals = u;
    part[0].n = n / 2;
    part[1].vals = u + n / 2;
    part[1].n = n - n / 2;
    hll_part_run(&whole);
    pthread_create(&tid, NULL, hll_part_run, &part[1]);
    hll_part_run(&part[0]);
    pthread_join(tid, NULL);
    for (size_t i = 0; i < 16384; i++) {
        uint8_t m = part[0].max[i] > part[1].max[i] ? part[0].max[i] : part[1].max[i];
        same &= m == whole.max[i];
    }
    printf("hll, two parts at once: %s\n", same ? "same" : "DIFFERENT");
    return same;
}

int main(void)
{
    const size_t n = 300000;
    int64_t *v = malloc(n * sizeof *v);
    uint64_t *u = malloc(n * sizeof *u);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        v[i] = (int64_t)(next_random() % 5000) - 100;   /* a few hot items, some negative */
        u[i] = next_random() >> (next_random() % 64);   /* every digit count */
    }
    ok &= check_cms(v, n, 2);
    ok &= check_cms(v, n, 3);
    ok &= check_topk(v, n);
    ok &= check_hll(u, n);
    free(v);
    free(u);
    return ok ? 0 : 1;
}
