"""``fastrank apply`` and ``fastrank rebuild`` against a SQLite store."""
from __future__ import annotations

import redis

from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService
from fastrank.cli import main

T0 = 1_790_000_000


def record(path, apply=False):
    writer = ScoreService(Leaderboard(Engine(), "cup", season="w1", ranking="dense"), SQLiteStore(path),
                          apply=apply)
    for i in range(50):
        writer.submit_match(f"m{i}", {f"p{i % 7}": i % 4 + 1}, at=T0 + i)
    return {t.player: t.points for page in writer.store.totals("w1", board=writer.board_key) for t in page}


def board_of(client):
    return {e.player: e.points for e in Leaderboard(client, "cup", season="w1", ranking="dense").iter()}


def test_apply_into_an_engine_snapshot(tmp_path, capsys):
    store = tmp_path / "scores.db"
    totals = record(store)
    snap = tmp_path / "board.snap"
    args = ["apply", "--store", str(store), "--snapshot", str(snap), "--name", "cup", "--season", "w1",
            "--ranking", "dense"]
    assert main(args) == 0
    assert "applied 50 events" in capsys.readouterr().out
    engine = Engine()
    engine.load(snap)
    assert board_of(engine) == totals
    assert main(args) == 0                       # nothing twice: the offset is in the snapshot
    assert "applied 0 events" in capsys.readouterr().out


def test_rebuild_into_redis(tmp_path, capsys, redis_server):
    store = tmp_path / "scores.db"
    totals = record(store)
    client = redis.Redis(port=redis_server.port)
    client.flushall()
    assert main(["rebuild", "--store", str(store), "--board", redis_server.url, "--name", "cup",
                 "--season", "w1", "--ranking", "dense", "--batch", "3"]) == 0
    assert "rebuilt cup:w1: 7 players" in capsys.readouterr().out
    assert board_of(client) == totals
