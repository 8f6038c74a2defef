"""fastrank.asyncio.ScoreService: the score service's methods as coroutines.

The plans of ``fastrank.service.service`` awaited on the asyncio board's
client; the store's blocking calls run in a worker thread. Nothing is
written twice.
"""
from __future__ import annotations

from fastrank.runner import AsyncFace
from fastrank.service.service import ServicePlans

__all__ = ["ScoreService"]


class ScoreService(AsyncFace, ServicePlans):
    """:class:`fastrank.ScoreService` over a ``fastrank.asyncio.Leaderboard``."""

