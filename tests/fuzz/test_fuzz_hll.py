"""Short libFuzzer pass over the HLL C core (CI); see README.md for long runs.

Builds tests/fuzz/fuzz_hll.c with clang (-fsanitize=fuzzer,address,undefined)
and runs it for FASTRANK_FUZZ_SECONDS (default 25) on a copy of the corpus.
Skips when clang (with libFuzzer) is not installed.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src" / "fastrank" / "structures"
SECONDS = int(os.environ.get("FASTRANK_FUZZ_SECONDS", "25"))


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory):
    clang = shutil.which("clang")
    if clang is None:
        pytest.skip("clang is not installed (apt-get install -y clang)")
    out = tmp_path_factory.mktemp("fuzz") / "fuzz_hll"
    cmd = [
        clang, "-g", "-O2", "-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=undefined",
        "-fsanitize-coverage-ignorelist=" + str(HERE / "coverage-ignore.txt"),
        "-I" + str(SRC), str(HERE / "fuzz_hll.c"), str(SRC / "hll.c"), "-o", str(out), "-lm",
    ]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 and "fuzzer" in res.stderr and "cannot find" in res.stderr:
        pytest.skip("clang has no libFuzzer runtime: " + res.stderr[-300:])
    assert res.returncode == 0, res.stderr
    return out


def test_fuzz_hll_short_run(fuzzer, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(HERE / "corpus", corpus)
    res = subprocess.run(
        [str(fuzzer), "-max_len=1200", "-max_total_time=%d" % SECONDS, "-print_final_stats=1",
         "-artifact_prefix=%s/" % tmp_path, str(corpus)],
        capture_output=True, text=True, timeout=SECONDS + 300, cwd=tmp_path,
    )
    tail = res.stderr[-4000:]
    assert res.returncode == 0, "fuzzer found a problem (artifact in %s):\n%s" % (tmp_path, tail)
    assert "stat::number_of_executed_units" in res.stderr, tail
