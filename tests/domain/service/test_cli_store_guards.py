"""``fastrank apply`` / ``fastrank rebuild`` and the store (#24): a store that
does not exist is an error (exit 2, no file made) unless ``--create-store``;
a rebuild from a store without events of the board refuses to empty a board
that holds players (exit 1) unless ``--allow-empty``; a bad URL prints one
line (exit 2); a server that cannot be reached exits 1; a store of the layout
before boards needs ``--migrate-store`` (exit 1 without). Real servers:
SQLite files, PostgreSQL, Redis; through ``main`` and as a process."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest
import redis

import fastrank
from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService

from cli_support import cup_snapshot, run

T0 = 1_790_000_000


@pytest.fixture
def setup(tmp_path):
    """A store with events of board "cup" and an Engine snapshot of the board applied from them."""
    return cup_snapshot(tmp_path, 12)


def args_for(command, store, snap, *extra, name="cup"):
    return [command, "--store", str(store), "--snapshot", str(snap), "--name", name, "--season", "w1", *extra]


def board_in(snap):
    engine = Engine()
    engine.load(snap)
    return {e.player: e.points for e in Leaderboard(engine, "cup", season="w1").iter()}


@pytest.mark.parametrize("command", ["rebuild", "apply"])
def test_a_missing_store_is_an_error_and_is_not_created(setup, tmp_path, capsys, command):
    _, snap = setup
    before = snap.read_bytes()
    status, out, err = run(args_for(command, tmp_path / "typo.db", snap), capsys)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "does not exist" in err and "--create-store" in err
    assert not (tmp_path / "typo.db").exists() and snap.read_bytes() == before


def test_create_store_makes_one_but_an_empty_store_does_not_empty_the_board(setup, tmp_path, capsys):
    _, snap = setup
    before = snap.read_bytes()
    status, _, err = run(args_for("rebuild", tmp_path / "new.db", snap, "--create-store"), capsys)
    assert status == 1 and (tmp_path / "new.db").exists()
    assert len(err.strip().splitlines()) == 1 and "no events" in err and "--allow-empty" in err
    assert snap.read_bytes() == before and len(board_in(snap)) == 6
    # apply from an empty store changes nothing and succeeds
    assert run(args_for("apply", tmp_path / "new.db", snap), capsys)[0] == 0


def test_a_store_of_another_board_does_not_empty_this_one_unless_allowed(setup, capsys):
    store_path, snap = setup
    store = SQLiteStore(store_path)
    ScoreService(Leaderboard(Engine(), "other", season="w1"), store).submit("x", "zed", 3, at=T0)
    store.close()
    before = board_in(snap)
    status, _, err = run(args_for("rebuild", store_path, snap, name="cup2"), capsys)
    assert status == 0  # a board that holds nothing is rebuilt (empty) without asking
    engine = Engine()
    engine.load(snap)
    Leaderboard(engine, "cup", season="w1").submit("p0", 0)
    status, _, err = run(args_for("rebuild", store_path, snap), capsys)
    assert status == 0 and board_in(snap) == before   # cup has its events: rebuilt as it was
    # a store holding only other boards' events refuses to empty cup
    other = store_path.parent / "other.db"
    store = SQLiteStore(other)
    ScoreService(Leaderboard(Engine(), "other", season="w1"), store).submit("x", "zed", 3, at=T0)
    store.close()
    snap_before = snap.read_bytes()
    status, _, err = run(args_for("rebuild", other, snap), capsys)
    assert status == 1 and "no events of board 'cup'" in err and snap.read_bytes() == snap_before
    status, out, _ = run(args_for("rebuild", other, snap, "--allow-empty"), capsys)
    assert status == 0 and "0 players" in out and board_in(snap) == {}


def test_bad_urls_give_one_line_and_exit_2(setup, capsys):
    store_path, snap = setup
    for argv, message in (
            (args_for("rebuild", "postgresql://%zz@/", snap), "invalid percent-encoded"),
            (args_for("rebuild", "host=127.0.0.1 bogus=3", snap), "invalid connection option"),
            (args_for("apply", "mysql://db/scores", snap), "not a store this command opens"),
            (args_for("rebuild", store_path, snap, "--board", "redis://host:notaport"), "--board"),
            (args_for("rebuild", store_path, snap, "--board", "nosuch://x"), "unsupported URL scheme")):
        status, out, err = run(argv, capsys)
        assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, (argv, err)
        assert message in err and "Traceback" not in err


def test_unreachable_servers_exit_1(setup, capsys):
    store_path, snap = setup
    for argv, message in (
            (args_for("rebuild", "postgresql://127.0.0.1:1/scores?connect_timeout=3", snap), "--store (PostgreSQL)"),
            (args_for("rebuild", store_path, snap, "--board", "redis://127.0.0.1:1"), "cannot reach")):
        status, out, err = run(argv, capsys)
        assert status == 1 and len(err.strip().splitlines()) == 1 and message in err, (argv, err)


def test_rebuild_into_redis_refuses_to_empty_it_from_an_empty_postgres_store(redis_server, postgres_dsn, capsys):
    client = redis.Redis(port=redis_server.port)
    client.flushall()
    Leaderboard(client, "cup", season="w1").submit("live", 42)
    argv = ["rebuild", "--store", postgres_dsn, "--board", redis_server.url, "--name", "cup", "--season", "w1"]
    status, _, err = run(argv, capsys)
    assert status == 1 and "refusing to empty" in err
    assert Leaderboard(client, "cup", season="w1").score("live") == 42
    assert run(argv + ["--allow-empty"], capsys)[0] == 0
    assert Leaderboard(client, "cup", season="w1").count() == 0


def test_a_store_of_the_layout_before_boards_needs_migrate_store(setup, tmp_path, capsys):
    _, snap = setup
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as conn:
        conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, "
                     "season TEXT NOT NULL, match_id TEXT, player TEXT NOT NULL, points BIGINT NOT NULL, "
                     "at DOUBLE PRECISION NOT NULL, day BIGINT NOT NULL, tombstoned INTEGER NOT NULL, "
                     "UNIQUE (match_id, player))")
        conn.execute("CREATE TABLE totals (season TEXT NOT NULL, player TEXT NOT NULL, points BIGINT NOT NULL, "
                     "at DOUBLE PRECISION NOT NULL, last_id BIGINT NOT NULL, PRIMARY KEY (season, player))")
        conn.execute(f"INSERT INTO events VALUES (1, 'score', 'w1', 'm1', 'ann', 9, {T0}, {T0 // 86400}, 0)")
        conn.execute(f"INSERT INTO totals VALUES ('w1', 'ann', 9, {T0}, 1)")
    status, _, err = run(args_for("rebuild", old, snap), capsys)
    assert status == 1 and len(err.strip().splitlines()) == 1 and "--migrate-store" in err
    status, out, _ = run(args_for("rebuild", old, snap, "--migrate-store", "cup"), capsys)
    assert status == 0 and "1 players" in out and board_in(snap) == {"ann": 9}


def test_as_a_process_a_missing_store_prints_one_line(setup, tmp_path):
    _, snap = setup
    src = os.path.dirname(os.path.dirname(fastrank.__file__))   # the fastrank under test, in the child too
    done = subprocess.run([sys.executable, "-m", "fastrank.cli", *args_for("rebuild", tmp_path / "typo.db", snap)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": src})
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "typo.db").exists()
