"""Composite leaderboard scores: points and a tie-break time in one exact double.

A sorted-set score is an IEEE double, which holds every integer of magnitude
up to 2**53 exactly. A board with a tie-break stores::

    encoded = points * 2**(subscore_bits + time_bits) + subscore * 2**time_bits + tick

with ``|points| < 2**point_bits``, ``0 <= subscore < 2**subscore_bits``,
``0 <= tick < 2**time_bits`` and ``point_bits + subscore_bits + time_bits
<= 53``, so ``|encoded| < 2**53``: every encoded
score is exact, and ``points == floor(encoded / scale)`` with ``scale =
2**(subscore_bits + time_bits)`` (a division by a power of two, exact in
doubles too). Sorting by the encoded score sorts by points, then by subscore
(stored as is, so a higher subscore ranks first on a ``desc`` board, a lower
one on an ``asc`` board, as points do), then by tick. The tick
is the time at which the player reached their current points, counted in
whole ``tick`` units (``1s``, ``1min``, ``1h``) from the board's ``epoch``
(default 0, 1970-01-01 UTC, and one second), stored as is or mirrored
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

The scripts (``_prelude.lua``) know only ``scale``, the mirror flag and one
low word per write (ARGV 7): ``low_of`` sends ``subscore * 2**time_bits +
tick``, with the subscore mirrored (``2**subscore_bits - 1 - subscore``) on a
mirrored board, so the script's own mirror (``scale - 1 - low``) turns it into
the layout above. With the default epoch, tick and ``subscore_bits=0`` the
low word is the whole seconds since 1970, as before.

The decimal form (``form="decimal"``), the layout some systems use, stores
``points + fraction`` with the unix second ``t`` in the fraction: ``t /
10**10``, or ``(10**10 - t) / 10**10`` where the board's order ranks the
earlier time first (the mirrored case above). A score then reads as the
points with the time behind the decimal point. A double has 52 fraction
bits: at magnitudes below 2**18 one unit in the last place is 2**-35
(about 2.9e-11), under half the 1e-10 between two seconds, so
``floor(score)`` is the points and ``round(fraction * 10**10)`` the second,
both exact; at 2**18 and above two seconds can round to one score. So a
decimal board holds points of magnitude up to :data:`DECIMAL_MAX_POINTS`
(262,143) and times from 1970-01-01T00:00:01 until before 2286-11-20 (unix
second 10**10), in whole seconds, with no subscore. The scripts see it as a
board of ``scale`` 1 whose low word is the fraction, sent as exact text, and
no mirror (the fraction is mirrored here).

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
from typing import Any, Optional, Union

import numpy as np

from fastrank.errors import PointsOutOfRange, TimeOutOfRange
from fastrank.leaderboard._entries import reply_points

Points = Union[int, float]

EXACT_LIMIT = 2 ** 53  # the largest magnitude a double holds with every integer below it

DECIMAL_MAX_POINTS = 2 ** 18 - 1
"""The largest magnitude of points a decimal-form board holds (see the module text)."""

DECIMAL_TIME_END = 10 ** 10
"""The decimal form's first unix second it cannot hold (the fraction's denominator)."""

FORMS = ("bits", "decimal")
"""The score layouts: ``bits`` (points over subscore and tick bits) and ``decimal``."""

TICKS = {"1s": 1, "1min": 60, "1h": 3600}
"""The tie-break time's resolutions: seconds a tick counts."""


def epoch_seconds(epoch: Any) -> int:
    """A board's ``epoch`` (a datetime, naive = UTC, or unix seconds) as whole unix seconds."""
    if isinstance(epoch, datetime):
        moment = epoch if epoch.tzinfo is not None else epoch.replace(tzinfo=timezone.utc)
        seconds: Any = moment.timestamp()
    elif isinstance(epoch, bool) or not isinstance(epoch, (int, float)):
        raise TypeError(f"epoch must be a datetime or unix seconds, not {type(epoch).__name__}")
    else:
        seconds = epoch
    if not math.isfinite(seconds) or seconds != math.floor(seconds):
        raise ValueError(f"epoch must be a whole second, not {epoch!r}")
    return int(seconds)


class ScoreCodec:
    """Encode, decode and validate the scores of one board's configuration."""

    def __init__(self, *, order: str, tiebreak: Optional[str], point_bits: int, time_bits: int,
                 epoch: int = 0, tick: str = "1s", subscore_bits: int = 0, form: str = "bits") -> None:
        if order not in ("desc", "asc"):
            raise ValueError(f"order must be 'desc' or 'asc', not {order!r}")
        if tiebreak not in ("earliest", "latest", None):
            raise ValueError(f"tiebreak must be 'earliest', 'latest' or None, not {tiebreak!r}")
        for label, bits in (("point_bits", point_bits), ("time_bits", time_bits)):
            if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
                raise ValueError(f"{label} must be a positive integer, not {bits!r}")
        if isinstance(subscore_bits, bool) or not isinstance(subscore_bits, int) or subscore_bits < 0:
            raise ValueError(f"subscore_bits must be an integer >= 0, not {subscore_bits!r}")
        if point_bits + subscore_bits + time_bits > 53:
            raise ValueError(f"point_bits + subscore_bits + time_bits must be at most 53 (a double's exact "
                             f"integers), not {point_bits} + {subscore_bits} + {time_bits}")
        if subscore_bits and tiebreak is None:
            raise ValueError("a subscore needs a board with a tie-break (tiebreak='earliest' or 'latest')")
        if tick not in TICKS:
            raise ValueError(f"tick must be one of {sorted(TICKS)}, not {tick!r}")
        if isinstance(epoch, bool) or not isinstance(epoch, int):
            raise TypeError(f"epoch must be whole unix seconds (epoch_seconds), not {epoch!r}")
        if form not in FORMS:
            raise ValueError(f"score_form must be one of {FORMS}, not {form!r}")
        self.decimal = form == "decimal"
        if self.decimal and tiebreak is None:
            raise ValueError("score_form='decimal' stores a tie-break time: it needs tiebreak='earliest' or 'latest'")
        if self.decimal and (epoch, tick, subscore_bits) != (0, "1s", 0):
            raise ValueError("score_form='decimal' counts unix seconds with no subscore: it takes no epoch, "
                             "tick or subscore_bits")
        self.form = form
        self.epoch = epoch
        self.tick_name = tick
        self.tick_seconds = TICKS[tick]
        self.subscore_bits = subscore_bits
        self.max_subscore: int = 2 ** subscore_bits - 1
        self.time_scale: int = 2 ** time_bits
        #: the unix seconds a tick can stand for: [first_second, end_second)
        self.first_second = epoch
        self.end_second = epoch + self.time_scale * self.tick_seconds
        self.order = order
        self.tiebreak = tiebreak
        self.point_bits = point_bits
        self.time_bits = time_bits
        self.desc = order == "desc"
        # Without a tie-break there are no time bits: the score is the points.
        self.scale = 2 ** (subscore_bits + time_bits) if tiebreak is not None else 0
        self.max_points = 2 ** point_bits - 1 if tiebreak is not None else EXACT_LIMIT
        self.mirrored = tiebreak is not None and (tiebreak == "earliest") == self.desc
        # Whole seconds in [0, tick_limit) are valid times as they are (tick_of's common case).
        plain = epoch == 0 and self.tick_seconds == 1
        self.tick_limit = (self.time_scale if plain else 0) if self.scale else EXACT_LIMIT
        if self.decimal:
            self.scale, self.max_points, self.tick_limit = 1, DECIMAL_MAX_POINTS, 0
            self.first_second, self.end_second = 1, DECIMAL_TIME_END
        #: the mirror flag the scripts get (ARGV 3): the decimal form mirrors its fraction here
        self.script_mirrored = self.mirrored and not self.decimal

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
        if self.decimal:
            return "score_form='decimal': points and a second share one double's exact digits"
        if self.integer:
            return f"point_bits={self.point_bits}"
        return "2**53, the exact integers of a double"

    def tick_of(self, at: Union[int, float, datetime, None], now: float) -> int:
        """The whole unix second of ``at`` (default ``now``), checked against the
        span the board's epoch, tick and ``time_bits`` hold (TimeOutOfRange, a
        ValueError, outside it). ``low_of`` makes the scripts' word of it."""
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
        if self.integer and not self.first_second <= tick < self.end_second:
            layout = "score_form='decimal'" if self.decimal else f"time_bits={self.time_bits}"
            raise TimeOutOfRange(f"time {tick} does not fit in {layout}: it is outside "
                                 f"the span this board holds, {self.span_text()}")
        return tick

    def span_text(self) -> str:
        """The span of time the board holds, for error messages."""
        first = datetime.fromtimestamp(self.first_second, timezone.utc).isoformat()
        try:
            end = datetime.fromtimestamp(self.end_second, timezone.utc).isoformat()
        except (OverflowError, ValueError, OSError):
            end = f"unix second {self.end_second}"
        start = "" if self.decimal else f" (epoch {self.first_second})"
        return f"from {first}{start} until before {end}, in ticks of {self.tick_name}"

    def check_subscore(self, subscore: Any) -> int:
        """``subscore`` as an int this board stores (0..2**subscore_bits-1), or ValueError/TypeError."""
        if type(subscore) is int and 0 <= subscore <= self.max_subscore:
            return subscore
        if isinstance(subscore, bool):
            raise TypeError(f"subscore must be an int, not {subscore!r}")
        try:
            value = operator.index(subscore)
        except TypeError:
            raise TypeError(f"subscore must be an int, not {type(subscore).__name__}") from None
        if not self.subscore_bits:
            raise ValueError("this board has no subscore: make it with subscore_bits=N")
        if not 0 <= value <= self.max_subscore:
            raise PointsOutOfRange(f"subscore {value} does not fit: this board holds 0..{self.max_subscore} "
                                   f"(subscore_bits={self.subscore_bits})")
        return value

    def low_of(self, seconds: int, subscore: int = 0) -> Union[int, float]:
        """The scripts' low word (submit.lua's ARGV 7) of a write at unix second
        ``seconds`` (from ``tick_of``) with ``subscore`` (checked): the script
        mirrors it as a whole on a mirrored board, so the subscore is sent
        mirrored here and comes out as is. On a decimal board, the fraction."""
        if not self.integer:
            return seconds
        if self.decimal:
            return (DECIMAL_TIME_END - seconds if self.mirrored else seconds) / DECIMAL_TIME_END
        tick = (seconds - self.epoch) // self.tick_seconds
        if self.mirrored:
            return (self.max_subscore - subscore) * self.time_scale + tick
        return subscore * self.time_scale + tick

    def encode(self, points: Points, tick: int) -> Points:
        """The sorted-set score of ``points`` with the low word ``tick`` (already
        checked): what the scripts compute. With the default epoch and tick and no
        subscore the low word is the unix second; else ``low_of`` makes it."""
        if not self.integer:
            return points
        if self.decimal:
            return int(points) + tick
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
        if seconds.size and not (self.first_second <= seconds.min() and seconds.max() < self.end_second):
            raise TimeOutOfRange(f"a time does not fit in time_bits={self.time_bits}: it is outside the "
                                 f"span this board holds, {self.span_text()}")
        if self.decimal:
            fraction = (DECIMAL_TIME_END - seconds if self.mirrored else seconds) / DECIMAL_TIME_END
            return np.asarray(points, dtype=np.int64).astype(np.float64) + fraction
        ticks = (seconds - self.epoch) // self.tick_seconds
        tick = (self.scale - 1) - ticks if self.mirrored else ticks
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
        """The tie-break tick of a sorted-set score (boards with a tie-break):
        whole ``tick`` units since the board's epoch (the unix second on a decimal board)."""
        value = float(score)
        if self.decimal:
            units = round((value - math.floor(value)) * DECIMAL_TIME_END)
            return DECIMAL_TIME_END - units if self.mirrored else units
        low = int(value - math.floor(value / self.scale) * self.scale) % self.time_scale
        return self.time_scale - 1 - low if self.mirrored else low

    def seconds(self, score: Union[float, int, str, bytes]) -> int:
        """The unix second at which a score's tick starts (boards with a tie-break)."""
        return self.epoch + self.tick(score) * self.tick_seconds

    def subscore(self, score: Union[float, int, str, bytes]) -> int:
        """The subscore of a sorted-set score (0 on a board without one)."""
        if not self.subscore_bits:
            return 0
        value = float(score)
        return int(value - math.floor(value / self.scale) * self.scale) // self.time_scale

    def text(self, value: Points) -> str:
        """A number as exact decimal text, the form the scripts parse."""
        if isinstance(value, int):
            return str(value)
        return repr(float(value))

    def parse_points(self, text: Union[str, bytes]) -> Points:
        """Points sent back as text by a script (not an encoded score): an int
        on an integer board (scale set) and for any whole value up to
        EXACT_LIMIT, else a float; the text read as float() reads it (in C:
        ``_entries.reply_points``, which a submit's reply parser calls directly)."""
        return reply_points(text, self.scale)
