"""The sdist and the wheel build, and the wheel installs into a fresh venv and works.

Builds with ``python -m build --no-isolation`` (the build dependencies are
already installed by the test command), installs the wheel into a new
virtual environment that sees the system site-packages for numpy and redis,
and runs a small smoke script outside the source tree.
"""
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SMOKE = """
import fastrank, numpy as np
r = fastrank.Engine()
assert r.zadd("b", {"a": 1, "b": 2}) == 2
assert r.zrevrange("b", 0, -1, withscores=True) == [(b"b", 2.0), (b"a", 1.0)]
z = fastrank.SortedSet()
z.add_many(np.arange(1000), np.arange(1000.0))
assert z.rank(999, reverse=True) == 0
assert fastrank.__file__.find("site-packages") > 0, fastrank.__file__
print("ok")
"""


def test_sdist_and_wheel_build_and_the_wheel_installs(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "-o", str(dist), str(ROOT)],
                   check=True, capture_output=True)
    wheels = list(dist.glob("fastrank-*.whl"))
    sdists = list(dist.glob("fastrank-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1

    with tarfile.open(sdists[0]) as tar:
        names = {Path(n).name for n in tar.getnames()}
    for source in ("_core.pyx", "_sortedset.pxi", "_zset.c", "_zset.h", "_hll.c", "_cms.c", "_topk.c"):
        assert source in names, f"{source} missing from the sdist"

    with zipfile.ZipFile(wheels[0]) as whl:
        wheel_names = whl.namelist()
    assert any(n.startswith("fastrank/_core.") and n.endswith((".so", ".pyd")) for n in wheel_names)
    assert "fastrank/py.typed" in wheel_names and "fastrank/_core.pyi" in wheel_names
    assert not any(n.endswith((".c", ".pyx", ".pxi")) for n in wheel_names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    str(wheels[0])], check=True, capture_output=True)
    out = subprocess.run([str(py), "-c", SMOKE], check=True, capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.stdout.strip() == "ok"
    assert shutil.which("fastrank", path=str(venv / "bin"))
