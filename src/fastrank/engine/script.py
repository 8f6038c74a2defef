"""redis-py's ``Script`` objects for the Engine and its pipelines.

``Engine.register_script`` returns this subclass of redis-py's ``Script``
(``fastrank.asyncio.Engine.register_script`` the async one of
``fastrank.engine.asyncio``). They behave
the same (EVALSHA first, SCRIPT LOAD and EVALSHA again on NOSCRIPT); the one
addition is that, called with a fastrank pipeline as ``client``, they register
themselves with it, as redis-py's do with its own Pipeline, so that
``execute()`` loads any missing script first (``Pipeline.load_scripts``).
"""
from __future__ import annotations

from typing import Any

from redis.commands.core import Script as _Script
from redis.client import Pipeline as RedisPipeline

from fastrank._core import ScriptCall


_REDIS_PIPELINE_TYPES: dict[type, bool] = {}


def is_redis_pipeline(client: Any) -> bool:
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
