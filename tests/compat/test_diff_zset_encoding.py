"""-0.0 scores and zset encodings: client under test vs real Redis 7.0.

Redis keeps a zset listpack-encoded while it has at most 128 members of at
most 64 bytes; a listpack stores -0.0 as the integer 0, a skiplist keeps
-0.0. Which encoding a key has depends on its history (the first member of
the ZADD that created it, a 129th or a 65-byte member ever inserted, the
result size of a STORE command), so these tests walk each path and compare
the scores bit-exactly (the harness compares floats by repr).
"""
from __future__ import annotations

import pytest

from differential import Pair

LONG = "L" * 65       # one byte over zset-max-listpack-value
EDGE = "E" * 64       # exactly at the limit: still a listpack


def members(n: int, prefix: str = "m") -> dict:
    return {f"{prefix}{i:03d}": i for i in range(n)}


def show(pair: Pair, key: str) -> None:
    pair.zrange(key, 0, -1, withscores=True)


def test_new_key_encoding_from_first_member(pair: Pair) -> None:
    pair.zadd("edge", {EDGE: 1, "a": -0.0})          # 64 bytes: listpack, -0.0 → 0
    pair.zadd("long", {LONG: 1, "a": -0.0})          # 65 bytes first: skiplist
    pair.zadd("late", {"a": -0.0, LONG: 1, "b": -0.0})  # converts at LONG: a 0, b -0.0
    for key in ("edge", "long", "late"):
        show(pair, key)
    pair.zincrby("zi", -0.0, LONG)                   # ZINCRBY creates from its member too
    pair.zincrby("zi", -0.0, "x")
    show(pair, "zi")
    pair.zadd("zx", {LONG: 1}, xx=True)              # XX on a missing key creates nothing
    pair.exists("zx")


def test_listpack_converts_at_129_members_and_never_back(pair: Pair) -> None:
    pair.zadd("z", members(128))
    pair.zadd("z", {"m000": -0.0, "m001": 5})        # updates of existing members: listpack
    pair.zadd("z", {"new": -0.0})                    # 129th member: converted first, keeps -0.0
    show(pair, "z")
    pair.zremrangebyrank("z", 0, 100)                # shrinking does not convert back
    pair.zadd("z", {"again": -0.0})
    pair.zincrby("z", -0.0, "inc")
    show(pair, "z")


def test_listpack_conversion_by_long_member_and_xx(pair: Pair) -> None:
    pair.zadd("z", {"a": 1})
    pair.zadd("z", {LONG: 1}, xx=True)               # not added: no conversion
    pair.zadd("z", {"b": -0.0})
    show(pair, "z")
    pair.zadd("z", {LONG: 2}, nx=True)               # added: converts
    pair.zrem("z", LONG)
    pair.zadd("z", {"c": -0.0})                      # still a skiplist
    show(pair, "z")
    pair.zadd("g", {"a": 1})
    pair.zadd("g", {LONG: -0.0}, gt=True)            # GT still adds a new member
    show(pair, "g")


def test_zadd_incr_and_zincrby_replies(pair: Pair) -> None:
    pair.zadd("s", {"a": 1})
    pair.zadd("s", {"n": -0.0}, incr=True)           # reply -0.0, stored 0
    pair.zadd("s", {"n": -0.0}, incr=True)           # 0 + -0.0 = 0.0
    pair.zincrby("s", -0.0, "m")
    pair.zincrby("s", 0.0, "z0")
    pair.zscore("s", "m")
    pair.zmscore("s", ["n", "m", "z0"])
    pair.zadd("b", {LONG: 1})
    pair.zadd("b", {"n": -0.0}, incr=True)
    pair.zadd("b", {"n": -0.0}, incr=True)           # -0.0 + -0.0 = -0.0, no change
    pair.zincrby("b", 0.0, "n")                      # -0.0 + 0.0 = 0.0 == -0.0: unchanged
    pair.zadd("b", {"p": 0.0})
    pair.zadd("b", {"p": -0.0}, ch=True)             # equal score: not changed, stays 0.0
    pair.zincrby("b", 2.5, "q")
    pair.zincrby("b", -2.5, "q")                     # 2.5 - 2.5 = +0.0
    show(pair, "b")
    pair.zmscore("b", ["n", "p", "q"])


def test_reads_of_negative_zero(pair: Pair) -> None:
    pair.zadd("b", {LONG: 1, "x": -0.0, "y": 0.0, "w": -0.0})
    show(pair, "b")
    pair.zrevrange("b", 0, -1, withscores=True)
    pair.zrangebyscore("b", 0, 0, withscores=True)
    pair.zrangebyscore("b", "-0", "(1", withscores=True)
    pair.zcount("b", "-0", "0")
    pair.zrank("b", "y")
    # a skiplist's ZSCAN walks its hash table: compare the pairs as a set
    pair.apply("zscan('b') sorted", lambda c: sorted(c.zscan("b")[1], key=repr))
    pair.zrandmember("b", 10, withscores=True)
    pair.zunion(["b"], withscores=True)
    pair.zinter(["b", "b"], withscores=True)
    pair.zdiff(["b"], withscores=True)
    pair.zpopmin("b", 2)
    pair.zpopmax("b")
    show(pair, "b")


def test_rename_keeps_the_encoding(pair: Pair) -> None:
    pair.zadd("big", {LONG: 1})
    pair.zrem("big", LONG)
    pair.zadd("big", {"a": 1})
    pair.rename("big", "moved")
    pair.zadd("moved", {"b": -0.0})
    show(pair, "moved")


@pytest.mark.parametrize("cmd", ["zunionstore", "zinterstore", "zdiffstore"])
def test_store_commands_choose_the_encoding_from_the_result(pair: Pair, cmd: str) -> None:
    pair.zadd("src", {LONG: 5, **{f"m{i:03d}": -0.0 for i in range(140)}})
    pair.zadd("one", {"m000": 1, "m001": 1})
    if cmd == "zdiffstore":
        pair.zdiffstore("d_small", ["src", "d_filter_big"])  # 141 members: skiplist
        pair.zadd("keep", {f"m{i:03d}": 1 for i in range(3, 140)})
        pair.zadd("keep", {LONG: 1})
        pair.zdiffstore("d_small", ["src", "keep"])      # m000..m002: listpack, 0
        show(pair, "d_small")
        pair.zdiffstore("d_big", ["src", "one"])         # 139 members: skiplist, -0.0
        show(pair, "d_big")
        return
    store = getattr(pair, cmd)
    store("d_small", ["src", "one"])                     # union: 141 → skiplist; inter: 2
    show(pair, "d_small")
    store("d_w", {"one": -0.0})                          # weight -0.0 → -0.0 scores
    show(pair, "d_w")
    store("d_all", {"src": -1.0, "src2": 1.0})
    show(pair, "d_all")
    pair.zadd("short", {"a": -0.0, "b": 1})
    store("d_short", ["short"])
    show(pair, "d_short")
    pair.zadd("withlong", {LONG: -0.0, "a": -0.0})
    store("d_long", ["withlong"])                        # a 65-byte member: skiplist
    show(pair, "d_long")
    pair.zadd("d_short", {"c": -0.0})                    # a listpack dest stays one
    show(pair, "d_short")


def test_zrangestore_encodings(pair: Pair) -> None:
    pair.zadd("src", {LONG: 5, **{f"m{i:03d}": -0.0 for i in range(140)}})
    pair.zrangestore("r_small", "src", 0, 9)             # ≤128 by rank: listpack, 0
    pair.zrangestore("r_big", "src", 0, 135)             # >128 by rank: skiplist, -0.0
    pair.zrangestore("r_score", "src", "-inf", "+inf", byscore=True)  # listpack, converts
    pair.zrangestore("r_rev", "src", "+inf", "-inf", byscore=True, desc=True)  # LONG first
    pair.zrangestore("r_lex", "src", "-", "+", bylex=True)  # lex on mixed scores: compare
    pair.zrangestore("r_lim", "src", "-inf", "+inf", byscore=True, offset=0, num=5)
    for key in ("r_small", "r_big", "r_score", "r_rev", "r_lex", "r_lim"):
        show(pair, key)
    pair.zrangestore("r_small", "src", 500, 600)         # empty: deletes dest
    pair.exists("r_small")
