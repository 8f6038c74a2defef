"""GCounter and PNCounter: the merge laws, convergence, the byte format, bad input.

Replicas are built from random histories (which node counted how much, in
which order); a replica's copy is its own bytes read back, so every test also
exercises ``to_bytes``/``from_bytes``.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank.counters.counters import GCounter, PNCounter

NODES = ["a", "b", "c", "d", "é"]
amounts = st.integers(min_value=1, max_value=10**6)
events = st.lists(st.tuples(st.sampled_from(NODES), st.booleans(), amounts), max_size=30)


def replicas(kind, history):
    """One replica per node, each having counted its own events of history."""
    out = {node: kind(node) for node in NODES}
    for node, up, n in history:
        if kind is GCounter or up:
            out[node].increment(n)
        else:
            out[node].decrement(n)
    return list(out.values())


def copy(counter):
    return type(counter).from_bytes(counter.to_bytes())


def merged(x, y):
    out = copy(x)
    out.merge(y)
    return out


def state(counter):
    return counter.counts, counter.value()


kinds = st.sampled_from([GCounter, PNCounter])


@given(kinds, events, st.data())
def test_merge_is_commutative_associative_and_idempotent(kind, history, data):
    reps = replicas(kind, history)
    x, y, z = (data.draw(st.sampled_from(reps)) for _ in range(3))
    assert state(merged(x, y)) == state(merged(y, x))
    assert state(merged(merged(x, y), z)) == state(merged(x, merged(y, z)))
    assert state(merged(x, x)) == state(x)
    assert state(merged(merged(x, y), y)) == state(merged(x, y))


@given(kinds, events, st.randoms(use_true_random=False))
def test_any_delivery_order_converges_to_the_sum_of_the_events(kind, history, rnd):
    reps = replicas(kind, history)
    expected = sum(n if (kind is GCounter or up) else -n for _, up, n in history)
    # Gossip: every ordered pair of replicas delivers its state twice, in a
    # random order; each replica hears every other directly after all events.
    pending = [(i, j) for i in range(len(reps)) for j in range(len(reps)) if i != j]
    deliveries = pending * 2
    rnd.shuffle(deliveries)
    for i, j in deliveries:
        reps[i].merge(copy(reps[j]))
    assert {r.value() for r in reps} == {expected}
    assert len({repr(sorted(r.counts.items()) if kind is GCounter else
                     [sorted(part.items()) for part in r.counts]) for r in reps}) == 1


@given(kinds, events)
def test_bytes_round_trip_keeps_the_replica(kind, history):
    for rep in replicas(kind, history):
        again = type(rep).from_bytes(rep.to_bytes())
        assert again == rep and state(again) == state(rep) and again.node_id == rep.node_id


@settings(max_examples=50)
@given(kinds, events, st.data())
def test_corrupt_or_truncated_bytes_raise_value_error(kind, history, data):
    raw = replicas(kind, history)[0].to_bytes()
    cut = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    with pytest.raises(ValueError):
        kind.from_bytes(raw[:cut])
    pos = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    flip = data.draw(st.integers(min_value=1, max_value=255))
    bad = bytearray(raw)
    bad[pos] ^= flip
    with pytest.raises(ValueError):
        kind.from_bytes(bytes(bad))
    with pytest.raises(ValueError):
        kind.from_bytes(raw + b"\0")


def test_a_state_of_the_other_kind_is_refused():
    g, pn = GCounter("a"), PNCounter("a")
    with pytest.raises(ValueError, match="not a PNCounter state"):
        PNCounter.from_bytes(g.to_bytes())
    with pytest.raises(ValueError, match="not a GCounter state"):
        GCounter.from_bytes(pn.to_bytes())
    with pytest.raises(TypeError):
        GCounter.from_bytes("FRGC")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        g.merge(pn)  # type: ignore[arg-type]


def test_a_future_version_is_refused_by_name():
    raw = bytearray(GCounter("a").to_bytes())
    raw[4] = 2
    with pytest.raises(ValueError, match="version 2"):
        GCounter.from_bytes(bytes(raw))


@pytest.mark.parametrize("bad", [0, -1, 1.0, True, "1", None])
def test_a_bad_amount_is_refused_and_changes_nothing(bad):
    for counter in (GCounter("a"), PNCounter("a")):
        counter.increment(5)
        before = counter.to_bytes()
        error = TypeError if type(bad) is not int else ValueError
        with pytest.raises(error):
            counter.increment(bad)
        if isinstance(counter, PNCounter):
            with pytest.raises(error):
                counter.decrement(bad)
        assert counter.to_bytes() == before


def test_a_count_past_64_bits_is_refused_and_changes_nothing():
    counter = GCounter("a")
    counter.increment(2**64 - 2)
    with pytest.raises(ValueError, match="2\\*\\*64"):
        counter.increment(2)
    assert counter.value() == 2**64 - 2
    counter.increment(1)
    assert GCounter.from_bytes(counter.to_bytes()).value() == 2**64 - 1


@pytest.mark.parametrize("node_id", [1, b"a", None, 1.5])
def test_node_ids_must_be_str(node_id):
    for kind in (GCounter, PNCounter):
        with pytest.raises(TypeError, match="node_id must be a str"):
            kind(node_id)


def test_pn_value_goes_negative_and_merges_per_part():
    a, b = PNCounter("a"), PNCounter("b")
    a.decrement(7)
    b.increment(2)
    b.decrement(1)
    a.merge(b)
    assert a.value() == -6
    assert a.counts == ({"b": 2}, {"a": 7, "b": 1})


def test_many_replicas_seeded_gossip():
    rnd = random.Random(7)
    reps = [GCounter(f"n{i}") for i in range(20)]
    total = 0
    for _ in range(2000):
        r = rnd.choice(reps)
        n = rnd.randint(1, 100)
        r.increment(n)
        total += n
        x, y = rnd.sample(reps, 2)
        x.merge(y)
    for x in reps:
        for y in reps:
            x.merge(y)
    assert {r.value() for r in reps} == {total}


def test_docstring_examples():
    import doctest

    import fastrank.counters.counters

    result = doctest.testmod(fastrank.counters.counters)
    assert result.attempted >= 5 and result.failed == 0
