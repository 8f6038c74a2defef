/* totals_scan.c -- fr_totals_scan: step one prepared SELECT over the totals
 * table and append each row to growable flat columns (see totals_scan.h). */
#include "totals_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ?1 the season, ?2 after, ?3 until (SCAN_UNTIL only), ?4 the board. */
static const char SCAN_ALL[] =
    "SELECT player, points, at, last_id FROM totals WHERE board = ?4 AND season = ?1 AND player > ?2 "
    "ORDER BY player";
static const char SCAN_UNTIL[] =
    "SELECT player, points, at, last_id FROM totals WHERE board = ?4 AND season = ?1 AND player > ?2 "
    "AND player <= ?3 ORDER BY player";

/* Grow a column of `size`-byte items to at least `want` items. */
static int grow(void **column, size_t *cap, size_t want, size_t size) {
    size_t next = *cap ? *cap : 1024;
    void *p;
    if (want <= *cap) return 0;
    while (next < want) next *= 2;
    p = realloc(*column, next * size);
    if (p == NULL) return -1;
    *column = p;
    *cap = next;
    return 0;
}

static int grow_rows(fr_totals *t, size_t want) {
    size_t next, ocap;
    int64_t *o, *p;
    double *a;
    if (want <= t->cap) return 0;
    next = t->cap ? t->cap * 2 : 4096;
    while (next < want) next *= 2;
    o = realloc(t->offsets, (next + 1) * sizeof *o);
    if (o == NULL) return -1;
    t->offsets = o;
    p = realloc(t->points, next * sizeof *p);
    if (p == NULL) return -1;
    t->points = p;
    a = realloc(t->ats, next * sizeof *a);
    if (a == NULL) return -1;
    t->ats = a;
    ocap = t->cap;
    t->cap = next;
    if (ocap == 0) t->offsets[0] = 0;
    return 0;
}

static int fail(fr_sqlite_db *db, const fr_sqlite_api *api, int code, char *err, int errlen) {
    snprintf(err, (size_t)errlen, "%s", db != NULL ? api->errmsg(db) : "cannot open the database");
    return code;
}

int fr_totals_scan(const fr_sqlite_api *api, const char *path, const char *season, int season_len,
                   const char *board, int board_len, const char *after, int after_len, const char *until, int until_len, int64_t upto,
                   int busy_ms, fr_totals *out, char *err, int errlen) {
    fr_sqlite_db *db = NULL;
    fr_sqlite_stmt *stmt = NULL;
    int rc, status = 0;
    /* Without SQLite's own mutex: the connection never leaves this call. Opened for
     * writing as the store's own connections are (a WAL reader updates the -shm
     * index), though the one statement only reads; never created. */
    if (api->open_v2(path, &db, FR_SQLITE_OPEN_READWRITE | FR_SQLITE_OPEN_NOMUTEX, NULL) != FR_SQLITE_OK) {
        status = fail(db, api, -2, err, errlen);
        goto done;
    }
    api->busy_timeout(db, busy_ms);
    if (api->prepare_v2(db, until != NULL ? SCAN_UNTIL : SCAN_ALL, -1, &stmt, NULL) != FR_SQLITE_OK ||
        api->bind_text(stmt, 1, season, season_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK ||
        api->bind_text(stmt, 2, after, after_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK ||
        api->bind_text(stmt, 4, board, board_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK ||
        (until != NULL &&
         api->bind_text(stmt, 3, until, until_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK)) {
        status = fail(db, api, -2, err, errlen);
        goto done;
    }
    if (grow_rows(out, 1) != 0) {
        status = -1;
        goto done;
    }
    while ((rc = api->step(stmt)) == FR_SQLITE_ROW) {
        const unsigned char *player = api->column_text(stmt, 0);
        size_t len = (size_t)api->column_bytes(stmt, 0);
        size_t i = out->n;
        if (grow_rows(out, i + 1) != 0 ||
            grow((void **)&out->blob, &out->blob_cap, out->blob_len + len + 1, 1) != 0) {
            status = -1;
            goto done;
        }
        if (len) memcpy(out->blob + out->blob_len, player, len);
        out->blob_len += len;
        out->offsets[i + 1] = (int64_t)out->blob_len;
        out->points[i] = api->column_int64(stmt, 1);
        out->ats[i] = api->column_double(stmt, 2);
        if (api->column_int64(stmt, 3) > upto) {
            if (grow((void **)&out->stale, &out->stale_cap, out->nstale + 1, sizeof(int64_t)) != 0) {
                status = -1;
                goto done;
            }
            out->stale[out->nstale++] = (int64_t)i;
        }
        out->n = i + 1;
    }
    if (rc != FR_SQLITE_DONE) status = fail(db, api, -2, err, errlen);
done:
    if (stmt != NULL) api->finalize(stmt);
    if (db != NULL) api->close(db);
    return status;
}

void fr_totals_free(fr_totals *t) {
    free(t->blob);
    free(t->offsets);
    free(t->points);
    free(t->ats);
    free(t->stale);
    memset(t, 0, sizeof *t);
}
