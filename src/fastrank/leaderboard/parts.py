"""The parts every board shape shares: how a player id, a count, a page, a
name or a season is checked, how a name or a season appears in a key, and
how ranks of consecutive entries follow from their points. Used by
``board.py``, ``sharded.py`` and the score service."""
from __future__ import annotations

import json
from typing import Any, Dict, Optional, Tuple, Union

from fastrank.leaderboard.scorebits import Points

__all__ = ["EMPTY_PLAYER", "SIZE_LIMIT", "Ranker", "as_bytes", "as_text", "count_arg", "info_of", "key_part",
           "page_slice", "player_id", "tag_part"]


EMPTY_PLAYER = "a player id cannot be empty"
"""The error text of an empty player id: every board and the score service refuse it alike."""


def player_id(player: Any) -> Union[str, bytes]:
    """A player id as sent to the server: str or bytes as given, an int as its
    text; TypeError for other types, ValueError for the empty id."""
    if isinstance(player, (str, bytes)):
        if not player:
            raise ValueError(EMPTY_PLAYER)
        return player
    if isinstance(player, int) and not isinstance(player, bool):
        return str(player)
    raise TypeError(f"a player id must be str, bytes or int, not {type(player).__name__}")


def as_text(member: Union[str, bytes]) -> str:
    return member if isinstance(member, str) else member.decode("utf-8", "surrogateescape")


def as_bytes(member: Union[str, bytes]) -> bytes:
    return member if isinstance(member, bytes) else member.encode("utf-8", "surrogateescape")


SIZE_LIMIT = 2 ** 40
"""Sizes, radii and positions are clipped here (no board holds more entries)."""


def count_arg(value: Any, label: str) -> int:
    """A non-negative int argument (clipped at SIZE_LIMIT), else TypeError/ValueError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{label} must be >= 0, not {value}")
    return min(value, SIZE_LIMIT)


def page_slice(number: Any, size: Any) -> Tuple[int, int]:
    """The 0-based start and the size of page ``number`` (1-based), checked."""
    number, size = count_arg(number, "number"), count_arg(size, "size")
    if number < 1:
        raise ValueError(f"page numbers start at 1, not {number}")
    return (number - 1) * size, size


def tag_part(value: Any, label: str) -> str:
    """A name or a season as text: non-empty, without braces (else ValueError)."""
    text = str(value)
    if not text or "{" in text or "}" in text:
        raise ValueError(f"{label} must be non-empty text without braces, not {value!r}")
    return text


_KEY_ESCAPES = str.maketrans({"%": "%25", ":": "%3A", "{": "%7B", "}": "%7D", "~": "%7E"})


def key_part(text: str) -> str:
    """A name or a season as it appears in a key: ``%``, ``:``, ``{``, ``}``
    and ``~`` percent-escaped, so the parts of ``{lb:<name>:<season>}`` never
    run into each other (``("a:b", "c")`` and ``("a", "b:c")`` are two boards)
    and ``~`` stays the shards' own (``sharded.py``); ordinary names read as
    they are. O(len(text))."""
    return text.translate(_KEY_ESCAPES)


def info_of(text: Optional[Union[str, bytes]]) -> Optional[Dict[str, Any]]:
    return None if text is None else dict(json.loads(text))


class Ranker:
    """Ranks of consecutive entries in rank order, from their points."""

    def __init__(self, style: str) -> None:
        self.style = style
        self.points: Optional[Points] = None
        self.rank = 0

    def rank_at(self, position: int, points: Points, known: Optional[int] = None) -> int:
        """The rank of the entry at 0-based ``position`` (``known`` for a slice's first)."""
        if known is not None:
            rank = known
        elif self.style == "o" or self.points is None:
            rank = position + 1
        elif points == self.points:
            rank = self.rank
        elif self.style == "c":
            rank = position + 1
        else:
            rank = self.rank + 1
        self.points, self.rank = points, rank
        return rank
