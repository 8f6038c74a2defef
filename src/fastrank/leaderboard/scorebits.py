"""Composite leaderboard scores: points and a tie-break time in one exact double.

A sorted-set score is an IEEE double, which holds every integer of magnitude
up to 2**53 exactly. A board with a tie-break stores::

    encoded = points * 2**time_bits + tick

with ``|points| < 2**point_bits``, ``0 <= tick < 2**time_bits`` and
``point_bits + time_bits <= 53``, so ``|encoded| < 2**53``: every encoded
score is exact, and ``points == floor(encoded / 2**time_bits)`` (a division
by a power of two, exact in doubles too). Sorting by the encoded score sorts
by points, then by tick. The tick is the time (whole seconds since the epoch)
at which the player reached their current points, stored as is or mirrored
(``2**time_bits - 1 - time``) so that the better tick is the one the board's
order ranks first:

=========  ===========  ===========================
order      tiebreak     tick
=========  ===========  ===========================
desc       earliest     mirrored (earlier = larger)
desc       latest       time
asc        earliest     time (earlier = smaller)
asc        latest       mirrored
=========  ===========  ===========================

Without a tie-break (``tiebreak=None``) the score is the points themselves
(any finite number of magnitude at most 2**53) and ties fall back to Redis's
member order. The same arithmetic is done by the Lua scripts (``_prelude.lua``)
for read-modify-write updates; this module encodes and validates on the client
side and decodes replies. Each operation is O(1).
"""
from __future__ import annotations

import math
import operator
from datetime import datetime, timezone
from typing import Any, List, Optional, Union

import numpy as np

from fastrank.errors import PointsOutOfRange

Points = Union[int, float]

EXACT_LIMIT = 2 ** 53  # the largest magnitude a double holds with every integer below it


class ScoreCodec:
    """Encode, decode and validate the scores of one board's configuration."""

    def __init__(self, *, order: str, tiebreak: Optional[str], point_bits: int, time_bits: int) -> None:
        if order not in ("desc", "asc"):
            raise ValueError(f"order must be 'desc' or 'asc', not {order!r}")
        if tiebreak not in ("earliest", "latest", None):
            raise ValueError(f"tiebreak must be 'earliest', 'latest' or None, not {tiebreak!r}")
        for label, bits in (("point_bits", point_bits), ("time_bits", time_bits)):
            if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
                raise ValueError(f"{label} must be a positive integer, not {bits!r}")
        if point_bits + time_bits > 53:
            raise ValueError(f"point_bits + time_bits must be at most 53 (a double's exact integers), "
                             f"not {point_bits} + {time_bits}")
        self.order = order
        self.tiebreak = tiebreak
        self.point_bits = point_bits
        self.time_bits = time_bits
        self.desc = order == "desc"
        # Without a tie-break there are no time bits: the score is the points.
        self.scale = 2 ** time_bits if tiebreak is not None else 0
        self.max_points = 2 ** point_bits - 1 if tiebreak is not None else EXACT_LIMIT
        self.mirrored = tiebreak is not None and (tiebreak == "earliest") == self.desc
        # Whole seconds in [0, tick_limit) are valid ticks as they are (tick_of's common case).
        self.tick_limit = self.scale if self.scale else EXACT_LIMIT

    @property
    def integer(self) -> bool:
        """True when points are integers (every board with a tie-break)."""
        return self.scale != 0

    def check_points(self, points: Any) -> Points:
        """``points`` as a number this board can store, or ValueError/TypeError."""
        if type(points) is int and -self.max_points <= points <= self.max_points:  # the common case
            return points
        if isinstance(points, bool):
            raise TypeError(f"points must be a number, not {points!r}")
        if self.integer:
            if isinstance(points, float):
                if not math.isfinite(points) or not points.is_integer():
                    raise ValueError(f"points must be an integer on a board with a tie-break, not {points!r}")
                raise ValueError(f"points must be an int on a board with a tie-break, not the float {points!r}")
            try:
                value: Points = operator.index(points)
            except TypeError:
                raise TypeError(f"points must be an int, not {type(points).__name__}") from None
        else:
            if isinstance(points, float):
                value = points + 0.0  # -0.0 becomes 0.0: one text per value in the dense companion
            else:
                try:
                    value = operator.index(points)
                except TypeError:
                    raise TypeError(f"points must be an int or a float, not {type(points).__name__}") from None
            if not math.isfinite(value):
                raise ValueError(f"points must be finite, not {points!r}")
        if abs(value) > self.max_points:
            raise PointsOutOfRange(f"points {value} do not fit: this board holds magnitudes up to "
                             f"{self.max_points} ({self.limit_reason()})")
        return value

    def limit_reason(self) -> str:
        """Why the points are bounded, for error messages."""
        if self.integer:
            return f"point_bits={self.point_bits}"
        return "2**53, the exact integers of a double"

    def tick_of(self, at: Union[int, float, datetime, None], now: float) -> int:
        """The whole-second time of ``at`` (default ``now``), checked against ``time_bits``."""
        if type(at) is int and 0 <= at < self.tick_limit:  # the common cases first
            return at
        if at is None and 0.0 <= now < self.tick_limit:
            return int(now)
        if at is None:
            seconds = now
        elif isinstance(at, datetime):
            moment = at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)
            seconds = moment.timestamp()
        elif isinstance(at, bool) or not isinstance(at, (int, float)):
            raise TypeError(f"at must be seconds since the epoch or a datetime, not {type(at).__name__}")
        else:
            seconds = at
        if not math.isfinite(seconds):
            raise ValueError(f"at must be finite, not {seconds!r}")
        tick = math.floor(seconds)
        if self.integer and not 0 <= tick < self.scale:
            raise ValueError(f"time {tick} does not fit in time_bits={self.time_bits} "
                             f"(0 <= seconds since the epoch < {self.scale})")
        return tick

    def encode(self, points: Points, tick: int) -> Points:
        """The sorted-set score of ``points`` reached at ``tick`` (already checked)."""
        if not self.integer:
            return points
        if self.mirrored:
            tick = self.scale - 1 - tick
        return int(points) * self.scale + tick

    def encode_columns(self, points: "np.ndarray[Any, Any]",
                       seconds: "Optional[np.ndarray[Any, Any]]") -> "np.ndarray[Any, np.dtype[np.float64]]":
        """``encode(p, tick_of(s))`` for int64 columns: ``points`` and the whole
        seconds ``s`` (already floored; ignored without a tie-break), as a
        float64 array, in numpy. O(n).

        The points must already fit; the seconds are checked as ``tick_of`` does.
        """
        if not self.integer:
            return np.asarray(points).astype(np.float64)
        if seconds is None:
            raise ValueError("a board with a tie-break needs the times")
        if seconds.size and not (0 <= seconds.min() and seconds.max() < self.scale):
            raise ValueError(f"a time does not fit in time_bits={self.time_bits}")
        tick = (self.scale - 1) - seconds if self.mirrored else seconds
        encoded: np.ndarray[Any, np.dtype[np.float64]] = (np.asarray(points, dtype=np.int64) * self.scale
                                                          + tick).astype(np.float64)
        return encoded

    def points(self, score: Union[float, int, str, bytes]) -> Points:
        """The points of a sorted-set score (a float, or its text from a script)."""
        value = float(score)
        if self.integer:
            return int(math.floor(value / self.scale))
        return int(value) if value.is_integer() and abs(value) <= EXACT_LIMIT else value

    def tick(self, score: Union[float, int, str, bytes]) -> int:
        """The tie-break time of a sorted-set score (boards with a tie-break)."""
        value = float(score)
        tick = int(value - math.floor(value / self.scale) * self.scale)
        return self.scale - 1 - tick if self.mirrored else tick

    def text(self, value: Points) -> str:
        """A number as exact decimal text, the form the scripts parse."""
        if isinstance(value, int):
            return str(value)
        return repr(float(value))

    def parse_points(self, text: Union[str, bytes]) -> Points:
        """Points sent back as text by a script (not an encoded score)."""
        value = float(text)
        if self.scale or (value.is_integer() and abs(value) <= EXACT_LIMIT):  # integer boards: scale set
            return int(value)
        return value
