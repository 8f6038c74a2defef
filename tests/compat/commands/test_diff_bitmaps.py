"""Bitmap commands (commands/bitmaps.py): client under test vs real Redis 7.0.

GETBIT, SETBIT, BITCOUNT, BITPOS and BITOP: directed edges (offsets at the
512 MB limit, negative and reversed ranges, BYTE and BIT units, clear-bit
searches with and without an end, empty strings, wrong types, argument
errors and their order) and seeded random sequences over a few keys, every
reply and the stored strings compared.
"""
from __future__ import annotations

import random

import pytest

from differential import Pair, steps


def raw(pair: Pair, *words: object) -> None:
    pair.quiet("execute_command", *words)


def test_getbit_setbit_edges(pair: Pair) -> None:
    for offset in (0, 7, 8, 100, 100_000, 4294967295, 4294967296, -1, "x", "1.5", "", "0x1"):
        raw(pair, "GETBIT", "b", offset)
        if offset != 4294967295:  # valid, but it would make a 512 MB string on both sides
            raw(pair, "SETBIT", "s", offset, 1)
    pair.get("s")
    for value in (0, 1, 2, -1, "x", "", "1.0"):
        raw(pair, "SETBIT", "v", 3, value)
    raw(pair, "SETBIT", "v", "bad", "bad")                              # the offset is checked first
    pair.set("n", 12345)                                                 # an int-encoded string's text
    for offset in range(0, 48, 3):
        raw(pair, "GETBIT", "n", offset)
    raw(pair, "SETBIT", "n", 1, 1)
    pair.get("n")
    pair.quiet("object", "encoding", "n")
    pair.quiet("object", "encoding", "s")
    pair.zadd("z", {"a": 1})
    raw(pair, "GETBIT", "z", 0)
    raw(pair, "SETBIT", "z", 0, 1)
    raw(pair, "SETBIT", "z", -1, 1)                                      # offset error before WRONGTYPE
    pair.setex("t", 100, "a")
    raw(pair, "SETBIT", "t", 1, 0)                                       # keeps its TTL
    pair.quiet("ttl", "t")
    pair.set("same", "a")
    raw(pair, "SETBIT", "same", 1, 1)                                    # already set: unchanged


@pytest.mark.parametrize("value", ["", "a", "\xff\x00\x0f", "foobar", "\x00\x00\x00", "\xff\xff"])
def test_bitcount_and_bitpos_ranges(pair: Pair, value: str) -> None:
    pair.set("k", value.encode("latin-1"))
    raw(pair, "BITCOUNT", "k")
    raw(pair, "BITPOS", "k", 1)
    raw(pair, "BITPOS", "k", 0)
    ends = [0, 1, 2, 5, 7, 8, 9, 15, 17, 100, -1, -2, -3, -8, -9, -100]
    for start in ends:
        raw(pair, "BITPOS", "k", 0, start)
        raw(pair, "BITPOS", "k", 1, start)
        for end in ends[::3]:
            for unit in ([], ["BYTE"], ["BIT"], ["bit"]):
                raw(pair, "BITCOUNT", "k", start, end, *unit)
                raw(pair, "BITPOS", "k", 1, start, end, *unit)
                raw(pair, "BITPOS", "k", 0, start, end, *unit)


def test_bitcount_and_bitpos_errors(pair: Pair) -> None:
    pair.set("k", "foobar")
    for words in (("BITCOUNT", "k", 1), ("BITCOUNT", "k", 1, 2, "WORD"), ("BITCOUNT", "k", "x", 1),
                  ("BITCOUNT", "k", 1, 2, "BIT", "x"), ("BITCOUNT", "k", -1, -5, "WORD"),
                  ("BITCOUNT", "missing", 1), ("BITCOUNT", "missing", "x", "y", "z"),
                  ("BITPOS", "k", 2), ("BITPOS", "k", "x"), ("BITPOS", "k", 1, "x"),
                  ("BITPOS", "k", 1, 0, 2, "WORD"), ("BITPOS", "k", 1, "x", 2, "WORD"),
                  ("BITPOS", "k", 1, 0, "x", "WORD"), ("BITPOS", "k", 1, 0, 1, "BIT", 5),
                  ("BITPOS", "missing", 0, "x"), ("BITPOS", "missing", 1), ("BITPOS", "missing", 0),
                  ("BITPOS", "missing", 3), ("BITCOUNT",), ("BITPOS", "k")):
        raw(pair, *words)
    pair.lpush("l", "x")
    raw(pair, "BITCOUNT", "l")
    raw(pair, "BITPOS", "l", 1)
    raw(pair, "BITPOS", "l", 7)


def test_bitop(pair: Pair) -> None:
    pair.set("a", b"\xf0\x0f\xaa")
    pair.set("b", b"\x0f")
    pair.set("e", b"")
    for op in ("AND", "or", "XOR", "Not"):
        for sources in (["a"], ["a", "b"], ["a", "b", "missing"], ["missing"], ["e"], ["b", "a", "a"]):
            raw(pair, "BITOP", op, "d", *sources)
            pair.get("d")
            pair.exists("d")
    raw(pair, "BITOP", "NAND", "d", "a")
    pair.zadd("z", {"m": 1})
    raw(pair, "BITOP", "OR", "d", "a", "z")
    pair.get("d")
    pair.setex("d", 100, "x")
    raw(pair, "BITOP", "OR", "d", "a")                                   # the result has no TTL
    pair.quiet("ttl", "d")
    raw(pair, "BITOP", "AND", "d", "missing")                            # empty result: deleted
    pair.exists("d")
    raw(pair, "BITOP", "OR", "a", "a", "b")                              # the destination among the sources
    pair.get("a")
    pair.quiet("object", "encoding", "a")


def test_bitmaps_random(pair: Pair, seed: int) -> None:
    rng = random.Random(seed * 7919 + 5)
    keys = ["k1", "k2", "k3"]
    for _ in range(steps(1500)):
        key = rng.choice(keys)
        roll = rng.random()
        offset = rng.choice([rng.randrange(64), rng.randrange(300), rng.randrange(8)])
        if roll < 0.4:
            raw(pair, "SETBIT", key, offset, rng.randrange(2))
        elif roll < 0.5:
            raw(pair, "GETBIT", key, offset)
        elif roll < 0.7:
            words = [rng.randrange(-40, 40), rng.randrange(-40, 40)]
            raw(pair, "BITCOUNT", key, *(words + rng.choice([[], ["BIT"], ["BYTE"]]) if rng.random() < 0.8 else []))
        elif roll < 0.9:
            extra = rng.choice([[], [rng.randrange(-40, 40)], [rng.randrange(-40, 40), rng.randrange(-40, 40)],
                                [rng.randrange(-300, 300), rng.randrange(-300, 300), "BIT"]])
            raw(pair, "BITPOS", key, rng.randrange(2), *extra)
        elif roll < 0.97:
            op = rng.choice(["AND", "OR", "XOR", "NOT"])
            sources = [rng.choice(keys)] if op == "NOT" else rng.sample(keys, rng.randrange(1, 4))
            raw(pair, "BITOP", op, rng.choice(keys), *sources)
        else:
            pair.delete(key)
    for key in keys:
        pair.get(key)
