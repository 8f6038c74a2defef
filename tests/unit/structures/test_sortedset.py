"""Unit tests of fastrank._core.SortedSet, one public method at a time.

Expected values follow docs/compatibility.md §2 (Redis 7.0 sorted sets).
"""
import copy
import doctest
import math
import pickle
import random

import numpy as np
import pytest

import fastrank._core
from fastrank._core import SortedSet

INF = float("inf")


def make(pairs):
    z = SortedSet()
    for m, s in pairs:
        z.add(m, s)
    z._check()
    return z


@pytest.fixture
def abcde():
    return make([("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5)])


def test_doctests_pass():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    globs = {"SortedSet": SortedSet, "np": np}
    for test in finder.find(SortedSet, "SortedSet", module=fastrank._core, globs=globs):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 20
    assert result.failed == 0


# -- add / add_status ----------------------------------------------------------


def test_add_new_update_same():
    z = SortedSet()
    assert z.add("a", 1) is True
    assert z.add("a", 1) is False
    assert z.add("a", 2) is True
    assert z.score("a") == 2.0
    assert len(z) == 1
    z._check()


def test_add_flags_nx_xx():
    z = SortedSet()
    assert z.add("a", 1, xx=True) is False
    assert "a" not in z
    assert z.add("a", 1, nx=True) is True
    assert z.add("a", 5, nx=True) is False
    assert z.score("a") == 1
    assert z.add("a", 5, xx=True) is True
    assert z.score("a") == 5


def test_add_flags_gt_lt():
    z = make([("a", 5)])
    assert z.add("a", 4, gt=True) is False
    assert z.add("a", 5, gt=True) is False
    assert z.add("a", 6, gt=True) is True
    assert z.add("a", 7, lt=True) is False
    assert z.add("a", 6, lt=True) is False
    assert z.add("a", 1, lt=True) is True
    assert z.score("a") == 1
    # new members are still added with gt/lt, not with xx
    assert z.add("b", 1, gt=True) is True
    assert z.add("c", 1, lt=True) is True
    assert z.add("d", 1, xx=True, gt=True) is False
    assert len(z) == 3


@pytest.mark.parametrize(
    "flags",
    [dict(nx=True, xx=True), dict(gt=True, lt=True), dict(nx=True, gt=True), dict(nx=True, lt=True)],
)
def test_add_incompatible_flags(flags):
    z = SortedSet()
    with pytest.raises(ValueError):
        z.add("a", 1, **flags)
    assert len(z) == 0


def test_add_status():
    z = SortedSet()
    assert z.add_status("a", 1) == 1
    assert z.add_status("a", 1) == 0
    assert z.add_status("a", 3) == 2
    assert z.add_status("a", 9, True) == 0  # nx positional
    assert z.add_status("b", 9, False, True) == 0  # xx positional
    assert z.add_status("a", 2, gt=True) == 0
    assert z.add_status("a", 4, gt=True) == 2
    with pytest.raises(ValueError):
        z.add_status("a", 1, nx=True, xx=True)


def test_add_nan_raises_and_changes_nothing():
    z = make([("a", 1)])
    with pytest.raises(ValueError, match="not a number"):
        z.add("a", math.nan)
    with pytest.raises(ValueError, match="not a number"):
        z.add("b", math.nan)
    with pytest.raises(ValueError):
        z.add_status("b", math.nan)
    assert z.items() == [(b"a", 1.0)]
    z._check()


def test_add_inf_and_negative_zero():
    z = SortedSet()
    z.add("p", INF)
    z.add("n", -INF)
    z.add("z", -0.0)
    assert z.items() == [(b"n", -INF), (b"z", 0.0), (b"p", INF)]
    assert math.copysign(1, z.score("z")) == -1.0  # the core keeps -0.0
    assert z.add("z", 0.0) is False  # 0.0 == -0.0: no change, -0.0 stays
    assert math.copysign(1, z.score("z")) == -1.0
    assert repr(z.items()[1][1]) == "-0.0"
    assert z.incr("z", -0.0) == 0.0 and repr(z.score("z")) == "-0.0"  # -0.0 + -0.0
    z.add("y", 0.0)
    z.add("x", -0.0)
    assert z.range_by_score(0.0, 0.0) == [b"x", b"y", b"z"]  # ties by member
    assert [repr(s) for _, s in z.range(1, 3, withscores=True)] == ["-0.0", "0.0", "-0.0"]
    z._check()


def test_add_score_types():
    z = SortedSet()
    z.add("a", 3)  # int
    z.add("b", np.float64(2.5))
    z.add("c", True)  # bool is a number as a score
    assert z.items() == [(b"c", 1.0), (b"b", 2.5), (b"a", 3.0)]
    with pytest.raises(TypeError):
        z.add("d", "1.5")


# -- member coercion -----------------------------------------------------------


@pytest.mark.parametrize(
    "member, expected",
    [
        (b"raw\x00\xff", b"raw\x00\xff"),
        (bytearray(b"ba"), b"ba"),
        (memoryview(b"mv"), b"mv"),
        ("h\u00e9llo", "h\u00e9llo".encode()),
        ("", b""),
        (42, b"42"),
        (-5, b"-5"),
        (0, b"0"),
        (2**70, str(2**70).encode()),
        (-(2**63), str(-(2**63)).encode()),
        (1.5, b"1.5"),
        (0.1, b"0.1"),
        (1e20, b"1e+20"),
        (float("inf"), b"inf"),
    ],
)
def test_member_coercion(member, expected):
    z = SortedSet()
    z.add(member, 1)
    assert list(z) == [expected]
    assert z.score(expected) == 1
    assert z.score(member) == 1
    assert member in z


@pytest.mark.parametrize("member", [True, False, None, 1j, object(), [1], (1,)])
def test_member_bad_types(member):
    z = SortedSet()
    for call in (
        lambda: z.add(member, 1),
        lambda: z.incr(member, 1),
        lambda: z.score(member),
        lambda: z.rank(member),
        lambda: z.remove(member),
    ):
        with pytest.raises(TypeError):
            call()
    assert member not in z
    assert len(z) == 0


def test_member_long_and_binary():
    z = SortedSet()
    long = b"x" * 300
    longer = b"x" * 100000
    z.add(long, 1)
    z.add(longer, 1)
    z.add(b"x" * 254, 1)
    z.add(b"x" * 255, 1)
    assert list(z) == [b"x" * 254, b"x" * 255, long, longer]
    assert z.rank(longer) == 3
    c = z.copy()
    assert z.remove(long)
    assert c.items() == [(b"x" * 254, 1.0), (b"x" * 255, 1.0), (long, 1.0), (longer, 1.0)]
    z._check()
    c._check()
    z.clear()
    assert len(z) == 0 and len(c) == 4


# -- incr ----------------------------------------------------------------------


def test_incr():
    z = SortedSet()
    assert z.incr("a", 1.5) == 1.5
    assert z.incr("a", -0.5) == 1.0
    assert z.incr("b", -0.0) == 0.0
    assert math.copysign(1, z.score("b")) == 1.0  # a missing member: 0.0 + -0.0
    assert z.incr("c", INF) == INF
    assert z.incr("c", 5) == INF
    z._check()


def test_incr_nan_result_changes_nothing():
    z = make([("a", INF), ("b", 1)])
    before = z.items()
    with pytest.raises(ValueError, match="resulting score is not a number"):
        z.incr("a", -INF)
    with pytest.raises(ValueError):
        z.incr("a", math.nan)
    with pytest.raises(ValueError):
        z.incr("new", math.nan)
    assert z.items() == before
    z._check()


def test_incr_moves_node(abcde):
    abcde.incr("a", 10)
    assert abcde.range(0, -1) == [b"b", b"c", b"d", b"e", b"a"]
    abcde.incr("a", -100)
    assert abcde.range(0, -1) == [b"a", b"b", b"c", b"d", b"e"]
    abcde._check()


# -- remove, score, rank, len, contains, iter, items -----------------------------


def test_remove(abcde):
    assert abcde.remove("c") is True
    assert abcde.remove("c") is False
    assert abcde.remove("zz") is False
    assert list(abcde) == [b"a", b"b", b"d", b"e"]
    assert len(abcde) == 4
    abcde._check()


def test_score_and_rank(abcde):
    assert abcde.score("c") == 3.0
    assert abcde.score("x") is None
    assert [abcde.rank(m) for m in "abcde"] == [0, 1, 2, 3, 4]
    assert [abcde.rank(m, True) for m in "abcde"] == [4, 3, 2, 1, 0]
    assert abcde.rank("x") is None and abcde.rank("x", True) is None


def test_ties_order_by_member_bytes():
    members = [b"b", b"", b"A", b"a\x00", b"a", b"\x80", b"ab"]
    z = SortedSet()
    for m in members:
        z.add(m, 7)
    expected = sorted(members)  # bytes sort is memcmp with shorter prefix first
    assert expected == [b"", b"A", b"a", b"a\x00", b"ab", b"b", b"\x80"]
    assert list(z) == expected
    assert z.range(0, -1, True) == expected[::-1]
    assert [z.rank(m) for m in expected] == list(range(len(expected)))
    z._check()


def test_contains_other_types():
    z = make([("1", 1)])
    assert 1 in z
    assert "1" in z and b"1" in z
    assert None not in z and True not in z and 1.0 not in z


def test_iter_and_changes():
    z = make([("a", 1), ("b", 2)])
    it = iter(z)
    assert next(it) == b"a"
    z.add("c", 3)
    with pytest.raises(RuntimeError):
        next(it)
    assert list(iter(SortedSet())) == []


def test_items_clear_copy(abcde):
    items = abcde.items()
    assert items[0] == (b"a", 1.0)
    c = abcde.copy()
    abcde.clear()
    assert len(abcde) == 0 and abcde.items() == []
    abcde._check()
    assert c.items() == items
    c.add("z", 0)
    c._check()
    abcde.add("q", 1)
    assert abcde.items() == [(b"q", 1.0)]
    d = copy.deepcopy(c)
    assert d.items() == c.items()
    p = pickle.loads(pickle.dumps(c))
    assert p.items() == c.items()
    p._check()


def test_repr():
    assert "2" in repr(make([("a", 1), ("b", 1)]))


# -- rank ranges (docs/compatibility.md §2)-------------------------------------------------


@pytest.mark.parametrize(
    "start, stop, expected",
    [
        (0, -1, "abcde"),
        (-2, -1, "de"),
        (-100, 100, "abcde"),
        (3, 1, ""),
        (5, 10, ""),
        (-1, -2, ""),
        (-5, -5, "a"),
        (-6, -6, ""),
        (0, 0, "a"),
        (4, 4, "e"),
        (1, 3, "bcd"),
    ],
)
def test_range_index_rules(abcde, start, stop, expected):
    assert abcde.range(start, stop) == [m.encode() for m in expected]
    rev = [m.encode() for m in "edcba"]
    n = 5
    s, e = start + n if start < 0 else start, stop + n if stop < 0 else stop
    s = max(s, 0)
    want = [] if s > e or s >= n else rev[s : min(e, n - 1) + 1]
    assert abcde.range(start, stop, True) == want


def test_range_withscores(abcde):
    assert abcde.range(0, 1, False, True) == [(b"a", 1.0), (b"b", 2.0)]
    assert abcde.range(0, 1, True, True) == [(b"e", 5.0), (b"d", 4.0)]
    assert abcde.range(0, 1, reverse=True, withscores=True) == [(b"e", 5.0), (b"d", 4.0)]
    assert SortedSet().range(0, -1) == []


def test_remove_range_by_rank(abcde):
    assert abcde.remove_range_by_rank(5, 10) == 0
    assert abcde.remove_range_by_rank(3, 1) == 0
    assert abcde.remove_range_by_rank(-2, -1) == 2
    assert list(abcde) == [b"a", b"b", b"c"]
    assert abcde.remove_range_by_rank(-100, 100) == 3
    assert len(abcde) == 0
    abcde._check()


# -- score ranges (docs/compatibility.md §2)------------------------------------------------


def test_range_by_score_bounds(abcde):
    rbs = abcde.range_by_score
    assert rbs(2, 4) == [b"b", b"c", b"d"]
    assert rbs(2, 4, min_exclusive=True) == [b"c", b"d"]
    assert rbs(2, 4, max_exclusive=True) == [b"b", b"c"]
    assert rbs(2, 4, min_exclusive=True, max_exclusive=True) == [b"c"]
    assert rbs(3, 3) == [b"c"]
    assert rbs(3, 3, min_exclusive=True) == []
    assert rbs(4, 2) == []
    assert rbs(-INF, INF) == [b"a", b"b", b"c", b"d", b"e"]
    assert rbs(5.5, INF) == []
    assert rbs(-INF, 0.5) == []
    assert rbs(2, 4, reverse=True) == [b"d", b"c", b"b"]
    assert rbs(2, 4, withscores=True) == [(b"b", 2.0), (b"c", 3.0), (b"d", 4.0)]
    assert rbs(2, 4, reverse=True, withscores=True, min_exclusive=True) == [(b"d", 4.0), (b"c", 3.0)]


def test_range_by_score_limit(abcde):
    rbs = abcde.range_by_score
    assert rbs(-INF, INF, offset=1, count=2) == [b"b", b"c"]
    assert rbs(-INF, INF, offset=-1, count=2) == []
    assert rbs(-INF, INF, offset=0, count=0) == []
    assert rbs(-INF, INF, offset=3, count=-1) == [b"d", b"e"]
    assert rbs(-INF, INF, offset=3, count=-5) == [b"d", b"e"]
    assert rbs(-INF, INF, offset=5) == []
    assert rbs(-INF, INF, offset=4, count=100) == [b"e"]
    assert rbs(2, 4, reverse=True, offset=1, count=1) == [b"c"]
    assert rbs(2, 4, reverse=True, offset=2, count=5) == [b"b"]
    assert rbs(2, 4, reverse=True, offset=3) == []


def test_range_by_score_inf_members():
    z = make([("lo", -INF), ("mid", 0), ("hi", INF)])
    assert z.range_by_score(-INF, -INF) == [b"lo"]
    assert z.range_by_score(INF, INF) == [b"hi"]
    assert z.range_by_score(-INF, INF, min_exclusive=True, max_exclusive=True) == [b"mid"]
    assert z.count(-INF, INF) == 3
    assert z.count(-0.0, 0.0) == 1


def test_scores_closer_than_32_bits():
    # the skip list caches the top 32 bits of each linked score; scores that
    # share them must still be ordered (and found) exactly
    base = 1.0
    scores = [base, base + 2**-52, base + 2**-40, base + 2**-30, base + 2**-20, base - 2**-52]
    z = SortedSet()
    for i in range(400):
        z.add(f"m{i}", scores[i % len(scores)])
    z._check()
    want = sorted(((scores[i % len(scores)], f"m{i}".encode()) for i in range(400)))
    assert z.items() == [(m, s) for s, m in want]
    for s in scores:
        got = z.range_by_score(s, s)
        assert got == [m for t, m in want if t == s]
        assert z.range_by_score(s, s, min_exclusive=True) == []
    assert z.count(base, base + 2**-30, min_exclusive=True) == sum(
        1 for t, _ in want if base < t <= base + 2**-30)
    for i in range(0, 400, 7):
        z.incr(f"m{i}", 2**-52)
    z._check()
    assert z.remove_range_by_score(base, base + 2**-40, max_exclusive=True) > 0
    z._check()


def test_negative_zero_bounds():
    z = make([("n", -1), ("z", 0.0), ("p", 1)])
    assert z.range_by_score(-0.0, 1) == [b"z", b"p"]
    assert z.range_by_score(-0.0, 1, min_exclusive=True) == [b"p"]
    assert z.range_by_score(-1, -0.0, max_exclusive=True) == [b"n"]
    assert z.count(-0.0, -0.0) == 1
    assert z.remove_range_by_score(-0.0, 0.0) == 1
    assert list(z) == [b"n", b"p"]


def test_range_by_score_nan_bounds(abcde):
    for call in (
        lambda: abcde.range_by_score(math.nan, 1),
        lambda: abcde.count(0, math.nan),
        lambda: abcde.remove_range_by_score(math.nan, math.nan),
    ):
        with pytest.raises(ValueError):
            call()
    assert len(abcde) == 5


def test_count(abcde):
    assert abcde.count(-INF, INF) == 5
    assert abcde.count(2, 4) == 3
    assert abcde.count(2, 4, min_exclusive=True, max_exclusive=True) == 1
    assert abcde.count(4, 2) == 0
    assert abcde.count(10, 20) == 0
    assert SortedSet().count(-INF, INF) == 0


def test_remove_range_by_score(abcde):
    assert abcde.remove_range_by_score(4, 2) == 0
    assert abcde.remove_range_by_score(2, 4, min_exclusive=True) == 2
    assert list(abcde) == [b"a", b"b", b"e"]
    assert abcde.remove_range_by_score(-INF, INF) == 3
    abcde._check()


# -- lex ranges ------------------------------------------------------------------


@pytest.fixture
def lex():
    return make([(m, 0) for m in ["a", "b", "c", "d", "e", "f", "g"]])


def test_range_by_lex(lex):
    rbl = lex.range_by_lex
    assert rbl(None, b"c") == [b"a", b"b", b"c"]
    assert rbl(None, b"c", max_exclusive=True) == [b"a", b"b"]
    assert rbl(b"aaa", b"g", max_exclusive=True) == [b"b", b"c", b"d", b"e", b"f"]
    assert rbl(b"b", b"b") == [b"b"]
    assert rbl(b"b", b"b", min_exclusive=True) == []
    assert rbl(b"d", b"b") == []
    assert rbl(None, None) == list(lex)
    assert rbl(b"h", None) == []
    assert rbl(None, b"0") == []
    assert rbl(b"c", None, reverse=True) == [b"g", b"f", b"e", b"d", b"c"]
    assert rbl(None, None, offset=2, count=2) == [b"c", b"d"]
    assert rbl(None, None, offset=-1) == []
    assert rbl(None, None, count=0) == []
    assert rbl(None, None, reverse=True, offset=1, count=2) == [b"f", b"e"]
    assert rbl("b", "c") == [b"b", b"c"]  # str bounds are encoded


def test_count_and_remove_by_lex(lex):
    assert lex.count_by_lex(None, None) == 7
    assert lex.count_by_lex(b"b", b"d", min_exclusive=True) == 2
    assert lex.count_by_lex(b"d", b"b") == 0
    assert lex.remove_range_by_lex(b"b", b"d", max_exclusive=True) == 2
    assert list(lex) == [b"a", b"d", b"e", b"f", b"g"]
    assert lex.remove_range_by_lex(None, None) == 5
    lex._check()


def test_lex_binary_order():
    members = [b"", b"\x00", b"a", b"a\x00", b"ab", b"\xff"]
    z = make([(m, 0) for m in members])
    assert z.range_by_lex(b"a", None) == [b"a", b"a\x00", b"ab", b"\xff"]
    assert z.range_by_lex(b"a", None, min_exclusive=True) == [b"a\x00", b"ab", b"\xff"]
    assert z.range_by_lex(None, b"") == [b""]


# -- pops (docs/compatibility.md §2) ----------------------------------------------------------------


def test_pops_with_ties():
    z = make([("a", 1), ("b", 1), ("c", 1), ("d", 2)])
    assert z.pop_max() == [(b"d", 2.0)]
    assert z.pop_max(2) == [(b"c", 1.0), (b"b", 1.0)]
    z.add("x", 1)
    assert z.pop_min(1) == [(b"a", 1.0)]
    assert z.pop_min(0) == []
    assert z.pop_min(10) == [(b"x", 1.0)]
    assert z.pop_max(3) == []
    assert z.pop_min() == []
    with pytest.raises(ValueError):
        z.pop_min(-1)
    with pytest.raises(ValueError):
        z.pop_max(-1)
    z._check()


# -- batch (numpy) -------------------------------------------------------------------


def test_add_many_sequences():
    z = SortedSet()
    assert z.add_many([b"a", "b", 3, 1.5], [1, 2, 3, 4]) == 4
    assert z.items() == [(b"a", 1.0), (b"b", 2.0), (b"3", 3.0), (b"1.5", 4.0)]
    assert z.add_many(("a", "z"), np.array([9.0, 0.0])) == 1
    assert z.score("a") == 9.0
    assert z.add_many([], []) == 0
    z._check()


def test_add_many_duplicates_later_wins():
    z = SortedSet()
    assert z.add_many(["a", "b", "a"], [1, 2, 3]) == 2
    assert z.items() == [(b"b", 2.0), (b"a", 3.0)]
    big = [str(i % 50) for i in range(200)]
    assert z.add_many(big, list(range(200))) == 50
    assert z.score("7") == 157.0
    z._check()


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint8, np.int16, np.uint32])
def test_add_many_numpy_integer_members(dtype):
    z = SortedSet()
    ids = np.array([5, 0, 17, 255], dtype=dtype)
    assert z.add_many(ids, np.arange(4.0)) == 4
    assert list(z) == [b"5", b"0", b"17", b"255"]
    assert z.score_many(ids).tolist() == [0.0, 1.0, 2.0, 3.0]


def test_numpy_members_extremes():
    z = SortedSet()
    i = np.array([-5, np.iinfo(np.int64).min, np.iinfo(np.int64).max], dtype=np.int64)
    u = np.array([np.iinfo(np.uint64).max], dtype=np.uint64)
    z.add_many(i, [1, 2, 3])
    z.add_many(u, [4])
    assert list(z) == [b"-5", b"-9223372036854775808", b"9223372036854775807", b"18446744073709551615"]
    assert z.rank(-5) == 0
    assert z.rank(2**64 - 1) == 3
    assert z.rank_many(np.array([-5, 7])).tolist() == [0, -1]


def test_numpy_members_other_arrays():
    z = SortedSet()
    z.add_many(np.array([b"x", b"y"]), [1, 2])
    z.add_many(np.array(["p", "q"]), [3, 4])
    z.add_many(np.array([b"o", 5], dtype=object), [5, 6])
    assert list(z) == [b"x", b"y", b"p", b"q", b"o", b"5"]
    with pytest.raises(TypeError):
        z.add_many(np.array([1.0, 2.0]), [1, 2])
    with pytest.raises(TypeError):
        z.add_many(np.array([True]), [1])
    with pytest.raises(ValueError):
        z.add_many(np.array([[1, 2]]), [1, 2])
    with pytest.raises(TypeError):
        z.add_many("ab", [1, 2])
    assert len(z) == 6


def test_add_many_validates_before_changing():
    z = make([("keep", 1)])
    with pytest.raises(ValueError, match="not a number"):
        z.add_many(["a", "b"], [1, math.nan])
    with pytest.raises(ValueError):
        z.add_many(["a", "b"], [1, 2, 3])
    with pytest.raises(ValueError):
        z.add_many(["a", "b"], [[1, 2]])
    with pytest.raises(TypeError):
        z.add_many(["a", True], [1, 2])
    with pytest.raises(TypeError):
        z.add_many(["a"] * 100 + [None], list(range(101)))
    with pytest.raises(ValueError):
        z.add_many(["a", "b"], ["x", "y"])
    assert z.items() == [(b"keep", 1.0)]
    z._check()


@pytest.mark.parametrize("n_existing, n_batch", [(0, 100), (10, 1000), (1000, 50), (500, 500)])
def test_add_many_matches_single_adds(n_existing, n_batch):
    rng = random.Random(n_existing * 7 + n_batch)
    a, b = SortedSet(), SortedSet()
    for _ in range(n_existing):
        m, s = rng.randrange(3000), rng.randrange(-5, 5) * 0.5
        a.add(m, s)
        b.add(m, s)
    members = [rng.randrange(3000) for _ in range(n_batch)]
    scores = [rng.choice([rng.randrange(-5, 5) * 0.5, -0.0, INF, -INF]) for _ in range(n_batch)]
    expected_added = 0
    for m, s in zip(members, scores):
        expected_added += a.add_status(m, s) == 1
    assert b.add_many(np.array(members), scores) == expected_added
    assert b.items() == a.items()
    b._check()


def test_add_many_bulk_then_point_ops():
    rng = np.random.default_rng(1)
    ids = rng.choice(10**9, 5000, replace=False)
    scores = rng.integers(0, 100, 5000).astype(float)
    z = SortedSet()
    z.add_many(ids, scores)
    z._check()
    order = sorted(zip(scores.tolist(), [str(i).encode() for i in ids.tolist()]))
    assert z.range(0, -1) == [m for _, m in order]
    for k in range(0, 5000, 499):
        assert z.rank(int(ids[k])) == order.index((scores[k], str(ids[k]).encode()))
    z.incr(int(ids[0]), 1000)
    assert z.range(0, 0, True) == [str(ids[0]).encode()]
    z._check()


def test_incr_many():
    z = make([("a", 1)])
    out = z.incr_many(["a", "b", "a"], [1, 2, 3])
    assert out.dtype == np.float64 and out.tolist() == [2.0, 2.0, 5.0]
    assert z.items() == [(b"b", 2.0), (b"a", 5.0)]
    assert z.incr_many(np.array([7, 8], dtype=np.uint64), np.array([1, 1])).tolist() == [1.0, 1.0]
    assert z.incr_many([], []).tolist() == []
    z._check()


def test_incr_many_all_or_nothing():
    z = make([("a", INF), ("b", 1)])
    before = z.items()
    with pytest.raises(ValueError, match="resulting score is not a number"):
        z.incr_many(["b", "new1", "a", "new1"], [5, 1, -INF, 2])
    assert z.items() == before
    # duplicates reaching NaN part-way: new2 becomes inf, then -inf is added
    with pytest.raises(ValueError):
        z.incr_many(["new2", "b", "new2"], [INF, 2, -INF])
    assert z.items() == before
    with pytest.raises(ValueError):
        z.incr_many(["b"], [math.nan])
    with pytest.raises(ValueError):
        z.incr_many(["b", "c"], [1])
    with pytest.raises(TypeError):
        z.incr_many(["b", False], [1, 1])
    assert z.items() == before
    z._check()


@pytest.mark.parametrize("seed", range(20))
def test_incr_many_with_infinities_matches_a_model(seed):
    """Batches larger than one lookup batch, with repeated members, new
    members, infinite deltas and infinite scores: either every pair applies
    (as a dict model adds them in order) or a NaN result is refused and the
    set is unchanged."""
    rng = random.Random(seed)
    z = SortedSet()
    model = {}
    for m in range(300):
        model[str(m).encode()] = float(rng.randint(-5, 5))
    z.add_many(list(model), list(model.values()))
    deltas = [1.0, -2.5, 0.0, 1e308, -1e308, INF, -INF]
    for _ in range(30):
        size = rng.randint(1, 90)
        members = [str(rng.randint(0, 400)).encode() for _ in range(size)]
        ds = [rng.choice(deltas) if rng.random() < 0.3 else float(rng.randint(-3, 3))
              for _ in range(size)]
        want, results = dict(model), []
        for m, d in zip(members, ds):
            want[m] = want.get(m, 0.0) + d
            results.append(want[m])
        if any(math.isnan(v) for v in results):
            before = z.items()
            with pytest.raises(ValueError, match="resulting score is not a number"):
                z.incr_many(members, ds)
            assert z.items() == before
        else:
            assert z.incr_many(members, ds).tolist() == results
            model = want
        z._check()
        assert dict(z.items()) == model


def test_rank_many_and_score_many(abcde):
    ranks = abcde.rank_many(["a", "e", "x", b"c"])
    assert ranks.dtype == np.int64 and ranks.tolist() == [0, 4, -1, 2]
    assert abcde.rank_many(["a", "e", "x"], True).tolist() == [4, 0, -1]
    assert abcde.rank_many(["a"], reverse=True).tolist() == [4]
    scores = abcde.score_many(["a", "x", "e"])
    assert scores.dtype == np.float64
    assert scores[0] == 1.0 and math.isnan(scores[1]) and scores[2] == 5.0
    assert abcde.rank_many([]).tolist() == []
    with pytest.raises(TypeError):
        abcde.score_many([None])


@pytest.mark.parametrize("size", [0, 1, 16, 40, 3000])
def test_incr_many_blocks_match_point_calls(size):
    # incr_many applies pairs in blocks after warming their paths: same
    # result as one incr at a time, with members new in a block repeated
    # in it, and a NaN part-way through a later block undoing all blocks
    rng = random.Random(size)
    z = SortedSet()
    for i in range(size):
        z.add(i, float(rng.randrange(50)))
    members = [rng.randrange(size + 30) for _ in range(2 * size + 37)]
    deltas = [float(rng.randrange(-20, 21)) for _ in members]
    want = z.copy()
    expect = [want.incr(m, d) for m, d in zip(members, deltas)]
    assert z.incr_many(np.array(members), deltas).tolist() == expect
    assert z.items() == want.items()
    z._check()
    before = z.items()
    bad = members[:40] + ["inf-member"] * 2
    with pytest.raises(ValueError):
        z.incr_many(bad, deltas[:40] + [INF, -INF])
    assert z.items() == before
    z._check()


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 40, 3000])
def test_rank_many_and_score_many_blocks_match_point_calls(size):
    # the batch paths look members up in blocks with interleaved descents:
    # every block size, the tail, missing members, repeats and every member
    # kind (int array items, str, bytes, floats and big ints made on the fly)
    rng = random.Random(size)
    z = SortedSet()
    for i in range(size):
        z.add(i, float(rng.randrange(50)))
    z.add(2.5, 7.0)
    z.add(2**70, 7.0)
    asked = [rng.randrange(size + 20) for _ in range(3 * size + 5)]
    for members in (np.array(asked, dtype=np.int64), np.array(asked, dtype=np.uint64),
                    [str(m) for m in asked], [str(m).encode() for m in asked],
                    asked + [2.5, 2**70, z.range(-1, -1)[0]] * 7):
        plain = members.tolist() if isinstance(members, np.ndarray) else members
        want_rank = [z.rank(m) if m in z else -1 for m in plain]
        want_rev = [z.rank(m, True) if m in z else -1 for m in plain]
        want_score = [z.score(m) for m in plain]
        assert z.rank_many(members).tolist() == want_rank
        assert z.rank_many(members, True).tolist() == want_rev
        got = z.score_many(members).tolist()
        assert [None if g != g else g for g in got] == want_score


# -- diagnostics -----------------------------------------------------------------------


def test_memory_usage_grows_and_shrinks():
    z = SortedSet()
    empty = z.memory_usage()
    assert empty > 0
    z.add_many(np.arange(10000), np.zeros(10000))
    full = z.memory_usage()
    assert 20 * 10000 < full - empty < 100 * 10000
    z.clear()
    assert z.memory_usage() == empty


def test_check_on_large_random_workload():
    rng = random.Random(5)
    z = SortedSet()
    model = {}
    for step in range(20000):
        m = rng.randrange(2000)
        op = rng.random()
        if op < 0.5:
            s = rng.randrange(50)
            z.add(m, s)
            model[str(m).encode()] = float(s)
        elif op < 0.8:
            d = rng.randrange(-3, 4)
            model[str(m).encode()] = model.get(str(m).encode(), 0.0) + d
            z.incr(m, d)
        else:
            z.remove(m)
            model.pop(str(m).encode(), None)
        if step % 5000 == 0:
            z._check()
    z._check()
    assert z.items() == sorted(model.items(), key=lambda kv: (kv[1], kv[0]))
