"""A team board as plain Python (desc order, earliest tie-break): players'
points and the times they reached them, memberships, and each team's points
(sum, best, or the k best members) with the time it reached them. Every
order is computed as the board's sorted sets order it: by encoded score
(points, then the earlier time), equal scores by member, the greater first."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from fastrank import PointsOutOfRange

TIME_SCALE = 2 ** 33  # time_bits=33, the default


def encoded(points: int, tick: int) -> int:
    return points * TIME_SCALE + (TIME_SCALE - 1 - tick)


def ranked(rows: Dict[str, List[int]]) -> List[Tuple[str, int]]:
    """(member, points) in rank order."""
    order = sorted(rows, key=lambda m: (encoded(*rows[m]), m.encode()), reverse=True)
    return [(m, rows[m][0]) for m in order]


def ranks(order: List[Tuple[str, int]], style: str) -> List[int]:
    """The ranks of an ordered list in style ordinal|competition|dense."""
    out: List[int] = []
    for i, (_, points) in enumerate(order):
        if style == "ordinal" or i == 0 or points != order[i - 1][1]:
            out.append(i + 1 if style != "dense" else (out[-1] + 1 if out else 1))
        else:
            out.append(out[-1])
    return out


class TeamModel:
    def __init__(self, aggregate: str, k: Optional[int], max_points: int) -> None:
        self.best = {"sum": None, "best": 1, "top": k}[aggregate]
        self.max_points = max_points
        self.players: Dict[str, List[int]] = {}   # player -> [points, tick reached]
        self.team_of: Dict[str, str] = {}
        self.teams: Dict[str, List[int]] = {}     # team -> [points, tick reached]
        self.past: Dict[str, Tuple[Dict[str, List[int]], Dict[str, List[int]]]] = {}

    def members(self, team: str) -> List[Tuple[str, int]]:
        return ranked({p: row for p, row in self.players.items() if self.team_of.get(p) == team})

    def _aggregate(self, players: Dict[str, List[int]], team_of: Dict[str, str], team: str) -> Optional[int]:
        held = ranked({p: row for p, row in players.items() if team_of.get(p) == team})
        if not held:
            return None
        return sum(points for _, points in (held if self.best is None else held[:self.best]))

    def _commit(self, players: Dict[str, List[int]], team_of: Dict[str, str], tick: int) -> None:
        """Take the new players and memberships, the teams following; PointsOutOfRange
        (nothing changed) when a player's or a team's points would not fit."""
        names = set(team_of.values()) | set(self.teams)
        after = {team: self._aggregate(players, team_of, team) for team in names}
        for points in [row[0] for row in players.values()] + [p for p in after.values() if p is not None]:
            if abs(points) > self.max_points:
                raise PointsOutOfRange("does not fit")
        teams: Dict[str, List[int]] = {}
        for team, points in after.items():
            if points is None:
                continue
            old = self.teams.get(team)
            teams[team] = list(old) if old is not None and old[0] == points else [points, tick]
        self.players, self.team_of, self.teams = players, team_of, teams

    def submit(self, results: List[Tuple[str, int]], rule: str, tick: int) -> List[int]:
        players = {p: list(row) for p, row in self.players.items()}
        out = []
        for player, given in results:
            old = players.get(player)
            if rule == "incr":
                new = (old[0] if old else 0) + given
            elif rule == "set" or old is None or given > old[0]:
                new = given
            else:
                new = old[0]
            if abs(new) > self.max_points:  # each step of a player named twice is checked
                raise PointsOutOfRange("does not fit")
            if old is None or new != old[0]:
                players[player] = [new, tick]
            out.append(new)
        self._commit(players, dict(self.team_of), tick)
        return out

    def join(self, player: str, team: Optional[str], tick: int) -> None:
        team_of = dict(self.team_of)
        if team is None:
            team_of.pop(player, None)
        else:
            team_of[player] = team
        self._commit(dict(self.players), team_of, tick)

    def remove(self, player: str, tick: int) -> bool:
        players = dict(self.players)
        was = players.pop(player, None) is not None
        team_of = dict(self.team_of)
        team_of.pop(player, None)
        self._commit(players, team_of, tick)
        return was

    def rollover(self, season: str) -> None:
        self.past[season] = (self.players, self.teams)
        self.players, self.teams = {}, {}
