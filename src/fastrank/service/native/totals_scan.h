/* totals_scan.h -- one season's rows of the store's totals table read with
 * SQLite's C API straight into flat columns (member bytes + offsets, points,
 * times), for ScoreService.rebuild. */
#ifndef FR_TOTALS_SCAN_H
#define FR_TOTALS_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "sqlite_runtime.h"

/* Row i's player id is blob[offsets[i] .. offsets[i + 1]) (UTF-8), its
 * total points[i], reached at ats[i] (seconds since the epoch); stale lists
 * the rows whose last_id is above the scan's `upto` (changed since). */
typedef struct {
    char *blob;
    int64_t *offsets;  /* n + 1 entries */
    int64_t *points;
    double *ats;
    int64_t *stale;
    size_t n, cap, blob_len, blob_cap, nstale, stale_cap;
} fr_totals;

/* Read the totals of `season` of `board` with player ids in (after, until] (until NULL:
 * no upper bound) in player order, in one statement (one snapshot), on a
 * connection of its own to the database file `path`. Does not touch Python:
 * call it without the GIL. 0 on success; -1 out of memory; -2 an SQLite
 * error, its message in err. out must be zeroed; fr_totals_free frees it
 * (after a failure too). O(rows). */
int fr_totals_scan(const fr_sqlite_api *api, const char *path, const char *season, int season_len,
                   const char *board, int board_len, const char *after, int after_len, const char *until, int until_len, int64_t upto,
                   int busy_ms, fr_totals *out, char *err, int errlen);

void fr_totals_free(fr_totals *t);

#endif
