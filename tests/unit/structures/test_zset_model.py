"""The sorted set's C core against a model, at tiny node sizes, under
AddressSanitizer and UBSan.

tests/unit/structures/zset_model.c runs random adds, increments, moves,
deletions, range removals (by rank, score and lex), bulk loads, copies,
compactions and clears against a plain array, compares every answer (order,
ranks, next/prev, gather by rank and from a member, score and lex ranges,
counts) and runs the checker (fr_zset_check: counts, order, fill, parent
links, separators, index, arena) after every step.  Built with leaves and inner nodes of 4 (and
8 / 5) entries, splits, merges, borrows and root changes happen on almost
every step; the default sizes run too, and so does each instruction-set
version of the searches this machine runs (zset.c, CPU DISPATCH: baseline,
AVX2, AVX-512), forced.  The node pool starts at 8 nodes
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


def _isa_levels():
    """The instruction-set versions of zset.c's searches this machine runs
    (zset.c, CPU DISPATCH): 0 baseline, 1 AVX2, 2 AVX-512."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    levels = ["0"]
    if {"avx2", "bmi1", "bmi2", "popcnt", "fma"} <= set(flags):
        levels.append("1")
        if {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd"} <= set(flags):
            levels.append("2")
    return levels


# Each version the dispatch can pick, forced, at the smallest and the default node sizes.
FORCED = [(leaf, inner, isa) for isa in _isa_levels() for leaf, inner in [("4", "4"), ("66", "32")]]


def _build(exe, leaf, inner, *extra):
    subprocess.run([CC, "-std=c99", "-g", "-O1", "-Wall", "-Wextra", "-Werror",
                    "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                    f"-DFR_ZSET_LEAF_CAP={leaf}", f"-DFR_ZSET_INNER_CAP={inner}",
                    "-DFR_ZSET_SHRINK_MIN=16", "-DFR_ZSET_POOL_MIN_NODES=8",
                    "-DFR_ZSET_POOL_CHUNK=4096", *extra, f"-I{CORE}", str(HERE / "zset_model.c"),
                    str(CORE / "zset.c"), "-o", str(exe), "-lm"], check=True)


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    assert CC, "a C compiler is needed to build the C property test"
    out = {}
    for leaf, inner in SIZES:
        exe = tmp_path_factory.mktemp("zset_model") / f"zset_model_{leaf}_{inner}"
        _build(exe, leaf, inner)
        out[(leaf, inner)] = exe
    for leaf, inner, isa in FORCED:
        exe = tmp_path_factory.mktemp("zset_model") / f"zset_model_{leaf}_{inner}_isa{isa}"
        _build(exe, leaf, inner, f"-DFR_ZSET_ISA={isa}")
        out[(leaf, inner, isa)] = exe
    return out


def _run_model(exe, seed, universe):
    """Runs a model program for 4000 steps; its report, after checking it ran clean."""
    run = subprocess.run([str(exe), str(seed), "4000", str(universe)], capture_output=True, text=True,
                         timeout=600, env={"ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "halt_on_error=1"})
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert run.stdout.startswith("ok 4000 steps"), run.stdout
    return run


@pytest.mark.parametrize("leaf,inner", SIZES)
@pytest.mark.parametrize("seed,universe", [(1, 300), (2, 60), (3, 1200)])
def test_c_core_matches_model(programs, leaf, inner, seed, universe):
    run = _run_model(programs[(leaf, inner)], seed, universe)
    if leaf != "66":  # the node pool (from 8 nodes, 4 KiB chunks here) served most steps
        pooled = int(run.stdout.split(", ")[-1].split()[0])
        assert pooled > 1000, run.stdout


@pytest.mark.parametrize("leaf,inner,isa", FORCED)
def test_each_instruction_set_version_matches_model(programs, leaf, inner, isa):
    """The searches compiled for the baseline, AVX2 and AVX-512 (each the
    machine runs), forced, give the model's answers."""
    _run_model(programs[(leaf, inner, isa)], 5, 300)
