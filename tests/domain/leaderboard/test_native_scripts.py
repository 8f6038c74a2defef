"""On the Engine, the native paths of fastrank's scripts (chosen by SHA1) answer
exactly as the Lua scripts do: every reply and error, and the keyspace after."""
from __future__ import annotations

import itertools
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_helpers import keyspace
from fastrank import Engine, Leaderboard
from fastrank.engine.commands.scripting import NATIVE_SCRIPTS
from fastrank.natives import NATIVE
from fastrank.runner import packaged_script

players = st.sampled_from(["ann", "bob", "cy", "dee", 7])
calls = st.one_of(
    st.tuples(st.just("submit"), players, st.integers(-30, 30), st.integers(0, 5),
              st.sampled_from(["incr", "decr", "best", "set"]), st.booleans()),
    st.tuples(st.just("submit_many"), st.lists(st.tuples(players, st.integers(-9, 9)), max_size=4),
              st.integers(0, 5)),
    st.tuples(st.just("remove"), players),
    st.tuples(st.just("rank"), players, st.sampled_from(["ordinal", "competition", "dense"])),
    st.tuples(st.just("page"), st.integers(1, 3), st.integers(0, 3), st.sampled_from(["competition", "dense"]),
              st.booleans()),
    st.tuples(st.just("around"), players, st.integers(0, 2), st.booleans()),
    st.tuples(st.just("friends"), players, st.lists(players, max_size=3), st.booleans()),
    st.tuples(st.just("percentile"), players),
    st.tuples(st.just("set_info"), players),
    st.tuples(st.just("overflow"), players),
    st.tuples(st.just("rollover"),),
)
configs = st.tuples(st.sampled_from(["desc", "asc"]), st.sampled_from(["earliest", "latest", None]))
_names = itertools.count()


def play(engine: Engine, config, steps, name):
    order, tiebreak = config
    board = Leaderboard(engine, name, season="s1", order=order, tiebreak=tiebreak, ranking="dense")
    replies = []
    for step in steps:
        kind = step[0]
        try:
            if kind == "submit":
                _, player, points, at, rule, with_rank = step
                replies.append(board.submit(player, points, at=at, rule=rule, with_rank=with_rank))
            elif kind == "submit_many":
                replies.append(board.submit_many(step[1], at=step[2]))
            elif kind == "remove":
                replies.append(board.remove(step[1]))
            elif kind == "rank":
                replies.append(board.rank(step[1], ranking=step[2]))
            elif kind == "page":
                replies.append(board.page(step[1], step[2], ranking=step[3], with_info=step[4]))
            elif kind == "around":
                replies.append(board.around(step[1], step[2], with_info=step[3]))
            elif kind == "friends":
                replies.append(board.friends(step[1], step[2], with_info=step[3]))
            elif kind == "percentile":
                replies.append((board.percentile(step[1]), board.bucket(step[1])))
            elif kind == "set_info":
                replies.append(board.set_info(step[1], {"name": str(step[1])}))
            elif kind == "overflow":
                replies.append(board.submit(step[1], 2 ** 20 - 1, at=1))
            else:
                replies.append(board.rollover("s2"))
                board = Leaderboard(engine, name, season="s1", order=order, tiebreak=tiebreak, ranking="dense")
        except ValueError as exc:
            replies.append(("ValueError", str(exc)))
    return replies


def on_both_paths(run):
    """``run(engine)`` on an Engine whose scripts all go through Lua and on one
    using the native paths: the replies and the keyspaces must be equal.
    The native Engine, for more checks."""
    with mock.patch.dict(NATIVE_SCRIPTS, clear=True):
        lua = Engine()
        by_lua = run(lua)
    native = Engine()
    assert run(native) == by_lua
    assert keyspace(native) == keyspace(lua)
    return native


@given(config=configs, steps=st.lists(calls, max_size=30))
@settings(max_examples=150, deadline=None)
def test_native_equals_lua(config, steps):
    name = f"native{next(_names)}"
    on_both_paths(lambda engine: play(engine, config, steps, name))


def test_native_paths_are_taken():
    engine = Engine()
    board = Leaderboard(engine, "taken", ranking="dense")
    board.submit("ann", 1, at=1)
    names = {packaged_script(name).sha.encode(): name
             for name in ("submit", "remove", "standing", "range", "friends")}
    seen = []
    wrapped = {sha: (lambda db, k, a, fn=fn, sha=sha: seen.append(names[sha]) or fn(db, k, a))
               for sha, fn in NATIVE.items()}
    with mock.patch.dict(NATIVE_SCRIPTS, wrapped):
        board.submit("bob", 2, at=1, with_rank=True)
        board.top(3, with_info=True)
        board.friends("ann", ["bob"])
        board.rank("bob")
        board.remove("ann")
    assert seen == ["submit", "range", "friends", "standing", "remove"]


@pytest.mark.parametrize("setup, text", [
    (lambda e: e.set("{lb:odd}", "x"), "WRONGTYPE"),
    (lambda e: e.set("{lb:odd}:counts", "x"), "WRONGTYPE"),
])
def test_unusual_keys_go_to_lua(setup, text):
    results = []
    for native in (False, True):
        engine = Engine()
        setup(engine)
        board = Leaderboard(engine, "odd", ranking="dense")
        with mock.patch.dict(NATIVE_SCRIPTS, clear=not native):
            with pytest.raises(Exception) as info:
                board.submit("ann", 1, at=1)
        results.append((type(info.value), str(info.value)))
    assert results[0] == results[1] and text in results[0][1]


def test_scripts_send_the_named_error_texts():
    prelude = packaged_script("submit").source
    from fastrank import errors as _errors

    assert f"local FROZEN = '{_errors.BOARD_FROZEN}'" in prelude
    assert f"local RANGE = '{_errors.BOARD_RANGE % ''}'" in prelude


float_points = st.one_of(
    st.floats(min_value=-2.0 ** 53, max_value=2.0 ** 53, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 0.1, -2.5, 1e-300, 2.0 ** 53, 123456789.125, 1e16 + 2]))


@given(order=st.sampled_from(["desc", "asc"]),
       results=st.lists(st.tuples(players, float_points, st.sampled_from(["set", "incr", "best"])), max_size=8))
@settings(max_examples=100, deadline=None)
def test_float_points_print_as_lua_prints_them(order, results):
    """A board without a tie-break holds any finite points: every score and
    points value the scripts print (%.17g) reads the same on both paths."""
    name = f"floats{next(_names)}"

    def play_floats(engine):
        board = Leaderboard(engine, name, order=order, tiebreak=None, ranking="dense")
        replies = []
        for player, points, rule in results:
            try:
                replies.append(board.submit(player, points, rule=rule, with_rank=True))
            except ValueError as exc:
                replies.append(("ValueError", str(exc)))
        replies.append(board.page(1, 10, ranking="competition"))
        replies.append(board.around("ann", 3))
        replies.append(board.friends("ann", ["bob", "cy", 7]))
        replies.append([board.rank(p, ranking=r) for p in ("ann", "bob") for r in ("ordinal", "dense")])
        replies.append(board.percentile("bob"))
        return replies

    on_both_paths(play_floats)


READS = [
    lambda b: b.rank("ann"), lambda b: b.rank("ann", ranking="competition"), lambda b: b.percentile("ann"),
    lambda b: b.around("ann", 1, with_info=True), lambda b: b.page(1, 2, ranking="dense", with_info=True),
    lambda b: b.friends("ann", ["bob"], with_info=True), lambda b: b.top(2, with_info=True),
    lambda b: b.submit("ann", 1, at=2, with_rank=True), lambda b: b.remove("bob"),
]


@pytest.mark.parametrize("suffix", ["", ":dense", ":counts", ":meta", ":info"])
@pytest.mark.parametrize("read", range(len(READS)))
def test_a_key_of_another_type_answers_as_lua(suffix, read):
    """Whichever of the five keys holds a string, each method answers on the
    native path exactly as the Lua script does (WRONGTYPE where the script
    touches that key, the reply where it does not)."""
    results = []
    for native in (False, True):
        engine = Engine()
        board = Leaderboard(engine, "odd", ranking="dense")
        board.submit("ann", 3, at=1)
        board.submit("bob", 5, at=1)
        board.set_info("ann", {"n": 1})
        engine.delete("{lb:odd}" + suffix)
        engine.set("{lb:odd}" + suffix, "x")
        with mock.patch.dict(NATIVE_SCRIPTS, clear=not native):
            try:
                outcome: object = READS[read](board)
            except Exception as exc:  # noqa: BLE001  (compared below, class and text)
                outcome = (type(exc), str(exc))
        odd = engine.get("{lb:odd}" + suffix)
        engine.delete("{lb:odd}" + suffix)  # (keyspace() reads the others)
        results.append((outcome, odd, keyspace(engine)))
    assert results[0] == results[1]


@given(config=configs, ranking=st.sampled_from(["ordinal", "competition", "dense"]),
       base=st.lists(st.integers(0, 20), min_size=140, max_size=160),
       results=st.lists(st.tuples(st.integers(0, 170), st.integers(-25, 25),
                                  st.sampled_from(["incr", "decr", "best", "set"]), st.integers(0, 9)),
                        min_size=1, max_size=25))
@settings(max_examples=60, deadline=None)
def test_ranked_submits_on_a_skip_list_board_answer_as_lua(config, ranking, base, results):
    """More than 128 players: the board is a skip list, where a submit with a
    rank style reads the player's places before and after from the write's own
    walk. Ranks, previous ranks and the players passed equal the Lua script's."""
    order, tiebreak = config
    name = f"ranked{next(_names)}"

    def play_ranked(engine):
        board = Leaderboard(engine, name, order=order, tiebreak=tiebreak, ranking=ranking, passed=4)
        board.submit_many([(f"p{i}", points) for i, points in enumerate(base)], at=5)
        replies = []
        for player, points, rule, at in results:
            try:
                replies.append(board.submit(f"p{player}", points, rule=rule, at=at, with_rank=True))
            except ValueError as exc:
                replies.append(("ValueError", str(exc)))
        return replies

    native = on_both_paths(play_ranked)
    assert type(native.lookup(f"{{lb:{name}}}".encode())).__name__ == "SortedSet"  # not a listpack


@pytest.mark.parametrize("order", ["desc", "asc"])
@pytest.mark.parametrize("tiebreak", ["earliest", "latest", None])
@pytest.mark.parametrize("ranking", ["ordinal", "competition", "dense"])
def test_friends_of_many_players_answer_as_lua(order, tiebreak, ranking):
    """friends over more players than one lookup batch (16): present and absent
    players, repeats, ties of points, every order, tie-break and style."""
    def run(engine):
        board = Leaderboard(engine, "many", order=order, tiebreak=tiebreak, ranking=ranking)
        out = [board.friends("p0", [f"p{k}" for k in range(40)])]  # no board yet
        for k in range(60):
            board.submit(f"p{k}", (k * 7) % 13 - 4, at=k % 5)
        out.append(board.friends("p3", [f"p{k}" for k in range(0, 90, 2)] + ["p3", "p5", "p5", "x"]))
        out.append(board.friends("p1", [f"p{k}" for k in range(59, 20, -1)], with_info=True))
        board.remove("p4")
        out.append(board.friends("p4", [f"p{k}" for k in range(33)]))
        return out
    on_both_paths(run)


@pytest.mark.parametrize("order", ["desc", "asc"])
@pytest.mark.parametrize("tiebreak", ["earliest", None])
def test_friends_on_a_board_big_enough_for_lock_step_descents(order, tiebreak):
    """From 65,536 members the native friends runs its rank descents in lock
    step (board_scripts.pxi's _friends_batched): still Lua's answers."""
    def run(engine):
        board = Leaderboard(engine, "big", order=order, tiebreak=tiebreak, ranking="dense")
        n = 70_000
        for first in range(0, n, 2_000):
            board.submit_many([(f"p{k}", (k * 7919) % 90_001 - 45_000) for k in range(first, first + 2_000)],
                              at=first // 10_000)
        friends = [f"p{(k * 4099) % (n + 50)}" for k in range(70)] + ["p5", "p5", "nobody"]
        return [board.friends("p1", friends, ranking=ranking) for ranking in ("ordinal", "competition", "dense")]
    on_both_paths(run)
