"""ScoreService: record first, then apply, so no accepted score is ever lost.

The store (``SQLiteStore``, ``PostgresStore``) is the record of truth; the
board (a :class:`fastrank.Leaderboard` on the Engine, Redis or a cluster) is
a view of it that can always be rebuilt. The service is the only writer of
its board's season:

1. ``submit`` / ``submit_match`` validate (types, the ceilings per match and
   per player per day, the board's range) and commit the match's events to
   the store in one transaction. A retry of the same (match id, player)
   returns the first receipt and adds nothing; the same key with other
   points raises ``ConflictingResubmit`` and the original stays.
2. ``apply_pending`` tails the store's log after the board's offset (the id
   of the last event applied, kept under the board's hash tag) and applies
   the events with one script per batch that moves the offset in the same
   atomic step. An event is therefore applied once: a crash before the
   script leaves it pending (``recover`` applies it at start), a crash after
   leaves the offset past it. An event the board cannot take (its season
   was rolled over, its points do not fit) is marked rejected in the store
   with the reason (``rejected()``) and the offset moves past it.
3. ``rebuild`` checks its arguments and the stored times first, loads
   every total as of one event id into a new board beside the old one (same
   hash tag), swaps it in (RENAME, one script that also moves the offset),
   then applies what came after. While it runs the board carries a
   ``rebuilding`` flag: ``top`` and ``page`` answer from the store's indexed
   query (in the board's rank style), ``rank``, ``around`` and ``friends``
   raise ``RanksUpdating``, and appliers leave events pending. A
   rebuild that fails drops what it wrote and the flag: the old board
   answers as before.

Tombstoning a player or a match marks events and logs a correction (the
recomputed total), which the applier writes like any event.

The logic is written once as plans (``fastrank.runner``): ``ScoreService``
runs them on a sync client and ``fastrank.asyncio.ScoreService`` awaits them,
with the store's blocking calls in a worker thread.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Any, List, NamedTuple, Optional

import numpy as np
import numpy.typing as npt
from redis.exceptions import ResponseError

from fastrank.errors import PointsOutOfRange, SeasonFrozen
from fastrank.service.columns import ZaddColumns, ZaddPacked
from fastrank.runner import Call, Do, Run, Steps, SyncFace, checked_client, packaged_script, steps, twin
from fastrank.leaderboard.board import BoardPlans, Entry
from fastrank.leaderboard.teams import TeamPlans
from fastrank.leaderboard.parts import EMPTY_PLAYER, Ranker, count_arg, page_slice
from fastrank.service._totals import ScoreOrderScan
from fastrank.service.packed import ReadAhead, board_order
from fastrank.service.metrics import ServiceMetrics, log_event
from fastrank.service.review import Check, History, Reviewer, Submission, default_checks
from fastrank.service.review_queue import Flag
from fastrank.service.store import AuditRecord, CeilingExceeded, Event, SQLStore, Standing, Total

__all__ = ["RanksUpdating", "Receipt", "ScoreService", "ServicePlans"]

APPLY = packaged_script("service_apply", "fastrank.service")
SWAP = packaged_script("service_swap", "fastrank.service")
SKIP = packaged_script("service_skip", "fastrank.service")
REMOVE = packaged_script("service_remove", "fastrank.service")

Progress = Callable[[int, int], Any]

#: Threads (each with its own database connection) that read a rebuild's totals side by side.
READERS = 2


class Receipt(NamedTuple):
    """What the store recorded for one player of a match (a retry gets the same)."""

    event_id: int
    match_id: str
    player: str
    points: int
    at: float
    #: held for review (``review="hold"``): recorded, not counted until approved
    held: bool = False


class RanksUpdating(RuntimeError):
    """The board is being rebuilt from the store: its ranks are not exact yet."""


def ascending_order(players: npt.NDArray[np.object_], scores: npt.NDArray[np.float64],
                    batch: int) -> npt.NDArray[np.intp]:
    """The indexes of the players (bytes) in a sorted set's order (score,
    then member), as far as cutting it into chunks of ``batch`` needs:
    sorted by score, and a run of equal scores that a chunk boundary cuts is
    sorted by player id too, so every chunk sorts after the one before.
    O(n log n)."""
    order = np.argsort(scores)
    ranked = scores[order]
    sorted_to = 0
    for cut in range(batch, len(order), batch):
        if cut < sorted_to or ranked[cut - 1] != ranked[cut]:
            continue
        low = int(np.searchsorted(ranked, ranked[cut], side="left"))
        sorted_to = int(np.searchsorted(ranked, ranked[cut], side="right"))
        order[low:sorted_to] = sorted(order[low:sorted_to].tolist(), key=players.__getitem__)
    return order


def _receipt(e: Event) -> Receipt:
    return Receipt(e.id, e.match_id or "", e.player, e.points, e.at, e.kind == "held")


def _limit(value: Optional[int], name: str) -> Optional[int]:
    if value is not None and (type(value) is not int or value < 1):
        raise ValueError(f"{name} must be an int >= 1 or None, not {value!r}")
    return value


class ServicePlans:
    """The service's configuration and its methods as plans (no I/O here)."""

    def __init__(self, board: BoardPlans, store: SQLStore, *, max_points_per_match: Optional[int] = None,
                 max_points_per_day: Optional[int] = None, allow_negative: bool = False,
                 apply: bool = True, batch: int = 1000, max_clock_skew: Optional[float] = 300.0,
                 clock: Callable[[], float] = time.time, review: Optional[str] = None,
                 checks: Optional[Sequence[Check]] = None, metrics: Optional[ServiceMetrics] = None) -> None:
        if not isinstance(board, BoardPlans):
            raise TypeError(f"board must be a fastrank Leaderboard, not {type(board).__name__}")
        if isinstance(board, TeamPlans):  # its writes bypass the service's scripts' team totals
            raise TypeError("a ScoreService writes a board with its own scripts, which keep no team totals: "
                            "give it a Leaderboard, not a TeamLeaderboard")
        if not isinstance(store, SQLStore):
            raise TypeError(f"store must be a SQLiteStore or PostgresStore, not {type(store).__name__}")
        if board.period is not None:
            raise ValueError("a ScoreService writes one season: give the board a season, not a period")
        if board.rule != "incr":
            raise ValueError(f"a ScoreService adds up points: the board's rule must be 'incr', not {board.rule!r}")
        if (board.epoch, board.tick, board.subscore_bits, board.score_form) != (0, "1s", 0, "bits"):
            raise ValueError("a ScoreService writes boards that count time in seconds from 1970 without a "
                             f"subscore, in bits; this board has epoch={board.epoch!r}, tick={board.tick!r}, "
                             f"subscore_bits={board.subscore_bits}, score_form={board.score_form!r}")
        if type(batch) is not int or batch < 1:
            raise ValueError(f"batch must be an int >= 1, not {batch!r}")
        if max_clock_skew is not None and not (isinstance(max_clock_skew, (int, float))
                                               and not isinstance(max_clock_skew, bool) and 0 <= max_clock_skew < 1e9):
            raise ValueError(f"max_clock_skew must be seconds >= 0 or None, not {max_clock_skew!r}")
        if not callable(clock):
            raise TypeError(f"clock must be a callable returning seconds since the epoch, not {clock!r}")
        if review not in (None, "hold", "flag"):
            raise ValueError(f"review must be 'hold', 'flag' or None, not {review!r}")
        if metrics is not None and not isinstance(metrics, ServiceMetrics):
            raise TypeError(f"metrics must be a fastrank ServiceMetrics, not {type(metrics).__name__}")
        #: None, "hold" (an implausible score is recorded, not counted until approved) or "flag"
        #: (counted and listed); ``flags()`` lists the queue
        self.review = review
        self.reviewer = None if review is None else Reviewer(default_checks() if checks is None else checks)
        self._reviewed_players: set[str] = set()  # whose history the reviewer has read from the store
        self._population_read = False
        #: where submits, applies and the applier's lag are counted (None: nowhere)
        self.metrics = metrics
        self.board = board
        #: This service's clock (seconds since the epoch): the time the store records an event at
        #: (which the day ceiling counts on), the default ``at`` and what ``max_clock_skew`` is measured from.
        self.clock = clock
        #: How far ahead of this machine's clock a claimed ``at`` may be (seconds; None: no limit).
        self.max_clock_skew = None if max_clock_skew is None else float(max_clock_skew)
        self.store = store
        self._client = checked_client(self, board.client)
        self.max_points_per_match = _limit(max_points_per_match, "max_points_per_match")
        self.max_points_per_day = _limit(max_points_per_day, "max_points_per_day")
        self.allow_negative = bool(allow_negative)
        self.apply = bool(apply)
        self.batch = batch
        #: the season the store files this board's events under
        self.season = board.season if board.season is not None else ""
        #: the board the store files this service's rows under (the board's name)
        self.board_key = board.name
        #: the board's season this service writes (None: a board without seasons)
        self._board_season = board.season
        self._keys = board.keys()
        #: the id of the last event applied to the board (the board's hash tag)
        self.offset_key = self._keys[0] + ":applied"
        #: present while a rebuild runs
        self.rebuild_key = self._keys[0] + ":rebuilding"
        #: the players banned from the board (a set the applier reads; the store's ``bans`` is the record)
        self.banned_key = self._keys[0] + ":banned"
        #: where a rebuild writes the new board, its distinct values and their
        #: counts, beside the live ones (same hash tag) until it swaps them in
        self.next_keys = (self._keys[0] + ":next", self._keys[0] + ":next:dense",
                          self._keys[0] + ":next:counts")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.board!r}, {self.store!r})"

    # -- validation -------------------------------------------------------------

    def _player(self, player: Any) -> str:
        if type(player) is int:
            return str(player)
        if type(player) is not str:
            raise TypeError(f"player ids are str or int, not {type(player).__name__}")
        if not player:
            raise ValueError(EMPTY_PLAYER)
        return player

    def _points(self, player: str, points: Any) -> int:
        if type(points) is not int:
            raise TypeError(f"points must be an int, not {type(points).__name__} ({player!r})")
        if points < 0 and not self.allow_negative:
            raise ValueError(f"negative points ({points} for {player!r}) need allow_negative=True")
        if self.max_points_per_match is not None and abs(points) > self.max_points_per_match:
            raise CeilingExceeded(f"{points} points for {player!r} in one match: at most "
                                  f"{self.max_points_per_match}")
        self.board.codec.check_points(points)
        return points

    def _seconds(self, at: Any) -> float:
        if at is None:
            at = self.clock()
        elif isinstance(at, datetime):
            at = (at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)).timestamp()
        self.board.codec.tick_of(at, 0.0)  # a type, finiteness and time_bits check
        if self.max_clock_skew is not None and at > self.clock() + self.max_clock_skew:
            raise ValueError(f"at={at!r} is more than max_clock_skew={self.max_clock_skew:g} seconds ahead of "
                             f"this machine's clock: a result cannot be dated in the future")
        return float(at)

    # -- writes ---------------------------------------------------------------------

    def _check_match(self, match_id: Any, points: Any) -> dict[str, int]:
        if type(match_id) is not str or not match_id:
            raise TypeError(f"match_id must be a non-empty str, not {match_id!r}")
        if not isinstance(points, Mapping) or not points:
            raise ValueError("a match needs at least one player: {player: points}")
        clean: dict[str, int] = {}
        for player, value in points.items():
            name = self._player(player)
            if name in clean:
                raise ValueError(f"player {name!r} appears twice in match {match_id!r}")
            clean[name] = self._points(name, value)
        return clean

    def _plan_submit_match(self, match_id: str, points: Mapping[Any, int], *,
                           at: Any = None) -> Steps[List[Receipt]]:
        """Record one match (players → points) in one transaction, then apply it.

        :returns: a receipt per player (the first ones again for a retry).
        :raises ConflictingResubmit: the match was recorded with other points.
        :raises CeilingExceeded: a ceiling or the board's range would be passed.
        """
        done = yield from self._plan_submit_matches([(match_id, points, at)])
        return done[0]

    def _plan_submit_matches(self, matches: Sequence[tuple[str, Mapping[Any, int], Any]]
                             ) -> Steps[List[List[Receipt]]]:
        """Record many matches, ``(match_id, {player: points}, at)`` each, in one
        transaction (all or none), then apply them; each match's receipts.

        For importing results in bulk: one commit instead of one per match.
        """
        started = time.perf_counter()
        try:
            checked = [(match_id, self._check_match(match_id, points), self._seconds(at))
                       for match_id, points, at in matches]
            yield from self._plan_refuse_frozen()
            now = float(self.clock())
            reviews = {} if self.reviewer is None else (yield Do(self._review, (checked, now)))
            recorded = yield Do(self.store.record_matches, (self.season, checked),
                                {"max_per_day": self.max_points_per_day,
                                 "max_total": self.board.codec.max_points, "board": self.board_key,
                                 "recorded_at": now, "reviews": reviews})
        except (TypeError, ValueError) as exc:
            if self.metrics is not None:
                self.metrics.submitted(self.board_key, "refused", time.perf_counter() - started)
            log_event("score.refused", board=self.board_key, reason=str(exc))
            raise
        self._recorded(recorded, reviews, now, time.perf_counter() - started)
        if self.apply:
            yield from self._plan_apply_pending()
        return [[_receipt(e) for e in events] for events, _ in recorded]

    def _progress_counted(self, progress: Optional[Progress]) -> Optional[Progress]:
        """``progress`` that also moves the metrics' rebuild gauge (0..1) when there are metrics."""
        metrics = self.metrics
        if metrics is None:
            return progress
        gauge = metrics.rebuild_progress.labels(self.board_key)
        gauge.set(0)

        def counted(done: int, total: int) -> Any:
            gauge.set(done / total if total else 1.0)
            return None if progress is None else progress(done, total)
        return counted

    def _applied(self, count: int, events: Sequence[Event], seconds: float) -> None:
        """Count and log a batch the applier wrote (``seconds``: its script's
        round trip); the lag is what is left after it."""
        if count:
            log_event("score.applied", board=self.board_key, events=count, upto=events[-1].id)
        if self.metrics is not None:
            self.metrics.applied.labels(self.board_key).inc(count)
            self.metrics.apply_seconds.labels(self.board_key).observe(seconds)
            oldest = min((e.recorded_at for e in events), default=None)
            self.metrics.lag_seconds.labels(self.board_key).set(
                0.0 if oldest is None else max(0.0, float(self.clock()) - oldest))
            self.metrics.lag_events.labels(self.board_key).set(
                self.store.count_after(events[-1].id, board=self.board_key))

    # -- the review queue -----------------------------------------------------------

    def _review(self, checked: Sequence[tuple[str, Mapping[str, int], float]],
                now: float) -> dict[tuple[str, str], tuple[str, list[str]]]:
        """Run the checks on each new (match, player) of a batch (store reads: a
        player's history the first time this process sees them, the board's
        recent scores once); the reviews to record with them."""
        reviewer = self.reviewer
        assert reviewer is not None
        if not self._population_read:
            last = self.store.last_event_id(board=self.board_key)
            for e in self.store.events_after(max(0, last - 5000), 5000, board=self.board_key):
                if e.kind == "score" and not e.tombstoned and e.season == self.season:
                    reviewer.population.add(Submission(e.player, e.points, e.recorded_at))
            self._population_read = True
        status = "held" if self.review == "hold" else "flagged"
        reviews: dict[tuple[str, str], tuple[str, list[str]]] = {}
        for match_id, points, _ in checked:
            for player, pts in points.items():
                if player not in self._reviewed_players:
                    history = reviewer.histories.setdefault(player, History())
                    for e in self.store.history(player, self.season, board=self.board_key):
                        if e.kind == "score" and not e.tombstoned:
                            history.add(Submission(player, e.points, e.recorded_at))
                    self._reviewed_players.add(player)
                reasons = reviewer.review(Submission(player, pts, now, match_id))
                if reasons:
                    reviews[(match_id, player)] = (status, reasons)
        return reviews

    def _recorded(self, recorded: Sequence[tuple[list[Event], bool]],
                  reviews: Mapping[tuple[str, str], tuple[str, list[str]]], now: float, seconds: float) -> None:
        """Teach the reviewer what was recorded (held scores excluded), count and log it."""
        for events, duplicate in recorded:
            if duplicate:
                continue
            for e in events:
                review = reviews.get((e.match_id or "", e.player))
                outcome = "accepted" if review is None else review[0]
                if self.reviewer is not None and outcome != "held":
                    self.reviewer.learn(Submission(e.player, e.points, now, e.match_id or ""))
                if self.metrics is not None:
                    self.metrics.submitted(self.board_key, outcome, seconds)
                if review is None:
                    log_event("score.recorded", board=self.board_key, event_id=e.id, player=e.player,
                              points=e.points)
                else:
                    log_event("score.held" if outcome == "held" else "score.flagged", board=self.board_key,
                              event_id=e.id, player=e.player, points=e.points, reasons=review[1])

    def _plan_flags(self, status: Optional[str] = None) -> Steps[List[Flag]]:
        """The review queue in event order: every row, or one status
        (``"held"``, ``"flagged"``, ``"approved"``, ``"rejected"``)."""
        flags: List[Flag] = yield Do(self.store.flags, (status,), {"board": self.board_key})
        return flags

    def _plan_approve(self, event_id: int, *, by: str = "") -> Steps[Optional[Flag]]:
        """Approve a held (or flagged) score: a held one counts from now on (its
        player's total logged as a correction and applied), exactly once.
        The queue row as decided (``by`` and when), or None when ``event_id``
        has no open row (approving twice changes nothing)."""
        flag: Optional[Flag] = yield Do(self.store.approve, (int(event_id),),
                        {"by": str(by), "board": self.board_key, "max_total": self.board.codec.max_points})
        if flag is not None:
            if self.reviewer is not None and flag.status == "approved":
                self.reviewer.learn(Submission(flag.player, flag.points, float(self.clock()), flag.match_id or ""))
            log_event("score.approved", board=self.board_key, event_id=flag.event_id, player=flag.player,
                      points=flag.points, by=flag.decided_by)
            if self.apply:
                yield from self._plan_apply_pending()
        return flag

    def _plan_reject_flag(self, event_id: int, *, by: str = "") -> Steps[Optional[Flag]]:
        """Reject a held or flagged score: tombstoned (a flagged one's player
        total recomputed without it and applied). The queue row as decided,
        or None when ``event_id`` has no open row."""
        flag: Optional[Flag] = yield Do(self.store.reject_flag, (int(event_id),),
                                        {"by": str(by), "board": self.board_key})
        if flag is not None:
            log_event("score.rejected", board=self.board_key, event_id=flag.event_id, player=flag.player,
                      points=flag.points, by=flag.decided_by)
            if self.apply:
                yield from self._plan_apply_pending()
        return flag

    def _plan_submit(self, match_id: str, player: Any, points: int, *, at: Any = None) -> Steps[Receipt]:
        """Record and apply one player's points from one match (see ``submit_match``)."""
        receipts = yield from self._plan_submit_match(match_id, {player: points}, at=at)
        return receipts[0]

    def _plan_refuse_frozen(self) -> Steps[None]:
        """Raise SeasonFrozen when this service's season of the board was rolled over (one HEXISTS)."""
        if (yield Call("hexists", (self._keys[3], "frozen"))):
            raise SeasonFrozen(f"leaderboard {self.board.name!r}: season {self.season!r} was rolled over and is "
                               "frozen; nothing was recorded (make a ScoreService for the board's current season)")

    def _plan_reject(self, events: Sequence[Event], reason: str, upto: int) -> Steps[None]:
        """Mark ``events`` rejected in the store with ``reason``, then move the
        board's offset to ``upto`` (never back)."""
        if events:
            yield Do(self.store.reject, ([e.id for e in events], reason), {"board": self.board_key})
        keys = (*self._keys, self.offset_key, self.rebuild_key)
        yield Run(SKIP, keys, (*self.board.script_config, upto))

    def _plan_apply_pending(self) -> Steps[int]:
        """Apply every event logged after the board's offset, exactly once; how many.

        Nothing is applied while a rebuild runs (the events stay pending). An
        event the board cannot take never stops the log: a season that was
        rolled over (frozen) rejects every pending event of it, and an event
        whose points would not fit the board is rejected alone; each is
        marked in the store with the reason (``rejected()`` lists them), counts
        for nothing there, and the applier moves on.
        """
        applied = 0
        keys = (*self._keys, self.offset_key, self.rebuild_key, self.banned_key)
        codec = self.board.codec
        while True:
            raw = yield Call("get", (self.offset_key,))
            events = yield Do(self.store.events_after, (int(raw or 0), self.batch), {"board": self.board_key})
            if not events:
                if self.metrics is not None:
                    self.metrics.lag_events.labels(self.board_key).set(0)
                    self.metrics.lag_seconds.labels(self.board_key).set(0)
                return applied
            args: list[Any] = [events[-1].id, 0]
            for e in events:
                if e.season == self.season and e.kind != "held":  # a held score counts once approved
                    rule = "incr" if e.kind == "score" else "set"
                    args += [e.id, e.player, rule, e.points, codec.tick_of(e.at, 0.0)]
                    args[1] += 1
            started = time.perf_counter()
            try:
                reply = yield Run(APPLY, keys, (*self.board.script_config, *args))
            except ResponseError as exc:
                error = self.board.translate_error(exc)
                if not isinstance(error, (SeasonFrozen, PointsOutOfRange)):
                    raise error from exc
                self.board.forget_cached()
                now = int((yield Call("get", (self.offset_key,))) or 0)
                mine = [e for e in events if e.season == self.season and e.id > now]
                if isinstance(error, SeasonFrozen):
                    # No event of the season can be applied any more: reject them
                    # all and pass the whole batch (other seasons' events too).
                    yield from self._plan_reject(mine, str(error), events[-1].id)
                elif mine:
                    # The script applied the events before the first that does
                    # not fit and left the offset just before it.
                    yield from self._plan_reject(mine[:1], str(error), mine[0].id)
                continue
            self.board.forget_cached()
            if int(reply[1]) < 0:
                return applied  # a rebuild is running: it applies them when done
            applied += int(reply[1])
            self._applied(int(reply[1]), events, time.perf_counter() - started)

    def _plan_recover(self) -> Steps[int]:
        """Apply what was committed but not yet applied (call at start); how many."""
        applied = yield from self._plan_apply_pending()
        return applied

    def _plan_tombstone(self, player: Any) -> Steps[Optional[int]]:
        """Void a player's events this season; their new total (None if none were live).

        :raises SeasonFrozen: the season was rolled over (nothing is changed).
        """
        name = self._player(player)
        yield from self._plan_refuse_frozen()
        fix = yield Do(self.store.tombstone_player, (self.season, name), {"board": self.board_key})
        yield from self._plan_apply_pending()
        return None if fix is None else fix.points

    def _plan_tombstone_match(self, match_id: str) -> Steps[dict[str, int]]:
        """Void a match's events on this board; each touched player's new total.

        :raises SeasonFrozen: this service's season was rolled over (nothing is changed).
        """
        if type(match_id) is not str or not match_id:
            raise TypeError(f"match_id must be a non-empty str, not {match_id!r}")
        yield from self._plan_refuse_frozen()
        fixes = yield Do(self.store.tombstone_match, (match_id,), {"board": self.board_key})
        yield from self._plan_apply_pending()
        return {f.player: f.points for f in fixes}

    def _plan_rebuild(self, progress: Optional[Progress] = None, batch: int = 50_000) -> Steps[int]:
        """Load the board again from the store, beside the old one, and swap it
        in; how many players (banned players are left out: ``ban``).

        First the checks, before anything is written: ``batch`` (an int >= 1)
        and the season's stored times against the board's ``time_bits``
        (``ValueError``). Then the rebuilding flag is set and the totals,
        read as of one event id, are written in ascending score order, one
        ZADD of ``batch`` players at a time (its mapping a ``ZaddPacked`` or
        a ``ZaddColumns``: no dict is built), so each ZADD lands after the
        new board's last member; the dense companion follows when the board
        keeps one. The new keys (``next_keys``, under the board's hash tag)
        then replace the live ones in one script that also moves the offset
        to that event id and drops the flag, and the events after it are
        applied. ``progress(done, total)`` is called after each ZADD.

        Until the swap the old board stays as it was: a rebuild that fails
        (a store that cannot be read, a total the board cannot encode, an
        exception from ``progress``) deletes what it wrote and the flag, and
        re-raises; the old board and its offset answer as before.

        The reading, fastest first (``fastrank.service.packed``):

        - ``SQLStore.score_order_scan``: a SQLite file's ranking index read
          backwards by SQLite's C API, already in score order, one chunk
          while the board writes the one before (boards whose order that
          walk gives: see ``_plan_write_scanned``). O(n) here.
        - ``SQLStore.packed_totals``: the file's totals read whole into
          packed columns, then one stable sort. O(n log n) here.
        - else page by page (``batch`` players each; ``READERS`` threads
          read ranges of players side by side), then one sort.

        In the last two the totals are held in memory while the board is
        written.
        """
        if type(batch) is not int or batch < 1:
            raise ValueError(f"batch must be an int >= 1, not {batch!r}")
        progress = self._progress_counted(progress)
        board = self.board
        if board.codec.integer:
            span = yield Do(self.store.time_range, (self.season,), {"board": self.board_key})
            self._check_times(span)
        fresh = self.next_keys
        yield Call("set", (self.rebuild_key, "1"))
        try:
            upto = yield Do(self.store.last_event_id, (), {"board": self.board_key})
            yield Call("delete", fresh)  # what a rebuild cut short (a crash) left
            scan = yield Do(self.store.score_order_scan, (self.season, upto, board.codec), {"board": self.board_key})
            if scan is not None:
                done, points = yield from self._plan_write_scanned(scan, upto, batch, progress, fresh[0])
            else:
                done, points = yield from self._plan_write_read(upto, batch, progress, fresh[0])
            if board.ranking == "dense" and len(points):
                distinct, counts = np.unique(points, return_counts=True)
                fields = {"%.17g" % p: n for p, n in zip(distinct.tolist(), counts.tolist())}
                yield [Call("hset", (fresh[2],), {"mapping": fields}),
                       Call("zadd", (fresh[1], {f: float(f) for f in fields}))]
            # Banned players stay off the rebuilt board (and in the banned set).
            for name in (yield Do(self.store.bans, (), {"board": self.board_key})):
                done -= int((yield Run(REMOVE, (*fresh, *self._keys[3:], self.banned_key, fresh[0]),
                                       (*board.script_config, name, "ban"))))
        except Exception:
            yield [Call("delete", (key,)) for key in (*fresh, self.rebuild_key)]  # one key a call: cluster pipelines
            raise
        # The swap is not undone if it fails: the flag stays (ranks refuse,
        # appliers wait) until a rebuild succeeds, so no event is applied twice.
        try:
            yield Run(SWAP, (*self._keys, self.offset_key, self.rebuild_key, *fresh), (*board.script_config, upto))
        finally:
            board.forget_cached()
        yield from self._plan_apply_pending()
        return done

    # -- erase and ban ----------------------------------------------------------------

    def _season_keys(self, season: Optional[str]) -> tuple[str, ...]:
        """A season's board keys, its banned set and a rebuild's board (``service_remove``'s KEYS)."""
        keys = self.board.keys(season) if season is not None else self._keys
        return (*keys, keys[0] + ":banned", keys[0] + ":next")

    def _plan_board_seasons(self, stored: Sequence[str]) -> Steps[list[Optional[str]]]:
        """Every season of the board a player can be in: this service's, the
        board's current one, those the board's descriptor lists as rolled over
        (``past:<season>``) and ``stored`` (the store's seasons of the player)."""
        if self._board_season is None:
            return [None]
        seasons: set[Optional[str]] = {self._board_season, *(s for s in stored if s)}
        if self.board.season is not None:
            seasons.add(self.board.season)
        if self.board.descriptor_key is not None:
            described = yield Call("hgetall", (self.board.descriptor_key,))
            for field, value in (described or {}).items():
                field = field.decode() if isinstance(field, bytes) else field
                value = value.decode() if isinstance(value, bytes) else value
                if field.startswith("past:"):
                    seasons.add(field[5:])
                elif field == "season" and value:
                    seasons.add(value)
        return sorted(seasons, key=str)

    def _plan_erase_player(self, player: Any, *, by: str = "") -> Steps[AuditRecord]:
        """Forget a player: off every season of the board (current and rolled
        over, their dense counts kept right, their entry data, a ban), and out
        of the store (their events of every season deleted, their totals,
        archived standings, review-queue rows and ban), with an audit record
        that names no player (``SQLStore.audit``). The audit record.

        The board is first told to pass over the player's events (as for a
        ban), then the store forgets them, then the board does: an applier
        running meanwhile cannot bring them back. Event ids are never reused,
        so every applier's offset stays valid.

        :raises RanksUpdating: a rebuild is running (nothing is changed).
        """
        name = self._player(player)
        yield from self._plan_guard()
        seasons = yield from self._plan_board_seasons(())
        for season in seasons:
            yield Run(REMOVE, self._season_keys(season), (*self.board.script_config, name, "ban"))
        # If the store fails here, the player stays banned on the board (hidden): erase again.
        stored, record = yield Do(self.store.erase_player, (name,), {"board": self.board_key, "by": str(by)})
        for season in sorted(set(seasons) | set((yield from self._plan_board_seasons(stored))), key=str):
            yield Run(REMOVE, self._season_keys(season), (*self.board.script_config, name, "erase"))
        self.board.forget_cached()
        self._reviewed_players.discard(name)
        if self.reviewer is not None:
            self.reviewer.histories.pop(name, None)
        log_event("player.erased", board=self.board_key, events=record.events, totals=record.totals,
                  standings=record.standings, reviews=record.reviews, by=record.by)
        return record  # type: ignore[no-any-return]

    def _plan_ban(self, player: Any, *, by: str = "") -> Steps[bool]:
        """Ban a player: their submits raise ``PlayerBanned`` (nothing recorded),
        they leave this service's season of the board, every read of the
        service leaves them out (``rank`` answers None, as for a player
        without a score) and appliers and rebuilds pass over their events.
        Their events stay in the store (``unban`` restores their standing).
        The ban is stored (the store's ``bans``, the board's banned set), so
        every service of the board sees it. True if they were not banned."""
        name = self._player(player)
        new = yield Do(self.store.ban, (name,), {"board": self.board_key, "by": str(by)})
        yield Run(REMOVE, self._season_keys(self._board_season), (*self.board.script_config, name, "ban"))
        self.board.forget_cached()
        log_event("player.banned", board=self.board_key, player=name, by=str(by))
        return bool(new)

    def _plan_unban(self, player: Any, *, by: str = "") -> Steps[bool]:
        """Lift a ban: the player's total this season, from the store, is
        logged as a correction and applied, so their standing is back.
        True if they were banned."""
        name = self._player(player)
        yield Run(REMOVE, self._season_keys(self._board_season), (*self.board.script_config, name, "unban"))
        was, _ = yield Do(self.store.unban, (self.season, name), {"board": self.board_key})
        log_event("player.unbanned", board=self.board_key, player=name, by=str(by))
        if self.apply:
            yield from self._plan_apply_pending()
        return bool(was)

    def _plan_bans(self) -> Steps[List[str]]:
        """The players banned from this board, in id order."""
        names: List[str] = yield Do(self.store.bans, (), {"board": self.board_key})
        return names

    def _check_times(self, span: Optional[tuple[float, float]]) -> None:
        """Refuse a rebuild whose stored times (the season's earliest and
        latest, ``SQLStore.time_range``) the board's tie-break cannot encode."""
        if span is None:
            return
        scale = self.board.codec.scale
        for seconds in span:
            if not (math.isfinite(seconds) and 0 <= math.floor(seconds) < scale):
                raise ValueError(f"a time does not fit in time_bits={self.board.time_bits}: the store holds "
                                 f"{seconds!r} for season {self.season!r} (the board holds 0 <= seconds since "
                                 f"the epoch < {scale}); nothing was changed")

    def _plan_write_scanned(self, scan: ScoreOrderScan, upto: int, batch: int, progress: Optional[Progress],
                            key: str) -> Steps[tuple[int, npt.NDArray[np.int64]]]:
        """Write the totals a ``ScoreOrderScan`` reads, chunk by chunk: a
        thread reads the next chunks (without the GIL, ``ReadAhead``) while
        the board takes one. The scan exists for the boards whose ascending order
        is the ranking index walked backwards: a tie-break whose tick is
        mirrored (descending with the earliest first, the default, or
        ascending with the latest first) or no tie-break. The players
        changed after ``upto`` (which the scan leaves out) are summed as of
        ``upto`` and added last. Closes the scan. (players written to
        ``key``, their points)."""
        codec = self.board.codec
        points: list[npt.NDArray[np.int64]] = []
        done = 0
        reader = ReadAhead(scan, batch)
        try:
            # The count (only for progress) is an O(n) query: made while the first chunks are read.
            expected = (yield Do(self.store.count, (self.season,), {"board": self.board_key})) if progress is not None else 0
            while True:
                chunk = yield Do(reader.get)
                if chunk is None:
                    break
                blob, offsets, rows, scores, chunk_points = chunk
                yield Call("zadd", (key, ZaddPacked(blob, offsets, rows, scores)))
                points.append(chunk_points)
                done += len(rows)
                if progress is not None:
                    progress(done, max(expected, done))
            changed = reader.changed()
        finally:
            reader.close()
        late = yield Do(self._totals_as_of, (changed, upto))
        if late:
            late_points = np.array([t.points for t in late], dtype=np.int64)
            seconds = np.floor(np.clip([t.at for t in late], -4e18, 4e18)).astype(np.int64) if codec.integer else None
            players, values = [t.player for t in late], codec.encode_columns(late_points, seconds).astype(np.int64).tolist()
            points.append(late_points)
            for start in range(0, len(late), batch):
                yield Call("zadd", (key, ZaddColumns(players[start:start + batch], values[start:start + batch])))
                done += len(players[start:start + batch])
                if progress is not None:
                    progress(done, max(expected, done))
        return done, np.concatenate(points) if points else np.empty(0, np.int64)

    def _totals_as_of(self, players: list[str], upto: int) -> list[Total]:
        """The totals of ``players`` as of event ``upto`` (those who had one). One query each."""
        return [t for t in (self.store.total_upto(self.season, p, upto, board=self.board_key) for p in players)
                if t is not None]

    def _plan_write_read(self, upto: int, batch: int, progress: Optional[Progress],
                         key: str) -> Steps[tuple[int, npt.NDArray[np.int64]]]:
        """Read every total (``packed_totals``, else ``_read_totals``), sort
        them into score order, then write them to ``key`` one ZADD of
        ``batch`` at a time. (players written, their points)."""
        expected = (yield Do(self.store.count, (self.season,), {"board": self.board_key})) if progress is not None else 0
        packed = yield Do(self.store.packed_totals, (self.season, upto, READERS), {"board": self.board_key})
        chunks: Iterator[Mapping[Any, Any]]
        if packed is not None:
            ranked = yield Do(board_order, (packed, self.board.codec))
            points = packed.points[packed.rows]
            count = len(ranked.scores)
            chunks = (ranked.chunk(start, start + batch) for start in range(0, count, batch))
        else:
            players, points, scores = yield Do(self._read_totals, (upto, batch))
            order = ascending_order(players, scores, batch)
            count = len(order)
            # Every score is a whole number of magnitude below 2**53: sent as an int
            # (the same double on the board; redis-py writes an int faster than a float).
            members, values = players[order].tolist(), scores[order].astype(np.int64).tolist()
            chunks = (ZaddColumns(members[start:start + batch], values[start:start + batch])
                      for start in range(0, count, batch))
        done = 0
        for chunk in chunks:
            yield Call("zadd", (key, chunk))
            done += len(chunk)
            if progress is not None:
                progress(done, max(expected, done))
        return done, points

    def _read_totals(self, upto: int, batch: int) -> tuple[npt.NDArray[np.object_], npt.NDArray[np.int64],
                                                           npt.NDArray[np.float64]]:
        """Every total of the season as of event ``upto``: players (an object
        array of UTF-8 bytes), points and encoded scores. The players are cut
        into ``READERS`` ranges of about equal size, each read page by page
        (``batch`` players) and encoded by a thread of its own on a
        connection of its own (the database and numpy work without the
        GIL). O(n)."""
        codec = self.board.codec
        cuts = self.store.totals_splits(self.season, READERS, board=self.board_key)
        ranges = list(zip(["", *cuts], [*cuts, None]))

        def read(after: str, until: Optional[str]) -> tuple[list[bytes], list[npt.NDArray[np.int64]],
                                                            list[npt.NDArray[np.float64]]]:
            players: list[bytes] = []
            points: list[npt.NDArray[np.int64]] = []
            scores: list[npt.NDArray[np.float64]] = []
            with self.store.reading_copy() as store:
                next_after: Optional[str] = after
                while next_after is not None:
                    page = store.totals_columns_upto(self.season, upto, next_after, batch, until=until, board=self.board_key,
                                                     with_seconds=codec.integer)
                    players += page.players
                    points.append(page.points)
                    scores.append(codec.encode_columns(page.points, page.seconds))
                    next_after = page.next_after
            return players, points, scores

        with ThreadPoolExecutor(max_workers=len(ranges), thread_name_prefix="fastrank-rebuild") as readers:
            parts = [part.result() for part in [readers.submit(read, a, u) for a, u in ranges]]
        column = np.empty(sum(len(p[0]) for p in parts), dtype=object)
        column[:] = [player for p in parts for player in p[0]]
        points = [c for p in parts for c in p[1]]
        scores = [c for p in parts for c in p[2]]
        return (column, np.concatenate(points) if points else np.empty(0, np.int64),
                np.concatenate(scores) if scores else np.empty(0, np.float64))

    def _plan_archive(self, batch: int = 10_000) -> Steps[int]:
        """Write this service's season's standings (the board's keys of that
        season, in rank order) into the store under that season: after a
        rollover, the frozen season's board, not the current one's."""
        ranker = Ranker(self.board.rank_style)
        rows: list[Standing] = []
        while True:
            pairs = yield from steps(self.board.slice_plan(len(rows), batch, self._board_season))
            rows += [Standing(e.rank, e.player, int(e.points))
                     for e in self.board.entries_from(ranker, len(rows), pairs)]
            if len(pairs) < batch:
                break
        written = yield Do(self.store.archive, (self.season, rows), {"board": self.board_key})
        return int(written)

    # -- reads ------------------------------------------------------------------------

    def _plan_rebuilding(self) -> Steps[bool]:
        """Whether the board is being rebuilt from the store right now."""
        flag = yield Call("exists", (self.rebuild_key,))
        return bool(flag)

    def _plan_store_slice(self, start: int, n: int) -> Steps[List[Entry]]:
        """``n`` entries from 0-based ``start`` in the board's order, read from
        the store's totals (what answers while the board is rebuilt), ranked
        in the board's style: ordinal by position, competition and dense from
        how many totals (distinct ones, for dense) rank above the first."""
        codec = self.board.codec
        rows = yield Do(self.store.top, (self.season, n),
                        {"descending": codec.desc, "earliest_first": None if not codec.integer
                         else (self.board.tiebreak == "earliest"), "board": self.board_key, "offset": start})
        style = self.board.rank_style
        known: Optional[int] = None
        if rows and start and style != "o":
            above = yield Do(self.store.distinct_above if style == "d" else self.store.count_above,
                             (self.season, rows[0].points), {"descending": codec.desc, "board": self.board_key})
            known = int(above) + 1
        ranker = Ranker(style)
        return [Entry(ranker.rank_at(start + i, t.points, known if i == 0 else None), t.player, t.points)
                for i, t in enumerate(rows)]

    def _plan_top(self, n: int = 10) -> Steps[List[Entry]]:
        """The best n: from the board, or from the store while the board is
        rebuilt (ranked in the board's style, dense ranks included)."""
        if (yield from self._plan_rebuilding()):
            return (yield from self._plan_store_slice(0, count_arg(n, "n")))
        entries: List[Entry] = yield from steps(self.board.plan("top", n, **self._own_season()))
        return entries

    def _plan_page(self, number: int, size: int = 10) -> Steps[List[Entry]]:
        """Page ``number`` (1-based) of ``size`` entries: from the board, or
        from the store while the board is rebuilt (as ``top``)."""
        if (yield from self._plan_rebuilding()):
            start, count = page_slice(number, size)
            return (yield from self._plan_store_slice(start, count))
        entries: List[Entry] = yield from steps(self.board.plan("page", number, size, **self._own_season()))
        return entries

    def _plan_rank(self, player: Any) -> Steps[Optional[int]]:
        """A player's rank on the board; RanksUpdating while it is rebuilt."""
        yield from self._plan_guard()
        rank: Optional[int] = yield from steps(self.board.plan("rank", self._player(player), **self._own_season()))
        return rank

    def _plan_around(self, player: Any, radius: int = 5) -> Steps[List[Entry]]:
        """The entries within ``radius`` places of a player (see
        ``Leaderboard.around``); RanksUpdating while the board is rebuilt."""
        yield from self._plan_guard()
        entries: List[Entry] = yield from steps(self.board.plan("around", self._player(player), radius,
                                                                **self._own_season()))
        return entries

    def _plan_friends(self, player: Any, friend_ids: Sequence[Any]) -> Steps[List[Entry]]:
        """The player and their friends ranked among themselves, with their
        global ranks (see ``Leaderboard.friends``); RanksUpdating while the
        board is rebuilt."""
        yield from self._plan_guard()
        entries: List[Entry] = yield from steps(self.board.plan("friends", self._player(player), friend_ids,
                                                                **self._own_season()))
        return entries

    def _own_season(self) -> dict[str, Any]:
        """The ``season=`` a read of the board needs to read this service's
        season: none while the board is in it (its reads' cache then works),
        else (the board object was rolled over) that season."""
        return {} if self.board.season == self._board_season else {"season": self._board_season}

    def _plan_guard(self) -> Steps[None]:
        """Raise RanksUpdating while the board is being rebuilt."""
        if (yield from self._plan_rebuilding()):
            raise RanksUpdating("ranks updating: the board is being rebuilt from the store; try again shortly")

    def _plan_rejected(self) -> Steps[List[Event]]:
        """The events of this board's season the applier could not apply, with
        why (``Event.rejected``), oldest first. They count for nothing."""
        events = yield Do(self.store.rejected, (self.season,), {"board": self.board_key})
        return list(events)

    def _plan_history(self, player: Any) -> Steps[List[Event]]:
        """Every event of a player this season (scores and corrections), oldest first."""
        events = yield Do(self.store.history, (self._player(player), self.season), {"board": self.board_key})
        return list(events)

    # the methods of both faces (fastrank.ScoreService, fastrank.asyncio.ScoreService: runner.twin)
    submit = twin(_plan_submit)
    submit_match = twin(_plan_submit_match)
    submit_matches = twin(_plan_submit_matches)
    apply_pending = twin(_plan_apply_pending)
    recover = twin(_plan_recover)
    tombstone = twin(_plan_tombstone)
    tombstone_match = twin(_plan_tombstone_match)
    rebuild = twin(_plan_rebuild)
    archive = twin(_plan_archive)
    rebuilding = twin(_plan_rebuilding)
    top = twin(_plan_top)
    rank = twin(_plan_rank)
    page = twin(_plan_page)
    around = twin(_plan_around)
    friends = twin(_plan_friends)
    history = twin(_plan_history)
    rejected = twin(_plan_rejected)
    flags = twin(_plan_flags)
    approve = twin(_plan_approve)
    reject = twin(_plan_reject_flag)
    erase_player = twin(_plan_erase_player)
    ban = twin(_plan_ban)
    unban = twin(_plan_unban)
    bans = twin(_plan_bans)


class ScoreService(SyncFace, ServicePlans):
    """The durable score service over a sync board (see the module docstring).

    ``ScoreService(board, store, *, max_points_per_match=None,
    max_points_per_day=None, allow_negative=False, apply=True, batch=1000,
    max_clock_skew=300.0, clock=time.time)``: an ``at`` more than
    ``max_clock_skew`` seconds ahead of ``clock()`` is refused (None: any);
    ``max_points_per_day`` counts a player's points on this board by the UTC
    day the store records them on (``clock()``), whatever ``at`` claims;
    ``apply=False`` for API processes whose events another process applies
    (``apply_pending`` / ``fastrank apply``).
    """


