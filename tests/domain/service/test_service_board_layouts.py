"""The service writes scores in seconds since 1970 without a subscore: a board
laid out otherwise (its own epoch, a coarser tick, subscore bits) is refused
at construction instead of being written with wrong scores."""
from __future__ import annotations

import pytest

from fastrank import Leaderboard, SQLiteStore, ScoreService


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "scores.db")
    yield s
    s.close()


def test_a_board_with_its_own_epoch_or_subscore_is_refused(client, store):
    for options in ({"epoch": 1_790_000_000, "time_bits": 30}, {"tick": "1min", "time_bits": 30},
                    {"subscore_bits": 3, "time_bits": 30}):
        board = Leaderboard(client, f"big{len(options)}{sorted(options)[0]}", season="s1", point_bits=20,
                            **options)
        with pytest.raises(ValueError, match="a ScoreService writes boards that count time in seconds"):
            ScoreService(board, store)
