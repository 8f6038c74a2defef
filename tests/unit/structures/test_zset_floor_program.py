"""bench/zset_floor.c, the benchmark of the sorted-set core without Python,
builds against the core's sources and runs (its figures are not checked:
no test depends on timing)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.skipif(sys.platform != "linux" or shutil.which("cc") is None, reason="needs cc on Linux")
def test_zset_floor_builds_and_prints_every_row(tmp_path):
    program = tmp_path / "zset_floor"
    core = ROOT / "src" / "fastrank" / "structures"
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", f"-I{core}", str(ROOT / "bench" / "zset_floor.c"),
                    str(core / "zset.c"), "-o", str(program), "-lm"], check=True)
    out = subprocess.run([str(program), "2000", "2"], check=True, capture_output=True, text=True).stdout
    assert "dependent load, by working set:" in out and "     2 MB" in out
    assert "zset of 2000 members" in out
    for row in ("rank of a member (ZREVRANK)", "rank, the member's bytes in cache",
                "incr by 1..100 (ZINCRBY, a move)", "count below a bound, one by one",
                "count below a bound, 16 a batch"):
        assert row in out
