"""fastrank.asyncio.Leaderboard on the three asyncio clients answers exactly as
the sync Leaderboard does (same plans, awaited)."""
from __future__ import annotations

import asyncio
import inspect

import pytest

import fastrank
import fastrank.asyncio
from fastrank.leaderboard.board import BoardPlans


def scenario_steps(board):
    """(label, method name, args, kwargs) of a scenario touching every feature."""
    return [
        ("a", "submit", ("ann", 50), {"at": 1}),
        ("b", "submit", ("bob", 40), {"at": 2}),
        ("c", "submit", ("cy", 40), {"at": 3}),
        ("d", "submit", ("dee", 45), {"at": 4, "with_rank": True}),
        ("e", "submit", ("eve", 99), {"at": 5, "rule": "best"}),
        ("f", "set_points", ("eve", 10), {"at": 6}),
        ("g", "set_info", ("bob", {"name": "Bob"}), {}),
        ("top", "top", (3,), {"with_info": True}),
        ("page", "page", (2, 2), {}),
        ("around", "around", ("bob", 1), {"with_info": True}),
        ("rank", "rank", ("cy",), {}),
        ("ordinal", "rank", ("cy",), {"ranking": "ordinal"}),
        ("score", "score", ("dee",), {}),
        ("count", "count", (), {}),
        ("rank_for", "rank_for", (41,), {}),
        ("percentile", "percentile", ("bob",), {}),
        ("bucket", "bucket", ("bob",), {}),
        ("friends", "friends", ("cy", ["bob", "eve", "zed"]), {"with_info": True}),
        ("info", "info", ("bob",), {}),
        ("remove", "remove", ("ann",), {}),
        ("rollover", "rollover", ("s2",), {}),
        ("standings", "standings", ("s1", 10), {}),
        ("after", "top", (), {}),
    ]


def sync_results():
    board = fastrank.Leaderboard(fastrank.Engine(), "async", season="s1", ranking="dense")
    results = {label: getattr(board, name)(*args, **kwargs) for label, name, args, kwargs in scenario_steps(board)}
    results["iter"] = list(board.iter(batch=2, season="s1"))
    return results


def test_async_matches_sync(async_client):
    async def main():
        client = async_client()
        try:
            board = fastrank.asyncio.Leaderboard(client, "async", season="s1", ranking="dense")
            await board.open()
            late = await fastrank.asyncio.Leaderboard(client, "async", season="s1").open()  # stays on s1
            results = {}
            for label, name, args, kwargs in scenario_steps(board):
                results[label] = await getattr(board, name)(*args, **kwargs)
            results["iter"] = [e async for e in board.iter(batch=2, season="s1")]
            with pytest.raises(ValueError, match="frozen"):
                await late.submit("x", 1, at=1)
            with pytest.raises(fastrank.BoardConfigMismatch, match="season='s2', not season='s1'"):
                await fastrank.asyncio.Leaderboard(client, "async", season="s1").submit("x", 1, at=1)
            with pytest.raises(ValueError, match="do not fit"):
                await board.submit("x", 2 ** 20, at=1)
            return results
        finally:
            await client.aclose()

    got = asyncio.run(main())
    expected = sync_results()
    assert got == expected
    assert got["d"] == fastrank.Change(45, 2, None, [])


def test_every_plan_has_both_methods():
    plans = {name[len("_plan_"):] for name in dir(BoardPlans) if name.startswith("_plan_")}
    for name in plans | {"iter"}:
        sync_method = getattr(fastrank.Leaderboard, name)
        async_method = getattr(fastrank.asyncio.Leaderboard, name)
        assert not inspect.iscoroutinefunction(sync_method)
        assert inspect.iscoroutinefunction(async_method) or inspect.isasyncgenfunction(async_method)
        assert sync_method.__doc__ and async_method.__doc__
