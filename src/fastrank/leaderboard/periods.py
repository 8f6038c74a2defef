"""Periodic boards: the season a moment falls in, and when a period may expire.

A periodic board (``period="day"|"week"|"month"``) writes each result to the
season of the moment it was earned, in UTC or a given timezone:
``"2026-12-01"`` (day), ``"2026-W49"`` (ISO week, Monday first) or
``"2026-12"`` (month). With ``retain=N`` the keys of a period expire when N
more periods have ended after it, so the current period and N past ones stay
readable. Each function is O(1).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo
from typing import List, Optional, Union

PERIODS = ("day", "week", "month")


def zone(tz: Union[str, tzinfo, None]) -> tzinfo:
    """A tzinfo from a zone name (``"Europe/Paris"``), a tzinfo, or None for UTC."""
    if tz is None:
        return timezone.utc
    if isinstance(tz, str):
        from zoneinfo import ZoneInfo

        return ZoneInfo(tz)
    return tz


def _start(period: str, local: datetime) -> datetime:
    """The first moment of the period holding ``local`` (a zone-aware datetime)."""
    day = local.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    if period == "week":
        day -= timedelta(days=day.weekday())
    elif period == "month":
        day = day.replace(day=1)
    return day.replace(tzinfo=local.tzinfo)


def _next(period: str, start: datetime) -> datetime:
    """The first moment of the period after the one starting at ``start``."""
    naive = start.replace(tzinfo=None)
    if period == "day":
        naive += timedelta(days=1)
    elif period == "week":
        naive += timedelta(days=7)
    else:
        naive = naive.replace(year=naive.year + naive.month // 12, month=naive.month % 12 + 1)
    return naive.replace(tzinfo=start.tzinfo)


def season_of(period: str, moment: datetime, tz: tzinfo) -> str:
    """The season name of ``period`` that holds ``moment``."""
    local = moment.astimezone(tz)
    if period == "day":
        return local.strftime("%Y-%m-%d")
    if period == "week":
        year, week, _ = local.isocalendar()
        return f"{year}-W{week:02d}"
    return local.strftime("%Y-%m")


def expiry_ms(period: str, moment: datetime, tz: tzinfo, retain: Optional[int]) -> int:
    """Unix ms at which the period holding ``moment`` may go (0 = keep forever)."""
    if retain is None:
        return 0
    end = _start(period, moment.astimezone(tz))
    for _ in range(retain + 1):
        end = _next(period, end)
    return int(end.timestamp() * 1000)


def recent_seasons(period: str, moment: datetime, tz: tzinfo, count: int) -> List[str]:
    """The season names of the period holding ``moment`` and the ``count``
    periods before it, newest first."""
    start = _start(period, moment.astimezone(tz))
    names = [season_of(period, start, tz)]
    for _ in range(count):
        start = _start(period, (start - timedelta(seconds=1)).astimezone(tz))
        names.append(season_of(period, start, tz))
    return names
