"""A range-partitioned board's life under random steps: submits (crossing bounds
both ways), set_points, removes, rebalances (some interrupted, then finished
from a second client), reopenings by name from a second client, writes from a
handle opened at the start; after each step every read (top, the three rank
styles, around, band sizes, band_of, score, count) is checked against a
plain-Python model. On the three backends; bounded to a few seconds each."""
from __future__ import annotations

import itertools
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from fastrank import Entry, RangePartitionedLeaderboard, SeasonFrozen
from fastrank.runner import run

from test_bands import Stop, cut

PLAYERS = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay"])
BOUNDS = st.lists(st.integers(-20, 60), min_size=1, max_size=4, unique=True).map(sorted)
POSITIVE_BOUNDS = st.lists(st.integers(1, 60), min_size=1, max_size=4, unique=True).map(sorted)
NAMES = itertools.count()


class Model:
    """The board as plain Python: player → [points, tick reached]."""

    def __init__(self, bounds: List[int]) -> None:
        self.bounds = bounds
        self.rows: Dict[str, List[int]] = {}

    def write(self, player: str, points: int, tick: int, rule: str) -> int:
        row = self.rows.get(player)
        new = points if rule == "set" else (row[0] if row else 0) + points
        if row is None or new != row[0]:
            self.rows[player] = [new, tick]
        return new

    def order(self) -> List[Tuple[str, int]]:
        ranked = sorted(self.rows.items(), key=lambda kv: (-kv[1][0], kv[1][1]))
        return [(player, row[0]) for player, row in ranked]

    def rank(self, player: str, style: str) -> int:
        points = self.rows[player][0]
        if style == "ordinal":
            return [p for p, _ in self.order()].index(player) + 1
        if style == "competition":
            return 1 + sum(1 for row in self.rows.values() if row[0] > points)
        return 1 + len({row[0] for row in self.rows.values() if row[0] > points})

    def entries(self, style: str) -> List[Entry]:
        return [Entry(self.rank(p, style), p, points) for p, points in self.order()]

    def band(self, points: int) -> int:
        return sum(1 for b in self.bounds if points >= b)


def machine_for(client: Any, other: Any, approximate: bool):
    """Dense ranks, all exact; or, with ``approximate``, ordinal ranks whose
    lowest band's are estimates the exact one must lie within."""
    bounds_strategy = POSITIVE_BOUNDS if approximate else BOUNDS
    ranking = "ordinal" if approximate else "dense"
    styles = ("ordinal", "competition") if approximate else ("ordinal", "competition", "dense")

    class BandsLife(RuleBasedStateMachine):
        @initialize(bounds=bounds_strategy)
        def make(self, bounds: List[int]) -> None:
            self.name = f"bandlife{next(NAMES)}"
            self.tick = 1_000
            self.model = Model(bounds)
            self.board = RangePartitionedLeaderboard(client, self.name, bounds=bounds, ranking=ranking,
                                                     approximate=approximate)
            self.early = RangePartitionedLeaderboard(other, self.name)   # opened now, kept across rebalances

        def _tick(self) -> int:
            self.tick += 1
            return self.tick

        @rule(player=PLAYERS, points=st.integers(-30, 30), early=st.booleans())
        def submit(self, player: str, points: int, early: bool) -> None:
            tick = self._tick()
            board = self.early if early else self.board
            assert board.submit(player, points, at=tick) == self.model.write(player, points, tick, "incr")

        @rule(player=PLAYERS, points=st.integers(-30, 70))
        def set_points(self, player: str, points: int) -> None:
            tick = self._tick()
            assert self.board.set_points(player, points, at=tick) == self.model.write(player, points, tick, "set")

        @rule(player=PLAYERS)
        def remove(self, player: str) -> None:
            assert self.board.remove(player) == (self.model.rows.pop(player, None) is not None)

        @rule(bounds=bounds_strategy)
        def rebalance(self, bounds: List[int]) -> None:
            copied = self.board.rebalance(bounds, batch=2)
            assert copied == (0 if bounds == self.model.bounds else len(self.model.rows))
            self.model.bounds = bounds

        @rule(bounds=bounds_strategy, again=bounds_strategy, steps=st.integers(0, 12))
        def interrupted_rebalance(self, bounds: List[int], again: List[int], steps: int) -> None:
            try:
                run(client, cut(self.board._plan_rebalance(bounds, batch=1), steps))
                self.model.bounds = bounds          # it ran to its end
            except Stop:
                if client.hget(self.board.descriptor_key, "next"):
                    with pytest.raises(SeasonFrozen):
                        self.board.submit("ann", 1, at=self._tick())
            RangePartitionedLeaderboard(other, self.name).rebalance(again, batch=3)
            self.model.bounds = again

        @rule()
        def reopen(self) -> None:
            self.board = RangePartitionedLeaderboard(other, self.name)
            assert list(self.board.bounds) == self.model.bounds

        @invariant()
        def reads_match(self) -> None:
            board, model = self.board, self.model
            entries = model.entries(ranking)
            assert board.top(100) == entries
            assert board.top(2) == entries[:2]
            assert board.count() == len(model.rows)
            sizes = [0] * (len(model.bounds) + 1)
            for row in model.rows.values():
                sizes[model.band(row[0])] += 1
            assert board.band_sizes() == sizes
            for i, (player, points) in enumerate(model.order()):
                assert board.score(player) == points
                assert board.band_of(player) == model.band(points)
                for style in styles:
                    exact = model.rank(player, style)
                    low, high = board.rank_range(player, ranking=style)
                    assert board.rank(player, ranking=style) == low
                    if approximate and model.band(points) == 0:
                        assert low <= exact <= high
                    else:
                        assert low == high == exact
                assert board.around(player, 1) == entries[max(0, i - 1):i + 2]
            assert board.rank("zed") is None and board.band_of("zed") is None and board.around("zed") == []

    return BandsLife


@pytest.mark.parametrize("approximate", [False, True], ids=["exact", "approximate"])
def test_bands_life(client, other_client, approximate):
    run_state_machine_as_test(machine_for(client, other_client, approximate), settings=settings(
        max_examples=20, stateful_step_count=12, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))
