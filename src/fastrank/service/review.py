"""Plausibility checks for submitted scores: what the review queue asks of each one.

A *check* is a plain callable ``check(submission, history, population)``
that returns a reason (a short text) when the submission looks implausible
and ``None`` otherwise. ``history`` holds the player's own recent points and
submission times; ``population`` the board's recent points per match. The
built-in checks use robust statistics (median and MAD), so one earlier
outlier cannot hide the next:

- :class:`AboveOwnHistory`: points far above the player's own matches;
- :class:`AbovePopulation`: points far above what the board's players score;
- :class:`TooFrequent`: more submissions than a human plays in a window.

Each check waits for a warm-up (enough history) before it judges, so a new
player's first match is never held for lack of data. :class:`Reviewer`
keeps the histories in memory and runs the checks; the service feeds it.
"""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Deque, Dict, List, Optional, Tuple

__all__ = ["AboveOwnHistory", "AbovePopulation", "Check", "History", "Population", "Reviewer",
           "Submission", "TooFrequent", "default_checks", "robust_spread", "robust_z"]

#: MAD times this estimates the standard deviation of a normal distribution.
MAD_TO_SIGMA = 1.4826


@dataclass(frozen=True)
class Submission:
    """One player's points for one match, as the service is about to record them."""

    player: str
    points: int
    at: float
    match_id: str = ""


@dataclass
class History:
    """A player's recent matches: points and submission times, newest last."""

    points: Deque[int] = field(default_factory=lambda: deque(maxlen=200))
    times: Deque[float] = field(default_factory=lambda: deque(maxlen=200))

    def add(self, submission: Submission) -> None:
        self.points.append(submission.points)
        self.times.append(submission.at)


class Population:
    """The board's recent points per match: a sliding sample of every
    player's last ``size`` matches. Its median and spread are recomputed
    every ``refresh`` additions (O(size) each), not on every read."""

    def __init__(self, size: int = 5000, refresh: int = 250) -> None:
        self.points: Deque[int] = deque(maxlen=size)
        self.refresh = refresh
        self._added = 0
        self._stats: Optional[Tuple[float, float]] = None

    def __len__(self) -> int:
        return len(self.points)

    def add(self, submission: Submission) -> None:
        self.points.append(submission.points)
        self._added += 1
        if self._added % self.refresh == 0:
            self._stats = None

    def stats(self) -> Tuple[float, float]:
        """(median, robust spread) of the sample; see :func:`robust_spread`."""
        if self._stats is None:
            self._stats = robust_spread(self.points)
        return self._stats


Check = Callable[[Submission, History, Population], Optional[str]]


def robust_spread(sample: Iterable[float]) -> Tuple[float, float]:
    """The sample's median and robust spread: 1.4826 × MAD, floored at 1
    point and at a quarter of the median, so a player who always scores the
    same is not flagged for scoring one point more."""
    values = list(sample)
    centre = median(values)
    mad = median(abs(x - centre) for x in values)
    return centre, max(MAD_TO_SIGMA * mad, 1.0, 0.25 * abs(centre))


def robust_z(value: float, sample: Sequence[float]) -> float:
    """How many robust spreads (:func:`robust_spread`) ``value`` lies above the sample's median."""
    centre, spread = robust_spread(sample)
    return (value - centre) / spread


def _far_above(points: int, centre: float, spread: float, threshold: float, whose: str) -> Optional[str]:
    """The reason when ``points`` lie more than ``threshold`` robust spreads above ``centre``, else None."""
    z = (points - centre) / spread
    if z <= threshold:
        return None
    return f"points {points} are {z:.1f} robust deviations above {whose} median {centre:g}"


@dataclass(frozen=True)
class AboveOwnHistory:
    """Points far above the player's own last ``window`` matches (after ``warmup`` of them)."""

    threshold: float = 10.0
    warmup: int = 10
    window: int = 50

    def __call__(self, submission: Submission, history: History, population: Population) -> Optional[str]:
        if len(history.points) < self.warmup:
            return None
        centre, spread = robust_spread(list(history.points)[-self.window:])
        return _far_above(submission.points, centre, spread, self.threshold, "the player's")


@dataclass(frozen=True)
class AbovePopulation:
    """Points far above the board's population (after ``warmup`` matches seen)."""

    threshold: float = 20.0
    warmup: int = 200

    def __call__(self, submission: Submission, history: History, population: Population) -> Optional[str]:
        if len(population) < self.warmup:
            return None
        centre, spread = population.stats()
        return _far_above(submission.points, centre, spread, self.threshold, "the board's")


@dataclass(frozen=True)
class TooFrequent:
    """More than ``limit`` submissions by one player within ``seconds``."""

    limit: int = 10
    seconds: float = 60.0

    def __call__(self, submission: Submission, history: History, population: Population) -> Optional[str]:
        recent = sum(1 for t in history.times if submission.at - self.seconds < t <= submission.at)
        if recent + 1 <= self.limit:
            return None
        return f"{recent + 1} submissions within {self.seconds:g} s (limit {self.limit})"


def default_checks() -> List[Check]:
    """The built-in checks with their default thresholds."""
    return [AboveOwnHistory(), AbovePopulation(), TooFrequent()]


class Reviewer:
    """Runs the checks on each submission against in-memory histories.

    ``review`` returns the reasons (empty: plausible); ``learn`` adds an
    accepted submission to the histories. A held submission is learnt only
    when approved, so a cheater's held scores never raise their own bar.
    ``seed`` loads past matches (oldest first) so a restarted service judges
    as it did before."""

    def __init__(self, checks: Iterable[Check]) -> None:
        self.checks = list(checks)
        for check in self.checks:
            if not callable(check):
                raise TypeError(f"a check must be callable, not {type(check).__name__}")
        self.histories: Dict[str, History] = {}
        self.population = Population()

    def review(self, submission: Submission) -> List[str]:
        history = self.histories.get(submission.player) or History()
        reasons = []
        for check in self.checks:
            reason = check(submission, history, self.population)
            if reason is not None:
                reasons.append(str(reason))
        return reasons

    def learn(self, submission: Submission) -> None:
        if not math.isfinite(submission.at):
            raise ValueError(f"submission time must be finite, not {submission.at!r}")
        self.histories.setdefault(submission.player, History()).add(submission)
        self.population.add(submission)

    def seed(self, past: Iterable[Submission]) -> None:
        for submission in past:
            self.learn(submission)
