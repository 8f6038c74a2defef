"""ZaddColumns: a ZADD mapping given as two lists, members and scores.

redis-py's ``zadd`` reads its mapping through ``items()`` only, so two
aligned lists can stand in for a dict without building one (no hashing of
every member). The Engine's ZADD front door takes the lists as they are
(``_core.zadd_column_pairs``). For bulk writers that already hold columns,
such as ``ScoreService.rebuild``; the members must be distinct (a dict's
keys are).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, List, Tuple

__all__ = ["ZaddColumns"]


class ZaddColumns(Mapping[Any, Any]):
    """``members[i]`` scored ``scores[i]``, read-only. ``items()`` is O(1) to
    create and iterates in order; a lookup by member is O(n)."""

    __slots__ = ("members", "scores")

    def __init__(self, members: List[Any], scores: List[Any]) -> None:
        if len(members) != len(scores):
            raise ValueError(f"{len(members)} members but {len(scores)} scores")
        self.members = members
        self.scores = scores

    def items(self) -> Iterator[Tuple[Any, Any]]:  # type: ignore[override]
        return zip(self.members, self.scores)

    def __getitem__(self, member: Any) -> Any:
        for m, s in zip(reversed(self.members), reversed(self.scores)):
            if m == member:
                return s
        raise KeyError(member)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.members)

    def __len__(self) -> int:
        return len(self.members)

    def __repr__(self) -> str:
        return f"ZaddColumns({len(self.members)} pairs)"
