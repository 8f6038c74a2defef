"""Random submits on every backend agree with the Python model: points by each
rule, order by points then tie-break, and the three ranking styles everywhere."""
from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrank import Leaderboard
from board_model import ModelBoard

_names = itertools.count()

players = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "Bob", "b"])
ops = st.lists(st.tuples(players, st.integers(-40, 40), st.integers(0, 6),
                         st.sampled_from(["incr", "decr", "best", "set", "remove"])), max_size=25)
configs = st.tuples(st.sampled_from(["desc", "asc"]), st.sampled_from(["earliest", "latest", None]))
STYLES = ("ordinal", "competition", "dense")


@given(config=configs, steps=ops)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_board_matches_model(client, config, steps):
    order, tiebreak = config
    board = Leaderboard(client, f"model{next(_names)}", order=order, tiebreak=tiebreak, ranking="dense")
    model = ModelBoard(order, tiebreak)
    for player, points, tick, rule in steps:
        if rule == "remove":
            assert board.remove(player) == model.remove(player)
        else:
            assert board.submit(player, points, at=tick, rule=rule) == model.submit(player, points, tick, rule)
    for style in STYLES:
        expected = model.entries(style)
        got = [(e.rank, e.player, e.points) for e in board.iter(batch=3, ranking=style)]
        assert got == expected, style
        assert [board.rank(name, ranking=style) for name in ["ann", "bob", "cy", "zed"]] == \
            [model.rank(name, style) for name in ["ann", "bob", "cy", "zed"]]
    # the dense companion holds exactly the distinct values with their counts
    keys = board.keys()
    values = [p for p, _ in model.players.values()]
    counts = {k.decode(): int(v) for k, v in client.hgetall(keys[2]).items()}
    assert counts == {str(p): values.count(p) for p in set(values)}
    assert sorted(float(s) for _, s in client.zrange(keys[1], 0, -1, withscores=True)) == sorted(set(values))


@given(config=configs, steps=ops, size=st.integers(1, 4), radius=st.integers(0, 3))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_slices_match_model(client, config, steps, size, radius):
    order, tiebreak = config
    boards = {style: Leaderboard(client, f"slices{next(_names)}", order=order, tiebreak=tiebreak, ranking=style)
              for style in STYLES}
    model = ModelBoard(order, tiebreak)
    for player, points, tick, rule in steps:
        if rule == "remove":
            model.remove(player)
            for board in boards.values():
                board.remove(player)
        else:
            model.submit(player, points, tick, rule)
            for board in boards.values():
                board.submit(player, points, at=tick, rule=rule)
    for style, board in boards.items():
        expected = model.entries(style)
        assert [tuple(e[:3]) for e in board.top(size)] == expected[:size]
        for number in (1, 2, 3):
            assert [tuple(e[:3]) for e in board.page(number, size)] == \
                expected[(number - 1) * size: number * size]
        for name in ("ann", "cy"):
            where = model.rank(name, "ordinal")
            window = [] if where is None else expected[max(where - 1 - radius, 0): where + radius]
            assert [tuple(e[:3]) for e in board.around(name, radius)] == window
        friends = ["cy", "eve", "zed", "b"]
        circle = [name for name in model.ordered() if name in {"bob", *friends}]
        got = board.friends("bob", friends)
        assert [e.player for e in got] == circle
        assert [e.global_rank for e in got] == [model.rank(name, style) for name in circle]
        sub = ModelBoard(order, tiebreak)
        sub.players = {name: model.players[name] for name in circle}
        assert [e.rank for e in got] == [sub.rank(name, style) for name in circle]
        assert board.count() == len(model.players)
