"""``fastrank apply`` / ``fastrank rebuild`` with bad arguments: one line on
stderr naming the problem, exit status 2, no traceback, and the board (an
Engine snapshot here) left as it was."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from fastrank import Engine, Leaderboard

from cli_support import cup_snapshot, run



@pytest.fixture
def setup(tmp_path):
    """A store with 20 events and an Engine snapshot holding the board applied from them."""
    return cup_snapshot(tmp_path, 20)


def base(command, store_path, snap, **changes):
    options = {"--store": str(store_path), "--snapshot": str(snap), "--name": "cup", "--season": "w1"}
    options.update(changes)
    args = [command]
    for flag, value in options.items():
        args += [flag, value]
    return args


BAD = [
    ("rebuild", {"--store": "{missing}/nowhere/scores.db"}, "the store's folder does not exist"),
    ("apply", {"--store": "{missing}/nowhere/scores.db"}, "the store's folder does not exist"),
    ("rebuild", {"--name": "c{u}p"}, "name must be non-empty text without braces"),
    ("apply", {"--season": "w{1"}, "season must be non-empty text without braces"),
    ("rebuild", {"--name": ""}, "name must be non-empty text without braces"),
    ("rebuild", {"--batch": "0"}, "--batch must be an int >= 1"),
    ("rebuild", {"--batch": "-5"}, "--batch must be an int >= 1"),
    ("rebuild", {"--time-bits": "20"}, "made with time_bits=33, not time_bits=20"),
    ("apply", {"--time-bits": "20"}, "made with time_bits=33, not time_bits=20"),
    ("rebuild", {"--time-bits": "0"}, "time_bits must be a positive integer"),
    ("rebuild", {"--point-bits": "40"}, "at most 53"),
    ("apply", {"--interval": "-1"}, "--interval must be a positive number of seconds"),
    ("apply", {"--interval": "nan"}, "--interval must be a positive number of seconds"),
    ("rebuild", {"--board": "nosuch://x"}, "--board"),
]


@pytest.mark.parametrize("command, changes, message", BAD)
def test_bad_arguments_give_one_line_and_exit_2(setup, tmp_path, capsys, command, changes, message):
    store_path, snap = setup
    changes = {k: v.replace("{missing}", str(tmp_path)) if k == "--store" else v for k, v in changes.items()}
    before = snap.read_bytes()
    status, out, err = run(base(command, store_path, snap, **changes), capsys)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"fastrank {command}: error: "), err
    assert message in lines[0]
    assert "Traceback" not in err and out == ""
    assert snap.read_bytes() == before                   # the board was not saved over
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("command", ["apply", "rebuild"])
def test_a_store_that_is_a_folder_or_not_a_database_is_refused(setup, tmp_path, capsys, command):
    _, snap = setup
    (tmp_path / "folder.db").mkdir()
    (tmp_path / "notes.db").write_bytes(b"these are not the scores you are looking for" * 100)
    before = snap.read_bytes()
    for store, message in ((tmp_path / "folder.db", "is a folder"), (tmp_path / "notes.db", "not a database")):
        status, out, err = run(base(command, store, snap), capsys)
        assert status == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and message in err, err
    assert (tmp_path / "notes.db").read_bytes() == b"these are not the scores you are looking for" * 100
    assert snap.read_bytes() == before


def test_a_rebuild_with_too_few_time_bits_leaves_the_board_answering(setup, capsys):
    store_path, snap = setup
    status, _, _ = run(base("rebuild", store_path, snap, **{"--time-bits": "20"}), capsys)
    assert status == 2
    engine = Engine()
    engine.load(snap)
    board = Leaderboard(engine, "cup", season="w1")
    assert board.count() == 6 and board.rank("p0") is not None
    assert run(base("rebuild", store_path, snap, **{"--batch": "2"}), capsys)[0] == 0


def test_a_bad_argument_as_a_process_prints_no_traceback(setup):
    store_path, snap = setup
    src = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["fastrank"].__file__)))
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "fastrank.cli", *base("rebuild", store_path, snap,
                                                                      **{"--batch": "0"})],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "fastrank rebuild: error: --batch must be an int >= 1, not 0"
    assert done.stdout == ""
