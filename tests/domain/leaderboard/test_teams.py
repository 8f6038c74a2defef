"""fastrank.TeamLeaderboard: teams ranked by their members' points (sum, best,
top k), kept in step with every submit, join, leave, move and remove; the
descriptor; seasons; bad input refused with nothing changed; the asyncio face
answering as the sync one. On the three backends (tests/domain/conftest.py)."""
from __future__ import annotations

import asyncio

import pytest
from board_helpers import keyspace
from redis.crc import key_slot

import fastrank
import fastrank.asyncio
from fastrank import BoardConfigMismatch, Entry, Leaderboard, PointsOutOfRange, SeasonFrozen, TeamLeaderboard
from fastrank.leaderboard.teams import TeamPlans


def played(board):
    """red: ann 50, bob 30, cy 20 (a move from blue); blue: dee 45; fay 60 without a team."""
    board.join("ann", "red", at=1)
    board.join("bob", "red", at=1)
    board.join("cy", "blue", at=1)
    board.join("dee", "blue", at=1)
    board.submit("ann", 50, at=10)
    board.submit("bob", 30, at=11)
    board.submit("cy", 20, at=12)
    board.submit("dee", 45, at=13)
    board.submit("fay", 60, at=14)
    board.join("cy", "red", at=15)
    return board


@pytest.mark.parametrize("aggregate, k, red, blue", [("sum", None, 100, 45), ("best", None, 50, 45),
                                                     ("top", 2, 80, 45)])
def test_each_aggregate(client, aggregate, k, red, blue):
    board = played(TeamLeaderboard(client, "cup", aggregate=aggregate, k=k))
    assert board.team_top() == [Entry(1, "red", red), Entry(2, "blue", blue)]
    assert (board.team_score("red"), board.team_rank("red"), board.team_count()) == (red, 1, 2)
    assert board.members("red") == [Entry(1, "ann", 50), Entry(2, "bob", 30), Entry(3, "cy", 20)]
    assert board.members("red", 2) == board.members("red")[:2]
    # the player side reads as an ordinary board: fay counts there only
    assert board.top(2) == [Entry(1, "fay", 60), Entry(2, "ann", 50)]
    assert (board.rank("cy"), board.count(), board.team_of("fay"), board.team_of("cy")) == (5, 5, None, "red")
    # players, teams, memberships and members' sets: one hash slot (one node of a cluster)
    assert len({key_slot(key) for key in keyspace(client)}) == 1


def test_submits_joins_leaves_and_removes_move_the_teams(client):
    board = played(TeamLeaderboard(client, "league", aggregate="top", k=2))
    assert board.submit("cy", 15, at=20) == 35            # cy passes bob: red's best two are 50 + 35
    assert board.team_score("red") == 85
    assert board.submit_many({"bob": 30, "dee": 1}, at=21) == [60, 46]
    assert (board.team_score("red"), board.team_score("blue")) == (110, 46)
    assert board.leave("ann", at=22) is True and board.leave("ann", at=23) is False
    assert board.team_score("red") == 95 and board.score("ann") == 50   # ann keeps her points
    assert board.join("bob", "blue", at=24) is True                     # a move: out of red, into blue
    assert (board.team_score("red"), board.team_score("blue")) == (35, 106)
    assert board.remove("dee", at=25) is True                           # off the board and out of blue
    assert (board.team_of("dee"), board.score("dee"), board.team_score("blue")) == (None, None, 60)
    assert board.remove("dee", at=26) is False
    board.leave("cy", at=27)
    assert board.team_top() == [Entry(1, "blue", 60)]                    # red holds no points: not ranked
    assert (board.team_score("red"), board.team_rank("red"), board.members("red")) == (None, None, [])


def test_a_member_without_points_counts_for_nothing_until_they_score(client):
    board = TeamLeaderboard(client, "quiet", aggregate="best")
    board.join("ann", "red", at=1)
    assert (board.team_of("ann"), board.team_score("red"), board.team_top()) == ("red", None, [])
    board.submit("ann", 5, at=2)
    assert board.team_top() == [Entry(1, "red", 5)]


def test_teams_tie_break_on_when_they_reached_their_points(client):
    board = TeamLeaderboard(client, "ties", ranking="competition")
    board.join("ann", "red", at=1)
    board.join("bob", "blue", at=1)
    board.submit("bob", 10, at=5)
    board.submit("ann", 10, at=6)
    assert board.team_top() == [Entry(1, "blue", 10), Entry(1, "red", 10)]
    assert board.team_top(ranking="ordinal") == [Entry(1, "blue", 10), Entry(2, "red", 10)]
    board.join("cy", "red", at=7)
    board.submit("cy", 0, at=8)                     # red's points do not change: it keeps its time
    assert board.team_rank("red", ranking="ordinal") == 2


def test_submit_with_rank_and_dense_members(client):
    board = played(TeamLeaderboard(client, "dense", ranking="dense"))
    assert board.submit("bob", 20, at=30, with_rank=True) == fastrank.Change(50, 2, 4, ["dee"])
    assert board.members("red") == [Entry(1, "ann", 50), Entry(1, "bob", 50), Entry(2, "cy", 20)]
    assert board.team_top() == [Entry(1, "red", 120), Entry(2, "blue", 45)]


def test_a_team_total_that_would_not_fit_changes_nothing(client):
    board = TeamLeaderboard(client, "small", point_bits=6)
    board.join("ann", "red", at=1)
    board.join("bob", "red", at=1)
    board.submit("ann", 40, at=2)
    board.submit("bob", 20, at=3)
    before = keyspace(client)
    with pytest.raises(PointsOutOfRange, match="team's new points do not fit"):
        board.submit("bob", 10, at=4)           # bob's 30 fits, red's 70 does not
    with pytest.raises(PointsOutOfRange):
        board.submit_many([("cy", 1), ("bob", 10)], at=4)
    assert keyspace(client) == before
    board.submit("cy", 30, at=5)                # no team: the player board only
    after = keyspace(client)
    with pytest.raises(PointsOutOfRange):
        board.join("cy", "red", at=6)
    assert keyspace(client) == after
    assert (board.team_score("red"), board.score("bob"), board.team_of("cy")) == (60, 20, None)


def test_the_descriptor_keeps_the_aggregate(client):
    board = TeamLeaderboard(client, "kept", aggregate="top", k=3, ranking="dense", season="s1")
    stored = {k.decode(): v.decode() for k, v in client.hgetall(board.descriptor_key).items()}
    assert (stored["kind"], stored["aggregate"], stored["k"]) == ("teams", "top", "3")
    opened = TeamLeaderboard(client, "kept")
    assert repr(opened).endswith("rule='incr', aggregate='top', k=3)")
    assert (opened.aggregate, opened.k, opened.ranking, opened.season) == ("top", 3, "dense", "s1")
    with pytest.raises(BoardConfigMismatch, match="aggregate"):
        TeamLeaderboard(client, "kept", aggregate="sum")
    with pytest.raises(BoardConfigMismatch, match="'k'|k="):
        TeamLeaderboard(client, "kept", aggregate="top", k=2)
    with pytest.raises(BoardConfigMismatch, match="ranking"):
        TeamLeaderboard(client, "kept", ranking="ordinal")
    with pytest.raises(BoardConfigMismatch, match="kind"):
        Leaderboard(client, "kept")
    Leaderboard(client, "plain")
    with pytest.raises(BoardConfigMismatch, match="kind"):
        TeamLeaderboard(client, "plain")


def test_a_rollover_freezes_the_teams_and_carries_the_memberships(client):
    board = played(TeamLeaderboard(client, "seasons", season="s1"))
    late = TeamLeaderboard(client, "seasons")
    board.rollover("s2", archive=3600)
    assert board.team_top() == [] and board.team_of("cy") == "red"
    assert board.team_top(season="s1") == [Entry(1, "red", 100), Entry(2, "blue", 45)]
    assert board.members("red", season="s1")[0] == Entry(1, "ann", 50)
    assert client.ttl("{lb:seasons:s1}:members:red") > 0 and client.ttl("{lb:seasons:s1}:teams") > 0
    board.submit("cy", 7, at=40)
    assert board.team_top() == [Entry(1, "red", 7)]
    for write in (lambda: late.submit("ann", 1, at=41), lambda: late.join("fay", "red", at=41),
                  lambda: late.leave("ann", at=41), lambda: late.remove("ann", at=41)):
        with pytest.raises(SeasonFrozen):
            write()
    assert TeamLeaderboard(client, "seasons").team_score("red") == 7


def test_bad_input_is_refused_and_changes_nothing(client):
    for options, error in [({"aggregate": "mean"}, ValueError), ({"aggregate": "top"}, ValueError),
                           ({"aggregate": "top", "k": 0}, ValueError), ({"aggregate": "top", "k": "2"}, TypeError),
                           ({"aggregate": "sum", "k": 2}, ValueError), ({"k": 2}, ValueError),
                           ({"period": "day"}, ValueError)]:
        with pytest.raises(error):
            TeamLeaderboard(client, "bad", **options)
    assert keyspace(client) == {}
    board = played(TeamLeaderboard(client, "bad"))
    before = keyspace(client)
    for call, error in [(lambda: board.join("ann", ""), ValueError), (lambda: board.join("ann", 1.5), TypeError),
                        (lambda: board.join("", "red"), ValueError), (lambda: board.leave(None), TypeError),
                        (lambda: board.team_rank(b""), ValueError), (lambda: board.team_score([]), TypeError),
                        (lambda: board.members("red", -1), ValueError), (lambda: board.team_top("3"), TypeError),
                        (lambda: board.members("red", ranking="dense"), ValueError),
                        (lambda: board.submit("ann", 1.5), ValueError),
                        (lambda: board.submit("ann", 1, rule="double"), ValueError)]:
        with pytest.raises(error):
            call()
    assert keyspace(client) == before
    assert board.join("ann", "red") is True and keyspace(client) == before   # already there: nothing moves
    assert board.members("red", 0) == []


def test_every_plan_has_both_methods():
    plans = {name[len("_plan_"):] for name in dir(TeamPlans) if name.startswith("_plan_")}
    for name in plans:
        assert callable(getattr(TeamLeaderboard, name)), name
        assert asyncio.iscoroutinefunction(getattr(fastrank.asyncio.TeamLeaderboard, name)), name


def test_asyncio_answers_as_sync(async_client):
    def scenario(board):
        return [board.join("ann", "red", at=1), board.join("bob", "red", at=1), board.submit("ann", 5, at=2),
                board.submit("bob", 7, at=3, with_rank=True), board.submit_many({"cy": 9}, at=4),
                board.join("cy", "blue", at=5), board.team_top(), board.team_rank("blue"), board.team_score("red"),
                board.members("red"), board.team_of("cy"), board.team_count(), board.leave("bob", at=6),
                board.remove("ann", at=7), board.team_top(), board.top()]

    async def main():
        aclient = async_client()
        try:
            board = await fastrank.asyncio.TeamLeaderboard(aclient, "async", aggregate="top", k=2).open()
            steps = scenario(board)
            return [await step for step in steps]
        finally:
            await aclient.aclose()

    got = asyncio.run(main())
    assert got == scenario(TeamLeaderboard(fastrank.Engine(), "async", aggregate="top", k=2))
    assert got[6] == [Entry(1, "red", 12), Entry(2, "blue", 9)]


def test_faces_and_the_score_service_refuse_what_they_cannot_serve(tmp_path):
    with pytest.raises(TypeError, match="needs a sync client"):
        TeamLeaderboard(fastrank.asyncio.Engine(), "t")
    with pytest.raises(TypeError, match="needs an asyncio client"):
        fastrank.asyncio.TeamLeaderboard(fastrank.Engine(), "t")
    with pytest.raises(TypeError, match="not a TeamLeaderboard"):
        fastrank.ScoreService(TeamLeaderboard(fastrank.Engine(), "t", season="s1"),
                              fastrank.SQLiteStore(str(tmp_path / "s.db")))
