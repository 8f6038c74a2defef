"""ScoreService.rebuild writes the board in ascending score order, one ZADD
per chunk: chunks cut inside a run of equal scores (a board without a
tie-break, many players on the same points), player ids that sort
differently as text and as bytes or contain the store's separator, and every
tie-break configuration must give the board that submitting one by one
gives, on the Engine, Redis and the Cluster."""
from __future__ import annotations

import pytest

from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.service.store import PLAYER_SEPARATOR

T0 = 1_790_000_000

NAMES = ["zed", "é", "e\u0301", "ü", "😀", "a" + PLAYER_SEPARATOR.decode() + "b", "A", "a", "10", "9"]


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "scores.db")
    yield s
    s.close()


def state(board):
    return [(e.player, e.points) for e in board.iter()]


@pytest.mark.parametrize("order,tiebreak", [("desc", None), ("desc", "earliest"), ("desc", "latest"),
                                            ("asc", "earliest"), ("asc", "latest")])
def test_rebuild_in_chunks_matches_submits(client, store, order, tiebreak):
    board = Leaderboard(client, "ties", season="s1", order=order, tiebreak=tiebreak)
    service = ScoreService(board, store)
    players = NAMES + [f"p{i:03d}" for i in range(70)]
    for i, player in enumerate(players):
        service.submit(f"m{i}", player, i % 3 + 1, at=T0 + (i % 4))   # runs of equal scores
    expected = state(board)
    ranks = {p: board.rank(p) for p in players}
    client.delete(*board.keys())
    seen = []
    assert service.rebuild(progress=lambda done, total: seen.append(done), batch=6) == len(players)
    assert seen == [min(k, len(players)) for k in range(6, len(players) + 6, 6)]
    assert state(board) == expected
    assert {p: board.rank(p) for p in players} == ranks
