"""A rolling board under random steps: submits dated now, earlier (some
refused: their slice has left the window) or later, a fake clock moved by
random amounts, forced refreshes and reopenings by name from a second client,
every read of the window checked against a model that replays the events --
including how stale ``max_age`` lets a read be. Three boards per run (``incr``
summed, ``best`` maxed, ``best`` on an ``asc`` board: the minimum), on the
three backends."""
from __future__ import annotations

import itertools
from typing import Any, Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from fastrank import PeriodClosed, RollingLeaderboard

PLAYERS = st.sampled_from(["ann", "bob", "cy", "dee", "eve"])
KINDS = st.sampled_from(["sum", "max", "min"])
OPTIONS = {"sum": {"rule": "incr"}, "max": {"rule": "best"}, "min": {"rule": "best", "order": "asc"}}
HOUR = 3600
SLICES = 4  # window="4h", granularity="1h"
START = 2_000_000_000  # the fake clock starts ahead of the real one: no slice expires under the test
NAMES = itertools.count()


class Model:
    """One rolling board as plain Python: its events, and the window as of its last refresh."""

    def __init__(self, kind: str, max_age: int) -> None:
        self.kind = kind
        self.max_age = max_age
        self.events: List[Tuple[int, str, int]] = []  # (slice, player, points)
        self.refreshed_at: Optional[int] = None
        self.window: Dict[str, int] = {}

    def closed(self, at: int, now: int) -> bool:
        return at // HOUR <= now // HOUR - SLICES

    def refresh(self, now: int) -> None:
        current = now // HOUR
        window: Dict[str, int] = {}
        for number, player, points in self.events:
            if current - SLICES < number <= current:
                if player not in window:
                    window[player] = points
                elif self.kind == "sum":
                    window[player] += points
                elif self.kind == "max":
                    window[player] = max(window[player], points)
                else:
                    window[player] = min(window[player], points)
        self.window, self.refreshed_at = window, now

    def read(self, now: int) -> List[Tuple[str, int]]:
        """The window in rank order, as a read at ``now`` sees it."""
        if self.refreshed_at is None or now - self.refreshed_at > self.max_age:
            self.refresh(now)
        rows = list(self.window.items())
        if self.kind == "min":  # ZRANGE: lowest first, equal scores by member
            return sorted(rows, key=lambda kv: (kv[1], kv[0].encode()))
        return sorted(rows, key=lambda kv: (kv[1], kv[0].encode()), reverse=True)  # ZREVRANGE


def machine_for(client: Any, other: Any):

    class RollingLife(RuleBasedStateMachine):
        @initialize(max_age=st.sampled_from([0, 900]))
        def make(self, max_age: int) -> None:
            n = next(NAMES)
            self.now = START
            self.names = {kind: f"roll{n}{kind}" for kind in OPTIONS}
            self.models = {kind: Model(kind, max_age) for kind in OPTIONS}
            self.max_age = max_age
            self.boards = {kind: RollingLeaderboard(client, self.names[kind], window="4h", granularity="1h",
                                                    max_age=max_age, clock=self.clock, **OPTIONS[kind])
                           for kind in OPTIONS}

        def clock(self) -> float:
            return float(self.now)

        @rule(kind=KINDS, player=PLAYERS, points=st.integers(1, 9),
              back=st.sampled_from([None, 0, 1800, 3 * HOUR, 4 * HOUR, 6 * HOUR, -HOUR]))
        def submit(self, kind: str, player: str, points: int, back: Optional[int]) -> None:
            board, model = self.boards[kind], self.models[kind]
            at = self.now if back is None else self.now - back
            if model.closed(at, self.now):
                with pytest.raises(PeriodClosed):
                    board.submit(player, points, at=at)
                return
            board.submit(player, points, at=None if back is None else at)
            model.events.append((at // HOUR, player, points))

        @rule(kind=KINDS, results=st.dictionaries(PLAYERS, st.integers(1, 9), max_size=3))
        def submit_many(self, kind: str, results: Dict[str, int]) -> None:
            self.boards[kind].submit_many(results)
            self.models[kind].events += [(self.now // HOUR, p, v) for p, v in results.items()]

        @rule(seconds=st.sampled_from([1, 600, 1800, HOUR, 2 * HOUR, 5 * HOUR]))
        def advance(self, seconds: int) -> None:
            self.now += seconds

        @rule(kind=KINDS)
        def refresh(self, kind: str) -> None:
            model = self.models[kind]
            model.refresh(self.now)
            assert self.boards[kind].refresh() == len(model.window)

        @rule(kind=KINDS)
        def reopen_from_a_second_client(self, kind: str) -> None:
            board = RollingLeaderboard(other, self.names[kind], max_age=self.max_age, clock=self.clock)
            assert (board.rule, board.order, board.window, board.granularity) == (
                self.boards[kind].rule, self.boards[kind].order, 4 * HOUR, HOUR)
            self.boards[kind] = board

        @invariant()
        def reads_match_the_model(self) -> None:
            if not hasattr(self, "boards"):
                return
            for kind, board in self.boards.items():
                expected = self.models[kind].read(self.now)
                assert [(e.player, e.points) for e in board.top(10)] == expected, kind
                assert board.count() == len(expected)
                for index, (player, points) in enumerate(expected[:2]):
                    assert board.rank(player) == index + 1
                    assert board.score(player) == points
                    better = sum(1 for _, p in expected if (p < points if kind == "min" else p > points))
                    assert board.rank(player, ranking="competition") == better + 1
                    near = expected[max(index - 1, 0):index + 2]
                    assert [(e.player, e.points) for e in board.around(player, 1)] == near
                absent = next((p for p in ["ann", "bob", "cy", "dee", "eve"] if p not in dict(expected)), None)
                if absent is not None:
                    assert board.rank(absent) is None and board.score(absent) is None

    RollingLife.TestCase.settings = settings(max_examples=20, stateful_step_count=20, deadline=None,
                                             suppress_health_check=list(HealthCheck))
    return RollingLife


def test_rolling_machine(client, other_client):
    run_state_machine_as_test(machine_for(client, other_client))
