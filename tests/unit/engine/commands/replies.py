"""The error line a client raises, for the command tests of this package."""
from typing import Any, Callable

import pytest
import redis


def error_of(fn: Callable[[], Any]) -> str:
    """The text of the ``ResponseError`` that ``fn()`` raises (it must raise one)."""
    with pytest.raises(redis.ResponseError) as info:
        fn()
    return str(info.value)


def error_line(client: Any, *args: Any) -> str:
    """The error text of ``client.execute_command(*args)`` (it must fail)."""
    return error_of(lambda: client.execute_command(*args))
