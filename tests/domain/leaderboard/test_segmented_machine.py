"""A segmented board under random steps: submits by every rule (moving
players between segments), removals, refreshes and reopenings by name from
a second client, every read checked against a plain-Python model after each
step: per-segment tops and ranks, the global top (a small global key, so
entries leave it and it goes stale), exact global ranks and the error bound
of the approximate ones. On the three backends; bounded to a few seconds each."""
from __future__ import annotations

import itertools
from typing import Any, Dict

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from board_model import ModelBoard
from fastrank import SegmentedLeaderboard

PLAYERS = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "é"]
SEGMENTS = ("eu", "na", "asia")
WIDTH = 10
NAMES = itertools.count()


def machine_for(client: Any, other: Any):

    class SegmentedLife(RuleBasedStateMachine):
        @initialize(order=st.sampled_from(["desc", "asc"]), tiebreak=st.sampled_from([None, "earliest", "latest"]),
                    ranking=st.sampled_from(["ordinal", "competition"]), size=st.integers(1, 4))
        def make(self, order: str, tiebreak: Any, ranking: str, size: int) -> None:
            self.name = f"segm{next(NAMES)}"
            self.options = {"segments": SEGMENTS, "global_size": size, "bucket_width": WIDTH, "order": order,
                            "tiebreak": tiebreak, "ranking": ranking}
            self.board = SegmentedLeaderboard(client, self.name, **self.options)
            self.model = ModelBoard(order, tiebreak)
            self.where: Dict[str, str] = {}
            self.tick = 1_790_000_000

        @rule(player=st.sampled_from(PLAYERS), points=st.integers(-20, 40), segment=st.sampled_from(SEGMENTS),
              rule_=st.sampled_from(["incr", "decr", "best", "set"]), same_tick=st.booleans())
        def submit(self, player: str, points: int, segment: str, rule_: str, same_tick: bool) -> None:
            self.tick += 0 if same_tick else 1
            got = self.board.submit(player, points, segment=segment, at=self.tick, rule=rule_)
            assert got == self.model.submit(player, points, self.tick, rule_)
            self.where[player] = segment

        @rule(player=st.sampled_from(PLAYERS))
        def remove(self, player: str) -> None:
            assert self.board.remove(player) == self.model.remove(player)
            self.where.pop(player, None)

        @rule()
        def refresh(self) -> None:
            assert self.board.refresh() == min(len(self.model.players), self.options["global_size"])

        @rule()
        def reopen_from_a_second_client(self) -> None:
            self.board = SegmentedLeaderboard(other, self.name)
            assert self.board.segments == SEGMENTS

        def _segment_rank(self, player: str, style: str) -> int:
            segment = self.where[player]
            mine = [p for p in self.model.ordered() if self.where[p] == segment]
            points = self.model.players[player][0]
            if style == "ordinal":
                return mine.index(player) + 1
            return 1 + sum(1 for p in mine if self.model.better(self.model.players[p][0], points))

        @invariant()
        def reads_match_the_model(self) -> None:
            if not hasattr(self, "board"):
                return
            board, model, style = self.board, self.model, self.options["ranking"]
            size = self.options["global_size"]
            expected = model.entries(style)
            assert [(e.rank, e.player, e.points) for e in board.global_top(size)] == expected[:size]
            for segment in SEGMENTS:
                mine = [p for p in model.ordered() if self.where[p] == segment]
                assert [e.player for e in board.top(10, segment=segment)] == mine
                assert board.count(segment=segment) == len(mine)
            assert board.count() == len(model.players)
            for player in PLAYERS:
                if player not in model.players:
                    assert board.rank(player) is None and board.global_rank(player) is None
                    assert board.segment_of(player) is None and board.score(player) is None
                    continue
                points = model.players[player][0]
                assert board.segment_of(player) == self.where[player]
                assert board.score(player) == points
                assert board.rank(player) == self._segment_rank(player, style)
                exact = model.rank(player, style)
                assert board.global_rank(player) == exact
                others_same = sum(1 for p, (n, _) in model.players.items()
                                  if self.where[p] != self.where[player] and n // WIDTH == points // WIDTH)
                assert abs(board.global_rank(player, approximate=True) - exact) <= (others_same + 1) // 2

    SegmentedLife.TestCase.settings = settings(max_examples=25, stateful_step_count=20, deadline=None,
                                               suppress_health_check=list(HealthCheck))
    return SegmentedLife


def test_segmented_machine(client, other_client):
    run_state_machine_as_test(machine_for(client, other_client))
