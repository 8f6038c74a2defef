"""The score service's life under random steps (#24): matches recorded by an
API process (apply=False) and by the applying service, the applier run,
service restarts (a new client object, the store opened again, recover()),
rebuilds, tombstoned matches and season rollovers (a new service for the new
season; the old one refuses before recording). The store's totals are
checked against a plain-Python model after every step, and the board against
it after every apply, restart and rebuild. On the three backends, with a
SQLite store."""
from __future__ import annotations

import itertools
import os
import tempfile
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from fastrank import Leaderboard, SQLiteStore, ScoreService, SeasonFrozen

PLAYERS = st.lists(st.sampled_from(["ann", "bob", "cy", "dee", "eve"]), min_size=1, max_size=3, unique=True)
T0 = 1_790_000_000
NAMES = itertools.count()


def machine_for(client: Any, other: Any):
    class ServiceLife(RuleBasedStateMachine):
        @initialize()
        def make(self) -> None:
            self.folder = tempfile.mkdtemp()
            self.path = os.path.join(self.folder, "scores.db")
            self.name = f"svc{next(NAMES)}"
            self.season = "s1"
            self.seasons = itertools.count(2)
            self.matches = itertools.count()
            # per season: match id -> {player: points} (live matches only)
            self.model: Dict[str, Dict[str, Dict[str, int]]] = {"s1": {}}
            self.tick = T0
            self.store = SQLiteStore(self.path)
            self._open(client, Leaderboard(client, self.name, season=self.season))

        def _open(self, on: Any, board: Any = None) -> None:
            """The applying service and an API process's (apply=False), the board opened by name."""
            self.service = ScoreService(board or Leaderboard(on, self.name), self.store)
            self.api = ScoreService(Leaderboard(on, self.name), self.store, apply=False)

        def _reopen(self, on: Any) -> None:
            self.store.close()
            self.store = SQLiteStore(self.path)
            self._open(on)

        def totals(self) -> Dict[str, int]:
            out: Dict[str, int] = {}
            for match in self.model[self.season].values():
                for player, points in match.items():
                    out[player] = out.get(player, 0) + points
            return {p: v for p, v in out.items() if v}

        def board_state(self) -> Dict[str, int]:
            return {e.player: e.points for e in self.service.board.iter() if e.points}

        @rule(players=PLAYERS, points=st.integers(1, 9), through_api=st.booleans())
        def submit(self, players: List[str], points: int, through_api: bool) -> None:
            match = f"m{next(self.matches)}"
            result = {p: points + i for i, p in enumerate(players)}
            self.tick += 1
            (self.api if through_api else self.service).submit_match(match, result, at=self.tick)
            self.model[self.season][match] = result

        @rule(data=st.data())
        def retry_a_match(self, data: st.DataObject) -> None:
            live = self.model[self.season]
            if not live:
                return
            match = data.draw(st.sampled_from(sorted(live)))
            receipts = self.service.submit_match(match, live[match], at=T0)   # a retry adds nothing
            assert {r.player: r.points for r in receipts} == live[match]

        @rule()
        def apply(self) -> None:
            self.service.apply_pending()
            assert self.board_state() == self.totals()

        @rule()
        def restart(self) -> None:
            self._reopen(other)
            self.service.recover()
            assert self.service.board.season == self.season
            assert self.board_state() == self.totals()

        @rule()
        def rebuild(self) -> None:
            self.service.rebuild()
            assert self.board_state() == self.totals()

        @rule(data=st.data())
        def tombstone_a_match(self, data: st.DataObject) -> None:
            live = self.model[self.season]
            if not live:
                return
            match = data.draw(st.sampled_from(sorted(live)))
            self.service.tombstone_match(match)
            del live[match]
            assert self.board_state() == self.totals()

        @rule()
        def rollover(self) -> None:
            old = self.service
            old.apply_pending()
            new = f"s{next(self.seasons)}"
            old.board.rollover(new)
            with pytest.raises(SeasonFrozen):
                old.submit_match(f"late{next(self.matches)}", {"ann": 1}, at=T0)
            self.season = new
            self.model[new] = {}
            self._reopen(client)
            assert self.service.season == new

        @invariant()
        def the_store_holds_the_model(self) -> None:
            if not hasattr(self, "service"):
                return
            stored = {t.player: t.points for page in self.service.store.totals(self.season, board=self.name)
                      for t in page if t.points}
            assert stored == self.totals()

        def teardown(self) -> None:
            if hasattr(self, "store"):
                self.store.close()

    ServiceLife.TestCase.settings = settings(max_examples=15, stateful_step_count=20, deadline=None,
                                             suppress_health_check=list(HealthCheck))
    return ServiceLife


def test_service_lifecycle_machine(client, other_client):
    run_state_machine_as_test(machine_for(client, other_client))
