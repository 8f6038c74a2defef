/* score_scan.c -- fr_score_scan: the ranking index stepped backwards (points
 * ascending, then the time descending) one chunk at a time, each row's score
 * encoded as the board stores it, runs of equal scores put in member order
 * (see score_scan.h). */
#include "score_scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exact reverse of totals_by_rank (board, season, points DESC, at, player): SQLite
 * walks the index backwards, no sort. */
const char FR_SCORE_SCAN_SQL[] =
    "SELECT player, points, at FROM totals INDEXED BY totals_by_rank WHERE board = ?2 AND season = ?1 "
    "ORDER BY points ASC, at DESC, player DESC";

/* |points| * scale stays below this: no int64 overflow (a board's range is far smaller). */
#define FR_POINTS_LIMIT ((int64_t)1 << 62)

/* The events after upto, by id (the rowid range: "+season" keeps the planner off the season
 * index, which would walk every event of the season); sorted and deduplicated here. */
static const char CHANGED_SQL[] = "SELECT player FROM events WHERE id > ?1 AND +season = ?2 AND +board = ?3";

static int sqlite_error(fr_score_scan *s, char *err, int errlen) {
    snprintf(err, (size_t)errlen, "%s", s->db != NULL ? s->api->errmsg(s->db) : "cannot open the database");
    return -2;
}

static int grow_bytes(char **p, size_t *cap, size_t want) {
    size_t next = *cap ? *cap : 4096;
    char *q;
    if (want <= *cap) return 0;
    while (next < want) next *= 2;
    q = realloc(*p, next);
    if (q == NULL) return -1;
    *p = q;
    *cap = next;
    return 0;
}

/* Grow the chunk's row columns to hold `want` rows. */
static int grow_chunk(fr_score_chunk *c, size_t want) {
    size_t next = c->cap ? c->cap : 1024;
    void *p;
    if (want <= c->cap) return 0;
    while (next < want) next *= 2;
    if ((p = realloc(c->offsets, (next + 1) * sizeof(int64_t))) == NULL) return -1;
    c->offsets = p;
    if ((p = realloc(c->points, next * sizeof(int64_t))) == NULL) return -1;
    c->points = p;
    if ((p = realloc(c->rows, next * sizeof(int64_t))) == NULL) return -1;
    c->rows = p;
    if ((p = realloc(c->scores, next * sizeof(double))) == NULL) return -1;
    c->scores = p;
    c->cap = next;
    return 0;
}

/* Add one member to c (its rows entry: itself). 0, or -1 out of memory. */
static int append_member(fr_score_chunk *c, const char *m, size_t len, int64_t points, double score) {
    size_t k = c->members;
    if (grow_chunk(c, k + 1) != 0 || grow_bytes(&c->blob, &c->blob_cap, c->blob_len + len + 1) != 0) return -1;
    if (k == 0) c->offsets[0] = 0;
    if (len) memcpy(c->blob + c->blob_len, m, len);
    c->blob_len += len;
    c->offsets[k + 1] = (int64_t)c->blob_len;
    c->points[k] = points;
    c->scores[k] = score;
    c->rows[k] = (int64_t)k;
    c->members = k + 1;
    c->n = k + 1;
    return 0;
}

/* A sorted set's member order: memcmp, then the shorter first. */
static int member_cmp(const char *a, size_t la, const char *b, size_t lb) {
    int c = memcmp(a, b, la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : la > lb;
}

static int is_changed(const fr_score_scan *s, const char *m, size_t len) {
    size_t lo = 0, hi = s->nchanged;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *p = s->changed + s->changed_offsets[mid];
        int c = member_cmp(p, (size_t)(s->changed_offsets[mid + 1] - s->changed_offsets[mid]), m, len);
        if (c == 0) return 1;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return 0;
}

typedef struct {
    const char *p;
    size_t len;
} fr_member_ref;

static int member_ref_cmp(const void *a, const void *b) {
    const fr_member_ref *x = a, *y = b;
    return member_cmp(x->p, x->len, y->p, y->len);
}

/* Sort the changed players into member order and drop repeats (a player with
 * several events), for is_changed's binary search. 0, or -1 out of memory. */
static int sort_changed(fr_score_scan *s) {
    size_t i, k = 0, at = 0;
    fr_member_ref *refs;
    char *blob;
    if (s->nchanged < 2) return 0;
    refs = malloc(s->nchanged * sizeof *refs);
    blob = malloc(s->changed_len ? s->changed_len : 1);
    if (refs == NULL || blob == NULL) {
        free(refs);
        free(blob);
        return -1;
    }
    for (i = 0; i < s->nchanged; i++) {
        refs[i].p = s->changed + s->changed_offsets[i];
        refs[i].len = (size_t)(s->changed_offsets[i + 1] - s->changed_offsets[i]);
    }
    qsort(refs, s->nchanged, sizeof *refs, member_ref_cmp);
    for (i = 0; i < s->nchanged; i++) {
        if (k && member_cmp(refs[i].p, refs[i].len, refs[i - 1].p, refs[i - 1].len) == 0) continue;
        if (refs[i].len) memcpy(blob + at, refs[i].p, refs[i].len);
        at += refs[i].len;
        s->changed_offsets[++k] = (int64_t)at;
    }
    free(refs);
    free(s->changed);
    s->changed = blob;
    s->changed_blob_cap = s->changed_len ? s->changed_len : 1;
    s->changed_len = at;
    s->nchanged = k;
    return 0;
}

int fr_score_scan_open(fr_score_scan *s, const fr_sqlite_api *api, const char *path, const char *season,
                       int season_len, const char *board, int board_len, int64_t upto,
                       const fr_score_codec *codec, int busy_ms, char *err, int errlen) {
    fr_sqlite_stmt *changed = NULL;
    int rc;
    s->api = api;
    s->codec = *codec;
    /* Without SQLite's own mutex: one thread at a time uses the connection. */
    if (api->open_v2(path, &s->db, FR_SQLITE_OPEN_READWRITE | FR_SQLITE_OPEN_NOMUTEX, NULL) != FR_SQLITE_OK)
        return sqlite_error(s, err, errlen);
    api->busy_timeout(s->db, busy_ms);
    if (api->exec(s->db, "BEGIN", NULL, NULL, NULL) != FR_SQLITE_OK) return sqlite_error(s, err, errlen);
    if (api->prepare_v2(s->db, CHANGED_SQL, -1, &changed, NULL) != FR_SQLITE_OK ||
        api->bind_int64(changed, 1, upto) != FR_SQLITE_OK ||
        api->bind_text(changed, 2, season, season_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK ||
        api->bind_text(changed, 3, board, board_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK) {
        if (changed != NULL) api->finalize(changed);
        return sqlite_error(s, err, errlen);
    }
    s->changed_offsets = malloc(sizeof(int64_t));
    if (s->changed_offsets == NULL) {
        api->finalize(changed);
        return -1;
    }
    s->changed_offsets[0] = 0;
    while ((rc = api->step(changed)) == FR_SQLITE_ROW) {
        const unsigned char *m = api->column_text(changed, 0);
        size_t len = (size_t)api->column_bytes(changed, 0);
        if (s->nchanged + 2 > s->changed_cap) {
            size_t next = s->changed_cap ? s->changed_cap * 2 : 64;
            int64_t *o = realloc(s->changed_offsets, next * sizeof(int64_t));
            if (o == NULL) {
                api->finalize(changed);
                return -1;
            }
            s->changed_offsets = o;
            s->changed_cap = next;
        }
        if (grow_bytes(&s->changed, &s->changed_blob_cap, s->changed_len + len + 1) != 0) {
            api->finalize(changed);
            return -1;
        }
        if (len) memcpy(s->changed + s->changed_len, m, len);
        s->changed_len += len;
        s->changed_offsets[++s->nchanged] = (int64_t)s->changed_len;
    }
    api->finalize(changed);
    if (rc != FR_SQLITE_DONE) return sqlite_error(s, err, errlen);
    if (sort_changed(s) != 0) return -1;
    if (api->prepare_v2(s->db, FR_SCORE_SCAN_SQL, -1, &s->stmt, NULL) != FR_SQLITE_OK ||
        api->bind_text(s->stmt, 1, season, season_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK ||
        api->bind_text(s->stmt, 2, board, board_len, FR_SQLITE_TRANSIENT) != FR_SQLITE_OK)
        return sqlite_error(s, err, errlen);
    return 0;
}

static int row_cmp(const fr_score_chunk *c, int64_t a, int64_t b) {
    return member_cmp(c->blob + c->offsets[a], (size_t)(c->offsets[a + 1] - c->offsets[a]),
                      c->blob + c->offsets[b], (size_t)(c->offsets[b + 1] - c->offsets[b]));
}

/* Sort rows[0..k) (indexes into c's members) by member: insertion sort for
 * a short run (the usual case), else a stable bottom-up merge sort through
 * tmp (room for k). O(k log k). */
static void sort_by_member(const fr_score_chunk *c, int64_t *rows, int64_t *tmp, size_t k) {
    size_t width, i;
    if (k <= 16) {
        for (i = 1; i < k; i++) {
            int64_t x = rows[i];
            size_t j = i;
            while (j > 0 && row_cmp(c, rows[j - 1], x) > 0) {
                rows[j] = rows[j - 1];
                j--;
            }
            rows[j] = x;
        }
        return;
    }
    for (width = 1; width < k; width *= 2) {
        size_t lo;
        for (lo = 0; lo < k; lo += 2 * width) {
            size_t mid = lo + width < k ? lo + width : k, hi = lo + 2 * width < k ? lo + 2 * width : k;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) tmp[o++] = row_cmp(c, rows[b], rows[a]) < 0 ? rows[b++] : rows[a++];
            while (a < mid) tmp[o++] = rows[a++];
            while (b < hi) tmp[o++] = rows[b++];
        }
        memcpy(rows, tmp, k * sizeof(int64_t));
    }
}

int fr_score_scan_next(fr_score_scan *s, size_t batch, fr_score_chunk *out, char *err, int errlen) {
    const fr_sqlite_api *api = s->api;
    fr_score_chunk *carry = &s->carry;
    double last = 0.0;
    size_t i, start;
    int64_t *tmp;
    out->n = out->members = 0;
    out->blob_len = 0;
    if (batch == 0) batch = 1;
    /* Room for a usual chunk up front (a huge batch grows as rows come). */
    if (grow_chunk(out, batch < 65536 ? batch : 65536) != 0) return -1;
    out->offsets[0] = 0;
    /* First what a run left over, already in order. */
    for (; s->carry_pos < carry->members && out->members < batch; s->carry_pos++) {
        size_t k = s->carry_pos;
        last = carry->scores[k];
        if (append_member(out, carry->blob + carry->offsets[k], (size_t)(carry->offsets[k + 1] - carry->offsets[k]),
                          carry->points[k], last) != 0)
            return -1;
    }
    if (out->members == batch) return 0; /* a long run: all of this chunk came from it, in order */
    while (!s->done) {
        const unsigned char *player;
        size_t len;
        int64_t points;
        double score;
        if (!s->positioned) {
            int rc = api->step(s->stmt);
            if (rc == FR_SQLITE_DONE) {
                s->done = 1;
                break;
            }
            if (rc != FR_SQLITE_ROW) return sqlite_error(s, err, errlen);
            s->positioned = 1;
        }
        points = api->column_int64(s->stmt, 1);
        if (s->codec.integer) {
            double at = api->column_double(s->stmt, 2);
            double second = floor(at);
            int64_t tick;
            if (!(second >= 0.0 && second < (double)s->codec.scale)) {
                snprintf(err, (size_t)errlen, "a time does not fit in time_bits=%d", s->codec.time_bits);
                return -3;
            }
            if (points > FR_POINTS_LIMIT / s->codec.scale || points < -(FR_POINTS_LIMIT / s->codec.scale)) {
                snprintf(err, (size_t)errlen, "points %lld do not fit in a score", (long long)points);
                return -3;
            }
            tick = (int64_t)second;
            if (s->codec.mirrored) tick = s->codec.scale - 1 - tick;
            score = (double)(points * s->codec.scale + tick);
        } else {
            score = (double)points;
        }
        if (out->members >= batch && score != last) break; /* this row starts the next chunk */
        s->positioned = 0;
        player = api->column_text(s->stmt, 0);
        len = (size_t)api->column_bytes(s->stmt, 0);
        if (s->nchanged && is_changed(s, (const char *)player, len)) continue;
        if (append_member(out, (const char *)player, len, points, score) != 0) return -1;
        last = score;
    }
    /* Runs of equal scores come by time, then player, descending: put them in member order. */
    tmp = NULL;
    for (start = 0; start < out->members; start = i) {
        for (i = start + 1; i < out->members && out->scores[i] == out->scores[start]; i++) {
        }
        if (i - start > 1) {
            if (tmp == NULL && (tmp = malloc(out->members * sizeof(int64_t))) == NULL) return -1;
            sort_by_member(out, out->rows + start, tmp, i - start);
        }
    }
    free(tmp);
    /* The members past `batch` (the end of one run) wait for the next chunks. */
    carry->members = carry->n = carry->blob_len = 0;
    s->carry_pos = 0;
    for (i = batch; i < out->members; i++) {
        int64_t r = out->rows[i];
        if (append_member(carry, out->blob + out->offsets[r], (size_t)(out->offsets[r + 1] - out->offsets[r]),
                          out->points[r], out->scores[r]) != 0)
            return -1;
    }
    out->n = out->members < batch ? out->members : batch;
    return 0;
}

size_t fr_score_scan_changed(const fr_score_scan *s, const char **blob, const int64_t **offsets) {
    *blob = s->changed;
    *offsets = s->changed_offsets;
    return s->nchanged;
}

void fr_score_scan_close(fr_score_scan *s) {
    if (s->stmt != NULL) s->api->finalize(s->stmt);
    if (s->db != NULL) {
        s->api->exec(s->db, "COMMIT", NULL, NULL, NULL);
        s->api->close(s->db);
    }
    free(s->changed);
    free(s->changed_offsets);
    fr_score_chunk_free(&s->carry);
    memset(s, 0, sizeof *s);
}

void fr_score_chunk_free(fr_score_chunk *c) {
    free(c->blob);
    free(c->offsets);
    free(c->points);
    free(c->rows);
    free(c->scores);
    memset(c, 0, sizeof *c);
}
