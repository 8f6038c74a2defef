"""Bad input on every backend: a clear error and nothing written."""
from __future__ import annotations

import math

import pytest

from board_helpers import keyspace
from fastrank import Leaderboard

BAD_CALLS = [
    ("float points", lambda b: b.submit("ann", 1.5, at=1), ValueError, "integer"),
    ("integral float", lambda b: b.submit("ann", 2.0, at=1), ValueError, "int"),
    ("nan", lambda b: b.submit("ann", math.nan, at=1), ValueError, "integer"),
    ("inf", lambda b: b.submit("ann", math.inf, at=1), ValueError, "integer"),
    ("text points", lambda b: b.submit("ann", "10", at=1), TypeError, "int"),
    ("bool points", lambda b: b.submit("ann", True, at=1), TypeError, "number"),
    ("points too big", lambda b: b.submit("ann", 2 ** 20, at=1), ValueError, "do not fit"),
    ("points too small", lambda b: b.set_points("ann", -(2 ** 20), at=1), ValueError, "do not fit"),
    ("sum too big", lambda b: b.submit("ann", 2 ** 20 - 1, at=1), ValueError, "do not fit"),
    ("time before 1970", lambda b: b.submit("ann", 1, at=-1), ValueError, "time_bits"),
    ("time too late", lambda b: b.submit("ann", 1, at=2 ** 33), ValueError, "time_bits"),
    ("time nan", lambda b: b.submit("ann", 1, at=math.nan), ValueError, "finite"),
    ("time text", lambda b: b.submit("ann", 1, at="now"), TypeError, "datetime"),
    ("unknown rule", lambda b: b.submit("ann", 1, at=1, rule="add"), ValueError, "rule"),
    ("float player", lambda b: b.submit(1.5, 1, at=1), TypeError, "player id"),
    ("None player", lambda b: b.submit(None, 1, at=1), TypeError, "player id"),
    ("bool player", lambda b: b.remove(True), TypeError, "player id"),
    ("list player", lambda b: b.set_info(["ann"], {}), TypeError, "player id"),
    ("info not a mapping", lambda b: b.set_info("ann", "Ann"), TypeError, "mapping"),
    ("negative n", lambda b: b.top(-1), ValueError, "n must be >= 0"),
    ("text n", lambda b: b.top("3"), TypeError, "n must be an int"),
    ("page 0", lambda b: b.page(0, 10), ValueError, "start at 1"),
    ("negative size", lambda b: b.page(1, -1), ValueError, "size"),
    ("negative radius", lambda b: b.around("ann", -1), ValueError, "radius"),
    ("one friend id as text", lambda b: b.friends("ann", "bob"), TypeError, "sequence"),
    ("unknown ranking", lambda b: b.rank("ann", ranking="fractional"), ValueError, "ranking"),
    ("dense on a plain board", lambda b: b.rank("ann", ranking="dense"), ValueError, "dense"),
    ("rank_for float", lambda b: b.rank_for(2.5), ValueError, "integer"),
    ("batch 0", lambda b: list(b.iter(batch=0)), ValueError, "batch"),
    ("bad season", lambda b: b.standings("a}b"), ValueError, "season"),
    ("bad new season", lambda b: b.rollover("{x}"), ValueError, "season"),
]


@pytest.mark.parametrize("label, call, error, text", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_call_writes_nothing(client, label, call, error, text):
    board = Leaderboard(client, "bad", season="s1")
    board.submit("ann", 2 ** 20 - 2, at=5)
    board.submit("bob", 3, at=6)
    board.set_info("bob", {"name": "Bob"})
    before = keyspace(client)
    assert len(before) == 3                       # the board, its info and its descriptor (no dense keys: ordinal)
    with pytest.raises(error, match=text):
        call(board)
    assert keyspace(client) == before
    assert board.season == "s1"


BAD_BOARDS = [
    ({"order": "up"}, ValueError, "order"),
    ({"ranking": "best"}, ValueError, "ranking"),
    ({"rule": "max"}, ValueError, "rule"),
    ({"tiebreak": "first"}, ValueError, "tiebreak"),
    ({"point_bits": 30, "time_bits": 30}, ValueError, "53"),
    ({"buckets": (10, 5)}, ValueError, "buckets"),
    ({"cache_ttl": -1}, ValueError, "cache_ttl"),
    ({"passed": -1}, ValueError, "passed"),
]


@pytest.mark.parametrize("options, error, text", BAD_BOARDS, ids=[str(o) for o, _, _ in BAD_BOARDS])
def test_bad_board_options(client, options, error, text):
    with pytest.raises(error, match=text):
        Leaderboard(client, "bad", **options)
    assert keyspace(client) == {}


@pytest.mark.parametrize("name", ["", "a{b", "a}b"])
def test_bad_names(client, name):
    with pytest.raises(ValueError, match="name"):
        Leaderboard(client, name)
