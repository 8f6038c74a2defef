"""Destructive paths check first, on the Engine, Redis and the Cluster.

- ``ScoreService.rebuild`` validates its arguments and the stored data before
  it touches the board, and builds the new board beside the old one: a
  rebuild that fails at any point (a bad batch, stored times the board's
  bits cannot hold, an exception in the middle of the reading or the
  writing) leaves the old board, its offset and every other key exactly as
  they were, and the service answering ranks from it.
- Board keys: no two (name, season) pairs share a key, whatever ``:``, ``%``
  or ``~`` the names and seasons hold, for plain, sharded, periodic and
  service keys.
"""
from __future__ import annotations

import itertools

import pytest

from fastrank import BoardConfigMismatch, Engine, Leaderboard, SQLiteStore, ScoreService, ShardedLeaderboard
from fastrank.leaderboard.descriptor import descriptor_key

T0 = 1_790_000_000


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "scores.db")
    yield s
    s.close()


def keyspace(client):
    """Every key with its type, content and TTL (the Engine has no DUMP: strings are read with GET)."""
    from redis.cluster import RedisCluster

    found = client.keys("*", target_nodes=RedisCluster.PRIMARIES) if isinstance(client, RedisCluster) \
        else client.keys("*")
    state = {}
    for key in found:
        kind = client.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "zset":
            value = client.zrange(key, 0, -1, withscores=True)
        elif kind == "hash":
            value = client.hgetall(key)
        else:
            value = client.get(key)
        state[key] = (kind, value, client.ttl(key))
    return state


def board_state(board):
    return [(e.rank, e.player, e.points) for e in board.iter()]


def filled(client, store, **options):
    """A dense board and its service with 40 players and an info row; the old board."""
    board = Leaderboard(client, "arena", season="s1", ranking=options.pop("ranking", "dense"), **options)
    service = ScoreService(board, store)
    for i in range(60):
        service.submit_match(f"m{i}", {f"p{i % 40:02d}": i % 7 + 1, f"q{i % 3}": 2}, at=T0 + i)
    board.set_info("p01", {"name": "Ann"})
    return board, service


class Answers:
    """Everything the old board and its service answer, to compare after a failed rebuild."""

    def __init__(self, client, board, service):
        self.keys = keyspace(client)
        self.state = board_state(board)
        self.ranks = {p: (service.rank(p), board.rank(p, ranking="dense"))
                      for _, p, _ in self.state}
        self.top = service.top(5)

    def assert_same(self, client, board, service):
        assert not service.rebuilding()
        assert keyspace(client) == self.keys
        assert board_state(board) == self.state
        assert {p: (service.rank(p), board.rank(p, ranking="dense")) for _, p, _ in self.state} == self.ranks
        assert service.top(5) == self.top


@pytest.mark.parametrize("batch", [0, -3, True, 2.5, "10", None])
def test_a_bad_batch_is_refused_before_the_board_is_touched(client, store, batch):
    board, service = filled(client, store)
    before = Answers(client, board, service)
    with pytest.raises((TypeError, ValueError), match="batch must be an int >= 1"):
        service.rebuild(batch=batch)
    before.assert_same(client, board, service)


def test_stored_times_the_board_cannot_hold_are_refused_before_the_board_is_touched(client, store):
    board, service = filled(client, store)
    before = Answers(client, board, service)
    # the same season read by a board whose 30 time bits end in 2004: the stored times do not fit
    # the board's descriptor refuses it before any service is made on it
    with pytest.raises(BoardConfigMismatch, match="time_bits=30"):
        ScoreService(Leaderboard(client, "arena", season="s1", ranking="dense", time_bits=30), store).rebuild()
    before.assert_same(client, board, service)


def test_a_stored_time_before_1970_is_refused_before_the_board_is_touched(client, store):
    board, service = filled(client, store)
    store.record("s1", "early", {"zz": 3}, -5.0, board="arena")    # bypasses the service's own checks
    before = Answers(client, board, service)
    with pytest.raises(ValueError, match="time_bits=33"):
        service.rebuild(batch=4)
    before.assert_same(client, board, service)


class FailingProgress(Exception):
    pass


@pytest.mark.parametrize("reader", ["scan", "packed", "pages"])
def test_an_exception_in_the_middle_of_the_writing_leaves_the_old_board(client, store, reader, monkeypatch):
    board, service = filled(client, store)
    if reader != "scan":
        monkeypatch.setattr(store, "score_order_scan", lambda *args, **kwargs: None)
    if reader == "pages":
        monkeypatch.setattr(store, "packed_totals", lambda *args, **kwargs: None)
    client.zadd(board.keys()[0], {"only-on-the-old-board": 3 * 2 ** 33})   # the old board differs from the store
    before = Answers(client, board, service)
    seen = []

    def progress(done, total):
        seen.append(done)
        assert service.rebuilding()
        if len(seen) == 2:                        # two chunks are on the new board
            raise FailingProgress("the operator's progress bar broke")

    with pytest.raises(FailingProgress):
        service.rebuild(progress=progress, batch=8)
    assert seen == [8, 16]
    before.assert_same(client, board, service)
    # the next rebuild succeeds and replaces the board with the store's totals
    assert service.rebuild(batch=8) == 43
    assert "only-on-the-old-board" not in {p for _, p, _ in board_state(board)}
    assert {p: pts for _, p, pts in board_state(board)} == {
        t.player: t.points for page in store.totals("s1", board="arena") for t in page}


class ReaderBroke(Exception):
    pass


def test_a_store_reader_that_fails_after_some_rows_leaves_the_old_board(client, store, monkeypatch):
    board, service = filled(client, store)
    monkeypatch.setattr(store, "score_order_scan", lambda *args, **kwargs: None)
    monkeypatch.setattr(store, "packed_totals", lambda *args, **kwargs: None)
    pages = []
    real = type(store).totals_columns_upto

    def failing(self, *args, **kwargs):
        pages.append(1)
        if len(pages) > 2:
            raise ReaderBroke("the database went away")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(type(store), "totals_columns_upto", failing)
    before = Answers(client, board, service)
    with pytest.raises(ReaderBroke):
        service.rebuild(batch=5)
    assert len(pages) > 2
    monkeypatch.setattr(type(store), "totals_columns_upto", real)
    before.assert_same(client, board, service)


def test_a_scan_that_fails_after_some_chunks_leaves_the_old_board(client, store, monkeypatch):
    board, service = filled(client, store)
    real = store.score_order_scan

    class Breaking:
        """The store's compiled scan, failing at its third chunk."""

        def __init__(self, scan):
            self.scan, self.calls = scan, 0

        def __getattr__(self, name):
            return getattr(self.scan, name)

        def next_chunk(self, size):
            self.calls += 1
            if self.calls == 3:
                raise ReaderBroke("a page of the file could not be read")
            return self.scan.next_chunk(size)

    monkeypatch.setattr(store, "score_order_scan", lambda *args, **kwargs: Breaking(real(*args, **kwargs)))
    before = Answers(client, board, service)
    written = []
    with pytest.raises(ReaderBroke):
        service.rebuild(progress=lambda done, total: written.append(done), batch=6)
    assert written == [6, 12]                        # two chunks were on the new board
    before.assert_same(client, board, service)


def test_a_rebuild_of_an_empty_season_empties_the_board_and_events_keep_flowing(client, store):
    board, service = filled(client, store)
    board.rollover("s2")
    other = ScoreService(Leaderboard(client, "arena"), store)  # opened by name: season s2
    assert other.rebuild() == 0 and other.board.count() == 0 and not other.rebuilding()
    assert board.count(season="s1") == 43            # the other season's board is untouched
    other.submit("late", "zed", 5, at=T0)
    assert [e.player for e in other.top()] == ["zed"]


def test_an_asyncio_rebuild_that_fails_leaves_the_old_board(async_client, store):
    import asyncio

    import fastrank.asyncio

    async def main():
        client = await async_client().initialize()
        board = fastrank.asyncio.Leaderboard(client, "arena", season="s1")
        service = fastrank.asyncio.ScoreService(board, store)
        for i in range(30):
            await service.submit(f"m{i}", f"p{i:02d}", i + 1, at=T0 + i)
        before = [(e.player, e.points) for e in await service.top(30)]
        seen = []

        def progress(done, total):
            seen.append(done)
            raise FailingProgress("stop after the first chunk")

        with pytest.raises(FailingProgress):
            await service.rebuild(progress=progress, batch=7)
        after = ([(e.player, e.points) for e in await service.top(30)], await service.rank("p29"),
                 await service.rebuilding(), await client.exists(*service.next_keys))
        await client.aclose()
        return seen, before, after

    seen, before, (top, rank, rebuilding, leftovers) = asyncio.run(main())
    assert seen == [7]
    assert top == before and rank == 1 and not rebuilding and leftovers == 0


# -- keys ---------------------------------------------------------------------------

PAIRS = [("a:b", "c"), ("a", "b:c"), ("x:2026", None), ("x", "2026"), ("a", "b"), ("a", None),
         ("a:b", None), ("a%3Ab", "c"), ("a%", "3Ab:c"), ("a%3A", "b"), ("a", "%3Ab"), ("x~2.0", None),
         ("x~2.1", "s"), ("p:2026-12-03", None), ("p", "2026-12-03"), ("%", "%"), (":", ":"),
         ("::", None), (":", None), ("s~1", None), ("s~1.0", None), ("s:s", "s")]


def all_keys(board):
    """Every key a board (or a sharded board's shards) and a service on it write."""
    boards = board.boards if isinstance(board, ShardedLeaderboard) else [board]
    keys = set()
    for b in boards:
        base = b.keys()
        keys |= set(base) | {base[0] + ":applied", base[0] + ":rebuilding"}
    return keys


def test_no_two_names_and_seasons_share_a_key(client):
    # the keys of every (name, season): computed on an Engine of each board's
    # own (one name is one board, with one current season: the descriptor's)
    made = [Leaderboard(Engine(), name, season=season) for name, season in PAIRS]
    made += [ShardedLeaderboard(Engine(), "x", shards=2), ShardedLeaderboard(Engine(), "x", shards=2, season="s"),
             ShardedLeaderboard(Engine(), "s", shards=1), ShardedLeaderboard(Engine(), "x~2", shards=2),
             Leaderboard(Engine(), "pd", period="day", tz="UTC")]
    key_sets = [all_keys(b) for b in made]
    for (i, one), (j, two) in itertools.combinations(enumerate(key_sets), 2):
        assert not one & two, (made[i], made[j], one & two)
    # the descriptors: one per name, none of them a board's key
    descriptors = {b.name: descriptor_key(b.name) for b in made}
    assert len(set(descriptors.values())) == len(descriptors)
    assert not set(descriptors.values()) & set().union(*key_sets)
    # and the boards are independent: each holds only what it was given (now: the periodic
    # board writes the current period); one board per name on the shared client
    boards, names = [], set()
    for (name, season) in PAIRS:
        if name not in names:
            names.add(name)
            boards.append(Leaderboard(client, name, season=season))
    boards += [ShardedLeaderboard(client, "s", shards=1), ShardedLeaderboard(client, "x~2", shards=2),
               Leaderboard(client, "pd", period="day", tz="UTC")]
    for i, board in enumerate(boards):
        board.submit(f"player{i}", i + 1)
        board.set_info(f"player{i}", {"i": i})
    for i, board in enumerate(boards):
        assert [(e.player, e.points) for e in board.top(50)] == [(f"player{i}", i + 1)], board
        assert board.info(f"player{i}") == {"i": i}


def test_ordinary_names_keep_readable_keys(client):
    assert Leaderboard(client, "arena", season="2026").keys()[0] == "{lb:arena:2026}"
    assert Leaderboard(client, "arena2").keys()[4] == "{lb:arena2}:info"
    assert Leaderboard(client, "arena").descriptor_key == "{lb:arena}:board"
    assert Leaderboard(client, "a:b", season="c").keys()[0] == "{lb:a%3Ab:c}"
    assert Leaderboard(client, "a", season="b:c").keys()[0] == "{lb:a:b%3Ac}"
    assert ShardedLeaderboard(client, "cup", shards=2).boards[1].keys()[0] == "{lb:cup~2.1}"
    assert Leaderboard(client, "cup~2.1").keys()[0] == "{lb:cup%7E2.1}"


def test_services_on_colliding_names_keep_their_own_offsets(client, store):
    one = ScoreService(Leaderboard(client, "a:b", season="c"), store)
    two = ScoreService(Leaderboard(client, "a", season="b:c"), store)
    assert one.season != two.season                   # the store files them apart too
    one.submit("m1", "ann", 5, at=T0)
    two.submit("m2", "bob", 7, at=T0)
    assert [(e.player, e.points) for e in one.top()] == [("ann", 5)]
    assert [(e.player, e.points) for e in two.top()] == [("bob", 7)]
    assert {one.offset_key, one.rebuild_key}.isdisjoint({two.offset_key, two.rebuild_key})
