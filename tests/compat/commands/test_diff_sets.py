"""Set commands (commands/sets.py): client under test vs real Redis 7.0.

SSCAN replies are deterministic for small containers: one batch, cursor 0,
in sorted order for an intset; a hashtable set's order is its hash order, so
those members are compared as a set.
"""
from __future__ import annotations

from differential import Pair


def members_sorted(reply):
    """An SSCAN reply (cursor, members) with the members in sorted order."""
    return reply[0], sorted(reply[1])


def test_set_basics(pair: Pair) -> None:
    pair.sadd("s", "a", "b", "a", 1, 2.5, b"\x80")
    pair.smembers("s")
    pair.sismember("s", "a")
    pair.sismember("s", "zz")
    pair.smismember("s", ["a", "zz", 1])
    pair.quiet("smismember", "s", [])
    pair.scard("s")
    pair.srem("s", "a", "zz", "a")
    pair.srem("s", "b", 1, 2.5, b"\x80")
    pair.exists("s")
    pair.smembers("nokey")
    pair.sismember("nokey", "a")


def test_sscan(pair: Pair) -> None:
    pair.sadd("ints", 5, 3, 10, -1)                         # intset: sorted
    pair.sscan("ints")
    pair.sscan("ints", 0, match="1*")
    pair.sadd("words", "b", "a", "c", "\x80")               # hashtable: compare as sets
    pair.apply("sscan words as a set",
               lambda c: members_sorted(c.sscan("words")))
    pair.apply("sscan words match as a set",
               lambda c: members_sorted(c.sscan("words", 0, match="[ab]")))
    pair.sscan("missing")
    pair.quiet("sscan", "ints", 0, count=-1)
    pair.quiet("execute_command", "SSCAN", "ints", "-")
    pair.set("s", "v")
    pair.quiet("sscan", "s")
    pair.apply("sscan_iter sorted", lambda c: sorted(c.sscan_iter("words")))
