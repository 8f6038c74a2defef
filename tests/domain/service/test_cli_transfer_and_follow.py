"""``fastrank export`` / ``fastrank import`` (a round trip through files, a
second import recording nothing), and ``fastrank apply --follow`` serving
metrics and stopping cleanly on SIGTERM."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import redis

from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.cli import main
from fastrank.testing import free_port

T0 = 1_790_000_000
SRC = str(Path(__file__).resolve().parents[3] / "src")


def fill(port, path):
    service = ScoreService(Leaderboard(redis.Redis(port=port), "cup", season="w1"), SQLiteStore(path))
    for i in range(30):
        service.submit_match(f"m{i}", {f"p{i % 7}": i % 4 + 1}, at=T0 + i)
    return {e.player: e.points for e in service.board.iter()}


def test_export_then_import_into_another_board(tmp_path, capsys, redis_server):
    url = f"redis://127.0.0.1:{redis_server.port}"
    redis.Redis(port=redis_server.port).flushall()
    store = tmp_path / "scores.db"
    expected = fill(redis_server.port, store)
    events = tmp_path / "events.jsonl"
    assert main(["export", "--store", str(store), "--board", url, "--name", "cup", "--what", "events",
                 "--format", "jsonl", "--out", str(events)]) == 0
    assert "exported 30 rows" in capsys.readouterr().out
    assert json.loads(events.read_text().splitlines()[0])["match_id"] == "m0"
    standings = tmp_path / "board.csv"
    assert main(["export", "--store", str(store), "--board", url, "--name", "cup", "--out", str(standings)]) == 0
    assert standings.read_text().splitlines()[0] == "rank,player,points"
    copy = tmp_path / "copy.db"
    args = ["import", "--store", str(copy), "--create-store", "--board", url, "--name", "copy",
            "--season", "w1", "--format", "jsonl", "--in", str(events)]
    assert main(args) == 0
    assert "imported 30 rows (30 new)" in capsys.readouterr().out
    assert main(args) == 0
    assert "imported 30 rows (0 new)" in capsys.readouterr().out
    board = Leaderboard(redis.Redis(port=redis_server.port), "copy")
    assert {e.player: e.points for e in board.iter()} == expected


def test_import_of_a_bad_file_is_one_line(tmp_path, capsys, redis_server):
    url = f"redis://127.0.0.1:{redis_server.port}"
    bad = tmp_path / "bad.csv"
    bad.write_text("player,points\nann,ten\n")
    assert main(["import", "--store", str(tmp_path / "s.db"), "--create-store", "--board", url, "--name", "b",
                 "--in", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "fastrank import: error: row 1: points must be an integer, not 'ten'"
    assert main(["import", "--store", str(tmp_path / "s.db"), "--board", url, "--name", "b",
                 "--in", str(tmp_path / "missing.csv")]) == 2
    assert "--in " in capsys.readouterr().err


def test_apply_follow_serves_metrics_and_stops_on_sigterm(tmp_path, redis_server):
    redis.Redis(port=redis_server.port).flushall()
    store = tmp_path / "scores.db"
    writer = ScoreService(Leaderboard(redis.Redis(port=redis_server.port), "cup", season="w1"),
                          SQLiteStore(store), apply=False)
    for i in range(5):
        writer.submit(f"m{i}", "ann", 1, at=T0 + i)
    port = free_port()
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-m", "fastrank.cli", "apply", "--store", str(store), "--board",
                              f"redis://127.0.0.1:{redis_server.port}", "--name", "cup", "--follow",
                              "--interval", "0.05", "--metrics-port", str(port)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "applied 5 events"
        body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30).read().decode()
        assert 'fastrank_events_applied_total{board="cup"} 5.0' in body
        writer.submit("m9", "ann", 1, at=T0 + 9)
        assert child.stdout.readline().strip() == "applied 1 events"
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert err == ""
    board = Leaderboard(redis.Redis(port=redis_server.port), "cup")
    assert {e.player: e.points for e in board.iter()} == {"ann": 6}
