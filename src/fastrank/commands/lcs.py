"""LCS (Redis 7.0): the longest common subsequence of two string keys.

``LCS a b`` gives the subsequence, ``LEN`` its length, ``IDX`` the matching
ranges (``MINMATCHLEN`` drops shorter ones, ``WITHMATCHLEN`` adds each
length) as the RESP3 map ``{matches: [...], len: n}``. Missing keys are
empty strings. The table is the classic dynamic programme; the walk back
from its last cell decides every tie the way the server does (step in the
second string unless the first gives a strictly longer subsequence), so the
subsequence and the ranges are the server's, not just one valid answer.
Time and memory O(len(a) * len(b)).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastrank import _errors as E
from fastrank.commands import CommandError, command, syntax_error, to_int

if TYPE_CHECKING:
    from fastrank.engine import Engine


def lcs_table(a: bytes, b: bytes) -> list[list[int]]:
    """table[i][j]: LCS length of a[:i] and b[:j]. O(len(a) * len(b))."""
    table = [[0] * (len(b) + 1)]
    for i in range(1, len(a) + 1):
        above = table[i - 1]
        row = [0]
        byte = a[i - 1]
        for j in range(1, len(b) + 1):
            if byte == b[j - 1]:
                row.append(above[j - 1] + 1)
            else:
                up, left = above[j], row[j - 1]
                row.append(up if up > left else left)
        table.append(row)
    return table


def walk_back(a: bytes, b: bytes, table: list[list[int]]
              ) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """(subsequence, ranges): each range (a_start, a_end, b_start, b_end) is a run
    of consecutive matches, listed from the end of the strings to their start."""
    out = bytearray()
    ranges: list[tuple[int, int, int, int]] = []
    run: list[int] | None = None  # [a_start, a_end, b_start, b_end] being grown
    i, j = len(a), len(b)
    while i > 0 and j > 0:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            if run is None:
                run = [i - 1, i - 1, j - 1, j - 1]
            else:  # a walk-back step after a match is always contiguous
                run[0], run[2] = i - 1, j - 1
            i -= 1
            j -= 1
            if i == 0 or j == 0:
                ranges.append((run[0], run[1], run[2], run[3]))
        else:
            if table[i - 1][j] > table[i][j - 1]:
                i -= 1
            else:
                j -= 1
            if run is not None:
                ranges.append((run[0], run[1], run[2], run[3]))
                run = None
    out.reverse()
    return bytes(out), ranges


def string_or_empty(db: Engine, key: bytes) -> bytes | None:
    """The string at key, b'' when missing, None for another type."""
    value = db.lookup(key)
    if value is None:
        return b""
    return value if type(value) is bytes else None


@command("lcs", -3)
def lcs(db: Engine, args: list[bytes]) -> Any:
    a, b = string_or_empty(db, args[0]), string_or_empty(db, args[1])
    if a is None or b is None:
        raise CommandError(E.LCS_NOT_STRINGS)
    want_idx = want_len = with_len = False
    min_len = 0
    i = 2
    while i < len(args):
        word = args[i].upper()
        if word == b"IDX":
            want_idx = True
        elif word == b"LEN":
            want_len = True
        elif word == b"WITHMATCHLEN":
            with_len = True
        elif word == b"MINMATCHLEN" and i + 1 < len(args):
            min_len = max(to_int(args[i + 1]), 0)
            i += 1
        else:
            raise syntax_error()
        i += 1
    if want_idx and want_len:
        raise CommandError(E.LCS_IDX_AND_LEN)
    table = lcs_table(a, b)
    length = table[len(a)][len(b)]
    if want_len:
        return length
    subsequence, ranges = walk_back(a, b, table)
    if not want_idx:
        return subsequence
    matches: list[list[Any]] = []
    for a0, a1, b0, b1 in ranges:
        if a1 - a0 + 1 >= min_len:
            match: list[Any] = [[a0, a1], [b0, b1]]
            if with_len:
                match.append(a1 - a0 + 1)
            matches.append(match)
    return {b"matches": matches, b"len": length}
