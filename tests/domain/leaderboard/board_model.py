"""A plain-Python model of a leaderboard: what every backend must answer."""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple


class ModelBoard:
    """Players with (points, tick): rules applied, ranks computed by brute force."""

    def __init__(self, order: str = "desc", tiebreak: Optional[str] = "earliest") -> None:
        self.desc = order == "desc"
        self.tiebreak = tiebreak
        self.players: Dict[str, Tuple[int, int]] = {}

    def submit(self, player: str, points: int, tick: int, rule: str) -> int:
        old = self.players.get(player)
        if rule == "decr":
            rule, points = "incr", -points
        if rule == "incr":
            new = (old[0] if old else 0) + points
        elif rule == "set":
            new = points
        elif old is None or (points > old[0] if self.desc else points < old[0]):
            new = points
        else:
            new = old[0]
        if old is None or new != old[0]:
            self.players[player] = (new, tick)
        return new

    def remove(self, player: str) -> bool:
        return self.players.pop(player, None) is not None

    def ordered(self) -> List[str]:
        """Players in rank order: points, then the tie-break time, then Redis's member order."""
        def key(name: str):
            points, tick = self.players[name]
            if self.tiebreak is None:
                tie = 0
            else:
                earlier_first = self.tiebreak == "earliest"
                # in the sort direction used below, a smaller tie value ranks later on desc boards
                tie = -tick if earlier_first == self.desc else tick
            return (points, tie, name.encode())
        return sorted(self.players, key=key, reverse=self.desc)

    def better(self, a: int, b: int) -> bool:
        return a > b if self.desc else a < b

    def rank(self, player: str, style: str) -> Optional[int]:
        if player not in self.players:
            return None
        points = self.players[player][0]
        if style == "ordinal":
            return self.ordered().index(player) + 1
        if style == "competition":
            return 1 + sum(1 for p, _ in self.players.values() if self.better(p, points))
        return 1 + len({p for p, _ in self.players.values() if self.better(p, points)})

    def entries(self, style: str) -> List[Tuple[int, str, int]]:
        return [(self.rank(name, style), name, self.players[name][0]) for name in self.ordered()]
