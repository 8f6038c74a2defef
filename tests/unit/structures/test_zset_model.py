"""The sorted set's C core against a model, at tiny node sizes, under
AddressSanitizer and UBSan.

tests/unit/structures/zset_model.c runs random adds, increments, moves,
deletions, range removals (by rank, score and lex), bulk loads, copies,
compactions and clears against a plain array, compares every answer (order,
ranks, next/prev, gather by rank and from a member, score and lex ranges,
counts) and runs the checker (fr_zset_check: counts, order, fill, parent
links, separators, index, arena) after every step.  Built with leaves and inner nodes of 4 (and
8 / 5) entries, splits, merges, borrows and root changes happen on almost
every step; the default sizes run too.  The node pool starts at 8 nodes
with 4 KiB chunks, so its slots, free lists, chunk mapping, unmapping and
compaction are exercised too (the checker verifies its bookkeeping).
"""
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
CORE = HERE.parents[2] / "src" / "fastrank" / "structures"
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")

SIZES = [("4", "4"), ("8", "5"), ("66", "32")]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    assert CC, "a C compiler is needed to build the C property test"
    out = {}
    for leaf, inner in SIZES:
        exe = tmp_path_factory.mktemp("zset_model") / f"zset_model_{leaf}_{inner}"
        subprocess.run([CC, "-std=c99", "-g", "-O1", "-Wall", "-Wextra", "-Werror",
                        "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                        f"-DFR_ZSET_LEAF_CAP={leaf}", f"-DFR_ZSET_INNER_CAP={inner}",
                        "-DFR_ZSET_SHRINK_MIN=16", "-DFR_ZSET_POOL_MIN_NODES=8",
                        "-DFR_ZSET_POOL_CHUNK=4096", f"-I{CORE}", str(HERE / "zset_model.c"),
                        str(CORE / "zset.c"), "-o", str(exe), "-lm"], check=True)
        out[(leaf, inner)] = exe
    return out


@pytest.mark.parametrize("leaf,inner", SIZES)
@pytest.mark.parametrize("seed,universe", [(1, 300), (2, 60), (3, 1200)])
def test_c_core_matches_model(programs, leaf, inner, seed, universe):
    run = subprocess.run([str(programs[(leaf, inner)]), str(seed), "4000", str(universe)],
                         capture_output=True, text=True, timeout=600,
                         env={"ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "halt_on_error=1"})
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert run.stdout.startswith("ok 4000 steps"), run.stdout
    if leaf != "66":  # the node pool (from 8 nodes, 4 KiB chunks here) served most steps
        pooled = int(run.stdout.split(", ")[-1].split()[0])
        assert pooled > 1000, run.stdout
