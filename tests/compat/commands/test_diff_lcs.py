"""LCS (commands/lcs.py): client under test vs real Redis 7.0, reply for reply.

LEN, IDX, MINMATCHLEN and WITHMATCHLEN (raw and decoded), missing keys, wrong
types, option errors, and seeded random strings.
"""
from __future__ import annotations

import random

import pytest

from differential import Pair, steps

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_lcs(pair: Pair) -> None:
    pair.set("a", "ohmytext")
    pair.set("b", "mynewtext")
    pair.set("c", "")
    pair.set("d", "aaaa\x00bbbb")
    pair.set("e", "abab\x00bb")
    for x, y in [("a", "b"), ("b", "a"), ("a", "a"), ("a", "c"), ("a", "missing"),
                 ("missing", "missing"), ("d", "e"), ("e", "d")]:
        pair.lcs(x, y)
        pair.lcs(x, y, len=True)
        pair.lcs(x, y, idx=True)
        pair.lcs(x, y, idx=True, withmatchlen=True)
        pair.lcs(x, y, idx=True, minmatchlen=2, withmatchlen=True)
        pair.lcs(x, y, minmatchlen=3, withmatchlen=True)
    for args in (["LCS", "a", "b", "IDX", "LEN"], ["LCS", "a", "b", "MINMATCHLEN", "x"],
                 ["LCS", "a", "b", "MINMATCHLEN", -5, "IDX"], ["LCS", "a", "b", "MINMATCHLEN"],
                 ["LCS", "a", "b", "FOO"], ["LCS", "a"], ["LCS", "a", "b", "idx", "withmatchlen"],
                 ["LCS", "a", "b", "LEN", "LEN"]):
        pair.quiet("execute_command", *args)
    pair.rpush("l", "x")
    pair.quiet("lcs", "a", "l")
    pair.quiet("lcs", "l", "missing")
    pair.quiet("execute_command", "LCS", "l", "a", "FOO")  # the type error comes first


def test_lcs_random(pair: Pair, seed: int) -> None:
    rng = random.Random(seed * 4091 + 17)
    for _ in range(steps(60)):
        alphabet = rng.choice(["ab", "abc", "acgt", "abcdefgh"])
        pair.set("x", "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))))
        pair.set("y", "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))))
        pair.lcs("x", "y")
        pair.lcs("x", "y", idx=True, minmatchlen=rng.randint(0, 3), withmatchlen=rng.random() < 0.5)


def test_lcs_decoded(pair_decoded: Pair) -> None:
    pair_decoded.set("a", "ohmytext")
    pair_decoded.set("b", "mynewtext")
    pair_decoded.lcs("a", "b")
    pair_decoded.lcs("a", "b", len=True)
    pair_decoded.lcs("a", "b", idx=True, withmatchlen=True)
