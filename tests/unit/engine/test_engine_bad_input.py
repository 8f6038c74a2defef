"""Malformed calls get Redis 7.0's exact error (verified on redis-server 7.0.15)
and leave the data unchanged."""
import copy

import pytest


import redis  # noqa: E402

from fastrank import errors as E  # noqa: E402
from fastrank.engine import Engine  # noqa: E402

ARITY = E.WRONG_ARITY

CASES = [
    # (command words, error line)
    (("ZADD", "z"), ARITY % "zadd"),
    (("ZADD", "z", 1), ARITY % "zadd"),
    (("ZADD", "z", "XX"), ARITY % "zadd"),
    (("ZADD", "z", "XX", 1), E.SYNTAX),
    (("ZADD", "z", "XX", "NX", 1), E.SYNTAX),
    (("ZADD", "z", "NX", "XX", 1, "a"), E.ZADD_XX_NX),
    (("ZADD", "z", "GT", "LT", 1, "a"), E.ZADD_GT_LT_NX),
    (("ZADD", "z", "NX", "GT", 1, "a"), E.ZADD_GT_LT_NX),
    (("ZADD", "z", "INCR", 1, "a", 2, "b"), E.ZADD_INCR_PAIRS),
    (("ZADD", "z", 1, "a", "abc", "b"), E.NOT_FLOAT),
    (("ZADD", "z", "nan", "a"), E.NOT_FLOAT),
    (("ZADD", "z", "1e400", "a"), E.NOT_FLOAT),
    (("ZADD", "z", "1e-400", "a"), E.NOT_FLOAT),
    (("ZADD", "z", " 1", "a"), E.NOT_FLOAT),
    (("ZADD", "str", "abc", "a"), E.NOT_FLOAT),
    (("ZADD", "str", 1, "a"), E.WRONGTYPE),
    (("ZADD", "inf", "INCR", "-inf", "a"), E.SCORE_NAN),
    (("ZINCRBY", "inf", "-inf", "a"), E.SCORE_NAN),
    (("ZINCRBY", "z", "nx", "a"), E.SYNTAX),
    (("ZINCRBY", "z", 1), ARITY % "zincrby"),
    (("ZRANK", "z", "a", "WITHSCORE"), ARITY % "zrank"),
    (("ZMSCORE", "z"), ARITY % "zmscore"),
    (("ZCOUNT", "str", "x", "1"), E.MIN_MAX_NOT_FLOAT),
    (("ZCOUNT", "z", "[1", "2"), E.MIN_MAX_NOT_FLOAT),
    (("ZRANGEBYLEX", "z", "a", "c"), E.MIN_MAX_NOT_LEX),
    (("ZRANGEBYLEX", "z", "-x", "+"), E.MIN_MAX_NOT_LEX),
    (("ZRANGE", "z", 0, -1, "LIMIT", 0, 1), E.ZRANGE_LIMIT),
    (("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"), E.ZRANGE_WITHSCORES_BYLEX),
    (("ZRANGE", "z", "x", 1), E.NOT_INTEGER),
    (("ZRANGE", "z", 0, -1, "FOO"), E.SYNTAX),
    (("ZREVRANGE", "z", 0, 1, "REV"), E.SYNTAX),
    (("ZRANGEBYSCORE", "z", 0, 1, "LIMIT", 0), E.SYNTAX),
    (("ZRANGEBYSCORE", "z", 0, 1, "LIMIT", "x", 1), E.NOT_INTEGER),
    (("ZRANGE", "str", 0, -1), E.WRONGTYPE),
    (("ZREMRANGEBYSCORE", "z", "x", "y"), E.MIN_MAX_NOT_FLOAT),
    (("ZREMRANGEBYRANK", "z", "x", 0), E.NOT_INTEGER),
    (("ZPOPMIN", "z", -1), E.OUT_OF_RANGE_POSITIVE),
    (("ZPOPMIN", "z", "x"), E.OUT_OF_RANGE_POSITIVE),
    (("ZPOPMIN", "z", 1, 2), E.SYNTAX),
    (("ZMPOP", 0, "z", "MIN"), E.NUMKEYS_POSITIVE),
    (("ZMPOP", 1, "z", "FOO"), E.SYNTAX),
    (("ZMPOP", 1, "z", "MIN", "COUNT", 0), E.COUNT_POSITIVE),
    (("BZPOPMIN", "z", "x"), E.TIMEOUT_NOT_FLOAT),
    (("BZPOPMIN", "z", "-1"), E.TIMEOUT_NEGATIVE),
    (("ZUNIONSTORE", "out", 0, "z"), E.AT_LEAST_ONE_KEY % "zunionstore"),
    (("ZINTERSTORE", "out", 0, "z"), E.AT_LEAST_ONE_KEY % "zinterstore"),
    (("ZUNIONSTORE", "out", 3, "z"), E.SYNTAX),
    (("ZUNIONSTORE", "out", "x", "z"), E.NOT_INTEGER),
    (("ZUNIONSTORE", "out", 1, "z", "WEIGHTS", "x"), E.WEIGHT_NOT_FLOAT),
    (("ZUNIONSTORE", "out", 2, "z", "inf", "WEIGHTS", 1), E.SYNTAX),
    (("ZUNIONSTORE", "out", 1, "z", "AGGREGATE", "AVG"), E.SYNTAX),
    (("ZUNIONSTORE", "out", 2, "z", "str"), E.WRONGTYPE),
    (("ZDIFF", 2, "z", "inf", "WEIGHTS", 1, 2), E.SYNTAX),
    (("ZINTERCARD", 1, "z", "LIMIT", -1), E.LIMIT_POSITIVE),
    (("ZRANDMEMBER", "z", 1, "FOO"), E.SYNTAX),
    (("ZRANDMEMBER", "z", "-9223372036854775808"), E.ZRANDMEMBER_COUNT_RANGE),
    (("ZSCAN", "z", 0, "COUNT", 0), E.SYNTAX),
    (("INCR", "str"), E.NOT_INTEGER),
    (("INCRBY", "n", "1.5"), E.NOT_INTEGER),
    (("INCRBY", "n", "9223372036854775807"), E.OVERFLOW),
    (("DECRBY", "n", "-9223372036854775808"), E.DECR_OVERFLOW),
    (("INCRBYFLOAT", "n", "nan"), E.NOT_FLOAT),
    (("INCRBYFLOAT", "n", "inf"), E.NAN_OR_INF),
    (("INCR", "z"), E.WRONGTYPE),
    (("SET", "n", "v", "NX", "XX"), E.SYNTAX),
    (("SET", "n", "v", "EX", 0), E.INVALID_EXPIRE % "set"),
    (("SET", "n", "v", "EX", "x"), E.NOT_INTEGER),
    (("SET", "n", "v", "KEEPTTL", "EX", 5), E.SYNTAX),
    (("SET", "n"), ARITY % "set"),
    (("MSET", "a", 1, "b"), ARITY % "mset"),
    (("GETRANGE", "str", "x", 1), E.NOT_INTEGER),
    (("SETRANGE", "str", -1, "x"), E.OFFSET_OUT_OF_RANGE),
    (("EXPIRE", "n", "1.5"), E.NOT_INTEGER),
    (("EXPIRE", "n", 5, "NX", "XX"), E.EXPIRE_NX_AND_OTHERS),
    (("EXPIRE", "n", 5, "GT", "LT"), E.EXPIRE_GT_AND_LT),
    (("EXPIRE", "n", 9223372036854775807), E.INVALID_EXPIRE % "expire"),
    (("RENAME", "nokey", "x"), E.NO_SUCH_KEY),
    (("HSET", "h", "a"), ARITY % "hset"),
    (("HINCRBY", "h", "f", "x"), E.NOT_INTEGER),
    (("HINCRBY", "h", "t", 1), E.HASH_NOT_INTEGER),
    (("HINCRBYFLOAT", "h", "t", 1), E.HASH_NOT_FLOAT),
    (("SADD", "z", "x"), E.WRONGTYPE),
    (("SCAN", "x"), E.INVALID_CURSOR),
    (("FLUSHDB", "x"), E.SYNTAX),
    (("PING", "a", "b"), ARITY % "ping"),
    (("GET",), ARITY % "get"),
]


def populated():
    engine = Engine()
    engine.zadd("z", {"a": 1, "b": 2, "c": 3})
    engine.zadd("inf", {"a": float("inf")})
    engine.set("str", "abc")
    engine.set("n", 10)
    engine.hset("h", mapping={"t": "abc"})
    return engine


def snapshot(engine):
    out = {}
    for key, value in engine._data.items():
        out[key] = value.items() if hasattr(value, "_check") else copy.deepcopy(value)
    return out, dict(engine._expires)


@pytest.mark.parametrize("words, line", CASES, ids=[" ".join(map(str, c[0])) for c in CASES])
def test_bad_input_error_and_no_change(words, line):
    engine = populated()
    before = snapshot(engine)
    with pytest.raises(redis.ResponseError) as info:
        engine.execute_command(*words)
    assert str(info.value) == E.message(line)
    assert snapshot(engine) == before


def test_unknown_command_text():
    engine = Engine()
    with pytest.raises(redis.ResponseError) as info:
        engine.execute_command("NOSUCHCMD", "x")
    assert str(info.value) == "unknown command 'NOSUCHCMD', with args beginning with: 'x' "


@pytest.mark.parametrize("bad", [True, None, 1j, object()])
def test_client_side_data_errors(bad):
    engine = populated()
    before = snapshot(engine)
    for call in (lambda: engine.zadd("z", {"a": bad}), lambda: engine.zincrby("z", bad, "a"),
                 lambda: engine.zscore("z", bad), lambda: engine.incrby("n", bad),
                 lambda: engine.set(bad, 1)):
        with pytest.raises(redis.DataError):
            call()
    assert snapshot(engine) == before
    with pytest.raises(redis.DataError, match="ZADD requires at least one element/score pair"):
        engine.zadd("z", {})
