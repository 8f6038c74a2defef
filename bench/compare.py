"""Side-by-side benchmark: ``python bench/compare.py [args]`` is ``fastrank bench [args]``.

The runner lives in the package (``fastrank.bench.runner``, backends in
``fastrank.bench.peers``) so the installed ``fastrank bench`` command works
without this folder; see ``fastrank bench --help`` or bench/README.md for the
method.

    python bench/compare.py --sizes 10k,100k,1M --plot bench/results/bench.png --out bench/results/bench
"""
from __future__ import annotations

import sys

from fastrank.bench.runner import main, make_board  # noqa: F401  (make_board: used by the pytest-benchmark suite)

if __name__ == "__main__":
    sys.exit(main(prog="bench/compare.py"))
