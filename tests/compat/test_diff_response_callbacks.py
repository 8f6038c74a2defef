"""redis-py's response callbacks on the Engine: a callback set by the user
is handed the reply in the shape the server sends it, for every command,
including those the Engine answers through a compiled front door (ZSCORE,
ZINCRBY, ZRANK, ZRANGE, INCRBY, HINCRBY, HSET, ZADD...). Each test runs on
the Engine and on the real server with the same expectation.

"The shape the server sends" is the shape redis-py 8.1's parser hands over
for a client made with default options (``protocol=None``,
``legacy_responses=True``), which is what the Engine stands in for: such a
client speaks RESP3 to the server (``HELLO 3``), so a ZSCORE reaches its
callback as the double ``1.5``, a WITHSCORES range as ``[[member, score],
...]``, HGETALL as a dict; the stock callbacks (redis-py's RESP3-to-legacy
table) then turn those into the legacy Python shapes.
``test_redis_py_speaks_resp3_with_default_options`` pins that premise: if
redis-py's default changes, it fails first.

``RAW_CASES`` is the table of the commands whose stock callback converts,
or whose raw reply has a shape of its own (doubles, maps, sets, nested
pairs, status replies), of every type the Engine has: sorted sets, strings,
hashes, sets, HyperLogLogs, scripting, keys. Each is run with a recording
callback and with ``response_callbacks = {}``, directly, in pipelines
(transaction and not) and through the asyncio faces."""
from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, List, Tuple

import pytest
import redis
import redis.asyncio

import fastrank
import fastrank.asyncio as fa

#: (the method call, the command word whose callback it reaches)
CALLS = [
    (lambda c: c.zscore("z", "a"), "ZSCORE"),
    (lambda c: c.zincrby("z", 2, "a"), "ZINCRBY"),
    (lambda c: c.zrank("z", "a"), "ZRANK"),
    (lambda c: c.zrevrank("z", "a"), "ZREVRANK"),
    (lambda c: c.zrange("z", 0, -1, withscores=True), "ZRANGE"),
    (lambda c: c.zrevrange("z", 0, -1), "ZREVRANGE"),
    (lambda c: c.incrby("n", 5), "INCRBY"),
    (lambda c: c.incr("n"), "INCRBY"),
    (lambda c: c.hincrby("h", "f", 3), "HINCRBY"),
    (lambda c: c.hset("h", "g", "v"), "HSET"),
    (lambda c: c.hset("h", mapping={"x": "1", "y": "2"}), "HSET"),
    (lambda c: c.zadd("z", {"c": 3}), "ZADD"),
    (lambda c: c.zadd("z", {f"m{i}": i for i in range(40)}), "ZADD"),
    (lambda c: c.zcount("z", 0, 10), "ZCOUNT"),
    (lambda c: c.zrangebyscore("z", 0, 10, withscores=True), "ZRANGEBYSCORE"),
    (lambda c: c.get("s"), "GET"),
]


def _fill(c) -> None:
    c.zadd("z", {"a": 1.5, "b": 2})
    c.set("n", 10)
    c.set("s", "text")
    c.hset("h", "f", 1)


def _handed_and_result(client, call, word):
    _fill(client)
    handed = []

    def callback(response, **options):
        handed.append(response)
        return ("wrapped", response)

    client.set_response_callback(word, callback)
    return handed, call(client)


@pytest.mark.redis
@pytest.mark.parametrize("call,word", CALLS, ids=[f"{w}-{i}" for i, (_, w) in enumerate(CALLS)])
def test_a_user_callback_is_handed_what_the_server_sends(engine, redis_client, call, word):
    ours = _handed_and_result(engine, call, word)
    theirs = _handed_and_result(redis_client, call, word)
    assert len(theirs[0]) == 1 and theirs[1] == ("wrapped", theirs[0][0])
    assert ours == theirs


@pytest.mark.redis
@pytest.mark.parametrize("call,word", CALLS, ids=[f"{w}-{i}" for i, (_, w) in enumerate(CALLS)])
def test_no_callbacks_at_all_gives_the_raw_replies(engine, redis_client, call, word):
    results = []
    for client in (engine, redis_client):
        _fill(client)
        client.response_callbacks = {}
        results.append(call(client))
    assert results[0] == results[1]


def test_the_front_doors_answer_again_on_a_new_engine_and_callbacks_of_other_commands_keep_them(engine):
    """A callback of a command no front door answers leaves the front doors
    on; a new Engine starts with redis-py's callbacks."""
    import fastrank

    engine.set_response_callback("PING", lambda response, **options: response)
    assert engine._fast.stock_callbacks
    engine.set_response_callback("zscore", lambda response, **options: response)
    assert not engine._fast.stock_callbacks
    assert fastrank.Engine()._fast.stock_callbacks


# -- the whole table ---------------------------------------------------------------

#: A script whose reply mixes an integer, a bulk string and a ZSCORE's reply
#: as the script sees it, and one that answers a Lua number (truncated).
_SCRIPT = "return {1, 'x', redis.call('ZSCORE', KEYS[1], 'a'), redis.call('ZRANK', KEYS[1], 'b')}"

#: (command words, the callback's name, unordered reply): every word of the
#: command is packed as redis-py packs it; the callback is looked up by the
#: name as redis-py looks it up (the first word, or "SCRIPT LOAD"...).
RAW_CASES: List[Tuple[tuple, str, bool]] = [
    # sorted sets: doubles, ranks, WITHSCORES pairs, maps of pops
    (("ZSCORE", "z", "a"), "ZSCORE", False),
    (("ZSCORE", "z", "third"), "ZSCORE", False),
    (("ZSCORE", "z", "big"), "ZSCORE", False),
    (("ZSCORE", "z", "top"), "ZSCORE", False),
    (("ZSCORE", "z", "bottom"), "ZSCORE", False),
    (("ZSCORE", "z", "zero"), "ZSCORE", False),
    (("ZSCORE", "z", "missing"), "ZSCORE", False),
    (("ZMSCORE", "z", "a", "missing", "third"), "ZMSCORE", False),
    (("ZINCRBY", "z", "0.1", "a"), "ZINCRBY", False),
    (("ZINCRBY", "z", "-1e300", "big"), "ZINCRBY", False),
    (("ZRANK", "z", "b"), "ZRANK", False),
    (("ZRANK", "z", "missing"), "ZRANK", False),
    (("ZREVRANK", "z", "a"), "ZREVRANK", False),
    (("ZRANGE", "z", 0, -1), "ZRANGE", False),
    (("ZRANGE", "z", 0, -1, "WITHSCORES"), "ZRANGE", False),
    (("ZRANGE", "z", "(1", "+inf", "BYSCORE", "WITHSCORES"), "ZRANGE", False),
    (("ZREVRANGE", "z", 0, 2, "WITHSCORES"), "ZREVRANGE", False),
    (("ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES"), "ZRANGEBYSCORE", False),
    (("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES", "LIMIT", 1, 3), "ZREVRANGEBYSCORE", False),
    (("ZRANGEBYLEX", "lex", "-", "+"), "ZRANGEBYLEX", False),
    (("ZREVRANGEBYLEX", "lex", "+", "-"), "ZREVRANGEBYLEX", False),
    (("ZCOUNT", "z", 0, 10), "ZCOUNT", False),
    (("ZLEXCOUNT", "lex", "-", "+"), "ZLEXCOUNT", False),
    (("ZCARD", "z"), "ZCARD", False),
    (("ZADD", "z", 1, "new"), "ZADD", False),
    (("ZADD", "z", "INCR", "2.5", "new"), "ZADD", False),
    (("ZADD", "z", "NX", "INCR", 1, "new"), "ZADD", False),
    (("ZADD", "z", "CH", 7, "new", 8, "newer"), "ZADD", False),
    (("ZREM", "z", "new", "missing"), "ZREM", False),
    (("ZPOPMIN", "z"), "ZPOPMIN", False),
    (("ZPOPMAX", "z", 2), "ZPOPMAX", False),
    (("ZPOPMIN", "missing"), "ZPOPMIN", False),
    (("BZPOPMIN", "z", 0.01), "BZPOPMIN", False),
    (("BZPOPMAX", "missing", 0.01), "BZPOPMAX", False),
    (("ZMPOP", 1, "z", "MIN", "COUNT", 2), "ZMPOP", False),
    (("BZMPOP", 0.01, 2, "missing", "z", "MAX"), "BZMPOP", False),
    (("ZRANDMEMBER", "single", 1, "WITHSCORES"), "ZRANDMEMBER", False),
    (("ZRANDMEMBER", "single"), "ZRANDMEMBER", False),
    (("ZUNION", 2, "z", "single", "WITHSCORES"), "ZUNION", False),
    (("ZINTER", 2, "z", "single", "WITHSCORES"), "ZINTER", False),
    (("ZDIFF", 2, "z", "single", "WITHSCORES"), "ZDIFF", False),
    (("ZUNIONSTORE", "dest", 2, "z", "single", "WEIGHTS", 2, 0.5), "ZUNIONSTORE", False),
    (("ZRANGESTORE", "dest", "z", 0, 1), "ZRANGESTORE", False),
    (("ZREMRANGEBYRANK", "z", 0, 0), "ZREMRANGEBYRANK", False),
    (("ZSCAN", "single", 0), "ZSCAN", False),
    # strings: status replies, doubles as bulk strings, integers
    (("SET", "s", "text"), "SET", False),
    (("SET", "s", "other", "GET"), "SET", False),
    (("SET", "s", "other", "NX"), "SET", False),
    (("GET", "s"), "GET", False),
    (("GET", "missing"), "GET", False),
    (("GETSET", "s", "third"), "GETSET", False),
    (("MSET", "m1", "1", "m2", "2"), "MSET", False),
    (("MSETNX", "m1", "1"), "MSETNX", False),
    (("MGET", "m1", "missing", "m2"), "MGET", False),
    (("SETNX", "s", "v"), "SETNX", False),
    (("SETEX", "ttl", 100, "v"), "SETEX", False),
    (("PSETEX", "pttl", 100000, "v"), "PSETEX", False),
    (("INCR", "n"), "INCR", False),
    (("INCRBY", "n", 5), "INCRBY", False),
    (("DECRBY", "n", 2), "DECRBY", False),
    (("INCRBYFLOAT", "n", "1.5"), "INCRBYFLOAT", False),
    (("INCRBYFLOAT", "f", "0.1"), "INCRBYFLOAT", False),
    (("APPEND", "s", "zz"), "APPEND", False),
    (("STRLEN", "s"), "STRLEN", False),
    (("GETRANGE", "s", 0, 1), "GETRANGE", False),
    (("SETRANGE", "s", 1, "Q"), "SETRANGE", False),
    (("GETDEL", "pttl"), "GETDEL", False),
    (("GETEX", "ttl"), "GETEX", False),
    # hashes: maps, doubles as bulk strings, booleans as integers
    (("HSET", "h", "g", "2.5", "x", "y"), "HSET", False),
    (("HGET", "h", "f"), "HGET", False),
    (("HGETALL", "h"), "HGETALL", False),
    (("HGETALL", "missing"), "HGETALL", False),
    (("HMSET", "h", "k", "1"), "HMSET", False),
    (("HEXISTS", "h", "f"), "HEXISTS", False),
    (("HSETNX", "h", "f", "9"), "HSETNX", False),
    (("HINCRBY", "h", "f", 2), "HINCRBY", False),
    (("HINCRBYFLOAT", "h", "f", "0.5"), "HINCRBYFLOAT", False),
    (("HKEYS", "h"), "HKEYS", False),
    (("HVALS", "h"), "HVALS", False),
    (("HLEN", "h"), "HLEN", False),
    (("HMGET", "h", "f", "missing"), "HMGET", False),
    (("HSTRLEN", "h", "f"), "HSTRLEN", False),
    (("HDEL", "h", "x", "missing"), "HDEL", False),
    (("HSCAN", "h", 0), "HSCAN", False),
    (("HRANDFIELD", "h", 5), "HRANDFIELD", False),  # count covers the hash: determined
    (("HRANDFIELD", "h", 5, "WITHVALUES"), "HRANDFIELD", False),  # RESP3: [field, value] pairs
    # sets: RESP3 sets (unordered), booleans, moves
    (("SADD", "set", "a", "b", "c"), "SADD", False),
    (("SMEMBERS", "set"), "SMEMBERS", True),
    (("SMEMBERS", "missing"), "SMEMBERS", False),
    (("SISMEMBER", "set", "a"), "SISMEMBER", False),
    (("SMISMEMBER", "set", "a", "zz"), "SMISMEMBER", False),
    (("SCARD", "set"), "SCARD", False),
    (("SDIFF", "set", "other"), "SDIFF", True),
    (("SINTER", "set", "other"), "SINTER", True),
    (("SUNION", "set", "other"), "SUNION", True),
    (("SINTERCARD", 2, "set", "other"), "SINTERCARD", False),
    (("SDIFFSTORE", "dest", "set", "other"), "SDIFFSTORE", False),
    (("SMOVE", "set", "other", "a"), "SMOVE", False),
    (("SMOVE", "set", "other", "missing"), "SMOVE", False),
    (("SRANDMEMBER", "lone"), "SRANDMEMBER", False),
    (("SPOP", "lone"), "SPOP", False),
    (("SREM", "set", "b", "missing"), "SREM", False),
    # HyperLogLog
    (("PFADD", "hll", "a", "b"), "PFADD", False),
    (("PFADD", "hll", "a"), "PFADD", False),
    (("PFCOUNT", "hll"), "PFCOUNT", False),
    (("PFMERGE", "hll2", "hll"), "PFMERGE", False),
    # scripting: replies converted from Lua, SCRIPT subcommands
    (("EVAL", _SCRIPT, 1, "z"), "EVAL", False),
    (("EVAL", "return redis.call('SET', KEYS[1], 'v')", 1, "s"), "EVAL", False),
    (("EVAL", "return 3.7", 0), "EVAL", False),
    (("EVAL", "return {ok='fine'}", 0), "EVAL", False),
    (("EVAL", "return redis.call('HGETALL', KEYS[1])", 1, "h"), "EVAL", False),
    (("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", 0), "EVALSHA", False),
    (("SCRIPT", "LOAD", "return 1"), "SCRIPT LOAD", False),
    (("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0" * 40), "SCRIPT EXISTS", False),
    # keys
    (("EXPIRE", "ttl", 100), "EXPIRE", False),
    (("PERSIST", "ttl"), "PERSIST", False),
    (("TTL", "ttl"), "TTL", False),
    (("EXISTS", "ttl", "missing"), "EXISTS", False),
    (("TYPE", "z"), "TYPE", False),
    (("COPY", "z", "zcopy"), "COPY", False),
    (("RENAME", "zcopy", "zcopy2"), "RENAME", False),
    (("RENAMENX", "zcopy2", "z"), "RENAMENX", False),
    (("DEL", "zcopy2", "missing"), "DEL", False),
    (("PING",), "PING", False),
]

_IDS = [f"{i}-{' '.join(str(w) for w in words[:2])}" for i, (words, _, _) in enumerate(RAW_CASES)]


def _fill_all(client: Any) -> None:
    """The keys RAW_CASES reads (doubles that need 17 digits, infinities,
    -0 turned to 0, integers too big for a float's exact digits...)."""
    client.zadd("z", {"a": 1.5, "b": 2, "third": 1 / 3, "big": 1.2345678901234567e300,
                      "top": float("inf"), "bottom": float("-inf"), "zero": -0.0,
                      "int": 123456789012345})
    client.zadd("z", {"zero": 0.0})
    client.zadd("single", {"a": 0.1})
    client.zadd("lex", {"a": 0, "b": 0, "c": 0})
    client.set("n", 10)
    client.set("f", "5.0e3")
    client.hset("h", mapping={"f": "1", "text": "v"})
    client.sadd("other", "a", "x")
    client.sadd("lone", "only")
    client.set("ttl", "v", ex=100)
    client.script_load("return 1")


def _canon(value: Any, unordered: bool) -> Any:
    if unordered and isinstance(value, list):
        return sorted(value)
    if unordered and isinstance(value, tuple) and len(value) == 3 and value[0] == "raw":
        return ("raw", _canon(value[1], True), value[2])
    return value


def _recording(response: Any, **options: Any) -> Any:
    return ("raw", response, options)


def _outcome(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except redis.RedisError as exc:
        return ("error", type(exc).__name__, str(exc))

def _set_callbacks(client: Any, how: str) -> None:
    """``how="empty"``: no callbacks at all; else the recording callback for every case's command."""
    if how == "empty":
        client.response_callbacks = {}
    else:
        for _, name, _ in RAW_CASES:
            client.set_response_callback(name, _recording)


def _each_alone(client: Any, how: str) -> List[Any]:
    """Every case, in turn, on the filled client: with the recording
    callback set for its name, or with ``response_callbacks = {}``."""
    _fill_all(client)
    _set_callbacks(client, how)
    return [_canon(_outcome(lambda: client.execute_command(*words)), unordered)
            for words, _, unordered in RAW_CASES]


@pytest.fixture
def real(redis_server: Any) -> Any:
    client = redis.Redis(host="127.0.0.1", port=redis_server.port)
    client.flushall()
    client.script_flush()
    yield client
    client.close()


def test_redis_py_speaks_resp3_with_default_options(real: Any) -> None:
    """The premise of every test here: redis-py 8.1 with default options
    (what the Engine's ``get_connection_kwargs`` reports: ``protocol=None``)
    talks RESP3, so replies reach callbacks in RESP3's shapes."""
    assert fastrank.Engine().get_connection_kwargs()["protocol"] is None
    assert real.connection_pool.connection_kwargs.get("protocol") is None
    connection = real.connection_pool.get_connection()
    try:
        assert connection.protocol == 3
    finally:
        real.connection_pool.release(connection)
    real.zadd("z", {"a": 1.5})
    real.response_callbacks = {}
    assert real.execute_command("ZSCORE", "z", "a") == 1.5


@pytest.mark.parametrize("how", ["callback", "empty"])
def test_every_command_hands_its_callback_what_the_server_sends(engine: Any, real: Any, how: str) -> None:
    theirs = _each_alone(real, how)
    ours = _each_alone(engine, how)
    for words, mine, expected in zip(RAW_CASES, ours, theirs):
        assert mine == expected, words[0]
    assert all(not (isinstance(x, tuple) and x and x[0] == "error") for x in theirs)


def _in_pipelines(client: Any, transaction: bool, how: str) -> List[Any]:
    """The cases queued in pipelines of eight (commands queued after a
    callback change see it, as redis-py's pipeline copies the callbacks
    when it is made)."""
    _fill_all(client)
    _set_callbacks(client, how)
    out: List[Any] = []
    for start in range(0, len(RAW_CASES), 8):
        chunk = RAW_CASES[start:start + 8]
        with client.pipeline(transaction=transaction) as pipe:
            for words, _, _ in chunk:
                pipe.execute_command(*words)
            replies = pipe.execute(raise_on_error=False)
        out.extend(_canon(reply if not isinstance(reply, Exception) else ("error", str(reply)), unordered)
                   for reply, (_, _, unordered) in zip(replies, chunk))
    return out


@pytest.mark.parametrize("transaction", [True, False])
@pytest.mark.parametrize("how", ["callback", "empty"])
def test_pipelines_hand_callbacks_what_the_server_sends(engine: Any, real: Any, transaction: bool,
                                                         how: str) -> None:
    theirs = _in_pipelines(real, transaction, how)
    ours = _in_pipelines(engine, transaction, how)
    blocking = {"BZPOPMIN", "BZPOPMAX", "BZMPOP"}
    for (words, _, _), mine, expected in zip(RAW_CASES, ours, theirs):
        assert mine == expected, words[0]
    assert all(not (isinstance(x, tuple) and x and x[0] == "error")
               for (words, _, _), x in zip(RAW_CASES, theirs) if words[0] not in blocking)


async def _async_each(client: Any, sync_client: Any, how: str) -> List[Any]:
    _fill_all(sync_client)
    _set_callbacks(client, how)
    out: List[Any] = []
    for words, _, unordered in RAW_CASES:
        try:
            value = await client.execute_command(*words)
        except redis.RedisError as exc:
            value = ("error", type(exc).__name__, str(exc))
        out.append(_canon(value, unordered))
    async with client.pipeline(transaction=True) as pipe:
        for words, _, _ in RAW_CASES[:12]:
            pipe.execute_command(*words)
        out.append(await pipe.execute())
    return out


@pytest.mark.parametrize("how", ["callback", "empty"])
def test_asyncio_hands_callbacks_what_the_server_sends(redis_server: Any, real: Any, how: str) -> None:
    async def both() -> Tuple[List[Any], List[Any]]:
        ours_client = fa.Engine()
        theirs_client = redis.asyncio.Redis(host="127.0.0.1", port=redis_server.port)
        try:
            theirs = await _async_each(theirs_client, real, how)
            ours = await _async_each(ours_client, ours_client._sync, how)
        finally:
            await theirs_client.aclose()
        return ours, theirs

    ours, theirs = asyncio.run(both())
    for words, mine, expected in zip([w for w, _, _ in RAW_CASES] + ["pipeline"], ours, theirs):
        assert mine == expected, words[0] if isinstance(words, tuple) else words


def _pipeline_own_callbacks(client: Any, transaction: bool, how: str) -> List[Any]:
    """A pipeline whose own ``response_callbacks`` were replaced (the
    client's stay redis-py's): its replies go through the pipeline's, as
    redis-py's pipeline reads its own; a later pipeline has the client's again."""
    _fill_all(client)
    out: List[Any] = []
    with client.pipeline(transaction=transaction) as pipe:
        if how == "empty":
            pipe.response_callbacks = {}
        else:
            pipe.response_callbacks = {name: _recording for _, name, _ in RAW_CASES}
        for words, _, _ in RAW_CASES[:40]:
            pipe.execute_command(*words)
        out.extend(_canon(reply, unordered) for reply, (_, _, unordered)
                   in zip(pipe.execute(raise_on_error=False), RAW_CASES))
    with client.pipeline(transaction=transaction) as pipe:
        pipe.zscore("z", "a").zrange("z", 0, 1, withscores=True).hgetall("h")
        out.append(pipe.execute())
    out.append(client.zscore("z", "a"))
    return out


@pytest.mark.parametrize("transaction", [True, False])
@pytest.mark.parametrize("how", ["callback", "empty"])
def test_a_pipelines_own_callbacks_are_its_own(engine: Any, real: Any, transaction: bool, how: str) -> None:
    theirs = _pipeline_own_callbacks(real, transaction, how)
    ours = _pipeline_own_callbacks(engine, transaction, how)
    for i, (mine, expected) in enumerate(zip(ours, theirs)):
        assert mine == expected, i
    assert engine._fast.stock_callbacks


def _on_both_asyncio(redis_server: Any, real: Any,
                     run: Callable[[Any, Any], Awaitable[List[Any]]]) -> Tuple[List[Any], List[Any]]:
    """``run(client, its sync client)`` on a fastrank.asyncio.Engine and on
    redis.asyncio against the real server: (ours, theirs)."""
    async def both() -> Tuple[List[Any], List[Any]]:
        ours_client = fa.Engine()
        theirs_client = redis.asyncio.Redis(host="127.0.0.1", port=redis_server.port)
        try:
            return await run(ours_client, ours_client.sync_engine), await run(theirs_client, real)
        finally:
            await theirs_client.aclose()

    return asyncio.run(both())


def test_asyncio_pipelines_own_callbacks_are_its_own(redis_server: Any, real: Any) -> None:
    async def run(client: Any, sync_client: Any) -> List[Any]:
        _fill_all(sync_client)
        async with client.pipeline(transaction=True) as pipe:
            pipe.response_callbacks = {}
            pipe.zscore("z", "a").zrange("z", 0, 1, withscores=True).hgetall("h").set("s", "v")
            raw = await pipe.execute()
        return [raw, await client.zscore("z", "a")]

    ours, theirs = _on_both_asyncio(redis_server, real, run)
    assert ours == theirs
    assert theirs[0][0] == 1.5 and theirs[1] == 1.5


def _watching_pipeline_own_callbacks(client: Any, how: str) -> List[Any]:
    """A pipeline in WATCH's immediate mode whose own ``response_callbacks``
    were replaced: WATCH, every command run at once and UNWATCH answer
    through the pipeline's callbacks (redis-py's ``parse_response`` reads the
    pipeline's), then the transaction after MULTI too; the client keeps its own."""
    _fill_all(client)
    out: List[Any] = []
    with client.pipeline(transaction=True) as pipe:
        if how == "empty":
            pipe.response_callbacks = {}
        else:
            pipe.response_callbacks = {name: _recording
                                       for name in [n for _, n, _ in RAW_CASES] + ["WATCH", "UNWATCH"]}
        out.append(pipe.watch("watched"))
        for words, _, unordered in RAW_CASES[:40]:
            out.append(_canon(_outcome(lambda: pipe.execute_command(*words)), unordered))
        out.append(pipe.unwatch())
        out.append(pipe.watch("watched"))
        pipe.multi()
        pipe.zscore("z", "a").hgetall("h")
        out.append(pipe.execute())
    out.append(client.zscore("z", "a"))
    return out


@pytest.mark.parametrize("how", ["callback", "empty"])
def test_a_watching_pipelines_immediate_replies_go_through_its_own_callbacks(
        engine: Any, real: Any, how: str) -> None:
    theirs = _watching_pipeline_own_callbacks(real, how)
    ours = _watching_pipeline_own_callbacks(engine, how)
    for i, (mine, expected) in enumerate(zip(ours, theirs)):
        assert mine == expected, i
    assert len(ours) == len(theirs) and engine._fast.stock_callbacks


def test_asyncio_watching_pipelines_blocking_replies_go_through_its_own_callbacks(redis_server: Any,
                                                                                    real: Any) -> None:
    """A blocking command run at once by an asyncio pipeline in WATCH's
    immediate mode answers through the pipeline's callbacks too: one that
    finds a member, and one that times out."""
    async def run(client: Any, sync_client: Any) -> List[Any]:
        _fill_all(sync_client)
        out: List[Any] = []
        async with client.pipeline(transaction=True) as pipe:
            pipe.response_callbacks = {"BZPOPMIN": _recording, "BZPOPMAX": _recording, "BZMPOP": _recording}
            await pipe.watch("watched")
            out.append(await pipe.bzpopmin(["z"], timeout=1))
            out.append(await pipe.bzpopmax(["nothing"], timeout=0.05))
            out.append(await pipe.execute_command("BZMPOP", "0.05", "1", "z", "MAX"))
            pipe.response_callbacks = {}
            out.append(await pipe.bzpopmin(["z"], timeout=1))
            await pipe.unwatch()
        out.append(await client.bzpopmin(["z"], timeout=1))
        return out

    ours, theirs = _on_both_asyncio(redis_server, real, run)
    assert ours == theirs
    assert theirs[0][0] == "raw" and theirs[1][0] == "raw"
