"""A team board's life under random steps: submits (one player or many, by
every rule), joins, moves, leaves, removes, rollovers and reopenings by name
from a second client object, with the player board, every team's points and
rank, the team board and each team's members checked against a plain-Python
model (team_model.py) after each step. The aggregate (sum, best, top 2) and
the ranking style are drawn per run; point_bits=6 makes some team totals not
fit, which must change nothing. On the three backends."""
from __future__ import annotations

import itertools
from typing import Any, Optional

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from fastrank import PointsOutOfRange, TeamLeaderboard

from team_model import TeamModel, ranked, ranks

PLAYERS = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "fay"])
TEAMS = st.sampled_from(["red", "blue", "green"])
POINTS = st.integers(-4, 30)
NAMES = itertools.count()


def machine_for(client: Any, other: Any):

    class TeamLife(RuleBasedStateMachine):
        @initialize(aggregate=st.sampled_from(["sum", "best", "top"]),
                    ranking=st.sampled_from(["ordinal", "competition", "dense"]))
        def make(self, aggregate: str, ranking: str) -> None:
            self.name = f"teams{next(NAMES)}"
            self.ranking = ranking
            self.tick = 1_000
            self.seasons = itertools.count(2)
            self.season = "s1"
            k = 2 if aggregate == "top" else None
            self.board = TeamLeaderboard(client, self.name, aggregate=aggregate, k=k, ranking=ranking,
                                         point_bits=6, season="s1")
            self.model = TeamModel(aggregate, k, 63)
            for player, team in (("ann", "red"), ("bob", "red"), ("cy", "red"), ("dee", "blue"), ("eve", "blue")):
                self.join(player, team)        # fay plays without a team

        def _tick(self) -> int:
            self.tick += 1
            return self.tick

        def _apply(self, write, check) -> None:
            """Run a write on the board and the model alike: both refuse, or both give the same answer."""
            tick = self._tick()
            try:
                expected = check(tick)
            except PointsOutOfRange:
                with pytest.raises(PointsOutOfRange):
                    write(tick)
            else:
                assert write(tick) == expected

        @rule(player=PLAYERS, points=POINTS, rule_=st.sampled_from(["incr", "best", "set"]))
        def submit(self, player: str, points: int, rule_: str) -> None:
            self._apply(lambda t: self.board.submit(player, points, at=t, rule=rule_),
                        lambda t: self.model.submit([(player, points)], rule_, t)[0])

        @rule(results=st.lists(st.tuples(PLAYERS, POINTS), min_size=1, max_size=4))
        def submit_many(self, results: list) -> None:
            self._apply(lambda t: self.board.submit_many(results, at=t),
                        lambda t: self.model.submit(results, "incr", t))

        @rule(player=PLAYERS, team=TEAMS)
        def join(self, player: str, team: str) -> None:
            self._apply(lambda t: self.board.join(player, team, at=t),
                        lambda t: self.model.join(player, team, t) or True)

        @rule(player=PLAYERS)
        def leave(self, player: str) -> None:
            was = player in self.model.team_of
            self._apply(lambda t: self.board.leave(player, at=t),
                        lambda t: self.model.join(player, None, t) or was)

        @rule(player=PLAYERS)
        def remove(self, player: str) -> None:
            self._apply(lambda t: self.board.remove(player, at=t), lambda t: self.model.remove(player, t))

        @rule()
        def rollover(self) -> None:
            new = f"s{next(self.seasons)}"
            self.board.rollover(new)
            self.model.rollover(self.season)
            self.season = new

        @rule()
        def reopen_from_a_second_client(self) -> None:
            self.board = TeamLeaderboard(other, self.name)
            assert (self.board.season, self.board.ranking) == (self.season, self.ranking)

        @invariant()
        def board_matches_the_model(self) -> None:
            if not hasattr(self, "board"):
                return
            board, model = self.board, self.model
            players = ranked(model.players)
            assert [(e.player, e.points) for e in board.top(20)] == players
            teams = ranked(model.teams)
            got = board.team_top(20)
            assert [(e.player, e.points, e.rank) for e in got] == [
                (team, points, rank) for (team, points), rank in zip(teams, ranks(teams, self.ranking))]
            assert board.team_count() == len(teams)
            for team in ("red", "blue", "green"):
                expected: Optional[int] = model.teams[team][0] if team in model.teams else None
                assert board.team_score(team) == expected
                rank = next((e.rank for e in got if e.player == team), None)
                assert board.team_rank(team) == rank
                members = model.members(team)
                assert [(e.player, e.points, e.rank) for e in board.members(team)] == [
                    (p, points, r) for (p, points), r in zip(members, ranks(members, self.ranking))]
            for player in ("ann", "bob", "cy"):
                assert board.team_of(player) == model.team_of.get(player)
            for season, (past_players, past_teams) in model.past.items():
                assert [(e.player, e.points) for e in board.standings(season, 20)] == ranked(past_players)
                assert [(e.player, e.points) for e in board.team_top(20, season=season)] == ranked(past_teams)

    TeamLife.TestCase.settings = settings(max_examples=25, stateful_step_count=30, deadline=None,
                                          suppress_health_check=list(HealthCheck))
    return TeamLife


def test_team_board_machine(client, other_client):
    run_state_machine_as_test(machine_for(client, other_client))
