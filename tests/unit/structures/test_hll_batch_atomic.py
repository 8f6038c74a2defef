"""HyperLogLog.add_many validates the whole batch before adding anything, as
the other structures do; a lone string is refused as a batch."""
from __future__ import annotations

import pytest

from fastrank import HyperLogLog


@pytest.mark.parametrize("bad", [None, True, 1.5j, object(), [1]])
def test_refused_batch_adds_nothing(bad: object) -> None:
    h = HyperLogLog()
    h.add("x")
    before = h.to_bytes()
    with pytest.raises(TypeError):
        h.add_many(["c", "d", "e", bad])
    assert h.to_bytes() == before


@pytest.mark.parametrize("lone", ["hello", b"hello", bytearray(b"hello"), memoryview(b"hello")])
def test_lone_string_is_refused(lone: object) -> None:
    h = HyperLogLog()
    with pytest.raises(TypeError, match="not a single"):
        h.add_many(lone)
    assert h.count() == 0
