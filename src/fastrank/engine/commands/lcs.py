"""LCS (Redis 7.0): the longest common subsequence of two string keys.

``LCS a b`` gives the subsequence, ``LEN`` its length, ``IDX`` the matching
ranges (``MINMATCHLEN`` drops shorter ones, ``WITHMATCHLEN`` adds each
length) as the RESP3 map ``{matches: [...], len: n}``. Missing keys are
empty strings. The table of prefix LCS lengths is kept as bit-vectors
(``LcsTable``); the walk back from its last cell decides every tie the way
the server does (step in the second string unless the first gives a
strictly longer subsequence), so the subsequence and the ranges are the
server's, not just one valid answer. Time O(len(a) * len(b) / 64) word
operations, memory len(a) * len(b) bits.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastrank import errors as E
from fastrank.engine.commands.table import CommandError, command, syntax_error, to_int

if TYPE_CHECKING:
    from fastrank.engine import Engine


class LcsTable:
    """The LCS lengths of every prefix pair, one bit-vector per prefix of a.

    Row i is the bit-parallel LCS state (Allison-Dix / Hyyrö) after a[:i]: bit
    j is 0 where the LCS length grows at b[j], so ``length(i, j)`` is j minus
    the ones among the low j bits. Building costs O(len(a) * len(b) / 64)
    machine-word operations (Python ints), a lookup O(len(b) / 64).
    """

    __slots__ = ("rows",)

    def __init__(self, a: bytes, b: bytes) -> None:
        full = (1 << len(b)) - 1
        where: dict[int, int] = {}
        for j, byte in enumerate(b):
            where[byte] = where.get(byte, 0) | (1 << j)
        row = full
        self.rows = [row]
        for byte in a:
            matches = row & where.get(byte, 0)
            row = ((row + matches) | (row - matches)) & full
            self.rows.append(row)

    def length(self, i: int, j: int) -> int:
        """LCS length of a[:i] and b[:j]."""
        return j - (self.rows[i] & ((1 << j) - 1)).bit_count()


def walk_back(a: bytes, b: bytes, table: LcsTable
              ) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """(subsequence, ranges): each range (a_start, a_end, b_start, b_end) is a run
    of consecutive matches, listed from the end of the strings to their start.
    O(len(a) + len(b)) steps."""
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
            if table.length(i - 1, j) > table.length(i, j - 1):
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
    table = LcsTable(a, b)
    length = table.length(len(a), len(b))
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
