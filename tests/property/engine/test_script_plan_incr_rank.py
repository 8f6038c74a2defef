"""A ZINCRBY followed by ZRANK/ZREVRANK of the same key and member, in a
straight-line script: the plan reads the rank off the increment's own walk
(engine/native/script_plans.pxi, ``_incr_ranked``). Twin Engines, one with plans and
one running every script in Lua, must give the same replies, errors and
keyspace: on a skip-list zset (where the shortcut runs), a listpack, a key
with a TTL, a key of another type, a missing key or member, increments that
are not plain decimals or that make NaN, and pairs that do not match."""
from __future__ import annotations

from typing import Any, List

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine
from fastrank.engine.commands.scripting import set_script_plans
from fastrank.engine.lua.plans import compile_plan
from fastrank.engine.commands.scripting import scripting

PAIRS = [
    "redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])\nreturn redis.call('zrevrank', KEYS[1], ARGV[2])",
    "redis.call('ZINCRBY', KEYS[1], ARGV[1], ARGV[2]) return redis.call('ZRANK', KEYS[1], ARGV[2])",
    "redis.call('zincrby', 'big', ARGV[1], 'm7')\nreturn redis.call('zrevrank', 'big', 'm7')",
    "redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])\nredis.call('zrevrank', KEYS[1], ARGV[2])",
    "redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])\nredis.call('zrevrank', KEYS[1], ARGV[2])\n"
    "return redis.call('zscore', KEYS[1], ARGV[2])",
    # not the same key or member: both steps run as usual
    "redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])\nreturn redis.call('zrevrank', KEYS[1], ARGV[3])",
    "redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])\nreturn redis.call('zrevrank', 'big', ARGV[2])",
]
KEYS = ["big", "small", "ttl", "text", "none"]
MEMBERS = ["m7", "m150", "m0", "s1", "absent", "huge", "neg"]
INCREMENTS = ["1", "-3", "2.5", "100", "0", "abc", "+5", " 1", "inf", "-inf", "1e400", "1e-300", "0.1",
              "-0", "1.", ".5"]


def _fill(engine: Engine) -> None:
    engine.zadd("big", {f"m{i}": i % 40 for i in range(200)})  # a skip list, many ties
    engine.zadd("big", {"huge": 1e300, "neg": float("-inf")})
    engine.zadd("small", {"s1": 1, "s2": 2})  # a listpack
    engine.zadd("ttl", {f"m{i}": i for i in range(200)})
    engine.expire("ttl", 1000)
    engine.set("text", "x")


def _keyspace(engine: Engine) -> List[Any]:
    return [engine.zrange(k, 0, -1, withscores=True) for k in ("big", "small", "ttl")] + [engine.get("text")]


def _outcome(engine: Engine, script: str, key: str, args: List[str], read_only: bool) -> Any:
    try:
        if read_only:
            return engine.eval_ro(script, 1, key, *args)
        return engine.eval(script, 1, key, *args)
    except Exception as exc:  # noqa: BLE001  (class and text compared)
        return type(exc), str(exc)


@given(steps=st.lists(st.tuples(st.sampled_from(PAIRS), st.sampled_from(KEYS), st.sampled_from(INCREMENTS),
                                st.sampled_from(MEMBERS), st.sampled_from(MEMBERS),
                                st.booleans()), min_size=1, max_size=12))
@settings(max_examples=200, deadline=None)
def test_incr_then_rank_answers_as_lua(steps):
    planned, lua = Engine(), Engine()
    set_script_plans(lua, False)
    for engine in (planned, lua):
        _fill(engine)
    for script, key, amount, member, other, read_only in steps:
        args = [amount, member, other]
        assert _outcome(planned, script, key, args, read_only) == _outcome(lua, script, key, args, read_only)
        assert _keyspace(planned) == _keyspace(lua)


def test_which_pairs_are_marked():
    engine = Engine()
    lua = scripting(engine)
    marks = [[step.rank_next for step in compile_plan(lua, script.encode()).steps] for script in PAIRS]
    assert marks == [[2, 0], [1, 0], [2, 0], [2, 0], [2, 0, 0], [0, 0], [0, 0]]


def test_the_rank_is_the_one_after_the_increment():
    engine = Engine()
    engine.zadd("big", {f"m{i}": i for i in range(300)})
    script = engine.register_script(PAIRS[0])
    assert script(keys=["big"], args=[1000, "m0"]) == 0
    assert script(keys=["big"], args=[-2000, "m0"]) == 299
    assert script(keys=["big"], args=[0.5, "m10"]) == 289  # keeps its place (between m10 and m11)
    assert engine.zrevrank("big", "m10") == 289
