"""LCS's bit-vector table (commands/lcs.py) against the textbook dynamic programme.

For random byte strings, every prefix-pair length ``LcsTable.length(i, j)``
equals the classic table's cell, so the walk back (which reads only those
lengths) takes the server's path.
"""
from __future__ import annotations

from typing import List

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank.engine.commands.lcs import LcsTable

TEXT = st.binary(max_size=40) | st.text(alphabet="abc", max_size=60).map(str.encode)


def textbook(a: bytes, b: bytes) -> List[List[int]]:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_every_prefix_length_matches_the_textbook_table(a: bytes, b: bytes) -> None:
    expected = textbook(a, b)
    table = LcsTable(a, b)
    assert [[table.length(i, j) for j in range(len(b) + 1)] for i in range(len(a) + 1)] \
        == expected
