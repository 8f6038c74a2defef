"""What the command-line tests share: running ``fastrank`` in-process, and a
store of board "cup" with an Engine snapshot of the board."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService
from fastrank.cli import main

T0 = 1_790_000_000


def run(args: list[str], capsys: Any) -> tuple[Any, str, str]:
    """main(args): (exit status, stdout, stderr); argparse's own exits count too."""
    try:
        status: Any = main(args)
    except SystemExit as exit_:
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def cup_snapshot(tmp_path: Path, events: int, *, players: int = 6, points: int = 5,
                 board: Optional[Callable[[Engine], Leaderboard]] = None, apply: bool = True) -> tuple[Path, Path]:
    """A SQLite store with ``events`` scores of board "cup" (season w1 unless
    ``board`` makes another) and an Engine snapshot of the board (applied
    from them unless ``apply=False``): (store path, snapshot path)."""
    store_path = tmp_path / "scores.db"
    engine = Engine()
    made = Leaderboard(engine, "cup", season="w1") if board is None else board(engine)
    store = SQLiteStore(store_path)
    service = ScoreService(made, store, apply=apply)
    for i in range(events):
        service.submit(f"m{i}", f"p{i % players}", i % points + 1, at=T0 + i)
    store.close()
    snap = tmp_path / "board.snap"
    engine.save(snap)
    return store_path, snap
