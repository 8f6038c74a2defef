"""ZaddColumns and ZaddPacked: a ZADD mapping given as columns, members and scores.

redis-py's ``zadd`` reads its mapping through ``items()`` only, so two
aligned lists can stand in for a dict without building one (no hashing of
every member). For bulk writers that already hold columns, such as
``ScoreService.rebuild``; the members must be distinct (a dict's keys are).
``ZaddPacked`` holds its members packed in one bytes blob (see its
docstring).

Every client takes them through ``items()``. The Engine reads them without
it, by the column forms its ``zadd`` documents: a mapping whose type says
``zadd_form = "columns"`` (``members``, ``scores``) or ``"packed"``
(``blob``, ``offsets``, ``rows``, ``scores``); this module names no Engine.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, List, Tuple

import numpy as np
import numpy.typing as npt

from fastrank.errors import PACKED_LENGTHS
from fastrank.service._totals import packed_members

__all__ = ["ZaddColumns", "ZaddPacked"]


class ZaddColumns(Mapping[Any, Any]):
    """``members[i]`` scored ``scores[i]``, read-only. ``items()`` is O(1) to
    create and iterates in order; a lookup by member is O(n)."""

    __slots__ = ("members", "scores")
    zadd_form = "columns"  # the Engine's ZADD reads members and scores as they are

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


class ZaddPacked(Mapping[Any, Any]):
    """A ZADD mapping whose members are packed in one bytes blob: member k is
    ``blob[offsets[rows[k]]:offsets[rows[k] + 1]]``, scored ``scores[k]``
    (a float64 array). What a
    rebuild hands the board when the store's totals came as flat columns
    (``fastrank.service._totals``): the Engine adds the pairs from the blob in C
    (``_core.sortedset_add_packed``), other clients read ``items()``, which
    makes the member objects then (and gives whole scores as ints, which
    redis-py writes faster than floats). Read-only; the members must be
    distinct. ``items()`` is O(m); a lookup by member O(m)."""

    __slots__ = ("blob", "offsets", "rows", "scores")
    zadd_form = "packed"  # the Engine's ZADD adds the pairs from the blob in C

    def __init__(self, blob: bytes, offsets: npt.NDArray[np.int64], rows: npt.NDArray[np.int64],
                 scores: npt.NDArray[np.float64]) -> None:
        if len(rows) != len(scores):
            raise ValueError(PACKED_LENGTHS % (len(rows), len(scores)))
        self.blob = blob
        self.offsets = offsets
        self.rows = rows
        self.scores = scores

    def members(self) -> List[bytes]:
        """The members, in order, as bytes. O(m)."""
        return packed_members(self.blob, self.offsets, self.rows)

    def score_values(self) -> List[Any]:
        """The scores as Python numbers: ints when every one is a whole
        number below 2**53 in magnitude (and none is -0.0), else floats. O(m)."""
        scores = np.asarray(self.scores, dtype=np.float64)
        whole = scores.astype(np.int64)
        if np.array_equal(whole, scores) and not np.any(np.abs(scores) >= 2.0 ** 53) \
                and not np.any(np.signbit(scores) & (scores == 0.0)):
            return whole.tolist()  # type: ignore[no-any-return]
        return scores.tolist()  # type: ignore[no-any-return]

    def items(self) -> Iterator[Tuple[Any, Any]]:  # type: ignore[override]
        return zip(self.members(), self.score_values())

    def __getitem__(self, member: Any) -> Any:
        return ZaddColumns(self.members(), self.score_values())[member]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.members())

    def __len__(self) -> int:
        return len(self.rows)

    def __repr__(self) -> str:
        return f"ZaddPacked({len(self.rows)} pairs)"
