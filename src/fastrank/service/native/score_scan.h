/* score_scan.h -- a season's totals read from the store's ranking index in a
 * sorted set's ascending order, chunk by chunk, with the scores encoded as a
 * leaderboard stores them: what lets ScoreService.rebuild write one chunk
 * while the next is read, with no sort of the whole season. */
#ifndef FR_SCORE_SCAN_H
#define FR_SCORE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "sqlite_runtime.h"

/* How a board encodes (points, at) into a score (fastrank.leaderboard.scorebits):
 * integer: points * scale + tick, tick = floor(at) (mirrored: scale - 1 -
 * floor(at)), 0 <= floor(at) < scale; else the points themselves. */
typedef struct {
    int integer, mirrored, time_bits;
    int64_t scale;
} fr_score_codec;

/* One chunk: member k (k < members) is blob[offsets[k] .. offsets[k + 1]),
 * scored scores[k] with points[k]; rows[0..n) lists the members to write, in
 * a sorted set's order (a permutation of runs of equal scores only, so
 * scores[k] is also the score of member rows[k]). */
typedef struct {
    char *blob;
    int64_t *offsets, *points, *rows;
    double *scores;
    size_t n, members, cap, blob_len, blob_cap;
} fr_score_chunk;

typedef struct {
    const fr_sqlite_api *api;
    fr_sqlite_db *db;
    fr_sqlite_stmt *stmt;
    fr_score_codec codec;
    char *changed;           /* player ids with events after upto, sorted, packed */
    int64_t *changed_offsets;
    size_t nchanged, changed_cap, changed_blob_cap, changed_len;
    int positioned;          /* stmt holds a row that belongs to the next chunk */
    int done;
    fr_score_chunk carry;    /* the end of a run of equal scores that passed a chunk, in order */
    size_t carry_pos;        /* the carried members before this are written */
} fr_score_scan;

/* Open `path`, start one read transaction (one snapshot for everything
 * below), list the players of `season` of `board` with an event after `upto` (their
 * rows are left out of the chunks: the caller sums them as of upto), and
 * prepare the scan of the ranking index (the schema's totals_by_rank: board, season,
 * points DESC, at, player) backwards, in ascending score order for a codec
 * that is not integer or is mirrored. 0; -1 out of memory; -2 SQLite's
 * message in err. The scan must be zeroed first and closed with
 * fr_score_scan_close (after a failure too). */
int fr_score_scan_open(fr_score_scan *s, const fr_sqlite_api *api, const char *path, const char *season,
                       int season_len, const char *board, int board_len, int64_t upto,
                       const fr_score_codec *codec, int busy_ms, char *err, int errlen);

/* The next chunk: `batch` members to write (fewer at the end; none when the
 * scan is over). A run of equal scores that passes the end of the chunk is
 * read whole and put in member order first; what of it does not fit is
 * carried into the next chunks, so every chunk sorts after the one before.
 * Without the GIL. 0; -1 out of memory; -2 SQLite's message in err; -3 a
 * time or total out of the codec's range (message in err). */
int fr_score_scan_next(fr_score_scan *s, size_t batch, fr_score_chunk *out, char *err, int errlen);

/* The player ids fr_score_scan_open found changed after upto. */
size_t fr_score_scan_changed(const fr_score_scan *s, const char **blob, const int64_t **offsets);

void fr_score_scan_close(fr_score_scan *s);
void fr_score_chunk_free(fr_score_chunk *c);

/* The scan's SELECT (also read by the tests, which check SQLite's plan for it). */
extern const char FR_SCORE_SCAN_SQL[];

#endif
