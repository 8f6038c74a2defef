"""The review checks: each built-in check on hand-made histories, a user's
own check, and the synthetic season (cheaters among honest players) with
the detection and false-positive rates the README states."""
from __future__ import annotations

import pytest

from fastrank.bench.cheaters import measure, synthetic_season
from fastrank.service.review import (AboveOwnHistory, AbovePopulation, History, Population, Reviewer,
                                     Submission, TooFrequent, default_checks, robust_spread, robust_z)


def history(points, start=0.0, gap=3600.0):
    h = History()
    for i, p in enumerate(points):
        h.add(Submission("p", p, start + i * gap))
    return h


def test_robust_spread_ignores_one_outlier():
    centre, spread = robust_spread([10, 11, 9, 10, 12, 10, 1000])
    assert centre == 10
    assert spread == pytest.approx(2.5)            # a quarter of the median beats 1.4826 x MAD
    assert robust_z(30, [10, 11, 9, 10, 12, 10, 1000]) == pytest.approx(8.0)


def test_robust_spread_floor_for_constant_players():
    assert robust_spread([0, 0, 0, 0]) == (0, 1.0)
    assert robust_z(1, [0, 0, 0]) == 1.0


def test_above_own_history_waits_for_the_warmup_then_flags():
    check = AboveOwnHistory(threshold=10, warmup=10)
    empty = Population()
    assert check(Submission("p", 10_000, 0), history([50] * 9), empty) is None
    h = history([50, 55, 45, 60, 40, 52, 48, 50, 51, 49])
    assert check(Submission("p", 120, 0), h, empty) is None
    reason = check(Submission("p", 1500, 0), h, empty)
    assert reason is not None and "player's median 50" in reason


def test_above_population_waits_for_the_warmup_then_flags():
    check = AbovePopulation(threshold=20, warmup=200)
    population = Population()
    for i in range(199):
        population.add(Submission(f"q{i}", 40 + i % 20, 0))
    assert check(Submission("p", 10**6, 0), History(), population) is None
    population.add(Submission("q", 50, 0))
    assert check(Submission("p", 200, 0), History(), population) is None
    reason = check(Submission("p", 10**6, 0), History(), population)
    assert reason is not None and "board's median" in reason


def test_too_frequent_counts_the_window():
    check = TooFrequent(limit=3, seconds=60)
    h = history([1, 1, 1], start=0, gap=10)        # at 0, 10, 20
    assert check(Submission("p", 1, 65), h, Population()) is None      # 10, 20 and this one
    reason = check(Submission("p", 1, 30), h, Population())
    assert reason == "4 submissions within 60 s (limit 3)"


def test_user_checks_are_plain_callables():
    def no_round_numbers(sub, hist, pop):
        return "a round number" if sub.points % 1000 == 0 else None

    reviewer = Reviewer([no_round_numbers])
    assert reviewer.review(Submission("p", 3000, 0)) == ["a round number"]
    assert reviewer.review(Submission("p", 3001, 0)) == []
    with pytest.raises(TypeError, match="callable"):
        Reviewer([42])  # type: ignore[list-item]


def test_held_submissions_do_not_raise_the_players_bar():
    reviewer = Reviewer([AboveOwnHistory(warmup=5)])
    for i in range(5):
        reviewer.learn(Submission("p", 50, i))
    big = Submission("p", 5000, 10)
    assert reviewer.review(big)
    # the reviewer learns only what it is told; a held score stays out of the history
    assert list(reviewer.histories["p"].points) == [50] * 5
    assert reviewer.review(big)


def test_the_synthetic_season():
    """A deterministic season of 1,500 players, 5 % of them cheating."""
    roster, subs = synthetic_season(players=1500, seed=7)
    result = measure(roster, subs, default_checks())
    assert sum(result.players.values()) == 1500
    assert result.share("inflator") >= 0.85
    assert result.share("bot") >= 0.95
    assert result.share("honest") <= 0.02
    assert result.honest_submissions_flagged / result.honest_submissions <= 0.001
