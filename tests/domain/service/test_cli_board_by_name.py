"""``fastrank apply`` and ``rebuild`` open the board by its name alone (#24):
its season and options come from the descriptor it stores; options given on
the command line are checked against it."""
from __future__ import annotations

import pytest

from fastrank import Engine, Leaderboard

from cli_support import cup_snapshot, run



@pytest.fixture
def setup(tmp_path):
    """A store with 12 events of a dense board in season w2 (rolled over from
    w1) and an Engine snapshot of the board, nothing applied yet."""
    def board(engine):
        made = Leaderboard(engine, "cup", season="w1", ranking="dense", tiebreak="latest")
        made.rollover("w2")
        return made
    return cup_snapshot(tmp_path, 12, players=4, points=3, board=board, apply=False)


@pytest.mark.parametrize("command", ["apply", "rebuild"])
def test_the_name_alone_opens_the_board(setup, capsys, command):
    store_path, snap = setup
    status, out, err = run([command, "--store", str(store_path), "--snapshot", str(snap), "--name", "cup"], capsys)
    assert status == 0, err
    engine = Engine()
    engine.load(snap)
    board = Leaderboard(engine, "cup")
    assert (board.season, board.ranking, board.tiebreak) == ("w2", "dense", "latest")
    assert board.count() == 4 and board.top(1)[0].rank == 1
    if command == "rebuild":
        assert "rebuilt cup:w2" in out


@pytest.mark.parametrize("flag, value, shown", [
    ("--season", "w1", "season='w2', not season='w1'"),
    ("--ranking", "ordinal", "ranking='dense', not ranking='ordinal'"),
    ("--tiebreak", "none", "tiebreak='latest', not tiebreak=None"),
    ("--point-bits", "10", "point_bits=20, not point_bits=10"),
])
@pytest.mark.parametrize("command", ["apply", "rebuild"])
def test_an_option_that_differs_from_the_stored_one_is_refused(setup, capsys, command, flag, value, shown):
    store_path, snap = setup
    before = snap.read_bytes()
    status, _, err = run([command, "--store", str(store_path), "--snapshot", str(snap), "--name", "cup",
                          flag, value], capsys)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"fastrank {command}: error: leaderboard 'cup' was made with ")
    assert shown in lines[0]
    assert snap.read_bytes() == before                     # nothing written


def test_matching_options_are_accepted(setup, capsys):
    store_path, snap = setup
    status, _, err = run(["apply", "--store", str(store_path), "--snapshot", str(snap), "--name", "cup",
                          "--season", "w2", "--ranking", "dense", "--tiebreak", "latest"], capsys)
    assert status == 0, err
