"""fastrank.asyncio.ScoreService: the score service's methods as coroutines.

The plans of ``fastrank.service.service`` awaited on the asyncio board's
client; the store's blocking calls run in a worker thread. Nothing is
written twice.
"""
from __future__ import annotations

from fastrank.runner import awaiting
from fastrank.service.service import ServicePlans

__all__ = ["ScoreService"]


class ScoreService(ServicePlans):
    """:class:`fastrank.ScoreService` over a ``fastrank.asyncio.Leaderboard``."""

    is_async = True  # the face this class is: checked against the client (runner.checked_client)

    submit = awaiting(ServicePlans._plan_submit)
    submit_match = awaiting(ServicePlans._plan_submit_match)
    submit_matches = awaiting(ServicePlans._plan_submit_matches)
    apply_pending = awaiting(ServicePlans._plan_apply_pending)
    recover = awaiting(ServicePlans._plan_recover)
    tombstone = awaiting(ServicePlans._plan_tombstone)
    tombstone_match = awaiting(ServicePlans._plan_tombstone_match)
    rebuild = awaiting(ServicePlans._plan_rebuild)
    archive = awaiting(ServicePlans._plan_archive)
    rebuilding = awaiting(ServicePlans._plan_rebuilding)
    top = awaiting(ServicePlans._plan_top)
    rank = awaiting(ServicePlans._plan_rank)
    page = awaiting(ServicePlans._plan_page)
    around = awaiting(ServicePlans._plan_around)
    friends = awaiting(ServicePlans._plan_friends)
    history = awaiting(ServicePlans._plan_history)
    rejected = awaiting(ServicePlans._plan_rejected)
    flags = awaiting(ServicePlans._plan_flags)
    approve = awaiting(ServicePlans._plan_approve)
    reject = awaiting(ServicePlans._plan_reject_flag)
    erase_player = awaiting(ServicePlans._plan_erase_player)
    ban = awaiting(ServicePlans._plan_ban)
    unban = awaiting(ServicePlans._plan_unban)
    bans = awaiting(ServicePlans._plan_bans)
