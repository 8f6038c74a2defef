"""Types of the compiled core, fastrank._core.

A member is a binary string. Wherever a member is accepted, ``bytes``,
``bytearray`` and ``memoryview`` are taken as they are, ``str`` is UTF-8
encoded, ``int`` becomes its decimal text and ``float`` its ``repr`` (as
redis-py encodes them). Members are always returned as ``bytes``.

Order: ascending score (IEEE double), ties by member bytes compared
unsigned, memcmp style, a proper prefix first; ``reverse=True`` is the exact
reverse of that order. NaN scores raise ``ValueError``; ``-0.0`` is stored
as ``0.0``; ``±inf`` are valid.
"""
from typing import Iterator, List, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

Member = Union[bytes, bytearray, memoryview, str, int, float]
Members = Union[Sequence[Member], npt.NDArray[np.integer]]

class SortedSet:
    def __init__(self) -> None: ...
    # -- point operations ----------------------------------------------
    def add(
        self,
        member: Member,
        score: float,
        *,
        nx: bool = False,
        xx: bool = False,
        gt: bool = False,
        lt: bool = False,
    ) -> bool:
        """Add or update; True when the member was added or its score changed.

        Flags as ZADD: nx never updates, xx never adds, gt/lt update an
        existing member only to a strictly greater/smaller score (a new
        member is still added unless xx).
        """
    def add_status(
        self,
        member: Member,
        score: float,
        nx: bool = False,
        xx: bool = False,
        gt: bool = False,
        lt: bool = False,
    ) -> int:
        """As add, but tells what happened: 0 nothing, 1 added, 2 score changed."""
    def incr(self, member: Member, delta: float) -> float:
        """Add delta to the score (a missing member starts at 0); the new score.

        A NaN result raises ValueError and changes nothing.
        """
    def remove(self, member: Member) -> bool: ...
    def score(self, member: Member) -> Optional[float]: ...
    def rank(self, member: Member, reverse: bool = False) -> Optional[int]: ...
    def __len__(self) -> int: ...
    def __contains__(self, member: object) -> bool: ...
    def __iter__(self) -> Iterator[bytes]:
        """Members in ascending order."""
    def items(self) -> List[Tuple[bytes, float]]:
        """All (member, score) pairs in ascending order."""
    def clear(self) -> None: ...
    def copy(self) -> "SortedSet": ...
    # -- ranges --------------------------------------------------------
    @overload
    def range(self, start: int, stop: int, reverse: bool = False) -> List[bytes]: ...
    @overload
    def range(
        self, start: int, stop: int, reverse: bool, withscores: bool
    ) -> Union[List[bytes], List[Tuple[bytes, float]]]: ...
    def range(  # type: ignore[misc]
        self, start: int, stop: int, reverse: bool = False, withscores: bool = False
    ) -> Union[List[bytes], List[Tuple[bytes, float]]]:
        """Members by rank, both ends inclusive, Redis's negative-index rules."""
    def range_by_score(
        self,
        min: float,
        max: float,
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
        reverse: bool = False,
        offset: int = 0,
        count: int = -1,
        withscores: bool = False,
    ) -> Union[List[bytes], List[Tuple[bytes, float]]]:
        """Members with min <= score <= max (bounds as given, whatever reverse).

        offset < 0 gives []; count < 0 means all remaining (as ZRANGEBYSCORE
        LIMIT). With reverse the walk starts at max.
        """
    def count(
        self, min: float, max: float, *, min_exclusive: bool = False, max_exclusive: bool = False
    ) -> int: ...
    def range_by_lex(
        self,
        min: Optional[bytes],
        max: Optional[bytes],
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
        reverse: bool = False,
        offset: int = 0,
        count: int = -1,
    ) -> List[bytes]:
        """Members between min and max in member order (ZRANGEBYLEX).

        None stands for an open end (Redis's ``-`` for min, ``+`` for max).
        Meaningful when all scores are equal, as in Redis.
        """
    def count_by_lex(
        self,
        min: Optional[bytes],
        max: Optional[bytes],
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
    ) -> int: ...
    def pop_min(self, n: int = 1) -> List[Tuple[bytes, float]]: ...
    def pop_max(self, n: int = 1) -> List[Tuple[bytes, float]]: ...
    def remove_range_by_rank(self, start: int, stop: int) -> int: ...
    def remove_range_by_score(
        self, min: float, max: float, *, min_exclusive: bool = False, max_exclusive: bool = False
    ) -> int: ...
    def remove_range_by_lex(
        self,
        min: Optional[bytes],
        max: Optional[bytes],
        *,
        min_exclusive: bool = False,
        max_exclusive: bool = False,
    ) -> int: ...
    # -- batch (numpy) -------------------------------------------------
    def add_many(self, members: Members, scores: npt.ArrayLike) -> int:
        """Set each member's score (later duplicates win); the number added.

        All scores are checked for NaN before anything is written.
        """
    def incr_many(self, members: Members, deltas: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """incr for each pair in order; the new scores."""
    def rank_many(self, members: Members, reverse: bool = False) -> npt.NDArray[np.int64]:
        """rank of each member, -1 where missing."""
    def score_many(self, members: Members) -> npt.NDArray[np.float64]:
        """score of each member, NaN where missing."""
    # -- diagnostics ---------------------------------------------------
    def memory_usage(self) -> int:
        """Bytes allocated by the C structures (nodes and index)."""
    def _check(self) -> None:
        """Verify every invariant (order, spans, levels, index); AssertionError if broken."""
