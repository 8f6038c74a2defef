"""The board protocol: what the score service (or any code that drives a
board's scripts itself) uses besides the public methods, on every backend."""
from __future__ import annotations

import pytest
from redis.exceptions import ResponseError

from fastrank import Leaderboard, errors
from fastrank.leaderboard.parts import Ranker
from fastrank.runner import run, steps


def test_the_protocol_reads_the_board_as_its_methods_do(client):
    board = Leaderboard(client, "proto", ranking="competition")
    board.submit_many({"ann": 30, "bob": 20, "cat": 20, "dan": 10})
    assert board.client is client
    assert board.rank_style == "c"
    assert len(board.script_config) == 5 and all(type(word) is bytes for word in board.script_config)
    # plan(name, ...) is the plan of the public method of that name
    assert run(client, board.plan("top", 3)) == board.top(3)
    assert run(client, board.plan("rank", "cat")) == board.rank("cat")

    def two_plans():
        top = yield from steps(board.plan("top", 2))
        rank = yield from steps(board.plan("rank", "dan"))
        return top, rank

    assert run(client, two_plans()) == (board.top(2), 4)
    # a slice and its entries, ranked as the board ranks
    pairs = run(client, board.slice_plan(1, 2, None))
    entries = list(board.entries_from(Ranker(board.rank_style), 1, pairs))
    assert entries == board.top(3)[1:]


def test_translate_error_names_what_a_script_refused(client):
    board = Leaderboard(client, "proto", point_bits=4, time_bits=4, tiebreak="earliest")
    with pytest.raises(ValueError, match="do not fit"):
        board.submit("ann", 1000)              # the submit script's refusal, translated
    out_of_range = board.translate_error(ResponseError(errors.BOARD_RANGE_PREFIX + " 15"))
    assert isinstance(out_of_range, ValueError) and "do not fit" in str(out_of_range)
    frozen = board.translate_error(ResponseError(errors.BOARD_FROZEN_PREFIX + " this season is frozen"))
    assert isinstance(frozen, ValueError) and "'proto'" in str(frozen)
    unrelated = ResponseError("ERR something else")
    assert board.translate_error(unrelated) is unrelated


def test_forget_cached_drops_the_top_n_cache(client):
    board = Leaderboard(client, "cached", cache_ttl=60)
    board.submit("ann", 5)
    assert board.top(1)[0].player == "ann"
    client.zadd(board.keys()[0], {"zed": board.codec.encode(10**5, 0)})   # a write outside the board's methods
    assert board.top(1)[0].player == "ann"     # still the cached read
    board.forget_cached()
    assert board.top(1)[0].player == "zed"
