"""A board's life under random steps (#24): a plain board and a sharded board
driven through submits, entry data, rollovers, reshards (some interrupted and
run again), reopenings by name from a second client object and writes from a
process opened earlier, every read checked against a plain-Python model after
each step. On the three backends; bounded to a few seconds each."""
from __future__ import annotations

import itertools
from typing import Any, Dict, List, Optional

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from fastrank import Leaderboard, SeasonFrozen, ShardedLeaderboard

PLAYERS = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay", "gus"])
NAMES = itertools.count()


class Stop(Exception):
    """Interrupts a reshard part-way."""


class Model:
    """One board as plain Python: per season, player → (points, tick reached)."""

    def __init__(self, season: str) -> None:
        self.season = season
        self.seasons: Dict[str, Dict[str, List[int]]] = {season: {}}
        self.info: Dict[str, Dict[str, Any]] = {}

    def submit(self, player: str, points: int, tick: int) -> int:
        row = self.seasons[self.season].setdefault(player, [0, tick])
        row[0] += points
        row[1] = tick
        return row[0]

    def order(self, season: Optional[str] = None) -> List[tuple]:
        rows = self.seasons[season or self.season]
        ranked = sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0].encode()))
        return [(player, row[0]) for player, row in ranked]


def machine_for(client: Any, other: Any):

    class BoardLife(RuleBasedStateMachine):
        @initialize()
        def make(self) -> None:
            n = next(NAMES)
            self.names = {"plain": f"life{n}", "sharded": f"life{n}s"}
            self.tick = 1_000
            self.next_season = itertools.count(2)
            self.models = {"plain": Model("s1"), "sharded": Model("s1")}
            self.boards = {"plain": Leaderboard(client, self.names["plain"], season="s1"),
                           "sharded": ShardedLeaderboard(client, self.names["sharded"], shards=2, season="s1",
                                                         ranking="dense")}
            # a process that opened each board now and keeps its handle: the season it saw
            self.early = {kind: (self._open(kind, client), "s1") for kind in self.boards}

        def _open(self, kind: str, on: Any) -> Any:
            return (Leaderboard if kind == "plain" else ShardedLeaderboard)(on, self.names[kind])

        def _tick(self) -> int:
            self.tick += 1
            return self.tick

        @rule(kind=st.sampled_from(["plain", "sharded"]), player=PLAYERS, points=st.integers(1, 5))
        def submit(self, kind: str, player: str, points: int) -> None:
            tick = self._tick()
            assert self.boards[kind].submit(player, points, at=tick) == self.models[kind].submit(player, points, tick)

        @rule(kind=st.sampled_from(["plain", "sharded"]), player=PLAYERS, points=st.integers(1, 5))
        def submit_from_an_early_process(self, kind: str, player: str, points: int) -> None:
            board, seen = self.early[kind]
            model = self.models[kind]
            tick = self._tick()
            if seen != model.season:          # rolled over since it opened: refused, nothing written
                with pytest.raises(SeasonFrozen):
                    board.submit(player, points, at=tick)
                # a sharded board that re-read its layout (a reshard) took the new season with it
                self.early[kind] = (board, board.season)
            else:                             # resharded or not: the write lands on the live layout
                assert board.submit(player, points, at=tick) == model.submit(player, points, tick)

        @rule(kind=st.sampled_from(["plain", "sharded"]), player=PLAYERS, n=st.integers(0, 9))
        def set_info(self, kind: str, player: str, n: int) -> None:
            self.boards[kind].set_info(player, {"n": n})
            self.models[kind].info[player] = {"n": n}

        @rule(kind=st.sampled_from(["plain", "sharded"]))
        def rollover(self, kind: str) -> None:
            new = f"s{next(self.next_season)}"
            self.boards[kind].rollover(new)
            model = self.models[kind]
            model.season = new
            model.seasons[new] = {}

        @rule(count=st.integers(1, 4), stop_after=st.sampled_from([None, 1, 2]))
        def reshard(self, count: int, stop_after: Optional[int]) -> None:
            board = self.boards["sharded"]
            if stop_after is not None and count != board.shards and self.models["sharded"].order():
                calls = []

                def progress(moved: int, total: int) -> None:
                    calls.append(moved)
                    if len(calls) == stop_after:
                        raise Stop()

                try:
                    board.reshard(count, batch=1, progress=progress)
                except Stop:
                    pass
                else:
                    return
                board = self.boards["sharded"] = self._open("sharded", other)  # another process finishes it
            board.reshard(count, batch=3)
            assert board.shards == count

        @rule(kind=st.sampled_from(["plain", "sharded"]))
        def reopen_from_a_second_client(self, kind: str) -> None:
            self.boards[kind] = self._open(kind, other)
            assert self.boards[kind].season == self.models[kind].season

        @rule(kind=st.sampled_from(["plain", "sharded"]))
        def an_early_process_opens_now(self, kind: str) -> None:
            self.early[kind] = (self._open(kind, client), self.models[kind].season)

        @invariant()
        def reads_match_the_model(self) -> None:
            if not hasattr(self, "boards"):
                return
            for kind, board in self.boards.items():
                model = self.models[kind]
                expected = model.order()
                top = board.top(20)
                assert [(e.player, e.points) for e in top] == expected, kind
                assert board.count() == len(expected)
                for player, _ in expected[:2]:
                    assert board.info(player) == model.info.get(player)
                early, seen = self.early[kind]
                if seen == model.season:      # a process opened earlier reads the live board too
                    assert [(e.player, e.points) for e in early.top(20)] == expected, (kind, "early")
                for season in model.seasons:
                    if season != model.season:
                        got = board.standings(season, 20)
                        assert [(e.player, e.points) for e in got] == model.order(season), (kind, season)

    BoardLife.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None,
                                           suppress_health_check=list(HealthCheck))
    return BoardLife


def test_board_lifecycle_machine(client, other_client):
    run_state_machine_as_test(machine_for(client, other_client))
