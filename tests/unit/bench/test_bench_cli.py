"""``fastrank bench``: a tiny run against the test Redis writes the expected tables.

One run per module (2,000 members, 2,000 operations, one repeat: a few
seconds), with ``--plot`` when matplotlib is importable (it is in the test
extra, so CI always draws).
"""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import fastrank
from fastrank.bench.runner import BASELINE, LEADERBOARD_OPS, parse_size, size_label, to_markdown
from fastrank.testing import redisbloom_path

HAVE_MPL = importlib.util.find_spec("matplotlib") is not None
HAVE_FAKEREDIS = importlib.util.find_spec("fakeredis") is not None


@pytest.fixture(scope="module")
def run(redis_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    prefix = str(out / "tmp" / "bench")
    argv = ["bench", "--redis", redis_server.url, "--sizes", "2k", "--ops", "2000", "--repeat", "1",
            "--out", prefix]
    if HAVE_MPL:
        argv += ["--plot", str(out / "bench.png")]
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(fastrank.__file__)))
    proc = subprocess.run([sys.executable, "-m", "fastrank.cli", *argv], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with open(prefix + ".json") as f:
        data = json.load(f)
    with open(prefix + ".md") as f:
        md = f.read()
    return proc.stdout, data, md, out


def _rows(data):
    return {(r["operation"], r["backend"]): r for r in data["results"]}


def test_json_has_every_leaderboard_row_with_ratios(run):
    _, data, _, _ = run
    assert data["sizes"] == [2000]
    rows = _rows(data)
    backends = ["fastrank SortedSet", "fastrank Engine", BASELINE, "redis-py pipelined",
                "sortedcontainers (dict + SortedList)"] + (["fakeredis"] if HAVE_FAKEREDIS else [])
    for op in LEADERBOARD_OPS:
        for backend in backends:
            r = rows[(op, backend)]
            assert r["size"] == 2000 and r["ops"] > 0 and r["ops_per_s"] > 0
            assert r["ratio_to_redis_per_call"] > 0
        assert rows[(op, BASELINE)]["ratio_to_redis_per_call"] == 1.0
    for op in ("load", "zincrby", "zrevrank"):
        assert (op, "fastrank SortedSet (numpy batch)") in rows
    assert data["redis_usec_per_call"]["2000"]["zincrby"] > 0


def test_json_has_the_sketch_rows(run):
    _, data, _, _ = run
    rows = _rows(data)
    for backend in ("fastrank HyperLogLog.add_many", BASELINE, "redis-py pipelined"):
        assert rows[("hll_add", backend)]["ops_per_s"] > 0
    assert rows[("cms_incrby", "fastrank CountMinSketch.incrby")]["ops_per_s"] > 0
    if redisbloom_path() is not None:
        assert rows[("cms_incrby", BASELINE)]["ratio_to_redis_per_call"] == 1.0
    for module, name in (("datasketches", "DataSketches hll_sketch(14) per item"),
                         ("bounter", "bounter CountMinSketch.update(list)")):
        assert (importlib.util.find_spec(module) is not None) == any(b == name for _, b in rows)


def test_memory_per_member(run):
    _, data, _, _ = run
    mem = {m["backend"]: m["bytes_per_member"] for m in data["memory"]}
    for backend in ("fastrank SortedSet", "fastrank SortedSet (C allocation)", "Redis (used_memory)",
                    "fastrank Engine", "sortedcontainers (dict + SortedList)"):
        assert backend in mem
    assert 16 < mem["fastrank SortedSet (C allocation)"] < 200


def test_markdown_and_terminal_tables(run):
    stdout, data, md, _ = run
    assert md == to_markdown(data)
    assert "| operation | backend | 2k |" in md
    assert "| ZINCRBY | redis-py per call | " in md and "(1.0x)" in md
    assert "| CMS incrby | fastrank CountMinSketch.incrby | " in md
    assert "Memory per member (bytes):" in md
    assert "ZREVRANK" in stdout and "wrote " in stdout
    assert data["meta"]["command"].startswith("fastrank bench --redis")


@pytest.mark.skipif(not HAVE_MPL, reason="matplotlib not installed (pip install 'fastrank[plot]')")
def test_plot_is_a_png(run):
    _, _, _, out = run
    with open(out / "bench.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert (out / "bench.png").stat().st_size > 20_000


def test_sizes_parse_and_print():
    assert [parse_size(s) for s in ("10k", "100K", "1M", "2500", "1.5k")] == [10_000, 100_000, 1_000_000,
                                                                              2_500, 1_500]
    assert [size_label(n) for n in (2_000, 10_000, 1_000_000, 500)] == ["2k", "10k", "1M", "500"]
    with pytest.raises(ValueError):
        parse_size("0")


def test_without_a_redis_server_the_redis_rows_are_left_out_with_a_note(tmp_path, monkeypatch):
    from fastrank.bench import runner as benchmark

    monkeypatch.setattr(benchmark.shutil, "which", lambda name: None)
    data = benchmark.run([500], ops=500, repeat=1, memory=False, fakeredis=False)
    backends = {r["backend"] for r in data["results"]}
    assert "fastrank Engine" in backends and not any(b.startswith("redis-py") for b in backends)
    assert all(r["ratio_to_redis_per_call"] is None for r in data["results"])
    assert any("no redis-server" in n for n in data["notes"])
    assert data["meta"]["redis_server"] is None
    md = benchmark.to_markdown(data)
    assert "(1.0x)" not in md and "- no redis-server" in md
