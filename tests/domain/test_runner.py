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


class Refused(ValueError):
    """What a one-step plan's ``fail`` turns a server error into."""


def one_step_plans():
    """One-step plans (Direct tuples) of each form, and what each answers:
    a command, a command with keyword arguments, a script, a script that
    fails (turned by ``fail``), a command that fails without ``fail``."""
    return [
        (("set", (COUNTER, 5), None, lambda reply: ("set", reply), None), ("set", True)),
        (("zadd", ("{runner}:z", {"a": 1.0}), {"nx": True}, lambda reply: reply * 10, None), 10),
        ((ADD, (COUNTER,), (3,), lambda reply: reply + 0.5, None), 8.5),
        ((FAIL, (COUNTER,), (), lambda reply: "not raised", lambda exc: Refused(f"turned: {exc}")), Refused),
        (("incr", ("{runner}:z",), None, lambda reply: "not raised", None), ResponseError),
    ]


def answers(call):
    try:
        return call()
    except (Refused, ResponseError) as exc:
        return type(exc), str(exc), type(exc.__cause__), exc.__suppress_context__


def test_one_step_plans(client):
    """A one-step plan runs its step (EVALSHA loaded on NOSCRIPT), reads the
    reply with ``parse``, raises ``fail(exc)`` from a server error when given
    (``exc`` its cause), and raises the server's error itself otherwise."""
    client.delete(COUNTER, "{runner}:z")
    client.script_flush()
    for plan, expected in one_step_plans():
        got = answers(lambda: run(client, plan))
        if expected is Refused:
            assert got == (Refused, "turned: FASTRANK_TEST no luck", ResponseError, True)
        elif expected is ResponseError:
            assert got[0] is ResponseError and "WRONGTYPE" in got[1] and got[2] is type(None)
        else:
            assert got == expected
    assert all(client.script_exists(ADD.sha, FAIL.sha))


def test_one_step_plans_async(async_client):
    """The asyncio runner answers one-step plans as the sync one does."""
    async def main():
        client = async_client()
        try:
            await client.delete(COUNTER, "{runner}:z")
            await client.script_flush()
            got = []
            for plan, _ in one_step_plans():
                try:
                    got.append(await run_async(client, plan))
                except (Refused, ResponseError) as exc:
                    got.append((type(exc), str(exc), type(exc.__cause__), exc.__suppress_context__))
            return got
        finally:
            await client.aclose()

    got = asyncio.run(main())
    assert got[:3] == [("set", True), 10, 8.5]
    assert got[3] == (Refused, "turned: FASTRANK_TEST no luck", ResponseError, True)
    assert got[4][0] is ResponseError and "WRONGTYPE" in got[4][1]


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
    from fastrank.runner import twin

    made = twin(_plan_echo)
    sync, coroutine = made.method(False), made.method(True)
    assert sync.__name__ == coroutine.__name__ == "echo"
    assert sync.__doc__ == coroutine.__doc__ == _plan_echo.__doc__
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


def test_a_twin_gives_each_face_its_method():
    """One ``twin`` in a plans class: the sync face runs the plan, the asyncio
    face awaits it (after ``_opening`` with ``opens``); neither is on the plans class."""
    from fastrank.runner import AsyncFace, SyncFace, twin

    class EchoPlans:
        _opened = False
        echo = twin(_plan_echo)
        echo_opened = twin(_plan_echo, opens=True)

    class Sync(SyncFace, EchoPlans):
        _client = _Echo._Client()

    class _AsyncClient:
        async def echo(self):
            return None

    class Async(AsyncFace, EchoPlans):
        _client = _AsyncClient()
        opened = 0

        async def _opening(self):
            self.opened += 1
            self._opened = True

    assert Sync().echo(1, 2) == (1, 2, (), 3, {})
    assert Sync().echo_opened(1, 2, third=0) == (1, 2, (), 0, {})
    assert inspect.iscoroutinefunction(Async.echo) and str(inspect.signature(Async().echo)) == \
        str(inspect.signature(Sync().echo))
    face = Async()
    assert asyncio.run(face.echo(1, 2)) == (1, 2, (), 3, {}) and face.opened == 0
    assert asyncio.run(face.echo_opened(1, 2)) == (1, 2, (), 3, {}) and face.opened == 1
    assert asyncio.run(face.echo_opened(1, 2)) == (1, 2, (), 3, {}) and face.opened == 1
    with pytest.raises(TypeError, match="face"):
        EchoPlans().echo(1, 2)
