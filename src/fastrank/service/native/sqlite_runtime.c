/* sqlite_runtime.c -- fr_sqlite_load: SQLite's C API resolved with dlopen/dlsym
 * from the library Python's sqlite3 module loaded (see sqlite_runtime.h). */
#include "sqlite_runtime.h"

#include <stdio.h>
#include <string.h>

#if !defined(_WIN32)
#include <dlfcn.h>
#endif

#if defined(_WIN32) || !defined(RTLD_NOLOAD)

int fr_sqlite_load(const char *path, fr_sqlite_api *api, char *err, int errlen) {
    (void)path;
    memset(api, 0, sizeof *api);
    snprintf(err, (size_t)errlen, "no dynamic loader that can find an already loaded library here");
    return -1;
}

#else

static int resolve(void *handle, fr_sqlite_api *api) {
#define FR_SYM(field, name)                                   \
    do {                                                      \
        *(void **)(&api->field) = dlsym(handle, name);        \
        if (api->field == NULL) return -1;                    \
    } while (0)
    FR_SYM(open_v2, "sqlite3_open_v2");
    FR_SYM(close, "sqlite3_close");
    FR_SYM(busy_timeout, "sqlite3_busy_timeout");
    FR_SYM(errmsg, "sqlite3_errmsg");
    FR_SYM(prepare_v2, "sqlite3_prepare_v2");
    FR_SYM(bind_text, "sqlite3_bind_text");
    FR_SYM(bind_int64, "sqlite3_bind_int64");
    FR_SYM(exec, "sqlite3_exec");
    FR_SYM(step, "sqlite3_step");
    FR_SYM(column_text, "sqlite3_column_text");
    FR_SYM(column_bytes, "sqlite3_column_bytes");
    FR_SYM(column_int64, "sqlite3_column_int64");
    FR_SYM(column_double, "sqlite3_column_double");
    FR_SYM(finalize, "sqlite3_finalize");
#undef FR_SYM
    return 0;
}

int fr_sqlite_load(const char *path, fr_sqlite_api *api, char *err, int errlen) {
    static const char *const libraries[] = {"libsqlite3.so.0", "libsqlite3.dylib", "libsqlite3.so"};
    void *handle;
    size_t i;
    memset(api, 0, sizeof *api);
    if (path != NULL && (handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD)) != NULL) {
        /* dlsym on a handle searches the object and the libraries it needs */
        if (resolve(handle, api) == 0) return 0;
    }
    for (i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
        handle = dlopen(libraries[i], RTLD_NOW | RTLD_NOLOAD);
        if (handle != NULL && resolve(handle, api) == 0) return 0;
    }
    memset(api, 0, sizeof *api);
    snprintf(err, (size_t)errlen, "SQLite's C API was not found in the loaded libraries");
    return -1;
}

#endif
