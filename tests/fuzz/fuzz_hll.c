/* fuzz_hll.c -- libFuzzer harness for the HyperLogLog C core (hll.c).
 *
 * Build and run: see tests/fuzz/README.md.  Every input is an untrusted
 * string that goes through the same entry points the Python layer uses
 * (header check, lazy sparse walk, count, add, batch add, merge, promote),
 * under AddressSanitizer + UndefinedBehaviorSanitizer.  Besides "no crash,
 * no leak, no out-of-bounds access" the harness checks semantics against
 * an independent register model whenever the input is a clean, valid HLL:
 *
 *   input:  | mode | p1 | p2 | p3 | payload ............................ |
 *            mode bit 0  synthesise a header in front of the payload
 *                 bit 1  ... with the dense encoding (payload padded/cut)
 *                 bit 2  cache flag valid in the synthesised header
 *                 bit 3  split the payload at p2 into two strings A and B
 *                 bit 7  sparse_max = 3000, else p1 * 16
 *            p3        bits 0-4: number of register writes to try;
 *                      bit 5: also decode, count and (with mode bit 3)
 *                      merge; bit 6: also add
 *                      elements (single and batch); bit 7: also promote
 *                      (the heavy steps are optional so the fuzzer runs
 *                      more inputs per second)
 *
 * Model checks on a clean valid A (sparse opcodes exactly covering 16384
 * registers with no truncated XZERO, or dense): every write raises exactly
 * one register to max(old, count) and reports "changed" exactly when it
 * did; the value stays valid; a sparse value only grows up to sparse_max;
 * a dense one keeps 12304 bytes; PFMERGE-style merges give the register
 * max; promotion keeps every register.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hll.h"

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "fuzz_hll: check failed at line %d: %s\n", __LINE__, #cond); \
    abort(); } } while (0)

/* Our own reference decoder: 1 and the registers if `s` is a clean valid
 * HLL, else 0.  Written independently of hll.c on purpose. */
static int ref_decode(const uint8_t *s, size_t len, uint8_t *regs)
{
    if (len < 16 || memcmp(s, "HYLL", 4) != 0 || s[4] > 1) return 0;
    memset(regs, 0, FR_HLL_REGISTERS);
    if (s[4] == 0) {
        if (len != FR_HLL_DENSE_SIZE) return 0;
        for (int i = 0; i < FR_HLL_REGISTERS; i += 4) {
            const uint8_t *b = s + 16 + (i / 4) * 3;
            regs[i] = b[0] & 63;
            regs[i + 1] = (uint8_t)((b[0] >> 6) | ((b[1] & 15) << 2));
            regs[i + 2] = (uint8_t)((b[1] >> 4) | ((b[2] & 3) << 4));
            regs[i + 3] = b[2] >> 2;
        }
        return 1;
    }
    size_t pos = 16;
    long idx = 0;
    while (pos < len) {
        uint8_t op = s[pos];
        if ((op & 0xc0) == 0) { idx += (op & 0x3f) + 1; pos += 1; }
        else if ((op & 0xc0) == 0x40) {
            if (pos + 1 >= len) return 0; /* truncated XZERO: not clean */
            idx += (((op & 0x3f) << 8) | s[pos + 1]) + 1; pos += 2;
        } else {
            int run = (op & 3) + 1, val = ((op >> 2) & 0x1f) + 1;
            if (idx + run > FR_HLL_REGISTERS) return 0;
            for (int k = 0; k < run; k++) regs[idx++] = (uint8_t)val;
            pos += 1;
        }
        if (idx > FR_HLL_REGISTERS) return 0;
    }
    return idx == FR_HLL_REGISTERS;
}

static uint8_t scratch[FR_HLL_DENSE_SIZE + 65536];

/* Build string A (or B) from the payload per the mode bits. */
static size_t make_string(uint8_t mode, const uint8_t *p, size_t n, uint8_t *out, size_t cap)
{
    if (!(mode & 1)) {
        if (n > cap) n = cap;
        memcpy(out, p, n);
        return n;
    }
    memcpy(out, "HYLL", 4);
    out[4] = (mode & 2) ? FR_HLL_DENSE : FR_HLL_SPARSE;
    memset(out + 5, 0, 11);
    if (!(mode & 4)) out[15] = 0x80;
    if (mode & 2) {
        memset(out + 16, 0, FR_HLL_DENSE_PAYLOAD);
        memcpy(out + 16, p, n < FR_HLL_DENSE_PAYLOAD ? n : FR_HLL_DENSE_PAYLOAD);
        return FR_HLL_DENSE_SIZE;
    }
    if (n > cap - 16) n = cap - 16;
    memcpy(out + 16, p, n);
    return 16 + n;
}

static void check_sets(fr_hll *h, int clean, uint8_t *model, const uint8_t *p, size_t n,
                       int writes, size_t smax)
{
    size_t minlen = h->len;
    int wrote = 0;
    for (int w = 0; w < writes && n >= 3; w++, p += 3, n -= 3) {
        uint32_t index = ((uint32_t)p[0] | ((uint32_t)p[1] << 8)) & (FR_HLL_REGISTERS - 1);
        int count = 1 + p[2] % 51;
        int rc = fr_hll_set(h, index, count, smax);
        CHECK(rc != FR_HLL_ERR_NOMEM);
        wrote = 1;
        if (!clean) continue;
        CHECK(rc == 0 || rc == 1);
        CHECK(rc == (count > model[index]));
        if (rc) model[index] = (uint8_t)count;
        if (fr_hll_is_sparse(h)) CHECK(h->len <= minlen || h->len <= smax);
        else CHECK(h->len == FR_HLL_DENSE_SIZE);
    }
    if (clean && wrote) {
        uint8_t *after = malloc(FR_HLL_REGISTERS);
        CHECK(ref_decode(h->buf, h->len, after));
        CHECK(memcmp(after, model, FR_HLL_REGISTERS) == 0);
        free(after);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    uint8_t mode = data[0], p1 = data[1], p2 = data[2], p3 = data[3];
    const uint8_t *payload = data + 4;
    size_t plen = size - 4, alen_in = plen, blen_in = 0;
    if (mode & 8) {
        alen_in = (size_t)p2 * plen / 256;
        blen_in = plen - alen_in;
    }
    size_t smax = (mode & 0x80) ? FR_HLL_SPARSE_MAX_BYTES_DEFAULT : (size_t)p1 * 16;

    size_t alen = make_string(mode, payload, alen_in, scratch, sizeof scratch);
    if (fr_hll_check_header(scratch, alen) != FR_HLL_OK) return 0;
    fr_hll h;
    CHECK(fr_hll_init_bytes(&h, scratch, alen) == FR_HLL_OK);

    uint8_t *model = malloc(FR_HLL_REGISTERS), *regs = malloc(FR_HLL_REGISTERS);
    int clean = ref_decode(h.buf, h.len, model);
    int valid = fr_hll_validate(&h) == FR_HLL_OK;
    if (clean) CHECK(valid);
    if (!(p3 & 0x20)) {
        /* skip the decode and count checks */
    } else if (valid) {
        CHECK(fr_hll_registers(&h, regs) == FR_HLL_OK);
        if (clean) CHECK(memcmp(regs, model, FR_HLL_REGISTERS) == 0);
    } else {
        /* one validity rule for count, merge and promotion */
        CHECK(fr_hll_registers(&h, regs) == FR_HLL_ERR_CORRUPT);
    }

    /* PFCOUNT: cached value trusted; otherwise computed and cached. */
    if (p3 & 0x20) {
        fr_hll c;
        uint64_t card, again;
        CHECK(fr_hll_copy(&c, &h) == FR_HLL_OK);
        int cached = fr_hll_cache_is_valid(&c);
        int rc = fr_hll_count(&c, &card);
        if (valid || cached) {
            CHECK(rc == FR_HLL_OK);
            CHECK(fr_hll_count(&c, &again) == FR_HLL_OK && again == card);
        } else {
            CHECK(rc == FR_HLL_ERR_CORRUPT);
            CHECK(memcmp(c.buf, h.buf, h.len) == 0);
        }
        fr_hll_release(&c);
    }

    /* Register writes (the heart of PFADD) with the model. */
    check_sets(&h, clean, model, payload, plen, p3 & 31, smax);

    /* Element adds and batch adds: no model, but no crash and, when clean,
     * validity preserved. */
    if (p3 & 0x40) {
        size_t done;
        for (size_t off = 0; off + 8 <= plen && off < 64; off += 8)
            (void)fr_hll_add(&h, payload + off, 8, smax);
        uint64_t ints[4] = {0};
        memcpy(ints, payload, plen < sizeof ints ? plen : sizeof ints);
        (void)fr_hll_add_many_u64(&h, ints, 4, smax, &done);
        (void)fr_hll_add_many_fixed(&h, payload, 3, plen / 3 < 16 ? plen / 3 : 16, smax, &done);
        if (clean) CHECK(fr_hll_validate(&h) == FR_HLL_OK);
    }

    /* Unions and PFMERGE against B. */
    if (blen_in && (p3 & 0x20)) {
        static uint8_t bbuf[FR_HLL_DENSE_SIZE + 65536];
        size_t blen = make_string((uint8_t)(mode >> 4), payload + alen_in, blen_in, bbuf, sizeof bbuf);
        if (fr_hll_check_header(bbuf, blen) == FR_HLL_OK) {
            fr_hll b;
            CHECK(fr_hll_init_bytes(&b, bbuf, blen) == FR_HLL_OK);
            uint8_t *max = calloc(FR_HLL_REGISTERS, 1);
            int ra = fr_hll_merge_max(max, &h);
            int rb = fr_hll_merge_max(max, &b);
            (void)fr_hll_count_max(max);
            int use_dense = !fr_hll_is_sparse(&h) || !fr_hll_is_sparse(&b);
            int nonzero = 0;
            for (int i = 0; i < FR_HLL_REGISTERS; i++) nonzero += max[i] != 0;
            /* A sparse PFMERGE costs one opcode walk per non-zero register;
             * big sparse ones are left to the unit and compat tests so the
             * fuzzer keeps its pace. */
            if (ra == FR_HLL_OK && rb == FR_HLL_OK && (use_dense || nonzero <= 256)) {
                int clean_a = ref_decode(h.buf, h.len, model);
                CHECK(fr_hll_store_max(&h, max, use_dense, smax) == FR_HLL_OK);
                CHECK(!fr_hll_cache_is_valid(&h));
                if (clean_a) {
                    CHECK(ref_decode(h.buf, h.len, regs));
                    CHECK(memcmp(regs, max, FR_HLL_REGISTERS) == 0);
                    if (use_dense) CHECK(!fr_hll_is_sparse(&h));
                }
            }
            free(max);
            fr_hll_release(&b);
        }
    }

    /* Promotion keeps every register. */
    if (p3 & 0x80) {
        int clean_now = ref_decode(h.buf, h.len, model);
        int rc = fr_hll_to_dense(&h);
        CHECK(rc != FR_HLL_ERR_NOMEM);
        if (clean_now) {
            CHECK(rc == FR_HLL_OK && !fr_hll_is_sparse(&h) && h.len == FR_HLL_DENSE_SIZE);
            CHECK(ref_decode(h.buf, h.len, regs));
            CHECK(memcmp(regs, model, FR_HLL_REGISTERS) == 0);
        }
        uint64_t card;
        (void)fr_hll_count(&h, &card);
    }

    free(model);
    free(regs);
    fr_hll_release(&h);
    return 0;
}
