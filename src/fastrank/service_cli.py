"""``fastrank apply`` and ``fastrank rebuild``: the score service from the shell.

Both name a store (a SQLite file, or a PostgreSQL DSN / URL) and a board (a
``fastrank.engine.connect`` URL plus the board's name: its season and
configuration are read from the descriptor it stores; ``--season``,
``--order``... given are checked against it, and one that differs is refused). With the in-process engine
(``--board memory://``) the board lives in an Engine snapshot file
(``--snapshot``): loaded first when it exists, saved at the end.

- ``fastrank apply``: apply every committed event not yet on the board (the
  applier of a board whose API processes only record); ``--follow`` keeps
  tailing the log.
- ``fastrank rebuild``: load the board again from the store beside the old
  one and swap it in, with a progress bar.

Bad arguments (a missing store folder, a name the board refuses, an option
that differs from the board's stored one, ``--batch``
below 1, too few ``--time-bits`` for the stored times, ``--interval`` not
above 0) print one line, ``fastrank <command>: error: ...``, on stderr and
exit with status 2; nothing is written.
"""
from __future__ import annotations

import argparse
import math
import os
import sqlite3
import sys
import time
from typing import Any, TextIO

from fastrank.progress import Progress
from fastrank.engine.connect import connect
from fastrank.leaderboard.board import Leaderboard
from fastrank.service.postgres import PostgresStore
from fastrank.service.service import ScoreService
from fastrank.service.sqlite import SQLiteStore
from fastrank.service.store import SQLStore

__all__ = ["add_commands", "run_command"]


def open_store(spec: str) -> SQLStore:
    """A PostgresStore for a DSN or postgres URL, else a SQLiteStore for the path."""
    if _is_postgres(spec):
        return PostgresStore(spec)
    return SQLiteStore(spec)


def _board_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", required=True, help="SQLite file, or PostgreSQL DSN / URL")
    p.add_argument("--board", default="memory://", help="where the board lives (fastrank.engine.connect URL)")
    p.add_argument("--snapshot", default=None, metavar="PATH",
                   help="with --board memory://: the Engine snapshot to load first and save after")
    p.add_argument("--name", required=True, help="the board's name")
    # the board's own options: read from its descriptor; any given here is checked against it
    p.add_argument("--season", default=None, help="the board's season (default: the stored one)")
    p.add_argument("--order", default=None, choices=["desc", "asc"])
    p.add_argument("--tiebreak", default=None, choices=["earliest", "latest", "none"])
    p.add_argument("--ranking", default=None, choices=["ordinal", "competition", "dense"])
    p.add_argument("--point-bits", type=int, default=None)
    p.add_argument("--time-bits", type=int, default=None)


def board_from_args(client: Any, args: argparse.Namespace) -> Leaderboard:
    """The board ``--name`` on ``client``, opened with its stored options; the
    options given (``--season``, ``--order``...) are checked against them
    (BoardConfigMismatch, a ValueError, when one differs). A board new to
    ``client`` is made with the options given and the defaults."""
    given: dict[str, Any] = {}
    for option in ("season", "order", "ranking", "point_bits", "time_bits"):
        value = getattr(args, option)
        if value is not None:
            given[option] = value
    if args.tiebreak is not None:
        given["tiebreak"] = None if args.tiebreak == "none" else args.tiebreak
    return Leaderboard(client, args.name, **given)

def add_commands(sub: Any) -> None:
    """Add ``apply`` and ``rebuild`` to the ``fastrank`` command's subparsers."""
    p_apply = sub.add_parser("apply", help="apply committed scores to the board (exactly once)",
                             description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _board_options(p_apply)
    p_apply.add_argument("--follow", action="store_true", help="keep tailing the log (Ctrl-C stops)")
    p_apply.add_argument("--interval", type=float, default=0.5, help="seconds between polls with --follow")
    p_rebuild = sub.add_parser("rebuild", help="rebuild the board from the score store",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _board_options(p_rebuild)
    p_rebuild.add_argument("--batch", type=int, default=50_000, help="players per pipelined batch")


def _refuse(args: argparse.Namespace, message: str) -> int:
    """Print one line, ``fastrank <command>: error: <message>``, on stderr; exit status 2."""
    print(f"fastrank {args.command}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments themselves (checked before anything is opened), or None."""
    if args.command == "rebuild" and args.batch < 1:
        return f"--batch must be an int >= 1, not {args.batch}"
    if args.command == "apply" and not (math.isfinite(args.interval) and args.interval > 0):
        return f"--interval must be a positive number of seconds, not {args.interval}"
    if not _is_postgres(args.store):
        folder = os.path.dirname(os.path.abspath(args.store))
        if not os.path.isdir(folder):
            return f"--store {args.store}: the store's folder does not exist ({folder})"
        if os.path.isdir(args.store):
            return f"--store {args.store} is a folder: name the SQLite file in it"
    return None


def _is_postgres(spec: str) -> bool:
    return spec.startswith(("postgres://", "postgresql://")) or "=" in spec


def run_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``fastrank apply`` or ``fastrank rebuild`` with parsed arguments.

    Bad arguments (a missing store folder, a board name or configuration the
    board refuses, ``--batch`` below 1, ``--interval`` not above 0, stored
    times that do not fit ``--time-bits``, a snapshot that does not load)
    print one line on stderr and return 2, the exit status of a usage error;
    the board is left as it was and its snapshot is not written."""
    out = sys.stdout if out is None else out
    problem = _argument_problem(args)
    if problem is not None:
        return _refuse(args, problem)
    try:
        client: Any = connect(args.board)  # memory:// gives a fastrank.Engine, which has save/load
    except ValueError as exc:
        return _refuse(args, f"--board {args.board}: {exc}")
    snapshot = args.snapshot if args.board.startswith("memory:") else None
    try:
        if snapshot and os.path.exists(snapshot):
            client.load(snapshot)
    except ValueError as exc:  # SnapshotError
        return _refuse(args, f"--snapshot {snapshot}: {exc}")
    try:  # after the snapshot: the board's descriptor is in it
        board = board_from_args(client, args)
    except ValueError as exc:
        return _refuse(args, str(exc))
    try:
        store = open_store(args.store)
    except sqlite3.DatabaseError as exc:  # a file that is not a SQLite database
        return _refuse(args, f"--store {args.store}: {exc}")
    try:
        service = ScoreService(board, store)
        if board.codec.integer:  # a --time-bits that cannot hold the stored times: refused for both commands
            service._check_times(store.time_range(service.season))
        if args.command == "rebuild":
            bar = Progress(0, "rebuilding")

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done)

            t0 = time.perf_counter()
            try:
                players = service.rebuild(progress=progress, batch=args.batch)
            finally:
                bar.close()
            took = time.perf_counter() - t0
            print(f"rebuilt {args.name}:{board.season}: {players:,} players in {took:.2f} s "
                  f"({players / max(took, 1e-9):,.0f} players/s)", file=out)
        else:
            applied = service.apply_pending()
            print(f"applied {applied:,} events", file=out)
            while args.follow:
                time.sleep(args.interval)
                applied = service.apply_pending()
                if applied:
                    print(f"applied {applied:,} events", file=out)
    except KeyboardInterrupt:
        pass
    except ValueError as exc:  # refused by the board or the service: nothing was changed
        return _refuse(args, str(exc))
    finally:
        store.close()
    if snapshot:
        client.save(snapshot)
    return 0
