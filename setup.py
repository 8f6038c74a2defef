"""Build of the compiled core, fastrank._core.

FASTRANK_DEBUG=1 builds with -O0 -g and C assertions on; FASTRANK_NATIVE=1
adds -march=native. The default is an optimised (-O3), portable build.
"""
import os

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("FASTRANK_DEBUG") == "1"

compile_args = ["-std=c99", "-Wall", "-Wextra", "-Wno-unused-function"]
if os.name == "nt":
    compile_args = ["/O2"]
elif DEBUG:
    compile_args += ["-O0", "-g", "-UNDEBUG"]
else:
    compile_args += ["-O3", "-DNDEBUG"]
if os.environ.get("FASTRANK_NATIVE") == "1" and os.name != "nt":
    compile_args.append("-march=native")

core = Extension(
    "fastrank._core",
    sources=["src/fastrank/_core.pyx", "src/fastrank/_zset.c", "src/fastrank/_cms.c", "src/fastrank/_topk.c", "src/fastrank/_hll.c"],
    include_dirs=["src/fastrank", numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    extra_compile_args=compile_args,
)

setup(
    ext_modules=cythonize(
        [core],
        language_level=3,
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": False,
            "cdivision": True,
            "embedsignature": True,
        },
    )
)
