"""redis-py's ``Script`` objects for the Engine and its pipelines.

``Engine.register_script`` (and ``fastrank.asyncio.Engine.register_script``)
return these subclasses of redis-py's ``Script``/``AsyncScript``. They behave
the same (EVALSHA first, SCRIPT LOAD and EVALSHA again on NOSCRIPT); the one
addition is that, called with a fastrank pipeline as ``client``, they register
themselves with it, as redis-py's do with its own Pipeline, so that
``execute()`` loads any missing script first (``Pipeline.load_scripts``).
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from redis.commands.core import AsyncScript as _AsyncScript
from redis.commands.core import Script as _Script
from redis.client import Pipeline as RedisPipeline
from redis.exceptions import NoScriptError
from redis.typing import EncodableT, KeyT

from fastrank._core import ScriptCall, script_object_setup
from fastrank.engine import Engine
from fastrank.engine.pipeline import Pipeline


_REDIS_PIPELINE_TYPES: dict[type, bool] = {}


def _is_redis_pipeline(client: Any) -> bool:
    """isinstance(client, redis-py's Pipeline), remembered per type: redis-py's
    Pipeline has a Protocol metaclass, whose isinstance costs a microsecond."""
    kind = type(client)
    known = _REDIS_PIPELINE_TYPES.get(kind)
    if known is None:
        known = isinstance(client, RedisPipeline)
        if len(_REDIS_PIPELINE_TYPES) < 256:
            _REDIS_PIPELINE_TYPES[kind] = known
    return known


class Script(ScriptCall, _Script):
    """redis-py's Script: ``__call__`` (compiled: ScriptCall,
    engine/native/script_front_door.pxi) runs EVALSHA (on NOSCRIPT, SCRIPT LOAD and
    EVALSHA again), registering with fastrank's and redis-py's pipelines; on a
    fastrank.Engine it enters the EVALSHA front door directly."""


class AsyncScript(_AsyncScript):
    async def __call__(self, keys: Sequence[KeyT] | None = None,
                       args: Iterable[EncodableT] | None = None, client: Any = None) -> Any:
        from fastrank.engine.asyncio import Pipeline

        if isinstance(client, Pipeline):
            client.scripts.add(self)
        return await super().__call__(keys, args, client)


script_object_setup(Script, Engine, Pipeline, _is_redis_pipeline, NoScriptError)
