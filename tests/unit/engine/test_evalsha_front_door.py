"""Engine.evalsha (the compiled front door, engine/native/script_front_door.pxi) answers
exactly what redis-py's own evalsha -- the EVALSHA handler through
execute_command -- answers: replies, exception classes and texts, keyspace."""
import pytest
from redis.commands.core import CoreCommands

from fastrank import Engine, Leaderboard
from fastrank.runner import packaged_script

SCRIPTS = [
    "return {KEYS[1], ARGV[1], 7, false}",
    "return redis.call('INCRBY', KEYS[1], ARGV[1])",
    "return redis.error_reply('MY failure')",
    "return redis.call('ZADD', KEYS[1], 'x', 'm')",
    "#!lua flags=no-writes\nreturn redis.call('GET', KEYS[1])",
]
CALLS = [
    (1, ("k", 5)), (1, (b"k", b"x")), (0, ()), (2, ("k",)), (-1, ("k",)), (1, ("k", 2 ** 70)),
    (1, ("k", 1.5)), (1, ("k", None)), ("1", ("k", 3)), (True, ("k", 3)), (1, ("é", "\udcff")),
]


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # the exception class and text are part of the answer
        return ("exc", type(exc), str(exc))


@pytest.mark.parametrize("decode", [False, True])
@pytest.mark.parametrize("body", SCRIPTS)
def test_front_door_equals_the_generic_path(body, decode):
    fast, generic = Engine(decode_responses=decode), Engine(decode_responses=decode)
    for engine in (fast, generic):
        engine.set("k", "1")
    sha = fast.script_load(body)
    assert generic.script_load(body) == sha
    for numkeys, words in CALLS:
        got = outcome(lambda: fast.evalsha(sha, numkeys, *words))
        want = outcome(lambda: CoreCommands.evalsha(generic, sha, numkeys, *words))
        assert got == want
        assert fast.get("k") == generic.get("k")
    for engine in (fast, generic):  # a script not cached: NOSCRIPT either way
        engine.script_flush()
    assert outcome(lambda: fast.evalsha(sha, 1, "k", 1)) == \
        outcome(lambda: CoreCommands.evalsha(generic, sha, 1, "k", 1))


def test_a_board_script_through_either_door():
    """A shipped leaderboard script (its native path) answers alike through both."""
    boards = []
    for _ in range(2):
        engine = Engine()
        board = Leaderboard(engine, "b", ranking="dense")
        board.submit_many([("ann", 5), ("bob", 7), ("cy", 5)], at=1)
        boards.append((engine, board))
    (fast, board), (generic, _) = boards
    sha = packaged_script("standing").sha
    keys = board._encoded(board.keys())
    for player in ("ann", "bob", "zed"):
        for style in ("o", "c", "d", "p", "?"):
            words = (*keys, *board.script_config, player, style)
            assert outcome(lambda: fast.evalsha(sha, 5, *words)) == \
                outcome(lambda: CoreCommands.evalsha(generic, sha, 5, *words))


def test_int_arguments_reach_a_script_as_their_decimal_text():
    """An int argument is formatted in C (fr_zset_format_i64) by the front
    door and by the command path: the same text redis-py sends, at every
    digit count and at the 64-bit ends (past them, Python formats it)."""
    engine = Engine()
    values = [0, 1, -1, 9, 10, -10, 99, 100, 2 ** 63 - 1, -2 ** 63, 2 ** 63, -2 ** 63 - 1]
    values += [sign * 10 ** k + delta for k in range(1, 19) for delta in (-1, 0, 1) for sign in (1, -1)]
    sha = engine.script_load("return ARGV")
    expected = [str(v).encode() for v in values]
    assert engine.evalsha(sha, 0, *values) == expected  # the front door
    assert engine.eval("return ARGV", 0, *values) == expected  # the command path
