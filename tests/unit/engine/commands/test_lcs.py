"""LCS (commands/lcs.py): the string, LEN, IDX with MINMATCHLEN and
WITHMATCHLEN (the example of Redis's command page), missing keys, errors.

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py);
tests/property/engine/test_lcs_table.py checks the table against the textbook
programme and tests/compat/commands/test_diff_lcs.py compares random strings.
"""
from fastrank import errors as E

from .replies import error_line


def test_string_and_length(r):
    r.mset({"key1": "ohmytext", "key2": "mynewtext"})
    assert r.lcs("key1", "key2") == b"mytext"
    assert r.lcs("key1", "key2", len=True) == 6
    assert r.lcs("key1", "missing") == b"" and r.lcs("missing", "missing", len=True) == 0


def test_idx_matches_from_the_end(r):
    r.mset({"key1": "ohmytext", "key2": "mynewtext"})
    assert r.lcs("key1", "key2", idx=True) == [             # redis-py leaves the map flat
        b"matches", [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], b"len", 6]
    assert r.lcs("key1", "key2", idx=True, minmatchlen=4, withmatchlen=True) == [
        b"matches", [[[4, 7], [5, 8], 4]], b"len", 6]


def test_errors(r):
    r.set("a", "x")
    r.sadd("s", "x")
    assert error_line(r, "LCS", "a", "s") == E.message(E.LCS_NOT_STRINGS)
    assert error_line(r, "LCS", "a", "a", "LEN", "IDX") == E.message(E.LCS_IDX_AND_LEN)
    assert error_line(r, "LCS", "a", "a", "MINMATCHLEN", "x") == E.message(E.NOT_INTEGER)
    assert error_line(r, "LCS", "a", "a", "BOGUS") == E.message(E.SYNTAX)
    assert error_line(r, "LCS", "a") == E.message(E.WRONG_ARITY, "lcs")
