"""Every public method of the package's public domain and structure classes
says what it does. (The Engine's and its Pipeline's methods are redis-py's:
their documentation is redis-py's and Redis's.)"""
from __future__ import annotations

import inspect

import pytest

import fastrank
import fastrank.asyncio

CLASSES = sorted({obj for module in (fastrank, fastrank.asyncio) for name in module.__all__
                  if inspect.isclass(obj := getattr(module, name)) and not issubclass(obj, BaseException)
                  and not obj.__module__.startswith("fastrank.engine")},
                 key=lambda c: (c.__module__, c.__name__))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_every_public_method_has_a_docstring(cls):
    own = {name for klass in cls.__mro__ if klass.__module__.startswith("fastrank") for name in vars(klass)}
    missing = [name for name, member in inspect.getmembers(cls)
               if not name.startswith("_") and name in own and callable(member)
               and not (getattr(member, "__doc__", None) or "").strip()]
    assert missing == [], f"{cls.__name__}: no docstring on {missing}"
