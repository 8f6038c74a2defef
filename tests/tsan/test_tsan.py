"""The C code that runs on several threads at once, under ThreadSanitizer.

Builds tests/tsan/threads_tsan.c with the C core (clang -fsanitize=thread)
and runs it: the CMS two-phase blocks, the Top-K two-thread pipe and
HyperLogLog parts on two threads must give the one-thread bytes, with no
data race reported.  Skips when clang (with its ThreadSanitizer runtime) is
not installed.
"""
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SRC = HERE.parent.parent / "src" / "fastrank" / "structures"


def test_threaded_c_paths_have_no_data_race(tmp_path):
    clang = shutil.which("clang")
    if clang is None:
        pytest.skip("clang is not installed (apt-get install -y clang)")
    exe = tmp_path / "threads_tsan"
    cmd = [clang, "-g", "-O1", "-fsanitize=thread", "-I" + str(SRC), str(HERE / "threads_tsan.c"),
           str(SRC / "cms.c"), str(SRC / "topk.c"), str(SRC / "hll.c"), "-o", str(exe), "-lm", "-lpthread"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 and "tsan" in res.stderr and "cannot find" in res.stderr:
        pytest.skip("clang has no ThreadSanitizer runtime: " + res.stderr[-300:])
    assert res.returncode == 0, res.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600,
                         env={"TSAN_OPTIONS": "halt_on_error=1 exitcode=66"})
    assert "ThreadSanitizer" not in run.stderr, run.stderr[-4000:]
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert run.stdout.count(": same") == 4, run.stdout
