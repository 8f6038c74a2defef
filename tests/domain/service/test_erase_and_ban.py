"""Erasing and banning a player through the service, on the Engine, Redis and
the Cluster with SQLite and PostgreSQL: an erased player's id is nowhere in
the backend or the store afterwards (every key and every table read whole),
and a rebuild does not bring them back; a banned player is hidden from every
read, refused on submit, passed over by appliers and rebuilds, seen banned by
a second service, and restored by ``unban``."""
from __future__ import annotations

import asyncio
import logging
from collections import Counter

import pytest

import fastrank
import fastrank.asyncio
from fastrank import Leaderboard, PlayerBanned, PostgresStore, SQLiteStore, ScoreService

T0 = 1_790_000_000
GONE = "zed-erase-7"  # the id looked for everywhere afterwards


@pytest.fixture
def store(sql_store):
    return sql_store


def text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def backend_texts(client):
    """Every key of the backend and everything in it, as text (SCAN, then a read by type)."""
    found = []
    for key in client.scan_iter(count=1000):
        found.append(text(key))
        kind = text(client.type(key))
        if kind == "zset":
            found += [text(m) + " " + text(s) for m, s in client.zrange(key, 0, -1, withscores=True)]
        elif kind == "hash":
            found += [text(f) + " " + text(v) for f, v in client.hgetall(key).items()]
        elif kind == "string":
            found.append(text(client.get(key)))
        elif kind == "set":
            found += [text(m) for m in client.smembers(key)]
        elif kind == "list":
            found += [text(m) for m in client.lrange(key, 0, -1)]
        else:
            raise AssertionError(f"a key of type {kind} this test does not read: {key!r}")
    return found


def store_texts(store):
    """Every table of the store read whole: each row as text, with the table's name."""
    if isinstance(store, PostgresStore):
        tables = [r[0] for r in store._read("SELECT table_name FROM information_schema.tables "
                                            "WHERE table_schema = current_schema()")]
    else:
        tables = [r[0] for r in store._read("SELECT name FROM sqlite_master WHERE type = 'table'")]
    assert {"events", "totals", "standings", "reviews", "bans", "audit"} <= set(tables)
    return [f"{table}: {' | '.join(text(v) for v in row)}"
            for table in tables for row in store._read(f"SELECT * FROM {table}")]


def standings(board, season):
    return [(e.rank, e.player, e.points) for e in board.top(100, season=season)]


def dense_counts_match(client, board, season):
    keys = board.keys(season)
    held = Counter(int(board.codec.points(s)) for _, s in client.zrange(keys[0], 0, -1, withscores=True))
    counts = {int(float(text(f))): int(v) for f, v in client.hgetall(keys[2]).items()}
    distinct = sorted(int(float(text(m))) for m in client.zrange(keys[1], 0, -1))
    return counts == dict(held) and distinct == sorted(held)


def flag_big(submission, history, population):
    return "more than 900 points" if submission.points > 900 else None


def test_erase_leaves_no_trace_in_the_backend_or_the_store(client, store, caplog):
    old = Leaderboard(client, "arena", season="s1", ranking="dense")
    s1 = ScoreService(old, store, review="flag", checks=[flag_big], max_clock_skew=None)
    s1.submit_match("m1", {GONE: 40, "ann": 40, "bob": 30}, at=T0)
    s1.submit_match("m2", {GONE: 5, "cy": 7}, at=T0 + 5)         # GONE holds 45 alone: a distinct value
    s1.submit("m3", GONE, 950, at=T0 + 6)                          # flagged: a review-queue row
    s1.submit("m4", "dee", 950, at=T0 + 7)                         # flagged too: stays
    s1.tombstone_match("m3")                                       # a correction event of GONE
    old.set_info(GONE, {"name": "Zed"})
    old.set_info("ann", {"name": "Ann"})
    assert s1.archive() == 5
    old.rollover("s2")
    board = Leaderboard(client, "arena", season="s2", ranking="dense")
    service = ScoreService(board, store, max_clock_skew=None)
    service.submit_match("n1", {GONE: 12, "ann": 12, "bob": 3}, at=T0 + 100)
    service.ban("bob")                                             # another player's ban: stays
    assert GONE in "\n".join(backend_texts(client)) and GONE in "\n".join(store_texts(store))
    before_s1 = [s for s in standings(board, "s1") if s[1] != GONE]
    before_s2 = [s for s in standings(board, "s2") if s[1] != GONE]
    last_id = store.last_event_id(board="arena")

    with caplog.at_level(logging.INFO, logger="fastrank"):
        record = service.erase_player(GONE, by="privacy-desk")
    assert (record.action, record.board, record.by) == ("player.erased", "arena", "privacy-desk")
    assert (record.events, record.totals, record.standings, record.reviews) == (5, 2, 1, 1)
    assert store.audit(board="arena") == [record]
    (logged,) = [r for r in caplog.records if getattr(r, "event", None) == "player.erased"]
    assert GONE not in logged.getMessage() and GONE not in repr(vars(logged))

    assert not [t for t in backend_texts(client) if GONE in t]
    assert not [t for t in store_texts(store) if GONE in t]
    # The others' standings are as they were; on a dense board the distinct
    # values GONE held alone are gone from the counts (ann keeps rank 1 of s2).
    assert standings(board, "s1") == [(1, "dee", 950), (2, "ann", 40), (3, "bob", 30), (4, "cy", 7)]
    assert [s[1:] for s in standings(board, "s1")] == [s[1:] for s in before_s1]
    assert [s[1:] for s in standings(board, "s2")] == [s[1:] for s in before_s2] == [("ann", 12)]
    assert dense_counts_match(client, board, "s1") and dense_counts_match(client, board, "s2")
    assert [(s.player, s.points) for s in store.standings("s1", board="arena")] == [
        ("dee", 950), ("ann", 40), ("bob", 30), ("cy", 7)]
    assert board.info("ann") == {"name": "Ann"}
    assert [f.points for f in s1.flags()] == [950]
    assert service.bans() == ["bob"]

    # The applier's offset is still valid and ids are never reused.
    receipt = service.submit("n2", "eve", 4, at=T0 + 200)
    assert receipt.event_id > last_id and service.rank("eve") == 2
    assert service.rebuild() == 2                                  # ann and eve (bob is banned)
    assert [(e.player, e.points) for e in board.top(10)] == [("ann", 12), ("eve", 4)]
    assert not [t for t in backend_texts(client) if GONE in t]
    assert service.erase_player(GONE).events == 0                  # again: nothing left to erase
    assert not [t for t in store_texts(store) if GONE in t]


def test_erase_while_events_are_pending_and_with_a_second_service(client, store):
    board = Leaderboard(client, "arena", season="s1")
    writer = ScoreService(board, store, apply=False, max_clock_skew=None)
    writer.submit_match("m1", {GONE: 9, "ann": 4}, at=T0)
    other = ScoreService(Leaderboard(client, "arena"), store, max_clock_skew=None)
    other.ban(GONE)                                                # a banned player can be erased too
    assert other.erase_player(GONE).events == 1 and other.bans() == []
    assert writer.apply_pending() == 1                             # ann's event; GONE's were deleted
    assert [(e.player, e.points) for e in board.top()] == [("ann", 4)]
    assert not [t for t in backend_texts(client) if GONE in t]
    assert not [t for t in store_texts(store) if GONE in t]


def test_a_banned_player_is_hidden_refused_and_restored(client, store):
    board = Leaderboard(client, "arena", season="s1", ranking="competition")
    service = ScoreService(board, store, max_clock_skew=None)
    service.submit_match("m1", {"zed": 50, "ann": 40, "bob": 40, "cy": 10}, at=T0)
    assert service.ban("zed", by="mod:kim") is True
    assert service.ban("zed") is False
    assert [(e.rank, e.player) for e in service.top()] == [(1, "bob"), (1, "ann"), (3, "cy")]
    assert [e.player for e in service.page(1, 2)] == ["bob", "ann"]
    assert service.rank("zed") is None and service.around("zed") == []
    assert [e.player for e in service.around("ann", 1)] == ["bob", "ann", "cy"]
    assert [e.player for e in service.friends("ann", ["zed", "cy"])] == ["ann", "cy"]
    assert service.friends("zed", ["ann"])[0].player == "ann"
    with pytest.raises(PlayerBanned, match="banned"):
        service.submit("m2", "zed", 5, at=T0 + 1)
    with pytest.raises(PlayerBanned):
        service.submit_match("m3", {"ann": 1, "zed": 5}, at=T0 + 1)
    assert isinstance(PlayerBanned("x"), ValueError) and fastrank.PlayerBanned is PlayerBanned
    assert service.history("ann")[-1].match_id == "m1"             # the refused match recorded nothing
    assert store.total("s1", "zed", board="arena").points == 50    # the events are kept

    # A second process sees the ban: its submits are refused, its applier passes over pending events.
    second = ScoreService(Leaderboard(client, "arena"), store, max_clock_skew=None)
    assert second.bans() == ["zed"]
    with pytest.raises(PlayerBanned):
        second.submit("m4", "zed", 1, at=T0 + 2)
    assert second.rank("zed") is None

    # A rebuild leaves banned players out (and ranks the others without them).
    assert second.rebuild() == 3
    assert [(e.rank, e.player, e.points) for e in service.top()] == [(1, "bob", 40), (1, "ann", 40), (3, "cy", 10)]
    assert service.rank("zed") is None

    assert second.unban("zed", by="mod:kim") is True
    assert second.unban("zed") is False
    assert [(e.rank, e.player, e.points) for e in service.top()][0] == (1, "zed", 50)
    service.submit("m5", "zed", 5, at=T0 + 3)
    assert service.rank("zed") == 1 and board.score("zed") == 55
    assert service.bans() == []


def test_events_pending_at_the_ban_are_passed_over_and_restored_by_unban(client, store):
    board = Leaderboard(client, "arena", season="s1", ranking="dense")
    api = ScoreService(board, store, apply=False, max_clock_skew=None)
    applier = ScoreService(board, store, max_clock_skew=None)
    api.submit_match("m1", {"zed": 20, "ann": 20, "bob": 7}, at=T0)
    applier.apply_pending()
    api.submit_match("m2", {"zed": 30, "ann": 1}, at=T0 + 1)       # pending when the ban comes
    applier.ban("zed")
    assert applier.apply_pending() == 1                            # ann's; zed's passed over
    assert [(e.rank, e.player, e.points) for e in board.top()] == [(1, "ann", 21), (2, "bob", 7)]
    assert dense_counts_match(client, board, "s1")
    applier.unban("zed")
    assert [(e.rank, e.player, e.points) for e in board.top()] == [(1, "zed", 50), (2, "ann", 21), (3, "bob", 7)]
    assert dense_counts_match(client, board, "s1")
    assert applier.rebuild() == 3
    assert [(e.rank, e.player, e.points) for e in board.top()] == [(1, "zed", 50), (2, "ann", 21), (3, "bob", 7)]


def test_a_ban_hides_a_player_from_the_store_reads_of_a_rebuild(client, store):
    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store, max_clock_skew=None)
    service.submit_match("m1", {"zed": 50, "ann": 40}, at=T0)
    service.ban("zed")
    client.set(service.rebuild_key, "1")                           # what a running rebuild shows
    assert [e.player for e in service.top()] == ["ann"] and [e.player for e in service.page(1)] == ["ann"]
    client.delete(service.rebuild_key)


def test_asyncio_erase_and_ban(async_client, store):
    async def main():
        client = await async_client().initialize()
        board = fastrank.asyncio.Leaderboard(client, "arena", season="s1")
        service = fastrank.asyncio.ScoreService(board, store, max_clock_skew=None)
        await service.submit_match("m1", {GONE: 9, "ann": 4, "bob": 2}, at=T0)
        record = await service.erase_player(GONE, by="desk")
        banned = await service.ban("bob")
        try:
            await service.submit("m2", "bob", 1, at=T0 + 1)
            refused = False
        except PlayerBanned:
            refused = True
        result = (record.events, banned, refused, [e.player for e in await service.top()],
                  await service.bans(), await service.unban("bob"), await service.rank("bob"))
        await client.aclose()
        return result

    assert asyncio.run(main()) == (1, True, True, ["ann"], ["bob"], True, 2)


def test_a_store_made_before_bans_and_audit_gets_them_when_opened(tmp_path):
    path = tmp_path / "old.db"
    old = SQLiteStore(path)
    old._read("DROP TABLE bans")
    old._read("DROP TABLE audit")
    old.close()
    store = SQLiteStore(path)
    assert store.ban("zed", board="arena") and store.bans(board="arena") == ["zed"]
    assert store.erase_player("zed", board="arena")[1].action == "player.erased"
    store.close()
