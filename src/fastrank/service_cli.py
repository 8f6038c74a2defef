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
- ``fastrank export``: the board's standings (``--what board``) or the
  store's events of the board (``--what events``) as CSV or JSON Lines, to
  ``--out`` (``-``: stdout).
- ``fastrank import``: rows of CSV or JSON Lines (``player``, ``points``,
  optionally ``match_id`` and ``at``; an events export imports as is)
  submitted through the service in batches, with a progress bar;
  idempotent, so importing a file twice records it once.

``apply --metrics-port PORT`` serves the service's metrics on
``http://host:PORT/metrics`` while it runs; ``apply --follow`` stops on
SIGTERM (or Ctrl-C) after the batch it is applying, with status 0.

Exit status: 0 done; 1 refused or failed; 2 a usage error. Each error is
one line on stderr, never a traceback, and nothing is written:

- 2: bad arguments: a store that does not exist (``--create-store`` creates
  a new one), a missing store folder, a store URL that does not parse or is
  not PostgreSQL's, a bad ``--board`` URL, a name the board refuses, an
  option that differs from the board's stored one, ``--batch`` below 1, too few ``--time-bits`` for the stored times,
  ``--interval`` not above 0;
- 1: refused or failed: a store or board server that cannot be reached, a
  store in a layout this version does not read (one of the layout before
  boards needs ``--migrate-store NAME`` once, which files its rows under
  board NAME), a ``rebuild`` from a store that holds no events of this
  board and season while the board holds players (``--allow-empty`` lets it
  empty the board).
"""
from __future__ import annotations

import argparse
import math
import os
import signal
import sqlite3
import sys
import threading
import time
from typing import IO, Any, TextIO

from fastrank.progress import Progress
from fastrank.engine.connect import connect
from fastrank.leaderboard.board import Leaderboard
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from fastrank.service.postgres import PostgresStore
from fastrank.service.metrics import ServiceMetrics
from fastrank.service.service import ScoreService
from fastrank.service.transfer import BOARD_FIELDS, EVENT_FIELDS, export_board, export_events, import_rows, \
    read_rows, write_rows
from fastrank.service.sqlite import SQLiteStore
from fastrank.service.store import SQLStore, StoreSchemaError

__all__ = ["add_commands", "run_command"]


def open_store(spec: str, *, migrate_board: str | None = None) -> SQLStore:
    """A PostgresStore for a DSN or postgres URL, else a SQLiteStore for the
    path (created when missing: the commands check that first);
    ``migrate_board``: see ``SQLStore.__init__``."""
    if _is_postgres(spec):
        return PostgresStore(spec, migrate_board=migrate_board)
    return SQLiteStore(spec, migrate_board=migrate_board)


def _board_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", required=True, help="SQLite file, or PostgreSQL DSN / URL")
    p.add_argument("--create-store", action="store_true",
                   help="create the SQLite store when it does not exist (else that is an error)")
    p.add_argument("--migrate-store", default=None, metavar="BOARD",
                   help="migrate a store of the layout before boards, filing its rows under BOARD")
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
    p_apply.add_argument("--metrics-port", type=int, default=None, metavar="PORT",
                         help="serve the service's metrics (Prometheus text) on this port while running")
    p_export = sub.add_parser("export", help="write the board's standings or the store's events to a file",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _board_options(p_export)
    p_export.add_argument("--what", choices=["board", "events"], default="board")
    p_export.add_argument("--format", choices=["csv", "jsonl"], default="csv")
    p_export.add_argument("--out", default="-", help="the file to write (- for stdout)")
    p_import = sub.add_parser("import", help="submit scores from a file through the score service",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _board_options(p_import)
    p_import.add_argument("--format", choices=["csv", "jsonl"], default="csv")
    p_import.add_argument("--in", dest="source", required=True, help="the file to read (- for stdin)")
    p_import.add_argument("--batch", type=int, default=1000, help="rows per store transaction")
    p_rebuild = sub.add_parser("rebuild", help="rebuild the board from the score store",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    _board_options(p_rebuild)
    p_rebuild.add_argument("--batch", type=int, default=50_000, help="players per pipelined batch")
    p_rebuild.add_argument("--allow-empty", action="store_true",
                           help="rebuild even when the store holds no events of this board and season "
                                "(which empties the board)")


def _refuse(args: argparse.Namespace, message: str) -> int:
    """Print one line, ``fastrank <command>: error: <message>``, on stderr; exit status 2."""
    print(f"fastrank {args.command}: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _fail(args: argparse.Namespace, message: str) -> int:
    """Print one line, ``fastrank <command>: failed: <message>``, on stderr; exit status 1."""
    print(f"fastrank {args.command}: failed: {' '.join(message.split())}", file=sys.stderr)
    return 1


def _argument_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments themselves (checked before anything is opened), or None."""
    if args.command in ("rebuild", "import") and args.batch < 1:
        return f"--batch must be an int >= 1, not {args.batch}"
    if args.command == "apply" and not (math.isfinite(args.interval) and args.interval > 0):
        return f"--interval must be a positive number of seconds, not {args.interval}"
    if args.command == "apply" and args.metrics_port is not None and not 0 < args.metrics_port < 65536:
        return f"--metrics-port must be a TCP port (1-65535), not {args.metrics_port}"
    if args.command == "import" and args.source != "-" and not os.path.isfile(args.source):
        return f"--in {args.source}: no such file"
    if not _is_postgres(args.store):
        if "://" in args.store or args.store.startswith("file:"):
            return (f"--store {args.store}: not a store this command opens (a SQLite file path, "
                    "or a postgresql:// URL or libpq DSN)")
        folder = os.path.dirname(os.path.abspath(args.store))
        if not os.path.isdir(folder):
            return f"--store {args.store}: the store's folder does not exist ({folder})"
        if os.path.isdir(args.store):
            return f"--store {args.store} is a folder: name the SQLite file in it"
        if not os.path.exists(args.store) and not args.create_store:
            return f"--store {args.store} does not exist (give --create-store to create a new store there)"
    return None


def _is_postgres(spec: str) -> bool:
    return spec.startswith(("postgres://", "postgresql://")) or "=" in spec


def _store_name(spec: str) -> str:
    """How an error names the store: a SQLite path as given; a PostgreSQL DSN
    not at all (it may hold a password)."""
    return "--store (PostgreSQL)" if _is_postgres(spec) else f"--store {spec}"


def _store_error(exc: BaseException) -> int | None:
    """The exit status of an error opening or reading a PostgreSQL store: 2
    for a DSN that does not parse (psycopg's ProgrammingError), 1 for any
    other database error (a server that cannot be reached); None when exc is
    not psycopg's."""
    try:
        import psycopg
    except ImportError:
        return None
    if isinstance(exc, psycopg.ProgrammingError):
        return 2
    if isinstance(exc, psycopg.Error):
        return 1
    return None


def _stop_on_sigterm() -> threading.Event:
    """An event SIGTERM sets (from the main thread only: elsewhere none is installed)."""
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    return stop


class _opened:
    """A file by name for a command, or the given standard stream for ``-`` (left open)."""

    def __init__(self, name: str, mode: str, standard: TextIO) -> None:
        self.name, self.mode, self.standard = name, mode, standard
        self.file: IO[str] | None = None

    def __enter__(self) -> IO[str]:
        if self.name == "-":
            return self.standard
        self.file = file = open(self.name, self.mode, newline="", encoding="utf-8")
        return file

    def __exit__(self, *exc: object) -> None:
        if self.file is not None:
            self.file.close()


def run_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``fastrank apply`` or ``fastrank rebuild`` with parsed arguments;
    the exit status: 0 done, 1 refused or failed, 2 a usage error.

    Bad arguments (a store that does not exist without ``--create-store``, a
    missing store folder, a store DSN that does not parse, a bad ``--board``
    URL, a board name or configuration the board refuses, ``--batch`` below
    1, ``--interval`` not above 0, stored times that do not fit
    ``--time-bits``, a snapshot that does not load) print one line on stderr
    and return 2. A server that cannot be reached, a store in a layout this
    version does not read (``--migrate-store``), or a rebuild that would
    empty a board from a store without its events (``--allow-empty``)
    print one line and return 1. Either way the board is left as it was and
    its snapshot is not written."""
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
    except (RedisConnectionError, RedisTimeoutError) as exc:  # reading the descriptor needs the server
        return _fail(args, f"--board {args.board}: cannot reach the server: {exc}")
    try:
        store = open_store(args.store, migrate_board=args.migrate_store)
    except sqlite3.DatabaseError as exc:  # a file that is not a SQLite database
        return _refuse(args, f"--store {args.store}: {exc}")
    except StoreSchemaError as exc:
        return _fail(args, f"{_store_name(args.store)}: {exc}")
    except Exception as exc:
        status = _store_error(exc)
        if status is None:
            raise
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return (_refuse if status == 2 else _fail)(args, f"{_store_name(args.store)}: {text}")
    try:
        metrics = ServiceMetrics() if getattr(args, "metrics_port", None) else None
        service = ScoreService(board, store, metrics=metrics)
        if board.codec.integer:  # a --time-bits that cannot hold the stored times: refused for both commands
            service._check_times(store.time_range(service.season, board=service.board_key))
        if args.command == "rebuild" and not args.allow_empty \
                and not store.has_events(board=service.board_key, season=service.season):
            players = board.count()
            if players:
                return _fail(args, f"the store holds no events of board {args.name!r} season {args.season!r}, "
                                   f"and the board holds {players:,} players: refusing to empty it "
                                   "(check --store; give --allow-empty to rebuild it empty)")
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
        elif args.command == "export":
            rows = (export_board(board, board.season) if args.what == "board"
                    else export_events(store, board.season, board=service.board_key))
            fields = BOARD_FIELDS if args.what == "board" else EVENT_FIELDS
            with _opened(args.out, "w", out) as sink:
                count = write_rows(rows, sink, args.format, fields)
            print(f"exported {count:,} rows", file=sys.stderr if args.out == "-" else out)
        elif args.command == "import":
            bar = Progress(0, "importing")
            t0 = time.perf_counter()
            try:
                with _opened(args.source, "r", sys.stdin) as source:
                    result = import_rows(service, read_rows(source, args.format), batch=args.batch,
                                         progress=bar.update)
            finally:
                bar.close()
            took = time.perf_counter() - t0
            print(f"imported {result.rows:,} rows ({result.recorded:,} new) in {took:.2f} s", file=out)
        else:
            if metrics is not None:
                metrics.serve(args.metrics_port)
            stop = _stop_on_sigterm()
            applied = service.apply_pending()
            print(f"applied {applied:,} events", file=out)
            while args.follow and not stop.wait(args.interval):
                applied = service.apply_pending()
                if applied:
                    print(f"applied {applied:,} events", file=out)
    except KeyboardInterrupt:
        pass
    except ValueError as exc:  # refused by the board or the service: nothing was changed
        return _refuse(args, str(exc))
    except (RedisConnectionError, RedisTimeoutError) as exc:
        return _fail(args, f"--board {args.board}: cannot reach the server: {exc}")
    except Exception as exc:
        if _store_error(exc) is None:
            raise
        return _fail(args, f"the store failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    finally:
        store.close()
    if snapshot:
        client.save(snapshot)
    return 0
