"""fastrank.RollingLeaderboard: "the last 7 days", a window that slides.

A rolling board keeps one sorted set per slice of time (``granularity``,
one hour by default), numbered from the unix epoch (slice ``n`` holds the
results earned in ``[n * granularity, (n + 1) * granularity)``), and answers
reads from the *window*: the union of the ``window / granularity`` slices up
to the current one, kept in one more sorted set. Keys, all under the board's
hash tag ``{lb:<name>}`` (so a Redis Cluster keeps a rolling board on one
node, like any board)::

    {lb:<name>}:slice:<n>      the points earned in slice n
    {lb:<name>}:window         the union of the slices in the window
    {lb:<name>}:window:meta    when the window was last refreshed
    {lb:<name>}:board          the descriptor (kind "rolling", window, granularity)

A submit adds to the slice of its time (``at=``, default now) by the
board's rule, in one script (``submit.lua``, as a board's); the slice expires
when it leaves the window (``PEXPIREAT`` the end of its last window, set by
the writes to it). A read (``top``, ``rank``, ``around``, ``score``,
``count``) reads the time of the window's last refresh with it (one
pipeline); when that is older than ``max_age`` seconds, one script
(``window.lua``) checks again and unites the slices (``ZUNIONSTORE``, ``SUM`` for
the ``incr``/``decr`` rules, ``MAX`` -- ``MIN`` on an ``asc`` board -- for
``best``), and the read runs again. A refresh costs the union of every slice
entry: at a million players, seconds, during which a Redis runs nothing else
(``bench/results/rolling.md``); ``max_age`` bounds how often a read pays it,
and how stale a read may be.

The rule ``set`` has no meaning across slices and is refused, as are
tie-breaks (a tie-break time does not add up across slices: ties rank by
player id) and dense ranks (the window keeps no distinct values).
"""
from __future__ import annotations

import math
import time
from datetime import timedelta
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

from fastrank import errors as _errors
from fastrank.errors import BoardConfigMismatch
from fastrank.leaderboard.board import BoardPlans, Entry, PlayerId, When
from fastrank.leaderboard.descriptor import DESCRIBE, UNSET, Unset, bare_script, flat, stored_of
from fastrank.leaderboard.scorebits import Points
from fastrank.runner import Call, Plan, Run, Steps, SyncFace, checked_client, run, steps, twin

__all__ = ["RollingLeaderboard", "RollingPlans", "seconds_of"]

_SelfRolling = TypeVar("_SelfRolling", bound="RollingPlans")
_T = TypeVar("_T")
Duration = Union[str, int, timedelta]

ROLLING_RULES = {"incr": "SUM", "decr": "SUM", "best": "MAX"}
"""The rules a rolling board takes, and how its window unites the slices
(``best`` on an ``asc`` board takes the MIN)."""

MAX_SLICES = 2000
"""The most slices a window may hold (a refresh names them all)."""

_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800}

WINDOW = bare_script("window")


def seconds_of(duration: Any, label: str) -> int:
    """A duration -- ``"7d"``, ``"1h"``, ``"30m"`` (or ``"30min"``), ``"45s"``,
    ``"2w"``, whole seconds, a timedelta -- as whole positive seconds, else
    ValueError/TypeError."""
    if isinstance(duration, timedelta):
        seconds: float = duration.total_seconds()
    elif isinstance(duration, int) and not isinstance(duration, bool):
        seconds = duration
    elif isinstance(duration, str):
        text = duration.strip()
        digits = len(text) - len(text.lstrip("0123456789"))
        unit = _UNITS.get(text[digits:])
        if digits == 0 or unit is None:
            raise ValueError(f"{label} must be a number and a unit ({', '.join(_UNITS)}), like '7d' or "
                             f"'1h', not {duration!r}")
        seconds = int(text[:digits]) * unit
    else:
        raise TypeError(f"{label} must be a duration ('7d', '1h'), seconds or a timedelta, "
                        f"not {type(duration).__name__}")
    if seconds <= 0 or seconds != math.floor(seconds):
        raise ValueError(f"{label} must be a positive whole number of seconds, not {duration!r}")
    return int(seconds)


class _WindowBoard(BoardPlans):
    """The board plans a rolling board reads its window and writes its slices with."""

    granularity = 3600
    slices = 168
    clock: Callable[[], float] = time.time

    def keys(self, season: Optional[Union[str, int]] = None) -> Tuple[str, str, str, str, str]:
        """The window's keys (a rolling board has no seasons)."""
        keys = self._keys.get(None)
        if keys is None:
            base = f"{{lb:{self._key_name}}}:window"
            keys = self._keys[None] = (base, base + ":dense", base + ":counts", base + ":meta", base + ":info")
        return keys

    def slice_key(self, number: int) -> str:
        return f"{{lb:{self._key_name}}}:slice:{number}"

    def _write_target(self, tick: int) -> Tuple[Tuple[str, str, str, str, str], int]:
        """The slice a write earned at ``tick`` goes to and when it expires
        (unix ms: the end of the last window that holds it); PeriodClosed when
        the window has left it already."""
        number = tick // self.granularity
        expire = (number + self.slices) * self.granularity * 1000
        if expire <= self.clock() * 1000:
            raise _errors.PeriodClosed(
                f"rolling leaderboard {self.name!r}: a write dated {tick} falls in a slice the window "
                f"({self.slices} x {self.granularity}s) has left")
        key = self.slice_key(number)
        return (key, key + ":dense", key + ":counts", key + ":meta", key + ":info"), expire


class RollingPlans:
    """The configuration of a rolling board and its methods as plans (no I/O
    here); :class:`RollingLeaderboard` and ``fastrank.asyncio.RollingLeaderboard``
    expose each ``_plan_<name>`` as the method ``<name>``."""

    def __init__(self, client: Any, name: str, *, window: Union[Duration, Unset] = UNSET,
                 granularity: Union[Duration, Unset] = UNSET, rule: Union[str, Unset] = UNSET,
                 order: Union[str, Unset] = UNSET, ranking: Union[str, Unset] = UNSET,
                 max_age: float = 60.0, clock: Optional[Callable[[], float]] = None) -> None:
        if rule is not UNSET and rule not in ROLLING_RULES:
            raise ValueError(f"a rolling board's rule must be one of {tuple(ROLLING_RULES)} (its window sums "
                             f"or takes the best of its slices), not {rule!r}")
        if ranking is not UNSET and ranking not in ("ordinal", "competition"):
            raise ValueError(f"a rolling board ranks 'ordinal' or 'competition' (its window keeps no distinct "
                             f"values for dense ranks), not {ranking!r}")
        if isinstance(max_age, bool) or not isinstance(max_age, (int, float)) or not max_age >= 0:
            raise ValueError(f"max_age must be >= 0 seconds, not {max_age!r}")
        #: the window and granularity this process gave, in seconds (checked against the descriptor)
        self._given_span: Dict[str, int] = {}
        if window is not UNSET:
            self._given_span["window"] = seconds_of(window, "window")
        if granularity is not UNSET:
            self._given_span["granularity"] = seconds_of(granularity, "granularity")
        checked_client(self, client)
        options = {"rule": rule, "order": order, "ranking": ranking}
        given: Dict[str, Any] = {k: v for k, v in options.items() if v is not UNSET}
        self._board = _WindowBoard(client, name, tiebreak=None, **given)
        self._client = self._board.client
        self.name = self._board.name
        self.clock: Callable[[], float] = time.time if clock is None else clock
        self._board.clock = self.clock
        self.max_age = float(max_age)
        self._opened = False
        self._set_span(self._given_span.get("window", 7 * 86400), self._given_span.get("granularity", 3600))
        self._made()

    def _set_span(self, window: int, granularity: int) -> None:
        if window % granularity:
            raise ValueError(f"granularity ({granularity}s) must divide the window ({window}s)")
        if window // granularity > MAX_SLICES:
            raise ValueError(f"a window holds at most {MAX_SLICES} slices, not {window // granularity} "
                             f"({window}s / {granularity}s): choose a coarser granularity")
        self.window = window
        self.granularity = granularity
        self._board.granularity = granularity
        self._board.slices = window // granularity
        self._slice_keys: Tuple[int, Tuple[str, ...]] = (-1, ())

    def _made(self) -> None:
        """Called at the end of construction: a sync face opens the board here."""

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.name!r}, window={self.window}s, granularity={self.granularity}s, "
                f"rule={self.rule!r}, order={self.order!r})")

    @property
    def rule(self) -> str:
        """``incr``, ``decr`` or ``best`` (stored)."""
        return str(self._board.rule)

    @property
    def order(self) -> str:
        """``desc`` or ``asc`` (stored)."""
        return str(self._board.order)

    @property
    def ranking(self) -> str:
        """``ordinal`` or ``competition`` (stored)."""
        return str(self._board.ranking)

    # -- the descriptor ---------------------------------------------------------

    def descriptor(self) -> Dict[str, str]:
        """The stored options as the descriptor holds them (text)."""
        return {**self._board.descriptor(), "kind": "rolling",
                "window": str(self.window), "granularity": str(self.granularity)}

    def _plan_open(self) -> Steps[None]:
        """Read the board's descriptor, writing it first if the board is new;
        BoardConfigMismatch if an option given differs from a stored one."""
        key = self._board.descriptor_key
        assert key is not None
        stored = stored_of((yield Run(DESCRIBE, (key,), flat(self.descriptor()))))
        self._board._take(stored, "rolling")
        for option, given in self._given_span.items():
            if stored.get(option) != str(given):
                raise BoardConfigMismatch("rolling leaderboard", self.name, option,
                                          f"{stored.get(option)}s", f"{given}s")
        self._set_span(int(stored["window"]), int(stored["granularity"]))
        self._opened = True

    # -- writes -------------------------------------------------------------

    def _plan_submit(self, player: PlayerId, points: Points, *, at: When = None) -> Steps[None]:
        """Apply a result earned at ``at`` (default now) to its slice by the
        board's rule; PeriodClosed when the window has left its slice. One
        atomic script; O(log n) on the slice. The window shows it at its next
        refresh."""
        yield from self._plan_submit_many(((player, points),), at=at)

    def _plan_submit_many(self, results: Union[Mapping[PlayerId, Points], Sequence[Tuple[PlayerId, Points]]],
                          *, at: When = None) -> Steps[None]:
        """Apply many results earned at the same time in one atomic script (all
        or nothing). O(k log n) for k results."""
        yield from steps(self._board._plan_submit_many(results, at=self.clock() if at is None else at))

    # -- the window -----------------------------------------------------------

    def window_slices(self, now: Optional[float] = None) -> List[int]:
        """The numbers of the slices the window holds at ``now`` (default: the
        clock's now), oldest first."""
        current = math.floor(self.clock() if now is None else now) // self.granularity
        return list(range(current - self.window // self.granularity + 1, current + 1))

    def _refreshing(self, now: float, force: bool = False) -> Steps[bool]:
        """Rebuild the window when its last refresh is older than ``max_age``
        (checked again in the script, so two readers that found it stale
        refresh it once), or whatever its age with ``force``."""
        current = math.floor(now) // self.granularity
        if self._slice_keys[0] != current:
            board = self._board
            window, meta = board.keys()[0], board.keys()[3]
            self._slice_keys = (current, (window, meta, *(board.slice_key(n) for n in self.window_slices(now))))
        aggregate = ROLLING_RULES[self.rule]
        if aggregate == "MAX" and self.order == "asc":
            aggregate = "MIN"
        refreshed = yield Run(WINDOW, self._slice_keys[1], (repr(float(now)), repr(self.max_age), aggregate,
                                                            "1" if force else "0"))
        return bool(refreshed)

    def _fresh(self, plan: Plan[_T]) -> Steps[_T]:
        """``plan`` (a read of the window) on a window refreshed within
        ``max_age``. The last refresh's time is read with it -- in one
        pipeline when the read is one command -- and only when it is too old
        does the refresh script run, then the read again."""
        now = self.clock()
        stamp = (self._board.keys()[3], "at")
        if type(plan) is tuple and type(plan[0]) is str and plan[2] is None:  # one command: sent with the stamp
            at, reply = yield [Call("hget", stamp), Call(plan[0], plan[1])]
            if at is not None and now - float(at) <= self.max_age:
                return plan[3](reply)
        else:
            at = yield Call("hget", stamp)
            if at is not None and now - float(at) <= self.max_age:
                result: _T = yield from steps(plan)
                return result
        yield from self._refreshing(now)
        result = yield from steps(plan)
        return result

    def _plan_refresh(self) -> Steps[int]:
        """Rebuild the window now, whatever its age; the number of players in it.
        O(total slice entries x log)."""
        yield from self._refreshing(self.clock(), force=True)
        count: int = yield from steps(self._board._plan_count())
        return count

    # -- reads of the window (each refreshes it first when older than max_age) --

    def _plan_top(self, n: int = 10, *, ranking: Optional[str] = None) -> Steps[List[Entry]]:
        """The best ``n`` players of the window. O(log n + n) after any refresh."""
        return self._fresh(self._board._plan_top(n, ranking=ranking))

    def _plan_rank(self, player: PlayerId, *, ranking: Optional[str] = None) -> Steps[Optional[int]]:
        """A player's 1-based rank in the window, None if absent. O(log n)."""
        return self._fresh(self._board._plan_rank(player, ranking=ranking))

    def _plan_around(self, player: PlayerId, radius: int = 5, *,
                     ranking: Optional[str] = None) -> Steps[List[Entry]]:
        """The window's entries within ``radius`` places of a player (empty if absent)."""
        return self._fresh(self._board._plan_around(player, radius, ranking=ranking))

    def _plan_score(self, player: PlayerId) -> Steps[Optional[Points]]:
        """A player's points over the window, None if absent. O(1)."""
        return self._fresh(self._board._plan_score(player))

    def _plan_count(self) -> Steps[int]:
        """How many players the window holds. O(1)."""
        return self._fresh(self._board._plan_count())

    submit = twin(_plan_submit, opens=True)
    submit_many = twin(_plan_submit_many, opens=True)
    refresh = twin(_plan_refresh, opens=True)
    top = twin(_plan_top, opens=True)
    rank = twin(_plan_rank, opens=True)
    around = twin(_plan_around, opens=True)
    score = twin(_plan_score, opens=True)
    count = twin(_plan_count, opens=True)

class RollingLeaderboard(SyncFace, RollingPlans):
    """A leaderboard of the last ``window`` (sliding, not calendar) over a
    redis-py style client (``fastrank.Engine``, ``redis.Redis``,
    ``redis.cluster.RedisCluster``).

    ``RollingLeaderboard(client, name, *, window="7d", granularity="1h",
    rule="incr", order="desc", ranking="ordinal", max_age=60.0, clock=None)``;
    ``window``, ``granularity``, ``rule``, ``order`` and ``ranking`` are
    stored with the board; ``clock`` (unix seconds, default ``time.time``)
    tells the time of submits without ``at=`` and of the window.
    """


    def _made(self) -> None:
        run(self._client, self._plan_open())

    def open(self: _SelfRolling) -> _SelfRolling:
        """Read the board's stored options again."""
        run(self._client, self._plan_open())
        return self

