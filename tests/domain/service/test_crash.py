"""The promise under failure: processes killed with SIGKILL at random moments, the
board's Redis killed and restarted empty, several writer processes and one applier.

Every submission that returned is in the store, and after ``recover`` (or
``rebuild``) the board equals the store's totals exactly: nothing lost, nothing
applied twice.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.testing import free_port, start_redis

SRC = str(Path(__file__).resolve().parents[3] / "src")
T0 = 1_790_000_000

# A stream of matches from `start` on; prints each match number once submit returned.
WRITER = r"""
import sys
import redis
from fastrank import Leaderboard, SQLiteStore, ScoreService
port, path, start, stop, apply = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
service = ScoreService(Leaderboard(redis.Redis(port=port), "crash", season="s"), SQLiteStore(path), apply=apply)
if apply:
    service.recover()
for i in range(start, stop):
    service.submit_match(f"{sys.argv[6]}{i}", {f"p{i % 13}": i % 7 + 1, f"q{i % 5}": 1}, at=T0 + i)
    print(i, flush=True)
""".replace("T0", str(T0))


def spawn(port, path, start, stop, apply=True, prefix="m"):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-c", WRITER, str(port), str(path), str(start), str(stop),
                             "1" if apply else "0", prefix],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def service_on(port, path):
    board = Leaderboard(redis.Redis(port=port), "crash", season="s")
    return board, ScoreService(board, SQLiteStore(path))


def check_in_step(board, service, acknowledged, prefix="m"):
    totals = {t.player: t.points for page in service.store.totals("s", board="crash") for t in page}
    assert {e.player: e.points for e in board.iter()} == totals
    events = service.store.events_after(0, limit=10**6, board="crash")
    recorded = {e.match_id for e in events}
    assert {f"{prefix}{i}" for i in acknowledged} <= recorded
    assert len(events) == len({(e.match_id, e.player) for e in events})  # nothing twice
    assert sum(totals.values()) == sum(e.points for e in events)


def test_writers_killed_at_random_moments_lose_nothing(redis_server, tmp_path):
    rnd = random.Random(int(os.environ.get("FASTRANK_SEED", "7")))
    path = tmp_path / "scores.db"
    redis.Redis(port=redis_server.port).flushall()
    acknowledged: list[int] = []
    start = 0
    for _ in range(8):
        child = spawn(redis_server.port, path, start, 10**9)
        # let it acknowledge a random number of matches (however slow the machine),
        # then kill it without warning at a random point of the next ones
        assert child.stdout is not None
        done: list[int] = []
        for _ in range(rnd.randint(1, 40)):
            line = child.stdout.readline()
            if not line:
                break
            done.append(int(line))
        time.sleep(rnd.uniform(0, 0.02))
        os.kill(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        assert child.returncode == -signal.SIGKILL, err
        done += [int(line) for line in out.split()]
        assert done, err
        acknowledged += done
        # the next process retries the match that may have been cut short
        start = done[-1] + 1
    board, service = service_on(redis_server.port, path)
    service.recover()
    check_in_step(board, service, acknowledged)


def test_the_boards_redis_killed_and_restarted_empty_is_rebuilt_exactly(tmp_path):
    port = free_port()
    (tmp_path / "redis").mkdir()
    server = start_redis(port, str(tmp_path / "redis"))
    path = tmp_path / "scores.db"
    try:
        board, service = service_on(port, path)
        for i in range(300):
            service.submit_match(f"m{i}", {f"p{i % 13}": i % 7 + 1, f"q{i % 5}": 1}, at=T0 + i)
        before = {e.player: e.points for e in board.iter()}
        server.proc.kill()                       # SIGKILL: the board is gone
        server.proc.wait()
        server = start_redis(port, str(tmp_path / "redis"))
        board, service = service_on(port, path)
        assert board.count() == 0
        assert service.rebuild() == len(before)
        assert {e.player: e.points for e in board.iter()} == before
        service.submit("after", "p1", 2, at=T0 + 999)
        check_in_step(board, service, range(300))
    finally:
        server.stop()


def test_two_writer_processes_and_one_applier(redis_server, tmp_path):
    path = tmp_path / "scores.db"
    redis.Redis(port=redis_server.port).flushall()
    board, applier = service_on(redis_server.port, path)
    writers = [spawn(redis_server.port, path, 0, 150, apply=False, prefix=p) for p in ("a", "b")]
    applied = 0
    while any(w.poll() is None for w in writers):
        applied += applier.apply_pending()
    for w in writers:
        out, err = w.communicate()
        assert w.returncode == 0, err
    applied += applier.apply_pending()
    assert applied == 600
    totals = {t.player: t.points for page in applier.store.totals("s", board="crash") for t in page}
    assert {e.player: e.points for e in board.iter()} == totals
    assert sum(totals.values()) == 2 * sum(i % 7 + 1 + 1 for i in range(150))


@pytest.mark.parametrize("kill_at", ["before_apply", "after_apply"])
def test_an_applier_killed_mid_batch_applies_each_event_once(redis_server, tmp_path, kill_at):
    """The offset moves in the same script as the scores: replaying a batch adds nothing."""
    path = tmp_path / "scores.db"
    redis.Redis(port=redis_server.port).flushall()
    board, writer = service_on(redis_server.port, path)
    writer.apply = False
    for i in range(40):
        writer.submit_match(f"m{i}", {f"p{i % 3}": 1}, at=T0 + i)
    if kill_at == "after_apply":
        writer.apply_pending()                   # applied, and the "crash" forgets it
    _, again = service_on(redis_server.port, path)
    again.recover()
    again.recover()
    assert {e.player: e.points for e in board.iter()} == {"p0": 14, "p1": 13, "p2": 13}
