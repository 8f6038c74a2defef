"""SortedSet against a plain-Python model (dict + sorted list), by hypothesis.

Every step applies one random operation to both, compares the answers, and
then runs SortedSet._check() and compares the full contents.  Batch methods
are compared with the single-call methods on a copy.
"""
import math

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from fastrank._core import SortedSet

INF = math.inf

MEMBERS = [b"", b"a", b"a\x00", b"ab", b"b", b"\x80", b"\xff\xff\xff", "\u00e9", "a", 1, -5, 42,
           1.5, b"x" * 300, bytearray(b"ba"), memoryview(b"bb"), 10**20]
members = st.sampled_from(MEMBERS)
scores = st.one_of(
    st.sampled_from([-INF, INF, 0.0, -0.0, 1.0, 1.5, 2.0, -3.0]),
    st.integers(-5, 5).map(float),
    st.floats(allow_nan=False, width=64),
)
deltas = st.one_of(st.sampled_from([-INF, INF, 0.0, -0.0, 1.0, -1.0]), st.integers(-3, 3).map(float))
indexes = st.integers(-25, 25)
bounds = st.sampled_from([-INF, INF, -3.0, 0.0, 1.0, 1.5, 2.0, 5.0])
lex_bounds = st.one_of(st.none(), st.sampled_from([b"", b"a", b"a\x00", b"ab", b"b", b"c", b"\x80", b"\xff"]))


def enc(m):
    if isinstance(m, (bytes, bytearray, memoryview)):
        return bytes(m)
    if isinstance(m, str):
        return m.encode()
    return repr(m).encode()


def redis_slice(n, start, stop):
    """(first, last) indexes of ZRANGE start stop on n items, or None."""
    if start < 0:
        start += n
    if stop < 0:
        stop += n
    start = max(start, 0)
    if start > stop or start >= n:
        return None
    return start, min(stop, n - 1)


def in_range(v, lo, hi, loex, hiex):
    return (v > lo if loex else v >= lo) and (v < hi if hiex else v <= hi)


def limit(items, offset, count):
    if offset < 0 or count == 0:
        return []
    items = items[offset:]
    return items if count < 0 else items[:count]


def lex_in(m, lo, hi, loex, hiex):
    if lo is not None and not (m > lo if loex else m >= lo):
        return False
    if hi is not None and not (m < hi if hiex else m <= hi):
        return False
    return True


class SortedSetModel(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.z = SortedSet()
        self.model = {}

    def ordered(self):
        return sorted(self.model.items(), key=lambda kv: (kv[1], kv[0]))

    def one_score(self):
        return len(set(self.model.values())) <= 1

    # -- changes ----------------------------------------------------------------

    @rule(m=members, s=scores, flag=st.sampled_from([None, "nx", "xx", "gt", "lt", "xxgt", "xxlt"]))
    def add(self, m, s, flag):
        k, s0 = enc(m), (s + 0.0)
        old = self.model.get(k)
        flags = {} if flag is None else {f: True for f in (flag[:2], flag[2:]) if f}
        if old is None:
            expected = 0 if "xx" in flags else 1
        elif "nx" in flags or ("gt" in flags and not s0 > old) or ("lt" in flags and not s0 < old):
            expected = 0
        else:
            expected = 2 if s0 != old else 0
        if expected:
            self.model[k] = s0 if s0 != 0 else 0.0
        assert self.z.add_status(m, s, **flags) == expected

    @rule(m=members, d=deltas)
    def incr(self, m, d):
        k = enc(m)
        new = self.model.get(k, 0.0) + d
        if math.isnan(new):
            try:
                self.z.incr(m, d)
            except ValueError:
                return
            raise AssertionError("NaN result accepted")
        new = new + 0.0 if new != 0 else 0.0
        assert self.z.incr(m, d) == new
        self.model[k] = new

    @rule(m=members)
    def remove(self, m):
        assert self.z.remove(m) == (self.model.pop(enc(m), None) is not None)

    @rule(n=st.integers(0, 4), top=st.booleans())
    def pop(self, n, top):
        o = self.ordered()
        want = o[::-1][:n] if top else o[:n]
        got = self.z.pop_max(n) if top else self.z.pop_min(n)
        assert got == want
        for k, _ in want:
            del self.model[k]

    @rule(start=indexes, stop=indexes)
    def remove_range_by_rank(self, start, stop):
        o = self.ordered()
        sl = redis_slice(len(o), start, stop)
        gone = [] if sl is None else o[sl[0] : sl[1] + 1]
        assert self.z.remove_range_by_rank(start, stop) == len(gone)
        for k, _ in gone:
            del self.model[k]

    @rule(lo=bounds, hi=bounds, loex=st.booleans(), hiex=st.booleans())
    def remove_range_by_score(self, lo, hi, loex, hiex):
        gone = [k for k, v in self.model.items() if in_range(v, lo, hi, loex, hiex)]
        assert self.z.remove_range_by_score(lo, hi, min_exclusive=loex, max_exclusive=hiex) == len(gone)
        for k in gone:
            del self.model[k]

    @precondition(lambda self: self.one_score())
    @rule(lo=lex_bounds, hi=lex_bounds, loex=st.booleans(), hiex=st.booleans())
    def remove_range_by_lex(self, lo, hi, loex, hiex):
        gone = [k for k in self.model if lex_in(k, lo, hi, loex, hiex)]
        assert self.z.remove_range_by_lex(lo, hi, min_exclusive=loex, max_exclusive=hiex) == len(gone)
        for k in gone:
            del self.model[k]

    @rule(pairs=st.lists(st.tuples(members, scores), max_size=80))
    def add_many(self, pairs):
        ms, ss = [m for m, _ in pairs], [s for _, s in pairs]
        single = self.z.copy()
        added = sum(single.add_status(m, s) == 1 for m, s in pairs)
        assert self.z.add_many(ms, np.array(ss, dtype=np.float64)) == added
        assert self.z.items() == single.items()
        for m, s in pairs:
            self.model[enc(m)] = s if s != 0 else 0.0

    @rule(ids=st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 3), max_size=70),
          s=st.integers(-2, 2))
    def add_many_numpy(self, ids, s):
        arr = np.array(ids, dtype=np.int64)
        single = self.z.copy()
        added = sum(single.add_status(i, s) == 1 for i in ids)
        assert self.z.add_many(arr, np.full(len(ids), s)) == added
        assert self.z.items() == single.items()
        for i in ids:
            self.model[str(i).encode()] = float(s)

    @rule(pairs=st.lists(st.tuples(members, deltas), max_size=10))
    def incr_many(self, pairs):
        ms, ds = [m for m, _ in pairs], [d for _, d in pairs]
        trial = dict(self.model)
        nan = False
        results = []
        for m, d in pairs:
            v = trial.get(enc(m), 0.0) + d
            if math.isnan(v):
                nan = True
                break
            trial[enc(m)] = v if v != 0 else 0.0
            results.append(trial[enc(m)])
        before = self.z.items()
        if nan:
            try:
                self.z.incr_many(ms, ds)
            except ValueError:
                assert self.z.items() == before
                return
            raise AssertionError("NaN result accepted")
        assert self.z.incr_many(ms, ds).tolist() == results
        self.model = trial

    # -- queries ----------------------------------------------------------------

    @rule(m=members, reverse=st.booleans())
    def rank_and_score(self, m, reverse):
        o = [k for k, _ in self.ordered()]
        k = enc(m)
        if k in self.model:
            r = o.index(k)
            assert self.z.rank(m, reverse) == (len(o) - 1 - r if reverse else r)
            assert self.z.score(m) == self.model[k]
            assert m in self.z
        else:
            assert self.z.rank(m, reverse) is None
            assert self.z.score(m) is None
            assert m not in self.z

    @rule(ms=st.lists(members, max_size=10), reverse=st.booleans())
    def batch_queries(self, ms, reverse):
        ranks = self.z.rank_many(ms, reverse)
        assert ranks.tolist() == [-1 if (r := self.z.rank(m, reverse)) is None else r for m in ms]
        got = self.z.score_many(ms).tolist()
        for g, m in zip(got, ms):
            want = self.z.score(m)
            assert (want is None and math.isnan(g)) or g == want

    @rule(start=indexes, stop=indexes, reverse=st.booleans(), withscores=st.booleans())
    def range(self, start, stop, reverse, withscores):
        o = self.ordered()
        if reverse:
            o = o[::-1]
        sl = redis_slice(len(o), start, stop)
        want = [] if sl is None else o[sl[0] : sl[1] + 1]
        if not withscores:
            want = [k for k, _ in want]
        assert self.z.range(start, stop, reverse, withscores) == want

    @rule(lo=bounds, hi=bounds, loex=st.booleans(), hiex=st.booleans(), reverse=st.booleans(),
          offset=st.integers(-1, 6), count=st.integers(-2, 6), withscores=st.booleans())
    def range_by_score(self, lo, hi, loex, hiex, reverse, offset, count, withscores):
        o = [kv for kv in self.ordered() if in_range(kv[1], lo, hi, loex, hiex)]
        if reverse:
            o = o[::-1]
        want = limit(o, offset, count)
        if not withscores:
            want = [k for k, _ in want]
        got = self.z.range_by_score(lo, hi, min_exclusive=loex, max_exclusive=hiex, reverse=reverse,
                                    offset=offset, count=count, withscores=withscores)
        assert got == want
        assert self.z.count(lo, hi, min_exclusive=loex, max_exclusive=hiex) == len(o)

    @precondition(lambda self: self.one_score())
    @rule(lo=lex_bounds, hi=lex_bounds, loex=st.booleans(), hiex=st.booleans(), reverse=st.booleans(),
          offset=st.integers(-1, 6), count=st.integers(-2, 6))
    def range_by_lex(self, lo, hi, loex, hiex, reverse, offset, count):
        o = [k for k, _ in self.ordered() if lex_in(k, lo, hi, loex, hiex)]
        if reverse:
            o = o[::-1]
        got = self.z.range_by_lex(lo, hi, min_exclusive=loex, max_exclusive=hiex, reverse=reverse,
                                  offset=offset, count=count)
        assert got == limit(o, offset, count)
        assert self.z.count_by_lex(lo, hi, min_exclusive=loex, max_exclusive=hiex) == len(o)

    @rule()
    def copy_and_clear(self):
        c = self.z.copy()
        c._check()
        assert c.items() == self.z.items()
        c.clear()
        assert len(c) == 0 and len(self.z) == len(self.model)

    # -- after every step --------------------------------------------------------

    @invariant()
    def agrees(self):
        self.z._check()
        assert len(self.z) == len(self.model)
        assert self.z.items() == self.ordered()
        assert list(self.z) == [k for k, _ in self.ordered()]


SortedSetModel.TestCase.settings = settings(
    max_examples=300, stateful_step_count=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestSortedSetModel = SortedSetModel.TestCase
