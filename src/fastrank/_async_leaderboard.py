"""fastrank.asyncio.Leaderboard: the leaderboard's methods as coroutines.

The same plans as :class:`fastrank.Leaderboard` (``fastrank.leaderboard``),
awaited on an asyncio client (``fastrank.asyncio.Engine``,
``redis.asyncio.Redis``, ``redis.asyncio.cluster.RedisCluster``) by
:func:`fastrank._runner.run_async`. Nothing is written twice: each method here
is generated from the plan of the same name.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Coroutine, Optional, TypeVar, Union

from fastrank._runner import Plan, run_async
from fastrank.leaderboard import BoardPlans, Entry

if TYPE_CHECKING:
    from typing_extensions import Concatenate, ParamSpec

    _P = ParamSpec("_P")

_T = TypeVar("_T")


def _awaiting(
    plan: Callable[Concatenate[BoardPlans, _P], Plan[_T]],
) -> Callable[Concatenate[BoardPlans, _P], Coroutine[Any, Any, _T]]:
    """The coroutine method that awaits ``plan`` on the board's asyncio client."""

    async def method(self: BoardPlans, /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        return await run_async(self._client, plan(self, *args, **kwargs))

    functools.update_wrapper(method, plan)
    method.__name__ = method.__qualname__ = plan.__name__.replace("_plan_", "", 1)
    return method


class Leaderboard(BoardPlans):
    """:class:`fastrank.Leaderboard` over an asyncio client: every method is a coroutine."""

    submit = _awaiting(BoardPlans._plan_submit)
    set_points = _awaiting(BoardPlans._plan_set_points)
    remove = _awaiting(BoardPlans._plan_remove)
    set_info = _awaiting(BoardPlans._plan_set_info)
    rollover = _awaiting(BoardPlans._plan_rollover)
    score = _awaiting(BoardPlans._plan_score)
    rank = _awaiting(BoardPlans._plan_rank)
    count = _awaiting(BoardPlans._plan_count)
    rank_for = _awaiting(BoardPlans._plan_rank_for)
    top = _awaiting(BoardPlans._plan_top)
    standings = _awaiting(BoardPlans._plan_standings)
    page = _awaiting(BoardPlans._plan_page)
    around = _awaiting(BoardPlans._plan_around)
    friends = _awaiting(BoardPlans._plan_friends)
    percentile = _awaiting(BoardPlans._plan_percentile)
    bucket = _awaiting(BoardPlans._plan_bucket)
    info = _awaiting(BoardPlans._plan_info)

    async def iter(self, batch: int = 1000, *, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> AsyncIterator[Entry]:
        """Every entry in rank order, ``batch`` at a time (``async for``); see
        :meth:`fastrank.Leaderboard.iter`."""
        ranker = self._iter_start(batch, ranking)
        start = 0
        while True:
            pairs = await run_async(self._client, self._plan_slice(start, batch, season))
            for entry in self._iter_entries(ranker, start, pairs):
                yield entry
            if len(pairs) < batch:
                return
            start += batch
