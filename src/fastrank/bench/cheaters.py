"""A synthetic season with cheaters among honest players, to measure the review checks.

Honest players have a skill drawn from a log-normal distribution; each match
scores Gamma(4, skill/4) points (mean = skill, a long right tail), matches
minutes to hours apart. Three kinds of cheaters play like honest players
and then:

- *inflators* submit some matches (at least one) at 5-30x their real
  points (an edited client);
- *boosters* submit every match at 2-4x from the start (a quieter cheat:
  their whole history is inflated, so only the population check can see
  them, and only when they are far out);
- *bots* submit bursts of matches seconds apart.

:func:`measure` feeds every submission, in time order, to a
:class:`fastrank.service.review.Reviewer` as the service does (held
submissions are not learnt) and reports, per kind of player, the share with
at least one flagged submission.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Tuple

from fastrank.service.review import Check, Reviewer, Submission, default_checks

__all__ = ["KINDS", "Player", "SeasonResult", "measure", "synthetic_season"]

KINDS = ("honest", "inflator", "booster", "bot")


@dataclass(frozen=True)
class Player:
    name: str
    kind: str


@dataclass(frozen=True)
class SeasonResult:
    """Per kind: players, players flagged at least once; and submissions flagged among honest ones."""

    players: Dict[str, int]
    flagged: Dict[str, int]
    honest_submissions: int
    honest_submissions_flagged: int

    def share(self, kind: str) -> float:
        return self.flagged[kind] / self.players[kind] if self.players[kind] else 0.0


def synthetic_season(players: int = 3000, cheaters: float = 0.05, seed: int = 7,
                     matches: Tuple[int, int] = (20, 80)) -> Tuple[List[Player], List[Submission]]:
    """The players and every submission of a 7-day season, in time order."""
    rnd = random.Random(seed)
    roster: List[Player] = []
    subs: List[Submission] = []
    for i in range(players):
        kind = "honest"
        if rnd.random() < cheaters:
            kind = rnd.choice(KINDS[1:])
        player = Player(f"p{i}", kind)
        roster.append(player)
        skill = rnd.lognormvariate(4.0, 0.6)          # median ~55 points a match
        t = rnd.uniform(0, 86_400)
        n = rnd.randint(*matches)
        cheat_from = rnd.randint(12, max(12, n - 1))   # cheaters play honestly first
        if kind == "bot":
            n = cheat_from + rnd.randint(15, 40)       # then one burst of 15-40 matches
        for m in range(n):
            points = max(0, round(rnd.gammavariate(4.0, skill / 4.0)))
            if kind == "inflator" and m >= cheat_from and (rnd.random() < 0.5 or m == n - 1):
                points = round(points * rnd.uniform(5, 30)) + 1
            elif kind == "booster":
                points = round(points * rnd.uniform(2, 4))
            if kind == "bot" and m >= cheat_from:
                t += rnd.uniform(1, 5)                 # a burst, seconds apart
            else:
                t += rnd.expovariate(1 / 5_400)        # about 1.5 h between matches
            subs.append(Submission(player.name, points, t, f"m{i}-{m}"))
    subs.sort(key=lambda s: s.at)
    return roster, subs


def measure(roster: Iterable[Player], submissions: Iterable[Submission],
            checks: Optional[List[Check]] = None) -> SeasonResult:
    """Run the checks over the season as a service with ``review="hold"`` would."""

    reviewer = Reviewer(default_checks() if checks is None else checks)
    kind_of = {p.name: p.kind for p in roster}
    players = {k: 0 for k in KINDS}
    for kind in kind_of.values():
        players[kind] += 1
    flagged_players: Dict[str, set[str]] = {k: set() for k in KINDS}
    honest = honest_flagged = 0
    for sub in submissions:
        reasons = reviewer.review(sub)
        kind = kind_of[sub.player]
        if kind == "honest":
            honest += 1
            honest_flagged += bool(reasons)
        if reasons:
            flagged_players[kind].add(sub.player)
        else:
            reviewer.learn(sub)
    return SeasonResult(players, {k: len(v) for k, v in flagged_players.items()}, honest, honest_flagged)
