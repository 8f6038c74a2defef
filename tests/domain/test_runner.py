"""The plan runners: one command, one pipeline, one script (EVALSHA, loaded on NOSCRIPT),
server errors thrown back into the plan; sync and asyncio, on every backend."""
from __future__ import annotations

import asyncio
import inspect

import pytest
from redis.exceptions import ResponseError

from fastrank.runner import Call, Run, Script, packaged_script, run, run_async

COUNTER = "{runner}:counter"
ADD = Script("test-add", "return redis.call('INCRBY', KEYS[1], ARGV[1])")
FAIL = Script("test-fail", "return redis.error_reply('FASTRANK_TEST no luck')")


def plan_of_each_step():
    one = yield Call("set", (COUNTER, 5))
    many = yield [Call("incrby", (COUNTER, 2)), Call("get", (COUNTER,)), Call("exists", ("{runner}:none",))]
    scripted = yield Run(ADD, (COUNTER,), (10,))
    again = yield Run(ADD, (COUNTER,), (1,))
    return one, many, scripted, again


EXPECTED = (True, [7, b"7", 0], 17, 18)


def plan_that_catches():
    try:
        yield Run(FAIL, (COUNTER,), ())
    except ResponseError as exc:
        return f"caught: {exc}"
    return "not raised"


def plan_that_does_not_catch():
    yield Call("set", (COUNTER, "text"))
    yield Call("incr", (COUNTER,))


def test_run_each_kind_of_step(client):
    assert run(client, plan_of_each_step()) == EXPECTED


def test_script_loaded_after_noscript(client):
    client.script_flush()
    assert run(client, plan_of_each_step()) == EXPECTED
    assert all(client.script_exists(ADD.sha))


def test_server_error_is_thrown_into_the_plan(client):
    assert run(client, plan_that_catches()) == "caught: FASTRANK_TEST no luck"
    with pytest.raises(ResponseError, match="not an integer"):
        run(client, plan_that_does_not_catch())


def test_plan_without_io(client):
    def plan():
        if False:
            yield Call("get", ("x",))
        return 42

    assert run(client, plan()) == 42


def test_packaged_scripts_carry_the_prelude():
    script = packaged_script("submit")
    assert script.source.startswith("-- fastrank leaderboard scripts")
    assert "ZADD" in script.source and len(script.sha) == 40


def test_async_runner(async_client):
    async def main():
        client = async_client()
        try:
            await client.script_flush()
            first = await run_async(client, plan_of_each_step())
            caught = await run_async(client, plan_that_catches())
            with pytest.raises(ResponseError, match="not an integer"):
                await run_async(client, plan_that_does_not_catch())
            return first, caught
        finally:
            await client.aclose()

    assert asyncio.run(main()) == (EXPECTED, "caught: FASTRANK_TEST no luck")


def _plan_echo(self, first, /, second, *rest, third=3, **named):
    """A plan with every kind of parameter: its result is what it received."""
    return ("echo", (), None, lambda reply: (first, second, rest, third, named), None)


class _Echo:
    class _Client:
        def echo(self):
            return None

    _client = _Client()


def test_methods_keep_their_plans_signature_and_arguments():
    from fastrank.runner import awaiting, blocking

    sync, coroutine = blocking(_plan_echo), awaiting(_plan_echo)
    assert sync.__name__ == coroutine.__name__ == "echo"
    assert [(p.name, p.kind, p.default) for p in inspect.signature(sync, follow_wrapped=False).parameters.values()] \
        == [(p.name, p.kind, p.default) for p in inspect.signature(_plan_echo).parameters.values()]
    assert sync(_Echo(), 1, 2, 5, 6, third=4, x=7) == (1, 2, (5, 6), 4, {"x": 7})
    assert sync(_Echo(), 1, second=2) == (1, 2, (), 3, {})
    with pytest.raises(TypeError):
        sync(_Echo(), first=1, second=2)  # positional-only, as in the plan

    class _AsyncClient:
        async def echo(self):
            return None

    echo = _Echo()
    echo._client = _AsyncClient()
    assert asyncio.run(coroutine(echo, 1, 2, third=0)) == (1, 2, (), 0, {})
