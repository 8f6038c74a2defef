"""ZLEXCOUNT and ZRANGEBYLEX against a sorted list, on members that share
long prefixes: the skip-list walks compare eight bytes at a time (a bound's
first eight read once) and skip the node that stopped them a level up, so
members equal in their first eight bytes, members shorter than eight and
members that are prefixes of each other are where a slip would show; so are
members as long as the bound (8 to 16 bytes: compared as two words) and
members of 255 bytes or more (stored out of line). 150 fixed members keep
every set past the listpack limit (the C skip list)."""
from __future__ import annotations

import bisect

from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank

ALPHABET = b"ab\x00\xff"
PREFIXES = [b"", b"player:0", b"player:00", b"\xff" * 8, b"p" * 255]
members = st.lists(
    st.builds(lambda prefix, tail: prefix + tail,
              st.sampled_from(PREFIXES),
              st.binary(max_size=10).map(lambda b: bytes(ALPHABET[x % 4] for x in b))),
    min_size=1, max_size=300, unique=True)
bound = st.one_of(st.just(b"-"), st.just(b"+"),
                  st.tuples(st.sampled_from([b"[", b"("]),
                            st.sampled_from(PREFIXES),
                            st.binary(max_size=10).map(lambda b: bytes(ALPHABET[x % 4] for x in b)))
                  .map(lambda t: t[0] + t[1] + t[2]))


FILLER = {b"player:0%03d" % i for i in range(150)}


def model_range(ms: list[bytes], lo: bytes, hi: bytes) -> list[bytes]:
    if lo == b"+" or hi == b"-":
        return []
    start = 0 if lo == b"-" else (bisect.bisect_right if lo[:1] == b"(" else bisect.bisect_left)(ms, lo[1:])
    end = len(ms) if hi == b"+" else (bisect.bisect_left if hi[:1] == b"(" else bisect.bisect_right)(ms, hi[1:])
    return ms[start:end]


@settings(max_examples=300, deadline=None)
@given(members, bound, bound, st.integers(0, 5), st.integers(-1, 20))
def test_lex_count_and_range_match_a_sorted_list(ms, lo, hi, offset, count):
    ms = list(set(ms) | FILLER)
    r = fastrank.Engine()
    r.zadd("z", {m: 0 for m in ms})
    expected = model_range(sorted(ms), lo, hi)
    assert r.zlexcount("z", lo, hi) == len(expected)
    assert r.zrangebylex("z", lo, hi) == expected
    window = expected[offset:] if count < 0 else expected[offset:offset + count]
    assert r.zrangebylex("z", lo, hi, start=offset, num=count) == window
    assert r.zrevrangebylex("z", hi, lo) == expected[::-1]


@settings(max_examples=300, deadline=None)
@given(members, st.data(), st.integers(0, 3), st.integers(-1, 12))
def test_lex_ranges_bounded_by_members(ms, data, offset, count):
    """Bounds that are members (O(1) to find when no rank is needed)."""
    ms = sorted(set(ms) | FILLER)
    pick = st.sampled_from(ms)
    lo = data.draw(st.sampled_from([b"[", b"("])) + data.draw(pick)
    hi = data.draw(st.sampled_from([b"[", b"("])) + data.draw(pick)
    r = fastrank.Engine()
    r.zadd("z", {m: 0 for m in ms})
    expected = model_range(ms, lo, hi)
    assert r.zlexcount("z", lo, hi) == len(expected)
    assert r.zrangebylex("z", lo, hi) == expected
    window = expected[offset:] if count < 0 else expected[offset:offset + count]
    assert r.zrangebylex("z", lo, hi, start=offset, num=count) == window
    rwindow = expected[::-1][offset:] if count < 0 else expected[::-1][offset:offset + count]
    assert r.zrevrangebylex("z", hi, lo, start=offset, num=count) == rwindow
