"""Build of the compiled modules: the core, fastrank._core (the structures
and the Engine's compiled handlers), the leaderboard's entry builder
(fastrank.leaderboard._entries), the Engine's native paths of the
leaderboard's scripts (fastrank.natives._board) and the score
service's reader of a SQLite store's totals, fastrank.service._totals, and
the sync face's method of a plan, fastrank._faces (plain C).

FASTRANK_DEBUG=1 builds with -O0 -g and C assertions on; FASTRANK_NATIVE=1
adds -march=native. The default is an optimised (-O3), portable build.

FASTRANK_ASAN=1 is the debug build under AddressSanitizer (-fsanitize=address,
frame pointers kept, Cython bounds checks on). Python itself is not built
with it, so run the tests with the runtime preloaded and Python's own
allocator off, e.g.:

    FASTRANK_ASAN=1 python setup.py build_ext --inplace -q
    LD_PRELOAD=$(gcc -print-file-name=libasan.so) PYTHONMALLOC=malloc \
        ASAN_OPTIONS=detect_leaks=0 python -m pytest tests/unit -q
"""
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

ASAN = os.environ.get("FASTRANK_ASAN") == "1" and os.name != "nt"
DEBUG = os.environ.get("FASTRANK_DEBUG") == "1" or ASAN

compile_args = ["-std=c99", "-Wall", "-Wextra", "-Wno-unused-function"]
link_args = []
if os.name == "nt":
    compile_args = ["/O2"]
elif DEBUG:
    compile_args += ["-O0", "-g", "-UNDEBUG"]
else:
    compile_args += ["-O3", "-DNDEBUG"]
if ASAN:
    compile_args += ["-fsanitize=address", "-fno-omit-frame-pointer"]
    link_args += ["-fsanitize=address"]
if os.environ.get("FASTRANK_NATIVE") == "1" and os.name != "nt":
    compile_args.append("-march=native")

# C and Cython sources live beside the packages that own them, in plain
# folders (not Python packages): the structures' in src/fastrank/structures/,
# the Engine's compiled handlers in src/fastrank/engine/native/, the score
# service's SQLite readers in src/fastrank/service/native/. _core.pyx (at the
# package root) includes the first two; each folder is on the C include path
# and on Cython's include path.
SRC = "src/fastrank"
STRUCTURES = f"{SRC}/structures"
ENGINE_NATIVE = f"{SRC}/engine/native"
SERVICE_NATIVE = f"{SRC}/service/native"

core = Extension(
    "fastrank._core",
    sources=[f"{SRC}/_core.pyx"] + [f"{STRUCTURES}/{stem}.c" for stem in ("zset", "cms", "topk", "hll")],
    include_dirs=[SRC, STRUCTURES, ENGINE_NATIVE, numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

entries = Extension(
    "fastrank.leaderboard._entries",
    sources=[f"{SRC}/leaderboard/_entries.pyx"],
    include_dirs=[STRUCTURES],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

# The Engine's native paths of the leaderboard's scripts (fastrank.natives): the skip list's C API (zset.c, compiled
# in here too) and the Engine's C-level interface cimported from fastrank._core
# (src/fastrank/_core.pxd), found through "src" on Cython's include path.
natives = Extension(
    "fastrank.natives._board",
    sources=[f"{SRC}/natives/_board.pyx", f"{STRUCTURES}/zset.c"],
    include_dirs=[STRUCTURES],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

# The rebuild's reader of the store's totals: SQLite's C API is found at run
# time (dlopen/dlsym, no SQLite headers or library needed to build).
totals = Extension(
    "fastrank.service._totals",
    sources=[f"{SRC}/service/_totals.pyx"] + [f"{SERVICE_NATIVE}/{stem}.c" for stem in ("sqlite_runtime", "totals_scan",
                                                                                         "score_scan")],
    include_dirs=[SERVICE_NATIVE],
    libraries=(["m"] if os.name != "nt" else []) + (["dl"] if os.name != "nt" and not sys.platform.startswith(
        ("darwin", "freebsd")) else []),
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

# The sync face's method of a plan (fastrank.runner.twin): a plain C extension type.
faces = Extension(
    "fastrank._faces",
    sources=[f"{SRC}/_faces.c"],
    extra_compile_args=compile_args,
    extra_link_args=link_args,
)

setup(
    ext_modules=cythonize(
        [core, entries, natives, totals, faces],
        language_level=3,
        include_path=["src", SRC, STRUCTURES, ENGINE_NATIVE, SERVICE_NATIVE],
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": False,
            "cdivision": True,
            "embedsignature": True,
        },
    )
)
