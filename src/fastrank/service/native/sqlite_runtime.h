/* sqlite_runtime.h -- the few SQLite C API functions fastrank calls, found at
 * run time in the SQLite library the process already loaded (through
 * Python's sqlite3 module), so the package builds without SQLite's
 * development headers and never brings a second SQLite into the process.
 *
 * The prototypes and constants are those of SQLite's stable C interface
 * (unchanged since 3.7); fr_sqlite_load fills one table of pointers. */
#ifndef FR_SQLITE_RUNTIME_H
#define FR_SQLITE_RUNTIME_H

#include <stdint.h>

typedef struct fr_sqlite_db fr_sqlite_db;      /* SQLite's sqlite3 */
typedef struct fr_sqlite_stmt fr_sqlite_stmt;  /* SQLite's sqlite3_stmt */

#define FR_SQLITE_OK 0
#define FR_SQLITE_ROW 100
#define FR_SQLITE_DONE 101
#define FR_SQLITE_OPEN_READWRITE 0x00000002
#define FR_SQLITE_OPEN_NOMUTEX 0x00008000
#define FR_SQLITE_TRANSIENT ((void (*)(void *))-1)

typedef struct {
    int (*open_v2)(const char *filename, fr_sqlite_db **db, int flags, const char *vfs);
    int (*close)(fr_sqlite_db *db);
    int (*busy_timeout)(fr_sqlite_db *db, int ms);
    const char *(*errmsg)(fr_sqlite_db *db);
    int (*prepare_v2)(fr_sqlite_db *db, const char *sql, int nbytes, fr_sqlite_stmt **stmt,
                      const char **tail);
    int (*bind_text)(fr_sqlite_stmt *stmt, int index, const char *text, int nbytes,
                     void (*destructor)(void *));
    int (*bind_int64)(fr_sqlite_stmt *stmt, int index, int64_t value);
    int (*exec)(fr_sqlite_db *db, const char *sql, int (*callback)(void *, int, char **, char **), void *arg,
                char **errmsg);
    int (*step)(fr_sqlite_stmt *stmt);
    const unsigned char *(*column_text)(fr_sqlite_stmt *stmt, int col);
    int (*column_bytes)(fr_sqlite_stmt *stmt, int col);
    int64_t (*column_int64)(fr_sqlite_stmt *stmt, int col);
    double (*column_double)(fr_sqlite_stmt *stmt, int col);
    int (*finalize)(fr_sqlite_stmt *stmt);
} fr_sqlite_api;

/* Fill api from the shared object at `path` (Python's _sqlite3 extension
 * module, whose dependencies include libsqlite3) or, failing that, from an
 * already loaded libsqlite3. Only objects already in the process are used
 * (RTLD_NOLOAD): two copies of SQLite in one process would not see each
 * other's file locks. 0 on success, -1 with a reason in err otherwise (no
 * dynamic loader on this platform, a symbol missing). */
int fr_sqlite_load(const char *path, fr_sqlite_api *api, char *err, int errlen);

#endif
