"""Concurrent writers (threads) on every backend: no lost update, the dense
companion always in step with the board."""
from __future__ import annotations

import random
import threading
from collections import Counter

from fastrank import Leaderboard

THREADS = 4
ROUNDS = 60
PLAYERS = [f"p{i}" for i in range(6)]


def hammer(work):
    start = threading.Barrier(THREADS)
    errors = []

    def body(seed):
        try:
            start.wait()
            work(random.Random(seed))
        except Exception as exc:  # reported below: a thread's failure fails the test
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(seed,)) for seed in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def assert_dense_in_step(client, board):
    points = [e.points for e in board.iter(batch=50)]
    keys = board.keys()
    counts = {k.decode(): int(v) for k, v in client.hgetall(keys[2]).items()}
    assert counts == {str(p): n for p, n in Counter(points).items()}
    assert client.zcard(keys[1]) == len(set(points))


def test_concurrent_increments_lose_nothing(client):
    board = Leaderboard(client, "race", ranking="dense")
    sent = Counter()
    lock = threading.Lock()

    def work(rng):
        for i in range(ROUNDS):
            player, delta = rng.choice(PLAYERS), rng.randint(-3, 5)
            board.submit(player, delta, at=i, with_rank=i % 2 == 0)
            with lock:
                sent[player] += delta

    hammer(work)
    assert {e.player: e.points for e in board.iter()} == {p: sent[p] for p in sent}
    assert_dense_in_step(client, board)


def test_concurrent_best_keeps_the_best(client):
    board = Leaderboard(client, "best", ranking="dense", rule="best")
    sent = {p: [] for p in PLAYERS}
    lock = threading.Lock()

    def work(rng):
        for i in range(ROUNDS):
            player, points = rng.choice(PLAYERS), rng.randint(0, 1000)
            board.submit(player, points, at=i)
            with lock:
                sent[player].append(points)

    hammer(work)
    assert {e.player: e.points for e in board.iter()} == {p: max(v) for p, v in sent.items() if v}
    assert_dense_in_step(client, board)


def test_concurrent_writes_and_removes(client):
    board = Leaderboard(client, "churn", ranking="dense", rule="set")

    def work(rng):
        for i in range(ROUNDS):
            player = rng.choice(PLAYERS)
            if rng.random() < 0.3:
                board.remove(player)
            else:
                board.submit(player, rng.randint(0, 4), at=i)

    hammer(work)
    assert_dense_in_step(client, board)
