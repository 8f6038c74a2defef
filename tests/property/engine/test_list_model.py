"""The Engine's lists against a plain Python list model (hypothesis).

Random programs of list commands (pushes, pops with counts, LRANGE, LTRIM,
LINDEX, LSET, LREM, LINSERT, LPOS, LMOVE) run on ``fastrank.Engine`` and on
a model written from the commands' definitions with Python list slicing;
every reply and the final contents must agree, the key must exist exactly
when the model list is non-empty, and LRANGE over any range must equal the
model's slice.
"""
from __future__ import annotations

from typing import Any, List, Optional

from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank

ELEMENTS = st.sampled_from([b"a", b"b", b"c", b"", b"\x00"])
INDEXES = st.integers(min_value=-8, max_value=8)


def norm(index: int, size: int) -> Optional[int]:
    index = index + size if index < 0 else index
    return index if 0 <= index < size else None


def model_range(lst: List[bytes], start: int, end: int) -> List[bytes]:
    n = len(lst)
    start = max(start + n if start < 0 else start, 0)
    end = end + n if end < 0 else end
    return lst[start:end + 1] if start <= end else []


OPS = st.one_of(
    st.tuples(st.just("lpush"), st.lists(ELEMENTS, min_size=1, max_size=4)),
    st.tuples(st.just("rpush"), st.lists(ELEMENTS, min_size=1, max_size=4)),
    st.tuples(st.just("lpop"), st.integers(0, 5)),
    st.tuples(st.just("rpop"), st.integers(0, 5)),
    st.tuples(st.just("ltrim"), INDEXES, INDEXES),
    st.tuples(st.just("lindex"), INDEXES),
    st.tuples(st.just("lset"), INDEXES, ELEMENTS),
    st.tuples(st.just("lrem"), st.integers(-3, 3), ELEMENTS),
    st.tuples(st.just("linsert"), st.booleans(), ELEMENTS, ELEMENTS),
    st.tuples(st.just("lpos"), ELEMENTS, st.sampled_from([1, 2, -1, -2]), st.integers(0, 3)),
    st.tuples(st.just("lmove"), st.booleans(), st.booleans()),
)


def run_model(lst: List[bytes], op: Any) -> Any:
    name = op[0]
    if name == "lpush":
        for v in op[1]:
            lst.insert(0, v)
        return len(lst)
    if name == "rpush":
        lst.extend(op[1])
        return len(lst)
    if name in ("lpop", "rpop"):
        if not lst:
            return None
        count = min(op[1], len(lst))
        if name == "lpop":
            out = lst[:count]
            del lst[:count]
        else:
            out = lst[len(lst) - count:][::-1]
            del lst[len(lst) - count:]
        return out
    if name == "ltrim":
        lst[:] = model_range(lst, op[1], op[2])
        return True
    if name == "lindex":
        i = norm(op[1], len(lst))
        return None if i is None else lst[i]
    if name == "lset":
        i = norm(op[1], len(lst))
        if not lst:
            return "ERR no such key"
        if i is None:
            return "ERR index out of range"
        lst[i] = op[2]
        return True
    if name == "lrem":
        count, value = op[1], op[2]
        order = range(len(lst)) if count >= 0 else range(len(lst) - 1, -1, -1)
        hits = [i for i in order if lst[i] == value][:abs(count) or None]
        for i in sorted(hits, reverse=True):
            del lst[i]
        return len(hits)
    if name == "linsert":
        if not lst:
            return 0
        if op[2] not in lst:
            return -1
        at = lst.index(op[2])
        lst.insert(at if op[1] else at + 1, op[3])
        return len(lst)
    if name == "lpos":
        value, rank, count = op[1], op[2], op[3]
        order = list(range(len(lst))) if rank > 0 else list(range(len(lst) - 1, -1, -1))
        hits = [i for i in order if lst[i] == value][abs(rank) - 1:]
        return hits if count == 0 else hits[:count]
    if name == "lmove":  # onto the same key: a rotation
        if not lst:
            return None
        v = lst.pop(0) if op[1] else lst.pop()
        lst.insert(0, v) if op[2] else lst.append(v)
        return v
    raise AssertionError(name)


def run_engine(engine: fastrank.Engine, op: Any) -> Any:
    name = op[0]
    try:
        if name in ("lpush", "rpush"):
            return getattr(engine, name)("k", *op[1])
        if name in ("lpop", "rpop"):
            return getattr(engine, name)("k", op[1])
        if name == "ltrim":
            return engine.ltrim("k", op[1], op[2])
        if name == "lindex":
            return engine.lindex("k", op[1])
        if name == "lset":
            return engine.lset("k", op[1], op[2])
        if name == "lrem":
            return engine.lrem("k", op[1], op[2])
        if name == "linsert":
            return engine.linsert("k", "BEFORE" if op[1] else "AFTER", op[2], op[3])
        if name == "lpos":
            return engine.lpos("k", op[1], rank=op[2], count=op[3])
        if name == "lmove":
            source, destination = ("LEFT" if end else "RIGHT" for end in op[1:3])
            return engine.lmove("k", "k", source, destination)
    except Exception as exc:  # noqa: BLE001 - compared with the model's error text
        return "ERR " + str(exc)
    raise AssertionError(name)


@settings(max_examples=300, deadline=None)
@given(st.lists(OPS, max_size=40), INDEXES, INDEXES)
def test_lists_follow_the_model(program: List[Any], start: int, end: int) -> None:
    engine = fastrank.Engine()
    model: List[bytes] = []
    for op in program:
        expected = run_model(model, op)
        got = run_engine(engine, op)
        assert got == expected, (op, got, expected)
        assert engine.exists("k") == (1 if model else 0)
    assert engine.lrange("k", 0, -1) == model
    assert engine.lrange("k", start, end) == model_range(model, start, end)
    assert engine.llen("k") == len(model)
