"""fastrank.asyncio.RollingLeaderboard: the rolling board's methods as coroutines.

The same plans as :class:`fastrank.RollingLeaderboard`
(``fastrank.leaderboard.rolling``), awaited on an asyncio client.
"""
from __future__ import annotations

from typing import TypeVar

from fastrank.leaderboard.rolling import RollingPlans
from fastrank.runner import AsyncFace, run_async

_Self = TypeVar("_Self", bound="RollingLeaderboard")


class RollingLeaderboard(AsyncFace, RollingPlans):
    """:class:`fastrank.RollingLeaderboard` over an asyncio client: every method is a coroutine."""


    async def open(self: _Self) -> _Self:
        """Read the board's stored options (writing them if the board is new);
        BoardConfigMismatch if an option given differs."""
        await run_async(self._client, self._plan_open())
        return self

    async def _opening(self) -> None:
        if not self._opened:
            await run_async(self._client, self._plan_open())

