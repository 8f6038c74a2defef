/* packed_gather.h -- members packed in one blob (member r is
 * blob[offsets[r] .. offsets[r + 1])) copied into a new blob in the order of
 * a list of rows, so that later passes read them front to back. */
#ifndef FR_PACKED_GATHER_H
#define FR_PACKED_GATHER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define FR_PREFETCH(p) __builtin_prefetch(p)
#else
#define FR_PREFETCH(p) ((void)0)
#endif

/* Rows read ahead: the offsets of row i + 2 * FR_GATHER_AHEAD and the bytes
 * of row i + FR_GATHER_AHEAD are prefetched, so the random reads overlap. */
#define FR_GATHER_AHEAD 8

/* out receives the members of rows[0..n) one after the other (out must hold
 * their total length), out_offsets[0..n] their offsets in it. The rows must
 * be valid (0 <= r, r + 1 < the offsets' length, offsets non-decreasing).
 * O(n + bytes). */
static inline void fr_packed_gather(const char *blob, const int64_t *offsets, const int64_t *rows, size_t n,
                                    char *out, int64_t *out_offsets) {
    size_t i;
    int64_t at = 0;
    out_offsets[0] = 0;
    for (i = 0; i < n; i++) {
        int64_t r = rows[i], len;
        if (i + 2 * FR_GATHER_AHEAD < n) FR_PREFETCH(offsets + rows[i + 2 * FR_GATHER_AHEAD]);
        if (i + FR_GATHER_AHEAD < n) FR_PREFETCH(blob + offsets[rows[i + FR_GATHER_AHEAD]]);
        len = offsets[r + 1] - offsets[r];
        memcpy(out + at, blob + offsets[r], (size_t)len);
        at += len;
        out_offsets[i + 1] = at;
    }
}

#endif
